#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""gpudp-capture's flow monitor (--flow-log, --ipfix, doc/flows.md) against
real components (meson suite 'dpdk').

usage: flow_monitor.py GPUDP_CAPTURE DATA_DIR GROUP [WORK_DIR] [--flows N]

GROUP is one of:
  tshark     the NDJSON flow log of the captures of test/data, unidirectional
             and biflow, against tshark's dissection of every frame: per
             direction of each 5-tuple the packets, frame bytes (l2_octets),
             IP bytes (octets), first and last times, TCP flags, ToS, VLAN
             and ICMP type; every record's Community ID computed again; every
             line valid against doc/flow-log.schema.json (with
             python3-jsonschema); the report's counts
  nfcapd     the same runs exporting IPFIX to nfcapd on the loopback: every
             record read back by nfdump equal to its flow log line; no
             sequence failure
  nfacctd    the same to nfacctd (print plugin, custom primitives): layer 2
             octets, end reasons and biflows' reverse counts too; no
             "expecting flow" in its log
  softflowd  softflowd -r on the same captures into nfcapd, against
             gpudp-capture into nfcapd: equal flows, and every difference
             of one of the kinds doc/flows.md ("Compared with softflowd")
             explains
  scale_out  two gpudp-capture processes at once, on two captures, with two
             observation domains, into one nfcapd: nfdump's totals are both
             runs' together, and each exporter's are its run's
  long_run   make_flows.py's capture (WORK_DIR; over 10 million packets, over
             a million flows, 3 hours) with --flows 65536: every flow
             direction exported once (the active timeout's parts joined
             again) as make_flows.py computed it, nothing lost, no flow
             table full, memory bounded
  faults     a UDP collector that is not there, --flow-log /dev/full, bad
             --ipfix values and timeouts (exit 2 naming them)
  gpu        (meson suite 'gpu') the GPU engine's flow log equal to the CPU
             engine's, line for line: the captures of test/data and one of
             make_flows.py (200,000 flows, an hour) through tables that
             need room made, unidirectional and biflow, the default
             timeouts and none; the PMD reader with --mem pinned too;
             77 without a GPU
--flows N gives make_flows.py another number of flows (long_run, by hand).
Prints one line per check and "N passed, N failed"; exit 1 on any failure,
77 when a program a group needs (tshark, nfcapd and nfdump, nfacctd,
softflowd) is missing.
"""
import collections
import ipaddress
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "lib", "flow"))

import app_cases  # noqa: E402  (Cases: running the app, counting checks)
import check_flow_log  # noqa: E402  (the Community ID)
import check_tshark  # noqa: E402  (tshark's dissection of each frame)
import ipfix_collectors as coll  # noqa: E402  (nfcapd, nfacctd)
import make_flows  # noqa: E402  (the generated capture, for the gpu group)
import make_flows  # noqa: E402  (the long run's capture and its digest)

SKIP = 77
END_IDS = {"idle": 1, "active": 2, "end": 3, "forced": 4, "lack_of_resources": 5}
# timeouts no capture of test/data reaches: one record per flow direction
NO_TIMEOUTS = ["--idle-timeout", "86400", "--active-timeout", "604800"]
# the captures compared with tshark and the collectors; those where
# doc/capture.md's "How the parser compares with tshark" finds differences
# (tcp-offset, ah, source-route, ip-version, orig-len) are left out
TSHARK_CAPTURES = ["sample.pcap", "sample.pcapng", "jumbo.pcap", "snapped.pcap",
                   "frag-ipv4.pcap", "frag-ipv6.pcap", "icmp-errors.pcap", "vlan3.pcap",
                   "llc-pppoe.pcap"]
COLLECTOR_CAPTURES = ["sample.pcap", "jumbo.pcap", "frag-ipv4.pcap", "frag-ipv6.pcap",
                      "icmp-errors.pcap", "vlan3.pcap"]
L4_NUM = {"tcp": 6, "udp": 17, "icmp": 1, "icmpv6": 58}
EXTRA_FIELDS = ("frame.time_epoch", "ip.dsfield", "ipv6.tclass", "tcp.flags", "icmp.type",
                "icmp.code", "icmpv6.type", "icmpv6.code", "vlan.id", "ieee8021ad.id",
                "ipv6.nxt")
LONG_IDLE, LONG_ACTIVE = 30, 300
# the long run's memory: anonymous RSS (the capture is mapped: its pages
# are the file's)
LONG_RSS_LIMIT_KB = 256 * 1024
LONG_RSS_GROWTH_KB = 16 * 1024


class Cases(app_cases.Cases):
    def flows(self, pcaps, *opts, json_name="report.json", timeout=120):
        """gpudp-capture --cpu on the direct reader: (result, report or None)."""
        j = self.out(json_name)
        if os.path.exists(j):
            os.unlink(j)
        args = []
        for p in pcaps if isinstance(pcaps, list) else [pcaps]:
            args += ["--pcap", p]
        r = self.run(None, *args, "--cpu", "--quiet", "--progress", "0", "--json", j, *opts,
                     timeout=timeout)
        rep = None
        if os.path.exists(j):
            with open(j) as f:
                rep = json.load(f)
        return r, rep


def read_log(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def addr16(af, text):
    b = socket.inet_pton(socket.AF_INET if af == 4 else socket.AF_INET6, text)
    return b + bytes(16 - len(b))


def int0(v):
    return int(v, 0) if v not in (None, "") else 0


def time_ns(text):
    """tshark's frame.time_epoch ("1795305969.049123000") in ns, exactly."""
    s, _, frac = text.partition(".")
    return int(s) * 10**9 + int((frac + "000000000")[:9])


class TsharkDir:
    """What tshark says of one direction of one 5-tuple."""

    def __init__(self):
        self.packets = self.l2 = self.octets = self.flags = 0
        self.first = self.last = None
        self.tos = self.vlan = self.icmp = None
        self.vlans, self.toss = set(), set()


class Pkt:
    """One frame that gpudp-capture puts in a flow, as tshark dissects it."""
    __slots__ = ("af", "src", "dst", "proto", "sport", "dport", "icmp", "t", "len",
                 "ip_len", "tos", "vlan", "flags", "sf_l2", "v6_later_frag", "later_frag")


def tshark_frames(chk, ts, pcap, tcp_check=True):
    """([Pkt], frames in no flow: not IP, or dropped). A Pkt's key is the
    flow monitor's: ports for TCP and UDP, but 0 and 0 for a fragment that
    is not the first; ICMP and ICMPv6 with sport 0 and dport None (icmp:
    the type << 8 | code, None for a later fragment). sf_l2: the link
    header softflowd skips (Ethernet II, one 802.1Q tag: 14 or 18), None
    for a frame it does not read as IP (two tags or more, 802.1ad, LLC/SNAP,
    PPPoE)."""
    fields = check_tshark.RAW_FIELDS + EXTRA_FIELDS
    out = check_tshark.tshark(ts, pcap, "-o", "ip.defragment:FALSE", "-o",
                              "ipv6.defragment:FALSE", "-T", "fields", "-E", "occurrence=a",
                              "-E", "aggregator=,", "-E", "separator=|",
                              *sum((["-e", f] for f in fields), []))
    rows = [line.split("|") for line in out.splitlines()]
    frames = [check_tshark.Frame(chk, row) for row in rows]
    if tcp_check and any(f.l4 == "tcp" for f in frames):
        pos = check_tshark.tcp_positions(ts, pcap)
        for i, f in enumerate(frames):
            f.tcp_verdict(chk, pos[i] if i < len(pos) else None)
    pkts, left_out = [], 0
    n_raw = len(check_tshark.RAW_FIELDS)
    for fr, row in zip(frames, rows):
        x = dict(zip(EXTRA_FIELDS, row[n_raw:]))

        def first(name):
            return x.get(name, "").split(",")[0]

        if fr.kind is None or fr.drop:
            left_out += 1
            continue
        p = Pkt()
        p.af = 4 if fr.kind == "IPv4" else 6
        if fr.frag is not None:
            p.proto = fr.frag[5]
        elif fr.l4 in L4_NUM:
            p.proto = L4_NUM[fr.l4]
        else:
            p.proto = int0(first("ip.proto") if p.af == 4 else
                           x.get("ipv6.nxt", "").split(",")[-1])
        icmp = p.proto in (1, 58)
        p.sport = fr.sport if fr.sport is not None and not icmp else 0
        p.dport = None if icmp else (fr.dport if fr.dport is not None else 0)
        p.src = str(ipaddress.ip_address(fr.src))
        p.dst = str(ipaddress.ip_address(fr.dst))
        p.t = time_ns(x["frame.time_epoch"])
        tags = [q for q in fr.protos if q in check_tshark.TAGS]
        p.vlan = int0(first("ieee8021ad.id") if tags and tags[0] == "ieee8021ad" else
                      first("vlan.id"))
        p.tos = int0(first("ip.dsfield")) if p.af == 4 else int0(first("ipv6.tclass"))
        p.later_frag = fr.frag is not None and not fr.frag[1]
        p.v6_later_frag = p.af == 6 and p.later_frag
        p.icmp = None
        if icmp and not p.later_frag:
            name = "icmp" if p.proto == 1 else "icmpv6"
            if first(name + ".type") != "":
                p.icmp = int0(first(name + ".type")) << 8 | int0(first(name + ".code"))
        p.len, p.ip_len = fr.len, fr.ip_len
        p.flags = int0(first("tcp.flags")) & 0xff if p.proto == 6 and fr.sport is not None \
            else 0
        head = fr.protos[:5]
        p.sf_l2 = 14 if head[:3] in (["eth", "ethertype", "ip"], ["eth", "ethertype", "ipv6"]) \
            else 18 if head[:2] == ["eth", "ethertype"] and head[2:3] == ["vlan"] and \
            head[4:5] in (["ip"], ["ipv6"]) else None
        pkts.append(p)
    return pkts, left_out


def tshark_dirs(pkts):
    """{(af, src, dst, proto, sport, dport): TsharkDir} of tshark_frames()' Pkts."""
    dirs = {}
    for p in pkts:
        d = dirs.setdefault((p.af, p.src, p.dst, p.proto, p.sport, p.dport), TsharkDir())
        if d.first is None or p.t < d.first:
            d.first, d.tos, d.vlan = p.t, p.tos, p.vlan
        if p.icmp is not None and d.icmp is None:
            d.icmp = p.icmp
        d.last = p.t if d.last is None else max(d.last, p.t)
        d.packets += 1
        d.l2 += p.len
        d.octets += p.ip_len
        d.vlans.add(p.vlan)
        d.toss.add(p.tos)
        d.flags |= p.flags
    return dirs


def rec_dir_key(r):
    icmp = r["proto"] in (1, 58)
    return (r["af"], r["src"], r["dst"], r["proto"], r["sport"], None if icmp else r["dport"])


def reverse_key(k):
    af, src, dst, proto, sport, dport = k
    if proto in (1, 58):
        return (af, dst, src, proto, 0, None)
    return (af, dst, src, proto, dport, sport)


def schema_validator(data_dir):
    try:
        import jsonschema
    except ImportError:
        return None
    with open(os.path.join(data_dir, "..", "..", "doc", "flow-log.schema.json")) as f:
        schema = json.load(f)
    cls = jsonschema.validators.validator_for(schema)
    return cls(schema, format_checker=jsonschema.FormatChecker())


def report_checks(c, tag, r, rep, recs, log=True):
    """The report's flow_export against the records: counts, reasons, outputs."""
    fe = (rep or {}).get("flow_export") or {}
    c.check("%s_exit_0" % tag, r.returncode == 0, "status %d: %s" % (r.returncode,
                                                                     r.stderr[-400:]))
    by_reason = collections.Counter(x["end_reason"] for x in recs)
    c.check("%s_report_counts_every_record" % tag, fe.get("records") == len(recs) and
            fe.get("packets") == sum(x["packets"] + x.get("rpackets", 0) for x in recs) and
            fe.get("flows_ended") == {k: by_reason.get(k, 0) for k in END_IDS},
            "report %s; log: %d records, by reason %s" % (fe, len(recs), dict(by_reason)))
    prot = (rep or {}).get("protocols", {})
    ip_pkts = prot.get("ipv4", {}).get("packets", 0) + prot.get("ipv6", {}).get("packets", 0)
    dropped = sum((rep or {}).get("drops", {}).values())
    c.check("%s_every_ip_packet_in_one_record" % tag, fe.get("packets") == ip_pkts - dropped,
            "flow_export.packets %s, ipv4 + ipv6 packets %d, drops %d" %
            (fe.get("packets"), ip_pkts, dropped))
    if log:
        fl = fe.get("flow_log") or {}
        c.check("%s_flow_log_counts" % tag, fl.get("records") == len(recs) and
                fl.get("dropped") == 0 and fl.get("error") is None and fe.get("dropped") == 0,
                "flow_log %s" % fl)


def tshark_group(c):
    ts = shutil.which("tshark")
    if not ts:
        print("SKIP: tshark not found (Debian: tshark, config/packages/capture.txt)")
        return SKIP
    validator = schema_validator(c.data)
    if validator is None:
        print("note: python3-jsonschema missing: the lines are not checked against "
              "doc/flow-log.schema.json")
    for cap in TSHARK_CAPTURES:
        chk = check_tshark.Checker()
        pcap = c.path(cap)
        pkts, left_out = tshark_frames(chk, ts, pcap)
        want = tshark_dirs(pkts)
        tag = cap.replace(".", "_").replace("-", "_")
        for biflow in (False, True):
            log = c.out("%s%s.ndjson" % (tag, "_biflow" if biflow else ""))
            r, rep = c.flows(pcap, "--flow-log", log, *NO_TIMEOUTS,
                             *(["--biflow"] if biflow else []))
            t = tag + ("_biflow" if biflow else "")
            recs = read_log(log) if os.path.exists(log) else []
            report_checks(c, t, r, rep, recs)
            if not biflow:
                compare_unidirectional(c, t, want, recs)
            else:
                compare_biflow(c, t, want, recs)
            bad = []
            for x in recs:
                cid = check_flow_log.community_id(x["af"], addr16(x["af"], x["src"]),
                                                  addr16(x["af"], x["dst"]), x["proto"],
                                                  x["sport"], x["dport"], 0)
                if x.get("community_id") != cid:
                    bad.append("%s -> %s proto %d: %r, want %s" % (
                        x["src"], x["dst"], x["proto"], x.get("community_id"), cid))
            c.check("%s_community_id_of_every_record" % t, recs and not bad, bad[:5])
            if validator is not None:
                errs = []
                with open(log) as f:
                    for n, line in enumerate(f, 1):
                        errs += ["line %d: %s" % (n, e.message)
                                 for e in validator.iter_errors(json.loads(line))]
                c.check("%s_lines_valid_against_the_schema" % t, not errs, errs[:5])
        print("     %s: %d flow directions per tshark, %d frames in no flow" %
              (cap, len(want), left_out))
    return 0


def compare_unidirectional(c, tag, want, recs):
    got = collections.defaultdict(list)
    for x in recs:
        got[rec_dir_key(x)].append(x)
    diffs = []
    for k in sorted(set(want) | set(got), key=repr):
        w, rs = want.get(k), sorted(got.get(k, []), key=lambda x: x["first_ns"])
        if w is None or not rs:
            diffs.append("%s: %s" % (k, "no such direction in tshark" if w is None else
                                     "no record"))
            continue
        g = (sum(x["packets"] for x in rs), sum(x["l2_octets"] for x in rs),
             sum(x["octets"] for x in rs), min(x["first_ns"] for x in rs),
             max(x["last_ns"] for x in rs))
        if g != (w.packets, w.l2, w.octets, w.first, w.last):
            diffs.append("%s: packets, l2_octets, octets, first, last %s, tshark %s" %
                         (k, g, (w.packets, w.l2, w.octets, w.first, w.last)))
        flags = 0
        for x in rs:
            flags |= x["tcp_flags"]
        if flags != w.flags:
            diffs.append("%s: TCP flags %#x, tshark %#x" % (k, flags, w.flags))
        # doc/flows.md, "The records": the largest VLAN and ToS of the
        # direction (the pair's: VLAN first)
        if rs[0]["tos"] not in w.toss or (len(w.vlans) == 1 and rs[0]["tos"] != max(w.toss)):
            diffs.append("%s: ToS %d, tshark's %s" % (k, rs[0]["tos"], sorted(w.toss)))
        if any(x["vlan"] not in w.vlans for x in rs) or rs[0]["vlan"] != max(w.vlans):
            diffs.append("%s: VLAN %s, tshark's outer VLAN IDs %s" %
                         (k, [x["vlan"] for x in rs], sorted(w.vlans)))
        if k[3] in (1, 58) and w.icmp is not None and rs[0]["dport"] != w.icmp:
            diffs.append("%s: ICMP type and code %#06x, the first packet's %#06x" %
                         (k, rs[0]["dport"], w.icmp))
        if len(rs) > 1 and k[3] != 6:
            diffs.append("%s: %d records without a timeout or a TCP end" % (k, len(rs)))
    for d in diffs:
        print("     %s" % d)
    c.check("%s_every_direction_equals_tshark" % tag, recs and not diffs,
            "%d differences" % len(diffs))
    # end reasons: "end" only for TCP that closed (FIN both ways or RST), and
    # every such TCP flow's last records say "end"; the rest "forced"
    bad = []
    for k, rs in got.items():
        rev = got.get(reverse_key(k), [])
        w, wr = want.get(k), want.get(reverse_key(k))
        closed = k[3] == 6 and w is not None and (
            ((w.flags | (wr.flags if wr else 0)) & 0x04) or
            (w.flags & (wr.flags if wr else 0) & 0x01))
        last = max(rs + rev, key=lambda x: x["last_ns"])
        for x in rs:
            if x["end_reason"] not in ("end", "forced"):
                bad.append("%s: %s" % (k, x["end_reason"]))
            if x["end_reason"] == "end" and not closed:
                bad.append("%s: 'end' but tshark shows no FIN both ways nor RST" % (k,))
        if closed and last["end_reason"] != "end":
            bad.append("%s: closed, its last record says %s" % (k, last["end_reason"]))
    c.check("%s_end_reasons_end_and_forced" % tag, not bad, bad[:6])


def compare_biflow(c, tag, want, recs):
    """Biflow records: src sent the first packet; forward and reverse counts
    are tshark's two directions."""
    got = collections.defaultdict(list)
    for x in recs:
        if not x.get("biflow"):
            got["not biflow"].append(x)
            continue
        k = rec_dir_key(x)
        rk = reverse_key(k)
        got[min(k, rk, key=repr)].append((k, x))
    diffs = ["%d records without biflow" % len(got.pop("not biflow", []))] \
        if "not biflow" in got else []
    seen = set()
    for ck, items in got.items():
        fwd = collections.Counter()
        firsts = []
        for k, x in items:
            rk = reverse_key(k)
            for kk, p, l2, o in ((k, x["packets"], x["l2_octets"], x["octets"]),
                                 (rk, x["rpackets"], x["rl2_octets"], x["roctets"])):
                fwd[(kk, "p")] += p
                fwd[(kk, "l2")] += l2
                fwd[(kk, "o")] += o
            firsts.append((x["first_ns"], k))
        for k in {k for k, _ in fwd}:
            seen.add(k)
            w = want.get(k)
            wv = (w.packets, w.l2, w.octets) if w else (0, 0, 0)
            g = (fwd[(k, "p")], fwd[(k, "l2")], fwd[(k, "o")])
            if g != wv:
                diffs.append("%s: packets, l2_octets, octets %s, tshark %s" % (k, g, wv))
        # the first record's source sent the flow's first packet
        t0, k0 = min(firsts, key=repr)
        w0, wr0 = want.get(k0), want.get(reverse_key(k0))
        if w0 is None or w0.first != t0 or (wr0 is not None and wr0.first < t0):
            diffs.append("%s: source %s, first %d: not the sender of the first packet" %
                         (ck, k0[1], t0))
    for k in want:
        if k not in seen:
            diffs.append("%s: in tshark, in no biflow record" % (k,))
    for d in diffs:
        print("     %s" % d)
    c.check("%s_forward_and_reverse_equal_tshark" % tag, recs and not diffs,
            "%d differences" % len(diffs))


def collector_runs(c, target):
    """Each capture of COLLECTOR_CAPTURES, and sample.pcap with --biflow, to
    the collector at target, each run an exporter of its own (observation
    domain 100 + i) with its flow log: [(tag, records)]."""
    runs = []
    todo = [(cap, []) for cap in COLLECTOR_CAPTURES] + [("sample.pcap", ["--biflow"])]
    for i, (cap, extra) in enumerate(todo):
        tag = cap.replace(".", "_").replace("-", "_") + ("_biflow" if extra else "")
        log = c.out(tag + ".ndjson")
        # the first run also writes IPFIX to a file: three outputs, a
        # thread each, every one given every record
        fil = ["--ipfix-file", c.out(tag + ".ipfix")] if i == 0 else []
        r, rep = c.flows(c.path(cap), "--flow-log", log, "--ipfix", target,
                         "--observation-domain", str(100 + i), *NO_TIMEOUTS, *extra, *fil)
        recs = read_log(log) if os.path.exists(log) else []
        report_checks(c, tag, r, rep, recs)
        ipf = ((rep or {}).get("flow_export") or {}).get("ipfix") or [{}]
        c.check("%s_ipfix_target_sent_every_record" % tag, len(ipf) == 1 + (i == 0) and
                ipf[0].get("records") == len(recs) and ipf[0].get("messages", 0) >= 1 and
                ipf[0].get("dropped") == 0 and ipf[0].get("errors") == 0 and
                target.endswith(ipf[0].get("target", "?")), ipf)
        if fil:
            size = os.path.getsize(fil[1]) if os.path.exists(fil[1]) else -1
            c.check("%s_ipfix_file_wrote_every_record" % tag, len(ipf) == 2 and
                    ipf[1].get("records") == len(recs) and ipf[1].get("dropped") == 0 and
                    ipf[1].get("bytes") == size and size > 0 and
                    ipf[1].get("target") == "file:" + fil[1], "%s, file of %d bytes" %
                    (ipf, size))
        runs.append((tag, recs))
    return runs


def log_key(x):
    return coll.key(x["src"], x["dst"], x["sport"], x["dport"], x["proto"])


def compare_multisets(c, name, want, got, what):
    w, g = collections.Counter(want), collections.Counter(got)
    only_w, only_g = w - g, g - w
    for k in list(only_w)[:10]:
        print("     in the flow logs, not in %s: %s" % (what, k))
    for k in list(only_g)[:10]:
        print("     in %s, not in the flow logs: %s" % (what, k))
    c.check(name, want and not only_w and not only_g,
            "%d records in the logs, %d in %s; %d and %d unmatched" %
            (len(want), len(got), what, sum(only_w.values()), sum(only_g.values())))


def with_collector(c, nf, read):
    """The collector @nf started, collector_runs() into it, a second for the
    last datagrams, then read(nf) before it stops. None: it is missing."""
    if nf.missing():
        print("SKIP: " + nf.missing())
        return None
    port = nf.start()
    try:
        runs = collector_runs(c, "udp:127.0.0.1:%d" % port)
        time.sleep(1.0)
        return runs, read(nf)
    finally:
        nf.stop()


def nfcapd_read(nf):
    path = nf.stop()
    return (nf.records(path) if path else [],
            nf.sequence_failures(path) if path else None)


def nfcapd_group(c):
    nf = coll.Nfcapd(c.tmp)
    res = with_collector(c, nf, nfcapd_read)
    if res is None:
        return SKIP
    runs, (got, failures) = res
    # what nfdump shows of a record: no layer 2 octets, no reverse flags
    want = [(log_key(x), x["first_ns"] // 10**6, x["last_ns"] // 10**6, x["packets"],
             x["octets"], x.get("rpackets", 0), x.get("roctets", 0), x["tcp_flags"], x["tos"],
             x["vlan"], END_IDS[x["end_reason"]]) for _, recs in runs for x in recs]
    have = [(coll.nfdump_key(g), coll.nfdump_ms(g["first"]), coll.nfdump_ms(g["last"]),
             g["in_packets"], g["in_bytes"], g.get("out_packets", 0), g.get("out_bytes", 0),
             coll.nfdump_flags(g.get("tcp_flags")), g["src_tos"], g["src_vlan"],
             g["end_reason"]) for g in got]
    compare_multisets(c, "nfdump_decodes_every_record_as_the_flow_log_says", want, have,
                      "nfdump -o json")
    sysids = {g.get("export_sysid") for g in got}
    c.check("nfcapd_sees_one_exporter_per_run", len(sysids) == len(runs), sorted(sysids))
    c.check("nfcapd_no_sequence_failure", failures == 0, "nfdump -I: %s" % failures)
    print("     nfcapd: %d records from %d runs, nfdump read %d" %
          (len(want), len(runs), len(got)))
    return 0


def nfacctd_group(c):
    nf = coll.Nfacctd(c.tmp)
    res = with_collector(c, nf, lambda n: (n.sequence_lines(), n.stop()))
    if res is None:
        return SKIP
    runs, (seq, rows) = res
    want = [(log_key(x), x["first_ns"] // 10**6, x["last_ns"] // 10**6, x["packets"],
             x["octets"], x["l2_octets"], x.get("rpackets", 0), x.get("roctets", 0),
             x.get("rl2_octets", 0), x["tcp_flags"], x.get("rtcp_flags", 0), x["tos"],
             x["vlan"], END_IDS[x["end_reason"]]) for _, recs in runs for x in recs]
    have = [(coll.nfacctd_key(g), coll.pmacct_ms(g["TIMESTAMP_START"]),
             coll.pmacct_ms(g["TIMESTAMP_END"]), int(g["PACKETS"]), int(g["BYTES"]),
             int(g["l2octets"]), int(g["rpackets"]), int(g["roctets"]), int(g["rl2octets"]),
             int(g["TCP_FLAGS"]), int(g["rtcpflags"]), int(g["TOS"]), int(g["VLAN"]),
             int(g["endreason"])) for g in rows]
    # nfacctd's print plugin aggregates records whose primitives are all
    # equal (a flow of one direction in the unidirectional and the biflow
    # run) into one row, their packets and bytes summed, when they come in
    # one refresh interval: both sides summed the same way
    def aggregate(rows):
        agg = collections.defaultdict(lambda: [0, 0])
        for w in rows:
            a = agg[w[:3] + w[5:]]
            a[0] += w[3]
            a[1] += w[4]
        return [k[:3] + tuple(v) + k[3:] for k, v in agg.items()]

    n_rows = len(have)
    want, have = aggregate(want), aggregate(have)
    compare_multisets(c, "nfacctd_decodes_every_record_as_the_flow_log_says", want, have,
                      "nfacctd's print plugin")
    c.check("nfacctd_no_sequence_gap", not seq, seq[:2])
    print("     nfacctd: %d records from %d runs (%d once aggregated), its print plugin "
          "wrote %d rows" % (sum(len(r) for _, r in runs), len(runs), len(want), n_rows))
    return 0


SOFTFLOWD_CAPTURES = ["sample.pcap", "frag-ipv4.pcap", "frag-ipv6.pcap", "icmp-errors.pcap",
                      "vlan3.pcap", "llc-pppoe.pcap"]
# softflowd -t names and gpudp-capture's timeouts: the same values
SOFTFLOWD_IDLE = ("general", "tcp", "tcp.rst", "tcp.fin", "udp", "icmp")


def softflowd_model(pkts):
    """The records softflowd 1.1.0 -r exports (doc/flows.md, "Compared with
    softflowd"), from tshark's frames: (key, first ms, last ms, packets,
    bytes, TCP flags, ToS, end reason)."""
    flows = {}
    for p in pkts:
        if p.sf_l2 is None:
            continue                      # not IP to softflowd
        proto = 0 if p.v6_later_frag else p.proto
        if p.later_frag:
            sport = dport = 0
        elif proto in (1, 58):
            sport, dport = 0, p.icmp or 0
        else:
            sport, dport = p.sport, p.dport
        ends = ((p.src, sport), (p.dst, dport))
        f = flows.get((p.af, proto, frozenset(ends)))
        if f is None:
            f = flows[(p.af, proto, frozenset(ends))] = {
                "first": p.t, "last": p.t, "dirs": {},
                # ToS: the first packet's, for its direction; IPv6: 0
                "tos": (ends, p.tos if p.af == 4 else 0)}
        f["first"], f["last"] = min(f["first"], p.t), max(f["last"], p.t)
        d = f["dirs"].setdefault(ends, [0, 0, 0])
        d[0] += 1
        d[1] += p.len - p.sf_l2
        d[2] |= p.flags
    out = []
    for (af, proto, _), f in flows.items():
        flags = [d[2] for d in f["dirs"].values()]
        closed = proto == 6 and (any(x & 0x04 for x in flags) or
                                 (len(flags) == 2 and flags[0] & flags[1] & 0x01))
        for ends, (n, nbytes, fl) in f["dirs"].items():
            (src, sport), (dst, dport) = ends
            out.append((coll.key(src, dst, sport, dport, proto), f["first"] // 10**6,
                        f["last"] // 10**6, n, nbytes, fl,
                        f["tos"][1] if f["tos"][0] == ends else 0, 3 if closed else 1))
    return out


def nfdump_rows(nf, path):
    return [(coll.nfdump_key(g), coll.nfdump_ms(g["first"]), coll.nfdump_ms(g["last"]),
             g["in_packets"], g["in_bytes"], coll.nfdump_flags(g.get("tcp_flags")),
             g["src_tos"], g["end_reason"]) for g in nf.records(path)]


def sf_key(p):
    """The key softflowd gives a packet (coll.key's form): ICMP's type and code
    as the destination port, 0 and 0 for a later fragment, protocol 0 for an
    IPv6 one."""
    if p.later_frag:
        return coll.key(p.src, p.dst, 0, 0, 0 if p.af == 6 else p.proto)
    if p.proto in (1, 58):
        return coll.key(p.src, p.dst, 0, p.icmp or 0, p.proto)
    return coll.key(p.src, p.dst, p.sport, p.dport, p.proto)


def gp_key(p):
    return (p.af, p.src, p.dst, p.proto, p.sport, p.dport)


def softflowd_compare(c, tag, pkts, gp, sf):
    """gpudp-capture's records (its flow log) against softflowd's (nfdump):
    the records both have, and why each other one differs."""
    by_g, by_s = collections.defaultdict(list), collections.defaultdict(list)
    for p in pkts:
        by_g[gp_key(p)].append(p)
        by_s[sf_key(p)].append(p)

    def related(own):
        """The packets of a record's key, and of every key of the other side
        they are in."""
        out = set(own)
        for p in own:
            out.update(by_g[gp_key(p)])
            out.update(by_s[sf_key(p)])
        return out

    sf_left = collections.Counter(sf)
    sf_by_key = collections.defaultdict(list)
    for s in sf:
        sf_by_key[s[0]].append(s)
    gp_count, gp_pk, sf_pk = collections.Counter(), collections.Counter(), collections.Counter()
    for x in gp:
        gp_count[log_key(x)] += 1
        gp_pk[log_key(x)] += x["packets"]
    for s in sf:
        sf_pk[s[0]] += s[3]
    kinds = collections.Counter()
    unexplained = []
    for g in gp:
        k = log_key(g)
        hdr = 18 if g["vlan"] else 14
        match = None
        for s in sf_by_key.get(k, []):
            if sf_left[s] and s[3] == g["packets"] and s[5] == g["tcp_flags"] and \
                    s[4] == g["l2_octets"] - g["packets"] * hdr and \
                    s[1] <= g["first_ns"] // 10**6 and s[2] >= g["last_ns"] // 10**6:
                match = s
                break
        if match is not None:
            sf_left[match] -= 1
            kinds["agreed"] += 1
            if match[4] != g["octets"]:
                kinds["agreed; bytes: softflowd counts the frame less its link header, "
                      "Ethernet padding included"] += 1
            if (match[1], match[2]) != (g["first_ns"] // 10**6, g["last_ns"] // 10**6):
                kinds["agreed; times: softflowd gives both directions the flow's"] += 1
            if match[6] != g["tos"]:
                kinds["agreed; ToS: softflowd's is the first packet's, in its direction "
                      "only (IPv6: 0)"] += 1
            reasons = (END_IDS[g["end_reason"]], match[7])
            if reasons == (4, 1):
                kinds["agreed; end reason: softflowd says idle at the end of the file, "
                      "gpudp-capture forced"] += 1
            elif reasons != (3, 3):
                unexplained.append("%s: end reasons %s and %d" % (k, g["end_reason"],
                                                                   match[7]))
            continue
        why = explain(related(by_g.get(rec_dir_key(g), [])), gp_count[k],
                      len(sf_by_key.get(k, [])), gp_pk[k] == sf_pk[k])
        if why:
            kinds["gpudp-capture's record differs: " + why] += 1
        else:
            unexplained.append("%s: gpudp-capture's record %s, softflowd's %s" %
                               (k, (g["first_ns"] // 10**6, g["last_ns"] // 10**6,
                                    g["packets"], g["octets"], g["tcp_flags"]),
                                sf_by_key.get(k)))
    for s in sf_left.elements():
        why = explain(related(by_s.get(s[0], [])), gp_count[s[0]], len(sf_by_key[s[0]]),
                      gp_pk[s[0]] == sf_pk[s[0]])
        if why:
            kinds["softflowd's record differs: " + why] += 1
        else:
            unexplained.append("%s: softflowd's record %s, none of gpudp-capture's" %
                               (s[0], s))
    for what, n in sorted(kinds.items()):
        print("     %s: %d records: %s" % (tag, n, what))
    for u in unexplained[:20]:
        print("     %s: unexplained: %s" % (tag, u))
    # a direction softflowd reads whole
    readable = any(all(p.sf_l2 is not None for p in ps) for ps in by_g.values())
    c.check("%s_records_agree_or_differ_as_explained" % tag,
            (kinds["agreed"] > 0 or not readable) and not unexplained,
            "%d agreed, %d unexplained" % (kinds["agreed"], len(unexplained)))
    # per direction of each address pair: the same packets, but for the
    # frames softflowd does not read as IP
    tot = collections.Counter()
    for x in gp:
        tot[(x["src"], x["dst"], "gp")] += x["packets"]
    for p in pkts:
        if p.sf_l2 is None:
            tot[(p.src, p.dst, "gp")] -= 1
    for s in sf:
        tot[(s[0][0], s[0][1], "sf")] += s[3]
    pairs = {(a, b) for a, b, _ in tot}
    bad = ["%s -> %s: gpudp-capture %d (less those), softflowd %d" %
           (a, b, tot[(a, b, "gp")], tot[(a, b, "sf")]) for a, b in pairs
           if tot[(a, b, "gp")] != tot[(a, b, "sf")]]
    c.check("%s_same_packets_per_address_pair_but_frames_softflowd_skips" % tag,
            not bad, bad[:5])


def explain(pk, n_gp, n_sf, same_packets):
    """Why a record has no equal on the other side, from the packets of its
    key and of the other side's keys they are in (tshark), or None."""
    if any(p.sf_l2 is None for p in pk):
        return "frames softflowd does not read as IP (802.1ad or two 802.1Q tags, " \
            "LLC/SNAP, PPPoE)"
    if any(p.v6_later_frag for p in pk):
        return "IPv6 fragments after the first: protocol 0 in softflowd"
    if any(p.later_frag and p.proto in (1, 58) for p in pk):
        return "ICMP fragments after the first: softflowd's type 0 flow"
    if len({p.icmp for p in pk if p.icmp is not None}) > 1:
        return "ICMP: a flow per type and code in softflowd, the first packet's in " \
            "gpudp-capture"
    if any(p.proto == 6 for p in pk) and n_gp and n_sf and n_gp != n_sf and same_packets:
        return "TCP: gpudp-capture ended the flow at FIN or RST and more packets came; " \
            "softflowd -r ends none before the end of the file"
    return None


def softflowd_group(c):
    sfd = coll.find("softflowd")
    ts = shutil.which("tshark")
    nf1 = coll.Nfcapd(c.tmp, "softflowd")
    if nf1.missing() or not sfd or not ts:
        print("SKIP: %s" % (nf1.missing() or ("softflowd not found (Debian: softflowd)"
                                               if not sfd else "tshark not found")))
        return SKIP
    gen = c.out("generated.pcap")
    subprocess.run([sys.executable, os.path.join(HERE, "make_flows.py"), gen, "--flows",
                    "400", "--tail", "10", "--seed", "3"], check=True, stdout=subprocess.PIPE)
    for cap in SOFTFLOWD_CAPTURES + [gen]:
        pcap = cap if os.path.isabs(cap) else c.path(cap)
        tag = "softflowd_" + os.path.basename(cap).replace(".", "_").replace("-", "_")
        chk = check_tshark.Checker()
        pkts, _ = tshark_frames(chk, ts, pcap, tcp_check=cap != gen)
        nf_sf = coll.Nfcapd(c.tmp, tag + "_sf")
        nf_gp = coll.Nfcapd(c.tmp, tag + "_gp")
        try:
            p_sf, p_gp = nf_sf.start(), nf_gp.start()
            t = ["-t", "maxlife=604800"] + sum((["-t", "%s=86400" % n]
                                                for n in SOFTFLOWD_IDLE), [])
            r = subprocess.run([sfd, "-r", pcap, "-n", "127.0.0.1:%d" % p_sf, "-v", "10",
                                "-A", "milli", "-a", "-m", "1000000"] + t,
                               capture_output=True, text=True, timeout=120)
            m = re.search(r"Flows exported: \d+ \((\d+) records\) in (\d+) packets", r.stdout)
            c.check(tag + "_softflowd_ran", r.returncode == 0 and m,
                    "status %d: %s" % (r.returncode, (r.stdout + r.stderr)[-300:]))
            log = c.out(tag + ".ndjson")
            rg, rep = c.flows(pcap, "--flow-log", log, "--ipfix", "udp:127.0.0.1:%d" % p_gp,
                              *NO_TIMEOUTS)
            gp = read_log(log) if os.path.exists(log) else []
            report_checks(c, tag, rg, rep, gp)
            time.sleep(0.5)
            f_sf, f_gp = nf_sf.stop(), nf_gp.stop()
            sf = nfdump_rows(nf_sf, f_sf) if f_sf else []
            gp_nf = nfdump_rows(nf_gp, f_gp) if f_gp else []
            seq_sf = nf_sf.sequence_failures(f_sf) if f_sf else None
            seq_gp = nf_gp.sequence_failures(f_gp) if f_gp else None
        finally:
            nf_sf.stop()
            nf_gp.stop()
        compare_multisets(c, tag + "_gpudp_in_nfdump_as_its_flow_log",
                          [(log_key(x), x["first_ns"] // 10**6, x["last_ns"] // 10**6,
                            x["packets"], x["octets"], x["tcp_flags"], x["tos"],
                            END_IDS[x["end_reason"]]) for x in gp], gp_nf, "nfdump")
        model = softflowd_model(pkts)
        w, g = collections.Counter(model), collections.Counter(sf)
        for k in list((w - g).elements())[:10]:
            print("     %s: softflowd's model, not in its export: %s" % (tag, k))
        for k in list((g - w).elements())[:10]:
            print("     %s: in softflowd's export, not its model: %s" % (tag, k))
        c.check(tag + "_softflowd_exports_what_its_model_says", w == g and (sf or not model),
                "%d records, %d in the model" % (len(sf), len(model)))
        # softflowd numbers a message with the records sent before it and
        # its own: nfcapd sees a failure wherever a message's record count is
        # not the one before's
        n_msg = int(m.group(2)) if m else 0
        c.check(tag + "_sequence_numbers", seq_gp == 0 and m and
                (0 < seq_sf <= n_msg - 1 if n_msg > 1 else seq_sf == 0),
                "gpudp-capture: %s sequence failures; softflowd: %s in %s messages" %
                (seq_gp, seq_sf, n_msg))
        softflowd_compare(c, tag, pkts, gp, sf)
    return 0


def totals(recs):
    return (len(recs), sum(x["packets"] + x.get("rpackets", 0) for x in recs),
            sum(x["octets"] + x.get("roctets", 0) for x in recs))


def scale_out_group(c):
    nf = coll.Nfcapd(c.tmp)
    if nf.missing():
        print("SKIP: " + nf.missing())
        return SKIP
    gen = c.out("scale-out.pcap")
    subprocess.run([sys.executable, os.path.join(HERE, "make_flows.py"), gen, "--flows",
                    "400", "--tail", "10", "--seed", "4"], check=True, stdout=subprocess.PIPE)
    port = nf.start()
    runs = [("sample", c.path("sample.pcap"), 1, NO_TIMEOUTS),
            ("generated", gen, 2, ["--idle-timeout", "30", "--active-timeout", "300"])]
    procs = []
    try:
        for name, pcap, dom, extra in runs:
            log, j = c.out(name + ".ndjson"), c.out(name + ".json")
            cmd = [c.app] + app_cases.EAL + ["--", "--pcap", pcap, "--cpu", "--quiet",
                                             "--progress", "0", "--json", j, "--flow-log", log,
                                             "--ipfix", "udp:127.0.0.1:%d" % port,
                                             "--observation-domain", str(dom)] + extra
            # one EAL each: no shared runtime directory (--no-shconf)
            procs.append((name, log, j, subprocess.Popen(cmd, stdout=subprocess.PIPE,
                                                         stderr=subprocess.PIPE, text=True)))
        recs = {}
        for name, log, j, pr in procs:
            out, err = pr.communicate(timeout=120)
            rep = json.load(open(j)) if os.path.exists(j) else None
            recs[name] = read_log(log) if os.path.exists(log) else []
            report_checks(c, "scale_out_" + name,
                          subprocess.CompletedProcess(pr.args, pr.returncode, out, err), rep,
                          recs[name])
        time.sleep(1.0)
        path = nf.stop()
        got = nf.records(path) if path else []
        info = nf.nfdump(path, "-I") if path else ""
        exporters = subprocess.run([nf.nfdump_prog, "-E", path], stdout=subprocess.PIPE,
                                   text=True).stdout if path else ""
        failures = nf.sequence_failures(path) if path else None
    finally:
        for _, _, _, pr in procs:
            if pr.poll() is None:
                pr.kill()
                pr.wait()
        nf.stop()
    want = tuple(map(sum, zip(*(totals(r) for r in recs.values()))))

    def stat(name):
        m = re.search(r"^%s:\s*(\d+)" % name, info, re.M)
        return int(m.group(1)) if m else None

    c.check("scale_out_nfdump_totals_are_both_runs_together",
            (stat("Flows"), stat("Packets"), stat("Bytes")) == want and
            len(got) == want[0], "nfdump -I: flows %s, packets %s, bytes %s; the runs: %s" %
            (stat("Flows"), stat("Packets"), stat("Bytes"), want))
    by_sysid = collections.defaultdict(list)
    for g in got:
        by_sysid[g.get("export_sysid")].append(g)
    per_exp = sorted((len(v), sum(g["in_packets"] + g.get("out_packets", 0) for g in v),
                      sum(g["in_bytes"] + g.get("out_bytes", 0) for g in v))
                     for v in by_sysid.values())
    c.check("scale_out_each_exporter_has_its_runs_records",
            per_exp == sorted(totals(r) for r in recs.values()),
            "nfdump by exporter %s; the runs %s" % (per_exp, [totals(r) for r in
                                                             recs.values()]))
    # "SysID: 1, IP: 127.0.0.1, version: 10, ID: 1, Sequence failures: 0, ..., flows: 50"
    exp = {int(m.group(1)): int(m.group(2)) for m in
           re.finditer(r"version: 10, ID:\s*(\d+),.*flows: (\d+)", exporters)}
    c.check("scale_out_nfcapd_lists_each_observation_domain_with_its_records",
            exp == {1: len(recs.get("sample", [])), 2: len(recs.get("generated", []))},
            exporters[-600:])
    c.check("scale_out_no_sequence_failure", failures == 0, "nfdump -I: %s" % failures)
    print("     scale_out: %d + %d records, %d packets in all" %
          (len(recs.get("sample", [])), len(recs.get("generated", [])), want[1]))
    return 0


class RssWatch(threading.Thread):
    """The largest anonymous RSS (kB) of a process, read from /proc every 0.1 s."""

    def __init__(self, pid):
        super().__init__(daemon=True)
        self.pid, self.peak, self.hwm, self.done = pid, 0, 0, False

    def run(self):
        while not self.done:
            try:
                with open("/proc/%d/status" % self.pid) as f:
                    st = f.read()
            except OSError:
                return
            for name in ("RssAnon", "VmHWM"):
                m = re.search(r"^%s:\s*(\d+) kB" % name, st, re.M)
                if m and name == "RssAnon":
                    self.peak = max(self.peak, int(m.group(1)))
                elif m:
                    self.hwm = max(self.hwm, int(m.group(1)))
            time.sleep(0.1)


def canon_key(r):
    if r["proto"] in (1, 58):
        return (r["af"], r["proto"]) + tuple(sorted((r["src"], r["dst"])))
    return (r["af"], r["proto"]) + tuple(sorted(((r["src"], r["sport"]),
                                                 (r["dst"], r["dport"]))))


class Joiner:
    """Flow records as they come, the parts of a flow that the active
    timeout split joined again; each flow direction's digest
    (make_flows.digest()) once its flow ended. The records one look at the
    table gave for one flow (its two directions) come together."""

    def __init__(self, active_s, long_flows, slack_s):
        self.active_ns = active_s * 10**9
        self.slack_ns = int(slack_s * 10**9)
        self.open = {}                        # direction -> joined parts
        self.open_by_canon = collections.defaultdict(set)
        self.splits = collections.Counter()   # flow -> active exports
        self.final_splits = {}
        self.long = long_flows                # flow -> (duration (us), end reason)
        self.ended_active = 0
        self.dig = make_flows.Digest()
        self.problems = []
        self.group, self.gid = [], None
        self.records = collections.Counter()
        self.packets = 0

    def feed(self, r):
        self.records[r["end_reason"]] += 1
        self.packets += r["packets"]
        gid = (canon_key(r), r["end_reason"])
        dk = (r["af"], r["src"], r["dst"], r["sport"], r["dport"], r["proto"])
        if self.group and (gid != self.gid or any(d == dk for d, _ in self.group)):
            self.flush()
        self.group.append((dk, r))
        self.gid = gid

    def problem(self, text):
        if len(self.problems) < 1000:
            self.problems.append(text)

    def flush(self):
        if not self.group:
            return
        canon, reason = self.gid
        for dk, r in self.group:
            j = self.open.pop(dk, None)
            if j is None:
                j = {"first": r["first_ns"], "last": r["last_ns"], "packets": 0, "octets": 0,
                     "l2": 0, "flags": 0, "vlan": r["vlan"], "tos": r["tos"]}
            elif (j["vlan"], j["tos"]) != (r["vlan"], r["tos"]) or r["first_ns"] <= j["last"]:
                self.problem("%s: a part with VLAN %d, ToS %d, first %d after VLAN %d, "
                             "ToS %d, last %d" % (dk, r["vlan"], r["tos"], r["first_ns"],
                                                  j["vlan"], j["tos"], j["last"]))
            j["first"], j["last"] = min(j["first"], r["first_ns"]), max(j["last"], r["last_ns"])
            j["packets"] += r["packets"]
            j["octets"] += r["octets"]
            j["l2"] += r["l2_octets"]
            j["flags"] |= r["tcp_flags"]
            if reason == "active" and r["last_ns"] - r["first_ns"] > self.active_ns + \
                    self.slack_ns:
                self.problem("%s: an active timeout's part of %.1f s" %
                             (dk, (r["last_ns"] - r["first_ns"]) / 1e9))
            self.open[dk] = j
            self.open_by_canon[canon].add(dk)
        self.group = []
        if reason == "active":
            self.splits[canon] += 1
        else:
            self.end_flow(canon, END_IDS[reason])

    def end_flow(self, canon, rid):
        for dk in self.open_by_canon.pop(canon):
            j = self.open.pop(dk)
            af, src, dst, sport, dport, proto = dk
            self.dig.add(af, addr16(af, src), addr16(af, dst), sport, dport, proto, j["vlan"],
                         j["tos"], j["flags"], j["first"] // 1000, j["last"] // 1000,
                         j["packets"], j["octets"], j["l2"], rid)
        n = self.splits.pop(canon, 0)
        if canon in self.final_splits:
            self.problem("%s: a long flow ended twice" % (canon,))
        if canon in self.long:
            self.final_splits[canon] = n
        elif n:
            self.problem("%s: a short flow split %d times by the active timeout" % (canon, n))

    def finish(self):
        """The flows whose last record is an active timeout's (no packet came
        after it: the flow's end gives no record) end as generated."""
        self.flush()
        for canon in list(self.open_by_canon):
            if canon not in self.long:
                self.problem("%s: parts exported on the active timeout, the flow never "
                             "ended" % (canon,))
                continue
            self.ended_active += 1
            self.splits[canon] -= 1
            self.end_flow(canon, self.long[canon][1])
        a = self.active_ns / 1e9
        s = a + self.slack_ns / 1e9
        for canon, (dur_us, _) in self.long.items():
            n, d = self.final_splits.get(canon), dur_us / 1e6
            lo, hi = max(0, int(-(-d // s)) - 1), int(d // a)
            if n is None or not lo <= n <= hi:
                self.problem("long flow %s of %.0f s: %s active timeout exports, want %d..%d"
                             % (canon, d, n, lo, hi))


def long_run_group(c):
    work = c.work or c.out("long-run")
    os.makedirs(work, exist_ok=True)
    pcap = os.path.join(work, "flows.pcap")
    t0 = time.monotonic()
    gen = [sys.executable, os.path.join(HERE, "make_flows.py"), pcap, "--reuse",
           "--idle", str(LONG_IDLE), "--active", str(LONG_ACTIVE)]
    if c.long_flows:
        gen += ["--flows", str(c.long_flows)]
    subprocess.run(gen, check=True)
    t_gen = time.monotonic() - t0
    with open(pcap + ".json") as f:
        man = json.load(f)
    if not c.long_flows:
        c.check("long_run_capture_is_long", man["packets"] >= 10**7 and man["flows"] >= 10**6 and
                man["end_us"] - man["first_us"] >= 3 * 3600 * 10**6 - 10**6,
                "%d packets, %d flows" % (man["packets"], man["flows"]))
    opts = ["--flows", "65536", "--idle-timeout", str(LONG_IDLE), "--active-timeout",
            str(LONG_ACTIVE)]
    # memory after a tenth of the packets, then after all of them
    tenth = c.out("tenth.json")
    cmd = [c.app] + app_cases.EAL + ["--", "--pcap", pcap, "--cpu", "--quiet", "--progress",
                                      "0"] + opts
    pr = subprocess.Popen(cmd + ["--json", tenth, "--flow-log", "/dev/null", "--max-packets",
                                 str(man["packets"] // 10)],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    w_tenth = RssWatch(pr.pid)
    w_tenth.start()
    err_tenth = pr.communicate(timeout=600)[1]
    w_tenth.done = True
    c.check("long_run_a_tenth_of_it_exit_0", pr.returncode == 0, err_tenth[-400:])

    j = c.out("long.json")
    errf = open(c.out("long.stderr"), "w+")
    t1 = time.monotonic()
    pr = subprocess.Popen(cmd + ["--json", j, "--flow-log", "-"], stdout=subprocess.PIPE,
                          stderr=errf, text=True, bufsize=1 << 20)
    watch = RssWatch(pr.pid)
    watch.start()
    # the flow monitor looks at its table between batches (the time moved on
    # by 1 s): an active timeout's part may last the timeout and the time
    # a batch's packets span
    slack_s = man["batch_span_us"] / 1e6 + 2
    joiner = Joiner(LONG_ACTIVE, {canon_key(x): (x["duration_us"], x["end_reason"])
                                  for x in man["long_flows"]}, slack_s)
    not_json = 0
    for line in pr.stdout:
        if not line.startswith("{"):
            not_json += 1
            continue
        joiner.feed(json.loads(line))
    pr.wait()
    t_run = time.monotonic() - t1
    watch.done = True
    joiner.finish()
    t_all = time.monotonic() - t1
    errf.seek(0)
    err = errf.read()
    rep = json.load(open(j)) if os.path.exists(j) else {}
    fe = rep.get("flow_export") or {}
    n_rec = sum(joiner.records.values())
    c.check("long_run_exit_0", pr.returncode == 0 and not_json == 0,
            "status %d, %d lines not JSON: %s" % (pr.returncode, not_json, err[-400:]))
    c.check("long_run_every_packet_exported", rep.get("packets") == man["packets"] and
            fe.get("packets") == man["packets"] == joiner.packets,
            "capture %d, report %s, flow_export %s, records %d" %
            (man["packets"], rep.get("packets"), fe.get("packets"), joiner.packets))
    c.check("long_run_report_counts_the_records", fe.get("records") == n_rec and
            fe.get("flows_ended") == {k: joiner.records.get(k, 0) for k in END_IDS} and
            (fe.get("flow_log") or {}).get("records") == n_rec and fe.get("dropped") == 0,
            "report %s; log %d records %s" % (fe, n_rec, dict(joiner.records)))
    # the flow log goes to this script, slower than the analysis: the
    # records' queue to the outputs filled, the analysis waited, and no
    # record was lost (above)
    c.check("long_run_analysis_waited_for_the_outputs", fe.get("export_waits", 0) > 0,
            "export_waits %s" % fe.get("export_waits"))
    tab = fe.get("table") or {}
    c.check("long_run_report_times_the_looks", tab.get("looks", 0) > 0 and
            tab.get("look_ms", 0) > 0 and tab.get("look_wait_ms") == 0 and
            tab["look_ms"] < t_run * 1000, "table %s, run %.1f s" % (tab, t_run))
    c.check("long_run_no_flow_table_full_no_lack_of_resources",
            rep.get("drops", {}).get("flow_table_full") == 0 and
            joiner.records.get("lack_of_resources", 0) == 0,
            "drops %s, records by reason %s" % (rep.get("drops"), dict(joiner.records)))
    for p in joiner.problems[:20]:
        print("     %s" % p)
    c.check("long_run_records_join_into_flows", not joiner.problems,
            "%d problems" % len(joiner.problems))
    d = joiner.dig
    want_reasons = {int(k): v for k, v in man["directions_by_reason"].items()}
    c.check("long_run_every_flow_direction_exported_once_as_generated",
            d.count == man["directions"] and d.sum == man["digest"] and
            d.reasons == want_reasons,
            "%d flow directions (by reason %s), want %d (%s); digest %s" %
            (d.count, d.reasons, man["directions"], want_reasons,
             "equal" if d.sum == man["digest"] else "differs"))
    bad = [i for i in range(256) if d.buckets[i] != man["buckets"][i]]
    if bad:
        print("     %d of 256 buckets differ (the first: %s)" % (len(bad), bad[:8]))
        want_s = {tuple(sorted(e.items())) for e in man["sample"]}
        have_s = {tuple(sorted(e.items())) for e in d.sample}
        for e in sorted(want_s - have_s)[:10]:
            print("     generated, not exported: %s" % dict(e))
        for e in sorted(have_s - want_s)[:10]:
            print("     exported, not generated: %s" % dict(e))
    with open(c.app, "rb") as f:
        sanitized = b"__asan_init" in f.read()
    if sanitized:
        # ASan's shadow memory and quarantine: not the app's own
        print("note: a sanitized build: the RSS limits are not checked")
    c.check("long_run_rss_bounded", 0 < watch.peak and (sanitized or (
            watch.peak <= LONG_RSS_LIMIT_KB and
            watch.peak - w_tenth.peak <= LONG_RSS_GROWTH_KB)),
            "anonymous RSS %d kB (a tenth of the packets: %d kB), limit %d kB, growth "
            "limit %d kB" % (watch.peak, w_tenth.peak, LONG_RSS_LIMIT_KB, LONG_RSS_GROWTH_KB))
    print("     long run: %d packets, %d flows, %d records (%s); capture %.0f s, "
          "gpudp-capture and the check %.0f s (the run %.0f s), anonymous RSS %d kB "
          "(a tenth: %d kB), VmHWM %d kB; %d long flows' last record is an active "
          "timeout's; a batch spans up to %.0f s" %
          (man["packets"], man["flows"], n_rec, dict(joiner.records), t_gen, t_all, t_run,
           watch.peak, w_tenth.peak, watch.hwm, joiner.ended_active, slack_s - 2))
    return 0


def faults_group(c):
    pcap = c.path("sample.pcap")
    # a UDP collector that is not there: ECONNREFUSED counted, the analysis
    # goes on, every record in the flow log
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    log = c.out("refused.ndjson")
    r, rep = c.flows(pcap, "--flow-log", log, "--ipfix", "udp:127.0.0.1:%d" % port,
                     *NO_TIMEOUTS)
    fe = (rep or {}).get("flow_export") or {}
    ipf = (fe.get("ipfix") or [{}])[0]
    recs = read_log(log) if os.path.exists(log) else []
    c.check("unreachable_collector_analysis_completes", rep is not None and
            rep.get("packets") == 222 and fe.get("records") == len(recs) > 0,
            "status %d: %s" % (r.returncode, r.stderr[-300:]))
    c.check("unreachable_collector_records_sent_or_dropped_and_errors_counted",
            ipf.get("records", 0) + ipf.get("dropped", 0) == fe.get("records") and
            ipf.get("errors", 0) >= 1, ipf)
    c.check("unreachable_collector_exit_status", r.returncode ==
            (1 if fe.get("dropped") else 0) and fe.get("dropped") == ipf.get("dropped"),
            "status %d, dropped %s" % (r.returncode, fe.get("dropped")))
    # a full disk: every record dropped, counted, said; exit 1
    r, rep = c.flows(pcap, "--flow-log", "/dev/full", *NO_TIMEOUTS)
    fe = (rep or {}).get("flow_export") or {}
    fl = fe.get("flow_log") or {}
    c.check("flow_log_on_a_full_disk_counts_dropped_records_exit_1",
            r.returncode == 1 and fe.get("records", 0) > 0 and
            fl.get("dropped") == fe.get("records") == fe.get("dropped") and
            fl.get("records") == 0 and "No space left on device" in (fl.get("error") or "")
            and "lost" in r.stderr,
            "status %d, flow_export %s: %s" % (r.returncode, fe, r.stderr[-300:]))
    # --flow-log -: standard output is the records alone, the table on stderr
    r = c.run(None, "--pcap", pcap, "--cpu", "--progress", "0", "--flow-log", "-",
              *NO_TIMEOUTS)
    lines = r.stdout.splitlines()
    parsed = []
    for ln in lines:
        try:
            parsed.append(json.loads(ln))
        except ValueError:
            break
    c.check("flow_log_on_stdout_carries_the_records_alone", r.returncode == 0 and
            lines and len(parsed) == len(lines) and "final report" in r.stderr,
            "status %d, %d lines, %d of JSON: %s" % (r.returncode, len(lines), len(parsed),
                                                     r.stdout[:200]))
    # usage errors: exit 2, the option and the value named, no output made
    for args, needle in [
            (["--ipfix", "nohost"], "--ipfix: bad value 'nohost'"),
            (["--ipfix", "h:99999"], "--ipfix: bad value 'h:99999'"),
            (["--ipfix", "bogus:h:1"], "--ipfix: bad value 'bogus:h:1'"),
            (["--flow-log", "x", "--idle-timeout", "0"], "--idle-timeout: bad value '0'"),
            (["--flow-log", "x", "--idle-timeout", "86401"],
             "--idle-timeout: bad value '86401'"),
            (["--flow-log", "x", "--active-timeout", "999999999"],
             "--active-timeout: bad value '999999999'"),
            (["--flow-log", "x", "--active-timeout", "0"], "--active-timeout: bad value '0'"),
            (["--flow-log", "x", "--observation-domain", "4294967296"],
             "--observation-domain: bad value '4294967296'"),
            # a table with no room for a batch of new flows
            (["--flow-log", "x", "--flows", "4096", "--batch", "4096"],
             "--flows: bad value '4096' (the flow monitor needs at least twice --batch")]:
        before = set(os.listdir(c.tmp))
        r = c.run(None, "--pcap", pcap, "--cpu", "--quiet", *args)
        c.check("usage_error %s" % " ".join(args), r.returncode == 2 and needle in r.stderr and
                set(os.listdir(c.tmp)) == before,
                "status %d: %s" % (r.returncode, r.stderr[-300:]))
    # the limits themselves are taken
    log = c.out("limits.ndjson")
    r, rep = c.flows(pcap, "--flow-log", log, "--idle-timeout", "86400", "--active-timeout",
                     "604800", "--observation-domain", "4294967295")
    c.check("timeouts_and_domain_at_their_limits_accepted", r.returncode == 0 and
            ((rep or {}).get("flow_export") or {}).get("records", 0) > 0,
            "status %d: %s" % (r.returncode, r.stderr[-300:]))
    r, rep = c.flows(pcap, "--flow-log", c.out("low.ndjson"), "--idle-timeout", "1",
                     "--active-timeout", "1")
    c.check("timeouts_of_one_second_accepted", r.returncode == 0 and
            ((rep or {}).get("flow_export") or {}).get("records", 0) > 0,
            "status %d: %s" % (r.returncode, r.stderr[-300:]))
    return 0


def engine_log(c, pcap, engine, tag, *opts):
    """The flow log of one run on @engine ("cpu" or "gpu"): (result, lines or None)."""
    log = c.out("%s-%s.ndjson" % (tag, engine))
    j = c.out("%s-%s.json" % (tag, engine))
    r = c.run(None, "--pcap", pcap, "--engine", engine, "--quiet", "--progress", "0",
              "--flow-log", log, "--json", j, *opts, timeout=600)
    if r.returncode != 0 or not os.path.exists(log):
        return r, None
    with open(log) as f:
        lines = sorted(f.read().splitlines())
    with open(j) as f:
        rep = json.load(f)
    return r, (lines, rep)


def gpu_group(c):
    # the engine in use is the report's; --engine gpu exits 77 without a GPU
    r = c.run(None, "--pcap", c.path("sample.pcap"), "--engine", "gpu", "--quiet",
              "--flow-log", os.devnull)
    if r.returncode == SKIP:
        print("SKIP: no GPU engine: %s" % r.stderr.strip()[-300:])
        return SKIP
    gen = c.out("generated.pcap")
    make_flows.main(["make_flows.py", gen, "--flows", "200000", "--hours", "1",
                     "--idle", "30", "--active", "300"])
    runs = [(cap, c.path(cap), ["--flows", "16", "--batch", "8"]) for cap in TSHARK_CAPTURES]
    runs += [(cap, c.path(cap), ["--batch", "1"]) for cap in ("sample.pcap", "frag-ipv4.pcap")]
    runs += [("generated", gen, ["--flows", "65536"]), ("generated", gen, ["--flows", "16384"])]
    for cap, pcap, size in runs:
        for biflow in ([], ["--biflow"]):
            for timeouts in ([], NO_TIMEOUTS):
                opts = size + biflow + timeouts
                tag = "%s%s" % (cap.replace(".", "_").replace("-", "_"),
                                "_".join([""] + [o.strip("-") for o in opts]))
                rc, cpu = engine_log(c, pcap, "cpu", tag, *opts)
                rg, gpu = engine_log(c, pcap, "gpu", tag, *opts)
                ok = cpu is not None and gpu is not None and cpu[0] and cpu[0] == gpu[0]
                detail = ""
                if cpu is None or gpu is None:
                    detail = "exit %d / %d: %s" % (rc.returncode, rg.returncode,
                                                   (rc.stderr + rg.stderr)[-400:])
                elif not ok:
                    extra = sorted(set(gpu[0]) - set(cpu[0]))[:3]
                    lost = sorted(set(cpu[0]) - set(gpu[0]))[:3]
                    detail = "%d / %d lines; GPU only: %s; CPU only: %s" % (
                        len(cpu[0]), len(gpu[0]), extra, lost)
                c.check("gpu_records_equal_cpu_%s" % tag, ok, detail)
                if ok:
                    fc, fg = cpu[1]["flow_export"], gpu[1]["flow_export"]
                    c.check("gpu_report_equal_cpu_%s" % tag,
                            fc["flows_ended"] == fg["flows_ended"] and
                            fc["table"]["evictions"] == fg["table"]["evictions"] and
                            fc["table"]["looks"] == fg["table"]["looks"] and
                            fg["records"] == len(gpu[0]) and
                            0 <= fg["table"]["look_wait_ms"] <= fg["table"]["look_ms"],
                            "%s / %s" % (fc, fg))
    # in place: the PMD reader, mbufs in GPU-registered host memory
    for cap in ("sample.pcap", "jumbo.pcap", "frag-ipv6.pcap"):
        tag = "pmd_pinned_" + cap.replace(".", "_").replace("-", "_")
        rc, cpu = engine_log(c, c.path(cap), "cpu", tag, *NO_TIMEOUTS)
        rg, gpu = engine_log(c, c.path(cap), "gpu", tag, "--reader", "pmd", "--mem", "pinned",
                             *NO_TIMEOUTS)
        c.check("gpu_records_equal_cpu_%s" % tag, cpu is not None and gpu is not None and
                cpu[0] and cpu[0] == gpu[0],
                "exit %d / %d: %s" % (rc.returncode, rg.returncode, rg.stderr[-400:]))
    return 0


def main():
    args = [a for a in sys.argv[1:]]
    flows = None
    if "--flows" in args:
        i = args.index("--flows")
        flows = int(args[i + 1])
        del args[i:i + 2]
    if len(args) not in (3, 4):
        sys.exit(__doc__)
    c = Cases(args[0], args[1])
    c.work = args[3] if len(args) == 4 else None
    c.long_flows = flows
    group = {"tshark": tshark_group, "nfcapd": nfcapd_group, "nfacctd": nfacctd_group,
             "softflowd": softflowd_group, "scale_out": scale_out_group,
             "long_run": long_run_group, "faults": faults_group,
             "gpu": gpu_group}.get(args[2])
    if group is None:
        sys.exit("unknown group %s" % args[2])
    try:
        rc = group(c)
    finally:
        shutil.rmtree(c.tmp, ignore_errors=True)
    if rc == SKIP:
        return SKIP
    return c.status()


if __name__ == "__main__":
    sys.exit(main())

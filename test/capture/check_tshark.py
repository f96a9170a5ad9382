#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Compare a gpudp-capture JSON report with tshark on the same capture file.

usage: check_tshark.py [--tshark PATH] PCAP -- COMMAND...

COMMAND (gpudp-capture or gpudp-capture-bench) is run with every "@JSON@"
replaced by a temporary report path. Then, against tshark 4.x on PCAP:
  totals            packets and bytes              (-z io,phs, root "eth")
  protocols         eth, vlan, qinq, arp, ipv4, ipv6, tcp, udp, icmp, icmpv6
                    packets and bytes              (-z io,phs, summed per name)
  conversations     conv,ipv4 / conv,ipv6 / conv,tcp / conv,udp: frames per
                    direction exactly, bytes exactly when tshark prints "bytes"
                    and to tshark's unit otherwise; plus exact bytes per
                    direction summed from tshark's per-frame fields
  endpoints         endpoints,ipv4 / endpoints,ipv6: tx/rx packets and bytes, exactly
  size histogram    from tshark's frame.len
Exit 0 when everything matches, 1 otherwise (each mismatch printed), 77 if
tshark is missing. Prints "N passed, N failed".
"""
import collections
import ipaddress
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

PHS_NAMES = {"eth": "eth", "arp": "arp", "ip": "ipv4", "ipv6": "ipv6", "tcp": "tcp",
             "udp": "udp", "icmp": "icmp", "icmpv6": "icmpv6"}
TAGS = ("vlan", "ieee8021ad")


class Checker:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def eq(self, what, ours, theirs):
        if ours == theirs:
            self.passed += 1
        else:
            self.failed += 1
            print("MISMATCH %s: gpudp %r, tshark %r" % (what, ours, theirs))

    def ok(self, what, cond, detail=""):
        if cond:
            self.passed += 1
        else:
            self.failed += 1
            print("MISMATCH %s %s" % (what, detail))


def tshark(ts, pcap, *args):
    r = subprocess.run([ts, "-n", "-r", pcap] + list(args), capture_output=True, text=True)
    if r.returncode != 0 and "cut short in the middle of a packet" not in r.stderr:
        sys.exit("tshark failed: %s" % r.stderr.strip())
    return r.stdout


def phs(ts, pcap):
    """Protocol hierarchy: list of (depth, name, frames, bytes, parent names)."""
    out = tshark(ts, pcap, "-q", "-z", "io,phs")
    nodes, stack = [], []
    for line in out.splitlines():
        m = re.match(r"^(\s*)(\S+)\s+frames:(\d+)\s+bytes:(\d+)", line)
        if not m:
            continue
        depth = len(m.group(1)) // 2
        stack = stack[:depth]
        nodes.append((depth, m.group(2), int(m.group(3)), int(m.group(4)), list(stack)))
        stack.append(m.group(2))
    return nodes


def phs_totals(nodes):
    t = collections.Counter()
    for depth, name, frames, nbytes, parents in nodes:
        # never count headers quoted inside ICMP errors, or inner IP of tunnels
        if any(p in ("icmp", "icmpv6") for p in parents):
            continue
        if name in ("ip", "ipv6") and any(p in ("ip", "ipv6") for p in parents):
            continue
        if name in PHS_NAMES:
            t[PHS_NAMES[name] + ".frames"] += frames
            t[PHS_NAMES[name] + ".bytes"] += nbytes
        if name in TAGS and parents and parents[-1] == "eth":
            t["vlan.frames"] += frames
            t["vlan.bytes"] += nbytes
        if name in TAGS and parents and parents[-1] in TAGS:
            t["qinq.frames"] += frames
            t["qinq.bytes"] += nbytes
    return t


def size_value(num, unit):
    """tshark 4 conversation/endpoint byte cells: (value, exact)."""
    n = int(num)
    if unit == "bytes":
        return n, True
    scale = {"kB": 10**3, "MB": 10**6, "GB": 10**9, "TB": 10**12}[unit]
    return n * scale, scale


def conv_tables(ts, pcap):
    """{(kind, frozenset of endpoints): [(a, b, frames_ba, bytes_ba, frames_ab, bytes_ab)]}"""
    out = tshark(ts, pcap, "-q", "-z", "conv,ipv4", "-z", "conv,ipv6", "-z", "conv,tcp",
                 "-z", "conv,udp")
    kind, convs = None, collections.defaultdict(list)
    cell = r"(\d+)\s+(\d+)\s+(bytes|kB|MB|GB|TB)"
    for line in out.splitlines():
        m = re.match(r"^(IPv4|IPv6|TCP|UDP) Conversations", line)
        if m:
            kind = m.group(1)
            continue
        m = re.match(r"^(\S+)\s+<->\s+(\S+)\s+" + cell + r"\s+" + cell + r"\s+" + cell, line)
        if m and kind:
            a, b = m.group(1), m.group(2)
            row = (a, b, int(m.group(3)), size_value(m.group(4), m.group(5)),
                   int(m.group(6)), size_value(m.group(7), m.group(8)))
            convs[(kind, frozenset((a, b)))].append(row)
    return convs


def endpoint_tables(ts, pcap):
    """{address: (packets, bytes, tx packets, tx bytes, rx packets, rx bytes)}"""
    out = tshark(ts, pcap, "-q", "-z", "endpoints,ipv4", "-z", "endpoints,ipv6")
    eps = {}
    for line in out.splitlines():
        m = re.match(r"^(\S+)" + r"\s+(\d+)" * 6 + r"\s*$", line)
        if not m:
            continue
        try:
            addr = str(ipaddress.ip_address(m.group(1)))
        except ValueError:
            continue
        eps[addr] = tuple(int(m.group(i)) for i in range(2, 8))
    return eps


def frame_fields(ts, pcap):
    out = tshark(ts, pcap, "-T", "fields", "-E", "occurrence=f", "-E", "separator=|",
                 "-e", "frame.len", "-e", "ip.src", "-e", "ip.dst", "-e", "ipv6.src",
                 "-e", "ipv6.dst", "-e", "tcp.srcport", "-e", "tcp.dstport",
                 "-e", "udp.srcport", "-e", "udp.dstport", "-e", "ip.flags.mf",
                 "-e", "ipv6.fraghdr.more")
    rows = []
    for line in out.splitlines():
        f = line.split("|")
        rows.append(f)
    return rows


def endpoint_key(addr, port=None):
    a = str(ipaddress.ip_address(addr))
    return a if port is None else "%s:%s" % (a, port)


def main():
    argv = sys.argv[1:]
    ts = shutil.which("tshark")
    if argv[:1] == ["--tshark"]:
        ts, argv = argv[1], argv[2:]
    if "--" not in argv or argv.index("--") != 1:
        sys.exit(__doc__)
    pcap, cmd = argv[0], argv[2:]
    if not ts or not os.path.exists(ts):
        print("tshark not found: SKIP")
        return 77
    chk = Checker()
    with tempfile.TemporaryDirectory() as tmp:
        jpath = os.path.join(tmp, "report.json")
        run = [a.replace("@JSON@", jpath) for a in cmd]
        r = subprocess.run(run, capture_output=True, text=True, timeout=600)
        if r.returncode != 0:
            print(r.stdout[-3000:], r.stderr[-3000:])
            print("command failed with status %d: %s" % (r.returncode, " ".join(run)))
            return 1
        rep = json.load(open(jpath))

    # totals and protocols
    t = phs_totals(phs(ts, pcap))
    chk.eq("packets", rep["packets"], t["eth.frames"])
    chk.eq("bytes", rep["bytes"], t["eth.bytes"])
    for name in ("eth", "vlan", "qinq", "arp", "ipv4", "ipv6", "tcp", "udp", "icmp", "icmpv6"):
        chk.eq("protocol %s packets" % name, rep["protocols"][name]["packets"],
               t[name + ".frames"])
        chk.eq("protocol %s bytes" % name, rep["protocols"][name]["bytes"], t[name + ".bytes"])
    for reason, n in rep["drops"].items():
        chk.eq("drops.%s" % reason, n, 0)

    # conversations: aggregate our flows to each tshark table's key
    ours = collections.defaultdict(lambda: collections.Counter())
    for f in rep["flows"]:
        kind_ip = "IPv4" if f["af"] == 4 else "IPv6"
        a, b = endpoint_key(f["a"]), endpoint_key(f["b"])
        for kind, ka, kb in [(kind_ip, a, b)] + (
                [("TCP" if f["proto"] == 6 else "UDP",
                  endpoint_key(f["a"], f["a_port"]), endpoint_key(f["b"], f["b_port"]))]
                if f["proto"] in (6, 17) else []):
            c = ours[(kind, frozenset((ka, kb)))]
            c[(ka, "frames")] += f["packets_ab"]
            c[(ka, "bytes")] += f["bytes_ab"]
            c[(kb, "frames")] += f["packets_ba"]
            c[(kb, "bytes")] += f["bytes_ba"]
            c["n"] += 1
    theirs = conv_tables(ts, pcap)
    chk.ok("conversations found", len(theirs) > 0 or rep["packets"] == 0,
           "(tshark printed none)")
    for key, rows in theirs.items():
        kind = key[0]
        if key not in ours:
            chk.ok("conversation %s %s" % (kind, sorted(key)), False, "missing in gpudp")
            continue
        c = ours[key]
        # tshark lists a reused 5-tuple once per TCP stream: sum those rows
        a, b = rows[0][0], rows[0][1]
        frames_ba = sum(r[2] for r in rows)
        frames_ab = sum(r[4] for r in rows)
        chk.eq("%s %s -> %s frames" % (kind, a, b), c[(a, "frames")], frames_ab)
        chk.eq("%s %s -> %s frames" % (kind, b, a), c[(b, "frames")], frames_ba)
        for col, src in ((5, a), (3, b)):
            val, exact = rows[0][col]
            ours_b = c[(src, "bytes")]
            if len(rows) == 1 and exact is True:
                chk.eq("%s from %s bytes" % (kind, src), ours_b, val)
            elif len(rows) == 1:
                chk.ok("%s from %s bytes" % (kind, src), abs(ours_b - val) < exact,
                       "gpudp %d, tshark %d (+- %d)" % (ours_b, val, exact))
    for key in ours:
        if key[0] in ("IPv4", "IPv6", "TCP", "UDP") and key not in theirs:
            chk.ok("conversation %s %s" % (key[0], sorted(key[1])), False, "missing in tshark")

    # exact bytes per direction from tshark's per-frame fields
    exact = collections.Counter()
    hist = collections.Counter()
    bounds = [(h["min"], h["max"]) for h in rep["size_histogram"]]
    for f in frame_fields(ts, pcap):
        flen = int(f[0])
        for i, (lo, hi) in enumerate(bounds):
            if flen >= lo and (hi is None or flen <= hi):
                hist[i] += 1
        src, dst = (f[1], f[2]) if f[1] else (f[3], f[4])
        if not src or f[9] in ("1", "True") or f[10] in ("1", "True"):
            continue  # not an IP frame, or a fragment that does not complete a datagram
        sport, dport = (f[5], f[6]) if f[5] else (f[7], f[8])
        kind = "IPv4" if f[1] else "IPv6"
        exact[(kind, endpoint_key(src), endpoint_key(dst))] += flen
        if sport:
            exact[("TCP" if f[5] else "UDP", endpoint_key(src, sport),
                   endpoint_key(dst, dport))] += flen
    for (kind, s, d), n in exact.items():
        chk.eq("%s bytes %s -> %s (per frame)" % (kind, s, d),
               ours[(kind, frozenset((s, d)))][(s, "bytes")] if s != d else
               sum(v for k, v in ours[(kind, frozenset((s,)))].items()
                   if k != "n" and k[1] == "bytes"), n)
    for i, h in enumerate(rep["size_histogram"]):
        chk.eq("size histogram %s-%s" % (h["min"], h["max"]), h["packets"], hist[i])

    # endpoints (top talkers)
    eps = endpoint_tables(ts, pcap)
    talkers = {t["addr"]: t for t in rep["top_talkers"]}
    chk.eq("number of endpoints", len(talkers), len(eps))
    for addr, e in eps.items():
        tk = talkers.get(addr)
        if tk is None:
            chk.ok("endpoint %s" % addr, False, "missing in gpudp")
            continue
        chk.eq("endpoint %s packets" % addr, tk["tx_packets"] + tk["rx_packets"], e[0])
        chk.eq("endpoint %s bytes" % addr, tk["tx_bytes"] + tk["rx_bytes"], e[1])
        chk.eq("endpoint %s tx packets" % addr, tk["tx_packets"], e[2])
        chk.eq("endpoint %s tx bytes" % addr, tk["tx_bytes"], e[3])
        chk.eq("endpoint %s rx packets" % addr, tk["rx_packets"], e[4])
        chk.eq("endpoint %s rx bytes" % addr, tk["rx_bytes"], e[5])

    print("compared %s: %d packets, %d flows, %d tshark conversations, %d endpoints"
          % (pcap, rep["packets"], rep["flows_total"], len(theirs), len(eps)))
    print("%d passed, %d failed" % (chk.passed, chk.failed))
    return 1 if chk.failed else 0


if __name__ == "__main__":
    sys.exit(main())

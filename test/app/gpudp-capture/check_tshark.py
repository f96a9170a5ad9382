#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Compare a gpudp-capture JSON report with tshark on the same capture file.

usage: check_tshark.py [--tshark PATH] PCAP -- COMMAND...

COMMAND (gpudp-capture or gpudp-capture-bench) is run with every "@JSON@"
replaced by a temporary report path. Then, against tshark 4.x on PCAP:
  totals            packets and bytes              (-z io,phs, root "eth")
  protocols         eth, vlan, qinq, arp, ipv4, ipv6, tcp, udp, icmp, icmpv6
                    packets and bytes              (-z io,phs, summed per name);
                    fragment packets and bytes     (per frame)
  conversations     conv,ipv4 / conv,ipv6 / conv,tcp / conv,udp: frames per
                    direction exactly, bytes exactly when tshark prints "bytes"
                    and to tshark's unit otherwise; plus exact bytes per
                    direction summed from tshark's per-frame fields
  endpoints         endpoints,ipv4 / endpoints,ipv6: tx/rx packets and bytes, exactly
  size histogram    from tshark's frame.len
Every conversation or endpoint on one side only is a mismatch, and so is a
report that lacks a field.

Fragments: gpudp-capture attributes them as doc/capture.md ("Fragments")
documents, which differs from tshark in three ways. This script computes
the documented attribution from tshark's own dissection of every frame
(with reassembly off) and applies each difference to tshark's figures
explicitly, printing a count of each ("documented difference ..."):
  - IPv6 fragments that complete no reassembly are missing from tshark's
    conv,ipv6 and endpoints,ipv6 (it counts IPv4 fragments), and are in
    gpudp's flows;
  - tshark puts a reassembled TCP/UDP datagram into conv,tcp/udp once, as the
    frame that completed it; gpudp puts every fragment of a datagram whose
    first fragment was captured into its TCP/UDP flow;
  - tshark counts a reassembled datagram's L4 protocol in the frame that
    completed the reassembly (the last to arrive), gpudp in its last
    fragment (no more-fragments flag), and only when the fragments have one
    first and one last fragment and their payload bytes add up.

The parser differs from tshark where doc/capture.md ("How the parser
compares with tshark") says; these differences are applied the same way,
from tshark's dissection of each frame (and where it found the outer TCP
header, from its JSON output), and counted ("documented difference ..."):
  - a TCP header whose data offset is below 5 words or past the datagram
    (malformed), or which the capture cut (truncated), is a drop for gpudp;
    tshark counts the frame as tcp in io,phs and in its IP conversation and
    endpoints (not in conv,tcp);
  - an IP version other than the EtherType's (an IPv6 packet in an 0x0800
    frame, an IPv4 packet in an 0x86dd frame) is malformed for gpudp; tshark
    dissects the first as IPv6 under ip, and counts ipv6 in io,phs for the
    second;
  - an IPv6 routing header (type 0, 2 or 4) with segments left puts the
    packet under its final destination in gpudp's flows; tshark's conv,tcp
    and conv,udp do so too, its conv,ipv6 and endpoints,ipv6 keep the
    header's destination.
Drops are compared with the drops these give (none otherwise).
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
PROTOCOLS = ("eth", "vlan", "qinq", "arp", "ipv4", "ipv6", "tcp", "udp", "icmp", "icmpv6",
             "fragment")
TAGS = ("vlan", "ieee8021ad")
# IPv6 extension headers as tshark names them in frame.protocols
IPV6_EXT = ("ipv6.hopopts", "ipv6.routing", "ipv6.fraghdr", "ipv6.dstopts")
# what lies between the IP header and the transport (AH, in IPv4 as in IPv6)
IP_EXT = IPV6_EXT + ("ah",)
L4_NAME = {6: "tcp", 17: "udp", 1: "icmp", 58: "icmpv6"}
# doc/capture.md's section on what the parser does otherwise than tshark
PARSER = "How the parser compares with tshark"


class Checker:
    def __init__(self):
        self.passed = 0
        self.failed = 0
        self.notes = collections.Counter()

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

    def near(self, what, ours, theirs, tol):
        """theirs within tol (0: exactly), tshark printing kB/MB cells"""
        if tol == 0:
            self.eq(what, ours, theirs)
        else:
            self.ok(what, abs(ours - theirs) < tol,
                    "gpudp %d, tshark %d (+- %d)" % (ours, theirs, tol))

    def note(self, what, n=1, section="Fragments"):
        self.notes[(section, what)] += n


class Report:
    """The JSON report; a missing or mistyped field is a mismatch, never an exception."""

    def __init__(self, chk, rep):
        self.chk = chk
        self.rep = rep if isinstance(rep, dict) else {}
        if not isinstance(rep, dict):
            chk.ok("report", False, "is not a JSON object")

    def get(self, path, kind=int, default=None):
        cur = self.rep
        for p in path:
            if isinstance(cur, dict) and p in cur:
                cur = cur[p]
            elif isinstance(cur, list) and isinstance(p, int) and 0 <= p < len(cur):
                cur = cur[p]
            else:
                self.chk.ok("report field %s" % ".".join(map(str, path)), False, "is missing")
                return default if default is not None else kind()
        if kind is int and (isinstance(cur, bool) or not isinstance(cur, int)):
            self.chk.ok("report field %s" % ".".join(map(str, path)), False,
                        "is %r, not an integer" % (cur,))
            return default if default is not None else 0
        if kind is not int and not isinstance(cur, kind):
            self.chk.ok("report field %s" % ".".join(map(str, path)), False,
                        "is %r, not a %s" % (cur, kind.__name__))
            return default if default is not None else kind()
        return cur

    def items(self, name, fields):
        """Entries of list `name` that have every field (the others are mismatches)."""
        out = []
        for i, e in enumerate(self.get((name,), list)):
            if isinstance(e, dict) and all(
                    k in e and (isinstance(e[k], t) and not isinstance(e[k], bool)
                                if t is int else isinstance(e[k], t))
                    for k, t in fields.items()):
                out.append(e)
            else:
                self.chk.ok("report %s[%d]" % (name, i), False,
                            "lacks a field of %s: %r" % (sorted(fields), e))
        return out


def tshark(ts, pcap, *args):
    r = subprocess.run([ts, "-n", "-r", pcap] + list(args), capture_output=True, text=True)
    if r.returncode != 0 and "cut short in the middle of a packet" not in r.stderr:
        sys.exit("tshark failed: %s" % r.stderr.strip())
    return r.stdout


def statistics(ts, pcap):
    """tshark's io,phs, conversation and endpoint tables, in one run."""
    return tshark(ts, pcap, "-q", "-z", "io,phs", "-z", "conv,ipv4", "-z", "conv,ipv6",
                  "-z", "conv,tcp", "-z", "conv,udp", "-z", "endpoints,ipv4",
                  "-z", "endpoints,ipv6")


def phs(out):
    """Protocol hierarchy: list of (depth, name, frames, bytes, parent names)."""
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
        # the first tag is vlan, the second qinq; third and later tags count in neither
        if name in TAGS and parents == ["eth"]:
            t["vlan.frames"] += frames
            t["vlan.bytes"] += nbytes
        if name in TAGS and len(parents) == 2 and parents[0] == "eth" and parents[1] in TAGS:
            t["qinq.frames"] += frames
            t["qinq.bytes"] += nbytes
    return t


def size_value(num, unit):
    """tshark 4 conversation/endpoint byte cells: (value, tolerance; 0 when exact)."""
    n = int(num)
    if unit == "bytes":
        return n, 0
    scale = {"kB": 10**3, "MB": 10**6, "GB": 10**9, "TB": 10**12}[unit]
    return n * scale, scale


def endpoint_key(addr, port=None):
    a = str(ipaddress.ip_address(addr))
    return a if port is None else "%s:%s" % (a, port)


def conv_tables(out):
    """{(kind, frozenset of endpoints): {(endpoint, "frames"|"bytes"): value, "tol": n}}

    Bytes sent by an endpoint; "tol" sums the byte cells' tolerances (tshark
    prints kB for large rows). A reused TCP 5-tuple (several rows) is summed.
    """
    kind, convs = None, {}
    cell = r"(\d+)\s+(\d+)\s+(bytes|kB|MB|GB|TB)"
    for line in out.splitlines():
        m = re.match(r"^(IPv4|IPv6|TCP|UDP) Conversations", line)
        if m or "Endpoints" in line or "Protocol Hierarchy" in line:
            kind = m.group(1) if m else None
            continue
        m = re.match(r"^(\S+)\s+<->\s+(\S+)\s+" + cell + r"\s+" + cell + r"\s+" + cell, line)
        if not (m and kind):
            continue
        a, b = conv_endpoint(kind, m.group(1)), conv_endpoint(kind, m.group(2))
        c = convs.setdefault((kind, frozenset((a, b))), collections.Counter())
        bytes_ba, tol_ba = size_value(m.group(4), m.group(5))
        bytes_ab, tol_ab = size_value(m.group(7), m.group(8))
        c[(b, "frames")] += int(m.group(3))
        c[(b, "bytes")] += bytes_ba
        c[(a, "frames")] += int(m.group(6))
        c[(a, "bytes")] += bytes_ab
        c["tol"] += tol_ab + tol_ba
    return convs


def conv_endpoint(kind, text):
    if kind in ("IPv4", "IPv6"):
        return endpoint_key(text)
    addr, port = text.rsplit(":", 1)
    return endpoint_key(addr, port)


def endpoint_tables(out):
    """{address: Counter(packets, bytes, tx_packets, tx_bytes, rx_packets, rx_bytes)}"""
    eps = {}
    names = ("packets", "bytes", "tx_packets", "tx_bytes", "rx_packets", "rx_bytes")
    for line in out.splitlines():
        m = re.match(r"^(\S+)" + r"\s+(\d+)" * 6 + r"\s*$", line)
        if not m:
            continue
        try:
            addr = str(ipaddress.ip_address(m.group(1)))
        except ValueError:
            continue
        eps[addr] = collections.Counter(dict(zip(names, (int(m.group(i))
                                                         for i in range(2, 8)))))
    return eps


RAW_FIELDS = ("frame.number", "frame.len", "frame.cap_len", "frame.protocols",
              "ip.version", "ip.src", "ip.dst", "ip.id", "ip.flags.mf", "ip.frag_offset",
              "ip.proto", "ip.len", "ip.hdr_len",
              "ipv6.version", "ipv6.src", "ipv6.dst", "ipv6.plen", "ipv6.fraghdr.ident",
              "ipv6.fraghdr.more", "ipv6.fraghdr.offset", "ipv6.fraghdr.nxt",
              "ipv6.hopopts.len_oct", "ipv6.routing.len_oct", "ipv6.dstopts.len_oct",
              "ipv6.routing.type", "ipv6.routing.segleft", "ipv6.routing.src.addr",
              "ipv6.routing.mipv6.home_address", "ipv6.routing.srh.addr",
              "tcp.srcport", "tcp.dstport", "udp.srcport", "udp.dstport")


def phs_names(protos):
    """The PHS_NAMES of a frame's protocols that phs_totals() counts (as it skips)."""
    out = []
    for i, name in enumerate(protos):
        parents = protos[:i]
        if any(x in ("icmp", "icmpv6") for x in parents):
            break
        if name in ("ip", "ipv6") and any(x in ("ip", "ipv6") for x in parents):
            continue
        if name in PHS_NAMES:
            out.append(PHS_NAMES[name])
    return out


class Frame:
    """One frame as tshark dissects it with reassembly off (outer headers only).

    drop: the drop reason gpudp gives a frame that tshark dissects (None:
    none); theirs: what tshark counts of such a frame that gpudp does not:
    phs names, and conversations [(kind, src, dst)] (kind IPv4/IPv6/TCP/UDP,
    endpoints as endpoint_key() gives them) and their endpoints.
    """

    def __init__(self, chk, f):
        v = dict(zip(RAW_FIELDS, f))

        def first(name):
            return v.get(name, "").split(",")[0]

        def num(name, i=0):
            x = v.get(name, "").split(",")
            return int(x[i], 0) if i < len(x) and x[i] != "" else None

        self.num, self.len = num("frame.number"), num("frame.len")
        self.cap_len = num("frame.cap_len")
        protos = v.get("frame.protocols", "").split(":")
        self.protos = protos
        self.kind = self.src = self.dst = self.l4 = None
        self.sport = self.dport = None
        self.frag = None        # (key, first, last, offset bytes, payload bytes, proto)
        self.is_frag = False    # an IPv4 fragment or an IPv6 fragment header (atomic too)
        self.drop = None
        self.theirs_phs, self.theirs_convs = [], []
        self.hdr_dst = None     # IPv6 routed: the header's destination (self.dst the final)
        self.ip_len = None      # IP datagram length from its header
        ipl = [i for i, p in enumerate(protos) if p in ("ip", "ipv6")]
        if first("ipv6.version") not in ("", "6") and "ipv6" not in protos:
            # IPv4 (or another version) in an IPv6 frame: tshark's ipv6 gives
            # up, yet io,phs counts it; gpudp: malformed (version against
            # the EtherType)
            self.drop = "malformed"
            self.theirs_phs = ["ipv6"]
            chk.note("IP version other than the EtherType's: malformed", section=PARSER)
        if not ipl or first("ip.src") == "" and first("ipv6.src") == "":
            return
        i = ipl[0] + 1
        while i < len(protos) and protos[i] in IP_EXT:
            i += 1
        self.l4 = protos[i] if i < len(protos) else None
        if protos[ipl[0]] == "ip" and first("ip.src") == "":
            # an IPv6 packet in an IPv4 frame: tshark's ip hands it to ipv6;
            # gpudp: malformed (version against the EtherType)
            self.drop = "malformed"
            self.theirs_phs = [n for n in phs_names(protos) if n != "eth"]
            s, d = first("ipv6.src"), first("ipv6.dst")
            self.theirs_convs = [("IPv6", endpoint_key(s), endpoint_key(d))]
            i = ipl[0] + 2
            while i < len(protos) and protos[i] in IP_EXT:
                i += 1
            l4 = protos[i] if i < len(protos) else None
            if l4 in ("tcp", "udp"):
                self.theirs_convs.append((l4.upper(), endpoint_key(s, num(l4 + ".srcport")),
                                          endpoint_key(d, num(l4 + ".dstport"))))
            chk.note("IP version other than the EtherType's: malformed", section=PARSER)
            self.l4 = None
            return
        if protos[ipl[0]] == "ip":
            # ip.dst: the final destination of a source route, as gpudp's
            self.kind, self.src, self.dst = "IPv4", first("ip.src"), first("ip.dst")
            self.ip_len = num("ip.len")
            off, mf = num("ip.frag_offset"), first("ip.flags.mf") in ("1", "True")
            if off or mf:
                self.is_frag = True
                proto = num("ip.proto")
                self.frag = ((self.kind, self.src, self.dst, proto, num("ip.id")),
                             off == 0, not mf, off * 8, num("ip.len") - num("ip.hdr_len"), proto)
        else:
            self.kind, self.src, self.dst = "IPv6", first("ipv6.src"), first("ipv6.dst")
            self.ip_len = 40 + (num("ipv6.plen") or 0)
            chain = protos[ipl[0] + 1:i]
            self.route_dst(chk, v, chain)
            if "ipv6.fraghdr" in chain:
                self.is_frag = True
                off, more = num("ipv6.fraghdr.offset"), first("ipv6.fraghdr.more") in ("1", "True")
                # extension headers before the fragment header are not payload
                before = chain[:chain.index("ipv6.fraghdr")]
                ext = 0
                for name in ("hopopts", "routing", "dstopts"):
                    n = before.count("ipv6." + name)
                    ext += sum(num("ipv6.%s.len_oct" % name, k) or 0 for k in range(n))
                if chain.count("ipv6.fraghdr") > 1:
                    chk.ok("frame %d" % self.num, False, "has two fragment headers: "
                           "not supported by this checker")
                proto = num("ipv6.fraghdr.nxt")
                if off or more:
                    self.frag = ((self.kind, self.src, self.dst, proto,
                                  num("ipv6.fraghdr.ident")),
                                 off == 0, not more, off * 8, num("ipv6.plen") - ext - 8, proto)
        if self.l4 in ("tcp", "udp") and (self.frag is None or self.frag[1]):
            self.sport, self.dport = num(self.l4 + ".srcport"), num(self.l4 + ".dstport")

    def route_dst(self, chk, v, chain):
        """An IPv6 routing header with segments left, before any fragment
        header: gpudp files the packet under its final destination (type 0:
        the last address, 2: the home address, 4: segment 0), as tshark's
        conv,tcp/udp do; tshark's ipv6.dst, conv,ipv6 and endpoints,ipv6 keep
        the header's."""
        if "ipv6.routing" not in chain or "ipv6.fraghdr" in chain[:chain.index("ipv6.routing")]:
            return
        typ = v.get("ipv6.routing.type", "").split(",")[0]
        left = v.get("ipv6.routing.segleft", "").split(",")[0]
        if left in ("", "0") or typ not in ("0", "2", "4"):
            return
        addrs = {"0": v.get("ipv6.routing.src.addr", "").split(",")[-1:],
                 "2": v.get("ipv6.routing.mipv6.home_address", "").split(",")[:1],
                 "4": v.get("ipv6.routing.srh.addr", "").split(",")[:1]}[typ]
        if not addrs or addrs[0] == "":
            chk.ok("frame %d" % self.num, False, "has a type %s routing header without its "
                   "addresses: not supported by this checker" % typ)
            return
        self.hdr_dst, self.dst = self.dst, addrs[0]
        chk.note("IPv6 routing header with segments left: the final destination, "
                 "in conv,ipv6 and endpoints,ipv6 too", section=PARSER)

    def tcp_verdict(self, chk, pos):
        """gpudp's verdict on the outer TCP header tshark found at pos = (TCP
        offset, its data offset in words or None, IP header offset): its data
        offset below 5 words or past the datagram is malformed, a header cut
        by the capture truncated. tshark counts such a frame as tcp in io,phs
        and in its IP conversation and endpoints, not in conv,tcp."""
        if self.l4 != "tcp" or self.drop or pos is None or self.cap_len is None:
            return
        tcp_off, doff, ip_off = pos
        whole = self.frag is None or self.frag[2]   # not a first fragment of more
        if self.cap_len < tcp_off + 20:
            self.drop = "truncated"
        elif doff < 5 or (whole and self.ip_len is not None and ip_off is not None and
                          tcp_off + doff * 4 > ip_off + self.ip_len):
            self.drop = "malformed"
        elif self.cap_len < tcp_off + doff * 4:
            self.drop = "truncated"
        else:
            return
        self.theirs_phs = ["tcp"] if self.frag is None else []
        self.theirs_convs = [(self.kind, endpoint_key(self.src), endpoint_key(self.hdr_dst or
                                                                             self.dst))]
        chk.note("TCP header %s: %s" % ("cut by the capture" if self.drop == "truncated" else
                                        "with an impossible data offset", self.drop),
                 section=PARSER)
        self.kind = self.l4 = self.sport = self.dport = None


def raw_frames(chk, ts, pcap):
    out = tshark(ts, pcap, "-o", "ip.defragment:FALSE", "-o", "ipv6.defragment:FALSE",
                 "-T", "fields", "-E", "occurrence=a", "-E", "aggregator=,",
                 "-E", "separator=|", *sum((["-e", f] for f in RAW_FIELDS), []))
    frames = [Frame(chk, line.split("|")) for line in out.splitlines()]
    if any(f.l4 == "tcp" for f in frames):
        pos = tcp_positions(ts, pcap)
        for i, f in enumerate(frames):
            f.tcp_verdict(chk, pos[i] if i < len(pos) else None)
    return frames


def tcp_positions(ts, pcap):
    """Per frame, where tshark found its outer TCP header: (its offset, its
    data offset, the IP header's offset), or None (no TCP at the top
    level: a header an ICMP error quotes is not)."""
    out = tshark(ts, pcap, "-o", "ip.defragment:FALSE", "-o", "ipv6.defragment:FALSE",
                 "-T", "json", "-x", "-j", "tcp")

    def first_key(pairs):
        d = {}
        for k, val in pairs:
            d.setdefault(k, val)
        return d

    pos = []
    try:
        packets = json.loads(out or "[]", object_pairs_hook=first_key)
    except ValueError as e:
        sys.exit("tshark's JSON: %s" % e)
    for p in packets:
        layers = p.get("_source", {}).get("layers", {}) if isinstance(p, dict) else {}
        raw = layers.get("tcp_raw")
        ip = layers.get("ip_raw") or layers.get("ipv6_raw")
        if not (isinstance(raw, list) and len(raw) > 1 and isinstance(raw[1], int)):
            pos.append(None)
            continue
        hexs = raw[0] if isinstance(raw[0], str) else ""
        doff = int(hexs[24], 16) if len(hexs) > 24 else None
        ip_off = ip[1] if isinstance(ip, list) and len(ip) > 1 else None
        pos.append((raw[1], doff if doff is not None else 5, ip_off))
    return pos


def reassemblies(ts, pcap):
    """{frame number: frame number that completed its datagram's reassembly}"""
    out = tshark(ts, pcap, "-T", "fields", "-E", "occurrence=a", "-E", "aggregator=,",
                 "-E", "separator=|", "-e", "frame.number", "-e", "ip.fragment",
                 "-e", "ipv6.fragment")
    done = {}
    for line in out.splitlines():
        f = line.split("|")
        for col in f[1:]:
            for n in filter(None, col.split(",")):
                done[int(n)] = int(f[0])
    return done


class Datagram:
    """A fragmented datagram, resolved as doc/capture.md ("Fragments") says."""

    def __init__(self):
        self.frames = []

    def resolve(self):
        firsts = [f for f in self.frames if f.frag[1]]
        lasts = [f for f in self.frames if f.frag[2]]
        ports = {(f.sport or 0, f.dport or 0) for f in firsts}
        self.ports = ports.pop() if firsts and len(ports) == 1 else None
        end = max((f.frag[3] + f.frag[4] for f in lasts), default=0)
        self.complete = (len(firsts) == 1 and len(lasts) == 1 and
                         sum(f.frag[4] for f in self.frames) == end)
        self.last_len = max((f.len for f in lasts), default=0)
        self.proto = self.frames[0].frag[5]


def l4_of(proto, kind):
    name = L4_NAME.get(proto)
    if name == "icmp" and kind != "IPv4" or name == "icmpv6" and kind != "IPv6":
        return None
    return name


def run_report(chk, cmd):
    """Run COMMAND; its JSON report, or None (the failure printed)."""
    with tempfile.TemporaryDirectory() as tmp:
        jpath = os.path.join(tmp, "report.json")
        run = [a.replace("@JSON@", jpath) for a in cmd]
        try:
            r = subprocess.run(run, capture_output=True, text=True, timeout=600)
        except (OSError, subprocess.SubprocessError) as e:
            print("command failed: %s: %s" % (" ".join(run), e))
            return None
        if r.returncode != 0:
            print(r.stdout[-3000:], r.stderr[-3000:])
            print("command failed with status %d: %s" % (r.returncode, " ".join(run)))
            return None
        try:
            with open(jpath) as fh:
                return Report(chk, json.load(fh))
        except (OSError, ValueError) as e:
            print("MISMATCH report: cannot read the JSON report: %s" % e)
            return None


def expect_protocols(chk, t, frames, grams, done):
    """tshark's L4 counts of fragmented datagrams, moved to their last fragments."""
    by_num = {f.num: f for f in frames}
    for g in grams.values():
        name = l4_of(g.proto, g.frames[0].kind)
        completed = {done[f.num] for f in g.frames if f.num in done}
        theirs = (len(completed), sum(by_num[c].len for c in completed if c in by_num))
        ours = (1, g.last_len) if g.complete else (0, 0)
        if name is not None and theirs != ours:
            t[name + ".frames"] += ours[0] - theirs[0]
            t[name + ".bytes"] += ours[1] - theirs[1]
            chk.note("fragmented datagram counted for %s in its last fragment%s" %
                     (name, "" if g.complete else " (not at all: incomplete or ambiguous)"))
    for f in frames:
        if f.is_frag:
            t["fragment.frames"] += 1
            t["fragment.bytes"] += f.len


def move_conv(convs, kind, src, dst, n, sign):
    """A frame of n bytes from src to dst added to (sign 1) or taken from (-1) convs."""
    c = convs.setdefault((kind, frozenset((src, dst))), collections.Counter())
    c[(src, "frames")] += sign
    c[(src, "bytes")] += sign * n


def move_endpoints(eps, src, dst, n, sign):
    """The same for the endpoints' tx and rx (addresses as endpoint_key() gives them)."""
    for addr, d in ((src, "tx"), (dst, "rx")):
        e = eps.setdefault(addr, collections.Counter())
        for k in (d + "_packets", "packets"):
            e[k] += sign
        for k in (d + "_bytes", "bytes"):
            e[k] += sign * n


def expect_parser(frames, done, t, convs, eps):
    """tshark's figures with the parser's documented differences applied
    (doc/capture.md, PARSER): frames gpudp drops taken out of what tshark
    counts them in, IPv6 routed frames moved to their final destinations in
    conv,ipv6 and endpoints,ipv6. @return the drops expected, per reason."""
    drops = collections.Counter()
    for f in frames:
        if f.drop:
            drops[f.drop] += 1
            for name in f.theirs_phs:
                t[name + ".frames"] -= 1
                t[name + ".bytes"] -= f.len
            for kind, s, d in f.theirs_convs:
                move_conv(convs, kind, s, d, f.len, -1)
                if kind in ("IPv4", "IPv6"):
                    move_endpoints(eps, s, d, f.len, -1)
        elif f.hdr_dst is not None and (f.frag is None or done.get(f.num) == f.num):
            # (an IPv6 fragment that completes no reassembly is in no tshark table)
            s, h, d = endpoint_key(f.src), endpoint_key(f.hdr_dst), endpoint_key(f.dst)
            move_conv(convs, "IPv6", s, h, f.len, -1)
            move_conv(convs, "IPv6", s, d, f.len, 1)
            move_endpoints(eps, s, h, f.len, -1)
            move_endpoints(eps, s, d, f.len, 1)
    return drops


def expect_fragment_flows(chk, grams, done, convs, eps):
    """Fragments in tshark's conversations and endpoints, moved as gpudp attributes them."""
    def move(kind, src, dst, n, sign):
        move_conv(convs, kind, src, dst, n, sign)

    for g in grams.values():
        l4 = "TCP" if g.proto == 6 else "UDP" if g.proto == 17 else None
        first = next((x for x in g.frames if x.frag[1]), None)
        for f in g.frames:
            completes = done.get(f.num) == f.num  # tshark dissected the datagram here
            if f.kind == "IPv6" and not completes:
                move("IPv6", endpoint_key(f.src), endpoint_key(f.dst), f.len, 1)
                move_endpoints(eps, endpoint_key(f.src), endpoint_key(f.dst), f.len, 1)
                chk.note("IPv6 fragment that completes no reassembly added to conv,ipv6 "
                         "and endpoints,ipv6")
            if l4 is None:
                continue
            if completes and first is not None and first.sport is not None:
                move(l4, endpoint_key(f.src, first.sport), endpoint_key(f.dst, first.dport),
                     f.len, -1)
            ports = g.ports or (0, 0)
            move(l4, endpoint_key(f.src, ports[0]), endpoint_key(f.dst, ports[1]), f.len, 1)
            if not completes or g.ports is None:
                chk.note("%s fragment in conv,%s %s" % (
                    l4, l4.lower(), "with its first fragment's ports" if g.ports else
                    "with ports 0 (first fragment missing, or ports ambiguous)"))


def our_conversations(chk, rep):
    """Our flows summed per tshark conversation key, as conv_tables() gives them."""
    flows = rep.items("flows", {"af": int, "proto": int, "a": str, "a_port": int, "b": str,
                                "b_port": int, "packets_ab": int, "bytes_ab": int,
                                "packets_ba": int, "bytes_ba": int})
    ours = collections.defaultdict(collections.Counter)
    for f in flows:
        kind_ip = "IPv4" if f["af"] == 4 else "IPv6"
        try:
            a, b = endpoint_key(f["a"]), endpoint_key(f["b"])
        except ValueError:
            chk.ok("flow", False, "has a bad address: %r" % f)
            continue
        for kind, ka, kb in [(kind_ip, a, b)] + (
                [("TCP" if f["proto"] == 6 else "UDP",
                  endpoint_key(f["a"], f["a_port"]), endpoint_key(f["b"], f["b_port"]))]
                if f["proto"] in (6, 17) else []):
            c = ours[(kind, frozenset((ka, kb)))]
            c[(ka, "frames")] += f["packets_ab"]
            c[(ka, "bytes")] += f["bytes_ab"]
            c[(kb, "frames")] += f["packets_ba"]
            c[(kb, "bytes")] += f["bytes_ba"]
    return ours


def compare_conversations(chk, ours, theirs):
    for key in sorted(set(theirs) | set(ours), key=lambda k: (k[0], sorted(k[1]))):
        kind, pair = key[0], sorted(key[1])
        c, e = ours.get(key), theirs.get(key)
        if e is not None and all(v == 0 for k, v in e.items() if k != "tol"):
            e = None  # every frame of it is in another flow
        if c is None and e is None:
            continue
        if c is None or e is None:
            chk.ok("conversation %s %s" % (kind, " <-> ".join(pair)), False,
                   "missing in gpudp" if c is None else "missing in tshark")
            continue
        for ep in pair:
            other = [x for x in pair if x != ep] or [ep]
            chk.eq("%s %s -> %s frames" % (kind, ep, other[0]), c[(ep, "frames")],
                   e[(ep, "frames")])
            chk.near("%s from %s bytes" % (kind, ep), c[(ep, "bytes")], e[(ep, "bytes")],
                     e["tol"])


def compare_per_frame(chk, rep, ours, frames, grams):
    """Exact bytes per direction and the size histogram, from tshark's per-frame dissection."""
    exact = collections.Counter()
    hist = collections.Counter()
    hists = [h for h in rep.get(("size_histogram",), list) if isinstance(h, dict)]
    for f in frames:
        for i, h in enumerate(hists):
            lo, hi = h.get("min"), h.get("max")
            if isinstance(lo, int) and f.len >= lo and (hi is None or f.len <= hi):
                hist[i] += 1
        if f.kind is None:
            continue
        exact[(f.kind, endpoint_key(f.src), endpoint_key(f.dst))] += f.len
        sport, dport, proto = f.sport, f.dport, f.l4
        if f.frag:
            g = grams[f.frag[0]]
            proto = L4_NAME.get(g.proto)
            sport, dport = g.ports or (0, 0)
        if sport is not None and proto in ("tcp", "udp"):
            exact[(proto.upper(), endpoint_key(f.src, sport),
                   endpoint_key(f.dst, dport))] += f.len
    for (kind, s, d), n in sorted(exact.items()):
        c = ours.get((kind, frozenset((s, d))), collections.Counter())
        chk.eq("%s bytes %s -> %s (per frame)" % (kind, s, d),
               c[(s, "bytes")] if s != d else
               sum(v for k, v in c.items() if k[1] == "bytes"), n)
    for i, h in enumerate(hists):
        chk.eq("size histogram %s-%s" % (h.get("min"), h.get("max")), h.get("packets"),
               hist[i])


def compare_endpoints(chk, rep, eps):
    talkers = {}
    for tk in rep.items("top_talkers", {"addr": str, "tx_packets": int, "tx_bytes": int,
                                        "rx_packets": int, "rx_bytes": int}):
        try:
            talkers[endpoint_key(tk["addr"])] = tk
        except ValueError:
            chk.ok("talker", False, "has a bad address: %r" % tk)
    chk.eq("number of endpoints", len(talkers), len(eps))
    for addr in sorted(set(eps) | set(talkers)):
        tk, e = talkers.get(addr), eps.get(addr)
        if tk is None or e is None:
            chk.ok("endpoint %s" % addr, False,
                   "missing in gpudp" if tk is None else "missing in tshark")
            continue
        chk.eq("endpoint %s packets" % addr, tk["tx_packets"] + tk["rx_packets"],
               e["packets"])
        chk.eq("endpoint %s bytes" % addr, tk["tx_bytes"] + tk["rx_bytes"], e["bytes"])
        for k in ("tx_packets", "tx_bytes", "rx_packets", "rx_bytes"):
            chk.eq("endpoint %s %s" % (addr, k.replace("_", " ")), tk[k], e[k])


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
    rep = run_report(chk, cmd)
    if rep is None:
        print("0 passed, 1 failed")
        return 1

    # tshark's figures, with the documented differences applied
    frames = raw_frames(chk, ts, pcap)
    done = reassemblies(ts, pcap)
    grams = collections.defaultdict(Datagram)
    for f in frames:
        if f.frag and not f.drop:
            grams[f.frag[0]].frames.append(f)
    for g in grams.values():
        g.resolve()
    stats = statistics(ts, pcap)
    t = phs_totals(phs(stats))
    expect_protocols(chk, t, frames, grams, done)
    theirs = conv_tables(stats)
    n_theirs = len(theirs)
    eps = endpoint_tables(stats)
    drops = expect_parser(frames, done, t, theirs, eps)
    expect_fragment_flows(chk, grams, done, theirs, eps)
    eps = {a: e for a, e in eps.items() if any(e.values())}
    for (section, what), n in sorted(chk.notes.items()):
        print("documented difference (doc/capture.md, \"%s\") applied to tshark's "
              "figures %d time%s: %s" % (section, n, "" if n == 1 else "s", what))

    # totals and protocols
    chk.eq("packets", rep.get(("packets",)), t["eth.frames"])
    chk.eq("bytes", rep.get(("bytes",)), t["eth.bytes"])
    for name in PROTOCOLS:
        chk.eq("protocol %s packets" % name, rep.get(("protocols", name, "packets")),
               t[name + ".frames"])
        chk.eq("protocol %s bytes" % name, rep.get(("protocols", name, "bytes")),
               t[name + ".bytes"])
    for reason in sorted(set(rep.get(("drops",), dict)) | set(drops)):
        chk.eq("drops.%s" % reason, rep.get(("drops", reason)), drops[reason])

    ours = our_conversations(chk, rep)
    chk.ok("conversations found", n_theirs > 0 or rep.get(("packets",)) == 0,
           "(tshark printed none)")
    compare_conversations(chk, ours, theirs)
    compare_per_frame(chk, rep, ours, frames, grams)
    compare_endpoints(chk, rep, eps)

    print("compared %s: %d packets, %d flows, %d tshark conversations, %d endpoints"
          % (pcap, rep.get(("packets",)), rep.get(("flows_total",)), n_theirs, len(eps)))
    print("%d passed, %d failed" % (chk.passed, chk.failed))
    return 1 if chk.failed else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Write a rule file, its variables and a capture that exercise every part
of gpudp-capture's rules (doc/rules.md) against the references.

usage: gen_rules_capture.py RULES VARS PCAP [--rules N] [--packets N] [--seed S]
                            [--words N]

RULES: N rules (default 10,000) in the supported subset: protocols ip,
tcp, udp and icmp; addresses any, CIDR prefixes, lists, negations and the
variables of VARS; ports any, ranges, lists and negations; -> and <>; one
to four contents from a small vocabulary (so that they recur), with
nocase, offset, depth, distance, within, startswith, endswith and
fast_pattern, isdataat (absolute, relative, negated) and dsize. PCAP:
packets (default 2000) over IPv4 and IPv6, TCP, UDP and ICMP, with random
payloads of up to 1400 bytes into which words of the vocabulary are
planted, so that many rules match some packets. Each packet has its own
timestamp (i microseconds after a fixed second). Deterministic for a seed.
--words N: a vocabulary of N random words of 4..12 bytes instead of the
small one, so that the rules have about N distinct fast patterns (a rule
set as large ones are; the benchmark's).
"""
import argparse
import random
import struct

WORDS = [b"GET ", b"POST", b"HTTP/1.1", b"Host:", b"admin", b"passwd", b"\x00\x01\x02",
         b"\xff\xfe", b"abc", b"xyz", b"cmd.exe", b"select", b"union", b"USER ",
         b"ssh-2.0", b"\x90\x90\x90\x90", b"zz", b"q", b"Zq", b"token="]
NETS4 = ["10.0.0.0/8", "10.1.0.0/16", "192.168.0.0/16", "172.16.5.0/24", "10.1.2.3"]
NETS6 = ["fd00::/8", "fd00:1::/32", "2001:db8::/32"]


def content(w):
    """a content's text: letters and digits as they are, the rest in |hex|"""
    out, hexrun = [], []
    for b in w:
        c = chr(b)
        if c.isascii() and c.isalnum():
            if hexrun:
                out.append("|" + " ".join("%02x" % x for x in hexrun) + "|")
                hexrun = []
            out.append(c)
        else:
            hexrun.append(b)
    if hexrun:
        out.append("|" + " ".join("%02x" % x for x in hexrun) + "|")
    return '"' + "".join(out) + '"'


def addr(rnd):
    r = rnd.random()
    if r < 0.55:
        return "any"
    if r < 0.65:
        return "$HOME_NET"
    if r < 0.7:
        return "!$HOME_NET"
    pool = NETS4 + NETS6
    if r < 0.85:
        return rnd.choice(pool)
    if r < 0.93:
        return "[" + ",".join(rnd.sample(pool, rnd.randint(2, 3))) + "]"
    return "[" + rnd.choice(NETS4[:3]) + ",!" + rnd.choice(["10.1.2.0/24", "192.168.7.0/24"]) + "]"


def port(rnd):
    r = rnd.random()
    if r < 0.55:
        return "any"
    if r < 0.7:
        return str(rnd.choice([80, 443, 53, 22, 8080, 1000 + rnd.randint(0, 50)]))
    if r < 0.8:
        lo = rnd.randint(1, 2000)
        return "%d:%d" % (lo, lo + rnd.randint(0, 30000))
    if r < 0.88:
        return "[" + ",".join(str(rnd.choice([80, 443, 53, 22, 8080])) for _ in range(2)) + "]"
    if r < 0.94:
        return "!" + str(rnd.choice([80, 443, 53]))
    return "$HTTP_PORTS"


def options(rnd):
    """a rule's checks: contents with modifiers, isdataat, dsize"""
    opts = []
    n = rnd.choice([1, 1, 1, 2, 2, 3, 4])
    fast = rnd.randrange(n) if rnd.random() < 0.2 else -1
    for i in range(n):
        w = rnd.choice(WORDS)
        o = ["content:%s" % content(w)]
        if rnd.random() < 0.3:
            o.append("nocase")
        kind = rnd.random()
        if i > 0 and kind < 0.5:
            if rnd.random() < 0.7:
                o.append("distance:%d" % rnd.randint(-20, 40))
            if rnd.random() < 0.6:
                o.append("within:%d" % (len(w) + rnd.randint(0, 60)))
        elif kind < 0.7:
            if rnd.random() < 0.6:
                o.append("offset:%d" % rnd.randint(0, 100))
            if rnd.random() < 0.6:
                o.append("depth:%d" % (len(w) + rnd.randint(0, 300)))
        elif kind < 0.78:
            o.append("startswith")
        if rnd.random() < 0.08 and "startswith" not in o:
            o.append("endswith")
        if i == fast:
            o.append("fast_pattern")
        opts.append("; ".join(o))
        if rnd.random() < 0.1:
            opts.append("isdataat:%s%d,relative" % ("!" if rnd.random() < 0.3 else "",
                                                    rnd.randint(0, 200)))
    if rnd.random() < 0.1:
        opts.append("isdataat:%s%d" % ("!" if rnd.random() < 0.3 else "", rnd.randint(0, 1500)))
    r = rnd.random()
    if r < 0.05:
        opts.append("dsize:>%d" % rnd.randint(0, 800))
    elif r < 0.08:
        opts.append("dsize:<%d" % rnd.randint(10, 1500))
    elif r < 0.1:
        lo = rnd.randint(0, 600)
        opts.append("dsize:%d<>%d" % (lo, lo + rnd.randint(2, 800)))
    return opts


def rule(rnd, sid):
    proto = rnd.choice(["ip", "tcp", "tcp", "udp", "udp", "icmp"])
    action = "drop" if rnd.random() < 0.1 else "alert"
    ports = proto in ("tcp", "udp")
    head = "%s %s %s %s %s %s %s" % (
        action, proto, addr(rnd), port(rnd) if ports else "any",
        "<>" if rnd.random() < 0.15 else "->", addr(rnd), port(rnd) if ports else "any")
    opts = ['msg:"generated rule %d"' % sid] + options(rnd) + ["sid:%d" % sid,
                                                              "rev:%d" % rnd.randint(1, 5)]
    if rnd.random() < 0.3:
        opts.append("classtype:%s" % rnd.choice(["trojan-activity", "web-application-attack",
                                                 "misc-activity"]))
    if rnd.random() < 0.3:
        opts.append("priority:%d" % rnd.randint(1, 4))
    return "%s (%s;)" % (head, "; ".join(opts))


def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    s = (s >> 16) + (s & 0xffff)
    s += s >> 16
    return (~s) & 0xffff


def payload(rnd):
    n = rnd.choice([0, 8, 40, 120, 300, 700, 1400]) + rnd.randint(0, 40)
    n = min(n, 1400)
    p = bytearray(rnd.choice(b"abcxyzQZ \x00\x01\xff/=") for _ in range(n))
    for _ in range(rnd.randint(0, 6)):
        w = rnd.choice(WORDS)
        if rnd.random() < 0.3:
            w = w.upper() if rnd.random() < 0.5 else w.lower()
        if len(w) <= len(p):
            at = 0 if rnd.random() < 0.15 else rnd.randint(0, len(p) - len(w))
            if rnd.random() < 0.1:
                at = len(p) - len(w)
            p[at:at + len(w)] = w
    return bytes(p)


def frame(rnd):
    v6 = rnd.random() < 0.3
    proto = rnd.choice([6, 6, 17, 17, 1])
    data = payload(rnd)
    sport, dport = rnd.choice([80, 443, 53, 22, 8080, 40000 + rnd.randint(0, 99), 1025]), \
        rnd.choice([80, 443, 53, 22, 8080, 1025, 5000 + rnd.randint(0, 9)])
    if proto == 6:
        l4 = struct.pack("!HHIIBBHHH", sport, dport, 1, 0, 5 << 4, 0x18, 8192, 0, 0) + data
    elif proto == 17:
        l4 = struct.pack("!HHHH", sport, dport, 8 + len(data), 0) + data
    else:
        proto = 58 if v6 else 1
        l4 = struct.pack("!BBHI", 128 if v6 else 8, 0, 0, rnd.randint(0, 1 << 31)) + data
    if v6:
        src = bytes.fromhex(rnd.choice(["fd000001", "fd001234", "20010db8"])) + \
            bytes(rnd.randrange(256) for _ in range(12))
        dst = bytes.fromhex(rnd.choice(["fd000001", "fd00abcd", "20010db8"])) + \
            bytes(rnd.randrange(256) for _ in range(12))
        ip = struct.pack("!IHBB", 6 << 28, len(l4), proto, 64) + src + dst
        eth = 0x86dd
    else:
        src = bytes([rnd.choice([10, 192, 172]), rnd.choice([1, 168, 16]),
                     rnd.choice([2, 5, 7]), rnd.randint(1, 254)])
        dst = bytes([rnd.choice([10, 192, 8]), rnd.choice([1, 168, 8]),
                     rnd.choice([2, 5, 7]), rnd.randint(1, 254)])
        hdr = struct.pack("!BBHHHBBH", 0x45, 0, 20 + len(l4), 1, 0, 64, proto, 0) + src + dst
        ip = hdr[:10] + struct.pack("!H", csum(hdr)) + hdr[12:]
        eth = 0x0800
    tag = b""
    if rnd.random() < 0.1:
        tag = struct.pack("!HH", 0x8100, rnd.randint(1, 4094))
    return b"\x02\0\0\0\0\x01\x02\0\0\0\0\x02" + tag + struct.pack("!H", eth) + ip + l4


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("rules")
    ap.add_argument("vars")
    ap.add_argument("pcap")
    ap.add_argument("--rules", dest="n_rules", type=int, default=10000)
    ap.add_argument("--packets", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=35)
    ap.add_argument("--words", type=int, default=0)
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    if a.words:
        WORDS[:] = [bytes(rnd.randrange(256) for _ in range(rnd.randint(4, 12)))
                    for _ in range(a.words)]
    with open(a.vars, "w") as f:
        f.write("# the generated rules' variables\nvars:\n  address-groups:\n"
                '    HOME_NET: "[10.0.0.0/8,192.168.0.0/16,fd00::/8]"\n'
                "  port-groups:\n    HTTP_PORTS: \"[80,8080]\"\n")
    with open(a.rules, "w") as f:
        f.write("# %d generated rules (gen_rules_capture.py, seed %d)\n" % (a.n_rules, a.seed))
        for sid in range(1, a.n_rules + 1):
            f.write(rule(rnd, 2000000 + sid) + "\n")
    with open(a.pcap, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b23c4d, 2, 4, 0, 0, 65535, 1))
        for i in range(a.packets):
            fr = frame(rnd)
            f.write(struct.pack("<IIII", 1764000000, i * 1000, len(fr), len(fr)) + fr)


if __name__ == "__main__":
    main()

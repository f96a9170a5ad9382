#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The built-in work `match` through gpudp-fwd on net_pcap.

  fwd_match.py FWD DIR MODE [MEM]

Frames of every shape the work's payload rule names (TCP with options,
UDP, ICMP, IPv6 extension headers, VLAN tags, IPv4 fragments, Ethernet
padding, a cut TCP header, ARP) carry planted and random patterns. The
expected result comes from a model written here, independently of the C
code: its own header parser and a plain substring count. Three runs:
scope=payload action=drop (the output capture must be exactly the frames
without a match, in order), action=count (every frame out, counters only)
and scope=frame. Then the argument errors: exit 2 with the reason.
MODE cpu needs no GPU; the GPU modes exit 77 without one.
"""
import json
import os
import random
import struct
import subprocess
import sys

PATTERNS = [  # name, bytes, nocase
    ("get", b"GET /", False),
    ("evil", b"evil", True),
    ("ffzero", b"\xff\x00", False),
    ("aa", b"aa", False),
    ("long32", b"0123456789abcdefghijklmnopqrstuv", False),
    ("deadbeef", b"\xde\xad\xbe\xef", False),
]


def pattern_file(path):
    with open(path, "w") as f:
        f.write("# test patterns\n\n")
        for name, b, nocase in PATTERNS:
            lit = "".join(chr(c) if 0x20 < c < 0x7f and c not in b'"\\' else "\\x%02x" % c
                          for c in b)
            f.write('%s "%s"%s\n' % (name, lit, " nocase" if nocase else ""))


def write_pcap(path, frames):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        for i, fr in enumerate(frames):
            f.write(struct.pack("<IIII", 1700000000 + i, 0, len(fr), len(fr)) + fr)


def read_pcap(path):
    with open(path, "rb") as f:
        data = f.read()
    off, out = 24, []
    while off + 16 <= len(data):
        incl = struct.unpack("<I", data[off + 8:off + 12])[0]
        out.append(data[off + 16:off + 16 + incl])
        off += 16 + incl
    return out


# ---- frames ----

def eth(body, et, vlans=()):
    tags = b"".join(struct.pack("!HH", 0x8100, v) for v in vlans)
    fr = bytes([2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2]) + tags + struct.pack("!H", et) + body
    return fr


def ipv4(proto, l4, frag=0, opts=b""):
    ihl = 5 + len(opts) // 4
    return struct.pack("!BBHHHBBH4s4s", 0x40 | ihl, 0, 4 * ihl + len(l4), 1, frag, 64, proto,
                       0, bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2])) + opts + l4


def ipv6(nh, body):
    return struct.pack("!IHBB16s16s", 6 << 28, len(body), nh, 64, bytes(16), bytes(16)) + body


def tcp(p, opts=b""):
    return struct.pack("!HHIIBBHHH", 1000, 80, 1, 0, (5 + len(opts) // 4) << 4, 0x18, 1024,
                       0, 0) + opts + p


def udp(p):
    return struct.pack("!HHHH", 1000, 2000, 8 + len(p), 0) + p


def frames():
    rnd = random.Random(7)
    out = [
        eth(ipv4(6, tcp(b"GET /index.html", opts=b"evil")), 0x0800),   # option: not payload
        eth(ipv4(17, udp(b"xx EVIL xx aaa")), 0x0800),
        eth(ipv4(1, struct.pack("!BBHI", 8, 0, 0, 0) + b"\xff\x00 ping"), 0x0800),
        eth(ipv6(0, bytes([17, 0]) + b"evil\0\0" + udp(b"\xde\xad\xbe\xef")), 0x86dd),
        eth(ipv4(17, udp(b"0123456789abcdefghijklmnopqrstuv")), 0x0800, vlans=[5, 6]),
        eth(ipv4(17, b"no udp header, evil", frag=0x20), 0x0800),   # non-first fragment
        eth(ipv4(17, udp(b"ok")), 0x0800) + b"evil" * 3,            # padding: not payload
        eth(ipv4(6, tcp(b"")[:12]), 0x0800),                        # TCP header cut
        eth(b"\x00\x01\x08\x00\x06\x04\x00\x01" + b"evil" * 5, 0x0806),  # ARP
        eth(ipv4(47, b"GRE body GET /x"), 0x0800),                  # other protocol
    ]
    alphabet = b"aeilv GET/\xff\x00\xde\xad\xbe\xef0123456789"
    for i in range(400):
        p = bytes(rnd.choice(alphabet) for _ in range(rnd.randrange(0, 300)))
        kind = i % 4
        if kind == 0:
            out.append(eth(ipv4(6, tcp(p)), 0x0800))
        elif kind == 1:
            out.append(eth(ipv4(17, udp(p)), 0x0800))
        elif kind == 2:
            out.append(eth(ipv6(6, tcp(p)), 0x86dd))
        else:
            out.append(eth(ipv6(17, udp(p)), 0x86dd, vlans=[9]))
    return out


# ---- the model ----

def payload(fr):
    """the L4 payload by the work's rule, parsed here independently"""
    off, et = 14, struct.unpack("!H", fr[12:14])[0]
    while et in (0x8100, 0x88a8, 0x9100):
        et, off = struct.unpack("!H", fr[off + 2:off + 4])[0], off + 4
    if et == 0x0800:
        ihl = (fr[off] & 15) * 4
        end = min(len(fr), off + struct.unpack("!H", fr[off + 2:off + 4])[0])
        proto, frag = fr[off + 9], struct.unpack("!H", fr[off + 6:off + 8])[0]
        l4, first = off + ihl, (frag & 0x1fff) == 0
    elif et == 0x86dd:
        end = min(len(fr), off + 40 + struct.unpack("!H", fr[off + 4:off + 6])[0])
        proto, l4, first = fr[off + 6], off + 40, True
        while proto in (0, 43, 60):
            proto, l4 = fr[l4], l4 + (fr[l4 + 1] + 1) * 8
    else:
        return b""
    hl = 0
    if first and proto in (6, 17, 1, 58):
        need = 20 if proto == 6 else 8 if proto == 17 else 4
        if len(fr) < l4 + need:
            return b""
        hl = max(20, (fr[l4 + 12] >> 4) * 4) if proto == 6 else 8
    return fr[l4 + hl:end] if l4 + hl < end else b""


def occurrences(data):
    n = 0
    for _, b, nocase in PATTERNS:
        hay, needle = (data.lower(), b.lower()) if nocase else (data, b)
        n += sum(1 for i in range(len(hay) - len(needle) + 1) if hay[i:i + len(needle)] == needle)
    return n


def expect(frs, scope):
    data = [payload(f) if scope == "payload" else f for f in frs]
    occ = [occurrences(d) for d in data]
    return {"scanned": len(frs), "scanned_bytes": sum(len(d) for d in data),
            "matched": sum(1 for o in occ if o), "occurrences": sum(occ)}, occ


# ---- runs ----

def run(fwd, d, mode, mem, frs, arg, tag):
    inp, outp, js = (os.path.join(d, n) for n in ("in.pcap", "out-%s.pcap" % tag,
                                                   "%s.json" % tag))
    write_pcap(inp, frs)
    for p in (outp, js):
        if os.path.exists(p):
            os.unlink(p)
    cmd = [fwd, "--no-huge", "-m", "256" if mode == "cpu" else "1024", "--no-pci",
           "--no-telemetry", "--file-prefix", "fwdmatch-%d" % os.getpid(), "-l", "0-1",
           "--vdev", "net_pcap0,rx_pcap=%s,tx_pcap=%s" % (inp, outp), "--",
           "--pairing", "same", "--mode", mode, "--work", "match", "--work-arg", arg,
           "--burst", "32", "--count", str(len(frs)), "--duration", "30",
           "--pipeline-lcores", "1", "--flush-us", "100", "--stats", "0", "--json", js] + \
        (["--mem", mem] if mem else [])
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    rep = json.load(open(js)) if r.returncode == 0 and os.path.exists(js) else None
    out = read_pcap(outp) if os.path.exists(outp) else []
    return r, rep, out


def main():
    fwd, d, mode = sys.argv[1:4]
    mem = sys.argv[4] if len(sys.argv) > 4 else None
    os.makedirs(d, exist_ok=True)
    pats = os.path.join(d, "patterns.txt")
    pattern_file(pats)
    frs = frames()
    fails = 0

    def check(ok, what, detail=""):
        nonlocal fails
        print("%s %s%s" % ("ok  " if ok else "FAIL", what, "" if ok else ": " + str(detail)))
        fails += 0 if ok else 1
        return ok

    for tag, arg, scope, drop in (("drop", pats, "payload", True),
                                  ("count", pats + ",action=count", "payload", False),
                                  ("frame", pats + ",scope=frame", "frame", True)):
        r, rep, out = run(fwd, d, mode, mem, frs, arg, tag)
        if r.returncode == 77 and mode != "cpu":
            print("skip: no usable GPU: %s" % r.stderr.strip()[-200:])
            sys.exit(77)
        if not check(r.returncode == 0 and rep is not None, "%s: exit 0 with --json" % tag,
                     "exit %d: %s" % (r.returncode, r.stderr[-1500:])):
            continue
        want, occ = expect(frs, scope)
        got = {k: rep["counters"].get(k) for k in want}
        check(got == want, "%s: counters %s" % (tag, want), got)
        blocked = want["matched"] if drop else 0
        check(rep["drops"].get("matched") == blocked, "%s: %d dropped as 'matched'"
              % (tag, blocked), rep["drops"])
        keep = [f for f, o in zip(frs, occ) if not (drop and o)]
        check(out == keep, "%s: the output is the %d frames not dropped, in order, unchanged"
              % (tag, len(keep)), "%d frames out" % len(out))
        check(rep["counters"].get("partial") == 0, "%s: no frame beyond its first segment"
              % tag, rep["counters"].get("partial"))
    if mode == "cpu":
        bad = os.path.join(d, "bad.txt")
        with open(bad, "w") as f:
            f.write('ok "x"\nbroken "unterminated\n')
        for arg, want in (("", "needs a pattern file"),
                          (os.path.join(d, "missing.txt"), "No such file"),
                          (pats + ",scope=bytes", "option 'scope=bytes'"),
                          (bad, "line 2")):
            r = subprocess.run([fwd, "--no-huge", "--no-pci", "--no-telemetry",
                                "--file-prefix", "fwdmatch-bad-%d" % os.getpid(),
                                "--vdev", "net_null0", "--", "--mode", "cpu",
                                "--work", "match", "--work-arg", arg],
                               capture_output=True, text=True, timeout=60)
            check(r.returncode == 2 and want in r.stderr,
                  "--work-arg '%s': exit 2 naming %r" % (arg, want),
                  "exit %d: %s" % (r.returncode, r.stderr.strip()[-300:]))
    print("%d failed" % fails)
    sys.exit(1 if fails else 0)


if __name__ == "__main__":
    main()

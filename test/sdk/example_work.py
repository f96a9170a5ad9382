#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The example work doc/examples/payload_match, built from the SDK, in
gpudp-fwd --mode cpu (meson suite 'dpdk', test example_work_cpu).

usage: example_work.py FWD WORK_SO DIR [--gpu-image | --no-gpu-image]
                       [--mode MODE [--mem MEM]]

Checks, each printed:
  - the shared object leaves nothing to a gpudp library (nm -D
    --undefined-only: libc only) and exports gpudp_work_entry;
  - its descriptor (read with ctypes): ABI, name, span, result size,
    reason and counter names, a GPU image (a fatbin) with --gpu-image and
    none with --no-gpu-image;
  - its init parses --work-arg strings into the parameter block the
    header documents (escapes, clause order), and refuses bad ones with a
    message naming the offending token;
  - its CPU form, called through ctypes on the capture below as one burst
    of single-segment packets and again with every packet cut into 2 to 4
    segments (patterns straddling the cuts): per packet verdict and result
    (the mask of patterns seen), and the counters;
  - gpudp-fwd --mode cpu --work WORK_SO on net_pcap (rx_pcap -> tx_pcap),
    bursts of 32 and of 1: the output capture is the input without the
    blocked packets, in order, bytes unchanged; --json's drops and
    counters. --mode (and --mem) run another mode instead, a GPU mode on a
    memory net_pcap can write (pinned): the GPU form then gives what the
    CPU form must (exit 77 when gpudp-fwd finds no usable GPU);
  - gpudp-fwd with a bad --work-arg exits 2 naming the token.

The capture is generated here: TCP and UDP over IPv4 and IPv6 (options,
extension headers, fragments), VLAN and QinQ, patterns at the start, in the
middle and at the end of payloads, overlapping, cut short, in headers only
(not counted), in Ethernet padding (not counted), short and truncated
frames, non-IP frames, blocked packets; then random ones. What the work
must do is computed here, independently of the C code (payload_span()).
Prints "N passed, M failed"; exit 1 on any failure.
"""
import ctypes
import json
import os
import random
import re
import shutil
import struct
import subprocess
import sys

# the suites' shared helpers: check() and its tally (sdk_install.py), pcap
# files and the IPv4 checksum (test/common/fwd_pcap.py)
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "common")]
from sdk_install import Cases  # noqa: E402
from fwd_pcap import csum, read_pcap, write_pcap  # noqa: E402


# the --work-arg of the runs, and the patterns and block mask it means
# (match= first, in order, then the block= patterns not matched already)
WORK_ARG = (r"match=GET /,evil,\x00\xff,aa,0123456789abcdefghijklmnopqrstuv,xyz,xyzw;"
            r"block=evil,\xDE\xad\xbe\xef")
PATTERNS = [b"GET /", b"evil", b"\x00\xff", b"aa", b"0123456789abcdefghijklmnopqrstuv",
            b"xyz", b"xyzw", b"\xde\xad\xbe\xef"]
BLOCK = (1 << 1) | (1 << 7)
MAX_PAT, LEN_MAX, ABI = 8, 32, 4


# ---- captures ----

# ---- frames ----

MAC_D, MAC_S = bytes([2, 0, 0, 0, 0, 1]), bytes([2, 0, 0, 0, 0, 2])


def eth(body, et, vlans=(), dst=MAC_D, src=MAC_S):
    tags = b"".join(struct.pack("!HH", tpid, vid) for tpid, vid in vlans)
    return dst + src + tags + struct.pack("!H", et) + body


def ipv4(proto, l4, opts=b"", total=None, frag=0, ver=4, src=bytes([10, 0, 0, 1]),
         dst=bytes([10, 0, 0, 2])):
    ihl = 5 + len(opts) // 4
    tl = total if total is not None else 4 * ihl + len(l4)
    h = struct.pack("!BBHHHBBH4s4s", ver << 4 | ihl, 0, tl, 0x1234, frag, 64, proto, 0,
                    src, dst) + opts
    return h[:10] + struct.pack("!H", csum(h)) + h[12:] + l4


def ipv6(nh, body, plen=None, src=bytes(15) + b"\1", dst=bytes(15) + b"\2"):
    return struct.pack("!IHBB16s16s", 6 << 28, len(body) if plen is None else plen, nh, 64,
                       src, dst) + body


def ext6(nh, data):
    """a hop-by-hop, routing or options header: data of 6 + 8k bytes"""
    assert (len(data) + 2) % 8 == 0
    return bytes([nh, (len(data) + 2) // 8 - 1]) + data


def ah(nh, body=bytes(12)):
    """an authentication header (RFC 4302) of 12 + len(body) bytes"""
    return bytes([nh, (12 + len(body)) // 4 - 2, 0, 0]) + bytes(8) + body


def frag6(nh, off, more):
    return struct.pack("!BBHI", nh, 0, off << 3 | more, 0xabcd)


def udp(payload, sport=1000, dport=2000):
    return struct.pack("!HHHH", sport, dport, 8 + len(payload), 0) + payload


def tcp(payload, sport=1000, dport=80, opts=b"", doff=None, win=1024):
    d = doff if doff is not None else 5 + len(opts) // 4
    return struct.pack("!HHIIBBHHH", sport, dport, 1, 0, d << 4, 0x18, win, 0, 0) + \
        opts + payload


def fixed_frames():
    """(label, frame): each case the work's rules name"""
    P32 = PATTERNS[4]
    v4u = lambda p, **k: eth(ipv4(17, udp(p)), 0x0800, **k)
    v4t = lambda p, **k: eth(ipv4(6, tcp(p)), 0x0800, **k)
    v6u = lambda p, **k: eth(ipv6(17, udp(p)), 0x86dd, **k)
    v6t = lambda p, **k: eth(ipv6(6, tcp(p)), 0x86dd, **k)
    out = [
        ("ipv4 tcp, pattern at the payload's start", v4t(b"GET /index.html HTTP/1.1\r\n")),
        ("ipv4 udp, blocked pattern at the payload's end", v4u(b"nothing to see here: evil")),
        ("ipv4 udp, overlapping: aa x3, xyz and xyzw", v4u(b"aaaa-xyzw")),
        ("ipv6 tcp, 32-byte pattern in the middle", v6t(b"head-" + P32 + b"-tail")),
        ("ipv6 udp, patterns cut short at the end", v6u(b"xxxx GET \xde\xad\xbe")),
        ("vlan ipv4 udp, blocked \\xde\\xad\\xbe\\xef in the middle",
         v4u(b"12345\xde\xad\xbe\xef6789", vlans=[(0x8100, 100)])),
        ("qinq ipv6 udp, blocked evil", v6u(b"--evil--", vlans=[(0x88a8, 10), (0x8100, 20)])),
        ("headers only: evil in the MAC, \\x00\\xff port, aa address",
         eth(ipv4(17, udp(b"hello", sport=0x00ff), src=b"aaaa"), 0x0800,
             dst=b"evil\0\1")),
        ("headers only: IPv4 options and TCP options hold patterns",
         eth(ipv4(6, tcp(b"clean", opts=b"\xde\xad\xbe\xefxyz\0\0\0aa\0\0"),
                  opts=b"evil" + b"GET /" + b"\0\0\0"), 0x0800)),
        ("headers only: IPv6 hop-by-hop option and addresses hold patterns",
         eth(ipv6(0, ext6(17, b"evil\0\0") + udp(b"ok"), src=b"GET /" + bytes(11),
                  dst=b"\xde\xad\xbe\xef" + bytes(12)), 0x86dd)),
        ("ipv6 destination options (blocked bytes in it) then tcp GET /",
         eth(ipv6(60, ext6(6, b"\xde\xad\xbe\xef" + bytes(10)) + tcp(b"GET /x", win=0xff)),
             0x86dd)),
        ("ipv6 hop-by-hop, routing (aa, xyz in it), then udp",
         eth(ipv6(0, ext6(43, bytes(6)) + ext6(17, b"aa" + bytes(12) + b"xyz" + bytes(5)) +
                  udp(b"\x00\xff")), 0x86dd)),
        ("ipv6 AH (evil in it) then tcp (\x00\xff window)",
         eth(ipv6(51, bytes([6, 4, 0, 0]) + b"\0\0\0\1" + b"\0\0\0\1" + b"evil" + bytes(8) +
                  tcp(b"payload", win=0xff)), 0x86dd)),
        ("ethernet padding is not payload",
         eth(ipv4(17, udp(b"hi")), 0x0800) + b"evilaaaaGET /xyzw"),
        ("ip total length past the frame: counted to the frame's end",
         eth(ipv4(17, udp(b"xyz evil"), total=1400), 0x0800)),
        ("tcp header cut short: all after ethernet counts",
         eth(ipv4(6, b"\0\x50aa\0\0\0\1\0\0", total=40), 0x0800)),
        ("runt of 5 bytes", b"evil!"),
        ("runt of 13 bytes", b"evilevilevil!"),
        ("ethernet header only", eth(b"", 0x0800)),
        ("vlan tag cut short", MAC_D + MAC_S + b"\x81\x00aa"),
        ("arp body with GET /", eth(b"\0\1\x08\0\6\4\0\1GET /" + bytes(15), 0x0806)),
        ("non-IP 0x88b5, blocked evil right after the header", eth(b"evil" + bytes(40), 0x88b5)),
        ("vlan non-IP, xyz x2 and xyzw", eth(b"xyzwxyz", 0x88b5, vlans=[(0x8100, 5)])),
        ("icmp: all after ethernet counts", eth(ipv4(1, b"\x08\0\0\0aa\0\1aa"), 0x0800)),
        ("ipv4 non-first fragment: all after ethernet, blocked",
         eth(ipv4(17, b"fragment data evil", frag=185), 0x0800)),
        ("ipv4 first fragment (MF): udp payload", eth(ipv4(17, udp(b"aaa xyz"), frag=0x2000),
                                                     0x0800)),
        ("ipv4 bad version: all after ethernet", eth(ipv4(17, udp(b"xyz"), ver=5), 0x0800)),
        ("overlapping: aa x6, xyz x2, xyzw x2", v4u(b"aaaaaaa xyzwxyzw")),
        ("GET / at the start and at the end", v6u(b"GET /....GET /")),
        ("payload is exactly the 32-byte pattern", v4t(P32)),
        ("payload is exactly one byte short of it", v4t(P32[:-1])),
        ("tcp data offset 2 (invalid, malformed): all after ethernet",
         eth(ipv4(6, tcp(b"GET /", doff=2, win=0xff)), 0x0800)),
        ("tcp header past the datagram (data offset 15, malformed): all after ethernet",
         eth(ipv4(6, tcp(b"evil evil", doff=15)), 0x0800)),
        ("ipv4 ah then udp: the udp payload", eth(ipv4(51, ah(17) + udp(b"aa xyz")), 0x0800)),
        ("llc/snap ipv4 udp: the udp payload",
         eth(b"\xaa\xaa\x03\x00\x00\x00\x08\x00" + ipv4(17, udp(b"GET / aa")), 0x0030)),
        ("pppoe session ipv4 tcp: the tcp payload",
         eth(b"\x11\x00\x00\x01\x00\x30\x00\x21" + ipv4(6, tcp(b"xyzw evil")), 0x8864)),
        ("pppoe session ipv6 udp: the udp payload",
         eth(b"\x11\x00\x00\x01\x00\x40\x00\x57" + ipv6(17, udp(b"aaa")), 0x8864)),
        ("pppoe discovery: all after ethernet",
         eth(b"\x11\x09\x00\x00\x00\x04xyz!", 0x8863)),
        ("ipv6 payload length 0: no payload", eth(ipv6(17, udp(b"evil"), plen=0), 0x86dd)),
        ("ipv6 first fragment then udp", eth(ipv6(44, frag6(17, 0, 1) + udp(b"aab")), 0x86dd)),
        ("ipv6 non-first fragment: all after ethernet",
         eth(ipv6(44, frag6(17, 100, 0) + b"more aa data"), 0x86dd)),
        ("all 8 patterns: blocked",
         v4u(b"GET / evil \x00\xff aa " + P32 + b" xyzw \xde\xad\xbe\xef")),
        ("1514 bytes, patterns far apart",
         v4u(b"GET /" + bytes(600) + b"aa" + bytes(600) + b"xyz" + bytes(1472 - 1210))),
        ("udp with no payload", v4u(b"")),
    ]
    return out


def random_frames(rng, n):
    chunks = [p for p in PATTERNS if p not in (b"evil", b"\xde\xad\xbe\xef")]
    out = []
    for i in range(n):
        pl = bytearray()
        want = rng.choice((0, 1, 5, 40, 100, 300, 700, 1400))
        while len(pl) < want:
            r = rng.random()
            if r < 0.45:
                pl += bytes(rng.randrange(256) for _ in range(rng.randrange(1, 24)))
            elif r < 0.75:
                pl += rng.choice(chunks)
            elif r < 0.9:
                p = rng.choice(PATTERNS)
                pl += p[:rng.randrange(1, len(p))]       # a pattern cut short
            elif r < 0.93:
                pl += rng.choice((b"evil", b"\xde\xad\xbe\xef"))
            else:
                pl += b"a" * rng.randrange(1, 9)
        pl = bytes(pl[:1400])
        sp, dp = rng.randrange(65536), rng.randrange(65536)
        vl = rng.choice(([], [], [(0x8100, i & 0xfff)], [(0x88a8, 1), (0x8100, 2)]))
        k = rng.randrange(6)
        if k == 0:
            f = eth(ipv4(17, udp(pl, sp, dp)), 0x0800, vlans=vl)
        elif k == 1:
            f = eth(ipv4(6, tcp(pl, sp, dp, opts=bytes(4 * rng.randrange(3)))), 0x0800, vlans=vl)
        elif k == 2:
            f = eth(ipv6(17, udp(pl, sp, dp)), 0x86dd, vlans=vl)
        elif k == 3:
            f = eth(ipv6(6, tcp(pl, sp, dp)), 0x86dd, vlans=vl)
        elif k == 4:
            f = eth(pl, 0x88b5, vlans=vl)
        else:
            f = eth(ipv4(17, udp(pl, sp, dp)), 0x0800, vlans=vl)[:rng.randrange(1, 80)]
        out.append(("random %d" % i, f))
    return out


# ---- the work's rules, computed independently ----

EXT6 = (0, 43, 44, 51, 60, 135, 139, 140)


def be16(b, o):
    return b[o] << 8 | b[o + 1]


def payload_span(f, seg0=None):
    """[start, end) of frame f's payload (payload_match.h); the headers are
    read in its first seg0 bytes (the first segment)"""
    n = len(f)
    cap = n if seg0 is None else min(seg0, n)
    h = f[:cap]
    if cap < 14:
        return n, n
    et, l3, tags = be16(h, 12), 14, 0
    while et in (0x8100, 0x88a8, 0x9100):
        if tags == 8 or cap < l3 + 4:
            return n, n
        et, l3, tags = be16(h, l3 + 2), l3 + 4, tags + 1
    if et <= 1500:              # 802.3: LLC/SNAP with OUI 0 or 00-00-f8
        if cap >= l3 + 8 and h[l3:l3 + 5] == b"\xaa\xaa\x03\x00\x00" and h[l3 + 5] in (0, 0xf8):
            et, l3 = be16(h, l3 + 6), l3 + 8
    elif et == 0x8864:          # PPPoE session: PPP's IPv4 and IPv6
        if cap < l3 + 8:
            return n, n
        if h[l3] == 0x11 and h[l3 + 1] == 0 and be16(h, l3 + 6) in (0x21, 0x57):
            et, l3 = (0x0800 if be16(h, l3 + 6) == 0x21 else 0x86dd), l3 + 8
    rest = (l3, n)
    last = True                 # not a fragment, or the last one
    if et == 0x0800:
        if cap < l3 + 20 or h[l3] >> 4 != 4:
            return rest
        ihl = (h[l3] & 15) * 4
        if ihl < 20 or cap < l3 + ihl:
            return rest
        iplen = be16(h, l3 + 2)
        if iplen < ihl or be16(h, l3 + 6) & 0x1fff:
            return rest                  # malformed, or not the first fragment
        proto, l4, last = h[l3 + 9], l3 + ihl, not be16(h, l3 + 6) & 0x2000
        k = 0
        while proto == 51:               # AH (at most 8), as in IPv6
            if k == 8 or cap < l4 + 8:
                return rest
            proto, l4, k = h[l4], l4 + (h[l4 + 1] + 2) * 4, k + 1
    elif et == 0x86dd:
        if cap < l3 + 40 or h[l3] >> 4 != 6:
            return rest
        iplen = 40 + be16(h, l3 + 4)
        nh, l4, walked = h[l3 + 6], l3 + 40, 0
        while nh in EXT6:
            if walked == 8 or cap < l4 + 8:
                return rest
            if nh == 44:
                if iplen < l4 + 8 - l3 or be16(h, l4 + 2) & 0xfff8:
                    return rest
                hl, last = 8, not be16(h, l4 + 2) & 1
            elif nh == 51:
                hl = (h[l4 + 1] + 2) * 4
            else:
                hl = (h[l4 + 1] + 1) * 8
            nh, l4, walked = h[l4], l4 + hl, walked + 1
        proto = nh
    else:
        return rest
    if proto not in (6, 17) or cap < l4 + (20 if proto == 6 else 8):
        return rest
    hl = (h[l4 + 12] >> 4) * 4 if proto == 6 else 8
    # a TCP data offset under 5, or past the datagram (a first fragment's
    # header may go on in the next one): malformed; cut by the capture:
    # truncated
    if proto == 6 and (hl < 20 or (last and l4 + hl > l3 + iplen) or cap < l4 + hl):
        return rest
    return l4 + hl, min(n, l3 + iplen)


def occurrences(data, pat):
    n, i = 0, data.find(pat)
    while i >= 0:
        n += 1
        i = data.find(pat, i + 1)
    return n


def expect(f, seg0=None):
    """(verdict, mask, per-pattern counts) the work must give frame f"""
    s, e = payload_span(f, seg0)
    pl = f[s:e] if s < e else b""
    cnt = [occurrences(pl, p) for p in PATTERNS]
    mask = sum(1 << k for k, c in enumerate(cnt) if c)
    return (1 if mask & BLOCK else 0), mask, cnt


# ---- the work through ctypes ----

class Work(ctypes.Structure):
    pass


class Burst(ctypes.Structure):
    _fields_ = [("n", ctypes.c_uint32), ("segs", ctypes.c_uint32),
                ("addr", ctypes.POINTER(ctypes.c_uint64)),
                ("len", ctypes.POINTER(ctypes.c_uint32)),
                ("xaddr", ctypes.POINTER(ctypes.c_uint64)),
                ("xlen", ctypes.POINTER(ctypes.c_uint32)),
                ("params", ctypes.c_void_p), ("verdict", ctypes.POINTER(ctypes.c_uint8)),
                ("result", ctypes.POINTER(ctypes.c_uint8)), ("result_size", ctypes.c_uint32),
                ("n_reasons", ctypes.c_uint32), ("counters", ctypes.POINTER(ctypes.c_uint64)),
                ("meta", ctypes.c_void_p)]


INIT_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_char_p,
                           ctypes.c_size_t)
CPU_FN = ctypes.CFUNCTYPE(None, ctypes.POINTER(Burst))
Work._fields_ = [("abi", ctypes.c_uint32), ("size", ctypes.c_uint32),
                 ("name", ctypes.c_char_p), ("summary", ctypes.c_char_p),
                 ("span", ctypes.c_uint32), ("wspan", ctypes.c_uint32),
                 ("result_size", ctypes.c_uint32), ("params_size", ctypes.c_uint32),
                 ("n_reasons", ctypes.c_uint32), ("n_counters", ctypes.c_uint32),
                 ("reasons", ctypes.POINTER(ctypes.c_char_p)),
                 ("counters", ctypes.POINTER(ctypes.c_char_p)),
                 ("init", INIT_FN), ("cpu", CPU_FN), ("gpu_image", ctypes.c_void_p),
                 ("gpu_image_size", ctypes.c_size_t), ("n_tables", ctypes.c_uint32),
                 ("tables", ctypes.c_void_p), ("fini", ctypes.c_void_p),
                 ("n_states", ctypes.c_uint32), ("pad_", ctypes.c_uint32),
                 ("states", ctypes.c_void_p), ("collect", ctypes.c_void_p)]


def work_init(w, arg):
    """(return value, params bytes, message)"""
    params = ctypes.create_string_buffer(w.params_size)
    err = ctypes.create_string_buffer(200)
    r = w.init(None if arg is None else arg.encode("latin-1"), ctypes.cast(params, ctypes.c_void_p),
               err, len(err))
    return r, params.raw, err.value.decode("latin-1")


def params_decode(raw):
    """(patterns, block) from struct payload_match_params"""
    n, block = struct.unpack_from("<II", raw)
    lens = raw[8:8 + MAX_PAT]
    pats = [raw[16 + LEN_MAX * k:16 + LEN_MAX * k + lens[k]] for k in range(min(n, MAX_PAT))]
    return pats, block


def work_run(w, params, pkts, segs):
    """run the CPU form on one burst; pkts: lists of segments (bytes).
    @return (verdicts, masks, counters)"""
    n = len(pkts)
    keep = []
    addr, ln = (ctypes.c_uint64 * n)(), (ctypes.c_uint32 * n)()
    nx = n * (segs - 1)
    xaddr, xlen = (ctypes.c_uint64 * max(nx, 1))(), (ctypes.c_uint32 * max(nx, 1))()
    for i, p in enumerate(pkts):
        for k, s in enumerate(p):
            b = ctypes.create_string_buffer(s, len(s))
            keep.append(b)
            if k == 0:
                addr[i], ln[i] = ctypes.addressof(b), len(s)
            else:
                xaddr[i * (segs - 1) + k - 1] = ctypes.addressof(b)
                xlen[i * (segs - 1) + k - 1] = len(s)
    pbuf = ctypes.create_string_buffer(params, len(params))
    verdict = (ctypes.c_uint8 * n)()
    result = (ctypes.c_uint8 * (n * w.result_size))(*([0xa5] * (n * w.result_size)))
    counters = (ctypes.c_uint64 * 8)()
    b = Burst(n=n, segs=segs, addr=addr, len=ln, xaddr=xaddr if segs > 1 else None,
              xlen=xlen if segs > 1 else None, params=ctypes.cast(pbuf, ctypes.c_void_p),
              verdict=verdict, result=result, result_size=w.result_size,
              n_reasons=w.n_reasons, counters=counters)
    w.cpu(ctypes.byref(b))
    masks = [struct.unpack_from("<I", bytes(result), 4 * i)[0] for i in range(n)]
    return list(verdict), masks, list(counters)


def compare_burst(c, name, frames, seg0s, got):
    """per packet verdict and mask, and the counters, against expect()"""
    verdicts, masks, counters = got
    bad, total = [], [0] * 8
    for i, ((label, f), s0) in enumerate(zip(frames, seg0s)):
        v, m, cnt = expect(f, s0)
        total = [a + b for a, b in zip(total, cnt)]
        if verdicts[i] != v or masks[i] != m:
            bad.append("packet %d (%s%s): verdict %d mask %#x, want %d %#x"
                       % (i, label, "" if s0 is None else ", first segment %d bytes" % s0,
                          verdicts[i], masks[i], v, m))
    for line in bad:
        print("     mismatch: " + line)
    c.check("%s: verdict and result of each of %d packets" % (name, len(frames)), not bad,
            "%d mismatches (above)" % len(bad))
    c.check("%s: counters %s" % (name, total), counters == total, "got %s" % counters)


def cuts(rng, f, label):
    """segments of f: 2..4, cut at random points and, where a pattern
    occurs in the payload, inside its first occurrence"""
    n = len(f)
    if n < 2:
        return [f]
    pts = set(rng.sample(range(1, n), min(n - 1, rng.randrange(1, 4))))
    s, e = payload_span(f)
    pl = f[s:e] if s < e else b""
    for p in PATTERNS:
        i = pl.find(p)
        if i >= 0 and len(p) > 1:
            pts = {s + i + rng.randrange(1, len(p))} | set(sorted(pts)[:2])
            break
    pts = sorted(pts)[:3]
    return [f[a:b] for a, b in zip([0] + pts, pts + [n])]


# ---- the checks ----

def check_object(c, so, want_image):
    nm = shutil.which("nm")
    if nm is None:
        print("note no nm here: the symbol checks are skipped")
    else:
        r = subprocess.run([nm, "-D", "--undefined-only", so], capture_output=True, text=True)
        und = [ln.split()[-1] for ln in r.stdout.splitlines() if ln.strip()]
        # libc's symbols are versioned; the rest are the toolchain's weak ones
        foreign = [s for s in und if "@GLIBC_" not in s and s not in (
            "_ITM_deregisterTMCloneTable", "_ITM_registerTMCloneTable", "__gmon_start__")]
        c.check("nm -D --undefined-only: libc only, no gpudp or DPDK library needed (%s)"
                % " ".join(s.split("@")[0] for s in und),
                r.returncode == 0 and not foreign, foreign or r.stderr)
        r = subprocess.run([nm, "-D", "--defined-only", so], capture_output=True, text=True)
        c.check("exports gpudp_work_entry", re.search(r" T gpudp_work_entry$", r.stdout, re.M),
                r.stdout)
    try:
        lib = ctypes.CDLL(so)
        lib.gpudp_work_entry.restype = ctypes.POINTER(Work)
    except (OSError, AttributeError) as e:
        c.check("dlopen and gpudp_work_entry", False, e)
        return None, None
    w = lib.gpudp_work_entry().contents
    reasons = [w.reasons[i].decode() for i in range(w.n_reasons)]
    counters = [w.counters[i].decode() for i in range(w.n_counters)]
    c.check("descriptor: ABI %d, size %d, name payload_match, span 0, wspan 0, result 4 bytes"
            % (ABI, ctypes.sizeof(Work)),
            (w.abi, w.size, w.name, w.span, w.wspan, w.result_size) ==
            (ABI, ctypes.sizeof(Work), b"payload_match", 0, 0, 4),
            (w.abi, w.size, w.name, w.span, w.wspan, w.result_size))
    c.check("descriptor: params %d bytes, reason 'blocked', counters match0..7"
            % (8 + MAX_PAT + MAX_PAT * LEN_MAX),
            w.params_size == 8 + MAX_PAT + MAX_PAT * LEN_MAX and reasons == ["blocked"] and
            counters == ["match%d" % k for k in range(8)] and w.init and w.cpu,
            (w.params_size, reasons, counters))
    if want_image is not None:
        magic = ctypes.string_at(w.gpu_image, 4) if w.gpu_image else b""
        c.check("descriptor: %s" % ("a GPU image (fatbin)" if want_image else "no GPU image"),
                (magic == struct.pack("<I", 0xba55ed50)) if want_image else not w.gpu_image,
                "gpu_image %s, first bytes %r" % (w.gpu_image, magic))
    return lib, w


# (argument, text the message must contain)
BAD_ARGS = [
    (None, "no patterns given"),
    ("", "no patterns given"),
    (r"match=ok,\xZZ", r"bad escape '\xZZ'"),
    (r"match=ok,ab\q", r"bad escape '\q'"),
    ("match=ok,ab\\", "bad escape '\\'"),
    ("match=ab,,cd", "'match=ab,,cd': empty pattern"),
    ("match=ab;block=", "'block=': empty pattern"),
    ("mach=abc", "clause 'mach=abc'"),
    ("match", "clause 'match'"),
    ("match=a;;block=a", "empty clause"),
    ("match=" + "x" * 33, "longer than 32 bytes"),
    ("match=a,b,c,d,e,f,g,h,i", "pattern 'i': more than 8 patterns"),
    ("match=a;block=b,c,d,e,f,g,h,i", "pattern 'i': more than 8 patterns"),
    ("match=evil,GET /,evil", "pattern 'evil' given twice in match="),
    ("block=evil;block=evil", "pattern 'evil' given twice in block="),
]


def check_init(c, w):
    r, raw, err = work_init(w, WORK_ARG)
    pats, block = params_decode(raw)
    c.check("init %s -> %d patterns, block mask %#x" % (WORK_ARG, len(PATTERNS), BLOCK),
            r == 0 and pats == PATTERNS and block == BLOCK, (r, err, pats, hex(block)))
    r, raw, err = work_init(w, r"block=\x00\x01,evil;match=GET /,evil;match=\\\,\;\x3b\x3B")
    pats, block = params_decode(raw)
    want = [b"GET /", b"evil", b"\\,;;;", b"\x00\x01"]
    c.check(r"init: clauses in any order; \\ \, \; \xHH escapes", r == 0 and pats == want and
            block == 0b1010, (r, err, pats, hex(block)))
    bad = []
    for arg, msg in BAD_ARGS:
        r, _, err = work_init(w, arg)
        if r == 0 or msg not in err:
            bad.append("%r: returned %d, %r (want an error with %r)" % (arg, r, err, msg))
    c.check("init refuses %d bad arguments, naming the token" % len(BAD_ARGS), not bad, bad)


def check_cpu_form(c, w, frames, rng):
    r, params, err = work_init(w, WORK_ARG)
    got = work_run(w, params, [[f] for _, f in frames], 1)
    compare_burst(c, "CPU form, single-segment packets", frames, [None] * len(frames), got)
    segd = [cuts(rng, f, label) for label, f in frames]
    nseg = sum(len(s) for s in segd)
    got = work_run(w, params, segd, 4)
    compare_burst(c, "CPU form, packets in 1..4 segments (%d segments, patterns cut)" % nseg,
                  frames, [len(s[0]) if len(s) > 1 else None for s in segd], got)


def run_fwd(fwd, so, d, frames, burst, mode, mem):
    inp, outp = os.path.join(d, "in.pcap"), os.path.join(d, "out-%s-%d.pcap" % (mode, burst))
    js = os.path.join(d, "fwd-%s-%d.json" % (mode, burst))
    write_pcap(inp, [f for _, f in frames])
    for p in (outp, js):
        if os.path.exists(p):
            os.unlink(p)
    cmd = [fwd, "--no-huge", "-m", "256" if mode == "cpu" else "1024", "--no-pci",
           "--no-telemetry",
           "--file-prefix", "exwork-%d" % os.getpid(), "--lcores", "(0-2)@0",
           "--vdev", "net_pcap0,rx_pcap=%s,tx_pcap=%s" % (inp, outp), "--",
           "--pairing", "same", "--mode", mode, "--work", so, "--work-arg", WORK_ARG,
           "--burst", str(burst), "--count", str(len(frames)), "--duration", "30",
           "--ring", "8", "--flush-us", "100", "--stats", "0", "--mbufs", "16384",
           "--json", js] + (["--mem", mem] if mem else [])
    return subprocess.run(cmd, capture_output=True, text=True, timeout=90), outp, js


def check_fwd(c, fwd, so, d, frames, burst, mode, mem):
    """@return False when gpudp-fwd found no usable GPU"""
    r, outp, js = run_fwd(fwd, so, d, frames, burst, mode, mem)
    print(r.stdout, end="")
    if r.returncode == 77 and mode != "cpu":
        print("skip gpudp-fwd --mode %s: no usable GPU (exit 77): %s"
              % (mode, r.stderr.strip()[-200:]))
        return False
    if not c.check("gpudp-fwd --mode %s%s --work payload_match.so --burst %d: exit 0"
                   % (mode, " --mem " + mem if mem else "", burst),
                   r.returncode == 0, r.stderr[-1500:]):
        return True
    got = read_pcap(outp) if os.path.exists(outp) else []
    exp = [expect(f) for _, f in frames]
    want = [(i, f) for i, ((_, f), e) in enumerate(zip(frames, exp)) if e[0] == 0]
    bad = []
    for k in range(max(len(got), len(want))):
        if k >= len(got):
            bad.append("output packet %d: missing (input packet %d, %s)"
                       % (k, want[k][0], frames[want[k][0]][0]))
        elif k >= len(want):
            bad.append("output packet %d: extra (%d bytes)" % (k, len(got[k])))
        elif got[k] != want[k][1]:
            bad.append("output packet %d (input packet %d, %s): %d bytes %s, want %d bytes %s"
                       % (k, want[k][0], frames[want[k][0]][0], len(got[k]),
                          got[k][:32].hex(), len(want[k][1]), want[k][1][:32].hex()))
    for line in bad:
        print("     mismatch: " + line)
    c.check("burst %d: output = the %d packets not blocked, in order, bytes unchanged "
            "(%d blocked)" % (burst, len(want), len(frames) - len(want)), not bad,
            "%d mismatches (above), %d packets out" % (len(bad), len(got)))
    try:
        with open(js) as f:
            j = json.load(f)
    except (OSError, ValueError) as e:
        c.check("burst %d: --json readable" % burst, False, e)
        return True
    nblk = sum(1 for e in exp if e[0] == 1)
    cnt = [sum(e[2][k] for e in exp) for k in range(8)]
    drops = j.get("drops", {})
    other = {k: v for k, v in drops.items() if k != "blocked" and v != 0}
    c.check("burst %d: --json work payload_match, rx %d, tx %d, drops blocked=%d and no "
            "other" % (burst, len(frames), len(want), nblk),
            j.get("work") == "payload_match" and j.get("rx_pkts") == len(frames) and
            j.get("tx_pkts") == len(want) and drops.get("blocked") == nblk and not other,
            {k: j.get(k) for k in ("work", "rx_pkts", "tx_pkts", "drops")})
    jc = j.get("counters", {})
    c.check("burst %d: --json counters %s" % (burst, cnt),
            [jc.get("match%d" % k) for k in range(8)] == cnt, jc)
    return True


def check_fwd_bad(c, fwd, so, mode):
    for arg, msg in ((r"match=ok,\xZZ", r"bad escape '\xZZ'"),
                     ("match=GET /;blocks=evil", "clause 'blocks=evil'"),
                     (None, "no patterns given")):
        cmd = [fwd, "--no-huge", "--no-pci", "--", "--mode", mode, "--work", so]
        if arg is not None:
            cmd += ["--work-arg", arg]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
        c.check("gpudp-fwd --work-arg %s -> exit 2, %r" % ("(none)" if arg is None else
                                                          repr(arg), msg),
                r.returncode == 2 and msg in r.stderr and "--work-arg" in r.stderr,
                "exit %d, stderr %r" % (r.returncode, r.stderr.strip()[-300:]))


def main():
    a, flags, mode, mem = [], [], "cpu", None
    argv = sys.argv[1:]
    while argv:
        x = argv.pop(0)
        if x in ("--mode", "--mem") and argv:
            if x == "--mode":
                mode = argv.pop(0)
            else:
                mem = argv.pop(0)
        elif x.startswith("--"):
            flags.append(x)
        else:
            a.append(x)
    if len(a) != 3 or any(f not in ("--gpu-image", "--no-gpu-image") for f in flags):
        sys.exit(__doc__)
    fwd, so, d = os.path.abspath(a[0]), os.path.abspath(a[1]), os.path.abspath(a[2])
    want_image = True if "--gpu-image" in flags else False if "--no-gpu-image" in flags \
        else None
    os.makedirs(d, exist_ok=True)
    rng = random.Random(20240611)
    frames = fixed_frames() + random_frames(rng, 220)
    exp = [expect(f) for _, f in frames]
    c = Cases()
    # the generator's own cases say what they hold
    c.check("capture: %d packets, %d blocked, every pattern present, header-only cases "
            "count nothing" % (len(frames), sum(e[0] for e in exp)),
            all(any(e[2][k] for e in exp) for k in range(8)) and
            all(e[1] == 0 for (lb, _), e in zip(frames, exp)
                if lb.startswith(("headers only", "ethernet padding", "runt", "vlan tag cut",
                                  "ipv6 payload length 0",
                                  "ipv6 AH"))) and
            0 < sum(e[0] for e in exp) < len(frames),
            [(lb, e[:2]) for (lb, _), e in zip(frames, exp)][:40])
    lib, w = check_object(c, so, want_image)
    if w is None:
        print("%d passed, %d failed" % (c.passed, c.failed))
        return 1
    check_init(c, w)
    check_cpu_form(c, w, frames, rng)
    for burst in (32, 1):
        if not check_fwd(c, fwd, so, d, frames, burst, mode, mem):
            print("%d passed, %d failed (gpudp-fwd runs skipped)" % (c.passed, c.failed))
            return 1 if c.failed else 77
    check_fwd_bad(c, fwd, so, mode)
    print("%d passed, %d failed" % (c.passed, c.failed))
    return 1 if c.failed else 0


if __name__ == "__main__":
    sys.exit(main())

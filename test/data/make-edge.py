#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Write the small synthetic edge-case captures of test/data/.

usage: make-edge.py [--check] [OUTDIR]     (default: the folder of this script)

--check compares the files in OUTDIR with what the script writes (exit 1 on
any difference) instead of writing them.

Every frame is built field by field (Ethernet, 802.1Q/802.1ad tags, IPv4,
IPv6 with a fragment header, UDP, TCP, ICMP, ICMPv6, checksums included), so
the files are byte-for-byte reproducible and need no privileges. Files:

  frag-ipv4.pcap   IPv4 fragments (doc/capture.md, "Fragments"):
                   10.1.0.1 <-> 10.1.0.2  UDP 5001 -> 6001, 3000 bytes in three
                                          fragments in order, then a 100-byte
                                          unfragmented reply 6001 -> 5001
                   10.1.0.3 -> 10.1.0.4   UDP 5003 -> 6003, 1000 bytes in three
                                          fragments out of order: last, first,
                                          middle
                   10.1.0.5 -> 10.1.0.6   the two non-first fragments of a UDP
                                          datagram whose first one is missing
                   10.1.0.7 -> 10.1.0.8   a first fragment (UDP 5007 -> 6007)
                                          whose other fragments are missing
                   10.1.0.9 -> 10.1.0.10  TCP 5009 -> 6009, one 1000-byte segment
                                          in two fragments, in order
                   10.1.0.11 <-> 10.1.0.12 ICMP echo request and reply of 1000
                                          bytes, two fragments each
  frag-ipv6.pcap   IPv6 fragment headers:
                   fd00::1 -> fd00::2     UDP 5001 -> 6001 as an atomic fragment
                                          (offset 0, M=0), twice
                   fd00::3 -> fd00::4     UDP 5003 -> 6003, 1000 bytes in two
                                          fragments, in order
                   fd00::5 -> fd00::6     UDP 5005 -> 6005, 1000 bytes in three
                                          fragments: middle, last, first
                   fd00::7 -> fd00::8     a lone non-first fragment
                   fd00::9 -> fd00::a     a lone first fragment (UDP 5009 -> 6009)
  icmp-errors.pcap ICMP and ICMPv6 errors that quote the datagram they answer:
                   a UDP datagram 10.2.0.1:4000 -> 10.2.0.2:33434 and the port
                   unreachable quoting it; a TCP SYN 10.2.0.1:4001 -> 10.2.0.3:80
                   and a router's time exceeded quoting it; a UDP datagram
                   fd02::1:4002 -> fd02::2:9 and the ICMPv6 port unreachable
  vlan3.pcap       UDP 10.3.0.1:7000 -> 10.3.0.2:7001 with 3 tags (802.1ad 10,
                   802.1Q 20, 802.1Q 30), 2 tags (802.1ad 10, 802.1Q 20),
                   1 tag (802.1Q 20) and 4 tags (802.1ad 10, 802.1Q 20, 30, 40)
"""
import os
import struct
import sys

MAC_A = bytes.fromhex("020000000001")
MAC_B = bytes.fromhex("020000000002")
BASE_TS = 1767225600  # 2026-01-01T00:00:00Z


def csum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return (~s) & 0xffff


def ip4(a):
    return bytes(int(x) for x in a.split("."))


def ip6(a):
    import ipaddress
    return ipaddress.IPv6Address(a).packed


def eth(payload, ethertype, tags=()):
    """tags: (tpid, vlan id) outermost first"""
    hdr = MAC_B + MAC_A
    for tpid, vid in tags:
        hdr += struct.pack("!HH", tpid, vid)
    return hdr + struct.pack("!H", ethertype) + payload


def udp(src, dst, sport, dport, data, v6=False):
    length = 8 + len(data)
    hdr = struct.pack("!HHHH", sport, dport, length, 0)
    if v6:
        pseudo = src + dst + struct.pack("!IxxxB", length, 17)
    else:
        pseudo = src + dst + struct.pack("!xBH", 17, length)
    c = csum(pseudo + hdr + data) or 0xffff
    return struct.pack("!HHHH", sport, dport, length, c) + data


def tcp(src, dst, sport, dport, flags, data=b"", seq=1000):
    hdr = struct.pack("!HHIIBBHHH", sport, dport, seq, 0, 5 << 4, flags, 65535, 0, 0)
    pseudo = src + dst + struct.pack("!xBH", 6, len(hdr) + len(data))
    c = csum(pseudo + hdr + data)
    return hdr[:16] + struct.pack("!H", c) + hdr[18:] + data


def icmp(typ, code, rest, data):
    body = struct.pack("!BBH", typ, code, 0) + rest + data
    return body[:2] + struct.pack("!H", csum(body)) + body[4:]


def icmp6(src, dst, typ, code, rest, data):
    body = struct.pack("!BBH", typ, code, 0) + rest + data
    pseudo = src + dst + struct.pack("!IxxxB", len(body), 58)
    return body[:2] + struct.pack("!H", csum(pseudo + body)) + body[4:]


def ipv4(src, dst, proto, payload, ident=1, off8=0, more=False, ttl=64):
    frag = (0x2000 if more else 0) | off8
    hdr = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(payload), ident, frag, ttl, proto,
                      0, src, dst)
    return hdr[:10] + struct.pack("!H", csum(hdr)) + hdr[12:] + payload


def ipv6(src, dst, nh, payload, hlim=64):
    return struct.pack("!IHBB", 6 << 28, len(payload), nh, hlim) + src + dst + payload


def ipv6_frag(src, dst, nh, payload, ident, off8=0, more=False):
    fh = struct.pack("!BBHI", nh, 0, (off8 << 3) | (1 if more else 0), ident)
    return ipv6(src, dst, 44, fh + payload)


def fragments(ip, src, dst, proto, l4, ident, size):
    """Fragments of an L4 datagram, size payload bytes each (a multiple of 8);
    ip: ipv4 or ipv6_frag"""
    return [ip(src, dst, proto, l4[off:off + size], ident, off // 8, off + size < len(l4))
            for off in range(0, len(l4), size)]


def fragments4(src, dst, proto, l4, ident, size):
    return fragments(ipv4, src, dst, proto, l4, ident, size)


def fragments6(src, dst, nh, l4, ident, size):
    return fragments(ipv6_frag, src, dst, nh, l4, ident, size)


def payload(n, seed):
    return bytes((seed + i) & 0xff for i in range(n))


def pcap_bytes(frames):
    """A classic little-endian pcap, microseconds, Ethernet; one frame per ms."""
    out = bytearray(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    for i, f in enumerate(frames):
        out += struct.pack("<IIII", BASE_TS, 1000 * (i + 1), len(f), len(f)) + f
    return bytes(out)


def frag_ipv4():
    frames = []
    a, b = ip4("10.1.0.1"), ip4("10.1.0.2")
    d = udp(a, b, 5001, 6001, payload(2992, 1))        # 3000-byte UDP datagram
    frames += [eth(p, 0x0800) for p in fragments4(a, b, 17, d, 0x1001, 1480)]
    frames.append(eth(ipv4(b, a, 17, udp(b, a, 6001, 5001, payload(92, 2)), 0x2001), 0x0800))

    a, b = ip4("10.1.0.3"), ip4("10.1.0.4")
    d = udp(a, b, 5003, 6003, payload(992, 3))
    f = [eth(p, 0x0800) for p in fragments4(a, b, 17, d, 0x1003, 400)]
    frames += [f[2], f[0], f[1]]

    a, b = ip4("10.1.0.5"), ip4("10.1.0.6")
    d = udp(a, b, 5005, 6005, payload(992, 5))
    f = [eth(p, 0x0800) for p in fragments4(a, b, 17, d, 0x1005, 400)]
    frames += [f[1], f[2]]

    a, b = ip4("10.1.0.7"), ip4("10.1.0.8")
    d = udp(a, b, 5007, 6007, payload(992, 7))
    frames.append(eth(fragments4(a, b, 17, d, 0x1007, 400)[0], 0x0800))

    a, b = ip4("10.1.0.9"), ip4("10.1.0.10")
    d = tcp(a, b, 5009, 6009, 0x18, payload(980, 9))
    frames += [eth(p, 0x0800) for p in fragments4(a, b, 6, d, 0x1009, 512)]

    a, b = ip4("10.1.0.11"), ip4("10.1.0.12")
    for typ, s, t, ident in ((8, a, b, 0x100b), (0, b, a, 0x100c)):
        d = icmp(typ, 0, struct.pack("!HH", 0x77, 1), payload(992, 11))
        frames += [eth(p, 0x0800) for p in fragments4(s, t, 1, d, ident, 512)]
    return frames


def frag_ipv6():
    frames = []
    a, b = ip6("fd00::1"), ip6("fd00::2")
    for i in range(2):
        d = udp(a, b, 5001, 6001, payload(100, i), True)
        frames.append(eth(ipv6_frag(a, b, 17, d, 0x6001 + i), 0x86dd))

    a, b = ip6("fd00::3"), ip6("fd00::4")
    d = udp(a, b, 5003, 6003, payload(992, 3), True)
    frames += [eth(p, 0x86dd) for p in fragments6(a, b, 17, d, 0x6003, 512)]

    a, b = ip6("fd00::5"), ip6("fd00::6")
    d = udp(a, b, 5005, 6005, payload(992, 5), True)
    f = [eth(p, 0x86dd) for p in fragments6(a, b, 17, d, 0x6005, 400)]
    frames += [f[1], f[2], f[0]]

    a, b = ip6("fd00::7"), ip6("fd00::8")
    d = udp(a, b, 5007, 6007, payload(992, 7), True)
    frames.append(eth(fragments6(a, b, 17, d, 0x6007, 512)[1], 0x86dd))

    a, b = ip6("fd00::9"), ip6("fd00::a")
    d = udp(a, b, 5009, 6009, payload(992, 9), True)
    frames.append(eth(fragments6(a, b, 17, d, 0x6009, 512)[0], 0x86dd))
    return frames


def icmp_errors():
    frames = []
    a, b, r = ip4("10.2.0.1"), ip4("10.2.0.2"), ip4("10.2.0.254")
    dgram = ipv4(a, b, 17, udp(a, b, 4000, 33434, payload(40, 1)), 0x3001)
    frames.append(eth(dgram, 0x0800))
    frames.append(eth(ipv4(b, a, 1, icmp(3, 3, b"\0\0\0\0", dgram[:28 + 8]), 0x3002), 0x0800))
    c = ip4("10.2.0.3")
    syn = ipv4(a, c, 6, tcp(a, c, 4001, 80, 0x02), 0x3003, ttl=1)
    frames.append(eth(syn, 0x0800))
    frames.append(eth(ipv4(r, a, 1, icmp(11, 0, b"\0\0\0\0", syn[:28]), 0x3004), 0x0800))
    a6, b6 = ip6("fd02::1"), ip6("fd02::2")
    dgram6 = ipv6(a6, b6, 17, udp(a6, b6, 4002, 9, payload(40, 2), True))
    frames.append(eth(dgram6, 0x86dd))
    frames.append(eth(ipv6(b6, a6, 58, icmp6(b6, a6, 1, 4, b"\0\0\0\0", dgram6)), 0x86dd))
    return frames


def vlan3():
    frames = []
    a, b = ip4("10.3.0.1"), ip4("10.3.0.2")
    for i, tags in enumerate(([(0x88a8, 10), (0x8100, 20), (0x8100, 30)],
                              [(0x88a8, 10), (0x8100, 20)],
                              [(0x8100, 20)],
                              [(0x88a8, 10), (0x8100, 20), (0x8100, 30), (0x8100, 40)],
                              [(0x88a8, 10), (0x8100, 20), (0x8100, 30)])):
        d = ipv4(a, b, 17, udp(a, b, 7000, 7001, payload(50 + i, i)), 0x4001 + i)
        frames.append(eth(d, 0x0800, tags))
    return frames


FILES = {
    "frag-ipv4.pcap": frag_ipv4,
    "frag-ipv6.pcap": frag_ipv6,
    "icmp-errors.pcap": icmp_errors,
    "vlan3.pcap": vlan3,
}


def main():
    args = sys.argv[1:]
    check = args[:1] == ["--check"]
    if check:
        args = args[1:]
    out = args[0] if args else os.path.dirname(os.path.abspath(__file__))
    bad = 0
    for name, make in FILES.items():
        path = os.path.join(out, name)
        data = pcap_bytes(make())
        if not check:
            with open(path, "wb") as fh:
                fh.write(data)
            print(path)
            continue
        try:
            with open(path, "rb") as fh:
                same = fh.read() == data
        except OSError as e:
            print("%s: %s" % (path, e))
            same = False
        print("%s %s" % ("ok  " if same else "DIFF", path))
        bad += not same
    if check:
        print("%d passed, %d failed" % (len(FILES) - bad, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

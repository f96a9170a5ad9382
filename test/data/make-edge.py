#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Write the small synthetic edge-case captures of test/data/.

usage: make-edge.py [--check] [OUTDIR]     (default: the folder of this script)

--check compares the files in OUTDIR with what the script writes (exit 1 on
any difference) instead of writing them.

Every frame is built field by field (Ethernet, 802.1Q/802.1ad tags, 802.3
LLC/SNAP, PPPoE, IPv4 with options, IPv6 with extension headers, AH, UDP,
TCP, ICMP, ICMPv6, checksums included), so the files are byte-for-byte
reproducible and need no privileges. Files:

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

The parser's cases that doc/capture.md ("How the parser compares with
tshark") describes:

  tcp-offset.pcap  TCP 10.4.0.1:4000 <-> 10.4.0.2:80 SYN and SYN-ACK with
                   options; from 10.4.0.1 to port 80, data offsets of 4 (from
                   port 4001), 15 in a 30-byte segment (4002), 6 in a 20-byte
                   segment padded to 60 bytes (4003), and 8 with 24 of its 32
                   bytes captured (4004); fd04::1 -> fd04::2 data offset 3
                   (4005), and a SYN with options (4006)
  ah.pcap          AH (RFC 4302): UDP 10.4.1.1:5100 <-> 10.4.1.2:5200, a TCP
                   SYN 10.4.1.1:5101 -> 10.4.1.3:443, an ICMP echo; IPv6 UDP
                   fd04:1::1:5102 -> fd04:1::2:5202
  llc-pppoe.pcap   802.3 LLC/SNAP: UDP 10.4.2.1:5300 -> 10.4.2.2:5301, UDP
                   fd04:2::1:5302 -> fd04:2::2:5303, ARP, and a spanning tree
                   BPDU (LLC without SNAP); PPPoE sessions: TCP
                   10.4.2.3:5304 <-> 10.4.2.4:80 SYN and SYN-ACK, UDP
                   fd04:2::1:5305 -> fd04:2::2:5306, UDP 10.4.2.3:5307 ->
                   10.4.2.4:5308 under 802.1Q tag 42, LCP; a PPPoE discovery PADI
  source-route.pcap  UDP 10.4.3.1:5400 -> 10.4.3.2:5401 with a loose source
                   route (header destination 10.4.3.254, then 10.4.3.253) and
                   the plain reply; TCP 10.4.3.1:5402 -> 10.4.3.2:80 with a
                   strict source route on its last hop; UDP 5403 -> 5404 with
                   a route used up; UDP 5405 -> 5406 with a no-operation and a
                   record route option before the loose source route; UDP
                   fd04:3::1:5500 -> fd04:3::2:5501 with a segment routing
                   header (header destination fd04:3::100, one segment left),
                   the plain reply, and again with none left; a type 0
                   (5502 -> 5503) and a type 2 (5504 -> 5505) routing header;
                   TCP 5506 -> 80 after hop-by-hop options and an SRH
  ip-version.pcap  an IPv6 packet in an 0x0800 frame (fd04:4::1:5600 ->
                   fd04:4::2:5601), an IPv4 packet in an 0x86dd frame
                   (10.4.4.1:5602 -> 10.4.4.2:5603), and one true packet each
  orig-len.pcap    UDP 10.4.5.1:5700 <-> 10.4.5.2:5701: records of 142 and 1000
                   bytes whose original lengths say 60 and 64, a true one of
                   100 bytes, and one of 1200 bytes snapped to 96
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


def tcp(src, dst, sport, dport, flags, data=b"", seq=1000, opts=b"", doff=None):
    """opts: whole 32-bit words; doff: a data offset other than the header's own"""
    if doff is None:
        doff = 5 + len(opts) // 4
    hdr = struct.pack("!HHIIBBHHH", sport, dport, seq, 0, doff << 4, flags, 65535, 0, 0) + opts
    pseudo = src + dst + struct.pack("!xBH", 6, len(hdr) + len(data))
    c = csum(pseudo + hdr + data)
    return hdr[:16] + struct.pack("!H", c) + hdr[18:] + data


# MSS 1460, NOP, NOP, SACK permitted
TCP_OPTS = bytes.fromhex("020405b401010402")


def icmp(typ, code, rest, data):
    body = struct.pack("!BBH", typ, code, 0) + rest + data
    return body[:2] + struct.pack("!H", csum(body)) + body[4:]


def icmp6(src, dst, typ, code, rest, data):
    body = struct.pack("!BBH", typ, code, 0) + rest + data
    pseudo = src + dst + struct.pack("!IxxxB", len(body), 58)
    return body[:2] + struct.pack("!H", csum(pseudo + body)) + body[4:]


def ipv4(src, dst, proto, payload, ident=1, off8=0, more=False, ttl=64, opts=b""):
    """opts: the options, whole 32-bit words"""
    frag = (0x2000 if more else 0) | off8
    hl = 20 + len(opts)
    hdr = struct.pack("!BBHHHBBH4s4s", 0x40 | hl // 4, 0, hl + len(payload), ident, frag, ttl,
                      proto, 0, src, dst) + opts
    return hdr[:10] + struct.pack("!H", csum(hdr)) + hdr[12:] + payload


def ipv6(src, dst, nh, payload, hlim=64):
    return struct.pack("!IHBB", 6 << 28, len(payload), nh, hlim) + src + dst + payload


def ipv6_frag(src, dst, nh, payload, ident, off8=0, more=False):
    fh = struct.pack("!BBHI", nh, 0, (off8 << 3) | (1 if more else 0), ident)
    return ipv6(src, dst, 44, fh + payload)


def ah(nh, payload, spi=0x1000, seq=1):
    """An AH header (RFC 4302) with a 12-byte ICV: 24 bytes, a multiple of 8 for IPv6 too"""
    return struct.pack("!BBHII", nh, 24 // 4 - 2, 0, spi, seq) + bytes(range(12)) + payload


def ipv6_ext(nh, body):
    """An extension header of the hop-by-hop/routing/destination options form;
    body: what follows its first two bytes (6 + 8k bytes)"""
    return struct.pack("!BB", nh, (len(body) + 2) // 8 - 1) + body


def eth_llc(payload, ethertype=None, llc=None):
    """IEEE 802.3 with an LLC header: SNAP (RFC 1042) with ethertype, or the llc bytes given"""
    llc = b"\xaa\xaa\x03\x00\x00\x00" + struct.pack("!H", ethertype) if llc is None else llc
    return MAC_B + MAC_A + struct.pack("!H", len(llc) + len(payload)) + llc + payload


def pppoe(ppp_proto, payload, session=0x2a):
    """A PPPoE session stage header (RFC 2516) and PPP's protocol field"""
    return struct.pack("!BBHHH", 0x11, 0, session, 2 + len(payload), ppp_proto) + payload


def pad60(frame):
    """Ethernet padding up to the 60-byte minimum (no FCS)"""
    return frame + bytes(max(0, 60 - len(frame)))


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
    """A classic little-endian pcap, microseconds, Ethernet; one frame per ms.
    A frame is its bytes, or (captured bytes, original length)."""
    out = bytearray(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    for i, f in enumerate(frames):
        f, orig = f if isinstance(f, tuple) else (f, len(f))
        out += struct.pack("<IIII", BASE_TS, 1000 * (i + 1), len(f), orig) + f
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


def tcp_offset():
    frames = []
    a, b = ip4("10.4.0.1"), ip4("10.4.0.2")
    frames.append(eth(ipv4(a, b, 6, tcp(a, b, 4000, 80, 0x02, opts=TCP_OPTS), 0x5001), 0x0800))
    frames.append(eth(ipv4(b, a, 6, tcp(b, a, 80, 4000, 0x12, opts=TCP_OPTS), 0x5002), 0x0800))
    # data offset 4: below the fixed header
    frames.append(eth(ipv4(a, b, 6, tcp(a, b, 4001, 80, 0x18, payload(20, 1), doff=4), 0x5003),
                      0x0800))
    # data offset 15 (60 bytes) in a 30-byte segment
    frames.append(eth(ipv4(a, b, 6, tcp(a, b, 4002, 80, 0x18, payload(10, 2), doff=15), 0x5004),
                      0x0800))
    # data offset 6 in a 20-byte segment whose frame is padded to 60 bytes:
    # the padding is not the header's
    frames.append(pad60(eth(ipv4(a, b, 6, tcp(a, b, 4003, 80, 0x10, doff=6), 0x5005), 0x0800)))
    # a 32-byte header of which the capture kept 24 bytes
    f = eth(ipv4(a, b, 6, tcp(a, b, 4004, 80, 0x18, payload(10, 4),
                              opts=TCP_OPTS + bytes.fromhex("0101080a")), 0x5006), 0x0800)
    frames.append((f[:14 + 20 + 24], len(f)))
    a6, b6 = ip6("fd04::1"), ip6("fd04::2")
    frames.append(eth(ipv6(a6, b6, 6, tcp(a6, b6, 4005, 80, 0x18, payload(20, 5), doff=3)),
                      0x86dd))
    frames.append(eth(ipv6(a6, b6, 6, tcp(a6, b6, 4006, 80, 0x02, opts=TCP_OPTS)), 0x86dd))
    return frames


def ah_frames():
    frames = []
    a, b, c = ip4("10.4.1.1"), ip4("10.4.1.2"), ip4("10.4.1.3")
    frames.append(eth(ipv4(a, b, 51, ah(17, udp(a, b, 5100, 5200, payload(30, 1))), 0x5101),
                      0x0800))
    frames.append(eth(ipv4(b, a, 51, ah(17, udp(b, a, 5200, 5100, payload(40, 2))), 0x5102),
                      0x0800))
    frames.append(eth(ipv4(a, c, 51, ah(6, tcp(a, c, 5101, 443, 0x02, opts=TCP_OPTS)), 0x5103),
                      0x0800))
    frames.append(eth(ipv4(a, b, 51, ah(1, icmp(8, 0, struct.pack("!HH", 0x51, 1),
                                                  payload(24, 3))), 0x5104), 0x0800))
    a6, b6 = ip6("fd04:1::1"), ip6("fd04:1::2")
    frames.append(eth(ipv6(a6, b6, 51, ah(17, udp(a6, b6, 5102, 5202, payload(30, 4), True))),
                      0x86dd))
    return frames


def llc_pppoe():
    frames = []
    a, b = ip4("10.4.2.1"), ip4("10.4.2.2")
    frames.append(pad60(eth_llc(ipv4(a, b, 17, udp(a, b, 5300, 5301, payload(10, 1)), 0x5201),
                                0x0800)))
    a6, b6 = ip6("fd04:2::1"), ip6("fd04:2::2")
    frames.append(eth_llc(ipv6(a6, b6, 17, udp(a6, b6, 5302, 5303, payload(10, 2), True)),
                          0x86dd))
    arp = struct.pack("!HHBBH", 1, 0x0800, 6, 4, 1) + MAC_A + a + bytes(6) + b
    frames.append(pad60(eth_llc(arp, 0x0806)))
    # a spanning tree configuration BPDU: LLC without SNAP, no IP
    frames.append(pad60(eth_llc(bytes(35), llc=b"\x42\x42\x03")))
    c, d = ip4("10.4.2.3"), ip4("10.4.2.4")
    frames.append(eth(pppoe(0x0021, ipv4(c, d, 6, tcp(c, d, 5304, 80, 0x02, opts=TCP_OPTS),
                                         0x5202)), 0x8864))
    frames.append(eth(pppoe(0x0021, ipv4(d, c, 6, tcp(d, c, 80, 5304, 0x12, opts=TCP_OPTS),
                                         0x5203)), 0x8864))
    frames.append(eth(pppoe(0x0057, ipv6(a6, b6, 17, udp(a6, b6, 5305, 5306, payload(20, 3),
                                                         True))), 0x8864))
    frames.append(eth(pppoe(0x0021, ipv4(c, d, 17, udp(c, d, 5307, 5308, payload(20, 4)),
                                         0x5204)), 0x8864, [(0x8100, 42)]))
    # PPP's LCP echo request, and a PPPoE discovery PADI: no IP
    frames.append(pad60(eth(pppoe(0xc021, struct.pack("!BBHI", 9, 1, 8, 0x12345678)), 0x8864)))
    frames.append(pad60(eth(struct.pack("!BBHHHH", 0x11, 0x09, 0, 4, 0x0101, 0), 0x8863)))
    return frames


def source_route():
    frames = []
    a, b = ip4("10.4.3.1"), ip4("10.4.3.2")
    r1, r2 = ip4("10.4.3.254"), ip4("10.4.3.253")

    def route(typ, ptr, *addrs, before=b""):
        o = before + struct.pack("!BBB", typ, 3 + 4 * len(addrs), ptr) + b"".join(addrs)
        return o + bytes(-len(o) % 4)

    # a loose source route on its way to r1, then r2, then b; and b's plain reply
    frames.append(eth(ipv4(a, r1, 17, udp(a, b, 5400, 5401, payload(20, 1)), 0x5301,
                           opts=route(131, 4, r2, b)), 0x0800))
    frames.append(eth(ipv4(b, a, 17, udp(b, a, 5401, 5400, payload(30, 2)), 0x5302), 0x0800))
    # a strict source route with one hop left (the pointer on the last address)
    frames.append(eth(ipv4(a, r2, 6, tcp(a, b, 5402, 80, 0x02, opts=TCP_OPTS), 0x5303,
                           opts=route(137, 8, r1, b)), 0x0800))
    # a route used up (the pointer past it): the header's destination is the final one
    frames.append(eth(ipv4(a, b, 17, udp(a, b, 5403, 5404, payload(20, 3)), 0x5304,
                           opts=route(131, 12, r1, r2)), 0x0800))
    # after a no-operation and a record route option
    frames.append(eth(ipv4(a, r1, 17, udp(a, b, 5405, 5406, payload(20, 4)), 0x5305,
                           opts=route(131, 4, b, before=b"\x01\x07\x07\x04" + bytes(4))),
                      0x0800))
    a6, b6, s1 = ip6("fd04:3::1"), ip6("fd04:3::2"), ip6("fd04:3::100")

    def srh(nh, left, *segs):
        return ipv6_ext(nh, struct.pack("!BBBBH", 4, left, len(segs) - 1, 0, 0) + b"".join(segs))

    # a segment routing header with one segment left (segment 0 is the final
    # destination), and b6's plain reply
    frames.append(eth(ipv6(a6, s1, 43, srh(17, 1, b6, s1) +
                           udp(a6, b6, 5500, 5501, payload(20, 5), True)), 0x86dd))
    frames.append(eth(ipv6(b6, a6, 17, udp(b6, a6, 5501, 5500, payload(30, 6), True)), 0x86dd))
    # none left: at its final destination
    frames.append(eth(ipv6(a6, b6, 43, srh(17, 0, b6, s1) +
                           udp(a6, b6, 5500, 5501, payload(20, 7), True)), 0x86dd))
    # type 0 (deprecated) and type 2 (Mobile IPv6's home address)
    frames.append(eth(ipv6(a6, s1, 43, ipv6_ext(17, struct.pack("!BBI", 0, 1, 0) + b6) +
                           udp(a6, b6, 5502, 5503, payload(20, 8), True)), 0x86dd))
    frames.append(eth(ipv6(a6, s1, 43, ipv6_ext(17, struct.pack("!BBI", 2, 1, 0) + b6) +
                           udp(a6, b6, 5504, 5505, payload(20, 9), True)), 0x86dd))
    # hop-by-hop options, then a segment routing header, then TCP
    hbh = ipv6_ext(43, bytes.fromhex("010400000000"))
    frames.append(eth(ipv6(a6, s1, 0, hbh + srh(6, 1, b6, s1) +
                           tcp(a6, b6, 5506, 80, 0x02, opts=TCP_OPTS)), 0x86dd))
    return frames


def ip_version():
    a, b = ip4("10.4.4.1"), ip4("10.4.4.2")
    a6, b6 = ip6("fd04:4::1"), ip6("fd04:4::2")
    return [eth(ipv6(a6, b6, 17, udp(a6, b6, 5600, 5601, payload(20, 1), True)), 0x0800),
            eth(ipv4(a, b, 17, udp(a, b, 5602, 5603, payload(20, 2)), 0x5401), 0x86dd),
            eth(ipv4(a, b, 17, udp(a, b, 5604, 5605, payload(20, 3)), 0x5402), 0x0800),
            eth(ipv6(a6, b6, 17, udp(a6, b6, 5606, 5607, payload(20, 4), True)), 0x86dd)]


def orig_len():
    a, b = ip4("10.4.5.1"), ip4("10.4.5.2")
    f1 = eth(ipv4(a, b, 17, udp(a, b, 5700, 5701, payload(100, 1)), 0x5501), 0x0800)
    f2 = eth(ipv4(b, a, 17, udp(b, a, 5701, 5700, payload(958, 2)), 0x5502), 0x0800)
    f3 = eth(ipv4(a, b, 17, udp(a, b, 5700, 5701, payload(58, 3)), 0x5503), 0x0800)
    f4 = eth(ipv4(a, b, 17, udp(a, b, 5700, 5701, payload(1158, 4)), 0x5504), 0x0800)
    # original lengths below the captured ones (a bogus record: libpcap and
    # tshark take them as written), a true one, and a snapped record
    return [(f1, 60), (f2, 64), f3, (f4[:96], len(f4))]


FILES = {
    "frag-ipv4.pcap": frag_ipv4,
    "frag-ipv6.pcap": frag_ipv6,
    "icmp-errors.pcap": icmp_errors,
    "vlan3.pcap": vlan3,
    "tcp-offset.pcap": tcp_offset,
    "ah.pcap": ah_frames,
    "llc-pppoe.pcap": llc_pppoe,
    "source-route.pcap": source_route,
    "ip-version.pcap": ip_version,
    "orig-len.pcap": orig_len,
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

#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Write a long synthetic capture for the flow monitor's long run, and what
its flow records must add up to.

usage: make_flows.py OUT.pcap [--flows N] [--hours H] [--seed S] [--tail N]
                              [--idle SEC] [--active SEC] [--reuse]

OUT.pcap (classic pcap, microseconds, Ethernet) holds about 10 packets per
flow, in time order, over H hours of capture time (default: 1,200,000
flows, over 10 million packets, 3 hours). OUT.pcap.json, the manifest,
says what a flow monitor run with --idle-timeout SEC and --active-timeout
SEC (defaults 30 and 300) must export. With --reuse, nothing is written
when the manifest already describes these arguments and this script.

The traffic is deterministic (Python's random.Random(seed)): IPv4 and IPv6
(a quarter), a fifth of the flows on a VLAN, a ToS per direction; frames
are captured up to the end of their L4 header (like a capture with a small
snap length) and their original length is the whole frame, at least 60
bytes: a record's octets (IP total length) and l2_octets (the wire length)
differ by more than the Ethernet header when the frame was padded. Flows:

  tcp_fin   SYN, SYN-ACK, ACK, data both ways, FIN from each side, nothing
            after: ends "end" (FIN in both directions)
  tcp_rst   SYN and an RST-ACK back: "end"
  tcp_open  a handshake and data, never closed: "idle"
  udp       requests and answers, a fifth of them one way only: "idle"
  icmp      echo requests and replies (ICMPv6 for IPv6): "idle"
  long      UDP or TCP (closed with FINs), 15 to 75 minutes, a packet every
            2 to 20 s: split by the active timeout, then "idle" or "end"
  tail      500 (--tail) UDP flows with a packet every second through the
            last 250 s: still going at the end of the input, "forced"

No gap inside a flow reaches the idle timeout; 2% of the flows use again
the 5-tuple of a short TCP or UDP flow that ended at least the idle
timeout and 60 s earlier; every other flow has a 5-tuple of its own. No
flow starts in the 900 s before the tail but the tail's, and every other
flow has ended 400 s before the end, so that the monitor's 1 s scans see
each idle timeout before the input ends.

The manifest holds the counts (packets, flows, flow directions, octets,
layer 2 octets, directions by end reason), the longest time the packets of
a batch (4096 in file order, gpudp-capture's --batch) span, the long flows
(their key, duration and end reason), and a digest of every flow direction as the records must give
it once the parts that the active timeout split are joined again: its
5-tuple, VLAN, ToS, TCP flags, first and last packet times (us), packets,
octets, layer 2 octets and end reason (digest(), 64 bits each, summed
modulo 2^64), in 256 buckets by 5-tuple, and the directions of one
5-tuple in 1024 written out in full, for the differences to be shown.
"""
import hashlib
import heapq
import json
import os
import random
import struct
import sys
import zlib

VERSION = 1
T0_S = 1800000000                     # 2027-01-15T08:00:00Z
TAIL_S = 250
QUIET_S = 900                         # no flow starts then, but the tail's
LONG_END_S = 400                      # long flows end this long before the end
REUSE_GAP_S = 60
END = {"idle": 1, "active": 2, "end": 3, "forced": 4, "lack_of_resources": 5}
SAMPLE_MASK = 0x3ff
BATCH = 4096                          # gpudp-capture's --batch default

ENTRY = struct.Struct(">B16s16sHHBHBBQQQQQB")
KEY = struct.Struct(">B16s16sHHB")
PCAP_REC = struct.Struct("<IIII")


def key_bytes(af, src, dst, sport, dport, proto):
    return KEY.pack(af, src, dst, sport, dport, proto)


def bucket(kb):
    c = zlib.crc32(kb)
    return c & 0xff, (c >> 8) & SAMPLE_MASK == 0


def digest(af, src, dst, sport, dport, proto, vlan, tos, flags, first_us, last_us, packets,
           octets, l2, reason):
    """One flow direction's digest; src and dst are 16 bytes (IPv4: 4, then zeros)."""
    b = ENTRY.pack(af, src, dst, sport, dport, proto, vlan, tos, flags, first_us, last_us,
                   packets, octets, l2, reason)
    return int.from_bytes(hashlib.blake2b(b, digest_size=8).digest(), "big")


class Digest:
    """The sum of the digests of flow directions, by bucket, and the sample."""

    def __init__(self):
        self.count = 0
        self.sum = 0
        self.buckets = [[0, 0] for _ in range(256)]
        self.sample = []
        self.reasons = {}

    def add(self, af, src, dst, sport, dport, proto, vlan, tos, flags, first_us, last_us,
            packets, octets, l2, reason):
        h = digest(af, src, dst, sport, dport, proto, vlan, tos, flags, first_us, last_us,
                   packets, octets, l2, reason)
        self.count += 1
        self.sum = (self.sum + h) & 0xffffffffffffffff
        b, sampled = bucket(key_bytes(af, src, dst, sport, dport, proto))
        self.buckets[b][0] += 1
        self.buckets[b][1] = (self.buckets[b][1] + h) & 0xffffffffffffffff
        self.reasons[reason] = self.reasons.get(reason, 0) + 1
        if sampled:
            self.sample.append(entry_dict(af, src, dst, sport, dport, proto, vlan, tos, flags,
                                          first_us, last_us, packets, octets, l2, reason))


def addr_text(af, a):
    import ipaddress
    return str(ipaddress.ip_address(a[:4] if af == 4 else a))


def entry_dict(af, src, dst, sport, dport, proto, vlan, tos, flags, first_us, last_us,
               packets, octets, l2, reason):
    return {"af": af, "src": addr_text(af, src), "dst": addr_text(af, dst), "sport": sport,
            "dport": dport, "proto": proto, "vlan": vlan, "tos": tos, "tcp_flags": flags,
            "first_us": first_us, "last_us": last_us, "packets": packets, "octets": octets,
            "l2_octets": l2, "end_reason": reason}


def csum_fold(s):
    s = (s & 0xffff) + (s >> 16)
    s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


class Dir:
    """One direction of a flow: the frame's constant parts, and its counts."""
    __slots__ = ("head", "mid", "tail", "hdr_len", "l3_off", "sum0", "v6", "l4", "ports",
                 "first", "last", "packets", "octets", "l2", "flags", "src", "dst", "sport",
                 "dport", "tos", "icmp")

    def __init__(self, af, src, dst, sport, dport, proto, vlan, tos, smac, dmac):
        self.v6 = af == 6
        self.src, self.dst, self.sport, self.dport, self.tos = src, dst, sport, dport, tos
        eth = dmac + smac + (struct.pack(">HH", 0x8100, vlan) if vlan else b"") + \
            (b"\x86\xdd" if self.v6 else b"\x08\x00")
        self.l3_off = len(eth)
        self.l4 = proto
        self.ports = struct.pack(">HH", sport, dport)
        if self.v6:
            # version, traffic class, flow label | payload length | next header, hop limit
            self.head = eth + struct.pack(">I", 0x60000000 | tos << 20)
            self.mid = bytes([proto, 64]) + src + dst
            l3 = 40
        else:
            self.head = eth + bytes([0x45, tos])
            self.mid = struct.pack(">HHBB", 0, 0x4000, 64, proto)
            self.tail = src[:4] + dst[:4]
            words = struct.unpack(">10H", bytes([0x45, tos]) + b"\0\0" + self.mid + b"\0\0" +
                                  self.tail)
            self.sum0 = sum(words)
            l3 = 20
        self.hdr_len = self.l3_off + l3 + (20 if proto == 6 else 8)
        self.first = self.last = None
        self.packets = self.octets = self.l2 = self.flags = 0
        self.icmp = None

    def frame(self, ip_len, l4):
        """The captured bytes (headers), for an IP datagram of ip_len bytes."""
        if self.v6:
            return self.head + struct.pack(">H", ip_len - 40) + self.mid + l4
        return self.head + struct.pack(">H", ip_len) + self.mid + \
            struct.pack(">H", csum_fold(self.sum0 + ip_len)) + self.tail + l4


def tcp_l4(d, flags):
    # ports, seq, ack, data offset 5, flags, window, checksum, urgent
    return d.ports + b"\0\0\0\1\0\0\0\1\x50" + bytes([flags]) + b"\xff\xff\0\0\0\0"


class Gen:
    def __init__(self, seed, flows, hours, idle, active, tail=500):
        self.rng = random.Random(seed)
        self.tail_flows = tail
        self.n_flows = flows
        self.span_us = int(hours * 3600 * 1000000)
        self.t0 = T0_S * 1000000
        self.end_us = self.t0 + self.span_us
        self.idle_us = idle * 1000000
        self.active_us = active * 1000000
        self.dig = Digest()
        self.heap = []
        self.seq = 0
        self.uid = 0
        self.reusable = []       # (free from us, identity)
        self.packets = self.octets = self.l2 = 0
        self.batch_t0 = self.batch_span = 0
        self.flows = 0
        self.kinds = {}
        self.long = []

    # -- identities ------------------------------------------------------
    def new_identity(self, proto):
        r = self.rng
        u = self.uid
        self.uid += 1
        ci = (u * 0x9e3b5) & 0xfffff          # a permutation of 0..2^20-1
        cport = 20000 + (u >> 20)
        af = 6 if r.random() < 0.25 else 4
        srv = 1 + int(r.random() * 250)
        if af == 4:
            c = bytes([10, ci >> 16, (ci >> 8) & 0xff, ci & 0xff]) + bytes(12)
            s = bytes([192, 0, 2, srv]) + bytes(12) if srv & 1 else \
                bytes([198, 51, 100, srv]) + bytes(12)
        else:
            c = b"\xfd\x00" + bytes(10) + struct.pack(">I", ci)
            s = b"\x20\x01\x0d\xb8" + bytes(11) + bytes([srv])
        sport = (80, 443, 8080, 22, 25, 53, 123, 5060)[int(r.random() * 8)]
        vlan = 1 + (u % 4000) if r.random() < 0.2 else 0
        tos_c = (0, 0, 0, 0x10, 0x28, 0xb8)[int(r.random() * 6)]
        tos_s = (0, 0, 0x08, 0x20)[int(r.random() * 4)]
        if proto in (1, 58):
            proto = 58 if af == 6 else 1
        return (af, c, s, cport, sport, proto, vlan, tos_c, tos_s)

    # -- packet schedules ------------------------------------------------
    def gap(self):
        r = self.rng.random()
        if r < 0.7:
            return 100 + int(self.rng.random() * 50000)
        if r < 0.95:
            return 50000 + int(self.rng.random() * 1950000)
        return 2000000 + int(self.rng.random() * 8000000)

    def schedule(self, kind, t, proto):
        """[(t_us, dir, tcp flags or ICMP type, payload bytes)], dir 0: client -> server."""
        r, g = self.rng, self.gap
        p = []
        if kind in ("tcp_fin", "tcp_rst", "tcp_open"):
            p.append((t, 0, 0x02, 0))
            t += g()
            if kind == "tcp_rst":
                p.append((t, 1, 0x14, 0))
                return p
            p.append((t, 1, 0x12, 0))
            t += g()
            p.append((t, 0, 0x10, 0))
            for _ in range(int(r.random() * 5)):
                t += g()
                p.append((t, 0, 0x18, 20 + int(r.random() * 600)))
                for _ in range(1 + int(r.random() * 3)):
                    t += g()
                    p.append((t, 1, 0x18 if r.random() < 0.5 else 0x10,
                              1460 if r.random() < 0.6 else int(r.random() * 1460)))
            if kind == "tcp_fin":
                t += g()
                p.append((t, 0, 0x11, 0))
                t += g()
                p.append((t, 1, 0x11, 0))
            return p
        if kind == "udp":
            one_way = r.random() < 0.2
            for i in range(1 + int(r.random() * 6)):
                if i:
                    t += g()
                p.append((t, 0, 0, 20 + int(r.random() * 180)))
                if not one_way and r.random() < 0.9:
                    t += g()
                    p.append((t, 1, 0, 50 + int(r.random() * 1150)))
            return p
        if kind == "icmp":
            req, rep = (128, 129) if proto == 58 else (8, 0)
            for i in range(1 + int(r.random() * 6)):
                if i:
                    t += g()
                p.append((t, 0, req, 56))
                t += 100 + int(r.random() * 30000)
                p.append((t, 1, rep, 56))
            return p
        if kind in ("long_udp", "long_tcp"):
            dur = min(int((15 + r.random() * 60) * 60e6),
                      self.end_us - LONG_END_S * 1000000 - t)
            stop = t + dur
            if kind == "long_tcp":
                p += [(t, 0, 0x02, 0), (t + 1000, 1, 0x12, 0), (t + 2000, 0, 0x10, 0)]
                t += 2000
            while True:
                nt = t + 2000000 + int(r.random() * 18000000)
                if nt > stop:
                    break
                t = nt
                d = 0 if r.random() < 0.6 else 1
                p.append((t, d, 0x18 if kind == "long_tcp" else 0, 40 + int(r.random() * 1400)))
            if kind == "long_tcp":
                p += [(t + 1000, 0, 0x11, 0), (t + 2000, 1, 0x11, 0)]
            return p
        if kind == "tail":
            stop = self.end_us
            d = 0
            while t <= stop:
                p.append((t, d, 0, 100 + int(r.random() * 100)))
                d ^= 1
                t += 800000 + int(r.random() * 400000)
            return p
        raise ValueError(kind)

    # -- flows -----------------------------------------------------------
    def add_flow(self, kind, t, ident=None):
        proto = {"tcp_fin": 6, "tcp_rst": 6, "tcp_open": 6, "long_tcp": 6, "udp": 17,
                 "long_udp": 17, "tail": 17, "icmp": 1}[kind]
        if ident is None:
            ident = self.new_identity(proto)
        af, c, s, cport, sport, proto, vlan, tos_c, tos_s = ident
        if proto in (1, 58):
            cport = sport = 0
        mac_c = b"\x02\0" + c[-4:]
        mac_s = b"\x02\1" + s[-4:]
        dirs = (Dir(af, c, s, cport, sport, proto, vlan, tos_c, mac_c, mac_s),
                Dir(af, s, c, sport, cport, proto, vlan, tos_s, mac_s, mac_c))
        sched = self.schedule(kind, t, proto)
        reason = {"tcp_fin": "end", "tcp_rst": "end", "long_tcp": "end",
                  "tail": "forced"}.get(kind, "idle")
        flow = [dirs, sched, 0, ident, reason, af, proto, vlan, kind]
        self.flows += 1
        self.kinds[kind] = self.kinds.get(kind, 0) + 1
        self.seq += 1
        heapq.heappush(self.heap, (sched[0][0], self.seq, flow))
        if kind.startswith("long"):
            k = dirs[0]
            self.long.append({"af": af, "src": addr_text(af, k.src), "dst": addr_text(af, k.dst),
                              "sport": k.sport, "dport": k.dport, "proto": proto,
                              "duration_us": sched[-1][0] - sched[0][0],
                              "end_reason": END[reason]})
        return flow

    def finish_flow(self, flow):
        dirs, sched, _, ident, reason, af, proto, vlan, kind = flow
        for d in dirs:
            if d.packets == 0:
                continue
            dport = d.icmp if proto in (1, 58) else d.dport
            self.dig.add(af, d.src, d.dst, 0 if proto in (1, 58) else d.sport, dport, proto,
                         vlan, d.tos, d.flags, d.first, d.last, d.packets, d.octets, d.l2,
                         END[reason])
        if kind not in ("tail", "long_udp", "long_tcp") and proto not in (1, 58) and \
                self.rng.random() < 0.05:
            free = sched[-1][0] + self.idle_us + REUSE_GAP_S * 1000000
            heapq.heappush(self.reusable, (free, self.seq, ident))
            self.seq += 1

    def emit(self, flow, out):
        dirs, sched, i, ident, reason, af, proto, vlan, _ = flow
        t, di, fl, pay = sched[i]
        d = dirs[di]
        l4len = 20 if proto == 6 else 8
        ip_len = (40 if af == 6 else 20) + l4len + pay
        if proto == 6:
            l4 = tcp_l4(d, fl)
            d.flags |= fl
        elif proto == 17:
            l4 = d.ports + struct.pack(">HH", l4len + pay, 0)
        else:
            l4 = bytes([fl, 0, 0, 0, 0, 1, 0, 1])
            if d.icmp is None:
                d.icmp = fl << 8
        frame = d.frame(ip_len, l4)
        wire = max(60, d.l3_off + ip_len)
        out.append(PCAP_REC.pack(t // 1000000, t % 1000000, len(frame), wire))
        out.append(frame)
        if d.first is None:
            d.first = t
        d.last = t
        d.packets += 1
        d.octets += ip_len
        d.l2 += wire
        if self.packets % BATCH == 0:
            self.batch_t0 = t
        self.batch_span = max(self.batch_span, t - self.batch_t0)
        self.packets += 1
        self.octets += ip_len
        self.l2 += wire

    def pick_kind(self, t):
        x = self.rng.random()
        if x < 0.002 and t < self.end_us - (LONG_END_S + 20 * 60) * 1000000:
            return "long_udp" if self.rng.random() < 0.6 else "long_tcp"
        if x < 0.45:
            return "tcp_fin"
        if x < 0.50:
            return "tcp_rst"
        if x < 0.55:
            return "tcp_open"
        if x < 0.85:
            return "udp"
        return "icmp"

    def run(self, f):
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        main_end = self.end_us - QUIET_S * 1000000
        interval = (main_end - self.t0) / self.n_flows
        tail_t0 = self.end_us - TAIL_S * 1000000
        next_k = 0
        next_start = self.t0
        tail_k = 0
        out = []
        heap = self.heap
        while True:
            # start the flows due before the next packet
            top = heap[0][0] if heap else None
            if next_k < self.n_flows and (top is None or next_start <= top):
                t = next_start
                kind = self.pick_kind(t)
                ident = None
                if not kind.startswith("long") and self.reusable and \
                        self.reusable[0][0] < t and self.rng.random() < 0.02:
                    ident = heapq.heappop(self.reusable)[2]
                    p = ident[5]
                    if p == 6 and kind not in ("tcp_fin", "tcp_rst", "tcp_open"):
                        kind = "tcp_fin"
                    elif p == 17:
                        kind = "udp"
                self.add_flow(kind, t, ident)
                next_k += 1
                next_start = int(self.t0 + next_k * interval + self.rng.random() * interval)
                continue
            if tail_k < self.tail_flows and (top is None or tail_t0 + tail_k * 10000 <= top):
                self.add_flow("tail", tail_t0 + tail_k * 10000)
                tail_k += 1
                continue
            if not heap:
                break
            _, _, flow = heap[0]
            self.emit(flow, out)
            flow[2] += 1
            if flow[2] < len(flow[1]):
                self.seq += 1
                heapq.heapreplace(heap, (flow[1][flow[2]][0], self.seq, flow))
            else:
                heapq.heappop(heap)
                self.finish_flow(flow)
            if len(out) >= 131072:
                f.write(b"".join(out))
                out.clear()
        f.write(b"".join(out))


def source_hash():
    with open(os.path.abspath(__file__), "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def main(argv):
    args = argv[1:]
    if not args or args[0].startswith("-"):
        sys.exit(__doc__)
    out = args[0]
    opts = {"--flows": 1200000, "--hours": 3.0, "--seed": 1, "--idle": 30, "--active": 300,
            "--tail": 500}
    reuse = "--reuse" in args
    i = 1
    while i < len(args):
        if args[i] == "--reuse":
            i += 1
            continue
        if args[i] not in opts or i + 1 >= len(args):
            sys.exit("make_flows.py: bad argument %s\n%s" % (args[i], __doc__))
        opts[args[i]] = type(opts[args[i]])(args[i + 1])
        i += 2
    params = {"version": VERSION, "source": source_hash(), "flows": opts["--flows"],
              "hours": opts["--hours"], "seed": opts["--seed"], "idle_s": opts["--idle"],
              "active_s": opts["--active"], "tail": opts["--tail"]}
    man = out + ".json"
    if reuse and os.path.exists(out) and os.path.exists(man):
        try:
            with open(man) as f:
                old = json.load(f)
            if old.get("params") == params and os.path.getsize(out) == old.get("pcap_bytes"):
                print("make_flows.py: %s is up to date" % out)
                return 0
        except (OSError, ValueError):
            pass
    g = Gen(opts["--seed"], opts["--flows"], opts["--hours"], opts["--idle"],
            opts["--active"], opts["--tail"])
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with open(out + ".tmp", "wb") as f:
        g.run(f)
    os.replace(out + ".tmp", out)
    d = g.dig
    manifest = {"params": params, "pcap_bytes": os.path.getsize(out), "packets": g.packets,
                "octets": g.octets, "l2_octets": g.l2, "flows": g.flows, "kinds": g.kinds,
                "directions": d.count, "digest": d.sum,
                "directions_by_reason": {str(k): v for k, v in sorted(d.reasons.items())},
                "first_us": g.t0, "end_us": g.end_us, "batch": BATCH,
                "batch_span_us": g.batch_span, "buckets": d.buckets,
                "long_flows": g.long, "sample": d.sample}
    with open(man + ".tmp", "w") as f:
        json.dump(manifest, f)
    os.replace(man + ".tmp", man)
    print("make_flows.py: %s: %d packets, %d flows (%s), %d flow directions, %d bytes" %
          (out, g.packets, g.flows, ", ".join("%s %d" % kv for kv in sorted(g.kinds.items())),
           d.count, manifest["pcap_bytes"]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""gpudp-fwd end to end on net_pcap, and its option errors.

  fwd_pcap.py gen OUT.pcap                  write the input capture
  fwd_pcap.py expect KERNEL IN.pcap OUT.pcap  expected output of a kernel
  fwd_pcap.py run FWD KERNEL MODE BURST DIR [extra app options]
        generate the input, run gpudp-fwd on net_pcap (rx_pcap -> tx_pcap,
        --pairing same), compare the output with the expected capture
        packet by packet
  fwd_pcap.py badopts FWD                   every bad option exits 2 with a
                                            message naming option and value
  fwd_pcap.py over64k FWD DIR               a record over 65535 bytes, which
                                            DPDK 22.11's net_pcap delivers cut,
                                            is dropped and counted (pmd_cut)
  fwd_pcap.py telemetry FWD                 the telemetry commands answer while
                                            it runs; SIGINT prints the final
                                            counters and exits 0

The expected output is computed here, independently of the C code: the
IPv4 checksum is recomputed in full (the app updates it incrementally,
RFC 1624), and the packets the kernel must drop are left out.
"""
import json
import os
import re
import struct
import subprocess
import sys

LINKTYPE_ETHERNET = 1


def write_pcap(path, frames, snap=65535):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, snap, LINKTYPE_ETHERNET))
        for i, fr in enumerate(frames):
            f.write(struct.pack("<IIII", 1700000000 + i, 0, len(fr), len(fr)))
            f.write(fr)


def read_pcap(path, with_len=False):
    with open(path, "rb") as f:
        data = f.read()
    magic = struct.unpack("<I", data[:4])[0]
    if magic not in (0xa1b2c3d4, 0xa1b23c4d):
        sys.exit("%s: not a little-endian pcap file" % path)
    off, frames = 24, []
    while off + 16 <= len(data):
        _, _, incl, orig = struct.unpack("<IIII", data[off:off + 16])
        frames.append(data[off + 16:off + 16 + incl])
        if with_len:
            frames[-1] = (frames[-1], orig)
        off += 16 + incl
    return frames


def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def ipv4(ttl=64, proto=17, payload=b"", ihl=5, bad_csum=False, total=None, ver=4):
    opts = bytes(range(4 * (ihl - 5))) if ihl > 5 else b""
    tl = total if total is not None else 4 * max(ihl, 5) + len(payload)
    h = struct.pack("!BBHHHBBH4s4s", (ver << 4) | ihl, 0, tl, 0x1234, 0, ttl, proto, 0,
                    bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2])) + opts
    c = csum(h)
    if bad_csum:
        c ^= 0x5a5a
    return h[:10] + struct.pack("!H", c) + h[12:] + payload


def eth(payload, et=0x0800, vlans=()):
    tags = b"".join(struct.pack("!HH", tpid, vid) for tpid, vid in vlans)
    return (bytes([0x02, 0, 0, 0, 0, 0x01]) + bytes([0x02, 0, 0, 0, 0, 0x02]) + tags +
            struct.pack("!H", et) + payload)


def frames():
    """A mix every kernel path sees: valid, each drop reason, sizes 10..1514."""
    out = []
    for i in range(240):
        udp = struct.pack("!HHHH", 1000 + i, 2000, 8 + i % 200, 0) + bytes(
            (i * 7 + k) & 0xff for k in range(i % 200))
        k = i % 12
        if k == 0:
            out.append(eth(ipv4(ttl=1 + i % 200, payload=udp)))
        elif k == 1:
            out.append(eth(ipv4(ttl=64, payload=udp), vlans=[(0x8100, 100 + i)]))
        elif k == 2:
            out.append(eth(ipv4(ttl=2, payload=udp), vlans=[(0x88a8, 10), (0x8100, 20)]))
        elif k == 3:
            out.append(eth(ipv4(ttl=1, payload=udp)))            # ttl expires
        elif k == 4:
            out.append(eth(ipv4(ttl=0, payload=udp)))            # ttl 0
        elif k == 5:
            out.append(eth(ipv4(payload=udp, bad_csum=True)))   # checksum
        elif k == 6:
            out.append(eth(b"\x60" + bytes(39 + len(udp)), et=0x86dd))  # IPv6
        elif k == 7:
            out.append(eth(bytes(28), et=0x0806))                # ARP
        elif k == 8:
            out.append(eth(ipv4(payload=udp, total=1400)))       # total > frame
        elif k == 9:
            out.append(eth(ipv4(payload=udp, ihl=7, ttl=255)))   # options
        elif k == 10:
            out.append(eth(ipv4(payload=udp, ver=5)))             # bad version
        else:
            out.append(bytes(range(10 + i % 4)))                  # runt frame
    out.append(eth(ipv4(ttl=128, payload=bytes(1472))))           # 1514 bytes
    return out


def parse_l3(f):
    off, et = 14, struct.unpack("!H", f[12:14])[0] if len(f) >= 14 else 0
    while et in (0x8100, 0x88a8, 0x9100) and len(f) >= off + 4:
        et = struct.unpack("!H", f[off + 2:off + 4])[0]
        off += 4
    return et, off


def expect_ipv4(f):
    if len(f) < 14:
        return None
    et, off = parse_l3(f)
    if et != 0x0800 or len(f) < off + 20:
        return None
    h = f[off:]
    ihl = (h[0] & 15) * 4
    if h[0] >> 4 != 4 or ihl < 20 or len(h) < ihl:
        return None
    tl = struct.unpack("!H", h[2:4])[0]
    if tl < ihl or off + tl > len(f) or csum(bytes(h[:ihl])) != 0 or h[8] <= 1:
        return None
    hdr = bytearray(h[:ihl])
    hdr[8] -= 1
    hdr[10:12] = b"\0\0"
    hdr[10:12] = struct.pack("!H", csum(bytes(hdr)))
    return f[:off] + bytes(hdr) + f[off + ihl:]


def expect(kernel, fr):
    out = []
    for f in fr:
        if kernel == "none":
            out.append(f)
        elif kernel in ("macswap", "load"):
            if len(f) >= 14:
                out.append(f[6:12] + f[0:6] + f[12:])
        elif kernel == "ipv4":
            e = expect_ipv4(f)
            if e is not None:
                out.append(e)
    return out


def run(fwd, kernel, mode, burst, d, extra):
    os.makedirs(d, exist_ok=True)
    tag = "%s-%s-%s" % (kernel, mode, burst)
    inp, outp = os.path.join(d, "in.pcap"), os.path.join(d, "out-%s.pcap" % tag)
    fr = frames()
    write_pcap(inp, fr)
    if os.path.exists(outp):
        os.unlink(outp)
    cmd = [fwd, "--no-huge", "-m", "256", "--no-pci", "--no-telemetry",
           "--file-prefix", "fwdpcap-%d" % os.getpid(), "--lcores", "(0-2)@0",
           "--vdev", "net_pcap0,rx_pcap=%s,tx_pcap=%s" % (inp, outp), "--",
           "--pairing", "same", "--mode", mode, "--kernel", kernel,
           "--burst", str(burst), "--count", str(len(fr)), "--duration", "30",
           "--ring", "8", "--flush-us", "100", "--stats", "0", "--mbufs", "16384",
           "--json", os.path.join(d, "report-%s.json" % tag)] + extra
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    print(r.stdout, end="")
    if r.returncode != 0:
        print(r.stderr, end="")
        sys.exit("FAIL %s: gpudp-fwd exited %d" % (tag, r.returncode))
    got = read_pcap(outp)
    want = expect("none" if mode == "none" else kernel, fr)
    bad = 0
    if len(got) != len(want):
        print("FAIL %s: %d packets out, expected %d" % (tag, len(got), len(want)))
        bad += 1
    for i, (g, w) in enumerate(zip(got, want)):
        if g != w:
            print("FAIL %s: packet %d differs (%d vs %d bytes): got %s want %s"
                  % (tag, i, len(g), len(w), g[:48].hex(), w[:48].hex()))
            bad += 1
            if bad > 5:
                break
    # the final counters: every frame received and sent, bytes exact (the
    # io loop of none mode counts them from the port's statistics)
    m = re.search(r"final: \S+ s rx (\d+) pkts (\d+) bytes tx (\d+) pkts (\d+) bytes",
                  r.stdout)
    cnt = tuple(int(x) for x in m.groups()) if m else None
    want_cnt = (len(fr), sum(len(f) for f in fr), len(want), sum(len(w) for w in want))
    if cnt != want_cnt:
        print("FAIL %s: final counters rx/tx packets, bytes %s, expected %s"
              % (tag, cnt, want_cnt))
        bad += 1
    # the port's own counters (--json "ports", the "final port" line): every
    # frame received and sent by the PMD, none lost
    with open(os.path.join(d, "report-%s.json" % tag)) as f:
        rep = json.load(f)
    ports = rep.get("ports", [])
    port_cnt = (len(ports), ports[0]["rx_pkts"], ports[0]["tx_pkts"], ports[0]["drops"],
                rep.get("port_drops")) if ports else None
    if port_cnt != (1, len(fr), len(want), 0, 0):
        print("FAIL %s: port counters (ports, rx, tx, drops, port_drops) %s, expected %s"
              % (tag, port_cnt, (1, len(fr), len(want), 0, 0)))
        bad += 1
    line = "final port 0 (net_pcap): rx %d pkts %d bytes tx %d pkts" % (
        len(fr), sum(len(f) for f in fr), len(want))
    if line not in r.stdout:
        print("FAIL %s: no %r line" % (tag, line))
        bad += 1
    if bad:
        sys.exit(1)
    print("ok %s: %d in, %d out, every packet as expected, counters %s, port counters %s"
          % (tag, len(fr), len(got), cnt, port_cnt))


# (arguments after --, text stderr must contain)
BAD = [
    (["--burst", "0"], "--burst: bad value '0'"),
    (["--burst", "4097"], "--burst: bad value '4097'"),
    (["--burst", "12x"], "--burst: bad value '12x'"),
    (["--ring", "48"], "--ring: bad value '48'"),
    (["--ring", "1"], "--ring: bad value '1'"),
    (["--mode", "warp"], "--mode: bad value 'warp'"),
    (["--kernel", "aes"], "--kernel: bad value 'aes'"),
    (["--mem", "hbm"], "--mem: bad value 'hbm'"),
    (["--mode", "cpu", "--mem", "split"], "--mem: 'split' does not work with --mode cpu"),
    (["--pin", "magic"], "--pin: bad value 'magic'"),
    (["--flush-us", "-1"], "--flush-us: bad value '-1'"),
    (["--threads", "100"], "--threads: bad value '100'"),
    (["--queues", "0"], "--queues: bad value '0'"),
    (["--ports", "0,x"], "--ports: bad value '0,x'"),
    (["--ports", "0,0"], "--ports: bad value '0,0' (port 0 given twice)"),
    (["--burst", " 5"], "--burst: bad value ' 5'"),
    (["--burst", "+5"], "--burst: bad value '+5'"),
    (["--stats", " 1"], "--stats: bad value ' 1'"),
    (["--json", ""], "--json: bad value '' (expected a file name)"),
    (["--json", "/nonexistent-gpudp-dir/f.json"],
     "--json: bad value '/nonexistent-gpudp-dir/f.json' (cannot create a file"),
    (["--stats", "fast"], "--stats: bad value 'fast'"),
    (["--duration", "-3"], "--duration: bad value '-3'"),
    (["--ring-full", "maybe"], "--ring-full: bad value 'maybe'"),
    (["--pairing", "cross"], "--pairing: bad value 'cross'"),
    (["--pipeline-lcores", "3"], "--pipeline-lcores: bad value '3'"),
    (["--graph-batch", "3", "--ring", "64"], "--graph-batch: 3 does not divide --ring 64"),
    (["--persistent-blocks", "16", "--ring", "8"], "--persistent-blocks: 16 is more than --ring 8"),
    (["--persistent-blocks", "most"], "--persistent-blocks: bad value 'most' (expected an integer 1..65536, or max)"),
    (["--gpu-poll-ns", "100001"], "--gpu-poll-ns: bad value '100001'"),
    (["--gpu-poll-ns", "-5"], "--gpu-poll-ns: bad value '-5'"),
    (["--gpu-pollers", "9"], "--gpu-pollers: bad value '9'"),
    (["--gpu-pollers", "0"], "--gpu-pollers: bad value '0'"),
    (["--gpu-pollers", "4", "--threads", "64"],
     "--gpu-pollers: 4 is more than the 2 warps of a block of --threads 64"),
    (["--mode", "launch", "--mem", "host"], "--mem: 'host' does not work with --mode launch"),
    (["--mode", "cpu", "--mem", "device"], "--mem: 'device' does not work with --mode cpu"),
    # --data-room is the packet data (the mbuf's headroom comes on top)
    (["--data-room", "65408"], "--data-room: bad value '65408' (expected an integer 256..65407)"),
    (["--data-room", "255"], "--data-room: bad value '255' (expected an integer 256..65407)"),
    # the pool against the ring and the bursts
    (["--ring", "65536", "--burst", "4096"], "--ring: 65536 x --burst 4096 = 268435456 "
     "packets in flight per pipeline, more than the largest pool holds (--mbufs at most "
     "16777216): lower --ring or --burst"),
    (["--mbufs", "1024", "--burst", "4096", "--ring", "65536"], "--ring: 65536 x --burst "
     "4096 = 268435456 packets in flight per pipeline"),
    (["--mbufs", "1024", "--burst", "4096"], "--mbufs: bad value '1024' (fewer than one "
     "--burst of 4096 packets: no burst could ever fill)"),
    (["--ring", "4096", "--burst", "4096"], "--ring 4096 x --burst 4096: the default pool "
     "(ring * burst + rxd + 2 * txd + 2048) would be 16782336 mbufs per pipeline, more than "
     "a pool may have (16777216)"),
    (["--frobnicate"], "unknown option '--frobnicate'"),
    (["--ring"], "--ring: missing value"),
    (["stray"], "unexpected argument 'stray'"),
    # --metrics: an address, no name resolved; the linger's range
    (["--metrics", "host:9100"], "--metrics: bad value 'host:9100' (not an IPv4 address"),
    (["--metrics", "[::1]"], "--metrics: bad value '[::1]' (expected [IPV6]:PORT)"),
    (["--metrics-linger", "-1"], "--metrics-linger: bad value '-1'"),
]


def mem_total():
    with open("/proc/meminfo") as f:
        for ln in f:
            if ln.startswith("MemTotal:"):
                return int(ln.split()[1]) * 1024
    return 0


def badopts(fwd):
    fails = 0
    bad = list(BAD)
    # a pool larger than the machine (1.1 TB: every machine this runs on)
    if mem_total() < 1000e9:
        bad.append((["--mbufs", "16777216", "--data-room", "65407"], "--mbufs 16777216 x "
                    "--data-room 65407: 1 pool of about 1102.7 GB, more than this machine's"))
    for args, msg in bad:
        r = subprocess.run([fwd, "--no-huge", "--no-pci", "--"] + args,
                           capture_output=True, text=True, timeout=30)
        if r.returncode != 2 or msg not in r.stderr:
            print("FAIL %s: exit %d, stderr %r (want exit 2 and %r)"
                  % (" ".join(args), r.returncode, r.stderr.strip(), msg))
            fails += 1
        else:
            print("ok   %s -> %s" % (" ".join(args), r.stderr.strip().splitlines()[0]))
    # EAL-time errors name the option too
    r = subprocess.run([fwd, "--no-huge", "-m", "64", "--no-pci", "--no-telemetry",
                        "--file-prefix", "fwdbad-%d" % os.getpid(),
                        "--vdev", "net_null0", "--", "--ports", "7"],
                       capture_output=True, text=True, timeout=30)
    if r.returncode != 2 or "--ports: bad value '7'" not in r.stderr:
        print("FAIL --ports 7: exit %d, stderr %r" % (r.returncode, r.stderr.strip()[-200:]))
        fails += 1
    else:
        print("ok   --ports 7 (no such port) -> exit 2")
    # a pool smaller than the ring and the queues hold: a warning with the
    # numbers, and the run goes on (here to the --ports error)
    r = subprocess.run([fwd, "--no-huge", "-m", "64", "--no-pci", "--no-telemetry",
                        "--file-prefix", "fwdbad-%d" % os.getpid(),
                        "--vdev", "net_null0", "--", "--mbufs", "2048", "--ports", "7"],
                       capture_output=True, text=True, timeout=30)
    want = ("warning: --mbufs 2048 is fewer than the ring and the queues can hold (--ring 64 "
            "x --burst 64 + --rxd 1024 + 2 x --txd 1024 = 7168)")
    if r.returncode != 2 or want not in r.stderr or "--ports: bad value '7'" not in r.stderr:
        print("FAIL --mbufs 2048: exit %d, stderr %r" % (r.returncode, r.stderr.strip()[-300:]))
        fails += 1
    else:
        print("ok   --mbufs 2048 -> %s" % want)
    # a pool EAL's memory cannot hold: exit 1, its size and what to change
    r = subprocess.run([fwd, "--no-huge", "-m", "512", "--no-pci", "--no-telemetry",
                        "--file-prefix", "fwdbad-%d" % os.getpid(), "--lcores", "(0-4)@0",
                        "--vdev", "net_null0", "--vdev", "net_null1", "--",
                        "--data-room", "65407"], capture_output=True, text=True, timeout=60)
    want = ("pool for port 0 queue 0 (host memory): Cannot allocate memory (9216 mbufs of "
            "65407 bytes of data, about 605.7 MB; the default --mbufs is ring * burst + rxd + "
            "2 * txd + 2048): fewer --mbufs, a smaller --data-room, or more memory for EAL")
    if r.returncode != 1 or want not in r.stderr:
        print("FAIL --data-room 65407 in 512 MB: exit %d, stderr %r"
              % (r.returncode, r.stderr.strip()[-400:]))
        fails += 1
    else:
        print("ok   --data-room 65407 in 512 MB -> exit 1, %s" % want)
    # --check reports every finding and a total, exit 0 (none failed) or 1
    r = subprocess.run([fwd, "--no-huge", "-m", "64", "--no-pci", "--no-telemetry",
                        "--file-prefix", "fwdchk-%d" % os.getpid(), "--vdev", "net_null0",
                        "--", "--check", "--mem", "device"],
                       capture_output=True, text=True, timeout=60)
    if r.returncode not in (0, 1) or "failed checks" not in r.stdout or (
            r.returncode == 1) != ("FAIL" in r.stdout):
        print("FAIL --check: exit %d, stdout %r" % (r.returncode, r.stdout[-300:]))
        fails += 1
    else:
        print("ok   --check -> exit %d, %s" % (r.returncode, r.stdout.strip().splitlines()[-1]))
    r = subprocess.run([fwd, "--", "--help"], capture_output=True, text=True, timeout=30)
    for opt in ("--ports", "--queues", "--pipeline-lcores", "--gpu", "--mem", "--pin",
                "--mode", "--kernel", "--burst", "--flush-us", "--ring", "--stats",
                "--check", "--duration", "--json"):
        if opt not in r.stdout:
            print("FAIL --help does not list %s" % opt)
            fails += 1
    if "--data-room N         bytes of packet data per mbuf, the 128-byte headroom not" \
            not in r.stdout:
        print("FAIL --help does not say what --data-room counts")
        fails += 1
    if r.returncode != 0 or r.stdout.count("(default:") < 20:
        print("FAIL --help: exit %d, %d defaults listed" % (r.returncode,
                                                           r.stdout.count("(default:")))
        fails += 1
    extra, f2 = eal_failures(fwd)
    fails += f2
    print("%d passed, %d failed, 0 skipped" % (len(bad) + 5 + extra - fails, fails))
    sys.exit(1 if fails else 0)


def hugepage_state():
    """(pages reserved, sizes in kB that have pages but no hugetlbfs mount)"""
    base = "/sys/kernel/mm/hugepages"
    sizes = {}
    for d in os.listdir(base) if os.path.isdir(base) else []:
        with open(os.path.join(base, d, "nr_hugepages")) as f:
            sizes[int(d[len("hugepages-"):-2])] = int(f.read())
    dflt = 2048
    for ln in open("/proc/meminfo"):
        if ln.startswith("Hugepagesize:"):
            dflt = int(ln.split()[1])
    mounted = set()
    for ln in open("/proc/mounts"):
        f = ln.split()
        if f[2] == "hugetlbfs":
            ps = [o[9:] for o in f[3].split(",") if o.startswith("pagesize=")]
            v = dflt
            if ps:
                v = int(ps[0][:-1]) << {"K": 0, "M": 10, "G": 20}[ps[0][-1]]
            mounted.add(v)
    return sum(sizes.values()), [kb for kb, n in sizes.items() if n and kb not in mounted]


def eal_failures(fwd):
    """EAL failures give their reason: another primary process with the same
    --file-prefix, hugepages not set up. @return (checks run, failed)"""
    import signal
    import time
    run, fails = 0, 0
    prefix = "fwdtwice-%d" % os.getpid()
    base = "/var/run" if os.getuid() == 0 else os.environ.get("XDG_RUNTIME_DIR", "/tmp")
    cfg = os.path.join(base, "dpdk", prefix, "config")
    cmd = [fwd, "--no-huge", "-m", "64", "--no-pci", "--no-telemetry", "--file-prefix", prefix,
           "--lcores", "(0-1)@0", "--vdev", "net_null0", "--", "--pairing", "same",
           "--pipeline-lcores", "1", "--stats", "0", "--duration", "30"]
    first = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        for _ in range(100):
            if os.path.exists(cfg):
                break
            time.sleep(0.1)
        time.sleep(0.5)
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
    finally:
        first.send_signal(signal.SIGINT)
        first.communicate(timeout=30)
    run += 1
    want = "EAL initialisation failed: another DPDK primary process (pid %d)" % first.pid
    if r.returncode != 1 or want not in r.stderr or "--file-prefix" not in r.stderr:
        print("FAIL second primary: exit %d, %r (want %r)" % (r.returncode, r.stderr[-300:], want))
        fails += 1
    else:
        print("ok   second primary process -> %s" % r.stderr.strip().splitlines()[-1])
    reserved, unmounted = hugepage_state()
    if reserved == 0:
        want = "no hugepages are reserved"
    elif unmounted:
        want = "hugepages of %d kB are reserved but no hugetlbfs is mounted" % unmounted[0]
    else:
        print("note hugepages are reserved and mounted here: no hugepage error to check")
        return run, fails
    r = subprocess.run([fwd, "-m", "64", "--no-pci", "--no-telemetry", "--file-prefix",
                        prefix + "h", "--vdev", "net_null0", "--", "--duration", "0.1"],
                       capture_output=True, text=True, timeout=30)
    run += 1
    if r.returncode != 1 or want not in r.stderr or "--no-huge" not in r.stderr:
        print("FAIL hugepages: exit %d, %r (want %r)" % (r.returncode, r.stderr[-300:], want))
        fails += 1
    else:
        print("ok   hugepages not set up -> %s" % r.stderr.strip().splitlines()[-1])
    return run, fails


def over_64k(fwd, d):
    """Records over 65535 bytes: DPDK 22.11's net_pcap keeps their length
    modulo 65536 in the mbufs yet sets pkt_len to the whole length, and its
    tx reads pkt_len bytes. gpudp-fwd must drop such a frame (pmd_cut) and
    forward the others, in a mode without descriptors (none) and with
    (cpu, macswap)."""
    os.makedirs(d, exist_ok=True)
    arp = eth(bytes([0xA5]) * (65000 - 14), et=0x0806)
    big = eth(ipv4(payload=bytes((i * 7 + 3) & 0xFF for i in range(70000 - 34)), total=0xFFFF))
    small = eth(ipv4(payload=bytes(26)))
    inp = os.path.join(d, "over64k.pcap")
    write_pcap(inp, [arp, big, small], snap=262144)
    fails = 0
    for mode, kernel in (("none", "macswap"), ("cpu", "macswap")):
        outp = os.path.join(d, "over64k-out-%s.pcap" % mode)
        if os.path.exists(outp):
            os.unlink(outp)
        cmd = [fwd, "--no-huge", "-m", "256", "--no-pci", "--no-telemetry",
               "--file-prefix", "fwd64k-%d" % os.getpid(), "--lcores", "(0-2)@0",
               "--vdev", "net_pcap0,rx_pcap=%s,tx_pcap=%s" % (inp, outp), "--",
               "--pairing", "same", "--mode", mode, "--kernel", kernel, "--stats", "0",
               "--duration", "2", "--count", "3", "--ring", "8", "--flush-us", "100"]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        got = read_pcap(outp, with_len=True) if os.path.exists(outp) else []
        final = [ln for ln in r.stdout.splitlines() if ln.startswith("final:")]
        a2 = arp if mode == "none" else arp[6:12] + arp[0:6] + arp[12:]
        s2 = small if mode == "none" else small[6:12] + small[0:6] + small[12:]
        why = []
        if r.returncode != 0 or "runtime error" in r.stderr or "Sanitizer" in r.stderr:
            why.append("exit %d: %s" % (r.returncode, r.stderr[-300:]))
        if not final or " pmd_cut=1 " not in final[0] or " rx 3 pkts " not in final[0] or \
                " tx 2 pkts " not in final[0]:
            why.append("final line %r" % final)
        # net_pcap's tx writes at most 16128 bytes of a chained frame
        if len(got) != 2 or got[0][1] != 65000 or got[0][0] != a2[:len(got[0][0])] or \
                len(got[0][0]) < 1000 or got[1] != (s2, len(s2)):
            why.append("output %r" % [(len(g), n) for g, n in got])
        if why:
            fails += 1
            print("FAIL over_64k %s: %s" % (mode, "; ".join(why)))
        else:
            print("ok   over_64k %s: the 70000-byte record dropped as pmd_cut, the rest "
                  "forwarded" % mode)
    print("%d passed, %d failed, 0 skipped" % (2 - fails, fails))
    sys.exit(1 if fails else 0)


def telemetry(fwd):
    import json
    import signal
    import socket
    import time
    prefix = "fwdtel-%d" % os.getpid()
    # EAL's runtime directory: /var/run for root, else $XDG_RUNTIME_DIR or /tmp
    base = "/var/run" if os.getuid() == 0 else os.environ.get("XDG_RUNTIME_DIR", "/tmp")
    sock_dir = os.path.join(base, "dpdk", prefix)
    import shutil
    shutil.rmtree(sock_dir, ignore_errors=True)   # a stale one of a recycled pid
    p = subprocess.Popen([fwd, "--no-huge", "-m", "256", "--no-pci", "--file-prefix", prefix,
                          "--lcores", "(0-1)@0", "--vdev", "net_null0", "--",
                          "--pipeline-lcores", "1", "--pairing", "same", "--stats", "0.5"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    fails = 0
    try:
        path = os.path.join(sock_dir, "dpdk_telemetry.v2")
        for _ in range(100):
            if os.path.exists(path):
                break
            time.sleep(0.1)
        def query(cmd):
            # one connection per query, always closed: EAL serves few clients
            with socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as s:
                s.connect(path)
                json.loads(s.recv(4096).decode())          # greeting
                s.send(cmd.encode())
                return json.loads(s.recv(65536).decode())[cmd]
        # forwarding has started (setup may be slow, e.g. under ASan), then
        # at least two stats periods pass
        for _ in range(200):
            try:    # the command is registered a little after the socket
                r = query("/gpudp/fwd/stats")
            except (ValueError, KeyError, OSError):
                r = None
            if r and r.get("tx_pkts", 0) > 0:
                break
            time.sleep(0.1)
        time.sleep(1.3)
        try:
            answers = {c: query(c) for c in ("/gpudp/fwd/stats", "/gpudp/fwd/latency",
                                             "/gpudp/fwd/config", "/gpudp/fwd/ports")}
        except (ValueError, KeyError, OSError) as e:
            p.send_signal(signal.SIGINT)
            out, err = p.communicate(timeout=30)
            print("FAIL telemetry query: %s (exit %s)\n%s%s" % (e, p.returncode, out[-1500:],
                                                               err[-1500:]))
            sys.exit(1)
        st, lat, cf = (answers["/gpudp/fwd/stats"], answers["/gpudp/fwd/latency"],
                       answers["/gpudp/fwd/config"])
        checks = [
            (st.get("tx_pkts", 0) > 0, "stats: tx_pkts %r" % st.get("tx_pkts")),
            (all(k in st for k in ("rx_pkts", "ring_full", "tx_full", "ttl", "bad_csum",
                                   "ring_in_flight", "ring_slots")), "stats keys %r" % sorted(st)),
            (lat.get("rx_to_tx_count", 0) > 0 and "rx_to_kernel_start_p999_ns" in lat,
             "latency %r" % lat),
            (cf.get("mode") == "cpu" and cf.get("work") == "macswap", "config %r" % cf),
            (answers["/gpudp/fwd/ports"].get("port0", {}).get("rx_pkts", 0) > 0 and
             all(k in answers["/gpudp/fwd/ports"]["port0"] for k in (
                 "driver", "tx_pkts", "imissed", "ierrors", "oerrors", "rx_nombuf", "drops")),
             "ports %r" % answers["/gpudp/fwd/ports"]),
        ]
        for ok, what in checks:
            print("%s %s" % ("ok  " if ok else "FAIL", what[:160]))
            fails += not ok
    finally:
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=30)
    periodic = [l for l in out.splitlines() if l.startswith("[")]
    final = [l for l in out.splitlines() if l.startswith("final:")]
    port_lines = [l for l in out.splitlines() if l.startswith("  port 0 (net_null): rx ")]
    for ok, what in ((p.returncode == 0, "SIGINT: exit %d" % p.returncode),
                     (len(port_lines) >= 2 and " imissed 0 " in port_lines[0],
                      "periodic port lines %d" % len(port_lines)),
                     (len(final) == 1 and "tx " in final[0], "SIGINT: final counters %r" % final),
                     (len(periodic) >= 2 and "Mpps" in periodic[0] and "ring " in periodic[0]
                      and "p999" in periodic[0], "periodic stats lines %d" % len(periodic))):
        print("%s %s" % ("ok  " if ok else "FAIL", what[:160]))
        fails += not ok
    if fails:
        print(err[-2000:])
    print("%d passed, %d failed, 0 skipped" % (9 - fails, fails))
    sys.exit(1 if fails else 0)


def main():
    a = sys.argv[1:]
    if not a:
        sys.exit(__doc__)
    if a[0] == "gen":
        write_pcap(a[1], frames())
    elif a[0] == "expect":
        write_pcap(a[3], expect(a[1], read_pcap(a[2])))
    elif a[0] == "run":
        run(a[1], a[2], a[3], int(a[4]), a[5], a[6:])
    elif a[0] == "badopts":
        badopts(a[1])
    elif a[0] == "telemetry":
        telemetry(a[1])
    elif a[0] == "over64k":
        over_64k(a[1], a[2])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()

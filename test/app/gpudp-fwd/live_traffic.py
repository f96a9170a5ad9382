#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Real traffic through gpudp-fwd and into gpudp-capture, between network
namespaces made for the test (doc/fwd.md "Live interfaces").

usage:
  live_traffic.py test FWD CAPTURE DIR
      dpdk suite. Three namespaces: A (a0, 192.0.2.1), B (b0, 192.0.2.2)
      and F, which holds the veth peers a1 and b1. gpudp-fwd runs in F
      with its default options (--mode cpu, the macswap work) on
      net_af_packet ports on a1 and b1 and forwards between them:
      - SIGTERM: exit 0, the final counters and --json written;
      - pings both ways with no loss; a TCP transfer of 128 MiB from A to
        B whose sha256 matches at B; then SIGINT: exit 0, the final
        counters and --json;
      - the frames a0 and b0 sent (their kernel counters) equal what
        gpudp-fwd received plus the drops it reports for its ports (its
        "port_drops", the kernel's ring drops included), and per port;
        the frames a0 and b0 received equal what it transmitted;
      - after SIGKILL a restart with the same --file-prefix forwards again;
      - the same forwarding over net_tap ports (the PMD's tap interfaces
        moved into two more namespaces): pings, a 128 MiB TCP transfer,
        the taps' kernel counters against gpudp-fwd's;
      - gpudp-capture --cpu on an net_af_packet port on a1: its report's
        packets plus its port drops equal the frames a0
        sent, as tshark capturing on a0 counted them.
      Exit 77 (SKIP) when namespaces or veth pairs cannot be made (not
      root, no `ip netns`) or a tool is missing (ping, ethtool, tshark).
  live_traffic.py pmds FWD DIR
      dpdk suite, no root needed: gpudp-fwd with its default options starts,
      forwards and ends with exit 0 on two ports of net_null, net_ring,
      net_pcap and net_memif (a server and a client on one socket) each
      (net_af_packet and net_tap are the test above).
  live_traffic.py bench FWD JSON [SECONDS]
      benchmark: iperf3 TCP throughput from A to B and back through
      gpudp-fwd (default options, net_af_packet), written to JSON; not
      asserted. Exit 77 as above, or without iperf3.

The namespaces are named after the process id and deleted when the test
ends, however it ends. The two ends have the same MAC address: the
default work swaps source and destination MAC, which leaves such frames
as they were, so the ends talk as if on one wire; each side's neighbour
entry is static, so no ARP is needed (ARP would be forwarded too).
"""
import hashlib
import json
import os
import random
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import time

FAILS = []
PASSED = [0]
PID = os.getpid()
MAC = "02:00:5e:00:53:01"  # both ends (the documentation range of RFC 7042)
A_IP, B_IP = "192.0.2.1", "192.0.2.2"
TA_IP, TB_IP = "198.51.100.1", "198.51.100.2"
TCP_BYTES = 128 << 20
PREFIXES = []  # EAL --file-prefix of every run, their runtime dirs removed at the end


def check(ok, what):
    print("%s %s" % ("ok  " if ok else "FAIL", what), flush=True)
    if ok:
        PASSED[0] += 1
    else:
        FAILS.append(what)
    return ok


def skip(why):
    print("SKIP: %s" % why)
    print("0 passed, 0 failed, 1 skipped")
    sys.exit(77)


def run(*cmd, ns=None, check_rc=True, timeout=30):
    argv = (["ip", "netns", "exec", ns] if ns else []) + [str(c) for c in cmd]
    r = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    if check_rc and r.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(argv), r.returncode,
                                                 r.stderr.strip()[-300:]))
    return r


class Net:
    """The namespaces and veth pairs of one test run, deleted by close()."""

    def __init__(self):
        t = "gl%d" % (PID % 100000)
        self.ns = {k: "%s%s" % (t, k) for k in ("A", "B", "F", "TA", "TB")}
        self.ifs = {k: "%s%s" % (t, k) for k in ("a0", "a1", "b0", "b1", "t0", "t1")}
        self.made = []

    def add_ns(self, k):
        run("ip", "netns", "add", self.ns[k])
        self.made.append(self.ns[k])
        # no IPv6: no router or neighbour solicitations, nothing the test
        # did not send itself
        run("sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1",
            "net.ipv6.conf.default.disable_ipv6=1", ns=self.ns[k])
        run("ip", "link", "set", "lo", "up", ns=self.ns[k])

    def host(self, k, ifname, ip, peer_ip):
        """interface @ifname in namespace @k as an end: the shared MAC, its
        address, a static neighbour for the peer, no offloads"""
        ns = self.ns[k]
        run("ip", "link", "set", ifname, "address", MAC, ns=ns)
        run("ip", "addr", "add", ip + "/24", "dev", ifname, ns=ns)
        run("ip", "link", "set", ifname, "up", ns=ns)
        run("ip", "neigh", "replace", peer_ip, "lladdr", MAC, "dev", ifname, "nud",
            "permanent", ns=ns)
        # a packet socket hands gpudp the skb the kernel has: with segmentation
        # or checksum offload on, a TCP segment would reach the far end as one
        # oversized frame or with a checksum never filled in
        run("ethtool", "-K", ifname, "tx", "off", "tso", "off", "gso", "off", "sg", "off",
            ns=ns, check_rc=False)

    def up(self):
        for k in ("A", "B", "F"):
            self.add_ns(k)
        i, n = self.ifs, self.ns
        run("ip", "link", "add", i["a0"], "netns", n["A"], "type", "veth", "peer", "name",
            i["a1"], "netns", n["F"])
        run("ip", "link", "add", i["b0"], "netns", n["B"], "type", "veth", "peer", "name",
            i["b1"], "netns", n["F"])
        self.host("A", i["a0"], A_IP, B_IP)
        self.host("B", i["b0"], B_IP, A_IP)
        for x in ("a1", "b1"):
            run("ip", "link", "set", i[x], "up", ns=n["F"])
            run("ethtool", "-K", i[x], "tx", "off", "tso", "off", "gso", "off", "sg", "off",
                ns=n["F"], check_rc=False)

    def close(self):
        for ns in reversed(self.made):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)
        self.made = []


def link_stats(ns, ifname):
    """the kernel's counters of @ifname: {'rx': {...}, 'tx': {...}}"""
    r = run("ip", "-j", "-s", "link", "show", "dev", ifname, ns=ns)
    return json.loads(r.stdout)[0]["stats64"]


def delta(after, before, d, key):
    return after[d][key] - before[d][key]


class App:
    """gpudp-fwd or gpudp-capture in a namespace, its output in a file."""

    def __init__(self, argv, ns, log, ready):
        self.log = log
        self.f = open(log, "w")
        self.p = subprocess.Popen(["ip", "netns", "exec", ns] + argv, stdout=self.f,
                                  stderr=subprocess.STDOUT, start_new_session=True)
        t0 = time.monotonic()
        while time.monotonic() - t0 < 30:
            if self.p.poll() is not None or ready in self.text():
                break
            time.sleep(0.1)
        self.started = self.p.poll() is None and ready in self.text()

    def text(self):
        with open(self.log, errors="replace") as f:
            return f.read()

    def stop(self, sig, timeout=20):
        """@sig, then the exit status (None if it did not end in time: then
        killed)"""
        if self.p.poll() is None:
            self.p.send_signal(sig)
        try:
            rc = self.p.wait(timeout)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
            rc = None
        self.f.close()
        return rc

    def kill(self):
        if self.p.poll() is None:
            self.p.kill()
            self.p.wait()
        if not self.f.closed:
            self.f.close()


def eal_lcores(n):
    """EAL --lcores: @n lcores over the CPUs this process may use"""
    cpus = sorted(os.sched_getaffinity(0))
    return ",".join("%d@%d" % (i, cpus[i % len(cpus)]) for i in range(n))


def fwd_argv(fwd, prefix, vdevs, json_path, eal_extra=(), app_extra=()):
    PREFIXES.append(prefix)
    argv = [fwd, "--no-huge", "-m", "512", "--no-pci", "--file-prefix", prefix,
            "--lcores", eal_lcores(5)] + list(eal_extra)
    for v in vdevs:
        argv += ["--vdev", v]
    # the defaults (--mode cpu, macswap, 2 lcores per pipeline, port 0 <->
    # port 1); --json for the counters, no periodic lines
    return argv + ["--", "--json", json_path, "--stats", "0"] + list(app_extra)


def ping(ns, dst, count=20):
    r = run("ping", "-c", count, "-i", "0.05", "-W", "3", "-q", dst, ns=ns, check_rc=False,
            timeout=60)
    m = re.search(r"(\d+) packets transmitted, (\d+) received", r.stdout)
    return (int(m.group(1)), int(m.group(2))) if m else (count, 0)


def tcp_transfer(net_src, net_dst, dst_ip, nbytes):
    """@nbytes over TCP from namespace @net_src to @dst_ip in @net_dst:
    (sender's report, receiver's report), each {bytes, sha256[, seconds]}"""
    me = os.path.abspath(__file__)
    rx = subprocess.Popen(["ip", "netns", "exec", net_dst, sys.executable, me, "_tcp_rx",
                           dst_ip, "5201", "60"], stdout=subprocess.PIPE, text=True)
    try:
        if rx.stdout.readline().strip() != "listening":
            return None, None
        tx = run(sys.executable, me, "_tcp_tx", dst_ip, "5201", nbytes, "60", ns=net_src,
                 check_rc=False, timeout=180)
        out, _ = rx.communicate(timeout=60)
    finally:
        if rx.poll() is None:
            rx.kill()
            rx.wait()
    try:
        return json.loads(tx.stdout), json.loads(out)
    except ValueError:
        print("transfer: sender %r %r, receiver %r" % (tx.stdout, tx.stderr[-300:], out))
        return None, None


def tcp_rx(ip, port, timeout):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((ip, int(port)))
    s.listen(1)
    s.settimeout(float(timeout))
    print("listening", flush=True)
    c, _ = s.accept()
    c.settimeout(float(timeout))
    h, n = hashlib.sha256(), 0
    while True:
        b = c.recv(1 << 20)
        if not b:
            break
        h.update(b)
        n += len(b)
    c.close()
    print(json.dumps({"bytes": n, "sha256": h.hexdigest()}), flush=True)


def tcp_tx(ip, port, total, timeout):
    total = int(total)
    blk = bytearray(random.Random(1).randbytes(1 << 20))
    s = socket.create_connection((ip, int(port)), timeout=float(timeout))
    h, n, i, t0 = hashlib.sha256(), 0, 0, time.monotonic()
    while n < total:
        blk[0:8] = i.to_bytes(8, "little")
        i += 1
        b = bytes(blk[:min(len(blk), total - n)])
        s.sendall(b)
        h.update(b)
        n += len(b)
    s.shutdown(socket.SHUT_WR)
    s.recv(1)  # the receiver's close: every byte arrived
    s.close()
    print(json.dumps({"bytes": n, "sha256": h.hexdigest(),
                      "seconds": round(time.monotonic() - t0, 3)}), flush=True)


def udp_tx(ip, count, rate):
    """@count UDP datagrams of 200 bytes to @ip port 9 at about @rate per second"""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    payload, t0 = bytes(200), time.monotonic()
    for i in range(int(count)):
        while i > (time.monotonic() - t0) * float(rate):
            time.sleep(0.001)
        try:
            s.sendto(payload, (ip, 9))
        except OSError:
            pass


def quiet(net, pairs, rounds=20):
    """wait until the kernel counters of @pairs [(ns, if)] stop moving"""
    last = None
    for _ in range(rounds):
        cur = [(link_stats(ns, i)["tx"]["packets"], link_stats(ns, i)["rx"]["packets"])
               for ns, i in pairs]
        if cur == last:
            return
        last = cur
        time.sleep(0.5)


def load_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def final_ok(app, rc, jpath, what):
    """exit 0, the final line, --json written"""
    j = load_json(jpath)
    check(rc == 0 and "final:" in app.text() and j is not None and "rx_pkts" in j,
          "%s: exit %s, final counters printed: %s, --json written: %s"
          % (what, rc, "final:" in app.text(), j is not None))
    return j


def port_drops(j):
    """gpudp's own drops of its ports, or None where its --json has none"""
    return j.get("port_drops") if j else None


def fwd_af_packet(fwd, net, d):
    n, i = net.ns, net.ifs
    prefix = "gplive%d" % PID
    vdevs = ["net_af_packet0,iface=%s" % i["a1"], "net_af_packet1,iface=%s" % i["b1"]]
    ends = [(n["A"], i["a0"]), (n["B"], i["b0"])]

    # a data room net_af_packet cannot take (it copies up to its framesz
    # less 32 bytes, 2016, into one mbuf): refused at its rx queue, and
    # gpudp-fwd says which option to raise
    jx = os.path.join(d, "fwd-small-room.json")
    r = subprocess.run(["ip", "netns", "exec", n["F"]] +
                       fwd_argv(fwd, prefix, vdevs, jx, app_extra=["--data-room", "1500"]),
                       capture_output=True, text=True, timeout=60)
    check(r.returncode == 1 and "rx queue 0 setup failed: Cannot allocate memory" in r.stderr
          and "than --data-room 1500 (net_af_packet: its framesz less 32, 2016 by default"
          in r.stderr and "raise --data-room" in r.stderr,
          "--data-room 1500 on net_af_packet: exit %d, the message names --data-room%s"
          % (r.returncode, "" if r.returncode == 1 else ": " + r.stderr[-400:]))

    # SIGTERM: pings, then the final counters
    j1 = os.path.join(d, "fwd-sigterm.json")
    app = App(fwd_argv(fwd, prefix, vdevs, j1), n["F"], os.path.join(d, "fwd-sigterm.log"),
              "pipelines, mode")
    check(app.started, "gpudp-fwd starts on net_af_packet with its default options "
          "(log %s)" % app.log)
    if not app.started:
        print(app.text()[-2000:])
        app.kill()
        return
    sent, got = ping(n["A"], B_IP, 5)
    check(sent == got, "ping A -> B before SIGTERM: %d sent, %d received" % (sent, got))
    final_ok(app, app.stop(signal.SIGTERM), j1, "SIGTERM")

    # SIGINT, with the traffic and the counters
    j2 = os.path.join(d, "fwd-sigint.json")
    before = {x: link_stats(ns, x) for ns, x in ends}
    app = App(fwd_argv(fwd, prefix, vdevs, j2), n["F"], os.path.join(d, "fwd-sigint.log"),
              "pipelines, mode")
    if not check(app.started, "gpudp-fwd starts again with the same --file-prefix"):
        app.kill()
        return
    for src, dst, what in ((n["A"], B_IP, "A -> B"), (n["B"], A_IP, "B -> A")):
        sent, got = ping(src, dst)
        check(sent == got and sent > 0, "ping %s through gpudp-fwd: %d sent, %d received "
              "(no loss)" % (what, sent, got))
    t0 = time.monotonic()
    snd, rcv = tcp_transfer(n["A"], n["B"], B_IP, TCP_BYTES)
    secs = time.monotonic() - t0
    check(snd is not None and rcv is not None and snd["bytes"] == TCP_BYTES and
          rcv["bytes"] == TCP_BYTES and snd["sha256"] == rcv["sha256"],
          "TCP A -> B, %d MiB through gpudp-fwd: sha256 at B %s the sender's (%s, %.1f MB/s)"
          % (TCP_BYTES >> 20, "equals" if snd and rcv and snd["sha256"] == rcv["sha256"]
             else "differs from", rcv and rcv["sha256"][:16], TCP_BYTES / 1e6 / secs))
    quiet(net, ends)
    j = final_ok(app, app.stop(signal.SIGINT), j2, "SIGINT")
    after = {x: link_stats(ns, x) for ns, x in ends}
    if j is None:
        return
    k_sent = sum(delta(after[x], before[x], "tx", "packets") for _, x in ends)
    k_recv = sum(delta(after[x], before[x], "rx", "packets") for _, x in ends)
    pd = port_drops(j)
    check(pd is not None and k_sent == j["rx_pkts"] + pd and k_sent > 0,
          "frames a0 and b0 sent, %d, = gpudp-fwd rx %d + its port_drops %s"
          % (k_sent, j["rx_pkts"], pd))
    drops = sum(j.get("drops", {}).values()) if isinstance(j.get("drops"), dict) else 0
    check(j["rx_pkts"] == j["tx_pkts"] + drops,
          "gpudp-fwd: rx %d = tx %d + its drops %d" % (j["rx_pkts"], j["tx_pkts"], drops))
    oerr = sum(p.get("oerrors", 0) for p in j.get("ports", []))
    check(k_recv == j["tx_pkts"] - oerr, "frames a0 and b0 received, %d, = gpudp-fwd tx %d "
          "- port oerrors %d" % (k_recv, j["tx_pkts"], oerr))
    ports = sorted(j.get("ports", []), key=lambda q: q["port"])
    check(len(ports) == 2, "--json has both ports' counters: %d" % len(ports))
    for p, (ns, x) in zip(ports, ends):
        sent = delta(after[x], before[x], "tx", "packets")
        dropped = p["imissed"] + p["ierrors"] + p["rx_nombuf"]
        check(sent == p["rx_pkts"] + dropped, "port %d (%s): %s sent %d = rx %d + "
              "drops %d" % (p["port"], p.get("driver"), x, sent, p["rx_pkts"], dropped))
    print("measured: %d frames sent by a0/b0, gpudp-fwd rx %d tx %d, its drops %d, port drops "
          "%s, TCP %.1f MB/s" % (k_sent, j["rx_pkts"], j["tx_pkts"], drops, pd,
                                 TCP_BYTES / 1e6 / secs))

    # SIGKILL, then at once the same --file-prefix again
    j3 = os.path.join(d, "fwd-restart.json")
    app = App(fwd_argv(fwd, prefix, vdevs, os.path.join(d, "fwd-killed.json")), n["F"],
              os.path.join(d, "fwd-killed.log"), "pipelines, mode")
    check(app.started, "gpudp-fwd starts before the SIGKILL")
    app.stop(signal.SIGKILL)
    app = App(fwd_argv(fwd, prefix, vdevs, j3), n["F"], os.path.join(d, "fwd-restart.log"),
              "pipelines, mode")
    check(app.started, "after SIGKILL, a restart with the same --file-prefix starts "
          "(log %s)" % app.log)
    if app.started:
        sent, got = ping(n["A"], B_IP, 10)
        check(sent == got, "ping A -> B through the restarted gpudp-fwd: %d sent, %d "
              "received" % (sent, got))
    final_ok(app, app.stop(signal.SIGINT), j3, "restarted, then SIGINT")


def fwd_tap(fwd, net, d):
    n, i = net.ns, net.ifs
    for k in ("TA", "TB"):
        net.add_ns(k)
    jp = os.path.join(d, "fwd-tap.json")
    vdevs = ["net_tap0,iface=%s" % i["t0"], "net_tap1,iface=%s" % i["t1"]]
    app = App(fwd_argv(fwd, "gptap%d" % PID, vdevs, jp), n["F"],
              os.path.join(d, "fwd-tap.log"), "pipelines, mode")
    if not check(app.started, "gpudp-fwd starts on net_tap with its default options"):
        print(app.text()[-2000:])
        app.kill()
        return
    try:
        # the PMD made the taps in F: each into a namespace of its own
        # (a move waits for the kernel's per-CPU work, which the busy lcores
        # may hold off for a while on a loaded machine)
        for t, k, ip, peer in (("t0", "TA", TA_IP, TB_IP), ("t1", "TB", TB_IP, TA_IP)):
            t0 = time.monotonic()
            run("ip", "link", "set", i[t], "netns", n[k], ns=n["F"], timeout=120)
            if time.monotonic() - t0 > 5:
                print("note: moving %s took %.1f s" % (i[t], time.monotonic() - t0))
            net.host(k, i[t], ip, peer)
        ends = [(n["TA"], i["t0"]), (n["TB"], i["t1"])]
        before = {x: link_stats(ns, x) for ns, x in ends}
        for src, dst, what in ((n["TA"], TB_IP, "A -> B"), (n["TB"], TA_IP, "B -> A")):
            sent, got = ping(src, dst)
            check(sent == got and sent > 0, "tap: ping %s: %d sent, %d received" %
                  (what, sent, got))
        t0 = time.monotonic()
        snd, rcv = tcp_transfer(n["TA"], n["TB"], TB_IP, TCP_BYTES)
        secs = time.monotonic() - t0
        check(snd is not None and rcv is not None and rcv["bytes"] == TCP_BYTES and
              snd["sha256"] == rcv["sha256"], "tap: TCP %d MiB, sha256 equal at the far "
              "end (%.1f MB/s)" % (TCP_BYTES >> 20, TCP_BYTES / 1e6 / secs))
        quiet(net, ends)
        # the taps go with gpudp-fwd: their counters first
        after = {x: link_stats(ns, x) for ns, x in ends}
    except (RuntimeError, subprocess.TimeoutExpired) as e:
        check(False, "tap: %s" % e)
        app.kill()
        return
    j = final_ok(app, app.stop(signal.SIGINT), jp, "tap: SIGINT")
    if j is None:
        return
    # a tap counts a frame it sent once the PMD read it (tx_packets); the
    # ones its queue had no room for are its tx_dropped
    k_sent = sum(delta(after[x], before[x], "tx", "packets") for _, x in ends)
    k_lost = sum(delta(after[x], before[x], "tx", "dropped") for _, x in ends)
    k_recv = sum(delta(after[x], before[x], "rx", "packets") for _, x in ends)
    pd = port_drops(j) or 0
    check(k_sent == j["rx_pkts"] + (pd if "ports" in j else 0),
          "tap: frames the taps handed to gpudp-fwd, %d (%d more dropped in their queues), "
          "= gpudp-fwd rx %d + port drops %d" % (k_sent, k_lost, j["rx_pkts"], pd))
    oerr = sum(p.get("oerrors", 0) for p in j.get("ports", []))
    check(k_recv == j["tx_pkts"] - oerr, "tap: frames the taps received, %d, = gpudp-fwd tx "
          "%d - oerrors %d" % (k_recv, j["tx_pkts"], oerr))
    print("measured: tap: %d frames in, %d dropped by the taps' queues, gpudp-fwd rx %d tx %d, "
          "TCP %.1f MB/s" % (k_sent, k_lost, j["rx_pkts"], j["tx_pkts"], TCP_BYTES / 1e6 / secs))


def read_pcap_count(path):
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 24:
        return None
    endian = "<" if data[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
    n, off = 0, 24
    while off + 16 <= len(data):
        caplen = struct.unpack(endian + "I", data[off + 8:off + 12])[0]
        off += 16 + caplen
        n += 1
    return n


def capture_af_packet(cap, net, d):
    n, i = net.ns, net.ifs
    count = 20000
    pcap = os.path.join(d, "tshark-a0.pcap")
    jp = os.path.join(d, "capture.json")
    for p in (pcap, jp):
        if os.path.exists(p):
            os.unlink(p)
    before = link_stats(n["A"], i["a0"])
    PREFIXES.append("gpcap%d" % PID)
    argv = [cap, "--no-huge", "-m", "512", "--no-pci", "--file-prefix", "gpcap%d" % PID,
            "--vdev", "net_af_packet0,iface=%s" % i["a1"], "--",
            "--cpu", "--json", jp, "--period", "0", "--quiet"]
    # the same meaning of --data-room, the same refusal as gpudp-fwd's
    r = subprocess.run(["ip", "netns", "exec", n["F"]] + argv + ["--data-room", "1500"],
                       capture_output=True, text=True, timeout=60)
    check(r.returncode == 1 and "than --data-room 1500 (net_af_packet: its framesz less 32"
          in r.stderr and "raise --data-room" in r.stderr,
          "gpudp-capture --data-room 1500 on net_af_packet: exit %d, the message names "
          "--data-room%s" % (r.returncode, "" if r.returncode == 1 else ": " + r.stderr[-400:]))
    app = App(argv, n["F"], os.path.join(d, "capture.log"), "live input: Ctrl-C stops")
    if not check(app.started, "gpudp-capture starts on net_af_packet (log %s)" % app.log):
        app.kill()
        return
    # tshark on the sending side, as a user would check what went out
    ts_log = os.path.join(d, "tshark.log")
    with open(ts_log, "w") as tl:
        ts = subprocess.Popen(["ip", "netns", "exec", n["A"], "tshark", "-i", i["a0"], "-F",
                               "pcap", "-w", pcap], stdout=tl, stderr=subprocess.STDOUT,
                              start_new_session=True)
        t0 = time.monotonic()
        while "Capturing on" not in open(ts_log).read() and time.monotonic() - t0 < 20:
            time.sleep(0.1)
        run(sys.executable, os.path.abspath(__file__), "_udp_tx", B_IP, count, 20000,
            ns=n["A"], timeout=60)
        quiet(net, [(n["A"], i["a0"])])
        time.sleep(0.5)
        ts.send_signal(signal.SIGINT)
        ts.wait(30)
    rc = app.stop(signal.SIGINT)
    after = link_stats(n["A"], i["a0"])
    j = load_json(jp)
    check(rc == 0 and j is not None, "gpudp-capture on net_af_packet: SIGINT, exit %s, report "
          "written %s (log %s)" % (rc, j is not None, app.log))
    tlog = open(ts_log).read()
    seen = read_pcap_count(pcap) if os.path.exists(pcap) else None
    ts_drop = re.search(r"(\d+) packets? dropped", tlog)
    sent = delta(after, before, "tx", "packets")
    check(seen == sent and not (ts_drop and int(ts_drop.group(1)) > 0),
          "tshark on a0 saw %s frames, a0 sent %d (tshark drops: %s)"
          % (seen, sent, ts_drop.group(1) if ts_drop else "none reported"))
    if j is None:
        return
    dropped = j.get("port_drops")
    check(seen is not None and dropped is not None and j["packets"] + dropped == seen and
          seen >= count, "gpudp-capture: packets %d + its port_drops %s = the %s frames "
          "tshark saw a0 send" % (j["packets"], dropped, seen))
    print("measured: capture: %d UDP frames sent, tshark %s, gpudp-capture %d + %d dropped"
          % (count, seen, j["packets"], dropped))


def runtime_dirs_remove():
    """EAL's runtime directory of each run (its --file-prefix)"""
    for p in set(PREFIXES):
        shutil.rmtree(os.path.join("/var/run/dpdk", p), ignore_errors=True)


def preflight():
    if os.geteuid() != 0:
        skip("needs root: network namespaces and veth pairs")
    for t in ("ip", "ping", "ethtool", "tshark"):
        if shutil.which(t) is None:
            skip("%s not found (config/packages/capture.txt lists its package)" % t)
    probe = "glprobe%d" % PID
    r = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True)
    if r.returncode != 0:
        skip("cannot make a network namespace: %s" % r.stderr.strip())
    r = subprocess.run(["ip", "-n", probe, "link", "add", "p0", "type", "veth", "peer",
                        "name", "p1"], capture_output=True, text=True)
    subprocess.run(["ip", "netns", "del", probe], capture_output=True)
    if r.returncode != 0:
        skip("cannot make a veth pair: %s" % r.stderr.strip())


def test(fwd, cap, d):
    preflight()
    os.makedirs(d, exist_ok=True)
    net = Net()
    t0 = time.monotonic()
    try:
        net.up()
        fwd_af_packet(fwd, net, d)
        capture_af_packet(cap, net, d)
        fwd_tap(fwd, net, d)
    except (RuntimeError, subprocess.TimeoutExpired, OSError) as e:
        check(False, "set-up or run: %s" % e)
    finally:
        net.close()
        runtime_dirs_remove()
    print("%d passed, %d failed, 0 skipped (%.0f s)" % (PASSED[0], len(FAILS),
                                                       time.monotonic() - t0))
    return 1 if FAILS else 0


def pmds(fwd, d):
    """the default options on every PMD the dpdk suite uses that needs no root"""
    os.makedirs(d, exist_ok=True)
    empty = os.path.join(d, "empty.pcap")
    with open(empty, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    sock = os.path.join(d, "memif-%d.sock" % PID)
    for name, vdevs in (
            ("net_null", ["net_null0", "net_null1"]),
            ("net_ring", ["net_ring0", "net_ring1"]),
            ("net_pcap", ["net_pcap%d,rx_pcap=%s,tx_pcap=%s" % (k, empty,
                                                                 os.path.join(d, "out%d.pcap" % k))
                          for k in (0, 1)]),
            ("net_memif", ["net_memif0,role=server,id=0,socket=%s" % sock,
                           "net_memif1,role=client,id=0,socket=%s" % sock])):
        jp = os.path.join(d, name + ".json")
        if os.path.exists(jp):
            os.unlink(jp)
        argv = fwd_argv(fwd, "gppmd%d" % PID, vdevs, jp, ["--no-shconf"], ["--duration", "1"])
        r = subprocess.run(argv, capture_output=True, text=True, timeout=60)
        j = load_json(jp)
        ok = r.returncode == 0 and "final:" in r.stdout and j is not None
        if name == "net_null":
            ok = ok and j["rx_pkts"] > 0 and j["tx_pkts"] == j["rx_pkts"]
        check(ok, "%s: the default options start, forward and end: exit %d%s%s" % (
            name, r.returncode, ", rx %d tx %d" % (j["rx_pkts"], j["tx_pkts"]) if j else "",
            "" if ok else ": " + r.stderr[-600:]))
    runtime_dirs_remove()
    print("%d passed, %d failed, 0 skipped" % (PASSED[0], len(FAILS)))
    return 1 if FAILS else 0


def bench(fwd, out, seconds="5"):
    preflight()
    if shutil.which("iperf3") is None:
        skip("iperf3 not found (config/packages/capture.txt lists it)")
    d = os.path.dirname(os.path.abspath(out))
    os.makedirs(d, exist_ok=True)
    net = Net()
    runs = []
    try:
        net.up()
        n, i = net.ns, net.ifs
        jp = os.path.join(d, "fwd-live-iperf3-fwd.json")
        app = App(fwd_argv(fwd, "gpbench%d" % PID, ["net_af_packet0,iface=%s" % i["a1"],
                                                    "net_af_packet1,iface=%s" % i["b1"]], jp),
                  n["F"], os.path.join(d, "fwd-live-iperf3.log"), "pipelines, mode")
        if not app.started:
            print(app.text()[-2000:])
            app.kill()
            return 1
        for rev in (False, True):
            srv = subprocess.Popen(["ip", "netns", "exec", n["B"], "iperf3", "-s", "-1", "-B",
                                    B_IP], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(0.5)
            r = run("iperf3", "-c", B_IP, "-t", seconds, "-J", *(["-R"] if rev else []),
                    ns=n["A"], check_rc=False, timeout=int(seconds) + 60)
            srv.wait(30)
            try:
                e = json.loads(r.stdout)["end"]
                runs.append({"direction": "B -> A" if rev else "A -> B", "seconds": int(seconds),
                             "sent_bits_per_s": e["sum_sent"]["bits_per_second"],
                             "received_bits_per_s": e["sum_received"]["bits_per_second"],
                             "retransmits": e["sum_sent"].get("retransmits")})
            except (ValueError, KeyError):
                runs.append({"direction": "B -> A" if rev else "A -> B", "error": r.stdout[-300:]})
            print(runs[-1])
        rc = app.stop(signal.SIGINT)
        j = load_json(jp) or {}
    finally:
        net.close()
        runtime_dirs_remove()
    with open(out, "w") as f:
        json.dump({"what": "iperf3 TCP throughput between two network namespaces through "
                   "gpudp-fwd (default options: --mode cpu, macswap, two lcores per pipeline) "
                   "on net_af_packet ports on veth pairs; not asserted",
                   "vdevs": "net_af_packet0,net_af_packet1", "cpus": len(os.sched_getaffinity(0)),
                   "runs": runs, "fwd_exit": rc,
                   "fwd": {k: j.get(k) for k in ("rx_pkts", "tx_pkts", "rx_bytes", "tx_bytes",
                                                 "port_drops")}}, f, indent=1)
    print("wrote %s" % out)
    return 0 if runs and all("error" not in r for r in runs) else 1


def main():
    a = sys.argv[1:]
    if a and a[0] == "_tcp_rx":
        return tcp_rx(*a[1:])
    if a and a[0] == "_tcp_tx":
        return tcp_tx(*a[1:])
    if a and a[0] == "_udp_tx":
        return udp_tx(*a[1:])
    if len(a) == 4 and a[0] == "test":
        return test(a[1], a[2], a[3])
    if len(a) == 3 and a[0] == "pmds":
        return pmds(a[1], a[2])
    if len(a) in (3, 4) and a[0] == "bench":
        return bench(*a[1:])
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main() or 0)

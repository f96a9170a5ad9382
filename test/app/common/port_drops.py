#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Frames a port lost before the app saw them are reported (doc/fwd.md
"Port counters").

usage: port_drops.py fwd|capture APP

In a network namespace of its own, a veth pair v0-v1 (and, for gpudp-fwd,
v2-v3 to send on). The app runs on net_af_packet over v0; it is stopped
(SIGSTOP) while N frames are sent into v1, so that the kernel's receive ring
of the PMD's socket overflows; then it goes on and ends on SIGINT. Checks:
- every frame that reached v0 is either received by the port or counted as
  imissed: rx_pkts + imissed = N exactly, imissed > 0;
- --json's "port_drops" is that imissed, and the app's own packet count is
  the port's rx_pkts;
- stderr warns that the port lost packets, with the count;
- telemetry's ports command (/gpudp/fwd/ports, /gpudp/capture/ports) gives
  the same imissed before the end;
- a notice says that v0 is now promiscuous and its neighbour table was
  flushed;
- exit 0 and the final port line.
Exits 77 where a namespace cannot be made (not root, no ip netns).
"""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

N = 20000
NS = "gpudp-drops-%d" % os.getpid()


def sh(*cmd, check=True):
    return subprocess.run(cmd, capture_output=True, text=True, check=check, timeout=30)


def ns(*cmd, check=True):
    return sh("ip", "netns", "exec", NS, *cmd, check=check)


def rx_packets(dev):
    return int(ns("cat", "/sys/class/net/%s/statistics/rx_packets" % dev).stdout)


def make_ns(pairs):
    sh("ip", "netns", "add", NS)
    for a, b in pairs:
        ns("ip", "link", "add", a, "type", "veth", "peer", "name", b)
        for d in (a, b):
            # no IPv6: no router or neighbour solicitations among the frames
            ns("sysctl", "-q", "-w", "net.ipv6.conf.%s.disable_ipv6=1" % d)
            ns("ip", "link", "set", d, "up")


SENDER = r"""
import socket, sys
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind(("v1", 0))
f = b"\xff" * 6 + b"\x02\x00\x00\x00\x00\x01" + b"\x88\xb5" + bytes(100)
for i in range(int(sys.argv[1])):
    s.send(f)
"""


def telemetry(prefix, cmd):
    """@cmd's answer on the telemetry socket of the EAL of file prefix @prefix"""
    path = os.path.join("/var/run/dpdk", prefix, "dpdk_telemetry.v2")
    with socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as s:
        s.settimeout(5)
        s.connect(path)
        json.loads(s.recv(4096).decode())          # greeting
        s.send(cmd.encode())
        return json.loads(s.recv(65536).decode())[cmd]


def wait_for(path, text, secs):
    t0 = time.time()
    while time.time() - t0 < secs:
        try:
            with open(path) as f:
                if text in f.read():
                    return True
        except OSError:
            pass
        time.sleep(0.1)
    return False


def main():
    kind, app = sys.argv[1], sys.argv[2]
    if os.geteuid() != 0:
        print("SKIP: network namespaces need root")
        return 77
    try:
        make_ns([("v0", "v1")] + ([("v2", "v3")] if kind == "fwd" else []))
    except (subprocess.CalledProcessError, FileNotFoundError, OSError) as e:
        sh("ip", "netns", "del", NS, check=False)
        print("SKIP: cannot make a network namespace with veth pairs: %s" %
              (getattr(e, "stderr", "") or e))
        return 77
    tmp = tempfile.mkdtemp(prefix="gpudp-drops-")
    rep, out, err = (os.path.join(tmp, n) for n in ("r.json", "out", "err"))
    eal = ["--no-huge", "-m", "256", "--no-pci", "--file-prefix", NS,
           "--log-level", "lib.*:error", "--vdev", "net_af_packet0,iface=v0"]
    if kind == "fwd":
        eal += ["--vdev", "net_af_packet1,iface=v2", "--lcores", "(0-4)@0"]
        args = ["--mode", "cpu", "--quiet", "--json", rep]
        ready = "pipelines, mode"
    else:
        eal += ["-l", "0"]
        args = ["--cpu", "--json", rep]
        ready = "live"
    fails = passed = 0
    p = None
    try:
        with open(out, "w") as fo, open(err, "w") as fe:
            p = subprocess.Popen(["ip", "netns", "exec", NS, app] + eal + ["--"] + args,
                                 stdout=fo, stderr=fe)
        if not wait_for(err, ready, 30):
            print("FAIL the app did not start:\n" + open(err).read()[-2000:])
            return 1
        time.sleep(0.5)
        before = rx_packets("v0")
        p.send_signal(signal.SIGSTOP)
        ns("python3", "-c", SENDER, str(N))
        sent = rx_packets("v0") - before
        p.send_signal(signal.SIGCONT)
        time.sleep(1.0)
        try:
            tel = telemetry(NS, "/gpudp/%s/ports" % kind).get("port0", {})
        except (OSError, ValueError, KeyError) as e:
            tel = {"error": str(e)}
        p.send_signal(signal.SIGINT)
        rc = p.wait(timeout=60)
        p = None
        stdout, stderr = open(out).read(), open(err).read()
        try:
            r = json.load(open(rep))
        except (OSError, ValueError) as e:
            r = {"error": str(e)}
        port = (r.get("ports") or [{}])[0]
        app_rx = r.get("rx_pkts") if kind == "fwd" else r.get("rx", {}).get("packets")
        checks = [
            (rc == 0, "exit %d" % rc),
            (sent == N, "the kernel's v0 received the %d frames sent: %d" % (N, sent)),
            (port.get("driver") == "net_af_packet" and port.get("imissed", 0) > 0 and
             port.get("rx_pkts", 0) + port.get("imissed", 0) == sent,
             "rx_pkts + imissed = frames that reached v0: %s + %s = %d" %
             (port.get("rx_pkts"), port.get("imissed"), sent)),
            (r.get("port_drops") == port.get("imissed") == port.get("drops"),
             "port_drops %s = imissed %s" % (r.get("port_drops"), port.get("imissed"))),
            (tel.get("imissed") == port.get("imissed") and
             tel.get("driver") == "net_af_packet",
             "telemetry's port0 %s" % tel),
            (app_rx == port.get("rx_pkts"),
             "the app's packets %s = the port's rx_pkts %s" % (app_rx, port.get("rx_pkts"))),
            ("WARNING: port 0 (net_af_packet) lost %s packets" % port.get("imissed") in stderr,
             "the warning names the port and the count"),
            ("gpudp.app: port 0 (net_af_packet on v0): the interface is now in promiscuous "
             "mode" in stderr and "flushed its neighbour table" in stderr,
             "a notice of what starting the port did to v0"),
            (("final port 0 (net_af_packet): rx %s pkts" % port.get("rx_pkts")) in stdout or
             ("ports      port 0 (net_af_packet): rx %s pkts" % port.get("rx_pkts")) in stdout,
             "the port's line in the final report"),
        ]
        for ok, what in checks:
            print("%s %s %s" % ("ok  " if ok else "FAIL", kind, what))
            passed += ok
            fails += not ok
        if fails:
            print(stdout[-1500:] + stderr[-1500:])
    finally:
        if p is not None:
            p.send_signal(signal.SIGCONT)
            p.kill()
            p.wait()
        sh("ip", "netns", "del", NS, check=False)
        shutil.rmtree(os.path.join("/var/run/dpdk", NS), ignore_errors=True)
        for n in (rep, out, err):
            if os.path.exists(n):
                os.unlink(n)
        os.rmdir(tmp)
    print("%d passed, %d failed, 0 skipped" % (passed, fails))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())

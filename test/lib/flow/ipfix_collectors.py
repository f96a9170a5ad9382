#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The IPFIX exporter (lib/flow, gpudp_ipfix.h) against real collectors.

usage: ipfix_collectors.py nfcapd|nfacctd SENDER [--count N] [--keep DIR]

SENDER is ipfix_send: it sends a deterministic set of flow records
through the exporter to the collector and prints every record as the
collector must give it back. The collector runs on the loopback, on a
free UDP port, in a temporary folder; it is stopped at the end however
the test ends.

nfcapd (nfdump): the file it writes is read with `nfdump -o json` (and
`-o raw` for the end reasons); every record must come back with its
addresses, ports or ICMP type and code, protocol, class of service, TCP
flags, VLAN, packets, octets, the reverse packets and octets of biflows
(nfdump's out_packets and out_bytes), first and last times in ms, and its
end reason (nfdump 1.7 has no field for layer2OctetDeltaCount: it skips
it), and `nfdump -I` must report no sequence failure. Then a
message with a wrong sequence number is sent, and nfdump must count
exactly one: the check is live.

nfacctd (pmacct): its print plugin writes CSV, with custom primitives
(aggregate_primitives) for the elements pmacct has no primitive of its
own for: icmpTypeCodeIPv4/IPv6, flowEndReason, layer2OctetDeltaCount and
the RFC 5103 reverse elements (enterprise 29305). Every record must come
back with all of them; with nfacctd_disable_checks false, its log must
hold no "expecting flow" line until the same wrong sequence number is
sent, and then exactly one.

Neither collector takes IPFIX over TCP (nfcapd: UDP only; nfacctd: UDP
and DTLS): TCP is tested against the test's own collectors
(test_ipfix_net.c).

Exit 0, 1 with the differences, 77 (SKIP) without the collector's
programs.
"""
import calendar
import ipaddress
import json
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time

COLS = ["af", "src", "dst", "sport", "dport", "proto", "tos", "tcp_flags", "vlan",
        "first_ms", "last_ms", "packets", "octets", "l2_octets", "biflow", "rpackets",
        "roctets", "rl2_octets", "rtcp_flags", "end_reason"]
DOMAIN = 4242
ICMP = (1, 58)


def find(prog):
    return shutil.which(prog) or next(
        (p for p in ("/usr/sbin/" + prog, "/usr/bin/" + prog) if os.access(p, os.X_OK)),
        None)


def free_udp_port():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def udp_bound(port, timeout=10.0):
    """Wait until something listens on UDP port (/proc/net/udp)."""
    want = ":%04X" % port
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        for f in ("/proc/net/udp", "/proc/net/udp6"):
            try:
                with open(f) as fh:
                    for line in fh.readlines()[1:]:
                        if line.split()[1].endswith(want):
                            return True
            except OSError:
                pass
        time.sleep(0.05)
    return False


def key(src, dst, sport, dport, proto):
    return (str(ipaddress.ip_address(src)), str(ipaddress.ip_address(dst)),
            int(sport), int(dport), int(proto))


def expected_records(out):
    recs = []
    for line in out.splitlines():
        v = line.split(",")
        if len(v) != len(COLS):
            raise SystemExit("ipfix_send printed '%s'" % line)
        r = dict(zip(COLS, v))
        for c in COLS:
            if c not in ("src", "dst"):
                r[c] = int(r[c])
        recs.append(r)
    return recs


def send_bad_sequence(port, seq):
    """A bare message header whose sequence number skips: one failure."""
    msg = struct.pack("!HHIII", 10, 16, int(time.time()), seq, DOMAIN)
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.sendto(msg, ("127.0.0.1", port))
    s.close()


def run_sender(sender, count, target):
    p = subprocess.run([sender, "--count", str(count), "--domain", str(DOMAIN), target],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       timeout=120)
    sys.stdout.write(p.stderr)
    if p.returncode != 0:
        raise SystemExit("ipfix_send failed (%d)" % p.returncode)
    return expected_records(p.stdout)


def stop(proc, sig):
    if proc.poll() is None:
        proc.send_signal(sig)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


class Diff:
    def __init__(self):
        self.lines = []

    def eq(self, what, k, want, got):
        if want != got:
            self.lines.append("%s %s: want %r, got %r" % (k, what, want, got))

    def fail(self, line):
        self.lines.append(line)


# nfdump prints TCP flags as 8 letters, CWR first, '.' for a clear bit
def nfdump_flags(s):
    if s is None:
        return 0
    v = 0
    for i, c in enumerate(s):
        if c != ".":
            v |= 0x80 >> i
    return v


def nfdump_ms(s):
    # "2026-01-01T00:00:01.013" in UTC (TZ=UTC)
    t, ms = s.split(".")
    return calendar.timegm(time.strptime(t, "%Y-%m-%dT%H:%M:%S")) * 1000 + int(ms)


class Nfcapd:
    """nfcapd on the loopback, on a free UDP port, writing into DIR/NAME.

    start() waits until it listens; stop() ends it (SIGTERM: it closes its
    file) and returns the file it wrote. The other gpudp tests against
    nfcapd (test/app/gpudp-capture/flow_monitor.py) use it too.
    """

    def __init__(self, tmp, name="flows", port=None):
        self.nfcapd, self.nfdump_prog = find("nfcapd"), find("nfdump")
        self.dir = os.path.join(tmp, name)
        self.port = port or free_udp_port()
        self.proc = None
        self.log_path = os.path.join(tmp, name + ".log")

    def missing(self):
        """None, or what to print before exiting 77."""
        if self.nfcapd and self.nfdump_prog:
            return None
        return "nfcapd and nfdump not found (Debian: nfdump)"

    def start(self):
        os.mkdir(self.dir)
        log = open(self.log_path, "w")
        self.proc = subprocess.Popen([self.nfcapd, "-b", "127.0.0.1", "-p", str(self.port),
                                      "-w", self.dir, "-t", "3600", "-I", "gpudp"],
                                     stdout=log, stderr=log)
        log.close()
        if not udp_bound(self.port):
            self.stop()
            raise SystemExit("nfcapd does not listen on port %d (log in %s)" %
                             (self.port, self.log_path))
        return self.port

    def stop(self):
        if self.proc is not None:
            stop(self.proc, signal.SIGTERM)
        files = [f for f in os.listdir(self.dir) if f.startswith("nfcapd.2")]
        if len(files) > 1:
            raise SystemExit("nfcapd wrote %s in %s" % (files, self.dir))
        return os.path.join(self.dir, files[0]) if files else None

    def nfdump(self, path, *args):
        return subprocess.run([self.nfdump_prog, "-r", path] + list(args), check=True,
                              env=dict(os.environ, TZ="UTC"), stdout=subprocess.PIPE,
                              text=True).stdout

    def records(self, path):
        """nfdump -o json's records, each with "end_reason" from -o raw."""
        js = self.nfdump(path, "-o", "json")
        # an empty file: "[", "No matching flows", "]"
        got = json.loads("[]" if "No matching flows" in js else js or "[]")
        ends = [int(m, 16) for m in
                re.findall(r"end reason\s+=\s+0x([0-9a-f]+)", self.nfdump(path, "-o", "raw"))]
        if len(ends) != len(got):
            raise SystemExit("nfdump -o raw: %d end reasons for %d records" %
                             (len(ends), len(got)))
        for g, e in zip(got, ends):
            g["end_reason"] = e
        return got

    def sequence_failures(self, path):
        """nfdump -I's "Sequence failures" count, or None without the line."""
        m = re.search(r"Sequence failures:\s*(\d+)", self.nfdump(path, "-I"))
        return int(m.group(1)) if m else None


def nfdump_key(g):
    """A record of nfdump -o json as key() gives it (ICMP: type << 8 | code as dport)."""
    icmp = g["proto"] in ICMP
    return key(g.get("src4_addr") or g.get("src6_addr"), g.get("dst4_addr") or
               g.get("dst6_addr"), 0 if icmp else g["src_port"],
               (g["icmp_type"] << 8 | g["icmp_code"]) if icmp else g["dst_port"], g["proto"])


def run_nfcapd(sender, count, tmp):
    nf = Nfcapd(tmp)
    if nf.missing():
        print("SKIP: " + nf.missing())
        return 77
    port = nf.start()
    try:
        want = run_sender(sender, count, "udp:127.0.0.1:%d" % port)
        time.sleep(1.0)
        path = nf.stop()
        if path is None:
            raise SystemExit("nfcapd wrote no file in %s" % nf.dir)
        got = nf.records(path)
        failures = nf.sequence_failures(path)
    finally:
        nf.stop()
    d = Diff()
    by_key = {}
    for g in got:
        k = nfdump_key(g)
        if k in by_key:
            d.fail("%s: twice in nfdump's output" % (k,))
        by_key[k] = g
    for w in want:
        k = key(w["src"], w["dst"], w["sport"], w["dport"], w["proto"])
        g = by_key.pop(k, None)
        if g is None:
            d.fail("%s: missing in nfdump's output" % (k,))
            continue
        d.eq("first (ms)", k, w["first_ms"], nfdump_ms(g["first"]))
        d.eq("last (ms)", k, w["last_ms"], nfdump_ms(g["last"]))
        d.eq("packets", k, w["packets"], g["in_packets"])
        d.eq("octets", k, w["octets"], g["in_bytes"])
        d.eq("reverse packets", k, w["rpackets"], g.get("out_packets", 0))
        d.eq("reverse octets", k, w["roctets"], g.get("out_bytes", 0))
        d.eq("tos", k, w["tos"], g["src_tos"])
        d.eq("TCP flags", k, w["tcp_flags"], nfdump_flags(g.get("tcp_flags")))
        d.eq("VLAN", k, w["vlan"], g["src_vlan"])
        d.eq("end reason", k, w["end_reason"], g["end_reason"])
    for k in by_key:
        d.fail("%s: in nfdump's output, never sent" % (k,))
    if failures != 0:
        d.fail("nfdump -I: %s sequence failures" % failures)
    print("nfcapd: %d records sent, %d read back by nfdump, Sequence failures: %s" %
          (len(want), len(got), failures))

    # the check is live: one message whose sequence number skips
    nf = Nfcapd(tmp, "flows-sequence", port)
    nf.start()
    try:
        run_sender(sender, 10, "udp:127.0.0.1:%d" % port)
        send_bad_sequence(port, 1000)
        time.sleep(0.5)
        path = nf.stop()
        failures = nf.sequence_failures(path) if path else None
    finally:
        nf.stop()
    if failures != 1:
        d.fail("a skipped sequence number: nfdump -I says %s sequence failures, want 1" %
               failures)
    return report(d, "nfcapd")


PRIMITIVES = """\
name=icmp4 field_type=32 len=2 semantics=u_int
name=icmp6 field_type=139 len=2 semantics=u_int
name=endreason field_type=136 len=1 semantics=u_int
name=l2octets field_type=352 len=8 semantics=u_int
name=rpackets field_type=29305:2 len=8 semantics=u_int
name=roctets field_type=29305:1 len=8 semantics=u_int
name=rl2octets field_type=29305:352 len=8 semantics=u_int
name=rtcpflags field_type=29305:6 len=1 semantics=u_int
"""

NFACCTD_CONF = """\
daemonize: false
nfacctd_ip: 127.0.0.1
nfacctd_port: {port}
nfacctd_disable_checks: false
logfile: {tmp}/nfacctd.log
pidfile: {tmp}/nfacctd.pid
timestamps_utc: true
aggregate_primitives: {tmp}/primitives.lst
plugins: print[out]
aggregate[out]: src_host, dst_host, src_port, dst_port, proto, tos, tcpflags, vlan, \
timestamp_start, timestamp_end, icmp4, icmp6, endreason, l2octets, rpackets, roctets, \
rl2octets, rtcpflags
print_output[out]: csv
print_output_file[out]: {tmp}/flows.csv
print_output_file_append[out]: true
print_num_protos[out]: true
print_refresh_time[out]: 1
"""


def pmacct_ms(s):
    # "2026-01-01 00:00:01.013000" (timestamps_utc)
    t, us = s.split(".")
    return calendar.timegm(time.strptime(t, "%Y-%m-%d %H:%M:%S")) * 1000 + int(us) // 1000


def read_rows(path):
    try:
        with open(path) as f:
            lines = f.read().splitlines()
    except OSError:
        return []
    rows, head = [], None
    for line in lines:
        v = line.split(",")
        if v and v[0] == "VLAN":
            head = v
        elif head and len(v) == len(head):
            rows.append(dict(zip(head, v)))
    return rows


def log_has(path, what):
    try:
        with open(path) as f:
            return [line for line in f if what in line]
    except OSError:
        return []


class Nfacctd:
    """nfacctd on the loopback, on a free UDP port, its print plugin writing
    CSV with the custom primitives above into DIR; start() waits until it
    listens, stop() ends it (SIGINT: its plugin writes what it holds) and
    returns the rows. flow_monitor.py (test/app/gpudp-capture) uses it too."""

    def __init__(self, tmp):
        self.nfacctd = find("nfacctd")
        self.tmp = tmp
        self.port = free_udp_port()
        self.csv = os.path.join(tmp, "flows.csv")
        self.log = os.path.join(tmp, "nfacctd.log")
        self.proc = None

    def missing(self):
        return None if self.nfacctd else "nfacctd not found (Debian: pmacct)"

    def start(self):
        with open(os.path.join(self.tmp, "primitives.lst"), "w") as f:
            f.write(PRIMITIVES)
        conf = os.path.join(self.tmp, "nfacctd.conf")
        with open(conf, "w") as f:
            f.write(NFACCTD_CONF.format(port=self.port, tmp=self.tmp))
        out = open(os.path.join(self.tmp, "nfacctd.out"), "w")
        self.proc = subprocess.Popen([self.nfacctd, "-f", conf], stdout=out, stderr=out)
        out.close()
        if not udp_bound(self.port):
            self.stop()
            raise SystemExit("nfacctd does not listen on port %d (files in %s)" %
                             (self.port, self.tmp))
        return self.port

    def stop(self):
        # the core hands records to the plugin a buffer at a time: the
        # last ones reach the file as nfacctd exits
        if self.proc is not None:
            stop(self.proc, signal.SIGINT)
        return read_rows(self.csv)

    def sequence_lines(self):
        return log_has(self.log, "expecting flow")


def nfacctd_key(g):
    """A row of nfacctd's CSV as key() gives it (ICMP: the primitive's type and code)."""
    k = key(g["SRC_IP"], g["DST_IP"], g["SRC_PORT"], g["DST_PORT"], g["PROTOCOL"])
    if k[4] in ICMP:
        k = k[:3] + (int(g["icmp4"]) or int(g["icmp6"]), k[4])
    return k


def run_nfacctd(sender, count, tmp):
    nf = Nfacctd(tmp)
    if nf.missing():
        print("SKIP: " + nf.missing())
        return 77
    port = nf.start()
    d = Diff()
    try:
        want = run_sender(sender, count, "udp:127.0.0.1:%d" % port)
        time.sleep(0.5)
        seq_lines = nf.sequence_lines()
        if seq_lines:
            d.fail("nfacctd saw sequence numbers skip: %s" % seq_lines[0].strip())
        send_bad_sequence(port, 100000)
        end = time.monotonic() + 10
        while not nf.sequence_lines() and time.monotonic() < end:
            time.sleep(0.1)
        n_bad = len(nf.sequence_lines()) - len(seq_lines)
        if n_bad != 1:
            d.fail("a skipped sequence number: %d 'expecting flow' lines, want 1" % n_bad)
    finally:
        rows = nf.stop()
    by_key = {}
    for g in rows:
        k = nfacctd_key(g)
        if k in by_key:
            d.fail("%s: twice in nfacctd's output" % (k,))
        by_key[k] = g
    for w in want:
        k = key(w["src"], w["dst"], w["sport"], w["dport"], w["proto"])
        g = by_key.pop(k, None)
        if g is None:
            d.fail("%s: missing in nfacctd's output" % (k,))
            continue
        if w["proto"] in ICMP:
            # nfacctd reads no port from icmpTypeCode*: 0, and the primitive has it
            d.eq("ports", k, (0, 0), (int(g["SRC_PORT"]), int(g["DST_PORT"])))
            d.eq("ICMP type and code", k, w["dport"],
                 int(g["icmp4" if w["proto"] == 1 else "icmp6"]))
        d.eq("first (ms)", k, w["first_ms"], pmacct_ms(g["TIMESTAMP_START"]))
        d.eq("last (ms)", k, w["last_ms"], pmacct_ms(g["TIMESTAMP_END"]))
        d.eq("packets", k, w["packets"], int(g["PACKETS"]))
        d.eq("octets", k, w["octets"], int(g["BYTES"]))
        d.eq("layer 2 octets", k, w["l2_octets"], int(g["l2octets"]))
        d.eq("tos", k, w["tos"], int(g["TOS"]))
        d.eq("TCP flags", k, w["tcp_flags"], int(g["TCP_FLAGS"]))
        d.eq("VLAN", k, w["vlan"], int(g["VLAN"]))
        d.eq("end reason", k, w["end_reason"], int(g["endreason"]))
        d.eq("reverse packets", k, w["rpackets"], int(g["rpackets"]))
        d.eq("reverse octets", k, w["roctets"], int(g["roctets"]))
        d.eq("reverse layer 2 octets", k, w["rl2_octets"], int(g["rl2octets"]))
        d.eq("reverse TCP flags", k, w["rtcp_flags"], int(g["rtcpflags"]))
    for k in by_key:
        d.fail("%s: in nfacctd's output, never sent" % (k,))
    print("nfacctd: %d records sent, %d read back from its print plugin" %
          (len(want), len(rows)))
    return report(d, "nfacctd")


def report(d, who):
    if d.lines:
        for line in d.lines[:40]:
            print("FAIL %s: %s" % (who, line))
        if len(d.lines) > 40:
            print("... %d differences in all" % len(d.lines))
        return 1
    print("ok   %s: every record equal" % who)
    return 0


def main(argv):
    if len(argv) < 3 or argv[1] not in ("nfcapd", "nfacctd"):
        print(__doc__)
        return 2
    who, sender = argv[1], argv[2]
    count = int(argv[argv.index("--count") + 1]) if "--count" in argv else 1000
    keep = argv[argv.index("--keep") + 1] if "--keep" in argv else None
    tmp = tempfile.mkdtemp(prefix="gpudp-ipfix-%s-" % who)
    try:
        rc = (run_nfcapd if who == "nfcapd" else run_nfacctd)(sender, count, tmp)
    except SystemExit as e:
        if isinstance(e.code, int):
            raise
        print("FAIL %s: %s" % (who, e.code))
        rc = 1
    if keep:
        shutil.copytree(tmp, keep, dirs_exist_ok=True)
    shutil.rmtree(tmp, ignore_errors=True)
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv))

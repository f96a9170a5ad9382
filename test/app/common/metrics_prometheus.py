#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""gpudp-capture's --metrics (doc/metrics.md) scraped by a real Prometheus
(meson suite 'dpdk').

usage: metrics_prometheus.py GPUDP_CAPTURE DATA_DIR [--engine E] [TOOLS]
       metrics_prometheus.py --fwd GPUDP_FWD [--mode M] [TOOLS]
TOOLS: --prometheus=PATH --promtool=PATH (default: those on the PATH)

A Prometheus server of its own (Debian's prometheus, config/packages/
metrics.txt) on a free loopback port scrapes gpudp-capture every 0.2 s.
gpudp-capture reads the test captures through net_pcap with the flow
monitor on (a flow log and an IPFIX file), serves --metrics on another
free port and lingers 5 s after its run. Meanwhile a client from another
loopback address (127.0.0.2) asks for a wrong path, sends oversized
headers and POST, and holds idle connections open. Checks:
  - a port in use: exit 1 naming the address;
  - promtool check metrics accepts the page;
  - 404, 431 and 405 for the wrong requests; the idle connections closed
    by the endpoint; the scrapes from 127.0.0.1 go on meanwhile;
  - Prometheus's query API gives, for the last scrape, the values of the
    app's final JSON report: packets per port, the analysis' packets and
    drops, flow records by end reason, the table, the IPFIX file's and
    the flow log's records; gpudp_capture_running 0 at the end;
  - the run analysed every packet of the captures (the data path did not
    lose any to the clients).
With --fwd: gpudp-fwd forwards 3 million packets on a net_null port
(--count) with --metrics and lingers; the last scrape's values
through Prometheus equal its final JSON: packets and bytes each way,
drops by reason, the latency histograms' counts and the ports' packets;
promtool accepts the page, histograms included.
Prints one line per check and "N passed, N failed"; exit 1 on any failure,
77 without prometheus or promtool (or, with --engine gpu or a GPU --mode,
a GPU).
"""
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "common"))
from gpudp_checks import Checks  # noqa: E402  (test/common)

EAL = ["-l", "0", "--no-huge", "-m", "256", "--no-pci", "--no-shconf",
       "--log-level=lib.*:error"]
CAPTURES = ["sample.pcap", "jumbo.pcap", "frag-ipv4.pcap", "icmp-errors.pcap"]
SKIP = 77


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def http(port, raw, src="127.0.0.2", wait=3.0):
    """send @raw from @src, the answer's bytes (until close or @wait s)"""
    s = socket.socket()
    s.bind((src, 0))
    s.settimeout(wait)
    s.connect(("127.0.0.1", port))
    s.sendall(raw)
    out = b""
    try:
        while True:
            b = s.recv(65536)
            if not b:
                break
            out += b
    except (socket.timeout, ConnectionResetError):
        pass
    s.close()
    return out


def get_metrics(port):
    with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port, timeout=3) as r:
        return r.read().decode()


def query(prom, q):
    url = "http://127.0.0.1:%d/api/v1/query?%s" % (prom, urllib.parse.urlencode({"query": q}))
    with urllib.request.urlopen(url, timeout=5) as r:
        d = json.load(r)
    return {tuple(sorted((k, v) for k, v in x["metric"].items()
                         if k not in ("__name__", "instance", "job"))): float(x["value"][1])
            for x in d["data"]["result"]}


def abuse(port, res):
    """the wrong requests and idle connections, from 127.0.0.2"""
    res["404"] = http(port, b"GET /nothing HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    res["431"] = http(port, b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 30000 +
                      b"\r\n\r\n")
    res["405"] = http(port, b"POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n"
                      b"Connection: close\r\n\r\nabc")
    idle = []
    for _ in range(12):
        try:
            s = socket.socket()
            s.bind(("127.0.0.2", 0))
            s.connect(("127.0.0.1", port))
            idle.append(s)
        except OSError:
            pass
    t0 = time.monotonic()
    closed = 0
    for s in idle:
        s.settimeout(max(0.1, 15 - (time.monotonic() - t0)))
        try:
            if s.recv(1) == b"":
                closed += 1
        except (socket.timeout, ConnectionResetError):
            closed += isinstance(sys.exc_info()[1], ConnectionResetError)
        s.close()
    res["idle"] = (len(idle), closed, time.monotonic() - t0)


class Prometheus:
    """A Prometheus server of the test's own, scraping 127.0.0.1:@target."""

    def __init__(self, binary, tmp, target, job):
        self.port, self.job = free_port(), job
        with open(os.path.join(tmp, "prometheus.yml"), "w") as f:
            f.write("global:\n  scrape_interval: 200ms\n  scrape_timeout: 150ms\n"
                    "scrape_configs:\n  - job_name: %s\n"
                    "    static_configs:\n      - targets: ['127.0.0.1:%d']\n" % (job, target))
        self.log = os.path.join(tmp, "prom.log")
        self.p = subprocess.Popen([binary, "--config.file=" + os.path.join(tmp, "prometheus.yml"),
                                   "--storage.tsdb.path=" + os.path.join(tmp, "tsdb"),
                                   "--web.listen-address=127.0.0.1:%d" % self.port],
                                  stdout=subprocess.DEVNULL, stderr=open(self.log, "w"))

    def ready(self):
        """ready, and its scrape loop started (targets are applied at most
        every 5 s: the first scrape, of nothing yet, is the sign)"""
        for _ in range(250):
            try:
                if query(self.port, 'up{job="%s"}' % self.job):
                    return True
            except OSError:
                pass
            time.sleep(0.1)
        return False

    def final(self, running, names):
        """once a scrape says @running is 0 (the app lingers with its final
        values; after it exits they are marked stale), @names' values"""
        for _ in range(600):
            try:
                if list(query(self.port, running).values()) == [0]:
                    return {n: query(self.port, n) for n in names}
            except OSError:
                pass
            time.sleep(0.05)
        return {}

    def stop(self):
        self.p.terminate()
        try:
            self.p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.p.kill()


TOOL_ARGS = {}


def tool(name):
    """--NAME=PATH from the arguments; where PATH is not there (a suite
    carried to another machine), the same name in bin/ beside this
    script's folder or beside it; else NAME on the PATH"""
    path = TOOL_ARGS.get(name)
    if path:
        if os.path.isfile(path):
            return path
        here = os.path.dirname(os.path.abspath(__file__))
        for d in (os.path.join(here, "..", "bin"), here):
            cand = os.path.join(d, os.path.basename(path))
            if os.path.isfile(cand):
                return cand
    return shutil.which(name)


def tools():
    """(prometheus, promtool), or (None, None) with the SKIP said"""
    prom_bin, promtool = tool("prometheus"), tool("promtool")
    if not prom_bin or not promtool:
        print("SKIP: prometheus or promtool not found (Debian: prometheus, "
              "config/packages/metrics.txt)")
        return None, None
    return prom_bin, promtool


def by(d, label):
    return {dict(k)[label]: v for k, v in d.items()}


def fwd_group(fwd, mode):
    prom_bin, promtool = tools()
    if prom_bin is None:
        return SKIP
    c = Checks()
    tmp = tempfile.mkdtemp(prefix="gpudp-metrics-test-")
    mport = free_port()
    prom = Prometheus(prom_bin, tmp, mport, "gpudp-fwd")
    try:
        c.check("prometheus_scraping", prom.ready(), open(prom.log).read()[-400:])
        rep = os.path.join(tmp, "fwd.json")
        run = subprocess.Popen([fwd, "-l", "0-1", "--no-huge", "-m", "512", "--no-pci",
                                "--no-shconf", "--log-level=lib.*:error", "--vdev", "net_null0",
                                "--", "--mode", mode,
                                "--pipeline-lcores", "1", "--count", "3000000", "--quiet",
                                "--metrics", "127.0.0.1:%d" % mport, "--metrics-linger", "5",
                                "--json", rep],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        page = None
        for _ in range(200):
            try:
                page = get_metrics(mport)
                break
            except OSError:
                if run.poll() is not None:
                    break
                time.sleep(0.05)
        names = ["gpudp_fwd_packets_total", "gpudp_fwd_bytes_total", "gpudp_fwd_drops_total",
                 "gpudp_fwd_rx_to_tx_seconds_count", "gpudp_fwd_rx_to_kernel_end_seconds_count",
                 "gpudp_fwd_port_packets_total", "gpudp_fwd_pipelines",
                 'gpudp_fwd_rx_to_tx_seconds_bucket{le="+Inf"}',
                 "gpudp_fwd_rx_to_kernel_start_seconds_count", "gpudp_fwd_pool_bytes"]
        snap = prom.final("gpudp_fwd_running", names) if page is not None else {}
        out, err = run.communicate(timeout=120)
        if run.returncode == SKIP:
            print("SKIP: %s" % err.strip()[-300:])
            return SKIP
        c.check("fwd_exit_0", run.returncode == 0, err[-600:])
        c.check("metrics_page_served", page is not None and "gpudp_fwd_running" in (page or ""),
                (page or "")[:200])
        if page is None or run.returncode != 0:
            return 1
        pc = subprocess.run([promtool, "check", "metrics"], input=page, capture_output=True,
                            text=True)
        c.check("promtool_check_metrics", pc.returncode == 0 and "_bucket{" in page,
                pc.stdout + pc.stderr)
        with open(rep) as f:
            r = json.load(f)
        pk = by(snap.get("gpudp_fwd_packets_total", {}), "direction")
        c.check("packets_each_way_equal_the_report", pk == {"rx": r["rx_pkts"],
                                                            "tx": r["tx_pkts"]} and
                r["rx_pkts"] >= 3000000, "%s / rx %d tx %d" % (pk, r["rx_pkts"], r["tx_pkts"]))
        by_ = by(snap.get("gpudp_fwd_bytes_total", {}), "direction")
        c.check("bytes_each_way_equal_the_report", by_ == {"rx": r["rx_bytes"],
                                                           "tx": r["tx_bytes"]}, by_)
        dr = by(snap.get("gpudp_fwd_drops_total", {}), "reason")
        c.check("drops_by_reason_equal_the_report", dr == {k: float(v) for k, v in
                                                           r["drops"].items()},
                "%s / %s" % (dr, r["drops"]))
        lat = list(snap.get("gpudp_fwd_rx_to_tx_seconds_count", {}).values())
        inf = list(snap.get('gpudp_fwd_rx_to_tx_seconds_bucket{le="+Inf"}', {}).values())
        c.check("latency_histogram_count_equals_the_report",
                lat == [r["lat_rx_to_tx"]["count"]] and inf == lat and lat[0] > 0,
                "%s %s / %s" % (lat, inf, r["lat_rx_to_tx"]))
        ports = {(dict(k)["port"], dict(k)["direction"]): v
                 for k, v in snap.get("gpudp_fwd_port_packets_total", {}).items()}
        want = {}
        for p in r["ports"]:
            want[(str(p["port"]), "rx")] = p["rx_pkts"]
            want[(str(p["port"]), "tx")] = p["tx_pkts"]
        c.check("port_packets_equal_the_report", ports == want, "%s / %s" % (ports, want))
        c.check("pipelines", list(snap.get("gpudp_fwd_pipelines", {}).values()) ==
                [r["pipelines"]], snap.get("gpudp_fwd_pipelines"))
        if mode != "cpu":
            # a GPU mode: the kernels' histograms counted every burst the
            # report did, and the pools' GPU memory is there
            for h in ("kernel_start", "kernel_end"):
                got = list(snap.get("gpudp_fwd_rx_to_%s_seconds_count" % h, {}).values())
                c.check("rx_to_%s_histogram_count_equals_the_report" % h,
                        got == [r["lat_rx_to_" + h]["count"]] and got[0] > 0,
                        "%s / %s" % (got, r["lat_rx_to_" + h]))
            pool = by(snap.get("gpudp_fwd_pool_bytes", {}), "memory")
            c.check("gpu_pool_bytes_reported", pool.get("gpu", 0) > 0, pool)
    finally:
        prom.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    return c.status()


def main():
    args = []
    for a in sys.argv[1:]:
        flag, eq, path = a.partition("=")
        if eq and flag in ("--prometheus", "--promtool"):
            TOOL_ARGS[flag[2:]] = path
        else:
            args.append(a)
    if args and args[0] == "--fwd":
        mode = "cpu"
        if "--mode" in args:
            mode = args[args.index("--mode") + 1]
        return fwd_group(args[1], mode)
    engine = "cpu"
    if "--engine" in args:
        i = args.index("--engine")
        engine = args[i + 1]
        del args[i:i + 2]
    if len(args) != 2:
        sys.exit(__doc__)
    app, data = args
    prom_bin, promtool = tools()
    if prom_bin is None:
        return SKIP
    c = Checks()
    # a port another program holds: exit 1 naming the address, before any capture
    holder = socket.socket()
    holder.bind(("127.0.0.1", 0))
    holder.listen(1)
    busy = "127.0.0.1:%d" % holder.getsockname()[1]
    r = subprocess.run([app] + EAL + ["--vdev", "net_pcap0,rx_pcap=" +
                                      os.path.join(data, CAPTURES[0]), "--", "--engine", engine,
                                      "--quiet", "--metrics", busy],
                       capture_output=True, text=True, timeout=60)
    holder.close()
    if r.returncode == SKIP:
        print("SKIP: %s" % r.stderr.strip()[-300:])
        return SKIP
    c.check("port_in_use_exit_1_naming_it", r.returncode == 1 and "--metrics " + busy in
            r.stderr and "in use" in r.stderr, "status %d: %s" % (r.returncode, r.stderr[-300:]))
    tmp = tempfile.mkdtemp(prefix="gpudp-metrics-test-")
    mport = free_port()
    prom = Prometheus(prom_bin, tmp, mport, "gpudp-capture")
    try:
        if not prom.ready():
            c.check("prometheus_scraping", False, open(prom.log).read()[-500:])
            return 1
        rep = os.path.join(tmp, "report.json")
        cmd = [app] + EAL
        for i, cap in enumerate(CAPTURES):
            cmd += ["--vdev", "net_pcap%d,rx_pcap=%s" % (i, os.path.join(data, cap))]
        cmd += ["--", "--engine", engine, "--quiet", "--metrics", "127.0.0.1:%d" % mport,
                "--metrics-linger", "5", "--flow-log", os.path.join(tmp, "f.ndjson"),
                "--ipfix-file", os.path.join(tmp, "f.ipfix"), "--json", rep]
        run = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        page = None
        for _ in range(100):
            try:
                page = get_metrics(mport)
                break
            except OSError:
                time.sleep(0.05)
        res = {}
        if page is not None:
            ab = threading.Thread(target=abuse, args=(mport, res))
            ab.start()
            # scrapes from 127.0.0.1 while 127.0.0.2 holds its connections
            time.sleep(0.5)
            try:
                during = get_metrics(mport)
            except OSError as e:
                during = "error: %s" % e
        # the final values, while the app lingers
        snap = prom.final("gpudp_capture_running", [
            "gpudp_capture_rx_packets_total", "gpudp_capture_analysed_packets_total",
            "gpudp_capture_drops_total", "gpudp_capture_flow_records_total",
            "gpudp_capture_flow_table_slots", "gpudp_capture_flow_table_in_use",
            "gpudp_capture_flow_table_looks_total", "gpudp_capture_flow_table_evictions_total",
            "gpudp_capture_ipfix_records_total", "gpudp_capture_flow_log_records_total",
            "gpudp_capture_running", 'up{job="gpudp-capture"}'])
        if page is not None:
            ab.join()
        out, err = run.communicate(timeout=120)
        if run.returncode == SKIP:
            print("SKIP: %s" % err.strip()[-300:])
            return SKIP
        c.check("app_exit_0", run.returncode == 0, err[-600:])
        c.check("metrics_page_served", page is not None and "gpudp_capture_running" in page,
                (page or "")[:300])
        if page is None:
            return 1
        pc = subprocess.run([promtool, "check", "metrics"], input=page, capture_output=True,
                            text=True)
        c.check("promtool_check_metrics", pc.returncode == 0, pc.stdout + pc.stderr)
        c.check("wrong_path_404", res.get("404", b"").startswith(b"HTTP/1.1 404"),
                res.get("404", b"")[:100])
        c.check("oversized_headers_431", res.get("431", b"").startswith(b"HTTP/1.1 431"),
                res.get("431", b"")[:100])
        c.check("post_405", res.get("405", b"").startswith(b"HTTP/1.1 405") and
                b"Allow: GET, HEAD" in res.get("405", b""), res.get("405", b"")[:200])
        n, closed, secs = res.get("idle", (0, 0, 0))
        c.check("idle_connections_closed_by_the_endpoint", n > 0 and closed == n and secs < 14,
                "%d of %d closed in %.1f s" % (closed, n, secs))
        c.check("scrape_served_while_another_address_abuses", "gpudp_capture_running" in during,
                during[:200])
        with open(rep) as f:
            r = json.load(f)
        total = r["rx"]["packets"]
        c.check("every_packet_analysed", r["packets"] == r["rx"]["packets"] and
                r["port_drops"] == 0 and r["drops"]["staging"] == 0,
                "packets %d rx %d" % (r["packets"], r["rx"]["packets"]))
        # the values of the last scrape: the final ones (the app lingers)
        got = snap.get("gpudp_capture_rx_packets_total", {})
        ports = {int(dict(k)["port"]): v for k, v in got.items()}
        want_ports = {p["port"]: p["rx_pkts"] for p in r["ports"]}
        c.check("rx_packets_per_port_equal_the_report", ports == want_ports and
                sum(ports.values()) == total, "%s / %s" % (ports, want_ports))
        a = snap.get("gpudp_capture_analysed_packets_total", {})
        c.check("analysed_packets_equal_the_report", list(a.values()) == [r["packets"]],
                "%s / %d" % (a, r["packets"]))
        d = {dict(k)["reason"]: v for k, v in snap.get("gpudp_capture_drops_total", {}).items()}
        c.check("drops_by_reason_equal_the_report",
                all(d.get(k) == v for k, v in r["drops"].items() if k in d) and
                d.get("staging") == r["drops"]["staging"] and len(d) >= 5, "%s / %s" %
                (d, r["drops"]))
        fe = r["flow_export"]
        ended = {dict(k)["end"]: v for k, v in
                 snap.get("gpudp_capture_flow_records_total", {}).items()}
        c.check("flow_records_by_end_equal_the_report", ended == {
            k: float(v) for k, v in fe["flows_ended"].items()}, "%s / %s" %
            (ended, fe["flows_ended"]))
        tab = {n: list(snap.get("gpudp_capture_flow_table_" + n, {}).values())
               for n in ("slots", "in_use", "looks_total", "evictions_total")}
        c.check("flow_table_equals_the_report", tab == {
            "slots": [fe["table"]["capacity"]], "in_use": [fe["table"]["in_use"]],
            "looks_total": [fe["table"]["looks"]],
            "evictions_total": [fe["table"]["evictions"]]}, "%s / %s" % (tab, fe["table"]))
        ipf = list(snap.get("gpudp_capture_ipfix_records_total", {}).values())
        c.check("ipfix_records_equal_the_report", ipf == [fe["ipfix"][0]["records"]] and
                ipf[0] == fe["records"], "%s / %s" % (ipf, fe["ipfix"]))
        lg = list(snap.get("gpudp_capture_flow_log_records_total", {}).values())
        c.check("flow_log_records_equal_the_report", lg == [fe["flow_log"]["records"]],
                "%s / %s" % (lg, fe["flow_log"]))
        run_v = list(snap.get("gpudp_capture_running", {}).values())
        c.check("running_0_after_the_run", run_v == [0], run_v)
        up = list(snap.get('up{job="gpudp-capture"}', {}).values())
        c.check("prometheus_scraped_it", len(up) == 1, up)
    finally:
        prom.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    return c.status()


if __name__ == "__main__":
    sys.exit(main())

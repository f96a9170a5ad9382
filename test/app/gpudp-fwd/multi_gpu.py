#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""gpudp-fwd on several GPUs (doc/multi-gpu.md).

usage:
  multi_gpu.py fake FWD FAKE_LIBCUDA OUTDIR
      dpdk suite: two net_null ports on test/common's fake libcuda with two
      devices (GPUDP_FAKE_CUDA_DEVICES=2): --gpu-map 0:0,1:1 and 0:1,1:0,
      --gpu auto, the default, --gpu 1, two queues per port, pinned pools in
      cpu mode; --json's per-GPU counters and latency percentiles (their
      shape), the telemetry's per GPU, the log of each port's choice, the
      fake's per-device allocations (made on both, none left at exit);
      bad --gpu-map values exit 2 naming the value; a missing GPU exits 77.
  multi_gpu.py gpu FWD MODE OUTDIR
      gpu suite: two net_null ports on two real GPUs (--gpu-map 0:0,1:1) in
      MODE (persistent, launch) on device pools: each GPU's pipeline
      forwarded and timed kernels (its rx->kernel-start, rx->kernel-end and
      rx->tx percentiles non-zero, p50 <= p99 <= max), the totals add up,
      teardown left nothing.
      Exit 77 with fewer than two GPUs.
"""
import json
import os
import re
import subprocess
import sys

FAILS = []


def check(ok, what):
    print("%s %s" % ("ok  " if ok else "FAIL", what))
    if not ok:
        FAILS.append(what)
    return ok


def run_fwd(fwd, tag, app_args, env_extra=None, lcores="(0-4)@(0-1)", vdevs=2,
            timeout=60):
    env = dict(os.environ)
    env.update(env_extra or {})
    args = [fwd, "--no-huge", "-m", "512", "--no-pci", "--no-telemetry",
            "--lcores", lcores, "--file-prefix", "mgpu-%s-%d" % (tag, os.getpid())]
    for i in range(vdevs):
        args += ["--vdev", "net_null%d" % i]
    args += ["--"] + app_args
    return subprocess.run(args, capture_output=True, text=True, timeout=timeout, env=env)


def fake_report(path):
    """device index -> dict of the fake libcuda's exit report"""
    devs = {}
    if not os.path.exists(path):
        return devs
    for ln in open(path):
        f = ln.split()
        d = {f[i]: f[i + 1] for i in range(0, len(f) - 1, 2)}
        devs[int(d["device"])] = d
    return devs


def gpus_by_ordinal(js):
    return {g["gpu"]: g for g in js.get("gpus", [])}


def totals_add_up(js, what):
    gs = js.get("gpus", [])
    for k in ("rx_pkts", "tx_pkts", "rx_bytes", "tx_bytes"):
        check(sum(g[k] for g in gs) == js[k],
              "%s: per-GPU %s add up to the total %d" % (what, k, js[k]))
    check(sum(g["pipelines"] for g in gs) == js["pipelines"],
          "%s: per-GPU pipelines add up to %d" % (what, js["pipelines"]))


LAT = ("lat_rx_to_kernel_start", "lat_rx_to_kernel_end", "lat_rx_to_tx")
PCTS = ("p50_ns", "p99_ns", "p999_ns", "max_ns")


def latency_shape(js, what):
    """each gpus[i] has the three latency objects of the totals (count,
    p50, p99, p999, max in ns, ordered), the counts add up to the totals'"""
    gs = js.get("gpus", [])
    for k in LAT:
        for g in gs:
            h = g.get(k)
            ok = isinstance(h, dict) and sorted(h) == sorted(("count",) + PCTS) and \
                all(isinstance(v, int) and v >= 0 for v in h.values())
            if not check(ok, "%s: GPU %d: %s has count and %s (%s)"
                         % (what, g["gpu"], k, ", ".join(PCTS), h)):
                continue
            check([h[p] for p in PCTS] == sorted(h[p] for p in PCTS) and
                  (h["count"] > 0 or h["max_ns"] == 0),
                  "%s: GPU %d: %s percentiles ordered (%s)" % (what, g["gpu"], k, h))
        check(sum(g.get(k, {}).get("count", 0) for g in gs) == js[k]["count"],
              "%s: per-GPU %s counts add up to the total %d" % (what, k, js[k]["count"]))
    for g in gs:
        check(g.get("lat_rx_to_kernel_start", {}).get("count") ==
              g.get("lat_rx_to_kernel_start_count"),
              "%s: GPU %d: lat_rx_to_kernel_start_count is its histogram's count"
              % (what, g["gpu"]))


def fake_run(fwd, fake, out, tag, app_args, devices=2, lcores="(0-4)@(0-1)"):
    rep = os.path.join(out, tag + ".fake")
    js = os.path.join(out, tag + ".json")
    for p in (rep, js):
        if os.path.exists(p):
            os.unlink(p)
    env = {"GPUDP_LIBCUDA": fake, "GPUDP_FAKE_CUDA_DEVICES": str(devices),
           "GPUDP_FAKE_CUDA_REPORT": rep}
    r = run_fwd(fwd, tag, app_args + ["--duration", "1", "--quiet", "--json", js],
                env, lcores)
    if not check(r.returncode == 0, "%s: exit 0 (got %d)" % (tag, r.returncode)):
        print(r.stderr[-2000:])
        return None, {}, r
    return json.load(open(js)), fake_report(rep), r


def placed(r, port, gpu, how):
    """the log says port PORT is on GPU GPU, chosen by HOW"""
    pat = r"port %d \(net_null%d\) on GPU %d \(0000:fe:%02x\.0\) by %s" % (
        port, port, gpu, gpu, re.escape(how))
    return re.search(pat, r.stdout + r.stderr) is not None


def released(r, gpus):
    log = r.stdout + r.stderr
    return all(re.search(r"GPU %d \(0000:fe:%02x\.0\): released: 0 allocations, 0 "
                         r"registrations left" % (g, g), log) for g in gpus)


def two_gpus(fwd, fake, out, tag, app_args, port_gpu, how, kind="allocs"):
    """a run where port i's pipelines must be on GPU port_gpu[i], chosen by
    how (or how[i])"""
    js, dev, r = fake_run(fwd, fake, out, tag, app_args)
    if js is None:
        return
    g = gpus_by_ordinal(js)
    check(sorted(g) == sorted(set(port_gpu)), "%s: --json lists GPUs %s (got %s)"
          % (tag, sorted(set(port_gpu)), sorted(g)))
    for port, gpu in enumerate(port_gpu):
        e = g.get(gpu, {})
        h = how[port] if isinstance(how, list) else how
        check(port in e.get("ports", []), "%s: port %d on GPU %d in --json" % (tag, port, gpu))
        check(placed(r, port, gpu, h), "%s: the log says port %d on GPU %d by %s"
              % (tag, port, gpu, h))
    for gpu, e in g.items():
        check(e["tx_pkts"] > 0 and e["rx_pkts"] > 0,
              "%s: GPU %d's pipelines forwarded (%d rx, %d tx)"
              % (tag, gpu, e["rx_pkts"], e["tx_pkts"]))
        check(e["drops"] == 0, "%s: GPU %d: no drops (%d)" % (tag, gpu, e["drops"]))
    totals_add_up(js, tag)
    latency_shape(js, tag)
    for d in (0, 1):
        made = int(dev.get(d, {}).get(kind, "-1"))
        want = d in port_gpu
        check((made > 0) == want, "%s: fake device %d: %s %d (%s)" % (
            tag, d, kind, made, "its ports' memory" if want else "no port on it"))
        check(dev.get(d, {}).get("left_allocs") == "0" and
              dev.get(d, {}).get("left_regs") == "0",
              "%s: fake device %d: nothing left at exit (%s allocations, %s registrations)"
              % (tag, d, dev.get(d, {}).get("left_allocs"), dev.get(d, {}).get("left_regs")))
    check(released(r, sorted(set(port_gpu))), "%s: teardown: every GPU released, 0 left" % tag)
    return js


BAD_MAPS = [
    ("0", "want PORT:GPU"),
    ("0:", "GPU '' is not a decimal number"),
    (":1", "port '' is not a decimal number"),
    ("a:0", "port 'a' is not a decimal number"),
    ("0:x", "GPU 'x' is not a decimal number"),
    ("0:0,0:1", "port 0 given twice"),
    ("0:32", "GPU 32 out of range"),
    ("0:0,,1:1", "empty entry"),
    ("", "empty GPU map"),
    ("0:-1", "GPU '-1' is not a decimal number"),
]


def bad_maps(fwd, fake):
    for m, why in BAD_MAPS:
        r = subprocess.run([fwd, "--no-huge", "--no-pci", "--", "--gpu-map", m],
                           capture_output=True, text=True, timeout=30)
        want = "--gpu-map: bad value '%s'" % m
        check(r.returncode == 2 and want in r.stderr and why in r.stderr,
              "--gpu-map '%s': exit 2 naming the value and '%s' (exit %d, %r)"
              % (m, why, r.returncode, r.stderr.strip()[-160:]))
    for v in ("autox", "-1", "32", ""):
        r = subprocess.run([fwd, "--no-huge", "--no-pci", "--", "--gpu", v],
                           capture_output=True, text=True, timeout=30)
        check(r.returncode == 2 and "--gpu: bad value '%s'" % v in r.stderr,
              "--gpu '%s': exit 2 naming the value (exit %d)" % (v, r.returncode))
    r = subprocess.run([fwd, "--no-huge", "--no-pci", "--", "--gpu", "0", "--gpu-map", "0:1"],
                       capture_output=True, text=True, timeout=30)
    check(r.returncode == 2 and "'0:1' cannot be combined with --gpu 0" in r.stderr,
          "--gpu 0 --gpu-map 0:1: exit 2 (exit %d)" % r.returncode)
    env = {"GPUDP_LIBCUDA": fake, "GPUDP_FAKE_CUDA_DEVICES": "2"}
    # after EAL: a port that is not forwarded; a GPU this host does not have
    r = run_fwd(fwd, "badport", ["--mode", "none", "--mem", "device", "--gpu-map", "0:0,5:1"],
                env)
    check(r.returncode == 2 and "--gpu-map: bad value '0:0,5:1' (port 5 is not forwarded"
          in r.stderr, "--gpu-map 0:0,5:1 (no port 5): exit 2 naming it (exit %d, %r)"
          % (r.returncode, r.stderr.strip()[-200:]))
    r = run_fwd(fwd, "nogpu", ["--mode", "none", "--mem", "device", "--gpu-map", "0:0,1:3"],
                env)
    check(r.returncode == 77 and "GPU 3 of port 1: no such GPU (2 found)" in r.stderr,
          "--gpu-map 0:0,1:3 with 2 GPUs: exit 77 naming GPU 3 (exit %d, %r)"
          % (r.returncode, r.stderr.strip()[-200:]))


def check_run(fwd, fake):
    env = {"GPUDP_LIBCUDA": fake, "GPUDP_FAKE_CUDA_DEVICES": "2"}
    r = run_fwd(fwd, "check", ["--check", "--mem", "device", "--gpu-map", "0:1,1:0"], env)
    out = r.stdout
    check(r.returncode in (0, 1) and (r.returncode == 1) == ("FAIL" in out) and
          "failed checks" in out, "--check: exit %d consistent with its findings"
          % r.returncode)
    for port, gpu in ((0, 1), (1, 0)):
        check(re.search(r"^skip  place  port %d \(net_null%d\) -> GPU %d \(0000:fe:%02x\.0\) "
                        r"by --gpu-map, level unknown: no PCIe path known" % (port, port, gpu, gpu),
                        out, re.M) is not None,
              "--check: port %d's placement line (GPU %d, level, reason)" % (port, gpu))
    check(len(re.findall(r"^info  gpu    GPU [01] \(gpudev device \d+\) at 0000:fe:0[01]\.0: 1 port$",
                         out, re.M)) == 2, "--check: one line per GPU, one port each")


def telemetry_gpus(fwd, fake_lib):
    """/gpudp/fwd/gpus answers per GPU while two fake GPUs forward"""
    import shutil
    import signal
    import socket
    import time
    prefix = "mgputel-%d" % os.getpid()
    base = "/var/run" if os.getuid() == 0 else os.environ.get("XDG_RUNTIME_DIR", "/tmp")
    sock_dir = os.path.join(base, "dpdk", prefix)
    shutil.rmtree(sock_dir, ignore_errors=True)
    env = dict(os.environ, GPUDP_LIBCUDA=fake_lib, GPUDP_FAKE_CUDA_DEVICES="2")
    p = subprocess.Popen([fwd, "--no-huge", "-m", "512", "--no-pci", "--file-prefix", prefix,
                          "--lcores", "(0-2)@(0-1)", "--vdev", "net_null0", "--vdev",
                          "net_null1", "--", "--mode", "none", "--mem", "device",
                          "--pipeline-lcores", "1", "--gpu-map", "0:1,1:0", "--quiet"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    path = os.path.join(sock_dir, "dpdk_telemetry.v2")

    def query(cmd):
        with socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as s:
            s.connect(path)
            json.loads(s.recv(4096).decode())
            s.send(cmd.encode())
            return json.loads(s.recv(65536).decode())[cmd]
    ans = None
    try:
        for _ in range(300):
            try:
                ans = query("/gpudp/fwd/gpus")
            except (ValueError, KeyError, OSError):
                ans = None
            if ans and all(ans.get(g, {}).get("tx_pkts", 0) > 0 for g in ("gpu0", "gpu1")):
                break
            time.sleep(0.1)
    finally:
        p.send_signal(signal.SIGINT)
        p.communicate(timeout=30)
    ans = ans or {}
    check(sorted(ans) == ["gpu0", "gpu1"], "telemetry /gpudp/fwd/gpus: gpu0 and gpu1 (%s)"
          % sorted(ans))
    for g, pci in (("gpu0", "0000:fe:00.0"), ("gpu1", "0000:fe:01.0")):
        e = ans.get(g, {})
        check(e.get("pci") == pci and e.get("pipelines") == 1 and e.get("tx_pkts", 0) > 0,
              "telemetry %s: %s, 1 pipeline, forwarding (%s)" % (g, pci, e))
        for h in ("rx_to_kernel_start", "rx_to_kernel_end", "rx_to_tx"):
            keys = ["%s_%s" % (h, k) for k in ("count", "p50_ns", "p99_ns", "p999_ns",
                                               "max_ns")]
            check(all(isinstance(e.get(k), int) for k in keys),
                  "telemetry %s: %s count and percentiles (%s)"
                  % (g, h, {k: e.get(k) for k in keys}))


def fake(fwd, fake_lib, out):
    os.makedirs(out, exist_ok=True)
    dev = ["--mode", "none", "--mem", "device", "--pipeline-lcores", "1"]
    two_gpus(fwd, fake_lib, out, "map01", dev + ["--gpu-map", "0:0,1:1"], [0, 1], "--gpu-map")
    two_gpus(fwd, fake_lib, out, "map10", dev + ["--gpu-map", "0:1,1:0"], [1, 0], "--gpu-map")
    two_gpus(fwd, fake_lib, out, "auto", dev + ["--gpu", "auto"], [0, 1], "--gpu auto")
    two_gpus(fwd, fake_lib, out, "default", dev, [0, 1],
             "--gpu auto (the default with several GPUs)")
    two_gpus(fwd, fake_lib, out, "one", dev + ["--gpu", "1"], [1, 1], "--gpu 1")
    js = two_gpus(fwd, fake_lib, out, "queues", dev + ["--queues", "2", "--gpu-map", "0:1,1:0"],
                  [1, 0], "--gpu-map")
    if js is not None:
        g = gpus_by_ordinal(js)
        check(all(e["pipelines"] == 2 for e in g.values()),
              "queues: two pipelines per GPU (%s)" % [e["pipelines"] for e in g.values()])
    # pinned pools in cpu mode, rx and tx lcores: host memory registered
    # with each port's GPU, handoffs in its context
    two_gpus(fwd, fake_lib, out, "pinned", ["--mode", "cpu", "--mem", "pinned",
                                            "--gpu-map", "0:0,1:1"], [0, 1], "--gpu-map",
             kind="regs")
    # the map names port 1 only: port 0 is placed as --gpu auto places it
    # among the ports the map leaves (a tie: GPU 0)
    two_gpus(fwd, fake_lib, out, "partial", dev + ["--gpu-map", "1:1"], [0, 1],
             ["--gpu auto", "--gpu-map"])
    # one fake GPU: the default stays --gpu 0's single GPU
    js, devs, r = fake_run(fwd, fake_lib, out, "single", dev, devices=1)
    if js is not None:
        check([g["gpu"] for g in js["gpus"]] == [0] and js["gpus"][0]["ports"] == [0, 1],
              "single: one GPU, both ports on it (%s)" % js["gpus"])
        check(int(devs.get(0, {}).get("allocs", "0")) > 0 and
              devs.get(0, {}).get("left_allocs") == "0", "single: fake device 0 used, freed")
    bad_maps(fwd, fake_lib)
    check_run(fwd, fake_lib)
    telemetry_gpus(fwd, fake_lib)


def gpu(fwd, mode, out):
    os.makedirs(out, exist_ok=True)
    js_path = os.path.join(out, "gpu-%s.json" % mode)
    if os.path.exists(js_path):
        os.unlink(js_path)
    # a main lcore and one per pipeline, each on its own CPU where there are three
    cpus = ["-l", "0-2"] if (os.cpu_count() or 1) >= 3 else ["--lcores", "(0-2)@(0-1)"]
    args = [fwd, "--no-huge", "-m", "1024", "--no-pci"] + cpus + [
            "--file-prefix", "mgpu-%s-%d" % (mode, os.getpid()),
            "--vdev", "net_null0", "--vdev", "net_null1", "--",
            "--mode", mode, "--mem", "device", "--pipeline-lcores", "1",
            "--gpu-map", "0:0,1:1", "--burst", "256", "--duration", "2", "--stats", "1",
            "--min-forwarded", "100000", "--json", js_path]
    r = subprocess.run(args, capture_output=True, text=True, timeout=90)
    log = r.stdout + r.stderr
    if r.returncode == 77:
        print("SKIP fewer than two GPUs: %s" % log.strip().splitlines()[-1:])
        sys.exit(77)
    if not check(r.returncode == 0, "%s: exit 0 (got %d)" % (mode, r.returncode)):
        print(log[-3000:])
        sys.exit(1)
    js = json.load(open(js_path))
    g = gpus_by_ordinal(js)
    check(sorted(g) == [0, 1], "%s: --json lists GPUs 0 and 1 (%s)" % (mode, sorted(g)))
    pcis = set()
    for gpu_, port in ((0, 0), (1, 1)):
        e = g.get(gpu_, {})
        pcis.add(e.get("pci"))
        check(e.get("ports") == [port], "%s: port %d on GPU %d" % (mode, port, gpu_))
        check(e.get("tx_pkts", 0) >= 50000, "%s: GPU %d forwarded %d packets"
              % (mode, gpu_, e.get("tx_pkts", 0)))
        check(e.get("lat_rx_to_kernel_start_count", 0) > 0,
              "%s: GPU %d's kernels ran (%d timed bursts)"
              % (mode, gpu_, e.get("lat_rx_to_kernel_start_count", 0)))
        check(e.get("drops", 1) == 0, "%s: GPU %d: no drops" % (mode, gpu_))
        # its own latency percentiles: timed, non-zero, ordered
        for k in LAT:
            h = e.get(k, {})
            v = [h.get(p, 0) for p in ("p50_ns", "p99_ns", "max_ns")]
            check(h.get("count", 0) > 0 and 0 < v[0] <= v[1] <= v[2],
                  "%s: GPU %d: %s count %d, 0 < p50 %d <= p99 %d <= max %d ns"
                  % (mode, gpu_, k, h.get("count", 0), v[0], v[1], v[2]))
    check(len(pcis) == 2, "%s: two different GPUs (%s)" % (mode, sorted(map(str, pcis))))
    totals_add_up(js, mode)
    latency_shape(js, mode)
    check(len(re.findall(r"GPU [01] \([0-9a-f:.]+\): released: 0 allocations, 0 "
                         r"registrations left", log)) == 2,
          "%s: teardown: both GPUs released, nothing left" % mode)


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "fake":
        fake(sys.argv[2], sys.argv[3], sys.argv[4])
    elif len(sys.argv) == 5 and sys.argv[1] == "gpu":
        gpu(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        print(__doc__)
        sys.exit(2)
    print("%d failed" % len(FAILS))
    sys.exit(1 if FAILS else 0)


if __name__ == "__main__":
    main()

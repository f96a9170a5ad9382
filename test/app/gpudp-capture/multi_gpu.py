#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""gpudp-capture on several GPUs (doc/multi-gpu.md, doc/capture.md).

usage:
  multi_gpu.py fake GPUDP_CAPTURE FAKE_LIBCUDA DATA_DIR OUTDIR
      dpdk suite: net_pcap ports over test/common's fake libcuda with two
      devices (GPUDP_FAKE_CUDA_DEVICES=2). The fake cannot run the GPU
      engine, which falls back to the CPU: what is checked is each port's
      placement as logged (--gpu-map, --gpu auto, the default with several
      GPUs, --gpu N), the report equal to the --cpu run's, nothing left on
      the fake's devices at exit, and the errors: bad --gpu-map values and
      combinations exit 2 naming them, a GPU that does not exist exits 77.
  multi_gpu.py gpu GPUDP_CAPTURE SAMPLE_PCAP JUMBO_PCAP PATTERNS OUTDIR
      gpu suite: two net_pcap ports (sample.pcap, jumbo.pcap) on two GPUs
      (--gpu-map 0:0,1:1) against both on GPU 0 (--gpu 0), with payload
      inspection and a filter: the JSON reports equal but for the engine's
      figures (its device and gpus fields among them), memory and timings,
      the same --filter-out packets, engine.gpus listing each port on its
      GPU; --verify on two GPUs. Exit 77 with fewer than two GPUs.
Prints one line per check and "N passed, N failed"; exit 1 on any failure.
"""
import json
import os
import re
import struct
import subprocess
import sys

from app_cases import report_view as view

EAL = ["-l", "0", "--no-huge", "-m", "512", "--no-pci", "--no-shconf",
       "--log-level=lib.*:error"]
PLACED = re.compile(r"port \d+ \(\S+\) on GPU \d+ \(")
FAILS = []
PASSED = [0]


def check(ok, what, detail=""):
    print("%s %s%s" % ("ok  " if ok else "FAIL", what, "" if ok else " " + str(detail)[-600:]))
    if ok:
        PASSED[0] += 1
    else:
        FAILS.append(what)
    return ok


def run(app, opts, env=None, timeout=120):
    e = dict(os.environ)
    e.update(env or {})
    return subprocess.run([app] + EAL + ["--"] + opts, capture_output=True, text=True,
                          timeout=timeout, env=e)


def pcapng_packets(path):
    """The enhanced packet blocks' (timestamp, original length, bytes), sorted:
    engines on several GPUs finish their batches in their own order."""
    data = open(path, "rb").read()
    off, out = 0, []
    while off + 12 <= len(data):
        btype, blen = struct.unpack_from("<II", data, off)
        if blen < 12:
            break
        if btype == 6:
            _, hi, lo, cap, orig = struct.unpack_from("<IIIII", data, off + 8)
            out.append(((hi << 32) | lo, orig, data[off + 28:off + 28 + cap]))
        off += blen
    return sorted(out)


def placed(r, port, gpu, how):
    return re.search(r"port %d \(net_pcap_gpudp%d\) on GPU %d \(0000:fe:%02x\.0\) by %s" %
                     (port, port, gpu, gpu, re.escape(how)), r.stderr) is not None


def fake(app, lib, data, out):
    pcaps = []
    for f in ("sample.pcap", "jumbo.pcap", "frag-ipv4.pcap"):
        pcaps += ["--pcap", os.path.join(data, f)]
    two = pcaps[:4]
    rep = os.path.join(out, "fake.report")
    env = {"GPUDP_LIBCUDA": lib, "GPUDP_FAKE_CUDA_DEVICES": "2",
           "GPUDP_FAKE_CUDA_REPORT": rep}
    ref = os.path.join(out, "cpu.json")
    r = run(app, ["--reader", "pmd", "--cpu", "--quiet", "--json", ref] + two, env)
    if not check(r.returncode == 0, "the --cpu reference run", r.stderr):
        return
    # each port's GPU as logged, and the report of the --cpu run
    for tag, opts, port_gpu, how in [
        ("map", ["--gpu-map", "0:0,1:1"], [0, 1], "--gpu-map"),
        ("map-swapped", ["--gpu-map", "0:1,1:0"], [1, 0], "--gpu-map"),
        ("auto", ["--gpu", "auto"], [0, 1], "--gpu auto"),
        ("default", [], [0, 1], "default (several GPUs)"),
        # the ports the map does not name are placed among themselves
        ("map-and-auto", ["--gpu-map", "0:1"], [1, 0], ["--gpu-map", "--gpu auto"]),
    ]:
        if os.path.exists(rep):
            os.unlink(rep)
        j = os.path.join(out, tag + ".json")
        o = opts + (["--gpu", "auto"] if tag == "map-and-auto" else [])
        r = run(app, ["--reader", "pmd", "--quiet", "--json", j] + o + two, env)
        if not check(r.returncode == 0 and os.path.exists(j), "%s: exit 0" % tag,
                     (r.returncode, r.stderr)):
            continue
        for port, gpu in enumerate(port_gpu):
            h = how[port] if isinstance(how, list) else how
            check(placed(r, port, gpu, h), "%s: the log says port %d on GPU %d by %s"
                  % (tag, port, gpu, h), r.stderr)
        check("--mem auto: staged, because the ports are on 2 GPUs" in r.stderr,
              "%s: --mem auto takes staged memory with ports on two GPUs" % tag, r.stderr)
        check(view(j) == view(ref), "%s: the report equals the --cpu run's" % tag)
        left = [ln for ln in open(rep)] if os.path.exists(rep) else []
        check(len(left) == 2 and all(" left_allocs 0 " in ln and " left_regs 0" in ln
                                     for ln in left),
              "%s: nothing left on the fake's two devices at exit" % tag, left)
    # three ports spread over two GPUs; --gpu 1 puts every port on GPU 1 (no placement)
    r = run(app, ["--reader", "pmd", "--quiet", "--gpu", "auto"] + pcaps, env)
    check(r.returncode == 0 and placed(r, 0, 0, "--gpu auto") and
          placed(r, 1, 1, "--gpu auto") and placed(r, 2, 0, "--gpu auto"),
          "auto: three ports spread over two GPUs (fewest ports, then the lowest)",
          r.stderr)
    r = run(app, ["--reader", "pmd", "--quiet", "--gpu", "1"] + two, env)
    check(r.returncode == 0 and not PLACED.search(r.stderr), "--gpu 1: one GPU, no placement",
          r.stderr)
    # the direct reader (the default for --pcap) reads no ports: one GPU
    r = run(app, ["--quiet"] + two, env)
    check(r.returncode == 0 and "reader: direct" in r.stderr and not PLACED.search(r.stderr),
          "direct reader: one GPU, no placement", r.stderr)
    # errors
    for opts, code, needle in [
        (["--gpu-map", "0"], 2, "--gpu-map: bad value '0'"),
        (["--gpu-map", "0:0,0:1"], 2, "--gpu-map: bad value '0:0,0:1'"),
        (["--gpu-map", "0:32"], 2, "--gpu-map: bad value '0:32'"),
        (["--gpu-map", "0:x"], 2, "--gpu-map: bad value '0:x'"),
        (["--gpu-map", "0:0,5:1"], 2, "--gpu-map: bad value '0:0,5:1' (port 5 is not read"),
        (["--gpu-map", "0:1", "--gpu", "0"], 2, "--gpu-map: bad value '0:1' (not with --gpu 0"),
        (["--gpu", "x"], 2, "--gpu: bad value 'x'"),
        (["--gpu-map", "0:1", "--reader", "direct"], 2,
         "--reader: bad value 'direct' (--gpu-map places ports on GPUs"),
        (["--gpu", "auto", "--reader", "direct"], 2,
         "--reader: bad value 'direct' (--gpu auto places ports on GPUs"),
        (["--gpu-map", "0:0,1:1", "--mem", "pinned"], 2,
         "--mem pinned: bad value with ports on 2 GPUs"),
        (["--gpu-map", "1:3"], 77, "--gpu-map: GPU 3 of port 1: no such GPU (2 found)"),
    ]:
        r = run(app, ["--quiet"] + opts + two, env)
        check(r.returncode == code and needle in r.stderr,
              "%s: exit %d naming it" % (" ".join(opts), code), (r.returncode, r.stderr))
    r = run(app, ["--quiet", "--gpu-map", "0:0,1:1"] + two,
            dict(env, GPUDP_FAKE_CUDA_DEVICES="1"))
    check(r.returncode == 77 and "GPU 1 of port 1: no such GPU (1 found)" in r.stderr,
          "--gpu-map 0:0,1:1 with one GPU: exit 77", (r.returncode, r.stderr))


def gpu(app, sample, jumbo, pats, out):
    base = ["--reader", "pmd", "--engine", "gpu", "--quiet", "--batch", "64",
            "--pcap", sample, "--pcap", jumbo, "--match", pats, "--filter", "tcp or icmp6 or match"]
    res = {}
    for tag, opts in [("two", ["--gpu-map", "0:0,1:1"]), ("one", ["--gpu", "0"])]:
        j, o = os.path.join(out, tag + ".json"), os.path.join(out, tag + ".pcapng")
        r = run(app, base + opts + ["--json", j, "--filter-out", o])
        if r.returncode == 77:
            print("fewer than two GPUs (%s): SKIP" % r.stderr.strip().splitlines()[-1:])
            return 77
        if not check(r.returncode == 0, "%s: exit 0" % tag, r.stderr):
            return 1
        res[tag] = (view(j), json.load(open(j))["engine"], pcapng_packets(o), r.stderr)
    two, one = res["two"], res["one"]
    diff = [k for k in set(two[0]) | set(one[0]) if two[0].get(k) != one[0].get(k)]
    check(not diff, "the report on two GPUs equals the one on one GPU", diff)
    check(two[2] == one[2] and len(one[2]) > 0,
          "the same --filter-out packets (%d)" % len(one[2]))
    g = {e["gpu"]: e for e in two[1].get("gpus", [])}
    check(sorted(g) == [0, 1] and g[0]["ports"] == [0] and g[1]["ports"] == [1],
          "engine.gpus: port 0 on GPU 0, port 1 on GPU 1", two[1].get("gpus"))
    check(all(e["packets"] > 0 for e in g.values()) and
          sum(e["packets"] for e in g.values()) == two[1]["packets"] ==
          json.load(open(os.path.join(out, "two.json")))["packets"],
          "each GPU analysed its port's packets; they add up to the total", g)
    check("analysing on 2 GPUs" in two[3], "the log says two GPUs", two[3])
    r = run(app, base + ["--gpu-map", "0:0,1:1", "--verify"])
    check(r.returncode == 0 and "results are identical" in r.stderr,
          "--verify on two GPUs: every batch and the totals equal the CPU's",
          (r.returncode, r.stderr))
    return 0


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in ("fake", "gpu"):
        sys.exit(__doc__)
    out = sys.argv[-1]
    os.makedirs(out, exist_ok=True)
    if sys.argv[1] == "fake":
        if len(sys.argv) != 6:
            sys.exit(__doc__)
        fake(sys.argv[2], sys.argv[3], sys.argv[4], out)
    else:
        if len(sys.argv) != 7:
            sys.exit(__doc__)
        if gpu(*sys.argv[2:7]) == 77:
            return 77
    print("%d passed, %d failed" % (PASSED[0], len(FAILS)))
    return 1 if FAILS or not PASSED[0] else 0


if __name__ == "__main__":
    sys.exit(main())

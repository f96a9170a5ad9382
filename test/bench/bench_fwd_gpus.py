#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Two pipelines on two GPUs against two pipelines on one GPU (doc/multi-gpu.md).

usage: bench_fwd_gpus.py --fwd=PATH [--seconds=S] [--rounds=N] [--burst=B]
                         [--cases=persistent_load,launch,persistent]
                         [--load-rounds=R] [--mem=device] OUT.json

gpudp-fwd on two net_null ports, one pipeline per port on one lcore each
(a main lcore and two pipeline lcores), device pools, burst 256 unless
--burst, S seconds a run (default 5): with --gpu-map 0:0,1:1 (one pipeline
on each GPU) and --gpu-map 0:0,1:0 (both on GPU 0), alternating, N rounds
(default 3): the host's speed drifts, so each two-GPU run is compared with
the one-GPU run right after it. The cases:

  persistent_load  persistent mode, the GPU sets the rate: the load work
                   (--load-rounds R hash rounds a packet, default 4000)
                   with --persistent-blocks max (--ring 1024): a pipeline
                   alone on its GPU has as many resident blocks as the GPU
                   keeps (at most 1024), two on one GPU half each
  launch           launch mode, the macswap work
  persistent       persistent mode, the macswap work with the default
                   blocks (4..16): the forwarding lcores set the rate, not
                   the GPUs; reported, not a target

From --json: the aggregate rx and tx Mpps, the rx -> kernel start latency
(p50, p99, p999, max) and, per GPU ("gpus"), its ports and PCI address, rx
and tx Mpps and timed bursts.

Writes {"runs": [...], "cases": {...}, "ratio_two_over_one": x,
"target_met": bool}: a case's ratio is the median over its pairs of
two-GPU tx Mpps / one-GPU tx Mpps; ratio_two_over_one is the lowest of the
target cases' (persistent_load and launch); the target (the aggregate on
two GPUs at least the one-GPU figure) is met when it is >= 1. Absolute
figures only from the GPU machine.

Exit 0 when it ran (whatever the ratio: the JSON and the output say it),
77 with fewer than two GPUs (nvidia-smi -L lists fewer, or gpudp-fwd exits
77: a mapped GPU is missing), 1 on errors. A path that does not exist is
looked for in bin/ (the GPU machine's carried programs).
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile

from bench_common import find_program

MAPS = (("two_gpus", "0:0,1:1"), ("one_gpu", "0:0,1:0"))
# case: its mode, whether it counts for the target
CASES = {"persistent_load": ("persistent", True), "launch": ("launch", True),
         "persistent": ("persistent", False)}
# persistent_load: in-flight bursts a pipeline, and so most resident blocks
LOAD_RING = 1024


def fail(msg):
    print("bench_fwd_gpus: " + msg, file=sys.stderr)
    sys.exit(1)


def skip(msg):
    print("SKIP: " + msg)
    sys.exit(77)


def find(p):
    return find_program(p) or fail("%s not found" % p)


def gpu_count():
    """GPUs nvidia-smi lists, or None when it cannot tell (not installed:
    gpudp-fwd's exit code decides then)"""
    try:
        r = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True,
                           timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if r.returncode != 0:
        return None
    return sum(1 for ln in r.stdout.splitlines() if ln.startswith("GPU "))


def case_args(case, load_rounds):
    """gpudp-fwd's options for a case beyond the common ones"""
    if case != "persistent_load":
        return []
    return ["--work", "load", "--load-rounds", str(load_rounds),
            "--persistent-blocks", "max", "--ring", str(LOAD_RING)]


def run(fwd, mode, extra, mem, burst, gmap, secs, tag, d):
    js = os.path.join(d, "%s.json" % tag)
    # a main lcore and one per pipeline, each on its own CPU where there are three
    cpus = ["-l", "0-2"] if (os.cpu_count() or 1) >= 3 else ["--lcores", "(0-2)@(0-1)"]
    cmd = [fwd, "--no-huge", "-m", "1024", "--no-pci"] + cpus + [
           "--file-prefix", "bfg-%s-%d" % (tag, os.getpid()),
           "--vdev", "net_null0", "--vdev", "net_null1", "--",
           "--mode", mode, "--mem", mem, "--pipeline-lcores", "1",
           "--gpu-map", gmap, "--burst", str(burst), "--duration", str(secs),
           "--stats", "0", "--quiet", "--json", js] + extra
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=secs + 90)
    except subprocess.TimeoutExpired:
        fail("%s did not end in %d s" % (" ".join(cmd), secs + 90))
    log = (r.stdout + r.stderr).strip()
    if r.returncode == 77:
        skip("fewer than two GPUs (gpudp-fwd --gpu-map %s exited 77: %s)"
             % (gmap, log.splitlines()[-1] if log else ""))
    if r.returncode != 0:
        fail("%s exited %d:\n%s" % (" ".join(cmd), r.returncode, log[-3000:]))
    try:
        with open(js) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        fail("%s: --json %s: %s" % (" ".join(cmd), js, e))


def summary(js, name, gmap, case, rnd):
    """the figures of one run, checked against the placement asked for"""
    mode = CASES[case][0]
    secs = js["seconds"]
    mpps = (lambda n: round(n / secs / 1e6, 3)) if secs > 0 else (lambda n: 0.0)
    lat = js["lat_rx_to_kernel_start"]
    run_ = {"case": case, "mode": mode, "round": rnd, "config": name, "gpu_map": gmap,
            "seconds": round(secs, 3), "pipelines": js["pipelines"],
            "rx_mpps": mpps(js["rx_pkts"]), "tx_mpps": round(js["tx_mpps"], 3),
            "drops": sum(js["drops"].values()),
            "kstart_count": lat["count"], "kstart_p50_ns": lat["p50_ns"],
            "kstart_p99_ns": lat["p99_ns"], "kstart_p999_ns": lat["p999_ns"],
            "kstart_max_ns": lat["max_ns"], "gpus": []}
    for g in js.get("gpus", []):
        run_["gpus"].append({"gpu": g["gpu"], "pci": g["pci"], "ports": g["ports"],
                             "pipelines": g["pipelines"], "rx_mpps": mpps(g["rx_pkts"]),
                             "tx_mpps": mpps(g["tx_pkts"]), "drops": g["drops"],
                             "kstart_count": g["lat_rx_to_kernel_start_count"]})
    # the placement must be the one asked for, or the comparison means nothing
    want = {0: [0], 1: [1]} if name == "two_gpus" else {0: [0, 1]}
    got = {g["gpu"]: sorted(g["ports"]) for g in run_["gpus"]}
    if got != want:
        fail("%s %s (--gpu-map %s): --json places ports %s, wanted %s"
             % (mode, name, gmap, got, want))
    if name == "two_gpus" and len({g["pci"] for g in run_["gpus"]}) != 2:
        fail("%s two_gpus: GPUs 0 and 1 have the same PCI address %s"
             % (mode, run_["gpus"][0]["pci"]))
    if run_["pipelines"] != 2 or js["tx_pkts"] == 0:
        fail("%s %s: %d pipelines, %d packets transmitted"
             % (mode, name, run_["pipelines"], js["tx_pkts"]))
    return run_


def us(ns):
    return ns / 1e3


def main():
    opts = dict(a[2:].split("=", 1) for a in sys.argv[1:]
                if a.startswith("--") and "=" in a)
    out = [a for a in sys.argv[1:] if not a.startswith("--")]
    if "fwd" not in opts or len(out) != 1:
        print(__doc__)
        return 1
    fwd = find(opts["fwd"])
    secs, rounds = int(opts.get("seconds", 5)), int(opts.get("rounds", 3))
    burst, mem = int(opts.get("burst", 256)), opts.get("mem", "device")
    load_rounds = int(opts.get("load-rounds", 4000))
    cases = opts.get("cases", "persistent_load,launch,persistent").split(",")
    for c in cases:
        if c not in CASES:
            fail("--cases: unknown case '%s' (%s)" % (c, ",".join(CASES)))
    n = gpu_count()
    if n is not None and n < 2:
        skip("fewer than two GPUs (nvidia-smi -L lists %d)" % n)
    res = {"seconds": secs, "rounds": rounds, "burst": burst, "mem": mem,
           "ports": 2, "pipelines": 2, "pmd": "net_null",
           "configs": {name: gmap for name, gmap in MAPS},
           "nvidia_smi_gpus": n, "load_rounds": load_rounds, "runs": [], "cases": {}}
    with tempfile.TemporaryDirectory() as d:
        for case in cases:
            mode, _ = CASES[case]
            extra = case_args(case, load_rounds)
            pairs = []
            for i in range(rounds):
                pair = {}
                for name, gmap in MAPS:
                    js = run(fwd, mode, extra, mem, burst, gmap, secs,
                             "%s-%s-%d" % (case, name, i), d)
                    pair[name] = summary(js, name, gmap, case, i)
                    res["runs"].append(pair[name])
                pairs.append(pair)
            ratios = [p["two_gpus"]["tx_mpps"] / p["one_gpu"]["tx_mpps"]
                      for p in pairs if p["one_gpu"]["tx_mpps"] > 0]
            m = {"mode": mode, "target": CASES[case][1], "fwd_args": extra,
                 "ratio_two_over_one": round(statistics.median(ratios), 4) if ratios else 0.0,
                 "ratios": [round(x, 4) for x in ratios]}
            for name, _ in MAPS:
                m[name + "_tx_mpps"] = [p[name]["tx_mpps"] for p in pairs]
                m[name + "_rx_mpps"] = [p[name]["rx_mpps"] for p in pairs]
                m[name + "_kstart_p50_ns"] = [p[name]["kstart_p50_ns"] for p in pairs]
                m[name + "_kstart_p99_ns"] = [p[name]["kstart_p99_ns"] for p in pairs]
            res["cases"][case] = m
            for p in pairs:
                for name, gmap in MAPS:
                    r = p[name]
                    per = ", ".join("GPU %d %.3f" % (g["gpu"], g["tx_mpps"]) for g in r["gpus"])
                    print("%-15s round %d %-8s (--gpu-map %s): tx %.3f Mpps (%s), "
                          "rx->kernel-start p50 %.2f p99 %.2f p999 %.2f us"
                          % (case, r["round"], name, gmap, r["tx_mpps"], per,
                             us(r["kstart_p50_ns"]), us(r["kstart_p99_ns"]),
                             us(r["kstart_p999_ns"])))
            print("%-15s two GPUs / one GPU: %.3f (median of %s)%s"
                  % (case, m["ratio_two_over_one"], m["ratios"],
                     "" if CASES[case][1] else " (not a target: the lcores set the rate)"))
    judged = [m["ratio_two_over_one"] for m in res["cases"].values() if m["target"]]
    ratio = min(judged) if judged else 0.0
    res["ratio_two_over_one"] = ratio
    res["target"] = ("aggregate tx Mpps on two GPUs >= on one GPU (ratio >= 1), in each of "
                     "the cases where the GPU takes part in the rate (persistent_load, launch)")
    res["target_met"] = bool(judged) and ratio >= 1.0
    try:
        os.makedirs(os.path.dirname(os.path.abspath(out[0])), exist_ok=True)
        with open(out[0], "w") as f:
            json.dump(res, f, indent=1)
    except OSError as e:
        fail("%s: %s" % (out[0], e))
    print("two GPUs / one GPU: %.3f (lowest of the target cases): target %s"
          % (ratio, "met" if res["target_met"] else "MISSED (ratio below 1, or no target case)"))
    return 0


if __name__ == "__main__":
    sys.exit(main())

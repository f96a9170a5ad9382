#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""A work built outside gpudp against the built-in with the same body.

usage: bench_work.py --fwd=PATH --work-so=PATH [--seconds=S] [--rounds=N] OUT.json

gpudp-fwd on two net_null ports (device pools, burst 256, one lcore per
pipeline), in launch and persistent mode, with --work macswap (built in)
and with --work WORK_SO (the same macswap body, built only from the
installed SDK: doc/examples/macswap). The two alternate, N rounds each
(default 3, S seconds each, default 3): the host's speed drifts, so each
external run is compared with the built-in run right before it. Writes
the transmitted packet rates, their ratio (median of the pairs), and the
persistent mode's rx -> kernel start latency of each. The target is a
ratio >= 0.95 (doc/work.md). Absolute figures only from the GPU machine.
A path that does not exist is looked for in bin/ (the GPU machine's carried
programs). Exit 77 when gpudp-fwd reports no usable GPU.
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile

from bench_common import find_program


def find(p):
    return find_program(p) or sys.exit("bench_work: %s not found" % p)


def run(fwd, mode, work, secs, tag, d):
    js = os.path.join(d, "%s.json" % tag)
    cmd = [fwd, "--no-huge", "-m", "2048", "--no-pci", "-l", "0-2",
           "--file-prefix", "bw-%s-%d" % (tag, os.getpid()),
           "--vdev", "net_null0", "--vdev", "net_null1", "--",
           "--mode", mode, "--mem", "device", "--burst", "256",
           "--pipeline-lcores", "1", "--duration", str(secs), "--stats", "0",
           "--quiet", "--json", js, "--work", work]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=secs + 60)
    if r.returncode == 77:
        print("SKIP: no usable GPU")
        sys.exit(77)
    if r.returncode != 0:
        sys.exit("bench_work: %s exited %d:\n%s" % (" ".join(cmd), r.returncode,
                                                    r.stderr[-2000:]))
    return json.load(open(js))


def main():
    opts = dict(a[2:].split("=", 1) for a in sys.argv[1:] if a.startswith("--"))
    out = [a for a in sys.argv[1:] if not a.startswith("--")]
    if "fwd" not in opts or "work-so" not in opts or len(out) != 1:
        sys.exit(__doc__)
    fwd, so = find(opts["fwd"]), find(opts["work-so"])
    secs, rounds = float(opts.get("seconds", 3)), int(opts.get("rounds", 3))
    res = {"seconds": secs, "rounds": rounds, "burst": 256, "mem": "device",
           "external_work": os.path.basename(so), "modes": {}}
    with tempfile.TemporaryDirectory() as d:
        for mode in ("launch", "persistent"):
            pairs = []
            for i in range(rounds):
                b = run(fwd, mode, "macswap", secs, "%s-b%d" % (mode, i), d)
                e = run(fwd, mode, so, secs, "%s-e%d" % (mode, i), d)
                pairs.append((b, e))
            ratios = [e["tx_mpps"] / b["tx_mpps"] for b, e in pairs if b["tx_mpps"] > 0]
            m = {"builtin_mpps": [round(b["tx_mpps"], 3) for b, _ in pairs],
                 "external_mpps": [round(e["tx_mpps"], 3) for _, e in pairs],
                 "ratio_median": round(statistics.median(ratios), 4) if ratios else 0}
            if mode == "persistent":
                for name, k in (("builtin", 0), ("external", 1)):
                    lat = [p[k]["lat_rx_to_kernel_start"] for p in pairs]
                    m[name + "_kstart_p50_ns"] = [x["p50_ns"] for x in lat]
                    m[name + "_kstart_p99_ns"] = [x["p99_ns"] for x in lat]
            res["modes"][mode] = m
            print("%-10s built-in %s Mpps, external %s Mpps, ratio %.3f" %
                  (mode, m["builtin_mpps"], m["external_mpps"], m["ratio_median"]))
    with open(out[0], "w") as f:
        json.dump(res, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())

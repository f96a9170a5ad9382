#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""gpudp-capture's speed: the analysis, the whole app, payload inspection.

usage: bench_capture.py --bench=gpudp-capture-bench --app=gpudp-capture
                        [--hs-ref=hs-capture-ref] [--match-bench=test_gpu_match]
                        [--make-flows=make_flows.py] [--packets=N]
                        [--rules-bench=test_gpu_rules --rules=RULES
                         --rule-vars=VARS [--dense-rules=RULES
                         --dense-rule-vars=VARS]]
                        [--only=SECTION,...] OUT.json

All in one run, GPU and CPU engines on the same files (doc/benchmarks.md,
"Capture analysis"):
  analysis   the analysis without payload inspection, end to end from memory
             (a generated capture of --packets 80..128-byte frames; 65,536
             flows, --flows 262144 on both engines): gpudp-capture-bench
             --threads 1, 4, 8 and 16 --memory (the file read into memory
             before the passes, each thread describing its records where
             they are), CPU and GPU engine, and the same without --memory
             (the direct reader reading the file from the page cache): Mpps;
             targets GPU from memory >= 10x the CPU engine at the same thread
             count (its better figure of the two), and >= 100 Mpps
  app        the whole app on that capture: gpudp-capture --reader direct
             --threads 8, --engine gpu and --cpu (the report's packets_per_s);
             targets >= 50 Mpps on the GPU and >= 5x the CPU engine
  payload    payload inspection of 1,000,000 1500-byte frames of random bytes with 1,000
             and 10,000 random patterns of 4..12 bytes, a quarter of them
             case-insensitive (as test_gpu_match's): bytes scanned per second
             by the GPU engine, staged (gpudp-capture-bench --threads 8
             --memory: each thread describes the frames of the file's copy
             in memory, which the GPU gathers into its memory, analysis
             included; also without --memory, the frames read from the
             page cache into pinned batches, and one thread feeding
             from memory), against Hyperscan on one core over the same
             frames in memory (hs-capture-ref); in place on device memory from
             test_gpu_match --bench (its own frames of the same size, with
             Hyperscan on them); targets >= 10x staged, >= 30x in place
  stages     the GPU engine at 1 and 8 threads with each --stage (copy: each
             record copied into a pinned batch by its thread; gather: read in
             place from the mapped file, gathered into GPU memory by the GPU;
             read: the analysis kernel reads the mapped file): Mpps and parts
  cpu        the CPU engine, payload inspection off, 1 thread: records copied
             into batches (the default) and read in place from the mapping
  rules      Suricata-style rules (doc/rules.md): RULES (10,000 generated
             rules of 10,000 random words, gen_rules_capture.py --words) and
             DENSE (10,000 rules of 40 words: many candidates a packet) over
             1,000,000 1500-byte frames of random bytes, each set on its
             own: payload bytes inspected per second on the GPU in
             place on device memory (test_gpu_rules --bench, kernel time)
             and staged (gpudp-capture-bench --rules --threads 8 --memory,
             analysis included), against one CPU core running the same rules
             with Hyperscan as the prefilter and the same verification, on
             the same frames; targets >= 30x in place, >= 10x staged; the
             GPU engine's alerts equal the CPU peer's
  flows      the flow monitor (doc/flows.md): the whole app on the GPU engine,
             1 thread, on that capture (one second of capture time) and on
             make_flows.py's (over a million flows ending over an hour),
             without export and with IPFIX to a file and to a UDP socket on
             the loopback: Mpps, records, looks at the table; target the
             rate with export >= 0.9x the rate without
--only runs those sections alone (analysis, app, stages, cpu, payload,
rules, flows; flows needs --make-flows, rules --rules-bench, --rules and
--rule-vars). A path that does not exist is looked for in bin/ (the GPU machine's carried
programs). Exit 0 when it ran (targets met or not: see "targets" in the
JSON), 77 without a GPU, 1 on errors.
"""
import json
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile

from bench_common import find_program

# flow table slots: four times the generated capture's 65,536 flows
FLOWS = "262144"


def find(p):
    return find_program(p) or p


def run(cmd, timeout=900):
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    return r.returncode, r.stdout, r.stderr


def bench(prog, path, engines, extra, out):
    rc, so, se = run([prog, "--engine", engines, "--json", out] + extra + [path])
    if rc not in (0, 77):
        raise RuntimeError("gpudp-capture-bench %s: exit %d: %s" % (extra, rc, se[-400:]))
    return json.load(open(out)) if os.path.exists(out) else None


PARTS = ("seconds", "read_s", "collect_s", "merge_s", "busy_ms", "kernel_ms", "register_s",
         "stage", "in_memory", "warmup_s", "passes_s")


def mpps(d, eng):
    return d[eng]["packets_per_s"] / 1e6


def analysis(prog, cap, tmp, res):
    """From memory (--memory: the targets) and from the page cache (the
    direct reader reading the file), both engines, each thread count. The
    CPU engine's figure is the better of its two."""
    rows = []
    for t in THREADS:
        args = ["--threads", str(t)] + ANALYSIS_ARGS
        m = bench(prog, cap, "cpu,gpu", args + ["--memory"], os.path.join(tmp, "m%d.json" % t))
        if not m["gpu"]["ran"]:
            return 77
        f = bench(prog, cap, "cpu,gpu", args, os.path.join(tmp, "f%d.json" % t))
        cpu = max(mpps(m, "cpu"), mpps(f, "cpu"))
        rows.append({"threads": t, "gpu_mpps": mpps(m, "gpu"), "cpu_mpps": cpu,
                     "gpu_over_cpu": mpps(m, "gpu") / cpu if cpu else 0,
                     "cpu_memory_mpps": mpps(m, "cpu"), "cpu_file_mpps": mpps(f, "cpu"),
                     "gpu_file_mpps": mpps(f, "gpu"),
                     "gpu_file_over_cpu_file": f["gpu_speedup"],
                     "packets": m["packets_per_pass"], "memory": m.get("memory"),
                     "parts_s": {e: {k: m[e].get(k) for k in PARTS} for e in ("cpu", "gpu")},
                     "file_parts_s": {e: {k: f[e].get(k) for k in PARTS}
                                      for e in ("cpu", "gpu")}})
    res["analysis"] = rows
    best = max(r["gpu_mpps"] for r in rows)
    res["targets"]["analysis_gpu_10x_cpu_each_thread_count"] = \
        all(r["gpu_over_cpu"] >= 10 for r in rows if r["threads"] in (1, 4))
    res["targets"]["analysis_gpu_100_mpps"] = best >= 100
    return 0


# the app's EAL arguments, one lcore, no hugepages
APP_EAL = ["-l", "0", "--no-huge", "-m", "512", "--no-pci", "--no-shconf",
           "--log-level=lib.*:error", "--"]


def app(prog, cap, tmp, res):
    got = {}
    for eng in ("gpu", "cpu"):
        j = os.path.join(tmp, "app-%s.json" % eng)
        rc, so, se = run([prog] + APP_EAL + ["--pcap", cap, "--reader", "direct", "--threads",
                                         str(APP_THREADS), "--engine", eng, "--quiet",
                                         "--flows", FLOWS] + BATCH_ARGS + ["--json", j])
        if rc != 0:
            raise RuntimeError("gpudp-capture --engine %s: exit %d: %s" % (eng, rc, se[-400:]))
        d = json.load(open(j))
        got[eng] = {"threads": APP_THREADS, "packets": d["packets"], "elapsed_s": d["elapsed_s"],
                    "mpps": d["packets_per_s"] / 1e6, "device": d["engine"]["device"]}
    got["gpu_over_cpu"] = got["gpu"]["mpps"] / got["cpu"]["mpps"] if got["cpu"]["mpps"] else 0
    res["app"] = got
    res["targets"]["app_gpu_50_mpps"] = got["gpu"]["mpps"] >= 50
    res["targets"]["app_gpu_5x_cpu"] = got["gpu_over_cpu"] >= 5


def flows(prog, make_flows, cap, tmp, res):
    """The flow monitor's cost: the app with and without export."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("127.0.0.1", 0))   # nobody reads it: the kernel drops at the receiver
    port = sock.getsockname()[1]
    mf = os.path.join(tmp, "flows.pcap")
    rc, so, se = run([sys.executable, make_flows, mf, "--flows", "1200000", "--hours", "1",
                      "--idle", "30", "--active", "300"])
    if rc != 0:
        raise RuntimeError("make_flows.py: exit %d: %s" % (rc, se[-400:]))
    rows = []
    exports = {"none": [], "ipfix_file": ["--ipfix-file", os.path.join(tmp, "f.ipfix")],
               "ipfix_file_udp": ["--ipfix-file", os.path.join(tmp, "f.ipfix"), "--ipfix",
                                  "127.0.0.1:%d" % port]}
    try:
        for name, path in (("generated", cap), ("make_flows", mf)):
            row = {"capture": name, "threads": 1}
            for ex, opts in exports.items():
                best = None
                for _ in range(3):
                    j = os.path.join(tmp, "fl.json")
                    rc, so, se = run([prog] + APP_EAL + [
                        "--pcap", path, "--reader", "direct", "--threads", "1",
                        "--engine", "gpu", "--quiet", "--flows", FLOWS] + BATCH_ARGS +
                        opts + ["--json", j])
                    if rc == 77:
                        return 77
                    if rc != 0:
                        raise RuntimeError("gpudp-capture %s: exit %d: %s" %
                                           (" ".join(opts), rc, se[-400:]))
                    d = json.load(open(j))
                    if best is None or d["packets_per_s"] > best["packets_per_s"]:
                        best = d
                row[ex + "_mpps"] = best["packets_per_s"] / 1e6
                row[ex + "_engine_wait_ms"] = best["engine"].get("wait_ms")
                fe = best.get("flow_export")
                if fe:
                    row[ex + "_records"] = fe["records"]
                    row[ex + "_looks"] = fe["table"]["looks"]
                    row[ex + "_look_ms"] = fe["table"]["look_ms"]
                    row[ex + "_look_wait_ms"] = fe["table"]["look_wait_ms"]
                    row[ex + "_dropped"] = fe["dropped"]
                row["packets"] = best["packets"]
            for ex in exports:
                if ex != "none":
                    row[ex + "_over_none"] = row[ex + "_mpps"] / row["none_mpps"]
            rows.append(row)
    finally:
        sock.close()
        if os.path.exists(mf):
            os.unlink(mf)
    res["flows"] = rows
    res["targets"]["flows_export_0_9x_without"] = all(
        r["ipfix_file_udp_over_none"] >= 0.9 for r in rows)
    return 0


def write_patterns(path, n, seed):
    rnd = random.Random(seed)
    with open(path, "w") as f:
        for i in range(n):
            b = bytes(rnd.randrange(256) for _ in range(rnd.randint(4, 12)))
            f.write("p%d \"%s\"%s\n" % (i, "".join("\\x%02x" % c for c in b),
                                       " nocase" if rnd.random() < 0.25 else ""))


def payload(prog, hs_ref, match_bench, tmp, res):
    cap = os.path.join(tmp, "p1500.pcap")
    # 1,000,000 frames (1.5 GB): 200,000 left a run of 8 threads to its
    # fixed costs (0.12 s with and without the patterns)
    rc, so, se = run([prog, "--generate", str(PAYLOAD_FRAMES), "--frame-size", "1500", cap])
    if rc != 0:
        raise RuntimeError("--generate: " + se)
    os.sync()
    rows = []
    for n in (1000, 10000):
        pats = os.path.join(tmp, "pat%d.txt" % n)
        write_patterns(pats, n, n)
        rep = os.path.join(tmp, "rep%d.json" % n)
        # the report (one pass, in memory) gives the bytes a pass scans
        d = bench(prog, cap, "gpu", ["--match", pats, "--repeat", "1", "--report", rep,
                                     "--flows", FLOWS,
                                     "--batch", "65536", "--batch-bytes", "134217728"],
                  os.path.join(tmp, "m%d.json" % n))
        if not d["gpu"]["ran"]:
            return 77
        per_pass = json.load(open(rep))["match"]["scanned_bytes"]
        one = per_pass * d["gpu"]["packets_per_s"] / d["packets_per_pass"]
        # staged: 8 threads describing the frames of the file's copy in
        # memory (as Hyperscan scans its copy in memory), which the GPU
        # gathers into its memory; and the same with the direct reader
        # reading the file from the page cache into pinned batches
        staged_args = ["--match", pats, "--repeat", "3", "--threads", "8", "--flows", FLOWS,
                       "--batch", "65536", "--batch-bytes", "134217728"]
        d = bench(prog, cap, "gpu", staged_args + ["--memory"],
                  os.path.join(tmp, "md%d.json" % n))
        staged = per_pass * d["gpu"]["packets_per_s"] / d["packets_per_pass"]
        g = d["gpu"]
        f = bench(prog, cap, "gpu", staged_args, os.path.join(tmp, "mf%d.json" % n))
        row = {"patterns": n, "scanned_bytes_per_pass": per_pass,
               "gpu_staged_parts": {k: g.get(k) for k in ("seconds", "read_s", "collect_s",
                                                          "merge_s", "kernel_ms", "busy_ms",
                                                          "in_memory")},
               "gpu_staged_bytes_s": staged, "gpu_staged_stage": d["gpu"].get("stage"),
               "gpu_staged_file_bytes_s": per_pass * f["gpu"]["packets_per_s"] /
               f["packets_per_pass"],
               "gpu_copied_one_thread_bytes_s": one}
        if hs_ref and os.path.exists(hs_ref):
            hj = os.path.join(tmp, "hs%d.json" % n)
            rc, so, se = run([hs_ref, "--match", pats, "--json", hj, cap])
            if rc == 0:
                h = json.load(open(hj))
                hs = h["match"]["scanned_bytes"] / h["hyperscan_seconds"]
                row["hyperscan_core_bytes_s"] = hs
                row["gpu_staged_over_hyperscan"] = staged / hs
        rows.append(row)
    if match_bench and os.path.exists(match_bench):
        mj = os.path.join(tmp, "inplace.json")
        rc, so, se = run([match_bench, "--bench", mj])
        if rc == 0:
            for s in json.load(open(mj))["sets"]:
                for row in rows:
                    if row["patterns"] == s["patterns"]:
                        row["gpu_inplace_bytes_s"] = s["gpu_inplace_bytes_s"]
                        row["inplace_hyperscan_core_bytes_s"] = s["hyperscan_core_bytes_s"]
                        row["gpu_inplace_over_hyperscan"] = s["gpu_vs_hyperscan"]
    res["payload"] = rows
    res["targets"]["payload_staged_10x_hyperscan"] = \
        all(r.get("gpu_staged_over_hyperscan", 0) >= 10 for r in rows)
    res["targets"]["payload_inplace_30x_hyperscan"] = \
        all(r.get("gpu_inplace_over_hyperscan", 0) >= 30 for r in rows)
    return 0


def rules_row(prog, rules_bench, cap, rf, vf, tag, tmp):
    """one rule set over the 1500-byte frames: in place, staged, the CPU peer"""
    rj = os.path.join(tmp, "rules-inplace-%s.json" % tag)
    rc, so, se = run([rules_bench, "--bench", rj, rf, vf, cap])
    if rc == 77:
        return None
    if rc != 0:
        raise RuntimeError("test_gpu_rules --bench: " + se[-500:] + so[-500:])
    r = json.load(open(rj))
    rep = os.path.join(tmp, "rules-rep-%s.json" % tag)
    # the generated frames' 65,536 flows in a table of twice as many slots:
    # the tables read back after each pass are a fixed cost of the staged
    # figure (a quarter of it at 200,000 frames with 262,144 slots)
    args = ["--rules", rf, "--rule-vars", vf, "--flows", "131072", "--batch", "65536",
            "--batch-bytes", "134217728"]
    one = bench(prog, cap, "gpu", args + ["--repeat", "1", "--report", rep],
                os.path.join(tmp, "rules1-%s.json" % tag))
    if not one["gpu"]["ran"]:
        return None
    got = json.load(open(rep))["rules"]
    st = bench(prog, cap, "gpu", args + ["--repeat", "3", "--threads", "8", "--memory"],
               os.path.join(tmp, "rules8-%s.json" % tag))
    staged = r["payload_bytes"] * st["gpu"]["packets_per_s"] / st["packets_per_pass"]
    hs = r["hyperscan_core_bytes_s"]
    return {"rules": r["rules"], "fast_patterns": r["fast_patterns"], "frames": RULES_FRAMES,
            "payload_bytes_per_pass": r["payload_bytes"],
            "gpu_inplace_gbit_s": r["gpu_inplace_bytes_s"] * 8 / 1e9,
            "gpu_staged_gbit_s": staged * 8 / 1e9,
            "hyperscan_core_gbit_s": hs * 8 / 1e9,
            "cpu_engine_core_gbit_s": r["cpu_engine_core_bytes_s"] * 8 / 1e9,
            "gpu_inplace_over_hyperscan": r["gpu_inplace_bytes_s"] / hs if hs else 0,
            "gpu_staged_over_hyperscan": staged / hs if hs else 0,
            "gpu_engine_alerts": got["alerts"], "gpu_inplace_alerts": r["gpu_alerts"],
            "cpu_alerts_on_a_tenth": r["cpu_alerts"],
            "staged_parts": {k: st["gpu"].get(k) for k in ("seconds", "read_s", "collect_s",
                                                           "merge_s", "kernel_ms",
                                                           "busy_ms")}}


def rules(prog, rules_bench, sets, tmp, res):
    cap = os.path.join(tmp, "r1500.pcap")
    rc, so, se = run([prog, "--generate", str(RULES_FRAMES), "--frame-size", "1500", cap])
    if rc != 0:
        raise RuntimeError("--generate: " + se)
    os.sync()
    rows = []
    for tag, rf, vf in sets:
        row = rules_row(prog, rules_bench, cap, rf, vf, tag, tmp)
        if row is None:
            return 77
        row["set"] = tag
        rows.append(row)
    res["rules"] = rows
    res["targets"]["rules_inplace_30x_hyperscan"] = \
        all(r["gpu_inplace_over_hyperscan"] >= 30 for r in rows)
    res["targets"]["rules_staged_10x_hyperscan"] = \
        all(r["gpu_staged_over_hyperscan"] >= 10 for r in rows)
    res["targets"]["rules_engine_alerts_equal_inplace"] = \
        all(r["gpu_engine_alerts"] == r["gpu_inplace_alerts"] for r in rows)
    return 0


# batches of 32768 packets (8 MiB): measured faster than 262144 at every
# thread count (their descriptors stay in the feeding core's cache)
BATCH_ARGS = ["--batch", "32768", "--batch-bytes", "8388608"]
ANALYSIS_ARGS = ["--repeat", "3", "--flows", FLOWS] + BATCH_ARGS
THREADS = (1, 4, 8, 16)
PAYLOAD_FRAMES = 1000000
RULES_FRAMES = 1000000
APP_THREADS = 8


def stages(prog, cap, tmp, res):
    """The GPU engine with each way of reaching it (the analysis rows ran auto)."""
    rows = []
    for t in (1, 8):
        row = {"threads": t}
        for st in ("copy", "gather", "read"):
            d = bench(prog, cap, "gpu", ["--threads", str(t), "--stage", st] + ANALYSIS_ARGS,
                      os.path.join(tmp, "s%d%s.json" % (t, st)))
            row[st + "_mpps"] = d["gpu"]["packets_per_s"] / 1e6
            row[st + "_parts_s"] = {k: d["gpu"].get(k) for k in
                                    ("seconds", "register_s", "read_s", "collect_s",
                                     "merge_s", "kernel_ms")}
        rows.append(row)
    res["gpu_stages"] = rows


def cpu_inputs(prog, cap, tmp, res):
    """The CPU engine (payload inspection off: one untaken branch a packet)
    with records copied into batches and read in place from the mapping."""
    got = {}
    for st in ("copy", "gather"):
        a = bench(prog, cap, "cpu", ["--threads", "1", "--stage", st] + ANALYSIS_ARGS,
                  os.path.join(tmp, "c%s.json" % st))
        got[st] = a["cpu"]["packets_per_s"] / 1e6
    res["cpu_engine"] = {"copied_mpps": got["copy"], "in_place_mpps": got["gather"]}


def main():
    opts = dict(a[2:].split("=", 1) for a in sys.argv[1:] if a.startswith("--"))
    pos = [a for a in sys.argv[1:] if not a.startswith("--")]
    if len(pos) != 1 or "bench" not in opts or "app" not in opts:
        sys.exit(__doc__)
    out = pos[0]
    prog, capp = find(opts["bench"]), find(opts["app"])
    hs_ref, mb = find(opts.get("hs-ref")), find(opts.get("match-bench"))
    rb = find(opts.get("rules-bench"))
    rset = [(tag, opts[k], opts[v]) for tag, k, v in
            (("words", "rules", "rule-vars"), ("dense", "dense-rules", "dense-rule-vars"))
            if k in opts and v in opts]
    n = int(opts.get("packets", "10000000"))
    mkf = find(opts.get("make-flows"))
    only = set(opts["only"].split(",")) if "only" in opts else None
    tmp = tempfile.mkdtemp(prefix="gpudp-bench-capture-")
    res = {"packets": n, "targets": {}}
    try:
        cap = os.path.join(tmp, "gen.pcap")
        rc, so, se = run([prog, "--generate", str(n), cap])
        if rc != 0:
            raise RuntimeError("--generate: " + se)
        os.sync()   # its pages written back: no writeback under the first runs
        steps = [("analysis", lambda: analysis(prog, cap, tmp, res)),
                 ("app", lambda: app(capp, cap, tmp, res)),
                 ("stages", lambda: stages(prog, cap, tmp, res)),
                 ("cpu", lambda: cpu_inputs(prog, cap, tmp, res)),
                 ("payload", lambda: payload(prog, hs_ref, mb, tmp, res)),
                 ("rules", lambda: rules(prog, rb, rset, tmp, res) if rb and rset else None),
                 ("flows", lambda: flows(capp, mkf, cap, tmp, res) if mkf else None)]
        for name, step in steps:
            if (only is None or name in only) and step() == 77:
                print("no GPU: SKIP")
                return 77
    except (RuntimeError, subprocess.TimeoutExpired, KeyError, ValueError) as e:
        print("bench_capture: %s" % e)
        return 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    res["all_targets_met"] = all(res["targets"].values())
    with open(out, "w") as f:
        json.dump(res, f, indent=1)
    print(json.dumps(res, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

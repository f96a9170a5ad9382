#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Runs the gpu suite packed by test/tools/pack.py, on the GPU machine.
# usage: .gpu-carry/run.sh [LOG [REGEX...]]
#   LOG    default $OUT/gpu-suite.log if $OUT is set, else gpu-suite.log
#          beside this; written test by test
#   REGEX  run only the tests whose name matches one of them (Python re,
#          searched), to split the suite over several runs
#   GPUDP_GPU_TIMEOUT_MAX=S  caps each test's time limit (default: four
#          times the test's meson timeout)
# Benchmarks packed with --bench write their JSON into $OUT (or out/ here).
# Prints each test's output and result, then "N passed, N failed, N skipped";
# exits 1 if any test failed.
set -uo pipefail
dir=$(cd "$(dirname "$0")" && pwd)
log=${1:-${OUT:-$dir}/gpu-suite.log}
export LD_LIBRARY_PATH="$dir/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
outdir=${OUT:-$dir/out}
mkdir -p "$outdir"
python3 - "$dir" "$log" "$outdir" "${@:2}" <<'PY'
import json, os, re, subprocess, sys, time
d, logpath, outdir, pats = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
tests = json.load(open(os.path.join(d, "tests.json")))
if pats:
    tests = [t for t in tests if any(re.search(x, t["name"]) for x in pats)]
    if not tests:
        sys.exit("run.sh: no packed test matches %s" % " ".join(pats))
cap = float(os.environ.get("GPUDP_GPU_TIMEOUT_MAX", "0") or 0)
p = f = s = 0
with open(logpath, "w") as log:
    for t in tests:
        argv = [os.path.join(d, a[2:]) if a.startswith("@/") else
                os.path.join(outdir, a[5:]) if a.startswith("@out/") else a
                for a in t["argv"]]
        env = dict(os.environ, **t["env"])
        t0 = time.time()
        try:
            r = subprocess.run(argv, env=env, cwd=d, timeout=min(t["timeout"] * 4, cap) if cap else t["timeout"] * 4,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            rc, out = r.returncode, r.stdout
        except subprocess.TimeoutExpired as e:
            rc, out = "TIMEOUT", (e.stdout or b"").decode(errors="replace")
        res = "OK" if rc == 0 else "SKIP" if rc == 77 else "FAIL"
        p += res == "OK"; f += res == "FAIL"; s += res == "SKIP"
        line = "%-4s %s (%.2f s, exit %s)" % (res, t["name"], time.time() - t0, rc)
        log.write("==== %s\n%s\n%s\n" % (t["name"], out, line))
        log.flush()
        print(out, end="")
        print(line, flush=True)
    tot = "%d passed, %d failed, %d skipped" % (p, f, s)
    log.write(tot + "\n")
print(tot)
sys.exit(1 if f else 0)
PY

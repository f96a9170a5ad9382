#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""A work that faults on the GPU stops gpudp-fwd cleanly (meson suite 'gpu').

usage: work_fault.py GPUDP_FWD FAULT_WORK.so MODE MEM HOW

Runs gpudp-fwd on net_null in MODE on MEM pools with the TEST work 'fault'
(test/lib/handoff/works-gpu/fault_work.c), whose --work-arg HOW ('illegal' or 'trap')
makes every packet fault on the GPU. Checks, each printed:
  - gpudp-fwd exits 1, well before its --duration and without hanging;
  - stderr names the failure: the work, and the CUDA error;
  - the final counters show the bursts in flight as 'error' drops, and
    nothing was transmitted after the fault went unnoticed (tx 0).
Exit 77 when gpudp-fwd says there is no usable GPU.
"""
import json
import os
import subprocess
import sys
import tempfile
import time


def main():
    if len(sys.argv) != 6:
        sys.exit(__doc__)
    fwd, work, mode, mem, how = sys.argv[1:]
    passed = failed = 0

    def check(name, ok, detail=""):
        nonlocal passed, failed
        print("%s %s%s" % ("ok  " if ok else "FAIL", name, "" if ok else ": %s" % detail))
        passed += ok
        failed += not ok

    with tempfile.TemporaryDirectory() as d:
        js = os.path.join(d, "out.json")
        cmd = [fwd, "--no-huge", "-m", "1024", "--no-pci", "-l", "0-1",
               "--file-prefix", "fault-%s-%s-%s-%d" % (mode, mem, how, os.getpid()),
               "--vdev", "net_null0", "--", "--mode", mode, "--mem", mem,
               "--pipeline-lcores", "1", "--pairing", "same", "--burst", "64",
               "--duration", "20", "--stats", "0", "--json", js,
               "--work", work, "--work-arg", how]
        t0 = time.monotonic()
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        except subprocess.TimeoutExpired:
            check("gpudp-fwd returns after the fault", False, "still running after 60 s")
            print("%d passed, %d failed" % (passed, failed + 1))
            return 1
        secs = time.monotonic() - t0
        if r.returncode == 77:
            print("SKIP: %s" % (r.stderr.strip().splitlines() or ["no GPU"])[-1])
            return 77
        err = r.stderr
        check("exit status 1 (got %d)" % r.returncode, r.returncode == 1, err[-800:])
        check("stopped before --duration (%.1f s)" % secs, secs < 15, "")
        check("stderr names the failed work and the CUDA error",
              "the GPU failed under work fault" in err and "CUDA_ERROR_" in err, err[-800:])
        try:
            j = json.load(open(js))
        except (OSError, ValueError) as e:
            j = {}
            check("final counters written (--json)", False, str(e))
        if j:
            errors = j.get("drops", {}).get("error", 0)
            check("the bursts in flight counted as 'error' drops (%d)" % errors, errors > 0,
                  json.dumps(j.get("drops")))
            check("the work named in the counters", j.get("work") == "fault", j.get("work"))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

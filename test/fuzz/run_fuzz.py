#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Run one libFuzzer target for a bounded time (meson suite 'fuzz').

usage: run_fuzz.py TARGET CORPUS_DIR WORK_DIR [libFuzzer options]
       run_fuzz.py --skip REASON

1. Every input of CORPUS_DIR (the committed corpus: starting inputs, and the regression
   input of every earlier finding) runs once.
2. The target fuzzes for GPUDP_FUZZ_SECONDS seconds (default 60), from
   CORPUS_DIR and WORK_DIR/corpus. New inputs go to WORK_DIR/corpus (the build
   directory), so coverage grows from run to run; the committed corpus is
   never written.

A crash, sanitizer report, failed check, leak, input slower than 10 s or a
process above 2 GiB is a finding: the input is kept in WORK_DIR/findings/, the
command that reproduces it is printed, and the test fails. Once the bug is
fixed, copy the input into CORPUS_DIR (as regress-<what>) so that step 1
keeps checking it.

Exit 0, 1 on a finding or error, 77 (meson's SKIP) with --skip.
"""
import glob
import os
import subprocess
import sys


def main():
    a = sys.argv[1:]
    if len(a) >= 2 and a[0] == "--skip":
        print("skip: %s" % a[1])
        return 77
    if len(a) < 3:
        sys.exit(__doc__)
    target, corpus, work, opts = a[0], a[1], a[2], a[3:]
    secs = int(os.environ.get("GPUDP_FUZZ_SECONDS", "60"))
    findings = os.path.join(work, "findings")
    for d in (os.path.join(work, "corpus"), findings):
        os.makedirs(d, exist_ok=True)
    common = ["-timeout=10", "-rss_limit_mb=2048", "-print_final_stats=1",
              "-artifact_prefix=" + findings + "/"] + opts
    name = os.path.basename(target)
    inputs = sorted(glob.glob(os.path.join(corpus, "*")))
    steps = [("%d corpus inputs" % len(inputs), [target] + common + inputs),
             ("%d s of fuzzing" % secs, [target] + common + ["-max_total_time=%d" % secs,
                                                             os.path.join(work, "corpus"),
                                                             corpus])]
    for what, cmd in steps:
        before = set(os.listdir(findings))
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           errors="replace", timeout=secs + 600)
        new = sorted(set(os.listdir(findings)) - before)
        stats = [ln for ln in r.stdout.splitlines() if " DONE " in ln or
                 ln.startswith("stat::number_of_executed_units")]
        if r.returncode != 0 or new:
            print(r.stdout[-6000:])
            print("FAIL %s: %s: exit %d" % (name, what, r.returncode))
            for f in new:
                p = os.path.join(findings, f)
                print("finding: %s\n  reproduce: %s %s\n  once fixed: cp %s %s/regress-<what>"
                      % (p, target, p, p, corpus))
            return 1
        print("ok   %s: %s %s" % (name, what, stats[-1] if stats else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""gpudp-fwd persistent mode: every block must be resident (doc/fwd.md).

usage: persistent_blocks.py FWD

- --persistent-blocks max with two ports (two pipelines) on GPU 0: each
  pipeline's handoff logs its blocks, the two get the same count, both
  kernels with their dispatchers fit the GPU's SMs together, and the run
  forwards packets;
- 8192 blocks of 1024 threads (more than any GPU keeps resident): exit 1
  with a message that says so, promptly (before, the kernel waited for SMs
  forever and gpudp-fwd never stopped).
Exit 77 without a GPU.
"""
import os
import re
import subprocess
import sys

# a main lcore and one per pipeline, on as many CPUs as there are up to three
CPUS = ["-l", "0-2"] if (os.cpu_count() or 1) >= 3 else ["--lcores", "(0-2)@(0-%d)" % (
    (os.cpu_count() or 1) - 1)]
EAL = ["--no-huge", "-m", "1024", "--no-pci"] + CPUS + [
    "--vdev", "net_null0", "--vdev", "net_null1", "--log-level", "gpudp.handoff:info"]
APP = ["--mode", "persistent", "--mem", "device", "--pipeline-lcores", "1",
       "--pairing", "same", "--gpu", "0", "--stats", "0"]
LINE = re.compile(r"(\d+) persistent blocks of (\d+) threads and a dispatcher on GPU (\d+) "
                  r"\((\d+) per SM, ([\d.]+) of its (\d+) SMs\)")


def fwd(prog, prefix, extra, timeout):
    cmd = [prog] + EAL + ["--file-prefix", prefix, "--"] + APP + extra
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        print("FAIL: %s did not end in %d s" % (" ".join(cmd), timeout))
        sys.exit(1)
    if r.returncode == 77:
        print("SKIP: no GPU: " + (r.stdout + r.stderr).strip().splitlines()[-1])
        sys.exit(77)
    return r.returncode, r.stdout + r.stderr


def main():
    prog = sys.argv[1]
    bad = []
    rc, log = fwd(prog, "pblk-max", ["--persistent-blocks", "max", "--ring", "1024",
                                     "--burst", "64", "--duration", "2",
                                     "--min-forwarded", "100000"], 120)
    got = [tuple(float(x) for x in m.groups()) for m in LINE.finditer(log)]
    if rc != 0:
        bad.append("--persistent-blocks max exited %d" % rc)
    if len(got) != 2:
        bad.append("%d residency lines, want one per pipeline (2)" % len(got))
    else:
        (b0, t0, _, per_sm, _, sms), (b1, _, _, _, _, _) = got
        if b0 != b1 or b0 < 1:
            bad.append("the two pipelines got %d and %d blocks" % (b0, b1))
        if 2 * (b0 + 1) > per_sm * sms:
            bad.append("2 x (%d + 1) blocks of %d threads exceed %d per SM x %d SMs"
                       % (b0, t0, per_sm, sms))
        print("max: %d blocks a pipeline (%d per SM, %d SMs)" % (b0, per_sm, sms))
    rc, log = fwd(prog, "pblk-big", ["--persistent-blocks", "8192", "--ring", "8192",
                                     "--threads", "1024", "--burst", "1", "--duration", "2"],
                  120)
    if rc != 1 or "cannot all be resident" not in log:
        bad.append("8192 blocks of 1024 threads: exit %d, message %s" %
                   (rc, "found" if "cannot all be resident" in log else "missing"))
    for b in bad:
        print("FAIL: " + b)
    if bad:
        print(log[-3000:])
        return 1
    print("OK: max fills the GPU between the pipelines; too many blocks refused")
    return 0


if __name__ == "__main__":
    sys.exit(main())

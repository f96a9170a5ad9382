#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""gpudp-fwd on an integrated GPU (doc/tegra.md), on test/common's fake libcuda.

usage:
  integrated_gpu.py FWD FAKE_LIBCUDA OUTDIR
      dpdk suite: net_null ports on the fake's integrated device
      (GPUDP_FAKE_CUDA_INTEGRATED=uva, then devptr): device pools are
      cuMemHostAlloc memory (the fake's report: host allocations made, none
      left, no cuMemAlloc), write-combined with --igpu-alloc wc, used through
      the host pointer or the device pointer as the attributes say; launch
      mode forwards over them (GPUDP_FAKE_CUDA_ENGINE=complete); --check
      reports the integrated GPU and skips BAR1. On the fake's discrete
      device --igpu-alloc wc changes nothing (cuMemAlloc, a notice) and
      --check has no igpu finding. A bad --igpu-alloc value exits 2 naming it.
      A net_pcap port (the CPU writes its packets) in a device pool: refused
      on the discrete device (exit 2, the port and the way out named), where
      the CPU could not write into the GPU's memory; forwarded on the
      integrated one, whose pool is host memory.
Prints ok/FAIL lines and the totals line; exit 1 on any failure.
"""
import os
import re
import struct
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "common"))
from gpudp_checks import Checks  # noqa: E402


def run(fwd, fake, out, tag, app_args, integrated, extra_env=None, vdev="net_null0"):
    rep = os.path.join(out, tag + ".fake")
    if os.path.exists(rep):
        os.unlink(rep)
    env = dict(os.environ, GPUDP_LIBCUDA=fake, GPUDP_FAKE_CUDA_REPORT=rep)
    env.pop("GPUDP_FAKE_CUDA_INTEGRATED", None)
    env.pop("GPUDP_FAKE_CUDA_ENGINE", None)
    if integrated:
        env["GPUDP_FAKE_CUDA_INTEGRATED"] = integrated
    env.update(extra_env or {})
    args = [fwd, "--no-huge", "-m", "512", "--no-pci", "--no-telemetry",
            "--lcores", "(0-2)@(0-1)", "--file-prefix", "igpu-%s-%d" % (tag, os.getpid()),
            "--vdev", vdev, "--"] + app_args
    r = subprocess.run(args, capture_output=True, text=True, timeout=120, env=env)
    dev = {}
    if os.path.exists(rep):
        f = open(rep).readline().split()
        dev = {f[i]: f[i + 1] for i in range(0, len(f) - 1, 2)}
    return r, dev


def pools_on_host_alloc(c, r, dev, tag, wc, direct):
    log = r.stdout + r.stderr
    flags = "write-combined" if wc else "default flags, not write-combined"
    ptr = "host pointer" if direct else "device pointer (cuMemHostGetDevicePointer)"
    c.check("%s: exit 0" % tag, r.returncode == 0, log[-600:])
    c.check("%s: GPU 0 said integrated, %s" % (tag, ptr),
            re.search(r"GPU 0 \(0000:fe:00\.0\) is integrated \(it shares DRAM with the CPU\): "
                      r"device and split pools from cuMemHostAlloc, %s \(--igpu-alloc %s\), "
                      r"used through the %s" % ("write-combined" if wc else "not write-combined",
                                                "wc" if wc else "default", re.escape(ptr)),
                      log) is not None, log[-600:])
    c.check("%s: the pool is cuMemHostAlloc memory (%s)" % (tag, flags),
            re.search(r"pool fwd_p0_q0: GPU 0 is integrated: its \d+ bytes are host memory "
                      r"from cuMemHostAlloc \(%s\)" % re.escape(flags), log) is not None,
            log[-600:])
    c.check("%s: host allocations made, none left, no cuMemAlloc (%s)" % (tag, dev),
            int(dev.get("host_allocs", "0")) > 0 and dev.get("left_host_allocs") == "0" and
            dev.get("allocs") == "0" and
            "released: 0 allocations, 0 registrations left" in log, log[-400:])


def main():
    if len(sys.argv) != 4:
        print(__doc__)
        return 2
    fwd, fake, out = sys.argv[1:]
    os.makedirs(out, exist_ok=True)
    c = Checks()
    none = ["--mode", "none", "--mem", "device", "--pipeline-lcores", "1", "--duration", "1",
            "--quiet"]
    for mode, direct in (("uva", True), ("devptr", False)):
        r, dev = run(fwd, fake, out, mode, none, mode)
        pools_on_host_alloc(c, r, dev, "%s default" % mode, False, direct)
        r, dev = run(fwd, fake, out, mode + "-wc", none + ["--igpu-alloc", "wc"], mode)
        pools_on_host_alloc(c, r, dev, "%s --igpu-alloc wc" % mode, True, False)
        r, dev = run(fwd, fake, out, mode + "-launch",
                     ["--mode", "launch", "--mem", "device", "--pipeline-lcores", "1",
                      "--duration", "1", "--quiet", "--min-forwarded", "1000"], mode,
                     {"GPUDP_FAKE_CUDA_ENGINE": "complete"})
        c.check("%s: launch mode forwards over the integrated GPU's pool (%s)" % (mode, dev),
                r.returncode == 0 and int(dev.get("host_allocs", "0")) > 0 and
                dev.get("left_host_allocs") == "0", (r.returncode, r.stderr[-600:]))
        r, dev = run(fwd, fake, out, mode + "-check", ["--check", "--mem", "device"], mode)
        o = r.stdout
        c.check("%s: --check says integrated, skips BAR1, exit 0" % mode,
                r.returncode == 0 and
                re.search(r"^ok    igpu   GPU 0000:fe:00\.0 is integrated", o, re.M) and
                re.search(r"^ok    igpu   GPU 0000:fe:00\.0: integrated 1, can map host memory 1, "
                          r"unified addressing %d" % direct, o, re.M) and
                re.search(r"^skip  bar1   GPU 0000:fe:00\.0 is integrated: no BAR1", o, re.M) and
                re.search(r"^info  igpu   GPU 0 is integrated", o, re.M) and
                "0 failed checks" in o, o[-1200:])
    # a discrete GPU: nothing changes
    r, dev = run(fwd, fake, out, "discrete-wc", none + ["--igpu-alloc", "wc"], None)
    log = r.stdout + r.stderr
    c.check("discrete: --igpu-alloc wc does not apply: cuMemAlloc pools (%s)" % dev,
            r.returncode == 0 and "--igpu-alloc wc: GPU 0 (0000:fe:00.0) is not integrated" in log
            and int(dev.get("allocs", "0")) > 0 and dev.get("host_allocs") == "0" and
            "is integrated" not in log, log[-600:])
    r, dev = run(fwd, fake, out, "discrete-check", ["--check", "--mem", "device"], None)
    c.check("discrete: --check has no igpu finding",
            r.returncode in (0, 1) and "igpu" not in r.stdout and "failed checks" in r.stdout,
            r.stdout[-600:])
    # a software PMD's port in a device pool
    cap = os.path.join(out, "in.pcap")
    with open(cap, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        for i in range(64):
            fr = bytes(12) + b"\x08\x00" + bytes(46)
            f.write(struct.pack("<IIII", 1700000000, i, len(fr), len(fr)) + fr)
    pcap = "net_pcap0,rx_pcap=%s,tx_pcap=%s" % (cap, os.path.join(out, "out.pcap"))
    launch = ["--mode", "launch", "--pipeline-lcores", "1", "--count", "64", "--duration", "5",
              "--quiet"]
    r, dev = run(fwd, fake, out, "discrete-pcap", launch, None, vdev=pcap)
    c.check("discrete: a net_pcap port in a device pool is refused, not a crash",
            r.returncode == 2 and "--mem device (the default of the mode): port 0 is a "
            "software PMD that copies every packet with the CPU, and the CPU cannot write "
            "into the GPU's memory: use --mem pinned" in r.stderr,
            (r.returncode, r.stderr[-400:]))
    r, dev = run(fwd, fake, out, "uva-pcap", launch + ["--mem", "device"], "uva",
                 {"GPUDP_FAKE_CUDA_ENGINE": "complete"}, vdev=pcap)
    c.check("integrated: a net_pcap port forwards through a device pool of host memory",
            r.returncode == 0 and re.search(r"tx 64 pkts", r.stdout) is not None,
            (r.returncode, r.stdout[-300:], r.stderr[-300:]))
    r = subprocess.run([fwd, "--no-huge", "--", "--igpu-alloc", "writecombined"],
                       capture_output=True, text=True, timeout=30)
    c.check("--igpu-alloc writecombined: exit 2 naming the value",
            r.returncode == 2 and "--igpu-alloc: bad value 'writecombined' (expected default "
            "or wc)" in r.stderr, (r.returncode, r.stderr[-300:]))
    return c.status()


if __name__ == "__main__":
    sys.exit(main())

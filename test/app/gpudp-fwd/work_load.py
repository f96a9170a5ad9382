#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""gpudp-fwd --work on works' shared objects (doc/work.md), end to end.

usage: work_load.py FWD DIR NAME=PATH...

NAME=PATH: the shared objects of test/lib/handoff/works (good, no_entry,
abi_mismatch, corrupt_image, null_descriptor, no_cpu_form); DIR: a scratch
directory.

- every bad work file, a text file, a missing file and an unknown name
  exit 2 before the EAL starts, and stderr names the file and the cause;
- the good work (CPU only) in a GPU mode exits 2: it has no GPU image; an
  argument it does not take exits 2;
- the good work in --mode cpu forwards a capture through net_pcap: every
  frame of 14 bytes or more comes out with its MAC addresses swapped, the
  shorter ones are dropped as its reason "short", and --json names the
  work, its reason and its counters with the right values.
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "common"))
import fwd_pcap  # noqa: E402  (the capture reader/writer and frame mix)

EAL_FREE = ["--no-huge", "--no-pci", "--"]

# (work, cause stderr must contain); each also names the file
BAD_FILES = [
    ("no_entry", "no entry point gpudp_work_entry"),
    ("abi_mismatch", "built for work ABI 5, this gpudp has ABI 4"),
    ("corrupt_image", "GPU image: not a fatbin, a cubin or PTX"),
    ("null_descriptor", "gpudp_work_entry returned no descriptor"),
    ("no_cpu_form", "no CPU form"),
]


class Checks:
    def __init__(self):
        self.passed = self.failed = 0

    def check(self, ok, what, detail=""):
        if ok:
            self.passed += 1
            print("ok   %s" % what)
        else:
            self.failed += 1
            print("FAIL %s%s" % (what, ": " + detail if detail else ""))


def fwd_usage(c, fwd, args, what, says):
    """gpudp-fwd with @args exits 2 and its stderr has every string of @says"""
    r = subprocess.run([fwd] + EAL_FREE + args, capture_output=True, text=True, timeout=30)
    missing = [s for s in says if s not in r.stderr]
    c.check(r.returncode == 2 and not missing and "EAL" not in r.stderr, what,
            "exit %d, stderr %r lacks %r" % (r.returncode, r.stderr.strip()[-400:], missing))


def bad_works(c, fwd, so, d):
    for name, cause in BAD_FILES:
        fwd_usage(c, fwd, ["--work", so[name]], "--work %s: exit 2, %s" % (name, cause),
                  [so[name], cause])
    text = os.path.join(d, "text_work.so")
    with open(text, "w") as f:
        f.write("not a shared object\n")
    fwd_usage(c, fwd, ["--work", text], "--work a text file: exit 2",
              [text, "not a loadable shared object"])
    missing = os.path.join(d, "no-such-work.so")
    fwd_usage(c, fwd, ["--work", missing], "--work a missing file: exit 2",
              [missing, "No such file or directory"])
    fwd_usage(c, fwd, ["--work", "nosuchname"], "--work an unknown name: exit 2",
              ["--work: bad value 'nosuchname'", "no such built-in work"])
    for mode in ("launch", "persistent", "graph", "staged"):
        fwd_usage(c, fwd, ["--work", so["good"], "--mode", mode],
                  "--work good --mode %s: exit 2, no GPU image" % mode,
                  ["unit_good", so["good"], "has no GPU image", "--mode cpu only"])
    fwd_usage(c, fwd, ["--work", so["good"], "--work-arg", "7"],
              "--work good --work-arg 7: exit 2, takes no argument",
              ["--work-arg", "unit_good takes no argument (got '7')"])


def good_work_forwards(c, fwd, so, d):
    frames = fwd_pcap.frames()
    inp, outp = os.path.join(d, "in.pcap"), os.path.join(d, "out.pcap")
    js = os.path.join(d, "good.json")
    fwd_pcap.write_pcap(inp, frames)
    for p in (outp, js):
        if os.path.exists(p):
            os.unlink(p)
    cmd = [fwd, "--no-huge", "-m", "256", "--no-pci", "--no-telemetry",
           "--file-prefix", "fwdwork-%d" % os.getpid(), "--lcores", "(0-2)@0",
           "--vdev", "net_pcap0,rx_pcap=%s,tx_pcap=%s" % (inp, outp), "--",
           "--pairing", "same", "--mode", "cpu", "--work", so["good"], "--burst", "32",
           "--count", str(len(frames)), "--duration", "30", "--ring", "8",
           "--flush-us", "100", "--stats", "0", "--mbufs", "16384", "--json", js]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    c.check(r.returncode == 0, "--work good --mode cpu on net_pcap: exit 0",
            "exit %d: %s" % (r.returncode, r.stderr[-1500:]))
    if r.returncode != 0:
        return
    runts = [f for f in frames if len(f) < 14]
    want = [f[6:12] + f[0:6] + f[12:] for f in frames if len(f) >= 14]
    got = fwd_pcap.read_pcap(outp)
    c.check(got == want, "every frame of 14 bytes or more out, MACs swapped",
            "%d out, %d expected" % (len(got), len(want)))
    try:
        with open(js) as f:
            j = json.load(f)
    except (OSError, ValueError) as e:
        c.check(False, "--json readable", str(e))
        return
    drops, counters = j.get("drops", {}), j.get("counters", {})
    c.check(j.get("work") == "unit_good" and j.get("mode") == "cpu",
            "--json: work unit_good, mode cpu", "work %r mode %r" % (j.get("work"), j.get("mode")))
    c.check(drops.get("short") == len(runts) and drops.get("error") == 0,
            "--json: %d runts dropped as 'short', no 'error'" % len(runts), "drops %r" % drops)
    c.check(counters == {"pkts": len(frames), "bytes": sum(len(f) for f in frames)},
            "--json: the work's counters pkts=%d bytes=%d" % (len(frames),
                                                              sum(len(f) for f in frames)),
            "counters %r" % counters)
    c.check(j.get("tx_pkts") == len(want), "--json: tx_pkts %d" % len(want),
            "tx_pkts %r" % j.get("tx_pkts"))
    final = [ln for ln in r.stdout.splitlines() if ln.startswith("final:")]
    c.check(len(final) == 1 and " short=%d" % len(runts) in final[0] and
            " pkts=%d" % len(frames) in final[0],
            "final line: the work's reason and counters", "%r" % final)


def main():
    a = sys.argv[1:]
    if len(a) < 3:
        sys.exit(__doc__)
    fwd, d = a[0], a[1]
    so = dict(x.split("=", 1) for x in a[2:])
    missing = [n for n, _ in BAD_FILES + [("good", "")] if n not in so]
    if missing:
        sys.exit("work_load.py: no path for %s" % ", ".join(missing))
    os.makedirs(d, exist_ok=True)
    c = Checks()
    bad_works(c, fwd, so, d)
    good_work_forwards(c, fwd, so, d)
    print("%d passed, %d failed, 0 skipped" % (c.passed, c.failed))
    sys.exit(1 if c.failed else 0)


if __name__ == "__main__":
    main()

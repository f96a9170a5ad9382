#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""CPU instructions per forwarded packet: gpudp-fwd against dpdk-testpmd.

usage: bench_fwd_ipp.py --fwd=PATH --testpmd=PATH [--fake-libcuda=PATH]
                        [--seconds=S] [--burst=N] JSON

Each program forwards between two net_null ports on two forwarding lcores
under `valgrind --tool=callgrind`, which counts the instructions executed
inside the forwarding loop (run_pkt_fwd_on_lcore for testpmd,
fwd_lcore_main for gpudp-fwd) and nothing of start-up or shutdown. The
count divided by the packets transmitted is the same on every run of the
same binaries, whatever else the machine does, so unlike bench_fwd's
packet rates it shows a change of a few instructions per packet
(doc/benchmarks.md "fwd_instructions_per_packet"). It counts instructions,
not cycles: cache misses and pipeline stalls are not in it.

Runs:
  testpmd io-forward, native mbufs (the peer of bench_fwd);
  testpmd io-forward, --mp-alloc=xbuf (pinned-external-buffer mbufs, the
    kind gpudp's GPU pools are made of, buffers in host memory);
  gpudp-fwd --mode none on a host pool (one lcore per pipeline: the io
    loop, no handoff; its bytes are the ports' counters, doc/fwd.md);
  gpudp-fwd --mode none on a device pool, when --fake-libcuda is given:
    test/common's fake libcuda (named so) stands in for the GPU, and the CPU
    never touches a packet's bytes in mode none, so the count is the one
    a real device pool gives. The GPU modes cannot run on the fake.

Exit 77 (meson SKIP) when valgrind or a program is missing.
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile

EAL = ["--no-huge", "-m", "1024", "--no-pci", "--lcores", "(0-2)@(0-1)",
       "--vdev", "net_null0", "--vdev", "net_null1"]


def callgrind(argv, toggle, out, log, seconds, env=None):
    """Run argv under callgrind for @seconds of wall time, then SIGINT.
    @return the instructions counted inside @toggle, or None."""
    cmd = ["valgrind", "--tool=callgrind", "--fair-sched=yes", "--callgrind-out-file=" + out,
           "--toggle-collect=" + toggle] + argv
    with open(log, "w") as f:
        p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=f,
                             stderr=subprocess.STDOUT, env=env)
        try:
            p.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            p.send_signal(signal.SIGINT)
            try:
                p.wait(timeout=120)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
    try:
        with open(out) as f:
            m = re.search(r"^summary:\s*(\d+)", f.read(), re.M)
    except OSError:
        return None
    return int(m.group(1)) if m else None


def testpmd_tx_packets(log):
    """TX-packets of testpmd's final 'Accumulated forward statistics'."""
    with open(log, errors="replace") as f:
        text = f.read()
    i = text.rfind("Accumulated forward statistics")
    m = re.search(r"TX-packets:\s*(\d+)", text[i:]) if i >= 0 else None
    return int(m.group(1)) if m else None


def fwd_tx_packets(path):
    try:
        with open(path) as f:
            return json.load(f).get("tx_pkts")
    except (OSError, ValueError):
        return None


def main():
    opts, rest = {}, []
    for a in sys.argv[1:]:
        k, eq, v = a.partition("=")
        if a.startswith("--") and eq:
            opts[k[2:]] = v
        else:
            rest.append(a)
    if len(rest) != 1 or not {"fwd", "testpmd"} <= opts.keys() or \
            not opts.keys() <= {"fwd", "testpmd", "fake-libcuda", "seconds", "burst"}:
        sys.exit(__doc__.split("\n\n")[1])
    # meson runs it in a fresh build tree too, where build/bench/ is not there yet
    os.makedirs(os.path.dirname(os.path.abspath(rest[0])), exist_ok=True)
    seconds = float(opts.get("seconds", "30"))
    burst = opts.get("burst", "32")
    if shutil.which("valgrind") is None:
        print("bench_fwd_ipp: valgrind not found: skipped")
        return 77
    for k in ("fwd", "testpmd"):
        if not os.access(opts[k], os.X_OK):
            print("bench_fwd_ipp: %s not found: skipped" % opts[k])
            return 77
    tmp = tempfile.mkdtemp(prefix="gpudp-ipp-")
    tp_args = ["--", "--forward-mode=io", "--nb-cores=2", "--rxq=1", "--txq=1",
               "--stats-period=1", "--burst=" + burst, "--total-num-mbufs=32768"]
    runs = [("testpmd", "native", None), ("testpmd", "xbuf", None),
            ("gpudp-fwd", "host", None)]
    if "fake-libcuda" in opts:
        runs.append(("gpudp-fwd", "device", opts["fake-libcuda"]))
    results = []
    for prog, mem, fake in runs:
        name = "%s-%s" % (prog, mem)
        out = os.path.join(tmp, name + ".cg")
        log = os.path.join(tmp, name + ".log")
        env = dict(os.environ)
        if fake is not None:
            env["GPUDP_LIBCUDA"] = fake
        if prog == "testpmd":
            argv = [opts["testpmd"]] + EAL + ["--file-prefix", "ipp-tp"] + tp_args + \
                ["--mp-alloc=" + mem]
            ins = callgrind(argv, "run_pkt_fwd_on_lcore", out, log, seconds, env)
            pkts = testpmd_tx_packets(log)
        else:
            jp = os.path.join(tmp, name + ".json")
            argv = [opts["fwd"]] + EAL + ["--file-prefix", "ipp-fwd", "--",
                    "--mode", "none", "--mem", mem, "--queues", "1",
                    "--pipeline-lcores", "1", "--burst", burst, "--rx-burst", burst,
                    "--stats", "0", "--json", jp]
            ins = callgrind(argv, "fwd_lcore_main", out, log, seconds, env)
            pkts = fwd_tx_packets(jp)
        ipp = ins / pkts if ins and pkts else None
        print("%-10s %-7s %14s instructions %12s packets: %s per packet" %
              (prog, mem, ins, pkts, "%.1f" % ipp if ipp else "n/a (see %s)" % log))
        results.append({"program": prog, "mem": mem, "instructions": ins,
                        "tx_packets": pkts, "instr_per_pkt": ipp})
    base = {r["mem"]: r["instr_per_pkt"] for r in results if r["program"] == "testpmd"}
    for r in results:
        for peer in ("native", "xbuf"):
            b = base.get(peer)
            r["ratio_to_testpmd_" + peer] = \
                round(b / r["instr_per_pkt"], 4) if b and r["instr_per_pkt"] else None
    with open(rest[0], "w") as f:
        json.dump({"what": "callgrind instructions per transmitted packet, inside the "
                   "forwarding loop; ratio = peer's / this run's (the packet-rate "
                   "ratio if every instruction took the same time)",
                   "vdevs": "net_null0,net_null1", "forwarding_lcores": 2,
                   "burst": int(burst), "runs": results}, f, indent=1)
    print("wrote %s" % rest[0])
    failed = [r for r in results if r["instr_per_pkt"] is None]
    if not failed:
        shutil.rmtree(tmp, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

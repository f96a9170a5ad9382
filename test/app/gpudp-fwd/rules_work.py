#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""gpudp-fwd's built-in work `rules` on net_pcap against the tests' reference.

usage: rules_work.py FWD REF CAPTURE RULES VARS MODE DIR [extra app options]

gpudp-fwd forwards CAPTURE (rx_pcap -> tx_pcap, --pairing same) with
--work rules --work-arg RULES,vars=VARS in MODE. REF (rules-capture-ref)
checks every rule on every record of CAPTURE. Then:
- the output capture is the input without the records a drop rule matches,
  in order, byte for byte;
- the work's counters alerted, alerts and dropped are the reference's:
  records some rule matched, rules matched, records a drop rule matched;
- the final line's dropped_by_rule is that count too.
Exit 0 when all hold, 1 otherwise, 77 when gpudp-fwd exits 77 (no GPU).
"""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "common"))
from fwd_pcap import read_pcap  # noqa: E402  (test/common)
from gpudp_checks import Checks  # noqa: E402


def drop_sids(rules):
    """the sids of the drop rules of a rule file"""
    out = set()
    with open(rules) as f:
        for line in f:
            m = re.match(r"\s*drop\s.*\bsid\s*:\s*(\d+)", line)
            if m:
                out.add(int(m.group(1)))
    return out


def main():
    if len(sys.argv) < 8:
        sys.exit(__doc__)
    fwd, ref, cap, rules, vars_, mode, d = sys.argv[1:8]
    extra = sys.argv[8:]
    os.makedirs(d, exist_ok=True)
    c = Checks()
    outp, rep = os.path.join(d, "out-%s.pcap" % mode), os.path.join(d, "report-%s.json" % mode)
    refp = os.path.join(d, "ref.json")
    for p in (outp, rep):
        if os.path.exists(p):
            os.unlink(p)
    n_in = len(read_pcap(cap))
    cmd = [fwd, "--no-huge", "-m", "256", "--no-pci", "--no-telemetry",
           "--file-prefix", "rules-work-%d" % os.getpid(), "--lcores", "(0-2)@0",
           "--vdev", "net_pcap0,rx_pcap=%s,tx_pcap=%s" % (cap, outp), "--",
           "--pairing", "same", "--mode", mode, "--work", "rules",
           "--work-arg", "%s,vars=%s" % (rules, vars_), "--count", str(n_in),
           "--duration", "30", "--stats", "0", "--json", rep] + extra
    print("$ " + " ".join(cmd), flush=True)
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    print(r.stdout[-2000:] + r.stderr[-2000:])
    if r.returncode == 77:
        return 77
    if not c.check("gpudp-fwd runs the rules work in %s mode" % mode, r.returncode == 0,
                "exit %d" % r.returncode):
        return c.status()
    rr = subprocess.run([ref, "--rule-vars", vars_, "--rules", rules, "--json", refp, cap],
                        capture_output=True, text=True, timeout=300)
    if not c.check("the reference runs", rr.returncode == 0, rr.stderr[-500:]):
        return c.status()
    with open(refp) as f:
        want = json.load(f)
    drops = drop_sids(rules)
    dropped = sorted({a[7] for a in want["list"] if a[1] in drops})
    frames = read_pcap(cap)
    expect = [fr for i, fr in enumerate(frames) if i not in set(dropped)]
    got = read_pcap(outp)
    c.check("the output is the input without what a drop rule matches",
         got == expect and len(dropped) > 0,
         "%d packets out, %d expected (%d dropped by the reference)" %
         (len(got), len(expect), len(dropped)))
    with open(rep) as f:
        report = json.load(f)
    ctr = report.get("counters", {})
    c.check("the work's counters are the reference's",
         (ctr.get("alerted"), ctr.get("alerts"), ctr.get("dropped")) ==
         (want["alerted"], want["alerts"], len(dropped)),
         "gpudp-fwd %s, reference alerted %d alerts %d dropped %d" %
         ({k: ctr.get(k) for k in ("alerted", "alerts", "dropped")}, want["alerted"],
          want["alerts"], len(dropped)))
    m = re.search(r"dropped_by_rule=(\d+)", r.stdout)
    c.check("the final line counts the drops", m is not None and int(m.group(1)) == len(dropped),
         m.group(0) if m else r.stdout[-300:])
    return c.status()


if __name__ == "__main__":
    sys.exit(main())

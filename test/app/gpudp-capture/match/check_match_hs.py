#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Compare gpudp-capture's payload inspection with Hyperscan's on one capture.

usage: check_match_hs.py HS_CAPTURE_REF PATTERNS SCOPE CAPTURE [--min-seen N] -- COMMAND...

COMMAND (gpudp-capture or gpudp-capture-bench, given --match PATTERNS
--match-scope SCOPE) is run with every "@JSON@" replaced by a temporary
report path; HS_CAPTURE_REF (the Hyperscan reference) is run on the same
capture, patterns and scope. The "match" objects of both reports must be
equal in every field but "file": scope, patterns, scanned, scanned_bytes,
matched, occurrences, and per_pattern (the same names in the same order,
each with the same packets and occurrences). The first differences are
printed by pattern name (at most 20, then a count).
--min-seen N: the reference must find at least N patterns (so that a
comparison of zeros cannot pass by accident).

Exit 0 when equal, 1 on any difference or failure, 77 when COMMAND exits
77 (no GPU).
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

FIELDS = ("scope", "patterns", "scanned", "scanned_bytes", "matched", "occurrences")
SHOW = 20


def run(cmd):
    print("$ " + " ".join(cmd), flush=True)
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    sys.stdout.write(r.stdout[-4000:])
    sys.stdout.write(r.stderr[-4000:])
    return r.returncode


def load_match(path, who, diffs):
    try:
        with open(path) as f:
            rep = json.load(f)
    except (OSError, ValueError) as e:
        diffs.append("%s: no JSON report: %s" % (who, e))
        return None
    m = rep.get("match") if isinstance(rep, dict) else None
    if not isinstance(m, dict):
        diffs.append('%s: the report has no "match" object' % who)
        return None
    return m


def compare(ours, ref):
    """the differences between two "match" objects, as lines"""
    diffs = []
    for k in FIELDS:
        if ours.get(k) != ref.get(k):
            diffs.append("%s: gpudp %r, hyperscan %r" % (k, ours.get(k), ref.get(k)))
    po, pr = ours.get("per_pattern"), ref.get("per_pattern")
    if not isinstance(po, list):
        diffs.append("per_pattern: gpudp has %r, not a list" % (type(po).__name__,))
        return diffs
    if len(po) != len(pr):
        diffs.append("per_pattern: gpudp lists %d patterns, hyperscan %d" % (len(po), len(pr)))
    for i, r in enumerate(pr):
        o = po[i] if i < len(po) else None
        if not isinstance(o, dict):
            diffs.append("pattern %s (#%d): missing from gpudp's report" % (r["name"], i))
            continue
        if o.get("name") != r["name"]:
            diffs.append("pattern #%d: gpudp names it %r, hyperscan %r" %
                         (i, o.get("name"), r["name"]))
            continue
        for k in ("packets", "occurrences"):
            if o.get(k) != r[k]:
                diffs.append("pattern %s (#%d): %s: gpudp %r, hyperscan %r" %
                             (r["name"], i, k, o.get(k), r[k]))
    return diffs


def main(argv):
    if "--" not in argv:
        sys.stderr.write(__doc__)
        return 2
    sep = argv.index("--")
    args, cmd = argv[1:sep], argv[sep + 1:]
    min_seen = 0
    if "--min-seen" in args:
        i = args.index("--min-seen")
        min_seen = int(args[i + 1])
        del args[i:i + 2]
    if len(args) != 4 or not cmd:
        sys.stderr.write(__doc__)
        return 2
    ref_exe, patterns, scope, capture = args
    tmp = tempfile.mkdtemp(prefix="gpudp-match-hs-")
    try:
        ref_json = os.path.join(tmp, "ref.json")
        our_json = os.path.join(tmp, "gpudp.json")
        if run([ref_exe, "--match", patterns, "--match-scope", scope, "--json", ref_json,
                capture]) != 0:
            print("FAIL hs-capture-ref failed")
            return 1
        rc = run([a.replace("@JSON@", our_json) for a in cmd])
        if rc == 77:
            print("SKIP the command exited 77")
            return 77
        diffs = []
        if rc != 0:
            diffs.append("the command exited %d" % rc)
        ref = load_match(ref_json, "hs-capture-ref", diffs)
        ours = load_match(our_json, "gpudp", diffs) if rc == 0 else None
        if ref is None:
            print("FAIL " + "; ".join(diffs))
            return 1
        seen = sum(1 for p in ref["per_pattern"] if p["packets"] > 0)
        if seen < min_seen:
            diffs.append("hyperscan finds %d patterns, fewer than --min-seen %d" %
                         (seen, min_seen))
        if ours is not None:
            diffs += compare(ours, ref)
        for d in diffs[:SHOW]:
            print("MISMATCH " + d)
        if len(diffs) > SHOW:
            print("... and %d more differences" % (len(diffs) - SHOW))
        if diffs:
            print("to list the records where pattern NAME occurs: %s --match %s "
                  "--match-scope %s --list NAME %s" % (ref_exe, patterns, scope, capture))
            print("FAIL %d differences" % len(diffs))
            return 1
        print("ok   %s, %s scope: %d records, %d bytes scanned, %d patterns (%d seen), "
              "%d records matched, %d occurrences: equal to Hyperscan's" %
              (os.path.basename(capture), scope, ref["scanned"], ref["scanned_bytes"],
               ref["patterns"], seen, ref["matched"], ref["occurrences"]))
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv))

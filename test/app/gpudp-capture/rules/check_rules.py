#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Compare gpudp-capture's rules with the tests' reference on one capture.

usage: check_rules.py REF CAPTURE [--vars FILE] [--min-alerts N]
                      [--schema-tool TOOL] [--eve-check SCRIPT]
                      -- COMMAND...

COMMAND (gpudp-capture, given the same --rules and --rule-vars) is run with
every "@JSON@" replaced by a temporary report path and "@EVE@" by a
temporary EVE path. REF (rules-capture-ref) is run on the same capture and
rules. Then:
- the report's rules.per_sid equal the reference's, sid by sid, and its
  alerted and alerts counts;
- the EVE lines, as (time, sid, addresses, ports, protocol), are the
  reference's alerts, as a multiset (every alert once, none more);
- every EVE line is valid against Suricata's EVE JSON schema
  (test/app/eve_check.py; the schema from TOOL, fetch-eve-schema.sh: when
  it cannot be had, that check alone is skipped and said);
- the reference found at least N alerts (so that a comparison of nothing
  cannot pass).
The first differences are printed (at most 20, then a count).

Exit 0 when equal, 1 on any difference or failure, 77 when COMMAND exits
77 (no GPU).
"""
import collections
import datetime
import json
import os
import shutil
import subprocess
import sys
import tempfile

SHOW = 20
PROTO = {"TCP": 6, "UDP": 17, "ICMP": 1, "IPV6-ICMP": 58}


def run(cmd, timeout=900):
    print("$ " + " ".join(cmd), flush=True)
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    sys.stdout.write(r.stdout[-3000:])
    sys.stdout.write(r.stderr[-3000:])
    return r.returncode


def rules_args(cmd):
    """the --rules and --rule-vars files COMMAND is given"""
    files, vars_ = [], None
    for i, a in enumerate(cmd[:-1]):
        if a == "--rules":
            files.append(cmd[i + 1])
        elif a == "--rule-vars":
            vars_ = cmd[i + 1]
    return files, vars_


def eve_key(o):
    """an EVE line as the reference lists an alert"""
    ts = datetime.datetime.strptime(o["timestamp"], "%Y-%m-%dT%H:%M:%S.%f%z")
    us = int(ts.timestamp()) * 1000000 + ts.microsecond
    proto = PROTO.get(o["proto"])
    if proto is None:
        proto = int(o["proto"])
    if "icmp_type" in o:
        sport, dport = 0, o["icmp_type"] << 8 | o["icmp_code"]
    else:
        sport, dport = o.get("src_port", 0), o.get("dest_port", 0)
    return (us, o["alert"]["signature_id"], o["src_ip"], sport, o["dest_ip"], dport, proto)


def ref_key(a):
    ts_ns, sid, src, sport, dst, dport, proto = a[:7]
    return (ts_ns // 1000, sid, src, sport, dst, dport, proto)


def show(diffs):
    for d in diffs[:SHOW]:
        print("  " + d)
    if len(diffs) > SHOW:
        print("  ... and %d more" % (len(diffs) - SHOW))


def compare_counts(rep, ref, diffs):
    r = rep.get("rules") if isinstance(rep, dict) else None
    if not isinstance(r, dict):
        diffs.append('the report has no "rules" object')
        return
    for k in ("alerted", "alerts"):
        if r.get(k) != ref[k]:
            diffs.append("%s: gpudp %r, reference %r" % (k, r.get(k), ref[k]))
    ours = [(s["sid"], s["packets"]) for s in r.get("per_sid", [])]
    theirs = [(s["sid"], s["packets"]) for s in ref["per_sid"]]
    if len(ours) != len(theirs):
        diffs.append("per_sid: %d rules, reference %d" % (len(ours), len(theirs)))
    for a, b in zip(ours, theirs):
        if a != b:
            diffs.append("sid %d: gpudp %d packets, reference sid %d %d packets" %
                         (a[0], a[1], b[0], b[1]))


def compare_alerts(eve_path, ref, diffs):
    got = collections.Counter()
    with open(eve_path) as f:
        for n, line in enumerate(f, 1):
            try:
                got[eve_key(json.loads(line))] += 1
            except (ValueError, KeyError, TypeError) as e:
                diffs.append("EVE line %d: %s" % (n, e))
    want = collections.Counter(ref_key(a) for a in ref["list"])
    for k in sorted(set(got) | set(want)):
        if got[k] != want[k]:
            diffs.append("alert %r: gpudp %d, reference %d" % (k, got[k], want[k]))
    return sum(got.values())


def schema_check(tool, script, eve_path, n):
    if tool is None or script is None:
        return 0
    r = subprocess.run([tool, "--print-path"], capture_output=True, text=True)
    if r.returncode != 0:
        print("EVE schema: not checked (%s)" % (r.stdout + r.stderr).strip())
        return 0
    return run([sys.executable, script, r.stdout.strip(), eve_path, "--expect-alerts", str(n)])


def main():
    argv = sys.argv[1:]
    if "--" not in argv:
        print(__doc__)
        return 2
    cut = argv.index("--")
    opts, cmd = argv[:cut], argv[cut + 1:]
    if len(opts) < 2 or not cmd:
        print(__doc__)
        return 2
    ref_exe, capture = opts[0], opts[1]
    rest = opts[2:]
    min_alerts, tool, script = 1, None, None
    while rest:
        k, v = rest[0], rest[1]
        if k == "--min-alerts":
            min_alerts = int(v)
        elif k == "--schema-tool":
            tool = v
        elif k == "--eve-check":
            script = v
        rest = rest[2:]
    files, vars_ = rules_args(cmd)
    tmp = tempfile.mkdtemp(prefix="check-rules-")
    try:
        rep_path, eve_path = os.path.join(tmp, "report.json"), os.path.join(tmp, "eve.json")
        ref_path = os.path.join(tmp, "ref.json")
        rc = run([a.replace("@JSON@", rep_path).replace("@EVE@", eve_path) for a in cmd])
        if rc == 77:
            return 77
        if rc != 0:
            print("FAIL: gpudp-capture exited %d" % rc)
            return 1
        ref_cmd = [ref_exe] + (["--rule-vars", vars_] if vars_ else [])
        for f in files:
            ref_cmd += ["--rules", f]
        if run(ref_cmd + ["--json", ref_path, capture]) != 0:
            print("FAIL: the reference failed")
            return 1
        with open(ref_path) as f:
            ref = json.load(f)
        with open(rep_path) as f:
            rep = json.load(f)
        diffs = []
        compare_counts(rep, ref, diffs)
        n = compare_alerts(eve_path, ref, diffs)
        if ref["alerts"] < min_alerts:
            diffs.append("the reference found %d alerts, fewer than %d: the test compares "
                         "too little" % (ref["alerts"], min_alerts))
        if diffs:
            print("FAIL: %d differences from the reference" % len(diffs))
            show(diffs)
            return 1
        print("ok: %d rules, %d records: %d packets alerted, %d alerts (%d EVE lines), "
              "equal to the reference" % (ref["rules"], ref["records"], ref["alerted"],
                                          ref["alerts"], n))
        if schema_check(tool, script, eve_path, n) != 0:
            print("FAIL: EVE lines not valid against the schema")
            return 1
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())

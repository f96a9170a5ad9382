#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""check_match_hs.py's own test: it passes the reference's own report and
fails each doctored one, naming what differs.

usage: test_check_match_hs.py CHECK_MATCH_HS HS_CAPTURE_REF PATTERNS CAPTURE

As the command under test it runs this script in "doctor" mode: the
reference's report, with one change. Exit 1 on any wrong verdict.
"""
import json
import subprocess
import sys

# name: (change to the "match" object, text the checker must print)
DOCTORS = {
    "scanned": (lambda m: m.update(scanned=m["scanned"] + 1), "MISMATCH scanned:"),
    "bytes": (lambda m: m.update(scanned_bytes=m["scanned_bytes"] - 1),
              "MISMATCH scanned_bytes:"),
    "scope": (lambda m: m.update(scope="frame" if m["scope"] == "payload" else "payload"),
              "MISMATCH scope:"),
    "packets": (lambda m: m["per_pattern"][-1].update(packets=m["per_pattern"][-1]["packets"] + 1),
                "packets: gpudp"),
    "occurrences": (lambda m: m["per_pattern"][0].update(
        occurrences=m["per_pattern"][0]["occurrences"] + 2), "occurrences: gpudp"),
    "renamed": (lambda m: m["per_pattern"][1].update(name="other"), "gpudp names it 'other'"),
    "dropped": (lambda m: m["per_pattern"].pop(), "missing from gpudp's report"),
    "no_match": (lambda m: m.clear(), "MISMATCH"),
    "not_a_list": (lambda m: m.update(per_pattern=7), "not a list"),
}


def doctor(kind, ref, patterns, scope, capture, out):
    r = subprocess.run([ref, "--match", patterns, "--match-scope", scope, capture],
                       capture_output=True, text=True, check=True)
    rep = json.loads(r.stdout)
    if kind != "none":
        DOCTORS[kind][0](rep["match"])
    if kind == "no_match":
        rep = {"packets": 1}
    with open(out, "w") as f:
        json.dump(rep, f)
    return 0


def main(argv):
    if len(argv) > 1 and argv[1] == "doctor":
        return doctor(*argv[2:8])
    if len(argv) != 5:
        sys.stderr.write(__doc__)
        return 2
    check, ref, patterns, capture = argv[1:]
    failed = 0
    for kind in ["none"] + sorted(DOCTORS):
        for scope in ("payload", "frame"):
            cmd = [sys.executable, check, ref, patterns, scope, capture, "--min-seen", "1",
                   "--", sys.executable, argv[0], "doctor", kind, ref, patterns, scope,
                   capture, "@JSON@"]
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
            want_rc = 0 if kind == "none" else 1
            text = DOCTORS[kind][1] if kind != "none" else "equal to Hyperscan's"
            if r.returncode != want_rc or text not in r.stdout:
                failed += 1
                print("FAIL %s/%s: exit %d (want %d), %r not printed:\n%s" %
                      (kind, scope, r.returncode, want_rc, text, r.stdout[-2000:]))
            else:
                print("ok   %s/%s" % (kind, scope))
    # --min-seen above what the reference finds fails
    r = subprocess.run([sys.executable, check, ref, patterns, "payload", capture,
                        "--min-seen", "100000", "--", sys.executable, argv[0], "doctor",
                        "none", ref, patterns, "payload", capture, "@JSON@"],
                       capture_output=True, text=True, timeout=120)
    if r.returncode != 1 or "fewer than --min-seen" not in r.stdout:
        failed += 1
        print("FAIL min-seen: exit %d\n%s" % (r.returncode, r.stdout[-2000:]))
    else:
        print("ok   min-seen")
    print("%d failed" % failed)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

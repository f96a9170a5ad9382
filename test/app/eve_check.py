#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""gpudp-capture's EVE alert log (--eve FILE) read back and checked against
Suricata's EVE JSON schema.

usage: eve_check.py SCHEMA EVE_FILE [--expect-alerts N] [--expect-sids SID,...]

SCHEMA is Suricata's etc/schema.json (test/tools/fetch-eve-schema.sh
--print-path puts it in the cache and prints where; it is not part of
gpudp's tree). Every line of EVE_FILE must be one JSON object, valid
against SCHEMA with python3-jsonschema (the draft the schema declares in
"$schema"; Suricata's declares none and uses "$defs", so draft 2020-12),
and, beyond the schema (which requires only event_type and timestamp):
  - event_type "alert";
  - timestamp as Suricata writes it: local time with microseconds and the
    UTC offset, 2026-11-29T04:55:01.123456+0000, a real date;
  - src_ip and dest_ip IPv4 or IPv6 text, both of one family;
  - proto TCP, UDP, ICMP (IPv4 only), IPV6-ICMP (IPv6 only), or the
    protocol number as a decimal string (0-255) for the others;
  - src_port and dest_port integers 0-65535, present for TCP and UDP;
  - community_id a Community ID v1: "1:" and the base64 of a SHA-1;
  - alert with action "allowed" or "blocked", gid, signature_id (> 0) and
    rev integers, signature and category strings, severity an integer > 0;
  - with --expect-alerts N: N lines;
  - with --expect-sids: the alerts' signature_ids are the SIDs given (each
    given one seen, none other).
One "ok"/"FAIL" line per check family (test/common/gpudp_checks.py), with
the first offending lines, and the totals line.

Exit 0 all passed, 1 a failure, 77 (meson SKIP) when the Python module
jsonschema (Debian: python3-jsonschema, config/packages/capture.txt) or
SCHEMA is missing.
"""
import datetime
import ipaddress
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from gpudp_checks import Checks  # noqa: E402  (test/common)

TIME_RE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}[+-]\d{4}$")
CID_RE = re.compile(r"^1:[A-Za-z0-9+/]{27}=$")
PROTO_NUM_RE = re.compile(r"^(0|[1-9]\d{0,2})$")
ALERT_FIELDS = ("action", "gid", "signature_id", "rev", "signature", "category", "severity")
SHOW = 3  # offending lines shown per check


def is_int(v):
    return type(v) is int  # not bool


def usage():
    sys.exit(__doc__)


def parse_args(argv):
    pos, expect_alerts, expect_sids = [], None, None
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("--expect-alerts", "--expect-sids"):
            if i + 1 >= len(argv):
                usage()
            val = argv[i + 1]
            i += 2
        elif a.startswith("--expect-alerts=") or a.startswith("--expect-sids="):
            a, val = a.split("=", 1)
            i += 1
        elif a.startswith("-"):
            usage()
        else:
            pos.append(a)
            i += 1
            continue
        try:
            if a == "--expect-alerts":
                expect_alerts = int(val)
            else:
                expect_sids = {int(s) for s in val.split(",") if s.strip()}
        except ValueError:
            usage()
    if len(pos) != 2:
        usage()
    return pos[0], pos[1], expect_alerts, expect_sids


def timestamp_errors(ev):
    ts = ev.get("timestamp")
    if not isinstance(ts, str) or not TIME_RE.match(ts):
        return ["timestamp %r is not YYYY-MM-DDTHH:MM:SS.uuuuuu+hhmm" % (ts,)]
    try:
        datetime.datetime.strptime(ts, "%Y-%m-%dT%H:%M:%S.%f%z")
    except ValueError as e:
        return ["timestamp %r: %s" % (ts, e)]
    return []


def address_errors(ev):
    errs, fam = [], set()
    for k in ("src_ip", "dest_ip"):
        v = ev.get(k)
        try:
            fam.add(ipaddress.ip_address(v).version)
        except ValueError:
            errs.append("%s %r is not IPv4 or IPv6 text" % (k, v))
    if not errs and len(fam) != 1:
        errs.append("src_ip %r and dest_ip %r of different families"
                    % (ev["src_ip"], ev["dest_ip"]))
    return errs


def family(ev):
    try:
        return ipaddress.ip_address(ev.get("src_ip")).version
    except ValueError:
        return None


def proto_errors(ev):
    p = ev.get("proto")
    if not isinstance(p, str):
        return ["proto %r is not a string" % (p,)]
    fam = family(ev)
    if p in ("TCP", "UDP"):
        return []
    if p == "ICMP":
        return [] if fam in (4, None) else ["proto ICMP with IPv6 addresses (IPV6-ICMP)"]
    if p == "IPV6-ICMP":
        return [] if fam in (6, None) else ["proto IPV6-ICMP with IPv4 addresses (ICMP)"]
    if PROTO_NUM_RE.match(p) and int(p) <= 255:
        if int(p) in (1, 6, 17, 58):
            return ["proto %r: Suricata writes this protocol by name" % p]
        return []
    return ["proto %r is not TCP, UDP, ICMP, IPV6-ICMP or a protocol number" % p]


def port_errors(ev):
    errs = []
    for k in ("src_port", "dest_port"):
        if k not in ev:
            if ev.get("proto") in ("TCP", "UDP"):
                errs.append("%s missing with proto %s" % (k, ev.get("proto")))
            continue
        v = ev[k]
        if not is_int(v) or not 0 <= v <= 65535:
            errs.append("%s %r is not an integer 0-65535" % (k, v))
    return errs


def community_id_errors(ev):
    c = ev.get("community_id")
    if not isinstance(c, str) or not CID_RE.match(c):
        return ["community_id %r is not 1:<base64 of 20 bytes>" % (c,)]
    return []


def alert_errors(ev):
    a = ev.get("alert")
    if not isinstance(a, dict):
        return ["alert %r is not an object" % (a,)]
    errs = ["alert.%s missing" % k for k in ALERT_FIELDS if k not in a]
    if "action" in a and a["action"] not in ("allowed", "blocked"):
        errs.append("alert.action %r is not allowed/blocked" % (a["action"],))
    if "signature_id" in a and not (is_int(a["signature_id"]) and a["signature_id"] > 0):
        errs.append("alert.signature_id %r is not an integer > 0" % (a["signature_id"],))
    for k in ("gid", "rev"):
        if k in a and not (is_int(a[k]) and a[k] >= 0):
            errs.append("alert.%s %r is not an integer >= 0" % (k, a[k]))
    if "severity" in a and not (is_int(a["severity"]) and a["severity"] > 0):
        errs.append("alert.severity %r is not an integer > 0" % (a["severity"],))
    for k in ("signature", "category"):
        if k in a and not isinstance(a[k], str):
            errs.append("alert.%s %r is not a string" % (k, a[k]))
    return errs


def detail(bad):
    """the first offending lines, and how many there are"""
    shown = "; ".join("line %d: %s" % (n, e) for n, e in bad[:SHOW])
    more = len(bad) - SHOW
    return shown + (" (and %d more)" % more if more > 0 else "")


def family_check(ck, name, events, fn):
    bad = [(n, e) for n, ev in events for e in fn(ev)]
    ck.check("%s (%d lines)" % (name, len(events)), not bad, detail(bad))


def main():
    schema_path, eve_path, expect_alerts, expect_sids = parse_args(sys.argv[1:])
    try:
        import jsonschema
    except ImportError:
        print("skip: the Python module jsonschema is missing (Debian: python3-jsonschema, "
              "config/packages/capture.txt)")
        return 77
    if not os.path.isfile(schema_path):
        print("skip: no Suricata EVE schema at %s (test/tools/fetch-eve-schema.sh)" % schema_path)
        return 77
    ck = Checks()
    with open(schema_path) as f:
        schema = json.load(f)
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    try:
        cls.check_schema(schema)
        schema_ok = True
    except jsonschema.exceptions.SchemaError as e:
        schema_ok = False
        ck.check("schema %s is a valid %s schema" % (schema_path, cls.__name__), False, e.message)
    validator = cls(schema, format_checker=jsonschema.FormatChecker())

    with open(eve_path, "rb") as f:
        raw = f.read()
    # one JSON object per line, every line ended by "\n"
    bad, events = [], []
    lines = raw.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    elif raw:
        bad.append((len(lines), "no newline at the end of the file"))
    for n, ln in enumerate(lines, 1):
        try:
            ev = json.loads(ln.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as e:
            bad.append((n, "not JSON: %s" % e))
            continue
        if not isinstance(ev, dict):
            bad.append((n, "not a JSON object"))
            continue
        events.append((n, ev))
    ck.check("%d lines, each one JSON object" % len(lines),
             not bad and (len(lines) > 0 or expect_alerts == 0), detail(bad) or "no lines")

    if schema_ok:
        bad = []
        for n, ev in events:
            for e in sorted(validator.iter_errors(ev), key=lambda e: list(e.absolute_path)):
                where = "/".join(str(p) for p in e.absolute_path) or "(top)"
                bad.append((n, "%s: %s" % (where, e.message)))
        ck.check("%d lines valid against %s (%s)" % (len(events), os.path.basename(schema_path),
                                                     cls.__name__), not bad, detail(bad))

    family_check(ck, "event_type alert", events,
                 lambda ev: [] if ev.get("event_type") == "alert"
                 else ["event_type %r" % (ev.get("event_type"),)])
    family_check(ck, "timestamp YYYY-MM-DDTHH:MM:SS.uuuuuu+hhmm", events, timestamp_errors)
    family_check(ck, "src_ip/dest_ip IPv4 or IPv6", events, address_errors)
    family_check(ck, "proto TCP/UDP/ICMP/IPV6-ICMP or a number", events, proto_errors)
    family_check(ck, "src_port/dest_port 0-65535", events, port_errors)
    family_check(ck, "community_id 1:<base64 SHA-1>", events, community_id_errors)
    family_check(ck, "alert{action, gid, signature_id, rev, signature, category, severity}",
                 events, alert_errors)

    if expect_alerts is not None:
        ck.check("%d alerts, want %d" % (len(events), expect_alerts),
                 len(lines) == expect_alerts and len(events) == expect_alerts)
    if expect_sids is not None:
        seen = {ev["alert"]["signature_id"] for _, ev in events
                if isinstance(ev.get("alert"), dict) and "signature_id" in ev["alert"]
                and is_int(ev["alert"]["signature_id"])}
        missing, extra = sorted(expect_sids - seen), sorted(seen - expect_sids)
        ck.check("signature_ids %s" % ",".join(map(str, sorted(expect_sids))),
                 not missing and not extra,
                 "missing %s, unexpected %s" % (missing or "none", extra or "none"))
    return ck.status()


if __name__ == "__main__":
    sys.exit(main())

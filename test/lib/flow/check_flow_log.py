#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The NDJSON flow log (lib/flow, gpudp_flow_log.h) read back.

usage: check_flow_log.py GEN [--schema SCHEMA]

GEN is flow_log_gen: it writes random records through the flow log and
the same records' fields to a second file. Runs of it with the Community
ID's seed 0, seed 7 and without the Community ID are read back here with
Python's json module, line by line, and every field is compared with the
record's: the keys and their order, numbers, addresses (parsed, as bytes),
times (the RFC 3339 text and the ns), flag letters, end reason names, and
the Community ID, computed here from the specification
(corelight/community-id-spec) with hashlib.

With --schema, every line is also validated against the JSON Schema
SCHEMA (doc/flow-log.schema.json) with python3-jsonschema, and lines
altered in ways the schema must refuse are checked to be refused. Without
the jsonschema module it exits 77 (SKIP).

Exit 0, 1 with the first differences, 77.
"""
import base64
import calendar
import hashlib
import ipaddress
import json
import os
import re
import struct
import subprocess
import sys
import tempfile

COUNT = 3000
RUNS = [("0x5eed", []), ("0xfeed", ["cid-seed=7"]), ("0xbeef", ["no-cid"])]
FIELDS = ["af", "src", "dst", "sport", "dport", "proto", "tos", "end_reason", "vlan",
          "tcp_flags", "rtcp_flags", "flags", "first_ns", "last_ns", "packets", "octets",
          "l2_octets", "rpackets", "roctets", "rl2_octets"]
END_NAMES = {1: "idle", 2: "active", 3: "end", 4: "forced", 5: "lack_of_resources"}
# Community ID: the reply type of each two-way ICMP and ICMPv6 type
ICMP4_PAIRS = [(8, 0), (13, 14), (15, 16), (10, 9), (17, 18)]
ICMP6_PAIRS = [(128, 129), (130, 131), (133, 134), (135, 136), (139, 140), (144, 145)]
TIME_RE = re.compile(r"^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)\.(\d{9})Z$")


def counterparts(pairs):
    m = {}
    for a, b in pairs:
        m[a], m[b] = b, a
    return m


ICMP4 = counterparts(ICMP4_PAIRS)
ICMP6 = counterparts(ICMP6_PAIRS)


def community_id(af, src, dst, proto, sport, dport, seed):
    """Community ID v1 of a record's tuple, as the specification defines it."""
    a, b = src[:4 if af == 4 else 16], dst[:4 if af == 4 else 16]
    ports = proto in (1, 6, 17, 58, 132)
    one_way = False
    if proto in (1, 58):
        typ, code = dport >> 8, dport & 0xff
        m = ICMP4 if proto == 1 else ICMP6
        if typ in m:
            sport, dport = typ, m[typ]
        else:
            sport, dport, one_way = typ, code, True
    if not (one_way or a < b or (a == b and sport < dport)):
        a, b, sport, dport = b, a, dport, sport
    data = struct.pack("!H", seed) + a + b + bytes([proto, 0])
    if ports:
        data += struct.pack("!HH", sport, dport)
    return "1:" + base64.b64encode(hashlib.sha1(data).digest()).decode()


def flags_str(f):
    return "".join(c for i, c in enumerate("FSRPAUEC") if f >> i & 1)


def time_ns(text):
    m = TIME_RE.match(text)
    if not m:
        return None
    y, mo, d, h, mi, s, ns = (int(x) for x in m.groups())
    return calendar.timegm((y, mo, d, h, mi, s, 0, 0, 0)) * 10**9 + ns


def expected(rec, seed, cid):
    """The line's keys and values, in order, for a record."""
    af = rec["af"]
    icmp = rec["proto"] in (1, 58)
    biflow = bool(rec["flags"] & 1)
    e = [("af", af), ("src", rec["src"]), ("dst", rec["dst"]), ("sport", rec["sport"]),
         ("dport", rec["dport"])]
    if icmp:
        e += [("icmp_type", rec["dport"] >> 8), ("icmp_code", rec["dport"] & 0xff)]
    e += [("proto", rec["proto"]), ("vlan", rec["vlan"]), ("tos", rec["tos"]),
          ("tcp_flags", rec["tcp_flags"]), ("tcp_flags_str", flags_str(rec["tcp_flags"])),
          ("first", rec["first_ns"]), ("first_ns", rec["first_ns"]),
          ("last", rec["last_ns"]), ("last_ns", rec["last_ns"]),
          ("packets", rec["packets"]), ("octets", rec["octets"]),
          ("l2_octets", rec["l2_octets"]), ("biflow", biflow)]
    if biflow:
        e += [("rpackets", rec["rpackets"]), ("roctets", rec["roctets"]),
              ("rl2_octets", rec["rl2_octets"]), ("rtcp_flags", rec["rtcp_flags"]),
              ("rtcp_flags_str", flags_str(rec["rtcp_flags"]))]
    e += [("end_reason", END_NAMES.get(rec["end_reason"], "unknown")),
          ("end_reason_id", rec["end_reason"])]
    if cid:
        e.append(("community_id", community_id(af, rec["src"], rec["dst"], rec["proto"],
                                               rec["sport"], rec["dport"], seed)))
    return e


def no_duplicates(pairs):
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        raise ValueError("duplicate keys in %s" % keys)
    return pairs


def compare(line, rec, seed, cid):
    """The differences between a line and its record, as strings."""
    bad = []
    if not line.endswith("\n") or "\n" in line[:-1] or not line.isascii():
        return ["not one ASCII line ending in a newline: %r" % line]
    try:
        got = json.loads(line, object_pairs_hook=no_duplicates)
    except ValueError as e:
        return ["not JSON (%s): %r" % (e, line)]
    want = expected(rec, seed, cid)
    if [k for k, _ in got] != [k for k, _ in want]:
        bad.append("keys %s, want %s" % ([k for k, _ in got], [k for k, _ in want]))
    g = dict(got)
    for k, w in want:
        if k not in g:
            continue
        v = g[k]
        if k in ("src", "dst"):
            try:
                a = ipaddress.ip_address(v)
                ok = a.version == rec["af"] and a.packed == w[:len(a.packed)]
            except ValueError:
                ok = False
            if ok and rec["af"] == 4:
                ok = not any(w[4:])
            if not ok:
                bad.append("%s %r is not %s" % (k, v, w.hex()))
        elif k in ("first", "last"):
            if not isinstance(v, str) or time_ns(v) != w:
                bad.append("%s %r is not %d ns" % (k, v, w))
        elif type(v) is not type(w) or v != w:
            bad.append("%s %r, want %r" % (k, v, w))
    return bad


def read_records(path):
    recs = []
    with open(path) as f:
        for ln in f:
            v = ln.split()
            r = dict(zip(FIELDS, [int(v[0]), bytes.fromhex(v[1]), bytes.fromhex(v[2])] +
                         [int(x) for x in v[3:]]))
            recs.append(r)
    return recs


def schema_checks(validator, lines):
    """Validate every line; alterations the schema must refuse. Returns problems."""
    bad = []
    objs = [json.loads(ln) for ln in lines]
    for i, o in enumerate(objs):
        errs = list(validator.iter_errors(o))
        if errs:
            bad.append("line %d: %s" % (i + 1, "; ".join(e.message for e in errs[:3])))
    uni = next(o for o in objs if not o["biflow"] and o["proto"] == 6)
    bi = next(o for o in objs if o["biflow"])
    icmp = next(o for o in objs if o["proto"] in (1, 58))
    v4 = next(o for o in objs if o["af"] == 4)
    v6 = next(o for o in objs if o["af"] == 6)

    def alt(base, **kw):
        o = dict(base)
        for k, v in kw.items():
            if v is None:
                o.pop(k, None)
            else:
                o[k] = v
        return o

    refused = [
        ("a required field missing", alt(uni, octets=None)),
        ("an unknown field", alt(uni, extra=1)),
        ("reverse fields without biflow", alt(uni, rpackets=1)),
        ("biflow without its reverse fields", alt(bi, roctets=None)),
        ("ICMP fields for TCP", alt(uni, icmp_type=8, icmp_code=0)),
        ("ICMP without its fields", alt(icmp, icmp_code=None)),
        ("a time without nanoseconds", alt(uni, first="2025-11-28T19:36:33Z")),
        ("a time not in UTC", alt(uni, last="2025-11-28T19:36:33.000000000+01:00")),
        ("a negative count", alt(uni, packets=-1)),
        ("a count above 2^64 - 1", alt(uni, l2_octets=2**64)),
        ("a count as a string", alt(uni, octets="12")),
        ("a port above 65535", alt(uni, dport=65536)),
        ("af 5", alt(uni, af=5)),
        ("an unknown end reason name", alt(uni, end_reason="timeout")),
        ("a name that is not its number", alt(uni, end_reason="idle", end_reason_id=2)),
        ("unknown for a known number", alt(uni, end_reason="unknown", end_reason_id=3)),
        ("flag letters out of order", alt(uni, tcp_flags_str="AS")),
        ("a bad Community ID", alt(uni, community_id="2:abc")),
        ("an IPv6 address with af 4", alt(v4, src="2001:db8::1")),
        ("an IPv4 address with af 6", alt(v6, dst="192.0.2.1")),
    ]
    for what, o in refused:
        if validator.is_valid(o):
            bad.append("the schema accepts %s: %s" % (what, json.dumps(o)))
    return bad


def main():
    args = sys.argv[1:]
    if not args or args[0].startswith("-"):
        sys.exit(__doc__)
    gen = args[0]
    validator = None
    if len(args) == 3 and args[1] == "--schema":
        try:
            import jsonschema
        except ImportError:
            print("skip: the Python module jsonschema is missing (Debian: python3-jsonschema, "
                  "config/packages/capture.txt)")
            return 77
        with open(args[2]) as f:
            schema = json.load(f)
        cls = jsonschema.validators.validator_for(schema)
        cls.check_schema(schema)
        validator = cls(schema, format_checker=jsonschema.FormatChecker())
    elif len(args) != 1:
        sys.exit(__doc__)
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        for seed_arg, extra in RUNS:
            log, recf = os.path.join(tmp, "log.ndjson"), os.path.join(tmp, "records.txt")
            subprocess.run([gen, seed_arg, str(COUNT), log, recf] + extra, check=True)
            cid_seed = next((int(x.split("=")[1]) for x in extra if x.startswith("cid-seed=")), 0)
            cid = "no-cid" not in extra
            with open(log, newline="") as f:
                lines = f.read().splitlines(keepends=True)
            recs = read_records(recf)
            what = "seed %s %s" % (seed_arg, " ".join(extra))
            bad = []
            if len(lines) != COUNT or len(recs) != COUNT:
                bad.append("%d lines and %d records, want %d" % (len(lines), len(recs), COUNT))
            for i, (ln, r) in enumerate(zip(lines, recs)):
                bad += ["line %d: %s" % (i + 1, d) for d in compare(ln, r, cid_seed, cid)]
            kinds = {(r["af"], r["proto"] in (1, 58), bool(r["flags"] & 1)) for r in recs}
            if len(kinds) != 8:
                bad.append("the records do not cover IPv4/IPv6 x ICMP/other x biflow/not: %s"
                           % sorted(kinds))
            if validator is not None and not bad:
                bad += schema_checks(validator, lines)
            for b in bad[:20]:
                print("FAIL %s: %s" % (what, b))
            if bad:
                failures += 1
                print("FAIL %s: %d problems" % (what, len(bad)))
            else:
                print("ok   %s: %d lines%s" % (what, len(lines),
                                                ", valid against the schema" if validator else ""))
    print("%d passed, %d failed, 0 skipped" % (len(RUNS) - failures, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

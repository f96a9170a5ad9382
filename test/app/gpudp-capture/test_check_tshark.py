#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Tests of check_tshark.py itself: a checker must report every difference.

usage: test_check_tshark.py CHECKER BENCH DATADIR

BENCH (gpudp-capture-bench) writes a true report of DATADIR/frag-ipv4.pcap
(fragments: the documented differences from tshark apply) and of
DATADIR/icmp-errors.pcap; each case doctors a copy of it and runs CHECKER with
a command that only copies the doctored report to "@JSON@". The true reports
must pass; every doctored one must fail with exit 1, name the mismatch, and
never end in a Python traceback.

Then every capture of DATADIR (*.pcap, *.pcapng), whatever it holds, through
CHECKER twice, never with a traceback: with BENCH's own report, equal
(exit 0) wherever BENCH reads the file, else exit 1 saying the command
failed; and with frag-ipv4.pcap's report, different (exit 1) but on
frag-ipv4.pcap itself. Exit 77 without tshark.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile


def drop_flow(r, match):
    r["flows"] = [f for f in r["flows"] if not match(f)]


def find(entries, **kv):
    return next(e for e in entries if all(e.get(k) == v for k, v in kv.items()))


def case_unchanged(r):
    pass


def case_udp_flow_removed(r):
    # the TypeError of sorted((str, frozenset)) when a tshark conversation is missing
    drop_flow(r, lambda f: f["a"] == "10.1.0.1" and f["proto"] == 17)


def case_lone_fragment_flow_removed(r):
    drop_flow(r, lambda f: f["a"] == "10.1.0.5")


def case_extra_flow(r):
    r["flows"].append({"af": 4, "proto": 17, "a": "192.0.2.1", "a_port": 1, "b": "192.0.2.2",
                       "b_port": 2, "packets_ab": 1, "bytes_ab": 60, "packets_ba": 0,
                       "bytes_ba": 0, "first_ns": 0, "last_ns": 0})


def case_flow_moved_to_ports_0(r):
    f = find(r["flows"], a="10.1.0.3")
    f["a_port"] = f["b_port"] = 0


def case_flow_bytes_changed(r):
    find(r["flows"], a="10.1.0.9")["bytes_ab"] += 1


def case_talker_removed(r):
    r["top_talkers"] = [t for t in r["top_talkers"] if t["addr"] != "10.1.0.7"]


def case_extra_talker(r):
    r["top_talkers"].append({"af": 4, "addr": "192.0.2.9", "tx_packets": 1, "tx_bytes": 60,
                             "rx_packets": 0, "rx_bytes": 0})


def case_talker_rx_changed(r):
    find(r["top_talkers"], addr="10.1.0.2")["rx_bytes"] -= 1


def case_udp_counter_changed(r):
    r["protocols"]["udp"]["packets"] += 1


def case_fragment_counter_changed(r):
    r["protocols"]["fragment"]["bytes"] -= 1


def case_protocol_missing(r):
    del r["protocols"]["icmp"]


def case_flows_missing(r):
    del r["flows"]


def case_flow_field_missing(r):
    del r["flows"][0]["bytes_ab"]


def case_talkers_not_a_list(r):
    r["top_talkers"] = {"10.1.0.1": 1}


def case_bad_address(r):
    r["flows"][0]["a"] = "not-an-address"


def case_histogram_changed(r):
    r["size_histogram"][0]["packets"] += 1


def case_drop_counted(r):
    r["drops"]["fragment_table_full"] = 1


# (name, capture, doctor, what the output must say); None: must pass
CASES = [
    ("unchanged", "frag-ipv4.pcap", case_unchanged, None),
    ("unchanged_icmp_errors", "icmp-errors.pcap", case_unchanged, None),
    ("udp_flow_removed", "frag-ipv4.pcap", case_udp_flow_removed,
     "conversation UDP 10.1.0.1:5001 <-> 10.1.0.2:6001 missing in gpudp"),
    ("lone_fragment_flow_removed", "frag-ipv4.pcap", case_lone_fragment_flow_removed,
     "conversation IPv4 10.1.0.5 <-> 10.1.0.6 missing in gpudp"),
    ("extra_flow", "frag-ipv4.pcap", case_extra_flow,
     "conversation IPv4 192.0.2.1 <-> 192.0.2.2 missing in tshark"),
    ("flow_moved_to_ports_0", "frag-ipv4.pcap", case_flow_moved_to_ports_0,
     "conversation UDP 10.1.0.3:0 <-> 10.1.0.4:0 missing in tshark"),
    ("flow_bytes_changed", "frag-ipv4.pcap", case_flow_bytes_changed,
     "MISMATCH TCP from 10.1.0.9:5009 bytes"),
    ("talker_removed", "frag-ipv4.pcap", case_talker_removed,
     "endpoint 10.1.0.7 missing in gpudp"),
    ("extra_talker", "frag-ipv4.pcap", case_extra_talker,
     "endpoint 192.0.2.9 missing in tshark"),
    ("talker_rx_changed", "frag-ipv4.pcap", case_talker_rx_changed,
     "MISMATCH endpoint 10.1.0.2 rx bytes"),
    ("udp_counter_changed", "frag-ipv4.pcap", case_udp_counter_changed,
     "MISMATCH protocol udp packets"),
    ("fragment_counter_changed", "frag-ipv4.pcap", case_fragment_counter_changed,
     "MISMATCH protocol fragment bytes"),
    ("protocol_missing", "frag-ipv4.pcap", case_protocol_missing,
     "report field protocols.icmp.packets is missing"),
    ("flows_missing", "frag-ipv4.pcap", case_flows_missing, "report field flows is missing"),
    ("flow_field_missing", "frag-ipv4.pcap", case_flow_field_missing, "report flows[0]"),
    ("talkers_not_a_list", "frag-ipv4.pcap", case_talkers_not_a_list,
     "report field top_talkers is"),
    ("bad_address", "frag-ipv4.pcap", case_bad_address, "has a bad address"),
    ("histogram_changed", "frag-ipv4.pcap", case_histogram_changed,
     "MISMATCH size histogram 0-63"),
    ("drop_counted", "frag-ipv4.pcap", case_drop_counted,
     "MISMATCH drops.fragment_table_full"),
    ("icmp_quoted_ports_in_a_flow", "icmp-errors.pcap",
     lambda r: find(r["flows"], proto=1, a="10.2.0.1").update(
         proto=17, a_port=4000, b_port=33434),
     "MISMATCH UDP 10.2.0.2:33434 -> 10.2.0.1:4000 frames"),
]


def run(checker, pcap, report_json, tmp, cmd=None):
    """CHECKER on pcap with cmd, or with a command copying report_json"""
    cmd = [sys.executable, checker, pcap, "--"] + (cmd or ["cp", report_json, "@JSON@"])
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=tmp)
    return r.returncode, r.stdout + r.stderr


def every_capture(checker, bench, data, tmp, report_json):
    """(name, problems, output) of each capture of data through checker"""
    out = []
    for name in sorted(os.listdir(data)):
        if not name.endswith((".pcap", ".pcapng")):
            continue
        pcap = os.path.join(data, name)
        rc, text = run(checker, pcap, None, tmp,
                       [bench, "--engine", "cpu", "--repeat", "1", "--report", "@JSON@", pcap])
        problems = ["a Python traceback"] if "Traceback" in text else []
        refused = "command failed with status" in text
        if rc != (1 if refused else 0):
            problems.append("exit %d with the bench's report%s" % (
                rc, " (refused by the bench)" if refused else ""))
        out.append(("every_capture_own_report_" + name, problems, text))
        rc, text = run(checker, pcap, report_json, tmp)
        problems = ["a Python traceback"] if "Traceback" in text else []
        if rc != (0 if name == "frag-ipv4.pcap" else 1):
            problems.append("exit %d with frag-ipv4.pcap's report" % rc)
        if rc == 1 and "MISMATCH" not in text and "tshark failed" not in text:
            problems.append("exit 1 without a mismatch or tshark's failure named")
        out.append(("every_capture_foreign_report_" + name, problems, text))
    return out


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    checker, bench, data = (os.path.abspath(a) for a in sys.argv[1:])
    if shutil.which("tshark") is None:
        print("tshark not found: SKIP")
        return 77
    passed = failed = 0
    results = []    # (name, problems, the checker's output)
    with tempfile.TemporaryDirectory() as tmp:
        truth = {}
        for name in {c[1] for c in CASES}:
            path = os.path.join(tmp, name + ".json")
            subprocess.run([bench, "--engine", "cpu", "--repeat", "1", "--report", path,
                            os.path.join(data, name)], check=True, capture_output=True)
            with open(path) as fh:
                truth[name] = fh.read()
        # not JSON at all, and a command that fails: reported, exit 1
        bad = os.path.join(tmp, "bad.json")
        with open(bad, "w") as fh:
            fh.write("{not json")
        extra = [("not_json", "frag-ipv4.pcap", bad, "cannot read the JSON report"),
                 ("command_fails", "frag-ipv4.pcap", os.path.join(tmp, "missing.json"),
                  "command failed with status")]
        jobs = []
        for name, pcap, doctor, want in CASES:
            r = json.loads(truth[pcap])
            doctor(r)
            path = os.path.join(tmp, "case-%s.json" % name)
            with open(path, "w") as fh:
                json.dump(r, fh)
            jobs.append((name, pcap, path, want))
        for name, pcap, path, want in jobs + extra:
            rc, out = run(checker, os.path.join(data, pcap), path, tmp)
            problems = []
            if "Traceback" in out:
                problems.append("a Python traceback")
            if want is None and rc != 0:
                problems.append("exit %d on a true report" % rc)
            if want is not None and rc != 1:
                problems.append("exit %d, not 1" % rc)
            if want is not None and want not in out:
                problems.append("no %r in the output" % want)
            results.append((name, problems, out))
        results += every_capture(checker, bench, data, tmp,
                                 os.path.join(tmp, "frag-ipv4.pcap.json"))
    for name, problems, out in results:
        if problems:
            failed += 1
            print("FAIL %s: %s\n%s" % (name, "; ".join(problems),
                                       "\n".join("    " + x for x in out.splitlines()[-20:])))
        else:
            passed += 1
            print("ok   %s" % name)
    print("%d passed, %d failed, 0 skipped" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

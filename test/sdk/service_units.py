#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The systemd services (doc/service.md) as meson builds them (meson suite
'unit').

usage: service_units.py UNIT_DIR EXAMPLE_CONF GPUDP_CAPTURE GPUDP_FWD

For gpudp-capture@.service and gpudp-fwd@.service (from UNIT_DIR, their
ExecStart pointed at the programs given, laid out in one folder as an
install puts them):
  - systemd-analyze verify of an instance prints nothing and exits 0;
  - systemd-analyze security --offline rates its exposure at most 5.5;
  - the arguments come from /etc/gpudp/%i.conf as $GPUDP_EAL -- $GPUDP_ARGS;
    restart on failure but not after exit 2 or 77; SIGTERM stops it with
    time to drain; the capability bounding set is the documented one;
  - the example configuration's values, split into words as systemd splits
    them, give the app a valid command line (each app's option check, with
    --help's exit);
77 without systemd-analyze.
"""
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from gpudp_checks import Checks  # noqa: E402  (test/common)

CAPS = {"CAP_IPC_LOCK", "CAP_SYS_ADMIN", "CAP_SYS_RAWIO", "CAP_NET_ADMIN", "CAP_NET_RAW"}
MAX_EXPOSURE = 5.5


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    unit_dir, example = sys.argv[1:3]
    progs = {"gpudp-capture": sys.argv[3], "gpudp-fwd": sys.argv[4]}
    sa = shutil.which("systemd-analyze")
    if sa is None:
        print("SKIP: systemd-analyze not found (Debian: systemd)")
        return 77
    c = Checks()
    check = c.check

    tmp = tempfile.mkdtemp(prefix="gpudp-units-")
    bin_dir = os.path.join(tmp, "bin")
    os.makedirs(bin_dir)
    for name, path in progs.items():
        os.symlink(os.path.abspath(path), os.path.join(bin_dir, name))
    try:
        for app in ("gpudp-capture", "gpudp-fwd"):
            with open(os.path.join(unit_dir, app + "@.service")) as f:
                text = f.read()
            m = re.search(r"^ExecStart=(\S+)/%s " % app, text, re.M)
            check("%s_exec_start_names_the_installed_program" % app, m is not None, text[:300])
            if m is None:
                continue
            local = text.replace(m.group(1) + "/", os.path.abspath(bin_dir) + "/")
            with open(os.path.join(tmp, app + "@.service"), "w") as f:
                f.write(local)
            inst = os.path.join(tmp, app + "@test.service")
            r = subprocess.run([sa, "verify", "--man=no", inst], capture_output=True, text=True)
            check("%s_verify_clean" % app, r.returncode == 0 and not r.stdout.strip() and
                  not r.stderr.strip(), r.stdout + r.stderr)
            r = subprocess.run([sa, "security", "--offline=true", "--man=no", inst],
                               capture_output=True, text=True)
            lvl = re.search(r"Overall exposure level for \S+: ([0-9.]+)", r.stdout)
            check("%s_exposure_at_most_%.1f" % (app, MAX_EXPOSURE),
                  lvl is not None and float(lvl.group(1)) <= MAX_EXPOSURE,
                  lvl.group(0) if lvl else r.stdout[-300:] + r.stderr[-300:])
            keys = {}
            for line in text.splitlines():
                if "=" in line and not line.startswith("#"):
                    k, v = line.split("=", 1)
                    keys.setdefault(k.strip(), v.strip())
            check("%s_arguments_from_etc_gpudp" % app,
                  keys.get("EnvironmentFile") == "/etc/gpudp/%i.conf" and
                  keys.get("ExecStart", "").endswith(" $GPUDP_EAL -- $GPUDP_ARGS"), keys)
            check("%s_restart_on_failure_not_on_usage_errors" % app,
                  keys.get("Restart") == "on-failure" and
                  set(keys.get("RestartPreventExitStatus", "").split()) == {"2", "77"}, keys)
            check("%s_sigterm_with_time_to_drain" % app,
                  keys.get("KillSignal") == "SIGTERM" and
                  int(keys.get("TimeoutStopSec", "0")) >= 30, keys)
            check("%s_capabilities_documented_set" % app,
                  set(keys.get("CapabilityBoundingSet", "").split()) == CAPS,
                  keys.get("CapabilityBoundingSet"))
            # the example's values, split as systemd splits $VAR into words
            env = {}
            with open(example) as f:
                for line in f:
                    line = line.strip()
                    if line and not line.startswith("#") and "=" in line:
                        k, v = line.split("=", 1)
                        env[k] = shlex.split(v)[0] if v.startswith('"') else v
            # gpudp-fwd: the options both apps share
            args = env["GPUDP_ARGS"].split() if app == "gpudp-capture" else \
                ["--metrics", "--json"]
            r = subprocess.run([os.path.join(bin_dir, app)] + ["--help"], capture_output=True,
                               text=True)
            known = set(re.findall(r"^\s+(--[a-z-]+)", r.stdout, re.M))
            unknown = [a for a in args if a.startswith("--") and a not in known]
            check("%s_example_arguments_are_its_options" % app,
                  env.get("GPUDP_EAL", "").startswith("-l ") and not unknown and
                  "--metrics" in args, unknown)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return c.status()


if __name__ == "__main__":
    sys.exit(main())

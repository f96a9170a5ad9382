#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Read this machine's own Debian apt sources (deb822 .sources files and
one-line .list files, where apt-config says they are), for the scripts that
need another Debian suite from the same mirror without touching the
system's apt configuration.

usage: apt-sources.py mirror CODENAME
         the first URI of an enabled `deb` entry for suite CODENAME with
         component main (nothing printed if there is none)
       apt-sources.py deb-src CODENAME WANT
         a deb822 deb-src list of every such entry (suites CODENAME and
         CODENAME-*, -security left out), with the suites renamed from
         CODENAME to WANT (e.g. trixie-updates -> bookworm-updates)

Used by subprojects/fetch-dpdk.sh (Debian 12's dpdk source, also on a
Debian 13 machine) and test/kmod/trixie-root.sh (a Debian 13 root).
"""
import glob
import os
import re
import subprocess
import sys


def apt_dir(key, default):
    try:
        out = subprocess.run(["apt-config", "shell", "v", key + "/f"],
                             capture_output=True, text=True).stdout
        m = re.search(r"v='([^']*)'", out)
        if m and m.group(1):
            return m.group(1)
    except OSError:
        pass
    return default


def entries():
    """(types, uris, suites, components, signed_by) of every enabled entry"""
    srclist = apt_dir("Dir::Etc::sourcelist", "/etc/apt/sources.list")
    srcparts = apt_dir("Dir::Etc::sourceparts", "/etc/apt/sources.list.d")
    for path in sorted(glob.glob(os.path.join(srcparts, "*.sources"))):
        for para in re.split(r"\n\s*\n", open(path).read()):
            f, key = {}, None
            for line in para.splitlines():
                if line.startswith("#") or not line.strip():
                    continue
                if line[0] in " \t" and key:
                    f[key] += "\n" + line
                    continue
                key, _, val = line.partition(":")
                key = key.strip().lower()
                f[key] = val.strip()
            if f.get("enabled", "yes").lower() == "no" or "uris" not in f:
                continue
            yield (f.get("types", "").split(), f["uris"].split(), f.get("suites", "").split(),
                   f.get("components", "").split(), f.get("signed-by"))
    for path in [srclist] + sorted(glob.glob(os.path.join(srcparts, "*.list"))):
        if not os.path.exists(path):
            continue
        for line in open(path):
            line = line.split("#", 1)[0].strip()
            m = re.match(r"(deb|deb-src)\s+(\[[^\]]*\]\s+)?(\S+)\s+(\S+)\s+(.*)", line)
            if not m:
                continue
            sb = re.search(r"signed-by=([^\s\]]+)", m.group(2) or "")
            yield ([m.group(1)], [m.group(3)], [m.group(4)], m.group(5).split(),
                   sb.group(1) if sb else None)


def of_release(codename):
    """deb entries of CODENAME (main), their suites without -security"""
    for types, uris, suites, comps, signed in entries():
        suites = [s for s in suites if s.split("-")[0] == codename and
                  not s.endswith("-security")]
        if "deb" in types and "main" in comps and suites:
            yield uris, suites, signed


def main():
    a = sys.argv[1:]
    if len(a) == 2 and a[0] == "mirror":
        for uris, suites, _ in of_release(a[1]):
            if a[1] in suites:
                print(uris[0])
                return 0
        return 0
    if len(a) == 3 and a[0] == "deb-src":
        codename, want = a[1], a[2]
        out = []
        for uris, suites, signed in of_release(codename):
            st = ["Types: deb-src", "URIs: " + " ".join(uris),
                  "Suites: " + " ".join(want + s[len(codename):] for s in suites),
                  "Components: main"]
            if signed:
                st.append("Signed-By: " + signed)
            out.append("\n".join(st))
        print("\n\n".join(out))
        return 0
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main())

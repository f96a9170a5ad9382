#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""libdpdk.pc for -Ddpdk_build=DIR (meson.build, doc/build.md).

usage: dpdk-build-pc.py DIR OUTDIR

DIR is another gpudp build directory whose DPDK subproject is built. Its
meson-uninstalled/libdpdk-uninstalled.pc and libdpdk-libs-uninstalled.pc
name that DPDK's headers (in the source and the build tree) and static
archives through ${prefix} and ${srcdir}; this writes OUTDIR/libdpdk.pc and
OUTDIR/libdpdk-libs.pc with those paths spelled out, so that they still
hold once copied elsewhere with their prefix= line rewritten (the SDK's
install into a DESTDIR: test/sdk).

Prints, one per line: the DPDK version, the compile flags, a line
"--libs--", the link flags (pkg-config --static, through OUTDIR). The
driver and library archives that libdpdk.pc links whole (between
-Wl,--whole-archive and -Wl,--no-whole-archive, as -L and -l:NAME) come
as one flag, -Wl,--whole-archive,PATH,...,--no-whole-archive: meson keeps
a flag's place, where it would move the -l flags out of that bracket, and
the PMDs, which register themselves from constructors, would be dropped.
Exit 1, saying why, when DIR has no built DPDK.
"""
import glob
import os
import re
import subprocess
import sys


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    build, out = (os.path.abspath(p) for p in sys.argv[1:])
    src = os.path.join(build, "meson-uninstalled")
    pcs = {"libdpdk": os.path.join(src, "libdpdk-uninstalled.pc"),
           "libdpdk-libs": os.path.join(src, "libdpdk-libs-uninstalled.pc")}
    for p in pcs.values():
        if not os.path.isfile(p):
            sys.exit("dpdk_build: %s has no %s: not a gpudp build directory configured "
                     "with -Ddpdk=subproject" % (build, os.path.relpath(p, build)))
    if not glob.glob(os.path.join(build, "subprojects", "dpdk-*", "lib", "librte_eal.a")):
        sys.exit("dpdk_build: %s has not built its DPDK yet (no librte_eal.a under "
                 "subprojects/): run ninja -C %s first" % (build, build))
    os.makedirs(out, exist_ok=True)
    version = ""
    for name, p in pcs.items():
        text = open(p).read()
        var = dict(re.findall(r"^(\w+)=(.*)$", text, re.M))
        for _ in range(4):  # variables defined through others (libdir=${prefix}/lib)
            for k, v in var.items():
                var[k] = re.sub(r"\$\{(\w+)\}", lambda m: var.get(m.group(1), m.group(0)), v)
        body = re.sub(r"\$\{(\w+)\}", lambda m: var.get(m.group(1), m.group(0)), text)
        m = re.search(r"^Version:\s*(\S+)", body, re.M)
        version = version or (m.group(1) if m else "")
        tmp = os.path.join(out, name + ".pc.tmp")
        with open(tmp, "w") as f:
            f.write("# written by config/dpdk-build-pc.py from %s\n" % p)
            f.write(body)
        os.replace(tmp, os.path.join(out, name + ".pc"))
    env = dict(os.environ, PKG_CONFIG_PATH=os.pathsep.join(
        p for p in (out, os.environ.get("PKG_CONFIG_PATH", "")) if p))

    def pkgconfig(*args):
        try:
            r = subprocess.run(["pkg-config", "--static"] + list(args) + ["libdpdk"],
                               env=env, capture_output=True, text=True)
        except OSError as e:
            sys.exit("dpdk_build: pkg-config: %s" % e)
        if r.returncode != 0:
            sys.exit("dpdk_build: pkg-config %s libdpdk (in %s): %s" %
                     (" ".join(args), out, r.stderr.strip()))
        return r.stdout.split()

    libs, dirs, whole = [], [], None
    for a in pkgconfig("--libs"):
        if a.startswith("-L"):
            dirs.append(a[2:])
        if a == "-Wl,--whole-archive":
            whole = []
        elif a == "-Wl,--no-whole-archive" and whole is not None:
            if whole:
                libs.append(",".join(["-Wl,--whole-archive"] + whole + ["--no-whole-archive"]))
            whole = None
        elif whole is None:
            libs.append(a)
        elif a.startswith("-l:"):
            found = [os.path.join(d, a[3:]) for d in reversed(dirs)
                     if os.path.isfile(os.path.join(d, a[3:]))]
            if not found:
                sys.exit("dpdk_build: %s: no %s in %s" % (a, a[3:], " ".join(dirs)))
            whole.append(found[0])
        elif a.startswith("-L"):
            libs.append(a)  # for the -lrte_* that follow (pkg-config names a -L once)
        else:
            sys.exit("dpdk_build: unexpected %s among libdpdk.pc's whole archives" % a)
    print("\n".join([version] + pkgconfig("--cflags") + ["--libs--"] + libs))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Build example works of doc/examples from the installed SDK.

usage: example_build.py BUILD_DIR OUT_DIR SRC_DIR... [--nvcc PATH | --no-nvcc]
                        [--gpu-archs "80 90"]

Installs the SDK part of the build (`meson install --no-rebuild --tags
devel`: headers, static libraries, gpudp.pc and libdpdk.pc) into a DESTDIR
next to OUT_DIR, points copies of its .pc files at the DESTDIR (as
sdk_install.py does), and for each SRC_DIR (an example, NAME = its folder's
name) copies its files into OUT_DIR/NAME, with the examples' shared
work.mk beside them, and runs its Makefile there with PKG_CONFIG_PATH
naming nothing but the DESTDIR's pkgconfig folder (ahead of the caller's
own, where an installed libdpdk of -Ddpdk=system is found). Result:
OUT_DIR/NAME.so for each. The DESTDIR is removed afterwards.

Only the devel tag is installed: this runs as a build step (meson's
custom_target), when the apps and DPDK's shared objects, which a work does
not need, may not be built yet.

--nvcc PATH builds the GPU image with that nvcc, --no-nvcc the CPU form
only; by default the Makefile looks for nvcc itself. --gpu-archs is passed
as GPU_ARCHS. Exit 0, or 1 with the failing step's output.
"""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys


def introspect(build, what):
    r = subprocess.run(["meson", "introspect", build, "--" + what],
                       capture_output=True, text=True, check=True)
    return json.loads(r.stdout)


def fail(what, r):
    sys.stderr.write("example_build: %s failed (exit %d)\n%s%s" %
                     (what, r.returncode, r.stdout[-4000:], r.stderr[-4000:]))
    return 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("build")
    ap.add_argument("out")
    ap.add_argument("src", nargs="+")
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--nvcc")
    g.add_argument("--no-nvcc", action="store_true")
    ap.add_argument("--gpu-archs")
    ap.add_argument("--pkg-config-path", default="",
                    help="where the DPDK gpudp.pc requires is found (-Ddpdk=system)")
    a = ap.parse_args()
    build, out = os.path.abspath(a.build), os.path.abspath(a.out)
    opts = {o["name"]: o["value"] for o in introspect(build, "buildoptions")}
    prefix, libdir = opts["prefix"], opts["libdir"]
    if not os.path.isabs(libdir):
        libdir = os.path.join(prefix, libdir)
    work = out.rstrip("/") + "-sdk"
    dest = os.path.join(work, "destdir")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    try:
        r = subprocess.run(["meson", "install", "-C", build, "--no-rebuild", "--quiet",
                            "--tags", "devel", "--destdir", dest],
                           capture_output=True, text=True)
        if r.returncode != 0:
            return fail("meson install --tags devel --destdir", r)
        root = dest + prefix
        pcdir = os.path.join(work, "pkgconfig")
        os.makedirs(pcdir)
        for f in glob.glob(dest + libdir + "/pkgconfig/*.pc"):
            with open(f) as i, open(os.path.join(pcdir, os.path.basename(f)), "w") as o:
                o.write(re.sub(r"^prefix=.*$", lambda m: "prefix=" + root, i.read(),
                               count=1, flags=re.M))
        if not os.path.exists(os.path.join(pcdir, "gpudp.pc")):
            sys.stderr.write("example_build: no gpudp.pc under %s\n" % (dest + libdir))
            return 1
        env = dict(os.environ, PKG_CONFIG_PATH=os.pathsep.join(
            p for p in (pcdir, a.pkg_config_path, os.environ.get("PKG_CONFIG_PATH", ""))
            if p))
        for src in (os.path.abspath(p) for p in a.src):
            name = os.path.basename(src.rstrip("/"))
            d = os.path.join(out, name)
            shutil.rmtree(d, ignore_errors=True)
            os.makedirs(d)
            shutil.copy(os.path.join(os.path.dirname(src.rstrip("/")), "work.mk"),
                        os.path.join(out, "work.mk"))
            for f in sorted(os.listdir(src)):
                if os.path.isfile(os.path.join(src, f)) and not f.startswith(".") and \
                        not f.endswith((".so", ".fatbin")):
                    shutil.copy(os.path.join(src, f), os.path.join(d, f))
            cmd = ["make", "-C", d, "--no-print-directory"]
            if a.nvcc:
                cmd.append("NVCC=" + a.nvcc)
            elif a.no_nvcc:
                cmd.append("NVCC=")
            if a.gpu_archs:
                cmd.append("GPU_ARCHS=" + a.gpu_archs)
            r = subprocess.run(cmd, capture_output=True, text=True, env=env)
            so = os.path.join(d, name + ".so")
            if r.returncode != 0 or not os.path.exists(so):
                return fail(" ".join(cmd), r)
            shutil.copy(so, os.path.join(out, name + ".so"))
            print(r.stdout, end="")
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())

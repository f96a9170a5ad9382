#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Pack the gpu suite of a build tree for the GPU machine.

usage: test/tools/pack.py [--bench] [--max-mib N] [BUILD_DIR] [OUT_DIR]
                        (defaults: build .gpu-carry)

--bench also packs every meson benchmark() but those of the suite 'host';
programs named as --flag=PATH are carried into bin/ (the benchmark finds
them beside itself); an argument naming a file in the build tree that does
not exist yet, a .json or a folder there, or one under BUILD/bench/
(outputs), is rewritten to $OUT; files named inside an argument
(--flag=PATH, FILE,key=FILE) are carried into files/ and named relative to
OUT_DIR, where the tests run.

Writes OUT_DIR with:
  bin/       each gpu-suite test executable, stripped
  files/     every file a test names in its arguments (captures, configs)
  lib/       the non-glibc shared libraries they need (libpcap, libibverbs,
             libnuma, ...), so a static-DPDK binary built on Debian 12 runs
             on the GPU machine; libcuda is never packed (the driver's is used)
  tests.json what to run: name, argv (paths relative to OUT_DIR), env, timeout
  run.sh     the runner (copy of test/tools/run-carried.sh)
OUT_DIR is git-ignored; copy it to the GPU machine (scp, rsync, a shared
folder) and run OUT_DIR/run.sh there. See doc/testing.md. With --max-mib N
it stops when the pack is larger than N MiB (for a copy that has a size
limit); a large pack copies faster compressed (tar czf .gpu-pack/carry.tgz
.gpu-carry; .gpu-pack/ is git-ignored too), unpacked there first.
"""
import glob
import json
import os
import re
import shutil
import subprocess
import sys

# provided by every glibc system, or by the NVIDIA driver: never packed
SYSTEM_LIBS = ("linux-vdso", "ld-linux", "libc.so", "libm.so", "libdl.so",
               "libpthread.so", "librt.so", "libresolv.so", "libutil.so",
               "libgcc_s.so", "libstdc++.so", "libcuda.so", "libnvidia")


def needed_libs(exe):
    out = subprocess.run(["ldd", exe], capture_output=True, text=True).stdout
    libs = []
    for line in out.splitlines():
        parts = line.split("=>")
        if len(parts) != 2:
            continue
        path = parts[1].split("(")[0].strip()
        name = os.path.basename(path)
        if path and not name.startswith(SYSTEM_LIBS):
            libs.append(path)
        elif "not found" in parts[1]:
            sys.exit("pack: %s needs %s, not found here" % (exe, parts[0].strip()))
    return libs


def is_elf(path):
    with open(path, "rb") as f:
        return f.read(4) == b"\x7fELF"


def in_suite(entry, name):
    """Whether a meson test or benchmark entry is in suite @name."""
    return any(s.split(":")[-1] == name for s in entry["suite"])


def main():
    argv, max_mib = sys.argv[1:], None
    if "--max-mib" in argv:
        i = argv.index("--max-mib")
        try:
            max_mib = float(argv[i + 1])
        except (IndexError, ValueError):
            sys.exit("pack: --max-mib: expected a number of MiB")
        argv = argv[:i] + argv[i + 2:]
    args = [a for a in argv if a not in ("--bench", "--allow-big")]
    bench = "--bench" in argv
    build = os.path.abspath(args[0] if len(args) > 0 else "build")
    out = os.path.abspath(args[1] if len(args) > 1 else ".gpu-carry")
    tests = json.loads(subprocess.run(
        ["meson", "introspect", "--tests", build],
        capture_output=True, text=True, check=True).stdout)
    gpu = [t for t in tests if in_suite(t, "gpu")]
    if bench:
        # the 'host' suite runs here only (valgrind is not on the GPU machine)
        gpu += [b for b in json.loads(subprocess.run(
            ["meson", "introspect", "--benchmarks", build],
            capture_output=True, text=True, check=True).stdout)
            if not in_suite(b, "host")]
    if not gpu:
        sys.exit("pack: no gpu-suite tests in %s (built without CUDA?)" % build)
    shutil.rmtree(out, ignore_errors=True)
    for d in ("bin", "files", "lib"):
        os.makedirs(os.path.join(out, d))
    here = os.path.dirname(os.path.abspath(__file__))
    shutil.copy(os.path.join(here, "run-carried.sh"), os.path.join(out, "run.sh"))
    packed, libs, manifest = {}, set(), []

    def pack_file(path, sub):
        if path not in packed:
            name = os.path.basename(path)
            dest = os.path.join(sub, name)
            n = 1
            while os.path.exists(os.path.join(out, dest)):
                n += 1
                dest = os.path.join(sub, "%d-%s" % (n, name))
            shutil.copy2(path, os.path.join(out, dest))
            packed[path] = dest
        return packed[path]

    def pack_py_imports(script):
        # a test script's own modules (`from fwd_pcap import ...`), found
        # beside it, in a sibling test folder, in test/common or in any
        # test/*/* folder, go beside it into files/, and theirs in turn
        here = os.path.dirname(script)
        common = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common")
        with open(script) as f:
            mods = re.findall(r"^\s*(?:from|import)\s+(\w+)", f.read(), re.M)
        tests = os.path.join(common, "..")
        for m in mods:
            for d in [here] + sorted(glob.glob(os.path.join(here, "..", "*"))) + [common] + \
                    sorted(glob.glob(os.path.join(tests, "*", "*"))):
                cand = os.path.abspath(os.path.join(d, m + ".py"))
                if os.path.isfile(cand):
                    if cand not in packed:
                        pack_file(cand, "files")
                        pack_py_imports(cand)
                    break

    def embedded(part):
        key, eq, val = part.rpartition("=")
        if os.path.isfile(val) and not is_elf(val):
            return key + eq + pack_file(val, "files")
        return part

    for t in gpu:
        argv = []
        for i, a in enumerate(t["cmd"]):
            # meson gives programs built here as paths relative to the build dir
            if i > 0 and not os.path.isabs(a) and not a.startswith("-") and \
                    os.path.isfile(os.path.join(build, a)):
                a = os.path.join(build, a)
            flag, eq, path = a.partition("=")
            if i > 0 and eq and flag.startswith("--") and os.path.isfile(path) \
                    and os.access(path, os.X_OK) and is_elf(path):
                # a program the test starts (e.g. --testpmd=PATH): carried
                # stripped into bin/, where the test looks beside itself
                rel = pack_file(path, "bin")
                subprocess.run(["strip", "--strip-unneeded",
                                os.path.join(out, rel)], check=True)
                libs.update(needed_libs(path))
                argv.append(a)
            elif i > 0 and eq and flag.startswith("--") and path.endswith(".py") and \
                    os.path.isfile(path):
                # a script the test starts (e.g. --make-flows=PATH): into bin/
                pack_file(path, "bin")
                argv.append(a)
            elif i > 0 and os.path.isdir(a) and not a.startswith(build + "/"):
                # a folder of test data (e.g. test/data): its files, into files/NAME
                rel = os.path.join("files", os.path.basename(a.rstrip("/")))
                if a not in packed:
                    shutil.copytree(a, os.path.join(out, rel),
                                    ignore=shutil.ignore_patterns("*.py", "__pycache__"))
                    packed[a] = rel
                argv.append("@/" + packed[a])
            elif i > 0 and a.startswith(build + "/") and (a.endswith(".json") or
                    not os.path.exists(a) or a.startswith(build + "/bench/") or
                    os.path.isdir(a)):
                # an output (a report, a folder the test writes into)
                argv.append("@out/" + os.path.basename(a))
            elif i == 0 and os.path.basename(a).startswith("python"):
                # a Python test: the GPU machine's own python3 runs it
                argv.append("python3")
            elif os.path.isfile(a):
                # programs (ELF executables, also those a script is given)
                # are carried stripped, with their libraries
                prog = i == 0 or (os.access(a, os.X_OK) and is_elf(a))
                rel = pack_file(a, "bin" if prog else "files")
                if a.endswith(".py"):
                    pack_py_imports(a)
                if prog:
                    subprocess.run(["strip", "--strip-unneeded",
                                    os.path.join(out, rel)], check=True)
                    libs.update(needed_libs(a))
                argv.append("@/" + rel)
            elif i > 0 and ("=" in a or "," in a):
                # files inside an argument (--rules=PATH, FILE,vars=FILE):
                # carried into files/, named relative to the folder the
                # tests run in
                argv.append(",".join(embedded(p) for p in a.split(",")))
            else:
                argv.append(a)
        # LD_LIBRARY_PATH: meson's points into the build tree (a test that
        # depends on a shared module); run.sh sets the carried lib/ instead
        env = {k: v for k, v in t.get("env", {}).items()
               if not k.startswith(("MESON_", "ASAN_", "UBSAN_", "MALLOC_",
                                    "LD_LIBRARY_PATH"))}
        manifest.append({"name": t["name"], "argv": argv, "env": env,
                         "timeout": t.get("timeout") or 30})
    for lib in sorted(libs):
        real = os.path.realpath(lib)
        shutil.copy2(real, os.path.join(out, "lib", os.path.basename(lib)))
    with open(os.path.join(out, "tests.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    size = sum(os.path.getsize(os.path.join(r, x))
               for r, _, fs in os.walk(out) for x in fs)
    print("pack: %d gpu tests, %d libraries, %.1f MiB in %s"
          % (len(manifest), len(libs), size / 2**20, out))
    if max_mib is not None and size > max_mib * 2**20:
        sys.exit("pack: %.1f MiB, over --max-mib %g" % (size / 2**20, max_mib))


if __name__ == "__main__":
    main()

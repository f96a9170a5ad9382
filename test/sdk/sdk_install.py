#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""meson install gives a usable SDK (meson suite 'dpdk').

usage: sdk_install.py BUILD_DIR WORK_DIR

Installs the build into WORK_DIR/destdir (DESTDIR, the configured prefix
kept), then checks, each case printed:
  - the libraries, the public headers under include/gpudp/, gpudp.pc, the
    apps, and the module source with dkms.conf under src/gpudp-pin-VERSION/
    (dkms.conf's PACKAGE_VERSION is the project's version);
  - every installed gpudp header compiles on its own with pkg-config's flags;
  - test/sdk/sdk_consumer.c, compiled and linked with nothing but
    `pkg-config --static --cflags --libs gpudp` against the DESTDIR, runs:
    EAL, a host pool, a cpu-mode handoff with the macswap work.
Prints "N passed, N failed"; exit 77 in a sanitized build (its archives
need the sanitizer runtime that a user's program would not link).
"""
import glob
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


class Cases:
    def __init__(self):
        self.passed = self.failed = 0

    def check(self, name, ok, detail=""):
        print("%-4s %s%s" % ("ok" if ok else "FAIL", name, "" if ok else ": " + str(detail)))
        if ok:
            self.passed += 1
        else:
            self.failed += 1
        return ok


def introspect(build, what):
    r = subprocess.run(["meson", "introspect", build, "--" + what],
                       capture_output=True, text=True, check=True)
    return json.loads(r.stdout)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    build, work = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    opts = {o["name"]: o["value"] for o in introspect(build, "buildoptions")}
    if opts.get("b_sanitize", "none") != "none":
        print("skip: sanitized build (b_sanitize=%s)" % opts["b_sanitize"])
        return 77
    version = introspect(build, "projectinfo")["version"]
    prefix, libdir = opts["prefix"], opts["libdir"]
    if not os.path.isabs(libdir):
        libdir = os.path.join(prefix, libdir)
    dest = os.path.join(work, "destdir")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    c = Cases()
    r = subprocess.run(["meson", "install", "-C", build, "--no-rebuild", "--quiet",
                        "--destdir", dest], capture_output=True, text=True)
    c.check("meson install --destdir", r.returncode == 0, r.stderr[-500:])
    if r.returncode != 0:
        return 1
    root = dest + prefix
    lib = dest + libdir
    have = lambda p: os.path.exists(p)
    headers = sorted(os.path.basename(h) for h in glob.glob(root + "/include/gpudp/*.h"))
    want_h = ["gpudp_analysis.h", "gpudp_cap_batch.h", "gpudp_cap_engine.h", "gpudp_cap_reader.h",
              "gpudp_capfile.h",
              "gpudp_handoff.h", "gpudp_mem.h", "gpudp_pcapng.h", "gpudp_pcapng_ring.h",
              "gpudp_pin.h",
              "gpudp_pin_client.h", "gpudp_pkt_desc.h", "gpudp_regcache.h"]
    c.check("public headers in include/gpudp", all(h in headers for h in want_h),
            "have %s" % headers)
    want_l = ["gpudp_mem", "gpudp_handoff", "gpudp_analysis", "gpudp_capfile", "gpudp_capture",
              "gpudp_pin_client", "gpudp_regcache"]
    c.check("libraries in libdir", all(have("%s/lib%s.a" % (lib, n)) for n in want_l),
            os.listdir(lib) if have(lib) else "no " + lib)
    c.check("apps in bindir", all(have(root + "/bin/" + a) for a in ("gpudp-fwd", "gpudp-capture")))
    src = root + "/src/gpudp-pin-" + version
    files = ["Kbuild", "Makefile", "gpudp_pin.c", "include/uapi/gpudp_pin.h", "dkms.conf"]
    dkms = open(src + "/dkms.conf").read() if have(src + "/dkms.conf") else ""
    c.check("module source with dkms.conf in src/gpudp-pin-%s" % version,
            all(have(src + "/" + f) for f in files) and
            re.search(r'^PACKAGE_VERSION="%s"$' % re.escape(version), dkms, re.M) and
            not have(src + "/meson.build"),
            os.listdir(src) if have(src) else "no " + src)
    # the .pc files name the configured prefix: copies of them point at the
    # DESTDIR instead (not --define-variable, which would move every package,
    # an installed libdpdk of -Ddpdk=system too, found through the caller's
    # PKG_CONFIG_PATH)
    pcdir = os.path.join(work, "pkgconfig")
    os.makedirs(pcdir)
    for f in glob.glob(lib + "/pkgconfig/*.pc"):
        with open(f) as i, open(os.path.join(pcdir, os.path.basename(f)), "w") as o:
            o.write(re.sub(r"^prefix=.*$", lambda m: "prefix=" + root, i.read(),
                           count=1, flags=re.M))
    env = dict(os.environ, PKG_CONFIG_PATH=os.pathsep.join(
        p for p in (pcdir, os.environ.get("PKG_CONFIG_PATH", "")) if p))
    pkgc = ["pkg-config"]
    pc = subprocess.run(pkgc + ["--static", "--cflags", "--libs", "gpudp"],
                        capture_output=True, text=True, env=env)
    c.check("pkg-config --static gpudp (requires libdpdk: this install's, or the installed one)",
            pc.returncode == 0 and "-lgpudp_handoff" in pc.stdout and "-lrte_eal" in
            pc.stdout.replace(":librte_eal.a", "rte_eal"), pc.stderr[-300:])
    if pc.returncode != 0:
        print("%d passed, %d failed" % (c.passed, c.failed))
        return 1
    cflags = subprocess.run(pkgc + ["--cflags", "gpudp"], capture_output=True,
                            text=True, env=env).stdout.split()
    cc = os.environ.get("CC", "cc")
    bad = []
    # gpudp_cuda_fns.h is a list that gpudp_cuda.h expands, not for users;
    # gpudp_work_dev.h is for nvcc (checked below when there is one)
    c_headers = [h for h in headers if h not in ("gpudp_cuda_fns.h", "gpudp_work_dev.h")]
    for h in c_headers:
        t = os.path.join(work, "h.c")
        with open(t, "w") as f:
            f.write("#include <%s>\nint main(void) { return 0; }\n" % h)
        r = subprocess.run([cc, "-std=c11", "-D_GNU_SOURCE", "-Wall", "-Wextra", "-Werror",
                            "-fsyntax-only"] + cflags + [t], capture_output=True, text=True)
        if r.returncode != 0:
            bad.append("%s: %s" % (h, r.stderr.strip().splitlines()[-1:]))
    c.check("each installed C header compiles on its own (%d)" % len(c_headers), not bad, bad)
    exe = os.path.join(work, "sdk_consumer")
    r = subprocess.run([cc, "-std=c11", "-D_GNU_SOURCE", "-Wall", "-Wextra", "-Werror",
                        os.path.join(HERE, "sdk_consumer.c"), "-o", exe]
                       + pc.stdout.split(), capture_output=True, text=True)
    c.check("sdk_consumer.c builds from the install alone", r.returncode == 0, r.stderr[-800:])
    if r.returncode == 0:
        r = subprocess.run([exe, "-l", "0", "--no-huge", "-m", "128", "--no-pci", "--no-shconf",
                            "--log-level=lib.*:error", "--vdev", "net_null0"],
                           capture_output=True, text=True, timeout=60)
        print(r.stdout, end="")
        c.check("sdk_consumer runs: pool, handoff, macswap work",
                r.returncode == 0 and "0 failed" in r.stdout, r.stderr[-500:])
    shutil.rmtree(work, ignore_errors=True)
    print("%d passed, %d failed" % (c.passed, c.failed))
    return 1 if c.failed else 0


if __name__ == "__main__":
    sys.exit(main())

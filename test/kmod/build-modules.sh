#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# usage: build-modules.sh [-k] OUTDIR
# Build nvidia_p2p_sim.ko (test provider) and gpudp_pin.ko against it, in
# copies of the sources (Kbuild writes next to its sources, and the source
# tree must stay clean). Leaves OUTDIR/{gpudp_pin,nvidia_p2p_sim}.ko and
# OUTDIR/build.log.
# Kernel: KDIR=<build tree> or KVER=<release>, else the newest installed
# headers (kmod/kernel-release.sh). Exits 77 when there are none.
# GPUDP_KMOD_ROOT=<dir>: build inside that root with chroot (KDIR is then a
# path in it): the Debian 13 root of test/kmod/trixie-root.sh, whose gcc-14
# the kernels from 6.12 on need.
# NV_P2P=tegra: both modules for the Tegra NV-P2P API (the provider's
# Tegra personality; kmod/Kbuild). ARCH, CROSS_COMPILE: passed to Kbuild
# (a cross build, e.g. ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-).
# Every compiler or modpost warning fails the build.
# -k (meson, unless -Dkmod=enabled): a failed build says so and exits 0,
# leaving no .ko: user space still builds, and the kmod tests fail with
# OUTDIR/build.log. The next build tries again.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
keep_going=0
if [ "${1:-}" = -k ]; then
	keep_going=1
	shift
fi
out=$1
mkdir -p "$out"
out=$(cd "$out" && pwd)
root=${GPUDP_KMOD_ROOT:-}
if [ -z "${KDIR:-}" ]; then
	[ -z "$root" ] || { echo "build-modules: GPUDP_KMOD_ROOT needs KDIR"; exit 1; }
	kver=$("$top/kmod/kernel-release.sh") || { echo "SKIP: no kernel headers"; exit 77; }
	KDIR=/lib/modules/$kver/build
fi
make=${MAKE:-make}
rm -f "$out/gpudp_pin.ko" "$out/nvidia_p2p_sim.ko"
failed() {
	echo "build-modules: $*"
	if [ "$keep_going" = 1 ]; then
		echo "build-modules: gpudp_pin.ko NOT built (user space is not affected; the kmod tests will fail; -Dkmod=enabled makes this a build error)"
		exit 0
	fi
	exit 1
}
if [ -n "$root" ]; then
	# Sources and objects under the root's /tmp, seen from inside as $src.
	mkdir -p "$root/tmp"
	work=$(mktemp -d "$root/tmp/gpudp-kmod.XXXXXX")
	trap 'rm -rf "$work"' EXIT
	src=${work#"$root"}
	# Kbuild's tools read /proc (objtool): a private mount namespace gets
	# its own /proc in the root, gone with the build.
	in_root() {
		unshare --mount --pid --fork --mount-proc="$root/proc" \
			chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
			HOME=/ LC_ALL=C "$@"
	}
else
	rm -rf "$out/src"
	work=$out/src src=$work
	in_root() { "$@"; }
fi
mkdir -p "$work/sim" "$work/pin"
cp "$top"/test/kmod/sim/*.c "$top"/test/kmod/sim/*.h "$top"/test/kmod/sim/Kbuild "$work/sim/"
cp -R "$top"/kmod/*.c "$top"/kmod/*.h "$top"/kmod/Kbuild "$top"/kmod/features.sh \
	"$top"/kmod/include "$work/pin/"
log="$out/build.log"
set -- ${NVIDIA_SRC:+NVIDIA_SRC="$NVIDIA_SRC"} ${NV_P2P:+NV_P2P="$NV_P2P"} \
	${ARCH:+ARCH="$ARCH"} ${CROSS_COMPILE:+CROSS_COMPILE="$CROSS_COMPILE"}
if ! in_root "$make" -C "$KDIR" M="$src/sim" GPUDP_KMOD_DIR="$src/pin" "$@" \
	modules >"$log" 2>&1 ||
   ! in_root "$make" -C "$KDIR" M="$src/pin" KBUILD_EXTRA_SYMBOLS="$src/sim/Module.symvers" \
	"$@" modules >>"$log" 2>&1; then
	cat "$log"
	failed "the build failed for $KDIR${root:+ in $root}"
fi
# Kbuild warnings are errors for us.
if grep -E 'warning:|WARNING:' "$log"; then
	failed "compiler or modpost warnings (see $log)"
fi
cp "$work/sim/nvidia_p2p_sim.ko" "$work/pin/gpudp_pin.ko" "$work/pin/gpudp_features.h" "$out/"

#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# usage: trixie.sh guest|build [-b BUILDDIR] [-n NAME] [-p PIN_TEST] [-a "cmdline"]
#
# The kmod suite on Debian 13's kernels, from a Debian 12 machine, with the
# Debian 13 root of trixie-root.sh (made on first use, then cached):
#   guest  build both modules in the root for trixie's 6.12 kernel, boot that
#          kernel under QEMU TCG with them (run.sh) and run the guest tests
#          (-a: kernel command line words, as for run.sh: e.g. fuzz only)
#   build  build both modules in the root for the newest kernel of
#          trixie-backports (7.x) and check what came out, then again for
#          the Tegra NV-P2P API (NV_P2P=tegra); no boot (no image): this
#          catches the kernel API changes early
# Warnings fail both (build-modules.sh). Exit: 0 pass, 1 fail, 77 (meson
# SKIP) when the root cannot be had (not root, no debootstrap, Debian's
# trixie suites unreachable) or a QEMU prerequisite is missing.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
mode=${1:-}
[ $# -gt 0 ] && shift
build=${MESON_BUILD_ROOT:+$MESON_BUILD_ROOT/test/kmod}
build=${build:-$top/build-kmod}
name=$mode pintest="" append=""
while getopts a:b:n:p: o; do
	case $o in
	a) append=$OPTARG ;;
	b) build=$OPTARG ;;
	n) name=$OPTARG ;;
	p) pintest=$OPTARG ;;
	*) exit 1 ;;
	esac
done
skip() { echo "SKIP: $*"; exit 77; }
case $mode in
guest) kind=boot ;;
build) kind=compile ;;
*) echo "usage: trixie.sh guest|build [-b BUILDDIR] [-n NAME] [-p PIN_TEST] [-a WORDS]"; exit 1 ;;
esac
[ "${GPUDP_KMOD_DISABLED:-0}" != 1 ] || skip "configured with -Dkmod=disabled"

rc=0
dir=$("$top/test/kmod/trixie-root.sh") || rc=$?
[ "$rc" = 0 ] || exit "$rc"
rel=$(sed -n "s/^$kind //p" "$dir/gpudp-kernels")
[ -n "$rel" ] || { echo "trixie: no '$kind' kernel in $dir/gpudp-kernels"; exit 1; }
out=$build/debian13/$name
mods=$build/debian13/modules-$rel
mkdir -p "$out" "$mods"
out=$(cd "$out" && pwd)
mods=$(cd "$mods" && pwd)
echo "trixie: $mode: Linux $rel, modules built with $(chroot "$dir/root" gcc-14 --version | head -n 1)"
# The modules of one kernel are built once for the tests that boot it, and
# again when a source or the root changes; "build" always builds them.
exec 8>"$mods.lock"
flock 8
[ "$mode" = guest ] || rm -f "$mods/.sum"
sum=$( (cat "$top"/kmod/*.c "$top"/kmod/*.h "$top"/kmod/Kbuild "$top"/kmod/features.sh \
	"$top"/kmod/include/uapi/*.h "$top"/test/kmod/sim/*.c "$top"/test/kmod/sim/*.h \
	"$top"/test/kmod/sim/Kbuild "$top"/test/kmod/build-modules.sh "$dir/.gpudp-done" "$dir/gpudp-kernels") |
	sha256sum | cut -c1-16)
if [ -f "$mods/gpudp_pin.ko" ] && [ "$(cat "$mods/.sum" 2>/dev/null)" = "$sum" ]; then
	echo "trixie: modules for $rel up to date in $mods"
else
	rm -f "$mods/.sum"
	start=$(date +%s)
	GPUDP_KMOD_ROOT=$dir/root KDIR=/usr/src/linux-headers-$rel \
		"$top/test/kmod/build-modules.sh" "$mods"
	echo "$sum" >"$mods/.sum"
	echo "trixie: modules built in $(($(date +%s) - start)) s"
fi
exec 8>&-
echo "trixie: feature checks for $rel:"
grep -E '^(#define GPUDP_[A-Z_]+ 1|/\* #undef)' "$mods/gpudp_features.h"

if [ "$mode" = build ]; then
	# Both modules are for this kernel, and gpudp_pin needs the provider.
	command -v modinfo >/dev/null || skip "modinfo missing (install kmod)"
	for m in gpudp_pin nvidia_p2p_sim; do
		vm=$(modinfo -F vermagic "$mods/$m.ko")
		case $vm in
		"$rel "*) echo "trixie: $m.ko: vermagic $vm" ;;
		*) echo "trixie: $m.ko: vermagic '$vm', want $rel"; exit 1 ;;
		esac
	done
	deps=$(modinfo -F depends "$mods/gpudp_pin.ko")
	[ "$deps" = nvidia_p2p_sim ] ||
		{ echo "trixie: gpudp_pin.ko depends on '$deps', want nvidia_p2p_sim"; exit 1; }
	echo "trixie: both modules build for $rel without a warning"
	# The Tegra NV-P2P API's code too (NV_P2P=tegra, doc/kmod.md#tegra).
	NV_P2P=tegra GPUDP_KMOD_ROOT=$dir/root KDIR=/usr/src/linux-headers-$rel \
		"$top/test/kmod/build-modules.sh" "$mods-tegra"
	grep -qx '#define GPUDP_NV_P2P_TEGRA 1' "$mods-tegra/gpudp_features.h" ||
		{ echo "trixie: NV_P2P=tegra: features.sh did not find the Tegra API"; exit 1; }
	echo "trixie: both modules build for $rel for the Tegra API without a warning"
	exit 0
fi

kernel=$out/vmlinux-$rel
"$top/test/qemu/extract-vmlinux.sh" "$dir/boot/vmlinuz-$rel" "$kernel" ||
	kernel=$dir/boot/vmlinuz-$rel
exec "$top/test/kmod/run.sh" -b "$out" -n "$name" -k "$kernel" -m "$mods" \
	${pintest:+-p "$pintest"} -a "$append"

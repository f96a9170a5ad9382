#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# usage: run.sh [-b BUILDDIR] [-m MODDIR] [-p PIN_TEST] [-n NAME] [-t SECS]
#               [-k KERNEL] [-M MEM] [-a "kernel command line words"]
# Boot the Debian kernel under QEMU TCG with gpudp_pin + nvidia_p2p_sim and
# run the guest tests (init.sh). Builds what it is not given:
#   -m MODDIR    directory with gpudp_pin.ko and nvidia_p2p_sim.ko
#   -p PIN_TEST  static pin_test binary
#   -k KERNEL    boot this kernel image instead of Debian's; modules are then
#                -m's or built against $KDIR (debug-kernel.sh, trixie.sh)
# Exit: 0 pass, 1 fail, 77 (meson SKIP) when a prerequisite is missing:
# kernel headers, /boot/vmlinuz-KVER, qemu, static busybox, static libc.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${MESON_BUILD_ROOT:+$MESON_BUILD_ROOT/test/kmod}
build=${build:-$top/build-kmod}
moddir="" pintest="" name=kmod tmo=300 append="" kimage="" mem=512M
while getopts a:b:k:m:M:n:p:t: o; do
	case $o in
	a) append=$OPTARG ;;
	k) kimage=$OPTARG ;;
	M) mem=$OPTARG ;;
	b) build=$OPTARG ;;
	m) moddir=$OPTARG ;;
	n) name=$OPTARG ;;
	p) pintest=$OPTARG ;;
	t) tmo=$OPTARG ;;
	*) exit 1 ;;
	esac
done
skip() { echo "SKIP: $*"; exit 77; }
[ "${GPUDP_KMOD_DISABLED:-0}" != 1 ] || skip "configured with -Dkmod=disabled"
# Set by meson when configure found the module cannot be built here.
[ -z "${GPUDP_KMOD_SKIP:-}" ] || skip "gpudp_pin.ko not built: $GPUDP_KMOD_SKIP"

mkdir -p "$build"
build=$(cd "$build" && pwd)
if [ -z "$kimage" ]; then
	found=$("$top/test/qemu/debian-kernel.sh" "$build") || exit $?
	kver=${found%% *} kernel=${found#* }
	export KVER="$kver"
else
	kernel=$kimage
	[ -r "$kimage" ] || { echo "run.sh: -k $kimage: not readable"; exit 1; }
	[ -n "$moddir" ] || [ -n "${KDIR:-}" ] || { echo "run.sh: -k needs -m or KDIR"; exit 1; }
fi
command -v "${QEMU:-qemu-system-x86_64}" >/dev/null || skip "${QEMU:-qemu-system-x86_64} missing"
command -v cpio >/dev/null || skip "cpio missing"
command -v busybox >/dev/null || skip "busybox missing (install busybox-static)"
cc=${CC:-gcc}
printf 'int main(void){return 0;}\n' | "$cc" -static -x c - -o /dev/null 2>/dev/null ||
	skip "$cc -static does not link (install libc6-dev)"

if [ -z "$moddir" ]; then
	moddir=$build/modules
	"$top/test/kmod/build-modules.sh" "$moddir"
elif [ ! -f "$moddir/gpudp_pin.ko" ] || [ ! -f "$moddir/nvidia_p2p_sim.ko" ]; then
	# The build (build-modules.sh -k) failed: that is this test's failure.
	[ -f "$moddir/build.log" ] && tail -n 40 "$moddir/build.log"
	echo "run.sh: no gpudp_pin.ko/nvidia_p2p_sim.ko in $moddir: the module build failed"
	exit 1
fi
if [ -z "$pintest" ]; then
	pintest=$build/pin_test
	"$cc" -static -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -pthread \
		-I"$top/kmod/include/uapi" -I"$top/lib/pin" -I"$top/test/common" \
		-I"$top/test/kmod/sim" -o "$pintest" \
		"$top"/test/kmod/pin_test*.c "$top/lib/pin/gpudp_pin_client.c"
fi

initrd=$build/$name-initramfs.cpio
"$top/test/qemu/mkinitramfs.sh" "$initrd" "$top/test/kmod/init.sh" \
	"lib/modules/nvidia_p2p_sim.ko=$moddir/nvidia_p2p_sim.ko" \
	"lib/modules/gpudp_pin.ko=$moddir/gpudp_pin.ko" \
	"bin/pin_test=$pintest"

log=$build/$name-serial.log
rc=0
"$top/test/qemu/boot.sh" -t "$tmo" -m "$mem" -l "$log" -a "$append" "$kernel" "$initrd" || rc=$?
grep -a -E '^(ok|FAIL|skip) |passed, .* failed|fuzz:' "$log" | tail -n 80 || true
exit $rc

#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# usage: arm64.sh build|guest [-b BUILDDIR] [-a WORDS] [-q]
#   build  cross build only
#   guest  cross build, then boot Debian 12's arm64 kernel under
#          qemu-system-aarch64 (TCG) with the modules of each API and run
#          the kmod guest tests there (test/kmod/init.sh, pin_test built
#          with the cross compiler); -a WORDS: their kernel command line
#   -q     query: exit 0 if the arm64 packages are cached, 1 if they would
#          be downloaded
#
# Cross build of gpudp_pin.ko and the TEST-ONLY provider nvidia_p2p_sim.ko
# for arm64 (Jetson and DRIVE run arm64 kernels), with Debian's cross
# compiler (gcc-aarch64-linux-gnu) against the headers of Debian 12's arm64
# kernel, once for each NV-P2P API: desktop, and Tegra (NV_P2P=tegra), and
# once more with NVIDIA_SRC naming test/kmod/sim/tegra-header (a TEST-ONLY
# stand-in for L4T's nv-p2p.h) and no NV_P2P, where the Tegra API must be
# found from the header alone. Checks that every warning-free build gives
# AArch64 modules with that kernel's vermagic, and that kmod/features.sh
# found the API asked for.
#
# The packages are Debian's, downloaded once and cached (about 90 MB) under
# ${GPUDP_CACHE_DIR:-~/.cache/gpudp}/arm64-headers: the kernel that
# linux-headers-arm64 depends on, linux-headers-REL-arm64 and -common, the
# newest amd64 linux-kbuild of its series (the build programs run here, as
# for the amd64 headers), and for the guest that kernel's image (only
# boot/vmlinuz kept) and busybox-static, unpacked, never installed. apt
# reads this machine's own sources with a private state for amd64 and arm64
# (nothing under /etc/apt or /var/lib/apt changes).
# Exit: 0 pass, 1 fail, 77 (meson SKIP) when the cross compiler (or, for
# the guest, qemu-system-aarch64) is missing or the packages cannot be had
# (offline), with the reason.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${MESON_BUILD_ROOT:+$MESON_BUILD_ROOT/test/kmod}
build=${build:-$top/build-kmod}
query=0 append=""
mode=${1:-}
case $mode in
build | guest) shift ;;
*) echo "usage: arm64.sh build|guest [-b BUILDDIR] [-a WORDS] [-q]"; exit 1 ;;
esac
while getopts a:b:q o; do
	case $o in
	a) append=$OPTARG ;;
	b) build=$OPTARG ;;
	q) query=1 ;;
	*) exit 1 ;;
	esac
done
skip() { echo "SKIP: $*"; exit 77; }
[ "${GPUDP_KMOD_DISABLED:-0}" != 1 ] || skip "configured with -Dkmod=disabled"
cache=${GPUDP_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/gpudp}
dir=$cache/arm64-headers
# Bump when what the cache holds changes: an older one is then remade.
recipe=2

if [ ! -f "$dir/.gpudp-done" ] || [ "$(head -n 1 "$dir/.gpudp-done")" != "$recipe" ]; then
	[ "$query" = 0 ] || exit 1
	command -v apt-get >/dev/null || skip "not a Debian system (no apt-get)"
	command -v dpkg-deb >/dev/null || skip "dpkg-deb missing"
	mkdir -p "$cache"
	exec 9>"$cache/.arm64-headers.lock"
	flock 9
fi
if [ ! -f "$dir/.gpudp-done" ] || [ "$(head -n 1 "$dir/.gpudp-done")" != "$recipe" ]; then
	work=$dir.new
	rm -rf "$work"
	trap 'rm -rf "$work"' EXIT
	mkdir -p "$work/apt/lists/partial" "$work/apt/cache/archives/partial" "$work/debs"
	log=$work/log
	echo "arm64: downloading the arm64 kernel headers into $dir" >&2
	start=$(date +%s)
	apt() {
		"$@" -q -o "Dir::State::lists=$work/apt/lists" \
			-o "Dir::State::status=/dev/null" \
			-o "Dir::Cache=$work/apt/cache" \
			-o "Dir::Cache::pkgcache=" -o "Dir::Cache::srcpkgcache=" \
			-o "APT::Architecture=amd64" -o "APT::Architectures::=amd64" \
			-o "APT::Architectures::=arm64" -o "Debug::NoLocking=1" \
			-o "APT::Sandbox::User=$(id -un)"
	}
	# apt-get update exits 0 when a fetch fails: look for the index instead.
	apt apt-get update >>"$log" 2>&1 || true
	ls "$work"/apt/lists/*binary-arm64_Packages* >/dev/null 2>&1 || {
		grep -E '^(E|W):' "$log" | tail -n 3
		skip "cannot read the arm64 package index of this machine's Debian mirror (offline?)"
	}
	rel=$(apt apt-cache show linux-headers-arm64:arm64 2>/dev/null |
		sed -n 's/^Depends:.*linux-headers-\([0-9][^ ,]*-arm64\).*/\1/p' |
		sort -V | tail -n 1)
	[ -n "$rel" ] || skip "the mirror has no linux-headers-arm64"
	ver=$(apt apt-cache show "linux-headers-$rel:arm64" 2>/dev/null |
		sed -n 's/^Version: //p' | sort -V | tail -n 1)
	series=$(echo "$rel" | sed 's/^\([0-9]*\.[0-9]*\)\..*/\1/')
	(
		cd "$work/debs"
		apt apt-get download "linux-headers-$rel:arm64" \
			"linux-headers-${rel%-arm64}-common=$ver" \
			"linux-kbuild-$series:amd64"
	) >>"$log" 2>&1 || { tail -n 5 "$log"; skip "cannot download the headers of $rel"; }
	for d in "$work"/debs/*.deb; do
		dpkg-deb -x "$d" "$work/root"
	done
	# The guest's kernel and busybox: only boot/vmlinuz and bin/busybox.
	mkdir -p "$work/guest"
	(
		cd "$work/guest"
		apt apt-get download "linux-image-$rel:arm64" busybox-static:arm64 ||
			apt apt-get download "linux-image-$rel-unsigned:arm64" busybox-static:arm64
	) >>"$log" 2>&1 || { tail -n 5 "$log"; skip "cannot download the image of $rel"; }
	dpkg-deb --fsys-tarfile "$work"/guest/linux-image-*.deb |
		tar -x -C "$work/guest" "./boot/vmlinuz-$rel"
	dpkg-deb --fsys-tarfile "$work"/guest/busybox-static_*.deb |
		tar -x -C "$work/guest" ./bin/busybox
	rm -f "$work"/guest/*.deb
	[ -s "$work/guest/boot/vmlinuz-$rel" ] && [ -x "$work/guest/bin/busybox" ] ||
		{ echo "arm64: no vmlinuz-$rel or busybox in the downloaded packages"; exit 1; }
	# The arm64 tree includes the common one by its installed path: here.
	kd=$work/root/usr/src/linux-headers-$rel
	sed -i "s|/usr/src/linux-headers-|$dir/root/usr/src/linux-headers-|" "$kd/Makefile"
	[ -f "$kd/Module.symvers" ] && [ -d "$kd/scripts/" ] ||
		{ echo "arm64: $kd is not a usable build tree"; exit 1; }
	rm -rf "$work/apt" "$work/debs"
	echo "$((($(date +%s) - start))) s, $rel $ver" >"$work/.gpudp-seconds"
	printf '%s\n%s\n' "$recipe" "$rel" >"$work/.gpudp-done"
	rm -rf "$dir"
	mv "$work" "$dir"
	trap - EXIT
	echo "arm64: headers of $rel ready in $(cat "$dir/.gpudp-seconds")" >&2
fi
[ "$query" = 0 ] || exit 0
rel=$(sed -n 2p "$dir/.gpudp-done")
mkdir -p "$build"
build=$(cd "$build" && pwd)
kdir=$dir/root/usr/src/linux-headers-$rel

cross=aarch64-linux-gnu-
# The compiler that built the kernel ("gcc-12 (Debian ...)", natively on
# arm64), as a cross compiler.
cc=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\{0,1\}\([^ ]*\) .*/\1/p' "$kdir/include/config/auto.conf")
cc=$cross${cc#"$cross"}
command -v "$cc" >/dev/null ||
	skip "$cc missing (install gcc-aarch64-linux-gnu), which built Debian's $rel"
command -v modinfo >/dev/null || skip "modinfo missing (install kmod)"

# e_machine of an ELF file, from its header: 183 is AArch64.
machine() {
	od -A n -t u2 -j 18 -N 2 "$1" | tr -d ' '
}
rc=0
for api in desktop tegra tegra-header; do
	out=$build/arm64/$api nv='' src='' want=GPUDP_NV_P2P_TEGRA
	case $api in
	desktop) want=GPUDP_NV_P2P_DESKTOP ;;
	tegra) nv=tegra ;;
	tegra-header) src=$top/test/kmod/sim/tegra-header ;;
	esac
	start=$(date +%s)
	if ! KDIR=$kdir NV_P2P=$nv NVIDIA_SRC=$src ARCH=arm64 CROSS_COMPILE=$cross \
		"$top/test/kmod/build-modules.sh" "$out" >"$build/arm64-$api.log" 2>&1; then
		tail -n 30 "$build/arm64-$api.log"
		echo "arm64: $api: the build failed for $rel"
		rc=1
		continue
	fi
	for m in gpudp_pin nvidia_p2p_sim; do
		vm=$(modinfo -F vermagic "$out/$m.ko")
		case $vm in
		"$rel "*) ;;
		*) echo "arm64: $api: $m.ko: vermagic '$vm', want $rel"; rc=1 ;;
		esac
		[ "$(machine "$out/$m.ko")" = 183 ] ||
			{ echo "arm64: $api: $m.ko is not an AArch64 object"; rc=1; }
	done
	grep -qx "#define $want 1" "$out/gpudp_features.h" ||
		{ echo "arm64: $api: features.sh did not find $want"; rc=1; }
	echo "arm64: $api: both modules built for $rel in $(($(date +%s) - start)) s, $want"
done
[ "$mode" = guest ] && [ "$rc" = 0 ] || exit "$rc"

# The guest: the same tests as kmod_guest, on the arm64 kernel.
qemu='qemu-system-aarch64'
command -v "$qemu" >/dev/null || skip "$qemu missing (install qemu-system-arm)"
printf 'int main(void){return 0;}\n' | "${cross}gcc" -static -x c - -o /dev/null 2>/dev/null ||
	skip "${cross}gcc -static does not link (install libc6-dev-arm64-cross)"
for api in desktop tegra; do
	out=$build/arm64/$api
	echo "arm64: the guest tests on $rel, $api NV-P2P API"
	r=0
	QEMU=$qemu CC=${cross}gcc BUSYBOX=$dir/guest/bin/busybox \
		"$top/test/kmod/run.sh" -b "$out" -n guest -k "$dir/guest/boot/vmlinuz-$rel" \
		-m "$out" -t 600 -a "$append" || r=$?
	# a failure wins over a skip
	[ "$r" = 0 ] || [ "$rc" = 1 ] || rc=$r
done
exit "$rc"

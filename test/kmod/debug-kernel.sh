#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# usage: debug-kernel.sh [-t] [-b BUILDDIR] [-B] [-q] [-a "kernel command line words"]
#   -t  Debian 13: the kernel and the modules are built from trixie's
#       linux-source-6.12 with its gcc-14, in the Debian 13 root of
#       trixie-root.sh (which gets the source and the kernel's build tools
#       installed the first time); without -t, Debian 12's linux-source-6.1
#       with the machine's gcc
#   -B  build (or find) the kernel only, do not boot it
#   -q  query: exit 0 if the kernel is cached, 1 if it would be built
#
# Second stage of the kmod suite: the same guest tests on a kernel with
# KASAN, lockdep (PROVE_LOCKING), kmemleak and DEBUG_ATOMIC_SLEEP, which
# Debian's kernel lacks; without -t for both NV-P2P APIs (desktop, and
# Tegra: the modules built with NV_P2P=tegra). The kernel is built from Debian's linux-source
# (tinyconfig + test/kmod/debug.config) and cached, by a hash of the source
# package version, the compiler and the config fragment, under
# ${GPUDP_CACHE_DIR:-~/.cache/gpudp}/debug-kernel/HASH (with -t, under
# /var/cache/gpudp/debug-kernel/HASH in the Debian 13 root); later runs
# reuse it (about 10 s of module builds plus the boot). The cached tree is
# `make clean`ed after the build: it keeps what out-of-tree module builds
# need.
# Exit: 0 pass, 1 fail, 77 when linux-source or the build tools are missing.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${MESON_BUILD_ROOT:+$MESON_BUILD_ROOT/test/kmod}
build=${build:-$top/build-kmod}
build_only=0
query=0
trixie=0
append="GPUDP_RACE_LOOPS=500 GPUDP_FUZZ_SECONDS=10"
while getopts a:b:Bqt o; do
	case $o in
	q) query=1 ;;
	a) append=$OPTARG ;;
	b) build=$OPTARG ;;
	B) build_only=1 ;;
	t) trixie=1 ;;
	*) exit 1 ;;
	esac
done
skip() { echo "SKIP: $*"; exit 77; }
frag=$top/test/kmod/debug.config
cache=${GPUDP_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/gpudp}

if [ "$trixie" = 1 ]; then
	if [ "$query" = 1 ]; then
		dir=$("$top/test/kmod/trixie-root.sh" -q) || exit 1
	else
		rc=0
		dir=$("$top/test/kmod/trixie-root.sh") || rc=$?
		[ "$rc" = 0 ] || exit "$rc"
	fi
	root=$dir/root
	# Kbuild's tools read /proc: a private one in a mount namespace.
	in_root() {
		unshare --mount --pid --fork --mount-proc="$root/proc" \
			chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
			HOME=/root LC_ALL=C DEBIAN_FRONTEND=noninteractive "$@"
	}
	if [ ! -f "$root/usr/src/linux-source-6.12.tar.xz" ] || [ ! -x "$root/usr/bin/gcc" ]; then
		[ "$query" = 0 ] || exit 1
		echo "debug-kernel: installing linux-source-6.12 and the kernel's build tools in $root"
		{ in_root apt-get -q update && in_root apt-get -q -y install --no-install-recommends \
			linux-source-6.12 gcc flex bison bc libelf-dev libssl-dev libc6-dev perl xz-utils; } \
			>"$dir/debug-kernel-apt.log" 2>&1 ||
			{ tail -n 5 "$dir/debug-kernel-apt.log"; skip "cannot install linux-source-6.12 in the Debian 13 root"; }
	fi
	tarball=$root/usr/src/linux-source-6.12.tar.xz
	pkg=linux-source-6.12
	ver=$(dpkg-query --admindir="$root/var/lib/dpkg" -W -f '${Version}' "$pkg")
	ccver=$(in_root gcc-14 -dumpfullversion)
	cache_in=/var/cache/gpudp/debug-kernel
	cache_out=$root$cache_in
else
	tarball=$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | sort -V | tail -n 1 || true)
	[ -n "$tarball" ] || skip "no /usr/src/linux-source-*.tar.xz (install linux-source-6.1)"
	for t in make gcc flex bison bc perl xz; do
		command -v $t >/dev/null || skip "$t missing"
	done
	in_root() { "$@"; }
	pkg=$(basename "$tarball" .tar.xz)
	ver=$(dpkg-query -W -f '${Version}' "$pkg" 2>/dev/null || stat -c '%s-%Y' "$tarball")
	ccver=$(gcc -dumpfullversion)
	cache_in=$cache/debug-kernel
	cache_out=$cache_in
fi
hash=$( (echo "$pkg $ver"; echo "$ccver"; cat "$frag") | sha256sum | cut -c1-16)
kdir=$cache_out/$hash	# seen from here
kdir_in=$cache_in/$hash	# seen by the build (in the root with -t)

if [ "$query" = 1 ]; then
	[ -f "$kdir/.gpudp-done" ]
	exit
fi
if [ ! -f "$kdir/.gpudp-done" ]; then
	echo "debug-kernel: building $pkg $ver into $kdir (about 6 min on 2 cores)"
	start=$(date +%s)
	rm -rf "$kdir"
	mkdir -p "$kdir"
	log=$kdir/.gpudp-build.log
	tar -C "$kdir" --strip-components=1 -xf "$tarball"
	cp "$frag" "$kdir/.gpudp-debug.config"
	in_root sh -c "cd '$kdir_in' && make tinyconfig &&
		scripts/kconfig/merge_config.sh -m .config .gpudp-debug.config &&
		make olddefconfig" >"$log" 2>&1 || { tail -n 30 "$log"; exit 1; }
	# Every option of the fragment must have survived olddefconfig.
	grep -E '^CONFIG_[A-Z0-9_]+=' "$frag" | while read -r line; do
		grep -qx "$line" "$kdir/.config" || { echo "debug-kernel: $line not set"; exit 1; }
	done
	in_root nice make -C "$kdir_in" -j"${GPUDP_JOBS:-2}" bzImage modules >>"$log" 2>&1 ||
		{ tail -n 30 "$log"; exit 1; }
	cp "$kdir/arch/x86/boot/bzImage" "$kdir/.gpudp-bzImage"
	in_root nice make -C "$kdir_in" clean >>"$log" 2>&1
	end=$(date +%s)
	echo "$((end - start))" >"$kdir/.gpudp-build-seconds"
	touch "$kdir/.gpudp-done"
	echo "debug-kernel: built in $((end - start)) s"
else
	echo "debug-kernel: cached $kdir (built in $(cat "$kdir/.gpudp-build-seconds") s)"
fi
[ "$build_only" = 0 ] || exit 0

if [ "$trixie" = 0 ]; then
	# Both NV-P2P APIs: desktop (build/debug), then Tegra (NV_P2P=tegra,
	# build/debug-tegra): the modules are rebuilt for each.
	rc=0
	for api in desktop tegra; do
		out=$build/debug nv=''
		[ "$api" = desktop ] || out=$build/debug-$api nv=$api
		mkdir -p "$out"
		rm -rf "$out/modules"
		echo "debug-kernel: the guest tests, $api NV-P2P API"
		r=0
		KDIR=$kdir NV_P2P=$nv "$top/test/kmod/run.sh" -b "$out" -n debug \
			-k "$kdir/.gpudp-bzImage" -M 1G -t 900 -a "$append" || r=$?
		# a failure wins over a skip
		[ "$r" = 0 ] || [ "$rc" = 1 ] || rc=$r
	done
	exit "$rc"
fi
out=$build/debug-debian13
mkdir -p "$out"
GPUDP_KMOD_ROOT=$root KDIR=$kdir_in "$top/test/kmod/build-modules.sh" "$out/modules"
exec "$top/test/kmod/run.sh" -b "$out" -n debug -k "$kdir/.gpudp-bzImage" -m "$out/modules" \
	-M 1G -t 900 -a "$append"

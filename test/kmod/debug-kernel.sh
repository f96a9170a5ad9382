#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# usage: debug-kernel.sh [-b BUILDDIR] [-B] [-q] [-a "kernel command line words"]
#   -B  build (or find) the kernel only, do not boot it
#   -q  query: exit 0 if the kernel is cached, 1 if it would be built
#
# Second stage of the kmod suite: the same guest tests on a kernel with
# KASAN, lockdep (PROVE_LOCKING), kmemleak and DEBUG_ATOMIC_SLEEP, which
# Debian's kernel lacks. The kernel is built from Debian's linux-source
# (tinyconfig + test/kmod/debug.config) and cached, by a hash of the source
# package version, the compiler and the config fragment, under
# ${GPUDP_CACHE_DIR:-~/.cache/gpudp}/debug-kernel/HASH; later runs reuse it
# (about 10 s of module builds plus the boot). The cached tree is `make
# clean`ed after the build: it keeps what out-of-tree module builds need.
# Exit: 0 pass, 1 fail, 77 when linux-source or the build tools are missing.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${MESON_BUILD_ROOT:+$MESON_BUILD_ROOT/test/kmod}
build=${build:-$top/build-kmod}
build_only=0
query=0
append="GPUDP_RACE_LOOPS=500 GPUDP_FUZZ_SECONDS=10"
while getopts a:b:Bq o; do
	case $o in
	q) query=1 ;;
	a) append=$OPTARG ;;
	b) build=$OPTARG ;;
	B) build_only=1 ;;
	*) exit 1 ;;
	esac
done
skip() { echo "SKIP: $*"; exit 77; }

tarball=$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | sort -V | tail -n 1 || true)
[ -n "$tarball" ] || skip "no /usr/src/linux-source-*.tar.xz (install linux-source-6.1)"
for t in make gcc flex bison bc perl xz; do
	command -v $t >/dev/null || skip "$t missing"
done
pkg=$(basename "$tarball" .tar.xz)
ver=$(dpkg-query -W -f '${Version}' "$pkg" 2>/dev/null || stat -c '%s-%Y' "$tarball")
frag=$top/test/kmod/debug.config
hash=$( (echo "$pkg $ver"; gcc -dumpfullversion; cat "$frag") | sha256sum | cut -c1-16)
cache=${GPUDP_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/gpudp}
kdir=$cache/debug-kernel/$hash

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
	(
		cd "$kdir"
		make tinyconfig
		scripts/kconfig/merge_config.sh -m .config "$frag"
		make olddefconfig
	) >"$log" 2>&1 || { tail -n 30 "$log"; exit 1; }
	# Every option of the fragment must have survived olddefconfig.
	grep -E '^CONFIG_[A-Z0-9_]+=' "$frag" | while read -r line; do
		grep -qx "$line" "$kdir/.config" || { echo "debug-kernel: $line not set"; exit 1; }
	done
	nice make -C "$kdir" -j"${GPUDP_JOBS:-2}" bzImage modules >>"$log" 2>&1 ||
		{ tail -n 30 "$log"; exit 1; }
	cp "$kdir/arch/x86/boot/bzImage" "$kdir/.gpudp-bzImage"
	nice make -C "$kdir" clean >>"$log" 2>&1
	end=$(date +%s)
	echo "$((end - start))" >"$kdir/.gpudp-build-seconds"
	touch "$kdir/.gpudp-done"
	echo "debug-kernel: built in $((end - start)) s"
else
	echo "debug-kernel: cached $kdir (built in $(cat "$kdir/.gpudp-build-seconds") s)"
fi
[ "$build_only" = 0 ] || exit 0

mkdir -p "$build/debug"
rm -rf "$build/debug/modules"
KDIR=$kdir exec "$top/test/kmod/run.sh" -b "$build/debug" -n debug -k "$kdir/.gpudp-bzImage" \
	-M 1G -t 900 -a "$append"

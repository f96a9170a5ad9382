#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# usage: build.sh OUTDIR
#
# Builds gpudp's Debian packages as doc/packages.md says (dpkg-buildpackage
# -b -us -uc, then lintian), from a copy of this tree's files (those git
# tracks or would track: the tree itself is left clean) with the DPDK
# source from subprojects/packagecache. Leaves OUTDIR/*.deb, the .changes,
# OUTDIR/build.log and OUTDIR/lintian.log. Exit: 0 built and lintian clean,
# 1 failed, 77 (meson SKIP) when the tools are missing.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$1
for t in dpkg-buildpackage dh dh_dkms fakeroot lintian git; do
	command -v $t >/dev/null ||
		{ echo "SKIP: $t missing (config/packages/deb.txt)" >&2; exit 77; }
done
git -C "$top" rev-parse --git-dir >/dev/null 2>&1 ||
	{ echo "SKIP: $top is not a git clone (the tree's files are taken from git)" >&2; exit 77; }
"$top/subprojects/fetch-dpdk.sh" >/dev/null
version=$(sed -n '1s/^gpudp (\([^)]*\)).*/\1/p' "$top/debian/changelog")
rm -rf "$out"
src=$out/gpudp-$version
mkdir -p "$src"
# the tracked and the untracked-but-not-ignored files, as they are now
git -C "$top" ls-files -z --cached --others --exclude-standard |
	(cd "$top" && tar --null -T - -cf -) | tar -xf - -C "$src"
mkdir -p "$src/subprojects/packagecache"
tarball=$(sed -n 's/^source_filename = //p' "$top/subprojects/dpdk.wrap")
cp "$top/subprojects/packagecache/$tarball" "$src/subprojects/packagecache/"
start=$(date +%s)
if ! (cd "$src" && dpkg-buildpackage -b -us -uc -j"$(nproc)") >"$out/build.log" 2>&1; then
	tail -n 30 "$out/build.log" >&2
	echo "packages: dpkg-buildpackage failed (log: $out/build.log)" >&2
	exit 1
fi
echo "packages: built in $(($(date +%s) - start)) s: $(cd "$out" && echo ./*.deb)" >&2
rm -rf "$src"
# no error, and no warning but the overridden ones (doc/packages.md)
lintian --fail-on error,warning "$out"/gpudp_*.changes >"$out/lintian.log" 2>&1 ||
	{ cat "$out/lintian.log" >&2; echo "packages: lintian found errors or warnings" >&2; exit 1; }
echo "packages: lintian: no error, no warning" >&2

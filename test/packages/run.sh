#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# usage: run.sh OUTDIR
#
# The packages' test (meson suite 'packages', doc/packages.md): builds
# gpudp's Debian packages from this tree (build.sh), then checks them in a
# fresh Debian 12 root and a fresh Debian 13 root (check-root.sh). Exit 0
# when both passed, 1 when any check failed, 77 (SKIP) when none could run.
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=$1
rc=0
"$here/build.sh" "$out/debs" || exit $?
ran=0
for codename in bookworm trixie; do
	"$here/check-root.sh" "$codename" "$out/debs" "$out"
	r=$?
	case $r in
	0) ran=$((ran + 1)) ;;
	77) echo "packages: the Debian $codename check was skipped" >&2 ;;
	*) rc=1 ran=$((ran + 1)) ;;
	esac
done
[ "$ran" = 0 ] && exit 77
# the packages are big: the logs stay, the .deb files go
rm -f "$out"/debs/*.deb
exit "$rc"

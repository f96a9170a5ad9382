#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# usage: probe.sh
# Can gpudp_pin.ko be built here, for the kernel kernel-release.sh picks
# ($KVER, else the newest installed headers)? Prints the kernel release and
# exits 0 when it can; otherwise prints one line saying what is missing and
# exits 1. Checked: the headers (/lib/modules/REL/build), make, and the
# compiler the kernel was built with (its CONFIG_CC_VERSION_TEXT: Debian 13's
# kernels need gcc-14, which Debian 12 lacks), at its major version.
# meson (kmod/meson.build) runs it at configure time.
here=$(cd "$(dirname "$0")" && pwd)
if ! rel=$("$here/kernel-release.sh"); then
	if [ -n "${KVER:-}" ]; then
		echo "no kernel headers for KVER=$KVER (/lib/modules/$KVER/build): install linux-headers-$KVER"
	else
		echo "no kernel headers (/lib/modules/*/build): install linux-headers-amd64"
	fi
	exit 1
fi
kdir=/lib/modules/$rel/build
conf=$kdir/include/config/auto.conf
command -v "${MAKE:-make}" >/dev/null 2>&1 ||
	{ echo "make is not installed (install make) to build for kernel $rel"; exit 1; }
[ -r "$conf" ] ||
	{ echo "the headers of kernel $rel are not configured ($conf missing)"; exit 1; }
text=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' "$conf")
if grep -q '^CONFIG_CC_IS_CLANG=y' "$conf"; then
	cc=clang
	want=$(sed -n 's/^CONFIG_CLANG_VERSION=//p' "$conf")
else
	# "x86_64-linux-gnu-gcc-14 (Debian 14.2.0-19) 14.2.0": the program's name
	# comes first, as `CC --version` printed it when the kernel was built.
	cc=${text%% *}
	want=$(sed -n 's/^CONFIG_GCC_VERSION=//p' "$conf")
fi
if [ -z "$cc" ] || [ -z "$want" ]; then
	echo "cannot tell which compiler built kernel $rel (no CONFIG_CC_VERSION_TEXT in $conf)"
	exit 1
fi
pkg=$cc
case $cc in
*gcc-[0-9]*) pkg=gcc-${cc##*gcc-} ;;
esac
command -v "$cc" >/dev/null 2>&1 ||
	{ echo "kernel $rel was built with $text, and $cc is not installed (install $pkg, or pass -Dkmod=disabled)"; exit 1; }
# CONFIG_GCC_VERSION is major*10000 + minor*100 + patch: the majors must match.
have=$("$cc" -dumpversion 2>/dev/null)
if [ "${have%%.*}" != "$((want / 10000))" ]; then
	echo "kernel $rel was built with $text, but $cc is version $have"
	exit 1
fi
echo "$rel"

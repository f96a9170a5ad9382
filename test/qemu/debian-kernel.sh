#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# usage: debian-kernel.sh CACHEDIR
# Find the installed Debian kernel a QEMU test boots, and the headers to
# build modules for it: the newest release with both /lib/modules/REL/build
# and /boot/vmlinuz-REL ($KVER overrides; never `uname -r`, the host runs
# another kernel). Prints "REL KERNEL_IMAGE", where the image is the
# uncompressed vmlinux extracted into CACHEDIR (PVH boot, 3 s faster under
# TCG) or the bzImage when extraction fails. Exits 77 when none is found.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cache=$1
rel=${KVER:-}
if [ -z "$rel" ]; then
	rel=$(for d in /lib/modules/*/build/Makefile; do
		r=$(basename "$(dirname "$(dirname "$d")")")
		[ -f "$d" ] && [ -r "/boot/vmlinuz-$r" ] && echo "$r"
	done | sort -V | tail -n 1)
fi
[ -n "$rel" ] || { echo "SKIP: no kernel with headers and /boot/vmlinuz (install linux-headers-amd64 linux-image-amd64)" >&2; exit 77; }
[ -f "/lib/modules/$rel/build/Makefile" ] || { echo "SKIP: no headers for $rel" >&2; exit 77; }
[ -r "/boot/vmlinuz-$rel" ] || { echo "SKIP: /boot/vmlinuz-$rel missing" >&2; exit 77; }
mkdir -p "$cache"
img=$cache/vmlinux-$rel
"$here/extract-vmlinux.sh" "/boot/vmlinuz-$rel" "$img" || img=/boot/vmlinuz-$rel
echo "$rel $img"

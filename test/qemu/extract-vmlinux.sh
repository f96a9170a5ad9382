#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# usage: extract-vmlinux.sh VMLINUZ OUT
# Extract the uncompressed ELF kernel from an XZ-compressed bzImage (Debian's
# CONFIG_KERNEL_XZ). QEMU boots it through the PVH entry, skipping ~3.5 s of
# decompression under TCG. Reuses OUT when it is newer than VMLINUZ. Exits 1
# when no XZ stream is found: then boot VMLINUZ itself (slower, same result).
set -eu
in=$1 out=$2
if [ -s "$out" ] && [ "$out" -nt "$in" ]; then
	exit 0
fi
off=$(LC_ALL=C grep -abo "$(printf '\3757zXZ')" "$in" | head -n 1 | cut -d: -f1)
[ -n "$off" ] || { echo "extract-vmlinux: no XZ stream in $in" >&2; exit 1; }
tmp="$out.tmp.$$"
# xz complains about the trailing data after the stream: ignore its status.
tail -c +$((off + 1)) "$in" | xz -dc > "$tmp" 2>/dev/null || true
if [ "$(head -c 4 "$tmp" | od -An -c | tr -d ' ')" != '177ELF' ]; then
	rm -f "$tmp"
	echo "extract-vmlinux: $in did not decompress to an ELF" >&2
	exit 1
fi
mv "$tmp" "$out"

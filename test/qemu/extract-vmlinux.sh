#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# usage: extract-vmlinux.sh VMLINUZ OUT
# Extract the uncompressed ELF kernel from a bzImage compressed with XZ
# (Debian 12's CONFIG_KERNEL_XZ) or zstd (Debian 13's CONFIG_KERNEL_ZSTD,
# needs the zstd program). QEMU boots it through the PVH entry, skipping
# seconds of decompression under TCG. Reuses OUT when it is newer than
# VMLINUZ. Exits 1 when no stream decompresses to an ELF: then boot VMLINUZ
# itself (slower, same result).
set -eu
in=$1 out=$2
if [ -s "$out" ] && [ "$out" -nt "$in" ]; then
	exit 0
fi
tmp="$out.tmp.$$"
trap 'rm -f "$tmp"' EXIT
# try MAGIC DECOMPRESSOR...: decompress from the first MAGIC on; the
# decompressors complain about the trailing data after the stream, so
# their status is ignored and the result is checked instead.
try() {
	magic=$1
	shift
	command -v "$1" >/dev/null || return 1
	# shellcheck disable=SC2059 # the magic is written as printf escapes
	off=$(LC_ALL=C grep -abo "$(printf "$magic")" "$in" 2>/dev/null | head -n 1 | cut -d: -f1)
	[ -n "$off" ] || return 1
	tail -c +$((off + 1)) "$in" | "$@" >"$tmp" 2>/dev/null || true
	[ "$(head -c 4 "$tmp" | od -An -c | tr -d ' ')" = '177ELF' ]
}
if try '\3757zXZ' xz -dc || try '\050\265\057\375' zstd -dcq; then
	mv "$tmp" "$out"
	exit 0
fi
echo "extract-vmlinux: no XZ or zstd stream of an ELF kernel in $in" >&2
exit 1

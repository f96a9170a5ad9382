#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# usage: mkinitramfs.sh OUT.cpio INIT [DEST=SRC ...]
#
# Build an uncompressed newc initramfs for a QEMU test guest:
#   /init                    INIT (a busybox sh script)
#   /bin/busybox + applets   from busybox-static ($BUSYBOX overrides)
#   /bin/qexit               isa-debug-exit helper (built from qexit.c)
#   /lib/gpudp/guest-lib.sh  guest helpers (guest_setup, guest_finish, ...)
#   DEST                     each SRC file (static binaries, .ko files, ...)
# No root needed: the kernel's built-in initramfs already has /dev/console.
# Environment: CC (default gcc), BUSYBOX (default: busybox on PATH). For a
# guest of another architecture (arm64), CC is its cross compiler and
# BUSYBOX its static busybox; the applet list then comes from this
# machine's busybox.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=$1 init=$2
shift 2
cc=${CC:-gcc}
busybox=${BUSYBOX:-$(command -v busybox || true)}
[ -n "$busybox" ] || { echo "mkinitramfs: busybox not found" >&2; exit 1; }
# A dynamically linked busybox cannot run in the guest.
if ! file -L "$busybox" 2>/dev/null | grep -q 'statically linked' &&
   ldd "$busybox" >/dev/null 2>&1; then
	echo "mkinitramfs: $busybox is not static (install busybox-static)" >&2
	exit 1
fi

root="$out.d"
rm -rf "$root"
mkdir -p "$root/bin" "$root/sbin" "$root/proc" "$root/sys" "$root/dev" \
	"$root/tmp" "$root/lib/gpudp" "$root/lib/modules"
cp "$busybox" "$root/bin/busybox"
applets=$("$busybox" --list 2>/dev/null || busybox --list)
for a in $applets; do
	[ "$a" = busybox ] || ln -sf busybox "$root/bin/$a"
done
"$cc" -static -O2 -Wall -Wextra -Werror -o "$root/bin/qexit" "$here/qexit.c"
cp "$here/guest-lib.sh" "$root/lib/gpudp/guest-lib.sh"
cp "$init" "$root/init"
chmod 755 "$root/init"
for spec in "$@"; do
	dest=${spec%%=*} src=${spec#*=}
	mkdir -p "$root/$(dirname "$dest")"
	cp "$src" "$root/$dest"
done
(cd "$root" && find . -print0 | LC_ALL=C sort -z | cpio --null -o -H newc --quiet) > "$out"
rm -rf "$root"

#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Print the kernel release gpudp_pin is built for: $KVER if set, else the
# newest release with an installed build tree (/lib/modules/REL/build).
# Never `uname -r`: the build host often runs another kernel (CI VMs do).
# Prints nothing and exits 1 when no kernel headers are installed.
if [ -n "${KVER:-}" ]; then
	[ -f "/lib/modules/$KVER/build/Makefile" ] || exit 1
	echo "$KVER"
	exit 0
fi
rel=$(for d in /lib/modules/*/build/Makefile; do
	[ -f "$d" ] && basename "$(dirname "$(dirname "$d")")"
done | sort -V | tail -n 1)
[ -n "$rel" ] || exit 1
echo "$rel"

#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# usage: checkpatch.sh SOURCE_ROOT
# Run the kernel's checkpatch.pl --no-tree over the module, its uapi header
# and the test provider. checkpatch.pl comes from $CHECKPATCH, PATH, an
# unpacked /usr/src/linux-source-*, or is extracted once from Debian's
# linux-source-*.tar.xz into ~/.cache/gpudp/checkpatch. Exit 77 without it.
set -eu
top=$1
cache=${XDG_CACHE_HOME:-$HOME/.cache}/gpudp/checkpatch
cp=${CHECKPATCH:-}
if [ -z "$cp" ]; then
	cp=$(command -v checkpatch.pl 2>/dev/null ||
	     ls /usr/src/linux-source-*/scripts/checkpatch.pl "$cache"/*/scripts/checkpatch.pl 2>/dev/null |
	     head -n 1 || true)
fi
if [ -z "$cp" ]; then
	tarball=$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | sort -V | tail -n 1 || true)
	[ -n "$tarball" ] || { echo "SKIP: no checkpatch.pl (install linux-source)"; exit 77; }
	mkdir -p "$cache"
	tar -C "$cache" -xf "$tarball" --wildcards '*/scripts/checkpatch.pl' \
		'*/scripts/spelling.txt' '*/scripts/const_structs.checkpatch'
	cp=$(ls "$cache"/*/scripts/checkpatch.pl | head -n 1)
fi
command -v perl >/dev/null || { echo "SKIP: perl missing"; exit 77; }
cd "$top"
"$cp" --no-tree --quiet --show-types -f \
	kmod/gpudp_pin.c kmod/gpudp_nv_p2p.h kmod/gpudp_nv_p2p_tegra.h kmod/gpudp_pin_args.h kmod/include/uapi/gpudp_pin.h \
	test/kmod/sim/nvidia_p2p_sim.c test/kmod/sim/nvidia_p2p_sim_uapi.h \
	test/kmod/sim/tegra-header/nv-p2p.h
echo "checkpatch: clean"

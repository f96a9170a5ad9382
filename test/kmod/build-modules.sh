#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# usage: build-modules.sh OUTDIR
# Build nvidia_p2p_sim.ko (test provider) and gpudp_pin.ko against it, in
# copies of the sources under OUTDIR (Kbuild writes next to its sources, and
# the source tree must stay clean). Leaves OUTDIR/{gpudp_pin,nvidia_p2p_sim}.ko.
# Kernel: KDIR=<build tree> or KVER=<release>, else the newest installed
# headers (kmod/kernel-release.sh). Exits 77 when there are none.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$1
mkdir -p "$out"
out=$(cd "$out" && pwd)
if [ -z "${KDIR:-}" ]; then
	kver=$("$top/kmod/kernel-release.sh") || { echo "SKIP: no kernel headers"; exit 77; }
	KDIR=/lib/modules/$kver/build
fi
make=${MAKE:-make}
rm -rf "$out/src"
mkdir -p "$out/src/sim" "$out/src/pin"
cp "$top"/test/kmod/sim/*.c "$top"/test/kmod/sim/*.h "$top"/test/kmod/sim/Kbuild "$out/src/sim/"
cp -R "$top"/kmod/*.c "$top"/kmod/*.h "$top"/kmod/Kbuild "$top"/kmod/include "$out/src/pin/"
log="$out/build.log"
if ! "$make" -C "$KDIR" M="$out/src/sim" GPUDP_KMOD_DIR="$out/src/pin" \
	${NVIDIA_SRC:+NVIDIA_SRC="$NVIDIA_SRC"} modules >"$log" 2>&1 ||
   ! "$make" -C "$KDIR" M="$out/src/pin" KBUILD_EXTRA_SYMBOLS="$out/src/sim/Module.symvers" \
	${NVIDIA_SRC:+NVIDIA_SRC="$NVIDIA_SRC"} modules >>"$log" 2>&1; then
	cat "$log"
	exit 1
fi
# Kbuild warnings are errors for us.
if grep -E 'warning:|WARNING:' "$log"; then
	echo "build-modules: compiler or modpost warnings (see $log)"
	exit 1
fi
cp "$out/src/sim/nvidia_p2p_sim.ko" "$out/src/pin/gpudp_pin.ko" "$out/"

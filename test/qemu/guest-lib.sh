# SPDX-License-Identifier: BSD-3-Clause
# Guest side of the QEMU harness, sourced by a guest /init (busybox sh).
# Installed at /lib/gpudp/guest-lib.sh by mkinitramfs.sh.
#
#   guest_setup              mount proc, sysfs, devtmpfs, debugfs
#   guest_check_kernel       non-fatal splats in dmesg, taint, kmemleak
#   guest_finish RC          print the result marker, leave QEMU with RC
#
# The host (boot.sh) passes only when QEMU's exit status says RC=0 AND the
# serial log carries "GPUDP-QEMU: RESULT PASS".

guest_setup() {
	mount -t proc proc /proc
	mount -t sysfs sysfs /sys
	mount -t devtmpfs devtmpfs /dev
	mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
	mkdir -p /tmp
	mount -t tmpfs tmpfs /tmp
}

# Taint bits allowed: O (4096, out-of-tree module), E (8192, unsigned).
GUEST_TAINT_ALLOWED=$((4096 | 8192))

# Returns 1 (and says why) on a splat, an unexpected taint or a leak.
# Uses only local variables: callers keep their own $rc.
guest_check_kernel() {
	local krc=0 t
	if [ -w /sys/kernel/debug/kmemleak ] && ! grep -q 'kmemleak=off' /proc/cmdline; then
		# kmemleak ignores objects younger than 5 s; scan twice.
		sleep 5
		echo scan > /sys/kernel/debug/kmemleak
		echo scan > /sys/kernel/debug/kmemleak
		if grep -q unreferenced /sys/kernel/debug/kmemleak; then
			cat /sys/kernel/debug/kmemleak
			echo "GPUDP-QEMU: kmemleak found leaks"
			krc=1
		else
			echo "GPUDP-QEMU: kmemleak: no leaks"
		fi
	fi
	if dmesg | grep -E 'WARNING:|BUG:|Oops|Call Trace|KASAN|UBSAN|possible circular|INFO: task'; then
		echo "GPUDP-QEMU: kernel splat in dmesg"
		krc=1
	fi
	t=$(cat /proc/sys/kernel/tainted)
	if [ $((t & ~GUEST_TAINT_ALLOWED)) -ne 0 ]; then
		echo "GPUDP-QEMU: unexpected taint $t"
		krc=1
	fi
	return $krc
}

guest_finish() {
	if [ "$1" -eq 0 ]; then
		echo "GPUDP-QEMU: RESULT PASS"
	else
		echo "GPUDP-QEMU: RESULT FAIL ($1)"
	fi
	/bin/qexit "$1"
	poweroff -f
}

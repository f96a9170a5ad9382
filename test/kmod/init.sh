#!/bin/busybox sh
# SPDX-License-Identifier: BSD-3-Clause
# Guest /init of the kmod suite. Kernel command-line variables:
#   GPUDP_KMOD_MODE=all|fuzz   which pin_test cases to run (default all)
#   GPUDP_RACE_LOOPS, GPUDP_FUZZ_SECONDS, GPUDP_FUZZ_SEED: see pin_test.c
. /lib/gpudp/guest-lib.sh
guest_setup
export GPUDP_RACE_LOOPS GPUDP_FUZZ_SECONDS GPUDP_FUZZ_SEED
rc=0

if ! insmod /lib/modules/nvidia_p2p_sim.ko || ! insmod /lib/modules/gpudp_pin.ko; then
	echo "kmod: insmod failed"
	guest_check_kernel
	guest_finish 1
fi

case ${GPUDP_KMOD_MODE:-all} in
fuzz) /bin/pin_test fuzz_random_ioctl_sequences || rc=1 ;;
*) /bin/pin_test || rc=1 ;;
esac

# Leak check: nothing holds the modules, the provider has nothing
# outstanding once gpudp_pin is gone, and both unload.
for m in gpudp_pin nvidia_p2p_sim; do
	n=$(cat /sys/module/$m/refcnt)
	if [ "$m" = gpudp_pin ] && [ "$n" != 0 ]; then
		echo "kmod: $m refcnt $n after all files closed"
		rc=1
	fi
done
rmmod gpudp_pin || { echo "kmod: rmmod gpudp_pin failed"; rc=1; }
/bin/pin_test --leak-check || rc=1
n=$(cat /sys/module/nvidia_p2p_sim/refcnt)
[ "$n" = 0 ] || { echo "kmod: nvidia_p2p_sim refcnt $n"; rc=1; }
rmmod nvidia_p2p_sim || { echo "kmod: rmmod nvidia_p2p_sim failed"; rc=1; }
if dmesg | grep -E 'nvidia_p2p_sim: (leak|client violation|[0-9]+ client violations)|gpudp_pin: put_pages'; then
	echo "kmod: provider reported leaks or violations, or put_pages failed"
	rc=1
fi

guest_check_kernel || rc=1
guest_finish $rc

#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# usage: boot.sh [options] KERNEL INITRD [-- extra qemu arguments]
#   -a WORDS   extra kernel command line (words without '.' or '=' that the
#              kernel does not know reach /init as arguments, KEY=VALUE as
#              environment variables)
#   -l LOG     serial log file (default ./qemu-serial.log)
#   -m MEM     guest memory (default 512M)
#   -t SECS    wall-clock limit (default 120)
#
# Boots KERNEL (an ELF vmlinux through PVH, or a bzImage) with INITRD under
# QEMU TCG with one isa-debug-exit device, and passes only when all hold:
#   - QEMU exited 1, i.e. the guest wrote 0 to the isa-debug-exit port
#     (qexit.c);
#   - the serial log has the guest's "GPUDP-QEMU: RESULT PASS" line;
#   - the serial log has no kernel splat (panic, oops, BUG, WARNING, KASAN).
# With QEMU=qemu-system-aarch64, an arm64 kernel Image (gzip or not) on the
# "virt" machine (Cortex-A57, PL011 console), where qexit leaves through Arm
# semihosting instead, with the same exit status.
# Exit status: 0 pass, 1 fail, 77 (meson SKIP) when qemu is missing.
# KVM: opt-in with GPUDP_QEMU_KVM=1, and refused on PVM hosts (kvm_pvm),
# which cannot run a stock kernel.
set -u
append="" log=qemu-serial.log mem=512M tmo=120
while getopts a:l:m:t: o; do
	case $o in
	a) append=$OPTARG ;;
	l) log=$OPTARG ;;
	m) mem=$OPTARG ;;
	t) tmo=$OPTARG ;;
	*) exit 1 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 2 ] || { echo "usage: boot.sh [opts] KERNEL INITRD [-- qemu args]" >&2; exit 1; }
kernel=$1 initrd=$2
shift 2
[ "${1:-}" = "--" ] && shift
qemu=${QEMU:-qemu-system-x86_64}
command -v "$qemu" >/dev/null 2>&1 || { echo "SKIP: $qemu not installed"; exit 77; }

accel="-accel tcg"
if [ "${GPUDP_QEMU_KVM:-0}" = 1 ] && [ -w /dev/kvm ] && [ ! -d /sys/module/kvm_pvm ]; then
	accel="-accel kvm -cpu host"
fi
case $qemu in
*aarch64*)
	machine="-M virt -cpu cortex-a57 -semihosting-config enable=on,userspace=on"
	console=ttyAMA0 ;;
*)
	machine="-device isa-debug-exit,iobase=0xf4,iosize=0x04"
	console=ttyS0 ;;
esac
start=$(date +%s.%N)
# shellcheck disable=SC2086 # $accel and $machine are word lists
timeout -k 5 "$tmo" "$qemu" $accel $machine -m "$mem" -smp 1 \
	-nographic -nodefaults -no-reboot -serial stdio \
	-kernel "$kernel" -initrd "$initrd" \
	-append "console=$console panic=-1 oops=panic panic_on_warn=1 softlockup_panic=1 $append" \
	"$@" </dev/null >"$log" 2>&1
rc=$?
secs=$(echo "$(date +%s.%N) $start" | awk '{printf "%.1f", $1 - $2}')
case $rc in
1) st=pass ;;
124 | 137) st="timeout after ${tmo}s" ;;
0) st="no exit code (panic, reboot or poweroff before qexit)" ;;
*) st="guest exit code $(((rc - 1) / 2))" ;;
esac
splat=$(grep -aE 'Kernel panic|Oops|BUG:|WARNING:|KASAN|UBSAN|Call Trace' "$log" | head -n 5)
if [ "$st" = pass ] && grep -aq '^GPUDP-QEMU: RESULT PASS' "$log" && [ -z "$splat" ]; then
	echo "qemu: PASS in ${secs}s (serial log: $log)"
	exit 0
fi
grep -aE 'FAIL|not ok|GPUDP-QEMU|passed, |BUG:|WARNING:|Kernel panic|Oops|Call Trace|violation|leak' "$log" | tail -n 60
[ -n "$splat" ] && st="$st; kernel splat"
echo "qemu: FAIL ($st, qemu rc $rc, ${secs}s; serial log: $log)"
exit 1

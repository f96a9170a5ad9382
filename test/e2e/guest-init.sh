#!/bin/busybox sh
# SPDX-License-Identifier: BSD-3-Clause
# /init of the e2e guest (test/e2e/e2e_run.py builds the initramfs around it).
#
# Environment, from the kernel command line (e2e_run.py sets them):
#   E2E_MODE     hugepage | kmod | kmod-free | kmod-kill | dmabuf | dmabuf-free
#                | gpudp-fwd | capture
#   E2E_FRAMES   test frames the host sends (kmod-kill: frames before the kill)
#   E2E_TIMEOUT  seconds the forwarder may run
#   E2E_GPU      bytes of simulated GPU memory (kmod modes)
#   E2E_BAD      test frames the host corrupts on purpose (default 0)
#   E2E_UVA      1: map the GPU memory for the CPU at its GPU VA (kmod modes)
#   E2E_REPIN    kmod: bursts that re-register GPU memory (fault injection:
#                the forwarder must then count exactly that many pins)
# Lines starting "E2E-INIT:" report what this script checked; the run passes
# only with "GPUDP-QEMU: RESULT PASS" (guest_finish) and QEMU status 1.
# shellcheck source=../qemu/guest-lib.sh
. /lib/gpudp/guest-lib.sh
guest_setup
export PATH=/bin:/sbin
export LD_LIBRARY_PATH=/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu

# $EAL and $UVA are word lists: expanded unquoted on purpose.
# shellcheck disable=SC2086
NIC=0000:00:05.0
EAL="-l 0 -n 1 --iova-mode=pa -a $NIC --in-memory --no-telemetry"
FRAMES=${E2E_FRAMES:-1000}
TMO=${E2E_TIMEOUT:-60}
GPU=${E2E_GPU:-4194304}
UVA=""
[ "${E2E_UVA:-0}" = 1 ] && UVA=--uva
REPIN=${E2E_REPIN:-0}
rc=0

say() { echo "E2E-INIT: $*"; }
fail() { echo "E2E-INIT: FAIL: $*"; rc=1; }

# wait_file PATH SECONDS [PID]: poll for PATH; give up early if PID exits.
wait_file() {
	n=$(($2 * 10))
	while [ ! -e "$1" ] && [ $n -gt 0 ]; do
		if [ -n "${3:-}" ] && ! kill -0 "$3" 2>/dev/null; then
			return 1
		fi
		sleep 0.1
		n=$((n - 1))
	done
	[ -e "$1" ]
}

# PCI command register bit 2: may the NIC master the bus (DMA)?
bus_master() {
	cmd=$(dd if=/sys/bus/pci/devices/$NIC/config bs=1 skip=4 count=1 2>/dev/null |
		od -An -tu1 | tr -d ' ')
	echo $(((cmd >> 2) & 1))
}

sim() { /bin/e2e-simctl "$@" || fail "e2e-simctl $*"; }

# From the forwarder's --info-file: lib/mem's chunks (one simulated
# cudaMalloc and two pins each: lib/mem's and the CPU mapping's).
chunks() { sed 's/^chunks=\([0-9]*\).*/\1/' /tmp/info; }
first_va() { sed 's/^chunks=[0-9]* gpu_va=\(0x[0-9a-f]*\).*/\1/' /tmp/info; }

load_kmods() {
	insmod /lib/modules/nvidia_p2p_sim.ko || { fail "insmod nvidia_p2p_sim"; return 1; }
	insmod /lib/modules/gpudp_pin.ko || { fail "insmod gpudp_pin"; return 1; }
	say "modules loaded: $(lsmod | cut -d' ' -f1 | tr '\n' ' ')"
}

unload_kmods() {
	rmmod gpudp_pin || fail "rmmod gpudp_pin"
	rmmod nvidia_p2p_sim || fail "rmmod nvidia_p2p_sim"
	if dmesg | grep -E 'nvidia_p2p_sim: (leak|client violation)|[0-9]+ client violations'; then
		fail "the simulator reported leaks or violations"
	fi
}

setup() {
	if ! insmod /lib/modules/uio.ko || ! insmod /lib/modules/uio_pci_generic.ko; then
		fail "insmod uio"
		return 1
	fi
	mkdir -p /dev/hugepages /var/run
	mount -t hugetlbfs -o pagesize=2M nodev /dev/hugepages || { fail "hugetlbfs"; return 1; }
	say "NIC $NIC: $(cat /sys/bus/pci/devices/$NIC/vendor):$(cat /sys/bus/pci/devices/$NIC/device)," \
		"$(cat /sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages) hugepages of 2 MiB"
	echo uio_pci_generic > /sys/bus/pci/devices/$NIC/driver_override
	echo $NIC > /sys/bus/pci/drivers/uio_pci_generic/bind || { fail "bind $NIC"; return 1; }
	say "setup done at uptime $(cut -d' ' -f1 /proc/uptime) s"
}

run_fwd() {
	/bin/e2e-fwd $EAL -- --frames "$FRAMES" --timeout "$TMO" \
		--expect-bad "${E2E_BAD:-0}" "$@"
	st=$?
	[ $st -eq 0 ] || fail "e2e-fwd exited $st"
}

mode_kmod() {
	load_kmods || return
	rm -f /tmp/info
	run_fwd --pool kmod $UVA --info-file /tmp/info \
		--repin-bursts "$REPIN" --expect-repins "$REPIN"
	# lib/mem unpins lazily (its registration cache keeps the pin), so the
	# simulated cudaFree at teardown runs the free callback once per chunk
	# (and once per memory the fault injection registered and freed).
	sim expect tables_live=0 dmas_live=0 allocs_live=0 \
		callbacks=$(($(chunks) + REPIN)) violations=0
	unload_kmods
}

# The simulated GPU memory is freed (cudaFree) by another process while the
# port runs. The host stops sending once all frames came back (its DONE
# frame arrived before --ready-file exists), so the NIC has nothing to write
# into the freed pages before the forwarder stops it.
# free_while_running POOL 'EXPECT-WHILE-RUNNING' 'EXPECT-AFTER': start the
# forwarder on a POOL-backed pool, free the first chunk of simulated GPU
# memory under the running port, and check the simulator's counters at both
# points (each a list of name=value for `sim expect`, expanded only then:
# $(chunks) needs the forwarder's info file).
free_while_running() {
	load_kmods || return
	rm -f /tmp/info /tmp/mark
	/bin/e2e-fwd $EAL -- --frames "$FRAMES" --timeout "$TMO" --pool "$1" $UVA \
		--expect-revoke --info-file /tmp/info --ready-file /tmp/mark &
	app=$!
	if wait_file /tmp/mark "$TMO" $app; then
		va=$(first_va)
		eval "sim expect $2"
		say "freeing the simulated GPU memory at $va under the running port ($1)"
		sim free "$va"
	else
		fail "the forwarder did not forward $FRAMES frames"
		kill -9 $app 2>/dev/null
	fi
	wait $app
	st=$?
	[ $st -eq 0 ] || fail "e2e-fwd exited $st after the revoke"
	eval "sim expect $3"
	unload_kmods
}

mode_kmod_free() {
	# two callbacks for the freed chunk, one per other chunk at teardown
	free_while_running kmod \
		'tables_live=$((2 * $(chunks))) allocs_live=$(chunks) callbacks=0' \
		'tables_live=0 dmas_live=0 allocs_live=0 callbacks=$(($(chunks) + 1)) violations=0'
}

# The forwarder is killed (SIGKILL) while frames flow. The memory is held by
# another process, so the kill only drops the pin: the provider's page
# tables and the module's references must go back to zero, and the NIC
# must lose bus mastering (uio_pci_generic's release) before anything else.
mode_kmod_kill() {
	load_kmods || return
	rm -f /tmp/gpu_va /tmp/mark /tmp/info
	/bin/e2e-simctl hold "$GPU" /tmp/gpu_va &
	holder=$!
	wait_file /tmp/gpu_va 10 $holder || { fail "e2e-simctl hold"; return; }
	va=$(cat /tmp/gpu_va)
	/bin/e2e-fwd $EAL -- --frames 16777216 --timeout "$TMO" --pool kmod $UVA \
		--gpu-va "$va" --gpu-bytes "$GPU" --info-file /tmp/info \
		--mark-after "$FRAMES" --mark-file /tmp/mark &
	app=$!
	if ! wait_file /tmp/mark "$TMO" $app; then
		fail "the forwarder did not forward $FRAMES frames"
	fi
	bm=$(bus_master)
	refs=$(cat /sys/module/gpudp_pin/refcnt)
	sim expect tables_live=$((2 * $(chunks))) allocs_live=1
	kill -9 $app
	wait $app
	say "forwarder killed by SIGKILL (status $?) after >= $FRAMES frames;" \
		"bus master before $bm, after $(bus_master); gpudp_pin refcnt before $refs," \
		"after $(cat /sys/module/gpudp_pin/refcnt)"
	[ "$bm" = 1 ] || fail "the NIC was not bus master while forwarding"
	[ "$(bus_master)" = 0 ] || fail "the NIC can still DMA after its owner died"
	[ "$refs" -ge 1 ] || fail "the forwarder held no gpudp_pin reference"
	[ "$(cat /sys/module/gpudp_pin/refcnt)" = 0 ] || fail "gpudp_pin still referenced"
	sim expect tables_live=0 dmas_live=0 allocs_live=1 callbacks=0 violations=0
	kill $holder
	wait $holder
	sim expect tables_live=0 dmas_live=0 allocs_live=0 callbacks=0 violations=0
	unload_kmods
}

# As mode_kmod, with lib/mem's dmabuf backend: each chunk is exported by the
# simulator as a dma-buf (fake cuMemGetHandleForAddressRange) and gpudp_pin
# attaches it for the e1000. The simulated cudaFree at teardown revokes the
# attachments lib/mem's cache keeps (move_notify, one per chunk and per
# re-registration); the only NV-P2P tables are the CPU mapping's, unpinned
# before the free (no callback).
mode_dmabuf() {
	load_kmods || return
	rm -f /tmp/info
	run_fwd --pool dmabuf $UVA --info-file /tmp/info \
		--repin-bursts "$REPIN" --expect-repins "$REPIN"
	sim expect tables_live=0 dmas_live=0 allocs_live=0 exports_live=0 \
		dmabuf_maps_live=0 move_notifies=$(($(chunks) + REPIN)) callbacks=0 \
		violations=0
	unload_kmods
}

# As mode_kmod_free, with the dmabuf backend: freeing the memory under the
# running port revokes lib/mem's attachment (move_notify) and the CPU
# mapping's pin (free callback); lib/mem's gpudp_pool_check() must see it.
mode_dmabuf_free() {
	# the freed chunk: its CPU pin's callback and one move_notify; the
	# other chunks' attachments are revoked by their free at teardown
	free_while_running dmabuf \
		'tables_live=$(chunks) dmabuf_maps_live=$(chunks) allocs_live=$(chunks) callbacks=0 move_notifies=0' \
		'tables_live=0 dmas_live=0 allocs_live=0 exports_live=0 dmabuf_maps_live=0 callbacks=1 move_notifies=$(chunks) violations=0'
}

# The project's forwarding app, gpudp-fwd, in cpu mode on host memory
# (doc/fwd.md): one pipeline on one worker lcore, which shares the guest's
# only CPU with the main lcore (--lcores 0@0,1@0); back out of the same port
# with the macswap kernel. It stops after E2E_FRAMES packets (--count; the
# host sends exactly that many), drains, and writes its final counters as
# JSON, printed on one line for the host to compare with its own counts.
mode_gpudp_fwd() {
	rm -f /tmp/fwd.json
	/bin/gpudp-fwd --lcores 0@0,1@0 -n 1 --iova-mode=pa -a $NIC --in-memory \
		--no-telemetry -- --pairing same --mode cpu --mem host --kernel macswap \
		--pipeline-lcores 1 --rxd 256 --txd 256 --mbufs 4096 --count "$FRAMES" \
		--duration "$TMO" --min-forwarded "$FRAMES" --stats 0 --json /tmp/fwd.json
	st=$?
	[ $st -eq 0 ] || fail "gpudp-fwd exited $st"
	if [ -s /tmp/fwd.json ]; then
		echo "E2E-GUEST: gpudp-fwd json $(tr -d '\n' < /tmp/fwd.json)"
	else
		fail "gpudp-fwd wrote no --json"
	fi
}

# gpudp-capture (a test build linked with the TEST-ONLY gpudev driver
# gpu_e2e_sim) receives into a device pool of simulated GPU memory (lib/mem,
# kmod pin backend) through the e1000's DMA, and analyses the packets in
# place on the CPU through rte_gpu_mem_cpu_map. It stops after E2E_FRAMES
# packets (the host replays a capture file); its JSON report is printed on
# one line for the host to compare with the app's report on that file.
mode_capture() {
	load_kmods || return
	rm -f /tmp/cap.json
	/bin/gpudp-capture-e2e -l 0 -n 1 --iova-mode=pa -a $NIC --in-memory --no-telemetry \
		--vdev gpu_e2e_sim0 -- --mem device --engine cpu --mbufs 1024 --rxd 256 \
		--max-packets "$FRAMES" --duration "$TMO" --period 0 --quiet --json /tmp/cap.json \
		--filter "tcp or icmp6 or vlan 300" --filter-out /tmp/cap.pcapng
	st=$?
	[ $st -eq 0 ] || fail "gpudp-capture-e2e exited $st"
	if [ -s /tmp/cap.json ]; then
		echo "E2E-GUEST: capture json $(tr -d '\n' < /tmp/cap.json)"
		echo "E2E-GUEST: capture pcapng $(wc -c < /tmp/cap.pcapng) bytes"
	else
		fail "gpudp-capture-e2e wrote no --json"
	fi
	# every pin and allocation gone with the app (lib/mem unpins lazily:
	# the simulated cudaFree ran the free callback of its cached pin)
	sim expect tables_live=0 dmas_live=0 allocs_live=0 violations=0
	unload_kmods
}

say "mode ${E2E_MODE:-?}, $FRAMES frames, /init at uptime $(cut -d' ' -f1 /proc/uptime) s"
if setup; then
	case "${E2E_MODE:-}" in
	hugepage) run_fwd --pool hugepage ;;
	kmod) mode_kmod ;;
	kmod-free) mode_kmod_free ;;
	kmod-kill) mode_kmod_kill ;;
	dmabuf) mode_dmabuf ;;
	dmabuf-free) mode_dmabuf_free ;;
	gpudp-fwd) mode_gpudp_fwd ;;
	capture) mode_capture ;;
	*) fail "unknown E2E_MODE '${E2E_MODE:-}'" ;;
	esac
fi
guest_check_kernel || rc=1
say "done at uptime $(cut -d' ' -f1 /proc/uptime) s, status $rc"
guest_finish $rc

// SPDX-License-Identifier: BSD-3-Clause
// Test-only kernels of test/lib/handoff/test_gpu_fwd.c: the ordering test's delay,
// and the latency benchmark's rte_gpu_comm peer. Not in any shipped binary.
#include <stdint.h>

#include "gpudp_fwd_pkt.h"
#include "gpudp_work_dev.h"
#include "fwd_test.h"

using gpudp_work_dev::globaltimer;

// Spin for ns nanoseconds: holds back the "independent writer" copy queued
// behind it on the same stream, so a kernel handed off too early runs first.
extern "C" __global__ void
gpudp_fwd_test_delay(uint64_t ns)
{
	uint64_t t0, t;

	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
	do {
		asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	} while (t - t0 < ns);
}

// Benchmarks only: DPDK's rte_gpu_comm_list protocol served by one resident
// block (status word READY = 1 -> DONE = 2), doing the same macswap.
extern "C" __global__ void
gpudp_fwd_comm_persistent(struct gpudp_fwd_comm_args a)
{
	__shared__ uint32_t go;
	const volatile uint32_t *quit = (const volatile uint32_t *)a.quit;
	uint32_t i, j;

	for (i = 0; ; i = (i + 1) % a.n_items) {
		const char *item = (const char *)a.list + (size_t)i * a.item_size;
		volatile uint32_t *st = *(uint32_t *const *)(item + a.off_status_d);
		const char *pkts;
		uint32_t n;

		if (threadIdx.x == 0) {
			go = 1;
			while (*st != 1u) {
				if (*quit) {
					go = 0;
					break;
				}
			}
			__threadfence_system();
			if (go)
				((uint64_t *)a.tstamp)[i] = globaltimer();
		}
		__syncthreads();
		if (!go)
			return;
		n = *(const volatile uint32_t *)(item + a.off_num);
		pkts = *(const char *const volatile *)(item + a.off_pkts);
		for (j = threadIdx.x; j < n; j += blockDim.x) {
			const volatile uint64_t *pk =
				(const volatile uint64_t *)(pkts + (size_t)j * a.pkt_size);

			if (pk[1] >= 14)
				gpudp_fwd_macswap((uint8_t *)pk[0]);
		}
		__threadfence_system();
		__syncthreads();
		if (threadIdx.x == 0) {
			*st = 2u;
			__threadfence_system();
		}
		__syncthreads();
	}
}

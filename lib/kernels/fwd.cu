// SPDX-License-Identifier: BSD-3-Clause
// gpudp-fwd's kernels (lib/handoff): the per-packet work of the CPU path
// (gpudp_fwd_pkt.h) run on the GPU, for one burst per launch (launch,
// graph and staged modes) or by a resident kernel polling per-slot ready
// flags (persistent mode). Completion (DESIGN.md "Data flow", step 5):
// results are written, made visible system-wide with __threadfence_system,
// and only then the slot's done word is stored, so a CPU that reads done
// == seq also reads every verdict and every packet byte the kernel wrote.
#include <stdint.h>

#include "gpudp_fwd_pkt.h"
#include "gpudp_handoff_dev.h"

__device__ __forceinline__ uint64_t
gpudp_fwd_globaltimer(void)
{
	uint64_t t;

	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}

// Acquire load, system scope: the loads that follow (the burst's
// descriptors and payload) are not satisfied before this one (seed,
// "Synchronization and Memory Ordering": the flag is the CPU's signal that
// the burst is complete with respect to it and flushed).
__device__ __forceinline__ uint32_t
gpudp_fwd_ld_acquire(const uint32_t *p)
{
	uint32_t v;

	asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
	return v;
}

__device__ __forceinline__ void
gpudp_fwd_st_release(uint32_t *p, uint32_t v)
{
	asm volatile("st.release.sys.global.u32 [%0], %1;" :: "l"(p), "r"(v) : "memory");
}

__device__ __forceinline__ void
gpudp_fwd_one(const struct gpudp_ho_kargs &a, uint32_t slot, uint32_t i,
	      uint32_t kernel, uint32_t arg)
{
	size_t k = (size_t)slot * a.burst_max + i;
	const volatile uint64_t *addr = (const volatile uint64_t *)a.addr;
	const volatile uint32_t *len = (const volatile uint32_t *)a.len;
	uint32_t aux;
	uint32_t v = gpudp_fwd_pkt_run(kernel, (uint8_t *)addr[k], len[k], arg, &aux);

	((uint8_t *)a.verdict)[k] = (uint8_t)v;
	((uint32_t *)a.aux)[k] = aux;
}

// One burst: grid-stride over its packets; the last block to finish
// stores done (blocks[] counts finished blocks in device memory).
extern "C" __global__ void
gpudp_fwd_burst(struct gpudp_ho_kargs a)
{
	__shared__ uint32_t n, kernel, arg;
	volatile struct gpudp_ho_ctl *c = (volatile struct gpudp_ho_ctl *)a.ctl + a.slot;
	uint32_t i;

	if (threadIdx.x == 0) {
		if (blockIdx.x == 0)
			c->t_kstart = gpudp_fwd_globaltimer();
		n = c->n;
		kernel = c->kernel;
		arg = c->arg;
	}
	__syncthreads();
	for (i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
		gpudp_fwd_one(a, a.slot, i, kernel, arg);
	__threadfence_system();
	__syncthreads();
	if (threadIdx.x != 0)
		return;
	if (gridDim.x > 1) {
		uint32_t *cnt = (uint32_t *)a.blocks + a.slot;

		if (atomicAdd(cnt, 1u) != gridDim.x - 1)
			return;
		*cnt = 0;
		__threadfence_system();
	}
	if (a.signal)
		gpudp_fwd_st_release((uint32_t *)&c->done, c->seq);
}

// Staged mode: stored on the stream after the copy back to host memory.
extern "C" __global__ void
gpudp_fwd_signal(struct gpudp_ho_kargs a)
{
	volatile struct gpudp_ho_ctl *c = (volatile struct gpudp_ho_ctl *)a.ctl + a.slot;

	__threadfence_system();
	gpudp_fwd_st_release((uint32_t *)&c->done, c->seq);
}

// Persistent mode: block b serves slots b, b + gridDim.x, ... in order,
// waiting for each one's ready word to carry the expected seq.
extern "C" __global__ void
gpudp_fwd_persistent(struct gpudp_ho_kargs a)
{
	__shared__ uint32_t go, n, kernel, arg;
	struct gpudp_ho_ctl *ctl = (struct gpudp_ho_ctl *)a.ctl;
	const volatile uint32_t *quit = (const volatile uint32_t *)a.quit;
	uint32_t lap, s, i;

	for (lap = 0; ; lap++) {
		for (s = blockIdx.x; s < a.ring_size; s += gridDim.x) {
			uint32_t expect = lap * a.ring_size + s + 1;
			volatile struct gpudp_ho_ctl *c = ctl + s;

			if (threadIdx.x == 0) {
				go = 1;
				while (gpudp_fwd_ld_acquire(&ctl[s].ready) != expect) {
					if (*quit) {
						go = 0;
						break;
					}
				}
				if (go) {
					c->t_kstart = gpudp_fwd_globaltimer();
					n = c->n;
					kernel = c->kernel;
					arg = c->arg;
				}
			}
			__syncthreads();
			if (!go)
				return;
			for (i = threadIdx.x; i < n; i += blockDim.x)
				gpudp_fwd_one(a, s, i, kernel, arg);
			__threadfence_system();
			__syncthreads();
			if (threadIdx.x == 0)
				gpudp_fwd_st_release(&ctl[s].done, expect);
			__syncthreads();
		}
	}
}

// Clock calibration: the GPU's %globaltimer, for the latency histograms.
extern "C" __global__ void
gpudp_fwd_clock(uint64_t *out)
{
	*(volatile uint64_t *)out = gpudp_fwd_globaltimer();
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
				((uint64_t *)a.tstamp)[i] = gpudp_fwd_globaltimer();
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

// SPDX-License-Identifier: BSD-3-Clause
// gpudp-fwd's kernels (lib/handoff): the per-packet work of the CPU path
// (gpudp_fwd_pkt.h) run on the GPU, for one burst per launch (launch,
// graph and staged modes) or by a resident kernel polling per-slot ready
// flags (persistent mode). Completion (doc/architecture.md, data flow step 5):
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

// Scoped acquire loads and release stores (PTX memory model), one per
// scope and width used here:
// - system scope (.sys): words the CPU writes or reads. The ready words'
//   acquire keeps the burst's descriptors and payload loads after it (NVIDIA, "GPUDirect RDMA",
//   "Synchronization and Memory Ordering": the flag is the CPU's signal that
//   the burst is complete with respect to it and flushed); done's release
//   orders the results before it.
// - GPU scope (.gpu): the persistent kernel's dispatcher and workers.
#define GPUDP_FWD_LD_ACQUIRE(name, scope, T, ptx, c)                          \
	__device__ __forceinline__ T name(const T *p)                         \
	{                                                                     \
		T v;                                                          \
		asm volatile("ld.acquire." scope ".global." ptx " %0, [%1];"  \
			     : "=" c(v) : "l"(p) : "memory");                 \
		return v;                                                     \
	}
#define GPUDP_FWD_ST_RELEASE(name, scope, T, ptx, c)                          \
	__device__ __forceinline__ void name(T *p, T v)                       \
	{                                                                     \
		asm volatile("st.release." scope ".global." ptx " [%0], %1;"  \
			     :: "l"(p), c(v) : "memory");                     \
	}
GPUDP_FWD_LD_ACQUIRE(gpudp_fwd_ld_acquire, "sys", uint32_t, "u32", "r")
GPUDP_FWD_LD_ACQUIRE(gpudp_fwd_ld_acquire64, "sys", uint64_t, "u64", "l")
GPUDP_FWD_LD_ACQUIRE(gpudp_fwd_ld_acquire_gpu, "gpu", uint32_t, "u32", "r")
GPUDP_FWD_ST_RELEASE(gpudp_fwd_st_release, "sys", uint32_t, "u32", "r")
GPUDP_FWD_ST_RELEASE(gpudp_fwd_st_release64, "sys", uint64_t, "u64", "l")
GPUDP_FWD_ST_RELEASE(gpudp_fwd_st_release_gpu, "gpu", uint32_t, "u32", "r")

// Staged mode, GPU copies: the headers of the warp's 32 packets (lane k
// holds packet k's staging address s, its header length l and its
// packet's address d, NULL for none) back into the packets. Eight lanes
// per packet, 16 bytes each: a header leaves as one coalesced write of
// whole lines. One thread writing its own packet's header issued eight
// 16-byte PCIe writes per packet, and the staged path lost 15% of its
// bandwidth to them (doc/benchmarks.md). __syncwarp orders the lanes'
// header writes before the other lanes' reads.
__device__ __forceinline__ void
gpudp_fwd_copy_back_warp(uint8_t *d, const uint8_t *s, uint32_t l)
{
	const uint32_t lane = threadIdx.x & 31, per = GPUDP_FWD_HDR_SPAN / 16;
	uint32_t g, o = (lane % per) * 16, j;

	__syncwarp();
	for (g = 0; g < 32; g += 32 / per) {
		uint32_t k = g + lane / per;
		uint8_t *pd = (uint8_t *)__shfl_sync(0xffffffffu, (uintptr_t)d, k);
		const uint8_t *ps = (const uint8_t *)__shfl_sync(0xffffffffu, (uintptr_t)s, k);
		uint32_t pl = __shfl_sync(0xffffffffu, l, k);

		if (pd == NULL || o >= pl)
			continue;
		if (o + 16 <= pl && (((uintptr_t)pd | (uintptr_t)ps) & 15) == 0)
			*(uint4 *)(pd + o) = *(const uint4 *)(ps + o);
		else
			for (j = o; j < o + 16 && j < pl; j++)
				pd[j] = ps[j];
	}
}

// The work on packets first + threadIdx.x, + stride, ... < n of a slot.
// Returns the block's drop count (in every thread). Verdicts are collected
// in shared memory and written to host memory only when the block dropped
// something, or always with @p all (a burst split over several blocks: the
// CPU reads every verdict once any block dropped one); with no drop the
// CPU reads only n_pass (gpudp_handoff_dev.h) and no verdict crosses PCIe.
// aux is written by the load kernel only (the others' is 0, never written).
__device__ __forceinline__ uint32_t
gpudp_fwd_work(const struct gpudp_ho_kargs &a, uint32_t slot, uint32_t n,
	       uint32_t first, uint32_t stride, bool all)
{
	__shared__ uint8_t sv[GPUDP_HO_BURST_MAX_DEV];
	__shared__ uint32_t drops;
	size_t base = (size_t)slot * a.burst_max;
	const volatile uint64_t *addr = (const volatile uint64_t *)a.addr + base;
	const volatile uint32_t *len = (const volatile uint32_t *)a.len + base;
	uint8_t *verdict = (uint8_t *)a.verdict + base;
	uint32_t *aux = (uint32_t *)a.aux + base;
	uint32_t i, w, mine = 0, nd;

	if (threadIdx.x == 0)
		drops = 0;
	__syncthreads();
	/* whole warps go round (blockDim.x is a multiple of 32), so that the
	 * copy back can shuffle; lanes past n only take part in it */
	for (w = first + (threadIdx.x & ~31u); w < n; w += stride) {
		uint32_t x, v, l = 0;
		uint8_t *p = NULL;

		i = w + (threadIdx.x & 31);
		if (i < n) {
			p = (uint8_t *)addr[i];
			l = len[i];
			v = gpudp_fwd_pkt_run(a.kernel, p, l, a.arg, &x);
			sv[i] = (uint8_t)v;
			mine += v != GPUDP_FWD_PASS;
			if (a.kernel == GPUDP_FWD_K_LOAD)
				aux[i] = x;
		}
		if (a.back != 0)  /* staged, GPU copies */
			gpudp_fwd_copy_back_warp(i < n ? (uint8_t *)((const uint64_t *)a.back)[base + i] :
						 NULL, p, l < GPUDP_FWD_HDR_SPAN ? l : GPUDP_FWD_HDR_SPAN);
	}
	if (mine != 0)
		atomicAdd(&drops, mine);
	__syncthreads();
	nd = drops;
	if (nd != 0 || all)
		for (i = first + threadIdx.x; i < n; i += stride)
			verdict[i] = sv[i];
	return nd;
}

// One burst: grid-stride over its packets; the last block to finish
// stores n_pass and done (blocks[slot] counts finished blocks and
// blocks[ring_size + slot] the drops, in device memory).
extern "C" __global__ void
gpudp_fwd_burst(struct gpudp_ho_kargs a)
{
	__shared__ uint32_t n;
	volatile struct gpudp_ho_ctl *c = (volatile struct gpudp_ho_ctl *)a.ctl + a.slot;
	uint32_t nd;

	if (threadIdx.x == 0) {
		if (blockIdx.x == 0)
			c->t_kstart = gpudp_fwd_globaltimer();
		/* a launch passes n; a graph node reads the slot's (one PCIe read) */
		n = a.n != 0 ? a.n : c->n;
	}
	__syncthreads();
	nd = gpudp_fwd_work(a, a.slot, n, blockIdx.x * blockDim.x, gridDim.x * blockDim.x,
			    gridDim.x > 1);
	__syncthreads();
	if (threadIdx.x != 0)
		return;
	/* one system fence per block, after the barrier: cumulative, it
	 * orders every thread's writes (ordered before it by the barrier)
	 * before what thread 0 stores next (PTX memory model: causality
	 * order through bar.sync, release cumulativity) */
	__threadfence_system();
	if (gridDim.x > 1) {
		uint32_t *cnt = (uint32_t *)a.blocks + a.slot;
		uint32_t *dc = (uint32_t *)a.blocks + a.ring_size + a.slot;

		if (nd != 0)
			atomicAdd(dc, nd);
		__threadfence();
		if (atomicAdd(cnt, 1u) != gridDim.x - 1)
			return;
		/* acquire side: the other blocks' drop counts (each added
		 * before its fence and counter increment) before reading them */
		__threadfence();
		nd = atomicExch(dc, 0u);
		*cnt = 0;
	}
	c->n_pass = n - nd;
	if (!a.signal) {
		/* staged: gpudp_fwd_signal stores done later on the stream */
		__threadfence_system();
		return;
	}
	c->t_kend = gpudp_fwd_globaltimer();
	/* the release store orders n_pass before done */
	gpudp_fwd_st_release((uint32_t *)&c->done, c->seq);
}

// Staged mode: stored on the stream after the copy back to host memory.
extern "C" __global__ void
gpudp_fwd_signal(struct gpudp_ho_kargs a)
{
	volatile struct gpudp_ho_ctl *c = (volatile struct gpudp_ho_ctl *)a.ctl + a.slot;

	c->t_kend = gpudp_fwd_globaltimer();
	__threadfence_system();
	gpudp_fwd_st_release((uint32_t *)&c->done, c->seq);
}

// Persistent mode, dispatcher: warp 0 of block 0. Lane i polls the ready
// word of burst next + i (acquire, system scope: the burst's descriptors
// were written before it, NVIDIA, "GPUDirect RDMA", "Synchronization and Memory Ordering"), so
// one round trip over PCIe sees up to 32 bursts. The leading run of ready
// bursts is copied into device memory and published by one release store
// of head (GPU scope; __syncwarp orders the lanes' acquires before lane
// 0's release, and release is cumulative). Host memory is read by this
// warp only: worker blocks wait on head in GPU memory, and the ring's
// control lines are not polled by many blocks while the rx thread writes
// them. quit is read every 64 empty rounds.
__device__ void
gpudp_fwd_dispatch(const struct gpudp_ho_kargs &a, struct gpudp_ho_pstate *ps)
{
	const uint64_t *ready = (const uint64_t *)a.ready;
	uint32_t lane = threadIdx.x, win = a.ring_size < 32 ? a.ring_size : 32;
	uint32_t mask = a.ring_size - 1, next = 1, idle = 0;

	for (;;) {
		uint32_t seq = next + lane, bal, k;
		uint64_t r = 0;

		if (lane < win)
			r = gpudp_fwd_ld_acquire64(&ready[(seq - 1) & mask]);
		bal = __ballot_sync(0xffffffffu, lane < win && (uint32_t)r == seq);
		k = bal == 0xffffffffu ? 32 : __ffs(~bal) - 1;
		if (k != 0) {
			if (lane < k) {
				uint32_t sl = (seq - 1) & mask;

				if ((uint32_t)(r >> 32) & GPUDP_HO_READY_TIMED)
					*(volatile uint64_t *)&ps->slot[sl].t_seen =
						gpudp_fwd_globaltimer();
				*(volatile uint64_t *)&ps->slot[sl].ready = r;
			}
			__syncwarp();
			if (lane == 0)
				gpudp_fwd_st_release_gpu(&ps->head, next + k - 1);
			next += k;
			idle = 0;
			continue;
		}
		if (++idle % 64 == 0 &&
		    __shfl_sync(0xffffffffu, lane == 0 ? *(const volatile uint32_t *)a.quit : 0,
				0) != 0) {
			if (lane == 0)
				gpudp_fwd_st_release_gpu(&ps->stop, 1);
			return;
		}
		if (a.poll_ns != 0)
			__nanosleep(a.poll_ns);
	}
}

// Persistent mode: block 0's first warp dispatches (above); every other
// block takes the next burst by ticket (any free block serves the next
// burst, in ring order), waits in GPU memory until it is published, works,
// and completes it: results, then done and n_pass in one 8-byte release
// store (system scope; cumulative over the block's writes through the
// barrier). t_kstart (when the dispatcher saw the burst) and t_kend are
// written only for timed bursts.
extern "C" __global__ void
gpudp_fwd_persistent(struct gpudp_ho_kargs a)
{
	__shared__ uint32_t go, n, seq, slot, timed;
	__shared__ uint64_t t0;
	struct gpudp_ho_ctl *ctl = (struct gpudp_ho_ctl *)a.ctl;
	struct gpudp_ho_pstate *ps = (struct gpudp_ho_pstate *)a.pstate;
	uint32_t nd;

	if (blockIdx.x == 0) {
		if (threadIdx.x < 32)
			gpudp_fwd_dispatch(a, ps);
		return;
	}
	for (;;) {
		if (threadIdx.x == 0) {
			uint32_t t = atomicAdd(&ps->next, 1u) + 1;

			go = 1;
			while ((int32_t)(gpudp_fwd_ld_acquire_gpu(&ps->head) - t) < 0) {
				if (*(volatile uint32_t *)&ps->stop) {
					go = 0;
					break;
				}
			}
			if (go) {
				uint32_t sl = (t - 1) & (a.ring_size - 1);
				uint64_t r = *(volatile uint64_t *)&ps->slot[sl].ready;

				seq = t;
				slot = sl;
				n = (uint32_t)(r >> 32) & ~GPUDP_HO_READY_TIMED;
				timed = (uint32_t)(r >> 32) & GPUDP_HO_READY_TIMED;
				if (timed)
					t0 = *(volatile uint64_t *)&ps->slot[sl].t_seen;
			}
		}
		__syncthreads();
		if (!go)
			return;
		nd = gpudp_fwd_work(a, slot, n, 0, blockDim.x, false);
		__syncthreads();
		if (threadIdx.x == 0) {
			volatile struct gpudp_ho_ctl *c = ctl + slot;

			/* one fence per block (see gpudp_fwd_burst) */
			__threadfence_system();
			if (timed) {
				c->t_kstart = t0;
				c->t_kend = gpudp_fwd_globaltimer();
			}
			gpudp_fwd_st_release64((uint64_t *)&ctl[slot].done,
					       (uint64_t)(n - nd) << 32 | seq);
		}
	}
}

// Staged mode with packets in memory the GPU can address (pinned or
// registered host memory, gpudp_handoff_conf.stage_gpu_copy): the copies
// into the staging buffers (src[i] -> addr[i], len[i] bytes) run on the GPU,
// one warp per packet, on the copy stream, instead of a CPU memcpy. The
// work kernel that follows copies the headers back (kargs.back).
// Launched after rx_burst returned the burst, like any kernel.
extern "C" __global__ void
gpudp_fwd_gather(struct gpudp_ho_kargs a, uint64_t src, uint32_t n)
{
	uint32_t lane = threadIdx.x & 31;
	uint32_t w = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
	uint32_t nw = (gridDim.x * blockDim.x) >> 5;
	size_t base = (size_t)a.slot * a.burst_max;
	uint32_t i, j;

	for (i = w; i < n; i += nw) {
		uint8_t *d = (uint8_t *)((const uint64_t *)a.addr)[base + i];
		const uint8_t *s = (const uint8_t *)((const uint64_t *)src)[base + i];
		uint32_t l = ((const uint32_t *)a.len)[base + i], l16;

		l16 = (((uintptr_t)d | (uintptr_t)s) & 15) == 0 ? l & ~15u : 0;
		/* 2 KiB per round, every load issued before any store: one
		 * PCIe round trip per round instead of one per 512 bytes; the
		 * last round also loads the tail (under 16 bytes, one per
		 * lane), so a packet up to 2 KiB costs one round trip */
		if (l16 == 0) {  /* unaligned, or under 16 bytes: bytes */
			for (j = lane; j < l; j += 32)
				d[j] = s[j];
			continue;
		}
		for (j = 0; j < l16; j += 2048) {
			uint4 v[4];
			uint32_t k, o;
			uint8_t t = 0;
			bool last = j + 2048 >= l16 && lane < l - l16;

#pragma unroll
			for (k = 0; k < 4; k++) {
				o = j + (k * 32 + lane) * 16;
				if (o < l16)
					v[k] = *(const uint4 *)(s + o);
			}
			if (last)
				t = s[l16 + lane];
#pragma unroll
			for (k = 0; k < 4; k++) {
				o = j + (k * 32 + lane) * 16;
				if (o < l16)
					*(uint4 *)(d + o) = v[k];
			}
			if (last)
				d[l16 + lane] = t;
		}
	}
}

// Clock calibration: ping-pong through mapped host memory. For round
// i = 1..rounds the CPU stores flag = i; the kernel, spinning on it, reads
// %globaltimer, stores it and then ack = i. A round trip over PCIe is a
// few microseconds (a launch and a synchronize are tens), which bounds the
// error of the CPU's midpoint estimate. Gives up after one second without
// a flag (the CPU stopped).
extern "C" __global__ void
gpudp_fwd_clock(uint64_t base, uint32_t rounds)
{
	uint32_t *flag = (uint32_t *)base + 4, *ack = (uint32_t *)base + 6;
	volatile uint64_t *tm = (volatile uint64_t *)base + 4;
	uint64_t t = gpudp_fwd_globaltimer();
	uint32_t i;

	for (i = 1; i <= rounds; i++) {
		while (gpudp_fwd_ld_acquire(flag) != i)
			if (gpudp_fwd_globaltimer() - t > 1000000000ull)
				return;
		*tm = gpudp_fwd_globaltimer();
		gpudp_fwd_st_release(ack, i);
		t = gpudp_fwd_globaltimer();
	}
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

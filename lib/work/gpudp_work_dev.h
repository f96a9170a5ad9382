/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The GPU form of a work (gpudp_work.h): gpudp's kernel shapes, for nvcc
 * only. A work's .cu file includes its per-packet function and this
 * header, and instantiates the shapes around the function:
 *
 *     #include <gpudp_work_dev.h>
 *     #include "my_work.h"        // GPUDP_WORK_FN uint32_t my_pkt(...)
 *     GPUDP_WORK_GPU(my_pkt)
 *
 * compiled with nvcc -fatbin into the image the descriptor names. It
 * defines the kernels a handoff launches:
 * - gpudp_work_burst: one burst per launch (launch, graph, staged modes),
 *   grid-stride over its packets; the last block to finish completes it;
 * - gpudp_work_persistent: the resident kernel (persistent mode): poller
 *   warps take turns reading the slots' ready words in host memory
 *   (acquire, system scope) and publish them in GPU memory; every other
 *   block takes the next burst by ticket, works, and completes it;
 * - gpudp_work_abi: the ABI version the image was built with.
 *
 * Completion (doc/ordering.md): verdicts, results, counters and packet
 * bytes are written, made visible system-wide (__threadfence_system), and
 * only then the slot's done word is stored with a release store, so a CPU
 * that reads done == seq also reads everything the work wrote. The
 * function itself needs no fence and must not wait on other packets.
 *
 * The function's per-packet call is inlined into every shape: a work built
 * outside gpudp costs what a built-in does.
 */
#ifndef GPUDP_WORK_DEV_H
#define GPUDP_WORK_DEV_H

#ifndef __CUDACC__
#error "gpudp_work_dev.h is for nvcc; C code includes gpudp_work.h"
#endif

#include <stdint.h>

#include "gpudp_handoff_dev.h"
#include "gpudp_work.h"

/** The per-packet function type the shapes call. */
typedef uint32_t (*gpudp_work_dev_fn)(struct gpudp_work_pkt *p);

namespace gpudp_work_dev {

__device__ __forceinline__ uint64_t
globaltimer(void)
{
	uint64_t t;

	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}

/*
 * Scoped acquire loads and release stores (PTX memory model):
 * - system scope (.sys): words the CPU writes or reads. The ready words'
 *   acquire keeps the burst's descriptor and payload loads after it
 *   (NVIDIA, "GPUDirect RDMA", "Synchronization and Memory Ordering": the
 *   word is the CPU's signal that the burst is complete with respect to
 *   it, and flushed); done's release orders the results before it.
 * - GPU scope (.gpu): the persistent kernel's pollers and workers.
 */
#define GPUDP_WDEV_LD_ACQUIRE(name, scope, T, ptx, c)                         \
	__device__ __forceinline__ T name(const T *p)                         \
	{                                                                     \
		T v;                                                          \
		asm volatile("ld.acquire." scope ".global." ptx " %0, [%1];"  \
			     : "=" c(v) : "l"(p) : "memory");                 \
		return v;                                                     \
	}
#define GPUDP_WDEV_ST_RELEASE(name, scope, T, ptx, c)                         \
	__device__ __forceinline__ void name(T *p, T v)                       \
	{                                                                     \
		asm volatile("st.release." scope ".global." ptx " [%0], %1;"  \
			     :: "l"(p), c(v) : "memory");                     \
	}
GPUDP_WDEV_LD_ACQUIRE(ld_acquire, "sys", uint32_t, "u32", "r")
GPUDP_WDEV_LD_ACQUIRE(ld_acquire64, "sys", uint64_t, "u64", "l")
GPUDP_WDEV_LD_ACQUIRE(ld_acquire_gpu, "gpu", uint32_t, "u32", "r")
GPUDP_WDEV_ST_RELEASE(st_release, "sys", uint32_t, "u32", "r")
GPUDP_WDEV_ST_RELEASE(st_release64, "sys", uint64_t, "u64", "l")
GPUDP_WDEV_ST_RELEASE(st_release_gpu, "gpu", uint32_t, "u32", "r")
#undef GPUDP_WDEV_LD_ACQUIRE
#undef GPUDP_WDEV_ST_RELEASE

/*
 * Staged mode, GPU copies: the first @p l bytes (the work's write span) of
 * the warp's 32 packets back from the staging buffers into the packets
 * (lane k holds packet k's staging address s, the bytes l and its packet's
 * address d, NULL for none). Eight lanes per packet, 16 bytes each, 128
 * bytes per round: each round leaves as coalesced writes of whole lines
 * (one thread per packet issued eight separate 16-byte PCIe writes per
 * packet, which cost the staged path bandwidth). __syncwarp orders the lanes'
 * work before the other lanes' reads.
 */
__device__ __forceinline__ void
copy_back_warp(uint8_t *d, const uint8_t *s, uint32_t l)
{
	const uint32_t lane = threadIdx.x & 31, per = 8;
	uint32_t g, j;

	__syncwarp();
	for (g = 0; g < 32; g += 32 / per) {
		uint32_t k = g + lane / per, c, pl;
		uint8_t *pd = (uint8_t *)__shfl_sync(0xffffffffu, (uintptr_t)d, k);
		const uint8_t *ps = (const uint8_t *)__shfl_sync(0xffffffffu, (uintptr_t)s, k);

		pl = __shfl_sync(0xffffffffu, l, k);
		if (pd == NULL)
			continue;
		for (c = (lane % per) * 16; c < pl; c += per * 16) {
			if (c + 16 <= pl && (((uintptr_t)pd | (uintptr_t)ps) & 15) == 0)
				*(uint4 *)(pd + c) = *(const uint4 *)(ps + c);
			else
				for (j = c; j < c + 16 && j < pl; j++)
					pd[j] = ps[j];
		}
	}
}

/* packet i of slot base (base = slot * burst_max) as the work sees it */
__device__ __forceinline__ void
pkt_at(struct gpudp_work_pkt *p, const struct gpudp_ho_kargs &a, size_t base, uint32_t i,
       uint64_t *cnt)
{
	uint32_t k;

	p->seg[0] = (uint8_t *)((const volatile uint64_t *)a.addr)[base + i];
	p->seg_len[0] = ((const volatile uint32_t *)a.len)[base + i];
	p->pkt_len = p->seg_len[0];
	p->nb_segs = 1;
	for (k = 1; k < a.segs; k++) {
		size_t x = (base + i) * (a.segs - 1) + k - 1;
		uint32_t l = ((const volatile uint32_t *)a.xlen)[x];

		if (l == 0)
			break;
		p->seg[k] = (uint8_t *)((const volatile uint64_t *)a.xaddr)[x];
		p->seg_len[k] = l;
		p->pkt_len += l;
		p->nb_segs++;
	}
	if (a.plen != 0)  /* staged: the frame's length, of which seg 0 holds the span */
		p->pkt_len = ((const volatile uint32_t *)a.plen)[base + i];
	p->index = i;
	p->params = (const void *)a.params;
	p->result = a.result_size != 0 ?
		(void *)((uint8_t *)a.result + (base + i) * a.result_size) : NULL;
	p->counters = cnt;
	p->meta = a.meta != 0 ? (const struct gpudp_work_meta *)a.meta + base + i : NULL;
}

/*
 * The work on packets first + threadIdx.x, + stride, ... < n of a slot.
 * Returns the block's drop count (in every thread). With @p all (a burst
 * split over several blocks: the CPU reads every verdict once any block
 * dropped one) every verdict is written to host memory as it is known;
 * else (the burst is this block's alone, n <= GPUDP_HO_BURST_MAX_DEV) they
 * are collected in shared memory and written only when the block dropped
 * something: with no drop the CPU reads only n_pass and no verdict
 * crosses PCIe. The work's counters are the block's, @p scnt in shared
 * memory (gpudp_work_count() adds atomically).
 */
template <gpudp_work_dev_fn F>
__device__ __forceinline__ uint32_t
work(const struct gpudp_ho_kargs &a, uint32_t slot, uint32_t n, uint32_t first,
     uint32_t stride, bool all, unsigned long long *scnt)
{
	__shared__ uint8_t sv[GPUDP_HO_BURST_MAX_DEV];
	__shared__ uint32_t drops;
	size_t base = (size_t)slot * a.burst_max;
	uint8_t *verdict = (uint8_t *)a.verdict + base;
	uint32_t i, w, k, mine = 0, nd;

	if (threadIdx.x == 0)
		drops = 0;
	for (k = threadIdx.x; k < a.n_counters; k += blockDim.x)
		scnt[k] = 0;
	__syncthreads();
	/* whole warps go round (blockDim.x is a multiple of 32), so that the
	 * copy back can shuffle; lanes past n only take part in it */
	for (w = first + (threadIdx.x & ~31u); w < n; w += stride) {
		struct gpudp_work_pkt p;
		uint32_t v;

		p.seg[0] = NULL;
		p.seg_len[0] = 0;
		i = w + (threadIdx.x & 31);
		if (i < n) {
			pkt_at(&p, a, base, i, (uint64_t *)scnt);
			v = F(&p);
			v = v <= a.n_reasons ? v : GPUDP_WORK_DROP_ERROR;
			if (all)
				verdict[i] = (uint8_t)v;
			else
				sv[i] = (uint8_t)v;
			mine += v != GPUDP_WORK_PASS;
		}
		if (a.back != 0)  /* staged, GPU copies: the write span back */
			copy_back_warp(i < n ? (uint8_t *)((const uint64_t *)a.back)[base + i] :
				       NULL, p.seg[0],
				       p.seg_len[0] < a.wspan ? p.seg_len[0] : a.wspan);
	}
	if (mine != 0)
		atomicAdd(&drops, mine);
	__syncthreads();
	nd = drops;
	if (nd != 0 && !all)
		for (i = first + threadIdx.x; i < n; i += stride)
			verdict[i] = sv[i];
	return nd;
}

/* the slot's counters in host memory (thread 0, before the fence) */
__device__ __forceinline__ void
counters_out(const struct gpudp_ho_kargs &a, uint32_t slot, const unsigned long long *c)
{
	uint64_t *o = (uint64_t *)a.counters + (size_t)slot * GPUDP_WORK_COUNTERS_MAX;
	uint32_t k;

	for (k = 0; k < a.n_counters; k++)
		o[k] = c[k];
}

/*
 * One burst: grid-stride over its packets; the last block to finish stores
 * n_pass, the counters and done (blocks[slot] counts finished blocks,
 * blocks[ring_size + slot] the drops, and the counters are summed in
 * device memory at a.dcounters).
 */
template <gpudp_work_dev_fn F>
__device__ __forceinline__ void
burst(const struct gpudp_ho_kargs &a)
{
	__shared__ uint32_t n;
	__shared__ unsigned long long scnt[GPUDP_WORK_COUNTERS_MAX];
	volatile struct gpudp_ho_ctl *c = (volatile struct gpudp_ho_ctl *)a.ctl + a.slot;
	uint32_t nd, k;

	if (threadIdx.x == 0) {
		if (blockIdx.x == 0)
			c->t_kstart = globaltimer();
		/* a launch passes n; a graph node reads the slot's (one PCIe read) */
		n = a.n != 0 ? a.n : c->n;
	}
	__syncthreads();
	nd = work<F>(a, a.slot, n, blockIdx.x * blockDim.x, gridDim.x * blockDim.x,
		     gridDim.x > 1, scnt);
	__syncthreads();
	if (threadIdx.x != 0)
		return;
	if (gridDim.x > 1) {
		uint32_t *cnt = (uint32_t *)a.blocks + a.slot;
		uint32_t *dc = (uint32_t *)a.blocks + a.ring_size + a.slot;
		unsigned long long *dk = (unsigned long long *)a.dcounters +
					 (size_t)a.slot * GPUDP_WORK_COUNTERS_MAX;

		/* one system fence per block, after the barrier: cumulative,
		 * it orders every thread's writes (ordered before it by the
		 * barrier) before what thread 0 stores next (PTX memory model:
		 * causality order through bar.sync, release cumulativity) */
		__threadfence_system();
		if (nd != 0)
			atomicAdd(dc, nd);
		for (k = 0; k < a.n_counters; k++)
			if (scnt[k] != 0)
				atomicAdd(&dk[k], scnt[k]);
		__threadfence();
		if (atomicAdd(cnt, 1u) != gridDim.x - 1)
			return;
		/* acquire side: the other blocks' sums (each added before its
		 * fence and counter increment) before reading them */
		__threadfence();
		nd = atomicExch(dc, 0u);
		for (k = 0; k < a.n_counters; k++)
			scnt[k] = atomicExch(&dk[k], 0ull);
		*cnt = 0;
	}
	counters_out(a, a.slot, scnt);
	__threadfence_system();
	c->n_pass = n - nd;
	if (!a.signal) {
		/* staged, CPU copies: a later kernel on the stream stores done */
		__threadfence_system();
		return;
	}
	c->t_kend = globaltimer();
	/* the release store orders n_pass before done */
	st_release((uint32_t *)&c->done, c->seq);
}

/*
 * Persistent mode, poller @p w of @p np: warp w of block 0. Lane i polls
 * the ready word of burst next + i in the poller's copy (acquire, system
 * scope: the burst's descriptors were written before it), so one round
 * trip over PCIe sees up to 32 bursts. For each burst of the leading run of ready ones the lane
 * claims its slot (a CAS of claim from an older seq: a burst that another
 * poller saw too is published once), copies the ready word into device
 * memory and publishes the slot with a release store of its pub word (GPU
 * scope). The pollers take turns: each starts its read a round trip / np
 * after the previous poller started its own (clock64: the block's SM's
 * cycles, each poller's round trip measured as it goes), so that a ready
 * word waits for the next read about a round trip / np. head tells each
 * poller where the others got to (read beside the ready words, its latency
 * hidden behind theirs). Poller 0 reads quit every 64 empty rounds; the
 * others see stop. Every poller adds its rounds to polls when it returns.
 */
__device__ __forceinline__ void
dispatch(const struct gpudp_ho_kargs &a, struct gpudp_ho_pstate *ps, uint32_t w, uint32_t np)
{
	__shared__ long long t_issue[GPUDP_HO_POLLERS_MAX_DEV];
	const uint64_t *ready = (const uint64_t *)a.ready + w * GPUDP_HO_READY_STRIDE(a.ring_size);
	uint32_t lane = threadIdx.x & 31, win = a.ring_size < 32 ? a.ring_size : 32;
	uint32_t mask = a.ring_size - 1, next = 1, idle = 0;
	unsigned long long polls = 0;
	long long rtt = 0;

	if (lane == 0)
		t_issue[w] = clock64();
	__syncwarp();
	for (;;) {
		uint32_t seq, bal, k, h;
		uint64_t r = 0;
		long long t0;

		if (np > 1) {  /* wait for this poller's turn */
			long long due = *(volatile long long *)&t_issue[(w + np - 1) % np] + rtt / np;

			while ((t0 = clock64()) < due && due - t0 <= rtt)
				;
		} else {
			t0 = clock64();
		}
		if (lane == 0)
			*(volatile long long *)&t_issue[w] = t0;
		h = lane == 0 ? *(const volatile uint32_t *)&ps->head : 0;
		seq = next + lane;
		if (lane < win)
			r = ld_acquire64(&ready[(seq - 1) & mask]);
		bal = __ballot_sync(0xffffffffu, lane < win && (uint32_t)r == seq);
		polls++;
		rtt += (clock64() - t0 - rtt) / 8;
		k = bal == 0xffffffffu ? 32 : __ffs(~bal) - 1;
		if (k != 0) {
			if (lane < k) {
				uint32_t sl = (seq - 1) & mask;
				uint64_t seen = (uint32_t)(r >> 32) & GPUDP_HO_READY_TIMED ?
						globaltimer() : 0;
				uint32_t *cl = &ps->slot[sl].claim, c = *(volatile uint32_t *)cl, o;

				while ((int32_t)(seq - c) > 0) {
					o = atomicCAS(cl, c, seq);
					if (o == c)
						break;
					c = o;
				}
				if ((int32_t)(seq - c) > 0) {  /* claimed: this lane publishes */
					if (seen != 0)
						*(volatile uint64_t *)&ps->slot[sl].t_seen = seen;
					*(volatile uint64_t *)&ps->slot[sl].ready = r;
					st_release_gpu(&ps->slot[sl].pub, seq);
				}
			}
			next += k;
			if (lane == 0 &&
			    (int32_t)(next - 1 - *(volatile uint32_t *)&ps->head) > 0)
				*(volatile uint32_t *)&ps->head = next - 1;
			idle = 0;
			continue;
		}
		h = __shfl_sync(0xffffffffu, h, 0);
		if ((int32_t)(h - next) >= 0)  /* the others are ahead */
			next = h + 1;
		if (++idle % 64 == 0) {
			uint32_t q = 0;

			if (lane == 0)
				q = *(const volatile uint32_t *)&ps->stop ||
				    (w == 0 && *(const volatile uint32_t *)a.quit != 0);
			if (__shfl_sync(0xffffffffu, q, 0) != 0) {
				if (lane == 0) {
					st_release_gpu(&ps->stop, 1);
					atomicAdd((unsigned long long *)&ps->polls, polls);
				}
				return;
			}
		}
		if (a.poll_ns != 0)
			__nanosleep(a.poll_ns);
	}
}

/*
 * Persistent mode: block 0's first kargs.pollers warps poll (above); every
 * other block takes the next burst by ticket (any free block serves the
 * next burst, in ring order), waits in GPU memory until a poller published
 * its slot, works, and completes it: results and counters, then done and
 * n_pass in one 8-byte release store (system scope; cumulative over the
 * block's writes through the barrier). t_kstart (when a poller saw the
 * burst) and t_kend are written only for timed bursts.
 */
template <gpudp_work_dev_fn F>
__device__ __forceinline__ void
persistent(const struct gpudp_ho_kargs &a)
{
	__shared__ uint32_t go, n, seq, slot, timed;
	__shared__ uint64_t t0;
	__shared__ unsigned long long scnt[GPUDP_WORK_COUNTERS_MAX];
	struct gpudp_ho_ctl *ctl = (struct gpudp_ho_ctl *)a.ctl;
	struct gpudp_ho_pstate *ps = (struct gpudp_ho_pstate *)a.pstate;
	uint32_t nd;

	if (blockIdx.x == 0) {
		uint32_t np = a.pollers < 1 ? 1 : a.pollers;

		if (np > GPUDP_HO_POLLERS_MAX_DEV)
			np = GPUDP_HO_POLLERS_MAX_DEV;
		if (np > blockDim.x / 32)
			np = blockDim.x / 32;
		if (threadIdx.x / 32 < np)
			dispatch(a, ps, threadIdx.x / 32, np);
		return;
	}
	for (;;) {
		if (threadIdx.x == 0) {
			uint32_t t = atomicAdd(&ps->next, 1u) + 1;
			uint32_t sl = (t - 1) & (a.ring_size - 1);

			go = 1;
			while (ld_acquire_gpu(&ps->slot[sl].pub) != t) {
				if (*(volatile uint32_t *)&ps->stop) {
					go = 0;
					break;
				}
			}
			if (go) {
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
		nd = work<F>(a, slot, n, 0, blockDim.x, false, scnt);
		__syncthreads();
		if (threadIdx.x == 0) {
			volatile struct gpudp_ho_ctl *c = ctl + slot;

			counters_out(a, slot, scnt);
			/* one fence per block (see burst) */
			__threadfence_system();
			if (timed) {
				c->t_kstart = t0;
				c->t_kend = globaltimer();
			}
			st_release64((uint64_t *)&ctl[slot].done, (uint64_t)(n - nd) << 32 | seq);
		}
	}
}

} /* namespace gpudp_work_dev */

/**
 * Instantiate gpudp's kernel shapes around per-packet function @p fn
 * (GPUDP_WORK_FN uint32_t fn(struct gpudp_work_pkt *)), once per image:
 * the kernels gpudp_work_burst and gpudp_work_persistent, and the ABI
 * stamp gpudp_work_abi that the handoff checks when it loads the image.
 */
#define GPUDP_WORK_GPU(fn)                                                     \
	extern "C" __device__ __attribute__((used)) uint32_t gpudp_work_abi =  \
		GPUDP_WORK_ABI;                                                \
	extern "C" __global__ void                                             \
	gpudp_work_burst(struct gpudp_ho_kargs a)                              \
	{                                                                      \
		gpudp_work_dev::burst<fn>(a);                                  \
	}                                                                      \
	extern "C" __global__ void                                             \
	gpudp_work_persistent(struct gpudp_ho_kargs a)                         \
	{                                                                      \
		gpudp_work_dev::persistent<fn>(a);                             \
	}

#endif /* GPUDP_WORK_DEV_H */

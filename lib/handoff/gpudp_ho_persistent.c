/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpudp_handoff's persistent mode (gpudp_handoff.h, doc/ordering.md), on the GPU
 * modes' common part (gpudp_ho_gpu_pvt.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <rte_atomic.h>
#include <rte_common.h>

#ifdef GPUDP_HAS_CUDA

#include "gpudp_ho_gpu_pvt.h"

/* ---- persistent: resident kernel, ready word per slot ---- */

/*
 * The words the rx thread writes and the kernel reads (descriptors, ready)
 * in write-combined host memory: the CPU's stores go out as whole lines
 * without a read for ownership, and the GPU's reads of them snoop no CPU
 * cache. In cached memory every line the GPU had read cost the rx thread a
 * miss when it wrote the line again a lap later. The CPU never reads these
 * words in this mode (persistent_submit orders them with sfence).
 */
static int
persistent_wc(struct gpudp_handoff *h)
{
	struct ho_gpu *g = GPU(h);
	size_t n = (size_t)h->conf.ring_size * h->conf.burst_max;
	size_t o_len = RTE_ALIGN_CEIL(n * sizeof(uint64_t), 64);
	size_t o_ready = RTE_ALIGN_CEIL(o_len + n * sizeof(uint32_t), 64);
	size_t len = o_ready + (size_t)h->conf.persistent_pollers *
		     GPUDP_HO_READY_STRIDE(h->conf.ring_size) * sizeof(uint64_t);
	CUdeviceptr d;
	uint32_t s;

	CU_DO(h, gpudp_cu->cuMemHostAlloc(&g->wc, len, CU_MEMHOSTALLOC_WRITECOMBINED |
					  CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE));
	memset(g->wc, 0, len);
	CU_DO(h, gpudp_cu->cuMemHostGetDevicePointer(&d, g->wc, 0));
	h->addr = g->wc;
	h->len = (uint32_t *)((char *)g->wc + o_len);
	g->ready = (uint64_t *)((char *)g->wc + o_ready);
	for (s = 0; s < h->conf.ring_size; s++) {
		h->bursts[s].addr = h->addr + (size_t)s * h->conf.burst_max;
		h->bursts[s].len = h->len + (size_t)s * h->conf.burst_max;
	}
	h->kargs.addr = d;
	h->kargs.len = d + o_len;
	h->kargs.ready = d + o_ready;
	return 0;
}

/*
 * Residency. A persistent kernel's blocks wait for bursts forever, so a
 * block that does not fit beside the resident ones never starts, and a
 * dispatcher that does not fit leaves its pipeline's bursts undone: the
 * worker blocks and the dispatcher must all be resident at once, beside
 * the other persistent kernels of the process on the same GPU. The
 * process counts, per device, the share of the GPU's SMs each persistent
 * handoff's blocks take (blocks / blocks-per-SM of its kernel at its
 * block size, from the occupancy calculator), in millionths of an SM.
 */
#define RES_UNIT 1000000ull
#define RES_DEVS 64

static pthread_mutex_t res_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t res_used[RES_DEVS];

static int
persistent_resident(struct gpudp_handoff *h)
{
	struct gpudp_handoff_conf *c = &h->conf;
	struct ho_gpu *g = GPU(h);
	int per_sm = 0, sms = 0, fill = c->persistent_blocks == GPUDP_HO_BLOCKS_FILL;
	uint64_t need, cap, used;
	int fits;

	if (gpudp_cu->cuOccupancyMaxActiveBlocksPerMultiprocessor == NULL ||
	    gpudp_cu->cuOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, g->f_persistent,
								  (int)c->threads, 0) != CUDA_SUCCESS ||
	    gpudp_cu->cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
					   g->dev) != CUDA_SUCCESS ||
	    per_sm <= 0 || sms <= 0 || g->dev < 0 || g->dev >= RES_DEVS) {
		if (fill) {
			HO_LOG(ERR, "%s: the driver does not tell how many blocks of %u threads "
			       "stay resident: give the persistent blocks as a number",
			       c->name, c->threads);
			return -ENOTSUP;
		}
		HO_LOG(WARNING, "%s: residency of %u persistent blocks not checked (no "
		       "occupancy from the driver)", c->name, c->persistent_blocks + 1);
		return 0;
	}
	cap = (uint64_t)per_sm * (uint64_t)sms;
	if (fill) {
		uint32_t share = RTE_MAX(c->persistent_share, 1u);

		/* one SM's blocks stay free for gpudp's short kernels beside the
		 * resident ones (the clock measure) */
		uint64_t room = cap - (uint64_t)per_sm;

		if (room / share < 2) {
			HO_LOG(ERR, "%s: GPU %d keeps %" PRIu64 " blocks of %u threads resident "
			       "beside one SM's: too few for %u persistent handoffs of two "
			       "blocks at least",
			       c->name, (int)g->dev, room, c->threads, share);
			return -ENOSPC;
		}
		c->persistent_blocks = (uint32_t)RTE_MIN(room / share - 1, (uint64_t)c->ring_size);
	}
	/* the share of the SMs, rounded up: never more than fit */
	need = ((uint64_t)c->persistent_blocks + 1) * RES_UNIT;
	need = (need + (uint64_t)per_sm - 1) / (uint64_t)per_sm;
	pthread_mutex_lock(&res_lock);
	used = res_used[g->dev];
	fits = used + need <= (uint64_t)sms * RES_UNIT;
	if (fits)
		res_used[g->dev] = used + need;
	pthread_mutex_unlock(&res_lock);
	if (!fits) {
		HO_LOG(ERR, "%s: %u persistent blocks of %u threads and their dispatcher cannot "
		       "all be resident on GPU %d: it keeps %d such blocks per SM on %d SMs "
		       "(%" PRIu64 "), and the other persistent handoffs of this process hold "
		       "%.1f of its SMs; fewer blocks or threads, or fewer pipelines on the GPU",
		       c->name, c->persistent_blocks, c->threads, (int)g->dev, per_sm, sms, cap,
		       (double)used / RES_UNIT);
		return -ENOSPC;
	}
	g->resident = need;
	HO_LOG(INFO, "%s: %u persistent blocks of %u threads and a dispatcher on GPU %d "
	       "(%d per SM, %.1f of its %d SMs)", c->name, c->persistent_blocks, c->threads,
	       (int)g->dev, per_sm, (double)need / RES_UNIT, sms);
	return 0;
}

static void
persistent_teardown(struct gpudp_handoff *h)
{
	struct ho_gpu *g = GPU(h);

	if (g != NULL && g->resident != 0) {
		pthread_mutex_lock(&res_lock);
		res_used[g->dev] -= g->resident;
		pthread_mutex_unlock(&res_lock);
		g->resident = 0;
	}
	gpudp_ho_gpu_teardown(h);
}

/* stop, then the pollers' reads of host memory, counted on the GPU */
static void
persistent_stop(struct gpudp_handoff *h)
{
	struct ho_gpu *g = GPU(h);
	uint64_t polls = 0;
	int was = g != NULL && g->persistent_running;

	gpudp_ho_gpu_stop(h);
	if (was && !g->persistent_running && g->pstate != 0 &&
	    gpudp_cu->cuMemcpyDtoH(&polls, g->pstate + offsetof(struct gpudp_ho_pstate, polls),
				   sizeof(polls)) == CUDA_SUCCESS)
		h->tx.gpu_polls = polls;
}

static int
persistent_setup(struct gpudp_handoff *h)
{
	size_t len = sizeof(struct gpudp_ho_pstate) +
		     h->conf.ring_size * sizeof(((struct gpudp_ho_pstate *)0)->slot[0]);
	int ret, ord = 0;

	ret = gpudp_ho_gpu_setup(h);
	if (ret == 0)
		ret = persistent_resident(h);
	if (ret != 0)
		return ret;
	CU_DO(h, gpudp_cu->cuMemAlloc(&GPU(h)->pstate, len));
	CU_DO(h, gpudp_cu->cuMemsetD8(GPU(h)->pstate, 0, len));
	h->kargs.pstate = GPU(h)->pstate;
	ret = persistent_wc(h);
	if (ret != 0)
		return ret;
	CU_DO(h, gpudp_cu->cuDeviceGetAttribute(&ord,
		CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WRITES_ORDERING, GPU(h)->dev));
	/* NVIDIA, "GPUDirect RDMA", "Synchronization and Memory Ordering": a kernel already running
	 * is not ordered after the NIC's writes by any submission; the flush
	 * makes them visible to the owning device first, unless the device
	 * already orders them for its own context (OWNER or stronger) */
	h->flush_needed = h->conf.force_flush ||
		ord < CU_GPU_DIRECT_RDMA_WRITES_ORDERING_OWNER;
	if (h->flush_needed && gpudp_cu->cuFlushGPUDirectRDMAWrites == NULL) {
		HO_LOG(ERR, "%s: device needs cuFlushGPUDirectRDMAWrites, driver lacks it",
		       h->conf.name);
		return -ENOTSUP;
	}
	HO_LOG(INFO, "%s: GPU_DIRECT_RDMA_WRITES_ORDERING %d: %s before each ready flag",
	       h->conf.name, ord, h->flush_needed ? "flush" : "no flush");
	return 0;
}

static int
persistent_start(struct gpudp_handoff *h)
{
	struct gpudp_ho_kargs a = h->kargs;
	void *params[] = { &a };
	int ret = gpudp_ho_gpu_enter(h);

	if (ret != 0)
		return ret;
	/* the kernel's slot walk starts at seq 1: no restart after use */
	if (h->head != 0) {
		HO_LOG(ERR, "%s: a persistent handoff cannot restart after use", h->conf.name);
		return -EINVAL;
	}
	__atomic_store_n(h->quit, 0, __ATOMIC_RELEASE);
	/* block 0 dispatches, the others work (gpudp_work_persistent,
	 * gpudp_work_dev.h) */
	CU_DO(h, gpudp_cu->cuLaunchKernel(GPU(h)->f_persistent, h->conf.persistent_blocks + 1,
					  1, 1, h->conf.threads, 1, 1, 0, GPU(h)->stream,
					  params, NULL));
	GPU(h)->persistent_running = 1;
	return 0;
}

static int
persistent_submit(struct gpudp_handoff *h, struct gpudp_ho_burst *b)
{
	uint32_t n = b->n, w;

	if (h->flush_needed) {
		CUresult r = gpudp_ho_gpu_enter(h) != 0 ? CUDA_ERROR_INVALID_CONTEXT :
			gpudp_cu->cuFlushGPUDirectRDMAWrites(
				CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TARGET_CURRENT_CTX,
				CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TO_OWNER);

		if (r != CUDA_SUCCESS) {
			/* the payload may not be visible to the kernel: drop the
			 * burst, but still hand the slot over with no packet, so
			 * the resident block serving it completes it in order
			 * (done stored by the CPU instead would leave that block
			 * waiting for this seq forever) */
			gpudp_ho_gpu_fail(h, "cuFlushGPUDirectRDMAWrites", r);
			memset(h->verdict + (size_t)b->slot * h->conf.burst_max,
			       GPUDP_WORK_DROP_ERROR, b->n);
			n = 0;
		} else {
			h->rx.flushes++;
		}
	}
	/* release: descriptors (addr, len) before the flag, which carries n
	 * too; the kernel reads it with ld.acquire.sys (gpudp_handoff_dev.h) */
	if (b->t_submit != 0)
		n |= GPUDP_HO_READY_TIMED;
	/* write-combined stores are not ordered by a release store: sfence
	 * makes the descriptors visible before the ready word, and the
	 * second one sends the ready word out of the write-combining buffer
	 * now rather than whenever it is evicted */
	rte_wmb();
	for (w = 0; w < h->conf.persistent_pollers; w++)  /* a copy per poller */
		*(volatile uint64_t *)&GPU(h)->ready[w * GPUDP_HO_READY_STRIDE(h->conf.ring_size) +
						     b->slot] = (uint64_t)n << 32 | b->seq;
	rte_wmb();
	return 0;
}

const struct gpudp_ho_ops gpudp_ho_ops_persistent = {
	.name = "persistent",
	.gpu = 1,
	.setup = persistent_setup,
	.start = persistent_start,
	.stop = persistent_stop,
	.teardown = persistent_teardown,
	.check = gpudp_ho_gpu_check,
	.submit = persistent_submit,
	.ready_only = 1,
	.own_desc = 1,
};

#endif /* GPUDP_HAS_CUDA */

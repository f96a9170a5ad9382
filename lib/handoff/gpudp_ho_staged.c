/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpudp_handoff's staged mode (gpudp_handoff.h, doc/ordering.md), on the GPU
 * modes' common part (gpudp_ho_gpu_pvt.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <rte_atomic.h>
#include <rte_common.h>

#ifdef GPUDP_HAS_CUDA

#include "gpudp_ho_gpu_pvt.h"

/* ---- staged: host packets through pinned staging and a copy stream ---- */

static int
staged_setup(struct gpudp_handoff *h)
{
	struct ho_gpu *g;
	size_t total;
	uint32_t i;
	int ret = gpudp_ho_gpu_setup(h);

	if (ret != 0)
		return ret;
	g = GPU(h);
	if (gpudp_cu->cuStreamWaitEvent == NULL)
		return -ENOTSUP;
	g->stage_slot = RTE_ALIGN_CEIL((size_t)h->conf.stage_burst_bytes, 64);
	total = g->stage_slot * h->conf.ring_size;
	/* CPU copies go through pinned host staging; GPU copies need none */
	if (!h->conf.stage_gpu_copy)
		CU_DO(h, gpudp_cu->cuMemAllocHost((void **)&g->stage_h, total));
	CU_DO(h, gpudp_cu->cuMemAlloc(&g->stage_d, total));
	for (i = 0; i < RTE_DIM(g->lane); i++)
		CU_DO(h, gpudp_cu->cuStreamCreate(&g->lane[i], CU_STREAM_NON_BLOCKING));
	g->copied = calloc(h->conf.ring_size, sizeof(*g->copied));
	g->soff = calloc((size_t)h->conf.ring_size * h->conf.burst_max, sizeof(uint32_t));
	if (g->copied == NULL || g->soff == NULL)
		return -ENOMEM;
	for (i = 0; i < h->conf.ring_size; i++)
		CU_DO(h, gpudp_cu->cuEventCreate(&g->copied[i], CU_EVENT_DISABLE_TIMING));
	if (h->conf.stage_gpu_copy) {
		CU_DO(h, gpudp_cu->cuMemAllocHost((void **)&g->src, (size_t)h->conf.ring_size *
						  h->conf.burst_max * sizeof(uint64_t)));
		CU_DO(h, gpudp_cu->cuMemHostGetDevicePointer(&g->src_d, g->src, 0));
		h->kargs.back = g->src_d;
	}
	/* the frames' lengths: the work sees only its span in the staging
	 * buffer, and pkt_len from here */
	{
		CUdeviceptr d;

		CU_DO(h, gpudp_cu->cuMemAllocHost((void **)&g->plen, (size_t)h->conf.ring_size *
						  h->conf.burst_max * sizeof(uint32_t)));
		CU_DO(h, gpudp_cu->cuMemHostGetDevicePointer(&d, g->plen, 0));
		h->kargs.plen = d;
	}
	if (h->conf.stage_gpu_copy && h->conf.meta) {
		/* bursts described in one array: addr, len, plen, meta per packet */
		size_t np = (size_t)h->conf.ring_size * h->conf.burst_max;
		struct gpudp_ho_kargs *a = &g->dkargs;
		/* segs 2: each packet's rest past the span too */
		size_t x = h->conf.segs == 2 ? 8 + 4 : 0;

		CU_DO(h, gpudp_cu->cuMemAlloc(&g->d_desc, np * (8 + 4 + 4 +
						sizeof(struct gpudp_work_meta) + x)));
		*a = h->kargs;
		a->addr = g->d_desc;
		a->meta = a->addr + np * 8;
		a->len = a->meta + np * sizeof(struct gpudp_work_meta);
		a->plen = a->len + np * 4;
		a->xaddr = x != 0 ? a->plen + np * 4 : 0;
		a->xlen = x != 0 ? a->xaddr + np * 8 : 0;
		a->back = 0;
	}
	HO_LOG(DEBUG, "%s: staging copies by the %s", h->conf.name,
	       h->conf.stage_gpu_copy ? "GPU (gather kernel on the copy stream)" : "CPU");
	return 0;
}

/* the stream of a burst's work: one for all when conf.ordered */
static CUstream
work_lane(struct gpudp_handoff *h, const struct gpudp_ho_burst *b)
{
	return GPU(h)->lane[STAGE_LANES + (h->conf.ordered ? 0 : b->slot % STAGE_LANES)];
}

/* stage_gpu_copy: one warp per packet, 8 warps per block */
static int
launch_gather(struct gpudp_handoff *h, uint32_t slot, uint32_t n, CUstream st)
{
	struct ho_gpu *g = GPU(h);
	struct gpudp_ho_kargs a = h->kargs;
	void *params[] = { &a, &g->src_d, &n };

	a.slot = slot;
	CU_DO(h, gpudp_cu->cuLaunchKernel(g->f_gather, RTE_MIN((n + 7) / 8, 256u), 1, 1,
					  256, 1, 1, 0, st, params, NULL));
	return 0;
}

/*
 * A burst described in one array (gpudp_handoff_submit_desc()): the
 * descriptor gather on the copy stream, the work after it on its lane; the
 * kernel stores done (nothing is copied back: the work writes no span).
 */
static int
staged_enqueue_desc(struct gpudp_handoff *h, struct gpudp_ho_burst *b)
{
	struct ho_gpu *g = GPU(h);
	struct gpudp_ho_kargs a = g->dkargs;
	struct gpudp_ho_gather_args ga = {
		.data = b->desc_data_, .desc = (uint64_t)(uintptr_t)b->desc_,
		.stage = g->stage_d + (size_t)b->slot * g->stage_slot,
		.addr = a.addr, .len = a.len, .plen = a.plen, .meta = a.meta,
		.xaddr = a.xaddr, .xlen = a.xlen,
		.data_len = b->desc_len_, .n = b->n, .span = h->work->span,
		.stage_bytes = h->conf.stage_bytes,
	};
	void *params[] = { &a, &ga };
	CUstream cs = g->lane[b->slot % STAGE_LANES];
	CUstream ws = work_lane(h, b);

	a.slot = b->slot;
	CU_DO(h, gpudp_cu->cuLaunchKernel(g->f_gather_desc, RTE_MIN((b->n + 255) / 256, 2048u),
					  1, 1, 256, 1, 1, 0, cs, params, NULL));
	CU_DO(h, gpudp_cu->cuEventRecord(g->copied[b->slot], cs));
	CU_DO(h, gpudp_cu->cuStreamWaitEvent(ws, g->copied[b->slot], 0));
	return gpudp_ho_gpu_launch_args(h, &g->dkargs, b->slot, b->n, 1, ws);
}

/*
 * Copy in on the copy stream (the CPU gathers into pinned staging and an
 * H2D copy follows, or with stage_gpu_copy the gather kernel reads the
 * packets), the kernel ordered after it by an event. CPU copies: a D2H
 * copy of the staging on the kernel's stream for staged_complete's
 * scatter, then a one-thread kernel stores done. GPU copies: the kernel
 * itself writes the headers back into the packets and stores done (two
 * launches fewer per burst).
 */
static int
staged_enqueue(struct gpudp_handoff *h, struct gpudp_ho_burst *b)
{
	struct ho_gpu *g = GPU(h);
	size_t base = (size_t)b->slot * g->stage_slot, off = 0;
	size_t pkt0 = (size_t)b->slot * h->conf.burst_max;
	uint32_t *soff = g->soff + pkt0, i;
	uint64_t *src = g->src != NULL ? g->src + pkt0 : NULL;
	uint32_t *plen = g->plen + pkt0, span = h->work->span, k, nx = b->segs - 1;
	struct gpudp_ho_kargs a = h->kargs;
	void *params[] = { &a };
	/* consecutive bursts on different streams: one's copy overlaps the
	 * previous one's copy and kernel */
	CUstream cs = g->lane[b->slot % STAGE_LANES];
	CUstream ws = work_lane(h, b);
	int ret;

	for (i = 0; i < b->n; i++) {
		uint32_t l = b->len[i];

		/* the packet's CPU address, before addr becomes the staging
		 * buffer's (staged_complete copies back to it) */
		b->data[i] = (void *)(uintptr_t)b->addr[i];
		plen[i] = l;
		/* header/data split: only the first segment is staged; the
		 * others (in GPU memory) are read in place */
		for (k = 0; k < nx && b->xlen[(size_t)i * nx + k] != 0; k++)
			plen[i] += b->xlen[(size_t)i * nx + k];
		if (span != 0 && l > span)
			l = b->len[i] = span;  /* the work's span only */
		if (l > h->conf.stage_bytes || RTE_ALIGN_CEIL(l, 64) > g->stage_slot - off) {
			/* cannot be staged (too long, or the burst's staging
			 * area is full): the work sees an empty first segment
			 * (the built-ins drop it as truncated) */
			soff[i] = UINT32_MAX;
			if (src != NULL)
				src[i] = 0;
			b->addr[i] = g->stage_d + base;
			b->len[i] = 0;
			continue;
		}
		if (src != NULL)
			src[i] = (uint64_t)(uintptr_t)b->data[i];
		else
			memcpy(g->stage_h + base + off, b->data[i], l);
		soff[i] = (uint32_t)off;
		b->addr[i] = g->stage_d + base + off;
		off += RTE_ALIGN_CEIL(l, 64);
	}
	if (off > 0) {
		if (src != NULL) {
			ret = launch_gather(h, b->slot, b->n, cs);
			if (ret != 0)
				return ret;
		} else {
			CU_DO(h, gpudp_cu->cuMemcpyHtoDAsync(g->stage_d + base, g->stage_h + base,
							     off, cs));
		}
		CU_DO(h, gpudp_cu->cuEventRecord(g->copied[b->slot], cs));
		/* the kernel is ordered after the copy on the GPU */
		CU_DO(h, gpudp_cu->cuStreamWaitEvent(ws, g->copied[b->slot], 0));
	}
	if (src != NULL)  /* headers back (kargs.back) and done by the kernel */
		return gpudp_ho_gpu_launch_on(h, b->slot, b->n, 1, ws);
	ret = gpudp_ho_gpu_launch_on(h, b->slot, b->n, 0, ws);
	if (ret != 0)
		return ret;
	if (off > 0)
		CU_DO(h, gpudp_cu->cuMemcpyDtoHAsync(g->stage_h + base, g->stage_d + base,
						     off, ws));
	a.slot = b->slot;
	CU_DO(h, gpudp_cu->cuLaunchKernel(g->f_signal, 1, 1, 1, 1, 1, 1, 0, ws,
					  params, NULL));
	return 0;
}

/* whether the byte at @p a is memory CUDA maps for the GPU (pinned,
 * registered or device memory) */
static int
cuda_mapped(uintptr_t a)
{
	unsigned int type = 0;

	return gpudp_cu->cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
					       (CUdeviceptr)a) == CUDA_SUCCESS &&
		(type == CU_MEMORYTYPE_HOST || type == CU_MEMORYTYPE_DEVICE);
}

/*
 * gpudp_handoff_submit_desc()'s check of its arrays: their first and last
 * bytes are CUDA's. A region found so is remembered (a producer reuses its
 * buffers), so the driver is asked about each buffer once.
 */
static int
staged_readable(struct gpudp_handoff *h, const void *p, size_t len)
{
	struct ho_gpu *g = GPU(h);
	uintptr_t lo = (uintptr_t)p, hi = lo + len;
	uint32_t i;

	for (i = 0; i < g->n_rd; i++)
		if (lo >= g->rd[i].lo && hi <= g->rd[i].hi)
			return 1;
	if (gpudp_ho_gpu_enter(h) != 0 || !cuda_mapped(lo) || !cuda_mapped(hi - 1))
		return 0;
	i = g->n_rd < RTE_DIM(g->rd) ? g->n_rd++ : (uint32_t)(lo / 64 % RTE_DIM(g->rd));
	g->rd[i].lo = lo;
	g->rd[i].hi = hi;
	return 1;
}

/* a failure after something was enqueued: let it finish before the burst
 * is failed and its packets go back to the tx side (a queued copy or
 * kernel may still read or write them) */
static int
staged_submit(struct gpudp_handoff *h, struct gpudp_ho_burst *b)
{
	int ret = gpudp_ho_gpu_enter(h);

	if (ret != 0)
		return ret;
	ret = b->desc_ != NULL ? staged_enqueue_desc(h, b) : staged_enqueue(h, b);
	if (ret != 0)
		gpudp_ho_gpu_stop(h);  /* every stream drained */
	return ret;
}

/* tx thread: the work's write span back into the packets, before anyone
 * reads them */
static void
staged_complete(struct gpudp_handoff *h, struct gpudp_ho_burst *b)
{
	struct ho_gpu *g = GPU(h);
	size_t base = (size_t)b->slot * g->stage_slot;
	const uint32_t *soff = g->soff + (size_t)b->slot * h->conf.burst_max;
	uint32_t i;

	if (g->src != NULL || h->work->wspan == 0)
		return;  /* the GPU copied them back, or the work writes nothing */
	for (i = 0; i < b->n; i++)
		if (soff[i] != UINT32_MAX)
			memcpy(b->data[i], g->stage_h + base + soff[i],
			       RTE_MIN(b->len[i], h->work->wspan));
}

const struct gpudp_ho_ops gpudp_ho_ops_staged = {
	.name = "staged",
	.gpu = 1,
	.setup = staged_setup,
	.stop = gpudp_ho_gpu_stop,
	.teardown = gpudp_ho_gpu_teardown,
	.check = gpudp_ho_gpu_check,
	.submit = staged_submit,
	.complete = staged_complete,
	.whole_frames = 1,
	.gpu_desc = 1,
	.readable = staged_readable,
};

#endif /* GPUDP_HAS_CUDA */

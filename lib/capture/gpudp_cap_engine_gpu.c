/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * GPU engine: the capture analysis as a work (gpudp_analysis_work.h) run
 * by a handoff (lib/handoff, gpudp_handoff.h), the same ring of in-flight
 * bursts, streams and ordering rule that gpudp-fwd's pipelines use. One
 * batch is one burst; conf.inflight batches are in flight.
 *
 * Staged (GPUDP_CAP_MEM_STAGED): the caller copies packets into the slot's data
 * area, in pinned host memory (16-byte aligned). submit describes each
 * packet to the handoff (its address there, its length, its metadata:
 * timestamp and original length) and submits the burst in the handoff's
 * staged mode: a gather kernel copies the packets into GPU staging on a
 * copy stream, and the work's kernel runs after the copy.
 *
 * In place (GPUDP_CAP_MEM_HOST, GPUDP_CAP_MEM_DEVICE): the packets stay in the mbufs the
 * PMD filled; the burst describes them where they are and runs in the
 * handoff's launch mode: the kernel reads each packet at its address
 * (device memory, or registered host memory through unified addressing).
 * submit is called after rx_burst returned every packet of the batch, so
 * the launch is a CPU-initiated CUDA submission after the NIC's writes, as
 * launch mode requires (doc/ordering.md). When the batch is done, matching
 * packets in device memory are copied to the slot's host area
 * (cuMemcpyDtoHAsync on a copy stream, and a sync of that stream only),
 * the done callback runs, and only then are the owners (mbufs) given back
 * through conf.release.
 *
 * The work's verdicts are the filter's matches (GPUDP_WORK_PASS: match):
 * they become the batch's match bitmap. Flow and fragment tables live in
 * GPU memory (the work's parameters) and accumulate over the run; the
 * counters are the work's, summed by the handoff. The CUDA context is the
 * caller's (conf.cu_ctx: gpudev's in gpudp-capture) or the GPU's primary
 * context.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_bitops.h>
#include <rte_common.h>
#include <rte_errno.h>
#include <rte_pause.h>

#include "gpudp_analysis_work.h"
#include "gpudp_cuda.h"
#include "gpudp_handoff.h"
#include "gpudp_cap_engine.h"

/* what the kernel reads per packet besides its bytes: address, length, metadata */
#define DESC_BYTES (sizeof(uint64_t) + sizeof(uint32_t) + sizeof(struct gpudp_work_meta))
/* the handoff's GPU clock model is measured again this often (ns) */
#define CLOCK_SYNC_NS 100000000ull

/* staged batches go to the handoff as they are (gpudp_handoff_submit_desc()) */
_Static_assert(sizeof(struct gpudp_an_pkt_desc) == sizeof(struct gpudp_ho_desc) &&
	       offsetof(struct gpudp_an_pkt_desc, off) == offsetof(struct gpudp_ho_desc, off) &&
	       offsetof(struct gpudp_an_pkt_desc, caplen) == offsetof(struct gpudp_ho_desc, len) &&
	       offsetof(struct gpudp_an_pkt_desc, wirelen) ==
	       offsetof(struct gpudp_ho_desc, wire_len) &&
	       offsetof(struct gpudp_an_pkt_desc, pad) == offsetof(struct gpudp_ho_desc, mark) &&
	       offsetof(struct gpudp_an_pkt_desc, ts_ns) == offsetof(struct gpudp_ho_desc, ts_ns),
	       "a staged batch's descriptors are the handoff's");
_Static_assert(sizeof(struct gpudp_an_counters) == GPUDP_AN_WORK_COUNTERS * sizeof(uint64_t),
	       "the work's counters are struct gpudp_an_counters");

struct gpu_slot {
	struct gpudp_cap_batch b;
	struct gpudp_ho_burst *hb;  /* the handoff's burst while in flight */
	int dead;                   /* its submission failed: the caller freed the packets */
};

struct gpu_priv {
	CUdevice dev;
	CUcontext ctx;
	int retained;            /* primary context retained here */
	struct gpudp_handoff *ho;
	CUstream copy_stream;    /* GPUDP_CAP_MEM_DEVICE: matches copied out of GPU memory */
	CUdeviceptr d_flows, d_filter, d_frags;
	CUdeviceptr d_match, d_match_cnt;  /* payload inspection: database, counts */
	uint32_t frag_capacity;
	int shared;              /* the tables are conf.share's (not freed here) */
	uint32_t span;           /* staged: the work's span (the rest of a frame stays put) */
	uint8_t *pinned;         /* staged: the slots' data areas; device: their copy-out areas */
	struct gpudp_an_pkt_desc *pdesc; /* staged: the slots' descriptors (pinned) */
	uint32_t n_slots, next, oldest, n_inflight;
	uint64_t clk_t;          /* when the clock model was last measured */
	struct gpu_slot *slots;
};

#define CU(e, call) do { \
	CUresult r_ = (call); \
	if (r_ != CUDA_SUCCESS) { \
		snprintf((e)->err, sizeof((e)->err), "%s: %s", #call, gpudp_cuda_errstr(r_)); \
		return -EIO; \
	} \
} while (0)

static void
gpu_fini(struct gpudp_cap_engine *e)
{
	struct gpu_priv *p = e->priv;
	uint32_t i;

	if (p == NULL)
		return;
	if (p->ctx != NULL)
		gpudp_cu->cuCtxSetCurrent(p->ctx);
	/* waits for everything submitted: no kernel reads a packet after this */
	gpudp_handoff_destroy(p->ho);
	if (p->copy_stream != NULL) {
		gpudp_cu->cuStreamSynchronize(p->copy_stream);
		gpudp_cu->cuStreamDestroy(p->copy_stream);
	}
	for (i = 0; p->slots != NULL && i < p->n_slots; i++) {
		struct gpu_slot *s = &p->slots[i];

		/* a failed engine: the owners go back all the same */
		if (s->hb != NULL && !s->dead && s->b.inplace && s->b.n > 0)
			e->conf.release(e->conf.done_arg, s->b.owner, s->b.n);
		gpudp_cap_batch_arrays_free(&s->b, 0);
	}
	free(p->slots);
	if (p->pinned != NULL)
		gpudp_cu->cuMemFreeHost(p->pinned);
	if (p->pdesc != NULL)
		gpudp_cu->cuMemFreeHost(p->pdesc);
	if (!p->shared) {
		if (p->d_flows != 0)
			gpudp_cu->cuMemFree(p->d_flows);
		if (p->d_filter != 0)
			gpudp_cu->cuMemFree(p->d_filter);
		if (p->d_frags != 0)
			gpudp_cu->cuMemFree(p->d_frags);
		if (p->d_match != 0)
			gpudp_cu->cuMemFree(p->d_match);
		if (p->d_match_cnt != 0)
			gpudp_cu->cuMemFree(p->d_match_cnt);
	}
	if (p->retained)
		gpudp_cu->cuDevicePrimaryCtxRelease(p->dev);
	free(p);
	e->priv = NULL;
}

/* the context: the caller's (gpudev's), or the GPU's primary one */
static int
gpu_context(struct gpudp_cap_engine *e)
{
	struct gpu_priv *p = e->priv;
	char name[64], bus[32];
	int n_dev = 0;

	if (e->conf.cu_ctx != 0) {
		p->ctx = (CUcontext)(uintptr_t)e->conf.cu_ctx;
		CU(e, gpudp_cu->cuCtxSetCurrent(p->ctx));
		CU(e, gpudp_cu->cuCtxGetDevice(&p->dev));
	} else {
		CU(e, gpudp_cu->cuDeviceGetCount(&n_dev));
		if (e->conf.gpu_device < 0 || e->conf.gpu_device >= n_dev) {
			snprintf(e->err, sizeof(e->err), "GPU %d does not exist (%d GPU%s found)",
				 e->conf.gpu_device, n_dev, n_dev == 1 ? "" : "s");
			return -ENODEV;
		}
		CU(e, gpudp_cu->cuDeviceGet(&p->dev, e->conf.gpu_device));
		CU(e, gpudp_cu->cuDevicePrimaryCtxRetain(&p->ctx, p->dev));
		p->retained = 1;
		CU(e, gpudp_cu->cuCtxSetCurrent(p->ctx));
	}
	CU(e, gpudp_cu->cuDeviceGetName(name, sizeof(name), p->dev));
	if (gpudp_cu->cuDeviceGetPCIBusId(bus, sizeof(bus), p->dev) != CUDA_SUCCESS)
		snprintf(bus, sizeof(bus), "?");
	snprintf(e->st.device, sizeof(e->st.device), "GPU %d: %s (%s)", (int)p->dev, name, bus);
	if (e->conf.mem == GPUDP_CAP_MEM_HOST) {
		int uva = 0, hostptr = 0;

		CU(e, gpudp_cu->cuDeviceGetAttribute(&uva, CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING,
						     p->dev));
		CU(e, gpudp_cu->cuDeviceGetAttribute(&hostptr,
			CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM, p->dev));
		if (!uva || !hostptr) {
			snprintf(e->err, sizeof(e->err), "GPU %d cannot read registered host "
				 "memory at its host address (unified addressing %d, host pointer "
				 "for registered memory %d)", (int)p->dev, uva, hostptr);
			return -ENOTSUP;
		}
	}
	return 0;
}

/* payload inspection: the database and the per-pattern counts in GPU memory */
static int
gpu_match_tables(struct gpudp_cap_engine *e)
{
	struct gpu_priv *p = e->priv;
	const struct gpudp_match_db *db = e->conf.match;
	size_t cnt_bytes;

	if (db == NULL)
		return 0;
	cnt_bytes = 2 * sizeof(uint64_t) * db->n_patterns;
	CU(e, gpudp_cu->cuMemAlloc(&p->d_match, db->size));
	CU(e, gpudp_cu->cuMemAlloc(&p->d_match_cnt, cnt_bytes));
	CU(e, gpudp_cu->cuMemcpyHtoD(p->d_match, db, db->size));
	CU(e, gpudp_cu->cuMemsetD8(p->d_match_cnt, 0, cnt_bytes));
	return 0;
}

/* the work's parameters: where the tables are (its own, or the owner's) */
static void
gpu_params(struct gpudp_cap_engine *e, struct gpudp_an_work_params *prm)
{
	struct gpu_priv *p = e->priv;

	memset(prm, 0, sizeof(*prm));
	prm->flows = p->d_flows;
	prm->frags = p->d_frags;
	prm->filter = p->d_filter;
	prm->flow_mask = e->conf.flow_capacity - 1;
	prm->frag_mask = p->frag_capacity - 1;
	if (p->d_match != 0) {
		prm->match = p->d_match;
		prm->match_occ = p->d_match_cnt;
		prm->match_pkts = p->d_match_cnt + sizeof(uint64_t) * e->conf.match->n_patterns;
		prm->match_flags = e->conf.match_flags;
	}
}

/* the per-pattern counts read back into @p out (which has the database) */
static int
gpu_match_collect(struct gpudp_cap_engine *e, struct gpudp_analysis *out)
{
	struct gpu_priv *p = e->priv;
	uint32_t n;
	uint64_t *cnt;
	int rc = 0;

	if (p->d_match_cnt == 0 || out->match == NULL)
		return 0;
	n = e->conf.match->n_patterns;
	cnt = malloc(2 * sizeof(uint64_t) * n);
	if (cnt == NULL)
		return -ENOMEM;
	if (gpudp_cu->cuMemcpyDtoH(cnt, p->d_match_cnt, 2 * sizeof(uint64_t) * n) !=
	    CUDA_SUCCESS) {
		snprintf(e->err, sizeof(e->err), "reading the GPU's match counts failed");
		rc = -EIO;
	} else {
		gpudp_analysis_merge_match(out, cnt, cnt + n);
	}
	free(cnt);
	return rc;
}

/* conf.share: the owner's tables (the same context, shapes and settings) */
static int
gpu_tables_shared(struct gpudp_cap_engine *e, struct gpudp_an_work_params *prm)
{
	struct gpu_priv *p = e->priv;
	const struct gpudp_cap_engine *o = e->conf.share;
	const struct gpu_priv *q = o->priv;

	if (o->ops != &gpudp_cap_engine_gpu_ops || q == NULL || q->shared || q->ctx != p->ctx ||
	    o->conf.flow_capacity != e->conf.flow_capacity || o->conf.match != e->conf.match ||
	    o->conf.match_flags != e->conf.match_flags ||
	    memcmp(&o->conf.filter, &e->conf.filter, sizeof(e->conf.filter)) != 0) {
		snprintf(e->err, sizeof(e->err), "cannot share the tables of an engine of "
			 "another GPU context or configuration");
		return -EINVAL;
	}
	p->shared = 1;
	p->frag_capacity = q->frag_capacity;
	p->d_flows = q->d_flows;
	p->d_frags = q->d_frags;
	p->d_filter = q->d_filter;
	p->d_match = q->d_match;
	p->d_match_cnt = q->d_match_cnt;
	gpu_params(e, prm);
	return 0;
}

/* the analysis tables in GPU memory: the work's parameters */
static int
gpu_tables(struct gpudp_cap_engine *e, struct gpudp_an_work_params *prm)
{
	struct gpu_priv *p = e->priv;
	size_t flows_bytes = sizeof(struct gpudp_flow_slot) * (size_t)e->conf.flow_capacity;
	size_t frags_bytes;

	if (e->conf.share != NULL)
		return gpu_tables_shared(e, prm);
	p->frag_capacity = gpudp_analysis_frag_capacity(e->conf.flow_capacity);
	frags_bytes = sizeof(struct gpudp_frag_slot) * (size_t)p->frag_capacity;
	CU(e, gpudp_cu->cuMemAlloc(&p->d_flows, flows_bytes));
	CU(e, gpudp_cu->cuMemAlloc(&p->d_filter, sizeof(struct gpudp_filter)));
	CU(e, gpudp_cu->cuMemAlloc(&p->d_frags, frags_bytes));
	CU(e, gpudp_cu->cuMemsetD8(p->d_flows, 0, flows_bytes));
	CU(e, gpudp_cu->cuMemsetD8(p->d_frags, 0, frags_bytes));
	CU(e, gpudp_cu->cuMemcpyHtoD(p->d_filter, &e->conf.filter, sizeof(struct gpudp_filter)));
	if (gpu_match_tables(e) != 0)
		return -EIO;
	gpu_params(e, prm);
	return 0;
}

/* the handoff that runs the work: staged or launch mode, one burst per batch */
static int
gpu_handoff(struct gpudp_cap_engine *e, const struct gpudp_an_work_params *prm, uint32_t data_cap)
{
	struct gpu_priv *p = e->priv;
	/* only the headers are staged, unless the payload is inspected */
	const struct gpudp_work *w = e->conf.match != NULL ? gpudp_analysis_work_payload() :
		gpudp_analysis_work();
	int staged = e->conf.mem == GPUDP_CAP_MEM_STAGED ||
		(e->conf.mem == GPUDP_CAP_MEM_HOST && e->conf.gather);
	struct gpudp_handoff_conf hc = {
		.name = "capture",
		.mode = staged ? GPUDP_HO_STAGED : GPUDP_HO_LAUNCH,
		/* staged: a frame past the span keeps the rest where it lies, as
		 * its second segment (gpudp_analysis_work.h) */
		.segs = staged ? 2 : 1,
		.work = w, .params = prm, .meta = 1,
		.ring_size = (uint32_t)rte_align32pow2(RTE_MAX(e->conf.inflight, 2u)),
		.burst_max = e->conf.batch_pkts,
		/* a packet may fill the batch; each takes its bytes rounded up
		 * to 64 in the staging area */
		.stage_bytes = RTE_MAX(data_cap, 64u),
		.stage_burst_bytes = data_cap + e->conf.batch_pkts * 64,
		.stage_gpu_copy = 1,
		.cu_ctx = (uint64_t)(uintptr_t)p->ctx,
		.lat_sample = 1,
	};

	if (w == NULL) {
		snprintf(e->err, sizeof(e->err), "cannot register the analysis work");
		return -EINVAL;
	}
	p->span = staged ? w->span : 0;
	p->ho = gpudp_handoff_create(&hc);
	if (p->ho == NULL) {
		snprintf(e->err, sizeof(e->err), "cannot create the handoff (mode %s): %s",
			 gpudp_ho_mode_name(hc.mode), rte_strerror(rte_errno));
		return -rte_errno;
	}
	p->clk_t = gpudp_ho_now_ns();
	if (gpudp_handoff_start(p->ho) != 0) {
		snprintf(e->err, sizeof(e->err), "cannot start the handoff");
		return -EIO;
	}
	return 0;
}

static int
gpu_setup(struct gpudp_cap_engine *e)
{
	struct gpu_priv *p = e->priv;
	struct gpudp_an_work_params prm;
	/* the staging area of a burst holds the batch's bytes, each packet
	 * rounded up to 64 */
	uint32_t data_cap = (uint32_t)RTE_MIN((uint64_t)e->conf.batch_bytes,
					      GPUDP_HO_STAGE_MAX - 64ull * e->conf.batch_pkts) & ~63u;
	uint32_t i;
	int rc;

	if (e->conf.batch_pkts > GPUDP_HO_BATCH_MAX || data_cap < 64) {
		snprintf(e->err, sizeof(e->err), "batches of %u packets: at most %u on the GPU",
			 e->conf.batch_pkts, GPUDP_HO_BATCH_MAX);
		return -EINVAL;
	}
	rc = gpu_context(e);
	if (rc == 0)
		rc = gpu_tables(e, &prm);
	if (rc == 0 && e->conf.mem == GPUDP_CAP_MEM_DEVICE)
		CU(e, gpudp_cu->cuStreamCreate(&p->copy_stream, CU_STREAM_NON_BLOCKING));
	if (rc != 0)
		return rc;
	p->n_slots = e->conf.inflight;
	p->slots = calloc(p->n_slots, sizeof(*p->slots));
	if (p->slots == NULL) {
		snprintf(e->err, sizeof(e->err), "out of memory");
		return -ENOMEM;
	}
	/* staged: the packets, read by the handoff's gather kernel; device
	 * in place: the matches copied out */
	if (e->conf.mem != GPUDP_CAP_MEM_HOST)
		CU(e, gpudp_cu->cuMemAllocHost((void **)&p->pinned,
					       (size_t)p->n_slots * data_cap));
	/* staged: the descriptors too, which the GPU reads as they are */
	if (e->conf.mem == GPUDP_CAP_MEM_STAGED)
		CU(e, gpudp_cu->cuMemAllocHost((void **)&p->pdesc, (size_t)p->n_slots *
					       e->conf.batch_pkts * sizeof(*p->pdesc)));
	for (i = 0; i < p->n_slots; i++) {
		struct gpu_slot *s = &p->slots[i];
		struct gpudp_cap_engine_conf c = e->conf;

		uint8_t *data = p->pinned != NULL ? p->pinned + (size_t)i * data_cap : NULL;
		struct gpudp_an_pkt_desc *desc = p->pdesc != NULL ?
			p->pdesc + (size_t)i * e->conf.batch_pkts : NULL;

		c.batch_bytes = data_cap;
		if (gpudp_cap_batch_arrays_alloc(&s->b, &c, data, desc) != 0) {
			snprintf(e->err, sizeof(e->err), "out of memory");
			return -ENOMEM;
		}
		s->b.data = data;
		s->b.data_cap = data_cap;
		s->b.slot = i;
	}
	return gpu_handoff(e, &prm, data_cap);
}

static int
gpu_init(struct gpudp_cap_engine *e, char *err, size_t errlen)
{
	int rc = gpudp_cuda_init();

	if (rc != 0) {
		snprintf(err, errlen, "no usable GPU: %s", gpudp_cuda_last_error());
		return rc;
	}
	e->priv = calloc(1, sizeof(struct gpu_priv));
	if (e->priv == NULL) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	rc = gpu_setup(e);
	if (rc != 0) {
		snprintf(err, errlen, "%s", e->err);
		gpu_fini(e);
	}
	return rc;
}

/*
 * In place, a finished slot: the host view of each packet. Host memory:
 * the packet itself. Device memory: only the matching packets, copied into
 * the slot's host area (the CPU never reads the rest) on the copy stream,
 * so that only that copy is waited for, not the batches queued behind it.
 */
static int
inplace_views(struct gpudp_cap_engine *e, struct gpu_slot *s)
{
	struct gpu_priv *p = e->priv;
	struct gpudp_cap_batch *b = &s->b;
	uint32_t i, off = 0;

	for (i = 0; i < b->n; i++) {
		const struct gpudp_an_pkt_ref *r = &b->ref[i];

		if (e->conf.mem == GPUDP_CAP_MEM_HOST) {
			b->view[i] = (const uint8_t *)(uintptr_t)r->addr;
			continue;
		}
		b->view[i] = NULL;
		if (!gpudp_cap_batch_matched(b, i) || r->caplen > b->data_cap - off)
			continue;
		CU(e, gpudp_cu->cuMemcpyDtoHAsync(b->data + off, (CUdeviceptr)r->addr, r->caplen,
						  p->copy_stream));
		b->view[i] = b->data + off;
		off += r->caplen;
	}
	if (off > 0) {
		CU(e, gpudp_cu->cuStreamSynchronize(p->copy_stream));
		e->st.copy_out_bytes += off;
	}
	return 0;
}

/* the filter's verdicts as the batch's match bitmap */
static void
match_bitmap(struct gpudp_cap_batch *b, const struct gpudp_ho_burst *hb)
{
	uint32_t i, words = (b->n + 31) / 32;

	b->n_match = hb->n_pass;
	if (hb->n_pass == hb->n) {  /* every packet matched: no verdict was written */
		memset(b->match, 0xff, words * sizeof(uint32_t));
		if (b->n % 32 != 0)
			b->match[words - 1] = (1u << (b->n % 32)) - 1;
		return;
	}
	memset(b->match, 0, words * sizeof(uint32_t));
	if (hb->n_pass == 0)
		return;
	for (i = 0; i < b->n; i++)
		if (hb->verdict[i] == GPUDP_WORK_PASS)
			b->match[i / 32] |= 1u << (i % 32);
}

/* Wait for the oldest in-flight batch, run its callbacks, free its slot. */
static int
gpu_complete_oldest(struct gpudp_cap_engine *e)
{
	struct gpu_priv *p = e->priv;
	struct gpu_slot *s = &p->slots[p->oldest];
	struct gpudp_ho_burst *hb;
	uint64_t now;

	hb = gpudp_handoff_completed(p->ho);
	if (hb == NULL) {
		now = gpudp_ho_now_ns();
		while ((hb = gpudp_handoff_completed(p->ho)) == NULL)
			rte_pause();
		e->st.wait_ms += (double)(gpudp_ho_now_ns() - now) / 1e6;
	}
	if (hb != s->hb) {
		snprintf(e->err, sizeof(e->err), "the handoff completed batches out of order");
		return -EIO;
	}
	if (!s->dead && gpudp_handoff_failed(p->ho) != 0) {
		snprintf(e->err, sizeof(e->err), "%s", gpudp_handoff_error(p->ho));
		return -EIO;
	}
	if (!s->dead) {
		match_bitmap(&s->b, hb);
		if (s->b.inplace) {
			int rc = inplace_views(e, s);

			if (rc != 0)
				return rc;
		}
		if (e->conf.done != NULL)
			e->conf.done(e->conf.done_arg, &s->b);
		/* the kernel that read these buffers is complete: give them back */
		if (s->b.inplace)
			e->conf.release(e->conf.done_arg, s->b.owner, s->b.n);
	}
	gpudp_handoff_release(p->ho, hb);
	s->hb = NULL;
	s->dead = 0;
	s->b.n = 0;
	p->oldest = (p->oldest + 1) % p->n_slots;
	p->n_inflight--;
	now = gpudp_ho_now_ns();
	if (now - p->clk_t >= CLOCK_SYNC_NS) {
		/* the GPU clock drifts from the CPU's: busy_ms maps one onto the other */
		gpudp_handoff_clock_sync(p->ho);
		p->clk_t = now;
	}
	return 0;
}

static struct gpudp_cap_batch *
gpu_get_batch(struct gpudp_cap_engine *e)
{
	struct gpu_priv *p = e->priv;
	struct gpu_slot *s = &p->slots[p->next];

	if (s->hb != NULL && gpu_complete_oldest(e) != 0)
		return NULL;
	gpudp_cap_batch_reset(&s->b);
	return &s->b;
}

/*
 * One frame of @p len bytes at @p d: staged (@p span, the work's span, not
 * 0) as its span, then the rest where it lies (gpudp_analysis_work.h);
 * else whole.
 */
static inline void
burst_add_frame(struct gpudp_ho_burst *hb, uint32_t span, uint8_t *d, uint32_t len)
{
	if (span == 0 || len <= span) {
		gpudp_ho_burst_add(hb, d, len, NULL);
		return;
	}
	gpudp_ho_burst_add(hb, d, span, NULL);
	gpudp_ho_burst_seg(hb, hb->n - 1, 1, d + span, len - span);
}

/*
 * Describe the batch's packets to a handoff burst and submit it. A failed
 * submission leaves nothing on the GPU that reads the packets (the handoff
 * drains what it had queued for the burst) and the caller gives them back;
 * the burst still completes, as an error, and is skipped then.
 */
static int
gpu_submit(struct gpudp_cap_engine *e, struct gpudp_cap_batch *b)
{
	struct gpu_priv *p = e->priv;
	struct gpu_slot *s = &p->slots[b->slot];
	struct gpudp_ho_burst *hb;
	uint64_t t0;
	uint32_t i;
	int rc;

	if (b->n == 0)
		return 0;
	t0 = gpudp_ho_now_ns();
	if (b != &s->b || b->slot != p->next || s->hb != NULL) {
		snprintf(e->err, sizeof(e->err), "batch submitted out of order");
		return -EINVAL;
	}
	hb = gpudp_handoff_acquire(p->ho);
	if (hb == NULL) {
		snprintf(e->err, sizeof(e->err), "no free handoff slot");
		return -EIO;
	}
	/* staged: the descriptors as they are, the GPU gathers (else each
	 * packet described to the handoff) */
	rc = b->inplace ? -ENOTSUP :
		gpudp_handoff_submit_desc(p->ho, hb, b->data, RTE_ALIGN_CEIL(b->data_used, 16),
					  (const struct gpudp_ho_desc *)b->desc, b->n);
	if (rc == -EINVAL && b->own_data != NULL) {
		/* lent bytes (gpudp_cap_batch_lend()) that the GPU cannot read: each
		 * packet described would fault its copy just the same */
		snprintf(e->err, sizeof(e->err), "a batch's bytes at %p are not memory the GPU "
			 "can read (pin them, or register them: gpudp_cap_engine_host_register())",
			 (void *)b->data);
		return -EINVAL;
	}
	if (rc != -ENOTSUP && rc != -EINVAL)
		goto submitted;
	for (i = 0; i < b->n; i++) {
		struct gpudp_work_meta *m = &hb->meta[i];

		if (b->inplace) {
			const struct gpudp_an_pkt_ref *r = &b->ref[i];

			burst_add_frame(hb, p->span, (uint8_t *)(uintptr_t)r->addr, r->caplen);
			m->ts_ns = r->ts_ns;
			m->wire_len = r->wirelen;
		} else {
			const struct gpudp_an_pkt_desc *d = &b->desc[i];

			burst_add_frame(hb, p->span, b->data + d->off, d->caplen);
			m->ts_ns = d->ts_ns;
			m->wire_len = d->wirelen;
		}
		m->mark = 0;
	}
	rc = gpudp_handoff_submit(p->ho, hb);
submitted:
	s->hb = hb;
	p->n_inflight++;
	p->next = (p->next + 1) % p->n_slots;
	if (rc != 0) {
		s->dead = 1;
		snprintf(e->err, sizeof(e->err), "the GPU submission of a batch failed: %s",
			 gpudp_handoff_error(p->ho));
		return -EIO;
	}
	e->st.pkts += b->n;
	e->st.bytes += b->cap_bytes;
	/* staged: the descriptors and each frame's span (at most: the GPU
	 * copies the span of each, counted here as its bound) */
	e->st.copy_bytes += (b->inplace ? DESC_BYTES : sizeof(struct gpudp_ho_desc)) * b->n +
		(b->inplace ? 0 : p->span == 0 ? b->cap_bytes :
		 RTE_MIN((uint64_t)b->cap_bytes, (uint64_t)p->span * b->n));
	e->st.batches++;
	e->st.submit_ms += (double)(gpudp_ho_now_ns() - t0) / 1e6;
	return 0;
}

/* busy and kernel time from the handoff's histograms (every batch is timed) */
static void
gpu_times(struct gpudp_cap_engine *e)
{
	struct gpu_priv *p = e->priv;
	struct gpudp_handoff_stats hs;

	gpudp_handoff_stats_get(p->ho, &hs);
	e->st.busy_ms = (double)hs.lat_kend.sum_ns / 1e6;
	e->st.kernel_ms = (double)(hs.lat_kend.sum_ns - RTE_MIN(hs.lat_kstart.sum_ns,
								  hs.lat_kend.sum_ns)) / 1e6;
}

static int
gpu_flush(struct gpudp_cap_engine *e)
{
	struct gpu_priv *p = e->priv;
	int rc;

	while (p->n_inflight > 0) {
		rc = gpu_complete_oldest(e);
		if (rc != 0)
			return rc;
	}
	gpu_times(e);
	return 0;
}

static int
gpu_reap(struct gpudp_cap_engine *e)
{
	struct gpu_priv *p = e->priv;
	int rc;

	if (p->n_inflight == 0)
		return 0;
	rc = gpu_complete_oldest(e);
	return rc == 0 ? 1 : rc;
}

/*
 * The tables read back straight into @p out's, which have their shapes: the
 * GPU's are laid out as the host's, filled by the same code
 * (gpudp_analysis_pkt.h's lookups and hash), so they need no merge.
 */
static int
gpu_collect_in_place(struct gpudp_cap_engine *e, struct gpudp_analysis *out,
		     const struct gpudp_an_counters *ctr)
{
	struct gpu_priv *p = e->priv;

	if (gpudp_cu->cuMemcpyDtoH(out->flows, p->d_flows, sizeof(*out->flows) *
				   (size_t)e->conf.flow_capacity) != CUDA_SUCCESS ||
	    gpudp_cu->cuMemcpyDtoH(out->frags, p->d_frags, sizeof(*out->frags) *
				   (size_t)p->frag_capacity) != CUDA_SUCCESS) {
		snprintf(e->err, sizeof(e->err), "reading the GPU results failed");
		return -EIO;
	}
	memcpy(&out->ctr, ctr, sizeof(*ctr));
	if (out->match != NULL) {
		memset(out->match_occ, 0, sizeof(uint64_t) * out->match->n_patterns);
		memset(out->match_pkts, 0, sizeof(uint64_t) * out->match->n_patterns);
	}
	return gpu_match_collect(e, out) != 0 ? -EIO : 0;
}

static int
gpu_collect(struct gpudp_cap_engine *e, struct gpudp_analysis *out)
{
	struct gpu_priv *p = e->priv;
	struct gpudp_handoff_stats hs;
	struct gpudp_an_counters ctr;
	struct gpudp_flow_slot *flows;
	struct gpudp_frag_slot *frags;
	size_t n = e->conf.flow_capacity, nd = p->frag_capacity;
	int rc = gpu_flush(e);

	if (rc != 0)
		return rc;
	gpudp_handoff_stats_get(p->ho, &hs);
	memcpy(&ctr, hs.counters, sizeof(ctr));
	if (p->shared) {  /* the counters only: the owner gives the tables */
		memcpy(&out->ctr, &ctr, sizeof(ctr));
		return 0;
	}
	if (gpudp_cu->cuCtxSetCurrent(p->ctx) != CUDA_SUCCESS)
		return -EIO;
	if (out->flow_mask + 1 == n && out->frag_mask + 1 == nd)
		return gpu_collect_in_place(e, out, &ctr);
	flows = malloc(n * sizeof(*flows));
	frags = malloc(nd * sizeof(*frags));
	if (flows == NULL || frags == NULL) {
		free(flows);
		free(frags);
		return -ENOMEM;
	}
	if (gpudp_cu->cuMemcpyDtoH(flows, p->d_flows, n * sizeof(*flows)) != CUDA_SUCCESS ||
	    gpudp_cu->cuMemcpyDtoH(frags, p->d_frags, nd * sizeof(*frags)) != CUDA_SUCCESS) {
		snprintf(e->err, sizeof(e->err), "reading the GPU results failed");
		free(flows);
		free(frags);
		return -EIO;
	}
	gpudp_analysis_reset(out);
	rc = gpudp_analysis_merge(out, &ctr, flows, (uint32_t)n);
	if (gpudp_analysis_merge_frags(out, frags, (uint32_t)nd) != 0)
		rc = -ENOSPC;
	free(flows);
	free(frags);
	if (gpu_match_collect(e, out) != 0)
		return -EIO;
	return rc;
}

static int
gpu_host_register(struct gpudp_cap_engine *e, const void *addr, size_t len)
{
	struct gpu_priv *p = e->priv;
	int ro = 0;

	CU(e, gpudp_cu->cuCtxSetCurrent(p->ctx));
	CU(e, gpudp_cu->cuDeviceGetAttribute(&ro,
		CU_DEVICE_ATTRIBUTE_READ_ONLY_HOST_REGISTER_SUPPORTED, p->dev));
	if (!ro) {
		snprintf(e->err, sizeof(e->err), "GPU %d cannot register read-only host memory",
			 (int)p->dev);
		return -ENOTSUP;
	}
	CU(e, gpudp_cu->cuMemHostRegister((void *)(uintptr_t)addr, len,
					  CU_MEMHOSTREGISTER_PORTABLE |
					  CU_MEMHOSTREGISTER_READ_ONLY));
	return 0;
}

static void
gpu_host_unregister(struct gpudp_cap_engine *e, const void *addr)
{
	struct gpu_priv *p = e->priv;

	gpudp_cu->cuCtxSetCurrent(p->ctx);
	gpudp_cu->cuMemHostUnregister((void *)(uintptr_t)addr);
}

const struct gpudp_cap_engine_ops gpudp_cap_engine_gpu_ops = {
	.name = "gpu",
	.init = gpu_init,
	.get_batch = gpu_get_batch,
	.submit = gpu_submit,
	.flush = gpu_flush,
	.reap = gpu_reap,
	.collect = gpu_collect,
	.fini = gpu_fini,
	.host_register = gpu_host_register,
	.host_unregister = gpu_host_unregister,
};

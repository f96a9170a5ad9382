/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpudp_handoff: the ring of in-flight bursts, its configuration, counters
 * and completion. The modes are ops tables (gpudp_handoff_pvt.h): none and
 * cpu in gpudp_ho_cpu.c, the GPU modes in gpudp_handoff_gpu.c and
 * gpudp_ho_<mode>.c; the latency histograms in gpudp_ho_hist.c, the GPU
 * clock model in gpudp_ho_clock.c.
 */
#include <assert.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <rte_bitops.h>
#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_errno.h>
#include <rte_log.h>

#include "gpudp_handoff_pvt.h"

RTE_LOG_REGISTER(gpudp_ho_logtype, gpudp.handoff, INFO);

static const struct gpudp_ho_ops *const mode_ops[GPUDP_HO_MODE_MAX] = {
	[GPUDP_HO_NONE] = &gpudp_ho_ops_none,
	[GPUDP_HO_CPU] = &gpudp_ho_ops_cpu,
	[GPUDP_HO_LAUNCH] = &gpudp_ho_ops_launch,
	[GPUDP_HO_PERSISTENT] = &gpudp_ho_ops_persistent,
	[GPUDP_HO_GRAPH] = &gpudp_ho_ops_graph,
	[GPUDP_HO_STAGED] = &gpudp_ho_ops_staged,
};

static const char *const mode_names[GPUDP_HO_MODE_MAX] = {
	"none", "cpu", "launch", "persistent", "graph", "staged",
};

/*
 * CLOCK_MONOTONIC, not the TSC: the GPU's %globaltimer is mapped onto this
 * clock by one calibration per handoff, and DPDK's TSC rate may be a
 * nominal figure (CPUID), which would make the mapping drift over a run.
 */
uint64_t
gpudp_ho_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- names ---- */

const char *
gpudp_ho_mode_name(enum gpudp_ho_mode m)
{
	return (unsigned int)m < GPUDP_HO_MODE_MAX ? mode_names[m] : NULL;
}

int
gpudp_ho_mode_parse(const char *s, enum gpudp_ho_mode *m)
{
	unsigned int i;

	for (i = 0; s != NULL && i < GPUDP_HO_MODE_MAX; i++)
		if (strcmp(s, mode_names[i]) == 0) {
			*m = (enum gpudp_ho_mode)i;
			return 0;
		}
	return -EINVAL;
}

int
gpudp_ho_mode_is_gpu(enum gpudp_ho_mode m)
{
	return (unsigned int)m < GPUDP_HO_MODE_MAX && mode_ops[m]->gpu;
}

/* the CPU-written and work-written halves of a slot are separate lines */
static_assert(sizeof(struct gpudp_ho_ctl) == 128, "gpudp_ho_ctl: two cache lines");
static_assert(offsetof(struct gpudp_ho_ctl, done) == 64, "gpudp_ho_ctl: done on line 2");

/* ---- failed bursts ---- */

void
gpudp_ho_fail_burst(struct gpudp_handoff *h, struct gpudp_ho_burst *b, uint8_t why)
{
	struct gpudp_ho_ctl *c = &h->ctl[b->slot];

	memset(h->verdict + (size_t)b->slot * h->conf.burst_max, why, b->n);
	c->t_kstart = cpu_kstart(b);
	c->t_kend = c->t_kstart;
	c->n_pass = 0;
	__atomic_store_n(&c->done, b->seq, __ATOMIC_RELEASE);
}

/* ---- create / destroy ---- */

static int
conf_fill(struct gpudp_handoff_conf *c)
{
	char err[200];
	uint32_t pollers_max;
	int ret;

	if ((unsigned int)c->mode >= GPUDP_HO_MODE_MAX) {
		HO_LOG(ERR, "mode %d out of range", c->mode);
		return -EINVAL;
	}
	if (c->work == NULL)
		c->work = gpudp_work_find("macswap");
	ret = gpudp_work_validate(c->work, err, sizeof(err));
	if (ret != 0) {
		HO_LOG(ERR, "%s: work %s: %s", c->name, gpudp_work_origin(c->work), err);
		return ret == -ENOEXEC ? -ENOEXEC : -EINVAL;
	}
	if (c->segs == 0)
		c->segs = 1;
	if (c->segs > GPUDP_WORK_SEGS_MAX) {
		HO_LOG(ERR, "%u segments per packet: want 1..%d", c->segs, GPUDP_WORK_SEGS_MAX);
		return -EINVAL;
	}
	if (c->ring_size == 0)
		c->ring_size = 64;
	if (c->burst_max == 0)
		c->burst_max = 1024;
	if (c->threads == 0)
		c->threads = 256;
	if (c->graph_batch == 0)
		c->graph_batch = RTE_MIN(8u, c->ring_size);
	/* the blocks a pipeline needs for GPUDP_HO_PIPE_MPPS (doc/fwd.md,
	 * "Sizing a persistent pipeline"): a block holds a burst of b packets
	 * GPUDP_HO_BLOCK_NS + b * GPUDP_HO_BLOCK_PKT_NS, so blocks x b / that
	 * is the pipeline's ceiling; at least 2, at most ring_size */
	if (c->persistent_blocks == 0) {
		uint64_t t = GPUDP_HO_BLOCK_NS + (uint64_t)c->burst_max * GPUDP_HO_BLOCK_PKT_NS;
		uint64_t need = (GPUDP_HO_PIPE_MPPS * t + 1000ull * c->burst_max - 1) /
				(1000ull * c->burst_max);

		c->persistent_blocks = (uint32_t)RTE_MIN(RTE_MAX(need, 2ull),
							 (uint64_t)c->ring_size);
	}
	if (c->persistent_pollers == 0)
		c->persistent_pollers = RTE_MIN(4u, c->threads / 32);
	if (c->stage_bytes == 0)
		c->stage_bytes = 2048;
	if (c->lat_sample == 0)
		c->lat_sample = 1;
	if (!rte_is_power_of_2(c->ring_size) || c->ring_size < 2 ||
	    c->ring_size > GPUDP_HO_RING_MAX) {
		HO_LOG(ERR, "ring size %u: want a power of two 2..%u",
		       c->ring_size, GPUDP_HO_RING_MAX);
		return -EINVAL;
	}
	if (c->burst_max > (c->mode == GPUDP_HO_PERSISTENT ? GPUDP_HO_BURST_MAX :
			    GPUDP_HO_BATCH_MAX)) {
		HO_LOG(ERR, "burst %u: want 1..%u in mode %s", c->burst_max,
		       c->mode == GPUDP_HO_PERSISTENT ? GPUDP_HO_BURST_MAX : GPUDP_HO_BATCH_MAX,
		       mode_names[c->mode]);
		return -EINVAL;
	}
	if (c->threads < 32 || c->threads > 1024 || c->threads % 32 != 0) {
		HO_LOG(ERR, "threads %u: want a multiple of 32 in 32..1024", c->threads);
		return -EINVAL;
	}
	if (c->ring_size % c->graph_batch != 0) {
		HO_LOG(ERR, "graph batch %u does not divide ring size %u",
		       c->graph_batch, c->ring_size);
		return -EINVAL;
	}
	if (c->persistent_blocks > c->ring_size && c->persistent_blocks != GPUDP_HO_BLOCKS_FILL) {
		HO_LOG(ERR, "persistent blocks %u > ring size %u",
		       c->persistent_blocks, c->ring_size);
		return -EINVAL;
	}
	pollers_max = RTE_MIN((uint32_t)GPUDP_HO_POLLERS_MAX, c->threads / 32);
	if (c->persistent_pollers > pollers_max) {
		HO_LOG(ERR, "%u pollers: want 1..%u (at most one per warp of a block of %u "
		       "threads)", c->persistent_pollers, pollers_max, c->threads);
		return -EINVAL;
	}
	if (c->poll_ns > GPUDP_HO_POLL_NS_MAX) {
		HO_LOG(ERR, "GPU poll interval %u ns: want 0..%u", c->poll_ns,
		       GPUDP_HO_POLL_NS_MAX);
		return -EINVAL;
	}
	if (!rte_is_power_of_2(c->lat_sample) || c->lat_sample > GPUDP_HO_RING_MAX) {
		HO_LOG(ERR, "latency sample %u: want a power of two 1..%u",
		       c->lat_sample, GPUDP_HO_RING_MAX);
		return -EINVAL;
	}
	if (c->stage_bytes < 64 || c->stage_bytes > GPUDP_HO_STAGE_MAX) {
		HO_LOG(ERR, "stage bytes %u: want 64..%u", c->stage_bytes, GPUDP_HO_STAGE_MAX);
		return -EINVAL;
	}
	if (c->stage_burst_bytes == 0 &&
	    (uint64_t)c->burst_max * RTE_ALIGN_CEIL((uint64_t)c->stage_bytes, 64) <=
	    GPUDP_HO_STAGE_MAX)
		c->stage_burst_bytes = c->burst_max * RTE_ALIGN_CEIL(c->stage_bytes, 64);
	if (c->stage_burst_bytes < 64 || c->stage_burst_bytes > GPUDP_HO_STAGE_MAX) {
		HO_LOG(ERR, "stage bytes per burst %u (burst %u x stage bytes %u): want "
		       "64..%u", c->stage_burst_bytes, c->burst_max, c->stage_bytes,
		       GPUDP_HO_STAGE_MAX);
		return -EINVAL;
	}
	return 0;
}

static int
shared_alloc(struct gpudp_handoff *h)
{
	size_t r = h->conf.ring_size, bm = h->conf.burst_max, off = 0;
	size_t nd = h->ops->own_desc ? 0 : r * bm;  /* descriptors here */
	size_t nx = h->conf.segs > 1 ? r * bm * (h->conf.segs - 1) : 0;
	size_t nm = h->conf.meta ? r * bm : 0;
	size_t o_ctl, o_addr, o_len, o_verdict, o_result, o_cnt, o_xaddr, o_xlen, o_meta, o_quit;

#define HO_PLACE(o, bytes) do { o = off; off = RTE_ALIGN_CEIL(off + (bytes), 64); } while (0)
	HO_PLACE(o_ctl, r * sizeof(struct gpudp_ho_ctl));
	HO_PLACE(o_addr, nd * sizeof(uint64_t));
	HO_PLACE(o_len, nd * sizeof(uint32_t));
	HO_PLACE(o_verdict, r * bm);
	HO_PLACE(o_result, r * bm * h->work->result_size);
	HO_PLACE(o_cnt, r * GPUDP_WORK_COUNTERS_MAX * sizeof(uint64_t));
	HO_PLACE(o_xaddr, nx * sizeof(uint64_t));
	HO_PLACE(o_xlen, nx * sizeof(uint32_t));
	HO_PLACE(o_meta, nm * sizeof(struct gpudp_work_meta));
	HO_PLACE(o_quit, 64);
#undef HO_PLACE
	h->shared_len = RTE_ALIGN_CEIL(off, 4096);
	h->shared = aligned_alloc(4096, h->shared_len);
	if (h->shared == NULL)
		return -ENOMEM;
	memset(h->shared, 0, h->shared_len);
	h->ctl = (struct gpudp_ho_ctl *)((char *)h->shared + o_ctl);
	h->addr = nd != 0 ? (uint64_t *)((char *)h->shared + o_addr) : NULL;
	h->len = nd != 0 ? (uint32_t *)((char *)h->shared + o_len) : NULL;
	h->verdict = (uint8_t *)h->shared + o_verdict;
	h->result = h->work->result_size != 0 ? (uint8_t *)h->shared + o_result : NULL;
	h->counters = (uint64_t *)((char *)h->shared + o_cnt);
	h->xaddr = nx != 0 ? (uint64_t *)((char *)h->shared + o_xaddr) : NULL;
	h->xlen = nx != 0 ? (uint32_t *)((char *)h->shared + o_xlen) : NULL;
	h->meta = nm != 0 ? (struct gpudp_work_meta *)((char *)h->shared + o_meta) : NULL;
	h->quit = (uint32_t *)((char *)h->shared + o_quit);
	return 0;
}

static void *
zalloc_lines(size_t len)
{
	void *p = aligned_alloc(64, RTE_ALIGN_CEIL(len, 64));

	if (p != NULL)
		memset(p, 0, len);
	return p;
}

struct gpudp_handoff *
gpudp_handoff_create(const struct gpudp_handoff_conf *conf)
{
	struct gpudp_handoff *h;
	uint32_t s, bm;
	int ret;

	if (conf == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	h = aligned_alloc(64, RTE_ALIGN_CEIL(sizeof(*h), 64));
	if (h == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	memset(h, 0, sizeof(*h));
	h->conf = *conf;
	if (h->conf.name == NULL)
		h->conf.name = "handoff";
	ret = conf_fill(&h->conf);
	if (ret != 0)
		goto fail;
	h->ops = mode_ops[h->conf.mode];
	h->work = h->conf.work;
	h->mask = h->conf.ring_size - 1;
	h->params = calloc(1, RTE_MAX(h->work->params_size, 1u));
	if (h->params == NULL) {
		ret = -ENOMEM;
		goto fail;
	}
	{
		char err[256];

		if (h->conf.params != NULL) {
			memcpy(h->params, h->conf.params, h->work->params_size);
		} else {
			ret = gpudp_work_params(h->work, h->conf.work_arg, h->params, err,
						sizeof(err));
			h->params_owned = ret == 0;  /* its tables: fini at destroy */
		}
		h->conf.params = NULL;  /* the caller's: not kept */
		if (ret != 0) {
			HO_LOG(ERR, "%s: %s", h->conf.name, err);
			ret = -EINVAL;
			goto fail;
		}
	}
	if (!h->ops->gpu) {  /* the GPU modes' state: in their setup */
		ret = gpudp_ho_state_cpu(h);
		if (ret != 0)
			goto fail;
	}
	h->lat_mask = h->conf.lat_sample - 1;
	bm = h->conf.burst_max;
	ret = shared_alloc(h);
	if (ret != 0)
		goto fail;
	/* whole cache lines: nothing here shares a line with another handoff */
	h->bursts = zalloc_lines((size_t)h->conf.ring_size * sizeof(*h->bursts));
	h->cookies = zalloc_lines((size_t)h->conf.ring_size * bm * sizeof(void *));
	if (h->ops->whole_frames)
		h->data = zalloc_lines((size_t)h->conf.ring_size * bm * sizeof(void *));
	if (h->bursts == NULL || h->cookies == NULL ||
	    (h->ops->whole_frames && h->data == NULL)) {
		ret = -ENOMEM;
		goto fail;
	}
	for (s = 0; s < h->conf.ring_size; s++) {
		struct gpudp_ho_burst *b = &h->bursts[s];

		b->max = bm;
		b->slot = s;
		b->cookie = h->cookies + (size_t)s * bm;
		/* own_desc: the mode's setup sets addr and len */
		b->data = h->data != NULL ? h->data + (size_t)s * bm : NULL;
		b->len = h->len != NULL ? h->len + (size_t)s * bm : NULL;
		b->addr = h->addr != NULL ? h->addr + (size_t)s * bm : NULL;
		b->verdict = h->verdict + (size_t)s * bm;
		b->result_size = h->work->result_size;
		b->result = h->result != NULL ? h->result + (size_t)s * bm * b->result_size : NULL;
		b->counters = h->counters + (size_t)s * GPUDP_WORK_COUNTERS_MAX;
		b->segs = h->conf.segs;
		b->meta = h->meta != NULL ? h->meta + (size_t)s * bm : NULL;
		if (b->segs > 1) {
			b->xaddr = h->xaddr + (size_t)s * bm * (b->segs - 1);
			b->xlen = h->xlen + (size_t)s * bm * (b->segs - 1);
		}
	}
	if (h->ops->setup != NULL) {
		ret = h->ops->setup(h);
		if (ret != 0)
			goto fail;
	}
	HO_LOG(DEBUG, "%s: mode %s, work %s, ring %u x %u packets", h->conf.name,
	       h->ops->name, h->work->name, h->conf.ring_size, bm);
	return h;
fail:
	gpudp_handoff_destroy(h);
	rte_errno = -ret;
	return NULL;
}

int
gpudp_handoff_start(struct gpudp_handoff *h)
{
	int ret = 0;

	if (h->started)
		return 0;
	if (h->ops->start != NULL)
		ret = h->ops->start(h);
	if (ret == 0)
		h->started = 1;
	return ret;
}

void
gpudp_handoff_stop(struct gpudp_handoff *h)
{
	if (h == NULL || h->ops == NULL)
		return;
	if (h->ops->stop != NULL)
		h->ops->stop(h);
	h->started = 0;
}

void
gpudp_handoff_destroy(struct gpudp_handoff *h)
{
	if (h == NULL)
		return;
	gpudp_handoff_stop(h);
	if (h->ops != NULL && h->ops->teardown != NULL)
		h->ops->teardown(h);
	if (h->ops != NULL && !h->ops->gpu)
		gpudp_ho_state_cpu_free(h);
	free(h->bursts);
	free(h->cookies);
	free(h->data);
	free(h->shared);
	if (h->params_owned)
		gpudp_work_params_release(h->work, h->params);
	free(h->params);
	free(h);
}

/* ---- data path ---- */

struct gpudp_ho_burst *
gpudp_handoff_acquire(struct gpudp_handoff *h)
{
	uint64_t tail = __atomic_load_n(&h->tail, __ATOMIC_ACQUIRE);

	if (h->head - tail >= h->conf.ring_size) {
		h->rx.ring_full++;
		return NULL;
	}
	return &h->bursts[h->head & h->mask];
}

/*
 * Ask the mode whether the GPU failed (a work faulted: ops->check logs it)
 * and, if so, mark the handoff failed. @return 1 when it is failed
 */
static int
gpu_failed(struct gpudp_handoff *h)
{
	if (h->failed)
		return 1;
	if (h->ops->check == NULL || h->ops->check(h) == 0)
		return 0;
	__atomic_store_n(&h->failed, 1, __ATOMIC_RELEASE);
	return 1;
}

/* the burst could not be submitted (@p ret): every packet an error drop
 * (cold path, out of line). @return -EIO */
static __rte_noinline int
submit_failed(struct gpudp_handoff *h, struct gpudp_ho_burst *b, int ret)
{
	/* the submission may have failed because the GPU did */
	if (!gpu_failed(h))
		HO_LOG(ERR, "%s: submit of burst %u failed (%d): dropping it",
		       h->conf.name, b->seq, ret);
	gpudp_ho_fail_burst(h, b, GPUDP_WORK_DROP_ERROR);
	return -EIO;
}

int
gpudp_handoff_submit(struct gpudp_handoff *h, struct gpudp_ho_burst *b)
{
	int ret;

	if (b->n == 0)
		return 0;
	if (!h->started && gpudp_handoff_start(h) != 0) {
		h->started = 1; /* fail the bursts, do not retry per burst */
		h->start_failed = 1;
	}
	b->seq = (uint32_t)(h->head + 1);
	/* timed bursts only: a clock read costs as much as tens of packets */
	b->t_submit = ((b->seq - 1) & h->lat_mask) == 0 ? gpudp_ho_now_ns() : 0;
	if (!h->ops->ready_only) {
		struct gpudp_ho_ctl *c = &h->ctl[b->slot];

		c->seq = b->seq;
		c->n = b->n;
	}
	h->rx.bursts_submitted++;
	h->rx.pkts_submitted += b->n;
	ret = h->start_failed || h->failed ? -EIO : h->ops->submit(h, b);
	if (unlikely(ret != 0))
		ret = submit_failed(h, b, ret);
	/* publish to the tx thread only after the slot is fully described */
	__atomic_store_n(&h->head, h->head + 1, __ATOMIC_RELEASE);
	return ret;
}

int
gpudp_handoff_submit_desc(struct gpudp_handoff *h, struct gpudp_ho_burst *b, const void *data,
			  uint32_t data_len, const struct gpudp_pkt_desc *desc, uint32_t n)
{
	int ret;

	if (!h->ops->gpu_desc || !h->conf.stage_gpu_copy || !h->conf.meta ||
	    h->conf.segs > 2 || h->work->wspan != 0)
		return -ENOTSUP;
	if (b->n != 0 || n > b->max || (n > 0 && (data == NULL || desc == NULL)) ||
	    ((uintptr_t)data | data_len) % 16 != 0 || data_len > h->conf.stage_burst_bytes)
		return -EINVAL;
	if (n == 0)
		return 0;
	/* memory the GPU cannot read would fault it, for every handoff of the context */
	if (!h->ops->readable(h, desc, (size_t)n * sizeof(*desc)) ||
	    (data_len > 0 && !h->ops->readable(h, data, data_len)))
		return -EINVAL;
	b->desc_ = desc;
	b->desc_data_ = (uint64_t)(uintptr_t)data;
	b->desc_len_ = data_len;
	b->n = n;
	b->t_first = gpudp_ho_now_ns();
	ret = gpudp_handoff_submit(h, b);
	b->desc_ = NULL;
	return ret;
}

int
gpudp_handoff_flush(struct gpudp_handoff *h)
{
	return h->ops->flush != NULL ? h->ops->flush(h) : 0;
}

/*
 * gpudp_handoff_completed(), oldest burst @p b not done (out of line):
 * NULL, or @p b failed once the GPU did. The GPU is asked at most every
 * millisecond (a stream query is a driver call).
 */
static __rte_noinline struct gpudp_ho_burst *
completed_not_done(struct gpudp_handoff *h, struct gpudp_ho_burst *b)
{
	if (!h->failed && h->ops->check != NULL) {
		uint64_t now = gpudp_ho_now_ns();

		if (now - h->check_t < 1000000)
			return NULL;
		h->check_t = now;
	}
	if (!gpu_failed(h))
		return NULL;
	/* the GPU failed: nothing in flight will complete; the rx thread
	 * publishes head after filling the slot */
	gpudp_ho_fail_burst(h, b, GPUDP_WORK_DROP_ERROR);
	b->n_pass = 0;
	return b;
}

/* gpudp_handoff_completed(), @p b done in a mode with a complete op (out of
 * line) */
static __rte_noinline struct gpudp_ho_burst *
completed_op(struct gpudp_handoff *h, struct gpudp_ho_burst *b)
{
	h->ops->complete(h, b);
	b->n_pass = h->ctl[b->slot].n_pass;
	return b;
}

struct gpudp_ho_burst *
gpudp_handoff_completed(struct gpudp_handoff *h)
{
	uint64_t head = __atomic_load_n(&h->head, __ATOMIC_ACQUIRE);
	struct gpudp_ho_burst *b;

	if (h->tail == head)
		return NULL;
	b = &h->bursts[h->tail & h->mask];
	/* acquire: the verdicts and packet bytes written before done */
	if (__atomic_load_n(&h->ctl[b->slot].done, __ATOMIC_ACQUIRE) != b->seq)
		return completed_not_done(h, b);
	if (h->ops->complete != NULL)
		return completed_op(h, b);
	/* counted by the work: GPU modes write no verdict when all passed */
	b->n_pass = h->ctl[b->slot].n_pass;
	return b;
}

/* ns from CPU time @p t0 to work timestamp @p t (GPU clock mapped onto the
 * CPU's): calibration error below 0 is clamped at 0 */
static inline uint64_t
gpu_since(const struct gpudp_handoff *h, uint64_t t, uint64_t t0)
{
	uint64_t d = gpudp_handoff_gpu_to_cpu_ns(h, t, t0) - t0;

	return (int64_t)d >= 0 ? d : 0;
}

/* Counts @p k drops of verdict @p v (GPUDP_WORK_PASS: none). */
static inline void
drops_add(uint64_t *drops, uint8_t v, uint64_t k)
{
	if (v != GPUDP_WORK_PASS)
		drops[v < GPUDP_WORK_VERDICT_MAX ? v : GPUDP_WORK_DROP_ERROR] += k;
}

/*
 * A burst's drops by verdict, 8 verdicts at a time where they are all the
 * same (a burst mostly is: a work that passes nothing gives every packet
 * one verdict). One increment a packet is a chain of increments of the same
 * counter in memory, each waiting for the one before.
 */
static void
drops_count(uint64_t *drops, const uint8_t *verdict, uint32_t n)
{
	uint32_t i = 0, k;

	for (; i + 8 <= n; i += 8) {
		uint64_t w;

		memcpy(&w, verdict + i, sizeof(w));
		if (w == (w & 0xff) * 0x0101010101010101ull) {
			drops_add(drops, (uint8_t)w, 8);
			continue;
		}
		for (k = 0; k < 8; k++)
			drops_add(drops, verdict[i + k], 1);
	}
	for (; i < n; i++)
		drops_add(drops, verdict[i], 1);
}

/*
 * gpudp_handoff_release() of a burst with drops, work counters or timed
 * (out of line): per-verdict drops, the work's counters, the latency
 * histograms
 */
static __rte_noinline void
release_extra(struct gpudp_handoff *h, const struct gpudp_ho_burst *b)
{
	uint64_t now;
	uint32_t i;

	if (b->n_pass != b->n)
		drops_count(h->tx.drops, b->verdict, b->n);
	for (i = 0; i < h->work->n_counters; i++)
		h->tx.counters[i] += b->counters[i];
	if (b->t_submit != 0) {
		now = gpudp_ho_now_ns();
		gpudp_ho_hist_add(&h->tx.lat_kstart,
				  gpu_since(h, h->ctl[b->slot].t_kstart, b->t_submit));
		gpudp_ho_hist_add(&h->tx.lat_kend,
				  gpu_since(h, h->ctl[b->slot].t_kend, b->t_submit));
		gpudp_ho_hist_add(&h->tx.lat_done, now - b->t_submit);
	}
}

void
gpudp_handoff_release(struct gpudp_handoff *h, struct gpudp_ho_burst *b)
{
	if (b->n_pass != b->n || b->t_submit != 0 || h->work->n_counters != 0)
		release_extra(h, b);
	h->tx.pkts_pass += b->n_pass;
	h->tx.bursts_done++;
	h->tx.pkts_done += b->n;
	b->n = 0;
	__atomic_store_n(&h->tail, h->tail + 1, __ATOMIC_RELEASE);
}

void
gpudp_handoff_stats_get(const struct gpudp_handoff *h, struct gpudp_handoff_stats *s)
{
	uint64_t head = __atomic_load_n(&h->head, __ATOMIC_RELAXED);
	uint64_t tail = __atomic_load_n(&h->tail, __ATOMIC_RELAXED);

	*s = h->tx;
	s->bursts_submitted = h->rx.bursts_submitted;
	s->pkts_submitted = h->rx.pkts_submitted;
	s->ring_full = h->rx.ring_full;
	s->flushes = h->rx.flushes;
	s->graphs = h->rx.graphs;
	s->in_flight = (uint32_t)(head - tail);
}

const struct gpudp_handoff_conf *
gpudp_handoff_conf_get(const struct gpudp_handoff *h)
{
	return &h->conf;
}

int
gpudp_handoff_needs_desc(const struct gpudp_handoff *h)
{
	return !h->ops->no_desc;
}

int
gpudp_handoff_needs_whole_frames(const struct gpudp_handoff *h)
{
	return h->ops->whole_frames;
}

int
gpudp_handoff_failed(const struct gpudp_handoff *h)
{
	return __atomic_load_n(&h->failed, __ATOMIC_RELAXED) ? -EIO : 0;
}

const char *
gpudp_handoff_error(const struct gpudp_handoff *h)
{
	return h->err;
}

const struct gpudp_work *
gpudp_handoff_work(const struct gpudp_handoff *h)
{
	return h->work;
}

int
gpudp_handoff_flushes(const struct gpudp_handoff *h)
{
	return h->conf.mode == GPUDP_HO_PERSISTENT ? h->flush_needed : -1;
}

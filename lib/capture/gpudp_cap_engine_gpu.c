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
 * packets in device memory are copied to the slot's host area (on the
 * handoff's copy stream, gpudp_handoff_copy_to_host(), waited for alone),
 * the done callback runs, and only then are the owners (mbufs) given back
 * through conf.release.
 *
 * The work's verdicts are the filter's matches (GPUDP_WORK_PASS: match):
 * they become the batch's match bitmap. The flow and fragment tables and
 * the pattern counts are the work's state, in GPU memory, accumulated over
 * the run and merged at the end by the work's collect hook
 * (gpudp_handoff_collect()); the counters are the work's, summed by the
 * handoff. The CUDA context is the handoff's: the caller's (conf.cu_ctx:
 * gpudev's in gpudp-capture) or the GPU's primary context.
 */
#include "gpudp_cap_engine_gpu_pvt.h"

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
		if (gpudp_handoff_copy_to_host(p->ho, b->data + off, r->addr, r->caplen) != 0)
			return gpu_fail(e, "copying a match out of GPU memory");
		b->view[i] = b->data + off;
		off += r->caplen;
	}
	if (off > 0) {
		if (gpudp_handoff_copy_wait(p->ho) != 0)
			return gpu_fail(e, "copying the matches out of GPU memory");
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

/* a look's pass completed: its slot free; the look's records out after its last */
static int
pass_complete(struct gpudp_cap_engine *e, struct gpu_slot *s, struct gpudp_ho_burst *hb)
{
	struct gpu_priv *p = e->priv;
	uint32_t op = s->look_op, dead = (uint32_t)s->dead;

	gpudp_handoff_release(p->ho, hb);
	s->hb = NULL;
	s->submitted = 0;
	s->dead = 0;
	s->look_op = 0;
	p->fl.pseudo--;
	if (dead || gpudp_handoff_failed(p->ho) != 0)
		return gpu_fail(e, "the flow monitor's look at the table");
	return op == GPUDP_FLOW_SCAN_LOOK_DONE ? gpudp_cap_gpu_look_taken(e, s->look_area) : 0;
}

/*
 * Wait for the oldest burst in flight: a batch (its callbacks run, its
 * slot freed) or a pass of a look at the flow table.
 */
int
gpudp_cap_gpu_complete_oldest(struct gpudp_cap_engine *e)
{
	struct gpu_priv *p = e->priv;
	struct gpu_slot *s;
	struct gpudp_ho_burst *hb;
	uint64_t now;

	hb = gpudp_handoff_completed(p->ho);
	if (hb == NULL) {
		now = gpudp_ho_now_ns();
		while ((hb = gpudp_handoff_completed(p->ho)) == NULL)
			rte_pause();
		e->st.wait_ms += (double)(gpudp_ho_now_ns() - now) / 1e6;
	}
	s = &p->slots[hb->slot];
	if (hb != s->hb || !s->submitted) {
		snprintf(e->err, sizeof(e->err), "the handoff completed a batch not submitted");
		return -EIO;
	}
	if (s->look_op != 0)
		return pass_complete(e, s, hb);
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
	s->submitted = 0;
	s->dead = 0;
	s->b.n = 0;
	p->n_inflight--;
	now = gpudp_ho_now_ns();
	if (now - p->clk_t >= CLOCK_SYNC_NS) {
		/* the GPU clock drifts from the CPU's: busy_ms maps one onto the other */
		gpudp_handoff_clock_sync(p->ho);
		p->clk_t = now;
	}
	return 0;
}

/*
 * The batch of the handoff's next burst, acquired for it: at most
 * conf.inflight are in flight, the oldest completed first.
 */
static int gpu_flush(struct gpudp_cap_engine *e);

static struct gpudp_cap_batch *
gpu_get_batch(struct gpudp_cap_engine *e)
{
	struct gpu_priv *p = e->priv;
	struct gpudp_ho_burst *hb;
	struct gpu_slot *s;

	while (p->n_inflight >= e->conf.inflight)
		if (gpudp_cap_gpu_complete_oldest(e) != 0)
			return NULL;
	/* alert records that could fill half their area: read them first */
	if (gpudp_cap_gpu_alerts_due(e) && gpu_flush(e) != 0)
		return NULL;
	hb = gpudp_handoff_acquire(p->ho);
	if (hb == NULL) {
		snprintf(e->err, sizeof(e->err), "no free handoff slot");
		return NULL;
	}
	s = &p->slots[hb->slot];
	if (s->hb != hb) {  /* not the batch already acquired and not submitted */
		s->hb = hb;
		gpudp_cap_batch_reset(&s->b);
		/* the data area no batch in flight has: at most conf.inflight
		 * are, begun before this one */
		if (p->pinned != NULL)
			s->b.data = p->pinned + (size_t)(p->data_seq++ % p->n_data) *
				s->b.data_cap;
	}
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
	hb = s->hb;
	if (b != &s->b || hb == NULL || s->submitted) {
		snprintf(e->err, sizeof(e->err), "batch submitted out of order");
		return -EINVAL;
	}
	/* staged: the descriptors as they are, the GPU gathers (else each
	 * packet described to the handoff) */
	rc = b->inplace ? -ENOTSUP :
		gpudp_handoff_submit_desc(p->ho, hb, b->data, RTE_ALIGN_CEIL(b->data_used, 16),
					  b->desc, b->n);
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
			const struct gpudp_pkt_desc *d = &b->desc[i];

			burst_add_frame(hb, p->span, b->data + d->off, d->caplen);
			m->ts_ns = d->ts_ns;
			m->wire_len = d->wirelen;
		}
		m->mark = 0;
	}
	rc = gpudp_handoff_submit(p->ho, hb);
submitted:
	s->submitted = 1;
	p->n_inflight++;
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
	e->st.copy_bytes += (b->inplace ? DESC_BYTES : sizeof(struct gpudp_pkt_desc)) * b->n +
		(b->inplace ? 0 : p->span == 0 ? b->cap_bytes :
		 RTE_MIN((uint64_t)b->cap_bytes, (uint64_t)p->span * b->n));
	e->st.batches++;
	e->st.submit_ms += (double)(gpudp_ho_now_ns() - t0) / 1e6;
	/* the flow monitor: a look at the table when one is due */
	return gpudp_cap_gpu_flows_tick(e, gpudp_cap_batch_newest(b), b->n);
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

	while (p->n_inflight > 0 || p->fl.pseudo > 0) {
		rc = gpudp_cap_gpu_complete_oldest(e);
		if (rc != 0)
			return rc;
	}
	gpudp_cap_gpu_flows_drain(e);
	gpu_times(e);
	return gpudp_cap_gpu_alerts_take(e);
}

static int
gpu_reap(struct gpudp_cap_engine *e)
{
	struct gpu_priv *p = e->priv;
	int rc;

	if (p->n_inflight == 0 && p->fl.pseudo == 0)
		return 0;
	rc = gpudp_cap_gpu_complete_oldest(e);
	return rc == 0 ? 1 : rc;
}

/*
 * The work's state into @p out through its collect hook; an engine that
 * shares another's state gives its counters only (the owner collects the
 * tables everyone filled).
 */
static int
gpu_collect(struct gpudp_cap_engine *e, struct gpudp_analysis *out)
{
	struct gpu_priv *p = e->priv;
	struct gpudp_handoff_stats hs;
	struct gpudp_an_counters ctr;
	struct gpudp_an_work_result res = { .out = out, .ctr = &ctr };
	int rc = gpu_flush(e);

	if (rc != 0)
		return rc;
	gpudp_handoff_stats_get(p->ho, &hs);
	memcpy(&ctr, hs.counters, sizeof(ctr));
	if (p->shared) {
		memcpy(&out->ctr, &ctr, sizeof(ctr));
		return 0;
	}
	rc = gpudp_handoff_collect(p->ho, &res);
	if (rc == -EIO)
		return gpu_fail(e, "reading the GPU results");
	if (rc == -ENOMEM || rc == -EBUSY || rc == -ENOTSUP || rc == -EINVAL)
		snprintf(e->err, sizeof(e->err), "collecting the GPU results: %s", strerror(-rc));
	return rc;
}

const struct gpudp_cap_engine_ops gpudp_cap_engine_gpu_ops = {
	.name = "gpu",
	.init = gpudp_cap_gpu_init,
	.get_batch = gpu_get_batch,
	.submit = gpu_submit,
	.flush = gpu_flush,
	.reap = gpu_reap,
	.collect = gpu_collect,
	.fini = gpudp_cap_gpu_fini,
	.host_register = gpudp_cap_gpu_host_register,
	.host_unregister = gpudp_cap_gpu_host_unregister,
	.end_flows = gpudp_cap_gpu_end_flows,
	.flow_stats = gpudp_cap_gpu_flow_stats,
};

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The GPU engine's flow monitor (conf.life; doc/flows.md): the same looks
 * at the table as the CPU's (gpudp_flow_life.c), made by the analysis work
 * on the GPU. A look is a burst of pseudo-packets (GPUDP_AN_MARK_SCAN),
 * one per chunk of the flow table, whose bytes say what to do
 * (struct gpudp_flow_scan, in pinned memory); the flows that end leave GPU
 * memory together, in one read of the work's export area. Looks run with no
 * batch in flight: the table is still while the GPU looks at it.
 */
#include "gpudp_cap_engine_gpu_pvt.h"

/* the export area's header, as the host reads and resets it */
#define HDR_BYTES sizeof(struct gpudp_flow_export)

static int
hdr_reset(struct gpudp_cap_engine *e)
{
	struct gpu_priv *p = e->priv;
	struct gpudp_flow_export h;

	memset(&h, 0, sizeof(h));
	h.cap = e->conf.flow_capacity;
	if (gpudp_handoff_state_write(p->ho, GPUDP_AN_STATE_EXPORT, 0, &h, sizeof(h)) != 0)
		return gpu_fail(e, "the flow monitor's export area");
	return 0;
}

int
gpudp_cap_gpu_flows_setup(struct gpudp_cap_engine *e)
{
	struct gpu_priv *p = e->priv;
	uint32_t c = 1;

	if (e->conf.life == NULL)
		return 0;
	p->fl.x = gpudp_handoff_host_alloc(p->ho, 64);
	if (p->fl.x == NULL)
		return gpu_fail(e, "pinned memory for the flow monitor");
	/* chunks: a power of two, at most a burst, the table and 4096 */
	while (c * 2 <= e->conf.batch_pkts && c * 2 <= e->conf.flow_capacity && c * 2 <= 4096)
		c *= 2;
	p->fl.chunks = c;
	p->fl.conf = gpudp_flow_life_settings(e->conf.life);
	p->fl.st.capacity = e->conf.flow_capacity;
	return hdr_reset(e);
}

/* a burst of one pseudo-packet per chunk, doing @p op; waited for */
static int
pseudo_burst(struct gpudp_cap_engine *e, uint32_t op, uint32_t force, uint32_t evict)
{
	struct gpu_priv *p = e->priv;
	struct gpudp_ho_burst *hb;
	uint32_t i;

	*p->fl.x = (struct gpudp_flow_scan){
		.magic = GPUDP_FLOW_SCAN_MAGIC, .op = op, .force = force,
		.chunks = p->fl.chunks, .now = p->fl.now, .idle_ns = p->fl.conf.idle_ns,
		.active_ns = p->fl.conf.active_ns, .evict_bucket = evict,
	};
	hb = gpudp_handoff_acquire(p->ho);
	if (hb == NULL) {
		snprintf(e->err, sizeof(e->err), "no free handoff slot for the flow monitor");
		return -EIO;
	}
	for (i = 0; i < p->fl.chunks; i++) {
		gpudp_ho_burst_add(hb, (void *)p->fl.x, 64, NULL);
		hb->meta[i] = (struct gpudp_work_meta){ .ts_ns = p->fl.now, .wire_len = 64,
							.mark = GPUDP_AN_MARK_SCAN };
	}
	if (gpudp_handoff_submit(p->ho, hb) != 0)
		return gpu_fail(e, "the flow monitor's look at the table");
	while ((hb = gpudp_handoff_completed(p->ho)) == NULL)
		rte_pause();
	gpudp_handoff_release(p->ho, hb);
	if (gpudp_handoff_failed(p->ho) != 0)
		return gpu_fail(e, "the flow monitor's look at the table");
	return 0;
}

/* a look: the flows due end on the GPU, their slots read in one go, their records out */
static int
look(struct gpudp_cap_engine *e, uint32_t force, uint32_t evict, struct gpudp_flow_export *h)
{
	struct gpu_priv *p = e->priv;
	struct gpudp_flow_slot *s;
	uint32_t n;
	int rc = pseudo_burst(e, GPUDP_FLOW_SCAN_END, force, evict);

	if (rc == 0)
		rc = gpudp_handoff_state_read(p->ho, GPUDP_AN_STATE_EXPORT, 0, h, HDR_BYTES);
	if (rc != 0)
		return rc < 0 && rc != -EIO ? rc : gpu_fail(e, "the flow monitor's export area");
	n = RTE_MIN(h->count, h->cap);
	if (h->overflow)
		snprintf(e->err, sizeof(e->err), "the flow monitor's export area overflowed");
	if (n > 0) {
		s = malloc(sizeof(*s) * n);
		if (s == NULL)
			return -ENOMEM;
		rc = gpudp_handoff_state_read(p->ho, GPUDP_AN_STATE_EXPORT, HDR_BYTES, s,
					      sizeof(*s) * n);
		if (rc == 0)
			gpudp_flow_export_records(s, n, p->fl.conf.biflow, e->conf.flows_out,
						  e->conf.flows_arg, &p->fl.st);
		free(s);
		if (rc != 0)
			return gpu_fail(e, "the flow monitor's ended flows");
	}
	/* the area's header back to empty: the count, the flows left and the
	 * age buckets are summed into it by every look */
	rc = hdr_reset(e);
	/* dead slots, only where flows ended: every run's start marked before
	 * any run is compacted */
	if (rc == 0 && n > 0)
		rc = pseudo_burst(e, GPUDP_FLOW_SCAN_MARK, 0, GPUDP_FLOW_NO_EVICT);
	if (rc == 0 && n > 0)
		rc = pseudo_burst(e, GPUDP_FLOW_SCAN_RECLAIM, 0, GPUDP_FLOW_NO_EVICT);
	return rc;
}

/*
 * Look the table over at fl.now (everything ends: @p force), in the CPU's
 * order (gpudp_flow_life.c): the flows due, then room for a batch of
 * @p next packets past three quarters full.
 */
static int
scan(struct gpudp_cap_engine *e, uint32_t force, uint32_t next)
{
	struct gpu_priv *p = e->priv;
	uint32_t cap = e->conf.flow_capacity, used, b;
	struct gpudp_flow_export h;
	uint64_t t0 = gpudp_ho_now_ns(), t1;
	int rc = gpudp_cap_engine_flush(e);

	t1 = gpudp_ho_now_ns();
	p->fl.st.look_wait_ns += t1 - t0;

	/* after a look every slot in use holds a live flow (the dead ones
	 * were reclaimed): the slots in use are the flows it left */
	if (rc == 0)
		rc = look(e, force, GPUDP_FLOW_NO_EVICT, &h);
	used = rc == 0 ? h.live : 0;
	if (rc == 0 && !force && gpudp_flow_room_short(used, next, cap)) {
		b = gpudp_flow_evict_bucket(&h, cap);
		if (b != GPUDP_FLOW_NO_EVICT) {
			rc = look(e, 0, b, &h);
			p->fl.st.evictions++;
			used = h.live;
		}
	}
	p->fl.st.scans++;
	p->fl.st.in_use = used;
	p->fl.st.look_ns += gpudp_ho_now_ns() - t0;
	p->fl.pkts_at_scan = p->fl.pkts;
	p->fl.scan_t = p->fl.now;
	return rc;
}

int
gpudp_cap_gpu_flows_tick(struct gpudp_cap_engine *e, uint64_t newest, uint32_t n)
{
	struct gpu_priv *p = e->priv;
	uint32_t cap = e->conf.flow_capacity, next = e->conf.batch_pkts;

	if (e->conf.life == NULL)
		return 0;
	p->fl.pkts += n;
	if (newest > p->fl.now)
		p->fl.now = newest;
	if (gpudp_flow_look_due(&p->fl.conf, p->fl.now, p->fl.scan_t, p->fl.st.in_use,
				p->fl.pkts - p->fl.pkts_at_scan, next, cap))
		return scan(e, 0, next);
	return 0;
}

int
gpudp_cap_gpu_end_flows(struct gpudp_cap_engine *e)
{
	return e->conf.life == NULL ? 0 : scan(e, 1, 0);
}

void
gpudp_cap_gpu_flow_stats(const struct gpudp_cap_engine *e, struct gpudp_flow_life_stats *st)
{
	const struct gpu_priv *p = e->priv;

	*st = p->fl.st;
}

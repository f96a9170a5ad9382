/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The GPU engine's flow monitor (conf.life; doc/flows.md): the same looks
 * at the table as the CPU's (gpudp_flow_life.c), made by the analysis work
 * on the GPU and queued behind the batches, without waiting for them. A
 * look is three bursts of pseudo-packets (GPUDP_AN_MARK_SCAN), one per
 * chunk of the flow table, whose bytes say what to do (struct
 * gpudp_flow_scan, in pinned memory): the handoff runs them in order with
 * the batches (gpudp_handoff_conf.ordered), so the table is still while the
 * GPU looks at it. Whether a look is made is decided on the GPU, from what
 * the last look left in the table's header: the host queues one whenever
 * it may be due. The flows that end leave GPU memory together: the GPU
 * writes their slots into an export area in pinned host memory. When the
 * look's last pass completes, the thread that submits batches reads the
 * look's header (what the next look needs) and hands the area to the
 * monitor's own thread, which makes the records and gives them to
 * conf.flows_out, the looks in order; an area is used again once that
 * thread is done with it.
 */
#include "gpudp_cap_engine_gpu_pvt.h"

/* the export area's header, as the GPU keeps it from one look to the next */
#define HDR_BYTES sizeof(struct gpudp_flow_export)

/* the monitor's thread: the records of each look taken, in order */
static void *
giver(void *arg)
{
	struct gpudp_cap_engine *e = arg;
	struct gpu_priv *p = e->priv;
	struct gpudp_flow_life_stats st;
	const struct gpudp_flow_export *h;
	uint32_t n, k;

	pthread_mutex_lock(&p->fl.mu);
	for (;;) {
		while (p->fl.given == p->fl.taken && !p->fl.th_stop)
			pthread_cond_wait(&p->fl.cv, &p->fl.mu);
		if (p->fl.given == p->fl.taken)
			break;
		h = p->fl.area[p->fl.given % FL_AREAS];
		pthread_mutex_unlock(&p->fl.mu);
		memset(&st, 0, sizeof(st));
		n = h->due ? RTE_MIN(h->count, e->conf.flow_capacity) : 0;
		if (n > 0)
			gpudp_flow_export_records(h->slot, n, p->fl.conf.biflow,
						  e->conf.flows_out, e->conf.flows_arg, &st);
		pthread_mutex_lock(&p->fl.mu);
		p->fl.tst.records += st.records;
		p->fl.tst.pkts += st.pkts;
		for (k = 0; k < RTE_DIM(st.ended); k++)
			p->fl.tst.ended[k] += st.ended[k];
		p->fl.given++;
		pthread_cond_broadcast(&p->fl.cv);
	}
	pthread_mutex_unlock(&p->fl.mu);
	return NULL;
}

/* the monitor's thread, on conf.cpus */
static int
giver_start(struct gpudp_cap_engine *e)
{
	struct gpu_priv *p = e->priv;
	int rc;

	pthread_mutex_init(&p->fl.mu, NULL);
	pthread_cond_init(&p->fl.cv, NULL);
	rc = gpudp_thread_start(e->conf.cpus, &p->fl.th, giver, e);
	if (rc != 0) {
		pthread_cond_destroy(&p->fl.cv);
		pthread_mutex_destroy(&p->fl.mu);
		snprintf(e->err, sizeof(e->err), "the flow monitor's thread: %s", strerror(rc));
		return -rc;
	}
	pthread_setname_np(p->fl.th, "gpudp-flow-rec");
	p->fl.th_on = 1;
	return 0;
}

void
gpudp_cap_gpu_flows_stop(struct gpudp_cap_engine *e)
{
	struct gpu_priv *p = e->priv;

	if (!p->fl.th_on)
		return;
	pthread_mutex_lock(&p->fl.mu);
	p->fl.th_stop = 1;
	pthread_cond_broadcast(&p->fl.cv);
	pthread_mutex_unlock(&p->fl.mu);
	pthread_join(p->fl.th, NULL);
	pthread_cond_destroy(&p->fl.cv);
	pthread_mutex_destroy(&p->fl.mu);
	p->fl.th_on = 0;
}

/* until at most @p left looks taken are not done by the thread */
static void
giver_wait(struct gpu_priv *p, uint64_t left)
{
	if (!p->fl.th_on)
		return;
	pthread_mutex_lock(&p->fl.mu);
	while (p->fl.taken - p->fl.given > left)
		pthread_cond_wait(&p->fl.cv, &p->fl.mu);
	pthread_mutex_unlock(&p->fl.mu);
}

void
gpudp_cap_gpu_flows_drain(struct gpudp_cap_engine *e)
{
	giver_wait(e->priv, 0);
}

int
gpudp_cap_gpu_flows_setup(struct gpudp_cap_engine *e)
{
	struct gpu_priv *p = e->priv;
	struct gpudp_flow_export h;
	uint32_t c = 1, i;

	if (e->conf.life == NULL)
		return 0;
	p->fl.x = gpudp_handoff_host_alloc(p->ho, (size_t)p->n_slots * FL_XLEN);
	if (p->fl.x == NULL)
		return gpu_fail(e, "pinned memory for the flow monitor");
	for (i = 0; i < FL_AREAS; i++) {
		p->fl.area[i] = gpudp_handoff_host_alloc(p->ho, HDR_BYTES +
			sizeof(struct gpudp_flow_slot) * (size_t)e->conf.flow_capacity);
		if (p->fl.area[i] == NULL)
			return gpu_fail(e, "pinned memory for the flow monitor's records");
		memset(p->fl.area[i], 0, HDR_BYTES);
	}
	/* chunks: a power of two, at most a burst and the table; a pass's
	 * threads each go over their chunk's slots one by one, so more are
	 * faster, but each pseudo-packet costs the host a description unless
	 * the pass is described in one array (staged) */
	while (c * 2 <= e->conf.batch_pkts && c * 2 <= e->conf.flow_capacity &&
	       c * 2 <= (p->staged ? FL_CHUNKS_ARRAY : FL_CHUNKS_EACH))
		c *= 2;
	p->fl.chunks = c;
	if (p->staged) {
		p->fl.desc = gpudp_handoff_host_alloc(p->ho, sizeof(*p->fl.desc) * c);
		if (p->fl.desc == NULL)
			return gpu_fail(e, "pinned memory for the flow monitor");
		for (i = 0; i < c; i++)
			p->fl.desc[i] = (struct gpudp_pkt_desc){ .caplen = FL_XLEN,
				.wirelen = FL_XLEN, .mark = GPUDP_AN_MARK_SCAN };
	}
	p->fl.conf = gpudp_flow_life_settings(e->conf.life);
	p->fl.st.capacity = e->conf.flow_capacity;
	/* the table's header: no look yet, room for the whole table */
	memset(&h, 0, sizeof(h));
	h.cap = e->conf.flow_capacity;
	if (gpudp_handoff_state_write(p->ho, GPUDP_AN_STATE_EXPORT, 0, &h, sizeof(h)) != 0)
		return gpu_fail(e, "the flow monitor's export area");
	return giver_start(e);
}

/* one pass of a look: a burst of one pseudo-packet per chunk, not waited for */
static int
pass_submit(struct gpudp_cap_engine *e, uint32_t op, uint32_t force, uint32_t area)
{
	struct gpu_priv *p = e->priv;
	struct gpudp_ho_burst *hb;
	struct gpudp_flow_scan *x;
	struct gpu_slot *s;
	uint32_t i;
	int rc;

	hb = gpudp_handoff_acquire(p->ho);
	if (hb == NULL) {
		snprintf(e->err, sizeof(e->err), "no free handoff slot for the flow monitor");
		return -EIO;
	}
	s = &p->slots[hb->slot];
	if (s->hb == hb) {
		snprintf(e->err, sizeof(e->err), "a look at the flow table while a batch is filled");
		return -EINVAL;
	}
	x = (struct gpudp_flow_scan *)(p->fl.x + (size_t)hb->slot * FL_XLEN);
	*x = (struct gpudp_flow_scan){
		.magic = GPUDP_FLOW_SCAN_MAGIC, .op = op, .force = force,
		.chunks = p->fl.chunks, .now = p->fl.now, .idle_ns = p->fl.conf.idle_ns,
		.active_ns = p->fl.conf.active_ns, .evict_bucket = GPUDP_FLOW_NO_EVICT,
		.next = e->conf.batch_pkts, .pkts = p->fl.pkts, .scan_ns = p->fl.conf.scan_ns,
		.out = (uint64_t)(uintptr_t)p->fl.area[area], .cap = e->conf.flow_capacity,
	};
	s->hb = hb;
	s->look_op = op;
	s->look_area = area;
	s->submitted = 1;
	s->b.n = 0;
	p->fl.pseudo++;
	/* staged: every pseudo-packet the same bytes, described once */
	rc = p->fl.desc != NULL ?
		gpudp_handoff_submit_desc(p->ho, hb, (const uint8_t *)x, FL_XLEN, p->fl.desc,
					  p->fl.chunks) : -ENOTSUP;
	if (rc == -ENOTSUP || rc == -EINVAL) {
		for (i = 0; i < p->fl.chunks; i++) {
			gpudp_ho_burst_add(hb, (void *)x, FL_XLEN, NULL);
			hb->meta[i] = (struct gpudp_work_meta){ .ts_ns = p->fl.now,
				.wire_len = FL_XLEN, .mark = GPUDP_AN_MARK_SCAN };
		}
		rc = gpudp_handoff_submit(p->ho, hb);
	}
	if (rc != 0) {
		s->dead = 1;
		return gpu_fail(e, "the flow monitor's look at the table");
	}
	return 0;
}

/*
 * Queue a look at fl.now (everything ends: @p force) behind the batches
 * submitted: made on the GPU when the rule finds it due there. Its area
 * is free once the look FL_AREAS before it was taken.
 */
static int
look_submit(struct gpudp_cap_engine *e, uint32_t force)
{
	struct gpu_priv *p = e->priv;
	uint64_t t0 = gpudp_ho_now_ns(), t1;
	uint32_t area = (uint32_t)(p->fl.looks % FL_AREAS);
	int rc = 0;

	while (rc == 0 && p->fl.looks - p->fl.taken >= FL_AREAS)
		rc = gpudp_cap_gpu_complete_oldest(e);
	/* and the monitor's thread is done with its records */
	giver_wait(p, FL_AREAS - 1 - (p->fl.looks - p->fl.taken));
	t1 = gpudp_ho_now_ns();
	p->fl.st.look_wait_ns += t1 - t0;
	if (rc == 0)
		rc = pass_submit(e, GPUDP_FLOW_SCAN_LOOK_END, force, area);
	if (rc == 0)
		rc = pass_submit(e, GPUDP_FLOW_SCAN_LOOK_EVICT, force, area);
	if (rc == 0)
		rc = pass_submit(e, GPUDP_FLOW_SCAN_LOOK_DONE, force, area);
	if (rc == 0)
		p->fl.looks++;
	p->fl.st.look_ns += gpudp_ho_now_ns() - t0;
	return rc;
}

int
gpudp_cap_gpu_look_taken(struct gpudp_cap_engine *e, uint32_t area)
{
	struct gpu_priv *p = e->priv;
	const struct gpudp_flow_export *h = p->fl.area[area];

	if (h->due) {
		if (h->overflow)
			snprintf(e->err, sizeof(e->err),
				 "the flow monitor's export area overflowed");
		p->fl.st.scans++;
		p->fl.st.evictions += h->evicted;
		p->fl.st.in_use = h->in_use;
		p->fl.scan_t = h->scan_t;
		p->fl.pkts_at_scan = h->pkts_at_scan;
	}
	/* the records, by the monitor's thread */
	pthread_mutex_lock(&p->fl.mu);
	p->fl.taken++;
	pthread_cond_broadcast(&p->fl.cv);
	pthread_mutex_unlock(&p->fl.mu);
	return 0;
}

int
gpudp_cap_gpu_flows_tick(struct gpudp_cap_engine *e, uint64_t newest, uint32_t n)
{
	struct gpu_priv *p = e->priv;

	if (e->conf.life == NULL)
		return 0;
	p->fl.pkts += n;
	if (newest > p->fl.now)
		p->fl.now = newest;
	/* from the last look taken: at least as often as the GPU finds one due */
	if (gpudp_flow_look_due(p->fl.conf.scan_ns, p->fl.now, p->fl.scan_t, p->fl.st.in_use,
				p->fl.pkts - p->fl.pkts_at_scan, e->conf.batch_pkts,
				e->conf.flow_capacity))
		return look_submit(e, 0);
	return 0;
}

int
gpudp_cap_gpu_end_flows(struct gpudp_cap_engine *e)
{
	struct gpu_priv *p = e->priv;
	int rc;

	if (e->conf.life == NULL)
		return 0;
	rc = look_submit(e, 1);
	while (rc == 0 && (p->n_inflight > 0 || p->fl.pseudo > 0))
		rc = gpudp_cap_gpu_complete_oldest(e);
	gpudp_cap_gpu_flows_drain(e);
	return rc;
}

void
gpudp_cap_gpu_flow_stats(const struct gpudp_cap_engine *e, struct gpudp_flow_life_stats *st)
{
	struct gpu_priv *p = e->priv;
	uint32_t k;

	*st = p->fl.st;
	if (!p->fl.th_on)
		return;
	pthread_mutex_lock(&p->fl.mu);
	st->records = p->fl.tst.records;
	st->pkts = p->fl.tst.pkts;
	for (k = 0; k < RTE_DIM(st->ended); k++)
		st->ended[k] = p->fl.tst.ended[k];
	pthread_mutex_unlock(&p->fl.mu);
}

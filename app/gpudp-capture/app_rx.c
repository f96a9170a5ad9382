/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpudp-capture: the receive loop. One lcore polls every selected port.
 * Staged, each packet is copied into the current batch (chained mbufs
 * linearised) and its mbuf freed; in place, a reference is written and the
 * mbuf kept until the engine is done with its batch. Full batches go to
 * the engine; at the end the results are reported. With ports on several
 * GPUs (app_gpus.c) each engine has its own batch being filled (a lane),
 * and a port's packets go into its GPU's.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>

#include "app_metrics.h"
#include "cap_app.h"
#include "gpudp_app_mbuf.h"

/* An empty mbuf pool makes net_pcap drop a record it already read: the
 * positions of snapped records no longer line up, so stop correcting. */
static void
check_nombuf(struct cap_app *app)
{
	unsigned int i;

	for (i = 0; i < app->n_ports; i++) {
		struct rte_eth_stats st;

		if (rte_eth_stats_get(app->ports[i].id, &st) == 0 && st.rx_nombuf > 0) {
			CAP_LOG(WARNING, "port %u: mbuf pool ran empty (%" PRIu64 " times): "
				"original lengths of snapped records are no longer known; "
				"raise --mbufs", app->ports[i].id, st.rx_nombuf);
			app->snaps_unreliable = 1;
			return;
		}
	}
}

/* The host clock, in ns since the epoch. */
static uint64_t
realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * net_pcap gives the captured length only (pkt_len = caplen): the original
 * length of a snapped record (or of a bogus one, below its captured length)
 * comes from the file inspection, by position.
 */
static uint32_t
wire_len(struct cap_app *app, struct cap_rxq *q, uint32_t caplen)
{
	uint64_t i = q->count++;

	if (q->next < q->n_snaps && q->snaps[q->next].index == i && !app->snaps_unreliable)
		return q->snaps[q->next++].wirelen;
	return caplen;
}

/* The capture time of a packet: the PMD's (net_pcap: the file's), else now. */
static uint64_t
pkt_ts(const struct cap_app *app, const struct cap_port *p, const struct rte_mbuf *m)
{
	if (app->ts_off >= 0 && p->ts_mult != 0 && (m->ol_flags & app->ts_flag))
		return *RTE_MBUF_DYNFIELD(m, app->ts_off, rte_mbuf_timestamp_t *) * p->ts_mult;
	return realtime_ns();
}

/*
 * Copy the @p len bytes the segments of a (possibly chained) mbuf hold into
 * the batch, never more; 1 if the batch is full.
 */
static int
stage(struct cap_app *app, struct gpudp_cap_batch *b, const struct cap_port *p, struct rte_mbuf *m,
      uint32_t len, uint32_t wirelen)
{
	const struct rte_mbuf *s;
	uint32_t left = len;
	uint8_t *dst;

	dst = gpudp_cap_batch_alloc(b, len, wirelen, pkt_ts(app, p, m));
	if (dst == NULL)
		return 1;
	if (m->nb_segs > 1)
		app->multiseg++;
	for (s = m; s != NULL && left > 0; s = s->next) {
		uint32_t k = RTE_MIN((uint32_t)s->data_len, left);

		memcpy(dst, rte_pktmbuf_mtod(s, const uint8_t *), k);
		dst += k;
		left -= k;
	}
	return 0;
}

/*
 * A frame whose PMD delivered @p held of its pkt_len bytes: only those are
 * analysed and written, as a snapped packet whose original length is at
 * least pkt_len; counted in pmd_cut, and said once.
 */
static void
note_pmd_cut(struct cap_app *app, const struct cap_port *p, const struct rte_mbuf *m, uint32_t held,
	uint32_t *wirelen)
{
	if (app->pmd_cut++ == 0)
		CAP_LOG(WARNING, "port %u: a %u-byte packet arrived with only %u bytes in its "
			"mbufs (DPDK 22.11's net_pcap keeps a record over 65535 bytes modulo "
			"65536): such packets are analysed as snapped to what arrived and "
			"counted in pmd_cut", p->id, rte_pktmbuf_pkt_len(m), held);
	*wirelen = RTE_MAX(*wirelen, rte_pktmbuf_pkt_len(m));
}

/* In place: a reference to the mbuf's data, where the PMD put it; 1 if the batch is full. */
static int
take_ref(struct cap_app *app, struct gpudp_cap_batch *b, const struct cap_port *p,
	 struct rte_mbuf *m, uint32_t wirelen)
{
	return gpudp_cap_batch_add_ref(b, (uintptr_t)rte_pktmbuf_mtod(m, void *), m->data_len,
				       wirelen,
				       pkt_ts(app, p, m), m);
}

/* On an engine failure: in place, the batch being filled still holds mbufs. */
static void
drop_batch(struct cap_app *app, struct gpudp_cap_batch *b)
{
	if (b != NULL && b->inplace && b->n > 0) {
		app_batch_release(app, b->owner, b->n);
		b->n = 0;
	}
}

/*
 * Submit the batch to engine @p eng and take the next; on a failure the
 * batch's mbufs are dropped before the pointer is lost.
 * @return the next batch, or NULL if the engine failed
 */
static struct gpudp_cap_batch *
submit_and_next(struct cap_app *app, struct gpudp_cap_engine *eng, struct gpudp_cap_batch *b)
{
	if (gpudp_cap_engine_submit(eng, b) != 0) {
		drop_batch(app, b);
		return NULL;
	}
	return gpudp_cap_engine_get_batch(eng);
}

/*
 * In place, mbufs stay out until the engine is done with their batch: before
 * a burst, make sure the pool can refill the rx ring, finishing batches in
 * flight (or submitting the one being filled) while it cannot.
 * @return 0, or -EIO (engine failure) with *bp possibly replaced
 */
static int
ensure_mbufs(struct cap_app *app, struct gpudp_cap_engine *eng, struct gpudp_cap_batch **bp)
{
	unsigned int need = app->conf.burst;
	int rc;

	while (rte_mempool_avail_count(app->pool) < need) {
		rc = gpudp_cap_engine_reap(eng);
		if (rc < 0)
			return -EIO;
		if (rc > 0)
			continue;
		if ((*bp)->n == 0)
			break; /* all in rx rings: a smaller burst */
		*bp = submit_and_next(app, eng, *bp);
		if (*bp == NULL)
			return -EIO;
	}
	return 0;
}

/* The receive loop's batches being filled (one per engine), its clock and
 * its deadlines. */
struct rx_loop {
	struct gpudp_cap_batch *b[CAP_MAX_GPUS];
	uint64_t batch_start[CAP_MAX_GPUS];
	unsigned int n_lanes;
	int inplace;
	uint64_t hz, start, now, last_rx;
	uint64_t next_progress, next_period;
};

/* The lane (engine index) of port @p p's packets. */
static unsigned int
lane_of(const struct rx_loop *l, const struct cap_port *p)
{
	return l->n_lanes > 1 ? p->gpu : 0;
}

/*
 * A packet the batch cannot take (larger than the batch's data, or chained
 * in place): counted in drops.staging and freed. 1 if so.
 */
static int
refuse_pkt(struct cap_app *app, const struct rx_loop *l, const struct gpudp_cap_batch *b,
	   const struct cap_port *p, struct rte_mbuf *m, uint32_t len)
{
	if (len <= b->data_cap && !(l->inplace && m->nb_segs > 1))
		return 0;
	if (l->inplace && m->nb_segs > 1 && !app->chain_warned++)
		CAP_LOG(WARNING, "port %u: a %u-byte packet arrived in %u chained mbufs: it "
			"cannot be analysed in place and is counted in drops.staging (raise "
			"--data-room)", p->id, rte_pktmbuf_pkt_len(m), m->nb_segs);
	app->staging_drops++;
	rte_pktmbuf_free(m);
	return 1;
}

/*
 * Packet @p k of a burst of @p n into the batch (a reference in place, a
 * copy staged), submitting the batch when it is full.
 * @return 0, or -EIO (engine failure: the rest of the burst is freed)
 */
static int
rx_pkt(struct cap_app *app, struct rx_loop *l, struct cap_port *p, uint16_t q,
       struct rte_mbuf **pkts, uint16_t k, uint16_t n)
{
	struct rte_mbuf *m = pkts[k];
	uint32_t len = rte_pktmbuf_pkt_len(m);
	uint32_t wl = wire_len(app, &p->rxq[q], len);
	unsigned int e = lane_of(l, p);
	struct gpudp_cap_engine *eng = app_engine(app, e);

	if (unlikely(m->nb_segs > 1 || m->data_len != len)) {
		/* what the segments carry of the packet */
		len = (uint32_t)RTE_MIN(gpudp_mbuf_held(m, NULL), (uint64_t)len);
		if (len < rte_pktmbuf_pkt_len(m))
			note_pmd_cut(app, p, m, len, &wl);
	}
	if (refuse_pkt(app, l, l->b[e], p, m, len))
		return 0;
	if (l->inplace ? take_ref(app, l->b[e], p, m, wl) :
	    stage(app, l->b[e], p, m, len, wl)) {
		l->b[e] = submit_and_next(app, eng, l->b[e]);
		if (l->b[e] == NULL) {
			CAP_LOG(ERR, "analysis engine failed: %s", eng->err);
			rte_pktmbuf_free_bulk(&pkts[k], n - k);
			return -EIO;
		}
		l->batch_start[e] = rte_get_timer_cycles();
		if (l->inplace)
			take_ref(app, l->b[e], p, m, wl);
		else
			stage(app, l->b[e], p, m, len, wl);
	}
	if (l->b[e]->n == 1)
		l->batch_start[e] = rte_get_timer_cycles();
	if (!l->inplace)
		rte_pktmbuf_free(m);
	return 0;
}

/*
 * One burst of rx queue @p q of port @p p into the batch.
 * @return the packets received, or -EIO (engine failure)
 */
static int
poll_queue(struct cap_app *app, struct rx_loop *l, struct cap_port *p, uint16_t q)
{
	struct rte_mbuf *pkts[512];
	uint16_t want = (uint16_t)app->conf.burst, n, k;

	if (l->inplace) {
		unsigned int e = lane_of(l, p);
		struct gpudp_cap_engine *eng = app_engine(app, e);

		if (ensure_mbufs(app, eng, &l->b[e]) != 0) {
			CAP_LOG(ERR, "analysis engine failed: %s", eng->err);
			drop_batch(app, l->b[e]);
			return -EIO;
		}
		want = (uint16_t)RTE_MIN((unsigned int)want, rte_mempool_avail_count(app->pool));
		if (want == 0)
			return 0;
	}
	/* the batch is submitted only after rx_burst returned its packets */
	n = rte_eth_rx_burst(p->id, q, pkts, want);
	for (k = 0; k < n; k++)
		if (rx_pkt(app, l, p, q, pkts, k, n) != 0)
			return -EIO;
	p->rx += n;
	return n;
}

/*
 * One burst of every rx queue of every port.
 * @return the packets received, or -EIO (engine failure)
 */
static int64_t
poll_ports(struct cap_app *app, struct rx_loop *l)
{
	int64_t got = 0;
	unsigned int i;
	uint16_t q;
	int n;

	for (i = 0; i < app->n_ports; i++) {
		struct cap_port *p = &app->ports[i];

		for (q = 0; q < p->nb_rxq; q++) {
			n = poll_queue(app, l, p, q);
			if (n < 0)
				return n;
			got += n;
		}
	}
	return got;
}

/* Whether the capture is over: --max-packets, --duration, or the files' end. */
static int
capture_over(const struct cap_app *app, const struct rx_loop *l, uint32_t got)
{
	const struct cap_conf *c = &app->conf;
	unsigned int i;
	int all = 1;

	if (c->max_packets && app->rx_total >= c->max_packets)
		return 1;
	if (c->duration_s > 0 && l->now - l->start >= (uint64_t)(c->duration_s * l->hz))
		return 1;
	if (app->any_live || got != 0)
		return 0;
	/* capture files: net_pcap signals no end of file */
	for (i = 0; i < app->n_ports; i++)
		all &= app->ports[i].rx >= app->ports[i].expected;
	return all || l->now - l->last_rx >= (uint64_t)c->idle_ms * l->hz / 1000;
}

/*
 * Capture files: the progress line every --progress seconds; live ports: a
 * report every --period seconds (the batch being filled submitted first).
 * @return 0, or -EIO (engine failure)
 */
static int
rx_periodic(struct cap_app *app, struct rx_loop *l)
{
	const struct cap_conf *c = &app->conf;

	app_metrics_live(app);
	if (c->progress_s > 0 && !app->any_live && l->now >= l->next_progress) {
		double el = (double)(l->now - l->start) / l->hz;

		fprintf(stderr, "progress: %" PRIu64 "/%" PRIu64 " packets (%.1f %%), %.0f "
			"packets/s\n", app->rx_total, app->expected_total,
			app->expected_total ? 100.0 * app->rx_total / app->expected_total : 0,
			el > 0 ? app->rx_total / el : 0);
		l->next_progress = l->now + (uint64_t)(c->progress_s * l->hz);
	}
	if (c->period_s > 0 && app->any_live && l->now >= l->next_period) {
		unsigned int e;

		for (e = 0; e < l->n_lanes; e++) {
			if (l->b[e]->n == 0)
				continue;
			l->b[e] = submit_and_next(app, app_engine(app, e), l->b[e]);
			if (l->b[e] == NULL)
				return -EIO;
		}
		app_report(app, (double)(l->now - l->start) / l->hz, 0);
		l->next_period = rte_get_timer_cycles() + (uint64_t)(c->period_s * l->hz);
	}
	return 0;
}

/*
 * After the bursts of one round: submit a full batch, or (live ports) a
 * partial one held for more than 1 ms.
 * @return 0, or -EIO (engine failure)
 */
static int
rx_round_end(struct cap_app *app, struct rx_loop *l, uint32_t got)
{
	unsigned int e;

	if (got == 0 && !app->any_live && !app->snaps_unreliable)
		check_nombuf(app);
	if (got > 0)
		l->last_rx = l->now;
	for (e = 0; e < l->n_lanes; e++) {
		struct gpudp_cap_batch *b = l->b[e];
		struct gpudp_cap_engine *eng = app_engine(app, e);

		if (b->n == 0 || (b->n < b->max_pkts && !(got == 0 && app->any_live &&
				  l->now - l->batch_start[e] > l->hz / 1000)))
			continue;
		l->b[e] = submit_and_next(app, eng, b);
		if (l->b[e] == NULL) {
			CAP_LOG(ERR, "analysis engine failed: %s", eng->err);
			return -EIO;
		}
	}
	return 0;
}

/* The end: the last batch submitted, every batch finished, the results reported. */
static int
rx_finish(struct cap_app *app, struct rx_loop *l)
{
	unsigned int e;
	int rc;

	if (app_stop_requested)
		CAP_LOG(NOTICE, "interrupted: final counters follow");
	for (e = 0; e < l->n_lanes; e++) {
		struct gpudp_cap_engine *eng = app_engine(app, e);

		rc = gpudp_cap_engine_submit(eng, l->b[e]);
		if (rc != 0)
			drop_batch(app, l->b[e]);
		if (rc == 0)
			rc = gpudp_cap_engine_flush(eng);
		if (rc != 0) {
			CAP_LOG(ERR, "analysis engine failed: %s", eng->err);
			return rc;
		}
	}
	app_check_file_sizes(app);
	/* the end of the input: every flow ends (the flow monitor) */
	app_flows_end(app);
	rc = app_report(app, (double)(rte_get_timer_cycles() - l->start) / l->hz, 1);
	if (rc == 0 && app->verify != NULL)
		rc = app_verify_results(app);
	return rc;
}

/* The receive loop, until a signal or capture_over(); then the report. */
int
app_run(struct cap_app *app)
{
	const struct cap_conf *c = &app->conf;
	struct rx_loop l;
	unsigned int e;
	int64_t got;

	memset(&l, 0, sizeof(l));
	l.n_lanes = app_n_engines(app);
	l.inplace = app->mem != GPUDP_CAP_MEM_STAGED;
	l.hz = rte_get_timer_hz();
	l.start = rte_get_timer_cycles();
	l.last_rx = l.start;
	l.next_progress = l.start + (uint64_t)(c->progress_s * l.hz);
	l.next_period = l.start + (uint64_t)(c->period_s * l.hz);
	for (e = 0; e < l.n_lanes; e++) {
		l.b[e] = gpudp_cap_engine_get_batch(app_engine(app, e));
		if (l.b[e] == NULL)
			return -EIO;
	}
	while (!app_stop_requested) {
		got = poll_ports(app, &l);
		if (got < 0)
			return -EIO;
		app->rx_total += (uint64_t)got;
		l.now = rte_get_timer_cycles();
		if (rx_round_end(app, &l, (uint32_t)got) != 0)
			return -EIO;
		if (capture_over(app, &l, (uint32_t)got))
			break;
		if (rx_periodic(app, &l) != 0)
			return -EIO;
	}
	return rx_finish(app, &l);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpudp-fwd's counters added up over pipelines, for the stats lines,
 * telemetry and the final report (fwd_report.c): each pipeline's own
 * counters, its handoff's, and for io pipelines the ports' byte counters.
 * The lcores never call these.
 */
#include <stdlib.h>
#include <string.h>

#include <rte_ethdev.h>

#include "fwd.h"

static const char *const drop_names[FWD_DROP_MAX] = {
	"ring_full", "tx_full", "shutdown", "segmented", "pmd_cut",
};

const char *
fwd_drop_name(enum fwd_drop d)
{
	return drop_names[d];
}

void
fwd_io_start(struct fwd_pipe *p)
{
	struct rte_eth_stats st;

	if (p->rx_queue == 0 && rte_eth_stats_get(p->rx_port, &st) == 0)
		p->io_ibytes0 = st.ibytes;
	if (p->tx_queue == 0 && rte_eth_stats_get(p->tx_port, &st) == 0)
		p->io_obytes0 = st.obytes;
}

/*
 * Bytes of io pipeline @p p, added to *rx and *tx: its ports' ethdev
 * counters since fwd_io_start(), taken on the pipeline of queue 0 only.
 * Every queue of a port that has pipelines belongs to one, and each port is
 * the tx port of exactly one rx port (--pairing), so the sum over every
 * pipeline counts each port once.
 */
static void
io_bytes(const struct fwd_pipe *p, uint64_t *rx, uint64_t *tx)
{
	struct rte_eth_stats st;

	if (p->rx_queue == 0 && rte_eth_stats_get(p->rx_port, &st) == 0)
		*rx += st.ibytes - p->io_ibytes0;
	if (p->tx_queue == 0 && rte_eth_stats_get(p->tx_port, &st) == 0)
		*tx += st.obytes - p->io_obytes0;
}

void
fwd_totals_get(struct fwd_pipe *const *pipes, unsigned int n, struct fwd_totals *t)
{
	struct gpudp_handoff_stats *s = malloc(sizeof(*s)); /* big: not on the stack */
	unsigned int i, d;

	memset(t, 0, sizeof(*t));
	if (s == NULL)
		return;
	for (i = 0; i < n; i++) {
		const struct fwd_pipe *p = pipes[i];

		t->rx_pkts += p->rx_pkts;
		t->tx_pkts += p->tx_pkts;
		if (p->io) {
			io_bytes(p, &t->rx_bytes, &t->tx_bytes);
		} else {
			t->rx_bytes += p->rx_bytes;
			t->tx_bytes += p->tx_bytes;
		}
		for (d = 0; d < FWD_DROP_MAX; d++)
			t->drops[d] += p->drops[d];
		gpudp_handoff_stats_get(p->ho, s);
		for (d = 1; d < GPUDP_WORK_VERDICT_MAX; d++)
			t->verdict_drops[d] += s->drops[d];
		for (d = 0; d < GPUDP_WORK_COUNTERS_MAX; d++)
			t->work_counters[d] += s->counters[d];
		t->ring_full += s->ring_full;
		t->flushes += s->flushes;
		t->gpu_polls += s->gpu_polls;
		t->in_flight += s->in_flight;
		t->ring_slots += gpudp_handoff_conf_get(p->ho)->ring_size;
		gpudp_ho_hist_merge(&t->lat_kstart, &s->lat_kstart);
		gpudp_ho_hist_merge(&t->lat_kend, &s->lat_kend);
		gpudp_ho_hist_merge(&t->lat_done, &s->lat_done);
	}
	free(s);
}

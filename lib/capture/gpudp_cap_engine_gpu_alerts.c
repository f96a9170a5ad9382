/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The GPU engine's alert records (conf.rules with conf.alerts_out;
 * doc/rules.md): the analysis work appends them to an area of its state
 * in GPU memory (struct gpudp_rules_alerts). The host knows how many were
 * made from the work's `alerts` counter, summed over the completed
 * batches in host memory; when they could fill half the area, and at every
 * flush, it waits for the batches in flight, reads the records in one go
 * and empties the area.
 */
#include "gpudp_cap_engine_gpu_pvt.h"

/* the `alerts` counter's index among the work's counters */
#define ALERTS_CTR (offsetof(struct gpudp_an_counters, alerts) / sizeof(uint64_t))
/* records read at once */
#define READ_RECS 16384u

/* the alerts made by the completed batches (the work's counter) */
static uint64_t
alerts_made(struct gpudp_cap_engine *e)
{
	struct gpu_priv *p = e->priv;
	struct gpudp_handoff_stats hs;

	gpudp_handoff_stats_get(p->ho, &hs);
	return hs.counters[ALERTS_CTR];
}

int
gpudp_cap_gpu_alerts_setup(struct gpudp_cap_engine *e)
{
	struct gpu_priv *p = e->priv;
	struct gpudp_rules_alerts h = { .head = 0 };

	if (e->conf.rules == NULL || e->conf.alerts_out == NULL)
		return 0;
	if (e->conf.share != NULL) {
		snprintf(e->err, sizeof(e->err), "the alert records are not given by an engine "
			 "that shares another's tables");
		return -ENOTSUP;
	}
	p->al.room = gpudp_cap_alert_room(&e->conf);
	h.cap = p->al.room;
	if (gpudp_handoff_state_write(p->ho, GPUDP_AN_STATE_ALERTS, 0, &h, sizeof(h)) != 0)
		return gpu_fail(e, "the alert records' area");
	p->al.on = 1;
	return 0;
}

int
gpudp_cap_gpu_alerts_due(struct gpudp_cap_engine *e)
{
	struct gpu_priv *p = e->priv;

	return p->al.on && alerts_made(e) - p->al.taken >= p->al.room / 2;
}

int
gpudp_cap_gpu_alerts_take(struct gpudp_cap_engine *e)
{
	struct gpu_priv *p = e->priv;
	struct gpudp_rules_alerts h;
	struct gpudp_rule_alert *r;
	uint64_t n, i, lost;
	int rc;

	if (!p->al.on)
		return 0;
	rc = gpudp_handoff_state_read(p->ho, GPUDP_AN_STATE_ALERTS, 0, &h, sizeof(h));
	if (rc != 0)
		return gpu_fail(e, "the alert records' area");
	p->al.taken = alerts_made(e);
	if (h.head == 0)
		return 0;
	n = RTE_MIN(h.head, h.cap);
	lost = h.head - n;
	r = malloc(sizeof(*r) * RTE_MIN(n, (uint64_t)READ_RECS));
	if (r == NULL) {
		snprintf(e->err, sizeof(e->err), "out of memory for the alert records");
		return -ENOMEM;
	}
	for (i = 0; i < n && rc == 0; i += READ_RECS) {
		uint32_t k = (uint32_t)RTE_MIN(n - i, (uint64_t)READ_RECS);

		rc = gpudp_handoff_state_read(p->ho, GPUDP_AN_STATE_ALERTS,
					      sizeof(h) + sizeof(*r) * i, r, sizeof(*r) * k);
		if (rc == 0)
			e->conf.alerts_out(e->conf.alerts_arg, r, k, i == 0 ? lost : 0);
	}
	free(r);
	if (rc == 0)
		rc = gpudp_handoff_state_write(p->ho, GPUDP_AN_STATE_ALERTS, 0, NULL,
					       sizeof(h.head));
	return rc != 0 ? gpu_fail(e, "the alert records") : 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The CPU engine (gpudp_cap_engine.h): gpudp_analysis_batch() on the
 * calling thread, one batch at a time; in place, each packet read where it
 * is (device memory through conf.cpu_view).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpudp_cap_engine.h"

struct cpu_priv {
	struct gpudp_analysis *a;
	struct gpudp_cap_batch b;
};

static void
cpu_fini(struct gpudp_cap_engine *e)
{
	struct cpu_priv *p = e->priv;

	if (p == NULL)
		return;
	gpudp_analysis_free(p->a);
	gpudp_cap_batch_arrays_free(&p->b, 1);
	free(p);
	e->priv = NULL;
}

static int
cpu_init(struct gpudp_cap_engine *e, char *err, size_t errlen)
{
	struct cpu_priv *p = calloc(1, sizeof(*p));

	e->priv = p;
	if (p == NULL)
		goto nomem;
	p->a = gpudp_analysis_create(e->conf.flow_capacity, &e->conf.filter);
	if (p->a == NULL || gpudp_cap_batch_arrays_alloc(&p->b, &e->conf, NULL, NULL) != 0 ||
	    gpudp_analysis_set_match(p->a, e->conf.match, e->conf.match_flags) != 0 ||
	    gpudp_analysis_set_rules(p->a, e->conf.rules, e->conf.alerts_out == NULL ? 0 :
				     gpudp_cap_alert_room(&e->conf)) != 0)
		goto nomem;
	if (e->conf.life != NULL &&
	    gpudp_analysis_life_start(p->a, e->conf.life, e->conf.flows_out,
				      e->conf.flows_arg) != 0) {
		cpu_fini(e);
		snprintf(err, errlen, "the flow monitor needs a function for its records");
		return -EINVAL;
	}
	snprintf(e->st.device, sizeof(e->st.device), "CPU");
	return 0;
nomem:
	cpu_fini(e);
	snprintf(err, errlen, "out of memory for the CPU engine");
	return -ENOMEM;
}

static struct gpudp_cap_batch *
cpu_get_batch(struct gpudp_cap_engine *e)
{
	struct cpu_priv *p = e->priv;

	gpudp_cap_batch_reset(&p->b);
	return &p->b;
}

/* In place on the CPU: each packet where it is (host memory, or device
 * memory through the caller's CPU mapping). */
static uint32_t
cpu_analyse_refs(struct gpudp_cap_engine *e, struct gpudp_analysis *a, struct gpudp_cap_batch *b)
{
	uint32_t i, hits = 0;

	memset(b->match, 0, sizeof(*b->match) * ((b->n + 31) / 32));
	for (i = 0; i < b->n; i++) {
		const struct gpudp_an_pkt_ref *r = &b->ref[i];
		const uint8_t *p = e->conf.mem == GPUDP_CAP_MEM_HOST ?
			(const uint8_t *)(uintptr_t)r->addr :
			e->conf.cpu_view(e->conf.view_arg, r->addr, r->caplen);

		b->view[i] = p;
		if (p == NULL) {
			e->st.unreadable++;
			continue;
		}
		if (gpudp_analysis_packet(a, p, r->caplen, r->wirelen, r->ts_ns)) {
			hits++;
			b->match[i / 32] |= 1u << (i % 32);
		}
	}
	return hits;
}

static int
cpu_submit(struct gpudp_cap_engine *e, struct gpudp_cap_batch *b)
{
	struct cpu_priv *p = e->priv;
	double t0;

	if (b->n == 0)
		return 0;
	t0 = gpudp_cap_now_s();
	if (b->inplace)
		b->n_match = cpu_analyse_refs(e, p->a, b);
	else
		b->n_match = gpudp_analysis_batch(p->a, b->desc, b->data, b->n, b->match);
	if (e->conf.life != NULL)
		gpudp_analysis_life_tick(p->a, gpudp_cap_batch_newest(b), e->conf.batch_pkts);
	if (e->conf.alerts_out != NULL)
		gpudp_analysis_alerts_take(p->a, e->conf.alerts_out, e->conf.alerts_arg);
	e->st.busy_ms += (gpudp_cap_now_s() - t0) * 1e3;
	e->st.pkts += b->n;
	e->st.bytes += b->cap_bytes;
	e->st.batches++;
	if (e->conf.done != NULL)
		e->conf.done(e->conf.done_arg, b);
	if (b->inplace)
		e->conf.release(e->conf.done_arg, b->owner, b->n);
	b->n = 0;
	b->data_used = 0;
	b->cap_bytes = 0;
	return 0;
}

static int
cpu_flush(struct gpudp_cap_engine *e)
{
	(void)e;
	return 0;
}

/* The CPU engine finishes every batch in submit: nothing is ever in flight. */
static int
cpu_reap(struct gpudp_cap_engine *e)
{
	(void)e;
	return 0;
}

static int
cpu_collect(struct gpudp_cap_engine *e, struct gpudp_analysis *out)
{
	struct cpu_priv *p = e->priv;

	gpudp_analysis_reset(out);
	return gpudp_analysis_add(out, p->a);
}

static int
cpu_end_flows(struct gpudp_cap_engine *e)
{
	struct cpu_priv *p = e->priv;

	gpudp_analysis_life_end(p->a);
	return 0;
}

static void
cpu_flow_stats(const struct gpudp_cap_engine *e, struct gpudp_flow_life_stats *st)
{
	const struct cpu_priv *p = e->priv;

	gpudp_analysis_life_stats(p->a, st);
}

const struct gpudp_cap_engine_ops gpudp_cap_engine_cpu_ops = {
	.name = "cpu",
	.init = cpu_init,
	.get_batch = cpu_get_batch,
	.submit = cpu_submit,
	.flush = cpu_flush,
	.reap = cpu_reap,
	.collect = cpu_collect,
	.fini = cpu_fini,
	.end_flows = cpu_end_flows,
	.flow_stats = cpu_flow_stats,
};

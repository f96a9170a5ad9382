/* SPDX-License-Identifier: BSD-3-Clause */
/* Engine creation by name; the CPU engine. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine.h"

int
cap_engine_create(struct cap_engine *e, const char *name, const struct cap_engine_conf *conf,
		  char *err, size_t errlen)
{
	const struct cap_engine_ops *ops = NULL;
	int rc;

	memset(e, 0, sizeof(*e));
	if (strcmp(name, "cpu") == 0)
		ops = &cap_engine_cpu_ops;
#ifdef GPUDP_HAS_CUDA
	else if (strcmp(name, "gpu") == 0)
		ops = &cap_engine_gpu_ops;
#endif
	if (ops == NULL) {
		snprintf(err, errlen, "engine '%s' is not available in this build%s", name,
			 strcmp(name, "gpu") == 0 ? " (built without CUDA)" : "");
		return -ENOTSUP;
	}
	if (conf->batch_pkts == 0 || conf->batch_bytes == 0 ||
	    gpudp_analysis_capacity(conf->flow_capacity) != conf->flow_capacity) {
		snprintf(err, errlen, "bad engine configuration");
		return -EINVAL;
	}
	e->ops = ops;
	e->conf = *conf;
	if (e->conf.inflight == 0)
		e->conf.inflight = 1;
	rc = ops->init(e, err, errlen);
	if (rc != 0)
		e->ops = NULL;
	return rc;
}

void
cap_engine_destroy(struct cap_engine *e)
{
	if (e->ops == NULL)
		return;
	e->ops->flush(e);
	e->ops->fini(e);
	e->ops = NULL;
}

/* ---- CPU engine ---- */

struct cpu_priv {
	struct gpudp_analysis *a;
	struct cap_batch b;
};

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void
cpu_fini(struct cap_engine *e)
{
	struct cpu_priv *p = e->priv;

	if (p == NULL)
		return;
	gpudp_analysis_free(p->a);
	free(p->b.desc);
	free(p->b.data);
	free(p->b.match);
	free(p);
	e->priv = NULL;
}

static int
cpu_init(struct cap_engine *e, char *err, size_t errlen)
{
	struct cpu_priv *p = calloc(1, sizeof(*p));

	e->priv = p;
	if (p == NULL)
		goto nomem;
	p->a = gpudp_analysis_create(e->conf.flow_capacity, &e->conf.filter);
	p->b.desc = calloc(e->conf.batch_pkts, sizeof(*p->b.desc));
	p->b.data = malloc(e->conf.batch_bytes);
	p->b.match = calloc((e->conf.batch_pkts + 31) / 32, sizeof(uint32_t));
	if (p->a == NULL || p->b.desc == NULL || p->b.data == NULL || p->b.match == NULL)
		goto nomem;
	p->b.max_pkts = e->conf.batch_pkts;
	p->b.data_cap = e->conf.batch_bytes;
	snprintf(e->st.device, sizeof(e->st.device), "CPU");
	return 0;
nomem:
	cpu_fini(e);
	snprintf(err, errlen, "out of memory for the CPU engine");
	return -ENOMEM;
}

static struct cap_batch *
cpu_get_batch(struct cap_engine *e)
{
	struct cpu_priv *p = e->priv;

	p->b.n = 0;
	p->b.data_used = 0;
	p->b.cap_bytes = 0;
	p->b.n_match = 0;
	return &p->b;
}

static int
cpu_submit(struct cap_engine *e, struct cap_batch *b)
{
	struct cpu_priv *p = e->priv;
	double t0;

	if (b->n == 0)
		return 0;
	t0 = now_ms();
	b->n_match = gpudp_analysis_batch(p->a, b->desc, b->data, b->n, b->match);
	e->st.busy_ms += now_ms() - t0;
	e->st.pkts += b->n;
	e->st.bytes += b->cap_bytes;
	e->st.batches++;
	if (e->conf.done != NULL)
		e->conf.done(e->conf.done_arg, b);
	b->n = 0;
	b->data_used = 0;
	b->cap_bytes = 0;
	return 0;
}

static int
cpu_flush(struct cap_engine *e)
{
	(void)e;
	return 0;
}

static int
cpu_collect(struct cap_engine *e, struct gpudp_analysis *out)
{
	struct cpu_priv *p = e->priv;

	gpudp_analysis_reset(out);
	return gpudp_analysis_merge(out, &p->a->ctr, p->a->flows, p->a->flow_mask + 1);
}

const struct cap_engine_ops cap_engine_cpu_ops = {
	.name = "cpu",
	.init = cpu_init,
	.get_batch = cpu_get_batch,
	.submit = cpu_submit,
	.flush = cpu_flush,
	.collect = cpu_collect,
	.fini = cpu_fini,
};

/* SPDX-License-Identifier: BSD-3-Clause */
/* Engine creation by name; the CPU engine. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpudp_cap_engine.h"

int
gpudp_cap_engine_create(struct gpudp_cap_engine *e, const char *name,
			const struct gpudp_cap_engine_conf *conf, char *err, size_t errlen)
{
	const struct gpudp_cap_engine_ops *ops = NULL;
	int rc;

	memset(e, 0, sizeof(*e));
	if (strcmp(name, "cpu") == 0)
		ops = &gpudp_cap_engine_cpu_ops;
#ifdef GPUDP_HAS_CUDA
	else if (strcmp(name, "gpu") == 0)
		ops = &gpudp_cap_engine_gpu_ops;
#endif
	if (ops == NULL) {
		snprintf(err, errlen, "engine '%s' is not available in this build%s", name,
			 strcmp(name, "gpu") == 0 ? " (built without CUDA)" : "");
		return -ENOTSUP;
	}
	if (conf->batch_pkts == 0 || conf->batch_bytes == 0 ||
	    gpudp_analysis_capacity(conf->flow_capacity) != conf->flow_capacity ||
	    (unsigned int)conf->mem > GPUDP_CAP_MEM_DEVICE ||
	    (conf->mem != GPUDP_CAP_MEM_STAGED && conf->release == NULL)) {
		snprintf(err, errlen, "bad engine configuration");
		return -EINVAL;
	}
	if (ops == &gpudp_cap_engine_cpu_ops && conf->mem == GPUDP_CAP_MEM_DEVICE &&
	    conf->cpu_view == NULL) {
		snprintf(err, errlen, "the CPU engine cannot read device memory without a CPU "
			 "mapping of it");
		return -ENOTSUP;
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
gpudp_cap_engine_stats_add(struct gpudp_cap_engine_stats *dst,
			   const struct gpudp_cap_engine_stats *src)
{
	dst->pkts += src->pkts;
	dst->bytes += src->bytes;
	dst->batches += src->batches;
	dst->copy_bytes += src->copy_bytes;
	dst->copy_out_bytes += src->copy_out_bytes;
	dst->unreadable += src->unreadable;
	dst->busy_ms += src->busy_ms;
	dst->kernel_ms += src->kernel_ms;
	dst->wait_ms += src->wait_ms;
	dst->submit_ms += src->submit_ms;
}

void
gpudp_cap_engine_destroy(struct gpudp_cap_engine *e)
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
	struct gpudp_cap_batch b;
};

/* A batch's arrays: staged (descriptors and data) or in place (references,
 * owners, views; data only for what the GPU engine copies out). */
int
gpudp_cap_batch_arrays_alloc(struct gpudp_cap_batch *b, const struct gpudp_cap_engine_conf *c,
			     uint8_t *data, struct gpudp_an_pkt_desc *desc)
{
	b->match = calloc((c->batch_pkts + 31) / 32, sizeof(uint32_t));
	if (c->mem == GPUDP_CAP_MEM_STAGED) {
		b->desc = desc != NULL ? desc : calloc(c->batch_pkts, sizeof(*b->desc));
		b->data = data != NULL ? data : malloc(c->batch_bytes);
		if (b->desc == NULL || b->data == NULL)
			return -ENOMEM;
	} else {
		b->inplace = 1;
		b->ref = calloc(c->batch_pkts, sizeof(*b->ref));
		b->owner = calloc(c->batch_pkts, sizeof(*b->owner));
		b->view = calloc(c->batch_pkts, sizeof(*b->view));
		if (b->ref == NULL || b->owner == NULL || b->view == NULL)
			return -ENOMEM;
	}
	b->max_pkts = c->batch_pkts;
	b->data_cap = c->batch_bytes;
	return b->match == NULL ? -ENOMEM : 0;
}

void
gpudp_cap_batch_arrays_free(struct gpudp_cap_batch *b, int free_data)
{
	gpudp_cap_batch_lend(b, NULL, 0);   /* its own area back */
	if (free_data) {
		free(b->desc);
		free(b->data);
	}
	free(b->match);
	free(b->ref);
	free(b->owner);
	free(b->view);
	b->desc = NULL;
	b->data = NULL;
	b->match = NULL;
	b->ref = NULL;
	b->owner = NULL;
	b->view = NULL;
}

double
gpudp_cap_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

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
	    gpudp_analysis_set_match(p->a, e->conf.match, e->conf.match_flags) != 0)
		goto nomem;
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

const struct gpudp_cap_engine_ops gpudp_cap_engine_cpu_ops = {
	.name = "cpu",
	.init = cpu_init,
	.get_batch = cpu_get_batch,
	.submit = cpu_submit,
	.flush = cpu_flush,
	.reap = cpu_reap,
	.collect = cpu_collect,
	.fini = cpu_fini,
};

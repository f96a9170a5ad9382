/* SPDX-License-Identifier: BSD-3-Clause */
/* The engines (gpudp_cap_engine.h): creation by name, what every engine shares. */
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
	if (conf->life != NULL && conf->batch_pkts > conf->flow_capacity / 2) {
		snprintf(err, errlen, "the flow monitor needs a flow table of at least twice "
			 "the batch: %u slots for batches of %u packets", conf->flow_capacity,
			 conf->batch_pkts);
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

/* A batch's arrays: staged (descriptors and data) or in place (references,
 * owners, views; data only for what the GPU engine copies out). */
int
gpudp_cap_batch_arrays_alloc(struct gpudp_cap_batch *b, const struct gpudp_cap_engine_conf *c,
			     uint8_t *data, struct gpudp_pkt_desc *desc)
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

int
gpudp_cap_engine_end_flows(struct gpudp_cap_engine *e)
{
	int rc;

	if (e->ops == NULL || e->ops->end_flows == NULL)
		return 0;
	rc = e->ops->flush(e);
	return rc != 0 ? rc : e->ops->end_flows(e);
}

void
gpudp_cap_engine_flow_stats(const struct gpudp_cap_engine *e, struct gpudp_flow_life_stats *st)
{
	if (e->ops == NULL || e->ops->flow_stats == NULL)
		memset(st, 0, sizeof(*st));
	else
		e->ops->flow_stats(e, st);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The GPU engine's set-up (gpudp_cap_engine_gpu_pvt.h): the handoff that
 * runs the analysis work, in the caller's CUDA context or the GPU's
 * primary one, with the work's tables and state (its own, or those of
 * another engine's handoff it shares), and a batch for each slot of its
 * ring; host memory registered for batches in place.
 */
#include "gpudp_cap_engine_gpu_pvt.h"
#include "gpudp_cuda.h"

void
gpudp_cap_gpu_fini(struct gpudp_cap_engine *e)
{
	struct gpu_priv *p = e->priv;
	uint32_t i;

	if (p == NULL)
		return;
	/* waits for everything submitted: no kernel reads a packet after this */
	if (p->ho != NULL)
		gpudp_handoff_stop(p->ho);
	gpudp_cap_gpu_flows_stop(e);
	for (i = 0; p->slots != NULL && i < p->n_slots; i++) {
		struct gpu_slot *s = &p->slots[i];

		/* a failed engine: the owners go back all the same */
		if (s->submitted && !s->dead && s->b.inplace && s->b.n > 0)
			e->conf.release(e->conf.done_arg, s->b.owner, s->b.n);
		gpudp_cap_batch_arrays_free(&s->b, 0);
	}
	free(p->slots);
	if (p->ho != NULL) {
		gpudp_handoff_host_free(p->ho, p->pinned);
		gpudp_handoff_host_free(p->ho, p->pdesc);
		gpudp_handoff_host_free(p->ho, p->fl.x);
		gpudp_handoff_host_free(p->ho, p->fl.desc);
		for (i = 0; i < FL_AREAS; i++)
			gpudp_handoff_host_free(p->ho, p->fl.area[i]);
	}
	gpudp_handoff_destroy(p->ho);
	free(p);
	e->priv = NULL;
}

/* conf.share: its handoff's state (the same GPU, shapes and settings) */
static const struct gpudp_handoff *
gpu_state_from(struct gpudp_cap_engine *e)
{
	const struct gpudp_cap_engine *o = e->conf.share;
	const struct gpu_priv *q;

	if (o == NULL)
		return NULL;
	q = o->priv;
	if (o->ops != &gpudp_cap_engine_gpu_ops || q == NULL || q->shared ||
	    o->conf.flow_capacity != e->conf.flow_capacity || o->conf.match != e->conf.match ||
	    o->conf.match_flags != e->conf.match_flags || o->conf.rules != e->conf.rules ||
	    memcmp(&o->conf.filter, &e->conf.filter, sizeof(e->conf.filter)) != 0)
		return NULL;
	return q->ho;
}

/*
 * The handoff that runs the work: staged or launch mode, one burst per
 * batch, in the caller's context (conf.cu_ctx) or the GPU's primary one;
 * the work's tables and state are the handoff's, or conf.share's.
 */
static int
gpu_handoff(struct gpudp_cap_engine *e, uint32_t data_cap)
{
	struct gpu_priv *p = e->priv;
	/* only the headers are staged, unless the payload is inspected */
	const struct gpudp_work *w = e->conf.rules != NULL ? gpudp_analysis_work_rules() :
		e->conf.match != NULL ? gpudp_analysis_work_payload() : gpudp_analysis_work();
	int staged = e->conf.mem == GPUDP_CAP_MEM_STAGED ||
		(e->conf.mem == GPUDP_CAP_MEM_HOST && e->conf.gather);
	struct gpudp_an_work_params prm;
	struct gpudp_handoff_conf hc = {
		.name = "capture",
		.mode = staged ? GPUDP_HO_STAGED : GPUDP_HO_LAUNCH,
		/* staged: a frame past the span keeps the rest where it lies, as
		 * its second segment (gpudp_analysis_work.h) */
		.segs = staged ? 2 : 1,
		.work = w, .params = &prm, .meta = 1,
		.ring_size = p->n_slots,
		.burst_max = e->conf.batch_pkts,
		/* a packet may fill the batch; each takes its bytes rounded up
		 * to 64 in the staging area */
		.stage_bytes = RTE_MAX(data_cap, 64u),
		.stage_burst_bytes = data_cap + e->conf.batch_pkts * 64,
		.stage_gpu_copy = 1,
		.cu_ctx = e->conf.cu_ctx,
		.cu_dev = e->conf.gpu_device,
		.lat_sample = 1,
		.state_from = gpu_state_from(e),
		/* the flow monitor's looks run behind the batches before them */
		.ordered = e->conf.life != NULL,
	};

	if (w == NULL) {
		snprintf(e->err, sizeof(e->err), "cannot register the analysis work");
		return -EINVAL;
	}
	if (e->conf.share != NULL && hc.state_from == NULL) {
		snprintf(e->err, sizeof(e->err), "cannot share the tables of an engine of "
			 "another GPU context or configuration");
		return -EINVAL;
	}
	p->shared = hc.state_from != NULL;
	gpudp_analysis_work_params(&prm, e->conf.flow_capacity, &e->conf.filter, e->conf.match,
				   e->conf.match_flags);
	if (e->conf.life != NULL)
		gpudp_analysis_work_monitor(&prm);
	if (e->conf.rules != NULL)
		gpudp_analysis_work_params_rules(&prm, e->conf.rules,
						 e->conf.alerts_out != NULL ?
						 gpudp_cap_alert_room(&e->conf) : 0);
	p->span = staged ? w->span : 0;
	p->staged = staged;
	p->ho = gpudp_handoff_create(&hc);
	if (p->ho == NULL) {
		int rc = -rte_errno;

		if (rc == -ENODEV && e->conf.cu_ctx == 0)
			snprintf(e->err, sizeof(e->err), "GPU %d does not exist",
				 e->conf.gpu_device);
		else
			snprintf(e->err, sizeof(e->err), "cannot create the handoff (mode %s): %s",
				 gpudp_ho_mode_name(hc.mode), rte_strerror(-rc));
		return rc;
	}
	if (gpudp_handoff_device_name(p->ho, e->st.device, sizeof(e->st.device)) != 0)
		return gpu_fail(e, "the GPU's name");
	if (e->conf.mem == GPUDP_CAP_MEM_HOST) {
		int rc = gpudp_handoff_reads_host(p->ho, e->err, sizeof(e->err));

		if (rc <= 0)
			return rc < 0 ? gpu_fail(e, "the GPU's attributes") : -ENOTSUP;
	}
	p->clk_t = gpudp_ho_now_ns();
	if (gpudp_handoff_start(p->ho) != 0) {
		snprintf(e->err, sizeof(e->err), "cannot start the handoff");
		return -EIO;
	}
	return 0;
}

/*
 * A batch for each slot of the handoff's ring. Staged: the packets, read
 * by the handoff's gather kernel, and their descriptors, which the GPU
 * reads as they are, in pinned memory; device in place: the matches
 * copied out, there too.
 */
static int
gpu_slots(struct gpudp_cap_engine *e, uint32_t data_cap)
{
	struct gpu_priv *p = e->priv;
	uint32_t i;

	p->slots = calloc(p->n_slots, sizeof(*p->slots));
	if (p->slots == NULL) {
		snprintf(e->err, sizeof(e->err), "out of memory");
		return -ENOMEM;
	}
	/* data areas for the batches being filled or in flight, taken in
	 * turn (the ring's other slots are the flow monitor's looks) */
	p->n_data = RTE_MIN(p->n_slots, RTE_MAX(e->conf.inflight, 1u) + 1);
	if (e->conf.mem != GPUDP_CAP_MEM_HOST) {
		p->pinned = gpudp_handoff_host_alloc(p->ho, (size_t)p->n_data * data_cap);
		if (p->pinned == NULL)
			return gpu_fail(e, "pinned memory for the batches");
	}
	if (e->conf.mem == GPUDP_CAP_MEM_STAGED) {
		p->pdesc = gpudp_handoff_host_alloc(p->ho, (size_t)p->n_slots *
						    e->conf.batch_pkts * sizeof(*p->pdesc));
		if (p->pdesc == NULL)
			return gpu_fail(e, "pinned memory for the descriptors");
	}
	for (i = 0; i < p->n_slots; i++) {
		struct gpu_slot *s = &p->slots[i];
		struct gpudp_cap_engine_conf c = e->conf;
		uint8_t *data = p->pinned != NULL ?
			p->pinned + (size_t)(i % p->n_data) * data_cap : NULL;
		struct gpudp_pkt_desc *desc = p->pdesc != NULL ?
			p->pdesc + (size_t)i * e->conf.batch_pkts : NULL;

		c.batch_bytes = data_cap;
		if (gpudp_cap_batch_arrays_alloc(&s->b, &c, data, desc) != 0) {
			snprintf(e->err, sizeof(e->err), "out of memory");
			return -ENOMEM;
		}
		s->b.data = data;
		s->b.data_cap = data_cap;
		s->b.slot = i;
	}
	return 0;
}

static int
gpu_setup(struct gpudp_cap_engine *e)
{
	struct gpu_priv *p = e->priv;
	/* the staging area of a burst holds the batch's bytes, each packet
	 * rounded up to 64 */
	uint32_t data_cap = (uint32_t)RTE_MIN((uint64_t)e->conf.batch_bytes, GPUDP_HO_STAGE_MAX -
					      64ull * e->conf.batch_pkts) & ~63u;
	int rc;

	if (e->conf.life != NULL && e->conf.share != NULL) {
		snprintf(e->err, sizeof(e->err), "the flow monitor does not share its tables");
		return -EINVAL;
	}
	if (e->conf.batch_pkts > GPUDP_HO_BATCH_MAX || data_cap < 64) {
		snprintf(e->err, sizeof(e->err), "batches of %u packets: at most %u on the GPU",
			 e->conf.batch_pkts, GPUDP_HO_BATCH_MAX);
		return -EINVAL;
	}
	/* conf.inflight batches in flight, and the flow monitor's looks, in a
	 * ring of a power of two */
	p->n_slots = rte_align32pow2(RTE_MAX(e->conf.inflight, 2u) +
				     (e->conf.life != NULL ? FL_AREAS * FL_PASSES : 0));
	rc = gpu_handoff(e, data_cap);
	if (rc == 0)
		rc = gpu_slots(e, data_cap);
	if (rc == 0)
		rc = gpudp_cap_gpu_alerts_setup(e);
	return rc != 0 ? rc : gpudp_cap_gpu_flows_setup(e);
}

int
gpudp_cap_gpu_init(struct gpudp_cap_engine *e, char *err, size_t errlen)
{
	int rc = gpudp_cuda_init();

	if (rc != 0) {
		snprintf(err, errlen, "no usable GPU: %s", gpudp_cuda_last_error());
		return rc;
	}
	e->priv = calloc(1, sizeof(struct gpu_priv));
	if (e->priv == NULL) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	rc = gpu_setup(e);
	if (rc != 0) {
		snprintf(err, errlen, "%s", e->err);
		gpudp_cap_gpu_fini(e);
	}
	return rc;
}

int
gpudp_cap_gpu_host_register(struct gpudp_cap_engine *e, const void *addr, size_t len)
{
	struct gpu_priv *p = e->priv;
	int rc = gpudp_handoff_host_register(p->ho, addr, len);

	if (rc != 0)
		snprintf(e->err, sizeof(e->err), "%s", gpudp_handoff_error(p->ho));
	return rc;
}

void
gpudp_cap_gpu_host_unregister(struct gpudp_cap_engine *e, const void *addr)
{
	struct gpu_priv *p = e->priv;

	gpudp_handoff_host_unregister(p->ho, addr);
}

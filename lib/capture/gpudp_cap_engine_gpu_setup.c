/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The GPU engine's set-up (gpudp_cap_engine_gpu_pvt.h): its CUDA context,
 * the analysis tables in GPU memory (its own, or another engine's it
 * shares), the handoff that runs the analysis work and its batch slots;
 * host memory registered for batches in place.
 */
#include "gpudp_cap_engine_gpu_pvt.h"

void
gpudp_cap_gpu_fini(struct gpudp_cap_engine *e)
{
	struct gpu_priv *p = e->priv;
	uint32_t i;

	if (p == NULL)
		return;
	if (p->ctx != NULL)
		gpudp_cu->cuCtxSetCurrent(p->ctx);
	/* waits for everything submitted: no kernel reads a packet after this */
	gpudp_handoff_destroy(p->ho);
	if (p->copy_stream != NULL) {
		gpudp_cu->cuStreamSynchronize(p->copy_stream);
		gpudp_cu->cuStreamDestroy(p->copy_stream);
	}
	for (i = 0; p->slots != NULL && i < p->n_slots; i++) {
		struct gpu_slot *s = &p->slots[i];

		/* a failed engine: the owners go back all the same */
		if (s->hb != NULL && !s->dead && s->b.inplace && s->b.n > 0)
			e->conf.release(e->conf.done_arg, s->b.owner, s->b.n);
		gpudp_cap_batch_arrays_free(&s->b, 0);
	}
	free(p->slots);
	if (p->pinned != NULL)
		gpudp_cu->cuMemFreeHost(p->pinned);
	if (p->pdesc != NULL)
		gpudp_cu->cuMemFreeHost(p->pdesc);
	if (!p->shared) {
		if (p->d_flows != 0)
			gpudp_cu->cuMemFree(p->d_flows);
		if (p->d_filter != 0)
			gpudp_cu->cuMemFree(p->d_filter);
		if (p->d_frags != 0)
			gpudp_cu->cuMemFree(p->d_frags);
		if (p->d_match != 0)
			gpudp_cu->cuMemFree(p->d_match);
		if (p->d_match_cnt != 0)
			gpudp_cu->cuMemFree(p->d_match_cnt);
	}
	if (p->retained)
		gpudp_cu->cuDevicePrimaryCtxRelease(p->dev);
	free(p);
	e->priv = NULL;
}

/* the context: the caller's (gpudev's), or the GPU's primary one */
static int
gpu_context(struct gpudp_cap_engine *e)
{
	struct gpu_priv *p = e->priv;
	char name[64], bus[32];
	int n_dev = 0;

	if (e->conf.cu_ctx != 0) {
		p->ctx = (CUcontext)(uintptr_t)e->conf.cu_ctx;
		CU(e, gpudp_cu->cuCtxSetCurrent(p->ctx));
		CU(e, gpudp_cu->cuCtxGetDevice(&p->dev));
	} else {
		CU(e, gpudp_cu->cuDeviceGetCount(&n_dev));
		if (e->conf.gpu_device < 0 || e->conf.gpu_device >= n_dev) {
			snprintf(e->err, sizeof(e->err), "GPU %d does not exist (%d GPU%s found)",
				 e->conf.gpu_device, n_dev, n_dev == 1 ? "" : "s");
			return -ENODEV;
		}
		CU(e, gpudp_cu->cuDeviceGet(&p->dev, e->conf.gpu_device));
		CU(e, gpudp_cu->cuDevicePrimaryCtxRetain(&p->ctx, p->dev));
		p->retained = 1;
		CU(e, gpudp_cu->cuCtxSetCurrent(p->ctx));
	}
	CU(e, gpudp_cu->cuDeviceGetName(name, sizeof(name), p->dev));
	if (gpudp_cu->cuDeviceGetPCIBusId(bus, sizeof(bus), p->dev) != CUDA_SUCCESS)
		snprintf(bus, sizeof(bus), "?");
	snprintf(e->st.device, sizeof(e->st.device), "GPU %d: %s (%s)", (int)p->dev, name, bus);
	if (e->conf.mem == GPUDP_CAP_MEM_HOST) {
		int uva = 0, hostptr = 0;

		CU(e, gpudp_cu->cuDeviceGetAttribute(&uva, CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING,
						     p->dev));
		CU(e, gpudp_cu->cuDeviceGetAttribute(&hostptr,
			CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM, p->dev));
		if (!uva || !hostptr) {
			snprintf(e->err, sizeof(e->err), "GPU %d cannot read registered host "
				 "memory at its host address (unified addressing %d, host pointer "
				 "for registered memory %d)", (int)p->dev, uva, hostptr);
			return -ENOTSUP;
		}
	}
	return 0;
}

/* payload inspection: the database and the per-pattern counts in GPU memory */
static int
gpu_match_tables(struct gpudp_cap_engine *e)
{
	struct gpu_priv *p = e->priv;
	const struct gpudp_match_db *db = e->conf.match;
	size_t cnt_bytes;

	if (db == NULL)
		return 0;
	cnt_bytes = 2 * sizeof(uint64_t) * db->n_patterns;
	CU(e, gpudp_cu->cuMemAlloc(&p->d_match, db->size));
	CU(e, gpudp_cu->cuMemAlloc(&p->d_match_cnt, cnt_bytes));
	CU(e, gpudp_cu->cuMemcpyHtoD(p->d_match, db, db->size));
	CU(e, gpudp_cu->cuMemsetD8(p->d_match_cnt, 0, cnt_bytes));
	return 0;
}

/* the work's parameters: where the tables are (its own, or the owner's) */
static void
gpu_params(struct gpudp_cap_engine *e, struct gpudp_an_work_params *prm)
{
	struct gpu_priv *p = e->priv;

	memset(prm, 0, sizeof(*prm));
	prm->flows = p->d_flows;
	prm->frags = p->d_frags;
	prm->filter = p->d_filter;
	prm->flow_mask = e->conf.flow_capacity - 1;
	prm->frag_mask = p->frag_capacity - 1;
	if (p->d_match != 0) {
		prm->match = p->d_match;
		prm->match_occ = p->d_match_cnt;
		prm->match_pkts = p->d_match_cnt + sizeof(uint64_t) * e->conf.match->n_patterns;
		prm->match_flags = e->conf.match_flags;
	}
}

/* conf.share: the owner's tables (the same context, shapes and settings) */
static int
gpu_tables_shared(struct gpudp_cap_engine *e, struct gpudp_an_work_params *prm)
{
	struct gpu_priv *p = e->priv;
	const struct gpudp_cap_engine *o = e->conf.share;
	const struct gpu_priv *q = o->priv;

	if (o->ops != &gpudp_cap_engine_gpu_ops || q == NULL || q->shared || q->ctx != p->ctx ||
	    o->conf.flow_capacity != e->conf.flow_capacity || o->conf.match != e->conf.match ||
	    o->conf.match_flags != e->conf.match_flags ||
	    memcmp(&o->conf.filter, &e->conf.filter, sizeof(e->conf.filter)) != 0) {
		snprintf(e->err, sizeof(e->err), "cannot share the tables of an engine of "
			 "another GPU context or configuration");
		return -EINVAL;
	}
	p->shared = 1;
	p->frag_capacity = q->frag_capacity;
	p->d_flows = q->d_flows;
	p->d_frags = q->d_frags;
	p->d_filter = q->d_filter;
	p->d_match = q->d_match;
	p->d_match_cnt = q->d_match_cnt;
	gpu_params(e, prm);
	return 0;
}

/* the analysis tables in GPU memory: the work's parameters */
static int
gpu_tables(struct gpudp_cap_engine *e, struct gpudp_an_work_params *prm)
{
	struct gpu_priv *p = e->priv;
	size_t flows_bytes = sizeof(struct gpudp_flow_slot) * (size_t)e->conf.flow_capacity;
	size_t frags_bytes;

	if (e->conf.share != NULL)
		return gpu_tables_shared(e, prm);
	p->frag_capacity = gpudp_analysis_frag_capacity(e->conf.flow_capacity);
	frags_bytes = sizeof(struct gpudp_frag_slot) * (size_t)p->frag_capacity;
	CU(e, gpudp_cu->cuMemAlloc(&p->d_flows, flows_bytes));
	CU(e, gpudp_cu->cuMemAlloc(&p->d_filter, sizeof(struct gpudp_filter)));
	CU(e, gpudp_cu->cuMemAlloc(&p->d_frags, frags_bytes));
	CU(e, gpudp_cu->cuMemsetD8(p->d_flows, 0, flows_bytes));
	CU(e, gpudp_cu->cuMemsetD8(p->d_frags, 0, frags_bytes));
	CU(e, gpudp_cu->cuMemcpyHtoD(p->d_filter, &e->conf.filter, sizeof(struct gpudp_filter)));
	if (gpu_match_tables(e) != 0)
		return -EIO;
	gpu_params(e, prm);
	return 0;
}

/* the handoff that runs the work: staged or launch mode, one burst per batch */
static int
gpu_handoff(struct gpudp_cap_engine *e, const struct gpudp_an_work_params *prm, uint32_t data_cap)
{
	struct gpu_priv *p = e->priv;
	/* only the headers are staged, unless the payload is inspected */
	const struct gpudp_work *w = e->conf.match != NULL ? gpudp_analysis_work_payload() :
		gpudp_analysis_work();
	int staged = e->conf.mem == GPUDP_CAP_MEM_STAGED ||
		(e->conf.mem == GPUDP_CAP_MEM_HOST && e->conf.gather);
	struct gpudp_handoff_conf hc = {
		.name = "capture",
		.mode = staged ? GPUDP_HO_STAGED : GPUDP_HO_LAUNCH,
		/* staged: a frame past the span keeps the rest where it lies, as
		 * its second segment (gpudp_analysis_work.h) */
		.segs = staged ? 2 : 1,
		.work = w, .params = prm, .meta = 1,
		.ring_size = (uint32_t)rte_align32pow2(RTE_MAX(e->conf.inflight, 2u)),
		.burst_max = e->conf.batch_pkts,
		/* a packet may fill the batch; each takes its bytes rounded up
		 * to 64 in the staging area */
		.stage_bytes = RTE_MAX(data_cap, 64u),
		.stage_burst_bytes = data_cap + e->conf.batch_pkts * 64,
		.stage_gpu_copy = 1,
		.cu_ctx = (uint64_t)(uintptr_t)p->ctx,
		.lat_sample = 1,
	};

	if (w == NULL) {
		snprintf(e->err, sizeof(e->err), "cannot register the analysis work");
		return -EINVAL;
	}
	p->span = staged ? w->span : 0;
	p->ho = gpudp_handoff_create(&hc);
	if (p->ho == NULL) {
		snprintf(e->err, sizeof(e->err), "cannot create the handoff (mode %s): %s",
			 gpudp_ho_mode_name(hc.mode), rte_strerror(rte_errno));
		return -rte_errno;
	}
	p->clk_t = gpudp_ho_now_ns();
	if (gpudp_handoff_start(p->ho) != 0) {
		snprintf(e->err, sizeof(e->err), "cannot start the handoff");
		return -EIO;
	}
	return 0;
}

static int
gpu_setup(struct gpudp_cap_engine *e)
{
	struct gpu_priv *p = e->priv;
	struct gpudp_an_work_params prm;
	/* the staging area of a burst holds the batch's bytes, each packet
	 * rounded up to 64 */
	uint32_t data_cap = (uint32_t)RTE_MIN((uint64_t)e->conf.batch_bytes, GPUDP_HO_STAGE_MAX -
					      64ull * e->conf.batch_pkts) & ~63u;
	uint32_t i;
	int rc;

	if (e->conf.batch_pkts > GPUDP_HO_BATCH_MAX || data_cap < 64) {
		snprintf(e->err, sizeof(e->err), "batches of %u packets: at most %u on the GPU",
			 e->conf.batch_pkts, GPUDP_HO_BATCH_MAX);
		return -EINVAL;
	}
	rc = gpu_context(e);
	if (rc == 0)
		rc = gpu_tables(e, &prm);
	if (rc == 0 && e->conf.mem == GPUDP_CAP_MEM_DEVICE)
		CU(e, gpudp_cu->cuStreamCreate(&p->copy_stream, CU_STREAM_NON_BLOCKING));
	if (rc != 0)
		return rc;
	p->n_slots = e->conf.inflight;
	p->slots = calloc(p->n_slots, sizeof(*p->slots));
	if (p->slots == NULL) {
		snprintf(e->err, sizeof(e->err), "out of memory");
		return -ENOMEM;
	}
	/* staged: the packets, read by the handoff's gather kernel; device
	 * in place: the matches copied out */
	if (e->conf.mem != GPUDP_CAP_MEM_HOST)
		CU(e, gpudp_cu->cuMemAllocHost((void **)&p->pinned,
					       (size_t)p->n_slots * data_cap));
	/* staged: the descriptors too, which the GPU reads as they are */
	if (e->conf.mem == GPUDP_CAP_MEM_STAGED)
		CU(e, gpudp_cu->cuMemAllocHost((void **)&p->pdesc, (size_t)p->n_slots *
					       e->conf.batch_pkts * sizeof(*p->pdesc)));
	for (i = 0; i < p->n_slots; i++) {
		struct gpu_slot *s = &p->slots[i];
		struct gpudp_cap_engine_conf c = e->conf;

		uint8_t *data = p->pinned != NULL ? p->pinned + (size_t)i * data_cap : NULL;
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
	return gpu_handoff(e, &prm, data_cap);
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
	int ro = 0;

	CU(e, gpudp_cu->cuCtxSetCurrent(p->ctx));
	CU(e, gpudp_cu->cuDeviceGetAttribute(&ro,
		CU_DEVICE_ATTRIBUTE_READ_ONLY_HOST_REGISTER_SUPPORTED, p->dev));
	if (!ro) {
		snprintf(e->err, sizeof(e->err), "GPU %d cannot register read-only host memory",
			 (int)p->dev);
		return -ENOTSUP;
	}
	CU(e, gpudp_cu->cuMemHostRegister((void *)(uintptr_t)addr, len,
					  CU_MEMHOSTREGISTER_PORTABLE |
					  CU_MEMHOSTREGISTER_READ_ONLY));
	return 0;
}

void
gpudp_cap_gpu_host_unregister(struct gpudp_cap_engine *e, const void *addr)
{
	struct gpu_priv *p = e->priv;

	gpudp_cu->cuCtxSetCurrent(p->ctx);
	gpudp_cu->cuMemHostUnregister((void *)(uintptr_t)addr);
}

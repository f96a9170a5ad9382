/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * GPU engine. A ring of `inflight` slots; each slot has a pinned host area
 * and a device copy laid out the same way.
 *
 * Staged path (CAP_MEM_STAGED):
 *
 *   [ desc: max_pkts x 24 B | match bitmap | packet data: batch_bytes ]
 *
 * submit: H2D copy of descriptors + zeroed bitmap, H2D copy of the used data,
 * kernel, D2H copy of the bitmap, all on one stream (so the kernel runs only
 * after its copy), then an event. get_batch reuses slots in order, waiting
 * on the oldest slot's event and running its done callback first.
 *
 * In place (CAP_MEM_HOST, CAP_MEM_DEVICE): the packets stay in the mbufs the
 * PMD filled; only references travel:
 *
 *   pinned slot area: [ ref: max_pkts x 24 B | match bitmap | CAP_MEM_DEVICE only:
 *                       matching packets copied out, batch_bytes ]
 *   device copy:      [ ref: max_pkts x 24 B | match bitmap ]
 *
 * submit (called after rx_burst returned every packet of the batch, so the
 * launch is a CPU-initiated CUDA submission after the NIC's writes, as
 * launch mode requires, doc/ordering.md): H2D copy of the references + zeroed
 * bitmap, kernel gpudp_capture_analyse_ref (reads each payload at its
 * address), D2H copy of the bitmap, event. When the slot is done, matching
 * packets in device memory are copied to the slot's host area
 * (cuMemcpyDtoHAsync on a copy stream, after the batch's end event, and a
 * sync of that stream only), the done callback runs, and only
 * then are the owners (mbufs) given back through conf.release.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpudp_analysis_images.h"
#include "gpudp_cuda.h"
#include "engine.h"

enum { EV_START, EV_KSTART, EV_KEND, EV_END, EV_MAX };

/* references and descriptors share the slot layout */
_Static_assert(sizeof(struct gpudp_an_pkt_ref) == sizeof(struct gpudp_an_pkt_desc),
	       "a reference and a descriptor must have the same size");

struct gpu_slot {
	struct cap_batch b;
	uint8_t *host;           /* pinned */
	CUdeviceptr dev;
	CUevent ev[EV_MAX];
	int inflight;
};

struct gpu_priv {
	CUdevice dev;
	CUcontext ctx;
	CUmodule mod;
	CUfunction fn, fn_ref;
	CUstream stream;
	CUstream copy_stream;    /* CAP_MEM_DEVICE: matches copied out of GPU memory */
	CUdeviceptr d_ctr, d_flows, d_filter, d_frags;
	uint32_t frag_capacity;
	size_t match_off, data_off, slot_bytes;
	uint32_t n_slots, next, oldest, n_inflight;
	struct gpu_slot *slots;
};

#define CU(e, call) do { \
	CUresult r_ = (call); \
	if (r_ != CUDA_SUCCESS) { \
		snprintf((e)->err, sizeof((e)->err), "%s: %s", #call, gpudp_cuda_errstr(r_)); \
		return -EIO; \
	} \
} while (0)

static void
gpu_fini(struct cap_engine *e)
{
	struct gpu_priv *p = e->priv;
	uint32_t i, k;

	if (p == NULL)
		return;
	if (p->ctx != NULL)
		gpudp_cu->cuCtxSetCurrent(p->ctx);
	if (p->stream != NULL)
		gpudp_cu->cuStreamSynchronize(p->stream);
	if (p->copy_stream != NULL)
		gpudp_cu->cuStreamSynchronize(p->copy_stream);
	for (i = 0; p->slots != NULL && i < p->n_slots; i++) {
		struct gpu_slot *s = &p->slots[i];

		/* a failed engine: the owners go back all the same */
		if (s->inflight && s->b.inplace && s->b.owner != NULL)
			e->conf.release(e->conf.done_arg, s->b.owner, s->b.n);
		free(s->b.owner);
		free(s->b.view);
		for (k = 0; k < EV_MAX; k++)
			if (s->ev[k] != NULL)
				gpudp_cu->cuEventDestroy(s->ev[k]);
		if (s->host != NULL)
			gpudp_cu->cuMemFreeHost(s->host);
		if (s->dev != 0)
			gpudp_cu->cuMemFree(s->dev);
	}
	free(p->slots);
	if (p->d_ctr != 0)
		gpudp_cu->cuMemFree(p->d_ctr);
	if (p->d_flows != 0)
		gpudp_cu->cuMemFree(p->d_flows);
	if (p->d_filter != 0)
		gpudp_cu->cuMemFree(p->d_filter);
	if (p->d_frags != 0)
		gpudp_cu->cuMemFree(p->d_frags);
	if (p->stream != NULL)
		gpudp_cu->cuStreamDestroy(p->stream);
	if (p->copy_stream != NULL)
		gpudp_cu->cuStreamDestroy(p->copy_stream);
	if (p->mod != NULL)
		gpudp_cu->cuModuleUnload(p->mod);
	if (p->ctx != NULL)
		gpudp_cu->cuDevicePrimaryCtxRelease(p->dev);
	free(p);
	e->priv = NULL;
}

static int
gpu_setup(struct cap_engine *e)
{
	struct gpu_priv *p = e->priv;
	size_t flows_bytes = sizeof(struct gpudp_flow_slot) * (size_t)e->conf.flow_capacity;
	size_t frags_bytes;
	char name[64], bus[32];
	size_t host_bytes;
	uint32_t i, k;
	int n_dev = 0, rc;

	CU(e, gpudp_cu->cuDeviceGetCount(&n_dev));
	if (e->conf.gpu_device < 0 || e->conf.gpu_device >= n_dev) {
		snprintf(e->err, sizeof(e->err), "GPU %d does not exist (%d GPU%s found)",
			 e->conf.gpu_device, n_dev, n_dev == 1 ? "" : "s");
		return -ENODEV;
	}
	CU(e, gpudp_cu->cuDeviceGet(&p->dev, e->conf.gpu_device));
	CU(e, gpudp_cu->cuDevicePrimaryCtxRetain(&p->ctx, p->dev));
	CU(e, gpudp_cu->cuCtxSetCurrent(p->ctx));
	CU(e, gpudp_cu->cuDeviceGetName(name, sizeof(name), p->dev));
	if (gpudp_cu->cuDeviceGetPCIBusId(bus, sizeof(bus), p->dev) != CUDA_SUCCESS)
		snprintf(bus, sizeof(bus), "?");
	snprintf(e->st.device, sizeof(e->st.device), "GPU %d: %s (%s)",
		 e->conf.gpu_device, name, bus);
	rc = gpudp_cuda_module_load_image(&gpudp_analysis_image_capture, &p->mod);
	if (rc != 0) {
		snprintf(e->err, sizeof(e->err), "cannot load the capture kernels: %s",
			 gpudp_cuda_last_error());
		return rc;
	}
	CU(e, gpudp_cu->cuModuleGetFunction(&p->fn, p->mod, "gpudp_capture_analyse"));
	CU(e, gpudp_cu->cuModuleGetFunction(&p->fn_ref, p->mod, "gpudp_capture_analyse_ref"));
	if (e->conf.mem == CAP_MEM_HOST) {
		int uva = 0, hostptr = 0;

		CU(e, gpudp_cu->cuDeviceGetAttribute(&uva, CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING,
						     p->dev));
		CU(e, gpudp_cu->cuDeviceGetAttribute(&hostptr,
			CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM, p->dev));
		if (!uva || !hostptr) {
			snprintf(e->err, sizeof(e->err), "GPU %d cannot read registered host "
				 "memory at its host address (unified addressing %d, host pointer "
				 "for registered memory %d)", e->conf.gpu_device, uva, hostptr);
			return -ENOTSUP;
		}
	}
	CU(e, gpudp_cu->cuStreamCreate(&p->stream, CU_STREAM_NON_BLOCKING));
	if (e->conf.mem == CAP_MEM_DEVICE)
		CU(e, gpudp_cu->cuStreamCreate(&p->copy_stream, CU_STREAM_NON_BLOCKING));

	CU(e, gpudp_cu->cuMemAlloc(&p->d_ctr, sizeof(struct gpudp_an_counters)));
	CU(e, gpudp_cu->cuMemAlloc(&p->d_flows, flows_bytes));
	CU(e, gpudp_cu->cuMemAlloc(&p->d_filter, sizeof(struct gpudp_filter)));
	p->frag_capacity = gpudp_analysis_frag_capacity(e->conf.flow_capacity);
	frags_bytes = sizeof(struct gpudp_frag_slot) * (size_t)p->frag_capacity;
	CU(e, gpudp_cu->cuMemAlloc(&p->d_frags, frags_bytes));
	CU(e, gpudp_cu->cuMemsetD8(p->d_ctr, 0, sizeof(struct gpudp_an_counters)));
	CU(e, gpudp_cu->cuMemsetD8(p->d_flows, 0, flows_bytes));
	CU(e, gpudp_cu->cuMemsetD8(p->d_frags, 0, frags_bytes));
	CU(e, gpudp_cu->cuMemcpyHtoD(p->d_filter, &e->conf.filter, sizeof(struct gpudp_filter)));

	p->match_off = sizeof(struct gpudp_an_pkt_desc) * (size_t)e->conf.batch_pkts;
	p->data_off = (p->match_off + 4 * (size_t)((e->conf.batch_pkts + 31) / 32) + 255) &
		      ~(size_t)255;
	/* in place, device memory: the data area takes the matches copied out */
	host_bytes = p->data_off + (e->conf.mem == CAP_MEM_HOST ? 0 : e->conf.batch_bytes);
	p->slot_bytes = e->conf.mem == CAP_MEM_STAGED ? host_bytes : p->data_off;
	p->n_slots = e->conf.inflight;
	p->slots = calloc(p->n_slots, sizeof(*p->slots));
	if (p->slots == NULL) {
		snprintf(e->err, sizeof(e->err), "out of memory");
		return -ENOMEM;
	}
	for (i = 0; i < p->n_slots; i++) {
		struct gpu_slot *s = &p->slots[i];

		CU(e, gpudp_cu->cuMemAllocHost((void **)&s->host, host_bytes));
		CU(e, gpudp_cu->cuMemAlloc(&s->dev, p->slot_bytes));
		for (k = 0; k < EV_MAX; k++)
			CU(e, gpudp_cu->cuEventCreate(&s->ev[k], CU_EVENT_DEFAULT));
		s->b.match = (uint32_t *)(s->host + p->match_off);
		if (e->conf.mem == CAP_MEM_STAGED) {
			s->b.desc = (struct gpudp_an_pkt_desc *)s->host;
			s->b.data = s->host + p->data_off;
		} else {
			s->b.inplace = 1;
			s->b.ref = (struct gpudp_an_pkt_ref *)s->host;
			s->b.data = e->conf.mem == CAP_MEM_DEVICE ? s->host + p->data_off : NULL;
			s->b.owner = calloc(e->conf.batch_pkts, sizeof(*s->b.owner));
			s->b.view = calloc(e->conf.batch_pkts, sizeof(*s->b.view));
			if (s->b.owner == NULL || s->b.view == NULL) {
				snprintf(e->err, sizeof(e->err), "out of memory");
				return -ENOMEM;
			}
		}
		s->b.max_pkts = e->conf.batch_pkts;
		s->b.data_cap = e->conf.batch_bytes;
		s->b.slot = i;
	}
	return 0;
}

static int
gpu_init(struct cap_engine *e, char *err, size_t errlen)
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
		gpu_fini(e);
	}
	return rc;
}

/*
 * In place, a finished slot (its end event already waited for): the host
 * view of each packet. Host memory: the packet itself. Device memory: only
 * the matching packets, copied into the slot's host area (the CPU never
 * reads the rest) on the copy stream, so that only that copy is waited for,
 * not the batches queued on the kernel stream behind it.
 */
static int
inplace_views(struct cap_engine *e, struct gpu_slot *s)
{
	struct gpu_priv *p = e->priv;
	struct cap_batch *b = &s->b;
	uint32_t i, off = 0;

	for (i = 0; i < b->n; i++) {
		const struct gpudp_an_pkt_ref *r = &b->ref[i];

		if (e->conf.mem == CAP_MEM_HOST) {
			b->view[i] = (const uint8_t *)(uintptr_t)r->addr;
			continue;
		}
		b->view[i] = NULL;
		if (!cap_batch_matched(b, i) || r->caplen > b->data_cap - off)
			continue;
		CU(e, gpudp_cu->cuMemcpyDtoHAsync(b->data + off, (CUdeviceptr)r->addr, r->caplen,
						  p->copy_stream));
		b->view[i] = b->data + off;
		off += r->caplen;
	}
	if (off > 0) {
		CU(e, gpudp_cu->cuStreamSynchronize(p->copy_stream));
		e->st.copy_out_bytes += off;
	}
	return 0;
}

/* Wait for the oldest in-flight slot, account it, run its callback. */
static int
gpu_complete_oldest(struct cap_engine *e)
{
	struct gpu_priv *p = e->priv;
	struct gpu_slot *s = &p->slots[p->oldest];
	float total = 0, kern = 0;
	uint32_t w;

	CU(e, gpudp_cu->cuEventSynchronize(s->ev[EV_END]));
	if (gpudp_cu->cuEventElapsedTime(&total, s->ev[EV_START], s->ev[EV_END]) == CUDA_SUCCESS)
		e->st.busy_ms += total;
	if (gpudp_cu->cuEventElapsedTime(&kern, s->ev[EV_KSTART], s->ev[EV_KEND]) == CUDA_SUCCESS)
		e->st.kernel_ms += kern;
	s->b.n_match = 0;
	for (w = 0; w < (s->b.n + 31) / 32; w++)
		s->b.n_match += (uint32_t)__builtin_popcount(s->b.match[w]);
	if (s->b.inplace) {
		int rc = inplace_views(e, s);

		if (rc != 0)
			return rc;
	}
	if (e->conf.done != NULL)
		e->conf.done(e->conf.done_arg, &s->b);
	/* the kernel that read these buffers is complete: give them back */
	if (s->b.inplace)
		e->conf.release(e->conf.done_arg, s->b.owner, s->b.n);
	s->inflight = 0;
	s->b.n = 0;
	p->oldest = (p->oldest + 1) % p->n_slots;
	p->n_inflight--;
	return 0;
}

static struct cap_batch *
gpu_get_batch(struct cap_engine *e)
{
	struct gpu_priv *p = e->priv;
	struct gpu_slot *s = &p->slots[p->next];

	if (s->inflight && gpu_complete_oldest(e) != 0)
		return NULL;
	s->b.n = 0;
	s->b.data_used = 0;
	s->b.cap_bytes = 0;
	s->b.n_match = 0;
	return &s->b;
}

/*
 * Staged: descriptors, the zeroed match bitmap and the packet bytes go to
 * the GPU, then the kernel. In place (b->inplace): references only, and
 * the kernel reads each payload where the PMD put it. The bitmap comes back.
 */
static int
gpu_enqueue(struct cap_engine *e, struct cap_batch *b)
{
	struct gpu_priv *p = e->priv;
	struct gpu_slot *s = &p->slots[b->slot];
	struct gpudp_an_kernel_args args;
	void *params[] = { &args };
	size_t words = 4 * (size_t)((b->n + 31) / 32);
	size_t dsz = b->inplace ? sizeof(struct gpudp_an_pkt_ref) :
				  sizeof(struct gpudp_an_pkt_desc);
	size_t data = b->inplace ? 0 : b->data_used;

	if (b->n == 0)
		return 0;
	if (b != &s->b || b->slot != p->next) {
		snprintf(e->err, sizeof(e->err), "batch submitted out of order");
		return -EINVAL;
	}
	memset(b->match, 0, words);
	CU(e, gpudp_cu->cuCtxSetCurrent(p->ctx));
	CU(e, gpudp_cu->cuEventRecord(s->ev[EV_START], p->stream));
	CU(e, gpudp_cu->cuMemcpyHtoDAsync(s->dev, s->host, dsz * b->n, p->stream));
	CU(e, gpudp_cu->cuMemcpyHtoDAsync(s->dev + p->match_off, s->host + p->match_off, words,
					  p->stream));
	if (data > 0)
		CU(e, gpudp_cu->cuMemcpyHtoDAsync(s->dev + p->data_off, s->host + p->data_off,
						  data, p->stream));
	memset(&args, 0, sizeof(args));
	args.ctr = p->d_ctr;
	args.flows = p->d_flows;
	args.filter = p->d_filter;
	args.desc = s->dev;
	args.data = b->inplace ? 0 : s->dev + p->data_off;
	args.match = s->dev + p->match_off;
	args.flow_mask = e->conf.flow_capacity - 1;
	args.n = b->n;
	args.frags = p->d_frags;
	args.frag_mask = p->frag_capacity - 1;
	CU(e, gpudp_cu->cuEventRecord(s->ev[EV_KSTART], p->stream));
	CU(e, gpudp_cu->cuLaunchKernel(b->inplace ? p->fn_ref : p->fn, (b->n + 255) / 256, 1, 1,
				       256, 1, 1, 0, p->stream, params, NULL));
	CU(e, gpudp_cu->cuEventRecord(s->ev[EV_KEND], p->stream));
	CU(e, gpudp_cu->cuMemcpyDtoHAsync(s->host + p->match_off, s->dev + p->match_off, words,
					  p->stream));
	CU(e, gpudp_cu->cuEventRecord(s->ev[EV_END], p->stream));
	s->inflight = 1;
	p->n_inflight++;
	p->next = (p->next + 1) % p->n_slots;
	e->st.pkts += b->n;
	e->st.bytes += b->cap_bytes;
	e->st.copy_bytes += dsz * b->n + words + data;
	e->st.batches++;
	return 0;
}

/*
 * A failed submit leaves the batch not in flight, so the caller gives its
 * buffers back (in place: frees the mbufs): first wait for whatever was
 * already queued for it (copies, the kernel reading the mbufs).
 */
static int
gpu_submit(struct cap_engine *e, struct cap_batch *b)
{
	struct gpu_priv *p = e->priv;
	int rc = gpu_enqueue(e, b);

	if (rc == -EIO)
		gpudp_cu->cuStreamSynchronize(p->stream);
	return rc;
}

static int
gpu_flush(struct cap_engine *e)
{
	struct gpu_priv *p = e->priv;
	int rc;

	while (p->n_inflight > 0) {
		rc = gpu_complete_oldest(e);
		if (rc != 0)
			return rc;
	}
	return 0;
}

static int
gpu_reap(struct cap_engine *e)
{
	struct gpu_priv *p = e->priv;
	int rc;

	if (p->n_inflight == 0)
		return 0;
	rc = gpu_complete_oldest(e);
	return rc == 0 ? 1 : rc;
}

static int
gpu_collect(struct cap_engine *e, struct gpudp_analysis *out)
{
	struct gpu_priv *p = e->priv;
	struct gpudp_an_counters ctr;
	struct gpudp_flow_slot *flows;
	struct gpudp_frag_slot *frags;
	size_t n = e->conf.flow_capacity, nd = p->frag_capacity;
	int rc = gpu_flush(e);

	if (rc != 0)
		return rc;
	flows = malloc(n * sizeof(*flows));
	frags = malloc(nd * sizeof(*frags));
	if (flows == NULL || frags == NULL) {
		free(flows);
		free(frags);
		return -ENOMEM;
	}
	if (gpudp_cu->cuMemcpyDtoH(&ctr, p->d_ctr, sizeof(ctr)) != CUDA_SUCCESS ||
	    gpudp_cu->cuMemcpyDtoH(flows, p->d_flows, n * sizeof(*flows)) != CUDA_SUCCESS ||
	    gpudp_cu->cuMemcpyDtoH(frags, p->d_frags, nd * sizeof(*frags)) != CUDA_SUCCESS) {
		snprintf(e->err, sizeof(e->err), "reading the GPU results failed");
		free(flows);
		free(frags);
		return -EIO;
	}
	gpudp_analysis_reset(out);
	rc = gpudp_analysis_merge(out, &ctr, flows, (uint32_t)n);
	if (gpudp_analysis_merge_frags(out, frags, (uint32_t)nd) != 0)
		rc = -ENOSPC;
	free(flows);
	free(frags);
	return rc;
}

const struct cap_engine_ops cap_engine_gpu_ops = {
	.name = "gpu",
	.init = gpu_init,
	.get_batch = gpu_get_batch,
	.submit = gpu_submit,
	.flush = gpu_flush,
	.reap = gpu_reap,
	.collect = gpu_collect,
	.fini = gpu_fini,
};

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The common part of gpudp_handoff's GPU modes (launch, persistent, graph,
 * staged: one file each, gpudp_ho_<mode>.c, each an ops table of
 * gpudp_handoff_pvt.h); the shared setup loads the work's GPU
 * image (its kernel shapes, gpudp_work_dev.h) and lib/handoff's own kernels
 * (handoff.cu), copies the work's parameters to GPU memory, registers the
 * shared arrays with the GPU (mapped
 * host memory: the kernels read descriptors and write verdicts and done
 * words over PCIe), and calibrates the GPU clock against the CPU's.
 *
 * Ordering (NVIDIA, "GPUDirect RDMA", "Synchronization and Memory Ordering";
 * doc/ordering.md): the kernel for a burst is submitted, or its
 * ready word stored, only on the rx thread after rte_eth_rx_burst()
 * returned the burst, i.e. after the NIC's writes completed with respect
 * to this CPU thread.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <rte_atomic.h>
#include <rte_common.h>
#include <rte_errno.h>

#include "gpudp_handoff_pvt.h"

#ifdef GPUDP_HAS_CUDA

#include "gpudp_ho_gpu_pvt.h"
#include "gpudp_handoff_images.h"

int
gpudp_ho_gpu_fail(struct gpudp_handoff *h, const char *what, CUresult r)
{
	HO_LOG(ERR, "%s: %s: %s", h->conf.name, what, gpudp_cuda_errstr(r));
	snprintf(h->err, sizeof(h->err), "%s: %s", what, gpudp_cuda_errstr(r));
	return -EIO;
}


/* make the handoff's context current on the calling thread (rx, tx, main) */
int
gpudp_ho_gpu_enter(struct gpudp_handoff *h)
{
	static __thread CUcontext cur;

	if (cur != GPU(h)->ctx) {
		CU_DO(h, gpudp_cu->cuCtxSetCurrent(GPU(h)->ctx));
		cur = GPU(h)->ctx;
	}
	return 0;
}

/*
 * Blocks for a burst of n: one thread per packet, up to 1024 blocks (a
 * large batch: 256K packets at 256 threads; beyond that each thread takes
 * several packets). Every block ends with one system fence and its
 * counters' atomics.
 */
uint32_t
gpudp_ho_gpu_grid(const struct gpudp_handoff *h, uint32_t n)
{
	uint32_t g = (n + h->conf.threads - 1) / h->conf.threads;

	return RTE_MAX(1u, RTE_MIN(g, 1024u));
}

int
gpudp_ho_gpu_launch_on(struct gpudp_handoff *h, uint32_t slot, uint32_t n, uint32_t signal,
		CUstream st)
{
	return gpudp_ho_gpu_launch_args(h, &h->kargs, slot, n, signal, st);
}

int
gpudp_ho_gpu_launch_args(struct gpudp_handoff *h, const struct gpudp_ho_kargs *args,
			 uint32_t slot, uint32_t n, uint32_t signal, CUstream st)
{
	struct gpudp_ho_kargs a = *args;
	void *params[] = { &a };

	a.slot = slot;
	a.signal = signal;
	a.n = n;
	CU_DO(h, gpudp_cu->cuLaunchKernel(GPU(h)->f_burst, gpudp_ho_gpu_grid(h, n), 1, 1,
					  h->conf.threads, 1, 1, 0, st, params, NULL));
	return 0;
}

int
gpudp_ho_gpu_launch(struct gpudp_handoff *h, uint32_t slot, uint32_t n, uint32_t signal)
{
	return gpudp_ho_gpu_launch_on(h, slot, n, signal, GPU(h)->stream);
}

/*
 * One measure of GPU %globaltimer - CPU ns, from the shortest of
 * CLOCK_ROUNDS ping-pongs with gpudp_ho_clock through the quit line (flag
 * at word 4, ack at word 6, the GPU's time at byte 32), on a stream of its
 * own (it runs beside a persistent kernel): the GPU read its clock between
 * the CPU's two readings, so the midpoint is off by less than half that
 * round trip (a few microseconds over PCIe, much less when both directions
 * take as long).
 */
#define CLOCK_ROUNDS 64u
#define CLOCK_WAIT_NS 200000000ull
static int
clock_measure(struct gpudp_handoff *h, uint64_t *t, int64_t *off)
{
	uint32_t *flag = h->quit + 4, *ack = h->quit + 6, rounds = CLOCK_ROUNDS, i;
	volatile uint64_t *g = (volatile uint64_t *)(h->quit + 8);
	uint64_t best = UINT64_MAX;
	CUdeviceptr base = h->kargs.quit;
	void *params[] = { &base, &rounds };

	__atomic_store_n(flag, 0, __ATOMIC_RELAXED);
	__atomic_store_n(ack, 0, __ATOMIC_RELEASE);
	CU_DO(h, gpudp_cu->cuLaunchKernel(GPU(h)->f_clock, 1, 1, 1, 1, 1, 1, 0,
					  GPU(h)->clk_stream, params, NULL));
	for (i = 1; i <= rounds; i++) {
		uint64_t t0 = gpudp_ho_now_ns(), t1;

		__atomic_store_n(flag, i, __ATOMIC_RELEASE);
		while (__atomic_load_n(ack, __ATOMIC_ACQUIRE) != i)
			if (gpudp_ho_now_ns() - t0 > CLOCK_WAIT_NS)
				break;
		t1 = gpudp_ho_now_ns();
		if (__atomic_load_n(ack, __ATOMIC_ACQUIRE) != i)
			break;  /* the kernel did not answer: keep what was measured */
		if (t1 - t0 < best) {
			best = t1 - t0;
			*t = t0 / 2 + t1 / 2;
			*off = (int64_t)(*g - *t);
		}
	}
	CU_DO(h, gpudp_cu->cuStreamSynchronize(GPU(h)->clk_stream));
	if (best == UINT64_MAX) {
		HO_LOG(ERR, "%s: clock calibration: the GPU did not answer", h->conf.name);
		return -ETIMEDOUT;
	}
	return 0;
}

int
gpudp_ho_gpu_same_device(const struct gpudp_handoff *a, const struct gpudp_handoff *b)
{
	return GPU(a)->dev == GPU(b)->dev;
}

/*
 * The clock model (gpudp_handoff_pvt.h): offset from this measure, drift
 * rate over the whole time since the first one (the two clocks may run at
 * rates tens of ppm apart, tens of microseconds per second).
 */
int
gpudp_ho_gpu_clock_sync(struct gpudp_handoff *h)
{
	struct gpudp_ho_clk e;
	uint64_t t = 0;
	int64_t off = 0;
	int ret = gpudp_ho_gpu_enter(h);

	if (ret == 0)
		ret = clock_measure(h, &t, &off);
	if (ret != 0)
		return ret;
	e.t_ref = t;
	e.off = off;
	e.rate = h->clk[h->clk_cur].rate;
	if (h->clk_t0 == 0) {
		h->clk_t0 = t;
		h->clk_off0 = off;
	} else if (t - h->clk_t0 >= 10000000) {
		e.rate = (double)(off - h->clk_off0) / (double)(t - h->clk_t0);
	}
	gpudp_ho_clk_publish(h, &e);
	HO_LOG(DEBUG, "%s: clock offset %" PRId64 " ns, drift %.1f ppm", h->conf.name,
	       off, e.rate * 1e6);
	return 0;
}

/* persistent kernel told to quit; every stream drained */
void
gpudp_ho_gpu_stop(struct gpudp_handoff *h)
{
	struct ho_gpu *g = GPU(h);
	uint32_t i;

	if (g == NULL || g->ctx == NULL || gpudp_ho_gpu_enter(h) != 0)
		return;
	if (g->persistent_running) {
		__atomic_store_n(h->quit, 1, __ATOMIC_RELEASE);
		gpudp_cu->cuStreamSynchronize(g->stream);
		g->persistent_running = 0;
	}
	if (g->stream != NULL)
		gpudp_cu->cuStreamSynchronize(g->stream);
	for (i = 0; i < RTE_DIM(g->lane); i++)
		if (g->lane[i] != NULL)
			gpudp_cu->cuStreamSynchronize(g->lane[i]);
}

void
gpudp_ho_gpu_teardown(struct gpudp_handoff *h)
{
	struct ho_gpu *g = GPU(h);
	uint32_t i;

	if (g == NULL)
		return;
	if (g->ctx != NULL && gpudp_ho_gpu_enter(h) == 0) {
		gpudp_ho_gpu_stop(h);
		for (i = 0; g->execs != NULL && i < g->n_graphs; i++)
			if (g->execs[i] != NULL)
				gpudp_cu->cuGraphExecDestroy(g->execs[i]);
		for (i = 0; g->graphs != NULL && i < g->n_graphs; i++)
			if (g->graphs[i] != NULL)
				gpudp_cu->cuGraphDestroy(g->graphs[i]);
		for (i = 0; g->copied != NULL && i < h->conf.ring_size; i++)
			if (g->copied[i] != NULL)
				gpudp_cu->cuEventDestroy(g->copied[i]);
		if (g->stage_h != NULL)
			gpudp_cu->cuMemFreeHost(g->stage_h);
		if (g->src != NULL)
			gpudp_cu->cuMemFreeHost(g->src);
		if (g->stage_d != 0)
			gpudp_cu->cuMemFree(g->stage_d);
		if (g->d_desc != 0)
			gpudp_cu->cuMemFree(g->d_desc);
		if (g->blocks != 0)
			gpudp_cu->cuMemFree(g->blocks);
		if (g->pstate != 0)
			gpudp_cu->cuMemFree(g->pstate);
		if (g->params != 0)
			gpudp_cu->cuMemFree(g->params);
		for (i = 0; i < RTE_DIM(g->tables); i++)
			if (g->tables[i] != 0)
				gpudp_cu->cuMemFree(g->tables[i]);
		if (g->dcounters != 0)
			gpudp_cu->cuMemFree(g->dcounters);
		if (g->plen != NULL)
			gpudp_cu->cuMemFreeHost(g->plen);
		for (i = 0; i < RTE_DIM(g->lane); i++)
			if (g->lane[i] != NULL)
				gpudp_cu->cuStreamDestroy(g->lane[i]);
		if (g->stream != NULL)
			gpudp_cu->cuStreamDestroy(g->stream);
		if (g->clk_stream != NULL)
			gpudp_cu->cuStreamDestroy(g->clk_stream);
		if (g->out_stream != NULL)
			gpudp_cu->cuStreamDestroy(g->out_stream);
		gpudp_ho_gpu_states_free(h);
		if (g->mod != NULL)
			gpudp_cu->cuModuleUnload(g->mod);
		if (g->wmod != NULL)
			gpudp_cu->cuModuleUnload(g->wmod);
		if (g->wc != NULL)
			gpudp_cu->cuMemFreeHost(g->wc);
		if (g->registered)
			gpudp_cu->cuMemHostUnregister(h->shared);
	}
	if (g->retained)
		gpudp_cu->cuDevicePrimaryCtxRelease(g->dev);
	free(g->graphs);
	free(g->execs);
	free(g->copied);
	free(g->soff);
	free(g);
	h->gpu = NULL;
}

/*
 * Load the work's GPU image into the context: its kernel shapes, checked
 * for the ABI stamp GPUDP_WORK_GPU puts in it. Failures name the work and
 * where it came from, and say what to do (ENOEXEC).
 */
static int
work_load(struct gpudp_handoff *h)
{
	struct ho_gpu *g = GPU(h);
	const struct gpudp_work *w = h->work;
	CUdeviceptr abi_d;
	size_t abi_len = 0;
	uint32_t abi = 0;
	CUresult r;
	int maj = 0, min = 0;

	if (w->gpu_image == NULL) {
		HO_LOG(ERR, "%s: work %s (%s) has no GPU image: it runs in the cpu mode only",
		       h->conf.name, w->name, gpudp_work_origin(w));
		return -ENOTSUP;
	}
	/* not gpudp_cuda_module_load_image(): the CUresult says what to tell
	 * the user (no code for this GPU) */
	r = gpudp_cu->cuModuleLoadData(&g->wmod, w->gpu_image);
	if (r != CUDA_SUCCESS) {
		gpudp_cu->cuDeviceGetAttribute(&maj,
			CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, g->dev);
		gpudp_cu->cuDeviceGetAttribute(&min,
			CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, g->dev);
		g->wmod = NULL;
		HO_LOG(ERR, "%s: work %s (%s): the GPU refused its image: %s%s", h->conf.name,
		       w->name, gpudp_work_origin(w), gpudp_cuda_errstr(r),
		       r == CUDA_ERROR_NO_BINARY_FOR_GPU ?
		       ": it has no code for this GPU and no PTX; build it for this GPU's "
		       "architecture (nvcc -gencode arch=compute_XY,code=sm_XY) or with PTX" : "");
		if (r == CUDA_ERROR_NO_BINARY_FOR_GPU)
			HO_LOG(ERR, "%s: this GPU is sm_%d%d", h->conf.name, maj, min);
		return -ENOEXEC;
	}
	r = gpudp_cu->cuModuleGetGlobal(&abi_d, &abi_len, g->wmod, "gpudp_work_abi");
	if (r == CUDA_SUCCESS && abi_len == sizeof(abi))
		r = gpudp_cu->cuMemcpyDtoH(&abi, abi_d, sizeof(abi));
	if (r != CUDA_SUCCESS || abi_len != sizeof(abi) || abi != GPUDP_WORK_ABI) {
		HO_LOG(ERR, "%s: work %s (%s): its GPU image %s; build it with GPUDP_WORK_GPU() "
		       "from this SDK (ABI %u)", h->conf.name, w->name, gpudp_work_origin(w),
		       r != CUDA_SUCCESS ? "has no gpudp_work_abi stamp" : "is of another ABI",
		       GPUDP_WORK_ABI);
		return -ENOEXEC;
	}
	if (gpudp_cu->cuModuleGetFunction(&g->f_burst, g->wmod, "gpudp_work_burst") !=
	    CUDA_SUCCESS ||
	    gpudp_cu->cuModuleGetFunction(&g->f_persistent, g->wmod, "gpudp_work_persistent") !=
	    CUDA_SUCCESS) {
		HO_LOG(ERR, "%s: work %s (%s): its GPU image lacks gpudp_work_burst or "
		       "gpudp_work_persistent (GPUDP_WORK_GPU)", h->conf.name, w->name,
		       gpudp_work_origin(w));
		return -ENOEXEC;
	}
	return 0;
}

/*
 * The work's parameters into GPU memory: each of its tables copied into
 * GPU memory first (struct gpudp_work_table), and the copy's address
 * written where the host address was, in a copy of the block that goes
 * to the GPU (the host block keeps the host addresses for fini); its state
 * tables the same way (gpudp_ho_gpu_mem.c).
 */
static int
params_to_gpu(struct gpudp_handoff *h)
{
	const struct gpudp_work *w = h->work;
	struct ho_gpu *g = GPU(h);
	uint8_t *dev_params;
	uint32_t i;
	int ret = 0;

	if (w->params_size == 0)
		return 0;
	dev_params = malloc(w->params_size);
	if (dev_params == NULL)
		return -ENOMEM;
	memcpy(dev_params, h->params, w->params_size);
	for (i = 0; i < w->n_tables && ret == 0; i++) {
		uint64_t addr, size;

		memcpy(&addr, dev_params + w->tables[i].ptr_off, 8);
		memcpy(&size, dev_params + w->tables[i].size_off, 8);
		if (addr == 0 || size == 0)
			continue;
		if (size > GPUDP_WORK_TABLE_MAX) {
			HO_LOG(ERR, "%s: work %s: table %u of %" PRIu64 " bytes: at most %llu",
			       h->conf.name, w->name, i, size, GPUDP_WORK_TABLE_MAX);
			ret = -E2BIG;
			break;
		}
		ret = gpudp_ho_gpu_table(h, "table", i, (const void *)(uintptr_t)addr, size,
					 &g->tables[i]);
		if (ret != 0)
			break;
		addr = g->tables[i];
		memcpy(dev_params + w->tables[i].ptr_off, &addr, 8);
	}
	if (ret == 0)
		ret = gpudp_ho_gpu_states(h, dev_params);
	if (ret == 0 && gpudp_cu->cuMemcpyHtoD(g->params, dev_params, w->params_size) !=
	    CUDA_SUCCESS)
		ret = -EIO;
	free(dev_params);
	return ret;
}

/*
 * tx thread, while the oldest burst is not done: a fault in the work
 * (illegal address, trap, ...) is sticky in the context, and every stream
 * query returns it; the kernel will never store done.
 */
int
gpudp_ho_gpu_check(struct gpudp_handoff *h)
{
	struct ho_gpu *g = GPU(h);
	CUresult r;
	uint32_t i;

	if (g == NULL || gpudp_ho_gpu_enter(h) != 0)
		return 0;
	r = gpudp_cu->cuStreamQuery(g->stream);
	for (i = 0; (r == CUDA_SUCCESS || r == CUDA_ERROR_NOT_READY) && i < RTE_DIM(g->lane); i++)
		if (g->lane[i] != NULL)
			r = gpudp_cu->cuStreamQuery(g->lane[i]);
	if (r == CUDA_SUCCESS || r == CUDA_ERROR_NOT_READY)
		return 0;
	HO_LOG(ERR, "%s: the GPU failed under work %s (%s): %s; the bursts in flight are "
	       "dropped as 'error'", h->conf.name, h->work->name, gpudp_work_origin(h->work),
	       gpudp_cuda_errstr(r));
	snprintf(h->err, sizeof(h->err), "the GPU failed under work %s: %s", h->work->name,
		 gpudp_cuda_errstr(r));
	g->persistent_running = 0;  /* it is gone: stop waits for nothing */
	return -EIO;
}

int
gpudp_ho_gpu_setup(struct gpudp_handoff *h)
{
	struct ho_gpu *g;
	CUdeviceptr base;
	int ret;

	ret = gpudp_cuda_init();
	if (ret != 0) {
		HO_LOG(ERR, "%s: mode %s needs a GPU: %s", h->conf.name, h->ops->name,
		       gpudp_cuda_last_error());
		return ret;
	}
	g = calloc(1, sizeof(*g));
	if (g == NULL)
		return -ENOMEM;
	h->gpu = g;
	if (h->conf.cu_ctx != 0) {
		g->ctx = (CUcontext)(uintptr_t)h->conf.cu_ctx;
		CU_DO(h, gpudp_cu->cuCtxSetCurrent(g->ctx));
		CU_DO(h, gpudp_cu->cuCtxGetDevice(&g->dev));
	} else {
		int n_dev = 0;

		CU_DO(h, gpudp_cu->cuDeviceGetCount(&n_dev));
		if (h->conf.cu_dev < 0 || h->conf.cu_dev >= n_dev) {
			HO_LOG(ERR, "%s: GPU %d does not exist (%d GPU%s found)", h->conf.name,
			       h->conf.cu_dev, n_dev, n_dev == 1 ? "" : "s");
			return -ENODEV;
		}
		CU_DO(h, gpudp_cu->cuDeviceGet(&g->dev, h->conf.cu_dev));
		CU_DO(h, gpudp_cu->cuDevicePrimaryCtxRetain(&g->ctx, g->dev));
		g->retained = 1;
	}
	ret = gpudp_ho_gpu_enter(h);
	if (ret != 0)
		return ret;
	CU_DO(h, gpudp_cu->cuMemHostRegister(h->shared, h->shared_len,
					     CU_MEMHOSTREGISTER_PORTABLE |
					     CU_MEMHOSTREGISTER_DEVICEMAP));
	g->registered = 1;
	CU_DO(h, gpudp_cu->cuMemHostGetDevicePointer(&base, h->shared, 0));
	ret = gpudp_cuda_module_load_image(&gpudp_handoff_image_handoff, &g->mod);
	if (ret != 0) {
		HO_LOG(ERR, "%s: kernels: %s", h->conf.name, gpudp_cuda_last_error());
		return ret;
	}
	ret = work_load(h);
	if (ret != 0)
		return ret;
	CU_DO(h, gpudp_cu->cuModuleGetFunction(&g->f_signal, g->mod, "gpudp_ho_signal"));
	CU_DO(h, gpudp_cu->cuModuleGetFunction(&g->f_clock, g->mod, "gpudp_ho_clock"));
	CU_DO(h, gpudp_cu->cuModuleGetFunction(&g->f_gather, g->mod, "gpudp_ho_gather"));
	CU_DO(h, gpudp_cu->cuModuleGetFunction(&g->f_gather_desc, g->mod,
					       "gpudp_ho_gather_desc"));
	CU_DO(h, gpudp_cu->cuStreamCreate(&g->stream, CU_STREAM_NON_BLOCKING));
	CU_DO(h, gpudp_cu->cuStreamCreate(&g->clk_stream, CU_STREAM_NON_BLOCKING));
	/* per slot: finished blocks, then drops (gpudp_fwd_burst) */
	CU_DO(h, gpudp_cu->cuMemAlloc(&g->blocks, 2 * h->conf.ring_size * sizeof(uint32_t)));
	CU_DO(h, gpudp_cu->cuMemsetD8(g->blocks, 0, 2 * h->conf.ring_size * sizeof(uint32_t)));
	CU_DO(h, gpudp_cu->cuMemAlloc(&g->dcounters, (size_t)h->conf.ring_size *
				      GPUDP_WORK_COUNTERS_MAX * sizeof(uint64_t)));
	CU_DO(h, gpudp_cu->cuMemsetD8(g->dcounters, 0, (size_t)h->conf.ring_size *
				      GPUDP_WORK_COUNTERS_MAX * sizeof(uint64_t)));
	CU_DO(h, gpudp_cu->cuMemAlloc(&g->params, RTE_MAX(h->work->params_size, 8u)));
	CU_DO(h, gpudp_cu->cuMemsetD8(g->params, 0, RTE_MAX(h->work->params_size, 8u)));
	ret = params_to_gpu(h);
	if (ret != 0)
		return ret;
#define DEV(p) (base + (CUdeviceptr)((const char *)(p) - (const char *)h->shared))
	h->kargs.ctl = DEV(h->ctl);
	/* own_desc modes (persistent) set these when they place addr and len */
	h->kargs.addr = h->addr != NULL ? DEV(h->addr) : 0;
	h->kargs.len = h->len != NULL ? DEV(h->len) : 0;
	h->kargs.verdict = DEV(h->verdict);
	h->kargs.result = h->result != NULL ? DEV(h->result) : 0;
	h->kargs.counters = DEV(h->counters);
	h->kargs.xaddr = h->xaddr != NULL ? DEV(h->xaddr) : 0;
	h->kargs.xlen = h->xlen != NULL ? DEV(h->xlen) : 0;
	h->kargs.meta = h->meta != NULL ? DEV(h->meta) : 0;
	h->kargs.quit = DEV(h->quit);
#undef DEV
	h->kargs.blocks = g->blocks;
	h->kargs.dcounters = g->dcounters;
	h->kargs.params = g->params;
	h->kargs.ring_size = h->conf.ring_size;
	h->kargs.burst_max = h->conf.burst_max;
	h->kargs.segs = h->conf.segs;
	h->kargs.result_size = h->work->result_size;
	h->kargs.n_reasons = h->work->n_reasons;
	h->kargs.n_counters = h->work->n_counters;
	h->kargs.wspan = h->work->wspan;
	h->kargs.poll_ns = h->conf.poll_ns;
	h->kargs.pollers = h->conf.persistent_pollers;
	/* the clock model serves the latency histograms only: without it
	 * they are off by the clocks' offset, and the handoff still works
	 * (a GPU that cannot run a kernel fails the first burst) */
	if (gpudp_ho_gpu_clock_sync(h) != 0)
		HO_LOG(WARNING, "%s: GPU clock not calibrated: latencies are not mapped onto "
		       "the CPU's clock", h->conf.name);
	return 0;
}

#else /* !GPUDP_HAS_CUDA: GPU modes exist but cannot be set up */

static int
nogpu_setup(struct gpudp_handoff *h)
{
	HO_LOG(ERR, "%s: mode %s: gpudp was built without CUDA", h->conf.name,
	       h->ops->name);
	return -ENOTSUP;
}

int
gpudp_ho_gpu_clock_sync(struct gpudp_handoff *h)
{
	RTE_SET_USED(h);
	return 0;
}

int
gpudp_ho_gpu_same_device(const struct gpudp_handoff *a, const struct gpudp_handoff *b)
{
	RTE_SET_USED(a);
	RTE_SET_USED(b);
	return 0;
}

#define HO_NOGPU(n, ...) const struct gpudp_ho_ops gpudp_ho_ops_ ## n = { \
	.name = #n, .gpu = 1, .setup = nogpu_setup, __VA_ARGS__ }
HO_NOGPU(launch);
HO_NOGPU(persistent, .own_desc = 1);
HO_NOGPU(graph);
HO_NOGPU(staged, .whole_frames = 1);

#endif


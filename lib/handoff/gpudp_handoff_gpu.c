/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpudp_handoff's GPU modes: launch, persistent, graph, staged. Each is an
 * ops table (gpudp_handoff_pvt.h); the shared setup loads the work's GPU
 * image (its kernel shapes, gpudp_work_dev.h) and lib/handoff's own kernels
 * (fwd.cu), copies the work's parameters to GPU memory, registers the
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

#include <gpudp_cuda.h>

#include "gpudp_handoff_images.h"

/*
 * staged: consecutive bursts go round this many lanes, each a copy stream
 * and a kernel stream, so that several bursts' copies are in flight at once
 * (the bandwidth per lane count: doc/benchmarks.md, "8 lanes of copy and
 * kernel streams"; more than 8 gave nothing)
 */
#define STAGE_LANES 8

struct ho_gpu {
	CUcontext ctx;
	CUdevice dev;
	int retained;         /* primary context retained here */
	int registered;       /* shared arrays registered */
	CUmodule mod;         /* lib/handoff's kernels (fwd.cu) */
	CUmodule wmod;        /* the work's image */
	CUfunction f_burst, f_persistent, f_signal, f_clock, f_gather;
	CUdeviceptr params;   /* the work's parameter block */
	CUdeviceptr dcounters;/* counter sums of multi-block bursts */
	uint32_t *plen;       /* staged: frame lengths (pinned, mapped) */
	CUstream stream;      /* kernels (and staged copy back) */
	CUstream lane[2 * STAGE_LANES]; /* staged: burst of slot s copies on lane[s % L],
					 * its kernels run on lane[L + s % L] */
	CUdeviceptr blocks;
	CUdeviceptr pstate;   /* persistent: struct gpudp_ho_pstate */
	CUstream clk_stream;  /* clock measures, beside a running kernel */
	void *wc;             /* persistent: addr, len, ready in write-combined memory */
	uint64_t *ready;      /* persistent: the ready words (in wc) */
	int persistent_running;
	/* graph */
	CUgraph *graphs;
	CUgraphExec *execs;
	uint32_t n_graphs, pend_first, pend_n;
	/* staged */
	CUevent *copied;      /* per slot: copy finished */
	uint8_t *stage_h;     /* pinned */
	CUdeviceptr stage_d;
	size_t stage_slot;    /* bytes per slot */
	uint32_t *soff;       /* per packet staging offset, UINT32_MAX: not staged */
	uint64_t *src;        /* stage_gpu_copy: per packet source address (pinned) */
	CUdeviceptr src_d;    /* the same array, as the gather kernel sees it */
};

#define GPU(h) ((struct ho_gpu *)(h)->gpu)

static int
cu_fail(struct gpudp_handoff *h, const char *what, CUresult r)
{
	HO_LOG(ERR, "%s: %s: %s", h->conf.name, what, gpudp_cuda_errstr(r));
	snprintf(h->err, sizeof(h->err), "%s: %s", what, gpudp_cuda_errstr(r));
	return -EIO;
}

#define CU_DO(h, call) do { CUresult r_ = (call); \
	if (r_ != CUDA_SUCCESS) return cu_fail((h), #call, r_); } while (0)

/* make the handoff's context current on the calling thread (rx, tx, main) */
static int
ctx_enter(struct gpudp_handoff *h)
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
static uint32_t
grid_for(const struct gpudp_handoff *h, uint32_t n)
{
	uint32_t g = (n + h->conf.threads - 1) / h->conf.threads;

	return RTE_MAX(1u, RTE_MIN(g, 1024u));
}

static int
launch_burst_on(struct gpudp_handoff *h, uint32_t slot, uint32_t n, uint32_t signal,
		CUstream st)
{
	struct gpudp_ho_kargs a = h->kargs;
	void *params[] = { &a };

	a.slot = slot;
	a.signal = signal;
	a.n = n;
	CU_DO(h, gpudp_cu->cuLaunchKernel(GPU(h)->f_burst, grid_for(h, n), 1, 1,
					  h->conf.threads, 1, 1, 0, st, params, NULL));
	return 0;
}

static int
launch_burst(struct gpudp_handoff *h, uint32_t slot, uint32_t n, uint32_t signal)
{
	return launch_burst_on(h, slot, n, signal, GPU(h)->stream);
}

/*
 * One measure of GPU %globaltimer - CPU ns, from the shortest of
 * CLOCK_ROUNDS ping-pongs with gpudp_fwd_clock through the quit line (flag
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
	int ret = ctx_enter(h);

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
static void
gpu_stop(struct gpudp_handoff *h)
{
	struct ho_gpu *g = GPU(h);
	uint32_t i;

	if (g == NULL || g->ctx == NULL || ctx_enter(h) != 0)
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

static void
gpu_teardown(struct gpudp_handoff *h)
{
	struct ho_gpu *g = GPU(h);
	uint32_t i;

	if (g == NULL)
		return;
	if (g->ctx != NULL && ctx_enter(h) == 0) {
		gpu_stop(h);
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
		if (g->blocks != 0)
			gpudp_cu->cuMemFree(g->blocks);
		if (g->pstate != 0)
			gpudp_cu->cuMemFree(g->pstate);
		if (g->params != 0)
			gpudp_cu->cuMemFree(g->params);
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
 * tx thread, while the oldest burst is not done: a fault in the work
 * (illegal address, trap, ...) is sticky in the context, and every stream
 * query returns it; the kernel will never store done.
 */
static int
gpu_check(struct gpudp_handoff *h)
{
	struct ho_gpu *g = GPU(h);
	CUresult r;
	uint32_t i;

	if (g == NULL || ctx_enter(h) != 0)
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

static int
gpu_setup(struct gpudp_handoff *h)
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
		CU_DO(h, gpudp_cu->cuDeviceGet(&g->dev, h->conf.cu_dev));
		CU_DO(h, gpudp_cu->cuDevicePrimaryCtxRetain(&g->ctx, g->dev));
		g->retained = 1;
	}
	ret = ctx_enter(h);
	if (ret != 0)
		return ret;
	CU_DO(h, gpudp_cu->cuMemHostRegister(h->shared, h->shared_len,
					     CU_MEMHOSTREGISTER_PORTABLE |
					     CU_MEMHOSTREGISTER_DEVICEMAP));
	g->registered = 1;
	CU_DO(h, gpudp_cu->cuMemHostGetDevicePointer(&base, h->shared, 0));
	ret = gpudp_cuda_module_load_image(&gpudp_handoff_image_fwd, &g->mod);
	if (ret != 0) {
		HO_LOG(ERR, "%s: kernels: %s", h->conf.name, gpudp_cuda_last_error());
		return ret;
	}
	ret = work_load(h);
	if (ret != 0)
		return ret;
	CU_DO(h, gpudp_cu->cuModuleGetFunction(&g->f_signal, g->mod, "gpudp_fwd_signal"));
	CU_DO(h, gpudp_cu->cuModuleGetFunction(&g->f_clock, g->mod, "gpudp_fwd_clock"));
	CU_DO(h, gpudp_cu->cuModuleGetFunction(&g->f_gather, g->mod, "gpudp_fwd_gather"));
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
	if (h->work->params_size != 0)
		CU_DO(h, gpudp_cu->cuMemcpyHtoD(g->params, h->params, h->work->params_size));
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
	/* the clock model serves the latency histograms only: without it
	 * they are off by the clocks' offset, and the handoff still works
	 * (a GPU that cannot run a kernel fails the first burst) */
	if (gpudp_ho_gpu_clock_sync(h) != 0)
		HO_LOG(WARNING, "%s: GPU clock not calibrated: latencies are not mapped onto "
		       "the CPU's clock", h->conf.name);
	return 0;
}

/* ---- launch: one kernel per burst, after rx_burst returned it ---- */

static int
launch_submit(struct gpudp_handoff *h, struct gpudp_ho_burst *b)
{
	int ret = ctx_enter(h);

	/* NVIDIA, "GPUDirect RDMA", "Synchronization and Memory Ordering": the burst is complete
	 * w.r.t. this thread; the launch is the CPU-initiated submission that
	 * orders the NIC's writes before the kernel's reads */
	return ret != 0 ? ret : launch_burst(h, b->slot, b->n, 1);
}

const struct gpudp_ho_ops gpudp_ho_ops_launch = {
	.name = "launch",
	.gpu = 1,
	.setup = gpu_setup,
	.stop = gpu_stop,
	.teardown = gpu_teardown,
	.check = gpu_check,
	.submit = launch_submit,
};

/* ---- persistent: resident kernel, ready word per slot ---- */

/*
 * The words the rx thread writes and the kernel reads (descriptors, ready)
 * in write-combined host memory: the CPU's stores go out as whole lines
 * without a read for ownership, and the GPU's reads of them snoop no CPU
 * cache. In cached memory every line the GPU had read cost the rx thread a
 * miss when it wrote the line again a lap later. The CPU never reads these
 * words in this mode (persistent_submit orders them with sfence).
 */
static int
persistent_wc(struct gpudp_handoff *h)
{
	struct ho_gpu *g = GPU(h);
	size_t n = (size_t)h->conf.ring_size * h->conf.burst_max;
	size_t o_len = RTE_ALIGN_CEIL(n * sizeof(uint64_t), 64);
	size_t o_ready = RTE_ALIGN_CEIL(o_len + n * sizeof(uint32_t), 64);
	size_t len = o_ready + h->conf.ring_size * sizeof(uint64_t);
	CUdeviceptr d;
	uint32_t s;

	CU_DO(h, gpudp_cu->cuMemHostAlloc(&g->wc, len, CU_MEMHOSTALLOC_WRITECOMBINED |
					  CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE));
	memset(g->wc, 0, len);
	CU_DO(h, gpudp_cu->cuMemHostGetDevicePointer(&d, g->wc, 0));
	h->addr = g->wc;
	h->len = (uint32_t *)((char *)g->wc + o_len);
	g->ready = (uint64_t *)((char *)g->wc + o_ready);
	for (s = 0; s < h->conf.ring_size; s++) {
		h->bursts[s].addr = h->addr + (size_t)s * h->conf.burst_max;
		h->bursts[s].len = h->len + (size_t)s * h->conf.burst_max;
	}
	h->kargs.addr = d;
	h->kargs.len = d + o_len;
	h->kargs.ready = d + o_ready;
	return 0;
}

static int
persistent_setup(struct gpudp_handoff *h)
{
	size_t len = sizeof(struct gpudp_ho_pstate) +
		     h->conf.ring_size * sizeof(((struct gpudp_ho_pstate *)0)->slot[0]);
	int ret, ord = 0;

	ret = gpu_setup(h);
	if (ret != 0)
		return ret;
	CU_DO(h, gpudp_cu->cuMemAlloc(&GPU(h)->pstate, len));
	CU_DO(h, gpudp_cu->cuMemsetD8(GPU(h)->pstate, 0, len));
	h->kargs.pstate = GPU(h)->pstate;
	ret = persistent_wc(h);
	if (ret != 0)
		return ret;
	CU_DO(h, gpudp_cu->cuDeviceGetAttribute(&ord,
		CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WRITES_ORDERING, GPU(h)->dev));
	/* NVIDIA, "GPUDirect RDMA", "Synchronization and Memory Ordering": a kernel already running
	 * is not ordered after the NIC's writes by any submission; the flush
	 * makes them visible to the owning device first, unless the device
	 * already orders them for its own context (OWNER or stronger) */
	h->flush_needed = h->conf.force_flush ||
		ord < CU_GPU_DIRECT_RDMA_WRITES_ORDERING_OWNER;
	if (h->flush_needed && gpudp_cu->cuFlushGPUDirectRDMAWrites == NULL) {
		HO_LOG(ERR, "%s: device needs cuFlushGPUDirectRDMAWrites, driver lacks it",
		       h->conf.name);
		return -ENOTSUP;
	}
	HO_LOG(INFO, "%s: GPU_DIRECT_RDMA_WRITES_ORDERING %d: %s before each ready flag",
	       h->conf.name, ord, h->flush_needed ? "flush" : "no flush");
	return 0;
}

static int
persistent_start(struct gpudp_handoff *h)
{
	struct gpudp_ho_kargs a = h->kargs;
	void *params[] = { &a };
	int ret = ctx_enter(h);

	if (ret != 0)
		return ret;
	/* the kernel's slot walk starts at seq 1: no restart after use */
	if (h->head != 0) {
		HO_LOG(ERR, "%s: a persistent handoff cannot restart after use", h->conf.name);
		return -EINVAL;
	}
	__atomic_store_n(h->quit, 0, __ATOMIC_RELEASE);
	/* block 0 dispatches, the others work (lib/handoff/fwd.cu) */
	CU_DO(h, gpudp_cu->cuLaunchKernel(GPU(h)->f_persistent, h->conf.persistent_blocks + 1,
					  1, 1, h->conf.threads, 1, 1, 0, GPU(h)->stream,
					  params, NULL));
	GPU(h)->persistent_running = 1;
	return 0;
}

static int
persistent_submit(struct gpudp_handoff *h, struct gpudp_ho_burst *b)
{
	uint32_t n = b->n;

	if (h->flush_needed) {
		CUresult r = ctx_enter(h) != 0 ? CUDA_ERROR_INVALID_CONTEXT :
			gpudp_cu->cuFlushGPUDirectRDMAWrites(
				CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TARGET_CURRENT_CTX,
				CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TO_OWNER);

		if (r != CUDA_SUCCESS) {
			/* the payload may not be visible to the kernel: drop the
			 * burst, but still hand the slot over with no packet, so
			 * the resident block serving it completes it in order
			 * (done stored by the CPU instead would leave that block
			 * waiting for this seq forever) */
			cu_fail(h, "cuFlushGPUDirectRDMAWrites", r);
			memset(h->verdict + (size_t)b->slot * h->conf.burst_max,
			       GPUDP_FWD_DROP_ERROR, b->n);
			n = 0;
		} else {
			h->rx.flushes++;
		}
	}
	/* release: descriptors (addr, len) before the flag, which carries n
	 * too; the kernel reads it with ld.acquire.sys (gpudp_handoff_dev.h) */
	if (b->t_submit != 0)
		n |= GPUDP_HO_READY_TIMED;
	/* write-combined stores are not ordered by a release store: sfence
	 * makes the descriptors visible before the ready word, and the
	 * second one sends the ready word out of the write-combining buffer
	 * now rather than whenever it is evicted */
	rte_wmb();
	*(volatile uint64_t *)&GPU(h)->ready[b->slot] = (uint64_t)n << 32 | b->seq;
	rte_wmb();
	return 0;
}

const struct gpudp_ho_ops gpudp_ho_ops_persistent = {
	.name = "persistent",
	.gpu = 1,
	.setup = persistent_setup,
	.start = persistent_start,
	.stop = gpu_stop,
	.teardown = gpu_teardown,
	.check = gpu_check,
	.submit = persistent_submit,
	.ready_only = 1,
	.own_desc = 1,
};

/* ---- graph: graph_batch bursts per CUDA graph ---- */

static int
graph_setup(struct gpudp_handoff *h)
{
	struct ho_gpu *g;
	uint32_t i, j, bsz = h->conf.graph_batch;
	int ret = gpu_setup(h);

	if (ret != 0)
		return ret;
	g = GPU(h);
	if (gpudp_cu->cuGraphCreate == NULL || gpudp_cu->cuGraphAddKernelNode == NULL ||
	    gpudp_cu->cuGraphInstantiateWithFlags == NULL || gpudp_cu->cuGraphLaunch == NULL) {
		HO_LOG(ERR, "%s: the driver lacks the CUDA graph API", h->conf.name);
		return -ENOTSUP;
	}
	g->n_graphs = h->conf.ring_size / bsz;
	g->graphs = calloc(g->n_graphs, sizeof(*g->graphs));
	g->execs = calloc(g->n_graphs, sizeof(*g->execs));
	if (g->graphs == NULL || g->execs == NULL)
		return -ENOMEM;
	for (i = 0; i < g->n_graphs; i++) {
		CU_DO(h, gpudp_cu->cuGraphCreate(&g->graphs[i], 0));
		for (j = 0; j < bsz; j++) {
			struct gpudp_ho_kargs a = h->kargs;
			void *params[] = { &a };
			CUDA_KERNEL_NODE_PARAMS p;
			CUgraphNode node;

			a.slot = i * bsz + j;
			a.signal = 1;
			memset(&p, 0, sizeof(p));
			p.func = g->f_burst;
			p.gridDimX = grid_for(h, h->conf.burst_max);
			p.gridDimY = p.gridDimZ = 1;
			p.blockDimX = h->conf.threads;
			p.blockDimY = p.blockDimZ = 1;
			p.kernelParams = params;
			CU_DO(h, gpudp_cu->cuGraphAddKernelNode(&node, g->graphs[i],
								NULL, 0, &p));
		}
		CU_DO(h, gpudp_cu->cuGraphInstantiateWithFlags(&g->execs[i],
							       g->graphs[i], 0));
	}
	return 0;
}

static int
graph_flush(struct gpudp_handoff *h)
{
	struct ho_gpu *g = GPU(h);
	uint32_t i;
	int ret;

	if (g->pend_n == 0)
		return 0;
	ret = ctx_enter(h);
	for (i = 0; ret == 0 && i < g->pend_n; i++) {
		uint32_t s = (g->pend_first + i) & h->mask;

		ret = launch_burst(h, s, h->ctl[s].n, 1);
	}
	g->pend_n = 0;
	return ret;
}

static int
graph_submit(struct gpudp_handoff *h, struct gpudp_ho_burst *b)
{
	struct ho_gpu *g = GPU(h);
	uint32_t bsz = h->conf.graph_batch;
	int ret = ctx_enter(h);

	if (ret != 0)
		return ret;
	if (g->pend_n == 0 && b->slot % bsz != 0)
		return launch_burst(h, b->slot, b->n, 1); /* realign to a batch */
	if (g->pend_n == 0)
		g->pend_first = b->slot;
	if (++g->pend_n < bsz)
		return 0;
	g->pend_n = 0;
	h->rx.graphs++;
	CU_DO(h, gpudp_cu->cuGraphLaunch(g->execs[g->pend_first / bsz], g->stream));
	return 0;
}

const struct gpudp_ho_ops gpudp_ho_ops_graph = {
	.name = "graph",
	.gpu = 1,
	.setup = graph_setup,
	.stop = gpu_stop,
	.teardown = gpu_teardown,
	.check = gpu_check,
	.submit = graph_submit,
	.flush = graph_flush,
};

/* ---- staged: host packets through pinned staging and a copy stream ---- */

static int
staged_setup(struct gpudp_handoff *h)
{
	struct ho_gpu *g;
	size_t total;
	uint32_t i;
	int ret = gpu_setup(h);

	if (ret != 0)
		return ret;
	g = GPU(h);
	if (gpudp_cu->cuStreamWaitEvent == NULL)
		return -ENOTSUP;
	g->stage_slot = RTE_ALIGN_CEIL((size_t)h->conf.stage_burst_bytes, 64);
	total = g->stage_slot * h->conf.ring_size;
	/* CPU copies go through pinned host staging; GPU copies need none */
	if (!h->conf.stage_gpu_copy)
		CU_DO(h, gpudp_cu->cuMemAllocHost((void **)&g->stage_h, total));
	CU_DO(h, gpudp_cu->cuMemAlloc(&g->stage_d, total));
	for (i = 0; i < RTE_DIM(g->lane); i++)
		CU_DO(h, gpudp_cu->cuStreamCreate(&g->lane[i], CU_STREAM_NON_BLOCKING));
	g->copied = calloc(h->conf.ring_size, sizeof(*g->copied));
	g->soff = calloc((size_t)h->conf.ring_size * h->conf.burst_max, sizeof(uint32_t));
	if (g->copied == NULL || g->soff == NULL)
		return -ENOMEM;
	for (i = 0; i < h->conf.ring_size; i++)
		CU_DO(h, gpudp_cu->cuEventCreate(&g->copied[i], CU_EVENT_DISABLE_TIMING));
	if (h->conf.stage_gpu_copy) {
		CU_DO(h, gpudp_cu->cuMemAllocHost((void **)&g->src, (size_t)h->conf.ring_size *
						  h->conf.burst_max * sizeof(uint64_t)));
		CU_DO(h, gpudp_cu->cuMemHostGetDevicePointer(&g->src_d, g->src, 0));
		h->kargs.back = g->src_d;
	}
	/* the frames' lengths: the work sees only its span in the staging
	 * buffer, and pkt_len from here */
	{
		CUdeviceptr d;

		CU_DO(h, gpudp_cu->cuMemAllocHost((void **)&g->plen, (size_t)h->conf.ring_size *
						  h->conf.burst_max * sizeof(uint32_t)));
		CU_DO(h, gpudp_cu->cuMemHostGetDevicePointer(&d, g->plen, 0));
		h->kargs.plen = d;
	}
	HO_LOG(INFO, "%s: staging copies by the %s", h->conf.name,
	       h->conf.stage_gpu_copy ? "GPU (gather kernel on the copy stream)" : "CPU");
	return 0;
}

/* stage_gpu_copy: one warp per packet, 8 warps per block */
static int
launch_gather(struct gpudp_handoff *h, uint32_t slot, uint32_t n, CUstream st)
{
	struct ho_gpu *g = GPU(h);
	struct gpudp_ho_kargs a = h->kargs;
	void *params[] = { &a, &g->src_d, &n };

	a.slot = slot;
	CU_DO(h, gpudp_cu->cuLaunchKernel(g->f_gather, RTE_MIN((n + 7) / 8, 256u), 1, 1,
					  256, 1, 1, 0, st, params, NULL));
	return 0;
}

/*
 * Copy in on the copy stream (the CPU gathers into pinned staging and an
 * H2D copy follows, or with stage_gpu_copy the gather kernel reads the
 * packets), the kernel ordered after it by an event. CPU copies: a D2H
 * copy of the staging on the kernel's stream for staged_complete's
 * scatter, then a one-thread kernel stores done. GPU copies: the kernel
 * itself writes the headers back into the packets and stores done (two
 * launches fewer per burst).
 */
static int
staged_enqueue(struct gpudp_handoff *h, struct gpudp_ho_burst *b)
{
	struct ho_gpu *g = GPU(h);
	size_t base = (size_t)b->slot * g->stage_slot, off = 0;
	size_t pkt0 = (size_t)b->slot * h->conf.burst_max;
	uint32_t *soff = g->soff + pkt0, i;
	uint64_t *src = g->src != NULL ? g->src + pkt0 : NULL;
	uint32_t *plen = g->plen + pkt0, span = h->work->span, k, nx = b->segs - 1;
	struct gpudp_ho_kargs a = h->kargs;
	void *params[] = { &a };
	/* consecutive bursts on different streams: one's copy overlaps the
	 * previous one's copy and kernel */
	CUstream cs = g->lane[b->slot % STAGE_LANES];
	CUstream ws = g->lane[STAGE_LANES + b->slot % STAGE_LANES];
	int ret;

	for (i = 0; i < b->n; i++) {
		uint32_t l = b->len[i];

		/* the packet's CPU address, before addr becomes the staging
		 * buffer's (staged_complete copies back to it) */
		b->data[i] = (void *)(uintptr_t)b->addr[i];
		plen[i] = l;
		/* header/data split: only the first segment is staged; the
		 * others (in GPU memory) are read in place */
		for (k = 0; k < nx && b->xlen[(size_t)i * nx + k] != 0; k++)
			plen[i] += b->xlen[(size_t)i * nx + k];
		if (span != 0 && l > span)
			l = b->len[i] = span;  /* the work's span only */
		if (l > h->conf.stage_bytes || RTE_ALIGN_CEIL(l, 64) > g->stage_slot - off) {
			/* cannot be staged (too long, or the burst's staging
			 * area is full): the work sees an empty first segment
			 * (the built-ins drop it as truncated) */
			soff[i] = UINT32_MAX;
			if (src != NULL)
				src[i] = 0;
			b->addr[i] = g->stage_d + base;
			b->len[i] = 0;
			continue;
		}
		if (src != NULL)
			src[i] = (uint64_t)(uintptr_t)b->data[i];
		else
			memcpy(g->stage_h + base + off, b->data[i], l);
		soff[i] = (uint32_t)off;
		b->addr[i] = g->stage_d + base + off;
		off += RTE_ALIGN_CEIL(l, 64);
	}
	if (off > 0) {
		if (src != NULL) {
			ret = launch_gather(h, b->slot, b->n, cs);
			if (ret != 0)
				return ret;
		} else {
			CU_DO(h, gpudp_cu->cuMemcpyHtoDAsync(g->stage_d + base, g->stage_h + base,
							     off, cs));
		}
		CU_DO(h, gpudp_cu->cuEventRecord(g->copied[b->slot], cs));
		/* the kernel is ordered after the copy on the GPU */
		CU_DO(h, gpudp_cu->cuStreamWaitEvent(ws, g->copied[b->slot], 0));
	}
	if (src != NULL)  /* headers back (kargs.back) and done by the kernel */
		return launch_burst_on(h, b->slot, b->n, 1, ws);
	ret = launch_burst_on(h, b->slot, b->n, 0, ws);
	if (ret != 0)
		return ret;
	if (off > 0)
		CU_DO(h, gpudp_cu->cuMemcpyDtoHAsync(g->stage_h + base, g->stage_d + base,
						     off, ws));
	a.slot = b->slot;
	CU_DO(h, gpudp_cu->cuLaunchKernel(g->f_signal, 1, 1, 1, 1, 1, 1, 0, ws,
					  params, NULL));
	return 0;
}

/* a failure after something was enqueued: let it finish before the burst
 * is failed and its packets go back to the tx side (a queued copy or
 * kernel may still read or write them) */
static int
staged_submit(struct gpudp_handoff *h, struct gpudp_ho_burst *b)
{
	int ret = ctx_enter(h);

	if (ret != 0)
		return ret;
	ret = staged_enqueue(h, b);
	if (ret != 0)
		gpu_stop(h);  /* every stream drained */
	return ret;
}

/* tx thread: the work's write span back into the packets, before anyone
 * reads them */
static void
staged_complete(struct gpudp_handoff *h, struct gpudp_ho_burst *b)
{
	struct ho_gpu *g = GPU(h);
	size_t base = (size_t)b->slot * g->stage_slot;
	const uint32_t *soff = g->soff + (size_t)b->slot * h->conf.burst_max;
	uint32_t i;

	if (g->src != NULL || h->work->wspan == 0)
		return;  /* the GPU copied them back, or the work writes nothing */
	for (i = 0; i < b->n; i++)
		if (soff[i] != UINT32_MAX)
			memcpy(b->data[i], g->stage_h + base + soff[i],
			       RTE_MIN(b->len[i], h->work->wspan));
}

const struct gpudp_ho_ops gpudp_ho_ops_staged = {
	.name = "staged",
	.gpu = 1,
	.setup = staged_setup,
	.stop = gpu_stop,
	.teardown = gpu_teardown,
	.check = gpu_check,
	.submit = staged_submit,
	.complete = staged_complete,
	.whole_frames = 1,
};

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

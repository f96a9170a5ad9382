/* SPDX-License-Identifier: BSD-3-Clause */
/* test_gpu_fwd: GPU helpers and the GPU cases (kernels, modes, ordering, segments). */
#include <pthread.h>

#include "fwd_test_pvt.h"
#define STATE_WORK_TYPES_ONLY
#include "state_work.h"

#ifdef GPUDP_HAS_CUDA

CUcontext ctx;      /* the GPU's primary context (gpu_up()) */

/* the ordering cases' lines of this thread begin with it ("GPU 1: " when
 * two GPUs run them at once) */
static _Thread_local const char *order_tag = "";


int
gpu_up(void)
{
	CUdevice dev;

	if (ctx != NULL)
		return 0;
	if (!have_gpu)
		return -1;
	if (gpudp_cu->cuDeviceGet(&dev, 0) != CUDA_SUCCESS ||
	    gpudp_cu->cuDevicePrimaryCtxRetain(&ctx, dev) != CUDA_SUCCESS)
		return -1;
	return gpudp_cu->cuCtxSetCurrent(ctx) == CUDA_SUCCESS ? 0 : -1;
}

/* device memory, SYNC_MEMOPS as every NIC-written buffer (doc/ordering.md) */
CUdeviceptr
dev_alloc(size_t len)
{
	CUdeviceptr d = 0;
	unsigned int one = 1;

	if (gpudp_cu->cuMemAlloc(&d, len) != CUDA_SUCCESS)
		return 0;
	gpudp_cu->cuPointerSetAttribute(&one, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, d);
	return d;
}

int
kernels_gpu_match_cpu_byte_for_byte(void)
{
	enum { N = 3000 };
	static uint8_t host[N * STRIDE], gpu_out[N * STRIDE];
	static uint8_t *hd[N], *dd[N], *pd[N];
	static uint32_t len[N], aux_c[N], aux_g[N], aux_s[N];
	static uint8_t v_c[N], v_g[N], v_s[N];
	uint8_t *pin = NULL;
	CUdeviceptr d;
	uint32_t i, k;

	GPUDP_TEST_SKIP_IF(gpu_up() != 0, "no GPU");
	d = dev_alloc(sizeof(host));
	GPUDP_TEST_ASSERT(d != 0, "cuMemAlloc");
	CU_OK(gpudp_cu->cuMemAllocHost((void **)&pin, sizeof(host)));
	for (k = 0; k < GPUDP_FWD_K_MAX; k++) {
		struct run rc = { .mode = GPUDP_HO_CPU, .kernel = k, .burst = 256,
				  .verdict = v_c, .aux = aux_c };
		struct run rg = { .mode = GPUDP_HO_LAUNCH, .kernel = k, .burst = 256,
				  .cu_ctx = (uint64_t)(uintptr_t)ctx, .verdict = v_g, .aux = aux_g };

		/* staged with GPU copies, packets in pinned memory at odd
		 * offsets: the gather and the header copy back take their
		 * byte paths as well as their 16-byte ones */
		struct run rs = { .mode = GPUDP_HO_STAGED, .kernel = k, .burst = 256,
				  .gpu_copy = 1, .cu_ctx = (uint64_t)(uintptr_t)ctx,
				  .verdict = v_s, .aux = aux_s };

		for (i = 0; i < N; i++) {
			len[i] = gen_packet(host + i * STRIDE, i, k);
			hd[i] = host + i * STRIDE;
			dd[i] = (uint8_t *)(uintptr_t)(d + i * STRIDE);
			pd[i] = pin + i * STRIDE + (i % 4 == 0 ? 0 : i % 13);
			memcpy(pd[i], hd[i], len[i]);
		}
		CU_OK(gpudp_cu->cuMemcpyHtoD(d, host, sizeof(host)));
		GPUDP_TEST_ASSERT(run_packets(&rc, hd, len, N) == 0, "cpu run");
		GPUDP_TEST_ASSERT(run_packets(&rg, dd, len, N) == 0, "gpu run");
		GPUDP_TEST_ASSERT(run_packets(&rs, pd, len, N) == 0, "staged run");
		CU_OK(gpudp_cu->cuMemcpyDtoH(gpu_out, d, sizeof(gpu_out)));
		for (i = 0; i < N; i++) {
			GPUDP_TEST_ASSERT(v_c[i] == v_g[i] && v_c[i] == v_s[i],
					  "%s packet %u: verdict cpu %s gpu %s staged %s",
					  kname[k], i, vname(v_c[i]),
					  vname(v_g[i]), vname(v_s[i]));
			GPUDP_TEST_ASSERT(aux_c[i] == aux_g[i] && aux_c[i] == aux_s[i],
					  "%s packet %u: aux %#x vs %#x, staged %#x",
					  kname[k], i, aux_c[i], aux_g[i], aux_s[i]);
			GPUDP_TEST_ASSERT(memcmp(host + i * STRIDE, gpu_out + i * STRIDE, len[i]) == 0,
					  "%s packet %u: bytes differ", kname[k], i);
			GPUDP_TEST_ASSERT(memcmp(host + i * STRIDE, pd[i], len[i]) == 0,
					  "%s packet %u (offset %u): staged bytes differ",
					  kname[k], i, (unsigned int)(i % 13));
		}
		GPUDP_TEST_ASSERT(rc.vcount[GPUDP_WORK_PASS] > 0 && rc.vcount[GPUDP_WORK_PASS] < N,
				  "%s: %" PRIu64 " passed: the mix must pass some and drop some",
				  kname[k], rc.vcount[GPUDP_WORK_PASS]);
	}
	gpudp_cu->cuMemFree(d);
	gpudp_cu->cuMemFreeHost(pin);
	return GPUDP_TEST_PASS;
}

/* every GPU mode, device or pinned packets, bursts 1, 31, 32, 33, 1024 */
int
gpu_modes_process_every_packet(int pinned)
{
	static const uint32_t bursts[] = { 1, 31, 32, 33, 1024 };
	static const enum gpudp_ho_mode modes[] = { GPUDP_HO_LAUNCH, GPUDP_HO_PERSISTENT,
						    GPUDP_HO_GRAPH, GPUDP_HO_STAGED };
	enum { N = 1024 * 3 + 7, PS = 64 };
	static uint8_t before[N][12], *data[N], *view[N], *host;
	uint8_t *pin = NULL;
	CUdeviceptr d = 0;
	uint32_t m, b, i, n;
	int bad;

	GPUDP_TEST_SKIP_IF(gpu_up() != 0, "no GPU");
	host = malloc((size_t)N * PS);
	GPUDP_TEST_ASSERT(host != NULL, "malloc");
	if (pinned)
		CU_OK(gpudp_cu->cuMemAllocHost((void **)&pin, (size_t)N * PS));
	else
		GPUDP_TEST_ASSERT((d = dev_alloc((size_t)N * PS)) != 0, "cuMemAlloc");
	/* pinned: once more in staged mode with the GPU doing the copies */
	for (m = 0; m < RTE_DIM(modes) + (pinned ? 1 : 0); m++)
		for (b = 0; b < RTE_DIM(bursts); b++) {
			int gpu_copy = m == RTE_DIM(modes);
			enum gpudp_ho_mode mode = gpu_copy ? GPUDP_HO_STAGED : modes[m];
			/* staged reads host packets: pinned or plain host memory */
			int on_host = mode == GPUDP_HO_STAGED;

			n = bursts[b] * 3 + 7;
			for (i = 0; i < n; i++) {
				uint8_t *h = host + (size_t)i * PS;

				memset(h, (int)(i * 3 + m), PS);
				h[0] = (uint8_t)i;
				h[1] = (uint8_t)(i >> 8);
				h[6] = (uint8_t)~i;
				memcpy(before[i], h, 12);
				if (pinned) {
					memcpy(pin + (size_t)i * PS, h, PS);
					data[i] = view[i] = pin + (size_t)i * PS;
				} else if (on_host) {
					data[i] = view[i] = h;
				} else {
					data[i] = (uint8_t *)(uintptr_t)(d + (size_t)i * PS);
					view[i] = h;
				}
			}
			if (!pinned && !on_host)
				CU_OK(gpudp_cu->cuMemcpyHtoD(d, host, (size_t)n * PS));
			GPUDP_TEST_ASSERT(check_macswap_once(mode, gpu_copy,
							     (uint64_t)(uintptr_t)ctx,
							     data, view, n, bursts[b]) == 0,
					  "%s%s burst %u", gpudp_ho_mode_name(mode),
					  gpu_copy ? " (GPU copies)" : "", bursts[b]);
			if (!pinned && !on_host)
				CU_OK(gpudp_cu->cuMemcpyDtoH(host, d, (size_t)n * PS));
			bad = verify_swapped(view, n, (const uint8_t (*)[12])before);
			GPUDP_TEST_ASSERT(bad < 0, "%s %s burst %u: packet %d not swapped exactly once",
					  gpudp_ho_mode_name(mode), pinned ? "pinned" : "device",
					  bursts[b], bad);
		}
	if (pin != NULL)
		gpudp_cu->cuMemFreeHost(pin);
	if (d != 0)
		gpudp_cu->cuMemFree(d);
	free(host);
	return GPUDP_TEST_PASS;
}

int
gpu_modes_device_memory_every_burst_size(void)
{
	return gpu_modes_process_every_packet(0);
}

int
gpu_modes_pinned_memory_every_burst_size(void)
{
	return gpu_modes_process_every_packet(1);
}

/*
 * Ordering (NVIDIA, "GPUDirect RDMA", "Synchronization and Memory Ordering";
 * doc/ordering.md):
 * an independent writer (a copy on another stream, behind a 20 us delay
 * kernel: the stand-in for a NIC's DMA) fills a burst's packets; the burst
 * is handed off once the write is complete with respect to this CPU
 * thread (stream synchronised: the equivalent of rx_burst returning).
 * The macswap result proves the kernel read this burst's bytes. The wrong
 * variant hands the burst off before the write completes. With @p w, a
 * user work loaded from its file (works/probe_work.c), the same holds,
 * and its result (the first 4 bytes it read) must be this burst's too.
 * Everything runs in the CUDA context current on the calling thread (the
 * GPU gpu_up() made current, or the one a thread of
 * ordering_two_gpus_at_once() made current).
 */
int
ordering_run(enum gpudp_ho_mode mode, int wrong, uint32_t bursts, uint64_t *stale,
	     int force_flush, const struct gpudp_work *w)
{
	enum { NP = 32, PS = 64 };
	struct gpudp_handoff_conf c = { .name = "order", .mode = mode, .work = w,
		.ring_size = 2, .burst_max = NP,
		.graph_batch = 1, .persistent_blocks = 1, .force_flush = force_flush };
	int on_host = mode == GPUDP_HO_STAGED;
	struct gpudp_handoff *h;
	CUcontext cur = NULL;
	CUstream ws;
	CUmodule mod;
	CUfunction delay;
	CUdeviceptr dst_d = 0, src_d = 0;
	uint8_t *src_h, *dst_h = NULL, check[NP * PS];
	uint32_t k, i;

	*stale = 0;
	CU_OK(gpudp_cu->cuCtxGetCurrent(&cur));
	GPUDP_TEST_ASSERT(cur != NULL, "no CUDA context current");
	c.cu_ctx = (uint64_t)(uintptr_t)cur;
	CU_OK(gpudp_cu->cuStreamCreate(&ws, CU_STREAM_NON_BLOCKING));
	GPUDP_TEST_ASSERT(gpudp_cuda_module_load("fwd_test", &mod) == 0, "fwd_test module: %s",
			  gpudp_cuda_last_error());
	CU_OK(gpudp_cu->cuModuleGetFunction(&delay, mod, "gpudp_fwd_test_delay"));
	CU_OK(gpudp_cu->cuMemAllocHost((void **)&src_h, NP * PS));
	if (on_host) {
		CU_OK(gpudp_cu->cuMemAllocHost((void **)&dst_h, NP * PS));
		GPUDP_TEST_ASSERT((src_d = dev_alloc(NP * PS)) != 0, "alloc");
	} else {
		GPUDP_TEST_ASSERT((dst_d = dev_alloc(NP * PS)) != 0, "alloc");
	}
	h = gpudp_handoff_create(&c);
	GPUDP_TEST_ASSERT(h != NULL, "handoff %s", gpudp_ho_mode_name(mode));
	for (k = 1; k <= bursts; k++) {
		struct gpudp_ho_burst *b;
		uint64_t ns = 20000;
		void *dp[] = { &ns };

		for (i = 0; i < NP; i++) {
			uint8_t *p = src_h + i * PS;

			memset(p, 0, PS);
			memcpy(p, &k, 4);          /* dst MAC: burst, packet */
			p[4] = (uint8_t)i;
			p[5] = 0xd5;
			p[6] = 0x5a;               /* src MAC: a constant */
		}
		/* the independent writer: delay, then the copy */
		CU_OK(gpudp_cu->cuLaunchKernel(delay, 1, 1, 1, 1, 1, 1, 0, ws, dp, NULL));
		if (on_host) {
			CU_OK(gpudp_cu->cuMemcpyHtoDAsync(src_d, src_h, NP * PS, ws));
			CU_OK(gpudp_cu->cuMemcpyDtoHAsync(dst_h, src_d, NP * PS, ws));
		} else {
			CU_OK(gpudp_cu->cuMemcpyHtoDAsync(dst_d, src_h, NP * PS, ws));
		}
		if (!wrong)   /* the write is complete w.r.t. this thread */
			CU_OK(gpudp_cu->cuStreamSynchronize(ws));
		while ((b = gpudp_handoff_acquire(h)) == NULL)
			;
		for (i = 0; i < NP; i++)
			gpudp_ho_burst_add(b, on_host ? (void *)(dst_h + i * PS) :
					   (void *)(uintptr_t)(dst_d + i * PS), 64, NULL);
		gpudp_handoff_submit(h, b);
		gpudp_handoff_flush(h);
		while ((b = gpudp_handoff_completed(h)) == NULL)
			;
		/* the user work's result: the dst MAC's first 4 bytes it read */
		for (i = 0; w != NULL && i < NP; i++)
			if (*(const uint32_t *)(b->result + 4 * i) != k)
				(*stale)++;
		gpudp_handoff_release(h, b);
		CU_OK(gpudp_cu->cuStreamSynchronize(ws));
		if (on_host)
			memcpy(check, dst_h, sizeof(check));
		else
			CU_OK(gpudp_cu->cuMemcpyDtoH(check, dst_d, sizeof(check)));
		for (i = 0; i < NP; i++) {
			const uint8_t *p = check + i * PS;
			uint32_t got;

			memcpy(&got, p + 6, 4);
			if (got != k || p[10] != i || p[0] != 0x5a)
				(*stale)++;
		}
	}
	gpudp_handoff_destroy(h);
	gpudp_cu->cuStreamSynchronize(ws);
	gpudp_cu->cuStreamDestroy(ws);
	gpudp_cu->cuModuleUnload(mod);
	gpudp_cu->cuMemFreeHost(src_h);
	if (dst_h != NULL)
		gpudp_cu->cuMemFreeHost(dst_h);
	if (src_d != 0)
		gpudp_cu->cuMemFree(src_d);
	if (dst_d != 0)
		gpudp_cu->cuMemFree(dst_d);
	return GPUDP_TEST_PASS;
}

const enum gpudp_ho_mode gpu_modes[] = {
	GPUDP_HO_LAUNCH, GPUDP_HO_PERSISTENT, GPUDP_HO_GRAPH, GPUDP_HO_STAGED,
};

/* every GPU mode, and persistent with the flush forced on: no packet (nor,
 * with a work @p w, result) read stale in @p n bursts each */
int
ordering_every_mode(const struct gpudp_work *w, uint32_t n)
{
	uint64_t stale;
	uint32_t m;

	for (m = 0; m <= RTE_DIM(gpu_modes); m++) {
		/* the last round: persistent with the flush forced on */
		enum gpudp_ho_mode mode = m < RTE_DIM(gpu_modes) ? gpu_modes[m] :
			GPUDP_HO_PERSISTENT;
		int flush = m == RTE_DIM(gpu_modes);

		GPUDP_TEST_ASSERT(ordering_run(mode, 0, n, &stale, flush, w) == GPUDP_TEST_PASS,
				  "run");
		printf("    %s%-10s%s %s%s%u bursts x 32 packets, %" PRIu64 " stale\n", order_tag,
		       gpudp_ho_mode_name(mode), flush ? "+flush" : "", w != NULL ? "work " : "",
		       w != NULL ? w->name : "", n, stale);
		GPUDP_TEST_ASSERT(stale == 0, "%s%s: %" PRIu64 " packets or results read stale",
				  order_tag, gpudp_ho_mode_name(mode), stale);
	}
	return GPUDP_TEST_PASS;
}

/* every GPU mode: handing a burst off before its write completed is caught */
int
ordering_wrong_every_mode(const struct gpudp_work *w, uint32_t n)
{
	uint64_t stale;
	uint32_t m;

	for (m = 0; m < RTE_DIM(gpu_modes); m++) {
		GPUDP_TEST_ASSERT(ordering_run(gpu_modes[m], 1, n, &stale, 0, w) ==
				  GPUDP_TEST_PASS, "run");
		printf("    %s%-10s %s%shanded off before the write completed: %" PRIu64
		       " of %u packets stale\n", order_tag, gpudp_ho_mode_name(gpu_modes[m]),
		       w != NULL ? w->name : "", w != NULL ? " " : "", stale, n * 32);
		GPUDP_TEST_ASSERT(stale > 0, "%s%s: the wrong variant went unnoticed",
				  order_tag, gpudp_ho_mode_name(gpu_modes[m]));
	}
	return GPUDP_TEST_PASS;
}

int
ordering_dependent_kernel_never_reads_stale(void)
{
	const char *env = getenv("GPUDP_FWD_ORDER_BURSTS"); /* longer runs by hand */

	GPUDP_TEST_SKIP_IF(gpu_up() != 0, "no GPU");
	return ordering_every_mode(NULL, env != NULL && atoi(env) > 0 ? (uint32_t)atoi(env) :
				   4000);
}

int
ordering_wrong_variant_is_caught(void)
{
	GPUDP_TEST_SKIP_IF(gpu_up() != 0, "no GPU");
	return ordering_wrong_every_mode(NULL, 200);
}

/* one GPU of ordering_two_gpus_at_once(): its thread's context and result */
struct order_gpu {
	int ordinal;
	CUcontext cx;
	uint32_t bursts;
	char tag[16];
	pthread_t thread;
	int rc;
};

static void *
order_gpu_main(void *arg)
{
	struct order_gpu *g = arg;

	order_tag = g->tag;
	g->rc = GPUDP_TEST_FAIL;
	if (gpudp_cu->cuCtxSetCurrent(g->cx) != CUDA_SUCCESS) {
		fprintf(stderr, "    %scuCtxSetCurrent failed\n", g->tag);
		return NULL;
	}
	g->rc = ordering_every_mode(NULL, g->bursts);
	if (g->rc == GPUDP_TEST_PASS)
		g->rc = ordering_wrong_every_mode(NULL, 200);
	return NULL;
}

/*
 * The ordering test on GPU 0 and GPU 1 at once (issue: several GPUs in one
 * host): two threads, each with its GPU's primary context current, run
 * ordering_dependent_kernel_never_reads_stale's rounds (every GPU mode, and
 * persistent with the flush forced on) and then the wrong variant's, both
 * GPUs' writers, kernels and handoffs running concurrently in one process
 * as gpudp-fwd's pipelines on two GPUs do. Both must pass: nothing read
 * stale, and the early hand-off caught, on each GPU. SKIP with fewer than
 * two GPUs.
 */
int
ordering_two_gpus_at_once(void)
{
	const char *env = getenv("GPUDP_FWD_ORDER_BURSTS");
	struct order_gpu g[2];
	int count = 0, i, started = 0;
	CUdevice dev;

	GPUDP_TEST_SKIP_IF(!have_gpu, "no GPU");
	CU_OK(gpudp_cu->cuDeviceGetCount(&count));
	GPUDP_TEST_SKIP_IF(count < 2, "fewer than two GPUs (%d)", count);
	memset(g, 0, sizeof(g));
	for (i = 0; i < 2; i++) {
		g[i].ordinal = i;
		g[i].bursts = env != NULL && atoi(env) > 0 ? (uint32_t)atoi(env) : 4000;
		snprintf(g[i].tag, sizeof(g[i].tag), "GPU %d: ", i);
		CU_OK(gpudp_cu->cuDeviceGet(&dev, i));
		CU_OK(gpudp_cu->cuDevicePrimaryCtxRetain(&g[i].cx, dev));
	}
	for (i = 0; i < 2; i++) {
		if (pthread_create(&g[i].thread, NULL, order_gpu_main, &g[i]) != 0)
			break;
		started++;
	}
	for (i = 0; i < started; i++)
		pthread_join(g[i].thread, NULL);
	for (i = 0; i < 2; i++) {
		CU_OK(gpudp_cu->cuDeviceGet(&dev, i));
		gpudp_cu->cuDevicePrimaryCtxRelease(dev);
	}
	GPUDP_TEST_ASSERT(started == 2, "pthread_create failed");
	for (i = 0; i < 2; i++)
		GPUDP_TEST_ASSERT(g[i].rc == GPUDP_TEST_PASS, "GPU %d: the ordering test failed "
				  "while GPU %d ran it too", i, 1 - i);
	return GPUDP_TEST_PASS;
}

/* the ordering guarantee holds for a work loaded from its file, in every
 * GPU mode, and the early hand-off is caught with it too */
int
ordering_user_work_never_reads_stale(void)
{
	const struct gpudp_work *w;
	char err[256];

	GPUDP_TEST_SKIP_IF(gpu_up() != 0, "no GPU");
	GPUDP_TEST_SKIP_IF(user_work_path == NULL, "no --user-work given");
	w = gpudp_work_load(user_work_path, err, sizeof(err));
	GPUDP_TEST_ASSERT(w != NULL, "%s", err);
	if (ordering_every_mode(w, 2000) != GPUDP_TEST_PASS)
		return GPUDP_TEST_FAIL;
	return ordering_wrong_every_mode(w, 200);
}

/*
 * Header/data split: each packet's headers (42 bytes) in pinned host memory
 * and its payload (1..1400 bytes, none for every 5th packet) in GPU memory,
 * described as two segments (conf.segs = 2). In every GPU mode (staged:
 * the header segment copied, by the CPU and by the GPU, the payload read in
 * place) the work sees every byte of both (its sum over them, the segment
 * count and the frame length are what the host copies give) and its write
 * into the last segment lands, exactly once.
 */
struct segsum_result {
	uint32_t sum, nb_segs, pkt_len, last;
};

int
split_segments_in_every_gpu_mode(void)
{
	static const enum gpudp_ho_mode modes[] = { GPUDP_HO_LAUNCH, GPUDP_HO_PERSISTENT,
						    GPUDP_HO_GRAPH, GPUDP_HO_STAGED,
						    GPUDP_HO_STAGED };
	enum { N = 500, HL = 42, PL = 1400 };
	const struct gpudp_work *w;
	static uint8_t pay[N][PL], back[N][PL];
	struct segsum_result res[N];
	uint8_t *hdr = NULL;
	CUdeviceptr d = 0;
	char err[256];
	uint32_t m, i, k, plen[N];

	GPUDP_TEST_SKIP_IF(gpu_up() != 0, "no GPU");
	GPUDP_TEST_SKIP_IF(seg_work_path == NULL, "no --seg-work given");
	w = gpudp_work_load(seg_work_path, err, sizeof(err));
	GPUDP_TEST_ASSERT(w != NULL, "%s", err);
	CU_OK(gpudp_cu->cuMemAllocHost((void **)&hdr, (size_t)N * 64));
	GPUDP_TEST_ASSERT((d = dev_alloc((size_t)N * PL)) != 0, "cuMemAlloc");
	for (m = 0; m < RTE_DIM(modes); m++) {
		struct gpudp_handoff_conf c = { .name = "split", .mode = modes[m], .work = w,
			.segs = 2, .ring_size = 8, .burst_max = 64, .graph_batch = 2,
			.persistent_blocks = 2, .cu_ctx = (uint64_t)(uintptr_t)ctx,
			/* staged: the header segment copied by the CPU, then by the GPU */
			.stage_gpu_copy = m == 4 };
		struct gpudp_handoff *h;
		uint32_t next = 0, done = 0;

		for (i = 0; i < N; i++) {
			plen[i] = i % 5 == 4 ? 0 : 1 + (i * 13 + m) % PL;
			for (k = 0; k < HL; k++)
				hdr[(size_t)i * 64 + k] = (uint8_t)(i + k * 7 + m);
			for (k = 0; k < PL; k++)
				pay[i][k] = (uint8_t)(i * 3 + k + m);
		}
		CU_OK(gpudp_cu->cuMemcpyHtoD(d, pay, sizeof(pay)));
		h = gpudp_handoff_create(&c);
		GPUDP_TEST_ASSERT(h != NULL, "handoff %s with 2 segments",
				  gpudp_ho_mode_name(modes[m]));
		while (done < N) {
			struct gpudp_ho_burst *b;

			while (next < N && (b = gpudp_handoff_acquire(h)) != NULL) {
				while (next < N && b->n < b->max) {
					gpudp_ho_burst_add(b, hdr + (size_t)next * 64, HL,
							   (void *)(uintptr_t)next);
					if (plen[next] != 0)
						gpudp_ho_burst_seg(b, b->n - 1, 1, (void *)(uintptr_t)
								   (d + (size_t)next * PL),
								   plen[next]);
					next++;
				}
				gpudp_handoff_submit(h, b);
			}
			gpudp_handoff_flush(h);
			while ((b = gpudp_handoff_completed(h)) == NULL)
				GPUDP_TEST_ASSERT(gpudp_handoff_failed(h) == 0, "GPU failed");
			for (i = 0; i < b->n; i++)
				memcpy(&res[(uint32_t)(uintptr_t)b->cookie[i]],
				       b->result + (size_t)i * sizeof(res[0]), sizeof(res[0]));
			done += b->n;
			gpudp_handoff_release(h, b);
		}
		gpudp_handoff_destroy(h);
		CU_OK(gpudp_cu->cuMemcpyDtoH(back, d, sizeof(back)));
		for (i = 0; i < N; i++) {
			uint32_t sum = 0, segs = plen[i] != 0 ? 2 : 1;
			uint8_t last;

			for (k = 0; k < HL; k++)
				sum += (uint8_t)(i + k * 7 + m);
			for (k = 0; k < plen[i]; k++)
				sum += pay[i][k];
			last = plen[i] != 0 ? pay[i][plen[i] - 1] : (uint8_t)(i + (HL - 1) * 7 + m);
			GPUDP_TEST_ASSERT(res[i].sum == sum && res[i].nb_segs == segs &&
					  res[i].pkt_len == HL + plen[i] && res[i].last == last,
					  "%s packet %u: sum %u/%u segs %u/%u len %u/%u last %u/%u",
					  gpudp_ho_mode_name(modes[m]), i, res[i].sum, sum,
					  res[i].nb_segs, segs, res[i].pkt_len, HL + plen[i],
					  res[i].last, last);
			if (plen[i] != 0)
				GPUDP_TEST_ASSERT(back[i][plen[i] - 1] == (uint8_t)(last + 1) &&
						  memcmp(back[i], pay[i], plen[i] - 1) == 0,
						  "%s packet %u: payload write", gpudp_ho_mode_name(modes[m]),
						  i);
			else
				GPUDP_TEST_ASSERT(hdr[(size_t)i * 64 + HL - 1] == (uint8_t)(last + 1),
						  "%s packet %u: header write", gpudp_ho_mode_name(modes[m]),
						  i);
		}
		printf("    %-10s%s %u packets as header (pinned) + payload (GPU) segments: "
		       "every byte seen, writes land once\n", gpudp_ho_mode_name(modes[m]),
		       m == 4 ? "+gpu-copy" : "", N);
	}
	gpudp_cu->cuMemFreeHost(hdr);
	gpudp_cu->cuMemFree(d);
	return GPUDP_TEST_PASS;
}


/* one burst of 32 64-byte packets in device memory through @p h; 0 when
 * it completes within 10 s with every packet passed */
static int
persistent_one_burst(struct gpudp_handoff *h, CUdeviceptr d)
{
	struct gpudp_ho_burst *b = gpudp_handoff_acquire(h);
	uint64_t t0;
	uint32_t i;

	if (b == NULL)
		return -1;
	for (i = 0; i < 32; i++)
		gpudp_ho_burst_add(b, (void *)(uintptr_t)(d + i * 64), 64, NULL);
	if (gpudp_handoff_submit(h, b) != 0)
		return -1;
	t0 = gpudp_ho_now_ns();
	while ((b = gpudp_handoff_completed(h)) == NULL)
		if (gpudp_ho_now_ns() - t0 > 10000000000ull)
			return -1;
	i = b->n_pass;
	gpudp_handoff_release(h, b);
	return i == 32 ? 0 : -1;
}

/*
 * Persistent blocks that cannot all be resident are refused (ENOSPC), not
 * left waiting for SMs forever: two handoffs that fill the GPU between
 * them (GPUDP_HO_BLOCKS_FILL, share 2, one SM left free) fit, a third of
 * the same size does not, and fits once one of the two is gone; the two
 * running then forward. Both stop before either is freed (freeing memory
 * waits for every kernel of the device, a resident one too).
 */
int
persistent_blocks_must_all_be_resident(void)
{
	struct gpudp_handoff_conf c = {
		.name = "res-a", .mode = GPUDP_HO_PERSISTENT, .ring_size = 4096, .burst_max = 32,
		.persistent_blocks = GPUDP_HO_BLOCKS_FILL, .persistent_share = 2,
	};
	struct gpudp_handoff *a, *b, *x;
	CUdeviceptr d;
	int rc;

	GPUDP_TEST_SKIP_IF(gpu_up() != 0, "no GPU");
	GPUDP_TEST_SKIP_IF(gpudp_cu->cuOccupancyMaxActiveBlocksPerMultiprocessor == NULL,
			   "the driver has no occupancy calculator");
	c.cu_ctx = (uint64_t)(uintptr_t)ctx;
	GPUDP_TEST_ASSERT((d = dev_alloc(32 * 64)) != 0, "cuMemAlloc");
	CU_OK(gpudp_cu->cuMemsetD8(d, 0x5a, 32 * 64));
	a = gpudp_handoff_create(&c);
	c.name = "res-b";
	b = gpudp_handoff_create(&c);
	GPUDP_TEST_ASSERT(a != NULL && b != NULL, "two handoffs sharing the GPU: %s",
			  rte_strerror(rte_errno));
	c.name = "res-x";
	x = gpudp_handoff_create(&c);
	GPUDP_TEST_ASSERT(x == NULL && rte_errno == ENOSPC,
			  "a third persistent kernel on a full GPU: %s",
			  x != NULL ? "created" : rte_strerror(rte_errno));
	gpudp_handoff_destroy(b);
	x = gpudp_handoff_create(&c);
	GPUDP_TEST_ASSERT(x != NULL, "the third where the second was freed: %s",
			  rte_strerror(rte_errno));
	GPUDP_TEST_ASSERT(gpudp_handoff_start(a) == 0 && gpudp_handoff_start(x) == 0, "start");
	rc = persistent_one_burst(a, d) == 0 && persistent_one_burst(x, d) == 0;
	gpudp_handoff_stop(a);
	gpudp_handoff_stop(x);
	gpudp_handoff_destroy(a);
	gpudp_handoff_destroy(x);
	GPUDP_TEST_ASSERT(rc, "a burst through each of the two running kernels");
	gpudp_cu->cuMemFree(d);
	return GPUDP_TEST_PASS;
}
#endif /* GPUDP_HAS_CUDA */

/*
 * The work's state in GPU memory (the TEST work "state": a histogram of
 * first bytes and a byte total that starts from its init's value): in
 * every GPU mode, two handoffs on one state (state_from) add into it, and
 * what gpudp_handoff_collect() hands back, and gpudp_handoff_state_read()
 * reads, is what the packets give; cleared with gpudp_handoff_state_write(),
 * it starts again. Packets in pinned host memory.
 */
static int
state_feed_gpu(struct gpudp_handoff *h, uint8_t *pk, uint32_t n, uint32_t first,
	       struct state_result *want)
{
	struct gpudp_ho_burst *b;
	uint64_t t0;
	uint32_t i, k;

	for (i = 0; i < n; i += k) {
		b = gpudp_handoff_acquire(h);
		GPUDP_TEST_ASSERT(b != NULL, "acquire");
		for (k = 0; k < 32 && i + k < n; k++) {
			uint32_t j = first + i + k;
			uint8_t *p = pk + (size_t)(i + k) * 128;

			p[0] = (uint8_t)(j * 37 % 251);
			gpudp_ho_burst_add(b, p, 60 + j % 61, NULL);
			want->hist[p[0]]++;
			want->total += 60 + j % 61;
		}
		GPUDP_TEST_ASSERT(gpudp_handoff_submit(h, b) == 0, "submit");
		t0 = gpudp_ho_now_ns();
		while ((b = gpudp_handoff_completed(h)) == NULL)
			GPUDP_TEST_ASSERT(gpudp_ho_now_ns() - t0 < 5000000000ull,
					  "packets %u..: the burst did not complete in 5 s", first + i);
		GPUDP_TEST_ASSERT(b->n_pass == b->n, "verdicts");
		gpudp_handoff_release(h, b);
	}
	return GPUDP_TEST_PASS;
}

int
work_state_in_every_gpu_mode(void)
{
	static const enum gpudp_ho_mode modes[] = { GPUDP_HO_LAUNCH, GPUDP_HO_PERSISTENT,
						    GPUDP_HO_GRAPH, GPUDP_HO_STAGED };
	enum { N = 700 };
	const struct gpudp_work *w;
	uint8_t *pk = NULL;
	char err[256];
	uint32_t m;

	GPUDP_TEST_SKIP_IF(gpu_up() != 0, "no GPU");
	GPUDP_TEST_SKIP_IF(state_work_path == NULL, "no --state-work given");
	w = gpudp_work_load(state_work_path, err, sizeof(err));
	GPUDP_TEST_ASSERT(w != NULL, "%s", err);
	CU_OK(gpudp_cu->cuMemAllocHost((void **)&pk, (size_t)N * 128));
	memset(pk, 0, (size_t)N * 128);
	for (m = 0; m < RTE_DIM(modes); m++) {
		struct gpudp_handoff_conf c = { .name = "state", .mode = modes[m], .work = w,
			.ring_size = 8, .burst_max = 32, .graph_batch = 1,
			.persistent_blocks = 2, .cu_ctx = (uint64_t)(uintptr_t)ctx };
		struct state_result want = { .total = STATE_TOTAL_START }, got;
		struct gpudp_handoff *h, *h2;
		uint64_t total = 0;

		printf("    %s: ...\n", gpudp_ho_mode_name(modes[m]));
		fflush(stdout);
		/* both created before either starts: a resident persistent kernel
		 * would hold up the second one's module load */
		h = gpudp_handoff_create(&c);
		c.state_from = h;
		h2 = h != NULL ? gpudp_handoff_create(&c) : NULL;
		GPUDP_TEST_ASSERT(h != NULL && h2 != NULL && gpudp_handoff_start(h) == 0 &&
				  gpudp_handoff_start(h2) == 0,
				  "%s: two handoffs on one state", gpudp_ho_mode_name(modes[m]));
		if (state_feed_gpu(h, pk, N / 2, 0, &want) != GPUDP_TEST_PASS ||
		    state_feed_gpu(h2, pk + (size_t)(N / 2) * 128, N - N / 2, N / 2, &want) !=
		    GPUDP_TEST_PASS)
			return GPUDP_TEST_FAIL;
		if (modes[m] == GPUDP_HO_PERSISTENT) {
			/* the resident kernels hold copies up: refused, then stopped */
			GPUDP_TEST_ASSERT(gpudp_handoff_state_read(h2, 1, 0, &total, 8) == -EBUSY &&
					  gpudp_handoff_collect(h, &got) == -EBUSY,
					  "persistent: state read while its kernel runs");
			gpudp_handoff_stop(h2);
			gpudp_handoff_stop(h);
		}
		GPUDP_TEST_ASSERT(gpudp_handoff_state_read(h2, 1, 0, &total, 8) == 0 &&
				  total == want.total, "%s: total %" PRIu64 ", want %" PRIu64,
				  gpudp_ho_mode_name(modes[m]), total, want.total);
		memset(&got, 0xa5, sizeof(got));
		GPUDP_TEST_ASSERT(gpudp_handoff_collect(h, &got) == 0 &&
				  memcmp(&got, &want, sizeof(got)) == 0,
				  "%s: collected state differs", gpudp_ho_mode_name(modes[m]));
		GPUDP_TEST_ASSERT(gpudp_handoff_state_write(h, 0, 0, NULL, sizeof(want.hist)) == 0 &&
				  gpudp_handoff_state_write(h, 1, 0, NULL, 8) == 0, "clear");
		memset(&want, 0, sizeof(want));
		/* stopped persistent handoffs take no more bursts: cleared only */
		if (modes[m] != GPUDP_HO_PERSISTENT &&
		    state_feed_gpu(h2, pk, 50, 7, &want) != GPUDP_TEST_PASS)
			return GPUDP_TEST_FAIL;
		GPUDP_TEST_ASSERT(gpudp_handoff_collect(h2, &got) == 0 &&
				  memcmp(&got, &want, sizeof(got)) == 0,
				  "%s: collected after clearing differs", gpudp_ho_mode_name(modes[m]));
		gpudp_handoff_destroy(h2);
		gpudp_handoff_destroy(h);
		printf("    %s: %u packets through two handoffs on one state, collected\n",
		       gpudp_ho_mode_name(modes[m]), N);
		fflush(stdout);
	}
	gpudp_cu->cuMemFreeHost(pk);
	return GPUDP_TEST_PASS;
}

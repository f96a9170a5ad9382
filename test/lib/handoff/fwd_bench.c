/* SPDX-License-Identifier: BSD-3-Clause */
/* test_gpu_fwd --bench: handoff latency per mode against rte_gpu_comm_*, staged
 * bandwidth on whole frames (--frame-work). */
#include "fwd_test_pvt.h"

#ifdef GPUDP_HAS_CUDA

/* ---- --bench: handoff latency per mode vs rte_gpu_comm_* ---- */

struct lat {
	struct gpudp_ho_hist ks, done;
	double polls_per_s;  /* persistent: the pollers' reads of host memory */
};

/*
 * Bursts of @p np one at a time through a handoff of @p mode; persistent
 * mode with @p pollers poller warps (0: the default) sleeping @p poll_ns
 * between empty rounds.
 */
int
bench_mode(enum gpudp_ho_mode mode, uint8_t *const *pk, uint32_t np, uint32_t iters,
	   uint32_t pollers, uint32_t poll_ns, struct lat *out)
{
	struct gpudp_handoff_conf c = { .name = "bench", .mode = mode,
		.ring_size = 8, .burst_max = np,
		.graph_batch = 1, .persistent_blocks = 1, .persistent_pollers = pollers,
		.poll_ns = poll_ns, .cu_ctx = (uint64_t)(uintptr_t)ctx };
	struct gpudp_handoff *h = gpudp_handoff_create(&c);
	struct gpudp_handoff_stats *s = malloc(sizeof(*s));
	uint64_t t0 = 0;
	uint32_t it, i;

	if (h == NULL || s == NULL)
		return -1;
	for (it = 0; it < iters + 100; it++) {
		struct gpudp_ho_burst *b;

		/* the GPU clock drifts from the CPU's: keep the model fresh */
		if (it % 1000 == 0 && gpudp_handoff_clock_sync(h) != 0)
			return -1;
		b = gpudp_handoff_acquire(h);
		for (i = 0; i < np; i++)
			gpudp_ho_burst_add(b, pk[i], 64, NULL);
		gpudp_handoff_submit(h, b);
		while ((b = gpudp_handoff_completed(h)) == NULL)
			;
		gpudp_handoff_release(h, b);
		if (it == 99) {  /* warm-up done: restart the histograms */
			gpudp_handoff_destroy(h);
			h = gpudp_handoff_create(&c);
			if (h == NULL)
				return -1;
			t0 = gpudp_ho_now_ns();
		}
	}
	gpudp_handoff_stop(h);
	gpudp_handoff_stats_get(h, s);
	out->ks = s->lat_kstart;
	out->done = s->lat_done;
	out->polls_per_s = (double)s->gpu_polls / ((gpudp_ho_now_ns() - t0) / 1e9);
	free(s);
	gpudp_handoff_destroy(h);
	return 0;
}

int
bench_comm(uint8_t *const *pk, uint32_t np, uint32_t iters, struct lat *out,
	   struct rte_mbuf **mb)
{
	enum { ITEMS = 8 };
	struct rte_gpu_comm_list *list;
	struct gpudp_fwd_comm_args a;
	void *params[] = { &a };
	CUmodule mod;
	CUfunction f;
	CUstream st;
	uint64_t *ts, *q;
	uint32_t it;
	/* a launch handoff only for its clock model (CPU ns of %globaltimer) */
	struct gpudp_handoff_conf cc = { .name = "bench-clock", .mode = GPUDP_HO_LAUNCH,
		.ring_size = 2, .burst_max = 1, .cu_ctx = (uint64_t)(uintptr_t)ctx };
	struct gpudp_handoff *clk = gpudp_handoff_create(&cc);

	RTE_SET_USED(pk);
	if (clk == NULL)
		return -1;
	list = rte_gpu_comm_create_list(0, ITEMS);
	if (list == NULL)
		return -1;
	if (gpudp_cuda_module_load("fwd_test", &mod) != 0 ||
	    gpudp_cu->cuModuleGetFunction(&f, mod, "gpudp_fwd_comm_persistent") != 0 ||
	    gpudp_cu->cuStreamCreate(&st, CU_STREAM_NON_BLOCKING) != 0 ||
	    gpudp_cu->cuMemAllocHost((void **)&ts, (ITEMS + 16) * 8) != 0)
		return -1;
	memset(ts, 0, (ITEMS + 16) * 8);
	q = ts + ITEMS;
	memset(&a, 0, sizeof(a));
	a.list = (uint64_t)(uintptr_t)list;
	a.tstamp = (uint64_t)(uintptr_t)ts;
	a.quit = (uint64_t)(uintptr_t)q;
	a.n_items = ITEMS;
	a.item_size = sizeof(struct rte_gpu_comm_list);
	a.off_pkts = offsetof(struct rte_gpu_comm_list, pkt_list);
	a.off_num = offsetof(struct rte_gpu_comm_list, num_pkts);
	a.off_status_d = offsetof(struct rte_gpu_comm_list, status_d);
	a.pkt_size = sizeof(struct rte_gpu_comm_pkt);
	if (gpudp_cu->cuLaunchKernel(f, 1, 1, 1, 256, 1, 1, 0, st, params, NULL) != 0)
		return -1;
	for (it = 0; it < iters + 100; it++) {
		struct rte_gpu_comm_list *item = &list[it % ITEMS];
		enum rte_gpu_comm_list_status s;
		uint64_t t0, t1;

		if (it % 1000 == 0 && gpudp_handoff_clock_sync(clk) != 0)
			return -1;
		t0 = gpudp_ho_now_ns();
		if (rte_gpu_comm_populate_list_pkts(item, mb, np) != 0)
			return -1;
		do {
			rte_gpu_comm_get_status(item, &s);
		} while (s != RTE_GPU_COMM_LIST_DONE);
		t1 = gpudp_ho_now_ns();
		if (it >= 100) {
			uint64_t ks = gpudp_handoff_gpu_to_cpu_ns(clk, ts[it % ITEMS], t0);

			gpudp_ho_hist_add(&out->ks, (int64_t)(ks - t0) > 0 ? ks - t0 : 0);
			gpudp_ho_hist_add(&out->done, t1 - t0);
		}
		/* cleanup_list would free the mbufs: reset the item by hand */
		item->num_pkts = 0;
		rte_gpu_comm_set_status(item, RTE_GPU_COMM_LIST_FREE);
	}
	*(volatile uint32_t *)q = 1;
	gpudp_cu->cuStreamSynchronize(st);
	gpudp_cu->cuStreamDestroy(st);
	gpudp_cu->cuMemFreeHost(ts);
	gpudp_cu->cuModuleUnload(mod);
	rte_gpu_comm_destroy_list(list, ITEMS);
	gpudp_handoff_destroy(clk);
	return 0;
}

void
json_lat(FILE *f, const char *name, const struct lat *l, const char *sep)
{
	fprintf(f, "  \"%s\": {\"n\": %" PRIu64 ", \"kstart_p50_ns\": %" PRIu64
		", \"kstart_p99_ns\": %" PRIu64 ", \"kstart_p999_ns\": %" PRIu64
		", \"done_p50_ns\": %" PRIu64 ", \"done_p99_ns\": %" PRIu64
		", \"done_p999_ns\": %" PRIu64 ", \"gpu_polls_per_s\": %.0f}%s\n",
		name, l->done.count,
		gpudp_ho_hist_quantile(&l->ks, 0.5), gpudp_ho_hist_quantile(&l->ks, 0.99),
		gpudp_ho_hist_quantile(&l->ks, 0.999), gpudp_ho_hist_quantile(&l->done, 0.5),
		gpudp_ho_hist_quantile(&l->done, 0.99), gpudp_ho_hist_quantile(&l->done, 0.999),
		l->polls_per_s, sep);
	printf("%-20s rx->kernel-start p50 %6.2f p99 %6.2f p999 %7.2f us | round trip p50 "
	       "%6.2f p99 %6.2f p999 %7.2f us | %.2f M polls/s\n", name,
	       gpudp_ho_hist_quantile(&l->ks, 0.5) / 1e3, gpudp_ho_hist_quantile(&l->ks, 0.99) / 1e3,
	       gpudp_ho_hist_quantile(&l->ks, 0.999) / 1e3,
	       gpudp_ho_hist_quantile(&l->done, 0.5) / 1e3,
	       gpudp_ho_hist_quantile(&l->done, 0.99) / 1e3,
	       gpudp_ho_hist_quantile(&l->done, 0.999) / 1e3, l->polls_per_s / 1e6);
}

/*
 * ---- staged_bw: whole frames through the staged path vs the pinned copy ----
 *
 * The TEST work "frame" (--frame-work, works-gpu/frame_work.h) has the
 * whole frame for its span, so the staged path copies every byte of each
 * 1500-byte frame into GPU memory (1536 bytes of staging a frame, rounded
 * up to 64); it reads each frame's last byte. The bursts walk through a
 * pool of STAGED_POOL frames STAGED_STRIDE bytes apart (the way mbufs
 * cycle: every burst reads other memory).
 */
#define STAGED_POOL 16384u
#define STAGED_STRIDE 1536u
#define STAGED_PL 1500u
/* bytes staged per run: bursts of np frames up to this many frame bytes */
#define STAGED_RUN_BYTES (3u << 30)

/* the last byte of pool frame @p k, as written and as the work adds it up */
static uint8_t
staged_last(uint32_t k)
{
	return (uint8_t)(k % 251 + 1);
}

static void
staged_fill(uint8_t *pkts)
{
	uint32_t k;

	memset(pkts, 0x11, (size_t)STAGED_POOL * STAGED_STRIDE);
	for (k = 0; k < STAGED_POOL; k++)
		pkts[(size_t)k * STAGED_STRIDE + STAGED_PL - 1] = staged_last(k);
}

/* what the work's counter "last" sums over the first @p n frames walked */
static uint64_t
staged_last_sum(uint64_t n)
{
	uint64_t t, sum = 0;

	for (t = 0; t < n; t++)
		sum += staged_last((uint32_t)(t % STAGED_POOL));
	return sum;
}

/*
 * Whole frames through the staged path in bursts of @p np, the frames in
 * plain host memory (CPU copies) or in pinned memory (@p gpu_copy: the GPU
 * gathers them). Every frame must reach work @p w whole, its last byte as
 * written. @return frame bytes per second (GB/s), or -1 (printed)
 */
double
staged_bw_run(uint8_t *pkts, int gpu_copy, uint32_t np, const struct gpudp_work *w)
{
	struct gpudp_handoff_conf c = { .name = "staged-bw", .mode = GPUDP_HO_STAGED,
		.work = w, .ring_size = 16, .burst_max = np,
		.stage_bytes = STAGED_PL, .stage_gpu_copy = gpu_copy,
		.cu_ctx = (uint64_t)(uintptr_t)ctx };
	struct gpudp_handoff *h = gpudp_handoff_create(&c);
	uint32_t sub = 0, done = 0, bursts = STAGED_RUN_BYTES / (np * STAGED_PL), next = 0, i;
	uint64_t t0, t1, cpu = 0, cut = 0, last = 0, want;

	if (h == NULL)
		return -1;
	t0 = gpudp_ho_now_ns();
	while (done < bursts) {
		struct gpudp_ho_burst *b;

		while (sub < bursts && (b = gpudp_handoff_acquire(h)) != NULL) {
			uint64_t s0 = gpudp_ho_now_ns();

			for (i = 0; i < np; i++, next = (next + 1) % STAGED_POOL)
				gpudp_ho_burst_add(b, pkts + (size_t)next * STAGED_STRIDE,
						   STAGED_PL, NULL);
			gpudp_handoff_submit(h, b);
			cpu += gpudp_ho_now_ns() - s0;
			sub++;
		}
		if ((b = gpudp_handoff_completed(h)) != NULL) {
			cut += b->n - b->n_pass;
			last += b->counters[0];
			gpudp_handoff_release(h, b);
			done++;
		}
	}
	t1 = gpudp_ho_now_ns();
	gpudp_handoff_destroy(h);
	want = staged_last_sum((uint64_t)bursts * np);
	if (cut != 0 || last != want) {
		fprintf(stderr, "bench: staged %s copies: %" PRIu64 " frames not staged whole, "
			"last bytes sum %" PRIu64 " (want %" PRIu64 ")\n",
			gpu_copy ? "GPU" : "CPU", cut, last, want);
		return -1;
	}
	printf("    staged %s copies: %.1f us per %u-frame burst, %.1f us of it the CPU "
	       "describing and submitting\n", gpu_copy ? "GPU" : "CPU",
	       (t1 - t0) / 1e3 / bursts, np, cpu / 1e3 / bursts);
	return (double)bursts * np * STAGED_PL / ((t1 - t0) / 1e9) / 1e9;
}

/* cuMemcpyHtoD of 64 MiB from pinned memory, 20 times. @return GB/s or -1 */
static double
pinned_copy_bw(void)
{
	enum { CB = 64 << 20, N = 20 };
	uint8_t *src = NULL;
	CUdeviceptr dst = 0;
	CUstream st = NULL;
	uint64_t t0, t1;
	double copy = -1;
	uint32_t i;

	if (gpudp_cu->cuMemAllocHost((void **)&src, CB) == CUDA_SUCCESS &&
	    gpudp_cu->cuMemAlloc(&dst, CB) == CUDA_SUCCESS &&
	    gpudp_cu->cuStreamCreate(&st, CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS) {
		memset(src, 1, CB);
		gpudp_cu->cuMemcpyHtoDAsync(dst, src, CB, st);
		gpudp_cu->cuStreamSynchronize(st);
		t0 = gpudp_ho_now_ns();
		for (i = 0; i < N; i++)
			gpudp_cu->cuMemcpyHtoDAsync(dst, src, CB, st);
		if (gpudp_cu->cuStreamSynchronize(st) == CUDA_SUCCESS) {
			t1 = gpudp_ho_now_ns();
			copy = (double)N * CB / ((t1 - t0) / 1e9) / 1e9;
		}
	}
	if (st != NULL)
		gpudp_cu->cuStreamDestroy(st);
	if (dst != 0)
		gpudp_cu->cuMemFree(dst);
	if (src != NULL)
		gpudp_cu->cuMemFreeHost(src);
	return copy;
}

/*
 * Whole 1500-byte frames through the staged path (GPU copies from pinned
 * frames in bursts of 1024 and 4096, CPU copies from host frames in bursts
 * of 1024) against the pinned host-to-device copy of the same run, as
 * "staged_bw" in @p f. @return 0, or -1 (printed; nothing written)
 */
int
bench_staged_bw(FILE *f, const struct gpudp_work *w)
{
	size_t pool = (size_t)STAGED_POOL * STAGED_STRIDE;
	uint8_t *pkts = malloc(pool), *pinned = NULL;
	double staged = -1, staged4k = -1, staged_cpu = -1, copy;

	if (pkts == NULL || gpudp_cu->cuMemAllocHost((void **)&pinned, pool) != CUDA_SUCCESS) {
		free(pkts);
		return -1;
	}
	staged_fill(pkts);
	staged_fill(pinned);
	staged_cpu = staged_bw_run(pkts, 0, 1024, w);
	if (staged_cpu >= 0)
		staged = staged_bw_run(pinned, 1, 1024, w);
	if (staged >= 0)
		staged4k = staged_bw_run(pinned, 1, 4096, w);
	free(pkts);
	gpudp_cu->cuMemFreeHost(pinned);
	copy = pinned_copy_bw();
	if (staged4k < 0 || copy <= 0)
		return -1;
	printf("staged path, whole %u-byte frames: pinned frames (GPU copies) %.2f GB/s in "
	       "bursts of 1024, %.2f GB/s in bursts of 4096; host frames (CPU copies) %.2f "
	       "GB/s; pinned H2D copy %.2f GB/s (%.0f%%, %.0f%%, %.0f%%)\n", STAGED_PL, staged,
	       staged4k, staged_cpu, copy, 100 * staged / copy, 100 * staged4k / copy,
	       100 * staged_cpu / copy);
	fprintf(f, "  \"staged_bw\": {\"work\": \"%s\", \"span\": %u, \"packet_bytes\": %u, "
		"\"burst\": 1024, \"staged_gbytes_s\": %.3f, \"staged_gbytes_s_burst4096\": %.3f, "
		"\"staged_cpu_copy_gbytes_s\": %.3f, \"pinned_copy_gbytes_s\": %.3f, "
		"\"ratio\": %.3f, \"ratio_burst4096\": %.3f, \"ratio_cpu_copy\": %.3f},\n",
		w->name, w->span, STAGED_PL, staged, staged4k, staged_cpu, copy, staged / copy,
		staged4k / copy, staged_cpu / copy);
	return 0;
}

int
bench(const char *json)
{
	enum { NP = 32, ITERS = 20000 };
	static const enum gpudp_ho_mode modes[] = { GPUDP_HO_CPU, GPUDP_HO_LAUNCH,
		GPUDP_HO_PERSISTENT, GPUDP_HO_GRAPH, GPUDP_HO_STAGED };
	static const struct { uint32_t n, ns; } pollers[] = {
		{ 1, 0 }, { 2, 0 }, { 4, 0 }, { 8, 0 }, { 4, 1000 } };
	struct gpudp_pool_conf pc;
	struct gpudp_pool *pool;
	struct rte_mbuf *mb[NP];
	uint8_t *pk[NP];
	static struct lat lat[8];
	const struct gpudp_work *frame = NULL;
	char err[256];
	FILE *f;
	uint32_t i, m;
	int rc = GPUDP_TEST_PASS;

	if (gpu_up() != 0 || eal_up() != 0 || rte_gpu_count_avail() == 0) {
		fprintf(stderr, "bench: no GPU\n");
		return GPUDP_TEST_SKIP;
	}
	if (frame_work_path == NULL) {
		fprintf(stderr, "bench: no --frame-work given: staged_bw left out\n");
	} else if ((frame = gpudp_work_load(frame_work_path, err, sizeof(err))) == NULL) {
		fprintf(stderr, "bench: --frame-work %s: %s\n", frame_work_path, err);
		return GPUDP_TEST_FAIL;
	}
	memset(&pc, 0, sizeof(pc));
	pc.name = "bench";
	pc.type = GPUDP_MEM_PINNED;  /* readable by the CPU (cpu, staged) and the GPU */
	pc.nb_mbufs = 1024;
	pc.data_room = 2048;
	pc.socket_id = 0;
	pool = gpudp_pool_create(&pc);
	if (pool == NULL || rte_pktmbuf_alloc_bulk(gpudp_pool_mempool(pool), mb, NP) != 0) {
		fprintf(stderr, "bench: pinned pool: %s\n", strerror(rte_errno));
		return GPUDP_TEST_FAIL;
	}
	for (i = 0; i < NP; i++) {
		rte_pktmbuf_append(mb[i], 64);
		pk[i] = rte_pktmbuf_mtod(mb[i], uint8_t *);
		memset(pk[i], (int)i, 64);
	}
	f = fopen(json, "w");
	if (f == NULL)
		return GPUDP_TEST_FAIL;
	fprintf(f, "{\n  \"burst\": %u, \"iterations\": %u,\n", NP, ITERS);
	for (m = 0; m < RTE_DIM(modes); m++) {
		if (bench_mode(modes[m], pk, NP, ITERS, 0, 0, &lat[m]) != 0) {
			fprintf(stderr, "bench: mode %s failed\n", gpudp_ho_mode_name(modes[m]));
			fclose(f);
			return GPUDP_TEST_FAIL;
		}
		json_lat(f, gpudp_ho_mode_name(modes[m]), &lat[m], ",");
	}
	/* the persistent kernel's pollers: latency against reads of host
	 * memory, and what --gpu-poll-ns trades */
	for (m = 0; m < RTE_DIM(pollers); m++) {
		struct lat l;
		char name[64];

		memset(&l, 0, sizeof(l));
		if (bench_mode(GPUDP_HO_PERSISTENT, pk, NP, ITERS, pollers[m].n, pollers[m].ns,
			       &l) != 0) {
			fprintf(stderr, "bench: persistent, %u pollers failed\n", pollers[m].n);
			fclose(f);
			return GPUDP_TEST_FAIL;
		}
		snprintf(name, sizeof(name), "persistent_pollers_%u%s", pollers[m].n,
			 pollers[m].ns != 0 ? "_poll_ns_1000" : "");
		json_lat(f, name, &l, ",");
	}
	if (bench_comm(pk, NP, ITERS, &lat[7], mb) != 0) {
		fprintf(stderr, "bench: rte_gpu_comm list failed: %s\n", strerror(rte_errno));
		fprintf(f, "  \"rte_gpu_comm\": null\n}\n");
		fclose(f);
		return GPUDP_TEST_FAIL;
	}
	/* whole frames staged, or null: left out (no --frame-work) or failed */
	if (frame != NULL && bench_staged_bw(f, frame) != 0) {
		fprintf(stderr, "bench: staged bandwidth failed\n");
		rc = GPUDP_TEST_FAIL;
	}
	if (frame == NULL || rc != GPUDP_TEST_PASS)
		fprintf(f, "  \"staged_bw\": null,\n");
	json_lat(f, "rte_gpu_comm", &lat[7], "");
	fprintf(f, "}\n");
	fclose(f);
	rte_pktmbuf_free_bulk(mb, NP);
	gpudp_pool_destroy(pool);
	return rc;
}

#endif /* GPUDP_HAS_CUDA */

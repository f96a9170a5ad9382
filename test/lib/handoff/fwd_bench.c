/* SPDX-License-Identifier: BSD-3-Clause */
/* test_gpu_fwd --bench: handoff latency per mode against rte_gpu_comm_*, staged bandwidth. */
#include "fwd_test_pvt.h"

#ifdef GPUDP_HAS_CUDA

/* ---- --bench: handoff latency per mode vs rte_gpu_comm_* ---- */

struct lat {
	struct gpudp_ho_hist ks, done;
};

int
bench_mode(enum gpudp_ho_mode mode, uint8_t *const *pk, uint32_t np, uint32_t iters,
	   struct lat *out)
{
	struct gpudp_handoff_conf c = { .name = "bench", .mode = mode,
		.ring_size = 8, .burst_max = np,
		.graph_batch = 1, .persistent_blocks = 1, .cu_ctx = (uint64_t)(uintptr_t)ctx };
	struct gpudp_handoff *h = gpudp_handoff_create(&c);
	struct gpudp_handoff_stats *s = malloc(sizeof(*s));
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
		}
	}
	gpudp_handoff_stats_get(h, s);
	out->ks = s->lat_kstart;
	out->done = s->lat_done;
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
		", \"done_p999_ns\": %" PRIu64 "}%s\n", name, l->done.count,
		gpudp_ho_hist_quantile(&l->ks, 0.5), gpudp_ho_hist_quantile(&l->ks, 0.99),
		gpudp_ho_hist_quantile(&l->ks, 0.999), gpudp_ho_hist_quantile(&l->done, 0.5),
		gpudp_ho_hist_quantile(&l->done, 0.99), gpudp_ho_hist_quantile(&l->done, 0.999),
		sep);
	printf("%-16s rx->kernel-start p50 %6.2f p99 %6.2f p999 %7.2f us | round trip p50 "
	       "%6.2f p99 %6.2f p999 %7.2f us\n", name,
	       gpudp_ho_hist_quantile(&l->ks, 0.5) / 1e3, gpudp_ho_hist_quantile(&l->ks, 0.99) / 1e3,
	       gpudp_ho_hist_quantile(&l->ks, 0.999) / 1e3,
	       gpudp_ho_hist_quantile(&l->done, 0.5) / 1e3,
	       gpudp_ho_hist_quantile(&l->done, 0.99) / 1e3,
	       gpudp_ho_hist_quantile(&l->done, 0.999) / 1e3);
}

/* staged path bytes/s at 1500-byte packets in bursts of @p np, packets in
 * plain host memory (CPU copies) or in pinned memory (GPU copies); @p pkts
 * holds STAGED_POOL packets 1536 bytes apart, walked through burst by burst
 * (the way mbufs cycle: every burst reads other memory) */
#define STAGED_POOL 16384u
double
staged_bw_run(uint8_t *pkts, int gpu_copy, uint32_t np)
{
	enum { PL = 1500, BYTES = 3u << 30 };
	struct gpudp_handoff_conf c = { .name = "staged-bw", .mode = GPUDP_HO_STAGED,
		.ring_size = 16, .burst_max = np,
		.stage_bytes = PL, .stage_gpu_copy = gpu_copy,
		.cu_ctx = (uint64_t)(uintptr_t)ctx };
	struct gpudp_handoff *h = gpudp_handoff_create(&c);
	uint32_t sub = 0, done = 0, bursts = BYTES / (np * PL), next = 0, i;
	uint64_t t0, t1, cpu = 0;

	if (h == NULL)
		return -1;
	t0 = gpudp_ho_now_ns();
	while (done < bursts) {
		struct gpudp_ho_burst *b;

		while (sub < bursts && (b = gpudp_handoff_acquire(h)) != NULL) {
			uint64_t s0 = gpudp_ho_now_ns();

			for (i = 0; i < np; i++, next = (next + 1) % STAGED_POOL)
				gpudp_ho_burst_add(b, pkts + (size_t)next * 1536, PL, NULL);
			gpudp_handoff_submit(h, b);
			cpu += gpudp_ho_now_ns() - s0;
			sub++;
		}
		if ((b = gpudp_handoff_completed(h)) != NULL) {
			gpudp_handoff_release(h, b);
			done++;
		}
	}
	t1 = gpudp_ho_now_ns();
	gpudp_handoff_destroy(h);
	printf("    staged %s copies: %.1f us per %u-packet burst, %.1f us of it the CPU "
	       "describing and submitting\n", gpu_copy ? "GPU" : "CPU",
	       (t1 - t0) / 1e3 / bursts, np, cpu / 1e3 / bursts);
	return (double)bursts * np * PL / ((t1 - t0) / 1e9) / 1e9;
}

/* staged path bytes/s at 1500-byte packets vs the plain pinned copy */
int
bench_staged_bw(FILE *f)
{
	enum { PL = 1500, CB = 64 << 20 };
	size_t pool = (size_t)STAGED_POOL * 1536;
	uint8_t *pkts = malloc(pool), *pinned = NULL, *src;
	CUdeviceptr dst;
	CUstream st;
	uint32_t i;
	uint64_t t0, t1;
	double staged, staged4k, staged_cpu, copy;

	if (pkts == NULL || gpudp_cu->cuMemAllocHost((void **)&pinned, pool) != CUDA_SUCCESS) {
		free(pkts);
		return -1;
	}
	memset(pkts, 0x11, pool);
	memset(pinned, 0x11, pool);
	staged_cpu = staged_bw_run(pkts, 0, 1024);
	staged = staged_bw_run(pinned, 1, 1024);
	staged4k = staged_bw_run(pinned, 1, 4096);
	free(pkts);
	gpudp_cu->cuMemFreeHost(pinned);
	if (staged < 0 || staged4k < 0 || staged_cpu < 0)
		return -1;
	if (gpudp_cu->cuMemAllocHost((void **)&src, CB) != 0 || gpudp_cu->cuMemAlloc(&dst, CB) != 0 ||
	    gpudp_cu->cuStreamCreate(&st, CU_STREAM_NON_BLOCKING) != 0)
		return -1;
	memset(src, 1, CB);
	gpudp_cu->cuMemcpyHtoDAsync(dst, src, CB, st);
	gpudp_cu->cuStreamSynchronize(st);
	t0 = gpudp_ho_now_ns();
	for (i = 0; i < 20; i++)
		gpudp_cu->cuMemcpyHtoDAsync(dst, src, CB, st);
	gpudp_cu->cuStreamSynchronize(st);
	t1 = gpudp_ho_now_ns();
	copy = 20.0 * CB / ((t1 - t0) / 1e9) / 1e9;
	gpudp_cu->cuStreamDestroy(st);
	gpudp_cu->cuMemFree(dst);
	gpudp_cu->cuMemFreeHost(src);
	printf("staged path at %u-byte packets: pinned mbufs (GPU copies) %.2f GB/s in bursts "
	       "of 1024, %.2f GB/s in bursts of 4096; host mbufs (CPU copies) %.2f GB/s; "
	       "pinned H2D copy %.2f GB/s (%.0f%%, %.0f%%, %.0f%%)\n", PL, staged, staged4k,
	       staged_cpu, copy, 100 * staged / copy, 100 * staged4k / copy,
	       100 * staged_cpu / copy);
	fprintf(f, "  \"staged_bw\": {\"packet_bytes\": %u, \"burst\": 1024, "
		"\"staged_gbytes_s\": %.3f, \"staged_gbytes_s_burst4096\": %.3f, "
		"\"staged_cpu_copy_gbytes_s\": %.3f, \"pinned_copy_gbytes_s\": %.3f, "
		"\"ratio\": %.3f, \"ratio_burst4096\": %.3f, \"ratio_cpu_copy\": %.3f},\n",
		PL, staged, staged4k, staged_cpu, copy, staged / copy, staged4k / copy,
		staged_cpu / copy);
	return 0;
}

int
bench(const char *json)
{
	enum { NP = 32, ITERS = 20000 };
	static const enum gpudp_ho_mode modes[] = { GPUDP_HO_CPU, GPUDP_HO_LAUNCH,
		GPUDP_HO_PERSISTENT, GPUDP_HO_GRAPH, GPUDP_HO_STAGED };
	struct gpudp_pool_conf pc;
	struct gpudp_pool *pool;
	struct rte_mbuf *mb[NP];
	uint8_t *pk[NP];
	static struct lat lat[8];
	FILE *f;
	uint32_t i, m;

	if (gpu_up() != 0 || eal_up() != 0 || rte_gpu_count_avail() == 0) {
		fprintf(stderr, "bench: no GPU\n");
		return GPUDP_TEST_SKIP;
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
		if (bench_mode(modes[m], pk, NP, ITERS, &lat[m]) != 0) {
			fprintf(stderr, "bench: mode %s failed\n", gpudp_ho_mode_name(modes[m]));
			fclose(f);
			return GPUDP_TEST_FAIL;
		}
		json_lat(f, gpudp_ho_mode_name(modes[m]), &lat[m], ",");
	}
	if (bench_comm(pk, NP, ITERS, &lat[7], mb) != 0) {
		fprintf(stderr, "bench: rte_gpu_comm list failed: %s\n", strerror(rte_errno));
		fprintf(f, "  \"rte_gpu_comm\": null\n}\n");
		fclose(f);
		return GPUDP_TEST_FAIL;
	}
	if (bench_staged_bw(f) != 0)
		fprintf(stderr, "bench: staged bandwidth failed\n");
	json_lat(f, "rte_gpu_comm", &lat[7], "");
	fprintf(f, "}\n");
	fclose(f);
	rte_pktmbuf_free_bulk(mb, NP);
	gpudp_pool_destroy(pool);
	return GPUDP_TEST_PASS;
}

#endif /* GPUDP_HAS_CUDA */

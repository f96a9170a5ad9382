/* SPDX-License-Identifier: BSD-3-Clause */
/* gpudev driver microbenchmark (test_gpu_gpudev --bench). */
#include "gpudev_test.h"

/* ----------------------------------------------------------- benchmark */

int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* "name": {"n": .., "mean_ns": .., "p50_ns": .., "p99_ns": ..} */
void
json_stat(FILE *f, const char *name, uint64_t *v, unsigned int n, int *first)
{
	uint64_t sum = 0;
	unsigned int i;

	qsort(v, n, sizeof(*v), cmp_u64);
	for (i = 0; i < n; i++)
		sum += v[i];
	fprintf(f, "%s\n    \"%s\": {\"n\": %u, \"mean_ns\": %.1f, \"p50_ns\": %" PRIu64
		", \"p99_ns\": %" PRIu64 "}", *first ? "" : ",", name, n,
		(double)sum / n, v[n / 2], v[(uint64_t)n * 99 / 100]);
	*first = 0;
}

int
bench_main(const char *json_path)
{
	static const size_t asz[] = { 4 * KIB, 64 * KIB, 2 * MIB, 64 * MIB };
	static const unsigned int an[] = { 2000, 2000, 500, 100 };
	static const size_t rsz[] = { 4 * KIB, 2 * MIB, 64 * MIB };
	static const unsigned int rn[] = { 2000, 300, 30 };
	char name[64], *json = NULL;
	struct gpudp_gpu_props pr;
	size_t jlen = 0, i;
	unsigned int k, n;
	uint64_t *ta, *tb, t;
	int first = 1;
	FILE *f;

	if (cuda_setup() != 0) {
		printf("{\"skipped\": \"no CUDA device: %s\"}\n", gpudp_cuda_last_error());
		return 77;
	}
	if (eal_init(1, NULL) < 0 || gpudp_gpu_probe_all() < 1 ||
	    gpudp_gpu_props_get(0, &pr) != 0) {
		printf("{\"error\": \"EAL or gpudev setup failed\"}\n");
		return 1;
	}
	gpudp_cu->cuDevicePrimaryCtxRetain(&ctx0, cu_dev0);
	gpudp_cu->cuCtxSetCurrent(ctx0);
	ta = calloc(100000, sizeof(*ta));
	tb = calloc(100000, sizeof(*tb));
	f = open_memstream(&json, &jlen);
	if (ta == NULL || tb == NULL || f == NULL)
		return 1;
	fprintf(f, "{\n  \"device\": \"%s\", \"pci\": \"%s\", \"driver_cuda\": %d,"
		" \"gdr_writes_ordering\": %d, \"wmb_flushes\": %d,\n  \"results\": {",
		pr.product, pr.pci_addr, gpudp_cuda_driver_version(),
		pr.gdr_writes_ordering, pr.wmb_flushes);
	for (i = 0; i < RTE_DIM(asz); i++) {
		void *p;
		CUdeviceptr d;

		n = an[i];
		for (k = 0; k < n; k++) {
			t = now_ns();
			p = rte_gpu_mem_alloc(0, asz[i], 0);
			ta[k] = now_ns() - t;
			t = now_ns();
			if (p == NULL || rte_gpu_mem_free(0, p) != 0)
				return 1;
			tb[k] = now_ns() - t;
		}
		snprintf(name, sizeof(name), "rte_gpu_mem_alloc_%zuKiB", asz[i] >> 10);
		json_stat(f, name, ta, n, &first);
		snprintf(name, sizeof(name), "rte_gpu_mem_free_%zuKiB", asz[i] >> 10);
		json_stat(f, name, tb, n, &first);
		/* the bare driver calls, for comparison */
		for (k = 0; k < n; k++) {
			t = now_ns();
			if (gpudp_cu->cuMemAlloc(&d, asz[i]) != CUDA_SUCCESS)
				return 1;
			ta[k] = now_ns() - t;
			t = now_ns();
			gpudp_cu->cuMemFree(d);
			tb[k] = now_ns() - t;
		}
		snprintf(name, sizeof(name), "cuMemAlloc_%zuKiB", asz[i] >> 10);
		json_stat(f, name, ta, n, &first);
		snprintf(name, sizeof(name), "cuMemFree_%zuKiB", asz[i] >> 10);
		json_stat(f, name, tb, n, &first);
	}
	for (i = 0; i < RTE_DIM(rsz); i++) {
		void *h = NULL;

		if (posix_memalign(&h, 4096, rsz[i]) != 0)
			return 1;
		memset(h, 1, rsz[i]);
		n = rn[i];
		for (k = 0; k < n; k++) {
			t = now_ns();
			if (rte_gpu_mem_register(0, rsz[i], h) != 0)
				return 1;
			ta[k] = now_ns() - t;
			t = now_ns();
			if (rte_gpu_mem_unregister(0, h) != 0)
				return 1;
			tb[k] = now_ns() - t;
		}
		snprintf(name, sizeof(name), "rte_gpu_mem_register_%zuKiB", rsz[i] >> 10);
		json_stat(f, name, ta, n, &first);
		snprintf(name, sizeof(name), "rte_gpu_mem_unregister_%zuKiB", rsz[i] >> 10);
		json_stat(f, name, tb, n, &first);
		free(h);
	}
	/* wmb: per call, in batches of 100 (single calls are below the
	 * clock's resolution) */
	n = 10000;
	for (k = 0; k < n; k++) {
		unsigned int j;

		t = now_ns();
		for (j = 0; j < 100; j++)
			rte_gpu_wmb(0);
		ta[k] = (now_ns() - t) / 100;
	}
	json_stat(f, "rte_gpu_wmb", ta, n, &first);
	if (gpudp_cu->cuFlushGPUDirectRDMAWrites != NULL &&
	    (pr.gdr_flush_options & CU_FLUSH_GPU_DIRECT_RDMA_WRITES_OPTION_HOST)) {
		for (k = 0; k < n; k++) {
			unsigned int j;

			t = now_ns();
			for (j = 0; j < 100; j++)
				gpudp_cu->cuFlushGPUDirectRDMAWrites(
					CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TARGET_CURRENT_CTX,
					CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TO_OWNER);
			ta[k] = (now_ns() - t) / 100;
		}
		json_stat(f, "cuFlushGPUDirectRDMAWrites", ta, n, &first);
		for (k = 0; k < n; k++) {
			unsigned int j;
			CUcontext c;

			t = now_ns();
			for (j = 0; j < 100; j++) {
				gpudp_cu->cuCtxPushCurrent(ctx0);
				gpudp_cu->cuFlushGPUDirectRDMAWrites(
					CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TARGET_CURRENT_CTX,
					CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TO_OWNER);
				gpudp_cu->cuCtxPopCurrent(&c);
			}
			ta[k] = (now_ns() - t) / 100;
		}
		json_stat(f, "push_flush_pop (wmb=flush cost)", ta, n, &first);
	}
	/* the error path: free of an unknown pointer (logging silenced) */
	rte_log_set_level_pattern("gpudp.gpu", RTE_LOG_EMERG);
	n = 10000;
	for (k = 0; k < n; k++) {
		t = now_ns();
		rte_gpu_mem_free(0, (void *)(uintptr_t)(0x1000 + k * 65536));
		ta[k] = now_ns() - t;
	}
	json_stat(f, "rte_gpu_mem_free_unknown_pointer", ta, n, &first);
	fprintf(f, "\n  }\n}\n");
	fclose(f);
	fputs(json, stdout);
	if (json_path != NULL) {
		FILE *o = fopen(json_path, "w");

		if (o != NULL) {
			fputs(json, o);
			fclose(o);
		}
	}
	free(json);
	free(ta);
	free(tb);
	rte_eal_cleanup();
	return 0;
}

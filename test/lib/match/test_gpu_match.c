/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/match on the GPU: the scan of gpudp_match.h run by GPU threads (one
 * buffer a thread, the database copied to GPU memory as it is) counts
 * exactly what the CPU counts. Exit 77 without a GPU.
 *
 * --bench FILE.json: bytes scanned per second at 1500-byte packets with
 * 1,000 and 10,000 patterns, in place on GPU memory (kernel time), against
 * the same scan on one CPU core and, when built with it, Hyperscan on one
 * CPU core, on the same packets (doc/match.md).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gpudp_cuda.h>
#include <gpudp_match.h>
#include <gpudp_test.h>
#include <gpudp_test_cuda.h>
#include <gpudp_test_time.h>
#ifdef GPUDP_TEST_HYPERSCAN
#include <gpudp_test_hs.h>
#endif
#include <gpudp_test_match.h>

#include "gpudp_test_match_images.h"

static struct gpudp_test_gpu tgpu;

static uint32_t seed = 77;

static uint32_t
rnd(void)
{
	return gpudp_test_rnd(&seed);
}

/* np random patterns of 4..12 bytes, a quarter of them nocase */
static struct gpudp_match_pattern *
patterns(uint32_t np)
{
	return gpudp_test_match_patterns(np, &seed);
}

/* n packets of @p len bytes (0: 64..1500) of random bytes with planted patterns */
static uint8_t *
packets(const struct gpudp_match_pattern *p, uint32_t np, uint32_t n, uint32_t len,
	uint64_t *off, uint32_t *lens)
{
	uint8_t *d = malloc((size_t)n * 1500);
	uint32_t i, k, j;
	uint64_t o = 0;

	for (i = 0; d != NULL && i < n; i++) {
		uint32_t l = len != 0 ? len : 64 + rnd() % (1500 - 64), plant = rnd() % 8;

		off[i] = o;
		lens[i] = l;
		for (k = 0; k < l; k++)
			d[o + k] = (uint8_t)rnd();
		for (k = 0; k < plant; k++) {
			const struct gpudp_match_pattern *q = &p[rnd() % np];
			uint32_t at = rnd() % (l - q->len);

			for (j = 0; j < q->len; j++)
				d[o + at + j] = q->bytes[j];
		}
		o += l;
	}
	return d;
}


struct gpu_run {
	CUdeviceptr db, data, off, len, occ, pkts;
	double kernel_ms;
};

/* the database and the packets to GPU memory, one scan kernel, counts back */
static int
gpu_scan(const struct gpudp_match_db *db, const uint8_t *data, size_t bytes,
	 const uint64_t *off, const uint32_t *lens, uint32_t n, uint64_t *occ, uint64_t *pkts,
	 struct gpu_run *g, int rounds)
{
	uint32_t np = db->n_patterns;
	void *args[] = { &g->db, &g->data, &g->off, &g->len, &n, &g->occ, &g->pkts };

	memset(g, 0, sizeof(*g));
	CU_OK(gpudp_cu->cuMemAlloc(&g->db, db->size));
	CU_OK(gpudp_cu->cuMemAlloc(&g->data, bytes));
	CU_OK(gpudp_cu->cuMemAlloc(&g->off, n * sizeof(uint64_t)));
	CU_OK(gpudp_cu->cuMemAlloc(&g->len, n * sizeof(uint32_t)));
	CU_OK(gpudp_cu->cuMemAlloc(&g->occ, np * sizeof(uint64_t)));
	CU_OK(gpudp_cu->cuMemAlloc(&g->pkts, np * sizeof(uint64_t)));
	CU_OK(gpudp_cu->cuMemcpyHtoD(g->db, db, db->size));
	CU_OK(gpudp_cu->cuMemcpyHtoD(g->data, data, bytes));
	CU_OK(gpudp_cu->cuMemcpyHtoD(g->off, off, n * sizeof(uint64_t)));
	CU_OK(gpudp_cu->cuMemcpyHtoD(g->len, lens, n * sizeof(uint32_t)));
	{
		const struct gpudp_test_zero zero[] = {
			{ g->occ, np * sizeof(uint64_t) }, { g->pkts, np * sizeof(uint64_t) },
		};

		GPUDP_TEST_ASSERT(gpudp_test_gpu_best(&tgpu, n, args, rounds, zero, 2,
						      &g->kernel_ms) == GPUDP_TEST_PASS, "kernel");
	}
	CU_OK(gpudp_cu->cuMemcpyDtoH(occ, g->occ, np * sizeof(uint64_t)));
	CU_OK(gpudp_cu->cuMemcpyDtoH(pkts, g->pkts, np * sizeof(uint64_t)));
	gpudp_cu->cuMemFree(g->db);
	gpudp_cu->cuMemFree(g->data);
	gpudp_cu->cuMemFree(g->off);
	gpudp_cu->cuMemFree(g->len);
	gpudp_cu->cuMemFree(g->occ);
	gpudp_cu->cuMemFree(g->pkts);
	return GPUDP_TEST_PASS;
}

static double
now_s(void)
{
	return gpudp_test_now_ns() / 1e9;
}

static int
gpu_scan_counts_as_the_cpu(void)
{
	enum { NP = 20000, N = 20000 };
	struct gpudp_match_pattern *p = patterns(NP);
	uint64_t *off = malloc(N * 8), *gocc = calloc(NP, 8), *gpk = calloc(NP, 8),
		 *cocc = calloc(NP, 8), *cpk = calloc(NP, 8), bytes, seen = 0;
	uint32_t *lens = malloc(N * 4), i;
	uint8_t *d;
	struct gpudp_match_db *db;
	struct gpu_run g;
	char err[200] = "";

	GPUDP_TEST_ASSERT(p && off && gocc && gpk && cocc && cpk && lens, "malloc");
	d = packets(p, NP, N, 0, off, lens);
	GPUDP_TEST_ASSERT(d != NULL, "malloc");
	bytes = off[N - 1] + lens[N - 1];
	db = gpudp_match_compile(p, NP, err, sizeof(err));
	GPUDP_TEST_ASSERT(db != NULL, "%s", err);
	for (i = 0; i < N; i++)
		gpudp_match_scan(db, d + off[i], lens[i], cocc, cpk);
	GPUDP_TEST_ASSERT(gpu_scan(db, d, bytes, off, lens, N, gocc, gpk, &g, 1) ==
			  GPUDP_TEST_PASS, "GPU scan");
	for (i = 0; i < NP; i++) {
		GPUDP_TEST_ASSERT(gocc[i] == cocc[i] && gpk[i] == cpk[i],
				  "pattern %u: GPU %" PRIu64 " occurrences in %" PRIu64 " packets, "
				  "CPU %" PRIu64 " in %" PRIu64, i, gocc[i], gpk[i], cocc[i], cpk[i]);
		seen += cpk[i] != 0;
	}
	GPUDP_TEST_ASSERT(seen > 1000, "%" PRIu64 " patterns seen", seen);
	printf("    %u patterns, %u packets (%.1f MB) on %s: %" PRIu64 " patterns seen, every "
	       "count equal to the CPU's\n", (unsigned int)NP, (unsigned int)N, bytes / 1e6,
	       tgpu.name, seen);
	free(db);
	free(d);
	free(p);
	free(off);
	free(lens);
	free(gocc);
	free(gpk);
	free(cocc);
	free(cpk);
	return GPUDP_TEST_PASS;
}

#ifdef GPUDP_TEST_HYPERSCAN
static int
hs_count(unsigned int id, unsigned long long from, unsigned long long to, unsigned int flags,
	 void *ctx_)
{
	(void)id;
	(void)from;
	(void)to;
	(void)flags;
	(*(uint64_t *)ctx_)++;
	return 0;
}

/* Hyperscan on one core: bytes per second, and its occurrences */
static double
hs_rate(const struct gpudp_match_pattern *p, uint32_t np, const uint8_t *d,
	const uint64_t *off, const uint32_t *lens, uint32_t n, uint64_t *found)
{
	struct gpudp_test_hs h;
	char err[200];
	double t0, t = 0;
	uint32_t i;
	uint64_t bytes = 0;

	*found = 0;
	if (gpudp_test_hs_open(&h, p, np, err, sizeof(err)) != 0) {
		fprintf(stderr, "    hyperscan: %s\n", err);
		return 0;
	}
	/* the scan alone, counting only the occurrences: no per-pattern counts */
	t0 = now_s();
	for (i = 0; i < n; i++) {
		hs_scan(h.db, (const char *)d + off[i], lens[i], 0, h.scratch, hs_count, found);
		bytes += lens[i];
	}
	t = now_s() - t0;
	gpudp_test_hs_close(&h);
	return t > 0 ? bytes / t : 0;
}
#endif

static int
bench(const char *path)
{
	static const uint32_t nps[] = { 1000, 10000 };
	enum { N = 100000, LEN = 1500 };
	uint64_t *off = malloc(N * 8);
	uint32_t *lens = malloc(N * 4), k, i;
	FILE *f = fopen(path, "w");

	GPUDP_TEST_ASSERT(off && lens && f, "%s: %s", path, strerror(errno));
	fprintf(f, "{\"gpu\": \"%s\", \"packet_bytes\": %u, \"packets\": %u, \"sets\": [",
		tgpu.name, (unsigned int)LEN, (unsigned int)N);
	for (k = 0; k < 2; k++) {
		uint32_t np = nps[k];
		struct gpudp_match_pattern *p = patterns(np);
		uint64_t *occ = calloc(np, 8), *pk = calloc(np, 8), *cocc = calloc(np, 8),
			 *cpk = calloc(np, 8), hs_found = 0, cpu_found = 0;
		uint8_t *d = packets(p, np, N, LEN, off, lens);
		struct gpudp_match_db *db = gpudp_match_compile(p, np, NULL, 0);
		double bytes = (double)N * LEN, t0, cpu, gpu, hs = 0;
		uint32_t cpu_n = N / 10;
		struct gpu_run g;

		GPUDP_TEST_ASSERT(p && occ && pk && cocc && cpk && d && db, "alloc");
		GPUDP_TEST_ASSERT(gpu_scan(db, d, (size_t)N * LEN, off, lens, N, occ, pk, &g, 5) ==
				  GPUDP_TEST_PASS, "GPU scan");
		gpu = bytes / (g.kernel_ms / 1e3);
		t0 = now_s();
		for (i = 0; i < cpu_n; i++)
			cpu_found += gpudp_match_scan(db, d + off[i], lens[i], cocc, cpk);
		cpu = (double)cpu_n * LEN / (now_s() - t0);
#ifdef GPUDP_TEST_HYPERSCAN
		hs = hs_rate(p, np, d, off, lens, cpu_n, &hs_found);
#endif
		printf("    %u patterns (%.1f MB database): GPU in place %.1f GB/s, one CPU core "
		       "%.3f GB/s (gpudp_match), %.3f GB/s (Hyperscan); GPU / Hyperscan %.1f\n",
		       np, db->size / 1e6, gpu / 1e9, cpu / 1e9, hs / 1e9, hs > 0 ? gpu / hs : 0);
		fprintf(f, "%s{\"patterns\": %u, \"db_bytes\": %" PRIu64 ", \"gpu_inplace_bytes_s\": "
			"%.0f, \"gpu_kernel_ms\": %.3f, \"cpu_core_bytes_s\": %.0f, "
			"\"hyperscan_core_bytes_s\": %.0f, \"gpu_vs_hyperscan\": %.2f, "
			"\"cpu_occurrences\": %" PRIu64 ", \"hyperscan_occurrences\": %" PRIu64 "}",
			k ? ", " : "", np, db->size, gpu, g.kernel_ms, cpu, hs,
			hs > 0 ? gpu / hs : 0, cpu_found, hs_found);
		free(db);
		free(d);
		free(p);
		free(occ);
		free(pk);
		free(cocc);
		free(cpk);
	}
	fprintf(f, "]}\n");
	fclose(f);
	free(off);
	free(lens);
	return GPUDP_TEST_PASS;
}

static const struct gpudp_test_case cases[] = {
	{ "gpu_scan_counts_as_the_cpu", gpu_scan_counts_as_the_cpu },
	{ NULL, NULL },
};

int
main(int argc, char **argv)
{
	int rc;

	rc = gpudp_test_gpu_open(&tgpu, &gpudp_test_image_match_test, "gpudp_match_test_scan");
	if (rc != GPUDP_TEST_PASS)
		return rc;
	if (argc == 3 && strcmp(argv[1], "--bench") == 0)
		rc = bench(argv[2]);
	else
		rc = gpudp_test_run("gpu_match", cases, argc, argv);
	gpudp_test_gpu_close(&tgpu);
	return rc;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpudp-capture-bench: packets per second analysed by the GPU engine and by
 * the CPU engine on the same input, without DPDK: the capture file is read
 * into memory once, then each engine analyses it `repeat` times through the
 * same staged batches gpudp-capture uses. Writes a JSON result; with
 * --report, also gpudp-capture's JSON report of the last engine's analysis
 * of one pass (tests compare it with tshark, and CPU with GPU).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "gpudp_analysis_pkt.h"
#include "report.h"

/* Where each packet's IP addresses are, for --vary (0: not IP). */
static uint32_t *addr_off;
static uint8_t *addr_len;
static uint32_t vary_n;

/* Stream `passes` copies of the file through the engine in full batches. */
static int
feed(struct gpudp_cap_engine *e, const struct gpudp_capfile_packets *pk, uint32_t passes)
{
	struct gpudp_cap_batch *b = gpudp_cap_engine_get_batch(e);
	uint32_t r;
	size_t i;

	for (r = 0; r < passes && b != NULL; r++) {
		for (i = 0; i < pk->n && b != NULL; i++) {
			const struct gpudp_capfile_pkt *p = &pk->pkt[i];
			uint8_t *dst;
			int rc = gpudp_cap_engine_room(e, &b, p->caplen, p->wirelen, p->ts_ns,
						       &dst);

			if (rc != 0)
				return rc;
			memcpy(dst, p->data, p->caplen);
			if (vary_n > 1 && addr_len[i] != 0) {
				uint32_t v = r % vary_n, o = addr_off[i], l = addr_len[i];

				/* last two bytes of source and destination */
				dst[o + l - 2] ^= (uint8_t)(v >> 8);
				dst[o + l - 1] ^= (uint8_t)v;
				dst[o + 2 * l - 2] ^= (uint8_t)(v >> 8);
				dst[o + 2 * l - 1] ^= (uint8_t)v;
			}
		}
	}
	if (b == NULL || gpudp_cap_engine_submit(e, b) != 0)
		return -EIO;
	return 0;
}

static int
prepare_vary(const struct gpudp_capfile_packets *pk, uint32_t n)
{
	size_t i;

	vary_n = n;
	if (n < 2)
		return 0;
	addr_off = calloc(pk->n ? pk->n : 1, sizeof(*addr_off));
	addr_len = calloc(pk->n ? pk->n : 1, 1);
	if (addr_off == NULL || addr_len == NULL)
		return -ENOMEM;
	for (i = 0; i < pk->n; i++) {
		struct gpudp_pkt_info pi;

		gpudp_pkt_parse(pk->pkt[i].data, pk->pkt[i].caplen, &pi);
		if (pi.af == 4) {
			addr_off[i] = pi.l3_off + 12;
			addr_len[i] = 4;
		} else if (pi.af == 6) {
			addr_off[i] = pi.l3_off + 8;
			addr_len[i] = 16;
		}
	}
	return 0;
}

/* --threads: passes of the direct reader; the best is the result. */
static int
run_direct(const struct bench_conf *bc, const char *name, const struct gpudp_filter *filter,
	   struct bench_result *res, struct gpudp_capfile_packets *pk,
	   const struct gpudp_cap_reader_mem *m)
{
	struct gpudp_cap_reader_conf fc = {
		.path = bc->input, .engine = name, .threads = bc->threads,
		.ec = { .batch_pkts = bc->batch_pkts, .batch_bytes = bc->batch_bytes,
			.flow_capacity = bc->flows, .filter = *filter, .gpu_device = bc->gpu,
			.inflight = bc->inflight, .match = bc->match.db,
			.match_flags = bc->match.flags, .rules = bc->rules.img },
		.stage = bc->stage, .read_bytes = bc->read_bytes,
		.mem = m != NULL ? m->buf : NULL, .mem_len = m != NULL ? m->len : 0,
	};
	struct gpudp_cap_reader_stats st;
	uint32_t r;
	int rc = 0;

	/* pass 0 warms up: the file into the page cache, the GPU's modules */
	for (r = 0; r <= bc->repeat && rc == 0; r++) {
		struct gpudp_analysis *a = cap_analysis_create(bc->flows, filter, &bc->match,
							       bc->rules.img);

		rc = a == NULL ? -ENOMEM : 0;
		if (rc == 0)
			rc = gpudp_cap_reader_run(&fc, a, &st, res->note, sizeof(res->note));
		gpudp_analysis_free(a);
		if (rc == -ENOSPC)
			rc = 0;   /* more flows than --flows: counted, not an error here */
		if (rc == 0 && r == 0)
			res->warmup_s = st.seconds;
		if (rc == 0 && res->n_pass < sizeof(res->pass) / sizeof(res->pass[0]))
			res->pass[res->n_pass++] = st;
		if (rc != 0 || r == 0)
			continue;
		if (res->seconds == 0 || st.seconds < res->seconds) {
			res->seconds = st.seconds;
			res->st = st.eng;
			res->read_s = st.read_s;
			res->collect_s = st.collect_s;
			res->merge_s = st.merge_s;
			res->register_s = st.register_s;
		}
		res->stage = st.stage;
		res->in_memory = st.in_memory;
		res->pkts = st.records;
		pk->n = st.records;
		pk->data_bytes = st.bytes;
	}
	res->ran = rc == 0;
	return rc;
}

static int
run_engine(const struct bench_conf *bc, const char *name, const struct gpudp_capfile_packets *pk,
	   const struct gpudp_filter *filter, struct bench_result *res, int write_report)
{
	struct gpudp_cap_engine_conf ec = {
		.batch_pkts = bc->batch_pkts, .batch_bytes = bc->batch_bytes,
		.flow_capacity = bc->flows, .filter = *filter, .gpu_device = bc->gpu,
		.inflight = bc->inflight, .match = bc->match.db, .match_flags = bc->match.flags,
		.rules = bc->rules.img,
	};
	struct gpudp_cap_engine e;
	double t0;
	int rc;

	rc = gpudp_cap_engine_create(&e, name, &ec, res->note, sizeof(res->note));
	if (rc != 0)
		return rc;
	if (write_report) {
		/* one pass for the report, from a fresh engine */
		struct gpudp_analysis *a = cap_analysis_create(bc->flows, filter, &bc->match,
							       bc->rules.img);
		struct cap_report rep = {
			.input = bc->input, .engine = name, .eng = &e.st, .final = 1,
			.expected_pkts = pk->n, .filter_expr = bc->filter, .top_n = 10,
			.match = &bc->match, .rules = &bc->rules,
		};

		rc = a == NULL ? -ENOMEM : 0;
		if (rc == 0)
			rc = feed(&e, pk, 1);
		if (rc == 0)
			rc = gpudp_cap_engine_collect(&e, a);
		if (rc == 0) {
			rep.a = a;
			rep.rx_pkts = pk->n;
			rc = cap_report_json_file(bc->report, &rep);
			if (rc != 0)
				snprintf(res->note, sizeof(res->note), "cannot write %s: %s",
					 bc->report, strerror(-rc));
		} else {
			snprintf(res->note, sizeof(res->note), "%s", e.err);
		}
		gpudp_analysis_free(a);
		gpudp_cap_engine_destroy(&e);
		if (rc != 0)
			return rc;
		rc = gpudp_cap_engine_create(&e, name, &ec, res->note, sizeof(res->note));
		if (rc != 0)
			return rc;
	}
	/* warm-up: module load, and first touch of every batch buffer and table */
	rc = feed(&e, pk, (uint32_t)(((uint64_t)(bc->inflight + 1) * bc->batch_pkts +
				      pk->n - 1) / (pk->n ? pk->n : 1)) + 1);
	if (rc == 0)
		rc = gpudp_cap_engine_flush(&e);
	memset(&e.st.pkts, 0, sizeof(e.st) - sizeof(e.st.device));
	t0 = gpudp_cap_now_s();
	if (rc == 0)
		rc = feed(&e, pk, bc->repeat);
	if (rc == 0)
		rc = gpudp_cap_engine_flush(&e);
	res->seconds = gpudp_cap_now_s() - t0;
	if (rc != 0)
		snprintf(res->note, sizeof(res->note), "%s", e.err);
	res->pkts = e.st.pkts;
	res->st = e.st;
	res->ran = rc == 0;
	gpudp_cap_engine_destroy(&e);
	return rc;
}

/* --threads: each engine through the direct reader. @return the exit code */
static int
bench_direct(struct bench_conf *bc, const struct gpudp_filter *filter, int want_cpu,
	     int want_gpu)
{
	struct bench_result cpu = { 0 }, gpu = { 0 };
	struct gpudp_capfile_packets pk = { 0 };
	struct gpudp_cap_reader_mem m = { .buf = NULL };
	char err[256];
	int rc = 0;

	/* --memory: the file read before the passes, registered for the GPU's */
	if (bc->memory && gpudp_cap_reader_mem_load(&m, bc->input, err, sizeof(err)) != 0) {
		fprintf(stderr, "gpudp-capture-bench: --memory: %s\n", err);
		cap_match_free(&bc->match);
		cap_rules_free(&bc->rules);
		return 1;
	}
	if (want_cpu)
		run_direct(bc, "cpu", filter, &cpu, &pk, bc->memory ? &m : NULL);
	if (want_gpu && (!bc->memory || gpudp_cap_reader_mem_register(&m, bc->gpu, gpu.note,
								      sizeof(gpu.note)) == 0))
		run_direct(bc, "gpu", filter, &gpu, &pk, bc->memory ? &m : NULL);
	if (bench_write_result(bc, &pk, &cpu, &gpu, bc->memory ? &m : NULL) != 0)
		rc = 1;
	gpudp_cap_reader_mem_free(&m);
	if (want_gpu && !gpu.ran)
		fprintf(stderr, "gpudp-capture-bench: GPU engine not run: %s\n", gpu.note);
	if (want_cpu && !cpu.ran)
		fprintf(stderr, "gpudp-capture-bench: CPU engine failed: %s\n", cpu.note);
	cap_match_free(&bc->match);
		cap_rules_free(&bc->rules);
	if (rc == 0 && ((want_cpu && !cpu.ran) || (want_gpu && !gpu.ran)))
		rc = want_gpu && !gpu.ran && (!want_cpu || cpu.ran) ? 77 : 1;
	return rc;
}

int
main(int argc, char **argv)
{
	struct bench_conf bc = {
		.engines = "cpu,gpu", .repeat = 20, .batch_pkts = 8192,
		.batch_bytes = 16u << 20, .flows = GPUDP_AN_DEFAULT_FLOWS, .inflight = 3,
	};
	struct bench_result cpu = { 0 }, gpu = { 0 };
	struct gpudp_capfile_packets pk;
	struct gpudp_filter filter;
	char err[256];
	int rc, want_cpu, want_gpu;

	/* kernels loaded with their modules, as in the apps (gpudp_app_eal_init()) */
	setenv("CUDA_MODULE_LOADING", "EAGER", 0);

	rc = bench_parse_args(&bc, argc, argv);
	if (rc >= 0)
		return rc;
	if (bc.generate != 0)
		return bench_generate(bc.input, bc.generate, bc.frame_size);
	want_cpu = strstr(bc.engines, "cpu") != NULL;
	want_gpu = strstr(bc.engines, "gpu") != NULL;
	if (cap_rules_prepare("gpudp-capture-bench", &bc.rules) != 0 ||
	    cap_match_prepare("gpudp-capture-bench", &bc.match, bc.rules.img, bc.filter,
			      &filter) != 0) {
		cap_rules_free(&bc.rules);
		return 2;
	}
	if (bc.threads != 0)
		return bench_direct(&bc, &filter, want_cpu, want_gpu);
	rc = gpudp_capfile_read_all(bc.input, &pk, err, sizeof(err));
	if (rc != 0) {
		fprintf(stderr, "gpudp-capture-bench: %s\n", err);
		cap_match_free(&bc.match);
		cap_rules_free(&bc.rules);
		return 1;
	}
	if (prepare_vary(&pk, bc.vary) != 0) {
		fprintf(stderr, "gpudp-capture-bench: out of memory\n");
		cap_match_free(&bc.match);
		cap_rules_free(&bc.rules);
		return 1;
	}
	if (want_cpu)
		run_engine(&bc, "cpu", &pk, &filter, &cpu, bc.report != NULL && !want_gpu);
	if (want_gpu)
		run_engine(&bc, "gpu", &pk, &filter, &gpu, bc.report != NULL);
	if (bench_write_result(&bc, &pk, &cpu, &gpu, NULL) != 0) {
		cap_match_free(&bc.match);
		cap_rules_free(&bc.rules);
		gpudp_capfile_packets_free(&pk);
		free(addr_off);
		free(addr_len);
		return 1;
	}
	if (want_gpu && !gpu.ran)
		fprintf(stderr, "gpudp-capture-bench: GPU engine not run: %s\n", gpu.note);
	if (want_cpu && !cpu.ran)
		fprintf(stderr, "gpudp-capture-bench: CPU engine failed: %s\n", cpu.note);
	cap_match_free(&bc.match);
		cap_rules_free(&bc.rules);
	gpudp_capfile_packets_free(&pk);
	free(addr_off);
	free(addr_len);
	if ((want_cpu && !cpu.ran) || (want_gpu && !gpu.ran))
		return want_gpu && !gpu.ran && (!want_cpu || cpu.ran) ? 77 : 1;
	return 0;
}

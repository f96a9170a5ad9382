/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/rules on the GPU: a rule set's image run by GPU threads (one packet
 * a thread, the image copied to GPU memory as it is, each thread with its
 * scratch) counts, rule by rule, exactly what the CPU counts on the same
 * packets. Exit 77 without a GPU.
 *
 * usage: test_gpu_rules RULES VARS CAPTURE
 *        test_gpu_rules --bench OUT.json RULES VARS CAPTURE
 *
 * The packets are CAPTURE's IP records: their headers as the rules see them
 * and their L4 payloads (gpudp_pkt_payload()). --bench: payload bytes
 * inspected per second in place on GPU memory (kernel time, the best of 5)
 * against one CPU core running the same rules two ways on the same
 * packets: Hyperscan as the prefilter (the rules' fast patterns, each
 * reported once a packet) then the same verification (gpudp_rules_eval.h),
 * and gpudp's own CPU engine (gpudp_rules_img_packet()), each the best of
 * 3 runs; both CPU ways must find the same alerts (doc/rules.md,
 * doc/benchmarks.md).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gpudp_analysis_pkt.h>
#include <gpudp_cuda.h>
#include <gpudp_rules.h>
#include <gpudp_rules_img.h>
#include <gpudp_rules_pkt.h>
#include <gpudp_test.h>
#include <gpudp_test_cuda.h>
#include <gpudp_test_time.h>
#ifdef GPUDP_TEST_HYPERSCAN
#include <hs/hs.h>
#endif

#include "gpudp_capfile.h"
#include "gpudp_test_rules_images.h"

static struct gpudp_test_gpu tgpu;

/* the packets: payloads back to back, their offsets, lengths and headers */
struct pkts {
	uint8_t *data;
	uint64_t *off;
	uint32_t *len;
	struct gpudp_rule_pkt *k;
	uint32_t n;
	uint64_t bytes;
};

/* the rules */
struct set {
	struct gpudp_rules rs;
	struct gpudp_rules_img *img;
};


static double
now_s(void)
{
	return gpudp_test_now_ns() / 1e9;
}

static int
load_set(struct set *s, const char *rules, const char *vars)
{
	const char *files[1] = { rules };
	struct gpudp_rules_conf conf = { 0 };
	char err[512];

	gpudp_rules_init(&s->rs);
	GPUDP_TEST_ASSERT(gpudp_rules_load(&s->rs, files, 1, vars, &conf, err, sizeof(err)) == 0,
			  "%s", err);
	s->img = gpudp_rules_img_build(&s->rs, err, sizeof(err));
	GPUDP_TEST_ASSERT(s->img != NULL, "%s", err);
	return GPUDP_TEST_PASS;
}

/* CAPTURE's IP records as the rules see them */
static int
load_pkts(struct pkts *p, const char *path)
{
	struct gpudp_capfile_packets pk;
	char err[256];
	size_t i;

	memset(p, 0, sizeof(*p));
	GPUDP_TEST_ASSERT(gpudp_capfile_read_all(path, &pk, err, sizeof(err)) == 0, "%s", err);
	p->data = malloc(pk.data_bytes + 1);
	p->off = calloc(pk.n + 1, sizeof(*p->off));
	p->len = calloc(pk.n + 1, sizeof(*p->len));
	p->k = calloc(pk.n + 1, sizeof(*p->k));
	GPUDP_TEST_ASSERT(p->data && p->off && p->len && p->k, "malloc");
	for (i = 0; i < pk.n; i++) {
		struct gpudp_pkt_info pi;
		struct gpudp_rule_pkt *k = &p->k[p->n];
		uint32_t off, len;

		gpudp_pkt_parse(pk.pkt[i].data, pk.pkt[i].caplen, &pi);
		if (pi.af == 0)
			continue;
		off = gpudp_pkt_payload(pk.pkt[i].data, pk.pkt[i].caplen, &pi, &len);
		if (len > GPUDP_RULES_PAYLOAD_MAX)
			len = GPUDP_RULES_PAYLOAD_MAX;
		gpudp_rule_pkt_of(&pi, k);
		p->off[p->n] = p->bytes;
		p->len[p->n] = len;
		memcpy(p->data + p->bytes, pk.pkt[i].data + off, len);
		p->bytes += len;
		p->n++;
	}
	gpudp_capfile_packets_free(&pk);
	GPUDP_TEST_ASSERT(p->n > 0, "%s: no IP record", path);
	return GPUDP_TEST_PASS;
}

static void
free_pkts(struct pkts *p)
{
	free(p->data);
	free(p->off);
	free(p->len);
	free(p->k);
}

/* the image and packets to GPU memory; @p rounds kernels (the fastest
 * timed); the counts of the last back */
static int
gpu_run(const struct set *s, const struct pkts *p, uint64_t *hits, uint64_t *total,
	int rounds, double *kernel_ms)
{
	CUdeviceptr img, data, off, len, k, gh, gt;
	uint32_t n = p->n, nr = s->img->n_rule;
	void *args[] = { &img, &data, &off, &len, &k, &n, &gh, &gt };

	CU_OK(gpudp_cu->cuMemAlloc(&img, s->img->size));
	CU_OK(gpudp_cu->cuMemAlloc(&data, p->bytes + 1));
	CU_OK(gpudp_cu->cuMemAlloc(&off, n * sizeof(uint64_t)));
	CU_OK(gpudp_cu->cuMemAlloc(&len, n * sizeof(uint32_t)));
	CU_OK(gpudp_cu->cuMemAlloc(&k, n * sizeof(struct gpudp_rule_pkt)));
	CU_OK(gpudp_cu->cuMemAlloc(&gh, (nr + 1) * sizeof(uint64_t)));
	CU_OK(gpudp_cu->cuMemAlloc(&gt, sizeof(uint64_t)));
	CU_OK(gpudp_cu->cuMemcpyHtoD(img, s->img, s->img->size));
	CU_OK(gpudp_cu->cuMemcpyHtoD(data, p->data, p->bytes + 1));
	CU_OK(gpudp_cu->cuMemcpyHtoD(off, p->off, n * sizeof(uint64_t)));
	CU_OK(gpudp_cu->cuMemcpyHtoD(len, p->len, n * sizeof(uint32_t)));
	CU_OK(gpudp_cu->cuMemcpyHtoD(k, p->k, n * sizeof(struct gpudp_rule_pkt)));
	{
		const struct gpudp_test_zero zero[] = {
			{ gh, (nr + 1) * sizeof(uint64_t) }, { gt, sizeof(uint64_t) },
		};

		GPUDP_TEST_ASSERT(gpudp_test_gpu_best(&tgpu, n, args, rounds, zero, 2,
						      kernel_ms) == GPUDP_TEST_PASS, "kernel");
	}
	CU_OK(gpudp_cu->cuMemcpyDtoH(hits, gh, nr * sizeof(uint64_t)));
	CU_OK(gpudp_cu->cuMemcpyDtoH(total, gt, sizeof(uint64_t)));
	gpudp_cu->cuMemFree(img);
	gpudp_cu->cuMemFree(data);
	gpudp_cu->cuMemFree(off);
	gpudp_cu->cuMemFree(len);
	gpudp_cu->cuMemFree(k);
	gpudp_cu->cuMemFree(gh);
	gpudp_cu->cuMemFree(gt);
	return GPUDP_TEST_PASS;
}

/* gpudp's CPU engine over the first @p n packets: per-rule counts, alerts */
static uint64_t
cpu_run(const struct set *s, const struct pkts *p, uint32_t n, uint64_t *hits)
{
	static uint32_t scratch[GPUDP_RULES_SCRATCH_WORDS];
	struct gpudp_rules_out o = { .hits = hits };
	uint64_t total = 0;
	uint32_t i;

	for (i = 0; i < n; i++)
		total += gpudp_rules_img_packet(s->img, &p->k[i], p->data + p->off[i], p->len[i],
						scratch, &o);
	return total;
}

/* the rules, the packets, per-rule count arrays for the GPU and the CPU,
 * and @p rounds GPU runs (the fastest in *ms) */
static int
setup(struct set *s, struct pkts *p, uint64_t **gh, uint64_t **ch, uint64_t *gt,
      const char *rules, const char *vars, const char *capture, int rounds, double *ms)
{
	GPUDP_TEST_ASSERT(load_set(s, rules, vars) == GPUDP_TEST_PASS, "rules");
	GPUDP_TEST_ASSERT(load_pkts(p, capture) == GPUDP_TEST_PASS, "packets");
	*gh = calloc(s->img->n_rule + 1, sizeof(**gh));
	*ch = calloc(s->img->n_rule + 1, sizeof(**ch));
	GPUDP_TEST_ASSERT(*gh && *ch, "malloc");
	return gpu_run(s, p, *gh, gt, rounds, ms);
}

static void
teardown(struct set *s, struct pkts *p, uint64_t *gh, uint64_t *ch)
{
	free(gh);
	free(ch);
	free(s->img);
	gpudp_rules_free(&s->rs);
	free_pkts(p);
}

static int
gpu_counts_as_the_cpu(const char *rules, const char *vars, const char *capture)
{
	struct set s;
	struct pkts p;
	uint64_t *gh, *ch, gt = 0, ct, seen = 0;
	double ms;
	uint32_t i;

	GPUDP_TEST_ASSERT(setup(&s, &p, &gh, &ch, &gt, rules, vars, capture, 1, &ms) ==
			  GPUDP_TEST_PASS, "GPU run");
	ct = cpu_run(&s, &p, p.n, ch);
	for (i = 0; i < s.img->n_rule; i++) {
		GPUDP_TEST_ASSERT(gh[i] == ch[i], "sid %u: GPU %" PRIu64 " packets, CPU %" PRIu64,
				  s.rs.rule[i].sid, gh[i], ch[i]);
		seen += ch[i] != 0;
	}
	GPUDP_TEST_ASSERT(gt == ct && ct > 0 && seen > 0, "alerts: GPU %" PRIu64 ", CPU %" PRIu64,
			  gt, ct);
	printf("    %u rules, %u packets on %s: %" PRIu64 " alerts, %" PRIu64 " rules matched, "
	       "every count equal to the CPU's\n", s.img->n_rule, p.n, tgpu.name, ct, seen);
	teardown(&s, &p, gh, ch);
	return GPUDP_TEST_PASS;
}

#ifdef GPUDP_TEST_HYPERSCAN
/* the Hyperscan prefilter: the distinct fast patterns, each pattern's rules */
struct hs_pre {
	hs_database_t *db;
	hs_scratch_t *scratch;
	uint32_t *first, *rule_of, *always, n_always, n_pat;
	uint32_t *found, n_found;
};

static int
on_pat(unsigned int id, unsigned long long from, unsigned long long to, unsigned int flags,
       void *ctx_)
{
	struct hs_pre *h = ctx_;

	(void)from;
	(void)to;
	(void)flags;
	h->found[h->n_found++] = id;
	return 0;
}

/* the image's own grouping (first, rule_of, always) and a Hyperscan
 * database of its patterns, each reported once a scan (SINGLEMATCH) */
static int
hs_pre_open(struct hs_pre *h, const struct set *s)
{
	const struct gpudp_rules_img *img = s->img;
	const struct gpudp_match_db *db = GPUDP_RULES_IMG_AT(img, const struct gpudp_match_db,
							     img->off_db);
	const uint32_t *pat = GPUDP_RULES_IMG_AT(db, const uint32_t, db->off_pat);
	const char **expr = calloc(img->n_pat, sizeof(*expr));
	unsigned int *fl = calloc(img->n_pat, sizeof(*fl)), *ids = calloc(img->n_pat, sizeof(*ids));
	size_t *lens = calloc(img->n_pat, sizeof(*lens));
	hs_compile_error_t *cerr = NULL;
	uint32_t i;

	memset(h, 0, sizeof(*h));
	GPUDP_TEST_ASSERT(img->n_pat > 0 && expr && fl && ids && lens, "malloc");
	for (i = 0; i < img->n_pat; i++) {
		expr[i] = GPUDP_RULES_IMG_AT(db, const char, db->off_bytes) + pat[3 * i];
		lens[i] = pat[3 * i + 1];
		fl[i] = HS_FLAG_SINGLEMATCH |
			((pat[3 * i + 2] & GPUDP_MATCH_NOCASE) ? HS_FLAG_CASELESS : 0);
		ids[i] = i;
	}
	GPUDP_TEST_ASSERT(hs_compile_lit_multi(expr, fl, ids, lens, img->n_pat, HS_MODE_BLOCK,
					       NULL, &h->db, &cerr) == HS_SUCCESS,
			  "hs_compile_lit_multi: %s", cerr ? cerr->message : "?");
	GPUDP_TEST_ASSERT(hs_alloc_scratch(h->db, &h->scratch) == HS_SUCCESS, "scratch");
	h->first = GPUDP_RULES_IMG_AT(img, uint32_t, img->off_first);
	h->rule_of = GPUDP_RULES_IMG_AT(img, uint32_t, img->off_rule_of);
	h->always = GPUDP_RULES_IMG_AT(img, uint32_t, img->off_always);
	h->n_always = img->n_always;
	h->n_pat = img->n_pat;
	h->found = calloc(img->n_pat + 1, sizeof(*h->found));
	GPUDP_TEST_ASSERT(h->found != NULL, "malloc");
	free(expr);
	free(fl);
	free(ids);
	free(lens);
	return GPUDP_TEST_PASS;
}

/* one packet: the prefilter, then the same verification as the engine */
static uint32_t
hs_packet(struct hs_pre *h, const struct set *s, const struct gpudp_rule_pkt *k,
	  const uint8_t *p, uint32_t len, uint32_t *scratch)
{
	const struct gpudp_rules *rs = &s->rs;
	uint32_t i, j, hits = 0;

	h->n_found = 0;
	hs_scan(h->db, (const char *)p, len, 0, h->scratch, on_pat, h);
	for (i = 0; i < h->n_found; i++)
		for (j = h->first[h->found[i]]; j < h->first[h->found[i] + 1]; j++) {
			const struct gpudp_rule *r = &rs->rule[h->rule_of[j]];

			hits += gpudp_rule_header_match(rs, r, k) &&
				gpudp_rule_payload_match(rs, r, p, len, scratch);
		}
	for (i = 0; i < h->n_always; i++) {
		const struct gpudp_rule *r = &rs->rule[h->always[i]];

		hits += gpudp_rule_header_match(rs, r, k) &&
			gpudp_rule_payload_match(rs, r, p, len, scratch);
	}
	return hits;
}
#endif

static int
bench(const char *out, const char *rules, const char *vars, const char *capture)
{
	static uint32_t scratch[GPUDP_RULES_SCRATCH_WORDS];
	struct set s;
	struct pkts p;
	uint64_t *gh, *ch, gt = 0, ct, hs_alerts = 0, cpu_bytes = 0;
	double ms, t0, cpu_s, gpu, cpu = 0, hs = 0;
	uint32_t i, cpu_n;
	int r;
	FILE *f;

	GPUDP_TEST_ASSERT(setup(&s, &p, &gh, &ch, &gt, rules, vars, capture, 5, &ms) ==
			  GPUDP_TEST_PASS, "GPU run");
	gpu = (double)p.bytes / (ms / 1e3);
	/* one core: a tenth of the packets */
	cpu_n = p.n / 10 ? p.n / 10 : p.n;
	for (i = 0; i < cpu_n; i++)
		cpu_bytes += p.len[i];
	for (r = 0; r < 3; r++) {
		memset(ch, 0, sizeof(*ch) * s.img->n_rule);
		t0 = now_s();
		ct = cpu_run(&s, &p, cpu_n, ch);
		cpu_s = now_s() - t0;
		if (cpu_bytes / cpu_s > cpu)
			cpu = cpu_bytes / cpu_s;
	}
#ifdef GPUDP_TEST_HYPERSCAN
	{
		struct hs_pre h;

		GPUDP_TEST_ASSERT(hs_pre_open(&h, &s) == GPUDP_TEST_PASS, "Hyperscan");
		for (r = 0; r < 3; r++) {
			hs_alerts = 0;
			t0 = now_s();
			for (i = 0; i < cpu_n; i++)
				hs_alerts += hs_packet(&h, &s, &p.k[i], p.data + p.off[i], p.len[i],
						       scratch);
			if (cpu_bytes / (now_s() - t0) > hs)
				hs = cpu_bytes / (now_s() - t0);
		}
		hs_free_scratch(h.scratch);
		hs_free_database(h.db);
		free(h.found);
		GPUDP_TEST_ASSERT(hs_alerts == ct, "Hyperscan's prefilter: %" PRIu64 " alerts, the "
				  "engine %" PRIu64, hs_alerts, ct);
	}
#endif
	printf("    %u rules, %u packets (%.1f MB of payload) on %s: GPU in place %.2f Gbit/s, "
	       "one CPU core %.3f Gbit/s (Hyperscan prefilter and verification), %.3f Gbit/s "
	       "(gpudp's engine); GPU / Hyperscan %.1f\n", s.img->n_rule, p.n, p.bytes / 1e6,
	       tgpu.name, gpu * 8 / 1e9, hs * 8 / 1e9, cpu * 8 / 1e9, hs > 0 ? gpu / hs : 0);
	f = fopen(out, "w");
	GPUDP_TEST_ASSERT(f != NULL, "%s: %s", out, strerror(errno));
	fprintf(f, "{\"gpu\": \"%s\", \"rules\": %u, \"fast_patterns\": %u, \"packets\": %u, "
		"\"payload_bytes\": %" PRIu64 ", \"gpu_alerts\": %" PRIu64 ", "
		"\"gpu_inplace_bytes_s\": %.0f, \"gpu_kernel_ms\": %.3f, \"cpu_packets\": %u, "
		"\"cpu_alerts\": %" PRIu64 ", \"hyperscan_alerts\": %" PRIu64 ", "
		"\"cpu_engine_core_bytes_s\": %.0f, \"hyperscan_core_bytes_s\": %.0f, "
		"\"gpu_inplace_over_hyperscan\": %.2f}\n", tgpu.name, s.img->n_rule, s.img->n_pat,
		p.n, p.bytes, gt, gpu, ms, cpu_n, ct, hs_alerts, cpu, hs, hs > 0 ? gpu / hs : 0);
	GPUDP_TEST_ASSERT(fclose(f) == 0, "%s: write failed", out);
	teardown(&s, &p, gh, ch);
	return GPUDP_TEST_PASS;
}

int
main(int argc, char **argv)
{
	int rc;

	if (argc != 4 && !(argc == 6 && strcmp(argv[1], "--bench") == 0)) {
		fprintf(stderr, "usage: test_gpu_rules [--bench OUT.json] RULES VARS CAPTURE\n");
		return GPUDP_TEST_FAIL;
	}
	rc = gpudp_test_gpu_open(&tgpu, &gpudp_test_image_rules_test, "gpudp_rules_test_run");
	if (rc != GPUDP_TEST_PASS)
		return rc;
	if (argc == 6)
		rc = bench(argv[2], argv[3], argv[4], argv[5]);
	else
		rc = gpu_counts_as_the_cpu(argv[1], argv[2], argv[3]);
	gpudp_test_gpu_close(&tgpu);
	return rc;
}

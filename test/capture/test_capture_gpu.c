/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpu suite: the GPU engine (staged copy + lib/kernels/capture.cu) gives
 * exactly the CPU engine's results: counters, flow table, filter matches.
 * Usage: test_capture_gpu SAMPLE.pcap JUMBO.pcap [case...]
 * Exits 77 (SKIP) when no GPU is usable.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "capfile.h"
#include "engine.h"
#include "gpudp_analysis.h"
#include "gpudp_cuda.h"
#include "gpudp_test.h"

static const char *sample_path, *jumbo_path;
static int gpu_ok;

struct run {
	struct gpudp_analysis *a;
	uint8_t *matched;    /* per packet, in input order */
	size_t next;
	size_t n;
};

static void
on_done(void *arg, const struct cap_batch *b)
{
	struct run *r = arg;
	uint32_t i;

	for (i = 0; i < b->n && r->next < r->n; i++)
		r->matched[r->next++] = (uint8_t)cap_batch_matched(b, i);
}

/* Analyse pk with engine `name`; results in r. */
static int
analyse(const char *name, const struct capfile_packets *pk, uint32_t batch, uint32_t flows,
	const char *filter, struct run *r)
{
	struct cap_engine_conf ec = {
		.batch_pkts = batch, .batch_bytes = 4u << 20, .flow_capacity = flows,
		.gpu_device = 0, .inflight = 3, .done = on_done, .done_arg = r,
	};
	struct cap_engine e;
	struct cap_batch *b;
	char err[256];
	size_t i;
	int rc;

	if (gpudp_filter_compile(filter, &ec.filter, err, sizeof(err)) != 0) {
		fprintf(stderr, "    filter: %s\n", err);
		return -EINVAL;
	}
	memset(r, 0, sizeof(*r));
	r->n = pk->n;
	r->matched = calloc(pk->n ? pk->n : 1, 1);
	r->a = gpudp_analysis_create(flows, &ec.filter);
	if (r->matched == NULL || r->a == NULL)
		return -ENOMEM;
	rc = cap_engine_create(&e, name, &ec, err, sizeof(err));
	if (rc != 0) {
		fprintf(stderr, "    %s engine: %s\n", name, err);
		return rc;
	}
	b = cap_engine_get_batch(&e);
	for (i = 0; i < pk->n && b != NULL; i++) {
		uint8_t *d = cap_batch_alloc(b, pk->pkt[i].caplen, pk->pkt[i].wirelen,
					     pk->pkt[i].ts_ns);

		if (d == NULL) {
			if (cap_engine_submit(&e, b) != 0)
				break;
			b = cap_engine_get_batch(&e);
			if (b == NULL)
				break;
			d = cap_batch_alloc(b, pk->pkt[i].caplen, pk->pkt[i].wirelen,
					    pk->pkt[i].ts_ns);
		}
		memcpy(d, pk->pkt[i].data, pk->pkt[i].caplen);
	}
	rc = b == NULL || i < pk->n ? -EIO : cap_engine_submit(&e, b);
	if (rc == 0)
		rc = cap_engine_collect(&e, r->a);
	if (rc != 0)
		fprintf(stderr, "    %s engine: %s\n", name, e.err);
	cap_engine_destroy(&e);
	return rc;
}

static void
run_free(struct run *r)
{
	gpudp_analysis_free(r->a);
	free(r->matched);
}

/* 0 when both runs agree on everything. */
static int
compare(const struct run *c, const struct run *g)
{
	struct gpudp_flow_record *fc = NULL, *fg = NULL;
	size_t nc = 0, ng = 0, i;
	int bad = 0;

	if (memcmp(&c->a->ctr, &g->a->ctr, sizeof(c->a->ctr)) != 0) {
		const uint64_t *x = (const uint64_t *)&c->a->ctr, *y = (const uint64_t *)&g->a->ctr;

		for (i = 0; i < sizeof(c->a->ctr) / 8; i++)
			if (x[i] != y[i])
				fprintf(stderr, "    counter word %zu: cpu %llu gpu %llu\n", i,
					(unsigned long long)x[i], (unsigned long long)y[i]);
		bad = 1;
	}
	if (gpudp_analysis_flows(c->a, &fc, &nc) != 0 || gpudp_analysis_flows(g->a, &fg, &ng) != 0)
		bad = 1;
	else if (nc != ng) {
		fprintf(stderr, "    flows: cpu %zu gpu %zu\n", nc, ng);
		bad = 1;
	} else if (memcmp(fc, fg, nc * sizeof(*fc)) != 0) {
		fprintf(stderr, "    flow records differ\n");
		bad = 1;
	}
	for (i = 0; i < c->n; i++)
		if (c->matched[i] != g->matched[i]) {
			fprintf(stderr, "    packet %zu: filter cpu %u gpu %u\n", i, c->matched[i],
				g->matched[i]);
			bad = 1;
			break;
		}
	free(fc);
	free(fg);
	return bad;
}

static int
same_results_on(const char *path, uint32_t batch, const char *filter)
{
	struct capfile_packets pk;
	struct run c, g;
	char err[256];
	int rc;

	GPUDP_TEST_SKIP_IF(!gpu_ok, "no GPU: %s", gpudp_cuda_last_error());
	GPUDP_TEST_ASSERT(capfile_read_all(path, &pk, err, sizeof(err)) == 0, "%s", err);
	GPUDP_TEST_ASSERT(analyse("cpu", &pk, batch, 4096, filter, &c) == 0, "cpu run");
	GPUDP_TEST_ASSERT(analyse("gpu", &pk, batch, 4096, filter, &g) == 0, "gpu run");
	GPUDP_TEST_ASSERT(c.a->ctr.pkts == pk.n && c.a->ctr.filter_pkts > 0, "cpu saw %llu",
			  (unsigned long long)c.a->ctr.pkts);
	rc = compare(&c, &g);
	run_free(&c);
	run_free(&g);
	capfile_packets_free(&pk);
	GPUDP_TEST_ASSERT(rc == 0, "cpu and gpu differ on %s", path);
	return GPUDP_TEST_PASS;
}

static int
gpu_equals_cpu_on_sample(void)
{
	return same_results_on(sample_path, 4096, "tcp and port 8080 or icmp6 or vlan 100");
}

static int
gpu_equals_cpu_across_many_batches(void)
{
	/* batches of 7 packets: counters and flows accumulate in device memory */
	return same_results_on(sample_path, 7, "not ip6");
}

static int
gpu_equals_cpu_on_jumbo_frames(void)
{
	return same_results_on(jumbo_path, 3, "icmp");
}

/* Many packets of few flows in one launch: concurrent inserts of one key. */
static int
gpu_concurrent_inserts_make_one_flow_each(void)
{
	struct capfile_packets pk, big;
	struct run c, g;
	char err[256];
	size_t i, j, k = 0;
	int rc;

	GPUDP_TEST_SKIP_IF(!gpu_ok, "no GPU");
	GPUDP_TEST_ASSERT(capfile_read_all(sample_path, &pk, err, sizeof(err)) == 0, "%s", err);
	/* 200 copies of the sample, interleaved: each flow's packets land in
	 * many threads of the same launch */
	big.n = pk.n * 200;
	big.pkt = calloc(big.n, sizeof(*big.pkt));
	big.buf = NULL;
	GPUDP_TEST_ASSERT(big.pkt != NULL, "alloc");
	for (j = 0; j < 200; j++)
		for (i = 0; i < pk.n; i++)
			big.pkt[k++] = pk.pkt[i];
	GPUDP_TEST_ASSERT(analyse("cpu", &big, 65536, 65536, "udp", &c) == 0, "cpu");
	GPUDP_TEST_ASSERT(analyse("gpu", &big, 65536, 65536, "udp", &g) == 0, "gpu");
	rc = compare(&c, &g);
	run_free(&c);
	run_free(&g);
	free(big.pkt);
	capfile_packets_free(&pk);
	GPUDP_TEST_ASSERT(rc == 0, "cpu and gpu differ");
	return GPUDP_TEST_PASS;
}

/* A table too small: every packet is in a flow or in the flow_table_full drop. */
static int
gpu_full_flow_table_accounts_every_packet(void)
{
	struct capfile_packets pk;
	struct gpudp_flow_record *fl;
	struct run c, g;
	char err[256];
	size_t n, i;
	uint64_t in_flows = 0, want = 0;

	GPUDP_TEST_SKIP_IF(!gpu_ok, "no GPU");
	GPUDP_TEST_ASSERT(capfile_read_all(sample_path, &pk, err, sizeof(err)) == 0, "%s", err);
	/* what a table large enough holds */
	GPUDP_TEST_ASSERT(analyse("cpu", &pk, 4096, 4096, "", &c) == 0, "cpu");
	GPUDP_TEST_ASSERT(gpudp_analysis_flows(c.a, &fl, &n) == 0 && n > 16, "flows %zu", n);
	for (i = 0; i < n; i++)
		want += fl[i].pkts[0] + fl[i].pkts[1];
	free(fl);
	GPUDP_TEST_ASSERT(analyse("gpu", &pk, 4096, 16, "", &g) == 0, "gpu");
	GPUDP_TEST_ASSERT(gpudp_analysis_flows(g.a, &fl, &n) == 0 && n == 16, "flows %zu", n);
	for (i = 0; i < n; i++)
		in_flows += fl[i].pkts[0] + fl[i].pkts[1];
	GPUDP_TEST_ASSERT(g.a->ctr.drops[GPUDP_AN_DROP_FLOW_FULL] > 0 &&
			  in_flows + g.a->ctr.drops[GPUDP_AN_DROP_FLOW_FULL] == want,
			  "in flows %llu + full %llu != %llu",
			  (unsigned long long)in_flows,
			  (unsigned long long)g.a->ctr.drops[GPUDP_AN_DROP_FLOW_FULL],
			  (unsigned long long)want);
	free(fl);
	run_free(&c);
	run_free(&g);
	capfile_packets_free(&pk);
	return GPUDP_TEST_PASS;
}

static const struct gpudp_test_case cases[] = {
	{ "gpu_equals_cpu_on_sample", gpu_equals_cpu_on_sample },
	{ "gpu_equals_cpu_across_many_batches", gpu_equals_cpu_across_many_batches },
	{ "gpu_equals_cpu_on_jumbo_frames", gpu_equals_cpu_on_jumbo_frames },
	{ "gpu_concurrent_inserts_make_one_flow_each", gpu_concurrent_inserts_make_one_flow_each },
	{ "gpu_full_flow_table_accounts_every_packet", gpu_full_flow_table_accounts_every_packet },
	{ NULL, NULL },
};

int
main(int argc, char **argv)
{
	char *names[64];
	int i, n = 1;

	names[0] = argv[0];
	for (i = 1; i < argc && n < 63; i++) {
		size_t l = strlen(argv[i]);

		if (l > 5 && strcmp(argv[i] + l - 5, ".pcap") == 0) {
			if (sample_path == NULL)
				sample_path = argv[i];
			else
				jumbo_path = argv[i];
		} else {
			names[n++] = argv[i];
		}
	}
	names[n] = NULL;
	if (sample_path == NULL || jumbo_path == NULL) {
		fprintf(stderr, "usage: %s SAMPLE.pcap JUMBO.pcap [case...]\n", argv[0]);
		return 1;
	}
	gpu_ok = gpudp_cuda_init() == 0;
	return gpudp_test_run("capture_gpu", cases, n, names);
}

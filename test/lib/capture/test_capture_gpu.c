/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpu suite: the GPU engine (staged copy + lib/analysis/capture.cu) gives
 * exactly the CPU engine's results: counters, flow table, fragment table,
 * filter matches.
 * Usage: test_capture_gpu SAMPLE.pcap JUMBO.pcap FRAG4.pcap FRAG6.pcap [case...]
 * Exits 77 (SKIP) when no GPU is usable.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "gpudp_capfile.h"
#include "gpudp_cap_engine.h"
#include "gpudp_analysis.h"
#include "gpudp_analysis_work.h"
#include "gpudp_cuda.h"
#include "gpudp_test.h"

static const char *sample_path, *jumbo_path, *frag4_path, *frag6_path;
static int gpu_ok;

struct run {
	struct gpudp_analysis *a;
	uint8_t *matched;    /* per packet, in input order */
	size_t next;
	size_t n;
};

static void
on_done(void *arg, const struct gpudp_cap_batch *b)
{
	struct run *r = arg;
	uint32_t i;

	for (i = 0; i < b->n && r->next < r->n; i++)
		r->matched[r->next++] = (uint8_t)gpudp_cap_batch_matched(b, i);
}

/*
 * Engine @p name made from @p ec into @p e, and every packet of @p pk
 * through it, in its batches. @return create's error, submit's, or -EIO
 * (@p e is made unless create failed)
 */
static int
feed(struct gpudp_cap_engine *e, const char *name, const struct gpudp_cap_engine_conf *ec,
     const struct gpudp_capfile_packets *pk)
{
	struct gpudp_cap_batch *b;
	char err[256];
	size_t i;
	int rc = gpudp_cap_engine_create(e, name, ec, err, sizeof(err));

	if (rc != 0) {
		fprintf(stderr, "    %s engine: %s\n", name, err);
		return rc;
	}
	b = gpudp_cap_engine_get_batch(e);
	for (i = 0; i < pk->n && b != NULL; i++) {
		uint8_t *d;

		if (gpudp_cap_engine_room(e, &b, pk->pkt[i].caplen, pk->pkt[i].wirelen,
					  pk->pkt[i].ts_ns, &d) != 0)
			break;
		memcpy(d, pk->pkt[i].data, pk->pkt[i].caplen);
	}
	return b == NULL || i < pk->n ? -EIO : gpudp_cap_engine_submit(e, b);
}

/* Analyse pk with engine `name`; results in r. */
static int
analyse(const char *name, const struct gpudp_capfile_packets *pk, uint32_t batch, uint32_t flows,
	const char *filter, struct run *r)
{
	struct gpudp_cap_engine_conf ec = {
		.batch_pkts = batch, .batch_bytes = 4u << 20, .flow_capacity = flows,
		.gpu_device = 0, .inflight = 3, .done = on_done, .done_arg = r,
	};
	struct gpudp_cap_engine e;
	char err[256];
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
	rc = feed(&e, name, &ec, pk);
	if (e.ops == NULL)
		return rc;
	if (rc == 0)
		rc = gpudp_cap_engine_collect(&e, r->a);
	if (rc != 0)
		fprintf(stderr, "    %s engine: %s\n", name, e.err);
	gpudp_cap_engine_destroy(&e);
	return rc;
}

static void
run_free(struct run *r)
{
	gpudp_analysis_free(r->a);
	free(r->matched);
}

/* 0 when both runs agree on everything: counters, flows, fragments, filter bits. */
static int
compare(const struct run *c, const struct run *g)
{
	char why[128];
	size_t i;
	int bad = 0;

	if (gpudp_analysis_compare(c->a, g->a, why, sizeof(why)) != 0) {
		fprintf(stderr, "    cpu and gpu: %s\n", why);
		bad = 1;
	}
	for (i = 0; i < c->n; i++)
		if (c->matched[i] != g->matched[i]) {
			fprintf(stderr, "    packet %zu: filter cpu %u gpu %u\n", i, c->matched[i],
				g->matched[i]);
			bad = 1;
			break;
		}
	return bad;
}

static int
same_results_on(const char *path, uint32_t batch, const char *filter)
{
	struct gpudp_capfile_packets pk;
	struct run c, g;
	char err[256];
	int rc;

	GPUDP_TEST_SKIP_IF(!gpu_ok, "no GPU: %s", gpudp_cuda_last_error());
	GPUDP_TEST_ASSERT(gpudp_capfile_read_all(path, &pk, err, sizeof(err)) == 0, "%s", err);
	GPUDP_TEST_ASSERT(analyse("cpu", &pk, batch, 4096, filter, &c) == 0, "cpu run");
	GPUDP_TEST_ASSERT(analyse("gpu", &pk, batch, 4096, filter, &g) == 0, "gpu run");
	GPUDP_TEST_ASSERT(c.a->ctr.pkts == pk.n && c.a->ctr.filter_pkts > 0, "cpu saw %llu",
			  (unsigned long long)c.a->ctr.pkts);
	rc = compare(&c, &g);
	run_free(&c);
	run_free(&g);
	gpudp_capfile_packets_free(&pk);
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

/* Fragments in order, out of order, alone; IPv6 atomic fragments: one
 * packet a batch, three, and all in one launch. */
static int
gpu_equals_cpu_on_fragments(void)
{
	static const uint32_t batches[] = { 1, 3, 4096 };
	size_t i;
	int rc;

	for (i = 0; i < sizeof(batches) / sizeof(batches[0]); i++) {
		rc = same_results_on(frag4_path, batches[i], "udp or icmp");
		if (rc != GPUDP_TEST_PASS)
			return rc;
		rc = same_results_on(frag6_path, batches[i], "udp and port 6001");
		if (rc != GPUDP_TEST_PASS)
			return rc;
	}
	return GPUDP_TEST_PASS;
}

/*
 * Many fragments of few datagrams in one launch: concurrent inserts of one
 * fragment table key, and fragments of a datagram in any thread order. Each
 * copy r of the fragment captures gets its own IP identification (r in the
 * high bits of an IPv6 one, r XORed into an IPv4 one), so the datagrams stay
 * apart; the CPU result is checked against the file's, datagram for datagram.
 */
static int
gpu_concurrent_fragments_make_one_datagram_each(void)
{
	struct gpudp_capfile_packets f4, f6, big;
	struct gpudp_frag_summary fs;
	struct run c, g;
	char err[256];
	size_t i, j, k = 0, copies = 2000;
	uint8_t *buf;
	int rc;

	GPUDP_TEST_SKIP_IF(!gpu_ok, "no GPU");
	GPUDP_TEST_ASSERT(gpudp_capfile_read_all(frag4_path, &f4, err, sizeof(err)) == 0, "%s",
			  err);
	GPUDP_TEST_ASSERT(gpudp_capfile_read_all(frag6_path, &f6, err, sizeof(err)) == 0, "%s",
			  err);
	big.n = (f4.n + f6.n) * copies;
	big.pkt = calloc(big.n, sizeof(*big.pkt));
	big.buf = NULL;
	buf = malloc(big.n * 1600);
	GPUDP_TEST_ASSERT(big.pkt != NULL && buf != NULL, "alloc");
	for (j = 0; j < copies; j++)
		for (i = 0; i < f4.n + f6.n; i++) {
			const struct gpudp_capfile_pkt *q = i < f4.n ? &f4.pkt[i] :
							    &f6.pkt[i - f4.n];
			uint8_t *d = buf + k * 1600;

			GPUDP_TEST_ASSERT(q->caplen <= 1600, "frame of %u bytes", q->caplen);
			memcpy(d, q->data, q->caplen);
			if (i < f4.n) {           /* IPv4 identification at 14 + 4 */
				d[18] ^= (uint8_t)(j >> 8);
				d[19] ^= (uint8_t)j;
			} else if (d[20] == 44) { /* IPv6 fragment header at 54: id at 58 */
				d[58] = (uint8_t)(j >> 8);
				d[59] = (uint8_t)j;
			}
			big.pkt[k] = *q;
			big.pkt[k++].data = d;
		}
	/* 131072 flow slots: 32768 fragment slots for 22000 datagrams */
	GPUDP_TEST_ASSERT(analyse("cpu", &big, 65536, 131072, "udp", &c) == 0, "cpu");
	GPUDP_TEST_ASSERT(analyse("gpu", &big, 65536, 131072, "udp", &g) == 0, "gpu");
	gpudp_analysis_fragments(c.a, &fs);
	rc = compare(&c, &g);
	/* 7 IPv4 and 4 IPv6 fragmented datagrams per copy, none merged */
	GPUDP_TEST_ASSERT(fs.datagrams == 11 * copies && fs.complete == 7 * copies &&
			  fs.first_missing == 2 * copies, "datagrams %llu complete %llu",
			  (unsigned long long)fs.datagrams, (unsigned long long)fs.complete);
	run_free(&c);
	run_free(&g);
	free(big.pkt);
	free(buf);
	gpudp_capfile_packets_free(&f4);
	gpudp_capfile_packets_free(&f6);
	GPUDP_TEST_ASSERT(rc == 0, "cpu and gpu differ");
	return GPUDP_TEST_PASS;
}

/* Many packets of few flows in one launch: concurrent inserts of one key. */
static int
gpu_concurrent_inserts_make_one_flow_each(void)
{
	struct gpudp_capfile_packets pk, big;
	struct run c, g;
	char err[256];
	size_t i, j, k = 0;
	int rc;

	GPUDP_TEST_SKIP_IF(!gpu_ok, "no GPU");
	GPUDP_TEST_ASSERT(gpudp_capfile_read_all(sample_path, &pk, err, sizeof(err)) == 0, "%s",
			  err);
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
	gpudp_capfile_packets_free(&pk);
	GPUDP_TEST_ASSERT(rc == 0, "cpu and gpu differ");
	return GPUDP_TEST_PASS;
}

/* An IPv6 frame of @p len bytes whose TCP header follows a hop-by-hop
 * option header of @p units (8-byte units past the first 8) */
static void
frame_v6_ext(uint8_t *f, uint32_t len, uint32_t units, uint32_t id)
{
	uint8_t *ip = f + 14, *e = ip + 40, *t = e + (units + 1) * 8;
	uint32_t i;

	memset(f, 0, len);
	f[12] = 0x86;
	f[13] = 0xdd;
	ip[0] = 0x60;
	ip[4] = (uint8_t)((len - 54) >> 8);
	ip[5] = (uint8_t)(len - 54);
	ip[6] = 0;          /* hop-by-hop options */
	ip[7] = 64;
	ip[8] = 0x20;
	ip[23] = (uint8_t)(id % 37);
	ip[24] = 0x20;
	ip[39] = 1;
	e[0] = 6;           /* then TCP */
	e[1] = (uint8_t)units;
	if (t + 20 > f + len)
		return;     /* cut: the TCP header is not there */
	t[0] = 0x01;
	t[1] = (uint8_t)id;
	t[2] = 0x01;
	t[3] = 0xbb;        /* port 443 */
	t[12] = 0x50;
	for (i = (uint32_t)(t - f) + 20; i < len; i++)
		f[i] = (uint8_t)(i * 7 + id);
}

/*
 * The GPU stages only the analysis's span (GPUDP_AN_SPAN bytes) of each
 * frame: frames whose headers run past it (IPv6 extension headers of 88
 * to 248 bytes) are read whole where they lie, and give what the CPU
 * engine gives; so do frames whose headers run past their captured bytes,
 * and frames of which only the span holds headers.
 */
static int
gpu_headers_past_the_span_equal_cpu(void)
{
	enum { N = 3000, L = 600 };
	struct gpudp_capfile_packets pk;
	struct run c, g;
	uint8_t *buf;
	uint32_t i, past = 0;
	int rc;

	GPUDP_TEST_SKIP_IF(!gpu_ok, "no GPU");
	pk.n = N;
	pk.pkt = calloc(N, sizeof(*pk.pkt));
	buf = malloc((size_t)N * L);
	pk.buf = NULL;
	GPUDP_TEST_ASSERT(pk.pkt != NULL && buf != NULL, "alloc");
	for (i = 0; i < N; i++) {
		uint8_t *f = buf + (size_t)i * L;
		uint32_t units = 10 + i % 21, len = 300 + (i * 13) % (L - 300);

		if (i % 10 == 3)
			len = 54 + (units + 1) * 8 + 7;  /* cut inside the TCP header */
		frame_v6_ext(f, len, i % 5 == 0 ? 0 : units, i);
		pk.pkt[i] = (struct gpudp_capfile_pkt){ .data = f, .caplen = len,
			.wirelen = i % 10 == 3 ? len + 100 : len, .ts_ns = 1000000ull * i };
		past += i % 5 != 0 && 54 + (units + 1) * 8 + 20 > GPUDP_AN_SPAN;
	}
	GPUDP_TEST_ASSERT(analyse("cpu", &pk, 1024, 4096, "tcp and port 443", &c) == 0, "cpu");
	GPUDP_TEST_ASSERT(analyse("gpu", &pk, 1024, 4096, "tcp and port 443", &g) == 0, "gpu");
	GPUDP_TEST_ASSERT(c.a->ctr.filter_pkts > N / 2 &&
			  c.a->ctr.drops[GPUDP_AN_DROP_TRUNCATED] >= N / 10,
			  "cpu: %llu matched, %llu truncated",
			  (unsigned long long)c.a->ctr.filter_pkts,
			  (unsigned long long)c.a->ctr.drops[GPUDP_AN_DROP_TRUNCATED]);
	rc = compare(&c, &g);
	run_free(&c);
	run_free(&g);
	free(pk.pkt);
	free(buf);
	GPUDP_TEST_ASSERT(rc == 0, "cpu and gpu differ");
	printf("    %u frames, %u with headers past the %u-byte span: equal\n", N, past,
	       GPUDP_AN_SPAN);
	return GPUDP_TEST_PASS;
}

/* A table too small: every packet is in a flow or in the flow_table_full drop. */
static int
gpu_full_flow_table_accounts_every_packet(void)
{
	struct gpudp_capfile_packets pk;
	struct gpudp_flow_record *fl;
	struct run c, g;
	char err[256];
	size_t n, i, full = 0;
	uint64_t in_flows = 0, want = 0;

	GPUDP_TEST_SKIP_IF(!gpu_ok, "no GPU");
	GPUDP_TEST_ASSERT(gpudp_capfile_read_all(sample_path, &pk, err, sizeof(err)) == 0, "%s",
			  err);
	/* what a table large enough holds */
	GPUDP_TEST_ASSERT(analyse("cpu", &pk, 4096, 4096, "", &c) == 0, "cpu");
	GPUDP_TEST_ASSERT(gpudp_analysis_flows(c.a, &fl, &n) == 0 && n > 16, "flows %zu", n);
	for (i = 0; i < n; i++)
		want += fl[i].pkts[0] + fl[i].pkts[1];
	free(fl);
	GPUDP_TEST_ASSERT(analyse("gpu", &pk, 4096, 16, "", &g) == 0, "gpu");
	for (i = 0; i < 16; i++)
		full += g.a->flows[i].state == GPUDP_FLOW_READY;
	/* the listing adds the flows that fragmented datagrams resolve to */
	GPUDP_TEST_ASSERT(full == 16 && gpudp_analysis_flows(g.a, &fl, &n) == 0 && n >= 16,
			  "flows %zu, table %zu", n, full);
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
	gpudp_capfile_packets_free(&pk);
	return GPUDP_TEST_PASS;
}

/* ---- the flow monitor: the same records from both engines ---- */

struct recs {
	struct gpudp_flow_rec *r;
	size_t n, cap;
};

static void
on_recs(void *arg, const struct gpudp_flow_rec *r, uint32_t n)
{
	struct recs *rs = arg;

	if (rs->n + n > rs->cap) {
		size_t cap = (rs->n + n) * 2;
		struct gpudp_flow_rec *t = realloc(rs->r, cap * sizeof(*t));

		if (t == NULL)
			return;
		rs->r = t;
		rs->cap = cap;
	}
	memcpy(rs->r + rs->n, r, n * sizeof(*r));
	rs->n += n;
}

static int
cmp_rec(const void *a, const void *b)
{
	return memcmp(a, b, sizeof(struct gpudp_flow_rec));
}

/* pk through engine @p name as a flow monitor; its records, sorted, in @p rs */
static int
monitor_run(const char *name, const struct gpudp_capfile_packets *pk, uint32_t batch,
	    uint32_t flows, const struct gpudp_flow_life *l, struct recs *rs)
{
	struct gpudp_cap_engine_conf ec = {
		.batch_pkts = batch, .batch_bytes = 4u << 20, .flow_capacity = flows,
		.gpu_device = 0, .inflight = 3, .life = l, .flows_out = on_recs, .flows_arg = rs,
	};
	struct gpudp_cap_engine e;
	int rc;

	memset(rs, 0, sizeof(*rs));
	rc = feed(&e, name, &ec, pk);
	if (e.ops == NULL)
		return rc;
	if (rc == 0)
		rc = gpudp_cap_engine_end_flows(&e);
	if (rc != 0)
		fprintf(stderr, "    %s engine: %s\n", name, e.err);
	gpudp_cap_engine_destroy(&e);
	if (rs->n > 0)
		qsort(rs->r, rs->n, sizeof(*rs->r), cmp_rec);
	return rc;
}

/*
 * Every test capture, in batches of 1, 7 and 2048 packets, with timeouts
 * of a millisecond and of an hour, in a table of 16 slots (room made all
 * the time) and of 4096: the GPU engine's records are the CPU engine's.
 * Batches of more than half the table are refused by both.
 */
static int
gpu_flow_records_equal_cpu(void)
{
	static const uint32_t batches[] = { 1, 7, 2048 }, tables[] = { 16, 4096 };
	static const uint64_t timeouts[] = { 1000000ull, 3600000000000ull };
	const char *paths[] = { sample_path, jumbo_path, frag4_path, frag6_path };
	uint32_t f, bi, ti, to;

	GPUDP_TEST_SKIP_IF(!gpu_ok, "no GPU: %s", gpudp_cuda_last_error());
	for (f = 0; f < 4; f++) {
		struct gpudp_capfile_packets pk;
		char err[256];

		GPUDP_TEST_ASSERT(gpudp_capfile_read_all(paths[f], &pk, err, sizeof(err)) == 0,
				  "%s", err);
		for (bi = 0; bi < 3; bi++)
			for (ti = 0; ti < 2; ti++)
				for (to = 0; to < 2; to++) {
					struct gpudp_flow_life l = { .idle_ns = timeouts[to],
						.active_ns = timeouts[to] * 2, .biflow = (int)to };
					struct recs c, g;
					int same;

					if (batches[bi] > tables[ti] / 2) {
						/* no room for a batch of new flows */
						GPUDP_TEST_ASSERT(monitor_run("cpu", &pk, batches[bi],
									      tables[ti], &l, &c) == -EINVAL &&
								  monitor_run("gpu", &pk, batches[bi],
									      tables[ti], &l, &g) == -EINVAL,
								  "batches of %u, %u slots: accepted",
								  batches[bi], tables[ti]);
						continue;
					}
					GPUDP_TEST_ASSERT(monitor_run("cpu", &pk, batches[bi],
								      tables[ti], &l, &c) == 0 &&
							  monitor_run("gpu", &pk, batches[bi],
								      tables[ti], &l, &g) == 0,
							  "%s: runs", paths[f]);
					same = c.n == g.n && c.n > 0 &&
						memcmp(c.r, g.r, c.n * sizeof(*c.r)) == 0;
					free(c.r);
					free(g.r);
					GPUDP_TEST_ASSERT(same, "%s, batches of %u, %u slots, timeout "
							  "%" PRIu64 " ns: %zu records on the CPU, %zu "
							  "on the GPU, or they differ", paths[f],
							  batches[bi], tables[ti], timeouts[to], c.n,
							  g.n);
				}
		gpudp_capfile_packets_free(&pk);
	}
	return GPUDP_TEST_PASS;
}

static const struct gpudp_test_case cases[] = {
	{ "gpu_equals_cpu_on_sample", gpu_equals_cpu_on_sample },
	{ "gpu_equals_cpu_across_many_batches", gpu_equals_cpu_across_many_batches },
	{ "gpu_equals_cpu_on_jumbo_frames", gpu_equals_cpu_on_jumbo_frames },
	{ "gpu_equals_cpu_on_fragments", gpu_equals_cpu_on_fragments },
	{ "gpu_concurrent_fragments_make_one_datagram_each",
	  gpu_concurrent_fragments_make_one_datagram_each },
	{ "gpu_concurrent_inserts_make_one_flow_each", gpu_concurrent_inserts_make_one_flow_each },
	{ "gpu_full_flow_table_accounts_every_packet", gpu_full_flow_table_accounts_every_packet },
	{ "gpu_headers_past_the_span_equal_cpu", gpu_headers_past_the_span_equal_cpu },
	{ "gpu_flow_records_equal_cpu", gpu_flow_records_equal_cpu },
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
			const char **slot = sample_path == NULL ? &sample_path :
					    jumbo_path == NULL ? &jumbo_path :
					    frag4_path == NULL ? &frag4_path : &frag6_path;

			*slot = argv[i];
		} else {
			names[n++] = argv[i];
		}
	}
	names[n] = NULL;
	if (sample_path == NULL || jumbo_path == NULL || frag4_path == NULL || frag6_path == NULL) {
		fprintf(stderr, "usage: %s SAMPLE.pcap JUMBO.pcap FRAG4.pcap FRAG6.pcap "
			"[case...]\n", argv[0]);
		return 1;
	}
	gpu_ok = gpudp_cuda_init() == 0;
	return gpudp_test_run("capture_gpu", cases, n, names);
}

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
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpudp_capfile.h"
#include "gpudp_cap_engine.h"
#include "gpudp_analysis_pkt.h"
#include "gpudp_json.h"
#include "gpudp_cap_reader.h"
#include "report.h"

struct bench_conf {
	const char *input;
	const char *json;
	const char *report;
	const char *filter;
	const char *engines;
	uint32_t repeat;
	uint32_t batch_pkts;
	uint32_t batch_bytes;
	uint32_t flows;
	uint32_t inflight;
	uint32_t vary;
	int gpu;
	struct cap_match match;   /* --match, --match-scope */
	uint32_t threads;         /* --threads: 0, the file in memory; else the direct reader */
	uint64_t generate;        /* --generate N: write N frames to the file, then exit */
	uint32_t frame_size;      /* --frame-size: generated frames of this size (0: 80..128) */
	/* --stage: how the direct reader's records reach the engine */
	enum gpudp_cap_reader_stage stage;
	uint32_t read_bytes;      /* --read-bytes: the direct reader's reads (0: its default) */
	int memory;               /* --memory: the direct reader over a copy of the file in memory */
};


/* Where each packet's IP addresses are, for --vary (0: not IP). */
static uint32_t *addr_off;
static uint8_t *addr_len;
static uint32_t vary_n;

struct bench_result {
	int ran;
	char note[256];
	uint64_t pkts;
	double seconds;
	struct gpudp_cap_engine_stats st;
	/* --threads: the best pass's parts (gpudp_cap_reader.h) */
	double read_s, collect_s, merge_s;
	double register_s;
	enum gpudp_cap_reader_stage stage;
	struct gpudp_cap_reader_stats pass[16];     /* --threads: the first passes (pass 0 first) */
	double warmup_s;                    /* --threads: pass 0's (the first in the process) */
	uint32_t n_pass;
	int in_memory;                      /* --memory: the passes read the copy in memory */
};

static void
usage(FILE *f)
{
	fprintf(f,
		"usage: gpudp-capture-bench [options] FILE.pcap|FILE.pcapng\n"
		"  --engine LIST     engines to run, comma-separated: cpu,gpu (default: cpu,gpu)\n"
		"  --repeat N        passes over the file per engine (default: 20)\n"
		"  --batch N         packets per batch (default: 8192)\n"
		"  --batch-bytes N   data bytes per batch (default: 16777216)\n"
		"  --flows N         flow table slots, power of two (default: 65536)\n"
		"  --inflight N      GPU batches in flight (default: 3)\n"
		"  --gpu N           CUDA device (default: 0)\n"
		"  --vary N          copy r of the file gets its IP addresses' last two bytes\n"
		"                    XORed with r %% N: up to N times the file's flows (default: 0, off)\n"
		"  --filter EXPR     filter evaluated on every packet (default: none)\n"
		"  --match FILE      payload inspection with the patterns of FILE (default: none)\n"
		"  --match-scope S   payload or frame (default: payload)\n"
		"  --threads N       read the file with gpudp-capture's direct reader (N host\n"
		"                    threads with an engine each); each pass is a whole run,\n"
		"                    the best of --repeat is reported (default: 0, the file\n"
		"                    in memory fed by one thread)\n"
		"  --stage S         --threads: how records reach the engine: auto, copy,\n"
		"                    gather or read (doc/capture.md, \"Direct reading\";\n"
		"                    default: auto)\n"
		"  --read-bytes N    --threads: bytes a thread reads at once into a batch\n"
		"                    (4096..67108864; default: 262144)\n"
		"  --memory          --threads: read the file into memory first (registered\n"
		"                    with the GPU for the GPU engine, outside the timed passes);\n"
		"                    each thread describes its records where they are there,\n"
		"                    nothing is read or copied during a pass (pcap files)\n"
		"  --generate N      write N synthetic frames (80..128 bytes, IPv4 and IPv6, TCP\n"
		"                    and UDP, 65536 flows) to FILE as pcap, then exit\n"
		"  --frame-size S    --generate: frames of S bytes (80..9000) with random\n"
		"                    payloads (default: 0, 80..128 bytes)\n"
		"  --json FILE       benchmark result as JSON (default: stdout only)\n"
		"  --report FILE     gpudp-capture JSON report of one pass of the last engine\n"
		"  --help            this text\n");
}

static int
parse_u32(const char *opt, const char *v, uint32_t min, uint32_t max, uint32_t *out)
{
	char *e;
	unsigned long x;

	errno = 0;
	x = strtoul(v, &e, 0);
	if (errno != 0 || *e != '\0' || v[0] == '-' || x < min || x > max) {
		fprintf(stderr, "gpudp-capture-bench: --%s: bad value '%s' (expected %u..%u)\n",
			opt, v, min, max);
		return -1;
	}
	*out = (uint32_t)x;
	return 0;
}

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
			.match_flags = bc->match.flags },
		.stage = bc->stage, .read_bytes = bc->read_bytes,
		.mem = m != NULL ? m->buf : NULL, .mem_len = m != NULL ? m->len : 0,
	};
	struct gpudp_cap_reader_stats st;
	uint32_t r;
	int rc = 0;

	/* pass 0 warms up: the file into the page cache, the GPU's modules */
	for (r = 0; r <= bc->repeat && rc == 0; r++) {
		struct gpudp_analysis *a = gpudp_analysis_create(bc->flows, filter);

		rc = a == NULL ? -ENOMEM : gpudp_analysis_set_match(a, bc->match.db,
								    bc->match.flags);
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
	};
	struct gpudp_cap_engine e;
	double t0;
	int rc;

	rc = gpudp_cap_engine_create(&e, name, &ec, res->note, sizeof(res->note));
	if (rc != 0)
		return rc;
	if (write_report) {
		/* one pass for the report, from a fresh engine */
		struct gpudp_analysis *a = gpudp_analysis_create(bc->flows, filter);
		struct cap_report rep = {
			.input = bc->input, .engine = name, .eng = &e.st, .final = 1,
			.expected_pkts = pk->n, .filter_expr = bc->filter, .top_n = 10,
			.match = &bc->match,
		};

		rc = a == NULL ? -ENOMEM : gpudp_analysis_set_match(a, bc->match.db,
								    bc->match.flags);
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

/* --threads: where each pass's time went, the warm-up first */
static void
print_parts(struct gpudp_json *j, const struct bench_result *r)
{
	uint32_t i;

	gpudp_json_arr(j, "pass_parts");
	for (i = 0; i < r->n_pass; i++) {
		const struct gpudp_cap_reader_stats *p = &r->pass[i];

		gpudp_json_obj(j, NULL);
		gpudp_json_dbl(j, "seconds", p->seconds, 6);
		gpudp_json_dbl(j, "staged_s", p->staged_s, 6);
		gpudp_json_dbl(j, "flushed_s", p->flushed_s, 6);
		gpudp_json_dbl(j, "read_s", p->read_s, 6);
		gpudp_json_dbl(j, "collect_s", p->collect_s, 6);
		gpudp_json_dbl(j, "merge_s", p->merge_s, 6);
		gpudp_json_dbl(j, "kernel_ms", p->eng.kernel_ms, 3);
		gpudp_json_dbl(j, "busy_ms", p->eng.busy_ms, 3);
		gpudp_json_dbl(j, "wait_ms", p->eng.wait_ms, 3);
		gpudp_json_dbl(j, "submit_ms", p->eng.submit_ms, 3);
		gpudp_json_bool(j, "ranges", p->ranges);
		gpudp_json_end(j);
	}
	gpudp_json_end(j);
}

static void
print_result(struct gpudp_json *j, const char *name, const struct bench_result *r)
{
	uint32_t i;

	gpudp_json_obj(j, name);
	gpudp_json_bool(j, "ran", r->ran);
	if (!r->ran) {
		gpudp_json_str(j, "note", r->note);
		gpudp_json_end(j);
		return;
	}
	gpudp_json_str(j, "device", r->st.device);
	gpudp_json_u64(j, "packets", r->pkts);
	gpudp_json_dbl(j, "seconds", r->seconds, 6);
	gpudp_json_dbl(j, "packets_per_s", r->seconds > 0 ? r->pkts / r->seconds : 0, 1);
	gpudp_json_u64(j, "batches", r->st.batches);
	gpudp_json_dbl(j, "busy_ms", r->st.busy_ms, 3);
	gpudp_json_dbl(j, "kernel_ms", r->st.kernel_ms, 3);
	gpudp_json_dbl(j, "wait_ms", r->st.wait_ms, 3);
	gpudp_json_dbl(j, "submit_ms", r->st.submit_ms, 3);
	gpudp_json_u64(j, "copy_bytes", r->st.copy_bytes);
	gpudp_json_dbl(j, "kernel_packets_per_s", r->st.kernel_ms > 0 ?
		       r->pkts / (r->st.kernel_ms / 1e3) : 0, 1);
	if (r->read_s > 0) {
		gpudp_json_dbl(j, "read_s", r->read_s, 6);
		gpudp_json_dbl(j, "collect_s", r->collect_s, 6);
		gpudp_json_dbl(j, "merge_s", r->merge_s, 6);
		gpudp_json_dbl(j, "register_s", r->register_s, 6);
		gpudp_json_str(j, "stage", gpudp_cap_reader_stage_name(r->stage));
		gpudp_json_bool(j, "in_memory", r->in_memory);
		gpudp_json_dbl(j, "warmup_s", r->warmup_s, 6);
		gpudp_json_arr(j, "passes_s");   /* after the warm-up */
		for (i = 1; i < r->n_pass; i++)
			gpudp_json_dbl(j, NULL, r->pass[i].seconds, 6);
		gpudp_json_end(j);
		print_parts(j, r);
	}
	gpudp_json_end(j);
}

/* The result: to --json FILE, else stdout. @return 0 or -1 */
static int
write_result(const struct bench_conf *bc, const struct gpudp_capfile_packets *pk,
	     const struct bench_result *cpu, const struct bench_result *gpu,
	     const struct gpudp_cap_reader_mem *m)
{
	struct gpudp_json j;
	int rc;

	if (bc->json == NULL)
		gpudp_json_init(&j, stdout);
	else if (gpudp_json_open(&j, bc->json) != 0) {
		fprintf(stderr, "gpudp-capture-bench: --json: cannot create '%s': %s\n",
			bc->json, strerror(-j.err));
		return -1;
	}
	gpudp_json_obj(&j, NULL);
	gpudp_json_str(&j, "input", bc->input);
	gpudp_json_u64(&j, "packets_per_pass", pk->n);
	gpudp_json_u64(&j, "bytes_per_pass", pk->data_bytes);
	gpudp_json_u64(&j, "repeat", bc->repeat);
	gpudp_json_u64(&j, "vary", bc->vary);
	gpudp_json_u64(&j, "batch", bc->batch_pkts);
	if (m != NULL) {   /* --memory: before the passes, not in their times */
		gpudp_json_obj(&j, "memory");
		gpudp_json_dbl(&j, "load_s", m->load_s, 6);
		gpudp_json_dbl(&j, "register_s", m->register_s, 6);
		gpudp_json_end(&j);
	}
	print_result(&j, "cpu", cpu);
	print_result(&j, "gpu", gpu);
	if (cpu->ran && gpu->ran && cpu->seconds > 0 && gpu->seconds > 0)
		gpudp_json_dbl(&j, "gpu_speedup", cpu->seconds / gpu->seconds *
			       ((double)gpu->pkts / (cpu->pkts ? cpu->pkts : 1)), 3);
	else
		gpudp_json_null(&j, "gpu_speedup");
	gpudp_json_end(&j);
	rc = gpudp_json_close(&j);
	if (rc != 0)
		fprintf(stderr, "gpudp-capture-bench: --json %s: %s\n",
			bc->json ? bc->json : "(stdout)", strerror(-rc));
	return rc != 0 ? -1 : 0;
}

/* --generate: one synthetic frame of flow f (xorshift state *x) at @p b; its length */
static uint32_t
gen_frame(uint8_t *b, uint32_t f, uint64_t *x, uint32_t size)
{
	int v6 = (f & 3) == 3, tcp = (f % 5) < 3;
	uint32_t l3 = v6 ? 40 : 20, l4 = tcp ? 20 : 8, len, pay;

	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	len = size != 0 ? size : 80 + (uint32_t)(*x % 49);
	pay = len - 14 - l3 - l4;
	memset(b, 0, len);
	for (uint32_t k = 14 + l3 + l4; size != 0 && k + 8 <= len; k += 8) {
		*x ^= *x << 13;
		*x ^= *x >> 7;
		*x ^= *x << 17;
		memcpy(b + k, x, 8);
	}
	memcpy(b, "\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01", 12);
	b[12] = v6 ? 0x86 : 0x08;
	b[13] = v6 ? 0xdd : 0x00;
	if (v6) {
		b[14] = 0x60;
		b[18] = (uint8_t)((l4 + pay) >> 8);
		b[19] = (uint8_t)(l4 + pay);
		b[20] = tcp ? 6 : 17;
		b[21] = 64;
		b[22] = 0xfd;
		b[37] = (uint8_t)(f >> 8);
		b[38] = 0xfd;
		b[53] = (uint8_t)f;
	} else {
		b[14] = 0x45;
		b[16] = (uint8_t)((l3 + l4 + pay) >> 8);
		b[17] = (uint8_t)(l3 + l4 + pay);
		b[22] = 64;
		b[23] = tcp ? 6 : 17;
		b[26] = 10;
		b[28] = (uint8_t)(f >> 8);
		b[29] = (uint8_t)f;
		b[30] = 10;
		b[31] = 200;
	}
	b += 14 + l3;
	b[0] = (uint8_t)((1024 + f % 4096) >> 8);
	b[1] = (uint8_t)(1024 + f % 4096);
	b[2] = (uint8_t)((80 + f % 7) >> 8);
	b[3] = (uint8_t)(80 + f % 7);
	if (tcp)
		b[12] = 0x50;
	else
		b[5] = (uint8_t)(l4 + pay);
	return len;
}

/* --generate N: N frames to @p path as pcap (nanosecond timestamps). */
static int
generate(const char *path, uint64_t n, uint32_t size)
{
	static const uint32_t fh[6] = { 0xa1b23c4d, 0x00040002, 0, 0, 262144, 1 };
	FILE *f = fopen(path, "wb");
	uint64_t i, x = 88172645463325252ull, ts = 1795305973000000000ull;
	static uint8_t rec[16 + 9000];

	if (f == NULL) {
		fprintf(stderr, "gpudp-capture-bench: --generate: cannot create '%s': %s\n", path,
			strerror(errno));
		return 1;
	}
	setvbuf(f, NULL, _IOFBF, 1 << 22);
	fwrite(fh, sizeof(fh), 1, f);
	for (i = 0; i < n; i++, ts += 100) {
		uint32_t len = gen_frame(rec + 16, (uint32_t)(i * 2654435761u % 65536), &x, size);
		uint32_t h[4] = { (uint32_t)(ts / 1000000000), (uint32_t)(ts % 1000000000), len,
				  len };

		memcpy(rec, h, sizeof(h));
		fwrite(rec, 16 + len, 1, f);
	}
	if (fclose(f) != 0) {
		fprintf(stderr, "gpudp-capture-bench: --generate: write error on '%s'\n", path);
		return 1;
	}
	printf("%s: %llu frames\n", path, (unsigned long long)n);
	return 0;
}

/* The options into @p bc. @return -1 to go on, else the exit code */
static int
parse_args(struct bench_conf *out, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "engine", required_argument, NULL, 'e' },
		{ "repeat", required_argument, NULL, 'r' },
		{ "batch", required_argument, NULL, 'b' },
		{ "batch-bytes", required_argument, NULL, 'B' },
		{ "flows", required_argument, NULL, 'f' },
		{ "inflight", required_argument, NULL, 'i' },
		{ "gpu", required_argument, NULL, 'g' },
		{ "vary", required_argument, NULL, 'v' },
		{ "filter", required_argument, NULL, 'F' },
		{ "json", required_argument, NULL, 'j' },
		{ "report", required_argument, NULL, 'R' },
		{ "match", required_argument, NULL, 'm' },
		{ "match-scope", required_argument, NULL, 'S' },
		{ "threads", required_argument, NULL, 't' },
		{ "generate", required_argument, NULL, 'G' },
		{ "frame-size", required_argument, NULL, 'z' },
		{ "read-bytes", required_argument, NULL, 'Y' },
		{ "stage", required_argument, NULL, 'T' },
		{ "memory", no_argument, NULL, 'M' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct bench_conf bc = *out;
	uint32_t gdev = 0, gen = 0;
	int c;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'e': bc.engines = optarg; break;
		case 'r': if (parse_u32("repeat", optarg, 1, 1000000, &bc.repeat)) return 2; break;
		case 'b': if (parse_u32("batch", optarg, 1, 1u << 20, &bc.batch_pkts)) return 2; break;
		case 'B': if (parse_u32("batch-bytes", optarg, 65536, 1u << 30, &bc.batch_bytes))
				return 2;
			break;
		case 'f': if (parse_u32("flows", optarg, 16, GPUDP_AN_MAX_FLOWS, &bc.flows)) return 2;
			if (gpudp_analysis_capacity(bc.flows) != bc.flows) {
				fprintf(stderr, "gpudp-capture-bench: --flows: bad value '%s' "
					"(a power of two)\n", optarg);
				return 2;
			}
			break;
		case 'i': if (parse_u32("inflight", optarg, 1, 16, &bc.inflight)) return 2; break;
		case 'g': if (parse_u32("gpu", optarg, 0, 64, &gdev)) return 2; break;
		case 'v': if (parse_u32("vary", optarg, 0, 65536, &bc.vary)) return 2; break;
		case 'F': bc.filter = optarg; break;
		case 'j': bc.json = optarg; break;
		case 'R': bc.report = optarg; break;
		case 'm': bc.match.file = optarg; break;
		case 't': if (parse_u32("threads", optarg, 1, GPUDP_CAP_READER_THREADS_MAX,
					&bc.threads))
				return 2;
			break;
		case 'G': if (parse_u32("generate", optarg, 1, 4000000000u, &gen)) return 2;
			bc.generate = gen;
			break;
		case 'z': if (parse_u32("frame-size", optarg, 80, 9000, &bc.frame_size)) return 2;
			break;
		case 'Y': if (parse_u32("read-bytes", optarg, 4096, 64u << 20, &bc.read_bytes))
				return 2;
			break;
		case 'S': if (cap_match_scope("gpudp-capture-bench", optarg, &bc.match)) return 2;
			break;
		case 'T': if (gpudp_cap_reader_stage_parse(optarg, &bc.stage) != 0) {
				fprintf(stderr, "gpudp-capture-bench: --stage: bad value '%s' "
					"(auto, copy, gather or read)\n", optarg);
				return 2;
			}
			break;
		case 'M': bc.memory = 1; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	bc.gpu = (int)gdev;
	if (optind != argc - 1) {
		fprintf(stderr, "gpudp-capture-bench: expected one capture file\n");
		usage(stderr);
		return 2;
	}
	bc.input = argv[optind];
	if (bc.memory && bc.threads == 0) {
		fprintf(stderr, "gpudp-capture-bench: --memory needs --threads\n");
		return 2;
	}
	if (strstr(bc.engines, "cpu") == NULL && strstr(bc.engines, "gpu") == NULL) {
		fprintf(stderr, "gpudp-capture-bench: --engine: bad value '%s' (cpu, gpu or "
			"cpu,gpu)\n", bc.engines);
		return 2;
	}
	*out = bc;
	return -1;
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
		return 1;
	}
	if (want_cpu)
		run_direct(bc, "cpu", filter, &cpu, &pk, bc->memory ? &m : NULL);
	if (want_gpu && (!bc->memory || gpudp_cap_reader_mem_register(&m, bc->gpu, gpu.note,
									 sizeof(gpu.note)) == 0))
		run_direct(bc, "gpu", filter, &gpu, &pk, bc->memory ? &m : NULL);
	if (write_result(bc, &pk, &cpu, &gpu, bc->memory ? &m : NULL) != 0)
		rc = 1;
	gpudp_cap_reader_mem_free(&m);
	if (want_gpu && !gpu.ran)
		fprintf(stderr, "gpudp-capture-bench: GPU engine not run: %s\n", gpu.note);
	if (want_cpu && !cpu.ran)
		fprintf(stderr, "gpudp-capture-bench: CPU engine failed: %s\n", cpu.note);
	cap_match_free(&bc->match);
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

	rc = parse_args(&bc, argc, argv);
	if (rc >= 0)
		return rc;
	if (bc.generate != 0)
		return generate(bc.input, bc.generate, bc.frame_size);
	want_cpu = strstr(bc.engines, "cpu") != NULL;
	want_gpu = strstr(bc.engines, "gpu") != NULL;
	if (cap_match_prepare("gpudp-capture-bench", &bc.match, bc.filter, &filter) != 0)
		return 2;
	if (bc.threads != 0)
		return bench_direct(&bc, &filter, want_cpu, want_gpu);
	rc = gpudp_capfile_read_all(bc.input, &pk, err, sizeof(err));
	if (rc != 0) {
		fprintf(stderr, "gpudp-capture-bench: %s\n", err);
		cap_match_free(&bc.match);
		return 1;
	}
	if (prepare_vary(&pk, bc.vary) != 0) {
		fprintf(stderr, "gpudp-capture-bench: out of memory\n");
		cap_match_free(&bc.match);
		return 1;
	}
	if (want_cpu)
		run_engine(&bc, "cpu", &pk, &filter, &cpu, bc.report != NULL && !want_gpu);
	if (want_gpu)
		run_engine(&bc, "gpu", &pk, &filter, &gpu, bc.report != NULL);
	if (write_result(&bc, &pk, &cpu, &gpu, NULL) != 0) {
		cap_match_free(&bc.match);
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
	gpudp_capfile_packets_free(&pk);
	free(addr_off);
	free(addr_len);
	if ((want_cpu && !cpu.ran) || (want_gpu && !gpu.ran))
		return want_gpu && !gpu.ran && (!want_cpu || cpu.ran) ? 77 : 1;
	return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/match against Hyperscan (the reference, libhyperscan-dev, tests
 * only): the same literal patterns over the same buffers give the same
 * per-pattern occurrence and buffer counts. Buffers: every frame of the
 * sample captures (args: the pcap files), and generated payloads with
 * planted occurrences of 20,000 patterns.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpudp_match.h>
#include <gpudp_test.h>
#include <gpudp_test_hs.h>
#include <gpudp_test_match.h>

/* Hyperscan and gpudp_match over the same buffers */
struct run {
	const struct gpudp_match_pattern *p;
	uint32_t n;
	struct gpudp_match_db *db;
	struct gpudp_test_hs r;
	uint64_t *occ, *pkts;
};

static int
run_open(struct run *x, const struct gpudp_match_pattern *p, uint32_t n)
{
	char err[200] = "";
	int ok;

	memset(x, 0, sizeof(*x));
	x->p = p;
	x->n = n;
	ok = gpudp_test_hs_open(&x->r, p, n, err, sizeof(err)) == 0;
	if (!ok)
		fprintf(stderr, "    hyperscan: %s\n", err);
	x->db = gpudp_match_compile(p, n, err, sizeof(err));
	if (x->db == NULL)
		fprintf(stderr, "    gpudp_match_compile: %s\n", err);
	x->occ = calloc(n, 8);
	x->pkts = calloc(n, 8);
	return ok && x->db != NULL && x->occ && x->pkts ? 0 : -1;
}

static int
run_buf(struct run *x, const uint8_t *d, uint32_t len)
{
	gpudp_match_scan(x->db, d, len, x->occ, x->pkts);
	return gpudp_test_hs_scan(&x->r, d, len);
}

/* the first pattern whose counts differ, or -1; *matched: patterns seen */
static int64_t
run_diff(const struct run *x, uint32_t *matched)
{
	uint32_t i;

	*matched = 0;
	for (i = 0; i < x->n; i++) {
		if (x->occ[i] != x->r.occ[i] || x->pkts[i] != x->r.pkts[i])
			return i;
		*matched += x->pkts[i] != 0;
	}
	return -1;
}

static void
run_close(struct run *x)
{
	gpudp_test_hs_close(&x->r);
	free(x->db);
	free(x->occ);
	free(x->pkts);
}

static int n_files;
static char **files;

/* protocol strings that occur in the sample captures, some case-insensitive */
static const struct {
	const char *name, *bytes;
	uint32_t flags;
} proto_pats[] = {
	{ "http_get", "GET /", 0 }, { "http_ok", "HTTP/1.0 200", 0 },
	{ "host", "host:", GPUDP_MATCH_NOCASE }, { "server", "server:", GPUDP_MATCH_NOCASE },
	{ "html", "<html", GPUDP_MATCH_NOCASE }, { "python", "Python", 0 },
	{ "curl", "curl/", 0 }, { "example", "example", GPUDP_MATCH_NOCASE },
	{ "zeros4", "\0\0\0\0", 0 }, { "a", "a", 0 }, { "ab", "ab", GPUDP_MATCH_NOCASE },
	{ "ping", "\x08\x09\x0a\x0b", 0 }, { "space2", "  ", 0 }, { "crlf", "\r\n", 0 },
};

static int
sample_captures_count_as_hyperscan(void)
{
	enum { NP = sizeof(proto_pats) / sizeof(proto_pats[0]) };
	struct gpudp_match_pattern p[NP];
	uint32_t i, frames = 0, matched;
	struct run x;
	int f;
	int64_t bad;

	memset(p, 0, sizeof(p));
	for (i = 0; i < NP; i++) {
		snprintf(p[i].name, sizeof(p[i].name), "%s", proto_pats[i].name);
		p[i].len = proto_pats[i].bytes[0] == '\0' ? 4 : (uint32_t)strlen(proto_pats[i].bytes);
		memcpy(p[i].bytes, proto_pats[i].bytes, p[i].len);
		p[i].flags = proto_pats[i].flags;
	}
	GPUDP_TEST_ASSERT(run_open(&x, p, NP) == 0, "compile");
	for (f = 0; f < n_files; f++) {
		FILE *fp = fopen(files[f], "rb");
		uint8_t hdr[24], rec[16], *buf = malloc(1 << 18);

		GPUDP_TEST_ASSERT(fp != NULL && buf != NULL, "%s", files[f]);
		GPUDP_TEST_ASSERT(fread(hdr, 1, 24, fp) == 24 && hdr[0] == 0xd4 && hdr[1] == 0xc3,
				  "%s: not a little-endian pcap", files[f]);
		while (fread(rec, 1, 16, fp) == 16) {
			uint32_t cl = rec[8] | rec[9] << 8 | rec[10] << 16 | (uint32_t)rec[11] << 24;

			GPUDP_TEST_ASSERT(cl <= (1u << 18) && fread(buf, 1, cl, fp) == cl,
					  "%s: record %u", files[f], frames);
			GPUDP_TEST_ASSERT(run_buf(&x, buf, cl) == 0, "hs_scan");
			frames++;
		}
		fclose(fp);
		free(buf);
	}
	bad = run_diff(&x, &matched);
	GPUDP_TEST_ASSERT(bad < 0, "pattern %s: occurrences %lu (hyperscan %lu), frames %lu "
			  "(hyperscan %lu)", p[bad].name, (unsigned long)x.occ[bad],
			  (unsigned long)x.r.occ[bad], (unsigned long)x.pkts[bad],
			  (unsigned long)x.r.pkts[bad]);
	GPUDP_TEST_ASSERT(frames > 200 && matched >= NP / 2, "%u frames, %u patterns seen",
			  frames, matched);
	printf("    %d captures, %u frames, %u patterns: %u seen, every count equal to "
	       "Hyperscan's\n", n_files, frames, (unsigned int)NP, matched);
	run_close(&x);
	return GPUDP_TEST_PASS;
}

static uint32_t seed = 2026;

static uint32_t
rnd(void)
{
	return gpudp_test_rnd(&seed);
}

static int
twenty_thousand_patterns_count_as_hyperscan(void)
{
	enum { NP = 20000, BUFS = 2000, LEN = 1500 };
	struct gpudp_match_pattern *p = gpudp_test_match_patterns(NP, &seed);
	uint8_t *buf = malloc(LEN);
	uint32_t i, b, k, matched, planted = 0;
	struct run x;
	int64_t bad;

	GPUDP_TEST_ASSERT(p != NULL && buf != NULL, "malloc");
	GPUDP_TEST_ASSERT(run_open(&x, p, NP) == 0, "compile");
	for (b = 0; b < BUFS; b++) {
		uint32_t len = 64 + rnd() % (LEN - 64), plant = rnd() % 12;

		for (i = 0; i < len; i++)
			buf[i] = (uint8_t)rnd();
		/* some patterns, some of them twice, some case-flipped */
		for (k = 0; k < plant; k++) {
			const struct gpudp_match_pattern *q = &p[rnd() % (k % 3 == 0 ? 50 : NP)];
			uint32_t at = rnd() % (len - q->len), j;

			for (j = 0; j < q->len; j++)
				buf[at + j] = (q->flags & GPUDP_MATCH_NOCASE) && rnd() % 2 &&
					      q->bytes[j] >= 'a' && q->bytes[j] <= 'z' ?
					      (uint8_t)(q->bytes[j] - 32) : q->bytes[j];
			planted++;
		}
		GPUDP_TEST_ASSERT(run_buf(&x, buf, len) == 0, "hs_scan");
	}
	bad = run_diff(&x, &matched);
	GPUDP_TEST_ASSERT(bad < 0, "pattern %ld: occurrences %lu (hyperscan %lu), buffers %lu "
			  "(hyperscan %lu)", (long)bad, (unsigned long)x.occ[bad],
			  (unsigned long)x.r.occ[bad], (unsigned long)x.pkts[bad],
			  (unsigned long)x.r.pkts[bad]);
	GPUDP_TEST_ASSERT(matched > 1000, "%u patterns seen", matched);
	printf("    %u patterns (%u + %u automaton states, %.1f MB), %u buffers, %u planted: "
	       "%u patterns seen, every count equal to Hyperscan's\n", (unsigned int)NP,
	       x.db->n_states[0], x.db->n_states[1], x.db->size / 1e6, (unsigned int)BUFS,
	       planted, matched);
	run_close(&x);
	free(p);
	free(buf);
	return GPUDP_TEST_PASS;
}

static const struct gpudp_test_case cases[] = {
	{ "sample_captures_count_as_hyperscan", sample_captures_count_as_hyperscan },
	{ "twenty_thousand_patterns_count_as_hyperscan",
	  twenty_thousand_patterns_count_as_hyperscan },
	{ NULL, NULL },
};

int
main(int argc, char **argv)
{
	n_files = argc - 1;
	files = argv + 1;
	return gpudp_test_run("match_hyperscan", cases, 1, argv);
}

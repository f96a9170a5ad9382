/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Hyperscan as the reference matcher of lib/match (libhyperscan-dev,
 * pkg-config 'libhs'; tests and benchmarks only): gpudp_match patterns
 * compiled as Hyperscan literals (hs_compile_lit_multi, HS_FLAG_CASELESS
 * for nocase, the pattern's index as its id), and buffers scanned in block
 * mode into per-pattern counts: occurrences (every end position Hyperscan
 * reports, overlapping ones included) and buffers with at least one.
 * Used by test/lib/match's test_match_hs and by the capture reference
 * hs-capture-ref (test/app/gpudp-capture/match).
 */
#ifndef GPUDP_TEST_HS_H
#define GPUDP_TEST_HS_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hs/hs.h>

#include <gpudp_match.h>

/** A compiled pattern set and its counts. */
struct gpudp_test_hs {
	uint32_t n;              /**< patterns */
	hs_database_t *db;
	hs_scratch_t *scratch;
	uint64_t *occ;           /**< per pattern: occurrences */
	uint64_t *pkts;          /**< per pattern: buffers where it occurs */
	uint32_t *last;          /**< per pattern: the buffer that last counted it, + 1 */
	uint32_t buf;            /**< buffers scanned (the current one, + 1) */
	uint64_t buf_occ;        /**< occurrences in the last buffer scanned */
	uint64_t total_occ;      /**< occurrences in every buffer */
	uint64_t matched;        /**< buffers with at least one occurrence */
};

/* hs_scan's match callback: count, never stop */
static inline int
gpudp_test_hs_on_match(unsigned int id, unsigned long long from, unsigned long long to,
		       unsigned int flags, void *ctx)
{
	struct gpudp_test_hs *h = ctx;

	(void)from;
	(void)to;
	(void)flags;
	h->occ[id]++;
	h->buf_occ++;
	if (h->last[id] != h->buf) {
		h->last[id] = h->buf;
		h->pkts[id]++;
	}
	return 0;
}

/** Release what gpudp_test_hs_open() allocated (also after it failed). */
static inline void
gpudp_test_hs_close(struct gpudp_test_hs *h)
{
	hs_free_scratch(h->scratch);
	hs_free_database(h->db);
	free(h->occ);
	free(h->pkts);
	free(h->last);
	memset(h, 0, sizeof(*h));
}

/**
 * Compile @p n patterns (n >= 1) for Hyperscan's block mode, counts zeroed.
 * @return 0, or -1 with @p err set (Hyperscan's message, or out of memory)
 */
static inline int
gpudp_test_hs_open(struct gpudp_test_hs *h, const struct gpudp_match_pattern *p, uint32_t n,
		   char *err, size_t err_len)
{
	const char **expr = calloc(n, sizeof(*expr));
	unsigned int *flags = calloc(n, sizeof(*flags)), *ids = calloc(n, sizeof(*ids));
	size_t *lens = calloc(n, sizeof(*lens));
	hs_compile_error_t *cerr = NULL;
	uint32_t i;
	int rc = -1;

	memset(h, 0, sizeof(*h));
	h->n = n;
	h->occ = calloc(n, sizeof(*h->occ));
	h->pkts = calloc(n, sizeof(*h->pkts));
	h->last = calloc(n, sizeof(*h->last));
	if (expr == NULL || flags == NULL || ids == NULL || lens == NULL || h->occ == NULL ||
	    h->pkts == NULL || h->last == NULL) {
		snprintf(err, err_len, "out of memory");
		goto out;
	}
	for (i = 0; i < n; i++) {
		expr[i] = (const char *)p[i].bytes;
		lens[i] = p[i].len;
		ids[i] = i;
		flags[i] = (p[i].flags & GPUDP_MATCH_NOCASE) ? HS_FLAG_CASELESS : 0;
	}
	if (hs_compile_lit_multi(expr, flags, ids, lens, n, HS_MODE_BLOCK, NULL, &h->db,
				 &cerr) != HS_SUCCESS) {
		snprintf(err, err_len, "hs_compile_lit_multi: %s",
			 cerr != NULL ? cerr->message : "failed");
		goto out;
	}
	if (hs_alloc_scratch(h->db, &h->scratch) != HS_SUCCESS) {
		snprintf(err, err_len, "hs_alloc_scratch failed");
		goto out;
	}
	rc = 0;
out:
	hs_free_compile_error(cerr);
	free(expr);
	free(flags);
	free(ids);
	free(lens);
	if (rc != 0)
		gpudp_test_hs_close(h);
	return rc;
}

/**
 * Scan one buffer and add its counts (h->buf_occ: its occurrences).
 * @return 0, or -1 when hs_scan fails
 */
static inline int
gpudp_test_hs_scan(struct gpudp_test_hs *h, const uint8_t *d, uint32_t len)
{
	static const char empty[1];

	h->buf++;
	h->buf_occ = 0;
	if (hs_scan(h->db, d != NULL ? (const char *)d : empty, len, 0, h->scratch,
		    gpudp_test_hs_on_match, h) != HS_SUCCESS)
		return -1;
	h->total_occ += h->buf_occ;
	h->matched += h->buf_occ != 0;
	return 0;
}

#endif /* GPUDP_TEST_HS_H */

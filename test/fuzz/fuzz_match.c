/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the pattern file parser and the database compiler
 * (lib/match/gpudp_match.c). The input is a pattern file. A refused one
 * must say why; an accepted one is checked (every pattern 1..255 bytes
 * with a name), compiled, and its database scanned over the input itself,
 * where every pattern's occurrences are counted again by plain compares.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpudp_match.h"
#include "gpudp_test_match.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "fuzz_match: %s\n", #c); abort(); } } while (0)

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gpudp_match_pattern *p = NULL;
	struct gpudp_match_db *db;
	uint64_t *occ, *pk, *ref_occ, *ref_pk;
	uint32_t n = 0, i;
	char err[256] = "";
	int ret = gpudp_match_parse((const char *)data, size, &p, &n, err, sizeof(err));

	if (ret != 0) {
		CHECK(p == NULL && n == 0 && err[0] != '\0');
		return 0;
	}
	if (n == 0) {
		free(p);
		return 0;
	}
	for (i = 0; i < n; i++)
		CHECK(p[i].len >= 1 && p[i].len <= GPUDP_MATCH_LEN_MAX && p[i].name[0] != '\0');
	db = gpudp_match_compile(p, n, err, sizeof(err));
	CHECK(db != NULL && db->n_patterns == n);
	occ = calloc(n, sizeof(*occ));
	pk = calloc(n, sizeof(*pk));
	CHECK(occ != NULL && pk != NULL);
	gpudp_match_scan(db, data, (uint32_t)size, occ, pk);
	ref_occ = calloc(n, sizeof(*ref_occ));
	ref_pk = calloc(n, sizeof(*ref_pk));
	CHECK(ref_occ != NULL && ref_pk != NULL);
	gpudp_test_match_naive(p, n, data, size, ref_occ, ref_pk);
	for (i = 0; i < n; i++)
		CHECK(occ[i] == ref_occ[i] && pk[i] == ref_pk[i]);
	free(ref_occ);
	free(ref_pk);
	free(occ);
	free(pk);
	free(db);
	free(p);
	return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What lib/match's tests share (test/lib/match, test/fuzz): a seeded
 * generator of patterns and the plain reference matcher.
 */
#ifndef GPUDP_TEST_MATCH_H
#define GPUDP_TEST_MATCH_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <gpudp_match.h>

/** The next value of a seeded linear congruential generator (24 bits). */
static inline uint32_t
gpudp_test_rnd(uint32_t *state)
{
	*state = *state * 1103515245u + 12345u;
	return *state >> 8;
}

/**
 * @p np patterns named g0.., of 4..12 bytes of a 17-letter alphabet (so
 * that they share prefixes and nest), a quarter of them nocase.
 * @return the array (free() it), or NULL
 */
static inline struct gpudp_match_pattern *
gpudp_test_match_patterns(uint32_t np, uint32_t *state)
{
	static const char alpha[] = "etaoinsrhlEOT/.:-";
	struct gpudp_match_pattern *p = calloc(np, sizeof(*p));
	uint32_t i, k;

	for (i = 0; p != NULL && i < np; i++) {
		snprintf(p[i].name, sizeof(p[i].name), "g%u", i);
		p[i].len = 4 + gpudp_test_rnd(state) % 9;
		for (k = 0; k < p[i].len; k++)
			p[i].bytes[k] = (uint8_t)alpha[gpudp_test_rnd(state) % (sizeof(alpha) - 1)];
		p[i].flags = gpudp_test_rnd(state) % 4 == 0 ? GPUDP_MATCH_NOCASE : 0;
	}
	return p;
}

/**
 * The reference: every start position, every pattern, plain compares;
 * adds each pattern's occurrences in @p d to occ[] and 1 to pkts[] when
 * it occurs.
 */
static inline void
gpudp_test_match_naive(const struct gpudp_match_pattern *p, uint32_t np, const uint8_t *d,
		       size_t len, uint64_t *occ, uint64_t *pkts)
{
	size_t s;
	uint32_t i, k;

	for (i = 0; i < np; i++) {
		uint64_t c = 0;

		for (s = 0; s + p[i].len <= len; s++) {
			for (k = 0; k < p[i].len; k++)
				if ((p[i].flags & GPUDP_MATCH_NOCASE) ?
				    gpudp_match_fold(d[s + k]) != gpudp_match_fold(p[i].bytes[k]) :
				    d[s + k] != p[i].bytes[k])
					break;
			c += k == p[i].len;
		}
		occ[i] += c;
		pkts[i] += c != 0;
	}
}

#endif /* GPUDP_TEST_MATCH_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the fuzz targets' oracles share: reading the text they check the
 * parsers against, written plainly and apart from the parsers.
 */
#ifndef FUZZ_ORACLE_H
#define FUZZ_ORACLE_H

#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

/* a failed check of target @p t: the condition and a message, then abort */
#define FUZZ_CHECK(t, c, ...) do { \
	if (!(c)) { \
		fprintf(stderr, "%s: %s: ", t, #c); \
		fprintf(stderr, __VA_ARGS__); \
		fputc('\n', stderr); \
		abort(); \
	} \
} while (0)

/* [s, s + n) as a decimal number, saturated at ULLONG_MAX; -1 not one */
static inline int
fuzz_decimal(const char *s, size_t n, unsigned long long *v)
{
	size_t i;

	*v = 0;
	if (n == 0)
		return -1;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		*v = *v > (ULLONG_MAX - 9) / 10 ? ULLONG_MAX : *v * 10 + (unsigned int)(s[i] - '0');
	}
	return 0;
}

#endif

/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * A tiny test runner shared by gpudp's test programs.
 *
 * Each program has a table of cases, one behaviour per case, named after
 * it. A case returns GPUDP_TEST_PASS, GPUDP_TEST_FAIL or GPUDP_TEST_SKIP.
 * The runner prints one line per case and the closing line
 * "N passed, N failed, N skipped"; its exit status is 0 when nothing
 * failed and something passed, 77 (meson's SKIP) when every case skipped,
 * 1 otherwise. Arguments name cases to run (default: all).
 */
#ifndef GPUDP_TEST_H
#define GPUDP_TEST_H

#include <stdio.h>
#include <string.h>

#define GPUDP_TEST_PASS 0
#define GPUDP_TEST_FAIL 1
#define GPUDP_TEST_SKIP 77

/** One test case. */
struct gpudp_test_case {
	const char *name;   /**< the behaviour it checks, snake_case */
	int (*fn)(void);    /**< returns GPUDP_TEST_PASS, _FAIL or _SKIP */
};

/** Fail the current case with a message if cond is false. */
#define GPUDP_TEST_ASSERT(cond, ...) do { \
	if (!(cond)) { \
		fprintf(stderr, "    %s:%d: failed: %s: ", __FILE__, __LINE__, #cond); \
		fprintf(stderr, __VA_ARGS__); \
		fputc('\n', stderr); \
		return GPUDP_TEST_FAIL; \
	} \
} while (0)

/** Skip the current case, saying why. */
#define GPUDP_TEST_SKIP_IF(cond, ...) do { \
	if (cond) { \
		fprintf(stderr, "    skip: "); \
		fprintf(stderr, __VA_ARGS__); \
		fputc('\n', stderr); \
		return GPUDP_TEST_SKIP; \
	} \
} while (0)

/**
 * Run the cases named in argv (all if none) and print the totals.
 * @return the exit status for main(): 0, 1 or 77 (see file comment).
 */
static inline int
gpudp_test_run(const char *suite, const struct gpudp_test_case *cases,
	       int argc, char **argv)
{
	unsigned int pass = 0, fail = 0, skip = 0;
	const struct gpudp_test_case *c;
	int i, rc, selected;

	for (c = cases; c->name != NULL; c++) {
		selected = argc <= 1;
		for (i = 1; i < argc; i++)
			if (strcmp(argv[i], c->name) == 0)
				selected = 1;
		if (!selected)
			continue;
		fflush(stdout);
		rc = c->fn();
		fflush(stderr);
		if (rc == GPUDP_TEST_PASS)
			pass++;
		else if (rc == GPUDP_TEST_SKIP)
			skip++;
		else
			fail++;
		printf("%-4s %s.%s\n", rc == GPUDP_TEST_PASS ? "ok" :
		       rc == GPUDP_TEST_SKIP ? "skip" : "FAIL", suite, c->name);
	}
	printf("%u passed, %u failed, %u skipped\n", pass, fail, skip);
	fflush(stdout);
	if (fail > 0 || pass + skip == 0)
		return 1;
	return pass == 0 ? GPUDP_TEST_SKIP : 0;
}

#endif /* GPUDP_TEST_H */

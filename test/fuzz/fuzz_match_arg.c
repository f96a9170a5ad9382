/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the argument of the built-in work `match`,
 * FILE[,scope=payload|frame][,action=drop|count]
 * (gpudp_work_match_arg(), lib/work/gpudp_work_match.c), the text a user
 * gives to --work-arg. The input, cut at its first NUL, is one argument;
 * it is parsed with the flags all clear and all set, and each answer is
 * compared with an oracle written here: the file is what comes before the
 * first ',', each option one of the four (a later one of a kind wins), any
 * other refused with a message naming it and nothing returned. A refusal
 * into an 8-byte message buffer stays inside it; a NULL buffer is allowed.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpudp_match_work.h"
#include "gpudp_work_match.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* what DPDK would give (dpdk_stub/) */
#include "gpudp_fuzz_dpdk.h"

#define CHECK(c, ...) do { \
	if (!(c)) { \
		fprintf(stderr, "fuzz_match_arg: %s: ", #c); \
		fprintf(stderr, __VA_ARGS__); \
		fputc('\n', stderr); \
		abort(); \
	} \
} while (0)

#define BOTH (GPUDP_MATCH_WORK_FRAME | GPUDP_MATCH_WORK_COUNT)

/* the oracle: 0 and the flags from @p flags, or -EINVAL and in @p bad the
 * first option refused (NULL: no argument at all) */
static int
oracle(const char *arg, uint32_t *flags, const char **bad, size_t *bad_len)
{
	static const struct { const char *opt; uint32_t set, clear; } ok[] = {
		{ "scope=payload", 0, GPUDP_MATCH_WORK_FRAME },
		{ "scope=frame", GPUDP_MATCH_WORK_FRAME, 0 },
		{ "action=drop", 0, GPUDP_MATCH_WORK_COUNT },
		{ "action=count", GPUDP_MATCH_WORK_COUNT, 0 },
	};
	const char *o = strchr(arg, ',');
	uint32_t f = *flags;
	size_t n, i;

	*bad = NULL;
	if (arg[0] == '\0')
		return -EINVAL;
	while (o != NULL) {
		o++;
		n = strcspn(o, ",");
		for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
			if (strlen(ok[i].opt) == n && memcmp(ok[i].opt, o, n) == 0)
				break;
		if (i == sizeof(ok) / sizeof(ok[0])) {
			*bad = o;
			*bad_len = n;
			return -EINVAL;
		}
		f = (f & ~ok[i].clear) | ok[i].set;
		o = o[n] == ',' ? o + n : NULL;
	}
	*flags = f;
	return 0;
}

static void
check_one(const char *arg, uint32_t start)
{
	uint32_t want = start, got = start, small_flags = start;
	const char *bad;
	size_t bad_len = 0;
	char err[512] = "", small[16], *path = (char *)"unset", *p2;
	int w = oracle(arg, &want, &bad, &bad_len);
	int r = gpudp_work_match_arg(arg, &path, &got, err, sizeof(err));

	CHECK(r == w, "'%s': %d, oracle %d (%s)", arg, r, w, err);
	if (r == 0) {
		CHECK(path != NULL && strlen(path) == strcspn(arg, ",") &&
		      memcmp(path, arg, strlen(path)) == 0, "'%s': file '%s'", arg, path);
		CHECK(got == want && (got & ~BOTH) == (start & ~BOTH),
		      "'%s': flags 0x%x, oracle 0x%x", arg, got, want);
		CHECK(err[0] == '\0', "'%s': a message on success: %s", arg, err);
		free(path);
	} else {
		CHECK(path == NULL && got == start, "'%s': something returned on -EINVAL", arg);
		CHECK(err[0] != '\0' && strlen(err) < sizeof(err), "'%s': no message", arg);
		if (bad != NULL && bad_len < 64) {
			char quoted[80];

			snprintf(quoted, sizeof(quoted), "'%.*s'", (int)bad_len, bad);
			CHECK(strstr(err, quoted) != NULL, "'%s': message '%s' does not name %s",
			      arg, err, quoted);
		}
	}
	/* a short message buffer: cut inside it, the bytes after untouched */
	memset(small, 'x', sizeof(small));
	r = gpudp_work_match_arg(arg, &p2, &small_flags, small, 8);
	CHECK(r == w && small[8] == 'x' && small[15] == 'x' &&
	      (r == 0 ? small[0] == 'x' : memchr(small, '\0', 8) != NULL),
	      "'%s': 8-byte message buffer", arg);
	free(p2);
	r = gpudp_work_match_arg(arg, &p2, &small_flags, NULL, 0);
	CHECK(r == w, "'%s': NULL message buffer: %d", arg, r);
	free(p2);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *arg = malloc(size + 1), *path = (char *)"unset";
	uint32_t flags = 0;

	if (arg == NULL)
		return 0;
	memcpy(arg, data, size);
	arg[size] = '\0';
	check_one(arg, 0);
	check_one(arg, ~0u);
	/* NULL is refused like "" */
	CHECK(gpudp_work_match_arg(NULL, &path, &flags, NULL, 0) == -EINVAL && path == NULL &&
	      flags == 0, "NULL accepted");
	free(arg);
	return 0;
}

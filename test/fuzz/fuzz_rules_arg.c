/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the argument of the built-in work `rules`,
 * FILE[,vars=FILE][,unsupported=refuse|skip]
 * (gpudp_work_rules_arg(), lib/work/gpudp_work_rules.c), the text a user
 * gives to --work-arg. The input, cut at its first NUL, is one argument,
 * compared with an oracle written here: the file is what comes before the
 * first ',', each option vars=NONEMPTY or one of the two unsupported=
 * (a later one of a kind wins), any other refused with a message naming
 * it and nothing returned. A refusal into an 8-byte message buffer stays
 * inside it; a NULL buffer is allowed.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpudp_work_rules.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* what DPDK would give (dpdk_stub/) */
#include "gpudp_fuzz_dpdk.h"

/* gpudp_work.c's log type, which the work's warnings use */
int gpudp_work_logtype;

#define CHECK(c, ...) do { \
	if (!(c)) { \
		fprintf(stderr, "fuzz_rules_arg: %s: ", #c); \
		fprintf(stderr, __VA_ARGS__); \
		fputc('\n', stderr); \
		abort(); \
	} \
} while (0)

/* the oracle: 0 with the last vars (at @p vars, @p vars_len; NULL: none)
 * and skip, or -EINVAL and in @p bad the first option refused (NULL: no
 * argument at all) */
static int
oracle(const char *arg, const char **vars, size_t *vars_len, int *skip, const char **bad,
       size_t *bad_len)
{
	const char *o = strchr(arg, ',');
	size_t n;

	*bad = *vars = NULL;
	*skip = 0;
	if (arg[0] == '\0')
		return -EINVAL;
	while (o != NULL) {
		o++;
		n = strcspn(o, ",");
		if (n > 5 && memcmp(o, "vars=", 5) == 0) {
			*vars = o + 5;
			*vars_len = n - 5;
		} else if (n == 18 && memcmp(o, "unsupported=refuse", n) == 0) {
			*skip = 0;
		} else if (n == 16 && memcmp(o, "unsupported=skip", n) == 0) {
			*skip = 1;
		} else {
			*bad = o;
			*bad_len = n;
			return -EINVAL;
		}
		o = o[n] == ',' ? o + n : NULL;
	}
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *arg = malloc(size + 1), err[512] = "", small[16];
	struct gpudp_work_rules_arg a, b;
	const char *vars, *bad;
	size_t vars_len = 0, bad_len = 0;
	int skip, w, r;

	if (arg == NULL)
		return 0;
	memcpy(arg, data, size);
	arg[size] = '\0';
	w = oracle(arg, &vars, &vars_len, &skip, &bad, &bad_len);
	r = gpudp_work_rules_arg(arg, &a, err, sizeof(err));
	CHECK(r == w, "'%s': %d, oracle %d (%s)", arg, r, w, err);
	if (r == 0) {
		CHECK(a.file != NULL && strlen(a.file) == strcspn(arg, ",") &&
		      memcmp(a.file, arg, strlen(a.file)) == 0, "'%s': file '%s'", arg, a.file);
		CHECK(vars == NULL ? a.vars == NULL :
		      a.vars != NULL && strlen(a.vars) == vars_len &&
		      memcmp(a.vars, vars, vars_len) == 0, "'%s': vars '%s'", arg,
		      a.vars != NULL ? a.vars : "(none)");
		CHECK(a.skip == skip, "'%s': skip %d, oracle %d", arg, a.skip, skip);
		CHECK(err[0] == '\0', "'%s': a message on success: %s", arg, err);
		gpudp_work_rules_arg_free(&a);
	} else {
		CHECK(a.file == NULL && a.vars == NULL, "'%s': something returned on -EINVAL", arg);
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
	r = gpudp_work_rules_arg(arg, &b, small, 8);
	CHECK(r == w && small[8] == 'x' && small[15] == 'x' &&
	      (r == 0 ? small[0] == 'x' : memchr(small, '\0', 8) != NULL),
	      "'%s': 8-byte message buffer", arg);
	gpudp_work_rules_arg_free(&b);
	r = gpudp_work_rules_arg(arg, &b, NULL, 0);
	CHECK(r == w, "'%s': NULL message buffer: %d", arg, r);
	gpudp_work_rules_arg_free(&b);
	CHECK(gpudp_work_rules_arg(NULL, &b, NULL, 0) == -EINVAL && b.file == NULL,
	      "NULL accepted");
	free(arg);
	return 0;
}

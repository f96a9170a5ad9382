/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * payload_match: the work's descriptor, its CPU form, the parser of its
 * argument and, built with -DWORK_GPU_IMAGE, its GPU image (README.md).
 * A shared object that gpudp-fwd loads with --work ./payload_match.so.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <gpudp_work.h>

#include "payload_match.h"

/* the CPU form: a burst loop around the per-packet function */
GPUDP_WORK_CPU(payload_match_cpu, payload_match_pkt)

#define ARG_SYNTAX "want match=P1,P2,...;block=P1,... (\\xHH, \\\\, \\, and \\; escapes)"

/* the end of the token at s: the first unescaped character of stops, or the NUL */
static const char *
token_end(const char *s, const char *stops)
{
	while (*s != '\0' && strchr(stops, *s) == NULL) {
		if (*s == '\\' && s[1] != '\0')
			s++;
		s++;
	}
	return s;
}

static int
hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* the bytes of pattern [s, e) into out (PAYLOAD_MATCH_LEN_MAX bytes) */
static int
pattern_decode(const char *s, const char *e, uint8_t *out, uint32_t *len, char *err,
	       size_t err_len)
{
	int tl = (int)(e - s);
	const char *t;
	uint32_t n = 0;

	if (s == e) {
		snprintf(err, err_len, "empty pattern: patterns have 1..%d bytes",
			 PAYLOAD_MATCH_LEN_MAX);
		return -EINVAL;
	}
	for (t = s; t < e; t++) {
		uint8_t b = (uint8_t)*t;

		if (*t == '\\') {
			if (t + 1 < e && (t[1] == '\\' || t[1] == ',' || t[1] == ';')) {
				b = (uint8_t)t[1];
				t++;
			} else if (e - t >= 4 && t[1] == 'x' && hex_digit(t[2]) >= 0 &&
				   hex_digit(t[3]) >= 0) {
				b = (uint8_t)(hex_digit(t[2]) << 4 | hex_digit(t[3]));
				t += 3;
			} else {
				int el = (int)(e - t) < 4 ? (int)(e - t) : 4;

				snprintf(err, err_len, "pattern '%.*s': bad escape '%.*s' (want "
					 "\\xHH, \\\\, \\, or \\;)", tl > 48 ? 48 : tl, s, el, t);
				return -EINVAL;
			}
		}
		if (n == PAYLOAD_MATCH_LEN_MAX) {
			snprintf(err, err_len, "pattern '%.*s%s': longer than %d bytes",
				 tl > 48 ? 48 : tl, s, tl > 48 ? "..." : "",
				 PAYLOAD_MATCH_LEN_MAX);
			return -EINVAL;
		}
		out[n++] = b;
	}
	*len = n;
	return 0;
}

/* the index of pattern (b, n) in prm, or -1 */
static int
pattern_find(const struct payload_match_params *prm, const uint8_t *b, uint32_t n)
{
	uint32_t k;

	for (k = 0; k < prm->n; k++)
		if (prm->len[k] == n && memcmp(prm->pat[k], b, n) == 0)
			return (int)k;
	return -1;
}

/*
 * The patterns of one clause's list [s, e): "match" appends each one (a
 * pattern given twice is an error), "block" sets each one's bit, appending
 * the patterns not matched already.
 */
static int
clause_list(struct payload_match_params *prm, int block, const char *s, const char *e,
	    uint32_t *blocked, char *err, size_t err_len)
{
	const char *key = block ? "block" : "match", *l0 = s;
	int ll = (int)(e - s) > 48 ? 48 : (int)(e - s);

	for (;;) {
		const char *ie = token_end(s, ",;");
		uint8_t b[PAYLOAD_MATCH_LEN_MAX];
		int tl = (int)(ie - s), k;
		uint32_t n;

		if (pattern_decode(s, ie, b, &n, err, err_len) != 0) {
			if (s == ie)  /* name the clause of an empty pattern */
				snprintf(err, err_len, "'%s=%.*s': empty pattern (patterns have "
					 "1..%d bytes)", key, ll, l0, PAYLOAD_MATCH_LEN_MAX);
			return -EINVAL;
		}
		k = pattern_find(prm, b, n);
		if (k >= 0 && (!block || (*blocked & 1u << k))) {
			snprintf(err, err_len, "pattern '%.*s' given twice in %s=",
				 tl > 48 ? 48 : tl, s, key);
			return -EINVAL;
		}
		if (k < 0) {
			if (prm->n == PAYLOAD_MATCH_MAX) {
				snprintf(err, err_len, "pattern '%.*s': more than %d patterns",
					 tl > 48 ? 48 : tl, s, PAYLOAD_MATCH_MAX);
				return -EINVAL;
			}
			k = (int)prm->n++;
			prm->len[k] = (uint8_t)n;
			memcpy(prm->pat[k], b, n);
		}
		if (block) {
			*blocked |= 1u << k;
			prm->block |= 1u << k;
		}
		if (ie == e)
			return 0;
		s = ie + 1;
	}
}

/*
 * --work-arg: clauses separated by ';', each match=LIST or block=LIST, a
 * LIST being patterns separated by ','. Every match= clause is read first
 * (its patterns are 0, 1, ... in the order given), then every block=
 * clause (a pattern not matched already is added after them), so the
 * clauses may come in any order.
 */
static int
payload_match_init(const char *arg, void *params, char *err, size_t err_len)
{
	struct payload_match_params *prm = params;
	uint32_t blocked = 0;
	int pass;

	if (arg == NULL || arg[0] == '\0') {
		snprintf(err, err_len, "no patterns given: %s", ARG_SYNTAX);
		return -EINVAL;
	}
	for (pass = 0; pass < 2; pass++) {
		const char *s = arg;

		for (;;) {
			const char *e = token_end(s, ";"), *eq = memchr(s, '=', (size_t)(e - s));
			int cl = (int)(e - s), block;

			if (eq == NULL || ((eq - s != 5 || memcmp(s, "match", 5) != 0) &&
					   (eq - s != 5 || memcmp(s, "block", 5) != 0))) {
				if (cl == 0)
					snprintf(err, err_len, "empty clause (a ';' at an end or "
						 "two in a row): %s", ARG_SYNTAX);
				else
					snprintf(err, err_len, "clause '%.*s%s': %s",
						 cl > 48 ? 48 : cl, s, cl > 48 ? "..." : "",
						 ARG_SYNTAX);
				return -EINVAL;
			}
			block = s[0] == 'b';
			if (block == pass &&
			    clause_list(prm, block, eq + 1, e, &blocked, err, err_len) != 0)
				return -EINVAL;
			if (*e == '\0')
				break;
			s = e + 1;
		}
	}
	return 0;
}

static const char *const payload_match_reasons[PAYLOAD_MATCH_REASONS] =
	PAYLOAD_MATCH_REASON_NAMES;
static const char *const payload_match_counters[PAYLOAD_MATCH_MAX] =
	PAYLOAD_MATCH_COUNTER_NAMES;

#ifdef WORK_GPU_IMAGE
/* the GPU form (payload_match.cu), compiled by nvcc -fatbin; found through
 * the assembler's include path (-Wa,-I<dir>) */
GPUDP_WORK_IMAGE(payload_match_image, "payload_match.fatbin");
#endif

static const struct gpudp_work payload_match_work = {
	.abi = GPUDP_WORK_ABI,
	.size = sizeof(struct gpudp_work),
	.name = PAYLOAD_MATCH_NAME,
	.summary = "count byte patterns in payloads, drop those with a blocked one "
		   "(--work-arg 'match=P1,P2,...;block=P1,...'); result: the mask seen",
	.span = 0,         /* the whole frame */
	.wspan = 0,        /* writes no packet byte */
	.result_size = sizeof(payload_match_result),
	.params_size = sizeof(struct payload_match_params),
	.n_reasons = PAYLOAD_MATCH_REASONS,
	.n_counters = PAYLOAD_MATCH_MAX,
	.reasons = payload_match_reasons,
	.counters = payload_match_counters,
	.init = payload_match_init,
	.cpu = payload_match_cpu,
#ifdef WORK_GPU_IMAGE
	.gpu_image = payload_match_image,
	.gpu_image_size = 0,  /* the fatbin's header gives it */
#endif
};

GPUDP_WORK_EXPORT(payload_match_work)

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the rule parser and its variables (lib/rules,
 * gpudp_rules_parse(), gpudp_rules_vars()). The input's first byte says
 * whether rules outside the subset are skipped; the rest, cut at its first
 * NUL, is a variables file (before the NUL) and a rules file (after it, or
 * all of it without a NUL). Every answer is 0 or more rules, or -EINVAL
 * with "FILE:LINE: " and a message. Every rule kept holds together: a sid,
 * lists and checks inside the set's arrays, contents of 1 to 255 bytes,
 * strings ending inside the bytes, the fast pattern a content, depth and
 * within no shorter than their content, no absolute and relative
 * modifiers on one content. And each rule written by gpudp_rule_format()
 * parses back, without the variables, to an equal rule.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_oracle.h"
#include "gpudp_rules.h"
#include "gpudp_test_rules.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c, ...) FUZZ_CHECK("fuzz_rules", c, __VA_ARGS__)

static void
warn(void *arg, const char *msg)
{
	(void)arg;
	CHECK(strncmp(msg, "r:", 2) == 0 && strstr(msg, "unsupported") != NULL, "%s", msg);
}

static int
str_ok(const struct gpudp_rules *rs, uint32_t off)
{
	return off == UINT32_MAX ||
	       (off < rs->n_bytes && memchr(rs->bytes + off, 0, rs->n_bytes - off) != NULL);
}

static void
rule_holds(const struct gpudp_rules *rs, const struct gpudp_rule *r)
{
	const uint32_t abs = GPUDP_RULE_F_OFFSET | GPUDP_RULE_F_DEPTH;
	const uint32_t rel = GPUDP_RULE_F_DISTANCE | GPUDP_RULE_F_WITHIN;
	uint32_t i;

	CHECK(r->sid > 0 && r->action >= GPUDP_RULE_ALERT && r->action <= GPUDP_RULE_DROP &&
	      r->proto >= GPUDP_RULE_IP && r->proto <= GPUDP_RULE_ICMP, "sid %u", r->sid);
	CHECK(r->src + r->n_src <= rs->n_net && r->dst + r->n_dst <= rs->n_net &&
	      r->sport + r->n_sport <= rs->n_port && r->dport + r->n_dport <= rs->n_port &&
	      r->check + r->n_check <= rs->n_check && r->n_check <= GPUDP_RULE_CHECKS_MAX,
	      "lists out of the arrays");
	CHECK(str_ok(rs, r->msg) && str_ok(rs, r->classtype), "strings");
	CHECK(r->fast < (int32_t)r->n_check && (r->fast < 0 ||
	      rs->check[r->check + (uint32_t)r->fast].kind == GPUDP_RULE_CONTENT), "fast %d",
	      r->fast);
	for (i = 0; i < r->n_src + r->n_dst; i++) {
		const struct gpudp_rule_net *e = &rs->net[i < r->n_src ? r->src + i :
							  r->dst + i - r->n_src];

		CHECK((e->af == 4 && e->prefix <= 32) || (e->af == 6 && e->prefix <= 128),
		      "net af %u prefix %u", e->af, e->prefix);
	}
	for (i = 0; i < r->n_check; i++) {
		const struct gpudp_rule_check *c = &rs->check[r->check + i];

		if (c->kind == GPUDP_RULE_ISDATAAT)
			continue;
		CHECK(c->kind == GPUDP_RULE_CONTENT && c->len >= 1 &&
		      c->len <= GPUDP_RULE_CONTENT_MAX && c->bytes + c->len <= rs->n_bytes,
		      "content len %u", c->len);
		CHECK(!((c->flags & abs) && (c->flags & rel)), "absolute and relative");
		CHECK(!(c->flags & GPUDP_RULE_F_DEPTH) || c->depth >= c->len, "depth %d", c->depth);
		CHECK(!(c->flags & GPUDP_RULE_F_WITHIN) || c->within >= c->len, "within %d",
		      c->within);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gpudp_rules_conf conf = { .warn = warn };
	struct gpudp_rules rs, back;
	const char *text, *nul;
	size_t len, vlen = 0;
	char err[200], out[1 << 17];
	uint32_t i;
	int n, m;

	if (size < 1)
		return 0;
	conf.skip_unsupported = data[0] & 1;
	text = (const char *)data + 1;
	len = size - 1;
	gpudp_rules_init(&rs);
	nul = memchr(text, 0, len);
	if (nul != NULL) {
		vlen = (size_t)(nul - text);
		if (gpudp_rules_vars(&rs, text, vlen, "v", err, sizeof(err)) != 0) {
			CHECK(strncmp(err, "v:", 2) == 0, "%s", err);
			gpudp_rules_free(&rs);
			return 0;
		}
		text += vlen + 1;
		len -= vlen + 1;
	}
	n = gpudp_rules_parse(&rs, text, len, "r", &conf, err, sizeof(err));
	CHECK(n >= 0 || (n == -EINVAL && strncmp(err, "r:", 2) == 0) || n == -ENOMEM,
	      "%d: %s", n, err);
	CHECK(n < 0 || (uint32_t)n == rs.n_rule, "%d rules, %u kept", n, rs.n_rule);
	for (i = 0; i < rs.n_rule; i++) {
		rule_holds(&rs, &rs.rule[i]);
		m = gpudp_rule_format(&rs, &rs.rule[i], out, sizeof(out));
		CHECK(m > 0 && (size_t)m < sizeof(out), "format %d", m);
		gpudp_rules_init(&back);
		CHECK(gpudp_rules_parse(&back, out, (size_t)m, "f", NULL, err, sizeof(err)) == 1,
		      "%s: %s", out, err);
		CHECK(gpudp_test_rule_eq(&rs, &rs.rule[i], &back, &back.rule[0]), "%s", out);
		gpudp_rules_free(&back);
	}
	gpudp_rules_free(&rs);
	return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The CPU engine of a rule set (gpudp_rules_engine.h): the fast patterns'
 * database, the rules of each pattern, the candidates of a packet.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpudp_match.h>

#include "gpudp_rules_engine.h"

struct gpudp_rules_engine {
	const struct gpudp_rules *rs;
	struct gpudp_match_db *db;   /* NULL: no rule has a content */
	uint32_t n_pat;
	uint32_t *first;             /* pattern p's rules: rule_of[first[p] .. first[p + 1]) */
	uint32_t *rule_of;
	uint32_t *always;            /* rules without a content */
	uint32_t n_always;
	uint32_t *stamp;             /* per rule: the packet that made it a candidate */
	uint32_t gen;
	uint32_t *cand;              /* this packet's candidates */
	uint32_t n_cand;
	void *scratch;               /* gpudp_rule_payload_match()'s */
};

static const struct gpudp_rule_check *
fast_of(const struct gpudp_rules *rs, const struct gpudp_rule *r)
{
	return r->fast < 0 ? NULL : &rs->check[r->check + (uint32_t)r->fast];
}

/* the same bytes, length and case rule */
static int
same_pattern(const struct gpudp_rules *rs, const struct gpudp_rule_check *a,
	     const struct gpudp_rule_check *b)
{
	return a->len == b->len && (a->flags & GPUDP_RULE_F_NOCASE) ==
	       (b->flags & GPUDP_RULE_F_NOCASE) &&
	       memcmp(rs->bytes + a->bytes, rs->bytes + b->bytes, a->len) == 0;
}

static uint32_t
hash_pattern(const struct gpudp_rules *rs, const struct gpudp_rule_check *c)
{
	uint32_t h = 2166136261u ^ (c->flags & GPUDP_RULE_F_NOCASE), i;

	for (i = 0; i < c->len; i++)
		h = (h ^ rs->bytes[c->bytes + i]) * 16777619u;
	return h;
}

/* each rule's pattern index (UINT32_MAX: none), the distinct patterns' first rules */
static int
number_patterns(struct gpudp_rules_engine *e, uint32_t *pat_of, uint32_t *rep, char *err,
		size_t errlen)
{
	const struct gpudp_rules *rs = e->rs;
	uint32_t cap = 16, i, h, *slot;

	while (cap < 2 * rs->n_rule)
		cap *= 2;
	slot = malloc(sizeof(*slot) * cap);
	if (slot == NULL)
		return -ENOMEM;
	memset(slot, 0xff, sizeof(*slot) * cap);
	for (i = 0; i < rs->n_rule; i++) {
		const struct gpudp_rule_check *c = fast_of(rs, &rs->rule[i]);

		pat_of[i] = UINT32_MAX;
		if (c == NULL)
			continue;
		for (h = hash_pattern(rs, c) & (cap - 1); slot[h] != UINT32_MAX; h = (h + 1) & (cap - 1))
			if (same_pattern(rs, c, fast_of(rs, &rs->rule[rep[slot[h]]])))
				break;
		if (slot[h] == UINT32_MAX) {
			if (e->n_pat >= GPUDP_MATCH_PATTERNS_MAX) {
				free(slot);
				snprintf(err, errlen, "more than %u distinct fast patterns",
					 GPUDP_MATCH_PATTERNS_MAX);
				return -ENOSPC;
			}
			rep[e->n_pat] = i;
			slot[h] = e->n_pat++;
		}
		pat_of[i] = slot[h];
	}
	free(slot);
	return 0;
}

static int
build(struct gpudp_rules_engine *e, char *err, size_t errlen)
{
	const struct gpudp_rules *rs = e->rs;
	uint32_t n = rs->n_rule, i, *pat_of = calloc(n + 1, sizeof(uint32_t));
	uint32_t *rep = calloc(n + 1, sizeof(uint32_t));
	struct gpudp_match_pattern *pats = NULL;
	int rc = -ENOMEM;

	e->first = calloc((size_t)n + 2, sizeof(uint32_t));
	e->rule_of = calloc(n + 1, sizeof(uint32_t));
	e->always = calloc(n + 1, sizeof(uint32_t));
	if (pat_of == NULL || rep == NULL || e->first == NULL || e->rule_of == NULL ||
	    e->always == NULL)
		goto out;
	rc = number_patterns(e, pat_of, rep, err, errlen);
	if (rc != 0)
		goto out;
	/* pattern p's rules, in the set's order */
	for (i = 0; i < n; i++)
		if (pat_of[i] != UINT32_MAX)
			e->first[pat_of[i] + 2]++;
		else
			e->always[e->n_always++] = i;
	for (i = 2; i < e->n_pat + 2; i++)
		e->first[i] += e->first[i - 1];
	for (i = 0; i < n; i++)
		if (pat_of[i] != UINT32_MAX)
			e->rule_of[e->first[pat_of[i] + 1]++] = i;
	rc = 0;
	if (e->n_pat == 0)
		goto out;
	pats = calloc(e->n_pat, sizeof(*pats));
	rc = -ENOMEM;
	if (pats == NULL)
		goto out;
	for (i = 0; i < e->n_pat; i++) {
		const struct gpudp_rule_check *c = fast_of(rs, &rs->rule[rep[i]]);

		snprintf(pats[i].name, sizeof(pats[i].name), "p%u", i);
		memcpy(pats[i].bytes, rs->bytes + c->bytes, c->len);
		pats[i].len = c->len;
		pats[i].flags = (c->flags & GPUDP_RULE_F_NOCASE) ? GPUDP_MATCH_NOCASE : 0;
	}
	e->db = gpudp_match_compile(pats, e->n_pat, err, errlen);
	rc = e->db == NULL ? -ENOMEM : 0;
out:
	if (rc == -ENOMEM && (errlen == 0 || err[0] == 0))
		snprintf(err, errlen, "out of memory for the rules' engine");
	free(pats);
	free(pat_of);
	free(rep);
	return rc;
}

struct gpudp_rules_engine *
gpudp_rules_engine_create(const struct gpudp_rules *rs, char *err, size_t errlen)
{
	struct gpudp_rules_engine *e = calloc(1, sizeof(*e));

	if (errlen > 0)
		err[0] = 0;
	if (e == NULL) {
		snprintf(err, errlen, "out of memory for the rules' engine");
		return NULL;
	}
	e->rs = rs;
	e->stamp = calloc(rs->n_rule + 1, sizeof(uint32_t));
	e->cand = calloc(rs->n_rule + 1, sizeof(uint32_t));
	e->scratch = malloc(GPUDP_RULES_EVAL_SCRATCH(GPUDP_RULES_ENGINE_PAYLOAD_MAX));
	if (e->stamp == NULL || e->cand == NULL || e->scratch == NULL) {
		snprintf(err, errlen, "out of memory for the rules' engine");
		gpudp_rules_engine_free(e);
		return NULL;
	}
	if (build(e, err, errlen) != 0) {
		gpudp_rules_engine_free(e);
		return NULL;
	}
	return e;
}

void
gpudp_rules_engine_free(struct gpudp_rules_engine *e)
{
	if (e == NULL)
		return;
	free(e->db);
	free(e->first);
	free(e->rule_of);
	free(e->always);
	free(e->stamp);
	free(e->cand);
	free(e->scratch);
	free(e);
}

/* a fast pattern occurs: its rules are candidates (once a packet) */
static void
on_pattern(void *arg, uint32_t p, uint32_t end)
{
	struct gpudp_rules_engine *e = arg;
	uint32_t j;

	(void)end;
	for (j = e->first[p]; j < e->first[p + 1]; j++) {
		uint32_t r = e->rule_of[j];

		if (e->stamp[r] != e->gen) {
			e->stamp[r] = e->gen;
			e->cand[e->n_cand++] = r;
		}
	}
}

static int
by_index(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

uint32_t
gpudp_rules_engine_packet(struct gpudp_rules_engine *e, const struct gpudp_rule_pkt *k,
			  const uint8_t *p, uint32_t len, void (*fn)(void *arg, uint32_t rule),
			  void *arg)
{
	const struct gpudp_rules *rs = e->rs;
	uint32_t i, hits = 0;

	if (len > GPUDP_RULES_ENGINE_PAYLOAD_MAX)
		len = GPUDP_RULES_ENGINE_PAYLOAD_MAX;
	if (++e->gen == 0) {   /* wrapped: no stamp may look current */
		memset(e->stamp, 0, sizeof(uint32_t) * rs->n_rule);
		e->gen = 1;
	}
	e->n_cand = 0;
	if (e->db != NULL)
		gpudp_match_each(e->db, p, len, on_pattern, e);
	for (i = 0; i < e->n_always; i++)
		e->cand[e->n_cand++] = e->always[i];
	qsort(e->cand, e->n_cand, sizeof(uint32_t), by_index);
	for (i = 0; i < e->n_cand; i++) {
		const struct gpudp_rule *r = &rs->rule[e->cand[i]];

		if (!gpudp_rule_header_match(rs, r, k) ||
		    !gpudp_rule_payload_match(rs, r, p, len, e->scratch))
			continue;
		hits++;
		if (fn != NULL)
			fn(arg, e->cand[i]);
	}
	return hits;
}

void
gpudp_rules_engine_info(const struct gpudp_rules_engine *e, uint32_t *patterns, uint32_t *always)
{
	*patterns = e->n_pat;
	*always = e->n_always;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A rule set compiled into an image (gpudp_rules_img.h): the distinct fast
 * patterns numbered, each pattern's rules in the set's order, the rules
 * without a content, the prefilter's database, all laid out in one piece.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpudp_rules_img.h"

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

/* each rule's pattern (UINT32_MAX: none) and each distinct pattern's first
 * rule (@p rep); @return the patterns, or -ENOMEM, -ENOSPC */
static int64_t
number_patterns(const struct gpudp_rules *rs, uint32_t *pat_of, uint32_t *rep, char *err,
		size_t errlen)
{
	uint32_t cap = 16, i, h, n = 0, *slot;

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
			if (n >= GPUDP_MATCH_PATTERNS_MAX) {
				free(slot);
				snprintf(err, errlen, "more than %u distinct fast patterns",
					 GPUDP_MATCH_PATTERNS_MAX);
				return -ENOSPC;
			}
			rep[n] = i;
			slot[h] = n++;
		}
		pat_of[i] = slot[h];
	}
	free(slot);
	return n;
}

/* the prefilter's database of the @p n patterns of rules @p rep */
static struct gpudp_match_db *
compile_patterns(const struct gpudp_rules *rs, const uint32_t *rep, uint32_t n, char *err,
		 size_t errlen)
{
	struct gpudp_match_pattern *pats = calloc(n, sizeof(*pats));
	struct gpudp_match_db *db;
	uint32_t i;

	if (pats == NULL)
		return NULL;
	for (i = 0; i < n; i++) {
		const struct gpudp_rule_check *c = fast_of(rs, &rs->rule[rep[i]]);

		snprintf(pats[i].name, sizeof(pats[i].name), "p%u", i);
		memcpy(pats[i].bytes, rs->bytes + c->bytes, c->len);
		pats[i].len = c->len;
		pats[i].flags = (c->flags & GPUDP_RULE_F_NOCASE) ? GPUDP_MATCH_NOCASE : 0;
	}
	db = gpudp_match_compile(pats, n, err, errlen);
	free(pats);
	return db;
}

/* the next array's offset: @p off past @p bytes, 8-byte aligned */
static uint64_t
place(uint64_t *off, uint64_t bytes)
{
	uint64_t at = *off;

	*off = (at + bytes + 7) & ~(uint64_t)7;
	return at;
}

/* the image of @p rs, pattern numbers @p pat_of, database @p db (may be NULL) */
static struct gpudp_rules_img *
lay_out(const struct gpudp_rules *rs, const uint32_t *pat_of, uint32_t n_pat,
	const struct gpudp_match_db *db)
{
	struct gpudp_rules_img h = {
		.magic = GPUDP_RULES_IMG_MAGIC, .version = GPUDP_RULES_IMG_VERSION,
		.n_rule = rs->n_rule, .n_net = rs->n_net, .n_port = rs->n_port,
		.n_check = rs->n_check, .n_bytes = rs->n_bytes, .n_pat = n_pat,
	};
	uint64_t off = 0;
	uint32_t i, *first, *rule_of, *always;
	struct gpudp_rules_img *img;
	uint8_t *b;

	for (i = 0; i < rs->n_rule; i++)
		h.n_always += pat_of[i] == UINT32_MAX;
	place(&off, sizeof(h));
	h.off_rule = place(&off, sizeof(*rs->rule) * (uint64_t)rs->n_rule);
	h.off_net = place(&off, sizeof(*rs->net) * (uint64_t)rs->n_net);
	h.off_port = place(&off, sizeof(*rs->port) * (uint64_t)rs->n_port);
	h.off_check = place(&off, sizeof(*rs->check) * (uint64_t)rs->n_check);
	h.off_bytes = place(&off, rs->n_bytes);
	h.off_first = place(&off, sizeof(uint32_t) * ((uint64_t)n_pat + 2));
	h.off_rule_of = place(&off, sizeof(uint32_t) * ((uint64_t)rs->n_rule - h.n_always));
	h.off_always = place(&off, sizeof(uint32_t) * (uint64_t)h.n_always);
	h.off_db = place(&off, db != NULL ? db->size : 0);
	h.size = off;
	img = calloc(1, off);
	if (img == NULL)
		return NULL;
	*img = h;
	b = (uint8_t *)img;
	if (rs->n_rule > 0)
		memcpy(b + h.off_rule, rs->rule, sizeof(*rs->rule) * rs->n_rule);
	if (rs->n_net > 0)
		memcpy(b + h.off_net, rs->net, sizeof(*rs->net) * rs->n_net);
	if (rs->n_port > 0)
		memcpy(b + h.off_port, rs->port, sizeof(*rs->port) * rs->n_port);
	if (rs->n_check > 0)
		memcpy(b + h.off_check, rs->check, sizeof(*rs->check) * rs->n_check);
	if (rs->n_bytes > 0)
		memcpy(b + h.off_bytes, rs->bytes, rs->n_bytes);
	if (db != NULL)
		memcpy(b + h.off_db, db, db->size);
	/* pattern p's rules, in the set's order: counted at first[p + 2],
	 * summed, then placed through first[p + 1] */
	first = (uint32_t *)(b + h.off_first);
	rule_of = (uint32_t *)(b + h.off_rule_of);
	always = (uint32_t *)(b + h.off_always);
	for (i = 0; i < rs->n_rule; i++)
		if (pat_of[i] != UINT32_MAX)
			first[pat_of[i] + 2]++;
	for (i = 2; i < n_pat + 2; i++)
		first[i] += first[i - 1];
	h.n_always = 0;
	for (i = 0; i < rs->n_rule; i++)
		if (pat_of[i] != UINT32_MAX)
			rule_of[first[pat_of[i] + 1]++] = i;
		else
			always[h.n_always++] = i;
	return img;
}

struct gpudp_rules_img *
gpudp_rules_img_build(const struct gpudp_rules *rs, char *err, size_t errlen)
{
	uint32_t *pat_of = calloc((size_t)rs->n_rule + 1, sizeof(uint32_t));
	uint32_t *rep = calloc((size_t)rs->n_rule + 1, sizeof(uint32_t));
	struct gpudp_match_db *db = NULL;
	struct gpudp_rules_img *img = NULL;
	int64_t n = -ENOMEM;

	if (errlen > 0)
		err[0] = 0;
	if (pat_of != NULL && rep != NULL)
		n = number_patterns(rs, pat_of, rep, err, errlen);
	if (n > 0)
		db = compile_patterns(rs, rep, (uint32_t)n, err, errlen);
	if (n == 0 || db != NULL)
		img = lay_out(rs, pat_of, (uint32_t)n, db);
	if (img == NULL && (errlen == 0 || err[0] == 0))
		snprintf(err, errlen, "out of memory for the rules' image");
	free(db);
	free(pat_of);
	free(rep);
	return img;
}

/* [off, off + bytes) inside the image's @p size bytes */
static int
inside(uint64_t off, uint64_t bytes, uint64_t size)
{
	return off <= size && bytes <= size - off;
}

int
gpudp_rules_img_check(const struct gpudp_rules_img *img, uint64_t size)
{
	const struct gpudp_match_db *db;

	if (size < sizeof(*img) || img->magic != GPUDP_RULES_IMG_MAGIC ||
	    img->version != GPUDP_RULES_IMG_VERSION || img->size != size ||
	    img->n_always > img->n_rule ||
	    !inside(img->off_rule, sizeof(struct gpudp_rule) * (uint64_t)img->n_rule, size) ||
	    !inside(img->off_net, sizeof(struct gpudp_rule_net) * (uint64_t)img->n_net, size) ||
	    !inside(img->off_port, sizeof(struct gpudp_rule_port) * (uint64_t)img->n_port, size) ||
	    !inside(img->off_check, sizeof(struct gpudp_rule_check) * (uint64_t)img->n_check,
		    size) ||
	    !inside(img->off_bytes, img->n_bytes, size) ||
	    !inside(img->off_first, 4 * ((uint64_t)img->n_pat + 1), size) ||
	    !inside(img->off_rule_of, 4 * ((uint64_t)img->n_rule - img->n_always), size) ||
	    !inside(img->off_always, 4 * (uint64_t)img->n_always, size))
		return -EINVAL;
	if (img->n_pat == 0)
		return 0;
	if (!inside(img->off_db, sizeof(*db), size) || img->off_db % 8 != 0)
		return -EINVAL;
	db = GPUDP_RULES_IMG_AT(img, const struct gpudp_match_db, img->off_db);
	if (db->n_patterns != img->n_pat || !inside(img->off_db, db->size, size))
		return -EINVAL;
	return 0;
}

int64_t
gpudp_rules_img_find_sid(const struct gpudp_rules_img *img, uint32_t sid)
{
	const struct gpudp_rule *r = GPUDP_RULES_IMG_AT(img, const struct gpudp_rule,
							img->off_rule);
	uint32_t i;

	for (i = 0; i < img->n_rule; i++)
		if (r[i].sid == sid)
			return i;
	return -1;
}

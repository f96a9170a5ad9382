/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * References for lib/rules' matching, written for the tests apart from the
 * library's code (test_rules_eval.c, the capture reference rules-capture-ref):
 * - the payload checks by recursion over every combination of one match
 *   per content (the relative modifiers);
 * - the header by each list's plain meaning (in a positive entry, or the
 *   list has none; in no negative entry);
 * - with GPUDP_TEST_HYPERSCAN, a one-content rule as Hyperscan's literal
 *   with its extended parameters (min_offset, max_offset, HS_FLAG_CASELESS,
 *   the match's end for endswith).
 */
#ifndef GPUDP_TEST_RULES_REF_H
#define GPUDP_TEST_RULES_REF_H

#include <stdint.h>
#include <stdio.h>

#include <gpudp_rules.h>
#include <gpudp_rules_eval.h>
#ifdef GPUDP_TEST_HYPERSCAN
#include <hs/hs.h>
#endif

static inline int
gpudp_ref_at(const uint8_t *p, uint32_t s, const uint8_t *c, uint32_t n, int nocase)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		uint8_t a = p[s + i], b = c[i];

		if (nocase) {
			a = (uint8_t)(a >= 'A' && a <= 'Z' ? a + 32 : a);
			b = (uint8_t)(b >= 'A' && b <= 'Z' ? b + 32 : b);
		}
		if (a != b)
			return 0;
	}
	return 1;
}

/* checks i.. of @p r hold, the last content's match having ended at @p prev
 * (-1: none yet) */
static inline int
gpudp_ref_from(const struct gpudp_rules *rs, const struct gpudp_rule *r, uint32_t i,
	       const uint8_t *p, int64_t len, int64_t prev)
{
	const struct gpudp_rule_check *c;
	int64_t s, e, base;

	if (i == r->n_check)
		return 1;
	c = &rs->check[r->check + i];
	if (c->kind == GPUDP_RULE_ISDATAAT) {
		base = (c->flags & GPUDP_RULE_F_RELATIVE) ? prev : 0;
		if ((base + c->at < len) == !!(c->flags & GPUDP_RULE_F_NEG))
			return 0;
		return gpudp_ref_from(rs, r, i + 1, p, len, prev);
	}
	for (s = 0; s + c->len <= len; s++) {
		e = s + c->len;
		if (!gpudp_ref_at(p, (uint32_t)s, rs->bytes + c->bytes, c->len,
				  !!(c->flags & GPUDP_RULE_F_NOCASE)))
			continue;
		if ((c->flags & GPUDP_RULE_F_STARTSWITH) && s != 0)
			continue;
		if ((c->flags & GPUDP_RULE_F_ENDSWITH) && e != len)
			continue;
		if ((c->flags & GPUDP_RULE_F_OFFSET) && s < c->offset)
			continue;
		if ((c->flags & GPUDP_RULE_F_DEPTH) &&
		    e > ((c->flags & GPUDP_RULE_F_OFFSET) ? c->offset : 0) + c->depth)
			continue;
		/* relative: searched from the previous match's end, moved by
		 * distance */
		if ((c->flags & (GPUDP_RULE_F_DISTANCE | GPUDP_RULE_F_WITHIN)) &&
		    s < prev + ((c->flags & GPUDP_RULE_F_DISTANCE) ? c->distance : 0))
			continue;
		if ((c->flags & GPUDP_RULE_F_WITHIN) &&
		    e > prev + ((c->flags & GPUDP_RULE_F_DISTANCE) ? c->distance : 0) + c->within)
			continue;
		if (gpudp_ref_from(rs, r, i + 1, p, len, e))
			return 1;
	}
	return 0;
}

/** The payload checks of @p r: dsize, then every combination of matches. */
static inline int
gpudp_ref_payload(const struct gpudp_rules *rs, const struct gpudp_rule *r, const uint8_t *p,
		  uint32_t len)
{
	switch (r->dsize_op) {
	case GPUDP_RULE_DSIZE_EQ: if (len != r->dsize_a) return 0; break;
	case GPUDP_RULE_DSIZE_NE: if (len == r->dsize_a) return 0; break;
	case GPUDP_RULE_DSIZE_LT: if (len >= r->dsize_a) return 0; break;
	case GPUDP_RULE_DSIZE_GT: if (len <= r->dsize_a) return 0; break;
	case GPUDP_RULE_DSIZE_RANGE: if (len <= r->dsize_a || len >= r->dsize_b) return 0; break;
	default: break;
	}
	return gpudp_ref_from(rs, r, 0, p, len, -1);
}

/* @p a (family @p af) is in entry @p n's network */
static inline int
gpudp_ref_in_net(const uint8_t *a, uint8_t af, const struct gpudp_rule_net *n)
{
	uint32_t bit;

	if (af != n->af)
		return 0;
	for (bit = 0; bit < n->prefix; bit++)
		if (((a[bit / 8] ^ n->addr[bit / 8]) >> (7 - bit % 8)) & 1)
			return 0;
	return 1;
}

/* the list's meaning: in a positive entry (or it has none), in no negative one */
static inline int
gpudp_ref_addrs(const struct gpudp_rules *rs, uint32_t first, uint32_t n, const uint8_t *a,
		uint8_t af)
{
	uint32_t i, pos = 0, in = 0, out = 0;

	for (i = 0; i < n; i++) {
		const struct gpudp_rule_net *e = &rs->net[first + i];

		if (e->neg)
			out |= (uint32_t)gpudp_ref_in_net(a, af, e);
		else
			pos = 1, in |= (uint32_t)gpudp_ref_in_net(a, af, e);
	}
	return (!pos || in) && !out;
}

static inline int
gpudp_ref_ports(const struct gpudp_rules *rs, uint32_t first, uint32_t n, uint16_t port)
{
	uint32_t i, pos = 0, in = 0, out = 0;

	for (i = 0; i < n; i++) {
		const struct gpudp_rule_port *e = &rs->port[first + i];
		uint32_t hit = port >= e->lo && port <= e->hi;

		if (e->neg)
			out |= hit;
		else
			pos = 1, in |= hit;
	}
	return (!pos || in) && !out;
}

/** The header of @p r: protocol, addresses, ports of tcp and udp rules, either way with <>. */
static inline int
gpudp_ref_header(const struct gpudp_rules *rs, const struct gpudp_rule *r,
		 const struct gpudp_rule_pkt *k)
{
	int ports = r->proto == GPUDP_RULE_TCP || r->proto == GPUDP_RULE_UDP, way;

	if ((r->proto == GPUDP_RULE_TCP && k->proto != 6) ||
	    (r->proto == GPUDP_RULE_UDP && k->proto != 17) ||
	    (r->proto == GPUDP_RULE_ICMP && k->proto != 1 && k->proto != 58))
		return 0;
	for (way = 0; way < (r->bidir ? 2 : 1); way++) {
		const uint8_t *s = way ? k->dst : k->src, *d = way ? k->src : k->dst;
		uint16_t sp = way ? k->dport : k->sport, dp = way ? k->sport : k->dport;

		if (gpudp_ref_addrs(rs, r->src, r->n_src, s, k->af) &&
		    gpudp_ref_addrs(rs, r->dst, r->n_dst, d, k->af) &&
		    (!ports || (gpudp_ref_ports(rs, r->sport, r->n_sport, sp) &&
				gpudp_ref_ports(rs, r->dport, r->n_dport, dp))))
			return 1;
	}
	return 0;
}

#ifdef GPUDP_TEST_HYPERSCAN
/** Whether rule @p r is one Hyperscan's extended parameters express: one
 *  content, absolute modifiers only, no dsize. */
static inline int
gpudp_ref_hs_expressible(const struct gpudp_rules *rs, const struct gpudp_rule *r)
{
	return r->n_check == 1 && r->dsize_op == GPUDP_RULE_DSIZE_NONE &&
	       rs->check[r->check].kind == GPUDP_RULE_CONTENT &&
	       !(rs->check[r->check].flags & (GPUDP_RULE_F_DISTANCE | GPUDP_RULE_F_WITHIN));
}

/* a scan's state: whether a match counts (endswith: it ends at len) */
struct gpudp_ref_hs_got {
	unsigned long long len;
	int endswith, hit;
};

static inline int
gpudp_ref_hs_on_match(unsigned int id, unsigned long long from, unsigned long long to,
		      unsigned int flags, void *ctx)
{
	struct gpudp_ref_hs_got *g = ctx;

	(void)id;
	(void)from;
	(void)flags;
	if (!g->endswith || to == g->len) {
		g->hit = 1;
		return 1;   /* enough */
	}
	return 0;
}

/** A one-content rule (gpudp_ref_hs_expressible()) as a Hyperscan database. */
static inline int
gpudp_ref_hs_rule(const struct gpudp_rules *rs, const struct gpudp_rule *r, hs_database_t **db)
{
	const struct gpudp_rule_check *c = &rs->check[r->check];
	hs_expr_ext_t ext = { 0 };
	const hs_expr_ext_t *exts[1] = { &ext };
	char expr[8 * GPUDP_RULE_CONTENT_MAX];
	const char *exprs[1] = { expr };
	unsigned int flags = c->flags & GPUDP_RULE_F_NOCASE ? HS_FLAG_CASELESS : 0, id = 0;
	hs_compile_error_t *err = NULL;
	uint32_t i, off = (c->flags & GPUDP_RULE_F_OFFSET) ? (uint32_t)c->offset : 0;

	for (i = 0; i < c->len; i++)
		snprintf(expr + 4 * i, 5, "\\x%02x", rs->bytes[c->bytes + i]);
	/* Hyperscan's offsets are the match's end */
	ext.flags = HS_EXT_FLAG_MIN_OFFSET;
	ext.min_offset = off + c->len;
	if (c->flags & GPUDP_RULE_F_DEPTH) {
		ext.flags |= HS_EXT_FLAG_MAX_OFFSET;
		ext.max_offset = off + (uint32_t)c->depth;
	}
	if (c->flags & GPUDP_RULE_F_STARTSWITH) {
		ext.flags |= HS_EXT_FLAG_MAX_OFFSET;
		ext.max_offset = c->len;
	}
	if (hs_compile_ext_multi(exprs, &flags, &id, exts, 1, HS_MODE_BLOCK, NULL, db,
				 &err) != HS_SUCCESS) {
		fprintf(stderr, "    hs_compile_ext_multi: %s\n", err ? err->message : "?");
		hs_free_compile_error(err);
		return -1;
	}
	return 0;
}

/** Whether the one-content rule of @p db (gpudp_ref_hs_rule()) matches @p len bytes at @p p. */
static inline int
gpudp_ref_hs_payload(const struct gpudp_rules *rs, const struct gpudp_rule *r,
		     const hs_database_t *db, hs_scratch_t *hss, const uint8_t *p, uint32_t len)
{
	struct gpudp_ref_hs_got g = {
		.len = len, .endswith = !!(rs->check[r->check].flags & GPUDP_RULE_F_ENDSWITH),
	};

	if (hs_scan(db, (const char *)p, len, 0, hss, gpudp_ref_hs_on_match, &g) !=
	    HS_SUCCESS && !g.hit)
		return -1;
	return g.hit;
}
#endif

#endif /* GPUDP_TEST_RULES_REF_H */

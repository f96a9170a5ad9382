/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * gpudp_rules_eval: whether a packet's payload satisfies a rule's contents,
 * isdataat checks and dsize (doc/rules.md, "Matching"), and whether its
 * addresses and ports satisfy the rule's header.
 *
 * A rule's checks hold when some choice of one match for each content, in
 * the rule's order, satisfies every modifier: offset and depth from the
 * payload's start (depth counted from offset), distance and within from
 * the end of the previous content's match (within counted from distance),
 * startswith, endswith, nocase, and each isdataat from the payload's start
 * or the previous match's end. That choice is searched as sets rather than
 * by backtracking: after each content, the set of ends its matches can
 * have given the contents before, a bit set over the payload's positions;
 * the rule holds when the last set is not empty. Time O(contents x payload x content length), no recursion, and
 * the same answer as trying every combination.
 *
 * Inline and free of allocation (the caller gives the scratch memory), so
 * that the CPU and the GPU can share it. Pure C11.
 */
#ifndef GPUDP_RULES_EVAL_H
#define GPUDP_RULES_EVAL_H

#include <stdint.h>

#include "gpudp_rules.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __CUDACC__
#define GPUDP_RULES_HD static __host__ __device__ inline
#else
#define GPUDP_RULES_HD static inline
#endif

/** Words of one set of match ends over a payload of @p len bytes (ends 0..len). */
#define GPUDP_RULES_EVAL_WORDS(len) (((uint32_t)(len) + 32u) / 32u)
/** Scratch bytes gpudp_rule_payload_match() needs for a payload of @p len bytes. */
#define GPUDP_RULES_EVAL_SCRATCH(len) (2u * GPUDP_RULES_EVAL_WORDS(len) * (uint32_t)sizeof(uint32_t))

/** A packet as the header conditions see it. */
struct gpudp_rule_pkt {
	uint8_t af;          /**< 4 or 6 */
	uint8_t proto;       /**< IP protocol number (after IPv6 extension headers) */
	uint16_t sport;      /**< host order; 0 without ports */
	uint16_t dport;      /**< host order; 0 without ports; ICMP: type << 8 | code */
	uint8_t src[16];     /**< network order; IPv4 in the first 4 bytes */
	uint8_t dst[16];
};

GPUDP_RULES_HD uint8_t
gpudp_rules_lower(uint8_t c)
{
	return c >= 'A' && c <= 'Z' ? (uint8_t)(c + 32) : c;
}

/* the content's bytes at p[s..] (nocase: either case of ASCII letters) */
GPUDP_RULES_HD int
gpudp_rules_at(const uint8_t *p, uint32_t s, const uint8_t *c, uint32_t n, int nocase)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (nocase ? gpudp_rules_lower(p[s + i]) != gpudp_rules_lower(c[i]) :
		    p[s + i] != c[i])
			return 0;
	return 1;
}

/* the index of the lowest bit set in @p m (not 0) */
GPUDP_RULES_HD uint32_t
gpudp_rules_ctz(uint32_t m)
{
#ifdef __CUDA_ARCH__
	return (uint32_t)__ffs((int)m) - 1u;
#else
	return (uint32_t)__builtin_ctz(m);
#endif
}

/* whether a bit of @p b in [lo, hi] (inclusive, lo <= hi) is set */
GPUDP_RULES_HD int
gpudp_rules_bits_any(const uint32_t *b, uint32_t lo, uint32_t hi)
{
	uint32_t wl = lo / 32u, wh = hi / 32u, w;
	uint32_t ml = ~0u << (lo % 32u), mh = ~0u >> (31u - hi % 32u);

	if (wl == wh)
		return (b[wl] & ml & mh) != 0;
	if (b[wl] & ml)
		return 1;
	for (w = wl + 1; w < wh; w++)
		if (b[w] != 0)
			return 1;
	return (b[wh] & mh) != 0;
}

/**
 * The payload checks of rule @p r of @p rs on @p len bytes at @p p:
 * dsize, then the contents and isdataat checks.
 * @param scratch GPUDP_RULES_EVAL_SCRATCH(len) bytes, 4-byte aligned
 * @return 1: they hold, 0: they do not
 */
GPUDP_RULES_HD int
gpudp_rule_payload_match(const struct gpudp_rules *rs, const struct gpudp_rule *r,
			 const uint8_t *p, uint32_t len, void *scratch)
{
	/* bit e of reach (e in 0..len): a match of the contents so far can
	 * end at e; none: no content yet */
	uint32_t nw = GPUDP_RULES_EVAL_WORDS(len);
	uint32_t *reach = (uint32_t *)scratch, *next = reach + nw, *t;
	uint32_t i, e, s, w;
	int none = 1, any;

	switch (r->dsize_op) {
	case GPUDP_RULE_DSIZE_EQ: if (len != r->dsize_a) return 0; break;
	case GPUDP_RULE_DSIZE_NE: if (len == r->dsize_a) return 0; break;
	case GPUDP_RULE_DSIZE_LT: if (len >= r->dsize_a) return 0; break;
	case GPUDP_RULE_DSIZE_GT: if (len <= r->dsize_a) return 0; break;
	case GPUDP_RULE_DSIZE_RANGE:
		if (len <= r->dsize_a || len >= r->dsize_b)
			return 0;
		break;
	default: break;
	}
	for (i = 0; i < r->n_check; i++) {
		const struct gpudp_rule_check *c = &rs->check[r->check + i];
		int64_t lo, hi;   /* the match's start >= lo, its end <= hi */

		if (c->kind == GPUDP_RULE_ISDATAAT) {
			int neg = (c->flags & GPUDP_RULE_F_NEG) != 0;

			if (!(c->flags & GPUDP_RULE_F_RELATIVE)) {
				if (((uint64_t)c->at < len) == neg)
					return 0;
				continue;
			}
			if (none)   /* relative with no content before: never parsed */
				return 0;
			/* keep the ends after which the byte is (or is not) there */
			any = 0;
			for (w = 0; w < nw; w++) {
				uint32_t m = reach[w];

				while (m != 0) {
					uint32_t b = gpudp_rules_ctz(m);

					m &= m - 1u;
					e = w * 32u + b;
					if (((uint64_t)e + c->at < len) == neg)
						reach[w] &= ~(1u << b);
				}
				any |= reach[w] != 0;
			}
			if (!any)
				return 0;
			continue;
		}
		if (none && (c->flags & (GPUDP_RULE_F_DISTANCE | GPUDP_RULE_F_WITHIN)))
			return 0;   /* never parsed */
		for (w = 0; w < nw; w++)
			next[w] = 0;
		any = 0;
		for (s = 0; s + c->len <= len; s++) {
			if (!gpudp_rules_at(p, s, rs->bytes + c->bytes, c->len,
					    (c->flags & GPUDP_RULE_F_NOCASE) != 0))
				continue;
			e = s + c->len;
			if ((c->flags & GPUDP_RULE_F_STARTSWITH) && s != 0)
				continue;
			if ((c->flags & GPUDP_RULE_F_ENDSWITH) && e != len)
				continue;
			if (c->flags & (GPUDP_RULE_F_DISTANCE | GPUDP_RULE_F_WITHIN)) {
				/* a previous end q with q + distance <= s and, with
				 * within, e <= q + distance + within */
				int64_t d = (c->flags & GPUDP_RULE_F_DISTANCE) ? c->distance : 0;
				int64_t qhi = (int64_t)s - d, qlo = 0;

				if (c->flags & GPUDP_RULE_F_WITHIN)
					qlo = (int64_t)e - d - c->within;
				if (qlo < 0)
					qlo = 0;
				if (qhi > (int64_t)len)
					qhi = len;
				if (qhi < qlo ||
				    !gpudp_rules_bits_any(reach, (uint32_t)qlo, (uint32_t)qhi))
					continue;
			} else {
				lo = (c->flags & GPUDP_RULE_F_OFFSET) ? c->offset : 0;
				hi = (c->flags & GPUDP_RULE_F_DEPTH) ? lo + c->depth : (int64_t)len;
				if ((int64_t)s < lo || (int64_t)e > hi)
					continue;
			}
			next[e / 32u] |= 1u << (e % 32u);
			any = 1;
		}
		if (!any)
			return 0;
		t = reach;
		reach = next;
		next = t;
		none = 0;
	}
	return 1;
}

/* @p a in network @p n (af and prefix) */
GPUDP_RULES_HD int
gpudp_rules_in_net(const uint8_t *a, uint8_t af, const struct gpudp_rule_net *n)
{
	uint32_t full = n->prefix / 8u, rest = n->prefix % 8u, i;

	if (af != n->af)
		return 0;
	for (i = 0; i < full; i++)
		if (a[i] != n->addr[i])
			return 0;
	return rest == 0 || ((a[full] ^ n->addr[full]) & (uint8_t)(0xffu << (8u - rest))) == 0;
}

/* one entry's verdict into its list's (@p pos: an "in" entry seen, @p in:
 * the packet is in one); @return 0 when the list fails already */
GPUDP_RULES_HD int
gpudp_rules_entry(int neg, int hit, int *pos, int *in)
{
	if (neg)
		return !hit;
	*pos = 1;
	*in |= hit;
	return 1;
}

/* an address list: in one of the "in" entries (or none), in no "not in" one */
GPUDP_RULES_HD int
gpudp_rules_addr_ok(const struct gpudp_rules *rs, uint32_t first, uint32_t n, const uint8_t *a,
		    uint8_t af)
{
	uint32_t i;
	int pos = 0, in = 0;

	for (i = 0; i < n; i++)
		if (!gpudp_rules_entry(rs->net[first + i].neg,
				       gpudp_rules_in_net(a, af, &rs->net[first + i]), &pos, &in))
			return 0;
	return !pos || in;
}

/* the same for a port list */
GPUDP_RULES_HD int
gpudp_rules_port_ok(const struct gpudp_rules *rs, uint32_t first, uint32_t n, uint16_t port)
{
	uint32_t i;
	int pos = 0, in = 0;

	for (i = 0; i < n; i++)
		if (!gpudp_rules_entry(rs->port[first + i].neg, port >= rs->port[first + i].lo &&
				       port <= rs->port[first + i].hi, &pos, &in))
			return 0;
	return !pos || in;
}

/* the header one way: source as the rule's source */
GPUDP_RULES_HD int
gpudp_rules_way_ok(const struct gpudp_rules *rs, const struct gpudp_rule *r,
		   const uint8_t *src, uint16_t sport, const uint8_t *dst, uint16_t dport,
		   uint8_t af, int ports)
{
	return gpudp_rules_addr_ok(rs, r->src, r->n_src, src, af) &&
	       gpudp_rules_addr_ok(rs, r->dst, r->n_dst, dst, af) &&
	       (!ports || (gpudp_rules_port_ok(rs, r->sport, r->n_sport, sport) &&
			   gpudp_rules_port_ok(rs, r->dport, r->n_dport, dport)));
}

/**
 * The header of rule @p r: protocol, addresses, ports (tcp and udp rules
 * only: the parser keeps the other rules' ports `any`), either way for
 * `<>`.
 * @return 1: the packet is one the rule looks at, 0: it is not
 */
GPUDP_RULES_HD int
gpudp_rule_header_match(const struct gpudp_rules *rs, const struct gpudp_rule *r,
			const struct gpudp_rule_pkt *k)
{
	int ports = r->proto == GPUDP_RULE_TCP || r->proto == GPUDP_RULE_UDP;

	if ((r->proto == GPUDP_RULE_TCP && k->proto != 6) ||
	    (r->proto == GPUDP_RULE_UDP && k->proto != 17) ||
	    (r->proto == GPUDP_RULE_ICMP && k->proto != 1 && k->proto != 58))
		return 0;
	if (gpudp_rules_way_ok(rs, r, k->src, k->sport, k->dst, k->dport, k->af, ports))
		return 1;
	return r->bidir &&
	       gpudp_rules_way_ok(rs, r, k->dst, k->dport, k->src, k->sport, k->af, ports);
}

#ifdef __cplusplus
}
#endif

#endif /* GPUDP_RULES_EVAL_H */

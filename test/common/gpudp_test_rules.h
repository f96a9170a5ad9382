/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of lib/rules: two parsed rules compared field by field, what they
 * point into included (the unit test's round trips and fuzz_rules).
 */
#ifndef GPUDP_TEST_RULES_H
#define GPUDP_TEST_RULES_H

#include <string.h>

#include <gpudp_rules.h>

static inline int
gpudp_test_rule_str_eq(const struct gpudp_rules *a, uint32_t x, const struct gpudp_rules *b,
		       uint32_t y)
{
	if (x == UINT32_MAX || y == UINT32_MAX)
		return x == y;
	return strcmp((const char *)a->bytes + x, (const char *)b->bytes + y) == 0;
}

/** @return 1 when rule @p ra of @p a and rule @p rb of @p b are the same rule */
static inline int
gpudp_test_rule_eq(const struct gpudp_rules *a, const struct gpudp_rule *ra,
		   const struct gpudp_rules *b, const struct gpudp_rule *rb)
{
	uint32_t i;

	if (ra->sid != rb->sid || ra->rev != rb->rev || ra->priority != rb->priority ||
	    ra->action != rb->action || ra->proto != rb->proto || ra->bidir != rb->bidir ||
	    ra->dsize_op != rb->dsize_op || ra->dsize_a != rb->dsize_a ||
	    ra->dsize_b != rb->dsize_b || ra->fast != rb->fast ||
	    ra->n_src != rb->n_src || ra->n_dst != rb->n_dst || ra->n_sport != rb->n_sport ||
	    ra->n_dport != rb->n_dport || ra->n_check != rb->n_check ||
	    !gpudp_test_rule_str_eq(a, ra->msg, b, rb->msg) ||
	    !gpudp_test_rule_str_eq(a, ra->classtype, b, rb->classtype))
		return 0;
	if ((ra->n_src && memcmp(&a->net[ra->src], &b->net[rb->src], ra->n_src * sizeof(a->net[0]))) ||
	    (ra->n_dst && memcmp(&a->net[ra->dst], &b->net[rb->dst], ra->n_dst * sizeof(a->net[0]))))
		return 0;
	for (i = 0; i < ra->n_sport; i++) {
		const struct gpudp_rule_port *p = &a->port[ra->sport + i], *q = &b->port[rb->sport + i];

		if (p->lo != q->lo || p->hi != q->hi || p->neg != q->neg)
			return 0;
	}
	for (i = 0; i < ra->n_dport; i++) {
		const struct gpudp_rule_port *p = &a->port[ra->dport + i], *q = &b->port[rb->dport + i];

		if (p->lo != q->lo || p->hi != q->hi || p->neg != q->neg)
			return 0;
	}
	for (i = 0; i < ra->n_check; i++) {
		const struct gpudp_rule_check *c = &a->check[ra->check + i];
		const struct gpudp_rule_check *d = &b->check[rb->check + i];

		if (c->kind != d->kind || c->flags != d->flags || c->len != d->len ||
		    c->offset != d->offset || c->depth != d->depth || c->distance != d->distance ||
		    c->within != d->within || c->at != d->at ||
		    (c->kind == GPUDP_RULE_CONTENT &&
		     memcmp(a->bytes + c->bytes, b->bytes + d->bytes, c->len) != 0))
			return 0;
	}
	return 1;
}

#endif /* GPUDP_TEST_RULES_H */

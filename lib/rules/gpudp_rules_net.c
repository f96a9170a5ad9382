/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A rule's address and port lists (doc/rules.md, "Addresses and ports"):
 * any, an address or a CIDR prefix (IPv4, IPv6), a port or a range
 * (N:M, N:, :M), a variable ($NAME, from gpudp_rules_vars()), a list in
 * brackets, and ! before any of them. Lists nest; they are flattened into
 * entries that each say "in" or "not in": a packet's address matches when
 * it is in one of the "in" entries (or there are none) and in none of the
 * "not in" ones. A negated list negates each of its entries, which keeps
 * that meaning (not (a or b) is (not a) and (not b)).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "gpudp_rules_pvt.h"

/* variables inside variables: at most this deep (a loop is an error) */
#define VAR_DEPTH 8

struct list {
	struct rp *p;
	int ports;            /* 1: ports, 0: addresses */
	uint32_t first, n;    /* entries added */
	int any_pos;          /* an "any" not negated: the list matches all */
};

static int item(struct list *l, const char *s, size_t len, int neg, int depth);

static int
is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static void
trim(const char **s, size_t *len)
{
	while (*len > 0 && is_blank(**s)) {
		(*s)++;
		(*len)--;
	}
	while (*len > 0 && is_blank((*s)[*len - 1]))
		(*len)--;
}

static int
add_net(struct list *l, const struct gpudp_rule_net *e)
{
	struct gpudp_rules *rs = l->p->rs;

	if (l->n >= GPUDP_RULE_LIST_MAX)
		return rp_fail(l->p, "an address list of more than %u entries",
			       GPUDP_RULE_LIST_MAX);
	if (rules_grow((void **)&rs->net, &rs->cap_net, rs->n_net, sizeof(*e), 1) != 0)
		return -ENOMEM;
	rs->net[rs->n_net++] = *e;
	l->n++;
	return 0;
}

static int
add_port(struct list *l, const struct gpudp_rule_port *e)
{
	struct gpudp_rules *rs = l->p->rs;

	if (l->n >= GPUDP_RULE_LIST_MAX)
		return rp_fail(l->p, "a port list of more than %u entries", GPUDP_RULE_LIST_MAX);
	if (rules_grow((void **)&rs->port, &rs->cap_port, rs->n_port, sizeof(*e), 1) != 0)
		return -ENOMEM;
	rs->port[rs->n_port++] = *e;
	l->n++;
	return 0;
}

/* digits only, at most @p max; @return 0 or -1 */
static int
number(const char *s, size_t len, uint32_t max, uint32_t *v)
{
	uint64_t x = 0;
	size_t i;

	if (len == 0 || len > 10)
		return -1;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		x = x * 10 + (uint64_t)(s[i] - '0');
	}
	if (x > max)
		return -1;
	*v = (uint32_t)x;
	return 0;
}

static int
one_port(struct list *l, const char *s, size_t len, int neg)
{
	struct gpudp_rule_port e = { .lo = 0, .hi = 65535, .neg = (uint8_t)neg };
	const char *c = memchr(s, ':', len);
	uint32_t a, b;

	if (c == NULL) {
		if (number(s, len, 65535, &a) != 0)
			return rp_fail(l->p, "bad port '%.*s' (0..65535, N:M, N:, :M)", (int)len, s);
		e.lo = e.hi = (uint16_t)a;
		return add_port(l, &e);
	}
	a = 0;
	b = 65535;
	if ((c > s && number(s, (size_t)(c - s), 65535, &a) != 0) ||
	    (c + 1 < s + len && number(c + 1, (size_t)(s + len - c - 1), 65535, &b) != 0) ||
	    len == 1 || a > b)
		return rp_fail(l->p, "bad port range '%.*s' (N:M with N <= M, N:, :M)",
			       (int)len, s);
	e.lo = (uint16_t)a;
	e.hi = (uint16_t)b;
	return add_port(l, &e);
}

static int
one_net(struct list *l, const char *s, size_t len, int neg)
{
	struct gpudp_rule_net e = { .neg = (uint8_t)neg };
	const char *sl = memchr(s, '/', len);
	size_t alen = sl != NULL ? (size_t)(sl - s) : len;
	char buf[64];
	uint32_t pfx, max, i;

	if (alen == 0 || alen >= sizeof(buf))
		return rp_fail(l->p, "bad address '%.*s'", (int)len, s);
	memcpy(buf, s, alen);
	buf[alen] = 0;
	if (inet_pton(AF_INET, buf, e.addr) == 1) {
		e.af = 4;
		max = 32;
	} else if (inet_pton(AF_INET6, buf, e.addr) == 1) {
		e.af = 6;
		max = 128;
	} else {
		return rp_fail(l->p, "bad address '%.*s' (an IPv4 or IPv6 address, "
			       "optionally /prefix)", (int)len, s);
	}
	pfx = max;
	if (sl != NULL && number(sl + 1, (size_t)(s + len - sl - 1), max, &pfx) != 0)
		return rp_fail(l->p, "bad prefix length in '%.*s' (0..%u)", (int)len, s, max);
	e.prefix = (uint8_t)pfx;
	/* host bits cleared: one spelling per network */
	for (i = pfx; i < max; i++)
		e.addr[i / 8] &= (uint8_t)~(0x80u >> (i % 8));
	return add_net(l, &e);
}

/* [a, b, ...]: the entries between the brackets, each with @p neg */
static int
bracket(struct list *l, const char *s, size_t len, int neg, int depth)
{
	size_t i, start = 1;
	int lvl = 0, rc;

	if (len < 2 || s[len - 1] != ']')
		return rp_fail(l->p, "a list that opens '[' closes it: '%.*s'", (int)len, s);
	for (i = 1; i < len - 1; i++) {
		if (s[i] == '[')
			lvl++;
		else if (s[i] == ']' && --lvl < 0)
			return rp_fail(l->p, "']' without '[' in '%.*s'", (int)len, s);
		else if (s[i] == ',' && lvl == 0) {
			rc = item(l, s + start, i - start, neg, depth);
			if (rc != 0)
				return rc;
			start = i + 1;
		}
	}
	if (lvl != 0)
		return rp_fail(l->p, "'[' without ']' in '%.*s'", (int)len, s);
	return item(l, s + start, len - 1 - start, neg, depth);
}

static int
item(struct list *l, const char *s, size_t len, int neg, int depth)
{
	const char *v;
	size_t n;

	trim(&s, &len);
	if (len == 0)
		return rp_fail(l->p, "an empty entry in an %s list",
			       l->ports ? "port" : "address");
	if (s[0] == '!')
		return item(l, s + 1, len - 1, !neg, depth);
	if (s[0] == '[')
		return bracket(l, s, len, neg, depth);
	if (s[0] == '$') {
		for (n = 1; n < len && ((s[n] >= 'A' && s[n] <= 'Z') || (s[n] >= 'a' && s[n] <= 'z') ||
					(s[n] >= '0' && s[n] <= '9') || s[n] == '_'); n++)
			;
		if (n != len || n == 1)
			return rp_fail(l->p, "bad variable name '%.*s'", (int)len, s);
		v = rules_var(l->p->rs, s + 1, len - 1);
		if (v == NULL)
			return rp_fail(l->p, "variable %.*s is not defined (--rule-vars)",
				       (int)len, s);
		if (depth >= VAR_DEPTH)
			return rp_fail(l->p, "variable %.*s: variables nested more than %u deep "
				       "(a loop?)", (int)len, s, VAR_DEPTH);
		return item(l, v, strlen(v), neg, depth + 1);
	}
	if (len == 3 && memcmp(s, "any", 3) == 0) {
		if (neg)
			return rp_fail(l->p, "!any matches nothing");
		l->any_pos = 1;
		return 0;
	}
	return l->ports ? one_port(l, s, len, neg) : one_net(l, s, len, neg);
}

static int
list(struct rp *p, int ports, const char *s, size_t len, uint32_t *first, uint32_t *n)
{
	struct gpudp_rules *rs = p->rs;
	struct list l = { .p = p, .ports = ports, .first = ports ? rs->n_port : rs->n_net };
	uint32_t i, w;
	int rc = item(&l, s, len, 0, 0);

	if (rc != 0)
		return rc;
	/* "any" among the entries: those that are "in" add nothing */
	if (l.any_pos) {
		for (i = w = 0; i < l.n; i++) {
			if (ports && rs->port[l.first + i].neg)
				rs->port[l.first + w++] = rs->port[l.first + i];
			else if (!ports && rs->net[l.first + i].neg)
				rs->net[l.first + w++] = rs->net[l.first + i];
		}
		if (ports)
			rs->n_port = l.first + w;
		else
			rs->n_net = l.first + w;
		l.n = w;
	}
	*first = l.first;
	*n = l.n;
	return 0;
}

int
rules_addrs(struct rp *p, const char *s, size_t len, uint32_t *first, uint32_t *n)
{
	return list(p, 0, s, len, first, n);
}

int
rules_ports(struct rp *p, const char *s, size_t len, uint32_t *first, uint32_t *n)
{
	return list(p, 1, s, len, first, n);
}

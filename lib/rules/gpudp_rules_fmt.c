/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A rule written back as rule text (gpudp_rule_format()): one canonical
 * spelling of what the parser built, which it reads back to an equal rule
 * (the fuzz target fuzz_rules checks it on every rule it parses).
 */
#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "gpudp_rules.h"

struct out {
	char *buf;
	size_t len, at;   /* at: the length so far, even past len */
};

static void __attribute__((format(printf, 2, 3)))
put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(o->at < o->len ? o->buf + o->at : NULL,
		      o->at < o->len ? o->len - o->at : 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->at += (size_t)n;
}

static void
net(struct out *o, const struct gpudp_rules *rs, uint32_t k)
{
	const struct gpudp_rule_net *e = &rs->net[k];
	char a[INET6_ADDRSTRLEN];

	inet_ntop(e->af == 4 ? AF_INET : AF_INET6, e->addr, a, sizeof(a));
	put(o, "%s%s", e->neg ? "!" : "", a);
	if (e->prefix != (e->af == 4 ? 32 : 128))
		put(o, "/%u", e->prefix);
}

static void
port(struct out *o, const struct gpudp_rules *rs, uint32_t k)
{
	const struct gpudp_rule_port *e = &rs->port[k];

	put(o, "%s%u", e->neg ? "!" : "", e->lo);
	if (e->hi != e->lo)
		put(o, ":%u", e->hi);
}

/* entries [first, first + n) with @p one: any, one entry, or [a,b,...] */
static void
list(struct out *o, const struct gpudp_rules *rs, uint32_t first, uint32_t n,
     void (*one)(struct out *, const struct gpudp_rules *, uint32_t))
{
	uint32_t i;

	if (n == 0) {
		put(o, "any");
		return;
	}
	put(o, "%s", n > 1 ? "[" : "");
	for (i = 0; i < n; i++) {
		put(o, "%s", i > 0 ? "," : "");
		one(o, rs, first + i);
	}
	put(o, "%s", n > 1 ? "]" : "");
}

static int
plain(uint8_t c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* letters and digits as they are, every other byte in |hex| */
static void
content(struct out *o, const uint8_t *b, uint32_t len)
{
	uint32_t i;
	int hex = 0;

	put(o, "content:\"");
	for (i = 0; i < len; i++) {
		if (plain(b[i])) {
			if (hex)
				put(o, "|");
			hex = 0;
			put(o, "%c", b[i]);
		} else {
			put(o, hex ? " %02X" : "|%02X", b[i]);
			hex = 1;
		}
	}
	put(o, "%s\"; ", hex ? "|" : "");
}

/* a quoted string with ", ; and \ escaped */
static void
string(struct out *o, const char *kw, const char *s)
{
	put(o, "%s:\"", kw);
	for (; *s != 0; s++)
		put(o, "%s%c", *s == '"' || *s == ';' || *s == '\\' ? "\\" : "", *s);
	put(o, "\"; ");
}

static void
check(struct out *o, const struct gpudp_rules *rs, const struct gpudp_rule_check *c)
{
	if (c->kind == GPUDP_RULE_ISDATAAT) {
		put(o, "isdataat:%s%u%s; ", c->flags & GPUDP_RULE_F_NEG ? "!" : "", c->at,
		    c->flags & GPUDP_RULE_F_RELATIVE ? ",relative" : "");
		return;
	}
	content(o, rs->bytes + c->bytes, c->len);
	if (c->flags & GPUDP_RULE_F_NOCASE)
		put(o, "nocase; ");
	if (c->flags & GPUDP_RULE_F_STARTSWITH)
		put(o, "startswith; ");
	if (c->flags & GPUDP_RULE_F_ENDSWITH)
		put(o, "endswith; ");
	if (c->flags & GPUDP_RULE_F_OFFSET)
		put(o, "offset:%d; ", c->offset);
	if (c->flags & GPUDP_RULE_F_DEPTH)
		put(o, "depth:%d; ", c->depth);
	if (c->flags & GPUDP_RULE_F_DISTANCE)
		put(o, "distance:%d; ", c->distance);
	if (c->flags & GPUDP_RULE_F_WITHIN)
		put(o, "within:%d; ", c->within);
	if (c->flags & GPUDP_RULE_F_FAST)
		put(o, "fast_pattern; ");
}

int
gpudp_rule_format(const struct gpudp_rules *rs, const struct gpudp_rule *r, char *buf,
		  size_t len)
{
	static const char *const proto[] = { "?", "ip", "tcp", "udp", "icmp" };
	struct out o = { .buf = buf, .len = len };
	uint32_t i;

	if (len > 0)
		buf[0] = 0;
	put(&o, "%s %s ", r->action == GPUDP_RULE_DROP ? "drop" : "alert",
	    proto[r->proto <= GPUDP_RULE_ICMP ? r->proto : 0]);
	list(&o, rs, r->src, r->n_src, net);
	put(&o, " ");
	list(&o, rs, r->sport, r->n_sport, port);
	put(&o, " %s ", r->bidir ? "<>" : "->");
	list(&o, rs, r->dst, r->n_dst, net);
	put(&o, " ");
	list(&o, rs, r->dport, r->n_dport, port);
	put(&o, " (");
	if (r->msg != UINT32_MAX)
		string(&o, "msg", (const char *)rs->bytes + r->msg);
	for (i = 0; i < r->n_check; i++)
		check(&o, rs, &rs->check[r->check + i]);
	switch (r->dsize_op) {
	case GPUDP_RULE_DSIZE_EQ:
		put(&o, "dsize:%u; ", r->dsize_a);
		break;
	case GPUDP_RULE_DSIZE_NE:
		put(&o, "dsize:!%u; ", r->dsize_a);
		break;
	case GPUDP_RULE_DSIZE_LT:
		put(&o, "dsize:<%u; ", r->dsize_a);
		break;
	case GPUDP_RULE_DSIZE_GT:
		put(&o, "dsize:>%u; ", r->dsize_a);
		break;
	case GPUDP_RULE_DSIZE_RANGE:
		put(&o, "dsize:%u<>%u; ", r->dsize_a, r->dsize_b);
		break;
	default:
		break;
	}
	if (r->classtype != UINT32_MAX)
		put(&o, "classtype:%s; ", (const char *)rs->bytes + r->classtype);
	if (r->priority != 0)
		put(&o, "priority:%u; ", r->priority);
	put(&o, "sid:%u; rev:%u;)", r->sid, r->rev);
	return (int)o.at;
}

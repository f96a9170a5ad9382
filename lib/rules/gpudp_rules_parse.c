/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rule parser (gpudp_rules.h, doc/rules.md): a rule's header (action,
 * protocol, addresses, ports, direction), then its options in parentheses,
 * each `name;` or `name:value;`, values with `\"`, `\;` and `\\` escaped.
 * Each rule is checked as a whole before it is kept; a rule that fails
 * leaves nothing in the set.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpudp_rules_pvt.h"

/* keywords already warned about in skip mode, per gpudp_rules_parse() */
#define WARNED_MAX 64

static int
is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static int
unsupported(struct rp *p, const char *what, const char *kw)
{
	snprintf(p->unsupported, sizeof(p->unsupported), "%s", kw);
	rp_fail(p, "unsupported %s '%s' (doc/rules.md lists the subset)", what, kw);
	return -ENOTSUP;
}

/* a signed or unsigned decimal within [lo, hi] */
static int
num(const char *s, size_t n, int64_t lo, int64_t hi, int64_t *v)
{
	int64_t x = 0;
	size_t i = 0;
	int neg = 0;

	if (n > 0 && s[0] == '-') {
		neg = 1;
		i = 1;
	}
	if (i == n || n - i > 10)
		return -1;
	for (; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		x = x * 10 + (s[i] - '0');
	}
	x = neg ? -x : x;
	if (x < lo || x > hi)
		return -1;
	*v = x;
	return 0;
}

/* a value in double quotes, escapes undone into @p out (at most @p max);
 * @p hex: |41 42| runs of hex bytes too (content) */
static int
quoted(struct rp *p, const char *kw, const char *s, size_t n, int hex, uint8_t *out,
       size_t max, size_t *olen)
{
	size_t i, o = 0;
	int in_hex = 0, half = -1, d;

	if (n < 2 || s[0] != '"' || s[n - 1] != '"')
		return rp_fail(p, "%s: the value goes in double quotes", kw);
	for (i = 1; i < n - 1; i++) {
		char c = s[i];

		if (in_hex) {
			if (c == '|') {
				if (half >= 0)
					return rp_fail(p, "%s: an odd number of hex digits", kw);
				in_hex = 0;
				continue;
			}
			if (c == ' ')
				continue;
			d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
			    c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
			if (d < 0)
				return rp_fail(p, "%s: '%c' between | | is not a hex digit", kw, c);
			if (half < 0) {
				half = d;
				continue;
			}
			c = (char)(half << 4 | d);
			half = -1;
		} else if (c == '|' && hex) {
			in_hex = 1;
			continue;
		} else if (c == '\\') {
			if (i + 1 >= n - 1 || (s[i + 1] != '"' && s[i + 1] != ';' &&
					       s[i + 1] != '\\' && s[i + 1] != ':'))
				return rp_fail(p, "%s: a backslash escapes \", ;, : or \\ only", kw);
			c = s[++i];
		} else if (c == '"' || c == ';') {
			return rp_fail(p, "%s: '%c' inside the quotes is escaped with \\", kw, c);
		}
		if (o >= max)
			return rp_fail(p, "%s: longer than %zu bytes", kw, max);
		out[o++] = (uint8_t)c;
	}
	if (in_hex)
		return rp_fail(p, "%s: a '|' opens hex bytes and another closes them", kw);
	*olen = o;
	return 0;
}

/* what one rule's options built before the checks of the whole */
struct opts {
	struct gpudp_rule *r;
	int has_sid, has_rev, has_msg, has_class, has_prio;
	struct gpudp_rule_check *last;   /* the last check, where modifiers go */
};

static int
add_check(struct rp *p, struct opts *o, const struct gpudp_rule_check *c)
{
	struct gpudp_rules *rs = p->rs;

	if (o->r->n_check >= GPUDP_RULE_CHECKS_MAX)
		return rp_fail(p, "more than %u contents and isdataat checks",
			       GPUDP_RULE_CHECKS_MAX);
	if (rules_grow((void **)&rs->check, &rs->cap_check, rs->n_check, sizeof(*c), 1) != 0)
		return -ENOMEM;
	rs->check[rs->n_check] = *c;
	o->last = &rs->check[rs->n_check++];
	o->r->n_check++;
	return 0;
}

/* a modifier of the last content: @p flag once */
static int
modifier(struct rp *p, struct opts *o, const char *kw, uint32_t flag)
{
	if (o->last == NULL || o->last->kind != GPUDP_RULE_CONTENT)
		return rp_fail(p, "%s: no content before it to modify", kw);
	if (o->last->flags & flag)
		return rp_fail(p, "%s: given twice for one content", kw);
	o->last->flags |= flag;
	return 0;
}

static int
opt_content(struct rp *p, struct opts *o, const char *v, size_t n)
{
	struct gpudp_rule_check c = { .kind = GPUDP_RULE_CONTENT };
	uint8_t buf[GPUDP_RULE_CONTENT_MAX];
	size_t len;
	int rc;

	if (n > 0 && v[0] == '!')
		return unsupported(p, "keyword", "content:!");
	rc = quoted(p, "content", v, n, 1, buf, sizeof(buf), &len);
	if (rc != 0)
		return rc;
	if (len == 0)
		return rp_fail(p, "content: empty");
	c.len = (uint16_t)len;
	if (rules_put_bytes(p->rs, buf, (uint32_t)len, 0, &c.bytes) != 0)
		return -ENOMEM;
	return add_check(p, o, &c);
}

static int
opt_number_mod(struct rp *p, struct opts *o, const char *kw, const char *v, size_t n)
{
	static const struct {
		const char *kw;
		uint32_t flag;
		int64_t lo;
	} mods[] = {
		{ "offset", GPUDP_RULE_F_OFFSET, 0 }, { "depth", GPUDP_RULE_F_DEPTH, 1 },
		{ "distance", GPUDP_RULE_F_DISTANCE, -65535 }, { "within", GPUDP_RULE_F_WITHIN, 1 },
	};
	int64_t x;
	unsigned int i;
	int rc;

	for (i = 0; strcmp(mods[i].kw, kw) != 0; i++)
		;
	if (num(v, n, mods[i].lo, 65535, &x) != 0)
		return rp_fail(p, "%s: bad value '%.*s' (%lld..65535)", kw, (int)n, v,
			       (long long)mods[i].lo);
	rc = modifier(p, o, kw, mods[i].flag);
	if (rc != 0)
		return rc;
	if (i == 0)
		o->last->offset = (int32_t)x;
	else if (i == 1)
		o->last->depth = (int32_t)x;
	else if (i == 2)
		o->last->distance = (int32_t)x;
	else
		o->last->within = (int32_t)x;
	return 0;
}

static int
opt_isdataat(struct rp *p, struct opts *o, const char *v, size_t n)
{
	struct gpudp_rule_check c = { .kind = GPUDP_RULE_ISDATAAT };
	const char *comma = memchr(v, ',', n);
	size_t k = comma != NULL ? (size_t)(comma - v) : n;
	int64_t x;

	if (k > 0 && v[0] == '!') {
		c.flags |= GPUDP_RULE_F_NEG;
		v++;
		n--;
		k--;
	}
	if (num(v, k, 0, 65535, &x) != 0)
		return rp_fail(p, "isdataat: bad position '%.*s' (0..65535)", (int)k, v);
	c.at = (uint32_t)x;
	if (comma != NULL) {
		const char *r = v + k + 1;
		size_t rn = n - k - 1;

		while (rn > 0 && is_blank(*r)) {
			r++;
			rn--;
		}
		if (rn != 8 || memcmp(r, "relative", 8) != 0)
			return unsupported(p, "isdataat form", "isdataat:...,rawbytes");
		c.flags |= GPUDP_RULE_F_RELATIVE;
	}
	return add_check(p, o, &c);
}

static int
opt_dsize(struct rp *p, struct gpudp_rule *r, const char *v, size_t n)
{
	const char *rng = NULL;
	int64_t a, b = 0;
	size_t i;

	for (i = 0; i + 1 < n; i++)
		if (v[i] == '<' && v[i + 1] == '>')
			rng = v + i;
	if (r->dsize_op != GPUDP_RULE_DSIZE_NONE)
		return rp_fail(p, "dsize: given twice");
	if (rng != NULL) {
		if (num(v, (size_t)(rng - v), 0, 65535, &a) != 0 ||
		    num(rng + 2, (size_t)(v + n - rng - 2), 0, 65535, &b) != 0 || a >= b)
			return rp_fail(p, "dsize: bad range '%.*s' (N<>M, N < M)", (int)n, v);
		r->dsize_op = GPUDP_RULE_DSIZE_RANGE;
	} else if (n > 0 && (v[0] == '<' || v[0] == '>' || v[0] == '!')) {
		if (num(v + 1, n - 1, 0, 65535, &a) != 0)
			return rp_fail(p, "dsize: bad value '%.*s'", (int)n, v);
		r->dsize_op = v[0] == '<' ? GPUDP_RULE_DSIZE_LT : v[0] == '>' ?
			      GPUDP_RULE_DSIZE_GT : GPUDP_RULE_DSIZE_NE;
	} else {
		if (num(v, n, 0, 65535, &a) != 0)
			return rp_fail(p, "dsize: bad value '%.*s' (N, <N, >N, !N, N<>M)",
				       (int)n, v);
		r->dsize_op = GPUDP_RULE_DSIZE_EQ;
	}
	r->dsize_a = (uint16_t)a;
	r->dsize_b = (uint16_t)b;
	return 0;
}

static int
opt_string(struct rp *p, const char *kw, const char *v, size_t n, int *seen, uint32_t *off)
{
	uint8_t buf[1024];
	size_t len;
	int rc;

	if (*seen)
		return rp_fail(p, "%s: given twice", kw);
	*seen = 1;
	rc = quoted(p, kw, v, n, 0, buf, sizeof(buf), &len);
	if (rc != 0)
		return rc;
	if (memchr(buf, 0, len) != NULL)
		return rp_fail(p, "%s: a NUL byte", kw);
	return rules_put_bytes(p->rs, buf, (uint32_t)len, 1, off) != 0 ? -ENOMEM : 0;
}

static int
opt_u32(struct rp *p, const char *kw, const char *v, size_t n, int64_t lo, int64_t hi,
	int *seen, uint32_t *out)
{
	int64_t x;

	if (*seen)
		return rp_fail(p, "%s: given twice", kw);
	*seen = 1;
	if (num(v, n, lo, hi, &x) != 0)
		return rp_fail(p, "%s: bad value '%.*s' (%lld..%lld)", kw, (int)n, v,
			       (long long)lo, (long long)hi);
	*out = (uint32_t)x;
	return 0;
}

static int
option(struct rp *p, struct opts *o, const char *kw, const char *v, size_t n, int has_v)
{
	static const char *const flags_kw[] = { "nocase", "startswith", "endswith",
						"fast_pattern" };
	static const uint32_t flags[] = { GPUDP_RULE_F_NOCASE, GPUDP_RULE_F_STARTSWITH,
					  GPUDP_RULE_F_ENDSWITH, GPUDP_RULE_F_FAST };
	struct gpudp_rule *r = o->r;
	unsigned int i;
	size_t k;

	for (i = 0; i < 4; i++) {
		if (strcmp(kw, flags_kw[i]) != 0)
			continue;
		if (has_v)
			return i == 3 ? unsupported(p, "keyword", "fast_pattern:...") :
				rp_fail(p, "%s takes no value", kw);
		return modifier(p, o, kw, flags[i]);
	}
	if (!has_v) {
		if (!strcmp(kw, "msg") || !strcmp(kw, "sid") || !strcmp(kw, "rev") ||
		    !strcmp(kw, "classtype") || !strcmp(kw, "priority") ||
		    !strcmp(kw, "content") || !strcmp(kw, "offset") || !strcmp(kw, "depth") ||
		    !strcmp(kw, "distance") || !strcmp(kw, "within") ||
		    !strcmp(kw, "isdataat") || !strcmp(kw, "dsize"))
			return rp_fail(p, "%s needs a value (%s:...;)", kw, kw);
		return unsupported(p, "keyword", kw);
	}
	if (!strcmp(kw, "content"))
		return opt_content(p, o, v, n);
	if (!strcmp(kw, "offset") || !strcmp(kw, "depth") || !strcmp(kw, "distance") ||
	    !strcmp(kw, "within"))
		return opt_number_mod(p, o, kw, v, n);
	if (!strcmp(kw, "isdataat"))
		return opt_isdataat(p, o, v, n);
	if (!strcmp(kw, "dsize"))
		return opt_dsize(p, r, v, n);
	if (!strcmp(kw, "msg"))
		return opt_string(p, kw, v, n, &o->has_msg, &r->msg);
	if (!strcmp(kw, "sid"))
		return opt_u32(p, kw, v, n, 1, UINT32_MAX, &o->has_sid, &r->sid);
	if (!strcmp(kw, "rev"))
		return opt_u32(p, kw, v, n, 0, UINT32_MAX, &o->has_rev, &r->rev);
	if (!strcmp(kw, "priority"))
		return opt_u32(p, kw, v, n, 1, 255, &o->has_prio, &r->priority);
	if (!strcmp(kw, "classtype")) {
		if (o->has_class)
			return rp_fail(p, "classtype: given twice");
		o->has_class = 1;
		for (k = 0; k < n && ((v[k] >= 'a' && v[k] <= 'z') || (v[k] >= 'A' && v[k] <= 'Z') ||
				      (v[k] >= '0' && v[k] <= '9') || v[k] == '-' || v[k] == '_'); k++)
			;
		if (k != n || n == 0 || n > 64)
			return rp_fail(p, "classtype: bad name '%.*s' (letters, digits, - and _)",
				       (int)n, v);
		return rules_put_bytes(p->rs, v, (uint32_t)n, 1, &r->classtype) != 0 ? -ENOMEM : 0;
	}
	return unsupported(p, "keyword", kw);
}

/* the rule as a whole: what each content's modifiers may be together */
static int
check_rule(struct rp *p, struct opts *o)
{
	const uint32_t abs = GPUDP_RULE_F_OFFSET | GPUDP_RULE_F_DEPTH;
	const uint32_t rel = GPUDP_RULE_F_DISTANCE | GPUDP_RULE_F_WITHIN;
	struct gpudp_rule *r = o->r;
	/* no check: the array may not exist yet */
	struct gpudp_rule_check *c = r->n_check > 0 ? &p->rs->check[r->check] : NULL;
	uint32_t i, best = 0, fast = 0;
	int seen_content = 0;

	if (!o->has_sid)
		return rp_fail(p, "no sid");
	if (!o->has_rev)
		r->rev = 1;
	r->fast = -1;
	for (i = 0; i < r->n_check; i++) {
		uint32_t f = c[i].flags;

		if (c[i].kind == GPUDP_RULE_ISDATAAT) {
			if ((f & GPUDP_RULE_F_RELATIVE) && !seen_content)
				return rp_fail(p, "isdataat: relative, with no content before it");
			continue;
		}
		if ((f & abs) && (f & rel))
			return rp_fail(p, "content %u: offset or depth with distance or within "
				       "(absolute and relative at once)", i + 1);
		if ((f & rel) && !seen_content)
			return rp_fail(p, "content %u: distance or within, with no content "
				       "before it", i + 1);
		if ((f & GPUDP_RULE_F_STARTSWITH) && (f & (abs | rel)))
			return rp_fail(p, "content %u: startswith with offset, depth, distance "
				       "or within", i + 1);
		if ((f & GPUDP_RULE_F_DEPTH) && c[i].depth < c[i].len)
			return rp_fail(p, "content %u: depth %d shorter than the content (%u "
				       "bytes)", i + 1, c[i].depth, c[i].len);
		if ((f & GPUDP_RULE_F_WITHIN) && c[i].within < c[i].len)
			return rp_fail(p, "content %u: within %d shorter than the content (%u "
				       "bytes)", i + 1, c[i].within, c[i].len);
		if (f & GPUDP_RULE_F_FAST) {
			if (fast++ > 0)
				return rp_fail(p, "fast_pattern on more than one content");
			r->fast = (int32_t)i;
		}
		if (!seen_content || c[i].len > c[best].len)
			best = i;
		seen_content = 1;
	}
	if (r->fast < 0 && seen_content)
		r->fast = (int32_t)best;
	return 0;
}

/* the options between the parentheses: name[:value]; ... */
static int
options(struct rp *p, struct opts *o, const char *s, size_t n)
{
	size_t i = 0, k, vs, ve;
	char kw[64];
	int q, rc;

	for (;;) {
		while (i < n && is_blank(s[i]))
			i++;
		if (i == n)
			return 0;
		k = i;
		while (i < n && ((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
				 (s[i] >= '0' && s[i] <= '9') || s[i] == '_' || s[i] == '.' ||
				 s[i] == '-'))
			i++;
		if (i == k || i - k >= sizeof(kw))
			return rp_fail(p, "an option name expected at '%.20s'", s + k);
		memcpy(kw, s + k, i - k);
		kw[i - k] = 0;
		while (i < n && is_blank(s[i]))
			i++;
		if (i < n && s[i] == ';') {
			rc = option(p, o, kw, NULL, 0, 0);
			if (rc != 0)
				return rc;
			i++;
			continue;
		}
		if (i == n || s[i] != ':')
			return rp_fail(p, "option %s: ';' or ':' expected after it", kw);
		i++;
		while (i < n && is_blank(s[i]))
			i++;
		vs = i;
		q = 0;
		while (i < n && (q || s[i] != ';')) {
			if (s[i] == '\\' && i + 1 < n)
				i++;
			else if (s[i] == '"')
				q = !q;
			i++;
		}
		if (i == n)
			return rp_fail(p, "option %s: its value does not end with ';'", kw);
		ve = i;
		while (ve > vs && is_blank(s[ve - 1]))
			ve--;
		rc = option(p, o, kw, s + vs, ve - vs, 1);
		if (rc != 0)
			return rc;
		i++;
	}
}

/* the next word of the header (a list in brackets may hold blanks) */
static int
word(const char *s, size_t n, size_t *i, size_t *b, size_t *e)
{
	int lvl = 0;

	while (*i < n && is_blank(s[*i]))
		(*i)++;
	*b = *i;
	while (*i < n && (lvl > 0 || (!is_blank(s[*i]) && s[*i] != '('))) {
		if (s[*i] == '[')
			lvl++;
		else if (s[*i] == ']')
			lvl--;
		(*i)++;
	}
	*e = *i;
	return *e > *b ? 0 : -1;
}

static int
one_rule(struct rp *p, const char *s, size_t n, struct gpudp_rule *r)
{
	static const char *const what[7] = { "action", "protocol", "source address",
					     "source port", "direction", "destination address",
					     "destination port" };
	size_t i = 0, b[7], e[7], k;
	struct opts o = { .r = r };
	char kw[32];
	int rc;

	for (k = 0; k < 7; k++)
		if (word(s, n, &i, &b[k], &e[k]) != 0)
			return rp_fail(p, "the rule ends before its %s", what[k]);
	for (k = 0; k < 2; k++) {
		size_t l = e[k] - b[k];

		if (l >= sizeof(kw))
			return rp_fail(p, "bad %s '%.*s'", what[k], (int)l, s + b[k]);
		memcpy(kw, s + b[k], l);
		kw[l] = 0;
		if (k == 0 && !strcmp(kw, "alert"))
			r->action = GPUDP_RULE_ALERT;
		else if (k == 0 && !strcmp(kw, "drop"))
			r->action = GPUDP_RULE_DROP;
		else if (k == 0)
			return unsupported(p, "action", kw);
		else if (!strcmp(kw, "ip"))
			r->proto = GPUDP_RULE_IP;
		else if (!strcmp(kw, "tcp"))
			r->proto = GPUDP_RULE_TCP;
		else if (!strcmp(kw, "udp"))
			r->proto = GPUDP_RULE_UDP;
		else if (!strcmp(kw, "icmp"))
			r->proto = GPUDP_RULE_ICMP;
		else
			return unsupported(p, "protocol", kw);
	}
	if (e[4] - b[4] == 2 && !memcmp(s + b[4], "->", 2))
		r->bidir = 0;
	else if (e[4] - b[4] == 2 && !memcmp(s + b[4], "<>", 2))
		r->bidir = 1;
	else
		return rp_fail(p, "direction: '->' or '<>', not '%.*s'", (int)(e[4] - b[4]),
			       s + b[4]);
	rc = rules_addrs(p, s + b[2], e[2] - b[2], &r->src, &r->n_src);
	if (rc == 0)
		rc = rules_ports(p, s + b[3], e[3] - b[3], &r->sport, &r->n_sport);
	if (rc == 0)
		rc = rules_addrs(p, s + b[5], e[5] - b[5], &r->dst, &r->n_dst);
	if (rc == 0)
		rc = rules_ports(p, s + b[6], e[6] - b[6], &r->dport, &r->n_dport);
	if (rc != 0)
		return rc;
	if (r->proto != GPUDP_RULE_TCP && r->proto != GPUDP_RULE_UDP &&
	    (r->n_sport != 0 || r->n_dport != 0))
		return rp_fail(p, "ports other than any need a tcp or udp rule");
	while (i < n && is_blank(s[i]))
		i++;
	while (n > i && is_blank(s[n - 1]))
		n--;
	if (i == n || s[i] != '(' || s[n - 1] != ')')
		return rp_fail(p, "the options go in parentheses after the destination port");
	r->check = p->rs->n_check;
	rc = options(p, &o, s + i + 1, n - i - 2);
	return rc != 0 ? rc : check_rule(p, &o);
}

int
gpudp_rules_parse(struct gpudp_rules *rs, const char *text, size_t len, const char *name,
		  const struct gpudp_rules_conf *conf, char *err, size_t errlen)
{
	struct rp p = { .rs = rs, .file = name, .err = err, .errlen = errlen };
	char (*warned)[sizeof(p.unsupported)] = calloc(WARNED_MAX, sizeof(p.unsupported));
	uint32_t n_warned = 0, line = 0, w;
	size_t at = 0, e, b, n = 0;
	char *buf = malloc(GPUDP_RULE_TEXT_MAX);
	int added = 0, rc = 0, cont = 0;

	if (buf == NULL || warned == NULL) {
		free(buf);
		free(warned);
		return -ENOMEM;
	}
	if (errlen > 0)
		err[0] = 0;
	while (at < len && rc >= 0) {
		line++;
		e = at;
		while (e < len && text[e] != '\n')
			e++;
		b = at;
		at = e + 1;
		while (b < e && is_blank(text[b]))
			b++;
		while (e > b && is_blank(text[e - 1]))
			e--;
		if (!cont) {
			if (b == e || text[b] == '#')
				continue;
			p.line = line;
			n = 0;
		}
		cont = e > b && text[e - 1] == '\\';
		if (cont)
			e--;
		if (memchr(text + b, 0, e - b) != NULL) {
			rc = rp_fail(&p, "a NUL byte");
			break;
		}
		if (e - b > GPUDP_RULE_TEXT_MAX - 1 - n) {
			rc = rp_fail(&p, "a rule of more than %u bytes", GPUDP_RULE_TEXT_MAX - 1);
			break;
		}
		memcpy(buf + n, text + b, e - b);
		n += e - b;
		if (cont && at < len)
			continue;
		cont = 0;
		{
			struct gpudp_rules saved = *rs;
			struct gpudp_rule r = { .msg = UINT32_MAX, .classtype = UINT32_MAX,
						.line = p.line };

			rc = rules_grow((void **)&rs->rule, &rs->cap_rule, rs->n_rule, sizeof(r), 1);
			if (rc == 0)
				rc = one_rule(&p, buf, n, &r);
			if (rc == 0) {
				rs->rule[rs->n_rule++] = r;
				added++;
				continue;
			}
			/* nothing of the rule stays */
			rs->n_net = saved.n_net;
			rs->n_port = saved.n_port;
			rs->n_check = saved.n_check;
			rs->n_bytes = saved.n_bytes;
			if (rc != -ENOTSUP || conf == NULL || !conf->skip_unsupported)
				break;
			rs->skipped++;
			rc = 0;
			for (w = 0; w < n_warned && strcmp(warned[w], p.unsupported) != 0; w++)
				;
			if (w == n_warned && n_warned < WARNED_MAX) {
				memcpy(warned[n_warned++], p.unsupported, sizeof(p.unsupported));
				if (conf->warn != NULL)
					conf->warn(conf->warn_arg, err);
			}
			if (errlen > 0)
				err[0] = 0;
		}
	}
	free(buf);
	free(warned);
	if (rc == -ENOTSUP)
		rc = -EINVAL;
	return rc < 0 ? rc : added;
}

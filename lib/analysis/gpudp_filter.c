/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Filter expression compiler: recursive descent over the grammar documented
 * at gpudp_filter_compile(), emitting a postfix program that
 * gpudp_filter_eval() runs on the CPU or the GPU.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpudp_analysis.h"

#define MAX_TOKEN 64
#define MAX_DEPTH 32

struct fparser {
	const char *src;
	size_t pos;          /* offset of the current token */
	size_t end;          /* offset just after it */
	char tok[MAX_TOKEN]; /* current token, "" at the end of input */
	struct gpudp_filter *f;
	char *err;
	size_t errlen;
	int rc;
	int depth;
	const struct gpudp_match_pattern *pats; /* `match NAME`: the pattern set */
	uint32_t n_pats;                        /* 0: no payload inspection */
	const struct gpudp_rules_img *rules;    /* `alert SID`: the rules; NULL: none */
};

static int
perr(struct fparser *p, int rc, const char *fmt, ...)
{
	char msg[160];
	va_list ap;

	if (p->rc != 0)
		return p->rc;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (p->err != NULL && p->errlen > 0) {
		if (p->tok[0] != '\0')
			snprintf(p->err, p->errlen, "%s at offset %zu ('%s')", msg, p->pos, p->tok);
		else
			snprintf(p->err, p->errlen, "%s at end of expression", msg);
	}
	p->rc = rc;
	return rc;
}

static int
is_word_char(int c)
{
	return isalnum(c) || c == '.' || c == ':' || c == '/' || c == '-' || c == '_';
}

/* Advance to the next token. */
static void
next(struct fparser *p)
{
	const char *s = p->src;
	size_t i = p->end, n = 0;

	while (s[i] != '\0' && isspace((unsigned char)s[i]))
		i++;
	p->pos = i;
	if (s[i] == '\0') {
		p->tok[0] = '\0';
		p->end = i;
		return;
	}
	if ((s[i] == '&' && s[i + 1] == '&') || (s[i] == '|' && s[i + 1] == '|')) {
		n = 2;
	} else if (is_word_char((unsigned char)s[i])) {
		while (is_word_char((unsigned char)s[i + n]))
			n++;
	} else {
		n = 1;
	}
	if (n >= MAX_TOKEN) {
		memcpy(p->tok, s + i, MAX_TOKEN - 1);
		p->tok[MAX_TOKEN - 1] = '\0';
		p->end = i + n;
		perr(p, -EINVAL, "token too long");
		return;
	}
	memcpy(p->tok, s + i, n);
	p->tok[n] = '\0';
	p->end = i + n;
}

static int
is(const struct fparser *p, const char *t)
{
	return strcmp(p->tok, t) == 0;
}

static struct gpudp_filter_insn *
emit(struct fparser *p, uint8_t op)
{
	struct gpudp_filter_insn *in;

	if (p->rc != 0)
		return NULL;
	if (p->f->n_insn >= GPUDP_FILTER_MAX_INSN) {
		perr(p, -E2BIG, "filter too long (more than %d instructions)",
		     GPUDP_FILTER_MAX_INSN);
		return NULL;
	}
	in = &p->f->insn[p->f->n_insn++];
	memset(in, 0, sizeof(*in));
	in->op = op;
	return in;
}

/* Parse a decimal number in [0, max]; the whole string must be digits. */
static int
parse_num(const char *s, unsigned long max, unsigned long *v)
{
	char *e;

	if (!isdigit((unsigned char)s[0]))
		return -1;
	errno = 0;
	*v = strtoul(s, &e, 10);
	if (errno != 0 || *e != '\0' || *v > max)
		return -1;
	return 0;
}

static int
parse_addr(const char *s, struct gpudp_filter_insn *in)
{
	if (inet_pton(AF_INET, s, in->addr) == 1) {
		in->af = 4;
		in->plen = 32;
		return 0;
	}
	if (inet_pton(AF_INET6, s, in->addr) == 1) {
		in->af = 6;
		in->plen = 128;
		return 0;
	}
	return -1;
}

static void parse_expr(struct fparser *p);

/* Whether the current token ends a primitive (an operator or the end). */
static int
at_operator(const struct fparser *p)
{
	return p->tok[0] == '\0' || is(p, "and") || is(p, "&&") || is(p, "or") ||
	       is(p, "||") || is(p, "not") || is(p, "!") || is(p, ")") || is(p, "(");
}

/* "match" [NAME]: an occurrence of any pattern, or of the one named. */
static void
parse_match(struct fparser *p)
{
	struct gpudp_filter_insn *in;
	uint32_t i;

	if (p->n_pats == 0) {
		perr(p, -EINVAL, "'match' needs payload inspection (a pattern database)");
		return;
	}
	next(p);
	in = emit(p, GPUDP_FOP_MATCH);
	if (in == NULL)
		return;
	if (at_operator(p)) {
		in->af = 1;
		return;
	}
	for (i = 0; i < p->n_pats; i++)
		if (strcmp(p->pats[i].name, p->tok) == 0)
			break;
	if (i == p->n_pats) {
		perr(p, -EINVAL, "no pattern of that name in the pattern file");
		return;
	}
	in->lo = (uint16_t)(i & 0xffff);
	in->hi = (uint16_t)(i >> 16);
	next(p);
}

/* "alert" [SID]: the packet matched any rule, or the rule with that sid. */
static void
parse_alert(struct fparser *p)
{
	struct gpudp_filter_insn *in;
	unsigned long sid;
	int64_t i;
	char *end;

	if (p->rules == NULL) {
		perr(p, -EINVAL, "'alert' needs rules (--rules)");
		return;
	}
	next(p);
	in = emit(p, GPUDP_FOP_ALERT);
	if (in == NULL)
		return;
	if (at_operator(p)) {
		in->af = 1;
		return;
	}
	errno = 0;
	sid = strtoul(p->tok, &end, 10);
	if (!isdigit((unsigned char)p->tok[0]) || *end != '\0' || errno != 0 || sid == 0 ||
	    sid > UINT32_MAX) {
		perr(p, -EINVAL, "'alert' takes a signature id (1-4294967295)");
		return;
	}
	i = gpudp_rules_img_find_sid(p->rules, (uint32_t)sid);
	if (i < 0) {
		perr(p, -EINVAL, "no rule with that sid");
		return;
	}
	in->lo = (uint16_t)((uint64_t)i & 0xffff);
	in->hi = (uint16_t)((uint64_t)i >> 16);
	next(p);
}

static void
parse_prim(struct fparser *p)
{
	struct gpudp_filter_insn *in;
	uint8_t dir = GPUDP_FDIR_ANY;
	unsigned long v, w;

	if (is(p, "src") || is(p, "dst")) {
		dir = is(p, "src") ? GPUDP_FDIR_SRC : GPUDP_FDIR_DST;
		next(p);
		if (!is(p, "host") && !is(p, "net") && !is(p, "port") && !is(p, "portrange")) {
			perr(p, -EINVAL, "expected host, net, port or portrange after src/dst");
			return;
		}
	}
	if (is(p, "ip") || is(p, "ip6")) {
		in = emit(p, GPUDP_FOP_L3);
		if (in != NULL)
			in->af = is(p, "ip") ? 4 : 6;
		next(p);
	} else if (is(p, "tcp") || is(p, "udp") || is(p, "icmp") || is(p, "icmp6")) {
		in = emit(p, GPUDP_FOP_L4);
		if (in != NULL) {
			in->lo = is(p, "tcp") ? 6 : is(p, "udp") ? 17 : is(p, "icmp") ? 1 : 58;
			in->af = is(p, "icmp") ? 4 : is(p, "icmp6") ? 6 : 0;
		}
		next(p);
	} else if (is(p, "proto")) {
		next(p);
		if (parse_num(p->tok, 255, &v) != 0) {
			perr(p, -EINVAL, "expected an IP protocol number 0-255 after 'proto'");
			return;
		}
		in = emit(p, GPUDP_FOP_L4);
		if (in != NULL)
			in->lo = (uint16_t)v;
		next(p);
	} else if (is(p, "vlan")) {
		next(p);
		in = emit(p, GPUDP_FOP_VLAN);
		if (in == NULL)
			return;
		in->lo = 0xffff;
		if (isdigit((unsigned char)p->tok[0])) {
			if (parse_num(p->tok, 4095, &v) != 0) {
				perr(p, -EINVAL, "bad VLAN ID (0-4095)");
				return;
			}
			in->lo = (uint16_t)v;
			next(p);
		}
	} else if (is(p, "host")) {
		next(p);
		in = emit(p, GPUDP_FOP_NET);
		if (in == NULL)
			return;
		in->dir = dir;
		if (parse_addr(p->tok, in) != 0) {
			perr(p, -EINVAL, "expected an IPv4 or IPv6 address after 'host'");
			return;
		}
		next(p);
	} else if (is(p, "net")) {
		char buf[MAX_TOKEN], *slash;
		unsigned int i;

		next(p);
		in = emit(p, GPUDP_FOP_NET);
		if (in == NULL)
			return;
		in->dir = dir;
		snprintf(buf, sizeof(buf), "%s", p->tok);
		slash = strchr(buf, '/');
		if (slash == NULL) {
			perr(p, -EINVAL, "expected ADDR/LEN after 'net'");
			return;
		}
		*slash = '\0';
		if (parse_addr(buf, in) != 0) {
			perr(p, -EINVAL, "bad address in prefix");
			return;
		}
		if (parse_num(slash + 1, in->af == 4 ? 32 : 128, &v) != 0) {
			perr(p, -EINVAL, "bad prefix length (0-%d)", in->af == 4 ? 32 : 128);
			return;
		}
		in->plen = (uint8_t)v;
		for (i = 0; i < 16; i++) {
			unsigned int bits = i * 8 >= v ? 0 : (v - i * 8 >= 8 ? 8 : v - i * 8);
			uint8_t m = (uint8_t)(bits ? (0xffu << (8 - bits)) & 0xffu : 0);

			if (in->addr[i] & ~m) {
				perr(p, -EINVAL, "prefix has host bits set");
				return;
			}
		}
		next(p);
	} else if (is(p, "port")) {
		next(p);
		if (parse_num(p->tok, 65535, &v) != 0) {
			perr(p, -EINVAL, "expected a port number 0-65535 after 'port'");
			return;
		}
		in = emit(p, GPUDP_FOP_PORT);
		if (in != NULL) {
			in->dir = dir;
			in->lo = in->hi = (uint16_t)v;
		}
		next(p);
	} else if (is(p, "portrange")) {
		char buf[MAX_TOKEN], *dash;

		next(p);
		snprintf(buf, sizeof(buf), "%s", p->tok);
		dash = strchr(buf, '-');
		if (dash == NULL) {
			perr(p, -EINVAL, "expected LO-HI after 'portrange'");
			return;
		}
		*dash = '\0';
		if (parse_num(buf, 65535, &v) != 0 || parse_num(dash + 1, 65535, &w) != 0 ||
		    w < v) {
			perr(p, -EINVAL, "bad port range (LO-HI, 0 <= LO <= HI <= 65535)");
			return;
		}
		in = emit(p, GPUDP_FOP_PORT);
		if (in != NULL) {
			in->dir = dir;
			in->lo = (uint16_t)v;
			in->hi = (uint16_t)w;
		}
		next(p);
	} else if (is(p, "match")) {
		parse_match(p);
	} else if (is(p, "alert")) {
		parse_alert(p);
	} else if (p->tok[0] == '\0') {
		perr(p, -EINVAL, "expected a primitive");
	} else {
		perr(p, -EINVAL, "unknown primitive");
	}
}

static void
parse_factor(struct fparser *p)
{
	if (p->rc != 0)
		return;
	if (++p->depth > MAX_DEPTH) {
		perr(p, -E2BIG, "expression nested too deeply (more than %d levels)", MAX_DEPTH);
		return;
	}
	if (is(p, "not") || is(p, "!")) {
		next(p);
		parse_factor(p);
		emit(p, GPUDP_FOP_NOT);
	} else if (is(p, "(")) {
		next(p);
		parse_expr(p);
		if (p->rc == 0 && !is(p, ")")) {
			perr(p, -EINVAL, "expected ')'");
			return;
		}
		next(p);
	} else {
		parse_prim(p);
	}
	p->depth--;
}

static void
parse_term(struct fparser *p)
{
	parse_factor(p);
	while (p->rc == 0 && (is(p, "and") || is(p, "&&"))) {
		next(p);
		parse_factor(p);
		emit(p, GPUDP_FOP_AND);
	}
}

static void
parse_expr(struct fparser *p)
{
	parse_term(p);
	while (p->rc == 0 && (is(p, "or") || is(p, "||"))) {
		next(p);
		parse_term(p);
		emit(p, GPUDP_FOP_OR);
	}
}

int
gpudp_filter_compile(const char *expr, struct gpudp_filter *f, char *err, size_t errlen)
{
	return gpudp_filter_compile_match(expr, NULL, 0, f, err, errlen);
}

int
gpudp_filter_compile_match(const char *expr, const struct gpudp_match_pattern *pats,
			   uint32_t n_pats, struct gpudp_filter *f, char *err, size_t errlen)
{
	return gpudp_filter_compile_rules(expr, pats, n_pats, NULL, f, err, errlen);
}

int
gpudp_filter_compile_rules(const char *expr, const struct gpudp_match_pattern *pats,
			   uint32_t n_pats, const struct gpudp_rules_img *rules,
			   struct gpudp_filter *f, char *err, size_t errlen)
{
	struct fparser p = {
		.src = expr, .f = f, .err = err, .errlen = errlen,
		.pats = pats, .n_pats = pats != NULL ? n_pats : 0, .rules = rules,
	};

	memset(f, 0, sizeof(*f));
	if (err != NULL && errlen > 0)
		err[0] = '\0';
	if (expr == NULL)
		return 0;
	next(&p);
	if (p.rc == 0 && p.tok[0] == '\0')
		return 0;
	parse_expr(&p);
	if (p.rc == 0 && p.tok[0] != '\0')
		perr(&p, -EINVAL, "unexpected token");
	if (p.rc != 0)
		memset(f, 0, sizeof(*f));
	return p.rc;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A rule set's arrays and variables (gpudp_rules.h): what the parser
 * (gpudp_rules_parse.c) fills.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpudp_rules_pvt.h"

void
gpudp_rules_init(struct gpudp_rules *rs)
{
	memset(rs, 0, sizeof(*rs));
}

void
gpudp_rules_free(struct gpudp_rules *rs)
{
	uint32_t i;

	for (i = 0; i < rs->n_var; i++) {
		free(rs->var_name[i]);
		free(rs->var_value[i]);
	}
	free(rs->var_name);
	free(rs->var_value);
	free(rs->rule);
	free(rs->net);
	free(rs->port);
	free(rs->check);
	free(rs->bytes);
	gpudp_rules_init(rs);
}

int
rp_fail(struct rp *p, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (p->errlen == 0)
		return -EINVAL;
	n = snprintf(p->err, p->errlen, "%s:%u: ", p->file, p->line);
	if (n >= 0 && (size_t)n < p->errlen) {
		va_start(ap, fmt);
		vsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

int
rules_grow(void **arr, uint32_t *cap, uint32_t n, size_t size, uint32_t more)
{
	uint64_t want = (uint64_t)n + more, c = *cap;
	void *a;

	if (want <= c)
		return 0;
	if (want > UINT32_MAX / 2)
		return -ENOMEM;
	while (c < want)
		c = c < 16 ? 16 : c * 2;
	a = realloc(*arr, c * size);
	if (a == NULL)
		return -ENOMEM;
	*arr = a;
	*cap = (uint32_t)c;
	return 0;
}

int
rules_put_bytes(struct gpudp_rules *rs, const void *b, uint32_t len, int nul, uint32_t *off)
{
	uint32_t need = len + (nul ? 1 : 0);

	if (rules_grow((void **)&rs->bytes, &rs->cap_bytes, rs->n_bytes, 1, need) != 0)
		return -ENOMEM;
	*off = rs->n_bytes;
	if (len > 0)
		memcpy(rs->bytes + rs->n_bytes, b, len);
	if (nul)
		rs->bytes[rs->n_bytes + len] = 0;
	rs->n_bytes += need;
	return 0;
}

const char *
rules_var(const struct gpudp_rules *rs, const char *name, size_t len)
{
	uint32_t i;

	for (i = rs->n_var; i-- > 0;)
		if (strlen(rs->var_name[i]) == len && memcmp(rs->var_name[i], name, len) == 0)
			return rs->var_value[i];
	return NULL;
}

static int
var_char(char c, int first)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' ||
	       (!first && c >= '0' && c <= '9');
}

static char *
dup_n(const char *s, size_t n)
{
	char *d = malloc(n + 1);

	if (d != NULL) {
		memcpy(d, s, n);
		d[n] = 0;
	}
	return d;
}

/* NAME: VALUE (the line without its end, comment and outer blanks) */
static int
var_line(struct gpudp_rules *rs, struct rp *p, const char *s, size_t n)
{
	size_t i = 0, k;
	char **nn, **vv;

	while (i < n && var_char(s[i], i == 0))
		i++;
	if (i == 0 || i > 64 || i >= n || s[i] != ':')
		return rp_fail(p, "expected NAME: VALUE (a name of letters, digits and _, "
			       "at most 64)");
	k = i + 1;
	while (k < n && (s[k] == ' ' || s[k] == '\t'))
		k++;
	if (k == n)
		return 0;   /* a section name */
	if (s[k] == '"') {
		if (n - k < 2 || s[n - 1] != '"')
			return rp_fail(p, "a value that opens a quote closes it at the end of "
				       "the line");
		k++;
		n--;
	}
	if (n - k == 0 || n - k > 4096)
		return rp_fail(p, "variable %.*s: an empty value or one over 4096 bytes",
			       (int)i, s);
	if (rs->n_var >= 4096)
		return rp_fail(p, "more than 4096 variables");
	nn = realloc(rs->var_name, sizeof(char *) * (rs->n_var + 1));
	if (nn == NULL)
		return -ENOMEM;
	rs->var_name = nn;
	vv = realloc(rs->var_value, sizeof(char *) * (rs->n_var + 1));
	if (vv == NULL)
		return -ENOMEM;
	rs->var_value = vv;
	nn[rs->n_var] = dup_n(s, i);
	vv[rs->n_var] = dup_n(s + k, n - k);
	if (nn[rs->n_var] == NULL || vv[rs->n_var] == NULL) {
		free(nn[rs->n_var]);
		free(vv[rs->n_var]);
		return -ENOMEM;
	}
	rs->n_var++;
	return 0;
}

int
gpudp_rules_vars(struct gpudp_rules *rs, const char *text, size_t len, const char *name,
		 char *err, size_t errlen)
{
	struct rp p = { .rs = rs, .file = name, .err = err, .errlen = errlen };
	size_t at = 0, e, b;
	int rc;

	while (at < len) {
		p.line++;
		e = at;
		while (e < len && text[e] != '\n')
			e++;
		b = at;
		while (b < e && (text[b] == ' ' || text[b] == '\t'))
			b++;
		at = e + 1;
		if (memchr(text + b, '#', e - b) != NULL)
			e = (size_t)((const char *)memchr(text + b, '#', e - b) - text);
		while (e > b && (text[e - 1] == ' ' || text[e - 1] == '\t' ||
				 text[e - 1] == '\r'))
			e--;
		if (e == b || text[e - 1] == ':')
			continue;
		if (memchr(text + b, 0, e - b) != NULL)
			return rp_fail(&p, "a NUL byte");
		rc = var_line(rs, &p, text + b, e - b);
		if (rc != 0)
			return rc;
	}
	return 0;
}

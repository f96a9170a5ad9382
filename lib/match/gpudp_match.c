/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpudp_match: the pattern file parser and the compiler of the database
 * (gpudp_match.h). The automaton is Aho-Corasick's: a trie of the
 * patterns, failure links by breadth-first search, and every transition
 * resolved into a dense table (a DFA), so that the scan reads one table
 * entry per byte and never follows a failure link. Each state lists every
 * pattern ending there, its own and those of its suffix states.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpudp_errf.h"
#include "gpudp_match.h"

#define DB_MAGIC 0x6d647067u  /* "gpdm" */

/* ---- parser ---- */

static int
name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '.' || c == '-';
}

static int
hex_val(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
	       c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* a quoted literal from p (after the quote) to its closing quote */
static int
parse_quoted(const char **pp, const char *end, struct gpudp_match_pattern *pt, char *err,
	     size_t err_len)
{
	const char *p = *pp;

	for (;;) {
		uint8_t c;

		if (p >= end) {
			gpudp_errf(err, err_len, "line %u: pattern '%s': no closing quote", pt->line,
			     pt->name);
			return -EINVAL;
		}
		if (*p == '"')
			break;
		if (*p == '\\') {
			if (p + 1 >= end)
				goto bad_escape;
			switch (p[1]) {
			case '\\': c = '\\'; p += 2; break;
			case '"': c = '"'; p += 2; break;
			case 'n': c = '\n'; p += 2; break;
			case 'r': c = '\r'; p += 2; break;
			case 't': c = '\t'; p += 2; break;
			case '0': c = 0; p += 2; break;
			case 'x':
				if (p + 3 >= end || hex_val(p[2]) < 0 || hex_val(p[3]) < 0)
					goto bad_escape;
				c = (uint8_t)(hex_val(p[2]) << 4 | hex_val(p[3]));
				p += 4;
				break;
			default:
				goto bad_escape;
			}
		} else {
			c = (uint8_t)*p++;
		}
		if (pt->len >= GPUDP_MATCH_LEN_MAX) {
			gpudp_errf(err, err_len, "line %u: pattern '%s': longer than %d bytes", pt->line,
			     pt->name, GPUDP_MATCH_LEN_MAX);
			return -EINVAL;
		}
		pt->bytes[pt->len++] = c;
	}
	*pp = p + 1;
	return 0;
bad_escape:
	gpudp_errf(err, err_len, "line %u: pattern '%s': bad escape '%.*s'", pt->line, pt->name,
	     (int)(end - p < 4 ? end - p : 4), p);
	return -EINVAL;
}

/* one non-blank, non-comment line into @p pt */
static int
parse_line(const char *p, const char *end, struct gpudp_match_pattern *pt, char *err,
	   size_t err_len)
{
	const char *w;
	size_t nl = 0;

	for (w = p; p < end && name_char(*p); p++)
		nl++;
	if (nl == 0 || nl >= GPUDP_MATCH_NAME_MAX || (p < end && *p != ' ' && *p != '\t')) {
		gpudp_errf(err, err_len, "line %u: bad name '%.*s' (want [A-Za-z0-9_.-], 1..%d bytes)",
		     pt->line, (int)(end - w < 40 ? end - w : 40), w, GPUDP_MATCH_NAME_MAX - 1);
		return -EINVAL;
	}
	memcpy(pt->name, w, nl);
	pt->name[nl] = '\0';
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p >= end) {
		gpudp_errf(err, err_len, "line %u: pattern '%s': no pattern", pt->line, pt->name);
		return -EINVAL;
	}
	if (*p == '"') {
		p++;
		if (parse_quoted(&p, end, pt, err, err_len) != 0)
			return -EINVAL;
	} else {
		for (; p < end && *p > ' ' && *p < 0x7f; p++) {
			if (pt->len >= GPUDP_MATCH_LEN_MAX) {
				gpudp_errf(err, err_len, "line %u: pattern '%s': longer than %d bytes",
				     pt->line, pt->name, GPUDP_MATCH_LEN_MAX);
				return -EINVAL;
			}
			pt->bytes[pt->len++] = (uint8_t)*p;
		}
		if (p < end && *p != ' ' && *p != '\t') {
			gpudp_errf(err, err_len, "line %u: pattern '%s': byte 0x%02x in a bare pattern "
			     "(quote it and use \\xHH)", pt->line, pt->name, (uint8_t)*p);
			return -EINVAL;
		}
	}
	if (pt->len == 0) {
		gpudp_errf(err, err_len, "line %u: pattern '%s': empty", pt->line, pt->name);
		return -EINVAL;
	}
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p < end) {
		w = p;
		while (p < end && *p != ' ' && *p != '\t')
			p++;
		if ((size_t)(p - w) != 6 || memcmp(w, "nocase", 6) != 0) {
			gpudp_errf(err, err_len, "line %u: pattern '%s': bad flag '%.*s' (want nocase)",
			     pt->line, pt->name, (int)(p - w < 40 ? p - w : 40), w);
			return -EINVAL;
		}
		pt->flags |= GPUDP_MATCH_NOCASE;
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (p < end) {
			gpudp_errf(err, err_len, "line %u: pattern '%s': text after the flag: '%.*s'",
			     pt->line, pt->name, (int)(end - p < 40 ? end - p : 40), p);
			return -EINVAL;
		}
	}
	return 0;
}

static int
name_cmp(const void *a, const void *b)
{
	return strcmp(((const struct gpudp_match_pattern *const *)a)[0]->name,
		      ((const struct gpudp_match_pattern *const *)b)[0]->name);
}

/* names are unique: sort pointers to them and compare neighbours */
static int
names_unique(const struct gpudp_match_pattern *pats, uint32_t n, char *err, size_t err_len)
{
	const struct gpudp_match_pattern **v = malloc(sizeof(*v) * (n ? n : 1));
	uint32_t i;
	int ret = 0;

	if (v == NULL)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		v[i] = &pats[i];
	qsort(v, n, sizeof(*v), name_cmp);
	for (i = 1; i < n && ret == 0; i++)
		if (strcmp(v[i - 1]->name, v[i]->name) == 0) {
			gpudp_errf(err, err_len, "line %u: pattern name '%s' already used on line %u",
			     v[i]->line > v[i - 1]->line ? v[i]->line : v[i - 1]->line, v[i]->name,
			     v[i]->line > v[i - 1]->line ? v[i - 1]->line : v[i]->line);
			ret = -EINVAL;
		}
	free(v);
	return ret;
}

int
gpudp_match_parse(const char *text, size_t len, struct gpudp_match_pattern **pats, uint32_t *n,
		  char *err, size_t err_len)
{
	const char *p = text, *end = text + len;
	struct gpudp_match_pattern *v = NULL;
	uint32_t cap = 0, cnt = 0, line = 0;
	int ret;

	*pats = NULL;
	*n = 0;
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p)), *s = p, *e;

		eol = eol != NULL ? eol : end;
		e = eol > s && eol[-1] == '\r' ? eol - 1 : eol;
		p = eol < end ? eol + 1 : end;
		line++;
		while (s < e && (*s == ' ' || *s == '\t'))
			s++;
		while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
			e--;
		if (s == e || *s == '#')
			continue;
		if (cnt == GPUDP_MATCH_PATTERNS_MAX) {
			gpudp_errf(err, err_len, "line %u: more than %d patterns", line,
			     GPUDP_MATCH_PATTERNS_MAX);
			free(v);
			return -ENOSPC;
		}
		if (cnt == cap) {
			struct gpudp_match_pattern *nv;

			cap = cap ? cap * 2 : 64;
			nv = realloc(v, sizeof(*v) * cap);
			if (nv == NULL) {
				free(v);
				return -ENOMEM;
			}
			v = nv;
		}
		memset(&v[cnt], 0, sizeof(v[cnt]));
		v[cnt].line = line;
		ret = parse_line(s, e, &v[cnt], err, err_len);
		if (ret != 0) {
			free(v);
			return ret;
		}
		cnt++;
	}
	ret = names_unique(v, cnt, err, err_len);
	if (ret != 0) {
		free(v);
		return ret;
	}
	*pats = v;
	*n = cnt;
	return 0;
}

/* ---- compiler ---- */

/* one automaton under construction: a trie with 256-wide child tables */
struct ac {
	uint32_t *delta;   /* [states][256], 0 = none (state 0 is the root) */
	uint32_t *fail;
	uint32_t *out_head; /* per state: first own pattern + 1 in out_next chain, 0 none */
	uint32_t n, cap;
};

static int
ac_grow(struct ac *a)
{
	uint32_t cap = a->cap ? a->cap * 2 : 256;
	uint32_t *d = realloc(a->delta, sizeof(uint32_t) * 256 * (size_t)cap);

	if (d == NULL)
		return -ENOMEM;
	a->delta = d;
	d = realloc(a->out_head, sizeof(uint32_t) * cap);
	if (d == NULL)
		return -ENOMEM;
	a->out_head = d;
	a->cap = cap;
	return 0;
}

static int
ac_new_state(struct ac *a, uint32_t *s)
{
	if (a->n == a->cap && ac_grow(a) != 0)
		return -ENOMEM;
	memset(&a->delta[(size_t)a->n * 256], 0, sizeof(uint32_t) * 256);
	a->out_head[a->n] = 0;
	*s = a->n++;
	return 0;
}

static void
ac_free(struct ac *a)
{
	free(a->delta);
	free(a->fail);
	free(a->out_head);
}

/*
 * Build automaton @p a from the patterns with (flags & NOCASE) == @p nocase
 * (the folded one takes folded bytes); own[] chains patterns ending in the
 * same state: next[p] = the next pattern + 1.
 */
static int
ac_build(struct ac *a, const struct gpudp_match_pattern *pats, uint32_t n, uint32_t nocase,
	 uint32_t *next)
{
	uint32_t p, i, s, root, *queue, qh = 0, qt = 0;

	if (ac_new_state(a, &root) != 0)
		return -ENOMEM;
	for (p = 0; p < n; p++) {
		if ((pats[p].flags & GPUDP_MATCH_NOCASE) != nocase)
			continue;
		for (s = 0, i = 0; i < pats[p].len; i++) {
			uint8_t c = nocase ? gpudp_match_fold(pats[p].bytes[i]) : pats[p].bytes[i];
			uint32_t t = a->delta[(size_t)s * 256 + c];

			if (t == 0) {
				if (ac_new_state(a, &t) != 0)
					return -ENOMEM;
				a->delta[(size_t)s * 256 + c] = t;
			}
			s = t;
		}
		next[p] = a->out_head[s];
		a->out_head[s] = p + 1;
	}
	a->fail = calloc(a->n, sizeof(uint32_t));
	queue = malloc(sizeof(uint32_t) * a->n);
	if (a->fail == NULL || queue == NULL) {
		free(queue);
		return -ENOMEM;
	}
	/* breadth first: a state's failure is resolved before its children's;
	 * missing transitions become the failure's (the DFA) */
	for (i = 0; i < 256; i++)
		if (a->delta[i] != 0)
			queue[qt++] = a->delta[i];
	while (qh < qt) {
		uint32_t u = queue[qh++];

		for (i = 0; i < 256; i++) {
			uint32_t v = a->delta[(size_t)u * 256 + i];
			uint32_t f = a->delta[(size_t)a->fail[u] * 256 + i];

			if (v != 0 && v != f) {
				a->fail[v] = f;
				queue[qt++] = v;
			} else {
				a->delta[(size_t)u * 256 + i] = f;
			}
		}
	}
	free(queue);
	return 0;
}

/* the patterns ending in state s: its own, then its failure chain's */
static uint32_t
ac_outs(const struct ac *a, const uint32_t *next, uint32_t s, uint32_t *out)
{
	uint32_t k = 0, p;

	for (;;) {
		for (p = a->out_head[s]; p != 0; p = next[p - 1]) {
			if (out != NULL)
				out[k] = p - 1;
			k++;
		}
		if (s == 0)
			return k;
		s = a->fail[s];
	}
}

static uint64_t
align8(uint64_t x)
{
	return (x + 7) & ~(uint64_t)7;
}

struct gpudp_match_db *
gpudp_match_compile(const struct gpudp_match_pattern *pats, uint32_t n, char *err,
		    size_t err_len)
{
	struct ac a[2];
	uint32_t *next = NULL, k, s, p, bytes = 0;
	uint64_t n_outs[2] = { 0, 0 }, off;
	struct gpudp_match_db *db = NULL, hdr;

	memset(a, 0, sizeof(a));
	memset(&hdr, 0, sizeof(hdr));
	if (n == 0 || n > GPUDP_MATCH_PATTERNS_MAX) {
		gpudp_errf(err, err_len, "%u patterns: want 1..%d", n, GPUDP_MATCH_PATTERNS_MAX);
		return NULL;
	}
	next = calloc(n, sizeof(uint32_t));
	if (next == NULL)
		goto nomem;
	for (k = 0; k < 2; k++) {
		uint32_t any = 0;

		for (p = 0; p < n; p++)
			any |= (pats[p].flags & GPUDP_MATCH_NOCASE) == k;
		if (any && ac_build(&a[k], pats, n, k, next) != 0)
			goto nomem;
		for (s = 0; s < a[k].n; s++)
			n_outs[k] += ac_outs(&a[k], next, s, NULL);
		hdr.n_states[k] = a[k].n;
	}
	for (p = 0; p < n; p++)
		bytes += pats[p].len;
	/* the layout */
	off = align8(sizeof(hdr));
	for (k = 0; k < 2; k++) {
		hdr.off_delta[k] = off;
		off = align8(off + sizeof(uint32_t) * 256 * (uint64_t)a[k].n);
		hdr.off_first[k] = off;
		off = align8(off + sizeof(uint32_t) * ((uint64_t)a[k].n + 1));
		hdr.off_outs[k] = off;
		off = align8(off + sizeof(uint32_t) * n_outs[k]);
	}
	hdr.off_pat = off;
	off = align8(off + sizeof(uint32_t) * 3 * (uint64_t)n);
	hdr.off_bytes = off;
	off = align8(off + bytes);
	hdr.magic = DB_MAGIC;
	hdr.version = GPUDP_MATCH_DB_VERSION;
	hdr.size = off;
	hdr.n_patterns = n;
	db = calloc(1, off);
	if (db == NULL)
		goto nomem;
	*db = hdr;
	for (k = 0; k < 2; k++) {
		uint32_t *first = (uint32_t *)((uint8_t *)db + hdr.off_first[k]);
		uint32_t *outs = (uint32_t *)((uint8_t *)db + hdr.off_outs[k]);
		uint32_t o = 0;

		if (a[k].n == 0)
			continue;
		for (s = 0; s < a[k].n; s++) {
			first[s] = o;
			o += ac_outs(&a[k], next, s, outs + o);
		}
		first[a[k].n] = o;
		/* each move to a state where patterns end is marked */
		{
			uint32_t *d = (uint32_t *)((uint8_t *)db + hdr.off_delta[k]);
			size_t i;

			for (i = 0; i < 256 * (size_t)a[k].n; i++)
				d[i] = a[k].delta[i] |
				       (first[a[k].delta[i] + 1] > first[a[k].delta[i]] ?
					GPUDP_MATCH_ENDS : 0);
		}
	}
	{
		uint32_t *pt = (uint32_t *)((uint8_t *)db + hdr.off_pat);
		uint8_t *b = (uint8_t *)db + hdr.off_bytes;
		uint32_t o = 0;

		for (p = 0; p < n; p++) {
			pt[3 * p] = o;
			pt[3 * p + 1] = pats[p].len;
			pt[3 * p + 2] = pats[p].flags;
			memcpy(b + o, pats[p].bytes, pats[p].len);
			o += pats[p].len;
		}
	}
	ac_free(&a[0]);
	ac_free(&a[1]);
	free(next);
	return db;
nomem:
	gpudp_errf(err, err_len, "out of memory compiling %u patterns", n);
	ac_free(&a[0]);
	ac_free(&a[1]);
	free(next);
	return NULL;
}

/* the whole file at @p path, NUL-terminated (free() it) */
static char *
read_file(const char *path, size_t *len, char *err, size_t err_len)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 1 << 16, n = 0, got;
	char *buf = NULL, *nb;

	if (f == NULL) {
		gpudp_errf(err, err_len, "%s: %s", path, strerror(errno));
		return NULL;
	}
	for (;;) {
		nb = realloc(buf, cap + 1);
		if (nb == NULL) {
			gpudp_errf(err, err_len, "%s: out of memory", path);
			break;
		}
		buf = nb;
		got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (n < cap) {
			if (ferror(f)) {
				gpudp_errf(err, err_len, "%s: read error", path);
				break;
			}
			fclose(f);
			buf[n] = '\0';
			*len = n;
			return buf;
		}
		if (cap >= (size_t)1 << 30) {
			gpudp_errf(err, err_len, "%s: over 1 GiB, not a pattern file", path);
			break;
		}
		cap *= 2;
	}
	fclose(f);
	free(buf);
	return NULL;
}

struct gpudp_match_db *
gpudp_match_load(const char *path, struct gpudp_match_pattern **pats, uint32_t *n,
		 char *err, size_t err_len)
{
	struct gpudp_match_pattern *p = NULL;
	struct gpudp_match_db *db;
	char why[256] = "";
	uint32_t np = 0;
	size_t len = 0;
	char *text;

	text = read_file(path, &len, err, err_len);
	if (text == NULL)
		return NULL;
	if (gpudp_match_parse(text, len, &p, &np, why, sizeof(why)) != 0) {
		gpudp_errf(err, err_len, "%s: %s", path, why);
		free(text);
		return NULL;
	}
	free(text);
	db = gpudp_match_compile(p, np, why, sizeof(why));
	if (db == NULL)
		gpudp_errf(err, err_len, "%s: %s", path, why);
	if (db != NULL && pats != NULL) {
		*pats = p;
		*n = np;
	} else {
		free(p);
	}
	return db;
}

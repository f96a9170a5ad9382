/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The Prometheus text exposition format (version 0.0.4): families, samples
 * with escaped label values, histograms, into a growing buffer.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpudp_metrics.h"

static int
grow(struct gpudp_metrics_text *t, size_t more)
{
	size_t cap;
	char *b;

	if (t->err != 0)
		return t->err;
	if (t->len + more + 1 <= t->cap)
		return 0;
	cap = t->cap != 0 ? t->cap : 4096;
	while (cap < t->len + more + 1)
		cap *= 2;
	b = realloc(t->buf, cap);
	if (b == NULL) {
		t->err = -ENOMEM;
		return t->err;
	}
	t->buf = b;
	t->cap = cap;
	return 0;
}

static void
put(struct gpudp_metrics_text *t, const char *s, size_t n)
{
	if (grow(t, n) != 0)
		return;
	memcpy(t->buf + t->len, s, n);
	t->len += n;
	t->buf[t->len] = '\0';
}

static void
puts_(struct gpudp_metrics_text *t, const char *s)
{
	put(t, s, strlen(s));
}

/* @p s with backslash and newline escaped; also '"' when @p quote */
static void
put_escaped(struct gpudp_metrics_text *t, const char *s, int quote)
{
	for (; *s != '\0'; s++) {
		if (*s == '\\')
			put(t, "\\\\", 2);
		else if (*s == '\n')
			put(t, "\\n", 2);
		else if (quote && *s == '"')
			put(t, "\\\"", 2);
		else
			put(t, s, 1);
	}
}

static int
name_ok(const char *s, int colon)
{
	size_t i;

	if (s == NULL || s[0] == '\0')
		return 0;
	for (i = 0; s[i] != '\0'; i++) {
		char c = s[i];
		int alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
			(colon && c == ':');

		if (!alpha && !(i > 0 && c >= '0' && c <= '9'))
			return 0;
	}
	return 1;
}

/* the sample's name and labels (and an extra le="..."), or -EINVAL */
static int
head(struct gpudp_metrics_text *t, const char *name, const char *suffix,
     const char *const *labels, const char *le)
{
	unsigned int i, n = 0;

	if (!name_ok(name, 1)) {
		t->err = t->err != 0 ? t->err : -EINVAL;
		return -EINVAL;
	}
	for (i = 0; labels != NULL && labels[i] != NULL; i += 2) {
		if (!name_ok(labels[i], 0) || labels[i + 1] == NULL) {
			t->err = t->err != 0 ? t->err : -EINVAL;
			return -EINVAL;
		}
	}
	puts_(t, name);
	puts_(t, suffix);
	for (i = 0; labels != NULL && labels[i] != NULL; i += 2, n++) {
		puts_(t, n == 0 ? "{" : ",");
		puts_(t, labels[i]);
		puts_(t, "=\"");
		put_escaped(t, labels[i + 1], 1);
		puts_(t, "\"");
	}
	if (le != NULL) {
		puts_(t, n == 0 ? "{le=\"" : ",le=\"");
		puts_(t, le);
		puts_(t, "\"");
		n++;
	}
	if (n > 0)
		puts_(t, "}");
	return 0;
}

static void
fmt_f64(char *b, size_t len, double v)
{
	if (isnan(v))
		snprintf(b, len, "NaN");
	else if (isinf(v))
		snprintf(b, len, v > 0 ? "+Inf" : "-Inf");
	else
		snprintf(b, len, "%.17g", v);
}

void
gpudp_metrics_family(struct gpudp_metrics_text *t, const char *name,
		     enum gpudp_metrics_type type, const char *help)
{
	static const char *const types[] = { "counter", "gauge", "histogram" };

	if (!name_ok(name, 1) || (unsigned int)type > GPUDP_METRICS_HISTOGRAM) {
		t->err = t->err != 0 ? t->err : -EINVAL;
		return;
	}
	puts_(t, "# HELP ");
	puts_(t, name);
	puts_(t, " ");
	put_escaped(t, help != NULL ? help : "", 0);
	puts_(t, "\n# TYPE ");
	puts_(t, name);
	puts_(t, " ");
	puts_(t, types[type]);
	puts_(t, "\n");
}

void
gpudp_metrics_u64(struct gpudp_metrics_text *t, const char *name, const char *const *labels,
		  uint64_t v)
{
	char b[32];

	if (head(t, name, "", labels, NULL) != 0)
		return;
	snprintf(b, sizeof(b), " %" PRIu64 "\n", v);
	puts_(t, b);
}

void
gpudp_metrics_f64(struct gpudp_metrics_text *t, const char *name, const char *const *labels,
		  double v)
{
	char b[40];

	if (head(t, name, "", labels, NULL) != 0)
		return;
	puts_(t, " ");
	fmt_f64(b, sizeof(b), v);
	puts_(t, b);
	puts_(t, "\n");
}

void
gpudp_metrics_histogram(struct gpudp_metrics_text *t, const char *name,
			const char *const *labels, const double *le, const uint64_t *counts,
			unsigned int n, double sum)
{
	uint64_t cum = 0;
	unsigned int i;
	char b[40], v[32];

	for (i = 0; i <= n; i++) {
		cum += counts[i];
		if (i < n)
			fmt_f64(b, sizeof(b), le[i]);
		if (head(t, name, "_bucket", labels, i < n ? b : "+Inf") != 0)
			return;
		snprintf(v, sizeof(v), " %" PRIu64 "\n", cum);
		puts_(t, v);
	}
	if (head(t, name, "_sum", labels, NULL) != 0)
		return;
	fmt_f64(b, sizeof(b), sum);
	puts_(t, " ");
	puts_(t, b);
	puts_(t, "\n");
	if (head(t, name, "_count", labels, NULL) != 0)
		return;
	snprintf(v, sizeof(v), " %" PRIu64 "\n", cum);
	puts_(t, v);
}

void
gpudp_metrics_text_free(struct gpudp_metrics_text *t)
{
	free(t->buf);
	memset(t, 0, sizeof(*t));
}

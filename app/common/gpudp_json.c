/* SPDX-License-Identifier: BSD-3-Clause */
/* The apps' JSON writer: see gpudp_json.h. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpudp_json.h"

void
gpudp_json_init(struct gpudp_json *j, FILE *f)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
}

int
gpudp_json_open(struct gpudp_json *j, const char *path)
{
	size_t n = strlen(path) + 32;
	FILE *f;

	struct stat st;

	memset(j, 0, sizeof(*j));
	j->path = strdup(path);
	if (j->path == NULL)
		goto fail;
	/* not a regular file (/dev/stdout, /dev/null, a FIFO): written as it
	 * is, never replaced by a file of the same name */
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		f = fopen(path, "w");
		if (f == NULL)
			goto fail;
		j->f = f;
		return 0;
	}
	j->tmp = malloc(n);
	if (j->tmp == NULL)
		goto fail;
	snprintf(j->tmp, n, "%s.tmp%d", path, (int)getpid());
	f = fopen(j->tmp, "w");
	if (f == NULL)
		goto fail;
	j->f = f;
	return 0;
fail:
	j->err = errno != 0 ? -errno : -ENOMEM;
	free(j->tmp);
	free(j->path);
	j->tmp = NULL;
	j->path = NULL;
	return j->err;
}

static void
set_err(struct gpudp_json *j, int err)
{
	if (j->err == 0)
		j->err = err;
}

static void
put_str(FILE *f, const char *s)
{
	const unsigned char *p;

	fputc('"', f);
	for (p = (const unsigned char *)s; *p != '\0'; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", f);
		else if (*p == '\t')
			fputs("\\t", f);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

/* whether the members of the container at depth d go on their own lines */
static int
own_lines(const struct gpudp_json *j, unsigned int d)
{
	return d == 1 || (j->arrays & (1u << d)) != 0;
}

/* the separator, the line break and indent, the key: before any value */
static void
member(struct gpudp_json *j, const char *key)
{
	unsigned int d = j->depth;
	int in_obj = d > 0 && (j->arrays & (1u << d)) == 0;

	if ((key != NULL) != in_obj) {
		set_err(j, -EINVAL);
		return;
	}
	if (d > 0 && (j->items & (1u << d)) != 0)
		fputc(',', j->f);
	if (d > 0 && own_lines(j, d))
		fprintf(j->f, "\n%*s", (int)(2 * d), "");
	else if (d > 0 && (j->items & (1u << d)) != 0)
		fputc(' ', j->f);
	if (d > 0)
		j->items |= 1u << d;
	if (key != NULL) {
		put_str(j->f, key);
		fputs(": ", j->f);
	}
}

static void
open_container(struct gpudp_json *j, const char *key, int array)
{
	member(j, key);
	if (j->depth + 1 >= GPUDP_JSON_DEPTH_MAX) {
		set_err(j, -EINVAL);
		return;
	}
	j->depth++;
	j->items &= ~(1u << j->depth);
	if (array)
		j->arrays |= 1u << j->depth;
	else
		j->arrays &= ~(1u << j->depth);
	fputc(array ? '[' : '{', j->f);
}

void
gpudp_json_obj(struct gpudp_json *j, const char *key)
{
	open_container(j, key, 0);
}

void
gpudp_json_arr(struct gpudp_json *j, const char *key)
{
	open_container(j, key, 1);
}

void
gpudp_json_end(struct gpudp_json *j)
{
	unsigned int d = j->depth;

	if (d == 0) {
		set_err(j, -EINVAL);
		return;
	}
	if ((j->items & (1u << d)) != 0 && own_lines(j, d))
		fprintf(j->f, "\n%*s", (int)(2 * (d - 1)), "");
	fputc((j->arrays & (1u << d)) != 0 ? ']' : '}', j->f);
	j->depth--;
	if (j->depth == 0)
		fputc('\n', j->f);
}

void
gpudp_json_u64(struct gpudp_json *j, const char *key, uint64_t v)
{
	member(j, key);
	fprintf(j->f, "%" PRIu64, v);
}

void
gpudp_json_i64(struct gpudp_json *j, const char *key, int64_t v)
{
	member(j, key);
	fprintf(j->f, "%" PRId64, v);
}

void
gpudp_json_dbl(struct gpudp_json *j, const char *key, double v, int decimals)
{
	member(j, key);
	if (isfinite(v))
		fprintf(j->f, "%.*f", decimals, v);
	else
		fputs("null", j->f);
}

void
gpudp_json_bool(struct gpudp_json *j, const char *key, int v)
{
	member(j, key);
	fputs(v ? "true" : "false", j->f);
}

void
gpudp_json_str(struct gpudp_json *j, const char *key, const char *s)
{
	member(j, key);
	if (s == NULL)
		fputs("null", j->f);
	else
		put_str(j->f, s);
}

void
gpudp_json_null(struct gpudp_json *j, const char *key)
{
	member(j, key);
	fputs("null", j->f);
}

int
gpudp_json_close(struct gpudp_json *j)
{
	int rc;

	if (j->depth != 0)
		set_err(j, -EINVAL);
	if (j->f != NULL && (fflush(j->f) != 0 || ferror(j->f)))
		set_err(j, -EIO);
	if (j->path != NULL) {
		if (fclose(j->f) != 0)
			set_err(j, -EIO);
		if (j->err == 0 && j->tmp != NULL && rename(j->tmp, j->path) != 0)
			set_err(j, -errno);
		if (j->err != 0 && j->tmp != NULL)
			unlink(j->tmp);
		free(j->tmp);
		free(j->path);
	}
	rc = j->err;
	memset(j, 0, sizeof(*j));
	return rc;
}

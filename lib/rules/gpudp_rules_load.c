/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rule files and a variables file read and parsed into a rule set
 * (gpudp_rules_load(), gpudp_rules.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpudp_rules.h"

/* the whole file at @p path (NUL-terminated, *len bytes), or NULL with errno */
static char *
read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL, *t;
	size_t cap = 0, n = 0, k;
	int err;

	if (f == NULL)
		return NULL;
	do {
		if (cap - n < 65536) {
			cap = cap ? cap * 2 : 65536;
			t = realloc(buf, cap + 1);
			if (t == NULL) {
				free(buf);
				fclose(f);
				errno = ENOMEM;
				return NULL;
			}
			buf = t;
		}
		k = fread(buf + n, 1, cap - n, f);
		n += k;
	} while (k > 0);
	err = ferror(f) ? EIO : 0;
	fclose(f);
	if (err != 0) {
		free(buf);
		errno = err;
		return NULL;
	}
	buf[n] = 0;
	*len = n;
	return buf;
}

int
gpudp_rules_load(struct gpudp_rules *rs, const char *const *files, uint32_t n_files,
		 const char *vars, const struct gpudp_rules_conf *conf, char *err, size_t errlen)
{
	char *text;
	size_t len;
	uint32_t i;
	int rc;

	if (vars != NULL) {
		text = read_all(vars, &len);
		if (text == NULL) {
			rc = -errno;
			snprintf(err, errlen, "cannot read '%s': %s", vars, strerror(-rc));
			return rc;
		}
		rc = gpudp_rules_vars(rs, text, len, vars, err, errlen);
		free(text);
		if (rc != 0)
			return rc;
	}
	for (i = 0; i < n_files; i++) {
		text = read_all(files[i], &len);
		if (text == NULL) {
			rc = -errno;
			snprintf(err, errlen, "cannot read '%s': %s", files[i], strerror(-rc));
			return rc;
		}
		rc = gpudp_rules_parse(rs, text, len, files[i], conf, err, errlen);
		free(text);
		if (rc < 0)
			return rc;
	}
	return 0;
}

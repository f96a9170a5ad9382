/* SPDX-License-Identifier: BSD-3-Clause */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpudp_opt.h"

int
gpudp_opt_bad(const char *prog, const char *opt, const char *val, const char *why)
{
	fprintf(stderr, "%s: --%s: bad value '%s' (%s)\n", prog, opt, val, why);
	return -1;
}

int
gpudp_opt_u64(const char *prog, const char *opt, const char *v, uint64_t min,
	      uint64_t max, uint64_t *out)
{
	unsigned long long x;
	char why[96];
	char *e;

	/* digits only: strtoull would also take leading blanks and a sign */
	errno = 0;
	x = strtoull(v, &e, 10);
	if (!isdigit((unsigned char)v[0]) || errno != 0 || *e != '\0' || x < min || x > max) {
		snprintf(why, sizeof(why), "expected an integer %llu..%llu",
			 (unsigned long long)min, (unsigned long long)max);
		return gpudp_opt_bad(prog, opt, v, why);
	}
	*out = x;
	return 0;
}

int
gpudp_opt_secs(const char *prog, const char *opt, const char *v, double max, double *out)
{
	char why[64];
	char *e;
	double x;

	/* a plain decimal fraction: no blanks, sign, hex or "inf" */
	errno = 0;
	x = strtod(v, &e);
	if ((!isdigit((unsigned char)v[0]) && v[0] != '.') || strpbrk(v, "xX") != NULL ||
	    errno != 0 || e == v || *e != '\0' || !isfinite(x) || x < 0 || x > max) {
		snprintf(why, sizeof(why), "expected seconds, 0..%.0f", max);
		return gpudp_opt_bad(prog, opt, v, why);
	}
	*out = x;
	return 0;
}

int
gpudp_opt_ports(const char *prog, const char *opt, const char *v, uint16_t *ports,
		unsigned int max, unsigned int *n)
{
	const char *p = v;
	char why[48];
	unsigned int i;

	*n = 0;
	while (*p != '\0') {
		unsigned long x;
		char *e;

		errno = 0;
		x = strtoul(p, &e, 10);
		if (!isdigit((unsigned char)*p) || errno != 0 || x >= 65535 ||
		    (*e != ',' && *e != '\0') || (*e == ',' && e[1] == '\0'))
			return gpudp_opt_bad(prog, opt, v, "expected port ids like 0,1");
		if (*n == max) {
			snprintf(why, sizeof(why), "at most %u ports", max);
			return gpudp_opt_bad(prog, opt, v, why);
		}
		for (i = 0; i < *n; i++) {
			if (ports[i] == x) {
				snprintf(why, sizeof(why), "port %lu given twice", x);
				return gpudp_opt_bad(prog, opt, v, why);
			}
		}
		ports[(*n)++] = (uint16_t)x;
		p = *e == ',' ? e + 1 : e;
	}
	if (*n == 0)
		return gpudp_opt_bad(prog, opt, v, "expected port ids like 0,1");
	return 0;
}

int
gpudp_opt_out_file(const char *prog, const char *opt, const char *path)
{
	char tmp[4096], why[160];
	const char *slash;
	struct stat st;
	int fd;

	if (path[0] == '\0')
		return gpudp_opt_bad(prog, opt, path, "expected a file name");
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return gpudp_opt_bad(prog, opt, path, "is a directory");
	/* not a regular file (/dev/stdout, a FIFO): written in place */
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return 0;
	/* the file is written at the end through a temporary file in its
	 * directory: create (and remove) one there now */
	slash = strrchr(path, '/');
	if (slash == NULL)
		snprintf(tmp, sizeof(tmp), ".gpudp-check.XXXXXX");
	else if ((size_t)(slash - path) + 21 >= sizeof(tmp))
		return gpudp_opt_bad(prog, opt, path, "path too long");
	else
		snprintf(tmp, sizeof(tmp), "%.*s/.gpudp-check.XXXXXX", (int)(slash - path),
			 path);
	fd = mkstemp(tmp);
	if (fd < 0) {
		snprintf(why, sizeof(why), "cannot create a file in its directory: %s",
			 strerror(errno));
		return gpudp_opt_bad(prog, opt, path, why);
	}
	close(fd);
	unlink(tmp);
	return 0;
}

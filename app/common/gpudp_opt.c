/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

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

	errno = 0;
	x = strtoull(v, &e, 10);
	if (errno != 0 || e == v || *e != '\0' || v[0] == '-' || x < min || x > max) {
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

	errno = 0;
	x = strtod(v, &e);
	if (errno != 0 || e == v || *e != '\0' || !isfinite(x) || x < 0 || x > max) {
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

	*n = 0;
	while (*p != '\0') {
		unsigned long x;
		char *e;

		errno = 0;
		x = strtoul(p, &e, 10);
		if (errno != 0 || e == p || *p == '-' || x >= 65535 ||
		    (*e != ',' && *e != '\0'))
			return gpudp_opt_bad(prog, opt, v, "expected port ids like 0,1");
		if (*n == max) {
			snprintf(why, sizeof(why), "at most %u ports", max);
			return gpudp_opt_bad(prog, opt, v, why);
		}
		ports[(*n)++] = (uint16_t)x;
		p = *e == ',' ? e + 1 : e;
	}
	if (*n == 0)
		return gpudp_opt_bad(prog, opt, v, "expected port ids like 0,1");
	return 0;
}

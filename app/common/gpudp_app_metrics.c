/* SPDX-License-Identifier: BSD-3-Clause */
/* What the apps' --metrics share (gpudp_app_metrics.h). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "gpudp_app_metrics.h"
#include "gpudp_opt.h"

int
gpudp_app_metrics_arg(const char *prog, const char *v)
{
	struct sockaddr_storage ss;
	socklen_t len;
	char err[160];

	/* the parser's message is "'V': why" */
	if (gpudp_metrics_parse_listen(v, &ss, &len, err, sizeof(err)) != 0)
		return gpudp_opt_bad(prog, "metrics", v, strlen(err) > strlen(v) + 4 ?
				     err + strlen(v) + 4 : err);
	return 0;
}

void
gpudp_app_metrics_per_port(struct gpudp_metrics_text *t, const char *name,
			   const struct gpudp_app_port_stats *ps, unsigned int n,
			   const char *key, const char *val, size_t off)
{
	unsigned int i;
	char id[8];

	for (i = 0; i < n; i++) {
		snprintf(id, sizeof(id), "%u", ps[i].port);
		gpudp_metrics_u64(t, name, (const char *const[]){ "port", id, "driver",
				  ps[i].driver, key, val, NULL },
				  *(const uint64_t *)((const char *)&ps[i] + off));
	}
}

void
gpudp_app_metrics_end(struct gpudp_metrics_server *s, uint64_t linger_s, const char *prog,
		      int quiet)
{
	struct gpudp_metrics_stats st;
	uint64_t i;

	if (s == NULL)
		return;
	for (i = 0; i < linger_s * 10; i++)
		usleep(100000);
	gpudp_metrics_stats_get(s, &st);
	if (!quiet)
		fprintf(stderr, "%s: metrics: %" PRIu64 " scrapes, %" PRIu64 " not found, %"
			PRIu64 " bad methods, %" PRIu64 " failed\n", prog, st.scrapes,
			st.not_found, st.bad_method, st.failed);
	gpudp_metrics_stop(s);
}

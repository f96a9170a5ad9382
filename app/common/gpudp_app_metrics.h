/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the apps' --metrics share (doc/metrics.md): the option's check and
 * the end of the endpoint's life (--metrics-linger, its counters logged).
 */
#ifndef GPUDP_APP_METRICS_H
#define GPUDP_APP_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include <gpudp_metrics.h>

#include "gpudp_app_port_stats.h"

/**
 * Check --metrics's value (gpudp_metrics_parse_listen()).
 * @return 0, or -1 with "PROG: --metrics: bad value 'V' (why)" printed
 */
int gpudp_app_metrics_arg(const char *prog, const char *v);

/**
 * One sample of family @p name for each of the @p n ports @p ps, labelled
 * port and driver, then @p key = @p val when @p key is not NULL; its value
 * the counter at byte offset @p off of struct gpudp_app_port_stats (e.g.
 * offsetof(struct gpudp_app_port_stats, imissed)).
 */
void gpudp_app_metrics_per_port(struct gpudp_metrics_text *t, const char *name,
				const struct gpudp_app_port_stats *ps, unsigned int n,
				const char *key, const char *val, size_t off);

/**
 * The run is over: keep serving for @p linger_s seconds (the caller has
 * published its final values), then stop @p s, its counters on stderr
 * unless @p quiet. NULL does nothing.
 */
void gpudp_app_metrics_end(struct gpudp_metrics_server *s, uint64_t linger_s, const char *prog,
			   int quiet);

#endif

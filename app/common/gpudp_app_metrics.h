/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the apps' --metrics share (doc/metrics.md): the option's check and
 * the end of the endpoint's life (--metrics-linger, its counters logged).
 */
#ifndef GPUDP_APP_METRICS_H
#define GPUDP_APP_METRICS_H

#include <stdint.h>

#include <gpudp_metrics.h>

/**
 * Check --metrics's value (gpudp_metrics_parse_listen()).
 * @return 0, or -1 with "PROG: --metrics: bad value 'V' (why)" printed
 */
int gpudp_app_metrics_arg(const char *prog, const char *v);

/**
 * The run is over: keep serving for @p linger_s seconds (the caller has
 * published its final values), then stop @p s, its counters on stderr
 * unless @p quiet. NULL does nothing.
 */
void gpudp_app_metrics_end(struct gpudp_metrics_server *s, uint64_t linger_s, const char *prog,
			   int quiet);

#endif

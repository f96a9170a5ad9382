/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpudp-capture's Prometheus endpoint (--metrics, app_metrics.c). Every
 * function is called on the main thread; each does nothing without
 * --metrics.
 */
#ifndef GPUDP_CAPTURE_APP_METRICS_H
#define GPUDP_CAPTURE_APP_METRICS_H

#include "cap_app.h"

/** Start serving (the values so far published first). @return 0 or the exit code */
int app_metrics_start(struct cap_app *app);

/** From the receive loop: the ports' and engine's counters, a few times a second. */
void app_metrics_live(struct cap_app *app);

/** At each report: everything @p r says, published. */
void app_metrics_report(struct cap_app *app, const struct cap_report *r);

/** The run is over: publish that, linger (--metrics-linger), stop serving. */
void app_metrics_stop(struct cap_app *app);

#endif

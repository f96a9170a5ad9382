/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpudp-capture's flow monitor outputs (doc/flows.md): the records of the
 * flows the engine ends go to the NDJSON flow log (--flow-log) and to the
 * IPFIX targets (--ipfix collectors, --ipfix-file), an exporter each; the
 * report says what each output took and lost. An output that fails loses
 * records, counted and said once; the analysis goes on. The records reach
 * the outputs through a queue and an export thread for each (app_flows_q.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cap_app.h"

#define NS 1000000000ull
/* at the end, how long IPFIX waits for TCP queues to drain */
#define DRAIN_MS 2000

/* one IPFIX exporter with target @p t (its own thread writes it) */
static int
ipfix_add(struct cap_app *app, const struct gpudp_ipfix_config *cfg,
	  const struct gpudp_ipfix_target *t, char *err, size_t len)
{
	struct gpudp_ipfix *x;
	int rc = gpudp_ipfix_create(cfg, &x, err, len);

	if (rc < 0)
		return rc;
	app->ipx[app->n_ipx++] = x;
	/* gpudp_ipfix_add_target() gives the target's index */
	rc = gpudp_ipfix_add_target(x, t, err, len);
	return rc < 0 ? rc : 0;
}

/* the IPFIX targets of --ipfix and --ipfix-file, an exporter each */
static int
ipfix_open(struct cap_app *app)
{
	struct gpudp_ipfix_config cfg;
	struct gpudp_ipfix_target t;
	char err[320];
	uint32_t i;
	int rc = 0;

	gpudp_ipfix_config_init(&cfg);
	cfg.domain_id = app->conf.obs_domain;
	if (app->conf.ipfix_mtu != 0)
		cfg.mtu = app->conf.ipfix_mtu;
	for (i = 0; rc == 0 && i < app->conf.n_ipfix; i++) {
		rc = gpudp_ipfix_target_parse(app->conf.ipfix[i], &t, err, sizeof(err));
		if (rc == 0)
			rc = ipfix_add(app, &cfg, &t, err, sizeof(err));
	}
	if (rc == 0 && app->conf.ipfix_file != NULL) {
		rc = gpudp_ipfix_target_file(app->conf.ipfix_file, &t, err, sizeof(err));
		if (rc == 0)
			rc = ipfix_add(app, &cfg, &t, err, sizeof(err));
	}
	if (rc < 0) {
		fprintf(stderr, "gpudp-capture: %s\n", err);
		return rc;
	}
	return 0;
}

int
app_flows_open(struct cap_app *app)
{
	int rc;

	if (!cap_conf_flows_on(&app->conf))
		return 0;
	app->life.idle_ns = app->conf.idle_timeout_s * NS;
	app->life.active_ns = app->conf.active_timeout_s * NS;
	app->life.biflow = app->conf.biflow;
	if ((app->conf.n_ipfix > 0 || app->conf.ipfix_file != NULL) && ipfix_open(app) != 0)
		return GPUDP_EXIT_FAILURE;
	if (app->conf.flow_log != NULL) {
		rc = gpudp_flow_log_open(app->conf.flow_log, 0, 0, &app->flow_log);
		if (rc != 0) {
			fprintf(stderr, "gpudp-capture: --flow-log: cannot create '%s': %s\n",
				app->conf.flow_log, strerror(-rc));
			return GPUDP_EXIT_FAILURE;
		}
	}
	rc = app->n_ipx > 0 || app->flow_log != NULL ? app_flows_q_start(app) : 0;
	if (rc != 0)
		CAP_LOG(WARNING, "flow monitor: no export threads (%s): records are written by "
			"the analysis's thread", strerror(-rc));
	CAP_LOG(INFO, "flow monitor: idle timeout %" PRIu64 " s, active timeout %" PRIu64
		" s, %s records%s%s%s", app->conf.idle_timeout_s, app->conf.active_timeout_s,
		app->conf.biflow ? "biflow" : "unidirectional",
		app->conf.flow_log != NULL ? ", flow log " : "",
		app->conf.flow_log != NULL ? app->conf.flow_log : "",
		app->n_ipx > 0 ? ", IPFIX" : "");
	return 0;
}

void
app_flows_out(void *arg, const struct gpudp_flow_rec *recs, uint32_t n)
{
	struct cap_app *app = arg;
	uint64_t pkts = 0, ended[RTE_DIM(app->flow_st.ended)] = { 0 };
	uint32_t i;

	for (i = 0; i < n; i++) {
		pkts += recs[i].packets + recs[i].rpackets;
		if (recs[i].end_reason < RTE_DIM(ended))
			ended[recs[i].end_reason]++;
	}
	/* on the engine's thread (the GPU engine's own), read by reports */
	__atomic_fetch_add(&app->flow_st.records, n, __ATOMIC_RELAXED);
	__atomic_fetch_add(&app->flow_st.pkts, pkts, __ATOMIC_RELAXED);
	for (i = 0; i < RTE_DIM(ended); i++)
		if (ended[i] != 0)
			__atomic_fetch_add(&app->flow_st.ended[i], ended[i], __ATOMIC_RELAXED);
	if (app->n_ipx > 0 || app->flow_log != NULL)
		app_flows_q_put(app, recs, n);
}

void
app_flows_end(struct cap_app *app)
{
	if (!cap_conf_flows_on(&app->conf))
		return;
	if (gpudp_cap_engine_end_flows(&app->eng) != 0)
		CAP_LOG(ERR, "ending the flows: %s", app->eng.err);
}

const struct cap_report_flows *
app_flows_report(struct cap_app *app, int final, struct cap_report_flows *f)
{
	unsigned int i;

	if (!cap_conf_flows_on(&app->conf))
		return NULL;
	memset(f, 0, sizeof(*f));
	f->life = app->flow_st;
	if (app->conf.reader == CAP_CONF_READER_DIRECT)
		f->table = app->flow_table;
	else
		gpudp_cap_engine_flow_stats(&app->eng, &f->table);
	/* final: every record put is written first */
	if (final)
		app_flows_q_sync(app);
	f->export_waits = app_flows_q_waits(app);
	app_flows_q_io(app, 1);
	for (i = 0; i < app->n_ipx && f->n_ipfix < CAP_REPORT_IPFIX; i++) {
		if (final)
			gpudp_ipfix_drain(app->ipx[i], DRAIN_MS);
		snprintf(f->ipfix_name[f->n_ipfix], sizeof(f->ipfix_name[0]), "%s",
			 gpudp_ipfix_target_name(app->ipx[i], 0));
		gpudp_ipfix_stats_get(app->ipx[i], 0, &f->ipfix[f->n_ipfix++]);
	}
	if (app->flow_log != NULL) {
		if (final)
			gpudp_flow_log_flush(app->flow_log);
		f->log_path = app->conf.flow_log;
		gpudp_flow_log_stats_get(app->flow_log, &f->log);
	}
	app_flows_q_io(app, 0);
	return f;
}

int
app_flows_close(struct cap_app *app)
{
	struct cap_report_flows f;
	uint32_t i;
	int lost = 0;

	if (!cap_conf_flows_on(&app->conf))
		return 0;
	app_flows_q_stop(app);
	/* the final report drained and flushed the outputs; close says the rest */
	app_flows_report(app, 0, &f);
	if (cap_report_flows_dropped(&f) != 0) {
		fprintf(stderr, "gpudp-capture: flow monitor: %" PRIu64 " records lost on the "
			"way to an output (see the report's flow_export)\n",
			cap_report_flows_dropped(&f));
		lost = 1;
	}
	for (i = 0; i < app->n_ipx; i++)
		if (gpudp_ipfix_close(app->ipx[i], DRAIN_MS) != 0)
			lost = 1;
	app->n_ipx = 0;
	if (app->flow_log != NULL && gpudp_flow_log_close(app->flow_log) != 0)
		lost = 1;
	app->flow_log = NULL;
	return lost;
}

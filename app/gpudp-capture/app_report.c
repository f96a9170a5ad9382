/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpudp-capture: the report of the results (report.c formats it; this adds
 * the ports' counters and the pool's figures) and --verify's final check.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_telemetry.h>

#include <gpudp_mem.h>

#include "app_metrics.h"
#include "cap_app.h"
#include "report.h"

/* The ports' counters since they started into @p ps (one per port), their
 * drop and error counters summed into @p r. */
static void
port_stats(const struct cap_app *app, struct gpudp_app_port_stats *ps, struct cap_report *r)
{
	unsigned int i;

	for (i = 0; i < app->n_ports; i++) {
		if (gpudp_app_port_stats_get(app->ports[i].id, &ps[r->n_ports]) != 0)
			continue;
		r->rx_missed += ps[r->n_ports].imissed;
		r->rx_errors += ps[r->n_ports].ierrors;
		r->rx_nombuf += ps[r->n_ports].rx_nombuf;
		r->n_ports++;
	}
	r->ports = ps;
}

/* the ports /gpudp/capture/ports reports, set once they have started */
static uint16_t tel_port_ids[CAP_MAX_PORTS];
static unsigned int tel_n_ports;

static int
tel_ports(const char *cmd, const char *params, struct rte_tel_data *d)
{
	RTE_SET_USED(cmd);
	RTE_SET_USED(params);
	gpudp_app_port_stats_tel_ports(d, tel_port_ids,
				       __atomic_load_n(&tel_n_ports, __ATOMIC_ACQUIRE));
	return 0;
}

void
app_report_telemetry(const struct cap_app *app)
{
	unsigned int i;

	for (i = 0; i < app->n_ports && i < CAP_MAX_PORTS; i++)
		tel_port_ids[i] = app->ports[i].id;
	__atomic_store_n(&tel_n_ports, i, __ATOMIC_RELEASE);
	rte_telemetry_register_cmd("/gpudp/capture/ports", tel_ports,
				   "gpudp-capture port counters since start: packets, bytes, "
				   "imissed, ierrors, oerrors, rx_nombuf, the PMD's drop xstats");
}

/* The GPUs the ports were analysed on (engine.gpus), with the GPU engine. */
static void
report_gpus(struct cap_app *app, struct cap_report_gpu *gpus, struct cap_report *r)
{
	unsigned int g, i, n = app->n_gpus;

	if (strcmp(app->engine_name, "gpu") != 0 || app->conf.reader == CAP_CONF_READER_DIRECT)
		return;
	if (n == 0) { /* one GPU, --gpu N: every port on it */
		memset(&gpus[0], 0, sizeof(gpus[0]));
		gpus[0].ordinal = (int)app->conf.gpu;
		gpus[0].packets = app->eng.st.pkts;
		gpus[0].batches = app->eng.st.batches;
		for (i = 0; i < app->n_ports && i < CAP_REPORT_GPU_PORTS; i++)
			gpus[0].ports[gpus[0].n_ports++] = app->ports[i].id;
		n = 1;
	}
	for (g = 0; g < app->n_gpus; g++) {
		const struct cap_gpu *gp = &app->gpus[g];

		memset(&gpus[g], 0, sizeof(gpus[g]));
		gpus[g].ordinal = gp->info.ordinal;
		snprintf(gpus[g].pci, sizeof(gpus[g].pci), "%s", gp->info.pci);
		gpus[g].packets = app_n_engines(app) > 1 ? gp->eng->st.pkts : app->eng.st.pkts;
		gpus[g].batches = app_n_engines(app) > 1 ? gp->eng->st.batches :
				  app->eng.st.batches;
		for (i = 0; i < app->n_ports; i++)
			if (app->ports[i].gpu == g && gpus[g].n_ports < CAP_REPORT_GPU_PORTS)
				gpus[g].ports[gpus[g].n_ports++] = app->ports[i].id;
	}
	r->gpus = gpus;
	r->n_gpus = n;
}

/*
 * What the --filter-out writer wrote (the final report: every packet
 * written first, so that a write error is in its counts).
 */
static void
filter_out_stats(struct cap_app *app, int final, struct cap_report *r)
{
	struct gpudp_pcapng_ring_stats st;

	if (app->out == NULL)
		return;
	if (final)
		gpudp_pcapng_ring_flush(app->out);
	gpudp_pcapng_ring_stats(app->out, &st);
	r->filter_written = st.packets + st.pending;
	r->filter_dropped = st.dropped;
	r->filter_files = st.files;
	r->filter_files_removed = st.files_removed;
}

/*
 * Read the engine's results and report them (the table unless --quiet,
 * --json); @p final: the last report, else a --period one.
 */
/* the EVE output's figures (final: every alert written out first) */
static void
app_rules_report(struct cap_app *app, int final, struct cap_report *r)
{
	struct cap_rules *ru = &app->conf.rules;
	int err;

	if (ru->eve_log == NULL)
		return;
	if (final) {
		pthread_mutex_lock(&ru->eve_lock);
		gpudp_flow_log_flush(ru->eve_log);
		pthread_mutex_unlock(&ru->eve_lock);
	}
	cap_rules_eve_stats(ru, &r->eve_written, &r->eve_lost, &err);
}

int
app_report(struct cap_app *app, double elapsed, int final)
{
	struct cap_report r = {
		.input = app->input_desc, .engine = app->engine_name,
		.engine_note = app->engine_note[0] ? app->engine_note : NULL,
		.eng = &app->eng.st, .a = app->result, .final = final, .elapsed_s = elapsed,
		.rx_pkts = app->rx_total, .staging_drops = app->staging_drops,
		.multiseg = app->multiseg, .pmd_cut = app->pmd_cut,
		.expected_pkts = app->expected_total,
		.file_truncated = app->file_truncated, .files_changed = app->files_changed,
		/* the direct reader's (no port): a cut last record; the ports' are added */
		.rx_errors = app->rx_errors, .filter_expr = app->conf.filter_expr,
		.filter_file = app->conf.filter_out,
		.filter_unreadable = app->unreadable_written,
		.filter_rotate = gpudp_pcapng_ring_rotates(&app->conf.rotate) ?
			&app->conf.rotate : NULL,
		.top_n = app->conf.top, .match = &app->conf.match, .rules = &app->conf.rules,
		.mem = cap_mem_name(app->mem),
		.mem_note = app->mem_note[0] ? app->mem_note : NULL,
		.pin = app->mem == GPUDP_CAP_MEM_DEVICE ? gpudp_pin_backend_name(app->pinfo.pin) :
			NULL,
		.host_alloc = app->pinfo.host_alloc == 0 ? NULL :
			(app->pinfo.host_alloc & GPUDP_MEM_HOST_ALLOC_WRITECOMBINED) ? "wc" : "default",
		/* the direct reader's records are never in mbufs */
		.pool_mbufs = app->conf.reader == CAP_CONF_READER_DIRECT ? 0 : app->conf.mbufs,
		.pool_data_room = app->conf.reader == CAP_CONF_READER_DIRECT ? 0 :
			app->conf.data_room,
		.pool_gpu_bytes = app->pinfo.gpu_bytes, .pool_host_bytes = app->pinfo.host_bytes,
		.pins_created = -1, .pins_running = -1, .cpu_mapped = app->cpu_mapped,
	};
	struct cap_report_gpu gpus[CAP_MAX_GPUS];
	struct gpudp_app_port_stats ports[CAP_MAX_PORTS];
	struct cap_report_flows flows;
	unsigned int i;
	/* the direct reader merged its threads' results already; several
	 * GPUs: each engine's results added up */
	int rc = app->conf.reader == CAP_CONF_READER_DIRECT ? 0 :
		 app_n_engines(app) > 1 ? app_collect_engines(app) :
		 gpudp_cap_engine_collect(&app->eng, app->result);

	if (app_n_engines(app) > 1)
		r.eng = &app->eng_sum;
	report_gpus(app, gpus, &r);
	filter_out_stats(app, final, &r);
	r.flows = app_flows_report(app, final, &flows);
	app_rules_report(app, final, &r);

	r.staging_drops += app->eng.st.unreadable;
	if (app->mem == GPUDP_CAP_MEM_DEVICE) {
		struct gpudp_regcache_stats st;

		gpudp_mem_pin_stats(&st);
		r.pins_created = (int64_t)app->pins_created;
		r.pins_running = (int64_t)(st.pins - app->pins_created);
	}

	if (rc != 0 && rc != -ENOSPC) {
		CAP_LOG(ERR, "reading the results failed: %s", app->eng.err);
		return rc;
	}
	port_stats(app, ports, &r);
	app_metrics_report(app, &r);
	/* --flow-log - or --eve -: standard output is theirs alone */
	if (!app->conf.quiet)
		cap_report_table((app->conf.flow_log != NULL &&
				  strcmp(app->conf.flow_log, "-") == 0) ||
				 (app->conf.rules.eve != NULL &&
				  strcmp(app->conf.rules.eve, "-") == 0) ? stderr : stdout, &r);
	fflush(stdout);
	for (i = 0; final && i < r.n_ports; i++)
		gpudp_app_port_stats_warn("gpudp-capture", &ports[i]);
	if (app->conf.json != NULL) {
		rc = cap_report_json_file(app->conf.json, &r);
		if (rc != 0) {
			CAP_LOG(ERR, "--json %s: cannot write: %s", app->conf.json, strerror(-rc));
			return rc;
		}
	}
	return 0;
}

/* --verify: the GPU's totals, flows and fragments must equal the CPU's, exactly. */
int
app_verify_results(struct cap_app *app)
{
	struct gpudp_frag_summary fs;
	char why[128];
	int rc = gpudp_analysis_compare(app->result, app->verify, why, sizeof(why));

	if (rc != 0 || app->verify_mismatch != 0) {
		CAP_LOG(ERR, "--verify: GPU and CPU results DIFFER (%" PRIu64 " packets; GPU "
			"and CPU: %s; %" PRIu64 " batches with different filter bits)",
			app->result->ctr.pkts, why, app->verify_mismatch);
		return -EIO;
	}
	gpudp_analysis_fragments(app->result, &fs);
	CAP_LOG(NOTICE, "--verify: GPU and CPU results are identical (%" PRIu64 " packets, every "
		"counter, flow, fragmented datagram (%" PRIu64 ") and filter bit)",
		app->result->ctr.pkts, fs.datagrams);
	return 0;
}

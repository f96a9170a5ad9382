/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpudp-capture's Prometheus metrics (--metrics, doc/metrics.md). The main
 * thread fills a snapshot (the ports' counters and the engine's a few
 * times a second, the analysis results at each report) and publishes it
 * behind a sequence counter; the endpoint's thread (lib/metrics) copies
 * the last complete one for each scrape. Nothing on the data path waits
 * for a scrape.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>

#include <gpudp_app_port_stats.h>
#include <gpudp_app_metrics.h>
#include <gpudp_flow_log.h>
#include <gpudp_metrics.h>

#include "app_metrics.h"

#define PUBLISH_HZ 4

struct cap_metrics_snap {
	uint32_t running;
	uint32_t n_ports;
	struct gpudp_app_port_stats port[CAP_MAX_PORTS];
	char engine[8];
	char device[128];
	uint64_t eng_pkts, eng_bytes, eng_batches;
	uint32_t have_report;
	uint64_t an_pkts, an_bytes, drops[GPUDP_AN_DROP_MAX], staging;
	uint64_t pool_gpu_bytes, pool_host_bytes;
	uint64_t filter_written, filter_dropped;
	uint32_t flows_on;
	struct gpudp_flow_life_stats rec, table;
	uint32_t n_ipfix;
	char ipfix_name[CAP_REPORT_IPFIX][300];
	struct gpudp_ipfix_stats ipfix[CAP_REPORT_IPFIX];
	uint32_t flow_log_on;
	uint64_t log_records, log_dropped;
	uint64_t export_waits;
};

static struct {
	struct gpudp_metrics_server *srv;
	_Atomic uint32_t seq;             /* odd while the snapshot is written */
	struct cap_metrics_snap pub;      /* the published snapshot */
	struct cap_metrics_snap work;     /* the main thread's */
	uint64_t next_live;
} M;

static void
publish(void)
{
	uint32_t s = atomic_load_explicit(&M.seq, memory_order_relaxed);

	atomic_store_explicit(&M.seq, s + 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
	memcpy(&M.pub, &M.work, sizeof(M.pub));
	atomic_store_explicit(&M.seq, s + 2, memory_order_release);
}

/* the last complete snapshot into @p out (on the endpoint's thread) */
static void
read_snapshot(struct cap_metrics_snap *out)
{
	uint32_t a, b;

	do {
		do
			a = atomic_load_explicit(&M.seq, memory_order_acquire);
		while (a & 1);
		memcpy(out, &M.pub, sizeof(*out));
		atomic_thread_fence(memory_order_acquire);
		b = atomic_load_explicit(&M.seq, memory_order_relaxed);
	} while (a != b);
}

/* the counters that cost nothing to read: ports, engine, flow export */
static void
fill_live(struct cap_app *app, int running)
{
	struct cap_metrics_snap *w = &M.work;
	unsigned int i;

	w->running = (uint32_t)running;
	w->n_ports = 0;
	for (i = 0; i < app->n_ports; i++)
		w->n_ports += gpudp_app_port_stats_get(app->ports[i].id,
						       &w->port[w->n_ports]) == 0;
	snprintf(w->engine, sizeof(w->engine), "%s", app->engine_name != NULL ?
		 app->engine_name : "none");
	snprintf(w->device, sizeof(w->device), "%s", app->eng.st.device);
	w->eng_pkts = app->eng.st.pkts;
	w->eng_bytes = app->eng.st.bytes;
	w->eng_batches = app->eng.st.batches;
	w->flows_on = cap_conf_flows_on(&app->conf);
	w->rec = app->flow_st;
	w->pool_gpu_bytes = app->pinfo.gpu_bytes;
	w->pool_host_bytes = app->pinfo.host_bytes;
}

void
app_metrics_live(struct cap_app *app)
{
	uint64_t now;

	if (M.srv == NULL)
		return;
	now = rte_get_timer_cycles();
	if (now < M.next_live)
		return;
	M.next_live = now + rte_get_timer_hz() / PUBLISH_HZ;
	fill_live(app, 1);
	publish();
}

void
app_metrics_report(struct cap_app *app, const struct cap_report *r)
{
	struct cap_metrics_snap *w = &M.work;
	unsigned int i;

	if (M.srv == NULL)
		return;
	fill_live(app, !r->final);
	w->have_report = 1;
	if (r->eng != NULL) {
		w->eng_pkts = r->eng->pkts;
		w->eng_bytes = r->eng->bytes;
		w->eng_batches = r->eng->batches;
	}
	if (r->a != NULL) {
		w->an_pkts = r->a->ctr.pkts;
		w->an_bytes = r->a->ctr.bytes;
		memcpy(w->drops, r->a->ctr.drops, sizeof(w->drops));
	}
	w->staging = r->staging_drops;
	w->filter_written = r->filter_written;
	w->filter_dropped = r->filter_dropped;
	if (r->flows != NULL) {
		w->table = r->flows->table;
		w->export_waits = r->flows->export_waits;
		w->n_ipfix = r->flows->n_ipfix;
		for (i = 0; i < w->n_ipfix; i++) {
			snprintf(w->ipfix_name[i], sizeof(w->ipfix_name[i]), "%s",
				 r->flows->ipfix_name[i]);
			w->ipfix[i] = r->flows->ipfix[i];
		}
		w->flow_log_on = r->flows->log_path != NULL;
		w->log_records = r->flows->log.records;
		w->log_dropped = r->flows->log.dropped;
	}
	publish();
}

/* one counter family of one sample without labels */
static void
counter(struct gpudp_metrics_text *t, const char *name, const char *help, uint64_t v)
{
	gpudp_metrics_family(t, name, GPUDP_METRICS_COUNTER, help);
	gpudp_metrics_u64(t, name, NULL, v);
}

static void
write_ports(struct gpudp_metrics_text *t, const struct cap_metrics_snap *s)
{
	static const struct {
		const char *reason;
		size_t off;
	} drops[] = {
		{ "missed", offsetof(struct gpudp_app_port_stats, imissed) },
		{ "errors", offsetof(struct gpudp_app_port_stats, ierrors) },
		{ "nombuf", offsetof(struct gpudp_app_port_stats, rx_nombuf) },
	};
	unsigned int k;

	gpudp_metrics_family(t, "gpudp_capture_rx_packets_total", GPUDP_METRICS_COUNTER,
			     "Packets received from each port since it started.");
	gpudp_app_metrics_per_port(t, "gpudp_capture_rx_packets_total", s->port, s->n_ports,
				   NULL, NULL, offsetof(struct gpudp_app_port_stats, rx_pkts));
	gpudp_metrics_family(t, "gpudp_capture_rx_bytes_total", GPUDP_METRICS_COUNTER,
			     "Bytes received from each port since it started.");
	gpudp_app_metrics_per_port(t, "gpudp_capture_rx_bytes_total", s->port, s->n_ports,
				   NULL, NULL, offsetof(struct gpudp_app_port_stats, rx_bytes));
	gpudp_metrics_family(t, "gpudp_capture_port_drops_total", GPUDP_METRICS_COUNTER,
			     "Packets each port dropped: missed (no free rx descriptor), errors "
			     "(received with errors), nombuf (no mbuf).");
	for (k = 0; k < RTE_DIM(drops); k++)
		gpudp_app_metrics_per_port(t, "gpudp_capture_port_drops_total", s->port,
					   s->n_ports, "reason", drops[k].reason, drops[k].off);
}

static void
write_flows(struct gpudp_metrics_text *t, const struct cap_metrics_snap *s)
{
	unsigned int i;

	gpudp_metrics_family(t, "gpudp_capture_flow_records_total", GPUDP_METRICS_COUNTER,
			     "Flow records given to the outputs, by why the flow ended.");
	for (i = 1; i < 6; i++)
		gpudp_metrics_u64(t, "gpudp_capture_flow_records_total",
				  (const char *const[]){ "end", gpudp_flow_end_name((uint8_t)i), NULL },
				  s->rec.ended[i]);
	counter(t, "gpudp_capture_flow_record_packets_total",
		"Packets in the flow records given to the outputs.", s->rec.pkts);
	gpudp_metrics_family(t, "gpudp_capture_flow_table_slots", GPUDP_METRICS_GAUGE,
			     "Slots of the flow table.");
	gpudp_metrics_u64(t, "gpudp_capture_flow_table_slots", NULL, s->table.capacity);
	gpudp_metrics_family(t, "gpudp_capture_flow_table_in_use", GPUDP_METRICS_GAUGE,
			     "Slots of the flow table in use after the last look at it.");
	gpudp_metrics_u64(t, "gpudp_capture_flow_table_in_use", NULL, s->table.in_use);
	counter(t, "gpudp_capture_flow_table_looks_total",
		"Looks at the flow table for the flows that end.", s->table.scans);
	counter(t, "gpudp_capture_flow_table_evictions_total",
		"Looks that ended flows to make room (lack of resources).", s->table.evictions);
	counter(t, "gpudp_capture_flow_export_waits_total",
		"Times the analysis waited for room in the records' queue to the outputs.",
		s->export_waits);
	if (s->n_ipfix > 0) {
		static const char *const names[4] = {
			"gpudp_capture_ipfix_messages_total", "gpudp_capture_ipfix_records_total",
			"gpudp_capture_ipfix_dropped_total", "gpudp_capture_ipfix_errors_total" };
		static const char *const helps[4] = {
			"IPFIX messages sent to each target.",
			"Flow records sent to each IPFIX target.",
			"Flow records dropped on the way to each IPFIX target.",
			"Send or connection errors of each IPFIX target." };
		unsigned int k;

		for (k = 0; k < 4; k++) {
			gpudp_metrics_family(t, names[k], GPUDP_METRICS_COUNTER, helps[k]);
			for (i = 0; i < s->n_ipfix; i++) {
				const uint64_t v[4] = { s->ipfix[i].messages, s->ipfix[i].records,
							s->ipfix[i].dropped, s->ipfix[i].errors };

				gpudp_metrics_u64(t, names[k], (const char *const[]){
					"target", s->ipfix_name[i], NULL }, v[k]);
			}
		}
	}
	if (s->flow_log_on) {
		counter(t, "gpudp_capture_flow_log_records_total",
			"Flow records written to the flow log.", s->log_records);
		counter(t, "gpudp_capture_flow_log_dropped_total",
			"Flow records the flow log could not write.", s->log_dropped);
	}
}

static void
collect(void *arg, struct gpudp_metrics_text *t)
{
	static struct cap_metrics_snap s;   /* one scrape at a time (lib/metrics) */
	unsigned int k;

	(void)arg;
	read_snapshot(&s);
	gpudp_metrics_family(t, "gpudp_capture_running", GPUDP_METRICS_GAUGE,
			     "1 while packets are captured, 0 after the run.");
	gpudp_metrics_u64(t, "gpudp_capture_running", NULL, s.running);
	write_ports(t, &s);
	gpudp_metrics_family(t, "gpudp_capture_engine_packets_total", GPUDP_METRICS_COUNTER,
			     "Packets handed to the analysis engine.");
	gpudp_metrics_u64(t, "gpudp_capture_engine_packets_total", (const char *const[]){
		"engine", s.engine, "device", s.device, NULL }, s.eng_pkts);
	gpudp_metrics_family(t, "gpudp_capture_engine_bytes_total", GPUDP_METRICS_COUNTER,
			     "Captured bytes handed to the analysis engine.");
	gpudp_metrics_u64(t, "gpudp_capture_engine_bytes_total", (const char *const[]){
		"engine", s.engine, "device", s.device, NULL }, s.eng_bytes);
	gpudp_metrics_family(t, "gpudp_capture_engine_batches_total", GPUDP_METRICS_COUNTER,
			     "Batches handed to the analysis engine.");
	gpudp_metrics_u64(t, "gpudp_capture_engine_batches_total", (const char *const[]){
		"engine", s.engine, "device", s.device, NULL }, s.eng_batches);
	if (s.have_report) {
		counter(t, "gpudp_capture_analysed_packets_total",
			"Packets analysed, as of the last report.", s.an_pkts);
		counter(t, "gpudp_capture_analysed_bytes_total",
			"Bytes analysed, as of the last report.", s.an_bytes);
		gpudp_metrics_family(t, "gpudp_capture_drops_total", GPUDP_METRICS_COUNTER,
				     "Packets the analysis dropped or could not account in full, "
				     "by reason, as of the last report; staging: not staged.");
		for (k = 0; k < GPUDP_AN_DROP_MAX; k++)
			gpudp_metrics_u64(t, "gpudp_capture_drops_total", (const char *const[]){
				"reason", gpudp_an_drop_name(k), NULL }, s.drops[k]);
		gpudp_metrics_u64(t, "gpudp_capture_drops_total", (const char *const[]){
			"reason", "staging", NULL }, s.staging);
		counter(t, "gpudp_capture_filter_out_packets_total",
			"Packets written to --filter-out, as of the last report.",
			s.filter_written);
	}
	gpudp_metrics_family(t, "gpudp_capture_pool_bytes", GPUDP_METRICS_GAUGE,
			     "Memory of the mbuf pool: in GPU memory and in host memory.");
	gpudp_metrics_u64(t, "gpudp_capture_pool_bytes", (const char *const[]){
		"memory", "gpu", NULL }, s.pool_gpu_bytes);
	gpudp_metrics_u64(t, "gpudp_capture_pool_bytes", (const char *const[]){
		"memory", "host", NULL }, s.pool_host_bytes);
	if (s.flows_on)
		write_flows(t, &s);
}

int
app_metrics_start(struct cap_app *app)
{
	struct gpudp_metrics_conf mc = { .listen = app->conf.metrics, .collect = collect };
	char err[256];
	int rc;

	if (app->conf.metrics == NULL)
		return 0;
	fill_live(app, 1);
	publish();
	rc = gpudp_metrics_start(&mc, &M.srv, err, sizeof(err));
	if (rc != 0) {
		CAP_LOG(ERR, "--metrics %s: %s", app->conf.metrics, err);
		return GPUDP_EXIT_FAILURE;
	}
	CAP_LOG(INFO, "metrics at http://%s/metrics (port %u)", app->conf.metrics,
		gpudp_metrics_port(M.srv));
	return 0;
}

void
app_metrics_stop(struct cap_app *app)
{
	if (M.srv == NULL)
		return;
	M.work.running = 0;
	publish();
	gpudp_app_metrics_end(M.srv, app->conf.metrics_linger_s, "gpudp-capture",
			      app->conf.quiet);
	M.srv = NULL;
}

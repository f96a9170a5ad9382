/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpudp-fwd's Prometheus metrics (--metrics, doc/metrics.md): the
 * endpoint's thread reads the pipelines' counters as the telemetry
 * commands do (each counter has one writer, an lcore; fwd_run.nb_ready
 * pipelines are complete), per GPU and per port, with the handoff's
 * latency histograms as Prometheus histograms. The endpoint stops before
 * the pipelines are torn down.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <gpudp_app_metrics.h>
#include <gpudp_app_port_stats.h>
#include <gpudp_metrics.h>

#include "fwd.h"

static struct gpudp_metrics_server *srv;
static volatile int running;

/* the latency histograms' bounds in seconds: 250 ns to 100 ms */
static const double le_s[] = {
	250e-9, 500e-9, 750e-9, 1e-6, 1.25e-6, 1.5e-6, 1.75e-6, 2e-6, 2.5e-6, 3e-6, 4e-6, 5e-6,
	7.5e-6, 10e-6, 15e-6, 20e-6, 30e-6, 50e-6, 75e-6, 100e-6, 250e-6, 500e-6, 1e-3, 10e-3,
	100e-3,
};
#define N_LE (sizeof(le_s) / sizeof(le_s[0]))

/* a handoff histogram as Prometheus buckets: each of its buckets into the
 * first bound its largest value fits (an observation is never counted
 * under a bound it passes) */
static void
hist_out(struct gpudp_metrics_text *t, const char *name, const char *gpu,
	 const struct gpudp_ho_hist *h)
{
	uint64_t counts[N_LE + 1];
	unsigned int i, k;

	memset(counts, 0, sizeof(counts));
	for (i = 0, k = 0; i < GPUDP_HO_HIST_BUCKETS; i++) {
		double max_s = (double)gpudp_ho_hist_bucket_max(i) / 1e9;

		while (k < N_LE && max_s > le_s[k])
			k++;
		counts[k] += h->b[i];
	}
	gpudp_metrics_histogram(t, name, (const char *const[]){ "gpu", gpu, NULL }, le_s, counts,
				N_LE, (double)h->sum_ns / 1e9);
}

/* the counters of one GPU's pipelines (@p gpu its label) */
struct gpu_view {
	char label[16];
	struct fwd_totals t;
	uint64_t pool_gpu, pool_host;
};

static unsigned int
views_get(struct gpu_view *v, unsigned int n)
{
	unsigned int g, i, nv = fwd_run.nb_gpus > 0 ? fwd_run.nb_gpus : 1;

	for (g = 0; g < nv; g++) {
		memset(&v[g], 0, sizeof(v[g]));
		if (fwd_run.nb_gpus > 0) {
			snprintf(v[g].label, sizeof(v[g].label), "%d", fwd_run.gpus[g].ordinal);
			fwd_gpu_totals_get(g, n, &v[g].t);
		} else {
			snprintf(v[g].label, sizeof(v[g].label), "none");
			fwd_totals_get(fwd_run.pipes, n, &v[g].t);
		}
		for (i = 0; i < n; i++) {
			struct gpudp_pool_info pi;

			if (fwd_run.pipes[i]->pool == NULL ||
			    (fwd_run.nb_gpus > 0 && fwd_run.pipes[i]->gpu != g))
				continue;
			gpudp_pool_info_get(fwd_run.pipes[i]->pool, &pi);
			v[g].pool_gpu += pi.gpu_bytes;
			v[g].pool_host += pi.host_bytes;
		}
	}
	return nv;
}

static void
per_gpu_u64(struct gpudp_metrics_text *t, const char *name, const struct gpu_view *v,
	    unsigned int nv, const char *k2, const char *v2, size_t off)
{
	unsigned int g;

	for (g = 0; g < nv; g++)
		gpudp_metrics_u64(t, name, (const char *const[]){ "gpu", v[g].label, k2, v2, NULL },
				  *(const uint64_t *)((const char *)&v[g].t + off));
}

/* the rings' families: one sample per GPU each */
static const struct {
	const char *name;
	enum gpudp_metrics_type type;
	const char *help;
	size_t off;
} ring_fams[] = {
	{ "gpudp_fwd_ring_in_flight", GPUDP_METRICS_GAUGE,
	  "Bursts in the handoff rings of each GPU's pipelines.",
	  offsetof(struct fwd_totals, in_flight) },
	{ "gpudp_fwd_ring_slots", GPUDP_METRICS_GAUGE, "Slots of those rings.",
	  offsetof(struct fwd_totals, ring_slots) },
	{ "gpudp_fwd_ring_full_total", GPUDP_METRICS_COUNTER,
	  "Times a pipeline found its ring full.", offsetof(struct fwd_totals, ring_full) },
};

/* the latency histograms */
static const struct {
	const char *name;
	const char *help;
	size_t off;
} lat_fams[] = {
	{ "gpudp_fwd_rx_to_kernel_start_seconds", "From a burst's receive to its kernel's start.",
	  offsetof(struct fwd_totals, lat_kstart) },
	{ "gpudp_fwd_rx_to_kernel_end_seconds", "From a burst's receive to its kernel's end.",
	  offsetof(struct fwd_totals, lat_kend) },
	{ "gpudp_fwd_rx_to_tx_seconds", "From a burst's receive to its transmission.",
	  offsetof(struct fwd_totals, lat_done) },
};

static void
write_gpus(struct gpudp_metrics_text *t, const struct gpu_view *v, unsigned int nv)
{
	const struct gpudp_work *w = fwd_run.conf.work;
	unsigned int g, i;

	for (i = 0; i < 2; i++) {
		static const char *const fam[2] = { "gpudp_fwd_packets_total",
						    "gpudp_fwd_bytes_total" };
		static const char *const help[2] = {
			"Packets the pipelines of each GPU received and transmitted.",
			"Bytes the pipelines of each GPU received and transmitted." };
		static const size_t rx[2] = { offsetof(struct fwd_totals, rx_pkts),
					      offsetof(struct fwd_totals, rx_bytes) };
		static const size_t tx[2] = { offsetof(struct fwd_totals, tx_pkts),
					      offsetof(struct fwd_totals, tx_bytes) };

		gpudp_metrics_family(t, fam[i], GPUDP_METRICS_COUNTER, help[i]);
		per_gpu_u64(t, fam[i], v, nv, "direction", "rx", rx[i]);
		per_gpu_u64(t, fam[i], v, nv, "direction", "tx", tx[i]);
	}
	gpudp_metrics_family(t, "gpudp_fwd_drops_total", GPUDP_METRICS_COUNTER,
			     "Packets dropped, by reason: the app's and the work's verdicts.");
	for (i = 0; i < FWD_DROP_MAX; i++)
		per_gpu_u64(t, "gpudp_fwd_drops_total", v, nv, "reason", fwd_drop_name(i),
			    offsetof(struct fwd_totals, drops) + i * sizeof(uint64_t));
	for (i = 1; i < GPUDP_WORK_VERDICT_MAX; i++)
		if (gpudp_work_verdict_name(w, i) != NULL)
			per_gpu_u64(t, "gpudp_fwd_drops_total", v, nv, "reason",
				    gpudp_work_verdict_name(w, i),
				    offsetof(struct fwd_totals, verdict_drops) +
				    i * sizeof(uint64_t));
	if (w->n_counters > 0) {
		gpudp_metrics_family(t, "gpudp_fwd_work_events_total", GPUDP_METRICS_COUNTER,
				     "The work's own counters.");
		for (i = 0; i < w->n_counters; i++)
			per_gpu_u64(t, "gpudp_fwd_work_events_total", v, nv, "counter",
				    w->counters[i], offsetof(struct fwd_totals, work_counters) +
				    i * sizeof(uint64_t));
	}
	for (i = 0; i < RTE_DIM(ring_fams); i++) {
		gpudp_metrics_family(t, ring_fams[i].name, ring_fams[i].type, ring_fams[i].help);
		per_gpu_u64(t, ring_fams[i].name, v, nv, NULL, NULL, ring_fams[i].off);
	}
	gpudp_metrics_family(t, "gpudp_fwd_pool_bytes", GPUDP_METRICS_GAUGE,
			     "Memory of each GPU's pipelines' mbuf pools: GPU memory, host memory.");
	for (g = 0; g < nv; g++) {
		gpudp_metrics_u64(t, "gpudp_fwd_pool_bytes", (const char *const[]){
			"gpu", v[g].label, "memory", "gpu", NULL }, v[g].pool_gpu);
		gpudp_metrics_u64(t, "gpudp_fwd_pool_bytes", (const char *const[]){
			"gpu", v[g].label, "memory", "host", NULL }, v[g].pool_host);
	}
	for (i = 0; i < RTE_DIM(lat_fams); i++) {
		gpudp_metrics_family(t, lat_fams[i].name, GPUDP_METRICS_HISTOGRAM, lat_fams[i].help);
		for (g = 0; g < nv; g++)
			hist_out(t, lat_fams[i].name, v[g].label, (const struct gpudp_ho_hist *)
				 ((const char *)&v[g].t + lat_fams[i].off));
	}
}

static void
write_ports(struct gpudp_metrics_text *t, unsigned int ready)
{
#define PS_OFF(f) offsetof(struct gpudp_app_port_stats, f)
	static const struct {
		const char *name, *key, *val;
		size_t off;
	} samples[] = {
		{ "gpudp_fwd_port_packets_total", "direction", "rx", PS_OFF(rx_pkts) },
		{ "gpudp_fwd_port_packets_total", "direction", "tx", PS_OFF(tx_pkts) },
		{ "gpudp_fwd_port_bytes_total", "direction", "rx", PS_OFF(rx_bytes) },
		{ "gpudp_fwd_port_bytes_total", "direction", "tx", PS_OFF(tx_bytes) },
		{ "gpudp_fwd_port_drops_total", "reason", "missed", PS_OFF(imissed) },
		{ "gpudp_fwd_port_drops_total", "reason", "errors", PS_OFF(ierrors) },
		{ "gpudp_fwd_port_drops_total", "reason", "nombuf", PS_OFF(rx_nombuf) },
		{ "gpudp_fwd_port_drops_total", "reason", "tx_errors", PS_OFF(oerrors) },
	};
#undef PS_OFF
	static const char *const help[] = {
		"Packets each port received and transmitted since it started.",
		"Bytes each port received and transmitted since it started.",
		"Packets each port dropped: missed (no free rx descriptor), errors (received "
		"with errors), nombuf (no mbuf), tx_errors (not sent)." };
	struct gpudp_app_port_stats ps[FWD_MAX_PORTS];
	unsigned int i, n = 0, f = 0;

	for (i = 0; ready > 0 && i < fwd_run.conf.nb_ports; i++)
		n += gpudp_app_port_stats_get(fwd_run.conf.ports[i], &ps[n]) == 0;
	for (i = 0; i < RTE_DIM(samples); i++) {
		/* a family's samples are together: its lines first */
		if (i == 0 || strcmp(samples[i].name, samples[i - 1].name) != 0)
			gpudp_metrics_family(t, samples[i].name, GPUDP_METRICS_COUNTER, help[f++]);
		gpudp_app_metrics_per_port(t, samples[i].name, ps, n, samples[i].key,
					   samples[i].val, samples[i].off);
	}
}

static void
collect(void *arg, struct gpudp_metrics_text *t)
{
	static struct gpu_view v[FWD_MAX_GPUS];   /* one scrape at a time */
	unsigned int n = __atomic_load_n(&fwd_run.nb_ready, __ATOMIC_ACQUIRE), nv;
	struct gpudp_regcache_stats rc;

	(void)arg;
	gpudp_metrics_family(t, "gpudp_fwd_running", GPUDP_METRICS_GAUGE,
			     "1 while the pipelines forward, 0 after the run.");
	gpudp_metrics_u64(t, "gpudp_fwd_running", NULL, (uint64_t)running);
	gpudp_metrics_family(t, "gpudp_fwd_pipelines", GPUDP_METRICS_GAUGE,
			     "Pipelines (an rx queue, a handoff, a tx queue each).");
	gpudp_metrics_u64(t, "gpudp_fwd_pipelines", NULL, n);
	nv = views_get(v, n);
	write_gpus(t, v, nv);
	write_ports(t, n);
	gpudp_mem_pin_stats(&rc);
	gpudp_metrics_family(t, "gpudp_fwd_regcache_pinned_bytes", GPUDP_METRICS_GAUGE,
			     "GPU memory the registration cache holds pinned for NIC DMA.");
	gpudp_metrics_u64(t, "gpudp_fwd_regcache_pinned_bytes", NULL, rc.bytes_pinned);
	gpudp_metrics_family(t, "gpudp_fwd_regcache_events_total", GPUDP_METRICS_COUNTER,
			     "The registration cache's hits, misses, pins, unpins, pin failures "
			     "and evictions.");
	gpudp_metrics_u64(t, "gpudp_fwd_regcache_events_total",
			  (const char *const[]){ "event", "hit", NULL }, rc.hits);
	gpudp_metrics_u64(t, "gpudp_fwd_regcache_events_total",
			  (const char *const[]){ "event", "miss", NULL }, rc.misses);
	gpudp_metrics_u64(t, "gpudp_fwd_regcache_events_total",
			  (const char *const[]){ "event", "pin", NULL }, rc.pins);
	gpudp_metrics_u64(t, "gpudp_fwd_regcache_events_total",
			  (const char *const[]){ "event", "unpin", NULL }, rc.unpins);
	gpudp_metrics_u64(t, "gpudp_fwd_regcache_events_total",
			  (const char *const[]){ "event", "pin_failure", NULL }, rc.pin_failures);
	gpudp_metrics_u64(t, "gpudp_fwd_regcache_events_total",
			  (const char *const[]){ "event", "eviction", NULL }, rc.evictions);
}

int
fwd_metrics_start(void)
{
	struct gpudp_metrics_conf mc = { .listen = fwd_run.conf.metrics, .collect = collect };
	char err[256];

	if (fwd_run.conf.metrics == NULL)
		return 0;
	running = 1;
	if (gpudp_metrics_start(&mc, &srv, err, sizeof(err)) != 0) {
		FWD_LOG(ERR, "--metrics %s: %s", fwd_run.conf.metrics, err);
		return -1;
	}
	FWD_LOG(INFO, "metrics at http://%s/metrics (port %u)", fwd_run.conf.metrics,
		gpudp_metrics_port(srv));
	return 0;
}

void
fwd_metrics_end(void)
{
	running = 0;
	gpudp_app_metrics_end(srv, fwd_run.conf.metrics_linger_s, "gpudp-fwd",
			      fwd_run.conf.quiet);
	srv = NULL;
}

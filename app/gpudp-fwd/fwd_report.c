/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpudp-fwd's reports: the telemetry commands (/gpudp/fwd/stats, /latency,
 * /config, /gpus), the periodic stats line, the final counters and --json
 * (doc/fwd.md "Output"); with several GPUs, the same per GPU
 * (doc/multi-gpu.md).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_ethdev.h>
#include <rte_telemetry.h>

#include <gpudp_dpdk_compat.h>

#include "fwd.h"
#include "gpudp_app_port_stats.h"
#include "gpudp_json.h"

/* the configuration, filled by fwd_conf_parse() before EAL */
static struct fwd_conf *const cf = &fwd_run.conf;

void
fwd_gpu_totals_get(unsigned int gpu, unsigned int n, struct fwd_totals *t)
{
	struct fwd_pipe *sel[FWD_MAX_PIPES];
	unsigned int i, k = 0;

	for (i = 0; i < n; i++)
		if (fwd_run.pipes[i]->gpu == gpu)
			sel[k++] = fwd_run.pipes[i];
	fwd_totals_get(sel, k, t);
}

/* pipelines of fwd_run.gpus[@p gpu] among the first @p n */
static unsigned int
gpu_pipes(unsigned int gpu, unsigned int n)
{
	unsigned int i, k = 0;

	for (i = 0; i < n; i++)
		k += fwd_run.pipes[i]->gpu == gpu;
	return k;
}

static uint64_t
drops_sum(const struct fwd_totals *t)
{
	uint64_t s = 0;
	unsigned int i;

	for (i = 0; i < FWD_DROP_MAX; i++)
		s += t->drops[i];
	for (i = 1; i < GPUDP_WORK_VERDICT_MAX; i++)
		s += t->verdict_drops[i];
	return s;
}

static int
tel_stats(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct fwd_totals t;
	unsigned int i;

	RTE_SET_USED(cmd);
	RTE_SET_USED(params);
	fwd_totals_get(fwd_run.pipes, __atomic_load_n(&fwd_run.nb_ready, __ATOMIC_ACQUIRE), &t);
	rte_tel_data_start_dict(d);
	gpudp_tel_dict_u64(d, "rx_pkts", t.rx_pkts);
	gpudp_tel_dict_u64(d, "rx_bytes", t.rx_bytes);
	gpudp_tel_dict_u64(d, "tx_pkts", t.tx_pkts);
	gpudp_tel_dict_u64(d, "tx_bytes", t.tx_bytes);
	for (i = 0; i < FWD_DROP_MAX; i++)
		gpudp_tel_dict_u64(d, fwd_drop_name(i), t.drops[i]);
	for (i = 1; i < GPUDP_WORK_VERDICT_MAX; i++)
		if (gpudp_work_verdict_name(cf->work, i) != NULL)
			gpudp_tel_dict_u64(d, gpudp_work_verdict_name(cf->work, i),
					   t.verdict_drops[i]);
	for (i = 0; i < cf->work->n_counters; i++)
		gpudp_tel_dict_u64(d, cf->work->counters[i], t.work_counters[i]);
	gpudp_tel_dict_u64(d, "ring_full_events", t.ring_full);
	gpudp_tel_dict_u64(d, "flushes", t.flushes);
	gpudp_tel_dict_u64(d, "ring_in_flight", t.in_flight);
	gpudp_tel_dict_u64(d, "ring_slots", t.ring_slots);
	return 0;
}

static void
tel_hist(struct rte_tel_data *d, const char *name, const struct gpudp_ho_hist *h)
{
	char k[48];

	snprintf(k, sizeof(k), "%s_count", name);
	gpudp_tel_dict_u64(d, k, h->count);
	snprintf(k, sizeof(k), "%s_p50_ns", name);
	gpudp_tel_dict_u64(d, k, gpudp_ho_hist_quantile(h, 0.50));
	snprintf(k, sizeof(k), "%s_p99_ns", name);
	gpudp_tel_dict_u64(d, k, gpudp_ho_hist_quantile(h, 0.99));
	snprintf(k, sizeof(k), "%s_p999_ns", name);
	gpudp_tel_dict_u64(d, k, gpudp_ho_hist_quantile(h, 0.999));
	snprintf(k, sizeof(k), "%s_max_ns", name);
	gpudp_tel_dict_u64(d, k, h->max_ns);
}

static int
tel_latency(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct fwd_totals t;

	RTE_SET_USED(cmd);
	RTE_SET_USED(params);
	fwd_totals_get(fwd_run.pipes, __atomic_load_n(&fwd_run.nb_ready, __ATOMIC_ACQUIRE), &t);
	rte_tel_data_start_dict(d);
	tel_hist(d, "rx_to_kernel_start", &t.lat_kstart);
	tel_hist(d, "rx_to_kernel_end", &t.lat_kend);
	tel_hist(d, "rx_to_tx", &t.lat_done);
	return 0;
}

/* /gpudp/fwd/gpus: per GPU in use, its pipelines' counters and latency
 * percentiles (their histograms merged, as /gpudp/fwd/latency merges all) */
static int
tel_gpus(const char *cmd, const char *params, struct rte_tel_data *d)
{
	unsigned int n = __atomic_load_n(&fwd_run.nb_ready, __ATOMIC_ACQUIRE), g;

	RTE_SET_USED(cmd);
	RTE_SET_USED(params);
	rte_tel_data_start_dict(d);
	for (g = 0; g < fwd_run.nb_gpus && n > 0; g++) {
		struct rte_tel_data *c = rte_tel_data_alloc();
		struct fwd_totals t;
		char k[16];

		if (c == NULL)
			break;
		fwd_gpu_totals_get(g, n, &t);
		rte_tel_data_start_dict(c);
		rte_tel_data_add_dict_string(c, "pci", fwd_run.gpus[g].pci);
		gpudp_tel_dict_u64(c, "gpudev", (uint64_t)fwd_run.gpus[g].id);
		gpudp_tel_dict_u64(c, "pipelines", gpu_pipes(g, n));
		gpudp_tel_dict_u64(c, "rx_pkts", t.rx_pkts);
		gpudp_tel_dict_u64(c, "rx_bytes", t.rx_bytes);
		gpudp_tel_dict_u64(c, "tx_pkts", t.tx_pkts);
		gpudp_tel_dict_u64(c, "tx_bytes", t.tx_bytes);
		gpudp_tel_dict_u64(c, "drops", drops_sum(&t));
		gpudp_tel_dict_u64(c, "ring_in_flight", t.in_flight);
		gpudp_tel_dict_u64(c, "ring_slots", t.ring_slots);
		tel_hist(c, "rx_to_kernel_start", &t.lat_kstart);
		tel_hist(c, "rx_to_kernel_end", &t.lat_kend);
		tel_hist(c, "rx_to_tx", &t.lat_done);
		snprintf(k, sizeof(k), "gpu%d", fwd_run.gpus[g].ordinal);
		if (rte_tel_data_add_dict_container(d, k, c, 0) != 0)
			rte_tel_data_free(c);
	}
	return 0;
}

/* /gpudp/fwd/ports: each port's counters since it started (the PMD's) */
static int
tel_ports(const char *cmd, const char *params, struct rte_tel_data *d)
{
	RTE_SET_USED(cmd);
	RTE_SET_USED(params);
	gpudp_app_port_stats_tel_ports(d, cf->ports,
				       __atomic_load_n(&fwd_run.nb_ready, __ATOMIC_ACQUIRE) > 0 ?
				       cf->nb_ports : 0);
	return 0;
}

static int
tel_config(const char *cmd, const char *params, struct rte_tel_data *d)
{
	RTE_SET_USED(cmd);
	RTE_SET_USED(params);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "mode", gpudp_ho_mode_name(cf->mode));
	rte_tel_data_add_dict_string(d, "work", cf->work->name);
	rte_tel_data_add_dict_string(d, "work_origin", gpudp_work_origin(cf->work));
	rte_tel_data_add_dict_string(d, "mem", gpudp_mem_type_name(fwd_conf_mem(cf)));
	gpudp_tel_dict_u64(d, "pipelines", __atomic_load_n(&fwd_run.nb_ready, __ATOMIC_ACQUIRE));
	gpudp_tel_dict_u64(d, "gpus", fwd_run.nb_gpus);
	gpudp_tel_dict_u64(d, "burst", cf->burst);
	gpudp_tel_dict_u64(d, "ring", cf->ring);
	gpudp_tel_dict_u64(d, "flush_us", cf->flush_us);
	return 0;
}

/* ---- stats ---- */

static void
print_hist(FILE *f, const char *name, const struct gpudp_ho_hist *h)
{
	fprintf(f, " %s p50 %.1f p99 %.1f p999 %.1f us", name,
		gpudp_ho_hist_quantile(h, 0.50) / 1e3, gpudp_ho_hist_quantile(h, 0.99) / 1e3,
		gpudp_ho_hist_quantile(h, 0.999) / 1e3);
}

static void
print_drops(FILE *f, const struct fwd_totals *t)
{
	unsigned int i;

	fprintf(f, " drops");
	for (i = 0; i < FWD_DROP_MAX; i++)
		fprintf(f, " %s=%" PRIu64, fwd_drop_name(i), t->drops[i]);
	for (i = 1; i < GPUDP_WORK_VERDICT_MAX; i++)
		if (gpudp_work_verdict_name(cf->work, i) != NULL)
			fprintf(f, " %s=%" PRIu64, gpudp_work_verdict_name(cf->work, i),
				t->verdict_drops[i]);
	if (cf->work->n_counters != 0) {
		fprintf(f, " | %s", cf->work->name);
		for (i = 0; i < cf->work->n_counters; i++)
			fprintf(f, " %s=%" PRIu64, cf->work->counters[i], t->work_counters[i]);
	}
}

/* with several GPUs: one line per GPU after the stats line */
static void
stats_line_gpus(double dt)
{
	static uint64_t prev_rx[FWD_MAX_GPUS], prev_tx[FWD_MAX_GPUS];
	struct fwd_totals t;
	unsigned int g;

	for (g = 0; g < fwd_run.nb_gpus && fwd_run.nb_gpus > 1; g++) {
		fwd_gpu_totals_get(g, fwd_run.nb_pipes, &t);
		printf("  gpu %d (%s): %u pipelines rx %.3f Mpps tx %.3f Mpps drops %" PRIu64
		       " ring %" PRIu64 "/%" PRIu64 "\n", fwd_run.gpus[g].ordinal,
		       fwd_run.gpus[g].pci, gpu_pipes(g, fwd_run.nb_pipes),
		       (t.rx_pkts - prev_rx[g]) / dt / 1e6, (t.tx_pkts - prev_tx[g]) / dt / 1e6,
		       drops_sum(&t), t.in_flight, t.ring_slots);
		prev_rx[g] = t.rx_pkts;
		prev_tx[g] = t.tx_pkts;
	}
}

/* each port's counters since it started, read once into @p ps (one per
 * port of cf->ports), so that every form of a report gives the same */
static void
ports_get(struct gpudp_app_port_stats *ps)
{
	unsigned int i;

	for (i = 0; i < cf->nb_ports; i++)
		gpudp_app_port_stats_get(cf->ports[i], &ps[i]);
}

/* the ports' counters @p ps, a line each after @p prefix */
static void
ports_print(const char *prefix, const struct gpudp_app_port_stats *ps)
{
	unsigned int i;

	for (i = 0; i < cf->nb_ports; i++)
		gpudp_app_port_stats_print(stdout, prefix, &ps[i]);
}

void
fwd_report_stats_line(struct fwd_totals *prev, double dt)
{
	struct gpudp_app_port_stats ports[FWD_MAX_PORTS];
	struct fwd_totals t;

	fwd_totals_get(fwd_run.pipes, fwd_run.nb_pipes, &t);
	printf("[%.1fs] rx %.3f Mpps %.3f Gbps tx %.3f Mpps %.3f Gbps |",
	       (gpudp_ho_now_ns() - fwd_run.run_t0) / 1e9,
	       (t.rx_pkts - prev->rx_pkts) / dt / 1e6,
	       (t.rx_bytes - prev->rx_bytes) * 8 / dt / 1e9,
	       (t.tx_pkts - prev->tx_pkts) / dt / 1e6,
	       (t.tx_bytes - prev->tx_bytes) * 8 / dt / 1e9);
	print_drops(stdout, &t);
	printf(" | ring %" PRIu64 "/%" PRIu64 " |", t.in_flight, t.ring_slots);
	print_hist(stdout, "kstart", &t.lat_kstart);
	print_hist(stdout, "kend", &t.lat_kend);
	print_hist(stdout, "tx", &t.lat_done);
	printf("\n");
	stats_line_gpus(dt);
	ports_get(ports);
	ports_print("  ", ports);
	fflush(stdout);
	*prev = t;
}

static void
json_hist(struct gpudp_json *j, const char *name, const struct gpudp_ho_hist *h)
{
	gpudp_json_obj(j, name);
	gpudp_json_u64(j, "count", h->count);
	gpudp_json_u64(j, "p50_ns", gpudp_ho_hist_quantile(h, 0.5));
	gpudp_json_u64(j, "p99_ns", gpudp_ho_hist_quantile(h, 0.99));
	gpudp_json_u64(j, "p999_ns", gpudp_ho_hist_quantile(h, 0.999));
	gpudp_json_u64(j, "max_ns", h->max_ns);
	gpudp_json_end(j);
}

/* --json: "gpus", one object per GPU in use with its pipelines' counters
 * and latency percentiles (their histograms merged, as the totals' are) */
static void
json_gpus(struct gpudp_json *j)
{
	unsigned int g, i;

	gpudp_json_arr(j, "gpus");
	for (g = 0; g < fwd_run.nb_gpus; g++) {
		struct fwd_totals t;

		fwd_gpu_totals_get(g, fwd_run.nb_pipes, &t);
		gpudp_json_obj(j, NULL);
		gpudp_json_i64(j, "gpu", fwd_run.gpus[g].ordinal);
		gpudp_json_i64(j, "gpudev", fwd_run.gpus[g].id);
		gpudp_json_str(j, "pci", fwd_run.gpus[g].pci);
		gpudp_json_arr(j, "ports");
		for (i = 0; i < cf->nb_ports; i++)
			if (fwd_run.port_gpu[i].gpu == g)
				gpudp_json_u64(j, NULL, cf->ports[i]);
		gpudp_json_end(j);
		gpudp_json_arr(j, "placement");
		for (i = 0; i < cf->nb_ports; i++)
			if (fwd_run.port_gpu[i].gpu == g)
				gpudp_json_str(j, NULL, gpudp_gpu_place_level_name(
						       fwd_run.port_gpu[i].place.level));
		gpudp_json_end(j);
		gpudp_json_u64(j, "pipelines", gpu_pipes(g, fwd_run.nb_pipes));
		gpudp_json_u64(j, "rx_pkts", t.rx_pkts);
		gpudp_json_u64(j, "rx_bytes", t.rx_bytes);
		gpudp_json_u64(j, "tx_pkts", t.tx_pkts);
		gpudp_json_u64(j, "tx_bytes", t.tx_bytes);
		gpudp_json_u64(j, "drops", drops_sum(&t));
		gpudp_json_u64(j, "ring_full_events", t.ring_full);
		gpudp_json_u64(j, "lat_rx_to_kernel_start_count", t.lat_kstart.count);
		json_hist(j, "lat_rx_to_kernel_start", &t.lat_kstart);
		json_hist(j, "lat_rx_to_kernel_end", &t.lat_kend);
		json_hist(j, "lat_rx_to_tx", &t.lat_done);
		gpudp_json_end(j);
	}
	gpudp_json_end(j);
}

/* --json: "ports", each port's counters since it started, and "port_drops",
 * the packets they lost before gpudp-fwd saw them or failed to send */
static void
json_ports(struct gpudp_json *j, const struct gpudp_app_port_stats *ps)
{
	uint64_t lost = 0;
	unsigned int i;

	gpudp_json_arr(j, "ports");
	for (i = 0; i < cf->nb_ports; i++) {
		gpudp_app_port_stats_json(j, &ps[i]);
		lost += gpudp_app_port_stats_drops(&ps[i]);
	}
	gpudp_json_end(j);
	gpudp_json_u64(j, "port_drops", lost);
}

/* --json FILE: the configuration and the final counters, the ports' @p ps.
 * @return 0 or -1 */
static int
json_report(const struct fwd_totals *t, double secs, const struct gpudp_app_port_stats *ps)
{
	struct gpudp_json j;
	unsigned int i;
	int rc;

	rc = gpudp_json_open(&j, cf->json);
	if (rc == 0) {
		gpudp_json_obj(&j, NULL);
		gpudp_json_str(&j, "mode", gpudp_ho_mode_name(cf->mode));
		gpudp_json_str(&j, "work", cf->work->name);
		gpudp_json_str(&j, "mem", gpudp_mem_type_name(fwd_conf_mem(cf)));
		gpudp_json_u64(&j, "burst", cf->burst);
		gpudp_json_u64(&j, "ring", cf->ring);
		gpudp_json_u64(&j, "pipelines", fwd_run.nb_pipes);
		gpudp_json_dbl(&j, "seconds", secs, 6);
		gpudp_json_u64(&j, "rx_pkts", t->rx_pkts);
		gpudp_json_u64(&j, "rx_bytes", t->rx_bytes);
		gpudp_json_u64(&j, "tx_pkts", t->tx_pkts);
		gpudp_json_u64(&j, "tx_bytes", t->tx_bytes);
		gpudp_json_dbl(&j, "tx_mpps", secs > 0 ? t->tx_pkts / secs / 1e6 : 0.0, 6);
		gpudp_json_dbl(&j, "tx_gbps", secs > 0 ? t->tx_bytes * 8 / secs / 1e9 : 0.0, 6);
		gpudp_json_obj(&j, "drops");
		for (i = 0; i < FWD_DROP_MAX; i++)
			gpudp_json_u64(&j, fwd_drop_name(i), t->drops[i]);
		for (i = 1; i < GPUDP_WORK_VERDICT_MAX; i++)
			if (gpudp_work_verdict_name(cf->work, i) != NULL)
				gpudp_json_u64(&j, gpudp_work_verdict_name(cf->work, i),
					       t->verdict_drops[i]);
		gpudp_json_end(&j);
		gpudp_json_obj(&j, "counters");
		for (i = 0; i < cf->work->n_counters; i++)
			gpudp_json_u64(&j, cf->work->counters[i], t->work_counters[i]);
		gpudp_json_end(&j);
		gpudp_json_u64(&j, "ring_full_events", t->ring_full);
		gpudp_json_u64(&j, "gpu_polls", t->gpu_polls);
		json_hist(&j, "lat_rx_to_kernel_start", &t->lat_kstart);
		json_hist(&j, "lat_rx_to_kernel_end", &t->lat_kend);
		json_hist(&j, "lat_rx_to_tx", &t->lat_done);
		json_gpus(&j);
		json_ports(&j, ps);
		gpudp_json_end(&j);
		rc = gpudp_json_close(&j);
	}
	if (rc != 0)
		FWD_LOG(ERR, "--json %s: %s", cf->json, strerror(-rc));
	return rc != 0 ? -1 : 0;
}

/*
 * io pipelines take rx_bytes and tx_bytes from their ports' ethdev
 * counters: say so at the end for a port whose PMD counted packets but no
 * bytes (net_null does not count bytes), so its zero bytes are not taken
 * for a fault.
 */
static void
io_bytes_note(void)
{
	struct rte_eth_stats st;
	unsigned int i;

	for (i = 0; i < fwd_run.nb_pipes; i++) {
		const struct fwd_pipe *p = fwd_run.pipes[i];
		struct rte_eth_dev_info info;

		if (!p->io || p->rx_queue != 0 || rte_eth_stats_get(p->rx_port, &st) != 0 ||
		    st.ipackets == 0 || st.ibytes != 0 ||
		    rte_eth_dev_info_get(p->rx_port, &info) != 0)
			continue;
		FWD_LOG(WARNING, "port %u (%s) counts no bytes: mode none on one lcore takes "
			"rx_bytes and tx_bytes from the ports' counters, so they are 0 here",
			p->rx_port, info.driver_name);
	}
}

/* with several GPUs: the final counters and latency percentiles of each */
static void
final_gpus(double secs)
{
	struct fwd_totals t;
	unsigned int g;

	for (g = 0; g < fwd_run.nb_gpus && fwd_run.nb_gpus > 1; g++) {
		fwd_gpu_totals_get(g, fwd_run.nb_pipes, &t);
		printf("final gpu %d (%s): %u pipelines rx %" PRIu64 " pkts %" PRIu64
		       " bytes tx %" PRIu64 " pkts %" PRIu64 " bytes (%.3f Mpps)",
		       fwd_run.gpus[g].ordinal, fwd_run.gpus[g].pci,
		       gpu_pipes(g, fwd_run.nb_pipes), t.rx_pkts, t.rx_bytes, t.tx_pkts,
		       t.tx_bytes, secs > 0 ? t.tx_pkts / secs / 1e6 : 0.0);
		print_drops(stdout, &t);
		printf("\nfinal gpu %d latency:", fwd_run.gpus[g].ordinal);
		print_hist(stdout, "rx->kernel-start", &t.lat_kstart);
		print_hist(stdout, "rx->kernel-end", &t.lat_kend);
		print_hist(stdout, "rx->tx", &t.lat_done);
		printf("\n");
	}
}

int
fwd_report_final(double secs)
{
	struct gpudp_app_port_stats ports[FWD_MAX_PORTS];
	struct fwd_totals t;
	unsigned int i;

	io_bytes_note();
	fwd_totals_get(fwd_run.pipes, fwd_run.nb_pipes, &t);
	printf("final: %.3f s rx %" PRIu64 " pkts %" PRIu64 " bytes tx %" PRIu64 " pkts %"
	       PRIu64 " bytes (%.3f Mpps, %.3f Gbps)", secs, t.rx_pkts, t.rx_bytes, t.tx_pkts,
	       t.tx_bytes, secs > 0 ? t.tx_pkts / secs / 1e6 : 0.0,
	       secs > 0 ? t.tx_bytes * 8 / secs / 1e9 : 0.0);
	print_drops(stdout, &t);
	printf(" ring_full_events=%" PRIu64 " flushes=%" PRIu64 "\nfinal latency:",
	       t.ring_full, t.flushes);
	print_hist(stdout, "rx->kernel-start", &t.lat_kstart);
	print_hist(stdout, "rx->kernel-end", &t.lat_kend);
	print_hist(stdout, "rx->tx", &t.lat_done);
	printf("\n");
	final_gpus(secs);
	/* one reading of the ports for the lines, the warnings and --json: a
	 * started port's PMD may count on (net_af_packet's kernel ring drops) */
	ports_get(ports);
	ports_print("final ", ports);
	fflush(stdout);
	for (i = 0; i < cf->nb_ports; i++)
		gpudp_app_port_stats_warn("gpudp-fwd", &ports[i]);
	return cf->json != NULL ? json_report(&t, secs, ports) : 0;
}

void
fwd_report_telemetry(void)
{
	rte_telemetry_register_cmd("/gpudp/fwd/stats", tel_stats,
				   "gpudp-fwd counters: packets, bytes, drops by reason, ring");
	rte_telemetry_register_cmd("/gpudp/fwd/latency", tel_latency,
				   "gpudp-fwd latency percentiles (ns): rx to kernel start, rx to tx");
	rte_telemetry_register_cmd("/gpudp/fwd/config", tel_config, "gpudp-fwd configuration");
	rte_telemetry_register_cmd("/gpudp/fwd/ports", tel_ports,
				   "gpudp-fwd port counters since start: packets, bytes, imissed, "
				   "ierrors, oerrors, rx_nombuf, the PMD's drop xstats");
	rte_telemetry_register_cmd("/gpudp/fwd/gpus", tel_gpus,
				   "gpudp-fwd counters and latency percentiles (ns) per GPU "
				   "in use (its ports' pipelines)");
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpudp-fwd: forward packets between DPDK ports through the CPU-to-GPU
 * handoff (lib/handoff). doc/fwd.md lists every option; doc/ordering.md
 * explains why each mode is correct.
 *
 *   gpudp-fwd [EAL options] -- [options]
 *
 * The application options are parsed before rte_eal_init() (so --help and
 * bad values need no EAL); then ports, pools and one handoff per pipeline
 * are set up, the lcores run fwd_lcore_main(), and the main lcore prints
 * stats until SIGINT/SIGTERM, --duration or --count ends the run.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_gpudev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_telemetry.h>

#include <gpudp_dpdk_compat.h>

#ifdef GPUDP_HAS_CUDA
#include <gpudp_gpu.h>
#endif

#include "fwd.h"
#include "gpudp_app.h"
#include "gpudp_app_gpu.h"
#include "gpudp_app_port.h"
#include "gpudp_json.h"

RTE_LOG_REGISTER(fwd_logtype, gpudp.fwd, INFO);

static struct fwd_conf conf;
static struct fwd_pipe *pipes[FWD_MAX_PORTS * 16 + 1];
static unsigned int nb_pipes;
/* pipelines fully set up: what the telemetry thread may read (0 outside
 * the run, so a query during setup or teardown sees no half-made one) */
static unsigned int nb_ready;
static int ports_started;
static uint64_t run_t0;

/* ---- telemetry: /gpudp/fwd/stats, /gpudp/fwd/latency, /gpudp/fwd/config ---- */

static int
tel_stats(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct fwd_totals t;
	unsigned int i;

	RTE_SET_USED(cmd);
	RTE_SET_USED(params);
	fwd_totals_get(pipes, __atomic_load_n(&nb_ready, __ATOMIC_ACQUIRE), &t);
	rte_tel_data_start_dict(d);
	gpudp_tel_dict_u64(d, "rx_pkts", t.rx_pkts);
	gpudp_tel_dict_u64(d, "rx_bytes", t.rx_bytes);
	gpudp_tel_dict_u64(d, "tx_pkts", t.tx_pkts);
	gpudp_tel_dict_u64(d, "tx_bytes", t.tx_bytes);
	for (i = 0; i < FWD_DROP_MAX; i++)
		gpudp_tel_dict_u64(d, fwd_drop_name(i), t.drops[i]);
	for (i = 1; i < GPUDP_WORK_VERDICT_MAX; i++)
		if (gpudp_work_verdict_name(conf.work, i) != NULL)
			gpudp_tel_dict_u64(d, gpudp_work_verdict_name(conf.work, i),
					   t.verdict_drops[i]);
	for (i = 0; i < conf.work->n_counters; i++)
		gpudp_tel_dict_u64(d, conf.work->counters[i], t.work_counters[i]);
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
	fwd_totals_get(pipes, __atomic_load_n(&nb_ready, __ATOMIC_ACQUIRE), &t);
	rte_tel_data_start_dict(d);
	tel_hist(d, "rx_to_kernel_start", &t.lat_kstart);
	tel_hist(d, "rx_to_kernel_end", &t.lat_kend);
	tel_hist(d, "rx_to_tx", &t.lat_done);
	return 0;
}

static int
tel_config(const char *cmd, const char *params, struct rte_tel_data *d)
{
	RTE_SET_USED(cmd);
	RTE_SET_USED(params);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "mode", gpudp_ho_mode_name(conf.mode));
	rte_tel_data_add_dict_string(d, "work", conf.work->name);
	rte_tel_data_add_dict_string(d, "work_origin", gpudp_work_origin(conf.work));
	rte_tel_data_add_dict_string(d, "mem", gpudp_mem_type_name(fwd_conf_mem(&conf)));
	gpudp_tel_dict_u64(d, "pipelines", __atomic_load_n(&nb_ready, __ATOMIC_ACQUIRE));
	gpudp_tel_dict_u64(d, "burst", conf.burst);
	gpudp_tel_dict_u64(d, "ring", conf.ring);
	gpudp_tel_dict_u64(d, "flush_us", conf.flush_us);
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
		if (gpudp_work_verdict_name(conf.work, i) != NULL)
			fprintf(f, " %s=%" PRIu64, gpudp_work_verdict_name(conf.work, i),
				t->verdict_drops[i]);
	if (conf.work->n_counters != 0) {
		fprintf(f, " | %s", conf.work->name);
		for (i = 0; i < conf.work->n_counters; i++)
			fprintf(f, " %s=%" PRIu64, conf.work->counters[i], t->work_counters[i]);
	}
}

static void
stats_line(struct fwd_totals *prev, double dt)
{
	struct fwd_totals t;

	fwd_totals_get(pipes, nb_pipes, &t);
	printf("[%.1fs] rx %.3f Mpps %.3f Gbps tx %.3f Mpps %.3f Gbps |",
	       (gpudp_ho_now_ns() - run_t0) / 1e9,
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

/* --json FILE: the configuration and the final counters. @return 0 or -1 */
static int
json_report(const struct fwd_totals *t, double secs)
{
	struct gpudp_json j;
	unsigned int i;
	int rc;

	rc = gpudp_json_open(&j, conf.json);
	if (rc == 0) {
		gpudp_json_obj(&j, NULL);
		gpudp_json_str(&j, "mode", gpudp_ho_mode_name(conf.mode));
		gpudp_json_str(&j, "work", conf.work->name);
		gpudp_json_str(&j, "mem", gpudp_mem_type_name(fwd_conf_mem(&conf)));
		gpudp_json_u64(&j, "burst", conf.burst);
		gpudp_json_u64(&j, "ring", conf.ring);
		gpudp_json_u64(&j, "pipelines", nb_pipes);
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
			if (gpudp_work_verdict_name(conf.work, i) != NULL)
				gpudp_json_u64(&j, gpudp_work_verdict_name(conf.work, i),
					       t->verdict_drops[i]);
		gpudp_json_end(&j);
		gpudp_json_obj(&j, "counters");
		for (i = 0; i < conf.work->n_counters; i++)
			gpudp_json_u64(&j, conf.work->counters[i], t->work_counters[i]);
		gpudp_json_end(&j);
		gpudp_json_u64(&j, "ring_full_events", t->ring_full);
		json_hist(&j, "lat_rx_to_kernel_start", &t->lat_kstart);
		json_hist(&j, "lat_rx_to_kernel_end", &t->lat_kend);
		json_hist(&j, "lat_rx_to_tx", &t->lat_done);
		gpudp_json_end(&j);
		rc = gpudp_json_close(&j);
	}
	if (rc != 0)
		FWD_LOG(ERR, "--json %s: %s", conf.json, strerror(-rc));
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

	for (i = 0; i < nb_pipes; i++) {
		const struct fwd_pipe *p = pipes[i];
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

static int
final_report(double secs)
{
	struct fwd_totals t;

	fwd_totals_get(pipes, nb_pipes, &t);
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
	fflush(stdout);
	return conf.json != NULL ? json_report(&t, secs) : 0;
}

/* ---- setup ---- */

static int
port_setup(uint16_t port, struct gpudp_pool *const *pools)
{
	struct gpudp_app_port_conf pc = {
		.nb_rxq = conf.queues, .nb_txq = conf.queues,
		.nb_rxd = conf.rxd, .nb_txd = conf.txd,
		.rss = 1, .pools = pools,
	};
	char err[256];
	int ret = gpudp_app_port_setup(port, &pc, err, sizeof(err));

	if (ret != 0)
		fprintf(stderr, "gpudp-fwd: %s\n", err);
	return ret;
}

static uint16_t
peer_port(unsigned int i)
{
	if (conf.pairing == FWD_PAIR_SAME)
		return conf.ports[i];
	if ((i ^ 1) < conf.nb_ports)
		return conf.ports[i ^ 1];
	return conf.ports[i];
}

static int
ports_check(void)
{
	uint16_t i, p;

	if (conf.nb_ports == 0) {
		RTE_ETH_FOREACH_DEV(p) {
			if (conf.nb_ports < FWD_MAX_PORTS)
				conf.ports[conf.nb_ports++] = p;
		}
		if (conf.nb_ports == 0) {
			fprintf(stderr, "gpudp-fwd: no ports: give EAL a device or a --vdev\n");
			return -1;
		}
		return 0;
	}
	for (i = 0; i < conf.nb_ports; i++)
		if (!rte_eth_dev_is_valid_port(conf.ports[i])) {
			fprintf(stderr, "gpudp-fwd: --ports: bad value '%u' (no such port; "
				"%u ports available)\n", conf.ports[i], rte_eth_dev_count_avail());
			return -1;
		}
	return 0;
}

/* the gpudev device of --gpu (a CUDA ordinal), -1 until gpu_context() found it */
static int16_t gpu_id = -1;

/* the GPU's CUDA context, so the handoff runs where the pools live */
static int
gpu_context(uint64_t *ctx, char *pci, size_t len)
{
#ifndef GPUDP_HAS_CUDA
	RTE_SET_USED(ctx);
	RTE_SET_USED(pci);
	RTE_SET_USED(len);
	fprintf(stderr, "gpudp-fwd: --gpu %d: this gpudp-fwd was built without GPU support "
		"(no CUDA toolkit at build time)\n", conf.gpu);
	return -ENODEV;
#else
	struct gpudp_gpu_props props;
	char why[256];
	int16_t id = gpudp_app_gpu_find((unsigned int)conf.gpu, why, sizeof(why));

	if (id < 0 || gpudp_gpu_props_get(id, &props) != 0) {
		fprintf(stderr, "gpudp-fwd: --gpu %d: no such GPU: %s\n", conf.gpu,
			id < 0 ? why : "not a GPU of gpudp's gpudev driver");
		return -ENODEV;
	}
	gpu_id = id;
	*ctx = props.context;
	snprintf(pci, len, "%s", props.pci_addr);
	FWD_LOG(INFO, "GPU %d (gpudev device %d): %s at %s, GPUDirect RDMA writes ordering %d",
		conf.gpu, id, props.product, props.pci_addr, props.gdr_writes_ordering);
	return 0;
#endif
}

static void
check_report(enum gpudp_check_level lvl, const char *check, const char *msg, void *arg)
{
	RTE_SET_USED(arg);
	printf("%-5s %-6s %s\n", gpudp_check_level_name(lvl), check, msg);
}

static int
run_check(void)
{
	char pci[32] = "";
	uint64_t ctx;
	size_t bytes = (size_t)conf.ring * conf.burst * conf.data_room * conf.nb_ports *
		conf.queues;
	int fails;

	if (gpu_context(&ctx, pci, sizeof(pci)) != 0)
		printf("FAIL  gpu    no usable GPU (--gpu %d)\n", conf.gpu);
	fails = gpudp_mem_check(pci[0] != '\0' ? pci : NULL, conf.ports, conf.nb_ports,
				bytes, conf.pin, check_report, NULL);
	printf("%d failed checks\n", fails + (pci[0] == '\0'));
	return fails == 0 && pci[0] != '\0' ? 0 : 1;
}

/*
 * Latency histograms time one burst in lat_sample(burst): the largest power
 * of two that keeps at least one timed burst per FWD_LAT_SAMPLE_PKTS packets
 * (1 from burst 512 up). A clock read costs as much as forwarding tens of
 * packets; counters stay exact.
 */
#define FWD_LAT_SAMPLE_PKTS 512u
/* the main lcore measures the GPU clock again this often (gpudp_handoff_clock_sync) */
#define FWD_CLOCK_SYNC_NS 100000000ull
static uint32_t
lat_sample(uint32_t burst)
{
	uint32_t s = 1;

	while ((uint64_t)s * 2 * burst <= FWD_LAT_SAMPLE_PKTS)
		s *= 2;
	return s;
}

/*
 * io pipeline @p p (mode none, one lcore): whether its rx queue may deliver
 * chained frames, so that the io loop must look for cut ones (pmd_cut). It
 * may not when the set-up guarantees single-segment frames: a pool that is
 * not split; no SCATTER, TCP_LRO or BUFFER_SPLIT offload on the port or the
 * queue (gpudp-fwd asks for none), nor a queue the PMD scatters, where it
 * describes its queues (rte_eth_rx_queue_info_get()'s scattered_rx); and
 * an mbuf data room that holds the largest frame the port accepts: its MTU
 * plus the PMD's L2 overhead (ethdev's max_rx_pktlen - max_mtu, else
 * header and CRC) plus two VLAN tags. That needs a PMD that states an MTU
 * limit (max_mtu): one that states none (net_pcap, net_ring) may pass
 * frames of any length, and net_pcap chains those above the data room.
 * net_null states none either, but makes one mbuf per frame whatever its
 * length. @return 1 if chained frames may come
 */
static int
io_may_chain(const struct fwd_pipe *p)
{
	const uint64_t chain_offloads = RTE_ETH_RX_OFFLOAD_SCATTER |
		RTE_ETH_RX_OFFLOAD_TCP_LRO | RTE_ETH_RX_OFFLOAD_BUFFER_SPLIT;
	struct rte_mempool *mp = gpudp_pool_mempool(p->pool);
	struct rte_eth_dev_info info;
	struct rte_eth_rxq_info q;
	struct rte_eth_conf dc;
	uint32_t room, frame, overhead;
	uint16_t mtu;
	int ret;

	if (fwd_conf_mem(&conf) == GPUDP_MEM_SPLIT || mp == NULL ||
	    rte_eth_dev_info_get(p->rx_port, &info) != 0 ||
	    rte_eth_dev_conf_get(p->rx_port, &dc) != 0 ||
	    (dc.rxmode.offloads & chain_offloads) != 0 ||
	    rte_eth_dev_get_mtu(p->rx_port, &mtu) != 0)
		return 1;
	ret = rte_eth_rx_queue_info_get(p->rx_port, p->rx_queue, &q);
	if (ret == 0 ? q.scattered_rx || (q.conf.offloads & chain_offloads) != 0 :
	    ret != -ENOTSUP)
		return 1;
	if (info.driver_name != NULL && strcmp(info.driver_name, "net_null") == 0)
		return 0;
	if (info.max_mtu == UINT16_MAX)
		return 1;   /* no MTU: frames of any length */
	overhead = info.max_rx_pktlen > info.max_mtu ? info.max_rx_pktlen - info.max_mtu :
		RTE_ETHER_HDR_LEN + RTE_ETHER_CRC_LEN;
	frame = mtu + overhead + 2 * RTE_VLAN_HLEN;
	room = rte_pktmbuf_data_room_size(mp) - RTE_PKTMBUF_HEADROOM;
	return frame > room;
}

static int
pipes_create(uint64_t cu_ctx)
{
	struct gpudp_pool *pools[FWD_MAX_PORTS][16];
	unsigned int i, q, lc, need, nlc = 0, lcores[RTE_MAX_LCORE];
	enum gpudp_mem_type mem = fwd_conf_mem(&conf);
	int ret;

	RTE_LCORE_FOREACH_WORKER(lc)
		lcores[nlc++] = lc;
	need = conf.nb_ports * conf.queues * conf.pipeline_lcores;
	if (nlc < need) {
		fprintf(stderr, "gpudp-fwd: %u pipelines x --pipeline-lcores %u need %u worker "
			"lcores, EAL gave %u (use -l with %u lcores)\n",
			conf.nb_ports * conf.queues, conf.pipeline_lcores, need, nlc, need + 1);
		return -EINVAL;
	}
	for (i = 0; i < conf.nb_ports; i++)
		for (q = 0; q < conf.queues; q++) {
			/* whole cache lines: two lcores' pipelines never share one */
			struct fwd_pipe *p = aligned_alloc(64, RTE_ALIGN_CEIL(sizeof(*p), 64));
			struct gpudp_handoff_conf hc;
			struct gpudp_pool_conf pc;
			uint16_t ports[2];
			char name[RTE_MEMPOOL_NAMESIZE];

			if (p == NULL)
				return -ENOMEM;
			memset(p, 0, sizeof(*p));
			pipes[nb_pipes] = p;
			p->id = nb_pipes;
			p->conf = &conf;
			p->rx_port = conf.ports[i];
			p->rx_queue = q;
			p->tx_port = peer_port(i);
			p->tx_queue = q;
			p->rx_lcore = lcores[nb_pipes * conf.pipeline_lcores];
			p->tx_lcore = lcores[nb_pipes * conf.pipeline_lcores +
					     conf.pipeline_lcores - 1];
			p->flush_tsc = (uint64_t)((double)conf.flush_us * rte_get_tsc_hz() / 1e6);
			if (conf.flush_us > 0 && p->flush_tsc == 0)
				p->flush_tsc = 1;
			nb_pipes++;
			ports[0] = p->rx_port;
			ports[1] = p->tx_port;
			snprintf(name, sizeof(name), "fwd_p%u_q%u", p->rx_port, q);
			memset(&pc, 0, sizeof(pc));
			pc.name = name;
			pc.type = mem;
			pc.gpu_id = gpu_id >= 0 ? gpu_id : conf.gpu;
			pc.ports = ports;
			pc.nb_ports = p->tx_port == p->rx_port ? 1 : 2;
			pc.nb_mbufs = conf.mbufs != 0 ? conf.mbufs :
				conf.ring * conf.burst + conf.rxd + conf.txd * 2 + 2048;
			pc.data_room = conf.data_room;
			/* GPU modes keep many mbufs in flight: with the largest
			 * per-lcore cache rx allocates the mbufs tx just freed
			 * (warm headers) instead of cycling the pool's ring
			 * (doc/fwd.md "Benchmarks": +20 to +35% in persistent) */
			pc.cache_size = gpudp_ho_mode_is_gpu(conf.mode) ?
				RTE_MEMPOOL_CACHE_MAX_SIZE : 256;
			pc.socket_id = rte_eth_dev_socket_id(p->rx_port);
			pc.pin = conf.pin;
			p->pool = gpudp_pool_create(&pc);
			if (p->pool == NULL) {
				fprintf(stderr, "gpudp-fwd: pool for port %u queue %u (%s memory): "
					"%s\n", p->rx_port, q, gpudp_mem_type_name(mem),
					strerror(rte_errno));
				return -rte_errno;
			}
			pools[i][q] = p->pool;
			memset(&hc, 0, sizeof(hc));
			hc.name = name;
			hc.mode = conf.mode;
			hc.work = conf.work;
			hc.work_arg = conf.work_arg;
			/* split pools: the work sees header and payload segments */
			hc.segs = mem == GPUDP_MEM_SPLIT && gpudp_ho_mode_is_gpu(conf.mode) ?
				GPUDP_WORK_SEGS_MAX : 1;
			hc.ring_size = conf.ring;
			hc.burst_max = conf.burst;
			hc.threads = conf.threads;
			hc.graph_batch = conf.graph_batch;
			hc.persistent_blocks = conf.persistent_blocks;
			hc.poll_ns = conf.poll_ns;
			hc.stage_bytes = conf.data_room;
			/* pinned mbufs: the GPU itself copies them in and out */
			hc.stage_gpu_copy = mem == GPUDP_MEM_PINNED;
			hc.cu_ctx = cu_ctx;
			hc.lat_sample = lat_sample(conf.burst);
			p->ho = gpudp_handoff_create(&hc);
			if (p->ho == NULL) {
				fprintf(stderr, "gpudp-fwd: handoff for port %u queue %u (mode %s): %s\n",
					p->rx_port, q, gpudp_ho_mode_name(conf.mode),
					strerror(rte_errno));
				return -rte_errno;
			}
			p->desc = gpudp_handoff_needs_desc(p->ho);
			p->span = conf.work->span != 0 ? conf.work->span : UINT32_MAX;
			p->segs = hc.segs;
			p->whole = gpudp_handoff_needs_whole_frames(p->ho);
			/* no work and one lcore: forward without the handoff */
			p->io = conf.mode == GPUDP_HO_NONE && p->rx_lcore == p->tx_lcore;
			p->io_rx_burst = (uint16_t)conf.rx_burst;
		}
	for (i = 0; i < conf.nb_ports; i++) {
		ret = port_setup(conf.ports[i], pools[i]);
		if (ret != 0)
			return ret;
	}
	/* resident kernels last: they would block the CUDA calls above */
	for (i = 0; i < nb_pipes; i++) {
		ret = gpudp_handoff_start(pipes[i]->ho);
		if (ret != 0) {
			fprintf(stderr, "gpudp-fwd: pipeline %u: starting mode %s failed\n", i,
				gpudp_ho_mode_name(conf.mode));
			return ret;
		}
	}
	for (i = 0; i < conf.nb_ports; i++) {
		char err[256];

		ret = gpudp_app_port_start(conf.ports[i], err, sizeof(err));
		ports_started = 1;
		if (ret != 0) {
			fprintf(stderr, "gpudp-fwd: %s\n", err);
			return ret;
		}
	}
	for (i = 0; i < conf.nb_ports; i++)
		if (!gpudp_app_link_wait(conf.ports[i], FWD_LINK_WAIT_S, &fwd_quit))
			FWD_LOG(WARNING, "port %u (%s): link still down after %d s; forwarding "
				"anyway", conf.ports[i], gpudp_app_port_driver(conf.ports[i]),
				FWD_LINK_WAIT_S);
	/* io pipelines: after the start, when PMDs have set up their queues */
	for (i = 0; i < nb_pipes; i++)
		if (pipes[i]->io) {
			pipes[i]->io_chained = io_may_chain(pipes[i]);
			fwd_io_start(pipes[i]);
			FWD_LOG(INFO, "pipeline %u: io forwarding (mode none on one lcore, no "
				"handoff), chained frames %s", i, pipes[i]->io_chained ?
				"checked (the port may deliver them)" : "not checked (none come)");
		}
	return 0;
}

/* reverse of setup: every resident kernel stops before any GPU memory is
 * freed (freeing synchronises the device), ports before pools */
static void
teardown(void)
{
	unsigned int i;

	__atomic_store_n(&nb_ready, 0, __ATOMIC_RELEASE);
	usleep(10000); /* a telemetry query already running finishes */
	for (i = 0; i < nb_pipes; i++)
		gpudp_handoff_stop(pipes[i]->ho);
	for (i = 0; i < conf.nb_ports; i++) {
		if (ports_started)
			rte_eth_dev_stop(conf.ports[i]);
		rte_eth_dev_close(conf.ports[i]);
	}
	for (i = 0; i < nb_pipes; i++) {
		gpudp_handoff_destroy(pipes[i]->ho);
		pipes[i]->ho = NULL;
	}
	for (i = 0; i < nb_pipes; i++) {
		if (pipes[i]->pool != NULL && gpudp_pool_destroy(pipes[i]->pool) != 0)
			FWD_LOG(WARNING, "pipeline %u: pool still has mbufs out", i);
		free(pipes[i]);
		pipes[i] = NULL;
	}
	nb_pipes = 0;
}

int
main(int argc, char **argv)
{
	struct fwd_totals prev;
	uint64_t cu_ctx = 0, next, next_clk;
	struct gpudp_app_args args;
	char pci[32];
	int ret, rc = 0;
	double secs;

	/* application options first: --help and bad values need no EAL */
	if (gpudp_app_help_requested(argc, argv)) {
		fwd_conf_usage(stdout, "gpudp-fwd");
		return GPUDP_EXIT_OK;
	}
	if (gpudp_app_args_split(argc, argv, &args) != 0)
		return GPUDP_EXIT_FAILURE;
	ret = fwd_conf_parse(&conf, args.app_argc, args.app_argv);
	gpudp_app_args_free(&args); /* the conf points into argv's strings */
	if (ret != 0)
		return ret > 0 ? GPUDP_EXIT_OK : GPUDP_EXIT_USAGE;
	ret = gpudp_app_eal_init("gpudp-fwd", args.eal_argc, argv);
	if (ret != 0)
		return ret;
	if (ports_check() != 0) {
		gpudp_app_eal_cleanup();
		return GPUDP_EXIT_USAGE;
	}
	if (conf.check) {
		rc = run_check();
		gpudp_app_eal_cleanup();
		return rc;
	}
	if (gpudp_ho_mode_is_gpu(conf.mode) || fwd_conf_mem(&conf) != GPUDP_MEM_HOST) {
		if (gpu_context(&cu_ctx, pci, sizeof(pci)) != 0) {
			gpudp_app_eal_cleanup();
			return GPUDP_EXIT_NO_GPU;
		}
	}
	gpudp_app_signals(&fwd_quit);
	rte_telemetry_register_cmd("/gpudp/fwd/stats", tel_stats,
				   "gpudp-fwd counters: packets, bytes, drops by reason, ring");
	rte_telemetry_register_cmd("/gpudp/fwd/latency", tel_latency,
				   "gpudp-fwd latency percentiles (ns): rx to kernel start, rx to tx");
	rte_telemetry_register_cmd("/gpudp/fwd/config", tel_config, "gpudp-fwd configuration");

	ret = pipes_create(cu_ctx);
	if (ret != 0) {
		fwd_quit = 1;
		teardown();
		gpudp_app_eal_cleanup();
		return ret == -EINVAL ? GPUDP_EXIT_USAGE : GPUDP_EXIT_FAILURE;
	}
	FWD_LOG(INFO, "%u pipelines, mode %s, work %s (%s), %s memory, burst %u, ring %u",
		nb_pipes, gpudp_ho_mode_name(conf.mode), conf.work->name,
		gpudp_work_origin(conf.work),
		gpudp_mem_type_name(fwd_conf_mem(&conf)), conf.burst, conf.ring);
	pipes[nb_pipes] = NULL;
	__atomic_store_n(&nb_ready, nb_pipes, __ATOMIC_RELEASE);
	run_t0 = gpudp_ho_now_ns();
	rte_eal_mp_remote_launch(fwd_lcore_main, pipes, SKIP_MAIN);

	memset(&prev, 0, sizeof(prev));
	next = run_t0 + (uint64_t)(conf.stats_period * 1e9);
	next_clk = run_t0 + FWD_CLOCK_SYNC_NS;
	while (!fwd_quit) {
		uint64_t now = gpudp_ho_now_ns();

		usleep(1000);
		if (conf.duration > 0 && now - run_t0 >= (uint64_t)(conf.duration * 1e9))
			fwd_quit = 1;
		if (conf.count > 0) {
			uint64_t rx = 0;
			unsigned int i;

			for (i = 0; i < nb_pipes; i++)
				rx += pipes[i]->rx_pkts;
			if (rx >= conf.count)
				fwd_quit = 1;
		}
		if (now >= next_clk) {
			/* latency histograms: the GPU clock drifts from the CPU's;
			 * every pipeline is on the one GPU: one measure, shared */
			unsigned int i;

			if (nb_pipes > 0 && gpudp_handoff_clock_sync(pipes[0]->ho) == 0)
				for (i = 1; i < nb_pipes; i++)
					if (gpudp_handoff_clock_share(pipes[i]->ho,
								      pipes[0]->ho) != 0)
						gpudp_handoff_clock_sync(pipes[i]->ho);
			next_clk = now + FWD_CLOCK_SYNC_NS;
		}
		if (!conf.quiet && conf.stats_period > 0 && now >= next) {
			stats_line(&prev, conf.stats_period);
			next += (uint64_t)(conf.stats_period * 1e9);
		}
	}
	rte_eal_mp_wait_lcore();
	secs = (gpudp_ho_now_ns() - run_t0) / 1e9;
	io_bytes_note();
	if (final_report(secs) != 0)
		rc = GPUDP_EXIT_FAILURE;
	{
		struct fwd_totals t;

		fwd_totals_get(pipes, nb_pipes, &t);
		if (t.tx_pkts < conf.min_forwarded) {
			fprintf(stderr, "gpudp-fwd: --min-forwarded %" PRIu64 ": only %" PRIu64
				" packets transmitted\n", conf.min_forwarded, t.tx_pkts);
			rc = GPUDP_EXIT_FAILURE;
		}
		if (t.verdict_drops[GPUDP_FWD_DROP_ERROR] != 0 || t.drops[FWD_DROP_SHUTDOWN] != 0) {
			fprintf(stderr, "gpudp-fwd: %" PRIu64 " packets lost to submission errors "
				"or a GPU fault, %" PRIu64 " to a stuck drain\n",
				t.verdict_drops[GPUDP_FWD_DROP_ERROR],
				t.drops[FWD_DROP_SHUTDOWN]);
			rc = GPUDP_EXIT_FAILURE;
		}
	}
	teardown();
	gpudp_app_eal_cleanup();
	return rc;
}

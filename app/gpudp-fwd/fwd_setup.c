/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpudp-fwd's set-up and teardown: the ports, one pool, one handoff and
 * one port queue pair per pipeline, on the GPU of the pipeline's port
 * (fwd_gpu.c), and the reverse (doc/fwd.md).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#ifdef GPUDP_HAS_CUDA
#include <gpudp_gpu.h>
#endif

#include "fwd.h"
#include "fwd_room.h"
#include "gpudp_app_port.h"

/* the configuration, filled by fwd_conf_parse() before EAL */
static struct fwd_conf *const cf = &fwd_run.conf;

/* port index i's frames are longer than --data-room: SCATTER asked for */
static uint8_t port_scatter[FWD_MAX_PORTS];

/*
 * Before any pool: each port against --data-room (fwd_room_check()): a
 * port that cannot take such mbufs is refused with the reason (-EINVAL,
 * printed: a usage error); one whose frames need several mbufs gets the
 * SCATTER rx offload. @return 0 or -EINVAL
 */
static int
ports_room(void)
{
	unsigned int i;

	for (i = 0; i < cf->nb_ports; i++) {
		struct rte_eth_dev_info info;
		uint16_t port = cf->ports[i], mtu = RTE_ETHER_MTU;
		uint32_t frame = 0;
		char err[256];
		int ret;

		if (rte_eth_dev_info_get(port, &info) != 0)
			continue; /* port_setup() says why */
		rte_eth_dev_get_mtu(port, &mtu);
		ret = fwd_room_check(&info, port, mtu, cf->data_room, &frame, err, sizeof(err));
		if (ret < 0) {
			fprintf(stderr, "gpudp-fwd: %s\n", err);
			return ret;
		}
		port_scatter[i] = ret == FWD_ROOM_SCATTER;
		if (port_scatter[i])
			FWD_LOG(INFO, "port %u (%s): frames of up to %u bytes, --data-room %u: "
				"longer ones arrive over several mbufs (SCATTER rx offload)", port,
				info.driver_name, frame, cf->data_room);
	}
	return 0;
}

/* port index @p i with its queues on @p pools. @return 0 or a negative errno (printed) */
static int
port_setup(unsigned int i, struct gpudp_pool *const *pools)
{
	struct gpudp_app_port_conf pc = {
		.nb_rxq = cf->queues, .nb_txq = cf->queues,
		.nb_rxd = cf->rxd, .nb_txd = cf->txd,
		.rx_offloads = port_scatter[i] ? RTE_ETH_RX_OFFLOAD_SCATTER : 0,
		.rss = 1, .pools = pools,
	};
	uint16_t port = cf->ports[i];
	char err[256];
	int ret = gpudp_app_port_setup(port, &pc, err, sizeof(err));

	if (ret == 0)
		return 0;
	fprintf(stderr, "gpudp-fwd: %s\n", err);
	/* a PMD that copies each frame into one mbuf and needs more room
	 * than it has refuses its rx queue with ENOMEM, without saying so in
	 * its description (net_af_packet: its frame size less 32 bytes) */
	if (ret == -ENOMEM && strstr(err, " rx queue ") != NULL)
		fprintf(stderr, "gpudp-fwd: port %u (%s) may want more bytes of data per mbuf "
			"than --data-room %u (net_af_packet: its framesz less 32, 2016 by "
			"default; its log line above says how many): raise --data-room\n", port,
			gpudp_app_port_driver(port), cf->data_room);
	return ret;
}

static uint16_t
peer_port(unsigned int i)
{
	if (cf->pairing == FWD_PAIR_SAME)
		return cf->ports[i];
	if ((i ^ 1) < cf->nb_ports)
		return cf->ports[i ^ 1];
	return cf->ports[i];
}

int
fwd_ports_check(void)
{
	uint16_t i, p;

	if (cf->nb_ports == 0) {
		RTE_ETH_FOREACH_DEV(p) {
			if (cf->nb_ports < FWD_MAX_PORTS)
				cf->ports[cf->nb_ports++] = p;
		}
		if (cf->nb_ports == 0) {
			fprintf(stderr, "gpudp-fwd: no ports: give EAL a device or a --vdev\n");
			return -1;
		}
		return 0;
	}
	for (i = 0; i < cf->nb_ports; i++)
		if (!rte_eth_dev_is_valid_port(cf->ports[i])) {
			fprintf(stderr, "gpudp-fwd: --ports: bad value '%u' (no such port; "
				"%u ports available)\n", cf->ports[i], rte_eth_dev_count_avail());
			return -1;
		}
	return 0;
}


/*
 * Latency histograms time one burst in lat_sample(burst): the largest power
 * of two that keeps at least one timed burst per FWD_LAT_SAMPLE_PKTS packets
 * (1 from burst 512 up). A clock read costs as much as forwarding tens of
 * packets; counters stay exact.
 */
#define FWD_LAT_SAMPLE_PKTS 512u
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

	if (fwd_conf_mem(cf) == GPUDP_MEM_SPLIT || mp == NULL ||
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

/* a new pipeline: port index @p i's queue @p q, on lcores @p lcores */
static struct fwd_pipe *
pipe_new(unsigned int i, uint16_t q, const unsigned int *lcores)
{
	/* whole cache lines: two lcores' pipelines never share one */
	struct fwd_pipe *p = aligned_alloc(64, RTE_ALIGN_CEIL(sizeof(*p), 64));
	unsigned int n = fwd_run.nb_pipes;

	if (p == NULL)
		return NULL;
	memset(p, 0, sizeof(*p));
	fwd_run.pipes[n] = p;
	fwd_run.nb_pipes++;
	p->id = n;
	p->conf = cf;
	p->gpu = fwd_run.nb_gpus > 0 ? fwd_run.port_gpu[i].gpu : FWD_NO_GPU;
	p->rx_port = cf->ports[i];
	p->rx_queue = q;
	p->tx_port = peer_port(i);
	p->tx_queue = q;
	p->rx_lcore = lcores[n * cf->pipeline_lcores];
	p->tx_lcore = lcores[n * cf->pipeline_lcores + cf->pipeline_lcores - 1];
	p->flush_tsc = (uint64_t)((double)cf->flush_us * rte_get_tsc_hz() / 1e6);
	if (cf->flush_us > 0 && p->flush_tsc == 0)
		p->flush_tsc = 1;
	/* no work and one lcore: forward without the handoff */
	p->io = cf->mode == GPUDP_HO_NONE && p->rx_lcore == p->tx_lcore;
	p->io_rx_burst = (uint16_t)cf->rx_burst;
	return p;
}

/*
 * Whether pipeline @p p's rx port can fill a pool of @p mem: a software PMD
 * (net_pcap, net_tap, ...) writes every packet with the CPU, which cannot
 * write into a discrete GPU's memory (an integrated GPU's pools are host
 * memory). @return 0, or -EINVAL (printed)
 */
static int
pool_reachable(const struct fwd_pipe *p, enum gpudp_mem_type mem, int16_t gpu_id)
{
	char why[160];

	if (mem != GPUDP_MEM_DEVICE && mem != GPUDP_MEM_SPLIT)
		return 0;
#ifdef GPUDP_HAS_CUDA
	{
		struct gpudp_gpu_props pr;

		if (gpudp_gpu_props_get(gpu_id, &pr) == 0 && pr.integrated)
			return 0;
	}
#else
	RTE_SET_USED(gpu_id);
#endif
	if (gpudp_mem_port_rx(p->rx_port, why, sizeof(why)) != GPUDP_PORT_RX_CPU)
		return 0;
	fprintf(stderr, "gpudp-fwd: --mem %s%s: port %u %s, and the CPU cannot write into the "
		"GPU's memory: use --mem pinned (host mbufs the GPU reads) or host\n",
		gpudp_mem_type_name(mem), cf->mem == FWD_MEM_AUTO ? " (the default of the mode)" :
		"", p->rx_port, why);
	return -EINVAL;
}

/* pipeline @p p's mbuf pool, on its GPU. @return 0 or a negative errno (printed) */
static int
pipe_pool(struct fwd_pipe *p)
{
	enum gpudp_mem_type mem = fwd_conf_mem(cf);
	struct gpudp_pool_conf pc;
	uint16_t ports[2] = { p->rx_port, p->tx_port };
	char name[RTE_MEMPOOL_NAMESIZE];
	int rc;

	snprintf(name, sizeof(name), "fwd_p%u_q%u", p->rx_port, p->rx_queue);
	memset(&pc, 0, sizeof(pc));
	pc.name = name;
	pc.type = mem;
	pc.gpu_id = p->gpu != FWD_NO_GPU ? fwd_run.gpus[p->gpu].id : cf->gpu;
	rc = pool_reachable(p, mem, pc.gpu_id);
	if (rc != 0)
		return rc;
	pc.ports = ports;
	pc.nb_ports = p->tx_port == p->rx_port ? 1 : 2;
	pc.nb_mbufs = (uint32_t)fwd_conf_mbufs(cf);
	/* --data-room is the packet data; the buffer holds the headroom too */
	pc.data_room = (uint16_t)(cf->data_room + RTE_PKTMBUF_HEADROOM);
	/* GPU modes keep many mbufs in flight: with the largest per-lcore
	 * cache rx allocates the mbufs tx just freed (warm headers) instead of
	 * cycling the pool's ring (doc/benchmarks.md, fwd_vs_testpmd) */
	pc.cache_size = gpudp_ho_mode_is_gpu(cf->mode) ? RTE_MEMPOOL_CACHE_MAX_SIZE : 256;
	pc.socket_id = rte_eth_dev_socket_id(p->rx_port);
	pc.pin = cf->pin;
	p->pool = gpudp_pool_create(&pc);
	if (p->pool == NULL) {
		int err = rte_errno;

		fprintf(stderr, "gpudp-fwd: pool for port %u queue %u (%s memory): %s (%u mbufs "
			"of %u bytes of data, about %.1f MB%s): fewer --mbufs, a smaller "
			"--data-room, or more memory for EAL (-m, hugepages)\n", p->rx_port,
			p->rx_queue, gpudp_mem_type_name(mem), strerror(err), pc.nb_mbufs,
			cf->data_room, (double)pc.nb_mbufs * (64 + 128 +
			RTE_ALIGN_CEIL(pc.data_room, 64u)) / 1e6, cf->mbufs != 0 ? "" :
			"; the default --mbufs is ring * burst + rxd + 2 * txd + 2048");
		return -err;
	}
	return 0;
}

/* pipeline @p p's handoff, in its GPU's context. @return 0 or a negative errno (printed) */
static int
pipe_handoff(struct fwd_pipe *p)
{
	enum gpudp_mem_type mem = fwd_conf_mem(cf);
	struct gpudp_handoff_conf hc;
	char name[RTE_MEMPOOL_NAMESIZE];

	snprintf(name, sizeof(name), "fwd_p%u_q%u", p->rx_port, p->rx_queue);
	memset(&hc, 0, sizeof(hc));
	hc.name = name;
	hc.mode = cf->mode;
	hc.work = cf->work;
	hc.work_arg = cf->work_arg;
	/* split pools: the work sees header and payload segments */
	hc.segs = mem == GPUDP_MEM_SPLIT && gpudp_ho_mode_is_gpu(cf->mode) ?
		GPUDP_WORK_SEGS_MAX : 1;
	hc.ring_size = cf->ring;
	hc.burst_max = cf->burst;
	hc.threads = cf->threads;
	hc.graph_batch = cf->graph_batch;
	hc.persistent_blocks = cf->persistent_blocks;
	/* --persistent-blocks max: the GPU's share of each of its pipelines */
	hc.persistent_share = p->gpu != FWD_NO_GPU ?
		fwd_run.gpus[p->gpu].nb_ports * cf->queues : 1;
	hc.poll_ns = cf->poll_ns;
	hc.persistent_pollers = cf->pollers;
	hc.stage_bytes = cf->data_room;
	/* pinned mbufs: the GPU itself copies them in and out */
	hc.stage_gpu_copy = mem == GPUDP_MEM_PINNED;
	hc.cu_ctx = p->gpu != FWD_NO_GPU ? fwd_run.gpus[p->gpu].ctx : 0;
	hc.lat_sample = lat_sample(cf->burst);
	p->ho = gpudp_handoff_create(&hc);
	if (p->ho == NULL) {
		fprintf(stderr, "gpudp-fwd: handoff for port %u queue %u (mode %s): %s\n",
			p->rx_port, p->rx_queue, gpudp_ho_mode_name(cf->mode),
			strerror(rte_errno));
		return -rte_errno;
	}
	p->desc = gpudp_handoff_needs_desc(p->ho);
	p->span = cf->work->span != 0 ? cf->work->span : UINT32_MAX;
	p->segs = hc.segs;
	p->whole = gpudp_handoff_needs_whole_frames(p->ho);
	return 0;
}

/* every pipeline with its pool and handoff; then each port's queues on
 * its pipelines' pools. @return 0 or a negative errno (printed) */
static int
pipes_make(void)
{
	struct gpudp_pool *pools[FWD_MAX_PORTS][16];
	unsigned int i, q, lc, need, nlc = 0, lcores[RTE_MAX_LCORE];
	int ret;

	RTE_LCORE_FOREACH_WORKER(lc)
		lcores[nlc++] = lc;
	need = cf->nb_ports * cf->queues * cf->pipeline_lcores;
	if (nlc < need) {
		fprintf(stderr, "gpudp-fwd: %u pipelines x --pipeline-lcores %u need %u worker "
			"lcores, EAL gave %u (use -l with %u lcores)\n",
			cf->nb_ports * cf->queues, cf->pipeline_lcores, need, nlc, need + 1);
		return -EINVAL;
	}
	ret = ports_room();
	if (ret != 0)
		return ret;
	for (i = 0; i < cf->nb_ports; i++)
		for (q = 0; q < cf->queues; q++) {
			struct fwd_pipe *p = pipe_new(i, (uint16_t)q, lcores);

			if (p == NULL)
				return -ENOMEM;
			ret = pipe_pool(p);
			if (ret == 0)
				ret = pipe_handoff(p);
			if (ret != 0)
				return ret;
			pools[i][q] = p->pool;
		}
	for (i = 0; i < cf->nb_ports; i++) {
		ret = port_setup(i, pools[i]);
		if (ret != 0)
			return ret;
	}
	return 0;
}

/* handoffs, then ports started; links waited for; io pipelines set. @return 0 or an errno */
static int
pipes_start(void)
{
	unsigned int i;
	int ret;

	/* resident kernels last: they would block the CUDA calls above */
	for (i = 0; i < fwd_run.nb_pipes; i++) {
		ret = gpudp_handoff_start(fwd_run.pipes[i]->ho);
		if (ret != 0) {
			fprintf(stderr, "gpudp-fwd: pipeline %u: starting mode %s failed\n", i,
				gpudp_ho_mode_name(cf->mode));
			return ret;
		}
	}
	for (i = 0; i < cf->nb_ports; i++) {
		char err[256];

		ret = gpudp_app_port_start(cf->ports[i], err, sizeof(err));
		fwd_run.ports_started = 1;
		if (ret != 0) {
			fprintf(stderr, "gpudp-fwd: %s\n", err);
			return ret;
		}
	}
	for (i = 0; i < cf->nb_ports; i++)
		if (!gpudp_app_link_wait(cf->ports[i], FWD_LINK_WAIT_S, &fwd_quit))
			FWD_LOG(WARNING, "port %u (%s): link still down after %d s; forwarding "
				"anyway", cf->ports[i], gpudp_app_port_driver(cf->ports[i]),
				FWD_LINK_WAIT_S);
	/* io pipelines: after the start, when PMDs have set up their queues */
	for (i = 0; i < fwd_run.nb_pipes; i++)
		if (fwd_run.pipes[i]->io) {
			fwd_run.pipes[i]->io_chained = io_may_chain(fwd_run.pipes[i]);
			fwd_io_start(fwd_run.pipes[i]);
			FWD_LOG(INFO, "pipeline %u: io forwarding (mode none on one lcore, no "
				"handoff), chained frames %s", i, fwd_run.pipes[i]->io_chained ?
				"checked (the port may deliver them)" : "not checked (none come)");
		}
	return 0;
}

int
fwd_pipes_create(void)
{
	unsigned int i;
	int ret = pipes_make();

	if (ret != 0)
		return ret;
	for (i = 0; i < fwd_run.nb_pipes; i++) {
		const struct fwd_pipe *p = fwd_run.pipes[i];

		if (p->gpu != FWD_NO_GPU)
			FWD_LOG(INFO, "pipeline %u (port %u queue %u): pool and handoff on GPU %d "
				"(gpudev device %d)", i, p->rx_port, p->rx_queue,
				fwd_run.gpus[p->gpu].ordinal, fwd_run.gpus[p->gpu].id);
	}
	return pipes_start();
}

/* reverse of setup: every resident kernel stops before any GPU memory is
 * freed (freeing synchronises the device), ports before pools */
void
fwd_teardown(void)
{
	unsigned int i;

	__atomic_store_n(&fwd_run.nb_ready, 0, __ATOMIC_RELEASE);
	usleep(10000); /* a telemetry query already running finishes */
	for (i = 0; i < fwd_run.nb_pipes; i++)
		gpudp_handoff_stop(fwd_run.pipes[i]->ho);
	for (i = 0; i < cf->nb_ports; i++) {
		if (fwd_run.ports_started)
			rte_eth_dev_stop(cf->ports[i]);
		rte_eth_dev_close(cf->ports[i]);
	}
	for (i = 0; i < fwd_run.nb_pipes; i++) {
		gpudp_handoff_destroy(fwd_run.pipes[i]->ho);
		fwd_run.pipes[i]->ho = NULL;
	}
	for (i = 0; i < fwd_run.nb_pipes; i++) {
		if (fwd_run.pipes[i]->pool != NULL && gpudp_pool_destroy(fwd_run.pipes[i]->pool) != 0)
			FWD_LOG(WARNING, "pipeline %u: pool still has mbufs out", i);
		free(fwd_run.pipes[i]);
		fwd_run.pipes[i] = NULL;
	}
	fwd_run.nb_pipes = 0;
	fwd_gpus_release();
}


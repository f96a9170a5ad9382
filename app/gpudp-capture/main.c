/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpudp-capture: the capture-to-GPU demo.
 *
 *   gpudp-capture [EAL options] -- [options]
 *
 * One lcore polls every selected port. With --mem staged it copies each
 * received packet into the current staged batch (linearising chained mbufs)
 * and frees the mbuf; with --mem pinned or device (mbufs from lib/mem, in
 * GPU-registered host memory or in GPU memory) it only writes a reference
 * (address, lengths, timestamp) per packet and keeps the mbuf until the
 * engine is done with its batch. Full batches go to the analysis engine
 * (GPU: copy + kernel on a stream; CPU: gpudp_analysis_batch, or in place).
 * Finished batches come back in order with their filter bitmap; matching
 * packets go to the pcapng writer with their capture timestamps. At the end
 * (SIGINT, end of the input files, --duration, --max-packets) the engine's
 * tables are read back and reported.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_bus.h>
#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_dev.h>
#include <rte_devargs.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_gpudev.h>
#include <rte_log.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>

#include <gpudp_mem.h>
#include <gpudp_pin_client.h>

#ifdef GPUDP_HAS_CUDA
#include "gpudp_cuda.h"
#include <gpudp_gpu.h>
#endif
#include "capfile.h"
#include "gpudp_app_gpu.h"
#include "engine.h"
#include "gpudp_app_mbuf.h"
#include "gpudp_eal_diag.h"
#include "gpudp_analysis.h"
#include "gpudp_pcapng.h"
#include "options.h"
#include "report.h"

RTE_LOG_REGISTER(cap_logtype, gpudp.capture, INFO);
#define CAP_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, cap_logtype, "gpudp-capture: " fmt "\n", ## __VA_ARGS__)

#define MAX_VDEV_FILES 64

/* A capture file named in an EAL --vdev net_pcap...,rx_pcap=FILE argument. */
struct vdev_file {
	char vdev[64];
	char path[512];
	int infinite;
	struct capfile_info info;
};

#define CAP_MAX_RXQ 16
#define CAP_LINK_WAIT_S 5   /* live ports: how long to wait for the link at start */

/* Original lengths of snapped records of the file an rx queue reads. */
struct cap_rxq {
	const struct capfile_snap *snaps;
	size_t n_snaps, next;
	uint64_t count;        /* packets received on the queue */
};

struct cap_port {
	uint16_t id;
	char driver[64];       /* PMD name */
	const char *cpu_copy;  /* why the PMD writes packets with the CPU, or NULL (it DMAs) */
	int pci;               /* on a bus with DMA (pci, auxiliary) */
	struct cap_rxq rxq[CAP_MAX_RXQ];
	uint16_t nb_rxq;
	char name[64];
	uint64_t ts_mult;      /* ns per timestamp unit; 0: stamp with the host clock */
	uint64_t expected;     /* packets in its files; 0 with live */
	int live;
	uint64_t rx;
};

struct cap_app {
	struct cap_conf conf;
	struct vdev_file files[MAX_VDEV_FILES];
	unsigned int n_files;
	struct cap_port ports[CAP_MAX_PORTS];
	unsigned int n_ports;
	struct rte_mempool *pool;
	struct cap_engine eng;
	const char *engine_name;
	char engine_note[320];
	struct gpudp_analysis *result;
	struct gpudp_pcapng *out;
	int out_failed;
	uint64_t filter_written;
	uint64_t staging_drops;
	uint64_t multiseg;
	uint64_t pmd_cut;         /* frames whose mbufs hold fewer bytes than pkt_len */
	uint64_t rx_total;
	int ts_off;
	uint64_t ts_flag;
	int file_truncated;
	uint64_t expected_total;
	int snaps_unreliable;
	int any_live;
	char input_desc[512];
	struct gpudp_analysis *verify;  /* --verify: the CPU's analysis of the same batches */
	uint64_t verify_mismatch;       /* batches whose filter bits differed */
	/* --mem */
	enum cap_mem mem;               /* what is used */
	char mem_note[448];             /* why (auto), or empty */
	int16_t gpu_id;                 /* gpudev id of --gpu, -1: none */
	char gpu_why[256];              /* why there is none */
	struct gpudp_pool *gpool;       /* pinned and device pools (lib/mem) */
	struct gpudp_pool_info pinfo;
	uint64_t pins_created;          /* lib/mem's pin counter once the pool exists */
	struct cap_cpu_map {            /* device memory on the CPU engine: rte_gpu_mem_cpu_map */
		uint64_t va, len;
		uint8_t *cpu;
	} maps[64];
	unsigned int n_maps;
	int maps_overflow;              /* more chunks than maps[]: refused */
	int chain_warned;
	uint64_t unreadable_written;    /* matches whose bytes the host could not get */
};

static volatile sig_atomic_t stop_requested;

static void
on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

/* ------------------------------------------------------------ input checks */

/* Collect rx_pcap= files from the EAL part of argv (before "--"). */
static int
scan_vdevs(struct cap_app *app, int argc, char **argv)
{
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		const char *v = NULL;
		char buf[1024], *tok, *save = NULL, *name;

		if (strcmp(argv[i], "--vdev") == 0 && i + 1 < argc)
			v = argv[++i];
		else if (strncmp(argv[i], "--vdev=", 7) == 0)
			v = argv[i] + 7;
		if (v == NULL || strncmp(v, "net_pcap", 8) != 0)
			continue;
		snprintf(buf, sizeof(buf), "%s", v);
		name = strtok_r(buf, ",", &save);
		{
			int infinite = strstr(v, "infinite_rx=1") != NULL;

			while ((tok = strtok_r(NULL, ",", &save)) != NULL) {
				struct vdev_file *f;

				if (strncmp(tok, "rx_pcap=", 8) != 0)
					continue;
				if (app->n_files == MAX_VDEV_FILES) {
					fprintf(stderr, "gpudp-capture: too many rx_pcap files "
						"(max %d)\n", MAX_VDEV_FILES);
					return -1;
				}
				f = &app->files[app->n_files++];
				snprintf(f->vdev, sizeof(f->vdev), "%s", name);
				snprintf(f->path, sizeof(f->path), "%s", tok + 8);
				f->infinite = infinite;
			}
		}
	}
	return 0;
}

/* Inspect each file: clear errors for what net_pcap would mishandle. */
static int
check_files(struct cap_app *app)
{
	unsigned int i;
	char err[512];

	for (i = 0; i < app->n_files; i++) {
		struct vdev_file *f = &app->files[i];
		const struct capfile_info *in = &f->info;
		int rc = capfile_inspect(f->path, app->conf.data_room, &f->info, err, sizeof(err));

		if (rc != 0) {
			fprintf(stderr, "gpudp-capture: input error: %s\n", err);
			return -1;
		}
		if (in->mixed_linktypes) {
			fprintf(stderr, "gpudp-capture: input error: %s: interfaces of different link "
				"types: interface %u of section %u (block at offset %" PRIu64 ") has "
				"link type %u (%s), the first interface %u (%s); gpudp-capture "
				"analyses Ethernet frames only, and libpcap (net_pcap's reader) reads "
				"one link type per file\n", f->path, in->other_ifid,
				in->other_section, in->other_offset, in->other_linktype,
				capfile_linktype_name(in->other_linktype), in->linktype,
				capfile_linktype_name(in->linktype));
			return -1;
		}
		if (in->linktype != CAPFILE_LINKTYPE_ETHERNET &&
		    in->linktype != CAPFILE_LINKTYPE_NONE) {
			fprintf(stderr, "gpudp-capture: input error: %s: link type %u (%s) is not "
				"Ethernet; gpudp-capture analyses Ethernet frames only\n", f->path,
				in->linktype, capfile_linktype_name(in->linktype));
			return -1;
		}
		if (in->libpcap_diff[0] != '\0') {
			fprintf(stderr, "gpudp-capture: input error: %s: %s; gpudp-capture reads "
				"capture files through net_pcap, which uses libpcap%s\n", f->path,
				in->libpcap_diff, in->packets > 0 ? " (a copy written by "
				"'editcap -F pcap' is read whole)" : "");
			return -1;
		}
		if (f->info.truncated) {
			fprintf(stderr, "gpudp-capture: warning: %s is truncated: the record at "
				"offset %" PRIu64 " is incomplete; %" PRIu64 " complete packets "
				"are read, the rest is counted in rx_errors\n", f->path,
				f->info.trunc_offset, f->info.packets);
			app->file_truncated = 1;
		}
		if (f->info.oversize)
			fprintf(stderr, "gpudp-capture: note: %s has %" PRIu64 " packets longer than "
				"the %u-byte mbuf data room (largest %u): they arrive as chained mbufs "
				"and are analysed whole (counted as multi_segment)\n", f->path,
				f->info.oversize, app->conf.data_room, f->info.max_caplen);
	}
	return 0;
}

/* ------------------------------------------------------------------ ports */

static int
port_selected(const struct cap_conf *c, uint16_t id)
{
	uint32_t i;

	if (c->n_ports == 0)
		return 1;
	for (i = 0; i < c->n_ports; i++)
		if (c->ports[i] == id)
			return 1;
	return 0;
}

static int
setup_port(struct cap_app *app, struct cap_port *p)
{
	struct rte_eth_conf pconf;
	struct rte_eth_dev_info info;
	unsigned int i;
	uint16_t q, nrxd = (uint16_t)app->conf.rxd, ntxd = 64;
	int rc;

	memset(&pconf, 0, sizeof(pconf));
	rc = rte_eth_dev_info_get(p->id, &info);
	if (rc != 0) {
		CAP_LOG(ERR, "port %u: cannot get device info: %s", p->id, rte_strerror(-rc));
		return rc;
	}
	p->nb_rxq = 1;
	p->live = 1;
	if (strcmp(info.driver_name, "net_pcap") == 0) {
		int files = 0, infinite = 0;

		/* net_pcap: one rx queue per rx_pcap file; microsecond timestamps */
		p->ts_mult = 1000;
		for (i = 0; i < app->n_files; i++) {
			if (strcmp(app->files[i].vdev, p->name) != 0)
				continue;
			if (files < CAP_MAX_RXQ) {
				p->rxq[files].snaps = app->files[i].info.snaps;
				p->rxq[files].n_snaps = app->files[i].info.n_snaps;
			}
			files++;
			infinite |= app->files[i].infinite;
			p->expected += app->files[i].info.packets;
		}
		if (files > 0) {
			p->nb_rxq = (uint16_t)RTE_MIN(RTE_MIN((unsigned int)files,
						      (unsigned int)info.max_rx_queues), (unsigned int)CAP_MAX_RXQ);
			p->live = infinite;
		}
		if (p->live)
			p->expected = 0;
	}
	/* in place, a packet must be one buffer: no scatter (the data room is
	 * raised for capture files instead, see create_pool) */
	if (app->mem == CAP_MEM_STAGED && (info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_SCATTER))
		pconf.rxmode.offloads |= RTE_ETH_RX_OFFLOAD_SCATTER;
	/* some PMDs (net_tap) want as many tx queues as rx queues: set them up,
	 * unused */
	rc = rte_eth_dev_configure(p->id, p->nb_rxq, p->nb_rxq, &pconf);
	if (rc != 0) {
		CAP_LOG(ERR, "port %u (%s): configure failed: %s", p->id, p->name,
			rte_strerror(-rc));
		return rc;
	}
	rc = rte_eth_dev_adjust_nb_rx_tx_desc(p->id, &nrxd, &ntxd);
	if (rc != 0)
		return rc;
	for (q = 0; q < p->nb_rxq; q++) {
		if (app->gpool != NULL)
			rc = gpudp_pool_rx_queue_setup(app->gpool, p->id, q, nrxd,
						       rte_eth_dev_socket_id(p->id));
		else
			rc = rte_eth_rx_queue_setup(p->id, q, nrxd, rte_eth_dev_socket_id(p->id),
						    NULL, app->pool);
		if (rc == 0)
			rc = rte_eth_tx_queue_setup(p->id, q, ntxd, rte_eth_dev_socket_id(p->id),
						    NULL);
		if (rc != 0) {
			CAP_LOG(ERR, "port %u (%s): queue %u setup failed: %s", p->id, p->name,
				q, rte_strerror(-rc));
			return rc;
		}
	}
	rc = rte_eth_dev_start(p->id);
	if (rc != 0) {
		CAP_LOG(ERR, "port %u (%s): start failed: %s", p->id, p->name, rte_strerror(-rc));
		return rc;
	}
	rte_eth_promiscuous_enable(p->id); /* not supported by every PMD: ignore */
	if (p->live) {
		/* a live port drops what arrives before its link is up: wait for it */
		struct rte_eth_link link;
		uint64_t t0 = rte_get_timer_cycles(), hz = rte_get_timer_hz();

		memset(&link, 0, sizeof(link));
		while (rte_eth_link_get_nowait(p->id, &link) == 0 &&
		       link.link_status != RTE_ETH_LINK_UP &&
		       rte_get_timer_cycles() - t0 < CAP_LINK_WAIT_S * hz && !stop_requested)
			rte_delay_ms(10);
		if (link.link_status != RTE_ETH_LINK_UP)
			CAP_LOG(WARNING, "port %u (%s): link still down after %d s; capturing anyway",
				p->id, p->name, CAP_LINK_WAIT_S);
	}
	CAP_LOG(INFO, "port %u (%s, %s): %u rx queue%s, %s", p->id, p->name, info.driver_name,
		p->nb_rxq, p->nb_rxq == 1 ? "" : "s",
		p->live ? "live" : "capture file");
	return 0;
}

static int
setup_ports(struct cap_app *app)
{
	unsigned int i;

	for (i = 0; i < app->n_ports; i++)
		if (setup_port(app, &app->ports[i]) != 0)
			return -1;
	return 0;
}

/*
 * Why a PMD writes received packets with the CPU (so its mbufs cannot be in
 * GPU memory), or NULL if it leaves that to the device's DMA. Software PMDs
 * copy; net_null does not touch the payload at all unless copy=1.
 */
static const char *
port_cpu_copy(const struct rte_eth_dev_info *info, int *pci)
{
	static const char *const copiers[] = {
		"net_pcap", "net_tap", "net_af_packet", "net_ring", "net_memif", "net_af_xdp",
		"net_vhost", "net_virtio_user", "net_kni", "net_bonding", "net_failsafe",
		"net_softnic", "net_tun",
	};
	const char *bus = NULL;
	unsigned int i;

	*pci = 0;
	if (info->device != NULL && rte_dev_bus(info->device) != NULL)
		bus = rte_bus_name(rte_dev_bus(info->device));
	if (strcmp(info->driver_name, "net_null") == 0) {
		const struct rte_devargs *da = info->device != NULL ?
			rte_dev_devargs(info->device) : NULL;

		if (da != NULL && da->args != NULL && strstr(da->args, "copy=1") != NULL)
			return "copies every packet with the CPU (copy=1)";
		return NULL; /* hands out mbufs without touching their data */
	}
	for (i = 0; i < RTE_DIM(copiers); i++)
		if (strcmp(info->driver_name, copiers[i]) == 0)
			return "is a software PMD that copies every packet with the CPU";
	if (bus != NULL && (strcmp(bus, "pci") == 0 || strcmp(bus, "auxiliary") == 0)) {
		*pci = 1;
		return NULL;
	}
	return "is not a PCI device that DMAs into its buffers";
}

/* The selected ports, their drivers, and the input description. */
static int
collect_ports(struct cap_app *app)
{
	uint16_t id;
	unsigned int i;

	RTE_ETH_FOREACH_DEV(id) {
		struct cap_port *p = &app->ports[app->n_ports];
		struct rte_eth_dev_info info;
		int rc;

		if (!port_selected(&app->conf, id))
			continue;
		if (app->n_ports == CAP_MAX_PORTS)
			break;
		p->id = id;
		rte_eth_dev_get_name_by_port(id, p->name);
		rc = rte_eth_dev_info_get(id, &info);
		if (rc != 0) {
			CAP_LOG(ERR, "port %u: cannot get device info: %s", id, rte_strerror(-rc));
			return -1;
		}
		snprintf(p->driver, sizeof(p->driver), "%s", info.driver_name);
		p->cpu_copy = port_cpu_copy(&info, &p->pci);
		app->n_ports++;
	}
	for (i = 0; i < app->conf.n_ports; i++) {
		if (!rte_eth_dev_is_valid_port(app->conf.ports[i])) {
			fprintf(stderr, "gpudp-capture: --ports: bad value '%u' (no such port; %u "
				"available)\n", app->conf.ports[i], rte_eth_dev_count_avail());
			return -2;
		}
	}
	if (app->n_ports == 0) {
		fprintf(stderr, "gpudp-capture: no ports: give one with EAL options, e.g. "
			"--vdev 'net_pcap0,rx_pcap=test/data/sample.pcap'\n");
		return -2;
	}
	return 0;
}

/* After setup_ports: what is expected, and the input description. */
static void
describe_input(struct cap_app *app)
{
	unsigned int i;
	size_t off = 0;

	for (i = 0; i < app->n_ports; i++) {
		struct cap_port *p = &app->ports[i];

		app->expected_total += p->expected;
		app->any_live |= p->live;
		off += snprintf(app->input_desc + off, off < sizeof(app->input_desc) ?
				sizeof(app->input_desc) - off : 0, "%sport %u (%s)",
				i ? ", " : "", p->id, p->name);
		if (off >= sizeof(app->input_desc))
			off = sizeof(app->input_desc) - 1;
	}
	if (app->n_files > 0 && off < sizeof(app->input_desc)) {
		for (i = 0; i < app->n_files && off < sizeof(app->input_desc); i++)
			off += snprintf(app->input_desc + off, sizeof(app->input_desc) - off,
					"%s%s", i ? ", " : ": ", app->files[i].path);
	}
}

/* ----------------------------------------------------------------- engine */

/* --verify: the same batch on the CPU; filter bits must agree packet by packet */
static void
verify_batch(struct cap_app *app, const struct cap_batch *b)
{
	uint32_t words = (b->n + 31) / 32, i;
	uint32_t *bits = calloc(words ? words : 1, sizeof(*bits));

	if (bits == NULL) {
		app->verify_mismatch++;
		return;
	}
	if (!b->inplace) {
		gpudp_analysis_batch(app->verify, b->desc, b->data, b->n, bits);
	} else {
		for (i = 0; i < b->n; i++) {
			uint32_t cl, wl;
			uint64_t ts;
			const uint8_t *d = cap_batch_pkt(b, i, &cl, &wl, &ts);

			if (d != NULL && gpudp_analysis_packet(app->verify, d, cl, wl, ts))
				bits[i / 32] |= 1u << (i % 32);
		}
	}
	if (memcmp(bits, b->match, 4 * (size_t)words) != 0)
		app->verify_mismatch++;
	free(bits);
}

static void
batch_done(void *arg, const struct cap_batch *b)
{
	struct cap_app *app = arg;
	uint32_t i;

	if (app->verify != NULL)
		verify_batch(app, b);
	if (app->out == NULL || b->n_match == 0 || app->out_failed)
		return;
	for (i = 0; i < b->n; i++) {
		uint32_t caplen, wirelen;
		uint64_t ts;
		const uint8_t *d;

		if (!cap_batch_matched(b, i))
			continue;
		/* in place: the packet where it is, or (device memory) its copy */
		d = cap_batch_pkt(b, i, &caplen, &wirelen, &ts);
		if (d == NULL) {
			app->unreadable_written++;
			continue;
		}
		if (gpudp_pcapng_write(app->out, d, caplen, wirelen, ts) != 0) {
			CAP_LOG(ERR, "--filter-out %s: write failed; no more packets are written",
				app->conf.filter_out);
			app->out_failed = 1;
			return;
		}
		app->filter_written++;
	}
}

/* In place: the kernel (or the CPU) that read these mbufs is done. */
static void
batch_release(void *arg, void **owner, uint32_t n)
{
	RTE_SET_USED(arg);
	rte_pktmbuf_free_bulk((struct rte_mbuf **)owner, n);
}

/* Device memory on the CPU engine: the CPU address of a GPU VA. */
static const uint8_t *
cpu_view(void *arg, uint64_t addr, uint32_t len)
{
	struct cap_app *app = arg;
	unsigned int i;

	for (i = 0; i < app->n_maps; i++) {
		const struct cap_cpu_map *m = &app->maps[i];

		if (addr >= m->va && addr - m->va < m->len && len <= m->len - (addr - m->va))
			return m->cpu + (addr - m->va);
	}
	return NULL;
}

/* Whether the GPU engine can run (CUDA and a device); why not in @p why. */
static int
gpu_engine_possible(char *why, size_t len)
{
#ifdef GPUDP_HAS_CUDA
	if (gpudp_cuda_init() == 0)
		return 1;
	snprintf(why, len, "no GPU: %s", gpudp_cuda_last_error());
#else
	snprintf(why, len, "built without CUDA");
#endif
	return 0;
}

static int16_t find_gpu(struct cap_app *app);

/*
 * The GPU engine's CUDA context: gpudev's for --gpu (gpudp's driver, where
 * the pools live), as gpudp-fwd's handoffs use; 0 (the GPU's primary
 * context) when the device is another driver's.
 */
#ifdef GPUDP_HAS_CUDA
static uint64_t
gpudev_context(struct cap_app *app)
{
	return gpudp_app_gpu_context(app->gpu_id >= 0 ? app->gpu_id : find_gpu(app));
}
#endif

static int
setup_engine(struct cap_app *app)
{
	struct cap_engine_conf ec = {
		.batch_pkts = app->conf.batch_pkts, .batch_bytes = app->conf.batch_bytes,
		.flow_capacity = app->conf.flows, .filter = app->conf.filter,
		.gpu_device = (int)app->conf.gpu, .inflight = app->conf.inflight,
		.done = batch_done, .done_arg = app,
		.mem = app->mem, .release = batch_release,
		.cpu_view = app->mem == CAP_MEM_DEVICE ? cpu_view : NULL, .view_arg = app,
	};
	char err[256];
	int rc;

	app->engine_note[0] = '\0';
	if (app->conf.force_cpu) {
		snprintf(app->engine_note, sizeof(app->engine_note), "%s given",
			 app->conf.engine_opt ? "--engine cpu" : "--cpu");
		CAP_LOG(NOTICE, "%s; analysing on the CPU", app->engine_note);
	} else {
		if (gpu_engine_possible(app->engine_note, sizeof(app->engine_note))) {
#ifdef GPUDP_HAS_CUDA
			ec.cu_ctx = gpudev_context(app);
			rc = cap_engine_create(&app->eng, "gpu", &ec, err, sizeof(err));
			if (rc == 0) {
				app->engine_name = "gpu";
				return 0;
			}
			snprintf(app->engine_note, sizeof(app->engine_note),
				 "GPU engine failed: %s", err);
#endif
		}
		if (app->conf.engine == CAP_CONF_ENGINE_GPU) {
			fprintf(stderr, "gpudp-capture: --engine gpu: %s\n", app->engine_note);
			return -ENODEV;
		}
		CAP_LOG(NOTICE, "%s; analysing on the CPU", app->engine_note);
	}
	rc = cap_engine_create(&app->eng, "cpu", &ec, err, sizeof(err));
	if (rc != 0) {
		CAP_LOG(ERR, "cannot create the CPU engine: %s", err);
		return rc;
	}
	app->engine_name = "cpu";
	return 0;
}

/* ------------------------------------------------------------------ memory */

/*
 * The gpudev device of --gpu (a CUDA ordinal). gpudp's driver reports each
 * GPU's ordinal; a device of another driver (the e2e guest's test driver)
 * is taken by its gpudev id. -1 and app->gpu_why when there is none.
 */
static int16_t
find_gpu(struct cap_app *app)
{
	return gpudp_app_gpu_find(app->conf.gpu, app->gpu_why, sizeof(app->gpu_why));
}

static const char *
cap_mem_name(enum cap_mem m)
{
	return m == CAP_MEM_HOST ? "pinned" : m == CAP_MEM_DEVICE ? "device" : "staged";
}

/* Whether the gpudp_pin module reports the dma-buf import capability. */
static int
pin_dmabuf_capable(void)
{
	struct gpudp_pin_version v;

	return gpudp_pin_shared_fd(&v) >= 0 && (v.caps & GPUDP_PIN_CAP_DMABUF) != 0;
}

/* Whether a pin backend can give the NIC bus addresses of GPU memory here. */
static const char *
pin_unusable(const struct cap_app *app)
{
	int kmod = gpudp_pin_shared_fd(NULL) >= 0, mlx5 = 1;
	unsigned int i;

	for (i = 0; i < app->n_ports; i++)
		mlx5 &= strcmp(app->ports[i].driver, "mlx5_pci") == 0 ||
			strcmp(app->ports[i].driver, "net_mlx5") == 0;
	switch ((enum gpudp_pin_backend)app->conf.pin) {
	case GPUDP_PIN_KMOD:
		return kmod ? NULL : "--pin kmod and /dev/gpudp_pin cannot be opened";
	case GPUDP_PIN_DMABUF:
		/* as kmod, and the module must import dma-bufs */
		return !kmod ? "--pin dmabuf and /dev/gpudp_pin cannot be opened" :
		       !pin_dmabuf_capable() ? "--pin dmabuf and the gpudp_pin module has no "
			"dma-buf import (GPUDP_PIN_CAP_DMABUF)" : NULL;
	case GPUDP_PIN_PEERMEM:
		return mlx5 ? NULL : "--pin peermem needs mlx5 ports";
	case GPUDP_PIN_AUTO:
		return kmod || mlx5 ? NULL : "no pin backend: /dev/gpudp_pin cannot be opened and "
			"not every port is mlx5 (peermem)";
	default:
		return "the pin backend is not available";
	}
}

/*
 * --mem: decide what is used. Refusals of the user's choice are usage
 * errors (exit 2), a missing GPU exits 77 (as gpudp-fwd, and --verify).
 * @return 0, 2 or 77
 */
static int
resolve_mem(struct cap_app *app, int gpu_engine)
{
	const struct cap_conf *c = &app->conf;
	char why[400] = "";
	unsigned int i;

	app->mem_note[0] = '\0';
	if (c->mem == CAP_CONF_MEM_STAGED) {
		app->mem = CAP_MEM_STAGED;
		return 0;
	}
	if (c->mem == CAP_CONF_MEM_DEVICE) {
		for (i = 0; i < app->n_ports; i++) {
			const struct cap_port *p = &app->ports[i];

			if (p->cpu_copy == NULL)
				continue;
			fprintf(stderr, "gpudp-capture: --mem device: bad value for port %u (%s, "
				"driver %s): it %s, so its mbufs cannot be in GPU memory; use "
				"--mem pinned (the GPU reads the host mbufs in place) or --mem "
				"staged\n", p->id, p->name, p->driver, p->cpu_copy);
			return GPUDP_EXIT_USAGE;
		}
	}
	if (c->mem == CAP_CONF_MEM_PINNED || c->mem == CAP_CONF_MEM_DEVICE) {
		if (app->gpu_id < 0) {
			fprintf(stderr, "gpudp-capture: --mem %s: no GPU to put the mbufs in: %s\n",
				cap_conf_mem_name(c->mem), app->gpu_why);
			return GPUDP_EXIT_NO_GPU;
		}
		app->mem = c->mem == CAP_CONF_MEM_PINNED ? CAP_MEM_HOST : CAP_MEM_DEVICE;
		return 0;
	}
	/* auto: GPU memory only where it works without a CPU copy and is read by the GPU */
	if (!gpu_engine)
		snprintf(why, sizeof(why), "the analysis runs on the CPU");
	else if (app->gpu_id < 0)
		snprintf(why, sizeof(why), "no gpudev device for GPU %u: %s", c->gpu, app->gpu_why);
	for (i = 0; why[0] == '\0' && i < app->n_ports; i++) {
		const struct cap_port *p = &app->ports[i];

		if (p->cpu_copy != NULL || !p->pci)
			snprintf(why, sizeof(why), "port %u (%s, driver %s) %s", p->id, p->name,
				 p->driver, p->cpu_copy != NULL ? p->cpu_copy :
				 "does not write packets by DMA");
	}
	if (why[0] == '\0') {
		const char *pin = pin_unusable(app);

		if (pin != NULL)
			snprintf(why, sizeof(why), "%s", pin);
	}
	if (why[0] != '\0') {
		app->mem = CAP_MEM_STAGED;
		snprintf(app->mem_note, sizeof(app->mem_note), "--mem auto: staged, because %s",
			 why);
	} else if (c->verify) {
		/* --verify analyses every batch on the CPU too, which cannot read device memory */
		app->mem = CAP_MEM_HOST;
		snprintf(app->mem_note, sizeof(app->mem_note), "--mem auto: pinned, because "
			 "--verify reads every packet on the CPU too, which cannot read --mem "
			 "device packets (the GPU still analyses them in place)");
	} else {
		app->mem = CAP_MEM_DEVICE;
		snprintf(app->mem_note, sizeof(app->mem_note), "--mem auto: device: every port "
			 "DMAs into its buffers and the GPU analyses them (GPUDirect RDMA)");
	}
	CAP_LOG(NOTICE, "%s", app->mem_note);
	return 0;
}

/* largest packet of the capture files, 0 if none */
static uint32_t
files_max_caplen(const struct cap_app *app)
{
	uint32_t m = 0;
	unsigned int i;

	for (i = 0; i < app->n_files; i++)
		m = RTE_MAX(m, app->files[i].info.max_caplen);
	return m;
}

static int
create_pool(struct cap_app *app)
{
	uint16_t ids[CAP_MAX_PORTS];
	struct gpudp_pool_conf pc;
	struct gpudp_regcache_stats st;
	uint32_t room = app->conf.data_room, big = files_max_caplen(app);
	unsigned int i;

	if (app->mem == CAP_MEM_STAGED) {
		app->pool = rte_pktmbuf_pool_create("cap_rx", app->conf.mbufs, 256, 0,
						    (uint16_t)(room + RTE_PKTMBUF_HEADROOM),
						    (int)rte_socket_id());
		if (app->pool == NULL) {
			CAP_LOG(ERR, "cannot create the mbuf pool (%u mbufs of %u bytes): %s",
				app->conf.mbufs, room, rte_strerror(rte_errno));
			return -1;
		}
		return 0;
	}
	/* in place, a packet must fit one mbuf: room for the largest file record */
	if (big > room) {
		room = RTE_MIN(RTE_ALIGN_CEIL(big, 64u), 65535u - RTE_PKTMBUF_HEADROOM);
		CAP_LOG(NOTICE, "--mem %s: data room raised from %u to %u bytes so that every "
			"packet of the capture files fits one mbuf (in place, packets are not "
			"chained)", cap_mem_name(app->mem), app->conf.data_room, room);
		app->conf.data_room = room;
	}
	for (i = 0; i < app->n_ports; i++)
		ids[i] = app->ports[i].id;
	memset(&pc, 0, sizeof(pc));
	pc.name = "cap_rx";
	pc.type = app->mem == CAP_MEM_HOST ? GPUDP_MEM_PINNED : GPUDP_MEM_DEVICE;
	pc.gpu_id = app->gpu_id;
	pc.ports = ids;
	pc.nb_ports = (uint16_t)app->n_ports;
	pc.nb_mbufs = app->conf.mbufs;
	pc.data_room = (uint16_t)(room + RTE_PKTMBUF_HEADROOM);
	pc.cache_size = 256;
	pc.socket_id = (int)rte_socket_id();
	pc.pin = (enum gpudp_pin_backend)app->conf.pin;
	app->gpool = gpudp_pool_create(&pc);
	if (app->gpool == NULL) {
		CAP_LOG(ERR, "cannot create the --mem %s mbuf pool (%u mbufs of %u bytes on gpudev "
			"device %d): %s (the gpudp.mem log line above says which step)",
			cap_mem_name(app->mem), app->conf.mbufs, room, app->gpu_id,
			strerror(abs(rte_errno)));
		return -1;
	}
	app->pool = gpudp_pool_mempool(app->gpool);
	gpudp_pool_info_get(app->gpool, &app->pinfo);
	gpudp_mem_pin_stats(&st);
	app->pins_created = st.pins;
	CAP_LOG(INFO, "--mem %s: %u mbufs of %u bytes, %zu bytes of GPU memory, %zu bytes of "
		"host memory, %u chunk%s%s%s", cap_mem_name(app->mem), app->pinfo.nb_mbufs, room,
		app->pinfo.gpu_bytes, app->pinfo.host_bytes, app->pinfo.chunks,
		app->pinfo.chunks == 1 ? "" : "s",
		app->mem == CAP_MEM_DEVICE ? ", pin backend " : "",
		app->mem == CAP_MEM_DEVICE ? gpudp_pin_backend_name(app->pinfo.pin) : "");
	return 0;
}

static void
collect_chunk(struct rte_mempool *mp, void *arg, void *obj, unsigned int idx)
{
	struct cap_app *app = arg;
	struct rte_mbuf *m = obj;
	struct rte_memseg_list *msl = rte_mem_virt2memseg_list(m->buf_addr);
	unsigned int i;

	RTE_SET_USED(mp);
	RTE_SET_USED(idx);
	if (msl == NULL)
		return;
	for (i = 0; i < app->n_maps; i++)
		if (app->maps[i].va == (uintptr_t)msl->base_va)
			return;
	if (app->n_maps == RTE_DIM(app->maps)) {
		app->maps_overflow = 1;
		return;
	}
	app->maps[app->n_maps].va = (uintptr_t)msl->base_va;
	app->maps[app->n_maps].len = msl->len;
	app->n_maps++;
}

/*
 * Device memory analysed by the CPU: map every chunk of the pool (one
 * registered external memory segment list each) with rte_gpu_mem_cpu_map.
 * On real hardware that is the GPU's BAR through gpudp_pin: it works, slowly.
 */
static int
map_for_cpu(struct cap_app *app)
{
	uint64_t total = 0;
	unsigned int i;

	rte_mempool_obj_iter(app->pool, collect_chunk, app);
	if (app->n_maps == 0) {
		CAP_LOG(ERR, "--mem device with the CPU engine: the pool's memory was not found");
		return -1;
	}
	if (app->maps_overflow) {
		fprintf(stderr, "gpudp-capture: --mem device with the CPU engine: the pool spans "
			"more than %u memory chunks, more than can be mapped for the CPU; use "
			"fewer --mbufs, analyse on the GPU, or use --mem pinned or staged\n",
			(unsigned int)RTE_DIM(app->maps));
		return -1;
	}
	for (i = 0; i < app->n_maps; i++) {
		struct cap_cpu_map *m = &app->maps[i];

		m->cpu = rte_gpu_mem_cpu_map(app->gpu_id, m->len, (void *)(uintptr_t)m->va);
		if (m->cpu == NULL) {
			char why[160] = "";

#ifdef GPUDP_HAS_CUDA
			if (gpudp_gpu_cpu_map_available(why, sizeof(why)) == 0)
				why[0] = '\0';
#endif
			if (why[0] == '\0')
				snprintf(why, sizeof(why), "%s", rte_strerror(abs(rte_errno)));
			fprintf(stderr, "gpudp-capture: --mem device with the CPU engine: cannot "
				"map GPU memory for the CPU (rte_gpu_mem_cpu_map of %" PRIu64 " bytes "
				"at 0x%" PRIx64 "): %s; analyse on the GPU, or use --mem pinned or "
				"staged\n", m->len, m->va, why);
			return -1;
		}
		total += m->len;
	}
	CAP_LOG(NOTICE, "--mem device on the CPU engine: %" PRIu64 " bytes of GPU memory in %u "
		"chunk%s mapped with rte_gpu_mem_cpu_map; the CPU reads every packet in place "
		"through that mapping (slow on real hardware: uncached reads across PCIe)", total,
		app->n_maps, app->n_maps == 1 ? "" : "s");
	return 0;
}

/* After the ports are closed: unmap, destroy the pool, check nothing is left. */
static int
release_pool(struct cap_app *app)
{
	unsigned int i;
	int rc = 0;

	for (i = 0; i < app->n_maps; i++)
		if (app->maps[i].cpu != NULL &&
		    rte_gpu_mem_cpu_unmap(app->gpu_id, (void *)(uintptr_t)app->maps[i].va) != 0) {
			CAP_LOG(ERR, "rte_gpu_mem_cpu_unmap(0x%" PRIx64 "): %s", app->maps[i].va,
				rte_strerror(rte_errno));
			rc = -1;
		}
	app->n_maps = 0;
	if (app->gpool == NULL)
		return rc;
	if (gpudp_pool_destroy(app->gpool) != 0) {
		CAP_LOG(ERR, "the --mem %s pool cannot be destroyed: mbufs are still out",
			cap_mem_name(app->mem));
		return -1;
	}
	app->gpool = NULL;
	app->pool = NULL;
#ifdef GPUDP_HAS_CUDA
	{
		struct gpudp_gpu_props pr;

		if (gpudp_gpu_props_get(app->gpu_id, &pr) == 0) {
			int left = pr.n_allocs || pr.n_registered || pr.n_cpu_mapped;

			rte_log(left ? RTE_LOG_ERR : RTE_LOG_NOTICE, cap_logtype,
				"gpudp-capture: --mem %s pool released (%zu bytes of GPU memory, %zu "
				"bytes registered); GPU %d (%s): %zu allocations, %zu registrations, "
				"%zu CPU mappings left\n", cap_mem_name(app->mem), app->pinfo.gpu_bytes,
				app->mem == CAP_MEM_HOST ? app->pinfo.data_bytes : (size_t)0,
				app->conf.gpu, pr.pci_addr, pr.n_allocs, pr.n_registered,
				pr.n_cpu_mapped);
			if (left)
				rc = -1;
		}
	}
#endif
	return rc;
}

/* ------------------------------------------------------------------ report */

static void
port_stats(const struct cap_app *app, struct cap_report *r)
{
	unsigned int i;

	for (i = 0; i < app->n_ports; i++) {
		struct rte_eth_stats st;

		if (rte_eth_stats_get(app->ports[i].id, &st) != 0)
			continue;
		r->rx_missed += st.imissed;
		r->rx_errors += st.ierrors;
		r->rx_nombuf += st.rx_nombuf;
	}
}

static int
report(struct cap_app *app, double elapsed, int final)
{
	struct cap_report r = {
		.input = app->input_desc, .engine = app->engine_name,
		.engine_note = app->engine_note[0] ? app->engine_note : NULL,
		.eng = &app->eng.st, .a = app->result, .final = final, .elapsed_s = elapsed,
		.rx_pkts = app->rx_total, .staging_drops = app->staging_drops,
		.multiseg = app->multiseg, .pmd_cut = app->pmd_cut,
		.expected_pkts = app->expected_total,
		.file_truncated = app->file_truncated, .filter_expr = app->conf.filter_expr,
		.filter_file = app->conf.filter_out, .filter_written = app->filter_written,
		.filter_unreadable = app->unreadable_written,
		.top_n = app->conf.top,
		.mem = cap_mem_name(app->mem),
		.mem_note = app->mem_note[0] ? app->mem_note : NULL,
		.pin = app->mem == CAP_MEM_DEVICE ? gpudp_pin_backend_name(app->pinfo.pin) : NULL,
		.pool_mbufs = app->conf.mbufs, .pool_data_room = app->conf.data_room,
		.pool_gpu_bytes = app->pinfo.gpu_bytes, .pool_host_bytes = app->pinfo.host_bytes,
		.pins_created = -1, .pins_running = -1, .cpu_mapped = app->n_maps > 0,
	};
	int rc = cap_engine_collect(&app->eng, app->result);

	r.staging_drops += app->eng.st.unreadable;
	if (app->mem == CAP_MEM_DEVICE) {
		struct gpudp_regcache_stats st;

		gpudp_mem_pin_stats(&st);
		r.pins_created = (int64_t)app->pins_created;
		r.pins_running = (int64_t)(st.pins - app->pins_created);
	}

	if (rc != 0 && rc != -ENOSPC) {
		CAP_LOG(ERR, "reading the results failed: %s", app->eng.err);
		return rc;
	}
	port_stats(app, &r);
	if (!app->conf.quiet)
		cap_report_table(stdout, &r);
	fflush(stdout);
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
static int
verify_results(struct cap_app *app)
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

/* -------------------------------------------------------------- main loop */

/* An empty mbuf pool makes net_pcap drop a record it already read: the
 * positions of snapped records no longer line up, so stop correcting. */
static void
check_nombuf(struct cap_app *app)
{
	unsigned int i;

	for (i = 0; i < app->n_ports; i++) {
		struct rte_eth_stats st;

		if (rte_eth_stats_get(app->ports[i].id, &st) == 0 && st.rx_nombuf > 0) {
			CAP_LOG(WARNING, "port %u: mbuf pool ran empty (%" PRIu64 " times): "
				"original lengths of snapped records are no longer known; "
				"raise --mbufs", app->ports[i].id, st.rx_nombuf);
			app->snaps_unreliable = 1;
			return;
		}
	}
}

static uint64_t
realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * net_pcap gives the captured length only (pkt_len = caplen): the original
 * length of a snapped record comes from the file inspection, by position.
 */
static uint32_t
wire_len(struct cap_app *app, struct cap_rxq *q, uint32_t caplen)
{
	uint64_t i = q->count++;

	if (q->next < q->n_snaps && q->snaps[q->next].index == i && !app->snaps_unreliable)
		return q->snaps[q->next++].wirelen;
	return caplen;
}

/* The capture time of a packet: the PMD's (net_pcap: the file's), else now. */
static uint64_t
pkt_ts(const struct cap_app *app, const struct cap_port *p, const struct rte_mbuf *m)
{
	if (app->ts_off >= 0 && p->ts_mult != 0 && (m->ol_flags & app->ts_flag))
		return *RTE_MBUF_DYNFIELD(m, app->ts_off, rte_mbuf_timestamp_t *) * p->ts_mult;
	return realtime_ns();
}

/*
 * Copy the @p len bytes the segments of a (possibly chained) mbuf hold into
 * the batch, never more; 1 if the batch is full.
 */
static int
stage(struct cap_app *app, struct cap_batch *b, const struct cap_port *p, struct rte_mbuf *m,
      uint32_t len, uint32_t wirelen)
{
	const struct rte_mbuf *s;
	uint32_t left = len;
	uint8_t *dst;

	dst = cap_batch_alloc(b, len, wirelen, pkt_ts(app, p, m));
	if (dst == NULL)
		return 1;
	if (m->nb_segs > 1)
		app->multiseg++;
	for (s = m; s != NULL && left > 0; s = s->next) {
		uint32_t k = RTE_MIN((uint32_t)s->data_len, left);

		memcpy(dst, rte_pktmbuf_mtod(s, const uint8_t *), k);
		dst += k;
		left -= k;
	}
	return 0;
}

/*
 * A frame whose PMD delivered @p held of its pkt_len bytes: only those are
 * analysed and written, as a snapped packet whose original length is at
 * least pkt_len; counted in pmd_cut, and said once.
 */
static void
note_pmd_cut(struct cap_app *app, const struct cap_port *p, const struct rte_mbuf *m, uint32_t held,
	uint32_t *wirelen)
{
	if (app->pmd_cut++ == 0)
		CAP_LOG(WARNING, "port %u: a %u-byte packet arrived with only %u bytes in its "
			"mbufs (DPDK 22.11's net_pcap keeps a record over 65535 bytes modulo "
			"65536): such packets are analysed as snapped to what arrived and "
			"counted in pmd_cut", p->id, rte_pktmbuf_pkt_len(m), held);
	*wirelen = RTE_MAX(*wirelen, rte_pktmbuf_pkt_len(m));
}

/* In place: a reference to the mbuf's data, where the PMD put it; 1 if the batch is full. */
static int
take_ref(struct cap_app *app, struct cap_batch *b, const struct cap_port *p, struct rte_mbuf *m,
	 uint32_t wirelen)
{
	return cap_batch_add_ref(b, (uintptr_t)rte_pktmbuf_mtod(m, void *), m->data_len, wirelen,
				 pkt_ts(app, p, m), m);
}

/* On an engine failure: in place, the batch being filled still holds mbufs. */
static void
drop_batch(struct cap_app *app, struct cap_batch *b)
{
	if (b != NULL && b->inplace && b->n > 0) {
		batch_release(app, b->owner, b->n);
		b->n = 0;
	}
}

/*
 * In place, mbufs stay out until the engine is done with their batch: before
 * a burst, make sure the pool can refill the rx ring, finishing batches in
 * flight (or submitting the one being filled) while it cannot.
 * @return 0, or -EIO (engine failure) with *bp possibly replaced
 */
static int
ensure_mbufs(struct cap_app *app, struct cap_batch **bp)
{
	unsigned int need = app->conf.burst;
	int rc;

	while (rte_mempool_avail_count(app->pool) < need) {
		rc = cap_engine_reap(&app->eng);
		if (rc < 0)
			return -EIO;
		if (rc > 0)
			continue;
		if ((*bp)->n == 0)
			break; /* all in rx rings: a smaller burst */
		rc = cap_engine_submit(&app->eng, *bp);
		if (rc != 0)
			drop_batch(app, *bp); /* its mbufs, before the pointer is lost */
		*bp = rc == 0 ? cap_engine_get_batch(&app->eng) : NULL;
		if (*bp == NULL)
			return -EIO;
	}
	return 0;
}

static int
run(struct cap_app *app)
{
	const struct cap_conf *c = &app->conf;
	struct rte_mbuf *pkts[512];
	struct cap_batch *b;
	uint64_t hz = rte_get_timer_hz(), start = rte_get_timer_cycles(), now;
	uint64_t last_rx = start, next_progress, next_period, batch_start = 0;
	int inplace = app->mem != CAP_MEM_STAGED;
	unsigned int i, q;
	int rc;

	next_progress = start + (uint64_t)(c->progress_s * hz);
	next_period = start + (uint64_t)(c->period_s * hz);
	b = cap_engine_get_batch(&app->eng);
	if (b == NULL)
		return -EIO;
	while (!stop_requested) {
		uint32_t got = 0;

		for (i = 0; i < app->n_ports; i++) {
			struct cap_port *p = &app->ports[i];

			for (q = 0; q < p->nb_rxq; q++) {
				uint16_t want = (uint16_t)c->burst, n, k;

				if (inplace) {
					if (ensure_mbufs(app, &b) != 0) {
						CAP_LOG(ERR, "analysis engine failed: %s", app->eng.err);
						drop_batch(app, b);
						return -EIO;
					}
					want = (uint16_t)RTE_MIN((unsigned int)want,
						rte_mempool_avail_count(app->pool));
					if (want == 0)
						continue;
				}
				/* the batch is submitted only after rx_burst returned its packets */
				n = rte_eth_rx_burst(p->id, q, pkts, want);
				for (k = 0; k < n; k++) {
					struct rte_mbuf *m = pkts[k];
					uint32_t len = rte_pktmbuf_pkt_len(m);
					uint32_t wl = wire_len(app, &p->rxq[q], len);
					int full;

					if (unlikely(m->nb_segs > 1 || m->data_len != len)) {
						/* what the segments carry of the packet */
						len = (uint32_t)RTE_MIN(gpudp_mbuf_held(m, NULL),
								      (uint64_t)len);
						if (len < rte_pktmbuf_pkt_len(m))
							note_pmd_cut(app, p, m, len, &wl);
					}
					if (len > b->data_cap ||
					    (inplace && m->nb_segs > 1)) {
						if (inplace && m->nb_segs > 1 && !app->chain_warned++)
							CAP_LOG(WARNING, "port %u: a %u-byte packet "
								"arrived in %u chained mbufs: it cannot "
								"be analysed in place and is counted in "
								"drops.staging (raise --data-room)",
								p->id, rte_pktmbuf_pkt_len(m),
								m->nb_segs);
						app->staging_drops++;
						rte_pktmbuf_free(m);
						continue;
					}
					full = inplace ? take_ref(app, b, p, m, wl) :
						stage(app, b, p, m, len, wl);
					if (full) {
						rc = cap_engine_submit(&app->eng, b);
						if (rc != 0)
							drop_batch(app, b);
						b = rc == 0 ? cap_engine_get_batch(&app->eng) : NULL;
						if (b == NULL) {
							CAP_LOG(ERR, "analysis engine failed: %s",
								app->eng.err);
							rte_pktmbuf_free_bulk(&pkts[k], n - k);
							return -EIO;
						}
						batch_start = rte_get_timer_cycles();
						if (inplace)
							take_ref(app, b, p, m, wl);
						else
							stage(app, b, p, m, len, wl);
					}
					if (b->n == 1)
						batch_start = rte_get_timer_cycles();
					if (!inplace)
						rte_pktmbuf_free(m);
				}
				p->rx += n;
				got += n;
			}
		}
		app->rx_total += got;
		now = rte_get_timer_cycles();
		if (got == 0 && !app->any_live && !app->snaps_unreliable)
			check_nombuf(app);
		if (got > 0)
			last_rx = now;
		/* live ports: do not hold a partial batch for more than 1 ms */
		if (b->n > 0 && (b->n == b->max_pkts || (got == 0 && app->any_live &&
							   now - batch_start > hz / 1000))) {
			rc = cap_engine_submit(&app->eng, b);
			if (rc != 0)
				drop_batch(app, b);
			b = rc == 0 ? cap_engine_get_batch(&app->eng) : NULL;
			if (b == NULL) {
				CAP_LOG(ERR, "analysis engine failed: %s", app->eng.err);
				return -EIO;
			}
		}
		if (c->max_packets && app->rx_total >= c->max_packets)
			break;
		if (c->duration_s > 0 && now - start >= (uint64_t)(c->duration_s * hz))
			break;
		if (!app->any_live && got == 0) {
			/* capture files: net_pcap signals no end of file */
			int all = 1;

			for (i = 0; i < app->n_ports; i++)
				all &= app->ports[i].rx >= app->ports[i].expected;
			if (all || now - last_rx >= (uint64_t)c->idle_ms * hz / 1000)
				break;
		}
		if (c->progress_s > 0 && !app->any_live && now >= next_progress) {
			double el = (double)(now - start) / hz;

			fprintf(stderr, "progress: %" PRIu64 "/%" PRIu64 " packets (%.1f %%), %.0f "
				"packets/s\n", app->rx_total, app->expected_total,
				app->expected_total ? 100.0 * app->rx_total / app->expected_total : 0,
				el > 0 ? app->rx_total / el : 0);
			next_progress = now + (uint64_t)(c->progress_s * hz);
		}
		if (c->period_s > 0 && app->any_live && now >= next_period) {
			if (b->n > 0) {
				rc = cap_engine_submit(&app->eng, b);
				if (rc != 0)
					drop_batch(app, b);
				b = rc == 0 ? cap_engine_get_batch(&app->eng) : NULL;
				if (b == NULL)
					return -EIO;
			}
			report(app, (double)(now - start) / hz, 0);
			next_period = rte_get_timer_cycles() + (uint64_t)(c->period_s * hz);
		}
	}
	if (stop_requested)
		CAP_LOG(NOTICE, "interrupted: final counters follow");
	rc = cap_engine_submit(&app->eng, b);
	if (rc != 0)
		drop_batch(app, b);
	if (rc == 0)
		rc = cap_engine_flush(&app->eng);
	if (rc != 0) {
		CAP_LOG(ERR, "analysis engine failed: %s", app->eng.err);
		return rc;
	}
	rc = report(app, (double)(rte_get_timer_cycles() - start) / hz, 1);
	if (rc == 0 && app->verify != NULL)
		rc = verify_results(app);
	return rc;
}

int
main(int argc, char **argv)
{
	static struct cap_app app;
	char *prog = argv[0];
	unsigned int i;
	int ret, rc, n_eal;

	for (i = 1; i < (unsigned int)argc; i++) {
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			/* --help before or after "--" works without EAL */
			int j, after = 0;

			for (j = 1; j < (int)i; j++)
				after |= strcmp(argv[j], "--") == 0;
			if (after || strcmp(argv[i], "--help") == 0) {
				cap_conf_usage(stdout, "gpudp-capture");
				return 0;
			}
		}
	}
	/* app options first: usage errors exit 2 before EAL starts */
	for (n_eal = 1; n_eal < argc && strcmp(argv[n_eal], "--") != 0; n_eal++)
		;
	{
		int app_argc = n_eal < argc ? argc - n_eal : 1;
		char **app_argv = n_eal < argc ? &argv[n_eal] : &prog;

		app_argv[0] = prog;
		rc = cap_conf_parse(&app.conf, app_argc, app_argv);
		if (n_eal < argc)
			argv[n_eal] = (char *)"--";
		if (rc != 0)
			return rc > 0 ? GPUDP_EXIT_OK : GPUDP_EXIT_USAGE;
	}
	/* --pcap FILE: add "--vdev net_pcap_gpudpN,rx_pcap=FILE" to the EAL arguments */
	{
		static char vdev_args[CAP_MAX_PCAP][600];
		static char *eal_argv[512];
		int k = 0;

		if (n_eal + 2 * (int)app.conf.n_pcap >= (int)RTE_DIM(eal_argv)) {
			fprintf(stderr, "gpudp-capture: too many EAL arguments\n");
			return GPUDP_EXIT_USAGE;
		}
		for (k = 0; k < n_eal; k++)
			eal_argv[k] = argv[k];
		for (i = 0; i < app.conf.n_pcap; i++) {
			snprintf(vdev_args[i], sizeof(vdev_args[i]), "net_pcap_gpudp%u,rx_pcap=%s", i,
				 app.conf.pcap[i]);
			eal_argv[k++] = (char *)"--vdev";
			eal_argv[k++] = vdev_args[i];
		}
		eal_argv[k] = NULL;
		if (scan_vdevs(&app, k, eal_argv) != 0)
			return GPUDP_EXIT_USAGE;
		if (check_files(&app) != 0)
			return GPUDP_EXIT_FAILURE;
		ret = rte_eal_init(k, eal_argv);
	}
	if (ret < 0) {
		char why[512];

		fprintf(stderr, "gpudp-capture: EAL initialisation failed: %s\n",
			gpudp_eal_why(rte_errno, rte_eal_get_runtime_dir(), "", why, sizeof(why)));
		return GPUDP_EXIT_FAILURE;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	rc = GPUDP_EXIT_FAILURE;
	app.ts_off = rte_mbuf_dynfield_lookup(RTE_MBUF_DYNFIELD_TIMESTAMP_NAME, NULL);
	{
		int bit = rte_mbuf_dynflag_lookup(RTE_MBUF_DYNFLAG_RX_TIMESTAMP_NAME, NULL);

		app.ts_flag = bit >= 0 ? RTE_BIT64(bit) : 0;
		if (bit < 0)
			app.ts_off = -1;
	}
	ret = collect_ports(&app);
	if (ret != 0) {
		rc = ret == -2 ? GPUDP_EXIT_USAGE : GPUDP_EXIT_FAILURE;
		goto out;
	}
	/* --mem: engine and memory type decide each other (see resolve_mem) */
	app.gpu_id = app.conf.mem == CAP_CONF_MEM_STAGED ? -1 : find_gpu(&app);
	{
		char why[256];
		int gpu_engine = !app.conf.force_cpu && gpu_engine_possible(why, sizeof(why));

		ret = resolve_mem(&app, gpu_engine);
		if (ret != 0) {
			rc = ret;
			goto out;
		}
	}
	if (setup_engine(&app) != 0) {
		rc = app.conf.engine == CAP_CONF_ENGINE_GPU ? GPUDP_EXIT_NO_GPU : GPUDP_EXIT_FAILURE;
		goto out;
	}
	if (app.conf.mem == CAP_CONF_MEM_AUTO && app.mem != CAP_MEM_STAGED &&
	    strcmp(app.engine_name, "gpu") != 0) {
		/* auto chose GPU memory for the GPU engine, which then failed */
		cap_engine_destroy(&app.eng);
		app.mem = CAP_MEM_STAGED;
		snprintf(app.mem_note, sizeof(app.mem_note), "--mem auto: staged, because the "
			 "GPU engine failed");
		CAP_LOG(NOTICE, "%s", app.mem_note);
		if (setup_engine(&app) != 0)
			goto out;
	}
	if (create_pool(&app) != 0)
		goto out;
	if (setup_ports(&app) != 0)
		goto out;
	describe_input(&app);
	if (app.mem == CAP_MEM_DEVICE && strcmp(app.engine_name, "cpu") == 0 &&
	    map_for_cpu(&app) != 0)
		goto out;
	app.result = gpudp_analysis_create(app.conf.flows, &app.conf.filter);
	if (app.result == NULL) {
		CAP_LOG(ERR, "out of memory for the flow table (--flows %u)", app.conf.flows);
		goto out;
	}
	if (app.conf.filter_out != NULL) {
		app.out = gpudp_pcapng_open(app.conf.filter_out, "gpudp-capture",
					    app.input_desc, 0);
		if (app.out == NULL) {
			fprintf(stderr, "gpudp-capture: --filter-out: cannot create '%s': %s\n",
				app.conf.filter_out, strerror(errno));
			goto out;
		}
	}
	if (app.conf.verify) {
		if (strcmp(app.engine_name, "gpu") != 0) {
			CAP_LOG(NOTICE, "--verify: no GPU in use, nothing to verify (exit 77)");
			rc = GPUDP_EXIT_NO_GPU;
			cap_engine_destroy(&app.eng);
			goto out;
		}
		app.verify = gpudp_analysis_create(app.conf.flows, &app.conf.filter);
		if (app.verify == NULL)
			goto out;
	}
	CAP_LOG(INFO, "analysing on %s, %s memory%s; %s", app.eng.st.device,
		cap_mem_name(app.mem), app.mem == CAP_MEM_STAGED ? " (copied into batches)" :
		" (in place)", app.any_live ? "live input: Ctrl-C stops" : "capture file input");
	rc = run(&app) == 0 ? GPUDP_EXIT_OK : GPUDP_EXIT_FAILURE;
out:
	/* every batch done (in place: its mbufs freed) before the ports close */
	cap_engine_destroy(&app.eng);
	if (app.out != NULL && gpudp_pcapng_close(app.out) != 0) {
		fprintf(stderr, "gpudp-capture: --filter-out %s: write error\n",
			app.conf.filter_out);
		rc = GPUDP_EXIT_FAILURE;
	}
	if (app.out_failed)
		rc = GPUDP_EXIT_FAILURE;
	/* a GPU pool is destroyed while its ports exist (its dma_unmap needs
	 * them) if stopping them gave every mbuf back, else after closing */
	for (i = 0; i < app.n_ports; i++)
		rte_eth_dev_stop(app.ports[i].id);
	if (app.gpool != NULL && rte_mempool_full(app.pool) && release_pool(&app) != 0)
		rc = GPUDP_EXIT_FAILURE;
	for (i = 0; i < app.n_ports; i++)
		rte_eth_dev_close(app.ports[i].id);
	if (release_pool(&app) != 0)
		rc = GPUDP_EXIT_FAILURE;
	gpudp_analysis_free(app.result);
	gpudp_analysis_free(app.verify);
	for (i = 0; i < app.n_files; i++)
		capfile_info_free(&app.files[i].info);
	rte_eal_cleanup();
	return rc;
}

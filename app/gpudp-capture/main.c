/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpudp-capture: the capture-to-GPU demo.
 *
 *   gpudp-capture [EAL options] -- [options]
 *
 * One lcore polls every selected port, copies each received packet into the
 * current staged batch (linearising chained mbufs), frees the mbuf, and hands
 * full batches to the analysis engine (GPU: copy + kernel on a stream; CPU:
 * gpudp_analysis_batch). Finished batches come back in order with their
 * filter bitmap; matching packets go to the pcapng writer with their capture
 * timestamps. At the end (SIGINT, end of the input files, --duration,
 * --max-packets) the engine's tables are read back and reported.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_log.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>

#ifdef GPUDP_HAS_CUDA
#include "gpudp_cuda.h"
#endif
#include "capfile.h"
#include "engine.h"
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

/* Original lengths of snapped records of the file an rx queue reads. */
struct cap_rxq {
	const struct capfile_snap *snaps;
	size_t n_snaps, next;
	uint64_t count;        /* packets received on the queue */
};

struct cap_port {
	uint16_t id;
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
		int rc = capfile_inspect(f->path, app->conf.data_room, &f->info, err, sizeof(err));

		if (rc != 0) {
			fprintf(stderr, "gpudp-capture: input error: %s\n", err);
			return -1;
		}
		if (f->info.linktype != CAPFILE_LINKTYPE_ETHERNET || f->info.mixed_linktypes) {
			fprintf(stderr, "gpudp-capture: input error: %s: link type %u (%s) is not "
				"Ethernet; gpudp-capture analyses Ethernet frames only\n", f->path,
				f->info.linktype, capfile_linktype_name(f->info.linktype));
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
	rte_eth_dev_get_name_by_port(p->id, p->name);
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
	if (info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_SCATTER)
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
		rc = rte_eth_rx_queue_setup(p->id, q, nrxd, rte_eth_dev_socket_id(p->id), NULL,
					    app->pool);
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
	CAP_LOG(INFO, "port %u (%s, %s): %u rx queue%s, %s", p->id, p->name, info.driver_name,
		p->nb_rxq, p->nb_rxq == 1 ? "" : "s",
		p->live ? "live" : "capture file");
	return 0;
}

static int
setup_ports(struct cap_app *app)
{
	uint16_t id;
	unsigned int i;
	size_t off = 0;

	RTE_ETH_FOREACH_DEV(id) {
		if (!port_selected(&app->conf, id))
			continue;
		if (app->n_ports == CAP_MAX_PORTS)
			break;
		app->ports[app->n_ports].id = id;
		if (setup_port(app, &app->ports[app->n_ports]) != 0)
			return -1;
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
	return 0;
}

/* ----------------------------------------------------------------- engine */

static void
batch_done(void *arg, const struct cap_batch *b)
{
	struct cap_app *app = arg;
	uint32_t i;

	if (app->verify != NULL) {
		/* the same batch on the CPU: filter bits must agree packet by packet */
		uint32_t words = (b->n + 31) / 32, *bits = malloc(4 * (size_t)(words ? words : 1));

		if (bits == NULL || (gpudp_analysis_batch(app->verify, b->desc, b->data, b->n, bits),
				     memcmp(bits, b->match, 4 * (size_t)words) != 0))
			app->verify_mismatch++;
		free(bits);
	}
	if (app->out == NULL || b->n_match == 0 || app->out_failed)
		return;
	for (i = 0; i < b->n; i++) {
		const struct gpudp_an_pkt_desc *d = &b->desc[i];

		if (!cap_batch_matched(b, i))
			continue;
		if (gpudp_pcapng_write(app->out, b->data + d->off, d->caplen, d->wirelen,
				       d->ts_ns) != 0) {
			CAP_LOG(ERR, "--filter-out %s: write failed; no more packets are written",
				app->conf.filter_out);
			app->out_failed = 1;
			return;
		}
		app->filter_written++;
	}
}

static int
setup_engine(struct cap_app *app)
{
	struct cap_engine_conf ec = {
		.batch_pkts = app->conf.batch_pkts, .batch_bytes = app->conf.batch_bytes,
		.flow_capacity = app->conf.flows, .filter = app->conf.filter,
		.gpu_device = (int)app->conf.gpu, .inflight = app->conf.inflight,
		.done = batch_done, .done_arg = app,
	};
	char err[256];
	int rc;

	if (app->conf.force_cpu) {
		snprintf(app->engine_note, sizeof(app->engine_note), "--cpu given");
		CAP_LOG(NOTICE, "--cpu given; analysing on the CPU");
	} else {
#ifdef GPUDP_HAS_CUDA
		rc = gpudp_cuda_init();
		if (rc == 0) {
			rc = cap_engine_create(&app->eng, "gpu", &ec, err, sizeof(err));
			if (rc == 0) {
				app->engine_name = "gpu";
				return 0;
			}
			snprintf(app->engine_note, sizeof(app->engine_note),
				 "GPU engine failed: %s", err);
		} else {
			snprintf(app->engine_note, sizeof(app->engine_note), "no GPU: %s",
				 gpudp_cuda_last_error());
		}
#else
		snprintf(app->engine_note, sizeof(app->engine_note),
			 "built without CUDA");
#endif
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
		.multiseg = app->multiseg, .expected_pkts = app->expected_total,
		.file_truncated = app->file_truncated, .filter_expr = app->conf.filter_expr,
		.filter_file = app->conf.filter_out, .filter_written = app->filter_written,
		.top_n = app->conf.top,
	};
	int rc = cap_engine_collect(&app->eng, app->result);

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

/* --verify: the GPU's totals and flows must equal the CPU's, exactly. */
static int
verify_results(struct cap_app *app)
{
	struct gpudp_flow_record *fg = NULL, *fc = NULL;
	size_t ng = 0, nc = 0;
	int same;

	same = memcmp(&app->result->ctr, &app->verify->ctr, sizeof(app->result->ctr)) == 0 &&
	       gpudp_analysis_flows(app->result, &fg, &ng) == 0 &&
	       gpudp_analysis_flows(app->verify, &fc, &nc) == 0 && ng == nc &&
	       memcmp(fg, fc, ng * sizeof(*fg)) == 0 && app->verify_mismatch == 0;
	free(fg);
	free(fc);
	if (!same) {
		CAP_LOG(ERR, "--verify: GPU and CPU results DIFFER (%" PRIu64 " packets, %zu/%zu "
			"flows, %" PRIu64 " batches with different filter bits)",
			app->result->ctr.pkts, ng, nc, app->verify_mismatch);
		return -EIO;
	}
	CAP_LOG(NOTICE, "--verify: GPU and CPU results are identical (%" PRIu64 " packets, %zu "
		"flows, every filter bit)", app->result->ctr.pkts, ng);
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

/* Copy one (possibly chained) mbuf into the batch; 1 if the batch is full. */
static int
stage(struct cap_app *app, struct cap_batch *b, const struct cap_port *p, struct rte_mbuf *m,
      uint32_t wirelen)
{
	uint32_t len = rte_pktmbuf_pkt_len(m);
	const struct rte_mbuf *s;
	uint64_t ts;
	uint8_t *dst;

	if (app->ts_off >= 0 && p->ts_mult != 0 && (m->ol_flags & app->ts_flag))
		ts = *RTE_MBUF_DYNFIELD(m, app->ts_off, rte_mbuf_timestamp_t *) * p->ts_mult;
	else
		ts = realtime_ns();
	dst = cap_batch_alloc(b, len, wirelen, ts);
	if (dst == NULL)
		return 1;
	if (m->nb_segs > 1)
		app->multiseg++;
	for (s = m; s != NULL; s = s->next) {
		memcpy(dst, rte_pktmbuf_mtod(s, const uint8_t *), s->data_len);
		dst += s->data_len;
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
				uint16_t n = rte_eth_rx_burst(p->id, q, pkts, (uint16_t)c->burst);
				uint16_t k;

				for (k = 0; k < n; k++) {
					struct rte_mbuf *m = pkts[k];
					uint32_t wl = wire_len(app, &p->rxq[q],
							       rte_pktmbuf_pkt_len(m));

					if (rte_pktmbuf_pkt_len(m) > b->data_cap) {
						app->staging_drops++;
					} else if (stage(app, b, p, m, wl) != 0) {
						rc = cap_engine_submit(&app->eng, b);
						b = rc == 0 ? cap_engine_get_batch(&app->eng) : NULL;
						if (b == NULL) {
							CAP_LOG(ERR, "analysis engine failed: %s",
								app->eng.err);
							rte_pktmbuf_free_bulk(&pkts[k], n - k);
							return -EIO;
						}
						batch_start = rte_get_timer_cycles();
						stage(app, b, p, m, wl);
					}
					if (b->n == 1)
						batch_start = rte_get_timer_cycles();
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
			return rc > 0 ? 0 : 2;
	}
	/* --pcap FILE: add "--vdev net_pcap_gpudpN,rx_pcap=FILE" to the EAL arguments */
	{
		static char vdev_args[CAP_MAX_PCAP][600];
		static char *eal_argv[512];
		int k = 0;

		if (n_eal + 2 * (int)app.conf.n_pcap >= (int)RTE_DIM(eal_argv)) {
			fprintf(stderr, "gpudp-capture: too many EAL arguments\n");
			return 2;
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
			return 2;
		if (check_files(&app) != 0)
			return 1;
		ret = rte_eal_init(k, eal_argv);
	}
	if (ret < 0) {
		fprintf(stderr, "gpudp-capture: EAL initialisation failed: %s\n",
			rte_strerror(rte_errno));
		return 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	rc = 1;
	app.ts_off = rte_mbuf_dynfield_lookup(RTE_MBUF_DYNFIELD_TIMESTAMP_NAME, NULL);
	{
		int bit = rte_mbuf_dynflag_lookup(RTE_MBUF_DYNFLAG_RX_TIMESTAMP_NAME, NULL);

		app.ts_flag = bit >= 0 ? RTE_BIT64(bit) : 0;
		if (bit < 0)
			app.ts_off = -1;
	}
	app.pool = rte_pktmbuf_pool_create("cap_rx", app.conf.mbufs, 256, 0,
					   (uint16_t)(app.conf.data_room + RTE_PKTMBUF_HEADROOM),
					   (int)rte_socket_id());
	if (app.pool == NULL) {
		CAP_LOG(ERR, "cannot create the mbuf pool (%u mbufs of %u bytes): %s",
			app.conf.mbufs, app.conf.data_room, rte_strerror(rte_errno));
		goto out;
	}
	ret = setup_ports(&app);
	if (ret != 0) {
		rc = ret == -2 ? 2 : 1;
		goto out;
	}
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
	if (setup_engine(&app) != 0)
		goto out;
	if (app.conf.verify) {
		if (strcmp(app.engine_name, "gpu") != 0) {
			CAP_LOG(NOTICE, "--verify: no GPU in use, nothing to verify (exit 77)");
			rc = 77;
			cap_engine_destroy(&app.eng);
			goto out;
		}
		app.verify = gpudp_analysis_create(app.conf.flows, &app.conf.filter);
		if (app.verify == NULL)
			goto out;
	}
	CAP_LOG(INFO, "analysing on %s; %s", app.eng.st.device, app.any_live ?
		"live input: Ctrl-C stops" : "capture file input");
	rc = run(&app) == 0 ? 0 : 1;
	cap_engine_destroy(&app.eng);
out:
	if (app.out != NULL && gpudp_pcapng_close(app.out) != 0) {
		fprintf(stderr, "gpudp-capture: --filter-out %s: write error\n",
			app.conf.filter_out);
		rc = 1;
	}
	if (app.out_failed)
		rc = 1;
	for (i = 0; i < app.n_ports; i++) {
		rte_eth_dev_stop(app.ports[i].id);
		rte_eth_dev_close(app.ports[i].id);
	}
	gpudp_analysis_free(app.result);
	gpudp_analysis_free(app.verify);
	for (i = 0; i < app.n_files; i++)
		capfile_info_free(&app.files[i].info);
	rte_eal_cleanup();
	return rc;
}

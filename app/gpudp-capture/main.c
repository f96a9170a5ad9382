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
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_log.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>

#include "app_metrics.h"
#include "cap_app.h"
#include "gpudp_app.h"
#include "gpudp_app_gpu.h"
#include "gpudp_capture.h"

RTE_LOG_REGISTER(cap_logtype, gpudp.capture, INFO);

volatile sig_atomic_t app_stop_requested;

/*
 * App options first (the words after "--"), so that usage errors exit 2
 * before EAL starts.
 * @param n_eal  the number of EAL arguments (argv[0] included)
 * @return -1 to go on, else the exit code
 */
static int
parse_app_args(struct cap_app *app, int argc, char **argv, int *n_eal)
{
	struct gpudp_app_args args;
	int rc;

	if (gpudp_app_args_split(argc, argv, &args) != 0)
		return GPUDP_EXIT_FAILURE;
	rc = cap_conf_parse(&app->conf, args.app_argc, args.app_argv);
	gpudp_app_args_free(&args); /* the conf points into argv's strings */
	*n_eal = args.eal_argc;
	if (rc != 0)
		return rc > 0 ? GPUDP_EXIT_OK : GPUDP_EXIT_USAGE;
	return -1;
}

/*
 * Whether the EAL arguments (argv[1..n_eal)) add ports of their own: a
 * --vdev, or a device allowed with -a/--allow. @p what gets the first one.
 * @return 1 if they do, else 0
 */
static int
eal_adds_ports(int n_eal, char **argv, char *what, size_t what_len)
{
	static const char *const opts[] = { "--vdev", "-a", "--allow" };
	unsigned int j;
	int k;

	for (k = 1; k < n_eal; k++)
		for (j = 0; j < RTE_DIM(opts); j++) {
			size_t n = strlen(opts[j]);
			const char *v;

			if (strncmp(argv[k], opts[j], n) != 0)
				continue;
			if (argv[k][n] == '\0')
				v = k + 1 < n_eal ? argv[k + 1] : "";
			else if (argv[k][n] == '=' || j == 1) /* --vdev=X, -aX */
				v = argv[k] + n + (argv[k][n] == '=');
			else
				continue;
			snprintf(what, what_len, "%s %s", opts[j], v);
			return 1;
		}
	return 0;
}

/*
 * The default reader for --pcap files (no --reader): direct unless an
 * option needs ports (options.c) or the EAL arguments add ports, which the
 * direct reader would not read.
 */
static void
choose_reader(struct cap_app *app, char **argv, int n_eal)
{
	struct cap_conf *c = &app->conf;
	char dev[96];

	if (c->reader != CAP_CONF_READER_DIRECT ||
	    !eal_adds_ports(n_eal, argv, dev, sizeof(dev)))
		return;
	snprintf(app->eal_ports, sizeof(app->eal_ports), "%s", dev);
	/* --reader direct, or --threads (which asks for it): kept, with a warning */
	if (c->reader_opt || c->threads > 1)
		return;
	c->reader = CAP_CONF_READER_PMD;
	snprintf(c->reader_why, sizeof(c->reader_why), "the EAL arguments add ports (%s), "
		 "which only the PMD path reads", dev);
}

/* Say which reader reads the --pcap files, and why. */
static void
log_reader(const struct cap_app *app)
{
	const struct cap_conf *c = &app->conf;

	if (c->n_pcap == 0)
		return;
	if (c->reader_opt)
		CAP_LOG(INFO, "reader: %s (--reader %s)", cap_conf_reader_name(c->reader),
			cap_conf_reader_name(c->reader));
	else if (c->reader == CAP_CONF_READER_DIRECT)
		CAP_LOG(INFO, "reader: direct, the default for --pcap (the files read straight "
			"into batches without a PMD; --reader pmd replays them through "
			"net_pcap)");
	else
		CAP_LOG(NOTICE, "reader: pmd (net_pcap), not the default direct reader, because "
			"%s", c->reader_why);
	if (c->reader == CAP_CONF_READER_DIRECT && app->eal_ports[0] != '\0')
		CAP_LOG(WARNING, "the direct reader reads only the --pcap files: the ports of "
			"the EAL arguments (%s) are not read (--reader pmd reads them)",
			app->eal_ports);
}

/*
 * --pcap FILE: add "--vdev net_pcap_gpudpN,rx_pcap=FILE" to the EAL
 * arguments (unless the direct reader reads them); check the capture
 * files, then start EAL.
 * @return 0, or the exit code
 */
static int
init_eal(struct cap_app *app, char **argv, int n_eal)
{
	static char vdev_args[CAP_MAX_PCAP][600];
	static char *eal_argv[512];
	unsigned int i;
	int k;

	if (n_eal + 2 * (int)app->conf.n_pcap >= (int)RTE_DIM(eal_argv)) {
		fprintf(stderr, "gpudp-capture: too many EAL arguments\n");
		return GPUDP_EXIT_USAGE;
	}
	for (k = 0; k < n_eal; k++)
		eal_argv[k] = argv[k];
	for (i = 0; i < app->conf.n_pcap; i++) {
		snprintf(vdev_args[i], sizeof(vdev_args[i]), "net_pcap_gpudp%u,rx_pcap=%s", i,
			 app->conf.pcap[i]);
		eal_argv[k++] = (char *)"--vdev";
		eal_argv[k++] = vdev_args[i];
	}
	eal_argv[k] = NULL;
	choose_reader(app, argv, n_eal);
	if (app_scan_vdevs(app, k, eal_argv) != 0)
		return GPUDP_EXIT_USAGE;
	if (app_check_files(app) != 0)
		return GPUDP_EXIT_FAILURE;
	/* the direct reader reads the --pcap files itself: no vdev for them */
	if (app->conf.reader == CAP_CONF_READER_DIRECT) {
		eal_argv[n_eal] = NULL;
		k = n_eal;
	}
	return gpudp_app_eal_init("gpudp-capture", k, eal_argv);
}

/* The PMDs' rx timestamp: its mbuf dynamic field and flag, if registered. */
static void
lookup_timestamps(struct cap_app *app)
{
	int bit;

	app->ts_off = rte_mbuf_dynfield_lookup(RTE_MBUF_DYNFIELD_TIMESTAMP_NAME, NULL);
	bit = rte_mbuf_dynflag_lookup(RTE_MBUF_DYNFLAG_RX_TIMESTAMP_NAME, NULL);
	app->ts_flag = bit >= 0 ? RTE_BIT64(bit) : 0;
	if (bit < 0)
		app->ts_off = -1;
}

/* The --filter-out writer's errors (once a file). */
static void
filter_out_log(void *arg, const char *msg)
{
	RTE_SET_USED(arg);
	CAP_LOG(ERR, "--filter-out: %s", msg);
}

/*
 * The --filter-out writer: the one file, or with --filter-out-rotate the
 * first of a series, made with the first packet.
 * @return 0, or the exit code
 */
static int
open_filter_out(struct cap_app *app)
{
	struct gpudp_pcapng_ring_conf rc = app->conf.rotate;

	rc.appname = "gpudp-capture";
	rc.ifname = app->input_desc;
	rc.log = filter_out_log;
	app->out = gpudp_pcapng_ring_open(app->conf.filter_out, &rc);
	if (app->out != NULL)
		return 0;
	if (gpudp_pcapng_ring_rotates(&rc))
		fprintf(stderr, "gpudp-capture: --filter-out: cannot create files named after "
			"'%s' (--filter-out-rotate): %s\n", app->conf.filter_out, strerror(errno));
	else
		fprintf(stderr, "gpudp-capture: --filter-out: cannot create '%s': %s\n",
			app->conf.filter_out, strerror(errno));
	return GPUDP_EXIT_FAILURE;
}

/*
 * The analysis's result tables, the --filter-out writer and --verify's CPU
 * analysis.
 * @return 0, or the exit code
 */
static int
open_outputs(struct cap_app *app)
{
	app->result = cap_analysis_create(app->conf.flows, &app->conf.filter, &app->conf.match,
					  app->conf.rules.img);
	if (app->result == NULL) {
		CAP_LOG(ERR, "out of memory for the flow table (--flows %u)", app->conf.flows);
		return GPUDP_EXIT_FAILURE;
	}
	if (app->conf.filter_out != NULL && open_filter_out(app) != 0)
		return GPUDP_EXIT_FAILURE;
	if (app->conf.verify) {
		if (strcmp(app->engine_name, "gpu") != 0) {
			CAP_LOG(NOTICE, "--verify: no GPU in use, nothing to verify (exit 77)");
			gpudp_cap_engine_destroy(&app->eng);
			return GPUDP_EXIT_NO_GPU;
		}
		app->verify = cap_analysis_create(app->conf.flows, &app->conf.filter,
						  &app->conf.match, app->conf.rules.img);
		if (app->verify == NULL)
			return GPUDP_EXIT_FAILURE;
	}
	return 0;
}

/*
 * --reader direct: the engine (staged memory), the outputs, then every
 * --pcap file through the direct reader.
 * @return the exit code
 */
static int
capture_direct(struct cap_app *app)
{
	int ret;

	app->conf.mem = CAP_CONF_MEM_STAGED;
	ret = app_flows_open(app);
	if (ret == 0)
		ret = cap_rules_eve_open("gpudp-capture", &app->conf.rules) != 0 ? GPUDP_EXIT_FAILURE : 0;
	if (ret == 0)
		ret = app_choose_engine_and_mem(app);

	if (ret != 0)
		return ret;
	if (app->conf.rules.eve != NULL && app->conf.threads > 1 &&
	    strcmp(app->engine_name, "gpu") == 0) {
		fprintf(stderr, "gpudp-capture: --threads: bad value '%u' (--eve with the GPU "
			"engine reads with one thread: the threads share the GPU's tables)\n",
			app->conf.threads);
		return GPUDP_EXIT_USAGE;
	}
	app_describe_files(app);
	ret = open_outputs(app);
	if (ret == 0)
		ret = app_metrics_start(app);
	if (ret != 0)
		return ret;
	CAP_LOG(INFO, "analysing on %s with %u thread%s, direct reader (no PMD); capture file "
		"input", app->eng.st.device, app->conf.threads, app->conf.threads > 1 ? "s" : "");
	return app_run_direct(app) == 0 ? GPUDP_EXIT_OK : GPUDP_EXIT_FAILURE;
}

/*
 * After EAL: the ports, the engine and the memory, the pool, the ports'
 * set-up, the outputs; then the capture.
 * @return the exit code
 */
static int
capture(struct cap_app *app)
{
	int ret;

	log_reader(app);
	if (app->conf.reader == CAP_CONF_READER_DIRECT)
		return capture_direct(app);

	ret = app_collect_ports(app);
	if (ret != 0)
		return ret == -2 ? GPUDP_EXIT_USAGE : GPUDP_EXIT_FAILURE;
	ret = app_place_ports(app);
	if (ret == 0)
		ret = app_flows_open(app);
	if (ret == 0)
		ret = cap_rules_eve_open("gpudp-capture", &app->conf.rules) != 0 ? GPUDP_EXIT_FAILURE : 0;
	if (ret != 0)
		return ret;
	ret = app_choose_engine_and_mem(app);
	if (ret != 0)
		return ret;
	if (app_create_gpu_engines(app) != 0)
		return GPUDP_EXIT_FAILURE;
	if (app_create_pool(app) != 0 || app_setup_ports(app) != 0)
		return GPUDP_EXIT_FAILURE;
	app_report_telemetry(app);
	app_describe_input(app);
	if (app->mem == GPUDP_CAP_MEM_DEVICE && strcmp(app->engine_name, "cpu") == 0 &&
	    app_map_for_cpu(app) != 0)
		return GPUDP_EXIT_FAILURE;
	ret = open_outputs(app);
	if (ret == 0)
		ret = app_metrics_start(app);
	if (ret != 0)
		return ret;
	if (app_n_engines(app) > 1)
		CAP_LOG(INFO, "analysing on %u GPUs, each port's batches on its GPU, the "
			"results added up", app->n_gpus);
	CAP_LOG(INFO, "analysing on %s, %s memory%s; %s", app->eng.st.device,
		cap_mem_name(app->mem),
		app->mem == GPUDP_CAP_MEM_STAGED ? " (copied into batches)" : " (in place)",
		app->any_live ? "live input: Ctrl-C stops" : "capture file input");
	return app_run(app) == 0 ? GPUDP_EXIT_OK : GPUDP_EXIT_FAILURE;
}

/*
 * Every batch done (in place: its mbufs freed) before the ports close; the
 * outputs closed, the ports stopped and closed, the pool released, EAL
 * cleaned up: the order of gpudp-fwd's teardown.
 * @return @p rc, or GPUDP_EXIT_FAILURE if any of that failed
 */
static int
teardown(struct cap_app *app, int rc)
{
	unsigned int i;

	app_metrics_stop(app);
	app_destroy_gpu_engines(app);
	gpudp_cap_engine_destroy(&app->eng);
	if (app_flows_close(app) != 0)
		rc = GPUDP_EXIT_FAILURE;
	if (cap_rules_eve_close("gpudp-capture", &app->conf.rules) != 0)
		rc = GPUDP_EXIT_FAILURE;
	if (app->out != NULL) {
		struct gpudp_pcapng_ring_stats st;

		gpudp_pcapng_ring_flush(app->out);
		gpudp_pcapng_ring_stats(app->out, &st);
		if (gpudp_pcapng_ring_close(app->out) != 0) {
			fprintf(stderr, "gpudp-capture: --filter-out %s: write error: %" PRIu64
				" packets not written\n", app->conf.filter_out, st.dropped);
			rc = GPUDP_EXIT_FAILURE;
		}
		app->out = NULL;
	}
	/* a capture file changed size while it was read: the report (written)
	 * need not be of any one version of it */
	if (rc == GPUDP_EXIT_OK && app->files_changed > 0)
		rc = GPUDP_EXIT_FAILURE;
	/* ports before the pool, as in gpudp-fwd: closing a port gives its
	 * mbufs back; lib/mem unmaps a pool from ports already closed */
	for (i = 0; i < app->n_ports; i++) {
		rte_eth_dev_stop(app->ports[i].id);
		rte_eth_dev_close(app->ports[i].id);
	}
	if (app_release_pool(app) != 0)
		rc = GPUDP_EXIT_FAILURE;
	gpudp_analysis_free(app->result);
	gpudp_analysis_free(app->verify);
	cap_conf_free(&app->conf);
	for (i = 0; i < app->n_files; i++)
		gpudp_capfile_info_free(&app->files[i].info);
	gpudp_app_eal_cleanup();
	return rc;
}

/* Arguments, EAL, the capture (capture()), the teardown. */
int
gpudp_capture_main(int argc, char **argv)
{
	static struct cap_app app;
	int rc, n_eal;

	if (gpudp_app_help_requested(argc, argv)) {
		cap_conf_usage(stdout, "gpudp-capture");
		return GPUDP_EXIT_OK;
	}
	rc = parse_app_args(&app, argc, argv, &n_eal);
	if (rc >= 0)
		return rc;
	app.have_cpus = sched_getaffinity(0, sizeof(app.cpus), &app.cpus) == 0;
	rc = init_eal(&app, argv, n_eal);
	if (rc != 0) {
		cap_conf_free(&app.conf);
		return rc;
	}
	gpudp_app_signals(&app_stop_requested);
	lookup_timestamps(&app);
	return teardown(&app, capture(&app));
}

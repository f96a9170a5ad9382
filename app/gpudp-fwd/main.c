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

RTE_LOG_REGISTER(fwd_logtype, gpudp.fwd, INFO);

struct fwd_run fwd_run;

/* the main lcore measures the GPU clock again this often (gpudp_handoff_clock_sync) */
#define FWD_CLOCK_SYNC_NS 100000000ull

/* --duration and --count: whether the run is over */
static int
run_over(uint64_t now)
{
	const struct fwd_conf *c = &fwd_run.conf;
	uint64_t rx = 0;
	unsigned int i;

	if (c->duration > 0 && now - fwd_run.run_t0 >= (uint64_t)(c->duration * 1e9))
		return 1;
	if (c->count == 0)
		return 0;
	for (i = 0; i < fwd_run.nb_pipes; i++)
		rx += fwd_run.pipes[i]->rx_pkts;
	return rx >= c->count;
}

/*
 * Latency histograms: each GPU's clock drifts from the CPU's. One measure
 * per GPU, on its first pipeline, shared by its other pipelines (a run
 * without a GPU is one group).
 */
static void
clock_sync(void)
{
	struct fwd_pipe *const *p = fwd_run.pipes;
	struct fwd_pipe *first[FWD_MAX_GPUS + 1] = { NULL };
	unsigned int i;

	for (i = 0; i < fwd_run.nb_pipes; i++) {
		unsigned int g = p[i]->gpu != FWD_NO_GPU ? p[i]->gpu : FWD_MAX_GPUS;

		if (first[g] == NULL) {
			if (gpudp_handoff_clock_sync(p[i]->ho) == 0)
				first[g] = p[i];
		} else if (gpudp_handoff_clock_share(p[i]->ho, first[g]->ho) != 0) {
			gpudp_handoff_clock_sync(p[i]->ho);
		}
	}
}

/* The main lcore while the pipelines run: stop conditions, clock, stats. */
static void
main_loop(void)
{
	const struct fwd_conf *c = &fwd_run.conf;
	uint64_t period = (uint64_t)(c->stats_period * 1e9);
	uint64_t next = fwd_run.run_t0 + period, next_clk = fwd_run.run_t0 + FWD_CLOCK_SYNC_NS;
	struct fwd_totals prev;

	memset(&prev, 0, sizeof(prev));
	while (!fwd_quit) {
		uint64_t now = gpudp_ho_now_ns();

		usleep(1000);
		if (run_over(now))
			fwd_quit = 1;
		if (now >= next_clk) {
			clock_sync();
			next_clk = now + FWD_CLOCK_SYNC_NS;
		}
		if (!c->quiet && c->stats_period > 0 && now >= next) {
			fwd_report_stats_line(&prev, c->stats_period);
			next += period;
		}
	}
}

/* After the run: --min-forwarded, and packets lost. @return the exit code */
static int
final_verdict(void)
{
	struct fwd_totals t;
	int rc = GPUDP_EXIT_OK;

	fwd_totals_get(fwd_run.pipes, fwd_run.nb_pipes, &t);
	if (t.tx_pkts < fwd_run.conf.min_forwarded) {
		fprintf(stderr, "gpudp-fwd: --min-forwarded %" PRIu64 ": only %" PRIu64
			" packets transmitted\n", fwd_run.conf.min_forwarded, t.tx_pkts);
		rc = GPUDP_EXIT_FAILURE;
	}
	if (t.verdict_drops[GPUDP_WORK_DROP_ERROR] != 0 || t.drops[FWD_DROP_SHUTDOWN] != 0) {
		fprintf(stderr, "gpudp-fwd: %" PRIu64 " packets lost to submission errors "
			"or a GPU fault, %" PRIu64 " to a stuck drain\n",
			t.verdict_drops[GPUDP_WORK_DROP_ERROR], t.drops[FWD_DROP_SHUTDOWN]);
		rc = GPUDP_EXIT_FAILURE;
	}
	return rc;
}

/* Set up, run the lcores until the end, report. @return the exit code */
static int
run(void)
{
	const struct fwd_conf *c = &fwd_run.conf;
	unsigned int i;
	int ret, rc;

	if (fwd_ports_check() != 0)
		return GPUDP_EXIT_USAGE;
	if (c->check)
		return fwd_run_check();
	/* each port's GPU, when the run needs GPUs */
	if (gpudp_ho_mode_is_gpu(c->mode) || fwd_conf_mem(c) != GPUDP_MEM_HOST) {
		rc = fwd_gpus_choose();
		if (rc != 0)
			return rc;
	}
	gpudp_app_signals(&fwd_quit);
	fwd_report_telemetry();
	ret = fwd_pipes_create();
	if (ret != 0) {
		fwd_quit = 1;
		fwd_teardown();
		return ret == -EINVAL ? GPUDP_EXIT_USAGE : GPUDP_EXIT_FAILURE;
	}
	FWD_LOG(INFO, "%u pipelines, mode %s, work %s (%s), %s memory, burst %u, ring %u",
		fwd_run.nb_pipes, gpudp_ho_mode_name(c->mode), c->work->name,
		gpudp_work_origin(c->work), gpudp_mem_type_name(fwd_conf_mem(c)), c->burst,
		c->ring);
	if (fwd_run.nb_gpus > 1)
		FWD_LOG(INFO, "%u GPUs: each port's pipelines on its own GPU", fwd_run.nb_gpus);
	fwd_run.pipes[fwd_run.nb_pipes] = NULL;
	__atomic_store_n(&fwd_run.nb_ready, fwd_run.nb_pipes, __ATOMIC_RELEASE);
	if (fwd_metrics_start() != 0) {
		fwd_quit = 1;
		fwd_teardown();
		return GPUDP_EXIT_FAILURE;
	}
	fwd_run.run_t0 = gpudp_ho_now_ns();
	rte_eal_mp_remote_launch(fwd_lcore_main, fwd_run.pipes, SKIP_MAIN);
	main_loop();
	rte_eal_mp_wait_lcore();
	/* the lcores drained their pipelines: stop the GPU work now, so that
	 * the final counters have what the GPU counted (the pollers' reads);
	 * a pipeline whose drain timed out (a GPU that does not finish) is
	 * left to the teardown, after the final report */
	for (i = 0; i < fwd_run.nb_pipes; i++)
		if (fwd_run.pipes[i]->drops[FWD_DROP_SHUTDOWN] == 0)
			gpudp_handoff_stop(fwd_run.pipes[i]->ho);
	ret = fwd_report_final((gpudp_ho_now_ns() - fwd_run.run_t0) / 1e9);
	rc = final_verdict();
	if (ret != 0)
		rc = GPUDP_EXIT_FAILURE;
	fwd_metrics_end();
	fwd_teardown();
	return rc;
}

int
main(int argc, char **argv)
{
	struct gpudp_app_args args;
	int ret;

	/* application options first: --help and bad values need no EAL */
	if (gpudp_app_help_requested(argc, argv)) {
		fwd_conf_usage(stdout, "gpudp-fwd");
		return GPUDP_EXIT_OK;
	}
	if (gpudp_app_args_split(argc, argv, &args) != 0)
		return GPUDP_EXIT_FAILURE;
	ret = fwd_conf_parse(&fwd_run.conf, args.app_argc, args.app_argv);
	gpudp_app_args_free(&args); /* the conf points into argv's strings */
	if (ret != 0)
		return ret > 0 ? GPUDP_EXIT_OK : GPUDP_EXIT_USAGE;
	ret = gpudp_app_eal_init("gpudp-fwd", args.eal_argc, argv);
	if (ret != 0)
		return ret;
	ret = run();
	gpudp_app_eal_cleanup();
	return ret;
}

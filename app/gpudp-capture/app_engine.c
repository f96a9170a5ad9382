/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpudp-capture: the analysis engine's glue: which engine runs (with the
 * memory type, which it decides with), and the callbacks of its batches
 * (--verify's check, the --filter-out writer, mbuf release, CPU views of
 * device memory).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_mbuf.h>

#ifdef GPUDP_HAS_CUDA
#include "gpudp_cuda.h"
#endif
#include "cap_app.h"
#include "gpudp_app_gpu.h"

/* --verify: the same batch on the CPU; filter bits must agree packet by packet */
static void
verify_batch(struct cap_app *app, const struct gpudp_cap_batch *b)
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
			const uint8_t *d = gpudp_cap_batch_pkt(b, i, &cl, &wl, &ts);

			if (d != NULL && gpudp_analysis_packet(app->verify, d, cl, wl, ts))
				bits[i / 32] |= 1u << (i % 32);
		}
	}
	if (memcmp(bits, b->match, 4 * (size_t)words) != 0)
		app->verify_mismatch++;
	free(bits);
}

/* A batch is finished: --verify's check, then its matches to --filter-out. */
static void
batch_done(void *arg, const struct gpudp_cap_batch *b)
{
	struct cap_app *app = arg;
	uint32_t i;

	if (app->verify != NULL)
		verify_batch(app, b);
	if (app->out == NULL || b->n_match == 0)
		return;
	for (i = 0; i < b->n; i++) {
		uint32_t caplen, wirelen;
		uint64_t ts;
		const uint8_t *d;

		if (!gpudp_cap_batch_matched(b, i))
			continue;
		/* in place: the packet where it is, or (device memory) its copy */
		d = gpudp_cap_batch_pkt(b, i, &caplen, &wirelen, &ts);
		if (d == NULL) {
			app->unreadable_written++;
			continue;
		}
		/* a write error: said and counted by the writer, which goes on
		 * with the next file (--filter-out-rotate) */
		gpudp_pcapng_ring_write(app->out, d, caplen, wirelen, ts);
	}
}

/* In place: the kernel (or the CPU) that read these mbufs is done. */
void
app_batch_release(void *arg, void **owner, uint32_t n)
{
	RTE_SET_USED(arg);
	rte_pktmbuf_free_bulk((struct rte_mbuf **)owner, n);
}

/* Device memory on the CPU engine: the CPU address of a GPU VA (lib/mem's mapping). */
static const uint8_t *
cpu_view(void *arg, uint64_t addr, uint32_t len)
{
	struct cap_app *app = arg;

	return gpudp_pool_cpu_addr(app->gpool, addr, len);
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

/*
 * The GPU engine's CUDA context: gpudev's for --gpu (gpudp's driver, where
 * the pools live), as gpudp-fwd's handoffs use; 0 (the GPU's primary
 * context) when the device is another driver's.
 */
#ifdef GPUDP_HAS_CUDA
static uint64_t
gpudev_context(struct cap_app *app)
{
	return gpudp_app_gpu_context(app->gpu_id >= 0 ? app->gpu_id : app_find_gpu(app));
}
#endif

/*
 * The analysis engine: the GPU engine unless --cpu (or it cannot run; then
 * the CPU engine, or -ENODEV with --engine gpu).
 */
static int
setup_engine(struct cap_app *app)
{
	struct gpudp_cap_engine_conf ec = {
		.batch_pkts = app->conf.batch_pkts, .batch_bytes = app->conf.batch_bytes,
		.flow_capacity = app->conf.flows, .filter = app->conf.filter,
		.match = app->conf.match.db, .match_flags = app->conf.match.flags,
		.gpu_device = (int)app->conf.gpu, .inflight = app->conf.inflight,
		.done = batch_done, .done_arg = app,
		.mem = app->mem, .release = app_batch_release,
		.cpu_view = app->mem == GPUDP_CAP_MEM_DEVICE ? cpu_view : NULL, .view_arg = app,
	};
	char err[256];
	int rc;

	ec.rules = app->conf.rules.img;
	if (app->conf.rules.eve != NULL) {
		ec.alerts_out = cap_rules_alerts_out;
		ec.alerts_arg = &app->conf.rules;
	}
	if (cap_conf_flows_on(&app->conf)) {
		ec.life = &app->life;
		ec.flows_out = app_flows_out;
		ec.flows_arg = app;
		/* the GPU engine's thread for the records: not on the lcore */
		ec.cpus = app->have_cpus ? &app->cpus : NULL;
	}
	app->engine_note[0] = '\0';
	if (app->conf.force_cpu) {
		snprintf(app->engine_note, sizeof(app->engine_note), "%s given",
			 app->conf.engine_opt ? "--engine cpu" : "--cpu");
		CAP_LOG(NOTICE, "%s; analysing on the CPU", app->engine_note);
	} else {
		if (gpu_engine_possible(app->engine_note, sizeof(app->engine_note))) {
#ifdef GPUDP_HAS_CUDA
			ec.cu_ctx = gpudev_context(app);
			rc = gpudp_cap_engine_create(&app->eng, "gpu", &ec, err, sizeof(err));
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
	rc = gpudp_cap_engine_create(&app->eng, "cpu", &ec, err, sizeof(err));
	if (rc != 0) {
		CAP_LOG(ERR, "cannot create the CPU engine: %s", err);
		return rc;
	}
	app->engine_name = "cpu";
	return 0;
}

/*
 * --mem and the engine decide each other: the memory type from whether the
 * GPU engine can run (app_resolve_mem), then the engine; if --mem auto chose
 * GPU memory for the GPU engine and that engine failed, staged memory and
 * the engine again.
 * @return 0, or the exit code
 */
int
app_choose_engine_and_mem(struct cap_app *app)
{
	char why[256];
	int gpu_engine, ret;

	app->gpu_id = app->conf.mem == CAP_CONF_MEM_STAGED ? -1 : app_find_gpu(app);
	gpu_engine = !app->conf.force_cpu &&
		gpu_engine_possible(why, sizeof(why));
	ret = app_resolve_mem(app, gpu_engine);
	if (ret != 0)
		return ret;
	if (setup_engine(app) != 0)
		return app->conf.engine == CAP_CONF_ENGINE_GPU ? GPUDP_EXIT_NO_GPU :
		       GPUDP_EXIT_FAILURE;
	if (app->conf.mem == CAP_CONF_MEM_AUTO && app->mem != GPUDP_CAP_MEM_STAGED &&
	    strcmp(app->engine_name, "gpu") != 0) {
		/* auto chose GPU memory for the GPU engine, which then failed */
		gpudp_cap_engine_destroy(&app->eng);
		app->mem = GPUDP_CAP_MEM_STAGED;
		snprintf(app->mem_note, sizeof(app->mem_note), "--mem auto: staged, because the "
			 "GPU engine failed");
		CAP_LOG(NOTICE, "%s", app->mem_note);
		if (setup_engine(app) != 0)
			return GPUDP_EXIT_FAILURE;
	}
	return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpudp-capture on several GPUs (doc/multi-gpu.md): --gpu auto and
 * --gpu-map choose a GPU for each port (app/common's placement, shared with
 * gpudp-fwd); each GPU used gets an analysis engine of its own (the first
 * one is app->eng), the batches of a port's rx queues go to its GPU's
 * engine, and at each report every engine is collected into an analysis
 * object of its own and the objects are added up (gpudp_analysis_add()),
 * which gives the results of one GPU: the analysis only adds to its tables.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cap_app.h"

/* Whether the placement applies: --gpu auto or --gpu-map, or no --gpu with
 * several GPUs, ports in staged memory. */
static int
placing_wanted(const struct cap_app *app, unsigned int n_avail)
{
	const struct cap_conf *c = &app->conf;

	if (c->gpu_map != NULL || c->gpu_sel == CAP_CONF_GPU_AUTO)
		return 1;
	return c->gpu_sel == CAP_CONF_GPU_DEFAULT && n_avail > 1 &&
	       c->mem != CAP_CONF_MEM_PINNED && c->mem != CAP_CONF_MEM_DEVICE;
}

/* The index of GPU @p a in app->gpus, added (and logged) if new. */
static unsigned int
gpu_use(struct cap_app *app, const struct gpudp_app_gpu_info *a)
{
	unsigned int g;

	for (g = 0; g < app->n_gpus; g++)
		if (app->gpus[g].info.id == a->id)
			return g;
	memset(&app->gpus[g], 0, sizeof(app->gpus[g]));
	app->gpus[g].info = *a;
	CAP_LOG(INFO, "GPU %d (gpudev device %d): %s at %s", a->ordinal, a->id, a->product,
		a->pci);
	return app->n_gpus++;
}

int
app_place_ports(struct cap_app *app)
{
	struct gpudp_app_gpu_placing pl = {
		.prog = "gpudp-capture", .gpu_map = app->conf.gpu_map, .role = "read",
		.how = app->conf.gpu_sel == CAP_CONF_GPU_AUTO ? "--gpu auto" :
		       "default (several GPUs)",
		.max_gpus = CAP_MAX_GPUS,
	};
	struct gpudp_app_gpu_info avail[CAP_MAX_GPUS];
	struct gpudp_app_port_gpu out[CAP_MAX_PORTS];
	uint16_t ids[CAP_MAX_PORTS];
	unsigned int n, i, g;
	int rc;

	app->n_gpus = 0;
	if (app->conf.force_cpu || app->n_ports == 0)
		return 0;
	n = gpudp_app_gpus_avail(avail, RTE_DIM(avail));
	if (n == 0 || !placing_wanted(app, n)) {
		if (n == 0 && app->conf.gpu_map != NULL) {
			fprintf(stderr, "gpudp-capture: --gpu-map: no GPU (0 found)\n");
			return GPUDP_EXIT_NO_GPU;
		}
		return 0; /* one GPU (--gpu N), or the CPU */
	}
	for (i = 0; i < app->n_ports; i++)
		ids[i] = app->ports[i].id;
	rc = gpudp_app_gpu_place_ports(&pl, ids, app->n_ports, avail, n, out);
	if (rc != 0)
		return rc;
	/* GPUs in ordinal order, the lowest first: it is app->eng's */
	for (g = 0; g < n; g++)
		for (i = 0; i < app->n_ports; i++)
			if (out[i].gpu == g) {
				gpu_use(app, &avail[g]);
				break;
			}
	for (i = 0; i < app->n_ports; i++) {
		struct cap_port *p = &app->ports[i];

		p->place = out[i];
		p->gpu = gpu_use(app, &avail[out[i].gpu]);
		app->gpus[p->gpu].n_ports++;
		CAP_LOG(INFO, "port %u (%s) on GPU %d (%s) by %s: %s: %s", p->id, p->name,
			avail[out[i].gpu].ordinal, avail[out[i].gpu].pci, out[i].how,
			gpudp_gpu_place_level_name(out[i].place.level), out[i].place.reason);
	}
	/* the single-GPU code (memory, the first engine) works on the first GPU */
	app->conf.gpu = (uint32_t)app->gpus[0].info.ordinal;
	if (app->n_gpus > 1 && (app->conf.mem == CAP_CONF_MEM_PINNED ||
				app->conf.mem == CAP_CONF_MEM_DEVICE)) {
		fprintf(stderr, "gpudp-capture: --mem %s: bad value with ports on %u GPUs (the "
			"mbufs are in one pool, on one GPU): use --mem staged, or --gpu N\n",
			cap_conf_mem_name(app->conf.mem), app->n_gpus);
		return GPUDP_EXIT_USAGE;
	}
	return 0;
}

int
app_create_gpu_engines(struct cap_app *app)
{
	struct gpudp_cap_engine_conf ec = app->eng.conf;
	char err[256];
	unsigned int g;

	if (app->n_gpus == 0)
		return 0;
	app->gpus[0].eng = &app->eng;
	if (strcmp(app->engine_name, "gpu") != 0) {
		if (app->n_gpus > 1)
			CAP_LOG(NOTICE, "the ports' GPUs are not used: the analysis runs on the "
				"CPU, one engine for every port");
		app->n_gpus = 0;
		return 0;
	}
	for (g = 1; g < app->n_gpus; g++) {
		struct cap_gpu *gp = &app->gpus[g];

		gp->eng = calloc(1, sizeof(*gp->eng));
		gp->part = cap_analysis_create(app->conf.flows, &app->conf.filter,
					       &app->conf.match, app->conf.rules.img);
		if (gp->eng == NULL || gp->part == NULL) {
			CAP_LOG(ERR, "GPU %d: out of memory for its engine's results",
				gp->info.ordinal);
			return -1;
		}
		ec.gpu_device = gp->info.ordinal;
		ec.cu_ctx = gp->info.ctx;
		if (gpudp_cap_engine_create(gp->eng, "gpu", &ec, err, sizeof(err)) != 0) {
			CAP_LOG(ERR, "GPU %d (%s): cannot create its analysis engine: %s",
				gp->info.ordinal, gp->info.pci, err);
			free(gp->eng);
			gp->eng = NULL;
			return -1;
		}
	}
	for (g = 0; g < app->n_gpus; g++)
		CAP_LOG(INFO, "GPU %d (%s): analysis engine for %u port%s on %s",
			app->gpus[g].info.ordinal, app->gpus[g].info.pci, app->gpus[g].n_ports,
			app->gpus[g].n_ports == 1 ? "" : "s", app->gpus[g].eng->st.device);
	return 0;
}

unsigned int
app_n_engines(const struct cap_app *app)
{
	return app->n_gpus > 1 ? app->n_gpus : 1;
}

struct gpudp_cap_engine *
app_engine(struct cap_app *app, unsigned int i)
{
	return app->n_gpus > 1 ? app->gpus[i].eng : &app->eng;
}

int
app_collect_engines(struct cap_app *app)
{
	struct gpudp_cap_engine_stats *sum = &app->eng_sum;
	unsigned int g;
	int rc = gpudp_cap_engine_collect(&app->eng, app->result), rc2;
	size_t off;

	memset(sum, 0, sizeof(*sum));
	gpudp_cap_engine_stats_add(sum, &app->eng.st);
	off = (size_t)snprintf(sum->device, sizeof(sum->device), "%u GPUs", app->n_gpus);
	for (g = 0; g < app->n_gpus; g++) {
		struct cap_gpu *gp = &app->gpus[g];

		if (off < sizeof(sum->device))
			off += (size_t)snprintf(sum->device + off, sizeof(sum->device) - off,
						"%s %d (%s)", g ? "," : ":", gp->info.ordinal,
						gp->info.pci);
		if (g == 0 || (rc != 0 && rc != -ENOSPC))
			continue;
		rc2 = gpudp_cap_engine_collect(gp->eng, gp->part);
		if (rc2 == 0 || rc2 == -ENOSPC)
			rc2 = gpudp_analysis_add(app->result, gp->part) == 0 ? rc2 : -ENOSPC;
		else
			snprintf(app->eng.err, sizeof(app->eng.err), "GPU %d: %.200s",
				 gp->info.ordinal, gp->eng->err);
		if (rc2 != 0 && (rc == 0 || rc2 != -ENOSPC))
			rc = rc2;
		gpudp_cap_engine_stats_add(sum, &gp->eng->st);
	}
	return rc;
}

void
app_destroy_gpu_engines(struct cap_app *app)
{
	unsigned int g;

	for (g = 1; g < app->n_gpus; g++) {
		if (app->gpus[g].eng != NULL) {
			gpudp_cap_engine_destroy(app->gpus[g].eng);
			free(app->gpus[g].eng);
			app->gpus[g].eng = NULL;
		}
		gpudp_analysis_free(app->gpus[g].part);
		app->gpus[g].part = NULL;
	}
}

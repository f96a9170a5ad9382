/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpudp-fwd's GPUs: which GPU each port's pipelines run on (--gpu N, --gpu
 * auto, --gpu-map), the deployment checks of --check per GPU, and what the
 * GPUs still hold after teardown (doc/multi-gpu.md), and how an integrated
 * GPU's pools are allocated (--igpu-alloc, doc/tegra.md).
 *
 * --gpu auto puts each port on the GPU closest to it in the PCIe tree
 * (gpudp_mem_gpu_place(): a common PCIe switch, then the root complex,
 * then the NUMA node; ties spread the ports over the GPUs). Every GPU used
 * is one gpudev device of gpudp's driver and its primary CUDA context: the
 * pools of its ports are allocated on it and their handoffs run in it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_dev.h>
#include <rte_ethdev.h>
#include <rte_gpudev.h>

#ifdef GPUDP_HAS_CUDA
#include <gpudp_gpu.h>
#endif

#include "fwd.h"
#include "gpudp_app_gpu.h"

/* the configuration, filled by fwd_conf_parse() before EAL */
static struct fwd_conf *const cf = &fwd_run.conf;

/* the index of @p a in fwd_run.gpus, added if new */
static unsigned int
gpu_use(const struct gpudp_app_gpu_info *a)
{
	unsigned int g;

	for (g = 0; g < fwd_run.nb_gpus; g++)
		if (fwd_run.gpus[g].id == a->id)
			return g;
	memset(&fwd_run.gpus[g], 0, sizeof(fwd_run.gpus[g]));
	fwd_run.gpus[g].ordinal = a->ordinal;
	fwd_run.gpus[g].id = a->id;
	fwd_run.gpus[g].ctx = a->ctx;
	snprintf(fwd_run.gpus[g].pci, sizeof(fwd_run.gpus[g].pci), "%s", a->pci);
	FWD_LOG(INFO, "GPU %d (gpudev device %d): %s at %s, GPUDirect RDMA writes ordering %d",
		a->ordinal, a->id, a->product, a->pci, a->gdr_ordering);
	return fwd_run.nb_gpus++;
}

/* --gpu N (or one GPU, no --gpu): every port on it. @return 0 or an exit code */
static int
choose_one(void)
{
#ifndef GPUDP_HAS_CUDA
	fprintf(stderr, "gpudp-fwd: --gpu %d: this gpudp-fwd was built without GPU support "
		"(no CUDA toolkit at build time)\n", cf->gpu);
	return GPUDP_EXIT_NO_GPU;
#else
	static char how[24];
	struct gpudp_gpu_props pr;
	struct gpudp_app_gpu_info a;
	char why[256];
	int16_t id = gpudp_app_gpu_find((unsigned int)cf->gpu, why, sizeof(why));
	unsigned int i, g;

	if (id < 0 || gpudp_gpu_props_get(id, &pr) != 0) {
		fprintf(stderr, "gpudp-fwd: --gpu %d: no such GPU: %s\n", cf->gpu,
			id < 0 ? why : "not a GPU of gpudp's gpudev driver");
		return GPUDP_EXIT_NO_GPU;
	}
	memset(&a, 0, sizeof(a));
	a.ordinal = cf->gpu;
	a.id = id;
	a.ctx = pr.context;
	a.gdr_ordering = pr.gdr_writes_ordering;
	snprintf(a.pci, sizeof(a.pci), "%s", pr.pci_addr);
	snprintf(a.product, sizeof(a.product), "%s", pr.product);
	g = gpu_use(&a);
	snprintf(how, sizeof(how), "--gpu %d", cf->gpu);
	for (i = 0; i < cf->nb_ports; i++) {
		fwd_run.port_gpu[i].gpu = g;
		fwd_run.port_gpu[i].how = cf->gpu_sel == FWD_GPU_ONE ? how :
			"default (one GPU)";
		gpudp_app_gpu_place_pair(cf->ports[i], a.pci, &fwd_run.port_gpu[i].place);
	}
	return 0;
#endif
}

/* --gpu auto and --gpu-map over the GPUs @p a (app/common's placement: the
 * ports the map names first, then the others placed among themselves).
 * @return 0 or an exit code */
static int
choose_placed(const struct gpudp_app_gpu_info *a, unsigned int n, const char *how)
{
	struct gpudp_app_gpu_placing pl = {
		.prog = "gpudp-fwd", .gpu_map = cf->gpu_map, .how = how, .role = "forwarded",
		.max_gpus = FWD_MAX_GPUS,
	};
	struct gpudp_app_port_gpu out[FWD_MAX_PORTS];
	unsigned int i, k;
	int rc = gpudp_app_gpu_place_ports(&pl, cf->ports, cf->nb_ports, a, n, out);

	if (rc != 0)
		return rc;
	/* GPUs in ordinal order: the lowest first */
	for (i = 0; i < n; i++) {
		for (k = 0; k < cf->nb_ports && out[k].gpu != i; k++)
			;
		if (k < cf->nb_ports)
			gpu_use(&a[i]);
	}
	for (i = 0; i < cf->nb_ports; i++) {
		fwd_run.port_gpu[i].how = out[i].how;
		fwd_run.port_gpu[i].place = out[i].place;
		fwd_run.port_gpu[i].gpu = gpu_use(&a[out[i].gpu]);
	}
	return 0;
}

/*
 * --igpu-alloc for GPU @p g: an integrated GPU's pools are host memory from
 * cuMemHostAlloc, write-combined or not; a discrete GPU's are cuMemAlloc's.
 * @return 1 if the GPU is integrated, else 0; @p what says how its pools
 * are allocated.
 */
static int
gpu_igpu_alloc(const struct fwd_gpu *g, char *what, size_t len)
{
	snprintf(what, len, "pools from cuMemAlloc");
#ifdef GPUDP_HAS_CUDA
	struct gpudp_gpu_props pr;

	if (gpudp_gpu_props_get(g->id, &pr) != 0 || !pr.integrated)
		return 0;
	gpudp_gpu_igpu_alloc_set(g->id, cf->igpu_wc ? GPUDP_GPU_IGPU_ALLOC_WC :
				 GPUDP_GPU_IGPU_ALLOC_DEFAULT);
	snprintf(what, len, "integrated (it shares DRAM with the CPU): device and split pools "
		 "from cuMemHostAlloc, %s (--igpu-alloc %s), %s", cf->igpu_wc ?
		 "write-combined" : "not write-combined", cf->igpu_wc ? "wc" : "default",
		 !cf->igpu_wc && (pr.unified_addressing || pr.host_ptr_registered) ?
		 "used through the host pointer" : "used through the device pointer "
		 "(cuMemHostGetDevicePointer)");
	return 1;
#else
	RTE_SET_USED(g);
	return 0;
#endif
}

int
fwd_gpus_choose(void)
{
	struct gpudp_app_gpu_info a[FWD_MAX_GPUS];
	unsigned int n, i;
	int rc;

	fwd_run.nb_gpus = 0;
	n = gpudp_app_gpus_avail(a, RTE_DIM(a));
	if (cf->gpu_sel == FWD_GPU_ONE || (cf->gpu_sel == FWD_GPU_DEFAULT && n <= 1))
		rc = choose_one();
	else if (n == 0) {
		fprintf(stderr, "gpudp-fwd: %s: no GPU of gpudp's gpudev driver (0 found)\n",
			cf->gpu_map != NULL ? "--gpu-map" : "--gpu auto");
		rc = GPUDP_EXIT_NO_GPU;
	} else
		rc = choose_placed(a, n, cf->gpu_sel == FWD_GPU_DEFAULT ?
				   "--gpu auto (the default with several GPUs)" :
				   "--gpu auto");
	if (rc != 0) {
		fwd_run.nb_gpus = 0;
		return rc;
	}
	for (i = 0; i < fwd_run.nb_gpus; i++) {
		const struct fwd_gpu *g = &fwd_run.gpus[i];
		char what[300];

		if (gpu_igpu_alloc(g, what, sizeof(what)))
			FWD_LOG(INFO, "GPU %d (%s) is %s", g->ordinal, g->pci, what);
		else if (cf->igpu_wc)
			FWD_LOG(NOTICE, "--igpu-alloc wc: GPU %d (%s) is not integrated: its pools "
				"come from cuMemAlloc, the option does not apply", g->ordinal, g->pci);
	}
	for (i = 0; i < cf->nb_ports; i++) {
		const struct fwd_port_gpu *pg = &fwd_run.port_gpu[i];
		struct fwd_gpu *g = &fwd_run.gpus[pg->gpu];

		g->nb_ports++;
		FWD_LOG(INFO, "port %u (%s) on GPU %d (%s) by %s: %s: %s", cf->ports[i],
			gpudp_app_port_dev_name(cf->ports[i]), g->ordinal, g->pci, pg->how,
			gpudp_gpu_place_level_name(pg->place.level), pg->place.reason);
	}
	return 0;
}

static void
check_report(enum gpudp_check_level lvl, const char *check, const char *msg, void *arg)
{
	RTE_SET_USED(arg);
	printf("%-5s %-6s %s\n", gpudp_check_level_name(lvl), check, msg);
}

/* --check: port i's placement, one line; a warning when its traffic
 * crosses the CPU's root complex or a NUMA boundary */
static void
check_place(unsigned int i)
{
	const struct fwd_port_gpu *pg = &fwd_run.port_gpu[i];
	const struct fwd_gpu *g = &fwd_run.gpus[pg->gpu];
	enum gpudp_check_level lvl = GPUDP_CHECK_WARN;
	const char *what;

	switch (pg->place.level) {
	case GPUDP_GPU_PLACE_SWITCH:
		lvl = GPUDP_CHECK_OK;
		what = "";
		break;
	case GPUDP_GPU_PLACE_ROOT:
		what = "; the port's traffic crosses the CPU's root complex";
		break;
	case GPUDP_GPU_PLACE_NUMA:
		what = "; the port's traffic crosses the CPU between root complexes";
		break;
	case GPUDP_GPU_PLACE_CROSS:
		what = "; the port's traffic crosses a NUMA boundary (the CPU interconnect)";
		break;
	default:
		lvl = GPUDP_CHECK_SKIP;
		what = "";
	}
	printf("%-5s %-6s port %u (%s) -> GPU %d (%s) by %s, level %s: %s%s\n",
	       gpudp_check_level_name(lvl), "place", cf->ports[i],
	       gpudp_app_port_dev_name(cf->ports[i]), g->ordinal, g->pci, pg->how,
	       gpudp_gpu_place_level_name(pg->place.level), pg->place.reason, what);
}

int
fwd_run_check(void)
{
	size_t per_port = (size_t)cf->ring * cf->burst * cf->data_room * cf->queues;
	uint16_t ports[FWD_MAX_PORTS];
	unsigned int g, i, n;
	int fails = 0, rc;

	rc = fwd_gpus_choose();
	if (rc == GPUDP_EXIT_USAGE)
		return rc;
	if (rc != 0) {
		if (cf->gpu_sel == FWD_GPU_ONE || cf->gpu_sel == FWD_GPU_DEFAULT)
			printf("FAIL  gpu    no usable GPU (--gpu %d)\n", cf->gpu);
		else
			printf("FAIL  gpu    no usable GPU (%s)\n",
			       cf->gpu_map != NULL ? "--gpu-map" : "--gpu auto");
		fails = 1 + gpudp_mem_check(NULL, cf->ports, cf->nb_ports,
					    per_port * cf->nb_ports, cf->pin, check_report, NULL);
	}
	for (g = 0; g < fwd_run.nb_gpus; g++) {
		const struct fwd_gpu *gp = &fwd_run.gpus[g];

		char what[300];

		printf("info  gpu    GPU %d (gpudev device %d) at %s: %u port%s\n", gp->ordinal,
		       gp->id, gp->pci, gp->nb_ports, gp->nb_ports == 1 ? "" : "s");
		if (gpu_igpu_alloc(gp, what, sizeof(what)))
			printf("info  igpu   GPU %d is %s\n", gp->ordinal, what);
		for (i = 0, n = 0; i < cf->nb_ports; i++)
			if (fwd_run.port_gpu[i].gpu == g)
				ports[n++] = cf->ports[i];
		fails += gpudp_mem_check(gp->pci[0] != '\0' ? gp->pci : NULL, ports, (uint16_t)n,
					 per_port * n, cf->pin, check_report, NULL);
	}
	for (i = 0; i < cf->nb_ports && fwd_run.nb_gpus > 0; i++)
		check_place(i);
	printf("%d failed checks\n", fails);
	fwd_run.nb_gpus = 0;
	return fails == 0 ? GPUDP_EXIT_OK : GPUDP_EXIT_FAILURE;
}

void
fwd_gpus_release(void)
{
#ifdef GPUDP_HAS_CUDA
	struct gpudp_gpu_props pr;
	unsigned int g;

	for (g = 0; g < fwd_run.nb_gpus; g++) {
		const struct fwd_gpu *gp = &fwd_run.gpus[g];
		/* its pins the registration caches kept (lazy unpin), its only */
		unsigned int cached = gpudp_mem_pin_gpu_release(gp->id);

		if (cached > 0)
			FWD_LOG(INFO, "GPU %d (%s): %u cached pins of its pools unpinned",
				gp->ordinal, gp->pci, cached);
		if (gpudp_gpu_props_get(gp->id, &pr) != 0)
			continue;
		if (pr.n_allocs == 0 && pr.n_registered == 0)
			FWD_LOG(INFO, "GPU %d (%s): released: 0 allocations, 0 registrations left",
				gp->ordinal, gp->pci);
		else
			FWD_LOG(WARNING, "GPU %d (%s): after teardown %zu allocations (%" PRIu64
				" bytes) and %zu registrations are left", gp->ordinal, gp->pci,
				pr.n_allocs, pr.alloc_bytes, pr.n_registered);
	}
#endif
	fwd_run.nb_gpus = 0;
}

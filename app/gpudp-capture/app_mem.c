/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpudp-capture: --mem: the GPU of --gpu, which memory the mbufs are in,
 * the mbuf pool (on an integrated GPU, host memory from cuMemHostAlloc,
 * --igpu-alloc: doc/tegra.md), the CPU mapping of device memory for the
 * CPU engine, and the release of all that.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_gpudev.h>
#include <rte_log.h>
#include <rte_mbuf.h>

#include <gpudp_mem.h>

#ifdef GPUDP_HAS_CUDA
#include <gpudp_gpu.h>
#endif
#include "cap_app.h"
#include "gpudp_app_gpu.h"

/*
 * The gpudev device of --gpu (a CUDA ordinal). gpudp's driver reports each
 * GPU's ordinal; a device of another driver (the e2e guest's test driver)
 * is taken by its gpudev id. -1 and app->gpu_why when there is none.
 */
int16_t
app_find_gpu(struct cap_app *app)
{
	return gpudp_app_gpu_find(app->conf.gpu, app->gpu_why, sizeof(app->gpu_why));
}

/* The --mem name of the memory in use. */
const char *
cap_mem_name(enum gpudp_cap_mem m)
{
	return m == GPUDP_CAP_MEM_HOST ? "pinned" : m == GPUDP_CAP_MEM_DEVICE ? "device" : "staged";
}

/* Whether lib/mem has a pin backend for a device pool here; why not in @p why. */
static int
pin_usable(const struct cap_app *app, char *why, size_t len)
{
	enum gpudp_pin_backend chosen;
	uint16_t ids[CAP_MAX_PORTS];
	unsigned int i;

	for (i = 0; i < app->n_ports; i++)
		ids[i] = app->ports[i].id;
	return gpudp_mem_pin_plan((enum gpudp_pin_backend)app->conf.pin, app->gpu_id, ids,
				  (uint16_t)app->n_ports, &chosen, why, len) == 0;
}

/*
 * --mem: decide what is used. Refusals of the user's choice are usage
 * errors (exit 2), a missing GPU exits 77 (as gpudp-fwd, and --verify).
 * @return 0, 2 or 77
 */
int
app_resolve_mem(struct cap_app *app, int gpu_engine)
{
	const struct cap_conf *c = &app->conf;
	char why[400] = "";
	unsigned int i;

	app->mem_note[0] = '\0';
	if (c->mem == CAP_CONF_MEM_STAGED) {
		app->mem = GPUDP_CAP_MEM_STAGED;
		return 0;
	}
	if (c->mem == CAP_CONF_MEM_DEVICE) {
		for (i = 0; i < app->n_ports; i++) {
			const struct cap_port *p = &app->ports[i];

			if (p->rx_kind != GPUDP_PORT_RX_CPU)
				continue;
			fprintf(stderr, "gpudp-capture: --mem device: bad value for port %u (%s, "
				"driver %s): it %s, so its mbufs cannot be in GPU memory; use "
				"--mem pinned (the GPU reads the host mbufs in place) or --mem "
				"staged\n", p->id, p->name, p->driver, p->rx_why);
			return GPUDP_EXIT_USAGE;
		}
	}
	if (c->mem == CAP_CONF_MEM_PINNED || c->mem == CAP_CONF_MEM_DEVICE) {
		if (app->gpu_id < 0) {
			fprintf(stderr, "gpudp-capture: --mem %s: no GPU to put the mbufs in: %s\n",
				cap_conf_mem_name(c->mem), app->gpu_why);
			return GPUDP_EXIT_NO_GPU;
		}
		app->mem = c->mem == CAP_CONF_MEM_PINNED ? GPUDP_CAP_MEM_HOST :
			GPUDP_CAP_MEM_DEVICE;
		return 0;
	}
	/* auto: GPU memory only where it works without a CPU copy and is read by the GPU */
	if (!gpu_engine)
		snprintf(why, sizeof(why), "the analysis runs on the CPU");
	else if (app->gpu_id < 0)
		snprintf(why, sizeof(why), "no gpudev device for GPU %u: %s", c->gpu, app->gpu_why);
	else if (app->n_gpus > 1)
		snprintf(why, sizeof(why), "the ports are on %u GPUs (in place, the mbufs are in "
			 "one pool, on one GPU)", app->n_gpus);
	for (i = 0; why[0] == '\0' && i < app->n_ports; i++) {
		const struct cap_port *p = &app->ports[i];

		if (p->rx_kind != GPUDP_PORT_RX_DMA)
			snprintf(why, sizeof(why), "port %u (%s, driver %s) %s", p->id, p->name,
				 p->driver, p->rx_kind == GPUDP_PORT_RX_CPU ? p->rx_why :
				 "does not write packets by DMA");
	}
	if (why[0] == '\0') {
		char pin[300];

		if (!pin_usable(app, pin, sizeof(pin)))
			snprintf(why, sizeof(why), "%s", pin);
	}
	if (why[0] != '\0') {
		app->mem = GPUDP_CAP_MEM_STAGED;
		snprintf(app->mem_note, sizeof(app->mem_note), "--mem auto: staged, because %s",
			 why);
	} else if (c->verify) {
		/* --verify analyses every batch on the CPU too, which cannot read device memory */
		app->mem = GPUDP_CAP_MEM_HOST;
		snprintf(app->mem_note, sizeof(app->mem_note), "--mem auto: pinned, because "
			 "--verify reads every packet on the CPU too, which cannot read --mem "
			 "device packets (the GPU still analyses them in place)");
	} else {
		app->mem = GPUDP_CAP_MEM_DEVICE;
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

/* --igpu-alloc for a device pool: an integrated GPU's is cuMemHostAlloc
 * memory, write-combined or not; a discrete GPU's is cuMemAlloc's. */
static void
igpu_alloc(const struct cap_app *app)
{
#ifdef GPUDP_HAS_CUDA
	struct gpudp_gpu_props pr;

	if (gpudp_gpu_props_get(app->gpu_id, &pr) != 0)
		return;
	if (pr.integrated) {
		gpudp_gpu_igpu_alloc_set(app->gpu_id, app->conf.igpu_wc ?
					 GPUDP_GPU_IGPU_ALLOC_WC : GPUDP_GPU_IGPU_ALLOC_DEFAULT);
		CAP_LOG(INFO, "GPU %u (%s) is integrated (it shares DRAM with the CPU): the "
			"--mem device pool is host memory from cuMemHostAlloc, %s (--igpu-alloc %s)",
			app->conf.gpu, pr.pci_addr, app->conf.igpu_wc ? "write-combined" :
			"not write-combined", app->conf.igpu_wc ? "wc" : "default");
	} else if (app->conf.igpu_wc) {
		CAP_LOG(NOTICE, "--igpu-alloc wc: GPU %u (%s) is not integrated: its pool comes "
			"from cuMemAlloc, the option does not apply", app->conf.gpu, pr.pci_addr);
	}
#else
	RTE_SET_USED(app);
#endif
}

/* The mbuf pool: DPDK's for staged, lib/mem's in GPU-registered host or GPU memory. */
int
app_create_pool(struct cap_app *app)
{
	uint16_t ids[CAP_MAX_PORTS];
	struct gpudp_pool_conf pc;
	struct gpudp_regcache_stats st;
	uint32_t room = app->conf.data_room, big = files_max_caplen(app);
	unsigned int i;

	if (app->mem == GPUDP_CAP_MEM_STAGED) {
		app->pool = rte_pktmbuf_pool_create("cap_rx", app->conf.mbufs, 256, 0,
						    (uint16_t)(room + RTE_PKTMBUF_HEADROOM),
						    (int)rte_socket_id());
		if (app->pool == NULL) {
			CAP_LOG(ERR, "cannot create the mbuf pool (%u mbufs of %u bytes of data, "
				"about %.1f MB): %s: fewer --mbufs, a smaller --data-room, or more "
				"memory for EAL (-m, hugepages)", app->conf.mbufs, room,
				(double)app->conf.mbufs * (64 + 128 + RTE_ALIGN_CEIL(room +
				RTE_PKTMBUF_HEADROOM, 64u)) / 1e6, rte_strerror(rte_errno));
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
	pc.type = app->mem == GPUDP_CAP_MEM_HOST ? GPUDP_MEM_PINNED : GPUDP_MEM_DEVICE;
	pc.gpu_id = app->gpu_id;
	pc.ports = ids;
	pc.nb_ports = (uint16_t)app->n_ports;
	pc.nb_mbufs = app->conf.mbufs;
	pc.data_room = (uint16_t)(room + RTE_PKTMBUF_HEADROOM);
	pc.cache_size = 256;
	pc.socket_id = (int)rte_socket_id();
	pc.pin = (enum gpudp_pin_backend)app->conf.pin;
	if (app->mem == GPUDP_CAP_MEM_DEVICE)
		igpu_alloc(app);
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
		app->mem == GPUDP_CAP_MEM_DEVICE ? ", pin backend " : "",
		app->mem == GPUDP_CAP_MEM_DEVICE ? gpudp_pin_backend_name(app->pinfo.pin) : "");
	return 0;
}

/*
 * Device memory analysed by the CPU: lib/mem maps every chunk of the pool
 * for the CPU (rte_gpu_mem_cpu_map; on real hardware the GPU's BAR through
 * gpudp_pin: it works, slowly) and unmaps them when the pool is destroyed.
 */
int
app_map_for_cpu(struct cap_app *app)
{
	char why[300] = "";
	int rc = gpudp_pool_cpu_map(app->gpool, why, sizeof(why));

	if (rc != 0) {
		char avail[160] = "";

#ifdef GPUDP_HAS_CUDA
		if (gpudp_gpu_cpu_map_available(avail, sizeof(avail)) == 0)
			avail[0] = '\0';
#endif
		fprintf(stderr, "gpudp-capture: --mem device with the CPU engine: cannot map GPU "
			"memory for the CPU (%s%s%s); analyse on the GPU, or use --mem pinned or "
			"staged\n", why, avail[0] ? ": " : "", avail);
		return -1;
	}
	app->cpu_mapped = 1;
	if (app->pinfo.host_alloc != 0) {
		CAP_LOG(NOTICE, "--mem device on the CPU engine: the integrated GPU's pool, %zu "
			"bytes of host memory in %u chunk%s, mapped with rte_gpu_mem_cpu_map (its "
			"host pointer); the CPU reads every packet in place (%s)",
			gpudp_pool_cpu_mapped(app->gpool), app->pinfo.chunks,
			app->pinfo.chunks == 1 ? "" : "s",
			(app->pinfo.host_alloc & GPUDP_MEM_HOST_ALLOC_WRITECOMBINED) ?
			"write-combined: uncached, slow reads" : "cached reads");
		return 0;
	}
	CAP_LOG(NOTICE, "--mem device on the CPU engine: %zu bytes of GPU memory in %u chunk%s "
		"mapped with rte_gpu_mem_cpu_map; the CPU reads every packet in place through "
		"that mapping (slow on real hardware: uncached reads across PCIe)",
		gpudp_pool_cpu_mapped(app->gpool), app->pinfo.chunks,
		app->pinfo.chunks == 1 ? "" : "s");
	return 0;
}

/* After the ports are closed: destroy the pool (and its CPU mapping), check nothing is left. */
int
app_release_pool(struct cap_app *app)
{
	int rc = 0;

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
				app->mem == GPUDP_CAP_MEM_HOST ? app->pinfo.data_bytes : (size_t)0,
				app->conf.gpu, pr.pci_addr, pr.n_allocs, pr.n_registered,
				pr.n_cpu_mapped);
			if (left)
				rc = -1;
		}
	}
#endif
	return rc;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What an app asks lib/mem before it builds a pool (gpudp_mem.h, doc/pools.md
 * "Policies"): whether a port DMAs into its mbufs, and which pin backend a
 * device pool would use and why (this host's facts, put to the rule of
 * gpudp_mem_pin_rule.c that gpudp_pool_create() follows too). Nothing here
 * allocates.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_bus.h>
#include <rte_common.h>
#include <rte_dev.h>
#include <rte_devargs.h>
#include <rte_ethdev.h>

#include <gpudp_errf.h>
#include <gpudp_pin_client.h>

#include "gpudp_mem.h"
#include "gpudp_mem_pvt.h"

/* software PMDs: each writes every received packet with the CPU */
static const char *const cpu_copiers[] = {
	"net_pcap", "net_tap", "net_af_packet", "net_ring", "net_memif", "net_af_xdp",
	"net_vhost", "net_virtio_user", "net_kni", "net_bonding", "net_failsafe",
	"net_softnic", "net_tun",
};

int
gpudp_mem_port_rx(uint16_t port_id, char *why, size_t len)
{
	struct rte_eth_dev_info info;
	const struct rte_devargs *da;
	const char *bus = NULL;
	unsigned int i;

	gpudp_errf(why, len, "%s", "");
	if (!rte_eth_dev_is_valid_port(port_id) || rte_eth_dev_info_get(port_id, &info) != 0) {
		gpudp_errf(why, len, "no port %u", port_id);
		return -ENODEV;
	}
	if (info.device != NULL && rte_dev_bus(info.device) != NULL)
		bus = rte_bus_name(rte_dev_bus(info.device));
	if (strcmp(info.driver_name, "net_null") == 0) {
		/* hands out mbufs without touching their data, unless copy=1 */
		da = info.device != NULL ? rte_dev_devargs(info.device) : NULL;
		if (da != NULL && da->args != NULL && strstr(da->args, "copy=1") != NULL) {
			gpudp_errf(why, len, "copies every packet with the CPU (copy=1)");
			return GPUDP_PORT_RX_CPU;
		}
		gpudp_errf(why, len, "writes no packet data (net_null)");
		return GPUDP_PORT_RX_NONE;
	}
	for (i = 0; i < RTE_DIM(cpu_copiers); i++)
		if (strcmp(info.driver_name, cpu_copiers[i]) == 0) {
			gpudp_errf(why, len, "is a software PMD that copies every packet with "
				   "the CPU");
			return GPUDP_PORT_RX_CPU;
		}
	if (bus != NULL && (strcmp(bus, "pci") == 0 || strcmp(bus, "auxiliary") == 0))
		return GPUDP_PORT_RX_DMA;
	gpudp_errf(why, len, "is not a PCI device that DMAs into its buffers");
	return GPUDP_PORT_RX_CPU;
}

/* every port is an mlx5 port (peermem: the PMD registers the VA itself) */
static int
ports_mlx5(const uint16_t *ports, uint16_t n, char *why, size_t len)
{
	struct rte_eth_dev_info info;
	uint16_t i;

	if (n == 0) {
		gpudp_errf(why, len, "peermem needs mlx5 ports, and no port was given");
		return 0;
	}
	for (i = 0; i < n; i++) {
		if (rte_eth_dev_info_get(ports[i], &info) != 0) {
			gpudp_errf(why, len, "peermem needs mlx5 ports: no port %u", ports[i]);
			return 0;
		}
		if (strcmp(info.driver_name, "mlx5_pci") != 0 &&
		    strcmp(info.driver_name, "net_mlx5") != 0) {
			gpudp_errf(why, len, "peermem needs mlx5 ports: port %u is %s", ports[i],
				   info.driver_name);
			return 0;
		}
	}
	return 1;
}

int
gpudp_mem_pin_plan(enum gpudp_pin_backend want, int16_t gpu_id, const uint16_t *ports,
		   uint16_t nb_ports, enum gpudp_pin_backend *chosen, char *why, size_t len)
{
	struct gpudp_mem_pin_facts f = { .module = -ENOENT, .peermem = -1 };
	struct gpudp_pin_version v;
	char no_export[160], no_peermem[160];

	/* only the facts the rule will look at: no module, GPU or port query more */
	if (want != GPUDP_PIN_PEERMEM) {
		f.module = gpudp_pin_shared_fd(&v);
		if (f.module >= 0)
			f.caps = v.caps;
	}
	if (f.module >= 0 && (f.caps & GPUDP_PIN_CAP_DMABUF) != 0 &&
	    (want == GPUDP_PIN_DMABUF || want == GPUDP_PIN_AUTO)) {
		if (gpudp_gpudev_dmabuf_exporter(gpu_id) != NULL)
			f.exporter = "gpudev";
		snprintf(no_export, sizeof(no_export), "GPU %d cannot export dma-bufs (no "
			 "cuMemGetHandleForAddressRange or no "
			 "CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED)", gpu_id);
#ifdef GPUDP_HAS_CUDA
		{
			struct gpudp_cuda_mem_caps caps;

			if (gpudp_mem_gpu_caps(gpu_id, NULL, &caps, NULL) == 0 && caps.integrated)
				snprintf(no_export, sizeof(no_export), "GPU %d is integrated: its "
					 "pools' cuMemHostAlloc memory has no dma-buf (no "
					 "CU_DEVICE_ATTRIBUTE_HOST_ALLOC_DMA_BUF_SUPPORTED)", gpu_id);
		}
#endif
		f.no_export = no_export;
	}
	if (want == GPUDP_PIN_PEERMEM || (want == GPUDP_PIN_AUTO && f.module < 0)) {
		f.peermem = ports_mlx5(ports, nb_ports, no_peermem, sizeof(no_peermem));
		f.no_peermem = no_peermem;
	}
	return gpudp_mem_pin_decide(want, &f, chosen, why, len);
}

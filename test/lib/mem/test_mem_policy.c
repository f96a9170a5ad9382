/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpdk: lib/mem's policies (gpudp_mem.h "policies") on real EAL and vdevs:
 * how a port fills its mbufs (net_null, net_null copy=1, net_ring,
 * net_pcap), which pin backend a device pool would use here (no
 * /dev/gpudp_pin, no mlx5 port: none, each refusal saying why; the same
 * backend gpudp_pool_create() takes), and the CPU mapping of a pool (a
 * host pool has none; a device pool without a gpudev device cannot be
 * mapped, and says which chunk). The rule itself, on every branch, is
 * test_mem_pin_rule.c's (unit).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <stdlib.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_gpudev.h>
#include <rte_mbuf.h>

#include <gpudp_mem.h>
#include <gpudp_pin_client.h>

#include "gpudp_test.h"
#include "gpudp_test_hostmem.h"

static uint16_t port_of(const char *name)
{
	uint16_t id = UINT16_MAX;

	if (rte_eth_dev_get_port_by_name(name, &id) != 0)
		return UINT16_MAX;
	return id;
}

static int
port_rx_kinds(void)
{
	static const struct { const char *name; int want; const char *why; } c[] = {
		{ "net_null0", GPUDP_PORT_RX_NONE, "writes no packet data" },
		{ "net_null1", GPUDP_PORT_RX_CPU, "copy=1" },
		{ "net_ring0", GPUDP_PORT_RX_CPU, "software PMD that copies" },
		{ "net_pcap0", GPUDP_PORT_RX_CPU, "software PMD that copies" },
	};
	char why[128];
	unsigned int i;

	for (i = 0; i < RTE_DIM(c); i++) {
		uint16_t id = port_of(c[i].name);
		int k;

		GPUDP_TEST_ASSERT(id != UINT16_MAX, "no port %s", c[i].name);
		k = gpudp_mem_port_rx(id, why, sizeof(why));
		GPUDP_TEST_ASSERT(k == c[i].want && strstr(why, c[i].why) != NULL,
				  "%s: %d '%s', want %d '%s'", c[i].name, k, why, c[i].want,
				  c[i].why);
	}
	GPUDP_TEST_ASSERT(gpudp_mem_port_rx(RTE_MAX_ETHPORTS - 1, why, sizeof(why)) == -ENODEV &&
			  strstr(why, "no port"), "a missing port: %s", why);
	return GPUDP_TEST_PASS;
}

static int
pin_plan_without_module_or_mlx5_says_why(void)
{
	enum gpudp_pin_backend chosen;
	uint16_t ports[1] = { port_of("net_null0") };
	char why[400];
	int rc;

	GPUDP_TEST_SKIP_IF(gpudp_pin_shared_fd(NULL) >= 0, "/dev/gpudp_pin opens here");
	rc = gpudp_mem_pin_plan(GPUDP_PIN_KMOD, 0, ports, 1, &chosen, why, sizeof(why));
	GPUDP_TEST_ASSERT(rc == -ENOTSUP && chosen == GPUDP_PIN_KMOD &&
			  strcmp(why, GPUDP_PIN_DEVICE_PATH " cannot be opened: No such file or "
				 "directory (is the gpudp_pin module loaded?)") == 0, "kmod: %d %s",
			  rc, why);
	rc = gpudp_mem_pin_plan(GPUDP_PIN_DMABUF, 0, ports, 1, &chosen, why, sizeof(why));
	GPUDP_TEST_ASSERT(rc == -ENOTSUP && strstr(why, GPUDP_PIN_DEVICE_PATH), "dmabuf: %d %s",
			  rc, why);
	rc = gpudp_mem_pin_plan(GPUDP_PIN_PEERMEM, 0, ports, 1, &chosen, why, sizeof(why));
	GPUDP_TEST_ASSERT(rc == -ENOTSUP && strstr(why, "mlx5") && strstr(why, "net_null"),
			  "peermem: %d %s", rc, why);
	rc = gpudp_mem_pin_plan(GPUDP_PIN_PEERMEM, 0, NULL, 0, &chosen, why, sizeof(why));
	GPUDP_TEST_ASSERT(rc == -ENOTSUP && strstr(why, "no port"), "peermem, no ports: %s", why);
	rc = gpudp_mem_pin_plan(GPUDP_PIN_AUTO, 0, ports, 1, &chosen, why, sizeof(why));
	GPUDP_TEST_ASSERT(rc == -ENOTSUP && strstr(why, "no pin backend") &&
			  strstr(why, GPUDP_PIN_DEVICE_PATH) && strstr(why, "mlx5"),
			  "auto: %d %s", rc, why);
	rc = gpudp_mem_pin_plan((enum gpudp_pin_backend)99, 0, ports, 1, &chosen, why,
				sizeof(why));
	GPUDP_TEST_ASSERT(rc == -EINVAL && strstr(why, "99"), "unknown: %d %s", rc, why);
	return GPUDP_TEST_PASS;
}

static int
cpu_map_refuses_a_host_pool(void)
{
	struct gpudp_pool_conf pc = {
		.name = "policy_host", .type = GPUDP_MEM_HOST, .nb_mbufs = 512,
		.data_room = RTE_MBUF_DEFAULT_BUF_SIZE, .socket_id = SOCKET_ID_ANY,
	};
	struct gpudp_pool *p = gpudp_pool_create(&pc);
	char why[200] = "";
	int rc;

	GPUDP_TEST_ASSERT(p != NULL, "host pool: %s", rte_strerror(rte_errno));
	rc = gpudp_pool_cpu_map(p, why, sizeof(why));
	GPUDP_TEST_ASSERT(rc == -EINVAL && strstr(why, "not in device memory"), "%d %s", rc,
			  why);
	GPUDP_TEST_ASSERT(gpudp_pool_cpu_mapped(p) == 0 &&
			  gpudp_pool_cpu_addr(p, 0x1000, 1) == NULL, "a host pool has a mapping");
	GPUDP_TEST_ASSERT(gpudp_pool_destroy(p) == 0, "destroy");
	return GPUDP_TEST_PASS;
}

/* host_stand_in (gpudp_test_hostmem.h): ordinary memory standing in for GPU
 * memory (no gpudev device) */
static struct gpudp_test_hostmem stand_in_mem;
static const struct gpudp_mem_allocator stand_in = GPUDP_TEST_HOSTMEM_ALLOCATOR(&stand_in_mem);

static struct gpudp_pool_conf
device_conf(const char *name, const uint16_t *ports, enum gpudp_pin_backend pin)
{
	return (struct gpudp_pool_conf){
		.name = name, .type = GPUDP_MEM_DEVICE, .gpu_id = 0, .ports = ports,
		.nb_ports = 1, .nb_mbufs = 512, .data_room = RTE_MBUF_DEFAULT_BUF_SIZE,
		.socket_id = SOCKET_ID_ANY, .pin = pin, .max_chunk = 256 << 10,
		.alloc = &stand_in,
	};
}

/* the plan names the backend pool creation takes, and refuses what it refuses */
static int
pin_plan_names_the_backend_pool_creation_takes(void)
{
	uint16_t ports[1] = { port_of("net_null0") };
	struct gpudp_pool_conf pc = device_conf("policy_auto", ports, GPUDP_PIN_AUTO);
	enum gpudp_pin_backend chosen = GPUDP_PIN_KMOD;
	struct gpudp_pool_info info;
	struct gpudp_pool *p;
	char why[400];
	int rc;

	GPUDP_TEST_SKIP_IF(gpudp_pin_shared_fd(NULL) >= 0, "/dev/gpudp_pin opens here");
	rc = gpudp_mem_pin_plan(GPUDP_PIN_AUTO, 0, ports, 1, &chosen, why, sizeof(why));
	p = gpudp_pool_create(&pc);
	GPUDP_TEST_ASSERT(p != NULL, "auto pool: %s", rte_strerror(rte_errno));
	gpudp_pool_info_get(p, &info);
	GPUDP_TEST_ASSERT(gpudp_pool_destroy(p) == 0, "destroy");
	/* the plan refuses peermem for a net_null port; the pool takes it as is */
	GPUDP_TEST_ASSERT(rc == -ENOTSUP && chosen == GPUDP_PIN_PEERMEM &&
			  info.pin == GPUDP_PIN_PEERMEM, "plan %d %s, pool %s (%s)", rc,
			  gpudp_pin_backend_name(chosen), gpudp_pin_backend_name(info.pin), why);
	/* kmod and dmabuf: both refuse, the pool leaving nothing behind */
	pc = device_conf("policy_kmod", ports, GPUDP_PIN_KMOD);
	rc = gpudp_mem_pin_plan(GPUDP_PIN_KMOD, 0, ports, 1, &chosen, why, sizeof(why));
	p = gpudp_pool_create(&pc);
	GPUDP_TEST_ASSERT(rc == -ENOTSUP && p == NULL && rte_errno == ENOTSUP &&
			  stand_in_mem.live == 0, "kmod: plan %d, pool %p errno %d, %d allocations",
			  rc, (void *)p, rte_errno, stand_in_mem.live);
	pc = device_conf("policy_dmabuf", ports, GPUDP_PIN_DMABUF);
	rc = gpudp_mem_pin_plan(GPUDP_PIN_DMABUF, 0, ports, 1, &chosen, why, sizeof(why));
	p = gpudp_pool_create(&pc);
	GPUDP_TEST_ASSERT(rc == -ENOTSUP && p == NULL && rte_errno == ENOTSUP &&
			  stand_in_mem.live == 0, "dmabuf: plan %d, pool %p errno %d", rc,
			  (void *)p, rte_errno);
	return GPUDP_TEST_PASS;
}

/* no gpudev device 0 here: the mapping fails on the first chunk, says so, maps nothing */
static int
cpu_map_of_a_device_pool_without_gpudev_names_the_chunk(void)
{
	uint16_t ports[1] = { port_of("net_null0") };
	struct gpudp_pool_conf pc = device_conf("policy_map", ports, GPUDP_PIN_PEERMEM);
	struct gpudp_pool *p;
	char why[200] = "";
	int rc;

	GPUDP_TEST_SKIP_IF(rte_gpu_is_valid(0), "gpudev device 0 exists here");
	p = gpudp_pool_create(&pc);
	GPUDP_TEST_ASSERT(p != NULL, "device pool: %s", rte_strerror(rte_errno));
	rc = gpudp_pool_cpu_map(p, why, sizeof(why));
	GPUDP_TEST_ASSERT(rc < 0 && strstr(why, "rte_gpu_mem_cpu_map of chunk 0") != NULL,
			  "%d %s", rc, why);
	GPUDP_TEST_ASSERT(gpudp_pool_cpu_mapped(p) == 0, "%zu bytes mapped",
			  gpudp_pool_cpu_mapped(p));
	GPUDP_TEST_ASSERT(gpudp_pool_destroy(p) == 0 && stand_in_mem.live == 0,
			  "destroy: %d chunks left", stand_in_mem.live);
	return GPUDP_TEST_PASS;
}

static const struct gpudp_test_case cases[] = {
	{ "port_rx_kinds", port_rx_kinds },
	{ "pin_plan_without_module_or_mlx5_says_why", pin_plan_without_module_or_mlx5_says_why },
	{ "pin_plan_names_the_backend_pool_creation_takes",
	  pin_plan_names_the_backend_pool_creation_takes },
	{ "cpu_map_refuses_a_host_pool", cpu_map_refuses_a_host_pool },
	{ "cpu_map_of_a_device_pool_without_gpudev_names_the_chunk",
	  cpu_map_of_a_device_pool_without_gpudev_names_the_chunk },
	{ NULL, NULL },
};

int
main(int argc, char **argv)
{
	char pcap[600];
	char *eal[] = { argv[0], "--no-huge", "-m", "256", "--no-pci", "--no-shconf",
		"--log-level", "lib.eal:warning", "--vdev", "net_null0", "--vdev",
		"net_null1,copy=1", "--vdev", "net_ring0", "--vdev", pcap, NULL };
	int rc;

	/* argv[1]: a capture file for net_pcap's rx */
	if (argc < 2) {
		fprintf(stderr, "usage: %s CAPTURE.pcap [case...]\n", argv[0]);
		return 1;
	}
	snprintf(pcap, sizeof(pcap), "net_pcap0,rx_pcap=%s", argv[1]);
	argv[1] = argv[0];
	argc--;
	argv++;
	if (rte_eal_init((int)RTE_DIM(eal) - 1, eal) < 0) {
		fprintf(stderr, "EAL: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	rc = gpudp_test_run("mem_policy", cases, argc, argv);
	rte_eal_cleanup();
	return rc;
}

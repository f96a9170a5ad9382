/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpu suite: lib/mem device and pinned pools on a real GPU through gpudp's
 * gpudev driver, forwarding through net_null (which never touches the
 * payload, so GPU memory is fine behind it). Exits 77 without a GPU.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_gpudev.h>
#include <rte_mbuf.h>

#include <gpudp_cuda.h>
#include <gpudp_gpu.h>
#include <gpudp_mem.h>
#include <gpudp_test.h>

#define NB_MBUF 4096
#define BURST 32

static const uint16_t ports[] = { 0, 1 };
static int16_t gpu = -1;

static int
port_start(uint16_t port, struct rte_mempool *mp)
{
	struct rte_eth_conf conf = {0};
	int rc = rte_eth_dev_configure(port, 1, 1, &conf);

	if (rc == 0)
		rc = rte_eth_rx_queue_setup(port, 0, 512, SOCKET_ID_ANY, NULL, mp);
	if (rc == 0)
		rc = rte_eth_tx_queue_setup(port, 0, 512, SOCKET_ID_ANY, NULL);
	if (rc == 0)
		rc = rte_eth_dev_start(port);
	return rc;
}

/* free GPU memory as the CUDA driver reports it (device 0's primary ctx) */
static size_t
gpu_free_bytes(void)
{
	size_t fr = 0, total = 0;
	CUcontext ctx;
	CUdevice dev;

	if (gpudp_cu->cuDeviceGet(&dev, 0) != CUDA_SUCCESS ||
	    gpudp_cu->cuDevicePrimaryCtxRetain(&ctx, dev) != CUDA_SUCCESS)
		return 0;
	gpudp_cu->cuCtxSetCurrent(ctx);
	gpudp_cu->cuMemGetInfo(&fr, &total);
	gpudp_cu->cuDevicePrimaryCtxRelease(dev);
	return fr;
}

static struct gpudp_pool_conf
conf_of(const char *name, enum gpudp_mem_type type)
{
	return (struct gpudp_pool_conf){
		.name = name, .type = type, .gpu_id = gpu, .ports = ports,
		.nb_ports = 2, .nb_mbufs = NB_MBUF, .data_room = 2048 + 128,
		.cache_size = 64, .socket_id = SOCKET_ID_ANY, .pin = GPUDP_PIN_PEERMEM,
	};
}

/* create, forward n bursts through net_null, stop, destroy */
static int
pool_cycle(enum gpudp_mem_type type, int bursts, int verbose)
{
	struct gpudp_pool_conf conf = conf_of("g_pool", type);
	struct rte_mbuf *pkts[BURST];
	struct gpudp_pool_info info;
	struct gpudp_pool *p;
	struct rte_mempool *mp;
	int i, rx = 0, bad = 0;
	uint16_t n, k, sent;

	p = gpudp_pool_create(&conf);
	GPUDP_TEST_ASSERT(p != NULL, "create %s pool: %s", gpudp_mem_type_name(type),
			  strerror(rte_errno));
	mp = gpudp_pool_mempool(p);
	GPUDP_TEST_ASSERT(port_start(0, mp) == 0 && port_start(1, mp) == 0, "ports");
	for (i = 0; i < bursts; i++) {
		n = rte_eth_rx_burst(0, 0, pkts, BURST);
		rx += n;
		for (k = 0; k < n; k++)
			bad += pkts[k]->pool != mp;
		sent = rte_eth_tx_burst(1, 0, pkts, n);
		if (sent < n)
			rte_pktmbuf_free_bulk(&pkts[sent], n - sent);
	}
	rte_eth_dev_stop(0);
	rte_eth_dev_stop(1);
	gpudp_pool_info_get(p, &info);
	if (verbose)
		printf("    %s pool: %u mbufs, %zu B GPU memory for %zu B of buffers, "
		       "%zu B host memory, %u chunks\n", gpudp_mem_type_name(type),
		       info.nb_mbufs, info.gpu_bytes, info.data_bytes, info.host_bytes,
		       info.chunks);
	GPUDP_TEST_ASSERT(rx == bursts * BURST && bad == 0, "rx %d bad %d", rx, bad);
	GPUDP_TEST_ASSERT(gpudp_pool_destroy(p) == 0, "destroy");
	return GPUDP_TEST_PASS;
}

#define NEED_GPU() GPUDP_TEST_SKIP_IF(gpu < 0, "no GPU (gpudev found none)")

static int
device_pool_forwards_through_null(void)
{
	NEED_GPU();
	return pool_cycle(GPUDP_MEM_DEVICE, 10000, 1);
}

static int
pinned_pool_forwards_through_null(void)
{
	NEED_GPU();
	return pool_cycle(GPUDP_MEM_PINNED, 10000, 1);
}

/* 1000 create/forward/destroy cycles leave no GPU memory behind */
static int
device_pool_teardown_leaks_nothing_x1000(void)
{
	size_t before, after;
	int i, rc;

	NEED_GPU();
	rc = pool_cycle(GPUDP_MEM_DEVICE, 1, 0);   /* warm-up: contexts, caches */
	if (rc != GPUDP_TEST_PASS)
		return rc;
	before = gpu_free_bytes();
	for (i = 0; i < 1000; i++) {
		rc = pool_cycle(GPUDP_MEM_DEVICE, 4, 0);
		if (rc != GPUDP_TEST_PASS)
			return rc;
	}
	after = gpu_free_bytes();
	printf("    GPU free memory before %zu, after 1000 cycles %zu\n", before, after);
	GPUDP_TEST_ASSERT(before != 0 && after == before, "leaked %zd bytes",
			  (ssize_t)(before - after));
	return GPUDP_TEST_PASS;
}

static const struct gpudp_test_case cases[] = {
	{ "device_pool_forwards_through_null", device_pool_forwards_through_null },
	{ "pinned_pool_forwards_through_null", pinned_pool_forwards_through_null },
	{ "device_pool_teardown_leaks_nothing_x1000", device_pool_teardown_leaks_nothing_x1000 },
	{ NULL, NULL },
};

int
main(int argc, char **argv)
{
	char *eal_argv[] = {
		argv[0], "-l", "0", "--no-huge", "-m", "1024", "--no-shconf",
		"--log-level=*:warning", "--vdev", "net_null0", "--vdev", "net_null1",
		NULL,
	};
	int rc;

	if (rte_eal_init(RTE_DIM(eal_argv) - 1, eal_argv) < 0) {
		fprintf(stderr, "EAL init failed: %s\n", strerror(rte_errno));
		return 1;
	}
	/* GPUs the EAL's PCI scan did not probe become gpudev devices here */
	gpudp_gpu_probe_all();
	if (gpudp_cuda_init() == 0 && rte_gpu_count_avail() > 0)
		gpu = rte_gpu_find_next(0, RTE_GPU_ID_ANY);
	else
		fprintf(stderr, "    no GPU: %s (gpudev: %u)\n", gpudp_cuda_last_error(),
			rte_gpu_count_avail());
	rc = gpudp_test_run("gpu_pools", cases, argc, argv);
	rte_eal_cleanup();
	return rc;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpu suite: lib/mem device and pinned pools on a real GPU through gpudp's
 * gpudev driver, forwarding through net_null (which never touches the
 * payload, so GPU memory is fine behind it). Also exports device memory
 * as a dma-buf (cuMemGetHandleForAddressRange, what the dmabuf pin backend
 * hands to gpudp_pin). Exits 77 without a GPU.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* Export [ptr, ptr + len) as a dma-buf fd in ptr's context; negative on error. */
static int
export_dmabuf(void *ptr, size_t len, CUresult *res)
{
	CUcontext ctx = NULL, prev;
	int fd = -1;

	*res = gpudp_cu->cuPointerGetAttribute(&ctx, CU_POINTER_ATTRIBUTE_CONTEXT,
					       (CUdeviceptr)(uintptr_t)ptr);
	if (*res != CUDA_SUCCESS)
		return -1;
	*res = gpudp_cu->cuCtxPushCurrent(ctx);
	if (*res != CUDA_SUCCESS)
		return -1;
	*res = gpudp_cu->cuMemGetHandleForAddressRange(&fd, (CUdeviceptr)(uintptr_t)ptr, len,
						       CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, 0);
	gpudp_cu->cuCtxPopCurrent(&prev);
	return *res == CUDA_SUCCESS ? fd : -1;
}

/* Is fd a dma-buf of len bytes? Prints what it found. */
static int
check_dmabuf_fd(int fd, size_t len)
{
	char path[64], link[128] = "", info[512] = "", *exp;
	struct stat st;
	ssize_t n;
	off_t end;
	int fi;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, link, sizeof(link) - 1);
	link[n > 0 ? n : 0] = '\0';
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	fi = open(path, O_RDONLY);
	if (fi >= 0) {
		n = read(fi, info, sizeof(info) - 1);
		info[n > 0 ? n : 0] = '\0';
		close(fi);
	}
	exp = strstr(info, "exp_name:");
	if (exp != NULL)
		exp[strcspn(exp, "\n")] = '\0';
	end = lseek(fd, 0, SEEK_END);
	printf("    fd %d -> '%s', size %jd (%s)\n", fd, link, (intmax_t)end,
	       exp != NULL ? exp : "no exp_name in fdinfo");
	GPUDP_TEST_ASSERT(fstat(fd, &st) == 0, "fstat: %s", strerror(errno));
	/* "/dmabuf:" on kernels with the dmabuf pseudo-fs, "anon_inode:dmabuf" before */
	GPUDP_TEST_ASSERT(strstr(link, "dmabuf") != NULL, "not a dma-buf: '%s'", link);
	GPUDP_TEST_ASSERT(end == (off_t)len, "size %jd, want %zu", (intmax_t)end, len);
	return GPUDP_TEST_PASS;
}

/* device memory exports as a dma-buf: whole allocation and a 64 KiB range */
static int
device_memory_exports_as_dmabuf(void)
{
	const size_t len = 2u << 20, page = 64u << 10;
	struct rte_gpu_info info;
	CUdevice dev;
	CUresult res;
	int v = 0, fd, rc;
	void *p;

	NEED_GPU();
	GPUDP_TEST_SKIP_IF(gpudp_cu->cuMemGetHandleForAddressRange == NULL,
			   "driver lacks cuMemGetHandleForAddressRange");
	GPUDP_TEST_ASSERT(rte_gpu_info_get(gpu, &info) == 0 && info.name != NULL, "info");
	GPUDP_TEST_ASSERT(gpudp_cu->cuDeviceGetByPCIBusId(&dev, info.name) == CUDA_SUCCESS,
			  "CUDA device of %s", info.name);
	GPUDP_TEST_ASSERT(gpudp_cu->cuDeviceGetAttribute(&v,
			  CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED, dev) == CUDA_SUCCESS,
			  "DMA_BUF_SUPPORTED");
	printf("    %s: CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED = %d\n", info.name, v);
	GPUDP_TEST_SKIP_IF(v == 0, "%s: CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED is 0", info.name);
	p = rte_gpu_mem_alloc(gpu, len, page);
	GPUDP_TEST_ASSERT(p != NULL, "rte_gpu_mem_alloc: %s", strerror(rte_errno));
	fd = export_dmabuf(p, len, &res);
	if (fd < 0)
		printf("    export of %zu bytes: %s\n", len, gpudp_cuda_errstr(res));
	rc = fd >= 0 ? check_dmabuf_fd(fd, len) : GPUDP_TEST_FAIL;
	if (fd >= 0)
		close(fd);
	if (rc == GPUDP_TEST_PASS) {
		fd = export_dmabuf((char *)p + page, page, &res);
		if (fd < 0)
			printf("    export of 64 KiB at +64 KiB: %s\n", gpudp_cuda_errstr(res));
		rc = fd >= 0 ? check_dmabuf_fd(fd, page) : GPUDP_TEST_FAIL;
		if (fd >= 0)
			close(fd);
	}
	GPUDP_TEST_ASSERT(rte_gpu_mem_free(gpu, p) == 0, "free");
	return rc;
}

static const struct gpudp_test_case cases[] = {
	{ "device_pool_forwards_through_null", device_pool_forwards_through_null },
	{ "pinned_pool_forwards_through_null", pinned_pool_forwards_through_null },
	{ "device_pool_teardown_leaks_nothing_x1000", device_pool_teardown_leaks_nothing_x1000 },
	{ "device_memory_exports_as_dmabuf", device_memory_exports_as_dmabuf },
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

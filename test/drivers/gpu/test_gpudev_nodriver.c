/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpdk suite (runs anywhere, no GPU needed): the gpudev driver is linked
 * into DPDK programs and, without an NVIDIA driver, leaves
 * rte_gpu_count_avail() at 0 with one log line and no crash. "No driver"
 * is forced with GPUDP_LIBCUDA pointing at a missing library, so the test
 * means the same on a GPU machine.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_bus_vdev.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_gpudev.h>
#include <rte_log.h>

#include <gpudp_gpu.h>
#include <gpudp_test.h>

static char *log_buf;
static size_t log_len;
static FILE *log_stream;

static int
count_log(const char *sub)
{
	const char *s = log_buf;
	int n = 0;

	fflush(log_stream);
	while (s != NULL && (s = strstr(s, sub)) != NULL) {
		n++;
		s += strlen(sub);
	}
	return n;
}

static int
probe_all_finds_nothing_and_logs_once(void)
{
	GPUDP_TEST_ASSERT(rte_gpu_count_avail() == 0, "count %u after EAL init",
			  rte_gpu_count_avail());
	GPUDP_TEST_ASSERT(gpudp_gpu_probe_all() == 0, "probe_all found a GPU");
	GPUDP_TEST_ASSERT(gpudp_gpu_probe_all() == 0, "second probe_all");
	GPUDP_TEST_ASSERT(rte_gpu_count_avail() == 0, "count %u", rte_gpu_count_avail());
	GPUDP_TEST_ASSERT(count_log("gpudp.gpu:") == 1, "%d gpudp.gpu log lines, want 1",
			  count_log("gpudp.gpu:"));
	GPUDP_TEST_ASSERT(count_log("/nonexistent/libcuda.so.1") >= 1,
			  "the log line does not name the missing library");
	printf("    log: %s", strstr(log_buf, "gpudp.gpu:"));
	return GPUDP_TEST_PASS;
}

/* The vdev driver answers (not "no driver found", which is -1). */
static int
driver_is_linked_in(void)
{
	GPUDP_TEST_ASSERT(rte_vdev_init(GPUDP_GPU_DRIVER_NAME "0", "cuda=0") == -ENODEV,
			  "vdev probe did not reach the gpudp driver");
	GPUDP_TEST_ASSERT(rte_vdev_init(GPUDP_GPU_DRIVER_NAME "1", "bogus=1") == -EINVAL,
			  "the driver accepted an unknown devarg");
	GPUDP_TEST_ASSERT(rte_vdev_init(GPUDP_GPU_DRIVER_NAME "2", "wmb=sometimes") == -EINVAL,
			  "the driver accepted wmb=sometimes");
	GPUDP_TEST_ASSERT(rte_gpu_count_avail() == 0, "count %u", rte_gpu_count_avail());
	return GPUDP_TEST_PASS;
}

static int
api_without_gpu_fails_cleanly(void)
{
	struct gpudp_gpu_props pr;
	struct rte_gpu_info info;
	char why[160] = "";
	int x;

	GPUDP_TEST_ASSERT(rte_gpu_mem_alloc(0, 4096, 0) == NULL && rte_errno == ENODEV,
			  "alloc on no GPU");
	GPUDP_TEST_ASSERT(rte_gpu_mem_free(0, &x) == -ENODEV, "free");
	GPUDP_TEST_ASSERT(rte_gpu_mem_register(0, sizeof(x), &x) == -ENODEV, "register");
	GPUDP_TEST_ASSERT(rte_gpu_wmb(0) == -ENODEV, "wmb");
	GPUDP_TEST_ASSERT(rte_gpu_info_get(0, &info) == -ENODEV, "info");
	GPUDP_TEST_ASSERT(gpudp_gpu_props_get(0, &pr) == -ENODEV, "props");
	GPUDP_TEST_ASSERT(gpudp_gpu_add_child("c", 0, 1) < 0, "add_child");
	GPUDP_TEST_ASSERT(gpudp_gpu_cpu_map_available(why, sizeof(why)) < 0 &&
			  why[0] != '\0', "cpu_map_available gave no reason");
	printf("    cpu_map: %s\n", why);
	return GPUDP_TEST_PASS;
}

int
main(int argc, char **argv)
{
	static const struct gpudp_test_case cases[] = {
		{ "probe_all_finds_nothing_and_logs_once", probe_all_finds_nothing_and_logs_once },
		{ "driver_is_linked_in", driver_is_linked_in },
		{ "api_without_gpu_fails_cleanly", api_without_gpu_fails_cleanly },
		{ NULL, NULL },
	};
	char *eal[] = { argv[0], (char *)"-l", (char *)"0", (char *)"--no-huge",
		(char *)"-m", (char *)"128", (char *)"--no-pci", (char *)"--no-shconf",
		(char *)"--log-level=gpudp.gpu:info", NULL };
	int rc;

	setenv("GPUDP_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
	log_stream = open_memstream(&log_buf, &log_len);
	if (log_stream == NULL || rte_openlog_stream(log_stream) != 0)
		return 1;
	if (rte_eal_init((int)RTE_DIM(eal) - 1, eal) < 0) {
		fprintf(stderr, "rte_eal_init failed\n");
		return 1;
	}
	rc = gpudp_test_run("gpudev_nodriver", cases, argc, argv);
	rte_eal_cleanup();
	return rc;
}

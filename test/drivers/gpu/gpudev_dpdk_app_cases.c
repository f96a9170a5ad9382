/* SPDX-License-Identifier: BSD-3-Clause */
/* gpudev driver cases: DPDK's app/test-gpudev on this driver, close and re-probe (test_gpu_gpudev). */
#include "gpudev_test.h"

/* DPDK's own app/test-gpudev, run once in a child; each of its tests is a
 * case here. Its gpu_mem_cpu_map test needs CPU mapping (GDRCopy in DPDK's
 * driver, gpudp_pin in ours) and is a SKIP where that is unavailable. */
char tg_out[1 << 18];
int tg_rc = -2;

int
test_gpudev_result(const char *title, const char *needs_cpu_map_err)
{
	char header[128], why[160];
	const char *s, *end, *next;

	NEED_GPU();
	if (tg_rc == -2) {
		const char *args[] = { "--dpdk-test-gpudev", "-l", "0", "--no-huge",
			"-m", "512", "--no-shconf", "--log-level=gpudp.gpu:info",
			/* the fake device is no PCI function: name it as a vdev */
			fake ? "--vdev" : NULL, "gpu_gpudp0,cuda=0", NULL };

		tg_rc = run_self(args, NULL, tg_out, sizeof(tg_out));
		printf("    dpdk-test-gpudev exited %d; its output:\n", tg_rc);
		fflush(stdout);
		print_indented(tg_out);
	}
	/* 77: built against an installed DPDK, whose app/test-gpudev source
	 * is not at hand (dpdk_test_gpudev_none.c) */
	GPUDP_TEST_SKIP_IF(tg_rc == 77, "DPDK's app/test-gpudev is not in this build");
	if (title == NULL) {
		GPUDP_TEST_ASSERT(tg_rc == 0, "dpdk-test-gpudev exited %d", tg_rc);
		GPUDP_TEST_ASSERT(strstr(tg_out, "DPDK found 1 GPUs") != NULL ||
				  n_cuda != 1, "it did not find exactly one GPU");
		return GPUDP_TEST_PASS;
	}
	snprintf(header, sizeof(header), "=======> TEST: %s\n", title);
	s = strstr(tg_out, header);
	GPUDP_TEST_ASSERT(s != NULL, "test \"%s\" did not run", title);
	end = strstr(s + strlen(header), "=======> TEST: PASSED");
	next = strstr(s + strlen(header), "=======> TEST: FAILED");
	if (end != NULL && (next == NULL || end < next))
		return GPUDP_TEST_PASS;
	GPUDP_TEST_ASSERT(next != NULL, "no result for \"%s\"", title);
	if (needs_cpu_map_err != NULL &&
	    gpudp_gpu_cpu_map_available(why, sizeof(why)) != 0) {
		const char *e = strstr(s, needs_cpu_map_err);

		/* only the CPU-mapping step may have failed */
		GPUDP_TEST_ASSERT(e != NULL && e < next,
				  "failed before reaching rte_gpu_mem_cpu_map");
		GPUDP_TEST_SKIP_IF(1, "needs CPU mapping of GPU memory: %s", why);
	}
	GPUDP_TEST_ASSERT(0, "\"%s\" FAILED", title);
	return GPUDP_TEST_FAIL;
}

int tg_runs_and_finds_gpu(void) { return test_gpudev_result(NULL, NULL); }
int tg_alloc_gpu_memory(void) { return test_gpudev_result("Allocate GPU memory", NULL); }
int tg_register_cpu_memory(void) { return test_gpudev_result("Register CPU memory", NULL); }
int tg_gpu_mem_cpu_map(void)
{
	return test_gpudev_result("Map GPU memory for CPU visibility",
				  "rte_gpu_mem_cpu_map returned error");
}
int tg_comm_flag(void) { return test_gpudev_result("Communication flag", NULL); }
int tg_comm_list(void) { return test_gpudev_result("Communication list", NULL); }

/* Last: close returns what the app left behind; probe_all brings it back. */
int
close_releases_memory_and_probe_all_restores(void)
{
	size_t free0 = 0, free1 = 0, free2 = 0, total = 0;
	void *g[3], *h = NULL;
	int i;

	NEED_GPU();
	CU_OK(gpudp_cu->cuMemGetInfo(&free0, &total));
	for (i = 0; i < 3; i++) {
		g[i] = rte_gpu_mem_alloc(0, 128 * MIB, 0);
		GPUDP_TEST_ASSERT(g[i] != NULL, "alloc");
	}
	GPUDP_TEST_ASSERT(posix_memalign(&h, 4096, 1 << 20) == 0, "posix_memalign");
	GPUDP_TEST_ASSERT(rte_gpu_mem_register(0, 1 << 20, h) == 0, "register");
	CU_OK(gpudp_cu->cuMemGetInfo(&free1, &total));
	GPUDP_TEST_ASSERT(free0 - free1 >= 384 * MIB, "allocations took only %zu MiB",
			  (free0 - free1) >> 20);
	GPUDP_TEST_ASSERT(rte_gpu_close(0) == 0, "close: %s", rte_strerror(rte_errno));
	GPUDP_TEST_ASSERT(!rte_gpu_is_valid(0), "device 0 still valid");
	CU_OK(gpudp_cu->cuMemGetInfo(&free2, &total));
	GPUDP_TEST_ASSERT(free2 >= free1 + 384 * MIB, "close returned only %zu MiB",
			  (free2 - free1) >> 20);
	/* the registration is gone too: registering again works */
	CU_OK(gpudp_cu->cuMemHostRegister(h, 1 << 20, 0));
	CU_OK(gpudp_cu->cuMemHostUnregister(h));
	free(h);
	GPUDP_TEST_ASSERT(gpudp_gpu_probe_all() == n_cuda, "probe_all after close");
	GPUDP_TEST_ASSERT(rte_gpu_count_avail() == (unsigned int)n_cuda, "count");
	g[0] = rte_gpu_mem_alloc(0, 4096, 0);
	GPUDP_TEST_ASSERT(g[0] != NULL && rte_gpu_mem_free(0, g[0]) == 0,
			  "the re-probed device works");
	return GPUDP_TEST_PASS;
}

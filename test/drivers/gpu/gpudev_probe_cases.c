/* SPDX-License-Identifier: BSD-3-Clause */
/* gpudev driver cases: probing (EAL, allow/block lists, vdev), no driver, devargs, info (test_gpu_gpudev). */
#include "gpudev_test.h"

/* --------------------------------------------------------------- cases */

int
eal_probes_every_gpu_without_allowlist(void)
{
	struct gpudp_gpu_props pr;

	NEED_GPU();
	GPUDP_TEST_SKIP_IF(fake, "the fake CUDA device has no PCI function");
	printf("    %d CUDA device(s), %u gpudev device(s) after rte_eal_init (no -a)\n",
	       n_cuda, rte_gpu_count_avail());
	GPUDP_TEST_ASSERT(rte_gpu_count_avail() == (unsigned int)n_cuda,
			  "rte_gpu_count_avail() %u, CUDA devices %d",
			  rte_gpu_count_avail(), n_cuda);
	GPUDP_TEST_ASSERT(gpudp_gpu_props_get(0, &pr) == 0, "props of gpudev 0");
	GPUDP_TEST_ASSERT(strcmp(pr.bus, "pci") == 0, "found via %s", pr.bus);
	GPUDP_TEST_ASSERT(strcmp(pr.pci_addr, bdf0) == 0, "gpudev 0 is %s, CUDA 0 is %s",
			  pr.pci_addr, bdf0);
	return GPUDP_TEST_PASS;
}

int
probe_all_is_idempotent(void)
{
	NEED_GPU();
	GPUDP_TEST_ASSERT(gpudp_gpu_probe_all() == n_cuda, "probe_all");
	GPUDP_TEST_ASSERT(gpudp_gpu_probe_all() == n_cuda, "probe_all again");
	GPUDP_TEST_ASSERT(rte_gpu_count_avail() == (unsigned int)n_cuda,
			  "count %u", rte_gpu_count_avail());
	return GPUDP_TEST_PASS;
}

int
allowlist_naming_only_nic_still_finds_gpu(void)
{
	const char *args[] = { "--child", "allowlist", NULL };

	NEED_GPU();
	return expect_child(args, NULL, fake ? "via vdev" : "via pci");
}

int
no_pci_finds_gpu_through_vdev(void)
{
	const char *args[] = { "--child", "nopci", NULL };

	NEED_GPU();
	return expect_child(args, NULL, "via vdev");
}

int
blocklisted_gpu_is_left_alone(void)
{
	const char *args[] = { "--child", "blocked", bdf0, NULL };

	NEED_GPU();
	return expect_child(args, NULL, "blocked by -b");
}

int
no_driver_gives_zero_gpus_and_one_log_line(void)
{
	static char out[1 << 16];
	const char *args[] = { "--child", "nodriver", NULL };
	int rc;

	NEED_GPU();
	rc = run_self(args, "/nonexistent/libcuda.so.1", out, sizeof(out));
	if (rc != 0 || count_substr(out, "gpudp.gpu:") != 1) {
		fprintf(stderr, "    child exited %d; its output:\n", rc);
		print_indented(out);
	}
	GPUDP_TEST_ASSERT(rc == 0, "child exited %d", rc);
	GPUDP_TEST_ASSERT(count_substr(out, "gpudp.gpu:") == 1,
			  "%d gpudp.gpu log lines, want exactly 1",
			  count_substr(out, "gpudp.gpu:"));
	GPUDP_TEST_ASSERT(strstr(out, "/nonexistent/libcuda.so.1") != NULL,
			  "the log line does not say which library is missing");
	return GPUDP_TEST_PASS;
}

int
wmb_flush_devarg_makes_wmb_flush(void)
{
	const char *args[] = { "--child", "wmbflush", bdf0, NULL };

	NEED_GPU();
	return expect_child(args, NULL, "rte_gpu_wmb twice: ok");
}

int
info_reports_memory_sms_numa(void)
{
	struct rte_gpu_info info;
	struct gpudp_gpu_props pr;
	char path[96];
	size_t total = 0;
	int sms = 0, numa = -1;
	FILE *f;

	NEED_GPU();
	GPUDP_TEST_ASSERT(rte_gpu_info_get(0, &info) == 0, "info_get");
	GPUDP_TEST_ASSERT(gpudp_gpu_props_get(0, &pr) == 0, "props");
	CU_OK(gpudp_cu->cuDeviceTotalMem(&total, cu_dev0));
	CU_OK(gpudp_cu->cuDeviceGetAttribute(&sms,
		CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, cu_dev0));
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/numa_node", bdf0);
	f = fopen(path, "r");
	if (f != NULL) {
		if (fscanf(f, "%d", &numa) != 1 || numa < 0)
			numa = -1;
		fclose(f);
	}
	printf("    %s: %s, sm_%d%d, %u SMs, %.1f GiB, NUMA %d, GDR %d, ordering %d, flush options %d, wmb %s\n",
	       info.name, pr.product, pr.cc_major, pr.cc_minor, info.processor_count,
	       (double)info.total_memory / (double)GIB, info.numa_node,
	       pr.gdr_supported, pr.gdr_writes_ordering, pr.gdr_flush_options,
	       pr.wmb_flushes ? "flushes" : "no-op");
	GPUDP_TEST_ASSERT(strcmp(info.name, bdf0) == 0, "name %s", info.name);
	GPUDP_TEST_ASSERT(info.total_memory == total, "memory %zu vs %zu",
			  info.total_memory, total);
	GPUDP_TEST_ASSERT(info.processor_count == (uint32_t)sms, "SMs %u vs %d",
			  info.processor_count, sms);
	GPUDP_TEST_ASSERT(info.page_size == 64 * KIB, "page size %zu", info.page_size);
	GPUDP_TEST_ASSERT(info.numa_node == numa || (numa == -1 && info.numa_node >= -1),
			  "NUMA %d, sysfs says %d", info.numa_node, numa);
	GPUDP_TEST_ASSERT(info.parent == RTE_GPU_ID_NONE, "parent %d", info.parent);
	GPUDP_TEST_ASSERT(pr.product[0] != '\0' && !pr.is_child, "product/child");
	GPUDP_TEST_ASSERT(info.context == (uint64_t)(uintptr_t)ctx0,
			  "context is not the primary context");
	return GPUDP_TEST_PASS;
}

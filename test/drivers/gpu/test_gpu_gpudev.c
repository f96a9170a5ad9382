/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpu suite: gpudp's gpudev driver (drivers/gpu) on a real GPU, through
 * DPDK's rte_gpu_* API. One DPDK-linked executable with four modes, so a
 * single static binary travels to the GPU machine:
 *
 *   test_gpu_gpudev [CASE...]              the cases below (default: all)
 *   test_gpu_gpudev --child MODE [ARG]     a fresh process with other EAL
 *                                          arguments (used by the cases)
 *   test_gpu_gpudev --dpdk-test-gpudev EAL...   DPDK's app/test-gpudev,
 *                                          compiled from the subproject's
 *                                          main.c with main renamed (exit
 *                                          77 with -Ddpdk=system)
 *   test_gpu_gpudev --bench [--json FILE]  microbenchmark, JSON on stdout
 *
 * Without a CUDA driver or device every case skips and the exit status is
 * 77 (meson's SKIP); --bench prints {"skipped": ...} and exits 77.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_pci.h>
#include <rte_gpudev.h>

#include <gpudp_cuda.h>
#include <gpudp_gpu.h>
#include <gpudp_test.h>

/* DPDK's app/test-gpudev/main.c, built with -Dmain=<this> (meson.build) */
int gpudp_dpdk_test_gpudev_main(int argc, char **argv);

#define GIB (UINT64_C(1) << 30)
#define MIB (UINT64_C(1) << 20)
#define KIB (UINT64_C(1) << 10)

static int n_cuda;          /* CUDA devices visible */
static CUdevice cu_dev0;
static CUcontext ctx0;      /* device 0's primary context, current on main */
static char bdf0[24];       /* device 0's PCI address, lower case */
static int gpu_ok;          /* CUDA and EAL both up */
/* GPUDP_TEST_FAKE_CUDA=1: GPUDP_LIBCUDA is test/common/fake_libcuda.c, whose
 * device has no PCI function: it is found through the vdev bus. */
static int fake;

#define CU_OK(call) do { \
	CUresult r_ = (call); \
	GPUDP_TEST_ASSERT(r_ == CUDA_SUCCESS, "%s: %s", #call, gpudp_cuda_errstr(r_)); \
} while (0)

#define NEED_GPU() GPUDP_TEST_SKIP_IF(!gpu_ok, "no CUDA device")

/* ------------------------------------------------------------ helpers */

static int
cuda_setup(void)
{
	struct rte_pci_addr a;
	char buf[32];

	if (gpudp_cuda_init() != 0) {
		fprintf(stderr, "    no GPU: %s\n", gpudp_cuda_last_error());
		return -1;
	}
	if (gpudp_cu->cuDeviceGetCount(&n_cuda) != CUDA_SUCCESS || n_cuda < 1 ||
	    gpudp_cu->cuDeviceGet(&cu_dev0, 0) != CUDA_SUCCESS ||
	    gpudp_cu->cuDeviceGetPCIBusId(buf, sizeof(buf), cu_dev0) != CUDA_SUCCESS)
		return -1;
	/* DPDK's spelling: 4-digit domain, lower case */
	if (rte_pci_addr_parse(buf, &a) != 0)
		return -1;
	rte_pci_device_name(&a, bdf0, sizeof(bdf0));
	return 0;
}

static int
ncpus(void)
{
	cpu_set_t s;

	if (sched_getaffinity(0, sizeof(s), &s) != 0)
		return 1;
	return CPU_COUNT(&s);
}

static int
eal_init(int lcores, const char *const *extra)
{
	char lc[32], *argv[32];
	int argc = 0, i;

	snprintf(lc, sizeof(lc), "0-%d", lcores - 1);
	argv[argc++] = (char *)"test_gpu_gpudev";
	argv[argc++] = (char *)"-l";
	argv[argc++] = lc;
	argv[argc++] = (char *)"--no-huge";
	argv[argc++] = (char *)"-m";
	argv[argc++] = (char *)"512";
	argv[argc++] = (char *)"--no-shconf";
	argv[argc++] = (char *)"--log-level=gpudp.gpu:info";
	for (i = 0; extra != NULL && extra[i] != NULL && argc < 31; i++)
		argv[argc++] = (char *)extra[i];
	argv[argc] = NULL;
	return rte_eal_init(argc, argv);
}

/* Run this program again with args; capture its stdout+stderr in out.
 * @return its exit status, or -1. */
static int
run_self(const char *const *args, const char *libcuda, char *out, size_t outlen)
{
	char *argv[16];
	int pfd[2], st, n = 0, i;
	size_t got = 0;
	ssize_t r;
	pid_t pid;

	argv[n++] = (char *)"test_gpu_gpudev";
	for (i = 0; args[i] != NULL && n < 15; i++)
		argv[n++] = (char *)args[i];
	argv[n] = NULL;
	fflush(stdout);
	fflush(stderr);
	if (pipe(pfd) != 0)
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(pfd[1], 1);
		dup2(pfd[1], 2);
		close(pfd[0]);
		close(pfd[1]);
		if (libcuda != NULL)
			setenv("GPUDP_LIBCUDA", libcuda, 1);
		execv("/proc/self/exe", argv);
		_exit(127);
	}
	close(pfd[1]);
	while ((r = read(pfd[0], out + got, outlen - 1 - got)) > 0) {
		got += (size_t)r;
		if (got == outlen - 1) { /* drain the rest */
			char sink[4096];

			while (read(pfd[0], sink, sizeof(sink)) > 0)
				;
			break;
		}
	}
	out[got] = '\0';
	close(pfd[0]);
	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void
print_indented(const char *s)
{
	const char *e;

	while (*s != '\0') {
		e = strchr(s, '\n');
		if (e == NULL)
			e = s + strlen(s);
		fprintf(stderr, "      | %.*s\n", (int)(e - s), s);
		s = *e != '\0' ? e + 1 : e;
	}
}

static int
count_substr(const char *s, const char *sub)
{
	int n = 0;

	while ((s = strstr(s, sub)) != NULL) {
		n++;
		s += strlen(sub);
	}
	return n;
}

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ----------------------------------------------------- child processes */

/* Each child mode sets up EAL its own way and exits 0 (as expected),
 * 1 (not) or 77 (cannot tell here). */
static int
child_main(const char *mode, const char *arg)
{
	const char *extra[4] = { NULL, NULL, NULL, NULL };
	char allow[64];
	struct gpudp_gpu_props pr;
	int n, rc = 1, blocked = 0;
	void *p;

	if (strcmp(mode, "allowlist") == 0) {
		/* the user's allow-list names only a NIC (none exists here) */
		extra[0] = "-a";
		extra[1] = "0000:ff:1f.7";
	} else if (strcmp(mode, "nopci") == 0) {
		extra[0] = "--no-pci";
	} else if (strcmp(mode, "blocked") == 0) {
		blocked = 1;
		extra[0] = "-b";
		extra[1] = arg;
	} else if (strcmp(mode, "wmbflush") == 0) {
		snprintf(allow, sizeof(allow), "%s,wmb=flush", arg);
		extra[0] = "-a";
		extra[1] = allow;
	} else if (strcmp(mode, "nodriver") != 0) {
		fprintf(stderr, "unknown child mode %s\n", mode);
		return 2;
	}
	if (eal_init(1, extra) < 0) {
		fprintf(stderr, "child %s: rte_eal_init failed: %s\n", mode,
			rte_strerror(rte_errno));
		return 1;
	}
	printf("child %s: after rte_eal_init: %u gpudev devices\n", mode,
	       rte_gpu_count_avail());
	if (strcmp(mode, "wmbflush") == 0) {
		if (rte_gpu_count_avail() != 1 || gpudp_gpu_props_get(0, &pr) != 0) {
			printf("child wmbflush: GPU not probed with wmb=flush (device without cuFlushGPUDirectRDMAWrites?)\n");
			rc = 77;
		} else {
			rc = pr.wmb_flushes == 1 && rte_gpu_wmb(0) == 0 && rte_gpu_wmb(0) == 0 ? 0 : 1;
			printf("child wmbflush: wmb_flushes=%d, rte_gpu_wmb twice: %s\n",
			       pr.wmb_flushes, rc == 0 ? "ok" : "FAILED");
		}
		goto out;
	}
	/* with -b, EAL's PCI scan has already probed the GPUs not blocked */
	if (rte_gpu_count_avail() != 0 && !blocked) {
		printf("child %s: expected no gpudev device before gpudp_gpu_probe_all\n", mode);
		goto out;
	}
	n = gpudp_gpu_probe_all();
	printf("child %s: gpudp_gpu_probe_all() = %d, rte_gpu_count_avail() = %u\n",
	       mode, n, rte_gpu_count_avail());
	if (blocked) {
		/* the blocked GPU is no gpudev device; every other GPU is */
		const char *bdf = arg != NULL ? arg : "";
		int n_cuda = 0, seen = 0;
		int16_t id;

		if (gpudp_cuda_init() == 0)
			gpudp_cu->cuDeviceGetCount(&n_cuda);
		RTE_GPU_FOREACH(id)
			if (gpudp_gpu_props_get(id, &pr) == 0 && strcmp(pr.pci_addr, bdf) == 0)
				seen = 1;
		rc = !seen && bdf[0] != '\0' && n_cuda >= 1 && n == n_cuda - 1 &&
		     rte_gpu_count_avail() == (unsigned int)n ? 0 : 1;
		printf("child blocked: %d CUDA devices, %d gpudev devices, %s %s\n", n_cuda,
		       n, bdf, seen ? "PROBED (wrong)" : "left alone");
		goto out;
	}
	if (strcmp(mode, "nodriver") == 0) {
		p = rte_gpu_mem_alloc(0, 4096, 0);
		rc = n == 0 && rte_gpu_count_avail() == 0 && p == NULL &&
		     rte_errno == ENODEV ? 0 : 1;
		goto out;
	}
	if (n < 1 || rte_gpu_count_avail() != (unsigned int)n ||
	    gpudp_gpu_props_get(0, &pr) != 0)
		goto out;
	printf("child %s: gpudev 0 is %s (%s) via %s\n", mode, pr.pci_addr,
	       pr.product, pr.bus);
	if (strcmp(pr.bus, strcmp(mode, "nopci") == 0 || fake ? "vdev" : "pci") != 0)
		goto out;
	p = rte_gpu_mem_alloc(0, 1 << 20, 0);
	if (p == NULL || rte_gpu_mem_free(0, p) != 0)
		goto out;
	/* a second call finds everything in place */
	rc = gpudp_gpu_probe_all() == n && rte_gpu_count_avail() == (unsigned int)n ? 0 : 1;
out:
	/* buses remove their devices: the driver's remove must not crash */
	rte_eal_cleanup();
	printf("child %s: exit %d\n", mode, rc);
	return rc;
}

static int
expect_child(const char *const *args, const char *libcuda, const char *must_contain)
{
	static char out[1 << 16];
	int rc = run_self(args, libcuda, out, sizeof(out));

	if (rc != 0 || (must_contain != NULL && strstr(out, must_contain) == NULL)) {
		fprintf(stderr, "    child exited %d; its output:\n", rc);
		print_indented(out);
	}
	GPUDP_TEST_SKIP_IF(rc == 77, "child could not tell (see its output)");
	GPUDP_TEST_ASSERT(rc == 0, "child %s exited %d", args[1], rc);
	GPUDP_TEST_ASSERT(must_contain == NULL || strstr(out, must_contain) != NULL,
			  "child output lacks \"%s\"", must_contain);
	return GPUDP_TEST_PASS;
}

/* --------------------------------------------------------------- cases */

static int
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

static int
probe_all_is_idempotent(void)
{
	NEED_GPU();
	GPUDP_TEST_ASSERT(gpudp_gpu_probe_all() == n_cuda, "probe_all");
	GPUDP_TEST_ASSERT(gpudp_gpu_probe_all() == n_cuda, "probe_all again");
	GPUDP_TEST_ASSERT(rte_gpu_count_avail() == (unsigned int)n_cuda,
			  "count %u", rte_gpu_count_avail());
	return GPUDP_TEST_PASS;
}

static int
allowlist_naming_only_nic_still_finds_gpu(void)
{
	const char *args[] = { "--child", "allowlist", NULL };

	NEED_GPU();
	return expect_child(args, NULL, fake ? "via vdev" : "via pci");
}

static int
no_pci_finds_gpu_through_vdev(void)
{
	const char *args[] = { "--child", "nopci", NULL };

	NEED_GPU();
	return expect_child(args, NULL, "via vdev");
}

static int
blocklisted_gpu_is_left_alone(void)
{
	const char *args[] = { "--child", "blocked", bdf0, NULL };

	NEED_GPU();
	return expect_child(args, NULL, "blocked by -b");
}

static int
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

static int
wmb_flush_devarg_makes_wmb_flush(void)
{
	const char *args[] = { "--child", "wmbflush", bdf0, NULL };

	NEED_GPU();
	return expect_child(args, NULL, "rte_gpu_wmb twice: ok");
}

static int
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

static int
alloc_is_64k_aligned_with_sync_memops(void)
{
	static const size_t sizes[] = { 1, 1000, 64 * KIB + 1, 3 * MIB, 64 * MIB };
	static const unsigned int aligns[] = { 0, 4096, 64 * KIB, 1 << 20, 1 << 21 };
	struct gpudp_gpu_props pr;
	size_t i, j, live0;
	uint64_t sync;
	void *p;

	NEED_GPU();
	GPUDP_TEST_ASSERT(gpudp_gpu_props_get(0, &pr) == 0, "props");
	live0 = pr.n_allocs;
	for (i = 0; i < RTE_DIM(sizes); i++) {
		for (j = 0; j < RTE_DIM(aligns); j++) {
			uint64_t a = aligns[j] > 64 * KIB ? aligns[j] : 64 * KIB;

			p = rte_gpu_mem_alloc(0, sizes[i], aligns[j]);
			GPUDP_TEST_ASSERT(p != NULL, "alloc(%zu, %u): %s", sizes[i],
					  aligns[j], rte_strerror(rte_errno));
			GPUDP_TEST_ASSERT((uintptr_t)p % a == 0, "%p not %" PRIu64 "-aligned",
					  p, a);
			sync = 0;
			CU_OK(gpudp_cu->cuPointerGetAttribute(&sync,
				CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, (CUdeviceptr)(uintptr_t)p));
			GPUDP_TEST_ASSERT(sync != 0, "SYNC_MEMOPS not set on %p", p);
			GPUDP_TEST_ASSERT(gpudp_gpu_props_get(0, &pr) == 0 &&
					  pr.n_allocs == live0 + 1, "table has %zu", pr.n_allocs);
			GPUDP_TEST_ASSERT(rte_gpu_mem_free(0, p) == 0, "free %p", p);
		}
	}
	return GPUDP_TEST_PASS;
}

/* Every byte of the 64 KiB-rounded buffer is usable and distinct buffers
 * do not overlap. */
static int
alloc_memory_round_trips(void)
{
	enum { NB = 4 };
	size_t sz[NB] = { 4096, 64 * KIB, 1 * MIB + 3, 8 * MIB };
	uint8_t *host = malloc(8 * MIB + 64 * KIB);
	void *p[NB];
	size_t i, k;

	NEED_GPU();
	GPUDP_TEST_ASSERT(host != NULL, "malloc");
	for (i = 0; i < NB; i++) {
		p[i] = rte_gpu_mem_alloc(0, sz[i], 0);
		GPUDP_TEST_ASSERT(p[i] != NULL, "alloc %zu", sz[i]);
		CU_OK(gpudp_cu->cuMemsetD8((CUdeviceptr)(uintptr_t)p[i], (unsigned char)(0x10 + i),
			RTE_ALIGN_CEIL(sz[i], 64 * KIB)));
	}
	for (i = 0; i < NB; i++) {
		CU_OK(gpudp_cu->cuMemcpyDtoH(host, (CUdeviceptr)(uintptr_t)p[i], sz[i]));
		for (k = 0; k < sz[i]; k++)
			GPUDP_TEST_ASSERT(host[k] == 0x10 + i, "buffer %zu byte %zu is %#x",
					  i, k, host[k]);
		GPUDP_TEST_ASSERT(rte_gpu_mem_free(0, p[i]) == 0, "free");
	}
	free(host);
	return GPUDP_TEST_PASS;
}

static int
double_free_fails(void)
{
	void *p;

	NEED_GPU();
	p = rte_gpu_mem_alloc(0, 4096, 0);
	GPUDP_TEST_ASSERT(p != NULL, "alloc");
	GPUDP_TEST_ASSERT(rte_gpu_mem_free(0, p) == 0, "first free");
	GPUDP_TEST_ASSERT(rte_gpu_mem_free(0, p) < 0, "second free succeeded");
	GPUDP_TEST_ASSERT(rte_errno == EPERM, "rte_errno %d", rte_errno);
	/* the driver is still healthy */
	p = rte_gpu_mem_alloc(0, 4096, 0);
	GPUDP_TEST_ASSERT(p != NULL && rte_gpu_mem_free(0, p) == 0, "alloc after");
	return GPUDP_TEST_PASS;
}

static int
free_of_foreign_pointer_fails(void)
{
	CUdeviceptr mine = 0;
	int stack_var = 0;
	void *p;

	NEED_GPU();
	p = rte_gpu_mem_alloc(0, 1 << 20, 0);
	GPUDP_TEST_ASSERT(p != NULL, "alloc");
	GPUDP_TEST_ASSERT(rte_gpu_mem_free(0, (uint8_t *)p + 0x700) < 0,
			  "interior pointer freed");
	GPUDP_TEST_ASSERT(rte_gpu_mem_free(0, &stack_var) < 0, "stack pointer freed");
	GPUDP_TEST_ASSERT(rte_gpu_mem_free(0, (void *)(uintptr_t)0x1000) < 0,
			  "made-up pointer freed");
	/* CUDA memory that gpudev did not allocate stays allocated */
	CU_OK(gpudp_cu->cuMemAlloc(&mine, 1 << 20));
	GPUDP_TEST_ASSERT(rte_gpu_mem_free(0, (void *)(uintptr_t)mine) < 0,
			  "a cuMemAlloc pointer of the application was freed");
	CU_OK(gpudp_cu->cuMemsetD8(mine, 1, 1 << 20));
	CU_OK(gpudp_cu->cuMemFree(mine));
	/* the real buffer is intact and still ours */
	CU_OK(gpudp_cu->cuMemsetD8((CUdeviceptr)(uintptr_t)p, 2, 1 << 20));
	GPUDP_TEST_ASSERT(rte_gpu_mem_free(0, p) == 0, "free");
	return GPUDP_TEST_PASS;
}

static int
alloc_larger_than_memory_fails(void)
{
	size_t free_b = 0, total = 0, ask;
	volatile size_t huge;
	void *p;

	NEED_GPU();
	CU_OK(gpudp_cu->cuMemGetInfo(&free_b, &total));
	p = rte_gpu_mem_alloc(0, total + 64 * KIB, 0);
	GPUDP_TEST_ASSERT(p == NULL, "allocated more than the GPU has");
	GPUDP_TEST_ASSERT(rte_errno == E2BIG, "rte_errno %d, want E2BIG", rte_errno);
	ask = RTE_ALIGN_CEIL(free_b + (total - free_b) / 2, 64 * KIB);
	if (ask > free_b && ask <= total) {
		p = rte_gpu_mem_alloc(0, ask, 0);
		GPUDP_TEST_ASSERT(p == NULL, "allocated %zu with %zu free", ask, free_b);
		GPUDP_TEST_ASSERT(rte_errno == ENOMEM, "rte_errno %d, want ENOMEM", rte_errno);
	}
	huge = SIZE_MAX - 4096; /* volatile: hidden from -Walloc-size-larger-than */
	GPUDP_TEST_ASSERT(rte_gpu_mem_alloc(0, huge, 0) == NULL &&
			  rte_errno == E2BIG, "SIZE_MAX-ish size");
	p = rte_gpu_mem_alloc(0, 1 << 20, 0);
	GPUDP_TEST_ASSERT(p != NULL && rte_gpu_mem_free(0, p) == 0, "alloc after");
	return GPUDP_TEST_PASS;
}

static int
register_host_memory_gpu_writes_it(void)
{
	const size_t n = 2 * MIB;
	CUdeviceptr dp = 0;
	unsigned int mt = 0;
	uint8_t *h = NULL;
	size_t k;

	NEED_GPU();
	GPUDP_TEST_ASSERT(posix_memalign((void **)&h, 4096, n) == 0, "posix_memalign");
	memset(h, 0, n);
	GPUDP_TEST_ASSERT(rte_gpu_mem_register(0, n, h) == 0, "register");
	CU_OK(gpudp_cu->cuPointerGetAttribute(&mt, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
					      (CUdeviceptr)(uintptr_t)h));
	GPUDP_TEST_ASSERT(mt == CU_MEMORYTYPE_HOST, "memory type %u", mt);
	CU_OK(gpudp_cu->cuMemHostGetDevicePointer(&dp, h, 0));
	CU_OK(gpudp_cu->cuMemsetD8(dp, 0x5a, n));
	CU_OK(gpudp_cu->cuCtxSynchronize());
	for (k = 0; k < n; k++)
		GPUDP_TEST_ASSERT(h[k] == 0x5a, "byte %zu is %#x after a GPU memset", k, h[k]);
	GPUDP_TEST_ASSERT(rte_gpu_mem_unregister(0, h) == 0, "unregister");
	/* rte_malloc memory too, as gpudev's comm list uses */
	{
		void *r = rte_zmalloc(NULL, 10000, 0);

		GPUDP_TEST_ASSERT(r != NULL, "rte_zmalloc");
		GPUDP_TEST_ASSERT(rte_gpu_mem_register(0, 10000, r) == 0, "register rte_zmalloc");
		GPUDP_TEST_ASSERT(rte_gpu_mem_unregister(0, r) == 0, "unregister rte_zmalloc");
		rte_free(r);
	}
	free(h);
	return GPUDP_TEST_PASS;
}

/* gpudev's comm list registers many small rte_zmalloc objects that share
 * pages; CUDA must accept byte-disjoint ranges on one page. */
static int
register_ranges_sharing_a_page(void)
{
	uint8_t *h = NULL;

	NEED_GPU();
	GPUDP_TEST_ASSERT(posix_memalign((void **)&h, 4096, 8192) == 0, "posix_memalign");
	GPUDP_TEST_ASSERT(rte_gpu_mem_register(0, 1000, h) == 0, "first range");
	GPUDP_TEST_ASSERT(rte_gpu_mem_register(0, 1000, h + 1024) == 0,
			  "second range on the same page refused");
	GPUDP_TEST_ASSERT(rte_gpu_mem_register(0, 4096, h + 2048) == 0,
			  "range across the page boundary refused");
	GPUDP_TEST_ASSERT(rte_gpu_mem_unregister(0, h + 1024) == 0, "unregister 2");
	GPUDP_TEST_ASSERT(rte_gpu_mem_unregister(0, h) == 0, "unregister 1");
	GPUDP_TEST_ASSERT(rte_gpu_mem_unregister(0, h + 2048) == 0, "unregister 3");
	free(h);
	return GPUDP_TEST_PASS;
}

static int
unregister_of_unknown_fails(void)
{
	void *h = malloc(65536), *g;

	NEED_GPU();
	GPUDP_TEST_ASSERT(h != NULL, "malloc");
	GPUDP_TEST_ASSERT(rte_gpu_mem_unregister(0, h) < 0, "never registered");
	GPUDP_TEST_ASSERT(rte_gpu_mem_register(0, 65536, h) == 0, "register");
	GPUDP_TEST_ASSERT(rte_gpu_mem_unregister(0, (uint8_t *)h + 0x700) < 0, "interior");
	GPUDP_TEST_ASSERT(rte_gpu_mem_free(0, h) < 0, "free of a registration");
	GPUDP_TEST_ASSERT(rte_gpu_mem_unregister(0, h) == 0, "unregister");
	GPUDP_TEST_ASSERT(rte_gpu_mem_unregister(0, h) < 0, "second unregister");
	g = rte_gpu_mem_alloc(0, 4096, 0);
	GPUDP_TEST_ASSERT(g != NULL, "alloc");
	GPUDP_TEST_ASSERT(rte_gpu_mem_unregister(0, g) < 0, "unregister of GPU memory");
	GPUDP_TEST_ASSERT(rte_gpu_mem_free(0, g) == 0, "free");
	free(h);
	return GPUDP_TEST_PASS;
}

static int
register_of_gpu_pointer_fails(void)
{
	CUdeviceptr mine = 0;
	void *g;

	NEED_GPU();
	g = rte_gpu_mem_alloc(0, 1 << 20, 0);
	GPUDP_TEST_ASSERT(g != NULL, "alloc");
	GPUDP_TEST_ASSERT(rte_gpu_mem_register(0, 1 << 20, g) < 0,
			  "registered GPU memory as host memory");
	GPUDP_TEST_ASSERT(rte_errno == EPERM, "rte_errno %d", rte_errno);
	CU_OK(gpudp_cu->cuMemAlloc(&mine, 1 << 20));
	GPUDP_TEST_ASSERT(rte_gpu_mem_register(0, 1 << 20, (void *)(uintptr_t)mine) < 0,
			  "registered the application's cuMemAlloc memory");
	CU_OK(gpudp_cu->cuMemFree(mine));
	GPUDP_TEST_ASSERT(rte_gpu_mem_free(0, g) == 0, "free still works");
	return GPUDP_TEST_PASS;
}

static int
register_twice_fails(void)
{
	void *h = NULL;
	struct gpudp_gpu_props pr;

	NEED_GPU();
	GPUDP_TEST_ASSERT(posix_memalign(&h, 4096, 1 << 20) == 0, "posix_memalign");
	GPUDP_TEST_ASSERT(rte_gpu_mem_register(0, 1 << 20, h) == 0, "register");
	GPUDP_TEST_ASSERT(rte_gpu_mem_register(0, 1 << 20, h) < 0, "registered twice");
	GPUDP_TEST_ASSERT(gpudp_gpu_props_get(0, &pr) == 0 && pr.n_registered == 1,
			  "%zu registrations", pr.n_registered);
	GPUDP_TEST_ASSERT(rte_gpu_mem_unregister(0, h) == 0, "unregister");
	free(h);
	return GPUDP_TEST_PASS;
}

static int
cpu_map_fails_cleanly_without_pin_module(void)
{
	char why[160];
	void *g, *m;

	NEED_GPU();
	GPUDP_TEST_SKIP_IF(gpudp_gpu_cpu_map_available(why, sizeof(why)) == 0,
			   "gpudp_pin is available here");
	printf("    cpu_map unavailable: %s\n", why);
	g = rte_gpu_mem_alloc(0, 4096, 0);
	GPUDP_TEST_ASSERT(g != NULL, "alloc");
	m = rte_gpu_mem_cpu_map(0, 4096, g);
	GPUDP_TEST_ASSERT(m == NULL, "cpu_map returned %p", m);
	GPUDP_TEST_ASSERT(rte_gpu_mem_cpu_unmap(0, g) < 0, "unmap of an unmapped buffer");
	GPUDP_TEST_ASSERT(rte_gpu_mem_free(0, g) == 0, "free");
	return GPUDP_TEST_PASS;
}

static int
cpu_map_round_trip(void)
{
	char why[160];
	uint8_t buf[4096];
	volatile uint8_t *m;
	void *g;
	size_t k;

	NEED_GPU();
	GPUDP_TEST_SKIP_IF(gpudp_gpu_cpu_map_available(why, sizeof(why)) != 0,
			   "needs gpudp_pin: %s", why);
	g = rte_gpu_mem_alloc(0, 1 << 20, 0);
	GPUDP_TEST_ASSERT(g != NULL, "alloc");
	CU_OK(gpudp_cu->cuMemsetD8((CUdeviceptr)(uintptr_t)g, 0x33, 1 << 20));
	m = rte_gpu_mem_cpu_map(0, 1 << 20, g);
	GPUDP_TEST_ASSERT(m != NULL, "cpu_map: %s", rte_strerror(rte_errno));
	GPUDP_TEST_ASSERT(m[100] == 0x33, "CPU reads %#x", m[100]);
	for (k = 0; k < sizeof(buf); k++)
		m[k] = (uint8_t)k;
	rte_wmb();
	CU_OK(gpudp_cu->cuMemcpyDtoH(buf, (CUdeviceptr)(uintptr_t)g, sizeof(buf)));
	for (k = 0; k < sizeof(buf); k++)
		GPUDP_TEST_ASSERT(buf[k] == (uint8_t)k, "GPU sees %#x at %zu", buf[k], k);
	GPUDP_TEST_ASSERT(rte_gpu_mem_cpu_map(0, 1 << 20, g) == NULL, "mapped twice");
	GPUDP_TEST_ASSERT(rte_gpu_mem_cpu_unmap(0, g) == 0, "unmap");
	GPUDP_TEST_ASSERT(rte_gpu_mem_cpu_unmap(0, g) < 0, "second unmap");
	GPUDP_TEST_ASSERT(rte_gpu_mem_free(0, g) == 0, "free");
	return GPUDP_TEST_PASS;
}

static int
wmb_succeeds(void)
{
	struct gpudp_gpu_props pr;
	int i;

	NEED_GPU();
	GPUDP_TEST_ASSERT(gpudp_gpu_props_get(0, &pr) == 0, "props");
	for (i = 0; i < 1000; i++)
		GPUDP_TEST_ASSERT(rte_gpu_wmb(0) == 0, "wmb %d: %s", i, rte_strerror(rte_errno));
	/* the rule of NVIDIA's "GPUDirect RDMA", "Synchronization and Memory Ordering" */
	GPUDP_TEST_ASSERT(pr.wmb_flushes == (pr.gdr_writes_ordering <
			  CU_GPU_DIRECT_RDMA_WRITES_ORDERING_OWNER),
			  "wmb_flushes %d with ordering %d", pr.wmb_flushes,
			  pr.gdr_writes_ordering);
	return GPUDP_TEST_PASS;
}

static int
child_context_is_own_device(void)
{
	struct gpudp_gpu_props pr;
	struct rte_gpu_info info;
	CUcontext c = NULL, owner = NULL;
	int16_t child, plain;
	void *p, *q;

	NEED_GPU();
	CU_OK(gpudp_cu->cuCtxCreate(&c, 0, cu_dev0));
	CU_OK(gpudp_cu->cuCtxSetCurrent(ctx0));
	child = gpudp_gpu_add_child("gpudp_test_child", 0, (uint64_t)(uintptr_t)c);
	GPUDP_TEST_ASSERT(child > 0, "add_child: %d", child);
	GPUDP_TEST_ASSERT(rte_gpu_info_get(child, &info) == 0 && info.parent == 0,
			  "child's parent");
	GPUDP_TEST_ASSERT(gpudp_gpu_props_get(child, &pr) == 0 && pr.is_child &&
			  pr.context == (uint64_t)(uintptr_t)c, "child props");
	p = rte_gpu_mem_alloc(child, 1 << 20, 0);
	GPUDP_TEST_ASSERT(p != NULL, "alloc on child");
	CU_OK(gpudp_cu->cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_CONTEXT,
					      (CUdeviceptr)(uintptr_t)p));
	GPUDP_TEST_ASSERT(owner == c, "child's buffer belongs to context %p, not %p",
			  (void *)owner, (void *)c);
	GPUDP_TEST_ASSERT(rte_gpu_mem_free(0, p) < 0, "parent freed the child's buffer");
	GPUDP_TEST_ASSERT(rte_gpu_close(0) < 0, "closed the parent under its child");
	GPUDP_TEST_ASSERT(rte_gpu_is_valid(0), "parent gone after refused close");
	q = rte_gpu_mem_alloc(0, 4096, 0);
	GPUDP_TEST_ASSERT(q != NULL && rte_gpu_mem_free(0, q) == 0, "parent still works");
	/* a child added with plain rte_gpu_add_child gets the ops from probe_all */
	plain = rte_gpu_add_child("gpudp_test_plain", 0, (uint64_t)(uintptr_t)c);
	GPUDP_TEST_ASSERT(plain > 0, "rte_gpu_add_child: %d", plain);
	GPUDP_TEST_ASSERT(rte_gpu_mem_alloc(plain, 4096, 0) == NULL, "ops before adoption?");
	GPUDP_TEST_ASSERT(gpudp_gpu_probe_all() == n_cuda, "probe_all");
	q = rte_gpu_mem_alloc(plain, 4096, 0);
	GPUDP_TEST_ASSERT(q != NULL, "alloc on adopted child: %s", rte_strerror(rte_errno));
	/* the child's close releases what it still holds */
	GPUDP_TEST_ASSERT(rte_gpu_close(plain) == 0, "close plain child");
	GPUDP_TEST_ASSERT(rte_gpu_mem_free(child, p) == 0, "free on child");
	GPUDP_TEST_ASSERT(rte_gpu_close(child) == 0, "close child");
	GPUDP_TEST_ASSERT(rte_gpu_count_avail() == (unsigned int)n_cuda, "count %u",
			  rte_gpu_count_avail());
	CU_OK(gpudp_cu->cuCtxDestroy(c));
	CU_OK(gpudp_cu->cuCtxSetCurrent(ctx0));
	/* a context of no GPU of ours is refused */
	GPUDP_TEST_ASSERT(gpudp_gpu_add_child("gpudp_test_bad", 0, 0) < 0,
			  "child without a context");
	GPUDP_TEST_ASSERT(rte_gpu_count_avail() == (unsigned int)n_cuda, "count after bad");
	return GPUDP_TEST_PASS;
}

/* Several lcores allocate and free at once; each tags its buffers in GPU
 * memory and checks the tag before freeing, and retries every free once
 * (which must fail). */
enum { CC_ITERS = 300, CC_LIVE = 8 };
static atomic_int cc_errors, cc_allocs, cc_double_ok;

static int
cc_worker(void *arg)
{
	static const unsigned int aligns[] = { 0, 4096, 65536, 1 << 21 };
	unsigned int seed = rte_lcore_id() * 7919u + 1, i, slot, tag;
	void *live[CC_LIVE] = { NULL };
	uint8_t tags[CC_LIVE], got;
	CUdeviceptr d;

	RTE_SET_USED(arg);
	if (gpudp_cu->cuCtxSetCurrent(ctx0) != CUDA_SUCCESS) {
		atomic_fetch_add(&cc_errors, 1);
		return -1;
	}
	for (i = 0; i < CC_ITERS; i++) {
		slot = (unsigned int)rand_r(&seed) % CC_LIVE;
		if (live[slot] != NULL) {
			d = (CUdeviceptr)(uintptr_t)live[slot];
			if (gpudp_cu->cuMemcpyDtoH(&got, d, 1) != CUDA_SUCCESS ||
			    got != tags[slot])
				atomic_fetch_add(&cc_errors, 1);
			if (rte_gpu_mem_free(0, live[slot]) != 0)
				atomic_fetch_add(&cc_errors, 1);
			if (i % 16 == 0 && rte_gpu_mem_free(0, live[slot]) == 0)
				atomic_fetch_add(&cc_double_ok, 1);
			live[slot] = NULL;
		}
		live[slot] = rte_gpu_mem_alloc(0, 1 + (size_t)rand_r(&seed) % (256 * KIB),
					       aligns[rand_r(&seed) % 4]);
		if (live[slot] == NULL) {
			atomic_fetch_add(&cc_errors, 1);
			continue;
		}
		atomic_fetch_add(&cc_allocs, 1);
		tag = (rte_lcore_id() * 31 + i) & 0xff;
		tags[slot] = (uint8_t)tag;
		if (gpudp_cu->cuMemsetD8((CUdeviceptr)(uintptr_t)live[slot],
					 (unsigned char)tag, 1) != CUDA_SUCCESS)
			atomic_fetch_add(&cc_errors, 1);
	}
	for (slot = 0; slot < CC_LIVE; slot++)
		if (live[slot] != NULL && rte_gpu_mem_free(0, live[slot]) != 0)
			atomic_fetch_add(&cc_errors, 1);
	return 0;
}

static int
concurrent_alloc_free_on_lcores(void)
{
	struct gpudp_gpu_props pr;
	size_t live0;
	uint64_t t0;

	NEED_GPU();
	GPUDP_TEST_SKIP_IF(rte_lcore_count() < 2, "one lcore only");
	GPUDP_TEST_ASSERT(gpudp_gpu_props_get(0, &pr) == 0, "props");
	live0 = pr.n_allocs;
	t0 = now_ns();
	/* the deliberate double frees would log one line each */
	rte_log_set_level_pattern("gpudp.gpu", RTE_LOG_CRIT);
	rte_eal_mp_remote_launch(cc_worker, NULL, CALL_MAIN);
	rte_eal_mp_wait_lcore();
	rte_log_set_level_pattern("gpudp.gpu", RTE_LOG_INFO);
	CU_OK(gpudp_cu->cuCtxSetCurrent(ctx0));
	printf("    %u lcores, %d allocations in %.1f ms\n", rte_lcore_count(),
	       atomic_load(&cc_allocs), (double)(now_ns() - t0) / 1e6);
	GPUDP_TEST_ASSERT(atomic_load(&cc_errors) == 0, "%d errors",
			  atomic_load(&cc_errors));
	GPUDP_TEST_ASSERT(atomic_load(&cc_double_ok) == 0, "%d double frees succeeded",
			  atomic_load(&cc_double_ok));
	GPUDP_TEST_ASSERT(atomic_load(&cc_allocs) == (int)(CC_ITERS * rte_lcore_count()),
			  "%d allocations", atomic_load(&cc_allocs));
	GPUDP_TEST_ASSERT(gpudp_gpu_props_get(0, &pr) == 0 && pr.n_allocs == live0,
			  "%zu buffers left, %zu before", pr.n_allocs, live0);
	return GPUDP_TEST_PASS;
}

/* DPDK's own app/test-gpudev, run once in a child; each of its tests is a
 * case here. Its gpu_mem_cpu_map test needs CPU mapping (GDRCopy in DPDK's
 * driver, gpudp_pin in ours) and is a SKIP where that is unavailable. */
static char tg_out[1 << 18];
static int tg_rc = -2;

static int
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

static int tg_runs_and_finds_gpu(void) { return test_gpudev_result(NULL, NULL); }
static int tg_alloc_gpu_memory(void) { return test_gpudev_result("Allocate GPU memory", NULL); }
static int tg_register_cpu_memory(void) { return test_gpudev_result("Register CPU memory", NULL); }
static int tg_gpu_mem_cpu_map(void)
{
	return test_gpudev_result("Map GPU memory for CPU visibility",
				  "rte_gpu_mem_cpu_map returned error");
}
static int tg_comm_flag(void) { return test_gpudev_result("Communication flag", NULL); }
static int tg_comm_list(void) { return test_gpudev_result("Communication list", NULL); }

/* Last: close returns what the app left behind; probe_all brings it back. */
static int
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

static const struct gpudp_test_case cases[] = {
	{ "eal_probes_every_gpu_without_allowlist", eal_probes_every_gpu_without_allowlist },
	{ "probe_all_is_idempotent", probe_all_is_idempotent },
	{ "allowlist_naming_only_nic_still_finds_gpu", allowlist_naming_only_nic_still_finds_gpu },
	{ "no_pci_finds_gpu_through_vdev", no_pci_finds_gpu_through_vdev },
	{ "blocklisted_gpu_is_left_alone", blocklisted_gpu_is_left_alone },
	{ "no_driver_gives_zero_gpus_and_one_log_line", no_driver_gives_zero_gpus_and_one_log_line },
	{ "wmb_flush_devarg_makes_wmb_flush", wmb_flush_devarg_makes_wmb_flush },
	{ "info_reports_memory_sms_numa", info_reports_memory_sms_numa },
	{ "alloc_is_64k_aligned_with_sync_memops", alloc_is_64k_aligned_with_sync_memops },
	{ "alloc_memory_round_trips", alloc_memory_round_trips },
	{ "double_free_fails", double_free_fails },
	{ "free_of_foreign_pointer_fails", free_of_foreign_pointer_fails },
	{ "alloc_larger_than_memory_fails", alloc_larger_than_memory_fails },
	{ "register_host_memory_gpu_writes_it", register_host_memory_gpu_writes_it },
	{ "register_ranges_sharing_a_page", register_ranges_sharing_a_page },
	{ "unregister_of_unknown_fails", unregister_of_unknown_fails },
	{ "register_of_gpu_pointer_fails", register_of_gpu_pointer_fails },
	{ "register_twice_fails", register_twice_fails },
	{ "cpu_map_fails_cleanly_without_pin_module", cpu_map_fails_cleanly_without_pin_module },
	{ "cpu_map_round_trip", cpu_map_round_trip },
	{ "wmb_succeeds", wmb_succeeds },
	{ "child_context_is_own_device", child_context_is_own_device },
	{ "concurrent_alloc_free_on_lcores", concurrent_alloc_free_on_lcores },
	{ "dpdk_test_gpudev_runs_and_finds_gpu", tg_runs_and_finds_gpu },
	{ "dpdk_test_gpudev_alloc_gpu_memory", tg_alloc_gpu_memory },
	{ "dpdk_test_gpudev_register_cpu_memory", tg_register_cpu_memory },
	{ "dpdk_test_gpudev_gpu_mem_cpu_map", tg_gpu_mem_cpu_map },
	{ "dpdk_test_gpudev_comm_flag", tg_comm_flag },
	{ "dpdk_test_gpudev_comm_list", tg_comm_list },
	{ "close_releases_memory_and_probe_all_restores", close_releases_memory_and_probe_all_restores },
	{ NULL, NULL },
};

/* ----------------------------------------------------------- benchmark */

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* "name": {"n": .., "mean_ns": .., "p50_ns": .., "p99_ns": ..} */
static void
json_stat(FILE *f, const char *name, uint64_t *v, unsigned int n, int *first)
{
	uint64_t sum = 0;
	unsigned int i;

	qsort(v, n, sizeof(*v), cmp_u64);
	for (i = 0; i < n; i++)
		sum += v[i];
	fprintf(f, "%s\n    \"%s\": {\"n\": %u, \"mean_ns\": %.1f, \"p50_ns\": %" PRIu64
		", \"p99_ns\": %" PRIu64 "}", *first ? "" : ",", name, n,
		(double)sum / n, v[n / 2], v[(uint64_t)n * 99 / 100]);
	*first = 0;
}

static int
bench_main(const char *json_path)
{
	static const size_t asz[] = { 4 * KIB, 64 * KIB, 2 * MIB, 64 * MIB };
	static const unsigned int an[] = { 2000, 2000, 500, 100 };
	static const size_t rsz[] = { 4 * KIB, 2 * MIB, 64 * MIB };
	static const unsigned int rn[] = { 2000, 300, 30 };
	char name[64], *json = NULL;
	struct gpudp_gpu_props pr;
	size_t jlen = 0, i;
	unsigned int k, n;
	uint64_t *ta, *tb, t;
	int first = 1;
	FILE *f;

	if (cuda_setup() != 0) {
		printf("{\"skipped\": \"no CUDA device: %s\"}\n", gpudp_cuda_last_error());
		return 77;
	}
	if (eal_init(1, NULL) < 0 || gpudp_gpu_probe_all() < 1 ||
	    gpudp_gpu_props_get(0, &pr) != 0) {
		printf("{\"error\": \"EAL or gpudev setup failed\"}\n");
		return 1;
	}
	gpudp_cu->cuDevicePrimaryCtxRetain(&ctx0, cu_dev0);
	gpudp_cu->cuCtxSetCurrent(ctx0);
	ta = calloc(100000, sizeof(*ta));
	tb = calloc(100000, sizeof(*tb));
	f = open_memstream(&json, &jlen);
	if (ta == NULL || tb == NULL || f == NULL)
		return 1;
	fprintf(f, "{\n  \"device\": \"%s\", \"pci\": \"%s\", \"driver_cuda\": %d,"
		" \"gdr_writes_ordering\": %d, \"wmb_flushes\": %d,\n  \"results\": {",
		pr.product, pr.pci_addr, gpudp_cuda_driver_version(),
		pr.gdr_writes_ordering, pr.wmb_flushes);
	for (i = 0; i < RTE_DIM(asz); i++) {
		void *p;
		CUdeviceptr d;

		n = an[i];
		for (k = 0; k < n; k++) {
			t = now_ns();
			p = rte_gpu_mem_alloc(0, asz[i], 0);
			ta[k] = now_ns() - t;
			t = now_ns();
			if (p == NULL || rte_gpu_mem_free(0, p) != 0)
				return 1;
			tb[k] = now_ns() - t;
		}
		snprintf(name, sizeof(name), "rte_gpu_mem_alloc_%zuKiB", asz[i] >> 10);
		json_stat(f, name, ta, n, &first);
		snprintf(name, sizeof(name), "rte_gpu_mem_free_%zuKiB", asz[i] >> 10);
		json_stat(f, name, tb, n, &first);
		/* the bare driver calls, for comparison */
		for (k = 0; k < n; k++) {
			t = now_ns();
			if (gpudp_cu->cuMemAlloc(&d, asz[i]) != CUDA_SUCCESS)
				return 1;
			ta[k] = now_ns() - t;
			t = now_ns();
			gpudp_cu->cuMemFree(d);
			tb[k] = now_ns() - t;
		}
		snprintf(name, sizeof(name), "cuMemAlloc_%zuKiB", asz[i] >> 10);
		json_stat(f, name, ta, n, &first);
		snprintf(name, sizeof(name), "cuMemFree_%zuKiB", asz[i] >> 10);
		json_stat(f, name, tb, n, &first);
	}
	for (i = 0; i < RTE_DIM(rsz); i++) {
		void *h = NULL;

		if (posix_memalign(&h, 4096, rsz[i]) != 0)
			return 1;
		memset(h, 1, rsz[i]);
		n = rn[i];
		for (k = 0; k < n; k++) {
			t = now_ns();
			if (rte_gpu_mem_register(0, rsz[i], h) != 0)
				return 1;
			ta[k] = now_ns() - t;
			t = now_ns();
			if (rte_gpu_mem_unregister(0, h) != 0)
				return 1;
			tb[k] = now_ns() - t;
		}
		snprintf(name, sizeof(name), "rte_gpu_mem_register_%zuKiB", rsz[i] >> 10);
		json_stat(f, name, ta, n, &first);
		snprintf(name, sizeof(name), "rte_gpu_mem_unregister_%zuKiB", rsz[i] >> 10);
		json_stat(f, name, tb, n, &first);
		free(h);
	}
	/* wmb: per call, in batches of 100 (single calls are below the
	 * clock's resolution) */
	n = 10000;
	for (k = 0; k < n; k++) {
		unsigned int j;

		t = now_ns();
		for (j = 0; j < 100; j++)
			rte_gpu_wmb(0);
		ta[k] = (now_ns() - t) / 100;
	}
	json_stat(f, "rte_gpu_wmb", ta, n, &first);
	if (gpudp_cu->cuFlushGPUDirectRDMAWrites != NULL &&
	    (pr.gdr_flush_options & CU_FLUSH_GPU_DIRECT_RDMA_WRITES_OPTION_HOST)) {
		for (k = 0; k < n; k++) {
			unsigned int j;

			t = now_ns();
			for (j = 0; j < 100; j++)
				gpudp_cu->cuFlushGPUDirectRDMAWrites(
					CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TARGET_CURRENT_CTX,
					CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TO_OWNER);
			ta[k] = (now_ns() - t) / 100;
		}
		json_stat(f, "cuFlushGPUDirectRDMAWrites", ta, n, &first);
		for (k = 0; k < n; k++) {
			unsigned int j;
			CUcontext c;

			t = now_ns();
			for (j = 0; j < 100; j++) {
				gpudp_cu->cuCtxPushCurrent(ctx0);
				gpudp_cu->cuFlushGPUDirectRDMAWrites(
					CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TARGET_CURRENT_CTX,
					CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TO_OWNER);
				gpudp_cu->cuCtxPopCurrent(&c);
			}
			ta[k] = (now_ns() - t) / 100;
		}
		json_stat(f, "push_flush_pop (wmb=flush cost)", ta, n, &first);
	}
	/* the error path: free of an unknown pointer (logging silenced) */
	rte_log_set_level_pattern("gpudp.gpu", RTE_LOG_EMERG);
	n = 10000;
	for (k = 0; k < n; k++) {
		t = now_ns();
		rte_gpu_mem_free(0, (void *)(uintptr_t)(0x1000 + k * 65536));
		ta[k] = now_ns() - t;
	}
	json_stat(f, "rte_gpu_mem_free_unknown_pointer", ta, n, &first);
	fprintf(f, "\n  }\n}\n");
	fclose(f);
	fputs(json, stdout);
	if (json_path != NULL) {
		FILE *o = fopen(json_path, "w");

		if (o != NULL) {
			fputs(json, o);
			fclose(o);
		}
	}
	free(json);
	free(ta);
	free(tb);
	rte_eal_cleanup();
	return 0;
}

/* ---------------------------------------------------------------- main */

int
main(int argc, char **argv)
{
	int rc, lc;

	fake = getenv("GPUDP_TEST_FAKE_CUDA") != NULL &&
	       strcmp(getenv("GPUDP_TEST_FAKE_CUDA"), "1") == 0;
	/* children write into a pipe: keep stdout and stderr in order */
	if (argc >= 2 && strncmp(argv[1], "--", 2) == 0)
		setvbuf(stdout, NULL, _IONBF, 0);
	if (argc >= 3 && strcmp(argv[1], "--child") == 0)
		return child_main(argv[2], argc >= 4 ? argv[3] : NULL);
	if (argc >= 2 && strcmp(argv[1], "--dpdk-test-gpudev") == 0)
		return gpudp_dpdk_test_gpudev_main(argc - 1, argv + 1);
	if (argc >= 2 && strcmp(argv[1], "--bench") == 0)
		return bench_main(argc >= 4 && strcmp(argv[2], "--json") == 0 ?
				  argv[3] : NULL);

	if (cuda_setup() == 0) {
		lc = ncpus() < 4 ? ncpus() : 4;
		if (eal_init(lc, NULL) < 0) {
			fprintf(stderr, "rte_eal_init failed: %s\n", rte_strerror(rte_errno));
			return 1;
		}
		if (fake)
			gpudp_gpu_probe_all();
		if (gpudp_cu->cuDevicePrimaryCtxRetain(&ctx0, cu_dev0) == CUDA_SUCCESS &&
		    gpudp_cu->cuCtxSetCurrent(ctx0) == CUDA_SUCCESS)
			gpu_ok = 1;
	}
	rc = gpudp_test_run("gpu_gpudev", cases, argc, argv);
	if (gpu_ok) {
		rte_eal_cleanup();
		gpudp_cu->cuDevicePrimaryCtxRelease(cu_dev0);
	}
	return rc;
}

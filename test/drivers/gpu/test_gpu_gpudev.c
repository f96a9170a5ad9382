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
#include "gpudev_test.h"

int n_cuda;          /* CUDA devices visible */
CUdevice cu_dev0;
CUcontext ctx0;      /* device 0's primary context, current on main */
char bdf0[24];       /* device 0's PCI address, lower case */
int gpu_ok;          /* CUDA and EAL both up */
/* GPUDP_TEST_FAKE_CUDA=1: GPUDP_LIBCUDA is test/common/fake_libcuda.c, whose
 * device has no PCI function: it is found through the vdev bus. */
int fake;

/* ------------------------------------------------------------ helpers */

int
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

int
ncpus(void)
{
	cpu_set_t s;

	if (sched_getaffinity(0, sizeof(s), &s) != 0)
		return 1;
	return CPU_COUNT(&s);
}

int
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
int
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

void
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

int
count_substr(const char *s, const char *sub)
{
	int n = 0;

	while ((s = strstr(s, sub)) != NULL) {
		n++;
		s += strlen(sub);
	}
	return n;
}

uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ----------------------------------------------------- child processes */

/* Each child mode sets up EAL its own way and exits 0 (as expected),
 * 1 (not) or 77 (cannot tell here). */
int
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

int
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
	{ "igpu_is_recognised_from_its_attributes", igpu_is_recognised_from_its_attributes },
	{ "igpu_alloc_is_mapped_host_memory_with_sync_memops",
	  igpu_alloc_is_mapped_host_memory_with_sync_memops },
	{ "igpu_alloc_wc_is_used_through_the_device_pointer",
	  igpu_alloc_wc_is_used_through_the_device_pointer },
	{ "igpu_cpu_map_is_the_host_pointer_without_pin_module",
	  igpu_cpu_map_is_the_host_pointer_without_pin_module },
	{ "igpu_alloc_set_is_refused_on_a_discrete_gpu", igpu_alloc_set_is_refused_on_a_discrete_gpu },
	{ "close_releases_memory_and_probe_all_restores", close_releases_memory_and_probe_all_restores },
	{ NULL, NULL },
};

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

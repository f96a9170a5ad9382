/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Internal to test_gpu_gpudev (the gpudev driver on a GPU): the fixture
 * (test_gpu_gpudev.c: globals, EAL and CUDA set-up, child processes), the
 * cases by family (gpudev_probe_cases.c, gpudev_mem_cases.c,
 * gpudev_igpu_cases.c, gpudev_dpdk_app_cases.c) and the benchmark (gpudev_bench.c).
 */
#ifndef GPUDEV_TEST_H
#define GPUDEV_TEST_H

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
#define CU_OK(call) do { \
	CUresult r_ = (call); \
	GPUDP_TEST_ASSERT(r_ == CUDA_SUCCESS, "%s: %s", #call, gpudp_cuda_errstr(r_)); \
} while (0)
#define NEED_GPU() GPUDP_TEST_SKIP_IF(!gpu_ok, "no CUDA device")

extern int n_cuda;          /* CUDA devices visible */
extern CUdevice cu_dev0;
extern CUcontext ctx0;      /* device 0's primary context, current on main */
extern char bdf0[];       /* device 0's PCI address, lower case */
extern int gpu_ok;          /* CUDA and EAL both up */
extern int fake;

int cuda_setup(void);
int ncpus(void);
int eal_init(int lcores, const char *const *extra);
int run_self(const char *const *args, const char *libcuda, char *out, size_t outlen);
void print_indented(const char *s);
int count_substr(const char *s, const char *sub);
uint64_t now_ns(void);
int child_main(const char *mode, const char *arg);
int gpu0_integrated(void);
int igpu_is_recognised_from_its_attributes(void);
int igpu_alloc_is_mapped_host_memory_with_sync_memops(void);
int igpu_alloc_wc_is_used_through_the_device_pointer(void);
int igpu_cpu_map_is_the_host_pointer_without_pin_module(void);
int igpu_alloc_set_is_refused_on_a_discrete_gpu(void);
int expect_child(const char *const *args, const char *libcuda, const char *must_contain);
int eal_probes_every_gpu_without_allowlist(void);
int probe_all_is_idempotent(void);
int allowlist_naming_only_nic_still_finds_gpu(void);
int no_pci_finds_gpu_through_vdev(void);
int blocklisted_gpu_is_left_alone(void);
int no_driver_gives_zero_gpus_and_one_log_line(void);
int wmb_flush_devarg_makes_wmb_flush(void);
int info_reports_memory_sms_numa(void);
int alloc_is_64k_aligned_with_sync_memops(void);
int alloc_memory_round_trips(void);
int double_free_fails(void);
int free_of_foreign_pointer_fails(void);
int alloc_larger_than_memory_fails(void);
int register_host_memory_gpu_writes_it(void);
int register_ranges_sharing_a_page(void);
int unregister_of_unknown_fails(void);
int register_of_gpu_pointer_fails(void);
int register_twice_fails(void);
int cpu_map_fails_cleanly_without_pin_module(void);
int cpu_map_round_trip(void);
int wmb_succeeds(void);
int child_context_is_own_device(void);
int cc_worker(void *arg);
int concurrent_alloc_free_on_lcores(void);
int test_gpudev_result(const char *title, const char *needs_cpu_map_err);
int close_releases_memory_and_probe_all_restores(void);
int tg_runs_and_finds_gpu(void);
int tg_alloc_gpu_memory(void);
int tg_register_cpu_memory(void);
int tg_gpu_mem_cpu_map(void);
int tg_comm_flag(void);
int tg_comm_list(void);
int cmp_u64(const void *a, const void *b);
void json_stat(FILE *f, const char *name, uint64_t *v, unsigned int n, int *first);
int bench_main(const char *json_path);

#endif /* GPUDEV_TEST_H */

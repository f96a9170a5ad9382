/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DPDK's functional test of gpudev, app/test-gpudev/main.c, compiled from
 * the DPDK subproject unmodified (meson puts <dpdk>/app on the include
 * path; meson's sandbox forbids naming a subproject's file as a source).
 * With GPUDP_TEST_GPUDEV_AS_FUNCTION its main() becomes
 * gpudp_dpdk_test_gpudev_main(), which test_gpu_gpudev.c runs in a child
 * process; without, this is the standalone dpdk-test-gpudev program.
 */
#ifdef GPUDP_TEST_GPUDEV_AS_FUNCTION
int gpudp_dpdk_test_gpudev_main(int argc, char **argv);
#define main gpudp_dpdk_test_gpudev_main
#endif
#include <test-gpudev/main.c>

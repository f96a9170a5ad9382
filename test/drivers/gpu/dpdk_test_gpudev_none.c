/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Stands in for DPDK's app/test-gpudev (dpdk_test_gpudev.c) when gpudp is
 * built against an installed DPDK (-Ddpdk=system), which has no source
 * tree to compile it from: exit 77, which test_gpu_gpudev.c reports as a
 * SKIP of the test-gpudev cases.
 */
#include <stdio.h>

#include <rte_common.h>

int gpudp_dpdk_test_gpudev_main(int argc, char **argv);

int
gpudp_dpdk_test_gpudev_main(int argc, char **argv)
{
	RTE_SET_USED(argc);
	RTE_SET_USED(argv);
	printf("DPDK's app/test-gpudev is not built: gpudp was built against an "
	       "installed DPDK (-Ddpdk=system), which has no source tree\n");
	return 77;
}

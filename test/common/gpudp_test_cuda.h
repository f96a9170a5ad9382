/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A test's GPU: GPU 0's primary context, current on the calling thread,
 * and one kernel of one of the test's embedded GPU images (lib/cuda's
 * loader). For the tests that launch kernels of their own.
 */
#ifndef GPUDP_TEST_CUDA_H
#define GPUDP_TEST_CUDA_H

#include <stdio.h>

#include <gpudp_cuda.h>
#include <gpudp_test.h>

/** Assert that a CUDA call succeeded (in a test case), naming the call and the error. */
#define CU_OK(call) do { CUresult r_ = (call); \
	GPUDP_TEST_ASSERT(r_ == CUDA_SUCCESS, "%s: %s", #call, gpudp_cuda_errstr(r_)); } while (0)

struct gpudp_test_gpu {
	CUdevice dev;
	CUcontext ctx;
	CUmodule mod;
	CUfunction fn;
	char name[128];     /**< the GPU's name */
};

/**
 * Open GPU 0 and kernel @p fn of image @p img.
 * @return GPUDP_TEST_PASS; GPUDP_TEST_SKIP without a usable GPU (said);
 *   GPUDP_TEST_FAIL when the GPU is there but cannot be set up (said)
 */
static inline int
gpudp_test_gpu_open(struct gpudp_test_gpu *g, const struct gpudp_cuda_image *img,
		    const char *fn)
{
	int n = 0;

	if (gpudp_cuda_init() != 0 || gpudp_cu->cuDeviceGetCount(&n) != CUDA_SUCCESS || n == 0) {
		printf("no usable GPU: %s (skip)\n", gpudp_cuda_last_error());
		return GPUDP_TEST_SKIP;
	}
	if (gpudp_cu->cuDeviceGet(&g->dev, 0) != CUDA_SUCCESS ||
	    gpudp_cu->cuDevicePrimaryCtxRetain(&g->ctx, g->dev) != CUDA_SUCCESS ||
	    gpudp_cu->cuCtxSetCurrent(g->ctx) != CUDA_SUCCESS ||
	    gpudp_cuda_module_load_image(img, &g->mod) != 0 ||
	    gpudp_cu->cuModuleGetFunction(&g->fn, g->mod, fn) != CUDA_SUCCESS) {
		printf("cannot set up the GPU: %s\n", gpudp_cuda_last_error());
		return GPUDP_TEST_FAIL;
	}
	gpudp_cu->cuDeviceGetName(g->name, sizeof(g->name), g->dev);
	return GPUDP_TEST_PASS;
}

/** Unload the image and release the context. */
static inline void
gpudp_test_gpu_close(struct gpudp_test_gpu *g)
{
	gpudp_cu->cuModuleUnload(g->mod);
	gpudp_cu->cuDevicePrimaryCtxRelease(g->dev);
}

#endif /* GPUDP_TEST_CUDA_H */

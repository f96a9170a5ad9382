/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A test's GPU: GPU 0's primary context, current on the calling thread,
 * and one kernel of one of the test's embedded GPU images (lib/cuda's
 * loader). For the tests that launch kernels of their own.
 */
#ifndef GPUDP_TEST_CUDA_H
#define GPUDP_TEST_CUDA_H

#include <stdint.h>
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

/** A range of GPU memory zeroed before each launch of gpudp_test_gpu_best(). */
struct gpudp_test_zero {
	CUdeviceptr p;
	size_t bytes;
};

/**
 * The kernel of @p g over @p n items (one thread an item, blocks of 128)
 * with @p args, @p rounds times, the @p nz ranges of @p zero zeroed before
 * each launch; the fastest launch's time (GPU events) in *@p ms.
 * @return GPUDP_TEST_PASS, or GPUDP_TEST_FAIL (said)
 */
static inline int
gpudp_test_gpu_best(const struct gpudp_test_gpu *g, uint32_t n, void **args, int rounds,
		    const struct gpudp_test_zero *zero, unsigned int nz, double *ms)
{
	CUevent e0, e1;
	unsigned int z;
	float t;
	int r;

	CU_OK(gpudp_cu->cuEventCreate(&e0, CU_EVENT_DEFAULT));
	CU_OK(gpudp_cu->cuEventCreate(&e1, CU_EVENT_DEFAULT));
	*ms = 1e30;
	for (r = 0; r < rounds; r++) {
		for (z = 0; z < nz; z++)
			CU_OK(gpudp_cu->cuMemsetD8(zero[z].p, 0, zero[z].bytes));
		CU_OK(gpudp_cu->cuEventRecord(e0, NULL));
		CU_OK(gpudp_cu->cuLaunchKernel(g->fn, (n + 127) / 128, 1, 1, 128, 1, 1, 0, NULL,
					       args, NULL));
		CU_OK(gpudp_cu->cuEventRecord(e1, NULL));
		CU_OK(gpudp_cu->cuEventSynchronize(e1));
		CU_OK(gpudp_cu->cuEventElapsedTime(&t, e0, e1));
		if (t < *ms)
			*ms = t;
	}
	gpudp_cu->cuEventDestroy(e0);
	gpudp_cu->cuEventDestroy(e1);
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

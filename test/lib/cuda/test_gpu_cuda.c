/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpu suite: the CUDA driver API through lib/cuda on a real GPU.
 * Every case skips (and the program exits 77, meson's SKIP) when
 * gpudp_cuda_init() finds no driver or no device.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <gpudp_cuda.h>
#include <gpudp_test.h>

static CUdevice dev;
static CUcontext ctx;

#define CU_OK(call) do { \
	CUresult r_ = (call); \
	GPUDP_TEST_ASSERT(r_ == CUDA_SUCCESS, "%s: %s", #call, gpudp_cuda_errstr(r_)); \
} while (0)

/* Initialise once; every case starts with this. */
static int
need_gpu(void)
{
	static int done, rc;

	if (!done) {
		done = 1;
		rc = gpudp_cuda_init();
		if (rc == 0 && gpudp_cu->cuDeviceGet(&dev, 0) == CUDA_SUCCESS &&
		    gpudp_cu->cuDevicePrimaryCtxRetain(&ctx, dev) == CUDA_SUCCESS)
			gpudp_cu->cuCtxSetCurrent(ctx);
		else if (rc == 0)
			rc = -EIO;
		if (rc != 0)
			fprintf(stderr, "    no GPU: %s\n", gpudp_cuda_last_error());
	}
	return rc == 0;
}

#define NEED_GPU() GPUDP_TEST_SKIP_IF(!need_gpu(), "no CUDA device")

static int
cuda_finds_device(void)
{
	char name[128], bus[32];
	int n = 0;

	NEED_GPU();
	CU_OK(gpudp_cu->cuDeviceGetCount(&n));
	GPUDP_TEST_ASSERT(n >= 1, "%d devices", n);
	CU_OK(gpudp_cu->cuDeviceGetName(name, sizeof(name), dev));
	CU_OK(gpudp_cu->cuDeviceGetPCIBusId(bus, sizeof(bus), dev));
	printf("    %d device(s); device 0: %s at %s, driver CUDA %d, built with %d\n",
	       n, name, bus, gpudp_cuda_driver_version(), gpudp_cuda_build_version());
	GPUDP_TEST_ASSERT(gpudp_cuda_driver_version() >= 12000, "driver %d",
			  gpudp_cuda_driver_version());
	return GPUDP_TEST_PASS;
}

static int
device_is_ampere_or_newer(void)
{
	int major = 0, minor = 0;

	NEED_GPU();
	CU_OK(gpudp_cu->cuDeviceGetAttribute(&major,
		CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev));
	CU_OK(gpudp_cu->cuDeviceGetAttribute(&minor,
		CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev));
	printf("    compute capability %d.%d\n", major, minor);
	GPUDP_TEST_ASSERT(major >= 8, "sm_%d%d is older than the sm_80 baseline",
			  major, minor);
	return GPUDP_TEST_PASS;
}

/* The CUDA 13 trap: cuCtxGetDevice requested at the driver's version is the
 * two-argument cuCtxGetDevice_v2. Ours is requested at ABI 2000. */
static int
ctx_get_device_uses_compiled_abi(void)
{
	CUdevice got = -1;

	NEED_GPU();
	CU_OK(gpudp_cu->cuCtxGetDevice(&got));
	GPUDP_TEST_ASSERT(got == dev, "cuCtxGetDevice gave %d, want %d", got, dev);
	return GPUDP_TEST_PASS;
}

static int
probe_kernel_fills_buffer(void)
{
	const uint32_t n = 1u << 20, seed = 0x5eed1234u;
	uint32_t *host, i, bad = 0;
	CUmodule mod;
	CUfunction fn;
	CUdeviceptr d;
	void *args[3];
	uint32_t nn = n, sd = seed;
	int rc;

	NEED_GPU();
	rc = gpudp_cuda_module_load("probe", &mod);
	GPUDP_TEST_ASSERT(rc == 0, "module load: %s", gpudp_cuda_last_error());
	CU_OK(gpudp_cu->cuModuleGetFunction(&fn, mod, "gpudp_probe_fill"));
	CU_OK(gpudp_cu->cuMemAlloc(&d, n * sizeof(uint32_t)));
	CU_OK(gpudp_cu->cuMemsetD8(d, 0xa5, n * sizeof(uint32_t)));
	args[0] = &d;
	args[1] = &nn;
	args[2] = &sd;
	CU_OK(gpudp_cu->cuLaunchKernel(fn, (n + 255) / 256, 1, 1, 256, 1, 1, 0,
				       NULL, args, NULL));
	host = malloc(n * sizeof(uint32_t));
	GPUDP_TEST_ASSERT(host != NULL, "malloc");
	CU_OK(gpudp_cu->cuMemcpyDtoH(host, d, n * sizeof(uint32_t)));
	for (i = 0; i < n; i++)
		bad += host[i] != ((i * 2654435761u) ^ seed);
	free(host);
	gpudp_cu->cuMemFree(d);
	gpudp_cu->cuModuleUnload(mod);
	GPUDP_TEST_ASSERT(bad == 0, "%u of %u words wrong", bad, n);
	return GPUDP_TEST_PASS;
}

/* Every buffer a NIC writes has CU_POINTER_ATTRIBUTE_SYNC_MEMOPS (NVIDIA,
 * "GPUDirect RDMA", "Pinning GPU memory" / "Synchronization and Memory
 * Ordering"; doc/ordering.md). */
static int
sync_memops_attribute_sticks(void)
{
	CUdeviceptr d;
	unsigned int one = 1, got = 0;

	NEED_GPU();
	CU_OK(gpudp_cu->cuMemAlloc(&d, 1 << 16));
	CU_OK(gpudp_cu->cuPointerSetAttribute(&one,
		CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, d));
	CU_OK(gpudp_cu->cuPointerGetAttribute(&got,
		CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, d));
	gpudp_cu->cuMemFree(d);
	GPUDP_TEST_ASSERT(got == 1, "SYNC_MEMOPS reads %u", got);
	return GPUDP_TEST_PASS;
}

static const struct gpudp_test_case cases[] = {
	{ "cuda_finds_device", cuda_finds_device },
	{ "device_is_ampere_or_newer", device_is_ampere_or_newer },
	{ "ctx_get_device_uses_compiled_abi", ctx_get_device_uses_compiled_abi },
	{ "probe_kernel_fills_buffer", probe_kernel_fills_buffer },
	{ "sync_memops_attribute_sticks", sync_memops_attribute_sticks },
	{ NULL, NULL },
};

int
main(int argc, char **argv)
{
	int rc = gpudp_test_run("gpu_cuda", cases, argc, argv);

	if (ctx != NULL)
		gpudp_cu->cuDevicePrimaryCtxRelease(dev);
	return rc;
}

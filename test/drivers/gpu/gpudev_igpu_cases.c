/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The gpudev driver on an integrated GPU (NVIDIA's GPUDirect RDMA guide,
 * section Porting to Tegra): mem_alloc from cuMemHostAlloc, used through
 * the pointer the attributes allow, mapped for the CPU without gpudp_pin;
 * and, on a discrete GPU, that there is nothing to choose. In the dpdk
 * suite against fake_libcuda with GPUDP_FAKE_CUDA_INTEGRATED=uva and
 * devptr; each case skips on the other kind of GPU.
 */
#include "gpudev_test.h"

int
gpu0_integrated(void)
{
	struct gpudp_gpu_props pr;

	return gpu_ok && gpudp_gpu_props_get(0, &pr) == 0 && pr.integrated;
}

#define NEED_IGPU() do { \
	NEED_GPU(); \
	GPUDP_TEST_SKIP_IF(!gpu0_integrated(), "GPU 0 is not integrated"); \
} while (0)

/* the host pointer of device pointer @p p, and its cuMemHostAlloc flags */
static int
host_of(void *p, void **host, unsigned int *flags)
{
	unsigned int type = 0;

	*host = NULL;
	*flags = 0;
	return gpudp_cu->cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
					       (CUdeviceptr)(uintptr_t)p) == CUDA_SUCCESS &&
	       type == CU_MEMORYTYPE_HOST &&
	       gpudp_cu->cuPointerGetAttribute(host, CU_POINTER_ATTRIBUTE_HOST_POINTER,
					       (CUdeviceptr)(uintptr_t)p) == CUDA_SUCCESS &&
	       gpudp_cu->cuMemHostGetFlags(flags, *host) == CUDA_SUCCESS ? 0 : -1;
}

int
igpu_is_recognised_from_its_attributes(void)
{
	struct gpudp_gpu_props pr;
	int uva = 0, reg = 0;

	NEED_IGPU();
	GPUDP_TEST_ASSERT(gpudp_gpu_props_get(0, &pr) == 0, "props");
	CU_OK(gpudp_cu->cuDeviceGetAttribute(&uva, CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING,
					     cu_dev0));
	CU_OK(gpudp_cu->cuDeviceGetAttribute(&reg,
		CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM, cu_dev0));
	GPUDP_TEST_ASSERT(pr.integrated == 1 && pr.can_map_host == 1, "integrated %d, map %d",
			  pr.integrated, pr.can_map_host);
	GPUDP_TEST_ASSERT(pr.unified_addressing == uva && pr.host_ptr_registered == reg,
			  "props %d/%d, device %d/%d", pr.unified_addressing,
			  pr.host_ptr_registered, uva, reg);
	GPUDP_TEST_ASSERT(pr.igpu_alloc == GPUDP_GPU_IGPU_ALLOC_DEFAULT, "igpu_alloc %d",
			  (int)pr.igpu_alloc);
	return GPUDP_TEST_PASS;
}

/* default flags: DEVICEMAP, not write-combined; the host pointer itself
 * where the attributes allow it, else cuMemHostGetDevicePointer's */
int
igpu_alloc_is_mapped_host_memory_with_sync_memops(void)
{
	struct gpudp_gpu_props pr;
	CUdeviceptr d = 0;
	unsigned int flags;
	uint64_t sync = 0;
	void *p, *host;

	NEED_IGPU();
	GPUDP_TEST_ASSERT(gpudp_gpu_props_get(0, &pr) == 0, "props");
	p = rte_gpu_mem_alloc(0, 100 * KIB, 0);
	GPUDP_TEST_ASSERT(p != NULL, "alloc: %s", rte_strerror(rte_errno));
	GPUDP_TEST_ASSERT((uintptr_t)p % (64 * KIB) == 0, "%p not 64 KiB aligned", p);
	GPUDP_TEST_ASSERT(host_of(p, &host, &flags) == 0, "%p is not cuMemHostAlloc memory", p);
	GPUDP_TEST_ASSERT((flags & CU_MEMHOSTALLOC_DEVICEMAP) &&
			  !(flags & CU_MEMHOSTALLOC_WRITECOMBINED), "flags 0x%x", flags);
	CU_OK(gpudp_cu->cuMemHostGetDevicePointer(&d, host, 0));
	if (pr.unified_addressing || pr.host_ptr_registered)
		GPUDP_TEST_ASSERT(p == host, "%p, host pointer %p", p, host);
	else
		GPUDP_TEST_ASSERT((uintptr_t)p == d && p != host,
				  "%p, device pointer 0x%llx, host pointer %p", p,
				  (unsigned long long)d, host);
	CU_OK(gpudp_cu->cuPointerGetAttribute(&sync, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS,
					      (CUdeviceptr)(uintptr_t)p));
	GPUDP_TEST_ASSERT(sync != 0, "SYNC_MEMOPS not set on %p", p);
	GPUDP_TEST_ASSERT(rte_gpu_mem_free(0, p) == 0, "free");
	GPUDP_TEST_ASSERT(gpudp_cu->cuMemHostGetFlags(&flags, host) != CUDA_SUCCESS,
			  "block %p still allocated after free", host);
	return GPUDP_TEST_PASS;
}

/* write-combined: always through the device pointer (CUDA's cuMemHostAlloc) */
int
igpu_alloc_wc_is_used_through_the_device_pointer(void)
{
	struct gpudp_gpu_props pr;
	CUdeviceptr d = 0;
	unsigned int flags;
	void *p, *host;
	int rc;

	NEED_IGPU();
	GPUDP_TEST_ASSERT(gpudp_gpu_igpu_alloc_set(0, GPUDP_GPU_IGPU_ALLOC_WC) == 0, "set wc");
	GPUDP_TEST_ASSERT(gpudp_gpu_props_get(0, &pr) == 0 &&
			  pr.igpu_alloc == GPUDP_GPU_IGPU_ALLOC_WC, "props after set");
	p = rte_gpu_mem_alloc(0, 64 * KIB, 0);
	rc = gpudp_gpu_igpu_alloc_set(0, GPUDP_GPU_IGPU_ALLOC_DEFAULT);
	GPUDP_TEST_ASSERT(p != NULL, "alloc: %s", rte_strerror(rte_errno));
	GPUDP_TEST_ASSERT(rc == 0, "set default: %d", rc);
	GPUDP_TEST_ASSERT(host_of(p, &host, &flags) == 0, "%p is not cuMemHostAlloc memory", p);
	GPUDP_TEST_ASSERT((flags & CU_MEMHOSTALLOC_WRITECOMBINED) &&
			  (flags & CU_MEMHOSTALLOC_DEVICEMAP), "flags 0x%x", flags);
	CU_OK(gpudp_cu->cuMemHostGetDevicePointer(&d, host, 0));
	GPUDP_TEST_ASSERT((uintptr_t)p == d, "%p, device pointer 0x%llx", p,
			  (unsigned long long)d);
	GPUDP_TEST_ASSERT(gpudp_gpu_igpu_alloc_set(0, (enum gpudp_gpu_igpu_alloc)7) == -EINVAL,
			  "unknown choice accepted");
	GPUDP_TEST_ASSERT(rte_gpu_mem_free(0, p) == 0, "free");
	return GPUDP_TEST_PASS;
}

/* the CPU mapping is the host address of the buffer: no gpudp_pin needed;
 * what the CPU writes there the GPU reads at the buffer's address */
int
igpu_cpu_map_is_the_host_pointer_without_pin_module(void)
{
	struct gpudp_gpu_props pr;
	static uint8_t buf[8192];
	volatile uint8_t *m;
	unsigned int flags;
	void *g, *host;
	size_t k;

	NEED_IGPU();
	g = rte_gpu_mem_alloc(0, 1 << 20, 0);
	GPUDP_TEST_ASSERT(g != NULL, "alloc");
	GPUDP_TEST_ASSERT(host_of(g, &host, &flags) == 0, "host pointer of %p", g);
	CU_OK(gpudp_cu->cuMemsetD8((CUdeviceptr)(uintptr_t)g, 0x5a, 1 << 20));
	m = rte_gpu_mem_cpu_map(0, 1 << 20, g);
	GPUDP_TEST_ASSERT(m == host, "cpu_map %p, host pointer %p: %s", (void *)(uintptr_t)m,
			  host, rte_strerror(rte_errno));
	GPUDP_TEST_ASSERT(m[4095] == 0x5a, "CPU reads %#x", m[4095]);
	for (k = 0; k < sizeof(buf); k++)
		m[k] = (uint8_t)(k * 7);
	rte_wmb();
	CU_OK(gpudp_cu->cuMemcpyDtoH(buf, (CUdeviceptr)(uintptr_t)g, sizeof(buf)));
	for (k = 0; k < sizeof(buf); k++)
		GPUDP_TEST_ASSERT(buf[k] == (uint8_t)(k * 7), "GPU sees %#x at %zu", buf[k], k);
	GPUDP_TEST_ASSERT(gpudp_gpu_props_get(0, &pr) == 0 && pr.n_cpu_mapped == 1,
			  "%zu CPU mappings", pr.n_cpu_mapped);
	GPUDP_TEST_ASSERT(rte_gpu_mem_cpu_map(0, 1 << 20, g) == NULL, "mapped twice");
	GPUDP_TEST_ASSERT(rte_gpu_mem_cpu_unmap(0, g) == 0, "unmap");
	GPUDP_TEST_ASSERT(rte_gpu_mem_cpu_unmap(0, g) < 0, "second unmap");
	/* freeing a mapped buffer undoes the mapping */
	GPUDP_TEST_ASSERT(rte_gpu_mem_cpu_map(0, 4096, g) != NULL, "map again");
	GPUDP_TEST_ASSERT(rte_gpu_mem_free(0, g) == 0, "free");
	GPUDP_TEST_ASSERT(gpudp_gpu_props_get(0, &pr) == 0 && pr.n_cpu_mapped == 0 &&
			  pr.n_allocs == 0, "%zu CPU mappings, %zu allocations left",
			  pr.n_cpu_mapped, pr.n_allocs);
	return GPUDP_TEST_PASS;
}

/* a discrete GPU's mem_alloc is cuMemAlloc: nothing to choose */
int
igpu_alloc_set_is_refused_on_a_discrete_gpu(void)
{
	NEED_GPU();
	GPUDP_TEST_SKIP_IF(gpu0_integrated(), "GPU 0 is integrated");
	GPUDP_TEST_ASSERT(gpudp_gpu_igpu_alloc_set(0, GPUDP_GPU_IGPU_ALLOC_WC) == -ENOTSUP,
			  "wc accepted");
	GPUDP_TEST_ASSERT(gpudp_gpu_igpu_alloc_set(0, GPUDP_GPU_IGPU_ALLOC_DEFAULT) == -ENOTSUP,
			  "default accepted");
	GPUDP_TEST_ASSERT(gpudp_gpu_igpu_alloc_set(RTE_GPU_ID_NONE, GPUDP_GPU_IGPU_ALLOC_WC) ==
			  -ENODEV, "no device");
	return GPUDP_TEST_PASS;
}

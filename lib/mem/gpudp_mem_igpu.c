/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What lib/mem asks of a pool's GPU: whether it is integrated (Jetson,
 * DRIVE, IGX's iGPU: it shares DRAM with the CPU) and how it uses host
 * memory (lib/cuda's struct gpudp_cuda_mem_caps), and which cuMemHostAlloc
 * flags a pool's memory has there. NVIDIA's GPUDirect RDMA guide, section
 * Porting to Tegra: an integrated GPU's pools come from cuMemHostAlloc
 * (gpudp's gpudev driver, drivers/gpu/gpu_gpudp_igpu.c), so there is no
 * BAR1 and no PCIe path between NIC and GPU to check, and a dma-buf of the
 * pool is host memory's (CU_DEVICE_ATTRIBUTE_HOST_ALLOC_DMA_BUF_SUPPORTED).
 */
#include <errno.h>
#include <stdint.h>

#include <rte_gpudev.h>

#include "gpudp_mem_pvt.h"

#ifdef GPUDP_HAS_CUDA
_Static_assert(GPUDP_MEM_HOST_ALLOC_PORTABLE == CU_MEMHOSTALLOC_PORTABLE &&
	       GPUDP_MEM_HOST_ALLOC_DEVICEMAP == CU_MEMHOSTALLOC_DEVICEMAP &&
	       GPUDP_MEM_HOST_ALLOC_WRITECOMBINED == CU_MEMHOSTALLOC_WRITECOMBINED,
	       "gpudp_mem.h's host allocation bits are CUDA's");

int
gpudp_mem_gpu_caps(int16_t gpu_id, const char *pci, struct gpudp_cuda_mem_caps *caps,
		   CUdevice *dev)
{
	struct rte_gpu_info info;
	CUdevice d;

	if (gpudp_cuda_init() != 0)
		return -ENODEV;
	if (pci == NULL) {
		if (rte_gpu_info_get(gpu_id, &info) != 0)
			return -ENODEV;
		/* children share their parent's GPU; parents are named after it */
		if (info.parent != RTE_GPU_ID_NONE && rte_gpu_info_get(info.parent, &info) != 0)
			return -ENODEV;
		pci = info.name;
	}
	if (pci == NULL || gpudp_cu->cuDeviceGetByPCIBusId(&d, pci) != CUDA_SUCCESS)
		return -ENODEV;
	if (dev != NULL)
		*dev = d;
	return caps != NULL ? gpudp_cuda_mem_caps_get(d, caps) : 0;
}

unsigned int
gpudp_mem_host_alloc_flags(const void *va)
{
	void *host = NULL;
	unsigned int flags = 0;

	if (gpudp_cu == NULL || gpudp_cu->cuMemHostGetFlags == NULL ||
	    gpudp_cu->cuPointerGetAttribute(&host, CU_POINTER_ATTRIBUTE_HOST_POINTER,
					    (CUdeviceptr)(uintptr_t)va) != CUDA_SUCCESS ||
	    gpudp_cu->cuMemHostGetFlags(&flags, host) != CUDA_SUCCESS)
		return 0;
	return flags;
}
#endif

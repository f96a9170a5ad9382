/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mem_alloc's memory on an integrated GPU (CU_DEVICE_ATTRIBUTE_INTEGRATED:
 * Jetson, DRIVE, IGX's iGPU), which shares DRAM with the CPU. NVIDIA's
 * GPUDirect RDMA guide, section Porting to Tegra: memory a NIC DMAs into
 * comes from cuMemHostAlloc, not cuMemAlloc, and the GPU uses it through
 * its device pointer (cuMemHostGetDevicePointer), or through the host
 * pointer directly where the device has unified addressing or
 * CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM (gpudp_cuda_host_ptr_direct();
 * write-combined memory always through the device pointer).
 *
 * gpu_gpudp_ops.c's mem_alloc does the rest as on a discrete GPU: 64 KiB
 * alignment and rounding, SYNC_MEMOPS, one allocation table entry (DEVICE,
 * with the host pointer kept for cuMemFreeHost and for mem_cpu_map, which
 * then needs no gpudp_pin). Flags: DEVICEMAP and PORTABLE, plus
 * WRITECOMBINED when the device is set so (devarg igpu_alloc=wc,
 * gpudp_gpu_igpu_alloc_set()).
 */
#include <stdint.h>

#include "gpu_gpudp_pvt.h"

static CUresult
igpu_alloc(struct rte_gpu *dev, size_t len, CUdeviceptr *base, void **host)
{
	struct gpudp_gpu_priv *p = dev->process_private;
	unsigned int flags = CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE |
		(p->igpu_wc ? CU_MEMHOSTALLOC_WRITECOMBINED : 0);
	CUresult res;

	*host = NULL;
	res = gpudp_cu->cuMemHostAlloc(host, len, flags);
	if (res != CUDA_SUCCESS)
		return res;
	if (gpudp_cuda_host_ptr_direct(&p->caps, flags)) {
		*base = (CUdeviceptr)(uintptr_t)*host;
		return CUDA_SUCCESS;
	}
	res = gpudp_cu->cuMemHostGetDevicePointer(base, *host, 0);
	if (res != CUDA_SUCCESS) {
		GPU_LOG(ERR, "%s: cuMemHostGetDevicePointer(%p) of a cuMemHostAlloc(%zu, 0x%x) block: %s",
			dev->mpshared->name, *host, len, flags, gpudp_cuda_errstr(res));
		gpudp_cu->cuMemFreeHost(*host);
		*host = NULL;
	}
	return res;
}

const struct gpudp_gpu_backing gpudp_gpu_igpu_backing = {
	.name = "cuMemHostAlloc",
	.alloc = igpu_alloc,
};

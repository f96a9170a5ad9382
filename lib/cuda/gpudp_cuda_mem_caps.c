/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A device's facts about host memory used by the GPU (gpudp_cuda.h,
 * struct gpudp_cuda_mem_caps): what tells an integrated GPU from a
 * discrete one, and which pointer the GPU uses for a cuMemHostAlloc
 * allocation (NVIDIA's GPUDirect RDMA guide, section Porting to Tegra,
 * "Changing the allocator"; CUDA's cuMemHostAlloc and
 * cuMemHostGetDevicePointer).
 */
#include <errno.h>
#include <stdio.h>

#include "gpudp_cuda.h"

static int
attr(CUdevice dev, CUdevice_attribute a)
{
	int v = 0;

	return gpudp_cu->cuDeviceGetAttribute(&v, a, dev) == CUDA_SUCCESS ? v : 0;
}

int
gpudp_cuda_mem_caps_get(CUdevice dev, struct gpudp_cuda_mem_caps *caps)
{
	if (caps == NULL)
		return -EINVAL;
	if (gpudp_cu == NULL)
		return -ENODEV;
	caps->integrated = attr(dev, CU_DEVICE_ATTRIBUTE_INTEGRATED);
	caps->can_map_host = attr(dev, CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY);
	caps->unified_addressing = attr(dev, CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING);
	caps->host_ptr_registered =
		attr(dev, CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM);
	return 0;
}

int
gpudp_cuda_host_ptr_direct(const struct gpudp_cuda_mem_caps *caps, unsigned int flags)
{
	if (caps == NULL || (flags & CU_MEMHOSTALLOC_WRITECOMBINED))
		return 0;
	if (caps->unified_addressing)
		return 1;
	return (flags & CU_MEMHOSTALLOC_DEVICEMAP) && caps->host_ptr_registered;
}

const char *
gpudp_cuda_mem_caps_str(const struct gpudp_cuda_mem_caps *caps, unsigned int flags,
			char *buf, size_t len)
{
	if (buf == NULL || len == 0)
		return buf;
	if (caps == NULL) {
		snprintf(buf, len, "no device facts");
		return buf;
	}
	snprintf(buf, len, "integrated %d, can map host memory %d, unified addressing %d, "
		 "host pointer for registered memory %d: %s allocations used through the %s",
		 caps->integrated, caps->can_map_host, caps->unified_addressing,
		 caps->host_ptr_registered,
		 (flags & CU_MEMHOSTALLOC_WRITECOMBINED) ? "write-combined" : "default",
		 gpudp_cuda_host_ptr_direct(caps, flags) ? "host pointer" :
		 "device pointer (cuMemHostGetDevicePointer)");
	return buf;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* GPU selection shared by gpudp's apps: see gpudp_app_gpu.h. */
#include <stdio.h>

#include <rte_gpudev.h>

#ifdef GPUDP_HAS_CUDA
#include <gpudp_cuda.h>
#include <gpudp_gpu.h>
#endif

#include "gpudp_app_gpu.h"

int16_t
gpudp_app_gpu_find(unsigned int ordinal, char *why, size_t len)
{
	int16_t id;
#ifdef GPUDP_HAS_CUDA
	struct gpudp_gpu_props pr;

	gpudp_gpu_probe_all();
	RTE_GPU_FOREACH(id) {
		if (gpudp_gpu_props_get(id, &pr) == 0 && !pr.is_child &&
		    pr.cuda_ordinal == (int)ordinal)
			return id;
	}
#endif
	id = (int16_t)ordinal;
	if (ordinal <= INT16_MAX && rte_gpu_is_valid(id)) {
#ifdef GPUDP_HAS_CUDA
		if (gpudp_gpu_props_get(id, &pr) != 0) /* not gpudp's: another driver's device */
#endif
			return id;
	}
#ifdef GPUDP_HAS_CUDA
	if (gpudp_cuda_init() != 0)
		snprintf(why, len, "%s", gpudp_cuda_last_error());
	else
		snprintf(why, len, "GPU %u does not exist (%u gpudev device%s)", ordinal,
			 rte_gpu_count_avail(), rte_gpu_count_avail() == 1 ? "" : "s");
#else
	snprintf(why, len, "built without CUDA, and no gpudev device %u exists", ordinal);
#endif
	return -1;
}

uint64_t
gpudp_app_gpu_context(int16_t id)
{
#ifdef GPUDP_HAS_CUDA
	struct gpudp_gpu_props pr;

	if (id >= 0 && gpudp_gpu_props_get(id, &pr) == 0)
		return pr.context;
#else
	(void)id;
#endif
	return 0;
}

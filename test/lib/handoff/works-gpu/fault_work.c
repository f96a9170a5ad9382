/* SPDX-License-Identifier: BSD-3-Clause */
/* TEST work "fault": its CPU form, GPU image, argument and descriptor. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <gpudp_work.h>

#include "fault_work.h"

GPUDP_WORK_CPU(fault_cpu, fault_pkt)

GPUDP_WORK_IMAGE(fault_image, "fault_work.fatbin");

static int
fault_init(const char *arg, void *params, char *err, size_t err_len)
{
	struct fault_params *f = params;

	if (arg != NULL && strcmp(arg, "illegal") == 0) {
		f->how = 1;
	} else if (arg != NULL && strcmp(arg, "trap") == 0) {
		f->how = 2;
	} else {
		snprintf(err, err_len, "'%s': want illegal or trap", arg != NULL ? arg : "");
		return -EINVAL;
	}
	return 0;
}

static const struct gpudp_work fault = {
	.abi = GPUDP_WORK_ABI, .size = sizeof(struct gpudp_work),
	.name = "fault", .summary = "TEST: faults on the GPU (illegal address or trap)",
	.span = 0, .wspan = 0, .params_size = sizeof(struct fault_params),
	.init = fault_init, .cpu = fault_cpu, .gpu_image = fault_image,
};

GPUDP_WORK_EXPORT(fault)

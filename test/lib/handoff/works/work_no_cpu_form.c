/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TEST: an exported descriptor that is invalid (no CPU form): the loader
 * refuses it with EINVAL.
 */
#include <gpudp_work.h>

static const struct gpudp_work no_cpu = {
	.abi = GPUDP_WORK_ABI, .size = sizeof(struct gpudp_work),
	.name = "unit_no_cpu_form",
};

GPUDP_WORK_EXPORT(no_cpu)

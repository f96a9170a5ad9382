/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TEST: a shared object with a valid descriptor that it does not export
 * (no GPUDP_WORK_EXPORT): the loader finds no entry point.
 */
#include <gpudp_work.h>

GPUDP_WORK_FN uint32_t
pass_pkt(struct gpudp_work_pkt *p)
{
	(void)p;
	return GPUDP_WORK_PASS;
}

GPUDP_WORK_CPU(pass_cpu, pass_pkt)

static const struct gpudp_work unexported = {
	.abi = GPUDP_WORK_ABI, .size = sizeof(struct gpudp_work),
	.name = "unit_no_entry", .cpu = pass_cpu,
};

/* a symbol of another name, so that the object is not empty */
__attribute__((visibility("default"))) const struct gpudp_work *work_descriptor(void);
__attribute__((visibility("default"))) const struct gpudp_work *
work_descriptor(void)
{
	return &unexported;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TEST: a work built for the next work ABI (abi = GPUDP_WORK_ABI + 1):
 * the loader refuses it with EPROTO.
 */
#include <gpudp_work.h>

GPUDP_WORK_FN uint32_t
pass_pkt(struct gpudp_work_pkt *p)
{
	(void)p;
	return GPUDP_WORK_PASS;
}

GPUDP_WORK_CPU(pass_cpu, pass_pkt)

static const struct gpudp_work next_abi = {
	.abi = GPUDP_WORK_ABI + 1, .size = sizeof(struct gpudp_work),
	.name = "unit_abi_mismatch", .cpu = pass_cpu,
};

GPUDP_WORK_EXPORT(next_abi)

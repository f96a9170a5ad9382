/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TEST work "fault" (test/lib/handoff/works-gpu): faults on the GPU on purpose, to prove that
 * a faulting work stops the pipeline cleanly. --work-arg "illegal": every
 * packet stores to an unmapped address (CUDA_ERROR_ILLEGAL_ADDRESS);
 * "trap": every packet runs a trap instruction. Its CPU form passes every
 * packet (the CPU is not made to crash).
 */
#ifndef FAULT_WORK_H
#define FAULT_WORK_H

#include <gpudp_work.h>

struct fault_params {
	uint32_t how;   /* 1 illegal address, 2 trap */
};

GPUDP_WORK_FN uint32_t
fault_pkt(struct gpudp_work_pkt *p)
{
#ifdef __CUDA_ARCH__
	const struct fault_params *f = (const struct fault_params *)p->params;

	if (f->how == 1)
		*(volatile uint32_t *)(uintptr_t)(0x10 + p->index * 4) = p->pkt_len;
	else if (f->how == 2)
		__trap();
#else
	(void)p;
#endif
	return GPUDP_WORK_PASS;
}

#endif

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The CPU form, the GPU image (built with -DWORK_GPU_IMAGE) and the
 * descriptor of the example work "macswap_ext".
 */
#include <gpudp_work.h>

#include "macswap.h"

GPUDP_WORK_CPU(macswap_cpu, macswap_pkt)

#ifdef WORK_GPU_IMAGE
GPUDP_WORK_IMAGE(macswap_image, "macswap.fatbin");
#endif

static const char *const reasons[] = { "truncated" };

static const struct gpudp_work macswap = {
	.abi = GPUDP_WORK_ABI,
	.size = sizeof(struct gpudp_work),
	.name = "macswap_ext",
	.summary = "swap the Ethernet addresses (example, built from the SDK)",
	.span = 14,           /* reads the Ethernet header */
	.wspan = 12,          /* writes the two addresses */
	.n_reasons = 1,
	.reasons = reasons,
	.cpu = macswap_cpu,
#ifdef WORK_GPU_IMAGE
	.gpu_image = macswap_image,
#endif
};

GPUDP_WORK_EXPORT(macswap)

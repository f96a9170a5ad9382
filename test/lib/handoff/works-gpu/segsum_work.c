/* SPDX-License-Identifier: BSD-3-Clause */
/* TEST work "segsum": its CPU form, GPU image and descriptor. */
#include <gpudp_work.h>

#include "segsum_work.h"

GPUDP_WORK_CPU(segsum_cpu, segsum_pkt)

GPUDP_WORK_IMAGE(segsum_image, "segsum_work.fatbin");

static const char *const counters[] = { "segs" };

static const struct gpudp_work segsum = {
	.abi = GPUDP_WORK_ABI, .size = sizeof(struct gpudp_work),
	.name = "segsum", .summary = "TEST: sums every byte over a packet's segments",
	.result_size = sizeof(struct segsum_result), .n_counters = 1, .counters = counters,
	.wspan = 64,  /* staged: the header segment's bytes come back */
	.cpu = segsum_cpu, .gpu_image = segsum_image,
};

GPUDP_WORK_EXPORT(segsum)

/* SPDX-License-Identifier: BSD-3-Clause */
/* TEST work "span": its CPU form, GPU image and descriptor. */
#include <gpudp_work.h>

#include "span_work.h"

GPUDP_WORK_CPU(span_cpu, span_pkt)

#ifdef SPAN_GPU
GPUDP_WORK_IMAGE(span_image, "span_work.fatbin");
#endif

static const char *const counters[] = { "pkts" };

static const struct gpudp_work span = {
	.abi = GPUDP_WORK_ABI, .size = sizeof(struct gpudp_work),
	.name = "span", .summary = "TEST: sums the bytes of its span, returns the metadata",
	.span = SPAN_BYTES, .result_size = sizeof(struct span_result),
	.n_counters = 1, .counters = counters,
	.cpu = span_cpu,
#ifdef SPAN_GPU
	.gpu_image = span_image,
#endif
};

GPUDP_WORK_EXPORT(span)

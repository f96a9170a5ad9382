/* SPDX-License-Identifier: BSD-3-Clause */
/* TEST work "probe": its CPU form, GPU image and descriptor. */
#include <gpudp_work.h>

#include "probe_work.h"

GPUDP_WORK_CPU(probe_cpu, probe_pkt)

#ifdef PROBE_GPU
GPUDP_WORK_IMAGE(probe_image, "probe_work.fatbin");
#endif

static const char *const reasons[] = { "short" };
static const char *const counters[] = { "pkts", "bytes" };

static const struct gpudp_work probe = {
	.abi = GPUDP_WORK_ABI, .size = sizeof(struct gpudp_work),
	.name = "probe", .summary = "TEST: macswap, result = first 4 bytes, counters",
	.span = 14, .wspan = 12, .result_size = 4,
	.n_reasons = 1, .reasons = reasons, .n_counters = 2, .counters = counters,
	.cpu = probe_cpu,
#ifdef PROBE_GPU
	.gpu_image = probe_image,
#endif
};

GPUDP_WORK_EXPORT(probe)

/* SPDX-License-Identifier: BSD-3-Clause */
/* TEST work "frame": its CPU form, GPU image and descriptor. */
#include <gpudp_work.h>

#include "frame_work.h"

GPUDP_WORK_CPU(frame_cpu, frame_pkt)

GPUDP_WORK_IMAGE(frame_image, "frame_work.fatbin");

static const char *const reasons[] = { "cut" };
static const char *const counters[] = { "last" };

static const struct gpudp_work frame = {
	.abi = GPUDP_WORK_ABI, .size = sizeof(struct gpudp_work),
	.name = "frame", .summary = "TEST: the whole frame staged, its last byte read",
	.span = 0, .wspan = 0,
	.n_reasons = 1, .reasons = reasons, .n_counters = 1, .counters = counters,
	.cpu = frame_cpu, .gpu_image = frame_image,
};

GPUDP_WORK_EXPORT(frame)

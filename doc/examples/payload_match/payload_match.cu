// SPDX-License-Identifier: BSD-3-Clause
// payload_match: the GPU form of the work (README.md). gpudp's kernel shapes
// for every GPU mode, instantiated around the per-packet function that the
// CPU form runs too; nvcc -fatbin makes the image that payload_match.c
// embeds.
#include <gpudp_work_dev.h>

#include "payload_match.h"

GPUDP_WORK_GPU(payload_match_pkt)

// SPDX-License-Identifier: BSD-3-Clause
// GPU form of the capture analysis work with rules (doc/rules.md,
// gpudp_analysis_work_rules()): capture.cu's kernels with the rules' code,
// each thread checking its packet against the rules' image with its own
// scratch (GPUDP_RULES_SCRATCH_WORDS words of local memory).
#include "gpudp_work_dev.h"
#include "gpudp_analysis_work.h"

GPUDP_WORK_GPU(gpudp_an_work_pkt)

// SPDX-License-Identifier: BSD-3-Clause
// GPU form of the built-in work `rules` (gpudp_rules_work.h): gpudp's
// kernel shapes around gpudp_rules_work_pkt, the CPU form's own code; the
// rules' image is the work's table, in GPU memory.
#include "gpudp_work_dev.h"
#include "gpudp_rules_work.h"

GPUDP_WORK_GPU(gpudp_rules_work_pkt)

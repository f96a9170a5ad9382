// SPDX-License-Identifier: BSD-3-Clause
// GPU form of the built-in work `match` (gpudp_match_work.h): gpudp's
// kernel shapes around gpudp_match_work_pkt, the CPU form's own code; the
// database is the work's table, in GPU memory.
#include "gpudp_work_dev.h"
#include "gpudp_match_work.h"

GPUDP_WORK_GPU(gpudp_match_work_pkt)

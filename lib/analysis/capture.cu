// SPDX-License-Identifier: BSD-3-Clause
// GPU form of the capture analysis work (gpudp_analysis_work.h): gpudp's
// kernel shapes (gpudp_work_dev.h) around gpudp_an_work_pkt, the very
// per-packet code of the CPU engine (gpudp_analysis_pkt.h). The counters
// are summed per block in shared memory and per burst by the handoff; flow
// and fragment slots are updated with atomics in GPU memory. Without the
// rules' code (capture_rules.cu has it), so that no thread carries their
// scratch.
#define GPUDP_AN_NO_RULES 1
#include "gpudp_work_dev.h"
#include "gpudp_analysis_work.h"

GPUDP_WORK_GPU(gpudp_an_work_pkt)

// SPDX-License-Identifier: BSD-3-Clause
// The GPU form of the built-in work "load" (gpudp_fwd_pkt.h): gpudp's kernel
// shapes around its per-packet function, as any work builds them.
#include "gpudp_fwd_pkt.h"
#include "gpudp_work_dev.h"

GPUDP_WORK_GPU(gpudp_fwd_load_pkt)

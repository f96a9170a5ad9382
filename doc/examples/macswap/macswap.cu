// SPDX-License-Identifier: BSD-3-Clause
// The GPU form: gpudp's kernel shapes around macswap_pkt.
#include <gpudp_work_dev.h>

#include "macswap.h"

GPUDP_WORK_GPU(macswap_pkt)

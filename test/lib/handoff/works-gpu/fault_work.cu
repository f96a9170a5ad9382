// SPDX-License-Identifier: BSD-3-Clause
// TEST work "fault": its GPU form.
#include <gpudp_work_dev.h>

#include "fault_work.h"

GPUDP_WORK_GPU(fault_pkt)

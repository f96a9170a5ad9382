// SPDX-License-Identifier: BSD-3-Clause
// TEST work "state": its GPU form.
#include <gpudp_work_dev.h>

#include "state_work.h"

GPUDP_WORK_GPU(state_pkt)

// SPDX-License-Identifier: BSD-3-Clause
// TEST work "segsum": its GPU form.
#include <gpudp_work_dev.h>

#include "segsum_work.h"

GPUDP_WORK_GPU(segsum_pkt)

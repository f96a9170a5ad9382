// SPDX-License-Identifier: BSD-3-Clause
// TEST work "probe": its GPU form.
#include <gpudp_work_dev.h>

#include "probe_work.h"

GPUDP_WORK_GPU(probe_pkt)

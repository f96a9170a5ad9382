// SPDX-License-Identifier: BSD-3-Clause
// TEST work "frame": its GPU form.
#include <gpudp_work_dev.h>

#include "frame_work.h"

GPUDP_WORK_GPU(frame_pkt)

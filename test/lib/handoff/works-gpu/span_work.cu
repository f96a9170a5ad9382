// SPDX-License-Identifier: BSD-3-Clause
// TEST work "span": its GPU form.
#include <gpudp_work_dev.h>

#include "span_work.h"

GPUDP_WORK_GPU(span_pkt)

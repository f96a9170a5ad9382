/* SPDX-License-Identifier: BSD-3-Clause */
/* TEST work "state": its descriptor, with its GPU image (state_work.h). */
#include "state_work.h"

#ifdef STATE_GPU
GPUDP_WORK_IMAGE(state_work_image, "state_work.fatbin");
#define STATE_IMAGE state_work_image
#else
#define STATE_IMAGE NULL
#endif

static const struct gpudp_work state_work = STATE_WORK_DESC(STATE_IMAGE);

GPUDP_WORK_EXPORT(state_work)

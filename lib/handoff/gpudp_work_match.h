/* SPDX-License-Identifier: BSD-3-Clause */
/* Internal: the built-in work `match` (gpudp_work_match.c), registered by gpudp_work.c. */
#ifndef GPUDP_WORK_MATCH_H
#define GPUDP_WORK_MATCH_H

#include "gpudp_work.h"

/** Its descriptor; gpudp_work.c sets its GPU image and registers it. */
extern struct gpudp_work gpudp_work_match;

#endif /* GPUDP_WORK_MATCH_H */

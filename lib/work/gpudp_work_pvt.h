/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Internal to lib/work: its log type, the check of a GPU image's format
 * (also run by test/fuzz's fuzz_work_image). Not installed.
 */
#ifndef GPUDP_WORK_PVT_H
#define GPUDP_WORK_PVT_H

#include <stddef.h>

#include "gpudp_log.h"

#include "gpudp_work.h"

extern int gpudp_work_logtype;

#define WORK_LOG(lvl, ...) GPUDP_LOG_LINE(gpudp_work_logtype, "gpudp.work", lvl, __VA_ARGS__)

/** Check the format of a work's GPU image. @return 0 or -ENOEXEC. */
int gpudp_work_image_check(const struct gpudp_work *w, char *err, size_t len);

#endif /* GPUDP_WORK_PVT_H */

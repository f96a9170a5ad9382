/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Internal to lib/work: its log type, the check of a GPU image's format
 * (also run by test/fuzz's fuzz_work_image). Not installed.
 */
#ifndef GPUDP_WORK_PVT_H
#define GPUDP_WORK_PVT_H

#include <stddef.h>

#include <rte_common.h>
#include <rte_log.h>

#include "gpudp_work.h"

extern int gpudp_work_logtype;

/* one line per call: the macro adds the newline, as every gpudp log macro does */
#define WORK_LOG(lvl, ...) \
	rte_log(RTE_LOG_ ## lvl, gpudp_work_logtype, \
		RTE_FMT("gpudp.work: " RTE_FMT_HEAD(__VA_ARGS__, ) "\n", \
			RTE_FMT_TAIL(__VA_ARGS__, )))

/** Check the format of a work's GPU image. @return 0 or -ENOEXEC. */
int gpudp_work_image_check(const struct gpudp_work *w, char *err, size_t len);

#endif /* GPUDP_WORK_PVT_H */

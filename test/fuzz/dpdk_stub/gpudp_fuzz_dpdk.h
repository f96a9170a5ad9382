/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz builds only: the definitions behind dpdk_stub/'s declarations
 * (rte_errno, rte_log(), which formats and drops the message). Included by
 * the one fuzz target source of a binary that compiles DPDK-using sources.
 */
#ifndef GPUDP_FUZZ_DPDK_H
#define GPUDP_FUZZ_DPDK_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

#include "rte_errno.h"
#include "rte_log.h"

__thread int gpudp_fuzz_rte_errno;

int
rte_log(uint32_t level, uint32_t logtype, const char *format, ...)
{
	char buf[512];
	va_list ap;

	(void)level;
	(void)logtype;
	va_start(ap, format);
	vsnprintf(buf, sizeof(buf), format, ap);
	va_end(ap);
	return 0;
}

#endif /* GPUDP_FUZZ_DPDK_H */

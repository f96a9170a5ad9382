/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * gpudp's log lines through DPDK's log: one line per call, "PREFIX: "
 * before the message and the newline after it, as every gpudp log macro
 * writes them.
 */
#ifndef GPUDP_LOG_H
#define GPUDP_LOG_H

#include <rte_common.h>
#include <rte_log.h>

/**
 * Log at level RTE_LOG_@p lvl (ERR, WARNING, NOTICE, INFO, DEBUG) of log
 * type @p type one line: @p prefix (a string literal), ": ", then the
 * printf-style format and arguments that follow.
 */
#define GPUDP_LOG_LINE(type, prefix, lvl, ...) \
	rte_log(RTE_LOG_ ## lvl, type, \
		RTE_FMT(prefix ": " RTE_FMT_HEAD(__VA_ARGS__, ) "\n", \
			RTE_FMT_TAIL(__VA_ARGS__, )))

#endif /* GPUDP_LOG_H */

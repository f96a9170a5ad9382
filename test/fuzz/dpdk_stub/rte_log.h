/* SPDX-License-Identifier: BSD-3-Clause */
/* Fuzz builds only: rte_log() and its levels; the fuzz target defines it. */
#ifndef GPUDP_FUZZ_RTE_LOG_H
#define GPUDP_FUZZ_RTE_LOG_H

#include <stdint.h>

#define RTE_LOG_EMERG 1U
#define RTE_LOG_ALERT 2U
#define RTE_LOG_CRIT 3U
#define RTE_LOG_ERR 4U
#define RTE_LOG_WARNING 5U
#define RTE_LOG_NOTICE 6U
#define RTE_LOG_INFO 7U
#define RTE_LOG_DEBUG 8U

/* a log type: a plain int (rte_log() here ignores it) */
#define RTE_LOG_REGISTER(type, name, level) int type

int rte_log(uint32_t level, uint32_t logtype, const char *format, ...)
	__attribute__((format(printf, 3, 4)));

#endif /* GPUDP_FUZZ_RTE_LOG_H */

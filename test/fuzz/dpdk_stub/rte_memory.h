/* SPDX-License-Identifier: BSD-3-Clause */
/* Fuzz builds only: the IOVA type of DPDK's rte_memory.h (rte_common.h's
 * in DPDK), which lib/mem's internal header names. */
#ifndef GPUDP_FUZZ_RTE_MEMORY_H
#define GPUDP_FUZZ_RTE_MEMORY_H

#include <stdint.h>

typedef uint64_t rte_iova_t;

#endif /* GPUDP_FUZZ_RTE_MEMORY_H */

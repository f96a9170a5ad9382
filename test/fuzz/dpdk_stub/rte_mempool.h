/* SPDX-License-Identifier: BSD-3-Clause */
/* Fuzz builds only: the mempool as lib/mem's public header names it (a
 * pointer to an incomplete type). */
#ifndef GPUDP_FUZZ_RTE_MEMPOOL_H
#define GPUDP_FUZZ_RTE_MEMPOOL_H

struct rte_mempool;

#endif /* GPUDP_FUZZ_RTE_MEMPOOL_H */

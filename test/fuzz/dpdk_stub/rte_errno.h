/* SPDX-License-Identifier: BSD-3-Clause */
/* Fuzz builds only: rte_errno, a thread-local int the fuzz target defines. */
#ifndef GPUDP_FUZZ_RTE_ERRNO_H
#define GPUDP_FUZZ_RTE_ERRNO_H

extern __thread int gpudp_fuzz_rte_errno;
#define rte_errno gpudp_fuzz_rte_errno

#endif /* GPUDP_FUZZ_RTE_ERRNO_H */

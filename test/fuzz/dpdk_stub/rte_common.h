/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz builds only: the little of DPDK's rte_common.h that the sources a
 * fuzz target compiles (lib/work/gpudp_work.c) use, so that clang builds
 * them without a DPDK build. Add what they come to use.
 */
#ifndef GPUDP_FUZZ_RTE_COMMON_H
#define GPUDP_FUZZ_RTE_COMMON_H

#define RTE_MIN(a, b) ((a) < (b) ? (a) : (b))
#define RTE_MAX(a, b) ((a) > (b) ? (a) : (b))
#define RTE_DIM(a) (sizeof(a) / sizeof((a)[0]))
#define RTE_SET_USED(x) (void)(x)
/* the log macros' one-line formats (as DPDK's) */
#define RTE_FMT(fmt, ...) fmt "%.0s", __VA_ARGS__ ""
#define RTE_FMT_HEAD(fmt, ...) fmt
#define RTE_FMT_TAIL(fmt, ...) __VA_ARGS__

#endif /* GPUDP_FUZZ_RTE_COMMON_H */

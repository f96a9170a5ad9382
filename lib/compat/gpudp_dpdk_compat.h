/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The few DPDK interfaces that differ between the releases gpudp builds
 * against (22.11, 24.11, 25.11; doc/build.md, "DPDK releases") and have no
 * common replacement. Everything else gpudp calls exists in all three.
 *
 * Each difference is one feature macro, GPUDP_DPDK_HAVE_*, decided here
 * from the DPDK version, and one gpudp_* function that the code calls
 * instead of the DPDK one. Include this header, not the #if.
 *
 * - Telemetry: rte_tel_data_add_dict_uint() appeared in 23.03;
 *   rte_tel_data_add_dict_u64() is deprecated in 24.11 and gone in 25.11.
 *   gpudp_tel_dict_u64() adds an unsigned 64-bit value either way.
 */
#ifndef GPUDP_DPDK_COMPAT_H
#define GPUDP_DPDK_COMPAT_H

#include <stdint.h>

#include <rte_telemetry.h>
#include <rte_version.h>

#ifdef __cplusplus
extern "C" {
#endif

/** rte_tel_data_add_dict_uint() exists (DPDK 23.03 and newer). */
#if RTE_VERSION >= RTE_VERSION_NUM(23, 3, 0, 0)
#define GPUDP_DPDK_HAVE_TEL_DICT_UINT 1
#endif

/**
 * Add an unsigned 64-bit value to a telemetry dictionary.
 *
 * @param d
 *   Dictionary started with rte_tel_data_start_dict().
 * @param name
 *   Key.
 * @param val
 *   Value.
 * @return
 *   0, or a negative errno value as the DPDK function returns it.
 */
static inline int
gpudp_tel_dict_u64(struct rte_tel_data *d, const char *name, uint64_t val)
{
#ifdef GPUDP_DPDK_HAVE_TEL_DICT_UINT
	return rte_tel_data_add_dict_uint(d, name, val);
#else
	return rte_tel_data_add_dict_u64(d, name, val);
#endif
}

#ifdef __cplusplus
}
#endif

#endif /* GPUDP_DPDK_COMPAT_H */

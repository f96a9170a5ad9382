/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Why rte_eal_init() failed, in words a user can act on. DPDK's EAL logs
 * its own messages but often leaves rte_errno at 0 ("Success") or at a code
 * that hides the cause ("Permission denied" when no hugetlbfs is mounted).
 * The apps print one line built here after EAL's own messages:
 *   "gpudp-fwd: EAL initialisation failed: 1024 hugepages of 2048 kB are
 *    reserved but no hugetlbfs is mounted for that size: ..."
 * No DPDK in here: the checks read the system (or a made-up tree, in tests).
 */
#ifndef GPUDP_EAL_DIAG_H
#define GPUDP_EAL_DIAG_H

#include <stddef.h>

/**
 * Explain a failed rte_eal_init(), checking in this order:
 *  - another process holds the lock on @p runtime_dir's "config" file (a
 *    second primary process with the same --file-prefix);
 *  - for @p eal_errno EACCES or ENOMEM: no hugepages reserved, hugepages
 *    reserved of a size no hugetlbfs is mounted for, or not root;
 *  - else strerror(@p eal_errno), or a pointer to EAL's messages when it is 0.
 *
 * @param eal_errno    rte_errno after the failure
 * @param runtime_dir  rte_eal_get_runtime_dir(), or NULL / "" when unknown
 * @param root         "" for the running system; in tests, a directory that
 *                     stands for "/" (its sys/kernel/mm/hugepages/hugepages-*kB/
 *                     nr_hugepages, proc/mounts and proc/meminfo are read)
 * @param buf          where the text goes (always NUL-terminated)
 * @param len          size of @p buf
 * @return @p buf
 */
const char *gpudp_eal_why(int eal_errno, const char *runtime_dir, const char *root, char *buf,
			  size_t len);

#endif /* GPUDP_EAL_DIAG_H */

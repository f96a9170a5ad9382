/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Client of the TEST-ONLY NV-P2P simulator's control device
 * (/dev/nvidia_p2p_sim, test/kmod/sim): it stands in for cudaMalloc,
 * cudaFree and a debugger's view of GPU memory in the e2e guest.
 * Every function returns 0 (or a descriptor) or a negative errno.
 */
#ifndef E2E_SIM_H
#define E2E_SIM_H

#include <stdint.h>

#include "nvidia_p2p_sim_uapi.h"

/** Open the control device; allocations made through it die with it. */
int e2e_sim_open(void);

/** Fake cudaMalloc of @p size bytes; the 64 KiB aligned GPU VA in @p va. */
int e2e_sim_alloc(int fd, uint64_t size, uint64_t *va);

/** Fake cudaFree of the allocation at @p va: runs the free callbacks. */
int e2e_sim_free(int fd, uint64_t va);

/**
 * Fake cuMemGetHandleForAddressRange(DMA_BUF_FD): export [@p va, @p va +
 * @p len) as a dma-buf. @return its descriptor, or a negative errno.
 */
int e2e_sim_export_dmabuf(int fd, uint64_t va, uint64_t len);

/** Read the u64 at GPU VA @p va through the provider's kernel mapping. */
int e2e_sim_peek(int fd, uint64_t va, uint64_t *value);

/** Read the simulator's counters. */
int e2e_sim_stats(int fd, struct nvp2p_sim_stats *s);

#endif /* E2E_SIM_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The e2e guest's "GPU": device memory from the TEST-ONLY NV-P2P simulator
 * (test/kmod/sim), handed to lib/mem as a gpudp_mem_allocator, plus a CPU
 * mapping of it through gpudp_pin (the stand-in for gpudev's cpu_map).
 *
 * lib/mem pins what the allocator returns through its own kmod backend (or
 * attaches the simulator's dma-buf export of it, dmabuf backend) and
 * registers it with the page table as IOVA table; mbuf data addresses are
 * GPU VAs, as with a real GPU. The forwarder reads payloads through the CPU
 * mapping, translating with e2e_gpu_cpu_ptr().
 *
 * The CPU mapping is a separate pin (and mmap of /dev/gpudp_pin) of the
 * same memory. With @c uva it is placed at the GPU VA itself (as CUDA's
 * unified addressing does for host-mapped memory), for PMDs that read or
 * write the buffer through its address (virtio's header in the headroom);
 * without it nothing is mapped at the GPU VA, so a PMD that touched the
 * buffer through the CPU would crash the test.
 *
 * Up to 16 allocations (lib/mem's chunks). With an adopted allocation they
 * are carved from it one after the other. Functions return 0 or a negative
 * errno unless said otherwise.
 */
#ifndef E2E_GPU_H
#define E2E_GPU_H

#include <stdbool.h>
#include <stdint.h>

#include <gpudp_mem.h>

struct e2e_gpu;

/** How to get the memory. */
struct e2e_gpu_conf {
	uint64_t adopt_va;	/**< 0: allocate; else use this allocation */
	uint64_t adopt_len;	/**< its length (with adopt_va) */
	bool uva;		/**< CPU mapping at the GPU VA */
};

/** Open the simulator's control device and /dev/gpudp_pin. NULL: errno set. */
struct e2e_gpu *e2e_gpu_open(const struct e2e_gpu_conf *conf);

/** The allocator to put in gpudp_pool_conf.alloc. */
const struct gpudp_mem_allocator *e2e_gpu_allocator(struct e2e_gpu *g);

/**
 * The live allocations: their GPU VAs and lengths, at most @p max of them.
 * @return how many there are.
 */
unsigned int e2e_gpu_allocations(const struct e2e_gpu *g, uint64_t *va,
				 uint64_t *len, unsigned int max);

/** CPU address of GPU VA @p va, through the CPU mapping; NULL outside it. */
void *e2e_gpu_cpu_ptr(const struct e2e_gpu *g, const void *va);

/** Bus address of GPU VA @p va in the CPU mapping's own page table. */
int e2e_gpu_iova(const struct e2e_gpu *g, const void *va, uint64_t *iova);

/** Read the u64 at GPU VA @p va through the provider's kernel mapping. */
int e2e_gpu_peek(const struct e2e_gpu *g, const void *va, uint64_t *value);

/**
 * Write a marker through the CPU mapping at the start of every GPU page and
 * read it back through the provider at the GPU VA: proves the mapping shows
 * the provider's pages, in order. Leaves the pages zeroed there.
 */
int e2e_gpu_check_mapping(struct e2e_gpu *g);

/** Free what is left (the allocation too, unless adopted) and close. */
void e2e_gpu_close(struct e2e_gpu *g);

#endif /* E2E_GPU_H */

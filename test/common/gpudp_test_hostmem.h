/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * host_stand_in: a lib/mem allocator (struct gpudp_mem_allocator) of
 * ordinary aligned host memory standing in for GPU memory, so that the
 * device-pool path (chunks, extmem, dma_map, extbuf pool, teardown) runs
 * without a GPU or a gpudev device. It counts what it hands out in the
 * struct gpudp_test_hostmem given as its ctx:
 *
 *   static struct gpudp_test_hostmem mem;
 *   static const struct gpudp_mem_allocator stand_in =
 *           GPUDP_TEST_HOSTMEM_ALLOCATOR(&mem);
 *   conf.alloc = &stand_in;
 *   ... pool created and destroyed ...
 *   GPUDP_TEST_ASSERT(mem.live == 0, "%d leaked", mem.live);
 *
 * It has no export_dmabuf, so the dmabuf pin backend cannot use it.
 */
#ifndef GPUDP_TEST_HOSTMEM_H
#define GPUDP_TEST_HOSTMEM_H

#include <stddef.h>
#include <stdlib.h>

#include <rte_errno.h>

#include <gpudp_mem.h>

/** Largest stand-in allocation: a larger request fails like cuMemAlloc does
 * (rte_errno ENOMEM), instead of asking the host allocator (and ASan) for
 * terabytes. */
#define GPUDP_TEST_HOSTMEM_CAPACITY ((size_t)1 << 30)

/** What the stand-in has handed out; a test may reset it between cases. */
struct gpudp_test_hostmem {
	int live;      /**< allocations not yet freed */
	size_t bytes;  /**< bytes allocated since the last reset (frees do not count) */
};

/** The allocator's alloc: @p len bytes aligned to @p align, or NULL with
 * rte_errno ENOMEM. @p ctx is a struct gpudp_test_hostmem. */
static inline void *
gpudp_test_hostmem_alloc(void *ctx, size_t len, size_t align)
{
	struct gpudp_test_hostmem *mem = ctx;
	void *p = len <= GPUDP_TEST_HOSTMEM_CAPACITY ? aligned_alloc(align, len) : NULL;

	if (p == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	mem->live++;
	mem->bytes += len;
	return p;
}

/** The allocator's free: always 0. */
static inline int
gpudp_test_hostmem_free(void *ctx, void *p)
{
	struct gpudp_test_hostmem *mem = ctx;

	mem->live--;
	free(p);
	return 0;
}

/** Initializer of a struct gpudp_mem_allocator counting into @p mem
 * (a struct gpudp_test_hostmem *, of static storage for a static one). */
#define GPUDP_TEST_HOSTMEM_ALLOCATOR(mem) { \
	.name = "host_stand_in", .alloc = gpudp_test_hostmem_alloc, \
	.free = gpudp_test_hostmem_free, .ctx = (mem), \
}

#endif /* GPUDP_TEST_HOSTMEM_H */

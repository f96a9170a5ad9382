/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * gpudp_regcache: a registration cache for pinned GPU memory.
 *
 * Pinning GPU memory for third-party DMA (nvidia_p2p_get_pages through the
 * gpudp_pin module, or a peermem/dma-buf registration) costs up to
 * milliseconds, so it must stay off the fast path. Following NVIDIA's
 * GPUDirect RDMA guide ("Lazy Unpinning Optimization", "Registration
 * Cache", "Buffer ID Tag Check"):
 *  - regions are rounded out to 64 KiB (the GPU page size) and pinned once,
 *    on first use;
 *  - a region stays pinned after its last user releases it (lazy unpin);
 *    idle regions are evicted least recently used first when the BAR budget
 *    would be exceeded, or when a pin fails for lack of BAR space (then the
 *    pin is retried);
 *  - gpudp_regcache_validate() compares the region's buffer ID tag
 *    (CU_POINTER_ATTRIBUTE_BUFFER_ID) with the current one, on demand;
 *    with gpudp_regcache_conf.validate_hits, acquire does it on every hit
 *    (for caches used off the data path, e.g. at pool creation only);
 *  - gpudp_regcache_invalidate() drops regions whose pin was revoked (the
 *    module's free callback ran) or whose memory was freed.
 *
 * Overlapping requests are merged into one region covering both; adjacent
 * ones are not (they may belong to different allocations, which cannot be
 * pinned as one), and with gpudp_regcache_conf.validate_hits neither is an
 * idle region whose buffer ID tag changed (its memory was freed: it is
 * dropped instead). The cache is thread-safe. Pinning itself is done by a
 * backend (struct gpudp_regcache_ops), so this library has no CUDA, kernel
 * or DPDK dependency.
 */
#ifndef GPUDP_REGCACHE_H
#define GPUDP_REGCACHE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** GPU page size: every region starts and ends on this boundary. */
#define GPUDP_REGCACHE_ALIGN (UINT64_C(64) << 10)

/** Largest region the cache accepts (1 TiB); longer requests get -E2BIG. */
#define GPUDP_REGCACHE_MAX_LEN (UINT64_C(1) << 40)

/** What a pin backend does for the cache. */
struct gpudp_regcache_ops {
	/**
	 * Pin [va, va + len) (both 64 KiB aligned).
	 * @param[out] handle backend's handle for unpin
	 * @param[out] tag the range's buffer ID tag at pin time (0 if unknown)
	 * @return 0; -ENOSPC when BAR space is exhausted (the cache then
	 *   evicts an idle region and retries); another negative errno on
	 *   other failures (returned to the caller as is).
	 */
	int (*pin)(void *ctx, uint64_t va, uint64_t len, uint64_t *handle,
		   uint64_t *tag);
	/** Unpin a handle returned by pin. Must not fail for a revoked pin. */
	void (*unpin)(void *ctx, uint64_t handle);
	/**
	 * Current buffer ID tag of the memory at va (optional, may be NULL).
	 * @return 0, or a negative errno if va is no longer mapped.
	 */
	int (*tag)(void *ctx, uint64_t va, uint64_t *tag);
	/**
	 * A region failed the tag check of validate_hits (optional, may be
	 * NULL; for logging): [va, va + len) is dropped; a hit is then pinned
	 * afresh, an idle region a miss overlaps is not merged into it.
	 */
	void (*stale)(void *ctx, uint64_t va, uint64_t len);
};

/** Configuration of a cache. */
struct gpudp_regcache_conf {
	const struct gpudp_regcache_ops *ops; /**< the pin backend */
	void *ctx;          /**< passed to every op */
	uint64_t budget;    /**< most bytes pinned at once; 0: no limit */
	/**
	 * Non-zero: acquire checks the buffer ID tag of every hit (one tag op,
	 * outside the lock) and, when it changed (memory freed and allocated
	 * again at the same address) or the memory is gone, invalidates the
	 * region and pins afresh. Regions pinned with tag 0 (tag unknown) are
	 * not checked. Costs a driver query per hit: not for the data path.
	 * A miss checks the idle regions it would merge the same way (under
	 * the cache's lock): a stale one is dropped, not merged.
	 */
	int validate_hits;
};

/** A pinned region. Fields are read-only for users. */
struct gpudp_reg {
	uint64_t va;        /**< start, 64 KiB aligned */
	uint64_t len;       /**< length, multiple of 64 KiB */
	uint64_t handle;    /**< the backend's pin handle */
	uint64_t tag;       /**< buffer ID tag at pin time */
};

/** Counters, cumulative since creation except the two "now" fields. */
struct gpudp_regcache_stats {
	uint64_t hits;          /**< acquires served from the cache */
	uint64_t misses;        /**< acquires that had to pin */
	uint64_t pins;          /**< successful backend pins */
	uint64_t pin_failures;  /**< backend pins that failed (incl. retried) */
	uint64_t unpins;        /**< backend unpins */
	uint64_t evictions;     /**< idle regions unpinned to make room */
	uint64_t invalidations; /**< regions dropped by invalidate/validate */
	uint64_t bytes_pinned;  /**< now: bytes in pinned regions */
	uint64_t regions;       /**< now: regions pinned */
};

struct gpudp_regcache;

/**
 * Create a cache.
 * @return the cache, or NULL with errno set (EINVAL: no ops, or a budget
 *   below 64 KiB; ENOMEM).
 */
struct gpudp_regcache *gpudp_regcache_create(const struct gpudp_regcache_conf *conf);

/**
 * Destroy a cache: every region is unpinned, in use or not.
 * Regions acquired and not released must not be used afterwards.
 * @param c the cache; NULL is a no-op.
 */
void gpudp_regcache_destroy(struct gpudp_regcache *c);

/**
 * Get a pinned region covering [va, va + len), pinning on a miss.
 * The region stays pinned at least until gpudp_regcache_release().
 *
 * @param c the cache
 * @param va start of the range (any alignment)
 * @param len length in bytes (> 0)
 * @param[out] reg the region; its va/len cover the request rounded out
 *   to 64 KiB
 * With conf.validate_hits, a hit whose buffer ID tag no longer matches is
 * invalidated and the range pinned afresh (see gpudp_regcache_conf).
 *
 * @return 0 on success; -EINVAL for len 0 or a range that wraps around;
 *   -E2BIG for a rounded length over GPUDP_REGCACHE_MAX_LEN or over the
 *   budget; -ENOSPC when the budget or BAR space is full of regions in
 *   use; another negative errno from the backend's pin.
 */
int gpudp_regcache_acquire(struct gpudp_regcache *c, uint64_t va, uint64_t len,
			   const struct gpudp_reg **reg);

/**
 * Release a region from gpudp_regcache_acquire(). It stays pinned (lazy
 * unpin) unless it was invalidated meanwhile, in which case its last
 * release unpins it.
 */
void gpudp_regcache_release(struct gpudp_regcache *c, const struct gpudp_reg *reg);

/**
 * Check a region's buffer ID tag against the memory's current one (the
 * "Buffer ID Tag Check" of NVIDIA's "GPUDirect RDMA"). Costs a driver query: call it on demand
 * (e.g. before reusing a region for a new pool), not per packet.
 * @return 0 if the tag matches (or the backend has no tag op); -ESTALE if
 *   it does not or the memory is gone: the region is then invalidated.
 */
int gpudp_regcache_validate(struct gpudp_regcache *c, const struct gpudp_reg *reg);

/**
 * Drop every region that overlaps [va, va + len): call it when the memory
 * was freed, or when the pin module reports its free callback ran. Idle
 * regions are unpinned at once; regions in use are unpinned at their last
 * release, and are never returned by acquire again.
 * @return the number of regions dropped.
 */
unsigned int gpudp_regcache_invalidate(struct gpudp_regcache *c, uint64_t va,
				       uint64_t len);

/** Read the counters. */
void gpudp_regcache_stats(struct gpudp_regcache *c, struct gpudp_regcache_stats *st);

#ifdef __cplusplus
}
#endif

#endif /* GPUDP_REGCACHE_H */

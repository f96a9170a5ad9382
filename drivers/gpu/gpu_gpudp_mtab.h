/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The gpudev driver's allocation table: one per gpudev device (parent or
 * child), keyed by the pointer handed to the application.
 *
 * An open-addressing hash table (linear probing, backward-shift deletion,
 * no tombstones) under one mutex: O(1) expected insert, lookup and remove,
 * so mem_free of one of thousands of buffers costs the same as of one.
 * Removal is the ownership transfer: of two threads freeing the same
 * pointer, exactly one gets the entry, the other gets NULL (and an error
 * for the application), never a double cuMemFree.
 *
 * Pure C11 plus pthreads, no CUDA and no DPDK, so the unit suite tests it
 * on any machine (test/drivers/gpu/test_gpudev_mtab.c).
 */
#ifndef GPU_GPUDP_MTAB_H
#define GPU_GPUDP_MTAB_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

/** What an entry is. */
enum gpudp_gpu_mem_kind {
	GPUDP_GPU_MEM_NONE = 0,   /**< not in the table */
	GPUDP_GPU_MEM_DEVICE = 1, /**< GPU memory from mem_alloc */
	GPUDP_GPU_MEM_HOST = 2,   /**< host memory from mem_register */
};

/** One allocation or registration. Owned by the table while inserted. */
struct gpudp_gpu_mtab_ent {
	uintptr_t key;           /**< the pointer the application holds */
	enum gpudp_gpu_mem_kind kind;
	size_t size;             /**< bytes the application asked for */
	uint64_t base;           /**< DEVICE: what cuMemAlloc returned (on an
				  *   integrated GPU: the device pointer of
				  *   what cuMemHostAlloc returned) */
	size_t base_size;        /**< DEVICE: bytes given to cuMemAlloc (cuMemHostAlloc) */
	void *host;              /**< DEVICE on an integrated GPU: the host pointer
				  *   cuMemHostAlloc returned (base's CPU address);
				  *   NULL for cuMemAlloc memory */
	/* CPU mapping of a DEVICE entry (mem_cpu_map): through gpudp_pin, or
	 * (host != NULL) the host pointer itself */
	uint64_t pin_handle;     /**< 0: not pinned */
	void *map_addr;          /**< mmap()ed pinned range, or the host address; NULL: not mapped */
	size_t map_len;
};

/** The table. Initialise with gpudp_gpu_mtab_init(). */
struct gpudp_gpu_mtab {
	pthread_mutex_t lock;
	struct gpudp_gpu_mtab_ent **slot; /**< cap slots, NULL = empty */
	size_t cap;                       /**< power of two */
	size_t count[3];                  /**< entries per kind */
	uint64_t bytes[3];                /**< bytes (ent->size) per kind */
};

/** @return 0 or -ENOMEM. */
int gpudp_gpu_mtab_init(struct gpudp_gpu_mtab *t);

/** Free the slot array (not the entries: drain them first). */
void gpudp_gpu_mtab_fini(struct gpudp_gpu_mtab *t);

/**
 * Insert an entry (ent->key, ent->kind and ent->size set).
 * @return 0; -EEXIST if the key is present (with any kind); -ENOMEM.
 */
int gpudp_gpu_mtab_insert(struct gpudp_gpu_mtab *t,
			  struct gpudp_gpu_mtab_ent *ent);

/**
 * Remove and return the entry for key if it has the given kind.
 * @param found
 *   If not NULL, set to the kind found under key (GPUDP_GPU_MEM_NONE if
 *   absent), so the caller can say why nothing was removed.
 * @return the entry, now owned by the caller, or NULL.
 */
struct gpudp_gpu_mtab_ent *gpudp_gpu_mtab_remove(struct gpudp_gpu_mtab *t,
	uintptr_t key, enum gpudp_gpu_mem_kind kind,
	enum gpudp_gpu_mem_kind *found);

/** Remove and return any entry (teardown), or NULL when empty. */
struct gpudp_gpu_mtab_ent *gpudp_gpu_mtab_pop(struct gpudp_gpu_mtab *t);

/**
 * Look up key; the caller must hold t->lock and must not keep the pointer
 * after unlocking.
 */
struct gpudp_gpu_mtab_ent *gpudp_gpu_mtab_find_locked(struct gpudp_gpu_mtab *t,
	uintptr_t key);

/** Counts and bytes of one kind, read under the lock. */
void gpudp_gpu_mtab_stats(struct gpudp_gpu_mtab *t,
	enum gpudp_gpu_mem_kind kind, size_t *count, uint64_t *bytes);

#endif /* GPU_GPUDP_MTAB_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/* Internal to lib/mem. */
#ifndef GPUDP_MEM_PVT_H
#define GPUDP_MEM_PVT_H

#include <stddef.h>
#include <stdint.h>

#include <rte_log.h>
#include <rte_memory.h>

#include "gpudp_mem.h"

/** GPU page size (NVIDIA's GPUDirect RDMA guide, "Pinning GPU memory"). */
#define GPUDP_GPU_PAGE ((size_t)64 << 10)

extern int gpudp_mem_logtype;
#define GPUDP_MEM_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, gpudp_mem_logtype, "gpudp.mem: " fmt "\n", \
		##__VA_ARGS__)

/** A backend's pin of one chunk. */
struct gpudp_pin_region {
	const void *reg;   /**< backend-private (a regcache region) */
	void *cache;       /**< the registration cache holding it */
};

/** What a backend may need besides the range: who exports it, who DMAs. */
struct gpudp_pin_target {
	const char *pool;                        /**< for logs */
	int16_t gpu_id;                          /**< the pool's gpudev device
						  *   (gpudp_pool_conf.gpu_id): the GPU
						  *   whose caches keep the pins */
	const struct gpudp_mem_allocator *alloc; /**< the chunk's allocator */
	const uint16_t *ports;                   /**< ports that DMA into it */
	uint16_t nb_ports;
};

/** A pin backend. */
struct gpudp_pin_ops {
	enum gpudp_pin_backend backend;
	const char *name;
	/**
	 * Pin [va, va + len) and return its bus addresses, one per page of
	 * *pgsz bytes, in a malloc'ed array the caller frees. NULL: the
	 * backend does not pin (IOVA left to the PMD).
	 */
	int (*pin)(const struct gpudp_pin_target *t, void *va, size_t len,
		   struct gpudp_pin_region *r, rte_iova_t **iova, size_t *n,
		   size_t *pgsz);
	/** Release a pin (lazily: the registration cache keeps it). */
	void (*unpin)(struct gpudp_pin_region *r);
	/** 0 if the pin is still valid; -EIDRM if revoked (memory freed). */
	int (*check)(struct gpudp_pin_region *r);
};

/**
 * Resolve AUTO (dmabuf, else kmod, else peermem) and check the backend is
 * usable with @p alloc, by gpudp_mem_pin_decide() on this host's facts
 * (peermem taken as is); opens the module and the kmod cache. Logs the
 * choice of AUTO (INFO) and a refusal (ERR), each with why.
 */
int gpudp_pin_backend_select(enum gpudp_pin_backend want,
			     const struct gpudp_mem_allocator *alloc,
			     const struct gpudp_pin_ops **ops);

/** An allocator's export_dmabuf hook. */
typedef int gpudp_dmabuf_export_t(void *ctx, void *ptr, size_t len);

/**
 * gpudev's allocator on @p gpu_id: the dma-buf export hook if the GPU
 * reports CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED and the driver has
 * cuMemGetHandleForAddressRange, else NULL.
 */
gpudp_dmabuf_export_t *gpudp_gpudev_dmabuf_exporter(int16_t gpu_id);

#ifdef GPUDP_HAS_CUDA
#include <gpudp_cuda.h>

/**
 * The CUDA device of gpudev device @p gpu_id (its parent's for a child), or,
 * with @p pci not NULL, of the GPU at that PCI address, and its facts
 * (integrated or not, host pointer use). Loads the CUDA driver if needed.
 * @param caps, dev  filled if not NULL
 * @return 0; -ENODEV (no CUDA, no such device)
 */
int gpudp_mem_gpu_caps(int16_t gpu_id, const char *pci, struct gpudp_cuda_mem_caps *caps,
		       CUdevice *dev);

/**
 * The CU_MEMHOSTALLOC_* flags of the cuMemHostAlloc block holding @p va
 * (an integrated GPU's pool memory, at its host or device pointer); 0 if
 * @p va is not in one.
 */
unsigned int gpudp_mem_host_alloc_flags(const void *va);
#endif

/** Call fn for every live pool, under the pool list lock. */
void gpudp_pool_foreach(void (*fn)(const struct gpudp_pool *p, void *arg), void *arg);
const char *gpudp_pool_name(const struct gpudp_pool *p);

/** sysfs root: $GPUDP_SYSFS_ROOT if set and not empty, else "/sys". */
const char *gpudp_mem_sysfs(void);

/**
 * Read the first line of a file, without its newline, into @p buf.
 * @return 0 (an empty file gives ""); a negative errno if it does not open.
 */
int gpudp_mem_read_line(const char *path, char *buf, size_t len);

/**
 * Resolve a PCI address ("0000:01:00.0") to its device directory in sysfs
 * (realpath of <sysfs>/bus/pci/devices/<pci>) into @p out (PATH_MAX bytes).
 * @return 0; -ENOENT if the device is not there.
 */
int gpudp_mem_pci_path(const char *pci, char *out);

#endif /* GPUDP_MEM_PVT_H */

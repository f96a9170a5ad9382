/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * gpudp's gpudev driver for NVIDIA GPUs (drivers/gpu): the few functions
 * an application calls besides DPDK's rte_gpu_* API.
 *
 * The driver registers itself on DPDK's PCI bus (any NVIDIA device of PCI
 * class VGA or 3D controller, confirmed by the CUDA driver) and on the vdev
 * bus (`--vdev gpu_gpudp0,cuda=N` or `bdf=D:B:D.F`). Each GPU is one gpudev
 * parent device named after its PCI address ("0000:00:06.0"); extra CUDA
 * contexts are children. Every rte_gpu_* operation runs in the device's
 * CUDA context (pushed and popped around the call), so any thread, lcore
 * or not, may call it. See doc/gpudev.md.
 *
 * All functions here are for the primary or a secondary process after
 * rte_eal_init(), from one thread at a time (like rte_gpu_add_child).
 */
#ifndef GPUDP_GPU_H
#define GPUDP_GPU_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The driver's name on the vdev bus: `--vdev gpu_gpudp0,...`. */
#define GPUDP_GPU_DRIVER_NAME "gpu_gpudp"

/** The driver's name on the PCI bus (DPDK needs one name per bus). */
#define GPUDP_GPU_PCI_DRIVER_NAME "gpu_gpudp_pci"

/**
 * Make every GPU the CUDA driver reports a gpudev device, whatever the EAL
 * arguments were, and give the driver's ops to children that were added
 * with plain rte_gpu_add_child().
 *
 * Call it once after rte_eal_init(). For each CUDA device, in CUDA order:
 * - already a gpudev device (EAL's PCI scan probed it): nothing to do;
 * - named in a `-b` block-list: left alone (logged at INFO);
 * - PCI bus enabled: probed through rte_dev_probe(), which adds the GPU to
 *   an `-a` allow-list that named only the NIC and rescans the bus;
 * - `--no-pci`, or the PCI route failed: created as vdev "gpu_gpudp_<PCI
 *   address>".
 * Without an NVIDIA driver or GPU it logs one line (gpudp.gpu, NOTICE) and
 * returns 0; it never fails the application for that.
 *
 * @return
 *   The number of GPUs (gpudev parent devices) this driver now serves,
 *   0 if none; a negative errno only for an internal failure (ENOMEM).
 */
int gpudp_gpu_probe_all(void);

/**
 * rte_gpu_add_child() plus what DPDK 22.11's library does not do for
 * drivers: hand the child this driver's operations. (The library never
 * calls a driver for a child, and the callback list of a new device's slot
 * is wiped when the slot is allocated, so a plain child has no ops and
 * rte_gpu_mem_alloc() on it fails with ENOTSUP.)
 *
 * @param name
 *   Unique gpudev name of the child.
 * @param parent
 *   A parent device of this driver.
 * @param child_context
 *   A CUcontext on the parent's GPU, cast to uint64_t, that stays valid
 *   until rte_gpu_close(child). The driver never destroys it.
 * @return
 *   The child's device id, or a negative errno (rte_errno set):
 *   -ENODEV parent invalid or not this driver's, -EINVAL context not on
 *   the parent's GPU, -EEXIST name taken, -ENOMEM.
 */
int16_t gpudp_gpu_add_child(const char *name, int16_t parent,
			    uint64_t child_context);

/**
 * How mem_alloc allocates on an integrated GPU (CU_DEVICE_ATTRIBUTE_INTEGRATED:
 * Jetson, DRIVE, IGX's iGPU), which shares DRAM with the CPU. NVIDIA's
 * GPUDirect RDMA guide, section Porting to Tegra: memory a NIC DMAs into
 * comes from cuMemHostAlloc there, not cuMemAlloc, with the default flags
 * or write-combined. The driver asks for CU_MEMHOSTALLOC_DEVICEMAP and
 * _PORTABLE, and returns the pointer the GPU uses: the host pointer where
 * the device has unified addressing or
 * CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM and the memory is not
 * write-combined, else cuMemHostGetDevicePointer's (doc/tegra.md).
 */
enum gpudp_gpu_igpu_alloc {
	/** default flags: the CPU caches it (reads through a CPU mapping are fast) */
	GPUDP_GPU_IGPU_ALLOC_DEFAULT = 0,
	/** CU_MEMHOSTALLOC_WRITECOMBINED too: not cached by the CPU (CPU reads slow) */
	GPUDP_GPU_IGPU_ALLOC_WC = 1,
};

/** What a gpudev device of this driver is (gpudp_gpu_props_get()). */
struct gpudp_gpu_props {
	char product[96];        /**< e.g. "NVIDIA H200" */
	char pci_addr[24];       /**< "0000:00:06.0" (lower case) */
	char bus[8];             /**< "pci", "vdev", or "" for a child */
	int cuda_ordinal;        /**< CUdevice ordinal */
	int cc_major, cc_minor;  /**< compute capability */
	uint32_t sm_count;       /**< SMs of the device (or of the child context) */
	uint64_t context;        /**< CUcontext the ops run in */
	int is_child;            /**< 1 for a child device */
	int gdr_supported;       /**< CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED */
	int gdr_writes_ordering; /**< ..._GPU_DIRECT_RDMA_WRITES_ORDERING (0, 100, 200) */
	int gdr_flush_options;   /**< ..._GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS bits */
	int wmb_flushes;         /**< 1: rte_gpu_wmb() calls cuFlushGPUDirectRDMAWrites */
	int integrated;          /**< CU_DEVICE_ATTRIBUTE_INTEGRATED: mem_alloc is cuMemHostAlloc */
	int can_map_host;        /**< CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY */
	int unified_addressing;  /**< CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING */
	int host_ptr_registered; /**< ..._CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM */
	enum gpudp_gpu_igpu_alloc igpu_alloc; /**< integrated: how mem_alloc allocates */
	size_t n_allocs;         /**< live mem_alloc buffers */
	uint64_t alloc_bytes;    /**< their requested bytes */
	size_t n_registered;     /**< live mem_register ranges */
	uint64_t registered_bytes;
	size_t n_cpu_mapped;     /**< live mem_cpu_map mappings */
};

/**
 * Describe a gpudev device served by this driver.
 * @return 0, -EINVAL (props NULL), or -ENODEV (no such device, or another
 *   driver's).
 */
int gpudp_gpu_props_get(int16_t dev_id, struct gpudp_gpu_props *props);

/**
 * Choose how rte_gpu_mem_alloc() allocates on an integrated GPU from now
 * on (allocations already made keep their flags). The devarg
 * `igpu_alloc=default|wc` sets it at probe; a child device starts with its
 * parent's choice and has its own afterwards.
 *
 * @param dev_id
 *   A gpudev device of this driver.
 * @param how
 *   GPUDP_GPU_IGPU_ALLOC_DEFAULT or GPUDP_GPU_IGPU_ALLOC_WC.
 * @return
 *   0; -ENODEV (no such device, or another driver's); -EINVAL (@p how
 *   unknown); -ENOTSUP (a discrete GPU: its mem_alloc is cuMemAlloc, there
 *   is nothing to choose).
 */
int gpudp_gpu_igpu_alloc_set(int16_t dev_id, enum gpudp_gpu_igpu_alloc how);

/**
 * Whether rte_gpu_mem_cpu_map() can work in this process: it needs the
 * gpudp_pin module (/dev/gpudp_pin) and gpudp built with lib/pin. (Not on
 * an integrated GPU: there rte_gpu_mem_cpu_map() gives the buffer's host
 * pointer, with no module.)
 *
 * @param why
 *   If not NULL, receives the reason when it cannot (or "" when it can).
 * @param len
 *   Size of @p why.
 * @return
 *   0 when available; -ENOTSUP (not built in), -ENOENT (module not
 *   loaded) or another negative errno from opening the device.
 */
int gpudp_gpu_cpu_map_available(char *why, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* GPUDP_GPU_H */

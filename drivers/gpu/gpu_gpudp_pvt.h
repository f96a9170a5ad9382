/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Private state of gpudp's gpudev driver (drivers/gpu). Not installed, not
 * for applications: they use rte_gpudev.h and gpudp_gpu.h.
 *
 * Files: gpu_gpudp.c (buses, probe, remove, children, public functions),
 * gpu_gpudp_ops.c (the rte_gpu_ops), gpu_gpudp_cpumap.c (mem_cpu_map over
 * gpudp_pin, or an integrated GPU's host pointer), gpu_gpudp_igpu.c
 * (mem_alloc's backing on an integrated GPU: cuMemHostAlloc), gpu_gpudp_mtab.c
 * (allocation table).
 *
 * Locks: each device's mtab.lock (leaf, see gpu_gpudp_mtab.c). Device
 * creation and removal run on the EAL main thread or in
 * gpudp_gpu_probe_all(), never concurrently with each other (DPDK's rule
 * for probe and hotplug); the ops may run on any threads concurrently.
 */
#ifndef GPU_GPUDP_PVT_H
#define GPU_GPUDP_PVT_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_log.h>

#include "gpudp_log.h"
#include <gpudev_driver.h>

#include <gpudp_cuda.h>

#include "gpu_gpudp_mtab.h"

/* NV-P2P and gpudp_pin work on 64 KiB GPU pages (NVIDIA, "GPUDirect RDMA", "Pinning GPU
 * memory", "Basics of UVA CUDA Memory Management"): every buffer starts on
 * one and no two buffers share one. */
#define GPUDP_GPU_PAGE_SIZE (UINT64_C(1) << 16)

extern int gpudp_gpu_logtype;

#define GPU_LOG(level, ...) GPUDP_LOG_LINE(gpudp_gpu_logtype, "gpudp.gpu", level, __VA_ARGS__)

/* Per-process state of one gpudev device (rte_gpu.process_private). */
struct gpudp_gpu_priv {
	CUdevice cu_dev;
	CUcontext ctx;          /* primary context (parent) or the app's (child) */
	bool owns_primary;      /* retained ctx: release it at close */
	bool is_child;
	int cuda_ordinal;
	char pci_addr[24];      /* lower-case D:B:D.F (rte_pci_device_name needs 17) */
	char product[96];
	char bus[8];
	int cc_major, cc_minor;
	uint32_t sm_count;
	int gdr_supported;
	int gdr_ordering;       /* CU_GPU_DIRECT_RDMA_WRITES_ORDERING_* */
	int gdr_flush_options;  /* CU_FLUSH_GPU_DIRECT_RDMA_WRITES_OPTION_* */
	bool wmb_flush;         /* wmb calls cuFlushGPUDirectRDMAWrites */
	bool wmb_unsupported;   /* writes unordered and no flush: wmb fails */
	struct gpudp_cuda_mem_caps caps; /* integrated or discrete, host pointer use */
	bool igpu_wc;           /* integrated: mem_alloc write-combined */
	struct gpudp_gpu_mtab mtab;
};

/* The ops table every device of this driver gets (gpu_gpudp_ops.c). */
extern const struct rte_gpu_ops gpudp_gpu_ops;

/* dev_close (gpu_gpudp.c): children, contexts, then the table. */
int gpudp_gpu_dev_close(struct rte_gpu *dev);

/* Free everything left in a device's table (close), logging what the
 * application did not release. Runs in the device's context. */
void gpudp_gpu_mem_drain(struct rte_gpu *dev);

/* Push the device's context on this thread's stack / pop it.
 * @return 0 or -EIO (logged). */
int gpudp_gpu_ctx_push(const struct gpudp_gpu_priv *p);
void gpudp_gpu_ctx_pop(void);

/* CUresult -> negative errno, for the op's return. */
int gpudp_gpu_cu_errno(CUresult res);

/* Where mem_alloc's memory comes from: cuMemAlloc (gpu_gpudp_ops.c), or
 * cuMemHostAlloc on an integrated GPU (gpu_gpudp_igpu.c). */
struct gpudp_gpu_backing {
	const char *name;  /* the allocating call, for logs */
	/* Allocate len bytes, the device's context current: *base the pointer
	 * the GPU uses, *host the CPU's (NULL for GPU memory). */
	CUresult (*alloc)(struct rte_gpu *dev, size_t len, CUdeviceptr *base, void **host);
};

/* cuMemHostAlloc, used through the pointer the attributes allow
 * (NVIDIA's GPUDirect RDMA guide, section Porting to Tegra) */
extern const struct gpudp_gpu_backing gpudp_gpu_igpu_backing;

/* Free what a backing allocated: cuMemFreeHost(host), or cuMemFree(base)
 * when host is NULL; the device's context is current. */
CUresult gpudp_gpu_mem_release(uint64_t base, void *host);

/* gpu_gpudp_cpumap.c */
int gpudp_gpu_mem_cpu_map(struct rte_gpu *dev, size_t size, void *ptr_in,
			  void **ptr_out);
int gpudp_gpu_mem_cpu_unmap(struct rte_gpu *dev, void *ptr);
/* Undo the CPU mapping of an entry removed from the table (mem_free). */
void gpudp_gpu_cpumap_release(struct gpudp_gpu_mtab_ent *ent);
/* Count of entries with a live CPU mapping. */
size_t gpudp_gpu_cpumap_count(struct gpudp_gpu_priv *p);

#endif /* GPU_GPUDP_PVT_H */

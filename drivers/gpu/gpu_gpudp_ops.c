/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rte_gpu_ops of gpudp's gpudev driver. Each op pushes the device's
 * CUDA context, calls the driver API and pops it, so it works from any
 * thread; the allocation table makes free/unregister of an unknown or
 * already-released pointer an error, never a second cuMemFree.
 *
 * Errors: ops return a negative errno and log why (gpudp.gpu, ERR) with
 * the offending pointer and size. DPDK 22.11's library then reports EPERM
 * to the application for everything but ENOMEM/E2BIG from mem_alloc.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>

#include <rte_common.h>

#include "gpu_gpudp_pvt.h"

int
gpudp_gpu_cu_errno(CUresult res)
{
	switch (res) {
	case CUDA_SUCCESS:
		return 0;
	case CUDA_ERROR_OUT_OF_MEMORY:
		return -ENOMEM;
	case CUDA_ERROR_INVALID_VALUE:
		return -EINVAL;
	case CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED:
		return -EEXIST;
	case CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED:
		return -ENOENT;
	case CUDA_ERROR_NOT_SUPPORTED:
		return -ENOTSUP;
	default:
		return -EIO;
	}
}

int
gpudp_gpu_ctx_push(const struct gpudp_gpu_priv *p)
{
	CUresult res = gpudp_cu->cuCtxPushCurrent(p->ctx);

	if (res != CUDA_SUCCESS) {
		GPU_LOG(ERR, "%s: cannot make its CUDA context current: %s",
			p->pci_addr, gpudp_cuda_errstr(res));
		return -EIO;
	}
	return 0;
}

void
gpudp_gpu_ctx_pop(void)
{
	CUcontext c;
	CUresult res = gpudp_cu->cuCtxPopCurrent(&c);

	/* only fails when no context is current: a push/pop mismatch here */
	if (res != CUDA_SUCCESS)
		GPU_LOG(WARNING, "cuCtxPopCurrent: %s", gpudp_cuda_errstr(res));
}

static int
gpu_dev_info_get(struct rte_gpu *dev, struct rte_gpu_info *info)
{
	*info = dev->mpshared->info;
	return 0;
}

static CUresult
device_alloc(struct rte_gpu *dev, size_t len, CUdeviceptr *base, void **host)
{
	RTE_SET_USED(dev);
	*host = NULL;
	return gpudp_cu->cuMemAlloc(base, len);
}

/* a discrete GPU's memory */
static const struct gpudp_gpu_backing device_backing = {
	.name = "cuMemAlloc",
	.alloc = device_alloc,
};

CUresult
gpudp_gpu_mem_release(uint64_t base, void *host)
{
	return host != NULL ? gpudp_cu->cuMemFreeHost(host) : gpudp_cu->cuMemFree(base);
}

/*
 * cuMemAlloc (an integrated GPU: cuMemHostAlloc, gpu_gpudp_igpu.c) whole
 * 64 KiB pages, aligned to max(align, 64 KiB). The driver returns large
 * blocks 2 MiB aligned, so the first try usually fits; if not, allocate
 * align bytes more and round up, so that the pages a NIC or gpudp_pin maps
 * belong to this buffer only.
 */
static int
gpu_mem_alloc(struct rte_gpu *dev, size_t size, unsigned int align, void **ptr)
{
	struct gpudp_gpu_priv *p = dev->process_private;
	const struct gpudp_gpu_backing *b = p->caps.integrated ? &gpudp_gpu_igpu_backing :
		&device_backing;
	uint64_t a = RTE_MAX((uint64_t)align, GPUDP_GPU_PAGE_SIZE);
	void *host = NULL;
	struct gpudp_gpu_mtab_ent *ent;
	unsigned int one = 1;
	CUdeviceptr base = 0;
	size_t rounded, bsize;
	uintptr_t user;
	CUresult res;
	int rc;

	if (size > SIZE_MAX - 2 * a ||
	    size > dev->mpshared->info.total_memory) {
		GPU_LOG(ERR, "%s: mem_alloc of %zu bytes: more than the GPU's %" PRIu64 " bytes",
			dev->mpshared->name, size, dev->mpshared->info.total_memory);
		return -E2BIG;
	}
	rounded = RTE_ALIGN_CEIL(size, (size_t)GPUDP_GPU_PAGE_SIZE);
	ent = calloc(1, sizeof(*ent));
	if (ent == NULL)
		return -ENOMEM;
	rc = gpudp_gpu_ctx_push(p);
	if (rc != 0)
		goto fail_ent;
	bsize = rounded;
	res = b->alloc(dev, bsize, &base, &host);
	if (res == CUDA_SUCCESS && base % a != 0) {
		gpudp_gpu_mem_release(base, host);
		bsize = rounded + a;
		res = b->alloc(dev, bsize, &base, &host);
	}
	if (res != CUDA_SUCCESS) {
		GPU_LOG(ERR, "%s: %s(%zu) for mem_alloc(%zu, align %u): %s",
			dev->mpshared->name, b->name, bsize, size, align, gpudp_cuda_errstr(res));
		rc = gpudp_gpu_cu_errno(res);
		goto fail_pop;
	}
	/* NVIDIA's "GPUDirect RDMA" guide, "Pinning GPU memory" and
	 * "Synchronization and Memory Ordering": SYNC_MEMOPS on the whole allocation, so CUDA memory
	 * operations on it complete before the API call returns and a NIC
	 * writing through a BAR mapping sees a consistent buffer. */
	res = gpudp_cu->cuPointerSetAttribute(&one,
		CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, base);
	if (res != CUDA_SUCCESS) {
		GPU_LOG(ERR, "%s: cuPointerSetAttribute(SYNC_MEMOPS, 0x%" PRIx64 "): %s",
			dev->mpshared->name, (uint64_t)base, gpudp_cuda_errstr(res));
		rc = -EIO;
		goto fail_free;
	}
	user = (uintptr_t)RTE_ALIGN_CEIL((uint64_t)base, a);
	ent->key = user;
	ent->kind = GPUDP_GPU_MEM_DEVICE;
	ent->size = size;
	ent->base = base;
	ent->base_size = bsize;
	ent->host = host;
	rc = gpudp_gpu_mtab_insert(&p->mtab, ent);
	if (rc != 0) {
		/* -EEXIST would mean the driver handed out a live address
		 * twice: report it loudly rather than corrupt the table. */
		GPU_LOG(ERR, "%s: allocation table insert of 0x%" PRIxPTR ": %s",
			dev->mpshared->name, user, rc == -EEXIST ?
			"address already in the table (CUDA reused a live address?)" :
			"out of memory");
		goto fail_free;
	}
	gpudp_gpu_ctx_pop();
	*ptr = (void *)user;
	return 0;

fail_free:
	gpudp_gpu_mem_release(base, host);
fail_pop:
	gpudp_gpu_ctx_pop();
fail_ent:
	free(ent);
	return rc;
}

static int
gpu_mem_free(struct rte_gpu *dev, void *ptr)
{
	struct gpudp_gpu_priv *p = dev->process_private;
	struct gpudp_gpu_mtab_ent *ent;
	enum gpudp_gpu_mem_kind found;
	CUresult res;

	ent = gpudp_gpu_mtab_remove(&p->mtab, (uintptr_t)ptr,
				    GPUDP_GPU_MEM_DEVICE, &found);
	if (ent == NULL) {
		if (found == GPUDP_GPU_MEM_HOST)
			GPU_LOG(ERR, "%s: mem_free(%p): registered host memory, use rte_gpu_mem_unregister",
				dev->mpshared->name, ptr);
		else
			GPU_LOG(ERR, "%s: mem_free(%p): not a live rte_gpu_mem_alloc buffer of this device (already freed, another device's, or not its start)",
				dev->mpshared->name, ptr);
		return -EINVAL;
	}
	gpudp_gpu_cpumap_release(ent);
	if (gpudp_gpu_ctx_push(p) != 0) {
		free(ent);
		return -EIO;
	}
	res = gpudp_gpu_mem_release(ent->base, ent->host);
	gpudp_gpu_ctx_pop();
	if (res != CUDA_SUCCESS)
		GPU_LOG(ERR, "%s: %s(%p): %s", dev->mpshared->name,
			ent->host != NULL ? "cuMemFreeHost" : "cuMemFree", ptr,
			gpudp_cuda_errstr(res));
	free(ent);
	return res == CUDA_SUCCESS ? 0 : -EIO;
}

static int
gpu_mem_register(struct rte_gpu *dev, size_t size, void *ptr)
{
	struct gpudp_gpu_priv *p = dev->process_private;
	struct gpudp_gpu_mtab_ent *ent;
	unsigned int memtype = 0;
	CUresult res;
	int rc;

	ent = calloc(1, sizeof(*ent));
	if (ent == NULL)
		return -ENOMEM;
	ent->key = (uintptr_t)ptr;
	ent->kind = GPUDP_GPU_MEM_HOST;
	ent->size = size;
	rc = gpudp_gpu_ctx_push(p);
	if (rc != 0)
		goto fail_ent;
	/* Registration is for host memory (cuMemHostRegister); passing a GPU
	 * buffer is a known misuse (cuMemHostRegister fails on it with a
	 * code that does not say why): say so. */
	res = gpudp_cu->cuPointerGetAttribute(&memtype,
		CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)(uintptr_t)ptr);
	if (res == CUDA_SUCCESS && memtype == CU_MEMORYTYPE_DEVICE) {
		GPU_LOG(ERR, "%s: mem_register(%p, %zu): GPU memory; rte_gpu_mem_register takes host memory",
			dev->mpshared->name, ptr, size);
		rc = -EINVAL;
		goto fail_pop;
	}
	res = gpudp_cu->cuMemHostRegister(ptr, size,
		CU_MEMHOSTREGISTER_PORTABLE | CU_MEMHOSTREGISTER_DEVICEMAP);
	if (res != CUDA_SUCCESS) {
		GPU_LOG(ERR, "%s: cuMemHostRegister(%p, %zu): %s",
			dev->mpshared->name, ptr, size, gpudp_cuda_errstr(res));
		rc = gpudp_gpu_cu_errno(res);
		goto fail_pop;
	}
	rc = gpudp_gpu_mtab_insert(&p->mtab, ent);
	if (rc != 0) {
		GPU_LOG(ERR, "%s: mem_register(%p): %s", dev->mpshared->name, ptr,
			rc == -EEXIST ? "already in the table" : "out of memory");
		gpudp_cu->cuMemHostUnregister(ptr);
		goto fail_pop;
	}
	gpudp_gpu_ctx_pop();
	return 0;

fail_pop:
	gpudp_gpu_ctx_pop();
fail_ent:
	free(ent);
	return rc;
}

static int
gpu_mem_unregister(struct rte_gpu *dev, void *ptr)
{
	struct gpudp_gpu_priv *p = dev->process_private;
	struct gpudp_gpu_mtab_ent *ent;
	enum gpudp_gpu_mem_kind found;
	CUresult res;

	ent = gpudp_gpu_mtab_remove(&p->mtab, (uintptr_t)ptr,
				    GPUDP_GPU_MEM_HOST, &found);
	if (ent == NULL) {
		GPU_LOG(ERR, "%s: mem_unregister(%p): %s", dev->mpshared->name, ptr,
			found == GPUDP_GPU_MEM_DEVICE ?
			"GPU memory from rte_gpu_mem_alloc, use rte_gpu_mem_free" :
			"not a range registered on this device (or not its start)");
		return -EINVAL;
	}
	if (gpudp_gpu_ctx_push(p) != 0) {
		free(ent);
		return -EIO;
	}
	res = gpudp_cu->cuMemHostUnregister(ptr);
	gpudp_gpu_ctx_pop();
	if (res != CUDA_SUCCESS)
		GPU_LOG(ERR, "%s: cuMemHostUnregister(%p): %s",
			dev->mpshared->name, ptr, gpudp_cuda_errstr(res));
	free(ent);
	return res == CUDA_SUCCESS ? 0 : -EIO;
}

/*
 * NVIDIA's "GPUDirect RDMA" guide, "Synchronization and Memory Ordering":
 * writes a third-party device made are consistent for CUDA work only once
 * flushed, unless the device orders them natively
 * (GPU_DIRECT_RDMA_WRITES_ORDERING >= OWNER, e.g. Hopper), in which case wmb
 * is a no-op. The decision is made at probe.
 */
static int
gpu_wmb(struct rte_gpu *dev)
{
	struct gpudp_gpu_priv *p = dev->process_private;
	CUresult res;

	if (!p->wmb_flush) {
		if (unlikely(p->wmb_unsupported)) {
			GPU_LOG(ERR, "%s: wmb: GPUDirect RDMA writes are not ordered on this device and cuFlushGPUDirectRDMAWrites is not supported",
				dev->mpshared->name);
			return -ENOTSUP;
		}
		return 0;
	}
	if (unlikely(gpudp_gpu_ctx_push(p) != 0))
		return -EIO;
	res = gpudp_cu->cuFlushGPUDirectRDMAWrites(
		CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TARGET_CURRENT_CTX,
		CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TO_OWNER);
	gpudp_gpu_ctx_pop();
	if (unlikely(res != CUDA_SUCCESS)) {
		GPU_LOG(ERR, "%s: cuFlushGPUDirectRDMAWrites: %s",
			dev->mpshared->name, gpudp_cuda_errstr(res));
		return -EIO;
	}
	return 0;
}

void
gpudp_gpu_mem_drain(struct rte_gpu *dev)
{
	struct gpudp_gpu_priv *p = dev->process_private;
	struct gpudp_gpu_mtab_ent *ent;
	size_t n_dev = 0, n_host = 0;
	uint64_t b_dev = 0, b_host = 0;
	int pushed = gpudp_gpu_ctx_push(p) == 0;

	while ((ent = gpudp_gpu_mtab_pop(&p->mtab)) != NULL) {
		if (ent->kind == GPUDP_GPU_MEM_DEVICE) {
			gpudp_gpu_cpumap_release(ent);
			if (pushed)
				gpudp_gpu_mem_release(ent->base, ent->host);
			n_dev++;
			b_dev += ent->size;
		} else {
			if (pushed)
				gpudp_cu->cuMemHostUnregister((void *)ent->key);
			n_host++;
			b_host += ent->size;
		}
		free(ent);
	}
	if (pushed)
		gpudp_gpu_ctx_pop();
	if (n_dev + n_host > 0)
		GPU_LOG(NOTICE, "%s: closing with %zu GPU buffers (%" PRIu64 " bytes) and %zu host registrations (%" PRIu64 " bytes) still live: released them",
			dev->mpshared->name, n_dev, b_dev, n_host, b_host);
}

const struct rte_gpu_ops gpudp_gpu_ops = {
	.dev_info_get = gpu_dev_info_get,
	.dev_close = gpudp_gpu_dev_close,
	.mem_alloc = gpu_mem_alloc,
	.mem_free = gpu_mem_free,
	.mem_register = gpu_mem_register,
	.mem_unregister = gpu_mem_unregister,
	.mem_cpu_map = gpudp_gpu_mem_cpu_map,
	.mem_cpu_unmap = gpudp_gpu_mem_cpu_unmap,
	.wmb = gpu_wmb,
};

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mem_cpu_map / mem_cpu_unmap: CPU access to GPU buffers through the
 * gpudp_pin kernel module (kmod/, client library lib/pin), which pins the
 * buffer's 64 KiB GPU pages with nvidia_p2p_get_pages and mmap()s them
 * write-combined, as GDRCopy does, without GDRCopy.
 *
 * Without /dev/gpudp_pin (the module not loaded), cpu_map fails with
 * -ENOTSUP and one clear log line, and gpudp_gpu_cpu_map_available() says
 * why.
 *
 * On an integrated GPU a buffer is host memory from cuMemHostAlloc
 * (gpu_gpudp_igpu.c): its CPU mapping is its host pointer, with the
 * caching it was allocated with (write-combined or not, as NVIDIA's
 * GPUDirect RDMA guide, section Porting to Tegra, requires of a user
 * mapping), and needs no gpudp_pin.
 *
 * Rules: the pointer must be one rte_gpu_mem_alloc returned on this device
 * and size at most what was allocated; one CPU mapping per buffer; the
 * mapping covers whole 64 KiB pages, the buffer's own only (mem_alloc
 * aligns and rounds to 64 KiB). mem_free and close undo a mapping left
 * behind.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "gpu_gpudp_pvt.h"
#include "gpudp_gpu.h"

#include <gpudp_pin_client.h>

/* lib/pin's process-wide descriptor (pins belong to it), once pin_ready() said it opened */
static inline int
pin_dev(void)
{
	return gpudp_pin_shared_fd(NULL);
}

static int
pin_ready(char *why, size_t len)
{
	int fd = gpudp_pin_shared_fd(NULL);

	if (fd >= 0) {
		if (why != NULL && len > 0)
			why[0] = '\0';
		return 0;
	}
	if (why != NULL)
		snprintf(why, len, "%s: %s", GPUDP_PIN_DEVICE_PATH, gpudp_pin_strerror(fd));
	return fd;
}

int
gpudp_gpu_cpu_map_available(char *why, size_t len)
{
	return pin_ready(why, len);
}

int
gpudp_gpu_mem_cpu_map(struct rte_gpu *dev, size_t size, void *ptr_in,
		      void **ptr_out)
{
	struct gpudp_gpu_priv *p = dev->process_private;
	struct gpudp_gpu_mtab_ent *ent;
	struct gpudp_pin_pin pin;
	void *addr = NULL;
	char why[160];
	int rc = p->caps.integrated ? 0 : pin_ready(why, sizeof(why));

	if (rc != 0) {
		GPU_LOG(ERR, "%s: mem_cpu_map(%p, %zu): CPU mapping of GPU memory unavailable: %s",
			dev->mpshared->name, ptr_in, size, why);
		return -ENOTSUP;
	}

	pthread_mutex_lock(&p->mtab.lock);
	ent = gpudp_gpu_mtab_find_locked(&p->mtab, (uintptr_t)ptr_in);
	if (ent == NULL || ent->kind != GPUDP_GPU_MEM_DEVICE) {
		GPU_LOG(ERR, "%s: mem_cpu_map(%p): not a live rte_gpu_mem_alloc buffer of this device",
			dev->mpshared->name, ptr_in);
		rc = -EINVAL;
	} else if (size > ent->size) {
		GPU_LOG(ERR, "%s: mem_cpu_map(%p, %zu): buffer has only %zu bytes",
			dev->mpshared->name, ptr_in, size, ent->size);
		rc = -EINVAL;
	} else if (ent->map_addr != NULL) {
		GPU_LOG(ERR, "%s: mem_cpu_map(%p): already mapped at %p",
			dev->mpshared->name, ptr_in, ent->map_addr);
		rc = -EEXIST;
	} else if (ent->host != NULL) {
		/* integrated GPU: the host address of ptr_in */
		ent->map_addr = (char *)ent->host + (ent->key - ent->base);
		ent->map_len = size;
		*ptr_out = ent->map_addr;
	} else {
		rc = gpudp_pin_pin(pin_dev(), ent->key, size, 0, &pin);
		if (rc == 0) {
			rc = gpudp_pin_mmap(pin_dev(), &pin, 0, pin.aligned_len, &addr);
			if (rc != 0)
				gpudp_pin_unpin(pin_dev(), pin.handle);
		}
		if (rc != 0) {
			GPU_LOG(ERR, "%s: mem_cpu_map(%p, %zu): gpudp_pin: %s",
				dev->mpshared->name, ptr_in, size, strerror(-rc));
		} else {
			ent->pin_handle = pin.handle;
			ent->map_addr = addr;
			ent->map_len = pin.aligned_len;
			*ptr_out = (char *)addr + pin.offset;
		}
	}
	pthread_mutex_unlock(&p->mtab.lock);
	return rc;
}

int
gpudp_gpu_mem_cpu_unmap(struct rte_gpu *dev, void *ptr)
{
	struct gpudp_gpu_priv *p = dev->process_private;
	struct gpudp_gpu_mtab_ent *ent;
	int rc = 0;

	pthread_mutex_lock(&p->mtab.lock);
	ent = gpudp_gpu_mtab_find_locked(&p->mtab, (uintptr_t)ptr);
	if (ent == NULL || ent->kind != GPUDP_GPU_MEM_DEVICE || ent->map_addr == NULL)
		rc = -EINVAL;
	else
		gpudp_gpu_cpumap_release(ent);
	pthread_mutex_unlock(&p->mtab.lock);
	if (rc != 0)
		GPU_LOG(ERR, "%s: mem_cpu_unmap(%p): not a CPU-mapped rte_gpu_mem_alloc buffer of this device",
			dev->mpshared->name, ptr);
	return rc;
}

void
gpudp_gpu_cpumap_release(struct gpudp_gpu_mtab_ent *ent)
{
	if (ent->pin_handle != 0) {
		gpudp_pin_munmap(ent->map_addr, ent->map_len);
		gpudp_pin_unpin(pin_dev(), ent->pin_handle);
	}
	ent->pin_handle = 0;
	ent->map_addr = NULL;
	ent->map_len = 0;
}

size_t
gpudp_gpu_cpumap_count(struct gpudp_gpu_priv *p)
{
	size_t i, n = 0;

	pthread_mutex_lock(&p->mtab.lock);
	for (i = 0; i < p->mtab.cap; i++)
		if (p->mtab.slot[i] != NULL && p->mtab.slot[i]->map_addr != NULL)
			n++;
	pthread_mutex_unlock(&p->mtab.lock);
	return n;
}

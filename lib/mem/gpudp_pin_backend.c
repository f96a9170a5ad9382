/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Pin backends of GPU pools.
 *
 * kmod: the gpudp_pin module pins GPU memory through nvidia_p2p_get_pages
 *   and returns its page table; the addresses become the extmem IOVA table,
 *   so any PMD in IOVA-as-PA mode can DMA into GPU memory. Pins go through
 *   a registration cache (lib/regcache): a pool re-created over the same
 *   memory costs no pin ("Lazy Unpinning Optimization" in NVIDIA's
 *   GPUDirect RDMA guide), and a revoked pin (the module's free callback
 *   ran, "Unpinning GPU memory") is dropped from the cache.
 * peermem: no pin here; the PMD registers the VA itself (mlx5 with
 *   ibv_reg_mr, and nvidia-peermem pins).
 * dmabuf: not implemented yet.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include <gpudp_pin_client.h>
#include <gpudp_regcache.h>
#ifdef GPUDP_HAS_CUDA
#include <gpudp_cuda.h>
#endif

#include "gpudp_mem_pvt.h"

static pthread_mutex_t kmod_lock = PTHREAD_MUTEX_INITIALIZER;
static int kmod_fd = -1;
static struct gpudp_regcache *kmod_cache;

static int
kmod_cache_pin(void *ctx, uint64_t va, uint64_t len, uint64_t *handle, uint64_t *tag)
{
	struct gpudp_pin_pin out;
	int rc;

	(void)ctx;
	rc = gpudp_pin_pin(kmod_fd, va, len, 0, &out);
	if (rc != 0)
		return rc;
	*handle = out.handle;
	*tag = 0;
#ifdef GPUDP_HAS_CUDA
	if (gpudp_cu != NULL) {
		unsigned long long id = 0;

		if (gpudp_cu->cuPointerGetAttribute(&id, CU_POINTER_ATTRIBUTE_BUFFER_ID,
						    (CUdeviceptr)va) == CUDA_SUCCESS)
			*tag = id;
	}
#endif
	return 0;
}

static void
kmod_cache_unpin(void *ctx, uint64_t handle)
{
	(void)ctx;
	gpudp_pin_unpin(kmod_fd, handle);
}

static int
kmod_cache_tag(void *ctx, uint64_t va, uint64_t *tag)
{
	(void)ctx;
	*tag = 0;
#ifdef GPUDP_HAS_CUDA
	if (gpudp_cu != NULL) {
		unsigned long long id = 0;

		if (gpudp_cu->cuPointerGetAttribute(&id, CU_POINTER_ATTRIBUTE_BUFFER_ID,
						    (CUdeviceptr)va) != CUDA_SUCCESS)
			return -ENOENT;
		*tag = id;
	}
#else
	(void)va;
#endif
	return 0;
}

static const struct gpudp_regcache_ops kmod_cache_ops = {
	.pin = kmod_cache_pin,
	.unpin = kmod_cache_unpin,
	.tag = kmod_cache_tag,
};

/* Open the module and create the cache once. */
static int
kmod_open(void)
{
	struct gpudp_regcache_conf conf = { .ops = &kmod_cache_ops };
	int rc = 0;

	pthread_mutex_lock(&kmod_lock);
	if (kmod_fd < 0) {
		rc = gpudp_pin_open(NULL);
		if (rc >= 0) {
			kmod_fd = rc;
			rc = 0;
			kmod_cache = gpudp_regcache_create(&conf);
			if (kmod_cache == NULL) {
				rc = -errno;
				gpudp_pin_close(kmod_fd);
				kmod_fd = -1;
			}
		}
	}
	pthread_mutex_unlock(&kmod_lock);
	return rc;
}

static int
kmod_pin(void *va, size_t len, struct gpudp_pin_region *r, rte_iova_t **iova,
	 size_t *n, size_t *pgsz)
{
	const struct gpudp_reg *reg;
	uint32_t entries = 0, page = 0;
	uint64_t *all;
	size_t first, i;
	int rc;

	rc = gpudp_regcache_acquire(kmod_cache, (uintptr_t)va, len, &reg);
	if (rc != 0)
		return rc;
	rc = gpudp_pin_get_table(kmod_fd, reg->handle, NULL, 0, &entries, &page);
	if (rc != 0 && rc != -ERANGE)
		goto fail;
	if (page == 0 || entries == 0 || (uint64_t)entries * page != reg->len ||
	    len % page != 0) {
		GPUDP_MEM_LOG(ERR, "kmod: unusable page table: %u entries of %u bytes for %"
			      PRIu64 " bytes", entries, page, reg->len);
		rc = -EPROTO;
		goto fail;
	}
	all = calloc(entries, sizeof(*all));
	if (all == NULL) {
		rc = -ENOMEM;
		goto fail;
	}
	rc = gpudp_pin_get_table(kmod_fd, reg->handle, all, entries, &entries, &page);
	if (rc != 0) {
		if (rc == -EPERM)
			GPUDP_MEM_LOG(ERR, "kmod: reading bus addresses needs CAP_SYS_ADMIN or CAP_SYS_RAWIO");
		free(all);
		goto fail;
	}
	/* the region may be larger than this chunk: take our pages */
	first = ((uintptr_t)va - reg->va) / page;
	*n = len / page;
	*iova = calloc(*n, sizeof(**iova));
	if (*iova == NULL) {
		free(all);
		rc = -ENOMEM;
		goto fail;
	}
	for (i = 0; i < *n; i++)
		(*iova)[i] = all[first + i];
	free(all);
	*pgsz = page;
	r->reg = reg;
	return 0;
fail:
	gpudp_regcache_release(kmod_cache, reg);
	return rc;
}

static void
kmod_unpin(struct gpudp_pin_region *r)
{
	gpudp_regcache_release(kmod_cache, r->reg);
	r->reg = NULL;
}

static int
kmod_check(struct gpudp_pin_region *r)
{
	const struct gpudp_reg *reg = r->reg;
	struct gpudp_pin_query q;

	if (gpudp_pin_query(kmod_fd, reg->handle, &q) != 0 ||
	    q.state != GPUDP_PIN_STATE_VALID) {
		/* the free callback ran: never hand this region out again */
		gpudp_regcache_invalidate(kmod_cache, reg->va, reg->len);
		return -EIDRM;
	}
	return 0;
}

static int
peermem_check(struct gpudp_pin_region *r)
{
	(void)r;
	return 0;
}

static const struct gpudp_pin_ops kmod_ops = {
	.backend = GPUDP_PIN_KMOD, .name = "kmod",
	.pin = kmod_pin, .unpin = kmod_unpin, .check = kmod_check,
};

static const struct gpudp_pin_ops peermem_ops = {
	.backend = GPUDP_PIN_PEERMEM, .name = "peermem",
	.check = peermem_check,
};

int
gpudp_pin_backend_select(enum gpudp_pin_backend want, const struct gpudp_pin_ops **ops)
{
	int rc;

	switch (want) {
	case GPUDP_PIN_AUTO:
		if (kmod_open() == 0) {
			*ops = &kmod_ops;
			GPUDP_MEM_LOG(INFO, "pin backend: kmod (auto: %s opened)",
				      GPUDP_PIN_DEVICE_PATH);
		} else {
			*ops = &peermem_ops;
			GPUDP_MEM_LOG(INFO, "pin backend: peermem (auto: %s not available)",
				      GPUDP_PIN_DEVICE_PATH);
		}
		return 0;
	case GPUDP_PIN_KMOD:
		rc = kmod_open();
		if (rc != 0) {
			GPUDP_MEM_LOG(ERR, "pin backend kmod: cannot open %s: %s%s",
				      GPUDP_PIN_DEVICE_PATH, strerror(-rc),
				      rc == -ENOENT ? " (is the gpudp_pin module loaded?)" : "");
			return -ENOTSUP;
		}
		*ops = &kmod_ops;
		return 0;
	case GPUDP_PIN_PEERMEM:
		*ops = &peermem_ops;
		return 0;
	case GPUDP_PIN_DMABUF:
	default:
		GPUDP_MEM_LOG(ERR, "pin backend %s is not implemented yet; use kmod or peermem",
			      gpudp_pin_backend_name(want));
		return -ENOTSUP;
	}
}

void
gpudp_mem_pin_stats(struct gpudp_regcache_stats *st)
{
	memset(st, 0, sizeof(*st));
	pthread_mutex_lock(&kmod_lock);
	if (kmod_cache != NULL)
		gpudp_regcache_stats(kmod_cache, st);
	pthread_mutex_unlock(&kmod_lock);
}

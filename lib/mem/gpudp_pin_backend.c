/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Pin backends of GPU pools.
 *
 * kmod: the gpudp_pin module pins GPU memory through nvidia_p2p_get_pages
 *   and returns its page table; the addresses become the extmem IOVA table,
 *   so any PMD in IOVA-as-PA mode can DMA into GPU memory.
 * dmabuf: the allocator exports each chunk as a dma-buf (gpudev:
 *   cuMemGetHandleForAddressRange(CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD)) and
 *   the module attaches it for the ports' PCI device as a dynamic importer;
 *   the DMA addresses of that mapping become the IOVA table (right under an
 *   IOMMU too). The exporter revoking the buffer (move_notify: the memory
 *   was freed) shows up exactly as a kmod free callback does.
 * peermem: no pin here; the PMD registers the VA itself (mlx5 with
 *   ibv_reg_mr, and nvidia-peermem pins).
 *
 * kmod and dmabuf pins go through registration caches (lib/regcache): a
 * pool re-created over the same memory costs no pin ("Lazy Unpinning
 * Optimization" in NVIDIA's GPUDirect RDMA guide), and a revoked pin
 * ("Unpinning GPU memory") is dropped from the cache.
 *
 * The caches are per GPU (the pool's gpudev device; a child's parent), so a
 * lookup for one GPU's pool never returns another GPU's region, even where
 * one GPU's freed memory lingers in a cache (lazy unpin) at an address
 * another GPU's allocation now has, and gpudp_mem_pin_gpu_release() drops
 * one GPU's regions only: kmod keeps one cache per GPU, dmabuf one per
 * (GPU, exporter, PCI device).
 *
 * Every cache hit (pool creation only, never the data path) is checked
 * with the buffer ID tag (CU_POINTER_ATTRIBUTE_BUFFER_ID, "Buffer ID Tag
 * Check"): a range freed and allocated again at the same address gets a new
 * tag, and its stale region is evicted and pinned afresh. This is what
 * catches reuse under NVIDIA's dma-buf exporter, which is not dynamic and
 * never revokes (no move_notify), and under an NV-P2P free callback that
 * was missed. Memory without a tag (no CUDA, or not CUDA memory: the e2e
 * simulator's allocator) is pinned with tag 0 and not checked, so there a
 * hit relies on the revocation check alone (cache_pin_table(),
 * gpudp_pool_check()), as before.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_bus.h>
#include <rte_common.h>
#include <rte_dev.h>
#include <rte_ethdev.h>
#include <rte_gpudev.h>

#include <gpudp_pin_client.h>
#include <gpudp_regcache.h>
#ifdef GPUDP_HAS_CUDA
#include <gpudp_cuda.h>
#endif

#include "gpudp_mem_pvt.h"

/* Most (GPU, exporter, device) triples the dmabuf backend serves at once. */
#define DMABUF_DOMAINS 32
/* Most GPUs the kmod backend serves at once. */
#define KMOD_GPUS 32

/* One GPU's registration cache of kmod pins. */
struct kmod_gpu {
	int16_t gpu;               /* pin_gpu_key() */
	struct gpudp_regcache *cache;
};

/* One registration cache of dma-buf attachments. */
struct dmabuf_domain {
	int16_t gpu;               /* pin_gpu_key() */
	gpudp_dmabuf_export_t *export_dmabuf;
	void *ctx;                 /* the allocator's */
	int32_t pci_domain;        /* -1: no device (physical addresses) */
	uint8_t bus, devfn;
	char alloc_name[32];
	struct gpudp_regcache *cache;
};

/* pin_lock protects everything below; the caches have their own locks. */
static pthread_mutex_t pin_lock = PTHREAD_MUTEX_INITIALIZER;
static int pin_fd = -1;
static struct gpudp_pin_version pin_version;
static struct kmod_gpu kmod_gpus[KMOD_GPUS];
static unsigned int nb_kmod_gpus;
static struct dmabuf_domain dmabuf_domains[DMABUF_DOMAINS];
static unsigned int nb_dmabuf_domains;

/* ---- both: the GPU of a pool, buffer ID tags, the module ---- */

/* The key of the caches for gpudev device @p gpu_id: the device, or its
 * parent for a child (one GPU); RTE_GPU_ID_NONE for none (an allocator on
 * no gpudev device). */
static int16_t
pin_gpu_key(int16_t gpu_id)
{
	struct rte_gpu_info info;

	if (!rte_gpu_is_valid(gpu_id) || rte_gpu_info_get(gpu_id, &info) != 0)
		return RTE_GPU_ID_NONE;
	return info.parent != RTE_GPU_ID_NONE ? info.parent : gpu_id;
}

/* CU_POINTER_ATTRIBUTE_BUFFER_ID of va (0 without CUDA). */
static int
buffer_id_tag(uint64_t va, uint64_t *tag)
{
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

static int
cache_tag(void *ctx, uint64_t va, uint64_t *tag)
{
	(void)ctx;
	return buffer_id_tag(va, tag);
}

static void
cache_unpin(void *ctx, uint64_t handle)
{
	(void)ctx;
	gpudp_pin_unpin(pin_fd, handle);
}

/* A cache hit failed the buffer ID tag check: the cache re-pins it. */
static void
cache_stale(void *ctx, uint64_t va, uint64_t len)
{
	(void)ctx;
	GPUDP_MEM_LOG(NOTICE, "registration cache: [0x%" PRIx64 ", +%" PRIu64 ") was freed "
		      "(and maybe reallocated) since it was pinned (buffer ID tag changed): "
		      "dropped", va, len);
}

/* The process's /dev/gpudp_pin descriptor (lib/pin's). Caller holds pin_lock. */
static int
module_open_locked(void)
{
	int rc;

	if (pin_fd >= 0)
		return 0;
	rc = gpudp_pin_shared_fd(&pin_version);
	if (rc < 0)
		return rc;
	pin_fd = rc;
	return 0;
}

/* ---- kmod ---- */

static int
kmod_cache_pin(void *ctx, uint64_t va, uint64_t len, uint64_t *handle, uint64_t *tag)
{
	struct gpudp_pin_pin out;
	int rc;

	(void)ctx;
	rc = gpudp_pin_pin(pin_fd, va, len, 0, &out);
	if (rc != 0)
		return rc;
	*handle = out.handle;
	if (buffer_id_tag(va, tag) != 0)
		*tag = 0;
	return 0;
}

static const struct gpudp_regcache_ops kmod_cache_ops = {
	.pin = kmod_cache_pin,
	.unpin = cache_unpin,
	.tag = cache_tag,
	.stale = cache_stale,
};

/* Open the module once. */
static int
kmod_open(void)
{
	int rc;

	pthread_mutex_lock(&pin_lock);
	rc = module_open_locked();
	pthread_mutex_unlock(&pin_lock);
	return rc;
}

/*
 * The kmod cache of the pool's GPU, created on first use.
 * @return 0 with *out set; -ENOSPC when KMOD_GPUS GPUs have one already
 * (logged); -ENOMEM.
 */
static int
kmod_cache_get(const struct gpudp_pin_target *t, struct gpudp_regcache **out)
{
	struct gpudp_regcache_conf conf = { .ops = &kmod_cache_ops, .validate_hits = 1 };
	int16_t gpu = pin_gpu_key(t->gpu_id);
	unsigned int i;
	int rc = 0;

	*out = NULL;
	pthread_mutex_lock(&pin_lock);
	for (i = 0; i < nb_kmod_gpus && kmod_gpus[i].gpu != gpu; i++)
		;
	if (i < nb_kmod_gpus) {
		*out = kmod_gpus[i].cache;
	} else if (nb_kmod_gpus == KMOD_GPUS) {
		GPUDP_MEM_LOG(ERR, "pool %s: kmod: pins of more than %d GPUs", t->pool, KMOD_GPUS);
		rc = -ENOSPC;
	} else {
		*out = gpudp_regcache_create(&conf);
		if (*out == NULL) {
			rc = -ENOMEM;
		} else {
			kmod_gpus[nb_kmod_gpus].gpu = gpu;
			kmod_gpus[nb_kmod_gpus++].cache = *out;
		}
	}
	pthread_mutex_unlock(&pin_lock);
	return rc;
}

/*
 * Get a region covering [va, va + len) from @cache and read this chunk's
 * part of its table. A cached region whose pin was revoked since (its
 * memory freed, then allocated again at the same address) is dropped and
 * pinned afresh, once.
 */
static int
cache_pin_table(struct gpudp_regcache *cache, const char *what, void *va, size_t len,
		struct gpudp_pin_region *r, rte_iova_t **iova, size_t *n, size_t *pgsz)
{
	const struct gpudp_reg *reg;
	uint32_t entries = 0, page = 0;
	uint64_t *all;
	size_t first, i;
	int rc, tries = 0;

again:
	rc = gpudp_regcache_acquire(cache, (uintptr_t)va, len, &reg);
	if (rc != 0)
		return rc;
	rc = gpudp_pin_get_table(pin_fd, reg->handle, NULL, 0, &entries, &page);
	if (rc == -EIDRM && tries++ == 0) {
		gpudp_regcache_invalidate(cache, reg->va, reg->len);
		gpudp_regcache_release(cache, reg);
		goto again;
	}
	if (rc != 0 && rc != -ERANGE)
		goto fail;
	if (page == 0 || entries == 0 || (uint64_t)entries * page != reg->len ||
	    len % page != 0) {
		GPUDP_MEM_LOG(ERR, "%s: unusable page table: %u entries of %u bytes for %"
			      PRIu64 " bytes", what, entries, page, reg->len);
		rc = -EPROTO;
		goto fail;
	}
	all = calloc(entries, sizeof(*all));
	if (all == NULL) {
		rc = -ENOMEM;
		goto fail;
	}
	rc = gpudp_pin_get_table(pin_fd, reg->handle, all, entries, &entries, &page);
	if (rc != 0) {
		if (rc == -EPERM)
			GPUDP_MEM_LOG(ERR, "%s: reading bus addresses needs CAP_SYS_ADMIN or CAP_SYS_RAWIO",
				      what);
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
	r->cache = cache;
	return 0;
fail:
	gpudp_regcache_release(cache, reg);
	return rc;
}

static int
kmod_pin(const struct gpudp_pin_target *t, void *va, size_t len, struct gpudp_pin_region *r,
	 rte_iova_t **iova, size_t *n, size_t *pgsz)
{
	struct gpudp_regcache *cache;
	int rc = kmod_cache_get(t, &cache);

	if (rc != 0)
		return rc;
	return cache_pin_table(cache, "kmod", va, len, r, iova, n, pgsz);
}

static void
cache_region_unpin(struct gpudp_pin_region *r)
{
	gpudp_regcache_release(r->cache, r->reg);
	r->reg = NULL;
}

/* kmod and dmabuf: the module says whether the pin was revoked. */
static int
cache_region_check(struct gpudp_pin_region *r)
{
	const struct gpudp_reg *reg = r->reg;
	struct gpudp_pin_query q;

	if (gpudp_pin_query(pin_fd, reg->handle, &q) != 0 ||
	    q.state != GPUDP_PIN_STATE_VALID) {
		/* revoked: never hand this region out again */
		gpudp_regcache_invalidate(r->cache, reg->va, reg->len);
		return -EIDRM;
	}
	return 0;
}

/* ---- dmabuf ---- */

static int
dmabuf_cache_pin(void *ctx, uint64_t va, uint64_t len, uint64_t *handle, uint64_t *tag)
{
	struct dmabuf_domain *d = ctx;
	struct gpudp_pin_dmabuf out;
	int dfd, rc;

	dfd = d->export_dmabuf(d->ctx, (void *)(uintptr_t)va, len);
	if (dfd < 0) {
		GPUDP_MEM_LOG(ERR, "dmabuf: %s could not export %" PRIu64 " bytes at 0x%" PRIx64
			      " as a dma-buf: %s", d->alloc_name, len, va, strerror(-dfd));
		return dfd;
	}
	rc = gpudp_pin_attach_dmabuf(pin_fd, dfd, 0, len, d->pci_domain, d->bus, d->devfn,
				     &out);
	close(dfd);	/* the module holds its own reference */
	if (rc != 0) {
		GPUDP_MEM_LOG(ERR, "dmabuf: gpudp_pin could not attach the dma-buf of %" PRIu64
			      " bytes at 0x%" PRIx64 ": %s", len, va, strerror(-rc));
		return rc;
	}
	*handle = out.handle;
	if (buffer_id_tag(va, tag) != 0)
		*tag = 0;
	return 0;
}

static const struct gpudp_regcache_ops dmabuf_cache_ops = {
	.pin = dmabuf_cache_pin,
	.unpin = cache_unpin,
	.tag = cache_tag,
	.stale = cache_stale,
};

/*
 * The PCI device the ports DMA from: the first port on the PCI bus. Ports
 * on other PCI devices get the same addresses, which are only right for
 * them without an IOMMU (logged). No PCI port: *domain = -1.
 */
static void
dmabuf_device(const struct gpudp_pin_target *t, int32_t *domain, uint8_t *bus,
	      uint8_t *devfn)
{
	unsigned int d, b, s, f;
	uint16_t i;
	bool found = false;

	*domain = -1;
	*bus = 0;
	*devfn = 0;
	for (i = 0; i < t->nb_ports; i++) {
		struct rte_eth_dev_info di;
		const struct rte_bus *rb;

		if (rte_eth_dev_info_get(t->ports[i], &di) != 0 || di.device == NULL)
			continue;
		rb = rte_dev_bus(di.device);
		if (rb == NULL || strcmp(rte_bus_name(rb), "pci") != 0 ||
		    sscanf(rte_dev_name(di.device), "%x:%x:%x.%x", &d, &b, &s, &f) != 4)
			continue;
		if (!found) {
			*domain = (int32_t)d;
			*bus = (uint8_t)b;
			*devfn = (uint8_t)((s << 3) | f);
			found = true;
		} else if ((int32_t)d != *domain || b != *bus || ((s << 3) | f) != *devfn) {
			GPUDP_MEM_LOG(NOTICE, "pool %s: dmabuf: port %u (%s) is another PCI device "
				      "than the first; it gets the first one's DMA addresses, "
				      "right only without an IOMMU", t->pool, t->ports[i],
				      rte_dev_name(di.device));
		}
	}
}

/*
 * The cache for this GPU, exporter and device, created on first use.
 * @return 0 with *out set, -ENOSPC when DMABUF_DOMAINS pairs exist already
 * (logged), -ENOMEM when the cache cannot be created.
 */
static int
dmabuf_domain_get(const struct gpudp_pin_target *t, struct dmabuf_domain **out)
{
	struct gpudp_regcache_conf conf = { .ops = &dmabuf_cache_ops, .validate_hits = 1 };
	struct dmabuf_domain *d = NULL;
	int16_t gpu = pin_gpu_key(t->gpu_id);
	int32_t dom;
	uint8_t bus, devfn;
	unsigned int i;
	int rc = 0;

	dmabuf_device(t, &dom, &bus, &devfn);
	pthread_mutex_lock(&pin_lock);
	for (i = 0; i < nb_dmabuf_domains; i++) {
		d = &dmabuf_domains[i];
		if (d->gpu == gpu && d->export_dmabuf == t->alloc->export_dmabuf &&
		    d->ctx == t->alloc->ctx && d->pci_domain == dom && d->bus == bus &&
		    d->devfn == devfn)
			goto out;
	}
	d = NULL;
	if (nb_dmabuf_domains == DMABUF_DOMAINS) {
		GPUDP_MEM_LOG(ERR, "pool %s: dmabuf: more than %d (GPU, allocator, device) "
			      "triples", t->pool, DMABUF_DOMAINS);
		rc = -ENOSPC;
		goto out;
	}
	d = &dmabuf_domains[nb_dmabuf_domains];
	memset(d, 0, sizeof(*d));
	d->gpu = gpu;
	d->export_dmabuf = t->alloc->export_dmabuf;
	d->ctx = t->alloc->ctx;
	d->pci_domain = dom;
	d->bus = bus;
	d->devfn = devfn;
	snprintf(d->alloc_name, sizeof(d->alloc_name), "%s",
		 t->alloc->name != NULL ? t->alloc->name : "?");
	conf.ctx = d;
	d->cache = gpudp_regcache_create(&conf);
	if (d->cache == NULL) {
		d = NULL;
		rc = -ENOMEM;
		goto out;
	}
	nb_dmabuf_domains++;
	if (dom >= 0)
		GPUDP_MEM_LOG(INFO, "pool %s: dmabuf: dma-bufs of %s attached for PCI device "
			      "%04x:%02x:%02x.%x", t->pool, d->alloc_name, (unsigned int)dom, bus,
			      devfn >> 3, devfn & 7);
	else
		GPUDP_MEM_LOG(INFO, "pool %s: dmabuf: no PCI port: dma-bufs of %s attached "
			      "without a device (physical addresses, as kmod)", t->pool,
			      d->alloc_name);
out:
	pthread_mutex_unlock(&pin_lock);
	*out = d;
	return rc;
}

static int
dmabuf_pin(const struct gpudp_pin_target *t, void *va, size_t len, struct gpudp_pin_region *r,
	   rte_iova_t **iova, size_t *n, size_t *pgsz)
{
	struct dmabuf_domain *d;
	int rc = dmabuf_domain_get(t, &d);

	if (rc != 0)
		return rc;
	return cache_pin_table(d->cache, "dmabuf", va, len, r, iova, n, pgsz);
}

/* ---- gpudev's exporter ---- */

#ifdef GPUDP_HAS_CUDA
static int
gpudev_export_dmabuf(void *ctx, void *ptr, size_t len)
{
	CUcontext cuctx = NULL, prev;
	CUresult res;
	int fd = -1;

	(void)ctx;
	res = gpudp_cu->cuPointerGetAttribute(&cuctx, CU_POINTER_ATTRIBUTE_CONTEXT,
					      (CUdeviceptr)(uintptr_t)ptr);
	if (res != CUDA_SUCCESS) {
		GPUDP_MEM_LOG(ERR, "dmabuf: %p is not CUDA memory: %s", ptr, gpudp_cuda_errstr(res));
		return -EINVAL;
	}
	res = gpudp_cu->cuCtxPushCurrent(cuctx);
	if (res != CUDA_SUCCESS)
		return -EIO;
	res = gpudp_cu->cuMemGetHandleForAddressRange(&fd, (CUdeviceptr)(uintptr_t)ptr, len,
						      CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, 0);
	gpudp_cu->cuCtxPopCurrent(&prev);
	if (res != CUDA_SUCCESS) {
		GPUDP_MEM_LOG(ERR, "dmabuf: cuMemGetHandleForAddressRange(%p, %zu, DMA_BUF_FD): %s",
			      ptr, len, gpudp_cuda_errstr(res));
		return res == CUDA_ERROR_NOT_SUPPORTED ? -ENOTSUP : -EIO;
	}
	return fd;
}
#endif

gpudp_dmabuf_export_t *
gpudp_gpudev_dmabuf_exporter(int16_t gpu_id)
{
#ifdef GPUDP_HAS_CUDA
	struct gpudp_cuda_mem_caps caps;
	CUdevice dev;
	int v = 0;

	if (gpudp_cu == NULL || gpudp_cu->cuMemGetHandleForAddressRange == NULL ||
	    gpudp_mem_gpu_caps(gpu_id, NULL, &caps, &dev) != 0)
		return NULL;
	/* an integrated GPU's pools are cuMemHostAlloc memory: CUDA exports
	 * those where the device reports HOST_ALLOC_DMA_BUF_SUPPORTED (named
	 * by CUDA 13's headers; with older ones, not at all) */
	if (caps.integrated) {
#if CUDA_VERSION >= 13000
		if (gpudp_cu->cuDeviceGetAttribute(&v,
				CU_DEVICE_ATTRIBUTE_HOST_ALLOC_DMA_BUF_SUPPORTED, dev) != CUDA_SUCCESS)
			v = 0;
#endif
		return v != 0 ? gpudev_export_dmabuf : NULL;
	}
	if (gpudp_cu->cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED,
					   dev) != CUDA_SUCCESS || v == 0)
		return NULL;
	return gpudev_export_dmabuf;
#else
	(void)gpu_id;
	return NULL;
#endif
}

/* ---- selection ---- */

static int
peermem_check(struct gpudp_pin_region *r)
{
	(void)r;
	return 0;
}

static const struct gpudp_pin_ops kmod_ops = {
	.backend = GPUDP_PIN_KMOD, .name = "kmod",
	.pin = kmod_pin, .unpin = cache_region_unpin, .check = cache_region_check,
};

static const struct gpudp_pin_ops dmabuf_ops = {
	.backend = GPUDP_PIN_DMABUF, .name = "dmabuf",
	.pin = dmabuf_pin, .unpin = cache_region_unpin, .check = cache_region_check,
};

static const struct gpudp_pin_ops peermem_ops = {
	.backend = GPUDP_PIN_PEERMEM, .name = "peermem",
	.check = peermem_check,
};

/* the ops of a backend the rule chose */
static const struct gpudp_pin_ops *
backend_ops(enum gpudp_pin_backend b)
{
	return b == GPUDP_PIN_DMABUF ? &dmabuf_ops : b == GPUDP_PIN_KMOD ? &kmod_ops :
	       &peermem_ops;
}

int
gpudp_pin_backend_select(enum gpudp_pin_backend want, const struct gpudp_mem_allocator *alloc,
			 const struct gpudp_pin_ops **ops)
{
	struct gpudp_mem_pin_facts f = {
		.module = -ENOENT,
		.no_export = "the allocator cannot export dma-bufs (gpudev: no "
			     "CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED)",
		.peermem = -1,  /* peermem is the PMD's business: taken as is */
	};
	enum gpudp_pin_backend chosen;
	char why[400];
	int rc;

	if (want != GPUDP_PIN_PEERMEM) {
		/* the module, and the kmod cache with it */
		rc = kmod_open();
		f.module = rc == 0 ? pin_fd : rc;
		if (rc == 0)
			f.caps = pin_version.caps;
	}
	if (alloc != NULL && alloc->export_dmabuf != NULL)
		f.exporter = alloc->name != NULL ? alloc->name : "the allocator";
	rc = gpudp_mem_pin_decide(want, &f, &chosen, why, sizeof(why));
	if (rc != 0) {
		GPUDP_MEM_LOG(ERR, "pin backend %s: %s%s", gpudp_pin_backend_name(want), why,
			      want == GPUDP_PIN_DMABUF && f.module >= 0 ?
			      "; use kmod or peermem" : "");
		return rc;
	}
	if (want == GPUDP_PIN_AUTO)
		GPUDP_MEM_LOG(INFO, "pin backend: %s", why);
	*ops = backend_ops(chosen);
	return 0;
}

static void
stats_add(struct gpudp_regcache_stats *sum, struct gpudp_regcache *c)
{
	struct gpudp_regcache_stats st;

	if (c == NULL)
		return;
	gpudp_regcache_stats(c, &st);
	sum->hits += st.hits;
	sum->misses += st.misses;
	sum->pins += st.pins;
	sum->pin_failures += st.pin_failures;
	sum->unpins += st.unpins;
	sum->evictions += st.evictions;
	sum->invalidations += st.invalidations;
	sum->bytes_pinned += st.bytes_pinned;
	sum->regions += st.regions;
}

/* the counters of GPU @p gpu's caches (pin_gpu_key()), or of all with @p all */
static void
pin_stats(bool all, int16_t gpu, struct gpudp_regcache_stats *st)
{
	unsigned int i;

	memset(st, 0, sizeof(*st));
	pthread_mutex_lock(&pin_lock);
	for (i = 0; i < nb_kmod_gpus; i++)
		if (all || kmod_gpus[i].gpu == gpu)
			stats_add(st, kmod_gpus[i].cache);
	for (i = 0; i < nb_dmabuf_domains; i++)
		if (all || dmabuf_domains[i].gpu == gpu)
			stats_add(st, dmabuf_domains[i].cache);
	pthread_mutex_unlock(&pin_lock);
}

void
gpudp_mem_pin_stats(struct gpudp_regcache_stats *st)
{
	pin_stats(true, RTE_GPU_ID_NONE, st);
}

void
gpudp_mem_pin_gpu_stats(int16_t gpu_id, struct gpudp_regcache_stats *st)
{
	pin_stats(false, pin_gpu_key(gpu_id), st);
}

unsigned int
gpudp_mem_pin_gpu_release(int16_t gpu_id)
{
	int16_t gpu = pin_gpu_key(gpu_id);
	unsigned int i, n = 0;

	/* the caches are never freed (pools may hold their regions): read
	 * under pin_lock, dropped under each cache's own lock */
	pthread_mutex_lock(&pin_lock);
	for (i = 0; i < nb_kmod_gpus; i++)
		if (kmod_gpus[i].gpu == gpu)
			n += gpudp_regcache_invalidate(kmod_gpus[i].cache, 0, UINT64_MAX);
	for (i = 0; i < nb_dmabuf_domains; i++)
		if (dmabuf_domains[i].gpu == gpu)
			n += gpudp_regcache_invalidate(dmabuf_domains[i].cache, 0, UINT64_MAX);
	pthread_mutex_unlock(&pin_lock);
	return n;
}

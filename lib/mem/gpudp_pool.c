/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * GPU mbuf pools (see gpudp_mem.h). Follows NVIDIA's GPUDirect RDMA guide:
 * "Pinning GPU memory" (64 KiB pages, SYNC_MEMOPS on the allocation, set by
 * the gpudev driver) and the registration/teardown order of doc/pools.md.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_gpudev.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_memory.h>
#include <rte_memzone.h>
#include <rte_spinlock.h>

#include <gpudp_errf.h>

#include "gpudp_mem.h"
#include "gpudp_mem_pvt.h"

RTE_LOG_REGISTER(gpudp_mem_logtype, gpudp.mem, INFO);

#define DEFAULT_MAX_CHUNK ((size_t)1 << 30)

struct chunk {
	void *va;
	size_t len;
	const struct rte_memzone *mz;  /* PINNED */
	struct gpudp_pin_region pin;   /* DEVICE */
	rte_iova_t iova0;              /* IOVA of va, for dma_(un)map */
	bool allocated, pinned, gpu_registered, extmem;
	uint16_t ports_mapped;         /* conf.ports[0..ports_mapped) are mapped */
	void *cpu;                     /* DEVICE: its CPU mapping (gpudp_pool_cpu_map) */
};

struct gpudp_pool {
	TAILQ_ENTRY(gpudp_pool) next;
	char name[RTE_MEMPOOL_NAMESIZE];
	struct gpudp_pool_conf conf;
	uint16_t ports[RTE_MAX_ETHPORTS];
	/* each port's device, looked up at creation: the unmap at destroy
	 * must not need the ethdev port, which is gone once the port is
	 * closed (as it must be before destroy, to have its mbufs back) */
	struct rte_device *port_dev[RTE_MAX_ETHPORTS];
	struct gpudp_mem_allocator alloc;
	const struct gpudp_pin_ops *pin_ops;
	struct rte_mempool *mp;
	struct rte_mempool *hdr_mp;    /* SPLIT */
	void *hdr_reg[64];             /* SPLIT: its memory chunks registered with the GPU */
	uint32_t nb_hdr_reg;
	int hdr_reg_failed;
	struct chunk *chunks;
	uint32_t nb_chunks, cap_chunks;
	struct rte_pktmbuf_extmem *ext;
	uint32_t nb_ext, cap_ext;
	/* bytes per page of the pin backend's last table (64 KiB on a
	 * discrete GPU; 4 KiB for the gpudp_pin module built for Tegra) */
	size_t pin_page;
	struct gpudp_pool_info info;
};

static TAILQ_HEAD(, gpudp_pool) pools = TAILQ_HEAD_INITIALIZER(pools);
static rte_spinlock_t pools_lock = RTE_SPINLOCK_INITIALIZER;

static const char *const type_names[] = {
	[GPUDP_MEM_HOST] = "host",
	[GPUDP_MEM_PINNED] = "pinned",
	[GPUDP_MEM_DEVICE] = "device",
	[GPUDP_MEM_SPLIT] = "split",
};

static const char *const backend_names[] = {
	[GPUDP_PIN_AUTO] = "auto",
	[GPUDP_PIN_PEERMEM] = "peermem",
	[GPUDP_PIN_KMOD] = "kmod",
	[GPUDP_PIN_DMABUF] = "dmabuf",
};

const char *
gpudp_mem_type_name(enum gpudp_mem_type t)
{
	return (unsigned int)t < RTE_DIM(type_names) ? type_names[t] : "?";
}

const char *
gpudp_pin_backend_name(enum gpudp_pin_backend b)
{
	return (unsigned int)b < RTE_DIM(backend_names) ? backend_names[b] : "?";
}

int
gpudp_mem_type_parse(const char *s, enum gpudp_mem_type *t)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(type_names); i++)
		if (s != NULL && strcmp(s, type_names[i]) == 0) {
			*t = i;
			return 0;
		}
	return -EINVAL;
}

int
gpudp_pin_backend_parse(const char *s, enum gpudp_pin_backend *b)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(backend_names); i++)
		if (s != NULL && strcmp(s, backend_names[i]) == 0) {
			*b = i;
			return 0;
		}
	return -EINVAL;
}

/* ---- the default device allocator: gpudev ---- */

static void *
gpudev_alloc(void *ctx, size_t len, size_t align)
{
	int16_t id = (int16_t)(intptr_t)ctx;

	return rte_gpu_mem_alloc(id, len, align);
}

static int
gpudev_free(void *ctx, void *ptr)
{
	int16_t id = (int16_t)(intptr_t)ctx;

	return rte_gpu_mem_free(id, ptr) < 0 ? -rte_errno : 0;
}

/* ---- helpers ---- */

static int
push_ext(struct gpudp_pool *p, void *va, rte_iova_t iova, size_t len)
{
	uint16_t elt = p->info.elt_size;
	size_t n = len / elt;

	if (n == 0)
		return 0;
	if (p->nb_ext == p->cap_ext) {
		uint32_t cap = p->cap_ext ? p->cap_ext * 2 : 8;
		void *e = realloc(p->ext, cap * sizeof(*p->ext));

		if (e == NULL)
			return -ENOMEM;
		p->ext = e;
		p->cap_ext = cap;
	}
	p->ext[p->nb_ext++] = (struct rte_pktmbuf_extmem){
		.buf_ptr = va, .buf_iova = iova, .buf_len = n * elt, .elt_size = elt,
	};
	return (int)RTE_MIN(n, (size_t)INT32_MAX);
}

/* Add extmem entries for a chunk whose 64 KiB pages have IOVAs iova[]
 * (NULL: RTE_BAD_IOVA for all): one entry per IOVA-contiguous run, so that
 * no buffer straddles a discontinuity. @return elements added or -errno. */
static long
push_chunk_ext(struct gpudp_pool *p, struct chunk *c, const rte_iova_t *iova,
	       size_t pg)
{
	size_t pages = c->len / pg;
	size_t i, run = 0;
	long total = 0;
	int n;

	if (iova == NULL) {
		n = push_ext(p, c->va, RTE_BAD_IOVA, c->len);
		return n;
	}
	for (i = 1; i <= pages; i++) {
		if (i < pages && iova[i] == iova[i - 1] + pg)
			continue;
		n = push_ext(p, RTE_PTR_ADD(c->va, run * pg), iova[run], (i - run) * pg);
		if (n < 0)
			return n;
		total += n;
		run = i;
	}
	return total;
}

static struct chunk *
new_chunk(struct gpudp_pool *p)
{
	if (p->nb_chunks == p->cap_chunks) {
		uint32_t cap = p->cap_chunks ? p->cap_chunks * 2 : 4;
		void *c = realloc(p->chunks, cap * sizeof(*p->chunks));

		if (c == NULL)
			return NULL;
		p->chunks = c;
		p->cap_chunks = cap;
	}
	memset(&p->chunks[p->nb_chunks], 0, sizeof(p->chunks[0]));
	return &p->chunks[p->nb_chunks++];
}

static int
map_ports(struct gpudp_pool *p, struct chunk *c, rte_iova_t iova)
{
	while (c->ports_mapped < p->conf.nb_ports) {
		uint16_t port = p->ports[c->ports_mapped];
		struct rte_device *dev = p->port_dev[c->ports_mapped];

		if (rte_dev_dma_map(dev, c->va, iova, c->len) != 0 && rte_errno != ENOTSUP) {
			GPUDP_MEM_LOG(ERR, "pool %s: dma_map of %zu bytes at %p for port %u (%s): %s",
				      p->name, c->len, c->va, port, rte_dev_name(dev),
				      strerror(rte_errno));
			return -rte_errno;
		}
		c->ports_mapped++;
	}
	return 0;
}

static void
unmap_ports(struct gpudp_pool *p, struct chunk *c, rte_iova_t iova)
{
	while (c->ports_mapped > 0) {
		uint16_t port = p->ports[--c->ports_mapped];

		if (rte_dev_dma_unmap(p->port_dev[c->ports_mapped], c->va, iova, c->len) != 0 &&
		    rte_errno != ENOTSUP)
			GPUDP_MEM_LOG(WARNING, "pool %s: dma_unmap for port %u: %s",
				      p->name, port, strerror(rte_errno));
	}
}

/* ---- per-type chunk set-up and teardown ---- */

static long
device_chunk(struct gpudp_pool *p, struct chunk *c, size_t len)
{
	rte_iova_t *iova = NULL;
	size_t pages = 0, pg = GPUDP_GPU_PAGE;
	long n;
	int rc;

	rte_errno = 0;
	c->va = p->alloc.alloc(p->alloc.ctx, len, GPUDP_GPU_PAGE);
	if (c->va == NULL) {
		rc = rte_errno ? -rte_errno : -ENOMEM;
		GPUDP_MEM_LOG(ERR, "pool %s: %s allocation of %zu bytes failed: %s",
			      p->name, p->alloc.name, len, strerror(-rc));
		return rc;
	}
	c->len = len;
	c->allocated = true;
	c->iova0 = RTE_BAD_IOVA;
	if (p->pin_ops->pin != NULL) {
		const struct gpudp_pin_target t = {
			.pool = p->name, .alloc = &p->alloc, .gpu_id = p->conf.gpu_id,
			.ports = p->ports, .nb_ports = p->conf.nb_ports,
		};

		rc = p->pin_ops->pin(&t, c->va, len, &c->pin, &iova, &pages, &pg);
		if (rc != 0) {
			GPUDP_MEM_LOG(ERR, "pool %s: %s pin of %zu bytes at %p failed: %s",
				      p->name, p->pin_ops->name, len, c->va, strerror(-rc));
			return rc;
		}
		c->pinned = true;
		c->iova0 = iova[0];
		p->info.pins++;
	}
	if (rte_extmem_register(c->va, len, iova, pages, pg) != 0) {
		rc = -rte_errno;
		GPUDP_MEM_LOG(ERR, "pool %s: rte_extmem_register(%p, %zu): %s", p->name,
			      c->va, len, strerror(rte_errno));
		free(iova);
		return rc;
	}
	c->extmem = true;
	p->pin_page = pg;
	rc = map_ports(p, c, c->iova0);
	n = rc == 0 ? push_chunk_ext(p, c, iova, pg) : rc;
	free(iova);
	if (n == 0) {
		/* each IOVA-contiguous run is shorter than one buffer */
		GPUDP_MEM_LOG(ERR, "pool %s: %zu bytes at %p hold no buffer of %u bytes: the %s "
			      "backend's bus addresses break every %zu bytes; use buffers of at "
			      "most %zu bytes, the mbuf headroom included", p->name, len, c->va,
			      p->info.elt_size, p->pin_ops->name, pg,
			      RTE_ALIGN_FLOOR(pg, RTE_CACHE_LINE_SIZE));
		return -EINVAL;
	}
	return n;
}

static long
pinned_chunk(struct gpudp_pool *p, struct chunk *c, size_t len)
{
	char mzname[RTE_MEMZONE_NAMESIZE];
	int rc;

	snprintf(mzname, sizeof(mzname), "%.20s_c%u", p->name, p->nb_chunks - 1);
	c->mz = rte_memzone_reserve_aligned(mzname, len, p->conf.socket_id,
					    RTE_MEMZONE_IOVA_CONTIG, GPUDP_GPU_PAGE);
	if (c->mz == NULL) {
		rc = -rte_errno;
		GPUDP_MEM_LOG(ERR, "pool %s: %zu bytes of IOVA-contiguous host memory: %s",
			      p->name, len, strerror(rte_errno));
		return rc;
	}
	c->va = c->mz->addr;
	c->len = len;
	if (rte_gpu_mem_register(p->conf.gpu_id, len, c->va) != 0) {
		rc = -rte_errno;
		GPUDP_MEM_LOG(ERR, "pool %s: rte_gpu_mem_register(gpu %d, %zu bytes): %s",
			      p->name, p->conf.gpu_id, len, strerror(rte_errno));
		return rc;
	}
	c->gpu_registered = true;
	return push_ext(p, c->va, c->mz->iova, len);
}

static void
chunk_release(struct gpudp_pool *p, struct chunk *c)
{
	if (c->cpu != NULL && rte_gpu_mem_cpu_unmap(p->conf.gpu_id, c->va) != 0)
		GPUDP_MEM_LOG(WARNING, "pool %s: rte_gpu_mem_cpu_unmap(%p): %s", p->name, c->va,
			      strerror(rte_errno));
	unmap_ports(p, c, c->iova0);
	if (c->extmem && rte_extmem_unregister(c->va, c->len) != 0)
		GPUDP_MEM_LOG(WARNING, "pool %s: rte_extmem_unregister(%p): %s", p->name,
			      c->va, strerror(rte_errno));
	if (c->pinned)
		p->pin_ops->unpin(&c->pin);
	if (c->gpu_registered && rte_gpu_mem_unregister(p->conf.gpu_id, c->va) != 0)
		GPUDP_MEM_LOG(WARNING, "pool %s: rte_gpu_mem_unregister: %s", p->name,
			      strerror(rte_errno));
	if (c->mz != NULL)
		rte_memzone_free(c->mz);
	if (c->allocated && p->alloc.free(p->alloc.ctx, c->va) != 0)
		GPUDP_MEM_LOG(WARNING, "pool %s: freeing %p with %s failed", p->name,
			      c->va, p->alloc.name);
	memset(c, 0, sizeof(*c));
}

/*
 * SPLIT: the header mempool's memory registered with the GPU (gpudev), so
 * that GPU modes read and write headers where the NIC put them (a work sees
 * the header segment in pinned host memory, the payload in GPU memory).
 */
static void
hdr_register_chunk(struct rte_mempool *mp, void *opaque, struct rte_mempool_memhdr *m,
		   unsigned int idx)
{
	struct gpudp_pool *p = opaque;

	RTE_SET_USED(mp);
	RTE_SET_USED(idx);
	if (p->hdr_reg_failed)
		return;
	if (p->nb_hdr_reg == RTE_DIM(p->hdr_reg) ||
	    rte_gpu_mem_register(p->conf.gpu_id, m->len, m->addr) != 0) {
		GPUDP_MEM_LOG(ERR, "pool %s: registering header memory %p (%zu B) with GPU %d: "
			      "%s", p->name, m->addr, m->len, p->conf.gpu_id,
			      p->nb_hdr_reg == RTE_DIM(p->hdr_reg) ? "too many chunks" :
			      strerror(rte_errno));
		p->hdr_reg_failed = 1;
		return;
	}
	p->hdr_reg[p->nb_hdr_reg++] = m->addr;
}

static void
hdr_unregister(struct gpudp_pool *p)
{
	uint32_t i;

	for (i = 0; i < p->nb_hdr_reg; i++)
		if (rte_gpu_mem_unregister(p->conf.gpu_id, p->hdr_reg[i]) != 0)
			GPUDP_MEM_LOG(WARNING, "pool %s: rte_gpu_mem_unregister(header %p): %s",
				      p->name, p->hdr_reg[i], strerror(rte_errno));
	p->nb_hdr_reg = 0;
}

static void
pool_release(struct gpudp_pool *p)
{
	if (p->mp != NULL)
		rte_mempool_free(p->mp);
	if (p->hdr_mp != NULL) {
		hdr_unregister(p);
		rte_mempool_free(p->hdr_mp);
	}
	while (p->nb_chunks > 0)
		chunk_release(p, &p->chunks[--p->nb_chunks]);
	free(p->chunks);
	free(p->ext);
	free(p);
}

static int
check_conf(const struct gpudp_pool_conf *conf)
{
	const char *why = NULL;

	if (conf == NULL || conf->name == NULL || conf->name[0] == '\0')
		why = "no name";
	else if (strlen(conf->name) >= RTE_MEMPOOL_NAMESIZE - 3)
		why = "name too long";
	else if ((unsigned int)conf->type >= RTE_DIM(type_names))
		why = "unknown memory type";
	else if ((unsigned int)conf->pin >= RTE_DIM(backend_names))
		why = "unknown pin backend";
	else if (conf->nb_mbufs == 0)
		why = "nb_mbufs is 0";
	else if (conf->data_room <= RTE_PKTMBUF_HEADROOM)
		why = "data_room not above RTE_PKTMBUF_HEADROOM";
	else if (conf->cache_size > RTE_MEMPOOL_CACHE_MAX_SIZE)
		why = "cache_size above RTE_MEMPOOL_CACHE_MAX_SIZE";
	else if (conf->nb_ports > 0 && conf->ports == NULL)
		why = "nb_ports without ports";
	else if (conf->nb_ports > RTE_MAX_ETHPORTS)
		why = "too many ports";
	else if (conf->type == GPUDP_MEM_SPLIT && conf->hdr_len > 4096)
		why = "hdr_len above 4096";
	if (why == NULL)
		return 0;
	GPUDP_MEM_LOG(ERR, "pool %s: invalid configuration: %s",
		      conf != NULL && conf->name != NULL ? conf->name : "?", why);
	return -EINVAL;
}

struct gpudp_pool *
gpudp_pool_create(const struct gpudp_pool_conf *conf)
{
	struct gpudp_pool *p;
	size_t total, max_chunk;
	long have = 0;
	uint16_t i;
	int rc;

	rc = check_conf(conf);
	if (rc != 0)
		goto fail_early;
	if ((conf->type == GPUDP_MEM_PINNED ||
	     (conf->type != GPUDP_MEM_HOST && conf->alloc == NULL)) &&
	    !rte_gpu_is_valid(conf->gpu_id)) {
		GPUDP_MEM_LOG(ERR, "pool %s: GPU %d not found (%u GPUs available)",
			      conf->name, conf->gpu_id, rte_gpu_count_avail());
		rc = -ENODEV;
		goto fail_early;
	}
	p = calloc(1, sizeof(*p));
	if (p == NULL) {
		rc = -ENOMEM;
		goto fail_early;
	}
	snprintf(p->name, sizeof(p->name), "%s", conf->name);
	p->conf = *conf;
	p->conf.name = p->name;
	if (conf->nb_ports > 0)
		memcpy(p->ports, conf->ports, conf->nb_ports * sizeof(p->ports[0]));
	p->conf.ports = p->ports;
	/* host pools map nothing for their ports */
	for (i = 0; conf->type != GPUDP_MEM_HOST && i < conf->nb_ports; i++) {
		struct rte_eth_dev_info di;

		if (rte_eth_dev_info_get(p->ports[i], &di) != 0 || di.device == NULL) {
			GPUDP_MEM_LOG(ERR, "pool %s: port %u: no such port", p->name,
				      p->ports[i]);
			rc = -ENODEV;
			goto fail;
		}
		p->port_dev[i] = di.device;
	}
	p->info.type = conf->type;
	p->info.nb_mbufs = conf->nb_mbufs;
	/* cache-line multiple: buffers never share a line */
	p->info.elt_size = RTE_ALIGN_CEIL(conf->data_room, RTE_CACHE_LINE_SIZE);
	p->info.data_bytes = (size_t)conf->nb_mbufs * p->info.elt_size;

	if (conf->type == GPUDP_MEM_HOST) {
		p->mp = rte_pktmbuf_pool_create(p->name, conf->nb_mbufs, conf->cache_size,
						0, conf->data_room, conf->socket_id);
		if (p->mp == NULL) {
			rc = -rte_errno;
			GPUDP_MEM_LOG(ERR, "pool %s: rte_pktmbuf_pool_create: %s", p->name,
				      strerror(rte_errno));
			goto fail;
		}
		goto done;
	}

	if (conf->type == GPUDP_MEM_SPLIT) {
		char hname[RTE_MEMPOOL_NAMESIZE];
		uint16_t hdr = conf->hdr_len ? conf->hdr_len : 128;

		snprintf(hname, sizeof(hname), "%.*s_h", (int)sizeof(hname) - 3, p->name);
		p->hdr_mp = rte_pktmbuf_pool_create(hname, conf->nb_mbufs, conf->cache_size,
						    0, RTE_PKTMBUF_HEADROOM + hdr,
						    conf->socket_id);
		if (p->hdr_mp == NULL) {
			rc = -rte_errno;
			GPUDP_MEM_LOG(ERR, "pool %s: header pool of %u x %u B: %s", p->name,
				      conf->nb_mbufs, RTE_PKTMBUF_HEADROOM + hdr,
				      strerror(rte_errno));
			goto fail;
		}
		/* a pool on a GPU (not a test allocator without one) */
		if (rte_gpu_is_valid(conf->gpu_id)) {
			rte_mempool_mem_iter(p->hdr_mp, hdr_register_chunk, p);
			if (p->hdr_reg_failed) {
				rc = -ENOMEM;  /* pool_release() unregisters the others */
				goto fail;
			}
		}
	}
	if (conf->type == GPUDP_MEM_DEVICE || conf->type == GPUDP_MEM_SPLIT) {
		if (conf->alloc != NULL)
			p->alloc = *conf->alloc;
		else
			p->alloc = (struct gpudp_mem_allocator){
				.name = "gpudev", .alloc = gpudev_alloc,
				.free = gpudev_free, .ctx = (void *)(intptr_t)conf->gpu_id,
				.export_dmabuf = gpudp_gpudev_dmabuf_exporter(conf->gpu_id),
			};
		rc = gpudp_pin_backend_select(conf->pin, &p->alloc, &p->pin_ops);
		if (rc != 0)
			goto fail;
		p->info.pin = p->pin_ops->backend;
		GPUDP_MEM_LOG(INFO, "pool %s: %u mbufs x %u B in device memory (%s), pin backend %s",
			      p->name, conf->nb_mbufs, p->info.elt_size, p->alloc.name,
			      p->pin_ops->name);
	}

	max_chunk = RTE_ALIGN_FLOOR(conf->max_chunk ? conf->max_chunk : DEFAULT_MAX_CHUNK,
				    GPUDP_GPU_PAGE);
	if (max_chunk < GPUDP_GPU_PAGE || max_chunk < p->info.elt_size) {
		GPUDP_MEM_LOG(ERR, "pool %s: max_chunk %zu below one 64 KiB page or one buffer",
			      p->name, conf->max_chunk);
		rc = -EINVAL;
		goto fail;
	}
	while (have < (long)conf->nb_mbufs) {
		struct chunk *c = new_chunk(p);
		long n;

		if (c == NULL) {
			rc = -ENOMEM;
			goto fail;
		}
		if (p->pin_ops != NULL && p->pin_ops->pin != NULL) {
			/* bus addresses may break at every page of the pin
			 * backend's table (64 KiB until a table says less):
			 * size for whole buffers per page, so one chunk is
			 * enough; a buffer larger than a page is refused by
			 * device_chunk() */
			size_t pg = p->pin_page != 0 ? p->pin_page : GPUDP_GPU_PAGE;
			size_t per_page = RTE_MAX(pg / p->info.elt_size, (size_t)1);

			total = RTE_ALIGN_CEIL((conf->nb_mbufs - have + per_page - 1) /
					       per_page * pg, GPUDP_GPU_PAGE);
		} else {
			total = RTE_ALIGN_CEIL((size_t)(conf->nb_mbufs - have) *
					       p->info.elt_size, GPUDP_GPU_PAGE);
		}
		total = RTE_MIN(total, max_chunk);
		n = conf->type == GPUDP_MEM_PINNED ? pinned_chunk(p, c, total) :
						     device_chunk(p, c, total);
		if (n < 0) {
			rc = (int)n;
			goto fail;
		}
		if (conf->type != GPUDP_MEM_PINNED)
			p->info.gpu_bytes += c->len;
		have += n;
	}
	p->info.chunks = p->nb_chunks;
	p->info.extmem_segs = p->nb_ext;
#ifdef GPUDP_HAS_CUDA
	/* an integrated GPU's pool: host memory from cuMemHostAlloc (doc/tegra.md) */
	if (p->alloc.alloc == gpudev_alloc && p->nb_chunks > 0) {
		struct gpudp_cuda_mem_caps caps;

		if (gpudp_mem_gpu_caps(conf->gpu_id, NULL, &caps, NULL) == 0 && caps.integrated)
			p->info.host_alloc = gpudp_mem_host_alloc_flags(p->chunks[0].va);
		if (p->info.host_alloc != 0)
			GPUDP_MEM_LOG(INFO, "pool %s: GPU %d is integrated: its %zu bytes are host "
				      "memory from cuMemHostAlloc (%s), at the address the GPU uses",
				      p->name, conf->gpu_id, p->info.gpu_bytes,
				      (p->info.host_alloc & GPUDP_MEM_HOST_ALLOC_WRITECOMBINED) ?
				      "write-combined" : "default flags, not write-combined");
	}
#endif
	p->mp = rte_pktmbuf_pool_create_extbuf(p->name, conf->nb_mbufs, conf->cache_size,
					       0, p->info.elt_size, conf->socket_id,
					       p->ext, p->nb_ext);
	if (p->mp == NULL) {
		rc = -rte_errno;
		GPUDP_MEM_LOG(ERR, "pool %s: rte_pktmbuf_pool_create_extbuf: %s", p->name,
			      strerror(rte_errno));
		goto fail;
	}
done:
	p->info.host_bytes = rte_mempool_calc_obj_size(p->mp->elt_size, p->mp->flags,
						       NULL) * (size_t)p->mp->size;
	if (p->hdr_mp != NULL)
		p->info.host_bytes += rte_mempool_calc_obj_size(p->hdr_mp->elt_size,
				p->hdr_mp->flags, NULL) * (size_t)p->hdr_mp->size;
	rte_spinlock_lock(&pools_lock);
	TAILQ_INSERT_TAIL(&pools, p, next);
	rte_spinlock_unlock(&pools_lock);
	return p;
fail:
	pool_release(p);
fail_early:
	rte_errno = -rc;
	return NULL;
}

struct rte_mempool *
gpudp_pool_mempool(const struct gpudp_pool *p)
{
	return p->mp;
}

struct rte_mempool *
gpudp_pool_header_mempool(const struct gpudp_pool *p)
{
	return p->hdr_mp;
}

int
gpudp_pool_rx_queue_setup(const struct gpudp_pool *p, uint16_t port, uint16_t queue,
			  uint16_t nb_desc, int socket_id)
{
	struct rte_eth_rxseg_split seg[2] = {
		{ .mp = p->hdr_mp, .length = p->conf.hdr_len ? p->conf.hdr_len : 128 },
		{ .mp = p->mp, .length = 0 },
	};
	struct rte_eth_dev_info di;
	struct rte_eth_rxconf rxconf;
	int rc;

	if (p->hdr_mp == NULL) {
		rc = rte_eth_rx_queue_setup(port, queue, nb_desc, socket_id, NULL, p->mp);
		return rc;
	}
	rc = rte_eth_dev_info_get(port, &di);
	if (rc != 0)
		return rc;
	if (!(di.rx_offload_capa & RTE_ETH_RX_OFFLOAD_BUFFER_SPLIT)) {
		GPUDP_MEM_LOG(ERR, "pool %s: port %u (%s) cannot split buffers "
			      "(no RTE_ETH_RX_OFFLOAD_BUFFER_SPLIT): use a device or pinned pool",
			      p->name, port, di.driver_name);
		return -ENOTSUP;
	}
	rxconf = di.default_rxconf;
	rxconf.offloads |= RTE_ETH_RX_OFFLOAD_BUFFER_SPLIT;
	rxconf.rx_seg = (union rte_eth_rxseg *)seg;
	rxconf.rx_nseg = RTE_DIM(seg);
	return rte_eth_rx_queue_setup(port, queue, nb_desc, socket_id, &rxconf, NULL);
}

void
gpudp_pool_info_get(const struct gpudp_pool *p, struct gpudp_pool_info *info)
{
	*info = p->info;
}

int
gpudp_pool_destroy(struct gpudp_pool *p)
{
	if (p == NULL)
		return 0;
	if (rte_mempool_avail_count(p->mp) != p->mp->size ||
	    (p->hdr_mp != NULL && rte_mempool_avail_count(p->hdr_mp) != p->hdr_mp->size)) {
		GPUDP_MEM_LOG(ERR, "pool %s: %u of %u mbufs still in use; stop the ports first",
			      p->name, rte_mempool_in_use_count(p->mp) +
			      (p->hdr_mp != NULL ? rte_mempool_in_use_count(p->hdr_mp) : 0),
			      p->mp->size + (p->hdr_mp != NULL ? p->hdr_mp->size : 0));
		return -EBUSY;
	}
	rte_spinlock_lock(&pools_lock);
	TAILQ_REMOVE(&pools, p, next);
	rte_spinlock_unlock(&pools_lock);
	pool_release(p);
	return 0;
}

int
gpudp_pool_check(struct gpudp_pool *p)
{
	uint32_t i;

	for (i = 0; i < p->nb_chunks; i++) {
		if (p->chunks[i].pinned && p->pin_ops->check(&p->chunks[i].pin) != 0) {
			GPUDP_MEM_LOG(ERR, "pool %s: chunk %u (%zu bytes at %p): pin revoked, "
				      "the GPU memory was freed under it", p->name, i,
				      p->chunks[i].len, p->chunks[i].va);
			return -EIDRM;
		}
	}
	return 0;
}

void
gpudp_pool_foreach(void (*fn)(const struct gpudp_pool *p, void *arg), void *arg)
{
	const struct gpudp_pool *p;

	rte_spinlock_lock(&pools_lock);
	TAILQ_FOREACH(p, &pools, next)
		fn(p, arg);
	rte_spinlock_unlock(&pools_lock);
}

const char *
gpudp_pool_name(const struct gpudp_pool *p)
{
	return p->name;
}

int
gpudp_pool_cpu_map(struct gpudp_pool *p, char *why, size_t len)
{
	uint32_t i;

	if (p->conf.type != GPUDP_MEM_DEVICE) {
		gpudp_errf(why, len, "pool %s is not in device memory: the CPU reads it as is",
			   p->name);
		return -EINVAL;
	}
	for (i = 0; i < p->nb_chunks; i++) {
		struct chunk *c = &p->chunks[i];

		if (c->cpu != NULL)
			continue;
		c->cpu = rte_gpu_mem_cpu_map(p->conf.gpu_id, c->len, c->va);
		if (c->cpu == NULL) {
			int rc = rte_errno != 0 ? -abs(rte_errno) : -ENOTSUP;

			gpudp_errf(why, len, "rte_gpu_mem_cpu_map of chunk %u (%zu bytes at %p): %s",
				   i, c->len, c->va, rte_strerror(-rc));
			return rc;
		}
	}
	return 0;
}

const void *
gpudp_pool_cpu_addr(const struct gpudp_pool *p, uint64_t addr, uint32_t len)
{
	uint32_t i;

	for (i = 0; i < p->nb_chunks; i++) {
		const struct chunk *c = &p->chunks[i];
		uint64_t va = (uint64_t)(uintptr_t)c->va;

		if (c->cpu != NULL && addr >= va && addr - va < c->len &&
		    len <= c->len - (addr - va))
			return (const uint8_t *)c->cpu + (addr - va);
	}
	return NULL;
}

size_t
gpudp_pool_cpu_mapped(const struct gpudp_pool *p)
{
	size_t n = 0;
	uint32_t i;

	for (i = 0; i < p->nb_chunks; i++)
		if (p->chunks[i].cpu != NULL)
			n += p->chunks[i].len;
	return n;
}

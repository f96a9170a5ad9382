/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The pin backends (kmod, dmabuf) and their registration caches per GPU
 * (lib/mem, doc/pools.md): device pools on two GPUs, each pinned with its
 * own GPU's memory and context, never served another GPU's cached region,
 * and gpudp_mem_pin_gpu_release() dropping one GPU's regions only.
 *
 * The gpudp_pin module is replaced by test/common's stand-in
 * (fake_pin_client.c, linked in place of lib/pin), which records the CUDA
 * context of every pin's memory. The GPUs are the fake libcuda's two
 * devices in the dpdk suite (GPUDP_FAKE_CUDA_DEVICES=2) or two real GPUs
 * in the gpu suite; with fewer than two, every case is skipped (exit 77).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_gpudev.h>

#include <gpudp_cuda.h>
#include <gpudp_gpu.h>
#include <gpudp_mem.h>
#include <gpudp_regcache.h>
#include <gpudp_test.h>
#include <gpudp_test_fakepin.h>

#define NB_MBUF 2048

/* the two GPUs: gpudev devices of CUDA ordinals 0 and 1, their contexts */
static int16_t gpu[2] = { -1, -1 };
static uint64_t ctx[2];

#define NEED_TWO() GPUDP_TEST_SKIP_IF(gpu[1] < 0, "fewer than two GPUs")

/* dmabuf: an allocator per GPU (gpudev), exporting through the stand-in */
static void *
alloc_gpu(void *c, size_t len, size_t align)
{
	return rte_gpu_mem_alloc(*(int16_t *)c, len, (unsigned int)align);
}

static int
free_gpu(void *c, void *p)
{
	return rte_gpu_mem_free(*(int16_t *)c, p) == 0 ? 0 : -EIO;
}

static int
export_fake(void *c, void *p, size_t len)
{
	(void)c;
	return gpudp_test_fakepin_export(p, len);
}

static const struct gpudp_mem_allocator allocs[2] = {
	{ .name = "gpudev0+fake-export", .alloc = alloc_gpu, .free = free_gpu,
	  .ctx = &gpu[0], .export_dmabuf = export_fake },
	{ .name = "gpudev1+fake-export", .alloc = alloc_gpu, .free = free_gpu,
	  .ctx = &gpu[1], .export_dmabuf = export_fake },
};

static struct gpudp_pool *
pool_on(unsigned int g, const char *name, enum gpudp_pin_backend pin)
{
	struct gpudp_pool_conf conf = {
		.name = name, .type = GPUDP_MEM_DEVICE, .gpu_id = gpu[g],
		.nb_mbufs = NB_MBUF, .data_room = 2048 + 128, .socket_id = SOCKET_ID_ANY,
		.pin = pin, .alloc = pin == GPUDP_PIN_DMABUF ? &allocs[g] : NULL,
	};
	struct gpudp_pool *p = gpudp_pool_create(&conf);

	if (p == NULL)
		fprintf(stderr, "    pool %s on GPU %u: %s\n", name, g, strerror(rte_errno));
	return p;
}

static struct gpudp_regcache_stats
gpu_stats(unsigned int g)
{
	struct gpudp_regcache_stats st;

	gpudp_mem_pin_gpu_stats(gpu[g], &st);
	return st;
}

/* drop every cached pin of both GPUs: each case starts with none */
static void
release_all(void)
{
	gpudp_mem_pin_gpu_release(gpu[0]);
	gpudp_mem_pin_gpu_release(gpu[1]);
}

/* pools on both GPUs at once: each one's pins are of its own GPU's
 * memory and counted in its own GPU's caches only */
static int
pins_per_gpu(enum gpudp_pin_backend pin)
{
	struct gpudp_test_fakepin_ctx f0, f1, b0, b1;
	struct gpudp_regcache_stats s0, s1, c0, c1, all;
	struct gpudp_pool *p0, *p1;

	NEED_TWO();
	release_all();
	gpudp_test_fakepin_ctx_get(ctx[0], &b0);
	gpudp_test_fakepin_ctx_get(ctx[1], &b1);
	c0 = gpu_stats(0);   /* the pins counters are cumulative */
	c1 = gpu_stats(1);
	p0 = pool_on(0, "pg_a0", pin);
	p1 = pool_on(1, "pg_a1", pin);
	GPUDP_TEST_ASSERT(p0 != NULL && p1 != NULL, "pools");
	gpudp_test_fakepin_ctx_get(ctx[0], &f0);
	gpudp_test_fakepin_ctx_get(ctx[1], &f1);
	s0 = gpu_stats(0);
	s1 = gpu_stats(1);
	gpudp_mem_pin_stats(&all);
	s0.pins -= c0.pins;
	s1.pins -= c1.pins;
	printf("    %s: GPU 0 %" PRIu64 " pins %u live, GPU 1 %" PRIu64 " pins %u live\n",
	       gpudp_pin_backend_name(pin), s0.pins, f0.live, s1.pins, f1.live);
	GPUDP_TEST_ASSERT(f0.pins > b0.pins && f1.pins > b1.pins,
			  "pins on GPU 0's memory %u, GPU 1's %u", f0.pins - b0.pins,
			  f1.pins - b1.pins);
	GPUDP_TEST_ASSERT(s0.pins == f0.pins - b0.pins && s1.pins == f1.pins - b1.pins,
			  "per-GPU cache pins %" PRIu64 "/%" PRIu64 " != the module's %u/%u",
			  s0.pins, s1.pins, f0.pins - b0.pins, f1.pins - b1.pins);
	GPUDP_TEST_ASSERT(s0.regions == f0.live && s1.regions == f1.live,
			  "per-GPU regions %" PRIu64 "/%" PRIu64 " != live pins %u/%u",
			  s0.regions, s1.regions, f0.live, f1.live);
	GPUDP_TEST_ASSERT(pin != GPUDP_PIN_DMABUF ||
			  (f0.dmabufs > b0.dmabufs && f1.dmabufs > b1.dmabufs),
			  "dma-buf attachments on each GPU");
	GPUDP_TEST_ASSERT(all.regions == s0.regions + s1.regions, "all %" PRIu64 " regions",
			  all.regions);
	GPUDP_TEST_ASSERT(gpudp_pool_destroy(p0) == 0 && gpudp_pool_destroy(p1) == 0,
			  "destroy");
	release_all();
	GPUDP_TEST_ASSERT(gpudp_test_fakepin_live() == 0, "%u pins left",
			  gpudp_test_fakepin_live());
	return GPUDP_TEST_PASS;
}

static int
kmod_pins_are_per_gpu(void)
{
	return pins_per_gpu(GPUDP_PIN_KMOD);
}

static int
dmabuf_attachments_are_per_gpu(void)
{
	return pins_per_gpu(GPUDP_PIN_DMABUF);
}

/*
 * A pool on GPU 0 is destroyed (its region stays pinned in the cache:
 * lazy unpin), then a pool of the same size on GPU 1, whose memory may
 * get the same addresses: GPU 1's pool is pinned afresh on GPU 1, never
 * served GPU 0's region (no hit, no page table read of a revoked pin).
 */
static int
lookup_never_returns_another_gpus_region(enum gpudp_pin_backend pin)
{
	struct gpudp_regcache_stats s0, s1, c1, after0;
	struct gpudp_test_fakepin_ctx f1;
	unsigned int revoked0 = gpudp_test_fakepin_revoked_reads();
	uint64_t lo0, hi0, lo1, hi1;
	struct gpudp_pool *p;

	NEED_TWO();
	release_all();
	c1 = gpu_stats(1);   /* cumulative counters: this case's are the difference */
	p = pool_on(0, "pg_b0", pin);
	GPUDP_TEST_ASSERT(p != NULL && gpudp_pool_destroy(p) == 0, "GPU 0 pool");
	s0 = gpu_stats(0);
	GPUDP_TEST_ASSERT(s0.regions > 0, "GPU 0's region not kept (lazy unpin)");
	p = pool_on(1, "pg_b1", pin);
	GPUDP_TEST_ASSERT(p != NULL, "GPU 1 pool");
	s1 = gpu_stats(1);
	s1.hits -= c1.hits;
	s1.misses -= c1.misses;
	s1.pins -= c1.pins;
	gpudp_test_fakepin_ctx_get(ctx[1], &f1);
	gpudp_test_fakepin_span(ctx[0], &lo0, &hi0);
	gpudp_test_fakepin_span(ctx[1], &lo1, &hi1);
	printf("    %s: GPU 0 pinned [%#" PRIx64 ", %#" PRIx64 "), GPU 1 [%#" PRIx64 ", %#"
	       PRIx64 ")%s\n", gpudp_pin_backend_name(pin), lo0, hi0, lo1, hi1,
	       lo1 < hi0 && lo0 < hi1 ? ": the same addresses" : "");
	GPUDP_TEST_ASSERT(s1.hits == 0 && s1.misses > 0 && s1.pins == s1.misses,
			  "GPU 1: %" PRIu64 " hits %" PRIu64 " misses %" PRIu64 " pins", s1.hits,
			  s1.misses, s1.pins);
	GPUDP_TEST_ASSERT(gpudp_test_fakepin_revoked_reads() == revoked0,
			  "GPU 1's pool read %u revoked pins (GPU 0's freed memory)",
			  gpudp_test_fakepin_revoked_reads() - revoked0);
	GPUDP_TEST_ASSERT(f1.live > 0 && s1.regions == f1.live, "GPU 1: %u live pins, %" PRIu64
			  " regions", f1.live, s1.regions);
	/* GPU 0's cache is as it was: nothing of GPU 1 went there */
	after0 = gpu_stats(0);
	GPUDP_TEST_ASSERT(after0.pins == s0.pins && after0.hits == s0.hits &&
			  after0.regions == s0.regions, "GPU 0's cache changed by GPU 1's pool");
	GPUDP_TEST_ASSERT(gpudp_pool_destroy(p) == 0, "destroy");
	release_all();
	return GPUDP_TEST_PASS;
}

static int
kmod_lookup_never_returns_another_gpus_region(void)
{
	return lookup_never_returns_another_gpus_region(GPUDP_PIN_KMOD);
}

static int
dmabuf_lookup_never_returns_another_gpus_region(void)
{
	return lookup_never_returns_another_gpus_region(GPUDP_PIN_DMABUF);
}

/* gpudp_mem_pin_gpu_release(GPU 0) unpins GPU 0's cached pins only; a
 * pool's region in use is unpinned at its destruction */
static int
release_drops_one_gpus_pins_only(void)
{
	struct gpudp_test_fakepin_ctx f0, f1;
	struct gpudp_regcache_stats s0, s1;
	struct gpudp_pool *p0, *p1, *busy;
	unsigned int n;

	NEED_TWO();
	release_all();
	p0 = pool_on(0, "pg_c0", GPUDP_PIN_KMOD);
	p1 = pool_on(1, "pg_c1", GPUDP_PIN_KMOD);
	busy = pool_on(0, "pg_c0b", GPUDP_PIN_KMOD);
	GPUDP_TEST_ASSERT(p0 != NULL && p1 != NULL && busy != NULL, "pools");
	GPUDP_TEST_ASSERT(gpudp_pool_destroy(p0) == 0 && gpudp_pool_destroy(p1) == 0,
			  "destroy");
	s1 = gpu_stats(1);
	GPUDP_TEST_ASSERT(gpu_stats(0).regions >= 2 && s1.regions >= 1,
			  "regions kept: GPU 0 %" PRIu64 ", GPU 1 %" PRIu64,
			  gpu_stats(0).regions, s1.regions);
	n = gpudp_mem_pin_gpu_release(gpu[0]);
	s0 = gpu_stats(0);
	gpudp_test_fakepin_ctx_get(ctx[0], &f0);
	gpudp_test_fakepin_ctx_get(ctx[1], &f1);
	printf("    release GPU 0: %u regions dropped; live pins GPU 0 %u, GPU 1 %u\n", n,
	       f0.live, f1.live);
	/* the busy pool's region is dropped too, but stays pinned (and
	 * counted) until the pool goes */
	GPUDP_TEST_ASSERT(n == 2 && s0.regions == 1 && f0.live == 1,
			  "GPU 0: %u dropped, %" PRIu64 " left, %u live pins", n, s0.regions,
			  f0.live);
	GPUDP_TEST_ASSERT(gpu_stats(1).regions == s1.regions && f1.live == s1.regions,
			  "GPU 1's regions touched: %" PRIu64 " -> %" PRIu64 " (%u live)",
			  s1.regions, gpu_stats(1).regions, f1.live);
	GPUDP_TEST_ASSERT(gpudp_pool_destroy(busy) == 0, "destroy busy");
	gpudp_test_fakepin_ctx_get(ctx[0], &f0);
	GPUDP_TEST_ASSERT(f0.live == 0 && gpu_stats(0).regions == 0,
			  "GPU 0: %u pins left after its last pool", f0.live);
	GPUDP_TEST_ASSERT(gpudp_mem_pin_gpu_release(gpu[1]) == s1.regions, "release GPU 1");
	GPUDP_TEST_ASSERT(gpudp_test_fakepin_live() == 0 && gpu_stats(1).regions == 0,
			  "%u pins left", gpudp_test_fakepin_live());
	return GPUDP_TEST_PASS;
}

/* the stand-in module's tables as the module built for Tegra makes them */
#define NEED_TEGRA() do { \
	GPUDP_TEST_SKIP_IF(getenv("GPUDP_TEST_FAKEPIN_TEGRA") == NULL, \
			   "the stand-in's Tegra tables are off (GPUDP_TEST_FAKEPIN_TEGRA)"); \
	GPUDP_TEST_SKIP_IF(gpu[0] < 0, "no GPU"); \
} while (0)

#define TEGRA_PAGE 4096u

/* a buffer across two pages of the table, or without a bus address */
static void
mbuf_across_pages(struct rte_mempool *mp, void *arg, void *obj, unsigned int idx)
{
	const struct rte_mbuf *m = obj;

	RTE_SET_USED(mp);
	RTE_SET_USED(idx);
	if (m->buf_iova == RTE_BAD_IOVA ||
	    (m->buf_iova % TEGRA_PAGE) + m->buf_len > TEGRA_PAGE)
		(*(unsigned int *)arg)++;
}

/* 4 KiB pages at scattered bus addresses (the module built for Tegra, on
 * cudaHostAlloc memory): a kmod pool holds every mbuf, no buffer crosses a
 * page, and it takes about one page per buffer, not more */
static int
kmod_pool_on_tegra_pages(void)
{
	struct gpudp_pool_info info;
	struct gpudp_pool *p;
	unsigned int across = 0;

	NEED_TEGRA();
	gpudp_mem_pin_gpu_release(gpu[0]);
	p = pool_on(0, "pg_t0", GPUDP_PIN_KMOD);
	GPUDP_TEST_ASSERT(p != NULL, "pool");
	gpudp_pool_info_get(p, &info);
	rte_mempool_obj_iter(gpudp_pool_mempool(p), mbuf_across_pages, &across);
	printf("    %u mbufs of %u B, %u runs, %u chunks, %zu bytes\n", info.nb_mbufs,
	       info.elt_size, info.extmem_segs, info.chunks, info.gpu_bytes);
	GPUDP_TEST_ASSERT(info.nb_mbufs == NB_MBUF && info.extmem_segs >= NB_MBUF,
			  "%u mbufs in %u runs", info.nb_mbufs, info.extmem_segs);
	GPUDP_TEST_ASSERT(across == 0, "%u buffers across a page or without a bus address",
			  across);
	GPUDP_TEST_ASSERT(info.gpu_bytes <= (size_t)NB_MBUF * TEGRA_PAGE + (64u << 10),
			  "%zu bytes for %u one-page buffers", info.gpu_bytes, NB_MBUF);
	GPUDP_TEST_ASSERT(gpudp_pool_destroy(p) == 0, "destroy");
	gpudp_mem_pin_gpu_release(gpu[0]);
	GPUDP_TEST_ASSERT(gpudp_test_fakepin_live() == 0, "%u pins left",
			  gpudp_test_fakepin_live());
	return GPUDP_TEST_PASS;
}

/* a buffer larger than the table's page cannot be laid out: refused with
 * EINVAL at the first chunk (not after filling the GPU), nothing left */
static int
kmod_pool_refuses_buffers_larger_than_a_tegra_page(void)
{
	struct gpudp_pool_conf conf = {
		.name = "pg_t1", .type = GPUDP_MEM_DEVICE, .gpu_id = gpu[0],
		.nb_mbufs = NB_MBUF, .data_room = 9000 + 128, .socket_id = SOCKET_ID_ANY,
		.pin = GPUDP_PIN_KMOD,
	};
	struct gpudp_gpu_props pr;
	struct gpudp_pool *p;

	NEED_TEGRA();
	p = gpudp_pool_create(&conf);
	GPUDP_TEST_ASSERT(p == NULL && rte_errno == EINVAL, "pool %p, rte_errno %d",
			  (void *)p, rte_errno);
	gpudp_mem_pin_gpu_release(gpu[0]);
	GPUDP_TEST_ASSERT(gpudp_gpu_props_get(gpu[0], &pr) == 0 && pr.n_allocs == 0,
			  "%zu allocations left", pr.n_allocs);
	GPUDP_TEST_ASSERT(gpudp_test_fakepin_live() == 0, "%u pins left",
			  gpudp_test_fakepin_live());
	return GPUDP_TEST_PASS;
}

static const struct gpudp_test_case cases[] = {
	{ "kmod_pins_are_per_gpu", kmod_pins_are_per_gpu },
	{ "dmabuf_attachments_are_per_gpu", dmabuf_attachments_are_per_gpu },
	{ "kmod_lookup_never_returns_another_gpus_region",
	  kmod_lookup_never_returns_another_gpus_region },
	{ "dmabuf_lookup_never_returns_another_gpus_region",
	  dmabuf_lookup_never_returns_another_gpus_region },
	{ "release_drops_one_gpus_pins_only", release_drops_one_gpus_pins_only },
	{ "kmod_pool_on_tegra_pages", kmod_pool_on_tegra_pages },
	{ "kmod_pool_refuses_buffers_larger_than_a_tegra_page",
	  kmod_pool_refuses_buffers_larger_than_a_tegra_page },
	{ NULL, NULL },
};

int
main(int argc, char **argv)
{
	char *eal_argv[] = {
		argv[0], "-l", "0", "--no-huge", "-m", "512", "--no-shconf", "--no-pci",
		"--log-level=*:warning", NULL,
	};
	struct gpudp_gpu_props pr;
	int16_t id;
	int rc;

	if (rte_eal_init(RTE_DIM(eal_argv) - 1, eal_argv) < 0) {
		fprintf(stderr, "EAL init failed: %s\n", strerror(rte_errno));
		return 1;
	}
	gpudp_gpu_probe_all();
	RTE_GPU_FOREACH(id) {
		if (gpudp_gpu_props_get(id, &pr) != 0 || pr.is_child || pr.cuda_ordinal < 0 ||
		    pr.cuda_ordinal > 1)
			continue;
		gpu[pr.cuda_ordinal] = id;
		ctx[pr.cuda_ordinal] = pr.context;
	}
	if (gpu[0] < 0 || gpu[1] < 0) {
		gpu[1] = -1;
		fprintf(stderr, "    fewer than two GPUs (%u gpudev devices): %s\n",
			rte_gpu_count_avail(), gpudp_cuda_init() == 0 ? "CUDA up" :
			gpudp_cuda_last_error());
	}
	rc = gpudp_test_run("pin_gpus", cases, argc, argv);
	rte_eal_cleanup();
	return rc;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* gpudev driver cases: memory (alloc, free, register, CPU mapping), wmb, child contexts, concurrency (test_gpu_gpudev). */
#include "gpudev_test.h"

int
alloc_is_64k_aligned_with_sync_memops(void)
{
	static const size_t sizes[] = { 1, 1000, 64 * KIB + 1, 3 * MIB, 64 * MIB };
	static const unsigned int aligns[] = { 0, 4096, 64 * KIB, 1 << 20, 1 << 21 };
	struct gpudp_gpu_props pr;
	size_t i, j, live0;
	uint64_t sync;
	void *p;

	NEED_GPU();
	GPUDP_TEST_ASSERT(gpudp_gpu_props_get(0, &pr) == 0, "props");
	live0 = pr.n_allocs;
	for (i = 0; i < RTE_DIM(sizes); i++) {
		for (j = 0; j < RTE_DIM(aligns); j++) {
			uint64_t a = aligns[j] > 64 * KIB ? aligns[j] : 64 * KIB;

			p = rte_gpu_mem_alloc(0, sizes[i], aligns[j]);
			GPUDP_TEST_ASSERT(p != NULL, "alloc(%zu, %u): %s", sizes[i],
					  aligns[j], rte_strerror(rte_errno));
			GPUDP_TEST_ASSERT((uintptr_t)p % a == 0, "%p not %" PRIu64 "-aligned",
					  p, a);
			sync = 0;
			CU_OK(gpudp_cu->cuPointerGetAttribute(&sync,
				CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, (CUdeviceptr)(uintptr_t)p));
			GPUDP_TEST_ASSERT(sync != 0, "SYNC_MEMOPS not set on %p", p);
			GPUDP_TEST_ASSERT(gpudp_gpu_props_get(0, &pr) == 0 &&
					  pr.n_allocs == live0 + 1, "table has %zu", pr.n_allocs);
			GPUDP_TEST_ASSERT(rte_gpu_mem_free(0, p) == 0, "free %p", p);
		}
	}
	return GPUDP_TEST_PASS;
}

/* Every byte of the 64 KiB-rounded buffer is usable and distinct buffers
 * do not overlap. */
int
alloc_memory_round_trips(void)
{
	enum { NB = 4 };
	size_t sz[NB] = { 4096, 64 * KIB, 1 * MIB + 3, 8 * MIB };
	uint8_t *host = malloc(8 * MIB + 64 * KIB);
	void *p[NB];
	size_t i, k;

	NEED_GPU();
	GPUDP_TEST_ASSERT(host != NULL, "malloc");
	for (i = 0; i < NB; i++) {
		p[i] = rte_gpu_mem_alloc(0, sz[i], 0);
		GPUDP_TEST_ASSERT(p[i] != NULL, "alloc %zu", sz[i]);
		CU_OK(gpudp_cu->cuMemsetD8((CUdeviceptr)(uintptr_t)p[i], (unsigned char)(0x10 + i),
			RTE_ALIGN_CEIL(sz[i], 64 * KIB)));
	}
	for (i = 0; i < NB; i++) {
		CU_OK(gpudp_cu->cuMemcpyDtoH(host, (CUdeviceptr)(uintptr_t)p[i], sz[i]));
		for (k = 0; k < sz[i]; k++)
			GPUDP_TEST_ASSERT(host[k] == 0x10 + i, "buffer %zu byte %zu is %#x",
					  i, k, host[k]);
		GPUDP_TEST_ASSERT(rte_gpu_mem_free(0, p[i]) == 0, "free");
	}
	free(host);
	return GPUDP_TEST_PASS;
}

int
double_free_fails(void)
{
	void *p;

	NEED_GPU();
	p = rte_gpu_mem_alloc(0, 4096, 0);
	GPUDP_TEST_ASSERT(p != NULL, "alloc");
	GPUDP_TEST_ASSERT(rte_gpu_mem_free(0, p) == 0, "first free");
	GPUDP_TEST_ASSERT(rte_gpu_mem_free(0, p) < 0, "second free succeeded");
	GPUDP_TEST_ASSERT(rte_errno == EPERM, "rte_errno %d", rte_errno);
	/* the driver is still healthy */
	p = rte_gpu_mem_alloc(0, 4096, 0);
	GPUDP_TEST_ASSERT(p != NULL && rte_gpu_mem_free(0, p) == 0, "alloc after");
	return GPUDP_TEST_PASS;
}

int
free_of_foreign_pointer_fails(void)
{
	CUdeviceptr mine = 0;
	int stack_var = 0;
	void *p;

	NEED_GPU();
	p = rte_gpu_mem_alloc(0, 1 << 20, 0);
	GPUDP_TEST_ASSERT(p != NULL, "alloc");
	GPUDP_TEST_ASSERT(rte_gpu_mem_free(0, (uint8_t *)p + 0x700) < 0,
			  "interior pointer freed");
	GPUDP_TEST_ASSERT(rte_gpu_mem_free(0, &stack_var) < 0, "stack pointer freed");
	GPUDP_TEST_ASSERT(rte_gpu_mem_free(0, (void *)(uintptr_t)0x1000) < 0,
			  "made-up pointer freed");
	/* CUDA memory that gpudev did not allocate stays allocated */
	CU_OK(gpudp_cu->cuMemAlloc(&mine, 1 << 20));
	GPUDP_TEST_ASSERT(rte_gpu_mem_free(0, (void *)(uintptr_t)mine) < 0,
			  "a cuMemAlloc pointer of the application was freed");
	CU_OK(gpudp_cu->cuMemsetD8(mine, 1, 1 << 20));
	CU_OK(gpudp_cu->cuMemFree(mine));
	/* the real buffer is intact and still ours */
	CU_OK(gpudp_cu->cuMemsetD8((CUdeviceptr)(uintptr_t)p, 2, 1 << 20));
	GPUDP_TEST_ASSERT(rte_gpu_mem_free(0, p) == 0, "free");
	return GPUDP_TEST_PASS;
}

int
alloc_larger_than_memory_fails(void)
{
	size_t free_b = 0, total = 0, ask;
	volatile size_t huge;
	void *p;

	NEED_GPU();
	CU_OK(gpudp_cu->cuMemGetInfo(&free_b, &total));
	p = rte_gpu_mem_alloc(0, total + 64 * KIB, 0);
	GPUDP_TEST_ASSERT(p == NULL, "allocated more than the GPU has");
	GPUDP_TEST_ASSERT(rte_errno == E2BIG, "rte_errno %d, want E2BIG", rte_errno);
	ask = RTE_ALIGN_CEIL(free_b + (total - free_b) / 2, 64 * KIB);
	if (ask > free_b && ask <= total) {
		p = rte_gpu_mem_alloc(0, ask, 0);
		GPUDP_TEST_ASSERT(p == NULL, "allocated %zu with %zu free", ask, free_b);
		GPUDP_TEST_ASSERT(rte_errno == ENOMEM, "rte_errno %d, want ENOMEM", rte_errno);
	}
	huge = SIZE_MAX - 4096; /* volatile: hidden from -Walloc-size-larger-than */
	GPUDP_TEST_ASSERT(rte_gpu_mem_alloc(0, huge, 0) == NULL &&
			  rte_errno == E2BIG, "SIZE_MAX-ish size");
	p = rte_gpu_mem_alloc(0, 1 << 20, 0);
	GPUDP_TEST_ASSERT(p != NULL && rte_gpu_mem_free(0, p) == 0, "alloc after");
	return GPUDP_TEST_PASS;
}

int
register_host_memory_gpu_writes_it(void)
{
	const size_t n = 2 * MIB;
	CUdeviceptr dp = 0;
	unsigned int mt = 0;
	uint8_t *h = NULL;
	size_t k;

	NEED_GPU();
	GPUDP_TEST_ASSERT(posix_memalign((void **)&h, 4096, n) == 0, "posix_memalign");
	memset(h, 0, n);
	GPUDP_TEST_ASSERT(rte_gpu_mem_register(0, n, h) == 0, "register");
	CU_OK(gpudp_cu->cuPointerGetAttribute(&mt, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
					      (CUdeviceptr)(uintptr_t)h));
	GPUDP_TEST_ASSERT(mt == CU_MEMORYTYPE_HOST, "memory type %u", mt);
	CU_OK(gpudp_cu->cuMemHostGetDevicePointer(&dp, h, 0));
	CU_OK(gpudp_cu->cuMemsetD8(dp, 0x5a, n));
	CU_OK(gpudp_cu->cuCtxSynchronize());
	for (k = 0; k < n; k++)
		GPUDP_TEST_ASSERT(h[k] == 0x5a, "byte %zu is %#x after a GPU memset", k, h[k]);
	GPUDP_TEST_ASSERT(rte_gpu_mem_unregister(0, h) == 0, "unregister");
	/* rte_malloc memory too, as gpudev's comm list uses */
	{
		void *r = rte_zmalloc(NULL, 10000, 0);

		GPUDP_TEST_ASSERT(r != NULL, "rte_zmalloc");
		GPUDP_TEST_ASSERT(rte_gpu_mem_register(0, 10000, r) == 0, "register rte_zmalloc");
		GPUDP_TEST_ASSERT(rte_gpu_mem_unregister(0, r) == 0, "unregister rte_zmalloc");
		rte_free(r);
	}
	free(h);
	return GPUDP_TEST_PASS;
}

/* gpudev's comm list registers many small rte_zmalloc objects that share
 * pages; CUDA must accept byte-disjoint ranges on one page. */
int
register_ranges_sharing_a_page(void)
{
	uint8_t *h = NULL;

	NEED_GPU();
	GPUDP_TEST_ASSERT(posix_memalign((void **)&h, 4096, 8192) == 0, "posix_memalign");
	GPUDP_TEST_ASSERT(rte_gpu_mem_register(0, 1000, h) == 0, "first range");
	GPUDP_TEST_ASSERT(rte_gpu_mem_register(0, 1000, h + 1024) == 0,
			  "second range on the same page refused");
	GPUDP_TEST_ASSERT(rte_gpu_mem_register(0, 4096, h + 2048) == 0,
			  "range across the page boundary refused");
	GPUDP_TEST_ASSERT(rte_gpu_mem_unregister(0, h + 1024) == 0, "unregister 2");
	GPUDP_TEST_ASSERT(rte_gpu_mem_unregister(0, h) == 0, "unregister 1");
	GPUDP_TEST_ASSERT(rte_gpu_mem_unregister(0, h + 2048) == 0, "unregister 3");
	free(h);
	return GPUDP_TEST_PASS;
}

int
unregister_of_unknown_fails(void)
{
	void *h = malloc(65536), *g;

	NEED_GPU();
	GPUDP_TEST_ASSERT(h != NULL, "malloc");
	GPUDP_TEST_ASSERT(rte_gpu_mem_unregister(0, h) < 0, "never registered");
	GPUDP_TEST_ASSERT(rte_gpu_mem_register(0, 65536, h) == 0, "register");
	GPUDP_TEST_ASSERT(rte_gpu_mem_unregister(0, (uint8_t *)h + 0x700) < 0, "interior");
	GPUDP_TEST_ASSERT(rte_gpu_mem_free(0, h) < 0, "free of a registration");
	GPUDP_TEST_ASSERT(rte_gpu_mem_unregister(0, h) == 0, "unregister");
	GPUDP_TEST_ASSERT(rte_gpu_mem_unregister(0, h) < 0, "second unregister");
	g = rte_gpu_mem_alloc(0, 4096, 0);
	GPUDP_TEST_ASSERT(g != NULL, "alloc");
	GPUDP_TEST_ASSERT(rte_gpu_mem_unregister(0, g) < 0, "unregister of GPU memory");
	GPUDP_TEST_ASSERT(rte_gpu_mem_free(0, g) == 0, "free");
	free(h);
	return GPUDP_TEST_PASS;
}

int
register_of_gpu_pointer_fails(void)
{
	CUdeviceptr mine = 0;
	void *g;

	NEED_GPU();
	g = rte_gpu_mem_alloc(0, 1 << 20, 0);
	GPUDP_TEST_ASSERT(g != NULL, "alloc");
	GPUDP_TEST_ASSERT(rte_gpu_mem_register(0, 1 << 20, g) < 0,
			  "registered GPU memory as host memory");
	GPUDP_TEST_ASSERT(rte_errno == EPERM, "rte_errno %d", rte_errno);
	CU_OK(gpudp_cu->cuMemAlloc(&mine, 1 << 20));
	GPUDP_TEST_ASSERT(rte_gpu_mem_register(0, 1 << 20, (void *)(uintptr_t)mine) < 0,
			  "registered the application's cuMemAlloc memory");
	CU_OK(gpudp_cu->cuMemFree(mine));
	GPUDP_TEST_ASSERT(rte_gpu_mem_free(0, g) == 0, "free still works");
	return GPUDP_TEST_PASS;
}

int
register_twice_fails(void)
{
	void *h = NULL;
	struct gpudp_gpu_props pr;

	NEED_GPU();
	GPUDP_TEST_ASSERT(posix_memalign(&h, 4096, 1 << 20) == 0, "posix_memalign");
	GPUDP_TEST_ASSERT(rte_gpu_mem_register(0, 1 << 20, h) == 0, "register");
	GPUDP_TEST_ASSERT(rte_gpu_mem_register(0, 1 << 20, h) < 0, "registered twice");
	GPUDP_TEST_ASSERT(gpudp_gpu_props_get(0, &pr) == 0 && pr.n_registered == 1,
			  "%zu registrations", pr.n_registered);
	GPUDP_TEST_ASSERT(rte_gpu_mem_unregister(0, h) == 0, "unregister");
	free(h);
	return GPUDP_TEST_PASS;
}

int
cpu_map_fails_cleanly_without_pin_module(void)
{
	char why[160];
	void *g, *m;

	NEED_GPU();
	GPUDP_TEST_SKIP_IF(gpu0_integrated(), "an integrated GPU maps its buffers without "
			   "gpudp_pin (igpu_cpu_map_is_the_host_pointer_without_pin_module)");
	GPUDP_TEST_SKIP_IF(gpudp_gpu_cpu_map_available(why, sizeof(why)) == 0,
			   "gpudp_pin is available here");
	printf("    cpu_map unavailable: %s\n", why);
	g = rte_gpu_mem_alloc(0, 4096, 0);
	GPUDP_TEST_ASSERT(g != NULL, "alloc");
	m = rte_gpu_mem_cpu_map(0, 4096, g);
	GPUDP_TEST_ASSERT(m == NULL, "cpu_map returned %p", m);
	GPUDP_TEST_ASSERT(rte_gpu_mem_cpu_unmap(0, g) < 0, "unmap of an unmapped buffer");
	GPUDP_TEST_ASSERT(rte_gpu_mem_free(0, g) == 0, "free");
	return GPUDP_TEST_PASS;
}

int
cpu_map_round_trip(void)
{
	char why[160];
	uint8_t buf[4096];
	volatile uint8_t *m;
	void *g;
	size_t k;

	NEED_GPU();
	GPUDP_TEST_SKIP_IF(gpudp_gpu_cpu_map_available(why, sizeof(why)) != 0,
			   "needs gpudp_pin: %s", why);
	g = rte_gpu_mem_alloc(0, 1 << 20, 0);
	GPUDP_TEST_ASSERT(g != NULL, "alloc");
	CU_OK(gpudp_cu->cuMemsetD8((CUdeviceptr)(uintptr_t)g, 0x33, 1 << 20));
	m = rte_gpu_mem_cpu_map(0, 1 << 20, g);
	GPUDP_TEST_ASSERT(m != NULL, "cpu_map: %s", rte_strerror(rte_errno));
	GPUDP_TEST_ASSERT(m[100] == 0x33, "CPU reads %#x", m[100]);
	for (k = 0; k < sizeof(buf); k++)
		m[k] = (uint8_t)k;
	rte_wmb();
	CU_OK(gpudp_cu->cuMemcpyDtoH(buf, (CUdeviceptr)(uintptr_t)g, sizeof(buf)));
	for (k = 0; k < sizeof(buf); k++)
		GPUDP_TEST_ASSERT(buf[k] == (uint8_t)k, "GPU sees %#x at %zu", buf[k], k);
	GPUDP_TEST_ASSERT(rte_gpu_mem_cpu_map(0, 1 << 20, g) == NULL, "mapped twice");
	GPUDP_TEST_ASSERT(rte_gpu_mem_cpu_unmap(0, g) == 0, "unmap");
	GPUDP_TEST_ASSERT(rte_gpu_mem_cpu_unmap(0, g) < 0, "second unmap");
	GPUDP_TEST_ASSERT(rte_gpu_mem_free(0, g) == 0, "free");
	return GPUDP_TEST_PASS;
}

int
wmb_succeeds(void)
{
	struct gpudp_gpu_props pr;
	int i;

	NEED_GPU();
	GPUDP_TEST_ASSERT(gpudp_gpu_props_get(0, &pr) == 0, "props");
	for (i = 0; i < 1000; i++)
		GPUDP_TEST_ASSERT(rte_gpu_wmb(0) == 0, "wmb %d: %s", i, rte_strerror(rte_errno));
	/* the rule of NVIDIA's "GPUDirect RDMA", "Synchronization and Memory Ordering" */
	GPUDP_TEST_ASSERT(pr.wmb_flushes == (pr.gdr_writes_ordering <
			  CU_GPU_DIRECT_RDMA_WRITES_ORDERING_OWNER),
			  "wmb_flushes %d with ordering %d", pr.wmb_flushes,
			  pr.gdr_writes_ordering);
	return GPUDP_TEST_PASS;
}

int
child_context_is_own_device(void)
{
	struct gpudp_gpu_props pr;
	struct rte_gpu_info info;
	CUcontext c = NULL, owner = NULL;
	int16_t child, plain;
	void *p, *q;

	NEED_GPU();
	CU_OK(gpudp_cu->cuCtxCreate(&c, 0, cu_dev0));
	CU_OK(gpudp_cu->cuCtxSetCurrent(ctx0));
	child = gpudp_gpu_add_child("gpudp_test_child", 0, (uint64_t)(uintptr_t)c);
	GPUDP_TEST_ASSERT(child > 0, "add_child: %d", child);
	GPUDP_TEST_ASSERT(rte_gpu_info_get(child, &info) == 0 && info.parent == 0,
			  "child's parent");
	GPUDP_TEST_ASSERT(gpudp_gpu_props_get(child, &pr) == 0 && pr.is_child &&
			  pr.context == (uint64_t)(uintptr_t)c, "child props");
	p = rte_gpu_mem_alloc(child, 1 << 20, 0);
	GPUDP_TEST_ASSERT(p != NULL, "alloc on child");
	CU_OK(gpudp_cu->cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_CONTEXT,
					      (CUdeviceptr)(uintptr_t)p));
	GPUDP_TEST_ASSERT(owner == c, "child's buffer belongs to context %p, not %p",
			  (void *)owner, (void *)c);
	GPUDP_TEST_ASSERT(rte_gpu_mem_free(0, p) < 0, "parent freed the child's buffer");
	GPUDP_TEST_ASSERT(rte_gpu_close(0) < 0, "closed the parent under its child");
	GPUDP_TEST_ASSERT(rte_gpu_is_valid(0), "parent gone after refused close");
	q = rte_gpu_mem_alloc(0, 4096, 0);
	GPUDP_TEST_ASSERT(q != NULL && rte_gpu_mem_free(0, q) == 0, "parent still works");
	/* a child added with plain rte_gpu_add_child gets the ops from probe_all */
	plain = rte_gpu_add_child("gpudp_test_plain", 0, (uint64_t)(uintptr_t)c);
	GPUDP_TEST_ASSERT(plain > 0, "rte_gpu_add_child: %d", plain);
	GPUDP_TEST_ASSERT(rte_gpu_mem_alloc(plain, 4096, 0) == NULL, "ops before adoption?");
	GPUDP_TEST_ASSERT(gpudp_gpu_probe_all() == n_cuda, "probe_all");
	q = rte_gpu_mem_alloc(plain, 4096, 0);
	GPUDP_TEST_ASSERT(q != NULL, "alloc on adopted child: %s", rte_strerror(rte_errno));
	/* the child's close releases what it still holds */
	GPUDP_TEST_ASSERT(rte_gpu_close(plain) == 0, "close plain child");
	GPUDP_TEST_ASSERT(rte_gpu_mem_free(child, p) == 0, "free on child");
	GPUDP_TEST_ASSERT(rte_gpu_close(child) == 0, "close child");
	GPUDP_TEST_ASSERT(rte_gpu_count_avail() == (unsigned int)n_cuda, "count %u",
			  rte_gpu_count_avail());
	CU_OK(gpudp_cu->cuCtxDestroy(c));
	CU_OK(gpudp_cu->cuCtxSetCurrent(ctx0));
	/* a context of no GPU of ours is refused */
	GPUDP_TEST_ASSERT(gpudp_gpu_add_child("gpudp_test_bad", 0, 0) < 0,
			  "child without a context");
	GPUDP_TEST_ASSERT(rte_gpu_count_avail() == (unsigned int)n_cuda, "count after bad");
	return GPUDP_TEST_PASS;
}

/* Several lcores allocate and free at once; each tags its buffers in GPU
 * memory and checks the tag before freeing. Every 16th free is tried a
 * second time (which must fail) once all lcores are done: while another
 * lcore allocates, the address just freed may already be its new live
 * buffer, which a second free would rightly release. */
enum { CC_ITERS = 300, CC_LIVE = 8, CC_REFREE = CC_ITERS / 16 + 1 };
atomic_int cc_errors, cc_allocs, cc_double_ok;
/* per lcore: the addresses it freed to free again, and their count */
void *cc_freed[RTE_MAX_LCORE][CC_REFREE];
unsigned int cc_n_freed[RTE_MAX_LCORE];

int
cc_worker(void *arg)
{
	static const unsigned int aligns[] = { 0, 4096, 65536, 1 << 21 };
	unsigned int seed = rte_lcore_id() * 7919u + 1, i, slot, tag;
	unsigned int lc = rte_lcore_id();
	void *live[CC_LIVE] = { NULL };
	uint8_t tags[CC_LIVE], got;
	CUdeviceptr d;

	RTE_SET_USED(arg);
	cc_n_freed[lc] = 0;
	if (gpudp_cu->cuCtxSetCurrent(ctx0) != CUDA_SUCCESS) {
		atomic_fetch_add(&cc_errors, 1);
		return -1;
	}
	for (i = 0; i < CC_ITERS; i++) {
		slot = (unsigned int)rand_r(&seed) % CC_LIVE;
		if (live[slot] != NULL) {
			d = (CUdeviceptr)(uintptr_t)live[slot];
			if (gpudp_cu->cuMemcpyDtoH(&got, d, 1) != CUDA_SUCCESS ||
			    got != tags[slot])
				atomic_fetch_add(&cc_errors, 1);
			if (rte_gpu_mem_free(0, live[slot]) != 0)
				atomic_fetch_add(&cc_errors, 1);
			if (i % 16 == 0 && cc_n_freed[lc] < CC_REFREE)
				cc_freed[lc][cc_n_freed[lc]++] = live[slot];
			live[slot] = NULL;
		}
		live[slot] = rte_gpu_mem_alloc(0, 1 + (size_t)rand_r(&seed) % (256 * KIB),
					       aligns[rand_r(&seed) % 4]);
		if (live[slot] == NULL) {
			atomic_fetch_add(&cc_errors, 1);
			continue;
		}
		atomic_fetch_add(&cc_allocs, 1);
		tag = (rte_lcore_id() * 31 + i) & 0xff;
		tags[slot] = (uint8_t)tag;
		if (gpudp_cu->cuMemsetD8((CUdeviceptr)(uintptr_t)live[slot],
					 (unsigned char)tag, 1) != CUDA_SUCCESS)
			atomic_fetch_add(&cc_errors, 1);
	}
	for (slot = 0; slot < CC_LIVE; slot++)
		if (live[slot] != NULL && rte_gpu_mem_free(0, live[slot]) != 0)
			atomic_fetch_add(&cc_errors, 1);
	return 0;
}

int
concurrent_alloc_free_on_lcores(void)
{
	struct gpudp_gpu_props pr;
	unsigned int lc, k;
	size_t live0;
	uint64_t t0;

	NEED_GPU();
	GPUDP_TEST_SKIP_IF(rte_lcore_count() < 2, "one lcore only");
	GPUDP_TEST_ASSERT(gpudp_gpu_props_get(0, &pr) == 0, "props");
	live0 = pr.n_allocs;
	t0 = now_ns();
	/* the deliberate double frees would log one line each */
	rte_log_set_level_pattern("gpudp.gpu", RTE_LOG_CRIT);
	rte_eal_mp_remote_launch(cc_worker, NULL, CALL_MAIN);
	rte_eal_mp_wait_lcore();
	/* every buffer of the workers is freed: none of these addresses is live */
	RTE_LCORE_FOREACH(lc)
		for (k = 0; k < cc_n_freed[lc]; k++)
			if (rte_gpu_mem_free(0, cc_freed[lc][k]) == 0)
				atomic_fetch_add(&cc_double_ok, 1);
	rte_log_set_level_pattern("gpudp.gpu", RTE_LOG_INFO);
	CU_OK(gpudp_cu->cuCtxSetCurrent(ctx0));
	printf("    %u lcores, %d allocations in %.1f ms\n", rte_lcore_count(),
	       atomic_load(&cc_allocs), (double)(now_ns() - t0) / 1e6);
	GPUDP_TEST_ASSERT(atomic_load(&cc_errors) == 0, "%d errors",
			  atomic_load(&cc_errors));
	GPUDP_TEST_ASSERT(atomic_load(&cc_double_ok) == 0, "%d double frees succeeded",
			  atomic_load(&cc_double_ok));
	GPUDP_TEST_ASSERT(atomic_load(&cc_allocs) == (int)(CC_ITERS * rte_lcore_count()),
			  "%d allocations", atomic_load(&cc_allocs));
	GPUDP_TEST_ASSERT(gpudp_gpu_props_get(0, &pr) == 0 && pr.n_allocs == live0,
			  "%zu buffers left, %zu before", pr.n_allocs, live0);
	return GPUDP_TEST_PASS;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* The e2e guest's simulated GPU memory for lib/mem: see e2e_gpu.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <rte_atomic.h>
#include <rte_errno.h>

#include <gpudp_pin_client.h>

#include "e2e_gpu.h"
#include "e2e_sim.h"

#define MAX_ALLOCS 16

/* One allocation: the memory lib/mem asked for, and our CPU mapping of it. */
struct gpu_alloc {
	uint64_t va;
	uint64_t len;
	bool allocated;		/* by us from the simulator (not adopted) */
	struct gpudp_pin_pin pin;
	uint64_t *iova;		/* the CPU mapping's page table */
	uint32_t entries;
	uint32_t page_size;
	uint8_t *cpu;
};

struct e2e_gpu {
	struct e2e_gpu_conf conf;
	struct gpudp_mem_allocator alloc;
	int sim_fd;
	int pin_fd;
	uint64_t adopt_next;	/* bump pointer into the adopted allocation */
	struct gpu_alloc a[MAX_ALLOCS];
	unsigned int n;
};

static const struct gpu_alloc *
gpu_find(const struct e2e_gpu *g, uint64_t va)
{
	unsigned int i;

	for (i = 0; i < g->n; i++)
		if (va >= g->a[i].va && va - g->a[i].va < g->a[i].len)
			return &g->a[i];
	return NULL;
}

/* Unmap, unpin and (if ours) free @a; *@err: the simulator's answer. */
static void
gpu_release(struct e2e_gpu *g, struct gpu_alloc *a, int *err)
{
	struct gpudp_pin_query q;
	bool revoked = false;
	int ret = 0;

	if (a->pin.handle != 0) {
		revoked = gpudp_pin_query(g->pin_fd, a->pin.handle, &q) == 0 &&
			  q.state == GPUDP_PIN_STATE_REVOKED;
		if (a->cpu != NULL)
			munmap(a->cpu, a->len);
		gpudp_pin_unpin(g->pin_fd, a->pin.handle);
	}
	/* Revoked: somebody freed it already (the fault test does). */
	if (a->allocated && !revoked)
		ret = e2e_sim_free(g->sim_fd, a->va);
	free(a->iova);
	*a = g->a[--g->n];	/* keep the array dense */
	memset(&g->a[g->n], 0, sizeof(g->a[g->n]));
	if (err != NULL)
		*err = ret;
}

/* Pin @a for ourselves, read its page table, map it for the CPU. */
static int
gpu_map(struct e2e_gpu *g, struct gpu_alloc *a)
{
	int flags = MAP_SHARED, ret;
	void *want = NULL, *m;

	ret = gpudp_pin_pin(g->pin_fd, a->va, a->len, GPUDP_PIN_F_STRICT, &a->pin);
	if (ret == 0)
		ret = gpudp_pin_get_table(g->pin_fd, a->pin.handle, NULL, 0,
					  &a->entries, &a->page_size);
	if (ret == 0 && (uint64_t)a->entries * a->page_size != a->len)
		ret = -EPROTO;
	if (ret == 0) {
		a->iova = calloc(a->entries, sizeof(*a->iova));
		ret = a->iova == NULL ? -ENOMEM :
		      gpudp_pin_get_table(g->pin_fd, a->pin.handle, a->iova,
					  a->entries, NULL, NULL);
	}
	if (ret < 0)
		return ret;
	if (g->conf.uva) {
		want = (void *)(uintptr_t)a->va;
		flags |= MAP_FIXED_NOREPLACE;
	}
	m = mmap(want, a->len, PROT_READ | PROT_WRITE, flags, g->pin_fd,
		 (off_t)a->pin.mmap_offset);
	if (m == MAP_FAILED)
		return -errno;
	if (want != NULL && m != want) {	/* kernels before 4.17 */
		munmap(m, a->len);
		return -EEXIST;
	}
	a->cpu = m;
	return 0;
}

static void *
gpu_alloc(void *ctx, size_t len, size_t align)
{
	struct e2e_gpu *g = ctx;
	struct gpu_alloc *a;
	int ret;

	if (g->n == MAX_ALLOCS) {
		rte_errno = ENOSPC;
		return NULL;
	}
	if (align > GPUDP_PIN_GPU_PAGE_SIZE || len == 0 ||
	    len % GPUDP_PIN_GPU_PAGE_SIZE != 0) {
		rte_errno = EINVAL;
		return NULL;
	}
	a = &g->a[g->n];
	memset(a, 0, sizeof(*a));
	if (g->conf.adopt_va != 0) {
		if (len > g->conf.adopt_len - g->adopt_next) {
			rte_errno = ENOSPC;
			return NULL;
		}
		a->va = g->conf.adopt_va + g->adopt_next;
		g->adopt_next += len;
	} else {
		ret = e2e_sim_alloc(g->sim_fd, len, &a->va);
		if (ret < 0) {
			rte_errno = -ret;
			return NULL;
		}
		a->allocated = true;
	}
	a->len = len;
	g->n++;
	ret = gpu_map(g, a);
	if (ret < 0) {
		fprintf(stderr, "e2e_gpu: mapping GPU memory at 0x%" PRIx64 " (%zu bytes): %s\n",
			a->va, len, strerror(-ret));
		gpu_release(g, a, NULL);
		rte_errno = -ret;
		return NULL;
	}
	return (void *)(uintptr_t)a->va;
}

/* The allocator's dma-buf export (lib/mem's dmabuf backend). */
static int
gpu_export(void *ctx, void *ptr, size_t len)
{
	struct e2e_gpu *g = ctx;

	return e2e_sim_export_dmabuf(g->sim_fd, (uintptr_t)ptr, len);
}

static int
gpu_free(void *ctx, void *ptr)
{
	struct e2e_gpu *g = ctx;
	unsigned int i;
	int ret;

	for (i = 0; i < g->n; i++) {
		if (g->a[i].va == (uintptr_t)ptr) {
			gpu_release(g, &g->a[i], &ret);
			return ret;
		}
	}
	return -EINVAL;
}

struct e2e_gpu *
e2e_gpu_open(const struct e2e_gpu_conf *conf)
{
	struct e2e_gpu *g = calloc(1, sizeof(*g));
	int ret;

	if (g == NULL)
		return NULL;
	g->conf = *conf;
	g->alloc = (struct gpudp_mem_allocator){
		.name = "nvidia_p2p_sim", .alloc = gpu_alloc, .free = gpu_free, .ctx = g,
		.export_dmabuf = gpu_export,
	};
	g->pin_fd = -1;
	g->sim_fd = e2e_sim_open();
	if (g->sim_fd < 0) {
		ret = g->sim_fd;
		free(g);
		errno = -ret;
		return NULL;
	}
	ret = gpudp_pin_open(NULL);
	if (ret < 0) {
		close(g->sim_fd);
		free(g);
		errno = -ret;
		return NULL;
	}
	g->pin_fd = ret;
	return g;
}

const struct gpudp_mem_allocator *
e2e_gpu_allocator(struct e2e_gpu *g)
{
	return &g->alloc;
}

unsigned int
e2e_gpu_allocations(const struct e2e_gpu *g, uint64_t *va, uint64_t *len,
		    unsigned int max)
{
	unsigned int i;

	for (i = 0; i < g->n && i < max; i++) {
		va[i] = g->a[i].va;
		len[i] = g->a[i].len;
	}
	return g->n;
}

void *
e2e_gpu_cpu_ptr(const struct e2e_gpu *g, const void *va)
{
	const struct gpu_alloc *a = gpu_find(g, (uintptr_t)va);

	return a == NULL ? NULL : a->cpu + ((uintptr_t)va - a->va);
}

int
e2e_gpu_iova(const struct e2e_gpu *g, const void *va, uint64_t *iova)
{
	const struct gpu_alloc *a = gpu_find(g, (uintptr_t)va);
	uint64_t off;

	if (a == NULL)
		return -ERANGE;
	off = (uintptr_t)va - a->va;
	*iova = a->iova[off / a->page_size] + off % a->page_size;
	return 0;
}

int
e2e_gpu_peek(const struct e2e_gpu *g, const void *va, uint64_t *value)
{
	return e2e_sim_peek(g->sim_fd, (uintptr_t)va, value);
}

int
e2e_gpu_check_mapping(struct e2e_gpu *g)
{
	unsigned int k;
	uint32_t i;
	int ret;

	for (k = 0; k < g->n; k++) {
		const struct gpu_alloc *a = &g->a[k];

		for (i = 0; i < a->entries; i++) {
			const uint64_t marker = 0xe2e0000000000000ull | (uint64_t)k << 32 | i;
			uint64_t off = (uint64_t)i * a->page_size, back = 0;

			memcpy(a->cpu + off, &marker, sizeof(marker));
			rte_wmb();	/* write-combined: drain before the provider reads */
			ret = e2e_sim_peek(g->sim_fd, a->va + off, &back);
			memset(a->cpu + off, 0, sizeof(marker));
			if (ret < 0)
				return ret;
			if (back != marker) {
				fprintf(stderr, "e2e_gpu: GPU VA 0x%" PRIx64 ": wrote 0x%016" PRIx64
					" through the CPU mapping, provider reads 0x%016" PRIx64 "\n",
					a->va + off, marker, back);
				return -EIO;
			}
		}
	}
	rte_wmb();
	return 0;
}

void
e2e_gpu_close(struct e2e_gpu *g)
{
	if (g == NULL)
		return;
	while (g->n > 0)
		gpu_release(g, &g->a[g->n - 1], NULL);
	gpudp_pin_close(g->pin_fd);
	close(g->sim_fd);
	free(g);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpu_e2e_sim: a TEST-ONLY gpudev driver for the e2e guest, which has no
 * GPU and no CUDA. Its "GPU memory" is the NV-P2P simulator's
 * (test/kmod/sim, through test/e2e/e2e_gpu.c): guest RAM at GPU-like
 * virtual addresses that exist only in the simulator, pinned by lib/mem
 * through the real gpudp_pin module exactly as NVIDIA memory would be.
 *
 * It is linked only into gpudp-capture-e2e (test/e2e/meson.build), never into
 * the product binaries. Instantiate it with `--vdev gpu_e2e_sim0`.
 *
 *   mem_alloc      the simulator's fake cudaMalloc (64 KiB pages); e2e_gpu
 *                  also pins each allocation through its own gpudp_pin
 *                  descriptor and mmap()s it: the CPU view, as gpudp's
 *                  driver builds in its cpu_map (drivers/gpu/gpu_gpudp_cpumap.c)
 *   mem_free       fake cudaFree (runs the free callbacks)
 *   mem_cpu_map    that CPU view of a whole allocation (size at most the
 *                  allocation's, pointer its start), as gpudev requires
 *   mem_cpu_unmap  forgets the mapping (it goes with the allocation)
 *   dev_close      frees what is left and prints one line for the harness:
 *                  "E2E-GPUSIM: close allocs_total=N allocs_live=N cpu_maps_live=N"
 *
 * No mem_register (no pinned host memory), no wmb (the "GPU" is coherent
 * guest RAM).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <bus_vdev_driver.h>
#include <gpudev_driver.h>

#include "e2e_gpu.h"

#define SIM_PAGE ((size_t)64 << 10)
#define SIM_MAX_ALLOCS 16

struct sim_alloc {
	void *va;
	size_t len;
	int cpu_mapped;
};

struct sim_priv {
	struct e2e_gpu *g;
	struct sim_alloc a[SIM_MAX_ALLOCS];
	unsigned int allocs_total;
};

static struct sim_alloc *
sim_find(struct sim_priv *p, const void *va)
{
	unsigned int i;

	if (va == NULL)
		return NULL;
	for (i = 0; i < SIM_MAX_ALLOCS; i++)
		if (p->a[i].va == va)
			return &p->a[i];
	return NULL;
}

static int
sim_mem_alloc(struct rte_gpu *dev, size_t size, unsigned int align, void **ptr)
{
	struct sim_priv *p = dev->process_private;
	const struct gpudp_mem_allocator *al = e2e_gpu_allocator(p->g);
	struct sim_alloc *a = NULL;
	size_t len = RTE_ALIGN_CEIL(size, SIM_PAGE);
	unsigned int i;

	for (i = 0; i < SIM_MAX_ALLOCS && a == NULL; i++)
		if (p->a[i].va == NULL)
			a = &p->a[i];
	if (align > SIM_PAGE)
		return -EINVAL;
	if (a == NULL)
		return -ENOMEM;
	rte_errno = 0;
	a->va = al->alloc(al->ctx, len, SIM_PAGE);
	if (a->va == NULL)
		return rte_errno == ENOMEM || rte_errno == 0 ? -ENOMEM : -rte_errno;
	a->len = len;
	a->cpu_mapped = 0;
	p->allocs_total++;
	*ptr = a->va;
	return 0;
}

static int
sim_mem_free(struct rte_gpu *dev, void *ptr)
{
	struct sim_priv *p = dev->process_private;
	const struct gpudp_mem_allocator *al = e2e_gpu_allocator(p->g);
	struct sim_alloc *a = sim_find(p, ptr);
	int rc;

	if (ptr == NULL || a == NULL)
		return -EINVAL;
	rc = al->free(al->ctx, ptr);
	memset(a, 0, sizeof(*a));
	return rc;
}

static int
sim_mem_cpu_map(struct rte_gpu *dev, size_t size, void *ptr_in, void **ptr_out)
{
	struct sim_priv *p = dev->process_private;
	struct sim_alloc *a = sim_find(p, ptr_in);
	void *cpu;

	if (ptr_in == NULL || a == NULL || size == 0 || size > a->len || a->cpu_mapped)
		return -EINVAL;
	cpu = e2e_gpu_cpu_ptr(p->g, ptr_in);
	if (cpu == NULL)
		return -EIO;
	a->cpu_mapped = 1;
	*ptr_out = cpu;
	return 0;
}

static int
sim_mem_cpu_unmap(struct rte_gpu *dev, void *ptr)
{
	struct sim_priv *p = dev->process_private;
	struct sim_alloc *a = sim_find(p, ptr);

	if (ptr == NULL || a == NULL || !a->cpu_mapped)
		return -EINVAL;
	a->cpu_mapped = 0;
	return 0;
}

static int
sim_dev_close(struct rte_gpu *dev)
{
	struct sim_priv *p = dev->process_private;
	unsigned int i, live = 0, mapped = 0;

	if (p == NULL)
		return 0;
	for (i = 0; i < SIM_MAX_ALLOCS; i++) {
		if (p->a[i].va == NULL)
			continue;
		live++;
		mapped += p->a[i].cpu_mapped;
		sim_mem_free(dev, p->a[i].va);
	}
	printf("E2E-GPUSIM: close allocs_total=%u allocs_live=%u cpu_maps_live=%u\n",
	       p->allocs_total, live, mapped);
	fflush(stdout);
	e2e_gpu_close(p->g);
	free(p);
	dev->process_private = NULL;
	return 0;
}

static int
sim_probe(struct rte_vdev_device *vdev)
{
	const char *name = rte_vdev_device_name(vdev);
	struct e2e_gpu_conf gc = { 0 };
	struct sim_priv *p;
	struct rte_gpu *dev;

	p = calloc(1, sizeof(*p));
	if (p == NULL)
		return -ENOMEM;
	p->g = e2e_gpu_open(&gc);
	if (p->g == NULL) {
		fprintf(stderr, "gpu_e2e_sim: %s: cannot open the NV-P2P simulator and "
			"/dev/gpudp_pin: %s\n", name, strerror(errno));
		free(p);
		return -ENODEV;
	}
	dev = rte_gpu_allocate(name);
	if (dev == NULL) {
		e2e_gpu_close(p->g);
		free(p);
		return -rte_errno;
	}
	dev->device = &vdev->device;
	dev->process_private = p;
	dev->ops.mem_alloc = sim_mem_alloc;
	dev->ops.mem_free = sim_mem_free;
	dev->ops.mem_cpu_map = sim_mem_cpu_map;
	dev->ops.mem_cpu_unmap = sim_mem_cpu_unmap;
	dev->ops.dev_close = sim_dev_close;
	dev->mpshared->info.processor_count = 1;
	dev->mpshared->info.total_memory = (size_t)256 << 20;
	dev->mpshared->info.page_size = SIM_PAGE;
	dev->mpshared->info.numa_node = -1;
	rte_gpu_complete_new(dev);
	printf("E2E-GPUSIM: %s is gpudev device %d (TEST-ONLY, NV-P2P simulator memory)\n",
	       name, dev->mpshared->info.dev_id);
	fflush(stdout);
	return 0;
}

static int
sim_remove(struct rte_vdev_device *vdev)
{
	struct rte_gpu *dev = rte_gpu_get_by_name(rte_vdev_device_name(vdev));

	if (dev == NULL)
		return 0;
	return rte_gpu_close(dev->mpshared->info.dev_id);
}

static struct rte_vdev_driver sim_driver = {
	.probe = sim_probe,
	.remove = sim_remove,
};

RTE_PMD_REGISTER_VDEV(gpu_e2e_sim, sim_driver);

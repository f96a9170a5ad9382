/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A fake libcuda.so.1 for testing the gpudev driver on machines without a
 * GPU: loaded through GPUDP_LIBCUDA, it exports cuGetProcAddress and
 * implements, in host memory, the part of the driver API the gpudev driver
 * and test_gpu_gpudev use: one device "0000:fe:00.0" with 1 GiB, contexts
 * (a per-thread stack), cuMemAlloc (4 KiB aligned, so the driver's 64 KiB
 * re-alignment path runs), SYNC_MEMOPS, pointer attributes, host
 * registration with CUDA's error codes, memcpy/memset, and a flush that
 * needs a current context.
 *
 * Several devices (environment, read once):
 * - GPUDP_FAKE_CUDA_DEVICES=N (1..16, default 1): cuDeviceGetCount says N;
 *   device i is "0000:fe:0i.0" (i in hex), has its own primary context and
 *   its own 1 GiB: allocations and host registrations count against the
 *   device of the context current when they are made.
 * - GPUDP_FAKE_CUDA_PCI=ADDR,... : the devices' PCI addresses instead, in
 *   order (for placement tests on a made-up sysfs tree).
 * - GPUDP_FAKE_CUDA_REPORT=FILE: at exit, one line per device to FILE:
 *   "device I pci ADDR allocs N peak_bytes B left_allocs N left_bytes B
 *   regs N left_regs N" (how many allocations and host registrations were
 *   made on it, and how many were never freed). GPU_DIRECT_RDMA_WRITES_ORDERING is 0 (NONE)
 * with the HOST flush option, so wmb takes the cuFlushGPUDirectRDMAWrites
 * path that the H100/H200 (ordering OWNER) never take.
 *
 * An integrated GPU (environment, read once):
 * - GPUDP_FAKE_CUDA_INTEGRATED=uva: every device is integrated, as a
 *   Jetson's or DRIVE's GPU is (CU_DEVICE_ATTRIBUTE_INTEGRATED 1,
 *   CAN_MAP_HOST_MEMORY 1, UNIFIED_ADDRESSING 1,
 *   CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM 1), named "Fake integrated GPU
 *   (gpudp test)"; cuMemHostAlloc, cuMemHostGetFlags and cuMemFreeHost
 *   work. Each cuMemHostAlloc block is a memfd mapped at the host
 *   pointer; a write-combined block (CUDA's cuMemHostAlloc: used through
 *   the device pointer even with unified addressing), and every block in
 *   devptr mode, is mapped a second time, and cuMemHostGetDevicePointer
 *   returns that address of the same pages; else it returns the host
 *   pointer. Pointer attributes (memory type HOST, SYNC_MEMOPS, context,
 *   host and device pointer) and cuMemGetAddressRange answer for both
 *   addresses. The blocks count against the device's 1 GiB and in the
 *   report ("host_allocs N left_host_allocs N", at the end of the line).
 * - GPUDP_FAKE_CUDA_INTEGRATED=devptr: the same with UNIFIED_ADDRESSING and
 *   CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM 0, so the device pointer of
 *   every block differs from its host pointer.
 *
 * GPU engines (environment, read once):
 * - GPUDP_FAKE_CUDA_ENGINE=1 (any value but "complete"): modules, streams,
 *   events, pinned host memory and async copies, enough for gpudp-capture's
 *   GPU engine to start; every cuLaunchKernel fails
 *   (CUDA_ERROR_LAUNCH_FAILED), for the engine failure tests.
 * - GPUDP_FAKE_CUDA_ENGINE=complete: a FAKE GPU that completes every burst
 *   without analysing it, to time the host side of the GPU engines on a
 *   machine without a GPU (the analysis results are empty: no flow, no
 *   counter; every packet "passes"). The device is named "Fake GPU (gpudp
 *   test, complete: no kernel work)". Launches succeed and touch no packet,
 *   except: gpudp_work_burst (one kernel parameter, struct gpudp_ho_kargs)
 *   stores in the mapped ctl of kargs.slot t_kstart, n_pass = n (kargs.n,
 *   or ctl's n when kargs.n is 0) and t_kend, then, when kargs.signal is
 *   set, done = ctl's seq (release); gpudp_ho_signal stores t_kend and
 *   done the same way (staged mode with CPU copies); gpudp_ho_clock
 *   answers the clock calibration's rounds from a thread of its own
 *   (CLOCK_MONOTONIC, the CPU's clock: the offset comes out near 0), joined
 *   by a synchronize of its stream. gpudp_ho_gather copies nothing, and
 *   gpudp_work_persistent does nothing (persistent mode never completes a
 *   burst); graphs are not supported (cuGraph*: CUDA_ERROR_NOT_SUPPORTED).
 *   cuModuleGetFunction gives one handle per kernel name, streams are
 *   distinct handles, and pinned memory (cuMemAllocHost) is resident once
 *   allocated (its pages written) and has a device pointer
 *   (cuMemHostGetDevicePointer), its own address.
 *
 * Not a model of CUDA's semantics beyond that: a unit of test code only.
 * Any other entry point resolves to a stub returning
 * CUDA_ERROR_NOT_SUPPORTED.
 */
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda.h>

#include "gpudp_handoff_dev.h"
#include "gpudp_work.h"

#undef cuGetProcAddress

#define FAKE_TOTAL   (UINT64_C(1) << 30)
#define FAKE_RESERVE (UINT64_C(64) << 20)   /* "used by the context" */
#define FAKE_DEVS_MAX 16

struct fctx {
	int dev;
};

struct falloc {
	uintptr_t base;
	size_t size;
	unsigned int sync;
	int dev;
	int internal;     /* the fake's own (not reported as left over) */
	CUcontext ctx;
	struct falloc *next;
};

struct freg {
	uintptr_t p;
	size_t n;
	int dev;
	struct freg *next;
};

/* integrated: a cuMemHostAlloc block, its pages at two addresses */
struct fhost {
	uintptr_t h, d;    /* host pointer, device pointer (== h unless aliased) */
	uintptr_t alias;   /* the second mapping of the pages (munmap'ed at free) */
	size_t n;
	unsigned int flags, sync;
	int dev;
	CUcontext ctx;
	struct fhost *next;
};

/* one device: its address and what was allocated on it */
struct fdev {
	char pci[32];
	uint64_t used, peak;
	unsigned int n_allocs, n_regs, n_hallocs;
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct falloc *allocs;
static struct freg *regs;
static struct freg *hosts;   /* complete: cuMemAllocHost's blocks */
static struct fhost *hallocs; /* integrated: cuMemHostAlloc's blocks */
static struct fctx primary[FAKE_DEVS_MAX];
static struct fdev devs[FAKE_DEVS_MAX];
static int n_devs;
static pthread_once_t devs_once = PTHREAD_ONCE_INIT;

/* the devices, from the environment (once) */
static void
devs_read(void)
{
	const char *e = getenv("GPUDP_FAKE_CUDA_DEVICES");
	const char *pci = getenv("GPUDP_FAKE_CUDA_PCI");
	int i;

	n_devs = e != NULL ? atoi(e) : 1;
	if (n_devs < 1)
		n_devs = 1;
	if (n_devs > FAKE_DEVS_MAX)
		n_devs = FAKE_DEVS_MAX;
	for (i = 0; i < n_devs; i++) {
		primary[i].dev = i;
		snprintf(devs[i].pci, sizeof(devs[i].pci), "0000:FE:%02X.0", (unsigned int)i);
	}
	for (i = 0; pci != NULL && *pci != '\0' && i < n_devs; i++) {
		size_t n = strcspn(pci, ",");

		if (n > 0 && n < sizeof(devs[i].pci))
			snprintf(devs[i].pci, sizeof(devs[i].pci), "%.*s", (int)n, pci);
		pci += n;
		if (*pci == ',')
			pci++;
	}
}

/* GPUDP_FAKE_CUDA_INTEGRATED: 0 discrete, 1 uva, 2 devptr (read once) */
static int igpu_mode;
static pthread_once_t igpu_once = PTHREAD_ONCE_INIT;

static void
igpu_read(void)
{
	const char *e = getenv("GPUDP_FAKE_CUDA_INTEGRATED");

	igpu_mode = e == NULL ? 0 : strcmp(e, "uva") == 0 ? 1 : strcmp(e, "devptr") == 0 ? 2 : 0;
}

static int
igpu(void)
{
	pthread_once(&igpu_once, igpu_read);
	return igpu_mode;
}

static int
ndevs(void)
{
	pthread_once(&devs_once, devs_read);
	return n_devs;
}

/* GPUDP_FAKE_CUDA_REPORT: what each device still holds at exit */
static void __attribute__((destructor))
devs_report(void)
{
	const char *path = getenv("GPUDP_FAKE_CUDA_REPORT");
	unsigned int left[FAKE_DEVS_MAX] = { 0 }, lregs[FAKE_DEVS_MAX] = { 0 };
	unsigned int lhost[FAKE_DEVS_MAX] = { 0 };
	struct fhost *h;
	uint64_t lbytes[FAKE_DEVS_MAX] = { 0 };
	struct falloc *a;
	struct freg *r;
	FILE *f;
	int i;

	if (path == NULL || *path == '\0')
		return;
	f = fopen(path, "w");
	if (f == NULL)
		return;
	pthread_mutex_lock(&mu);
	for (a = allocs; a != NULL; a = a->next)
		if (!a->internal) {
			left[a->dev]++;
			lbytes[a->dev] += a->size;
		}
	for (r = regs; r != NULL; r = r->next)
		lregs[r->dev]++;
	for (h = hallocs; h != NULL; h = h->next)
		lhost[h->dev]++;
	for (i = 0; i < ndevs(); i++)
		fprintf(f, "device %d pci %s allocs %u peak_bytes %llu left_allocs %u "
			"left_bytes %llu regs %u left_regs %u host_allocs %u left_host_allocs %u\n",
			i, devs[i].pci, devs[i].n_allocs, (unsigned long long)devs[i].peak, left[i],
			(unsigned long long)lbytes[i], devs[i].n_regs, lregs[i],
			devs[i].n_hallocs, lhost[i]);
	pthread_mutex_unlock(&mu);
	fclose(f);
}
static _Thread_local CUcontext stack[32];
static _Thread_local int depth;

static CUcontext
cur(void)
{
	return depth > 0 ? stack[depth - 1] : NULL;
}

/* caller holds mu */
static struct falloc *
alloc_of(uintptr_t p)
{
	struct falloc *a;

	for (a = allocs; a != NULL; a = a->next)
		if (p >= a->base && p < a->base + a->size)
			return a;
	return NULL;
}

/* the range of @p list that holds @p p, or NULL */
static struct freg *
range_in(struct freg *list, uintptr_t p)
{
	struct freg *r;

	for (r = list; r != NULL; r = r->next)
		if (p >= r->p && p < r->p + r->n)
			return r;
	return NULL;
}

/* caller holds mu; integrated: the cuMemHostAlloc block holding p at
 * either of its addresses, and p's offset in it */
static struct fhost *
halloc_of(uintptr_t p, size_t *off)
{
	struct fhost *h;

	for (h = hallocs; h != NULL; h = h->next) {
		if (p >= h->h && p < h->h + h->n) {
			*off = p - h->h;
			return h;
		}
		if (p >= h->d && p < h->d + h->n) {
			*off = p - h->d;
			return h;
		}
	}
	return NULL;
}

static struct freg *
reg_of(uintptr_t p)
{
	return range_in(regs, p);
}

/* caller holds mu; complete: a block of cuMemAllocHost's */
static struct freg *
host_of(uintptr_t p)
{
	return range_in(hosts, p);
}

static CUresult f_stub(void) { return CUDA_ERROR_NOT_SUPPORTED; }
static CUresult f_cuInit(unsigned int f) { (void)f; return CUDA_SUCCESS; }
static CUresult f_cuDriverGetVersion(int *v) { *v = 13000; return CUDA_SUCCESS; }

static CUresult
f_cuGetErrorString(CUresult r, const char **s)
{
	*s = r == CUDA_ERROR_OUT_OF_MEMORY ? "out of memory (fake)" : "error (fake)";
	return CUDA_SUCCESS;
}

static CUresult
f_cuGetErrorName(CUresult r, const char **s)
{
	*s = r == CUDA_ERROR_OUT_OF_MEMORY ? "CUDA_ERROR_OUT_OF_MEMORY" : "CUDA_ERROR_FAKE";
	return CUDA_SUCCESS;
}

static CUresult f_cuDeviceGetCount(int *n) { *n = ndevs(); return CUDA_SUCCESS; }

static CUresult
f_cuDeviceGet(CUdevice *d, int ord)
{
	if (ord < 0 || ord >= ndevs())
		return CUDA_ERROR_INVALID_DEVICE;
	*d = ord;
	return CUDA_SUCCESS;
}

/* the device of the current context; -1 none */
static int
cur_dev(void)
{
	return cur() != NULL ? ((struct fctx *)(void *)cur())->dev : -1;
}

/* GPUDP_FAKE_CUDA_ENGINE=complete (read once) */
static int complete_mode;
static pthread_once_t complete_once = PTHREAD_ONCE_INIT;

static void
complete_read(void)
{
	const char *e = getenv("GPUDP_FAKE_CUDA_ENGINE");

	complete_mode = e != NULL && strcmp(e, "complete") == 0;
}

static int
complete(void)
{
	pthread_once(&complete_once, complete_read);
	return complete_mode;
}

static CUresult
f_cuDeviceGetName(char *name, int len, CUdevice d)
{
	(void)d;
	snprintf(name, (size_t)len, complete() ?
		 "Fake GPU (gpudp test, complete: no kernel work)" : igpu() ?
		 "Fake integrated GPU (gpudp test)" : "Fake GPU (gpudp test)");
	return CUDA_SUCCESS;
}

static CUresult
f_cuDeviceGetAttribute(int *v, CUdevice_attribute a, CUdevice d)
{
	(void)d;
	switch (a) {
	case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *v = 8; break;
	case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *v = 9; break;
	case CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED: *v = 1; break;
	case CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WRITES_ORDERING: *v = 0; break;
	case CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS: *v = 1; break;
	case CU_DEVICE_ATTRIBUTE_INTEGRATED: *v = igpu() != 0; break;
	case CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY: *v = 1; break;
	case CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING:
	case CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM:
		*v = igpu() == 1;
		break;
#if CUDA_VERSION >= 12020
	case CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID: *v = -1; break;
#endif
	default: *v = 0; break;
	}
	return CUDA_SUCCESS;
}

static CUresult
f_cuDeviceTotalMem(size_t *b, CUdevice d)
{
	if (d < 0 || d >= ndevs())
		return CUDA_ERROR_INVALID_DEVICE;
	*b = FAKE_TOTAL;
	return CUDA_SUCCESS;
}

static CUresult
f_cuDeviceGetPCIBusId(char *s, int len, CUdevice d)
{
	if (d < 0 || d >= ndevs())
		return CUDA_ERROR_INVALID_DEVICE;
	snprintf(s, (size_t)len, "%s", devs[d].pci);
	return CUDA_SUCCESS;
}

static CUresult
f_cuDeviceGetByPCIBusId(CUdevice *d, const char *s)
{
	unsigned int dom, bus, dv, fn, w[4];
	int i;

	if (sscanf(s, "%x:%x:%x.%x", &dom, &bus, &dv, &fn) != 4)
		return CUDA_ERROR_INVALID_DEVICE;
	for (i = 0; i < ndevs(); i++)
		if (sscanf(devs[i].pci, "%x:%x:%x.%x", &w[0], &w[1], &w[2], &w[3]) == 4 &&
		    w[0] == dom && w[1] == bus && w[2] == dv && w[3] == fn) {
			*d = i;
			return CUDA_SUCCESS;
		}
	return CUDA_ERROR_INVALID_DEVICE;
}

static CUresult
f_cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d)
{
	if (d < 0 || d >= ndevs())
		return CUDA_ERROR_INVALID_DEVICE;
	*c = (CUcontext)(void *)&primary[d];
	return CUDA_SUCCESS;
}

static CUresult f_cuDevicePrimaryCtxRelease(CUdevice d) { (void)d; return CUDA_SUCCESS; }

static CUresult
f_cuCtxPushCurrent(CUcontext c)
{
	if (c == NULL || depth == 32)
		return CUDA_ERROR_INVALID_VALUE;
	stack[depth++] = c;
	return CUDA_SUCCESS;
}

static CUresult
f_cuCtxPopCurrent(CUcontext *c)
{
	if (depth == 0)
		return CUDA_ERROR_INVALID_CONTEXT;
	depth--;
	if (c != NULL)
		*c = stack[depth];
	return CUDA_SUCCESS;
}

static CUresult
f_cuCtxSetCurrent(CUcontext c)
{
	if (depth == 0)
		return c == NULL ? CUDA_SUCCESS : f_cuCtxPushCurrent(c);
	if (c == NULL) {
		depth--;
		return CUDA_SUCCESS;
	}
	stack[depth - 1] = c;
	return CUDA_SUCCESS;
}

static CUresult
f_cuCtxGetCurrent(CUcontext *c)
{
	*c = cur();
	return CUDA_SUCCESS;
}

static CUresult
f_cuCtxCreate(CUcontext *c, unsigned int flags, CUdevice d)
{
	struct fctx *x = calloc(1, sizeof(*x));

	(void)flags;
	if (d < 0 || d >= ndevs()) {
		free(x);
		return CUDA_ERROR_INVALID_DEVICE;
	}
	if (x == NULL)
		return CUDA_ERROR_OUT_OF_MEMORY;
	x->dev = d;
	*c = (CUcontext)(void *)x;
	return f_cuCtxPushCurrent(*c);
}

static CUresult
f_cuCtxDestroy(CUcontext c)
{
	int i;

	struct fctx *x = (struct fctx *)(void *)c;

	for (i = 0; i < depth; i++)
		if (stack[i] == c)
			stack[i] = (CUcontext)(void *)&primary[x->dev];
	if (c != (CUcontext)(void *)&primary[x->dev])
		free(c);
	return CUDA_SUCCESS;
}

static CUresult
f_cuCtxGetDevice(CUdevice *d)
{
	if (cur() == NULL)
		return CUDA_ERROR_INVALID_CONTEXT;
	*d = ((struct fctx *)(void *)cur())->dev;
	return CUDA_SUCCESS;
}

static CUresult f_cuCtxSynchronize(void) { return cur() ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT; }

static CUresult
f_cuMemAlloc(CUdeviceptr *p, size_t n)
{
	struct falloc *a;
	struct fdev *fd;
	void *m = NULL;

	if (cur() == NULL)
		return CUDA_ERROR_INVALID_CONTEXT;
	if (n == 0)
		return CUDA_ERROR_INVALID_VALUE;
	fd = &devs[cur_dev()];
	pthread_mutex_lock(&mu);
	if (n > FAKE_TOTAL || fd->used + n > FAKE_TOTAL - FAKE_RESERVE) {
		pthread_mutex_unlock(&mu);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	a = calloc(1, sizeof(*a));
	if (a == NULL || posix_memalign(&m, 4096, n) != 0) {
		free(a);
		pthread_mutex_unlock(&mu);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	a->base = (uintptr_t)m;
	a->size = n;
	a->ctx = cur();
	a->dev = cur_dev();
	a->next = allocs;
	allocs = a;
	fd->used += n;
	fd->n_allocs++;
	if (fd->used > fd->peak)
		fd->peak = fd->used;
	pthread_mutex_unlock(&mu);
	*p = (CUdeviceptr)a->base;
	return CUDA_SUCCESS;
}

static CUresult
f_cuMemFree(CUdeviceptr p)
{
	struct falloc **pp, *a;

	pthread_mutex_lock(&mu);
	for (pp = &allocs; *pp != NULL; pp = &(*pp)->next) {
		if ((*pp)->base == (uintptr_t)p) {
			a = *pp;
			*pp = a->next;
			devs[a->dev].used -= a->size;
			pthread_mutex_unlock(&mu);
			free((void *)a->base);
			free(a);
			return CUDA_SUCCESS;
		}
	}
	pthread_mutex_unlock(&mu);
	return CUDA_ERROR_INVALID_VALUE;
}

static CUresult
f_cuMemGetInfo(size_t *fr, size_t *total)
{
	if (cur() == NULL)
		return CUDA_ERROR_INVALID_CONTEXT;
	pthread_mutex_lock(&mu);
	*fr = FAKE_TOTAL - FAKE_RESERVE - devs[cur_dev()].used;
	pthread_mutex_unlock(&mu);
	*total = FAKE_TOTAL;
	return CUDA_SUCCESS;
}

static CUresult
f_cuMemHostRegister(void *p, size_t n, unsigned int flags)
{
	struct freg *r;
	size_t off;
	CUresult res = CUDA_SUCCESS;

	(void)flags;
	if (cur() == NULL)
		return CUDA_ERROR_INVALID_CONTEXT;
	if (p == NULL || n == 0)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&mu);
	if (alloc_of((uintptr_t)p) != NULL)
		res = CUDA_ERROR_INVALID_VALUE;
	else if (halloc_of((uintptr_t)p, &off) != NULL)
		res = CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED;  /* pinned already */
	for (r = regs; r != NULL && res == CUDA_SUCCESS; r = r->next)
		if ((uintptr_t)p < r->p + r->n && r->p < (uintptr_t)p + n)
			res = CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED;
	if (res == CUDA_SUCCESS) {
		r = calloc(1, sizeof(*r));
		if (r == NULL) {
			res = CUDA_ERROR_OUT_OF_MEMORY;
		} else {
			r->p = (uintptr_t)p;
			r->n = n;
			r->dev = cur_dev();
			devs[r->dev].n_regs++;
			r->next = regs;
			regs = r;
		}
	}
	pthread_mutex_unlock(&mu);
	return res;
}

static CUresult
f_cuMemHostUnregister(void *p)
{
	struct freg **pp, *r;

	pthread_mutex_lock(&mu);
	for (pp = &regs; *pp != NULL; pp = &(*pp)->next) {
		if ((*pp)->p == (uintptr_t)p) {
			r = *pp;
			*pp = r->next;
			pthread_mutex_unlock(&mu);
			free(r);
			return CUDA_SUCCESS;
		}
	}
	pthread_mutex_unlock(&mu);
	return CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED;
}

static CUresult
f_cuMemHostGetDevicePointer(CUdeviceptr *d, void *p, unsigned int flags)
{
	struct fhost *h;
	CUresult res;
	size_t off;

	(void)flags;
	pthread_mutex_lock(&mu);
	h = halloc_of((uintptr_t)p, &off);
	if (h != NULL) {
		/* CUDA: only mapped blocks have a device pointer */
		res = (h->flags & CU_MEMHOSTALLOC_DEVICEMAP) || igpu() == 1 ? CUDA_SUCCESS :
			CUDA_ERROR_INVALID_VALUE;
		*d = (CUdeviceptr)(h->d + off);
		pthread_mutex_unlock(&mu);
		return res;
	}
	res = reg_of((uintptr_t)p) != NULL || host_of((uintptr_t)p) != NULL ? CUDA_SUCCESS :
		CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_unlock(&mu);
	*d = (CUdeviceptr)(uintptr_t)p;
	return res;
}

/*
 * integrated: a block of pinned host memory, one memfd mapped at the host
 * pointer and, for write-combined blocks or in devptr mode, at a second
 * address that is its device pointer (the same pages).
 */
static CUresult
f_cuMemHostAlloc(void **pp, size_t n, unsigned int flags)
{
	struct fhost *h;
	struct fdev *fd;
	void *a, *b = NULL;
	int mfd;

	if (cur() == NULL)
		return CUDA_ERROR_INVALID_CONTEXT;
	if (n == 0 || (flags & ~(unsigned int)(CU_MEMHOSTALLOC_PORTABLE |
			CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_WRITECOMBINED)) != 0)
		return CUDA_ERROR_INVALID_VALUE;
	fd = &devs[cur_dev()];
	h = calloc(1, sizeof(*h));
	if (h == NULL)
		return CUDA_ERROR_OUT_OF_MEMORY;
	pthread_mutex_lock(&mu);
	if (n > FAKE_TOTAL || fd->used + n > FAKE_TOTAL - FAKE_RESERVE) {
		pthread_mutex_unlock(&mu);
		free(h);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	fd->used += n;
	pthread_mutex_unlock(&mu);
	mfd = memfd_create("fake_libcuda_hostalloc", MFD_CLOEXEC);
	a = MAP_FAILED;
	if (mfd >= 0 && ftruncate(mfd, (off_t)n) == 0)
		a = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	if (a != MAP_FAILED && ((flags & CU_MEMHOSTALLOC_WRITECOMBINED) || igpu() == 2)) {
		b = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
		if (b == MAP_FAILED) {
			munmap(a, n);
			a = MAP_FAILED;
		}
	}
	if (mfd >= 0)
		close(mfd);
	pthread_mutex_lock(&mu);
	if (a == MAP_FAILED) {
		fd->used -= n;
		pthread_mutex_unlock(&mu);
		free(h);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	h->h = (uintptr_t)a;
	h->alias = (uintptr_t)b;
	h->d = b != NULL ? (uintptr_t)b : (uintptr_t)a;
	h->n = n;
	h->flags = flags;
	h->dev = cur_dev();
	h->ctx = cur();
	h->next = hallocs;
	hallocs = h;
	fd->n_hallocs++;
	if (fd->used > fd->peak)
		fd->peak = fd->used;
	pthread_mutex_unlock(&mu);
	*pp = a;
	return CUDA_SUCCESS;
}

static CUresult
f_cuMemHostGetFlags(unsigned int *flags, void *p)
{
	struct fhost *h;
	size_t off;

	pthread_mutex_lock(&mu);
	h = halloc_of((uintptr_t)p, &off);
	if (h != NULL)
		*flags = h->flags;
	pthread_mutex_unlock(&mu);
	return h != NULL ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* integrated: free a cuMemHostAlloc block by its host pointer; 0 if p is none */
static int
halloc_free(void *p)
{
	struct fhost **pp, *h = NULL;

	pthread_mutex_lock(&mu);
	for (pp = &hallocs; *pp != NULL; pp = &(*pp)->next)
		if ((*pp)->h == (uintptr_t)p) {
			h = *pp;
			*pp = h->next;
			devs[h->dev].used -= h->n;
			break;
		}
	pthread_mutex_unlock(&mu);
	if (h == NULL)
		return 0;
	if (h->alias != 0)
		munmap((void *)h->alias, h->n);
	munmap((void *)h->h, h->n);
	free(h);
	return 1;
}

static CUresult
f_cuMemGetAddressRange(CUdeviceptr *base, size_t *size, CUdeviceptr p)
{
	struct falloc *a;

	struct fhost *h = NULL;
	size_t off = 0;

	pthread_mutex_lock(&mu);
	a = alloc_of((uintptr_t)p);
	if (a != NULL) {
		if (base != NULL)
			*base = (CUdeviceptr)a->base;
		if (size != NULL)
			*size = a->size;
	} else if ((h = halloc_of((uintptr_t)p, &off)) != NULL) {
		/* integrated: the block, at the address p is of */
		if (base != NULL)
			*base = (CUdeviceptr)((uintptr_t)p - off);
		if (size != NULL)
			*size = h->n;
	}
	pthread_mutex_unlock(&mu);
	return a != NULL || h != NULL ? CUDA_SUCCESS : CUDA_ERROR_NOT_FOUND;
}

/* caller holds mu; integrated: the attributes of a cuMemHostAlloc block,
 * at either address. @return 0 if p is in none (*res untouched) */
static int
halloc_attr(void *data, CUpointer_attribute attr, uintptr_t p, CUresult *res)
{
	struct fhost *h;
	size_t off;

	h = halloc_of(p, &off);
	if (h == NULL)
		return 0;
	*res = CUDA_SUCCESS;
	switch (attr) {
	case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
		*(unsigned int *)data = CU_MEMORYTYPE_HOST;
		break;
	case CU_POINTER_ATTRIBUTE_SYNC_MEMOPS:
		*(unsigned int *)data = h->sync;
		break;
	case CU_POINTER_ATTRIBUTE_CONTEXT:
		*(CUcontext *)data = h->ctx;
		break;
	case CU_POINTER_ATTRIBUTE_HOST_POINTER:
		*(void **)data = (void *)(h->h + off);
		break;
	case CU_POINTER_ATTRIBUTE_DEVICE_POINTER:
		*(CUdeviceptr *)data = (CUdeviceptr)(h->d + off);
		break;
	default:
		*res = CUDA_ERROR_NOT_SUPPORTED;
	}
	return 1;
}

static CUresult
f_cuPointerGetAttribute(void *data, CUpointer_attribute attr, CUdeviceptr p)
{
	CUresult res = CUDA_SUCCESS;
	struct falloc *a;

	pthread_mutex_lock(&mu);
	a = alloc_of((uintptr_t)p);
	if (a == NULL && halloc_attr(data, attr, (uintptr_t)p, &res)) {
		pthread_mutex_unlock(&mu);
		return res;
	}
	switch (attr) {
	case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
		if (a != NULL)
			*(unsigned int *)data = CU_MEMORYTYPE_DEVICE;
		else if (reg_of((uintptr_t)p) != NULL || host_of((uintptr_t)p) != NULL)
			*(unsigned int *)data = CU_MEMORYTYPE_HOST;
		else
			res = CUDA_ERROR_INVALID_VALUE;
		break;
	case CU_POINTER_ATTRIBUTE_SYNC_MEMOPS:
		if (a != NULL)
			*(unsigned int *)data = a->sync;
		else
			res = CUDA_ERROR_INVALID_VALUE;
		break;
	case CU_POINTER_ATTRIBUTE_CONTEXT:
		if (a != NULL)
			*(CUcontext *)data = a->ctx;
		else
			res = CUDA_ERROR_INVALID_VALUE;
		break;
	default:
		res = CUDA_ERROR_NOT_SUPPORTED;
	}
	pthread_mutex_unlock(&mu);
	return res;
}

static CUresult
f_cuPointerSetAttribute(const void *v, CUpointer_attribute attr, CUdeviceptr p)
{
	CUresult res = CUDA_ERROR_INVALID_VALUE;
	struct falloc *a;

	if (attr != CU_POINTER_ATTRIBUTE_SYNC_MEMOPS)
		return CUDA_ERROR_NOT_SUPPORTED;
	pthread_mutex_lock(&mu);
	a = alloc_of((uintptr_t)p);
	if (a != NULL) {
		a->sync = *(const unsigned int *)v != 0;
		res = CUDA_SUCCESS;
	} else {
		size_t off;
		struct fhost *h = halloc_of((uintptr_t)p, &off);

		if (h != NULL) {
			h->sync = *(const unsigned int *)v != 0;
			res = CUDA_SUCCESS;
		}
	}
	pthread_mutex_unlock(&mu);
	return res;
}

/* device or registered host memory, [p, p+n) inside one block */
static int
valid_range(uintptr_t p, size_t n)
{
	struct falloc *a;
	struct fhost *h;
	struct freg *r;
	size_t off = 0;
	int ok;

	pthread_mutex_lock(&mu);
	a = alloc_of(p);
	r = reg_of(p);
	h = halloc_of(p, &off);
	ok = (a != NULL && p + n <= a->base + a->size) ||
	     (r != NULL && p + n <= r->p + r->n) ||
	     (h != NULL && off + n <= h->n);
	pthread_mutex_unlock(&mu);
	return ok;
}

static CUresult
f_cuMemcpyHtoD(CUdeviceptr d, const void *s, size_t n)
{
	if (!valid_range((uintptr_t)d, n))
		return CUDA_ERROR_INVALID_VALUE;
	memcpy((void *)(uintptr_t)d, s, n);
	return CUDA_SUCCESS;
}

static CUresult
f_cuMemcpyDtoH(void *d, CUdeviceptr s, size_t n)
{
	if (!valid_range((uintptr_t)s, n))
		return CUDA_ERROR_INVALID_VALUE;
	memcpy(d, (const void *)(uintptr_t)s, n);
	return CUDA_SUCCESS;
}

static CUresult
f_cuMemsetD8(CUdeviceptr d, unsigned char c, size_t n)
{
	if (!valid_range((uintptr_t)d, n))
		return CUDA_ERROR_INVALID_VALUE;
	memset((void *)(uintptr_t)d, c, n);
	return CUDA_SUCCESS;
}

static CUresult
f_cuMemsetD8Async(CUdeviceptr d, unsigned char c, size_t n, CUstream st)
{
	(void)st;
	return f_cuMemsetD8(d, c, n);
}

static CUresult
f_cuFlushGPUDirectRDMAWrites(CUflushGPUDirectRDMAWritesTarget t,
			     CUflushGPUDirectRDMAWritesScope s)
{
	(void)t;
	(void)s;
	return cur() != NULL ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

/*
 * GPUDP_FAKE_CUDA_ENGINE=1: enough of modules, streams, events and async
 * copies for gpudp-capture's GPU engine to start on host memory, with
 * unified addressing; no kernel ever runs: cuLaunchKernel fails
 * (CUDA_ERROR_LAUNCH_FAILED), to test what an engine failure leaves behind.
 * GPUDP_FAKE_CUDA_ENGINE=complete (the header comment): the same, but
 * launches succeed and complete their bursts at once, without any work.
 */
static int dummy_obj;

static CUresult
f_cuModuleLoadData(CUmodule *m, const void *image)
{
	(void)image;
	*m = (CUmodule)(void *)&dummy_obj;
	return CUDA_SUCCESS;
}

/* complete: one handle per kernel name (whatever the module) */
enum fkind { FK_OTHER, FK_BURST, FK_SIGNAL, FK_CLOCK };

struct ffunc {
	char name[64];
	enum fkind kind;
};

#define FAKE_FUNCS_MAX 32
static struct ffunc funcs[FAKE_FUNCS_MAX];
static unsigned int n_funcs;

static CUresult
f_cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name)
{
	unsigned int i;

	(void)m;
	if (!complete()) {
		*f = (CUfunction)(void *)&dummy_obj;
		return CUDA_SUCCESS;
	}
	if (strlen(name) >= sizeof(funcs[0].name))
		return CUDA_ERROR_NOT_FOUND;
	pthread_mutex_lock(&mu);
	for (i = 0; i < n_funcs && strcmp(funcs[i].name, name) != 0; i++)
		;
	if (i == n_funcs && n_funcs < FAKE_FUNCS_MAX) {
		snprintf(funcs[i].name, sizeof(funcs[i].name), "%s", name);
		funcs[i].kind = strcmp(name, "gpudp_work_burst") == 0 ? FK_BURST :
				strcmp(name, "gpudp_ho_signal") == 0 ? FK_SIGNAL :
				strcmp(name, "gpudp_ho_clock") == 0 ? FK_CLOCK : FK_OTHER;
		n_funcs++;
	}
	pthread_mutex_unlock(&mu);
	if (i == FAKE_FUNCS_MAX)
		return CUDA_ERROR_OUT_OF_MEMORY;
	*f = (CUfunction)(void *)&funcs[i];
	return CUDA_SUCCESS;
}

static CUresult f_cuModuleUnload(CUmodule m) { (void)m; return CUDA_SUCCESS; }

/* every module's gpudp_work_abi stamp (a work's GPU image): this build's ABI */
static CUresult
f_cuModuleGetGlobal(CUdeviceptr *d, size_t *bytes, CUmodule m, const char *name)
{
	static CUdeviceptr abi;
	uint32_t v = GPUDP_WORK_ABI;

	(void)m;
	if (strcmp(name, "gpudp_work_abi") != 0)
		return CUDA_ERROR_NOT_FOUND;
	if (abi == 0) {
		struct falloc *a;

		if (f_cuMemAlloc(&abi, sizeof(v)) != CUDA_SUCCESS ||
		    f_cuMemcpyHtoD(abi, &v, sizeof(v)) != CUDA_SUCCESS)
			return CUDA_ERROR_OUT_OF_MEMORY;
		pthread_mutex_lock(&mu);
		a = alloc_of((uintptr_t)abi);
		if (a != NULL) {
			a->internal = 1;  /* kept for the process: not a leak */
			devs[a->dev].n_allocs--;
		}
		pthread_mutex_unlock(&mu);
	}
	*d = abi;
	*bytes = sizeof(v);
	return CUDA_SUCCESS;
}

/* no kernel ever runs (complete: each one ran at its launch): every stream is idle */
static CUresult f_cuStreamQuery(CUstream st) { (void)st; return CUDA_SUCCESS; }

/* complete: a stream, and the clock thread launched on it (at most one:
 * a stream runs its kernels one after the other) */
struct fstream {
	pthread_t clk;
	int clk_live;
};

static CUresult
f_cuStreamCreate(CUstream *st, unsigned int flags)
{
	struct fstream *s;

	(void)flags;
	if (!complete()) {
		*st = (CUstream)(void *)&dummy_obj;
		return CUDA_SUCCESS;
	}
	s = calloc(1, sizeof(*s));
	if (s == NULL)
		return CUDA_ERROR_OUT_OF_MEMORY;
	*st = (CUstream)(void *)s;
	return CUDA_SUCCESS;
}

/* complete: the stream's own (not the default stream, not dummy_obj) */
static struct fstream *
fstream_of(CUstream st)
{
	return complete() && st != NULL && (void *)st != (void *)&dummy_obj ?
		(struct fstream *)(void *)st : NULL;
}

/* the stream's clock kernel finished (it answers its rounds, or gives up
 * one second after the CPU stopped asking) */
static void
fstream_drain(struct fstream *s)
{
	if (s != NULL && s->clk_live) {
		pthread_join(s->clk, NULL);
		s->clk_live = 0;
	}
}

static CUresult
f_cuStreamDestroy(CUstream st)
{
	struct fstream *s = fstream_of(st);

	fstream_drain(s);
	free(s);
	return CUDA_SUCCESS;
}

static CUresult
f_cuStreamSynchronize(CUstream st)
{
	fstream_drain(fstream_of(st));
	return CUDA_SUCCESS;
}

static CUresult
f_cuStreamWaitEvent(CUstream st, CUevent ev, unsigned int flags)
{
	(void)st;
	(void)ev;
	(void)flags;
	return CUDA_SUCCESS;
}

static CUresult
f_cuEventCreate(CUevent *ev, unsigned int flags)
{
	(void)flags;
	*ev = (CUevent)(void *)&dummy_obj;
	return CUDA_SUCCESS;
}

static CUresult f_cuEventDestroy(CUevent ev) { (void)ev; return CUDA_SUCCESS; }
static CUresult f_cuEventRecord(CUevent ev, CUstream st) { (void)ev; (void)st; return CUDA_SUCCESS; }
static CUresult f_cuEventSynchronize(CUevent ev) { (void)ev; return CUDA_SUCCESS; }

static CUresult
f_cuEventElapsedTime(float *ms, CUevent a, CUevent b)
{
	(void)a;
	(void)b;
	*ms = 0;
	return CUDA_SUCCESS;
}

static CUresult
f_cuMemAllocHost(void **p, size_t n)
{
	struct freg *r;

	*p = calloc(1, n);
	if (*p == NULL)
		return CUDA_ERROR_OUT_OF_MEMORY;
	if (!complete())
		return CUDA_SUCCESS;
	/* complete: resident from the start, as page-locked memory is (calloc's
	 * fresh pages would fault at their first write, in the timed loop) */
	memset(*p, 0, n);
	/* and mapped, for cuMemHostGetDevicePointer */
	r = calloc(1, sizeof(*r));
	if (r == NULL) {
		free(*p);
		*p = NULL;
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	r->p = (uintptr_t)*p;
	r->n = n;
	pthread_mutex_lock(&mu);
	r->next = hosts;
	hosts = r;
	pthread_mutex_unlock(&mu);
	return CUDA_SUCCESS;
}

static CUresult
f_cuMemFreeHost(void *p)
{
	struct freg **pp, *r = NULL;

	if (halloc_free(p))
		return CUDA_SUCCESS;
	pthread_mutex_lock(&mu);
	for (pp = &hosts; *pp != NULL; pp = &(*pp)->next)
		if ((*pp)->p == (uintptr_t)p) {
			r = *pp;
			*pp = r->next;
			break;
		}
	pthread_mutex_unlock(&mu);
	free(r);
	free(p);
	return CUDA_SUCCESS;
}

static CUresult
f_cuMemcpyHtoDAsync(CUdeviceptr d, const void *s, size_t n, CUstream st)
{
	(void)st;
	return f_cuMemcpyHtoD(d, s, n);
}

static CUresult
f_cuMemcpyDtoHAsync(void *d, CUdeviceptr s, size_t n, CUstream st)
{
	(void)st;
	return f_cuMemcpyDtoH(d, s, n);
}

/* the kernels' clock in complete mode (%globaltimer): the CPU's */
static uint64_t
mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* complete: gpudp_ho_clock(base, rounds) (lib/handoff/handoff.cu): round i
 * waits for the flag (word 4 of base) to be i, stores the time (byte 32)
 * and then ack (word 6) = i; gives up one second without a flag */
struct fclock {
	uint32_t *flag, *ack;
	uint64_t *tm;
	uint32_t rounds;
};

static void *
clock_main(void *arg)
{
	struct fclock c = *(struct fclock *)arg;
	uint64_t t = mono_ns();
	uint32_t i;

	free(arg);
	for (i = 1; i <= c.rounds; i++) {
		while (__atomic_load_n(c.flag, __ATOMIC_ACQUIRE) != i) {
			if (mono_ns() - t > 1000000000ull)
				return NULL;
			sched_yield();
		}
		__atomic_store_n(c.tm, mono_ns(), __ATOMIC_RELAXED);
		__atomic_store_n(c.ack, i, __ATOMIC_RELEASE);
		t = mono_ns();
	}
	return NULL;
}

static CUresult
launch_clock(CUstream st, void **params)
{
	struct fstream *s = fstream_of(st);
	struct fclock *c = malloc(sizeof(*c));
	uint64_t base;
	pthread_t tid;

	if (c == NULL)
		return CUDA_ERROR_OUT_OF_MEMORY;
	memcpy(&base, params[0], sizeof(base));
	memcpy(&c->rounds, params[1], sizeof(c->rounds));
	c->flag = (uint32_t *)(uintptr_t)base + 4;
	c->ack = (uint32_t *)(uintptr_t)base + 6;
	c->tm = (uint64_t *)(uintptr_t)base + 4;
	fstream_drain(s);  /* after the stream's previous clock kernel */
	if (pthread_create(&tid, NULL, clock_main, c) != 0) {
		free(c);
		return CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES;
	}
	if (s != NULL) {
		s->clk = tid;
		s->clk_live = 1;
	} else {
		pthread_detach(tid);
	}
	return CUDA_SUCCESS;
}

/* complete: the burst's work did nothing and every packet passed */
static void
launch_done(const struct gpudp_ho_kargs *a, int burst)
{
	struct gpudp_ho_ctl *c = (struct gpudp_ho_ctl *)(uintptr_t)a->ctl + a->slot;

	if (burst) {
		uint32_t n = a->n != 0 ? a->n : __atomic_load_n(&c->n, __ATOMIC_RELAXED);

		c->t_kstart = mono_ns();
		c->n_pass = n;
		if (!a->signal)
			return;  /* staged with CPU copies: gpudp_ho_signal stores done */
	}
	c->t_kend = mono_ns();
	__atomic_store_n(&c->done, __atomic_load_n(&c->seq, __ATOMIC_RELAXED),
			 __ATOMIC_RELEASE);
}

static CUresult
f_cuLaunchKernel(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz,
		 unsigned int bx, unsigned int by, unsigned int bz, unsigned int shmem,
		 CUstream st, void **params, void **extra)
{
	const struct ffunc *k = (const struct ffunc *)(void *)f;
	struct gpudp_ho_kargs a;

	(void)gx; (void)gy; (void)gz; (void)bx; (void)by; (void)bz;
	(void)shmem; (void)extra;
	if (!complete())
		return CUDA_ERROR_LAUNCH_FAILED;
	if ((uintptr_t)k < (uintptr_t)funcs || (uintptr_t)k >= (uintptr_t)(funcs + FAKE_FUNCS_MAX))
		return CUDA_ERROR_INVALID_HANDLE;  /* not cuModuleGetFunction's */
	switch (k->kind) {
	case FK_BURST:
	case FK_SIGNAL:
		if (params == NULL || params[0] == NULL)
			return CUDA_ERROR_INVALID_VALUE;
		memcpy(&a, params[0], sizeof(a));
		launch_done(&a, k->kind == FK_BURST);
		return CUDA_SUCCESS;
	case FK_CLOCK:
		if (params == NULL || params[0] == NULL || params[1] == NULL)
			return CUDA_ERROR_INVALID_VALUE;
		return launch_clock(st, params);
	default:
		return CUDA_SUCCESS;  /* gather, persistent, ...: no work */
	}
}

static CUresult
f_engine_cuDeviceGetAttribute(int *v, CUdevice_attribute a, CUdevice d)
{
	if (a == CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING ||
	    a == CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM) {
		*v = 1;
		return CUDA_SUCCESS;
	}
	return f_cuDeviceGetAttribute(v, a, d);
}

#define F(n) { #n, (void (*)(void))f_##n }
static const struct {
	const char *name;
	void (*fn)(void);
} engine_table[] = {
	F(cuModuleLoadData), F(cuModuleGetFunction), F(cuModuleUnload),
	F(cuModuleGetGlobal), F(cuStreamQuery), F(cuStreamCreate), F(cuStreamDestroy), F(cuStreamSynchronize),
	F(cuStreamWaitEvent), F(cuEventCreate), F(cuEventDestroy), F(cuEventRecord),
	F(cuEventSynchronize), F(cuEventElapsedTime), F(cuMemAllocHost),
	F(cuMemFreeHost), F(cuMemcpyHtoDAsync), F(cuMemcpyDtoHAsync),
	F(cuLaunchKernel),
	{ "cuDeviceGetAttribute", (void (*)(void))f_engine_cuDeviceGetAttribute },
};

static const struct {
	const char *name;
	void (*fn)(void);
} table[] = {
	F(cuInit), F(cuDriverGetVersion), F(cuGetErrorString), F(cuGetErrorName),
	F(cuDeviceGetCount), F(cuDeviceGet), F(cuDeviceGetName),
	F(cuDeviceGetAttribute), F(cuDeviceTotalMem), F(cuDeviceGetPCIBusId),
	F(cuDeviceGetByPCIBusId), F(cuDevicePrimaryCtxRetain),
	F(cuDevicePrimaryCtxRelease), F(cuCtxCreate), F(cuCtxDestroy),
	F(cuCtxSetCurrent), F(cuCtxGetCurrent), F(cuCtxPushCurrent),
	F(cuCtxPopCurrent), F(cuCtxGetDevice), F(cuCtxSynchronize),
	F(cuMemAlloc), F(cuMemFree), F(cuMemGetInfo), F(cuMemHostRegister),
	F(cuMemHostUnregister), F(cuMemHostGetDevicePointer),
	F(cuMemGetAddressRange), F(cuPointerGetAttribute),
	F(cuPointerSetAttribute), F(cuMemcpyHtoD), F(cuMemcpyDtoH),
	F(cuMemsetD8), F(cuMemsetD8Async), F(cuFlushGPUDirectRDMAWrites),
};

/* GPUDP_FAKE_CUDA_INTEGRATED: cuMemHostAlloc's blocks */
static const struct {
	const char *name;
	void (*fn)(void);
} igpu_table[] = {
	F(cuMemHostAlloc), F(cuMemHostGetFlags), F(cuMemFreeHost),
};

CUresult cuGetProcAddress(const char *sym, void **pfn, int ver, cuuint64_t flags);

CUresult
cuGetProcAddress(const char *sym, void **pfn, int ver, cuuint64_t flags)
{
	size_t i;
	void (*fn)(void) = (void (*)(void))f_stub;

	(void)ver;
	(void)flags;
	for (i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (strcmp(table[i].name, sym) == 0)
			fn = table[i].fn;
	if (getenv("GPUDP_FAKE_CUDA_ENGINE") != NULL)
		for (i = 0; i < sizeof(engine_table) / sizeof(engine_table[0]); i++)
			if (strcmp(engine_table[i].name, sym) == 0)
				fn = engine_table[i].fn;
	if (igpu())
		for (i = 0; i < sizeof(igpu_table) / sizeof(igpu_table[0]); i++)
			if (strcmp(igpu_table[i].name, sym) == 0)
				fn = igpu_table[i].fn;
	memcpy(pfn, &fn, sizeof(fn));
	return CUDA_SUCCESS;
}

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
 * Not a model of CUDA's semantics beyond that: a unit of test code only.
 * Any other entry point resolves to a stub returning
 * CUDA_ERROR_NOT_SUPPORTED.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>

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

/* one device: its address and what was allocated on it */
struct fdev {
	char pci[32];
	uint64_t used, peak;
	unsigned int n_allocs, n_regs;
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct falloc *allocs;
static struct freg *regs;
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
	for (i = 0; i < ndevs(); i++)
		fprintf(f, "device %d pci %s allocs %u peak_bytes %llu left_allocs %u "
			"left_bytes %llu regs %u left_regs %u\n", i, devs[i].pci,
			devs[i].n_allocs, (unsigned long long)devs[i].peak, left[i],
			(unsigned long long)lbytes[i], devs[i].n_regs, lregs[i]);
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

static struct freg *
reg_of(uintptr_t p)
{
	struct freg *r;

	for (r = regs; r != NULL; r = r->next)
		if (p >= r->p && p < r->p + r->n)
			return r;
	return NULL;
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

static CUresult
f_cuDeviceGetName(char *name, int len, CUdevice d)
{
	(void)d;
	snprintf(name, (size_t)len, "Fake GPU (gpudp test)");
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
	CUresult res = CUDA_SUCCESS;

	(void)flags;
	if (cur() == NULL)
		return CUDA_ERROR_INVALID_CONTEXT;
	if (p == NULL || n == 0)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&mu);
	if (alloc_of((uintptr_t)p) != NULL)
		res = CUDA_ERROR_INVALID_VALUE;
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
	CUresult res;

	(void)flags;
	pthread_mutex_lock(&mu);
	res = reg_of((uintptr_t)p) != NULL ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_unlock(&mu);
	*d = (CUdeviceptr)(uintptr_t)p;
	return res;
}

static CUresult
f_cuMemGetAddressRange(CUdeviceptr *base, size_t *size, CUdeviceptr p)
{
	struct falloc *a;

	pthread_mutex_lock(&mu);
	a = alloc_of((uintptr_t)p);
	if (a != NULL) {
		if (base != NULL)
			*base = (CUdeviceptr)a->base;
		if (size != NULL)
			*size = a->size;
	}
	pthread_mutex_unlock(&mu);
	return a != NULL ? CUDA_SUCCESS : CUDA_ERROR_NOT_FOUND;
}

static CUresult
f_cuPointerGetAttribute(void *data, CUpointer_attribute attr, CUdeviceptr p)
{
	CUresult res = CUDA_SUCCESS;
	struct falloc *a;

	pthread_mutex_lock(&mu);
	a = alloc_of((uintptr_t)p);
	switch (attr) {
	case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
		if (a != NULL)
			*(unsigned int *)data = CU_MEMORYTYPE_DEVICE;
		else if (reg_of((uintptr_t)p) != NULL)
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
	}
	pthread_mutex_unlock(&mu);
	return res;
}

/* device or registered host memory, [p, p+n) inside one block */
static int
valid_range(uintptr_t p, size_t n)
{
	struct falloc *a;
	struct freg *r;
	int ok;

	pthread_mutex_lock(&mu);
	a = alloc_of(p);
	r = reg_of(p);
	ok = (a != NULL && p + n <= a->base + a->size) ||
	     (r != NULL && p + n <= r->p + r->n);
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
 */
static int dummy_obj;

static CUresult
f_cuModuleLoadData(CUmodule *m, const void *image)
{
	(void)image;
	*m = (CUmodule)(void *)&dummy_obj;
	return CUDA_SUCCESS;
}

static CUresult
f_cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name)
{
	(void)m;
	(void)name;
	*f = (CUfunction)(void *)&dummy_obj;
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

/* no kernel ever runs: every stream is idle */
static CUresult f_cuStreamQuery(CUstream st) { (void)st; return CUDA_SUCCESS; }

static CUresult
f_cuStreamCreate(CUstream *st, unsigned int flags)
{
	(void)flags;
	*st = (CUstream)(void *)&dummy_obj;
	return CUDA_SUCCESS;
}

static CUresult f_cuStreamDestroy(CUstream st) { (void)st; return CUDA_SUCCESS; }
static CUresult f_cuStreamSynchronize(CUstream st) { (void)st; return CUDA_SUCCESS; }

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
	*p = calloc(1, n);
	return *p != NULL ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

static CUresult f_cuMemFreeHost(void *p) { free(p); return CUDA_SUCCESS; }

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

static CUresult
f_cuLaunchKernel(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz,
		 unsigned int bx, unsigned int by, unsigned int bz, unsigned int shmem,
		 CUstream st, void **params, void **extra)
{
	(void)f; (void)gx; (void)gy; (void)gz; (void)bx; (void)by; (void)bz;
	(void)shmem; (void)st; (void)params; (void)extra;
	return CUDA_ERROR_LAUNCH_FAILED;
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
	F(cuMemsetD8), F(cuFlushGPUDirectRDMAWrites),
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
	memcpy(pfn, &fn, sizeof(fn));
	return CUDA_SUCCESS;
}

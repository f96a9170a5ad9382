/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The GPU modes' memory services, in the handoff's CUDA context: the
 * work's state tables in GPU memory (gpudp_work.h, "state"), host memory
 * registered for the GPU to read in place, copies of GPU memory out to the
 * host on a stream of their own, and what the device is and can read. A
 * caller of the handoff (lib/capture's GPU engine) needs no CUDA of its own.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "gpudp_handoff_pvt.h"

#ifdef GPUDP_HAS_CUDA

#include "gpudp_ho_gpu_pvt.h"

int
gpudp_ho_gpu_table(struct gpudp_handoff *h, const char *what, uint32_t k, const void *init,
		   uint64_t size, CUdeviceptr *d)
{
	CUresult r = gpudp_cu->cuMemAlloc(d, size);

	if (r == CUDA_SUCCESS)
		r = init != NULL ? gpudp_cu->cuMemcpyHtoD(*d, init, size) :
			gpudp_cu->cuMemsetD8(*d, 0, size);
	if (r == CUDA_SUCCESS)
		return 0;
	HO_LOG(ERR, "%s: work %s: %s %u (%" PRIu64 " bytes) into GPU memory: %s",
	       h->conf.name, h->work->name, what, k, size, gpudp_cuda_errstr(r));
	return r == CUDA_ERROR_OUT_OF_MEMORY ? -ENOMEM : -EIO;
}

/* the state tables in GPU memory, their addresses into @p dev_params */
int
gpudp_ho_gpu_states(struct gpudp_handoff *h, uint8_t *dev_params)
{
	const struct gpudp_work *w = h->work;
	uint32_t k;
	int ret = gpudp_ho_state_sizes(h);

	if (ret == 0 && h->conf.state_from != NULL)
		ret = gpudp_ho_state_from(h);
	else if (ret == 0)
		h->st.own = 1;
	for (k = 0; ret == 0 && h->st.own && k < h->st.n; k++) {
		uint64_t init;
		CUdeviceptr d = 0;

		if (h->st.size[k] == 0)
			continue;
		memcpy(&init, dev_params + w->states[k].ptr_off, sizeof(init));
		ret = gpudp_ho_gpu_table(h, "state table", k, (const void *)(uintptr_t)init,
					 h->st.size[k], &d);
		h->st.addr[k] = d;
	}
	for (k = 0; ret == 0 && k < h->st.n; k++)
		memcpy(dev_params + w->states[k].ptr_off, &h->st.addr[k], sizeof(uint64_t));
	return ret;
}

void
gpudp_ho_gpu_states_free(struct gpudp_handoff *h)
{
	uint32_t k;

	for (k = 0; h->st.own && k < h->st.n; k++)
		if (h->st.addr[k] != 0)
			gpudp_cu->cuMemFree(h->st.addr[k]);
	h->st.own = 0;
}

/* the stream of the copies out and of the state's copies, created on first use */
static int
out_stream(struct gpudp_handoff *h, CUstream *st)
{
	struct ho_gpu *g = GPU(h);

	if (gpudp_ho_gpu_enter(h) != 0)
		return -EIO;
	if (g->out_stream == NULL)
		CU_DO(h, gpudp_cu->cuStreamCreate(&g->out_stream, CU_STREAM_NON_BLOCKING));
	*st = g->out_stream;
	return 0;
}

/*
 * On the handoff's own non-blocking stream, waited for alone.
 */
int
gpudp_ho_gpu_state_copy(struct gpudp_handoff *h, uint32_t k, uint64_t off, void *host,
			uint64_t len, int to_host)
{
	CUdeviceptr d = h->st.addr[k] + off;
	CUstream st;

	/* the persistent mode's resident kernel holds every copy up: the state
	 * is read and written once it is stopped (gpudp_handoff_stop()) */
	if (GPU(h)->persistent_running)
		return -EBUSY;
	if (out_stream(h, &st) != 0)
		return -EIO;
	if (to_host)
		CU_DO(h, gpudp_cu->cuMemcpyDtoHAsync(host, d, len, st));
	else if (host != NULL)
		CU_DO(h, gpudp_cu->cuMemcpyHtoDAsync(d, host, len, st));
	else
		CU_DO(h, gpudp_cu->cuMemsetD8Async(d, 0, len, st));
	CU_DO(h, gpudp_cu->cuStreamSynchronize(st));
	return 0;
}

int
gpudp_handoff_host_register(struct gpudp_handoff *h, const void *addr, size_t len)
{
	struct ho_gpu *g = h->ops->gpu ? GPU(h) : NULL;
	int ro = 0;

	if (g == NULL)
		return -ENOTSUP;
	if (gpudp_ho_gpu_enter(h) != 0)
		return -EIO;
	CU_DO(h, gpudp_cu->cuDeviceGetAttribute(&ro,
		CU_DEVICE_ATTRIBUTE_READ_ONLY_HOST_REGISTER_SUPPORTED, g->dev));
	if (!ro) {
		snprintf(h->err, sizeof(h->err), "GPU %d cannot register read-only host memory",
			 (int)g->dev);
		return -ENOTSUP;
	}
	CU_DO(h, gpudp_cu->cuMemHostRegister((void *)(uintptr_t)addr, len,
					     CU_MEMHOSTREGISTER_PORTABLE |
					     CU_MEMHOSTREGISTER_READ_ONLY));
	return 0;
}

void
gpudp_handoff_host_unregister(struct gpudp_handoff *h, const void *addr)
{
	if (h->ops->gpu && GPU(h) != NULL && gpudp_ho_gpu_enter(h) == 0)
		gpudp_cu->cuMemHostUnregister((void *)(uintptr_t)addr);
}

void *
gpudp_handoff_host_alloc(struct gpudp_handoff *h, size_t len)
{
	void *p = NULL;
	CUresult r;

	if (!h->ops->gpu || GPU(h) == NULL)
		return aligned_alloc(64, RTE_ALIGN_CEIL(RTE_MAX(len, (size_t)1), 64));
	if (gpudp_ho_gpu_enter(h) != 0)
		return NULL;
	r = gpudp_cu->cuMemAllocHost(&p, len);
	if (r != CUDA_SUCCESS) {
		gpudp_ho_gpu_fail(h, "cuMemAllocHost", r);
		return NULL;
	}
	return p;
}

void
gpudp_handoff_host_free(struct gpudp_handoff *h, void *p)
{
	if (p == NULL)
		return;
	if (!h->ops->gpu || GPU(h) == NULL)
		free(p);
	else if (gpudp_ho_gpu_enter(h) == 0)
		gpudp_cu->cuMemFreeHost(p);
}

int
gpudp_handoff_copy_to_host(struct gpudp_handoff *h, void *dst, uint64_t src, size_t len)
{
	CUstream st;

	if (!h->ops->gpu || GPU(h) == NULL)
		return -ENOTSUP;
	if (out_stream(h, &st) != 0)
		return -EIO;
	CU_DO(h, gpudp_cu->cuMemcpyDtoHAsync(dst, (CUdeviceptr)src, len, st));
	return 0;
}

int
gpudp_handoff_copy_wait(struct gpudp_handoff *h)
{
	struct ho_gpu *g = h->ops->gpu ? GPU(h) : NULL;

	if (g == NULL || g->out_stream == NULL)
		return 0;
	if (gpudp_ho_gpu_enter(h) != 0)
		return -EIO;
	CU_DO(h, gpudp_cu->cuStreamSynchronize(g->out_stream));
	return 0;
}

int
gpudp_handoff_device_name(struct gpudp_handoff *h, char *buf, size_t len)
{
	struct ho_gpu *g = h->ops->gpu ? GPU(h) : NULL;
	char name[64], bus[32];

	if (g == NULL) {
		snprintf(buf, len, "CPU");
		return 0;
	}
	if (gpudp_ho_gpu_enter(h) != 0)
		return -EIO;
	CU_DO(h, gpudp_cu->cuDeviceGetName(name, sizeof(name), g->dev));
	if (gpudp_cu->cuDeviceGetPCIBusId(bus, sizeof(bus), g->dev) != CUDA_SUCCESS)
		snprintf(bus, sizeof(bus), "?");
	snprintf(buf, len, "GPU %d: %s (%s)", (int)g->dev, name, bus);
	return 0;
}

int
gpudp_handoff_reads_host(struct gpudp_handoff *h, char *why, size_t len)
{
	struct ho_gpu *g = h->ops->gpu ? GPU(h) : NULL;
	int uva = 0, hostptr = 0;

	if (g == NULL)
		return 1;
	if (gpudp_ho_gpu_enter(h) != 0)
		return -EIO;
	CU_DO(h, gpudp_cu->cuDeviceGetAttribute(&uva, CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING,
						g->dev));
	CU_DO(h, gpudp_cu->cuDeviceGetAttribute(&hostptr,
		CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM, g->dev));
	if (uva && hostptr)
		return 1;
	snprintf(why, len, "GPU %d cannot read registered host memory at its host address "
		 "(unified addressing %d, host pointer for registered memory %d)", (int)g->dev,
		 uva, hostptr);
	return 0;
}

#else /* !GPUDP_HAS_CUDA: the CPU modes only */

int
gpudp_ho_gpu_state_copy(struct gpudp_handoff *h, uint32_t k, uint64_t off, void *host,
			uint64_t len, int to_host)
{
	RTE_SET_USED(h);
	RTE_SET_USED(k);
	RTE_SET_USED(off);
	RTE_SET_USED(host);
	RTE_SET_USED(len);
	RTE_SET_USED(to_host);
	return -ENOTSUP;
}

int
gpudp_handoff_host_register(struct gpudp_handoff *h, const void *addr, size_t len)
{
	RTE_SET_USED(h);
	RTE_SET_USED(addr);
	RTE_SET_USED(len);
	return -ENOTSUP;
}

void
gpudp_handoff_host_unregister(struct gpudp_handoff *h, const void *addr)
{
	RTE_SET_USED(h);
	RTE_SET_USED(addr);
}

void *
gpudp_handoff_host_alloc(struct gpudp_handoff *h, size_t len)
{
	RTE_SET_USED(h);
	return aligned_alloc(64, RTE_ALIGN_CEIL(RTE_MAX(len, (size_t)1), 64));
}

void
gpudp_handoff_host_free(struct gpudp_handoff *h, void *p)
{
	RTE_SET_USED(h);
	free(p);
}

int
gpudp_handoff_copy_to_host(struct gpudp_handoff *h, void *dst, uint64_t src, size_t len)
{
	RTE_SET_USED(h);
	RTE_SET_USED(dst);
	RTE_SET_USED(src);
	RTE_SET_USED(len);
	return -ENOTSUP;
}

int
gpudp_handoff_copy_wait(struct gpudp_handoff *h)
{
	RTE_SET_USED(h);
	return 0;
}

int
gpudp_handoff_device_name(struct gpudp_handoff *h, char *buf, size_t len)
{
	RTE_SET_USED(h);
	snprintf(buf, len, "CPU");
	return 0;
}

int
gpudp_handoff_reads_host(struct gpudp_handoff *h, char *why, size_t len)
{
	RTE_SET_USED(h);
	RTE_SET_USED(why);
	RTE_SET_USED(len);
	return 1;
}

#endif

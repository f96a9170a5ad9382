/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TEST ONLY: lib/pin's client API over a stand-in for the gpudp_pin module
 * (gpudp_test_fakepin.h). Every function of gpudp_pin_client.h is defined
 * here, so a test linking this file never links lib/pin's own object.
 * Pins are of CUDA device memory (lib/cuda's gpudp_cu: the fake libcuda or
 * a real driver): the range must lie in one allocation, whose context is
 * remembered; the page table is made-up bus addresses, 64 KiB pages.
 * With GPUDP_TEST_FAKEPIN_TEGRA=1 (read once) the tables are those of the
 * module built for Tegra (doc/kmod.md, "Tegra"): 4 KiB pages, each at a bus
 * address apart from the previous page's, as the pages of cudaHostAlloc
 * memory are.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gpudp_cuda.h>
#include <gpudp_pin_client.h>

#include "gpudp_test_fakepin.h"

#define FAKE_PAGE (fake_tegra() ? UINT64_C(4096) : UINT64_C(64) << 10)
#define FAKE_PINS 4096
#define FAKE_EXPORTS 64

struct fake_pin {
	uint64_t va, len;        /* the pinned range */
	uint64_t base, size;     /* its allocation when pinned */
	uint64_t ctx;            /* its CUDA context */
	int live, dmabuf;
};

static pthread_mutex_t fake_lock = PTHREAD_MUTEX_INITIALIZER;
static struct fake_pin pins[FAKE_PINS];  /* handle i + 1 */
static unsigned int nb_pins, revoked_reads;
static struct { int fd; uint64_t va, len; } exports[FAKE_EXPORTS];
static int module_fd = -1;

/* GPUDP_TEST_FAKEPIN_TEGRA=1: 4 KiB pages at scattered bus addresses */
static int
fake_tegra(void)
{
	static int tegra = -1;

	if (tegra < 0) {
		const char *e = getenv("GPUDP_TEST_FAKEPIN_TEGRA");

		tegra = e != NULL && strcmp(e, "1") == 0;
	}
	return tegra;
}

/*
 * the allocation and context of device memory at va; -EINVAL if none. The
 * range is asked in the memory's own context (the real driver answers
 * cuMemGetAddressRange() only in a current context, which the thread that
 * pins may not have)
 */
static int
mem_of(uint64_t va, uint64_t *base, uint64_t *size, uint64_t *ctx)
{
	CUdeviceptr b = 0;
	CUcontext c = NULL, prev = NULL;
	size_t n = 0;
	int ok;

	if (gpudp_cu == NULL ||
	    gpudp_cu->cuPointerGetAttribute(&c, CU_POINTER_ATTRIBUTE_CONTEXT,
					    (CUdeviceptr)va) != CUDA_SUCCESS || c == NULL ||
	    gpudp_cu->cuCtxPushCurrent(c) != CUDA_SUCCESS)
		return -EINVAL;
	ok = gpudp_cu->cuMemGetAddressRange(&b, &n, (CUdeviceptr)va) == CUDA_SUCCESS;
	gpudp_cu->cuCtxPopCurrent(&prev);
	if (!ok)
		return -EINVAL;
	*base = b;
	*size = n;
	*ctx = (uint64_t)(uintptr_t)c;
	return 0;
}

/* the pin of @p handle, or NULL. Caller holds fake_lock. */
static struct fake_pin *
pin_of(uint64_t handle)
{
	return handle >= 1 && handle <= nb_pins && pins[handle - 1].live ?
	       &pins[handle - 1] : NULL;
}

/* its allocation is gone, or the address is another one's: the module's
 * free callback would have run. Caller holds fake_lock. */
static int
revoked(const struct fake_pin *p)
{
	uint64_t base, size, ctx;

	return mem_of(p->va, &base, &size, &ctx) != 0 || base != p->base ||
	       size != p->size || ctx != p->ctx;
}

/* a new pin of [va, va + len), in one allocation. Caller holds fake_lock. */
static int
pin_new(uint64_t va, uint64_t len, int dmabuf, uint64_t *handle)
{
	struct fake_pin *p;
	uint64_t base, size, ctx;

	if (len == 0 || va % FAKE_PAGE != 0 || len % FAKE_PAGE != 0)
		return -EINVAL;
	if (mem_of(va, &base, &size, &ctx) != 0 || va + len > base + size)
		return -EINVAL;
	if (nb_pins == FAKE_PINS)
		return -ENOSPC;
	p = &pins[nb_pins++];
	p->va = va;
	p->len = len;
	p->base = base;
	p->size = size;
	p->ctx = ctx;
	p->live = 1;
	p->dmabuf = dmabuf;
	*handle = nb_pins;
	return 0;
}

int
gpudp_pin_open(const char *path)
{
	(void)path;
	return open("/dev/null", O_RDWR | O_CLOEXEC);
}

int
gpudp_pin_shared_fd(struct gpudp_pin_version *v)
{
	int fd;

	pthread_mutex_lock(&fake_lock);
	if (module_fd < 0)
		module_fd = gpudp_pin_open(NULL);
	fd = module_fd;
	pthread_mutex_unlock(&fake_lock);
	if (fd < 0)
		return -errno;
	if (v != NULL)
		gpudp_pin_version(fd, v);
	return fd;
}

const char *
gpudp_pin_strerror(int err)
{
	return strerror(-err);
}

int
gpudp_pin_close(int fd)
{
	(void)fd;  /* the shared fd stays open */
	return 0;
}

int
gpudp_pin_version(int fd, struct gpudp_pin_version *v)
{
	(void)fd;
	memset(v, 0, sizeof(*v));
	v->abi_major = GPUDP_PIN_ABI_MAJOR;
	v->abi_minor = GPUDP_PIN_ABI_MINOR;
	v->caps = GPUDP_PIN_CAP_PERSISTENT | GPUDP_PIN_CAP_DMABUF;
	return 0;
}

int
gpudp_pin_pin(int fd, uint64_t va, uint64_t len, uint32_t flags, struct gpudp_pin_pin *out)
{
	uint64_t h = 0;
	int rc;

	(void)fd;
	memset(out, 0, sizeof(*out));
	if (flags != 0)
		return -EINVAL;
	pthread_mutex_lock(&fake_lock);
	rc = pin_new(va, len, 0, &h);
	pthread_mutex_unlock(&fake_lock);
	out->handle = h;
	out->va = va;
	out->len = len;
	out->aligned_va = va;
	out->aligned_len = len;
	return rc;
}

int
gpudp_pin_unpin(int fd, uint64_t handle)
{
	struct fake_pin *p;

	(void)fd;
	pthread_mutex_lock(&fake_lock);
	p = pin_of(handle);
	if (p != NULL)
		p->live = 0;
	pthread_mutex_unlock(&fake_lock);
	return p != NULL ? 0 : -ENOENT;
}

int
gpudp_pin_get_table(int fd, uint64_t handle, uint64_t *addrs, uint32_t max_entries,
		    uint32_t *entries, uint32_t *page_size)
{
	struct fake_pin *p;
	uint32_t n, i;
	int rc = 0;

	(void)fd;
	pthread_mutex_lock(&fake_lock);
	p = pin_of(handle);
	if (p == NULL) {
		rc = -ENOENT;
	} else if (revoked(p)) {
		revoked_reads++;
		rc = -EIDRM;
	} else {
		n = (uint32_t)(p->len / FAKE_PAGE);
		if (entries != NULL)
			*entries = n;
		if (page_size != NULL)
			*page_size = (uint32_t)FAKE_PAGE;
		if (addrs == NULL || max_entries < n)
			rc = -ERANGE;
		else
			for (i = 0; i < n; i++)  /* made up, but distinct per page */
				addrs[i] = (UINT64_C(1) << 52) |
					   (p->va + i * FAKE_PAGE * (fake_tegra() ? 2 : 1));
	}
	pthread_mutex_unlock(&fake_lock);
	return rc;
}

int
gpudp_pin_query(int fd, uint64_t handle, struct gpudp_pin_query *q)
{
	struct fake_pin *p;
	int rc = 0;

	(void)fd;
	memset(q, 0, sizeof(*q));
	pthread_mutex_lock(&fake_lock);
	p = pin_of(handle);
	if (p == NULL) {
		rc = -ENOENT;
	} else {
		q->handle = handle;
		q->aligned_va = p->va;
		q->aligned_len = p->len;
		q->flags = p->dmabuf ? GPUDP_PIN_QF_DMABUF : 0;
		if (revoked(p)) {
			revoked_reads++;
			q->state = GPUDP_PIN_STATE_REVOKED;
		} else {
			q->state = GPUDP_PIN_STATE_VALID;
			q->page_size = (uint32_t)FAKE_PAGE;
			q->entries = (uint32_t)(p->len / FAKE_PAGE);
		}
	}
	pthread_mutex_unlock(&fake_lock);
	return rc;
}

int
gpudp_pin_map_peer(int fd, uint64_t handle, uint32_t domain, uint8_t bus, uint8_t devfn,
		   uint64_t *addrs, uint32_t max_entries, uint32_t *entries,
		   uint32_t *page_size)
{
	(void)fd, (void)handle, (void)domain, (void)bus, (void)devfn, (void)addrs;
	(void)max_entries, (void)entries, (void)page_size;
	return -EOPNOTSUPP;
}

int
gpudp_pin_unmap_peer(int fd, uint64_t handle)
{
	(void)fd, (void)handle;
	return -EINVAL;
}

int
gpudp_pin_attach_dmabuf(int fd, int dmabuf_fd, uint64_t offset, uint64_t len,
			int32_t pci_domain, uint8_t bus, uint8_t devfn,
			struct gpudp_pin_dmabuf *out)
{
	unsigned int i;
	int rc = -EBADFD;

	(void)fd, (void)pci_domain, (void)bus, (void)devfn;
	memset(out, 0, sizeof(*out));
	pthread_mutex_lock(&fake_lock);
	for (i = 0; i < FAKE_EXPORTS; i++)
		if (exports[i].fd == dmabuf_fd && exports[i].len != 0)
			break;
	if (i < FAKE_EXPORTS) {
		uint64_t h = 0;

		rc = offset + len > exports[i].len ? -ENXIO :
		     pin_new(exports[i].va + offset, len, 1, &h);
		if (rc == 0) {
			out->handle = h;
			out->fd = dmabuf_fd;
			out->offset = offset;
			out->len = len;
			out->entries = (uint32_t)(len / FAKE_PAGE);
			out->page_size = (uint32_t)FAKE_PAGE;
			out->size = exports[i].len;
		}
		/* the module holds its own reference: the fd may be closed */
		exports[i].len = 0;
	}
	pthread_mutex_unlock(&fake_lock);
	return rc;
}

int
gpudp_pin_mmap(int fd, const struct gpudp_pin_pin *pin, uint64_t offset, size_t len,
	       void **addr)
{
	(void)fd, (void)pin, (void)offset, (void)len, (void)addr;
	return -EOPNOTSUPP;
}

int
gpudp_pin_munmap(void *addr, size_t len)
{
	(void)addr, (void)len;
	return -EINVAL;
}

/* ---- the test's view ---- */

void
gpudp_test_fakepin_ctx_get(uint64_t ctx, struct gpudp_test_fakepin_ctx *out)
{
	unsigned int i;

	memset(out, 0, sizeof(*out));
	pthread_mutex_lock(&fake_lock);
	for (i = 0; i < nb_pins; i++)
		if (pins[i].ctx == ctx) {
			out->pins++;
			out->live += pins[i].live;
			out->dmabufs += pins[i].dmabuf;
		}
	pthread_mutex_unlock(&fake_lock);
}

unsigned int
gpudp_test_fakepin_revoked_reads(void)
{
	unsigned int n;

	pthread_mutex_lock(&fake_lock);
	n = revoked_reads;
	pthread_mutex_unlock(&fake_lock);
	return n;
}

unsigned int
gpudp_test_fakepin_live(void)
{
	unsigned int i, n = 0;

	pthread_mutex_lock(&fake_lock);
	for (i = 0; i < nb_pins; i++)
		n += pins[i].live;
	pthread_mutex_unlock(&fake_lock);
	return n;
}

void
gpudp_test_fakepin_span(uint64_t ctx, uint64_t *lo, uint64_t *hi)
{
	unsigned int i;

	*lo = 0;
	*hi = 0;
	pthread_mutex_lock(&fake_lock);
	for (i = 0; i < nb_pins; i++) {
		if (pins[i].ctx != ctx || !pins[i].live)
			continue;
		if (*hi == 0 || pins[i].va < *lo)
			*lo = pins[i].va;
		if (pins[i].va + pins[i].len > *hi)
			*hi = pins[i].va + pins[i].len;
	}
	pthread_mutex_unlock(&fake_lock);
}

int
gpudp_test_fakepin_export(void *va, size_t len)
{
	unsigned int i;
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	pthread_mutex_lock(&fake_lock);
	for (i = 0; i < FAKE_EXPORTS && exports[i].len != 0; i++)
		;
	if (i < FAKE_EXPORTS) {
		exports[i].fd = fd;
		exports[i].va = (uint64_t)(uintptr_t)va;
		exports[i].len = len;
	}
	pthread_mutex_unlock(&fake_lock);
	if (i == FAKE_EXPORTS) {
		close(fd);
		return -ENOSPC;
	}
	return fd;
}

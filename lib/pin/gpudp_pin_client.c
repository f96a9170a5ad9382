/* SPDX-License-Identifier: BSD-3-Clause */
/* User-space client of /dev/gpudp_pin: see gpudp_pin_client.h. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "gpudp_pin_client.h"

static int
pin_ioctl(int fd, unsigned long cmd, void *arg)
{
	int ret;

	do {
		ret = ioctl(fd, cmd, arg);
	} while (ret < 0 && errno == EINTR);
	return ret < 0 ? -errno : 0;
}

int
gpudp_pin_open(const char *path)
{
	struct gpudp_pin_version v;
	int fd, ret;

	fd = open(path != NULL ? path : GPUDP_PIN_DEVICE_PATH,
		  O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = gpudp_pin_version(fd, &v);
	if (ret == 0 && v.abi_major != GPUDP_PIN_ABI_MAJOR)
		ret = -EPROTO;
	if (ret < 0) {
		close(fd);
		return ret;
	}
	return fd;
}

static pthread_mutex_t shared_lock = PTHREAD_MUTEX_INITIALIZER;
static int shared_fd = -1;
static struct gpudp_pin_version shared_version;

int
gpudp_pin_shared_fd(struct gpudp_pin_version *v)
{
	int fd;

	pthread_mutex_lock(&shared_lock);
	if (shared_fd < 0) {
		fd = gpudp_pin_open(NULL);
		if (fd >= 0 && gpudp_pin_version(fd, &shared_version) != 0) {
			close(fd);
			fd = -EIO;
		}
		if (fd >= 0)
			shared_fd = fd;
	} else {
		fd = shared_fd;
	}
	if (fd >= 0 && v != NULL)
		*v = shared_version;
	pthread_mutex_unlock(&shared_lock);
	return fd;
}

const char *
gpudp_pin_strerror(int err)
{
	return err == -ENOENT ? "the gpudp_pin module is not loaded" :
	       err == -EPROTO ? "module ABI differs from this build" : strerror(-err);
}

int
gpudp_pin_close(int fd)
{
	return close(fd) < 0 ? -errno : 0;
}

int
gpudp_pin_version(int fd, struct gpudp_pin_version *v)
{
	memset(v, 0, sizeof(*v));
	return pin_ioctl(fd, GPUDP_PIN_IOC_VERSION, v);
}

int
gpudp_pin_pin(int fd, uint64_t va, uint64_t len, uint32_t flags,
	      struct gpudp_pin_pin *out)
{
	memset(out, 0, sizeof(*out));
	out->va = va;
	out->len = len;
	out->flags = flags;
	return pin_ioctl(fd, GPUDP_PIN_IOC_PIN, out);
}

int
gpudp_pin_unpin(int fd, uint64_t handle)
{
	struct gpudp_pin_handle h = { .handle = handle };

	return pin_ioctl(fd, GPUDP_PIN_IOC_UNPIN, &h);
}

int
gpudp_pin_get_table(int fd, uint64_t handle, uint64_t *addrs,
		    uint32_t max_entries, uint32_t *entries,
		    uint32_t *page_size)
{
	struct gpudp_pin_table t = {
		.handle = handle,
		.addrs = (uint64_t)(uintptr_t)addrs,
		.max_entries = addrs != NULL ? max_entries : 0,
	};
	int ret;

	ret = pin_ioctl(fd, GPUDP_PIN_IOC_GET_TABLE, &t);
	if (ret == 0 || ret == -ERANGE) {
		if (entries != NULL)
			*entries = t.entries;
		if (page_size != NULL)
			*page_size = t.page_size;
	}
	return ret;
}

int
gpudp_pin_query(int fd, uint64_t handle, struct gpudp_pin_query *q)
{
	memset(q, 0, sizeof(*q));
	q->handle = handle;
	return pin_ioctl(fd, GPUDP_PIN_IOC_QUERY, q);
}

int
gpudp_pin_map_peer(int fd, uint64_t handle, uint32_t domain, uint8_t bus,
		   uint8_t devfn, uint64_t *addrs, uint32_t max_entries,
		   uint32_t *entries, uint32_t *page_size)
{
	struct gpudp_pin_map_peer m = {
		.handle = handle,
		.addrs = (uint64_t)(uintptr_t)addrs,
		.pci_domain = domain,
		.pci_bus = bus,
		.pci_devfn = devfn,
		.max_entries = addrs != NULL ? max_entries : 0,
	};
	int ret;

	ret = pin_ioctl(fd, GPUDP_PIN_IOC_MAP_PEER, &m);
	if (ret == 0 || ret == -ERANGE) {
		if (entries != NULL)
			*entries = m.entries;
		if (page_size != NULL)
			*page_size = m.page_size;
	}
	return ret;
}

int
gpudp_pin_unmap_peer(int fd, uint64_t handle)
{
	struct gpudp_pin_handle h = { .handle = handle };

	return pin_ioctl(fd, GPUDP_PIN_IOC_UNMAP_PEER, &h);
}

int
gpudp_pin_attach_dmabuf(int fd, int dmabuf_fd, uint64_t offset, uint64_t len,
			int32_t pci_domain, uint8_t bus, uint8_t devfn,
			struct gpudp_pin_dmabuf *out)
{
	memset(out, 0, sizeof(*out));
	out->fd = dmabuf_fd;
	out->offset = offset;
	out->len = len;
	if (pci_domain >= 0) {
		out->flags = GPUDP_PIN_DMABUF_F_PCI;
		out->pci_domain = (uint32_t)pci_domain;
		out->pci_bus = bus;
		out->pci_devfn = devfn;
	}
	return pin_ioctl(fd, GPUDP_PIN_IOC_ATTACH_DMABUF, out);
}

int
gpudp_pin_mmap(int fd, const struct gpudp_pin_pin *pin, uint64_t offset,
	       size_t len, void **addr)
{
	void *p;

	if (offset > pin->aligned_len || len > pin->aligned_len - offset)
		return -ENXIO;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 (off_t)(pin->mmap_offset + offset));
	if (p == MAP_FAILED)
		return -errno;
	*addr = p;
	return 0;
}

int
gpudp_pin_munmap(void *addr, size_t len)
{
	return munmap(addr, len) < 0 ? -errno : 0;
}

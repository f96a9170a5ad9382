/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * User-space client of the gpudp_pin kernel module (/dev/gpudp_pin).
 *
 * Thin, allocation-free wrappers over the module's ioctls and mmap, in C11
 * with no DPDK dependency, so that static test binaries, the registration
 * cache and the gpudev driver's cpu_map can all use it.
 *
 * Conventions: every function returns 0 (or a file descriptor) on success
 * and a negative errno on failure; errno itself is left as the failing
 * system call set it. The module's errnos are listed in doc/kmod.md and
 * repeated below where a caller is expected to act on them. Pins belong to
 * the file descriptor: closing it releases every pin made through it.
 * Thread safety: all functions may be called concurrently on one fd.
 */
#ifndef GPUDP_PIN_CLIENT_H
#define GPUDP_PIN_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#include <gpudp_pin.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Open the pinning device.
 *
 * @param path
 *   Device node, or NULL for GPUDP_PIN_DEVICE_PATH (/dev/gpudp_pin).
 * @return
 *   A file descriptor (close-on-exec), or -ENOENT when the module is not
 *   loaded, -EACCES when the node's mode (0600 by default) forbids it,
 *   -EPROTO when the module's ABI major version differs from this
 *   header's, another negative errno from open(2).
 */
int gpudp_pin_open(const char *path);

/**
 * The process's shared descriptor of GPUDP_PIN_DEVICE_PATH: opened on the
 * first call that finds the module, then kept for the life of the process
 * (pins belong to the descriptor that made them, so every gpudp library
 * pins through this one). Thread-safe. While opening fails, each call
 * tries again.
 *
 * @param v
 *   If not NULL, receives the module's version and capabilities (read
 *   when the descriptor was opened).
 * @return
 *   The descriptor, or a negative errno as gpudp_pin_open().
 */
int gpudp_pin_shared_fd(struct gpudp_pin_version *v);

/**
 * Why the pinning device cannot be used, for a negative errno from
 * gpudp_pin_open() or gpudp_pin_shared_fd(): "the gpudp_pin module is not
 * loaded" (-ENOENT), "module ABI differs from this build" (-EPROTO), or
 * strerror's text.
 */
const char *gpudp_pin_strerror(int err);

/**
 * Close a descriptor from gpudp_pin_open(), releasing all its pins.
 *
 * @param fd
 *   The descriptor.
 * @return
 *   0, or a negative errno from close(2).
 */
int gpudp_pin_close(int fd);

/**
 * Read the module's ABI version, capabilities and this fd's pin budget.
 *
 * @param fd
 *   Descriptor from gpudp_pin_open().
 * @param v
 *   Filled on success.
 * @return
 *   0 or a negative errno.
 */
int gpudp_pin_version(int fd, struct gpudp_pin_version *v);

/**
 * Pin a range of GPU virtual memory.
 *
 * The range is widened to 64 KiB boundaries unless GPUDP_PIN_F_STRICT is
 * given; @p out says where the pinned range starts, how long it is and the
 * offset of @p va in it.
 *
 * @param fd
 *   Descriptor from gpudp_pin_open().
 * @param va
 *   GPU virtual address (a cuMemAlloc'ed pointer with SYNC_MEMOPS set).
 * @param len
 *   Length in bytes.
 * @param flags
 *   GPUDP_PIN_F_PERSISTENT, GPUDP_PIN_F_STRICT or 0.
 * @param out
 *   Filled on success: handle, aligned_va, aligned_len, offset, mmap_offset.
 * @return
 *   0; -EINVAL for a zero length, unknown flags, an unaligned range with
 *   F_STRICT or memory the provider does not know; -EOVERFLOW when va+len
 *   wraps; -E2BIG when the range alone exceeds the fd's budget; -ENOSPC when
 *   it does not fit next to the fd's other pins; -ENOMEM; -EPROTO when the
 *   provider returned an unusable page table; -EOPNOTSUPP for
 *   F_PERSISTENT on a module built without the persistent API.
 */
int gpudp_pin_pin(int fd, uint64_t va, uint64_t len, uint32_t flags,
		  struct gpudp_pin_pin *out);

/**
 * Unpin: release the pages, any peer mapping and every CPU mapping (later
 * accesses to those get SIGBUS). Also the way to drop a revoked pin.
 *
 * @param fd
 *   Descriptor the pin was made through.
 * @param handle
 *   Pin handle.
 * @return
 *   0, or -ENOENT when @p handle is not a pin of this fd.
 */
int gpudp_pin_unpin(int fd, uint64_t handle);

/**
 * Read a pin's page table.
 *
 * @param fd
 *   Descriptor the pin was made through.
 * @param handle
 *   Pin handle.
 * @param addrs
 *   Array receiving one physical address per GPU page, or NULL for the
 *   sizes only. Addresses need CAP_SYS_ADMIN or CAP_SYS_RAWIO.
 * @param max_entries
 *   Capacity of @p addrs.
 * @param entries
 *   Set to the number of GPU pages (also on -ERANGE). May be NULL.
 * @param page_size
 *   Set to the GPU page size in bytes. May be NULL.
 * @return
 *   0; -ENOENT unknown handle; -EIDRM the pin was revoked (its GPU memory
 *   was freed); -EPERM addresses requested without the capability;
 *   -ERANGE @p max_entries too small.
 */
int gpudp_pin_get_table(int fd, uint64_t handle, uint64_t *addrs,
			uint32_t max_entries, uint32_t *entries,
			uint32_t *page_size);

/**
 * Query a pin's state: GPUDP_PIN_STATE_VALID or _REVOKED.
 *
 * @param fd
 *   Descriptor the pin was made through.
 * @param handle
 *   Pin handle.
 * @param q
 *   Filled on success.
 * @return
 *   0 or -ENOENT. For a dma-buf attachment @p q->aligned_va is the offset
 *   in the buffer and GPUDP_PIN_QF_DMABUF is set in @p q->flags.
 */
int gpudp_pin_query(int fd, uint64_t handle, struct gpudp_pin_query *q);

/**
 * Map a pin for DMA by a peer PCI device (nvidia_p2p_dma_map_pages) and
 * read the bus addresses the device must use. One peer mapping per pin.
 * Needs CAP_SYS_ADMIN or CAP_SYS_RAWIO.
 *
 * @param fd
 *   Descriptor the pin was made through.
 * @param handle
 *   Pin handle.
 * @param domain
 *   PCI domain of the peer.
 * @param bus
 *   PCI bus of the peer.
 * @param devfn
 *   PCI device and function of the peer, (slot << 3) | function.
 * @param addrs
 *   Array receiving one bus address per page, or NULL.
 * @param max_entries
 *   Capacity of @p addrs.
 * @param entries
 *   Set to the number of pages (also on -ERANGE). May be NULL.
 * @param page_size
 *   Set to the page size in bytes. May be NULL.
 * @return
 *   0; -EPERM no capability; -ENOENT unknown handle; -ENODEV no such PCI
 *   device; -EIDRM revoked; -EBUSY already mapped for a peer; -ERANGE
 *   @p max_entries too small (nothing mapped); -EOPNOTSUPP the pin has 4
 *   KiB pages, which NVIDIA's driver cannot map for peers.
 */
int gpudp_pin_map_peer(int fd, uint64_t handle, uint32_t domain,
		       uint8_t bus, uint8_t devfn, uint64_t *addrs,
		       uint32_t max_entries, uint32_t *entries,
		       uint32_t *page_size);

/**
 * Undo gpudp_pin_map_peer().
 *
 * @param fd
 *   Descriptor the pin was made through.
 * @param handle
 *   Pin handle.
 * @return
 *   0; -ENOENT unknown handle; -EIDRM revoked (the mapping is gone with
 *   it); -EINVAL no peer mapping.
 */
int gpudp_pin_unmap_peer(int fd, uint64_t handle);

/**
 * Attach a dma-buf (for example one exported with
 * cuMemGetHandleForAddressRange(CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD)) and
 * map [offset, offset + len) of it for DMA by a PCI device. The result is
 * used like a pin: gpudp_pin_get_table() reads the DMA addresses,
 * gpudp_pin_query() reports GPUDP_PIN_STATE_REVOKED (with
 * GPUDP_PIN_QF_DMABUF in its flags) once the exporter revoked the buffer
 * (move_notify: the GPU memory was freed), gpudp_pin_unpin() detaches, and
 * so does closing @p fd. No mmap, no peer mapping (it is one already).
 * Needs CAP_SYS_ADMIN or CAP_SYS_RAWIO and GPUDP_PIN_CAP_DMABUF.
 *
 * @param fd
 *   Descriptor from gpudp_pin_open().
 * @param dmabuf_fd
 *   The dma-buf; the module keeps its own reference, so it may be closed
 *   as soon as this returns.
 * @param offset
 *   First byte of the buffer to map, a multiple of 64 KiB.
 * @param len
 *   Bytes to map, > 0, a multiple of 64 KiB.
 * @param pci_domain
 *   PCI domain of the device that will DMA (the NIC), or -1 for none: the
 *   addresses are then CPU physical addresses (the module's own device,
 *   which no IOMMU translates for); exporters of GPU memory may refuse it.
 * @param bus
 *   PCI bus of that device (0 with @p pci_domain -1).
 * @param devfn
 *   Its device and function, (slot << 3) | function (0 with -1).
 * @param out
 *   Filled on success: handle, entries, page_size (64 KiB, or 4 KiB when
 *   the exporter's mapping is not contiguous over each 64 KiB), size of
 *   the whole buffer.
 * @return
 *   0; -EINVAL unknown flags, non-zero padding, zero or unaligned
 *   @p offset / @p len; -EOVERFLOW offset + len wraps; -EPERM no
 *   capability; -E2BIG longer than the fd's budget; -EBADF @p dmabuf_fd is
 *   not open; -EBADFD it is not a dma-buf; -ENXIO the range ends beyond
 *   the buffer; -ENODEV no such PCI device; -ENOSPC does not fit next to
 *   the fd's other pins; -EIDRM the exporter revoked the buffer (its
 *   memory was freed); -EPROTO the exporter's mapping does not cover the
 *   range in page-aligned pieces; -ENOMEM; -EOPNOTSUPP a module without
 *   dma-buf support; another negative errno from the exporter.
 */
int gpudp_pin_attach_dmabuf(int fd, int dmabuf_fd, uint64_t offset,
			    uint64_t len, int32_t pci_domain, uint8_t bus,
			    uint8_t devfn, struct gpudp_pin_dmabuf *out);

/**
 * Map a pinned range into the caller, write-combined (MAP_SHARED).
 *
 * @param fd
 *   Descriptor the pin was made through.
 * @param pin
 *   The pin, as gpudp_pin_pin() returned it.
 * @param offset
 *   Offset into the pinned range (from aligned_va), a multiple of the CPU
 *   page size.
 * @param len
 *   Bytes to map, at most pin->aligned_len - @p offset.
 * @param addr
 *   Set to the mapping's address on success.
 * @return
 *   0; -ENXIO range outside the pin; -EIDRM revoked; -EINVAL bad
 *   alignment; another negative errno from mmap(2). Once the pin is
 *   unpinned or revoked, accesses to the mapping raise SIGBUS.
 */
int gpudp_pin_mmap(int fd, const struct gpudp_pin_pin *pin, uint64_t offset,
		   size_t len, void **addr);

/**
 * Remove a mapping made by gpudp_pin_mmap().
 *
 * @param addr
 *   Address returned by gpudp_pin_mmap().
 * @param len
 *   Length given to gpudp_pin_mmap().
 * @return
 *   0 or a negative errno from munmap(2).
 */
int gpudp_pin_munmap(void *addr, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* GPUDP_PIN_CLIENT_H */

/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * gpudp_pin: user/kernel ABI of the GPU memory pinning module.
 *
 * This header is shared verbatim by the kernel module (kmod/) and user
 * space (lib/pin/, test programs). Only fixed-width types, every struct
 * padded explicitly to a multiple of 8 bytes, so 32- and 64-bit callers
 * see the same layout. Reserved and padding fields must be zero on input
 * (otherwise -EINVAL), so they can get a meaning later.
 *
 * Device node: /dev/gpudp_pin. Each open file owns its pins and dma-buf
 * attachments; close (or process exit) releases all of them. doc/kmod.md lists every errno.
 */
#ifndef _UAPI_GPUDP_PIN_H
#define _UAPI_GPUDP_PIN_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define GPUDP_PIN_DEVICE_NAME	"gpudp_pin"
#define GPUDP_PIN_DEVICE_PATH	"/dev/gpudp_pin"

/* ABI version: major changes are incompatible, minor ones add features. */
#define GPUDP_PIN_ABI_MAJOR	1
#define GPUDP_PIN_ABI_MINOR	2	/* 1: ATTACH_DMABUF; 2: CAP_TEGRA, F_WC */

/*
 * NV-P2P pins GPU memory in 64 KiB pages (NVIDIA, "GPUDirect RDMA", "Pinning
 * GPU memory"); the Tegra API (GPUDP_PIN_CAP_TEGRA) pins host memory in
 * 4 KiB pages (section "Porting to Tegra").
 */
#define GPUDP_PIN_GPU_PAGE_SHIFT	16
#define GPUDP_PIN_GPU_PAGE_SIZE		(1ULL << GPUDP_PIN_GPU_PAGE_SHIFT)

/* struct gpudp_pin_version.caps */
#define GPUDP_PIN_CAP_PERSISTENT	(1U << 0) /* persistent API built in */
#define GPUDP_PIN_CAP_NV_P2P_H		(1U << 1) /* built against NVIDIA's nv-p2p.h */
#define GPUDP_PIN_CAP_DMABUF		(1U << 2) /* GPUDP_PIN_IOC_ATTACH_DMABUF works */
/*
 * Built for the Tegra NV-P2P API (Jetson, DRIVE: cudaHostAlloc memory):
 * pins are rounded to GPUDP_PIN_TEGRA_PAGE_SIZE instead of 64 KiB, there
 * are no persistent pins, MAP_PEER maps 4 KiB pages, and mmap honours
 * GPUDP_PIN_F_WC.
 */
#define GPUDP_PIN_CAP_TEGRA		(1U << 3)

#define GPUDP_PIN_TEGRA_PAGE_SIZE	4096ULL

/* struct gpudp_pin_pin.flags */
#define GPUDP_PIN_F_PERSISTENT	(1U << 0) /* nvidia_p2p_get_pages_persistent */
#define GPUDP_PIN_F_STRICT	(1U << 1) /* reject unaligned va/len instead of rounding */
/*
 * The memory was allocated write-combined (cudaHostAllocWriteCombined):
 * with GPUDP_PIN_CAP_TEGRA, mmap maps it write-combined, and without this
 * flag leaves the caching of the mapping as for any memory (cached), as
 * the allocation must match. Without GPUDP_PIN_CAP_TEGRA every mapping is
 * write-combined (GPU memory behind a BAR) and the flag changes nothing.
 */
#define GPUDP_PIN_F_WC		(1U << 2)
#define GPUDP_PIN_F_ALL		(GPUDP_PIN_F_PERSISTENT | GPUDP_PIN_F_STRICT | GPUDP_PIN_F_WC)

/* struct gpudp_pin_query.state */
#define GPUDP_PIN_STATE_VALID	1 /* pinned, table readable, mmap works */
#define GPUDP_PIN_STATE_REVOKED	2 /* free callback ran: memory is gone */

/* struct gpudp_pin_query.flags (in addition to the GPUDP_PIN_F_* pin flags) */
#define GPUDP_PIN_QF_PEER_MAPPED	(1U << 16)
#define GPUDP_PIN_QF_DMABUF		(1U << 17) /* a dma-buf attachment */

/* struct gpudp_pin_dmabuf.flags */
#define GPUDP_PIN_DMABUF_F_PCI	(1U << 0) /* pci_* name the importing device */
#define GPUDP_PIN_DMABUF_F_ALL	GPUDP_PIN_DMABUF_F_PCI

/**
 * struct gpudp_pin_version - GPUDP_PIN_IOC_VERSION
 * @abi_major:		GPUDP_PIN_ABI_MAJOR of the module
 * @abi_minor:		GPUDP_PIN_ABI_MINOR of the module
 * @caps:		GPUDP_PIN_CAP_* bits
 * @pad:		zero
 * @max_pinned_bytes:	per-open-file cap (module parameter max_pinned_bytes)
 * @pinned_bytes:	bytes currently pinned through this open file
 */
struct gpudp_pin_version {
	__u32 abi_major;
	__u32 abi_minor;
	__u32 caps;
	__u32 pad;
	__u64 max_pinned_bytes;
	__u64 pinned_bytes;
};

/**
 * struct gpudp_pin_pin - GPUDP_PIN_IOC_PIN
 * @va:		in: GPU virtual address (any alignment unless F_STRICT)
 * @len:	in: length in bytes, > 0
 * @flags:	in: GPUDP_PIN_F_*
 * @pad:	in: zero
 * @handle:	out: pin handle, unique for the module's lifetime, never 0
 * @aligned_va:	out: @va rounded down to 64 KiB (GPUDP_PIN_CAP_TEGRA:
 *		to GPUDP_PIN_TEGRA_PAGE_SIZE, or the CPU page size if larger)
 * @aligned_len: out: pinned length, multiple of the same
 * @offset:	out: @va - @aligned_va
 * @mmap_offset: out: pass to mmap() to map the pin from @aligned_va on
 */
struct gpudp_pin_pin {
	__u64 va;
	__u64 len;
	__u32 flags;
	__u32 pad;
	__u64 handle;
	__u64 aligned_va;
	__u64 aligned_len;
	__u64 offset;
	__u64 mmap_offset;
};

/**
 * struct gpudp_pin_handle - GPUDP_PIN_IOC_UNPIN, GPUDP_PIN_IOC_UNMAP_PEER
 * @handle:	in: pin handle
 */
struct gpudp_pin_handle {
	__u64 handle;
};

/**
 * struct gpudp_pin_table - GPUDP_PIN_IOC_GET_TABLE
 * @handle:	in: pin handle
 * @addrs:	in: user pointer to __u64[@max_entries], or 0 for the sizes only
 *		(addresses need CAP_SYS_ADMIN or CAP_SYS_RAWIO)
 * @max_entries: in: capacity of @addrs
 * @entries:	out: number of GPU pages (set even on -ERANGE)
 * @page_size:	out: GPU page size in bytes (4 KiB, 64 KiB or 128 KiB)
 * @pad:	in: zero
 */
struct gpudp_pin_table {
	__u64 handle;
	__u64 addrs;
	__u32 max_entries;
	__u32 entries;
	__u32 page_size;
	__u32 pad;
};

/**
 * struct gpudp_pin_map_peer - GPUDP_PIN_IOC_MAP_PEER
 * @handle:	in: pin handle
 * @addrs:	in: user pointer to __u64[@max_entries] for the bus addresses
 *		the peer must use, or 0
 * @pci_domain:	in: PCI domain of the peer device
 * @pci_bus:	in: PCI bus of the peer device
 * @pci_devfn:	in: PCI device/function of the peer device (PCI_DEVFN())
 * @pad0:	in: zero
 * @max_entries: in: capacity of @addrs
 * @entries:	out: number of DMA addresses (set even on -ERANGE)
 * @page_size:	out: page size of the mapping in bytes
 * @pad1:	in: zero
 */
struct gpudp_pin_map_peer {
	__u64 handle;
	__u64 addrs;
	__u32 pci_domain;
	__u8 pci_bus;
	__u8 pci_devfn;
	__u16 pad0;
	__u32 max_entries;
	__u32 entries;
	__u32 page_size;
	__u32 pad1;
};

/**
 * struct gpudp_pin_dmabuf - GPUDP_PIN_IOC_ATTACH_DMABUF
 * @fd:		in: dma-buf file descriptor; the module takes its own
 *		reference, the caller may close it once the ioctl returned
 * @flags:	in: GPUDP_PIN_DMABUF_F_*
 * @offset:	in: first byte of the buffer to map, multiple of 64 KiB
 * @len:	in: bytes to map, > 0, multiple of 64 KiB, within the buffer
 * @pci_domain:	in: with F_PCI, PCI domain of the device that will DMA
 *		(the NIC): the addresses are mapped for it, so they are right
 *		under an IOMMU. Without F_PCI the three pci_* fields must be 0
 *		and the attachment is made for the module's own device, which
 *		has no IOMMU translation: the addresses are then CPU physical
 *		addresses, as PIN gives (exporters of GPU memory may refuse
 *		that; name the NIC)
 * @pci_bus:	in: PCI bus of that device
 * @pci_devfn:	in: PCI device/function of that device (PCI_DEVFN())
 * @pad0:	in: zero
 * @entries:	out: number of pages in the table GET_TABLE returns
 * @page_size:	out: their size: 64 KiB, or 4 KiB when the exporter's
 *		mapping is not contiguous over every 64 KiB page
 * @handle:	out: handle, used like a pin handle (GET_TABLE, QUERY,
 *		UNPIN detaches); unique for the module's lifetime, never 0
 * @size:	out: size of the whole dma-buf
 */
struct gpudp_pin_dmabuf {
	__s32 fd;
	__u32 flags;
	__u64 offset;
	__u64 len;
	__u32 pci_domain;
	__u8 pci_bus;
	__u8 pci_devfn;
	__u16 pad0;
	__u32 entries;
	__u32 page_size;
	__u64 handle;
	__u64 size;
};

/**
 * struct gpudp_pin_query - GPUDP_PIN_IOC_QUERY
 * @handle:	in: pin handle
 * @state:	out: GPUDP_PIN_STATE_* (dma-buf: REVOKED once the exporter
 *		invalidated the mapping, through move_notify)
 * @flags:	out: GPUDP_PIN_F_* the pin was made with | GPUDP_PIN_QF_*
 * @aligned_va:	out: first pinned GPU VA (dma-buf: offset in the buffer)
 * @aligned_len: out: pinned length
 * @mmap_offset: out: mmap() offset of the pin (dma-buf: 0, no mmap)
 * @page_size:	out: GPU page size in bytes (0 once revoked)
 * @entries:	out: number of GPU pages (0 once revoked)
 */
struct gpudp_pin_query {
	__u64 handle;
	__u32 state;
	__u32 flags;
	__u64 aligned_va;
	__u64 aligned_len;
	__u64 mmap_offset;
	__u32 page_size;
	__u32 entries;
};

#define GPUDP_PIN_IOC_MAGIC	0xD5

#define GPUDP_PIN_IOC_VERSION	_IOR(GPUDP_PIN_IOC_MAGIC, 0x00, struct gpudp_pin_version)
#define GPUDP_PIN_IOC_PIN	_IOWR(GPUDP_PIN_IOC_MAGIC, 0x01, struct gpudp_pin_pin)
#define GPUDP_PIN_IOC_UNPIN	_IOW(GPUDP_PIN_IOC_MAGIC, 0x02, struct gpudp_pin_handle)
#define GPUDP_PIN_IOC_GET_TABLE	_IOWR(GPUDP_PIN_IOC_MAGIC, 0x03, struct gpudp_pin_table)
#define GPUDP_PIN_IOC_QUERY	_IOWR(GPUDP_PIN_IOC_MAGIC, 0x04, struct gpudp_pin_query)
#define GPUDP_PIN_IOC_MAP_PEER	_IOWR(GPUDP_PIN_IOC_MAGIC, 0x05, struct gpudp_pin_map_peer)
#define GPUDP_PIN_IOC_UNMAP_PEER _IOW(GPUDP_PIN_IOC_MAGIC, 0x06, struct gpudp_pin_handle)
#define GPUDP_PIN_IOC_ATTACH_DMABUF _IOWR(GPUDP_PIN_IOC_MAGIC, 0x07, struct gpudp_pin_dmabuf)

#endif /* _UAPI_GPUDP_PIN_H */

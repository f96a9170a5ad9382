/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * nvidia_p2p_sim: TEST-ONLY simulator of NVIDIA's NV-P2P provider.
 * Control interface of /dev/nvidia_p2p_sim, shared by the module and the
 * guest test programs. Never load this module on a machine with a GPU.
 */
#ifndef _UAPI_NVIDIA_P2P_SIM_H
#define _UAPI_NVIDIA_P2P_SIM_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define NVP2P_SIM_DEVICE_PATH	"/dev/nvidia_p2p_sim"

/*
 * Fake cudaMalloc (Tegra personality: cudaHostAlloc): @size rounded up to
 * 64 KiB, @va returned 64 KiB aligned.
 */
struct nvp2p_sim_alloc {
	__u64 size;
	__u64 va;
};

/* Fake cudaFree of the allocation starting at @va: fires free callbacks. */
struct nvp2p_sim_va {
	__u64 va;
};

/*
 * Export [@va, @va + @len) of one allocation as a dma-buf, as the NVIDIA
 * driver does for cuMemGetHandleForAddressRange(DMA_BUF_FD): @va and @len
 * page aligned, @flags 0; the new descriptor (O_CLOEXEC) in @fd. Byte 0 of
 * the buffer is @va. FREE of the allocation revokes the buffer: attached
 * dynamic importers get move_notify, later mappings fail with -EIDRM.
 */
struct nvp2p_sim_export {
	__u64 va;
	__u64 len;
	__u32 flags;
	__s32 fd;
};

/* Read (PEEK) or write (POKE) the u64 at GPU VA @va through the kernel. */
struct nvp2p_sim_word {
	__u64 va;
	__u64 value;
};

/*
 * Fault injection, global, replaced as a whole by NVP2P_SIM_IOC_FAULT.
 * @get_pages_err:	errno (negative) returned by the next @fail_count
 *			get_pages/get_pages_persistent calls
 * @fail_count:		see above
 * @page_4k:		build page tables of 4 KiB pages instead of 64 KiB
 * @race_put:		put_pages finds the table still registered: the
 *			"GPU side" tears it down first, running the free
 *			callback on another thread while put_pages waits, as
 *			a cudaFree racing with the unpin would. 2: moreover
 *			that teardown counts as finished before put_pages was
 *			called, so that a table the client freed in that
 *			callback was handed to put_pages after its free (a
 *			violation on Tegra, where the table is the handle)
 * @cb_delay_us:	sleep this long before running each free callback
 * @bad_version:	hand out tables with an incompatible version word
 * @cb_thread:		FREE runs the callbacks on a worker thread
 * @map_err:		errno (negative) every dma-buf mapping fails with
 */
struct nvp2p_sim_fault {
	__s32 get_pages_err;
	__u32 fail_count;
	__u32 page_4k;
	__u32 race_put;
	__u32 cb_delay_us;
	__u32 bad_version;
	__u32 cb_thread;
	__s32 map_err;
};

/* Counters; "live" ones must be 0 once every client is gone. */
struct nvp2p_sim_stats {
	__u64 tables_live;	/* page tables handed out and not freed */
	__u64 dmas_live;	/* dma mappings not freed */
	__u64 allocs_live;	/* fake GPU allocations */
	__u64 get_pages;	/* successful get_pages{,_persistent} */
	__u64 put_pages;	/* put_pages{,_persistent} calls */
	__u64 callbacks;	/* free callbacks run */
	__u64 violations;	/* API contract violations by the client */
	__u64 dma_maps;		/* successful dma_map_pages */
	__u64 exports_live;	/* dma-bufs exported and not released */
	__u64 dmabuf_maps_live;	/* dma-buf mappings not unmapped */
	__u64 dmabuf_maps;	/* successful dma-buf mappings */
	__u64 move_notifies;	/* dma-bufs revoked by FREE (move_notify) */
	__u64 dmabuf_pins_live;	/* dma_buf_pin() not undone by dma_buf_unpin() */
	__u64 dmabuf_pins;	/* dma_buf_pin() calls */
	__u64 put_callbacks;	/* callbacks run by put_pages itself (Tegra) */
	__u64 dma_maps_bidirectional; /* dma_map_pages for DMA_BIDIRECTIONAL */
	__u64 tegra;		/* 1: the Tegra personality (NV_P2P=tegra) */
	/* PCI function of the last dma_map_pages: domain << 16 | bus << 8 | devfn */
	__u64 dma_last_peer;
};

/*
 * How the caller's mapping at user address @addr is cached, from its VMA's
 * vm_page_prot: NVP2P_SIM_PROT_DEFAULT (what the kernel gives any mapping
 * of these flags), _WC (pgprot_writecombine() of that) or _OTHER.
 */
struct nvp2p_sim_prot {
	__u64 addr;
	__u32 prot;
	__u32 pad;
};

#define NVP2P_SIM_PROT_DEFAULT	1
#define NVP2P_SIM_PROT_WC	2
#define NVP2P_SIM_PROT_OTHER	3

#define NVP2P_SIM_IOC_MAGIC	0xD6
#define NVP2P_SIM_IOC_ALLOC	_IOWR(NVP2P_SIM_IOC_MAGIC, 1, struct nvp2p_sim_alloc)
#define NVP2P_SIM_IOC_FREE	_IOW(NVP2P_SIM_IOC_MAGIC, 2, struct nvp2p_sim_va)
#define NVP2P_SIM_IOC_PEEK	_IOWR(NVP2P_SIM_IOC_MAGIC, 3, struct nvp2p_sim_word)
#define NVP2P_SIM_IOC_POKE	_IOW(NVP2P_SIM_IOC_MAGIC, 4, struct nvp2p_sim_word)
#define NVP2P_SIM_IOC_FAULT	_IOW(NVP2P_SIM_IOC_MAGIC, 5, struct nvp2p_sim_fault)
#define NVP2P_SIM_IOC_STATS	_IOR(NVP2P_SIM_IOC_MAGIC, 6, struct nvp2p_sim_stats)
#define NVP2P_SIM_IOC_EXPORT_DMABUF _IOWR(NVP2P_SIM_IOC_MAGIC, 7, struct nvp2p_sim_export)
#define NVP2P_SIM_IOC_PROT	_IOWR(NVP2P_SIM_IOC_MAGIC, 8, struct nvp2p_sim_prot)

/* Bias the simulator adds to physical addresses to make "bus" addresses. */
#define NVP2P_SIM_DMA_BIAS	(1ULL << 44)

#endif /* _UAPI_NVIDIA_P2P_SIM_H */

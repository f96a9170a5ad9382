/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * gpudp's own declarations of the Tegra (Jetson, DRIVE) form of NVIDIA's
 * NV-P2P kernel API, written from NVIDIA's GPUDirect RDMA guide, section
 * Porting to Tegra ("Modification to Kernel API"): no tokens, put_pages and
 * dma_unmap_pages take the table or mapping only, dma_map_pages takes the
 * peer's struct device and a DMA direction. Pages are ordinary host pages
 * (cudaHostAlloc memory) in 4 KiB units.
 *
 * gpudp_nv_p2p.h includes this header for builds with NV_P2P=tegra and no
 * NVIDIA_SRC: the module and the TEST-ONLY provider (test/kmod/sim/) are
 * then built against the same declarations. On a Jetson, build with
 * NVIDIA_SRC naming the directory of the L4T kernel's nv-p2p.h instead
 * (doc/kmod.md, section Tegra): its symbol CRCs are the ones the real
 * provider exports.
 *
 * Only the fields gpudp_pin reads are declared; L4T's structs have more,
 * which is harmless here (nothing but the provider allocates them).
 */
#ifndef GPUDP_NV_P2P_TEGRA_H
#define GPUDP_NV_P2P_TEGRA_H

#include <linux/dma-direction.h>
#include <linux/types.h>

struct device;
struct page;

enum nvidia_p2p_page_size_type {
	NVIDIA_P2P_PAGE_SIZE_4KB = 0,
	NVIDIA_P2P_PAGE_SIZE_64KB,
	NVIDIA_P2P_PAGE_SIZE_128KB,
	NVIDIA_P2P_PAGE_SIZE_COUNT
};

/* What get_pages pinned: @entries host pages of @page_size from @vaddr. */
struct nvidia_p2p_page_table {
	u32 page_size;		/* enum nvidia_p2p_page_size_type */
	u64 size;		/* bytes */
	u32 entries;
	struct page **pages;
	u64 vaddr;
};

/*
 * A table mapped for @dev: @entries segments, segment i at bus address
 * hw_address[i], hw_len[i] bytes long (contiguous pages may share one).
 */
struct nvidia_p2p_dma_mapping {
	dma_addr_t *hw_address;
	u32 *hw_len;
	u32 entries;
	enum dma_data_direction direction;
	struct device *dev;
	struct nvidia_p2p_page_table *page_table;
};

int nvidia_p2p_get_pages(u64 virtual_address, u64 length,
			 struct nvidia_p2p_page_table **page_table,
			 void (*free_callback)(void *data), void *data);
int nvidia_p2p_put_pages(struct nvidia_p2p_page_table *page_table);
int nvidia_p2p_free_page_table(struct nvidia_p2p_page_table *page_table);
int nvidia_p2p_dma_map_pages(struct device *dev,
			     struct nvidia_p2p_page_table *page_table,
			     struct nvidia_p2p_dma_mapping **dma_mapping,
			     enum dma_data_direction direction);
int nvidia_p2p_dma_unmap_pages(struct nvidia_p2p_dma_mapping *dma_mapping);
int nvidia_p2p_free_dma_mapping(struct nvidia_p2p_dma_mapping *dma_mapping);

#endif /* GPUDP_NV_P2P_TEGRA_H */

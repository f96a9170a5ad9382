/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Declarations of NVIDIA's kernel NV-P2P API used by gpudp_pin.
 *
 * Built with NVIDIA_SRC=<driver source dir holding nv-p2p.h> (see
 * kmod/Makefile and doc/kmod.md), this header includes the driver's own
 * nv-p2p.h, which is the only way to get symbol CRCs that match a real
 * nvidia.ko. Without it, the declarations below are the project's own,
 * written from the GPUDirect RDMA guide, chapter "References", section
 * "Kernel API"; they are what the test provider (test/kmod/sim/) exports.
 * With NV_P2P=tegra (and no NVIDIA_SRC), gpudp_nv_p2p_tegra.h's own
 * declarations of the Tegra form are used instead.
 *
 * Which of the two APIs the header in use declares is not taken from these
 * switches: kmod/features.sh compiles calls of each form against it and
 * defines GPUDP_NV_P2P_TEGRA or GPUDP_NV_P2P_DESKTOP (gpudp_features.h).
 */
#ifndef GPUDP_NV_P2P_H
#define GPUDP_NV_P2P_H

#ifdef GPUDP_HAVE_NV_P2P_H

#include <linux/types.h>	/* nv-p2p.h uses uint64_t without including it */
#include <nv-p2p.h>

#elif defined(GPUDP_OWN_NV_P2P_TEGRA)

#include "gpudp_nv_p2p_tegra.h"

#else /* neither: our own declarations of the desktop API */

#include <linux/types.h>

struct pci_dev;

/*
 * Version words: major in the upper 16 bits, minor in the lower 16.
 * A table is usable when its major equals ours and its minor is at least
 * ours (guide, "Kernel API", "Preprocessor macros").
 */
#define NVIDIA_P2P_MAJOR_OF(v)		(((v) >> 16) & 0xffffU)
#define NVIDIA_P2P_MINOR_OF(v)		((v) & 0xffffU)
#define NVIDIA_P2P_VERSION_OK(have, want)				\
	(NVIDIA_P2P_MAJOR_OF(have) == NVIDIA_P2P_MAJOR_OF(want) &&	\
	 NVIDIA_P2P_MINOR_OF(have) >= NVIDIA_P2P_MINOR_OF(want))

#define NVIDIA_P2P_PAGE_TABLE_VERSION	0x00010002U
#define NVIDIA_P2P_PAGE_TABLE_VERSION_COMPATIBLE(p)			\
	NVIDIA_P2P_VERSION_OK((p)->version, NVIDIA_P2P_PAGE_TABLE_VERSION)

#define NVIDIA_P2P_DMA_MAPPING_VERSION	0x00020003U
#define NVIDIA_P2P_DMA_MAPPING_VERSION_COMPATIBLE(p)			\
	NVIDIA_P2P_VERSION_OK((p)->version, NVIDIA_P2P_DMA_MAPPING_VERSION)

/* Guide, chapter "Changes in CUDA 12.2": the persistent API exists. */
#define NVIDIA_P2P_CAP_GET_PAGES_PERSISTENT_API

enum nvidia_p2p_page_size_type {
	NVIDIA_P2P_PAGE_SIZE_4KB = 0,
	NVIDIA_P2P_PAGE_SIZE_64KB,
	NVIDIA_P2P_PAGE_SIZE_128KB,
	NVIDIA_P2P_PAGE_SIZE_COUNT
};

struct nvidia_p2p_page {
	uint64_t physical_address;
	union nvidia_p2p_request_registers {
		struct {
			uint32_t wreqmb_h;
			uint32_t rreqmb_h;
			uint32_t rreqmb_0;
			uint32_t reserved[3];
		} fermi;
	} registers;
};

struct nvidia_p2p_page_table {
	uint32_t version;
	uint32_t page_size;	/* enum nvidia_p2p_page_size_type */
	struct nvidia_p2p_page **pages;
	uint32_t entries;
	uint8_t *gpu_uuid;
};

struct nvidia_p2p_dma_mapping {
	uint32_t version;
	enum nvidia_p2p_page_size_type page_size_type;
	uint32_t entries;
	uint64_t *dma_addresses;
};

int nvidia_p2p_get_pages(uint64_t p2p_token, uint32_t va_space_token,
			 uint64_t virtual_address, uint64_t length,
			 struct nvidia_p2p_page_table **page_table,
			 void (*free_callback)(void *data), void *data);
int nvidia_p2p_put_pages(uint64_t p2p_token, uint32_t va_space_token,
			 uint64_t virtual_address,
			 struct nvidia_p2p_page_table *page_table);
int nvidia_p2p_free_page_table(struct nvidia_p2p_page_table *page_table);
int nvidia_p2p_get_pages_persistent(uint64_t virtual_address,
				    uint64_t length,
				    struct nvidia_p2p_page_table **page_table,
				    uint32_t flags);
int nvidia_p2p_put_pages_persistent(uint64_t virtual_address,
				    struct nvidia_p2p_page_table *page_table,
				    uint32_t flags);
int nvidia_p2p_dma_map_pages(struct pci_dev *peer,
			     struct nvidia_p2p_page_table *page_table,
			     struct nvidia_p2p_dma_mapping **dma_mapping);
int nvidia_p2p_dma_unmap_pages(struct pci_dev *peer,
			       struct nvidia_p2p_page_table *page_table,
			       struct nvidia_p2p_dma_mapping *dma_mapping);
int nvidia_p2p_free_dma_mapping(struct nvidia_p2p_dma_mapping *dma_mapping);

#endif /* GPUDP_HAVE_NV_P2P_H, GPUDP_OWN_NV_P2P_TEGRA */

#endif /* GPUDP_NV_P2P_H */

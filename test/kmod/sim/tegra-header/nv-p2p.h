/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * TEST-ONLY stand-in for the L4T kernel's nv-p2p.h, for a build with
 * NVIDIA_SRC naming this directory and no NV_P2P: kmod/features.sh must
 * then find the Tegra API from the header alone (test/kmod/arm64.sh). The
 * declarations are gpudp's own, after the includes of a vendor header.
 */
#ifndef GPUDP_TEST_TEGRA_NV_P2P_H
#define GPUDP_TEST_TEGRA_NV_P2P_H

#include <linux/dma-mapping.h>
#include <linux/mmu_notifier.h>

#include "../../../../kmod/gpudp_nv_p2p_tegra.h"

#endif

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpudp_handoff's launch mode (gpudp_handoff.h, doc/ordering.md), on the GPU
 * modes' common part (gpudp_ho_gpu_pvt.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <rte_atomic.h>
#include <rte_common.h>

#ifdef GPUDP_HAS_CUDA

#include "gpudp_ho_gpu_pvt.h"

/* ---- launch: one kernel per burst, after rx_burst returned it ---- */

static int
launch_submit(struct gpudp_handoff *h, struct gpudp_ho_burst *b)
{
	int ret = gpudp_ho_gpu_enter(h);

	/* NVIDIA, "GPUDirect RDMA", "Synchronization and Memory Ordering": the burst is complete
	 * w.r.t. this thread; the launch is the CPU-initiated submission that
	 * orders the NIC's writes before the kernel's reads */
	return ret != 0 ? ret : gpudp_ho_gpu_launch(h, b->slot, b->n, 1);
}

const struct gpudp_ho_ops gpudp_ho_ops_launch = {
	.name = "launch",
	.gpu = 1,
	.setup = gpudp_ho_gpu_setup,
	.stop = gpudp_ho_gpu_stop,
	.teardown = gpudp_ho_gpu_teardown,
	.check = gpudp_ho_gpu_check,
	.submit = launch_submit,
};

#endif /* GPUDP_HAS_CUDA */

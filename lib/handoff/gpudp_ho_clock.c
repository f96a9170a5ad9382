/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpudp_handoff's GPU clock model: kernels' %globaltimer stamps mapped onto
 * the CPU's clock (an offset and a drift rate, measured by the GPU modes,
 * gpudp_handoff_gpu.c).
 */
#include <stdint.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>

#include "gpudp_handoff_pvt.h"

int
gpudp_handoff_clock_sync(struct gpudp_handoff *h)
{
	return h->ops->gpu && h->gpu != NULL ? gpudp_ho_gpu_clock_sync(h) : 0;
}

void
gpudp_ho_clk_publish(struct gpudp_handoff *h, const struct gpudp_ho_clk *e)
{
	uint32_t cur = __atomic_load_n(&h->clk_cur, __ATOMIC_RELAXED);

	h->clk[cur ^ 1] = *e;
	__atomic_store_n(&h->clk_cur, cur ^ 1, __ATOMIC_RELEASE);
}

int
gpudp_handoff_clock_share(struct gpudp_handoff *h, const struct gpudp_handoff *from)
{
	if (h == from)
		return 0;
	if (!h->ops->gpu || h->gpu == NULL || !from->ops->gpu || from->gpu == NULL ||
	    from->clk_t0 == 0 || !gpudp_ho_gpu_same_device(h, from))
		return -EINVAL;
	h->clk_t0 = from->clk_t0;
	h->clk_off0 = from->clk_off0;
	gpudp_ho_clk_publish(h, &from->clk[__atomic_load_n(&from->clk_cur, __ATOMIC_ACQUIRE)]);
	return 0;
}

uint64_t
gpudp_handoff_gpu_to_cpu_ns(const struct gpudp_handoff *h, uint64_t gpu_ns, uint64_t near)
{
	const struct gpudp_ho_clk *c = &h->clk[__atomic_load_n(&h->clk_cur, __ATOMIC_ACQUIRE)];
	double drift = c->rate * (double)(int64_t)(near - c->t_ref);

	return gpu_ns - (uint64_t)(c->off + (int64_t)drift);
}

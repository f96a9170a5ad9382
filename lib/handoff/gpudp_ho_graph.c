/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpudp_handoff's graph mode (gpudp_handoff.h, doc/ordering.md), on the GPU
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

/* ---- graph: graph_batch bursts per CUDA graph ---- */

static int
graph_setup(struct gpudp_handoff *h)
{
	struct ho_gpu *g;
	uint32_t i, j, bsz = h->conf.graph_batch;
	int ret = gpudp_ho_gpu_setup(h);

	if (ret != 0)
		return ret;
	g = GPU(h);
	if (gpudp_cu->cuGraphCreate == NULL || gpudp_cu->cuGraphAddKernelNode == NULL ||
	    gpudp_cu->cuGraphInstantiateWithFlags == NULL || gpudp_cu->cuGraphLaunch == NULL) {
		HO_LOG(ERR, "%s: the driver lacks the CUDA graph API", h->conf.name);
		return -ENOTSUP;
	}
	g->n_graphs = h->conf.ring_size / bsz;
	g->graphs = calloc(g->n_graphs, sizeof(*g->graphs));
	g->execs = calloc(g->n_graphs, sizeof(*g->execs));
	if (g->graphs == NULL || g->execs == NULL)
		return -ENOMEM;
	for (i = 0; i < g->n_graphs; i++) {
		CU_DO(h, gpudp_cu->cuGraphCreate(&g->graphs[i], 0));
		for (j = 0; j < bsz; j++) {
			struct gpudp_ho_kargs a = h->kargs;
			void *params[] = { &a };
			CUDA_KERNEL_NODE_PARAMS p;
			CUgraphNode node;

			a.slot = i * bsz + j;
			a.signal = 1;
			memset(&p, 0, sizeof(p));
			p.func = g->f_burst;
			p.gridDimX = gpudp_ho_gpu_grid(h, h->conf.burst_max);
			p.gridDimY = p.gridDimZ = 1;
			p.blockDimX = h->conf.threads;
			p.blockDimY = p.blockDimZ = 1;
			p.kernelParams = params;
			CU_DO(h, gpudp_cu->cuGraphAddKernelNode(&node, g->graphs[i],
								NULL, 0, &p));
		}
		CU_DO(h, gpudp_cu->cuGraphInstantiateWithFlags(&g->execs[i],
							       g->graphs[i], 0));
	}
	return 0;
}

static int
graph_flush(struct gpudp_handoff *h)
{
	struct ho_gpu *g = GPU(h);
	uint32_t i;
	int ret;

	if (g->pend_n == 0)
		return 0;
	ret = gpudp_ho_gpu_enter(h);
	for (i = 0; ret == 0 && i < g->pend_n; i++) {
		uint32_t s = (g->pend_first + i) & h->mask;

		ret = gpudp_ho_gpu_launch(h, s, h->ctl[s].n, 1);
	}
	g->pend_n = 0;
	return ret;
}

static int
graph_submit(struct gpudp_handoff *h, struct gpudp_ho_burst *b)
{
	struct ho_gpu *g = GPU(h);
	uint32_t bsz = h->conf.graph_batch;
	int ret = gpudp_ho_gpu_enter(h);

	if (ret != 0)
		return ret;
	if (g->pend_n == 0 && b->slot % bsz != 0)
		return gpudp_ho_gpu_launch(h, b->slot, b->n, 1); /* realign to a batch */
	if (g->pend_n == 0)
		g->pend_first = b->slot;
	if (++g->pend_n < bsz)
		return 0;
	g->pend_n = 0;
	h->rx.graphs++;
	CU_DO(h, gpudp_cu->cuGraphLaunch(g->execs[g->pend_first / bsz], g->stream));
	return 0;
}

const struct gpudp_ho_ops gpudp_ho_ops_graph = {
	.name = "graph",
	.gpu = 1,
	.setup = graph_setup,
	.stop = gpudp_ho_gpu_stop,
	.teardown = gpudp_ho_gpu_teardown,
	.check = gpudp_ho_gpu_check,
	.submit = graph_submit,
	.flush = graph_flush,
};

#endif /* GPUDP_HAS_CUDA */

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The work's state (gpudp_work.h, "state"): its tables' sizes and initial
 * contents from the parameter block, the tables in host memory for the CPU
 * modes (the GPU modes' are in gpudp_ho_gpu_mem.c), a state shared with
 * another handoff, and the API: read, write, collect.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "gpudp_handoff_pvt.h"

/* field @p off of the caller's parameter block */
static uint64_t
param_u64(const struct gpudp_handoff *h, uint32_t off)
{
	uint64_t v;

	memcpy(&v, (const uint8_t *)h->params + off, sizeof(v));
	return v;
}

int
gpudp_ho_state_sizes(struct gpudp_handoff *h)
{
	const struct gpudp_work *w = h->work;
	uint32_t k;

	h->st.n = gpudp_work_n_states(w);
	for (k = 0; k < h->st.n; k++) {
		h->st.size[k] = param_u64(h, w->states[k].size_off);
		if (h->st.size[k] > GPUDP_WORK_TABLE_MAX) {
			HO_LOG(ERR, "%s: work %s: state table %u of %" PRIu64 " bytes: at most %llu",
			       h->conf.name, w->name, k, h->st.size[k], GPUDP_WORK_TABLE_MAX);
			return -E2BIG;
		}
	}
	return 0;
}

int
gpudp_ho_state_from(struct gpudp_handoff *h)
{
	const struct gpudp_handoff *o = h->conf.state_from;
	uint32_t k;

	if (o->work != h->work || o->ops->gpu != h->ops->gpu || o->st.n != h->st.n ||
	    (h->ops->gpu && !gpudp_ho_gpu_same_device(h, o))) {
		HO_LOG(ERR, "%s: cannot share the state of %s: another work, mode kind or GPU",
		       h->conf.name, o->conf.name);
		return -EINVAL;
	}
	for (k = 0; k < h->st.n; k++) {
		if (o->st.size[k] != h->st.size[k]) {
			HO_LOG(ERR, "%s: cannot share the state of %s: table %u has %" PRIu64
			       " bytes there, %" PRIu64 " here", h->conf.name, o->conf.name, k,
			       o->st.size[k], h->st.size[k]);
			return -EINVAL;
		}
		h->st.addr[k] = o->st.addr[k];
	}
	h->st.own = 0;
	return 0;
}

/* the block the CPU form reads: the caller's, with the state's addresses */
static int
cpu_run_params(struct gpudp_handoff *h)
{
	const struct gpudp_work *w = h->work;
	uint32_t k;

	h->st.run_params = malloc(RTE_MAX(w->params_size, 1u));
	if (h->st.run_params == NULL)
		return -ENOMEM;
	memcpy(h->st.run_params, h->params, w->params_size);
	for (k = 0; k < h->st.n; k++)
		memcpy((uint8_t *)h->st.run_params + w->states[k].ptr_off, &h->st.addr[k],
		       sizeof(uint64_t));
	return 0;
}

int
gpudp_ho_state_cpu(struct gpudp_handoff *h)
{
	const struct gpudp_work *w = h->work;
	uint32_t k;
	int ret = gpudp_ho_state_sizes(h);

	if (ret == 0 && h->conf.state_from != NULL) {
		ret = gpudp_ho_state_from(h);
		return ret != 0 || h->st.n == 0 ? ret : cpu_run_params(h);
	}
	if (ret != 0 || h->st.n == 0)
		return ret;
	h->st.own = 1;
	for (k = 0; k < h->st.n; k++) {
		uint64_t init = param_u64(h, w->states[k].ptr_off);
		void *t;

		if (h->st.size[k] == 0)
			continue;
		t = aligned_alloc(64, RTE_ALIGN_CEIL(h->st.size[k], 64));
		if (t == NULL) {
			HO_LOG(ERR, "%s: work %s: state table %u (%" PRIu64 " bytes): out of memory",
			       h->conf.name, w->name, k, h->st.size[k]);
			return -ENOMEM;
		}
		if (init != 0)
			memcpy(t, (const void *)(uintptr_t)init, h->st.size[k]);
		else
			memset(t, 0, h->st.size[k]);
		h->st.addr[k] = (uint64_t)(uintptr_t)t;
	}
	return cpu_run_params(h);
}

void
gpudp_ho_state_cpu_free(struct gpudp_handoff *h)
{
	uint32_t k;

	for (k = 0; h->st.own && k < h->st.n; k++)
		free((void *)(uintptr_t)h->st.addr[k]);
	free(h->st.run_params);
	h->st.run_params = NULL;
	h->st.own = 0;
}

/* @p k, @p off and @p len within a state table that exists */
static int
state_range(const struct gpudp_handoff *h, uint32_t k, uint64_t off, uint64_t len)
{
	if (h == NULL || k >= h->st.n || h->st.addr[k] == 0 || off > h->st.size[k] ||
	    len > h->st.size[k] - off)
		return -EINVAL;
	return 0;
}

uint64_t
gpudp_handoff_state_size(const struct gpudp_handoff *h, uint32_t k)
{
	return h != NULL && k < h->st.n && h->st.addr[k] != 0 ? h->st.size[k] : 0;
}

int
gpudp_handoff_state_read(struct gpudp_handoff *h, uint32_t k, uint64_t off, void *dst,
			 uint64_t len)
{
	int ret = state_range(h, k, off, len);

	if (ret != 0 || len == 0)
		return ret;
	if (h->ops->gpu)
		return gpudp_ho_gpu_state_copy(h, k, off, dst, len, 1);
	memcpy(dst, (const uint8_t *)(uintptr_t)h->st.addr[k] + off, len);
	return 0;
}

int
gpudp_handoff_state_write(struct gpudp_handoff *h, uint32_t k, uint64_t off,
			  const void *src, uint64_t len)
{
	int ret = state_range(h, k, off, len);

	if (ret != 0 || len == 0)
		return ret;
	if (h->ops->gpu)
		return gpudp_ho_gpu_state_copy(h, k, off, (void *)(uintptr_t)src, len, 0);
	if (src != NULL)
		memcpy((uint8_t *)(uintptr_t)h->st.addr[k] + off, src, len);
	else
		memset((uint8_t *)(uintptr_t)h->st.addr[k] + off, 0, len);
	return 0;
}

int
gpudp_handoff_collect(struct gpudp_handoff *h, void *arg)
{
	gpudp_work_collect_fn *fn = h != NULL ? gpudp_work_collect(h->work) : NULL;
	void *state[GPUDP_WORK_TABLES_MAX] = { NULL };
	uint64_t size[GPUDP_WORK_TABLES_MAX] = { 0 };
	uint32_t k;
	int ret = 0;

	if (fn == NULL)
		return -ENOTSUP;
	if (h->head != __atomic_load_n(&h->tail, __ATOMIC_ACQUIRE))
		return -EBUSY;
	for (k = 0; k < h->st.n && ret == 0; k++) {
		size[k] = gpudp_handoff_state_size(h, k);
		if (size[k] == 0)
			continue;
		state[k] = malloc(size[k]);
		ret = state[k] == NULL ? -ENOMEM :
			gpudp_handoff_state_read(h, k, 0, state[k], size[k]);
	}
	if (ret == 0)
		ret = fn(h->params, state, size, arg);
	for (k = 0; k < h->st.n; k++)
		free(state[k]);
	return ret;
}

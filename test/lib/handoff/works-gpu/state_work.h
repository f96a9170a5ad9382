/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TEST work "state": a work with state (gpudp_work.h, "state"). Per packet
 * it adds one to state table 0, a histogram of the packets' first bytes,
 * and the packet's length to state table 1, a total that starts from the
 * value its init gives (STATE_TOTAL_START: the table's initial content).
 * Its collect hook copies both into a struct state_result. The CPU cases
 * (test_work.c) and the GPU cases (fwd_gpu_cases.c) compare what every
 * mode collects with the packets they gave.
 */
#ifndef STATE_WORK_H
#define STATE_WORK_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include <gpudp_work.h>

#define STATE_TOTAL_START 1000u

struct state_params {
	uint64_t hist;        /* state 0: uint64_t[256] */
	uint64_t hist_size;
	uint64_t total;       /* state 1: uint64_t[1], from STATE_TOTAL_START */
	uint64_t total_size;
};

struct state_result {
	uint64_t hist[256];
	uint64_t total;
};

GPUDP_WORK_FN uint32_t
state_pkt(struct gpudp_work_pkt *p)
{
	const struct state_params *pr = (const struct state_params *)p->params;

	gpudp_work_state_add((uint64_t *)(uintptr_t)pr->hist + p->seg[0][0], 1);
	gpudp_work_state_add((uint64_t *)(uintptr_t)pr->total, p->pkt_len);
	return GPUDP_WORK_PASS;
}

/* the descriptor's parts, for C code that builds one (not for a program
 * that only runs the work: STATE_WORK_TYPES_ONLY) */
#if !defined(__CUDACC__) && !defined(STATE_WORK_TYPES_ONLY)
#include <string.h>

static const struct gpudp_work_table state_states[] = {
	{ offsetof(struct state_params, hist), offsetof(struct state_params, hist_size) },
	{ offsetof(struct state_params, total), offsetof(struct state_params, total_size) },
};

static const uint64_t state_total_start = STATE_TOTAL_START;

static int
state_init(const char *arg, void *params, char *err, size_t err_len)
{
	struct state_params *pr = params;

	(void)arg;
	(void)err;
	(void)err_len;
	pr->hist_size = 256 * sizeof(uint64_t);
	pr->total = (uint64_t)(uintptr_t)&state_total_start;
	pr->total_size = sizeof(uint64_t);
	return 0;
}

static int
state_collect(const void *params, void *const *state, const uint64_t *size, void *arg)
{
	struct state_result *r = arg;

	(void)params;
	if (size[0] != sizeof(r->hist) || size[1] != sizeof(r->total))
		return -EINVAL;
	memcpy(r->hist, state[0], sizeof(r->hist));
	memcpy(&r->total, state[1], sizeof(r->total));
	return 0;
}

GPUDP_WORK_CPU(state_cpu, state_pkt)

/* the descriptor, with GPU image @p img (NULL: the CPU modes only) */
#define STATE_WORK_DESC(img) { \
	.abi = GPUDP_WORK_ABI, .size = sizeof(struct gpudp_work), .name = "test_state", \
	.summary = "TEST: a histogram of first bytes and a byte total, as state", \
	.params_size = sizeof(struct state_params), .init = state_init, \
	.cpu = state_cpu, .gpu_image = (img), .n_states = 2, .states = state_states, \
	.collect = state_collect }
#endif

#endif /* STATE_WORK_H */

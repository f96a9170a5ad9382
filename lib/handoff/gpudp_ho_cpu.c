/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpudp_handoff's CPU modes (gpudp_handoff.h): none (no work, every packet
 * passes) and cpu (the work's CPU form on the rx thread).
 */
#include <stdint.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>

#include "gpudp_handoff_pvt.h"

/* packets whose verdict is PASS (0): all of them unless a verdict byte is set */
static uint32_t
count_pass(const uint8_t *v, uint32_t n)
{
	uint64_t any = 0, w;
	uint32_t i = 0, pass = 0;

	for (; i + 8 <= n; i += 8) {
		memcpy(&w, v + i, sizeof(w));
		any |= w;
	}
	for (; i < n; i++)
		any |= v[i];
	if (any == 0)
		return n;
	for (i = 0; i < n; i++)
		pass += v[i] == GPUDP_WORK_PASS;
	return pass;
}

/* none mode, a timed burst: the clock is read on timed bursts only, out of
 * line */
static __rte_noinline void
none_timed(struct gpudp_ho_ctl *c, const struct gpudp_ho_burst *b)
{
	c->t_kstart = gpudp_ho_now_ns();
	c->n_pass = b->n;
	c->t_kend = gpudp_ho_now_ns();
	__atomic_store_n(&c->done, b->seq, __ATOMIC_RELEASE);
}

static int
none_submit(struct gpudp_handoff *h, struct gpudp_ho_burst *b)
{
	struct gpudp_ho_ctl *c = &h->ctl[b->slot];

	if (unlikely(b->t_submit != 0)) {
		none_timed(c, b);
		return 0;
	}
	c->t_kstart = 0;
	c->n_pass = b->n;  /* verdicts not written (gpudp_ho_burst.n_pass) */
	c->t_kend = 0;
	__atomic_store_n(&c->done, b->seq, __ATOMIC_RELEASE);
	return 0;
}

/* cpu mode: the work's CPU form on the burst, on the rx thread */
static int
cpu_submit(struct gpudp_handoff *h, struct gpudp_ho_burst *b)
{
	struct gpudp_ho_ctl *c = &h->ctl[b->slot];
	uint8_t *v = h->verdict + (size_t)b->slot * h->conf.burst_max;
	const struct gpudp_work_burst wb = {
		.n = b->n, .segs = b->segs, .addr = b->addr, .len = b->len,
		.xaddr = b->xaddr, .xlen = b->xlen,
		.params = h->st.run_params != NULL ? h->st.run_params : h->params,
		.verdict = v, .result = (uint8_t *)(uintptr_t)b->result,
		.result_size = b->result_size, .n_reasons = h->work->n_reasons,
		.counters = (uint64_t *)(uintptr_t)b->counters, .meta = b->meta,
	};

	c->t_kstart = cpu_kstart(b);
	if (h->work->n_counters != 0)
		memset(wb.counters, 0, h->work->n_counters * sizeof(uint64_t));
	h->work->cpu(&wb);
	c->n_pass = count_pass(v, b->n);
	c->t_kend = cpu_kstart(b);
	__atomic_store_n(&c->done, b->seq, __ATOMIC_RELEASE);
	return 0;
}

const struct gpudp_ho_ops gpudp_ho_ops_none = {
	.name = "none",
	.no_desc = 1,
	.submit = none_submit,
};

const struct gpudp_ho_ops gpudp_ho_ops_cpu = {
	.name = "cpu",
	.submit = cpu_submit,
};

/* SPDX-License-Identifier: BSD-3-Clause */
/* gpudp_handoff's latency histograms: log-linear buckets, 16 per power of two. */
#include <stdint.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>

#include "gpudp_handoff_pvt.h"

static unsigned int
hist_index(uint64_t v)
{
	unsigned int e;

	if (v < 16)
		return (unsigned int)v;
	e = 63 - (unsigned int)__builtin_clzll(v);       /* >= 4 */
	e = (e - 3) * 16 + (unsigned int)((v >> (e - 4)) & 15);
	return e < GPUDP_HO_HIST_BUCKETS ? e : GPUDP_HO_HIST_BUCKETS - 1;
}

/* the largest value of bucket i */
static uint64_t
hist_upper(unsigned int i)
{
	unsigned int e, sub;

	if (i < 16)
		return i;
	e = i / 16 + 3;
	sub = i % 16;
	return ((16ull + sub + 1) << (e - 4)) - 1;
}

uint64_t
gpudp_ho_hist_bucket_max(unsigned int i)
{
	return i + 1 < GPUDP_HO_HIST_BUCKETS ? hist_upper(i) : UINT64_MAX;
}

void
gpudp_ho_hist_add(struct gpudp_ho_hist *h, uint64_t ns)
{
	h->count++;
	h->sum_ns += ns;
	if (ns > h->max_ns)
		h->max_ns = ns;
	h->b[hist_index(ns)]++;
}

uint64_t
gpudp_ho_hist_quantile(const struct gpudp_ho_hist *h, double q)
{
	uint64_t want, seen = 0;
	unsigned int i;

	if (h->count == 0)
		return 0;
	want = (uint64_t)(q * (double)h->count);
	if (want >= h->count)
		want = h->count - 1;
	for (i = 0; i < GPUDP_HO_HIST_BUCKETS; i++) {
		seen += h->b[i];
		if (seen > want)
			return RTE_MIN(hist_upper(i), h->max_ns);
	}
	return h->max_ns;
}

void
gpudp_ho_hist_merge(struct gpudp_ho_hist *dst, const struct gpudp_ho_hist *src)
{
	unsigned int i;

	dst->count += src->count;
	dst->sum_ns += src->sum_ns;
	dst->max_ns = RTE_MAX(dst->max_ns, src->max_ns);
	for (i = 0; i < GPUDP_HO_HIST_BUCKETS; i++)
		dst->b[i] += src->b[i];
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The flow monitor (gpudp_analysis.h, gpudp_analysis_life_start(); guide
 * doc/flows.md): flows end on idle and active timeouts, TCP FIN in both
 * directions or RST, room needed in the table, or the end of the input;
 * each ended flow's slot gives its records (gpudp_flow_rec.h) and becomes
 * DEAD, then every run of slots in use loses its DEAD slots (the flows
 * after them move back), so the table stays bounded and its probe
 * sequences short however long the input runs. Time is the
 * packets' timestamps, so a file gives the same records however fast it is
 * read.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpudp_analysis.h"
#include "gpudp_flow_scan.h"

#define NS 1000000000ull
#define DEF_IDLE_NS (15 * NS)
#define DEF_ACTIVE_NS (1800 * NS)
#define DEF_SCAN_NS NS
#define RTE_ALIGN_CEIL_(v, a) (((v) + (a) - 1) / (a) * (a))
/* records given to the export function at once */
#define OUT_MAX 256

struct gpudp_flow_life_state {
	struct gpudp_flow_life conf;
	gpudp_flow_export_fn *fn;
	void *arg;
	uint64_t now;           /* newest packet time seen */
	uint64_t scan_t;        /* when the table was last looked over */
	uint64_t pkts_at_scan;  /* packets analysed then (each may have taken a slot since) */
	struct gpudp_flow_life_stats st;
	struct gpudp_flow_export *ex;  /* the export area: room for the whole table */
};

struct gpudp_flow_life
gpudp_flow_life_settings(const struct gpudp_flow_life *l)
{
	struct gpudp_flow_life s = *l;

	if (s.idle_ns == 0)
		s.idle_ns = DEF_IDLE_NS;
	if (s.active_ns == 0)
		s.active_ns = DEF_ACTIVE_NS;
	if (s.scan_ns == 0)
		s.scan_ns = DEF_SCAN_NS;
	return s;
}

int
gpudp_analysis_life_start(struct gpudp_analysis *a, const struct gpudp_flow_life *l,
			  gpudp_flow_export_fn *fn, void *arg)
{
	struct gpudp_flow_life_state *s;

	if (a == NULL || fn == NULL || a->life != NULL || a->ctr.pkts != 0)
		return -EINVAL;
	/* the state, then the export area (room for the whole table) */
	s = calloc(1, RTE_ALIGN_CEIL_(sizeof(*s), 64) + sizeof(*s->ex) +
		   sizeof(s->ex->slot[0]) * ((size_t)a->flow_mask + 1));
	if (s == NULL)
		return -ENOMEM;
	s->ex = (struct gpudp_flow_export *)((uint8_t *)s + RTE_ALIGN_CEIL_(sizeof(*s), 64));
	s->conf = gpudp_flow_life_settings(l);
	s->fn = fn;
	s->arg = arg;
	s->st.capacity = a->flow_mask + 1;
	a->life = s;
	return 0;
}

void
gpudp_analysis_life_stats(const struct gpudp_analysis *a, struct gpudp_flow_life_stats *st)
{
	if (a == NULL || a->life == NULL)
		memset(st, 0, sizeof(*st));
	else
		*st = a->life->st;
}

/* one direction of a slot: @p d sent, the other endpoint received */
static void
dir_fields(const struct gpudp_flow_slot *s, uint32_t d, struct gpudp_flow_rec *r)
{
	uint32_t n = s->key.af == 4 ? 4 : 16;

	memcpy(r->src, s->key.addr[d], n);
	memcpy(r->dst, s->key.addr[1 - d], n);
	if (s->key.proto == 1 || s->key.proto == 58) {
		r->sport = 0;
		r->dport = s->icmp[d] != 0 ? (uint16_t)(s->icmp[d] - 1) : 0;
	} else {
		r->sport = s->key.port[d];
		r->dport = s->key.port[1 - d];
	}
	r->af = s->key.af;
	r->proto = s->key.proto;
	r->tos = (uint8_t)s->attrs[d];
	r->vlan = (uint16_t)(s->attrs[d] >> 8);
	r->tcp_flags = (uint8_t)(s->tcp >> (8 * d));
	r->first_ns = s->dir_first[d];
	r->last_ns = s->dir_last[d];
	r->packets = s->pkts[d];
	r->octets = s->ip_bytes[d];
	r->l2_octets = s->bytes[d];
}

uint32_t
gpudp_flow_slot_records(const struct gpudp_flow_slot *s, uint8_t reason, int biflow,
			struct gpudp_flow_rec *out)
{
	uint32_t d, n = 0;

	if (!biflow) {
		for (d = 0; d < 2; d++) {
			if (s->pkts[d] == 0)
				continue;
			memset(&out[n], 0, sizeof(out[n]));
			dir_fields(s, d, &out[n]);
			out[n++].end_reason = reason;
		}
		return n;
	}
	if (s->pkts[0] + s->pkts[1] == 0)
		return 0;
	/* the endpoint that sent the first packet is the source */
	d = s->pkts[0] == 0 || (s->pkts[1] != 0 && s->dir_first[1] < s->dir_first[0]);
	memset(out, 0, sizeof(*out));
	dir_fields(s, d, out);
	out->flags = GPUDP_FLOW_REC_BIFLOW;
	out->end_reason = reason;
	out->rtcp_flags = (uint8_t)(s->tcp >> (8 * (1 - d)));
	out->rpackets = s->pkts[1 - d];
	out->roctets = s->ip_bytes[1 - d];
	out->rl2_octets = s->bytes[1 - d];
	out->first_ns = s->first_ts;
	out->last_ns = s->last_ts;
	return 1;
}

void
gpudp_flow_export_records(const struct gpudp_flow_slot *slots, uint32_t n, int biflow,
			  gpudp_flow_export_fn *fn, void *arg, struct gpudp_flow_life_stats *st)
{
	struct gpudp_flow_rec out[OUT_MAX];
	uint32_t i, m = 0;

	for (i = 0; i < n; i++) {
		const struct gpudp_flow_slot *s = &slots[i];
		uint32_t k;

		if (m + 2 > OUT_MAX) {
			fn(arg, out, m);
			m = 0;
		}
		k = gpudp_flow_slot_records(s, (uint8_t)s->pad, biflow, out + m);
		m += k;
		st->records += k;
		st->pkts += s->pkts[0] + s->pkts[1];
		if (s->pad < 6)
			st->ended[s->pad]++;
	}
	if (m != 0)
		fn(arg, out, m);
}

/* the records of the export area's slots out, counted */
static void
export_out(struct gpudp_flow_life_state *l, const struct gpudp_flow_export *ex)
{
	gpudp_flow_export_records(ex->slot, ex->count < ex->cap ? ex->count : ex->cap,
				  l->conf.biflow, l->fn, l->arg, &l->st);
}

/* one look at the table, its ended flows' records out; then its runs without dead slots */
static void
look(struct gpudp_analysis *a, struct gpudp_flow_scan *x)
{
	struct gpudp_flow_life_state *l = a->life;

	memset(l->ex, 0, sizeof(*l->ex));
	l->ex->cap = a->flow_mask + 1;
	x->op = GPUDP_FLOW_SCAN_END;
	gpudp_flow_scan_chunk(a->flows, a->flow_mask, x, l->ex, 0);
	export_out(l, l->ex);
	if (l->ex->count == 0)
		return;   /* no flow ended: no dead slot */
	gpudp_flow_mark_chunk(a->flows, a->flow_mask, 1, 0);
	gpudp_flow_reclaim_chunk(a->flows, a->flow_mask, 1, 0);
}

static uint64_t
mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/*
 * Look the table over at @p now: end what is due (everything: @p force);
 * when the next batch could take it past three quarters, the oldest flows
 * end for room.
 */
static uint32_t
scan(struct gpudp_analysis *a, uint64_t now, int force, uint32_t next)
{
	struct gpudp_flow_life_state *l = a->life;
	uint32_t cap = a->flow_mask + 1, used;
	uint64_t before = l->st.records, t0 = mono_ns();
	struct gpudp_flow_scan x = {
		.magic = GPUDP_FLOW_SCAN_MAGIC, .force = (uint32_t)force, .chunks = 1,
		.now = now, .idle_ns = l->conf.idle_ns, .active_ns = l->conf.active_ns,
		.evict_bucket = GPUDP_FLOW_NO_EVICT,
	};

	look(a, &x);
	/* dead slots reclaimed: the slots in use hold the flows left */
	used = l->ex->live;
	if (!force && gpudp_flow_room_short(used, next, cap)) {
		x.evict_bucket = gpudp_flow_evict_bucket(l->ex, cap);
		if (x.evict_bucket != GPUDP_FLOW_NO_EVICT) {
			look(a, &x);
			l->st.evictions++;
		}
		used = l->ex->live;
	}
	l->st.scans++;
	l->st.in_use = used;
	l->st.look_ns += mono_ns() - t0;
	l->pkts_at_scan = a->ctr.pkts;
	l->scan_t = now;
	return (uint32_t)(l->st.records - before);
}

uint32_t
gpudp_analysis_life_tick(struct gpudp_analysis *a, uint64_t now_ns, uint32_t next)
{
	struct gpudp_flow_life_state *l = a != NULL ? a->life : NULL;
	uint32_t cap;

	if (l == NULL)
		return 0;
	cap = a->flow_mask + 1;
	if (now_ns > l->now)
		l->now = now_ns;
	if (gpudp_flow_look_due(l->conf.scan_ns, l->now, l->scan_t, l->st.in_use,
				a->ctr.pkts - l->pkts_at_scan, next, cap))
		return scan(a, l->now, 0, next);
	return 0;
}

uint32_t
gpudp_analysis_life_end(struct gpudp_analysis *a)
{
	if (a == NULL || a->life == NULL)
		return 0;
	return scan(a, a->life->now, 1, 0);
}

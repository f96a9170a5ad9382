/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The flow monitor (gpudp_analysis.h, gpudp_analysis_life_start(); guide
 * doc/flows.md): flows end on idle and active timeouts, TCP FIN in both
 * directions or RST, room needed in the table, or the end of the input;
 * each ended flow's slot gives its records (gpudp_flow_rec.h) and becomes
 * DEAD, and runs of DEAD slots that end at an EMPTY one become EMPTY, so
 * the table stays bounded however long the input runs. Time is the
 * packets' timestamps, so a file gives the same records however fast it is
 * read.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gpudp_analysis.h"

#define NS 1000000000ull
#define DEF_IDLE_NS (15 * NS)
#define DEF_ACTIVE_NS (1800 * NS)
#define DEF_SCAN_NS NS
/* records given to the export function at once */
#define OUT_MAX 256

struct gpudp_flow_life_state {
	struct gpudp_flow_life conf;
	gpudp_flow_export_fn *fn;
	void *arg;
	uint64_t now;           /* newest packet time seen */
	uint64_t scan_t;        /* when the table was last looked over */
	uint32_t in_use;        /* slots in use at the last look */
	uint64_t pkts_at_scan;  /* packets analysed then (each may have taken a slot since) */
	uint32_t n_out;
	struct gpudp_flow_life_stats st;
	struct gpudp_flow_rec out[OUT_MAX];
};

int
gpudp_analysis_life_start(struct gpudp_analysis *a, const struct gpudp_flow_life *l,
			  gpudp_flow_export_fn *fn, void *arg)
{
	struct gpudp_flow_life_state *s;

	if (a == NULL || fn == NULL || a->life != NULL || a->ctr.pkts != 0)
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (s == NULL)
		return -ENOMEM;
	s->conf = *l;
	if (s->conf.idle_ns == 0)
		s->conf.idle_ns = DEF_IDLE_NS;
	if (s->conf.active_ns == 0)
		s->conf.active_ns = DEF_ACTIVE_NS;
	if (s->conf.scan_ns == 0)
		s->conf.scan_ns = DEF_SCAN_NS;
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

static void
out_flush(struct gpudp_flow_life_state *l)
{
	if (l->n_out == 0)
		return;
	l->fn(l->arg, l->out, l->n_out);
	l->n_out = 0;
}

/* the slot's records out; then the flow goes on (active) or its slot dies */
static void
slot_end(struct gpudp_flow_life_state *l, struct gpudp_flow_slot *s, uint8_t reason)
{
	uint32_t n;

	if (l->n_out + 2 > OUT_MAX)
		out_flush(l);
	n = gpudp_flow_slot_records(s, reason, l->conf.biflow, l->out + l->n_out);
	l->n_out += n;
	l->st.records += n;
	l->st.pkts += s->pkts[0] + s->pkts[1];
	l->st.ended[reason]++;
	if (reason != GPUDP_FLOW_END_ACTIVE) {
		s->state = GPUDP_FLOW_DEAD;
		return;
	}
	memset(s->pkts, 0, sizeof(s->pkts));
	memset(s->bytes, 0, sizeof(s->bytes));
	memset(s->ip_bytes, 0, sizeof(s->ip_bytes));
	s->first_ts = ~(uint64_t)0;
	s->last_ts = 0;
	s->dir_first[0] = ~(uint64_t)0;
	s->dir_first[1] = ~(uint64_t)0;
	s->dir_last[0] = 0;
	s->dir_last[1] = 0;
	s->match_pkts = 0;
	s->tcp = 0;
	s->attrs[0] = s->attrs[1] = 0;
	s->icmp[0] = s->icmp[1] = 0;
}

/* why the flow in @p s ends at @p now, or 0: it goes on */
static uint8_t
slot_reason(const struct gpudp_flow_life_state *l, const struct gpudp_flow_slot *s,
	    uint64_t now)
{
	uint32_t f0 = s->tcp & 0xff, f1 = (s->tcp >> 8) & 0xff;

	if (s->key.proto == 6 && (((f0 | f1) & 0x04) != 0 || ((f0 & f1) & 0x01) != 0))
		return GPUDP_FLOW_END_EOF;
	if (now >= s->last_ts && now - s->last_ts >= l->conf.idle_ns)
		return GPUDP_FLOW_END_IDLE;
	if (s->first_ts != ~(uint64_t)0 && now >= s->first_ts &&
	    now - s->first_ts >= l->conf.active_ns)
		return GPUDP_FLOW_END_ACTIVE;
	return 0;
}

/*
 * DEAD slots become EMPTY (zeroed) where nothing after them up to an EMPTY
 * slot is in use: walking back from each EMPTY slot, a DEAD one before an
 * EMPTY one is no longer in any key's probe sequence.
 */
static void
dead_reclaim(struct gpudp_analysis *a)
{
	uint32_t cap = a->flow_mask + 1, i, k, start = cap;

	for (i = 0; i < cap; i++)
		if (a->flows[i].state == GPUDP_FLOW_EMPTY) {
			start = i;
			break;
		}
	if (start == cap)
		return;
	/* from the EMPTY slot before start, backwards around the table */
	for (k = 1; k < cap; k++) {
		uint32_t j = (start - k) & a->flow_mask;
		struct gpudp_flow_slot *s = &a->flows[j];

		if (s->state == GPUDP_FLOW_DEAD &&
		    a->flows[(j + 1) & a->flow_mask].state == GPUDP_FLOW_EMPTY)
			memset(s, 0, sizeof(*s));
	}
}

static int
cmp_u64(const void *pa, const void *pb)
{
	uint64_t x = *(const uint64_t *)pa, y = *(const uint64_t *)pb;

	return x < y ? -1 : x > y;
}

/*
 * Room: the flows seen least recently end (lack of resources) until half
 * the table is free; flows seen last at the same time end together.
 */
static uint32_t
evict(struct gpudp_analysis *a, uint32_t live)
{
	struct gpudp_flow_life_state *l = a->life;
	uint32_t cap = a->flow_mask + 1, i, n = 0, ended = 0, want = live - cap / 2;
	uint64_t *t = malloc(sizeof(*t) * live), cut;

	if (t == NULL || live <= cap / 2) {
		free(t);
		return 0;
	}
	for (i = 0; i < cap && n < live; i++)
		if (a->flows[i].state == GPUDP_FLOW_READY)
			t[n++] = a->flows[i].last_ts;
	qsort(t, n, sizeof(*t), cmp_u64);
	cut = t[want - 1];
	free(t);
	for (i = 0; i < cap; i++) {
		struct gpudp_flow_slot *s = &a->flows[i];

		if (s->state == GPUDP_FLOW_READY && s->last_ts <= cut) {
			slot_end(l, s, GPUDP_FLOW_END_RESOURCES);
			ended++;
		}
	}
	l->st.evictions++;
	return ended;
}

/*
 * Every flow moved to a table of its own size, away from the DEAD slots
 * that stay between flows (runs of them that end at an EMPTY slot go by
 * themselves): the same slots a fresh insertion of each key would take.
 */
static int
rehash(struct gpudp_analysis *a)
{
	uint32_t cap = a->flow_mask + 1, i, j;
	struct gpudp_flow_slot *t = calloc(cap, sizeof(*t));

	if (t == NULL)
		return -ENOMEM;
	for (i = 0; i < cap; i++) {
		const struct gpudp_flow_slot *s = &a->flows[i];

		if (s->state != GPUDP_FLOW_READY)
			continue;
		for (j = s->hash & a->flow_mask; t[j].state != GPUDP_FLOW_EMPTY;
		     j = (j + 1) & a->flow_mask)
			;
		t[j] = *s;
	}
	memcpy(a->flows, t, sizeof(*t) * cap);
	free(t);
	return 0;
}

static uint32_t
used_slots(const struct gpudp_analysis *a)
{
	uint32_t i, n = 0;

	for (i = 0; i <= a->flow_mask; i++)
		n += a->flows[i].state != GPUDP_FLOW_EMPTY;
	return n;
}

/* look the table over at @p now: end what is due (everything: @p force) */
static uint32_t
scan(struct gpudp_analysis *a, uint64_t now, int force, uint32_t next)
{
	struct gpudp_flow_life_state *l = a->life;
	uint32_t cap = a->flow_mask + 1, i, ended = 0, live = 0, used;

	for (i = 0; i < cap; i++) {
		struct gpudp_flow_slot *s = &a->flows[i];
		uint8_t why;

		if (s->state != GPUDP_FLOW_READY)
			continue;
		why = force ? GPUDP_FLOW_END_FORCED : slot_reason(l, s, now);
		if (why != 0) {
			slot_end(l, s, why);
			ended += why != GPUDP_FLOW_END_ACTIVE;
		}
		live += s->state == GPUDP_FLOW_READY;
	}
	dead_reclaim(a);
	used = used_slots(a);
	/* the next batch could take the table past three quarters: room */
	if (!force && (uint64_t)used + next > (uint64_t)cap * 3 / 4) {
		ended += evict(a, live);
		dead_reclaim(a);
		used = used_slots(a);
		if ((uint64_t)used + next > (uint64_t)cap * 3 / 4 && rehash(a) == 0)
			used = used_slots(a);
	}
	out_flush(l);
	l->st.scans++;
	l->st.in_use = used;
	l->in_use = used;
	l->pkts_at_scan = a->ctr.pkts;
	l->scan_t = now;
	return ended;
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
	/* each packet since the last look may have taken a slot */
	if (l->now - l->scan_t >= l->conf.scan_ns ||
	    l->in_use + (a->ctr.pkts - l->pkts_at_scan) + next > (uint64_t)cap * 3 / 4)
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

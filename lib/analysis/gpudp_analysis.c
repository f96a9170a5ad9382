/* SPDX-License-Identifier: BSD-3-Clause */
/* CPU path of the analysis: object lifetime, batches, merging, listings. */
#include <arpa/inet.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "gpudp_analysis.h"
#include "gpudp_analysis_pkt.h"

static const char *const proto_names[GPUDP_AN_PROTO_MAX] = {
	[GPUDP_AN_PROTO_ETH] = "eth",
	[GPUDP_AN_PROTO_VLAN] = "vlan",
	[GPUDP_AN_PROTO_QINQ] = "qinq",
	[GPUDP_AN_PROTO_ARP] = "arp",
	[GPUDP_AN_PROTO_IPV4] = "ipv4",
	[GPUDP_AN_PROTO_IPV6] = "ipv6",
	[GPUDP_AN_PROTO_OTHER_L3] = "other_l3",
	[GPUDP_AN_PROTO_IPV6_EXT] = "ipv6_ext",
	[GPUDP_AN_PROTO_FRAG] = "fragment",
	[GPUDP_AN_PROTO_TCP] = "tcp",
	[GPUDP_AN_PROTO_UDP] = "udp",
	[GPUDP_AN_PROTO_ICMP] = "icmp",
	[GPUDP_AN_PROTO_ICMPV6] = "icmpv6",
	[GPUDP_AN_PROTO_OTHER_L4] = "other_l4",
};

static const char *const drop_names[GPUDP_AN_DROP_MAX] = {
	[GPUDP_AN_DROP_TRUNCATED] = "truncated",
	[GPUDP_AN_DROP_MALFORMED] = "malformed",
	[GPUDP_AN_DROP_FLOW_FULL] = "flow_table_full",
	[GPUDP_AN_DROP_FRAG_FULL] = "fragment_table_full",
};

/* gpudp_an_slot_find() reads both tables through this common layout */
_Static_assert(offsetof(struct gpudp_flow_slot, hash) == 4 &&
	       offsetof(struct gpudp_flow_slot, key) == 8 &&
	       offsetof(struct gpudp_frag_slot, hash) == 4 &&
	       offsetof(struct gpudp_frag_slot, key) == 8 &&
	       sizeof(struct gpudp_flow_slot) % 8 == 0 && sizeof(struct gpudp_frag_slot) % 8 == 0,
	       "flow and fragment slots must begin with state, hash and key");

static const uint32_t bucket_lo[GPUDP_AN_SIZE_BUCKETS] = {
	0, 64, 128, 256, 512, 1024, 1519, 2048, 4096, 9217,
};

const char *
gpudp_an_proto_name(unsigned int proto)
{
	return proto < GPUDP_AN_PROTO_MAX ? proto_names[proto] : NULL;
}

const char *
gpudp_an_drop_name(unsigned int reason)
{
	return reason < GPUDP_AN_DROP_MAX ? drop_names[reason] : NULL;
}

int
gpudp_an_size_bucket_bounds(unsigned int bucket, uint32_t *lo, uint32_t *hi)
{
	if (bucket >= GPUDP_AN_SIZE_BUCKETS)
		return -EINVAL;
	*lo = bucket_lo[bucket];
	*hi = bucket + 1 < GPUDP_AN_SIZE_BUCKETS ? bucket_lo[bucket + 1] - 1 : UINT32_MAX;
	return 0;
}

const char *
gpudp_an_addr_str(uint8_t af, const uint8_t *addr, char *buf, size_t len)
{
	if (inet_ntop(af == 6 ? AF_INET6 : AF_INET, addr, buf, (socklen_t)len) == NULL)
		snprintf(buf, len, "?");
	return buf;
}

uint32_t
gpudp_analysis_capacity(uint32_t flow_capacity)
{
	uint32_t cap = 16;

	if (flow_capacity == 0)
		flow_capacity = GPUDP_AN_DEFAULT_FLOWS;
	if (flow_capacity > GPUDP_AN_MAX_FLOWS)
		return 0;
	while (cap < flow_capacity)
		cap <<= 1;
	return cap;
}

uint32_t
gpudp_analysis_frag_capacity(uint32_t flow_capacity)
{
	uint32_t cap = gpudp_analysis_capacity(flow_capacity) / 4;

	return cap < 16 ? 16 : cap;
}

/* Tables from this size on are backed by huge pages where the kernel has them */
#define AN_HUGE_BYTES (2u << 20)

/*
 * A zeroed table of n entries of @p size bytes (free() frees it). A large
 * one is aligned to 2 MiB, advised to transparent huge pages and touched
 * here: the first packets of a run then find it mapped, with 512 times
 * fewer page faults than 4 KiB pages, which otherwise cost gpudp-capture's
 * reader threads a large share of their first batches.
 */
static void *
an_table(size_t n, size_t size)
{
	size_t bytes = n * size;
	void *p;

	if (size != 0 && bytes / size != n)
		return NULL;
	if (bytes < AN_HUGE_BYTES)
		return calloc(n ? n : 1, size ? size : 1);
	bytes = (bytes + AN_HUGE_BYTES - 1) & ~(size_t)(AN_HUGE_BYTES - 1);
	p = aligned_alloc(AN_HUGE_BYTES, bytes);
	if (p == NULL)
		return NULL;
#ifdef MADV_HUGEPAGE
	madvise(p, bytes, MADV_HUGEPAGE);  /* advice: without it, 4 KiB pages */
#endif
	memset(p, 0, bytes);
	return p;
}

struct gpudp_analysis *
gpudp_analysis_create(uint32_t flow_capacity, const struct gpudp_filter *filter)
{
	struct gpudp_analysis *a;
	uint32_t cap = gpudp_analysis_capacity(flow_capacity);

	if (cap == 0) {
		errno = EINVAL;
		return NULL;
	}
	a = calloc(1, sizeof(*a));
	if (a == NULL)
		return NULL;
	a->flows = an_table(cap, sizeof(*a->flows));
	a->frag_mask = gpudp_analysis_frag_capacity(cap) - 1;
	a->frags = an_table((size_t)a->frag_mask + 1, sizeof(*a->frags));
	if (a->flows == NULL || a->frags == NULL) {
		free(a->flows);
		free(a->frags);
		free(a);
		errno = ENOMEM;
		return NULL;
	}
	a->flow_mask = cap - 1;
	if (filter != NULL)
		a->filter = *filter;
	return a;
}

void
gpudp_analysis_free(struct gpudp_analysis *a)
{
	if (a == NULL)
		return;
	free(a->flows);
	free(a->frags);
	free(a->match_occ);
	free(a->match_pkts);
	free(a->rule_hits);
	free(a->alerts);
	free(a->life);
	free(a);
}

/* The per-pattern arrays' bytes, each (0 without payload inspection). */
static size_t
match_array_bytes(const struct gpudp_analysis *a)
{
	return a->match != NULL ? sizeof(uint64_t) * a->match->n_patterns : 0;
}

int
gpudp_analysis_set_match(struct gpudp_analysis *a, const struct gpudp_match_db *db,
			 uint32_t flags)
{
	uint64_t *occ = NULL, *pkts = NULL;

	if ((flags & ~GPUDP_AN_MATCH_FRAME) != 0)
		return -EINVAL;
	if (db != NULL) {
		occ = calloc(db->n_patterns ? db->n_patterns : 1, sizeof(*occ));
		pkts = calloc(db->n_patterns ? db->n_patterns : 1, sizeof(*pkts));
		if (occ == NULL || pkts == NULL) {
			free(occ);
			free(pkts);
			return -ENOMEM;
		}
	}
	free(a->match_occ);
	free(a->match_pkts);
	a->match = db;
	a->match_occ = occ;
	a->match_pkts = pkts;
	a->match_flags = db != NULL ? flags : 0;
	return 0;
}

int
gpudp_analysis_set_rules(struct gpudp_analysis *a, const struct gpudp_rules_img *img,
			 uint32_t room)
{
	struct gpudp_rules_alerts *al = NULL;
	uint64_t *hits = NULL;

	if (img != NULL) {
		hits = calloc(img->n_rule ? img->n_rule : 1, sizeof(*hits));
		if (room > 0)
			al = calloc(1, sizeof(*al) + sizeof(al->rec[0]) * (size_t)room);
		if (hits == NULL || (room > 0 && al == NULL)) {
			free(hits);
			free(al);
			return -ENOMEM;
		}
		if (al != NULL)
			al->cap = room;
	}
	free(a->rule_hits);
	free(a->alerts);
	a->rules = img;
	a->rule_hits = hits;
	a->alerts = al;
	return 0;
}

uint64_t
gpudp_analysis_alerts_take(struct gpudp_analysis *a,
			   void (*fn)(void *arg, const struct gpudp_rule_alert *rec, uint32_t n,
				      uint64_t lost),
			   void *arg)
{
	struct gpudp_rules_alerts *al = a->alerts;
	uint64_t n;

	if (al == NULL || al->head == 0)
		return 0;
	n = al->head < al->cap ? al->head : al->cap;
	fn(arg, al->rec, (uint32_t)n, al->head - n);
	al->head = 0;
	return n;
}

int
gpudp_analysis_merge_match(struct gpudp_analysis *dst, const uint64_t *occ,
			   const uint64_t *pkts)
{
	uint32_t i;

	if (dst->match == NULL)
		return -EINVAL;
	for (i = 0; i < dst->match->n_patterns; i++) {
		dst->match_occ[i] += occ != NULL ? occ[i] : 0;
		dst->match_pkts[i] += pkts != NULL ? pkts[i] : 0;
	}
	return 0;
}

void
gpudp_analysis_reset(struct gpudp_analysis *a)
{
	memset(&a->ctr, 0, sizeof(a->ctr));
	memset(a->flows, 0, sizeof(*a->flows) * ((size_t)a->flow_mask + 1));
	memset(a->frags, 0, sizeof(*a->frags) * ((size_t)a->frag_mask + 1));
	if (a->match != NULL) {
		memset(a->match_occ, 0, match_array_bytes(a));
		memset(a->match_pkts, 0, match_array_bytes(a));
	}
	if (a->rules != NULL)
		memset(a->rule_hits, 0, sizeof(uint64_t) * a->rules->n_rule);
	if (a->alerts != NULL)
		a->alerts->head = 0;
}

static void
sink_of(struct gpudp_analysis *a, struct gpudp_an_sink *sk)
{
	sk->ctr = &a->ctr;
	sk->flows = a->flows;
	sk->flow_mask = a->flow_mask;
	sk->pad = 0;
	sk->filter = &a->filter;
	/* the flow monitor: fragments into their flows at once */
	sk->frags = a->life == NULL ? a->frags : NULL;
	sk->frag_mask = a->frag_mask;
	sk->pad2 = 0;
	sk->match = a->match;
	sk->match_occ = a->match_occ;
	sk->match_pkts = a->match_pkts;
	sk->match_flags = a->match_flags;
	sk->seq = 0;
	sk->rules = a->rules;
	sk->rule_hits = a->rule_hits;
	sk->alerts = a->alerts;
}

int
gpudp_analysis_packet(struct gpudp_analysis *a, const uint8_t *data,
		      uint32_t caplen, uint32_t wirelen, uint64_t ts_ns)
{
	struct gpudp_an_sink sk;

	sink_of(a, &sk);
	return gpudp_an_account(&sk, data, caplen, wirelen, ts_ns);
}

uint32_t
gpudp_analysis_batch(struct gpudp_analysis *a, const struct gpudp_pkt_desc *desc,
		     const uint8_t *data, uint32_t n, uint32_t *match)
{
	struct gpudp_an_sink sk;
	uint32_t i, hits = 0;

	sink_of(a, &sk);
	if (match != NULL)
		memset(match, 0, sizeof(*match) * ((n + 31) / 32));
	for (i = 0; i < n; i++) {
		const struct gpudp_pkt_desc *d = &desc[i];

		sk.seq = i;
		if (gpudp_an_account(&sk, data + d->off, d->caplen, d->wirelen, d->ts_ns)) {
			hits++;
			if (match != NULL)
				match[i / 32] |= 1u << (i % 32);
		}
	}
	return hits;
}

/* Add one direction-resolved record to a flow table; -ENOSPC when full. */
static int
flow_add(struct gpudp_analysis *dst, const struct gpudp_flow_key *k, const uint64_t pkts[2],
	 const uint64_t bytes[2], uint64_t first_ts, uint64_t last_ts, uint64_t match_pkts)
{
	struct gpudp_flow_slot *t = gpudp_flow_lookup_insert(dst->flows, dst->flow_mask, k,
							     gpudp_flow_hash(k));

	if (t == NULL) {
		dst->ctr.drops[GPUDP_AN_DROP_FLOW_FULL] += pkts[0] + pkts[1];
		return -ENOSPC;
	}
	t->pkts[0] += pkts[0];
	t->pkts[1] += pkts[1];
	t->bytes[0] += bytes[0];
	t->bytes[1] += bytes[1];
	t->match_pkts += match_pkts;
	if (first_ts < t->first_ts)
		t->first_ts = first_ts;
	if (last_ts > t->last_ts)
		t->last_ts = last_ts;
	return 0;
}

int
gpudp_analysis_merge(struct gpudp_analysis *dst, const struct gpudp_an_counters *ctr,
		     const struct gpudp_flow_slot *slots, uint32_t n_slots)
{
	const uint64_t *src = (const uint64_t *)ctr;
	uint64_t *d = (uint64_t *)&dst->ctr;
	size_t i;
	int rc = 0;

	for (i = 0; i < sizeof(*ctr) / sizeof(uint64_t); i++)
		d[i] += src[i];
	for (i = 0; slots != NULL && i < n_slots; i++) {
		const struct gpudp_flow_slot *s = &slots[i];

		if (s->state == GPUDP_FLOW_READY &&
		    flow_add(dst, &s->key, s->pkts, s->bytes, s->first_ts, s->last_ts,
			     s->match_pkts) != 0)
			rc = -ENOSPC;
	}
	return rc;
}

int
gpudp_analysis_add(struct gpudp_analysis *dst, const struct gpudp_analysis *src)
{
	uint32_t i;
	int rc = 0;

	if (gpudp_analysis_merge(dst, &src->ctr, src->flows, src->flow_mask + 1) != 0 ||
	    gpudp_analysis_merge_frags(dst, src->frags, src->frag_mask + 1) != 0)
		rc = -ENOSPC;
	if (dst->match != NULL && src->match != NULL)
		gpudp_analysis_merge_match(dst, src->match_occ, src->match_pkts);
	if (dst->rules != NULL && src->rules != NULL && dst->rules->n_rule == src->rules->n_rule)
		for (i = 0; i < dst->rules->n_rule; i++)
			dst->rule_hits[i] += src->rule_hits[i];
	return rc;
}

/* Whether @p a has counted nothing: every counter 0 (a flow, a datagram or
 * a pattern count comes with a counted packet). */
static int
an_empty(const struct gpudp_analysis *a)
{
	static const struct gpudp_an_counters zero;

	return memcmp(&a->ctr, &zero, sizeof(zero)) == 0;
}

int
gpudp_analysis_take(struct gpudp_analysis *dst, struct gpudp_analysis *src)
{
	struct gpudp_an_counters c;
	struct gpudp_flow_slot *f;
	struct gpudp_frag_slot *g;
	uint64_t *occ, *pkts;

	if (dst == src || !an_empty(dst) || dst->flow_mask != src->flow_mask ||
	    dst->frag_mask != src->frag_mask || dst->match != src->match ||
	    dst->match_flags != src->match_flags || dst->rules != src->rules)
		return gpudp_analysis_add(dst, src);
	/* the filter and the inspection settings stay each one's own */
	c = dst->ctr;
	dst->ctr = src->ctr;
	src->ctr = c;
	f = dst->flows;
	dst->flows = src->flows;
	src->flows = f;
	g = dst->frags;
	dst->frags = src->frags;
	src->frags = g;
	occ = dst->match_occ;
	pkts = dst->match_pkts;
	dst->match_occ = src->match_occ;
	dst->match_pkts = src->match_pkts;
	src->match_occ = occ;
	src->match_pkts = pkts;
	occ = dst->rule_hits;
	dst->rule_hits = src->rule_hits;
	src->rule_hits = occ;
	return 0;
}

/*
 * Resolution of the fragment table (doc/capture.md, "Fragments"). A
 * datagram whose first fragment was analysed, with one port pair, goes
 * into its 5-tuple flow; any other (first fragment missing, or first
 * fragments of several port pairs under one IP ID) into its address
 * pair's flow of the same protocol, ports 0.
 */
static int
frag_ports_known(const struct gpudp_frag_slot *s)
{
	return s->n_first > 0 && s->ports_min == s->ports_max;
}

/* Every payload byte seen once, with one first and one last fragment:
 * the datagram tshark reassembles. */
static int
frag_complete(const struct gpudp_frag_slot *s)
{
	return s->n_first == 1 && s->n_last == 1 && s->payload == s->end;
}

/* The flow a datagram goes to; its fragments all travel in direction *dir. */
static void
frag_flow_key(const struct gpudp_frag_slot *s, struct gpudp_flow_key *k, uint32_t *dir)
{
	struct gpudp_pkt_info pi;

	memset(&pi, 0, sizeof(pi));
	pi.af = s->key.af;
	pi.l4proto = s->key.proto;
	memcpy(pi.src, s->key.addr[0], 16);
	memcpy(pi.dst, s->key.addr[1], 16);
	if (frag_ports_known(s) && (s->key.proto == 6 || s->key.proto == 17)) {
		pi.has_ports = 1;
		pi.sport = (uint16_t)(s->ports_min >> 16);
		pi.dport = (uint16_t)s->ports_min;
	}
	*dir = gpudp_flow_key_make(&pi, k);
}

/* The flow record a datagram contributes. */
static void
frag_flow_record(const struct gpudp_frag_slot *s, struct gpudp_flow_record *r)
{
	uint32_t dir;

	memset(r, 0, sizeof(*r));
	frag_flow_key(s, &r->key, &dir);
	r->pkts[dir] = s->pkts;
	r->bytes[dir] = s->bytes;
	r->first_ts = s->first_ts;
	r->last_ts = s->last_ts;
	r->match_pkts = s->match_pkts;
}

int
gpudp_analysis_merge_frags(struct gpudp_analysis *dst, const struct gpudp_frag_slot *slots,
			   uint32_t n_slots)
{
	size_t i;
	int rc = 0;

	for (i = 0; slots != NULL && i < n_slots; i++) {
		const struct gpudp_frag_slot *s = &slots[i];
		struct gpudp_frag_slot *t;

		if (s->state != GPUDP_FLOW_READY)
			continue;
		t = gpudp_frag_lookup_insert(dst->frags, dst->frag_mask, &s->key,
					     gpudp_flow_hash(&s->key));
		if (t == NULL) {
			struct gpudp_flow_record r;

			/* straight into its flow, as the per-packet code does */
			dst->ctr.drops[GPUDP_AN_DROP_FRAG_FULL] += s->pkts;
			frag_flow_record(s, &r);
			flow_add(dst, &r.key, r.pkts, r.bytes, r.first_ts, r.last_ts, r.match_pkts);
			rc = -ENOSPC;
			continue;
		}
		t->n_first += s->n_first;
		t->n_last += s->n_last;
		if (s->ports_min < t->ports_min)
			t->ports_min = s->ports_min;
		if (s->ports_max > t->ports_max)
			t->ports_max = s->ports_max;
		t->pkts += s->pkts;
		t->bytes += s->bytes;
		t->payload += s->payload;
		t->match_pkts += s->match_pkts;
		if (s->end > t->end)
			t->end = s->end;
		if (s->last_wirelen > t->last_wirelen)
			t->last_wirelen = s->last_wirelen;
		if (s->first_ts < t->first_ts)
			t->first_ts = s->first_ts;
		if (s->last_ts > t->last_ts)
			t->last_ts = s->last_ts;
	}
	return rc;
}

static uint32_t
count_ready(const uint32_t *state, size_t stride, uint32_t mask)
{
	uint32_t i, n = 0;

	for (i = 0; i <= mask; i++)
		n += *(const uint32_t *)((const uint8_t *)state + i * stride) == GPUDP_FLOW_READY;
	return n;
}

static int
cmp_flow(const void *pa, const void *pb)
{
	const struct gpudp_flow_record *a = pa, *b = pb;
	uint64_t ba = a->bytes[0] + a->bytes[1], bb = b->bytes[0] + b->bytes[1];
	uint64_t na = a->pkts[0] + a->pkts[1], nb = b->pkts[0] + b->pkts[1];

	if (ba != bb)
		return ba > bb ? -1 : 1;
	if (na != nb)
		return na > nb ? -1 : 1;
	return memcmp(&a->key, &b->key, sizeof(a->key));
}

static int
cmp_flow_key(const void *pa, const void *pb)
{
	const struct gpudp_flow_record *a = pa, *b = pb;

	return memcmp(&a->key, &b->key, sizeof(a->key));
}

int
gpudp_analysis_flows(const struct gpudp_analysis *a, struct gpudp_flow_record **out,
		     size_t *n)
{
	uint32_t nf = count_ready(&a->flows[0].state, sizeof(*a->flows), a->flow_mask);
	uint32_t nd = count_ready(&a->frags[0].state, sizeof(*a->frags), a->frag_mask);
	struct gpudp_flow_record *r;
	size_t i, k = 0, m;

	r = calloc((size_t)nf + nd + 1, sizeof(*r));
	if (r == NULL)
		return -ENOMEM;
	for (i = 0; i <= a->flow_mask; i++) {
		const struct gpudp_flow_slot *s = &a->flows[i];

		if (s->state != GPUDP_FLOW_READY)
			continue;
		r[k].key = s->key;
		memcpy(r[k].pkts, s->pkts, sizeof(s->pkts));
		memcpy(r[k].bytes, s->bytes, sizeof(s->bytes));
		r[k].first_ts = s->first_ts;
		r[k].last_ts = s->last_ts;
		r[k].match_pkts = s->match_pkts;
		k++;
	}
	for (i = 0; i <= a->frag_mask; i++)
		if (a->frags[i].state == GPUDP_FLOW_READY)
			frag_flow_record(&a->frags[i], &r[k++]);
	if (nd > 0) {
		/* datagrams join the flows of their keys */
		qsort(r, k, sizeof(*r), cmp_flow_key);
		for (i = 0, m = 0; i < k; i++) {
			struct gpudp_flow_record *t = &r[m > 0 ? m - 1 : 0];

			if (m == 0 || cmp_flow_key(t, &r[i]) != 0) {
				r[m++] = r[i];
				continue;
			}
			t->pkts[0] += r[i].pkts[0];
			t->pkts[1] += r[i].pkts[1];
			t->bytes[0] += r[i].bytes[0];
			t->bytes[1] += r[i].bytes[1];
			t->match_pkts += r[i].match_pkts;
			if (r[i].first_ts < t->first_ts)
				t->first_ts = r[i].first_ts;
			if (r[i].last_ts > t->last_ts)
				t->last_ts = r[i].last_ts;
		}
		k = m;
	}
	qsort(r, k, sizeof(*r), cmp_flow);
	*out = r;
	*n = k;
	return 0;
}

void
gpudp_analysis_counters(const struct gpudp_analysis *a, struct gpudp_an_counters *c)
{
	uint32_t i;

	*c = a->ctr;
	for (i = 0; i <= a->frag_mask; i++) {
		const struct gpudp_frag_slot *s = &a->frags[i];
		unsigned int p;

		if (s->state != GPUDP_FLOW_READY || !frag_complete(s))
			continue;
		if (s->key.proto == 6)
			p = GPUDP_AN_PROTO_TCP;
		else if (s->key.proto == 17)
			p = GPUDP_AN_PROTO_UDP;
		else if (s->key.proto == 1 && s->key.af == 4)
			p = GPUDP_AN_PROTO_ICMP;
		else if (s->key.proto == 58 && s->key.af == 6)
			p = GPUDP_AN_PROTO_ICMPV6;
		else
			p = GPUDP_AN_PROTO_OTHER_L4;
		c->proto_pkts[p]++;
		c->proto_bytes[p] += s->last_wirelen;
	}
}

void
gpudp_analysis_fragments(const struct gpudp_analysis *a, struct gpudp_frag_summary *f)
{
	uint32_t i;

	memset(f, 0, sizeof(*f));
	for (i = 0; i <= a->frag_mask; i++) {
		const struct gpudp_frag_slot *s = &a->frags[i];

		if (s->state != GPUDP_FLOW_READY)
			continue;
		f->datagrams++;
		f->complete += (uint64_t)frag_complete(s);
		f->first_missing += (uint64_t)!frag_ports_known(s);
		f->pkts += s->pkts;
		f->bytes += s->bytes;
	}
}

static int
cmp_frag_key(const void *pa, const void *pb)
{
	const struct gpudp_frag_slot *a = pa, *b = pb;

	return memcmp(&a->key, &b->key, sizeof(a->key));
}

int
gpudp_analysis_frag_list(const struct gpudp_analysis *a, struct gpudp_frag_slot **out,
			 size_t *n)
{
	uint32_t i, k = 0, total = count_ready(&a->frags[0].state, sizeof(*a->frags),
					       a->frag_mask);
	struct gpudp_frag_slot *r = calloc((size_t)total + 1, sizeof(*r));

	if (r == NULL)
		return -ENOMEM;
	for (i = 0; i <= a->frag_mask; i++)
		if (a->frags[i].state == GPUDP_FLOW_READY)
			r[k++] = a->frags[i];
	qsort(r, k, sizeof(*r), cmp_frag_key);
	*out = r;
	*n = k;
	return 0;
}

static int
cmp_talker(const void *pa, const void *pb)
{
	const struct gpudp_talker *a = pa, *b = pb;
	uint64_t ba = a->tx_bytes + a->rx_bytes, bb = b->tx_bytes + b->rx_bytes;
	uint64_t na = a->tx_pkts + a->rx_pkts, nb = b->tx_pkts + b->rx_pkts;

	if (ba != bb)
		return ba > bb ? -1 : 1;
	if (na != nb)
		return na > nb ? -1 : 1;
	if (a->af != b->af)
		return a->af < b->af ? -1 : 1;
	return memcmp(a->addr, b->addr, sizeof(a->addr));
}

static int
cmp_talker_addr(const void *pa, const void *pb)
{
	const struct gpudp_talker *a = pa, *b = pb;

	if (a->af != b->af)
		return a->af < b->af ? -1 : 1;
	return memcmp(a->addr, b->addr, sizeof(a->addr));
}

int
gpudp_analysis_talkers(const struct gpudp_analysis *a, struct gpudp_talker **out, size_t *n)
{
	struct gpudp_flow_record *fl;
	struct gpudp_talker *t;
	size_t nf, i, j, k = 0, m;

	/* two endpoints per (resolved) flow, then sort by address and fold duplicates */
	if (gpudp_analysis_flows(a, &fl, &nf) != 0)
		return -ENOMEM;
	t = calloc(2 * nf + 1, sizeof(*t));
	if (t == NULL) {
		free(fl);
		return -ENOMEM;
	}
	for (i = 0; i < nf; i++) {
		const struct gpudp_flow_record *s = &fl[i];
		int e;

		for (e = 0; e < 2; e++) {
			t[k].af = s->key.af;
			memcpy(t[k].addr, s->key.addr[e], 16);
			t[k].tx_pkts = s->pkts[e];
			t[k].tx_bytes = s->bytes[e];
			t[k].rx_pkts = s->pkts[!e];
			t[k].rx_bytes = s->bytes[!e];
			k++;
		}
		/* a flow from an address to itself counts once, as in tshark */
		if (memcmp(s->key.addr[0], s->key.addr[1], 16) == 0) {
			k--;
			t[k - 1].tx_pkts = t[k - 1].rx_pkts = s->pkts[0] + s->pkts[1];
			t[k - 1].tx_bytes = t[k - 1].rx_bytes = s->bytes[0] + s->bytes[1];
		}
	}
	free(fl);
	qsort(t, k, sizeof(*t), cmp_talker_addr);
	for (j = 0, m = 0; j < k; j++) {
		if (m > 0 && cmp_talker_addr(&t[m - 1], &t[j]) == 0) {
			t[m - 1].tx_pkts += t[j].tx_pkts;
			t[m - 1].tx_bytes += t[j].tx_bytes;
			t[m - 1].rx_pkts += t[j].rx_pkts;
			t[m - 1].rx_bytes += t[j].rx_bytes;
		} else {
			t[m++] = t[j];
		}
	}
	qsort(t, m, sizeof(*t), cmp_talker);
	*out = t;
	*n = m;
	return 0;
}

int
gpudp_analysis_compare(const struct gpudp_analysis *a, const struct gpudp_analysis *b,
		       char *why, size_t len)
{
	const uint64_t *x = (const uint64_t *)&a->ctr, *y = (const uint64_t *)&b->ctr;
	struct gpudp_flow_record *fa = NULL, *fb = NULL;
	struct gpudp_frag_slot *da = NULL, *db = NULL;
	size_t na = 0, nb = 0, ma = 0, mb = 0, i;
	int rc = 1;

	snprintf(why, len, "identical");
	for (i = 0; i < sizeof(a->ctr) / sizeof(uint64_t); i++)
		if (x[i] != y[i]) {
			snprintf(why, len, "counter word %zu: %llu and %llu", i,
				 (unsigned long long)x[i], (unsigned long long)y[i]);
			return 1;
		}
	if ((a->match == NULL) != (b->match == NULL) ||
	    (a->match != NULL && a->match->n_patterns != b->match->n_patterns)) {
		snprintf(why, len, "payload inspection on one side only, or other patterns");
		return 1;
	}
	for (i = 0; a->match != NULL && i < a->match->n_patterns; i++)
		if (a->match_occ[i] != b->match_occ[i] || a->match_pkts[i] != b->match_pkts[i]) {
			snprintf(why, len, "pattern %zu: %llu/%llu and %llu/%llu packets/"
				 "occurrences", i, (unsigned long long)a->match_pkts[i],
				 (unsigned long long)a->match_occ[i],
				 (unsigned long long)b->match_pkts[i],
				 (unsigned long long)b->match_occ[i]);
			return 1;
		}
	if ((a->rules == NULL) != (b->rules == NULL) ||
	    (a->rules != NULL && a->rules->n_rule != b->rules->n_rule)) {
		snprintf(why, len, "rules on one side only, or other rules");
		return 1;
	}
	for (i = 0; a->rules != NULL && i < a->rules->n_rule; i++)
		if (a->rule_hits[i] != b->rule_hits[i]) {
			snprintf(why, len, "rule %zu: %llu and %llu packets", i,
				 (unsigned long long)a->rule_hits[i],
				 (unsigned long long)b->rule_hits[i]);
			return 1;
		}
	if (gpudp_analysis_flows(a, &fa, &na) != 0 || gpudp_analysis_flows(b, &fb, &nb) != 0 ||
	    gpudp_analysis_frag_list(a, &da, &ma) != 0 ||
	    gpudp_analysis_frag_list(b, &db, &mb) != 0) {
		snprintf(why, len, "out of memory");
		rc = -ENOMEM;
	} else if (na != nb) {
		snprintf(why, len, "%zu and %zu flows", na, nb);
	} else if (memcmp(fa, fb, na * sizeof(*fa)) != 0) {
		for (i = 0; memcmp(&fa[i], &fb[i], sizeof(*fa)) == 0; i++)
			;
		snprintf(why, len, "flow record %zu differs", i);
	} else if (ma != mb) {
		snprintf(why, len, "%zu and %zu fragmented datagrams", ma, mb);
	} else {
		for (i = 0; i < ma && memcmp(&da[i], &db[i], sizeof(*da)) == 0; i++)
			;
		if (i < ma)
			snprintf(why, len, "fragmented datagram %zu differs", i);
		else
			rc = 0;
	}
	free(fa);
	free(fb);
	free(da);
	free(db);
	return rc;
}

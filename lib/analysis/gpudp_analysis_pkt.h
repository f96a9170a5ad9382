/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Per-packet analysis, shared verbatim by the CPU path (C11) and the GPU
 * kernels (nvcc): flow keys, the flow table, the filter and the counters,
 * over what the parser (gpudp_pkt_parse.h) found. Every function is
 * GPUDP_AN_HD (static inline, and __host__ __device__ under nvcc).
 *
 * Memory accesses: packet bytes are read one byte at a time (packets sit at
 * any alignment). Shared state is updated through the GPUDP_AN_* atomic
 * macros: real atomics in device code, plain loads and stores on the host,
 * where the CPU path is single-threaded per table.
 */
#ifndef GPUDP_ANALYSIS_PKT_H
#define GPUDP_ANALYSIS_PKT_H

#include "gpudp_analysis_types.h"
#include "gpudp_match.h"
#include "gpudp_pkt_parse.h"
#include "gpudp_rules_img.h"
#include "gpudp_rules_pkt.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __CUDA_ARCH__
#define GPUDP_AN_ADD64(p, v) \
	atomicAdd((unsigned long long *)(p), (unsigned long long)(v))
#define GPUDP_AN_MIN64(p, v) \
	atomicMin((unsigned long long *)(p), (unsigned long long)(v))
#define GPUDP_AN_MAX64(p, v) \
	atomicMax((unsigned long long *)(p), (unsigned long long)(v))
#define GPUDP_AN_ADD32(p, v) atomicAdd((unsigned int *)(p), (unsigned int)(v))
#define GPUDP_AN_MIN32(p, v) atomicMin((unsigned int *)(p), (unsigned int)(v))
#define GPUDP_AN_MAX32(p, v) atomicMax((unsigned int *)(p), (unsigned int)(v))
#define GPUDP_AN_OR32(p, v) atomicOr((unsigned int *)(p), (unsigned int)(v))
#define GPUDP_AN_CAS32(p, o, n) \
	atomicCAS((unsigned int *)(p), (unsigned int)(o), (unsigned int)(n))
#define GPUDP_AN_LOAD32(p) (*(volatile uint32_t *)(p))
#define GPUDP_AN_PUBLISH32(p, v) do { __threadfence(); \
	atomicExch((unsigned int *)(p), (unsigned int)(v)); } while (0)
#define GPUDP_AN_ACQUIRE() __threadfence()
/* slot keys are read around the (incoherent) L1 cache: a line may hold a
 * neighbouring slot that another SM fills later */
#define GPUDP_AN_VOL volatile
#else
#define GPUDP_AN_ADD64(p, v) (*(p) += (v))
#define GPUDP_AN_MIN64(p, v) do { if ((v) < *(p)) *(p) = (v); } while (0)
#define GPUDP_AN_MAX64(p, v) do { if ((v) > *(p)) *(p) = (v); } while (0)
#define GPUDP_AN_ADD32(p, v) GPUDP_AN_ADD64(p, v)
#define GPUDP_AN_MIN32(p, v) GPUDP_AN_MIN64(p, v)
#define GPUDP_AN_MAX32(p, v) GPUDP_AN_MAX64(p, v)
#define GPUDP_AN_OR32(p, v) (*(p) |= (v))
#define GPUDP_AN_CAS32(p, o, n) gpudp_an_cas32_host((p), (o), (n))
#define GPUDP_AN_LOAD32(p) (*(p))
#define GPUDP_AN_PUBLISH32(p, v) (*(p) = (v))
#define GPUDP_AN_ACQUIRE() do { } while (0)
#define GPUDP_AN_VOL
static inline uint32_t
gpudp_an_cas32_host(uint32_t *p, uint32_t o, uint32_t n)
{
	uint32_t cur = *p;

	if (cur == o)
		*p = n;
	return cur;
}
#endif

/**
 * Size histogram bucket of a wire length. Buckets (bytes, inclusive):
 * 0-63, 64-127, 128-255, 256-511, 512-1023, 1024-1518, 1519-2047,
 * 2048-4095, 4096-9216, 9217 and more.
 */
GPUDP_AN_HD uint32_t
gpudp_an_size_bucket(uint32_t len)
{
	if (len < 64)
		return 0;
	if (len < 128)
		return 1;
	if (len < 256)
		return 2;
	if (len < 512)
		return 3;
	if (len < 1024)
		return 4;
	if (len <= 1518)
		return 5;
	if (len < 2048)
		return 6;
	if (len < 4096)
		return 7;
	if (len <= 9216)
		return 8;
	return 9;
}

/**
 * Build the canonical bidirectional key of a parsed IP packet.
 * @return the direction of the packet: 0 if its source is endpoint 0, else 1
 */
GPUDP_AN_HD uint32_t
gpudp_flow_key_make(const struct gpudp_pkt_info *pi, struct gpudp_flow_key *k)
{
	uint32_t i, n = pi->af == 4 ? 4 : 16, swap = 0, decided = 0;
	uint16_t sp = pi->has_ports ? pi->sport : 0;
	uint16_t dp = pi->has_ports ? pi->dport : 0;

	for (i = 0; i < n && !decided; i++) {
		if (pi->src[i] != pi->dst[i]) {
			swap = pi->src[i] > pi->dst[i];
			decided = 1;
		}
	}
	if (!decided)
		swap = sp > dp;
	for (i = 0; i < 16; i++) {
		uint8_t s = i < n ? pi->src[i] : 0, d = i < n ? pi->dst[i] : 0;
		k->addr[0][i] = swap ? d : s;
		k->addr[1][i] = swap ? s : d;
	}
	k->port[0] = swap ? dp : sp;
	k->port[1] = swap ? sp : dp;
	k->af = pi->af;
	k->proto = pi->l4proto;
	k->pad = 0;
	return swap;
}

/** Hash of a flow key (never 0). */
GPUDP_AN_HD uint32_t
gpudp_flow_hash(const struct gpudp_flow_key *k)
{
	uint32_t h = 0x811c9dc5u, i, j;

	for (i = 0; i < 2; i++)
		for (j = 0; j < 16; j++)
			h = (h ^ k->addr[i][j]) * 0x01000193u;
	h = (h ^ k->port[0]) * 0x01000193u;
	h = (h ^ k->port[1]) * 0x01000193u;
	h = (h ^ ((uint32_t)k->af << 8 | k->proto)) * 0x01000193u;
	h ^= h >> 16;
	h *= 0x7feb352du;
	h ^= h >> 15;
	return h ? h : 1;
}

/** Key equality. */
GPUDP_AN_HD int
gpudp_flow_key_eq(const GPUDP_AN_VOL struct gpudp_flow_key *a, const struct gpudp_flow_key *b)
{
	uint32_t i, j;

	if (a->af != b->af || a->proto != b->proto ||
	    a->port[0] != b->port[0] || a->port[1] != b->port[1])
		return 0;
	for (i = 0; i < 2; i++)
		for (j = 0; j < 16; j++)
			if (a->addr[i][j] != b->addr[i][j])
				return 0;
	return 1;
}

/** Most slots a key is looked for in (gpudp_an_slot_find()). */
#define GPUDP_AN_PROBES_MAX 1024u

/**
 * Find or claim the slot of a key in an open-addressing table (linear
 * probing) whose slots are @p stride bytes long and begin with uint32_t
 * state, uint32_t hash and struct gpudp_flow_key key, in this order (the
 * flow table and the fragment table). On the GPU, several threads may race
 * for the same empty slot: one claims it with a CAS (EMPTY -> BUSY) and
 * writes the hash and the key; the others wait for READY and then compare
 * keys. A key is looked for in GPUDP_AN_PROBES_MAX slots from its hash at
 * most: a table nearly full (more flows than slots) costs each packet that
 * many probes, not the whole table.
 *
 * @param table   first slot
 * @param stride  slot size in bytes (a multiple of 8)
 * @param mask    capacity - 1 (capacity is a power of two)
 * @param claimed set to 1 if this call claimed a new slot: its state is BUSY;
 *                the caller initialises its other fields, then publishes it
 *                with GPUDP_AN_PUBLISH32(state, GPUDP_FLOW_READY)
 * @return the slot, or NULL when the table is full (no room among the
 *         key's slots)
 */
GPUDP_AN_HD uint8_t *
gpudp_an_slot_find(uint8_t *table, uint32_t stride, uint32_t mask,
		   const struct gpudp_flow_key *k, uint32_t hash, int *claimed)
{
	uint32_t i, st;

	*claimed = 0;
	for (i = 0; i <= mask && i < GPUDP_AN_PROBES_MAX; i++) {
		uint8_t *s = table + (uint64_t)((hash + i) & mask) * stride;
		uint32_t *state = (uint32_t *)s;

		st = GPUDP_AN_LOAD32(state);
		if (st == GPUDP_FLOW_EMPTY) {
			st = GPUDP_AN_CAS32(state, GPUDP_FLOW_EMPTY, GPUDP_FLOW_BUSY);
			if (st == GPUDP_FLOW_EMPTY) {
				*(uint32_t *)(s + 4) = hash;
				*(struct gpudp_flow_key *)(s + 8) = *k;
				*claimed = 1;
				return s;
			}
		}
		while (st == GPUDP_FLOW_BUSY)
			st = GPUDP_AN_LOAD32(state);
		GPUDP_AN_ACQUIRE();
		if (st == GPUDP_FLOW_READY && *(const GPUDP_AN_VOL uint32_t *)(s + 4) == hash &&
		    gpudp_flow_key_eq((const GPUDP_AN_VOL struct gpudp_flow_key *)(s + 8), k))
			return s;
	}
	return 0;
}

/**
 * Find or insert a key in the flow table (gpudp_an_slot_find()); a new
 * slot is published with zero counters and no timestamp.
 *
 * @param slots   the table
 * @param mask    capacity - 1 (capacity is a power of two)
 * @return the slot, or NULL when the table is full
 */
GPUDP_AN_HD struct gpudp_flow_slot *
gpudp_flow_lookup_insert(struct gpudp_flow_slot *slots, uint32_t mask,
			 const struct gpudp_flow_key *k, uint32_t hash)
{
	int claimed;
	struct gpudp_flow_slot *s = (struct gpudp_flow_slot *)
		gpudp_an_slot_find((uint8_t *)slots, sizeof(*slots), mask, k, hash, &claimed);

	if (s != 0 && claimed) {
		s->first_ts = ~(uint64_t)0;
		s->last_ts = 0;
		s->dir_first[0] = ~(uint64_t)0;
		s->dir_first[1] = ~(uint64_t)0;
		s->dir_last[0] = 0;
		s->dir_last[1] = 0;
		GPUDP_AN_PUBLISH32(&s->state, GPUDP_FLOW_READY);
	}
	return s;
}

/** Find or insert a datagram in the fragment table, as gpudp_flow_lookup_insert(). */
GPUDP_AN_HD struct gpudp_frag_slot *
gpudp_frag_lookup_insert(struct gpudp_frag_slot *slots, uint32_t mask,
			 const struct gpudp_flow_key *k, uint32_t hash)
{
	int claimed;
	struct gpudp_frag_slot *s = (struct gpudp_frag_slot *)
		gpudp_an_slot_find((uint8_t *)slots, sizeof(*slots), mask, k, hash, &claimed);

	if (s != 0 && claimed) {
		s->ports_min = ~(uint32_t)0;
		s->first_ts = ~(uint64_t)0;
		s->last_ts = 0;
		GPUDP_AN_PUBLISH32(&s->state, GPUDP_FLOW_READY);
	}
	return s;
}

/** Key of a fragment's datagram in the fragment table (struct gpudp_frag_slot). */
GPUDP_AN_HD void
gpudp_frag_key_make(const struct gpudp_pkt_info *pi, struct gpudp_flow_key *k)
{
	uint32_t i;

	for (i = 0; i < 16; i++) {
		k->addr[0][i] = pi->src[i];
		k->addr[1][i] = pi->dst[i];
	}
	k->port[0] = (uint16_t)(pi->frag_id >> 16);
	k->port[1] = (uint16_t)pi->frag_id;
	k->af = pi->af;
	k->proto = pi->frag_proto;
	k->pad = 0;
}

/** Whether address a lies in the prefix in->addr / in->plen. */
GPUDP_AN_HD int
gpudp_filter_net_match(const struct gpudp_filter_insn *in, const uint8_t *a)
{
	uint32_t i, bits = in->plen;

	for (i = 0; bits > 0; i++) {
		uint32_t m = bits >= 8 ? 0xffu : (0xffu << (8 - bits)) & 0xffu;

		if ((a[i] & m) != in->addr[i])
			return 0;
		bits = bits >= 8 ? bits - 8 : 0;
	}
	return 1;
}

/**
 * What payload inspection and the rules found in one packet (the filter's
 * `match` and `alert` primitives).
 */
struct gpudp_an_scan {
	const struct gpudp_match_db *db; /**< NULL: inspection off */
	const uint8_t *d;                /**< the bytes scanned */
	uint32_t len;                    /**< how many */
	uint32_t alerts;                 /**< rules the packet matched */
	uint64_t occ;                    /**< occurrences of any pattern */
	const struct gpudp_rules_img *rules; /**< NULL: no rules (or not an IP packet) */
	const uint8_t *pl;               /**< the payload the rules saw */
	uint32_t pl_len;                 /**< its bytes */
	uint32_t pad;
	uint32_t *scratch;               /**< GPUDP_RULES_SCRATCH_WORDS words */
	struct gpudp_rule_pkt rk;        /**< the packet as the rules' headers see it */
};

/** The filter's `match` primitive: any pattern (af 1), or pattern lo | hi << 16. */
GPUDP_AN_HD uint32_t
gpudp_filter_match_eval(const struct gpudp_filter_insn *in, const struct gpudp_an_scan *m)
{
	uint32_t pat = (uint32_t)in->lo | (uint32_t)in->hi << 16;

	if (m == 0 || m->db == 0 || m->occ == 0)
		return 0;
	if (in->af == 1)
		return 1;
	return pat < m->db->n_patterns &&
	       gpudp_match_occurs_before(m->db, pat, m->d, m->len);
}

/** The filter's `alert` primitive: any rule (af 1), or rule lo | hi << 16. */
GPUDP_AN_HD uint32_t
gpudp_filter_alert_eval(const struct gpudp_filter_insn *in, const struct gpudp_an_scan *m)
{
	if (m == 0 || m->rules == 0 || m->alerts == 0)
		return 0;
	if (in->af == 1)
		return 1;
	return (uint32_t)gpudp_rules_img_rule(m->rules, (uint32_t)in->lo | (uint32_t)in->hi << 16,
					      &m->rk, m->pl, m->pl_len, m->scratch);
}

/**
 * Evaluate a compiled filter on a parsed packet.
 * @param m  what payload inspection found in it, or NULL (no inspection:
 *           `match` primitives are false)
 * @return 1 on a match, 0 otherwise (always 0 for an empty filter)
 */
GPUDP_AN_HD int
gpudp_filter_eval(const struct gpudp_filter *f, const struct gpudp_pkt_info *pi,
		  const struct gpudp_an_scan *m)
{
	uint64_t stack = 0;
	uint32_t sp = 0, i, v;

	if (f->n_insn == 0)
		return 0;
	for (i = 0; i < f->n_insn && i < GPUDP_FILTER_MAX_INSN; i++) {
		const struct gpudp_filter_insn *in = &f->insn[i];
		uint32_t a, b;

		v = 0;
		switch (in->op) {
		case GPUDP_FOP_TRUE:
			v = 1;
			break;
		case GPUDP_FOP_L3:
			v = pi->af == in->af;
			break;
		case GPUDP_FOP_L4:
			v = pi->af != 0 && (in->af == 0 || in->af == pi->af) &&
			    pi->l4proto == in->lo;
			break;
		case GPUDP_FOP_VLAN: {
			uint32_t t, n = pi->n_vlan < GPUDP_PKT_MAX_VLAN ?
					pi->n_vlan : GPUDP_PKT_MAX_VLAN;

			if (in->lo == 0xffff)
				v = pi->n_vlan > 0;
			for (t = 0; t < n; t++)
				if (pi->vlan_id[t] == in->lo)
					v = 1;
			break;
		}
		case GPUDP_FOP_NET:
			if (pi->af == in->af) {
				if (in->dir != GPUDP_FDIR_DST)
					v |= (uint32_t)gpudp_filter_net_match(in, pi->src);
				if (in->dir != GPUDP_FDIR_SRC)
					v |= (uint32_t)gpudp_filter_net_match(in, pi->dst);
			}
			break;
		case GPUDP_FOP_PORT:
			if (pi->has_ports) {
				if (in->dir != GPUDP_FDIR_DST)
					v |= pi->sport >= in->lo && pi->sport <= in->hi;
				if (in->dir != GPUDP_FDIR_SRC)
					v |= pi->dport >= in->lo && pi->dport <= in->hi;
			}
			break;
		case GPUDP_FOP_MATCH:
			v = gpudp_filter_match_eval(in, m);
			break;
		case GPUDP_FOP_ALERT:
			v = gpudp_filter_alert_eval(in, m);
			break;
		case GPUDP_FOP_NOT:
			if (sp < 1)
				return 0;
			v = !(stack & 1);
			stack >>= 1;
			sp--;
			break;
		case GPUDP_FOP_AND:
		case GPUDP_FOP_OR:
			if (sp < 2)
				return 0;
			a = (uint32_t)(stack & 1);
			b = (uint32_t)((stack >> 1) & 1);
			stack >>= 2;
			sp -= 2;
			v = in->op == GPUDP_FOP_AND ? (a && b) : (a || b);
			break;
		default:
			return 0;
		}
		if (sp >= 64)
			return 0;
		stack = (stack << 1) | v;
		sp++;
	}
	return sp == 1 ? (int)(stack & 1) : 0;
}

/** Where the per-packet accounting writes. Pointers are in the executing side's memory. */
struct gpudp_an_sink {
	struct gpudp_an_counters *ctr;   /**< counters (may be block-local on the GPU) */
	struct gpudp_flow_slot *flows;   /**< flow table */
	uint32_t flow_mask;              /**< capacity - 1 */
	uint32_t pad;
	const struct gpudp_filter *filter;
	struct gpudp_frag_slot *frags;   /**< fragment table (NULL: none, every fragment
	                                      counts as GPUDP_AN_DROP_FRAG_FULL) */
	uint32_t frag_mask;              /**< its capacity - 1 */
	uint32_t pad2;
	const struct gpudp_match_db *match; /**< payload inspection's patterns, or NULL */
	uint64_t *match_occ;             /**< per pattern: occurrences */
	uint64_t *match_pkts;            /**< per pattern: packets with an occurrence */
	uint32_t match_flags;            /**< GPUDP_AN_MATCH_FRAME */
	uint32_t seq;                    /**< the packet's number, for its alert records */
	const struct gpudp_rules_img *rules; /**< the rules' image, or NULL */
	uint64_t *rule_hits;             /**< per rule: packets it matched */
	struct gpudp_rules_alerts *alerts; /**< alert records, or NULL */
};

/**
 * Payload inspection of one packet: its L4 payload (gpudp_pkt_payload()),
 * or every captured byte (GPUDP_AN_MATCH_FRAME), scanned for
 * every pattern; the counters and per-pattern arrays updated.
 * @param m  filled (m->db NULL when inspection is off)
 */
GPUDP_AN_HD void
gpudp_an_scan_pkt(const struct gpudp_an_sink *sk, const uint8_t *p, uint32_t caplen,
		  const struct gpudp_pkt_info *pi, struct gpudp_an_scan *m)
{
	uint32_t off = 0, len = caplen;

	m->db = sk->match;
	m->alerts = 0;
	m->occ = 0;
	m->d = p;
	m->len = 0;
	m->rules = 0;
	if (sk->match == 0)
		return;
	if ((sk->match_flags & GPUDP_AN_MATCH_FRAME) == 0)
		off = gpudp_pkt_payload(p, caplen, pi, &len);
	m->d = p + off;
	m->len = len;
	GPUDP_AN_ADD64(&sk->ctr->match_bytes, len);
	if (len != 0)
		m->occ = gpudp_match_scan(sk->match, p + off, len, sk->match_occ, sk->match_pkts);
	if (m->occ != 0) {
		GPUDP_AN_ADD64(&sk->ctr->match_pkts, 1);
		GPUDP_AN_ADD64(&sk->ctr->match_occ, m->occ);
	}
}

/**
 * The rules on one IP packet: its L4 payload (gpudp_pkt_payload()) and
 * header against every rule (gpudp_rules_img_packet()); the counters, the
 * per-rule counts and the alert records updated, and @p m set for the
 * filter's `alert` primitives. Nothing without rules, or where the GPU
 * image is built without them (GPUDP_AN_NO_RULES: the analysis without
 * rules needs no scratch).
 */
GPUDP_AN_HD void
gpudp_an_rules_pkt(const struct gpudp_an_sink *sk, const uint8_t *p, uint32_t caplen,
		   const struct gpudp_pkt_info *pi, uint64_t ts, uint32_t *scratch,
		   struct gpudp_an_scan *m)
{
#ifndef GPUDP_AN_NO_RULES
	struct gpudp_rules_out o;
	uint32_t off, len;

	if (sk->rules == 0 || pi->af == 0)
		return;
	off = gpudp_pkt_payload(p, caplen, pi, &len);
	m->rules = sk->rules;
	m->pl = p + off;
	m->pl_len = len;
	m->scratch = scratch;
	gpudp_rule_pkt_of(pi, &m->rk);
	o.hits = sk->rule_hits;
	o.alerts = sk->alerts;
	o.list = 0;
	o.list_max = 0;
	o.actions = 0;
	o.seq = sk->seq;
	o.ts_ns = ts;
	m->alerts = gpudp_rules_img_packet(sk->rules, &m->rk, m->pl, len, scratch, &o);
	if (m->alerts != 0) {
		GPUDP_AN_ADD64(&sk->ctr->alert_pkts, 1);
		GPUDP_AN_ADD64(&sk->ctr->alerts, m->alerts);
	}
#else
	(void)sk; (void)p; (void)caplen; (void)pi; (void)ts; (void)scratch; (void)m;
#endif
}

/**
 * A packet's contribution to its flow beyond its count, bytes and times:
 * its IP bytes, its direction's first and last times, its TCP flags, its
 * VLAN and ToS, its ICMP type and code (what a flow record says,
 * gpudp_flow_rec.h). Commutative updates only.
 */
GPUDP_AN_HD void
gpudp_an_flow_extra(struct gpudp_flow_slot *s, const struct gpudp_pkt_info *pi, uint32_t dir,
		    uint64_t ts)
{
	GPUDP_AN_ADD64(&s->ip_bytes[dir], pi->ip_len);
	GPUDP_AN_MIN64(&s->dir_first[dir], ts);
	GPUDP_AN_MAX64(&s->dir_last[dir], ts);
	if (pi->tcp_flags != 0)
		GPUDP_AN_OR32(&s->tcp, (uint32_t)pi->tcp_flags << (8 * dir));
	GPUDP_AN_MAX32(&s->attrs[dir], (uint32_t)(pi->n_vlan != 0 ? pi->vlan_id[0] : 0) << 8 |
		       pi->tos);
	if (pi->has_l4 && (pi->l4proto == 1 || pi->l4proto == 58))
		GPUDP_AN_MAX32(&s->icmp[dir], ((uint32_t)pi->icmp_type << 8 | pi->icmp_code) + 1);
}

/**
 * Add a fragment (not an IPv6 atomic fragment) to its datagram's slot in
 * the fragment table, with commutative updates only.
 * @return 0, or -1 when the table is full (or absent)
 */
GPUDP_AN_HD int
gpudp_an_frag_account(const struct gpudp_an_sink *sk, const struct gpudp_pkt_info *pi,
		      uint32_t wirelen, uint64_t ts, uint32_t hit)
{
	struct gpudp_flow_key k;
	struct gpudp_frag_slot *s;

	if (sk->frags == 0)
		return -1;
	gpudp_frag_key_make(pi, &k);
	s = gpudp_frag_lookup_insert(sk->frags, sk->frag_mask, &k, gpudp_flow_hash(&k));
	if (s == 0)
		return -1;
	GPUDP_AN_ADD64(&s->pkts, 1);
	GPUDP_AN_ADD64(&s->bytes, wirelen);
	GPUDP_AN_ADD64(&s->payload, pi->frag_len);
	GPUDP_AN_MIN64(&s->first_ts, ts);
	GPUDP_AN_MAX64(&s->last_ts, ts);
	if (hit)
		GPUDP_AN_ADD64(&s->match_pkts, 1);
	if (pi->frag_first) {
		uint32_t ports = pi->has_ports ? (uint32_t)pi->sport << 16 | pi->dport : 0;

		GPUDP_AN_ADD32(&s->n_first, 1);
		GPUDP_AN_MIN32(&s->ports_min, ports);
		GPUDP_AN_MAX32(&s->ports_max, ports);
	}
	if (pi->frag_last) {
		GPUDP_AN_ADD32(&s->n_last, 1);
		GPUDP_AN_MAX64(&s->end, (uint64_t)pi->frag_off + pi->frag_len);
		GPUDP_AN_MAX64(&s->last_wirelen, wirelen);
	}
	return 0;
}

/**
 * Account one packet of @p caplen captured bytes of which only the first
 * @p avail are at @p p (a GPU that staged only the analysis's span of the
 * frame): as gpudp_an_account(), when those bytes hold every header the
 * analysis reads and payload inspection and the rules are off. Otherwise nothing is
 * counted and the caller accounts the whole frame.
 * @return 1 if the packet matched the filter, 0 otherwise, -1 when the
 *   first @p avail bytes are not enough
 */
GPUDP_AN_HD int
gpudp_an_account_head(const struct gpudp_an_sink *sk, const uint8_t *p, uint32_t avail,
		      uint32_t caplen, uint32_t wirelen, uint64_t ts)
{
	struct gpudp_an_counters *c = sk->ctr;
	struct gpudp_pkt_info pi;
	struct gpudp_an_scan m;
	int match, frag;
#ifndef GPUDP_AN_NO_RULES
	uint32_t scratch[GPUDP_RULES_SCRATCH_WORDS];
#else
	uint32_t *scratch = 0;
#endif

	gpudp_pkt_parse(p, avail, &pi);
	/* the parse ran out of the bytes it had, not of the frame's */
	if (avail < caplen && (pi.status == GPUDP_PKT_TRUNCATED || sk->match != 0 ||
			       sk->rules != 0))
		return -1;
	gpudp_an_scan_pkt(sk, p, caplen, &pi, &m);
	gpudp_an_rules_pkt(sk, p, caplen, &pi, ts, scratch, &m);
	/* a fragment of a larger datagram (an IPv6 atomic fragment is whole) */
	frag = pi.is_frag && !(pi.frag_first && pi.frag_last);
	GPUDP_AN_ADD64(&c->pkts, 1);
	GPUDP_AN_ADD64(&c->bytes, wirelen);
	GPUDP_AN_ADD64(&c->caplen_bytes, caplen);
	GPUDP_AN_ADD64(&c->size_hist[gpudp_an_size_bucket(wirelen)], 1);

#define GPUDP_AN_PROTO(x) do { \
		GPUDP_AN_ADD64(&c->proto_pkts[x], 1); \
		GPUDP_AN_ADD64(&c->proto_bytes[x], wirelen); \
	} while (0)
	if (caplen >= 14)
		GPUDP_AN_PROTO(GPUDP_AN_PROTO_ETH);
	if (pi.n_vlan >= 1)
		GPUDP_AN_PROTO(GPUDP_AN_PROTO_VLAN);
	if (pi.n_vlan >= 2)
		GPUDP_AN_PROTO(GPUDP_AN_PROTO_QINQ);
	if (pi.af == 4)
		GPUDP_AN_PROTO(GPUDP_AN_PROTO_IPV4);
	else if (pi.af == 6)
		GPUDP_AN_PROTO(GPUDP_AN_PROTO_IPV6);
	else if (pi.ethertype == 0x0806)
		GPUDP_AN_PROTO(GPUDP_AN_PROTO_ARP);
	else if (pi.status == GPUDP_PKT_OK)
		GPUDP_AN_PROTO(GPUDP_AN_PROTO_OTHER_L3);
	if (pi.has_ext)
		GPUDP_AN_PROTO(GPUDP_AN_PROTO_IPV6_EXT);
	if (pi.is_frag)
		GPUDP_AN_PROTO(GPUDP_AN_PROTO_FRAG);
	/* a fragmented datagram counts for its L4 protocol once, when the
	 * fragment table is resolved (gpudp_analysis_counters()) */
	if (pi.has_l4 && !frag) {
		if (pi.l4proto == 6)
			GPUDP_AN_PROTO(GPUDP_AN_PROTO_TCP);
		else if (pi.l4proto == 17)
			GPUDP_AN_PROTO(GPUDP_AN_PROTO_UDP);
		else if (pi.l4proto == 1)
			GPUDP_AN_PROTO(GPUDP_AN_PROTO_ICMP);
		else
			GPUDP_AN_PROTO(GPUDP_AN_PROTO_ICMPV6);
	} else if (pi.af != 0 && pi.status == GPUDP_PKT_OK && !frag) {
		GPUDP_AN_PROTO(GPUDP_AN_PROTO_OTHER_L4);
	}
#undef GPUDP_AN_PROTO
	if (pi.af != 0 && pi.ip_len + pi.l3_off > caplen)
		GPUDP_AN_ADD64(&c->snapped, 1);

	if (pi.status == GPUDP_PKT_TRUNCATED) {
		GPUDP_AN_ADD64(&c->drops[GPUDP_AN_DROP_TRUNCATED], 1);
	} else if (pi.status == GPUDP_PKT_MALFORMED) {
		GPUDP_AN_ADD64(&c->drops[GPUDP_AN_DROP_MALFORMED], 1);
	} else if (pi.af != 0 &&
		   (!frag || gpudp_an_frag_account(sk, &pi, wirelen, ts, m.occ != 0) != 0)) {
		/* a whole datagram, or a fragment that found the fragment table
		 * full: into its flow now (a first fragment with its ports, a
		 * later one without). Fragments in the table join their flows
		 * when it is resolved (gpudp_analysis_flows()). */
		struct gpudp_flow_key k;
		struct gpudp_flow_slot *s;
		uint32_t dir = gpudp_flow_key_make(&pi, &k);

		/* without a fragment table (the flow monitor), fragments go
		 * to their flows at once */
		if (frag && sk->frags != 0)
			GPUDP_AN_ADD64(&c->drops[GPUDP_AN_DROP_FRAG_FULL], 1);
		s = gpudp_flow_lookup_insert(sk->flows, sk->flow_mask, &k,
					     gpudp_flow_hash(&k));
		if (s == 0) {
			GPUDP_AN_ADD64(&c->drops[GPUDP_AN_DROP_FLOW_FULL], 1);
		} else {
			GPUDP_AN_ADD64(&s->pkts[dir], 1);
			GPUDP_AN_ADD64(&s->bytes[dir], wirelen);
			GPUDP_AN_MIN64(&s->first_ts, ts);
			GPUDP_AN_MAX64(&s->last_ts, ts);
			if (m.occ != 0)
				GPUDP_AN_ADD64(&s->match_pkts, 1);
			gpudp_an_flow_extra(s, &pi, dir, ts);
		}
	}

	match = gpudp_filter_eval(sk->filter, &pi, &m);
	if (match) {
		GPUDP_AN_ADD64(&c->filter_pkts, 1);
		GPUDP_AN_ADD64(&c->filter_bytes, wirelen);
	}
	return match;
}

/**
 * Account one packet: totals, size histogram, protocol breakdown, drops,
 * flow table and filter. Used as is by the CPU path and by every GPU thread.
 *
 * @return 1 if the packet matched the filter, 0 otherwise
 */
GPUDP_AN_HD int
gpudp_an_account(const struct gpudp_an_sink *sk, const uint8_t *p,
		 uint32_t caplen, uint32_t wirelen, uint64_t ts)
{
	return gpudp_an_account_head(sk, p, caplen, caplen, wirelen, ts);
}

#ifdef __cplusplus
}
#endif

#endif /* GPUDP_ANALYSIS_PKT_H */

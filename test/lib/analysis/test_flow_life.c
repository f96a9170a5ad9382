/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The flow monitor (lib/analysis/gpudp_flow_life.c, doc/flows.md): each way
 * a flow ends, the records' fields, room made in a small table, and every
 * packet in exactly one record over a long, churning input.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpudp_analysis.h"
#include "gpudp_flow_scan.h"
#include "gpudp_test.h"

#define S 1000000000ull
#define T0 (1700000000ull * S)

/* what the export function received */
struct got {
	struct gpudp_flow_rec r[4096];
	uint32_t n;
	uint64_t pkts;
	uint64_t all;   /* records, the ones past r[] too */
};

static void
take(void *arg, const struct gpudp_flow_rec *recs, uint32_t n)
{
	struct got *g = arg;
	uint32_t i;

	g->all += n;
	for (i = 0; i < n; i++) {
		g->pkts += recs[i].packets + recs[i].rpackets;
		if (g->n < sizeof(g->r) / sizeof(g->r[0]))
			g->r[g->n++] = recs[i];
	}
}

/*
 * An Ethernet frame: optionally one VLAN tag, IPv4 with @p tos, then TCP
 * (flags), UDP or ICMP (type, code in sport's bytes) from a.b.c.@p s to
 * 10.0.0.@p d.
 */
static uint32_t
frame(uint8_t *p, uint8_t proto, uint32_t s, uint32_t d, uint16_t sp, uint16_t dp,
      uint8_t flags, uint16_t vlan, uint8_t tos, uint32_t payload)
{
	uint32_t o = 12, l4 = proto == 6 ? 20 : 8, ip_len = 20 + l4 + payload, i;

	memset(p, 0, 14 + 4 + ip_len);
	if (vlan != 0) {
		p[o++] = 0x81;
		p[o++] = 0x00;
		p[o++] = (uint8_t)(vlan >> 8);
		p[o++] = (uint8_t)vlan;
	}
	p[o++] = 0x08;
	p[o++] = 0x00;
	p[o] = 0x45;
	p[o + 1] = tos;
	p[o + 2] = (uint8_t)(ip_len >> 8);
	p[o + 3] = (uint8_t)ip_len;
	p[o + 8] = 64;
	p[o + 9] = proto;
	p[o + 12] = 10;
	p[o + 13] = (uint8_t)(s >> 16);
	p[o + 14] = (uint8_t)(s >> 8);
	p[o + 15] = (uint8_t)s;
	p[o + 16] = 10;
	p[o + 19] = (uint8_t)d;
	o += 20;
	p[o] = (uint8_t)(sp >> 8);
	p[o + 1] = (uint8_t)sp;
	p[o + 2] = (uint8_t)(dp >> 8);
	p[o + 3] = (uint8_t)dp;
	if (proto == 6) {
		p[o + 12] = 0x50;
		p[o + 13] = flags;
	} else if (proto == 17) {
		p[o + 4] = (uint8_t)((8 + payload) >> 8);
		p[o + 5] = (uint8_t)(8 + payload);
	}
	for (i = 0; i < payload; i++)
		p[o + l4 + i] = (uint8_t)i;
	return o + l4 + payload;
}

static struct gpudp_analysis *
monitor(uint32_t slots, uint64_t idle_s, uint64_t active_s, int biflow, struct got *g)
{
	struct gpudp_flow_life l = { .idle_ns = idle_s * S, .active_ns = active_s * S,
				     .biflow = biflow };
	struct gpudp_analysis *a = gpudp_analysis_create(slots, NULL);

	memset(g, 0, sizeof(*g));
	if (a != NULL && gpudp_analysis_life_start(a, &l, take, g) != 0) {
		gpudp_analysis_free(a);
		return NULL;
	}
	return a;
}

/* one packet at @p t s (plus @p ns), then the monitor's tick */
static void
pkt(struct gpudp_analysis *a, uint8_t proto, uint32_t s, uint32_t d, uint16_t sp,
    uint16_t dp, uint8_t flags, uint64_t t, uint64_t ns)
{
	uint8_t f[256];
	uint32_t len = frame(f, proto, s, d, sp, dp, flags, 0, 0, 10);

	gpudp_analysis_packet(a, f, len, len, T0 + t * S + ns);
	gpudp_analysis_life_tick(a, T0 + t * S + ns, 1);
}

static const struct gpudp_flow_rec *
find(const struct got *g, uint16_t sport, uint8_t reason, uint32_t nth)
{
	uint32_t i;

	for (i = 0; i < g->n; i++)
		if (g->r[i].sport == sport && g->r[i].end_reason == reason && nth-- == 0)
			return &g->r[i];
	return NULL;
}

static int
idle_and_forced_end(void)
{
	static struct got g;
	struct gpudp_analysis *a = monitor(64, 15, 1800, 0, &g);
	const struct gpudp_flow_rec *r;

	GPUDP_TEST_ASSERT(a != NULL, "create");
	pkt(a, 17, 1, 2, 1000, 53, 0, 0, 0);
	pkt(a, 17, 1, 2, 1000, 53, 0, 1, 0);
	pkt(a, 17, 2, 1, 53, 1000, 0, 1, 5);   /* the answer: the other direction */
	pkt(a, 17, 3, 2, 2000, 53, 0, 10, 0);
	GPUDP_TEST_ASSERT(g.n == 0, "%u records before any timeout", g.n);
	pkt(a, 17, 3, 2, 2000, 53, 0, 20, 0);  /* 19 s after the first flow's last packet */
	GPUDP_TEST_ASSERT(g.n == 2, "%u records: the first flow's two directions", g.n);
	r = find(&g, 1000, GPUDP_FLOW_END_IDLE, 0);
	GPUDP_TEST_ASSERT(r != NULL && r->packets == 2 && r->dport == 53 &&
			  r->first_ns == T0 && r->last_ns == T0 + S && r->octets == 2 * 38 &&
			  r->l2_octets == 2 * 52 && r->af == 4 && r->proto == 17,
			  "the first direction's record");
	r = find(&g, 53, GPUDP_FLOW_END_IDLE, 0);
	GPUDP_TEST_ASSERT(r != NULL && r->packets == 1 && r->dport == 1000 &&
			  r->first_ns == T0 + S + 5, "the answer's record");
	gpudp_analysis_life_end(a);
	r = find(&g, 2000, GPUDP_FLOW_END_FORCED, 0);
	GPUDP_TEST_ASSERT(g.n == 3 && r != NULL && r->packets == 2, "the forced end");
	GPUDP_TEST_ASSERT(g.pkts == a->ctr.pkts, "%" PRIu64 " packets in records, %" PRIu64
			  " analysed", g.pkts, a->ctr.pkts);
	gpudp_analysis_free(a);
	return GPUDP_TEST_PASS;
}

static int
active_timeout_splits_a_long_flow(void)
{
	static struct got g;
	struct gpudp_analysis *a = monitor(64, 15, 5, 0, &g);
	uint64_t t, sum = 0;
	uint32_t i;

	GPUDP_TEST_ASSERT(a != NULL, "create");
	for (t = 0; t < 23; t++)
		pkt(a, 17, 1, 2, 1000, 53, 0, t, 0);
	gpudp_analysis_life_end(a);
	GPUDP_TEST_ASSERT(g.n >= 4, "%u records of a 23 s flow with a 5 s active timeout", g.n);
	for (i = 0; i < g.n; i++) {
		const struct gpudp_flow_rec *r = &g.r[i];

		GPUDP_TEST_ASSERT(r->end_reason == (i + 1 < g.n ? GPUDP_FLOW_END_ACTIVE :
						    GPUDP_FLOW_END_FORCED),
				  "record %u: end %u", i, r->end_reason);
		GPUDP_TEST_ASSERT(r->last_ns - r->first_ns <= 5 * S && r->packets >= 1,
				  "record %u spans %" PRIu64 " ns", i, r->last_ns - r->first_ns);
		GPUDP_TEST_ASSERT(i == 0 || r->first_ns > g.r[i - 1].last_ns,
				  "record %u overlaps the one before", i);
		sum += r->packets;
	}
	GPUDP_TEST_ASSERT(sum == 23, "%" PRIu64 " packets in the records, 23 sent", sum);
	gpudp_analysis_free(a);
	return GPUDP_TEST_PASS;
}

static int
tcp_fin_both_ways_or_rst_ends_a_flow(void)
{
	static struct got g;
	struct gpudp_analysis *a = monitor(64, 300, 1800, 1, &g);
	const struct gpudp_flow_rec *r;

	GPUDP_TEST_ASSERT(a != NULL, "create");
	pkt(a, 6, 1, 2, 40000, 80, 0x02, 0, 0);     /* SYN */
	pkt(a, 6, 2, 1, 80, 40000, 0x12, 0, 10);    /* SYN ACK */
	pkt(a, 6, 1, 2, 40000, 80, 0x11, 0, 20);    /* FIN ACK: one way only */
	pkt(a, 6, 3, 2, 40001, 80, 0x04, 0, 30);    /* RST */
	pkt(a, 6, 9, 2, 40009, 80, 0x02, 2, 0);     /* another flow, 2 s on: a look */
	r = find(&g, 40001, GPUDP_FLOW_END_EOF, 0);
	GPUDP_TEST_ASSERT(g.n == 1 && r != NULL && r->tcp_flags == 0x04,
			  "%u records: the RST flow's, ended", g.n);
	pkt(a, 6, 2, 1, 80, 40000, 0x11, 4, 0);     /* FIN ACK back */
	pkt(a, 6, 9, 2, 40009, 80, 0x10, 6, 0);
	r = find(&g, 40000, GPUDP_FLOW_END_EOF, 0);
	GPUDP_TEST_ASSERT(g.n == 2 && r != NULL, "the FIN flow ended once FIN went both ways");
	/* biflow: the SYN's sender is the source */
	GPUDP_TEST_ASSERT(r->flags == GPUDP_FLOW_REC_BIFLOW && r->packets == 2 &&
			  r->rpackets == 2 && r->dport == 80 && r->tcp_flags == 0x13 &&
			  r->rtcp_flags == 0x13 && r->first_ns == T0 && r->last_ns == T0 + 4 * S,
			  "biflow record: packets %" PRIu64 "/%" PRIu64 " flags %x/%x",
			  r->packets, r->rpackets, r->tcp_flags, r->rtcp_flags);
	gpudp_analysis_free(a);
	return GPUDP_TEST_PASS;
}

static int
vlan_tos_and_icmp_in_records(void)
{
	static struct got g;
	struct gpudp_analysis *a = monitor(64, 15, 1800, 0, &g);
	uint8_t f[256];
	uint32_t len;

	GPUDP_TEST_ASSERT(a != NULL, "create");
	len = frame(f, 17, 1, 2, 7, 9, 0, 301, 0xb8, 4);
	gpudp_analysis_packet(a, f, len, len, T0);
	/* ICMP echo request: type 8 code 0 in the first two bytes */
	len = frame(f, 1, 1, 2, 0x0800, 0x1234, 0, 0, 0, 4);
	gpudp_analysis_packet(a, f, len, len, T0 + 1);
	gpudp_analysis_life_end(a);
	GPUDP_TEST_ASSERT(g.n == 2, "%u records", g.n);
	GPUDP_TEST_ASSERT(g.r[0].vlan == 301 || g.r[1].vlan == 301, "the VLAN");
	GPUDP_TEST_ASSERT(g.r[0].tos == 0xb8 || g.r[1].tos == 0xb8, "the ToS");
	GPUDP_TEST_ASSERT((g.r[0].proto == 1 && g.r[0].sport == 0 && g.r[0].dport == 0x0800) ||
			  (g.r[1].proto == 1 && g.r[1].sport == 0 && g.r[1].dport == 0x0800),
			  "ICMP as type << 8 | code in dport");
	gpudp_analysis_free(a);
	return GPUDP_TEST_PASS;
}

/*
 * A small table and many flows: the least recently seen flows make room
 * (lack of resources), no packet is lost to a full table, every packet is
 * in exactly one record.
 */
static int
room_made_and_every_packet_in_one_record(void)
{
	static struct got g;
	struct gpudp_analysis *a = monitor(256, 60, 1800, 0, &g);
	uint64_t i, resources = 0;
	uint8_t f[256];

	GPUDP_TEST_ASSERT(a != NULL, "create");
	for (i = 0; i < 20000; i++) {
		/* 2000 flows, each packet on a flow chosen by a mix of i */
		uint32_t fl = (uint32_t)((i * 2654435761u) % 2000);
		uint32_t len = frame(f, 17, 1 + fl, 2, (uint16_t)(1024 + fl), 53, 0, 0, 0, 8);

		gpudp_analysis_packet(a, f, len, len, T0 + i * 1000);
		if (i % 32 == 31)
			gpudp_analysis_life_tick(a, T0 + i * 1000, 32);
	}
	gpudp_analysis_life_end(a);
	for (i = 0; i < g.n; i++)
		resources += g.r[i].end_reason == GPUDP_FLOW_END_RESOURCES;
	GPUDP_TEST_ASSERT(a->ctr.drops[GPUDP_AN_DROP_FLOW_FULL] == 0,
			  "%" PRIu64 " packets found the table full",
			  a->ctr.drops[GPUDP_AN_DROP_FLOW_FULL]);
	GPUDP_TEST_ASSERT(resources > 0, "no flow ended to make room in 256 slots");
	GPUDP_TEST_ASSERT(g.pkts == 20000, "%" PRIu64 " packets in records, 20000 analysed",
			  g.pkts);
	gpudp_analysis_free(a);
	return GPUDP_TEST_PASS;
}

/*
 * Churn: flows of a few packets start all the time and end on their idle
 * timeout, in a table of 1024 slots, for 300000 packets: the runs of slots
 * lose their dead slots at each look, and every packet is still found in
 * its flow's slot (none lost to a full table, none counted twice).
 */
static int
churn_keeps_every_packet_in_its_flow(void)
{
	static struct got g;
	struct gpudp_analysis *a = monitor(1024, 1, 1800, 0, &g);
	static uint8_t seen[60000];
	uint64_t i, recs_pkts_max = 0, flows = 0;
	uint8_t f[256];

	GPUDP_TEST_ASSERT(a != NULL, "create");
	memset(seen, 0, sizeof(seen));
	for (i = 0; i < 300000; i++) {
		/* flow k lives for packets 8k .. 8k + 200: about 25 flows at once,
		 * their packets interleaved */
		uint64_t k = i / 8 - (i * 7919 % 25);
		uint32_t len = frame(f, 17, (uint32_t)(k % 60000) + 1, 2,
				     (uint16_t)(1024 + k % 50000), 53, 0, 0, 0, 8);

		flows += !seen[k % 60000];
		seen[k % 60000] = 1;
		gpudp_analysis_packet(a, f, len, len, T0 + i * 1000000);
		if (i % 16 == 15)
			gpudp_analysis_life_tick(a, T0 + i * 1000000, 16);
	}
	gpudp_analysis_life_end(a);
	for (i = 0; i < g.n; i++)
		if (g.r[i].packets > recs_pkts_max)
			recs_pkts_max = g.r[i].packets;
	GPUDP_TEST_ASSERT(a->ctr.drops[GPUDP_AN_DROP_FLOW_FULL] == 0,
			  "%" PRIu64 " packets found the table full",
			  a->ctr.drops[GPUDP_AN_DROP_FLOW_FULL]);
	GPUDP_TEST_ASSERT(g.pkts == 300000, "%" PRIu64 " packets in records, 300000 analysed",
			  g.pkts);
	GPUDP_TEST_ASSERT(recs_pkts_max <= 25, "a record of %" PRIu64 " packets: a flow's "
			  "packets went to another flow", recs_pkts_max);
	/* each flow lasts 0.2 s, under its 1 s idle timeout: one record each */
	GPUDP_TEST_ASSERT(g.all == flows, "%" PRIu64 " records of %" PRIu64 " flows: a flow "
			  "was not found again in its slot and split", g.all, flows);
	gpudp_analysis_free(a);
	return GPUDP_TEST_PASS;
}

/*
 * The look's compaction in chunks, as GPU threads run it: with every run's
 * start marked first, the chunks reclaimed in any order leave the table a
 * single pass leaves, every live flow found again from its home, no mark
 * left. Tables of 256 slots, flows homed on a few slots (long runs that
 * cross chunks and wrap), two in five dead.
 */
static int
reclaim_in_chunks_any_order_equals_one_pass(void)
{
	enum { N = 256, CHUNKS = 8 };
	static struct gpudp_flow_slot ref[N], t[N];
	uint64_t x = 0x2545f4914f6cdd1dull;
	uint32_t round, i, c, order[CHUNKS];

	for (round = 0; round < 200; round++) {
		uint32_t n = 60 + round % 150, homes = 4 + round % 12;

		memset(ref, 0, sizeof(ref));
		for (i = 0; i < n; i++) {
			struct gpudp_flow_key k;
			struct gpudp_flow_slot *s;

			memset(&k, 0, sizeof(k));
			k.proto = 17;
			k.port[0] = (uint16_t)i;
			k.port[1] = (uint16_t)round;
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			s = gpudp_flow_lookup_insert(ref, N - 1, &k,
						     (uint32_t)(x % homes) * (N / homes));
			GPUDP_TEST_ASSERT(s != NULL, "insert %u", i);
			s->last_ts = i;
			if (x % 5 < 2)
				s->state = GPUDP_FLOW_DEAD;
		}
		memcpy(t, ref, sizeof(t));
		gpudp_flow_mark_chunk(ref, N - 1, 1, 0);
		gpudp_flow_reclaim_chunk(ref, N - 1, 1, 0);
		for (c = 0; c < CHUNKS; c++) {
			order[c] = c;
			gpudp_flow_mark_chunk(t, N - 1, CHUNKS, c);
		}
		for (c = CHUNKS - 1; c > 0; c--) {
			uint32_t j = (uint32_t)(x >> 7) % (c + 1), tmp = order[c];

			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			order[c] = order[j];
			order[j] = tmp;
		}
		for (c = 0; c < CHUNKS; c++)
			gpudp_flow_reclaim_chunk(t, N - 1, CHUNKS, order[c]);
		GPUDP_TEST_ASSERT(memcmp(t, ref, sizeof(t)) == 0,
				  "round %u: the chunks' table differs from one pass's", round);
		for (i = 0; i < N; i++) {
			int claimed = 0;

			GPUDP_TEST_ASSERT(t[i].pad == 0 && t[i].state != GPUDP_FLOW_DEAD,
					  "round %u slot %u: mark %#x, state %u", round, i, t[i].pad,
					  t[i].state);
			if (t[i].state == GPUDP_FLOW_READY)
				GPUDP_TEST_ASSERT(gpudp_an_slot_find((uint8_t *)t, sizeof(t[0]), N - 1,
								     &t[i].key, t[i].hash,
								     &claimed) ==
						  (uint8_t *)&t[i] && !claimed,
						  "round %u: the flow in slot %u is not found from "
						  "its home %u", round, i, t[i].hash);
		}
	}
	return GPUDP_TEST_PASS;
}


/* record order for comparing two sets of them */
static int
rec_cmp(const void *x, const void *y)
{
	return memcmp(x, y, sizeof(struct gpudp_flow_rec));
}

static void
ignore(void *arg, const struct gpudp_flow_rec *recs, uint32_t n)
{
	(void)arg;
	(void)recs;
	(void)n;
}

/* one pass of a queued look, its chunks in a shuffled order (GPU threads) */
static void
look_pass(struct gpudp_analysis *a, struct gpudp_flow_scan *x, uint32_t op,
	  struct gpudp_flow_export *hdr, uint64_t *rnd)
{
	uint32_t order[64], c, j, tmp;

	x->op = op;
	for (c = 0; c < x->chunks; c++)
		order[c] = c;
	for (c = x->chunks - 1; c > 0; c--) {
		*rnd ^= *rnd << 13, *rnd ^= *rnd >> 7, *rnd ^= *rnd << 17;
		j = (uint32_t)(*rnd % (c + 1));
		tmp = order[c];
		order[c] = order[j];
		order[j] = tmp;
	}
	for (c = 0; c < x->chunks; c++)
		gpudp_flow_look_chunk(a->flows, a->flow_mask, x, hdr, order[c]);
}

/*
 * The GPU engine's looks (GPUDP_FLOW_SCAN_LOOK_*: three passes queued
 * behind the batches, each in chunks run in any order, the look decided
 * from what the last one left in the table's header) against the CPU's
 * (gpudp_analysis_life_tick()): on the same packets, with a look queued
 * after every batch whether due or not, the same records, the same
 * looks, evictions and slots in use, and the same table after each look.
 * A table of 1024 slots and flows that churn, so that flows end on every
 * timeout and for room.
 */
static int
queued_vs_cpu(uint64_t idle_s, uint64_t active_s, int room_only)
{
	enum { SLOTS = 1024, BATCH = 64, CHUNKS = 16 };
	static struct got g;
	static struct gpudp_flow_rec cpu_r[4096];
	struct gpudp_flow_life conf = { .idle_ns = idle_s * S, .active_ns = active_s * S };
	struct gpudp_flow_life_stats st;
	struct gpudp_analysis *a = monitor(SLOTS, idle_s, active_s, 0, &g);
	struct gpudp_analysis *b = gpudp_analysis_create(SLOTS, NULL);
	struct gpudp_flow_export *hdr = calloc(1, sizeof(*hdr));
	struct gpudp_flow_export *out = calloc(1, sizeof(*out) +
					       sizeof(out->slot[0]) * SLOTS);
	struct gpudp_flow_life_stats bst;
	uint64_t rnd = 0x9e3779b97f4a7c15ull, i, t = T0, looks = 0, evictions = 0;
	uint32_t n_cpu, in_use = 0;
	struct gpudp_flow_scan x;
	static struct got gb;
	uint8_t f[256];
	int end;

	GPUDP_TEST_ASSERT(a != NULL && b != NULL && hdr != NULL && out != NULL, "create");
	GPUDP_TEST_ASSERT(gpudp_analysis_life_start(b, &conf, ignore, NULL) == 0, "life on b");
	memset(&gb, 0, sizeof(gb));
	memset(&bst, 0, sizeof(bst));
	conf = gpudp_flow_life_settings(&conf);
	hdr->cap = SLOTS;
	for (i = 0, end = 0; !end; ) {
		uint32_t k;

		/* a batch: a packet every 0 to 2 ms; one in 20 of 8 long flows
		 * (past the active timeout) for the first 5000, the others of
		 * flows of two packets (about 1000 at once for the idle timeout:
		 * past three quarters of the table) for the first 3000, then of
		 * eight (that end idle); one in 97 a TCP RST in a flow of its own */
		for (k = 0; k < BATCH; k++, i++) {
			uint64_t fl = room_only ? 100 + i / 2 :
				i % 20 == 0 && i < 5000 ? i / 20 % 8 :
				i < 3000 ? 100 + i / 2 : 2000 + i / 8;
			uint32_t len = frame(f, i % 97 == 0 && !room_only ? 6 : 17, (uint32_t)fl + 1, 2,
					     (uint16_t)(1024 + fl % 60000), 53, 0x04, 0, 0, 8);

			rnd ^= rnd << 13, rnd ^= rnd >> 7, rnd ^= rnd << 17;
			t += rnd % 2000000;
			gpudp_analysis_packet(a, f, len, len, t);
			gpudp_analysis_packet(b, f, len, len, t);
		}
		end = i >= 7000;
		if (end) {
			gpudp_analysis_life_end(a);
		} else {
			gpudp_analysis_life_tick(a, t, BATCH);
		}
		/* b: a look queued after every batch, the GPU's way */
		x = (struct gpudp_flow_scan){
			.magic = GPUDP_FLOW_SCAN_MAGIC, .force = (uint32_t)end, .chunks = CHUNKS,
			.now = t, .idle_ns = conf.idle_ns, .active_ns = conf.active_ns,
			.evict_bucket = GPUDP_FLOW_NO_EVICT, .next = BATCH, .pkts = b->ctr.pkts,
			.scan_ns = conf.scan_ns, .out = (uint64_t)(uintptr_t)out, .cap = SLOTS,
		};
		look_pass(b, &x, GPUDP_FLOW_SCAN_LOOK_END, hdr, &rnd);
		look_pass(b, &x, GPUDP_FLOW_SCAN_LOOK_EVICT, hdr, &rnd);
		look_pass(b, &x, GPUDP_FLOW_SCAN_LOOK_DONE, hdr, &rnd);
		if (out->due) {
			GPUDP_TEST_ASSERT(!out->overflow && out->count <= SLOTS, "overflow");
			gpudp_flow_export_records(out->slot, out->count, 0, take, &gb, &bst);
			looks++;
			evictions += out->evicted;
			in_use = out->in_use;
		}
		gpudp_analysis_life_stats(a, &st);
		GPUDP_TEST_ASSERT(st.scans == looks && st.evictions == evictions &&
				  st.in_use == in_use,
				  "packet %" PRIu64 ": looks %" PRIu64 "/%" PRIu64 ", evictions %"
				  PRIu64 "/%" PRIu64 ", in use %u/%u (CPU/queued)", i, st.scans,
				  looks, st.evictions, evictions, st.in_use, in_use);
		GPUDP_TEST_ASSERT(memcmp(a->flows, b->flows, sizeof(a->flows[0]) * SLOTS) == 0,
				  "packet %" PRIu64 ": the tables differ after the looks", i);
	}
	GPUDP_TEST_ASSERT(room_only ? evictions > 0 && st.ended[GPUDP_FLOW_END_IDLE] == 0 &&
			  st.ended[GPUDP_FLOW_END_EOF] == 0 :
			  evictions > 0 && st.ended[GPUDP_FLOW_END_IDLE] > 0 &&
			  st.ended[GPUDP_FLOW_END_ACTIVE] > 0 && st.ended[GPUDP_FLOW_END_EOF] > 0,
			  "the input ends flows in every way: evictions %" PRIu64 ", idle %"
			  PRIu64 ", active %" PRIu64 ", end %" PRIu64, evictions,
			  st.ended[GPUDP_FLOW_END_IDLE], st.ended[GPUDP_FLOW_END_ACTIVE],
			  st.ended[GPUDP_FLOW_END_EOF]);
	GPUDP_TEST_ASSERT(g.all == gb.all && g.all <= 4096 && g.pkts == gb.pkts && g.pkts == i,
			  "records %" PRIu64 "/%" PRIu64 ", packets %" PRIu64 "/%" PRIu64
			  " of %" PRIu64, g.all, gb.all, g.pkts, gb.pkts, i);
	n_cpu = g.n;
	memcpy(cpu_r, g.r, sizeof(cpu_r[0]) * n_cpu);
	qsort(cpu_r, n_cpu, sizeof(cpu_r[0]), rec_cmp);
	qsort(gb.r, gb.n, sizeof(gb.r[0]), rec_cmp);
	GPUDP_TEST_ASSERT(memcmp(cpu_r, gb.r, sizeof(cpu_r[0]) * n_cpu) == 0,
			  "the queued looks' records differ from the CPU's");
	free(hdr);
	free(out);
	gpudp_analysis_free(a);
	gpudp_analysis_free(b);
	return GPUDP_TEST_PASS;
}

static int
queued_looks_equal_the_cpus(void)
{
	return queued_vs_cpu(2, 5, 0);
}

/* the same with only flows that end for room: looks that end nothing but
 * for room (the runs' starts marked all the same) */
static int
queued_looks_equal_the_cpus_room_only(void)
{
	return queued_vs_cpu(3600, 7200, 1);
}

static const struct gpudp_test_case cases[] = {
	{ "idle_and_forced_end", idle_and_forced_end },
	{ "active_timeout_splits_a_long_flow", active_timeout_splits_a_long_flow },
	{ "tcp_fin_both_ways_or_rst_ends_a_flow", tcp_fin_both_ways_or_rst_ends_a_flow },
	{ "vlan_tos_and_icmp_in_records", vlan_tos_and_icmp_in_records },
	{ "room_made_and_every_packet_in_one_record", room_made_and_every_packet_in_one_record },
	{ "churn_keeps_every_packet_in_its_flow", churn_keeps_every_packet_in_its_flow },
	{ "reclaim_in_chunks_any_order_equals_one_pass",
	  reclaim_in_chunks_any_order_equals_one_pass },
	{ "queued_looks_equal_the_cpus", queued_looks_equal_the_cpus },
	{ "queued_looks_equal_the_cpus_room_only", queued_looks_equal_the_cpus_room_only },
	{ NULL, NULL },
};

int
main(int argc, char **argv)
{
	return gpudp_test_run("flow_life", cases, argc, argv);
}

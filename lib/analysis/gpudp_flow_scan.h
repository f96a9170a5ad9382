/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The flow monitor's look at the flow table (doc/flows.md), shared
 * verbatim by the CPU (gpudp_flow_life.c) and the GPU (the analysis work,
 * gpudp_analysis_work.h, whose pseudo-packets carry a struct
 * gpudp_flow_scan): which flows end and why, their slots copied into an
 * export area and killed (or, on active timeout, emptied and kept), dead
 * slots taken out of their runs. The table is cut into chunks, each looked at by one call
 * (one GPU thread), so that both give the same flows in the export area,
 * in another order on the GPU, and the same table after. Every function
 * is GPUDP_AN_HD.
 */
#ifndef GPUDP_FLOW_SCAN_H
#define GPUDP_FLOW_SCAN_H

#include "gpudp_analysis_pkt.h"
#include "gpudp_flow_rec.h"
#ifndef __CUDACC__
#include "gpudp_analysis.h"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** gpudp_flow_scan.magic: a pseudo-packet that is a look at the table. */
#define GPUDP_FLOW_SCAN_MAGIC 0x7363616eu
/** gpudp_flow_scan.op: end the flows that are due, into the export area. */
#define GPUDP_FLOW_SCAN_END 1u
/** gpudp_flow_scan.op: the runs of slots in use lose their dead slots. */
#define GPUDP_FLOW_SCAN_RECLAIM 2u
/** gpudp_flow_scan.op: mark where the runs of slots in use start, before
 *  GPUDP_FLOW_SCAN_RECLAIM (which makes EMPTY slots as it goes). */
#define GPUDP_FLOW_SCAN_MARK 3u
/** gpudp_flow_scan.op, a look queued behind the batches (the GPU engine):
 *  when due (gpudp_flow_look_is_due()), the flows due end into the area at
 *  gpudp_flow_scan.out; the table's state says when the last look was. */
#define GPUDP_FLOW_SCAN_LOOK_END 4u
/** gpudp_flow_scan.op, after GPUDP_FLOW_SCAN_LOOK_END: the flows seen least
 *  recently end when the table is short of room; runs' starts are marked. */
#define GPUDP_FLOW_SCAN_LOOK_EVICT 5u
/** gpudp_flow_scan.op, after GPUDP_FLOW_SCAN_LOOK_EVICT: the runs lose their
 *  dead slots; chunk 0 gives the look's header to the area and starts the
 *  next look's. */
#define GPUDP_FLOW_SCAN_LOOK_DONE 6u
/** gpudp_flow_slot.pad of an EMPTY slot that a run of slots in use follows,
 *  from GPUDP_FLOW_SCAN_MARK to GPUDP_FLOW_SCAN_RECLAIM (else pad is 0). */
#define GPUDP_FLOW_RUN_START 0x72756e73u
/** Age buckets of live flows (gpudp_flow_export.age_hist). */
#define GPUDP_FLOW_AGE_BUCKETS 64u
/** gpudp_flow_scan.evict_bucket: no flow ends for room. */
#define GPUDP_FLOW_NO_EVICT GPUDP_FLOW_AGE_BUCKETS

/** One look at the table: what a scan pseudo-packet's bytes hold (48 bytes). */
struct gpudp_flow_scan {
	uint32_t magic;        /**< GPUDP_FLOW_SCAN_MAGIC */
	uint32_t op;           /**< GPUDP_FLOW_SCAN_END, _MARK or _RECLAIM (the CPU's
				*   look), or _LOOK_END, _LOOK_EVICT, _LOOK_DONE (a
				*   look queued behind the batches, the GPU's) */
	uint32_t force;        /**< 1: every flow ends (forced end) */
	uint32_t chunks;       /**< the table is cut into this many chunks (a power of two) */
	uint64_t now;          /**< the packets' time: newest timestamp seen, ns */
	uint64_t idle_ns;      /**< idle timeout */
	uint64_t active_ns;    /**< active timeout */
	uint32_t evict_bucket; /**< live flows of this age bucket or older end for room
				*   (lack of resources); GPUDP_FLOW_NO_EVICT: none */
	uint32_t next;         /**< _LOOK_*: packets of a batch (room is made for them) */
	uint64_t pkts;         /**< _LOOK_*: packets analysed before the look */
	uint64_t scan_ns;      /**< _LOOK_*: a look is due this long after the last */
	uint64_t out;          /**< _LOOK_*: the area (struct gpudp_flow_export, room
				*   for the table) the flows that end go to, in
				*   memory the host reads */
	uint32_t cap;          /**< _LOOK_*: the table's slots */
	uint32_t pad;
};

/**
 * The export area: the header, then @p cap slots. A look adds the slots of
 * the flows that end (each slot's pad holds its end reason) and counts the
 * flows left by age.
 */
struct gpudp_flow_export {
	uint32_t count;        /**< slots added (may pass cap: overflow) */
	uint32_t cap;          /**< room for this many */
	uint32_t overflow;     /**< a flow due found no room: it is left as it was,
				*   for the next look */
	uint32_t live;         /**< live flows left */
	uint32_t due;          /**< _LOOK_*: 1 when the look was made */
	uint32_t evicted;      /**< _LOOK_*: 1 when flows ended for room */
	uint32_t age_hist[GPUDP_FLOW_AGE_BUCKETS]; /**< live flows left, by age bucket */
	/* _LOOK_*: kept from one look to the next in the table's header */
	uint32_t live2;        /**< live flows left after those ended for room */
	uint32_t in_use;       /**< slots in use after the last look */
	uint64_t scan_t;       /**< the packets' time at the last look */
	uint64_t pkts_at_scan; /**< packets analysed before the last look */
	struct gpudp_flow_slot slot[]; /**< the ended flows' slots, pad: end reason */
};

/** The age bucket of a flow last seen at @p last: log2 of its age in ms, plus 1. */
GPUDP_AN_HD uint32_t
gpudp_flow_age_bucket(uint64_t now, uint64_t last)
{
	uint64_t ms = now > last ? (now - last) / 1000000u : 0;
	uint32_t b = 0;

	while (ms != 0 && b < GPUDP_FLOW_AGE_BUCKETS - 1) {
		ms >>= 1;
		b++;
	}
	return b;
}

/** Why the live flow in @p s ends at this look, or 0: it goes on. */
GPUDP_AN_HD uint32_t
gpudp_flow_end_reason(const struct gpudp_flow_slot *s, const struct gpudp_flow_scan *x)
{
	uint32_t f0 = s->tcp & 0xff, f1 = (s->tcp >> 8) & 0xff;

	if (x->force)
		return GPUDP_FLOW_END_FORCED;
	if (s->key.proto == 6 && (((f0 | f1) & 0x04) != 0 || ((f0 & f1) & 0x01) != 0))
		return GPUDP_FLOW_END_EOF;
	if (x->now >= s->last_ts && x->now - s->last_ts >= x->idle_ns)
		return GPUDP_FLOW_END_IDLE;
	if (s->first_ts != ~(uint64_t)0 && x->now >= s->first_ts &&
	    x->now - s->first_ts >= x->active_ns)
		return GPUDP_FLOW_END_ACTIVE;
	if (x->evict_bucket < GPUDP_FLOW_NO_EVICT &&
	    gpudp_flow_age_bucket(x->now, s->last_ts) >= x->evict_bucket)
		return GPUDP_FLOW_END_RESOURCES;
	return 0;
}

/** A flow that goes on after its record was written (active timeout): empty again. */
GPUDP_AN_HD void
gpudp_flow_slot_restart(struct gpudp_flow_slot *s)
{
	uint32_t d;

	for (d = 0; d < 2; d++) {
		s->pkts[d] = 0;
		s->bytes[d] = 0;
		s->ip_bytes[d] = 0;
		s->dir_first[d] = ~(uint64_t)0;
		s->dir_last[d] = 0;
		s->attrs[d] = 0;
		s->icmp[d] = 0;
	}
	s->first_ts = ~(uint64_t)0;
	s->last_ts = 0;
	s->match_pkts = 0;
	s->tcp = 0;
}

/* a slot EMPTY: every byte 0 */
GPUDP_AN_HD void
gpudp_flow_slot_clear(struct gpudp_flow_slot *s)
{
	uint64_t *w = (uint64_t *)s;
	uint32_t i;

	for (i = 0; i < sizeof(*s) / 8; i++)
		w[i] = 0;
}

/* a slot's bytes, one 8-byte word at a time (slots are 8-byte aligned) */
GPUDP_AN_HD void
gpudp_flow_slot_copy(struct gpudp_flow_slot *dst, const struct gpudp_flow_slot *src)
{
	uint64_t *d = (uint64_t *)dst;
	const uint64_t *s = (const uint64_t *)src;
	uint32_t i;

	for (i = 0; i < sizeof(*dst) / 8; i++)
		d[i] = s[i];
}

/**
 * Chunk @p chunk of @p x->chunks of the flow table (@p mask + 1 slots):
 * the live flows that end go to @p slots, counted in @p ex (their slots
 * killed, or restarted on active timeout); those left are counted in
 * @p live and, unless @p hist is NULL, by age in @p hist. No packet may be
 * analysed into the table meanwhile. The flows left are counted here first
 * and added once per chunk and age: the chunks of a look all add to the
 * same few counters, and one atomic add per flow on the GPU would queue
 * every thread of the look behind them.
 */
GPUDP_AN_HD void
gpudp_flow_end_chunk(struct gpudp_flow_slot *t, uint32_t mask, const struct gpudp_flow_scan *x,
		     struct gpudp_flow_export *ex, struct gpudp_flow_slot *slots,
		     uint32_t *live_out, uint32_t *hist_out, uint32_t chunk)
{
	uint32_t per = (mask + 1) / x->chunks, i, live = 0, b;
	uint32_t hist[GPUDP_FLOW_AGE_BUCKETS];
	uint64_t aged = 0;   /* bit b: hist[b] counts */

	for (i = chunk * per; i < (chunk + 1) * per; i++) {
		struct gpudp_flow_slot *s = &t[i];
		uint32_t why, k;

		if (s->state != GPUDP_FLOW_READY)
			continue;
		why = gpudp_flow_end_reason(s, x);
		if (why != 0) {
#ifdef __CUDA_ARCH__
			k = atomicAdd(&ex->count, 1u);
#else
			k = ex->count++;
#endif
			if (k < ex->cap) {
				gpudp_flow_slot_copy(&slots[k], s);
				slots[k].pad = why;
				if (why == GPUDP_FLOW_END_ACTIVE)
					gpudp_flow_slot_restart(s);
				else
					s->state = GPUDP_FLOW_DEAD;
			} else {
				GPUDP_AN_OR32(&ex->overflow, 1u);
			}
		}
		if (s->state == GPUDP_FLOW_READY) {
			live++;
			if (hist_out == NULL)
				continue;
			b = gpudp_flow_age_bucket(x->now, s->last_ts);
			if (!(aged & (UINT64_C(1) << b))) {
				aged |= UINT64_C(1) << b;
				hist[b] = 0;
			}
			hist[b]++;
		}
	}
	if (live != 0)
		GPUDP_AN_ADD32(live_out, live);
	for (b = 0; aged != 0; b++, aged >>= 1)
		if (aged & 1)
			GPUDP_AN_ADD32(&hist_out[b], hist[b]);
}

/**
 * Chunk @p chunk of a look that ends flows into @p ex itself
 * (gpudp_flow_end_chunk()), the flows left counted in ex->live and
 * ex->age_hist.
 */
GPUDP_AN_HD void
gpudp_flow_scan_chunk(struct gpudp_flow_slot *t, uint32_t mask, const struct gpudp_flow_scan *x,
		      struct gpudp_flow_export *ex, uint32_t chunk)
{
	gpudp_flow_end_chunk(t, mask, x, ex, ex->slot, &ex->live, ex->age_hist, chunk);
}

/*
 * The run of slots in use that starts at @p start (the slot before it is
 * EMPTY) without its DEAD slots: walking it in order, a DEAD slot becomes
 * EMPTY, and a flow moves back to the first EMPTY slot from its home on,
 * if there is one before it: as if the run's flows were inserted again in
 * their order. Every key is then found again by its probe sequence (the
 * slots from its home to it are in use), no flow moves past where it was,
 * and the run never grows into the next one.
 */
GPUDP_AN_HD void
gpudp_flow_compact_run(struct gpudp_flow_slot *t, uint32_t mask, uint32_t start)
{
	uint32_t len = 0, dead = 0, i, q;

	while (len <= mask && t[(start + len) & mask].state != GPUDP_FLOW_EMPTY) {
		dead += t[(start + len) & mask].state == GPUDP_FLOW_DEAD;
		len++;
	}
	if (dead == 0)
		return;
	for (i = 0; i < len; i++) {
		struct gpudp_flow_slot *s = &t[(start + i) & mask];

		if (s->state != GPUDP_FLOW_READY) {
			gpudp_flow_slot_clear(s);
			continue;
		}
		for (q = (s->hash - start) & mask; q < i; q++)
			if (t[(start + q) & mask].state == GPUDP_FLOW_EMPTY)
				break;
		if (q < i) {
			gpudp_flow_slot_copy(&t[(start + q) & mask], s);
			gpudp_flow_slot_clear(s);
		}
	}
}

/**
 * Chunk @p chunk of the table: each EMPTY slot in it that a slot in use
 * follows is marked as a run's start (GPUDP_FLOW_RUN_START). Every chunk
 * is marked before any is reclaimed: compacting a run empties slots inside
 * it, which must not be taken for the starts of other runs.
 */
GPUDP_AN_HD void
gpudp_flow_mark_chunk(struct gpudp_flow_slot *t, uint32_t mask, uint32_t chunks, uint32_t chunk)
{
	uint32_t per = (mask + 1) / chunks, i;

	for (i = chunk * per; i < (chunk + 1) * per; i++)
		if (t[i].state == GPUDP_FLOW_EMPTY &&
		    t[(i + 1) & mask].state != GPUDP_FLOW_EMPTY)
			t[i].pad = GPUDP_FLOW_RUN_START;
}

/**
 * Chunk @p chunk of the table, marked (gpudp_flow_mark_chunk()): the run
 * after each marked slot in it loses its DEAD slots
 * (gpudp_flow_compact_run()) and the mark goes. A run has one start, and
 * compacting it writes only inside it, so chunks never touch the same run.
 */
GPUDP_AN_HD void
gpudp_flow_reclaim_chunk(struct gpudp_flow_slot *t, uint32_t mask, uint32_t chunks,
			 uint32_t chunk)
{
	uint32_t per = (mask + 1) / chunks, i;

	for (i = chunk * per; i < (chunk + 1) * per; i++)
		if (t[i].state == GPUDP_FLOW_EMPTY && t[i].pad == GPUDP_FLOW_RUN_START) {
			t[i].pad = 0;
			gpudp_flow_compact_run(t, mask, (i + 1) & mask);
		}
}

/**
 * Whether a table of @p capacity slots, @p used of them in use (flows and
 * dead slots, or as many as may be), could pass three quarters full with a
 * batch of @p next packets: then the flows seen least recently end for room.
 */
GPUDP_AN_HD int
gpudp_flow_room_short(uint64_t used, uint32_t next, uint32_t capacity)
{
	return used + next > (uint64_t)capacity * 3 / 4;
}

/**
 * The age bucket from which live flows end for room: the oldest buckets of
 * @p ex's count (a look just made), until the flows left are at most half of
 * @p capacity.
 * @return the bucket, or GPUDP_FLOW_NO_EVICT when half is free already
 */
GPUDP_AN_HD uint32_t
gpudp_flow_evict_bucket(const struct gpudp_flow_export *ex, uint32_t capacity)
{
	uint32_t b = GPUDP_FLOW_AGE_BUCKETS, sum = 0;

	if (ex->live <= capacity / 2)
		return GPUDP_FLOW_NO_EVICT;
	/* the oldest buckets, until the flows left are at most half the table */
	while (b > 0 && ex->live - sum > capacity / 2)
		sum += ex->age_hist[--b];
	return b;
}

/**
 * Whether the table is to be looked at after a batch: the packets' time
 * @p now is @p scan_ns (the scan interval) past the last look at
 * @p scan_t, or the slots in use then (@p in_use) and the packets analysed
 * since (@p since, each may have taken one) and a batch of @p next could
 * leave it short of room.
 */
GPUDP_AN_HD int
gpudp_flow_look_due(uint64_t scan_ns, uint64_t now, uint64_t scan_t, uint32_t in_use,
		    uint64_t since, uint32_t next, uint32_t capacity)
{
	return now - scan_t >= scan_ns || gpudp_flow_room_short(in_use + since, next, capacity);
}

/**
 * Whether the look @p x (GPUDP_FLOW_SCAN_LOOK_*) is made, from what the last
 * one left in the table's header @p ex: the rule of gpudp_flow_look_due(),
 * with the slots in use after the last look known exactly.
 */
GPUDP_AN_HD int
gpudp_flow_look_is_due(const struct gpudp_flow_scan *x, const struct gpudp_flow_export *ex)
{
	return x->force || gpudp_flow_look_due(x->scan_ns, x->now, ex->scan_t, ex->in_use,
					       x->pkts - ex->pkts_at_scan, x->next, x->cap);
}

/**
 * Chunk @p chunk of a look queued behind the batches (@p x->op one of
 * GPUDP_FLOW_SCAN_LOOK_*), which makes in three passes, each after the
 * last, what the CPU's look makes (gpudp_flow_life.c): the flows due end
 * into the area at x->out, then, when the table is short of room, the
 * flows seen least recently, then the runs lose their dead slots. The
 * table's header @p ex counts the look and keeps, from one look to the
 * next, when the last one was; chunk 0 of the last pass gives the area
 * the look's header and makes @p ex ready for the next.
 */
GPUDP_AN_HD void
gpudp_flow_look_chunk(struct gpudp_flow_slot *t, uint32_t mask, const struct gpudp_flow_scan *x,
		      struct gpudp_flow_export *ex, uint32_t chunk)
{
	struct gpudp_flow_export *out = (struct gpudp_flow_export *)(uintptr_t)x->out;
	struct gpudp_flow_scan y;
	uint32_t b;

	if (x->op == GPUDP_FLOW_SCAN_LOOK_END) {
		if (gpudp_flow_look_is_due(x, ex))
			gpudp_flow_end_chunk(t, mask, x, ex, out->slot, &ex->live, ex->age_hist,
					     chunk);
		return;
	}
	if (x->op == GPUDP_FLOW_SCAN_LOOK_EVICT) {
		if (!gpudp_flow_look_is_due(x, ex))
			return;
		/* every chunk finds the same bucket: the counts of the first
		 * pass do not change in this one */
		b = !x->force && gpudp_flow_room_short(ex->live, x->next, x->cap) ?
			gpudp_flow_evict_bucket(ex, x->cap) : GPUDP_FLOW_NO_EVICT;
		if (b != GPUDP_FLOW_NO_EVICT) {
			y = *x;
			y.evict_bucket = b;
			gpudp_flow_end_chunk(t, mask, &y, ex, out->slot, &ex->live2, NULL, chunk);
		}
		/* ending for room makes dead slots, never EMPTY ones: the
		 * marks are as good as after it */
		if (ex->count != 0 || b != GPUDP_FLOW_NO_EVICT)
			gpudp_flow_mark_chunk(t, mask, x->chunks, chunk);
		if (chunk == 0)
			ex->evicted = b != GPUDP_FLOW_NO_EVICT;
		return;
	}
	if (x->op != GPUDP_FLOW_SCAN_LOOK_DONE)
		return;
	gpudp_flow_reclaim_chunk(t, mask, x->chunks, chunk);
	if (chunk != 0)
		return;
	out->count = ex->count;
	out->overflow = ex->overflow;
	out->live = ex->live;
	out->live2 = ex->live2;
	out->evicted = ex->evicted;
	out->due = gpudp_flow_look_is_due(x, ex);
	if (out->due) {
		ex->in_use = ex->evicted ? ex->live2 : ex->live;
		ex->scan_t = x->now;
		ex->pkts_at_scan = x->pkts;
	}
	out->in_use = ex->in_use;
	out->scan_t = ex->scan_t;
	out->pkts_at_scan = ex->pkts_at_scan;
	ex->count = 0;
	ex->overflow = 0;
	ex->live = 0;
	ex->live2 = 0;
	ex->evicted = 0;
	for (b = 0; b < GPUDP_FLOW_AGE_BUCKETS; b++)
		ex->age_hist[b] = 0;
#ifdef __CUDA_ARCH__
	__threadfence_system();
#endif
}

#ifndef __CUDACC__
/**
 * @p l with its defaults for the fields left 0 (doc/flows.md): idle timeout
 * 15 s, active timeout 1800 s, a look every second: what both engines run.
 */
struct gpudp_flow_life gpudp_flow_life_settings(const struct gpudp_flow_life *l);

/**
 * The records of @p n ended flows' slots (each slot's pad: its end reason),
 * given to @p fn (a few hundred at a time), counted in @p st.
 */
void gpudp_flow_export_records(const struct gpudp_flow_slot *slots, uint32_t n, int biflow,
			       gpudp_flow_export_fn *fn, void *arg,
			       struct gpudp_flow_life_stats *st);


#endif

#ifdef __cplusplus
}
#endif

#endif /* GPUDP_FLOW_SCAN_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * gpudp_rules_img: a rule set compiled for running (doc/rules.md, "The
 * engine"), in one piece addressed by byte offsets, so that one copy of
 * img->size bytes is the whole of it wherever it lies (host or GPU
 * memory): the rules, their lists and contents, and the prefilter, a
 * lib/match database of the rules' fast patterns (one a rule: the content
 * marked fast_pattern, else the longest) with each pattern's rules.
 *
 * gpudp_rules_img_packet() runs it over one packet: the payload is scanned
 * once for every fast pattern; the rules of each pattern found, and the
 * rules without a content, are checked whole, header and payload
 * (gpudp_rules_eval.h). The rules that match are counted, and each gives
 * an alert record (struct gpudp_rule_alert). Inline, free of allocation
 * and shared by the CPU and the GPU (nvcc compiles it); host code builds
 * the image. Payloads longer than GPUDP_RULES_PAYLOAD_MAX bytes are
 * checked on their first GPUDP_RULES_PAYLOAD_MAX bytes, on either side.
 */
#ifndef GPUDP_RULES_IMG_H
#define GPUDP_RULES_IMG_H

#include <stddef.h>
#include <stdint.h>

#include "gpudp_match.h"
#include "gpudp_rules.h"
#include "gpudp_rules_eval.h"

#ifdef __cplusplus
extern "C" {
#endif

/** struct gpudp_rules_img.magic: "gprr" */
#define GPUDP_RULES_IMG_MAGIC 0x72727067u
/** Image format version (struct gpudp_rules_img.version). */
#define GPUDP_RULES_IMG_VERSION 1u
/** Most payload bytes a rule is checked on: longer payloads, their start. */
#define GPUDP_RULES_PAYLOAD_MAX 16384u
/** uint32_t words of scratch gpudp_rules_img_packet() needs. */
#define GPUDP_RULES_SCRATCH_WORDS (2u * GPUDP_RULES_EVAL_WORDS(GPUDP_RULES_PAYLOAD_MAX))

/** A rule set compiled: this header, then its arrays at the offsets it gives. */
struct gpudp_rules_img {
	uint32_t magic;          /**< GPUDP_RULES_IMG_MAGIC */
	uint32_t version;        /**< GPUDP_RULES_IMG_VERSION */
	uint64_t size;           /**< bytes of the image, header included */
	uint32_t n_rule, n_net, n_port, n_check, n_bytes;
	uint32_t n_pat;          /**< distinct fast patterns (the database's) */
	uint32_t n_always;       /**< rules without a content: checked on every packet */
	uint32_t pad;
	uint64_t off_rule;       /**< struct gpudp_rule[n_rule], the set's order */
	uint64_t off_net;        /**< struct gpudp_rule_net[n_net] */
	uint64_t off_port;       /**< struct gpudp_rule_port[n_port] */
	uint64_t off_check;      /**< struct gpudp_rule_check[n_check] */
	uint64_t off_bytes;      /**< uint8_t[n_bytes] */
	uint64_t off_first;      /**< uint32_t[n_pat + 1]: pattern p's rules are
				  *   rule_of[first[p] .. first[p + 1]) */
	uint64_t off_rule_of;    /**< uint32_t[]: rule indices, by pattern, in order */
	uint64_t off_always;     /**< uint32_t[n_always]: rule indices, in order */
	uint64_t off_db;         /**< struct gpudp_match_db, 8-byte aligned (n_pat > 0) */
};

/** An alert: a rule that matched a packet. */
struct gpudp_rule_alert {
	uint64_t ts_ns;          /**< the packet's time, ns since the epoch */
	uint32_t rule;           /**< the rule's index in the set */
	uint32_t seq;            /**< the caller's number of the packet */
	struct gpudp_rule_pkt pkt; /**< its addresses, protocol and ports */
	uint16_t pad;
};

/**
 * Alert records as many writers append them: the header, then room for
 * cap records. An alert past the room is counted in head but not kept.
 */
struct gpudp_rules_alerts {
	uint64_t head;           /**< alerts appended; those below cap are in rec[] */
	uint64_t cap;            /**< records the area has room for */
	struct gpudp_rule_alert rec[]; /**< the records */
};

/** Where gpudp_rules_img_packet() writes what matched. */
struct gpudp_rules_out {
	uint64_t *hits;                   /**< per rule: packets it matched, or NULL */
	struct gpudp_rules_alerts *alerts; /**< the alert records, or NULL */
	uint32_t *list;                   /**< the rules that matched, in the order
					   *   found (list_max of them), or NULL */
	uint32_t list_max;
	uint32_t *actions;                /**< or'd with 1 << action of each rule that
					   *   matched (enum gpudp_rule_action), or NULL */
	uint32_t seq;                     /**< the records' seq */
	uint64_t ts_ns;                   /**< the records' ts_ns */
};

/** How gpudp_rules_img_packet() adds to shared counters: @return the value before. */
GPUDP_RULES_HD uint64_t
gpudp_rules_add64(uint64_t *p, uint64_t v)
{
#ifdef __CUDA_ARCH__
	return atomicAdd((unsigned long long *)p, (unsigned long long)v);
#else
	uint64_t old = *p;

	*p = old + v;
	return old;
#endif
}

/** Array of @p type at byte offset @p off of image @p img. */
#define GPUDP_RULES_IMG_AT(img, type, off) ((type *)((uintptr_t)(img) + (off)))

/** A rule set that reads image @p img's arrays (its parse-time fields zero). */
GPUDP_RULES_HD void
gpudp_rules_img_view(const struct gpudp_rules_img *img, struct gpudp_rules *rs)
{
	rs->rule = GPUDP_RULES_IMG_AT(img, struct gpudp_rule, img->off_rule);
	rs->n_rule = img->n_rule;
	rs->net = GPUDP_RULES_IMG_AT(img, struct gpudp_rule_net, img->off_net);
	rs->n_net = img->n_net;
	rs->port = GPUDP_RULES_IMG_AT(img, struct gpudp_rule_port, img->off_port);
	rs->n_port = img->n_port;
	rs->check = GPUDP_RULES_IMG_AT(img, struct gpudp_rule_check, img->off_check);
	rs->n_check = img->n_check;
	rs->bytes = GPUDP_RULES_IMG_AT(img, uint8_t, img->off_bytes);
	rs->n_bytes = img->n_bytes;
	rs->skipped = 0;
	rs->cap_rule = rs->cap_net = rs->cap_port = rs->cap_check = rs->cap_bytes = 0;
	rs->var_name = rs->var_value = 0;
	rs->n_var = 0;
}

/** Rule @p i of the view @p rs against the packet; if it matches, its outputs. */
GPUDP_RULES_HD uint32_t
gpudp_rules_img_try(const struct gpudp_rules *rs, uint32_t i, const struct gpudp_rule_pkt *k,
		    const uint8_t *p, uint32_t len, uint32_t *scratch,
		    const struct gpudp_rules_out *o, uint32_t found)
{
	const struct gpudp_rule *r = &rs->rule[i];

	if (!gpudp_rule_header_match(rs, r, k) || !gpudp_rule_payload_match(rs, r, p, len, scratch))
		return 0;
	if (o->hits != 0)
		gpudp_rules_add64(&o->hits[i], 1);
	if (o->list != 0 && found < o->list_max)
		o->list[found] = i;
	if (o->actions != 0)
		*o->actions |= 1u << r->action;
	if (o->alerts != 0) {
		uint64_t at = gpudp_rules_add64(&o->alerts->head, 1);

		if (at < o->alerts->cap) {
			struct gpudp_rule_alert *a = &o->alerts->rec[at];

			a->ts_ns = o->ts_ns;
			a->rule = i;
			a->seq = o->seq;
			a->pkt = *k;
			a->pad = 0;
		}
	}
	return 1;
}

/* one automaton of the prefilter: its arrays, its state */
struct gpudp_rules_dfa {
	const uint32_t *delta, *ends, *outs;
	uint32_t s, on;
};

GPUDP_RULES_HD void
gpudp_rules_dfa_init(struct gpudp_rules_dfa *d, const struct gpudp_match_db *db, uint32_t a)
{
	d->on = db->n_states[a] != 0;
	d->s = 0;
	d->delta = GPUDP_MATCH_AT(db, uint32_t, db->off_delta[a]);
	d->ends = GPUDP_MATCH_AT(db, uint32_t, db->off_first[a]);
	d->outs = GPUDP_MATCH_AT(db, uint32_t, db->off_outs[a]);
}

/* byte @p b (folded for the folded automaton) at index @p i: the rules of
 * each pattern first seen there tried; @return those that matched */
GPUDP_RULES_HD uint32_t
gpudp_rules_dfa_step(struct gpudp_rules_dfa *d, const struct gpudp_rules_img *img,
		     const struct gpudp_match_db *db, const struct gpudp_rules *rs, uint8_t b,
		     const struct gpudp_rule_pkt *k, const uint8_t *p, uint32_t i, uint32_t len,
		     uint32_t *scratch, const struct gpudp_rules_out *o, uint32_t found,
		     uint32_t *seen, uint32_t *n_seen)
{
	const uint32_t *first = GPUDP_RULES_IMG_AT(img, const uint32_t, img->off_first);
	const uint32_t *rule_of = GPUDP_RULES_IMG_AT(img, const uint32_t, img->off_rule_of);
	uint32_t lo, hi, j, got = 0;

	d->s = d->delta[(size_t)d->s * 256 + b];
	if (!(d->s & GPUDP_MATCH_ENDS))
		return 0;
	d->s &= ~GPUDP_MATCH_ENDS;
	for (lo = d->ends[d->s], hi = d->ends[d->s + 1]; lo < hi; lo++) {
		uint32_t pat = d->outs[lo];

		if (!gpudp_match_fresh(db, pat, p, i, seen, n_seen))
			continue;
		for (j = first[pat]; j < first[pat + 1]; j++)
			got += gpudp_rules_img_try(rs, rule_of[j], k, p, len, scratch, o,
						   found + got);
	}
	return got;
}

/**
 * The rules of image @p img that packet @p k with payload @p p (@p len
 * bytes; longer than GPUDP_RULES_PAYLOAD_MAX: its start) matches, each
 * written to @p o. On the GPU many threads may share @p o's counters and
 * records (atomics); on the CPU one.
 * @param scratch GPUDP_RULES_SCRATCH_WORDS words
 * @return the rules that matched
 */
GPUDP_RULES_HD uint32_t
gpudp_rules_img_packet(const struct gpudp_rules_img *img, const struct gpudp_rule_pkt *k,
		       const uint8_t *p, uint32_t len, uint32_t *scratch,
		       const struct gpudp_rules_out *o)
{
	struct gpudp_rules rs;
	uint32_t seen[GPUDP_MATCH_SEEN];
	uint32_t n_seen = 0, found = 0, i, j;

	if (len > GPUDP_RULES_PAYLOAD_MAX)
		len = GPUDP_RULES_PAYLOAD_MAX;
	gpudp_rules_img_view(img, &rs);
	if (img->n_pat > 0) {
		const struct gpudp_match_db *db =
			GPUDP_RULES_IMG_AT(img, const struct gpudp_match_db, img->off_db);
		/* the two automata (gpudp_match_step()'s: case-sensitive, folded),
		 * their arrays read once rather than at every byte; one without
		 * states stays in its state 0 of a table of one */
		struct gpudp_rules_dfa d0, d1;

		gpudp_rules_dfa_init(&d0, db, 0);
		gpudp_rules_dfa_init(&d1, db, 1);
		/* a rule has one fast pattern: the pattern's first occurrence
		 * makes its rules candidates, once */
		for (i = 0; i < len; i++) {
			if (d0.on)
				found += gpudp_rules_dfa_step(&d0, img, db, &rs, p[i], k, p, i, len,
							      scratch, o, found, seen, &n_seen);
			if (d1.on)
				found += gpudp_rules_dfa_step(&d1, img, db, &rs,
							      gpudp_match_fold(p[i]), k, p, i, len,
							      scratch, o, found, seen, &n_seen);
		}
	}
	for (j = 0; j < img->n_always; j++)
		found += gpudp_rules_img_try(&rs, GPUDP_RULES_IMG_AT(img, const uint32_t,
								     img->off_always)[j],
					     k, p, len, scratch, o, found);
	return found;
}

/**
 * Whether rule @p i of image @p img matches the packet (the filter's
 * `alert SID`): its header and its whole payload checks.
 * @param scratch GPUDP_RULES_SCRATCH_WORDS words
 */
GPUDP_RULES_HD int
gpudp_rules_img_rule(const struct gpudp_rules_img *img, uint32_t i,
		     const struct gpudp_rule_pkt *k, const uint8_t *p, uint32_t len,
		     uint32_t *scratch)
{
	struct gpudp_rules rs;

	if (i >= img->n_rule)
		return 0;
	if (len > GPUDP_RULES_PAYLOAD_MAX)
		len = GPUDP_RULES_PAYLOAD_MAX;
	gpudp_rules_img_view(img, &rs);
	return gpudp_rule_header_match(&rs, &rs.rule[i], k) &&
	       gpudp_rule_payload_match(&rs, &rs.rule[i], p, len, scratch);
}

#ifndef __CUDACC__
/**
 * Compile rule set @p rs into an image (malloc'd in one piece: free() it).
 * @return the image, or NULL with @p err set: more than
 *   GPUDP_MATCH_PATTERNS_MAX distinct fast patterns, or memory
 */
struct gpudp_rules_img *gpudp_rules_img_build(const struct gpudp_rules *rs, char *err,
					      size_t errlen);

/**
 * Whether @p img (@p size bytes, e.g. read back) is a whole image of this
 * version whose offsets lie inside it.
 * @return 0, or -EINVAL
 */
int gpudp_rules_img_check(const struct gpudp_rules_img *img, uint64_t size);

/**
 * The index of the rule with signature id @p sid in @p img (the first, when
 * several have it).
 * @return the index, or -1
 */
int64_t gpudp_rules_img_find_sid(const struct gpudp_rules_img *img, uint32_t sid);
#endif

#ifdef __cplusplus
}
#endif

#endif /* GPUDP_RULES_IMG_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * gpudp analysis: traffic statistics over captured Ethernet frames, computed
 * by the same per-packet code on the CPU (this library) and on the GPU
 * (capture.cu here, the GPU image "capture" of the gpudp_analysis_gpu library;
 * lib/capture's GPU engine, gpudp_cap_engine.h, runs it).
 *
 * An analysis object holds:
 * - global counters (struct gpudp_an_counters): packets, bytes, protocol
 *   breakdown, size histogram, drops by reason, filter matches;
 * - a flow table of bidirectional conversations keyed by
 *   (address, port) x 2 + protocol (struct gpudp_flow_key), with packets and
 *   bytes per direction and first/last timestamps;
 * - a fragment table with one slot per fragmented IP datagram
 *   (struct gpudp_frag_slot);
 * - optionally a compiled filter (gpudp_filter_compile()).
 *
 * The tables and counters are the raw state the per-packet code updates;
 * it can be merged. Flow lists, top talkers and the counters to report are
 * derived from it on request, resolving the fragment table: each fragmented
 * datagram joins a flow, and counts for its L4 protocol once when complete
 * (gpudp_analysis_flows(), gpudp_analysis_counters(); doc/capture.md,
 * "Fragments"). None of these functions is thread-safe on the same object;
 * use one object per thread and gpudp_analysis_merge() them (and
 * gpudp_analysis_merge_frags()).
 *
 * Errors: functions return a negative errno value (or NULL and set errno).
 */
#ifndef GPUDP_ANALYSIS_H
#define GPUDP_ANALYSIS_H

#include <stddef.h>
#include <stdint.h>

#include "gpudp_analysis_types.h"
#include "gpudp_flow_rec.h"
#include "gpudp_match.h"
#include "gpudp_rules_img.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Default flow table capacity (slots). */
#define GPUDP_AN_DEFAULT_FLOWS 65536u
/** Largest accepted flow table capacity (slots, 176 bytes each). */
#define GPUDP_AN_MAX_FLOWS (1u << 24)

struct gpudp_flow_life_state;

/** An analysis object. Fields are read-only for users. */
struct gpudp_analysis {
	/**
	 * global counters, raw: a fragmented datagram is not yet in the L4
	 * counters (see gpudp_analysis_counters())
	 */
	struct gpudp_an_counters ctr;
	struct gpudp_flow_slot *flows;  /**< flow table, flow_mask + 1 slots */
	uint32_t flow_mask;             /**< capacity - 1 */
	uint32_t pad;
	struct gpudp_filter filter;     /**< compiled filter (n_insn 0: none) */
	struct gpudp_frag_slot *frags;  /**< fragment table, frag_mask + 1 slots */
	uint32_t frag_mask;             /**< its capacity - 1 (gpudp_analysis_frag_capacity()) */
	uint32_t pad2;
	/** payload inspection (gpudp_analysis_set_match()): the caller's database, or NULL */
	const struct gpudp_match_db *match;
	uint64_t *match_occ;   /**< per pattern: occurrences (match->n_patterns) */
	uint64_t *match_pkts;  /**< per pattern: packets with an occurrence */
	uint32_t match_flags;  /**< GPUDP_AN_MATCH_FRAME */
	uint32_t pad3;
	/** rules (gpudp_analysis_set_rules()): the caller's image, or NULL */
	const struct gpudp_rules_img *rules;
	uint64_t *rule_hits;   /**< per rule: packets it matched (rules->n_rule) */
	struct gpudp_rules_alerts *alerts; /**< the alert records not yet taken, or NULL */
	/** the flow monitor (gpudp_analysis_life_start()), or NULL: flows are kept */
	struct gpudp_flow_life_state *life;
};

/** What the fragment table holds (gpudp_analysis_fragments()). */
struct gpudp_frag_summary {
	uint64_t datagrams;     /**< fragmented datagrams (fragment table slots in use) */
	uint64_t complete;      /**< of which complete: counted for their L4 protocol */
	uint64_t first_missing; /**< of which in their address pair's flow, ports 0: no
	                             first fragment, or first fragments of several port pairs */
	uint64_t pkts;          /**< fragments (frames) in the table */
	uint64_t bytes;         /**< their wire bytes */
};

/**
 * The flow monitor's settings (gpudp_analysis_life_start(), doc/flows.md):
 * when flows end and how they are written.
 */
struct gpudp_flow_life {
	uint64_t idle_ns;    /**< a flow with no packet for this long ends (idle
			      *   timeout); 0: the default, 15 s */
	uint64_t active_ns;  /**< a flow whose record began this long ago is
			      *   exported and goes on (active timeout); 0: 1800 s */
	uint64_t scan_ns;    /**< the table is looked over when the packets' time
			      *   has moved on this much since the last time; 0: 1 s */
	int biflow;          /**< 1: one record per flow, both directions (RFC 5103);
			      *   0: one per direction */
};

/**
 * Receives the records of flows that ended (gpudp_analysis_life_start()), @p n
 * of them, valid during the call.
 */
typedef void gpudp_flow_export_fn(void *arg, const struct gpudp_flow_rec *recs, uint32_t n);

/** The flow monitor's counters (gpudp_analysis_life_stats()). */
struct gpudp_flow_life_stats {
	uint64_t ended[6];   /**< flows (or, on active timeout, parts of flows) that
			      *   ended, by enum gpudp_flow_end (1..5) */
	uint64_t records;    /**< records given to the export function */
	uint64_t pkts;       /**< packets in those records */
	uint64_t scans;      /**< times the table was looked over */
	uint64_t evictions;  /**< of which to make room (lack of resources) */
	uint64_t look_ns;    /**< wall time the looks took, records given out
			      *   included (CLOCK_MONOTONIC) */
	uint64_t look_wait_ns; /**< of which waiting for the batches in flight
				*   to finish first (GPU engine) */
	uint32_t in_use;     /**< slots in use (flows and ended flows' slots) at the
			      *   last look */
	uint32_t capacity;   /**< slots */
};

/** A flow as listed by gpudp_analysis_flows(). */
struct gpudp_flow_record {
	struct gpudp_flow_key key;
	uint64_t pkts[2];   /**< [0]: endpoint 0 -> 1, [1]: 1 -> 0 */
	uint64_t bytes[2];
	uint64_t first_ts;  /**< ns */
	uint64_t last_ts;   /**< ns */
	uint64_t match_pkts; /**< packets with a payload match (gpudp_analysis_set_match()) */
};

/** An IP endpoint (address) as listed by gpudp_analysis_talkers(). */
struct gpudp_talker {
	uint8_t af;          /**< 4 or 6 */
	uint8_t addr[16];    /**< network order; IPv4 in the first 4 bytes */
	uint64_t tx_pkts, tx_bytes; /**< sent by this address */
	uint64_t rx_pkts, rx_bytes; /**< received by this address */
};

/**
 * Create an analysis object.
 *
 * @param flow_capacity flow table slots; rounded up to a power of two,
 *                      between 16 and GPUDP_AN_MAX_FLOWS (0: the default)
 * @param filter        compiled filter copied into the object, or NULL
 * @return the object, or NULL with errno EINVAL (capacity too large) or ENOMEM
 */
struct gpudp_analysis *gpudp_analysis_create(uint32_t flow_capacity,
					     const struct gpudp_filter *filter);

/** Free an analysis object (NULL is accepted). */
void gpudp_analysis_free(struct gpudp_analysis *a);

/** Zero every counter and empty the flow table; the filter is kept. */
void gpudp_analysis_reset(struct gpudp_analysis *a);

/** Round a requested capacity the way gpudp_analysis_create() does (0 if too large). */
uint32_t gpudp_analysis_capacity(uint32_t flow_capacity);

/**
 * Fragment table slots that go with a flow table capacity: a quarter of
 * gpudp_analysis_capacity(flow_capacity), at least 16 (128 bytes each).
 */
uint32_t gpudp_analysis_frag_capacity(uint32_t flow_capacity);

/**
 * Turn payload inspection on: every packet analysed from now on is scanned
 * for the patterns of @p db (gpudp_match.h) over its L4 payload
 * (gpudp_pkt_payload()), or over every captured byte with
 * GPUDP_AN_MATCH_FRAME; the counters match_bytes, match_pkts and
 * match_occ, the per-pattern arrays a->match_occ and a->match_pkts and
 * each flow's match_pkts count what is found, and the filter's `match`
 * primitives can be true. The per-pattern arrays are zeroed.
 *
 * @param a      the analysis object
 * @param db     the compiled patterns, kept by the caller while @p a lives
 *               (NULL: inspection off)
 * @param flags  0 or GPUDP_AN_MATCH_FRAME
 * @return 0, -EINVAL (unknown flag), -ENOMEM
 */
int gpudp_analysis_set_match(struct gpudp_analysis *a, const struct gpudp_match_db *db,
			     uint32_t flags);

/**
 * Turn the rules on (doc/rules.md): every IP packet analysed from now on
 * is checked against the rules of @p img (gpudp_rules_img.h) on its L4
 * payload; the counters alert_pkts and alerts, the per-rule counts
 * a->rule_hits and the alert records count what matched, and the filter's
 * `alert` primitives can be true. The counts are zeroed.
 *
 * @param a     the analysis object
 * @param img   the compiled rules, kept by the caller while @p a lives
 *              (NULL: rules off)
 * @param room  alert records kept until gpudp_analysis_alerts_take()
 *              (0: none, only counts); those past it are counted lost
 * @return 0, -ENOMEM
 */
int gpudp_analysis_set_rules(struct gpudp_analysis *a, const struct gpudp_rules_img *img,
			     uint32_t room);

/**
 * Give the alert records made since the last call to @p fn (@p n of them,
 * in the order they were made, and how many did not fit the room and
 * were lost) and forget them; @p fn is not called when there are none.
 * @return the records given
 */
uint64_t gpudp_analysis_alerts_take(struct gpudp_analysis *a,
				    void (*fn)(void *arg, const struct gpudp_rule_alert *rec,
					       uint32_t n, uint64_t lost),
				    void *arg);

/**
 * Add per-pattern counts computed elsewhere (another object with the same
 * database, or the GPU's arrays read back) into @p dst's.
 * @param occ, pkts  dst->match->n_patterns counts each (NULL: none)
 * @return 0, or -EINVAL when @p dst has no database
 */
int gpudp_analysis_merge_match(struct gpudp_analysis *dst, const uint64_t *occ,
			       const uint64_t *pkts);

/**
 * Add everything @p src holds into @p dst: counters, flows, fragment table
 * and, when both inspect payloads or run the same rules, per-pattern and
 * per-rule counts (not @p src's alert records) (gpudp_analysis_merge(),
 * gpudp_analysis_merge_frags(), gpudp_analysis_merge_match()). For the
 * results of several threads or engines over parts of the same packets.
 * @return 0, or -ENOSPC if some flows or datagrams did not fit (counted as
 *   drops, as those functions do)
 */
int gpudp_analysis_add(struct gpudp_analysis *dst, const struct gpudp_analysis *src);

/**
 * gpudp_analysis_add(), for a @p src that is not needed afterwards: when
 * @p dst holds nothing yet (no packet counted) and both have the same flow
 * and fragment capacities and the same payload inspection (database and
 * flags), their tables are exchanged instead of added, in constant time;
 * @p src then holds nothing (it may be freed, reset or added to again).
 * Otherwise it adds, and @p src is left as it was.
 * @return as gpudp_analysis_add()
 */
int gpudp_analysis_take(struct gpudp_analysis *dst, struct gpudp_analysis *src);

/**
 * Analyse one packet on the CPU.
 *
 * @param a       the analysis object
 * @param data    first byte of the Ethernet header
 * @param caplen  bytes available at data
 * @param wirelen original frame length (caplen if unknown), as the capture
 *                gives it: a record's original length below its captured
 *                one counts as is in the byte counters, as tshark's
 *                frame.len does
 * @param ts_ns   timestamp, ns since the epoch (0 if unknown)
 * @return 1 if the packet matched the filter, else 0
 */
int gpudp_analysis_packet(struct gpudp_analysis *a, const uint8_t *data,
			  uint32_t caplen, uint32_t wirelen, uint64_t ts_ns);

/**
 * Analyse a staged batch on the CPU (the same layout the GPU path copies).
 *
 * @param a      the analysis object
 * @param desc   n packet descriptors
 * @param data   batch data area the descriptors' offsets refer to
 * @param n      number of packets
 * @param match  bitmap of (n + 31) / 32 words, filled with filter matches
 *               (bit i of word i / 32); may be NULL
 * @return number of packets that matched the filter
 */
uint32_t gpudp_analysis_batch(struct gpudp_analysis *a,
			      const struct gpudp_pkt_desc *desc,
			      const uint8_t *data, uint32_t n, uint32_t *match);

/**
 * Add counters and flows computed elsewhere (another CPU object, or the GPU
 * tables read back to host memory) into @p dst.
 *
 * @param dst    destination object
 * @param ctr    counters to add
 * @param slots  flow table to add (slots with state READY are taken)
 * @param n_slots number of slots in @p slots
 * @return 0, or -ENOSPC if some flows did not fit (their packets are added
 *         to drops[GPUDP_AN_DROP_FLOW_FULL])
 */
int gpudp_analysis_merge(struct gpudp_analysis *dst,
			 const struct gpudp_an_counters *ctr,
			 const struct gpudp_flow_slot *slots, uint32_t n_slots);

/**
 * Add a fragment table computed elsewhere into @p dst (its counters come
 * with gpudp_analysis_merge()).
 *
 * @param dst     destination object
 * @param slots   fragment table to add (slots with state READY are taken)
 * @param n_slots number of slots in @p slots
 * @return 0, or -ENOSPC if some datagrams did not fit: their fragments are
 *         added to drops[GPUDP_AN_DROP_FRAG_FULL] and go straight into the
 *         flow they resolve to (without an L4 protocol count)
 */
int gpudp_analysis_merge_frags(struct gpudp_analysis *dst,
			       const struct gpudp_frag_slot *slots, uint32_t n_slots);

/**
 * The counters to report: the raw counters (a->ctr) plus, for every
 * complete fragmented datagram of the fragment table (one first and one
 * last fragment, payload bytes adding up to its length), one packet of its
 * L4 protocol (tcp, udp, icmp, icmpv6 or other_l4) with the wire length of
 * its last fragment.
 *
 * @param a  the analysis object
 * @param c  filled
 */
void gpudp_analysis_counters(const struct gpudp_analysis *a, struct gpudp_an_counters *c);

/**
 * Summarise the fragment table.
 * @param a  the analysis object
 * @param f  filled
 */
void gpudp_analysis_fragments(const struct gpudp_analysis *a, struct gpudp_frag_summary *f);

/**
 * Copy the fragment table's slots in use, sorted by key (to compare two
 * analyses of the same packets).
 *
 * @param a    the analysis object
 * @param out  set to a malloc()ed array the caller frees
 * @param n    set to the number of slots
 * @return 0, or -ENOMEM
 */
int gpudp_analysis_frag_list(const struct gpudp_analysis *a, struct gpudp_frag_slot **out,
			     size_t *n);

/**
 * List the flows, sorted by total bytes (descending), then packets, then key.
 * The flow table's flows, with the fragment table's datagrams added to the
 * flows they resolve to: a datagram whose first fragment was analysed joins
 * its TCP/UDP 5-tuple flow (ports of the first fragment), any other its
 * address pair's flow of its protocol, with ports 0. Every IP frame
 * analysed without a drop is thus in exactly one flow. The list may hold
 * more flows than the flow table has slots.
 *
 * @param a    the analysis object
 * @param out  set to a malloc()ed array the caller frees
 * @param n    set to the number of records
 * @return 0, or -ENOMEM
 */
int gpudp_analysis_flows(const struct gpudp_analysis *a,
			 struct gpudp_flow_record **out, size_t *n);

/**
 * List IP endpoints with their sent and received traffic, summed over the
 * flows of gpudp_analysis_flows() (the semantics of
 * `tshark -z endpoints,ip/ipv6`), sorted by
 * total bytes (descending), then packets, then address.
 *
 * @param a    the analysis object
 * @param out  set to a malloc()ed array the caller frees
 * @param n    set to the number of endpoints
 * @return 0, or -ENOMEM
 */
int gpudp_analysis_talkers(const struct gpudp_analysis *a,
			   struct gpudp_talker **out, size_t *n);

/**
 * Compare two analyses of the same packets (the GPU's and the CPU's): raw
 * counters, resolved flows, the fragment table, the per-pattern match
 * counts and the per-rule counts, exactly.
 *
 * @param a, b  the objects
 * @param why   set to "identical" or to the first difference found
 * @param len   size of why
 * @return 0 if identical, 1 if not, -ENOMEM
 */
int gpudp_analysis_compare(const struct gpudp_analysis *a, const struct gpudp_analysis *b,
			   char *why, size_t len);

/** Short name of a protocol counter ("eth", "vlan", "ipv4", ...), NULL if out of range. */
const char *gpudp_an_proto_name(unsigned int proto);

/**
 * Short name of a drop reason ("truncated", "malformed", "flow_table_full",
 * "fragment_table_full").
 */
const char *gpudp_an_drop_name(unsigned int reason);

/**
 * Bounds of a size histogram bucket.
 * @param bucket 0 .. GPUDP_AN_SIZE_BUCKETS - 1
 * @param lo     set to the smallest length in the bucket
 * @param hi     set to the largest length (UINT32_MAX for the last bucket)
 * @return 0, or -EINVAL for a bad bucket
 */
int gpudp_an_size_bucket_bounds(unsigned int bucket, uint32_t *lo, uint32_t *hi);

/**
 * Print an address of a key or talker ("10.0.0.1", "fd00::1").
 * @return buf
 */
const char *gpudp_an_addr_str(uint8_t af, const uint8_t *addr, char *buf, size_t len);

/**
 * Compile a filter expression.
 *
 * Grammar (keywords are case-sensitive, whitespace separates tokens):
 * @code
 *   expr    := term { ("or" | "||") term }
 *   term    := factor { ("and" | "&&") factor }
 *   factor  := ("not" | "!") factor | "(" expr ")" | prim
 *   prim    := "ip" | "ip6" | "tcp" | "udp" | "icmp" | "icmp6"
 *            | "proto" NUM                  IP protocol 0-255 (after IPv6 ext. headers)
 *            | "vlan" [ID]                  any tag, or a tag with this ID (0-4095)
 *            | [dir] "host" ADDR            IPv4 or IPv6 address
 *            | [dir] "net" ADDR "/" LEN     CIDR prefix (host bits must be zero)
 *            | [dir] "port" NUM             TCP or UDP port 0-65535
 *            | [dir] "portrange" NUM "-" NUM
 *            | "match" [NAME]               payload inspection: an occurrence of
 *                                           any pattern, or of pattern NAME
 *            | "alert" [SID]                rules: the packet matched any rule,
 *                                           or the rule with signature id SID
 *   dir     := "src" | "dst"                (none: source or destination)
 * @endcode
 * "and" binds tighter than "or"; "tcp"/"udp" match IPv4 and IPv6; "icmp"
 * matches ICMP over IPv4 only, "icmp6" ICMPv6 only. Fragments other than the
 * first never match port primitives.
 *
 * @param expr   the expression (NULL or only blanks: empty filter, matches nothing)
 * @param f      filled with the program
 * @param err    on error, a message naming the offending token and its offset
 * @param errlen size of err
 * @return 0, or -EINVAL (syntax, bad number or address) or -E2BIG (more than
 *         GPUDP_FILTER_MAX_INSN instructions or nesting deeper than 64)
 */
int gpudp_filter_compile(const char *expr, struct gpudp_filter *f,
			 char *err, size_t errlen);

/**
 * Compile a filter expression that may use `match` and `match NAME`
 * (gpudp_filter_compile()'s grammar): NAME is looked up in @p pats, the
 * patterns of the database given to gpudp_analysis_set_match(), in its
 * order. With @p n_pats 0, `match` is an error, as in
 * gpudp_filter_compile().
 *
 * @return as gpudp_filter_compile(); -EINVAL also for an unknown NAME
 */
int gpudp_filter_compile_match(const char *expr, const struct gpudp_match_pattern *pats,
			       uint32_t n_pats, struct gpudp_filter *f, char *err,
			       size_t errlen);

/**
 * gpudp_filter_compile_match(), with the rules of @p rules for `alert`
 * and `alert SID` (gpudp_analysis_set_rules()): SID is looked up in the
 * image (its first rule of that sid). With @p rules NULL, `alert` is an
 * error.
 *
 * @return as gpudp_filter_compile(); -EINVAL also for an unknown SID
 */
int gpudp_filter_compile_rules(const char *expr, const struct gpudp_match_pattern *pats,
			       uint32_t n_pats, const struct gpudp_rules_img *rules,
			       struct gpudp_filter *f, char *err, size_t errlen);

/**
 * Turn @p a into a flow monitor: flows end (idle and active timeouts, TCP
 * FIN in both directions or RST, room needed in the table, the end of the
 * input) and their records go to @p fn as they do; the table stays
 * bounded however long the input. Fragments join their flows at once
 * (there is no fragment table). Time is the packets' timestamps. Call it
 * before the first packet.
 * @return 0, -EINVAL (no @p fn, or packets already analysed), -ENOMEM
 */
int gpudp_analysis_life_start(struct gpudp_analysis *a, const struct gpudp_flow_life *l,
			      gpudp_flow_export_fn *fn, void *arg);

/**
 * After a batch of packets whose newest timestamp is @p now_ns, and before
 * one of at most @p next packets: end the flows whose time has come when
 * the packets' time moved on by the scan interval, and make room when the
 * next batch could fill the table past three quarters (the flows seen
 * least recently are exported, "lack of resources", until half of it is
 * free). A no-op without gpudp_analysis_life_start().
 * @return flows ended
 */
uint32_t gpudp_analysis_life_tick(struct gpudp_analysis *a, uint64_t now_ns, uint32_t next);

/**
 * End every flow (forced end: the end of the input, or shutdown) and give
 * their records.
 * @return flows ended
 */
uint32_t gpudp_analysis_life_end(struct gpudp_analysis *a);

/** The flow monitor's counters (zero without it). */
void gpudp_analysis_life_stats(const struct gpudp_analysis *a, struct gpudp_flow_life_stats *st);

/**
 * The records of flow slot @p s that ended for @p reason: one per direction
 * that has packets, or one with both (@p biflow).
 * @param out  room for 2
 * @return the records written, 0..2
 */
uint32_t gpudp_flow_slot_records(const struct gpudp_flow_slot *s, uint8_t reason, int biflow,
				 struct gpudp_flow_rec *out);

#ifdef __cplusplus
}
#endif

#endif /* GPUDP_ANALYSIS_H */

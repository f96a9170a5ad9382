/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * gpudp analysis: traffic statistics over captured Ethernet frames, computed
 * by the same per-packet code on the CPU (this library) and on the GPU
 * (lib/kernels/capture.cu, glue in gpudp_analysis_gpu.h).
 *
 * An analysis object holds:
 * - global counters (struct gpudp_an_counters): packets, bytes, protocol
 *   breakdown, size histogram, drops by reason, filter matches;
 * - a flow table of bidirectional conversations keyed by
 *   (address, port) x 2 + protocol (struct gpudp_flow_key), with packets and
 *   bytes per direction and first/last timestamps;
 * - optionally a compiled filter (gpudp_filter_compile()).
 *
 * Top talkers and sorted flow lists are derived from the flow table on
 * request. None of these functions is thread-safe on the same object; use one
 * object per thread and gpudp_analysis_merge() them.
 *
 * Errors: functions return a negative errno value (or NULL and set errno).
 */
#ifndef GPUDP_ANALYSIS_H
#define GPUDP_ANALYSIS_H

#include <stddef.h>
#include <stdint.h>

#include "gpudp_analysis_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Default flow table capacity (slots). */
#define GPUDP_AN_DEFAULT_FLOWS 65536u
/** Largest accepted flow table capacity (slots, 96 bytes each). */
#define GPUDP_AN_MAX_FLOWS (1u << 24)

/** An analysis object. Fields are read-only for users. */
struct gpudp_analysis {
	struct gpudp_an_counters ctr;   /**< global counters */
	struct gpudp_flow_slot *flows;  /**< flow table, flow_mask + 1 slots */
	uint32_t flow_mask;             /**< capacity - 1 */
	uint32_t pad;
	struct gpudp_filter filter;     /**< compiled filter (n_insn 0: none) */
};

/** A flow as listed by gpudp_analysis_flows(). */
struct gpudp_flow_record {
	struct gpudp_flow_key key;
	uint64_t pkts[2];   /**< [0]: endpoint 0 -> 1, [1]: 1 -> 0 */
	uint64_t bytes[2];
	uint64_t first_ts;  /**< ns */
	uint64_t last_ts;   /**< ns */
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
 * Analyse one packet on the CPU.
 *
 * @param a       the analysis object
 * @param data    first byte of the Ethernet header
 * @param caplen  bytes available at data
 * @param wirelen original frame length (caplen if unknown)
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
			      const struct gpudp_an_pkt_desc *desc,
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
 * List the flows, sorted by total bytes (descending), then packets, then key.
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
 * flow table (the semantics of `tshark -z endpoints,ip/ipv6`), sorted by
 * total bytes (descending), then packets, then address.
 *
 * @param a    the analysis object
 * @param out  set to a malloc()ed array the caller frees
 * @param n    set to the number of endpoints
 * @return 0, or -ENOMEM
 */
int gpudp_analysis_talkers(const struct gpudp_analysis *a,
			   struct gpudp_talker **out, size_t *n);

/** Short name of a protocol counter ("eth", "vlan", "ipv4", ...), NULL if out of range. */
const char *gpudp_an_proto_name(unsigned int proto);

/** Short name of a drop reason ("truncated", "malformed", "flow_table_full"). */
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

#ifdef __cplusplus
}
#endif

#endif /* GPUDP_ANALYSIS_H */

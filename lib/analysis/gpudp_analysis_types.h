/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Data structures shared by the CPU and GPU analysis paths.
 *
 * Everything here is plain fixed-width data: the same structs live in host
 * memory (CPU path, results) and in device memory (GPU path), and are copied
 * between the two with plain byte copies. This header is included by C11 code
 * and by nvcc (CUDA C++); it uses nothing beyond <stdint.h>.
 *
 * Users include gpudp_analysis.h, which includes this file.
 */
#ifndef GPUDP_ANALYSIS_TYPES_H
#define GPUDP_ANALYSIS_TYPES_H

#include <stdint.h>

#include "gpudp_pkt_desc.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Function qualifier for code that runs on both CPU and GPU: the very same
 * source is compiled by the C compiler for the CPU path and by nvcc for the
 * kernels, so both paths classify every packet identically.
 */
#ifdef __CUDACC__
#define GPUDP_AN_HD static __host__ __device__ __forceinline__
#else
#define GPUDP_AN_HD static inline
#endif

/** Protocol breakdown counters (packets and bytes per class). */
enum gpudp_an_proto {
	GPUDP_AN_PROTO_ETH = 0,   /**< every frame with a complete Ethernet header */
	GPUDP_AN_PROTO_VLAN,      /**< frames with at least one 802.1Q/802.1ad tag */
	GPUDP_AN_PROTO_QINQ,      /**< frames with two or more tags */
	GPUDP_AN_PROTO_ARP,       /**< ARP (EtherType 0x0806) */
	GPUDP_AN_PROTO_IPV4,      /**< complete IPv4 header */
	GPUDP_AN_PROTO_IPV6,      /**< complete IPv6 fixed header */
	GPUDP_AN_PROTO_OTHER_L3,  /**< any other EtherType */
	GPUDP_AN_PROTO_IPV6_EXT,  /**< IPv6 with at least one extension header */
	GPUDP_AN_PROTO_FRAG,      /**< IPv4 fragments, IPv6 frames with a fragment header
	                               (first fragments and IPv6 atomic fragments included) */
	GPUDP_AN_PROTO_TCP,       /**< complete TCP header (20 bytes) */
	GPUDP_AN_PROTO_UDP,       /**< complete UDP header (8 bytes) */
	GPUDP_AN_PROTO_ICMP,      /**< ICMP over IPv4 (4 bytes of header) */
	GPUDP_AN_PROTO_ICMPV6,    /**< ICMPv6 over IPv6 (4 bytes of header) */
	GPUDP_AN_PROTO_OTHER_L4,  /**< IP with another protocol. The L4 counters count a
	                               fragmented datagram once, when it is complete, and
	                               only in gpudp_analysis_counters() (resolved) */
	GPUDP_AN_PROTO_MAX
};

/**
 * Why a packet was not (fully) analysed. Such a packet still counts in the
 * totals, the size histogram and every protocol layer that was complete.
 */
enum gpudp_an_drop {
	GPUDP_AN_DROP_TRUNCATED = 0, /**< a header is cut short by the captured length */
	GPUDP_AN_DROP_MALFORMED,     /**< a header field is invalid (IP version, IHL, lengths) */
	GPUDP_AN_DROP_FLOW_FULL,     /**< the flow table had no free slot for a new flow */
	/**
	 * the fragment table had no free slot for a new datagram: the fragment
	 * went straight into a flow (a first fragment into its TCP/UDP flow,
	 * a later one into its address pair's), and its datagram's L4
	 * protocol is not counted
	 */
	GPUDP_AN_DROP_FRAG_FULL,
	GPUDP_AN_DROP_MAX
};

/** Payload inspection flag (gpudp_analysis_set_match()): scan every captured
 *  byte, not the L4 payload. */
#define GPUDP_AN_MATCH_FRAME 1u

/** Number of packet-size histogram buckets; bounds: gpudp_an_size_bucket(). */
#define GPUDP_AN_SIZE_BUCKETS 10

/** Global counters of one analysis run. All counts are of frames as captured. */
struct gpudp_an_counters {
	uint64_t pkts;                               /**< packets seen */
	uint64_t bytes;                              /**< sum of original (wire) lengths */
	uint64_t caplen_bytes;                       /**< sum of captured lengths */
	uint64_t proto_pkts[GPUDP_AN_PROTO_MAX];     /**< per enum gpudp_an_proto */
	uint64_t proto_bytes[GPUDP_AN_PROTO_MAX];    /**< per enum gpudp_an_proto */
	uint64_t size_hist[GPUDP_AN_SIZE_BUCKETS];   /**< packets per wire-length bucket */
	uint64_t drops[GPUDP_AN_DROP_MAX];           /**< per enum gpudp_an_drop */
	uint64_t snapped;     /**< IP length larger than captured (snap length), informational */
	uint64_t filter_pkts;  /**< packets that matched the filter */
	uint64_t filter_bytes; /**< their wire bytes */
	/* payload inspection (gpudp_analysis_set_match()); 0 without it */
	uint64_t match_bytes;  /**< bytes scanned (L4 payloads, or whole captured frames) */
	uint64_t match_pkts;   /**< packets with an occurrence of any pattern */
	uint64_t match_occ;    /**< occurrences of any pattern */
	/* rules (gpudp_analysis_set_rules()); 0 without them */
	uint64_t alert_pkts;   /**< packets that matched a rule */
	uint64_t alerts;       /**< rules matched, over every packet */
};

/**
 * A bidirectional conversation key: (address, port) endpoints in canonical
 * order (endpoint 0 compares lower: address bytes first, then port), plus the
 * address family and IP protocol. Packets in either direction map to the same
 * key, as in `tshark -z conv,tcp` / `conv,udp`; for protocols without ports
 * (ICMP, ICMPv6, others) and for fragmented datagrams whose first fragment
 * was not analysed, both ports are 0.
 */
struct gpudp_flow_key {
	uint8_t addr[2][16]; /**< IPv4 in the first 4 bytes, rest zero; network order */
	uint16_t port[2];    /**< host byte order */
	uint8_t af;          /**< 4 or 6 */
	uint8_t proto;       /**< IP protocol number (final header after IPv6 extensions) */
	uint16_t pad;        /**< always 0 */
};

/** Flow slot states. */
#define GPUDP_FLOW_EMPTY 0u
#define GPUDP_FLOW_BUSY  1u  /**< claimed, key being written */
#define GPUDP_FLOW_READY 2u
/**
 * The flow ended and was exported (the flow monitor, gpudp_analysis_expire()):
 * lookups go past it, inserts do not take it; it becomes EMPTY again when
 * the slots after it up to an EMPTY one are free.
 */
#define GPUDP_FLOW_DEAD  3u

/** One slot of the open-addressing flow table (176 bytes). */
struct gpudp_flow_slot {
	uint32_t state;              /**< GPUDP_FLOW_* */
	uint32_t hash;               /**< gpudp_flow_hash() of the key */
	struct gpudp_flow_key key;
	uint64_t pkts[2];            /**< [0]: endpoint 0 -> 1, [1]: endpoint 1 -> 0 */
	uint64_t bytes[2];           /**< wire bytes, same directions */
	uint64_t first_ts;           /**< smallest timestamp seen (ns), UINT64_MAX if none */
	uint64_t last_ts;            /**< largest timestamp seen (ns) */
	uint64_t match_pkts;         /**< packets with a payload match (both directions) */
	uint64_t ip_bytes[2];        /**< IP bytes (the IP headers' lengths), same directions */
	uint64_t dir_first[2];       /**< per direction: smallest timestamp, UINT64_MAX if none */
	uint64_t dir_last[2];        /**< per direction: largest timestamp */
	uint32_t tcp;                /**< OR of the TCP flags: direction 0 in bits 0-7,
				      *   direction 1 in bits 8-15 */
	uint32_t attrs[2];           /**< per direction: the largest VLAN ID << 8 | ToS seen
				      *   (the outer tag; 0: untagged) */
	uint32_t icmp[2];            /**< per direction: the largest ICMP type << 8 | code,
				      *   plus 1, seen (0: none) */
	uint32_t pad;                /**< 0 */
};

/**
 * One slot of the fragment table (128 bytes): the fragments of one IP
 * datagram, keyed by (address family, source, destination, protocol,
 * IP identification). Every field after the key is updated only with
 * commutative operations (add, min, max), so its content does not depend on
 * the order in which the fragments are analysed (batches, GPU threads).
 * gpudp_analysis_flows() and gpudp_analysis_counters() resolve the table
 * into flows and L4 protocol counts (doc/capture.md, "Fragments").
 */
struct gpudp_frag_slot {
	uint32_t state;              /**< GPUDP_FLOW_* (same layout as a flow slot) */
	uint32_t hash;               /**< gpudp_flow_hash() of the key */
	/**
	 * addr[0]: source, addr[1]: destination (in this order, not canonical);
	 * port[0], port[1]: high and low 16 bits of the IP identification
	 * (IPv4: 16 bits, IPv6: 32); af; proto: the protocol after the
	 * fragment header; pad: 0
	 */
	struct gpudp_flow_key key;
	uint32_t n_first;            /**< fragments with offset 0 */
	uint32_t n_last;             /**< fragments without the more-fragments flag */
	uint32_t ports_min;          /**< min over first fragments of sport << 16 | dport
	                                  (UINT32_MAX: no first fragment) */
	uint32_t ports_max;          /**< max, same (0 without ports) */
	uint64_t pkts;               /**< fragments (frames) */
	uint64_t bytes;              /**< their wire bytes */
	uint64_t payload;            /**< sum of the fragments' payload bytes (after the
	                                  IPv4 header, or after the IPv6 fragment header) */
	uint64_t end;                /**< max over last fragments of offset + payload:
	                                  the datagram's payload length */
	uint64_t last_wirelen;       /**< max over last fragments of the wire length */
	uint64_t first_ts;           /**< smallest timestamp (ns), UINT64_MAX if none */
	uint64_t last_ts;            /**< largest timestamp (ns) */
	uint64_t match_pkts;         /**< fragments with a payload match */
};

/** Maximum number of instructions of a compiled filter. */
#define GPUDP_FILTER_MAX_INSN 64

/** Filter instruction opcodes (postfix program, see gpudp_filter_compile()). */
enum gpudp_filter_op {
	GPUDP_FOP_TRUE = 0, /**< push true */
	GPUDP_FOP_L3,       /**< push (packet af == af) */
	GPUDP_FOP_L4,       /**< push (IP packet whose protocol == lo); af 0 = any */
	GPUDP_FOP_VLAN,     /**< push (any tag's VLAN ID == lo); lo 0xffff = any tag */
	GPUDP_FOP_NET,      /**< push (address in addr/plen of family af, by dir) */
	GPUDP_FOP_PORT,     /**< push (TCP/UDP port in [lo, hi], by dir) */
	GPUDP_FOP_AND,      /**< pop two, push a && b */
	GPUDP_FOP_OR,       /**< pop two, push a || b */
	GPUDP_FOP_NOT,      /**< pop one, push !a */
	/**
	 * push (the packet's scanned bytes hold an occurrence of pattern
	 * lo | hi << 16; af 1: of any pattern); false without payload
	 * inspection
	 */
	GPUDP_FOP_MATCH,
	/**
	 * push (the packet matched rule lo | hi << 16 of the rules' image;
	 * af 1: any rule); false without rules
	 */
	GPUDP_FOP_ALERT,
};

/** Direction qualifier of NET and PORT instructions. */
enum gpudp_filter_dir {
	GPUDP_FDIR_ANY = 0, /**< source or destination */
	GPUDP_FDIR_SRC,
	GPUDP_FDIR_DST,
};

/** One filter instruction (24 bytes). */
struct gpudp_filter_insn {
	uint8_t op;        /**< enum gpudp_filter_op */
	uint8_t dir;       /**< enum gpudp_filter_dir */
	uint8_t af;        /**< 4, 6, or 0 */
	uint8_t plen;      /**< prefix length in bits for NET */
	uint16_t lo;       /**< port / protocol / VLAN ID */
	uint16_t hi;       /**< upper port of a range */
	uint8_t addr[16];  /**< network address, host bits zero */
};

/** A compiled filter: a postfix program evaluated per packet on CPU or GPU. */
struct gpudp_filter {
	uint32_t n_insn;   /**< 0: no filter (matches nothing, nothing is written) */
	uint32_t pad;
	struct gpudp_filter_insn insn[GPUDP_FILTER_MAX_INSN];
};

/**
 * Deprecated: the descriptor of one packet in a staged batch
 * (gpudp_analysis_batch()) is struct gpudp_pkt_desc (gpudp_pkt_desc.h),
 * the one type of the capture file reader, the analysis and the handoff;
 * struct gpudp_an_pkt_desc and its field pad (mark there) still compile.
 */
#define gpudp_an_pkt_desc gpudp_pkt_desc

/**
 * Descriptor of one packet analysed in place, where the NIC or PMD put it
 * (gpudp-capture's pinned and device memory types): no batch data area,
 * the address is absolute. For the GPU it is an address the GPU can read
 * (device memory, or registered host memory through unified addressing);
 * on the CPU, one the CPU can read.
 */
struct gpudp_an_pkt_ref {
	uint64_t addr;    /**< first byte of the Ethernet header */
	uint32_t caplen;  /**< bytes present at addr */
	uint32_t wirelen; /**< original length on the wire (as the capture gives it;
	                       below caplen in a bogus record, counted as is) */
	uint64_t ts_ns;   /**< capture timestamp, ns since the epoch (0 if unknown) */
};

#ifdef __cplusplus
}
#endif

#endif /* GPUDP_ANALYSIS_TYPES_H */

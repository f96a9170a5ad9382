/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * A flow record: one flow (or one direction of one) that ended, as
 * gpudp-capture's flow monitor exports it to IPFIX collectors
 * (gpudp_ipfix.h) and to its NDJSON flow log (gpudp_flow_log.h). Guide:
 * doc/flows.md.
 *
 * Pure C11: no DPDK, no CUDA.
 */
#ifndef GPUDP_FLOW_REC_H
#define GPUDP_FLOW_REC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Why a flow ended: the values of IANA's flowEndReason (IPFIX information
 * element 136), written as they are.
 */
enum gpudp_flow_end {
	GPUDP_FLOW_END_IDLE = 1,      /**< idle timeout: no packet for --idle-timeout */
	GPUDP_FLOW_END_ACTIVE = 2,    /**< active timeout: exported after --active-timeout,
				       *   the flow goes on */
	GPUDP_FLOW_END_EOF = 3,       /**< end of flow detected: TCP FIN or RST */
	GPUDP_FLOW_END_FORCED = 4,    /**< forced end: the input ended, or shutdown */
	GPUDP_FLOW_END_RESOURCES = 5, /**< lack of resources: the flow table was full */
};

/** gpudp_flow_rec.flags: the reverse fields (rpackets, roctets, rl2_octets, rtcp_flags) are set (RFC 5103). */
#define GPUDP_FLOW_REC_BIFLOW 0x1u

/**
 * One flow record. Unidirectional (src sent to dst) unless
 * GPUDP_FLOW_REC_BIFLOW is set: then src is the endpoint that sent the
 * flow's first packet and the reverse fields count what dst sent back.
 *
 * ICMP and ICMPv6 carry no ports: sport is 0 and dport is type << 8 | code
 * (the largest src sent), as NetFlow and IPFIX exporters put them.
 */
struct gpudp_flow_rec {
	uint8_t src[16];       /**< source address, network order; IPv4 in the first
				*   4 bytes, the rest zero */
	uint8_t dst[16];       /**< destination address, the same way */
	uint16_t sport;        /**< source port, host order (0 without ports) */
	uint16_t dport;        /**< destination port, host order; ICMP: type << 8 | code */
	uint8_t af;            /**< 4 or 6 */
	uint8_t proto;         /**< IP protocol number (after IPv6 extension headers) */
	uint8_t tos;           /**< IPv4 ToS or IPv6 traffic class: the largest src sent
				*   (constant in nearly every flow) */
	uint8_t end_reason;    /**< enum gpudp_flow_end */
	uint16_t vlan;         /**< the outer 802.1Q tag's VLAN ID, the largest src's
				*   packets had; 0: untagged */
	uint8_t tcp_flags;     /**< OR of the TCP flags (the header's low 8 bits) src sent */
	uint8_t rtcp_flags;    /**< biflow: OR of the TCP flags dst sent */
	uint32_t flags;        /**< GPUDP_FLOW_REC_* */
	uint32_t pad;          /**< 0 */
	uint64_t first_ns;     /**< time of the flow's first packet, ns since the epoch
				*   (capture time for files, receive time on ports) */
	uint64_t last_ns;      /**< time of its last packet, the same clock */
	uint64_t packets;      /**< packets src sent */
	uint64_t octets;       /**< their IP bytes: IP header and payload, from the IP
				*   length fields (IPFIX octetDeltaCount) */
	uint64_t l2_octets;    /**< their frames' bytes on the wire, Ethernet header
				*   included (IPFIX layer2OctetDeltaCount; what the
				*   capture report and tshark's conversations count) */
	uint64_t rpackets;     /**< biflow: packets dst sent */
	uint64_t roctets;      /**< biflow: their IP bytes */
	uint64_t rl2_octets;   /**< biflow: their frames' bytes */
};

#ifdef __cplusplus
}
#endif

#endif /* GPUDP_FLOW_REC_H */

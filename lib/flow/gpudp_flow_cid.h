/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The Community ID of a flow record: version 1 of Corelight's Community ID
 * Flow Hashing (https://github.com/corelight/community-id-spec), the string
 * "1:" and the base64 of a SHA-1 digest of the flow's endpoints, ordered so
 * that both directions of a flow get the same ID. Zeek, Suricata, Arkime,
 * Wireshark and Elastic compute the same string for the same flow, so that
 * gpudp's flow records can be joined with their logs. Guide: doc/flows.md.
 *
 * What is hashed, as the specification says:
 * - TCP (6), UDP (17), SCTP (132): addresses, protocol and ports;
 * - ICMP (1) and ICMPv6 (58): addresses, protocol, and the type with its
 *   counterpart, the reply's type (echo and echo reply, and the other
 *   request/reply pairs: ICMP 8/0, 13/14, 15/16, 10/9, 17/18; ICMPv6
 *   128/129, 130/131, 133/134, 135/136, 139/140, 144/145), for a
 *   two-way type, else the type and code (a one-way type, such as
 *   destination unreachable or time exceeded, whose ID keeps the record's
 *   direction: its endpoints are not ordered). A record carries the
 *   first packet's type << 8 | code in dport (gpudp_flow_rec.h);
 * - any other protocol: addresses and protocol only.
 *
 * Nested IP, VLAN IDs and MPLS labels are not part of version 1.
 *
 * Pure C11: no DPDK, no CUDA, no cryptographic library.
 */
#ifndef GPUDP_FLOW_CID_H
#define GPUDP_FLOW_CID_H

#include <stddef.h>
#include <stdint.h>

#include "gpudp_flow_rec.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Length of a version 1 Community ID: "1:" and 28 base64 characters. */
#define GPUDP_FLOW_CID_LEN 30
/** Bytes of a buffer for a Community ID and its terminating NUL. */
#define GPUDP_FLOW_CID_SIZE (GPUDP_FLOW_CID_LEN + 1)

/**
 * The Community ID (version 1) of a record's flow.
 *
 * Reads af, src, dst (4 or 16 bytes by af), proto, sport and dport; the
 * other fields do not enter the ID. It is the same for a record and for
 * the record of the flow's other direction (endpoints and ports swapped;
 * for a two-way ICMP type, the counterpart type), except for one-way ICMP
 * types, as the specification wants.
 *
 * @param rec   the record; its af must be 4 or 6
 * @param seed  the specification's seed, which separates "domains" of IDs;
 *              0 (its default) gives the IDs other tools give by default
 * @param buf   set to the NUL-terminated ID, such as
 *              "1:wCb3OG7yAFWelaUydu0D+125CLM="; on failure to "" when
 *              @p len is not 0
 * @param len   size of @p buf: at least GPUDP_FLOW_CID_SIZE
 * @return GPUDP_FLOW_CID_LEN, the ID's length; -EINVAL when @p rec or
 *   @p buf is NULL or af is neither 4 nor 6; -ENOSPC when @p len is below
 *   GPUDP_FLOW_CID_SIZE
 */
int gpudp_flow_community_id(const struct gpudp_flow_rec *rec, uint16_t seed, char *buf,
			    size_t len);

#ifdef __cplusplus
}
#endif

#endif /* GPUDP_FLOW_CID_H */

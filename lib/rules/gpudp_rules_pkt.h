/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * gpudp_rules_pkt: a parsed packet (gpudp_pkt_parse()) as the rules'
 * headers see it (struct gpudp_rule_pkt), the same for every caller: the
 * analysis, the work `rules`, and the tests' references. Inline, for the
 * CPU and the GPU.
 */
#ifndef GPUDP_RULES_PKT_H
#define GPUDP_RULES_PKT_H

#include "gpudp_pkt_parse.h"
#include "gpudp_rules_eval.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * The packet @p pi describes as a struct gpudp_rule_pkt: its family,
 * protocol, addresses, its TCP or UDP ports (0 without them), and for
 * ICMP and ICMPv6 its type << 8 | code in dport's place (as a flow record
 * has them; the rules look at ports of tcp and udp packets only).
 */
GPUDP_RULES_HD void
gpudp_rule_pkt_of(const struct gpudp_pkt_info *pi, struct gpudp_rule_pkt *k)
{
	uint32_t i;

	k->af = pi->af;
	k->proto = pi->l4proto;
	k->sport = pi->has_ports ? pi->sport : 0;
	k->dport = pi->has_ports ? pi->dport : 0;
	if (pi->has_l4 && (pi->l4proto == 1 || pi->l4proto == 58))
		k->dport = (uint16_t)((uint32_t)pi->icmp_type << 8 | pi->icmp_code);
	for (i = 0; i < 16; i++) {
		k->src[i] = pi->src[i];
		k->dst[i] = pi->dst[i];
	}
}

#ifdef __cplusplus
}
#endif

#endif /* GPUDP_RULES_PKT_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * gpudp_rules_eve: an alert record (gpudp_rules_img.h) as a line of
 * Suricata's EVE JSON (doc/rules.md, "Alerts in EVE JSON"): event_type
 * "alert", the packet's time, addresses, ports (ICMP: its type and code),
 * protocol and Community ID (gpudp_flow_cid.h), and the rule's sid, rev,
 * message, classtype and priority. Pure C11.
 */
#ifndef GPUDP_RULES_EVE_H
#define GPUDP_RULES_EVE_H

#include <stddef.h>
#include <stdint.h>

#include "gpudp_rules_img.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Bytes of a rule's msg and classtype written (longer: their start). */
#define GPUDP_RULES_EVE_TEXT_MAX 4096u
/** Bytes that always hold one EVE line and its NUL. */
#define GPUDP_RULES_EVE_LINE_MAX 65536u

/** What the alert did (the EVE field alert.action). */
enum gpudp_rules_eve_action {
	GPUDP_RULES_EVE_ALLOWED = 0, /**< "allowed": counted, the packet went on */
	GPUDP_RULES_EVE_BLOCKED,     /**< "blocked": the packet was dropped */
};

/**
 * Write alert @p a of the rules of @p img as one EVE JSON object and a
 * newline into @p buf: timestamp (UTC, microseconds), event_type, src_ip,
 * src_port, dest_ip, dest_port (not for ICMP: icmp_type and icmp_code),
 * proto ("TCP", "UDP", "ICMP", "IPV6-ICMP", or the number), community_id
 * (seed 0) and alert: action, gid 1, signature_id, rev, signature (the
 * rule's msg, "" without one), category (its classtype, "" without one),
 * severity (its priority, 3 without one). Strings are JSON-escaped and
 * cut at GPUDP_RULES_EVE_TEXT_MAX bytes; bytes that are not UTF-8 become
 * U+FFFD.
 * @return the line's length (as snprintf(): @p buf holds it when it is
 *   below @p len), or -EINVAL (a rule index outside @p img)
 */
int gpudp_rules_eve_format(const struct gpudp_rules_img *img, const struct gpudp_rule_alert *a,
			   enum gpudp_rules_eve_action action, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* GPUDP_RULES_EVE_H */

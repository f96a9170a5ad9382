/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * gpudp_rules_engine: a rule set run over packets on the CPU (doc/rules.md,
 * "The engine"), through its image (gpudp_rules_img.h): a packet's payload
 * is scanned once for the rules' fast patterns, the rules whose fast
 * pattern occurs in it (and those without a content) are the candidates,
 * and each candidate's header and whole chain are checked
 * (gpudp_rules_eval.h). The alerts are those of checking every rule on
 * every packet, in the rules' order. Payloads longer than
 * GPUDP_RULES_PAYLOAD_MAX bytes are checked on their start.
 *
 * An engine is used by one thread at a time.
 */
#ifndef GPUDP_RULES_ENGINE_H
#define GPUDP_RULES_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "gpudp_rules.h"
#include "gpudp_rules_eval.h"
#include "gpudp_rules_img.h"

#ifdef __cplusplus
extern "C" {
#endif

struct gpudp_rules_engine;

/**
 * The engine of rule set @p rs (which must outlive it and not change).
 * @return the engine, or NULL with @p err set: more than 65536 distinct
 *   fast patterns, or memory
 */
struct gpudp_rules_engine *gpudp_rules_engine_create(const struct gpudp_rules *rs, char *err,
						     size_t errlen);

/** Free @p e (NULL: nothing). */
void gpudp_rules_engine_free(struct gpudp_rules_engine *e);

/**
 * The rules packet @p k with payload @p p (@p len bytes) matches: @p fn
 * (@p arg, index of the rule in the set) for each, in the set's order.
 * @return the number of rules that matched
 */
uint32_t gpudp_rules_engine_packet(struct gpudp_rules_engine *e, const struct gpudp_rule_pkt *k,
				   const uint8_t *p, uint32_t len,
				   void (*fn)(void *arg, uint32_t rule), void *arg);

/** What the engine holds: distinct fast patterns, rules without a content. */
void gpudp_rules_engine_info(const struct gpudp_rules_engine *e, uint32_t *patterns,
			     uint32_t *always);

/** The engine's image of the rule set (owned by @p e). */
const struct gpudp_rules_img *gpudp_rules_engine_img(const struct gpudp_rules_engine *e);

#ifdef __cplusplus
}
#endif

#endif /* GPUDP_RULES_ENGINE_H */

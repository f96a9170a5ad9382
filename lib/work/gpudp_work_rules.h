/* SPDX-License-Identifier: BSD-3-Clause */
/* Internal: the built-in work `rules` (gpudp_work_rules.c), registered by gpudp_work.c. */
#ifndef GPUDP_WORK_RULES_H
#define GPUDP_WORK_RULES_H

#include <stddef.h>
#include <stdint.h>

#include "gpudp_work.h"

/** Its descriptor; gpudp_work.c sets its GPU image and registers it. */
extern struct gpudp_work gpudp_work_rules;

/** The work's argument, read. */
struct gpudp_work_rules_arg {
	char *file;   /**< the rule file (malloc()ed) */
	char *vars;   /**< vars=FILE (malloc()ed), or NULL */
	int skip;     /**< unsupported=skip */
};

/**
 * The work's argument, FILE[,vars=FILE][,unsupported=refuse|skip]: the
 * rule file is everything before the first ',', each option after it one
 * of those, a later one of a kind winning.
 * @param a filled (free it with gpudp_work_rules_arg_free()); zeroed on error
 * @return 0; -EINVAL (no argument, or another option: @p err names it);
 *   -ENOMEM
 */
int gpudp_work_rules_arg(const char *arg, struct gpudp_work_rules_arg *a, char *err,
			 size_t err_len);

/** Free what gpudp_work_rules_arg() made. */
void gpudp_work_rules_arg_free(struct gpudp_work_rules_arg *a);

#endif /* GPUDP_WORK_RULES_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/* Internal: the built-in work `match` (gpudp_work_match.c), registered by gpudp_work.c. */
#ifndef GPUDP_WORK_MATCH_H
#define GPUDP_WORK_MATCH_H

#include <stddef.h>
#include <stdint.h>

#include "gpudp_work.h"

/** Its descriptor; gpudp_work.c sets its GPU image and registers it. */
extern struct gpudp_work gpudp_work_match;

/**
 * The work's argument, FILE[,scope=payload|frame][,action=drop|count]
 * (its init's first step; a libFuzzer target's too): the pattern file is
 * everything before the first ',', each option after it one of the four,
 * a later one of a kind winning.
 *
 * @param arg the argument (NULL or "" refused)
 * @param path set to the file's name (malloc()ed, the caller frees it), or
 *   NULL on error
 * @param flags GPUDP_MATCH_WORK_FRAME and GPUDP_MATCH_WORK_COUNT set or
 *   cleared as the options say, other bits kept; unchanged on error
 * @param err on -EINVAL, why (naming the option); may be NULL
 * @return 0; -EINVAL no argument or an option not one of the four;
 *   -ENOMEM
 */
int gpudp_work_match_arg(const char *arg, char **path, uint32_t *flags, char *err,
			 size_t err_len);

#endif /* GPUDP_WORK_MATCH_H */

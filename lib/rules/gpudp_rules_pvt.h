/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpudp_rules internals: the growable arrays of a rule set, the parser's
 * cursor and error, shared by the rule parser (gpudp_rules_parse.c) and the
 * address and port lists (gpudp_rules_net.c).
 */
#ifndef GPUDP_RULES_PVT_H
#define GPUDP_RULES_PVT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "gpudp_rules.h"

/* one rule's text being parsed, for the errors: "FILE:LINE: why" */
struct rp {
	struct gpudp_rules *rs;
	const char *file;
	uint32_t line;
	char *err;
	size_t errlen;
	char unsupported[64];      /* set with -ENOTSUP: the keyword */
};

/* "FILE:LINE: " and the message into p->err; @return -EINVAL */
int rp_fail(struct rp *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* room for one more element of an array of @p size bytes; 0 or -ENOMEM */
int rules_grow(void **arr, uint32_t *cap, uint32_t n, size_t size, uint32_t more);

/* @p len bytes (and a NUL when @p nul) appended to rs->bytes; their offset
 * in *off; 0 or -ENOMEM */
int rules_put_bytes(struct gpudp_rules *rs, const void *b, uint32_t len, int nul, uint32_t *off);

/* the value of variable @p name (@p len bytes), or NULL */
const char *rules_var(const struct gpudp_rules *rs, const char *name, size_t len);

/* An address list (@p s, @p len bytes: any, an address, a prefix, a
 * variable, a [list], !negation) appended to rs->net; its run in *first,
 * *n (0 entries: any). 0, -EINVAL (p->err), -ENOMEM */
int rules_addrs(struct rp *p, const char *s, size_t len, uint32_t *first, uint32_t *n);

/* The same for a port list into rs->port. */
int rules_ports(struct rp *p, const char *s, size_t len, uint32_t *first, uint32_t *n);

#endif /* GPUDP_RULES_PVT_H */

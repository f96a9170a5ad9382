/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpudp_errf(): a message into a caller's error buffer, the way gpudp's
 * parsers and validators report why they refused something. Plain C, no
 * DPDK: any library may include it.
 */
#ifndef GPUDP_ERRF_H
#define GPUDP_ERRF_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

/** printf into @p err (@p len bytes, always terminated); NULL or 0: nothing. */
static inline void __attribute__((format(printf, 3, 4)))
gpudp_errf(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL || len == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
}

#endif /* GPUDP_ERRF_H */

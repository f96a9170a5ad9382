/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Option-value parsing shared by gpudp's apps. Every helper prints, on a
 * bad value, one line naming the program, the option and the value:
 *   "gpudp-fwd: --burst: bad value '0' (expected an integer 1..4096)"
 * and returns -1; the app then exits 2.
 */
#ifndef GPUDP_OPT_H
#define GPUDP_OPT_H

#include <stdint.h>

/** Report a bad value of --@p opt. @return -1. */
int gpudp_opt_bad(const char *prog, const char *opt, const char *val, const char *why);

/** Decimal integer in [min, max]: digits only (no blank, sign or suffix). @return 0 or -1. */
int gpudp_opt_u64(const char *prog, const char *opt, const char *v, uint64_t min,
		  uint64_t max, uint64_t *out);

/** Seconds, a decimal fraction in [0, max] (no blank, sign or hex). @return 0 or -1. */
int gpudp_opt_secs(const char *prog, const char *opt, const char *v, double max,
		   double *out);

/**
 * Comma-separated port ids ("0,1,3"), at most @p max of them, each below
 * 65535 and given once. @return 0 (with *n >= 1) or -1.
 */
int gpudp_opt_ports(const char *prog, const char *opt, const char *v, uint16_t *ports,
		    unsigned int max, unsigned int *n);

/**
 * An output file written at the end of a run (--json): checked before the
 * run starts so that a long run never ends unable to write it. Refused: an
 * empty name, a directory, a directory where no file can be created (the
 * check creates and removes a temporary file there). @return 0 or -1.
 */
int gpudp_opt_out_file(const char *prog, const char *opt, const char *path);

#endif /* GPUDP_OPT_H */

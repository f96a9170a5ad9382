/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The one JSON writer of gpudp's apps (gpudp-fwd --json, gpudp-capture
 * --json, gpudp-capture-bench --json). It writes as it goes, escapes every
 * string, writes a number that JSON cannot hold (NaN, infinity) as null,
 * and, opened on a path, writes a temporary file next to it that replaces
 * the path only when everything was written: a reader never sees half a
 * report, and a full disk is an error, not a truncated file.
 *
 * Layout: the members of the top-level object and the elements of arrays
 * each on their own line; the members of other objects on one line.
 *
 * Every writer call takes the member's key: in an object it is required,
 * in an array (and for the top-level value) it must be NULL.
 */
#ifndef GPUDP_JSON_H
#define GPUDP_JSON_H

#include <stdint.h>
#include <stdio.h>

/** Nesting depth the writer accepts; deeper containers set an error. */
#define GPUDP_JSON_DEPTH_MAX 16

/** A JSON writer: set up by gpudp_json_open() or gpudp_json_init(). */
struct gpudp_json {
	FILE *f;
	char *path;          /**< the final path (gpudp_json_open), else NULL */
	char *tmp;           /**< the temporary file written meanwhile */
	unsigned int depth;  /**< containers open */
	uint32_t items;      /**< bit d: the container at depth d has a member */
	uint32_t arrays;     /**< bit d: the container at depth d is an array */
	int err;             /**< the first error (negative errno), else 0 */
};

/**
 * Write JSON to the stream @p f (not closed by gpudp_json_close()).
 */
void gpudp_json_init(struct gpudp_json *j, FILE *f);

/**
 * Write JSON to @p path through a temporary file in the same directory,
 * renamed over @p path by gpudp_json_close() if everything was written;
 * where @p path exists and is not a regular file (/dev/stdout, a FIFO,
 * /dev/null), straight to it, never replacing it.
 * @return 0, or a negative errno (the temporary file cannot be created)
 */
int gpudp_json_open(struct gpudp_json *j, const char *path);

/** Open an object (member @p key, or NULL in an array or at the top). */
void gpudp_json_obj(struct gpudp_json *j, const char *key);

/** Open an array (member @p key, or NULL in an array or at the top). */
void gpudp_json_arr(struct gpudp_json *j, const char *key);

/** Close the innermost object or array. */
void gpudp_json_end(struct gpudp_json *j);

/** An unsigned integer. */
void gpudp_json_u64(struct gpudp_json *j, const char *key, uint64_t v);

/** A signed integer. */
void gpudp_json_i64(struct gpudp_json *j, const char *key, int64_t v);

/** A number with @p decimals digits after the point; null if not finite. */
void gpudp_json_dbl(struct gpudp_json *j, const char *key, double v, int decimals);

/** true or false. */
void gpudp_json_bool(struct gpudp_json *j, const char *key, int v);

/** A string, escaped (quotes, backslashes, control bytes); NULL writes null. */
void gpudp_json_str(struct gpudp_json *j, const char *key, const char *s);

/** null. */
void gpudp_json_null(struct gpudp_json *j, const char *key);

/**
 * Finish: every container must be closed. Opened on a path, the temporary
 * file is closed and renamed over the path, or removed on any error.
 * @return 0, or the first error as a negative errno (-EINVAL for unclosed
 *   or mismatched containers or a missing or extra key, -EIO for a write
 *   that failed)
 */
int gpudp_json_close(struct gpudp_json *j);

#endif /* GPUDP_JSON_H */

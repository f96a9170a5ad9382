/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * SHA-1 (FIPS 180-4), one-shot, for the Community ID (gpudp_flow_cid.h),
 * whose version 1 hashes a flow's tuple with it. Internal to lib/flow: not
 * installed, and not for anything that needs a secure hash.
 */
#ifndef GPUDP_FLOW_SHA1_H
#define GPUDP_FLOW_SHA1_H

#include <stddef.h>
#include <stdint.h>

/** Bytes of a SHA-1 digest. */
#define GPUDP_FLOW_SHA1_LEN 20

/**
 * The SHA-1 digest of @p len bytes.
 *
 * @param data  the bytes (may be NULL when @p len is 0)
 * @param len   how many
 * @param out   set to the 20-byte digest
 */
void gpudp_flow_sha1(const void *data, size_t len, uint8_t out[GPUDP_FLOW_SHA1_LEN]);

#endif /* GPUDP_FLOW_SHA1_H */

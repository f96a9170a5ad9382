/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Wire format of the e2e test frames, shared by the guest forwarder
 * (e2e_fwd.c) and the host generator (e2e_run.py, which re-implements the
 * same functions; keep the two in step).
 *
 * Every frame is a raw Ethernet II frame, ethertype E2E_ETHERTYPE (IEEE
 * local experimental), big-endian fields:
 *
 *   0  dst MAC        6  src MAC       12  ethertype 0x88b5
 *  14  magic (4)     18  seq (u32)     22  frame length (u16)
 *  24  payload: byte i of frame seq is e2e_pattern_byte(seq, i)
 *
 * Test frames (magic "GPDT") go host -> guest; the guest sends each one
 * back unchanged except for the two MAC addresses, which it swaps. The
 * guest announces itself with HELLO frames (magic "GPDH", broadcast) until
 * the first test frame arrives. Once every test frame came back, the host
 * sends one DONE frame (magic "GPDD"): the guest may then stop (some NIC
 * models, virtio's, transmit asynchronously: leaving earlier can lose the
 * last frames when QEMU exits). Frame lengths vary with seq between
 * E2E_LEN_MIN and E2E_LEN_MAX (no FCS: QEMU's socket netdev carries none).
 */
#ifndef E2E_FRAME_H
#define E2E_FRAME_H

#include <stdint.h>

#define E2E_ETHERTYPE		0x88b5
#define E2E_MAGIC_TEST		"GPDT"
#define E2E_MAGIC_HELLO		"GPDH"
#define E2E_MAGIC_DONE		"GPDD"
#define E2E_HDR_LEN		24	/* Ethernet + magic + seq + length */
#define E2E_LEN_MIN		60	/* shortest Ethernet frame without FCS */
#define E2E_LEN_MAX		1514	/* longest, at the default MTU of 1500 */

/* The pattern: a window into a fixed pseudo-random table. */
#define E2E_PATTERN_BITS	16
#define E2E_PATTERN_LEN		(1u << E2E_PATTERN_BITS)
#define E2E_PATTERN_STRIDE	977u	/* odd: distinct windows per seq mod 2^16 */

/** Frame length of test frame @p seq. */
static inline uint16_t
e2e_frame_len(uint32_t seq)
{
	return (uint16_t)(E2E_LEN_MIN +
			  (seq * 263u) % (E2E_LEN_MAX - E2E_LEN_MIN + 1));
}

/** splitmix64 step: the generator of the pattern table. */
static inline uint64_t
e2e_splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/** Fill @p table (E2E_PATTERN_LEN bytes): little-endian splitmix64 words. */
static inline void
e2e_pattern_init(uint8_t *table)
{
	uint64_t state = 0x6770756470ull;	/* "gpudp" */
	uint32_t i, b;

	for (i = 0; i < E2E_PATTERN_LEN; i += 8) {
		uint64_t w = e2e_splitmix64(&state);

		for (b = 0; b < 8; b++)
			table[i + b] = (uint8_t)(w >> (8 * b));
	}
}

/** Byte @p off (>= E2E_HDR_LEN) of test frame @p seq. */
static inline uint8_t
e2e_pattern_byte(const uint8_t *table, uint32_t seq, uint32_t off)
{
	return table[(seq * E2E_PATTERN_STRIDE + off) & (E2E_PATTERN_LEN - 1)];
}

#endif /* E2E_FRAME_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/* SHA-1 as FIPS 180-4 section 6.1 describes it: 64-byte blocks, 80 rounds. */
#include <string.h>

#include "gpudp_flow_sha1.h"

static uint32_t
rol32(uint32_t x, unsigned int n)
{
	return x << n | x >> (32 - n);
}

static uint32_t
be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void
sha1_block(uint32_t h[5], const uint8_t blk[64])
{
	uint32_t w[80], a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f, k, t;
	unsigned int i;

	for (i = 0; i < 16; i++)
		w[i] = be32(blk + 4 * i);
	for (; i < 80; i++)
		w[i] = rol32(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
	for (i = 0; i < 80; i++) {
		if (i < 20) {
			f = (b & c) | (~b & d);
			k = 0x5a827999u;
		} else if (i < 40) {
			f = b ^ c ^ d;
			k = 0x6ed9eba1u;
		} else if (i < 60) {
			f = (b & c) | (b & d) | (c & d);
			k = 0x8f1bbcdcu;
		} else {
			f = b ^ c ^ d;
			k = 0xca62c1d6u;
		}
		t = rol32(a, 5) + f + e + k + w[i];
		e = d;
		d = c;
		c = rol32(b, 30);
		b = a;
		a = t;
	}
	h[0] += a;
	h[1] += b;
	h[2] += c;
	h[3] += d;
	h[4] += e;
}

void
gpudp_flow_sha1(const void *data, size_t len, uint8_t out[GPUDP_FLOW_SHA1_LEN])
{
	uint32_t h[5] = { 0x67452301u, 0xefcdab89u, 0x98badcfeu, 0x10325476u, 0xc3d2e1f0u };
	const uint8_t *p = data;
	uint64_t bits = (uint64_t)len * 8;
	uint8_t tail[128];
	size_t rest, n, i;

	for (n = len; n >= 64; n -= 64, p += 64)
		sha1_block(h, p);
	/* the last bytes, 0x80, zeros, and the length in bits: one or two blocks */
	rest = n;
	memset(tail, 0, sizeof(tail));
	if (rest > 0)
		memcpy(tail, p, rest);
	tail[rest] = 0x80;
	n = rest + 1 + 8 <= 64 ? 64 : 128;
	for (i = 0; i < 8; i++)
		tail[n - 1 - i] = (uint8_t)(bits >> (8 * i));
	sha1_block(h, tail);
	if (n == 128)
		sha1_block(h, tail + 64);
	for (i = 0; i < 5; i++) {
		out[4 * i] = (uint8_t)(h[i] >> 24);
		out[4 * i + 1] = (uint8_t)(h[i] >> 16);
		out[4 * i + 2] = (uint8_t)(h[i] >> 8);
		out[4 * i + 3] = (uint8_t)h[i];
	}
}

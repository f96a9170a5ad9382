/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The built-in works' per-packet code (gpudp_work.h), shared verbatim by
 * the CPU form (C11) and the GPU form (work_*.cu, nvcc): MAC swap, IPv4
 * forwarding (header checksum check, TTL decrement with the incremental
 * checksum update of RFC 1624) and a synthetic compute load. Parsing
 * (Ethernet, VLAN tags, IPv4) is lib/pkt's gpudp_pkt_parse(), not a
 * second parser. They are works like any other, registered through
 * gpudp_work_register() (gpudp_work_find("macswap")).
 *
 * Every function is GPUDP_PKT_HD: static inline in C, __host__ __device__
 * under nvcc. Packet bytes are read and written one byte at a time
 * (packets sit at any alignment). Nothing here depends on DPDK or CUDA.
 */
#ifndef GPUDP_FWD_PKT_H
#define GPUDP_FWD_PKT_H

#include <stdint.h>
#ifndef __CUDA_ARCH__
#include <string.h>
#endif

#include "gpudp_pkt_parse.h"
#include "gpudp_work.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The built-in works, in the order gpudp_fwd_kernel_name() names them. */
enum gpudp_fwd_kernel {
	GPUDP_FWD_K_MACSWAP = 0, /**< swap destination and source MAC addresses */
	GPUDP_FWD_K_IPV4,        /**< check IPv4 header, TTL-1, incremental checksum */
	GPUDP_FWD_K_LOAD,        /**< MAC swap plus rounds of hashing (capacity studies) */
	GPUDP_FWD_K_MAX
};

/**
 * The built-in works' drop reasons (verdicts 1..GPUDP_FWD_REASONS - 1).
 * Every work's verdicts, these included, are GPUDP_WORK_PASS, its own
 * reasons and GPUDP_WORK_DROP_ERROR (gpudp_work.h). GPUDP_FWD_PASS,
 * GPUDP_FWD_DROP_ERROR and GPUDP_FWD_VERDICT_MAX are deprecated aliases of
 * GPUDP_WORK_PASS, GPUDP_WORK_DROP_ERROR and GPUDP_WORK_VERDICT_MAX, kept
 * for works written against them.
 */
enum gpudp_fwd_verdict {
	GPUDP_FWD_PASS = GPUDP_WORK_PASS, /**< deprecated: GPUDP_WORK_PASS */
	GPUDP_FWD_DROP_TRUNCATED,   /**< a header is cut short, or IP total length > frame */
	GPUDP_FWD_DROP_MALFORMED,   /**< IP version or IHL or total length invalid */
	GPUDP_FWD_DROP_NOT_IPV4,    /**< ipv4 kernel: not an IPv4 packet */
	GPUDP_FWD_DROP_BAD_CSUM,    /**< ipv4 kernel: header checksum wrong */
	GPUDP_FWD_DROP_TTL,         /**< ipv4 kernel: TTL 0 or 1 (would expire) */
	GPUDP_FWD_REASONS,          /**< the built-ins' reasons are 1..this - 1 */
	GPUDP_FWD_DROP_ERROR = GPUDP_WORK_DROP_ERROR,  /**< deprecated: GPUDP_WORK_DROP_ERROR */
	GPUDP_FWD_VERDICT_MAX = GPUDP_WORK_VERDICT_MAX /**< deprecated: GPUDP_WORK_VERDICT_MAX */
};

/**
 * Kernels write only within the first GPUDP_FWD_HDR_SPAN bytes of a packet
 * (MACs; an IPv4 header behind up to 8 VLAN tags): the staged path copies
 * back no more than that.
 */
#define GPUDP_FWD_HDR_SPAN 128u

/**
 * Swap the 6-byte destination and source MAC addresses. Every load is
 * issued before any store, so on memory across PCIe (pinned host memory
 * read by a kernel) the twelve loads cost one round trip, not twelve. On
 * the CPU the same bytes move as one 12-byte load and two 6-byte stores
 * (memcpy: any alignment).
 */
GPUDP_PKT_HD void
gpudp_fwd_macswap(uint8_t *p)
{
	uint8_t t[12];
#ifdef __CUDA_ARCH__
	uint32_t i;

	for (i = 0; i < 12; i++)
		t[i] = p[i];
	for (i = 0; i < 6; i++) {
		p[i] = t[6 + i];
		p[6 + i] = t[i];
	}
#else
	memcpy(t, p, 12);
	memcpy(p, t + 6, 6);
	memcpy(p + 6, t, 6);
#endif
}

/** Fold a 32-bit one's-complement sum to 16 bits. */
GPUDP_PKT_HD uint32_t
gpudp_fwd_csum_fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffffu) + (s >> 16);
	return s;
}

/** One's-complement sum of @p len bytes (even) at @p h, as 16-bit big-endian words. */
GPUDP_PKT_HD uint32_t
gpudp_fwd_csum_sum(const uint8_t *h, uint32_t len)
{
	uint32_t s = 0, i;

	for (i = 0; i + 1 < len; i += 2)
		s += gpudp_rd16(h + i);
	return gpudp_fwd_csum_fold(s);
}

/**
 * Decrement the TTL of the IPv4 header at @p h and patch its checksum
 * incrementally (RFC 1624, eqn. 3: HC' = ~(~HC + ~m + m')), where m is
 * the 16-bit word holding TTL and protocol.
 */
GPUDP_PKT_HD void
gpudp_fwd_ttl_dec(uint8_t *h)
{
	uint32_t m = gpudp_rd16(h + 8), m2 = m - 0x100u, hc = gpudp_rd16(h + 10);
	uint32_t s = (~hc & 0xffffu) + (~m & 0xffffu) + m2;

	s = ~gpudp_fwd_csum_fold(s) & 0xffffu;
	h[8] = (uint8_t)(m2 >> 8);
	h[10] = (uint8_t)(s >> 8);
	h[11] = (uint8_t)s;
}

/**
 * ipv4 work: validate, then decrement the TTL. The headers are parsed in
 * the @p len bytes at @p p (the first segment); the IPv4 total length is
 * checked against @p frame_len (the whole frame). @return the verdict.
 */
GPUDP_PKT_HD uint32_t
gpudp_fwd_ipv4(uint8_t *p, uint32_t len, uint32_t frame_len)
{
	struct gpudp_pkt_info pi;
	uint8_t *h;
	uint32_t ihl;

	gpudp_pkt_parse(p, len, &pi);
	if (pi.af != 4) {
		/* no complete IPv4 header: say which layer failed */
		if (pi.ethertype == 0x0800)
			return pi.status == GPUDP_PKT_MALFORMED ?
				GPUDP_FWD_DROP_MALFORMED : GPUDP_FWD_DROP_TRUNCATED;
		if (pi.ethertype == 0 && pi.status == GPUDP_PKT_TRUNCATED)
			return GPUDP_FWD_DROP_TRUNCATED;
		if (pi.ethertype == 0 && pi.status == GPUDP_PKT_MALFORMED)
			return GPUDP_FWD_DROP_MALFORMED;
		return GPUDP_FWD_DROP_NOT_IPV4;
	}
	/* an incomplete L4 header does not matter to an IPv4 forwarder */
	h = p + pi.l3_off;
	ihl = (uint32_t)(h[0] & 0xf) * 4;
	if (pi.l3_off + pi.ip_len > frame_len)
		return GPUDP_FWD_DROP_TRUNCATED;
	if (gpudp_fwd_csum_sum(h, ihl) != 0xffffu)
		return GPUDP_FWD_DROP_BAD_CSUM;
	if (h[8] <= 1)
		return GPUDP_FWD_DROP_TTL;
	gpudp_fwd_ttl_dec(h);
	return GPUDP_WORK_PASS;
}

/**
 * Synthetic load: @p rounds rounds of a multiply-xorshift hash over the
 * first (up to) 64 of the @p avail bytes at @p p, seeded with the frame
 * length @p len. @return the hash (the packet is not changed).
 */
GPUDP_PKT_HD uint32_t
gpudp_fwd_load(const uint8_t *p, uint32_t avail, uint32_t len, uint32_t rounds)
{
	uint32_t h = 0x9e3779b9u ^ len, r, i, n = avail < 64 ? avail : 64;

	for (r = 0; r < rounds; r++)
		for (i = 0; i < n; i++) {
			h = (h ^ p[i]) * 0x01000193u;
			h ^= h >> 15;
		}
	return h;
}

/** Parameters of the load work: hash rounds (--work-arg). */
struct gpudp_fwd_load_params {
	uint32_t rounds;
};

/** The macswap work's function. */
GPUDP_WORK_FN uint32_t
gpudp_fwd_macswap_pkt(struct gpudp_work_pkt *p)
{
	if (p->seg_len[0] < 14)
		return GPUDP_FWD_DROP_TRUNCATED;
	gpudp_fwd_macswap(p->seg[0]);
	return GPUDP_WORK_PASS;
}

/** The ipv4 work's function (its headers must be in the first segment). */
GPUDP_WORK_FN uint32_t
gpudp_fwd_ipv4_pkt(struct gpudp_work_pkt *p)
{
	return gpudp_fwd_ipv4(p->seg[0], p->seg_len[0], p->pkt_len);
}

/** The load work's function: result is the hash (uint32_t). */
GPUDP_WORK_FN uint32_t
gpudp_fwd_load_pkt(struct gpudp_work_pkt *p)
{
	const struct gpudp_fwd_load_params *prm = (const struct gpudp_fwd_load_params *)p->params;
	uint32_t h = 0;

	if (p->seg_len[0] < 14) {
		*(uint32_t *)p->result = 0;
		return GPUDP_FWD_DROP_TRUNCATED;
	}
	/* seeded with the frame's length: staged mode copies only the span */
	h = gpudp_fwd_load(p->seg[0], p->seg_len[0], p->pkt_len, prm->rounds);
	*(uint32_t *)p->result = h;
	gpudp_fwd_macswap(p->seg[0]);
	return GPUDP_WORK_PASS;
}

#ifdef __cplusplus
}
#endif

#endif /* GPUDP_FWD_PKT_H */

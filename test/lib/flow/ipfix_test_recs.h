/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TEST ONLY: flow records for the IPFIX exporter's tests: random ones
 * (IPv4, IPv6, ICMP, biflow, extreme values, and fields the templates do
 * not carry filled with noise), the check of the records decoded against
 * those exported, and a clock the test moves.
 */
#ifndef IPFIX_TEST_RECS_H
#define IPFIX_TEST_RECS_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpudp_flow_rec.h"
#include "gpudp_ipfix.h"
#include "gpudp_test.h"
#include "ipfix_decode.h"

static inline uint64_t
ipfix_test_rnd(uint64_t *s)
{
	/* xorshift64* */
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dull;
}

/* 0, 1, a byte, 2^32 - 1, 2^64 - 1 or anything */
static inline uint64_t
ipfix_test_extreme(uint64_t *s)
{
	switch (ipfix_test_rnd(s) % 8) {
	case 0: return 0;
	case 1: return 1;
	case 2: return ipfix_test_rnd(s) & 0xff;
	case 3: return UINT32_MAX;
	case 4: return UINT64_MAX;
	case 5: return UINT64_MAX - 1;
	default: return ipfix_test_rnd(s);
	}
}

/*
 * A random record. One in @bad_every (0: never) has an af of neither 4
 * nor 6 (the exporter must drop it).
 */
static inline void
ipfix_test_rand_rec(uint64_t *s, struct gpudp_flow_rec *r, unsigned int bad_every)
{
	static const uint8_t protos[] = { 6, 17, 1, 58, 6, 17, 132, 0, 255, 47 };
	uint64_t v;
	unsigned int i;

	for (i = 0; i < 16; i += 8) {
		v = ipfix_test_rnd(s);
		memcpy(r->src + i, &v, 8);
		v = ipfix_test_rnd(s);
		memcpy(r->dst + i, &v, 8);
	}
	v = ipfix_test_rnd(s);
	r->af = (v & 1) ? 6 : 4;
	if (bad_every != 0 && (v >> 8) % bad_every == 0)
		r->af = (uint8_t)((v >> 32) % 3 == 0 ? 0 : (v >> 32) % 3 == 1 ? 5 : 255);
	r->proto = (v >> 1) % 4 == 0 ? (uint8_t)(v >> 40) : protos[(v >> 3) % sizeof(protos)];
	r->sport = (uint16_t)ipfix_test_extreme(s);
	r->dport = (uint16_t)ipfix_test_extreme(s);
	r->tos = (uint8_t)ipfix_test_rnd(s);
	r->end_reason = (uint8_t)((v >> 16) % 7);
	r->vlan = (v >> 20) % 3 == 0 ? 0 : (uint16_t)ipfix_test_extreme(s);
	r->tcp_flags = (uint8_t)ipfix_test_rnd(s);
	r->rtcp_flags = (uint8_t)ipfix_test_rnd(s);
	r->flags = (uint32_t)ipfix_test_rnd(s);  /* noise besides the biflow bit */
	r->pad = (uint32_t)ipfix_test_rnd(s);
	r->first_ns = ipfix_test_extreme(s);
	r->last_ns = ipfix_test_extreme(s);
	r->packets = ipfix_test_extreme(s);
	r->octets = ipfix_test_extreme(s);
	r->l2_octets = ipfix_test_extreme(s);
	r->rpackets = ipfix_test_extreme(s);
	r->roctets = ipfix_test_extreme(s);
	r->rl2_octets = ipfix_test_extreme(s);
}

/*
 * The records of @in that the exporter takes (af 4 or 6; it drops the
 * others), as its templates carry them, are @got, in order: one test
 * case's verdict, each difference named with @what.
 */
static inline int
ipfix_test_check_recs(const struct gpudp_flow_rec *in, size_t n, const struct gpudp_flow_rec *got,
		      size_t ngot, const char *what)
{
	size_t i, j = 0;
	char why[160];

	for (i = 0; i < n; i++) {
		struct gpudp_flow_rec want;

		if (in[i].af != 4 && in[i].af != 6)
			continue;
		GPUDP_TEST_ASSERT(j < ngot, "%s: %zu records decoded, record %zu missing", what,
				  ngot, i);
		ipfix_dec_expect(&in[i], &want);
		GPUDP_TEST_ASSERT(ipfix_dec_compare(&want, &got[j], why, sizeof(why)) == 0,
				  "%s: record %zu (af %u proto %u flags %#x): %s", what, i,
				  in[i].af, in[i].proto, in[i].flags, why);
		j++;
	}
	GPUDP_TEST_ASSERT(j == ngot, "%s: %zu records decoded, %zu exported", what, ngot, j);
	return GPUDP_TEST_PASS;
}

/* a clock for gpudp_ipfix_config's clock_ns: *arg, in ns */
static inline uint64_t
ipfix_test_clock(void *arg)
{
	return *(const uint64_t *)arg;
}

/* @cfg's defaults (gpudp_ipfix_config_init()) and a clock the test moves: *@now, in ns */
static inline void
ipfix_test_config_clocked(struct gpudp_ipfix_config *cfg, uint64_t *now)
{
	gpudp_ipfix_config_init(cfg);
	cfg->clock_ns = ipfix_test_clock;
	cfg->clock_arg = now;
}

#endif /* IPFIX_TEST_RECS_H */

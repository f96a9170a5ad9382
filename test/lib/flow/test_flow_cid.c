/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/flow's SHA-1 against FIPS 180's examples and digests of Python's
 * hashlib, and the Community ID (gpudp_flow_cid.h) against the test
 * vectors of the Community ID specification (corelight/community-id-spec:
 * the tables of baseline/README.md and the tuples of baseline_deflt.json
 * and baseline_seed1.json, seeds 0 and 1).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpudp_flow_cid.h"
#include "gpudp_flow_sha1.h"
#include "gpudp_test.h"

static void
hex(const uint8_t *d, size_t n, char *out)
{
	size_t i;

	for (i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", d[i]);
}

static int
sha1_fips_examples(void)
{
	static const struct {
		const char *in;
		const char *digest;
	} v[] = {
		{ "", "da39a3ee5e6b4b0d3255bfef95601890afd80709" },
		{ "abc", "a9993e364706816aba3e25717850c26c9cd0d89d" },
		{ "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
		  "84983e441c3bd26ebaae4aa1f95129e5e54670f1" },
		{ "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmno"
		  "ijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
		  "a49b2446a02c645bf419f995b67091253a04a259" },
	};
	uint8_t d[GPUDP_FLOW_SHA1_LEN];
	char h[2 * GPUDP_FLOW_SHA1_LEN + 1];
	size_t i;
	char *m;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		gpudp_flow_sha1(v[i].in, strlen(v[i].in), d);
		hex(d, sizeof(d), h);
		GPUDP_TEST_ASSERT(strcmp(h, v[i].digest) == 0, "\"%s\": %s, want %s", v[i].in, h,
				  v[i].digest);
	}
	m = malloc(1000000);
	GPUDP_TEST_ASSERT(m != NULL, "malloc");
	memset(m, 'a', 1000000);
	gpudp_flow_sha1(m, 1000000, d);
	free(m);
	hex(d, sizeof(d), h);
	GPUDP_TEST_ASSERT(strcmp(h, "34aa973cd4c4daa4f61eeb2bdbad27316534016f") == 0,
			  "a million 'a': %s", h);
	return GPUDP_TEST_PASS;
}

/* lengths around the padding's one-or-two-block boundary, bytes (7i + 3) & 255 */
static int
sha1_padding_boundaries(void)
{
	static const struct {
		size_t len;
		const char *digest;   /* Python: hashlib.sha1(bytes).hexdigest() */
	} v[] = {
		{ 55, "ddf57317ef34bfee3b6df83d359098930eb278bc" },
		{ 56, "a0d492bb0fc889d0eca3bc137066ab6f4f74f369" },
		{ 63, "c55856749bef509bdfe6bfebfc7bf4e793e82132" },
		{ 64, "bede92be29c3874e1b54ddc77988d606fc857a8e" },
		{ 65, "b05a80522b053d6dc7e0a517d0e70212c7dad11f" },
		{ 119, "504e27376a6e0f0dba8295b85cb25dc4dfa17d23" },
		{ 120, "82134b02fb3f702491be9bed581eeab59334acb2" },
		{ 1000, "4231a8a50a10fa9758db8ec71fdef855b751048a" },
	};
	uint8_t in[1000], d[GPUDP_FLOW_SHA1_LEN];
	char h[2 * GPUDP_FLOW_SHA1_LEN + 1];
	size_t i;

	for (i = 0; i < sizeof(in); i++)
		in[i] = (uint8_t)(i * 7 + 3);
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		gpudp_flow_sha1(in, v[i].len, d);
		hex(d, sizeof(d), h);
		GPUDP_TEST_ASSERT(strcmp(h, v[i].digest) == 0, "%zu bytes: %s, want %s", v[i].len,
				  h, v[i].digest);
	}
	return GPUDP_TEST_PASS;
}

/*
 * One vector: a tuple and its IDs with seed 0 and seed 1. sport and dport
 * are -1 for a protocol without ports. For ICMP the tables give type and
 * code; the JSON baselines give the ports the type maps to (type and
 * counterpart type, or type and code): a record carries type << 8 | code,
 * and a two-way type's code does not enter the ID, so type << 8 | dport
 * stands for both.
 */
struct cid_vec {
	uint8_t proto;
	const char *src;
	const char *dst;
	int sport;
	int dport;
	const char *seed0;
	const char *seed1;
};

#define V6A "fe80:0001:0203:0405:0607:0809:0A0B:0C0D"
#define V6B "fe80:1011:1213:1415:1617:1819:1A1B:1C1D"

/* the specification's tables (baseline/README.md: defaults, seed=1) */
static const struct cid_vec spec_tables[] = {
	{ 6, "1.2.3.4", "5.6.7.8", 1122, 3344,
	  "1:wCb3OG7yAFWelaUydu0D+125CLM=", "1:HhA1B+6CoLbiKPEs5nhNYN4XWfk=" },
	{ 6, "5.6.7.8", "1.2.3.4", 3344, 1122,
	  "1:wCb3OG7yAFWelaUydu0D+125CLM=", "1:HhA1B+6CoLbiKPEs5nhNYN4XWfk=" },
	{ 17, "1.2.3.4", "5.6.7.8", 1122, 3344,
	  "1:0Mu9InQx6z4ZiCZM/7HXi2WMhOg=", "1:OShq+iKDAMVouh/4bMxB9Sz4amw=" },
	{ 17, "5.6.7.8", "1.2.3.4", 3344, 1122,
	  "1:0Mu9InQx6z4ZiCZM/7HXi2WMhOg=", "1:OShq+iKDAMVouh/4bMxB9Sz4amw=" },
	{ 132, "1.2.3.4", "5.6.7.8", 1122, 3344,
	  "1:EKt4MsxuyaE6mL+hmrEkQ9csDD8=", "1:uitchpn5MMGAQKBJh7bIr/bAr7s=" },
	{ 132, "5.6.7.8", "1.2.3.4", 3344, 1122,
	  "1:EKt4MsxuyaE6mL+hmrEkQ9csDD8=", "1:uitchpn5MMGAQKBJh7bIr/bAr7s=" },
	{ 1, "1.2.3.4", "5.6.7.8", 8, 0,
	  "1:crodRHL2FEsHjbv3UkRrfbs4bZ0=", "1:9pr4ZGTICiuZoIh90RRYE2RyXpU=" },
	{ 1, "5.6.7.8", "1.2.3.4", 0, 0,
	  "1:crodRHL2FEsHjbv3UkRrfbs4bZ0=", "1:9pr4ZGTICiuZoIh90RRYE2RyXpU=" },
	{ 1, "1.2.3.4", "5.6.7.8", 11, 0,
	  "1:f/YiSyWqczrTgfUCZlBUnvHRcPk=", "1:1DD7cWGC/Yg91YGsQeni8du3pIA=" },
	{ 58, V6A, V6B, 128, 0,
	  "1:0bf7hyMJUwt3fMED7z8LIfRpBeo=", "1:IO27GQzPuCtNnwFvjWALMHu5tJE=" },
	{ 58, V6B, V6A, 129, 0,
	  "1:0bf7hyMJUwt3fMED7z8LIfRpBeo=", "1:IO27GQzPuCtNnwFvjWALMHu5tJE=" },
	{ 58, V6A, V6B, 146, 0,
	  "1:fYC8+pz24E+EhANP1EZhpX0Dw10=", "1:Cv4IKJe56BNkF0MBW2YxQ3Nwc3s=" },
	{ 46, "1.2.3.4", "5.6.7.8", -1, -1,
	  "1:ikv3kmf89luf73WPz1jOs49S768=", "1:/buhqeOmaRCopOZFy9HnoJd5XW8=" },
	{ 46, "5.6.7.8", "1.2.3.4", -1, -1,
	  "1:ikv3kmf89luf73WPz1jOs49S768=", "1:/buhqeOmaRCopOZFy9HnoJd5XW8=" },
	{ 46, V6A, V6B, -1, -1,
	  "1:wQ/2mwrnXP4lmJcHdGL5ePjR+e0=", "1:j6EyyfBzL4vWKHFXgUqb5Az3OxM=" },
	{ 46, V6B, V6A, -1, -1,
	  "1:wQ/2mwrnXP4lmJcHdGL5ePjR+e0=", "1:j6EyyfBzL4vWKHFXgUqb5Az3OxM=" },
};

/* the specification's JSON baselines (baseline_deflt.json, baseline_seed1.json) */
static const struct cid_vec spec_baseline[] = {
	{ 58, "fe80::200:86ff:fe05:80da", "fe80::260:97ff:fe07:69ea", 135, 136,
	  "1:dGHyGvjMfljg6Bppwm3bg0LO8TY=", "1:kHa1FhMYIT6Ym2Vm2AOtoOARDzY=" },
	{ 58, "fe80::260:97ff:fe07:69ea", "fe80::200:86ff:fe05:80da", 136, 135,
	  "1:dGHyGvjMfljg6Bppwm3bg0LO8TY=", "1:kHa1FhMYIT6Ym2Vm2AOtoOARDzY=" },
	{ 58, "fe80::260:97ff:fe07:69ea", "fe80::200:86ff:fe05:80da", 135, 136,
	  "1:zavyT/cezQr1fmImYCwYnMXbgck=", "1:2hSqmsDZ2kdcY9kbiUzOEBic0iM=" },
	{ 58, "fe80::200:86ff:fe05:80da", "fe80::260:97ff:fe07:69ea", 136, 135,
	  "1:zavyT/cezQr1fmImYCwYnMXbgck=", "1:2hSqmsDZ2kdcY9kbiUzOEBic0iM=" },
	{ 58, "3ffe:501:1800:2345::2", "3ffe:507:0:1:200:86ff:fe05:80da", 3, 0,
	  "1:2ObVBgIn28oZvibYZhZMBgh7WdQ=", "1:lVEtCZpYu84Xqaa++3lXFyuu2n4=" },
	{ 58, "3ffe:501:410:0:2c0:dfff:fe47:33e", "3ffe:507:0:1:200:86ff:fe05:80da", 1, 4,
	  "1:hLZd0XGWojozrvxqE0dWB1iM6R0=", "1:W8MHwXpWzpoSTD+cGcaJr4u0ys8=" },
	{ 58, "3ffe:507:0:1:200:86ff:fe05:80da", "3ffe:501:0:1001::2", 128, 129,
	  "1:+TW+HtLHvV1xnGhV1lv7XoJrqQg=", "1:GfZxjAkDk2MkegpBYHV6tadtFXQ=" },
	{ 58, "3ffe:501:0:1001::2", "3ffe:507:0:1:200:86ff:fe05:80da", 129, 128,
	  "1:+TW+HtLHvV1xnGhV1lv7XoJrqQg=", "1:GfZxjAkDk2MkegpBYHV6tadtFXQ=" },
	{ 58, "fe80::200:86ff:fe05:80da", "ff02::2", 133, 134,
	  "1:hO+sN4H+MG5MY/8hIrXPqc4ZQz0=", "1:L7Ka0ZMYu+J3bL4ulW2PrqyXNo8=" },
	{ 58, "fe80::260:97ff:fe07:69ea", "ff02::1", 134, 133,
	  "1:pkvHqCL88/tg1k4cPigmZXUtL00=", "1:K/ee5UCqAMAQXDorP5nSa2CGLjc=" },
	{ 1, "192.168.0.89", "192.168.0.1", 8, 0,
	  "1:X0snYXpgwiv9TZtqg64sgzUn6Dk=", "1:03g6IloqVBdcZlPyX8r0hgoE7kA=" },
	{ 1, "192.168.0.1", "192.168.0.89", 0, 8,
	  "1:X0snYXpgwiv9TZtqg64sgzUn6Dk=", "1:03g6IloqVBdcZlPyX8r0hgoE7kA=" },
	{ 1, "10.0.0.1", "10.0.0.2", 11, 0,
	  "1:YHxtAirCG//0OzkcVAukqKQN9xM=", "1:XjUibYHaafLQ3pxQeiMI8g25q20=" },
	{ 6, "2001:470:e5bf:dead:4957:2174:e82c:4887", "2607:f8b0:400c:c03::1a", 63943, 25,
	  "1:/qFaeAR+gFe1KYjMzVDsMv+wgU4=", "1:eJYTW6AOzFLlSUoESovMjnu7rMw=" },
	{ 6, "2607:f8b0:400c:c03::1a", "2001:470:e5bf:dead:4957:2174:e82c:4887", 25, 63943,
	  "1:/qFaeAR+gFe1KYjMzVDsMv+wgU4=", "1:eJYTW6AOzFLlSUoESovMjnu7rMw=" },
	{ 132, "192.168.170.8", "192.168.170.56", 7, 7,
	  "1:MP2EtRCAUIZvTw6MxJHLV7N7JDs=", "1:5w3ZRjeKBzqT3zsaEECDGjUbYeg=" },
	{ 132, "192.168.170.56", "192.168.170.8", 7, 7,
	  "1:MP2EtRCAUIZvTw6MxJHLV7N7JDs=", "1:5w3ZRjeKBzqT3zsaEECDGjUbYeg=" },
	{ 6, "128.232.110.120", "66.35.250.204", 34855, 80,
	  "1:LQU9qZlK+B5F3KDmev6m5PMibrg=", "1:3V71V58M3Ksw/yuFALMcW0LAHvc=" },
	{ 6, "66.35.250.204", "128.232.110.120", 80, 34855,
	  "1:LQU9qZlK+B5F3KDmev6m5PMibrg=", "1:3V71V58M3Ksw/yuFALMcW0LAHvc=" },
	{ 17, "192.168.1.52", "8.8.8.8", 54585, 53,
	  "1:d/FP5EW3wiY1vCndhwleRRKHowQ=", "1:Q9We8WO3piVF8yEQBNJF4uiSVrI=" },
	{ 17, "8.8.8.8", "192.168.1.52", 53, 54585,
	  "1:d/FP5EW3wiY1vCndhwleRRKHowQ=", "1:Q9We8WO3piVF8yEQBNJF4uiSVrI=" },
	{ 46, "10.1.12.1", "10.1.12.2", -1, -1,
	  "1:KHlLkgoJW7ifUTyTSgyVfkFHzKw=", "1:rYir8gphR31noO9iDRQmF/BteEI=" },
	{ 46, "10.1.12.2", "10.1.12.1", -1, -1,
	  "1:KHlLkgoJW7ifUTyTSgyVfkFHzKw=", "1:rYir8gphR31noO9iDRQmF/BteEI=" },
};

static int
vec_rec(const struct cid_vec *v, struct gpudp_flow_rec *r)
{
	memset(r, 0, sizeof(*r));
	r->proto = v->proto;
	r->af = strchr(v->src, ':') != NULL ? 6 : 4;
	if (inet_pton(r->af == 4 ? AF_INET : AF_INET6, v->src, r->src) != 1 ||
	    inet_pton(r->af == 4 ? AF_INET : AF_INET6, v->dst, r->dst) != 1)
		return -1;
	if (v->proto == 1 || v->proto == 58) {
		r->sport = 0;
		r->dport = (uint16_t)(v->sport << 8 | v->dport);
	} else if (v->sport >= 0) {
		r->sport = (uint16_t)v->sport;
		r->dport = (uint16_t)v->dport;
	}
	/* fields outside the tuple must not matter */
	r->vlan = 100;
	r->packets = 7;
	r->first_ns = 1;
	return 0;
}

static int
check_vectors(const struct cid_vec *v, size_t n)
{
	struct gpudp_flow_rec r;
	char id[GPUDP_FLOW_CID_SIZE];
	size_t i;
	int rc;

	for (i = 0; i < n; i++) {
		GPUDP_TEST_ASSERT(vec_rec(&v[i], &r) == 0, "vector %zu: bad address", i);
		rc = gpudp_flow_community_id(&r, 0, id, sizeof(id));
		GPUDP_TEST_ASSERT(rc == GPUDP_FLOW_CID_LEN && strcmp(id, v[i].seed0) == 0,
				  "vector %zu (%u %s -> %s): seed 0: %d \"%s\", want %s", i,
				  v[i].proto, v[i].src, v[i].dst, rc, id, v[i].seed0);
		rc = gpudp_flow_community_id(&r, 1, id, sizeof(id));
		GPUDP_TEST_ASSERT(rc == GPUDP_FLOW_CID_LEN && strcmp(id, v[i].seed1) == 0,
				  "vector %zu (%u %s -> %s): seed 1: %d \"%s\", want %s", i,
				  v[i].proto, v[i].src, v[i].dst, rc, id, v[i].seed1);
	}
	return GPUDP_TEST_PASS;
}

static int
cid_spec_tables(void)
{
	return check_vectors(spec_tables, sizeof(spec_tables) / sizeof(spec_tables[0]));
}

static int
cid_spec_baseline_json(void)
{
	return check_vectors(spec_baseline, sizeof(spec_baseline) / sizeof(spec_baseline[0]));
}

static uint64_t
rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* random TCP, UDP, SCTP and port-less flows: both directions have one ID */
static int
cid_same_for_both_directions(void)
{
	static const uint8_t protos[] = { 6, 17, 132, 47, 0, 255 };
	struct gpudp_flow_rec a, b;
	char ia[GPUDP_FLOW_CID_SIZE], ib[GPUDP_FLOW_CID_SIZE], ic[GPUDP_FLOW_CID_SIZE];
	uint64_t s = 0x9e3779b97f4a7c15u;
	unsigned int i, differ = 0;
	size_t k;

	for (i = 0; i < 5000; i++) {
		memset(&a, 0, sizeof(a));
		a.af = rnd(&s) & 1 ? 4 : 6;
		for (k = 0; k < (a.af == 4 ? 4u : 16u); k++) {
			a.src[k] = (uint8_t)rnd(&s);
			/* sometimes equal addresses, so that the ports decide */
			a.dst[k] = i % 8 == 0 ? a.src[k] : (uint8_t)rnd(&s);
		}
		a.proto = protos[rnd(&s) % sizeof(protos)];
		if (a.proto == 6 || a.proto == 17 || a.proto == 132) {
			a.sport = (uint16_t)rnd(&s);
			a.dport = (uint16_t)rnd(&s);
		}
		b = a;
		memcpy(b.src, a.dst, 16);
		memcpy(b.dst, a.src, 16);
		b.sport = a.dport;
		b.dport = a.sport;
		GPUDP_TEST_ASSERT(gpudp_flow_community_id(&a, (uint16_t)i, ia, sizeof(ia)) ==
				  GPUDP_FLOW_CID_LEN, "record %u", i);
		GPUDP_TEST_ASSERT(gpudp_flow_community_id(&b, (uint16_t)i, ib, sizeof(ib)) ==
				  GPUDP_FLOW_CID_LEN, "record %u reversed", i);
		GPUDP_TEST_ASSERT(strcmp(ia, ib) == 0, "record %u (proto %u): %s, reversed %s", i,
				  a.proto, ia, ib);
		gpudp_flow_community_id(&a, (uint16_t)(i + 1), ic, sizeof(ic));
		differ += strcmp(ia, ic) != 0;
	}
	GPUDP_TEST_ASSERT(differ == 5000, "another seed gave the same ID %u times", 5000 - differ);
	return GPUDP_TEST_PASS;
}

/*
 * A two-way ICMP type's code does not enter the ID and the reply maps to
 * it; a one-way type's code does, and its direction is kept.
 */
static int
cid_icmp_one_way_and_two_way_types(void)
{
	static const struct {
		uint8_t proto, req, rep;
	} pairs[] = {
		{ 1, 8, 0 }, { 1, 13, 14 }, { 1, 15, 16 }, { 1, 10, 9 }, { 1, 17, 18 },
		{ 58, 128, 129 }, { 58, 130, 131 }, { 58, 133, 134 }, { 58, 135, 136 },
		{ 58, 139, 140 }, { 58, 144, 145 },
	};
	static const struct {
		uint8_t proto, type;
	} one_way[] = { { 1, 3 }, { 1, 11 }, { 1, 5 }, { 1, 0x80 }, { 58, 1 }, { 58, 3 },
			{ 58, 137 }, { 58, 146 }, { 58, 8 } };
	struct gpudp_flow_rec r, rr;
	char a[GPUDP_FLOW_CID_SIZE], b[GPUDP_FLOW_CID_SIZE];
	size_t i;

	memset(&r, 0, sizeof(r));
	r.af = 4;
	memcpy(r.src, (const uint8_t[]){ 192, 0, 2, 1 }, 4);
	memcpy(r.dst, (const uint8_t[]){ 198, 51, 100, 7 }, 4);
	rr = r;
	memcpy(rr.src, r.dst, 4);
	memcpy(rr.dst, r.src, 4);
	for (i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		r.proto = rr.proto = pairs[i].proto;
		r.dport = (uint16_t)(pairs[i].req << 8);
		gpudp_flow_community_id(&r, 0, a, sizeof(a));
		rr.dport = (uint16_t)(pairs[i].rep << 8 | 9);   /* a code: ignored */
		gpudp_flow_community_id(&rr, 0, b, sizeof(b));
		GPUDP_TEST_ASSERT(strcmp(a, b) == 0, "proto %u type %u and reply %u: %s, %s",
				  pairs[i].proto, pairs[i].req, pairs[i].rep, a, b);
		r.dport = (uint16_t)(pairs[i].rep << 8);
		gpudp_flow_community_id(&r, 0, b, sizeof(b));
		GPUDP_TEST_ASSERT(strcmp(a, b) != 0, "proto %u: a reply from the requester has "
				  "the request's ID", pairs[i].proto);
	}
	for (i = 0; i < sizeof(one_way) / sizeof(one_way[0]); i++) {
		r.proto = rr.proto = one_way[i].proto;
		r.dport = rr.dport = (uint16_t)(one_way[i].type << 8 | 1);
		gpudp_flow_community_id(&r, 0, a, sizeof(a));
		gpudp_flow_community_id(&rr, 0, b, sizeof(b));
		GPUDP_TEST_ASSERT(strcmp(a, b) != 0, "proto %u one-way type %u: both directions %s",
				  one_way[i].proto, one_way[i].type, a);
		r.dport = (uint16_t)(one_way[i].type << 8 | 2);
		gpudp_flow_community_id(&r, 0, b, sizeof(b));
		GPUDP_TEST_ASSERT(strcmp(a, b) != 0, "proto %u one-way type %u: codes 1 and 2 "
				  "give %s", one_way[i].proto, one_way[i].type, a);
	}
	/* ICMP's pairs are not ICMPv6's: echo request's type 8 is one-way in ICMPv6 */
	r.proto = 1;
	r.dport = 8 << 8;
	gpudp_flow_community_id(&r, 0, a, sizeof(a));
	r.proto = 58;
	gpudp_flow_community_id(&r, 0, b, sizeof(b));
	GPUDP_TEST_ASSERT(strcmp(a, b) != 0, "ICMP and ICMPv6 type 8: one ID %s", a);
	return GPUDP_TEST_PASS;
}

static int
cid_refuses_bad_records_and_short_buffers(void)
{
	struct gpudp_flow_rec r;
	char id[GPUDP_FLOW_CID_SIZE + 8];
	size_t len;

	memset(&r, 0, sizeof(r));
	r.proto = 6;
	r.af = 0;
	strcpy(id, "x");
	GPUDP_TEST_ASSERT(gpudp_flow_community_id(&r, 0, id, sizeof(id)) == -EINVAL &&
			  id[0] == '\0', "af 0 accepted");
	r.af = 5;
	GPUDP_TEST_ASSERT(gpudp_flow_community_id(&r, 0, id, sizeof(id)) == -EINVAL, "af 5");
	GPUDP_TEST_ASSERT(gpudp_flow_community_id(NULL, 0, id, sizeof(id)) == -EINVAL, "NULL");
	r.af = 4;
	GPUDP_TEST_ASSERT(gpudp_flow_community_id(&r, 0, NULL, 64) == -EINVAL, "NULL buffer");
	for (len = 0; len < GPUDP_FLOW_CID_SIZE; len++) {
		memset(id, '#', sizeof(id));
		GPUDP_TEST_ASSERT(gpudp_flow_community_id(&r, 0, id, len) == -ENOSPC,
				  "%zu bytes accepted", len);
		GPUDP_TEST_ASSERT(len == 0 ? id[0] == '#' : id[0] == '\0' && id[len] == '#',
				  "%zu bytes: buffer written past", len);
	}
	memset(id, '#', sizeof(id));
	GPUDP_TEST_ASSERT(gpudp_flow_community_id(&r, 0, id, GPUDP_FLOW_CID_SIZE) ==
			  GPUDP_FLOW_CID_LEN && strlen(id) == GPUDP_FLOW_CID_LEN &&
			  id[GPUDP_FLOW_CID_SIZE] == '#', "an exact buffer: \"%s\"", id);
	return GPUDP_TEST_PASS;
}

int
main(int argc, char **argv)
{
	static const struct gpudp_test_case cases[] = {
		{ "sha1_fips_examples", sha1_fips_examples },
		{ "sha1_padding_boundaries", sha1_padding_boundaries },
		{ "cid_spec_tables", cid_spec_tables },
		{ "cid_spec_baseline_json", cid_spec_baseline_json },
		{ "cid_same_for_both_directions", cid_same_for_both_directions },
		{ "cid_icmp_one_way_and_two_way_types", cid_icmp_one_way_and_two_way_types },
		{ "cid_refuses_bad_records_and_short_buffers",
		  cid_refuses_bad_records_and_short_buffers },
		{ NULL, NULL },
	};

	return gpudp_test_run("flow_cid", cases, argc, argv);
}

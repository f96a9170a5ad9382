/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Community ID v1 (gpudp_flow_cid.h). The hashed bytes, in network order:
 * seed (2), source address (4 or 16), destination address (the same),
 * protocol (1), a zero byte, and for the protocols with ports, source and
 * destination port (2 each), the endpoints ordered so that the smaller
 * address (then the smaller port) comes first. ICMP types map to port
 * pairs as Zeek maps them (its ICMP analyzer's counterpart types).
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "gpudp_flow_cid.h"
#include "gpudp_flow_sha1.h"

#define PROTO_ICMP 1
#define PROTO_TCP 6
#define PROTO_UDP 17
#define PROTO_ICMPV6 58
#define PROTO_SCTP 132

/*
 * The reply type of a two-way ICMP (v4: @p v6 false) or ICMPv6 type, in
 * *counter; false for a one-way type.
 */
static bool
icmp_counterpart(bool v6, uint8_t type, uint8_t *counter)
{
	/* pairs of types, each the other's counterpart */
	static const uint8_t v4[][2] = {
		{ 8, 0 },    /* echo request, echo reply */
		{ 13, 14 },  /* timestamp, timestamp reply */
		{ 15, 16 },  /* information request, reply */
		{ 10, 9 },   /* router solicitation, advertisement */
		{ 17, 18 },  /* address mask request, reply */
	};
	static const uint8_t v6t[][2] = {
		{ 128, 129 }, /* echo request, echo reply */
		{ 130, 131 }, /* multicast listener query, report */
		{ 133, 134 }, /* router solicitation, advertisement */
		{ 135, 136 }, /* neighbor solicitation, advertisement */
		{ 139, 140 }, /* node information query, reply */
		{ 144, 145 }, /* home agent address discovery request, reply */
	};
	const uint8_t (*t)[2] = v6 ? v6t : v4;
	size_t n = v6 ? sizeof(v6t) / sizeof(v6t[0]) : sizeof(v4) / sizeof(v4[0]), i;

	for (i = 0; i < n; i++) {
		if (t[i][0] == type || t[i][1] == type) {
			*counter = t[i][0] == type ? t[i][1] : t[i][0];
			return true;
		}
	}
	return false;
}

static void
base64(const uint8_t *in, size_t n, char *out)
{
	static const char b64[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t i;

	for (i = 0; i + 2 < n; i += 3) {
		uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];

		*out++ = b64[v >> 18];
		*out++ = b64[v >> 12 & 63];
		*out++ = b64[v >> 6 & 63];
		*out++ = b64[v & 63];
	}
	if (n - i == 1) {
		*out++ = b64[in[i] >> 2];
		*out++ = b64[(in[i] & 3) << 4];
		*out++ = '=';
		*out++ = '=';
	} else if (n - i == 2) {
		*out++ = b64[in[i] >> 2];
		*out++ = b64[(in[i] & 3) << 4 | in[i + 1] >> 4];
		*out++ = b64[(in[i + 1] & 15) << 2];
		*out++ = '=';
	}
	*out = '\0';
}

int
gpudp_flow_community_id(const struct gpudp_flow_rec *rec, uint16_t seed, char *buf,
			size_t len)
{
	uint8_t in[2 + 16 + 16 + 2 + 4], digest[GPUDP_FLOW_SHA1_LEN], counter;
	const uint8_t *a = NULL, *b = NULL;
	uint16_t pa = 0, pb = 0;
	bool ports = false, ordered = false;
	size_t alen, n = 0;
	int c;

	if (buf != NULL && len > 0)
		buf[0] = '\0';
	if (rec == NULL || buf == NULL || (rec->af != 4 && rec->af != 6))
		return -EINVAL;
	if (len < GPUDP_FLOW_CID_SIZE)
		return -ENOSPC;
	alen = rec->af == 4 ? 4 : 16;
	switch (rec->proto) {
	case PROTO_TCP:
	case PROTO_UDP:
	case PROTO_SCTP:
		ports = true;
		pa = rec->sport;
		pb = rec->dport;
		break;
	case PROTO_ICMP:
	case PROTO_ICMPV6:
		ports = true;
		pa = rec->dport >> 8;
		if (icmp_counterpart(rec->proto == PROTO_ICMPV6, (uint8_t)pa, &counter)) {
			pb = counter;
		} else {
			pb = rec->dport & 0xff;
			ordered = true;   /* one-way: the record's direction stays */
		}
		break;
	default:
		break;
	}
	c = memcmp(rec->src, rec->dst, alen);
	if (ordered || c < 0 || (c == 0 && pa < pb)) {
		a = rec->src;
		b = rec->dst;
	} else {
		uint16_t t = pa;

		a = rec->dst;
		b = rec->src;
		pa = pb;
		pb = t;
	}
	in[n++] = (uint8_t)(seed >> 8);
	in[n++] = (uint8_t)seed;
	memcpy(in + n, a, alen);
	n += alen;
	memcpy(in + n, b, alen);
	n += alen;
	in[n++] = rec->proto;
	in[n++] = 0;
	if (ports) {
		in[n++] = (uint8_t)(pa >> 8);
		in[n++] = (uint8_t)pa;
		in[n++] = (uint8_t)(pb >> 8);
		in[n++] = (uint8_t)pb;
	}
	gpudp_flow_sha1(in, n, digest);
	buf[0] = '1';
	buf[1] = ':';
	base64(digest, sizeof(digest), buf + 2);
	return GPUDP_FLOW_CID_LEN;
}

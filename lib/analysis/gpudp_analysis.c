/* SPDX-License-Identifier: BSD-3-Clause */
/* CPU path of the analysis: object lifetime, batches, merging, listings. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpudp_analysis.h"
#include "gpudp_analysis_pkt.h"

static const char *const proto_names[GPUDP_AN_PROTO_MAX] = {
	[GPUDP_AN_PROTO_ETH] = "eth",
	[GPUDP_AN_PROTO_VLAN] = "vlan",
	[GPUDP_AN_PROTO_QINQ] = "qinq",
	[GPUDP_AN_PROTO_ARP] = "arp",
	[GPUDP_AN_PROTO_IPV4] = "ipv4",
	[GPUDP_AN_PROTO_IPV6] = "ipv6",
	[GPUDP_AN_PROTO_OTHER_L3] = "other_l3",
	[GPUDP_AN_PROTO_IPV6_EXT] = "ipv6_ext",
	[GPUDP_AN_PROTO_FRAG] = "fragment",
	[GPUDP_AN_PROTO_TCP] = "tcp",
	[GPUDP_AN_PROTO_UDP] = "udp",
	[GPUDP_AN_PROTO_ICMP] = "icmp",
	[GPUDP_AN_PROTO_ICMPV6] = "icmpv6",
	[GPUDP_AN_PROTO_OTHER_L4] = "other_l4",
};

static const char *const drop_names[GPUDP_AN_DROP_MAX] = {
	[GPUDP_AN_DROP_TRUNCATED] = "truncated",
	[GPUDP_AN_DROP_MALFORMED] = "malformed",
	[GPUDP_AN_DROP_FLOW_FULL] = "flow_table_full",
};

static const uint32_t bucket_lo[GPUDP_AN_SIZE_BUCKETS] = {
	0, 64, 128, 256, 512, 1024, 1519, 2048, 4096, 9217,
};

const char *
gpudp_an_proto_name(unsigned int proto)
{
	return proto < GPUDP_AN_PROTO_MAX ? proto_names[proto] : NULL;
}

const char *
gpudp_an_drop_name(unsigned int reason)
{
	return reason < GPUDP_AN_DROP_MAX ? drop_names[reason] : NULL;
}

int
gpudp_an_size_bucket_bounds(unsigned int bucket, uint32_t *lo, uint32_t *hi)
{
	if (bucket >= GPUDP_AN_SIZE_BUCKETS)
		return -EINVAL;
	*lo = bucket_lo[bucket];
	*hi = bucket + 1 < GPUDP_AN_SIZE_BUCKETS ? bucket_lo[bucket + 1] - 1 : UINT32_MAX;
	return 0;
}

const char *
gpudp_an_addr_str(uint8_t af, const uint8_t *addr, char *buf, size_t len)
{
	if (inet_ntop(af == 6 ? AF_INET6 : AF_INET, addr, buf, (socklen_t)len) == NULL)
		snprintf(buf, len, "?");
	return buf;
}

uint32_t
gpudp_analysis_capacity(uint32_t flow_capacity)
{
	uint32_t cap = 16;

	if (flow_capacity == 0)
		flow_capacity = GPUDP_AN_DEFAULT_FLOWS;
	if (flow_capacity > GPUDP_AN_MAX_FLOWS)
		return 0;
	while (cap < flow_capacity)
		cap <<= 1;
	return cap;
}

struct gpudp_analysis *
gpudp_analysis_create(uint32_t flow_capacity, const struct gpudp_filter *filter)
{
	struct gpudp_analysis *a;
	uint32_t cap = gpudp_analysis_capacity(flow_capacity);

	if (cap == 0) {
		errno = EINVAL;
		return NULL;
	}
	a = calloc(1, sizeof(*a));
	if (a == NULL)
		return NULL;
	a->flows = calloc(cap, sizeof(*a->flows));
	if (a->flows == NULL) {
		free(a);
		errno = ENOMEM;
		return NULL;
	}
	a->flow_mask = cap - 1;
	if (filter != NULL)
		a->filter = *filter;
	return a;
}

void
gpudp_analysis_free(struct gpudp_analysis *a)
{
	if (a == NULL)
		return;
	free(a->flows);
	free(a);
}

void
gpudp_analysis_reset(struct gpudp_analysis *a)
{
	memset(&a->ctr, 0, sizeof(a->ctr));
	memset(a->flows, 0, sizeof(*a->flows) * ((size_t)a->flow_mask + 1));
}

static void
sink_of(struct gpudp_analysis *a, struct gpudp_an_sink *sk)
{
	sk->ctr = &a->ctr;
	sk->flows = a->flows;
	sk->flow_mask = a->flow_mask;
	sk->pad = 0;
	sk->filter = &a->filter;
}

int
gpudp_analysis_packet(struct gpudp_analysis *a, const uint8_t *data,
		      uint32_t caplen, uint32_t wirelen, uint64_t ts_ns)
{
	struct gpudp_an_sink sk;

	sink_of(a, &sk);
	return gpudp_an_account(&sk, data, caplen, wirelen < caplen ? caplen : wirelen, ts_ns);
}

uint32_t
gpudp_analysis_batch(struct gpudp_analysis *a, const struct gpudp_an_pkt_desc *desc,
		     const uint8_t *data, uint32_t n, uint32_t *match)
{
	struct gpudp_an_sink sk;
	uint32_t i, hits = 0;

	sink_of(a, &sk);
	if (match != NULL)
		memset(match, 0, sizeof(*match) * ((n + 31) / 32));
	for (i = 0; i < n; i++) {
		const struct gpudp_an_pkt_desc *d = &desc[i];

		if (gpudp_an_account(&sk, data + d->off, d->caplen, d->wirelen, d->ts_ns)) {
			hits++;
			if (match != NULL)
				match[i / 32] |= 1u << (i % 32);
		}
	}
	return hits;
}

int
gpudp_analysis_merge(struct gpudp_analysis *dst, const struct gpudp_an_counters *ctr,
		     const struct gpudp_flow_slot *slots, uint32_t n_slots)
{
	const uint64_t *src = (const uint64_t *)ctr;
	uint64_t *d = (uint64_t *)&dst->ctr;
	size_t i;
	int rc = 0;

	for (i = 0; i < sizeof(*ctr) / sizeof(uint64_t); i++)
		d[i] += src[i];
	for (i = 0; slots != NULL && i < n_slots; i++) {
		const struct gpudp_flow_slot *s = &slots[i];
		struct gpudp_flow_slot *t;

		if (s->state != GPUDP_FLOW_READY)
			continue;
		t = gpudp_flow_lookup_insert(dst->flows, dst->flow_mask, &s->key,
					     gpudp_flow_hash(&s->key));
		if (t == NULL) {
			dst->ctr.drops[GPUDP_AN_DROP_FLOW_FULL] += s->pkts[0] + s->pkts[1];
			rc = -ENOSPC;
			continue;
		}
		t->pkts[0] += s->pkts[0];
		t->pkts[1] += s->pkts[1];
		t->bytes[0] += s->bytes[0];
		t->bytes[1] += s->bytes[1];
		if (s->first_ts < t->first_ts)
			t->first_ts = s->first_ts;
		if (s->last_ts > t->last_ts)
			t->last_ts = s->last_ts;
	}
	return rc;
}

static uint32_t
count_flows(const struct gpudp_analysis *a)
{
	uint32_t i, n = 0;

	for (i = 0; i <= a->flow_mask; i++)
		n += a->flows[i].state == GPUDP_FLOW_READY;
	return n;
}

static int
cmp_flow(const void *pa, const void *pb)
{
	const struct gpudp_flow_record *a = pa, *b = pb;
	uint64_t ba = a->bytes[0] + a->bytes[1], bb = b->bytes[0] + b->bytes[1];
	uint64_t na = a->pkts[0] + a->pkts[1], nb = b->pkts[0] + b->pkts[1];

	if (ba != bb)
		return ba > bb ? -1 : 1;
	if (na != nb)
		return na > nb ? -1 : 1;
	return memcmp(&a->key, &b->key, sizeof(a->key));
}

int
gpudp_analysis_flows(const struct gpudp_analysis *a, struct gpudp_flow_record **out,
		     size_t *n)
{
	uint32_t i, k = 0, total = count_flows(a);
	struct gpudp_flow_record *r;

	r = calloc(total ? total : 1, sizeof(*r));
	if (r == NULL)
		return -ENOMEM;
	for (i = 0; i <= a->flow_mask; i++) {
		const struct gpudp_flow_slot *s = &a->flows[i];

		if (s->state != GPUDP_FLOW_READY)
			continue;
		r[k].key = s->key;
		memcpy(r[k].pkts, s->pkts, sizeof(s->pkts));
		memcpy(r[k].bytes, s->bytes, sizeof(s->bytes));
		r[k].first_ts = s->first_ts;
		r[k].last_ts = s->last_ts;
		k++;
	}
	qsort(r, k, sizeof(*r), cmp_flow);
	*out = r;
	*n = k;
	return 0;
}

static int
cmp_talker(const void *pa, const void *pb)
{
	const struct gpudp_talker *a = pa, *b = pb;
	uint64_t ba = a->tx_bytes + a->rx_bytes, bb = b->tx_bytes + b->rx_bytes;
	uint64_t na = a->tx_pkts + a->rx_pkts, nb = b->tx_pkts + b->rx_pkts;

	if (ba != bb)
		return ba > bb ? -1 : 1;
	if (na != nb)
		return na > nb ? -1 : 1;
	if (a->af != b->af)
		return a->af < b->af ? -1 : 1;
	return memcmp(a->addr, b->addr, sizeof(a->addr));
}

static int
cmp_talker_addr(const void *pa, const void *pb)
{
	const struct gpudp_talker *a = pa, *b = pb;

	if (a->af != b->af)
		return a->af < b->af ? -1 : 1;
	return memcmp(a->addr, b->addr, sizeof(a->addr));
}

int
gpudp_analysis_talkers(const struct gpudp_analysis *a, struct gpudp_talker **out, size_t *n)
{
	uint32_t i, k = 0, total = count_flows(a);
	struct gpudp_talker *t;
	size_t j, m;

	/* two endpoints per flow, then sort by address and fold duplicates */
	t = calloc(total ? 2 * (size_t)total : 1, sizeof(*t));
	if (t == NULL)
		return -ENOMEM;
	for (i = 0; i <= a->flow_mask; i++) {
		const struct gpudp_flow_slot *s = &a->flows[i];
		int e;

		if (s->state != GPUDP_FLOW_READY)
			continue;
		for (e = 0; e < 2; e++) {
			t[k].af = s->key.af;
			memcpy(t[k].addr, s->key.addr[e], 16);
			t[k].tx_pkts = s->pkts[e];
			t[k].tx_bytes = s->bytes[e];
			t[k].rx_pkts = s->pkts[!e];
			t[k].rx_bytes = s->bytes[!e];
			k++;
		}
		/* a flow from an address to itself counts once, as in tshark */
		if (memcmp(s->key.addr[0], s->key.addr[1], 16) == 0) {
			k--;
			t[k - 1].tx_pkts = t[k - 1].rx_pkts = s->pkts[0] + s->pkts[1];
			t[k - 1].tx_bytes = t[k - 1].rx_bytes = s->bytes[0] + s->bytes[1];
		}
	}
	qsort(t, k, sizeof(*t), cmp_talker_addr);
	for (j = 0, m = 0; j < k; j++) {
		if (m > 0 && cmp_talker_addr(&t[m - 1], &t[j]) == 0) {
			t[m - 1].tx_pkts += t[j].tx_pkts;
			t[m - 1].tx_bytes += t[j].tx_bytes;
			t[m - 1].rx_pkts += t[j].rx_pkts;
			t[m - 1].rx_bytes += t[j].rx_bytes;
		} else {
			t[m++] = t[j];
		}
	}
	qsort(t, m, sizeof(*t), cmp_talker);
	*out = t;
	*n = m;
	return 0;
}

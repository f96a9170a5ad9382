/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the packet parser and the flow table (lib/analysis/
 * gpudp_analysis_pkt.h, CPU path, through gpudp_analysis.c). The input is a
 * filter choice (first byte) and packets, each as a 16-bit little-endian
 * captured length, a byte added to it for the original length, and the
 * bytes; every packet gets its own allocation of exactly its length, so a
 * read past it is caught. The table has 16 slots, so it fills. The same
 * packets go through gpudp_analysis_packet() one by one and through
 * gpudp_analysis_batch() as a staged batch: the counters must be equal, and
 * the flow and talker lists consistent with them.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpudp_analysis.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "fuzz_packet: %s\n", #c); abort(); } } while (0)

#define MAX_PKTS 64

static const char *const filters[] = {
	NULL,
	"tcp and port 8080",
	"udp or icmp6 or vlan 100",
	"net 10.0.0.0/8 and not portrange 1-1023",
	"src host fd00::1 or dst net fd00::/64 and proto 17",
	"ip and not (tcp or udp) or vlan",
};

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct gpudp_filter compiled[sizeof(filters) / sizeof(filters[0])];
	static int ready;
	struct gpudp_pkt_desc desc[MAX_PKTS];
	uint8_t *pkt[MAX_PKTS], *batch;
	struct gpudp_analysis *a, *b, *c;
	struct gpudp_flow_record *fl;
	struct gpudp_talker *tk;
	const struct gpudp_filter *flt;
	uint32_t match[(MAX_PKTS + 31) / 32], n = 0, i, hits = 0, batch_len = 0;
	uint64_t flow_pkts = 0, sum = 0;
	size_t off = 1, n_fl, n_tk, k;

	if (!ready) {
		for (k = 1; k < sizeof(filters) / sizeof(filters[0]); k++)
			CHECK(gpudp_filter_compile(filters[k], &compiled[k], NULL, 0) == 0);
		ready = 1;
	}
	if (size < 1)
		return 0;
	flt = data[0] % (sizeof(filters) / sizeof(filters[0])) ?
		&compiled[data[0] % (sizeof(filters) / sizeof(filters[0]))] : NULL;
	while (n < MAX_PKTS && size - off >= 3) {
		uint32_t len = (uint32_t)data[off] | (uint32_t)data[off + 1] << 8;

		if (len > size - off - 3)
			len = (uint32_t)(size - off - 3);
		pkt[n] = malloc(len ? len : 1);
		CHECK(pkt[n] != NULL);
		memcpy(pkt[n], data + off + 3, len);
		desc[n] = (struct gpudp_pkt_desc){ .off = batch_len, .caplen = len,
			.wirelen = len + data[off + 2], .ts_ns = n };
		batch_len += (len + 7) & ~7u;
		off += 3 + len;
		n++;
	}
	a = gpudp_analysis_create(16, flt);
	b = gpudp_analysis_create(16, flt);
	c = gpudp_analysis_create(16, NULL);
	batch = malloc(batch_len ? batch_len : 1);
	CHECK(a != NULL && b != NULL && c != NULL && batch != NULL);
	for (i = 0; i < n; i++) {
		hits += (uint32_t)gpudp_analysis_packet(a, pkt[i], desc[i].caplen, desc[i].wirelen,
							desc[i].ts_ns);
		memcpy(batch + desc[i].off, pkt[i], desc[i].caplen);
	}
	CHECK(gpudp_analysis_batch(b, desc, batch, n, match) == hits);
	CHECK(memcmp(&a->ctr, &b->ctr, sizeof(a->ctr)) == 0);
	CHECK(a->ctr.pkts == n && a->ctr.filter_pkts == hits);
	for (k = 0; k < GPUDP_AN_SIZE_BUCKETS; k++)
		sum += a->ctr.size_hist[k];
	CHECK(sum == n);
	CHECK(gpudp_analysis_flows(a, &fl, &n_fl) == 0);
	for (k = 0; k < n_fl; k++)
		flow_pkts += fl[k].pkts[0] + fl[k].pkts[1];
	CHECK(flow_pkts <= n);
	free(fl);
	CHECK(gpudp_analysis_talkers(a, &tk, &n_tk) == 0);
	CHECK(n_tk <= 2 * n_fl);
	free(tk);
	/* merging the table into an empty object gives the same counters */
	CHECK(gpudp_analysis_merge(c, &a->ctr, a->flows, a->flow_mask + 1) == 0);
	CHECK(memcmp(&a->ctr, &c->ctr, sizeof(a->ctr)) == 0);
	gpudp_analysis_free(a);
	gpudp_analysis_free(b);
	gpudp_analysis_free(c);
	free(batch);
	for (i = 0; i < n; i++)
		free(pkt[i]);
	return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TEST ONLY: sends a deterministic set of flow records through the IPFIX
 * exporter (lib/flow, gpudp_ipfix.h) to the targets named on the command
 * line, and prints what a collector must give back, one record a line:
 *
 *   af,src,dst,sport,dport,proto,tos,tcp_flags,vlan,first_ms,last_ms,
 *   packets,octets,l2_octets,biflow,rpackets,roctets,rl2_octets,rtcp_flags,
 *   end_reason
 *
 * Usage: ipfix_send [--count N] [--batch N] [--gap-ms MS] [--domain ID]
 *                   TARGET...
 *
 * The records: IPv4 and IPv6 TCP, UDP and SCTP flows, ICMP and ICMPv6
 * (dport type << 8 | code), biflows, VLAN tags, every end reason,
 * counters past 2^32, times with and without a sub-millisecond part; each
 * with its own 5-tuple, so that a collector that aggregates keeps them
 * apart. It prints the counters of each target on stderr and exits 1 if
 * a record was dropped or a send failed.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <arpa/inet.h>

#include "gpudp_ipfix.h"

/* 2026-01-01T00:00:00Z in ms */
#define BASE_MS 1767225600000ull

static void
make_rec(unsigned int i, struct gpudp_flow_rec *r)
{
	static const uint8_t protos4[] = { 6, 17, 1, 132 };
	static const uint8_t protos6[] = { 6, 17, 58, 132 };
	uint64_t first_ms = BASE_MS + (uint64_t)i * 1013u;

	memset(r, 0, sizeof(*r));
	r->af = (i % 3 == 2) ? 6 : 4;
	if (r->af == 4) {
		r->src[0] = 198;
		r->src[1] = 51;
		r->src[2] = 100;
		r->src[3] = (uint8_t)(1 + i % 250);
		r->dst[0] = 203;
		r->dst[1] = 0;
		r->dst[2] = 113;
		r->dst[3] = (uint8_t)(1 + (i / 250) % 250);
		r->proto = protos4[(i / 3) % 4];
	} else {
		/* 2001:db8:0:<i>::1 -> 2001:db8:1:<i>::2 */
		r->src[0] = 0x20;
		r->src[1] = 0x01;
		r->src[2] = 0x0d;
		r->src[3] = 0xb8;
		r->src[6] = (uint8_t)(i >> 8);
		r->src[7] = (uint8_t)i;
		r->src[15] = 1;
		memcpy(r->dst, r->src, 16);
		r->dst[5] = 1;
		r->dst[15] = 2;
		r->proto = protos6[(i / 3) % 4];
	}
	if (r->proto == 1 || r->proto == 58) {
		/* echo request, destination unreachable, time exceeded */
		static const uint16_t tc[] = { 0x0800, 0x0303, 0x0b00, 0x8000, 0x0101 };

		r->dport = tc[i % 5];
	} else {
		r->sport = (uint16_t)(1024 + i * 7);
		r->dport = (uint16_t)(i % 4 == 0 ? 443 : i % 4 == 1 ? 53 : 4739 + i);
	}
	r->tos = (uint8_t)(i % 5 == 0 ? 0xb8 : i % 7);
	if (r->proto == 6)
		r->tcp_flags = (uint8_t)(0x02 | (i % 2 ? 0x10 : 0) | (i % 3 ? 0x01 : 0) |
					 (i % 11 == 0 ? 0x04 : 0) | (i % 13 == 0 ? 0x08 : 0));
	r->vlan = (uint16_t)(i % 4 == 3 ? 100 + i % 4000 : 0);
	r->end_reason = (uint8_t)(1 + i % 5);
	r->first_ns = first_ms * 1000000u + (i % 2 ? 999999u : 0);
	r->last_ns = r->first_ns + (uint64_t)(i % 17) * 1234567u;
	r->packets = 1 + i * 3u + (i % 10 == 9 ? 5000000000ull : 0);
	r->octets = r->packets * (40 + i % 1400);
	r->l2_octets = r->octets + r->packets * 14;
	if (i % 4 == 1) {
		r->flags = GPUDP_FLOW_REC_BIFLOW;
		r->rpackets = 1 + i * 2u;
		r->roctets = r->rpackets * (60 + i % 900);
		r->rl2_octets = r->roctets + r->rpackets * 18;
		if (r->proto == 6)  /* ACK and PSH, and FIN or RST: never the forward flags */
			r->rtcp_flags = (uint8_t)(0x18 | (i % 3 ? 0x01 : 0x04));
	}
}

static void
print_rec(const struct gpudp_flow_rec *r)
{
	char s[INET6_ADDRSTRLEN], d[INET6_ADDRSTRLEN];
	int fam = r->af == 6 ? AF_INET6 : AF_INET;

	inet_ntop(fam, r->src, s, sizeof(s));
	inet_ntop(fam, r->dst, d, sizeof(d));
	printf("%u,%s,%s,%u,%u,%u,%u,%u,%u,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%"
	       PRIu64 ",%u,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%u,%u\n", r->af, s, d, r->sport,
	       r->dport, r->proto, r->tos, r->tcp_flags, r->vlan, r->first_ns / 1000000u,
	       r->last_ns / 1000000u, r->packets, r->octets, r->l2_octets,
	       (r->flags & GPUDP_FLOW_REC_BIFLOW) ? 1 : 0, r->rpackets, r->roctets,
	       r->rl2_octets, r->rtcp_flags, r->end_reason);
}

static void
sleep_ms(unsigned int ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

int
main(int argc, char **argv)
{
	unsigned int count = 400, batch = 25, gap_ms = 2, i, k;
	struct gpudp_ipfix_config cfg;
	struct gpudp_ipfix *x;
	char err[512];
	int a, rc = 0;

	gpudp_ipfix_config_init(&cfg);
	for (a = 1; a < argc && strncmp(argv[a], "--", 2) == 0; a += 2) {
		if (a + 1 >= argc)
			break;
		if (strcmp(argv[a], "--count") == 0)
			count = (unsigned int)strtoul(argv[a + 1], NULL, 0);
		else if (strcmp(argv[a], "--batch") == 0)
			batch = (unsigned int)strtoul(argv[a + 1], NULL, 0);
		else if (strcmp(argv[a], "--gap-ms") == 0)
			gap_ms = (unsigned int)strtoul(argv[a + 1], NULL, 0);
		else if (strcmp(argv[a], "--domain") == 0)
			cfg.domain_id = (uint32_t)strtoul(argv[a + 1], NULL, 0);
		else
			break;
	}
	if (a >= argc || batch == 0) {
		fprintf(stderr, "usage: ipfix_send [--count N] [--batch N] [--gap-ms MS] "
			"[--domain ID] TARGET...\n");
		return 2;
	}
	if (batch > 256)
		batch = 256;
	if (gpudp_ipfix_create(&cfg, &x, err, sizeof(err)) != 0) {
		fprintf(stderr, "ipfix_send: %s\n", err);
		return 1;
	}
	for (; a < argc; a++) {
		struct gpudp_ipfix_target t;

		if (gpudp_ipfix_target_parse(argv[a], &t, err, sizeof(err)) != 0 ||
		    gpudp_ipfix_add_target(x, &t, err, sizeof(err)) < 0) {
			fprintf(stderr, "ipfix_send: %s\n", err);
			gpudp_ipfix_close(x, 0);
			return 1;
		}
	}
	for (i = 0; i < count; i += batch) {
		struct gpudp_flow_rec r[256];
		unsigned int n = count - i < batch ? count - i : batch;

		for (k = 0; k < n; k++) {
			make_rec(i + k, &r[k]);
			print_rec(&r[k]);
		}
		gpudp_ipfix_export(x, r, n);
		gpudp_ipfix_flush(x);
		/* paced: a collector's socket buffer is not flooded */
		if (gap_ms != 0)
			sleep_ms(gap_ms);
	}
	fflush(stdout);
	gpudp_ipfix_drain(x, 5000);
	for (k = 0; k < gpudp_ipfix_target_count(x); k++) {
		struct gpudp_ipfix_stats st;

		gpudp_ipfix_stats_get(x, k, &st);
		fprintf(stderr, "ipfix_send: %s: %" PRIu64 " messages, %" PRIu64 " records, %"
			PRIu64 " dropped, %" PRIu64 " errors, %" PRIu64 " bytes\n",
			gpudp_ipfix_target_name(x, k), st.messages, st.records, st.dropped,
			st.errors, st.bytes);
		if (st.dropped != 0 || st.errors != 0 || st.records != count)
			rc = 1;
	}
	gpudp_ipfix_close(x, 1000);
	return rc;
}

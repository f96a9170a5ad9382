/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Random flow records through the NDJSON flow log, for check_flow_log.py:
 *
 *   flow_log_gen SEED COUNT LOG RECORDS [no-cid] [cid-seed=N]
 *
 * writes COUNT records with gpudp_flow_log_write() to LOG, and the same
 * records' fields to RECORDS, one line each: af, src and dst in hex (16
 * bytes), sport, dport, proto, tos, end_reason, vlan, tcp_flags,
 * rtcp_flags, flags, first_ns, last_ns, packets, octets, l2_octets,
 * rpackets, roctets, rl2_octets, in decimal. The records cover every
 * field's range: IPv4 and IPv6 (compressible, mapped and extreme
 * addresses), ICMP and ICMPv6 (sport 0, dport type << 8 | code) and other
 * protocols, biflow or not (the reverse fields 0 when not), every end
 * reason and unknown ones, and 64-bit values at 0, 2^53 and 2^64 - 1.
 * Exit 0, or 1 with a message.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpudp_flow_log.h"

static uint64_t state;

static uint64_t
rnd(void)
{
	/* splitmix64 */
	uint64_t z = (state += 0x9e3779b97f4a7c15u);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

/* a value of @p bits bits, often at an edge of its range */
static uint64_t
val(unsigned int bits)
{
	uint64_t max = bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1, r = rnd();

	switch (r % 8) {
	case 0:
		return 0;
	case 1:
		return max;
	case 2:
		return (r >> 8) % 1000;
	case 3:
		return bits == 64 ? (UINT64_C(1) << 53) + (r >> 8) % 3 - 1 : max - 1;
	default:
		return rnd() & max;
	}
}

static void
addr(uint8_t af, uint8_t *a)
{
	uint64_t r = rnd();
	size_t i;

	memset(a, 0, 16);
	if (af == 4) {
		for (i = 0; i < 4; i++)
			a[i] = r % 5 == 0 ? 0 : r % 5 == 1 ? 255 : (uint8_t)rnd();
		return;
	}
	switch (r % 6) {
	case 0:   /* ::, ::1, and zero runs of every length */
		for (i = 0; i < 16; i += 2)
			if (rnd() % 3 == 0)
				a[i + 1] = (uint8_t)rnd();
		break;
	case 1:   /* IPv4-mapped ::ffff:a.b.c.d */
		a[10] = a[11] = 0xff;
		for (i = 12; i < 16; i++)
			a[i] = (uint8_t)rnd();
		break;
	case 2:
		memset(a, 0xff, 16);
		break;
	default:
		for (i = 0; i < 16; i++)
			a[i] = (uint8_t)rnd();
		if (r % 6 == 3)   /* fe80::/64 and 2001:db8:: look-alikes */
			memset(a + 2, 0, 6);
	}
}

static void
hex(FILE *f, const uint8_t *a)
{
	size_t i;

	for (i = 0; i < 16; i++)
		fprintf(f, "%02x", a[i]);
}

int
main(int argc, char **argv)
{
	static const uint8_t protos[] = { 1, 58, 6, 17, 132, 47, 0, 255 };
	struct gpudp_flow_log *log;
	struct gpudp_flow_log_stats st;
	struct gpudp_flow_rec r;
	unsigned int flags = 0;
	unsigned long cid_seed = 0;
	unsigned long long n, i;
	FILE *rf;
	int k, rc;

	if (argc < 5) {
		fprintf(stderr, "usage: flow_log_gen SEED COUNT LOG RECORDS [no-cid] [cid-seed=N]\n");
		return 1;
	}
	state = strtoull(argv[1], NULL, 0);
	n = strtoull(argv[2], NULL, 0);
	for (k = 5; k < argc; k++) {
		if (strcmp(argv[k], "no-cid") == 0)
			flags |= GPUDP_FLOW_LOG_NO_COMMUNITY_ID;
		else if (strncmp(argv[k], "cid-seed=", 9) == 0)
			cid_seed = strtoul(argv[k] + 9, NULL, 0);
	}
	rc = gpudp_flow_log_open(argv[3], flags, (uint16_t)cid_seed, &log);
	if (rc != 0) {
		fprintf(stderr, "flow_log_gen: %s: %s\n", argv[3], strerror(-rc));
		return 1;
	}
	rf = fopen(argv[4], "w");
	if (rf == NULL) {
		perror(argv[4]);
		return 1;
	}
	for (i = 0; i < n; i++) {
		memset(&r, 0, sizeof(r));
		r.af = rnd() % 2 ? 4 : 6;
		addr(r.af, r.src);
		addr(r.af, r.dst);
		if (rnd() % 16 == 0)
			memcpy(r.dst, r.src, 16);
		r.proto = rnd() % 4 ? protos[rnd() % sizeof(protos)] : (uint8_t)rnd();
		r.sport = r.proto == 1 || r.proto == 58 ? 0 : (uint16_t)val(16);
		r.dport = (uint16_t)val(16);
		r.tos = (uint8_t)val(8);
		r.end_reason = rnd() % 8 ? (uint8_t)(1 + rnd() % 5) : (uint8_t)val(8);
		r.vlan = rnd() % 2 ? (uint16_t)(rnd() % 4096) : (uint16_t)val(16);
		r.tcp_flags = (uint8_t)val(8);
		r.first_ns = val(64);
		r.last_ns = val(64);
		r.packets = val(64);
		r.octets = val(64);
		r.l2_octets = val(64);
		if (rnd() % 2) {
			r.flags = GPUDP_FLOW_REC_BIFLOW;
			r.rtcp_flags = (uint8_t)val(8);
			r.rpackets = val(64);
			r.roctets = val(64);
			r.rl2_octets = val(64);
		}
		rc = gpudp_flow_log_write(log, &r);
		if (rc != 0) {
			fprintf(stderr, "flow_log_gen: record %llu: %s\n", i, strerror(-rc));
			return 1;
		}
		fprintf(rf, "%u ", r.af);
		hex(rf, r.src);
		fputc(' ', rf);
		hex(rf, r.dst);
		fprintf(rf, " %u %u %u %u %u %u %u %u %u %llu %llu %llu %llu %llu %llu %llu %llu\n",
			r.sport, r.dport, r.proto, r.tos, r.end_reason, r.vlan, r.tcp_flags,
			r.rtcp_flags, (unsigned int)r.flags, (unsigned long long)r.first_ns,
			(unsigned long long)r.last_ns, (unsigned long long)r.packets,
			(unsigned long long)r.octets, (unsigned long long)r.l2_octets,
			(unsigned long long)r.rpackets, (unsigned long long)r.roctets,
			(unsigned long long)r.rl2_octets);
	}
	rc = gpudp_flow_log_flush(log);
	gpudp_flow_log_stats_get(log, &st);
	if (rc != 0 || st.records != n || st.pending != 0 || st.dropped != 0) {
		fprintf(stderr, "flow_log_gen: flush: %d; %llu of %llu records written, %llu "
			"dropped\n", rc, (unsigned long long)st.records, n,
			(unsigned long long)st.dropped);
		return 1;
	}
	if (gpudp_flow_log_close(log) != 0 || fclose(rf) != 0) {
		fprintf(stderr, "flow_log_gen: close failed\n");
		return 1;
	}
	return 0;
}

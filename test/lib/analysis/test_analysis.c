/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of lib/analysis (parser, flows, counters, filter, pcapng
 * writer) and of gpudp-capture's capture file reader. Pure C, no DPDK.
 * Packets are built field by field with the small builder below.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpudp_capfile.h"
#include "gpudp_analysis.h"
#include "gpudp_analysis_pkt.h"
#include "gpudp_pcapng.h"
#include "gpudp_test.h"

#ifndef CAP_TEST_DATA
#define CAP_TEST_DATA "test/data"
#endif

/* ---- packet builder ---- */

struct pb {
	uint8_t b[4096];
	uint32_t n;
	uint32_t l3;     /* offset of the IP header, for lengths */
};

static void
put8(struct pb *p, uint8_t v)
{
	p->b[p->n++] = v;
}

static void
put16(struct pb *p, uint16_t v)
{
	put8(p, (uint8_t)(v >> 8));
	put8(p, (uint8_t)v);
}

static void
putn(struct pb *p, const void *d, uint32_t n)
{
	memcpy(p->b + p->n, d, n);
	p->n += n;
}

static void
pb_eth(struct pb *p)
{
	static const uint8_t macs[12] = { 2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1 };

	p->n = 0;
	putn(p, macs, 12);
}

static void
pb_ipv4(struct pb *p, uint8_t proto, const char *src, const char *dst, uint16_t frag)
{
	put16(p, 0x0800);
	p->l3 = p->n;
	put8(p, 0x45);
	put8(p, 0);
	put16(p, 0);     /* total length: pb_done */
	put16(p, 1);
	put16(p, frag);
	put8(p, 64);
	put8(p, proto);
	put16(p, 0);
	inet_pton(AF_INET, src, p->b + p->n);
	p->n += 4;
	inet_pton(AF_INET, dst, p->b + p->n);
	p->n += 4;
}

static void
pb_ipv6(struct pb *p, uint8_t nh, const char *src, const char *dst)
{
	put16(p, 0x86dd);
	p->l3 = p->n;
	put8(p, 0x60);
	put8(p, 0);
	put16(p, 0);
	put16(p, 0);     /* payload length: pb_done */
	put8(p, nh);
	put8(p, 64);
	inet_pton(AF_INET6, src, p->b + p->n);
	p->n += 16;
	inet_pton(AF_INET6, dst, p->b + p->n);
	p->n += 16;
}

static void
pb_ports(struct pb *p, uint16_t sport, uint16_t dport, uint32_t hdrlen)
{
	uint32_t i;

	put16(p, sport);
	put16(p, dport);
	for (i = 4; i < hdrlen; i++)
		put8(p, i == 12 && hdrlen == 20 ? 0x50 : 0);
}

static void
pb_done(struct pb *p, uint32_t payload)
{
	uint32_t len;

	memset(p->b + p->n, 0xab, payload);
	p->n += payload;
	len = p->n - p->l3;
	if ((p->b[p->l3] >> 4) == 4) {
		p->b[p->l3 + 2] = (uint8_t)(len >> 8);
		p->b[p->l3 + 3] = (uint8_t)len;
	} else {
		p->b[p->l3 + 4] = (uint8_t)((len - 40) >> 8);
		p->b[p->l3 + 5] = (uint8_t)(len - 40);
	}
}

static void
tcp4(struct pb *p, const char *s, const char *d, uint16_t sp, uint16_t dp, uint32_t payload)
{
	pb_eth(p);
	pb_ipv4(p, 6, s, d, 0);
	pb_ports(p, sp, dp, 20);
	pb_done(p, payload);
}

/* ---- parser ---- */

static int
parse_ipv4_tcp_ports(void)
{
	struct gpudp_pkt_info pi;
	struct pb p;

	tcp4(&p, "10.0.0.1", "10.0.0.2", 40000, 80, 10);
	gpudp_pkt_parse(p.b, p.n, &pi);
	GPUDP_TEST_ASSERT(pi.status == GPUDP_PKT_OK, "status %u", pi.status);
	GPUDP_TEST_ASSERT(pi.af == 4 && pi.l4proto == 6 && pi.has_ports, "af %u proto %u",
			  pi.af, pi.l4proto);
	GPUDP_TEST_ASSERT(pi.sport == 40000 && pi.dport == 80, "ports %u %u", pi.sport, pi.dport);
	GPUDP_TEST_ASSERT(pi.src[3] == 1 && pi.dst[3] == 2, "addresses");
	GPUDP_TEST_ASSERT(pi.ip_len == 50, "ip_len %u", pi.ip_len);
	return GPUDP_TEST_PASS;
}

static int
parse_vlan_and_qinq_tags(void)
{
	struct gpudp_pkt_info pi;
	struct pb p;

	pb_eth(&p);
	put16(&p, 0x88a8);
	put16(&p, 200);
	put16(&p, 0x8100);
	put16(&p, 0x2000 | 300); /* PCP bits must not leak into the ID */
	pb_ipv4(&p, 17, "10.0.0.1", "10.0.0.2", 0);
	pb_ports(&p, 5000, 53, 8);
	pb_done(&p, 4);
	gpudp_pkt_parse(p.b, p.n, &pi);
	GPUDP_TEST_ASSERT(pi.status == GPUDP_PKT_OK && pi.n_vlan == 2, "status %u tags %u",
			  pi.status, pi.n_vlan);
	GPUDP_TEST_ASSERT(pi.vlan_id[0] == 200 && pi.vlan_id[1] == 300, "ids %u %u",
			  pi.vlan_id[0], pi.vlan_id[1]);
	GPUDP_TEST_ASSERT(pi.l4proto == 17 && pi.dport == 53, "udp after tags");
	return GPUDP_TEST_PASS;
}

static int
parse_ipv6_extension_chain(void)
{
	struct gpudp_pkt_info pi;
	struct pb p;
	uint32_t i;

	pb_eth(&p);
	pb_ipv6(&p, 0, "fd00::1", "fd00::2");
	/* hop-by-hop (8 bytes) -> destination options (16 bytes) -> routing (8) -> TCP */
	put8(&p, 60);
	put8(&p, 0);
	for (i = 0; i < 6; i++)
		put8(&p, 0);
	put8(&p, 43);
	put8(&p, 1);
	for (i = 0; i < 14; i++)
		put8(&p, 0);
	put8(&p, 6);
	put8(&p, 0);
	for (i = 0; i < 6; i++)
		put8(&p, 0);
	pb_ports(&p, 1234, 443, 20);
	pb_done(&p, 0);
	gpudp_pkt_parse(p.b, p.n, &pi);
	GPUDP_TEST_ASSERT(pi.status == GPUDP_PKT_OK, "status %u", pi.status);
	GPUDP_TEST_ASSERT(pi.af == 6 && pi.has_ext && pi.l4proto == 6, "af %u ext %u proto %u",
			  pi.af, pi.has_ext, pi.l4proto);
	GPUDP_TEST_ASSERT(pi.sport == 1234 && pi.dport == 443, "ports %u %u", pi.sport, pi.dport);
	return GPUDP_TEST_PASS;
}

static int
parse_fragments_have_ports_only_in_first(void)
{
	struct gpudp_pkt_info pi;
	struct pb p;

	/* IPv4 first fragment (MF) has the UDP header; a later one has none */
	pb_eth(&p);
	pb_ipv4(&p, 17, "10.0.0.1", "10.0.0.2", 0x2000);
	pb_ports(&p, 7, 9, 8);
	pb_done(&p, 16);
	gpudp_pkt_parse(p.b, p.n, &pi);
	GPUDP_TEST_ASSERT(pi.is_frag && pi.has_ports && pi.dport == 9, "first v4 fragment");
	pb_eth(&p);
	pb_ipv4(&p, 17, "10.0.0.1", "10.0.0.2", 0x0003);
	pb_done(&p, 16);
	gpudp_pkt_parse(p.b, p.n, &pi);
	GPUDP_TEST_ASSERT(pi.status == GPUDP_PKT_OK && pi.is_frag && !pi.has_ports &&
			  !pi.has_l4, "later v4 fragment: ports %u l4 %u", pi.has_ports, pi.has_l4);
	/* IPv6 fragment header, offset 0 then offset 1448 */
	pb_eth(&p);
	pb_ipv6(&p, 44, "fd00::1", "fd00::2");
	put8(&p, 58);
	put8(&p, 0);
	put16(&p, 0x0001);
	put16(&p, 0);
	put16(&p, 7);
	put8(&p, 128);
	put8(&p, 0);
	put16(&p, 0);
	pb_done(&p, 8);
	gpudp_pkt_parse(p.b, p.n, &pi);
	GPUDP_TEST_ASSERT(pi.is_frag && pi.has_l4 && pi.l4proto == 58, "first v6 fragment");
	pb_eth(&p);
	pb_ipv6(&p, 44, "fd00::1", "fd00::2");
	put8(&p, 58);
	put8(&p, 0);
	put16(&p, 1448);
	put16(&p, 0);
	put16(&p, 7);
	pb_done(&p, 8);
	gpudp_pkt_parse(p.b, p.n, &pi);
	GPUDP_TEST_ASSERT(pi.is_frag && !pi.has_l4 && pi.l4proto == 58 &&
			  pi.status == GPUDP_PKT_OK, "later v6 fragment");
	return GPUDP_TEST_PASS;
}

static int
parse_truncated_prefixes_never_ok(void)
{
	struct gpudp_pkt_info pi;
	struct pb p;
	uint32_t len, full;

	/* every prefix shorter than Ethernet + tag + IPv6 + TCP headers is truncated */
	pb_eth(&p);
	put16(&p, 0x8100);
	put16(&p, 5);
	pb_ipv6(&p, 6, "fd00::1", "fd00::2");
	pb_ports(&p, 1, 2, 20);
	full = p.n;
	pb_done(&p, 0);
	for (len = 0; len < full; len++) {
		gpudp_pkt_parse(p.b, len, &pi);
		GPUDP_TEST_ASSERT(pi.status == GPUDP_PKT_TRUNCATED, "length %u: status %u", len,
				  pi.status);
	}
	gpudp_pkt_parse(p.b, full, &pi);
	GPUDP_TEST_ASSERT(pi.status == GPUDP_PKT_OK, "full length: status %u", pi.status);
	return GPUDP_TEST_PASS;
}

static int
parse_malformed_ip_headers(void)
{
	struct gpudp_pkt_info pi;
	struct pb p;

	tcp4(&p, "10.0.0.1", "10.0.0.2", 1, 2, 0);
	p.b[14] = 0x65; /* version 6 in an IPv4 EtherType */
	gpudp_pkt_parse(p.b, p.n, &pi);
	GPUDP_TEST_ASSERT(pi.status == GPUDP_PKT_MALFORMED, "version: status %u", pi.status);
	tcp4(&p, "10.0.0.1", "10.0.0.2", 1, 2, 0);
	p.b[14] = 0x44; /* IHL 4 */
	gpudp_pkt_parse(p.b, p.n, &pi);
	GPUDP_TEST_ASSERT(pi.status == GPUDP_PKT_MALFORMED, "ihl: status %u", pi.status);
	tcp4(&p, "10.0.0.1", "10.0.0.2", 1, 2, 0);
	p.b[16] = 0;
	p.b[17] = 10; /* total length below the header length */
	gpudp_pkt_parse(p.b, p.n, &pi);
	GPUDP_TEST_ASSERT(pi.status == GPUDP_PKT_MALFORMED, "total length: status %u", pi.status);
	return GPUDP_TEST_PASS;
}

/* ---- parser: what tshark reads too ---- */

/* Set the data offset of the TCP header at @p off (its options are the caller's). */
static void
tcp_doff(struct pb *p, uint32_t off, uint8_t words)
{
	p->b[off + 12] = (uint8_t)(words << 4);
}

static int
parse_tcp_data_offset_below_5_is_malformed(void)
{
	struct gpudp_pkt_info pi;
	struct pb p;
	uint8_t w;

	for (w = 0; w < 5; w++) {
		tcp4(&p, "10.0.0.1", "10.0.0.2", 1, 2, 20);
		tcp_doff(&p, 34, w);
		gpudp_pkt_parse(p.b, p.n, &pi);
		GPUDP_TEST_ASSERT(pi.status == GPUDP_PKT_MALFORMED && !pi.has_l4 && !pi.has_ports,
				  "data offset %u: status %u l4 %u", w, pi.status, pi.has_l4);
		/* the IP layer is whole: it still counts as IPv4 TCP */
		GPUDP_TEST_ASSERT(pi.af == 4 && pi.l4proto == 6, "data offset %u: af %u proto %u",
				  w, pi.af, pi.l4proto);
	}
	return GPUDP_TEST_PASS;
}

static int
parse_tcp_header_past_the_datagram_is_malformed(void)
{
	struct gpudp_pkt_info pi;
	struct pb p;

	/* 60 bytes of header in a 30-byte segment */
	tcp4(&p, "10.0.0.1", "10.0.0.2", 1, 2, 10);
	tcp_doff(&p, 34, 15);
	gpudp_pkt_parse(p.b, p.n, &pi);
	GPUDP_TEST_ASSERT(pi.status == GPUDP_PKT_MALFORMED, "30-byte segment: status %u",
			  pi.status);
	/* 24 bytes of header in a 20-byte segment, the frame padded to 60
	 * bytes: Ethernet padding is no part of the datagram */
	tcp4(&p, "10.0.0.1", "10.0.0.2", 1, 2, 0);
	tcp_doff(&p, 34, 6);
	memset(p.b + p.n, 0, 60 - p.n);
	gpudp_pkt_parse(p.b, 60, &pi);
	GPUDP_TEST_ASSERT(pi.status == GPUDP_PKT_MALFORMED, "padded frame: status %u", pi.status);
	/* the same in IPv6 */
	pb_eth(&p);
	pb_ipv6(&p, 6, "fd00::1", "fd00::2");
	pb_ports(&p, 1, 2, 20);
	tcp_doff(&p, 54, 8);
	pb_done(&p, 4);
	gpudp_pkt_parse(p.b, p.n, &pi);
	GPUDP_TEST_ASSERT(pi.status == GPUDP_PKT_MALFORMED, "ipv6: status %u", pi.status);
	return GPUDP_TEST_PASS;
}

static int
parse_tcp_options_cut_by_the_capture_are_truncated(void)
{
	struct gpudp_pkt_info pi;
	struct pb p;
	uint32_t len;

	/* a 32-byte header and 10 bytes of data: any capture of fewer than
	 * 34 + 32 bytes cuts the header */
	pb_eth(&p);
	pb_ipv4(&p, 6, "10.0.0.1", "10.0.0.2", 0);
	pb_ports(&p, 1, 2, 32);
	tcp_doff(&p, 34, 8);
	pb_done(&p, 10);
	for (len = 34 + 20; len < 34 + 32; len++) {
		gpudp_pkt_parse(p.b, len, &pi);
		GPUDP_TEST_ASSERT(pi.status == GPUDP_PKT_TRUNCATED && !pi.has_ports,
				  "%u bytes: status %u", len, pi.status);
	}
	gpudp_pkt_parse(p.b, 34 + 32, &pi);
	GPUDP_TEST_ASSERT(pi.status == GPUDP_PKT_OK && pi.has_ports && pi.dport == 2,
			  "whole header: status %u", pi.status);
	return GPUDP_TEST_PASS;
}

static int
parse_tcp_first_fragment_header_may_go_on(void)
{
	struct gpudp_pkt_info pi;
	struct pb p;

	/* a first fragment of 24 payload bytes whose TCP header says 40: the
	 * rest is in the next fragment, not an impossible offset */
	pb_eth(&p);
	pb_ipv4(&p, 6, "10.0.0.1", "10.0.0.2", 0x2000);
	pb_ports(&p, 1, 2, 24);
	tcp_doff(&p, 34, 10);
	pb_done(&p, 0);
	memset(p.b + p.n, 0, 100);
	gpudp_pkt_parse(p.b, p.n + 100, &pi);
	GPUDP_TEST_ASSERT(pi.status == GPUDP_PKT_OK && pi.is_frag && pi.has_ports,
			  "status %u frag %u", pi.status, pi.is_frag);
	/* as the last fragment too it would be */
	p.b[20] = 0;
	gpudp_pkt_parse(p.b, p.n + 100, &pi);
	GPUDP_TEST_ASSERT(pi.status == GPUDP_PKT_MALFORMED, "whole datagram: status %u",
			  pi.status);
	return GPUDP_TEST_PASS;
}

/* An IPv4 packet with AH (24 bytes: a 12-byte ICV) carrying protocol nh. */
static void
ah4(struct pb *p, uint8_t nh, uint16_t frag)
{
	uint32_t i;

	pb_eth(p);
	pb_ipv4(p, 51, "10.0.0.1", "10.0.0.2", frag);
	put8(p, nh);
	put8(p, 24 / 4 - 2);
	put16(p, 0);
	for (i = 0; i < 20; i++)
		put8(p, (uint8_t)i);
}

static int
parse_ipv4_ah_is_skipped(void)
{
	struct gpudp_pkt_info pi;
	struct pb p;
	uint32_t off, len;

	ah4(&p, 17, 0);
	pb_ports(&p, 5100, 5200, 8);
	pb_done(&p, 30);
	gpudp_pkt_parse(p.b, p.n, &pi);
	GPUDP_TEST_ASSERT(pi.status == GPUDP_PKT_OK && pi.af == 4 && pi.l4proto == 17 &&
			  pi.has_ports && pi.sport == 5100 && pi.dport == 5200,
			  "status %u proto %u ports %u %u", pi.status, pi.l4proto, pi.sport,
			  pi.dport);
	GPUDP_TEST_ASSERT(pi.l4_off == 34 + 24 && !pi.has_ext, "l4 at %u", pi.l4_off);
	off = gpudp_pkt_payload(p.b, p.n, &pi, &len);
	GPUDP_TEST_ASSERT(off == 34 + 24 + 8 && len == 30, "payload %u+%u", off, len);
	/* cut inside AH: truncated, still AH */
	gpudp_pkt_parse(p.b, 34 + 7, &pi);
	GPUDP_TEST_ASSERT(pi.status == GPUDP_PKT_TRUNCATED && pi.l4proto == 51,
			  "cut: status %u proto %u", pi.status, pi.l4proto);
	return GPUDP_TEST_PASS;
}

static int
parse_ipv4_ah_fragment_keyed_by_ip_protocol(void)
{
	struct gpudp_pkt_info pi;
	struct pb p;

	/* a first fragment: TCP after AH, the datagram keyed by protocol 51 as
	 * its later fragments, which have no AH, are */
	ah4(&p, 6, 0x2000);
	pb_ports(&p, 1, 443, 20);
	pb_done(&p, 16);
	gpudp_pkt_parse(p.b, p.n, &pi);
	GPUDP_TEST_ASSERT(pi.status == GPUDP_PKT_OK && pi.is_frag && pi.frag_first &&
			  pi.frag_proto == 51 && pi.l4proto == 6 && pi.dport == 443,
			  "status %u frag proto %u proto %u", pi.status, pi.frag_proto, pi.l4proto);
	return GPUDP_TEST_PASS;
}

/* IEEE 802.3 with LLC/SNAP (OUI 00-00-00): then pb_ipv4/pb_ipv6 write the EtherType. */
static void
pb_snap(struct pb *p)
{
	static const uint8_t snap[6] = { 0xaa, 0xaa, 3, 0, 0, 0 };

	pb_eth(p);
	put16(p, 0);     /* the 802.3 length: pb_len8023 */
	putn(p, snap, sizeof(snap));
}

static void
pb_len8023(struct pb *p)
{
	p->b[12] = (uint8_t)((p->n - 14) >> 8);
	p->b[13] = (uint8_t)(p->n - 14);
}

static int
parse_llc_snap_carries_ip(void)
{
	struct gpudp_pkt_info pi;
	struct pb p;

	pb_snap(&p);
	pb_ipv4(&p, 17, "10.0.0.1", "10.0.0.2", 0);
	pb_ports(&p, 53, 5353, 8);
	pb_done(&p, 4);
	pb_len8023(&p);
	gpudp_pkt_parse(p.b, p.n, &pi);
	GPUDP_TEST_ASSERT(pi.status == GPUDP_PKT_OK && pi.af == 4 && pi.l3_off == 22 &&
			  pi.ethertype == 0x0800 && pi.dport == 5353,
			  "ipv4: status %u af %u l3 %u", pi.status, pi.af, pi.l3_off);
	pb_snap(&p);
	pb_ipv6(&p, 17, "fd00::1", "fd00::2");
	pb_ports(&p, 53, 5353, 8);
	pb_done(&p, 4);
	pb_len8023(&p);
	gpudp_pkt_parse(p.b, p.n, &pi);
	GPUDP_TEST_ASSERT(pi.status == GPUDP_PKT_OK && pi.af == 6 && pi.l3_off == 22,
			  "ipv6: status %u af %u", pi.status, pi.af);
	/* OUI 00-00-F8 (802.1H) the same; another OUI is no EtherType */
	p.b[19] = 0xf8;
	gpudp_pkt_parse(p.b, p.n, &pi);
	GPUDP_TEST_ASSERT(pi.af == 6, "802.1h: af %u", pi.af);
	p.b[19] = 0x0c;
	gpudp_pkt_parse(p.b, p.n, &pi);
	GPUDP_TEST_ASSERT(pi.status == GPUDP_PKT_OK && pi.af == 0, "cisco oui: af %u", pi.af);
	/* LLC without SNAP (spanning tree): no layer 3 the parser knows */
	p.b[14] = p.b[15] = 0x42;
	gpudp_pkt_parse(p.b, p.n, &pi);
	GPUDP_TEST_ASSERT(pi.status == GPUDP_PKT_OK && pi.af == 0 && pi.ethertype <= 1500,
			  "stp: af %u ethertype %#x", pi.af, pi.ethertype);
	return GPUDP_TEST_PASS;
}

/* A PPPoE session header (then pb_ipv4/pb_ipv6; pb_ppp sets PPP's protocol). */
static void
pb_pppoe(struct pb *p, uint16_t tag)
{
	pb_eth(p);
	if (tag != 0) {
		put16(p, 0x8100);
		put16(p, tag);
	}
	put16(p, 0x8864);
	put8(p, 0x11);
	put8(p, 0);
	put16(p, 0x2a);
	put16(p, 0);     /* its length: not read */
}

static void
pb_ppp(struct pb *p, uint16_t proto)
{
	p->b[p->l3 - 2] = (uint8_t)(proto >> 8);
	p->b[p->l3 - 1] = (uint8_t)proto;
}

static int
parse_pppoe_session_carries_ip(void)
{
	struct gpudp_pkt_info pi;
	struct pb p;
	uint32_t len;

	pb_pppoe(&p, 0);
	pb_ipv4(&p, 6, "10.0.0.1", "10.0.0.2", 0);
	pb_ppp(&p, 0x0021);
	pb_ports(&p, 40000, 80, 20);
	pb_done(&p, 0);
	gpudp_pkt_parse(p.b, p.n, &pi);
	GPUDP_TEST_ASSERT(pi.status == GPUDP_PKT_OK && pi.af == 4 && pi.l3_off == 22 &&
			  pi.ethertype == 0x0800 && pi.dport == 80,
			  "ipv4: status %u af %u l3 %u", pi.status, pi.af, pi.l3_off);
	pb_pppoe(&p, 42);
	pb_ipv6(&p, 17, "fd00::1", "fd00::2");
	pb_ppp(&p, 0x0057);
	pb_ports(&p, 1, 2, 8);
	pb_done(&p, 0);
	gpudp_pkt_parse(p.b, p.n, &pi);
	GPUDP_TEST_ASSERT(pi.status == GPUDP_PKT_OK && pi.af == 6 && pi.l3_off == 26 &&
			  pi.n_vlan == 1 && pi.vlan_id[0] == 42, "tagged ipv6: status %u af %u",
			  pi.status, pi.af);
	/* LCP, and a version other than 1: no IP */
	pb_ppp(&p, 0xc021);
	gpudp_pkt_parse(p.b, p.n, &pi);
	GPUDP_TEST_ASSERT(pi.status == GPUDP_PKT_OK && pi.af == 0 && pi.ethertype == 0x8864,
			  "lcp: af %u ethertype %#x", pi.af, pi.ethertype);
	pb_ppp(&p, 0x0057);
	p.b[18] = 0x21;
	gpudp_pkt_parse(p.b, p.n, &pi);
	GPUDP_TEST_ASSERT(pi.af == 0, "version 2: af %u", pi.af);
	/* the PPPoE header and PPP's protocol cut short */
	for (len = 18; len < 18 + 8; len++) {
		gpudp_pkt_parse(p.b, len, &pi);
		GPUDP_TEST_ASSERT(pi.status == GPUDP_PKT_TRUNCATED, "%u bytes: status %u", len,
				  pi.status);
	}
	return GPUDP_TEST_PASS;
}

/* Append IPv4 options (whole words) to the header pb_ipv4 wrote. */
static void
pb_ipv4_opts(struct pb *p, const uint8_t *o, uint32_t n)
{
	putn(p, o, n);
	p->b[p->l3] = (uint8_t)(0x40 | (20 + n) / 4);
}

static int
parse_ipv4_source_route_final_destination(void)
{
	/* option bytes (with their padding), and the last byte of the
	 * destination the parser must give: the header's is 10.0.0.254 */
	static const struct {
		uint8_t o[16];
		uint32_t n;
		uint8_t dst;
	} c[] = {
		/* loose, two addresses left: the last one */
		{ { 131, 11, 4, 10, 0, 0, 253, 10, 0, 0, 2, 0 }, 12, 2 },
		/* strict, the pointer on the last address */
		{ { 137, 11, 8, 10, 0, 0, 253, 10, 0, 0, 2, 0 }, 12, 2 },
		/* used up (the pointer past the route): the header's */
		{ { 131, 11, 12, 10, 0, 0, 253, 10, 0, 0, 2, 0 }, 12, 254 },
		/* a pointer inside an address, or before the first */
		{ { 131, 11, 5, 10, 0, 0, 253, 10, 0, 0, 2, 0 }, 12, 254 },
		{ { 131, 11, 3, 10, 0, 0, 253, 10, 0, 0, 2, 0 }, 12, 254 },
		/* a length that is no whole number of addresses */
		{ { 131, 10, 4, 10, 0, 0, 253, 10, 0, 0, 0, 0 }, 12, 254 },
		/* after a no-operation and a record route option */
		{ { 1, 7, 7, 4, 0, 0, 0, 0, 131, 7, 4, 10, 0, 0, 3, 0 }, 16, 3 },
		/* after an option whose length runs past the header: not read */
		{ { 7, 40, 4, 0, 131, 7, 4, 10, 0, 0, 3, 0 }, 12, 254 },
		/* after the end of the option list */
		{ { 0, 0, 0, 0, 131, 7, 4, 10, 0, 0, 3, 0 }, 12, 254 },
	};
	struct gpudp_pkt_info pi;
	struct pb p;
	uint32_t i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		pb_eth(&p);
		pb_ipv4(&p, 17, "10.0.0.1", "10.0.0.254", 0);
		pb_ipv4_opts(&p, c[i].o, c[i].n);
		pb_ports(&p, 1, 2, 8);
		pb_done(&p, 4);
		gpudp_pkt_parse(p.b, p.n, &pi);
		GPUDP_TEST_ASSERT(pi.status == GPUDP_PKT_OK && pi.dport == 2,
				  "case %u: status %u", i, pi.status);
		GPUDP_TEST_ASSERT(pi.dst[0] == 10 && pi.dst[3] == c[i].dst && pi.src[3] == 1,
				  "case %u: destination ends in %u, want %u", i, pi.dst[3],
				  c[i].dst);
	}
	return GPUDP_TEST_PASS;
}

/* An IPv6 packet from fd00::1 to fd00::100 with a routing header of type @p t,
 * @p left segments left and the addresses fd00::a0 + k (k < n), then UDP. */
static void
routed6(struct pb *p, uint8_t t, uint8_t left, uint32_t n)
{
	uint32_t k, i;

	pb_eth(p);
	pb_ipv6(p, 43, "fd00::1", "fd00::100");
	put8(p, 17);
	put8(p, (uint8_t)(2 * n));
	put8(p, t);
	put8(p, left);
	put8(p, t == 4 ? (uint8_t)(n - 1) : 0);
	put8(p, 0);
	put16(p, 0);
	for (k = 0; k < n; k++) {
		for (i = 0; i < 15; i++)
			put8(p, i == 0 ? 0xfd : 0);
		put8(p, (uint8_t)(0xa0 + k));
	}
	pb_ports(p, 1, 2, 8);
	pb_done(p, 4);
}

static int
parse_ipv6_routing_header_final_destination(void)
{
	/* type, segments left, addresses, the last byte of the final destination */
	static const uint8_t c[][4] = {
		{ 4, 1, 2, 0xa0 },    /* SRH: segment 0 */
		{ 4, 0, 2, 0x00 },    /* none left: the header's (fd00::100) */
		{ 0, 2, 3, 0xa2 },    /* type 0: the last address */
		{ 2, 1, 1, 0xa0 },    /* type 2: the home address */
		{ 3, 1, 2, 0x00 },    /* type 3 (RPL, compressed): the header's */
	};
	struct gpudp_pkt_info pi;
	struct pb p;
	uint32_t i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		routed6(&p, c[i][0], c[i][1], c[i][2]);
		gpudp_pkt_parse(p.b, p.n, &pi);
		GPUDP_TEST_ASSERT(pi.status == GPUDP_PKT_OK && pi.dport == 2 && pi.has_ext,
				  "case %u: status %u", i, pi.status);
		GPUDP_TEST_ASSERT(pi.dst[0] == 0xfd && pi.dst[15] == c[i][3] &&
				  pi.dst[14] == (c[i][3] == 0 ? 1 : 0),
				  "case %u: destination ends in %02x%02x", i, pi.dst[14], pi.dst[15]);
	}
	/* the address the final destination is in, cut by the capture */
	routed6(&p, 0, 1, 3);
	gpudp_pkt_parse(p.b, 14 + 40 + 8 + 2 * 16 + 15, &pi);
	GPUDP_TEST_ASSERT(pi.status == GPUDP_PKT_TRUNCATED, "cut: status %u", pi.status);
	return GPUDP_TEST_PASS;
}

static int
parse_routing_header_after_fragment_header_is_not_followed(void)
{
	struct gpudp_pkt_info pi;
	struct pb p;
	uint32_t i;

	/* a first fragment whose routing header is in the fragmentable part:
	 * its later fragments could not say where it goes, so neither does it */
	pb_eth(&p);
	pb_ipv6(&p, 44, "fd00::1", "fd00::100");
	put8(&p, 43);
	put8(&p, 0);
	put16(&p, 0x0001);
	put16(&p, 0);
	put16(&p, 9);
	put8(&p, 17);
	put8(&p, 2);
	put8(&p, 4);
	put8(&p, 1);
	put8(&p, 0);
	put8(&p, 0);
	put16(&p, 0);
	for (i = 0; i < 16; i++)
		put8(&p, i == 0 ? 0xfd : i == 15 ? 0xa0 : 0);
	pb_ports(&p, 1, 2, 8);
	pb_done(&p, 8);
	gpudp_pkt_parse(p.b, p.n, &pi);
	GPUDP_TEST_ASSERT(pi.status == GPUDP_PKT_OK && pi.is_frag && pi.dport == 2,
			  "status %u", pi.status);
	GPUDP_TEST_ASSERT(pi.dst[14] == 1 && pi.dst[15] == 0, "destination ends in %02x%02x",
			  pi.dst[14], pi.dst[15]);
	return GPUDP_TEST_PASS;
}

static int
source_routed_flow_joins_its_reply(void)
{
	static const uint8_t lsrr[] = { 131, 11, 4, 10, 0, 0, 253, 10, 0, 0, 2, 0 };
	struct gpudp_analysis *a = gpudp_analysis_create(0, NULL);
	struct gpudp_flow_record *fl;
	struct gpudp_talker *t;
	struct pb p;
	size_t n, nt, i;

	GPUDP_TEST_ASSERT(a != NULL, "create");
	/* on its way to 10.0.0.254, then 10.0.0.253, then 10.0.0.2 */
	pb_eth(&p);
	pb_ipv4(&p, 17, "10.0.0.1", "10.0.0.254", 0);
	pb_ipv4_opts(&p, lsrr, sizeof(lsrr));
	pb_ports(&p, 5400, 5401, 8);
	pb_done(&p, 20);
	gpudp_analysis_packet(a, p.b, p.n, p.n, 1);
	pb_eth(&p);
	pb_ipv4(&p, 17, "10.0.0.2", "10.0.0.1", 0);
	pb_ports(&p, 5401, 5400, 8);
	pb_done(&p, 20);
	gpudp_analysis_packet(a, p.b, p.n, p.n, 2);
	GPUDP_TEST_ASSERT(gpudp_analysis_flows(a, &fl, &n) == 0 && n == 1, "flows %zu", n);
	GPUDP_TEST_ASSERT(fl[0].pkts[0] == 1 && fl[0].pkts[1] == 1 &&
			  fl[0].key.addr[0][3] == 1 && fl[0].key.addr[1][3] == 2,
			  "flow %u <-> %u", fl[0].key.addr[0][3], fl[0].key.addr[1][3]);
	free(fl);
	/* the next hop is no talker */
	GPUDP_TEST_ASSERT(gpudp_analysis_talkers(a, &t, &nt) == 0 && nt == 2, "talkers %zu", nt);
	for (i = 0; i < nt; i++)
		GPUDP_TEST_ASSERT(t[i].addr[3] == 1 || t[i].addr[3] == 2, "talker .%u",
				  t[i].addr[3]);
	free(t);
	gpudp_analysis_free(a);
	return GPUDP_TEST_PASS;
}

static int
encapsulated_ip_counts_as_ip(void)
{
	struct gpudp_analysis *a = gpudp_analysis_create(0, NULL);
	const struct gpudp_an_counters *c;
	struct gpudp_flow_record *fl;
	struct pb p;
	size_t n;

	GPUDP_TEST_ASSERT(a != NULL, "create");
	pb_snap(&p);
	pb_ipv4(&p, 17, "10.0.0.1", "10.0.0.2", 0);
	pb_ports(&p, 1, 2, 8);
	pb_done(&p, 4);
	pb_len8023(&p);
	gpudp_analysis_packet(a, p.b, p.n, p.n, 0);
	pb_pppoe(&p, 0);
	pb_ipv6(&p, 17, "fd00::1", "fd00::2");
	pb_ppp(&p, 0x0057);
	pb_ports(&p, 1, 2, 8);
	pb_done(&p, 4);
	gpudp_analysis_packet(a, p.b, p.n, p.n, 0);
	pb_ppp(&p, 0xc021);                                            /* LCP */
	gpudp_analysis_packet(a, p.b, p.n, p.n, 0);
	c = &a->ctr;
	GPUDP_TEST_ASSERT(c->proto_pkts[GPUDP_AN_PROTO_IPV4] == 1 &&
			  c->proto_pkts[GPUDP_AN_PROTO_IPV6] == 1 &&
			  c->proto_pkts[GPUDP_AN_PROTO_UDP] == 2, "ipv4 %llu ipv6 %llu udp %llu",
			  (unsigned long long)c->proto_pkts[GPUDP_AN_PROTO_IPV4],
			  (unsigned long long)c->proto_pkts[GPUDP_AN_PROTO_IPV6],
			  (unsigned long long)c->proto_pkts[GPUDP_AN_PROTO_UDP]);
	GPUDP_TEST_ASSERT(c->proto_pkts[GPUDP_AN_PROTO_OTHER_L3] == 1, "other_l3 %llu",
			  (unsigned long long)c->proto_pkts[GPUDP_AN_PROTO_OTHER_L3]);
	GPUDP_TEST_ASSERT(gpudp_analysis_flows(a, &fl, &n) == 0 && n == 2, "flows %zu", n);
	free(fl);
	gpudp_analysis_free(a);
	return GPUDP_TEST_PASS;
}

static int
original_length_below_captured_counts_as_is(void)
{
	struct gpudp_analysis *a = gpudp_analysis_create(0, NULL);
	struct gpudp_flow_record *fl;
	struct pb p;
	size_t n;

	GPUDP_TEST_ASSERT(a != NULL, "create");
	/* a 154-byte record whose original length says 60 (tshark's frame.len) */
	tcp4(&p, "10.0.0.1", "10.0.0.2", 40000, 80, 100);
	gpudp_analysis_packet(a, p.b, p.n, 60, 0);
	GPUDP_TEST_ASSERT(a->ctr.bytes == 60 && a->ctr.caplen_bytes == p.n,
			  "bytes %llu captured %llu", (unsigned long long)a->ctr.bytes,
			  (unsigned long long)a->ctr.caplen_bytes);
	GPUDP_TEST_ASSERT(a->ctr.size_hist[0] == 1 && a->ctr.proto_bytes[GPUDP_AN_PROTO_TCP] == 60,
			  "histogram bucket 0: %llu", (unsigned long long)a->ctr.size_hist[0]);
	GPUDP_TEST_ASSERT(gpudp_analysis_flows(a, &fl, &n) == 0 && n == 1 &&
			  fl[0].bytes[0] + fl[0].bytes[1] == 60, "flows %zu", n);
	free(fl);
	gpudp_analysis_free(a);
	return GPUDP_TEST_PASS;
}

/* ---- flows and counters ---- */

static int
flow_key_is_bidirectional(void)
{
	struct gpudp_pkt_info a, b;
	struct gpudp_flow_key ka, kb;
	struct pb p;
	uint32_t da, db;

	tcp4(&p, "10.0.0.9", "10.0.0.2", 40000, 80, 0);
	gpudp_pkt_parse(p.b, p.n, &a);
	tcp4(&p, "10.0.0.2", "10.0.0.9", 80, 40000, 0);
	gpudp_pkt_parse(p.b, p.n, &b);
	da = gpudp_flow_key_make(&a, &ka);
	db = gpudp_flow_key_make(&b, &kb);
	GPUDP_TEST_ASSERT(gpudp_flow_key_eq(&ka, &kb), "keys differ");
	GPUDP_TEST_ASSERT(da != db, "directions %u %u", da, db);
	GPUDP_TEST_ASSERT(ka.addr[0][3] == 2 && ka.port[0] == 80, "endpoint 0 is the lower address");
	GPUDP_TEST_ASSERT(gpudp_flow_hash(&ka) == gpudp_flow_hash(&kb), "hashes differ");
	return GPUDP_TEST_PASS;
}

static int
flow_counts_each_direction(void)
{
	struct gpudp_analysis *a = gpudp_analysis_create(0, NULL);
	struct gpudp_flow_record *fl;
	struct pb p;
	size_t n;
	int i;

	GPUDP_TEST_ASSERT(a != NULL, "create");
	for (i = 0; i < 3; i++) {
		tcp4(&p, "10.0.0.1", "10.0.0.2", 40000, 80, 100);
		gpudp_analysis_packet(a, p.b, p.n, p.n, 1000 + i);
	}
	tcp4(&p, "10.0.0.2", "10.0.0.1", 80, 40000, 1000);
	gpudp_analysis_packet(a, p.b, p.n, p.n, 500);
	tcp4(&p, "10.0.0.2", "10.0.0.1", 80, 40001, 0);
	gpudp_analysis_packet(a, p.b, p.n, p.n, 9);
	GPUDP_TEST_ASSERT(gpudp_analysis_flows(a, &fl, &n) == 0 && n == 2, "flows %zu", n);
	/* sorted by bytes: the 4-packet flow first; endpoint 0 is 10.0.0.1 */
	GPUDP_TEST_ASSERT(fl[0].pkts[0] == 3 && fl[0].pkts[1] == 1, "packets %llu %llu",
			  (unsigned long long)fl[0].pkts[0], (unsigned long long)fl[0].pkts[1]);
	GPUDP_TEST_ASSERT(fl[0].bytes[0] == 3 * 154u && fl[0].bytes[1] == 1054u, "bytes %llu %llu",
			  (unsigned long long)fl[0].bytes[0], (unsigned long long)fl[0].bytes[1]);
	GPUDP_TEST_ASSERT(fl[0].first_ts == 500 && fl[0].last_ts == 1002, "times %llu %llu",
			  (unsigned long long)fl[0].first_ts, (unsigned long long)fl[0].last_ts);
	GPUDP_TEST_ASSERT(fl[1].pkts[0] + fl[1].pkts[1] == 1, "second flow");
	free(fl);
	gpudp_analysis_free(a);
	return GPUDP_TEST_PASS;
}

static int
flow_table_full_is_counted(void)
{
	struct gpudp_analysis *a = gpudp_analysis_create(16, NULL);
	struct gpudp_flow_record *fl;
	struct pb p;
	size_t n;
	int i;

	GPUDP_TEST_ASSERT(a != NULL && a->flow_mask == 15, "create");
	for (i = 0; i < 20; i++) {
		tcp4(&p, "10.0.0.1", "10.0.0.2", (uint16_t)(1000 + i), 80, 0);
		gpudp_analysis_packet(a, p.b, p.n, p.n, 0);
	}
	GPUDP_TEST_ASSERT(a->ctr.drops[GPUDP_AN_DROP_FLOW_FULL] == 4, "drops %llu",
			  (unsigned long long)a->ctr.drops[GPUDP_AN_DROP_FLOW_FULL]);
	GPUDP_TEST_ASSERT(a->ctr.pkts == 20, "packets still counted");
	GPUDP_TEST_ASSERT(gpudp_analysis_flows(a, &fl, &n) == 0 && n == 16, "flows %zu", n);
	free(fl);
	gpudp_analysis_free(a);
	return GPUDP_TEST_PASS;
}

/* ---- fragments (doc/capture.md, "Fragments") ---- */

/* An IPv4 fragment of datagram id: offset in 8-byte units, MF, payload
 * bytes; a first fragment (off8 0) starts with a UDP header of sport/dport. */
static void
frag4(struct pb *p, const char *s, const char *d, uint16_t id, uint16_t off8, int more,
      uint16_t sport, uint16_t dport, uint32_t payload)
{
	pb_eth(p);
	pb_ipv4(p, 17, s, d, (uint16_t)((more ? 0x2000 : 0) | off8));
	p->b[p->l3 + 4] = (uint8_t)(id >> 8);
	p->b[p->l3 + 5] = (uint8_t)id;
	if (off8 == 0) {
		pb_ports(p, sport, dport, 8);
		payload -= 8;
	}
	pb_done(p, payload);
}

/* An IPv6 fragment header (next header nh) after a fixed header. */
static void
frag6_hdr(struct pb *p, const char *s, const char *d, uint8_t nh, uint32_t id, uint16_t off8,
	  int more)
{
	pb_eth(p);
	pb_ipv6(p, 44, s, d);
	put8(p, nh);
	put8(p, 0);
	put16(p, (uint16_t)(off8 << 3 | (more ? 1 : 0)));
	put16(p, (uint16_t)(id >> 16));
	put16(p, (uint16_t)id);
}

static int
parse_ipv6_atomic_fragment_is_whole(void)
{
	struct gpudp_pkt_info pi;
	struct pb p;

	frag6_hdr(&p, "fd00::1", "fd00::2", 17, 0x12345678, 0, 0);
	pb_ports(&p, 5001, 6001, 8);
	pb_done(&p, 100);
	gpudp_pkt_parse(p.b, p.n, &pi);
	GPUDP_TEST_ASSERT(pi.status == GPUDP_PKT_OK && pi.is_frag && pi.frag_first &&
			  pi.frag_last, "atomic: status %u frag %u first %u last %u", pi.status,
			  pi.is_frag, pi.frag_first, pi.frag_last);
	GPUDP_TEST_ASSERT(pi.has_ports && pi.sport == 5001 && pi.l4proto == 17 &&
			  pi.frag_id == 0x12345678 && pi.frag_len == 108,
			  "fields: ports %u proto %u id %x len %u", pi.has_ports, pi.l4proto,
			  pi.frag_id, pi.frag_len);
	/* an IPv4 fragment: identification, offset in bytes, payload length */
	frag4(&p, "10.0.0.1", "10.0.0.2", 0xbeef, 3, 1, 0, 0, 16);
	gpudp_pkt_parse(p.b, p.n, &pi);
	GPUDP_TEST_ASSERT(pi.is_frag && !pi.frag_first && !pi.frag_last && pi.frag_id == 0xbeef &&
			  pi.frag_off == 24 && pi.frag_len == 16 && pi.frag_proto == 17,
			  "ipv4: id %x off %u len %u", pi.frag_id, pi.frag_off, pi.frag_len);
	/* an IPv6 payload length that ends before the fragment header: malformed */
	frag6_hdr(&p, "fd00::1", "fd00::2", 17, 1, 1, 0);
	pb_done(&p, 8);
	p.b[p.l3 + 4] = 0;
	p.b[p.l3 + 5] = 4;
	gpudp_pkt_parse(p.b, p.n, &pi);
	GPUDP_TEST_ASSERT(pi.status == GPUDP_PKT_MALFORMED, "short payload length: status %u",
			  pi.status);
	return GPUDP_TEST_PASS;
}

/* Issue: an IPv6 atomic fragment (offset 0, M=0) counted nowhere. */
static int
ipv6_atomic_fragment_counts_as_udp(void)
{
	struct gpudp_analysis *a = gpudp_analysis_create(0, NULL);
	struct gpudp_an_counters c;
	struct gpudp_flow_record *fl;
	struct gpudp_talker *t;
	struct pb p;
	size_t n, nt;

	GPUDP_TEST_ASSERT(a != NULL, "create");
	frag6_hdr(&p, "fd00::1", "fd00::2", 17, 7, 0, 0);
	pb_ports(&p, 5001, 6001, 8);
	pb_done(&p, 100);
	gpudp_analysis_packet(a, p.b, p.n, p.n, 1);
	gpudp_analysis_counters(a, &c);
	GPUDP_TEST_ASSERT(c.proto_pkts[GPUDP_AN_PROTO_UDP] == 1 &&
			  c.proto_bytes[GPUDP_AN_PROTO_UDP] == p.n &&
			  c.proto_pkts[GPUDP_AN_PROTO_FRAG] == 1, "udp %llu fragment %llu",
			  (unsigned long long)c.proto_pkts[GPUDP_AN_PROTO_UDP],
			  (unsigned long long)c.proto_pkts[GPUDP_AN_PROTO_FRAG]);
	GPUDP_TEST_ASSERT(gpudp_analysis_flows(a, &fl, &n) == 0 && n == 1, "flows %zu", n);
	GPUDP_TEST_ASSERT(fl[0].key.proto == 17 && fl[0].key.port[0] == 5001 &&
			  fl[0].key.port[1] == 6001 && fl[0].pkts[0] == 1 && fl[0].bytes[0] == p.n,
			  "flow: proto %u ports %u %u", fl[0].key.proto, fl[0].key.port[0],
			  fl[0].key.port[1]);
	free(fl);
	GPUDP_TEST_ASSERT(gpudp_analysis_talkers(a, &t, &nt) == 0 && nt == 2 &&
			  t[0].tx_bytes + t[1].tx_bytes == p.n, "talkers %zu", nt);
	free(t);
	gpudp_analysis_free(a);
	return GPUDP_TEST_PASS;
}

static int
fragmented_datagram_joins_its_flow(void)
{
	struct gpudp_analysis *a = gpudp_analysis_create(0, NULL);
	struct gpudp_flow_record *fl;
	struct gpudp_an_counters c;
	struct pb first, last;
	size_t n;

	GPUDP_TEST_ASSERT(a != NULL, "create");
	/* ICMPv6 echo in two fragments: both frames in the ICMPv6 flow, and
	 * icmpv6 counts the datagram once, with its last fragment's length */
	frag6_hdr(&first, "fd00::1", "fd00::2", 58, 9, 0, 1);
	pb_ports(&first, 0x8000, 0, 8);
	pb_done(&first, 1000);
	frag6_hdr(&last, "fd00::1", "fd00::2", 58, 9, 126, 0);
	pb_done(&last, 200);
	gpudp_analysis_packet(a, first.b, first.n, first.n, 1);
	gpudp_analysis_packet(a, last.b, last.n, last.n, 2);
	gpudp_analysis_counters(a, &c);
	GPUDP_TEST_ASSERT(c.proto_pkts[GPUDP_AN_PROTO_IPV6] == 2 &&
			  c.proto_pkts[GPUDP_AN_PROTO_FRAG] == 2, "layers");
	GPUDP_TEST_ASSERT(c.proto_pkts[GPUDP_AN_PROTO_ICMPV6] == 1 &&
			  c.proto_bytes[GPUDP_AN_PROTO_ICMPV6] == last.n, "icmpv6 %llu",
			  (unsigned long long)c.proto_pkts[GPUDP_AN_PROTO_ICMPV6]);
	GPUDP_TEST_ASSERT(a->ctr.proto_pkts[GPUDP_AN_PROTO_ICMPV6] == 0,
			  "raw counters count no datagram before resolution");
	GPUDP_TEST_ASSERT(gpudp_analysis_flows(a, &fl, &n) == 0 && n == 1, "flows %zu", n);
	GPUDP_TEST_ASSERT(fl[0].pkts[0] + fl[0].pkts[1] == 2 &&
			  fl[0].bytes[0] + fl[0].bytes[1] == first.n + last.n &&
			  fl[0].key.proto == 58 && fl[0].first_ts == 1 && fl[0].last_ts == 2,
			  "flow holds both fragments");
	free(fl);
	gpudp_analysis_free(a);
	return GPUDP_TEST_PASS;
}

/* Analyse a capture file packet by packet, in the order of perm (NULL: file order). */
static struct gpudp_analysis *
analyse_file(const char *path, uint32_t flows, const size_t *perm, size_t *n_pkts)
{
	struct gpudp_analysis *a = gpudp_analysis_create(flows, NULL);
	struct gpudp_capfile_packets pk;
	char err[256];
	size_t i;

	if (a == NULL || gpudp_capfile_read_all(path, &pk, err, sizeof(err)) != 0) {
		fprintf(stderr, "    %s: %s\n", path, a == NULL ? "create" : err);
		gpudp_analysis_free(a);
		return NULL;
	}
	for (i = 0; i < pk.n; i++) {
		const struct gpudp_capfile_pkt *q = &pk.pkt[perm != NULL ? perm[i] : i];

		gpudp_analysis_packet(a, q->data, q->caplen, q->wirelen, q->ts_ns);
	}
	if (n_pkts != NULL)
		*n_pkts = pk.n;
	gpudp_capfile_packets_free(&pk);
	return a;
}

/* One flow as documented: proto, endpoint a (address, port), b, and packets
 * and bytes from a to b and from b to a. */
struct want_flow {
	uint8_t proto;
	const char *a;
	uint16_t a_port;
	const char *b;
	uint16_t b_port;
	uint64_t pkts_ab, bytes_ab, pkts_ba, bytes_ba;
};

/* Every listed flow and nothing else; every IP byte in one flow; talkers add up. */
static int
check_flows(const struct gpudp_analysis *a, const struct want_flow *w, size_t nw)
{
	struct gpudp_an_counters c;
	struct gpudp_flow_record *fl;
	struct gpudp_talker *t;
	uint64_t flow_bytes = 0, flow_pkts = 0, tx = 0, rx = 0;
	size_t n, nt, i, j;

	gpudp_analysis_counters(a, &c);
	GPUDP_TEST_ASSERT(gpudp_analysis_flows(a, &fl, &n) == 0 && n == nw, "flows %zu, want %zu",
			  n, nw);
	for (i = 0; i < n; i++) {
		flow_bytes += fl[i].bytes[0] + fl[i].bytes[1];
		flow_pkts += fl[i].pkts[0] + fl[i].pkts[1];
	}
	for (j = 0; j < nw; j++) {
		uint8_t x[16] = { 0 }, y[16] = { 0 };
		int af = strchr(w[j].a, ':') ? AF_INET6 : AF_INET;

		inet_pton(af, w[j].a, x);
		inet_pton(af, w[j].b, y);
		for (i = 0; i < n; i++) {
			const struct gpudp_flow_key *k = &fl[i].key;

			if (k->proto == w[j].proto && memcmp(k->addr[0], x, 16) == 0 &&
			    memcmp(k->addr[1], y, 16) == 0 &&
			    k->port[0] == w[j].a_port && k->port[1] == w[j].b_port)
				break;
		}
		GPUDP_TEST_ASSERT(i < n, "no flow %u %s:%u <-> %s:%u", w[j].proto, w[j].a,
				  w[j].a_port, w[j].b, w[j].b_port);
		GPUDP_TEST_ASSERT(fl[i].pkts[0] == w[j].pkts_ab &&
				  fl[i].bytes[0] == w[j].bytes_ab &&
				  fl[i].pkts[1] == w[j].pkts_ba && fl[i].bytes[1] == w[j].bytes_ba,
				  "flow %s:%u <-> %s:%u: %llu/%llu %llu/%llu", w[j].a, w[j].a_port,
				  w[j].b, w[j].b_port, (unsigned long long)fl[i].pkts[0],
				  (unsigned long long)fl[i].bytes[0],
				  (unsigned long long)fl[i].pkts[1],
				  (unsigned long long)fl[i].bytes[1]);
	}
	free(fl);
	GPUDP_TEST_ASSERT(flow_bytes == c.proto_bytes[GPUDP_AN_PROTO_IPV4] +
			  c.proto_bytes[GPUDP_AN_PROTO_IPV6] &&
			  flow_pkts == c.proto_pkts[GPUDP_AN_PROTO_IPV4] +
			  c.proto_pkts[GPUDP_AN_PROTO_IPV6],
			  "flows hold %llu bytes, the IP frames %llu",
			  (unsigned long long)flow_bytes,
			  (unsigned long long)(c.proto_bytes[GPUDP_AN_PROTO_IPV4] +
					       c.proto_bytes[GPUDP_AN_PROTO_IPV6]));
	GPUDP_TEST_ASSERT(gpudp_analysis_talkers(a, &t, &nt) == 0, "talkers");
	for (i = 0; i < nt; i++) {
		tx += t[i].tx_bytes;
		rx += t[i].rx_bytes;
	}
	free(t);
	GPUDP_TEST_ASSERT(tx == flow_bytes && rx == flow_bytes, "talkers send %llu, receive %llu "
			  "bytes, flows hold %llu", (unsigned long long)tx, (unsigned long long)rx,
			  (unsigned long long)flow_bytes);
	return GPUDP_TEST_PASS;
}

/* Issue: a fragmented datagram's flow held one frame; lone fragments counted as UDP. */
static int
ipv4_fragments_give_documented_flows(void)
{
	static const struct want_flow w[] = {
		/* in order, then an unfragmented reply */
		{ 17, "10.1.0.1", 5001, "10.1.0.2", 6001, 3, 1514 + 1514 + 74, 1, 134 },
		/* out of order */
		{ 17, "10.1.0.3", 5003, "10.1.0.4", 6003, 3, 234 + 434 + 434, 0, 0 },
		/* the first fragment missing: the address pair, ports 0 */
		{ 17, "10.1.0.5", 0, "10.1.0.6", 0, 2, 434 + 234, 0, 0 },
		/* only the first fragment */
		{ 17, "10.1.0.7", 5007, "10.1.0.8", 6007, 1, 434, 0, 0 },
		{ 6, "10.1.0.9", 5009, "10.1.0.10", 6009, 2, 546 + 522, 0, 0 },
		{ 1, "10.1.0.11", 0, "10.1.0.12", 0, 2, 546 + 522, 2, 546 + 522 },
	};
	struct gpudp_analysis *a = analyse_file(CAP_TEST_DATA "/frag-ipv4.pcap", 0, NULL, NULL);
	struct gpudp_frag_summary fs;
	struct gpudp_an_counters c;
	int rc;

	GPUDP_TEST_ASSERT(a != NULL, "analysis");
	rc = check_flows(a, w, sizeof(w) / sizeof(w[0]));
	gpudp_analysis_counters(a, &c);
	gpudp_analysis_fragments(a, &fs);
	gpudp_analysis_free(a);
	if (rc != GPUDP_TEST_PASS)
		return rc;
	/* udp: the in-order datagram (last fragment 74 bytes), the reply (134),
	 * the out-of-order one (last fragment 234); no lone fragment */
	GPUDP_TEST_ASSERT(c.proto_pkts[GPUDP_AN_PROTO_UDP] == 3 &&
			  c.proto_bytes[GPUDP_AN_PROTO_UDP] == 74 + 134 + 234, "udp %llu/%llu",
			  (unsigned long long)c.proto_pkts[GPUDP_AN_PROTO_UDP],
			  (unsigned long long)c.proto_bytes[GPUDP_AN_PROTO_UDP]);
	GPUDP_TEST_ASSERT(c.proto_pkts[GPUDP_AN_PROTO_TCP] == 1 &&
			  c.proto_pkts[GPUDP_AN_PROTO_ICMP] == 2 &&
			  c.proto_bytes[GPUDP_AN_PROTO_ICMP] == 2 * 522 &&
			  c.proto_pkts[GPUDP_AN_PROTO_OTHER_L4] == 0, "tcp, icmp");
	GPUDP_TEST_ASSERT(fs.datagrams == 7 && fs.complete == 5 && fs.first_missing == 1 &&
			  fs.pkts == 15, "summary %llu %llu %llu %llu",
			  (unsigned long long)fs.datagrams, (unsigned long long)fs.complete,
			  (unsigned long long)fs.first_missing, (unsigned long long)fs.pkts);
	return GPUDP_TEST_PASS;
}

static int
ipv6_fragments_give_documented_flows(void)
{
	static const struct want_flow w[] = {
		{ 17, "fd00::1", 5001, "fd00::2", 6001, 2, 340, 0, 0 },      /* atomic */
		{ 17, "fd00::3", 5003, "fd00::4", 6003, 2, 574 + 550, 0, 0 },
		{ 17, "fd00::5", 5005, "fd00::6", 6005, 3, 462 + 262 + 462, 0, 0 },
		{ 17, "fd00::7", 0, "fd00::8", 0, 1, 550, 0, 0 },
		{ 17, "fd00::9", 5009, "fd00::a", 6009, 1, 574, 0, 0 },
	};
	struct gpudp_analysis *a = analyse_file(CAP_TEST_DATA "/frag-ipv6.pcap", 0, NULL, NULL);
	struct gpudp_an_counters c;
	int rc;

	GPUDP_TEST_ASSERT(a != NULL, "analysis");
	rc = check_flows(a, w, sizeof(w) / sizeof(w[0]));
	gpudp_analysis_counters(a, &c);
	gpudp_analysis_free(a);
	if (rc != GPUDP_TEST_PASS)
		return rc;
	GPUDP_TEST_ASSERT(c.proto_pkts[GPUDP_AN_PROTO_UDP] == 4 &&
			  c.proto_bytes[GPUDP_AN_PROTO_UDP] == 170 + 170 + 550 + 262,
			  "udp %llu/%llu", (unsigned long long)c.proto_pkts[GPUDP_AN_PROTO_UDP],
			  (unsigned long long)c.proto_bytes[GPUDP_AN_PROTO_UDP]);
	return GPUDP_TEST_PASS;
}

/* The GPU runs packets in any order and in any batches: results may not change. */
static int
fragment_results_do_not_depend_on_order(void)
{
	static const char *const files[] = {
		CAP_TEST_DATA "/frag-ipv4.pcap", CAP_TEST_DATA "/frag-ipv6.pcap",
		CAP_TEST_DATA "/sample.pcap",
	};
	size_t f, i, n, perm[512];
	char why[128];

	for (f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
		struct gpudp_analysis *ref = analyse_file(files[f], 0, NULL, &n), *x;
		int k;

		GPUDP_TEST_ASSERT(ref != NULL && n <= 512, "%s", files[f]);
		for (k = 0; k < 3; k++) {
			for (i = 0; i < n; i++)  /* reversed; odd then even; a stride of 7 */
				perm[i] = k == 0 ? n - 1 - i :
					  k == 1 ? (i < n / 2 ? 2 * i + 1 : 2 * (i - n / 2)) % n :
					  (i * 7) % n;
			if (k == 2 && n % 7 == 0)
				continue; /* not a permutation */
			x = analyse_file(files[f], 0, perm, NULL);
			GPUDP_TEST_ASSERT(x != NULL, "analysis");
			GPUDP_TEST_ASSERT(gpudp_analysis_compare(ref, x, why, sizeof(why)) == 0,
					  "%s, order %d: %s", files[f], k, why);
			gpudp_analysis_free(x);
		}
		gpudp_analysis_free(ref);
	}
	return GPUDP_TEST_PASS;
}

/* A full fragment table: a counted drop, and every frame still in a flow. */
static int
fragment_table_full_is_counted(void)
{
	struct gpudp_analysis *a = gpudp_analysis_create(16, NULL);
	struct gpudp_flow_record *fl;
	struct pb p;
	size_t n, i;
	uint64_t pkts = 0;

	GPUDP_TEST_ASSERT(a != NULL && a->frag_mask == 15, "create: %u fragment slots",
			  a ? a->frag_mask + 1 : 0);
	/* 20 datagrams seen only by a later fragment, then a first fragment */
	for (i = 0; i < 20; i++) {
		frag4(&p, "10.9.0.1", "10.9.0.2", (uint16_t)(100 + i), 100, 0, 0, 0, 64);
		gpudp_analysis_packet(a, p.b, p.n, p.n, i);
	}
	frag4(&p, "10.9.0.1", "10.9.0.2", 7, 0, 1, 1111, 2222, 64);
	gpudp_analysis_packet(a, p.b, p.n, p.n, 99);
	GPUDP_TEST_ASSERT(a->ctr.drops[GPUDP_AN_DROP_FRAG_FULL] == 5, "fragment_table_full %llu",
			  (unsigned long long)a->ctr.drops[GPUDP_AN_DROP_FRAG_FULL]);
	GPUDP_TEST_ASSERT(gpudp_analysis_flows(a, &fl, &n) == 0 && n == 2, "flows %zu", n);
	for (i = 0; i < n; i++)
		pkts += fl[i].pkts[0] + fl[i].pkts[1];
	GPUDP_TEST_ASSERT(pkts == 21, "%llu frames in flows", (unsigned long long)pkts);
	GPUDP_TEST_ASSERT(fl[0].key.port[0] == 0 && fl[0].pkts[0] == 20 &&
			  fl[1].key.port[0] == 1111 && fl[1].pkts[0] == 1,
			  "later fragments in the address pair, the first one in its 5-tuple");
	free(fl);
	gpudp_analysis_free(a);
	return GPUDP_TEST_PASS;
}

/* Merging fragment tables completes datagrams split across objects. */
static int
fragments_merge_across_objects(void)
{
	struct gpudp_analysis *x = gpudp_analysis_create(0, NULL);
	struct gpudp_analysis *y = gpudp_analysis_create(0, NULL);
	struct gpudp_analysis *small = gpudp_analysis_create(16, NULL);
	struct gpudp_an_counters c;
	struct gpudp_flow_record *fl;
	struct pb p;
	size_t n, i;

	GPUDP_TEST_ASSERT(x != NULL && y != NULL && small != NULL, "create");
	frag4(&p, "10.9.0.1", "10.9.0.2", 5, 0, 1, 1111, 2222, 64);
	gpudp_analysis_packet(x, p.b, p.n, p.n, 1);
	frag4(&p, "10.9.0.1", "10.9.0.2", 5, 8, 0, 0, 0, 64);
	gpudp_analysis_packet(y, p.b, p.n, p.n, 2);
	for (i = 0; i < 20; i++) {
		frag4(&p, "10.9.0.3", "10.9.0.4", (uint16_t)(100 + i), 100, 0, 0, 0, 64);
		gpudp_analysis_packet(y, p.b, p.n, p.n, i);
	}
	GPUDP_TEST_ASSERT(gpudp_analysis_merge(x, &y->ctr, y->flows, y->flow_mask + 1) == 0 &&
			  gpudp_analysis_merge_frags(x, y->frags, y->frag_mask + 1) == 0, "merge");
	gpudp_analysis_counters(x, &c);
	GPUDP_TEST_ASSERT(c.proto_pkts[GPUDP_AN_PROTO_UDP] == 1, "merged datagram complete");
	GPUDP_TEST_ASSERT(gpudp_analysis_flows(x, &fl, &n) == 0 && n == 2 && fl[0].pkts[0] == 20 &&
			  fl[1].pkts[0] == 2 && fl[1].key.port[0] == 1111, "flows %zu", n);
	free(fl);
	/* into a table too small: counted, and still in the flows */
	GPUDP_TEST_ASSERT(gpudp_analysis_merge(small, &x->ctr, x->flows, x->flow_mask + 1) == 0 &&
			  gpudp_analysis_merge_frags(small, x->frags, x->frag_mask + 1) == -ENOSPC,
			  "merge into 16 slots");
	GPUDP_TEST_ASSERT(small->ctr.drops[GPUDP_AN_DROP_FRAG_FULL] > 0, "fragment_table_full");
	GPUDP_TEST_ASSERT(gpudp_analysis_flows(small, &fl, &n) == 0 && n == 2 &&
			  fl[0].pkts[0] + fl[1].pkts[0] == 22, "flows %zu", n);
	free(fl);
	gpudp_analysis_free(x);
	gpudp_analysis_free(y);
	gpudp_analysis_free(small);
	return GPUDP_TEST_PASS;
}

/* What cannot be told apart is documented: IP ID reuse, duplicate fragments. */
static int
ambiguous_fragments_are_documented(void)
{
	struct gpudp_analysis *a = gpudp_analysis_create(0, NULL);
	struct gpudp_an_counters c;
	struct gpudp_flow_record *fl;
	struct pb p;
	size_t n;

	GPUDP_TEST_ASSERT(a != NULL, "create");
	/* one IP ID, first fragments with two port pairs, one last fragment */
	frag4(&p, "10.9.0.1", "10.9.0.2", 5, 0, 1, 1111, 2222, 64);
	gpudp_analysis_packet(a, p.b, p.n, p.n, 1);
	frag4(&p, "10.9.0.1", "10.9.0.2", 5, 0, 1, 3333, 2222, 64);
	gpudp_analysis_packet(a, p.b, p.n, p.n, 2);
	frag4(&p, "10.9.0.1", "10.9.0.2", 5, 8, 0, 0, 0, 64);
	gpudp_analysis_packet(a, p.b, p.n, p.n, 3);
	/* a complete datagram with its last fragment twice */
	frag4(&p, "10.9.0.3", "10.9.0.4", 6, 0, 1, 1111, 2222, 64);
	gpudp_analysis_packet(a, p.b, p.n, p.n, 4);
	frag4(&p, "10.9.0.3", "10.9.0.4", 6, 8, 0, 0, 0, 64);
	gpudp_analysis_packet(a, p.b, p.n, p.n, 5);
	gpudp_analysis_packet(a, p.b, p.n, p.n, 6);
	gpudp_analysis_counters(a, &c);
	GPUDP_TEST_ASSERT(c.proto_pkts[GPUDP_AN_PROTO_UDP] == 0, "udp %llu",
			  (unsigned long long)c.proto_pkts[GPUDP_AN_PROTO_UDP]);
	GPUDP_TEST_ASSERT(gpudp_analysis_flows(a, &fl, &n) == 0 && n == 2, "flows %zu", n);
	GPUDP_TEST_ASSERT(fl[0].key.port[0] == 0 && fl[0].pkts[0] == 3 &&
			  fl[1].key.port[0] == 1111 && fl[1].pkts[0] == 3,
			  "ambiguous ports: address pair; duplicate: its 5-tuple");
	free(fl);
	gpudp_analysis_free(a);
	return GPUDP_TEST_PASS;
}

static int
size_histogram_bucket_bounds(void)
{
	static const uint32_t len[] = { 0, 63, 64, 127, 128, 1518, 1519, 2047, 2048, 9216, 9217 };
	static const uint32_t want[] = { 0, 0, 1, 1, 2, 5, 6, 6, 7, 8, 9 };
	uint32_t i, lo, hi;

	for (i = 0; i < sizeof(len) / sizeof(len[0]); i++) {
		uint32_t b = gpudp_an_size_bucket(len[i]);

		GPUDP_TEST_ASSERT(b == want[i], "length %u: bucket %u, want %u", len[i], b, want[i]);
		GPUDP_TEST_ASSERT(gpudp_an_size_bucket_bounds(b, &lo, &hi) == 0 &&
				  lo <= len[i] && len[i] <= hi, "bounds of %u: %u-%u", b, lo, hi);
	}
	GPUDP_TEST_ASSERT(gpudp_an_size_bucket_bounds(GPUDP_AN_SIZE_BUCKETS, &lo, &hi) == -EINVAL,
			  "bad bucket accepted");
	return GPUDP_TEST_PASS;
}

static int
protocol_counters_per_layer(void)
{
	struct gpudp_analysis *a = gpudp_analysis_create(0, NULL);
	const struct gpudp_an_counters *c;
	struct pb p;

	GPUDP_TEST_ASSERT(a != NULL, "create");
	tcp4(&p, "10.0.0.1", "10.0.0.2", 1, 2, 0);                      /* ipv4 tcp */
	gpudp_analysis_packet(a, p.b, p.n, p.n, 0);
	pb_eth(&p);                                                    /* vlan ipv6 icmpv6 */
	put16(&p, 0x8100);
	put16(&p, 7);
	pb_ipv6(&p, 58, "fd00::1", "fd00::2");
	pb_ports(&p, 0x8000, 0, 8);
	pb_done(&p, 0);
	gpudp_analysis_packet(a, p.b, p.n, p.n, 0);
	pb_eth(&p);                                                    /* arp */
	put16(&p, 0x0806);
	memset(p.b + p.n, 0, 28);
	p.n += 28;
	gpudp_analysis_packet(a, p.b, p.n, p.n, 0);
	pb_eth(&p);                                                    /* ipv4 gre */
	pb_ipv4(&p, 47, "10.0.0.1", "10.0.0.2", 0);
	pb_done(&p, 4);
	gpudp_analysis_packet(a, p.b, p.n, p.n, 0);
	gpudp_analysis_packet(a, p.b, 10, 10, 0);                      /* runt */
	c = &a->ctr;
	GPUDP_TEST_ASSERT(c->pkts == 5, "packets %llu", (unsigned long long)c->pkts);
	GPUDP_TEST_ASSERT(c->proto_pkts[GPUDP_AN_PROTO_ETH] == 4, "eth");
	GPUDP_TEST_ASSERT(c->proto_pkts[GPUDP_AN_PROTO_VLAN] == 1, "vlan");
	GPUDP_TEST_ASSERT(c->proto_pkts[GPUDP_AN_PROTO_IPV4] == 2, "ipv4");
	GPUDP_TEST_ASSERT(c->proto_pkts[GPUDP_AN_PROTO_IPV6] == 1, "ipv6");
	GPUDP_TEST_ASSERT(c->proto_pkts[GPUDP_AN_PROTO_ARP] == 1, "arp");
	GPUDP_TEST_ASSERT(c->proto_pkts[GPUDP_AN_PROTO_TCP] == 1, "tcp");
	GPUDP_TEST_ASSERT(c->proto_pkts[GPUDP_AN_PROTO_ICMPV6] == 1, "icmpv6");
	GPUDP_TEST_ASSERT(c->proto_pkts[GPUDP_AN_PROTO_OTHER_L4] == 1, "other_l4");
	GPUDP_TEST_ASSERT(c->drops[GPUDP_AN_DROP_TRUNCATED] == 1, "runt is a truncated drop");
	gpudp_analysis_free(a);
	return GPUDP_TEST_PASS;
}

static int
talkers_sum_sent_and_received(void)
{
	struct gpudp_analysis *a = gpudp_analysis_create(0, NULL);
	struct gpudp_talker *t;
	struct pb p;
	size_t n;

	GPUDP_TEST_ASSERT(a != NULL, "create");
	tcp4(&p, "10.0.0.1", "10.0.0.2", 1, 2, 100);
	gpudp_analysis_packet(a, p.b, p.n, p.n, 0);
	tcp4(&p, "10.0.0.1", "10.0.0.3", 1, 2, 1000);
	gpudp_analysis_packet(a, p.b, p.n, p.n, 0);
	tcp4(&p, "10.0.0.3", "10.0.0.1", 2, 1, 0);
	gpudp_analysis_packet(a, p.b, p.n, p.n, 0);
	GPUDP_TEST_ASSERT(gpudp_analysis_talkers(a, &t, &n) == 0 && n == 3, "talkers %zu", n);
	GPUDP_TEST_ASSERT(t[0].addr[3] == 1 && t[0].tx_pkts == 2 && t[0].rx_pkts == 1,
			  "10.0.0.1 first: tx %llu rx %llu", (unsigned long long)t[0].tx_pkts,
			  (unsigned long long)t[0].rx_pkts);
	GPUDP_TEST_ASSERT(t[0].tx_bytes == 154 + 1054 && t[0].rx_bytes == 54, "bytes");
	GPUDP_TEST_ASSERT(t[1].addr[3] == 3 && t[2].addr[3] == 2, "order by bytes");
	free(t);
	gpudp_analysis_free(a);
	return GPUDP_TEST_PASS;
}

static int
merge_adds_counters_and_flows(void)
{
	struct gpudp_analysis *x = gpudp_analysis_create(0, NULL);
	struct gpudp_analysis *y = gpudp_analysis_create(0, NULL);
	struct gpudp_flow_record *fl;
	struct pb p;
	size_t n;

	GPUDP_TEST_ASSERT(x != NULL && y != NULL, "create");
	tcp4(&p, "10.0.0.1", "10.0.0.2", 1, 2, 0);
	gpudp_analysis_packet(x, p.b, p.n, p.n, 5);
	tcp4(&p, "10.0.0.2", "10.0.0.1", 2, 1, 0);
	gpudp_analysis_packet(y, p.b, p.n, p.n, 3);
	tcp4(&p, "10.0.0.7", "10.0.0.1", 2, 1, 0);
	gpudp_analysis_packet(y, p.b, p.n, p.n, 3);
	GPUDP_TEST_ASSERT(gpudp_analysis_merge(x, &y->ctr, y->flows, y->flow_mask + 1) == 0,
			  "merge");
	GPUDP_TEST_ASSERT(x->ctr.pkts == 3 && x->ctr.proto_pkts[GPUDP_AN_PROTO_TCP] == 3,
			  "counters");
	GPUDP_TEST_ASSERT(gpudp_analysis_flows(x, &fl, &n) == 0 && n == 2, "flows %zu", n);
	GPUDP_TEST_ASSERT(fl[0].pkts[0] == 1 && fl[0].pkts[1] == 1 && fl[0].first_ts == 3 &&
			  fl[0].last_ts == 5, "merged flow");
	free(fl);
	gpudp_analysis_free(x);
	gpudp_analysis_free(y);
	return GPUDP_TEST_PASS;
}

/* flows listed by gpudp_analysis_flows(), or -1 */
static long
nflows(const struct gpudp_analysis *a)
{
	struct gpudp_flow_record *fl;
	size_t n;

	if (gpudp_analysis_flows(a, &fl, &n) != 0)
		return -1;
	free(fl);
	return (long)n;
}

/*
 * gpudp_analysis_take(): into an analysis that has counted nothing it
 * exchanges the tables, leaving the source empty; into one that has, or of
 * another capacity, it adds. Either way the result is what adding gives.
 */
static int
take_equals_add(void)
{
	struct gpudp_analysis *src = gpudp_analysis_create(0, NULL), *ref, *dst, *big;
	struct gpudp_an_counters zero;
	char why[200];
	struct pb p;
	uint32_t i;

	memset(&zero, 0, sizeof(zero));
	ref = gpudp_analysis_create(0, NULL);
	dst = gpudp_analysis_create(0, NULL);
	big = gpudp_analysis_create(1u << 12, NULL);
	GPUDP_TEST_ASSERT(src != NULL && ref != NULL && dst != NULL && big != NULL, "create");
	for (i = 0; i < 40; i++) {
		char a[32];

		snprintf(a, sizeof(a), "10.0.%u.%u", i / 7, i % 7 + 1);
		tcp4(&p, a, "10.0.0.200", (uint16_t)(1000 + i), 80, 0);
		gpudp_analysis_packet(src, p.b, p.n, p.n, 10 + i);
	}
	GPUDP_TEST_ASSERT(gpudp_analysis_add(ref, src) == 0, "add");
	/* empty, same shape: exchanged; the source holds nothing then */
	GPUDP_TEST_ASSERT(gpudp_analysis_take(dst, src) == 0, "take into an empty one");
	GPUDP_TEST_ASSERT(gpudp_analysis_compare(ref, dst, why, sizeof(why)) == 0, "%s", why);
	GPUDP_TEST_ASSERT(memcmp(&src->ctr, &zero, sizeof(zero)) == 0 &&
			  nflows(src) == 0, "the source was not left empty");
	/* not empty: added (twice the packets), the source left as it was */
	GPUDP_TEST_ASSERT(gpudp_analysis_take(ref, dst) == 0 && ref->ctr.pkts == 80 &&
			  dst->ctr.pkts == 40, "take into a non-empty one: %llu, %llu",
			  (unsigned long long)ref->ctr.pkts, (unsigned long long)dst->ctr.pkts);
	/* another capacity: added */
	GPUDP_TEST_ASSERT(gpudp_analysis_take(big, dst) == 0 && big->ctr.pkts == 40 &&
			  dst->ctr.pkts == 40 && nflows(big) == 40,
			  "take into another capacity");
	gpudp_analysis_free(src);
	gpudp_analysis_free(ref);
	gpudp_analysis_free(dst);
	gpudp_analysis_free(big);
	return GPUDP_TEST_PASS;
}

/* ---- filter ---- */

static int
filter_rejects_bad_expressions(void)
{
	static const char *const bad[] = {
		"port", "port 70000", "portrange 10-5", "portrange 5", "host 10.0.0",
		"net 10.0.0.1/24", "net 10.0.0.0/33", "net fd00::/129", "tcp and", "(tcp",
		"tcp)", "src tcp", "vlan 4096", "proto 256", "frobnicate", "tcp udp",
		"not", "!", "&&",
	};
	struct gpudp_filter f;
	char err[200];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = gpudp_filter_compile(bad[i], &f, err, sizeof(err));

		GPUDP_TEST_ASSERT(rc == -EINVAL, "'%s' gave %d", bad[i], rc);
		GPUDP_TEST_ASSERT(err[0] != '\0' && f.n_insn == 0, "'%s': no message", bad[i]);
	}
	gpudp_filter_compile("tcp and port 70000", &f, err, sizeof(err));
	GPUDP_TEST_ASSERT(strstr(err, "offset 13") != NULL && strstr(err, "70000") != NULL,
			  "message does not locate the token: %s", err);
	GPUDP_TEST_ASSERT(gpudp_filter_compile("   ", &f, err, sizeof(err)) == 0 && f.n_insn == 0,
			  "blank filter");
	return GPUDP_TEST_PASS;
}

static int
match(const char *expr, const struct pb *p)
{
	struct gpudp_filter f;
	struct gpudp_pkt_info pi;
	char err[200];

	if (gpudp_filter_compile(expr, &f, err, sizeof(err)) != 0) {
		fprintf(stderr, "    compile '%s': %s\n", expr, err);
		return -1;
	}
	gpudp_pkt_parse(p->b, p->n, &pi);
	return gpudp_filter_eval(&f, &pi, NULL);
}

static int
filter_matches_fields(void)
{
	struct pb t, u6, v;

	tcp4(&t, "192.168.1.10", "10.1.2.3", 40000, 443, 0);
	pb_eth(&u6);
	pb_ipv6(&u6, 17, "fd00:1::5", "2001:db8::1");
	pb_ports(&u6, 5353, 53, 8);
	pb_done(&u6, 0);
	pb_eth(&v);
	put16(&v, 0x8100);
	put16(&v, 100);
	pb_ipv4(&v, 1, "10.0.0.1", "10.0.0.2", 0);
	pb_ports(&v, 0x0800, 0, 4);
	pb_done(&v, 0);

	GPUDP_TEST_ASSERT(match("tcp", &t) == 1 && match("udp", &t) == 0, "tcp");
	GPUDP_TEST_ASSERT(match("ip", &t) == 1 && match("ip6", &t) == 0, "ip");
	GPUDP_TEST_ASSERT(match("port 443", &t) == 1 && match("src port 443", &t) == 0 &&
			  match("dst port 443", &t) == 1, "port direction");
	GPUDP_TEST_ASSERT(match("portrange 40000-40010", &t) == 1 &&
			  match("dst portrange 1-442", &t) == 0, "portrange");
	GPUDP_TEST_ASSERT(match("net 192.168.0.0/16", &t) == 1 &&
			  match("dst net 192.168.0.0/16", &t) == 0 &&
			  match("net 192.168.1.8/30", &t) == 1 && match("net 192.168.1.12/30", &t) == 0,
			  "ipv4 prefixes");
	GPUDP_TEST_ASSERT(match("host 10.1.2.3", &t) == 1 && match("host fd00:1::5", &t) == 0,
			  "host");
	GPUDP_TEST_ASSERT(match("net 0.0.0.0/0", &t) == 1 && match("net 0.0.0.0/0", &u6) == 0,
			  "zero-length prefix matches its family only");
	GPUDP_TEST_ASSERT(match("src net fd00::/8 and udp and dst port 53", &u6) == 1, "v6 net");
	GPUDP_TEST_ASSERT(match("net 2001:db8::/33", &u6) == 1 && match("udp and ip", &u6) == 0,
			  "v6 prefix");
	GPUDP_TEST_ASSERT(match("vlan", &v) == 1 && match("vlan 100", &v) == 1 &&
			  match("vlan 101", &v) == 0 && match("vlan", &t) == 0, "vlan");
	GPUDP_TEST_ASSERT(match("icmp", &v) == 1 && match("icmp6", &v) == 0 &&
			  match("port 0", &v) == 0 && match("proto 1", &v) == 1, "icmp has no ports");
	return GPUDP_TEST_PASS;
}

static int
filter_operator_precedence(void)
{
	struct pb t;

	tcp4(&t, "10.0.0.1", "10.0.0.2", 1, 2, 0);
	/* and binds tighter: udp or (tcp and port 2) */
	GPUDP_TEST_ASSERT(match("udp or tcp and port 2", &t) == 1, "or/and");
	GPUDP_TEST_ASSERT(match("(udp or tcp) and port 3", &t) == 0, "parentheses");
	GPUDP_TEST_ASSERT(match("not udp and tcp", &t) == 1 && match("not (udp or tcp)", &t) == 0,
			  "not binds to the factor");
	GPUDP_TEST_ASSERT(match("!udp && (tcp || icmp)", &t) == 1, "symbolic operators");
	GPUDP_TEST_ASSERT(match("not not tcp", &t) == 1, "double negation");
	return GPUDP_TEST_PASS;
}

static int
filter_limits_are_enforced(void)
{
	struct gpudp_filter f;
	char expr[4096], err[200];
	size_t off = 0;
	int i;

	for (i = 0; i < 40; i++)
		off += (size_t)snprintf(expr + off, sizeof(expr) - off, "%sport %d",
					i ? " or " : "", i);
	GPUDP_TEST_ASSERT(gpudp_filter_compile(expr, &f, err, sizeof(err)) == -E2BIG,
			  "79 instructions accepted");
	off = 0;
	for (i = 0; i < 40; i++)
		off += (size_t)snprintf(expr + off, sizeof(expr) - off, "(");
	snprintf(expr + off, sizeof(expr) - off, "tcp");
	GPUDP_TEST_ASSERT(gpudp_filter_compile(expr, &f, err, sizeof(err)) == -E2BIG,
			  "deep nesting accepted");
	return GPUDP_TEST_PASS;
}

/* ---- pcapng writer and capture file reader ---- */

static int
pcapng_roundtrip_keeps_timestamps(void)
{
	char path[] = "/tmp/gpudp-test-XXXXXX";
	struct gpudp_capfile_packets pk;
	struct gpudp_capfile_info info;
	struct gpudp_pcapng *w;
	struct pb p;
	char err[256];
	int fd = mkstemp(path);

	GPUDP_TEST_ASSERT(fd >= 0, "mkstemp");
	close(fd);
	w = gpudp_pcapng_open(path, "test", "port 0", 0);
	GPUDP_TEST_ASSERT(w != NULL, "open");
	tcp4(&p, "10.0.0.1", "10.0.0.2", 1, 2, 3); /* 57 bytes: padding */
	GPUDP_TEST_ASSERT(gpudp_pcapng_write(w, p.b, p.n, 1500, 1700000000123456789ull) == 0, "w");
	GPUDP_TEST_ASSERT(gpudp_pcapng_write(w, p.b, 20, 20, 5) == 0, "w2");
	GPUDP_TEST_ASSERT(gpudp_pcapng_count(w) == 2, "count");
	GPUDP_TEST_ASSERT(gpudp_pcapng_close(w) == 0, "close");
	GPUDP_TEST_ASSERT(gpudp_capfile_inspect(path, 2048, &info, err, sizeof(err)) == 0, "%s",
			  err);
	GPUDP_TEST_ASSERT(info.format == GPUDP_CAPFILE_PCAPNG && info.packets == 2 &&
			  info.linktype == 1 && !info.truncated, "inspect");
	GPUDP_TEST_ASSERT(info.n_snaps == 1 && info.snaps[0].index == 0 &&
			  info.snaps[0].wirelen == 1500, "snapped record listed");
	gpudp_capfile_info_free(&info);
	GPUDP_TEST_ASSERT(gpudp_capfile_read_all(path, &pk, err, sizeof(err)) == 0, "%s", err);
	GPUDP_TEST_ASSERT(pk.n == 2 && pk.pkt[0].ts_ns == 1700000000123456789ull &&
			  pk.pkt[0].caplen == p.n && pk.pkt[0].wirelen == 1500 &&
			  memcmp(pk.pkt[0].data, p.b, p.n) == 0, "first packet");
	GPUDP_TEST_ASSERT(pk.pkt[1].ts_ns == 5 && pk.pkt[1].caplen == 20, "second packet");
	gpudp_capfile_packets_free(&pk);
	unlink(path);
	return GPUDP_TEST_PASS;
}

/*
 * One packet descriptor (gpudp_pkt_desc.h) from the capture file reader to
 * the analysis: gpudp_capfile_parse_descs() describes a file's records as
 * gpudp_analysis_batch() reads them, and the deprecated names of the type
 * and its fields (struct gpudp_an_pkt_desc, pad) reach the same bytes.
 */
static int
pkt_desc_from_file_reader_to_analysis(void)
{
	struct gpudp_analysis *a = gpudp_analysis_create(0, NULL);
	struct gpudp_analysis *b = gpudp_analysis_create(0, NULL);
	struct gpudp_capfile_packets pk;
	struct gpudp_pkt_desc d[64];
	struct gpudp_an_pkt_desc old = { .off = 1, .caplen = 2, .wirelen = 3, .pad = 4,
					 .ts_ns = 5 };
	struct gpudp_capfile *cf;
	uint64_t used, bytes;
	uint8_t *buf;
	uint32_t k, i;
	char err[512];
	long size;
	FILE *f;

	GPUDP_TEST_ASSERT(sizeof(struct gpudp_pkt_desc) == 24 && old.mark == 4 && old.len == 2 &&
			  old.wire_len == 3, "the descriptor's layout and its old names");
	GPUDP_TEST_ASSERT(a != NULL && b != NULL, "create");
	GPUDP_TEST_ASSERT(gpudp_capfile_read_all(CAP_TEST_DATA "/sample.pcap", &pk, err,
						 sizeof(err)) == 0, "%s", err);
	f = fopen(CAP_TEST_DATA "/sample.pcap", "rb");
	GPUDP_TEST_ASSERT(f != NULL && fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) > 24,
			  "sample.pcap");
	buf = malloc((size_t)size);
	GPUDP_TEST_ASSERT(buf != NULL && fseek(f, 0, SEEK_SET) == 0 &&
			  fread(buf, 1, (size_t)size, f) == (size_t)size, "read sample.pcap");
	fclose(f);
	GPUDP_TEST_ASSERT(gpudp_capfile_open(CAP_TEST_DATA "/sample.pcap", 0, &cf, err,
					     sizeof(err)) == 0, "%s", err);
	k = gpudp_capfile_parse_descs(cf, buf + 24, 24, (uint64_t)size - 24, UINT64_MAX, 24, d,
				      64, &used, &bytes);
	GPUDP_TEST_ASSERT(k == 64 && k <= pk.n, "%u records described", k);
	for (i = 0; i < k; i++) {
		GPUDP_TEST_ASSERT(d[i].caplen == pk.pkt[i].caplen && d[i].mark == 0 &&
				  d[i].wirelen == pk.pkt[i].wirelen &&
				  d[i].ts_ns == pk.pkt[i].ts_ns &&
				  memcmp(buf + d[i].off, pk.pkt[i].data, d[i].caplen) == 0,
				  "record %u", i);
		gpudp_analysis_packet(b, pk.pkt[i].data, pk.pkt[i].caplen, pk.pkt[i].wirelen,
				      pk.pkt[i].ts_ns);
	}
	gpudp_analysis_batch(a, d, buf, k, NULL);
	GPUDP_TEST_ASSERT(a->ctr.pkts == k && a->ctr.pkts == b->ctr.pkts &&
			  a->ctr.bytes == b->ctr.bytes, "%llu packets analysed",
			  (unsigned long long)a->ctr.pkts);
	gpudp_capfile_close(cf);
	gpudp_capfile_packets_free(&pk);
	gpudp_analysis_free(a);
	gpudp_analysis_free(b);
	free(buf);
	return GPUDP_TEST_PASS;
}

static int
capfile_reports_bad_inputs(void)
{
	struct gpudp_capfile_info info;
	struct gpudp_capfile_packets pk;
	char err[512];

	GPUDP_TEST_ASSERT(gpudp_capfile_inspect(CAP_TEST_DATA "/empty.pcap", 2048, &info, err,
						sizeof(err)) == -ENODATA, "empty: %s", err);
	GPUDP_TEST_ASSERT(strstr(err, "empty") != NULL, "message: %s", err);
	GPUDP_TEST_ASSERT(gpudp_capfile_inspect(CAP_TEST_DATA "/corrupt-header.pcap", 2048, &info,
						err, sizeof(err)) == -EINVAL, "corrupt header");
	GPUDP_TEST_ASSERT(strstr(err, "magic") != NULL, "message: %s", err);
	GPUDP_TEST_ASSERT(gpudp_capfile_inspect(CAP_TEST_DATA "/truncated.pcap", 2048, &info, err,
						sizeof(err)) == 0 &&
			  info.truncated && info.packets > 0, "truncated flagged");
	GPUDP_TEST_ASSERT(gpudp_capfile_inspect(CAP_TEST_DATA "/corrupt-record.pcap", 2048, &info,
						err, sizeof(err)) == 0 &&
			  info.truncated && info.packets == 2,
			  "corrupt record: %u packets", (unsigned int)info.packets);
	GPUDP_TEST_ASSERT(gpudp_capfile_inspect(CAP_TEST_DATA "/header-only.pcap", 2048, &info, err,
						sizeof(err)) == 0 &&
			  info.packets == 0 && !info.truncated, "header only");
	GPUDP_TEST_ASSERT(gpudp_capfile_inspect(CAP_TEST_DATA "/linux-cooked.pcap", 2048, &info,
						err, sizeof(err)) == 0 && info.linktype != 1,
			  "cooked");
	GPUDP_TEST_ASSERT(gpudp_capfile_read_all(CAP_TEST_DATA "/linux-cooked.pcap", &pk, err,
						 sizeof(err)) == -EPROTONOSUPPORT, "cooked read");
	GPUDP_TEST_ASSERT(strstr(err, "not Ethernet") != NULL, "message: %s", err);
	GPUDP_TEST_ASSERT(gpudp_capfile_inspect(CAP_TEST_DATA "/jumbo.pcap", 2048, &info, err,
						sizeof(err)) == 0 && info.oversize > 0 &&
			  info.max_caplen > 2048 && info.n_snaps == 0, "jumbo: oversize %llu",
			  (unsigned long long)info.oversize);
	GPUDP_TEST_ASSERT(gpudp_capfile_inspect(CAP_TEST_DATA "/snapped.pcap", 2048, &info, err,
						sizeof(err)) == 0 && info.n_snaps > 0 &&
			  info.snaps[0].wirelen > 96, "snapped: %zu", info.n_snaps);
	gpudp_capfile_info_free(&info);
	GPUDP_TEST_ASSERT(gpudp_capfile_inspect(CAP_TEST_DATA "/no-such-file.pcap", 2048, &info,
						err, sizeof(err)) == -ENOENT, "missing file");
	return GPUDP_TEST_PASS;
}

static int
sample_capture_is_fully_parsed(void)
{
	struct gpudp_analysis *a = gpudp_analysis_create(0, NULL);
	struct gpudp_capfile_packets pk;
	char err[512];
	size_t i;
	unsigned int k;

	GPUDP_TEST_ASSERT(a != NULL, "create");
	GPUDP_TEST_ASSERT(gpudp_capfile_read_all(CAP_TEST_DATA "/sample.pcap", &pk, err,
						 sizeof(err)) == 0, "%s", err);
	for (i = 0; i < pk.n; i++)
		gpudp_analysis_packet(a, pk.pkt[i].data, pk.pkt[i].caplen, pk.pkt[i].wirelen,
				      pk.pkt[i].ts_ns);
	GPUDP_TEST_ASSERT(a->ctr.pkts == pk.n && pk.n > 100, "packets %zu", pk.n);
	for (k = 0; k < GPUDP_AN_DROP_MAX; k++)
		GPUDP_TEST_ASSERT(a->ctr.drops[k] == 0, "drop %s: %llu", gpudp_an_drop_name(k),
				  (unsigned long long)a->ctr.drops[k]);
	GPUDP_TEST_ASSERT(a->ctr.proto_pkts[GPUDP_AN_PROTO_QINQ] > 0 &&
			  a->ctr.proto_pkts[GPUDP_AN_PROTO_IPV6_EXT] > 0 &&
			  a->ctr.proto_pkts[GPUDP_AN_PROTO_FRAG] > 0, "sample lacks a feature");
	gpudp_capfile_packets_free(&pk);
	gpudp_analysis_free(a);
	return GPUDP_TEST_PASS;
}

static const struct gpudp_test_case cases[] = {
	{ "parse_ipv4_tcp_ports", parse_ipv4_tcp_ports },
	{ "parse_vlan_and_qinq_tags", parse_vlan_and_qinq_tags },
	{ "parse_ipv6_extension_chain", parse_ipv6_extension_chain },
	{ "parse_fragments_have_ports_only_in_first", parse_fragments_have_ports_only_in_first },
	{ "parse_truncated_prefixes_never_ok", parse_truncated_prefixes_never_ok },
	{ "parse_malformed_ip_headers", parse_malformed_ip_headers },
	{ "parse_tcp_data_offset_below_5_is_malformed", parse_tcp_data_offset_below_5_is_malformed },
	{ "parse_tcp_header_past_the_datagram_is_malformed",
	  parse_tcp_header_past_the_datagram_is_malformed },
	{ "parse_tcp_options_cut_by_the_capture_are_truncated",
	  parse_tcp_options_cut_by_the_capture_are_truncated },
	{ "parse_tcp_first_fragment_header_may_go_on", parse_tcp_first_fragment_header_may_go_on },
	{ "parse_ipv4_ah_is_skipped", parse_ipv4_ah_is_skipped },
	{ "parse_ipv4_ah_fragment_keyed_by_ip_protocol", parse_ipv4_ah_fragment_keyed_by_ip_protocol },
	{ "parse_llc_snap_carries_ip", parse_llc_snap_carries_ip },
	{ "parse_pppoe_session_carries_ip", parse_pppoe_session_carries_ip },
	{ "parse_ipv4_source_route_final_destination", parse_ipv4_source_route_final_destination },
	{ "parse_ipv6_routing_header_final_destination",
	  parse_ipv6_routing_header_final_destination },
	{ "parse_routing_header_after_fragment_header_is_not_followed",
	  parse_routing_header_after_fragment_header_is_not_followed },
	{ "source_routed_flow_joins_its_reply", source_routed_flow_joins_its_reply },
	{ "encapsulated_ip_counts_as_ip", encapsulated_ip_counts_as_ip },
	{ "original_length_below_captured_counts_as_is", original_length_below_captured_counts_as_is },
	{ "flow_key_is_bidirectional", flow_key_is_bidirectional },
	{ "flow_counts_each_direction", flow_counts_each_direction },
	{ "flow_table_full_is_counted", flow_table_full_is_counted },
	{ "parse_ipv6_atomic_fragment_is_whole", parse_ipv6_atomic_fragment_is_whole },
	{ "ipv6_atomic_fragment_counts_as_udp", ipv6_atomic_fragment_counts_as_udp },
	{ "fragmented_datagram_joins_its_flow", fragmented_datagram_joins_its_flow },
	{ "ipv4_fragments_give_documented_flows", ipv4_fragments_give_documented_flows },
	{ "ipv6_fragments_give_documented_flows", ipv6_fragments_give_documented_flows },
	{ "fragment_results_do_not_depend_on_order", fragment_results_do_not_depend_on_order },
	{ "fragment_table_full_is_counted", fragment_table_full_is_counted },
	{ "fragments_merge_across_objects", fragments_merge_across_objects },
	{ "ambiguous_fragments_are_documented", ambiguous_fragments_are_documented },
	{ "size_histogram_bucket_bounds", size_histogram_bucket_bounds },
	{ "protocol_counters_per_layer", protocol_counters_per_layer },
	{ "talkers_sum_sent_and_received", talkers_sum_sent_and_received },
	{ "merge_adds_counters_and_flows", merge_adds_counters_and_flows },
	{ "take_equals_add", take_equals_add },
	{ "filter_rejects_bad_expressions", filter_rejects_bad_expressions },
	{ "filter_matches_fields", filter_matches_fields },
	{ "filter_operator_precedence", filter_operator_precedence },
	{ "filter_limits_are_enforced", filter_limits_are_enforced },
	{ "pcapng_roundtrip_keeps_timestamps", pcapng_roundtrip_keeps_timestamps },
	{ "capfile_reports_bad_inputs", capfile_reports_bad_inputs },
	{ "pkt_desc_from_file_reader_to_analysis", pkt_desc_from_file_reader_to_analysis },
	{ "sample_capture_is_fully_parsed", sample_capture_is_fully_parsed },
	{ NULL, NULL },
};

int
main(int argc, char **argv)
{
	return gpudp_test_run("capture_analysis", cases, argc, argv);
}

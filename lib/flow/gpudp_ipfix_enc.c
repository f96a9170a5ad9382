/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The IPFIX encoder: the eight templates and the data records written
 * with them (doc/flows.md has the table of elements). The template
 * records and ipfix_record_encode() list the elements in the same order;
 * test/lib/flow's decoder reads records through the templates alone, so
 * that a difference between the two fails the round trip tests.
 *
 * Element order: addresses, ports (or ICMP type and code), protocol, class
 * of service, [reverse TCP flags,] TCP flags, end reason, VLAN, start and
 * end times, packets, octets, layer 2 octets[, reverse packets, octets and
 * layer 2 octets]. The reverse TCP flags come before the forward ones:
 * nfcapd reads a reverse element it has no reverse field for as its
 * forward element, and the later of two writes wins there, so the forward
 * flags stay the forward ones.
 *
 * tcpControlBits is written in one byte (RFC 7011 section 6.2's
 * reduced-size encoding of its unsigned16): the record has the header's
 * low 8 bits only, and pmacct's nfacctd reads one-byte flags.
 */
#include <stddef.h>
#include <stdint.h>

#include "gpudp_ipfix_pvt.h"

/* IANA IPFIX information elements */
enum {
	IE_OCTET_DELTA = 1,
	IE_PACKET_DELTA = 2,
	IE_PROTOCOL = 4,
	IE_CLASS_OF_SERVICE = 5,
	IE_TCP_FLAGS = 6,
	IE_SRC_PORT = 7,
	IE_SRC_IPV4 = 8,
	IE_DST_PORT = 11,
	IE_DST_IPV4 = 12,
	IE_SRC_IPV6 = 27,
	IE_DST_IPV6 = 28,
	IE_ICMP_TYPE_CODE_V4 = 32,
	IE_VLAN_ID = 58,
	IE_FLOW_END_REASON = 136,
	IE_ICMP_TYPE_CODE_V6 = 139,
	IE_FLOW_START_MS = 152,
	IE_FLOW_END_MS = 153,
	IE_L2_OCTET_DELTA = 352,
};

#define IE_ENTERPRISE 0x8000u

static uint8_t *
put_field(uint8_t *p, uint16_t id, uint16_t len, uint16_t *count)
{
	(*count)++;
	p = ipfix_put16(p, id);
	return ipfix_put16(p, len);
}

static uint8_t *
put_reverse(uint8_t *p, uint16_t id, uint16_t len, uint16_t *count)
{
	p = put_field(p, (uint16_t)(IE_ENTERPRISE | id), len, count);
	return ipfix_put32(p, GPUDP_IPFIX_REVERSE_PEN);
}

/* One template record at @p; return its end. */
static uint8_t *
template_record(uint8_t *p, unsigned int bits)
{
	int v6 = (bits & GPUDP_IPFIX_TEMPLATE_V6) != 0;
	int icmp = (bits & GPUDP_IPFIX_TEMPLATE_ICMP) != 0;
	int bi = (bits & GPUDP_IPFIX_TEMPLATE_BIFLOW) != 0;
	uint8_t *count_at = p + 2;
	uint16_t n = 0;

	p = ipfix_put16(p, (uint16_t)(GPUDP_IPFIX_TEMPLATE_FIRST + bits));
	p += 2; /* field count, below */
	p = put_field(p, v6 ? IE_SRC_IPV6 : IE_SRC_IPV4, v6 ? 16 : 4, &n);
	p = put_field(p, v6 ? IE_DST_IPV6 : IE_DST_IPV4, v6 ? 16 : 4, &n);
	if (icmp) {
		p = put_field(p, v6 ? IE_ICMP_TYPE_CODE_V6 : IE_ICMP_TYPE_CODE_V4, 2, &n);
	} else {
		p = put_field(p, IE_SRC_PORT, 2, &n);
		p = put_field(p, IE_DST_PORT, 2, &n);
	}
	p = put_field(p, IE_PROTOCOL, 1, &n);
	p = put_field(p, IE_CLASS_OF_SERVICE, 1, &n);
	if (bi)
		p = put_reverse(p, IE_TCP_FLAGS, 1, &n);
	p = put_field(p, IE_TCP_FLAGS, 1, &n);
	p = put_field(p, IE_FLOW_END_REASON, 1, &n);
	p = put_field(p, IE_VLAN_ID, 2, &n);
	p = put_field(p, IE_FLOW_START_MS, 8, &n);
	p = put_field(p, IE_FLOW_END_MS, 8, &n);
	p = put_field(p, IE_PACKET_DELTA, 8, &n);
	p = put_field(p, IE_OCTET_DELTA, 8, &n);
	p = put_field(p, IE_L2_OCTET_DELTA, 8, &n);
	if (bi) {
		p = put_reverse(p, IE_PACKET_DELTA, 8, &n);
		p = put_reverse(p, IE_OCTET_DELTA, 8, &n);
		p = put_reverse(p, IE_L2_OCTET_DELTA, 8, &n);
	}
	ipfix_put16(count_at, n);
	return p;
}

void
ipfix_templates_build(struct ipfix_templates *t)
{
	uint8_t *p = t->bytes;
	unsigned int i;

	for (i = 0; i < GPUDP_IPFIX_TEMPLATES; i++) {
		uint8_t *end = template_record(p, i);

		t->off[i] = (uint16_t)(p - t->bytes);
		t->len[i] = (uint16_t)(end - p);
		p = end;
	}
}

/* data record lengths by template bits: v4/v6, ports/ICMP, one way/biflow */
static const uint8_t rec_len[GPUDP_IPFIX_TEMPLATES] = {
	58, 82, 56, 80, 83, 107, 81, 105,
};

uint32_t
gpudp_ipfix_record_len(uint16_t tid)
{
	if (tid < GPUDP_IPFIX_TEMPLATE_FIRST ||
	    tid >= GPUDP_IPFIX_TEMPLATE_FIRST + GPUDP_IPFIX_TEMPLATES)
		return 0;
	return rec_len[tid - GPUDP_IPFIX_TEMPLATE_FIRST];
}

uint16_t
gpudp_ipfix_template_of(const struct gpudp_flow_rec *rec)
{
	unsigned int bits;

	if (rec->af == 4)
		bits = rec->proto == 1 ? GPUDP_IPFIX_TEMPLATE_ICMP : 0;
	else if (rec->af == 6)
		bits = GPUDP_IPFIX_TEMPLATE_V6 | (rec->proto == 58 ? GPUDP_IPFIX_TEMPLATE_ICMP : 0);
	else
		return 0;
	if (rec->flags & GPUDP_FLOW_REC_BIFLOW)
		bits |= GPUDP_IPFIX_TEMPLATE_BIFLOW;
	return (uint16_t)(GPUDP_IPFIX_TEMPLATE_FIRST + bits);
}

uint32_t
ipfix_record_encode(uint8_t *p, uint16_t tid, const struct gpudp_flow_rec *rec)
{
	unsigned int bits = (unsigned int)tid - GPUDP_IPFIX_TEMPLATE_FIRST;
	int bi = (bits & GPUDP_IPFIX_TEMPLATE_BIFLOW) != 0;
	uint8_t *start = p;

	if (bits & GPUDP_IPFIX_TEMPLATE_V6) {
		memcpy(p, rec->src, 16);
		memcpy(p + 16, rec->dst, 16);
		p += 32;
	} else {
		memcpy(p, rec->src, 4);
		memcpy(p + 4, rec->dst, 4);
		p += 8;
	}
	if (bits & GPUDP_IPFIX_TEMPLATE_ICMP) {
		p = ipfix_put16(p, rec->dport);
	} else {
		p = ipfix_put16(p, rec->sport);
		p = ipfix_put16(p, rec->dport);
	}
	*p++ = rec->proto;
	*p++ = rec->tos;
	if (bi)
		*p++ = rec->rtcp_flags;
	*p++ = rec->tcp_flags;
	*p++ = rec->end_reason;
	p = ipfix_put16(p, rec->vlan);
	p = ipfix_put64(p, rec->first_ns / 1000000u);
	p = ipfix_put64(p, rec->last_ns / 1000000u);
	p = ipfix_put64(p, rec->packets);
	p = ipfix_put64(p, rec->octets);
	p = ipfix_put64(p, rec->l2_octets);
	if (bi) {
		p = ipfix_put64(p, rec->rpackets);
		p = ipfix_put64(p, rec->roctets);
		p = ipfix_put64(p, rec->rl2_octets);
	}
	return (uint32_t)(p - start);
}

unsigned int
ipfix_msg_add_templates(struct ipfix_msg *m, const struct ipfix_templates *t,
			unsigned int first)
{
	unsigned int i = first;

	ipfix_msg_close_set(m);
	if (m->len + IPFIX_SET_HDR + t->len[i] > m->max)
		return i;
	m->set_off = m->len;
	m->set_id = IPFIX_SET_TEMPLATE;
	ipfix_put16(m->buf + m->len, IPFIX_SET_TEMPLATE);
	m->len += IPFIX_SET_HDR;
	for (; i < GPUDP_IPFIX_TEMPLATES && m->len + t->len[i] <= m->max; i++) {
		memcpy(m->buf + m->len, t->bytes + t->off[i], t->len[i]);
		m->len += t->len[i];
	}
	ipfix_msg_close_set(m);
	m->templates = true;
	return i;
}

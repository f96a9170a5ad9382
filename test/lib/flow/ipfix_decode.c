/* SPDX-License-Identifier: BSD-3-Clause */
/* TEST ONLY: the strict IPFIX decoder of ipfix_decode.h. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "ipfix_decode.h"

#define REVERSE_PEN 29305u

#define FAIL(d, ...) do { \
	snprintf((d)->err, sizeof((d)->err), __VA_ARGS__); \
	return -1; \
} while (0)

static uint16_t
get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t
get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t
getn(const uint8_t *p, unsigned int n)
{
	uint64_t v = 0;

	while (n-- > 0)
		v = v << 8 | *p++;
	return v;
}

void
ipfix_dec_init(struct ipfix_dec *d, uint32_t domain, uint32_t max_msg)
{
	memset(d, 0, sizeof(*d));
	d->domain = domain;
	d->max_msg = max_msg;
}

/* the length each known element may have */
static int
field_ok(const struct ipfix_dec_field *f)
{
	if (f->pen == REVERSE_PEN)
		return (f->id == 6 && (f->len == 1 || f->len == 2)) ||
		       ((f->id == 1 || f->id == 2 || f->id == 352) && f->len >= 1 && f->len <= 8);
	if (f->pen != 0)
		return 0;
	switch (f->id) {
	case 8: case 12:
		return f->len == 4;
	case 27: case 28:
		return f->len == 16;
	case 7: case 11: case 32: case 139: case 58:
		return f->len == 2;
	case 4: case 5: case 136:
		return f->len == 1;
	case 6:
		return f->len == 1 || f->len == 2;
	case 152: case 153:
		return f->len == 8;
	case 1: case 2: case 352:
		return f->len >= 1 && f->len <= 8;
	default:
		return 0;
	}
}

static int
template_set(struct ipfix_dec *d, const uint8_t *p, uint32_t len)
{
	d->template_sets++;
	while (len > 0) {
		struct ipfix_dec_tmpl t;
		uint16_t id, nf, i;

		if (len < 4)
			FAIL(d, "template set: %u bytes left, a template record header is 4", len);
		id = get16(p);
		nf = get16(p + 2);
		p += 4;
		len -= 4;
		if (id < 256 || id > 511)
			FAIL(d, "template id %u outside 256..511", id);
		if (nf == 0)
			FAIL(d, "template %u: withdrawal (0 fields)", id);
		if (nf > IPFIX_DEC_MAX_FIELDS)
			FAIL(d, "template %u: %u fields", id, nf);
		memset(&t, 0, sizeof(t));
		t.known = true;
		t.nf = nf;
		for (i = 0; i < nf; i++) {
			struct ipfix_dec_field *f = &t.f[i];
			uint16_t raw;

			if (len < 4)
				FAIL(d, "template %u: field %u cut short", id, i);
			raw = get16(p);
			f->id = raw & 0x7fff;
			f->len = get16(p + 2);
			p += 4;
			len -= 4;
			if (raw & 0x8000) {
				if (len < 4)
					FAIL(d, "template %u: enterprise number of field %u cut short",
					     id, i);
				f->pen = get32(p);
				p += 4;
				len -= 4;
			}
			if (f->len == 0xffff)
				FAIL(d, "template %u: field %u (%u) of variable length", id, i, f->id);
			if (!field_ok(f))
				FAIL(d, "template %u: field %u: element %u (enterprise %u) of "
				     "length %u not expected", id, i, f->id, f->pen, f->len);
			t.reclen += f->len;
		}
		d->t[id - 256] = t;
		d->template_records++;
	}
	return 0;
}

static void
decode_record(const struct ipfix_dec_tmpl *t, const uint8_t *p, struct gpudp_flow_rec *r)
{
	uint16_t i;

	memset(r, 0, sizeof(*r));
	for (i = 0; i < t->nf; i++) {
		const struct ipfix_dec_field *f = &t->f[i];
		uint64_t v = f->len <= 8 ? getn(p, f->len) : 0;

		if (f->pen == REVERSE_PEN) {
			r->flags |= GPUDP_FLOW_REC_BIFLOW;
			switch (f->id) {
			case 6: r->rtcp_flags = (uint8_t)v; break;
			case 2: r->rpackets = v; break;
			case 1: r->roctets = v; break;
			case 352: r->rl2_octets = v; break;
			}
			p += f->len;
			continue;
		}
		switch (f->id) {
		case 8: memcpy(r->src, p, 4); r->af = 4; break;
		case 12: memcpy(r->dst, p, 4); break;
		case 27: memcpy(r->src, p, 16); r->af = 6; break;
		case 28: memcpy(r->dst, p, 16); break;
		case 7: r->sport = (uint16_t)v; break;
		case 11: case 32: case 139: r->dport = (uint16_t)v; break;
		case 4: r->proto = (uint8_t)v; break;
		case 5: r->tos = (uint8_t)v; break;
		case 6: r->tcp_flags = (uint8_t)v; break;
		case 136: r->end_reason = (uint8_t)v; break;
		case 58: r->vlan = (uint16_t)v; break;
		case 152: r->first_ns = v * 1000000u; break;
		case 153: r->last_ns = v * 1000000u; break;
		case 2: r->packets = v; break;
		case 1: r->octets = v; break;
		case 352: r->l2_octets = v; break;
		}
		p += f->len;
	}
}

int
ipfix_dec_message(struct ipfix_dec *d, const uint8_t *msg, size_t len,
		  struct gpudp_flow_rec *out, size_t max, size_t *nout)
{
	uint32_t mlen, seq, nrec = 0;
	const uint8_t *p, *end;
	bool templates = false;

	*nout = 0;
	if (len < 16)
		FAIL(d, "message %" PRIu64 ": %zu bytes, the header is 16", d->msgs, len);
	if (get16(msg) != 10)
		FAIL(d, "message %" PRIu64 ": version %u", d->msgs, get16(msg));
	mlen = get16(msg + 2);
	if (mlen != len)
		FAIL(d, "message %" PRIu64 ": header length %u, %zu bytes given", d->msgs, mlen, len);
	if (d->max_msg != 0 && mlen > d->max_msg)
		FAIL(d, "message %" PRIu64 ": %u bytes, over the limit %u", d->msgs, mlen,
		     d->max_msg);
	seq = get32(msg + 8);
	if (get32(msg + 12) != d->domain)
		FAIL(d, "message %" PRIu64 ": observation domain %u, expected %u", d->msgs,
		     get32(msg + 12), d->domain);
	if (d->have_seq && seq != d->next_seq)
		FAIL(d, "message %" PRIu64 ": sequence %u, expected %u", d->msgs, seq, d->next_seq);
	if (mlen == 16)
		FAIL(d, "message %" PRIu64 ": no set", d->msgs);
	d->last_first_tid = 0;
	p = msg + 16;
	end = msg + mlen;
	while (p < end) {
		uint16_t sid, slen;
		const struct ipfix_dec_tmpl *t;
		uint32_t body, n, i;

		if (end - p < 4)
			FAIL(d, "message %" PRIu64 ": %td bytes after the last set", d->msgs, end - p);
		sid = get16(p);
		slen = get16(p + 2);
		if (slen <= 4 || slen > end - p)
			FAIL(d, "message %" PRIu64 ": set %u of length %u (%td bytes left)", d->msgs,
			     sid, slen, end - p);
		body = slen - 4u;
		if (sid == 2) {
			if (template_set(d, p + 4, body) != 0)
				return -1;
			templates = true;
		} else if (sid < 256) {
			FAIL(d, "message %" PRIu64 ": set id %u", d->msgs, sid);
		} else {
			if (sid > 511 || !d->t[sid - 256].known)
				FAIL(d, "message %" PRIu64 ": data set of unknown template %u", d->msgs,
				     sid);
			t = &d->t[sid - 256];
			if (body % t->reclen != 0)
				FAIL(d, "message %" PRIu64 ": data set %u: %u bytes, not a whole number "
				     "of %u-byte records", d->msgs, sid, body, t->reclen);
			n = body / t->reclen;
			if (d->last_first_tid == 0)
				d->last_first_tid = sid;
			for (i = 0; i < n; i++) {
				if (*nout < max)
					decode_record(t, p + 4 + i * t->reclen, &out[*nout]);
				(*nout)++;
			}
			nrec += n;
		}
		p += slen;
	}
	if (*nout > max)
		FAIL(d, "message %" PRIu64 ": more records than the %zu expected", d->msgs, max);
	d->have_seq = true;
	d->next_seq = seq + nrec;
	d->msgs++;
	d->records += nrec;
	d->last_msg_len = mlen;
	d->last_msg_records = nrec;
	d->last_msg_templates = templates;
	return 0;
}

int
ipfix_dec_stream(struct ipfix_dec *d, const uint8_t *p, size_t len,
		 struct gpudp_flow_rec *out, size_t max, size_t *nout)
{
	size_t n;

	*nout = 0;
	while (len > 0) {
		uint16_t mlen;

		if (len < 4)
			FAIL(d, "stream: %zu bytes at the end, not a message", len);
		mlen = get16(p + 2);
		if (mlen < 16 || mlen > len)
			FAIL(d, "stream: message %" PRIu64 " of length %u, %zu bytes left", d->msgs,
			     mlen, len);
		if (ipfix_dec_message(d, p, mlen, out + *nout, max - *nout, &n) != 0)
			return -1;
		*nout += n;
		p += mlen;
		len -= mlen;
	}
	return 0;
}

void
ipfix_dec_expect(const struct gpudp_flow_rec *in, struct gpudp_flow_rec *out)
{
	int icmp = (in->af == 4 && in->proto == 1) || (in->af == 6 && in->proto == 58);

	*out = *in;
	if (in->af == 4) {
		memset(out->src + 4, 0, 12);
		memset(out->dst + 4, 0, 12);
	}
	out->first_ns = in->first_ns / 1000000u * 1000000u;
	out->last_ns = in->last_ns / 1000000u * 1000000u;
	if (icmp)
		out->sport = 0;
	out->flags = in->flags & GPUDP_FLOW_REC_BIFLOW;
	out->pad = 0;
	if (!(in->flags & GPUDP_FLOW_REC_BIFLOW)) {
		out->rpackets = 0;
		out->roctets = 0;
		out->rl2_octets = 0;
		out->rtcp_flags = 0;
	}
}

int
ipfix_dec_compare(const struct gpudp_flow_rec *a, const struct gpudp_flow_rec *b,
		  char *why, size_t whylen)
{
#define CMP(f) do { \
	if (a->f != b->f) { \
		snprintf(why, whylen, "%s: want %" PRIu64 ", got %" PRIu64, #f, \
			 (uint64_t)a->f, (uint64_t)b->f); \
		return -1; \
	} \
} while (0)
	if (memcmp(a->src, b->src, 16) != 0) {
		snprintf(why, whylen, "src differs");
		return -1;
	}
	if (memcmp(a->dst, b->dst, 16) != 0) {
		snprintf(why, whylen, "dst differs");
		return -1;
	}
	CMP(af);
	CMP(sport);
	CMP(dport);
	CMP(proto);
	CMP(tos);
	CMP(end_reason);
	CMP(vlan);
	CMP(tcp_flags);
	CMP(rtcp_flags);
	CMP(flags);
	CMP(pad);
	CMP(first_ns);
	CMP(last_ns);
	CMP(packets);
	CMP(octets);
	CMP(l2_octets);
	CMP(rpackets);
	CMP(roctets);
	CMP(rl2_octets);
#undef CMP
	return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Alert records as EVE JSON lines (gpudp_rules_eve.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <gpudp_flow_cid.h>

#include "gpudp_rules_eve.h"

/* the output so far: @p n bytes wanted, those that fit written */
struct out {
	char *buf;
	size_t len, n;
};

static void
put(struct out *o, const char *s, size_t k)
{
	if (o->n < o->len) {
		size_t room = o->len - o->n;

		memcpy(o->buf + o->n, s, k < room ? k : room);
	}
	o->n += k;
}

static void
putf(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
putf(struct out *o, const char *fmt, ...)
{
	char tmp[160];
	va_list ap;
	int k;

	va_start(ap, fmt);
	k = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	put(o, tmp, k < (int)sizeof(tmp) ? (size_t)k : sizeof(tmp) - 1);
}

/* bytes of the UTF-8 sequence at @p s (@p n left), 0 when not one */
static size_t
utf8_len(const uint8_t *s, size_t n)
{
	size_t k, i;
	uint32_t c;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		k = 2, c = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		k = 3, c = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		k = 4, c = s[0] & 0x07;
	else
		return 0;
	if (k > n)
		return 0;
	for (i = 1; i < k; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	/* no overlong form, surrogate or code point past U+10FFFF */
	if ((k == 3 && c < 0x800) || (k == 4 && (c < 0x10000 || c > 0x10ffff)) ||
	    (c >= 0xd800 && c <= 0xdfff))
		return 0;
	return k;
}

/* @p s as a JSON string: its first GPUDP_RULES_EVE_TEXT_MAX bytes */
static void
put_str(struct out *o, const char *s)
{
	const uint8_t *p = (const uint8_t *)s;
	size_t n = strnlen(s, GPUDP_RULES_EVE_TEXT_MAX), i = 0, k;

	put(o, "\"", 1);
	while (i < n) {
		if (p[i] == '"' || p[i] == '\\') {
			put(o, "\\", 1);
			put(o, s + i, 1);
			i++;
		} else if (p[i] < 0x20 || p[i] == 0x7f) {
			putf(o, "\\u%04x", p[i]);
			i++;
		} else if ((k = utf8_len(p + i, n - i)) != 0) {
			put(o, s + i, k);
			i += k;
		} else {
			put(o, "\\ufffd", 6);
			i++;
		}
	}
	put(o, "\"", 1);
}

static const char *
proto_name(const struct gpudp_rule_pkt *k, char *tmp, size_t len)
{
	switch (k->proto) {
	case 6: return "TCP";
	case 17: return "UDP";
	case 1: return "ICMP";
	case 58: return "IPV6-ICMP";
	default:
		snprintf(tmp, len, "%u", k->proto);
		return tmp;
	}
}

int
gpudp_rules_eve_format(const struct gpudp_rules_img *img, const struct gpudp_rule_alert *a,
		       enum gpudp_rules_eve_action action, char *buf, size_t len)
{
	const struct gpudp_rule *r = GPUDP_RULES_IMG_AT(img, const struct gpudp_rule,
							img->off_rule);
	const char *bytes = GPUDP_RULES_IMG_AT(img, const char, img->off_bytes);
	const struct gpudp_rule_pkt *k = &a->pkt;
	struct out o = { .buf = buf, .len = len };
	struct gpudp_flow_rec fr;
	char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN], cid[GPUDP_FLOW_CID_SIZE], tmp[8];
	time_t sec = (time_t)(a->ts_ns / 1000000000u);
	int icmp = k->proto == 1 || k->proto == 58;
	struct tm tm;

	if (a->rule >= img->n_rule)
		return -EINVAL;
	r += a->rule;
	gmtime_r(&sec, &tm);
	inet_ntop(k->af == 6 ? AF_INET6 : AF_INET, k->src, src, sizeof(src));
	inet_ntop(k->af == 6 ? AF_INET6 : AF_INET, k->dst, dst, sizeof(dst));
	memset(&fr, 0, sizeof(fr));
	memcpy(fr.src, k->src, sizeof(fr.src));
	memcpy(fr.dst, k->dst, sizeof(fr.dst));
	fr.sport = k->sport;
	fr.dport = k->dport;
	fr.af = k->af;
	fr.proto = k->proto;
	if (gpudp_flow_community_id(&fr, 0, cid, sizeof(cid)) < 0)
		cid[0] = 0;
	putf(&o, "{\"timestamp\":\"%04d-%02d-%02dT%02d:%02d:%02d.%06u+0000\","
	     "\"event_type\":\"alert\",\"src_ip\":\"%s\",", tm.tm_year + 1900, tm.tm_mon + 1,
	     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
	     (unsigned int)(a->ts_ns % 1000000000u / 1000u), src);
	if (!icmp)
		putf(&o, "\"src_port\":%u,", k->sport);
	putf(&o, "\"dest_ip\":\"%s\",", dst);
	if (icmp)
		putf(&o, "\"icmp_type\":%u,\"icmp_code\":%u,", k->dport >> 8, k->dport & 0xffu);
	else
		putf(&o, "\"dest_port\":%u,", k->dport);
	putf(&o, "\"proto\":\"%s\",\"community_id\":\"%s\",", proto_name(k, tmp, sizeof(tmp)),
	     cid);
	putf(&o, "\"alert\":{\"action\":\"%s\",\"gid\":1,\"signature_id\":%" PRIu32
	     ",\"rev\":%" PRIu32 ",\"signature\":",
	     action == GPUDP_RULES_EVE_BLOCKED ? "blocked" : "allowed", r->sid, r->rev);
	put_str(&o, r->msg != UINT32_MAX ? bytes + r->msg : "");
	put(&o, ",\"category\":", 12);
	put_str(&o, r->classtype != UINT32_MAX ? bytes + r->classtype : "");
	putf(&o, ",\"severity\":%" PRIu32 "}}\n", r->priority != 0 ? r->priority : 3u);
	if (len > 0)
		buf[o.n < len ? o.n : len - 1] = 0;
	return o.n > INT32_MAX ? INT32_MAX : (int)o.n;
}

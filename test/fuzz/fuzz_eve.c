/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: alerts as EVE JSON lines (gpudp_rules_eve_format(),
 * lib/rules/gpudp_rules_eve.c). From the input: a rule's sid, rev and
 * priority, its msg and classtype (any bytes but NUL), and a packet's
 * family, addresses, protocol, ports and time. The line written is parsed
 * back here by a JSON reader of the target's own and every field compared
 * with what went in: the text fields byte for byte (the bytes that are not
 * UTF-8 as U+FFFD, cut at GPUDP_RULES_EVE_TEXT_MAX bytes), the numbers, the
 * addresses (inet_pton of the text), the protocol's name, and the line is
 * one JSON object and a newline.
 */
#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpudp_rules.h"
#include "gpudp_rules_eve.h"
#include "gpudp_rules_img.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c, ...) do { \
	if (!(c)) { \
		fprintf(stderr, "fuzz_eve: %s: ", #c); \
		fprintf(stderr, __VA_ARGS__); \
		fputc('\n', stderr); \
		abort(); \
	} \
} while (0)

/* ---- a small JSON reader: one object of strings, integers and objects ---- */

#define MAX_KEYS 32

struct jval {
	char key[32];
	int kind;            /* 's' string, 'n' integer, 'o' object */
	char *str;           /* 's': unescaped (malloc()ed) */
	size_t str_len;
	long long num;
};

struct jobj {
	struct jval v[MAX_KEYS];
	int n;
	struct jobj *sub;    /* the one nested object (alert) */
};

static const char *
ws(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

static void
put_utf8(char **o, uint32_t c)
{
	if (c < 0x80) {
		*(*o)++ = (char)c;
	} else if (c < 0x800) {
		*(*o)++ = (char)(0xc0 | c >> 6);
		*(*o)++ = (char)(0x80 | (c & 0x3f));
	} else {
		*(*o)++ = (char)(0xe0 | c >> 12);
		*(*o)++ = (char)(0x80 | ((c >> 6) & 0x3f));
		*(*o)++ = (char)(0x80 | (c & 0x3f));
	}
}

/* a string at @p p ("..."), unescaped into *out; @return past it or NULL */
static const char *
jstring(const char *p, char **out, size_t *len)
{
	char *o, *b;

	if (*p != '"')
		return NULL;
	b = o = malloc(strlen(p) * 3 + 1);
	CHECK(b != NULL, "malloc");
	for (p++; *p != '"'; p++) {
		unsigned char c = (unsigned char)*p;

		CHECK(c >= 0x20 && c != 0x7f, "a raw control byte 0x%02x in a string", c);
		if (c != '\\') {
			*o++ = (char)c;
			continue;
		}
		p++;
		if (*p == '"' || *p == '\\' || *p == '/') {
			*o++ = *p;
		} else if (*p == 'u') {
			unsigned int u;

			CHECK(sscanf(p + 1, "%4x", &u) == 1, "a bad \\u escape");
			CHECK(u < 0xd800 || u > 0xdfff, "a surrogate escape");
			put_utf8(&o, u);
			p += 4;
		} else {
			CHECK(0, "an escape the writer does not use: \\%c", *p);
		}
	}
	*o = 0;
	*out = b;
	*len = (size_t)(o - b);
	return p + 1;
}

static const char *jobject(const char *p, struct jobj *j);

static const char *
jvalue(const char *p, struct jval *v, struct jobj *j)
{
	if (*p == '"') {
		v->kind = 's';
		return jstring(p, &v->str, &v->str_len);
	}
	if (*p == '{') {
		v->kind = 'o';
		CHECK(j->sub == NULL, "two nested objects");
		j->sub = calloc(1, sizeof(*j->sub));
		CHECK(j->sub != NULL, "malloc");
		return jobject(p, j->sub);
	}
	if (*p == '-' || (*p >= '0' && *p <= '9')) {
		char *e;

		v->kind = 'n';
		v->num = strtoll(p, &e, 10);
		CHECK(e > p, "a number");
		return e;
	}
	return NULL;
}

static const char *
jobject(const char *p, struct jobj *j)
{
	p = ws(p);
	CHECK(*p == '{', "an object");
	p = ws(p + 1);
	while (*p != '}') {
		struct jval *v;
		char *k;
		size_t kl;

		CHECK(j->n < MAX_KEYS, "too many keys");
		v = &j->v[j->n++];
		p = jstring(p, &k, &kl);
		CHECK(p != NULL && kl < sizeof(v->key), "a key");
		memcpy(v->key, k, kl + 1);
		free(k);
		p = ws(p);
		CHECK(*p == ':', "':' after key %s", v->key);
		p = jvalue(ws(p + 1), v, j);
		CHECK(p != NULL, "the value of %s", v->key);
		p = ws(p);
		if (*p == ',')
			p = ws(p + 1);
		else
			CHECK(*p == '}', "',' or '}' after %s", v->key);
	}
	return p + 1;
}

static const struct jval *
get(const struct jobj *j, const char *key, int kind)
{
	int i;

	for (i = 0; i < j->n; i++)
		if (strcmp(j->v[i].key, key) == 0) {
			CHECK(j->v[i].kind == kind, "%s: kind %c, want %c", key, j->v[i].kind, kind);
			return &j->v[i];
		}
	return NULL;
}

static void
jfree(struct jobj *j)
{
	int i;

	for (i = 0; i < j->n; i++)
		free(j->v[i].str);
	if (j->sub != NULL) {
		jfree(j->sub);
		free(j->sub);
	}
}

/* ---- what the writer must give ---- */

/* @p s (@p n bytes) as the writer gives it: cut, non-UTF-8 bytes U+FFFD */
static size_t
expect_text(const uint8_t *s, size_t n, char *out)
{
	size_t i = 0, k, o = 0;

	if (n > GPUDP_RULES_EVE_TEXT_MAX)
		n = GPUDP_RULES_EVE_TEXT_MAX;
	while (i < n) {
		uint32_t c = s[i];

		k = 0;
		if (c < 0x80)
			k = 1;
		else if (c >= 0xc2 && c <= 0xdf)
			k = 2;
		else if (c >= 0xe0 && c <= 0xef)
			k = 3;
		else if (c >= 0xf0 && c <= 0xf4)
			k = 4;
		if (k > 1) {
			size_t t;
			uint32_t cp = c & (0x7f >> k);

			if (i + k > n)
				k = 0;
			for (t = 1; k && t < k; t++) {
				if ((s[i + t] & 0xc0) != 0x80)
					k = 0;
				else
					cp = cp << 6 | (s[i + t] & 0x3f);
			}
			if (k && ((k == 3 && cp < 0x800) || (k == 4 && (cp < 0x10000 ||
			    cp > 0x10ffff)) || (cp >= 0xd800 && cp <= 0xdfff)))
				k = 0;
		}
		if (k == 0) {
			memcpy(out + o, "\xef\xbf\xbd", 3);
			o += 3;
			i++;
		} else {
			memcpy(out + o, s + i, k);
			o += k;
			i += k;
		}
	}
	out[o] = 0;
	return o;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char line[GPUDP_RULES_EVE_LINE_MAX];
	static char want[3 * GPUDP_RULES_EVE_TEXT_MAX + 1];
	struct gpudp_rule_check ck = { 0 };
	struct gpudp_rule r = { 0 };
	struct gpudp_rules rs;
	struct gpudp_rules_img *img;
	struct gpudp_rule_alert a = { 0 };
	const uint8_t *msg, *cls;
	size_t nmsg, ncls, half;
	uint8_t *bytes;
	struct jobj j = { 0 };
	const struct jval *v;
	char addr[INET6_ADDRSTRLEN];
	uint8_t back[16];
	int n, icmp;

	if (size < 64)
		return 0;
	/* the fixed part: numbers and the packet */
	memcpy(&r.sid, data, 4);
	memcpy(&r.rev, data + 4, 4);
	r.priority = data[8];
	a.pkt.af = data[9] & 1 ? 6 : 4;
	a.pkt.proto = data[10] % 4 == 0 ? 6 : data[10] % 4 == 1 ? 17 :
		data[10] % 4 == 2 ? (a.pkt.af == 6 ? 58 : 1) : data[11];
	memcpy(&a.pkt.sport, data + 12, 2);
	memcpy(&a.pkt.dport, data + 14, 2);
	memcpy(a.pkt.src, data + 16, 16);
	memcpy(a.pkt.dst, data + 32, 16);
	if (a.pkt.af == 4) {
		memset(a.pkt.src + 4, 0, 12);
		memset(a.pkt.dst + 4, 0, 12);
	}
	memcpy(&a.ts_ns, data + 48, 8);
	a.ts_ns %= 4102444800ull * 1000000000ull;   /* before 2100 */
	/* the rest: msg, then classtype, NULs taken out */
	half = (size - 56) / 2;
	msg = data + 56;
	cls = data + 56 + half;
	nmsg = strnlen((const char *)msg, half);
	ncls = strnlen((const char *)cls, size - 56 - half);
	bytes = malloc(nmsg + ncls + 2);
	CHECK(bytes != NULL, "malloc");
	memcpy(bytes, msg, nmsg);
	bytes[nmsg] = 0;
	memcpy(bytes + nmsg + 1, cls, ncls);
	bytes[nmsg + 1 + ncls] = 0;
	r.sid = r.sid ? r.sid : 1;
	r.action = GPUDP_RULE_ALERT;
	r.proto = GPUDP_RULE_IP;
	r.msg = 0;
	r.classtype = ncls ? (uint32_t)nmsg + 1 : UINT32_MAX;
	r.fast = -1;
	memset(&rs, 0, sizeof(rs));
	rs.rule = &r;
	rs.n_rule = 1;
	rs.check = &ck;
	rs.bytes = bytes;
	rs.n_bytes = (uint32_t)(nmsg + ncls + 2);
	img = gpudp_rules_img_build(&rs, NULL, 0);
	CHECK(img != NULL, "image");
	n = gpudp_rules_eve_format(img, &a, data[11] & 1 ? GPUDP_RULES_EVE_BLOCKED :
				   GPUDP_RULES_EVE_ALLOWED, line, sizeof(line));
	CHECK(n > 0 && (size_t)n < sizeof(line) && line[n - 1] == '\n' &&
	      memchr(line, '\n', (size_t)n - 1) == NULL && strlen(line) == (size_t)n,
	      "one line: %d", n);
	CHECK(*jobject(line, &j) == '\n', "nothing but the object on the line");
	CHECK((v = get(&j, "event_type", 's')) && strcmp(v->str, "alert") == 0, "event_type");
	CHECK((v = get(&j, "timestamp", 's')) && v->str_len == 31, "timestamp");
	inet_ntop(a.pkt.af == 6 ? AF_INET6 : AF_INET, a.pkt.src, addr, sizeof(addr));
	CHECK((v = get(&j, "src_ip", 's')) && inet_pton(a.pkt.af == 6 ? AF_INET6 : AF_INET,
						     v->str, back) == 1 &&
	      memcmp(back, a.pkt.src, a.pkt.af == 6 ? 16 : 4) == 0, "src_ip %s", addr);
	CHECK((v = get(&j, "dest_ip", 's')) && inet_pton(a.pkt.af == 6 ? AF_INET6 : AF_INET,
						      v->str, back) == 1 &&
	      memcmp(back, a.pkt.dst, a.pkt.af == 6 ? 16 : 4) == 0, "dest_ip");
	icmp = a.pkt.proto == 1 || a.pkt.proto == 58;
	if (icmp)
		CHECK((v = get(&j, "icmp_type", 'n')) && v->num == a.pkt.dport >> 8 &&
		      (v = get(&j, "icmp_code", 'n')) && v->num == (a.pkt.dport & 0xff) &&
		      !get(&j, "src_port", 'n'), "ICMP type and code");
	else
		CHECK((v = get(&j, "src_port", 'n')) && v->num == a.pkt.sport &&
		      (v = get(&j, "dest_port", 'n')) && v->num == a.pkt.dport, "ports");
	v = get(&j, "proto", 's');
	CHECK(v != NULL && (a.pkt.proto == 6 ? strcmp(v->str, "TCP") == 0 :
			    a.pkt.proto == 17 ? strcmp(v->str, "UDP") == 0 :
			    a.pkt.proto == 1 ? strcmp(v->str, "ICMP") == 0 :
			    a.pkt.proto == 58 ? strcmp(v->str, "IPV6-ICMP") == 0 :
			    atoi(v->str) == a.pkt.proto), "proto %s", v ? v->str : "none");
	CHECK((v = get(&j, "community_id", 's')) && v->str_len == 30 &&
	      strncmp(v->str, "1:", 2) == 0, "community_id");
	CHECK(j.sub != NULL, "alert");
	CHECK((v = get(j.sub, "signature_id", 'n')) && v->num == r.sid, "sid");
	CHECK((v = get(j.sub, "rev", 'n')) && v->num == r.rev, "rev");
	CHECK((v = get(j.sub, "gid", 'n')) && v->num == 1, "gid");
	CHECK((v = get(j.sub, "severity", 'n')) && v->num == (r.priority ? r.priority : 3),
	      "severity");
	CHECK((v = get(j.sub, "action", 's')) &&
	      strcmp(v->str, data[11] & 1 ? "blocked" : "allowed") == 0, "action");
	expect_text(msg, nmsg, want);
	CHECK((v = get(j.sub, "signature", 's')) && strcmp(v->str, want) == 0,
	      "signature: '%s', want '%s'", v ? v->str : "none", want);
	expect_text(cls, ncls, want);
	CHECK((v = get(j.sub, "category", 's')) && strcmp(v->str, want) == 0, "category");
	jfree(&j);
	free(img);
	free(bytes);
	return 0;
}

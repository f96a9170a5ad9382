/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/rules (gpudp_rules.h, doc/rules.md): a rule's every field as parsed;
 * address and port lists (negation, nesting, CIDR, ranges, variables);
 * each kind of bad rule refused naming its file, line and cause; keywords
 * outside the subset refused, or skipped with one warning each; a rule
 * that fails leaves nothing behind; and the round trip: 20,000 random
 * rules written by gpudp_rule_format() parse back equal.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpudp_rules.h>
#include <gpudp_test.h>
#include <gpudp_test_rules.h>

static int
parse(struct gpudp_rules *rs, const char *t, char *err, size_t len)
{
	return gpudp_rules_parse(rs, t, strlen(t), "t.rules", NULL, err, len);
}

static const char *
str(const struct gpudp_rules *rs, uint32_t off)
{
	return off == UINT32_MAX ? "(none)" : (const char *)rs->bytes + off;
}

static int
reads_every_field_of_a_rule(void)
{
	static const char text[] =
		"# a comment\n\n"
		"drop tcp 10.1.2.3/16 any -> [192.0.2.1,!192.0.2.128/25] [80,8000:8080] "
		"(msg:\"GET \\\"x\\\"\\; y\"; content:\"GET|20 2f|\"; nocase; offset:2; depth:40; "
		"content:\"|3a 3B|ab\\\\c\"; distance:-3; within:10; fast_pattern; "
		"isdataat:!5,relative; dsize:10<>1400; classtype:web-application-attack; "
		"priority:2; sid:1000001; rev:3;)\n";
	struct gpudp_rules rs;
	const struct gpudp_rule *r;
	const struct gpudp_rule_check *c;
	char err[256] = "";
	int n;

	gpudp_rules_init(&rs);
	n = parse(&rs, text, err, sizeof(err));
	GPUDP_TEST_ASSERT(n == 1 && rs.n_rule == 1, "%d: %s", n, err);
	r = &rs.rule[0];
	GPUDP_TEST_ASSERT(r->action == GPUDP_RULE_DROP && r->proto == GPUDP_RULE_TCP &&
			  !r->bidir && r->line == 3, "action %u proto %u line %u",
			  r->action, r->proto, r->line);
	GPUDP_TEST_ASSERT(r->sid == 1000001 && r->rev == 3 && r->priority == 2, "sid %u",
			  r->sid);
	GPUDP_TEST_ASSERT(strcmp(str(&rs, r->msg), "GET \"x\"; y") == 0 &&
			  strcmp(str(&rs, r->classtype), "web-application-attack") == 0,
			  "msg '%s' classtype '%s'", str(&rs, r->msg), str(&rs, r->classtype));
	/* 10.1.2.3/16: the network 10.1.0.0/16 */
	GPUDP_TEST_ASSERT(r->n_src == 1 && rs.net[r->src].af == 4 &&
			  rs.net[r->src].prefix == 16 && rs.net[r->src].addr[0] == 10 &&
			  rs.net[r->src].addr[1] == 1 && rs.net[r->src].addr[2] == 0 &&
			  rs.net[r->src].addr[3] == 0, "src");
	GPUDP_TEST_ASSERT(r->n_sport == 0 && r->n_dst == 2 && !rs.net[r->dst].neg &&
			  rs.net[r->dst + 1].neg && rs.net[r->dst + 1].prefix == 25 &&
			  rs.net[r->dst + 1].addr[3] == 128, "dst");
	GPUDP_TEST_ASSERT(r->n_dport == 2 && rs.port[r->dport].lo == 80 &&
			  rs.port[r->dport].hi == 80 && rs.port[r->dport + 1].lo == 8000 &&
			  rs.port[r->dport + 1].hi == 8080, "dport");
	GPUDP_TEST_ASSERT(r->n_check == 3, "%u checks", r->n_check);
	c = &rs.check[r->check];
	GPUDP_TEST_ASSERT(c[0].kind == GPUDP_RULE_CONTENT && c[0].len == 5 &&
			  memcmp(rs.bytes + c[0].bytes, "GET /", 5) == 0 &&
			  c[0].flags == (GPUDP_RULE_F_NOCASE | GPUDP_RULE_F_OFFSET |
					 GPUDP_RULE_F_DEPTH) &&
			  c[0].offset == 2 && c[0].depth == 40, "content 1 flags %x", c[0].flags);
	GPUDP_TEST_ASSERT(c[1].len == 6 && memcmp(rs.bytes + c[1].bytes, ":;ab\\c", 6) == 0,
			  "content 2: %u bytes", c[1].len);
	GPUDP_TEST_ASSERT(c[1].distance == -3 && c[1].within == 10 &&
			  (c[1].flags & GPUDP_RULE_F_FAST), "content 2 flags %x", c[1].flags);
	GPUDP_TEST_ASSERT(r->fast == 1, "fast %d", r->fast);
	GPUDP_TEST_ASSERT(c[2].kind == GPUDP_RULE_ISDATAAT && c[2].at == 5 &&
			  c[2].flags == (GPUDP_RULE_F_NEG | GPUDP_RULE_F_RELATIVE), "isdataat");
	GPUDP_TEST_ASSERT(r->dsize_op == GPUDP_RULE_DSIZE_RANGE && r->dsize_a == 10 &&
			  r->dsize_b == 1400, "dsize");
	gpudp_rules_free(&rs);
	return GPUDP_TEST_PASS;
}

static int
content_bytes_hex_and_escapes(void)
{
	struct gpudp_rules rs;
	const struct gpudp_rule_check *c;
	char err[256] = "";

	gpudp_rules_init(&rs);
	GPUDP_TEST_ASSERT(parse(&rs, "alert ip any any -> any any (content:\"a|00 ff|b\\\\\\:"
			  "\\\"|7C|\"; sid:1;)", err, sizeof(err)) == 1, "%s", err);
	c = &rs.check[rs.rule[0].check];
	GPUDP_TEST_ASSERT(c->len == 8 && memcmp(rs.bytes + c->bytes, "a\0\xff" "b\\:\"|", 8) == 0,
			  "len %u", c->len);
	/* the longest content is the fast pattern when none is marked */
	GPUDP_TEST_ASSERT(parse(&rs, "alert udp any any <> any 53 (content:\"ab\"; "
			  "content:\"abcd\"; content:\"wxyz\"; sid:2;)", err, sizeof(err)) == 1,
			  "%s", err);
	GPUDP_TEST_ASSERT(rs.rule[1].fast == 1 && rs.rule[1].bidir && rs.rule[1].rev == 1,
			  "fast %d", rs.rule[1].fast);
	gpudp_rules_free(&rs);
	return GPUDP_TEST_PASS;
}

static int
lists_negation_nesting_and_variables(void)
{
	static const char vars[] =
		"vars:\n  address-groups:\n"
		"    HOME_NET: \"[10.0.0.0/8,2001:db8::/32]\"   # ours\n"
		"    EXTERNAL_NET: \"!$HOME_NET\"\n"
		"  port-groups:\n    HTTP_PORTS: \"[80,8080:8090]\"\n"
		"    LOOP: $LOOP\n";
	struct gpudp_rules rs;
	const struct gpudp_rule *r;
	char err[256] = "";

	gpudp_rules_init(&rs);
	GPUDP_TEST_ASSERT(gpudp_rules_vars(&rs, vars, strlen(vars), "v.yaml", err,
					   sizeof(err)) == 0, "%s", err);
	GPUDP_TEST_ASSERT(parse(&rs, "alert tcp $EXTERNAL_NET any -> $HOME_NET $HTTP_PORTS "
			  "(sid:1;)", err, sizeof(err)) == 1, "%s", err);
	r = &rs.rule[0];
	/* !$HOME_NET: each of HOME_NET's entries negated */
	GPUDP_TEST_ASSERT(r->n_src == 2 && rs.net[r->src].neg && rs.net[r->src + 1].neg &&
			  rs.net[r->src + 1].af == 6 && rs.net[r->src + 1].prefix == 32, "src");
	GPUDP_TEST_ASSERT(r->n_dst == 2 && !rs.net[r->dst].neg && r->n_dport == 2 &&
			  rs.port[r->dport + 1].lo == 8080 && rs.port[r->dport + 1].hi == 8090,
			  "dst");
	/* ![a,!b] is (not a) and b; any with entries in keeps only the outs */
	GPUDP_TEST_ASSERT(parse(&rs, "alert udp ![1.1.1.1,!2.2.2.0/24] [any,!53,80] -> any "
			  "[1024:,:10] (sid:2;)", err, sizeof(err)) == 1, "%s", err);
	r = &rs.rule[1];
	GPUDP_TEST_ASSERT(r->n_src == 2 && rs.net[r->src].neg && !rs.net[r->src + 1].neg &&
			  r->n_sport == 1 && rs.port[r->sport].neg && rs.port[r->sport].lo == 53,
			  "src %u sport %u", r->n_src, r->n_sport);
	GPUDP_TEST_ASSERT(r->n_dport == 2 && rs.port[r->dport].lo == 1024 &&
			  rs.port[r->dport].hi == 65535 && rs.port[r->dport + 1].lo == 0 &&
			  rs.port[r->dport + 1].hi == 10, "dport");
	GPUDP_TEST_ASSERT(parse(&rs, "alert tcp any $LOOP -> any any (sid:3;)", err,
			  sizeof(err)) == -EINVAL && strstr(err, "nested") != NULL, "%s", err);
	GPUDP_TEST_ASSERT(parse(&rs, "alert ip $NOPE any -> any any (sid:3;)", err,
			  sizeof(err)) == -EINVAL && strstr(err, "$NOPE is not defined") != NULL,
			  "%s", err);
	gpudp_rules_free(&rs);
	/* bad variables files */
	gpudp_rules_init(&rs);
	GPUDP_TEST_ASSERT(gpudp_rules_vars(&rs, "A B\n", 4, "v", err, sizeof(err)) == -EINVAL &&
			  strncmp(err, "v:1: ", 5) == 0, "%s", err);
	GPUDP_TEST_ASSERT(gpudp_rules_vars(&rs, "\nA: \"x\n", 7, "v", err, sizeof(err)) ==
			  -EINVAL && strncmp(err, "v:2: ", 5) == 0, "%s", err);
	gpudp_rules_free(&rs);
	return GPUDP_TEST_PASS;
}

static int
bad_rules_refused_naming_file_line_and_cause(void)
{
	static const struct {
		const char *rule, *why;
	} bad[] = {
		{ "alert tcp any any -> any", "ends before its destination port" },
		{ "alert tcp any any => any any (sid:1;)", "direction" },
		{ "alert tcp 10.0.0.300 any -> any any (sid:1;)", "bad address" },
		{ "alert tcp 10.0.0.0/33 any -> any any (sid:1;)", "prefix" },
		{ "alert tcp any 70000 -> any any (sid:1;)", "bad port" },
		{ "alert tcp any 90:80 -> any any (sid:1;)", "bad port range" },
		{ "alert tcp any [80,] -> any any (sid:1;)", "empty entry" },
		{ "alert tcp any [80 -> any any (sid:1;)", "ends before" },
		{ "alert tcp !any any -> any any (sid:1;)", "!any" },
		{ "alert tcp any any -> any any sid:1;", "parentheses" },
		{ "alert tcp any any -> any any (content:\"a\";)", "no sid" },
		{ "alert tcp any any -> any any (sid:0;)", "sid: bad value" },
		{ "alert tcp any any -> any any (sid:1; sid:2;)", "sid: given twice" },
		{ "alert tcp any any -> any any (sid:1)", "does not end with ';'" },
		{ "alert tcp any any -> any any (nocase; sid:1;)", "no content before" },
		{ "alert tcp any any -> any any (content:\"\"; sid:1;)", "empty" },
		{ "alert tcp any any -> any any (content:\"|4|\"; sid:1;)", "odd number" },
		{ "alert tcp any any -> any any (content:\"|zz|\"; sid:1;)", "hex digit" },
		{ "alert tcp any any -> any any (content:\"a\\x\"; sid:1;)", "backslash" },
		{ "alert tcp any any -> any any (content:abc; sid:1;)", "double quotes" },
		{ "alert tcp any any -> any any (content:\"abc\"; depth:2; sid:1;)",
		  "depth 2 shorter" },
		{ "alert tcp any any -> any any (content:\"a\"; content:\"abc\"; within:2; sid:1;)",
		  "within 2 shorter" },
		{ "alert tcp any any -> any any (content:\"a\"; content:\"b\"; offset:1; "
		  "distance:1; sid:1;)", "absolute and relative" },
		{ "alert tcp any any -> any any (content:\"a\"; distance:1; sid:1;)",
		  "no content before it" },
		{ "alert tcp any any -> any any (content:\"a\"; startswith; offset:1; sid:1;)",
		  "startswith with" },
		{ "alert tcp any any -> any any (content:\"a\"; nocase; nocase; sid:1;)", "twice" },
		{ "alert tcp any any -> any any (content:\"a\"; fast_pattern; content:\"b\"; "
		  "fast_pattern; sid:1;)", "more than one" },
		{ "alert tcp any any -> any any (isdataat:1,relative; sid:1;)",
		  "no content before it" },
		{ "alert tcp any any -> any any (dsize:9<>3; sid:1;)", "bad range" },
		{ "alert tcp any any -> any any (dsize:>x; sid:1;)", "dsize: bad value" },
		{ "alert tcp any any -> any any (priority:256; sid:1;)", "priority: bad value" },
		{ "alert tcp any any -> any any (classtype:a b; sid:1;)", "classtype: bad name" },
		{ "alert tcp any any -> any any (offset:x; content:\"a\"; sid:1;)", "bad value" },
		{ "alert tcp any any -> any any (msg; sid:1;)", "needs a value" },
		{ "alert ip any 80 -> any any (sid:1;)", "need a tcp or udp rule" },
		{ "alert icmp any any -> any [1,2] (sid:1;)", "need a tcp or udp rule" },
	};
	struct gpudp_rules rs;
	char err[256], text[512], want[32];
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		gpudp_rules_init(&rs);
		snprintf(text, sizeof(text), "alert ip any any -> any any (sid:99;)\n\n%s\n",
			 bad[i].rule);
		err[0] = 0;
		GPUDP_TEST_ASSERT(parse(&rs, text, err, sizeof(err)) == -EINVAL, "accepted: %s",
				  bad[i].rule);
		snprintf(want, sizeof(want), "t.rules:3: ");
		GPUDP_TEST_ASSERT(strncmp(err, want, strlen(want)) == 0 &&
				  strstr(err, bad[i].why) != NULL, "%s: '%s', want '%s'",
				  bad[i].rule, err, bad[i].why);
		/* the rule before it stays, nothing of the bad one */
		GPUDP_TEST_ASSERT(rs.n_rule == 1 && rs.n_check == 0 && rs.n_net == 0 &&
				  rs.n_port == 0, "%s: %u rules %u checks", bad[i].rule, rs.n_rule,
				  rs.n_check);
		gpudp_rules_free(&rs);
	}
	return GPUDP_TEST_PASS;
}

struct warned {
	unsigned int n;
	char last[256];
};

static void
warn(void *arg, const char *msg)
{
	struct warned *w = arg;

	w->n++;
	snprintf(w->last, sizeof(w->last), "%s", msg);
}

static int
keywords_outside_the_subset_refused_or_skipped(void)
{
	static const char text[] =
		"alert tcp any any -> any any (content:\"a\"; pcre:\"/a/\"; sid:1;)\n"
		"alert tcp any any -> any any (flow:established; content:\"b\"; sid:2;)\n"
		"alert tcp any any -> any any (content:\"c\"; sid:3;)\n"
		"alert tcp any any -> any any (pcre:\"/x/\"; sid:4;)\n"
		"pass tcp any any -> any any (sid:5;)\n"
		"alert http any any -> any any (sid:6;)\n"
		"alert tcp any any -> any any (content:!\"d\"; sid:7;)\n"
		"alert tcp any any -> any any (content:\"e\"; fast_pattern:only; sid:8;)\n"
		"alert tcp any any -> any any (byte_test:1,>,2,0; sid:9;)\n";
	struct gpudp_rules_conf conf = { .skip_unsupported = 1, .warn = warn };
	struct warned w = { 0 };
	struct gpudp_rules rs;
	char err[256] = "";
	int n;

	gpudp_rules_init(&rs);
	n = parse(&rs, text, err, sizeof(err));
	GPUDP_TEST_ASSERT(n == -EINVAL && strstr(err, "t.rules:1: unsupported keyword 'pcre'"),
			  "%d %s", n, err);
	gpudp_rules_free(&rs);
	gpudp_rules_init(&rs);
	conf.warn_arg = &w;
	n = gpudp_rules_parse(&rs, text, strlen(text), "t.rules", &conf, err, sizeof(err));
	GPUDP_TEST_ASSERT(n == 1 && rs.n_rule == 1 && rs.rule[0].sid == 3 && rs.skipped == 8,
			  "%d rules, %u skipped: %s", n, rs.skipped, err);
	/* one warning per keyword: pcre, flow, pass, http, content:!, fast_pattern:..., byte_test */
	GPUDP_TEST_ASSERT(w.n == 7 && strstr(w.last, "t.rules:9: ") && strstr(w.last, "byte_test"),
			  "%u warnings, last '%s'", w.n, w.last);
	GPUDP_TEST_ASSERT(rs.n_check == 1, "%u checks kept", rs.n_check);
	gpudp_rules_free(&rs);
	return GPUDP_TEST_PASS;
}

static int
continuation_lines_join_and_keep_the_first_line(void)
{
	static const char text[] =
		"alert tcp any any -> \\\n  any 80 (msg:\"a\"; \\\n content:\"x\"; sid:7;)\n"
		"# alert tcp any any -> any any (sid:8;)\n"
		"alert udp any any -> any any (sid:9;)";
	struct gpudp_rules rs;
	char err[256] = "";

	gpudp_rules_init(&rs);
	GPUDP_TEST_ASSERT(parse(&rs, text, err, sizeof(err)) == 2, "%s", err);
	GPUDP_TEST_ASSERT(rs.rule[0].sid == 7 && rs.rule[0].line == 1 && rs.rule[0].n_dport == 1 &&
			  rs.rule[1].sid == 9 && rs.rule[1].line == 5, "sids %u %u lines %u %u",
			  rs.rule[0].sid, rs.rule[1].sid, rs.rule[0].line, rs.rule[1].line);
	gpudp_rules_free(&rs);
	return GPUDP_TEST_PASS;
}

/* a random rule, valid by construction */
static void
random_rule(char *t, size_t len, uint32_t sid)
{
	static const char *const act[] = { "alert", "drop" };
	static const char *const proto[] = { "ip", "tcp", "udp", "icmp" };
	static const char *const nets[] = { "any", "10.0.0.0/8", "!192.168.1.1",
		"[1.2.3.4,!1.2.3.0/24]", "2001:db8::1/64", "[::1,!fe80::/10,8.8.8.8]" };
	static const char *const ports[] = { "any", "80", "!22", "[1:1024,!53]", "8080:",
		":99" };
	static const char *const dsize[] = { "", "dsize:10; ", "dsize:<5; ", "dsize:>1000; ",
		"dsize:!0; ", "dsize:3<>90; " };
	size_t o = 0;
	unsigned int i, j, n = (unsigned int)(rand() % 5), l;
	int fast = rand() % 3 == 0 ? rand() % 5 : -1;

	int pr = rand() % 4, pp = pr == 1 || pr == 2;   /* ports: tcp and udp */

	o += (size_t)snprintf(t + o, len - o, "%s %s %s %s %s %s %s (", act[rand() % 2],
			      proto[pr], nets[rand() % 6], ports[pp ? rand() % 6 : 0],
			      rand() % 2 ? "->" : "<>", nets[rand() % 6], ports[pp ? rand() % 6 : 0]);
	if (rand() % 2)
		o += (size_t)snprintf(t + o, len - o, "msg:\"m \\\"%d\\\" \\; \\\\\"; ", rand());
	for (i = 0; i < n; i++) {
		l = 1 + (unsigned int)(rand() % 12);
		o += (size_t)snprintf(t + o, len - o, "content:\"");
		for (j = 0; j < l; j++) {
			unsigned int b = (unsigned int)(rand() % 256);

			if (b >= 'a' && b <= 'z')
				o += (size_t)snprintf(t + o, len - o, "%c", b);
			else
				o += (size_t)snprintf(t + o, len - o, "|%02x|", b);
		}
		o += (size_t)snprintf(t + o, len - o, "\"; ");
		if (rand() % 2)
			o += (size_t)snprintf(t + o, len - o, "nocase; ");
		if (i > 0 && rand() % 2)
			o += (size_t)snprintf(t + o, len - o, "distance:%d; within:%u; ",
					      rand() % 200 - 100, l + (unsigned int)(rand() % 50));
		else if (rand() % 3 == 0)
			o += (size_t)snprintf(t + o, len - o, "offset:%d; depth:%u; ", rand() % 100,
					      l + (unsigned int)(rand() % 100));
		else if (rand() % 4 == 0)
			o += (size_t)snprintf(t + o, len - o, "startswith; ");
		if (rand() % 5 == 0)
			o += (size_t)snprintf(t + o, len - o, "endswith; ");
		if ((int)i == fast)
			o += (size_t)snprintf(t + o, len - o, "fast_pattern; ");
		if (rand() % 6 == 0)
			o += (size_t)snprintf(t + o, len - o, "isdataat:%s%d%s; ",
					      rand() % 2 ? "!" : "", rand() % 2000,
					      rand() % 2 ? ",relative" : "");
	}
	o += (size_t)snprintf(t + o, len - o, "%s", dsize[rand() % 6]);
	if (rand() % 2)
		o += (size_t)snprintf(t + o, len - o, "classtype:c-%d; ", rand() % 9);
	if (rand() % 2)
		o += (size_t)snprintf(t + o, len - o, "priority:%d; ", 1 + rand() % 255);
	snprintf(t + o, len - o, "sid:%u;%s)", sid, rand() % 2 ? " rev:4;" : "");
}

static int
random_rules_format_and_parse_back_equal(void)
{
	struct gpudp_rules a, b;
	char text[4096], out[8192], err[256] = "";
	uint32_t i;
	int n;

	srand(1234);
	for (i = 0; i < 20000; i++) {
		gpudp_rules_init(&a);
		gpudp_rules_init(&b);
		random_rule(text, sizeof(text), i + 1);
		GPUDP_TEST_ASSERT(parse(&a, text, err, sizeof(err)) == 1, "%s: %s", text, err);
		n = gpudp_rule_format(&a, &a.rule[0], out, sizeof(out));
		GPUDP_TEST_ASSERT(n > 0 && (size_t)n < sizeof(out) && (size_t)n == strlen(out),
				  "format: %d", n);
		GPUDP_TEST_ASSERT(parse(&b, out, err, sizeof(err)) == 1, "%s -> %s: %s", text, out,
				  err);
		GPUDP_TEST_ASSERT(gpudp_test_rule_eq(&a, &a.rule[0], &b, &b.rule[0]),
				  "%s -> %s", text, out);
		/* a short buffer: the same length, the text cut */
		GPUDP_TEST_ASSERT(gpudp_rule_format(&a, &a.rule[0], out, 10) == n &&
				  strlen(out) == 9, "short buffer");
		gpudp_rules_free(&a);
		gpudp_rules_free(&b);
	}
	return GPUDP_TEST_PASS;
}

static const struct gpudp_test_case cases[] = {
	{ "reads_every_field_of_a_rule", reads_every_field_of_a_rule },
	{ "content_bytes_hex_and_escapes", content_bytes_hex_and_escapes },
	{ "lists_negation_nesting_and_variables", lists_negation_nesting_and_variables },
	{ "bad_rules_refused_naming_file_line_and_cause",
	  bad_rules_refused_naming_file_line_and_cause },
	{ "keywords_outside_the_subset_refused_or_skipped",
	  keywords_outside_the_subset_refused_or_skipped },
	{ "continuation_lines_join_and_keep_the_first_line",
	  continuation_lines_join_and_keep_the_first_line },
	{ "random_rules_format_and_parse_back_equal", random_rules_format_and_parse_back_equal },
	{ NULL, NULL },
};

int
main(int argc, char **argv)
{
	return gpudp_test_run("rules", cases, argc, argv);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The IPFIX exporter's encoding (lib/flow, gpudp_ipfix.h) through sinks,
 * decoded by the test's own decoder (ipfix_decode.c): random records come
 * back equal, sequence numbers follow without gaps, messages stay within
 * their size and are packed, templates come when due; the target parser.
 * No network: test_ipfix_net.c has the transports.
 */
#include <errno.h>
#include <arpa/inet.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpudp_ipfix.h"
#include "gpudp_test.h"
#include "ipfix_decode.h"
#include "ipfix_test_recs.h"

/* ------------------------------------------------------------ a sink that decodes */

struct collect {
	struct ipfix_dec dec;
	struct gpudp_flow_rec *recs;   /* decoded, in order */
	size_t n, cap;
	uint32_t max_msg;
	bool check_packing;            /* every message but the last is full */
	uint32_t prev_len;             /* the previous message: its length */
	uint32_t prev_nrec;            /* records */
	uint16_t prev_last_tid;        /* template of its last record */
	uint64_t msgs, template_msgs;
	uint64_t msgs_since_tmpl_max;  /* most messages between two with templates */
	uint64_t since_tmpl;
	int fail_at;                   /* message number to refuse (-1: none) */
	char err[512];
};

static void
collect_init(struct collect *c, uint32_t domain, uint32_t max_msg, size_t cap)
{
	memset(c, 0, sizeof(*c));
	ipfix_dec_init(&c->dec, domain, max_msg);
	c->max_msg = max_msg;
	c->cap = cap;
	c->recs = calloc(cap, sizeof(*c->recs));
	c->fail_at = -1;
}

static int
collect_sink(void *arg, const uint8_t *msg, size_t len)
{
	struct collect *c = arg;
	size_t n;

	if (c->fail_at >= 0 && (uint64_t)c->fail_at == c->msgs) {
		c->msgs++;
		c->dec.have_seq = false; /* the next one follows a gap */
		return -EIO;
	}
	c->msgs++;
	if (c->err[0] != '\0')
		return 0;
	if (ipfix_dec_message(&c->dec, msg, len, c->recs + c->n, c->cap - c->n, &n) != 0) {
		snprintf(c->err, sizeof(c->err), "%s", c->dec.err);
		return 0;
	}
	if (c->dec.last_msg_templates) {
		c->template_msgs++;
		c->since_tmpl = 0;
	} else if (++c->since_tmpl > c->msgs_since_tmpl_max) {
		c->msgs_since_tmpl_max = c->since_tmpl;
	}
	if (c->check_packing && n > 0 && c->prev_nrec > 0) {
		uint16_t tid = gpudp_ipfix_template_of(&c->recs[c->n]);
		uint32_t need = gpudp_ipfix_record_len(tid) + (tid == c->prev_last_tid ? 0 : 4);

		if (c->prev_len + need <= c->max_msg)
			snprintf(c->err, sizeof(c->err), "message %" PRIu64 " (%u bytes) had room "
				 "for the next record (%u bytes more, limit %u)", c->msgs - 2,
				 c->prev_len, need, c->max_msg);
	}
	c->prev_len = (uint32_t)len;
	c->prev_nrec = (uint32_t)n;
	if (n > 0)
		c->prev_last_tid = gpudp_ipfix_template_of(&c->recs[c->n + n - 1]);
	c->n += n;
	return 0;
}

/* the valid records of @in, as the exporter's templates carry them, against @c's */
static int
collect_check(const struct collect *c, const struct gpudp_flow_rec *in, size_t n, const char *what)
{
	GPUDP_TEST_ASSERT(c->err[0] == '\0', "%s: %s", what, c->err);
	return ipfix_test_check_recs(in, n, c->recs, c->n, what);
}

/*
 * An exporter of @cfg (NULL: the defaults) with one sink, @c, of @flags
 * (0 or GPUDP_IPFIX_SINK_DATAGRAM) that decodes messages of up to @max_msg
 * bytes (0: any) into @cap records.
 * @return the exporter, or NULL with the reason in c->err
 */
static struct gpudp_ipfix *
exporter_to(const struct gpudp_ipfix_config *cfg, struct collect *c, uint32_t max_msg,
	    size_t cap, unsigned int flags)
{
	struct gpudp_ipfix *x;
	int rc;

	collect_init(c, cfg != NULL ? cfg->domain_id : 0, max_msg, cap);
	if (gpudp_ipfix_create(cfg, &x, c->err, sizeof(c->err)) != 0)
		return NULL;
	rc = gpudp_ipfix_add_sink(x, collect_sink, c, flags, NULL);
	if (rc != 0) {
		snprintf(c->err, sizeof(c->err), "add_sink: %d", rc);
		gpudp_ipfix_close(x, 0);
		return NULL;
	}
	return x;
}

/* @n random records of one template: IPv4, protocol @proto, no biflow */
static void
ipv4_recs(struct gpudp_flow_rec *r, size_t n, uint64_t seed, uint8_t proto)
{
	size_t i;

	for (i = 0; i < n; i++) {
		ipfix_test_rand_rec(&seed, &r[i], 0);
		r[i].af = 4;
		r[i].proto = proto;
		r[i].flags = 0;
	}
}

/* ------------------------------------------------------------ cases */

static int
round_trip_random_records_every_size(void)
{
	static const uint32_t sizes[] = { 256, 300, 512, 1452, 1472, 9000, 65535 };
	const size_t n = 6000;
	struct gpudp_flow_rec *in = calloc(n, sizeof(*in));
	uint64_t seed = 0x1bf2a9c3d4e5f607ull;
	unsigned int k;

	GPUDP_TEST_ASSERT(in != NULL, "calloc");
	for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		struct gpudp_ipfix_config cfg;
		struct gpudp_ipfix *x;
		struct gpudp_ipfix_stats st[2];
		struct collect dg, stream;
		size_t i, bad = 0, done;
		char err[256];

		for (i = 0; i < n; i++) {
			ipfix_test_rand_rec(&seed, &in[i], 23);
			bad += in[i].af != 4 && in[i].af != 6;
		}
		gpudp_ipfix_config_init(&cfg);
		cfg.max_msg = sizes[k];
		cfg.domain_id = 0x01020304u + k;
		cfg.max_delay_ms = 0;
		cfg.refresh_s = 0;
		cfg.refresh_msgs = 5;
		GPUDP_TEST_ASSERT(gpudp_ipfix_create(&cfg, &x, err, sizeof(err)) == 0, "%s", err);
		collect_init(&dg, cfg.domain_id, sizes[k], n);
		collect_init(&stream, cfg.domain_id, sizes[k], n);
		dg.check_packing = stream.check_packing = true;
		GPUDP_TEST_ASSERT(gpudp_ipfix_add_sink(x, collect_sink, &dg,
						       GPUDP_IPFIX_SINK_DATAGRAM, "dg") == 0, "sink");
		GPUDP_TEST_ASSERT(gpudp_ipfix_add_sink(x, collect_sink, &stream, 0, NULL) == 1,
				  "sink");
		for (done = 0; done < n;) {
			size_t b = 1 + ipfix_test_rnd(&seed) % 97;

			if (b > n - done)
				b = n - done;
			gpudp_ipfix_export(x, in + done, b);
			done += b;
		}
		GPUDP_TEST_ASSERT(gpudp_ipfix_flush(x) == 0, "flush");
		GPUDP_TEST_ASSERT(gpudp_ipfix_stats_get(x, 0, &st[0]) == 0 &&
				  gpudp_ipfix_stats_get(x, 1, &st[1]) == 0, "stats");
		GPUDP_TEST_ASSERT(gpudp_ipfix_close(x, 0) == 0, "close");
		if (collect_check(&dg, in, n, "datagram sink") != GPUDP_TEST_PASS ||
		    collect_check(&stream, in, n, "stream sink") != GPUDP_TEST_PASS) {
			fprintf(stderr, "    max_msg %u\n", sizes[k]);
			return GPUDP_TEST_FAIL;
		}
		for (i = 0; i < 2; i++) {
			GPUDP_TEST_ASSERT(st[i].records == n - bad && st[i].dropped == bad,
					  "max_msg %u sink %zu: %" PRIu64 " records %" PRIu64
					  " dropped, want %zu and %zu", sizes[k], i, st[i].records,
					  st[i].dropped, n - bad, bad);
			GPUDP_TEST_ASSERT(st[i].errors == 0, "errors %" PRIu64, st[i].errors);
		}
		GPUDP_TEST_ASSERT(st[0].messages == dg.msgs && st[1].messages == stream.msgs,
				  "message counts %" PRIu64 "/%" PRIu64 " against %" PRIu64 "/%"
				  PRIu64, st[0].messages, st[1].messages, dg.msgs, stream.msgs);
		/* datagrams: templates at least every 6th message; stream: once */
		GPUDP_TEST_ASSERT(dg.msgs_since_tmpl_max <= 5, "max_msg %u: %" PRIu64 " messages "
				  "without templates", sizes[k], dg.msgs_since_tmpl_max);
		GPUDP_TEST_ASSERT(stream.dec.template_records == GPUDP_IPFIX_TEMPLATES,
				  "stream: %" PRIu64 " template records", stream.dec.template_records);
		GPUDP_TEST_ASSERT(st[1].template_msgs >= 1 && st[1].template_msgs <= 3,
				  "stream: %" PRIu64 " messages with templates", st[1].template_msgs);
		free(dg.recs);
		free(stream.recs);
	}
	free(in);
	return GPUDP_TEST_PASS;
}

static int
record_lengths_match_the_templates(void)
{
	struct gpudp_ipfix *x;
	struct collect c;
	unsigned int i;

	x = exporter_to(NULL, &c, 0, 1, GPUDP_IPFIX_SINK_DATAGRAM);
	GPUDP_TEST_ASSERT(x != NULL, "%s", c.err);
	gpudp_ipfix_poll(x); /* templates due: a message of them alone */
	GPUDP_TEST_ASSERT(c.err[0] == '\0', "%s", c.err);
	GPUDP_TEST_ASSERT(c.msgs == 1 && c.dec.template_records == GPUDP_IPFIX_TEMPLATES,
			  "%" PRIu64 " messages, %" PRIu64 " template records", c.msgs,
			  c.dec.template_records);
	for (i = 0; i < GPUDP_IPFIX_TEMPLATES; i++) {
		uint16_t tid = (uint16_t)(GPUDP_IPFIX_TEMPLATE_FIRST + i);

		GPUDP_TEST_ASSERT(c.dec.t[tid - 256].known, "template %u not sent", tid);
		GPUDP_TEST_ASSERT(c.dec.t[tid - 256].reclen == gpudp_ipfix_record_len(tid),
				  "template %u: %u bytes by its fields, %u by gpudp_ipfix_record_len()",
				  tid, c.dec.t[tid - 256].reclen, gpudp_ipfix_record_len(tid));
	}
	GPUDP_TEST_ASSERT(gpudp_ipfix_record_len(255) == 0 && gpudp_ipfix_record_len(264) == 0,
			  "ids outside 256..263");
	gpudp_ipfix_close(x, 0);
	free(c.recs);
	return GPUDP_TEST_PASS;
}

static int
templates_again_every_n_messages(void)
{
	struct gpudp_ipfix_config cfg;
	struct gpudp_flow_rec r[1000];
	struct gpudp_ipfix *x;
	struct collect c;
	int rc;

	ipv4_recs(r, 1000, 7, 6);
	gpudp_ipfix_config_init(&cfg);
	cfg.max_msg = 256;  /* 4 records a message */
	cfg.refresh_s = 0;
	cfg.refresh_msgs = 10;
	cfg.max_delay_ms = 0;
	x = exporter_to(&cfg, &c, 256, 1000, GPUDP_IPFIX_SINK_DATAGRAM);
	GPUDP_TEST_ASSERT(x != NULL, "%s", c.err);
	gpudp_ipfix_export(x, r, 1000);
	gpudp_ipfix_close(x, 0);
	GPUDP_TEST_ASSERT(c.err[0] == '\0', "%s", c.err);
	/* 250 data messages (and the template messages): 10 between templates */
	GPUDP_TEST_ASSERT(c.msgs_since_tmpl_max == 10, "%" PRIu64 " messages between templates",
			  c.msgs_since_tmpl_max);
	GPUDP_TEST_ASSERT(c.template_msgs >= 250 / 11, "%" PRIu64 " messages with templates of %"
			  PRIu64, c.template_msgs, c.msgs);
	rc = collect_check(&c, r, 1000, "records");
	free(c.recs);
	return rc;
}

static int
templates_again_after_the_period(void)
{
	struct gpudp_ipfix_config cfg;
	struct gpudp_flow_rec r;
	struct gpudp_ipfix_stats st;
	struct gpudp_ipfix *x;
	struct collect c;
	uint64_t seed = 9, now = 1000000000000ull;

	ipfix_test_rand_rec(&seed, &r, 0);
	r.af = 6;
	ipfix_test_config_clocked(&cfg, &now);
	cfg.refresh_s = 10;
	cfg.refresh_msgs = 0;
	x = exporter_to(&cfg, &c, 1452, 16, GPUDP_IPFIX_SINK_DATAGRAM);
	GPUDP_TEST_ASSERT(x != NULL, "%s", c.err);
	gpudp_ipfix_export(x, &r, 1);
	gpudp_ipfix_flush(x);
	GPUDP_TEST_ASSERT(c.msgs == 1 && c.dec.last_msg_templates, "first message: templates");
	now += 9ull * 1000000000;
	gpudp_ipfix_export(x, &r, 1);
	gpudp_ipfix_flush(x);
	GPUDP_TEST_ASSERT(c.msgs == 2 && !c.dec.last_msg_templates, "9 s later: none");
	now += 1ull * 1000000000;
	gpudp_ipfix_export(x, &r, 1);
	gpudp_ipfix_flush(x);
	GPUDP_TEST_ASSERT(c.msgs == 3 && c.dec.last_msg_templates, "10 s after: templates");
	/* no records: poll() sends them alone when due */
	gpudp_ipfix_poll(x);
	GPUDP_TEST_ASSERT(c.msgs == 3, "poll: not due yet");
	now += 10ull * 1000000000;
	gpudp_ipfix_poll(x);
	GPUDP_TEST_ASSERT(c.msgs == 4 && c.dec.last_msg_templates && c.dec.last_msg_records == 0,
			  "poll: a message of templates alone (%" PRIu64 " messages)", c.msgs);
	gpudp_ipfix_stats_get(x, 0, &st);
	GPUDP_TEST_ASSERT(st.template_msgs == 3 && st.messages == 4 && st.records == 3,
			  "stats: %" PRIu64 " template messages, %" PRIu64 " messages, %" PRIu64
			  " records", st.template_msgs, st.messages, st.records);
	gpudp_ipfix_close(x, 0);
	GPUDP_TEST_ASSERT(c.err[0] == '\0', "%s", c.err);
	free(c.recs);
	return GPUDP_TEST_PASS;
}

static int
open_message_sent_after_max_delay(void)
{
	struct gpudp_ipfix_config cfg;
	struct gpudp_flow_rec r;
	struct gpudp_ipfix *x;
	struct collect c;
	uint64_t seed = 11, now = 5000000000ull;

	ipfix_test_rand_rec(&seed, &r, 0);
	r.af = 4;
	ipfix_test_config_clocked(&cfg, &now);
	cfg.max_delay_ms = 200;
	x = exporter_to(&cfg, &c, 1452, 16, 0);
	GPUDP_TEST_ASSERT(x != NULL, "%s", c.err);
	gpudp_ipfix_export(x, &r, 1);
	gpudp_ipfix_poll(x);
	GPUDP_TEST_ASSERT(c.msgs == 0, "sent before its time");
	now += 199000000ull;
	gpudp_ipfix_poll(x);
	GPUDP_TEST_ASSERT(c.msgs == 0, "sent 199 ms after");
	now += 1000000ull;
	gpudp_ipfix_poll(x);
	GPUDP_TEST_ASSERT(c.msgs == 1 && c.n == 1, "not sent 200 ms after (%" PRIu64 ")", c.msgs);
	/* export() checks the timer too */
	gpudp_ipfix_export(x, &r, 1);
	now += 300000000ull;
	gpudp_ipfix_export(x, &r, 1);
	GPUDP_TEST_ASSERT(c.msgs == 2 && c.n == 2, "export() after the delay: %" PRIu64, c.msgs);
	gpudp_ipfix_close(x, 0);
	GPUDP_TEST_ASSERT(c.msgs == 3 && c.n == 3, "close() sends the last: %" PRIu64, c.msgs);
	GPUDP_TEST_ASSERT(c.err[0] == '\0', "%s", c.err);
	free(c.recs);
	return GPUDP_TEST_PASS;
}

static int
sink_error_counted_and_sequence_goes_on(void)
{
	struct gpudp_ipfix_config cfg;
	struct gpudp_flow_rec r[40];
	struct gpudp_ipfix_stats st;
	struct gpudp_ipfix *x;
	struct collect c;

	ipv4_recs(r, 40, 13, 17);
	gpudp_ipfix_config_init(&cfg);
	cfg.max_msg = 256; /* 4 records a message */
	cfg.max_delay_ms = 0;
	x = exporter_to(&cfg, &c, 256, 40, 0);
	GPUDP_TEST_ASSERT(x != NULL, "%s", c.err);
	c.fail_at = 3;
	gpudp_ipfix_export(x, r, 40);
	gpudp_ipfix_flush(x);
	gpudp_ipfix_stats_get(x, 0, &st);
	gpudp_ipfix_close(x, 0);
	GPUDP_TEST_ASSERT(c.err[0] == '\0', "%s", c.err);
	GPUDP_TEST_ASSERT(st.errors == 1 && st.last_error == EIO && st.dropped == 4 &&
			  st.records == 36, "%" PRIu64 " errors (last %d) %" PRIu64 " dropped %"
			  PRIu64 " records", st.errors, st.last_error, st.dropped, st.records);
	/* 256 bytes: the templates take messages 0 to 2, message 3 (records 0 to 3) is refused */
	GPUDP_TEST_ASSERT(c.n == 36, "%zu records decoded, want 36", c.n);
	GPUDP_TEST_ASSERT(c.recs[0].dport == r[4].dport && c.recs[0].sport == r[4].sport,
			  "the first record decoded is not the 5th");
	GPUDP_TEST_ASSERT(c.dec.next_seq == 40, "sequence after the last: %u, want 40 (the "
			  "refused records counted)", c.dec.next_seq);
	free(c.recs);
	return GPUDP_TEST_PASS;
}

static int
invalid_af_dropped_and_counted(void)
{
	struct gpudp_flow_rec r[3];
	struct gpudp_ipfix_stats st;
	struct gpudp_ipfix *x;
	struct collect c;
	uint64_t seed = 17;
	int i;

	for (i = 0; i < 3; i++)
		ipfix_test_rand_rec(&seed, &r[i], 0);
	r[0].af = 0;
	r[1].af = 4;
	r[2].af = 10;
	x = exporter_to(NULL, &c, 0, 4, 0);
	GPUDP_TEST_ASSERT(x != NULL, "%s", c.err);
	gpudp_ipfix_export(x, r, 3);
	gpudp_ipfix_flush(x);
	gpudp_ipfix_stats_get(x, 0, &st);
	GPUDP_TEST_ASSERT(st.records == 1 && st.dropped == 2 && st.errors == 0,
			  "%" PRIu64 " records %" PRIu64 " dropped %" PRIu64 " errors", st.records,
			  st.dropped, st.errors);
	GPUDP_TEST_ASSERT(gpudp_ipfix_template_of(&r[0]) == 0 && gpudp_ipfix_template_of(&r[2]) == 0,
			  "template of af 0 or 10");
	gpudp_ipfix_close(x, 0);
	i = collect_check(&c, r, 3, "records");
	free(c.recs);
	return i;
}

static int
config_out_of_range_refused_naming_the_value(void)
{
	struct gpudp_ipfix_config cfg;
	struct gpudp_ipfix *x;
	char err[256];

	gpudp_ipfix_config_init(&cfg);
	cfg.max_msg = 100;
	GPUDP_TEST_ASSERT(gpudp_ipfix_create(&cfg, &x, err, sizeof(err)) == -EINVAL && x == NULL,
			  "max_msg 100");
	GPUDP_TEST_ASSERT(strstr(err, "100") != NULL, "'%s' names no 100", err);
	gpudp_ipfix_config_init(&cfg);
	cfg.max_msg = 70000;
	GPUDP_TEST_ASSERT(gpudp_ipfix_create(&cfg, &x, err, sizeof(err)) == -EINVAL, "70000");
	GPUDP_TEST_ASSERT(strstr(err, "70000") != NULL, "'%s' names no 70000", err);
	gpudp_ipfix_config_init(&cfg);
	cfg.mtu = 200;
	GPUDP_TEST_ASSERT(gpudp_ipfix_create(&cfg, &x, err, sizeof(err)) == -EINVAL, "mtu 200");
	GPUDP_TEST_ASSERT(strstr(err, "MTU 200") != NULL, "'%s' names no MTU 200", err);
	gpudp_ipfix_config_init(&cfg);
	cfg.reconnect_min_ms = 5000;
	cfg.reconnect_max_ms = 100;
	GPUDP_TEST_ASSERT(gpudp_ipfix_create(&cfg, &x, err, sizeof(err)) == -EINVAL, "reconnect");
	GPUDP_TEST_ASSERT(strstr(err, "5000") != NULL, "'%s' names no 5000", err);
	/* the defaults: 1472 for IPv4 collectors, 1452 for the rest */
	gpudp_ipfix_config_init(&cfg);
	GPUDP_TEST_ASSERT(cfg.mtu == 1500 && cfg.max_msg == 0, "defaults");
	return GPUDP_TEST_PASS;
}

static int
default_message_size_follows_the_mtu(void)
{
	struct gpudp_ipfix_config cfg;
	struct gpudp_flow_rec r[200];
	struct gpudp_ipfix *x;
	struct collect c;

	ipv4_recs(r, 200, 19, 6);
	gpudp_ipfix_config_init(&cfg);
	cfg.max_delay_ms = 0;
	x = exporter_to(&cfg, &c, 1452, 200, 0);
	GPUDP_TEST_ASSERT(x != NULL, "%s", c.err);
	c.check_packing = true;
	gpudp_ipfix_export(x, r, 200);
	gpudp_ipfix_close(x, 0);
	GPUDP_TEST_ASSERT(c.err[0] == '\0', "%s", c.err);
	free(c.recs);
	return GPUDP_TEST_PASS;
}

/* ------------------------------------------------------------ targets */

static int
target_parse_accepts_every_form(void)
{
	static const struct {
		const char *spec;
		enum gpudp_ipfix_transport tr;
		int family;
		unsigned int port;
		const char *name;
	} ok[] = {
		{ "127.0.0.1:4739", GPUDP_IPFIX_UDP, AF_INET, 4739, "udp:127.0.0.1:4739" },
		{ "udp:127.0.0.1:1", GPUDP_IPFIX_UDP, AF_INET, 1, "udp:127.0.0.1:1" },
		{ "tcp:127.0.0.1:65535", GPUDP_IPFIX_TCP, AF_INET, 65535, "tcp:127.0.0.1:65535" },
		{ "udp:[::1]:4739", GPUDP_IPFIX_UDP, AF_INET6, 4739, "udp:[::1]:4739" },
		{ "tcp:[::1]:2055", GPUDP_IPFIX_TCP, AF_INET6, 2055, "tcp:[::1]:2055" },
		{ "[2001:db8::1]:9995", GPUDP_IPFIX_UDP, AF_INET6, 9995, "udp:[2001:db8::1]:9995" },
		{ "localhost:4739", GPUDP_IPFIX_UDP, -1, 4739, "udp:localhost:4739" },
	};
	struct gpudp_ipfix_target t;
	char err[256];
	unsigned int i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		unsigned int port;

		err[0] = '\0';
		GPUDP_TEST_ASSERT(gpudp_ipfix_target_parse(ok[i].spec, &t, err, sizeof(err)) == 0,
				  "'%s': %s", ok[i].spec, err);
		GPUDP_TEST_ASSERT(t.transport == ok[i].tr, "'%s': transport %d", ok[i].spec,
				  (int)t.transport);
		GPUDP_TEST_ASSERT(ok[i].family < 0 || t.addr.ss_family == ok[i].family,
				  "'%s': family %d", ok[i].spec, t.addr.ss_family);
		port = t.addr.ss_family == AF_INET ?
			ntohs(((struct sockaddr_in *)&t.addr)->sin_port) :
			ntohs(((struct sockaddr_in6 *)&t.addr)->sin6_port);
		GPUDP_TEST_ASSERT(port == ok[i].port, "'%s': port %u", ok[i].spec, port);
		GPUDP_TEST_ASSERT(strcmp(t.name, ok[i].name) == 0, "'%s': name '%s'", ok[i].spec,
				  t.name);
	}
	GPUDP_TEST_ASSERT(gpudp_ipfix_target_parse("file:/tmp/x y.ipfix", &t, err,
						   sizeof(err)) == 0, "file: %s", err);
	GPUDP_TEST_ASSERT(t.transport == GPUDP_IPFIX_FILE && strcmp(t.path, "/tmp/x y.ipfix") == 0 &&
			  strcmp(t.name, "file:/tmp/x y.ipfix") == 0, "file: '%s' '%s'", t.path,
			  t.name);
	GPUDP_TEST_ASSERT(gpudp_ipfix_target_file("flows:1.ipfix", &t, err, sizeof(err)) == 0 &&
			  strcmp(t.path, "flows:1.ipfix") == 0, "target_file");
	return GPUDP_TEST_PASS;
}

static int
target_parse_errors_name_the_value(void)
{
	static const struct {
		const char *spec;
		int rc;
		const char *says;   /* besides the spec itself */
	} bad[] = {
		{ "", -EINVAL, "empty" },
		{ "localhost", -EINVAL, "missing port" },
		{ "localhost:", -EINVAL, "missing port" },
		{ "udp:", -EINVAL, "missing HOST:PORT" },
		{ ":4739", -EINVAL, "missing host" },
		{ "tcp::4739", -EINVAL, "missing host" },
		{ "127.0.0.1:0", -EINVAL, "bad port '0'" },
		{ "127.0.0.1:65536", -EINVAL, "bad port '65536'" },
		{ "127.0.0.1:47x9", -EINVAL, "bad port '47x9'" },
		{ "127.0.0.1:-1", -EINVAL, "bad port '-1'" },
		{ "127.0.0.1:123456", -EINVAL, "bad port '123456'" },
		{ "sctp:127.0.0.1:4739", -EINVAL, "unknown prefix 'sctp:'" },
		{ "UDP:127.0.0.1:4739", -EINVAL, "unknown prefix 'UDP:'" },
		{ "http:[::1]:4739", -EINVAL, "unknown prefix 'http:'" },
		{ "::1:4739", -EINVAL, "brackets" },
		{ "fe80::1:4739", -EINVAL, "brackets" },
		{ "udp:2001:db8::1:4739", -EINVAL, "brackets" },
		{ "[::1]", -EINVAL, "missing port" },
		{ "[::1]:", -EINVAL, "missing port" },
		{ "[::1:4739", -EINVAL, "no ']'" },
		{ "[::1]4739", -EINVAL, "after ']'" },
		{ "[nothing]:4739", -EINVAL, "bad IPv6 address 'nothing'" },
		{ "host.invalid:4739", -ENOENT, "cannot resolve host 'host.invalid'" },
		{ "file:", -EINVAL, "empty path" },
	};
	struct gpudp_ipfix_target t;
	char err[256];
	unsigned int i;
	int rc;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&t, 0x5a, sizeof(t));
		err[0] = '\0';
		rc = gpudp_ipfix_target_parse(bad[i].spec, &t, err, sizeof(err));
		GPUDP_TEST_ASSERT(rc == bad[i].rc, "'%s': %d (%s), want %d", bad[i].spec, rc, err,
				  bad[i].rc);
		GPUDP_TEST_ASSERT(strstr(err, bad[i].says) != NULL, "'%s': '%s' does not say '%s'",
				  bad[i].spec, err, bad[i].says);
		if (bad[i].spec[0] != '\0' && strncmp(bad[i].spec, "file:", 5) != 0) {
			char quoted[80];

			snprintf(quoted, sizeof(quoted), "'%s'", bad[i].spec);
			GPUDP_TEST_ASSERT(strstr(err, quoted) != NULL, "'%s' does not quote %s", err,
					  quoted);
		}
		GPUDP_TEST_ASSERT(t.transport == (enum gpudp_ipfix_transport)0x5a5a5a5a,
				  "'%s': target changed on failure", bad[i].spec);
	}
	/* a tiny buffer is not overrun */
	{
		char small[8];

		memset(small, 'x', sizeof(small));
		GPUDP_TEST_ASSERT(gpudp_ipfix_target_parse("nothing", &t, small, 5) == -EINVAL,
				  "small buffer");
		GPUDP_TEST_ASSERT(small[4] == '\0' && small[5] == 'x', "small buffer overrun");
	}
	return GPUDP_TEST_PASS;
}

static int
sink_arguments_checked(void)
{
	struct gpudp_ipfix *x;
	struct gpudp_ipfix_stats st;
	int i;

	GPUDP_TEST_ASSERT(gpudp_ipfix_create(NULL, &x, NULL, 0) == 0, "create");
	GPUDP_TEST_ASSERT(gpudp_ipfix_add_sink(x, NULL, NULL, 0, NULL) == -EINVAL, "NULL fn");
	GPUDP_TEST_ASSERT(gpudp_ipfix_add_sink(x, collect_sink, NULL, 0x10, NULL) == -EINVAL,
			  "unknown flag");
	for (i = 0; i < GPUDP_IPFIX_MAX_TARGETS; i++)
		GPUDP_TEST_ASSERT(gpudp_ipfix_add_sink(x, collect_sink, NULL, 0, NULL) == i, "sink %d",
				  i);
	GPUDP_TEST_ASSERT(gpudp_ipfix_add_sink(x, collect_sink, NULL, 0, NULL) == -ENOSPC,
			  "one too many");
	GPUDP_TEST_ASSERT(gpudp_ipfix_target_count(x) == GPUDP_IPFIX_MAX_TARGETS, "count");
	GPUDP_TEST_ASSERT(strcmp(gpudp_ipfix_target_name(x, 0), "sink") == 0, "name");
	GPUDP_TEST_ASSERT(gpudp_ipfix_target_name(x, GPUDP_IPFIX_MAX_TARGETS) == NULL, "name");
	GPUDP_TEST_ASSERT(gpudp_ipfix_stats_get(x, GPUDP_IPFIX_MAX_TARGETS, &st) == -EINVAL,
			  "stats");
	gpudp_ipfix_close(x, 0);
	GPUDP_TEST_ASSERT(gpudp_ipfix_close(NULL, 0) == 0, "close(NULL)");
	return GPUDP_TEST_PASS;
}

int
main(int argc, char **argv)
{
	static const struct gpudp_test_case cases[] = {
		{ "round_trip_random_records_every_size", round_trip_random_records_every_size },
		{ "record_lengths_match_the_templates", record_lengths_match_the_templates },
		{ "templates_again_every_n_messages", templates_again_every_n_messages },
		{ "templates_again_after_the_period", templates_again_after_the_period },
		{ "open_message_sent_after_max_delay", open_message_sent_after_max_delay },
		{ "sink_error_counted_and_sequence_goes_on", sink_error_counted_and_sequence_goes_on },
		{ "invalid_af_dropped_and_counted", invalid_af_dropped_and_counted },
		{ "config_out_of_range_refused_naming_the_value",
		  config_out_of_range_refused_naming_the_value },
		{ "default_message_size_follows_the_mtu", default_message_size_follows_the_mtu },
		{ "target_parse_accepts_every_form", target_parse_accepts_every_form },
		{ "target_parse_errors_name_the_value", target_parse_errors_name_the_value },
		{ "sink_arguments_checked", sink_arguments_checked },
		{ NULL, NULL },
	};

	return gpudp_test_run("ipfix", cases, argc, argv);
}

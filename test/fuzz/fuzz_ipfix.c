/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the IPFIX exporter's encoding (lib/flow,
 * gpudp_ipfix.h). The input's first two bytes choose the message size
 * (256 bytes to 65535), the template refresh count and the batch size;
 * the rest is flow records, their bytes as they come (a selector byte
 * makes most of them IPv4 or IPv6, and ICMP or biflow more often than
 * chance would). They are exported to two sinks, one refreshing its
 * templates as over UDP and one not (as over TCP), and every message is
 * read by the test's own strict decoder (test/lib/flow/ipfix_decode.c).
 * Checks: every valid record comes back equal (times in whole ms, the
 * fields the templates do not carry cleared), in order; records of
 * another af are counted as dropped; every message is within the size,
 * and full: the record after it would not have fitted; sequence numbers
 * follow without gaps; the counters agree with what the sinks saw.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpudp_ipfix.h"
#include "ipfix_decode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c, ...) do { \
	if (!(c)) { \
		fprintf(stderr, "fuzz_ipfix: %s: ", #c); \
		fprintf(stderr, __VA_ARGS__); \
		fputc('\n', stderr); \
		abort(); \
	} \
} while (0)

#define REC_BYTES ((size_t)sizeof(struct gpudp_flow_rec))
#define MAX_RECS 512

struct sink {
	struct ipfix_dec dec;
	struct gpudp_flow_rec recs[MAX_RECS];
	size_t n;
	uint32_t max;
	uint64_t msgs;
	uint32_t prev_len, prev_nrec;
	uint16_t prev_last_tid;
};

static int
sink_fn(void *arg, const uint8_t *msg, size_t len)
{
	struct sink *s = arg;
	size_t n;

	CHECK(len <= s->max, "message of %zu bytes, limit %u", len, s->max);
	CHECK(ipfix_dec_message(&s->dec, msg, len, s->recs + s->n, MAX_RECS - s->n, &n) == 0,
	      "%s", s->dec.err);
	if (n > 0 && s->prev_nrec > 0) {
		uint16_t tid = gpudp_ipfix_template_of(&s->recs[s->n]);
		uint32_t need = gpudp_ipfix_record_len(tid) + (tid == s->prev_last_tid ? 0 : 4);

		CHECK(s->prev_len + need > s->max, "message %" PRIu64 " (%u bytes) had room for "
		      "%u more (limit %u)", s->msgs - 1, s->prev_len, need, s->max);
	}
	s->prev_len = (uint32_t)len;
	s->prev_nrec = (uint32_t)n;
	if (n > 0)
		s->prev_last_tid = gpudp_ipfix_template_of(&s->recs[s->n + n - 1]);
	s->n += n;
	s->msgs++;
	return 0;
}

static uint64_t
fixed_clock(void *arg)
{
	(void)arg;
	return 1767225600000000000ull;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint32_t sizes[] = { 256, 300, 512, 1000, 1452, 1472, 9000, 65535 };
	static struct sink sinks[2];
	static struct gpudp_flow_rec in[MAX_RECS];
	struct gpudp_ipfix_config cfg;
	struct gpudp_ipfix *x;
	size_t n = 0, i, j, valid = 0, batch;
	char err[256], why[160];

	if (size < 2)
		return 0;
	gpudp_ipfix_config_init(&cfg);
	cfg.max_msg = sizes[data[0] & 7];
	cfg.refresh_msgs = data[0] >> 4;
	cfg.refresh_s = 0;
	cfg.max_delay_ms = 0;
	cfg.domain_id = data[1];
	cfg.clock_ns = fixed_clock;
	batch = 1 + (data[1] & 0x3f);
	for (i = 2; i + REC_BYTES <= size && n < MAX_RECS; i += REC_BYTES, n++) {
		uint8_t sel;

		memcpy(&in[n], data + i, REC_BYTES);
		sel = in[n].af;
		switch (sel & 3) {
		case 0: in[n].af = 4; break;
		case 1: in[n].af = 6; break;
		case 2: break; /* as it came: mostly neither 4 nor 6 */
		default: in[n].af = (sel & 4) ? 6 : 4; break;
		}
		if (sel & 8)
			in[n].proto = in[n].af == 6 ? 58 : 1;
		if (sel & 16)
			in[n].flags |= GPUDP_FLOW_REC_BIFLOW;
		valid += in[n].af == 4 || in[n].af == 6;
	}
	CHECK(gpudp_ipfix_create(&cfg, &x, err, sizeof(err)) == 0, "%s", err);
	for (j = 0; j < 2; j++) {
		memset(&sinks[j], 0, sizeof(sinks[j]));
		ipfix_dec_init(&sinks[j].dec, cfg.domain_id, cfg.max_msg);
		sinks[j].max = cfg.max_msg;
		CHECK(gpudp_ipfix_add_sink(x, sink_fn, &sinks[j],
					   j ? GPUDP_IPFIX_SINK_DATAGRAM : 0, NULL) == (int)j, "sink");
	}
	for (i = 0; i < n; i += batch)
		gpudp_ipfix_export(x, in + i, n - i < batch ? n - i : batch);
	CHECK(gpudp_ipfix_flush(x) == 0, "flush");
	for (j = 0; j < 2; j++) {
		struct gpudp_ipfix_stats st;
		size_t k = 0;

		CHECK(gpudp_ipfix_stats_get(x, (unsigned int)j, &st) == 0, "stats");
		CHECK(st.records == valid && st.dropped == n - valid && st.errors == 0 &&
		      st.messages == sinks[j].msgs, "sink %zu: %" PRIu64 " records %" PRIu64
		      " dropped %" PRIu64 " errors %" PRIu64 " messages (%" PRIu64 " seen), %zu "
		      "of %zu valid", j, st.records, st.dropped, st.errors, st.messages,
		      sinks[j].msgs, valid, n);
		CHECK(sinks[j].n == valid, "sink %zu: %zu records decoded, %zu valid", j,
		      sinks[j].n, valid);
		for (i = 0; i < n; i++) {
			struct gpudp_flow_rec want;

			if (in[i].af != 4 && in[i].af != 6)
				continue;
			ipfix_dec_expect(&in[i], &want);
			CHECK(ipfix_dec_compare(&want, &sinks[j].recs[k], why, sizeof(why)) == 0,
			      "sink %zu, record %zu: %s", j, i, why);
			k++;
		}
		if (j == 1 && cfg.refresh_msgs == 0)
			CHECK(sinks[j].dec.template_sets <= 3, "templates sent %" PRIu64 " times "
			      "without refresh", sinks[j].dec.template_sets);
	}
	CHECK(sinks[0].dec.template_records == (valid != 0 ? GPUDP_IPFIX_TEMPLATES : 0),
	      "stream: %" PRIu64 " template records for %zu records",
	      sinks[0].dec.template_records, valid);
	gpudp_ipfix_close(x, 0);
	return 0;
}

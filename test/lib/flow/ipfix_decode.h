/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TEST ONLY: an IPFIX decoder (RFC 7011, RFC 5103) for the exporter's
 * tests and its fuzz target. It knows nothing of the exporter's
 * templates: it learns them from the template sets, as a collector does,
 * and reads data records through them into flow records. It is strict:
 * anything the exporter should never write (another version, a length
 * that disagrees, an unknown set or element, a data set of a template
 * not yet seen, a record cut short, padding, a sequence number that does
 * not follow, a message over the size limit) is an error, with the
 * reason in dec->err.
 */
#ifndef IPFIX_DECODE_H
#define IPFIX_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpudp_flow_rec.h"

#define IPFIX_DEC_MAX_FIELDS 32

struct ipfix_dec_field {
	uint16_t id;     /* element id, enterprise bit cleared */
	uint16_t len;
	uint32_t pen;    /* 0: IANA */
};

struct ipfix_dec_tmpl {
	bool known;
	uint16_t nf;
	uint32_t reclen;
	struct ipfix_dec_field f[IPFIX_DEC_MAX_FIELDS];
};

struct ipfix_dec {
	struct ipfix_dec_tmpl t[256];  /* template ids 256..511 */
	uint32_t max_msg;              /* 0: no limit */
	uint32_t domain;               /* the observation domain expected */
	bool have_seq;                 /* next_seq is known */
	uint32_t next_seq;
	/* what was decoded */
	uint64_t msgs;
	uint64_t records;
	uint64_t template_sets;
	uint64_t template_records;
	uint32_t last_msg_len;
	uint32_t last_msg_records;
	bool last_msg_templates;
	uint16_t last_first_tid;       /* template of the last message's first data record */
	char err[256];
};

/* A decoder expecting @domain; messages up to @max_msg bytes (0: any). */
void ipfix_dec_init(struct ipfix_dec *d, uint32_t domain, uint32_t max_msg);

/*
 * Decode one message of @len bytes: its records go to @out (up to @max),
 * *nout says how many. Return 0, or -1 with the reason in d->err.
 */
int ipfix_dec_message(struct ipfix_dec *d, const uint8_t *msg, size_t len,
		      struct gpudp_flow_rec *out, size_t max, size_t *nout);

/*
 * Decode a stream of messages back to back (TCP, a file): as above, over
 * all of them. Return 0, or -1 (d->err; a message cut short at the end
 * is an error).
 */
int ipfix_dec_stream(struct ipfix_dec *d, const uint8_t *p, size_t len,
		     struct gpudp_flow_rec *out, size_t max, size_t *nout);

/*
 * What a record becomes through the exporter's templates (gpudp_ipfix.h):
 * times in whole ms, IPv4 addresses' last 12 bytes zero, reverse fields
 * only for biflow, no sport for ICMP, flags' biflow bit only, pad 0.
 */
void ipfix_dec_expect(const struct gpudp_flow_rec *in, struct gpudp_flow_rec *out);

/* Compare two records field by field; 0 when equal, else -1 with @why filled. */
int ipfix_dec_compare(const struct gpudp_flow_rec *want, const struct gpudp_flow_rec *got,
		      char *why, size_t whylen);

#endif /* IPFIX_DECODE_H */

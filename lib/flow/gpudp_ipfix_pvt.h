/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The IPFIX exporter's internals, shared by its sources and not
 * installed: the encoder (gpudp_ipfix_enc.c: templates, records, message
 * building), the transports (gpudp_ipfix.c) and the target parser
 * (gpudp_ipfix_target.c).
 */
#ifndef GPUDP_IPFIX_PVT_H
#define GPUDP_IPFIX_PVT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "gpudp_ipfix.h"

/* RFC 7011 section 3 */
#define IPFIX_VERSION 10
#define IPFIX_MSG_HDR 16
#define IPFIX_SET_HDR 4
#define IPFIX_SET_TEMPLATE 2

/* the longest data record: IPv6, ports, biflow */
#define IPFIX_REC_MAX 107
/* the template set of all eight templates, set header included */
#define IPFIX_TEMPLATES_MAX 640

static inline uint8_t *
ipfix_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
	return p + 2;
}

static inline uint8_t *
ipfix_put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
	return p + 4;
}

static inline uint8_t *
ipfix_put64(uint8_t *p, uint64_t v)
{
	p = ipfix_put32(p, (uint32_t)(v >> 32));
	return ipfix_put32(p, (uint32_t)v);
}

/* The template records (without a set header), as the encoder writes them. */
struct ipfix_templates {
	uint8_t bytes[IPFIX_TEMPLATES_MAX];
	uint16_t off[GPUDP_IPFIX_TEMPLATES]; /* each template record's offset */
	uint16_t len[GPUDP_IPFIX_TEMPLATES]; /* and length */
};

/* Fill @t (once per exporter). */
void ipfix_templates_build(struct ipfix_templates *t);

/* Write @rec as a data record of template @tid at @p; return its length. */
uint32_t ipfix_record_encode(uint8_t *p, uint16_t tid, const struct gpudp_flow_rec *rec);

/* A message under construction. */
struct ipfix_msg {
	uint8_t *buf;        /* max bytes */
	uint32_t max;        /* most bytes */
	uint32_t len;        /* bytes so far; 0: no message open */
	uint32_t set_off;    /* offset of the open set's header; 0: none */
	uint16_t set_id;     /* its id */
	bool templates;      /* it carries the templates */
	uint32_t nrec;       /* data records in it */
	uint64_t opened_ns;  /* when it was opened (timer clock) */
};

/* Open a message at @now_ns: the header, filled by ipfix_msg_seal(). */
static inline void
ipfix_msg_open(struct ipfix_msg *m, uint64_t now_ns)
{
	m->len = IPFIX_MSG_HDR;
	m->set_off = 0;
	m->set_id = 0;
	m->templates = false;
	m->nrec = 0;
	m->opened_ns = now_ns;
}

/* Close the open set, if any (its length written). */
static inline void
ipfix_msg_close_set(struct ipfix_msg *m)
{
	if (m->set_off != 0)
		ipfix_put16(m->buf + m->set_off + 2, (uint16_t)(m->len - m->set_off));
	m->set_off = 0;
	m->set_id = 0;
}

/* Close the open set and write the header; the message is m->len bytes. */
static inline void
ipfix_msg_seal(struct ipfix_msg *m, uint32_t export_s, uint32_t seq, uint32_t domain)
{
	uint8_t *p = m->buf;

	ipfix_msg_close_set(m);
	p = ipfix_put16(p, IPFIX_VERSION);
	p = ipfix_put16(p, (uint16_t)m->len);
	p = ipfix_put32(p, export_s);
	p = ipfix_put32(p, seq);
	ipfix_put32(p, domain);
}

/*
 * Append as many of the templates from @first on as fit into the open
 * message (in a template set of their own); return the index of the first
 * one that did not fit (GPUDP_IPFIX_TEMPLATES: all did).
 */
unsigned int ipfix_msg_add_templates(struct ipfix_msg *m, const struct ipfix_templates *t,
				     unsigned int first);

/* ---- the exporter's state (gpudp_ipfix.c, gpudp_ipfix_tcp.c) ---- */

#define NS_PER_MS 1000000ull
#define NS_PER_S 1000000000ull

/* a message waiting in a TCP queue */
struct qmsg {
	uint32_t len;
	uint32_t nrec;
	bool templates;
};

struct ipfix_tgt {
	enum gpudp_ipfix_transport kind;
	char name[GPUDP_IPFIX_NAME_MAX];
	int fd;
	struct sockaddr_storage addr;
	socklen_t addrlen;
	bool datagram;            /* templates refreshed (UDP, datagram sinks) */
	struct ipfix_msg m;
	uint32_t seq;             /* data records of the session's earlier messages */
	bool tmpl_due;            /* the next message opens with the templates */
	uint64_t tmpl_ns;         /* when they were last sent (timer clock) */
	uint32_t msgs_since_tmpl; /* messages since */
	/* TCP */
	enum gpudp_ipfix_state state;
	uint8_t *q;               /* queue: bytes qhead..qtail wait */
	uint32_t qcap, qhead, qtail;
	struct qmsg *qm;          /* ring of the queued messages */
	uint32_t qmcap, qmhead, qmn;
	uint32_t qsent;           /* bytes of the first queued message already sent */
	uint64_t next_connect_ns;
	uint32_t backoff_ms;
	uint64_t up_ns;           /* when the connection came up */
	/* FILE: whole messages gathered for one write(2) (FILE_BUF bytes) */
	uint8_t *fb;
	uint32_t fcap, flen;
	uint64_t fmsgs, frecs, ftmpl; /* in fb: messages, their records, template ones */
	uint64_t fns;             /* when the first of them came (timer clock) */
	/* SINK */
	gpudp_ipfix_sink_fn fn;
	void *arg;
	struct gpudp_ipfix_stats st;
};

struct gpudp_ipfix {
	struct gpudp_ipfix_config cfg;
	struct ipfix_templates tmpl;
	struct ipfix_tgt *t[GPUDP_IPFIX_MAX_TARGETS];
	unsigned int n;
};

/* the exporter's clock (the configuration's, or CLOCK_MONOTONIC), ns */
uint64_t ipfix_timer_ns(const struct gpudp_ipfix *x);
/* an error of target @p t counted, @p e kept as its last */
void ipfix_count_error(struct ipfix_tgt *t, int e);
/* TCP: a new connection (a new session: sequence 0, templates first) */
void ipfix_tcp_connect(struct gpudp_ipfix *x, struct ipfix_tgt *t, uint64_t now);
/* TCP: connect progress, then the queue into the socket; never waits */
void ipfix_tcp_pump(struct gpudp_ipfix *x, struct ipfix_tgt *t, uint64_t now);
/* TCP: the collector closed (it sends nothing: readable means closed) */
void ipfix_tcp_check_peer(struct gpudp_ipfix *x, struct ipfix_tgt *t, uint64_t now);
/* TCP: the sealed message into the queue; false: dropped, counted */
bool ipfix_tcp_enqueue(struct gpudp_ipfix *x, struct ipfix_tgt *t, uint64_t now);

#endif /* GPUDP_IPFIX_PVT_H */

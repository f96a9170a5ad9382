/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The IPFIX exporter: targets, their messages and transports (UDP, TCP,
 * file, sink), timers and counters. The encoding is gpudp_ipfix_enc.c's.
 *
 * Each target builds its own message (struct ipfix_msg); ship() hands a
 * finished one to the transport. TCP messages go through a queue (a
 * linear buffer emptied from its head into the socket by ipfix_tcp_pump(), and
 * a ring of the messages' lengths and record counts, so that a message
 * counts as sent once its last byte is in the socket).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "gpudp_errf.h"
#include "gpudp_ipfix_pvt.h"

/* a file target's messages are written this many bytes at a time */
#define FILE_BUF (256u * 1024u)

/* ------------------------------------------------------------ clocks */

static uint64_t
timer_ns(const struct gpudp_ipfix *x)
{
	struct timespec ts;

	if (x->cfg.clock_ns != NULL)
		return x->cfg.clock_ns(x->cfg.clock_arg);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NS_PER_S + (uint64_t)ts.tv_nsec;
}

static uint32_t
export_s(const struct gpudp_ipfix *x)
{
	struct timespec ts;

	if (x->cfg.clock_ns != NULL)
		return (uint32_t)(x->cfg.clock_ns(x->cfg.clock_arg) / NS_PER_S);
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint32_t)ts.tv_sec;
}

/* ------------------------------------------------------------ settings */

void
gpudp_ipfix_config_init(struct gpudp_ipfix_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->mtu = 1500;
	cfg->max_delay_ms = 1000;
	cfg->refresh_s = 60;
	cfg->refresh_msgs = 256;
	cfg->tcp_queue_bytes = 1u << 20;
	cfg->reconnect_min_ms = 500;
	cfg->reconnect_max_ms = 30000;
}

int
gpudp_ipfix_create(const struct gpudp_ipfix_config *cfg, struct gpudp_ipfix **xp,
		   char *err, size_t errlen)
{
	struct gpudp_ipfix_config c;
	struct gpudp_ipfix *x;

	*xp = NULL;
	if (cfg != NULL)
		c = *cfg;
	else
		gpudp_ipfix_config_init(&c);
	if (c.max_msg != 0 && (c.max_msg < GPUDP_IPFIX_MSG_MIN || c.max_msg > GPUDP_IPFIX_MSG_MAX)) {
		gpudp_errf(err, errlen, "IPFIX: message size %u outside %u..%u", c.max_msg,
			   GPUDP_IPFIX_MSG_MIN, GPUDP_IPFIX_MSG_MAX);
		return -EINVAL;
	}
	if (c.max_msg == 0 && (c.mtu < GPUDP_IPFIX_MSG_MIN + 48 || c.mtu > 1u << 20)) {
		gpudp_errf(err, errlen, "IPFIX: MTU %u outside %u..%u", c.mtu,
			   GPUDP_IPFIX_MSG_MIN + 48, 1u << 20);
		return -EINVAL;
	}
	if (c.reconnect_min_ms == 0 || c.reconnect_min_ms > c.reconnect_max_ms) {
		gpudp_errf(err, errlen, "IPFIX: reconnect wait %u..%u ms: the first must be "
			   "1 or more and at most the longest", c.reconnect_min_ms,
			   c.reconnect_max_ms);
		return -EINVAL;
	}
	x = calloc(1, sizeof(*x));
	if (x == NULL) {
		gpudp_errf(err, errlen, "IPFIX: out of memory");
		return -ENOMEM;
	}
	x->cfg = c;
	ipfix_templates_build(&x->tmpl);
	*xp = x;
	return 0;
}

/* ------------------------------------------------------------ targets */

static uint32_t
target_max_msg(const struct gpudp_ipfix *x, const struct ipfix_tgt *t)
{
	uint32_t m;

	if (x->cfg.max_msg != 0)
		return x->cfg.max_msg;
	if ((t->kind == GPUDP_IPFIX_UDP || t->kind == GPUDP_IPFIX_TCP) &&
	    t->addr.ss_family == AF_INET)
		m = x->cfg.mtu - 28;
	else
		m = x->cfg.mtu - 48;
	return m > GPUDP_IPFIX_MSG_MAX ? GPUDP_IPFIX_MSG_MAX : m;
}

static void
tgt_free(struct ipfix_tgt *t)
{
	if (t == NULL)
		return;
	if (t->fd >= 0)
		close(t->fd);
	free(t->m.buf);
	free(t->fb);
	free(t->q);
	free(t->qm);
	free(t);
}

static struct ipfix_tgt *
tgt_new(struct gpudp_ipfix *x, enum gpudp_ipfix_transport kind, const char *name)
{
	struct ipfix_tgt *t = calloc(1, sizeof(*t));

	if (t == NULL)
		return NULL;
	t->kind = kind;
	t->fd = -1;
	snprintf(t->name, sizeof(t->name), "%s", name);
	t->tmpl_due = true;
	t->state = GPUDP_IPFIX_STATE_UP;
	t->backoff_ms = x->cfg.reconnect_min_ms;
	return t;
}

static int
tgt_alloc_msg(struct gpudp_ipfix *x, struct ipfix_tgt *t)
{
	t->m.max = target_max_msg(x, t);
	t->m.buf = malloc(t->m.max);
	return t->m.buf != NULL ? 0 : -ENOMEM;
}

int
gpudp_ipfix_add_target(struct gpudp_ipfix *x, const struct gpudp_ipfix_target *tg,
		       char *err, size_t errlen)
{
	struct ipfix_tgt *t;
	int rc;

	if (x->n >= GPUDP_IPFIX_MAX_TARGETS) {
		gpudp_errf(err, errlen, "IPFIX target '%s': more than %d targets", tg->name,
			   GPUDP_IPFIX_MAX_TARGETS);
		return -ENOSPC;
	}
	if (tg->transport != GPUDP_IPFIX_UDP && tg->transport != GPUDP_IPFIX_TCP &&
	    tg->transport != GPUDP_IPFIX_FILE) {
		gpudp_errf(err, errlen, "IPFIX target '%s': transport %d is not UDP, TCP or a "
			   "file", tg->name, (int)tg->transport);
		return -EINVAL;
	}
	t = tgt_new(x, tg->transport, tg->name);
	if (t == NULL) {
		gpudp_errf(err, errlen, "IPFIX target '%s': out of memory", tg->name);
		return -ENOMEM;
	}
	t->addr = tg->addr;
	t->addrlen = tg->addrlen;
	if (tgt_alloc_msg(x, t) != 0)
		goto nomem;
	switch (tg->transport) {
	case GPUDP_IPFIX_UDP:
		t->datagram = true;
		t->fd = socket(t->addr.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (t->fd < 0 || connect(t->fd, (const struct sockaddr *)&t->addr,
					 t->addrlen) != 0) {
			rc = -errno;
			gpudp_errf(err, errlen, "IPFIX target '%s': %s: %s", tg->name,
				   t->fd < 0 ? "socket" : "connect", strerror(-rc));
			tgt_free(t);
			return rc;
		}
		break;
	case GPUDP_IPFIX_TCP:
		t->qcap = x->cfg.tcp_queue_bytes < t->m.max ? t->m.max : x->cfg.tcp_queue_bytes;
		t->qmcap = t->qcap / (IPFIX_MSG_HDR + IPFIX_SET_HDR + 56) + 2;
		t->q = malloc(t->qcap);
		t->qm = malloc(t->qmcap * sizeof(*t->qm));
		if (t->q == NULL || t->qm == NULL)
			goto nomem;
		ipfix_tcp_connect(x, t, timer_ns(x));
		break;
	default:
		t->fcap = t->m.max > FILE_BUF ? t->m.max : FILE_BUF;
		t->fb = malloc(t->fcap);
		if (t->fb == NULL)
			goto nomem;
		t->fd = open(tg->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (t->fd < 0) {
			rc = -errno;
			gpudp_errf(err, errlen, "IPFIX target '%s': %s", tg->name, strerror(-rc));
			tgt_free(t);
			return rc;
		}
		break;
	}
	x->t[x->n] = t;
	return (int)x->n++;
nomem:
	gpudp_errf(err, errlen, "IPFIX target '%s': out of memory", tg->name);
	tgt_free(t);
	return -ENOMEM;
}

int
gpudp_ipfix_add_sink(struct gpudp_ipfix *x, gpudp_ipfix_sink_fn fn, void *arg,
		     unsigned int flags, const char *name)
{
	struct ipfix_tgt *t;

	if (x->n >= GPUDP_IPFIX_MAX_TARGETS)
		return -ENOSPC;
	if (fn == NULL || (flags & ~GPUDP_IPFIX_SINK_DATAGRAM) != 0)
		return -EINVAL;
	t = tgt_new(x, GPUDP_IPFIX_SINK, name != NULL ? name : "sink");
	if (t == NULL)
		return -ENOMEM;
	t->fn = fn;
	t->arg = arg;
	t->datagram = (flags & GPUDP_IPFIX_SINK_DATAGRAM) != 0;
	if (tgt_alloc_msg(x, t) != 0) {
		tgt_free(t);
		return -ENOMEM;
	}
	x->t[x->n] = t;
	return (int)x->n++;
}

unsigned int
gpudp_ipfix_target_count(const struct gpudp_ipfix *x)
{
	return x->n;
}

const char *
gpudp_ipfix_target_name(const struct gpudp_ipfix *x, unsigned int idx)
{
	return idx < x->n ? x->t[idx]->name : NULL;
}

int
gpudp_ipfix_stats_get(const struct gpudp_ipfix *x, unsigned int idx, struct gpudp_ipfix_stats *st)
{
	const struct ipfix_tgt *t;

	if (idx >= x->n)
		return -EINVAL;
	t = x->t[idx];
	*st = t->st;
	st->queued = t->qtail - t->qhead;
	st->state = t->state;
	return 0;
}

/* ------------------------------------------------------------ messages */

static int
write_all(int fd, const uint8_t *p, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? errno : EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * FILE: the messages gathered, written; counted as they left, or as lost
 * (their templates then go out again).
 */
static int
file_write(struct ipfix_tgt *t)
{
	int e;

	if (t->flen == 0)
		return 0;
	e = write_all(t->fd, t->fb, t->flen);
	if (e == 0) {
		t->st.messages += t->fmsgs;
		t->st.records += t->frecs;
		t->st.bytes += t->flen;
		t->st.template_msgs += t->ftmpl;
	} else {
		ipfix_count_error(t, e);
		t->st.dropped += t->frecs;
		if (t->ftmpl != 0)
			t->tmpl_due = true;
	}
	t->flen = 0;
	t->fmsgs = 0;
	t->frecs = 0;
	t->ftmpl = 0;
	return e;
}

/* FILE: the sealed message among those gathered (written when they fill FILE_BUF) */
static void
file_put(struct ipfix_tgt *t, uint64_t now)
{
	const struct ipfix_msg *m = &t->m;

	if (t->flen + m->len > t->fcap)
		file_write(t);
	if (t->flen == 0)
		t->fns = now;
	memcpy(t->fb + t->flen, m->buf, m->len);
	t->flen += m->len;
	t->fmsgs++;
	t->frecs += m->nrec;
	t->ftmpl += m->templates != 0;
}

/* Seal the open message and hand it to the transport. */
static void
ship(struct gpudp_ipfix *x, struct ipfix_tgt *t, uint64_t now)
{
	struct ipfix_msg *m = &t->m;
	bool ok = true, advance = true;
	ssize_t n;
	int e = 0;

	if (m->len == 0)
		return;
	if (m->len == IPFIX_MSG_HDR) {
		m->len = 0;
		return;
	}
	ipfix_msg_seal(m, export_s(x), t->seq, x->cfg.domain_id);
	switch (t->kind) {
	case GPUDP_IPFIX_UDP:
		n = send(t->fd, m->buf, m->len, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n < 0 && errno == ECONNREFUSED) {
			/* an earlier datagram's ICMP error: this one was not sent */
			ipfix_count_error(t, ECONNREFUSED);
			n = send(t->fd, m->buf, m->len, MSG_DONTWAIT | MSG_NOSIGNAL);
		}
		if (n != (ssize_t)m->len)
			e = n < 0 ? errno : EMSGSIZE;
		break;
	case GPUDP_IPFIX_FILE:
		file_put(t, now);   /* counted when written */
		break;
	case GPUDP_IPFIX_SINK:
		e = -t->fn(t->arg, m->buf, m->len);
		break;
	default:
		ok = ipfix_tcp_enqueue(x, t, now);
		advance = ok;
		break;
	}
	if (e != 0) {
		ok = false;
		ipfix_count_error(t, e);
	}
	if (advance)
		t->seq += m->nrec;
	if (!ok) {
		if (t->state != GPUDP_IPFIX_STATE_DOWN)
			t->st.dropped += m->nrec;
		/* ipfix_tcp_fail() counted them */
		if (m->templates)
			t->tmpl_due = true;
	} else {
		if (t->kind != GPUDP_IPFIX_TCP && t->kind != GPUDP_IPFIX_FILE) {
			t->st.messages++;
			t->st.records += m->nrec;
			t->st.bytes += m->len;
			if (m->templates)
				t->st.template_msgs++;
		}
		t->msgs_since_tmpl++;
		if (m->templates) {
			t->tmpl_due = false;
			t->tmpl_ns = now;
			t->msgs_since_tmpl = 0;
		}
	}
	m->len = 0;
	m->nrec = 0;
}

static bool
templates_due(const struct gpudp_ipfix *x, const struct ipfix_tgt *t, uint64_t now)
{
	if (t->tmpl_due)
		return true;
	if (!t->datagram)
		return false;
	if (x->cfg.refresh_s != 0 && now - t->tmpl_ns >= (uint64_t)x->cfg.refresh_s * NS_PER_S)
		return true;
	return x->cfg.refresh_msgs != 0 && t->msgs_since_tmpl >= x->cfg.refresh_msgs;
}

/* Open a message, with the templates first when they are due. */
static void
open_msg(struct gpudp_ipfix *x, struct ipfix_tgt *t, uint64_t now)
{
	unsigned int i = 0;

	ipfix_msg_open(&t->m, now);
	if (!templates_due(x, t, now))
		return;
	for (;;) {
		i = ipfix_msg_add_templates(&t->m, &x->tmpl, i);
		if (i == GPUDP_IPFIX_TEMPLATES)
			return;
		ship(x, t, now);
		if (t->state == GPUDP_IPFIX_STATE_DOWN)
			return;
		ipfix_msg_open(&t->m, now);
	}
}

static inline bool
taking(const struct ipfix_tgt *t)
{
	return t->state != GPUDP_IPFIX_STATE_DOWN;
}

static void
add_record(struct gpudp_ipfix *x, struct ipfix_tgt *t, uint16_t tid, uint32_t rlen,
	   const struct gpudp_flow_rec *rec, uint64_t now)
{
	struct ipfix_msg *m = &t->m;

	if (m->len != 0 &&
	    m->len + rlen + (m->set_id == tid ? 0 : IPFIX_SET_HDR) > m->max) {
		ship(x, t, now);
		if (!taking(t)) {
			t->st.dropped++;
			return;
		}
	}
	if (m->len == 0) {
		open_msg(x, t, now);
		if (!taking(t)) {
			t->st.dropped++;
			return;
		}
		if (m->len + rlen + IPFIX_SET_HDR > m->max) {
			ship(x, t, now);
			if (!taking(t)) {
				t->st.dropped++;
				return;
			}
			ipfix_msg_open(m, now);
		}
	}
	if (m->set_id != tid) {
		ipfix_msg_close_set(m);
		m->set_off = m->len;
		m->set_id = tid;
		ipfix_put16(m->buf + m->len, tid);
		m->len += IPFIX_SET_HDR;
	}
	m->len += ipfix_record_encode(m->buf + m->len, tid, rec);
	m->nrec++;
}

/* Messages open too long go; TCP connects and queues move. */
static void
tick(struct gpudp_ipfix *x, uint64_t now)
{
	uint64_t delay = (uint64_t)x->cfg.max_delay_ms * NS_PER_MS;
	unsigned int i;

	for (i = 0; i < x->n; i++) {
		struct ipfix_tgt *t = x->t[i];

		if (delay != 0 && t->m.len != 0 && now - t->m.opened_ns >= delay)
			ship(x, t, now);
		if (t->kind == GPUDP_IPFIX_TCP)
			ipfix_tcp_pump(x, t, now);
	}
}

void
gpudp_ipfix_export(struct gpudp_ipfix *x, const struct gpudp_flow_rec *recs, size_t n)
{
	uint64_t now = timer_ns(x);
	unsigned int i;
	size_t r;

	tick(x, now);
	for (r = 0; r < n; r++) {
		const struct gpudp_flow_rec *rec = &recs[r];
		uint16_t tid = gpudp_ipfix_template_of(rec);
		uint32_t rlen = gpudp_ipfix_record_len(tid);

		for (i = 0; i < x->n; i++) {
			struct ipfix_tgt *t = x->t[i];

			if (tid == 0 || !taking(t))
				t->st.dropped++;
			else
				add_record(x, t, tid, rlen, rec, now);
		}
	}
	for (i = 0; i < x->n; i++)
		if (x->t[i]->kind == GPUDP_IPFIX_TCP)
			ipfix_tcp_pump(x, x->t[i], now);
}

void
gpudp_ipfix_poll(struct gpudp_ipfix *x)
{
	uint64_t now = timer_ns(x);
	unsigned int i;

	for (i = 0; i < x->n; i++) {
		struct ipfix_tgt *t = x->t[i];

		if (t->kind == GPUDP_IPFIX_TCP)
			ipfix_tcp_check_peer(x, t, now);
		if (t->datagram && t->m.len == 0 && templates_due(x, t, now)) {
			open_msg(x, t, now);
			ship(x, t, now);
		}
		if (t->kind == GPUDP_IPFIX_FILE && t->flen != 0 &&
		    now - t->fns >= (uint64_t)x->cfg.max_delay_ms * NS_PER_MS)
			file_write(t);
	}
	tick(x, now);
}

int
gpudp_ipfix_flush(struct gpudp_ipfix *x)
{
	uint64_t now = timer_ns(x);
	int rc = 0;
	unsigned int i;

	for (i = 0; i < x->n; i++) {
		struct ipfix_tgt *t = x->t[i];

		ship(x, t, now);
		if (t->kind == GPUDP_IPFIX_FILE)
			file_write(t);
		if (t->kind == GPUDP_IPFIX_TCP) {
			ipfix_tcp_check_peer(x, t, now);
			ipfix_tcp_pump(x, t, now);
			if (t->qtail != t->qhead)
				rc = -EAGAIN;
		}
	}
	return rc;
}

int
gpudp_ipfix_drain(struct gpudp_ipfix *x, unsigned int timeout_ms)
{
	uint64_t start = timer_ns(x);
	struct pollfd p[GPUDP_IPFIX_MAX_TARGETS];

	if (gpudp_ipfix_flush(x) == 0)
		return 0;
	for (;;) {
		uint64_t now = timer_ns(x), left;
		unsigned int i, np = 0;

		for (i = 0; i < x->n; i++) {
			struct ipfix_tgt *t = x->t[i];

			if (t->kind != GPUDP_IPFIX_TCP)
				continue;
			ipfix_tcp_pump(x, t, now);
			if (t->qtail != t->qhead && t->fd >= 0) {
				p[np].fd = t->fd;
				p[np].events = POLLOUT;
				np++;
			}
		}
		if (np == 0)
			return 0;
		if (now - start >= (uint64_t)timeout_ms * NS_PER_MS)
			return -ETIMEDOUT;
		left = (uint64_t)timeout_ms - (now - start) / NS_PER_MS;
		poll(p, np, left > 100 ? 100 : (int)left);
	}
}

int
gpudp_ipfix_close(struct gpudp_ipfix *x, unsigned int timeout_ms)
{
	unsigned int i;
	int rc;

	if (x == NULL)
		return 0;
	rc = gpudp_ipfix_drain(x, timeout_ms);
	for (i = 0; i < x->n; i++)
		tgt_free(x->t[i]);
	free(x);
	return rc;
}

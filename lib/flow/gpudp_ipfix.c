/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The IPFIX exporter: targets, their messages and transports (UDP, TCP,
 * file, sink), timers and counters. The encoding is gpudp_ipfix_enc.c's.
 *
 * Each target builds its own message (struct ipfix_msg); ship() hands a
 * finished one to the transport. TCP messages go through a queue (a
 * linear buffer emptied from its head into the socket by tcp_pump(), and
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

static void tcp_connect(struct gpudp_ipfix *x, struct ipfix_tgt *t, uint64_t now);

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
		tcp_connect(x, t, timer_ns(x));
		break;
	default:
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

/* ------------------------------------------------------------ TCP */

static void
count_error(struct ipfix_tgt *t, int e)
{
	t->st.errors++;
	t->st.last_error = e;
}

/* The connection is gone (or never came): drop what waits, wait, retry. */
static void
tcp_fail(struct gpudp_ipfix *x, struct ipfix_tgt *t, int e, uint64_t now)
{
	uint32_t i;

	count_error(t, e);
	if (t->fd >= 0)
		close(t->fd);
	t->fd = -1;
	for (i = 0; i < t->qmn; i++)
		t->st.dropped += t->qm[(t->qmhead + i) % t->qmcap].nrec;
	t->st.dropped += t->m.nrec;
	t->m.len = 0;
	t->m.nrec = 0;
	t->qhead = t->qtail = t->qsent = 0;
	t->qmhead = t->qmn = 0;
	t->state = GPUDP_IPFIX_STATE_DOWN;
	t->next_connect_ns = now + (uint64_t)t->backoff_ms * NS_PER_MS;
	t->backoff_ms = t->backoff_ms > x->cfg.reconnect_max_ms / 2 ?
		x->cfg.reconnect_max_ms : t->backoff_ms * 2;
}

/* A new connection, a new session: sequence 0, templates first. */
static void
tcp_connect(struct gpudp_ipfix *x, struct ipfix_tgt *t, uint64_t now)
{
	int fd, one;

	t->seq = 0;
	t->tmpl_due = true;
	t->msgs_since_tmpl = 0;
	fd = socket(t->addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		tcp_fail(x, t, errno, now);
		return;
	}
	t->fd = fd;
	if (x->cfg.tcp_sndbuf != 0) {
		one = (int)x->cfg.tcp_sndbuf;
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &one, sizeof(one));
	}
	if (connect(fd, (const struct sockaddr *)&t->addr, t->addrlen) == 0) {
		t->state = GPUDP_IPFIX_STATE_UP;
		t->st.connects++;
		t->up_ns = now;
	} else if (errno == EINPROGRESS) {
		t->state = GPUDP_IPFIX_STATE_CONNECTING;
	} else {
		tcp_fail(x, t, errno, now);
	}
}

/* Count the queued messages whose last byte just went. */
static void
tcp_sent(struct ipfix_tgt *t, uint32_t n)
{
	t->qhead += n;
	t->qsent += n;
	t->st.bytes += n;
	while (t->qmn > 0 && t->qsent >= t->qm[t->qmhead].len) {
		const struct qmsg *q = &t->qm[t->qmhead];

		t->qsent -= q->len;
		t->st.messages++;
		t->st.records += q->nrec;
		if (q->templates)
			t->st.template_msgs++;
		t->qmhead = (t->qmhead + 1) % t->qmcap;
		t->qmn--;
	}
	if (t->qhead == t->qtail)
		t->qhead = t->qtail = 0;
}

/* Connect progress, then the queue into the socket; never waits. */
static void
tcp_pump(struct gpudp_ipfix *x, struct ipfix_tgt *t, uint64_t now)
{
	if (t->state == GPUDP_IPFIX_STATE_DOWN) {
		if (now >= t->next_connect_ns)
			tcp_connect(x, t, now);
		if (t->state == GPUDP_IPFIX_STATE_DOWN)
			return;
	}
	if (t->state == GPUDP_IPFIX_STATE_CONNECTING) {
		struct pollfd p = { .fd = t->fd, .events = POLLOUT };
		int e = 0;
		socklen_t el = sizeof(e);

		if (poll(&p, 1, 0) <= 0)
			return;
		if (getsockopt(t->fd, SOL_SOCKET, SO_ERROR, &e, &el) != 0)
			e = errno;
		if (e != 0) {
			tcp_fail(x, t, e, now);
			return;
		}
		t->state = GPUDP_IPFIX_STATE_UP;
		t->st.connects++;
		t->up_ns = now;
	}
	if (now - t->up_ns >= (uint64_t)x->cfg.reconnect_max_ms * NS_PER_MS)
		t->backoff_ms = x->cfg.reconnect_min_ms;
	while (t->qhead < t->qtail) {
		ssize_t n = send(t->fd, t->q + t->qhead, t->qtail - t->qhead,
				 MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n > 0) {
			tcp_sent(t, (uint32_t)n);
		} else if (n < 0 && errno == EINTR) {
			continue;
		} else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			break;
		} else {
			tcp_fail(x, t, n < 0 ? errno : EPIPE, now);
			return;
		}
	}
}

/* A collector sends nothing: readable means closed (or reset). */
static void
tcp_check_peer(struct gpudp_ipfix *x, struct ipfix_tgt *t, uint64_t now)
{
	uint8_t buf[256];
	ssize_t n;

	if (t->state != GPUDP_IPFIX_STATE_UP)
		return;
	do
		n = recv(t->fd, buf, sizeof(buf), MSG_DONTWAIT);
	while (n > 0);
	if (n == 0)
		tcp_fail(x, t, EPIPE, now);
	else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
		tcp_fail(x, t, errno, now);
}

static bool
tcp_enqueue(struct gpudp_ipfix *x, struct ipfix_tgt *t, uint64_t now)
{
	const struct ipfix_msg *m = &t->m;
	struct qmsg *q;

	if (t->qmn == t->qmcap || t->qcap - (t->qtail - t->qhead) < m->len) {
		tcp_pump(x, t, now);
		if (t->state == GPUDP_IPFIX_STATE_DOWN)
			return false;
		if (t->qmn == t->qmcap || t->qcap - (t->qtail - t->qhead) < m->len)
			return false;
	}
	if (t->qtail + m->len > t->qcap) {
		memmove(t->q, t->q + t->qhead, t->qtail - t->qhead);
		t->qtail -= t->qhead;
		t->qhead = 0;
	}
	memcpy(t->q + t->qtail, m->buf, m->len);
	t->qtail += m->len;
	q = &t->qm[(t->qmhead + t->qmn) % t->qmcap];
	q->len = m->len;
	q->nrec = m->nrec;
	q->templates = m->templates;
	t->qmn++;
	return true;
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
			count_error(t, ECONNREFUSED);
			n = send(t->fd, m->buf, m->len, MSG_DONTWAIT | MSG_NOSIGNAL);
		}
		if (n != (ssize_t)m->len)
			e = n < 0 ? errno : EMSGSIZE;
		break;
	case GPUDP_IPFIX_FILE:
		e = write_all(t->fd, m->buf, m->len);
		break;
	case GPUDP_IPFIX_SINK:
		e = -t->fn(t->arg, m->buf, m->len);
		break;
	default:
		ok = tcp_enqueue(x, t, now);
		advance = ok;
		break;
	}
	if (e != 0) {
		ok = false;
		count_error(t, e);
	}
	if (advance)
		t->seq += m->nrec;
	if (!ok) {
		if (t->state != GPUDP_IPFIX_STATE_DOWN)
			t->st.dropped += m->nrec;
		/* tcp_fail() counted them */
		if (m->templates)
			t->tmpl_due = true;
	} else {
		if (t->kind != GPUDP_IPFIX_TCP) {
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
			tcp_pump(x, t, now);
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
			tcp_pump(x, x->t[i], now);
}

void
gpudp_ipfix_poll(struct gpudp_ipfix *x)
{
	uint64_t now = timer_ns(x);
	unsigned int i;

	for (i = 0; i < x->n; i++) {
		struct ipfix_tgt *t = x->t[i];

		if (t->kind == GPUDP_IPFIX_TCP)
			tcp_check_peer(x, t, now);
		if (t->datagram && t->m.len == 0 && templates_due(x, t, now)) {
			open_msg(x, t, now);
			ship(x, t, now);
		}
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
		if (t->kind == GPUDP_IPFIX_TCP) {
			tcp_check_peer(x, t, now);
			tcp_pump(x, t, now);
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
			tcp_pump(x, t, now);
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

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The IPFIX exporter's TCP transport (gpudp_ipfix.c has the rest): a
 * non-blocking connection to each TCP collector, its queue of messages
 * pumped into the socket without ever waiting, the peer's close seen, and
 * reconnection with a growing back-off; a new connection starts a new
 * session (sequence 0, templates first).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "gpudp_ipfix_pvt.h"

void
ipfix_count_error(struct ipfix_tgt *t, int e)
{
	t->st.errors++;
	t->st.last_error = e;
}

/* The connection is gone (or never came): drop what waits, wait, retry. */
static void
ipfix_tcp_fail(struct gpudp_ipfix *x, struct ipfix_tgt *t, int e, uint64_t now)
{
	uint32_t i;

	ipfix_count_error(t, e);
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
void
ipfix_tcp_connect(struct gpudp_ipfix *x, struct ipfix_tgt *t, uint64_t now)
{
	int fd, one;

	t->seq = 0;
	t->tmpl_due = true;
	t->msgs_since_tmpl = 0;
	fd = socket(t->addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		ipfix_tcp_fail(x, t, errno, now);
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
		ipfix_tcp_fail(x, t, errno, now);
	}
}

/* Count the queued messages whose last byte just went. */
static void
ipfix_tcp_sent(struct ipfix_tgt *t, uint32_t n)
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
void
ipfix_tcp_pump(struct gpudp_ipfix *x, struct ipfix_tgt *t, uint64_t now)
{
	if (t->state == GPUDP_IPFIX_STATE_DOWN) {
		if (now >= t->next_connect_ns)
			ipfix_tcp_connect(x, t, now);
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
			ipfix_tcp_fail(x, t, e, now);
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
			ipfix_tcp_sent(t, (uint32_t)n);
		} else if (n < 0 && errno == EINTR) {
			continue;
		} else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			break;
		} else {
			ipfix_tcp_fail(x, t, n < 0 ? errno : EPIPE, now);
			return;
		}
	}
}

/* A collector sends nothing: readable means closed (or reset). */
void
ipfix_tcp_check_peer(struct gpudp_ipfix *x, struct ipfix_tgt *t, uint64_t now)
{
	uint8_t buf[256];
	ssize_t n;

	if (t->state != GPUDP_IPFIX_STATE_UP)
		return;
	do
		n = recv(t->fd, buf, sizeof(buf), MSG_DONTWAIT);
	while (n > 0);
	if (n == 0)
		ipfix_tcp_fail(x, t, EPIPE, now);
	else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
		ipfix_tcp_fail(x, t, errno, now);
}

bool
ipfix_tcp_enqueue(struct gpudp_ipfix *x, struct ipfix_tgt *t, uint64_t now)
{
	const struct ipfix_msg *m = &t->m;
	struct qmsg *q;

	if (t->qmn == t->qmcap || t->qcap - (t->qtail - t->qhead) < m->len) {
		ipfix_tcp_pump(x, t, now);
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

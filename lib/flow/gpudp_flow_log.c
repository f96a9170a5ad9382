/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The NDJSON flow log (gpudp_flow_log.h): a line per record, formatted into
 * the writer's buffer and written with write(2), which gives its errno
 * (stdio's fwrite() would keep a failed write's bytes and its errno only
 * sometimes).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gpudp_flow_cid.h"
#include "gpudp_flow_log.h"

/* the writer's buffer: written out when less than a line's room is left */
#define LOG_BUF_SIZE GPUDP_FLOW_LOG_LINE_BUF

struct gpudp_flow_log {
	int fd;
	bool is_stdout;
	unsigned int flags;
	uint16_t seed;
	int err;            /* the first write error, negative errno; sticky */
	size_t used;        /* bytes in buf */
	uint64_t pending;   /* their records */
	uint64_t records;
	uint64_t dropped;
	uint64_t bytes;
	char buf[LOG_BUF_SIZE];
};

/* ------------------------------------------------------------ formatting */

/* An appender: text goes to p while it fits; over is set when it did not. */
struct out {
	char *p;
	char *end;   /* the last byte, kept for the NUL */
	bool over;
};

static void
put_mem(struct out *o, const char *s, size_t n)
{
	if (o->over || (size_t)(o->end - o->p) < n) {
		o->over = true;
		return;
	}
	memcpy(o->p, s, n);
	o->p += n;
}

static void
put_str(struct out *o, const char *s)
{
	put_mem(o, s, strlen(s));
}

static void
put_u64(struct out *o, uint64_t v)
{
	char d[20];
	size_t n = sizeof(d);

	do {
		d[--n] = (char)('0' + v % 10);
		v /= 10;
	} while (v != 0);
	put_mem(o, d + n, sizeof(d) - n);
}

/* ,"key":N (the first field has no comma: its key is written with the brace) */
static void
put_num(struct out *o, const char *key, uint64_t v)
{
	put_str(o, ",\"");
	put_str(o, key);
	put_str(o, "\":");
	put_u64(o, v);
}

/* ,"key":"text"; text is ASCII without quotes or backslashes */
static void
put_text(struct out *o, const char *key, const char *text)
{
	put_str(o, ",\"");
	put_str(o, key);
	put_str(o, "\":\"");
	put_str(o, text);
	put_str(o, "\"");
}

/* ns since the epoch as RFC 3339 UTC with nanoseconds: 2026-11-28T19:36:33.000000001Z */
static void
put_time(struct out *o, const char *key, uint64_t ns)
{
	time_t sec = (time_t)(ns / 1000000000u);
	char s[48];
	struct tm tm;

	/* 2^64 ns is in the year 2554: gmtime_r() cannot fail with a 64-bit time_t */
	if (gmtime_r(&sec, &tm) == NULL)
		memset(&tm, 0, sizeof(tm));
	snprintf(s, sizeof(s), "%04d-%02d-%02dT%02d:%02d:%02d.%09uZ", tm.tm_year + 1900,
		 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
		 (unsigned int)(ns % 1000000000u));
	put_text(o, key, s);
}

static void
put_addr(struct out *o, const char *key, uint8_t af, const uint8_t *a)
{
	char s[INET6_ADDRSTRLEN];

	if (inet_ntop(af == 4 ? AF_INET : AF_INET6, a, s, sizeof(s)) == NULL)
		s[0] = '\0';   /* cannot happen: the buffer holds any address */
	put_text(o, key, s);
}

const char *
gpudp_flow_end_name(uint8_t reason)
{
	switch (reason) {
	case GPUDP_FLOW_END_IDLE:
		return "idle";
	case GPUDP_FLOW_END_ACTIVE:
		return "active";
	case GPUDP_FLOW_END_EOF:
		return "end";
	case GPUDP_FLOW_END_FORCED:
		return "forced";
	case GPUDP_FLOW_END_RESOURCES:
		return "lack_of_resources";
	default:
		return "unknown";
	}
}

char *
gpudp_flow_tcp_flags_str(uint8_t flags, char buf[GPUDP_FLOW_TCP_FLAGS_SIZE])
{
	static const char letters[] = GPUDP_FLOW_TCP_FLAGS_LETTERS;
	size_t i, n = 0;

	for (i = 0; i < 8; i++)
		if (flags & (1u << i))
			buf[n++] = letters[i];
	buf[n] = '\0';
	return buf;
}

int
gpudp_flow_log_format(const struct gpudp_flow_rec *rec, unsigned int flags, uint16_t seed,
		      char *buf, size_t len)
{
	char cid[GPUDP_FLOW_CID_SIZE], tf[GPUDP_FLOW_TCP_FLAGS_SIZE];
	struct out o;
	bool biflow;

	if (buf != NULL && len > 0)
		buf[0] = '\0';
	if (rec == NULL || buf == NULL || (rec->af != 4 && rec->af != 6))
		return -EINVAL;
	if (len == 0)
		return -ENOSPC;
	biflow = (rec->flags & GPUDP_FLOW_REC_BIFLOW) != 0;
	o = (struct out){ .p = buf, .end = buf + len - 1, .over = false };
	put_str(&o, "{\"af\":");
	put_u64(&o, rec->af);
	put_addr(&o, "src", rec->af, rec->src);
	put_addr(&o, "dst", rec->af, rec->dst);
	put_num(&o, "sport", rec->sport);
	put_num(&o, "dport", rec->dport);
	if (rec->proto == 1 || rec->proto == 58) {
		put_num(&o, "icmp_type", rec->dport >> 8);
		put_num(&o, "icmp_code", rec->dport & 0xff);
	}
	put_num(&o, "proto", rec->proto);
	put_num(&o, "vlan", rec->vlan);
	put_num(&o, "tos", rec->tos);
	put_num(&o, "tcp_flags", rec->tcp_flags);
	put_text(&o, "tcp_flags_str", gpudp_flow_tcp_flags_str(rec->tcp_flags, tf));
	put_time(&o, "first", rec->first_ns);
	put_num(&o, "first_ns", rec->first_ns);
	put_time(&o, "last", rec->last_ns);
	put_num(&o, "last_ns", rec->last_ns);
	put_num(&o, "packets", rec->packets);
	put_num(&o, "octets", rec->octets);
	put_num(&o, "l2_octets", rec->l2_octets);
	put_str(&o, biflow ? ",\"biflow\":true" : ",\"biflow\":false");
	if (biflow) {
		put_num(&o, "rpackets", rec->rpackets);
		put_num(&o, "roctets", rec->roctets);
		put_num(&o, "rl2_octets", rec->rl2_octets);
		put_num(&o, "rtcp_flags", rec->rtcp_flags);
		put_text(&o, "rtcp_flags_str", gpudp_flow_tcp_flags_str(rec->rtcp_flags, tf));
	}
	put_text(&o, "end_reason", gpudp_flow_end_name(rec->end_reason));
	put_num(&o, "end_reason_id", rec->end_reason);
	if (!(flags & GPUDP_FLOW_LOG_NO_COMMUNITY_ID)) {
		gpudp_flow_community_id(rec, seed, cid, sizeof(cid));
		put_text(&o, "community_id", cid);
	}
	put_str(&o, "}\n");
	if (o.over) {
		buf[0] = '\0';
		return -ENOSPC;
	}
	*o.p = '\0';
	return (int)(o.p - buf);
}

/* ---------------------------------------------------------------- writing */

/*
 * write(2) without SIGPIPE: a closed pipe or socket gives EPIPE only. The
 * signal is blocked in this thread for the call, and the one the call
 * raised taken back, unless one was pending already (then it stays so).
 */
static ssize_t
write_nosigpipe(int fd, const void *p, size_t n)
{
	sigset_t pipe_set, old, pending;
	struct timespec zero = { 0, 0 };
	bool was_pending;
	ssize_t r;
	int err;

	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	was_pending = sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE) == 1;
	if (was_pending || pthread_sigmask(SIG_BLOCK, &pipe_set, &old) != 0)
		return write(fd, p, n);
	r = write(fd, p, n);
	err = errno;
	if (r < 0 && err == EPIPE)
		while (sigtimedwait(&pipe_set, NULL, &zero) < 0 && errno == EINTR)
			;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	errno = err;
	return r;
}

/* Write the buffer; count its lines written, or dropped on an error. */
static int
log_flush(struct gpudp_flow_log *log)
{
	const char *p = log->buf, *nl;
	size_t off = 0;
	uint64_t lines = 0;
	int err = 0;

	while (off < log->used) {
		ssize_t r = write_nosigpipe(log->fd, log->buf + off, log->used - off);

		if (r > 0) {
			off += (size_t)r;
		} else if (r == 0) {
			err = -EIO;
		} else if (errno == EINTR) {
			continue;
		} else if (errno == EAGAIN || errno == EWOULDBLOCK) {
			/* a non-blocking descriptor (standard output may be one): wait */
			struct pollfd pfd = { .fd = log->fd, .events = POLLOUT };

			if (poll(&pfd, 1, -1) < 0 && errno != EINTR)
				err = -errno;
		} else {
			err = -errno;
		}
		if (err != 0)
			break;
	}
	while ((nl = memchr(p, '\n', (size_t)(log->buf + off - p))) != NULL) {
		lines++;
		p = nl + 1;
	}
	log->records += lines;
	log->pending -= lines;
	log->bytes += off;
	log->used = 0;
	if (err != 0) {
		log->dropped += log->pending;
		log->pending = 0;
		log->err = err;
	}
	return err;
}

int
gpudp_flow_log_open(const char *path, unsigned int flags, uint16_t seed,
		    struct gpudp_flow_log **logp)
{
	struct gpudp_flow_log *log;
	int fd, err;

	if (logp != NULL)
		*logp = NULL;
	if (path == NULL || logp == NULL || path[0] == '\0' ||
	    (flags & ~(GPUDP_FLOW_LOG_APPEND | GPUDP_FLOW_LOG_NO_COMMUNITY_ID)) != 0)
		return -EINVAL;
	log = calloc(1, sizeof(*log));
	if (log == NULL)
		return -ENOMEM;
	if (strcmp(path, "-") == 0) {
		if (fcntl(STDOUT_FILENO, F_GETFL) < 0) {
			err = -errno;
			free(log);
			return err;
		}
		fd = STDOUT_FILENO;
		log->is_stdout = true;
	} else {
		fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC |
			  (flags & GPUDP_FLOW_LOG_APPEND ? O_APPEND : O_TRUNC), 0666);
		if (fd < 0) {
			err = -errno;
			free(log);
			return err;
		}
	}
	log->fd = fd;
	log->flags = flags;
	log->seed = seed;
	*logp = log;
	return 0;
}

int
gpudp_flow_log_write(struct gpudp_flow_log *log, const struct gpudp_flow_rec *rec)
{
	int n;

	if (log == NULL)
		return -EINVAL;
	if (log->err != 0) {
		log->dropped++;
		return log->err;
	}
	if (rec == NULL || (rec->af != 4 && rec->af != 6)) {
		log->dropped++;
		return -EINVAL;
	}
	if (sizeof(log->buf) - log->used < GPUDP_FLOW_LOG_LINE_MAX && log_flush(log) != 0) {
		log->dropped++;
		return log->err;
	}
	n = gpudp_flow_log_format(rec, log->flags, log->seed, log->buf + log->used,
				  sizeof(log->buf) - log->used);
	if (n < 0) {   /* cannot happen: a line fits in GPUDP_FLOW_LOG_LINE_MAX */
		log->dropped++;
		return n;
	}
	log->used += (size_t)n;
	log->pending++;
	return 0;
}

int
gpudp_flow_log_write_line(struct gpudp_flow_log *log, const char *line, size_t len)
{
	if (log == NULL)
		return -EINVAL;
	if (log->err != 0) {
		log->dropped++;
		return log->err;
	}
	if (line == NULL || len == 0 || len > sizeof(log->buf) || line[len - 1] != '\n' ||
	    memchr(line, '\n', len - 1) != NULL) {
		log->dropped++;
		return -EINVAL;
	}
	if (sizeof(log->buf) - log->used < len && log_flush(log) != 0) {
		log->dropped++;
		return log->err;
	}
	memcpy(log->buf + log->used, line, len);
	log->used += len;
	log->pending++;
	return 0;
}

int
gpudp_flow_log_flush(struct gpudp_flow_log *log)
{
	if (log == NULL)
		return -EINVAL;
	if (log->err != 0)
		return log->err;
	return log_flush(log);
}

void
gpudp_flow_log_stats_get(const struct gpudp_flow_log *log, struct gpudp_flow_log_stats *st)
{
	if (st == NULL)
		return;
	memset(st, 0, sizeof(*st));
	if (log == NULL)
		return;
	st->records = log->records;
	st->pending = log->pending;
	st->dropped = log->dropped;
	st->bytes = log->bytes;
	st->error = log->err;
}

int
gpudp_flow_log_close(struct gpudp_flow_log *log)
{
	int err;

	if (log == NULL)
		return 0;
	err = gpudp_flow_log_flush(log);
	if (!log->is_stdout && close(log->fd) != 0 && err == 0 && errno != EINTR)
		err = -errno;
	free(log);
	return err;
}

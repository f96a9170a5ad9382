/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The metrics endpoint: /metrics over HTTP through libmicrohttpd, on the
 * library's own polling thread, with its limits (connections, per address,
 * header memory, idle time) set; and the listening address's parser.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpudp_metrics.h"

#ifdef GPUDP_HAS_MHD
#include <microhttpd.h>
#endif

struct gpudp_metrics_server {
	struct gpudp_metrics_conf conf;
	struct sockaddr_storage ss;
	socklen_t sslen;
	uint16_t port;
	_Atomic uint64_t scrapes, not_found, bad_method, failed;
#ifdef GPUDP_HAS_MHD
	struct MHD_Daemon *d;
#endif
};

static int
bad(char *err, size_t errlen, const char *spec, const char *why)
{
	if (err != NULL && errlen > 0)
		snprintf(err, errlen, "'%s': %s", spec, why);
	return -EINVAL;
}

int
gpudp_metrics_parse_listen(const char *spec, struct sockaddr_storage *ss, socklen_t *len,
			   char *err, size_t errlen)
{
	char host[64] = "127.0.0.1";
	const char *port = spec, *c;
	unsigned long p;
	char *end;
	int v6 = 0;

	if (spec == NULL || spec[0] == '\0')
		return bad(err, errlen, spec != NULL ? spec : "", "empty");
	if (spec[0] == '[') {
		c = strchr(spec, ']');
		if (c == NULL || c[1] != ':' || (size_t)(c - spec - 1) >= sizeof(host))
			return bad(err, errlen, spec, "expected [IPV6]:PORT");
		memcpy(host, spec + 1, (size_t)(c - spec - 1));
		host[c - spec - 1] = '\0';
		port = c + 2;
		v6 = 1;
	} else if ((c = strrchr(spec, ':')) != NULL) {
		if (memchr(spec, ':', (size_t)(c - spec)) != NULL)
			return bad(err, errlen, spec, "an IPv6 address goes in brackets: [IPV6]:PORT");
		if (c == spec || (size_t)(c - spec) >= sizeof(host))
			return bad(err, errlen, spec, "expected HOST:PORT");
		memcpy(host, spec, (size_t)(c - spec));
		host[c - spec] = '\0';
		port = c + 1;
	}
	if (port[0] < '0' || port[0] > '9' || strlen(port) > 5)
		return bad(err, errlen, spec, "expected a port 0..65535");
	p = strtoul(port, &end, 10);
	if (*end != '\0' || p > 65535)
		return bad(err, errlen, spec, "expected a port 0..65535");
	memset(ss, 0, sizeof(*ss));
	if (v6) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;

		if (inet_pton(AF_INET6, host, &a->sin6_addr) != 1)
			return bad(err, errlen, spec, "not an IPv6 address");
		a->sin6_family = AF_INET6;
		a->sin6_port = htons((uint16_t)p);
		*len = sizeof(*a);
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)ss;

		if (strcmp(host, "localhost") == 0)
			strcpy(host, "127.0.0.1");
		if (strcmp(host, "*") == 0)
			a->sin_addr.s_addr = htonl(INADDR_ANY);
		else if (inet_pton(AF_INET, host, &a->sin_addr) != 1)
			return bad(err, errlen, spec, "not an IPv4 address, localhost or *");
		a->sin_family = AF_INET;
		a->sin_port = htons((uint16_t)p);
		*len = sizeof(*a);
	}
	return 0;
}

uint16_t
gpudp_metrics_port(const struct gpudp_metrics_server *s)
{
	return s->port;
}

void
gpudp_metrics_stats_get(const struct gpudp_metrics_server *s, struct gpudp_metrics_stats *st)
{
	st->scrapes = atomic_load(&s->scrapes);
	st->not_found = atomic_load(&s->not_found);
	st->bad_method = atomic_load(&s->bad_method);
	st->failed = atomic_load(&s->failed);
}

#ifdef GPUDP_HAS_MHD

#define CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

static enum MHD_Result
reply(struct MHD_Connection *c, unsigned int code, const char *text, const char *allow)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(strlen(text), (void *)text,
								  MHD_RESPMEM_PERSISTENT);
	enum MHD_Result ret;

	if (r == NULL)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
	if (allow != NULL)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, allow);
	ret = MHD_queue_response(c, code, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result
answer(void *cls, struct MHD_Connection *c, const char *url, const char *method,
       const char *version, const char *upload_data, size_t *upload_size, void **state)
{
	struct gpudp_metrics_server *s = cls;
	struct gpudp_metrics_text t;
	struct MHD_Response *r;
	enum MHD_Result ret;

	(void)version, (void)upload_data;
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0) {
		/* a body, if any, is not read: the connection closes after the answer */
		if (*state == NULL) {
			*state = s;
			atomic_fetch_add(&s->bad_method, 1);
			return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET and HEAD\n",
				     "GET, HEAD");
		}
		*upload_size = 0;
		return MHD_YES;
	}
	if (strcmp(url, "/metrics") != 0) {
		atomic_fetch_add(&s->not_found, 1);
		return reply(c, MHD_HTTP_NOT_FOUND, "not found: the metrics are at /metrics\n",
			     NULL);
	}
	memset(&t, 0, sizeof(t));
	s->conf.collect(s->conf.arg, &t);
	if (t.err != 0 || t.buf == NULL) {
		gpudp_metrics_text_free(&t);
		atomic_fetch_add(&s->failed, 1);
		return reply(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "the metrics could not be made\n",
			     NULL);
	}
	r = MHD_create_response_from_buffer(t.len, t.buf, MHD_RESPMEM_MUST_FREE);
	if (r == NULL) {
		gpudp_metrics_text_free(&t);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, CONTENT_TYPE);
	ret = MHD_queue_response(c, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	atomic_fetch_add(&s->scrapes, 1);
	return ret;
}

static void
log_nothing(void *cls, const char *fmt, va_list ap)
{
	(void)cls, (void)fmt, (void)ap;
}

int
gpudp_metrics_start(const struct gpudp_metrics_conf *conf, struct gpudp_metrics_server **out,
		    char *err, size_t errlen)
{
	struct gpudp_metrics_server *s;
	const union MHD_DaemonInfo *di;
	unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG;
	int rc;

	if (conf == NULL || conf->collect == NULL || conf->listen == NULL) {
		snprintf(err, errlen, "no address or collect function");
		return -EINVAL;
	}
	s = calloc(1, sizeof(*s));
	if (s == NULL)
		return -ENOMEM;
	s->conf = *conf;
	if (s->conf.timeout_s == 0)
		s->conf.timeout_s = 10;
	if (s->conf.max_conns == 0)
		s->conf.max_conns = 16;
	if (s->conf.max_per_ip == 0)
		s->conf.max_per_ip = 4;
	if (s->conf.header_bytes == 0)
		s->conf.header_bytes = 8192;
	rc = gpudp_metrics_parse_listen(conf->listen, &s->ss, &s->sslen, err, errlen);
	if (rc != 0) {
		free(s);
		return rc;
	}
	if (s->ss.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	errno = 0;
	s->d = MHD_start_daemon(flags, 0, NULL, NULL, answer, s,
				MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&s->ss,
				MHD_OPTION_CONNECTION_TIMEOUT, s->conf.timeout_s,
				MHD_OPTION_CONNECTION_LIMIT, s->conf.max_conns,
				MHD_OPTION_PER_IP_CONNECTION_LIMIT, s->conf.max_per_ip,
				MHD_OPTION_CONNECTION_MEMORY_LIMIT, s->conf.header_bytes,
				MHD_OPTION_EXTERNAL_LOGGER, log_nothing, NULL,
				MHD_OPTION_END);
	if (s->d == NULL) {
		rc = errno != 0 ? -errno : -EIO;
		snprintf(err, errlen, "cannot listen on '%s': %s", conf->listen, strerror(-rc));
		free(s);
		return rc;
	}
	di = MHD_get_daemon_info(s->d, MHD_DAEMON_INFO_BIND_PORT);
	s->port = di != NULL ? di->port : 0;
	*out = s;
	return 0;
}

void
gpudp_metrics_stop(struct gpudp_metrics_server *s)
{
	if (s == NULL)
		return;
	MHD_stop_daemon(s->d);
	free(s);
}

#else /* !GPUDP_HAS_MHD */

int
gpudp_metrics_start(const struct gpudp_metrics_conf *conf, struct gpudp_metrics_server **out,
		    char *err, size_t errlen)
{
	(void)conf, (void)out;
	snprintf(err, errlen, "built without libmicrohttpd (Debian: libmicrohttpd-dev)");
	return -ENOTSUP;
}

void
gpudp_metrics_stop(struct gpudp_metrics_server *s)
{
	free(s);
}

#endif

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The IPFIX exporter's transports (lib/flow, gpudp_ipfix.h) on the
 * loopback and in files, and their faults: a UDP collector that receives
 * everything and one that is not there (errors counted, export goes on),
 * a TCP collector that reads everything, one that closes every connection
 * it accepts, one that never reads (the exporter never blocks, drops are
 * counted), one that refuses (connects back off), a file, /dev/full.
 * Every message is decoded by the test's decoder (ipfix_decode.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpudp_ipfix.h"
#include "gpudp_test.h"
#include "gpudp_test_time.h"
#include "ipfix_decode.h"
#include "ipfix_test_recs.h"

/* a socket bound to @host (127.0.0.1 or ::1), port chosen by the kernel */
static int
bound_socket(int type, const char *host, unsigned int *port, int rcvbuf)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	int fd, family = strchr(host, ':') != NULL ? AF_INET6 : AF_INET;

	memset(&ss, 0, sizeof(ss));
	if (family == AF_INET) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;

		s4->sin_family = AF_INET;
		s4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		sl = sizeof(*s4);
	} else {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_addr = in6addr_loopback;
		sl = sizeof(*s6);
	}
	fd = socket(family, type | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (rcvbuf > 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	if (bind(fd, (struct sockaddr *)&ss, sl) != 0 ||
	    getsockname(fd, (struct sockaddr *)&ss, &sl) != 0 ||
	    (type == SOCK_STREAM && listen(fd, 8) != 0)) {
		close(fd);
		return -1;
	}
	*port = family == AF_INET ? ntohs(((struct sockaddr_in *)&ss)->sin_port) :
		ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	return fd;
}

/* a port of 127.0.0.1 where nothing listens now. @return 0, or -1 (errno) */
static int
closed_port(int type, unsigned int *port)
{
	int fd = bound_socket(type, "127.0.0.1", port, 0);

	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static int
make_exporter(struct gpudp_ipfix_config *cfg, const char *spec, struct gpudp_ipfix **x)
{
	struct gpudp_ipfix_target t;
	char err[256];
	int rc;

	if (gpudp_ipfix_target_parse(spec, &t, err, sizeof(err)) != 0 ||
	    gpudp_ipfix_create(cfg, x, err, sizeof(err)) != 0) {
		fprintf(stderr, "    %s\n", err);
		return -1;
	}
	rc = gpudp_ipfix_add_target(*x, &t, err, sizeof(err));
	if (rc != 0) {
		fprintf(stderr, "    %s\n", err);
		gpudp_ipfix_close(*x, 0);
		return -1;
	}
	return 0;
}

static struct gpudp_flow_rec *
rand_recs(size_t n, uint64_t seed)
{
	struct gpudp_flow_rec *r = calloc(n, sizeof(*r));
	size_t i;

	for (i = 0; r != NULL && i < n; i++)
		ipfix_test_rand_rec(&seed, &r[i], 0);
	return r;
}

/* ------------------------------------------------------------ UDP */

/*
 * Decode every datagram waiting on @fd into @got, after the @ngot records
 * of @n there already (*ngot grows).
 * @return the number of messages, or -1 with the reason in dec->err
 */
static int
recv_decode(int fd, struct ipfix_dec *dec, struct gpudp_flow_rec *got, size_t n, size_t *ngot)
{
	static uint8_t buf[65536];
	ssize_t len;
	size_t m;
	int msgs = 0;

	while ((len = recv(fd, buf, sizeof(buf), MSG_DONTWAIT)) > 0) {
		if (ipfix_dec_message(dec, buf, (size_t)len, got + *ngot, n - *ngot, &m) != 0)
			return -1;
		*ngot += m;
		msgs++;
	}
	return msgs;
}

static int
udp_collector_on(const char *host)
{
	const size_t n = 3000;
	struct gpudp_flow_rec *in = rand_recs(n, 0x5eed0001), *got = calloc(n, sizeof(*got));
	struct gpudp_ipfix_config cfg;
	struct gpudp_ipfix_stats st;
	struct gpudp_ipfix *x;
	struct ipfix_dec dec;
	unsigned int port;
	size_t done, ngot = 0;
	uint64_t msgs = 0;
	char spec[64];
	int fd, k;

	GPUDP_TEST_ASSERT(in != NULL && got != NULL, "calloc");
	fd = bound_socket(SOCK_DGRAM, host, &port, 8 << 20);
	GPUDP_TEST_SKIP_IF(fd < 0, "no UDP socket on %s: %s", host, strerror(errno));
	snprintf(spec, sizeof(spec), strchr(host, ':') ? "udp:[%s]:%u" : "udp:%s:%u", host, port);
	gpudp_ipfix_config_init(&cfg);
	cfg.domain_id = 77;
	GPUDP_TEST_ASSERT(make_exporter(&cfg, spec, &x) == 0, "%s", spec);
	ipfix_dec_init(&dec, 77, strchr(host, ':') ? 1452 : 1472);
	for (done = 0; done < n; done += 100) {
		gpudp_ipfix_export(x, in + done, 100);
		if (done % 500 == 0)
			gpudp_ipfix_flush(x);
		k = recv_decode(fd, &dec, got, n, &ngot);
		GPUDP_TEST_ASSERT(k >= 0, "%s", dec.err);
		msgs += (uint64_t)k;
	}
	gpudp_ipfix_flush(x);
	while (ngot < n) {
		struct pollfd pf = { .fd = fd, .events = POLLIN };

		if (poll(&pf, 1, 1000) <= 0)
			break;
		k = recv_decode(fd, &dec, got, n, &ngot);
		GPUDP_TEST_ASSERT(k >= 0, "%s", dec.err);
		msgs += (uint64_t)k;
	}
	gpudp_ipfix_stats_get(x, 0, &st);
	gpudp_ipfix_close(x, 0);
	close(fd);
	GPUDP_TEST_ASSERT(st.messages == msgs && st.records == n && st.dropped == 0 &&
			  st.errors == 0, "%s: stats %" PRIu64 " messages (%" PRIu64 " received) %"
			  PRIu64 " records %" PRIu64 " dropped %" PRIu64 " errors", spec,
			  st.messages, msgs, st.records, st.dropped, st.errors);
	GPUDP_TEST_ASSERT(ipfix_test_check_recs(in, n, got, ngot, spec) == GPUDP_TEST_PASS, "records");
	free(in);
	free(got);
	return GPUDP_TEST_PASS;
}

static int
udp_collector_receives_every_record(void)
{
	return udp_collector_on("127.0.0.1");
}

static int
udp_ipv6_collector_receives_every_record(void)
{
	return udp_collector_on("::1");
}

static int
udp_unreachable_collector_counts_errors_and_goes_on(void)
{
	struct gpudp_flow_rec *in = rand_recs(2000, 0x5eed0002);
	struct gpudp_ipfix_config cfg;
	struct gpudp_ipfix_stats st;
	struct gpudp_ipfix *x;
	unsigned int port;
	char spec[64];
	int i;

	GPUDP_TEST_ASSERT(in != NULL, "calloc");
	GPUDP_TEST_SKIP_IF(closed_port(SOCK_DGRAM, &port) != 0, "no UDP socket: %s",
			   strerror(errno));
	snprintf(spec, sizeof(spec), "127.0.0.1:%u", port);
	gpudp_ipfix_config_init(&cfg);
	GPUDP_TEST_ASSERT(make_exporter(&cfg, spec, &x) == 0, "%s", spec);
	for (i = 0; i < 40; i++) {
		gpudp_ipfix_export(x, in + i * 50, 50);
		GPUDP_TEST_ASSERT(gpudp_ipfix_flush(x) == 0, "flush");
		gpudp_test_sleep_ms(1); /* the port unreachable comes back */
	}
	gpudp_ipfix_stats_get(x, 0, &st);
	GPUDP_TEST_ASSERT(st.errors >= 10 && st.last_error == ECONNREFUSED,
			  "%" PRIu64 " errors, last %d: the refusals are not counted", st.errors,
			  st.last_error);
	/* each refused send is tried again once: the records went */
	GPUDP_TEST_ASSERT(st.messages >= 40 && st.records == 2000 && st.dropped == 0,
			  "%" PRIu64 " messages %" PRIu64 " records %" PRIu64 " dropped",
			  st.messages, st.records, st.dropped);
	gpudp_ipfix_close(x, 0);
	free(in);
	return GPUDP_TEST_PASS;
}

/* ------------------------------------------------------------ TCP */

struct tcp_peer {
	int lfd;
	int mode;            /* 0: read all; 1: close each connection; 2: accept, never read */
	volatile int stop;
	uint8_t *buf;        /* mode 0: everything read */
	size_t len, cap;
	int accepts;
	int cfd;             /* mode 2: the connection kept */
	pthread_t th;
};

static void *
tcp_peer_run(void *arg)
{
	struct tcp_peer *p = arg;

	while (!p->stop) {
		struct pollfd pf = { .fd = p->lfd, .events = POLLIN };
		int c;

		if (poll(&pf, 1, 20) <= 0)
			continue;
		c = accept(p->lfd, NULL, NULL);
		if (c < 0)
			continue;
		p->accepts++;
		if (p->mode == 1) {
			close(c);
			continue;
		}
		if (p->mode == 2) {
			p->cfd = c;
			continue;
		}
		for (;;) {
			ssize_t n;

			if (p->len == p->cap) {
				p->cap = p->cap ? p->cap * 2 : 1 << 20;
				p->buf = realloc(p->buf, p->cap);
			}
			n = read(c, p->buf + p->len, p->cap - p->len);
			if (n <= 0)
				break;
			p->len += (size_t)n;
		}
		close(c);
		if (p->mode == 0)
			break;
	}
	return NULL;
}

/*
 * @p (its mode set, cfd -1) listening on 127.0.0.1 (a receive buffer of
 * @rcvbuf bytes, 0: the default) in a thread; its target in @spec.
 * @return 0, -1 without a socket (errno), -2 without a thread
 */
static int
tcp_peer_start(struct tcp_peer *p, int rcvbuf, char *spec, size_t len)
{
	unsigned int port;

	p->lfd = bound_socket(SOCK_STREAM, "127.0.0.1", &port, rcvbuf);
	if (p->lfd < 0)
		return -1;
	if (pthread_create(&p->th, NULL, tcp_peer_run, p) != 0) {
		close(p->lfd);
		return -2;
	}
	snprintf(spec, len, "tcp:127.0.0.1:%u", port);
	return 0;
}

/* End @p's thread (mode 0 ends by itself after its one connection), close its sockets. */
static void
tcp_peer_stop(struct tcp_peer *p)
{
	if (p->mode != 0)
		p->stop = 1;
	pthread_join(p->th, NULL);
	if (p->cfd >= 0)
		close(p->cfd);
	close(p->lfd);
}

static int
tcp_collector_receives_stream_with_templates_once(void)
{
	const size_t n = 20000;
	struct gpudp_flow_rec *in = rand_recs(n, 0x5eed0003), *got = calloc(n, sizeof(*got));
	struct tcp_peer peer = { .mode = 0, .cfd = -1 };
	struct gpudp_ipfix_config cfg;
	struct gpudp_ipfix_stats st;
	struct gpudp_ipfix *x;
	struct ipfix_dec dec;
	size_t done, ngot;
	char spec[64];
	int rc;

	GPUDP_TEST_ASSERT(in != NULL && got != NULL, "calloc");
	rc = tcp_peer_start(&peer, 0, spec, sizeof(spec));
	GPUDP_TEST_SKIP_IF(rc == -1, "no TCP socket: %s", strerror(errno));
	GPUDP_TEST_ASSERT(rc == 0, "thread");
	gpudp_ipfix_config_init(&cfg);
	cfg.domain_id = 5;
	cfg.refresh_msgs = 3;  /* not for TCP: templates once */
	GPUDP_TEST_ASSERT(make_exporter(&cfg, spec, &x) == 0, "%s", spec);
	for (done = 0; done < n; done += 250) {
		gpudp_ipfix_export(x, in + done, 250);
		gpudp_ipfix_poll(x);
	}
	GPUDP_TEST_ASSERT(gpudp_ipfix_drain(x, 10000) == 0, "drain");
	gpudp_ipfix_stats_get(x, 0, &st);
	GPUDP_TEST_ASSERT(gpudp_ipfix_close(x, 1000) == 0, "close");
	tcp_peer_stop(&peer);
	GPUDP_TEST_ASSERT(st.connects == 1 && st.errors == 0 && st.dropped == 0 &&
			  st.records == n && st.queued == 0 && st.template_msgs == 1,
			  "%" PRIu64 " connects %" PRIu64 " errors %" PRIu64 " dropped %" PRIu64
			  " records %u queued %" PRIu64 " template messages", st.connects, st.errors,
			  st.dropped, st.records, st.queued, st.template_msgs);
	GPUDP_TEST_ASSERT(st.bytes == peer.len, "%" PRIu64 " bytes sent, %zu received", st.bytes,
			  peer.len);
	ipfix_dec_init(&dec, 5, 1472);
	GPUDP_TEST_ASSERT(ipfix_dec_stream(&dec, peer.buf, peer.len, got, n, &ngot) == 0, "%s",
			  dec.err);
	GPUDP_TEST_ASSERT(dec.template_sets == 1 && dec.template_records == GPUDP_IPFIX_TEMPLATES,
			  "%" PRIu64 " template sets", dec.template_sets);
	GPUDP_TEST_ASSERT(ipfix_test_check_recs(in, n, got, ngot, spec) == GPUDP_TEST_PASS, "records");
	free(peer.buf);
	free(in);
	free(got);
	return GPUDP_TEST_PASS;
}

static int
tcp_collector_that_closes_is_counted_and_reconnected(void)
{
	struct gpudp_flow_rec *in = rand_recs(20, 0x5eed0004);
	struct tcp_peer peer = { .mode = 1, .cfd = -1 };
	struct gpudp_ipfix_config cfg;
	struct gpudp_ipfix_stats st;
	struct gpudp_ipfix *x;
	uint64_t t0, worst = 0, total = 0;
	char spec[64];
	int rc;

	GPUDP_TEST_ASSERT(in != NULL, "calloc");
	rc = tcp_peer_start(&peer, 0, spec, sizeof(spec));
	GPUDP_TEST_SKIP_IF(rc == -1, "no TCP socket: %s", strerror(errno));
	GPUDP_TEST_ASSERT(rc == 0, "thread");
	gpudp_ipfix_config_init(&cfg);
	cfg.reconnect_min_ms = 20;
	cfg.reconnect_max_ms = 100;
	GPUDP_TEST_ASSERT(make_exporter(&cfg, spec, &x) == 0, "%s", spec);
	t0 = gpudp_test_now_ns();
	while (gpudp_test_now_ns() - t0 < 1500000000ull) {
		uint64_t a = gpudp_test_now_ns(), d;

		gpudp_ipfix_export(x, in, 20);
		gpudp_ipfix_flush(x);
		gpudp_ipfix_poll(x);
		d = gpudp_test_now_ns() - a;
		worst = d > worst ? d : worst;
		total += 20;
		gpudp_test_sleep_ms(2);
	}
	gpudp_ipfix_stats_get(x, 0, &st);
	gpudp_ipfix_close(x, 0);
	tcp_peer_stop(&peer);
	GPUDP_TEST_ASSERT(st.errors >= 2 && st.connects >= 2 && peer.accepts >= 2,
			  "%" PRIu64 " errors %" PRIu64 " connects %d accepts: closed connections "
			  "not seen or not made again", st.errors, st.connects, peer.accepts);
	GPUDP_TEST_ASSERT(st.dropped > 0 && st.records + st.dropped + 20 >= total &&
			  st.records + st.dropped <= total, "%" PRIu64 " records + %" PRIu64
			  " dropped of %" PRIu64, st.records, st.dropped, total);
	/* a call that blocked would wait for good: 0.5 s leaves room for a busy machine */
	GPUDP_TEST_ASSERT(worst < 500000000ull, "a call took %" PRIu64 " ms", worst / 1000000);
	free(in);
	return GPUDP_TEST_PASS;
}

static int
tcp_stalled_collector_never_blocks_and_drops_are_counted(void)
{
	const size_t n = 200000;
	struct gpudp_flow_rec *in = rand_recs(1000, 0x5eed0005);
	struct tcp_peer peer = { .mode = 2, .cfd = -1 };
	struct gpudp_ipfix_config cfg;
	struct gpudp_ipfix_stats st;
	struct gpudp_ipfix *x;
	uint64_t worst = 0, a, closing;
	size_t done;
	char spec[64];
	int rc;

	GPUDP_TEST_ASSERT(in != NULL, "calloc");
	rc = tcp_peer_start(&peer, 4096, spec, sizeof(spec));
	GPUDP_TEST_SKIP_IF(rc == -1, "no TCP socket: %s", strerror(errno));
	GPUDP_TEST_ASSERT(rc == 0, "thread");
	gpudp_ipfix_config_init(&cfg);
	cfg.tcp_sndbuf = 4096;
	cfg.tcp_queue_bytes = 64 << 10;
	GPUDP_TEST_ASSERT(make_exporter(&cfg, spec, &x) == 0, "%s", spec);
	for (done = 0; done < n; done += 1000) {
		a = gpudp_test_now_ns();
		gpudp_ipfix_export(x, in, 1000);
		gpudp_ipfix_poll(x);
		a = gpudp_test_now_ns() - a;
		worst = a > worst ? a : worst;
	}
	gpudp_ipfix_flush(x);
	gpudp_ipfix_stats_get(x, 0, &st);
	a = gpudp_test_now_ns();
	rc = gpudp_ipfix_close(x, 200);
	closing = gpudp_test_now_ns() - a;
	tcp_peer_stop(&peer);
	GPUDP_TEST_ASSERT(st.connects == 1 && st.state == GPUDP_IPFIX_STATE_UP,
			  "%" PRIu64 " connects, state %d", st.connects, (int)st.state);
	GPUDP_TEST_ASSERT(st.dropped > n / 2, "%" PRIu64 " dropped of %zu: the stall was not "
			  "seen", st.dropped, n);
	GPUDP_TEST_ASSERT(st.records + st.dropped <= n &&
			  st.records + st.dropped + (64 << 10) / 58 >= n,
			  "%" PRIu64 " sent + %" PRIu64 " dropped of %zu (%u bytes queued)",
			  st.records, st.dropped, n, st.queued);
	GPUDP_TEST_ASSERT(st.queued > 0 && st.queued <= 64 << 10, "%u bytes queued", st.queued);
	GPUDP_TEST_ASSERT(worst < 500000000ull, "an export of 1000 records took %" PRIu64 " ms",
			  worst / 1000000);
	GPUDP_TEST_ASSERT(rc == -ETIMEDOUT && closing < 1000000000ull, "close: %d after %" PRIu64
			  " ms", rc, closing / 1000000);
	free(in);
	return GPUDP_TEST_PASS;
}

static int
tcp_refused_connects_back_off(void)
{
	struct gpudp_flow_rec *in = rand_recs(10, 0x5eed0006);
	struct gpudp_ipfix_config cfg;
	struct gpudp_ipfix_stats st;
	struct gpudp_ipfix *x;
	unsigned int port, step;
	uint64_t now = 1000000000ull;
	char spec[64];

	GPUDP_TEST_ASSERT(in != NULL, "calloc");
	GPUDP_TEST_SKIP_IF(closed_port(SOCK_STREAM, &port) != 0, "no TCP socket: %s",
			   strerror(errno));
	snprintf(spec, sizeof(spec), "tcp:127.0.0.1:%u", port);
	ipfix_test_config_clocked(&cfg, &now);
	cfg.reconnect_min_ms = 50;
	cfg.reconnect_max_ms = 400;
	GPUDP_TEST_ASSERT(make_exporter(&cfg, spec, &x) == 0, "%s", spec);
	/* 2 s of the exporter's clock in 10 ms steps: connects at 0, 50, 150,
	 * 350, 750, 1150, 1550, 1950 ms (the wait doubling to 400 ms) */
	for (step = 0; step <= 200; step++) {
		gpudp_ipfix_export(x, in, 10);
		gpudp_ipfix_poll(x);
		gpudp_test_sleep_ms(1);  /* the refusal comes back */
		gpudp_ipfix_poll(x);
		now += 10000000ull;
	}
	gpudp_ipfix_stats_get(x, 0, &st);
	gpudp_ipfix_close(x, 0);
	GPUDP_TEST_ASSERT(st.errors >= 7 && st.errors <= 9 && st.last_error == ECONNREFUSED,
			  "%" PRIu64 " refused connects (last error %d), want 8", st.errors,
			  st.last_error);
	GPUDP_TEST_ASSERT(st.connects == 0 && st.records == 0 && st.dropped == 2010,
			  "%" PRIu64 " connects %" PRIu64 " records %" PRIu64 " dropped", st.connects,
			  st.records, st.dropped);
	free(in);
	return GPUDP_TEST_PASS;
}

/* ------------------------------------------------------------ files */

static int
file_holds_every_message_back_to_back(void)
{
	const size_t n = 5000;
	struct gpudp_flow_rec *in = rand_recs(n, 0x5eed0007), *got = calloc(n, sizeof(*got));
	const char *tmp = getenv("TMPDIR");
	char path[4096];
	struct gpudp_ipfix_config cfg;
	struct gpudp_ipfix_stats st;
	struct gpudp_ipfix *x;
	struct ipfix_dec dec;
	struct stat sb;
	uint8_t *buf;
	size_t ngot;
	char spec[4200];
	int fd;

	GPUDP_TEST_ASSERT(in != NULL && got != NULL, "calloc");
	snprintf(path, sizeof(path), "%s/gpudp-ipfix-XXXXXX", tmp != NULL && *tmp ? tmp : "/tmp");
	fd = mkstemp(path);
	GPUDP_TEST_ASSERT(fd >= 0, "mkstemp: %s", strerror(errno));
	close(fd);
	snprintf(spec, sizeof(spec), "file:%s", path);
	gpudp_ipfix_config_init(&cfg);
	cfg.refresh_msgs = 2;  /* not for files: templates once */
	GPUDP_TEST_ASSERT(make_exporter(&cfg, spec, &x) == 0, "%s", spec);
	gpudp_ipfix_export(x, in, n);
	/* a file's messages are counted once written: every one after a flush */
	GPUDP_TEST_ASSERT(gpudp_ipfix_flush(x) == 0, "flush");
	gpudp_ipfix_stats_get(x, 0, &st);
	GPUDP_TEST_ASSERT(gpudp_ipfix_close(x, 0) == 0, "close");
	fd = open(path, O_RDONLY);
	GPUDP_TEST_ASSERT(fd >= 0 && fstat(fd, &sb) == 0, "%s", path);
	buf = malloc((size_t)sb.st_size + 1);
	GPUDP_TEST_ASSERT(buf != NULL && read(fd, buf, (size_t)sb.st_size) == sb.st_size, "read");
	close(fd);
	unlink(path);
	ipfix_dec_init(&dec, 0, 1452);
	GPUDP_TEST_ASSERT(ipfix_dec_stream(&dec, buf, (size_t)sb.st_size, got, n, &ngot) == 0,
			  "%s", dec.err);
	GPUDP_TEST_ASSERT(dec.template_sets == 1, "%" PRIu64 " template sets", dec.template_sets);
	GPUDP_TEST_ASSERT(st.bytes == (uint64_t)sb.st_size && st.records == n,
			  "stats: %" PRIu64 " bytes of %lld, %" PRIu64 " records of %zu", st.bytes,
			  (long long)sb.st_size, st.records, (size_t)n);
	GPUDP_TEST_ASSERT(ipfix_test_check_recs(in, n, got, ngot, spec) == GPUDP_TEST_PASS, "records");
	free(buf);
	free(in);
	free(got);
	return GPUDP_TEST_PASS;
}

static int
file_on_dev_full_counts_errors(void)
{
	struct gpudp_flow_rec *in = rand_recs(1000, 0x5eed0008);
	struct gpudp_ipfix_config cfg;
	struct gpudp_ipfix_stats st;
	struct gpudp_ipfix *x;
	uint64_t valid = 0;
	size_t i;

	GPUDP_TEST_ASSERT(in != NULL, "calloc");
	GPUDP_TEST_SKIP_IF(access("/dev/full", W_OK) != 0, "no /dev/full");
	gpudp_ipfix_config_init(&cfg);
	GPUDP_TEST_ASSERT(make_exporter(&cfg, "file:/dev/full", &x) == 0, "/dev/full");
	gpudp_ipfix_export(x, in, 1000);
	gpudp_ipfix_flush(x);
	gpudp_ipfix_stats_get(x, 0, &st);
	gpudp_ipfix_close(x, 0);
	for (i = 0; i < 1000; i++)
		valid += in[i].af == 4 || in[i].af == 6;
	GPUDP_TEST_ASSERT(st.errors > 0 && st.last_error == ENOSPC, "%" PRIu64 " errors, last %d",
			  st.errors, st.last_error);
	GPUDP_TEST_ASSERT(st.records == 0 && st.messages == 0 && st.dropped == valid,
			  "%" PRIu64 " records %" PRIu64 " messages %" PRIu64 " dropped",
			  st.records, st.messages, st.dropped);
	free(in);
	return GPUDP_TEST_PASS;
}

static int
file_that_cannot_be_made_names_the_path(void)
{
	struct gpudp_ipfix_target t;
	struct gpudp_ipfix *x;
	char err[256];
	int rc;

	GPUDP_TEST_ASSERT(gpudp_ipfix_target_file("/nonexistent-dir/flows.ipfix", &t, err,
						  sizeof(err)) == 0, "%s", err);
	GPUDP_TEST_ASSERT(gpudp_ipfix_create(NULL, &x, err, sizeof(err)) == 0, "%s", err);
	rc = gpudp_ipfix_add_target(x, &t, err, sizeof(err));
	gpudp_ipfix_close(x, 0);
	GPUDP_TEST_ASSERT(rc == -ENOENT, "add_target: %d", rc);
	GPUDP_TEST_ASSERT(strstr(err, "file:/nonexistent-dir/flows.ipfix") != NULL,
			  "'%s' names no path", err);
	return GPUDP_TEST_PASS;
}

int
main(int argc, char **argv)
{
	static const struct gpudp_test_case cases[] = {
		{ "udp_collector_receives_every_record", udp_collector_receives_every_record },
		{ "udp_ipv6_collector_receives_every_record", udp_ipv6_collector_receives_every_record },
		{ "udp_unreachable_collector_counts_errors_and_goes_on",
		  udp_unreachable_collector_counts_errors_and_goes_on },
		{ "tcp_collector_receives_stream_with_templates_once",
		  tcp_collector_receives_stream_with_templates_once },
		{ "tcp_collector_that_closes_is_counted_and_reconnected",
		  tcp_collector_that_closes_is_counted_and_reconnected },
		{ "tcp_stalled_collector_never_blocks_and_drops_are_counted",
		  tcp_stalled_collector_never_blocks_and_drops_are_counted },
		{ "tcp_refused_connects_back_off", tcp_refused_connects_back_off },
		{ "file_holds_every_message_back_to_back", file_holds_every_message_back_to_back },
		{ "file_on_dev_full_counts_errors", file_on_dev_full_counts_errors },
		{ "file_that_cannot_be_made_names_the_path", file_that_cannot_be_made_names_the_path },
		{ NULL, NULL },
	};

	return gpudp_test_run("ipfix_net", cases, argc, argv);
}

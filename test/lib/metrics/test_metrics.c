/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/metrics: the text exposition (exact text, escaping, bad names, a
 * round trip of random label values through a parser written here) and the
 * HTTP endpoint on the loopback (200 with the collect function's text, 404,
 * 405, 431 for oversized headers, an idle client closed after its timeout,
 * the connections from one address bounded while another client is
 * served, the address parser).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "gpudp_metrics.h"
#include "gpudp_test.h"

static int
exact_text(void)
{
	static const char *const l1[] = { "port", "0", "reason", "full", NULL };
	static const double le[] = { 0.5, 1, 2.5 };
	static const uint64_t cnt[] = { 1, 2, 3, 4 };
	struct gpudp_metrics_text t = { 0 };
	const char *want =
		"# HELP gpudp_rx_packets_total Packets received.\n"
		"# TYPE gpudp_rx_packets_total counter\n"
		"gpudp_rx_packets_total{port=\"0\",reason=\"full\"} 18446744073709551615\n"
		"gpudp_up 1\n"
		"# HELP lat_seconds a \\\\ b\\nc\n"
		"# TYPE lat_seconds histogram\n"
		"lat_seconds_bucket{le=\"0.5\"} 1\n"
		"lat_seconds_bucket{le=\"1\"} 3\n"
		"lat_seconds_bucket{le=\"2.5\"} 6\n"
		"lat_seconds_bucket{le=\"+Inf\"} 10\n"
		"lat_seconds_sum 12.5\n"
		"lat_seconds_count 10\n"
		"g{v=\"a\\\"b\\\\c\\nd\"} NaN\n";

	gpudp_metrics_family(&t, "gpudp_rx_packets_total", GPUDP_METRICS_COUNTER,
			     "Packets received.");
	gpudp_metrics_u64(&t, "gpudp_rx_packets_total", l1, UINT64_MAX);
	gpudp_metrics_u64(&t, "gpudp_up", NULL, 1);
	gpudp_metrics_family(&t, "lat_seconds", GPUDP_METRICS_HISTOGRAM, "a \\ b\nc");
	gpudp_metrics_histogram(&t, "lat_seconds", NULL, le, cnt, 3, 12.5);
	gpudp_metrics_f64(&t, "g", (const char *const[]){ "v", "a\"b\\c\nd", NULL }, 0.0 / 0.0);
	GPUDP_TEST_ASSERT(t.err == 0 && t.buf != NULL && strcmp(t.buf, want) == 0,
			  "err %d, text:\n%s", t.err, t.buf != NULL ? t.buf : "(none)");
	GPUDP_TEST_ASSERT(t.len == strlen(want), "len %zu", t.len);
	gpudp_metrics_text_free(&t);
	return GPUDP_TEST_PASS;
}

static int
bad_names_write_nothing(void)
{
	static const char *const bad_metric[] = { "", "1abc", "a-b", "a b", "é" };
	static const char *const bad_label[] = { "", "1x", "a:b", "a.b" };
	unsigned int i;

	for (i = 0; i < sizeof(bad_metric) / sizeof(bad_metric[0]); i++) {
		struct gpudp_metrics_text t = { 0 };

		gpudp_metrics_u64(&t, bad_metric[i], NULL, 1);
		gpudp_metrics_family(&t, bad_metric[i], GPUDP_METRICS_GAUGE, "x");
		GPUDP_TEST_ASSERT(t.err == -EINVAL && t.len == 0, "metric '%s': err %d len %zu",
				  bad_metric[i], t.err, t.len);
		gpudp_metrics_text_free(&t);
	}
	for (i = 0; i < sizeof(bad_label) / sizeof(bad_label[0]); i++) {
		struct gpudp_metrics_text t = { 0 };

		gpudp_metrics_u64(&t, "ok:name_1", (const char *const[]){ bad_label[i], "v", NULL },
				  1);
		GPUDP_TEST_ASSERT(t.err == -EINVAL && t.len == 0, "label '%s': err %d len %zu",
				  bad_label[i], t.err, t.len);
		gpudp_metrics_text_free(&t);
	}
	{
		struct gpudp_metrics_text t = { 0 };

		/* a label without its value */
		gpudp_metrics_u64(&t, "x", (const char *const[]){ "k", NULL }, 1);
		GPUDP_TEST_ASSERT(t.err == -EINVAL && t.len == 0, "odd labels accepted");
		gpudp_metrics_text_free(&t);
	}
	return GPUDP_TEST_PASS;
}

/* the value of label "v" in a sample line, unescaped; -1 malformed */
static int
parse_value(const char *line, char *out, size_t cap)
{
	const char *p = strstr(line, "{v=\"");
	size_t n = 0;

	if (p == NULL)
		return -1;
	for (p += 4; *p != '"'; p++) {
		char c = *p;

		if (c == '\0' || c == '\n' || n + 1 >= cap)
			return -1;
		if (c == '\\') {
			p++;
			c = *p == 'n' ? '\n' : *p == '\\' ? '\\' : *p == '"' ? '"' : 0;
			if (c == 0)
				return -1;
		}
		out[n++] = c;
	}
	out[n] = '\0';
	return strcmp(p, "\"} 7\n") == 0 ? 0 : -1;
}

/* 20000 random label values (every byte but NUL) written and parsed back */
static int
label_values_round_trip(void)
{
	uint64_t x = 0x9e3779b97f4a7c15ull;
	unsigned int round, i;
	char v[64], back[64];

	for (round = 0; round < 20000; round++) {
		struct gpudp_metrics_text t = { 0 };
		unsigned int n = round % 40;

		for (i = 0; i < n; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			v[i] = x % 5 == 0 ? "\"\\\n"[x % 3] : (char)(1 + x % 255);
		}
		v[n] = '\0';
		gpudp_metrics_u64(&t, "m", (const char *const[]){ "v", v, NULL }, 7);
		GPUDP_TEST_ASSERT(t.err == 0 && strchr(t.buf, '\n') == t.buf + t.len - 1,
				  "round %u: err %d or a raw newline", round, t.err);
		GPUDP_TEST_ASSERT(parse_value(t.buf, back, sizeof(back)) == 0 &&
				  strcmp(back, v) == 0, "round %u: '%s' read back as '%s'", round,
				  v, back);
		gpudp_metrics_text_free(&t);
	}
	return GPUDP_TEST_PASS;
}

static int
listen_parser(void)
{
	static const char *const good[] = { "9000", "0", "127.0.0.1:9100", "localhost:1",
					    "*:65535", "[::1]:9100", "[::]:0" };
	static const char *const bad[] = { "", ":", "x", "65536", "-1", "1.2.3:9", "::1:9100",
					   "[::1]", "[::1]9", "[1.2.3.4]:9", "host:9", ":9",
					   "1.2.3.4:", "1.2.3.4:123456", "9 ", "0x10" };
	struct sockaddr_storage ss;
	socklen_t len;
	char err[128];
	unsigned int i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		GPUDP_TEST_ASSERT(gpudp_metrics_parse_listen(good[i], &ss, &len, err,
							     sizeof(err)) == 0, "'%s': %s", good[i],
				  err);
	GPUDP_TEST_ASSERT(gpudp_metrics_parse_listen("9100", &ss, &len, err, sizeof(err)) == 0 &&
			  ss.ss_family == AF_INET &&
			  ((struct sockaddr_in *)&ss)->sin_addr.s_addr == htonl(INADDR_LOOPBACK) &&
			  ((struct sockaddr_in *)&ss)->sin_port == htons(9100),
			  "a bare port is not the loopback's");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		GPUDP_TEST_ASSERT(gpudp_metrics_parse_listen(bad[i], &ss, &len, err,
							     sizeof(err)) == -EINVAL &&
				  strstr(err, bad[i]) != NULL, "'%s' accepted or unnamed: %s",
				  bad[i], err);
	}
	return GPUDP_TEST_PASS;
}

/* ---- the endpoint ---- */

static void
collect(void *arg, struct gpudp_metrics_text *t)
{
	unsigned int *calls = arg;

	(*calls)++;
	gpudp_metrics_family(t, "test_up", GPUDP_METRICS_GAUGE, "Always 1.");
	gpudp_metrics_u64(t, "test_up", NULL, 1);
}

static int
connect_to(uint16_t port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* send @p req, read the answer until the peer closes or @p ms pass; its length or -1 */
static ssize_t
exchange(uint16_t port, const char *req, size_t reqlen, char *ans, size_t cap, int ms)
{
	int fd = connect_to(port);
	size_t n = 0;
	ssize_t r;

	if (fd < 0)
		return -1;
	if (send(fd, req, reqlen, MSG_NOSIGNAL) != (ssize_t)reqlen) {
		close(fd);
		return -1;
	}
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		if (poll(&p, 1, ms) <= 0)
			break;
		r = recv(fd, ans + n, cap - 1 - n, 0);
		if (r <= 0)
			break;
		n += (size_t)r;
		if (n == cap - 1)
			break;
	}
	ans[n] = '\0';
	close(fd);
	return (ssize_t)n;
}

#define GET(path) "GET " path " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"

static int
endpoint_answers(void)
{
	unsigned int calls = 0;
	struct gpudp_metrics_conf c = { .listen = "127.0.0.1:0", .collect = collect,
					.arg = &calls, .timeout_s = 1, .max_per_ip = 3 };
	struct gpudp_metrics_server *s;
	struct gpudp_metrics_stats st;
	static char ans[65536], big[32768];
	char err[256];
	int fds[8], i, idle;
	struct timespec t0, t1;
	ssize_t n;

	GPUDP_TEST_ASSERT(gpudp_metrics_start(&c, &s, err, sizeof(err)) == 0, "%s", err);
	GPUDP_TEST_ASSERT(gpudp_metrics_port(s) != 0, "no port");
	n = exchange(gpudp_metrics_port(s), GET("/metrics"), strlen(GET("/metrics")), ans,
		     sizeof(ans), 2000);
	GPUDP_TEST_ASSERT(n > 0 && strncmp(ans, "HTTP/1.1 200", 12) == 0 &&
			  strstr(ans, "text/plain; version=0.0.4") != NULL &&
			  strstr(ans, "\r\n\r\n# HELP test_up Always 1.\n# TYPE test_up gauge\n"
				 "test_up 1\n") != NULL && calls == 1, "answer:\n%s", ans);
	n = exchange(gpudp_metrics_port(s), GET("/"), strlen(GET("/")), ans, sizeof(ans), 2000);
	GPUDP_TEST_ASSERT(n > 0 && strncmp(ans, "HTTP/1.1 404", 12) == 0 && calls == 1,
			  "/: %s", ans);
	n = exchange(gpudp_metrics_port(s), GET("/metrics/../x"), strlen(GET("/metrics/../x")),
		     ans, sizeof(ans), 2000);
	GPUDP_TEST_ASSERT(n > 0 && strncmp(ans, "HTTP/1.1 404", 12) == 0, "..: %s", ans);
	{
		const char *post = "POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n"
				   "Connection: close\r\n\r\nabcd";

		n = exchange(gpudp_metrics_port(s), post, strlen(post), ans, sizeof(ans), 2000);
		GPUDP_TEST_ASSERT(n > 0 && strncmp(ans, "HTTP/1.1 405", 12) == 0 &&
				  strstr(ans, "Allow: GET, HEAD") != NULL && calls == 1,
				  "POST: %s", ans);
	}
	/* headers over the memory bound */
	i = snprintf(big, sizeof(big), "GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: ");
	memset(big + i, 'a', 20000);
	memcpy(big + i + 20000, "\r\n\r\n", 5);
	n = exchange(gpudp_metrics_port(s), big, strlen(big), ans, sizeof(ans), 2000);
	GPUDP_TEST_ASSERT(n > 0 && strncmp(ans, "HTTP/1.1 431", 12) == 0 && calls == 1,
			  "big headers: %.200s", ans);
	/* clients that open connections and send nothing: bounded per address,
	 * each closed after the timeout; meanwhile nothing else is slowed */
	for (i = 0; i < 5; i++)
		fds[i] = connect_to(gpudp_metrics_port(s));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	idle = 0;
	for (i = 0; i < 5; i++) {
		struct pollfd p = { .fd = fds[i], .events = POLLIN };
		char b;

		if (fds[i] < 0)
			continue;
		/* closed by the server: at once (over the limit) or at the timeout */
		if (poll(&p, 1, 3000) == 1 && recv(fds[i], &b, 1, 0) <= 0)
			idle++;
		close(fds[i]);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	GPUDP_TEST_ASSERT(idle == 5, "%d of 5 idle connections closed", idle);
	GPUDP_TEST_ASSERT(t1.tv_sec - t0.tv_sec <= 3, "closing took %ld s",
			  (long)(t1.tv_sec - t0.tv_sec));
	/* the server may not have taken the closed clients off its count yet
	 * (a loaded machine): a scrape answered within 5 s */
	for (i = 0; i < 10; i++) {
		n = exchange(gpudp_metrics_port(s), GET("/metrics"), strlen(GET("/metrics")), ans,
			     sizeof(ans), 2000);
		if (n > 0)
			break;
		usleep(300000);
	}
	GPUDP_TEST_ASSERT(n > 0 && strncmp(ans, "HTTP/1.1 200", 12) == 0 && calls == 2,
			  "after the idle clients: %s", ans);
	gpudp_metrics_stats_get(s, &st);
	GPUDP_TEST_ASSERT(st.scrapes == 2 && st.not_found == 2 && st.bad_method == 1 &&
			  st.failed == 0, "stats %llu %llu %llu %llu",
			  (unsigned long long)st.scrapes, (unsigned long long)st.not_found,
			  (unsigned long long)st.bad_method, (unsigned long long)st.failed);
	i = gpudp_metrics_port(s);
	gpudp_metrics_stop(s);
	/* stopped: nothing listens */
	fds[0] = connect_to((uint16_t)i);
	GPUDP_TEST_ASSERT(fds[0] < 0, "port %d still listens", i);
	return GPUDP_TEST_PASS;
}

static int
endpoint_refusals(void)
{
	unsigned int calls = 0;
	struct gpudp_metrics_conf c = { .listen = "127.0.0.1:0", .collect = collect,
					.arg = &calls };
	struct gpudp_metrics_server *s, *s2;
	char err[256], spec[64];
	int rc;

	c.listen = "nohost:9";
	GPUDP_TEST_ASSERT(gpudp_metrics_start(&c, &s, err, sizeof(err)) == -EINVAL &&
			  strstr(err, "nohost:9") != NULL, "%s", err);
	c.listen = "127.0.0.1:0";
	c.collect = NULL;
	GPUDP_TEST_ASSERT(gpudp_metrics_start(&c, &s, err, sizeof(err)) == -EINVAL, "no collect");
	c.collect = collect;
	GPUDP_TEST_ASSERT(gpudp_metrics_start(&c, &s, err, sizeof(err)) == 0, "%s", err);
	snprintf(spec, sizeof(spec), "127.0.0.1:%u", gpudp_metrics_port(s));
	c.listen = spec;
	rc = gpudp_metrics_start(&c, &s2, err, sizeof(err));
	GPUDP_TEST_ASSERT(rc == -EADDRINUSE && strstr(err, spec) != NULL,
			  "the same port twice: %d %s", rc, err);
	gpudp_metrics_stop(s);
	gpudp_metrics_stop(NULL);
	return GPUDP_TEST_PASS;
}

static const struct gpudp_test_case cases[] = {
	{ "exact_text", exact_text },
	{ "bad_names_write_nothing", bad_names_write_nothing },
	{ "label_values_round_trip", label_values_round_trip },
	{ "listen_parser", listen_parser },
	{ "endpoint_answers", endpoint_answers },
	{ "endpoint_refusals", endpoint_refusals },
	{ NULL, NULL },
};

int
main(int argc, char **argv)
{
	return gpudp_test_run("metrics", cases, argc, argv);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/flow's NDJSON flow log (gpudp_flow_log.h): the exact lines of known
 * records, times, flags and names, buffer sizes, and the writer: files,
 * appending, standard output, a full disk (/dev/full), a closed pipe, and
 * the counts of records written and dropped.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gpudp_flow_log.h"
#include "gpudp_test.h"

static char tmpdir[64];

static void
ipv4_tcp(struct gpudp_flow_rec *r)
{
	memset(r, 0, sizeof(*r));
	r->af = 4;
	inet_pton(AF_INET, "192.0.2.1", r->src);
	inet_pton(AF_INET, "198.51.100.2", r->dst);
	r->sport = 49152;
	r->dport = 443;
	r->proto = 6;
	r->tos = 0x10;
	r->vlan = 100;
	r->tcp_flags = 0x1b;
	r->end_reason = GPUDP_FLOW_END_EOF;
	r->first_ns = 1764358593000000001u;
	r->last_ns = 1764358594500000000u;
	r->packets = 10;
	r->octets = 1234;
	r->l2_octets = 1374;
}

static const char ipv4_tcp_line[] =
	"{\"af\":4,\"src\":\"192.0.2.1\",\"dst\":\"198.51.100.2\",\"sport\":49152,"
	"\"dport\":443,\"proto\":6,\"vlan\":100,\"tos\":16,\"tcp_flags\":27,"
	"\"tcp_flags_str\":\"FSPA\",\"first\":\"2025-11-28T19:36:33.000000001Z\","
	"\"first_ns\":1764358593000000001,\"last\":\"2025-11-28T19:36:34.500000000Z\","
	"\"last_ns\":1764358594500000000,\"packets\":10,\"octets\":1234,\"l2_octets\":1374,"
	"\"biflow\":false,\"end_reason\":\"end\",\"end_reason_id\":3,"
	"\"community_id\":\"1:vXun9A9cW2Ry2J4BkTjoTIYpvAA=\"}\n";

static int
format_ipv4_tcp_line(void)
{
	struct gpudp_flow_rec r;
	char line[GPUDP_FLOW_LOG_LINE_MAX];
	int n;

	ipv4_tcp(&r);
	n = gpudp_flow_log_format(&r, 0, 0, line, sizeof(line));
	GPUDP_TEST_ASSERT(n == (int)strlen(ipv4_tcp_line) && strcmp(line, ipv4_tcp_line) == 0,
			  "%d:\n%s  want:\n%s", n, line, ipv4_tcp_line);
	return GPUDP_TEST_PASS;
}

static int
format_ipv6_icmp_biflow_line(void)
{
	static const char want[] =
		"{\"af\":6,\"src\":\"2001:db8::1\",\"dst\":\"2001:db8:0:1::53\",\"sport\":0,"
		"\"dport\":32768,\"icmp_type\":128,\"icmp_code\":0,\"proto\":58,\"vlan\":0,"
		"\"tos\":0,\"tcp_flags\":0,\"tcp_flags_str\":\"\","
		"\"first\":\"1970-01-01T00:00:00.000000000Z\",\"first_ns\":0,"
		"\"last\":\"2000-02-29T00:00:00.123456789Z\",\"last_ns\":951782400123456789,"
		"\"packets\":4,\"octets\":416,\"l2_octets\":472,\"biflow\":true,"
		"\"rpackets\":3,\"roctets\":312,\"rl2_octets\":354,\"rtcp_flags\":0,"
		"\"rtcp_flags_str\":\"\",\"end_reason\":\"idle\",\"end_reason_id\":1,"
		"\"community_id\":\"1:00+tRQoipuSVbfpiNP+sBeKuPsM=\"}\n";
	struct gpudp_flow_rec r;
	char line[GPUDP_FLOW_LOG_LINE_MAX];
	int n;

	memset(&r, 0, sizeof(r));
	r.af = 6;
	inet_pton(AF_INET6, "2001:db8::1", r.src);
	inet_pton(AF_INET6, "2001:db8:0:1::53", r.dst);
	r.proto = 58;
	r.dport = 128 << 8;
	r.end_reason = GPUDP_FLOW_END_IDLE;
	r.last_ns = 951782400123456789u;
	r.packets = 4;
	r.octets = 416;
	r.l2_octets = 472;
	r.flags = GPUDP_FLOW_REC_BIFLOW;
	r.rpackets = 3;
	r.roctets = 312;
	r.rl2_octets = 354;
	n = gpudp_flow_log_format(&r, 0, 0, line, sizeof(line));
	GPUDP_TEST_ASSERT(n == (int)strlen(want) && strcmp(line, want) == 0,
			  "%d:\n%s  want:\n%s", n, line, want);
	/* without the Community ID: the same line less that field */
	n = gpudp_flow_log_format(&r, GPUDP_FLOW_LOG_NO_COMMUNITY_ID, 0, line, sizeof(line));
	GPUDP_TEST_ASSERT(n > 0 && strstr(line, "community_id") == NULL &&
			  strcmp(line + n - 19, "\"end_reason_id\":1}\n") == 0 &&
			  strncmp(line, want, (size_t)n - 2) == 0, "%s", line);
	/* a seed changes only the Community ID */
	n = gpudp_flow_log_format(&r, 0, 1, line, sizeof(line));
	GPUDP_TEST_ASSERT(n == (int)strlen(want) && strcmp(line, want) != 0 &&
			  strncmp(line, want, (size_t)n - 32) == 0, "seed 1: %s", line);
	return GPUDP_TEST_PASS;
}

static int
format_times_rfc3339_utc_ns(void)
{
	static const struct {
		uint64_t ns;
		const char *text;
	} v[] = {
		{ 0, "1970-01-01T00:00:00.000000000Z" },
		{ 999999999, "1970-01-01T00:00:00.999999999Z" },
		{ 951782400123456789u, "2000-02-29T00:00:00.123456789Z" },
		{ 4107542399000000000u, "2100-02-28T23:59:59.000000000Z" },
		{ UINT64_MAX, "2554-07-21T23:34:33.709551615Z" },
	};
	struct gpudp_flow_rec r;
	char line[GPUDP_FLOW_LOG_LINE_MAX], want[128];
	size_t i;

	ipv4_tcp(&r);
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		r.first_ns = r.last_ns = v[i].ns;
		GPUDP_TEST_ASSERT(gpudp_flow_log_format(&r, 0, 0, line, sizeof(line)) > 0, "%zu", i);
		snprintf(want, sizeof(want), "\"first\":\"%s\",\"first_ns\":%llu,", v[i].text,
			 (unsigned long long)v[i].ns);
		GPUDP_TEST_ASSERT(strstr(line, want) != NULL, "%s not in %s", want, line);
		snprintf(want, sizeof(want), "\"last\":\"%s\",\"last_ns\":%llu,", v[i].text,
			 (unsigned long long)v[i].ns);
		GPUDP_TEST_ASSERT(strstr(line, want) != NULL, "%s not in %s", want, line);
	}
	return GPUDP_TEST_PASS;
}

static int
format_tcp_flags_and_end_reasons(void)
{
	static const struct {
		uint8_t flags;
		const char *text;
	} f[] = { { 0, "" }, { 0x02, "S" }, { 0x12, "SA" }, { 0x11, "FA" }, { 0x14, "RA" },
		  { 0x18, "PA" }, { 0xc2, "SEC" }, { 0x20, "U" }, { 0xff, "FSRPAUEC" } };
	static const char *const names[] = { "unknown", "idle", "active", "end", "forced",
					     "lack_of_resources", "unknown" };
	char buf[GPUDP_FLOW_TCP_FLAGS_SIZE], line[GPUDP_FLOW_LOG_LINE_MAX], want[64];
	struct gpudp_flow_rec r;
	size_t i;

	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		GPUDP_TEST_ASSERT(strcmp(gpudp_flow_tcp_flags_str(f[i].flags, buf), f[i].text) == 0,
				  "0x%02x: \"%s\", want \"%s\"", f[i].flags, buf, f[i].text);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		GPUDP_TEST_ASSERT(strcmp(gpudp_flow_end_name((uint8_t)i), names[i]) == 0,
				  "%zu: %s", i, gpudp_flow_end_name((uint8_t)i));
	GPUDP_TEST_ASSERT(strcmp(gpudp_flow_end_name(255), "unknown") == 0, "255");
	/* in a line: both directions' flags, the reason's name and number */
	ipv4_tcp(&r);
	r.flags = GPUDP_FLOW_REC_BIFLOW;
	r.tcp_flags = 0x02;
	r.rtcp_flags = 0x12;
	r.end_reason = GPUDP_FLOW_END_RESOURCES;
	GPUDP_TEST_ASSERT(gpudp_flow_log_format(&r, 0, 0, line, sizeof(line)) > 0, "format");
	GPUDP_TEST_ASSERT(strstr(line, "\"tcp_flags\":2,\"tcp_flags_str\":\"S\",") != NULL,
			  "%s", line);
	GPUDP_TEST_ASSERT(strstr(line, "\"rtcp_flags\":18,\"rtcp_flags_str\":\"SA\",") != NULL,
			  "%s", line);
	snprintf(want, sizeof(want), "\"end_reason\":\"lack_of_resources\",\"end_reason_id\":5,");
	GPUDP_TEST_ASSERT(strstr(line, want) != NULL, "%s", line);
	r.end_reason = 0;
	GPUDP_TEST_ASSERT(gpudp_flow_log_format(&r, 0, 0, line, sizeof(line)) > 0 &&
			  strstr(line, "\"end_reason\":\"unknown\",\"end_reason_id\":0,") != NULL,
			  "%s", line);
	return GPUDP_TEST_PASS;
}

/* the longest line: every field at its largest, IPv6, ICMP fields, biflow */
static int
format_largest_record_fits_line_max(void)
{
	struct gpudp_flow_rec r;
	char line[GPUDP_FLOW_LOG_LINE_MAX + 16];
	size_t len;
	int n, m;

	memset(&r, 0xff, sizeof(r));
	r.af = 6;
	r.proto = 58;
	n = gpudp_flow_log_format(&r, 0, 0, line, sizeof(line));
	GPUDP_TEST_ASSERT(n > 0 && n < GPUDP_FLOW_LOG_LINE_MAX, "%d bytes", n);
	GPUDP_TEST_ASSERT(strstr(line, "\"roctets\":18446744073709551615,") != NULL &&
			  strstr(line, "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff") != NULL, "%s", line);
	/* every buffer too short is refused and not written past */
	for (len = 0; len <= (size_t)n; len++) {
		memset(line, '#', sizeof(line));
		m = gpudp_flow_log_format(&r, 0, 0, line, len);
		GPUDP_TEST_ASSERT(m == -ENOSPC, "%zu bytes: %d", len, m);
		GPUDP_TEST_ASSERT(len == 0 ? line[0] == '#' : line[0] == '\0' && line[len] == '#',
				  "%zu bytes: written past", len);
	}
	memset(line, '#', sizeof(line));
	GPUDP_TEST_ASSERT(gpudp_flow_log_format(&r, 0, 0, line, (size_t)n + 1) == n &&
			  line[n] == '\0' && line[n + 1] == '#', "an exact buffer");
	return GPUDP_TEST_PASS;
}

static int
format_refuses_bad_records(void)
{
	struct gpudp_flow_rec r;
	char line[GPUDP_FLOW_LOG_LINE_MAX];
	unsigned int af;

	ipv4_tcp(&r);
	for (af = 0; af < 256; af++) {
		if (af == 4 || af == 6)
			continue;
		r.af = (uint8_t)af;
		line[0] = 'x';
		GPUDP_TEST_ASSERT(gpudp_flow_log_format(&r, 0, 0, line, sizeof(line)) == -EINVAL &&
				  line[0] == '\0', "af %u", af);
	}
	GPUDP_TEST_ASSERT(gpudp_flow_log_format(NULL, 0, 0, line, sizeof(line)) == -EINVAL, "NULL");
	r.af = 4;
	GPUDP_TEST_ASSERT(gpudp_flow_log_format(&r, 0, 0, NULL, 100) == -EINVAL, "NULL buffer");
	return GPUDP_TEST_PASS;
}

/* ---------------------------------------------------------------- writer */

static long
read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	long n = 0;
	ssize_t r;

	if (fd < 0)
		return -1;
	while ((size_t)n < len - 1 && (r = read(fd, buf + n, len - 1 - (size_t)n)) > 0)
		n += r;
	close(fd);
	buf[n] = '\0';
	return n;
}

static size_t
count_lines(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static int
log_writes_lines_and_counts(void)
{
	struct gpudp_flow_log *log;
	struct gpudp_flow_log_stats st;
	struct gpudp_flow_rec r;
	char path[128], text[8192], *p;
	size_t i;

	snprintf(path, sizeof(path), "%s/three.ndjson", tmpdir);
	GPUDP_TEST_ASSERT(gpudp_flow_log_open(path, 0, 0, &log) == 0, "open %s", path);
	ipv4_tcp(&r);
	for (i = 0; i < 3; i++)
		GPUDP_TEST_ASSERT(gpudp_flow_log_write(log, &r) == 0, "write %zu", i);
	gpudp_flow_log_stats_get(log, &st);
	GPUDP_TEST_ASSERT(st.records == 0 && st.pending == 3 && st.bytes == 0 && st.error == 0,
			  "before the flush: %llu written, %llu pending",
			  (unsigned long long)st.records, (unsigned long long)st.pending);
	GPUDP_TEST_ASSERT(read_file(path, text, sizeof(text)) == 0, "written before the flush");
	GPUDP_TEST_ASSERT(gpudp_flow_log_flush(log) == 0, "flush");
	gpudp_flow_log_stats_get(log, &st);
	GPUDP_TEST_ASSERT(st.records == 3 && st.pending == 0 && st.dropped == 0 &&
			  st.bytes == 3 * strlen(ipv4_tcp_line), "after the flush: %llu, %llu bytes",
			  (unsigned long long)st.records, (unsigned long long)st.bytes);
	GPUDP_TEST_ASSERT(gpudp_flow_log_write(log, &r) == 0, "write");
	GPUDP_TEST_ASSERT(gpudp_flow_log_close(log) == 0, "close");
	GPUDP_TEST_ASSERT(read_file(path, text, sizeof(text)) == (long)(4 * strlen(ipv4_tcp_line)),
			  "%zu bytes", strlen(text));
	for (p = text, i = 0; i < 4; i++, p += strlen(ipv4_tcp_line))
		GPUDP_TEST_ASSERT(strncmp(p, ipv4_tcp_line, strlen(ipv4_tcp_line)) == 0,
				  "line %zu", i);
	/* opened again without GPUDP_FLOW_LOG_APPEND: truncated */
	GPUDP_TEST_ASSERT(gpudp_flow_log_open(path, 0, 0, &log) == 0, "open again");
	GPUDP_TEST_ASSERT(gpudp_flow_log_close(log) == 0, "close");
	GPUDP_TEST_ASSERT(read_file(path, text, sizeof(text)) == 0, "not truncated");
	unlink(path);
	return GPUDP_TEST_PASS;
}

static int
log_append_keeps_earlier_lines(void)
{
	struct gpudp_flow_log *log;
	struct gpudp_flow_rec r;
	char path[128], text[8192];
	int k;

	snprintf(path, sizeof(path), "%s/append.ndjson", tmpdir);
	ipv4_tcp(&r);
	for (k = 0; k < 3; k++) {
		GPUDP_TEST_ASSERT(gpudp_flow_log_open(path, k ? GPUDP_FLOW_LOG_APPEND : 0, 0,
						      &log) == 0, "open %d", k);
		r.packets = (uint64_t)k;
		GPUDP_TEST_ASSERT(gpudp_flow_log_write(log, &r) == 0, "write");
		GPUDP_TEST_ASSERT(gpudp_flow_log_close(log) == 0, "close");
	}
	GPUDP_TEST_ASSERT(read_file(path, text, sizeof(text)) > 0 && count_lines(text) == 3,
			  "%zu lines", count_lines(text));
	GPUDP_TEST_ASSERT(strstr(text, "\"packets\":0,") < strstr(text, "\"packets\":1,") &&
			  strstr(text, "\"packets\":1,") < strstr(text, "\"packets\":2,") &&
			  strstr(text, "\"packets\":0,") != NULL, "order: %s", text);
	unlink(path);
	return GPUDP_TEST_PASS;
}

/* more than the buffer holds: it writes itself out, whole lines counted */
static int
log_full_buffer_is_written_without_flush(void)
{
	struct gpudp_flow_log *log;
	struct gpudp_flow_log_stats st;
	struct gpudp_flow_rec r;
	char path[128];
	struct stat sb;
	size_t i, n = 1000;

	snprintf(path, sizeof(path), "%s/many.ndjson", tmpdir);
	GPUDP_TEST_ASSERT(gpudp_flow_log_open(path, GPUDP_FLOW_LOG_NO_COMMUNITY_ID, 0, &log) == 0,
			  "open");
	ipv4_tcp(&r);
	for (i = 0; i < n; i++) {
		r.packets = i;
		GPUDP_TEST_ASSERT(gpudp_flow_log_write(log, &r) == 0, "write %zu", i);
	}
	gpudp_flow_log_stats_get(log, &st);
	GPUDP_TEST_ASSERT(st.records > 0 && st.records + st.pending == n && st.dropped == 0,
			  "%llu written, %llu pending", (unsigned long long)st.records,
			  (unsigned long long)st.pending);
	GPUDP_TEST_ASSERT(stat(path, &sb) == 0 && (uint64_t)sb.st_size == st.bytes,
			  "file %lld bytes, %llu counted", (long long)sb.st_size,
			  (unsigned long long)st.bytes);
	GPUDP_TEST_ASSERT(gpudp_flow_log_flush(log) == 0, "flush");
	gpudp_flow_log_stats_get(log, &st);
	GPUDP_TEST_ASSERT(st.records == n && st.pending == 0, "%llu",
			  (unsigned long long)st.records);
	GPUDP_TEST_ASSERT(gpudp_flow_log_close(log) == 0, "close");
	GPUDP_TEST_ASSERT(stat(path, &sb) == 0 && (uint64_t)sb.st_size == st.bytes, "size");
	unlink(path);
	return GPUDP_TEST_PASS;
}

/* /dev/full: every write fails with ENOSPC; records dropped and counted */
static int
log_full_disk_drops_and_counts(void)
{
	struct gpudp_flow_log *log;
	struct gpudp_flow_log_stats st;
	struct gpudp_flow_rec r;
	size_t i;

	GPUDP_TEST_SKIP_IF(access("/dev/full", W_OK) != 0, "no writable /dev/full");
	GPUDP_TEST_ASSERT(gpudp_flow_log_open("/dev/full", 0, 0, &log) == 0, "open /dev/full");
	ipv4_tcp(&r);
	for (i = 0; i < 5; i++)
		GPUDP_TEST_ASSERT(gpudp_flow_log_write(log, &r) == 0, "buffered write %zu", i);
	GPUDP_TEST_ASSERT(gpudp_flow_log_flush(log) == -ENOSPC, "flush did not fail");
	gpudp_flow_log_stats_get(log, &st);
	GPUDP_TEST_ASSERT(st.records == 0 && st.pending == 0 && st.dropped == 5 &&
			  st.bytes == 0 && st.error == -ENOSPC, "%llu written, %llu dropped, %d",
			  (unsigned long long)st.records, (unsigned long long)st.dropped, st.error);
	/* after the error, every record is dropped and counted, the error returned */
	for (i = 0; i < 7; i++)
		GPUDP_TEST_ASSERT(gpudp_flow_log_write(log, &r) == -ENOSPC, "write after the error");
	GPUDP_TEST_ASSERT(gpudp_flow_log_write(log, NULL) == -ENOSPC, "NULL after the error");
	GPUDP_TEST_ASSERT(gpudp_flow_log_flush(log) == -ENOSPC, "flush after the error");
	gpudp_flow_log_stats_get(log, &st);
	GPUDP_TEST_ASSERT(st.dropped == 13 && st.records == 0, "%llu dropped",
			  (unsigned long long)st.dropped);
	GPUDP_TEST_ASSERT(gpudp_flow_log_close(log) == -ENOSPC, "close forgot the error");

	/* the buffer filling up on a full disk: the write that finds it full fails */
	GPUDP_TEST_ASSERT(gpudp_flow_log_open("/dev/full", 0, 0, &log) == 0, "open again");
	for (i = 0; gpudp_flow_log_write(log, &r) == 0; i++)
		GPUDP_TEST_ASSERT(i < 100000, "the buffer never filled");
	gpudp_flow_log_stats_get(log, &st);
	GPUDP_TEST_ASSERT(i > 10 && st.dropped == i + 1 && st.records == 0 &&
			  st.error == -ENOSPC, "%zu buffered, %llu dropped", i,
			  (unsigned long long)st.dropped);
	GPUDP_TEST_ASSERT(gpudp_flow_log_close(log) == -ENOSPC, "close");
	return GPUDP_TEST_PASS;
}

/* a pipe without a reader: -EPIPE, and SIGPIPE neither delivered nor left pending */
static int
log_closed_pipe_gives_epipe_without_sigpipe(void)
{
	struct gpudp_flow_log *log;
	struct gpudp_flow_log_stats st;
	struct gpudp_flow_rec r;
	sigset_t pending, mask;
	char path[64];
	int fds[2], rc;

	GPUDP_TEST_ASSERT(pipe(fds) == 0, "pipe");
	close(fds[0]);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fds[1]);
	rc = gpudp_flow_log_open(path, 0, 0, &log);
	close(fds[1]);
	GPUDP_TEST_SKIP_IF(rc == -ENOENT, "no /proc");
	GPUDP_TEST_ASSERT(rc == 0, "open %s: %d", path, rc);
	ipv4_tcp(&r);
	GPUDP_TEST_ASSERT(gpudp_flow_log_write(log, &r) == 0, "write");
	/* SIGPIPE's default action would end this process here */
	GPUDP_TEST_ASSERT(gpudp_flow_log_flush(log) == -EPIPE, "flush");
	gpudp_flow_log_stats_get(log, &st);
	GPUDP_TEST_ASSERT(st.dropped == 1 && st.error == -EPIPE, "%llu dropped",
			  (unsigned long long)st.dropped);
	GPUDP_TEST_ASSERT(sigpending(&pending) == 0 && !sigismember(&pending, SIGPIPE),
			  "SIGPIPE left pending");
	GPUDP_TEST_ASSERT(sigprocmask(SIG_BLOCK, NULL, &mask) == 0 &&
			  !sigismember(&mask, SIGPIPE), "SIGPIPE left blocked");
	GPUDP_TEST_ASSERT(gpudp_flow_log_close(log) == -EPIPE, "close");
	return GPUDP_TEST_PASS;
}

/* "-": standard output, left open by gpudp_flow_log_close() */
static int
log_dash_is_stdout_left_open(void)
{
	struct gpudp_flow_log *log;
	struct gpudp_flow_rec r;
	char text[8192];
	int fds[2], status;
	long n = 0;
	ssize_t k;
	pid_t pid;

	GPUDP_TEST_ASSERT(pipe(fds) == 0, "pipe");
	fflush(stdout);
	pid = fork();
	GPUDP_TEST_ASSERT(pid >= 0, "fork");
	if (pid == 0) {
		int rc;

		dup2(fds[1], STDOUT_FILENO);
		close(fds[0]);
		close(fds[1]);
		ipv4_tcp(&r);
		rc = gpudp_flow_log_open("-", 0, 0, &log) != 0 ||
		     gpudp_flow_log_write(log, &r) != 0 || gpudp_flow_log_write(log, &r) != 0 ||
		     gpudp_flow_log_close(log) != 0;
		/* still open after the close */
		if (write(STDOUT_FILENO, "end\n", 4) != 4)
			rc = 2;
		_exit(rc);
	}
	close(fds[1]);
	while ((size_t)n < sizeof(text) - 1 &&
	       (k = read(fds[0], text + n, sizeof(text) - 1 - (size_t)n)) > 0)
		n += k;
	text[n] = '\0';
	close(fds[0]);
	GPUDP_TEST_ASSERT(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
			  WEXITSTATUS(status) == 0, "child status %d", status);
	GPUDP_TEST_ASSERT((size_t)n == 2 * strlen(ipv4_tcp_line) + 4 &&
			  strncmp(text, ipv4_tcp_line, strlen(ipv4_tcp_line)) == 0 &&
			  strcmp(text + 2 * strlen(ipv4_tcp_line), "end\n") == 0, "got:\n%s", text);
	return GPUDP_TEST_PASS;
}

static int
log_bad_record_dropped_writer_goes_on(void)
{
	struct gpudp_flow_log *log;
	struct gpudp_flow_log_stats st;
	struct gpudp_flow_rec r, bad;
	char path[128], text[8192];

	snprintf(path, sizeof(path), "%s/bad.ndjson", tmpdir);
	GPUDP_TEST_ASSERT(gpudp_flow_log_open(path, 0, 0, &log) == 0, "open");
	ipv4_tcp(&r);
	bad = r;
	bad.af = 0;
	GPUDP_TEST_ASSERT(gpudp_flow_log_write(log, &bad) == -EINVAL, "af 0");
	GPUDP_TEST_ASSERT(gpudp_flow_log_write(log, NULL) == -EINVAL, "NULL");
	GPUDP_TEST_ASSERT(gpudp_flow_log_write(log, &r) == 0, "a good record after bad ones");
	GPUDP_TEST_ASSERT(gpudp_flow_log_flush(log) == 0, "flush");
	gpudp_flow_log_stats_get(log, &st);
	GPUDP_TEST_ASSERT(st.dropped == 2 && st.records == 1 && st.error == 0,
			  "%llu dropped, %llu written, %d", (unsigned long long)st.dropped,
			  (unsigned long long)st.records, st.error);
	GPUDP_TEST_ASSERT(gpudp_flow_log_close(log) == 0, "close");
	GPUDP_TEST_ASSERT(read_file(path, text, sizeof(text)) > 0 &&
			  strcmp(text, ipv4_tcp_line) == 0, "%s", text);
	unlink(path);
	return GPUDP_TEST_PASS;
}

static int
log_open_refusals(void)
{
	struct gpudp_flow_log *log = (struct gpudp_flow_log *)&log;
	struct gpudp_flow_log_stats st;
	char path[128];

	snprintf(path, sizeof(path), "%s/no/such/dir/x.ndjson", tmpdir);
	GPUDP_TEST_ASSERT(gpudp_flow_log_open(path, 0, 0, &log) == -ENOENT && log == NULL,
			  "missing directory");
	GPUDP_TEST_ASSERT(gpudp_flow_log_open(tmpdir, 0, 0, &log) == -EISDIR, "a directory");
	GPUDP_TEST_ASSERT(gpudp_flow_log_open(NULL, 0, 0, &log) == -EINVAL, "NULL path");
	GPUDP_TEST_ASSERT(gpudp_flow_log_open("", 0, 0, &log) == -EINVAL, "empty path");
	GPUDP_TEST_ASSERT(gpudp_flow_log_open("-", 0, 0, NULL) == -EINVAL, "NULL writer");
	GPUDP_TEST_ASSERT(gpudp_flow_log_open("-", 0x100, 0, &log) == -EINVAL, "unknown flag");
	GPUDP_TEST_ASSERT(gpudp_flow_log_write(NULL, NULL) == -EINVAL, "write NULL");
	GPUDP_TEST_ASSERT(gpudp_flow_log_flush(NULL) == -EINVAL, "flush NULL");
	GPUDP_TEST_ASSERT(gpudp_flow_log_close(NULL) == 0, "close NULL");
	memset(&st, 0xff, sizeof(st));
	gpudp_flow_log_stats_get(NULL, &st);
	GPUDP_TEST_ASSERT(st.records == 0 && st.dropped == 0 && st.error == 0, "stats of NULL");
	return GPUDP_TEST_PASS;
}

int
main(int argc, char **argv)
{
	static const struct gpudp_test_case cases[] = {
		{ "format_ipv4_tcp_line", format_ipv4_tcp_line },
		{ "format_ipv6_icmp_biflow_line", format_ipv6_icmp_biflow_line },
		{ "format_times_rfc3339_utc_ns", format_times_rfc3339_utc_ns },
		{ "format_tcp_flags_and_end_reasons", format_tcp_flags_and_end_reasons },
		{ "format_largest_record_fits_line_max", format_largest_record_fits_line_max },
		{ "format_refuses_bad_records", format_refuses_bad_records },
		{ "log_writes_lines_and_counts", log_writes_lines_and_counts },
		{ "log_append_keeps_earlier_lines", log_append_keeps_earlier_lines },
		{ "log_full_buffer_is_written_without_flush",
		  log_full_buffer_is_written_without_flush },
		{ "log_full_disk_drops_and_counts", log_full_disk_drops_and_counts },
		{ "log_closed_pipe_gives_epipe_without_sigpipe",
		  log_closed_pipe_gives_epipe_without_sigpipe },
		{ "log_dash_is_stdout_left_open", log_dash_is_stdout_left_open },
		{ "log_bad_record_dropped_writer_goes_on", log_bad_record_dropped_writer_goes_on },
		{ "log_open_refusals", log_open_refusals },
		{ NULL, NULL },
	};
	const char *t = getenv("TMPDIR");
	int rc;

	snprintf(tmpdir, sizeof(tmpdir), "%s/flowlogXXXXXX", t != NULL && *t ? t : "/tmp");
	if (mkdtemp(tmpdir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	rc = gpudp_test_run("flow_log", cases, argc, argv);
	rmdir(tmpdir);
	return rc;
}

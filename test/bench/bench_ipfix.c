/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Benchmark: the IPFIX exporter (lib/flow, gpudp_ipfix.h) on one core,
 * records per second:
 *   encode  to a sink that takes each message and does nothing (the
 *           encoder and message building alone)
 *   udp     sent to a UDP socket on the loopback (nobody reads it: the
 *           kernel drops at the receiver, the sender's cost is the same)
 *   file    written to a file beside the JSON (removed afterwards)
 * Records: a fixed mix, 60% IPv4 with ports, 25% IPv6, 15% ICMP, a third
 * of them biflows; exported in batches of 64 with the default settings
 * (1500-byte MTU). Each figure is the median of 5 runs of 1 million
 * records. The thread is pinned to the core it starts on. JSON goes to
 * the file named by argv[1] (default: stdout).
 */
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gpudp_ipfix.h>

#include "gpudp_test_time.h"

#define NREC (1u << 20)
#define RUNS 5
#define BATCH 64

static void
make_recs(struct gpudp_flow_rec *r, unsigned int n)
{
	uint64_t s = 0x9e3779b97f4a7c15ull;
	unsigned int i;

	for (i = 0; i < n; i++) {
		unsigned int k = i % 20;

		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		memset(&r[i], 0, sizeof(r[i]));
		r[i].af = k < 12 || k >= 17 ? 4 : 6;
		r[i].proto = k >= 17 ? 1 : (s & 1) ? 6 : 17;
		if (r[i].af == 6 && (s & 6) == 0)
			r[i].proto = 58;
		memcpy(r[i].src, &s, 8);
		memcpy(r[i].dst + 4, &s, 8);
		if (r[i].af == 4) {
			memset(r[i].src + 4, 0, 12);
			memset(r[i].dst + 4, 0, 12);
			memcpy(r[i].dst, &i, 4);
		}
		r[i].sport = (uint16_t)s;
		r[i].dport = (uint16_t)(s >> 16);
		r[i].tcp_flags = r[i].proto == 6 ? 0x1b : 0;
		r[i].end_reason = 1 + (uint8_t)(i % 5);
		r[i].first_ns = 1767225600000000000ull + (uint64_t)i * 1000;
		r[i].last_ns = r[i].first_ns + (s & 0xffffffff);
		r[i].packets = 1 + (s >> 40);
		r[i].octets = r[i].packets * 700;
		r[i].l2_octets = r[i].octets + r[i].packets * 14;
		if (i % 3 == 0) {
			r[i].flags = GPUDP_FLOW_REC_BIFLOW;
			r[i].rpackets = r[i].packets / 2;
			r[i].roctets = r[i].rpackets * 60;
			r[i].rl2_octets = r[i].roctets + r[i].rpackets * 14;
		}
	}
}

static int
null_sink(void *arg, const uint8_t *msg, size_t len)
{
	(void)msg;
	*(uint64_t *)arg += len;
	return 0;
}

struct result {
	double rec_s;       /* median records per second */
	double msg_s;       /* messages per second at that run */
	double bytes_per_rec;
	uint64_t dropped, errors;
};

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* what: "encode", or a target for gpudp_ipfix_target_parse() */
static int
run(const char *what, const struct gpudp_flow_rec *r, struct result *res)
{
	double rates[RUNS], msgs[RUNS];
	int k;

	memset(res, 0, sizeof(*res));
	for (k = 0; k < RUNS; k++) {
		struct gpudp_ipfix_stats st;
		struct gpudp_ipfix_target t;
		struct gpudp_ipfix *x;
		uint64_t sunk = 0, t0, dt;
		char err[256];
		unsigned int i;

		if (gpudp_ipfix_create(NULL, &x, err, sizeof(err)) != 0) {
			fprintf(stderr, "bench_ipfix: %s\n", err);
			return -1;
		}
		if (strcmp(what, "encode") == 0) {
			gpudp_ipfix_add_sink(x, null_sink, &sunk, 0, "sink");
		} else if (gpudp_ipfix_target_parse(what, &t, err, sizeof(err)) != 0 ||
			   gpudp_ipfix_add_target(x, &t, err, sizeof(err)) < 0) {
			fprintf(stderr, "bench_ipfix: %s\n", err);
			gpudp_ipfix_close(x, 0);
			return -1;
		}
		t0 = gpudp_test_now_ns();
		for (i = 0; i < NREC; i += BATCH)
			gpudp_ipfix_export(x, r + i, BATCH);
		gpudp_ipfix_flush(x);
		dt = gpudp_test_now_ns() - t0;
		gpudp_ipfix_stats_get(x, 0, &st);
		gpudp_ipfix_close(x, 0);
		rates[k] = (double)NREC * 1e9 / (double)dt;
		msgs[k] = (double)st.messages * 1e9 / (double)dt;
		res->bytes_per_rec = (double)st.bytes / (double)NREC;
		res->dropped += st.dropped;
		res->errors += st.errors;
	}
	qsort(rates, RUNS, sizeof(rates[0]), cmp_double);
	qsort(msgs, RUNS, sizeof(msgs[0]), cmp_double);
	res->rec_s = rates[RUNS / 2];
	res->msg_s = msgs[RUNS / 2];
	return 0;
}

int
main(int argc, char **argv)
{
	struct gpudp_flow_rec *r = calloc(NREC, sizeof(*r));
	struct result enc, udp, file;
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sa);
	char udp_spec[64], file_spec[4200], cpu_name[128] = "";
	FILE *f = stdout, *ci;
	int fd, cpu;
	cpu_set_t set;

	if (r == NULL)
		return 1;
	cpu = sched_getcpu();
	if (cpu >= 0) {
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		sched_setaffinity(0, sizeof(set), &set);
	}
	ci = fopen("/proc/cpuinfo", "r");
	if (ci != NULL) {
		char line[256];

		while (fgets(line, sizeof(line), ci) != NULL) {
			char *c = strchr(line, ':');

			if (strncmp(line, "model name", 10) == 0 && c != NULL) {
				snprintf(cpu_name, sizeof(cpu_name), "%s", c + 2);
				cpu_name[strcspn(cpu_name, "\n\"\\")] = '\0';
				break;
			}
		}
		fclose(ci);
	}
	make_recs(r, NREC);

	/* a UDP socket nobody reads */
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
	    getsockname(fd, (struct sockaddr *)&sa, &sl) != 0) {
		fprintf(stderr, "bench_ipfix: UDP socket: %s\n", strerror(errno));
		return 1;
	}
	snprintf(udp_spec, sizeof(udp_spec), "udp:127.0.0.1:%u", ntohs(sa.sin_port));
	if (argc > 1) {
		const char *slash = strrchr(argv[1], '/');

		if (slash != NULL) {  /* the JSON's folder (build/bench/) may not exist yet */
			char dir[4096];

			snprintf(dir, sizeof(dir), "%.*s", (int)(slash - argv[1]), argv[1]);
			mkdir(dir, 0755);
		}
		snprintf(file_spec, sizeof(file_spec), "file:%.*sipfix-bench.%d.ipfix",
			 slash ? (int)(slash - argv[1] + 1) : 0, argv[1], (int)getpid());
	} else {
		snprintf(file_spec, sizeof(file_spec), "file:ipfix-bench.%d.ipfix", (int)getpid());
	}
	if (run("encode", r, &enc) != 0 || run(udp_spec, r, &udp) != 0 ||
	    run(file_spec, r, &file) != 0)
		return 1;
	unlink(file_spec + 5);
	close(fd);

	if (argc > 1) {
		f = fopen(argv[1], "w");
		if (f == NULL) {
			fprintf(stderr, "bench_ipfix: %s: %s\n", argv[1], strerror(errno));
			return 1;
		}
	}
	fprintf(f, "{\n  \"benchmark\": \"ipfix_export\",\n");
	fprintf(f, "  \"cpu\": \"%s\",\n  \"core\": %d,\n", cpu_name, cpu);
	fprintf(f, "  \"records\": %u,\n  \"runs\": %d,\n  \"batch\": %d,\n", NREC, RUNS, BATCH);
	fprintf(f, "  \"bytes_per_record\": %.1f,\n", udp.bytes_per_rec);
	fprintf(f, "  \"records_per_s\": { \"encode\": %.0f, \"udp\": %.0f, \"file\": %.0f },\n",
		enc.rec_s, udp.rec_s, file.rec_s);
	fprintf(f, "  \"messages_per_s\": { \"encode\": %.0f, \"udp\": %.0f, \"file\": %.0f },\n",
		enc.msg_s, udp.msg_s, file.msg_s);
	fprintf(f, "  \"dropped\": { \"udp\": %" PRIu64 ", \"file\": %" PRIu64 " },\n",
		udp.dropped, file.dropped);
	fprintf(f, "  \"errors\": { \"udp\": %" PRIu64 ", \"file\": %" PRIu64 " }\n}\n",
		udp.errors, file.errors);
	if (f != stdout)
		fclose(f);
	printf("ipfix_export: %.2f M records/s encoded, %.2f M/s to UDP, %.2f M/s to a file "
	       "(%.1f bytes a record, core %d)\n", enc.rec_s / 1e6, udp.rec_s / 1e6,
	       file.rec_s / 1e6, udp.bytes_per_rec, cpu);
	free(r);
	return 0;
}

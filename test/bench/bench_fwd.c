/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpudp-fwd against dpdk-testpmd io-forward: same DPDK build, same vdevs
 * (two net_null ports), same number of forwarding lcores. For each mode
 * and burst size the ratio of gpudp-fwd's transmitted packet rate to
 * testpmd's, measured right before it (pairs: the host's speed drifts);
 * modes on GPU memory also against testpmd --mp-alloc=xbuf (the same
 * pinned-external-buffer mbufs, buffers in host memory).
 * Writes JSON (doc/benchmarks.md, "fwd_vs_testpmd").
 *
 * usage: bench_fwd --fwd=PATH --testpmd=PATH --json=FILE [--seconds=S]
 *        [--huge] [--modes=none,cpu,...] [--bursts=32,256,...] [--queues=N]
 *        [--fwd-arg=ARG]... [--repeat=R] [--pipeline-lcores=L]
 * --repeat=R (1..50, default 1) measures each mode and burst R times, each
 * time testpmd (native, and xbuf for GPU memory) right before gpudp-fwd;
 * "summary" has the median of the R ratios (the host's speed drifts by tens
 * of percent between runs: a single pair says little).
 * --pipeline-lcores=L (1..2, default 1): gpudp-fwd runs each pipeline on L
 * lcores (2: rx and tx apart) and gets L times the forwarding lcores;
 * testpmd keeps its own.
 * --fwd-arg=ARG (up to 8) is passed to every gpudp-fwd run after its own
 * options, e.g. --fwd-arg=--persistent-blocks --fwd-arg=8.
 * --queues=N (1..8, default 1): N queues per port, 2N forwarding lcores for
 * both programs (testpmd --nb-cores=2N --rxq=N --txq=N; gpudp-fwd --queues N,
 * one lcore per pipeline), for lcore scaling runs.
 * A program path that does not exist is looked for beside this program
 * and in $GPUDP_BENCH_BIN (the GPU machine's carried bin/ folder); if
 * either program is missing the benchmark is skipped (exit 77).
 * No DPDK here: both programs run as child processes.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char fwd[4096], testpmd[4096], self_dir[4096];
static double seconds = 3;
static int huge;
static char *lflag = "-l", *lval, *fflag = "-l", *fval;
static int queues = 1;
#define FWD_ARGS_MAX 8
static char *fwd_args[FWD_ARGS_MAX];
static int n_fwd_args;
static int repeat = 1, pl_lcores = 1;

static int
find_prog(const char *given, char *out, size_t len)
{
	char g[4096], b[4096];
	const char *env = getenv("GPUDP_BENCH_BIN");

	snprintf(g, sizeof(g), "%s", given);
	snprintf(b, sizeof(b), "%s", given);
	if (access(g, X_OK) == 0)
		return snprintf(out, len, "%s", g) < (int)len ? 0 : -1;
	if (snprintf(out, len, "%s/%s", self_dir, basename(b)) < (int)len &&
	    access(out, X_OK) == 0)
		return 0;
	if (env != NULL && snprintf(out, len, "%s/%s", env, basename(b)) < (int)len &&
	    access(out, X_OK) == 0)
		return 0;
	fprintf(stderr, "bench_fwd: %s not found (nor beside this program, nor in "
		"$GPUDP_BENCH_BIN)\n", g);
	return -1;
}

/* run argv with stdout+stderr into out_path; SIGINT after kill_after s (0: never) */
static int
run(char *const *argv, const char *out_path, double kill_after)
{
	pid_t pid = fork();
	int st = 0;

	if (pid < 0)
		return -1;
	if (pid == 0) {
		int fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int nul = open("/dev/null", O_RDONLY);

		dup2(nul, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		execv(argv[0], argv);
		_exit(127);
	}
	if (kill_after > 0) {
		struct timespec ts = { (time_t)kill_after,
				       (long)((kill_after - (time_t)kill_after) * 1e9) };

		nanosleep(&ts, NULL);
		kill(pid, SIGINT);
	}
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static char *
slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *b;
	long n;

	if (f == NULL)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	b = calloc(1, (size_t)n + 1);
	if (b != NULL && fread(b, 1, (size_t)n, f) != (size_t)n)
		b[0] = '\0';
	fclose(f);
	return b;
}

/* testpmd's periodic port stats: sum "Tx-pps:" over the last report */
static double
testpmd_mpps(const char *log)
{
	const char *p = log, *last = NULL, *q;
	double sum = 0;

	while ((q = strstr(p, "NIC statistics for port")) != NULL) {
		last = q;
		p = q + 1;
	}
	/* the last report block may be cut: use the one before it if so */
	if (last == NULL)
		return 0;
	p = log;
	{
		const char *blocks[64];
		int n = 0, i, ports = 0;

		while ((q = strstr(p, "NIC statistics for port")) != NULL && n < 64) {
			blocks[n++] = q;
			p = q + 1;
		}
		/* two ports per report; take the last complete pair */
		for (i = n - 2; i >= 0 && ports < 2; i--) {
			const char *t = strstr(blocks[i], "Tx-pps:");

			if (t != NULL) {
				sum += atof(t + 7);
				ports++;
			}
		}
	}
	return sum / 1e6;
}

/*
 * One testpmd measure (SIGINT after seconds + 2), its log in @p log. A run
 * that printed no complete report (a slow start on a fresh machine: seen
 * once as the first run of a call) is made again, once.
 */
static double
testpmd_run(char *const *argv, const char *log)
{
	double mpps = 0;
	char *tl;
	int i;

	for (i = 0; i < 2 && mpps <= 0; i++) {
		run(argv, log, seconds + 2);
		tl = slurp(log);
		mpps = tl != NULL ? testpmd_mpps(tl) : 0;
		free(tl);
	}
	return mpps;
}

/*
 * Option @p a as @p name (with its '=') and an integer in lo..hi into *out.
 * @return 1 (taken), 0 (another option), -1 (a bad value, printed)
 */
static int
int_arg(const char *a, const char *name, int lo, int hi, int *out)
{
	size_t l = strlen(name);

	if (strncmp(a, name, l) != 0)
		return 0;
	*out = atoi(a + l);
	if (*out < lo || *out > hi) {
		fprintf(stderr, "bench_fwd: %.*s: '%s' (expected %d..%d)\n", (int)l - 1, name,
			a + l, lo, hi);
		return -1;
	}
	return 1;
}

/* the median of the @p n values of @p v, sorted (0 for none) */
static double
median(const double *v, int n)
{
	return n == 0 ? 0 : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static double
json_num(const char *j, const char *key)
{
	char k[128];
	const char *p;

	snprintf(k, sizeof(k), "\"%s\":", key);
	p = strstr(j, k);
	return p != NULL ? atof(p + strlen(k)) : -1;
}

static const char *
json_sub(const char *j, const char *key)
{
	char k[128];
	const char *p;

	snprintf(k, sizeof(k), "\"%s\":", key);
	p = strstr(j, k);
	return p != NULL ? p : "";
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int
main(int argc, char **argv)
{
	char json[4096] = "", modes[256] = "none,cpu,launch,persistent,graph,staged";
	char bursts[128] = "32,256,1024", tmp[4096], secs[32], *m, *save1;
	char self[4096], lbuf[64], nq[16], mem_mb[16], tp_cores[32], tp_rxq[32], tp_txq[32];
	char tp_mbufs[48], fbuf[64], npl[8];
	static char runs[262144], sums[16384];
	size_t sused = 0;
	int r;
	double tp, txb, tps[256];
	size_t used = 0;
	FILE *out;
	int ntp = 0, n;
	long ncpu;
	int i, nfl, first = 1, rc;

	snprintf(self, sizeof(self), "%s", argv[0]);
	snprintf(self_dir, sizeof(self_dir), "%s", dirname(self));
	for (i = 1; i < argc; i++) {
		if (strncmp(argv[i], "--fwd=", 6) == 0)
			snprintf(fwd, sizeof(fwd), "%s", argv[i] + 6);
		else if (strncmp(argv[i], "--testpmd=", 10) == 0)
			snprintf(testpmd, sizeof(testpmd), "%s", argv[i] + 10);
		else if (strncmp(argv[i], "--json=", 7) == 0)
			snprintf(json, sizeof(json), "%s", argv[i] + 7);
		else if (strncmp(argv[i], "--seconds=", 10) == 0)
			seconds = atof(argv[i] + 10);
		else if (strncmp(argv[i], "--modes=", 8) == 0)
			snprintf(modes, sizeof(modes), "%s", argv[i] + 8);
		else if (strncmp(argv[i], "--bursts=", 9) == 0)
			snprintf(bursts, sizeof(bursts), "%s", argv[i] + 9);
		else if (strcmp(argv[i], "--huge") == 0)
			huge = 1;
		else if ((rc = int_arg(argv[i], "--queues=", 1, 8, &queues)) != 0 ||
			 (rc = int_arg(argv[i], "--repeat=", 1, 50, &repeat)) != 0 ||
			 (rc = int_arg(argv[i], "--pipeline-lcores=", 1, 2, &pl_lcores)) != 0) {
			if (rc < 0)
				return 2;
		}
		else if (strncmp(argv[i], "--fwd-arg=", 10) == 0) {
			if (n_fwd_args == FWD_ARGS_MAX) {
				fprintf(stderr, "bench_fwd: --fwd-arg: more than %d\n",
					FWD_ARGS_MAX);
				return 2;
			}
			fwd_args[n_fwd_args++] = argv[i] + 10;
		}
		else if (i == argc - 1 && json[0] == '\0')
			snprintf(json, sizeof(json), "%s", argv[i]);  /* pack.py @out/ path */
		else {
			fprintf(stderr, "bench_fwd: unknown argument '%s'\n", argv[i]);
			return 2;
		}
	}
	if (json[0] == '\0') {
		fprintf(stderr, "bench_fwd: no JSON output file given\n");
		return 2;
	}
	/* a program not carried (e.g. testpmd left out of the GPU carry): skip */
	if (find_prog(fwd, fwd, sizeof(fwd)) != 0 ||
	    find_prog(testpmd, testpmd, sizeof(testpmd)) != 0)
		return 77;
	snprintf(secs, sizeof(secs), "%g", seconds);
	nfl = 2 * queues;
	snprintf(nq, sizeof(nq), "%d", queues);
	snprintf(mem_mb, sizeof(mem_mb), "%d", 2048 * queues);
	snprintf(tp_cores, sizeof(tp_cores), "--nb-cores=%d", nfl);
	snprintf(tp_rxq, sizeof(tp_rxq), "--rxq=%d", queues);
	snprintf(tp_txq, sizeof(tp_txq), "--txq=%d", queues);
	snprintf(tp_mbufs, sizeof(tp_mbufs), "--total-num-mbufs=%d", 32768 * queues);
	/* main + 2N forwarding lcores, each on its own CPU where there are enough */
	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	if (ncpu < nfl + 1) {
		lflag = "--lcores";
		snprintf(lbuf, sizeof(lbuf), "(0-%d)@(0-%ld)", nfl, ncpu - 1);
	} else {
		snprintf(lbuf, sizeof(lbuf), "0-%d", nfl);
	}
	lval = lbuf;
	/* gpudp-fwd: main + 2N x pipeline-lcores */
	snprintf(npl, sizeof(npl), "%d", pl_lcores);
	if (ncpu < nfl * pl_lcores + 1) {
		fflag = "--lcores";
		snprintf(fbuf, sizeof(fbuf), "(0-%d)@(0-%ld)", nfl * pl_lcores, ncpu - 1);
	} else {
		snprintf(fbuf, sizeof(fbuf), "0-%d", nfl * pl_lcores);
	}
	fval = fbuf;
	/* a fresh build tree has no build/bench/ yet */
	snprintf(tmp, sizeof(tmp), "%s", json);
	if (mkdir(dirname(tmp), 0755) != 0 && errno != EEXIST) {
		fprintf(stderr, "bench_fwd: %s: %s\n", json, strerror(errno));
		return 1;
	}
	out = fopen(json, "w");
	if (out == NULL) {
		fprintf(stderr, "bench_fwd: %s: %s\n", json, strerror(errno));
		return 1;
	}

	/*
	 * The peer, testpmd io-forward, is measured right before each
	 * gpudp-fwd run and the ratio taken to that measure: on a shared host
	 * the rate of either program drifts by tens of percent within a
	 * minute, much less within a pair.
	 */
	for (m = strtok_r(modes, ",", &save1); m != NULL; m = strtok_r(NULL, ",", &save1)) {
		char bl[128], *b, *save2;
		/* GPU modes on GPU memory; staged on pinned mbufs (the GPU does
		 * its copies); none and cpu on host memory */
		const char *mem = strcmp(m, "launch") == 0 || strcmp(m, "persistent") == 0 ||
				  strcmp(m, "graph") == 0 ? "device" :
				  strcmp(m, "staged") == 0 ? "pinned" : "host";

		/* a --mem among the --fwd-arg ones is the one gpudp-fwd uses */
		for (i = 0; i + 1 < n_fwd_args; i++)
			if (strcmp(fwd_args[i], "--mem") == 0)
				mem = fwd_args[i + 1];

		snprintf(bl, sizeof(bl), "%s", bursts);
		for (b = strtok_r(bl, ",", &save2); b != NULL; b = strtok_r(NULL, ",", &save2)) {
			char jp[4096], lp[4096];
			char *tav[] = { testpmd, huge ? "-m" : "--no-huge", huge ? mem_mb : "-m",
				huge ? "--in-memory" : mem_mb, "--no-pci", lflag, lval,
				"--file-prefix", "bench-tp", "--vdev", "net_null0", "--vdev",
				"net_null1", "--", "--forward-mode=io", tp_cores, tp_rxq, tp_txq,
				"--stats-period=1", "--burst=32", tp_mbufs, NULL, NULL };
			char *av[] = { fwd, huge ? "-m" : "--no-huge", huge ? mem_mb : "-m",
				huge ? "--in-memory" : mem_mb, "--no-pci", fflag, fval,
				"--file-prefix", "bench-fwd", "--vdev", "net_null0", "--vdev",
				"net_null1", "--", "--mode", m, "--mem", (char *)mem,
				"--queues", nq, "--pipeline-lcores", npl, "--burst", b,
				"--rx-burst", "32",
				"--duration", secs, "--stats", "0", "--json", jp, NULL,
				NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL };
			size_t na = sizeof(av) / sizeof(av[0]) - FWD_ARGS_MAX - 1;
			double rx[50], rn[50], mp[50];
			int nr = 0;

			if (snprintf(jp, sizeof(jp), "%s.%s-%s.json", json, m, b) >= (int)sizeof(jp) ||
			    snprintf(lp, sizeof(lp), "%s.%s-%s.log", json, m, b) >= (int)sizeof(lp))
				return 2;
			for (i = 0; i < n_fwd_args; i++)
				av[na + (size_t)i] = fwd_args[i];
			for (r = 0; r < repeat; r++) {
				char *j;
				double mpps;

				/* tmp: testpmd's log, native then xbuf */
				tav[sizeof(tav) / sizeof(tav[0]) - 2] = NULL;
				if (snprintf(tmp, sizeof(tmp), "%s.testpmd-%s-%s.log", json, m, b) >=
				    (int)sizeof(tmp))
					return 2;
				tp = testpmd_run(tav, tmp);
				/* GPU-memory mbufs are pinned external buffers (the
				 * l2fwd-nv layout): testpmd on the same mbuf kind, its
				 * buffers in host memory, is the second peer */
				txb = 0;
				if (strcmp(mem, "host") != 0) {
					tav[sizeof(tav) / sizeof(tav[0]) - 2] = "--mp-alloc=xbuf";
					if (snprintf(tmp, sizeof(tmp), "%s.testpmd-xbuf-%s-%s.log", json, m,
						     b) >= (int)sizeof(tmp))
						return 2;
					txb = testpmd_run(tav, tmp);
				}
				if (ntp < (int)(sizeof(tps) / sizeof(tps[0])))
					tps[ntp++] = tp;
				unlink(jp);
				rc = run(av, lp, 0);
				j = slurp(jp);
				mpps = j != NULL ? json_num(j, "tx_mpps") : -1;
				printf("gpudp-fwd %-10s burst %-5s %s: %8.3f Mpps, testpmd %8.3f Mpps just "
				       "before, ratio %.3f", m, b, mem, mpps, tp, tp > 0 ? mpps / tp : 0);
				if (strcmp(mem, "host") != 0)
					printf("; testpmd xbuf %.3f Mpps, ratio %.3f", txb,
					       txb > 0 ? mpps / txb : 0);
				printf(" (exit %d)\n", rc);
				n = snprintf(runs + used, sizeof(runs) - used,
					"%s    {\"mode\": \"%s\", \"burst\": %s, \"mem\": \"%s\", "
					"\"round\": %d, \"exit\": %d, \"tx_mpps\": %.6f, \"testpmd_mpps\": %.6f, "
					"\"ratio_to_testpmd\": %.4f, \"testpmd_xbuf_mpps\": %.6f, "
					"\"ratio_to_testpmd_xbuf\": %.4f, "
					"\"lat_kstart_p50_ns\": %.0f, \"lat_kstart_p99_ns\": %.0f, "
					"\"lat_tx_p50_ns\": %.0f, \"lat_tx_p99_ns\": %.0f}",
					first ? "" : ",\n", m, b, mem, r + 1, rc, mpps, tp, tp > 0 ? mpps / tp : 0,
					txb, txb > 0 ? mpps / txb : 0,
					j ? json_num(json_sub(j, "lat_rx_to_kernel_start"), "p50_ns") : -1,
					j ? json_num(json_sub(j, "lat_rx_to_kernel_start"), "p99_ns") : -1,
					j ? json_num(json_sub(j, "lat_rx_to_tx"), "p50_ns") : -1,
					j ? json_num(json_sub(j, "lat_rx_to_tx"), "p99_ns") : -1);
				if (n > 0 && (size_t)n < sizeof(runs) - used)
					used += (size_t)n;
				first = 0;
				free(j);
				rn[nr] = tp > 0 ? mpps / tp : 0;
				rx[nr] = txb > 0 ? mpps / txb : 0;
				mp[nr++] = mpps;
			}
			qsort(rn, (size_t)nr, sizeof(rn[0]), cmp_double);
			qsort(rx, (size_t)nr, sizeof(rx[0]), cmp_double);
			qsort(mp, (size_t)nr, sizeof(mp[0]), cmp_double);
			printf("gpudp-fwd %-10s burst %-5s %s: median of %d: %.3f Mpps, ratio %.3f to "
			       "testpmd, %.3f to testpmd xbuf\n", m, b, mem, nr, median(mp, nr),
			       median(rn, nr), median(rx, nr));
			n = snprintf(sums + sused, sizeof(sums) - sused,
				"%s    {\"mode\": \"%s\", \"burst\": %s, \"mem\": \"%s\", "
				"\"rounds\": %d, \"tx_mpps\": %.6f, \"ratio_to_testpmd\": %.4f, "
				"\"ratio_to_testpmd_xbuf\": %.4f}", sused == 0 ? "" : ",\n", m, b, mem,
				nr, median(mp, nr), median(rn, nr), median(rx, nr));
			if (n > 0 && (size_t)n < sizeof(sums) - sused)
				sused += (size_t)n;
		}
	}
	/* the median of the testpmd measures, for the header */
	qsort(tps, (size_t)ntp, sizeof(tps[0]), cmp_double);
	tp = median(tps, ntp);
	printf("testpmd io-fwd, %d forwarding lcores: median %.3f Mpps over %d runs\n",
	       nfl, tp, ntp);
	fprintf(out, "{\n  \"testpmd_io_mpps\": %.6f, \"testpmd_runs\": %d, "
		"\"forwarding_lcores\": %d, \"fwd_forwarding_lcores\": %d, "
		"\"queues_per_port\": %d, \"repeat\": %d, "
		"\"vdevs\": \"net_null0,net_null1\", \"hugepages\": %s,\n"
		"  \"ratio\": \"each run's tx_mpps / testpmd_mpps measured just before it\",\n"
		"  \"summary\": [\n%s\n  ],\n"
		"  \"runs\": [\n%s", tp, ntp, nfl, nfl * pl_lcores, queues, repeat,
		huge ? "true" : "false", sums, runs);
	fprintf(out, "\n  ]\n}\n");
	fclose(out);
	printf("wrote %s\n", json);
	return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpu suite: gpudp-capture's --mem types on a GPU, the whole app.
 *
 *   test_capture_mem --app=GPUDP_CAPTURE FILE.pcap... [case...]
 *
 * - pinned_in_place_equals_staged_and_cpu: for every capture file, the GPU
 *   engine reading pinned mbufs in place (--mem pinned), the GPU engine on
 *   the staged path and the CPU engine give the same JSON report (engine,
 *   memory and timing fields aside) and byte-identical --filter-out pcapng
 *   files; the in-place run copies only references to the GPU, and --verify
 *   (every batch also analysed by the CPU on the same mbufs) agrees;
 * - device_pool_on_net_null_counts_every_packet: --mem device on net_null
 *   (which hands out mbufs without touching them): every packet received is
 *   analysed on the GPU, a filter that matches them all copies each one out
 *   of GPU memory for the pcapng writer, and the pool leaves no gpudev
 *   allocation, registration or CPU mapping behind.
 *
 * The app runs as a child process (no DPDK in this program), each run in its
 * own directory so that file names in the reports are the same. Exits 77
 * (SKIP) when the app says no GPU is usable (exit 77). pack.py carries the
 * app into bin/ beside this program: a --app path that does not exist is
 * looked up there.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gpudp_test.h"

#define MAX_FILES 8

static char app[PATH_MAX];
static const char *files[MAX_FILES];
static unsigned int n_files;
static char tmpdir[] = "/tmp/gpudp-capture-mem-XXXXXX";

static const char *const EAL[] = {
	"-l", "0", "--no-huge", "-m", "1024", "--no-pci", "--no-shconf",
	"--log-level=lib.*:error", NULL,
};

/* Read a whole file (NUL-terminated); NULL if it cannot be read. */
static char *
slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (f == NULL)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
		buf = malloc((size_t)n + 1);
		if (buf != NULL && fread(buf, 1, (size_t)n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		}
		if (buf != NULL) {
			buf[n] = '\0';
			if (len != NULL)
				*len = (size_t)n;
		}
	}
	fclose(f);
	return buf;
}

/*
 * Run the app in directory tmpdir/@p tag with EAL options @p eal (NULL
 * terminated, added after the common ones) and app options @p opts; stdout
 * and stderr go to tag/out.txt. @return its exit status, or -1.
 */
static int
run_app(const char *tag, const char *const *eal, const char *const *opts)
{
	const char *argv[64];
	char dir[PATH_MAX], out[PATH_MAX + 16];
	unsigned int n = 0, i;
	int st, fd;
	pid_t pid;

	snprintf(dir, sizeof(dir), "%s/%s", tmpdir, tag);
	if (mkdir(dir, 0700) != 0 && errno != EEXIST)
		return -1;
	snprintf(out, sizeof(out), "%s/out.txt", dir);
	argv[n++] = app;
	for (i = 0; EAL[i] != NULL; i++)
		argv[n++] = EAL[i];
	for (i = 0; eal != NULL && eal[i] != NULL && n < 40; i++)
		argv[n++] = eal[i];
	argv[n++] = "--";
	for (i = 0; opts[i] != NULL && n < 63; i++)
		argv[n++] = opts[i];
	argv[n] = NULL;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd < 0 || chdir(dir) != 0)
			_exit(126);
		dup2(fd, 1);
		dup2(fd, 2);
		execv(app, (char *const *)argv);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

/* Skip the case when the app found no usable GPU, freeing its output. */
#define SKIP_NO_GPU_IF(cond, out) do { \
	if (cond) { \
		fprintf(stderr, "    skip: no usable GPU: %s\n", (out) != NULL ? (out) : "?"); \
		free(out); \
		return GPUDP_TEST_SKIP; \
	} \
} while (0)

static char *
run_file(const char *tag, const char *name, size_t *len)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/%s/%s", tmpdir, tag, name);
	return slurp(p, len);
}

/* The report without the members that depend on engine, memory type or time. */
static char *
report_view(const char *json)
{
	static const char *const drop[] = {
		"  \"engine\":", "  \"mem\":", "  \"elapsed_s\":", "  \"packets_per_s\":",
	};
	char *out = malloc(strlen(json) + 1), *o = out;
	const char *l = json;
	unsigned int k;
	int keep = 1;

	if (out == NULL)
		return NULL;
	while (*l != '\0') {
		const char *e = strchr(l, '\n');
		size_t n = e != NULL ? (size_t)(e - l) + 1 : strlen(l);

		/* a top-level member starts a line with two spaces and its key;
		 * the lines of a dropped member's arrays go with it */
		if (strncmp(l, "  \"", 3) == 0 || l[0] == '}') {
			keep = 1;
			for (k = 0; k < sizeof(drop) / sizeof(drop[0]); k++)
				keep &= strncmp(l, drop[k], strlen(drop[k])) != 0;
		}
		if (keep) {
			memcpy(o, l, n);
			o += n;
		}
		l += n;
	}
	*o = '\0';
	return out;
}

/* The one-line object "  \"key\": {...}" of a report, or NULL. */
static char *
report_obj(const char *json, const char *key)
{
	char pat[64];
	const char *s, *e;

	snprintf(pat, sizeof(pat), "\n  \"%s\": ", key);
	s = strstr(json, pat);
	if (s == NULL)
		return NULL;
	s += strlen(pat);
	e = strchr(s, '\n');
	return strndup(s, e != NULL ? (size_t)(e - s) : strlen(s));
}

/* The number after "\"key\": " in @p s (the first one), or -1. */
static int64_t
num(const char *s, const char *key)
{
	char pat[64];
	const char *p;

	if (s == NULL)
		return -1;
	snprintf(pat, sizeof(pat), "\"%s\": ", key);
	p = strstr(s, pat);
	return p == NULL ? -1 : strtoll(p + strlen(pat), NULL, 10);
}

static int
has(const char *s, const char *needle)
{
	return s != NULL && strstr(s, needle) != NULL;
}

#define FILTER "tcp or icmp or icmp6 or vlan 300 or udp and portrange 53-60"
#define LEAK_FREE "0 allocations, 0 registrations, 0 CPU mappings left"

static int
pinned_in_place_equals_staged_and_cpu(void)
{
	static const struct {
		const char *tag;
		const char *opts[8];
	} runs[] = {
		/* first: the GPU in place (exits 77 without a GPU) */
		{ "gpu-pinned", { "--engine", "gpu", "--mem", "pinned", "--mbufs", "1024", NULL } },
		{ "gpu-staged", { "--engine", "gpu", "--mem", "staged", NULL } },
		{ "cpu-staged", { "--engine", "cpu", "--mem", "staged", NULL } },
		{ "cpu-pinned", { "--engine", "cpu", "--mem", "pinned", "--mbufs", "1024", NULL } },
	};
	unsigned int f, r;

	GPUDP_TEST_SKIP_IF(n_files == 0, "no capture file given");
	for (f = 0; f < n_files; f++) {
		char *view0 = NULL, *pcap0 = NULL;
		size_t plen0 = 0;

		for (r = 0; r < sizeof(runs) / sizeof(runs[0]); r++) {
			const char *opts[24];
			char tag[64], *json, *view, *pcap, *out, *eng, *mem;
			unsigned int n = 0, i;
			size_t plen = 0;
			int st;

			/* net_pcap ports: the in-place memory types need mbufs */
			opts[n++] = "--reader";
			opts[n++] = "pmd";
			opts[n++] = "--pcap";
			opts[n++] = files[f];
			for (i = 0; runs[r].opts[i] != NULL; i++)
				opts[n++] = runs[r].opts[i];
			/* several batches, 3 in flight; jumbo frames in one mbuf everywhere */
			opts[n++] = "--batch";
			opts[n++] = "16";
			opts[n++] = "--data-room";
			opts[n++] = "9216";
			opts[n++] = "--quiet";
			opts[n++] = "--json";
			opts[n++] = "r.json";
			opts[n++] = "--filter";
			opts[n++] = FILTER;
			opts[n++] = "--filter-out";
			opts[n++] = "m.pcapng";
			opts[n] = NULL;
			snprintf(tag, sizeof(tag), "%u-%s", f, runs[r].tag);
			st = run_app(tag, NULL, opts);
			out = run_file(tag, "out.txt", NULL);
			SKIP_NO_GPU_IF(st == 77 && r == 0, out);
			GPUDP_TEST_ASSERT(st == 0, "%s on %s exited %d: %s", runs[r].tag, files[f],
					  st, out != NULL ? out : "");
			json = run_file(tag, "r.json", NULL);
			pcap = run_file(tag, "m.pcapng", &plen);
			GPUDP_TEST_ASSERT(json != NULL && pcap != NULL && plen > 0,
					  "%s: no report or pcapng", tag);
			eng = report_obj(json, "engine");
			mem = report_obj(json, "mem");
			GPUDP_TEST_ASSERT(has(eng, r < 2 ? "\"kind\": \"gpu\"" : "\"kind\": \"cpu\"") &&
					  has(mem, strstr(runs[r].tag, "pinned") ? "\"type\": \"pinned\"" :
					      "\"type\": \"staged\""),
					  "%s: engine %s, mem %s", tag, eng, mem);
			if (strstr(runs[r].tag, "pinned") != NULL)
				GPUDP_TEST_ASSERT(has(out, LEAK_FREE), "%s: pool not released: %s",
						  tag, out);
			if (r == 0) /* in place: only references go to the GPU, 24 B a packet + bitmaps */
				GPUDP_TEST_ASSERT(num(eng, "copy_bytes") > 0 &&
						  num(eng, "copy_bytes") < 28 * num(json, "packets") + 64 *
						  num(eng, "batches"), "%s: copied %" PRId64 " bytes for %"
						  PRId64 " packets", tag, num(eng, "copy_bytes"),
						  num(json, "packets"));
			view = report_view(json);
			if (r == 0) {
				view0 = view;
				pcap0 = pcap;
				plen0 = plen;
				printf("    %s: %" PRId64 " packets, %" PRId64 " matched, %zu bytes of "
				       "pcapng\n", files[f], num(json, "packets"),
				       num(report_obj(json, "filter"), "matched_packets"), plen);
			} else {
				GPUDP_TEST_ASSERT(strcmp(view, view0) == 0,
						  "%s: report differs from gpu-pinned's:\n%s\n---\n%s",
						  tag, view, view0);
				GPUDP_TEST_ASSERT(plen == plen0 && memcmp(pcap, pcap0, plen) == 0,
						  "%s: pcapng differs from gpu-pinned's", tag);
				free(view);
				free(pcap);
			}
			free(json);
			free(out);
			free(eng);
			free(mem);
		}
		free(view0);
		free(pcap0);
	}
	return GPUDP_TEST_PASS;
}

static int
pinned_in_place_verify_agrees_batch_by_batch(void)
{
	const char *opts[] = {
		"--reader", "pmd", "--pcap", files[0],
		"--pcap", n_files > 1 ? files[n_files - 1] : files[0], "--engine", "gpu",
		"--mem", "pinned", "--mbufs", "1024", "--data-room", "9216",
		"--batch", "7", "--verify", "--quiet", "--filter", FILTER, NULL,
	};
	char *out;
	int st;

	GPUDP_TEST_SKIP_IF(n_files == 0, "no capture file given");
	st = run_app("verify", NULL, opts);
	out = run_file("verify", "out.txt", NULL);
	SKIP_NO_GPU_IF(st == 77, out);
	GPUDP_TEST_ASSERT(st == 0 && has(out, "results are identical"), "exit %d: %s", st,
			  out != NULL ? out : "");
	free(out);
	return GPUDP_TEST_PASS;
}

static int
device_pool_on_net_null_counts_every_packet(void)
{
	const char *eal[] = { "--vdev", "net_null0", NULL };
	const char *opts[] = {
		"--engine", "gpu", "--mem", "device", "--max-packets", "1000000", "--mbufs", "8192",
		"--quiet", "--json", "r.json", "--filter", "not tcp", "--filter-out", "m.pcapng",
		NULL,
	};
	char *out, *json, *eng, *mem, *rx, *flt;
	int64_t pkts;
	int st;

	st = run_app("null-device", eal, opts);
	out = run_file("null-device", "out.txt", NULL);
	SKIP_NO_GPU_IF(st == 77, out);
	GPUDP_TEST_ASSERT(st == 0, "exit %d: %s", st, out != NULL ? out : "");
	json = run_file("null-device", "r.json", NULL);
	GPUDP_TEST_ASSERT(json != NULL, "no report");
	eng = report_obj(json, "engine");
	mem = report_obj(json, "mem");
	rx = report_obj(json, "rx");
	flt = report_obj(json, "filter");
	pkts = num(json, "packets");
	printf("    net_null: %" PRId64 " packets, engine %s\n    mem %s\n", pkts, eng, mem);
	GPUDP_TEST_ASSERT(has(eng, "\"kind\": \"gpu\"") && has(eng, "\"gpu_share\": 1.000000") &&
			  has(mem, "\"type\": \"device\""), "engine %s, mem %s", eng, mem);
	GPUDP_TEST_ASSERT(pkts >= 1000000 && num(rx, "packets") == pkts &&
			  num(eng, "packets") == pkts && num(rx, "nombuf") == 0,
			  "packets %" PRId64 ", rx %s, engine %s", pkts, rx, eng);
	/* net_null's frames are not TCP: all match, each copied out of GPU memory */
	GPUDP_TEST_ASSERT(num(flt, "matched_packets") == pkts && num(flt, "written") == pkts &&
			  num(eng, "copy_out_bytes") == num(json, "captured_bytes"),
			  "filter %s, engine %s", flt, eng);
	GPUDP_TEST_ASSERT(has(out, LEAK_FREE), "GPU memory left behind: %s", out);
	free(out);
	free(json);
	free(eng);
	free(mem);
	free(rx);
	free(flt);
	return GPUDP_TEST_PASS;
}

static const struct gpudp_test_case cases[] = {
	{ "pinned_in_place_equals_staged_and_cpu", pinned_in_place_equals_staged_and_cpu },
	{ "pinned_in_place_verify_agrees_batch_by_batch",
	  pinned_in_place_verify_agrees_batch_by_batch },
	{ "device_pool_on_net_null_counts_every_packet",
	  device_pool_on_net_null_counts_every_packet },
	{ NULL, NULL },
};

/* rm -r tmpdir (two levels) */
static void
cleanup(void)
{
	char cmd[PATH_MAX + 16];

	if (getenv("GPUDP_TEST_KEEP") != NULL) {
		printf("kept %s\n", tmpdir);
		return;
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", tmpdir);
}

int
main(int argc, char **argv)
{
	char *rest[16], self[PATH_MAX];
	int n_rest = 1, i, rc;
	ssize_t k;

	rest[0] = argv[0];
	for (i = 1; i < argc; i++) {
		if (strncmp(argv[i], "--app=", 6) == 0)
			snprintf(app, sizeof(app), "%s", argv[i] + 6);
		else if (strchr(argv[i], '.') != NULL && n_files < MAX_FILES) {
			/* absolute: each run has its own working directory */
			char *abs = realpath(argv[i], NULL);

			files[n_files++] = abs != NULL ? abs : argv[i];
		}
		else if (n_rest < 15)
			rest[n_rest++] = argv[i];
	}
	rest[n_rest] = NULL;
	if (app[0] != '\0' && access(app, X_OK) != 0) {
		/* carried by pack.py: beside this program */
		k = readlink("/proc/self/exe", self, sizeof(self) - 1);
		if (k > 0) {
			char base[PATH_MAX];

			self[k] = '\0';
			snprintf(base, sizeof(base), "%s", app);
			snprintf(app, sizeof(app), "%s/%s", dirname(self), basename(base));
		}
	}
	if (app[0] != '\0' && access(app, X_OK) == 0) {
		/* absolute: the runs chdir before exec */
		char *abs = realpath(app, NULL);

		if (abs != NULL) {
			snprintf(app, sizeof(app), "%s", abs);
			free(abs);
		}
	}
	if (app[0] == '\0' || access(app, X_OK) != 0) {
		fprintf(stderr, "usage: %s --app=GPUDP_CAPTURE FILE.pcap... [case...] "
			"(gpudp-capture not found: '%s')\n", argv[0], app);
		return 1;
	}
	if (mkdtemp(tmpdir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	rc = gpudp_test_run("capture_mem", cases, n_rest, rest);
	cleanup();
	return rc;
}

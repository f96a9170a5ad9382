/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The direct reader (gpudp_cap_reader.h): a capture file analysed by 1 or 3 host
 * threads (chunks of 32 records dealt round-robin, small batches) gives
 * exactly what one gpudp_analysis_packet() call per record gives: counters,
 * flows, fragments, per-pattern payload matches, and the filter's verdict
 * of every record, in file order. --max-records stops where it says.
 * Each for every way records reach the engine (gpudp_cap_reader_conf.stage: auto,
 * copies, in place with the GPU's gather or its kernel reading the mapped
 * file); in place on a pcapng file is refused with a message.
 * Without verdicts by record, pcap files are split by byte ranges: the same
 * results, and a split whose guess falls on record headers faked inside a
 * packet's bytes is caught and read again through the shared walk.
 * With the file's bytes in memory (gpudp_cap_reader_conf.mem, registered with the
 * GPU for the gpu engine), the threads describe the records where they are
 * there: the same results, with batches whose byte windows cut records
 * (16 KiB); a copy of the wrong size is refused, and one the GPU cannot
 * read is not read (the file is, through the shared walk).
 * A file that ends inside a record gives one error (gpudp_cap_reader_stats.errors,
 * the app's rx_errors, as net_pcap counts it) when the run reads up to it,
 * none when a limit stops it before; a file that shrinks or grows while
 * it is read (changed once a reader has it mapped) is told
 * (gpudp_cap_reader_stats.changed), the run ends, and what it counts is what it
 * analysed.
 * Usage: test_capture_file ENGINE PATTERNS FILE... (ENGINE cpu or gpu;
 * gpu exits 77 without a usable GPU)
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpudp_cap_reader.h"
#include "cap_match.h"
#include "gpudp_capfile.h"
#include "gpudp_test.h"

static const char *engine;
static struct cap_match pats = { .file = NULL };
static struct gpudp_filter filter;
static enum gpudp_cap_reader_stage stage;    /* how the runs below stage records */

/* The reference: every record through gpudp_analysis_packet(), bits by record. */
static struct gpudp_analysis *
reference(const char *path, uint64_t max, uint32_t **bits)
{
	struct gpudp_analysis *a = gpudp_analysis_create(4096, &filter);
	struct gpudp_capfile_packets pk;
	char err[256];
	size_t i, n;

	if (a == NULL || gpudp_analysis_set_match(a, pats.db, 0) != 0 ||
	    gpudp_capfile_read_all(path, &pk, err, sizeof(err)) != 0) {
		gpudp_analysis_free(a);
		return NULL;
	}
	n = max != 0 && max < pk.n ? max : pk.n;
	*bits = calloc((pk.n + 31) / 32 + 1, sizeof(uint32_t));
	for (i = 0; i < n && *bits != NULL; i++)
		if (gpudp_analysis_packet(a, pk.pkt[i].data, pk.pkt[i].caplen, pk.pkt[i].wirelen,
					  pk.pkt[i].ts_ns))
			(*bits)[i / 32] |= 1u << (i % 32);
	gpudp_capfile_packets_free(&pk);
	return a;
}

/* A run of @p threads over @p path: small batches, the test's patterns and filter. */
static struct gpudp_cap_reader_conf
test_conf(const char *path, uint32_t threads)
{
	struct gpudp_cap_reader_conf fc = {
		.path = path, .engine = engine, .threads = threads,
		.ec = { .batch_pkts = 16, .batch_bytes = 1u << 20, .flow_capacity = 4096,
			.filter = filter, .inflight = 2, .match = pats.db },
		.stage = stage,
	};

	return fc;
}

static int
is_pcapng(const char *path)
{
	return strstr(path, ".pcapng") != NULL;
}

/*
 * What a run of @p path limited to @p max records (0: none) must say of the
 * file itself: an error where it reads up to a cut last record, its size
 * unchanged. @return 1 if @p st says so
 */
static int
file_seen_right(const char *path, uint64_t max, const struct gpudp_cap_reader_stats *st)
{
	struct gpudp_capfile_info in;
	char err[256];
	int cut;

	if (gpudp_capfile_inspect(path, 2048, &in, err, sizeof(err)) != 0)
		return 0;
	gpudp_capfile_info_free(&in);
	cut = in.truncated && (max == 0 || max >= in.packets);
	if (st->errors == (uint64_t)cut && (!cut || st->trunc_offset == in.trunc_offset) &&
	    !st->changed && st->size_start == in.size && st->size_end == in.size)
		return 1;
	printf("FAIL %s: errors %llu at %llu (cut %d at %llu), changed %d, size %llu, then "
	       "%llu (%llu)\n", path, (unsigned long long)st->errors,
	       (unsigned long long)st->trunc_offset, cut, (unsigned long long)in.trunc_offset,
	       st->changed, (unsigned long long)st->size_start,
	       (unsigned long long)st->size_end, (unsigned long long)in.size);
	return 0;
}

/* The stage a run of `stage` must report: auto is copies */
static enum gpudp_cap_reader_stage
expected_stage(void)
{
	return stage == GPUDP_CAP_READER_STAGE_AUTO ? GPUDP_CAP_READER_STAGE_COPY : stage;
}

/* A run of @p fc refused with @p want and @p msg in its error. @return 0, 1 or 77 */
static int
refused(const struct gpudp_cap_reader_conf *fc, int want, const char *msg, const char *what)
{
	struct gpudp_analysis *a = gpudp_analysis_create(4096, &filter);
	struct gpudp_cap_reader_stats st;
	char err[320] = "";
	int rc;

	GPUDP_TEST_ASSERT(a != NULL, "analysis");
	rc = gpudp_cap_reader_run(fc, a, &st, err, sizeof(err));
	gpudp_analysis_free(a);
	if (rc == -ENODEV)
		return 77;
	GPUDP_TEST_ASSERT(rc == want && strstr(err, msg) != NULL, "%s, %s: %d, '%s'", fc->path,
			  what, rc, err);
	printf("ok   %s: %s refused (%s)\n", fc->path, what, err);
	return 0;
}

/* In place asked for on a pcapng file: refused, saying why. @return 0, 1 or 77 */
static int
inplace_pcapng_is_refused(const char *path)
{
	struct gpudp_cap_reader_conf fc = test_conf(path, 2);

	fc.stage = GPUDP_CAP_READER_STAGE_GATHER;
	return refused(&fc, -ENOTSUP, "pcap files only", "--stage gather");
}

/* @return 0 equal, 1 different, 77 no GPU */
static int
direct_equals_reference(const char *path, uint32_t threads, uint64_t max)
{
	struct gpudp_cap_reader_conf fc = test_conf(path, threads);
	struct gpudp_analysis *ref, *got = gpudp_analysis_create(4096, &filter);
	struct gpudp_cap_reader_stats st;
	uint32_t *want = NULL;
	char why[256], err[320];
	size_t words;
	int rc;

	fc.chunk = 32;
	fc.max_records = max;
	ref = reference(path, max, &want);
	GPUDP_TEST_ASSERT(ref != NULL && got != NULL && want != NULL, "%s: reference", path);
	gpudp_analysis_set_match(got, pats.db, 0);
	words = (ref->ctr.pkts + 31) / 32 + 1;
	fc.match_bits = calloc(words + 1, sizeof(uint32_t));
	rc = gpudp_cap_reader_run(&fc, got, &st, err, sizeof(err));
	if (rc == -ENODEV || rc == -ENOTSUP) {
		printf("SKIP %s: %s\n", path, err);
		rc = 77;
	} else if (rc != 0) {
		printf("FAIL %s: %s\n", path, err);
		rc = 1;
	} else if (gpudp_analysis_compare(ref, got, why, sizeof(why)) != 0 ||
		   memcmp(want, fc.match_bits, words * sizeof(uint32_t)) != 0 ||
		   st.records != ref->ctr.pkts || st.stage != expected_stage() ||
		   !file_seen_right(path, max, &st)) {
		printf("FAIL %s, %u threads, --stage %s (ran %s): %s; %llu records, %s filter "
		       "bits\n", path, threads, gpudp_cap_reader_stage_name(stage),
		       gpudp_cap_reader_stage_name(st.stage), why, (unsigned long long)st.records,
		       memcmp(want, fc.match_bits, words * 4) ? "different" : "same");
		rc = 1;
	} else {
		printf("ok   %s, %s engine, %u threads, records by %s, %llu records (%llu "
		       "matches)\n", path, engine, threads, gpudp_cap_reader_stage_name(st.stage),
		       (unsigned long long)st.records, (unsigned long long)ref->ctr.match_pkts);
	}
	free(fc.match_bits);
	free(want);
	gpudp_analysis_free(ref);
	gpudp_analysis_free(got);
	return rc;
}

/* Whether mem_copy() registers the copy with the GPU for the gpu engine */
static int register_copies = 1;

/* The file's copy in memory for gpudp_cap_reader_conf.mem, as the bench makes it
 * (registered with the GPU for the gpu engine). @return 0, or
 * gpudp_cap_reader_mem_load()'s or gpudp_cap_reader_mem_register()'s error (-ENODEV: no GPU) */
static int
mem_copy(const char *path, struct gpudp_cap_reader_mem *m)
{
	char err[256];
	int rc = gpudp_cap_reader_mem_load(m, path, err, sizeof(err));

	if (rc == 0 && strcmp(engine, "gpu") == 0 && register_copies)
		rc = gpudp_cap_reader_mem_register(m, 0, err, sizeof(err));
	if (rc != 0 && rc != -ENODEV)
		printf("     %s\n", err);
	return rc;
}

/*
 * Byte ranges (no verdict bitmap, @p threads threads): the reference's
 * analysis; @p ranges whether the split should hold. With @p mem_bytes,
 * from the file's copy in memory (gpudp_cap_reader_conf.mem) in batches of that
 * many bytes. @return 0, 1 or 77
 */
static int
ranges_equal_reference(const char *path, uint32_t threads, int ranges, uint32_t mem_bytes)
{
	struct gpudp_cap_reader_conf fc = test_conf(path, threads);
	struct gpudp_analysis *ref, *got = gpudp_analysis_create(4096, &filter);
	struct gpudp_cap_reader_mem mc = { .buf = NULL };
	struct gpudp_cap_reader_stats st;
	uint32_t *want = NULL;
	char why[256], err[320] = "";
	int rc = 0;

	fc.range_min = 64;
	if (mem_bytes != 0) {
		fc.ec.batch_bytes = mem_bytes;
		fc.ec.batch_pkts = 64;
		rc = mem_copy(path, &mc);
		fc.mem = mc.buf;
		fc.mem_len = mc.len;
	}
	ref = reference(path, 0, &want);
	GPUDP_TEST_ASSERT(ref != NULL && got != NULL && (mem_bytes == 0 || mc.buf != NULL),
			  "%s: reference, copy in memory", path);
	gpudp_analysis_set_match(got, pats.db, 0);
	if (rc == 0)
		rc = gpudp_cap_reader_run(&fc, got, &st, err, sizeof(err));
	if (rc == -ENODEV || rc == -ENOTSUP) {
		rc = 77;
	} else if (rc != 0 || gpudp_analysis_compare(ref, got, why, sizeof(why)) != 0 ||
		   st.ranges != ranges || st.in_memory != (ranges && mem_bytes != 0) ||
		   !file_seen_right(path, 0, &st)) {
		printf("FAIL %s by byte ranges%s: %s; %s; ranges %d, expected %d; in memory %d\n",
		       path, mem_bytes != 0 ? " in memory" : "", rc != 0 ? err : "ran",
		       rc == 0 ? why : "", st.ranges, ranges, st.in_memory);
		rc = 1;
	} else {
		printf("ok   %s by %u byte range%s (%s)%s, %llu records\n", path, threads,
		       threads > 1 ? "s" : "", ranges ? "joined" : "did not join: the shared walk",
		       mem_bytes != 0 ? ", from memory" : "", (unsigned long long)st.records);
	}
	gpudp_cap_reader_mem_free(&mc);
	free(want);
	gpudp_analysis_free(ref);
	gpudp_analysis_free(got);
	return rc;
}

/*
 * The gpu engine given a copy in memory it cannot read (not registered):
 * the engine refuses the batches before the GPU reads them (no fault),
 * and the run reads the file through the shared walk instead, with the
 * reference's analysis. @return 0, 1 or 77
 */
static int
unregistered_copy_is_not_read(const char *path)
{
	int rc;

	register_copies = 0;
	rc = ranges_equal_reference(path, 2, 0, 1u << 20);
	register_copies = 1;
	return rc;
}

/* A copy in memory that is not the file's size: refused. @return 0 or 1 */
static int
short_copy_is_refused(const char *path)
{
	struct gpudp_cap_reader_conf fc = test_conf(path, 2);
	struct gpudp_cap_reader_mem mc;
	char err[256];
	int rc;

	GPUDP_TEST_ASSERT(gpudp_cap_reader_mem_load(&mc, path, err, sizeof(err)) == 0, "%s", err);
	fc.mem = mc.buf;
	fc.mem_len = mc.len - 1;
	rc = refused(&fc, -EINVAL, "the copy in memory has", "a copy one byte short");
	gpudp_cap_reader_mem_free(&mc);
	return rc;
}

/* A pcap whose first packet's 4000 zero bytes read as pcap record headers
 * (caplen 0): the second thread's guess lands on them. */
static int
fake_headers_are_caught(void)
{
	static const uint32_t fh[6] = { 0xa1b2c3d4, 0x00040002, 0, 0, 262144, 1 };
	static uint8_t zeros[4000];
	char path[] = "/tmp/gpudp-fake-headers-XXXXXX";
	int fd = mkstemp(path), rc;
	FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;
	uint32_t i, h[4] = { 1700000000, 0, sizeof(zeros), sizeof(zeros) };

	GPUDP_TEST_ASSERT(f != NULL, "temporary file");
	fwrite(fh, sizeof(fh), 1, f);
	fwrite(h, sizeof(h), 1, f);
	fwrite(zeros, sizeof(zeros), 1, f);
	for (i = 0; i < 30; i++) {
		uint8_t fr[80] = { 2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x08, 0x00, 0x45, 0, 0, 66,
				   0, 0, 0, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2,
				   0x13, 0x88, 0x17, 0x70, 0, 46 };
		uint32_t rh[4] = { 1700000001 + i, 0, sizeof(fr), sizeof(fr) };

		fr[31] = (uint8_t)i;
		fwrite(rh, sizeof(rh), 1, f);
		fwrite(fr, sizeof(fr), 1, f);
	}
	GPUDP_TEST_ASSERT(fclose(f) == 0, "write %s", path);
	rc = ranges_equal_reference(path, 3, 0, 0);
	if (rc == 0)   /* from memory too: the shared walk reads the file */
		rc = ranges_equal_reference(path, 3, 0, 16384);
	unlink(path);
	return rc;
}

/* Changes a file once a reader of this process has it mapped (/proc/self/maps). */
struct changer {
	const char *path;
	int grow;             /* append its first 100 records to it, else cut it to half
			       * its size (inside a record) */
	int changed;          /* it did */
	volatile int quit;
};

static void *
changer_main(void *arg)
{
	struct changer *c = arg;
	char line[512];
	FILE *f;
	int seen = 0;

	while (!seen && !c->quit) {
		f = fopen("/proc/self/maps", "r");
		while (f != NULL && fgets(line, sizeof(line), f) != NULL)
			seen |= strstr(line, c->path) != NULL;
		if (f != NULL)
			fclose(f);
	}
	if (!seen)
		return NULL;
	if (c->grow) {
		static uint8_t recs[100 * 76];
		FILE *g = fopen(c->path, "rb");

		c->changed = g != NULL && fseek(g, 24, SEEK_SET) == 0 &&
			     fread(recs, sizeof(recs), 1, g) == 1;
		if (g != NULL)
			fclose(g);
		f = c->changed ? fopen(c->path, "ab") : NULL;
		c->changed = f != NULL && fwrite(recs, sizeof(recs), 1, f) == 1 && fclose(f) == 0;
	} else {
		FILE *g = fopen(c->path, "rb");

		c->changed = g != NULL && fseek(g, 0, SEEK_END) == 0 &&
			     truncate(c->path, ftell(g) / 2 + 7) == 0;
		if (g != NULL)
			fclose(g);
	}
	return NULL;
}

/* @p n records of a 60-byte UDP frame into @p path. @return 0 or -1 */
static int
big_capture(const char *path, uint32_t n)
{
	static const uint32_t fh[6] = { 0xa1b2c3d4, 0x00040002, 0, 0, 262144, 1 };
	uint8_t fr[60] = { 2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x08, 0x00, 0x45, 0, 0, 46,
			   0, 0, 0, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2,
			   0x13, 0x88, 0x17, 0x70, 0, 26 };
	uint32_t rh[4] = { 1700000000, 0, sizeof(fr), sizeof(fr) }, i;
	FILE *f = fopen(path, "wb");

	if (f == NULL)
		return -1;
	fwrite(fh, sizeof(fh), 1, f);
	for (i = 0; i < n; i++) {
		rh[1] = i % 1000000;
		fwrite(rh, sizeof(rh), 1, f);
		fwrite(fr, sizeof(fr), 1, f);
	}
	return fclose(f) == 0 ? 0 : -1;
}

/*
 * A file cut to half its size (or grown) once a reader has it mapped, read
 * by @p threads threads by byte ranges or (@p chunks) through the shared
 * walk: no fault ends the process, the run ends, says the file changed,
 * and counts the records it analysed. @return 0, 1 or 77
 */
static int
change_while_read_is_seen(uint32_t threads, int chunks, int grow)
{
	enum { N = 200000 };
	char path[] = "/tmp/gpudp-changing-XXXXXX";
	struct changer ch = { .path = path, .grow = grow };
	struct gpudp_analysis *got = gpudp_analysis_create(4096, &filter);
	struct gpudp_cap_reader_conf fc = test_conf(path, threads);
	struct gpudp_cap_reader_stats st;
	char err[320] = "";
	pthread_t tid;
	int fd = mkstemp(path), rc;

	GPUDP_TEST_ASSERT(fd >= 0 && close(fd) == 0 && big_capture(path, N) == 0 && got != NULL,
			  "%s", path);
	gpudp_analysis_set_match(got, pats.db, 0);
	fc.range_min = 64;
	fc.max_records = chunks ? N + 1 : 0;   /* a limit: the shared walk */
	GPUDP_TEST_ASSERT(pthread_create(&tid, NULL, changer_main, &ch) == 0, "thread");
	rc = gpudp_cap_reader_run(&fc, got, &st, err, sizeof(err));
	ch.quit = 1;
	pthread_join(tid, NULL);
	unlink(path);
	if (rc == -ENODEV) {
		gpudp_analysis_free(got);
		return 77;
	}
	if (rc != 0 || !ch.changed || !st.changed || st.records != got->ctr.pkts ||
	    (!grow && st.size_end >= st.size_start) || (grow && st.size_end <= st.size_start)) {
		printf("FAIL %s while read, %u threads, %s: rc %d (%s), changed %d/%d, %llu records, "
		       "%llu analysed, size %llu then %llu\n", grow ? "grown" : "cut", threads,
		       chunks ? "shared walk" : "byte ranges", rc, err, ch.changed, st.changed,
		       (unsigned long long)st.records, (unsigned long long)got->ctr.pkts,
		       (unsigned long long)st.size_start, (unsigned long long)st.size_end);
		rc = 1;
	} else {
		printf("ok   a file %s while read (%u threads, %s): told, %llu of %u records "
		       "analysed\n", grow ? "grown" : "cut", threads,
		       chunks ? "shared walk" : "byte ranges", (unsigned long long)st.records, N);
	}
	gpudp_analysis_free(got);
	return rc;
}

/* Files cut and grown while read, by ranges and the shared walk: into the counts. */
static void
changes_while_read_are_seen(int *fails, int *skips)
{
	static const struct { uint32_t threads; int chunks, grow; } ch[] = {
		{ 1, 0, 0 }, { 3, 0, 0 }, { 1, 1, 0 }, { 3, 1, 0 }, { 2, 0, 1 }, { 2, 1, 1 },
	};
	size_t k;
	int rc;

	for (k = 0; k < sizeof(ch) / sizeof(ch[0]); k++) {
		rc = change_while_read_is_seen(ch[k].threads, ch[k].chunks, ch[k].grow);
		*fails += rc == 1;
		*skips += rc == 77;
	}
}

static int
bad_conf_is_refused(void)
{
	struct gpudp_cap_reader_conf fc = { .path = "x.pcap", .engine = "cpu", .threads = 0 };
	struct gpudp_analysis *a = gpudp_analysis_create(64, NULL);
	struct gpudp_cap_reader_stats st;
	char err[128];
	int rc0 = gpudp_cap_reader_run(&fc, a, &st, err, sizeof(err)), rc1, rc2;

	fc.threads = GPUDP_CAP_READER_THREADS_MAX + 1;
	rc1 = gpudp_cap_reader_run(&fc, a, &st, err, sizeof(err));
	fc.threads = 2;
	fc.chunk = 33;
	rc2 = gpudp_cap_reader_run(&fc, a, &st, err, sizeof(err));
	gpudp_analysis_free(a);
	GPUDP_TEST_ASSERT(rc0 == -EINVAL && rc1 == -EINVAL && rc2 == -EINVAL,
			  "bad configurations: %d %d %d", rc0, rc1, rc2);
	printf("ok   bad configurations refused\n");
	return 0;
}

int
main(int argc, char **argv)
{
	int i, rc, fails = 0, skips = 0;

	if (argc < 4) {
		fprintf(stderr, "usage: %s cpu|gpu PATTERNS FILE...\n", argv[0]);
		return 2;
	}
	engine = argv[1];
	pats.file = argv[2];
	if (cap_match_prepare("test_capture_file", &pats, NULL, "tcp or match", &filter) != 0)
		return 1;
	fails += bad_conf_is_refused();
	for (i = 3; i < argc; i++) {
		static const enum gpudp_cap_reader_stage stages[] = {
			GPUDP_CAP_READER_STAGE_AUTO, GPUDP_CAP_READER_STAGE_COPY,
			GPUDP_CAP_READER_STAGE_GATHER, GPUDP_CAP_READER_STAGE_READ,
		};
		uint32_t t, k;

		for (k = 0; k < sizeof(stages) / sizeof(stages[0]); k++) {
			stage = stages[k];
			if (is_pcapng(argv[i]) && stage > GPUDP_CAP_READER_STAGE_COPY)
				continue;   /* refused: below */
			for (t = 1; t <= 3; t += 2) {
				rc = direct_equals_reference(argv[i], t, 0);
				fails += rc == 1;
				skips += rc == 77;
			}
			rc = direct_equals_reference(argv[i], 3, 100);
			fails += rc == 1;
			skips += rc == 77;
			/* pcap files of records: the split joins (sample.pcapng and
			 * the header-only file take the shared walk, not counted
			 * as ranges) */
			if (!is_pcapng(argv[i]) && strstr(argv[i], "header-only") == NULL)
				for (t = 1; t <= 3; t += 2) {
					rc = ranges_equal_reference(argv[i], t, 1, 0);
					fails += rc == 1;
					skips += rc == 77;
				}
		}
		stage = GPUDP_CAP_READER_STAGE_AUTO;
		/* from a copy in memory: 1 MiB batches, and 16 KiB ones whose
		 * windows cut records */
		if (!is_pcapng(argv[i]) && strstr(argv[i], "header-only") == NULL) {
			for (t = 1; t <= 3; t += 2) {
				rc = ranges_equal_reference(argv[i], t, 1, t == 1 ? 1u << 20 : 16384);
				fails += rc == 1;
				skips += rc == 77;
			}
			rc = short_copy_is_refused(argv[i]);
			fails += rc == 1;
			if (strcmp(engine, "gpu") == 0 && strstr(argv[i], "sample.pcap") != NULL) {
				rc = unregistered_copy_is_not_read(argv[i]);
				fails += rc == 1;
				skips += rc == 77;
			}
		}
		if (is_pcapng(argv[i])) {
			rc = inplace_pcapng_is_refused(argv[i]);
			fails += rc == 1;
			skips += rc == 77;
		}
	}
	rc = fake_headers_are_caught();
	fails += rc == 1;
	skips += rc == 77;
	changes_while_read_are_seen(&fails, &skips);
	cap_match_free(&pats);
	printf("%d failed\n", fails);
	if (fails != 0)
		return 1;
	return skips != 0 ? 77 : 0;
}

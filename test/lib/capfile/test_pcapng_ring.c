/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the rotating pcapng writer (lib/capfile, gpudp_pcapng_ring.h):
 * where files start (filesize, duration by capture time), how many are kept
 * (files), their names, the plain writer's bytes without a condition, the
 * conditions' parser, and write errors: a file size limit (RLIMIT_FSIZE)
 * that cuts every file part way, a file that cannot be written (/dev/full),
 * and, with "full_disk" as the only argument, a full tmpfs in a private
 * mount namespace (root; skipped otherwise). Every file is read back by
 * lib/capfile's reader: one section, one interface, no cut block, and the
 * files together hold the packets written, in order, each once.
 * Pure C, no DPDK.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "gpudp_capfile.h"
#include "gpudp_pcapng.h"
#include "gpudp_pcapng_ring.h"
#include "gpudp_test.h"

#define T0 1795305969000000000ull   /* 2026-11-22 00:06:09 UTC */
#define MAX_PKTS 4096
#define MAX_FILES 512

/* ---- packets whose bytes say which packet they are ---- */

struct pkt {
	uint64_t ts;
	uint32_t caplen, wirelen;
};

static uint8_t data_buf[GPUDP_CAPFILE_MAX_SNAPLEN];

/* Packet @p seq's bytes: its number in the first 4 (when it has them), then a pattern. */
static const uint8_t *
pkt_data(uint32_t seq, uint32_t caplen)
{
	uint32_t i;

	for (i = 0; i < caplen; i++)
		data_buf[i] = (uint8_t)(seq * 131u + i * 7u);
	if (caplen >= 4)
		memcpy(data_buf, &seq, 4);
	return data_buf;
}

/* @p n packets, @p gap_ns (and 1 ns) apart, of lengths from 60 to 1514 bytes. */
static void
make_pkts(struct pkt *p, unsigned int n, uint64_t gap_ns)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		p[i].ts = T0 + i * gap_ns + i;
		p[i].caplen = 60 + (i * 397u) % 1455u;
		p[i].wirelen = p[i].caplen;
	}
}

/* Every packet of @p p to @p r. @return the number gpudp_pcapng_ring_write() took (0) */
static unsigned int
write_pkts(struct gpudp_pcapng_ring *r, const struct pkt *p, unsigned int n)
{
	unsigned int i, ok = 0;

	for (i = 0; i < n; i++)
		ok += gpudp_pcapng_ring_write(r, pkt_data(i, p[i].caplen), p[i].caplen,
					      p[i].wirelen, p[i].ts) == 0;
	return ok;
}

/* ---- a directory of output files ---- */

static char dir[64];      /* /tmp/gpudp-ring-XXXXXX */

static void remove_dir(void);

/* A new directory (the one of a case that failed before removing it is removed). */
static int
make_dir(void)
{
	remove_dir();
	snprintf(dir, sizeof(dir), "/tmp/gpudp-ring-XXXXXX");
	return mkdtemp(dir) != NULL ? 0 : -1;
}

static void
out_path(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
}

static int
not_dot(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

/* The files of the directory, sorted (the 5-digit index sorts them in order). */
struct listing {
	struct dirent **ent;
	int n;
};

static int
list_dir(struct listing *l)
{
	l->n = scandir(dir, &l->ent, not_dot, alphasort);
	return l->n;
}

static void
free_listing(struct listing *l)
{
	int i;

	for (i = 0; i < l->n; i++)
		free(l->ent[i]);
	free(l->ent);
	l->n = 0;
}

static void
remove_dir(void)
{
	struct listing l;
	char p[PATH_MAX + 256];
	int i;

	if (dir[0] == '\0')
		return;
	if (list_dir(&l) >= 0) {
		for (i = 0; i < l.n; i++) {
			out_path(p, sizeof(p), l.ent[i]->d_name);
			unlink(p);
		}
		free_listing(&l);
	}
	rmdir(dir);
	dir[0] = '\0';
}

/* What the files of the directory hold, read back by lib/capfile. */
struct readback {
	uint32_t seq[MAX_PKTS];     /* the packets, file after file */
	unsigned int n;
	unsigned int per_file[MAX_FILES];
	uint64_t first_ts[MAX_FILES];
	uint64_t size[MAX_FILES];
	char name[MAX_FILES][256];
	unsigned int files;
	char why[512];
};

static struct readback rb;

/*
 * Read every file of the directory: each must be a whole pcapng file of one
 * section and one Ethernet interface whose packets are the packets of
 * @p p that their first bytes name, bytes, lengths and time.
 * @return 0, or -1 with rb.why set
 */
static int
read_back(const struct pkt *p, unsigned int np)
{
	struct listing l;
	int i;

	memset(&rb, 0, sizeof(rb));
	if (list_dir(&l) < 0 || l.n > MAX_FILES) {
		snprintf(rb.why, sizeof(rb.why), "cannot list %s", dir);
		return -1;
	}
	for (i = 0; i < l.n; i++) {
		struct gpudp_capfile_info info;
		struct gpudp_capfile_rec rec;
		struct gpudp_capfile *cf;
		char path[PATH_MAX + 256], err[512];
		struct stat sb;
		int rc;

		out_path(path, sizeof(path), l.ent[i]->d_name);
		snprintf(rb.name[i], sizeof(rb.name[i]), "%s", l.ent[i]->d_name);
		rb.size[i] = stat(path, &sb) == 0 ? (uint64_t)sb.st_size : 0;
		rb.files++;
		if (gpudp_capfile_inspect(path, GPUDP_CAPFILE_MAX_SNAPLEN, &info, err,
					  sizeof(err)) != 0) {
			snprintf(rb.why, sizeof(rb.why), "%s", err);
			goto fail;
		}
		rc = info.format != GPUDP_CAPFILE_PCAPNG || info.sections != 1 ||
		     info.interfaces != 1 || info.linktype != 1 || info.truncated ||
		     info.libpcap_diff[0] != '\0';
		gpudp_capfile_info_free(&info);
		if (rc) {
			snprintf(rb.why, sizeof(rb.why), "%s: not one whole section of one Ethernet "
				 "interface", l.ent[i]->d_name);
			goto fail;
		}
		if (gpudp_capfile_open(path, 0, &cf, err, sizeof(err)) != 0) {
			snprintf(rb.why, sizeof(rb.why), "%s", err);
			goto fail;
		}
		while ((rc = gpudp_capfile_next(cf, &rec)) == 1) {
			uint32_t seq = 0;

			if (rec.caplen >= 4)
				memcpy(&seq, rec.data, 4);
			else   /* short packets are found by their time */
				for (seq = 0; seq < np && p[seq].ts != rec.ts_sec * 1000000000ull +
				     rec.ts_nsec; seq++)
					;
			if (seq >= np || rb.n >= MAX_PKTS || rec.caplen != p[seq].caplen ||
			    rec.wirelen != (p[seq].wirelen > p[seq].caplen ? p[seq].wirelen :
					    p[seq].caplen) ||
			    rec.ts_sec * 1000000000ull + rec.ts_nsec != p[seq].ts ||
			    memcmp(rec.data, pkt_data(seq, rec.caplen), rec.caplen) != 0) {
				snprintf(rb.why, sizeof(rb.why), "%s: record %" PRIu64 " is no packet "
					 "written (seq %u, %u bytes)", l.ent[i]->d_name, rec.index,
					 seq, rec.caplen);
				gpudp_capfile_close(cf);
				goto fail;
			}
			if (rb.per_file[i] == 0)
				rb.first_ts[i] = p[seq].ts;
			rb.per_file[i]++;
			rb.seq[rb.n++] = seq;
		}
		gpudp_capfile_close(cf);
		if (rc != 0) {
			snprintf(rb.why, sizeof(rb.why), "%s: read error %d", l.ent[i]->d_name, rc);
			goto fail;
		}
	}
	free_listing(&l);
	return 0;
fail:
	free_listing(&l);
	return -1;
}

/* The packets read back are 0..n-1, in order, each once. */
static int
all_in_order(unsigned int n)
{
	unsigned int i;

	if (rb.n != n)
		return 0;
	for (i = 0; i < n; i++)
		if (rb.seq[i] != i)
			return 0;
	return 1;
}

/* The packets read back are increasing: in order, none twice. */
static int
increasing(void)
{
	unsigned int i;

	for (i = 1; i < rb.n; i++)
		if (rb.seq[i] <= rb.seq[i - 1])
			return 0;
	return 1;
}

static uint64_t
epb_len(uint32_t caplen)
{
	return 32 + (((uint64_t)caplen + 3) & ~3ull);
}

/* ---- log lines ---- */

static unsigned int n_log;
static char last_log[1024];

static void
log_line(void *arg, const char *msg)
{
	(void)arg;
	n_log++;
	snprintf(last_log, sizeof(last_log), "%s", msg);
}

static struct gpudp_pcapng_ring_conf
conf_of(uint64_t kb, uint64_t secs, uint32_t files)
{
	struct gpudp_pcapng_ring_conf c = {
		.filesize_kb = kb, .duration_s = secs, .files = files,
		.appname = "test", .ifname = "port 0", .log = log_line,
	};

	n_log = 0;
	last_log[0] = '\0';
	return c;
}

static struct pkt pk[MAX_PKTS];

/* A writer of @p c for out.pcapng in the directory, its path in @p path. @return it, or NULL */
static struct gpudp_pcapng_ring *
open_out(const struct gpudp_pcapng_ring_conf *c, char *path, size_t len)
{
	out_path(path, len, "out.pcapng");
	return gpudp_pcapng_ring_open(path, c);
}

static char start_why[256];

/*
 * The start of a case: a new directory, @p n packets @p gap_ns apart in
 * pk[] (make_pkts(): the case may change them before it writes them) and
 * a writer of @p c for out.pcapng in the directory, its path in @p path.
 * @return the writer, or NULL with the reason in start_why
 */
static struct gpudp_pcapng_ring *
start_case(const struct gpudp_pcapng_ring_conf *c, unsigned int n, uint64_t gap_ns, char *path,
	   size_t len)
{
	struct gpudp_pcapng_ring *r;

	if (make_dir() != 0) {
		snprintf(start_why, sizeof(start_why), "mkdtemp: %s", strerror(errno));
		return NULL;
	}
	make_pkts(pk, n, gap_ns);
	r = open_out(c, path, len);
	if (r == NULL)
		snprintf(start_why, sizeof(start_why), "open: %s", strerror(errno));
	return r;
}

/* Flush @p r, take its stats into @p st and close it. @return gpudp_pcapng_ring_close()'s */
static int
close_out(struct gpudp_pcapng_ring *r, struct gpudp_pcapng_ring_stats *st)
{
	gpudp_pcapng_ring_flush(r);
	gpudp_pcapng_ring_stats(r, st);
	return gpudp_pcapng_ring_close(r);
}

/* ---- cases ---- */

/* Without a condition: the one file at the path, with gpudp_pcapng_open()'s bytes. */
static int
no_condition_writes_the_plain_writers_bytes_at_the_path(void)
{
	struct gpudp_pcapng_ring_conf c = conf_of(0, 0, 0);
	struct gpudp_pcapng_ring_stats st;
	struct gpudp_pcapng_ring *r;
	struct gpudp_pcapng *w;
	char a[PATH_MAX], b[PATH_MAX];
	unsigned int i, n = 300;
	FILE *fa, *fb;
	int same = 1, ca, cb;
	long size;

	GPUDP_TEST_ASSERT(make_dir() == 0, "mkdtemp");
	make_pkts(pk, n, 1000000);
	pk[7].caplen = GPUDP_CAPFILE_MAX_SNAPLEN;    /* larger than the buffer */
	pk[8].caplen = 0;
	pk[9].wirelen = 20;                          /* below caplen: raised */
	out_path(a, sizeof(a), "ring.pcapng");
	out_path(b, sizeof(b), "plain.pcapng");
	r = gpudp_pcapng_ring_open(a, &c);
	GPUDP_TEST_ASSERT(r != NULL, "open: %s", strerror(errno));
	GPUDP_TEST_ASSERT(access(a, F_OK) == 0 && gpudp_pcapng_ring_current(r) != NULL &&
			  strcmp(gpudp_pcapng_ring_current(r), a) == 0,
			  "the file is made when the writer is");
	w = gpudp_pcapng_open(b, "test", "port 0", 0);
	GPUDP_TEST_ASSERT(w != NULL, "plain open");
	GPUDP_TEST_ASSERT(write_pkts(r, pk, n) == n, "every packet taken");
	for (i = 0; i < n; i++)
		gpudp_pcapng_write(w, pkt_data(i, pk[i].caplen), pk[i].caplen, pk[i].wirelen,
				   pk[i].ts);
	GPUDP_TEST_ASSERT(close_out(r, &st) == 0 && gpudp_pcapng_close(w) == 0, "close");
	GPUDP_TEST_ASSERT(st.files == 1 && st.packets == n && st.pending == 0 && st.dropped == 0,
			  "stats: %" PRIu64 " files, %" PRIu64 " packets", st.files, st.packets);
	fa = fopen(a, "rb");
	fb = fopen(b, "rb");
	GPUDP_TEST_ASSERT(fa != NULL && fb != NULL, "reopen");
	do {
		ca = getc(fa);
		cb = getc(fb);
		same = same && ca == cb;
	} while (ca != EOF && cb != EOF);
	size = ftell(fa);
	fclose(fa);
	fclose(fb);
	GPUDP_TEST_ASSERT(same, "the bytes differ from gpudp_pcapng_open()'s");
	GPUDP_TEST_ASSERT(st.bytes == (uint64_t)size, "stats: %" PRIu64 " bytes, the file %ld",
			  st.bytes, size);
	unlink(b);
	GPUDP_TEST_ASSERT(read_back(pk, n) == 0, "%s", rb.why);
	GPUDP_TEST_ASSERT(rb.files == 1 && all_in_order(n) && n_log == 0, "read back %u of %u",
			  rb.n, n);
	remove_dir();
	return GPUDP_TEST_PASS;
}

/* The bytes of a file's section header and interface, as conf_of() makes them. */
static uint64_t
head_len(void)
{
	struct gpudp_pcapng_ring_conf c = conf_of(0, 0, 0);
	struct gpudp_pcapng_ring *r;
	char p[PATH_MAX];
	struct stat sb;

	out_path(p, sizeof(p), "head.pcapng");
	r = gpudp_pcapng_ring_open(p, &c);
	if (r == NULL || gpudp_pcapng_ring_close(r) != 0 || stat(p, &sb) != 0)
		return 0;
	unlink(p);
	return (uint64_t)sb.st_size;
}

/*
 * Where files start without errors, by the filesize and duration
 * conditions: @p start gets the first packet of each file.
 * @return the number of files
 */
static unsigned int
expected_starts(const struct pkt *p, unsigned int n, uint64_t limit, uint64_t dur_ns,
		uint64_t head, unsigned int *start)
{
	uint64_t size = 0, first = 0, npk = 0;
	unsigned int i, files = 0;

	for (i = 0; i < n; i++) {
		uint64_t len = epb_len(p[i].caplen);

		if (files == 0 || (limit != 0 && npk > 0 && size + len > limit) ||
		    (dur_ns != 0 && p[i].ts >= first && p[i].ts - first >= dur_ns)) {
			start[files++] = i;
			size = head;
			npk = 0;
			first = p[i].ts;
		}
		size += len;
		npk++;
	}
	return files;
}

static unsigned int starts[MAX_PKTS];

/* The files read back start where expected_starts() says, file @p from on. */
static int
files_start_as_expected(unsigned int n, unsigned int n_starts, unsigned int from)
{
	unsigned int i, at = 0;

	if (rb.files != n_starts - from)
		return 0;
	for (i = 0; i < rb.files; i++) {
		unsigned int end = from + i + 1 < n_starts ? starts[from + i + 1] : n;

		if (rb.per_file[i] != end - starts[from + i] || rb.seq[at] != starts[from + i])
			return 0;
		at += rb.per_file[i];
	}
	return 1;
}

/*
 * The filesize condition held: each file is within @p limit bytes, or holds
 * one packet; each but the last could not take the packet that follows it.
 */
static int
sizes_within(uint64_t limit, const struct pkt *p)
{
	unsigned int i, at = 0;

	for (i = 0; i < rb.files; i++) {
		at += rb.per_file[i];
		if (rb.size[i] > limit && rb.per_file[i] != 1)
			return 0;
		if (i + 1 < rb.files && rb.size[i] + epb_len(p[at].caplen) <= limit)
			return 0;
	}
	return 1;
}

/* The files' names are those of gpudp_pcapng_ring_name() for "out.pcapng", from index @p from. */
static int
names_as_documented(unsigned int from)
{
	char want[256];
	unsigned int i;

	for (i = 0; i < rb.files; i++)
		if (gpudp_pcapng_ring_name("out.pcapng", from + i, rb.first_ts[i], want,
					   sizeof(want)) < 0 || strcmp(want, rb.name[i]) != 0)
			return 0;
	return 1;
}

/* filesize: a new file when the next packet would pass the limit, never before. */
static int
filesize_starts_a_file_before_the_limit_would_be_passed(void)
{
	struct gpudp_pcapng_ring_conf c = conf_of(10, 0, 0);
	struct gpudp_pcapng_ring_stats st;
	struct gpudp_pcapng_ring *r;
	unsigned int n = 400, n_starts;
	uint64_t head, sum = 0;
	char p[PATH_MAX];
	unsigned int i;

	r = start_case(&c, n, 1000, p, sizeof(p));
	GPUDP_TEST_ASSERT(r != NULL, "%s", start_why);
	head = head_len();
	GPUDP_TEST_ASSERT(gpudp_pcapng_ring_current(r) == NULL && access(p, F_OK) != 0,
			  "no file before the first packet");
	GPUDP_TEST_ASSERT(write_pkts(r, pk, n) == n, "every packet taken");
	GPUDP_TEST_ASSERT(close_out(r, &st) == 0, "close");
	GPUDP_TEST_ASSERT(read_back(pk, n) == 0, "%s", rb.why);
	n_starts = expected_starts(pk, n, 10000, 0, head, starts);
	for (i = 0; i < rb.files; i++)
		sum += rb.size[i];
	GPUDP_TEST_ASSERT(all_in_order(n), "read back %u of %u, in order", rb.n, n);
	GPUDP_TEST_ASSERT(rb.files > 20 && rb.files == st.files && st.packets == n &&
			  st.bytes == sum && st.dropped == 0 && st.files_removed == 0,
			  "%u files, stats %" PRIu64 " files %" PRIu64 " packets %" PRIu64
			  " bytes (files: %" PRIu64 ")", rb.files, st.files, st.packets, st.bytes,
			  sum);
	GPUDP_TEST_ASSERT(sizes_within(10000, pk), "a file over 10000 bytes, or cut early");
	GPUDP_TEST_ASSERT(files_start_as_expected(n, n_starts, 0), "files start elsewhere "
			  "than the condition says");
	GPUDP_TEST_ASSERT(names_as_documented(1), "names: %s ...", rb.name[0]);
	remove_dir();
	return GPUDP_TEST_PASS;
}

/*
 * duration: by the packets' capture time (written in milliseconds, they
 * span 20 s); a packet earlier than its file's first starts none.
 */
static int
duration_starts_files_by_capture_time_not_the_clock(void)
{
	struct gpudp_pcapng_ring_conf c = conf_of(0, 1, 0);
	struct gpudp_pcapng_ring_stats st;
	struct gpudp_pcapng_ring *r;
	unsigned int n = 200, n_starts;
	char p[PATH_MAX];

	r = start_case(&c, n, 100000000, p, sizeof(p));  /* 0.1 s apart */
	GPUDP_TEST_ASSERT(r != NULL, "%s", start_why);
	pk[57].ts = pk[50].ts - 300000000;   /* before its file's first packet */
	GPUDP_TEST_ASSERT(write_pkts(r, pk, n) == n, "every packet taken");
	gpudp_pcapng_ring_stats(r, &st);
	GPUDP_TEST_ASSERT(gpudp_pcapng_ring_close(r) == 0, "close");
	GPUDP_TEST_ASSERT(read_back(pk, n) == 0, "%s", rb.why);
	n_starts = expected_starts(pk, n, 0, 1000000000, 0, starts);
	GPUDP_TEST_ASSERT(all_in_order(n), "read back %u of %u, in order", rb.n, n);
	GPUDP_TEST_ASSERT(n_starts == 20 && st.files == 20, "%u files expected, %" PRIu64
			  " made", n_starts, st.files);
	GPUDP_TEST_ASSERT(files_start_as_expected(n, n_starts, 0), "files start elsewhere "
			  "than the capture times say");
	GPUDP_TEST_ASSERT(rb.per_file[5] == 10 && rb.seq[57] == 57, "the early packet stays "
			  "in its file (%u packets in file 6)", rb.per_file[5]);
	GPUDP_TEST_ASSERT(names_as_documented(1), "names: %s ...", rb.name[0]);
	remove_dir();
	return GPUDP_TEST_PASS;
}

/* files: the newest N files stay, the oldest are deleted as new ones start. */
static int
files_keeps_the_newest_and_deletes_the_oldest(void)
{
	struct gpudp_pcapng_ring_conf c = conf_of(0, 1, 3);
	struct gpudp_pcapng_ring_stats st;
	struct gpudp_pcapng_ring *r;
	unsigned int n = 100, n_starts, i;
	char p[PATH_MAX];

	r = start_case(&c, n, 250000000, p, sizeof(p));  /* 25 s */
	GPUDP_TEST_ASSERT(r != NULL, "%s", start_why);
	for (i = 0; i < n; i++) {
		struct listing l;

		gpudp_pcapng_ring_write(r, pkt_data(i, pk[i].caplen), pk[i].caplen,
					pk[i].wirelen, pk[i].ts);
		GPUDP_TEST_ASSERT(list_dir(&l) >= 0 && l.n <= 3, "%d files after packet %u",
				  l.n, i);
		free_listing(&l);
	}
	GPUDP_TEST_ASSERT(close_out(r, &st) == 0, "close");
	n_starts = expected_starts(pk, n, 0, 1000000000, 0, starts);
	GPUDP_TEST_ASSERT(n_starts == 25 && st.files == 25 && st.files_removed == 22 &&
			  st.packets == n, "%" PRIu64 " files made, %" PRIu64 " removed",
			  st.files, st.files_removed);
	GPUDP_TEST_ASSERT(read_back(pk, n) == 0, "%s", rb.why);
	GPUDP_TEST_ASSERT(files_start_as_expected(n, n_starts, 22), "the files kept are not "
			  "the last three (%u files, first %s)", rb.files, rb.name[0]);
	GPUDP_TEST_ASSERT(names_as_documented(23), "names: %s ...", rb.name[0]);
	remove_dir();
	return GPUDP_TEST_PASS;
}

/* Names: <stem>_<index, 5 digits at least>_<UTC time of the first packet><ext>. */
static int
names_are_the_stem_the_index_and_the_utc_time_of_the_first_packet(void)
{
	static const struct { const char *path; uint64_t index, ts; const char *want; } t[] = {
		{ "out/http.pcapng", 1, T0, "out/http_00001_20261122000609.pcapng" },
		{ "http", 2, T0 + 999999999, "http_00002_20261122000609.pcapng" },
		{ "a.d/capture", 3, T0, "a.d/capture_00003_20261122000609.pcapng" },
		{ "x/.hidden", 4, T0, "x/.hidden_00004_20261122000609.pcapng" },
		{ "f.pcap", 123456, T0 + 25 * 3600 * 1000000000ull,
		  "f_123456_20261123010609.pcap" },
		{ "/abs/y.z.pcapng", 99999, 0, "/abs/y.z_99999_19700101000000.pcapng" },
	};
	char buf[128];
	unsigned int i;
	int n;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		n = gpudp_pcapng_ring_name(t[i].path, t[i].index, t[i].ts, buf, sizeof(buf));
		GPUDP_TEST_ASSERT(n == (int)strlen(t[i].want) && strcmp(buf, t[i].want) == 0,
				  "%s: '%s' (%d), expected '%s'", t[i].path, buf, n, t[i].want);
	}
	n = gpudp_pcapng_ring_name("out/http.pcapng", 1, T0, buf, 36);
	GPUDP_TEST_ASSERT(n == -ENAMETOOLONG && buf[0] == '\0', "a name one byte too long: %d",
			  n);
	GPUDP_TEST_ASSERT(gpudp_pcapng_ring_name("out/http.pcapng", 1, T0, buf, 37) == 36,
			  "a name that just fits");
	GPUDP_TEST_ASSERT(gpudp_pcapng_ring_name("", 1, T0, buf, sizeof(buf)) == -EINVAL &&
			  gpudp_pcapng_ring_name(NULL, 1, T0, buf, sizeof(buf)) == -EINVAL,
			  "an empty path");
	return GPUDP_TEST_PASS;
}

/*
 * Every file reads back whole and the files together are the input, with
 * both conditions, packets larger than the buffer (262144 bytes) and than
 * the filesize limit, empty ones, snapped ones, and original lengths below
 * the captured ones (raised, as the plain writer does).
 */
static int
every_file_reads_back_and_together_they_are_the_input(void)
{
	struct gpudp_pcapng_ring_conf c = conf_of(50, 2, 0);
	struct gpudp_pcapng_ring_stats st;
	struct gpudp_pcapng_ring *r;
	unsigned int n = 1000, n_starts, i;
	uint64_t sum = 0;
	char p[PATH_MAX];

	r = start_case(&c, n, 10000000, p, sizeof(p));  /* 10 s */
	GPUDP_TEST_ASSERT(r != NULL, "%s", start_why);
	for (i = 0; i < n; i++) {
		if (i % 97 == 13)
			pk[i].caplen = GPUDP_CAPFILE_MAX_SNAPLEN;
		else if (i % 101 == 7)
			pk[i].caplen = i % 4;
		if (i % 5 == 1)
			pk[i].wirelen = pk[i].caplen + 1000;
		else if (i % 7 == 2)
			pk[i].wirelen = pk[i].caplen / 2;
	}
	GPUDP_TEST_ASSERT(write_pkts(r, pk, n) == n, "every packet taken");
	gpudp_pcapng_ring_stats(r, &st);
	GPUDP_TEST_ASSERT(st.pending > 0 && st.packets + st.pending == n, "before the flush: %"
			  PRIu64 " written, %" PRIu64 " pending", st.packets, st.pending);
	GPUDP_TEST_ASSERT(gpudp_pcapng_ring_flush(r) == 0, "flush");
	gpudp_pcapng_ring_stats(r, &st);
	GPUDP_TEST_ASSERT(gpudp_pcapng_ring_close(r) == 0, "close");
	GPUDP_TEST_ASSERT(read_back(pk, n) == 0, "%s", rb.why);
	for (i = 0; i < rb.files; i++)
		sum += rb.size[i];
	n_starts = expected_starts(pk, n, 50000, 2000000000, head_len(), starts);
	GPUDP_TEST_ASSERT(all_in_order(n), "read back %u of %u, in order", rb.n, n);
	GPUDP_TEST_ASSERT(files_start_as_expected(n, n_starts, 0) && sizes_within(50000, pk),
			  "files start elsewhere than the conditions say");
	GPUDP_TEST_ASSERT(st.files == rb.files && st.packets == n && st.pending == 0 &&
			  st.dropped == 0 && st.bytes == sum && n_log == 0,
			  "stats: %" PRIu64 " files, %" PRIu64 " packets, %" PRIu64 " bytes",
			  st.files, st.packets, st.bytes);
	remove_dir();
	return GPUDP_TEST_PASS;
}

/* A packet larger than the filesize limit is a file of its own, between whole files. */
static int
a_packet_larger_than_the_limit_has_a_file_of_its_own(void)
{
	struct gpudp_pcapng_ring_conf c = conf_of(1, 0, 0);
	struct gpudp_pcapng_ring *r;
	unsigned int n = 13, i, at = 0;
	char p[PATH_MAX];

	r = start_case(&c, n, 1000, p, sizeof(p));
	GPUDP_TEST_ASSERT(r != NULL, "%s", start_why);
	for (i = 0; i < n; i++)
		pk[i].caplen = pk[i].wirelen = (i == 5 || i == 11 || i == 12) ? 1500 : 60;
	GPUDP_TEST_ASSERT(write_pkts(r, pk, n) == n, "every packet taken");
	GPUDP_TEST_ASSERT(gpudp_pcapng_ring_close(r) == 0, "close");
	GPUDP_TEST_ASSERT(read_back(pk, n) == 0, "%s", rb.why);
	GPUDP_TEST_ASSERT(all_in_order(n) && sizes_within(1000, pk), "read back %u", rb.n);
	for (i = 0; i < rb.files; i++) {
		uint32_t s = rb.seq[at];

		GPUDP_TEST_ASSERT(pk[s].caplen != 1500 || rb.per_file[i] == 1,
				  "packet %u of 1500 bytes shares file %u", s, i + 1);
		at += rb.per_file[i];
	}
	GPUDP_TEST_ASSERT(rb.files == 5, "%u files, expected 5: 0-4, 5, 6-10, 11, 12", rb.files);
	remove_dir();
	return GPUDP_TEST_PASS;
}

/* With a condition, files come with packets: none, none. */
static int
no_packet_no_file(void)
{
	struct gpudp_pcapng_ring_conf c = conf_of(1, 1, 2);
	struct gpudp_pcapng_ring_stats st;
	struct gpudp_pcapng_ring *r;
	struct listing l;
	char p[PATH_MAX];

	r = start_case(&c, 0, 0, p, sizeof(p));
	GPUDP_TEST_ASSERT(r != NULL, "%s", start_why);
	GPUDP_TEST_ASSERT(gpudp_pcapng_ring_flush(r) == 0, "flush");
	gpudp_pcapng_ring_stats(r, &st);
	GPUDP_TEST_ASSERT(gpudp_pcapng_ring_close(r) == 0, "close");
	GPUDP_TEST_ASSERT(list_dir(&l) == 0 && st.files == 0 && st.bytes == 0, "%d files", l.n);
	free_listing(&l);
	remove_dir();
	return GPUDP_TEST_PASS;
}

/* What gpudp_pcapng_ring_open() and _write() refuse, with their errno. */
static int
bad_configurations_and_packets_are_refused(void)
{
	struct gpudp_pcapng_ring_conf c;
	struct gpudp_pcapng_ring_stats st;
	struct gpudp_pcapng_ring *r;
	char p[PATH_MAX];

	GPUDP_TEST_ASSERT(make_dir() == 0, "mkdtemp");
	out_path(p, sizeof(p), "out.pcapng");
	c = conf_of(0, 0, 3);
	errno = 0;
	GPUDP_TEST_ASSERT(gpudp_pcapng_ring_open(p, &c) == NULL && errno == EINVAL,
			  "files without filesize or duration");
	c = conf_of(GPUDP_PCAPNG_RING_MAX_KB + 1, 0, 0);
	GPUDP_TEST_ASSERT(gpudp_pcapng_ring_open(p, &c) == NULL && errno == EINVAL,
			  "filesize above its maximum");
	c = conf_of(0, GPUDP_PCAPNG_RING_MAX_S + 1, 0);
	GPUDP_TEST_ASSERT(gpudp_pcapng_ring_open(p, &c) == NULL && errno == EINVAL,
			  "duration above its maximum");
	c = conf_of(0, 1, GPUDP_PCAPNG_RING_MAX_FILES + 1);
	GPUDP_TEST_ASSERT(gpudp_pcapng_ring_open(p, &c) == NULL && errno == EINVAL,
			  "files above its maximum");
	GPUDP_TEST_ASSERT(gpudp_pcapng_ring_open("", NULL) == NULL && errno == EINVAL &&
			  gpudp_pcapng_ring_open(NULL, NULL) == NULL && errno == EINVAL,
			  "no path");
	c = conf_of(1, 0, 0);
	GPUDP_TEST_ASSERT(gpudp_pcapng_ring_open("/nonexistent-gpudp-dir/x.pcapng", &c) == NULL &&
			  errno == ENOENT, "rotating into a missing directory: %s",
			  strerror(errno));
	GPUDP_TEST_ASSERT(gpudp_pcapng_ring_open("/nonexistent-gpudp-dir/x.pcapng", NULL) ==
			  NULL && errno == ENOENT, "one file in a missing directory: %s",
			  strerror(errno));
	snprintf(p, sizeof(p), "%s/", dir);
	GPUDP_TEST_ASSERT(gpudp_pcapng_ring_open(p, &c) == NULL && errno == EISDIR,
			  "a directory as the name: %s", strerror(errno));
	r = open_out(&c, p, sizeof(p));
	GPUDP_TEST_ASSERT(r != NULL, "open: %s", strerror(errno));
	GPUDP_TEST_ASSERT(gpudp_pcapng_ring_write(r, data_buf, GPUDP_PCAPNG_RING_MAX_CAPLEN + 1,
						  0, T0) == -EINVAL &&
			  gpudp_pcapng_ring_write(r, NULL, 10, 10, T0) == -EINVAL,
			  "a packet too large, or without data");
	GPUDP_TEST_ASSERT(gpudp_pcapng_ring_write(r, NULL, 0, 0, T0) == 0, "an empty packet");
	gpudp_pcapng_ring_stats(r, &st);
	GPUDP_TEST_ASSERT(st.pending == 1 && st.dropped == 0 && st.files == 1,
			  "refused packets are not counted");
	GPUDP_TEST_ASSERT(gpudp_pcapng_ring_close(r) == 0, "close");
	GPUDP_TEST_ASSERT(gpudp_pcapng_ring_close(NULL) == 0, "close(NULL)");
	remove_dir();
	return GPUDP_TEST_PASS;
}

/* dumpcap's conditions parsed; each bad one named with its value, @p conf left alone. */
static int
conditions_parse_as_dumpcaps_and_a_bad_one_is_named(void)
{
	static const struct { const char *spec; uint64_t kb, s; uint32_t files; } good[] = {
		{ "filesize:1000", 1000, 0, 0 },
		{ "duration:60,files:10", 0, 60, 10 },
		{ "files:2,filesize:5,duration:7", 5, 7, 2 },
		{ "filesize:18446744073709551", GPUDP_PCAPNG_RING_MAX_KB, 0, 0 },
		{ "duration:1,files:100000", 0, 1, 100000 },
	};
	static const struct { const char *spec, *why; } bad[] = {
		{ "", "expected filesize:KB, duration:SEC or files:N" },
		{ "filesize:0", "filesize:0: expected an integer 1..18446744073709551 (kB" },
		{ "filesize:", "filesize:: expected an integer" },
		{ "filesize:-1", "filesize:-1: expected an integer" },
		{ "filesize:+1", "filesize:+1: expected an integer" },
		{ "filesize: 1", "filesize: 1: expected an integer" },
		{ "filesize:1k", "filesize:1k: expected an integer" },
		{ "filesize:18446744073709552", "filesize:18446744073709552: expected" },
		{ "filesize:99999999999999999999999", "filesize:99999999999999999999999: expected" },
		{ "duration:x", "duration:x: expected an integer 1..18446744073 (seconds)" },
		{ "duration:1.5", "duration:1.5: expected an integer" },
		{ "files:100001,duration:1", "files:100001: expected an integer 1..100000" },
		{ "files:3", "files:3 needs filesize:KB or duration:SEC" },
		{ "size:10", "size:10: unknown condition" },
		{ "filesize", "filesize: unknown condition" },
		{ "Filesize:1", "Filesize:1: unknown condition" },
		{ "filesize:1,filesize:2", "filesize:2: filesize given twice" },
		{ "filesize:1,", "an empty condition" },
		{ ",filesize:1", "an empty condition" },
	};
	struct gpudp_pcapng_ring_conf c;
	char err[256];
	unsigned int i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		c = conf_of(9, 9, 9);
		GPUDP_TEST_ASSERT(gpudp_pcapng_ring_parse(good[i].spec, &c, err, sizeof(err)) == 0,
				  "'%s' refused: %s", good[i].spec, err);
		GPUDP_TEST_ASSERT(c.filesize_kb == good[i].kb && c.duration_s == good[i].s &&
				  c.files == good[i].files && strcmp(c.appname, "test") == 0,
				  "'%s': %" PRIu64 ", %" PRIu64 ", %u", good[i].spec, c.filesize_kb,
				  c.duration_s, c.files);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		c = conf_of(9, 9, 9);
		err[0] = '\0';
		GPUDP_TEST_ASSERT(gpudp_pcapng_ring_parse(bad[i].spec, &c, err, sizeof(err)) ==
				  -EINVAL && strstr(err, bad[i].why) != NULL,
				  "'%s': '%s', expected '%s'", bad[i].spec, err, bad[i].why);
		GPUDP_TEST_ASSERT(c.filesize_kb == 9 && c.duration_s == 9 && c.files == 9,
				  "'%s' changed the conditions", bad[i].spec);
	}
	GPUDP_TEST_ASSERT(gpudp_pcapng_ring_parse("files:3", &c, err, 8) == -EINVAL &&
			  strlen(err) == 7, "a short message buffer");
	return GPUDP_TEST_PASS;
}

/* ---- write errors ---- */

/*
 * A file that cannot be written (a link to /dev/full in the place of file
 * 2): said once, removed, its packets dropped; file 3 made as if it had
 * been written.
 */
static int
unwritable_file_drops_its_packets_and_the_next_file_is_tried(void)
{
	struct gpudp_pcapng_ring_conf c = conf_of(0, 1, 0);
	struct gpudp_pcapng_ring_stats st;
	struct gpudp_pcapng_ring *r;
	unsigned int n = 50, i, taken;
	char p[PATH_MAX], second[PATH_MAX];
	int rc;

	GPUDP_TEST_SKIP_IF(access("/dev/full", W_OK) != 0, "no /dev/full");
	r = start_case(&c, n, 100000000, p, sizeof(p));  /* files of 10 packets */
	GPUDP_TEST_ASSERT(r != NULL, "%s", start_why);
	GPUDP_TEST_ASSERT(gpudp_pcapng_ring_name(p, 2, pk[10].ts, second, sizeof(second)) > 0 &&
			  symlink("/dev/full", second) == 0, "link: %s", strerror(errno));
	taken = write_pkts(r, pk, n);
	rc = close_out(r, &st);
	GPUDP_TEST_ASSERT(taken == 40 && rc == -ENOSPC, "%u packets taken, close %d", taken, rc);
	GPUDP_TEST_ASSERT(st.files == 4 && st.failed_files == 1 && st.dropped == 10 &&
			  st.packets == 40 && st.last_error == ENOSPC,
			  "stats: %" PRIu64 " files, %" PRIu64 " failed, %" PRIu64 " dropped",
			  st.files, st.failed_files, st.dropped);
	GPUDP_TEST_ASSERT(n_log == 1 && strstr(last_log, second) != NULL &&
			  strstr(last_log, strerror(ENOSPC)) != NULL &&
			  strstr(last_log, "next rotation") != NULL, "%u lines: %s", n_log,
			  last_log);
	GPUDP_TEST_ASSERT(read_back(pk, n) == 0, "%s", rb.why);
	GPUDP_TEST_ASSERT(rb.files == 4 && rb.n == 40 && increasing(), "%u files, %u packets",
			  rb.files, rb.n);
	for (i = 0; i < rb.n; i++)
		GPUDP_TEST_ASSERT(rb.seq[i] == (i < 10 ? i : i + 10), "packet %u is %u", i,
				  rb.seq[i]);
	remove_dir();
	return GPUDP_TEST_PASS;
}

static struct rlimit old_fsize;

/* Writes past @p bytes of a file fail (EFBIG; SIGXFSZ ignored). @return 0 or -1 */
static int
limit_file_size(rlim_t bytes)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_FSIZE, &old_fsize) != 0)
		return -1;
	rl = old_fsize;
	rl.rlim_cur = bytes;
	signal(SIGXFSZ, SIG_IGN);
	return setrlimit(RLIMIT_FSIZE, &rl);
}

static void
unlimit_file_size(void)
{
	setrlimit(RLIMIT_FSIZE, &old_fsize);
	signal(SIGXFSZ, SIG_DFL);
}

/*
 * Every file cut by a file size limit part way: each stays whole (cut back
 * to its last whole block), the error said once a file, the lost packets
 * counted, and files start where they would without errors.
 */
static int
file_size_limit_cuts_each_file_at_a_whole_block(void)
{
	struct gpudp_pcapng_ring_conf c = conf_of(20, 0, 0);
	struct gpudp_pcapng_ring_stats st;
	struct gpudp_pcapng_ring *r;
	unsigned int n = 400, n_starts, i, at = 0, n_whole = 0;
	uint64_t head;
	char p[PATH_MAX];
	int rc;

	r = start_case(&c, n, 1000, p, sizeof(p));
	GPUDP_TEST_ASSERT(r != NULL, "%s", start_why);
	head = head_len();
	GPUDP_TEST_SKIP_IF(limit_file_size(6000) != 0, "setrlimit: %s", strerror(errno));
	write_pkts(r, pk, n);
	rc = close_out(r, &st);
	unlimit_file_size();
	n_starts = expected_starts(pk, n, 20000, 0, head, starts);
	GPUDP_TEST_ASSERT(rc == -EFBIG && st.files == n_starts && st.failed_files > 0 &&
			  n_log == st.failed_files && strstr(last_log, strerror(EFBIG)) != NULL,
			  "close %d; %" PRIu64 " files, %u expected, %" PRIu64 " failed, %u lines: %s",
			  rc, st.files, n_starts, st.failed_files, n_log, last_log);
	GPUDP_TEST_ASSERT(st.packets + st.dropped == n && st.dropped > n / 2 && st.pending == 0,
			  "%" PRIu64 " written, %" PRIu64 " dropped", st.packets, st.dropped);
	GPUDP_TEST_ASSERT(read_back(pk, n) == 0, "%s", rb.why);
	GPUDP_TEST_ASSERT(rb.files == n_starts && rb.n == st.packets && increasing(),
			  "%u files, %u packets read back", rb.files, rb.n);
	/* each file starts where it would without errors; it is whole within
	 * the limit, or cut back to the last block the limit left whole */
	for (i = 0; i < rb.files; i++) {
		unsigned int end = i + 1 < n_starts ? starts[i + 1] : n;
		int whole = rb.per_file[i] == end - starts[i];

		GPUDP_TEST_ASSERT(rb.seq[at] == starts[i] && rb.size[i] <= 6000 &&
				  (whole || rb.size[i] + epb_len(pk[starts[i] +
				   rb.per_file[i]].caplen) > 6000),
				  "file %u: %" PRIu64 " bytes, %u packets from %u", i + 1, rb.size[i],
				  rb.per_file[i], rb.seq[at]);
		n_whole += whole;
		at += rb.per_file[i];
	}
	GPUDP_TEST_ASSERT(n_whole + st.failed_files == n_starts, "%u whole files, %" PRIu64
			  " failed, %u in all", n_whole, st.failed_files, n_starts);
	remove_dir();
	return GPUDP_TEST_PASS;
}

/* Without a condition, an error ends the writing: every later packet dropped, said once. */
static int
write_error_without_rotation_drops_every_later_packet_said_once(void)
{
	struct gpudp_pcapng_ring_conf c = conf_of(0, 0, 0);
	struct gpudp_pcapng_ring_stats st;
	struct gpudp_pcapng_ring *r;
	unsigned int n = 600, taken;
	char p[PATH_MAX];
	int rc;

	r = start_case(&c, n, 1000, p, sizeof(p));
	GPUDP_TEST_ASSERT(r != NULL, "%s", start_why);
	GPUDP_TEST_SKIP_IF(limit_file_size(100000) != 0, "setrlimit: %s", strerror(errno));
	taken = write_pkts(r, pk, n);
	gpudp_pcapng_ring_stats(r, &st);
	rc = gpudp_pcapng_ring_close(r);
	unlimit_file_size();
	GPUDP_TEST_ASSERT(rc == -EFBIG && n_log == 1 && strstr(last_log, "no more packets are "
			  "written") != NULL && strstr(last_log, p) != NULL, "close %d, %u lines: %s",
			  rc, n_log, last_log);
	GPUDP_TEST_ASSERT(st.files == 1 && st.failed_files == 1 && st.packets + st.dropped == n &&
			  taken < n && st.packets > 0 && st.packets < taken,
			  "%u taken, %" PRIu64 " written, %" PRIu64 " dropped", taken, st.packets,
			  st.dropped);
	GPUDP_TEST_ASSERT(read_back(pk, n) == 0, "%s", rb.why);
	GPUDP_TEST_ASSERT(rb.files == 1 && all_in_order((unsigned int)st.packets) &&
			  rb.size[0] <= 100000, "%u packets read back, %" PRIu64 " bytes", rb.n,
			  rb.size[0]);
	remove_dir();
	return GPUDP_TEST_PASS;
}

/*
 * A full disk (a 48 KiB tmpfs in a private mount namespace): files cut
 * back to whole blocks or removed, the losses counted and said once a
 * file; once files are deleted, the next rotation writes again.
 */
static int
full_disk_keeps_files_whole_and_writing_resumes_once_space_is_freed(void)
{
	struct gpudp_pcapng_ring_conf c = conf_of(20, 0, 0);
	struct gpudp_pcapng_ring_stats st;
	struct gpudp_pcapng_ring *r;
	unsigned int n = 600, i, files_full, whole_after = 0;
	char p[PATH_MAX + 256];
	struct listing l;
	int rc;

	GPUDP_TEST_SKIP_IF(geteuid() != 0, "needs root (a tmpfs in a private mount namespace)");
	GPUDP_TEST_SKIP_IF(unshare(CLONE_NEWNS) != 0, "unshare(CLONE_NEWNS): %s", strerror(errno));
	GPUDP_TEST_SKIP_IF(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0,
			   "mount --make-rprivate /: %s", strerror(errno));
	GPUDP_TEST_ASSERT(make_dir() == 0, "mkdtemp");
	if (mount("gpudp-test", dir, "tmpfs", MS_NOSUID | MS_NODEV, "size=48k,mode=0700") != 0) {
		rmdir(dir);
		GPUDP_TEST_SKIP_IF(1, "mount tmpfs: %s", strerror(errno));
	}
	make_pkts(pk, n, 1000);
	for (i = 0; i < n; i++)
		pk[i].caplen = pk[i].wirelen = 1000;    /* 19 packets a file */
	r = open_out(&c, p, sizeof(p));
	GPUDP_TEST_ASSERT(r != NULL, "open: %s", strerror(errno));
	/* until two files failed: one cut part way, one that could not start */
	for (i = 0; i < n; i++) {
		gpudp_pcapng_ring_write(r, pkt_data(i, pk[i].caplen), pk[i].caplen, pk[i].wirelen,
					pk[i].ts);
		gpudp_pcapng_ring_stats(r, &st);
		if (st.failed_files >= 2)
			break;
	}
	GPUDP_TEST_ASSERT(st.failed_files >= 2 && st.last_error == ENOSPC && i < n / 2,
			  "the disk never filled (%u packets, %" PRIu64 " failed files)", i,
			  st.failed_files);
	files_full = (unsigned int)st.files;
	/* space freed: the two oldest files deleted */
	GPUDP_TEST_ASSERT(list_dir(&l) >= 2, "list");
	for (rc = 0; rc < 2; rc++) {
		out_path(p, sizeof(p), l.ent[rc]->d_name);
		unlink(p);
	}
	free_listing(&l);
	for (i++; i < n; i++)
		gpudp_pcapng_ring_write(r, pkt_data(i, pk[i].caplen), pk[i].caplen, pk[i].wirelen,
					pk[i].ts);
	rc = close_out(r, &st);
	GPUDP_TEST_ASSERT(rc == -ENOSPC && st.packets + st.dropped == n && st.dropped > 0 &&
			  n_log == st.failed_files, "close %d, %" PRIu64 " written, %" PRIu64
			  " dropped, %" PRIu64 " failed files, %u lines", rc, st.packets, st.dropped,
			  st.failed_files, n_log);
	GPUDP_TEST_ASSERT(read_back(pk, n) == 0, "%s", rb.why);
	GPUDP_TEST_ASSERT(increasing() && rb.n + 2 * 19 == st.packets,
			  "%u packets read back, %" PRIu64 " written (two files of 19 deleted)",
			  rb.n, st.packets);
	/* the whole files before the disk filled are deleted: a whole one is of later */
	for (i = 0; i < rb.files; i++)
		whole_after += rb.per_file[i] == 19;
	GPUDP_TEST_ASSERT(st.files > files_full && whole_after > 0, "no whole file after the "
			  "space was freed (%" PRIu64 " files, %u before)", st.files, files_full);
	snprintf(p, sizeof(p), "%s", dir);
	remove_dir();        /* the files; the directory is the mount point */
	umount2(p, MNT_DETACH);
	rmdir(p);
	return GPUDP_TEST_PASS;
}

/*
 * A device that refuses the header (a node like /dev/full, made in the
 * case's directory: root only) is refused and stays: only a file the
 * writer made (or a link) is removed after a failed header.
 */
static int
a_device_that_refuses_the_header_is_not_removed(void)
{
	struct gpudp_pcapng_ring_conf c = conf_of(0, 0, 0);
	struct gpudp_pcapng_ring *r;
	char dev[PATH_MAX];
	struct stat st;

	GPUDP_TEST_ASSERT(make_dir() == 0, "mkdtemp");
	out_path(dev, sizeof(dev), "full");
	GPUDP_TEST_SKIP_IF(mknod(dev, S_IFCHR | 0666, makedev(1, 7)) != 0,
			   "cannot make a device node (not root): %s", strerror(errno));
	r = gpudp_pcapng_ring_open(dev, &c);
	GPUDP_TEST_ASSERT(r == NULL, "a writer over a full device");
	GPUDP_TEST_ASSERT(lstat(dev, &st) == 0 && S_ISCHR(st.st_mode), "the device was removed");
	unlink(dev);
	return GPUDP_TEST_PASS;
}

static const struct gpudp_test_case cases[] = {
	{ "no_condition_writes_the_plain_writers_bytes_at_the_path",
	  no_condition_writes_the_plain_writers_bytes_at_the_path },
	{ "filesize_starts_a_file_before_the_limit_would_be_passed",
	  filesize_starts_a_file_before_the_limit_would_be_passed },
	{ "duration_starts_files_by_capture_time_not_the_clock",
	  duration_starts_files_by_capture_time_not_the_clock },
	{ "files_keeps_the_newest_and_deletes_the_oldest",
	  files_keeps_the_newest_and_deletes_the_oldest },
	{ "names_are_the_stem_the_index_and_the_utc_time_of_the_first_packet",
	  names_are_the_stem_the_index_and_the_utc_time_of_the_first_packet },
	{ "every_file_reads_back_and_together_they_are_the_input",
	  every_file_reads_back_and_together_they_are_the_input },
	{ "a_packet_larger_than_the_limit_has_a_file_of_its_own",
	  a_packet_larger_than_the_limit_has_a_file_of_its_own },
	{ "no_packet_no_file", no_packet_no_file },
	{ "bad_configurations_and_packets_are_refused",
	  bad_configurations_and_packets_are_refused },
	{ "conditions_parse_as_dumpcaps_and_a_bad_one_is_named",
	  conditions_parse_as_dumpcaps_and_a_bad_one_is_named },
	{ "unwritable_file_drops_its_packets_and_the_next_file_is_tried",
	  unwritable_file_drops_its_packets_and_the_next_file_is_tried },
	{ "file_size_limit_cuts_each_file_at_a_whole_block",
	  file_size_limit_cuts_each_file_at_a_whole_block },
	{ "write_error_without_rotation_drops_every_later_packet_said_once",
	  write_error_without_rotation_drops_every_later_packet_said_once },
	{ "a_device_that_refuses_the_header_is_not_removed",
	  a_device_that_refuses_the_header_is_not_removed },
	{ NULL, NULL },
};

/* "full_disk": the cases that mount a tmpfs (root), run on their own */
static const struct gpudp_test_case full_disk_cases[] = {
	{ "full_disk_keeps_files_whole_and_writing_resumes_once_space_is_freed",
	  full_disk_keeps_files_whole_and_writing_resumes_once_space_is_freed },
	{ NULL, NULL },
};

int
main(int argc, char **argv)
{
	int rc;

	if (argc == 2 && strcmp(argv[1], "full_disk") == 0)
		rc = gpudp_test_run("pcapng_ring", full_disk_cases, 1, argv);
	else
		rc = gpudp_test_run("pcapng_ring", cases, argc, argv);
	remove_dir();
	return rc;
}

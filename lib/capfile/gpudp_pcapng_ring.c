/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rotating pcapng writer (gpudp_pcapng_ring.h): dumpcap's ring buffer over
 * the blocks of gpudp_pcapng_pvt.h.
 *
 * Each file is followed twice: as it would be without errors (size,
 * packets, first timestamp: what the conditions look at, so that errors
 * never move a rotation) and as it is (off: its bytes on disk). Packets
 * are gathered in a buffer of whole blocks; when a write of it fails part
 * way, the blocks that reached the file whole are kept, the file is cut
 * back to them (ftruncate) and closed, and the rest are dropped.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpudp_pcapng_pvt.h"
#include "gpudp_pcapng_ring.h"

#define NS_PER_S UINT64_C(1000000000)

struct gpudp_pcapng_ring {
	char *path;
	int rotates;
	uint64_t limit_bytes;     /* filesize condition in bytes, 0: off */
	uint64_t duration_ns;     /* duration condition in ns, 0: off */
	uint32_t files;           /* files condition, 0: off */
	gpudp_pcapng_ring_log_t log;
	void *log_arg;
	uint8_t head[PCAPNG_HEAD_MAX];
	size_t head_len;
	/* the current file, as the conditions see it */
	int started;              /* a file is current */
	uint64_t index;           /* its number, from 1 */
	uint64_t first_ts;        /* its first packet's time */
	uint64_t size;            /* its bytes, as if every write succeeded */
	uint64_t npkts;           /* its packets, likewise */
	/* ... and as it is */
	int fd;                   /* -1: none open (not started, or failed) */
	uint64_t off;             /* bytes in it */
	char name[PATH_MAX];
	/* whole blocks waiting to be written */
	uint8_t *buf;
	size_t buf_n;
	uint64_t buf_pkts;
	uint64_t *ring_ts;        /* files condition: first times of the last files,
				   * by index % files (to name the one to delete) */
	struct gpudp_pcapng_ring_stats st;
};

/* ---- names ---- */

/* @p path as <stem><ext>: the length of the stem and the extension. */
static void
split_name(const char *path, size_t *stem_len, const char **ext)
{
	const char *comp = strrchr(path, '/');
	const char *dot;

	comp = comp != NULL ? comp + 1 : path;
	dot = strrchr(comp, '.');
	if (dot != NULL && dot != comp) {
		*stem_len = (size_t)(dot - path);
		*ext = dot;
	} else {
		*stem_len = strlen(path);
		*ext = ".pcapng";
	}
}

int
gpudp_pcapng_ring_name(const char *path, uint64_t index, uint64_t ts_ns, char *buf, size_t len)
{
	time_t t = (time_t)(ts_ns / NS_PER_S);
	const char *ext;
	char when[32];
	size_t stem;
	struct tm tm;
	int n;

	if (path == NULL || path[0] == '\0' || buf == NULL || len == 0)
		return -EINVAL;
	split_name(path, &stem, &ext);
	if (gmtime_r(&t, &tm) == NULL || strftime(when, sizeof(when), "%Y%m%d%H%M%S", &tm) == 0)
		snprintf(when, sizeof(when), "%" PRIu64, ts_ns / NS_PER_S);
	n = snprintf(buf, len, "%.*s_%05" PRIu64 "_%s%s", (int)stem, path, index, when, ext);
	if (n < 0 || (size_t)n >= len) {
		buf[0] = '\0';
		return -ENAMETOOLONG;
	}
	return n;
}

/* ---- conditions ---- */

int
gpudp_pcapng_ring_rotates(const struct gpudp_pcapng_ring_conf *conf)
{
	return conf != NULL && (conf->filesize_kb != 0 || conf->duration_s != 0);
}

static int
parse_fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err != NULL && errlen > 0) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

int
gpudp_pcapng_ring_parse(const char *spec, struct gpudp_pcapng_ring_conf *conf, char *err,
			size_t errlen)
{
	static const struct { const char *key; uint64_t max; } keys[] = {
		{ "filesize", GPUDP_PCAPNG_RING_MAX_KB },
		{ "duration", GPUDP_PCAPNG_RING_MAX_S },
		{ "files", GPUDP_PCAPNG_RING_MAX_FILES },
	};
	uint64_t val[3] = { 0, 0, 0 };
	const char *p = spec;

	if (spec == NULL || spec[0] == '\0')
		return parse_fail(err, errlen, "expected filesize:KB, duration:SEC or files:N, "
				  "comma-separated");
	while (1) {
		const char *end = strchr(p, ','), *colon;
		size_t n = end != NULL ? (size_t)(end - p) : strlen(p);
		unsigned long long x;
		unsigned int k;
		char num[24];
		char *e;

		colon = memchr(p, ':', n);
		if (n == 0)
			return parse_fail(err, errlen, "an empty condition");
		for (k = 0; k < 3; k++)
			if (colon != NULL && (size_t)(colon - p) == strlen(keys[k].key) &&
			    strncmp(p, keys[k].key, (size_t)(colon - p)) == 0)
				break;
		if (k == 3)
			return parse_fail(err, errlen, "%.*s: unknown condition (expected "
					  "filesize:KB, duration:SEC or files:N)", (int)n, p);
		if (val[k] != 0)
			return parse_fail(err, errlen, "%.*s: %s given twice", (int)n, p,
					  keys[k].key);
		n -= (size_t)(colon + 1 - p);
		errno = 0;
		x = 0;
		if (n > 0 && n < sizeof(num)) {
			memcpy(num, colon + 1, n);
			num[n] = '\0';
			x = strtoull(num, &e, 10);
		}
		if (n == 0 || n >= sizeof(num) || num[0] < '0' || num[0] > '9' || errno != 0 ||
		    *e != '\0' || x < 1 || x > keys[k].max)
			return parse_fail(err, errlen, "%s:%.*s: expected an integer 1..%" PRIu64 "%s",
					  keys[k].key, (int)n, colon + 1, keys[k].max,
					  k == 0 ? " (kB, 1000 bytes)" : k == 1 ? " (seconds)" : "");
		val[k] = x;
		if (end == NULL)
			break;
		p = end + 1;
	}
	if (val[2] != 0 && val[0] == 0 && val[1] == 0)
		return parse_fail(err, errlen, "files:%" PRIu64 " needs filesize:KB or duration:SEC "
				  "(the condition that starts a new file)", val[2]);
	conf->filesize_kb = val[0];
	conf->duration_s = val[1];
	conf->files = (uint32_t)val[2];
	return 0;
}

/* ---- errors ---- */

static void
say(struct gpudp_pcapng_ring *r, const char *fmt, ...)
{
	char msg[PATH_MAX + 256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (r->log != NULL)
		r->log(r->log_arg, msg);
	else
		fprintf(stderr, "gpudp_pcapng_ring: %s\n", msg);
}

/* The current file failed (@p what, @p err): said, closed; its packets from here on dropped. */
static void
file_failed(struct gpudp_pcapng_ring *r, const char *what, int err)
{
	say(r, "%s: %s: %s; %s", r->name, what, strerror(err), r->rotates ?
	    "the packets of this file from here on are dropped, the next file is tried at "
	    "the next rotation" : "no more packets are written");
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
	r->st.failed_files++;
	r->st.last_error = err;
}

/*
 * Write @p n bytes at the file's end. @return 0, or the errno of the write
 * that failed, with *done the bytes written before it.
 */
static int
write_all(int fd, const void *p, size_t n, size_t *done)
{
	const uint8_t *b = p;

	*done = 0;
	while (*done < n) {
		ssize_t w = write(fd, b + *done, n - *done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return errno ? errno : EIO;
		if (w == 0)
			return ENOSPC;
		*done += (size_t)w;
	}
	return 0;
}

/* Of the buffer's blocks, those within its first @p n bytes: their bytes, *pkts their number. */
static size_t
whole_blocks(const struct gpudp_pcapng_ring *r, size_t n, uint64_t *pkts)
{
	size_t at = 0;

	*pkts = 0;
	while (at + 8 <= r->buf_n) {
		uint32_t len;

		memcpy(&len, r->buf + at + 4, 4);
		if (at + len > n)
			break;
		at += len;
		(*pkts)++;
	}
	return at;
}

/*
 * After a failed write of @p done bytes, of which @p keep form whole
 * blocks: the file cut back to them.
 */
static void
cut_back(struct gpudp_pcapng_ring *r, size_t done, size_t keep)
{
	if (done > keep && ftruncate(r->fd, (off_t)(r->off + keep)) != 0)
		say(r, "%s: cannot cut the partial block at offset %" PRIu64 " off: %s", r->name,
		    r->off + keep, strerror(errno));
	r->off += keep;
	r->st.bytes += keep;
}

int
gpudp_pcapng_ring_flush(struct gpudp_pcapng_ring *r)
{
	uint64_t pkts;
	size_t done, keep;
	int err;

	if (r->buf_n == 0)
		return 0;
	err = r->fd >= 0 ? write_all(r->fd, r->buf, r->buf_n, &done) : EBADF;
	if (err == 0) {
		r->off += r->buf_n;
		r->st.bytes += r->buf_n;
		r->st.packets += r->buf_pkts;
	} else {
		keep = whole_blocks(r, done, &pkts);
		cut_back(r, done, keep);
		r->st.packets += pkts;
		r->st.dropped += r->buf_pkts - pkts;
		file_failed(r, "write failed", err);
	}
	r->st.pending -= r->buf_pkts;
	r->buf_n = 0;
	r->buf_pkts = 0;
	return err == 0 ? 0 : -EIO;
}

/* ---- files ---- */

/*
 * Remove @p path after its header could not be written: a file made here
 * (or a link), never a device or a FIFO the user named (--filter-out
 * /dev/full).
 */
static void
remove_made(const char *path)
{
	struct stat st;

	if (lstat(path, &st) == 0 && (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)))
		unlink(path);
}

/*
 * Create r->name and write its header. @return 0, or -1 (said; the file
 * removed if it was made)
 */
static int
file_create(struct gpudp_pcapng_ring *r)
{
	size_t done;
	int err;

	r->off = 0;
	r->fd = open(r->name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (r->fd < 0) {
		file_failed(r, "cannot create", errno);
		return -1;
	}
	err = write_all(r->fd, r->head, r->head_len, &done);
	if (err != 0) {
		remove_made(r->name);
		file_failed(r, "cannot write its section header (a file made for it is removed)", err);
		return -1;
	}
	r->off = r->head_len;
	r->st.bytes += r->head_len;
	r->st.files++;
	return 0;
}

/* The current file's buffer written and the file closed. */
static void
file_finish(struct gpudp_pcapng_ring *r)
{
	gpudp_pcapng_ring_flush(r);
	if (r->fd >= 0 && close(r->fd) != 0) {
		r->st.last_error = errno;
		say(r, "%s: closing it failed: %s", r->name, strerror(errno));
	}
	r->fd = -1;
}

/* Files condition: the file @p r->files before the new one @p index, deleted. */
static void
drop_oldest(struct gpudp_pcapng_ring *r, uint64_t index)
{
	uint64_t old = index - r->files;
	char name[PATH_MAX];

	if (gpudp_pcapng_ring_name(r->path, old, r->ring_ts[old % r->files], name,
				   sizeof(name)) < 0)
		return;
	if (unlink(name) == 0)
		r->st.files_removed++;
	else if (errno != ENOENT)   /* ENOENT: never made, or removed by someone */
		say(r, "%s: cannot delete the oldest file (files:%u): %s", name, r->files,
		    strerror(errno));
}

/* Finish the current file (if any) and start the next with a packet at @p ts. */
static void
next_file(struct gpudp_pcapng_ring *r, uint64_t ts)
{
	if (r->started)
		file_finish(r);
	r->started = 1;
	r->index++;
	r->first_ts = ts;
	r->size = r->head_len;
	r->npkts = 0;
	if (r->files != 0) {
		if (r->index > r->files)
			drop_oldest(r, r->index);
		r->ring_ts[r->index % r->files] = ts;
	}
	if (gpudp_pcapng_ring_name(r->path, r->index, ts, r->name, sizeof(r->name)) < 0) {
		snprintf(r->name, sizeof(r->name), "%s (file %" PRIu64 ")", r->path, r->index);
		file_failed(r, "cannot name it", ENAMETOOLONG);
		return;
	}
	file_create(r);
}

/* Whether a packet of @p len bytes at @p ts starts a new file. */
static int
must_rotate(const struct gpudp_pcapng_ring *r, uint64_t len, uint64_t ts)
{
	if (!r->started)
		return 1;
	if (r->limit_bytes != 0 && r->npkts > 0 && r->size + len > r->limit_bytes)
		return 1;
	return r->duration_ns != 0 && ts >= r->first_ts && ts - r->first_ts >= r->duration_ns;
}

/* ---- the API ---- */

/* With conditions: the directory of @p path takes new files. @return 0 or an errno */
static int
dir_check(const char *path)
{
	const char *slash = strrchr(path, '/');
	char dir[PATH_MAX];

	if (slash == NULL)
		return access(".", W_OK | X_OK) == 0 ? 0 : errno;
	if (slash[1] == '\0')
		return EISDIR;
	if ((size_t)(slash - path) >= sizeof(dir))
		return ENAMETOOLONG;
	if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	return access(dir, W_OK | X_OK) == 0 ? 0 : errno;
}

static void
ring_free(struct gpudp_pcapng_ring *r)
{
	free(r->ring_ts);
	free(r->buf);
	free(r->path);
	free(r);
}

struct gpudp_pcapng_ring *
gpudp_pcapng_ring_open(const char *path, const struct gpudp_pcapng_ring_conf *conf)
{
	static const struct gpudp_pcapng_ring_conf none;
	struct gpudp_pcapng_ring *r;
	char probe[PATH_MAX];
	int err = 0;

	if (conf == NULL)
		conf = &none;
	if (path == NULL || path[0] == '\0' || conf->filesize_kb > GPUDP_PCAPNG_RING_MAX_KB ||
	    conf->duration_s > GPUDP_PCAPNG_RING_MAX_S ||
	    conf->files > GPUDP_PCAPNG_RING_MAX_FILES ||
	    (conf->files != 0 && !gpudp_pcapng_ring_rotates(conf))) {
		errno = EINVAL;
		return NULL;
	}
	r = calloc(1, sizeof(*r));
	if (r == NULL)
		return NULL;
	r->fd = -1;
	r->rotates = gpudp_pcapng_ring_rotates(conf);
	r->limit_bytes = conf->filesize_kb * 1000u;
	r->duration_ns = conf->duration_s * NS_PER_S;
	r->files = conf->files;
	r->log = conf->log;
	r->log_arg = conf->log_arg;
	r->head_len = pcapng_head_encode(r->head, conf->appname, conf->ifname, conf->snaplen);
	r->path = strdup(path);
	r->buf = malloc(GPUDP_PCAPNG_RING_BUF);
	if (r->files != 0)
		r->ring_ts = calloc(r->files, sizeof(*r->ring_ts));
	if (r->path == NULL || r->buf == NULL || (r->files != 0 && r->ring_ts == NULL)) {
		ring_free(r);
		errno = ENOMEM;
		return NULL;
	}
	if (r->rotates) {
		/* the longest name: the largest index and a time of 14 digits */
		if (gpudp_pcapng_ring_name(path, UINT64_MAX, 0, probe, sizeof(probe)) < 0)
			err = ENAMETOOLONG;
		else
			err = dir_check(path);
	} else if (strlen(path) >= sizeof(r->name)) {
		err = ENAMETOOLONG;
	} else {
		/* one file, made now, as gpudp_pcapng_open() makes it */
		snprintf(r->name, sizeof(r->name), "%s", path);
		r->started = 1;
		r->index = 1;
		r->size = r->head_len;
		r->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
		if (r->fd < 0) {
			err = errno;
		} else {
			size_t done;

			err = write_all(r->fd, r->head, r->head_len, &done);
			if (err != 0) {
				close(r->fd);
				remove_made(path);
			}
		}
		if (err == 0) {
			r->off = r->head_len;
			r->st.bytes = r->head_len;
			r->st.files = 1;
		}
	}
	if (err != 0) {
		ring_free(r);
		errno = err;
		return NULL;
	}
	return r;
}

/* A block larger than the buffer, straight to the file. @return 0 or -EIO (dropped) */
static int
write_large(struct gpudp_pcapng_ring *r, const uint8_t *hdr, const uint8_t *data,
	    uint32_t caplen, const uint8_t *tail, size_t tail_len)
{
	const void *part[3] = { hdr, data, tail };
	size_t len[3] = { PCAPNG_EPB_HDR, caplen, tail_len };
	size_t done = 0, d;
	unsigned int i;
	int err = 0;

	for (i = 0; i < 3 && err == 0; i++) {
		err = write_all(r->fd, part[i], len[i], &d);
		done += d;
	}
	if (err != 0) {
		cut_back(r, done, 0);
		r->st.dropped++;
		file_failed(r, "write failed", err);
		return -EIO;
	}
	r->off += done;
	r->st.bytes += done;
	r->st.packets++;
	return 0;
}

int
gpudp_pcapng_ring_write(struct gpudp_pcapng_ring *r, const uint8_t *data, uint32_t caplen,
			uint32_t wirelen, uint64_t ts_ns)
{
	uint64_t len = pcapng_epb_len(caplen);
	uint8_t hdr[PCAPNG_EPB_HDR], tail[8];
	size_t tail_len;

	if (caplen > GPUDP_PCAPNG_RING_MAX_CAPLEN || (data == NULL && caplen > 0))
		return -EINVAL;
	if (r->rotates && must_rotate(r, len, ts_ns))
		next_file(r, ts_ns);
	r->size += len;
	r->npkts++;
	if (r->fd >= 0 && r->buf_n + len > GPUDP_PCAPNG_RING_BUF)
		gpudp_pcapng_ring_flush(r);
	if (r->fd < 0) {
		r->st.dropped++;
		return -EIO;
	}
	pcapng_epb_encode(hdr, caplen, wirelen, ts_ns);
	tail_len = pcapng_epb_tail(tail, caplen);
	if (len > GPUDP_PCAPNG_RING_BUF)
		return write_large(r, hdr, data, caplen, tail, tail_len);
	memcpy(r->buf + r->buf_n, hdr, PCAPNG_EPB_HDR);
	if (caplen > 0)
		memcpy(r->buf + r->buf_n + PCAPNG_EPB_HDR, data, caplen);
	memcpy(r->buf + r->buf_n + PCAPNG_EPB_HDR + caplen, tail, tail_len);
	r->buf_n += len;
	r->buf_pkts++;
	r->st.pending++;
	return 0;
}

void
gpudp_pcapng_ring_stats(const struct gpudp_pcapng_ring *r, struct gpudp_pcapng_ring_stats *st)
{
	*st = r->st;
}

const char *
gpudp_pcapng_ring_current(const struct gpudp_pcapng_ring *r)
{
	return r->started ? r->name : NULL;
}

int
gpudp_pcapng_ring_close(struct gpudp_pcapng_ring *r)
{
	int rc;

	if (r == NULL)
		return 0;
	file_finish(r);
	rc = r->st.dropped != 0 || r->st.last_error != 0 ?
	     -(r->st.last_error != 0 ? r->st.last_error : EIO) : 0;
	ring_free(r);
	return rc;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The threaded reader: how the threads share a file's records. A pcap file
 * large enough is split into byte ranges, one a thread; other pcap files
 * are walked by the calling thread, which publishes where each chunk of
 * records starts (the shared walk); pcapng files are walked by every
 * thread (gpudp_cap_reader_pvt.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpudp_cap_reader_pvt.h"

void
gpudp_cap_rd_layout(const char *path, struct flayout *l)
{
	struct gpudp_capfile *cf;
	char err[256];

	memset(l, 0, sizeof(*l));
	if (gpudp_capfile_open(path, GPUDP_CAPFILE_SKIP_DATA, &cf, err, sizeof(err)) != 0)
		return;   /* the threads say why */
	l->size = gpudp_capfile_size(cf);
	if (gpudp_capfile_format_of(cf) == GPUDP_CAPFILE_PCAP) {
		l->pcap = 1;
		l->start = gpudp_capfile_tell(cf);
	}
	gpudp_capfile_close(cf);
}

/*
 * A pcap file: the shared walk, on the calling thread while the others
 * stage (pcapng: NULL, each thread walks, as a record's meaning depends
 * on the blocks before it).
 */
struct fwalk *
gpudp_cap_rd_walk_new(const struct flayout *l, uint32_t chunk)
{
	struct fwalk *w;

	if (!l->pcap || (w = calloc(1, sizeof(*w))) == NULL)
		return NULL;
	/* a record takes 16 bytes at least */
	w->cap = l->size / 16 / chunk + 2;
	w->starts = malloc(sizeof(*w->starts) * w->cap);
	if (w->starts == NULL) {
		free(w);
		return NULL;
	}
	return w;
}

void
gpudp_cap_rd_walk_free(struct fwalk *w)
{
	if (w != NULL)
		free(w->starts);
	free(w);
}

/* The walk's reader, for gpudp_cap_rd_bus_guarded(). */
struct wread_arg {
	const struct gpudp_cap_reader_conf *c;
	struct fwalk *w;
	struct gpudp_capfile *cf;
	uint32_t chunk;
};

static int
walk_chunks(void *arg)
{
	struct wread_arg *a = arg;
	struct gpudp_capfile_rec r;
	uint64_t k;
	int rc = 0;

	/* chunk by chunk, by the records' lengths (gpudp_capfile_skip());
	 * where it stops early, gpudp_capfile_next() tells the end of the file
	 * from an error */
	for (k = 0; rc == 0 && k < a->w->cap; k++) {
		uint64_t off = gpudp_capfile_tell(a->cf);

		if (a->c->max_records != 0 && k * a->chunk >= a->c->max_records)
			break;
		if (gpudp_capfile_skip(a->cf, a->chunk) == 0) {
			rc = gpudp_capfile_next(a->cf, &r);
			/* gpudp_capfile_skip() refused what gpudp_capfile_next() takes */
			if (rc == 1)
				rc = -EINVAL;
			break;
		}
		a->w->starts[k] = off;
		__atomic_store_n(&a->w->n_pub, k + 1, __ATOMIC_RELEASE);
	}
	return rc;
}

void
gpudp_cap_rd_walk_run(const struct gpudp_cap_reader_conf *c, struct fwalk *w, uint32_t chunk,
		      uint64_t size)
{
	struct gpudp_capfile *cf = NULL;
	struct wread_arg a = { .c = c, .w = w, .chunk = chunk };
	int rc = gpudp_capfile_open(c->path, GPUDP_CAPFILE_MMAP | GPUDP_CAPFILE_SKIP_DATA, &cf,
				    w->err, sizeof(w->err));

	if (rc == 0) {
		a.cf = cf;
		/* a file that shrank: the chunks published are read, no more */
		w->changed = gpudp_capfile_size(cf) != size;
		if (gpudp_cap_rd_bus_guarded(walk_chunks, &a, &rc) != 0) {
			w->changed = 1;
			rc = 0;
		} else if (gpudp_capfile_truncated(cf, &w->trunc_off)) {
			w->truncated = 1;
			w->trunc_idx = gpudp_capfile_index(cf);
		}
	}
	if (rc < 0) {
		w->rc = rc;
		if (cf != NULL)
			snprintf(w->err, sizeof(w->err), "%s", gpudp_capfile_error(cf)[0] != '\0' ?
				 gpudp_capfile_error(cf) : "the walk of the file failed");
	}
	gpudp_capfile_close(cf);
	__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
}

/* Smallest byte range a thread takes (smaller files: the shared walk). */
#define RANGE_MIN_BYTES (4u << 20)

/*
 * Byte ranges for the threads, when they can be used: a pcap file, large
 * enough, no record limit and no verdicts by record (both need the records'
 * numbers). @return the ranges (free() them), or NULL
 */
struct frange *
gpudp_cap_rd_ranges_new(const struct gpudp_cap_reader_conf *c, const struct flayout *l)
{
	uint64_t min = c->range_min != 0 ? c->range_min : RANGE_MIN_BYTES;
	uint64_t size = l->size, start = l->start;
	struct frange *g;
	uint32_t t;

	if (c->max_records != 0 || c->match_bits != NULL || !l->pcap ||
	    size - start < min * c->threads || (g = calloc(c->threads, sizeof(*g))) == NULL)
		return NULL;
	for (t = 0; t < c->threads; t++) {
		g[t].from = start + (size - start) / c->threads * t;
		g[t].to = t + 1 < c->threads ? start + (size - start) / c->threads * (t + 1) : size;
	}
	return g;
}

int
gpudp_cap_rd_ranges_joined(const struct frange *g, uint32_t n)
{
	uint32_t t;

	for (t = 0; t + 1 < n; t++)
		if (g[t + 1].guess == UINT64_MAX || g[t].end != g[t + 1].guess)
			return 0;
	return 1;
}

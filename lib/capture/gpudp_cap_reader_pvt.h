/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Internal to the threaded reader (gpudp_cap_reader.h). Not installed.
 *   gpudp_cap_reader.c         a run: the engines, the threads, the results
 *   gpudp_cap_reader_thread.c  one thread: its share of the records into its batches
 *   gpudp_cap_reader_walk.c    the shares: the shared walk, the byte ranges
 *   gpudp_cap_reader_merge.c   the threads' results into one
 *   gpudp_cap_reader_guard.c   reads of a mapping that faults (SIGBUS)
 *   gpudp_cap_reader_mem.c     a file read into memory beforehand
 */
#ifndef GPUDP_CAP_READER_PVT_H
#define GPUDP_CAP_READER_PVT_H

#include <pthread.h>
#include <stdint.h>

#include "gpudp_cap_reader.h"
#include "gpudp_capfile.h"
#include "gpudp_thread.h"

/* Batches an engine may have out at once (the GPU engine's slots). */
#define FT_SLOTS 64u

/*
 * The walk of a pcap file, shared by the threads: the calling thread reads
 * the record headers and publishes where each chunk starts; each thread
 * seeks to its chunks and reads only their records.
 */
struct fwalk {
	uint64_t *starts;    /* chunk k's first record header, at file offset starts[k] */
	uint64_t cap;        /* entries of starts */
	uint64_t n_pub;      /* chunks published (atomic, release) */
	int done;            /* the walk is over (atomic, release, after n_pub) */
	int rc;              /* its error, or 0 */
	int changed;         /* it saw the file change size (gpudp_cap_reader_stats.changed) */
	int truncated;       /* it found the file ending inside a record, at trunc_off */
	uint64_t trunc_off;
	uint64_t trunc_idx;  /* after that many complete records */
	char err[256];
};

/*
 * A pcap file split by bytes: a thread takes the records whose header
 * starts in [from, to). It guesses where its first one starts
 * (gpudp_capfile_find_record()); the split holds when every range's walk
 * ends exactly where the next range's guess starts (then every guess is a
 * real record boundary, by induction from the first range's, and every
 * record is read once). No walk is shared: each thread reads only its
 * bytes.
 */
struct frange {
	uint64_t from, to;
	uint64_t guess;      /* its first record header; UINT64_MAX: none found */
	uint64_t end;        /* where its walk stopped: the first header at or past to */
};

/* One thread: its engine, its share of the records, its result. */
struct fthread {
	const struct gpudp_cap_reader_conf *c;
	struct fwalk *w;              /* the shared walk, or NULL */
	struct frange *rg;            /* its byte range, or NULL */
	uint32_t t;
	uint32_t chunk;
	struct gpudp_cap_engine e;
	struct gpudp_analysis *a;     /* the engine's result, collected */
	uint64_t *slot_idx[FT_SLOTS]; /* per batch slot: record index of each packet */
	uint64_t records, bytes;
	struct gpudp_cap_batch *b;    /* the batch being filled */
	uint8_t *volatile copying;    /* where a record is being copied into it, or NULL */
	int fd;                       /* copies in bulk: the file read with pread(), or -1 */
	uint64_t size;                /* the file's bytes when the run began */
	int changed;                  /* it saw the file change size (stats.changed) */
	int truncated;                /* it found the file ending inside a record, at trunc_off */
	uint64_t trunc_off;
	uint64_t trunc_idx;           /* after that many complete records */
	int rc;
	int crc;                      /* gpudp_cap_engine_collect()'s */
	double collect_s;             /* how long it took */
	double staged_at, flushed_at; /* when it submitted its last batch, when that was done */
	uint32_t bulk;                /* bytes read at once (conf read_bytes, FT_BULK_BYTES) */
	const uint8_t *shared;        /* in place: the run's mapping of the file, or NULL */
	const uint8_t *tmap;          /* in place: this thread's (its reader's) */
	char err[256];
};

/* Bytes a thread reads at once into a batch by default (about 2,000 records of 128 bytes) */
#define FT_BULK_BYTES (256u << 10)

/* What the split and the shared walk need to know of the file, read once a run. */
struct flayout {
	int pcap;        /* a pcap file (0: pcapng, or one the threads will refuse) */
	uint64_t size;   /* its bytes */
	uint64_t start;  /* its first record's offset (pcap) */
};

/* ---- gpudp_cap_reader_thread.c ---- */

/* A thread's body (pthread_create()'s): its share of the records, its engine's result. */
void *gpudp_cap_rd_thread(void *arg);
/* A batch is done (the engines' done callback): its verdicts into the run's bitmap. */
void gpudp_cap_rd_done(void *arg, const struct gpudp_cap_batch *b);
/* Whether the threads' engines share one set of tables (the GPU engine's, several threads). */
int gpudp_cap_rd_shared(const struct gpudp_cap_reader_conf *c);

/* ---- gpudp_cap_reader_walk.c ---- */

/* The file's format, size and first record (all 0: the threads will say why they fail). */
void gpudp_cap_rd_layout(const char *path, struct flayout *l);
/* A pcap file: the shared walk, its chunks' starts to publish (pcapng, no memory: NULL). */
struct fwalk *gpudp_cap_rd_walk_new(const struct flayout *l, uint32_t chunk);
/* Free a walk (NULL is accepted). */
void gpudp_cap_rd_walk_free(struct fwalk *w);
/* Walk the file, publishing where each chunk starts, then say it is done. */
void gpudp_cap_rd_walk_run(const struct gpudp_cap_reader_conf *c, struct fwalk *w,
			   uint32_t chunk, uint64_t size);
/* Byte ranges for the threads, when the file and conf allow them (free() them), or NULL. */
struct frange *gpudp_cap_rd_ranges_new(const struct gpudp_cap_reader_conf *c,
				       const struct flayout *l);
/* Whether the ranges joined (see struct frange). */
int gpudp_cap_rd_ranges_joined(const struct frange *g, uint32_t n);

/* ---- gpudp_cap_reader_merge.c ---- */

/* Shared tables: the sharers' counters, then thread 0's tables (after every flush). */
void gpudp_cap_rd_collect_shared(struct fthread *ft, uint32_t n);
/* The threads' results into @p out. @return 0 or -ENOSPC (flows that did not fit) */
int gpudp_cap_rd_merge(const struct gpudp_cap_reader_conf *c, struct fthread *ft, uint32_t n,
		       struct gpudp_analysis *out);

/* ---- gpudp_cap_reader_guard.c ---- */

/* The run's SIGBUS handler on (1), or the one before back (0). */
void gpudp_cap_rd_bus_install(int on);
/* fn(arg), a fault of a mapping returning here. @return 0 (*rc: fn's), or 1 (it faulted) */
int gpudp_cap_rd_bus_guarded(int (*fn)(void *), void *arg, int *rc);

#endif /* GPUDP_CAP_READER_PVT_H */

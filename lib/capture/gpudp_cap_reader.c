/* SPDX-License-Identifier: BSD-3-Clause */
/* The threaded reader: capture files analysed by several host threads (gpudp_cap_reader.h). */
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpudp_cap_reader.h"
#include "gpudp_capfile.h"

#define CF_DIM(a) (sizeof(a) / sizeof((a)[0]))

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
 * (gpudp_capfile_find_record()); the split holds when every range's walk ends
 * exactly where the next range's guess starts (then every guess is a real
 * record boundary, by induction from the first range's, and every record
 * is read once). No walk is shared: each thread reads only its bytes.
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
	struct gpudp_cap_batch *b;          /* the batch being filled */
	uint8_t *volatile copying;    /* where a record is being copied into it, or NULL */
	int fd;                       /* copies in bulk: the file read with pread(), or -1 */
	uint64_t size;                /* the file's bytes when the run began */
	int changed;                  /* it saw the file change size (gpudp_cap_reader_stats.changed) */
	int truncated;                /* it found the file ending inside a record, at trunc_off */
	uint64_t trunc_off;
	uint64_t trunc_idx;           /* after that many complete records */
	int rc;
	int crc;                      /* gpudp_cap_engine_collect()'s */
	double collect_s;             /* how long it took */
	double staged_at, flushed_at; /* when it submitted its last batch, when that was done */
	uint32_t bulk;                /* bytes read at once (conf read_bytes, FT_BULK_BYTES) */
	const uint8_t *shared;        /* in place: the run's mapping of the file, or NULL */
	const uint8_t *tmap;          /* in place: this thread's (its capfile's) */
	char err[256];
};

_Static_assert(sizeof(struct gpudp_capfile_desc) == sizeof(struct gpudp_an_pkt_desc) &&
	       offsetof(struct gpudp_capfile_desc, off) == offsetof(struct gpudp_an_pkt_desc, off) &&
	       offsetof(struct gpudp_capfile_desc, caplen) ==
	       offsetof(struct gpudp_an_pkt_desc, caplen) &&
	       offsetof(struct gpudp_capfile_desc, wirelen) ==
	       offsetof(struct gpudp_an_pkt_desc, wirelen) &&
	       offsetof(struct gpudp_capfile_desc, pad) == offsetof(struct gpudp_an_pkt_desc, pad) &&
	       offsetof(struct gpudp_capfile_desc, ts_ns) == offsetof(struct gpudp_an_pkt_desc, ts_ns),
	       "the reader describes records as a batch does");

/* In place: the file mapped once for every thread (a reader of its own,
 * GPUDP_CAPFILE_MMAP), registered with the GPU. */
struct fshared {
	struct gpudp_capfile *cf;           /* NULL: not mapped */
	const uint8_t *base;          /* gpudp_capfile_map(cf) */
	int registered;               /* with ft[0]'s engine */
};

static const char *const stage_names[] = {
	[GPUDP_CAP_READER_STAGE_AUTO] = "auto", [GPUDP_CAP_READER_STAGE_COPY] = "copy",
	[GPUDP_CAP_READER_STAGE_GATHER] = "gather", [GPUDP_CAP_READER_STAGE_READ] = "read",
};

const char *
gpudp_cap_reader_stage_name(enum gpudp_cap_reader_stage s)
{
	return (unsigned int)s < CF_DIM(stage_names) ? stage_names[s] : "?";
}

int
gpudp_cap_reader_stage_parse(const char *name, enum gpudp_cap_reader_stage *s)
{
	uint32_t i;

	for (i = 0; i < CF_DIM(stage_names); i++)
		if (strcmp(name, stage_names[i]) == 0) {
			*s = (enum gpudp_cap_reader_stage)i;
			return 0;
		}
	return -EINVAL;
}

/*
 * A file that shrinks while it is read: the pages of its mapping past its
 * new end fault (SIGBUS). While a thread reads through bus_guarded(), such
 * a fault returns there instead, and the thread reads no more (the file
 * changed: gpudp_cap_reader_stats.changed). gpudp_cap_reader_run() installs the handler for
 * its run; any other SIGBUS goes to the handler there was before.
 */
static _Thread_local sigjmp_buf *bus_jmp;
static struct sigaction bus_prev;

static void
bus_handler(int sig, siginfo_t *si, void *uc)
{
	sigjmp_buf *j = bus_jmp;

	(void)uc;
	if (j != NULL) {
		bus_jmp = NULL;
		siglongjmp(*j, 1);
	}
	/* not a read of a capture file: the previous handler takes it, on the
	 * fault again (or now, for a signal sent) */
	sigaction(SIGBUS, &bus_prev, NULL);
	if (si == NULL || si->si_code <= 0)
		raise(sig);
}

/* The handler on (for a run) or back to the one before. */
static void
bus_install(int on)
{
	struct sigaction sa;

	if (!on) {
		sigaction(SIGBUS, &bus_prev, NULL);
		return;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = bus_handler;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, &bus_prev);
}

/* fn(arg), a fault of a mapping returning here. @return 0 (*rc: fn's), or 1 (it faulted) */
static int
bus_guarded(int (*fn)(void *), void *arg, int *rc)
{
	sigjmp_buf jb;

	if (sigsetjmp(jb, 1) != 0)
		return 1;
	bus_jmp = &jb;
	*rc = fn(arg);
	bus_jmp = NULL;
	return 0;
}

int
gpudp_cap_reader_guarded(int (*fn)(void *), void *arg, int *rc)
{
	int faulted;

	bus_install(1);
	faulted = bus_guarded(fn, arg, rc);
	bus_install(0);
	return faulted;
}

/* A batch is done: its filter verdicts into the run's bitmap, by record. */
static void
ft_done(void *arg, const struct gpudp_cap_batch *b)
{
	struct fthread *f = arg;
	uint32_t *bits = f->c->match_bits;
	const uint64_t *idx;
	uint32_t i;

	if (bits == NULL || b->n_match == 0 || b->slot >= FT_SLOTS ||
	    (idx = f->slot_idx[b->slot]) == NULL)
		return;
	/* chunks are whole bitmap words: no other thread writes these */
	for (i = 0; i < b->n; i++)
		if (gpudp_cap_batch_matched(b, i))
			bits[idx[i] / 32] |= 1u << (idx[i] % 32);
}

/* Remember where packet b->n - 1 came from (for the filter's bitmap). */
static int
ft_note(struct fthread *f, const struct gpudp_cap_batch *b, uint64_t index)
{
	uint64_t **s;

	if (f->c->match_bits == NULL)
		return 0;
	if (b->slot >= FT_SLOTS)
		return -E2BIG;
	s = &f->slot_idx[b->slot];
	if (*s == NULL && (*s = malloc(sizeof(**s) * b->max_pkts)) == NULL)
		return -ENOMEM;
	(*s)[b->n - 1] = index;
	return 0;
}

/* One record into the thread's current batch (a full batch is submitted). */
static int
ft_stage(struct fthread *f, struct gpudp_cap_batch **b, const uint8_t *data, uint32_t caplen,
	 uint32_t wirelen, uint64_t ts, uint64_t index)
{
	uint8_t *dst = NULL;
	int rc;

	if (f->shared != NULL)   /* in place: where it is in the run's mapping */
		rc = gpudp_cap_engine_room_ref(&f->e, b, (uint64_t)(uintptr_t)(f->shared +
					 (data - f->tmap)), caplen, wirelen, ts);
	else
		rc = gpudp_cap_engine_room(&f->e, b, caplen, wirelen, ts, &dst);
	if (rc == -E2BIG)
		snprintf(f->err, sizeof(f->err), "record %llu: %u bytes do not fit a batch "
			 "(--batch-bytes)", (unsigned long long)index + 1, caplen);
	if (rc != 0)
		return rc;
	if (dst != NULL) {
		/* a fault of the mapping while copying takes the record back
		 * (ft_fault()): the batch as it is now, seen after the jump */
		f->copying = dst;
		atomic_signal_fence(memory_order_seq_cst);
		memcpy(dst, data, caplen);
		atomic_signal_fence(memory_order_seq_cst);
		f->copying = NULL;
	}
	f->records++;
	f->bytes += caplen;
	return ft_note(f, *b, index);
}

/* One record of this thread's: staged. @return 0, 1 (past the limit) or a negative errno */
static int
ft_record(struct fthread *f, struct gpudp_cap_batch **b, const struct gpudp_capfile_rec *r)
{
	if (f->c->max_records != 0 && r->index >= f->c->max_records)
		return 1;
	if (r->linktype != GPUDP_CAPFILE_LINKTYPE_ETHERNET) {
		snprintf(f->err, sizeof(f->err), "record %llu: link type %u, not Ethernet",
			 (unsigned long long)r->index + 1, r->linktype);
		return -EPROTONOSUPPORT;
	}
	return ft_stage(f, b, r->data, r->caplen, r->wirelen,
			r->ts_sec * 1000000000ull + r->ts_nsec, r->index);
}

/* Records read at once (gpudp_capfile_next_many()), in bunches of */
#define FT_MANY 256u

/*
 * Up to @p n of this thread's next records, before byte @p end, read at
 * once and staged as ft_record() stages each. @return 0 (records staged, or
 * none there: *got says how many), 1 (past the limit) or a negative errno
 */
static int
ft_many(struct fthread *f, struct gpudp_capfile *cf, struct gpudp_cap_batch **b, uint32_t n,
	uint64_t end, uint32_t *got)
{
	struct gpudp_capfile_mrec mr[FT_MANY];
	uint64_t lim = f->c->max_records;
	uint32_t k = gpudp_capfile_next_many(cf, mr, n < FT_MANY ? n : FT_MANY, end), i;
	int rc;

	*got = k;
	for (i = 0; i < k; i++) {
		if (lim != 0 && mr[i].index >= lim)
			return 1;
		rc = ft_stage(f, b, mr[i].data, mr[i].caplen, mr[i].wirelen, mr[i].ts_ns,
			      mr[i].index);
		if (rc != 0)
			return rc;
	}
	return 0;
}

/* The end of a thread's records: a read error, or the last batch submitted. */
static int
ft_end(struct fthread *f, struct gpudp_capfile *cf, struct gpudp_cap_batch *b, int rc)
{
	if (rc < 0) {
		if (f->err[0] == '\0')
			snprintf(f->err, sizeof(f->err), "%s", gpudp_capfile_error(cf));
		return rc;
	}
	rc = gpudp_cap_engine_submit(&f->e, b) != 0 ? -EIO : 0;
	f->staged_at = gpudp_cap_now_s();
	if (rc == 0)
		rc = gpudp_cap_engine_flush(&f->e);
	f->flushed_at = gpudp_cap_now_s();
	return rc;
}

/* Walk the whole file; stage this thread's chunks. @return 0 or a negative errno */
static int
ft_walk(struct fthread *f, struct gpudp_capfile *cf)
{
	const struct gpudp_cap_reader_conf *c = f->c;
	struct gpudp_cap_batch **b = &f->b;
	struct gpudp_capfile_rec r;
	int rc;

	if ((*b = gpudp_cap_engine_get_batch(&f->e)) == NULL)
		return -EIO;
	while ((rc = gpudp_capfile_next(cf, &r)) == 1) {
		if ((r.index / f->chunk) % c->threads != f->t)
			continue;
		if (r.index % f->chunk == 0 && c->stop != NULL && *c->stop)
			break;
		rc = ft_record(f, b, &r);
		if (rc != 0)
			break;
	}
	return ft_end(f, cf, *b, rc > 0 ? 0 : rc);
}

/*
 * The pages of [from, to) mapped at once (MADV_POPULATE_READ, Linux 5.14)
 * rather than fault by fault; where the kernel refuses, they fault as usual.
 */
static void
ft_populate(const struct fthread *f, uint64_t from, uint64_t to)
{
#ifdef MADV_POPULATE_READ
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t a = (uintptr_t)(f->tmap + from) & ~(pg - 1), e = (uintptr_t)(f->tmap + to);

	if (f->tmap != NULL && e > a)
		madvise((void *)a, e - a, MADV_POPULATE_READ);
#else
	(void)f;
	(void)from;
	(void)to;
#endif
}

/*
 * The @p k records (@p nb captured bytes) just described at the end of
 * @p bb, in the @p used bytes from file offset *pos on: the batch's, the
 * thread's and the walk's counts.
 */
static void
ft_took(struct fthread *f, struct gpudp_cap_batch *bb, uint32_t k, uint64_t nb, uint64_t used,
	uint64_t *pos, uint64_t *idx)
{
	bb->n += k;
	bb->cap_bytes += (uint32_t)nb;
	gpudp_cap_batch_take(bb, (uint32_t)used);
	f->bytes += nb;
	f->records += k;
	*idx += k;
	*pos += used;
}

/* The batch submitted, *b the next free one. @return 0 or -EIO */
static int
ft_next_batch(struct fthread *f, struct gpudp_cap_batch **b)
{
	if (gpudp_cap_engine_submit(&f->e, *b) != 0 ||
	    (*b = gpudp_cap_engine_get_batch(&f->e)) == NULL)
		return -EIO;
	return 0;
}

/* Bytes read at once into a batch by ft_bulk() (about 2,000 records of 128 bytes) */
#define FT_BULK_BYTES (256u << 10)

/*
 * Copies in bulk: the range's bytes from *pos on are read (pread(), no
 * mapping: no page faults, nothing to unmap) straight into the batch's
 * data area, and the records among them described where they landed, with
 * the reader's checks (gpudp_capfile_parse_many()). Their headers stay between
 * them: the GPU engine gathers each record's bytes alone. It stops at
 * @p to, and where a record is not passed by the checks or does not fit
 * an empty batch, so that the record-by-record reader takes it.
 * @return 0 (*pos, *idx: where it stopped), -ESTALE (a read ended before
 *   the size the file had when the run began: it shrank; the records
 *   that are left whole are taken) or a negative errno
 */
static int
ft_bulk(struct fthread *f, struct gpudp_capfile *cf, int fd, struct gpudp_cap_batch **b,
	uint64_t *pos, uint64_t to, uint64_t *idx)
{
	while (*pos < to) {
		struct gpudp_cap_batch *bb = *b;
		uint8_t *dst = gpudp_cap_batch_tail(bb);
		uint32_t want = gpudp_cap_batch_tail_room(bb), k;
		uint64_t used, nb;
		ssize_t got = 0;
		int shrank;

		if (want > f->bulk)
			want = f->bulk;
		if (want >= 16)
			got = pread(fd, dst, want, (off_t)*pos);
		if (got < 0) {
			snprintf(f->err, sizeof(f->err), "read error at offset %llu: %s",
				 (unsigned long long)*pos, strerror(errno));
			return -EIO;
		}
		shrank = want >= 16 && (uint64_t)got < want && *pos + (uint64_t)got < f->size;
		/* described straight into the batch's descriptors */
		k = gpudp_capfile_parse_descs(cf, dst, *pos, (uint64_t)got, to, bb->data_used,
					(struct gpudp_capfile_desc *)(bb->desc + bb->n),
					      gpudp_cap_batch_pkt_room(bb), &used, &nb);
		ft_took(f, bb, k, nb, used, pos, idx);
		f->changed |= shrank;
		if (used == 0 && bb->n == 0)   /* a record for the record-by-record reader, */
			return shrank ? -ESTALE : 0;   /* or the end of what is left */
		/* nothing taken (the next record does not fit what is left), or
		 * full: the next batch */
		if ((used == 0 || gpudp_cap_batch_tail_room(bb) < 64) && ft_next_batch(f, b) != 0)
			return -EIO;
	}
	return 0;
}

/*
 * In memory (conf.mem): the range's records described where they are in
 * the caller's copy of the file, each batch lent the bytes that hold its
 * records (gpudp_cap_batch_lend()): nothing is read or copied. It stops where
 * ft_bulk() does. @return 0 (*pos, *idx: where it stopped) or a negative errno
 */
static int
ft_mem(struct fthread *f, struct gpudp_capfile *cf, struct gpudp_cap_batch **b, uint64_t *pos,
       uint64_t to, uint64_t *idx)
{
	const struct gpudp_cap_reader_conf *c = f->c;

	while (*pos < to) {
		struct gpudp_cap_batch *bb = *b;
		uint64_t base = *pos & ~(uint64_t)15, len = c->mem_len - base, used, nb;
		uint32_t k;

		if (bb->n == 0) {
			if (len > (bb->data_cap & ~15u))
				len = bb->data_cap & ~15u;
			gpudp_cap_batch_lend(bb, c->mem + base, (uint32_t)len);
			k = gpudp_capfile_parse_descs(cf, c->mem + *pos, *pos, len - (*pos - base), to,
						(uint32_t)(*pos - base),
						(struct gpudp_capfile_desc *)bb->desc, bb->max_pkts,
						&used, &nb);
			if (k == 0) {
				gpudp_cap_batch_lend(bb, NULL, 0);
				return 0;   /* a record for the record-by-record reader */
			}
			gpudp_cap_batch_take(bb, (uint32_t)(*pos - base));   /* before the first */
			ft_took(f, bb, k, nb, used, pos, idx);
		}
		/* full, or holding what the record-by-record reader staged */
		if (ft_next_batch(f, b) != 0)
			return -EIO;
	}
	return 0;
}

/* The records of this thread's byte range. */
static int
ft_range(struct fthread *f, struct gpudp_capfile *cf)
{
	struct frange *g = f->rg;
	struct gpudp_cap_batch **b = &f->b;
	struct gpudp_capfile_rec r;
	/* copies: in bulk (ft_bulk()) or from memory (ft_mem()), the reader
	 * taking what they leave */
	int mem = f->shared == NULL && f->c->mem != NULL;
	int rc = 0, fd = f->shared == NULL && !mem ? open(f->c->path, O_RDONLY | O_CLOEXEC) : -1;
	uint64_t pos = 0, idx = 0;

	f->fd = fd;   /* closed by ft_main() if a read of the mapping faults */
	g->end = UINT64_MAX;
	if ((*b = gpudp_cap_engine_get_batch(&f->e)) == NULL)
		return -EIO;
	if (f->t == 0)
		g->guess = gpudp_capfile_tell(cf);   /* right after the file header */
	else if (gpudp_capfile_find_record(cf, g->from, g->to, &g->guess) != 0)
		g->guess = UINT64_MAX;         /* the split cannot hold */
	if (g->guess != UINT64_MAX) {
		if (fd < 0 && !mem)
			ft_populate(f, g->guess, g->to);
		rc = gpudp_capfile_seek(cf, g->guess, 0);
		pos = g->guess;
	}
	while (g->guess != UINT64_MAX && rc == 0) {
		uint32_t k;

		if (fd >= 0 || mem) {
			rc = mem ? ft_mem(f, cf, b, &pos, g->to, &idx) :
				ft_bulk(f, cf, fd, b, &pos, g->to, &idx);
			if ((rc == 0 && pos >= g->to) || rc == -ESTALE) {
				/* (it shrank: nothing past pos is read) */
				g->end = pos;
				rc = 0;
				break;
			}
			if (rc == 0)
				rc = gpudp_capfile_seek(cf, pos, idx);
			if (rc != 0)
				break;
		} else {
			rc = ft_many(f, cf, b, FT_MANY, g->to, &k);
			if (rc != 0 || k != 0)
				continue;
		}
		/* what the fast read leaves: the range's end, the file's, an error */
		if ((rc = gpudp_capfile_next(cf, &r)) != 1)
			break;
		if (r.offset >= g->to) {
			g->end = r.offset;
			rc = 0;
			break;
		}
		rc = ft_record(f, b, &r);
		pos = gpudp_capfile_tell(cf);
		idx = gpudp_capfile_index(cf);
	}
	if (fd >= 0)
		close(fd);
	f->fd = -1;
	if (rc == 0 && g->end == UINT64_MAX)
		g->end = gpudp_capfile_tell(cf);     /* the end of the file */
	return ft_end(f, cf, *b, rc > 0 ? 0 : rc);
}

/* The next chunk of this thread's the walk published: 1, or 0 when there is none. */
static int
ft_chunk_wait(struct fwalk *w, uint64_t k)
{
	while (__atomic_load_n(&w->n_pub, __ATOMIC_ACQUIRE) <= k &&
	       !__atomic_load_n(&w->done, __ATOMIC_ACQUIRE))
		sched_yield();
	return __atomic_load_n(&w->n_pub, __ATOMIC_ACQUIRE) > k;
}

/* Read this thread's chunks where the shared walk says they start. */
static int
ft_chunks(struct fthread *f, struct gpudp_capfile *cf)
{
	const struct gpudp_cap_reader_conf *c = f->c;
	struct gpudp_cap_batch **b = &f->b;
	struct gpudp_capfile_rec r;
	uint64_t k, i;
	int rc = 0;

	if ((*b = gpudp_cap_engine_get_batch(&f->e)) == NULL)
		return -EIO;
	for (k = f->t; rc == 0 && ft_chunk_wait(f->w, k); k += c->threads) {
		if (c->stop != NULL && *c->stop)
			break;
		rc = gpudp_capfile_seek(cf, f->w->starts[k], k * f->chunk);
		if (rc == -EINVAL && f->changed)
			rc = 1;   /* past the end of the file this thread opened, a smaller one */
		if (rc == 0 && __atomic_load_n(&f->w->n_pub, __ATOMIC_ACQUIRE) > k + 1)
			ft_populate(f, f->w->starts[k], f->w->starts[k + 1]);
		for (i = 0; rc == 0 && i < f->chunk; ) {
			uint32_t got;

			rc = ft_many(f, cf, b, f->chunk - i, UINT64_MAX, &got);
			i += got;
			if (rc != 0 || got != 0)
				continue;
			rc = gpudp_capfile_next(cf, &r);
			if (rc == 1)
				rc = ft_record(f, b, &r);
			else if (rc == 0)
				rc = 1;    /* the end of the file */
			i++;
		}
	}
	return ft_end(f, cf, *b, rc > 0 ? 0 : rc);
}

/*
 * Whether the threads' engines share one set of tables (the GPU engine: the
 * kernels of every thread update the same flow table in GPU memory, and
 * the tables are read back once, with no merge). The CPU engine's tables
 * stay each thread's own.
 */
static int
ft_shared(const struct gpudp_cap_reader_conf *c)
{
	return c->threads > 1 && strcmp(c->engine, "gpu") == 0;
}

/* A thread's reader and the file it opened, for bus_guarded(). */
struct fread_arg {
	struct fthread *f;
	struct gpudp_capfile *cf;
};

static int
ft_read(void *arg)
{
	struct fread_arg *a = arg;
	struct fthread *f = a->f;

	return f->rg != NULL ? ft_range(f, a->cf) : f->w != NULL ? ft_chunks(f, a->cf) :
		ft_walk(f, a->cf);
}

/*
 * A read of the thread's mapping faulted: the file shrank under it. It
 * reads no more; what it staged whole is analysed (the record being copied
 * taken back out of its batch). In place the run fails: its batches read
 * the mapping.
 */
static int
ft_fault(struct fthread *f, struct gpudp_capfile *cf)
{
	struct gpudp_cap_batch *b = f->b;

	f->changed = 1;
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
	if (f->shared != NULL || b == NULL) {
		snprintf(f->err, sizeof(f->err), "%s: the file shrank while it was read",
			 f->c->path);
		return -ESTALE;
	}
	if (f->copying != NULL && b->n > 0) {
		b->n--;
		b->cap_bytes -= b->desc[b->n].caplen;
		b->data_used = (uint32_t)(f->copying - b->data);
		f->copying = NULL;
	}
	return ft_end(f, cf, b, 0);
}

static void *
ft_main(void *arg)
{
	struct fthread *f = arg;
	struct fread_arg ra = { .f = f };
	struct gpudp_capfile *cf;
	char name[16];

	/* for top -H and perf: the reader threads by number */
	snprintf(name, sizeof(name), "cap-read-%u", f->t);
	pthread_setname_np(pthread_self(), name);
	f->rc = gpudp_capfile_open(f->c->path, GPUDP_CAPFILE_MMAP, &cf, f->err, sizeof(f->err));
	if (f->rc != 0)
		return NULL;
	f->tmap = gpudp_capfile_map(cf);
	if (f->shared != NULL && (f->tmap == NULL || gpudp_capfile_format_of(cf) != GPUDP_CAPFILE_PCAP)) {
		/* the file changed since the run looked at it */
		snprintf(f->err, sizeof(f->err), "%s: no longer a mapped pcap file", f->c->path);
		f->rc = -EIO;
		gpudp_capfile_close(cf);
		return NULL;
	}
	if (gpudp_capfile_size(cf) != f->size)
		f->changed = 1;   /* another size than when the run began */
	ra.cf = cf;
	if (bus_guarded(ft_read, &ra, &f->rc) != 0)
		f->rc = ft_fault(f, cf);
	else if (gpudp_capfile_truncated(cf, &f->trunc_off)) {
		f->truncated = 1;
		f->trunc_idx = gpudp_capfile_index(cf);
	}
	if (f->rc != 0 && f->err[0] == '\0')
		snprintf(f->err, sizeof(f->err), "%s", f->e.err);
	gpudp_capfile_close(cf);
	if (f->rc == 0 && !ft_shared(f->c)) {
		/* the engine's tables read back (GPU) on this thread, beside the others */
		double t0 = gpudp_cap_now_s();

		f->crc = gpudp_cap_engine_collect(&f->e, f->a);
		f->collect_s = gpudp_cap_now_s() - t0;
	}
	return NULL;
}

/* In place: nothing to give back (the mapping outlives the engines). */
static void
ft_release(void *arg, void **owner, uint32_t n)
{
	(void)arg;
	(void)owner;
	(void)n;
}

/*
 * Shared tables (ft_shared()): once every thread flushed, the sharers'
 * counters, then thread 0's engine's tables, which hold every thread's.
 */
static void
ft_collect_shared(struct fthread *ft, uint32_t n)
{
	double t0 = gpudp_cap_now_s();
	uint32_t t;

	for (t = 0; t < n; t++)
		if (ft[t].rc != 0)
			return;
	for (t = n; t-- > 0; )
		ft[t].crc = gpudp_cap_engine_collect(&ft[t].e, ft[t].a);
	ft[0].collect_s = gpudp_cap_now_s() - t0;
}

/* The threads' engines, made one after the other (errors said once). */
static int
ft_create(struct fthread *ft, const struct gpudp_cap_reader_conf *c,
	  enum gpudp_cap_reader_stage stage, char *err, size_t errlen)
{
	struct gpudp_cap_engine_conf ec = c->ec;
	uint32_t t;
	int rc;

	ec.mem = stage == GPUDP_CAP_READER_STAGE_COPY ? GPUDP_CAP_MEM_STAGED : GPUDP_CAP_MEM_HOST;
	ec.gather = stage == GPUDP_CAP_READER_STAGE_GATHER;
	ec.release = ft_release;
	ec.done = ft_done;
	for (t = 0; t < c->threads; t++) {
		ft[t].c = c;
		ft[t].t = t;
		ft[t].chunk = c->chunk != 0 ? c->chunk : GPUDP_CAP_READER_CHUNK;
		ft[t].bulk = c->read_bytes != 0 ? c->read_bytes : FT_BULK_BYTES;
		ft[t].fd = -1;
		ec.done_arg = &ft[t];
		ec.share = t > 0 && ft_shared(c) ? &ft[0].e : NULL;
		rc = gpudp_cap_engine_create(&ft[t].e, c->engine, &ec, err, errlen);
		if (rc != 0)
			return rc;
		ft[t].a = gpudp_analysis_create(ec.flow_capacity, &ec.filter);
		if (ft[t].a == NULL ||
		    gpudp_analysis_set_match(ft[t].a, ec.match, ec.match_flags) != 0) {
			snprintf(err, errlen, "out of memory for thread %u's tables", t);
			return -ENOMEM;
		}
	}
	return 0;
}

/* A merge of the tree (ft_merge_all()): src's result into dst's. */
struct mjob {
	struct fthread *dst, *src;
	int rc;
};

static void *
mjob_main(void *arg)
{
	struct mjob *m = arg;

	m->rc = gpudp_analysis_add(m->dst->a, m->src->a);
	return NULL;
}

/* A thread on conf->cpus when given (else where the caller may run). @return 0 or an errno */
static int
cf_thread(const struct gpudp_cap_reader_conf *c, pthread_t *tid, void *(*fn)(void *), void *arg)
{
	pthread_attr_t at;
	int rc = pthread_attr_init(&at);

	if (rc == 0 && c->cpus != NULL)
		rc = pthread_attr_setaffinity_np(&at, sizeof(*c->cpus), c->cpus);
	if (rc == 0)
		rc = pthread_create(tid, &at, fn, arg);
	pthread_attr_destroy(&at);
	return rc;
}

/*
 * The threads' results into thread 0's, in pairs at once (a tree: log2(n)
 * rounds), then into @p out. Its threads run where the readers ran
 * (conf->cpus): the caller may be pinned to one CPU (gpudp-capture's main
 * lcore), and merges all on it took longer than the reading.
 * @return 0 or -ENOSPC (flows that did not fit, counted as drops)
 */
static int
ft_merge_all(const struct gpudp_cap_reader_conf *c, struct fthread *ft, uint32_t n,
	     struct gpudp_analysis *out)
{
	struct mjob job[GPUDP_CAP_READER_THREADS_MAX / 2];
	pthread_t tid[GPUDP_CAP_READER_THREADS_MAX / 2];
	int started[GPUDP_CAP_READER_THREADS_MAX / 2];
	uint32_t step, i, k, nj;
	int rc = 0;

	if (ft_shared(c)) {  /* thread 0's result has the tables, the others counters */
		for (k = 1; k < n; k++)
			gpudp_analysis_merge(ft[0].a, &ft[k].a->ctr, NULL, 0);
		return gpudp_analysis_take(out, ft[0].a) != 0 ? -ENOSPC : 0;
	}
	for (step = 1; step < n; step *= 2) {
		for (i = 0, nj = 0; i + step < n; i += 2 * step, nj++) {
			job[nj] = (struct mjob){ .dst = &ft[i], .src = &ft[i + step] };
			started[nj] = cf_thread(c, &tid[nj], mjob_main, &job[nj]) == 0;
			if (!started[nj])
				mjob_main(&job[nj]);   /* no thread: here */
		}
		for (k = 0; k < nj; k++) {
			if (started[k])
				pthread_join(tid[k], NULL);
			if (job[k].rc != 0)
				rc = job[k].rc;
		}
	}
	if (gpudp_analysis_take(out, ft[0].a) != 0)
		rc = -ENOSPC;
	return rc;
}

/* Thread t's stats into @p st (its times from @p t0 on). @return its engine's collect error, or 0 */
static int
ft_stats(struct fthread *f, struct gpudp_cap_reader_stats *st, double t0)
{
	int rc = f->crc;

	if (rc != 0 && rc != -ENOSPC)
		return rc;
	st->records += f->records;
	st->bytes += f->bytes;
	gpudp_cap_engine_stats_add(&st->eng, &f->e.st);
	if (f->collect_s > st->collect_s)
		st->collect_s = f->collect_s;
	if (f->staged_at - t0 > st->staged_s)
		st->staged_s = f->staged_at - t0;
	if (f->flushed_at - t0 > st->flushed_s)
		st->flushed_s = f->flushed_at - t0;
	if (f->t == 0)
		memcpy(st->eng.device, f->e.st.device, sizeof(st->eng.device));
	return rc;
}

/* A thread, on conf->cpus when given. @return 0 or an error number */
static int
ft_start(const struct gpudp_cap_reader_conf *c, pthread_t *tid, struct fthread *f)
{
	return cf_thread(c, tid, ft_main, f);
}

static void
ft_free(struct fthread *ft, uint32_t n)
{
	uint32_t t, s;

	/* the sharers first: the owner's tables outlive them */
	for (t = n; t-- > 0; ) {
		gpudp_cap_engine_destroy(&ft[t].e);
		gpudp_analysis_free(ft[t].a);
		for (s = 0; s < FT_SLOTS; s++)
			free(ft[t].slot_idx[s]);
	}
	free(ft);
}

/* What the split and the shared walk need to know of the file, read once a run. */
struct flayout {
	int pcap;        /* a pcap file (0: pcapng, or one the threads will refuse) */
	uint64_t size;   /* its bytes */
	uint64_t start;  /* its first record's offset (pcap) */
};

static void
layout_get(const char *path, struct flayout *l)
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
static struct fwalk *
walk_new(const struct flayout *l, uint32_t chunk)
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

/* The walk's reader, for bus_guarded(). */
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

	/* chunk by chunk, by the records' lengths (gpudp_capfile_skip()); where it
	 * stops early, gpudp_capfile_next() tells the end of the file from an error */
	for (k = 0; rc == 0 && k < a->w->cap; k++) {
		uint64_t off = gpudp_capfile_tell(a->cf);

		if (a->c->max_records != 0 && k * a->chunk >= a->c->max_records)
			break;
		if (gpudp_capfile_skip(a->cf, a->chunk) == 0) {
			rc = gpudp_capfile_next(a->cf, &r);
			if (rc == 1)
				rc = -EINVAL;   /* gpudp_capfile_skip() refused what gpudp_capfile_next() takes */
			break;
		}
		a->w->starts[k] = off;
		__atomic_store_n(&a->w->n_pub, k + 1, __ATOMIC_RELEASE);
	}
	return rc;
}

static void
walk_run(const struct gpudp_cap_reader_conf *c, struct fwalk *w, uint32_t chunk, uint64_t size)
{
	struct gpudp_capfile *cf = NULL;
	struct wread_arg a = { .c = c, .w = w, .chunk = chunk };
	int rc = gpudp_capfile_open(c->path, GPUDP_CAPFILE_MMAP | GPUDP_CAPFILE_SKIP_DATA, &cf, w->err,
			      sizeof(w->err));

	if (rc == 0) {
		a.cf = cf;
		/* a file that shrank: the chunks published are read, no more */
		w->changed = gpudp_capfile_size(cf) != size;
		if (bus_guarded(walk_chunks, &a, &rc) != 0) {
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
static struct frange *
ranges_new(const struct gpudp_cap_reader_conf *c, const struct flayout *l)
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

/* Whether the ranges joined (see struct frange). */
static int
ranges_joined(const struct frange *g, uint32_t n)
{
	uint32_t t;

	for (t = 0; t + 1 < n; t++)
		if (g[t + 1].guess == UINT64_MAX || g[t].end != g[t + 1].guess)
			return 0;
	return 1;
}

static void
shared_unmap(struct fshared *m, struct fthread *ft0)
{
	if (m->registered)
		gpudp_cap_engine_host_unregister(&ft0->e, m->base);
	gpudp_capfile_close(m->cf);
	memset(m, 0, sizeof(*m));
}

/*
 * The engines, for records in place when conf.stage asks for it: the file
 * mapped and registered through thread 0's engine.
 */
static int
ft_prepare(struct fthread *ft, const struct gpudp_cap_reader_conf *c, const struct flayout *l,
	   struct fshared *m, struct gpudp_cap_reader_stats *st, char *err, size_t errlen)
{
	enum gpudp_cap_reader_stage stage = c->stage == GPUDP_CAP_READER_STAGE_AUTO ?
		GPUDP_CAP_READER_STAGE_COPY : c->stage;
	double t0 = gpudp_cap_now_s();
	uint32_t t;
	int rc;

	st->stage = stage;
	if (stage != GPUDP_CAP_READER_STAGE_COPY && !l->pcap) {
		snprintf(err, errlen, "--stage %s: records are read in place from pcap files "
			 "only (%s)", gpudp_cap_reader_stage_name(stage), c->path);
		return -ENOTSUP;
	}
	rc = ft_create(ft, c, stage, err, errlen);
	if (rc != 0 || stage == GPUDP_CAP_READER_STAGE_COPY)
		return rc;
	rc = gpudp_capfile_open(c->path, GPUDP_CAPFILE_MMAP, &m->cf, err, errlen);
	if (rc == 0) {
		m->base = gpudp_capfile_map(m->cf);
		rc = gpudp_cap_engine_host_register(&ft[0].e, m->base, l->size);
		m->registered = rc == 0;
		if (rc != 0)
			snprintf(err, errlen, "cannot register %s with the GPU for reading in "
				 "place: %s", c->path, ft[0].e.err);
	}
	for (t = 0; rc == 0 && t < c->threads; t++)
		ft[t].shared = m->base;
	st->register_s = gpudp_cap_now_s() - t0;
	return rc;
}

/*
 * What the run saw of the file itself: its end inside a record (counted
 * once, where the run read up to it: not stopped, nor cut short by a
 * record limit below the complete records, which pcapng's walks read on
 * past), another size than when it began (where a thread or the walk
 * opened it, on a read, at the end).
 */
static void
file_seen(const struct gpudp_cap_reader_conf *c, const struct fthread *ft, const struct fwalk *w,
	  uint64_t size, struct gpudp_cap_reader_stats *st)
{
	int cut = w != NULL && w->truncated;
	uint64_t at = w != NULL ? w->trunc_off : 0, idx = w != NULL ? w->trunc_idx : 0;
	struct stat sb;
	uint32_t t;

	st->changed = w != NULL && w->changed;
	for (t = 0; t < c->threads; t++) {
		st->changed |= ft[t].changed;
		if (ft[t].truncated) {
			cut = 1;
			at = ft[t].trunc_off;
			idx = ft[t].trunc_idx;
		}
	}
	st->size_start = size;
	st->size_end = stat(c->path, &sb) == 0 ? (uint64_t)sb.st_size : size;
	if (st->size_end != size)
		st->changed = 1;
	if (cut && (c->stop == NULL || !*c->stop) &&
	    (c->max_records == 0 || c->max_records >= idx)) {
		st->errors = 1;
		st->trunc_offset = at;
	}
}

/*
 * One run: the threads' engines, the walk (shared, byte ranges, or each
 * thread's own), the merge. With byte ranges that did not join (or a
 * thread's read error there), nothing is merged: -EAGAIN.
 */
static int
file_run(const struct gpudp_cap_reader_conf *c, const struct flayout *l, struct frange *rg,
	 struct gpudp_analysis *out, struct gpudp_cap_reader_stats *st, char *err, size_t errlen)
{
	uint32_t chunk = c->chunk != 0 ? c->chunk : GPUDP_CAP_READER_CHUNK;
	struct fshared m = { 0 };
	struct fthread *ft;
	struct fwalk *w;
	pthread_t tid[GPUDP_CAP_READER_THREADS_MAX];
	uint32_t t, started = 0;
	double t0;
	int rc;

	memset(st, 0, sizeof(*st));
	ft = calloc(c->threads, sizeof(*ft));
	if (ft == NULL) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	rc = ft_prepare(ft, c, l, &m, st, err, errlen);
	w = rc == 0 && rg == NULL ? walk_new(l, chunk) : NULL;
	for (t = 0; t < c->threads; t++) {
		ft[t].w = w;
		ft[t].rg = rg != NULL ? &rg[t] : NULL;
		ft[t].size = l->size;
	}
	/* registering the file is part of the run (it is proportional to it) */
	t0 = gpudp_cap_now_s() - st->register_s;
	for (t = 0; rc == 0 && t < c->threads; t++, started++)
		if (ft_start(c, &tid[t], &ft[t]) != 0) {
			snprintf(err, errlen, "cannot start thread %u", t);
			rc = -EAGAIN;
		}
	if (w != NULL && rc == 0)
		walk_run(c, w, chunk, l->size);
	else if (w != NULL)
		__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
	for (t = 0; t < started; t++)
		pthread_join(tid[t], NULL);
	if (rc == 0 && ft_shared(c))
		ft_collect_shared(ft, c->threads);
	st->read_s = gpudp_cap_now_s() - t0;
	if (rc == 0 && w != NULL && w->rc != 0) {
		snprintf(err, errlen, "%s", w->err);
		rc = w->rc;
	}
	for (t = 0; rc == 0 && t < c->threads; t++)
		if (ft[t].rc != 0) {
			snprintf(err, errlen, "%s", ft[t].err);
			rc = ft[t].rc;
		}
	if (rg != NULL && (rc != 0 || !ranges_joined(rg, c->threads)))
		rc = -EAGAIN;   /* the shared walk decides */
	for (t = 0; (rc == 0 || rc == -ENOSPC) && t < c->threads; t++) {
		int r = ft_stats(&ft[t], st, t0);

		if (r != 0 && ft[t].e.err[0] != '\0')
			snprintf(err, errlen, "%s", ft[t].e.err);
		if (r != 0 && (rc == 0 || r != -ENOSPC))
			rc = r;
	}
	if ((rc == 0 || rc == -ENOSPC) && ft_merge_all(c, ft, c->threads, out) != 0)
		rc = -ENOSPC;
	file_seen(c, ft, w, l->size, st);
	st->seconds = gpudp_cap_now_s() - t0;
	st->merge_s = st->seconds - st->read_s;
	st->ranges = rg != NULL && rc != -EAGAIN;
	st->in_memory = st->ranges && c->mem != NULL && st->stage == GPUDP_CAP_READER_STAGE_COPY;
	/* every batch is done (the threads flushed): the GPU reads it no more */
	shared_unmap(&m, &ft[0]);
	ft_free(ft, c->threads);
	if (w != NULL)
		free(w->starts);
	free(w);
	return rc;
}

/* the copy's mapping: room past the file's end for 16-byte reads, in 2 MiB pages */
#define MEM_ALIGN (2u << 20)

int
gpudp_cap_reader_mem_load(struct gpudp_cap_reader_mem *m, const char *path, char *err,
			  size_t errlen)
{
	double t0 = gpudp_cap_now_s();
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc;
	struct stat st;
	uint64_t got = 0;
	void *p;

	memset(m, 0, sizeof(*m));
	if (fd < 0 || fstat(fd, &st) != 0) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return rc;
	}
	m->len = (uint64_t)st.st_size;
	m->alloc = (size_t)((m->len + 16 + MEM_ALIGN - 1) & ~(uint64_t)(MEM_ALIGN - 1));
	p = mmap(NULL, m->alloc, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		snprintf(err, errlen, "%s: no memory for its %llu bytes", path,
			 (unsigned long long)m->len);
		close(fd);
		return -ENOMEM;
	}
	m->buf = p;
	madvise(p, m->alloc, MADV_HUGEPAGE);   /* fewer pages to register; a hint */
	while (got < m->len) {
		ssize_t r = pread(fd, m->buf + got, m->len - got < (1u << 30) ? m->len - got :
				  (1u << 30), (off_t)got);

		if (r <= 0) {
			snprintf(err, errlen, "reading %s: %s", path,
				 r < 0 ? strerror(errno) : "it shrank");
			close(fd);
			gpudp_cap_reader_mem_free(m);
			return -EIO;
		}
		got += (uint64_t)r;
	}
	close(fd);
	m->load_s = gpudp_cap_now_s() - t0;
	return 0;
}

int
gpudp_cap_reader_mem_register(struct gpudp_cap_reader_mem *m, int gpu_device, char *err,
			      size_t errlen)
{
	struct gpudp_cap_engine_conf ec = {
		.batch_pkts = 64, .batch_bytes = 65536, .flow_capacity = 1024,
		.gpu_device = gpu_device, .inflight = 1,
	};
	double t0 = gpudp_cap_now_s();
	int rc = gpudp_cap_engine_create(&m->reg, "gpu", &ec, err, errlen);

	if (rc != 0)
		return rc;   /* m->reg.ops is NULL */
	rc = gpudp_cap_engine_host_register(&m->reg, m->buf, m->alloc);
	if (rc != 0) {
		snprintf(err, errlen, "registering the copy in memory: %.200s", m->reg.err);
		gpudp_cap_engine_destroy(&m->reg);
		return rc;
	}
	m->register_s = gpudp_cap_now_s() - t0;
	return 0;
}

void
gpudp_cap_reader_mem_free(struct gpudp_cap_reader_mem *m)
{
	if (m->reg.ops != NULL) {
		gpudp_cap_engine_host_unregister(&m->reg, m->buf);
		gpudp_cap_engine_destroy(&m->reg);
	}
	if (m->buf != NULL)
		munmap(m->buf, m->alloc);
	memset(m, 0, sizeof(*m));
}

int
gpudp_cap_reader_run(const struct gpudp_cap_reader_conf *c, struct gpudp_analysis *out,
		     struct gpudp_cap_reader_stats *st, char *err, size_t errlen)
{
	struct flayout l;
	struct frange *rg;
	int rc, changed;

	memset(st, 0, sizeof(*st));
	if (c->threads == 0 || c->threads > GPUDP_CAP_READER_THREADS_MAX || c->path == NULL ||
	    c->chunk % 32 != 0) {
		snprintf(err, errlen, "bad direct reader configuration");
		return -EINVAL;
	}
	layout_get(c->path, &l);
	if (c->mem != NULL && (!l.pcap || c->mem_len != l.size || (uintptr_t)c->mem % 16 != 0)) {
		if (!l.pcap)
			snprintf(err, errlen, "%s: a copy in memory is read for pcap files only",
				 c->path);
		else if (c->mem_len != l.size)
			snprintf(err, errlen, "%s: the copy in memory has %llu bytes, the file %llu",
				 c->path, (unsigned long long)c->mem_len,
				 (unsigned long long)l.size);
		else
			snprintf(err, errlen, "%s: the copy in memory is not 16-byte aligned",
				 c->path);
		return -EINVAL;
	}
	bus_install(1);
	rg = ranges_new(c, &l);
	rc = rg != NULL ? file_run(c, &l, rg, out, st, err, errlen) : -EAGAIN;
	free(rg);
	changed = st->changed;   /* (ranges that did not join: maybe as it shrank) */
	if (rc == -EAGAIN)
		rc = file_run(c, &l, NULL, out, st, err, errlen);
	st->changed |= changed;
	bus_install(0);
	return rc;
}

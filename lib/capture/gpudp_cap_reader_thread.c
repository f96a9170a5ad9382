/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The threaded reader: one thread's share of the records into the batches
 * of its engine (gpudp_cap_reader_pvt.h).
 *
 * Records reach the batches two ways:
 *  - one by one (ft_stage()): each record the file reader gives
 *    (gpudp_capfile_next(), or several at once from the mapping with
 *    gpudp_capfile_next_many(): ft_next()) is copied into the batch, or
 *    referenced where it is when records are read in place. Every share is
 *    read this way: pcapng files, the shared walk's chunks, records in
 *    place, and what the bulk way leaves.
 *  - in bulk (ft_bulk()), for copies of a byte range: the range's bytes
 *    land in the batch's data area at once, read there with pread() or
 *    lent from the caller's copy of the file (conf.mem), and the file
 *    reader describes the records among them where they landed
 *    (gpudp_capfile_parse_descs()).
 * Two ways because a byte range is the only share whose records need
 * neither their numbers (the verdicts by record, the record limit: a range
 * has neither) nor a read of the blocks before them (pcapng), nor stay
 * where they are (in place): its bytes can land in a batch untouched on
 * the host, with no copy of each record, which is what the bulk way is
 * for. Where the bulk way cannot take a record (one its checks do not
 * pass, one larger than what a batch holds, the end of the file), the
 * reader takes it one by one.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "gpudp_cap_reader_pvt.h"

/* Records read at once (gpudp_capfile_next_many()), in bunches of */
#define FT_MANY 256u

/* A batch is done: its filter verdicts into the run's bitmap, by record. */
void
gpudp_cap_rd_done(void *arg, const struct gpudp_cap_batch *b)
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

/*
 * One record into the thread's current batch, copied or in place (a full
 * batch is submitted). @return 0, 1 (past conf.max_records) or a negative
 * errno
 */
static int
ft_stage(struct fthread *f, const struct gpudp_capfile_mrec *r)
{
	uint8_t *dst = NULL;
	int rc;

	if (f->c->max_records != 0 && r->index >= f->c->max_records)
		return 1;
	if (f->shared != NULL)   /* in place: where it is in the run's mapping */
		rc = gpudp_cap_engine_room_ref(&f->e, &f->b, (uintptr_t)f->shared +
					       (uint64_t)(r->data - f->tmap), r->caplen,
					       r->wirelen, r->ts_ns);
	else
		rc = gpudp_cap_engine_room(&f->e, &f->b, r->caplen, r->wirelen, r->ts_ns, &dst);
	if (rc == -E2BIG)
		snprintf(f->err, sizeof(f->err), "record %llu: %u bytes do not fit a batch "
			 "(the engines' batch_bytes)", (unsigned long long)r->index + 1, r->caplen);
	if (rc != 0)
		return rc;
	if (dst != NULL) {
		/* a fault of the mapping while copying takes the record back
		 * (ft_fault()): the batch as it is now, seen after the jump */
		f->copying = dst;
		atomic_signal_fence(memory_order_seq_cst);
		memcpy(dst, r->data, r->caplen);
		atomic_signal_fence(memory_order_seq_cst);
		f->copying = NULL;
	}
	f->records++;
	f->bytes += r->caplen;
	return ft_note(f, f->b, r->index);
}

/* @p k records one by one (ft_stage()). @return 0, 1 (past the limit) or a negative errno */
static int
ft_stage_all(struct fthread *f, const struct gpudp_capfile_mrec *r, int k)
{
	int i, rc;

	for (i = 0; i < k; i++)
		if ((rc = ft_stage(f, &r[i])) != 0)
			return rc;
	return 0;
}

/*
 * Up to @p n of the reader's next records whose headers start before
 * @p end: several at once from the mapping where the reader can
 * (gpudp_capfile_next_many()), else one (gpudp_capfile_next(): pcapng, a
 * record the fast read leaves, the end). @return how many (0: the end of
 * the file, or @p end), or a negative errno (f->err says why, or the
 * reader's error)
 */
static int
ft_next(struct fthread *f, struct gpudp_capfile *cf, struct gpudp_capfile_mrec *r, uint32_t n,
	uint64_t end)
{
	struct gpudp_capfile_rec rec;
	uint32_t k = gpudp_capfile_next_many(cf, r, n, end);
	int rc;

	if (k > 0)
		return (int)k;
	if (gpudp_capfile_tell(cf) >= end)
		return 0;
	rc = gpudp_capfile_next(cf, &rec);
	if (rc != 1)
		return rc;
	/* (past the record limit, ft_stage() stops before it says so) */
	if (rec.linktype != GPUDP_CAPFILE_LINKTYPE_ETHERNET &&
	    (f->c->max_records == 0 || rec.index < f->c->max_records)) {
		snprintf(f->err, sizeof(f->err), "record %llu: link type %u, not Ethernet",
			 (unsigned long long)rec.index + 1, rec.linktype);
		return -EPROTONOSUPPORT;
	}
	*r = (struct gpudp_capfile_mrec){
		.data = rec.data, .index = rec.index, .offset = rec.offset,
		.ts_ns = rec.ts_sec * 1000000000ull + rec.ts_nsec,
		.caplen = rec.caplen, .wirelen = rec.wirelen,
	};
	return 1;
}

/* The end of a thread's records: a read error, or the last batch submitted. */
static int
ft_end(struct fthread *f, struct gpudp_capfile *cf, int rc)
{
	if (rc < 0) {
		if (f->err[0] == '\0')
			snprintf(f->err, sizeof(f->err), "%s", gpudp_capfile_error(cf));
		return rc;
	}
	rc = gpudp_cap_engine_submit(&f->e, f->b) != 0 ? -EIO : 0;
	f->staged_at = gpudp_cap_now_s();
	if (rc == 0)
		rc = gpudp_cap_engine_flush(&f->e);
	/* the end of the input: every flow ends (the flow monitor) */
	if (rc == 0)
		rc = gpudp_cap_engine_end_flows(&f->e);
	f->flushed_at = gpudp_cap_now_s();
	return rc;
}

/* The batch submitted, f->b the next free one. @return 0 or -EIO */
static int
ft_next_batch(struct fthread *f)
{
	if (gpudp_cap_engine_submit(&f->e, f->b) != 0 ||
	    (f->b = gpudp_cap_engine_get_batch(&f->e)) == NULL)
		return -EIO;
	return 0;
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

/* Walk the whole file (pcapng); stage this thread's chunks. @return 0, 1 or a negative errno */
static int
ft_walk(struct fthread *f, struct gpudp_capfile *cf)
{
	const struct gpudp_cap_reader_conf *c = f->c;
	struct gpudp_capfile_mrec mr[FT_MANY];
	int i, k, rc;

	for (;;) {
		k = ft_next(f, cf, mr, FT_MANY, UINT64_MAX);
		if (k <= 0)
			return k;
		for (i = 0; i < k; i++) {
			if ((mr[i].index / f->chunk) % c->threads != f->t)
				continue;
			if (mr[i].index % f->chunk == 0 && c->stop != NULL && *c->stop)
				return 1;
			if ((rc = ft_stage(f, &mr[i])) != 0)
				return rc;
		}
	}
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

/* A chunk's records from the reader's position on. @return 0, 1 (the end) or a negative errno */
static int
ft_chunk(struct fthread *f, struct gpudp_capfile *cf, struct gpudp_capfile_mrec *mr)
{
	uint32_t i;
	int k, rc;

	for (i = 0; i < f->chunk; i += (uint32_t)k) {
		k = ft_next(f, cf, mr, f->chunk - i < FT_MANY ? f->chunk - i : FT_MANY,
			    UINT64_MAX);
		if (k <= 0)
			return k == 0 ? 1 : k;   /* the end of the file, or an error */
		if ((rc = ft_stage_all(f, mr, k)) != 0)
			return rc;
	}
	return 0;
}

/* Read this thread's chunks where the shared walk says they start. */
static int
ft_chunks(struct fthread *f, struct gpudp_capfile *cf)
{
	const struct gpudp_cap_reader_conf *c = f->c;
	struct gpudp_capfile_mrec mr[FT_MANY];
	uint64_t k;
	int rc = 0;

	for (k = f->t; rc == 0 && ft_chunk_wait(f->w, k); k += c->threads) {
		if (c->stop != NULL && *c->stop)
			break;
		rc = gpudp_capfile_seek(cf, f->w->starts[k], k * f->chunk);
		if (rc == -EINVAL && f->changed)
			return 1;   /* past the end of the file this thread opened, a smaller one */
		if (rc == 0 && __atomic_load_n(&f->w->n_pub, __ATOMIC_ACQUIRE) > k + 1)
			ft_populate(f, f->w->starts[k], f->w->starts[k + 1]);
		if (rc == 0)
			rc = ft_chunk(f, cf, mr);
	}
	return rc;
}

/*
 * In bulk: the bytes of the range from @p pos on, in the batch's data area:
 * read there at its tail (pread()), or, from the caller's copy of the file
 * (conf.mem), lent to the batch, empty, from the 16-byte boundary below
 * @p pos (gpudp_cap_batch_lend()). @return 0 (*buf, *len: the bytes from
 * @p pos on; *off0: where *buf is in the batch's data area), 1 (the same,
 * but the read ended before the size the file had when the run began: it
 * shrank), or -EIO
 */
static int
ft_bulk_bytes(struct fthread *f, struct gpudp_cap_batch *bb, uint64_t pos, const uint8_t **buf,
	      uint64_t *len, uint32_t *off0)
{
	const struct gpudp_cap_reader_conf *c = f->c;
	uint32_t want = gpudp_cap_batch_tail_room(bb);
	ssize_t got = 0;

	if (c->mem != NULL) {
		uint64_t base = pos & ~(uint64_t)15, n = c->mem_len - base;

		if (n > (bb->data_cap & ~15u))
			n = bb->data_cap & ~15u;
		gpudp_cap_batch_lend(bb, c->mem + base, (uint32_t)n);
		*buf = c->mem + pos;
		*len = n - (pos - base);
		*off0 = (uint32_t)(pos - base);
		return 0;
	}
	if (want > f->bulk)
		want = f->bulk;
	if (want >= 16)
		got = pread(f->fd, gpudp_cap_batch_tail(bb), want, (off_t)pos);
	if (got < 0) {
		snprintf(f->err, sizeof(f->err), "read error at offset %llu: %s",
			 (unsigned long long)pos, strerror(errno));
		return -EIO;
	}
	*buf = gpudp_cap_batch_tail(bb);
	*len = (uint64_t)got;
	*off0 = bb->data_used;
	return want >= 16 && (uint64_t)got < want && pos + (uint64_t)got < f->size;
}

/*
 * In bulk: the range's records from *pos on, their bytes in the batches'
 * data areas (ft_bulk_bytes()) and described where they are there. Their
 * headers stay between them: the GPU engine gathers each record's bytes
 * alone. It stops at @p to, and where a record is not passed by the
 * checks or does not fit an empty batch, so that the reader takes it one
 * by one. @return 0 (*pos, *idx: where it stopped), -ESTALE (a read ended
 * before the size the file had when the run began: it shrank; the records
 * that are left whole are taken) or a negative errno
 */
static int
ft_bulk(struct fthread *f, struct gpudp_capfile *cf, uint64_t *pos, uint64_t to, uint64_t *idx)
{
	int lend = f->c->mem != NULL, shrank;

	while (*pos < to) {
		struct gpudp_cap_batch *bb = f->b;
		const uint8_t *buf;
		uint64_t len, used, nb;
		uint32_t off0, k;

		if (lend && bb->n != 0) {   /* bytes are lent to an empty batch */
			if (ft_next_batch(f) != 0)
				return -EIO;
			continue;
		}
		if ((shrank = ft_bulk_bytes(f, bb, *pos, &buf, &len, &off0)) < 0)
			return shrank;
		/* described straight into the batch's descriptors */
		k = gpudp_capfile_parse_descs(cf, buf, *pos, len, to, off0, bb->desc + bb->n,
					      gpudp_cap_batch_pkt_room(bb), &used, &nb);
		bb->n += k;
		bb->cap_bytes += (uint32_t)nb;
		gpudp_cap_batch_take(bb, off0 + (uint32_t)used - bb->data_used);
		f->records += k;
		f->bytes += nb;
		*idx += k;
		*pos += used;
		f->changed |= shrank;
		if (used == 0 && bb->n == 0) {   /* a record for the reader one by one, */
			if (lend)
				gpudp_cap_batch_lend(bb, NULL, 0);
			return shrank ? -ESTALE : 0;   /* or the end of what is left */
		}
		/* lent bytes, nothing taken (the next record does not fit what is
		 * left), or full: the next batch */
		if ((lend || used == 0 || gpudp_cap_batch_tail_room(bb) < 64) &&
		    ft_next_batch(f) != 0)
			return -EIO;
	}
	return 0;
}

/*
 * A byte range's records from the reader's position on: in bulk where it
 * can (copies), one by one where not. @return 0 or a negative errno
 */
static int
ft_range_read(struct fthread *f, struct gpudp_capfile *cf, int bulk)
{
	struct frange *g = f->rg;
	struct gpudp_capfile_mrec mr[FT_MANY];
	uint64_t pos = gpudp_capfile_tell(cf), idx = 0;
	int k, rc;

	for (;;) {
		if (bulk) {
			rc = ft_bulk(f, cf, &pos, g->to, &idx);
			if ((rc == 0 && pos >= g->to) || rc == -ESTALE) {
				g->end = pos;   /* (it shrank: nothing past pos is read) */
				return 0;
			}
			if (rc == 0)
				rc = gpudp_capfile_seek(cf, pos, idx);
			if (rc != 0)
				return rc;
		}
		/* what the bulk read leaves, or every record: the range's end,
		 * the file's, an error */
		k = ft_next(f, cf, mr, bulk ? 1 : FT_MANY, g->to);
		if (k <= 0) {
			if (k == 0)
				g->end = gpudp_capfile_tell(cf);
			return k;
		}
		if ((rc = ft_stage_all(f, mr, k)) != 0)
			return rc;
		pos = gpudp_capfile_tell(cf);
		idx = gpudp_capfile_index(cf);
	}
}

/* The records of this thread's byte range. */
static int
ft_range(struct fthread *f, struct gpudp_capfile *cf)
{
	struct frange *g = f->rg;
	int bulk, rc = 0;

	/* copies: in bulk, from memory or read with pread() (no mapping: no
	 * page faults, nothing to unmap); a file that cannot be opened again
	 * is read through the mapping */
	if (f->shared == NULL && f->c->mem == NULL)
		f->fd = open(f->c->path, O_RDONLY | O_CLOEXEC);
	bulk = f->shared == NULL && (f->c->mem != NULL || f->fd >= 0);
	g->end = UINT64_MAX;
	if (f->t == 0)
		g->guess = gpudp_capfile_tell(cf);   /* right after the file header */
	else if (gpudp_capfile_find_record(cf, g->from, g->to, &g->guess) != 0)
		g->guess = UINT64_MAX;               /* the split cannot hold */
	if (g->guess != UINT64_MAX) {
		if (!bulk)
			ft_populate(f, g->guess, g->to);
		rc = gpudp_capfile_seek(cf, g->guess, 0);
		if (rc == 0)
			rc = ft_range_read(f, cf, bulk);
	}
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
	if (rc == 0 && g->end == UINT64_MAX)
		g->end = gpudp_capfile_tell(cf);     /* the end of the file */
	return rc;
}

int
gpudp_cap_rd_shared(const struct gpudp_cap_reader_conf *c)
{
	/* the GPU engine: the kernels of every thread update the same flow
	 * table in GPU memory, read back once, with no merge; the CPU
	 * engine's tables stay each thread's own */
	return c->threads > 1 && strcmp(c->engine, "gpu") == 0;
}

/* A thread's reader and the file it opened, for gpudp_cap_rd_bus_guarded(). */
struct fread_arg {
	struct fthread *f;
	struct gpudp_capfile *cf;
};

static int
ft_read(void *arg)
{
	struct fread_arg *a = arg;
	struct fthread *f = a->f;
	int rc;

	if ((f->b = gpudp_cap_engine_get_batch(&f->e)) == NULL)
		return -EIO;
	rc = f->rg != NULL ? ft_range(f, a->cf) : f->w != NULL ? ft_chunks(f, a->cf) :
		ft_walk(f, a->cf);
	return ft_end(f, a->cf, rc > 0 ? 0 : rc);
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
	return ft_end(f, cf, 0);
}

void *
gpudp_cap_rd_thread(void *arg)
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
	if (f->shared != NULL &&
	    (f->tmap == NULL || gpudp_capfile_format_of(cf) != GPUDP_CAPFILE_PCAP)) {
		/* the file changed since the run looked at it */
		snprintf(f->err, sizeof(f->err), "%s: no longer a mapped pcap file", f->c->path);
		f->rc = -EIO;
		gpudp_capfile_close(cf);
		return NULL;
	}
	if (gpudp_capfile_size(cf) != f->size)
		f->changed = 1;   /* another size than when the run began */
	ra.cf = cf;
	if (gpudp_cap_rd_bus_guarded(ft_read, &ra, &f->rc) != 0)
		f->rc = ft_fault(f, cf);
	else if (gpudp_capfile_truncated(cf, &f->trunc_off)) {
		f->truncated = 1;
		f->trunc_idx = gpudp_capfile_index(cf);
	}
	if (f->rc != 0 && f->err[0] == '\0')
		snprintf(f->err, sizeof(f->err), "%s", f->e.err);
	gpudp_capfile_close(cf);
	if (f->rc == 0 && !gpudp_cap_rd_shared(f->c)) {
		/* the engine's tables read back (GPU) on this thread, beside the others */
		double t0 = gpudp_cap_now_s();

		f->crc = gpudp_cap_engine_collect(&f->e, f->a);
		f->collect_s = gpudp_cap_now_s() - t0;
	}
	return NULL;
}

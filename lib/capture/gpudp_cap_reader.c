/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The threaded reader (gpudp_cap_reader.h): a run, its engines and
 * threads, its result; the threads' reading is gpudp_cap_reader_thread.c.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gpudp_cap_reader_pvt.h"

#define CF_DIM(a) (sizeof(a) / sizeof((a)[0]))

/* In place: the file mapped once for every thread (a reader of its own,
 * GPUDP_CAPFILE_MMAP), registered with the GPU. */
struct fshared {
	struct gpudp_capfile *cf;     /* NULL: not mapped */
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

/* In place: nothing to give back (the mapping outlives the engines). */
static void
ft_release(void *arg, void **owner, uint32_t n)
{
	(void)arg;
	(void)owner;
	(void)n;
}

/* The threads' engines, made one after the other (errors said once). */
static int
ft_create(struct fthread *ft, const struct gpudp_cap_reader_conf *c,
	  enum gpudp_cap_reader_stage stage, char *err, size_t errlen)
{
	struct gpudp_cap_engine_conf ec = c->ec;
	uint32_t t;
	int rc;

	if (ec.life != NULL && c->threads > 1) {
		snprintf(err, errlen, "the flow monitor reads a file with one thread (%u given): "
			 "a flow's packets are in every thread's share", c->threads);
		return -EINVAL;
	}
	ec.mem = stage == GPUDP_CAP_READER_STAGE_COPY ? GPUDP_CAP_MEM_STAGED : GPUDP_CAP_MEM_HOST;
	ec.gather = stage == GPUDP_CAP_READER_STAGE_GATHER;
	ec.release = ft_release;
	ec.done = gpudp_cap_rd_done;
	for (t = 0; t < c->threads; t++) {
		ft[t].c = c;
		ft[t].t = t;
		ft[t].chunk = c->chunk != 0 ? c->chunk : GPUDP_CAP_READER_CHUNK;
		ft[t].bulk = c->read_bytes != 0 ? c->read_bytes : FT_BULK_BYTES;
		ft[t].fd = -1;
		ec.done_arg = &ft[t];
		ec.share = t > 0 && gpudp_cap_rd_shared(c) ? &ft[0].e : NULL;
		rc = gpudp_cap_engine_create(&ft[t].e, c->engine, &ec, err, errlen);
		if (rc != 0)
			return rc;
		ft[t].a = gpudp_analysis_create(ec.flow_capacity, &ec.filter);
		if (ft[t].a == NULL ||
		    gpudp_analysis_set_match(ft[t].a, ec.match, ec.match_flags) != 0 ||
		    gpudp_analysis_set_rules(ft[t].a, ec.rules, 0) != 0) {
			snprintf(err, errlen, "out of memory for thread %u's tables", t);
			return -ENOMEM;
		}
	}
	return 0;
}

/* A thread's stats into @p st (its times from @p t0 on). @return its collect error, or 0 */
static int
ft_stats(struct fthread *f, struct gpudp_cap_reader_stats *st, double t0)
{
	int rc = f->crc;

	if (rc != 0 && rc != -ENOSPC)
		return rc;
	st->records += f->records;
	st->bytes += f->bytes;
	if (f->c->ec.life != NULL)
		gpudp_cap_engine_flow_stats(&f->e, &st->flows);
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
		snprintf(err, errlen, "stage %s: records are read in place from pcap files "
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
 * The threads of a run started (each on its share: its byte range, the
 * shared walk's chunks, or its own walk), the shared walk run here, and
 * every thread joined. @return 0, or -EAGAIN (a thread could not start)
 */
static int
run_threads(const struct gpudp_cap_reader_conf *c, const struct flayout *l, struct fthread *ft,
	    struct fwalk *w, char *err, size_t errlen)
{
	uint32_t chunk = c->chunk != 0 ? c->chunk : GPUDP_CAP_READER_CHUNK;
	pthread_t tid[GPUDP_CAP_READER_THREADS_MAX];
	uint32_t t, started = 0;
	int rc = 0;

	for (t = 0; rc == 0 && t < c->threads; t++, started++)
		if (gpudp_thread_start(c->cpus, &tid[t], gpudp_cap_rd_thread, &ft[t]) != 0) {
			snprintf(err, errlen, "cannot start thread %u", t);
			rc = -EAGAIN;
		}
	if (w != NULL && rc == 0)
		gpudp_cap_rd_walk_run(c, w, chunk, l->size);
	else if (w != NULL)
		__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
	for (t = 0; t < started; t++)
		pthread_join(tid[t], NULL);
	if (rc == 0 && gpudp_cap_rd_shared(c))
		gpudp_cap_rd_collect_shared(ft, c->threads);
	return rc;
}

/*
 * The run's result: the first error of the walk or a thread, the threads'
 * stats, their results merged into @p out. With byte ranges that did not
 * join (or a thread's read error there), nothing is merged: -EAGAIN.
 */
static int
run_result(const struct gpudp_cap_reader_conf *c, struct fthread *ft, const struct fwalk *w,
	   const struct frange *rg, int rc, double t0, struct gpudp_analysis *out,
	   struct gpudp_cap_reader_stats *st, char *err, size_t errlen)
{
	uint32_t t;

	if (rc == 0 && w != NULL && w->rc != 0) {
		snprintf(err, errlen, "%s", w->err);
		rc = w->rc;
	}
	for (t = 0; rc == 0 && t < c->threads; t++)
		if (ft[t].rc != 0) {
			snprintf(err, errlen, "%s", ft[t].err);
			rc = ft[t].rc;
		}
	if (rg != NULL && (rc != 0 || !gpudp_cap_rd_ranges_joined(rg, c->threads)))
		return -EAGAIN;   /* the shared walk decides */
	for (t = 0; (rc == 0 || rc == -ENOSPC) && t < c->threads; t++) {
		int r = ft_stats(&ft[t], st, t0);

		if (r != 0 && ft[t].e.err[0] != '\0')
			snprintf(err, errlen, "%s", ft[t].e.err);
		if (r != 0 && (rc == 0 || r != -ENOSPC))
			rc = r;
	}
	if ((rc == 0 || rc == -ENOSPC) && gpudp_cap_rd_merge(c, ft, c->threads, out) != 0)
		rc = -ENOSPC;
	return rc;
}

/*
 * One run: the threads' engines, their shares (byte ranges @p rg, the
 * shared walk, or each thread's own walk), the result.
 */
static int
file_run(const struct gpudp_cap_reader_conf *c, const struct flayout *l, struct frange *rg,
	 struct gpudp_analysis *out, struct gpudp_cap_reader_stats *st, char *err, size_t errlen)
{
	uint32_t chunk = c->chunk != 0 ? c->chunk : GPUDP_CAP_READER_CHUNK;
	struct fshared m = { 0 };
	struct fthread *ft;
	struct fwalk *w;
	uint32_t t;
	double t0;
	int rc;

	memset(st, 0, sizeof(*st));
	ft = calloc(c->threads, sizeof(*ft));
	if (ft == NULL) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	rc = ft_prepare(ft, c, l, &m, st, err, errlen);
	w = rc == 0 && rg == NULL ? gpudp_cap_rd_walk_new(l, chunk) : NULL;
	for (t = 0; t < c->threads; t++) {
		ft[t].w = w;
		ft[t].rg = rg != NULL ? &rg[t] : NULL;
		ft[t].size = l->size;
	}
	/* registering the file is part of the run (it is proportional to it) */
	t0 = gpudp_cap_now_s() - st->register_s;
	if (rc == 0)
		rc = run_threads(c, l, ft, w, err, errlen);
	st->read_s = gpudp_cap_now_s() - t0;
	rc = run_result(c, ft, w, rg, rc, t0, out, st, err, errlen);
	file_seen(c, ft, w, l->size, st);
	st->seconds = gpudp_cap_now_s() - t0;
	st->merge_s = st->seconds - st->read_s;
	st->ranges = rg != NULL && rc != -EAGAIN;
	st->in_memory = st->ranges && c->mem != NULL && st->stage == GPUDP_CAP_READER_STAGE_COPY;
	/* every batch is done (the threads flushed): the GPU reads it no more */
	shared_unmap(&m, &ft[0]);
	ft_free(ft, c->threads);
	gpudp_cap_rd_walk_free(w);
	return rc;
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
	gpudp_cap_rd_layout(c->path, &l);
	if (c->mem != NULL && (!l.pcap || c->mem_len != l.size || (uintptr_t)c->mem % 16 != 0)) {
		if (!l.pcap)
			snprintf(err, errlen, "%s: a copy in memory is read for pcap files only",
				 c->path);
		else if (c->mem_len != l.size)
			snprintf(err, errlen, "%s: the copy in memory has %llu bytes, "
				 "the file %llu", c->path, (unsigned long long)c->mem_len,
				 (unsigned long long)l.size);
		else
			snprintf(err, errlen, "%s: the copy in memory is not 16-byte aligned",
				 c->path);
		return -EINVAL;
	}
	gpudp_cap_rd_bus_install(1);
	rg = gpudp_cap_rd_ranges_new(c, &l);
	rc = rg != NULL ? file_run(c, &l, rg, out, st, err, errlen) : -EAGAIN;
	free(rg);
	changed = st->changed;   /* (ranges that did not join: maybe as it shrank) */
	if (rc == -EAGAIN)
		rc = file_run(c, &l, NULL, out, st, err, errlen);
	st->changed |= changed;
	gpudp_cap_rd_bus_install(0);
	return rc;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* The threaded reader: the threads' results into one (gpudp_cap_reader_pvt.h). */
#include <errno.h>
#include <pthread.h>
#include <sched.h>

#include "gpudp_cap_reader_pvt.h"

/*
 * Shared tables (gpudp_cap_rd_shared()): once every thread flushed, the
 * sharers' counters, then thread 0's engine's tables, which hold every
 * thread's.
 */
void
gpudp_cap_rd_collect_shared(struct fthread *ft, uint32_t n)
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

/* A merge of the tree (gpudp_cap_rd_merge()): src's result into dst's. */
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

/*
 * The threads' results into thread 0's, in pairs at once (a tree: log2(n)
 * rounds), then into @p out. Its threads run where the readers ran
 * (conf->cpus): the caller may be pinned to one CPU (gpudp-capture's main
 * lcore), and merges all on it took longer than the reading.
 * @return 0 or -ENOSPC (flows that did not fit, counted as drops)
 */
int
gpudp_cap_rd_merge(const struct gpudp_cap_reader_conf *c, struct fthread *ft, uint32_t n,
		   struct gpudp_analysis *out)
{
	struct mjob job[GPUDP_CAP_READER_THREADS_MAX / 2];
	pthread_t tid[GPUDP_CAP_READER_THREADS_MAX / 2];
	int started[GPUDP_CAP_READER_THREADS_MAX / 2];
	uint32_t step, i, k, nj;
	int rc = 0;

	if (gpudp_cap_rd_shared(c)) {  /* thread 0's result has the tables, the others counters */
		for (k = 1; k < n; k++)
			gpudp_analysis_merge(ft[0].a, &ft[k].a->ctr, NULL, 0);
		return gpudp_analysis_take(out, ft[0].a) != 0 ? -ENOSPC : 0;
	}
	for (step = 1; step < n; step *= 2) {
		for (i = 0, nj = 0; i + step < n; i += 2 * step, nj++) {
			job[nj] = (struct mjob){ .dst = &ft[i], .src = &ft[i + step] };
			started[nj] = gpudp_thread_start(c->cpus, &tid[nj], mjob_main, &job[nj]) == 0;
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

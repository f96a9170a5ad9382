/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The flow monitor's records on their way to the outputs (doc/flows.md):
 * the engine's thread puts them into a queue (app_flows_out()) and each
 * output (an IPFIX exporter per target, the flow log) has an export
 * thread of its own that takes every record out, in order, and writes it,
 * so that encoding and writing records run beside the analysis and beside
 * each other. The queue holds FQ_RECS records; when the slowest output has
 * left it full, the engine's thread waits for room (counted: the report's
 * export_waits): no record is dropped on the way, a slow output slows the
 * analysis instead. What an output itself loses (a collector away, a full
 * disk) it counts, as before.
 *
 * Locks: q.mu guards the queue's counters; an output's io is held while it
 * writes records and while its counters are read (app_flows_report()).
 * The records between the slowest head and the tail are only read by the
 * export threads and only written by the engine's thread outside that
 * range.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cap_app.h"
#include "gpudp_thread.h"

/* records the queue holds (about 12 MiB), and at most taken at once */
#define FQ_RECS (1u << 16)
#define FQ_TAKE 1024u

/* records to output @p idx: an IPFIX exporter, or the flow log past them */
static void
write_out(struct cap_app *app, uint32_t idx, const struct gpudp_flow_rec *recs, uint32_t n)
{
	uint32_t i;

	if (idx < app->n_ipx) {
		gpudp_ipfix_export(app->ipx[idx], recs, n);
		gpudp_ipfix_poll(app->ipx[idx]);
		return;
	}
	if (app->flow_log == NULL)
		return;
	for (i = 0; i < n; i++) {
		int rc = gpudp_flow_log_write(app->flow_log, &recs[i]);

		/* said once: the writer keeps its first error and counts the rest */
		if (rc != 0 && rc != -EINVAL && !app->flow_log_failed) {
			app->flow_log_failed = 1;
			CAP_LOG(ERR, "--flow-log %s: %s; records are counted as dropped",
				app->conf.flow_log, strerror(-rc));
		}
	}
}

/* the records every output took out (q.mu held) */
static uint64_t
slowest_head(const struct app_flows_q *q)
{
	uint64_t h = q->tail;
	uint32_t o;

	for (o = 0; o < q->n_out; o++)
		h = RTE_MIN(h, q->out[o].head);
	return h;
}

static int
all_idle(const struct app_flows_q *q)
{
	uint32_t o;

	for (o = 0; o < q->n_out; o++)
		if (q->out[o].head != q->tail || q->out[o].busy)
			return 0;
	return 1;
}

static void *
export_thread(void *arg)
{
	struct app_flows_out *w = arg;
	struct cap_app *app = w->app;
	struct app_flows_q *q = &app->fq;
	uint32_t at, n;

	pthread_mutex_lock(&q->mu);
	for (;;) {
		while (w->head == q->tail && !q->stop)
			pthread_cond_wait(&q->more, &q->mu);
		if (w->head == q->tail)
			break;
		at = (uint32_t)(w->head % FQ_RECS);
		n = (uint32_t)RTE_MIN(q->tail - w->head, (uint64_t)(FQ_RECS - at));
		n = RTE_MIN(n, FQ_TAKE);
		w->busy = 1;
		pthread_mutex_unlock(&q->mu);
		pthread_mutex_lock(&w->io);
		write_out(app, w->idx, &q->ring[at], n);
		pthread_mutex_unlock(&w->io);
		pthread_mutex_lock(&q->mu);
		w->head += n;
		w->busy = 0;
		pthread_cond_broadcast(&q->room);
		if (all_idle(q))
			pthread_cond_broadcast(&q->idle);
	}
	pthread_mutex_unlock(&q->mu);
	return NULL;
}

/* output @p o's thread, on the CPUs the process had before EAL put this
 * thread on its lcore: not beside the analysis on that one core */
static int
out_start(struct cap_app *app, uint32_t o)
{
	struct app_flows_out *w = &app->fq.out[o];
	char name[32];   /* at most 15 bytes used: o < CAP_FLOW_OUTS */
	int rc;

	w->app = app;
	w->idx = o;
	pthread_mutex_init(&w->io, NULL);
	rc = gpudp_thread_start(app->have_cpus ? &app->cpus : NULL, &w->th, export_thread, w);
	if (rc != 0) {
		pthread_mutex_destroy(&w->io);
		return -rc;
	}
	snprintf(name, sizeof(name), "gpudp-flow-out%u", o);
	pthread_setname_np(w->th, name);
	return 0;
}

static void
q_destroy(struct app_flows_q *q)
{
	pthread_cond_destroy(&q->idle);
	pthread_cond_destroy(&q->room);
	pthread_cond_destroy(&q->more);
	pthread_mutex_destroy(&q->mu);
	free(q->ring);
	q->ring = NULL;
}

/* the threads started, told to stop, joined */
static void
outs_join(struct app_flows_q *q)
{
	uint32_t o;

	pthread_mutex_lock(&q->mu);
	q->stop = 1;
	pthread_cond_broadcast(&q->more);
	pthread_mutex_unlock(&q->mu);
	for (o = 0; o < q->n_out; o++) {
		pthread_join(q->out[o].th, NULL);
		pthread_mutex_destroy(&q->out[o].io);
	}
	q->n_out = 0;
}

int
app_flows_q_start(struct cap_app *app)
{
	struct app_flows_q *q = &app->fq;
	uint32_t o, n = app->n_ipx + (app->flow_log != NULL);
	int rc = 0;

	memset(q, 0, sizeof(*q));
	q->ring = malloc(sizeof(*q->ring) * FQ_RECS);
	if (q->ring == NULL)
		return -ENOMEM;
	pthread_mutex_init(&q->mu, NULL);
	pthread_cond_init(&q->more, NULL);
	pthread_cond_init(&q->room, NULL);
	pthread_cond_init(&q->idle, NULL);
	for (o = 0; o < n && rc == 0; o++) {
		rc = out_start(app, o);
		if (rc == 0)
			q->n_out++;
	}
	if (rc != 0) {
		outs_join(q);
		q_destroy(q);
		return rc;
	}
	q->started = 1;
	return 0;
}

void
app_flows_q_put(struct cap_app *app, const struct gpudp_flow_rec *recs, uint32_t n)
{
	struct app_flows_q *q = &app->fq;
	uint32_t at, k, o;

	if (!q->started) {   /* no export threads: written here */
		for (o = 0; o < app->n_ipx + (app->flow_log != NULL); o++)
			write_out(app, o, recs, n);
		return;
	}
	pthread_mutex_lock(&q->mu);
	while (n > 0) {
		if (q->tail - slowest_head(q) == FQ_RECS) {
			q->waits++;
			while (q->tail - slowest_head(q) == FQ_RECS)
				pthread_cond_wait(&q->room, &q->mu);
		}
		at = (uint32_t)(q->tail % FQ_RECS);
		k = (uint32_t)RTE_MIN((uint64_t)n, FQ_RECS - (q->tail - slowest_head(q)));
		k = RTE_MIN(k, FQ_RECS - at);
		/* [at, at + k) is outside [slowest head, tail): no export
		 * thread reads it */
		memcpy(&q->ring[at], recs, sizeof(*recs) * k);
		q->tail += k;
		recs += k;
		n -= k;
		pthread_cond_broadcast(&q->more);
	}
	pthread_mutex_unlock(&q->mu);
}

void
app_flows_q_sync(struct cap_app *app)
{
	struct app_flows_q *q = &app->fq;

	if (!q->started)
		return;
	pthread_mutex_lock(&q->mu);
	while (!all_idle(q))
		pthread_cond_wait(&q->idle, &q->mu);
	pthread_mutex_unlock(&q->mu);
}

void
app_flows_q_io(struct cap_app *app, int lock)
{
	struct app_flows_q *q = &app->fq;
	uint32_t o;

	for (o = 0; q->started && o < q->n_out; o++) {
		if (lock)
			pthread_mutex_lock(&q->out[o].io);
		else
			pthread_mutex_unlock(&q->out[o].io);
	}
}

uint64_t
app_flows_q_waits(struct cap_app *app)
{
	struct app_flows_q *q = &app->fq;
	uint64_t w;

	if (!q->started)
		return 0;
	pthread_mutex_lock(&q->mu);
	w = q->waits;
	pthread_mutex_unlock(&q->mu);
	return w;
}

void
app_flows_q_stop(struct cap_app *app)
{
	struct app_flows_q *q = &app->fq;

	if (!q->started)
		return;
	outs_join(q);
	q_destroy(q);
	q->started = 0;
}

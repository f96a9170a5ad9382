/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The flow monitor's records on their way to the outputs (doc/flows.md):
 * the engine's thread puts them into a queue (app_flows_out()) and one
 * export thread takes them out, in order, into the IPFIX exporter and the
 * flow log, so that encoding and writing records run beside the analysis
 * instead of inside it. The queue holds FQ_RECS records; when it is full
 * the engine's thread waits for room (counted: the report's
 * export_waits): no record is dropped on the way, a slow output slows the
 * analysis instead. What an output itself loses (a collector away, a full
 * disk) it counts, as before.
 *
 * Locks: q.mu guards the queue's counters; q.io is held while records are
 * written and while the outputs' counters are read (app_flows_report()).
 * The records between head and tail are only read by the export thread
 * and only written by the engine's thread while outside that range.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cap_app.h"

/* records the queue holds (about 12 MiB), and at most taken at once */
#define FQ_RECS (1u << 16)
#define FQ_TAKE 1024u

/* records to every output (the export thread, q.io held) */
static void
write_out(struct cap_app *app, const struct gpudp_flow_rec *recs, uint32_t n)
{
	uint32_t i;

	if (app->ipfix != NULL) {
		gpudp_ipfix_export(app->ipfix, recs, n);
		gpudp_ipfix_poll(app->ipfix);
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

static void *
export_thread(void *arg)
{
	struct cap_app *app = arg;
	struct app_flows_q *q = &app->fq;
	uint32_t at, n;

	pthread_mutex_lock(&q->mu);
	for (;;) {
		while (q->head == q->tail && !q->stop)
			pthread_cond_wait(&q->more, &q->mu);
		if (q->head == q->tail)
			break;
		at = (uint32_t)(q->head % FQ_RECS);
		n = (uint32_t)RTE_MIN(q->tail - q->head, (uint64_t)(FQ_RECS - at));
		n = RTE_MIN(n, FQ_TAKE);
		q->busy = 1;
		pthread_mutex_unlock(&q->mu);
		pthread_mutex_lock(&q->io);
		write_out(app, &q->ring[at], n);
		pthread_mutex_unlock(&q->io);
		pthread_mutex_lock(&q->mu);
		q->head += n;
		q->busy = 0;
		pthread_cond_signal(&q->room);
		if (q->head == q->tail)
			pthread_cond_broadcast(&q->idle);
	}
	pthread_mutex_unlock(&q->mu);
	return NULL;
}

int
app_flows_q_start(struct cap_app *app)
{
	struct app_flows_q *q = &app->fq;
	int rc;

	memset(q, 0, sizeof(*q));
	q->ring = malloc(sizeof(*q->ring) * FQ_RECS);
	if (q->ring == NULL)
		return -ENOMEM;
	pthread_mutex_init(&q->mu, NULL);
	pthread_mutex_init(&q->io, NULL);
	pthread_cond_init(&q->more, NULL);
	pthread_cond_init(&q->room, NULL);
	pthread_cond_init(&q->idle, NULL);
	rc = pthread_create(&q->th, NULL, export_thread, app);
	if (rc != 0) {
		free(q->ring);
		q->ring = NULL;
		return -rc;
	}
	pthread_setname_np(q->th, "gpudp-flow-out");
	q->started = 1;
	return 0;
}

void
app_flows_q_put(struct cap_app *app, const struct gpudp_flow_rec *recs, uint32_t n)
{
	struct app_flows_q *q = &app->fq;
	uint32_t at, k;

	if (!q->started) {   /* no export thread: written here */
		write_out(app, recs, n);
		return;
	}
	pthread_mutex_lock(&q->mu);
	while (n > 0) {
		if (q->tail - q->head == FQ_RECS) {
			q->waits++;
			while (q->tail - q->head == FQ_RECS)
				pthread_cond_wait(&q->room, &q->mu);
		}
		at = (uint32_t)(q->tail % FQ_RECS);
		k = (uint32_t)RTE_MIN((uint64_t)n, FQ_RECS - (q->tail - q->head));
		k = RTE_MIN(k, FQ_RECS - at);
		/* [at, at + k) is outside [head, tail): the export thread
		 * does not read it */
		memcpy(&q->ring[at], recs, sizeof(*recs) * k);
		q->tail += k;
		recs += k;
		n -= k;
		pthread_cond_signal(&q->more);
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
	while (q->head != q->tail || q->busy)
		pthread_cond_wait(&q->idle, &q->mu);
	pthread_mutex_unlock(&q->mu);
}

void
app_flows_q_io(struct cap_app *app, int lock)
{
	if (!app->fq.started)
		return;
	if (lock)
		pthread_mutex_lock(&app->fq.io);
	else
		pthread_mutex_unlock(&app->fq.io);
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
	pthread_mutex_lock(&q->mu);
	q->stop = 1;
	pthread_cond_signal(&q->more);
	pthread_mutex_unlock(&q->mu);
	pthread_join(q->th, NULL);
	pthread_cond_destroy(&q->idle);
	pthread_cond_destroy(&q->room);
	pthread_cond_destroy(&q->more);
	pthread_mutex_destroy(&q->io);
	pthread_mutex_destroy(&q->mu);
	free(q->ring);
	q->ring = NULL;
	q->started = 0;
}

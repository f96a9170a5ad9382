/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A thread on chosen CPUs: how gpudp's helper threads (the capture
 * reader's, the flow monitor's record and export threads) start, so that
 * they run on the CPUs the process had before EAL rather than beside the
 * lcore of the thread that starts them, on its one CPU. Header only,
 * POSIX with _GNU_SOURCE; not installed.
 */
#ifndef GPUDP_THREAD_H
#define GPUDP_THREAD_H

#include <pthread.h>
#include <sched.h>

/**
 * Start a thread running @p fn(@p arg).
 * @param cpus  the CPUs it may run on, or NULL: those of the caller
 * @param tid   receives the thread
 * @return 0, or the errno value of pthread_attr_init(),
 *   pthread_attr_setaffinity_np() or pthread_create()
 */
static inline int
gpudp_thread_start(const cpu_set_t *cpus, pthread_t *tid, void *(*fn)(void *), void *arg)
{
	pthread_attr_t at;
	int rc = pthread_attr_init(&at);

	if (rc != 0)
		return rc;
	if (cpus != NULL)
		rc = pthread_attr_setaffinity_np(&at, sizeof(*cpus), cpus);
	if (rc == 0)
		rc = pthread_create(tid, &at, fn, arg);
	pthread_attr_destroy(&at);
	return rc;
}

#endif /* GPUDP_THREAD_H */

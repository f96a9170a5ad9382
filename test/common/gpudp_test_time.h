/* SPDX-License-Identifier: BSD-3-Clause */
/* Test and benchmark helpers for time: the monotonic clock, short sleeps. */
#ifndef GPUDP_TEST_TIME_H
#define GPUDP_TEST_TIME_H

#include <stdint.h>
#include <time.h>

/** @return CLOCK_MONOTONIC in nanoseconds */
static inline uint64_t
gpudp_test_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/** Sleep @p ms milliseconds (an interrupted sleep ends early). */
static inline void
gpudp_test_sleep_ms(unsigned int ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

#endif /* GPUDP_TEST_TIME_H */

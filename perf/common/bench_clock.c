/*
 * bench_clock.c: see bench_clock.h.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "bench_clock.h"

#include <errno.h>
#include <time.h>

int64_t
bench_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void
bench_sleep_ns(int64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000), (long)(ns % 1000000000) };
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
	}
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ex_time.c: the examples' waits and CPU times (ex_time.h).
 */
#include "ex_time.h"

#include <time.h>

#include <seqring/sr_wait.h>

void
ex_sleep_until(int64_t t_ns)
{
	/*
	 * Relative sleeps against the library's clock: a signal may cut one
	 * short, and the loop then sleeps what is left.
	 */
	for (int64_t now = sr_monotonic_ns(); now < t_ns; now = sr_monotonic_ns()) {
		int64_t d = t_ns - now;
		struct timespec ts = { (time_t)(d / 1000000000), (long)(d % 1000000000) };
		nanosleep(&ts, NULL);
	}
}

int64_t
ex_rusage_cpu_ns(const struct rusage *r)
{
	return ((int64_t)r->ru_utime.tv_sec + (int64_t)r->ru_stime.tv_sec) * 1000000000 +
	    ((int64_t)r->ru_utime.tv_usec + (int64_t)r->ru_stime.tv_usec) * 1000;
}

int64_t
ex_process_cpu_ns(void)
{
	struct rusage r;
	getrusage(RUSAGE_SELF, &r);
	return ex_rusage_cpu_ns(&r);
}

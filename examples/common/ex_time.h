/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ex_time.h: the examples' waits and CPU times.  Wall-clock time is the
 * library's monotonic clock, sr_monotonic_ns (sr_wait.h).
 */
#ifndef SEQRING_EXAMPLES_EX_TIME_H
#define SEQRING_EXAMPLES_EX_TIME_H

#include <stdint.h>
#include <sys/resource.h>

/* Sleeps until sr_monotonic_ns() >= t_ns, whatever signals arrive meanwhile. */
void ex_sleep_until(int64_t t_ns);

/* User plus system time of r. */
int64_t ex_rusage_cpu_ns(const struct rusage *r);

/* CPU time of the whole process so far (every thread, user plus system). */
int64_t ex_process_cpu_ns(void);

#endif /* SEQRING_EXAMPLES_EX_TIME_H */

/*
 * bench_clock.h: the harnesses' wall clock, around the timed regions.
 *
 * C and C++ (perf/peers/spdlog links it too); no seqring header.
 */
#ifndef SR_PERF_BENCH_CLOCK_H
#define SR_PERF_BENCH_CLOCK_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* CLOCK_MONOTONIC in nanoseconds. */
int64_t bench_now_ns(void);

/* Sleeps ns nanoseconds (nanosleep, resumed after a signal). */
void bench_sleep_ns(int64_t ns);

#ifdef __cplusplus
}
#endif

#endif /* SR_PERF_BENCH_CLOCK_H */

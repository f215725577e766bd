/*
 * sr_log_clock_internal.h: the timestamps of records (internal): read raw
 * on the caller's thread, converted to nanoseconds since the epoch by
 * whoever renders the record (sr_log_clock.c).
 */
#ifndef SR_LOG_CLOCK_INTERNAL_H
#define SR_LOG_CLOCK_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "sr_log_internal.h"

static inline int64_t
sr_log__rdtsc(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return (int64_t)__builtin_ia32_rdtsc();
#else
	return 0;
#endif
}

int64_t sr_log__realtime_ns(void);

/* The clock's raw reading on the calling thread (the hot path). */
static inline int64_t
sr_log__clock_read(const sr_log *log)
{
	struct timespec ts;
	switch (log->opt.clock) {
	case SR_LOG_CLOCK_TSC:
		return sr_log__rdtsc();
	case SR_LOG_CLOCK_COARSE:
		clock_gettime(CLOCK_REALTIME_COARSE, &ts);
		return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	default:
		clock_gettime(CLOCK_REALTIME, &ts);
		return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	}
}

/* Sets log->opt.clock (auto decided) and, for tsc, checks the CPU and calibrates. */
int sr_log__clock_open(sr_log *log, sr_log_clock kind, sr_error *err);
void sr_log__clock_close(sr_log *log);
/* A raw reading as ns since the epoch (any thread; async-signal-safe). */
int64_t sr_log__clock_to_ns(const sr_log *log, int64_t raw);
/* tsc: recalibrates when due (force: now).  Cheap when not due; any thread. */
void sr_log__clock_refresh(sr_log *log, bool force);

#endif /* SR_LOG_CLOCK_INTERNAL_H */

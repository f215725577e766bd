/* SPDX-License-Identifier: Apache-2.0 */
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
#include "sr_time.h"


_Static_assert((int)SR_LOG__CLOCK_REALTIME == (int)SR_LOG_CLOCK_REALTIME &&
    (int)SR_LOG__CLOCK_COARSE == (int)SR_LOG_CLOCK_COARSE &&
    (int)SR_LOG__CLOCK_TSC == (int)SR_LOG_CLOCK_TSC, "sr_log_fast.h's clocks");

/* The clock's raw reading on the calling thread (the hot path). */
static inline int64_t
sr_log__clock_read(const sr_log *log)
{
	/* The same reading as the macros' inline call makes (sr_log_fast.h's clocks are these). */
	return sr_log__fast_clock((int32_t)log->opt.clock);
}

/* Sets log->opt.clock (auto decided) and, for tsc, checks the CPU and calibrates. */
int sr_log__clock_open(sr_log *log, sr_log_clock kind, sr_error *err);
void sr_log__clock_close(sr_log *log);
/* A raw reading as ns since the epoch (any thread; async-signal-safe). */
int64_t sr_log__clock_to_ns(const sr_log *log, int64_t raw);
/*
 * tsc: copies the current segment of the mapping (tsc0, ns0, tsc1, the
 * slewed and the measured rate as double bits) into seg; false for the
 * other clocks (their readings are ns already).
 */
bool sr_log__clock_segment(const sr_log *log, int64_t seg[5]);
/* A raw tsc reading mapped by a segment sr_log__clock_segment copied (another process's too). */
int64_t sr_log__clock_map_segment(const int64_t seg[5], int64_t raw);
/* tsc: recalibrates when due (force: now).  Cheap when not due; any thread. */
void sr_log__clock_refresh(sr_log *log, bool force);

#endif /* SR_LOG_CLOCK_INTERNAL_H */

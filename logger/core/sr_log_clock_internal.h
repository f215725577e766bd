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
/* One segment of the tsc mapping: ns = ns0 + (tsc - tsc0) * slewed up to tsc1, then at rate. */
typedef struct sr_log_clock_segment {
	int64_t tsc0, ns0, tsc1;
	double slewed, rate;
} sr_log_clock_segment;

/* Rounds to the nearest integer (no libm: the library does not link it). */
static inline int64_t
sr_log__clock_round(double v)
{
	return (int64_t)(v >= 0 ? v + 0.5 : v - 0.5);
}

/* The mapping of segment s at its end, tsc1: where the measured rate takes over. */
static inline int64_t
sr_log__clock_at_end(const sr_log_clock_segment *s)
{
	return s->ns0 + sr_log__clock_round((double)(s->tsc1 - s->tsc0) * s->slewed);
}

/* The mapping of segment s at tsc x (x may precede it: extrapolated); at1 is sr_log__clock_at_end(s). */
static inline int64_t
sr_log__clock_map_ended(const sr_log_clock_segment *s, int64_t at1, int64_t x)
{
	if (x <= s->tsc1)
		return s->ns0 + sr_log__clock_round((double)(x - s->tsc0) * s->slewed);
	return at1 + sr_log__clock_round((double)(x - s->tsc1) * s->rate);
}

/* The mapping of segment s at tsc x. */
static inline int64_t
sr_log__clock_map(const sr_log_clock_segment *s, int64_t x)
{
	return sr_log__clock_map_ended(s, x <= s->tsc1 ? 0 : sr_log__clock_at_end(s), x);
}

/*
 * One reader's copy of the tsc mapping's two segments and the version they
 * were read under (start it zeroed: empty).  The consumer keeps one: while
 * no refresh has published since, a conversion loads the version alone
 * instead of the segments under the sequence lock.
 */
typedef struct sr_log_clock_copy {
	const sr_atomic_i64 *version_of;  /* the clock's version; NULL: empty */
	int64_t version;                  /* even: the one seg was read under */
	sr_log_clock_segment seg[2];      /* as the clock's: [1] the current, [0] the one before */
	int64_t at_end[2];                /* sr_log__clock_at_end of each, made once */
} sr_log_clock_copy;
/* Fills copy from the clock under its sequence lock; false when there is no tsc clock or no stable read. */
bool sr_log__clock_copy_fill(const sr_log *log, sr_log_clock_copy *copy);

/* sr_log__clock_to_ns, the same result, through a reader's copy (one thread's). */
static inline int64_t
sr_log__clock_to_ns_copied(const sr_log *log, sr_log_clock_copy *copy, int64_t raw)
{
	if (log->opt.clock != SR_LOG_CLOCK_TSC)
		return raw;
	/*
	 * pairs with the store-release of the even version in publish: the
	 * version the copy was read under, still current, means no refresh has
	 * begun since (publish makes it odd before it stores a field).
	 */
	if ((copy->version_of == NULL || sr_atomic_load_acquire_i64(copy->version_of) != copy->version) &&
	    !sr_log__clock_copy_fill(log, copy))
		return sr_log__clock_to_ns(log, raw);
	/* The segment sr_log__clock_to_ns takes: the current one, or the one before for an older reading. */
	int which = raw >= copy->seg[1].tsc0 ? 1 : 0;
	return sr_log__clock_map_ended(&copy->seg[which], copy->at_end[which], raw);
}

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

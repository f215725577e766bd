/* SPDX-License-Identifier: Apache-2.0 */
/**
 * @file sr_time.h
 * @ingroup base
 * @brief The clocks seqring reads, and a short sleep.
 *
 * Two kinds of clock:
 *   - the kernel's clocks through clock_gettime, in nanoseconds: monotonic
 *     for deadlines and intervals, realtime for timestamps since the epoch,
 *     and realtime's coarse variant (the time of the kernel's last tick).
 *     On Linux these are vDSO calls, no system call.
 *   - the x86 time-stamp counter (TSC): one instruction, ticks of a
 *     reference rate.  It is a clock only when it is invariant (one rate
 *     through frequency and idle states, sr_tsc_invariant), when the kernel
 *     still trusts it (it drops a TSC it found unreliable or unsynchronised
 *     between CPUs, sr_tsc_clocksource), and once its rate is measured
 *     against a kernel clock (sr_tsc_calibrate).  On other CPUs the TSC
 *     functions say it is not available.
 *
 * Cost classes used below: "vDSO" (a clock_gettime without a system call:
 * tens of nanoseconds), "instruction" (a few nanoseconds), "system calls"
 * (microseconds: reads sysfs), "sleeps" (as long as asked, and more).
 *
 * Every function here is thread-safe: none keeps state.
 */
#ifndef SR_TIME_H
#define SR_TIME_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "sr_error.h"
#include "sr_export.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Nanoseconds per second. */
#define SR_NS_PER_S INT64_C(1000000000)

/** @brief 1 when this build can read a TSC (x86), else 0 and the sr_tsc_* calls report none. */
#if defined(__x86_64__) || defined(__i386__)
#define SR_HAVE_TSC 1
#else
#define SR_HAVE_TSC 0
#endif

/* ---- conversions ---- */

/* Where <time.h> declares struct timespec: C11 (TIME_UTC) or POSIX (its clocks), not ISO C99. */
#if defined(TIME_UTC) || defined(CLOCK_REALTIME)

/**
 * @brief A timespec as nanoseconds.
 * @param ts The time; not NULL.
 * @return tv_sec * SR_NS_PER_S + tv_nsec.
 */
static inline int64_t
sr_timespec_to_ns(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * SR_NS_PER_S + ts->tv_nsec;
}

/**
 * @brief Nanoseconds (non-negative) as a timespec, e.g. an absolute deadline for a timed wait.
 * @param ns The time in nanoseconds, at least 0.
 * @return The same time as seconds and nanoseconds.
 */
static inline struct timespec
sr_timespec_from_ns(int64_t ns)
{
	struct timespec ts;
	ts.tv_sec = (time_t)(ns / SR_NS_PER_S);
	ts.tv_nsec = (long)(ns % SR_NS_PER_S);
	return ts;
}

#endif /* struct timespec */

/* ---- kernel clocks ---- */

/*
 * The same reads out of line, for programs compiled without POSIX's clocks in
 * view (strict ISO C: no _POSIX_C_SOURCE, so <time.h> declares neither
 * clock_gettime nor CLOCK_MONOTONIC).  The inline readers below call these
 * there and clock_gettime directly everywhere else: the same clocks either way.
 */
SR_API int64_t sr_time__monotonic_ns(void);
SR_API int64_t sr_time__realtime_ns(void);
SR_API int64_t sr_time__realtime_coarse_ns(void);

/**
 * @brief CLOCK_MONOTONIC in nanoseconds.
 *
 * Never steps back, slewed (not stepped) by
 * NTP, stops while the machine is suspended.  The clock of every deadline in
 * seqring (sr_sequencer_claim_until, the timeout wait strategy).  Cost:
 * vDSO.  Async-signal-safe (clock_gettime is), so a crash handler may use it.
 * @return Nanoseconds of CLOCK_MONOTONIC.
 */
static inline int64_t
sr_monotonic_ns(void)
{
#if defined(CLOCK_MONOTONIC)
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return sr_timespec_to_ns(&ts);
#else
	return sr_time__monotonic_ns();
#endif
}

/**
 * @brief CLOCK_REALTIME in nanoseconds since the epoch.
 *
 * The wall clock, which
 * settimeofday or an NTP step may move either way.  Cost: vDSO.
 * Async-signal-safe.
 * @return Nanoseconds since the epoch.
 */
static inline int64_t
sr_realtime_ns(void)
{
#if defined(CLOCK_REALTIME)
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return sr_timespec_to_ns(&ts);
#else
	return sr_time__realtime_ns();
#endif
}

/**
 * @brief CLOCK_REALTIME_COARSE in nanoseconds since the epoch.
 *
 * The wall clock as of
 * the kernel's last timer tick (its resolution is the tick:
 * clock_getres(CLOCK_REALTIME_COARSE)).  Cheaper than sr_realtime_ns (a vDSO
 * read without the counter read).  CLOCK_REALTIME where the kernel has no
 * coarse clock.  Async-signal-safe.
 * @return Nanoseconds since the epoch, as of the last tick.
 */
static inline int64_t
sr_realtime_coarse_ns(void)
{
#if defined(CLOCK_REALTIME_COARSE)
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME_COARSE, &ts);
	return sr_timespec_to_ns(&ts);
#elif defined(CLOCK_REALTIME)
	return sr_realtime_ns(); /* a kernel without the coarse clock */
#else
	return sr_time__realtime_coarse_ns();
#endif
}

/**
 * @brief Sleeps ns nanoseconds with one nanosleep.
 *
 * The kernel rounds
 * the sleep up to the thread's timer slack, and a signal handler ends it
 * early (no retry).  Cost: sleeps.  Async-signal-safe.
 * @param ns How long to sleep, at least 0 (a negative value counts as 0).
 */
SR_API void sr_sleep_ns(int64_t ns);

/* ---- time-stamp counter ---- */

/**
 * @brief The TSC, not serialising.
 *
 * The CPU may execute it before earlier
 * instructions finish or after later ones start (skew of a few nanoseconds).
 * The cheapest timestamp, for records converted later.  0 without a TSC.
 * Cost: instruction.  Async-signal-safe.
 * @return The counter's value in ticks, or 0 without a TSC.
 */
static inline int64_t
sr_tsc_read(void)
{
#if SR_HAVE_TSC
	return (int64_t)__builtin_ia32_rdtsc();
#else
	return 0;
#endif
}

/**
 * @brief The TSC fenced on both sides (lfence; rdtsc; lfence).
 *
 * Earlier
 * instructions have completed before the read and later ones start after
 * it, so that two reads time exactly the code between them.  For timing
 * code, not for timestamps on a hot path.  0 without a TSC.  Cost:
 * instruction (plus the wait for earlier loads).  Async-signal-safe.
 * @return The counter's value in ticks, or 0 without a TSC.
 */
static inline int64_t
sr_tsc_read_fenced(void)
{
#if SR_HAVE_TSC
	uint32_t lo, hi;
	__asm__ __volatile__("lfence\n\trdtsc\n\tlfence" : "=a"(lo), "=d"(hi) : : "memory");
	return (int64_t)(((uint64_t)hi << 32) | lo);
#else
	return 0;
#endif
}

/**
 * @brief Whether the CPU reports an invariant TSC (CPUID leaf 0x80000007, EDX bit 8).
 *
 * An invariant TSC ticks at one rate whatever the frequency and idle states.
 * Linux shows the same bit as the cpuinfo flags constant_tsc and
 * nonstop_tsc.  False without a TSC.  Cost: instruction (CPUID, which a
 * hypervisor may trap: call once, not per timestamp).  Async-signal-safe.
 * @return true for an invariant TSC; false otherwise and without a TSC.
 */
SR_API bool sr_tsc_invariant(void);

/** @brief What the kernel thinks of the TSC as a clocksource (sr_tsc_clocksource). */
enum sr_tsc_clocksource {
	SR_TSC_CLOCKSOURCE_UNKNOWN = 0, /**< sysfs cannot be read (not Linux, not mounted) */
	SR_TSC_CLOCKSOURCE_UNLISTED,    /**< not listed: never offered, or dropped as unreliable */
	SR_TSC_CLOCKSOURCE_AVAILABLE,   /**< listed as available; another clocksource is current */
	SR_TSC_CLOCKSOURCE_CURRENT      /**< the kernel's current clocksource */
};

/**
 * @brief Reads the kernel's current_clocksource and available_clocksource (sysfs,
 * clocksource0) for "tsc".
 *
 * The kernel drops the TSC from the list when it
 * finds it unreliable or unsynchronised between CPUs; some virtual machines
 * offer only their own paravirtual clock, and there the TSC of two CPUs need
 * not agree.  AVAILABLE or better means the kernel would keep time with it.
 * SR_TSC_CLOCKSOURCE_UNLISTED without a TSC.  Cost: system calls (open,
 * read, close; no stdio, no allocation).  Async-signal-safe.
 * @return SR_TSC_CLOCKSOURCE_CURRENT, _AVAILABLE or _UNLISTED as the kernel lists
 *         the TSC; SR_TSC_CLOCKSOURCE_UNKNOWN when sysfs cannot be read.
 */
SR_API enum sr_tsc_clocksource sr_tsc_clocksource(void);

/** @brief One TSC reading paired with one kernel-clock reading (sr_tsc_sample_clock). */
typedef struct sr_tsc_sample {
	int64_t tsc;   /**< the middle of the tightest bracket */
	int64_t ns;    /**< the clock's reading inside it */
	int64_t width; /**< the bracket's width in ticks: the pair's uncertainty */
} sr_tsc_sample;

/**
 * @brief Pairs the TSC with the clock `clock_id`.
 *
 * Reads
 * the clock between two fenced TSC reads, `tries` times, and keeps the
 * tightest bracket, the TSC taken at its middle.  Cost: `tries` vDSO reads.
 * Async-signal-safe.
 * @param clock_id A clockid_t (CLOCK_MONOTONIC, CLOCK_REALTIME, ...; an int here so that
 *        the header needs no POSIX types).
 * @param tries How many brackets to read, 1 to 1000.
 * @param out The pair with the tightest bracket; not NULL.
 * @retval SR_OK *out holds the pair.
 * @retval SR_EINVAL Without a TSC, when tries is not 1 to 1000, when out is NULL or
 *         when clock_gettime rejects `clock_id` (*out is then zero).
 */
SR_API int sr_tsc_sample_clock(int clock_id, int tries, sr_tsc_sample *out);

/** @brief The shortest calibration window of sr_tsc_calibrate, also quoted by its error messages. */
#define SR_TSC_CALIBRATE_MIN_NS INT64_C(1000)
/** @brief The longest calibration window of sr_tsc_calibrate, also quoted by its error messages. */
#define SR_TSC_CALIBRATE_MAX_NS (INT64_C(60) * SR_NS_PER_S)

/**
 * @brief Measures the TSC's rate, in ticks per nanosecond, against CLOCK_MONOTONIC.
 *
 * Measures
 * over at least window_ns: a sample (sr_tsc_sample_clock, 5 tries) at each
 * end, sleeping between them.  Longer windows give more digits: the error
 * is about the two brackets' width over the window.  The rate is checked to
 * lie between 0.01 and 100 ticks per ns (10 MHz to 100 GHz).  It does not check
 * sr_tsc_invariant: the caller decides whether a TSC is good enough.
 * Cost: sleeps (window_ns).
 * @param window_ns The window, SR_TSC_CALIBRATE_MIN_NS .. SR_TSC_CALIBRATE_MAX_NS.
 * @param ticks_per_ns Receives the rate; not NULL.
 * @param err Receives the code and message on failure; may be NULL.
 * @retval SR_OK *ticks_per_ns holds the rate.
 * @retval SR_EINVAL Without a TSC, for a window outside
 *         SR_TSC_CALIBRATE_MIN_NS .. SR_TSC_CALIBRATE_MAX_NS or a NULL result pointer.
 * @retval SR_ESYS clock_gettime(CLOCK_MONOTONIC) failed, the counter or the clock did not advance, or the
 *         rate is out of range (the message has the figures).
 */
SR_API int sr_tsc_calibrate(int64_t window_ns, double *ticks_per_ns, sr_error *err);

#ifdef __cplusplus
}
#endif

#endif /* SR_TIME_H */

/* SPDX-License-Identifier: Apache-2.0 */
/**
 * @file sr_log_limit.h
 * @ingroup logger
 * @brief Rate limits per call site: log once, every Nth call, at most N a
 * second with a burst.
 *
 * @code
 *   SR_WARN_ONCE(net, "no route to %s: using the default", host);
 *   SR_INFO_EVERY_N(net, 1000, "queue depth %d", depth);       // calls 1, 1001, 2001 ...
 *   SR_ERROR_LIMIT(net, 10, 20, "read %s: %m", path);          // a burst of 20, then 10 a second
 * @endcode
 *
 * Each macro is SR_LOG with a limiter, a `static` sr_log_limiter the macro
 * makes beside its call site.  In order:
 *
 *   1. the level check, as SR_LOG's: a disabled level ends here, and the
 *      limiter sees nothing (no argument evaluated, nothing counted);
 *   2. the limiter decides, lock-free: one atomic add on the limiter (a
 *      suppressed LIMIT call also reads the clock and one word of the
 *      limiter first); a suppressed call ends here: no argument evaluated,
 *      nothing written, the call counted;
 *   3. an admitted call is SR_LOG's call.  When the site suppressed calls
 *      since its last line, the line says how many: its message ends with
 *      " (N suppressed)", e.g. "queue depth 7 (999 suppressed)".  The words
 *      are part of the message (the site's format with
 *      SR_LOG_LIMIT_SUFFIX appended, the count one more argument), so every
 *      layout and sink shows them as they show any message.
 *
 * What counts as suppressed, and where: sr_log_counters::suppressed.
 * The clock of SR_LOG_LIMIT: the TSC where the logger reads it (the
 * default where it is invariant), else CLOCK_MONOTONIC_COARSE; tests and
 * simulations set their own with sr_log_limit_set_clock.
 *
 * Parameters: n, per_second and burst are integers, at least 1.  An integer
 * constant expression below 1 fails to compile, its message naming the
 * macro and the parameter ("SR_LOG_EVERY_N: n must be at least 1"); a value
 * only known at run time below 1 makes a limit that limits nothing (every
 * call written, none suppressed): a bad limit never hides a line, and never
 * divides by zero.  A limited call takes at most 31 arguments after its
 * format (the count of its suppressed line is the 32nd).
 *
 * Part of the logging API: sr_log.h includes it.  The names with two
 * underscores are for the macros only.
 */
#ifndef SR_LOG_LIMIT_H
#define SR_LOG_LIMIT_H

#include <stdint.h>

#include "sr_atomic.h"
#include "sr_export.h"
#include "sr_log_args.h"
#include "sr_log_category.h"
#include "sr_log_fast.h"
#include "sr_log_level.h"
#include "sr_log_site.h"
#include "sr_time.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief What a limited site's line ends with when calls were suppressed since its last line:
 * " (N suppressed)".
 *
 * Appended to the site's format; N is an unsigned long long, the count of
 * calls the site suppressed since it last wrote a line.
 */
#define SR_LOG_LIMIT_SUFFIX " (%llu suppressed)"

/**
 * @brief The state of one rate-limited call site: a `static` the limiting macros make.
 *
 * Zero is its initial state (a static needs no initialiser); its first
 * call sets it up.  Every field is the library's: read it through the
 * logger's statistics (sr_log_stats), never directly.
 */
typedef struct sr_log_limiter {
	/** private: ONCE and EVERY_N, the calls made (each call's ticket); RATE, the lines written */
	sr_atomic_i64 calls;
	/** private: RATE, the earliest clock reading that admits a call */
	sr_atomic_i64 next;
	/** private: RATE, the calls suppressed since the site's last line */
	sr_atomic_i64 pending;
	/** private: RATE, how the limiter reads its clock (0 until its first call) */
	sr_atomic_i32 clock;
	/** private: the kind, set by the first call */
	sr_atomic_i32 kind;
	/** private: RATE, the clock's units per token */
	sr_atomic_i64 interval;
	/** private: RATE, how far ahead of the clock the bucket may run: (burst - 1) x interval */
	sr_atomic_i64 tolerance;
	/** private: RATE, the suppressed calls the site's lines reported */
	sr_atomic_i64 reported;
	/** private: the parameters as the first call gave them (n; per_second and burst) */
	sr_atomic_i64 param[2];
	/** private: the category of the site's last line (sr_log_stats) */
	sr_atomic_ptr home;
	/** private: the suppressed calls that count in earlier loggers than home's */
	sr_atomic_i64 home_base;
	/** private: the process's list of limiters */
	sr_atomic_ptr link;
	/** private: 1 once on that list */
	sr_atomic_i32 listed;
} sr_log_limiter;

/**
 * @brief Sets the clock of SR_LOG_LIMIT, process-wide: for tests and simulations.
 *
 * From the call on, every rate limiter reads its time from now_ns (in
 * nanoseconds; never going backwards), so that a test gets exact counts
 * without sleeping.  Each limiter starts afresh at its next call: a full
 * burst, and the clock's units taken again; its counts are kept.  NULL
 * gives the limiters their own clock back (the TSC where the logger reads
 * it, else CLOCK_MONOTONIC_COARSE), starting afresh the same way.  Call it
 * while no limited site runs (a call racing it may take the old clock or
 * the new, and the bucket of the old).  SR_LOG_ONCE and SR_LOG_EVERY_N read
 * no clock.
 * @param now_ns The clock: returns nanoseconds, from any thread, without
 *        logging; NULL: the limiters' own.
 * @param ctx Passed to now_ns.
 */
SR_API void sr_log_limit_set_clock(int64_t (*now_ns)(void *ctx), void *ctx);

/* ---------------------------------------------------------------------------------------- */
/* What the macros call (nothing here is API)                                               */

/* sr_log_limiter.kind */
enum { SR_LOG__LIMIT_ONCE = 1, SR_LOG__LIMIT_EVERY_N = 2, SR_LOG__LIMIT_RATE = 3 };
/* sr_log_limiter.clock: 0 until the first call; the TSC read inline; another clock, out of line */
enum { SR_LOG__LIMIT_CLOCK_TSC = 1, SR_LOG__LIMIT_CLOCK_OTHER = 2 };

/*
 * A line a limiter admitted through cat (out of line: once per site for ONCE,
 * and whenever the line's category is not the last one's): lists the limiter,
 * records its kind and parameter, and makes cat's logger the one its
 * suppressed calls count in.  base: the site's suppressed calls that this
 * line does not report (they stay with the previous logger).
 */
SR_API void sr_log__limit_wrote(sr_log_limiter *l, sr_category *cat, int kind, int64_t param, int64_t base);
/* RATE: the clock's reading in the limiter's units, set up first at its first call (out of line). */
SR_API int64_t sr_log__limit_now(sr_log_limiter *l, sr_category *cat, int64_t per_second, int64_t burst);
/* RATE: a call the bucket may admit at now (read before next): -1 suppressed, or the count its line reports. */
SR_API int64_t sr_log__limit_take(sr_log_limiter *l, sr_category *cat, int64_t now, int64_t next);

/*
 * ONCE: the first call of the process is written, every later one suppressed.
 * -1: suppressed; 0: write (with nothing to report).  The add is the
 * limiter's only atomic: the ticket decides, whatever the threads.
 */
static inline __attribute__((always_inline)) int64_t
sr_log__limit_once(sr_log_limiter *l, sr_category *cat)
{
	if (__builtin_expect(sr_atomic_faa_i64(&l->calls, 1) != 0, 1))
		return -1;
	sr_log__limit_wrote(l, cat, SR_LOG__LIMIT_ONCE, 1, 0);
	return 0;
}

/*
 * EVERY_N: the calls whose ticket is a multiple of n are written (the 1st,
 * the (n+1)th ...), each after the first reporting the n - 1 before it.  A
 * constant n makes the remainder a multiply; n below 1 writes every call.
 * The load-acquire of home pairs with the store-release in sr_log__limit_wrote.
 */
static inline __attribute__((always_inline)) int64_t
sr_log__limit_every_n(sr_log_limiter *l, sr_category *cat, const int64_t n)
{
	const int64_t ticket = sr_atomic_faa_i64(&l->calls, 1);
	if (n > 1 && __builtin_expect(ticket % n != 0, 1))
		return -1;
	const int64_t count = ticket == 0 || n <= 1 ? 0 : n - 1;
	if (__builtin_expect(sr_atomic_load_acquire_ptr(&l->home) != (void *)cat, 0))
		sr_log__limit_wrote(l, cat, SR_LOG__LIMIT_EVERY_N, n, ticket - ticket / (n > 1 ? n : 1) - count);
	return count;
}

/*
 * RATE: a token bucket as a virtual schedule (GCRA): next is the earliest
 * reading that admits a call, each admitted call moves it on by one
 * interval, and it may trail the clock by up to burst - 1 intervals.  A
 * suppressed call reads the clock (the TSC inline) and next, and adds one to
 * pending.  The load-acquire of clock pairs with the store-release that ends
 * the limiter's set-up (interval and tolerance written before it); next is
 * read relaxed: the CAS in sr_log__limit_take decides.
 */
static inline __attribute__((always_inline)) int64_t
sr_log__limit_rate(sr_log_limiter *l, sr_category *cat, const int64_t per_second, const int64_t burst)
{
	int64_t now;
	if (__builtin_expect(sr_atomic_load_acquire_i32(&l->clock) == SR_LOG__LIMIT_CLOCK_TSC, 1))
		now = sr_tsc_read();
	else
		now = sr_log__limit_now(l, cat, per_second, burst);
	const int64_t next = sr_atomic_load_relaxed_i64(&l->next);
	if (__builtin_expect(now < next, 1)) {
		sr_atomic_faa_i64(&l->pending, 1);
		return -1;
	}
	return sr_log__limit_take(l, cat, now, next);
}

/*
 * A compile-time check of a parameter that must be at least 1, when it is an
 * integer constant expression; a value known only at run time passes (the
 * limiter's run-time rule applies).  C: _Generic tells an integer constant
 * expression (x * 0 cast to void * is then a null pointer constant, and the
 * conditional's type int *), __builtin_choose_expr keeps the assertion a
 * constant either way.  C++: __builtin_constant_p is false for a run-time
 * value, and the || does not evaluate it.
 */
#if defined(__cplusplus)
#define SR_LOG__LIMIT_CHECK(x, message) \
	SR_LOG__STATIC_ASSERT(!__builtin_constant_p(x) || (x) >= 1, message)
#else
#define SR_LOG__LIMIT_IS_CONSTANT(x) \
	SR_LOG__GENERIC((1 ? (int *)0 : (void *)((long long)(x) * 0ll)), int *: 1, default: 0)
#define SR_LOG__LIMIT_CHECK(x, message) \
	SR_LOG__STATIC_ASSERT(__builtin_choose_expr(SR_LOG__LIMIT_IS_CONSTANT(x), (x), 1) >= 1, message)
#endif

/* A limited call takes one argument fewer than SR_LOG: its suppressed line adds the count. */
#define SR_LOG__LIMIT_CHECK_NARGS(...) SR_LOG__STATIC_ASSERT(SR_LOG__NARGS(__VA_ARGS__) < SR_SITE_MAX_ARGS, \
	"a rate-limited log call takes at most 31 arguments after the format (SR_SITE_MAX_ARGS - 1)")

/*
 * The suppressed line's count goes after the format's arguments and before the SR_KV fields
 * (which come last): per argument (SR_LOG__EACH's M), the kinds and lengths of the format's
 * arguments (..._FMT) and of the fields (..._KV), and each value's store, a field's one place on.
 */
#define SR_LOG__LIMIT_KIND_FMT(i, x) SR_LOG__BY_KV(SR_LOG__LIMIT_KIND_FMT_, i, x)
#define SR_LOG__LIMIT_KIND_FMT_0(i, x) , SR_LOG__KIND(x)
#define SR_LOG__LIMIT_KIND_FMT_1(i, x)
#define SR_LOG__LIMIT_KIND_KV(i, x) SR_LOG__BY_KV(SR_LOG__LIMIT_KIND_KV_, i, x)
#define SR_LOG__LIMIT_KIND_KV_0(i, x)
#define SR_LOG__LIMIT_KIND_KV_1(i, x) , SR_LOG__KIND(SR_LOG__KV_VALUE(x))
#define SR_LOG__LIMIT_LEN_FMT(i, x) SR_LOG__BY_KV(SR_LOG__LIMIT_LEN_FMT_, i, x)
#define SR_LOG__LIMIT_LEN_FMT_0(i, x) , SR_LOG__CONST_LEN(x)
#define SR_LOG__LIMIT_LEN_FMT_1(i, x)
#define SR_LOG__LIMIT_LEN_KV(i, x) SR_LOG__BY_KV(SR_LOG__LIMIT_LEN_KV_, i, x)
#define SR_LOG__LIMIT_LEN_KV_0(i, x)
#define SR_LOG__LIMIT_LEN_KV_1(i, x) , SR_LOG__CONST_LEN(SR_LOG__KV_VALUE(x))
#define SR_LOG__LIMIT_ARG_STORE(i, x) SR_LOG__BY_KV(SR_LOG__LIMIT_ARG_STORE_, i, x)
#define SR_LOG__LIMIT_ARG_STORE_0(i, x) sr_log__args[i] = SR_LOG__ARG(x);
#define SR_LOG__LIMIT_ARG_STORE_1(i, x) sr_log__args[(i) + 1] = SR_LOG__ARG(SR_LOG__KV_VALUE(x));

/*
 * The write of an admitted call, as SR_LOG's body after its gate: through
 * site_ (the plain format, whose gate the call passed) when count is 0,
 * else through a second site whose format ends with SR_LOG_LIMIT_SUFFIX,
 * the count its last argument.  Both are in the catalogue: rules that
 * match the one match the other (the same file, function, line and level,
 * and a format that begins with the plain one).  Each branch a block of
 * its own: the names of SR_LOG's helper macros (sr_log__args ...) serve both.
 */
#define SR_LOG__LIMIT_WRITE(cat_, site_, lvl, count_, ...) \
	if (__builtin_expect((count_) == 0, 1)) { \
		SR_LOG__EMIT(cat_, site_, lvl, __VA_ARGS__) \
	} else { \
		static sr_site sr_log__site = SR_SITE__INIT(SR_LOG__FIRST(__VA_ARGS__) SR_LOG_LIMIT_SUFFIX, \
		    __FILE__, __func__, __LINE__, (lvl)); \
		SR_SITE__CATALOGUE(sr_log__site) \
		static const unsigned char sr_log__kinds[] = { 0 SR_LOG__EACH(SR_LOG__LIMIT_KIND_FMT, __VA_ARGS__), \
		    SR_FMT_ARG_LONG SR_LOG__EACH(SR_LOG__LIMIT_KIND_KV, __VA_ARGS__) }; \
		const int32_t sr_log__lens[] = { -1 SR_LOG__EACH(SR_LOG__LIMIT_LEN_FMT, __VA_ARGS__), -1 \
		    SR_LOG__EACH(SR_LOG__LIMIT_LEN_KV, __VA_ARGS__) }; \
		(void)sizeof(sr_log__format_check(SR_LOG__FIRST(__VA_ARGS__) SR_LOG_LIMIT_SUFFIX \
		    SR_LOG__EACH(SR_LOG__FMT_ITEM, __VA_ARGS__), 0ull)); \
		static const char *const sr_log__keys[] = { SR_LOG__EACH(SR_LOG__KEY_ITEM, __VA_ARGS__) NULL }; \
		static const unsigned char sr_log__kv_flags[] = { SR_LOG__EACH(SR_LOG__FLAG_ITEM, __VA_ARGS__) 0 }; \
		sr_log_arg sr_log__args[SR_LOG__NARGS(__VA_ARGS__) + 1]; \
		SR_LOG__EACH(SR_LOG__LIMIT_ARG_STORE, __VA_ARGS__) \
		sr_log__args[SR_LOG__NARGS(__VA_ARGS__) - SR_LOG__NKV(__VA_ARGS__)] = \
		    sr_log__arg_ulong((unsigned long long)(count_)); \
		sr_log__emit_fast_kv((cat_), &sr_log__site, sr_log__args, sr_log__kinds + 1, \
		    sr_log__lens + 1, SR_LOG__NARGS(__VA_ARGS__) + 1, (lvl), sr_log__keys, sr_log__kv_flags, \
		    SR_LOG__NKV(__VA_ARGS__)); \
	}

/*
 * A limited call: the level check (SR_LOG's), then decide (an expression of
 * sr_log__limiter and sr_log__cat: -1 suppressed, else the count to report),
 * then the write.
 */
#define SR_LOG__LIMITED(cat, lvl, decide, ...) do { \
	SR_LOG__LIMIT_CHECK_NARGS(__VA_ARGS__); \
	sr_category *const sr_log__cat = (cat); \
	static sr_site sr_log__plain_site = SR_SITE__INIT(SR_LOG__FIRST(__VA_ARGS__), __FILE__, \
	    __func__, __LINE__, (lvl)); \
	SR_SITE__CATALOGUE(sr_log__plain_site) \
	/* The plain site's gate, as SR_LOG's: a site switched off counts nothing suppressed. */ \
	if (sr_site__gate_passes(&sr_log__plain_site.gate, &sr_log__cat->level)) { \
		static sr_log_limiter sr_log__limiter; \
		const int64_t sr_log__count = (decide); \
		if (sr_log__count >= 0) { \
			SR_LOG__LIMIT_WRITE(sr_log__cat, sr_log__plain_site, lvl, sr_log__count, __VA_ARGS__) \
		} \
	} \
} while (0)

/* The three kinds, name being the user's macro (its compile-time messages say it). */
#define SR_LOG__ONCE(name, cat, lvl, ...) \
	SR_LOG__LIMITED(cat, lvl, sr_log__limit_once(&sr_log__limiter, sr_log__cat), __VA_ARGS__)
#define SR_LOG__EVERY_N(name, cat, lvl, n, ...) do { \
	SR_LOG__LIMIT_CHECK(n, name ": n must be at least 1"); \
	SR_LOG__LIMITED(cat, lvl, sr_log__limit_every_n(&sr_log__limiter, sr_log__cat, (int64_t)(n)), \
	    __VA_ARGS__); \
} while (0)
#define SR_LOG__LIMIT(name, cat, lvl, per_second, burst, ...) do { \
	SR_LOG__LIMIT_CHECK(per_second, name ": per_second must be at least 1"); \
	SR_LOG__LIMIT_CHECK(burst, name ": burst must be at least 1"); \
	SR_LOG__LIMITED(cat, lvl, sr_log__limit_rate(&sr_log__limiter, sr_log__cat, (int64_t)(per_second), \
	    (int64_t)(burst)), __VA_ARGS__); \
} while (0)

/* ---------------------------------------------------------------------------------------- */
/* The macros                                                                               */

/**
 * @brief Logs the first call of this site in the process, and no other.
 *
 * As SR_LOG, behind a limiter: the level check first (a disabled level
 * costs what SR_LOG's does, and is not a call of the limiter); then the
 * first call that passes it is written, and every later one is suppressed
 * (no argument evaluated, nothing written, counted in
 * sr_log_counters::suppressed).  Once per process, not per logger: a site
 * that wrote through a logger since closed stays silent.  Lock-free: one
 * atomic add per call.
 * @param cat An sr_category handle; evaluated once.
 * @param lvl The level, a constant SR_LOG_TRACE .. SR_LOG_FATAL.
 * @param ... The format, a string literal, then at most 31 arguments.
 */
#define SR_LOG_ONCE(cat, lvl, ...) SR_LOG__ONCE("SR_LOG_ONCE", cat, lvl, __VA_ARGS__)

/**
 * @brief Logs the 1st, (n+1)th, (2n+1)th ... call of this site.
 *
 * As SR_LOG, behind a limiter: after the level check, each call takes a
 * ticket (one atomic add); the calls whose ticket is a multiple of n are
 * written, the others suppressed (no argument evaluated, nothing written,
 * counted).  Each written line after the first ends with " (N suppressed)",
 * N the n - 1 calls suppressed since the previous one, whatever the
 * threads.
 * @param cat An sr_category handle; evaluated once.
 * @param lvl The level, a constant SR_LOG_TRACE .. SR_LOG_FATAL.
 * @param n An integer, at least 1 (1: every call); evaluated once per call
 *        that passes the level check, and should be the same at every call.
 *        A constant below 1 fails to compile ("SR_LOG_EVERY_N: n must be at
 *        least 1"); a run-time value below 1 writes every call.
 * @param ... The format, a string literal, then at most 31 arguments.
 */
#define SR_LOG_EVERY_N(cat, lvl, n, ...) SR_LOG__EVERY_N("SR_LOG_EVERY_N", cat, lvl, n, __VA_ARGS__)

/**
 * @brief Logs at most per_second calls a second from this site, after a burst of up to burst.
 *
 * As SR_LOG, behind a token bucket: it holds burst tokens, starts full, and
 * refills at per_second tokens a second; a call that passes the level check
 * takes a token and is written, or finds none and is suppressed (no
 * argument evaluated, nothing written, counted).  The first line after
 * suppressed calls ends with " (N suppressed)", N the calls suppressed
 * since the site's previous line.  Lock-free: a suppressed call reads the
 * clock and adds one to a counter; a written one takes its token with a
 * compare-and-swap.  The clock: sr_log_limit.h.
 * @param cat An sr_category handle; evaluated once.
 * @param lvl The level, a constant SR_LOG_TRACE .. SR_LOG_FATAL.
 * @param per_second The refill rate, an integer, at least 1.
 * @param burst The bucket's size, an integer, at least 1.  per_second and
 *        burst are evaluated at every call that passes the level check and
 *        read at the site's first (and after sr_log_limit_set_clock).  A
 *        constant below 1 fails to compile ("SR_LOG_LIMIT: burst must be at
 *        least 1"); a run-time value below 1 makes a bucket that never runs
 *        dry (every call written).
 * @param ... The format, a string literal, then at most 31 arguments.
 */
#define SR_LOG_LIMIT(cat, lvl, per_second, burst, ...) \
	SR_LOG__LIMIT("SR_LOG_LIMIT", cat, lvl, per_second, burst, __VA_ARGS__)

/**
 * @brief SR_LOG_ONCE at SR_LOG_TRACE.
 * @param cat An sr_category handle.
 * @param ... The format, a string literal, then its arguments.
 */
#define SR_TRACE_ONCE(cat, ...) SR_LOG__ONCE("SR_TRACE_ONCE", cat, SR_LOG_TRACE, __VA_ARGS__)
/**
 * @brief SR_LOG_ONCE at SR_LOG_DEBUG.
 * @param cat An sr_category handle.
 * @param ... The format, a string literal, then its arguments.
 */
#define SR_DEBUG_ONCE(cat, ...) SR_LOG__ONCE("SR_DEBUG_ONCE", cat, SR_LOG_DEBUG, __VA_ARGS__)
/**
 * @brief SR_LOG_ONCE at SR_LOG_INFO.
 * @param cat An sr_category handle.
 * @param ... The format, a string literal, then its arguments.
 */
#define SR_INFO_ONCE(cat, ...) SR_LOG__ONCE("SR_INFO_ONCE", cat, SR_LOG_INFO, __VA_ARGS__)
/**
 * @brief SR_LOG_ONCE at SR_LOG_WARN.
 * @param cat An sr_category handle.
 * @param ... The format, a string literal, then its arguments.
 */
#define SR_WARN_ONCE(cat, ...) SR_LOG__ONCE("SR_WARN_ONCE", cat, SR_LOG_WARN, __VA_ARGS__)
/**
 * @brief SR_LOG_ONCE at SR_LOG_ERROR.
 * @param cat An sr_category handle.
 * @param ... The format, a string literal, then its arguments.
 */
#define SR_ERROR_ONCE(cat, ...) SR_LOG__ONCE("SR_ERROR_ONCE", cat, SR_LOG_ERROR, __VA_ARGS__)
/**
 * @brief SR_LOG_ONCE at SR_LOG_FATAL.
 * @param cat An sr_category handle.
 * @param ... The format, a string literal, then its arguments.
 */
#define SR_FATAL_ONCE(cat, ...) SR_LOG__ONCE("SR_FATAL_ONCE", cat, SR_LOG_FATAL, __VA_ARGS__)

/**
 * @brief SR_LOG_EVERY_N at SR_LOG_TRACE.
 * @param cat An sr_category handle.
 * @param n Every nth call is written (at least 1).
 * @param ... The format, a string literal, then its arguments.
 */
#define SR_TRACE_EVERY_N(cat, n, ...) SR_LOG__EVERY_N("SR_TRACE_EVERY_N", cat, SR_LOG_TRACE, n, __VA_ARGS__)
/**
 * @brief SR_LOG_EVERY_N at SR_LOG_DEBUG.
 * @param cat An sr_category handle.
 * @param n Every nth call is written (at least 1).
 * @param ... The format, a string literal, then its arguments.
 */
#define SR_DEBUG_EVERY_N(cat, n, ...) SR_LOG__EVERY_N("SR_DEBUG_EVERY_N", cat, SR_LOG_DEBUG, n, __VA_ARGS__)
/**
 * @brief SR_LOG_EVERY_N at SR_LOG_INFO.
 * @param cat An sr_category handle.
 * @param n Every nth call is written (at least 1).
 * @param ... The format, a string literal, then its arguments.
 */
#define SR_INFO_EVERY_N(cat, n, ...) SR_LOG__EVERY_N("SR_INFO_EVERY_N", cat, SR_LOG_INFO, n, __VA_ARGS__)
/**
 * @brief SR_LOG_EVERY_N at SR_LOG_WARN.
 * @param cat An sr_category handle.
 * @param n Every nth call is written (at least 1).
 * @param ... The format, a string literal, then its arguments.
 */
#define SR_WARN_EVERY_N(cat, n, ...) SR_LOG__EVERY_N("SR_WARN_EVERY_N", cat, SR_LOG_WARN, n, __VA_ARGS__)
/**
 * @brief SR_LOG_EVERY_N at SR_LOG_ERROR.
 * @param cat An sr_category handle.
 * @param n Every nth call is written (at least 1).
 * @param ... The format, a string literal, then its arguments.
 */
#define SR_ERROR_EVERY_N(cat, n, ...) SR_LOG__EVERY_N("SR_ERROR_EVERY_N", cat, SR_LOG_ERROR, n, __VA_ARGS__)
/**
 * @brief SR_LOG_EVERY_N at SR_LOG_FATAL.
 * @param cat An sr_category handle.
 * @param n Every nth call is written (at least 1).
 * @param ... The format, a string literal, then its arguments.
 */
#define SR_FATAL_EVERY_N(cat, n, ...) SR_LOG__EVERY_N("SR_FATAL_EVERY_N", cat, SR_LOG_FATAL, n, __VA_ARGS__)

/**
 * @brief SR_LOG_LIMIT at SR_LOG_TRACE.
 * @param cat An sr_category handle.
 * @param per_second Tokens a second (at least 1).
 * @param burst The bucket's size (at least 1).
 * @param ... The format, a string literal, then its arguments.
 */
#define SR_TRACE_LIMIT(cat, per_second, burst, ...) \
	SR_LOG__LIMIT("SR_TRACE_LIMIT", cat, SR_LOG_TRACE, per_second, burst, __VA_ARGS__)
/**
 * @brief SR_LOG_LIMIT at SR_LOG_DEBUG.
 * @param cat An sr_category handle.
 * @param per_second Tokens a second (at least 1).
 * @param burst The bucket's size (at least 1).
 * @param ... The format, a string literal, then its arguments.
 */
#define SR_DEBUG_LIMIT(cat, per_second, burst, ...) \
	SR_LOG__LIMIT("SR_DEBUG_LIMIT", cat, SR_LOG_DEBUG, per_second, burst, __VA_ARGS__)
/**
 * @brief SR_LOG_LIMIT at SR_LOG_INFO.
 * @param cat An sr_category handle.
 * @param per_second Tokens a second (at least 1).
 * @param burst The bucket's size (at least 1).
 * @param ... The format, a string literal, then its arguments.
 */
#define SR_INFO_LIMIT(cat, per_second, burst, ...) \
	SR_LOG__LIMIT("SR_INFO_LIMIT", cat, SR_LOG_INFO, per_second, burst, __VA_ARGS__)
/**
 * @brief SR_LOG_LIMIT at SR_LOG_WARN.
 * @param cat An sr_category handle.
 * @param per_second Tokens a second (at least 1).
 * @param burst The bucket's size (at least 1).
 * @param ... The format, a string literal, then its arguments.
 */
#define SR_WARN_LIMIT(cat, per_second, burst, ...) \
	SR_LOG__LIMIT("SR_WARN_LIMIT", cat, SR_LOG_WARN, per_second, burst, __VA_ARGS__)
/**
 * @brief SR_LOG_LIMIT at SR_LOG_ERROR.
 * @param cat An sr_category handle.
 * @param per_second Tokens a second (at least 1).
 * @param burst The bucket's size (at least 1).
 * @param ... The format, a string literal, then its arguments.
 */
#define SR_ERROR_LIMIT(cat, per_second, burst, ...) \
	SR_LOG__LIMIT("SR_ERROR_LIMIT", cat, SR_LOG_ERROR, per_second, burst, __VA_ARGS__)
/**
 * @brief SR_LOG_LIMIT at SR_LOG_FATAL.
 * @param cat An sr_category handle.
 * @param per_second Tokens a second (at least 1).
 * @param burst The bucket's size (at least 1).
 * @param ... The format, a string literal, then its arguments.
 */
#define SR_FATAL_LIMIT(cat, per_second, burst, ...) \
	SR_LOG__LIMIT("SR_FATAL_LIMIT", cat, SR_LOG_FATAL, per_second, burst, __VA_ARGS__)

#ifdef __cplusplus
}
#endif

#endif /* SR_LOG_LIMIT_H */

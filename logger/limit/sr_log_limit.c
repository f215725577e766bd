/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_limit.c: rate limits per call site, the out-of-line halves
 * (sr_log_limit.h decides inline).
 *
 * ONCE and EVERY_N decide by a ticket (one fetch-and-add: the nth call of
 * the site, whatever the threads), so their counts derive from it.  RATE is
 * a token bucket kept as a virtual schedule (GCRA, as in ATM's cell rate
 * control): `next` is the earliest clock reading that admits a call; an
 * admitted call moves it to max(next, now - tolerance) + interval with one
 * CAS, so that up to burst calls pass at once and one more each interval;
 * a suppressed call only adds one to `pending`, which the next written
 * line takes (and reports).  No lock, no allocation, no system call on the
 * caller: the first call of a RATE limiter learns the TSC's rate from its
 * category's logger (which calibrated it at open) and keeps it for the
 * process.
 *
 * Where a suppressed call counts (sr_log_counters.suppressed): in the
 * logger of the site's last written line.  A line through a category of
 * another logger than the previous line's (or of the same address, closed
 * and opened again) moves the site there; its earlier suppressed calls,
 * but for those that line reports, stay with the earlier logger (home_base).
 */
#include "sr_log_limit_internal.h"

#include <string.h>
#include <time.h>

#include "sr_log_clock_internal.h"
#include "sr_log_internal.h"
#include "sr_log_thread_internal.h"
#include "sr_time.h"

#define NS_PER_S INT64_C(1000000000)
/*
 * The largest tolerance: a bucket that never runs dry (a bad run-time
 * parameter) trails the clock by this much.  Far below INT64_MAX, so that
 * now - tolerance cannot overflow for any clock reading a limiter sees.
 */
#define TOLERANCE_MAX (INT64_C(1) << 62)

/* The listed limiters, newest first; each links to the one listed before it. */
static sr_atomic_ptr limiters;
/* sr_log_limit_set_clock's clock (its function as an integer, 0: none) and its argument. */
static sr_atomic_i64 clock_fn;
static sr_atomic_ptr clock_ctx;
/* The TSC's ticks a second, learnt from the first logger that calibrated it; 0: not yet. */
static sr_atomic_i64 tsc_per_second;

typedef int64_t (*clock_fn_type)(void *ctx);

static void
list(sr_log_limiter *l)
{
	if (sr_atomic_load_acquire_i32(&l->listed) != 0 || !sr_atomic_cas_i32(&l->listed, 0, 1))
		return;
	void *head;
	do {
		head = sr_atomic_load_acquire_ptr(&limiters);
		sr_atomic_store_release_ptr(&l->link, head);
		/* The CAS (a full barrier) publishes link; pairs with the load-acquire of the head in each walk. */
	} while (!sr_atomic_cas_ptr(&limiters, head, l));
}

void
sr_log__limit_each(void (*fn)(sr_log_limiter *l, void *ctx), void *ctx)
{
	/* pairs with the CAS that listed each limiter */
	for (sr_log_limiter *l = sr_atomic_load_acquire_ptr(&limiters); l != NULL;
	    l = sr_atomic_load_acquire_ptr(&l->link))
		fn(l, ctx);
}

void
sr_log__limit_wrote(sr_log_limiter *l, sr_category *cat, int kind, int64_t param, int64_t base)
{
	/* Deterministic per site: racing first lines store the same values. */
	sr_atomic_store_relaxed_i32(&l->kind, kind);
	if (kind != SR_LOG__LIMIT_RATE)
		sr_atomic_store_relaxed_i64(&l->param[0], param < 1 ? 1 : param);
	list(l);
	sr_category *old = sr_atomic_load_acquire_ptr(&l->home);
	if (old == cat)
		return;
	/*
	 * Another logger: the site's suppressed calls count there from base on.
	 * old is a category, kept for the process's life even when its logger
	 * closed; a closed one's logger may be gone and its address reused.
	 */
	if (old == NULL || old->log != cat->log || sr_atomic_load_relaxed_i32(&old->level) == SR_LOG__CLOSED)
		sr_atomic_store_relaxed_i64(&l->home_base, base);
	/* pairs with the load-acquire of home in sr_log__limit_suppressed (base before it) and the macros' check */
	sr_atomic_store_release_ptr(&l->home, cat);
}

/*
 * The TSC's ticks a second, from cat's logger when it reads the TSC (it
 * calibrated it at open), kept for the process; 0 when unknown.  The
 * logger is read inside a call marked in progress, as the frontend reads
 * it: a close waits for the call, or the call sees the closed level.
 */
static int64_t
tsc_rate(sr_category *cat)
{
#if SR_HAVE_TSC
	int64_t known = sr_atomic_load_relaxed_i64(&tsc_per_second);
	if (known > 0)
		return known;
	int64_t rate = 0;
	sr_log_thread *self = sr_log__call_enter(cat);
	if (sr_atomic_load_relaxed_i32(&cat->level) != SR_LOG__CLOSED && cat->log != NULL) {
		int64_t seg[5];
		if (sr_log__clock_segment(cat->log, seg)) {
			double ns_per_tick;
			memcpy(&ns_per_tick, &seg[4], sizeof ns_per_tick);
			if (ns_per_tick > 0 && ns_per_tick < 1e6)
				rate = (int64_t)(1e9 / ns_per_tick + 0.5);
		}
	}
	sr_log__call_leave(self);
	if (rate > 0)
		sr_atomic_store_relaxed_i64(&tsc_per_second, rate);
	return rate;
#else
	(void)cat;
	return 0;
#endif
}

static int64_t
monotonic_coarse_ns(void)
{
	struct timespec ts;
#if defined(CLOCK_MONOTONIC_COARSE)
	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
#else
	clock_gettime(CLOCK_MONOTONIC, &ts);
#endif
	return (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

static int64_t
read_clock(int32_t clock)
{
	if (clock == SR_LOG__LIMIT_CLOCK_TSC)
		return sr_tsc_read();
	/* pairs with the store-release in sr_log_limit_set_clock: ctx is stored before the function */
	int64_t fn = sr_atomic_load_acquire_i64(&clock_fn);
	if (fn != 0)
		return ((clock_fn_type)(intptr_t)fn)(sr_atomic_load_acquire_ptr(&clock_ctx));
	return monotonic_coarse_ns();
}

/*
 * A RATE limiter's clock and bucket, at its first call (and after
 * sr_log_limit_set_clock): the clock (the injected one, else the TSC when
 * its rate is known, else CLOCK_MONOTONIC_COARSE), the interval and
 * tolerance in its units, a full bucket.  Racing first calls compute and
 * store the same values.
 */
static int32_t
set_up(sr_log_limiter *l, sr_category *cat, int64_t per_second, int64_t burst)
{
	int32_t clock = SR_LOG__LIMIT_CLOCK_OTHER;
	int64_t units = NS_PER_S;   /* the clock's units a second */
	if (sr_atomic_load_relaxed_i64(&clock_fn) == 0) {
		int64_t tsc = tsc_rate(cat);
		if (tsc > 0) {
			clock = SR_LOG__LIMIT_CLOCK_TSC;
			units = tsc;
		}
	}
	int64_t interval = 0, tolerance = TOLERANCE_MAX;   /* a bad parameter: never runs dry */
	if (per_second >= 1 && burst >= 1) {
		interval = units / per_second;
		if (interval < 1)
			interval = 1;
		tolerance = burst - 1 > TOLERANCE_MAX / interval ? TOLERANCE_MAX : (burst - 1) * interval;
	}
	sr_atomic_store_relaxed_i64(&l->interval, interval);
	sr_atomic_store_relaxed_i64(&l->tolerance, tolerance);
	sr_atomic_store_relaxed_i64(&l->param[0], per_second);
	sr_atomic_store_relaxed_i64(&l->param[1], burst);
	sr_atomic_store_relaxed_i32(&l->kind, SR_LOG__LIMIT_RATE);
	/* A full bucket: next 0 is a limiter never set up, or one sr_log_limit_set_clock reset. */
	sr_atomic_cas_i64(&l->next, 0, INT64_MIN);
	list(l);
	/* pairs with the load-acquire of clock in sr_log__limit_rate and sr_log__limit_now */
	sr_atomic_store_release_i32(&l->clock, clock);
	return clock;
}

int64_t
sr_log__limit_now(sr_log_limiter *l, sr_category *cat, int64_t per_second, int64_t burst)
{
	/* pairs with the store-release in set_up */
	int32_t clock = sr_atomic_load_acquire_i32(&l->clock);
	if (clock == 0)
		clock = set_up(l, cat, per_second, burst);
	return read_clock(clock);
}

int64_t
sr_log__limit_take(sr_log_limiter *l, sr_category *cat, int64_t now, int64_t next)
{
	/* Set up before clock's store-release, which the caller's load-acquire saw. */
	const int64_t interval = sr_atomic_load_relaxed_i64(&l->interval);
	const int64_t tolerance = sr_atomic_load_relaxed_i64(&l->tolerance);
	for (;;) {
		const int64_t from = next > now - tolerance ? next : now - tolerance;
		if (sr_atomic_cas_i64(&l->next, next, from + interval))
			break;
		/* Another call took a token meanwhile: the bucket may be dry now. */
		next = sr_atomic_load_relaxed_i64(&l->next);
		if (now < next) {
			sr_atomic_faa_i64(&l->pending, 1);
			return -1;
		}
	}
	/* The line reports what was suppressed since the last one (a suppressed call may add meanwhile). */
	int64_t count = sr_atomic_load_relaxed_i64(&l->pending);
	while (!sr_atomic_cas_i64(&l->pending, count, 0))
		count = sr_atomic_load_relaxed_i64(&l->pending);
	sr_atomic_faa_i64(&l->calls, 1);
	/* pairs with the store-release in sr_log__limit_wrote */
	if (sr_atomic_load_acquire_ptr(&l->home) != (void *)cat)
		sr_log__limit_wrote(l, cat, SR_LOG__LIMIT_RATE, 0, sr_atomic_load_relaxed_i64(&l->reported));
	sr_atomic_faa_i64(&l->reported, count);
	return count;
}

void
sr_log__limit_init(sr_log_limiter *l, int kind, int64_t a, int64_t b)
{
	memset(l, 0, sizeof *l);
	sr_atomic_store_relaxed_i32(&l->kind, kind);
	sr_atomic_store_relaxed_i64(&l->param[0], kind == SR_LOG__LIMIT_ONCE ? 1 : a);
	sr_atomic_store_relaxed_i64(&l->param[1], kind == SR_LOG__LIMIT_RATE ? b : 0);
	list(l);
}

int64_t
sr_log__limit_clock(sr_log_limiter *l, sr_category *cat)
{
	return sr_log__limit_now(l, cat, sr_atomic_load_relaxed_i64(&l->param[0]),
	    sr_atomic_load_relaxed_i64(&l->param[1]));
}

int64_t
sr_log__limit_admit(sr_log_limiter *l, sr_category *cat, int64_t now)
{
	switch (sr_atomic_load_relaxed_i32(&l->kind)) {
	case SR_LOG__LIMIT_ONCE:
		return sr_log__limit_once(l, cat);
	case SR_LOG__LIMIT_EVERY_N:
		return sr_log__limit_every_n(l, cat, sr_atomic_load_relaxed_i64(&l->param[0]));
	case SR_LOG__LIMIT_RATE: {
		/* pairs with the store-release in set_up; now came from sr_log__limit_clock, which set it up */
		if (sr_atomic_load_acquire_i32(&l->clock) == 0)
			now = sr_log__limit_clock(l, cat);
		const int64_t next = sr_atomic_load_relaxed_i64(&l->next);
		if (now < next) {
			sr_atomic_faa_i64(&l->pending, 1);
			return -1;
		}
		return sr_log__limit_take(l, cat, now, next);
	}
	default:
		return 0;   /* no limit */
	}
}

void
sr_log__limit_counters(const sr_log_limiter *l, sr_log_limit_counters *out)
{
	memset(out, 0, sizeof *out);
	out->kind = sr_atomic_load_relaxed_i32(&l->kind);
	out->param[0] = sr_atomic_load_relaxed_i64(&l->param[0]);
	out->param[1] = sr_atomic_load_relaxed_i64(&l->param[1]);
	const uint64_t calls = (uint64_t)sr_atomic_load_relaxed_i64(&l->calls);
	switch (out->kind) {
	case SR_LOG__LIMIT_ONCE:
		out->calls = calls;
		out->emitted = calls > 0 ? 1 : 0;
		out->suppressed = calls - out->emitted;
		out->pending = out->suppressed;
		break;
	case SR_LOG__LIMIT_EVERY_N: {
		/* tickets 0, n, 2n ... were written */
		const uint64_t n = out->param[0] > 1 ? (uint64_t)out->param[0] : 1;
		out->calls = calls;
		out->emitted = calls == 0 ? 0 : (calls - 1) / n + 1;
		out->suppressed = calls - out->emitted;
		out->pending = calls == 0 ? 0 : (calls - 1) % n;
		break;
	}
	case SR_LOG__LIMIT_RATE:
		out->emitted = calls;   /* RATE counts its lines in calls */
		out->pending = (uint64_t)sr_atomic_load_relaxed_i64(&l->pending);
		out->suppressed = (uint64_t)sr_atomic_load_relaxed_i64(&l->reported) + out->pending;
		out->calls = out->emitted + out->suppressed;
		break;
	default:
		break;
	}
}

uint64_t
sr_log__limit_suppressed(const sr_log *log)
{
	uint64_t sum = 0;
	/* pairs with the CAS that listed each limiter */
	for (sr_log_limiter *l = sr_atomic_load_acquire_ptr(&limiters); l != NULL;
	    l = sr_atomic_load_acquire_ptr(&l->link)) {
		/* pairs with the store-release in sr_log__limit_wrote: home_base is stored before home */
		const sr_category *home = sr_atomic_load_acquire_ptr(&l->home);
		if (home == NULL || home->log != log || sr_atomic_load_relaxed_i32(&home->level) == SR_LOG__CLOSED)
			continue;
		sr_log_limit_counters c;
		sr_log__limit_counters(l, &c);
		const uint64_t base = (uint64_t)sr_atomic_load_relaxed_i64(&l->home_base);
		if (c.suppressed > base)
			sum += c.suppressed - base;
	}
	return sum;
}

void
sr_log_limit_set_clock(int64_t (*now_ns)(void *ctx), void *ctx)
{
	sr_atomic_store_release_ptr(&clock_ctx, ctx);
	/* pairs with the load-acquire in read_clock and set_up: ctx is stored first */
	sr_atomic_store_release_i64(&clock_fn, (int64_t)(intptr_t)now_ns);
	/* Every RATE limiter starts afresh at its next call: its clock and a full bucket. */
	for (sr_log_limiter *l = sr_atomic_load_acquire_ptr(&limiters); l != NULL;
	    l = sr_atomic_load_acquire_ptr(&l->link)) {
		if (sr_atomic_load_relaxed_i32(&l->kind) != SR_LOG__LIMIT_RATE)
			continue;
		sr_atomic_store_relaxed_i64(&l->next, 0);
		/* pairs with the load-acquire of clock: next is reset before the limiter is set up again */
		sr_atomic_store_release_i32(&l->clock, 0);
	}
}

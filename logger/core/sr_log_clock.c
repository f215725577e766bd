/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_clock.c: the logger's clocks (sr_log_clock).
 *
 * realtime and coarse are clock_gettime readings, nanoseconds since the
 * epoch, stored in the record as they are.  tsc stores the raw time-stamp
 * counter (one rdtsc on the caller, ~8 ns against ~20-40 ns for a vDSO
 * clock_gettime) and leaves the conversion to whoever renders the record:
 * the consumer in ring mode, a caller in the queue and sync modes and under
 * policy sync.  Conversion is piecewise linear:
 *
 *   ns = seg.ns0 + (tsc - seg.tsc0) * seg.ns_per_tick
 *
 * with two segments, the current one and the one before (a record read
 * before a refresh but rendered after it takes the segment of its time).
 * A refresh (on the consumer, when due) reads a fresh (tsc, CLOCK_REALTIME)
 * pair and starts a new segment at that tsc where the old one ends, so the
 * mapping stays continuous and increasing: converted times never go
 * backwards.  Its slope is the rate measured since the last refresh,
 * adjusted to absorb the offset between the mapping and CLOCK_REALTIME over
 * the next period (slewing, as NTP does: at most 1000 ppm).  An offset above
 * 1 ms (CLOCK_REALTIME was stepped: settimeofday, an NTP step, a VM restore)
 * is not slewed: the segment steps to CLOCK_REALTIME.
 *
 * The segments are published with a sequence lock made of sr_atomic
 * operations: the refresher (one at a time: a CAS on `refreshing`) makes the
 * version odd, stores the fields, makes it even; a reader retries while the
 * version is odd or changed.  Every field is an atomic (relaxed) so that the
 * protocol has no data race for ThreadSanitizer to see.  Readers never
 * block; a reader interrupted by a signal handler that converts (the crash
 * handler) could find the version odd forever, so readers give up after a
 * bounded number of tries and use what they read.
 */
#include "sr_log_clock_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

/*
 * The tsc clock's calibration (sr_log_clock.c): two segments of the
 * tsc -> ns mapping (seg[0] the previous, seg[1] the current), each
 * { tsc0, ns0, tsc1, slewed rate bits, rate bits }, behind a sequence lock.
 */
#define SR_LOG_CLOCK_FIELDS 5
typedef struct sr_log_clock_state {
	sr_atomic_i64 version;    /* odd while a refresh writes the segments */
	sr_atomic_i64 seg[2][SR_LOG_CLOCK_FIELDS];
	sr_atomic_i64 next_refresh;   /* tsc at which a refresh is due */
	sr_atomic_i32 refreshing;     /* 1 while a thread refreshes */
	/* The refresher's own (under `refreshing`). */
	int64_t last_tsc, last_ns;
	double rate;              /* measured ns per tick */
	int64_t period_ns;
	uint64_t refreshes, steps;
} sr_log_clock_state;

#define NS_PER_S INT64_C(1000000000)
/* Refreshes at 50 ms, 200 ms, then every second. */
#define FIRST_REFRESH_NS (50 * INT64_C(1000000))
#define SECOND_REFRESH_NS (200 * INT64_C(1000000))
#define REFRESH_NS NS_PER_S
/* Offsets above this are stepped, below it slewed. */
#define STEP_NS INT64_C(1000000)
/* Largest slew, as a fraction of the rate. */
#define MAX_SLEW 1e-3
/* The open-time calibration spans at least this long. */
#define CALIBRATE_NS (5 * INT64_C(1000000))


static int64_t
double_bits(double d)
{
	int64_t v;
	memcpy(&v, &d, sizeof v);
	return v;
}

static double
bits_double(int64_t v)
{
	double d;
	memcpy(&d, &v, sizeof d);
	return d;
}

/* One (tsc, realtime) pair: the tightest bracket of a few tries (sr_time.h). */
static void
read_pair(int64_t *tsc, int64_t *ns)
{
	sr_tsc_sample sample;
	if (sr_tsc_sample_clock(CLOCK_REALTIME, 5, &sample) != SR_OK)
		memset(&sample, 0, sizeof sample);
	*tsc = sample.tsc;
	*ns = sample.ns;
}


/* One segment of the mapping, as published (see sr_log_clock_state). */
typedef sr_log_clock_segment segment;

static void
publish(sr_log_clock_state *c, const segment *s)
{
	int64_t v = sr_atomic_load_relaxed_i64(&c->version);
	/*
	 * Odd: readers retry.  The release fence orders this store before the
	 * field stores; pairs with the acquire fence in sr_log__clock_to_ns: a
	 * reader that loads any new field value then loads this odd version (or
	 * a later one) and retries.
	 */
	sr_atomic_store_relaxed_i64(&c->version, v + 1);
	sr_atomic_fence_release();
	for (int f = 0; f < SR_LOG_CLOCK_FIELDS; f++)
		sr_atomic_store_relaxed_i64(&c->seg[0][f], sr_atomic_load_relaxed_i64(&c->seg[1][f]));
	sr_atomic_store_relaxed_i64(&c->seg[1][0], s->tsc0);
	sr_atomic_store_relaxed_i64(&c->seg[1][1], s->ns0);
	sr_atomic_store_relaxed_i64(&c->seg[1][2], s->tsc1);
	sr_atomic_store_relaxed_i64(&c->seg[1][3], double_bits(s->slewed));
	sr_atomic_store_relaxed_i64(&c->seg[1][4], double_bits(s->rate));
	/* pairs with the load-acquire of the version in sr_log__clock_to_ns */
	sr_atomic_store_release_i64(&c->version, v + 2);
}

int
sr_log__clock_open(sr_log *log, sr_log_clock kind, sr_error *err)
{
#if defined(__x86_64__)
	if (kind == SR_LOG_CLOCK_AUTO)
		kind = sr_tsc_invariant() ? SR_LOG_CLOCK_TSC : SR_LOG_CLOCK_REALTIME;
#else
	if (kind == SR_LOG_CLOCK_AUTO)
		kind = SR_LOG_CLOCK_REALTIME;
#endif
	log->opt.clock = kind;
	if (kind != SR_LOG_CLOCK_TSC)
		return SR_OK;
#if defined(__x86_64__)
	if (!sr_tsc_invariant())
		return sr_error_set(err, SR_EINVAL,
		    "clock tsc is unavailable: the CPU does not report an invariant TSC (CPUID "
		    "0x80000007 EDX bit 8, constant_tsc and nonstop_tsc in /proc/cpuinfo): use realtime or coarse");
	sr_log_clock_state *c = calloc(1, sizeof *c);
	if (c == NULL)
		return sr_error_set(err, SR_ENOMEM, "cannot allocate the tsc clock");
	int64_t t0 = 0, n0 = 0, t1 = 0, n1 = 0;
	read_pair(&t0, &n0);
	do {
		read_pair(&t1, &n1);
	} while (n1 - n0 < CALIBRATE_NS && n1 >= n0);
	if (t1 <= t0 || n1 <= n0) {
		free(c);
		return sr_error_set(err, SR_ESYS,
		    "clock tsc: calibration failed (tsc %lld -> %lld over %lld ns of CLOCK_REALTIME)",
		    (long long)t0, (long long)t1, (long long)(n1 - n0));
	}
	double rate = (double)(n1 - n0) / (double)(t1 - t0);
	segment seg = { t1, n1, t1, rate, rate };
	publish(c, &seg);
	publish(c, &seg); /* both segments the same */
	c->last_tsc = t1;
	c->last_ns = n1;
	c->rate = rate;
	c->period_ns = FIRST_REFRESH_NS;
	sr_atomic_store_relaxed_i64(&c->next_refresh, t1 + (int64_t)(FIRST_REFRESH_NS / rate));
	log->clk = c;
	return SR_OK;
#else
	return sr_error_set(err, SR_EINVAL,
	    "clock tsc is unavailable: it needs an x86-64 CPU with an invariant TSC: use realtime or coarse");
#endif
}

void
sr_log__clock_close(sr_log *log)
{
	free(log->clk);
	log->clk = NULL;
}

int64_t
sr_log__clock_to_ns(const sr_log *log, int64_t raw)
{
	const sr_log_clock_state *c = log->clk;
	if (log->opt.clock != SR_LOG_CLOCK_TSC || c == NULL)
		return raw;
	segment s;
	for (int tries = 0;; tries++) {
		/* pairs with the store-release of the even version in publish */
		int64_t v1 = sr_atomic_load_acquire_i64(&c->version);
		int which = raw >= sr_atomic_load_relaxed_i64(&c->seg[1][0]) ? 1 : 0;
		s.tsc0 = sr_atomic_load_relaxed_i64(&c->seg[which][0]);
		s.ns0 = sr_atomic_load_relaxed_i64(&c->seg[which][1]);
		s.tsc1 = sr_atomic_load_relaxed_i64(&c->seg[which][2]);
		s.slewed = bits_double(sr_atomic_load_relaxed_i64(&c->seg[which][3]));
		s.rate = bits_double(sr_atomic_load_relaxed_i64(&c->seg[which][4]));
		/*
		 * Orders the field loads before the version's re-check; pairs with
		 * publish's release fence.  An acquire fence is enough (a seqlock
		 * reader needs LoadLoad only): free on x86-64, where the full fence
		 * this was cost a locked instruction on every record rendered.
		 */
		sr_atomic_fence_acquire();
		int64_t v2 = sr_atomic_load_relaxed_i64(&c->version);
		if ((v1 == v2 && (v1 & 1) == 0) || tries >= 1000)
			break;
		sr_atomic_pause();
	}
	return sr_log__clock_map(&s, raw);
}

bool
sr_log__clock_copy_fill(const sr_log *log, sr_log_clock_copy *copy)
{
	const sr_log_clock_state *c = log->clk;
	if (c == NULL)
		return false;
	for (int tries = 0; tries < 1000; tries++) {
		/* pairs with the store-release of the even version in publish */
		int64_t v = sr_atomic_load_acquire_i64(&c->version);
		int64_t seg[2][SR_LOG_CLOCK_FIELDS];
		for (int w = 0; w < 2; w++)
			for (int f = 0; f < SR_LOG_CLOCK_FIELDS; f++)
				seg[w][f] = sr_atomic_load_relaxed_i64(&c->seg[w][f]);
		/* orders the field loads before the re-check; pairs with publish's release fence */
		sr_atomic_fence_acquire();
		if (v == sr_atomic_load_relaxed_i64(&c->version) && (v & 1) == 0) {
			for (int w = 0; w < 2; w++) {
				copy->seg[w] = (segment){ seg[w][0], seg[w][1], seg[w][2], bits_double(seg[w][3]),
				    bits_double(seg[w][4]) };
				copy->at_end[w] = sr_log__clock_at_end(&copy->seg[w]);
			}
			copy->version = v;
			copy->version_of = &c->version;
			return true;
		}
		sr_atomic_pause();
	}
	return false;  /* a writer stopped mid-refresh (a signal handler's reader): copy nothing */
}

bool
sr_log__clock_segment(const sr_log *log, int64_t seg[5])
{
	const sr_log_clock_state *c = log->clk;
	if (log->opt.clock != SR_LOG_CLOCK_TSC || c == NULL)
		return false;
	for (int tries = 0;; tries++) {
		/* pairs with the store-release of the even version in publish */
		int64_t v1 = sr_atomic_load_acquire_i64(&c->version);
		for (int f = 0; f < SR_LOG_CLOCK_FIELDS; f++)
			seg[f] = sr_atomic_load_relaxed_i64(&c->seg[1][f]);
		/* orders the field loads before the re-check; pairs with publish's release fence */
		sr_atomic_fence_acquire();
		if ((v1 == sr_atomic_load_relaxed_i64(&c->version) && (v1 & 1) == 0) || tries >= 1000)
			return true;
		sr_atomic_pause();
	}
}

int64_t
sr_log__clock_map_segment(const int64_t seg[5], int64_t raw)
{
	segment s = { seg[0], seg[1], seg[2], bits_double(seg[3]), bits_double(seg[4]) };
	return sr_log__clock_map(&s, raw);
}

void
sr_log__clock_refresh(sr_log *log, bool force)
{
	sr_log_clock_state *c = log->clk;
	if (c == NULL)
		return;
	int64_t now_tsc = sr_tsc_read();
	if (!force && now_tsc < sr_atomic_load_relaxed_i64(&c->next_refresh))
		return;
	/*
	 * One refresher at a time (the consumer; callers in sync mode).  The CAS
	 * is a full barrier and pairs with the store-release that ended the
	 * previous refresh: its writes to the refresher's fields are ours now.
	 */
	if (!sr_atomic_cas_i32(&c->refreshing, 0, 1))
		return;
	int64_t t = 0, r = 0;
	read_pair(&t, &r);
	int64_t predicted = sr_log__clock_to_ns(log, t);
	int64_t offset = r - predicted;
	double measured = c->rate;
	if (t - c->last_tsc > 0 && r - c->last_ns > 10 * INT64_C(1000000)) {
		double m = (double)(r - c->last_ns) / (double)(t - c->last_tsc);
		/* A rate off by more than 1% means the wall clock jumped: keep the old one. */
		if (m > measured * 0.99 && m < measured * 1.01)
			measured = m;
	}
	int64_t next_period = c->period_ns < SECOND_REFRESH_NS ? SECOND_REFRESH_NS : REFRESH_NS;
	int64_t ticks = (int64_t)((double)next_period / measured);
	segment seg;
	if (offset > STEP_NS || offset < -STEP_NS) {
		/* CLOCK_REALTIME jumped: follow it. */
		seg = (segment){ t, r, t, measured, measured };
		c->steps++;
	} else {
		/*
		 * Start where the mapping is (continuity), run at a slewed rate
		 * for one period so as to meet CLOCK_REALTIME at its end, then at
		 * the measured rate.
		 */
		double slew = (double)offset / (double)next_period;
		if (slew > MAX_SLEW)
			slew = MAX_SLEW;
		if (slew < -MAX_SLEW)
			slew = -MAX_SLEW;
		seg = (segment){ t, predicted, t + ticks, measured * (1.0 + slew), measured };
	}
	publish(c, &seg);
	c->rate = measured;
	c->last_tsc = t;
	c->last_ns = r;
	c->refreshes++;
	c->period_ns = next_period;
	/* Read by the cheap due-check of other refreshers; no data rides on it. */
	sr_atomic_store_relaxed_i64(&c->next_refresh, t + ticks);
	/* pairs with the CAS of the next refresher */
	sr_atomic_store_release_i32(&c->refreshing, 0);
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_log_clock.c: the realtime, coarse, tsc and auto clocks.
 *
 * Each message is bracketed by two CLOCK_REALTIME readings on the calling
 * thread; its rendered timestamp (pattern %d{%s.%9f}, nanoseconds) must lie
 * between them (realtime exactly; tsc within 1 ms; coarse behind by about a
 * tick, clock_getres's figure, which cannot meet 1 ms with a 4 ms tick), and timestamps of one thread must never go backwards.  The tsc
 * run lasts long enough to cross the consumer's refreshes (50 ms, 200 ms,
 * then every second), and runs in every mode (the queue and sync modes
 * convert on the callers).
 */
#include "test_log_support.h"

#include <inttypes.h>

#include "sr_log_clock_internal.h"

static int64_t
realtime_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* "seconds.nanoseconds message" -> ns, or -1. */
static int64_t
parse_ts(const char *line, int *index)
{
	long long sec;
	long nsec;
	if (sscanf(line, "%lld.%9ld m%d", &sec, &nsec, index) != 3)
		return -1;
	return (int64_t)sec * 1000000000 + nsec;
}

typedef struct run {
	sr_log_clock clock;
	sr_log_mode mode;
	int messages;
	int sleep_us;             /* between messages */
	int64_t early_ns;         /* a timestamp may be this much before the first reading */
	int64_t late_ns;          /* or this much after the second */
} run;

static void
check_clock(const run *r)
{
	tl_setup t;
	sr_log_config *c = tl_setup_begin(&t);
	c->clock = r->clock;
	c->mode = r->mode;
	c->ring_slots = 8192;
	c->layout = SR_LOG_LAYOUT_PATTERN;
	c->pattern = "%d{%s.%9f} %m";
	sr_log *log = tl_open(c);
	sr_category *cat = sr_log_root(log);
	int64_t *before = malloc((size_t)r->messages * sizeof *before);
	int64_t *after = malloc((size_t)r->messages * sizeof *after);
	for (int i = 0; i < r->messages; i++) {
		before[i] = realtime_ns();
		SR_INFO(cat, "m%d", i);
		after[i] = realtime_ns();
		if (r->sleep_us > 0) {
			struct timespec ts = { 0, r->sleep_us * 1000L };
			nanosleep(&ts, NULL);
		}
	}
	sr_log_close(&log);
	cr_assert_eq(t.cap.count, (size_t)r->messages);
	int64_t prev = INT64_MIN, worst_early = 0, worst_late = 0;
	for (int i = 0; i < r->messages; i++) {
		int index = -1;
		int64_t ts = parse_ts(t.cap.lines[i], &index);
		cr_assert_eq(index, i, "%s", t.cap.lines[i]);
		cr_assert_geq(ts, prev, "%s: message %d went backwards by %" PRId64 " ns", sr_log_clock_name(r->clock),
		    i, prev - ts);
		prev = ts;
		if (before[i] - ts > worst_early)
			worst_early = before[i] - ts;
		if (ts - after[i] > worst_late)
			worst_late = ts - after[i];
	}
	cr_expect_leq(worst_early, r->early_ns, "%s mode %d: up to %" PRId64 " ns before CLOCK_REALTIME",
	    sr_log_clock_name(r->clock), (int)r->mode, worst_early);
	cr_expect_leq(worst_late, r->late_ns, "%s mode %d: up to %" PRId64 " ns after CLOCK_REALTIME",
	    sr_log_clock_name(r->clock), (int)r->mode, worst_late);
	free(before);
	free(after);
	tl_setup_end(&t);
}

Test(log_clock, realtime_is_exact_and_monotonic)
{
	run r = { SR_LOG_CLOCK_REALTIME, SR_LOG_MODE_RING, 3000, 0, 0, 0 };
	check_clock(&r);
}

Test(log_clock, coarse_is_behind_by_at_most_a_tick)
{
	struct timespec res;
	clock_getres(CLOCK_REALTIME_COARSE, &res);
	int64_t tick = (int64_t)res.tv_sec * 1000000000 + res.tv_nsec;
	cr_assert_gt(tick, 0);
	/*
	 * One tick behind, and more when the tick that updates it comes late
	 * (a tickless kernel waking from idle): 6.9 ms seen with a 4 ms tick on
	 * this VM.  Three ticks bound it here; docs/logger.md (Clocks) gives the figures.
	 */
	run r = { SR_LOG_CLOCK_COARSE, SR_LOG_MODE_RING, 2000, 20, 3 * tick + 1000000, 0 };
	check_clock(&r);
}

/* A small logger's config (64 slots, the environment ignored) whose one sink is the null sink. */
static void
null_sink_config(sr_log_config *c, sr_sink_config *s)
{
	*s = sr_sink_null();
	tl_config_sink(c, s);
	c->ignore_environment = true;
	c->ring_slots = 64;
}

/* Skips (passing) when the CPU has no invariant TSC, after checking the error says so. */
static bool
tsc_available(void)
{
	sr_log_config c;
	sr_sink_config s;
	null_sink_config(&c, &s);
	c.clock = SR_LOG_CLOCK_TSC;
	sr_error err;
	sr_log *log = sr_log_open(&c, &err);
	if (log == NULL) {
		cr_expect(strstr(err.message, "clock tsc is unavailable") != NULL, "%s", err.message);
		return false;
	}
	sr_log_close(&log);
	return true;
}

Test(log_clock, tsc_agrees_within_1ms_across_refreshes, .timeout = 30)
{
	if (!tsc_available())
		return;
	/* ~1.4 s: crosses the refreshes at 50 ms, 250 ms and 1.25 s. */
	run r = { SR_LOG_CLOCK_TSC, SR_LOG_MODE_RING, 1400, 1000, 1000000, 1000000 };
	check_clock(&r);
}

Test(log_clock, tsc_in_the_queue_and_sync_modes, .timeout = 30)
{
	if (!tsc_available())
		return;
	run q = { SR_LOG_CLOCK_TSC, SR_LOG_MODE_QUEUE, 400, 1000, 1000000, 1000000 };
	check_clock(&q);
	run s = { SR_LOG_CLOCK_TSC, SR_LOG_MODE_SYNC, 400, 1000, 1000000, 1000000 };
	check_clock(&s);
}

/* A ring logger on the tsc clock and a null sink; NULL (the test passes) where the CPU has no invariant TSC. */
static sr_log *
open_tsc_logger(void)
{
	if (!tsc_available())
		return NULL;
	sr_log_config c;
	sr_sink_config s;
	null_sink_config(&c, &s);
	c.clock = SR_LOG_CLOCK_TSC;
	sr_log *log = sr_log_open(&c, NULL);
	cr_assert_not_null(log);
	return log;
}

Test(log_clock, tsc_conversion_is_continuous_at_a_refresh)
{
	sr_log *log = open_tsc_logger();
	if (log == NULL)
		return;
	/* Forced refreshes: the mapping just before a refresh point never exceeds the one after it. */
	for (int k = 0; k < 50; k++) {
		int64_t t = sr_tsc_read();
		int64_t before = sr_log__clock_to_ns(log, t);
		sr_log__clock_refresh(log, true);
		int64_t after = sr_log__clock_to_ns(log, t);
		/* The same tsc maps to (about) the same time: continuity, not a jump. */
		cr_expect_leq(after > before ? after - before : before - after, 2, "jump of %" PRId64 " ns",
		    after - before);
		int64_t later = sr_log__clock_to_ns(log, sr_tsc_read());
		cr_expect_geq(later, after);
		int64_t now = realtime_ns();
		cr_expect_leq(later > now ? later - now : now - later, 1000000);
	}
	sr_log_close(&log);
}

/*
 * A reader's copy of the mapping (the consumer's) converts every reading as
 * the clock does: readings of the current segment, of the one before (a
 * record read before a refresh, rendered after it), far before and far
 * after, across refreshes that the copy learns of by the version alone.
 */
Test(log_clock, tsc_through_a_copy_converts_as_the_clock_does)
{
	sr_log *log = open_tsc_logger();
	if (log == NULL)
		return;
	sr_log_clock_copy copy = { 0 };
	int64_t older[40];
	int compared = 0;
	for (int k = 0; k < 40; k++) {
		older[k] = sr_tsc_read();
		const int64_t offsets[] = { 0, -1, 1, -1000000, 1000000, -(INT64_C(1) << 40), INT64_C(1) << 40 };
		for (size_t i = 0; i < sizeof offsets / sizeof *offsets; i++) {
			int64_t t = older[k] + offsets[i];
			cr_assert_eq(sr_log__clock_to_ns_copied(log, &copy, t), sr_log__clock_to_ns(log, t),
			    "refresh %d, tsc %" PRId64, k, t);
			compared++;
		}
		/* Readings taken before earlier refreshes: some in the segment before the current one, some older. */
		for (int j = 0; j <= k; j++)
			cr_assert_eq(sr_log__clock_to_ns_copied(log, &copy, older[j]), sr_log__clock_to_ns(log, older[j]),
			    "refresh %d, the reading before refresh %d", k, j);
		sr_log__clock_refresh(log, true);
	}
	cr_expect_eq(compared, 40 * 7);
	sr_log_close(&log);
}

Test(log_clock, names_and_bad_values)
{
	cr_expect_str_eq(sr_log_clock_name(SR_LOG_CLOCK_REALTIME), "realtime");
	cr_expect_str_eq(sr_log_clock_name(SR_LOG_CLOCK_COARSE), "coarse");
	cr_expect_str_eq(sr_log_clock_name(SR_LOG_CLOCK_TSC), "tsc");
	cr_expect_str_eq(sr_log_clock_name(SR_LOG_CLOCK_AUTO), "auto");
	cr_expect_str_eq(sr_log_clock_name(9), "unknown");
	sr_log_clock k;
	cr_expect_eq(sr_log_clock_parse("TSC", &k, NULL), SR_OK);
	cr_expect_eq(k, SR_LOG_CLOCK_TSC);
	sr_error err;
	cr_expect_eq(sr_log_clock_parse("hpet", &k, &err), SR_EINVAL);
	cr_expect_str_eq(err.message, "clock 'hpet' is invalid: expected realtime, coarse, tsc or auto");
	sr_log_config c;
	sr_log_config_default(&c);
	c.ignore_environment = true;
	c.ring_slots = 64;
	c.clock = (sr_log_clock)7;
	cr_expect_null(sr_log_open(&c, &err));
	cr_expect_str_eq(err.message, "config.clock 7 is invalid: expected SR_LOG_CLOCK_REALTIME (0), "
	    "SR_LOG_CLOCK_COARSE (1), SR_LOG_CLOCK_TSC (2) or SR_LOG_CLOCK_AUTO (3)");
}

/* The default clock is auto: tsc where tsc opens (an invariant TSC), realtime elsewhere. */
Test(log_clock, auto_is_the_default_and_picks_tsc_only_where_it_is_available)
{
	bool tsc = tsc_available();
	sr_log_config c;
	sr_sink_config s;
	null_sink_config(&c, &s);
	cr_expect_eq(c.clock, SR_LOG_CLOCK_AUTO);
	sr_log *log = tl_open(&c);
	char *text = tl_describe(log);
	char line[256];
	cr_assert_not_null(tl_row(text, "clock", line, sizeof line), "describe has no clock row: %s", text);
	cr_expect_not_null(strstr(line, tsc ? "tsc" : "realtime"), "expected %s in '%s'",
	    tsc ? "tsc" : "realtime", line);
	free(text);
	/* Timestamps are right whichever it picked. */
	run r = { SR_LOG_CLOCK_AUTO, SR_LOG_MODE_RING, 1400, 1000, tsc ? 1000000 : 0, tsc ? 1000000 : 0 };
	check_clock(&r);
	sr_log_close(&log);
}

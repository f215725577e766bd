/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_log_limit.c: rate limits per call site (sr_log_limit.h).
 *
 * ONCE writes one line in 1,000 calls; EVERY_N with n = 10 writes the 1st,
 * 11th ... of 95 calls, each line after the first saying "(9 suppressed)";
 * LIMIT under an injected clock writes a burst, then one line per interval,
 * exactly, over a simulated minute.  A suppressed call evaluates no
 * argument, a disabled level evaluates and counts nothing; 8 threads on one
 * site lose no count; sr_log_stats.suppressed is exact; the count is part
 * of the message in every layout (JSON here); run-time parameters below 1
 * limit nothing.  The compile-time checks of constant parameters are in
 * tests/headers/check_limit_args.sh.
 */
#include "test_log_support.h"

#include <stdint.h>
#include <stdio.h>

#include "sr_log_limit_internal.h"

/* ---------------------------------------------------------------------------------------- */
/* Helpers                                                                                  */

/* A logger whose lines are the message alone, captured. */
static sr_log *
open_message_logger(tl_setup *t)
{
	sr_log_config *c = tl_setup_begin(t);
	c->layout = SR_LOG_LAYOUT_MESSAGE;
	return tl_open(c);
}

/* The simulated clock of the LIMIT tests (sr_log_limit_set_clock). */
static int64_t sim_ns;

static int64_t
sim_clock(void *ctx)
{
	return *(const int64_t *)ctx;
}

/* Counts the evaluations of a call's arguments. */
static int evaluated;

static int
bump(void)
{
	return ++evaluated;
}

/* The limiters whose last line went through cat: their counters, summed. */
typedef struct limiter_sum {
	const sr_category *cat;
	int found;
	sr_log_limit_counters sum;
} limiter_sum;

static void
add_limiter(sr_log_limiter *l, void *ctx)
{
	limiter_sum *s = ctx;
	if (sr_atomic_load_acquire_ptr(&l->home) != (const void *)s->cat)
		return;
	sr_log_limit_counters c;
	sr_log__limit_counters(l, &c);
	s->found++;
	s->sum.kind = c.kind;
	s->sum.calls += c.calls;
	s->sum.emitted += c.emitted;
	s->sum.suppressed += c.suppressed;
	s->sum.pending += c.pending;
}

static limiter_sum
limiters_of(const sr_category *cat)
{
	limiter_sum s;
	memset(&s, 0, sizeof s);
	s.cat = cat;
	sr_log__limit_each(add_limiter, &s);
	return s;
}

/* ---------------------------------------------------------------------------------------- */
/* ONCE, EVERY_N                                                                            */

Test(log_limit, once_writes_one_line_in_1000_calls)
{
	tl_setup t;
	sr_log *log = open_message_logger(&t);
	sr_category *cat = sr_log_category(log, "limit.once");
	for (int i = 0; i < 1000; i++)
		SR_INFO_ONCE(cat, "once %d", i);
	cr_assert_eq(tl_flushed_count(log, &t.cap), 1);
	cr_expect_str_eq(t.cap.lines[0], "once 0");
	sr_log_counters st = tl_stats(log);
	cr_expect_eq(st.suppressed, 999, "suppressed %llu", (unsigned long long)st.suppressed);
	cr_expect_eq(st.accepted, 1);
	limiter_sum s = limiters_of(cat);
	cr_assert_eq(s.found, 1);
	cr_expect_eq(s.sum.kind, SR_LOG__LIMIT_ONCE);
	cr_expect_eq(s.sum.calls, 1000);
	cr_expect_eq(s.sum.emitted, 1);
	cr_expect_eq(s.sum.suppressed, 999);
	cr_expect_eq(s.sum.pending, 999);
	tl_close(&log, &t.cap);
}

Test(log_limit, every_n_writes_every_tenth_and_says_nine_suppressed)
{
	tl_setup t;
	sr_log *log = open_message_logger(&t);
	sr_category *cat = sr_log_category(log, "limit.every");
	for (int i = 0; i < 95; i++)
		SR_INFO_EVERY_N(cat, 10, "every %d", i);
	cr_assert_eq(tl_flushed_count(log, &t.cap), 10);
	cr_expect_str_eq(t.cap.lines[0], "every 0");
	for (int k = 1; k < 10; k++) {
		char want[64];
		snprintf(want, sizeof want, "every %d (9 suppressed)", 10 * k);
		cr_expect_str_eq(t.cap.lines[k], want, "line %d", k);
	}
	sr_log_counters st = tl_stats(log);
	cr_expect_eq(st.suppressed, 85, "suppressed %llu", (unsigned long long)st.suppressed);
	cr_expect_eq(st.accepted, 10);
	limiter_sum s = limiters_of(cat);
	cr_assert_eq(s.found, 1);
	cr_expect_eq(s.sum.calls, 95);
	cr_expect_eq(s.sum.emitted, 10);
	cr_expect_eq(s.sum.suppressed, 85);
	cr_expect_eq(s.sum.pending, 4, "calls 91 to 95 wait for a line: %llu", (unsigned long long)s.sum.pending);
	tl_close(&log, &t.cap);
}

Test(log_limit, every_n_with_n_one_writes_every_call)
{
	tl_setup t;
	sr_log *log = open_message_logger(&t);
	sr_category *cat = sr_log_category(log, "limit.every1");
	for (int i = 0; i < 20; i++)
		SR_WARN_EVERY_N(cat, 1, "all %d", i);
	cr_assert_eq(tl_flushed_count(log, &t.cap), 20);
	cr_expect_str_eq(t.cap.lines[19], "all 19");
	cr_expect_eq(tl_stats(log).suppressed, 0);
	tl_close(&log, &t.cap);
}

/* ---------------------------------------------------------------------------------------- */
/* LIMIT under the injected clock                                                           */

/* The site of the minute below: 10 a second, a burst of 5. */
static void
rate_call(sr_category *cat, const char *what)
{
	SR_INFO_LIMIT(cat, 10, 5, "%s %lld", what, (long long)sim_ns / 1000000);
}

Test(log_limit, limit_burst_then_one_per_interval_over_a_minute)
{
	enum { RATE = 10, BURST = 5 };
	const int64_t ms = 1000000, interval = 1000000000 / RATE;
	sim_ns = 0;
	sr_log_limit_set_clock(sim_clock, &sim_ns);
	tl_setup t;
	sr_log *log = open_message_logger(&t);
	sr_category *cat = sr_log_category(log, "limit.rate");
	/* 100 calls at t = 0: the burst. */
	for (int i = 0; i < 100; i++)
		rate_call(cat, "rate");
	cr_assert_eq(tl_flushed_count(log, &t.cap), BURST);
	/* Then a call every millisecond for a minute: a line each interval. */
	for (sim_ns = ms; sim_ns <= 60000 * ms; sim_ns += ms)
		rate_call(cat, "rate");
	const size_t lines = 60000 * ms / interval;   /* at 100 ms, 200 ms ... 60 s */
	cr_assert_eq(tl_flushed_count(log, &t.cap), BURST + lines, "%zu lines", t.cap.count);
	for (int i = 0; i < BURST; i++)
		cr_expect_str_eq(t.cap.lines[i], "rate 0");
	/* The first line after the burst reports the 95 calls at t = 0 and the 99 after them. */
	cr_expect_str_eq(t.cap.lines[BURST], "rate 100 (194 suppressed)");
	for (size_t k = 1; k < lines; k++) {
		char want[64];
		snprintf(want, sizeof want, "rate %lld (99 suppressed)", (long long)((int64_t)(k + 1) * interval / ms));
		cr_expect_str_eq(t.cap.lines[BURST + k], want, "line %zu", BURST + k);
	}
	const uint64_t calls = 100 + 60000, written = BURST + lines;
	sr_log_counters st = tl_stats(log);
	cr_expect_eq(st.suppressed, calls - written, "suppressed %llu", (unsigned long long)st.suppressed);
	limiter_sum s = limiters_of(cat);
	cr_assert_eq(s.found, 1);
	cr_expect_eq(s.sum.kind, SR_LOG__LIMIT_RATE);
	cr_expect_eq(s.sum.calls, calls);
	cr_expect_eq(s.sum.emitted, written);
	cr_expect_eq(s.sum.pending, 0);
	/* Idle for 10 s: the bucket is full again, and no more. */
	sim_ns = 70000 * ms;
	for (int i = 0; i < 10; i++)
		rate_call(cat, "again");
	cr_assert_eq(tl_flushed_count(log, &t.cap), written + BURST);
	cr_expect_str_eq(t.cap.lines[written], "again 70000");
	cr_expect_eq(tl_stats(log).suppressed, calls - written + 10 - BURST);
	sr_log_limit_set_clock(NULL, NULL);
	tl_close(&log, &t.cap);
}

Test(log_limit, set_clock_starts_every_bucket_afresh)
{
	sim_ns = 1000;
	sr_log_limit_set_clock(sim_clock, &sim_ns);
	tl_setup t;
	sr_log *log = open_message_logger(&t);
	sr_category *cat = sr_log_category(log, "limit.reset");
	for (int round = 0; round < 3; round++) {
		for (int i = 0; i < 10; i++)
			SR_INFO_LIMIT(cat, 1, 2, "r%d %d", round, i);
		/* The same clock again: a full bucket, the time unchanged. */
		sr_log_limit_set_clock(sim_clock, &sim_ns);
	}
	cr_assert_eq(tl_flushed_count(log, &t.cap), 6);
	cr_expect_str_eq(t.cap.lines[2], "r1 0 (8 suppressed)");
	cr_expect_eq(tl_stats(log).suppressed, 24);
	sr_log_limit_set_clock(NULL, NULL);
	tl_close(&log, &t.cap);
}

Test(log_limit, limit_on_the_real_clock_writes_its_burst)
{
	tl_setup t;
	sr_log *log = open_message_logger(&t);
	sr_category *cat = sr_log_category(log, "limit.real");
	/* 1 a second, a burst of 3: 1,000 calls in far less than a second write 3 or 4 lines. */
	for (int i = 0; i < 1000; i++)
		SR_INFO_LIMIT(cat, 1, 3, "real %d", i);
	size_t n = tl_flushed_count(log, &t.cap);
	cr_expect(n == 3 || n == 4, "%zu lines", n);
	cr_expect_eq(tl_stats(log).suppressed, 1000 - n);
	tl_close(&log, &t.cap);
}

/* ---------------------------------------------------------------------------------------- */
/* Arguments, levels, run-time parameters                                                   */

Test(log_limit, a_suppressed_call_evaluates_no_argument)
{
	sim_ns = 0;
	sr_log_limit_set_clock(sim_clock, &sim_ns);
	tl_setup t;
	sr_log *log = open_message_logger(&t);
	sr_category *cat = sr_log_category(log, "limit.args");
	evaluated = 0;
	for (int i = 0; i < 1000; i++)
		SR_INFO_ONCE(cat, "once %d", bump());
	cr_expect_eq(evaluated, 1, "ONCE evaluated its argument %d times", evaluated);
	evaluated = 0;
	for (int i = 0; i < 95; i++)
		SR_INFO_EVERY_N(cat, 10, "every %d", bump());
	cr_expect_eq(evaluated, 10, "EVERY_N evaluated its argument %d times", evaluated);
	evaluated = 0;
	for (int i = 0; i < 50; i++)
		SR_INFO_LIMIT(cat, 5, 3, "limit %d", bump());
	cr_expect_eq(evaluated, 3, "LIMIT evaluated its argument %d times", evaluated);
	cr_expect_eq(tl_flushed_count(log, &t.cap), 1 + 10 + 3);
	sr_log_limit_set_clock(NULL, NULL);
	tl_close(&log, &t.cap);
}

Test(log_limit, a_disabled_level_evaluates_and_counts_nothing)
{
	sim_ns = 0;
	sr_log_limit_set_clock(sim_clock, &sim_ns);
	tl_setup t;
	sr_log *log = open_message_logger(&t);   /* level info */
	sr_category *cat = sr_log_category(log, "limit.off");
	evaluated = 0;
	int64_t parameters = 0;
	for (int i = 0; i < 100; i++) {
		SR_DEBUG_ONCE(cat, "once %d", bump());
		SR_DEBUG_EVERY_N(cat, (parameters++, 3), "every %d", bump());
		SR_TRACE_LIMIT(cat, (parameters++, 1), 1, "limit %d", bump());
	}
	cr_expect_eq(evaluated, 0);
	cr_expect_eq(parameters, 0, "a parameter was evaluated %lld times", (long long)parameters);
	cr_expect_eq(tl_flushed_count(log, &t.cap), 0);
	cr_expect_eq(tl_stats(log).suppressed, 0);
	cr_expect_eq(limiters_of(cat).found, 0, "a limiter saw a disabled call");
	/* Enabled now: the first enabled call is the site's first. */
	sr_error err;
	cr_assert_eq(sr_log_set_level(log, "limit.off", SR_LOG_DEBUG, &err), SR_OK);
	for (int i = 0; i < 4; i++) {
		SR_DEBUG_ONCE(cat, "once %d", i);
		SR_DEBUG_EVERY_N(cat, 3, "every %d", i);
	}
	cr_assert_eq(tl_flushed_count(log, &t.cap), 3);
	cr_expect_str_eq(t.cap.lines[0], "once 0");
	cr_expect_str_eq(t.cap.lines[1], "every 0");
	cr_expect_str_eq(t.cap.lines[2], "every 3 (2 suppressed)");
	cr_expect_eq(tl_stats(log).suppressed, 3 + 2);
	sr_log_limit_set_clock(NULL, NULL);
	tl_close(&log, &t.cap);
}

/* Run-time parameters below 1: a limit that limits nothing, and no division by zero. */
static volatile int64_t runtime_zero = 0, runtime_negative = -5;

Test(log_limit, run_time_parameters_below_one_write_every_call)
{
	sim_ns = 0;
	sr_log_limit_set_clock(sim_clock, &sim_ns);
	tl_setup t;
	sr_log *log = open_message_logger(&t);
	sr_category *cat = sr_log_category(log, "limit.bad");
	for (int i = 0; i < 10; i++) {
		SR_INFO_EVERY_N(cat, runtime_zero, "n zero %d", i);
		SR_INFO_EVERY_N(cat, runtime_negative, "n negative %d", i);
		SR_INFO_LIMIT(cat, runtime_zero, 5, "rate zero %d", i);
		SR_INFO_LIMIT(cat, 5, runtime_negative, "burst negative %d", i);
	}
	cr_assert_eq(tl_flushed_count(log, &t.cap), 40);
	cr_expect_eq(tl_capture_grep(&t.cap, "suppressed"), 0);
	cr_expect_eq(tl_stats(log).suppressed, 0);
	sr_log_limit_set_clock(NULL, NULL);
	tl_close(&log, &t.cap);
}

/* ---------------------------------------------------------------------------------------- */
/* Threads                                                                                  */

enum { THREADS = 8, CALLS_PER_THREAD = 20000, EVERY = 7, BURST = 100 };

typedef struct hammer_arg {
	sr_category *cat;
	pthread_barrier_t *start;
} hammer_arg;

/* One site of each kind, shared by every thread. */
static void *
hammer(void *p)
{
	hammer_arg *a = p;
	pthread_barrier_wait(a->start);
	for (int i = 0; i < CALLS_PER_THREAD; i++) {
		SR_INFO_ONCE(a->cat, "hammer once %d", i);
		SR_INFO_EVERY_N(a->cat, EVERY, "hammer every %d", i);
		SR_INFO_LIMIT(a->cat, 1, BURST, "hammer limit %d", i);
	}
	return NULL;
}

Test(log_limit, eight_threads_on_one_site_lose_no_count, .timeout = 60)
{
	sim_ns = 5;   /* frozen: exactly the burst is written */
	sr_log_limit_set_clock(sim_clock, &sim_ns);
	tl_setup t;
	sr_log_config *c = tl_setup_begin(&t);
	c->layout = SR_LOG_LAYOUT_MESSAGE;
	c->thread_ring_slots = 65536;
	sr_log *log = tl_open(c);
	sr_category *cat = sr_log_category(log, "limit.threads");
	pthread_barrier_t start;
	pthread_barrier_init(&start, NULL, THREADS);
	pthread_t th[THREADS];
	hammer_arg arg = { cat, &start };
	for (int i = 0; i < THREADS; i++)
		cr_assert_eq(pthread_create(&th[i], NULL, hammer, &arg), 0);
	for (int i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&start);
	const uint64_t calls = (uint64_t)THREADS * CALLS_PER_THREAD;
	const uint64_t every_lines = (calls + EVERY - 1) / EVERY;
	size_t lines = tl_flushed_count(log, &t.cap);
	cr_expect_eq(tl_capture_grep(&t.cap, "hammer once"), 1, "ONCE wrote %zu lines",
	    tl_capture_grep(&t.cap, "hammer once"));
	cr_expect_eq(tl_capture_grep(&t.cap, "hammer every"), every_lines);
	cr_expect_eq(tl_capture_grep(&t.cap, "(6 suppressed)"), every_lines - 1);
	cr_expect_eq(tl_capture_grep(&t.cap, "hammer limit"), BURST);
	cr_expect_eq(lines, 1 + every_lines + BURST);
	limiter_sum s = limiters_of(cat);
	cr_assert_eq(s.found, 3);
	cr_expect_eq(s.sum.calls, 3 * calls, "calls %llu", (unsigned long long)s.sum.calls);
	cr_expect_eq(s.sum.emitted + s.sum.suppressed, s.sum.calls);
	cr_expect_eq(s.sum.emitted, 1 + every_lines + BURST);
	sr_log_counters st = tl_stats(log);
	cr_expect_eq(st.suppressed, 3 * calls - (1 + every_lines + BURST), "suppressed %llu",
	    (unsigned long long)st.suppressed);
	cr_expect_eq(st.accepted, lines);
	cr_expect_eq(st.dropped, 0);
	sr_log_limit_set_clock(NULL, NULL);
	tl_close(&log, &t.cap);
}

/* ---------------------------------------------------------------------------------------- */
/* Layouts, loggers                                                                         */

Test(log_limit, the_count_is_part_of_the_json_message)
{
	tl_setup t;
	sr_log_config *c = tl_setup_begin(&t);
	c->layout = SR_LOG_LAYOUT_JSON;
	sr_log *log = tl_open(c);
	sr_category *cat = sr_log_category(log, "limit.json");
	for (int i = 0; i < 4; i++)
		SR_WARN_EVERY_N(cat, 3, "GET %s -> %d", "/a", 500 + i);
	cr_assert_eq(tl_flushed_count(log, &t.cap), 2);
	cr_expect(strstr(t.cap.lines[0], "\"msg\":\"GET /a -> 500\",") != NULL, "%s", t.cap.lines[0]);
	cr_expect(strstr(t.cap.lines[1], "\"msg\":\"GET /a -> 503 (2 suppressed)\",") != NULL, "%s",
	    t.cap.lines[1]);
	cr_expect(strstr(t.cap.lines[1], "\"level\":\"warn\"") != NULL, "%s", t.cap.lines[1]);
	tl_close(&log, &t.cap);
}

Test(log_limit, the_text_layout_keeps_the_sites_location)
{
	tl_setup t;
	sr_log_config *c = tl_setup_begin(&t);
	sr_log *log = tl_open(c);
	sr_category *cat = sr_log_category(log, "limit.text");
	int line = 0;
	for (int i = 0; i < 3; i++) {
		line = __LINE__ + 1;
		SR_ERROR_EVERY_N(cat, 2, "text %d", i);
	}
	cr_assert_eq(tl_flushed_count(log, &t.cap), 2);
	char want[64];
	snprintf(want, sizeof want, "- text 2 (1 suppressed) (test_log_limit.c:%d)", line);
	cr_expect(strstr(t.cap.lines[1], want) != NULL, "%s (expected %s)", t.cap.lines[1], want);
	cr_expect(strstr(t.cap.lines[1], "ERROR") != NULL, "%s", t.cap.lines[1]);
	tl_close(&log, &t.cap);
}

/* A site that writes through two loggers in turn: each counts what it reported, from its first line on. */
static void
every_third(sr_category *cat, int i)
{
	SR_INFO_EVERY_N(cat, 3, "moved %d", i);
}

Test(log_limit, a_site_counts_in_the_logger_of_its_last_line)
{
	tl_setup a, b;
	sr_log *la = open_message_logger(&a);
	sr_category *ca = sr_log_category(la, "limit.move");
	for (int i = 0; i < 5; i++)     /* tickets 0..4: lines 0 and 3; 1 pending */
		every_third(ca, i);
	cr_expect_eq(tl_flushed_count(la, &a.cap), 2);
	cr_expect_eq(tl_stats(la).suppressed, 3);
	tl_close(&la, &a.cap);
	/* Another logger (maybe at the same address): tickets 5..9, a line at 6 reporting 2. */
	sr_log *lb = open_message_logger(&b);
	sr_category *cb = sr_log_category(lb, "limit.move");
	for (int i = 5; i < 10; i++)
		every_third(cb, i);
	cr_assert_eq(tl_flushed_count(lb, &b.cap), 2);
	cr_expect_str_eq(b.cap.lines[0], "moved 6 (2 suppressed)");
	cr_expect_str_eq(b.cap.lines[1], "moved 9 (2 suppressed)");
	cr_expect_eq(tl_stats(lb).suppressed, 4, "suppressed %llu", (unsigned long long)tl_stats(lb).suppressed);
	tl_close(&lb, &b.cap);
}

/* A site of its own per mode (a site's tickets are the process's). */
static void
every_third_in_mode(size_t m, sr_category *cat, int i)
{
	switch (m) {
	case 0: SR_INFO_EVERY_N(cat, 3, "moved %d", i); break;
	case 1: SR_INFO_EVERY_N(cat, 3, "moved %d", i); break;
	case 2: SR_INFO_EVERY_N(cat, 3, "moved %d", i); break;
	default: SR_INFO_EVERY_N(cat, 3, "moved %d", i); break;
	}
}

/* Every mode renders the count the same way. */
Test(log_limit, every_mode_writes_the_count)
{
	static const struct { sr_log_mode mode; sr_log_producer producer; } modes[] = {
		{ SR_LOG_MODE_RING, SR_LOG_PRODUCER_PER_THREAD }, { SR_LOG_MODE_RING, SR_LOG_PRODUCER_SHARED },
		{ SR_LOG_MODE_QUEUE, SR_LOG_PRODUCER_SHARED }, { SR_LOG_MODE_SYNC, SR_LOG_PRODUCER_SHARED },
	};
	for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
		tl_setup t;
		sr_log_config *c = tl_setup_begin(&t);
		c->layout = SR_LOG_LAYOUT_MESSAGE;
		c->mode = modes[m].mode;
		c->producer = modes[m].producer;
		sr_log *log = tl_open(c);
		sr_category *cat = sr_log_category(log, "limit.modes");
		for (int i = 0; i < 7; i++)
			every_third_in_mode(m, cat, i);
		cr_assert_eq(tl_flushed_count(log, &t.cap), 3, "mode %zu", m);
		cr_expect_str_eq(t.cap.lines[2], "moved 6 (2 suppressed)", "mode %zu", m);
		cr_expect_eq(tl_stats(log).suppressed, 4, "mode %zu", m);
		tl_close(&log, &t.cap);
	}
}

/* One EVERY_N site alone in a tight loop on every thread: its ticket is all the threads share. */
enum { TIGHT_CALLS = 2000000, TIGHT_EVERY = 1000 };

static void *
hammer_tight(void *p)
{
	hammer_arg *a = p;
	pthread_barrier_wait(a->start);
	for (int i = 0; i < TIGHT_CALLS; i++)
		SR_INFO_EVERY_N(a->cat, TIGHT_EVERY, "tight %d", i);
	return NULL;
}

Test(log_limit, eight_threads_in_a_tight_loop_take_every_ticket, .timeout = 60)
{
	tl_setup t;
	sr_log *log = open_message_logger(&t);
	sr_category *cat = sr_log_category(log, "limit.tight");
	pthread_barrier_t start;
	pthread_barrier_init(&start, NULL, THREADS);
	pthread_t th[THREADS];
	hammer_arg arg = { cat, &start };
	for (int i = 0; i < THREADS; i++)
		cr_assert_eq(pthread_create(&th[i], NULL, hammer_tight, &arg), 0);
	for (int i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&start);
	const uint64_t calls = (uint64_t)THREADS * TIGHT_CALLS, lines = (calls + TIGHT_EVERY - 1) / TIGHT_EVERY;
	cr_expect_eq(tl_flushed_count(log, &t.cap), lines);
	limiter_sum s = limiters_of(cat);
	cr_assert_eq(s.found, 1);
	cr_expect_eq(s.sum.calls, calls, "calls %llu of %llu", (unsigned long long)s.sum.calls,
	    (unsigned long long)calls);
	cr_expect_eq(tl_stats(log).suppressed, calls - lines);
	tl_close(&log, &t.cap);
}

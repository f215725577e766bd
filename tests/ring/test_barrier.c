/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_barrier.c: sequence barriers (sr_barrier.h): validation, batching
 * (wait_for returns the highest available sequence), dependents, alert and
 * clear-alert, and cross-thread waits under every wait strategy.
 */
#include <criterion/criterion.h>

#include "test_support.h"

#include <sys/resource.h>

#include "scenarios.h"

static sr_sequencer *
make(int64_t size, enum sr_producer_mode mode, const char *wait)
{
	sr_sequencer_config c;
	sr_sequencer_config_default(&c, size, mode);
	sr_error err;
	cr_assert_eq(sr_wait_config_parse(wait, &c.wait, &err), SR_OK, "%s: %s", wait, err.message);
	sr_sequencer *s = sr_sequencer_create(&c, &err);
	cr_assert_not_null(s, "%s", err.message);
	return s;
}

static void
publish_n(sr_sequencer *s, int n)
{
	for (int i = 0; i < n; i++) {
		int64_t q;
		cr_assert_eq(sr_sequencer_claim(s, &q), SR_OK);
		sr_sequencer_publish(s, q);
	}
}

static void
expect_init_refused(sr_barrier *b, sr_sequencer *s, const sr_sequence *const *deps, int n,
    const char *needle)
{
	sr_error err;
	sr_error_clear(&err);
	cr_assert_eq(sr_barrier_init(b, s, deps, n, &err), SR_EINVAL, "expected SR_EINVAL for \"%s\"", needle);
	cr_assert_eq(err.code, SR_EINVAL);
	cr_assert(strstr(err.message, needle) != NULL, "message \"%s\" lacks \"%s\"", err.message, needle);
}

Test(barrier, init_refuses_invalid_arguments)
{
	sr_sequencer *s = make(8, SR_PRODUCER_SINGLE, "block");
	sr_barrier b;
	sr_sequence d[SR_BARRIER_MAX_DEPENDENTS + 1];
	const sr_sequence *deps[SR_BARRIER_MAX_DEPENDENTS + 1];
	for (int i = 0; i <= SR_BARRIER_MAX_DEPENDENTS; i++) {
		sr_sequence_init(&d[i], -1);
		deps[i] = &d[i];
	}
	expect_init_refused(NULL, s, NULL, 0, "barrier or sequencer is NULL");
	expect_init_refused(&b, NULL, NULL, 0, "barrier or sequencer is NULL");
	expect_init_refused(&b, s, deps, -1, "dependent_count -1 is out of range: expected 0 to 16");
	expect_init_refused(&b, s, deps, SR_BARRIER_MAX_DEPENDENTS + 1, "dependent_count 17 is out of range");
	expect_init_refused(&b, s, NULL, 2, "dependents is NULL but dependent_count is 2");
	deps[1] = NULL;
	expect_init_refused(&b, s, deps, 3, "dependent sequence 1 is NULL");
	cr_assert_eq(sr_barrier_init(&b, s, deps, 1, NULL), SR_OK, "the NULL entry is past the count");
	deps[1] = &d[1];
	cr_assert_eq(sr_barrier_init(&b, s, deps, SR_BARRIER_MAX_DEPENDENTS, NULL), SR_OK);
	cr_assert_eq(b.dependent_count, SR_BARRIER_MAX_DEPENDENTS);
	cr_assert_eq(sr_barrier_init(&b, s, NULL, 0, NULL), SR_OK, "no dependents: NULL is fine");
	cr_assert_not(sr_barrier_is_alerted(&b));
	sr_sequencer_destroy(s);
	SC_ASSERT_NO_LEAKS();
}

Test(barrier, wait_for_returns_the_highest_available_for_batching)
{
	enum sr_producer_mode modes[] = { SR_PRODUCER_SINGLE, SR_PRODUCER_MULTI };
	for (int m = 0; m < 2; m++) {
		sr_sequencer *s = make(16, modes[m], "busyspin");
		sr_barrier b;
		cr_assert_eq(sr_barrier_init(&b, s, NULL, 0, NULL), SR_OK);
		publish_n(s, 5);
		int64_t avail = -9;
		cr_assert_eq(sr_barrier_wait_for(&b, 0, &avail), SR_OK);
		cr_assert_eq(avail, 4, "asked for 0, all of 0..4 are readable (got %lld)", (long long)avail);
		cr_assert_eq(sr_barrier_wait_for(&b, 3, &avail), SR_OK);
		cr_assert_eq(avail, 4);
		cr_assert_eq(sr_barrier_wait_for(&b, 4, &avail), SR_OK);
		cr_assert_eq(avail, 4);
		cr_assert_eq(sr_barrier_cursor(&b), 4);
		cr_assert_eq(sr_barrier_cursor(&b), sr_sequencer_cursor(s));
		sr_sequencer_destroy(s);
	}
}

Test(barrier, dependents_bound_what_is_available)
{
	sr_sequencer *s = make(16, SR_PRODUCER_SINGLE, "block");
	sr_sequence d1, d2;
	sr_sequence_init(&d1, 5);
	sr_sequence_init(&d2, 2);
	const sr_sequence *deps[] = { &d1, &d2 };
	sr_barrier b;
	cr_assert_eq(sr_barrier_init(&b, s, deps, 2, NULL), SR_OK);
	publish_n(s, 10);
	int64_t avail;
	cr_assert_eq(sr_barrier_wait_for(&b, 0, &avail), SR_OK);
	cr_assert_eq(avail, 2, "the slowest dependent is at 2, got %lld", (long long)avail);
	cr_assert_eq(sr_barrier_wait_for(&b, 2, &avail), SR_OK);
	cr_assert_eq(avail, 2);
	sr_sequence_set(&d2, 7);
	cr_assert_eq(sr_barrier_wait_for(&b, 3, &avail), SR_OK);
	cr_assert_eq(avail, 5, "now d1 (5) is the slowest");
	sr_sequencer_destroy(s);
}

Test(barrier, alert_and_clear_alert)
{
	sr_sequencer *s = make(8, SR_PRODUCER_SINGLE, "liteblock");
	sr_barrier b;
	cr_assert_eq(sr_barrier_init(&b, s, NULL, 0, NULL), SR_OK);
	publish_n(s, 3);
	sr_barrier_alert(&b);
	cr_assert(sr_barrier_is_alerted(&b));
	int64_t avail = -9;
	cr_assert_eq(sr_barrier_wait_for(&b, 0, &avail), SR_EALERTED,
	    "an alerted barrier refuses even available sequences");
	cr_assert_eq(avail, -9, "available untouched on SR_EALERTED");
	cr_assert_eq(sr_barrier_wait_for(&b, 100, &avail), SR_EALERTED);
	sr_barrier_alert(&b); /* alerting twice is harmless */
	sr_barrier_clear_alert(&b);
	cr_assert_not(sr_barrier_is_alerted(&b));
	cr_assert_eq(sr_barrier_wait_for(&b, 0, &avail), SR_OK);
	cr_assert_eq(avail, 2);
	sr_sequencer_destroy(s);
}

Test(barrier, timeout_strategies_return_etimedout_on_an_idle_ring)
{
	const char *specs[] = { "timeout:timeout=5ms", "phased:fallback=timeout,timeout=5ms" };
	for (int i = 0; i < 2; i++) {
		sr_sequencer *s = make(8, SR_PRODUCER_SINGLE, specs[i]);
		cr_assert_eq(s->wait.config.timeout_ns, 5 * SC_MS, "%s parsed to %lld ns", specs[i],
		    (long long)s->wait.config.timeout_ns);
		sr_barrier b;
		cr_assert_eq(sr_barrier_init(&b, s, NULL, 0, NULL), SR_OK);
		int64_t avail = -9;
		int64_t t0 = sc_now();
		int rc = sr_barrier_wait_for(&b, 0, &avail);
		int64_t waited = sc_now() - t0;
		cr_assert_eq(rc, SR_ETIMEDOUT, "%s: %d", specs[i], rc);
		cr_assert_geq(waited, 4 * SC_MS, "%s: timed out after %lld us, before its 5 ms", specs[i],
		    (long long)(waited / 1000));
		cr_assert_lt(waited, 5 * SC_S, "%s: a 5 ms timeout took %lld ms", specs[i],
		    (long long)(waited / SC_MS));
		/* Once there is something, it returns it. */
		publish_n(s, 1);
		cr_assert_eq(sr_barrier_wait_for(&b, 0, &avail), SR_OK);
		cr_assert_eq(avail, 0);
		sr_sequencer_destroy(s);
	}
}

/* ---- cross-thread waits under every strategy ----------------------------- */

typedef struct waiter {
	sr_barrier *b;
	int64_t want;
	int64_t avail;
} waiter;

/* Waits until `want` is available (through the timeouts of the timeout kinds). */
static int
wait_for_want(void *arg)
{
	waiter *w = arg;
	int rc;
	do {
		rc = sr_barrier_wait_for(w->b, w->want, &w->avail);
	} while (rc == SR_ETIMEDOUT || (rc == SR_OK && w->avail < w->want));
	return rc;
}

Test(barrier, a_waiter_returns_when_its_sequence_is_published, .timeout = 60)
{
	enum sr_producer_mode modes[] = { SR_PRODUCER_SINGLE, SR_PRODUCER_MULTI };
	for (int k = 0; k < SC_STRATEGY_COUNT; k++) {
		for (int m = 0; m < 2; m++) {
			const char *spec = sc_strategies[k];
			sr_sequencer *s = make(8, modes[m], spec);
			sr_barrier b;
			cr_assert_eq(sr_barrier_init(&b, s, NULL, 0, NULL), SR_OK);
			publish_n(s, 2);
			waiter w = { .b = &b, .want = 3 };
			sc_background wait;
			sc_background_start(&wait, wait_for_want, &w);
			cr_assert_not(sc_background_returned_within(&wait, 20 * SC_MS), "%s: returned with %lld "
			    "before 3 was published", spec, (long long)w.avail);
			publish_n(s, 1); /* 2: still not 3 */
			cr_assert_not(sc_background_returned_within(&wait, 10 * SC_MS), "%s: returned for 2", spec);
			publish_n(s, 3); /* 3..5 */
			cr_assert(sc_background_returned_within(&wait, 5 * SC_S), "%s (%s): waiter not woken by the "
			    "publish", spec, m ? "MP" : "SP");
			cr_assert_eq(sc_background_join(&wait), SR_OK);
			cr_assert_geq(w.avail, 3, "%s: available %lld", spec, (long long)w.avail);
			cr_assert_leq(w.avail, 5);
			sr_sequencer_destroy(s);
		}
	}
}

Test(barrier, a_waiter_follows_its_dependents, .timeout = 60)
{
	for (int k = 0; k < SC_STRATEGY_COUNT; k++) {
		const char *spec = sc_strategies[k];
		sr_sequencer *s = make(8, SR_PRODUCER_SINGLE, spec);
		sr_sequence up;
		sr_sequence_init(&up, -1);
		const sr_sequence *deps[] = { &up };
		sr_barrier b;
		cr_assert_eq(sr_barrier_init(&b, s, deps, 1, NULL), SR_OK);
		publish_n(s, 4); /* published, but the upstream consumer has handled nothing */
		waiter w = { .b = &b, .want = 1 };
		sc_background wait;
		sc_background_start(&wait, wait_for_want, &w);
		cr_assert_not(sc_background_returned_within(&wait, 20 * SC_MS), "%s: returned before its dependent "
		    "moved", spec);
		sr_sequence_set(&up, 0);
		cr_assert_not(sc_background_returned_within(&wait, 10 * SC_MS), "%s: returned with the dependent "
		    "at 0", spec);
		sr_sequence_set(&up, 2);
		cr_assert(sc_background_returned_within(&wait, 5 * SC_S), "%s: not released by its dependent", spec);
		cr_assert_eq(sc_background_join(&wait), SR_OK);
		cr_assert_eq(w.avail, 2, "%s: bounded by the dependent, got %lld", spec, (long long)w.avail);
		sr_sequencer_destroy(s);
	}
}

/* In every strategy. */
Test(barrier, alert_wakes_a_waiter_in_the_dependents_phase, .timeout = 60)
{
	sc_result r = sc_alert_wakes_every_strategy(true);
	cr_assert(r.ok, "%s", r.message);
}

/* Waits as wait_for_want, and measures its own CPU time and wall time. */
typedef struct timed_waiter {
	waiter w;
	int64_t cpu_ns, wall_ns;
	int rc;
} timed_waiter;

static int64_t
thread_cpu_ns(void)
{
	struct rusage ru;
	getrusage(RUSAGE_THREAD, &ru);
	return ((int64_t)ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * SC_S +
	    ((int64_t)ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000;
}

static int
timed_wait(void *arg)
{
	timed_waiter *t = arg;
	int64_t cpu0 = thread_cpu_ns(), wall0 = sc_now();
	t->rc = wait_for_want(&t->w);
	t->cpu_ns = thread_cpu_ns() - cpu0;
	t->wall_ns = sc_now() - wall0;
	return t->rc;
}

/*
 * Multi-producer: sequence 0 is claimed and left unpublished for 300 ms while
 * 1 and 2 are published.  The consumer stuck at 0 must wait the way its
 * strategy waits for an event: the blocking kinds sleep (CPU time a small
 * fraction of the wall time), sleep naps; before, each one re-read the
 * cursor in a loop, a full core.
 */
Test(barrier, a_consumer_behind_an_unpublished_claim_sleeps_in_blocking_strategies, .timeout = 60)
{
	const struct { const char *spec; int64_t max_cpu_percent; } cases[] = {
		{ "block", 10 }, { "liteblock", 10 }, { "timeout", 10 },
		{ "phased:spin=10us,yield=100us,fallback=block", 10 }, { "sleep", 40 },
	};
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		sr_sequencer *s = make(8, SR_PRODUCER_MULTI, cases[k].spec);
		sr_barrier b;
		cr_assert_eq(sr_barrier_init(&b, s, NULL, 0, NULL), SR_OK);
		int64_t stalled, q;
		cr_assert_eq(sr_sequencer_claim(s, &stalled), SR_OK);
		for (int i = 0; i < 2; i++) {
			cr_assert_eq(sr_sequencer_claim(s, &q), SR_OK);
			sr_sequencer_publish(s, q);
		}
		timed_waiter t = { .w = { .b = &b, .want = 0 } };
		sc_background wait;
		sc_background_start(&wait, timed_wait, &t);
		cr_assert_not(sc_background_returned_within(&wait, 300 * SC_MS),
		    "%s: returned %lld while 0 is unpublished", cases[k].spec, (long long)t.w.avail);
		sr_sequencer_publish(s, stalled);
		cr_assert(sc_background_returned_within(&wait, 5 * SC_S), "%s: not woken", cases[k].spec);
		cr_assert_eq(sc_background_join(&wait), SR_OK);
		cr_assert_eq(t.w.avail, 2, "%s: the batch 0..2, got %lld", cases[k].spec,
		    (long long)t.w.avail);
		cr_assert_geq(t.wall_ns, 200 * SC_MS, "%s: waited %lld ns", cases[k].spec, (long long)t.wall_ns);
		cr_assert_lt(t.cpu_ns * 100, t.wall_ns * cases[k].max_cpu_percent,
		    "%s: the stuck consumer used %.1f ms of CPU in %.1f ms", cases[k].spec,
		    (double)t.cpu_ns / 1e6, (double)t.wall_ns / 1e6);
		cr_log_info("%s: %.2f ms of CPU in %.1f ms", cases[k].spec, (double)t.cpu_ns / 1e6,
		    (double)t.wall_ns / 1e6);
		sr_sequencer_destroy(s);
	}
}

/* The same stall ends at once when the barrier is alerted (a halt). */
Test(barrier, alert_wakes_a_consumer_behind_an_unpublished_claim, .timeout = 60)
{
	for (int k = 0; k < SC_STRATEGY_COUNT; k++) {
		sr_sequencer *s = make(8, SR_PRODUCER_MULTI, sc_strategies[k]);
		sr_barrier b;
		cr_assert_eq(sr_barrier_init(&b, s, NULL, 0, NULL), SR_OK);
		int64_t stalled;
		cr_assert_eq(sr_sequencer_claim(s, &stalled), SR_OK);
		waiter w = { .b = &b, .want = 0 };
		sc_background wait;
		sc_background_start(&wait, wait_for_want, &w);
		cr_assert_not(sc_background_returned_within(&wait, 20 * SC_MS), "%s", sc_strategies[k]);
		sr_barrier_alert(&b);
		cr_assert(sc_background_returned_within(&wait, 5 * SC_S), "%s: alert did not wake it",
		    sc_strategies[k]);
		cr_assert_eq(sc_background_join(&wait), SR_EALERTED);
		sr_sequencer_destroy(s);
	}
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_wait.c: wait strategies (sr_wait.h) and the producer's side of a full
 * ring: parsing by name, validation, formatting; for each strategy, no lost
 * wake-ups, alert wakes a blocked waiter, timeouts reach the on_timeout hook;
 * claim with a deadline; 64 producers on a 16-slot ring with synchronized
 * enqueue on and off; a busy-spinner that shares its core yields it.
 */
#include <criterion/criterion.h>

#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>

#include "test_support.h"

#include "scenarios.h"

#define VALID_NAMES "busyspin, yield, sleep, block, liteblock, timeout, phased"

static sr_wait_config
parse_ok(const char *spec)
{
	sr_wait_config c;
	memset(&c, 0, sizeof c);
	sr_error err;
	sr_error_clear(&err);
	int rc = sr_wait_config_parse(spec, &c, &err);
	cr_assert_eq(rc, SR_OK, "\"%s\" refused: %s", spec, err.message);
	return c;
}

static void
parse_refused(const char *spec, const char *needle)
{
	sr_wait_config c;
	sr_wait_config_default(&c, SR_WAIT_YIELD);
	c.spin_tries = 4242;
	sr_error err;
	sr_error_clear(&err);
	int rc = sr_wait_config_parse(spec, &c, &err);
	cr_assert_eq(rc, SR_EINVAL, "\"%s\" gave %d, expected SR_EINVAL", spec ? spec : "(null)", rc);
	cr_assert_eq(err.code, SR_EINVAL);
	cr_assert(strstr(err.message, needle) != NULL, "\"%s\": message \"%s\" lacks \"%s\"",
	    spec ? spec : "(null)", err.message, needle);
	cr_assert_eq(c.kind, SR_WAIT_YIELD, "a refused spec changed the config");
	cr_assert_eq(c.spin_tries, 4242, "a refused spec changed the config");
}

static void
assert_same_config(const sr_wait_config *a, const sr_wait_config *b, const char *what)
{
	cr_assert_eq(a->kind, b->kind, "%s: kind %d vs %d", what, a->kind, b->kind);
	cr_assert_eq(a->spin_tries, b->spin_tries, "%s: spin_tries", what);
	cr_assert_eq(a->yield_tries, b->yield_tries, "%s: yield_tries", what);
	cr_assert_eq(a->sleep_ns, b->sleep_ns, "%s: sleep_ns %lld vs %lld", what, (long long)a->sleep_ns,
	    (long long)b->sleep_ns);
	cr_assert_eq(a->timeout_ns, b->timeout_ns, "%s: timeout_ns %lld vs %lld", what,
	    (long long)a->timeout_ns, (long long)b->timeout_ns);
	cr_assert_eq(a->spin_ns, b->spin_ns, "%s: spin_ns", what);
	cr_assert_eq(a->yield_ns, b->yield_ns, "%s: yield_ns", what);
	cr_assert_eq(a->fallback, b->fallback, "%s: fallback %d vs %d", what, a->fallback, b->fallback);
}

/* ---- defaults, names ---------------------------------------------------- */

Test(wait, defaults_are_the_documented_ones)
{
	sr_wait_config c;
	sr_wait_config_default(&c, SR_WAIT_SLEEP);
	cr_assert_eq(c.kind, SR_WAIT_SLEEP);
	cr_assert_eq(c.spin_tries, 100);
	cr_assert_eq(c.yield_tries, 100);
	cr_assert_eq(c.sleep_ns, 100);
	cr_assert_eq(c.timeout_ns, 10 * SC_MS);
	cr_assert_eq(c.spin_ns, 10 * 1000);
	cr_assert_eq(c.yield_ns, 100 * 1000);
	cr_assert_eq(c.fallback, SR_WAIT_LITE_BLOCK);
	for (int k = 0; k < SR_WAIT_KIND_COUNT; k++) {
		sr_wait_config_default(&c, (enum sr_wait_kind)k);
		cr_assert_eq(sr_wait_config_validate(&c, NULL), SR_OK, "defaults of %s",
		    sr_wait_kind_name((enum sr_wait_kind)k));
	}
}

Test(wait, kind_names)
{
	const char *names[] = { "busyspin", "yield", "sleep", "block", "liteblock", "timeout", "phased" };
	for (int k = 0; k < SR_WAIT_KIND_COUNT; k++)
		cr_assert_str_eq(sr_wait_kind_name((enum sr_wait_kind)k), names[k]);
	cr_assert_str_eq(sr_wait_kind_name(SR_WAIT_KIND_COUNT), "unknown");
	cr_assert_str_eq(sr_wait_kind_name((enum sr_wait_kind)-1), "unknown");
}

/* ---- parsing -------------------------------------------------------------- */

Test(wait, parses_every_name_case_insensitively)
{
	struct { const char *spec; enum sr_wait_kind kind; } cases[] = {
		{ "busyspin", SR_WAIT_BUSY_SPIN }, { "BUSYSPIN", SR_WAIT_BUSY_SPIN },
		{ "BusySpin", SR_WAIT_BUSY_SPIN }, { "yield", SR_WAIT_YIELD }, { "Yield", SR_WAIT_YIELD },
		{ "sleep", SR_WAIT_SLEEP }, { "SLEEP", SR_WAIT_SLEEP }, { "block", SR_WAIT_BLOCK },
		{ "Block", SR_WAIT_BLOCK }, { "liteblock", SR_WAIT_LITE_BLOCK },
		{ "LiteBlock", SR_WAIT_LITE_BLOCK }, { "LITEBLOCK", SR_WAIT_LITE_BLOCK },
		{ "timeout", SR_WAIT_TIMEOUT }, { "Timeout", SR_WAIT_TIMEOUT }, { "phased", SR_WAIT_PHASED },
		{ "PhAsEd", SR_WAIT_PHASED },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		sr_wait_config c = parse_ok(cases[i].spec);
		sr_wait_config d;
		sr_wait_config_default(&d, cases[i].kind);
		assert_same_config(&c, &d, cases[i].spec);
	}
}

Test(wait, parses_parameters_and_units)
{
	sr_wait_config c = parse_ok("yield:spin=5");
	cr_assert_eq(c.kind, SR_WAIT_YIELD);
	cr_assert_eq(c.spin_tries, 5);
	c = parse_ok("yield:spin=0");
	cr_assert_eq(c.spin_tries, 0);
	c = parse_ok("SLEEP:SPIN=1,Yield=2,sleep=3us");
	cr_assert_eq(c.kind, SR_WAIT_SLEEP);
	cr_assert_eq(c.spin_tries, 1);
	cr_assert_eq(c.yield_tries, 2);
	cr_assert_eq(c.sleep_ns, 3000);
	c = parse_ok("sleep:sleep=250");
	cr_assert_eq(c.sleep_ns, 250, "no unit means nanoseconds");
	c = parse_ok("sleep:sleep=7ns");
	cr_assert_eq(c.sleep_ns, 7);
	c = parse_ok("timeout:timeout=5ms");
	cr_assert_eq(c.kind, SR_WAIT_TIMEOUT);
	cr_assert_eq(c.timeout_ns, 5 * SC_MS);
	c = parse_ok("timeout:timeout=2S");
	cr_assert_eq(c.timeout_ns, 2 * SC_S);
	c = parse_ok("timeout:timeout=60s");
	cr_assert_eq(c.timeout_ns, 60 * SC_S, "the upper bound is accepted");
	c = parse_ok("timeout:timeout=1us");
	cr_assert_eq(c.timeout_ns, 1000, "the lower bound is accepted");
	c = parse_ok("phased:spin=1us,yield=2ms,fallback=BLOCK,timeout=3s,sleep=10ns");
	cr_assert_eq(c.kind, SR_WAIT_PHASED);
	cr_assert_eq(c.spin_ns, 1000);
	cr_assert_eq(c.yield_ns, 2 * SC_MS);
	cr_assert_eq(c.fallback, SR_WAIT_BLOCK);
	cr_assert_eq(c.timeout_ns, 3 * SC_S);
	cr_assert_eq(c.sleep_ns, 10);
	c = parse_ok("phased:fallback=timeout");
	cr_assert_eq(c.fallback, SR_WAIT_TIMEOUT);
	c = parse_ok("phased:fallback=sleep,spin=0,yield=0");
	cr_assert_eq(c.fallback, SR_WAIT_SLEEP);
	cr_assert_eq(c.spin_ns, 0);
	cr_assert_eq(c.yield_ns, 0);
	c = parse_ok("phased:fallback=liteblock");
	cr_assert_eq(c.fallback, SR_WAIT_LITE_BLOCK);
}

Test(wait, unknown_names_list_the_valid_ones)
{
	parse_refused("spinny", "unknown wait strategy 'spinny'");
	parse_refused("spinny", "expected one of " VALID_NAMES);
	parse_refused("", "unknown wait strategy ''");
	parse_refused("bloc", "unknown wait strategy 'bloc'");
	parse_refused("blockk", "expected one of " VALID_NAMES);
	parse_refused("busy-spin", "unknown wait strategy 'busy-spin'");
	parse_refused("lite block", "unknown wait strategy 'lite block'");
	parse_refused("Foo:timeout=1ms", "unknown wait strategy 'Foo'");
	parse_refused(NULL, "expected one of " VALID_NAMES);
	sr_error err;
	cr_assert_eq(sr_wait_config_parse("block", NULL, &err), SR_EINVAL, "a NULL config");
	/* A very long name is quoted in part, not overflowed. */
	char longname[400];
	memset(longname, 'x', sizeof longname - 1);
	longname[sizeof longname - 1] = '\0';
	parse_refused(longname, "unknown wait strategy 'xxxx");
	cr_assert_eq(sr_wait_config_parse("nope", &(sr_wait_config){ 0 }, NULL), SR_EINVAL,
	    "no error struct: still refused");
}

Test(wait, bad_parameters_name_the_valid_keys_or_range)
{
	/* Keys that the strategy does not have: the message lists its keys. */
	parse_refused("block:spin=3", "wait strategy 'block' has no parameter 'spin': expected no parameters");
	parse_refused("busyspin:timeout=1ms", "has no parameter 'timeout': expected no parameters");
	parse_refused("liteblock:x=1", "has no parameter 'x'");
	parse_refused("yield:sleep=1", "wait strategy 'yield' has no parameter 'sleep': expected spin=N");
	parse_refused("sleep:timeout=1ms", "expected spin=N, yield=N, sleep=DUR");
	parse_refused("timeout:spin=1", "expected timeout=DUR");
	parse_refused("phased:spin_tries=4",
	    "expected spin=DUR, yield=DUR, fallback=NAME, timeout=DUR, sleep=DUR");
	/* Malformed items. */
	parse_refused("sleep:spin", "parameter 'spin' has no value: expected key=value");
	parse_refused("sleep:spin=1,,yield=2", "parameter '' has no value");
	/* Bad values. */
	parse_refused("yield:spin=-1", "parameter 'spin=-1' has a bad value: expected a non-negative integer");
	parse_refused("yield:spin=abc", "has a bad value");
	parse_refused("yield:spin=12x", "has a bad value");
	parse_refused("yield:spin=", "has a bad value");
	parse_refused("timeout:timeout=10parsecs", "durations take ns, us, ms or s");
	parse_refused("timeout:timeout=-5ms", "has a bad value");
	parse_refused("timeout:timeout=99999999999999999999s", "has a bad value");
	parse_refused("timeout:timeout=9223372036854775807s", "has a bad value");
	parse_refused("phased:fallback=nope", "expected block, liteblock, timeout or sleep");
	/* Values out of range: the message gives the range. */
	parse_refused("timeout:timeout=0", "wait timeout 0 ns is out of range: expected 1 us to 60 s");
	parse_refused("timeout:timeout=999ns", "wait timeout 999 ns is out of range");
	parse_refused("timeout:timeout=61s", "wait timeout 61000000000 ns is out of range: expected 1 us to 60 s");
	parse_refused("sleep:sleep=0", "wait sleep 0 ns is out of range: expected 1 ns to 60 s");
	parse_refused("sleep:sleep=2000s", "expected 1 ns to 60 s");
	parse_refused("phased:spin=61s", "phased spin 61000000000 ns is out of range: expected 0 to 60 s");
	parse_refused("phased:yield=100s", "phased yield 100000000000 ns is out of range");
	parse_refused("yield:spin=1000001", "counts up to 1000000");
	parse_refused("sleep:yield=2000000", "counts up to 1000000");
	parse_refused("sleep:spin=99999999999", "counts up to 1000000");
	parse_refused("timeout:timeout=99999999999999999999s", "durations take ns, us, ms or s, up to 60 s");
	parse_refused("phased:fallback=busyspin",
	    "phased fallback 'busyspin' is invalid: expected block, liteblock, timeout or sleep");
	parse_refused("phased:fallback=phased", "phased fallback 'phased' is invalid");
	parse_refused("phased:fallback=yield", "expected block, liteblock, timeout or sleep");
}

Test(wait, validate_names_each_bad_field)
{
	sr_wait_config c;
	sr_error err;

#define REFUSED(kind_, field, value, needle) do { \
		sr_wait_config_default(&c, kind_); \
		c.field = value; \
		sr_error_clear(&err); \
		cr_assert_eq(sr_wait_config_validate(&c, &err), SR_EINVAL, #field " = " #value); \
		cr_assert(strstr(err.message, needle) != NULL, "%s lacks \"%s\"", err.message, needle); \
		sr_wait w_; \
		cr_assert_eq(sr_wait_init(&w_, &c, NULL), SR_EINVAL, "init refuses it too"); \
	} while (0)
	REFUSED(SR_WAIT_BLOCK, kind, (enum sr_wait_kind)42, "wait strategy kind 42 is invalid: expected one of "
	    VALID_NAMES);
	REFUSED(SR_WAIT_BLOCK, kind, (enum sr_wait_kind)-3, "wait strategy kind -3 is invalid");
	REFUSED(SR_WAIT_YIELD, spin_tries, -1, "wait spin tries -1 is out of range: expected 0 to 1000000");
	REFUSED(SR_WAIT_YIELD, spin_tries, 1000001, "wait spin tries 1000001 is out of range");
	REFUSED(SR_WAIT_SLEEP, yield_tries, -7, "wait yield tries -7 is out of range: expected 0 to 1000000");
	REFUSED(SR_WAIT_SLEEP, sleep_ns, 0, "wait sleep 0 ns is out of range: expected 1 ns to 60 s");
	REFUSED(SR_WAIT_SLEEP, sleep_ns, 60 * SC_S + 1, "wait sleep 60000000001 ns is out of range");
	REFUSED(SR_WAIT_TIMEOUT, timeout_ns, 999, "wait timeout 999 ns is out of range: expected 1 us to 60 s");
	REFUSED(SR_WAIT_TIMEOUT, timeout_ns, -1, "wait timeout -1 ns");
	REFUSED(SR_WAIT_PHASED, spin_ns, -1, "phased spin -1 ns is out of range: expected 0 to 60 s");
	REFUSED(SR_WAIT_PHASED, yield_ns, 61 * SC_S, "phased yield 61000000000 ns is out of range");
	REFUSED(SR_WAIT_PHASED, fallback, SR_WAIT_YIELD, "phased fallback 'yield' is invalid");
	REFUSED(SR_WAIT_PHASED, fallback, SR_WAIT_BUSY_SPIN, "phased fallback 'busyspin' is invalid");
	REFUSED(SR_WAIT_PHASED, fallback, (enum sr_wait_kind)99, "phased fallback 99 is invalid: it is no wait "
	    "strategy kind (expected block, liteblock, timeout or sleep)");
	REFUSED(SR_WAIT_PHASED, fallback, (enum sr_wait_kind)-1, "phased fallback -1 is invalid");
#undef REFUSED
	cr_assert_eq(sr_wait_config_validate(NULL, &err), SR_EINVAL);
	cr_assert(strstr(err.message, "wait config is NULL") != NULL);
	cr_assert_eq(sr_wait_init(NULL, &c, &err), SR_EINVAL);
	/* A fallback is only checked for phased. */
	sr_wait_config_default(&c, SR_WAIT_BLOCK);
	c.fallback = SR_WAIT_BUSY_SPIN;
	cr_assert_eq(sr_wait_config_validate(&c, NULL), SR_OK);
	SC_ASSERT_NO_LEAKS();
}

/* ---- formatting ----------------------------------------------------------- */

Test(wait, format_round_trips)
{
	const char *specs[] = {
		"busyspin", "yield", "yield:spin=7", "sleep", "sleep:spin=3,yield=4,sleep=5ms", "block",
		"liteblock", "timeout", "timeout:timeout=250us", "phased", "phased:fallback=block",
		"phased:spin=3us,yield=7us,fallback=timeout,timeout=5ms",
		"phased:fallback=sleep,sleep=20us", "phased:fallback=liteblock,timeout=2s,sleep=3ns",
	};
	for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
		sr_wait_config a = parse_ok(specs[i]);
		char text[256];
		cr_assert_eq(sr_wait_config_format(&a, text, sizeof text), SR_OK, "%s", specs[i]);
		sr_wait_config b = parse_ok(text);
		char what[400];
		snprintf(what, sizeof what, "\"%s\" -> \"%s\"", specs[i], text);
		assert_same_config(&a, &b, what);
		/* Formatting is canonical: a second round gives the same text. */
		char again[256];
		cr_assert_eq(sr_wait_config_format(&b, again, sizeof again), SR_OK);
		cr_assert_str_eq(text, again);
	}
	/* Every kind's defaults round-trip too. */
	for (int k = 0; k < SR_WAIT_KIND_COUNT; k++) {
		sr_wait_config a, b;
		sr_wait_config_default(&a, (enum sr_wait_kind)k);
		char text[256];
		cr_assert_eq(sr_wait_config_format(&a, text, sizeof text), SR_OK);
		b = parse_ok(text);
		assert_same_config(&a, &b, text);
	}
}

Test(wait, format_text_and_small_buffers)
{
	sr_wait_config c = parse_ok("timeout:timeout=5ms");
	char text[64];
	cr_assert_eq(sr_wait_config_format(&c, text, sizeof text), SR_OK);
	cr_assert_str_eq(text, "timeout:timeout=5000000ns");
	c = parse_ok("BLOCK");
	cr_assert_eq(sr_wait_config_format(&c, text, sizeof text), SR_OK);
	cr_assert_str_eq(text, "block");
	c = parse_ok("yield:spin=12");
	cr_assert_eq(sr_wait_config_format(&c, text, sizeof text), SR_OK);
	cr_assert_str_eq(text, "yield:spin=12");
	cr_assert_eq(sr_wait_config_format(&c, text, 5), SR_EINVAL, "truncation is an error");
	cr_assert_eq(sr_wait_config_format(&c, text, 13), SR_EINVAL, "no room for the terminator");
	cr_assert_eq(sr_wait_config_format(&c, text, 14), SR_OK);
}

/* ---- init: how publishers signal ----------------------------------------- */

Test(wait, init_decides_how_publishers_signal)
{
	struct { const char *spec; enum sr_wait_signal_mode mode; enum sr_wait_kind sleeping; } cases[] = {
		{ "busyspin", SR_SIGNAL_NONE, SR_WAIT_BUSY_SPIN }, { "yield", SR_SIGNAL_NONE, SR_WAIT_YIELD },
		{ "sleep", SR_SIGNAL_NONE, SR_WAIT_SLEEP }, { "block", SR_SIGNAL_IF_NEEDED, SR_WAIT_BLOCK },
		{ "liteblock", SR_SIGNAL_IF_NEEDED, SR_WAIT_LITE_BLOCK },
		{ "timeout", SR_SIGNAL_IF_NEEDED, SR_WAIT_TIMEOUT },
		{ "phased", SR_SIGNAL_IF_NEEDED, SR_WAIT_LITE_BLOCK },
		{ "phased:fallback=block", SR_SIGNAL_IF_NEEDED, SR_WAIT_BLOCK },
		{ "phased:fallback=timeout", SR_SIGNAL_IF_NEEDED, SR_WAIT_TIMEOUT },
		{ "phased:fallback=sleep", SR_SIGNAL_NONE, SR_WAIT_SLEEP },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		sr_wait_config c = parse_ok(cases[i].spec);
		sr_wait w;
		sr_error err;
		cr_assert_eq(sr_wait_init(&w, &c, &err), SR_OK, "%s: %s", cases[i].spec, err.message);
		cr_assert_eq(w.signal_mode, cases[i].mode, "%s signals as %d", cases[i].spec, w.signal_mode);
		cr_assert_eq(w.sleeping_kind, cases[i].sleeping, "%s", cases[i].spec);
		cr_assert_eq(sr_atomic_load_relaxed_i32(&w.sleepers.announced), 0);
		/* Signalling with nobody waiting is harmless and leaves no flag set. */
		sr_wait_signal(&w);
		sr_wait_signal_all(&w);
		cr_assert_eq(sr_atomic_load_relaxed_i32(&w.sleepers.announced), 0);
		sr_wait_destroy(&w);
	}
	sr_wait_destroy(NULL);
	SC_ASSERT_NO_LEAKS();
}

Test(wait, backoff_spins_then_yields_then_naps)
{
	sr_backoff b = SR_BACKOFF_INIT;
	cr_assert_eq(b.step, 0);
	for (int i = 0; i < SR_BACKOFF_SPIN_STEPS + SR_BACKOFF_YIELD_STEPS; i++)
		sr_backoff_pause(&b);
	cr_assert_eq(b.step, SR_BACKOFF_SPIN_STEPS + SR_BACKOFF_YIELD_STEPS);
	int64_t t0 = sc_now();
	for (int i = 0; i < 5; i++)
		sr_backoff_pause(&b);
	cr_assert_eq(b.step, SR_BACKOFF_SPIN_STEPS + SR_BACKOFF_YIELD_STEPS, "stays in the nap phase");
	cr_assert_geq(sc_now() - t0, 5 * SR_BACKOFF_NAP_NS, "naps sleep");
	int64_t a = sr_monotonic_ns(), z = sr_monotonic_ns();
	cr_assert_geq(z, a, "monotonic");
}

/* ---- no lost wake-ups, for each strategy ---------------------------------- */

static void
wakeups(const char *spec, int rounds)
{
	for (int m = 0; m < 2; m++) {
		enum sr_producer_mode mode = m ? SR_PRODUCER_MULTI : SR_PRODUCER_SINGLE;
		sc_result r = sc_wakeups(spec, mode, m ? rounds / 3 : rounds, 0x5eed + (uint64_t)rounds);
		cr_assert(r.ok, "%s", r.message);
		cr_assert_eq(r.events, m ? rounds / 3 : rounds);
		cr_assert_leq(r.max_latency_ns, r.n[0], "%s: an event waited %.1f ms", spec,
		    (double)r.max_latency_ns / 1e6);
	}
}

#define WAKEUP_ROUNDS 210
Test(wakeups, busyspin, .timeout = 60) { wakeups("busyspin", WAKEUP_ROUNDS); }
Test(wakeups, yield, .timeout = 60) { wakeups("yield", WAKEUP_ROUNDS); }
Test(wakeups, sleep, .timeout = 60) { wakeups("sleep", WAKEUP_ROUNDS); }
Test(wakeups, block, .timeout = 60) { wakeups("block", WAKEUP_ROUNDS); }
Test(wakeups, liteblock, .timeout = 60) { wakeups("liteblock", WAKEUP_ROUNDS); }
Test(wakeups, timeout, .timeout = 60) { wakeups("timeout", WAKEUP_ROUNDS); }
/* With a timeout far above the 10 s bound, only the signal can deliver in time. */
Test(wakeups, timeout_long, .timeout = 60) { wakeups("timeout:timeout=30s", WAKEUP_ROUNDS); }
Test(wakeups, phased, .timeout = 60) { wakeups("phased", WAKEUP_ROUNDS); }
Test(wakeups, phased_block, .timeout = 60) { wakeups("phased:fallback=block", WAKEUP_ROUNDS); }
Test(wakeups, phased_timeout_long, .timeout = 60)
{
	wakeups("phased:fallback=timeout,timeout=30s", WAKEUP_ROUNDS);
}
Test(wakeups, phased_sleep, .timeout = 60) { wakeups("phased:fallback=sleep", WAKEUP_ROUNDS); }

/* ---- alert wakes a blocked waiter, for each strategy ---------------------- */

Test(alert, wakes_a_waiter_in_each_strategy, .timeout = 60)
{
	sc_result r = sc_alert_wakes_every_strategy(false);
	cr_assert(r.ok, "%s", r.message);
}

/* ---- timeouts reach the on_timeout hook ------------------------------------ */

Test(timeout, reports_timeouts_to_the_hook_while_idle, .timeout = 30)
{
	const char *specs[] = { "timeout:timeout=5ms", "phased:fallback=timeout,timeout=5ms" };
	for (int i = 0; i < 2; i++) {
		/* 150 ms idle with a 5 ms timeout: about 30; the spells last until 2 came, whatever the load. */
		sc_result r = sc_timeout_hook(specs[i], 150 * SC_MS, 2);
		cr_assert(r.ok, "%s: %s", specs[i], r.message);
		cr_assert_geq(r.n[0], 2, "%s: %lld timeouts in the first idle spell", specs[i],
		    (long long)r.n[0]);
		cr_assert_geq(r.n[1], 2, "%s: %lld timeouts after handling events", specs[i],
		    (long long)r.n[1]);
		cr_assert_leq(r.n[0], r.n[2] / SC_MS, "%s: %lld timeouts in %lld ms: more than one per ms",
		    specs[i], (long long)r.n[0], (long long)(r.n[2] / SC_MS));
		cr_assert_eq(r.events, 3);
	}
}

Test(timeout, other_strategies_report_none, .timeout = 30)
{
	const char *specs[] = { "block", "liteblock", "sleep", "phased" };
	for (int i = 0; i < 4; i++) {
		sc_result r = sc_timeout_hook(specs[i], 30 * SC_MS, 0);
		cr_assert(r.ok, "%s: %s", specs[i], r.message);
		cr_assert_eq(r.n[0] + r.n[1], 0, "%s reported %lld timeouts", specs[i],
		    (long long)(r.n[0] + r.n[1]));
	}
}

/* ---- claim with a deadline on a full ring ---------------------------------- */

Test(claim_deadline, single_producer, .timeout = 30)
{
	const char *waits[] = { "block", "busyspin", "phased" };
	for (int i = 0; i < 3; i++) {
		sc_result r = sc_claim_deadline(SR_PRODUCER_SINGLE, true, 0, waits[i]);
		cr_assert(r.ok, "%s: %s", waits[i], r.message);
		cr_assert_eq(r.events, 9);
		cr_assert_geq(r.n[0], 49 * SC_MS, "gave up early");
	}
}

Test(claim_deadline, multi_producer_synchronized_every_strategy, .timeout = 60)
{
	for (int k = 0; k < SC_STRATEGY_COUNT; k++) {
		sc_result r = sc_claim_deadline(SR_PRODUCER_MULTI, true, 4, sc_strategies[k]);
		cr_assert(r.ok, "%s: %s", sc_strategies[k], r.message);
		cr_assert_eq(r.events, 9);
	}
}

Test(claim_deadline, multi_producer_unsynchronized, .timeout = 30)
{
	const char *waits[] = { "timeout", "liteblock", "sleep" };
	for (int i = 0; i < 3; i++) {
		sc_result r = sc_claim_deadline(SR_PRODUCER_MULTI, false, 4, waits[i]);
		cr_assert(r.ok, "%s: %s", waits[i], r.message);
		cr_assert_eq(r.events, 9);
	}
}

/* ---- 64 producers, 16 slots, a slow consumer ------------------------------- */

static void
sixty_four(bool synchronize, const char *wait)
{
	sc_mp_params p = {
		.producers = 64, .per_producer = 300, .ring_size = 16, .wait = wait,
		.synchronize = synchronize, .max_claim = 1, .consumer_spin_ns = 2000,
		.consumer_nap_every = 64, .initial_sequence = -1, .seed = 64,
	};
	sc_result r = sc_multi_producer(&p);
	cr_assert(r.ok, "synchronize=%d %s: %s", synchronize, wait, r.message);
	cr_assert_eq(r.events, 64 * 300);
}

Test(full_ring, sixty_four_producers_synchronized, .timeout = 60)
{
	sixty_four(true, "block");
	SC_ASSERT_NO_LEAKS();
}
Test(full_ring, sixty_four_producers_unsynchronized, .timeout = 60) { sixty_four(false, "block"); }
Test(full_ring, sixty_four_producers_synchronized_liteblock, .timeout = 60)
{
	sixty_four(true, "liteblock");
}

/* ---- block between sparse events -------------------------------------- */

typedef struct sparse_waiter {
	sr_wait *w;
	sr_sequence *cursor;
	int64_t events;
	atomic_int waiting;
	int64_t cpu_ns;
	int rc;
} sparse_waiter;

static int64_t
thread_cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (int64_t)ts.tv_sec * SC_S + ts.tv_nsec;
}

static int
wait_each(void *arg)
{
	sparse_waiter *s = arg;
	sr_atomic_i32 alert;
	sr_atomic_store_relaxed_i32(&alert, 0);
	int64_t cpu0 = thread_cpu_now();
	for (int64_t q = 0; q < s->events; q++) {
		int64_t avail;
		atomic_store(&s->waiting, (int)q + 1);
		s->rc = sr_wait_for(s->w, q, s->cursor, NULL, 0, &alert, &avail);
		if (s->rc != SR_OK)
			return s->rc;
	}
	s->cpu_ns = thread_cpu_now() - cpu0;
	return 0;
}

/*
 * Events far apart: the waiter sleeps on the condition variable between
 * them (block does not spin before it sleeps), so it spends little CPU.
 */
Test(wait, block_sleeps_between_sparse_events, .timeout = 30)
{
	sr_wait_config c;
	sr_wait_config_default(&c, SR_WAIT_BLOCK);
	sr_wait w;
	cr_assert_eq(sr_wait_init(&w, &c, NULL), SR_OK);
	sr_sequence cursor;
	sr_sequence_init(&cursor, -1);
	sparse_waiter s = { .w = &w, .cursor = &cursor, .events = 400 };
	sc_background bg;
	sc_background_start(&bg, wait_each, &s);
	int64_t wall0 = sc_now();
	for (int64_t q = 0; q < s.events; q++) {
		while (atomic_load(&s.waiting) <= q)
			sc_sleep_ns(10 * 1000);
		sc_sleep_ns(500 * 1000); /* the waiter is asleep by now */
		sr_sequence_set(&cursor, q);
		sr_wait_signal(&w);
	}
	cr_assert_eq(sc_background_join(&bg), 0, "rc %d", s.rc);
	int64_t wall = sc_now() - wall0;
	/* Generous: a wake-up costs some CPU; a waiter that spun between events would cost far more. */
	cr_assert_lt(s.cpu_ns * 10, wall, "%.1f ms of CPU in %.1f ms for %lld sparse events",
	    (double)s.cpu_ns / 1e6, (double)wall / 1e6, (long long)s.events);
	cr_log_info("block, sparse events: %.2f ms of CPU in %.1f ms", (double)s.cpu_ns / 1e6,
	    (double)wall / 1e6);
	sr_wait_destroy(&w);
}

/* A thread that keeps its CPU busy until told to stop: the busy-spinner's neighbour on one core. */
static void *
keep_busy(void *arg)
{
	while (!__atomic_load_n((int *)arg, __ATOMIC_ACQUIRE))
		sr_atomic_pause();
	return NULL;
}

/*
 * The busyspin ladder yields every SR_BACKOFF_SPINNER_YIELD_EVERY fruitless
 * steps: on a core shared with a runnable thread, a yield hands it the
 * core, which the kernel counts as a context switch of the spinner (a
 * spinner that never yields is switched out only when its time slice ends,
 * milliseconds later than these few steps take).
 */
Test(wait, a_busy_spinner_sharing_its_core_lets_the_other_thread_run)
{
	cpu_set_t one;
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu(), &one);
	cr_assert_eq(pthread_setaffinity_np(pthread_self(), sizeof one, &one), 0);
	int stop = 0;
	pthread_t t;
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setaffinity_np(&attr, sizeof one, &one);
	cr_assert_eq(pthread_create(&t, &attr, keep_busy, &stop), 0);
	pthread_attr_destroy(&attr);
	sr_wait_config c;
	sr_wait_config_default(&c, SR_WAIT_BUSY_SPIN);
	sr_wait w;
	cr_assert_eq(sr_wait_init(&w, &c, NULL), SR_OK);
	struct rusage before, after;
	getrusage(RUSAGE_THREAD, &before);
	sr_backoff b;
	sr_backoff_start(&b, &w.polling);
	for (int i = 0; i < 64 * SR_BACKOFF_SPINNER_YIELD_EVERY; i++)
		sr_backoff_step(&b, &w.polling);
	getrusage(RUSAGE_THREAD, &after);
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	sr_wait_destroy(&w);
	long switches = after.ru_nivcsw - before.ru_nivcsw;
	/* about 4 in 10 yields switch (the scheduler may keep the yielder); a spinner that never yields: 0 */
	cr_assert_geq(switches, 4, "64 yields handed the shared core over %ld times", switches);
}

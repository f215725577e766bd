/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_sequencer.c: single- and multi-producer sequencers (sr_sequencer.h):
 * validation, claim / claim_n / try_claim / claim_timeout, capacity, gating,
 * publish and publish_range, out-of-order multi-producer publishing, large
 * sequences, and the guarantee that no slot is overwritten before release.
 */
#include <criterion/criterion.h>

#include "test_support.h"

#include "scenarios.h"

static const enum sr_producer_mode modes[] = { SR_PRODUCER_SINGLE, SR_PRODUCER_MULTI };
#define MODE_NAME(m) ((m) == SR_PRODUCER_SINGLE ? "SP" : "MP")

static sr_sequencer *
make(int64_t size, enum sr_producer_mode mode, int64_t initial, bool synchronize)
{
	sr_sequencer_config c;
	sr_sequencer_config_default(&c, size, mode);
	c.initial_sequence = initial;
	c.synchronize_enqueue_when_full = synchronize;
	sr_error err;
	sr_sequencer *s = sr_sequencer_create(&c, &err);
	cr_assert_not_null(s, "create %s size %lld: %s", MODE_NAME(mode), (long long)size, err.message);
	return s;
}

/* A sequencer gated by *gate, a consumer's sequence that the test moves by hand. */
static sr_sequencer *
make_gated(int64_t size, enum sr_producer_mode mode, int64_t initial, bool synchronize, sr_sequence *gate)
{
	sr_sequencer *s = make(size, mode, initial, synchronize);
	sr_sequence_init(gate, initial);
	cr_assert_eq(sr_sequencer_add_gating(s, gate), SR_OK);
	return s;
}

static void
expect_config_refused(const sr_sequencer_config *c, const char *needle)
{
	sr_error err;
	sr_error_clear(&err);
	sr_sequencer *s = sr_sequencer_create(c, &err);
	cr_assert_null(s, "config accepted; expected an error naming \"%s\"", needle);
	cr_assert_eq(err.code, SR_EINVAL, "code %d for \"%s\"", err.code, needle);
	cr_assert(strstr(err.message, needle) != NULL, "message \"%s\" does not contain \"%s\"",
	    err.message, needle);
}

/* ---- configuration ---------------------------------------------------- */

Test(sequencer, config_defaults)
{
	sr_sequencer_config c;
	memset(&c, 0x5a, sizeof c);
	sr_sequencer_config_default(&c, 64, SR_PRODUCER_MULTI);
	cr_assert_eq(c.buffer_size, 64);
	cr_assert_eq(c.mode, SR_PRODUCER_MULTI);
	cr_assert_eq(c.initial_sequence, -1);
	cr_assert(c.synchronize_enqueue_when_full, "synchronized enqueue is on by default");
	cr_assert_eq(c.wait.kind, SR_WAIT_BLOCK, "the default wait strategy is block");
	cr_assert_eq(sr_wait_config_validate(&c.wait, NULL), SR_OK);

	sr_sequencer *s = make(64, SR_PRODUCER_SINGLE, -1, true);
	cr_assert_eq(s->buffer_size, 64);
	cr_assert_eq(s->mask, 63);
	cr_assert_eq(sr_sequencer_cursor(s), -1);
	cr_assert_eq(sr_sequencer_remaining_capacity(s), 64);
	cr_assert_eq(sr_sequencer_wait(s), &s->wait);
	cr_assert_eq(sr_sequencer_wait(s)->config.kind, SR_WAIT_BLOCK);
	cr_assert_eq((uintptr_t)&s->cursor % SR_CACHELINE, 0);
	sr_sequencer_destroy(s);
	sr_sequencer_destroy(NULL);
}

Test(sequencer, every_invalid_value_is_einval_naming_it)
{
	sr_sequencer_config c;
	sr_error err;
	sr_error_clear(&err);
	cr_assert_null(sr_sequencer_create(NULL, &err));
	cr_assert_eq(err.code, SR_EINVAL);
	cr_assert(strstr(err.message, "config is NULL") != NULL, "%s", err.message);

	int64_t bad_sizes[] = { 0, 1, 3, 12, 1000, -2, -8, INT64_MIN, INT64_C(1) << 31, INT64_MAX };
	for (size_t i = 0; i < sizeof bad_sizes / sizeof bad_sizes[0]; i++) {
		for (int m = 0; m < 2; m++) {
			sr_sequencer_config_default(&c, bad_sizes[i], modes[m]);
			char needle[64];
			snprintf(needle, sizeof needle, "buffer_size %lld is invalid", (long long)bad_sizes[i]);
			expect_config_refused(&c, needle);
		}
	}
	sr_sequencer_config_default(&c, 3, SR_PRODUCER_SINGLE);
	expect_config_refused(&c, "expected a power of two from 2 to 1073741824");

	sr_sequencer_config_default(&c, 8, SR_PRODUCER_SINGLE);
	c.mode = (enum sr_producer_mode)7;
	expect_config_refused(&c, "producer mode 7 is invalid");
	c.mode = (enum sr_producer_mode)-1;
	expect_config_refused(&c, "producer mode -1 is invalid");

	int64_t bad_initial[] = { -2, -100, INT64_MIN, INT64_MAX, INT64_MAX / 2 + INT64_MAX / 4 + 1 };
	for (size_t i = 0; i < sizeof bad_initial / sizeof bad_initial[0]; i++) {
		sr_sequencer_config_default(&c, 8, SR_PRODUCER_MULTI);
		c.initial_sequence = bad_initial[i];
		char needle[64];
		snprintf(needle, sizeof needle, "initial_sequence %lld is out of range",
		    (long long)bad_initial[i]);
		expect_config_refused(&c, needle);
	}

	/* The wait strategy is validated too, and its message names the value. */
	sr_sequencer_config_default(&c, 8, SR_PRODUCER_SINGLE);
	c.wait.kind = (enum sr_wait_kind)42;
	expect_config_refused(&c, "wait strategy kind 42 is invalid");
	sr_sequencer_config_default(&c, 8, SR_PRODUCER_SINGLE);
	c.wait.timeout_ns = 5;
	expect_config_refused(&c, "wait timeout 5 ns is out of range");

	/* Without an error struct: still refused, no crash. */
	sr_sequencer_config_default(&c, 5, SR_PRODUCER_SINGLE);
	cr_assert_null(sr_sequencer_create(&c, NULL));
	SC_ASSERT_NO_LEAKS();
}

Test(sequencer, accepts_the_extremes)
{
	for (int m = 0; m < 2; m++) {
		sr_sequencer *s = make(2, modes[m], -1, true);
		sr_sequencer_destroy(s);
		s = make(SR_RING_MAX_SLOT_COUNT >> 10, modes[m], INT64_MAX / 2 + INT64_MAX / 4, false);
		int64_t first;
		cr_assert_eq(sr_sequencer_try_claim(s, &first), SR_OK);
		cr_assert_eq(first, INT64_MAX / 2 + INT64_MAX / 4 + 1);
		sr_sequencer_destroy(s);
	}
}

/* ---- claiming ----------------------------------------------------------- */

Test(sequencer, claims_are_consecutive)
{
	for (int m = 0; m < 2; m++) {
		sr_sequencer *s = make(16, modes[m], -1, true);
		int64_t a = -9, b = -9, c = -9, d = -9, e = -9;
		cr_assert_eq(sr_sequencer_claim(s, &a), SR_OK);
		cr_assert_eq(sr_sequencer_claim(s, &b), SR_OK);
		cr_assert_eq(sr_sequencer_claim_n(s, 3, &c), SR_OK);
		cr_assert_eq(sr_sequencer_try_claim(s, &d), SR_OK);
		cr_assert_eq(sr_sequencer_try_claim_n(s, 2, &e), SR_OK);
		cr_assert_eq(a, 0, "%s", MODE_NAME(modes[m]));
		cr_assert_eq(b, 1);
		cr_assert_eq(c, 2, "claim_n(3) gives 2..4");
		cr_assert_eq(d, 5);
		cr_assert_eq(e, 6, "try_claim_n(2) gives 6..7");
		int64_t f;
		cr_assert_eq(sr_sequencer_claim_timeout(s, 4, 0, &f), SR_OK, "space: no wait needed");
		cr_assert_eq(f, 8);
		/* SP: the cursor is the highest published; MP: the highest claimed. */
		cr_assert_eq(sr_sequencer_cursor(s), modes[m] == SR_PRODUCER_SINGLE ? -1 : 11,
		    "%s cursor %lld", MODE_NAME(modes[m]), (long long)sr_sequencer_cursor(s));
		sr_sequencer_publish_range(s, 0, 11);
		cr_assert_eq(sr_sequencer_cursor(s), 11);
		sr_sequencer_destroy(s);
	}
}

Test(sequencer, try_claim_is_efull_exactly_when_full)
{
	for (int m = 0; m < 2; m++) {
		const char *mn = MODE_NAME(modes[m]);
		sr_sequence gate;
		sr_sequencer *s = make_gated(8, modes[m], -1, true, &gate);
		int64_t seq;
		for (int i = 0; i < 8; i++) {
			cr_assert_eq(sr_sequencer_remaining_capacity(s), 8 - i, "%s before claim %d", mn, i);
			cr_assert_eq(sr_sequencer_try_claim(s, &seq), SR_OK, "%s: claim %d of 8 refused", mn, i);
			cr_assert_eq(seq, i);
			sr_sequencer_publish(s, seq);
		}
		cr_assert_eq(sr_sequencer_remaining_capacity(s), 0);
		seq = 12345;
		cr_assert_eq(sr_sequencer_try_claim(s, &seq), SR_EFULL, "%s: ninth claim on 8 slots", mn);
		cr_assert_eq(sr_sequencer_try_claim_n(s, 1, &seq), SR_EFULL);
		cr_assert_eq(sr_sequencer_try_claim(s, &seq), SR_EFULL, "EFULL does not change state");

		/* The consumer releases sequence 0: exactly one slot. */
		sr_sequence_set(&gate, 0);
		cr_assert_eq(sr_sequencer_remaining_capacity(s), 1);
		cr_assert_eq(sr_sequencer_try_claim_n(s, 2, &seq), SR_EFULL, "%s: 2 claimed, 1 free", mn);
		cr_assert_eq(sr_sequencer_try_claim(s, &seq), SR_OK, "%s: 1 free", mn);
		cr_assert_eq(seq, 8);
		sr_sequencer_publish(s, seq);
		cr_assert_eq(sr_sequencer_try_claim(s, &seq), SR_EFULL);

		/* Releasing 1..5 frees five. */
		sr_sequence_set(&gate, 5);
		cr_assert_eq(sr_sequencer_remaining_capacity(s), 5);
		cr_assert_eq(sr_sequencer_try_claim_n(s, 6, &seq), SR_EFULL);
		cr_assert_eq(sr_sequencer_try_claim_n(s, 5, &seq), SR_OK);
		cr_assert_eq(seq, 9, "five sequences from 9");
		sr_sequencer_publish_range(s, 9, 13);
		cr_assert_eq(sr_sequencer_try_claim(s, &seq), SR_EFULL);
		cr_assert_eq(sr_sequencer_cursor(s), 13);

		/* A whole ring's worth at once once everything is released. */
		sr_sequence_set(&gate, 13);
		cr_assert_eq(sr_sequencer_try_claim_n(s, 8, &seq), SR_OK);
		cr_assert_eq(seq, 14);
		cr_assert_eq(sr_sequencer_try_claim(s, &seq), SR_EFULL);
		sr_sequencer_destroy(s);
	}
}

Test(sequencer, n_outside_one_to_buffer_size_is_einval_not_a_hang, .timeout = 20)
{
	for (int m = 0; m < 2; m++) {
		const char *mn = MODE_NAME(modes[m]);
		sr_sequence gate;
		sr_sequencer *s = make_gated(8, modes[m], -1, true, &gate);
		int64_t first = 77;
		int64_t bad[] = { 9, 16, INT64_MAX, 0, -1, INT64_MIN };
		for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
			long long n = (long long)bad[i];
			cr_assert_eq(sr_sequencer_claim_n(s, bad[i], &first), SR_EINVAL, "%s claim_n(%lld)", mn, n);
			cr_assert_eq(sr_sequencer_try_claim_n(s, bad[i], &first), SR_EINVAL, "%s try_claim_n(%lld)",
			    mn, n);
			cr_assert_eq(sr_sequencer_claim_timeout(s, bad[i], SC_S, &first), SR_EINVAL,
			    "%s claim_timeout(%lld)", mn, n);
			cr_assert_eq(sr_sequencer_claim_until(s, bad[i], SR_DEADLINE_NONE, &first), SR_EINVAL);
		}
		cr_assert_eq(sr_sequencer_claim_timeout(s, 1, -1, &first), SR_EINVAL, "negative timeout");
		/* Nothing was claimed by the refused calls. */
		cr_assert_eq(sr_sequencer_remaining_capacity(s), 8);
		cr_assert_eq(sr_sequencer_claim(s, &first), SR_OK);
		cr_assert_eq(first, 0, "%s: a refused claim moved the sequence", mn);
		/* On a full ring, too: an oversized claim fails at once instead of waiting. */
		cr_assert_eq(sr_sequencer_claim_n(s, 7, &first), SR_OK);
		cr_assert_eq(sr_sequencer_remaining_capacity(s), 0);
		cr_assert_eq(sr_sequencer_claim_n(s, 9, &first), SR_EINVAL, "%s: on a full ring", mn);
		cr_assert_eq(sr_sequencer_claim_timeout(s, 9, 10 * SC_S, &first), SR_EINVAL);
		sr_sequencer_destroy(s);
	}
}

/* ---- a producer never overwrites an unconsumed slot ---------------------- */

/* A claim made on a thread of its own (sc_background), so that the test can watch it wait. */
typedef struct claim {
	sr_sequencer *s;
	int64_t n;
	int64_t timeout;        /* timed_claim's */
	int64_t first;
} claim;

static int
blocking_claim(void *arg)
{
	claim *c = arg;
	return c->n == 1 ? sr_sequencer_claim(c->s, &c->first) : sr_sequencer_claim_n(c->s, c->n, &c->first);
}

static int
timed_claim(void *arg)
{
	claim *c = arg;
	return sr_sequencer_claim_timeout(c->s, 1, c->timeout, &c->first);
}

Test(sequencer, blocking_claim_waits_until_the_consumer_releases, .timeout = 30)
{
	for (int m = 0; m < 2; m++) {
		for (int sync = 0; sync < 2; sync++) {
			const char *mn = MODE_NAME(modes[m]);
			sr_sequence gate;
			sr_sequencer *s = make_gated(8, modes[m], -1, sync, &gate);
			int64_t first;
			cr_assert_eq(sr_sequencer_claim_n(s, 8, &first), SR_OK);
			sr_sequencer_publish_range(s, 0, 7);

			/* claim_n(3) needs sequences 0..2 released. */
			claim b = { .s = s, .n = 3 };
			sc_background call;
			sc_background_start(&call, blocking_claim, &b);
			cr_assert_not(sc_background_returned_within(&call, 50 * SC_MS), "%s: claim_n returned on a "
			    "full ring (%lld)", mn, (long long)b.first);
			sr_sequence_set(&gate, 0);
			cr_assert_not(sc_background_returned_within(&call, 30 * SC_MS), "%s: claim of 3 with 1 free "
			    "returned", mn);
			sr_sequence_set(&gate, 1);
			cr_assert_not(sc_background_returned_within(&call, 30 * SC_MS), "%s: claim of 3 with 2 free "
			    "returned", mn);
			sr_sequence_set(&gate, 2);
			cr_assert(sc_background_returned_within(&call, 10 * SC_S), "%s: claim still blocked with 3 free",
			    mn);
			cr_assert_eq(sc_background_join(&call), SR_OK);
			cr_assert_eq(b.first, 8, "%s: the claim got %lld", mn, (long long)b.first);
			sr_sequencer_publish_range(s, 8, 10);

			/* A single claim, once more. */
			claim c = { .s = s, .n = 1 };
			sc_background_start(&call, blocking_claim, &c);
			cr_assert_not(sc_background_returned_within(&call, 30 * SC_MS), "%s: claim returned on a full "
			    "ring", mn);
			sr_sequence_set(&gate, 3);
			cr_assert(sc_background_returned_within(&call, 10 * SC_S));
			sc_background_join(&call);
			cr_assert_eq(c.first, 11);
			sr_sequencer_destroy(s);
		}
	}
}

Test(sequencer, no_overwrite_under_contention_single_producer, .timeout = 60)
{
	sc_result r = sc_overwrite_guard(SR_PRODUCER_SINGLE, 1, 4, 30000, "yield", -1, 11);
	cr_assert(r.ok, "%s", r.message);
	cr_assert_eq(r.events, 30000);
}

Test(sequencer, no_overwrite_under_contention_multi_producer, .timeout = 60)
{
	sc_result r = sc_overwrite_guard(SR_PRODUCER_MULTI, 3, 4, 10000, "yield", -1, 12);
	cr_assert(r.ok, "%s", r.message);
	cr_assert_eq(r.events, 30000);
	r = sc_overwrite_guard(SR_PRODUCER_MULTI, 2, 8, 10000, "block", (INT64_C(1) << 62) - 7, 13);
	cr_assert(r.ok, "near 2^62: %s", r.message);
	cr_assert_eq(r.events, 20000);
}

/* ---- claim with a deadline (deterministic: a hand-held gating sequence) -- */

Test(sequencer, claim_timeout_gives_up_on_a_full_ring, .timeout = 30)
{
	for (int m = 0; m < 2; m++) {
		for (int sync = 0; sync < 2; sync++) {
			const char *mn = MODE_NAME(modes[m]);
			sr_sequence gate;
			sr_sequencer *s = make_gated(4, modes[m], -1, sync, &gate);
			int64_t first = -5;
			cr_assert_eq(sr_sequencer_claim_timeout(s, 4, 0, &first), SR_OK, "%s: room for 4", mn);
			sr_sequencer_publish_range(s, 0, 3);
			int64_t t0 = sc_now();
			int rc = sr_sequencer_claim_timeout(s, 1, 30 * SC_MS, &first);
			int64_t waited = sc_now() - t0;
			cr_assert_eq(rc, SR_ETIMEDOUT, "%s sync=%d: %d (%s)", mn, sync, rc, sr_strerror(rc));
			cr_assert_geq(waited, 29 * SC_MS, "%s: gave up after %lld us, before its deadline", mn,
			    (long long)(waited / 1000));
			cr_assert_eq(sr_sequencer_claim_timeout(s, 1, 0, &first), SR_ETIMEDOUT, "zero timeout");
			cr_assert_eq(sr_sequencer_claim_until(s, 1, sc_now() - SC_S, &first), SR_ETIMEDOUT,
			    "a deadline in the past");
			cr_assert_eq(sr_sequencer_remaining_capacity(s), 0, "timed-out claims took nothing");
			sr_sequence_set(&gate, 1);
			cr_assert_eq(sr_sequencer_claim_timeout(s, 2, 0, &first), SR_OK);
			cr_assert_eq(first, 4, "%s: %lld", mn, (long long)first);
			sr_sequencer_destroy(s);
		}
	}
}

/* ---- publishing ---------------------------------------------------------- */

typedef struct gap_waiter {
	sr_barrier *b;
	int64_t want, avail;
} gap_waiter;

static int
wait_for_gap(void *arg)
{
	gap_waiter *g = arg;
	return sr_barrier_wait_for(g->b, g->want, &g->avail);
}

Test(sequencer, out_of_order_multi_producer_publish_stops_at_the_gap)
{
	sr_sequencer *s = make(8, SR_PRODUCER_MULTI, -1, true);
	sr_barrier b;
	cr_assert_eq(sr_barrier_init(&b, s, NULL, 0, NULL), SR_OK);
	int64_t seq[4];
	for (int i = 0; i < 4; i++)
		sr_sequencer_claim(s, &seq[i]);
	cr_assert_eq(seq[3], 3);
	cr_assert_eq(sr_sequencer_cursor(s), 3, "MP cursor counts claims");
	cr_assert_eq(sr_sequencer_highest_published(s, 0, 3), -1, "nothing published yet");

	sr_sequencer_publish(s, 0);
	sr_sequencer_publish(s, 1);
	sr_sequencer_publish(s, 3); /* before 2 */
	cr_assert(sr_sequencer_is_available(s, 3));
	cr_assert_not(sr_sequencer_is_available(s, 2));
	cr_assert_eq(sr_sequencer_highest_published(s, 0, 3), 1, "must stop before the unpublished 2");
	cr_assert_eq(sr_sequencer_highest_published(s, 2, 3), 1);
	cr_assert_eq(sr_sequencer_highest_published(s, 3, 3), 3, "from 3 on, 3 is there");
	int64_t avail = -9;
	cr_assert_eq(sr_barrier_wait_for(&b, 0, &avail), SR_OK);
	cr_assert_eq(avail, 1, "a consumer sees %lld, past the gap", (long long)avail);
	/* Asking for 2, claimed and not published, waits for its publish (block: asleep). */
	gap_waiter gw = { .b = &b, .want = 2, .avail = -9 };
	sc_background wait;
	sc_background_start(&wait, wait_for_gap, &gw);
	cr_assert_not(sc_background_returned_within(&wait, 20 * SC_MS),
	    "returned %lld while 2 is unpublished", (long long)gw.avail);

	sr_sequencer_publish(s, 2);
	cr_assert_eq(sr_sequencer_highest_published(s, 0, 3), 3);
	cr_assert(sc_background_returned_within(&wait, 5 * SC_S), "not woken by the publish of 2");
	cr_assert_eq(sc_background_join(&wait), SR_OK);
	cr_assert_eq(gw.avail, 3, "2 filled the gap: 0..3 visible");

	/* Ranges: producer X claims 4..5, Y claims 6..7, Y publishes first. */
	int64_t x, y;
	sr_sequencer_claim_n(s, 2, &x);
	sr_sequencer_claim_n(s, 2, &y);
	cr_assert_eq(x, 4);
	cr_assert_eq(y, 6);
	sr_sequencer_publish_range(s, y, y + 1);
	cr_assert_eq(sr_sequencer_highest_published(s, 4, 7), 3);
	sr_sequencer_publish_range(s, x, x + 1);
	cr_assert_eq(sr_sequencer_highest_published(s, 4, 7), 7);
	cr_assert_eq(sr_barrier_wait_for(&b, 4, &avail), SR_OK);
	cr_assert_eq(avail, 7);
	sr_sequencer_destroy(s);
}

/* The hot paths' multi-producer pair: the same claims and EFULL as try_claim_n, the same publish. */
Test(sequencer, try_claim_multi_and_publish_multi_behave_as_the_checked_calls)
{
	sr_sequence gate;
	sr_sequencer *s = make_gated(8, SR_PRODUCER_MULTI, -1, true, &gate);
	int64_t first;
	cr_assert_eq(sr_sequencer_try_claim_multi(s, 3, &first), SR_OK);
	cr_assert_eq(first, 0);
	cr_assert_not(sr_sequencer_is_available(s, 0), "claimed, not yet published");
	sr_sequencer_publish_multi(s, first, first + 2);
	for (int64_t q = 0; q < 3; q++)
		cr_assert(sr_sequencer_is_available(s, q), "%lld published", (long long)q);
	cr_assert_eq(sr_sequencer_try_claim_multi(s, 5, &first), SR_OK);
	cr_assert_eq(first, 3, "consecutive with the first claim");
	cr_assert_eq(sr_sequencer_try_claim_multi(s, 1, &first), SR_EFULL, "eight of eight claimed");
	sr_sequencer_publish_multi(s, 3, 7);
	cr_assert_eq(sr_sequencer_highest_published(s, 0, sr_sequencer_cursor(s)), 7);
	/* The consumer releases 0..1: two slots, and no more. */
	sr_sequence_set(&gate, 1);
	cr_assert_eq(sr_sequencer_try_claim_multi(s, 3, &first), SR_EFULL);
	cr_assert_eq(sr_sequencer_try_claim_multi(s, 2, &first), SR_OK);
	cr_assert_eq(first, 8);
	sr_sequencer_destroy(s);
}

Test(sequencer, publish_range_makes_the_whole_range_visible)
{
	for (int m = 0; m < 2; m++) {
		sr_sequencer *s = make(16, modes[m], -1, true);
		int64_t first;
		cr_assert_eq(sr_sequencer_claim_n(s, 5, &first), SR_OK);
		for (int64_t q = 0; q < 5; q++)
			cr_assert_not(sr_sequencer_is_available(s, q), "%s: %lld visible before publish",
			    MODE_NAME(modes[m]), (long long)q);
		sr_sequencer_publish_range(s, first, first + 4);
		for (int64_t q = 0; q < 5; q++)
			cr_assert(sr_sequencer_is_available(s, q), "%s: %lld", MODE_NAME(modes[m]), (long long)q);
		cr_assert_not(sr_sequencer_is_available(s, 5));
		cr_assert_eq(sr_sequencer_highest_published(s, 0, sr_sequencer_cursor(s)), 4);
		/* A range of one is a publish. */
		cr_assert_eq(sr_sequencer_claim(s, &first), SR_OK);
		sr_sequencer_publish_range(s, first, first);
		cr_assert(sr_sequencer_is_available(s, 5));
		cr_assert_eq(sr_sequencer_highest_published(s, 0, sr_sequencer_cursor(s)), 5);
		sr_sequencer_destroy(s);
	}
}

Test(sequencer, availability_ends_when_the_slot_is_reused)
{
	for (int m = 0; m < 2; m++) {
		const char *mn = MODE_NAME(modes[m]);
		sr_sequencer *s = make(4, modes[m], -1, true); /* no gating: the ring never fills */
		for (int64_t q = 0; q < 10; q++) {
			int64_t got;
			cr_assert_eq(sr_sequencer_claim(s, &got), SR_OK);
			cr_assert_eq(got, q);
			sr_sequencer_publish(s, got);
		}
		for (int64_t q = 0; q <= 5; q++)
			cr_assert_not(sr_sequencer_is_available(s, q), "%s: %lld's slot holds %lld now", mn,
			    (long long)q, (long long)q + 4);
		for (int64_t q = 6; q <= 9; q++)
			cr_assert(sr_sequencer_is_available(s, q), "%s: %lld", mn, (long long)q);
		cr_assert_not(sr_sequencer_is_available(s, 10));
		cr_assert_not(sr_sequencer_is_available(s, 13));
		sr_sequencer_destroy(s);
	}
}

/* ---- capacity and gating ------------------------------------------------- */

Test(sequencer, remaining_capacity_follows_the_slowest_gating_sequence)
{
	for (int m = 0; m < 2; m++) {
		const char *mn = MODE_NAME(modes[m]);
		sr_sequencer *s = make(16, modes[m], -1, true);
		cr_assert_eq(sr_sequencer_remaining_capacity(s), 16);
		int64_t first;
		sr_sequencer_claim_n(s, 10, &first);
		cr_assert_eq(sr_sequencer_remaining_capacity(s), 16,
		    "%s: with no consumer to wait for, nothing is in use", mn);
		sr_sequence fast, slow;
		sr_sequence_init(&fast, 9);
		sr_sequence_init(&slow, 3);
		cr_assert_eq(sr_sequencer_add_gating(s, &fast), SR_OK);
		cr_assert_eq(sr_sequencer_remaining_capacity(s), 16);
		cr_assert_eq(sr_sequencer_add_gating(s, &slow), SR_OK);
		cr_assert_eq(sr_sequencer_min_gating(s, 1000), 3);
		cr_assert_eq(sr_sequencer_remaining_capacity(s), 16 - (9 - 3), "%s", mn);
		sr_sequence_set(&slow, 7);
		cr_assert_eq(sr_sequencer_remaining_capacity(s), 14);
		sr_sequencer_claim_n(s, 14, &first);
		cr_assert_eq(first, 10);
		cr_assert_eq(sr_sequencer_remaining_capacity(s), 0);
		cr_assert_eq(sr_sequencer_try_claim(s, &first), SR_EFULL);
		/* Removing the slow consumer frees what only it held. */
		cr_assert_eq(sr_sequencer_remove_gating(s, &slow), SR_OK);
		cr_assert_eq(sr_sequencer_remaining_capacity(s), 2);
		cr_assert_eq(sr_sequencer_try_claim_n(s, 2, &first), SR_OK);
		cr_assert_eq(first, 24);
		cr_assert_eq(sr_sequencer_try_claim(s, &first), SR_EFULL);
		sr_sequencer_destroy(s);
	}
}

Test(sequencer, add_and_remove_gating)
{
	sr_sequencer *s = make(8, SR_PRODUCER_MULTI, -1, true);
	cr_assert_eq(sr_sequencer_add_gating(s, NULL), SR_EINVAL);
	cr_assert_eq(sr_sequencer_add_gating(NULL, &(sr_sequence){ .value = 0 }), SR_EINVAL);
	cr_assert_eq(sr_sequencer_remove_gating(s, NULL), SR_EINVAL);
	cr_assert_eq(sr_sequencer_min_gating(s, 42), 42, "no gating: the fallback");

	static sr_sequence g[SR_SEQUENCER_MAX_GATING + 1];
	for (int i = 0; i <= SR_SEQUENCER_MAX_GATING; i++)
		sr_sequence_init(&g[i], 100 + i);
	cr_assert_eq(sr_sequencer_remove_gating(s, &g[0]), SR_EINVAL, "not added yet");
	for (int i = 0; i < SR_SEQUENCER_MAX_GATING; i++)
		cr_assert_eq(sr_sequencer_add_gating(s, &g[i]), SR_OK, "gating %d", i);
	cr_assert_eq(sr_sequencer_add_gating(s, &g[SR_SEQUENCER_MAX_GATING]), SR_EFULL,
	    "more than SR_SEQUENCER_MAX_GATING");
	cr_assert_eq(sr_sequencer_min_gating(s, INT64_MAX), 100);

	/* Remove from the front, middle and back; the others stay. */
	cr_assert_eq(sr_sequencer_remove_gating(s, &g[0]), SR_OK);
	cr_assert_eq(sr_sequencer_min_gating(s, INT64_MAX), 101);
	cr_assert_eq(sr_sequencer_remove_gating(s, &g[0]), SR_EINVAL, "removed twice");
	cr_assert_eq(sr_sequencer_remove_gating(s, &g[5]), SR_OK);
	cr_assert_eq(sr_sequencer_remove_gating(s, &g[SR_SEQUENCER_MAX_GATING - 1]), SR_OK);
	cr_assert_eq(sr_sequencer_remove_gating(s, &g[1]), SR_OK);
	cr_assert_eq(sr_sequencer_min_gating(s, INT64_MAX), 102);
	sr_sequence_set(&g[2], 90);
	cr_assert_eq(sr_sequencer_min_gating(s, INT64_MAX), 90, "each gating sequence still counts");
	cr_assert_eq(sr_atomic_load_acquire_i32(&s->gating_count), SR_SEQUENCER_MAX_GATING - 4);
	for (int i = 0; i < SR_SEQUENCER_MAX_GATING; i++) {
		int rc = sr_sequencer_remove_gating(s, &g[i]);
		bool was_removed = i == 0 || i == 1 || i == 5 || i == SR_SEQUENCER_MAX_GATING - 1;
		cr_assert_eq(rc, was_removed ? SR_EINVAL : SR_OK, "remove %d: %d", i, rc);
	}
	cr_assert_eq(sr_sequencer_min_gating(s, 7), 7);
	/* Room again. */
	cr_assert_eq(sr_sequencer_add_gating(s, &g[SR_SEQUENCER_MAX_GATING]), SR_OK);
	sr_sequencer_destroy(s);
}

/* ---- large sequences ------------------------------------------------------ */

Test(sequencer, sequences_near_2_pow_62)
{
	const int64_t start = (INT64_C(1) << 62) - 6;
	for (int m = 0; m < 2; m++) {
		const char *mn = MODE_NAME(modes[m]);
		sr_sequence gate;
		sr_sequencer *s = make_gated(4, modes[m], start, true, &gate);
		cr_assert_eq(sr_sequencer_cursor(s), start);
		cr_assert_eq(sr_sequencer_remaining_capacity(s), 4);
		/* Several laps across 2^62, one consumer step behind at most 4. */
		int64_t expect = start + 1;
		for (int lap = 0; lap < 5; lap++) {
			for (int i = 0; i < 4; i++) {
				int64_t q;
				cr_assert_eq(sr_sequencer_try_claim(s, &q), SR_OK, "%s lap %d claim %d", mn, lap, i);
				cr_assert_eq(q, expect, "%s: got %lld, expected %lld", mn, (long long)q,
				    (long long)expect);
				cr_assert_eq(q & s->mask, expect % 4, "slot index of %lld", (long long)q);
				sr_sequencer_publish(s, q);
				cr_assert(sr_sequencer_is_available(s, q));
				expect++;
			}
			int64_t q;
			cr_assert_eq(sr_sequencer_try_claim(s, &q), SR_EFULL, "%s lap %d: full", mn, lap);
			cr_assert_eq(sr_sequencer_highest_published(s, expect - 4, sr_sequencer_cursor(s)),
			    expect - 1);
			sr_sequence_set(&gate, expect - 1);
		}
		cr_assert_gt(expect, INT64_C(1) << 62, "the test crossed 2^62");
		sr_sequencer_destroy(s);
	}
}

Test(sequencer, multi_producer_near_2_pow_62_exactly_once, .timeout = 60)
{
	sc_mp_params p = {
		.producers = 3, .per_producer = 20000, .ring_size = 16, .wait = "liteblock",
		.synchronize = true, .max_claim = 3, .initial_sequence = (INT64_C(1) << 62) - 100,
		.seed = 5,
	};
	sc_result r = sc_multi_producer(&p);
	cr_assert(r.ok, "%s", r.message);
	cr_assert_eq(r.events, 60000);
	cr_assert_eq(r.n[0], p.initial_sequence + 60000, "the consumer's final sequence");
	SC_ASSERT_NO_LEAKS();
}

/* ---- a claim_timeout without a practical limit --------------------------- */

Test(sequencer, huge_claim_timeouts_mean_wait_as_long_as_it_takes, .timeout = 30)
{
	for (int m = 0; m < 2; m++) {
		for (int sync = 0; sync < 2; sync++) {
			const char *mn = MODE_NAME(modes[m]);
			sr_sequence gate;
			sr_sequencer *s = make_gated(4, modes[m], -1, sync, &gate);
			int64_t first;
			/* With room: no overflow in computing the deadline, no wait. */
			cr_assert_eq(sr_sequencer_claim_timeout(s, 1, INT64_MAX, &first), SR_OK, "%s", mn);
			cr_assert_eq(first, 0);
			cr_assert_eq(sr_sequencer_claim_timeout(s, 3, INT64_MAX - 1, &first), SR_OK);
			/* Full: it waits (it does not time out at once) until the consumer releases. */
			int64_t timeouts[] = { INT64_MAX, INT64_MAX / 2, 1000 * SC_S };
			for (int t = 0; t < 3; t++) {
				claim c = { .s = s, .timeout = timeouts[t] };
				sc_background call;
				sc_background_start(&call, timed_claim, &c);
				cr_assert_not(sc_background_returned_within(&call, 30 * SC_MS),
				    "%s sync=%d timeout %lld: returned on a full ring", mn, sync, (long long)timeouts[t]);
				sr_sequence_set(&gate, sr_sequence_get(&gate) + 1);
				cr_assert(sc_background_returned_within(&call, 10 * SC_S), "%s: still waiting after a release",
				    mn);
				int rc = sc_background_join(&call);
				cr_assert_eq(rc, SR_OK, "%s sync=%d timeout %lld: %d", mn, sync, (long long)timeouts[t], rc);
				cr_assert_eq(c.first, 4 + t);
			}
			sr_sequencer_destroy(s);
		}
	}
}

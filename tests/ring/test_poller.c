/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_poller.c: the pull-style consumer (sr_poller.h): what each poll
 * returns (processing, idle, gating), the order events arrive in, stopping a
 * poll early, skipped slots, the gating of producers on the poller, and a
 * poller following a processor.
 */
#include <criterion/criterion.h>

#include "test_support.h"

#include "scenarios.h"
#include <seqring/sr_disruptor.h>
#include <seqring/sr_poller.h>

typedef struct seen {
	int64_t seq[64];      /* sequence, or -1 - sequence for a skip */
	bool eob[64];
	int n;
	int stop_after;       /* on_event returns false after this many events (0: never) */
} seen;

static bool
poll_event(void *ctx, void *slot, int64_t s, bool eob)
{
	seen *v = ctx;
	cr_assert_eq(*(int64_t *)slot, s * 10, "slot of %lld holds %lld", (long long)s,
	    (long long)*(int64_t *)slot);
	v->seq[v->n] = s;
	v->eob[v->n] = eob;
	v->n++;
	return v->stop_after == 0 || v->n % v->stop_after != 0;
}

static void
poll_skip(void *ctx, int64_t s)
{
	seen *v = ctx;
	v->seq[v->n] = -1 - s;
	v->eob[v->n] = false;
	v->n++;
}

static int
write_tenfold(void *ctx, void *slot, int64_t s, int64_t index)
{
	const int64_t *fail = ctx;
	(void)index;
	if (fail != NULL && s == *fail)
		return SR_EIO;
	*(int64_t *)slot = s * 10;
	return 0;
}

static sr_sequencer *
make_sequencer(int64_t size, enum sr_producer_mode mode)
{
	sr_sequencer_config c;
	sr_sequencer_config_default(&c, size, mode);
	sr_sequencer *s = sr_sequencer_create(&c, NULL);
	cr_assert_not_null(s);
	return s;
}

Test(poller, polls_report_processing_then_idle_in_order)
{
	enum sr_producer_mode modes[] = { SR_PRODUCER_SINGLE, SR_PRODUCER_MULTI };
	for (int m = 0; m < 2; m++) {
		sr_ring *ring = sr_ring_create(8, 8, NULL, NULL, NULL);
		sr_sequencer *s = make_sequencer(8, modes[m]);
		sr_error err;
		sr_poller *p = sr_poller_create(ring, s, NULL, 0, &err);
		cr_assert_not_null(p, "%s", err.message);
		cr_assert_eq(sr_sequencer_add_gating(s, sr_poller_sequence(p)), SR_OK);
		seen v = { .n = 0 };
		sr_poll_handler h = { .ctx = &v, .on_event = poll_event, .on_skip = poll_skip };

		cr_assert_eq(sr_poller_poll(p, &h), SR_POLL_IDLE, "nothing published");
		for (int i = 0; i < 3; i++)
			cr_assert_eq(sr_publish_event(s, ring, write_tenfold, NULL), SR_OK);
		cr_assert_eq(sr_poller_poll(p, &h), SR_POLL_PROCESSING);
		cr_assert_eq(v.n, 3);
		for (int i = 0; i < 3; i++)
			cr_assert_eq(v.seq[i], i);
		cr_assert(!v.eob[0] && !v.eob[1] && v.eob[2]);
		cr_assert_eq(sr_sequence_get(sr_poller_sequence(p)), 2);
		cr_assert_eq(sr_poller_poll(p, &h), SR_POLL_IDLE, "all handled");

		/* The ring fills behind the poller: it gates the producer. */
		int claimed = 0;
		while (sr_try_publish_event(s, ring, write_tenfold, NULL) == SR_OK)
			claimed++;
		cr_assert_eq(claimed, 8, "with 3 handled, 8 slots are free, got %d", claimed);
		/* Stop after every 3rd event: 3 + 3 + 2. */
		v = (seen){ .stop_after = 3 };
		int polls = 0;
		while (sr_poller_poll(p, &h) == SR_POLL_PROCESSING)
			polls++;
		cr_assert_eq(polls, 3);
		cr_assert_eq(v.n, 8);
		for (int i = 0; i < 8; i++)
			cr_assert_eq(v.seq[i], 3 + i);
		cr_assert(v.eob[7], "the last of the last poll ends its batch");

		/* A failed writer: the poller is told, its slot is not handed over. */
		int64_t fail = 12;
		v = (seen){ .n = 0 };
		cr_assert_eq(sr_publish_events_until(s, ring, 3, SR_DEADLINE_NONE, write_tenfold, &fail,
		    NULL), SR_EIO);
		cr_assert_eq(sr_poller_poll(p, &h), SR_POLL_PROCESSING);
		cr_assert_eq(v.n, 3);
		cr_assert_eq(v.seq[0], 11);
		cr_assert_eq(v.seq[1], -13, "12 skipped");
		cr_assert_eq(v.seq[2], -14, "13 skipped after it in the same batch");
		cr_assert_eq(sr_sequence_get(sr_poller_sequence(p)), 13);

		cr_assert_eq(sr_poller_poll(NULL, &h), SR_EINVAL);
		cr_assert_eq(sr_poller_poll(p, NULL), SR_EINVAL);
		sr_poller_destroy(p);
		sr_sequencer_destroy(s);
		sr_ring_destroy(ring);
	}
}

Test(poller, a_claim_not_yet_published_is_gating_not_idle)
{
	sr_ring *ring = sr_ring_create(8, 8, NULL, NULL, NULL);
	sr_sequencer *s = make_sequencer(8, SR_PRODUCER_MULTI);
	sr_poller *p = sr_poller_create(ring, s, NULL, 0, NULL);
	seen v = { .n = 0 };
	sr_poll_handler h = { .ctx = &v, .on_event = poll_event };
	int64_t q;
	cr_assert_eq(sr_sequencer_claim(s, &q), SR_OK);
	cr_assert_eq(sr_poller_poll(p, &h), SR_POLL_GATING);
	*(int64_t *)sr_ring_slot(ring, q) = q * 10;
	sr_sequencer_publish(s, q);
	cr_assert_eq(sr_poller_poll(p, &h), SR_POLL_PROCESSING);
	cr_assert_eq(v.n, 1);
	sr_poller_destroy(p);
	sr_sequencer_destroy(s);
	sr_ring_destroy(ring);
}

static int
slow_first(void *ctx, void *slot, int64_t s, bool eob)
{
	atomic_int *gate = ctx;
	(void)slot, (void)eob;
	while (s >= 2 && !atomic_load(gate))
		sc_sleep_ns(100 * 1000);
	return 0;
}

Test(poller, a_poller_following_a_processor_is_gated_until_it_has_handled, .timeout = 30)
{
	sr_disruptor_config c;
	sr_disruptor_config_default(&c, 16, 8, SR_PRODUCER_SINGLE);
	c.max_batch_size = 1; /* the processor's sequence moves after each event */
	sr_error err;
	sr_disruptor *d = sr_disruptor_create(&c, &err);
	cr_assert_not_null(d, "%s", err.message);
	atomic_int gate = 0;
	sr_group g = sr_disruptor_handle_events_with(d,
	    (sr_handler[]){ { .ctx = &gate, .on_event = slow_first } }, 1, &err);
	cr_assert_eq(g.status, SR_OK, "%s", err.message);
	const sr_sequence *upstream = sr_processor_sequence(sr_disruptor_processor(d, 0));
	sr_poller *p = sr_poller_create(sr_disruptor_ring(d), sr_disruptor_sequencer(d), &upstream, 1,
	    &err);
	cr_assert_not_null(p, "%s", err.message);
	cr_assert_eq(sr_sequencer_add_gating(sr_disruptor_sequencer(d), sr_poller_sequence(p)), SR_OK);
	cr_assert_eq(sr_disruptor_start(d, &err), SR_OK, "%s", err.message);
	for (int i = 0; i < 5; i++)
		cr_assert_eq(sr_disruptor_publish_event(d, write_tenfold, NULL), SR_OK);

	seen v = { .n = 0 };
	sr_poll_handler h = { .ctx = &v, .on_event = poll_event };
	/* The processor stops at 2: the poller gets 0 and 1, then is gated. */
	int64_t until = sc_now() + 10 * SC_S;
	while (v.n < 2 && sc_now() < until)
		sr_poller_poll(p, &h);
	cr_assert_eq(v.n, 2);
	cr_assert_eq(sr_poller_poll(p, &h), SR_POLL_GATING);
	atomic_store(&gate, 1);
	while (v.n < 5 && sc_now() < until)
		sr_poller_poll(p, &h);
	cr_assert_eq(v.n, 5);
	for (int i = 0; i < 5; i++)
		cr_assert_eq(v.seq[i], i);
	cr_assert_eq(sr_poller_poll(p, &h), SR_POLL_IDLE);
	cr_assert_eq(sr_disruptor_shutdown(d, 10 * SC_S, NULL, &err), SR_OK, "%s", err.message);
	sr_disruptor_destroy(d);
	sr_poller_destroy(p);
}

/*
 * A progress sequence of the caller's (placed in a mapping shared with
 * other processes, say), preset to 9: the poller takes it as it stands and
 * starts at 10, records its progress there, and a producer gated on it
 * waits for it.
 */
Test(poller, an_external_sequence_is_used_as_it_stands)
{
	sr_ring *ring = sr_ring_create(8, 8, NULL, NULL, NULL);
	sr_sequencer *s = make_sequencer(8, SR_PRODUCER_SINGLE);
	for (int i = 0; i < 10; i++) /* 0..9, before anything gates the producer */
		cr_assert_eq(sr_publish_event(s, ring, write_tenfold, NULL), SR_OK);
	sr_sequence external;
	sr_sequence_init(&external, 9);
	sr_error err;
	sr_poller *p = sr_poller_create_at(ring, s, NULL, 0, &external, &err);
	cr_assert_not_null(p, "%s", err.message);
	cr_assert_eq(sr_poller_sequence(p), &external, "the sequence in use is the one given");
	cr_assert_eq(sr_sequence_get(&external), 9, "its value is not reset");
	cr_assert_eq(sr_sequencer_add_gating(s, sr_poller_sequence(p)), SR_OK);

	/* Gated on 9: a producer publishes 10..17, the ring's 8 slots, and no more. */
	int claimed = 0;
	while (sr_try_publish_event(s, ring, write_tenfold, NULL) == SR_OK)
		claimed++;
	cr_assert_eq(claimed, 8, "gated on an external sequence at 9, claimed %d, expected 8", claimed);

	seen v = { .n = 0 };
	sr_poll_handler h = { .ctx = &v, .on_event = poll_event };
	cr_assert_eq(sr_poller_poll(p, &h), SR_POLL_PROCESSING);
	cr_assert_eq(v.n, 8, "polled %d events, expected 10..17", v.n);
	for (int i = 0; i < 8; i++)
		cr_assert_eq(v.seq[i], 10 + i, "event %d: %lld, expected %d", i, (long long)v.seq[i], 10 + i);
	cr_assert_eq(sr_sequence_get(&external), 17, "the progress is recorded in the external sequence");
	/* Its progress frees the producer. */
	cr_assert_eq(sr_try_publish_event(s, ring, write_tenfold, NULL), SR_OK);
	cr_assert_eq(sr_poller_poll(p, &h), SR_POLL_PROCESSING);
	cr_assert_eq(sr_sequence_get(&external), 18);
	cr_assert_eq(sr_poller_poll(p, &h), SR_POLL_IDLE);

	/* The same errors as sr_poller_create. */
	cr_assert_null(sr_poller_create_at(NULL, s, NULL, 0, &external, &err));
	cr_assert(strstr(err.message, "ring is NULL") != NULL, "%s", err.message);
	cr_assert_null(sr_poller_create_at(ring, s, NULL, 2, &external, &err));
	cr_assert(strstr(err.message, "dependent_count 2") != NULL, "%s", err.message);
	/* NULL: a sequence of its own, from the sequencer's initial sequence. */
	sr_poller *own = sr_poller_create_at(ring, s, NULL, 0, NULL, &err);
	cr_assert_not_null(own, "%s", err.message);
	cr_assert_neq(sr_poller_sequence(own), &external);
	cr_assert_eq(sr_sequence_get(sr_poller_sequence(own)), -1);
	sr_poller_destroy(own);

	cr_assert_eq(sr_sequencer_remove_gating(s, &external), SR_OK);
	sr_poller_destroy(p);
	cr_assert_eq(sr_sequence_get(&external), 18, "the external sequence outlives the poller");
	sr_sequencer_destroy(s);
	sr_ring_destroy(ring);
	SC_ASSERT_NO_LEAKS();
}

Test(poller, create_refuses_invalid_arguments)
{
	sr_ring *ring = sr_ring_create(8, 8, NULL, NULL, NULL);
	sr_ring *other = sr_ring_create(16, 8, NULL, NULL, NULL);
	sr_sequencer *s = make_sequencer(8, SR_PRODUCER_SINGLE);
	sr_error err;
	cr_assert_null(sr_poller_create(NULL, s, NULL, 0, &err));
	cr_assert(strstr(err.message, "ring is NULL") != NULL, "%s", err.message);
	cr_assert_null(sr_poller_create(other, s, NULL, 0, &err));
	cr_assert(strstr(err.message, "ring has 16 slots") != NULL, "%s", err.message);
	cr_assert_null(sr_poller_create(ring, s, NULL, 2, &err));
	cr_assert(strstr(err.message, "dependent_count 2") != NULL, "%s", err.message);
	const sr_sequence *none[1] = { NULL };
	cr_assert_null(sr_poller_create(ring, s, none, 1, &err));
	cr_assert(strstr(err.message, "dependent sequence 0 is NULL") != NULL, "%s", err.message);
	sr_sequencer_destroy(s);
	sr_ring_destroy(ring);
	sr_ring_destroy(other);
	SC_ASSERT_NO_LEAKS();
}

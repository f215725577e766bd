/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_disruptor.c: the consumer-graph builder (sr_disruptor.h): the order
 * each stage saw events in a diamond and a pipeline, gating on the graph's
 * ends (what a producer can claim before and after start), the builder's
 * errors (a handler added twice, cycles, unknown handlers, changes after
 * start), halt, and shutdown with and without a stage that cannot progress.
 */
#include <criterion/criterion.h>

#include "test_support.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "scenarios.h"
#include <seqring/sr_disruptor.h>

#define EVENTS 20000

struct event {
	int64_t value;
	int64_t a, b, c;              /* written by stages A, B and C */
};

typedef struct stage {
	char name;
	int64_t next;                 /* the sequence it expects next */
	int64_t out_of_order, wrong;  /* sequences out of order; inputs not yet written */
	int64_t handled;
	atomic_int hold;              /* set: the stage stops in on_event until cleared */
	atomic_int held;
} stage;

static int
on_event(void *ctx, void *slot, int64_t s, bool eob)
{
	stage *st = ctx;
	struct event *e = slot;
	(void)eob;
	while (atomic_load(&st->hold)) {
		atomic_store(&st->held, 1);
		sc_sleep_ns(100 * 1000);
	}
	st->out_of_order += s != st->next;
	st->next = s + 1;
	switch (st->name) {
	case 'A': e->a = e->value + 1; break;
	case 'B': st->wrong += e->a != e->value + 1; e->b = 2 * e->value; break;
	case 'C': st->wrong += e->a != e->value + 1; e->c = 3 * e->value; break;
	case 'D': st->wrong += e->b != 2 * e->value || e->c != 3 * e->value; break;
	case 'P': st->wrong += e->a != e->value + 1; break; /* follows A only */
	case 'E': st->wrong += e->a != e->value + 1 || e->b != 2 * e->value; break; /* after B and P */
	}
	st->handled++;
	return 0;
}

static sr_handler
handler_of(stage *st)
{
	static const char *const names[] = { "A", "B", "C", "D", "E", "P", "X" };
	const char *name = "?";
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (names[i][0] == st->name)
			name = names[i];
	return (sr_handler){ .ctx = st, .on_event = on_event, .name = name };
}

static int
write_value(void *ctx, void *slot, int64_t s, int64_t index)
{
	(void)ctx, (void)index;
	*(struct event *)slot = (struct event){ .value = s, .a = -1, .b = -1, .c = -1 };
	return 0;
}

static sr_disruptor *
make(int64_t slots, enum sr_producer_mode mode, const char *wait)
{
	sr_disruptor_config c;
	sr_disruptor_config_default(&c, slots, sizeof(struct event), mode);
	sr_error err;
	cr_assert_eq(sr_wait_config_parse(wait, &c.wait, &err), SR_OK, "%s", err.message);
	sr_disruptor *d = sr_disruptor_create(&c, &err);
	cr_assert_not_null(d, "%s", err.message);
	return d;
}

static int32_t
gating_count(sr_disruptor *d)
{
	return sr_atomic_load_acquire_i32(&sr_disruptor_sequencer(d)->gating_count);
}

static void
expect_all_in_order(const stage *st, int64_t n)
{
	cr_assert_eq(st->handled, n, "%c handled %lld of %lld", st->name, (long long)st->handled,
	    (long long)n);
	cr_assert_eq(st->out_of_order, 0, "%c saw %lld sequences out of order", st->name,
	    (long long)st->out_of_order);
	cr_assert_eq(st->wrong, 0, "%c saw %lld events before its inputs were written", st->name,
	    (long long)st->wrong);
}

Test(disruptor, diamond_every_stage_sees_every_event_in_order_after_its_inputs, .timeout = 60)
{
	const char *strategies[] = { "block", "yield", "liteblock" };
	for (int k = 0; k < 3; k++) {
		sr_disruptor *d = make(64, k == 1 ? SR_PRODUCER_MULTI : SR_PRODUCER_SINGLE, strategies[k]);
		stage a = { .name = 'A' }, b = { .name = 'B' }, c = { .name = 'C' }, e = { .name = 'D' };
		sr_error err;
		sr_group g = sr_disruptor_handle_events_with(d, (sr_handler[]){ handler_of(&a) }, 1, &err);
		g = sr_group_then(g, (sr_handler[]){ handler_of(&b), handler_of(&c) }, 2, &err);
		g = sr_group_then(g, (sr_handler[]){ handler_of(&e) }, 1, &err);
		cr_assert_eq(g.status, SR_OK, "%s", err.message);
		cr_assert_eq(g.count, 1);
		cr_assert_eq(g.stages[0], 3);
		cr_assert_eq(sr_disruptor_stage_count(d), 4);
		cr_assert_eq(gating_count(d), 1, "producers are gated on D alone");
		cr_assert_eq(sr_disruptor_start(d, &err), SR_OK, "%s", err.message);
		for (int64_t i = 0; i < EVENTS; i++)
			cr_assert_eq(sr_disruptor_publish_event(d, write_value, NULL), SR_OK);
		int behind = 99;
		cr_assert_eq(sr_disruptor_shutdown(d, 30 * SC_S, &behind, &err), SR_OK, "%s", err.message);
		cr_assert_eq(behind, -1);
		expect_all_in_order(&a, EVENTS);
		expect_all_in_order(&b, EVENTS);
		expect_all_in_order(&c, EVENTS);
		expect_all_in_order(&e, EVENTS);
		for (int i = 0; i < 4; i++)
			cr_assert_eq(sr_processor_state_get(sr_disruptor_processor(d, i)), SR_PROCESSOR_HALTED);
		sr_disruptor_destroy(d);
	}
}

Test(disruptor, after_builds_a_branch_and_and_joins_groups, .timeout = 60)
{
	/* A -> B and A -> P (after(A)); then E after both (and()). */
	sr_disruptor *d = make(32, SR_PRODUCER_SINGLE, "block");
	stage a = { .name = 'A' }, b = { .name = 'B' }, e = { .name = 'E' }, p = { .name = 'P' };
	sr_error err;
	sr_handler ha = handler_of(&a), hb = handler_of(&b), hp = handler_of(&p);
	sr_group ga = sr_disruptor_handle_events_with(d, &ha, 1, &err);
	sr_group gb = sr_group_then(ga, &hb, 1, &err);
	sr_group gp = sr_group_then(sr_disruptor_after(d, &ha, 1, &err), &hp, 1, &err);
	cr_assert_eq(gp.status, SR_OK, "%s", err.message);
	cr_assert_eq(gating_count(d), 2, "B and P are the ends");
	sr_group both = sr_group_and(gb, gp, &err);
	cr_assert_eq(both.count, 2);
	sr_group gd = sr_group_then(both, (sr_handler[]){ handler_of(&e) }, 1, &err);
	cr_assert_eq(gd.status, SR_OK, "%s", err.message);
	cr_assert_eq(gating_count(d), 1, "E is the only end");
	cr_assert_eq(sr_disruptor_start(d, &err), SR_OK, "%s", err.message);
	for (int64_t i = 0; i < EVENTS; i++)
		cr_assert_eq(sr_disruptor_publish_events(d, 1, write_value, NULL), SR_OK);
	cr_assert_eq(sr_disruptor_shutdown(d, 30 * SC_S, NULL, &err), SR_OK, "%s", err.message);
	expect_all_in_order(&a, EVENTS);
	expect_all_in_order(&b, EVENTS);
	expect_all_in_order(&p, EVENTS);
	expect_all_in_order(&e, EVENTS);
	sr_disruptor_destroy(d);
}

Test(disruptor, producers_are_gated_from_the_first_handler_even_before_start, .timeout = 30)
{
	sr_disruptor *d = make(8, SR_PRODUCER_SINGLE, "block");
	stage a = { .name = 'A' }, b = { .name = 'B' };
	sr_group g = sr_disruptor_handle_events_with(d, (sr_handler[]){ handler_of(&a) }, 1, NULL);
	g = sr_group_then(g, (sr_handler[]){ handler_of(&b) }, 1, NULL);
	cr_assert_eq(g.status, SR_OK);
	int claimed = 0;
	while (sr_disruptor_try_publish_event(d, write_value, NULL) == SR_OK)
		claimed++;
	cr_assert_eq(claimed, 8, "a producer could claim the ring's 8 slots and no more, got %d", claimed);
	cr_assert_eq(sr_disruptor_start(d, NULL), SR_OK);
	cr_assert_eq(sr_disruptor_shutdown(d, 10 * SC_S, NULL, NULL), SR_OK);
	expect_all_in_order(&a, 8);
	expect_all_in_order(&b, 8);
	sr_disruptor_destroy(d);
}

static void
expect_group_error(sr_group g, int code, const sr_error *err, const char *needle)
{
	cr_assert_eq(g.status, code, "status %d, expected %d (%s)", g.status, code, err->message);
	cr_assert(strstr(err->message, needle) != NULL, "message \"%s\" lacks \"%s\"", err->message,
	    needle);
}

Test(disruptor, builder_errors_twice_cycles_unknown_and_after_start)
{
	sr_disruptor *d = make(16, SR_PRODUCER_SINGLE, "block");
	stage a = { .name = 'A' }, b = { .name = 'B' }, c = { .name = 'C' }, x = { .name = 'X' };
	sr_handler ha = handler_of(&a), hb = handler_of(&b), hc = handler_of(&c), hx = handler_of(&x);
	sr_error err;
	sr_group ga = sr_disruptor_handle_events_with(d, &ha, 1, &err);
	sr_group gb = sr_group_then(ga, &hb, 1, &err);
	sr_group gc = sr_group_then(gb, &hc, 1, &err);
	cr_assert_eq(gc.status, SR_OK, "%s", err.message);

	expect_group_error(sr_disruptor_handle_events_with(d, &ha, 1, &err), SR_EINVAL, &err,
	    "handler 'A' was added twice (it is already stage 0)");
	expect_group_error(sr_disruptor_handle_events_with(d, (sr_handler[]){ hx, hx }, 2, &err),
	    SR_EINVAL, &err, "handler 'X' is given twice in the same call");
	/* A precedes C: A after C would wait for itself. */
	expect_group_error(sr_group_then(gc, &ha, 1, &err), SR_EINVAL, &err, "a cycle");
	expect_group_error(sr_group_then(gb, &hb, 1, &err), SR_EINVAL, &err, "a cycle");
	/* C does not precede B: C after B again is only a duplicate. */
	expect_group_error(sr_group_then(sr_disruptor_after(d, &ha, 1, &err), &hc, 1, &err),
	    SR_EINVAL, &err, "added twice");
	expect_group_error(sr_disruptor_after(d, &hx, 1, &err), SR_EINVAL, &err,
	    "handler 'X' was never added");
	sr_handler unnamed = { .ctx = &x, .on_event = on_event };
	sr_handler unnamed2 = { .ctx = &a, .on_event = on_event };
	expect_group_error(sr_disruptor_after(d, (sr_handler[]){ unnamed2, unnamed }, 2, &err),
	    SR_EINVAL, &err, "handler at index 1 was never added");
	expect_group_error(sr_disruptor_handle_events_with(d, (sr_handler[]){ { .ctx = &x } }, 1, &err),
	    SR_EINVAL, &err, "has no on_event");
	expect_group_error(sr_disruptor_handle_events_with(d, &hx, 0, &err), SR_EINVAL, &err,
	    "0 handlers");
	expect_group_error(sr_disruptor_handle_events_with(d, NULL, 1, &err), SR_EINVAL, &err,
	    "at NULL");

	/* A failed group passes its error along a chain unchanged. */
	sr_group bad = sr_disruptor_after(d, &hx, 1, &err);
	sr_error later;
	sr_error_clear(&later);
	sr_group chained = sr_group_then(sr_group_then(bad, &hx, 1, &later), &hx, 1, &later);
	cr_assert_eq(chained.status, SR_EINVAL);
	cr_assert_eq(later.code, SR_OK, "a failed chain reports only its first error");
	cr_assert_eq(sr_disruptor_stage_count(d), 3, "no failed call added a stage");
	cr_assert_eq(gating_count(d), 1);

	cr_assert_eq(sr_disruptor_start(d, &err), SR_OK, "%s", err.message);
	expect_group_error(sr_disruptor_handle_events_with(d, &hx, 1, &err), SR_ESTATE, &err,
	    "before sr_disruptor_start");
	expect_group_error(sr_group_then(gc, &hx, 1, &err), SR_ESTATE, &err, "started");
	cr_assert_eq(sr_disruptor_start(d, &err), SR_ESTATE);
	cr_assert(strstr(err.message, "already started") != NULL, "%s", err.message);
	cr_assert_eq(sr_disruptor_halt(d), SR_OK);
	cr_assert_eq(sr_disruptor_halt(d), SR_ESTATE, "halt twice");
	cr_assert_eq(sr_disruptor_shutdown(d, 0, NULL, &err), SR_ESTATE, "shutdown when halted");
	cr_assert_eq(sr_disruptor_start(d, &err), SR_ESTATE, "the graph starts once");
	sr_disruptor_destroy(d);

	/* No stages; invalid configs. */
	d = make(16, SR_PRODUCER_SINGLE, "block");
	cr_assert_eq(sr_disruptor_start(d, &err), SR_EINVAL);
	cr_assert(strstr(err.message, "no stages") != NULL, "%s", err.message);
	sr_disruptor_destroy(d);
	sr_disruptor_config cfg;
	sr_disruptor_config_default(&cfg, 12, 8, SR_PRODUCER_SINGLE);
	cr_assert_null(sr_disruptor_create(&cfg, &err));
	cr_assert(strstr(err.message, "slot_count 12") != NULL, "%s", err.message);
	/* A chain on the failed create keeps its message. */
	sr_group none = sr_group_then(sr_disruptor_handle_events_with(NULL, &hx, 1, &err), &hx, 1, &err);
	cr_assert_eq(none.status, SR_EINVAL);
	cr_assert(strstr(err.message, "slot_count 12") != NULL, "%s", err.message);
	cr_assert_eq(sr_disruptor_after(NULL, &hx, 1, &err).status, SR_EINVAL);
	cr_assert_eq(sr_disruptor_start(NULL, &err), SR_EINVAL);
	cr_assert_eq(sr_disruptor_shutdown(NULL, 0, NULL, &err), SR_EINVAL);
	sr_disruptor_config_default(&cfg, 16, 8, SR_PRODUCER_SINGLE);
	cfg.max_batch_size = -2;
	cr_assert_null(sr_disruptor_create(&cfg, &err));
	cr_assert(strstr(err.message, "max_batch_size -2") != NULL, "%s", err.message);
	cr_assert_null(sr_disruptor_create(NULL, &err));
	sr_disruptor_destroy(NULL);
	SC_ASSERT_NO_LEAKS();
}

/*
 * A graph of SR_DISRUPTOR_MAX_STAGES - 1 stages (room for one more, so that
 * a re-add reaches the handler checks), each following the two before it:
 * the paths from the last stage back to the first are as many as the
 * Fibonacci numbers (2^43 at 63 stages).  The builder's checks of a handler
 * added again (twice, or a cycle) must cost the graph's size, not its paths:
 * a check that walks every path took 0.9 s at 42 stages and did not return
 * at 60.  The Criterion timeout fails a check that hangs.
 */
Test(disruptor, builder_checks_cost_the_graphs_size_not_its_paths, .timeout = 20)
{
	enum { STAGES = SR_DISRUPTOR_MAX_STAGES - 1 };
	sr_disruptor *d = make(16, SR_PRODUCER_SINGLE, "block");
	static stage st[STAGES];
	static char names[STAGES][8];
	sr_handler h[STAGES];
	for (int i = 0; i < STAGES; i++) {
		st[i] = (stage){ .name = 'X' };
		snprintf(names[i], sizeof names[i], "S%d", i);
		h[i] = (sr_handler){ .ctx = &st[i], .on_event = on_event, .name = names[i] };
	}
	sr_error err;
	sr_group g = sr_disruptor_handle_events_with(d, &h[0], 1, &err);
	g = sr_group_then(g, &h[1], 1, &err);
	for (int i = 2; i < STAGES; i++) {
		sr_group both = sr_group_and(sr_disruptor_after(d, &h[i - 2], 1, &err),
		    sr_disruptor_after(d, &h[i - 1], 1, &err), &err);
		g = sr_group_then(both, &h[i], 1, &err);
	}
	cr_assert_eq(g.status, SR_OK, "%s", err.message);
	cr_assert_eq(sr_disruptor_stage_count(d), STAGES);
	cr_assert_eq(gating_count(d), 1, "the last stage is the only end");

	/* The last handler again, after the stage before it: nothing to find on any path. */
	sr_group again = sr_group_then(sr_disruptor_after(d, &h[STAGES - 2], 1, &err),
	    &h[STAGES - 1], 1, &err);
	char expected[160];
	snprintf(expected, sizeof expected, "handler 'S%d' was added twice (it is already stage %d)",
	    STAGES - 1, STAGES - 1);
	expect_group_error(again, SR_EINVAL, &err, expected);
	/* The second handler after the last stage: a cycle. */
	snprintf(expected, sizeof expected,
	    "handler 'S1' (stage 1) would follow stage %d, which follows it: a cycle", STAGES - 1);
	expect_group_error(sr_group_then(g, &h[1], 1, &err), SR_EINVAL, &err, expected);
	cr_assert_eq(sr_disruptor_stage_count(d), STAGES, "no failed call added a stage");
	sr_disruptor_destroy(d);
}

Test(disruptor, shutdown_times_out_naming_the_stage_behind_then_completes, .timeout = 60)
{
	sr_disruptor *d = make(64, SR_PRODUCER_MULTI, "block");
	stage a = { .name = 'A' }, b = { .name = 'B' }, c = { .name = 'C' };
	sr_error err;
	sr_group g = sr_disruptor_handle_events_with(d, (sr_handler[]){ handler_of(&a) }, 1, &err);
	g = sr_group_then(g, (sr_handler[]){ handler_of(&b) }, 1, &err);
	g = sr_group_then(g, (sr_handler[]){ handler_of(&c) }, 1, &err);
	cr_assert_eq(g.status, SR_OK, "%s", err.message);
	atomic_store(&b.hold, 1); /* B cannot progress: C, the end, cannot either */
	cr_assert_eq(sr_disruptor_start(d, &err), SR_OK, "%s", err.message);
	for (int i = 0; i < 10; i++)
		cr_assert_eq(sr_disruptor_publish_event(d, write_value, NULL), SR_OK);
	while (!atomic_load(&b.held))
		sc_sleep_ns(SC_MS);

	int behind = -1;
	int64_t t0 = sc_now();
	cr_assert_eq(sr_disruptor_shutdown(d, 200 * SC_MS, &behind, &err), SR_ETIMEDOUT);
	int64_t waited = sc_now() - t0;
	cr_assert(waited >= 200 * SC_MS && waited < 5 * SC_S, "shutdown waited %lld ns",
	    (long long)waited);
	cr_assert_eq(behind, 1, "stage B (1) was behind, reported %d", behind);
	cr_assert(strstr(err.message, "stage 1 (handler 'B') has handled up to sequence -1 of 9") != NULL,
	    "%s", err.message);
	cr_assert(strstr(err.message, "is still running") != NULL, "%s", err.message);
	cr_assert_eq(a.handled, 10, "A handled everything");
	for (int i = 0; i < 3; i++)
		cr_assert_eq(sr_processor_state_get(sr_disruptor_processor(d, i)), SR_PROCESSOR_RUNNING,
		    "a timed-out shutdown leaves stage %d running", i);

	atomic_store(&b.hold, 0);
	t0 = sc_now();
	cr_assert_eq(sr_disruptor_shutdown(d, 10 * SC_S, &behind, &err), SR_OK, "%s", err.message);
	cr_assert_lt(sc_now() - t0, 5 * SC_S);
	expect_all_in_order(&b, 10);
	expect_all_in_order(&c, 10);
	sr_disruptor_destroy(d);
}

/*
 * Several producers: 3 claimed but not yet published, 4..6 published.  The
 * shutdown's target is the cursor (the highest claimed), as the Disruptor's:
 * it times out instead of reporting drained with 4..6 not handled.
 */
Test(disruptor, shutdown_waits_for_a_claim_not_yet_published, .timeout = 60)
{
	sr_disruptor *d = make(16, SR_PRODUCER_MULTI, "block");
	stage a = { .name = 'A' };
	sr_error err;
	sr_group g = sr_disruptor_handle_events_with(d, (sr_handler[]){ handler_of(&a) }, 1, &err);
	cr_assert_eq(g.status, SR_OK, "%s", err.message);
	cr_assert_eq(sr_disruptor_start(d, &err), SR_OK, "%s", err.message);
	for (int i = 0; i < 3; i++)
		cr_assert_eq(sr_disruptor_publish_event(d, write_value, NULL), SR_OK);
	const sr_sequence *as = sr_processor_sequence(sr_disruptor_processor(d, 0));
	int64_t until = sc_now() + 10 * SC_S;
	while (sr_sequence_get(as) < 2 && sc_now() < until)
		sc_sleep_ns(SC_MS);
	cr_assert_eq(sr_sequence_get(as), 2);
	sr_sequencer *s = sr_disruptor_sequencer(d);
	int64_t held;
	cr_assert_eq(sr_sequencer_claim(s, &held), SR_OK);
	cr_assert_eq(held, 3);
	for (int i = 0; i < 3; i++) /* 4, 5, 6 */
		cr_assert_eq(sr_disruptor_publish_event(d, write_value, NULL), SR_OK);

	int behind = -1;
	cr_assert_eq(sr_disruptor_shutdown(d, 100 * SC_MS, &behind, &err), SR_ETIMEDOUT,
	    "shutdown with sequence 3 claimed and not published, 4..6 published: expected "
	    "SR_ETIMEDOUT, handled %lld", (long long)a.handled);
	cr_assert_eq(behind, 0);
	cr_assert(strstr(err.message, "stage 0 (handler 'A') has handled up to sequence 2 of 6") != NULL,
	    "%s", err.message);
	cr_assert_eq(sr_processor_state_get(sr_disruptor_processor(d, 0)), SR_PROCESSOR_RUNNING,
	    "a timed-out shutdown leaves the graph running");
	cr_assert_eq(a.handled, 3);

	write_value(NULL, sr_ring_slot(sr_disruptor_ring(d), held), held, 0);
	sr_sequencer_publish(s, held);
	cr_assert_eq(sr_disruptor_shutdown(d, 10 * SC_S, &behind, &err), SR_OK, "%s", err.message);
	expect_all_in_order(&a, 7);
	sr_disruptor_destroy(d);
}

Test(disruptor, halt_stops_every_stage_and_destroy_halts_a_running_graph, .timeout = 30)
{
	const char *strategies[] = { "block", "sleep", "timeout", "busyspin" };
	for (int k = 0; k < 4; k++) {
		sr_disruptor *d = make(16, SR_PRODUCER_SINGLE, strategies[k]);
		stage a = { .name = 'A' }, b = { .name = 'B' }, c = { .name = 'C' };
		sr_group g = sr_disruptor_handle_events_with(d,
		    (sr_handler[]){ handler_of(&a), handler_of(&b) }, 2, NULL);
		g = sr_group_then(g, (sr_handler[]){ handler_of(&c) }, 1, NULL);
		cr_assert_eq(g.status, SR_OK);
		cr_assert_eq(gating_count(d), 1);
		cr_assert_eq(sr_disruptor_start(d, NULL), SR_OK);
		/* A hang guard: busy-spinning stages share two CPUs with whatever else runs. */
		int64_t t0 = sc_now();
		cr_assert_eq(sr_disruptor_halt(d), SR_OK);
		cr_assert_lt(sc_now() - t0, 10 * SC_S, "%s: halt took %lld ns", strategies[k],
		    (long long)(sc_now() - t0));
		for (int i = 0; i < 3; i++)
			cr_assert_eq(sr_processor_state_get(sr_disruptor_processor(d, i)), SR_PROCESSOR_HALTED);
		sr_disruptor_destroy(d);

		d = make(16, SR_PRODUCER_SINGLE, strategies[k]);
		g = sr_disruptor_handle_events_with(d, (sr_handler[]){ handler_of(&a) }, 1, NULL);
		cr_assert_eq(sr_disruptor_start(d, NULL), SR_OK);
		sr_disruptor_destroy(d); /* halts and joins */
	}
	cr_assert_null(sr_disruptor_processor(NULL, 0));
	cr_assert_eq(sr_disruptor_stage_count(NULL), 0);
}

/* A stage that counts its runs: each run's on_start and on_shutdown, and its events. */
typedef struct counted {
	atomic_int starts, shutdowns;
	atomic_llong events;
} counted;

static int
counted_event(void *ctx, void *slot, int64_t s, bool eob)
{
	counted *c = ctx;
	(void)slot, (void)s, (void)eob;
	atomic_fetch_add(&c->events, 1);
	return 0;
}

static void
counted_start(void *ctx)
{
	atomic_fetch_add(&((counted *)ctx)->starts, 1);
}

static void
counted_shutdown(void *ctx)
{
	atomic_fetch_add(&((counted *)ctx)->shutdowns, 1);
}

static sr_handler
counted_handler(counted *c, const char *name)
{
	return (sr_handler){ .ctx = c, .on_event = counted_event, .on_start = counted_start,
	    .on_shutdown = counted_shutdown, .name = name };
}

static int
run_stage(void *proc)
{
	return sr_processor_run(proc);
}

static void
wait_for_state(sr_processor *p, enum sr_processor_state state, const char *what)
{
	int64_t until = sc_now() + 10 * SC_S;
	while (sr_processor_state_get(p) != state && sc_now() < until)
		sc_sleep_ns(SC_MS);
	cr_assert_eq(sr_processor_state_get(p), state, "%s: state %d after 10 s, expected %d", what,
	    (int)sr_processor_state_get(p), (int)state);
}

/*
 * After the graph's halt, stages restarted by hand (sr_processor_start, or
 * sr_processor_run in a thread of the caller's): a second halt halts and
 * joins them, and destroy halts and joins them before it frees them.  Each
 * run's on_shutdown tells that it ended.
 */
Test(disruptor, halt_and_destroy_stop_stages_restarted_by_hand, .timeout = 60)
{
	sr_disruptor *d = make(16, SR_PRODUCER_SINGLE, "block");
	counted a = { 0 }, b = { 0 };
	sr_error err;
	sr_group g = sr_disruptor_handle_events_with(d, (sr_handler[]){ counted_handler(&a, "A") }, 1, &err);
	g = sr_group_then(g, (sr_handler[]){ counted_handler(&b, "B") }, 1, &err);
	cr_assert_eq(g.status, SR_OK, "%s", err.message);
	sr_processor *pa = sr_disruptor_processor(d, 0), *pb = sr_disruptor_processor(d, 1);
	cr_assert_eq(sr_disruptor_start(d, &err), SR_OK, "%s", err.message);
	cr_assert_eq(sr_disruptor_halt(d), SR_OK);
	cr_assert_eq(sr_disruptor_halt(d), SR_ESTATE, "a second halt with nothing running");

	/* Restarted by hand: they run, and a second halt stops and joins them. */
	cr_assert_eq(sr_processor_start(pa, &err), SR_OK, "%s", err.message);
	cr_assert_eq(sr_processor_start(pb, &err), SR_OK, "%s", err.message);
	for (int i = 0; i < 5; i++)
		cr_assert_eq(sr_disruptor_publish_event(d, write_value, NULL), SR_OK);
	int64_t until = sc_now() + 10 * SC_S;
	while (sr_sequence_get(sr_processor_sequence(pb)) < 4 && sc_now() < until)
		sc_sleep_ns(SC_MS);
	cr_assert_eq(atomic_load(&b.events), 5, "the restarted stages handle what is published");
	cr_assert_eq(sr_disruptor_halt(d), SR_OK,
	    "a halt after stages were restarted by hand must halt them (they were running)");
	cr_assert_eq(sr_processor_state_get(pa), SR_PROCESSOR_HALTED);
	cr_assert_eq(sr_processor_state_get(pb), SR_PROCESSOR_HALTED);
	cr_assert_eq(sr_processor_join(pa), SR_ESTATE, "the halt joined A's thread");
	cr_assert_eq(sr_processor_join(pb), SR_ESTATE, "the halt joined B's thread");
	cr_assert_eq(atomic_load(&a.shutdowns), 2);
	cr_assert_eq(atomic_load(&b.shutdowns), 2);

	/* Restarted again, A in its own thread, B in one of ours: destroy stops both first. */
	cr_assert_eq(sr_processor_start(pa, &err), SR_OK, "%s", err.message);
	sc_background run_b;
	sc_background_start(&run_b, run_stage, pb);
	wait_for_state(pb, SR_PROCESSOR_RUNNING, "B run in a thread of the test");
	sr_disruptor_destroy(d);
	cr_assert_eq(atomic_load(&a.shutdowns), 3, "destroy returned before A's run ended");
	cr_assert_eq(atomic_load(&b.shutdowns), 3, "destroy returned before B's run ended");
	cr_assert_eq(sc_background_join(&run_b), SR_OK, "sr_processor_run of B returns SR_OK");
	cr_assert_eq(atomic_load(&a.starts), 3);
	cr_assert_eq(atomic_load(&b.starts), 3);
}

/* Three producers, one consumer, through the builder and publish_event. */
typedef struct producer {
	sr_disruptor *d;
	int64_t id, n;
} producer;

static int
write_tagged(void *ctx, void *slot, int64_t s, int64_t index)
{
	const int64_t *tag = ctx;
	(void)s, (void)index;
	*(struct event *)slot = (struct event){ .value = *tag };
	return 0;
}

static int
produce(void *arg)
{
	producer *p = arg;
	for (int64_t i = 0; i < p->n; i++) {
		int64_t tag = p->id * (INT64_C(1) << 40) + i;
		if (sr_disruptor_publish_event(p->d, write_tagged, &tag) != SR_OK)
			return 1;
	}
	return 0;
}

typedef struct per_producer {
	int64_t next[3];
	int64_t errors;
} per_producer;

static int
check_tagged(void *ctx, void *slot, int64_t s, bool eob)
{
	per_producer *pp = ctx;
	const struct event *e = slot;
	int64_t id = e->value >> 40, i = e->value & ((INT64_C(1) << 40) - 1);
	(void)s, (void)eob;
	if (id < 0 || id > 2 || pp->next[id] != i)
		pp->errors++;
	else
		pp->next[id]++;
	return 0;
}

Test(disruptor, three_producers_one_consumer_exactly_once_in_each_producers_order, .timeout = 60)
{
	sr_disruptor *d = make(256, SR_PRODUCER_MULTI, "block");
	per_producer pp = { { 0, 0, 0 }, 0 };
	sr_group g = sr_disruptor_handle_events_with(d,
	    (sr_handler[]){ { .ctx = &pp, .on_event = check_tagged } }, 1, NULL);
	cr_assert_eq(g.status, SR_OK);
	cr_assert_eq(sr_disruptor_start(d, NULL), SR_OK);
	producer p[3];
	sc_background bg[3];
	for (int i = 0; i < 3; i++) {
		p[i] = (producer){ d, i, 100000 };
		sc_background_start(&bg[i], produce, &p[i]);
	}
	for (int i = 0; i < 3; i++)
		cr_assert_eq(sc_background_join(&bg[i]), 0);
	cr_assert_eq(sr_disruptor_shutdown(d, 30 * SC_S, NULL, NULL), SR_OK);
	cr_assert_eq(pp.errors, 0);
	for (int i = 0; i < 3; i++)
		cr_assert_eq(pp.next[i], 100000);
	sr_disruptor_destroy(d);
}

static int
halting_event(void *ctx, void *slot, int64_t s, bool eob)
{
	(void)ctx, (void)slot, (void)eob;
	return s == 3 ? SR_EIO : 0;
}

static enum sr_error_action
halt_on_error(void *ctx, int error, int64_t s, void *slot)
{
	(void)ctx, (void)error, (void)s, (void)slot;
	return SR_ERROR_HALT;
}

Test(disruptor, shutdown_ends_at_once_when_a_stage_halted_itself_behind, .timeout = 30)
{
	sr_disruptor *d = make(16, SR_PRODUCER_SINGLE, "block");
	stage b = { .name = 'B' };
	sr_error err;
	sr_group g = sr_disruptor_handle_events_with(d, (sr_handler[]){ { .on_event = halting_event,
	    .on_error = halt_on_error, .name = "halter" } }, 1, &err);
	g = sr_group_then(g, (sr_handler[]){ handler_of(&b) }, 1, &err);
	cr_assert_eq(g.status, SR_OK, "%s", err.message);
	cr_assert_eq(sr_disruptor_start(d, &err), SR_OK, "%s", err.message);
	for (int i = 0; i < 8; i++)
		cr_assert_eq(sr_disruptor_publish_event(d, write_value, NULL), SR_OK);
	int behind = -1;
	int64_t t0 = sc_now();
	cr_assert_eq(sr_disruptor_shutdown(d, INT64_MAX, &behind, &err), SR_ESTATE, "%s", err.message);
	cr_assert_lt(sc_now() - t0, 10 * SC_S, "no waiting for ever");
	cr_assert_eq(behind, 0);
	cr_assert(strstr(err.message, "stage 0 (handler 'halter') has handled up to sequence 3 of 7") !=
	    NULL, "%s", err.message);
	cr_assert(strstr(err.message, "has halted itself") != NULL, "%s", err.message);
	/* B gets what the halted stage handled, 0 to 3, and nothing more. */
	const sr_sequence *bs = sr_processor_sequence(sr_disruptor_processor(d, 1));
	int64_t until = sc_now() + 10 * SC_S;
	while (sr_sequence_get(bs) < 3 && sc_now() < until)
		sc_sleep_ns(SC_MS);
	cr_assert_eq(sr_disruptor_halt(d), SR_OK);
	cr_assert_eq(b.handled, 4);
	sr_disruptor_destroy(d);
}

Test(disruptor, gating_room_counts_sequences_added_by_hand)
{
	sr_disruptor *d = make(16, SR_PRODUCER_SINGLE, "block");
	sr_sequence extra[SR_SEQUENCER_MAX_GATING];
	for (int i = 0; i < SR_SEQUENCER_MAX_GATING - 1; i++) {
		sr_sequence_init(&extra[i], -1);
		cr_assert_eq(sr_sequencer_add_gating(sr_disruptor_sequencer(d), &extra[i]), SR_OK);
	}
	stage a = { .name = 'A' }, b = { .name = 'B' };
	sr_error err;
	sr_group g = sr_disruptor_handle_events_with(d, (sr_handler[]){ handler_of(&a) }, 1, &err);
	cr_assert_eq(g.status, SR_OK, "%s", err.message);
	g = sr_group_then(g, (sr_handler[]){ handler_of(&b) }, 1, &err);
	cr_assert_eq(g.status, SR_EINVAL);
	cr_assert(strstr(err.message, "exceed SR_SEQUENCER_MAX_GATING") != NULL, "%s", err.message);
	cr_assert_eq(sr_disruptor_stage_count(d), 1);
	sr_disruptor_destroy(d);
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_processor.c: the batch event processor (sr_processor.h): validation,
 * lifecycle (start, run, halt, drain-then-halt, join) and its state errors,
 * batching (end_of_batch, max batch size, one sequence update per batch),
 * hooks, handler errors, consumer graphs (pipeline and diamond) and the
 * multi-producer exactly-once test of 4 x 1,000,000 events.
 */
#include <criterion/criterion.h>

#include "test_support.h"

#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

#include "scenarios.h"
#include <seqring/sr_publish.h>

typedef struct fixture {
	sr_ring *ring;
	sr_sequencer *seq;
} fixture;

static fixture
make(int64_t size, enum sr_producer_mode mode, const char *wait, int64_t initial)
{
	fixture f;
	sr_error err;
	f.ring = sr_ring_create(size, sizeof(int64_t), NULL, NULL, &err);
	cr_assert_not_null(f.ring, "%s", err.message);
	sr_sequencer_config c;
	sr_sequencer_config_default(&c, size, mode);
	c.initial_sequence = initial;
	cr_assert_eq(sr_wait_config_parse(wait, &c.wait, &err), SR_OK, "%s", err.message);
	f.seq = sr_sequencer_create(&c, &err);
	cr_assert_not_null(f.seq, "%s", err.message);
	return f;
}

static void
unmake(fixture *f)
{
	sr_sequencer_destroy(f->seq);
	sr_ring_destroy(f->ring);
}

static void
publish_values(fixture *f, int n)
{
	for (int i = 0; i < n; i++) {
		int64_t s;
		cr_assert_eq(sr_sequencer_claim(f->seq, &s), SR_OK);
		*(int64_t *)sr_ring_slot(f->ring, s) = s;
		sr_sequencer_publish(f->seq, s);
	}
}

static int
ignore_event(void *ctx, void *slot, int64_t s, bool eob)
{
	(void)ctx; (void)slot; (void)s; (void)eob;
	return 0;
}

static bool
wait_until_sequence(sr_processor *p, int64_t target)
{
	int64_t until = sc_now() + 10 * SC_S;
	while (sr_sequence_get(sr_processor_sequence(p)) < target && sc_now() < until)
		sc_sleep_ns(100 * 1000);
	return sr_sequence_get(sr_processor_sequence(p)) >= target;
}

/* ---- validation ------------------------------------------------------- */

static void
expect_create_refused(const sr_processor_config *c, const char *needle)
{
	sr_error err;
	sr_error_clear(&err);
	cr_assert_null(sr_processor_create(c, &err), "accepted; expected \"%s\"", needle);
	cr_assert_eq(err.code, SR_EINVAL);
	cr_assert(strstr(err.message, needle) != NULL, "message \"%s\" lacks \"%s\"", err.message, needle);
}

Test(processor, create_refuses_invalid_configs)
{
	fixture f = make(8, SR_PRODUCER_SINGLE, "block", -1);
	fixture g = make(16, SR_PRODUCER_SINGLE, "block", -1);
	sr_handler h = { .on_event = ignore_event };
	sr_error err;
	cr_assert_null(sr_processor_create(NULL, &err));
	cr_assert(strstr(err.message, "processor config is NULL") != NULL, "%s", err.message);

	sr_processor_config c = { .ring = NULL, .sequencer = f.seq, .handler = h };
	expect_create_refused(&c, "NULL ring");
	c = (sr_processor_config){ .ring = f.ring, .sequencer = NULL, .handler = h };
	expect_create_refused(&c, "NULL sequencer");
	c = (sr_processor_config){ .ring = f.ring, .sequencer = f.seq };
	expect_create_refused(&c, "no on_event");
	c = (sr_processor_config){ .ring = f.ring, .sequencer = g.seq, .handler = h };
	expect_create_refused(&c, "ring has 8 slots but the sequencer's buffer_size is 16");
	c = (sr_processor_config){ .ring = f.ring, .sequencer = f.seq, .handler = h, .max_batch_size = -1 };
	expect_create_refused(&c, "max_batch_size -1 is negative");
	c = (sr_processor_config){ .ring = f.ring, .sequencer = f.seq, .handler = h, .dependent_count = 3 };
	expect_create_refused(&c, "dependents is NULL but dependent_count is 3");
	const sr_sequence *deps[1] = { NULL };
	c = (sr_processor_config){ .ring = f.ring, .sequencer = f.seq, .handler = h, .dependents = deps,
	    .dependent_count = 1 };
	expect_create_refused(&c, "dependent sequence 0 is NULL");
	c = (sr_processor_config){ .ring = f.ring, .sequencer = f.seq, .handler = h, .dependent_count = 99 };
	expect_create_refused(&c, "dependent_count 99 is out of range");
	c = (sr_processor_config){ .ring = NULL, .sequencer = f.seq, .handler = h };
	cr_assert_null(sr_processor_create(&c, NULL), "refused without an error struct too");

	c = (sr_processor_config){ .ring = f.ring, .sequencer = f.seq, .handler = h };
	sr_processor *p = sr_processor_create(&c, &err);
	cr_assert_not_null(p, "%s", err.message);
	cr_assert_eq(sr_processor_state_get(p), SR_PROCESSOR_IDLE);
	cr_assert_eq(sr_sequence_get(sr_processor_sequence(p)), -1);
	cr_assert_eq((uintptr_t)sr_processor_sequence(p) % SR_CACHELINE, 0);
	sr_processor_destroy(p);
	sr_processor_destroy(NULL);
	unmake(&f);
	unmake(&g);
	SC_ASSERT_NO_LEAKS();
}

/* ---- lifecycle and state errors ------------------------------------------ */

typedef struct hooks_log {
	atomic_int order;            /* a counter to timestamp each hook */
	int started_at, shutdown_at; /* their order */
	int starts, shutdowns;
	int64_t events;
	int64_t seen[64];
	bool eob[64];
	int64_t seq_during[64];      /* the processor's own sequence while handling */
	int batches;
	int64_t batch_size[64], queue_depth[64];
	int event_order_first;
	sr_processor *self;
} hooks_log;

static void
log_start(void *ctx)
{
	hooks_log *l = ctx;
	l->started_at = atomic_fetch_add(&l->order, 1);
	l->starts++;
}

static void
log_shutdown(void *ctx)
{
	hooks_log *l = ctx;
	l->shutdown_at = atomic_fetch_add(&l->order, 1);
	l->shutdowns++;
}

static void
log_batch_start(void *ctx, int64_t size, int64_t depth)
{
	hooks_log *l = ctx;
	if (l->batches < 64) {
		l->batch_size[l->batches] = size;
		l->queue_depth[l->batches] = depth;
	}
	l->batches++;
}

static int
log_event(void *ctx, void *slot, int64_t s, bool eob)
{
	hooks_log *l = ctx;
	if (l->events == 0)
		l->event_order_first = atomic_fetch_add(&l->order, 1);
	if (l->events < 64) {
		l->seen[l->events] = *(int64_t *)slot == s ? s : -1000 - s;
		l->eob[l->events] = eob;
		l->seq_during[l->events] = sr_sequence_get(sr_processor_sequence(l->self));
	}
	l->events++;
	return 0;
}

/* A processor over f whose handler records every hook into l, gating f's sequencer. */
static sr_processor *
recording_processor(fixture *f, hooks_log *l, int64_t max_batch)
{
	memset(l, 0, sizeof *l);
	sr_handler h = { .ctx = l, .on_event = log_event, .on_start = log_start,
	    .on_shutdown = log_shutdown, .on_batch_start = log_batch_start };
	sr_processor_config c = { .ring = f->ring, .sequencer = f->seq, .handler = h,
	    .max_batch_size = max_batch };
	sr_processor *p = sr_processor_create(&c, NULL);
	cr_assert_not_null(p);
	l->self = p;
	sr_sequencer_add_gating(f->seq, sr_processor_sequence(p));
	return p;
}

static void
run_batches(int64_t max_batch, int events, hooks_log *l, int64_t initial)
{
	fixture f = make(64, SR_PRODUCER_SINGLE, "block", initial);
	sr_processor *p = recording_processor(&f, l, max_batch);
	cr_assert_eq(sr_sequence_get(sr_processor_sequence(p)), initial,
	    "a processor starts at the sequencer's initial sequence");
	publish_values(&f, events); /* all there before the start: batches are deterministic */
	cr_assert_eq(sr_processor_start(p, NULL), SR_OK);
	cr_assert(wait_until_sequence(p, initial + events), "processor stuck");
	cr_assert_eq(sr_processor_drain_and_halt(p), SR_OK);
	cr_assert_eq(sr_processor_join(p), SR_OK);
	cr_assert_eq(sr_processor_state_get(p), SR_PROCESSOR_HALTED);
	sr_processor_destroy(p);
	unmake(&f);
}

Test(processor, one_batch_ends_with_end_of_batch_and_one_sequence_update)
{
	hooks_log l;
	run_batches(0, 10, &l, -1);
	cr_assert_eq(l.events, 10);
	cr_assert_eq(l.batches, 1, "10 available events, unbounded batch: one batch, got %d", l.batches);
	cr_assert_eq(l.batch_size[0], 10);
	cr_assert_eq(l.queue_depth[0], 10);
	for (int i = 0; i < 10; i++) {
		cr_assert_eq(l.seen[i], i, "event %d: %lld", i, (long long)l.seen[i]);
		cr_assert_eq(l.eob[i], i == 9, "end_of_batch at %d is %d", i, l.eob[i]);
		cr_assert_eq(l.seq_during[i], -1, "the sequence moved mid-batch, at %d", i);
	}
	cr_assert_eq(l.starts, 1);
	cr_assert_eq(l.shutdowns, 1);
	cr_assert_lt(l.started_at, l.event_order_first, "on_start runs before any event");
	cr_assert_gt(l.shutdown_at, l.event_order_first, "on_shutdown runs last");
}

Test(processor, max_batch_size_splits_batches)
{
	hooks_log l;
	run_batches(4, 10, &l, -1);
	cr_assert_eq(l.events, 10);
	cr_assert_eq(l.batches, 3, "10 events in batches of at most 4: %d batches", l.batches);
	int64_t sizes[] = { 4, 4, 2 }, depths[] = { 10, 6, 2 };
	for (int b = 0; b < 3; b++) {
		cr_assert_eq(l.batch_size[b], sizes[b], "batch %d size %lld", b, (long long)l.batch_size[b]);
		cr_assert_eq(l.queue_depth[b], depths[b], "batch %d depth %lld", b, (long long)l.queue_depth[b]);
	}
	for (int i = 0; i < 10; i++) {
		cr_assert_eq(l.seen[i], i);
		cr_assert_eq(l.eob[i], i == 3 || i == 7 || i == 9, "end_of_batch at %d is %d", i, l.eob[i]);
		/* The sequence is updated once per batch: to the previous batch's end. */
		int64_t expect = i < 4 ? -1 : i < 8 ? 3 : 7;
		cr_assert_eq(l.seq_during[i], expect, "event %d saw the sequence at %lld", i,
		    (long long)l.seq_during[i]);
	}

	run_batches(1, 5, &l, -1);
	cr_assert_eq(l.batches, 5);
	for (int i = 0; i < 5; i++) {
		cr_assert(l.eob[i], "batch size 1: every event ends its batch");
		cr_assert_eq(l.seq_during[i], i - 1);
	}
}

Test(processor, batches_near_2_pow_62)
{
	hooks_log l;
	int64_t start = (INT64_C(1) << 62) - 5;
	run_batches(4, 10, &l, start);
	cr_assert_eq(l.events, 10);
	for (int i = 0; i < 10; i++)
		cr_assert_eq(l.seen[i], start + 1 + i, "event %d: %lld", i, (long long)l.seen[i]);
	cr_assert(l.eob[3] && l.eob[7] && l.eob[9]);
}

/* sr_processor_run, for sc_background. */
static int
run_processor(void *p)
{
	return sr_processor_run(p);
}

Test(processor, start_twice_and_other_state_errors, .timeout = 30)
{
	fixture f = make(8, SR_PRODUCER_SINGLE, "block", -1);
	hooks_log l;
	sr_processor *p = recording_processor(&f, &l, 0);
	sr_error err;

	cr_assert_eq(sr_processor_start(NULL, &err), SR_EINVAL);
	cr_assert_eq(sr_processor_run(NULL), SR_EINVAL);
	cr_assert_eq(sr_processor_join(NULL), SR_EINVAL);
	cr_assert_eq(sr_processor_drain_and_halt(NULL), SR_EINVAL);
	sr_processor_halt(NULL);
	cr_assert_eq(sr_processor_join(p), SR_ESTATE, "join before start");
	cr_assert_eq(sr_processor_drain_and_halt(p), SR_ESTATE, "drain before start");

	cr_assert_eq(sr_processor_start(p, &err), SR_OK, "%s", err.message);
	cr_assert_eq(sr_processor_state_get(p), SR_PROCESSOR_RUNNING);
	sr_error_clear(&err);
	cr_assert_eq(sr_processor_start(p, &err), SR_ESTATE, "start twice");
	cr_assert_eq(err.code, SR_ESTATE);
	cr_assert(strstr(err.message, "already running") != NULL, "%s", err.message);
	cr_assert_eq(sr_processor_run(p), SR_ESTATE, "run while started");

	publish_values(&f, 3);
	cr_assert(wait_until_sequence(p, 2));
	sr_processor_halt(p);
	cr_assert_eq(sr_processor_join(p), SR_OK);
	cr_assert_eq(sr_processor_state_get(p), SR_PROCESSOR_HALTED);
	cr_assert_eq(l.events, 3);
	cr_assert_eq(l.starts, 1);
	cr_assert_eq(l.shutdowns, 1);
	cr_assert_eq(sr_processor_join(p), SR_ESTATE, "join twice");
	cr_assert_eq(sr_processor_drain_and_halt(p), SR_ESTATE, "drain of a halted processor");
	cr_assert_eq(sr_processor_drain_and_halt_timeout(p, -1), SR_EINVAL, "negative timeout");
	sr_processor_destroy(p);
	unmake(&f);
}

Test(processor, run_in_the_calling_thread, .timeout = 30)
{
	fixture f = make(8, SR_PRODUCER_MULTI, "liteblock", -1);
	hooks_log l;
	sr_processor *p = recording_processor(&f, &l, 0);
	sc_background run;
	sc_background_start(&run, run_processor, p);
	while (sr_processor_state_get(p) != SR_PROCESSOR_RUNNING)
		sched_yield();
	cr_assert_eq(sr_processor_run(p), SR_ESTATE, "run twice");
	cr_assert_eq(sr_processor_start(p, NULL), SR_ESTATE, "start while running");
	publish_values(&f, 20);
	cr_assert(wait_until_sequence(p, 19));
	cr_assert_eq(sr_processor_drain_and_halt(p), SR_OK);
	cr_assert_eq(sc_background_join(&run), SR_OK);
	cr_assert_eq(l.events, 20);
	cr_assert_eq(sr_processor_join(p), SR_ESTATE, "run made no thread to join");
	cr_assert_eq(sr_processor_state_get(p), SR_PROCESSOR_HALTED);
	sr_processor_destroy(p);
	unmake(&f);
}

/* ---- halt --------------------------------------------------------------- */

Test(processor, halt_while_waiting_in_every_strategy, .timeout = 60)
{
	for (int k = 0; k < SC_STRATEGY_COUNT; k++) {
		for (int m = 0; m < 2; m++) {
			enum sr_producer_mode mode = m ? SR_PRODUCER_MULTI : SR_PRODUCER_SINGLE;
			sc_result r = sc_halt_while_waiting(sc_strategies[k], mode);
			cr_assert(r.ok, "%s: %s", sc_strategies[k], r.message);
			cr_assert_eq(r.n[0], 1, "on_start calls");
			cr_assert_eq(r.n[1], 1, "on_shutdown calls");
			cr_assert_eq(r.events, 0);
		}
	}
}

typedef struct gated {
	atomic_int open;
	atomic_int entered;
	int64_t handled;
	int64_t last;
} gated;

static int
gated_event(void *ctx, void *slot, int64_t s, bool eob)
{
	(void)slot; (void)eob;
	gated *g = ctx;
	atomic_store(&g->entered, 1);
	while (!atomic_load(&g->open))
		sc_sleep_ns(100 * 1000);
	g->handled++;
	g->last = s;
	return 0;
}

Test(processor, halt_finishes_the_current_batch_and_takes_no_more, .timeout = 30)
{
	fixture f = make(64, SR_PRODUCER_SINGLE, "block", -1);
	gated g = { .last = -1 };
	atomic_init(&g.open, 0);
	atomic_init(&g.entered, 0);
	sr_handler h = { .ctx = &g, .on_event = gated_event };
	sr_processor_config c = { .ring = f.ring, .sequencer = f.seq, .handler = h, .max_batch_size = 10 };
	sr_processor *p = sr_processor_create(&c, NULL);
	sr_sequencer_add_gating(f.seq, sr_processor_sequence(p));
	publish_values(&f, 50);
	cr_assert_eq(sr_processor_start(p, NULL), SR_OK);
	while (!atomic_load(&g.entered))
		sched_yield();
	sr_processor_halt(p); /* inside the batch 0..9 */
	atomic_store(&g.open, 1);
	cr_assert_eq(sr_processor_join(p), SR_OK);
	cr_assert_eq(g.handled, 10, "halt mid-batch: the batch of 10 completes, then it stops (%lld)",
	    (long long)g.handled);
	cr_assert_eq(g.last, 9);
	cr_assert_eq(sr_sequence_get(sr_processor_sequence(p)), 9);
	sr_processor_destroy(p);
	unmake(&f);
}

/* ---- drain then halt ------------------------------------------------------ */

Test(processor, drain_and_halt_handles_everything_published_before_it, .timeout = 60)
{
	const char *waits[] = { "block", "liteblock", "yield", "timeout" };
	for (int w = 0; w < 4; w++) {
		sc_result r = sc_drain(SR_PRODUCER_SINGLE, 1, 20000, waits[w]);
		cr_assert(r.ok, "SP %s: %s", waits[w], r.message);
		cr_assert_eq(r.events, 20000);
		r = sc_drain(SR_PRODUCER_MULTI, 3, 5000, waits[w]);
		cr_assert(r.ok, "MP %s: %s", waits[w], r.message);
		cr_assert_eq(r.events, 15000);
	}
}

/* ---- handler errors -------------------------------------------------------- */

typedef struct failing {
	int64_t fail_at[4];
	int nfail;
	int error;
	enum sr_error_action action;
	int64_t events;
	int64_t last;
	int errors;
	int64_t err_seq[8];
	int err_code[8];
	bool err_slot_ok[8];
	sr_ring *ring;
	atomic_int shutdown;
} failing;

static int
failing_event(void *ctx, void *slot, int64_t s, bool eob)
{
	(void)slot; (void)eob;
	failing *f = ctx;
	f->events++;
	f->last = s;
	for (int i = 0; i < f->nfail; i++)
		if (f->fail_at[i] == s)
			return f->error;
	return 0;
}

static enum sr_error_action
failing_on_error(void *ctx, int error, int64_t s, void *slot)
{
	failing *f = ctx;
	if (f->errors < 8) {
		f->err_seq[f->errors] = s;
		f->err_code[f->errors] = error;
		f->err_slot_ok[f->errors] = slot == sr_ring_slot(f->ring, s) && *(int64_t *)slot == s;
	}
	f->errors++;
	return f->action;
}

static void
failing_shutdown(void *ctx)
{
	failing *f = ctx;
	atomic_store(&f->shutdown, 1);
}

static sr_processor *
failing_processor(fixture *fx, failing *f, bool with_on_error)
{
	f->ring = fx->ring;
	f->last = -1;
	atomic_init(&f->shutdown, 0);
	sr_handler h = { .ctx = f, .on_event = failing_event, .on_shutdown = failing_shutdown,
	    .on_error = with_on_error ? failing_on_error : NULL };
	sr_processor_config c = { .ring = fx->ring, .sequencer = fx->seq, .handler = h };
	sr_processor *p = sr_processor_create(&c, NULL);
	cr_assert_not_null(p);
	sr_sequencer_add_gating(fx->seq, sr_processor_sequence(p));
	return p;
}

Test(processor, handler_errors_skip_and_continue, .timeout = 30)
{
	fixture fx = make(16, SR_PRODUCER_SINGLE, "block", -1);
	failing f = { .fail_at = { 3, 7 }, .nfail = 2, .error = 5, .action = SR_ERROR_SKIP };
	sr_processor *p = failing_processor(&fx, &f, true);
	publish_values(&fx, 10);
	cr_assert_eq(sr_processor_start(p, NULL), SR_OK);
	cr_assert(wait_until_sequence(p, 9), "SKIP: the processor did not go on past the errors");
	/* Still running: more events are handled. */
	publish_values(&fx, 2);
	cr_assert(wait_until_sequence(p, 11));
	cr_assert_eq(sr_processor_state_get(p), SR_PROCESSOR_RUNNING);
	cr_assert_eq(sr_processor_drain_and_halt(p), SR_OK);
	sr_processor_join(p);
	cr_assert_eq(f.events, 12);
	cr_assert_eq(f.errors, 2);
	cr_assert_eq(f.err_seq[0], 3);
	cr_assert_eq(f.err_seq[1], 7);
	cr_assert_eq(f.err_code[0], 5, "on_error gets the handler's error");
	cr_assert(f.err_slot_ok[0] && f.err_slot_ok[1], "on_error gets the failing event's slot");
	sr_processor_destroy(p);
	unmake(&fx);
}

Test(processor, handler_error_halt_stops_the_processor, .timeout = 30)
{
	fixture fx = make(16, SR_PRODUCER_SINGLE, "liteblock", -1);
	failing f = { .fail_at = { 3 }, .nfail = 1, .error = SR_EIO, .action = SR_ERROR_HALT };
	sr_processor *p = failing_processor(&fx, &f, true);
	publish_values(&fx, 10);
	cr_assert_eq(sr_processor_start(p, NULL), SR_OK);
	int64_t until = sc_now() + 10 * SC_S;
	while (sr_processor_state_get(p) != SR_PROCESSOR_HALTED && sc_now() < until)
		sc_sleep_ns(100 * 1000);
	cr_assert_eq(sr_processor_state_get(p), SR_PROCESSOR_HALTED, "HALT did not stop the processor");
	cr_assert_eq(sr_processor_join(p), SR_OK);
	cr_assert_eq(f.events, 4, "events after the failing one were handled (%lld)", (long long)f.events);
	cr_assert_eq(f.last, 3);
	cr_assert_eq(f.errors, 1);
	cr_assert_eq(f.err_seq[0], 3);
	cr_assert_eq(f.err_code[0], SR_EIO);
	cr_assert_eq(sr_sequence_get(sr_processor_sequence(p)), 3,
	    "the failing event counts as handled, the rest do not");
	cr_assert(atomic_load(&f.shutdown), "on_shutdown runs after an error halt");
	cr_assert_eq(sr_sequencer_remaining_capacity(fx.seq), 16 - (9 - 3));
	sr_processor_destroy(p);
	unmake(&fx);
	SC_ASSERT_NO_LEAKS();
}

Test(processor, default_error_handler_prints_and_continues, .timeout = 30)
{
	char path[] = "/tmp/seqring_stderr_XXXXXX";
	int fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	fflush(stderr);
	int saved = dup(2);
	dup2(fd, 2);

	fixture fx = make(16, SR_PRODUCER_SINGLE, "block", -1);
	failing f = { .fail_at = { 3 }, .nfail = 1, .error = SR_EIO };
	sr_processor *p = failing_processor(&fx, &f, false);
	publish_values(&fx, 10);
	cr_assert_eq(sr_processor_start(p, NULL), SR_OK);
	bool done = wait_until_sequence(p, 9);
	sr_processor_drain_and_halt(p);
	sr_processor_join(p);

	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	char text[1024] = { 0 };
	ssize_t n = pread(fd, text, sizeof text - 1, 0);
	close(fd);
	unlink(path);
	cr_assert(done, "the default handler did not continue past the error");
	cr_assert_gt(n, 0, "nothing printed to stderr");
	cr_assert(strstr(text, "failed with -8 (write error) at sequence 3") != NULL,
	    "stderr: \"%s\"", text);
	cr_assert(strstr(text, "skipping") != NULL, "stderr: \"%s\"", text);
	cr_assert_eq(f.events, 10);
	sr_processor_destroy(p);
	unmake(&fx);
}

/* ---- consumer graphs ------------------------------------------------------ */

/* Every event through every stage once, in order, and no slot reused before the last stage is done. */
static void
expect_graph(enum sc_shape shape, enum sr_producer_mode mode, int producers, int64_t per_producer,
    int64_t ring_size, const char *wait, int64_t max_batch, int64_t initial)
{
	sc_result r = sc_graph(shape, mode, producers, per_producer, ring_size, wait, max_batch, initial);
	cr_assert(r.ok, "%s x%d, ring %lld, %s, from %lld: %s", mode == SR_PRODUCER_SINGLE ? "SP" : "MP",
	    producers, (long long)ring_size, wait, (long long)initial, r.message);
	cr_assert_eq(r.events, producers * per_producer);
	cr_assert_gt(r.n[0], 0, "no slot reuse was verified");
}

Test(processor, pipeline_a_b_c, .timeout = 60)
{
	expect_graph(SC_PIPELINE, SR_PRODUCER_SINGLE, 1, 100000, 64, "liteblock", 0, -1);
	expect_graph(SC_PIPELINE, SR_PRODUCER_MULTI, 3, 20000, 16, "block", 4, -1);
	expect_graph(SC_PIPELINE, SR_PRODUCER_SINGLE, 1, 20000, 8, "yield", 3, (INT64_C(1) << 62) - 50);
	SC_ASSERT_NO_LEAKS();
}

Test(processor, diamond_a_then_b_and_c_then_d, .timeout = 60)
{
	expect_graph(SC_DIAMOND, SR_PRODUCER_SINGLE, 1, 100000, 64, "liteblock", 0, -1);
	expect_graph(SC_DIAMOND, SR_PRODUCER_MULTI, 3, 20000, 16, "timeout", 5, -1);
	expect_graph(SC_DIAMOND, SR_PRODUCER_MULTI, 2, 10000, 8, "phased", 0, (INT64_C(1) << 62) - 50);
	SC_ASSERT_NO_LEAKS();
}

/* ---- the multi-producer figure of the issue --------------------------------- */

/* Four producers, one consumer: every event exactly once, in each producer's order. */
static sc_result
four_producers(const sc_mp_params *p)
{
	sc_result r = sc_multi_producer(p);
	cr_assert(r.ok, "%s", r.message);
	cr_assert_eq(r.events, 4 * p->per_producer);
	return r;
}

Test(processor, four_producers_a_million_each_exactly_once_in_order, .timeout = 120)
{
	sc_result r = four_producers(&(sc_mp_params){
		.producers = 4, .per_producer = 1000000, .ring_size = 1024, .wait = "liteblock",
		.synchronize = true, .max_claim = 1, .initial_sequence = -1, .seed = 3,
	});
	cr_assert_eq(r.n[0], 3999999);
}

Test(processor, multi_producer_with_claim_n_and_publish_range, .timeout = 60)
{
	four_producers(&(sc_mp_params){
		.producers = 4, .per_producer = 50000, .ring_size = 32, .wait = "block",
		.synchronize = false, .max_claim = 4, .initial_sequence = -1, .seed = 4,
	});
}

/* ---- restart, bounded drain ------------------------------------------- */

Test(processor, a_halted_processor_restarts_where_it_stopped, .timeout = 30)
{
	fixture f = make(16, SR_PRODUCER_SINGLE, "block", -1);
	hooks_log l;
	sr_processor *p = recording_processor(&f, &l, 0);
	sr_error err;
	cr_assert_eq(sr_processor_start(p, &err), SR_OK, "%s", err.message);
	publish_values(&f, 3);
	cr_assert(wait_until_sequence(p, 2));
	sr_processor_halt(p);
	cr_assert_eq(sr_processor_join(p), SR_OK);
	cr_assert_eq(sr_processor_state_get(p), SR_PROCESSOR_HALTED);

	/* Published while halted: the restarted processor takes them next. */
	publish_values(&f, 2);
	cr_assert_eq(sr_processor_start(p, &err), SR_OK, "restart: %s", err.message);
	cr_assert_eq(sr_processor_state_get(p), SR_PROCESSOR_RUNNING);
	cr_assert(wait_until_sequence(p, 4));
	/* Halted again, not joined: a start joins the finished thread itself. */
	sr_processor_halt(p);
	int64_t until = sc_now() + 10 * SC_S;
	while (sr_processor_state_get(p) != SR_PROCESSOR_HALTED && sc_now() < until)
		sc_sleep_ns(SC_MS);
	cr_assert_eq(sr_processor_start(p, &err), SR_OK, "restart unjoined: %s", err.message);
	publish_values(&f, 1);
	cr_assert(wait_until_sequence(p, 5));
	cr_assert_eq(sr_processor_drain_and_halt(p), SR_OK);
	cr_assert_eq(sr_processor_join(p), SR_OK);

	cr_assert_eq(l.events, 6, "each event once across three runs, got %d", l.events);
	for (int i = 0; i < 6; i++)
		cr_assert_eq(l.seen[i], i, "event %d: saw %lld", i, (long long)l.seen[i]);
	cr_assert_eq(l.starts, 3);
	cr_assert_eq(l.shutdowns, 3);

	/* run() in this thread restarts it too (until halted from elsewhere). */
	sc_background run;
	sc_background_start(&run, run_processor, p);
	publish_values(&f, 1);
	cr_assert(wait_until_sequence(p, 6));
	sr_processor_halt(p);
	cr_assert_eq(sc_background_join(&run), SR_OK);
	cr_assert_eq(l.events, 7);
	sr_processor_destroy(p);
	unmake(&f);
}

/*
 * A halt while idle (a shutdown racing a startup) ends the next run at
 * once, as the Disruptor's run() exits at once after an earlier halt():
 * on_start, on_shutdown, no event, halted.  The halt is then spent: the run
 * after it handles events as usual.  The same for a halt between two runs.
 * A join that hangs fails by the test's timeout.
 */
Test(processor, a_halt_before_the_start_ends_the_next_run_at_once, .timeout = 30)
{
	fixture f = make(16, SR_PRODUCER_SINGLE, "block", -1);
	hooks_log l;
	sr_processor *p = recording_processor(&f, &l, 0);
	sr_error err;
	publish_values(&f, 3);
	sr_processor_halt(p);
	cr_assert_eq(sr_processor_state_get(p), SR_PROCESSOR_IDLE, "a halt does not start it");
	cr_assert_eq(sr_processor_start(p, &err), SR_OK, "%s", err.message);
	int64_t until = sc_now() + 10 * SC_S;
	while (sr_processor_state_get(p) != SR_PROCESSOR_HALTED && sc_now() < until)
		sc_sleep_ns(SC_MS);
	cr_assert_eq(sr_processor_state_get(p), SR_PROCESSOR_HALTED,
	    "halted before its start, the processor was still running 10 s after it");
	cr_assert_eq(sr_processor_join(p), SR_OK);
	cr_assert_eq(l.starts, 1);
	cr_assert_eq(l.shutdowns, 1);
	cr_assert_eq(l.events, 0, "a run ended by an earlier halt handles nothing");
	cr_assert_eq(sr_sequence_get(sr_processor_sequence(p)), -1);

	/* Spent: the next start runs and handles what was published. */
	cr_assert_eq(sr_processor_start(p, &err), SR_OK, "%s", err.message);
	cr_assert(wait_until_sequence(p, 2));
	sr_processor_halt(p);
	cr_assert_eq(sr_processor_join(p), SR_OK);
	cr_assert_eq(l.events, 3);
	cr_assert_eq(l.starts, 2);

	/* A halt between two runs stands as well: the next run ends at once, the one after runs. */
	sr_processor_halt(p);
	publish_values(&f, 2);
	cr_assert_eq(sr_processor_start(p, &err), SR_OK, "%s", err.message);
	cr_assert_eq(sr_processor_join(p), SR_OK, "the run ends without another halt");
	cr_assert_eq(l.starts, 3);
	cr_assert_eq(l.shutdowns, 3);
	cr_assert_eq(l.events, 3, "a run ended by an earlier halt handles nothing");
	cr_assert_eq(sr_processor_start(p, &err), SR_OK, "%s", err.message);
	cr_assert(wait_until_sequence(p, 4));
	sr_processor_halt(p);
	cr_assert_eq(sr_processor_join(p), SR_OK);
	cr_assert_eq(l.events, 5);
	cr_assert_eq(sr_sequencer_remove_gating(f.seq, sr_processor_sequence(p)), SR_OK);
	sr_processor_destroy(p);

	/* sr_processor_run in the calling thread returns at once after a halt while idle. */
	p = recording_processor(&f, &l, 0);
	sr_processor_halt(p);
	cr_assert_eq(sr_processor_run(p), SR_OK);
	cr_assert_eq(sr_processor_state_get(p), SR_PROCESSOR_HALTED);
	cr_assert_eq(l.starts, 1);
	cr_assert_eq(l.shutdowns, 1);
	cr_assert_eq(l.events, 0);
	sr_processor_destroy(p);
	unmake(&f);
}

/* A handler that blocks until `release` is set: a stage that cannot progress. */
typedef struct stuck {
	atomic_int release;
	atomic_int entered;
	int64_t events;
} stuck;

static int
stuck_event(void *ctx, void *slot, int64_t s, bool eob)
{
	stuck *st = ctx;
	(void)slot, (void)s, (void)eob;
	atomic_store(&st->entered, 1);
	while (!atomic_load(&st->release))
		sc_sleep_ns(100 * 1000);
	st->events++;
	return 0;
}

Test(processor, drain_and_halt_timeout_gives_up_and_leaves_it_running, .timeout = 30)
{
	fixture f = make(16, SR_PRODUCER_SINGLE, "block", -1);
	stuck st = { 0 };
	sr_processor_config c = { .ring = f.ring, .sequencer = f.seq,
	    .handler = { .ctx = &st, .on_event = stuck_event } };
	sr_processor *p = sr_processor_create(&c, NULL);
	cr_assert_not_null(p);
	sr_sequencer_add_gating(f.seq, sr_processor_sequence(p));
	cr_assert_eq(sr_processor_start(p, NULL), SR_OK);
	publish_values(&f, 4);
	while (!atomic_load(&st.entered))
		sc_sleep_ns(SC_MS);

	int64_t t0 = sc_now();
	cr_assert_eq(sr_processor_drain_and_halt_timeout(p, 200 * SC_MS), SR_ETIMEDOUT);
	int64_t waited = sc_now() - t0;
	cr_assert(waited >= 200 * SC_MS && waited < 5 * SC_S, "waited %lld ns", (long long)waited);
	cr_assert_eq(sr_processor_state_get(p), SR_PROCESSOR_RUNNING, "left running");

	atomic_store(&st.release, 1);
	cr_assert_eq(sr_processor_drain_and_halt_timeout(p, 10 * SC_S), SR_OK);
	cr_assert_eq(sr_processor_join(p), SR_OK);
	cr_assert_eq(st.events, 4, "everything published before the drain was handled");
	sr_processor_destroy(p);
	unmake(&f);
}

/*
 * Several producers: 3 claimed but not yet published, 4..6 published.  The
 * drain's target is the cursor (the highest claimed), as the Disruptor's
 * shutdown compares against it: the drain times out instead of reporting
 * drained with 4..6 published and not handled.
 */
Test(processor, drain_waits_for_a_claim_not_yet_published, .timeout = 60)
{
	fixture f = make(16, SR_PRODUCER_MULTI, "block", -1);
	hooks_log l;
	sr_processor *p = recording_processor(&f, &l, 0);
	sr_error err;
	cr_assert_eq(sr_processor_start(p, &err), SR_OK, "%s", err.message);
	publish_values(&f, 3);
	cr_assert(wait_until_sequence(p, 2));
	int64_t held;
	cr_assert_eq(sr_sequencer_claim(f.seq, &held), SR_OK);
	cr_assert_eq(held, 3);
	publish_values(&f, 3); /* 4, 5, 6 */

	cr_assert_eq(sr_processor_drain_and_halt_timeout(p, 100 * SC_MS), SR_ETIMEDOUT,
	    "drain with sequence 3 claimed and not published, 4..6 published: expected SR_ETIMEDOUT");
	cr_assert_eq(sr_processor_state_get(p), SR_PROCESSOR_RUNNING, "a timed-out drain leaves it running");
	cr_assert_eq(l.events, 3, "handled %lld before 3 was published", (long long)l.events);

	*(int64_t *)sr_ring_slot(f.ring, held) = held;
	sr_sequencer_publish(f.seq, held);
	cr_assert_eq(sr_processor_drain_and_halt_timeout(p, 10 * SC_S), SR_OK);
	cr_assert_eq(sr_processor_join(p), SR_OK);
	cr_assert_eq(l.events, 7, "everything published before the drain was handled, got %lld",
	    (long long)l.events);
	for (int i = 0; i < 7; i++)
		cr_assert_eq(l.seen[i], i, "event %d: saw %lld", i, (long long)l.seen[i]);
	sr_processor_destroy(p);
	unmake(&f);
}

/* ---- skipped slots, early release, rewind ------------------------------ */

typedef struct trace {
	int64_t seen[64];     /* sequence, or -1 - sequence for a skip */
	bool eob[64];
	int n;
	sr_sequence *own;     /* from set_sequence_callback */
	int64_t release_every;
	int64_t fail_at;      /* rewind requests at this sequence ... */
	int fails_left;       /* ... this many times */
	int errors;
	int64_t error_at;
	int error_code;
} trace;

static void
trace_add(trace *t, int64_t v, bool eob)
{
	if (t->n < 64) {
		t->seen[t->n] = v;
		t->eob[t->n] = eob;
	}
	t->n++;
}

static int
trace_event(void *ctx, void *slot, int64_t s, bool eob)
{
	trace *t = ctx;
	(void)slot;
	if (s == t->fail_at && t->fails_left > 0) {
		t->fails_left--;
		trace_add(t, 1000 + s, eob);
		return SR_EVENT_REWIND;
	}
	trace_add(t, s, eob);
	if (t->release_every > 0 && (s + 1) % t->release_every == 0)
		sr_sequence_set(t->own, s);
	return 0;
}

static void
trace_skip(void *ctx, int64_t s, bool eob)
{
	trace_add(ctx, -1 - s, eob);
}

static void
trace_callback(void *ctx, sr_sequence *own)
{
	((trace *)ctx)->own = own;
}

static enum sr_error_action
trace_error(void *ctx, int error, int64_t s, void *slot)
{
	trace *t = ctx;
	(void)slot;
	t->errors++;
	t->error_at = s;
	t->error_code = error;
	return SR_ERROR_SKIP;
}

static int
write_or_fail(void *ctx, void *slot, int64_t s, int64_t index)
{
	const int64_t *fail = ctx;
	if (s == *fail)
		return SR_EIO;
	*(int64_t *)slot = s;
	(void)index;
	return 0;
}

static sr_processor *
trace_processor(fixture *f, trace *t, sr_rewind_strategy rewind)
{
	sr_handler h = { .ctx = t, .on_event = trace_event, .on_skip = trace_skip,
	    .set_sequence_callback = trace_callback, .on_error = trace_error };
	sr_processor_config c = { .ring = f->ring, .sequencer = f->seq, .handler = h,
	    .rewind = rewind };
	sr_processor *p = sr_processor_create(&c, NULL);
	cr_assert_not_null(p);
	sr_sequencer_add_gating(f->seq, sr_processor_sequence(p));
	return p;
}

Test(processor, a_failed_writer_publishes_a_skipped_slot_and_the_handler_is_told, .timeout = 30)
{
	fixture f = make(16, SR_PRODUCER_MULTI, "block", -1);
	trace t = { .fail_at = -100 };
	sr_processor *p = trace_processor(&f, &t, (sr_rewind_strategy){ 0 });
	int64_t fail = 2, first;
	/* 0, 1 in one batch; 2 fails, so 2 and 3 are skipped; then 4 alone, 5 fails alone. */
	cr_assert_eq(sr_publish_events_until(f.seq, f.ring, 2, SR_DEADLINE_NONE, write_or_fail, &fail,
	    &first), SR_OK);
	cr_assert_eq(first, 0);
	cr_assert_eq(sr_publish_events_until(f.seq, f.ring, 2, SR_DEADLINE_NONE, write_or_fail, &fail,
	    &first), SR_EIO, "the writer's error is returned");
	cr_assert_eq(first, 2);
	cr_assert_eq(sr_publish_event(f.seq, f.ring, write_or_fail, &fail), SR_OK);
	fail = 5;
	cr_assert_eq(sr_try_publish_event(f.seq, f.ring, write_or_fail, &fail), SR_EIO);
	cr_assert(sr_sequencer_is_skipped(f.seq, 2) && sr_sequencer_is_skipped(f.seq, 3) &&
	    sr_sequencer_is_skipped(f.seq, 5) && !sr_sequencer_is_skipped(f.seq, 4));
	/* Everything claimed was published: the cursor, and what the consumer gets. */
	cr_assert_eq(sr_sequencer_highest_published(f.seq, 0, sr_sequencer_cursor(f.seq)), 5);

	cr_assert_eq(sr_processor_start(p, NULL), SR_OK);
	cr_assert_eq(sr_processor_drain_and_halt_timeout(p, 10 * SC_S), SR_OK);
	cr_assert_eq(sr_processor_join(p), SR_OK);
	int64_t expect[] = { 0, 1, -3, -4, 4, -6 };
	cr_assert_eq(t.n, 6);
	for (int i = 0; i < 6; i++)
		cr_assert_eq(t.seen[i], expect[i], "entry %d: %lld", i, (long long)t.seen[i]);
	cr_assert(t.eob[5], "a skipped last event ends the batch");
	cr_assert_eq(t.errors, 0);

	/* Lap the ring: an old mark does not skip the slot's new sequence (18 = 2 + 16). */
	fail = -1;
	for (int i = 0; i < 14; i++)
		cr_assert_eq(sr_publish_event(f.seq, f.ring, write_or_fail, &fail), SR_OK);
	cr_assert(!sr_sequencer_is_skipped(f.seq, 18) && sr_sequencer_is_skipped(f.seq, 2));
	cr_assert_eq(sr_publish_events_until(NULL, f.ring, 1, SR_DEADLINE_NOW, write_or_fail, &fail,
	    &first), SR_EINVAL);
	cr_assert_eq(first, INT64_MIN, "nothing claimed");
	cr_assert_eq(sr_publish_events_until(f.seq, f.ring, 17, SR_DEADLINE_NOW, write_or_fail, &fail,
	    NULL), SR_EINVAL, "n beyond the ring's size");
	sr_processor_destroy(p);
	unmake(&f);
}

/*
 * A progress sequence of the caller's (placed in a mapping shared with
 * other processes, say), preset to 9: the processor takes it as it stands
 * and starts at 10, hands it to set_sequence_callback, records its progress
 * there, and a producer gated on it waits for it.
 */
Test(processor, an_external_sequence_is_used_as_it_stands, .timeout = 30)
{
	fixture f = make(8, SR_PRODUCER_SINGLE, "block", -1);
	publish_values(&f, 10); /* 0..9, before anything gates the producer */
	sr_sequence external;
	sr_sequence_init(&external, 9);
	trace t = { .fail_at = -100 };
	sr_processor_config c = { .ring = f.ring, .sequencer = f.seq, .sequence = &external,
	    .handler = { .ctx = &t, .on_event = trace_event, .set_sequence_callback = trace_callback } };
	sr_error err;
	sr_processor *p = sr_processor_create(&c, &err);
	cr_assert_not_null(p, "%s", err.message);
	cr_assert_eq(sr_processor_sequence(p), &external, "the sequence in use is the one given");
	cr_assert_eq(t.own, &external, "set_sequence_callback is given it");
	cr_assert_eq(sr_sequence_get(&external), 9, "its value is not reset");
	cr_assert_eq(sr_sequencer_add_gating(f.seq, sr_processor_sequence(p)), SR_OK);

	/* Gated on 9: a producer claims 10..17, the ring's 8 slots, and no more. */
	int64_t s;
	int claimed = 0;
	while (sr_sequencer_try_claim(f.seq, &s) == SR_OK) {
		*(int64_t *)sr_ring_slot(f.ring, s) = s;
		sr_sequencer_publish(f.seq, s);
		claimed++;
	}
	cr_assert_eq(claimed, 8, "gated on an external sequence at 9, claimed %d, expected 8", claimed);

	cr_assert_eq(sr_processor_start(p, &err), SR_OK, "%s", err.message);
	cr_assert(wait_until_sequence(p, 17));
	cr_assert_eq(sr_sequence_get(&external), 17, "the progress is recorded in the external sequence");
	cr_assert_eq(t.n, 8, "handled %d events, expected 10..17", t.n);
	for (int i = 0; i < 8; i++)
		cr_assert_eq(t.seen[i], 10 + i, "event %d: %lld, expected %d", i, (long long)t.seen[i], 10 + i);
	/* Its progress frees the producer. */
	cr_assert_eq(sr_sequencer_try_claim(f.seq, &s), SR_OK);
	cr_assert_eq(s, 18);
	*(int64_t *)sr_ring_slot(f.ring, s) = s;
	sr_sequencer_publish(f.seq, s);
	cr_assert_eq(sr_processor_drain_and_halt_timeout(p, 10 * SC_S), SR_OK);
	cr_assert_eq(sr_processor_join(p), SR_OK);
	cr_assert_eq(sr_sequence_get(&external), 18);
	cr_assert_eq(sr_sequencer_remove_gating(f.seq, &external), SR_OK);
	sr_processor_destroy(p);
	cr_assert_eq(sr_sequence_get(&external), 18, "the external sequence outlives the processor");
	unmake(&f);
}

/* Releases every second event early; holds the batch open at hold_at until told. */
typedef struct releaser {
	sr_sequence *own;
	sr_sequencer *seq;
	int64_t capacity[8];   /* what producers could claim when event s began */
	int64_t hold_at;
	atomic_int holding, go_on;
	int n;
} releaser;

static int
release_event(void *ctx, void *slot, int64_t s, bool eob)
{
	releaser *r = ctx;
	(void)slot, (void)eob;
	if (s < 8)
		r->capacity[s] = sr_sequencer_remaining_capacity(r->seq);
	if (s == r->hold_at) {
		atomic_store(&r->holding, 1);
		while (!atomic_load(&r->go_on))
			sc_sleep_ns(100 * 1000);
	}
	if (s % 2 == 1)
		sr_sequence_set(r->own, s); /* finished with everything up to s */
	r->n++;
	return 0;
}

static void
release_callback(void *ctx, sr_sequence *own)
{
	((releaser *)ctx)->own = own;
}

Test(processor, early_release_frees_slots_before_the_batch_ends, .timeout = 30)
{
	fixture f = make(8, SR_PRODUCER_SINGLE, "block", -1);
	releaser r = { .seq = f.seq, .hold_at = 4 };
	sr_processor_config c = { .ring = f.ring, .sequencer = f.seq,
	    .handler = { .ctx = &r, .on_event = release_event,
	    .set_sequence_callback = release_callback } };
	sr_processor *p = sr_processor_create(&c, NULL);
	cr_assert_not_null(p);
	cr_assert_eq(r.own, sr_processor_sequence(p), "set_sequence_callback at creation");
	sr_sequencer_add_gating(f.seq, sr_processor_sequence(p));
	publish_values(&f, 8); /* the ring is full: one batch of 8 */
	cr_assert_eq(sr_sequencer_remaining_capacity(f.seq), 0);
	cr_assert_eq(sr_processor_start(p, NULL), SR_OK);
	while (!atomic_load(&r.holding))
		sc_sleep_ns(SC_MS);

	/* Mid-batch, at event 4, 0..3 are released: the producer claims 4 slots, not 5. */
	int64_t first;
	cr_assert_eq(sr_sequencer_try_claim_n(f.seq, 4, &first), SR_OK);
	cr_assert_eq(first, 8);
	int64_t more;
	cr_assert_eq(sr_sequencer_try_claim(f.seq, &more), SR_EFULL);
	for (int64_t s = first; s < first + 4; s++)
		*(int64_t *)sr_ring_slot(f.ring, s) = s;
	sr_sequencer_publish_range(f.seq, first, first + 3);
	atomic_store(&r.go_on, 1);
	cr_assert_eq(sr_processor_drain_and_halt_timeout(p, 10 * SC_S), SR_OK);
	cr_assert_eq(sr_processor_join(p), SR_OK);
	int64_t expect[8] = { 0, 0, 2, 2, 4, 4, 6, 6 };
	for (int s = 0; s < 4; s++)
		cr_assert_eq(r.capacity[s], expect[s], "capacity when event %d began: %lld", s,
		    (long long)r.capacity[s]);
	cr_assert_eq(r.n, 12);
	cr_assert_eq(sr_sequence_get(sr_processor_sequence(p)), 11);
	sr_processor_destroy(p);
	unmake(&f);
}

/* Three rewind requests at sequence 2 of the batch 0..3. */
static void
run_rewinds(sr_rewind_strategy rewind, trace *t)
{
	fixture f = make(8, SR_PRODUCER_SINGLE, "block", -1);
	*t = (trace){ .fail_at = 2, .fails_left = 3 };
	sr_processor *p = trace_processor(&f, t, rewind);
	publish_values(&f, 4);
	cr_assert_eq(sr_processor_start(p, NULL), SR_OK);
	cr_assert_eq(sr_processor_drain_and_halt_timeout(p, 10 * SC_S), SR_OK);
	cr_assert_eq(sr_processor_join(p), SR_OK);
	cr_assert_eq(sr_sequence_get(sr_processor_sequence(p)), 3);
	sr_processor_destroy(p);
	unmake(&f);
}

static void
expect_trace(const trace *t, const int64_t *expect, int n)
{
	cr_assert_eq(t->n, n, "entries: %d, expected %d", t->n, n);
	for (int i = 0; i < n; i++)
		cr_assert_eq(t->seen[i], expect[i], "entry %d: %lld, expected %lld", i,
		    (long long)t->seen[i], (long long)expect[i]);
}

Test(processor, rewind_replays_the_batch_until_the_limit_then_the_error_handler, .timeout = 30)
{
	trace t;
	/* Unlimited: three replays, then the fourth pass succeeds. */
	run_rewinds((sr_rewind_strategy){ .max_rewinds = -1 }, &t);
	int64_t always[] = { 0, 1, 1002, 0, 1, 1002, 0, 1, 1002, 0, 1, 2, 3 };
	expect_trace(&t, always, 13);
	cr_assert_eq(t.errors, 0);

	/* At most 2 replays: the third request goes to on_error, the batch goes on. */
	run_rewinds((sr_rewind_strategy){ .max_rewinds = 2, .pause_ns = 1000 }, &t);
	int64_t limited[] = { 0, 1, 1002, 0, 1, 1002, 0, 1, 1002, 3 };
	expect_trace(&t, limited, 10);
	cr_assert_eq(t.errors, 1);
	cr_assert_eq(t.error_at, 2);
	cr_assert_eq(t.error_code, SR_EVENT_REWIND);

	/* Not rewindable (the default): SR_EVENT_REWIND is an ordinary error. */
	run_rewinds((sr_rewind_strategy){ 0 }, &t);
	int64_t plain[] = { 0, 1, 1002, 3 };
	expect_trace(&t, plain, 4);
	cr_assert_eq(t.errors, 1);
}

static enum sr_rewind_action
rewind_once(void *ctx, int64_t sequence, int64_t rewinds)
{
	int64_t *calls = ctx;
	(*calls)++;
	return sequence == 2 && rewinds == 0 ? SR_REWIND : SR_REWIND_GIVE_UP;
}

Test(processor, a_rewind_strategy_function_decides, .timeout = 30)
{
	trace t;
	int64_t calls = 0;
	run_rewinds((sr_rewind_strategy){ .decide = rewind_once, .ctx = &calls }, &t);
	int64_t expect[] = { 0, 1, 1002, 0, 1, 1002, 3 };
	expect_trace(&t, expect, 7);
	cr_assert_eq(calls, 2);
	cr_assert_eq(t.errors, 1);
}

Test(processor, create_refuses_a_negative_rewind_pause)
{
	fixture f = make(8, SR_PRODUCER_SINGLE, "block", -1);
	sr_error err;
	sr_processor_config c = { .ring = f.ring, .sequencer = f.seq,
	    .handler = { .on_event = ignore_event }, .rewind = { .max_rewinds = 1, .pause_ns = -5 } };
	cr_assert_null(sr_processor_create(&c, &err));
	cr_assert_eq(err.code, SR_EINVAL);
	cr_assert(strstr(err.message, "rewind.pause_ns -5") != NULL, "%s", err.message);
	unmake(&f);
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * stress_disruptor: the graph builder and the toolkit around it under
 * threads, for the ThreadSanitizer preset (a plain program, no Criterion;
 * exits non-zero on any failure):
 *  - diamonds built by sr_disruptor, two producers publishing batches of 1
 *    to 4 with a writer that fails now and then (skipped slots), in several wait
 *    strategies: every stage sees every sequence once, in order, skipped
 *    ones through on_skip, and D only after B and C;
 *  - a processor halted and started again, ten times, while a producer
 *    publishes: each event handled exactly once, in order;
 *  - a poller in its own thread after a stage that releases early and
 *    rewinds: the poller sees every event once, in order, after the stage.
 */
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "scenarios.h"
#include "stress_args.h"
#include <seqring/sr_disruptor.h>
#include <seqring/sr_poller.h>

#define FAIL_EVERY 97

struct event {
	int64_t seq;
	int64_t b, c;
};

typedef struct stage {
	char name;
	int64_t next, handled, skipped, bad;
} stage;

static int
stage_event(void *ctx, void *slot, int64_t s, bool eob)
{
	stage *st = ctx;
	struct event *e = slot;
	(void)eob;
	st->bad += s != st->next || e->seq != s;
	if (st->name == 'B')
		e->b = s * 2;
	else if (st->name == 'C')
		e->c = s * 3;
	else if (st->name == 'D')
		st->bad += e->b != s * 2 || e->c != s * 3;
	st->next = s + 1;
	st->handled++;
	return 0;
}

static void
stage_skip(void *ctx, int64_t s, bool eob)
{
	stage *st = ctx;
	(void)eob;
	st->bad += s != st->next || s % FAIL_EVERY != 0;
	st->next = s + 1;
	st->skipped++;
}

/*
 * Fails for a multiple of FAIL_EVERY that ends its batch (ctx: the batch's
 * size), so that each failed call skips exactly one slot.
 */
static int
write_event(void *ctx, void *slot, int64_t s, int64_t index)
{
	if (s % FAIL_EVERY == 0 && index == *(const int64_t *)ctx - 1)
		return SR_EIO;
	*(struct event *)slot = (struct event){ .seq = s, .b = -1, .c = -1 };
	return 0;
}

typedef struct producer {
	sr_disruptor *d;
	int64_t events;   /* published in batches of 1 to 4 */
	int64_t failed;   /* calls that returned the writer's error */
} producer;

static int
produce(void *arg)
{
	producer *p = arg;
	for (int64_t done = 0; done < p->events;) {
		int64_t n = 1 + done % 4;
		if (n > p->events - done)
			n = p->events - done;
		int rc = sr_disruptor_publish_events(p->d, n, write_event, &n);
		if (rc == SR_EIO)
			p->failed++;
		else if (rc != SR_OK)
			return rc;
		done += n;
	}
	return 0;
}

/*
 * A graph to build, or NULL with the message in err: the graph builder takes NULL and leaves err
 * alone (sr_disruptor.h), so that start_graph reports whichever step failed.
 */
static sr_disruptor *
make(int64_t slots, enum sr_producer_mode mode, const char *wait, int64_t max_batch, sr_error *err)
{
	sr_disruptor_config c;
	sr_disruptor_config_default(&c, slots, sizeof(struct event), mode);
	c.max_batch_size = max_batch;
	if (sr_wait_config_parse(wait, &c.wait, err) != SR_OK)
		return NULL;
	return sr_disruptor_create(&c, err);
}

/* The handler of stage st. */
static sr_handler
stage_handler(stage *st)
{
	return (sr_handler){ .ctx = st, .on_event = stage_event, .on_skip = stage_skip };
}

/* Starts d's graph g; false after a message, with d (if made) destroyed. */
static bool
start_graph(sr_disruptor *d, sr_group g, sr_error *err)
{
	if (g.status == SR_OK && sr_disruptor_start(d, err) == SR_OK)
		return true;
	fprintf(stderr, "stress_disruptor: %s\n", err->message);
	sr_disruptor_destroy(d);
	return false;
}

static int
diamond(const char *wait, int64_t per_producer)
{
	stage st[4] = { { .name = 'A' }, { .name = 'B' }, { .name = 'C' }, { .name = 'D' } };
	sr_handler h[4];
	for (int i = 0; i < 4; i++)
		h[i] = stage_handler(&st[i]);
	sr_error err;
	sr_disruptor *d = make(16, SR_PRODUCER_MULTI, wait, 5, &err);
	sr_group g = sr_disruptor_handle_events_with(d, &h[0], 1, &err);
	g = sr_group_then(sr_group_then(g, &h[1], 2, &err), &h[3], 1, &err);
	if (!start_graph(d, g, &err))
		return 1;
	producer p[2] = { { d, per_producer, 0 }, { d, per_producer, 0 } };
	sc_background bg[2];
	for (int i = 0; i < 2; i++)
		sc_background_start(&bg[i], produce, &p[i]);
	int failures = 0;
	for (int i = 0; i < 2; i++)
		failures += sc_background_join(&bg[i]) != 0;
	failures += sr_disruptor_shutdown(d, 60 * SC_S, NULL, &err) != SR_OK;
	int64_t total = 2 * per_producer, skips = p[0].failed + p[1].failed;
	for (int i = 0; i < 4; i++) {
		if (st[i].bad != 0 || st[i].handled + st[i].skipped != total || st[i].skipped != skips) {
			fprintf(stderr, "stress_disruptor: diamond %s: %c handled %" PRId64 ", skipped %" PRId64
			    " (expected %" PRId64 "), %" PRId64 " wrong\n", wait, st[i].name, st[i].handled,
			    st[i].skipped, skips, st[i].bad);
			failures++;
		}
	}
	if (skips == 0) {
		fprintf(stderr, "stress_disruptor: diamond %s: no writer ever failed\n", wait);
		failures++;
	}
	sr_disruptor_destroy(d);
	return failures;
}

static int
restarts(const char *wait, int64_t events)
{
	stage st = { .name = 'A' };
	sr_handler h = stage_handler(&st);
	sr_error err;
	sr_disruptor *d = make(8, SR_PRODUCER_SINGLE, wait, 0, &err);
	sr_group g = sr_disruptor_handle_events_with(d, &h, 1, &err);
	if (!start_graph(d, g, &err))
		return 1;
	producer p = { d, events, 0 };
	sc_background bg;
	sc_background_start(&bg, produce, &p);
	sr_processor *proc = sr_disruptor_processor(d, 0);
	int failures = 0;
	for (int i = 0; i < 10; i++) {
		sc_sleep_ns(2 * SC_MS);
		sr_processor_halt(proc);
		failures += sr_processor_join(proc) != SR_OK;
		failures += sr_processor_start(proc, NULL) != SR_OK;
	}
	failures += sc_background_join(&bg) != 0;
	failures += sr_disruptor_shutdown(d, 60 * SC_S, NULL, NULL) != SR_OK;
	if (st.bad != 0 || st.handled + st.skipped != events || st.skipped != p.failed) {
		fprintf(stderr, "stress_disruptor: restarts %s: %" PRId64 " + %" PRId64 " of %" PRId64
		    ", %" PRId64 " wrong\n", wait, st.handled, st.skipped, events, st.bad);
		failures++;
	}
	sr_disruptor_destroy(d);
	return failures;
}

/* A stage that releases every 3rd event early and asks once per 50 for a rewind. */
typedef struct releasing {
	sr_sequence *own;
	int64_t asked;      /* the last sequence a rewind was asked for */
	int64_t handled;
} releasing;

static int
releasing_event(void *ctx, void *slot, int64_t s, bool eob)
{
	releasing *r = ctx;
	(void)slot, (void)eob;
	if (s % 50 == 7 && r->asked != s) {
		r->asked = s;
		return SR_EVENT_REWIND;
	}
	if (s % 3 == 0)
		sr_sequence_set(r->own, s);
	r->handled++;
	return 0;
}

static void
releasing_callback(void *ctx, sr_sequence *own)
{
	((releasing *)ctx)->own = own;
}

typedef struct polling {
	sr_poller *poller;
	atomic_int stop;
	int64_t next, bad;
} polling;

static bool
polled(void *ctx, void *slot, int64_t s, bool eob)
{
	polling *p = ctx;
	(void)eob;
	p->bad += s != p->next || ((struct event *)slot)->seq != s;
	p->next = s + 1;
	return true;
}

static void
polled_skip(void *ctx, int64_t s)
{
	polling *p = ctx;
	p->bad += s != p->next;
	p->next = s + 1;
}

static int
poll_loop(void *arg)
{
	polling *p = arg;
	sr_poll_handler h = { .ctx = p, .on_event = polled, .on_skip = polled_skip };
	while (!atomic_load(&p->stop) || sr_poller_poll(p->poller, &h) == SR_POLL_PROCESSING)
		if (sr_poller_poll(p->poller, &h) != SR_POLL_PROCESSING)
			sc_sleep_ns(10 * 1000);
	return 0;
}

static int
poller_after_a_rewinding_stage(int64_t events)
{
	sr_disruptor_config c;
	sr_disruptor_config_default(&c, 32, sizeof(struct event), SR_PRODUCER_SINGLE);
	c.rewind.max_rewinds = -1;
	sr_disruptor *d = sr_disruptor_create(&c, NULL);
	if (d == NULL)
		return 1;
	releasing r = { .asked = -1 };
	sr_group g = sr_disruptor_handle_events_with(d, &(sr_handler){ .ctx = &r,
	    .on_event = releasing_event, .set_sequence_callback = releasing_callback }, 1, NULL);
	const sr_sequence *upstream = sr_processor_sequence(sr_disruptor_processor(d, 0));
	polling p = { .poller = sr_poller_create(sr_disruptor_ring(d), sr_disruptor_sequencer(d),
	    &upstream, 1, NULL) };
	atomic_init(&p.stop, 0);
	if (g.status != SR_OK || p.poller == NULL ||
	    sr_sequencer_add_gating(sr_disruptor_sequencer(d), sr_poller_sequence(p.poller)) != SR_OK ||
	    sr_disruptor_start(d, NULL) != SR_OK)
		return 1;
	sc_background bg;
	sc_background_start(&bg, poll_loop, &p);
	producer prod = { d, events, 0 };
	int failures = produce(&prod) != 0;
	failures += sr_disruptor_shutdown(d, 60 * SC_S, NULL, NULL) != SR_OK;
	atomic_store(&p.stop, 1);
	failures += sc_background_join(&bg) != 0;
	/* Replays after a rewind hand some events to the stage twice. */
	if (p.bad != 0 || p.next != events || r.handled < events - prod.failed) {
		fprintf(stderr, "stress_disruptor: poller: reached %" PRId64 " of %" PRId64 ", %" PRId64
		    " wrong; the stage handled %" PRId64 "\n", p.next, events, p.bad, r.handled);
		failures++;
	}
	sr_poller_destroy(p.poller);
	sr_disruptor_destroy(d);
	return failures;
}

int
main(int argc, char **argv)
{
	sa_parse(argc, argv, NULL, 0, NULL); /* no options but --help */
	int64_t started = sc_now();
	int failures = 0;
	const char *waits[] = { "block", "liteblock", "timeout", "sleep", "yield" };
	for (int w = 0; w < 5; w++) {
		failures += diamond(waits[w], SC_SCALE(50000, 5000));
		failures += restarts(waits[w], SC_SCALE(100000, 10000));
	}
	failures += poller_after_a_rewinding_stage(SC_SCALE(100000, 10000));
	printf("stress_disruptor: %s, %d failure(s) in %.1f s\n", failures ? "FAIL" : "PASS", failures,
	    (double)(sc_now() - started) / 1e9);
	return failures ? 1 : 0;
}

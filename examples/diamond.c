/* SPDX-License-Identifier: Apache-2.0 */
/*
 * diamond.c: a consumer graph.  A handles each event first; B and C then work
 * on it in parallel, each writing its own field; D runs last and checks both
 * results.  The graph builder (sr_disruptor.h) wires it from three calls and
 * gates the producer on D alone: D can't pass B or C, which can't pass A, so
 * no slot is reused while any consumer still needs it.
 * Proves: D never sees an event before B and C handled it; every event passes
 * all four stages exactly once.
 *
 * The prediction: an event costs at most T, one cache-line transfer between
 * cores (measured at the start): each of the five threads (the producer and
 * four stages) takes everything its predecessors finished as one batch, so a
 * line crosses between cores once per batch, not once per event, and the
 * stages work in parallel.  That needs a CPU per thread: with fewer, the
 * stages take turns through the scheduler, each turn microseconds, and the
 * verdict names that as the cause (as the Disruptor's own guidance says: no
 * more busy consumers than cores).  --ring-slots 2 leaves no room for batches: every event then waits at each
 * stage for the one before it, a transfer per event per stage, and the
 * verdict says so.  The flip's run is 1,000 events: with fewer CPUs than
 * threads every event then waits for the scheduler at each stage, a time
 * slice of another process each time on a busy machine, and 100,000 such
 * events outlast the verdict test's guard against a hang.
 *
 * Flips the verdict: --ring-slots 2 1000
 *
 * Run: diamond [--quick] [--ring-slots SLOTS] [events]
 */
#include <inttypes.h>
#include <stdio.h>

#include <seqring/sr_disruptor.h>

#include "ex_flags.h"
#include "ex_machine.h"
#include "ex_verdict.h"

struct event {
	int64_t value;
	int64_t a_mark, b_double, c_square; /* written by A, B and C */
};

struct stage { char name; int64_t handled, errors; };

static int
on_event(void *ctx, void *slot, int64_t sequence, bool end_of_batch)
{
	struct stage *st = ctx;
	struct event *e = slot;
	(void)sequence, (void)end_of_batch;
	switch (st->name) {
	case 'A': e->a_mark = e->value; break;
	case 'B': st->errors += e->a_mark != e->value; e->b_double = 2 * e->value; break;
	case 'C': st->errors += e->a_mark != e->value; e->c_square = e->value * e->value; break;
	case 'D': st->errors += e->b_double != 2 * e->value || e->c_square != e->value * e->value; break;
	}
	st->handled++;
	return 0;
}

/* The producer's writer: a fresh event, its results not yet computed. */
static int
write_event(void *ctx, void *slot, int64_t sequence, int64_t index)
{
	(void)ctx, (void)index;
	*(struct event *)slot = (struct event){ .value = sequence, .a_mark = -1, .b_double = -1,
	    .c_square = -1 };
	return 0;
}

static int64_t events = 5000000, ring_slots = 256;

static void
quick(void)
{
	events = 100000;
}

int
main(int argc, char **argv)
{
	const ex_flag flags[] = {
		{ "--quick", EX_FLAG_ACTION, NULL, 0, 0, quick },
		{ "--ring-slots", EX_FLAG_POW2, &ring_slots, 2, 1 << 20, NULL },
		{ "EVENTS", EX_FLAG_INT64, &events, 1, (double)INT64_MAX, NULL },
	};
	ex_flags_parse(argc, argv, "diamond",
	    "[--quick] [--ring-slots SLOTS (a power of two, 2 to 1048576; default 256)] [EVENTS (at least 1)]",
	    flags, sizeof flags / sizeof flags[0]);
	ex_machine m;
	ex_machine_measure(&m);
	const int threads = 5;
	double predicted = ex_predict("ns per event, at most", m.transfer_ns, "ns",
	    "T = %.0f ns: a batch per transfer at every stage, the 5 threads each on a CPU of its own "
	    "(this process may use %d), with %" PRId64 " slots of room", m.transfer_ns, m.cpus, ring_slots);
	struct stage st[4] = { { 'A', 0, 0 }, { 'B', 0, 0 }, { 'C', 0, 0 }, { 'D', 0, 0 } };
	sr_handler h[4];
	for (int i = 0; i < 4; i++)
		h[i] = (sr_handler){ .ctx = &st[i], .on_event = on_event };
	sr_error err;
	sr_disruptor_config dc;
	sr_disruptor_config_default(&dc, ring_slots, sizeof(struct event), SR_PRODUCER_SINGLE);
	sr_wait_config_parse("yield", &dc.wait, NULL);
	sr_disruptor *d = sr_disruptor_create(&dc, &err);
	/* A follows the producer; B and C follow A; D follows B and C. */
	sr_group g = sr_disruptor_handle_events_with(d, &h[0], 1, &err);
	g = sr_group_then(sr_group_then(g, &h[1], 2, &err), &h[3], 1, &err);
	if (d == NULL || g.status != SR_OK || sr_disruptor_start(d, &err) != SR_OK) {
		fprintf(stderr, "diamond: %s\n", err.message);
		return 1;
	}

	ex_watch w;
	ex_watch_start(&w);
	int64_t start = sr_monotonic_ns();
	for (int64_t i = 0; i < events; i++)
		sr_disruptor_publish_event(d, write_event, NULL);
	/* Everything published is handled by D (so by every stage), then all halt. */
	sr_disruptor_shutdown(d, INT64_MAX, NULL, &err);
	double ns_per_event = (double)(sr_monotonic_ns() - start) / (double)events;
	int64_t errors = 0;
	printf("| stage | handled | errors |\n|---|---:|---:|\n");
	for (int i = 0; i < 4; i++) {
		printf("| %c | %" PRId64 " | %" PRId64 " |\n", st[i].name, st[i].handled, st[i].errors);
		errors += st[i].errors + (st[i].handled != events);
	}
	printf("\n%.1f ns per event (%.1f Mevents/s) through a ring of %" PRId64 " slots.\n\n", ns_per_event,
	    1e3 / ns_per_event, ring_slots);
	printf("%s: D saw all %" PRId64 " events only after both B and C had handled them.\n\n",
	    errors == 0 ? "PASS" : "FAIL", events);
	char reason[160] = "";
	if (ring_slots < 8)
		snprintf(reason, sizeof reason, "a ring of %" PRId64 " slots holds no batch: each event waited at "
		    "every stage for the one before it", ring_slots);
	ex_claim c = { .what = "ns per event, at most", .predicted = predicted, .measured = ns_per_event,
		.tolerance = 1, .at_most = true, .threads = threads, .own_reason = reason[0] ? reason : NULL };
	ex_verdict(&m, &w, &c);
	sr_disruptor_destroy(d);
	return errors == 0 ? 0 : 1;
}

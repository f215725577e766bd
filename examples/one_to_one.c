/* SPDX-License-Identifier: Apache-2.0 */
/*
 * one_to_one.c: one producer, one consumer, the smallest complete seqring
 * program.  The graph builder (sr_disruptor.h) makes the ring, its
 * sequencer and the consumer, and gates the producer on it; the producer
 * claims a slot, writes a number into it and publishes it in one call; the
 * consumer checks that it sees every number exactly once and in order, and
 * counts the batches it was handed.
 *
 * Proves: nothing is lost or reordered, and the consumer receives events in
 * batches (fewer batches than events) when it falls behind.
 *
 * The prediction: an event costs at most one cache-line transfer between the
 * two threads (T, measured at the start): the producer moves on while the
 * ring has room, and the consumer takes every event published since its last
 * look as one batch, so the lines holding the cursor and the consumer's
 * sequence cross between the cores once per batch, not once per event.
 * --ring-slots 2 leaves no room to move on: the producer waits for the
 * consumer on nearly every event, each one a round trip of those lines
 * (at least 2 T), and the verdict says so.
 *
 * Flips the verdict: --ring-slots 2
 *
 * Run: one_to_one [--quick] [--ring-slots SLOTS] [events] [wait-strategy]
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <seqring/sr_disruptor.h>

#include "ex_flags.h"
#include "ex_machine.h"
#include "ex_verdict.h"

struct tally {
	int64_t expected; /* the next value the consumer should see */
	int64_t batches;
	int64_t errors;
};

static int
on_event(void *ctx, void *slot, int64_t sequence, bool end_of_batch)
{
	struct tally *t = ctx;
	int64_t value;
	memcpy(&value, slot, sizeof value);
	t->errors += value != t->expected;
	t->expected = value + 1;
	t->batches += end_of_batch;
	(void)sequence;
	return 0;
}

/* The producer's writer (the Disruptor's event translator): the value is the loop's i. */
static int
write_value(void *ctx, void *slot, int64_t sequence, int64_t index)
{
	memcpy(slot, ctx, sizeof(int64_t));
	(void)sequence, (void)index;
	return 0;
}

static int64_t events = 10 * 1000 * 1000, ring_slots = 1024;
static const char *wait_strategy = "yield";

static void
quick(void)
{
	events = 100000;
}

int
main(int argc, char **argv)
{
	const char *synopsis = "[--quick] [--ring-slots SLOTS (a power of two, 2 to 1048576; default 1024)] "
	    "[EVENTS (at least 1)] [WAIT_STRATEGY (default yield)]";
	const ex_flag flags[] = {
		{ "--quick", EX_FLAG_ACTION, NULL, 0, 0, quick },
		{ "--ring-slots", EX_FLAG_POW2, &ring_slots, 2, 1 << 20, NULL },
		{ "EVENTS", EX_FLAG_INT64, &events, 1, (double)INT64_MAX, NULL },
		{ "WAIT_STRATEGY", EX_FLAG_TEXT, &wait_strategy, 0, 0, NULL },
	};
	ex_flags_parse(argc, argv, "one_to_one", synopsis, flags, sizeof flags / sizeof flags[0]);
	sr_error err;
	sr_disruptor_config dc;
	sr_disruptor_config_default(&dc, ring_slots, 8, SR_PRODUCER_SINGLE);
	if (sr_wait_config_parse(wait_strategy, &dc.wait, &err) != SR_OK) {
		fprintf(stderr, "one_to_one: %s\n", err.message);
		ex_flags_usage(stderr, "one_to_one", synopsis);
		return 2;
	}
	ex_machine m;
	ex_machine_measure(&m);
	ex_predict("ns per event, at most", m.transfer_ns, "ns",
	    "T = %.0f ns, one cache-line transfer between the two threads: a batch per transfer, "
	    "at least one event per batch, with %" PRId64 " slots of room", m.transfer_ns, ring_slots);
	struct tally tally = { 0, 0, 0 };
	sr_disruptor *d = sr_disruptor_create(&dc, &err);
	sr_group g = sr_disruptor_handle_events_with(d,
	    &(sr_handler){ .ctx = &tally, .on_event = on_event }, 1, &err);
	if (d == NULL || g.status != SR_OK || sr_disruptor_start(d, &err) != SR_OK) {
		fprintf(stderr, "one_to_one: %s\n", err.message);
		return 1;
	}

	ex_watch w;
	ex_watch_start(&w);
	int64_t start = sr_monotonic_ns();
	for (int64_t i = 0; i < events; i++)
		sr_disruptor_publish_event(d, write_value, &i);
	sr_disruptor_shutdown(d, INT64_MAX, NULL, &err); /* everything handled, then halted */
	double ns = (double)(sr_monotonic_ns() - start);
	double ns_per_event = ns / (double)events;

	double per_batch = (double)tally.expected / (double)(tally.batches ? tally.batches : 1);
	printf("| events | seen | out of order | batches | events/batch | Mevents/s | ns/event |\n");
	printf("|---:|---:|---:|---:|---:|---:|---:|\n");
	printf("| %" PRId64 " | %" PRId64 " | %" PRId64 " | %" PRId64 " | %.1f | %.1f | %.1f |\n\n",
	    events, tally.expected, tally.errors, tally.batches, per_batch, (double)events / ns * 1e3,
	    ns_per_event);
	int ok = tally.expected == events && tally.errors == 0;
	printf("%s: every event arrived exactly once, in order, in %" PRId64 " batches (%s wait).\n\n",
	    ok ? "PASS" : "FAIL", tally.batches, wait_strategy);
	char reason[160] = "";
	if (per_batch < 2)
		snprintf(reason, sizeof reason, "the consumer took %.1f events per batch (%" PRId64 " slots): "
		    "the lines crossed between the cores for nearly every event", per_batch, ring_slots);
	ex_claim c = { .what = "ns per event, at most", .predicted = m.transfer_ns, .measured = ns_per_event,
		.tolerance = 1, .at_most = true, .threads = 2, .own_reason = reason[0] ? reason : NULL };
	ex_verdict(&m, &w, &c);
	sr_disruptor_destroy(d);
	return ok ? 0 : 1;
}

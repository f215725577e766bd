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
 * Run: one_to_one [--quick] [events] [wait-strategy]
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <seqring/sr_disruptor.h>

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

#define USAGE "usage: one_to_one [--quick] [EVENTS (at least 1)] [WAIT_STRATEGY (default yield)]\n"

int
main(int argc, char **argv)
{
	int64_t events = 10 * 1000 * 1000;
	const char *wait = "yield";
	char *end = "";
	for (int i = 1; i < argc; i++) /* --help anywhere wins over the other arguments */
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
			return printf(USAGE), 0;
	int arg = 1;
	if (arg < argc && strcmp(argv[arg], "--quick") == 0)
		events = 100000, arg++;
	if (arg < argc)
		events = strtoll(argv[arg++], &end, 10);
	if (arg < argc)
		wait = argv[arg++];
	sr_error err;
	sr_disruptor_config dc;
	sr_disruptor_config_default(&dc, 1024, 8, SR_PRODUCER_SINGLE);
	if (events < 1 || *end != '\0' || sr_wait_config_parse(wait, &dc.wait, &err) != SR_OK) {
		fprintf(stderr, "one_to_one: %s\n" USAGE, events < 1 || *end != '\0' ?
		    "EVENTS must be a number, at least 1" : err.message);
		return 2;
	}
	struct tally tally = { 0, 0, 0 };
	sr_disruptor *d = sr_disruptor_create(&dc, &err);
	sr_group g = sr_disruptor_handle_events_with(d,
	    &(sr_handler){ .ctx = &tally, .on_event = on_event }, 1, &err);
	if (d == NULL || g.status != SR_OK || sr_disruptor_start(d, &err) != SR_OK) {
		fprintf(stderr, "one_to_one: %s\n", err.message);
		return 1;
	}

	int64_t start = sr_monotonic_ns();
	for (int64_t i = 0; i < events; i++)
		sr_disruptor_publish_event(d, write_value, &i);
	sr_disruptor_shutdown(d, INT64_MAX, NULL, &err); /* everything handled, then halted */
	double seconds = (double)(sr_monotonic_ns() - start) / 1e9;

	printf("| events | seen | out of order | batches | events/batch | Mevents/s |\n");
	printf("|---:|---:|---:|---:|---:|---:|\n");
	printf("| %" PRId64 " | %" PRId64 " | %" PRId64 " | %" PRId64 " | %.1f | %.1f |\n",
	    events, tally.expected, tally.errors, tally.batches,
	    (double)tally.expected / (double)(tally.batches ? tally.batches : 1),
	    (double)events / seconds / 1e6);
	int ok = tally.expected == events && tally.errors == 0;
	printf("%s: every event arrived exactly once, in order, in %" PRId64 " batches (%s wait).\n",
	    ok ? "PASS" : "FAIL", tally.batches, wait);
	sr_disruptor_destroy(d);
	return ok ? 0 : 1;
}

/*
 * one_to_one.c: one producer, one consumer, the smallest complete seqring
 * program.  The producer claims a slot, writes a number into it and
 * publishes; the consumer's batch processor checks that it sees every number
 * exactly once and in order, and counts the batches it was handed.
 *
 * Proves: nothing is lost or reordered, and the consumer receives events in
 * batches (fewer batches than events) when it falls behind.
 * Run: one_to_one [--quick] [events] [wait-strategy]
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sr_processor.h"

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
	if (value != t->expected)
		t->errors++;
	t->expected = value + 1;
	t->batches += end_of_batch;
	(void)sequence;
	return 0;
}

#define USAGE "usage: one_to_one [--quick] [EVENTS (at least 1)] [WAIT_STRATEGY (default yield)]\n"

int
main(int argc, char **argv)
{
	int64_t events = 10 * 1000 * 1000;
	const char *wait = "yield";
	int arg = 1;
	if (arg < argc && (strcmp(argv[arg], "--help") == 0 || strcmp(argv[arg], "-h") == 0)) {
		printf(USAGE);
		return 0;
	}
	if (arg < argc && strcmp(argv[arg], "--quick") == 0) {
		events = 100000;
		arg++;
	}
	if (arg < argc)
		events = strtoll(argv[arg++], NULL, 10);
	if (arg < argc)
		wait = argv[arg++];

	sr_error err;
	sr_sequencer_config sc;
	sr_sequencer_config_default(&sc, 1024, SR_PRODUCER_SINGLE);
	if (events < 1 || sr_wait_config_parse(wait, &sc.wait, &err) != SR_OK) {
		fprintf(stderr, "one_to_one: %s\n" USAGE, events < 1 ? "events must be at least 1" : err.message);
		return 2;
	}
	sr_ring *ring = sr_ring_create(1024, 8, NULL, NULL, &err);
	sr_sequencer *seq = ring ? sr_sequencer_create(&sc, &err) : NULL;
	struct tally tally = { 0, 0, 0 };
	sr_processor_config pc = { .ring = ring, .sequencer = seq,
	    .handler = { .ctx = &tally, .on_event = on_event } };
	sr_processor *consumer = seq ? sr_processor_create(&pc, &err) : NULL;
	if (consumer == NULL || sr_processor_start(consumer, &err) != SR_OK) {
		fprintf(stderr, "one_to_one: %s\n", err.message);
		return 1;
	}
	/* The producer must not lap the consumer: gate it on the consumer's sequence. */
	sr_sequencer_add_gating(seq, sr_processor_sequence(consumer));

	int64_t start = sr_monotonic_ns();
	for (int64_t i = 0; i < events; i++) {
		int64_t s;
		sr_sequencer_claim(seq, &s);
		memcpy(sr_ring_slot(ring, s), &i, sizeof i);
		sr_sequencer_publish(seq, s);
	}
	sr_processor_drain_and_halt(consumer);
	sr_processor_join(consumer);
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
	sr_processor_destroy(consumer);
	sr_sequencer_destroy(seq);
	sr_ring_destroy(ring);
	return ok ? 0 : 1;
}

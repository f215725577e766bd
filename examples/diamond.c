/*
 * diamond.c: a consumer graph.  A handles each event first; B and C then work
 * on it in parallel, each writing its own field; D runs last and checks both
 * results.  The producer is gated on D alone: D can't pass B or C, which can't
 * pass A, so no slot is reused while any consumer still needs it.
 * Proves: D never sees an event before B and C handled it; every event passes
 * all four stages exactly once.     Run: diamond [--quick] [events]
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sr_processor.h"

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

#define USAGE "usage: diamond [--quick | EVENTS (at least 1)]\n"

int
main(int argc, char **argv)
{
	if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		printf(USAGE);
		return 0;
	}
	int64_t events = argc > 1 && strcmp(argv[1], "--quick") == 0 ? 100000 : 5000000;
	if (argc > 1 && strcmp(argv[1], "--quick") != 0)
		events = strtoll(argv[1], NULL, 10);
	sr_error err;
	sr_sequencer_config sc;
	sr_sequencer_config_default(&sc, 256, SR_PRODUCER_SINGLE);
	sr_wait_config_parse("yield", &sc.wait, NULL);
	sr_ring *ring = sr_ring_create(256, sizeof(struct event), NULL, NULL, &err);
	sr_sequencer *seq = ring ? sr_sequencer_create(&sc, &err) : NULL;
	if (seq == NULL || events < 1) {
		fprintf(stderr, "diamond: %s\n" USAGE, seq == NULL ? err.message : "events must be at least 1");
		return 2;
	}
	struct stage stages[4] = { { 'A', 0, 0 }, { 'B', 0, 0 }, { 'C', 0, 0 }, { 'D', 0, 0 } };
	sr_processor *p[4];
	const sr_sequence *deps[2];
	for (int i = 0; i < 4; i++) {
		/* A follows the producer; B and C follow A; D follows B and C. */
		int ndeps = i == 0 ? 0 : i == 3 ? 2 : 1;
		deps[0] = i == 0 ? NULL : sr_processor_sequence(p[i == 3 ? 1 : 0]);
		deps[1] = i == 3 ? sr_processor_sequence(p[2]) : NULL;
		sr_processor_config pc = { .ring = ring, .sequencer = seq,
		    .dependents = deps, .dependent_count = ndeps,
		    .handler = { .ctx = &stages[i], .on_event = on_event } };
		if ((p[i] = sr_processor_create(&pc, &err)) == NULL) {
			fprintf(stderr, "diamond: %s\n", err.message);
			return 1;
		}
	}
	sr_sequencer_add_gating(seq, sr_processor_sequence(p[3]));
	for (int i = 0; i < 4; i++) sr_processor_start(p[i], NULL);

	for (int64_t i = 0; i < events; i++) {
		int64_t s;
		sr_sequencer_claim(seq, &s);
		struct event *e = sr_ring_slot(ring, s);
		*e = (struct event){ .value = i, .a_mark = -1, .b_double = -1, .c_square = -1 };
		sr_sequencer_publish(seq, s);
	}
	/* Drain in graph order: each stage has everything once its inputs have. */
	for (int i = 0; i < 4; i++) {
		sr_processor_drain_and_halt(p[i]);
		sr_processor_join(p[i]);
	}
	int64_t errors = 0;
	printf("| stage | handled | errors |\n|---|---:|---:|\n");
	for (int i = 0; i < 4; i++) {
		printf("| %c | %" PRId64 " | %" PRId64 " |\n", stages[i].name, stages[i].handled, stages[i].errors);
		errors += stages[i].errors + (stages[i].handled != events);
	}
	printf("%s: D saw all %" PRId64 " events only after both B and C had handled them.\n",
	    errors == 0 ? "PASS" : "FAIL", events);
	for (int i = 0; i < 4; i++) sr_processor_destroy(p[i]);
	sr_sequencer_destroy(seq);
	sr_ring_destroy(ring);
	return errors == 0 ? 0 : 1;
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * diamond.c: a consumer graph.  A handles each event first; B and C then work
 * on it in parallel, each writing its own field; D runs last and checks both
 * results.  The graph builder (sr_disruptor.h) wires it from three calls and
 * gates the producer on D alone: D can't pass B or C, which can't pass A, so
 * no slot is reused while any consumer still needs it.
 * Proves: D never sees an event before B and C handled it; every event passes
 * all four stages exactly once.     Run: diamond [--quick] [events]
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <seqring/sr_disruptor.h>

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
	if (events < 1) {
		fprintf(stderr, "diamond: events must be at least 1\n" USAGE);
		return 2;
	}
	struct stage st[4] = { { 'A', 0, 0 }, { 'B', 0, 0 }, { 'C', 0, 0 }, { 'D', 0, 0 } };
	sr_handler h[4];
	for (int i = 0; i < 4; i++)
		h[i] = (sr_handler){ .ctx = &st[i], .on_event = on_event };
	sr_error err;
	sr_disruptor_config dc;
	sr_disruptor_config_default(&dc, 256, sizeof(struct event), SR_PRODUCER_SINGLE);
	sr_wait_config_parse("yield", &dc.wait, NULL);
	sr_disruptor *d = sr_disruptor_create(&dc, &err);
	/* A follows the producer; B and C follow A; D follows B and C. */
	sr_group g = sr_disruptor_handle_events_with(d, &h[0], 1, &err);
	g = sr_group_then(sr_group_then(g, &h[1], 2, &err), &h[3], 1, &err);
	if (d == NULL || g.status != SR_OK || sr_disruptor_start(d, &err) != SR_OK) {
		fprintf(stderr, "diamond: %s\n", err.message);
		return 1;
	}

	for (int64_t i = 0; i < events; i++)
		sr_disruptor_publish_event(d, write_event, NULL);
	/* Everything published is handled by D (so by every stage), then all halt. */
	sr_disruptor_shutdown(d, INT64_MAX, NULL, &err);
	int64_t errors = 0;
	printf("| stage | handled | errors |\n|---|---:|---:|\n");
	for (int i = 0; i < 4; i++) {
		printf("| %c | %" PRId64 " | %" PRId64 " |\n", st[i].name, st[i].handled, st[i].errors);
		errors += st[i].errors + (st[i].handled != events);
	}
	printf("%s: D saw all %" PRId64 " events only after both B and C had handled them.\n",
	    errors == 0 ? "PASS" : "FAIL", events);
	sr_disruptor_destroy(d);
	return errors == 0 ? 0 : 1;
}

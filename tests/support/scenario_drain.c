/*
 * scenario_drain.c: drain_and_halt handles everything published before it.
 */
#include <stdlib.h>

#include "scenario_internal.h"

#define MAX_PRODUCERS 8

typedef struct drain_ctx {
	sc_check check;
	int64_t handled;            /* consumer-private, read after join */
	int64_t last;
	int64_t nap_every;
} drain_ctx;

static int
on_event(void *arg, void *slot, int64_t s, bool end_of_batch)
{
	(void)end_of_batch;
	drain_ctx *d = arg;
	if (*(const int64_t *)slot != s || s != d->last + 1)
		sc_failf(&d->check, "consumer: sequence %" PRId64 " holds %" PRId64 " after %" PRId64,
		    s, *(const int64_t *)slot, d->last);
	d->last = s;
	d->handled++;
	if (d->nap_every > 0 && d->handled % d->nap_every == 0)
		sc_sleep_ns(20 * 1000);
	return 0;
}

typedef struct drain_producer {
	sr_sequencer *seq;
	sr_ring *ring;
	int64_t count;
	pthread_t thread;
} drain_producer;

static void *
producer_main(void *arg)
{
	drain_producer *p = arg;
	for (int64_t i = 0; i < p->count; i++) {
		int64_t s;
		if (sr_sequencer_claim(p->seq, &s) != SR_OK)
			break;
		*(int64_t *)sr_ring_slot(p->ring, s) = s;
		sr_sequencer_publish(p->seq, s);
	}
	return NULL;
}

sc_result
sc_drain(enum sr_producer_mode mode, int producers, int64_t count, const char *spec)
{
	sc_result r = sc_result_ok();
	drain_ctx *d = calloc(1, sizeof *d);
	sc_check_init(&d->check);
	d->last = -1;
	d->nap_every = 64;
	sc_line line = { 0 };
	drain_producer prods[MAX_PRODUCERS];
	int64_t t0 = sc_now();
	if (mode == SR_PRODUCER_SINGLE || producers < 1)
		producers = 1;
	if (producers > MAX_PRODUCERS)
		producers = MAX_PRODUCERS;
	sc_line_spec lspec = {
		.size = 256, .slot_size = sizeof(int64_t), .mode = mode, .wait = spec, .synchronize = true,
		.initial_sequence = -1,
	};
	sr_handler h = { .ctx = d, .on_event = on_event };
	if (!sc_line_build(&line, &d->check, &lspec) || !sc_line_consumer(&line, &d->check, &h))
		goto out;
	sr_processor *proc = line.proc;
	if (sr_processor_drain_and_halt(proc) != SR_ESTATE)
		sc_failf(&d->check, "drain_and_halt of a processor never started was not SR_ESTATE");
	if (!sc_line_start(&line, &d->check))
		goto out;
	for (int i = 0; i < producers; i++) {
		prods[i] = (drain_producer){ .seq = line.seq, .ring = line.ring, .count = count };
		pthread_create(&prods[i].thread, NULL, producer_main, &prods[i]);
	}
	for (int i = 0; i < producers; i++)
		pthread_join(prods[i].thread, NULL);
	int64_t total = (int64_t)producers * count;
	r.n[0] = total - 1 - sr_sequence_get(sr_processor_sequence(proc));
	int rc = sr_processor_drain_and_halt(proc);
	if (rc != SR_OK)
		sc_failf(&d->check, "drain_and_halt returned %d", rc);
	sr_processor_join(proc);
	r.events = d->handled;
	if (!sc_failed(&d->check) && (d->handled != total || d->last != total - 1))
		sc_failf(&d->check, "drain_and_halt stopped after %" PRId64 " events (last %" PRId64
		    "), expected all %" PRId64, d->handled, d->last, total);
	if (sr_processor_state_get(proc) != SR_PROCESSOR_HALTED)
		sc_failf(&d->check, "state %d after drain_and_halt and join", (int)sr_processor_state_get(proc));
	if (sr_processor_drain_and_halt(proc) != SR_ESTATE)
		sc_failf(&d->check, "drain_and_halt of a halted processor was not SR_ESTATE");
out:
	sc_finish(&d->check, &r, t0);
	sc_line_destroy(&line);
	free(d);
	return r;
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * scenario_drain.c: drain_and_halt handles everything published before it.
 */
#include <stdlib.h>

#include "scenario_internal.h"

#define MAX_PRODUCERS 8

typedef struct drain_ctx {
	sc_check check;
	sc_line line;
	sc_producers producers;
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

static bool
fill(void *ctx, int id, void *slot, int64_t s, int64_t prev)
{
	(void)ctx;
	(void)id;
	(void)prev;
	*(int64_t *)slot = s;
	return true;
}

sc_result
sc_drain(enum sr_producer_mode mode, int producers, int64_t count, const char *spec)
{
	producers = sc_producer_count(mode, producers, MAX_PRODUCERS);
	sc_thread prods[MAX_PRODUCERS];
	sc_result r = sc_result_ok();
	drain_ctx *d = calloc(1, sizeof *d);
	int64_t t0 = sc_begin(&d->check);
	d->last = -1;
	d->nap_every = 64;
	sc_producers_init(&d->producers, &d->check, &d->line, 0, count, fill, d);
	sc_line_spec lspec = sc_int64_line(256, mode, spec);
	sr_handler h = { .ctx = d, .on_event = on_event };
	if (!sc_line_build(&d->line, &d->check, &lspec) || !sc_line_consumer(&d->line, &d->check, &h))
		goto out;
	sr_processor *proc = d->line.proc;
	if (sr_processor_drain_and_halt(proc) != SR_ESTATE)
		sc_failf(&d->check, "drain_and_halt of a processor never started was not SR_ESTATE");
	if (!sc_line_start(&d->line, &d->check))
		goto out;
	sc_threads_start(prods, producers, sc_producer_main, &d->producers);
	sc_threads_join(prods, producers);
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
	sc_line_destroy(&d->line);
	free(d);
	return r;
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * scenario_wakeups.c: no event is ever left waiting for a wake-up that never
 * comes.
 */
#include <sched.h>
#include <stdlib.h>

#include "scenario_internal.h"

typedef struct wake_ctx {
	sc_check check;
	atomic_llong seen;       /* events the consumer has handled */
	int64_t expect;          /* consumer-private: next expected value */
} wake_ctx;

static int
on_event(void *arg, void *slot, int64_t s, bool end_of_batch)
{
	(void)end_of_batch;
	wake_ctx *w = arg;
	int64_t v = *(const int64_t *)slot;
	if (v != w->expect)
		sc_failf(&w->check, "consumer: event %" PRId64 " at sequence %" PRId64 ", expected %" PRId64,
		    v, s, w->expect);
	w->expect = v + 1;
	atomic_store(&w->seen, v + 1);
	return 0;
}

/*
 * How long a published event may wait for its consumer: a deadline that
 * only a lost wake-up misses.  A lost wake-up leaves the event waiting for
 * ever, or under the timeout kinds until the timeout, so the bound is about
 * that, not about the scheduler, which on a loaded machine can keep a woken
 * thread off the CPU for more than a second.  Under a timeout kind whose
 * timeout is shorter than the bound a lost wake-up cannot show: there the
 * bound catches a hang only (the 30 s timeouts are there for that).
 */
#define WAKEUP_BOUND_NS (10 * SC_S)

sc_result
sc_wakeups(const char *spec, enum sr_producer_mode mode, int rounds, uint64_t seed)
{
	sc_result r = sc_result_ok();
	wake_ctx *w = calloc(1, sizeof *w);
	int64_t t0 = sc_begin(&w->check);
	atomic_init(&w->seen, 0);
	sc_line line = { 0 };
	uint64_t rng = seed ? seed : 1;
	sr_wait_config wc;
	if (!sc_parse_wait(&w->check, spec, &wc))
		goto out;
	int64_t bound = WAKEUP_BOUND_NS;
	r.n[0] = bound;
	sc_line_spec lspec = sc_int64_line(16, mode, spec);
	sr_handler h = { .ctx = w, .on_event = on_event };
	if (!sc_line_open(&line, &w->check, &lspec, &h))
		goto out;
	for (int i = 0; i < rounds && !sc_failed(&w->check); i++) {
		int64_t gap = (int64_t)(sc_rand(&rng) % (uint64_t)(2 * SC_MS + 1));
		if (gap > 20 * 1000)
			sc_sleep_ns(gap);
		else
			sc_spin_ns(gap); /* short gaps hit the consumer on its way back to sleep */
		int64_t s;
		int rc = sr_sequencer_claim(line.seq, &s);
		if (rc != SR_OK) {
			sc_failf(&w->check, "round %d: claim returned %d", i, rc);
			break;
		}
		*(int64_t *)sr_ring_slot(line.ring, s) = i;
		int64_t published = sc_now();
		sr_sequencer_publish(line.seq, s);
		for (;;) {
			if (atomic_load(&w->seen) > i)
				break;
			int64_t now = sc_now();
			if (now - published > bound) {
				sc_failf(&w->check, "%s (%s): round %d of %d: event not handled %lld ms after its"
				    " publish (lost wake-up; seed %" PRIu64 ")", spec,
				    mode == SR_PRODUCER_SINGLE ? "single" : "multi", i, rounds,
				    (long long)((now - published) / SC_MS), seed);
				break;
			}
			if (now - published < 20 * 1000)
				sched_yield();
			else
				sc_sleep_ns(10 * 1000);
		}
		int64_t latency = sc_now() - published;
		if (latency > r.max_latency_ns)
			r.max_latency_ns = latency;
	}
	/* Halting also wakes a consumer whose wake-up was lost. */
	sr_processor_halt(line.proc);
	sr_processor_join(line.proc);
	r.events = atomic_load(&w->seen);
	if (!sc_failed(&w->check) && r.events != rounds)
		sc_failf(&w->check, "%s: consumer handled %" PRId64 " of %d events", spec, r.events, rounds);
out:
	sc_finish(&w->check, &r, t0);
	sc_line_destroy(&line);
	free(w);
	return r;
}

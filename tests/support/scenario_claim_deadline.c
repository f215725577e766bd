/* SPDX-License-Identifier: Apache-2.0 */
/*
 * scenario_claim_deadline.c: claims with a deadline on a full ring.
 */
#include <sched.h>
#include <stdlib.h>

#include "scenario_internal.h"

#define MAX_CLAIMERS 8

typedef struct gate_ctx {
	sc_check check;
	atomic_int open;
	atomic_int in_handler;
	atomic_llong handled;
	int64_t last;               /* consumer-private */
	sr_sequencer *seq;
	int64_t timeout_ns;
	atomic_int claim_results[MAX_CLAIMERS];
} gate_ctx;

/* The consumer: stopped inside its handler until the gate opens. */
static int
on_event(void *arg, void *slot, int64_t s, bool end_of_batch)
{
	(void)end_of_batch;
	gate_ctx *g = arg;
	atomic_store(&g->in_handler, 1);
	while (!atomic_load(&g->open))
		sc_sleep_ns(200 * 1000);
	if (*(const int64_t *)slot != s || s != g->last + 1)
		sc_failf(&g->check, "consumer: sequence %" PRId64 " holds %" PRId64 " after %" PRId64,
		    s, *(const int64_t *)slot, g->last);
	g->last = s;
	atomic_fetch_add(&g->handled, 1);
	return 0;
}

static void *
claimer_main(void *arg)
{
	sc_thread *c = arg;
	gate_ctx *g = c->ctx;
	int64_t first;
	int rc = sr_sequencer_claim_timeout(g->seq, 1, g->timeout_ns, &first);
	atomic_store(&g->claim_results[c->id], rc);
	return NULL;
}

static void *
opener_main(void *arg)
{
	gate_ctx *g = arg;
	sc_sleep_ns(20 * SC_MS);
	atomic_store(&g->open, 1);
	return NULL;
}

/* `claimers` threads claim at once with a deadline of g->timeout_ns: each must time out. */
static void
concurrent_claims_time_out(gate_ctx *g, int claimers)
{
	sc_thread cl[MAX_CLAIMERS];
	if (claimers > MAX_CLAIMERS)
		claimers = MAX_CLAIMERS;
	for (int i = 0; i < claimers; i++)
		atomic_store(&g->claim_results[i], 1);
	sc_threads_start(cl, claimers, claimer_main, g);
	sc_threads_join(cl, claimers);
	for (int i = 0; i < claimers; i++) {
		int crc = atomic_load(&g->claim_results[i]);
		if (crc != SR_ETIMEDOUT)
			sc_failf(&g->check, "concurrent claimer %d of %d returned %d, expected SR_ETIMEDOUT",
			    i, claimers, crc);
	}
}

sc_result
sc_claim_deadline(enum sr_producer_mode mode, bool synchronize, int claimers, const char *spec)
{
	sc_result r = sc_result_ok();
	gate_ctx *g = calloc(1, sizeof *g);
	int64_t t0 = sc_begin(&g->check);
	g->last = -1;
	sc_line line = { 0 };
	const int64_t timeout = 50 * SC_MS;
	sc_line_spec lspec = sc_int64_line(8, mode, spec);
	lspec.synchronize = synchronize;
	sr_handler h = { .ctx = g, .on_event = on_event };
	if (!sc_line_open(&line, &g->check, &lspec, &h))
		goto out;
	sr_sequencer *seq = g->seq = line.seq;
	sc_publish_values(seq, line.ring, 1);
	while (!atomic_load(&g->in_handler))
		sched_yield();
	sc_publish_values(seq, line.ring, 7); /* 8 published, none released: full */

	int64_t s = -100;
	int rc = sr_sequencer_try_claim(seq, &s);
	if (rc != SR_EFULL) {
		sc_failf(&g->check, "try_claim on a full ring returned %d, expected SR_EFULL", rc);
		goto out;
	}
	if (sr_sequencer_remaining_capacity(seq) != 0)
		sc_failf(&g->check, "remaining capacity of a full ring is %" PRId64,
		    sr_sequencer_remaining_capacity(seq));
	int64_t before = sc_now();
	rc = sr_sequencer_claim_timeout(seq, 1, timeout, &s);
	r.n[0] = sc_now() - before;
	if (rc != SR_ETIMEDOUT) {
		sc_failf(&g->check, "claim with a 50 ms deadline on a full ring returned %d (%s), expected"
		    " SR_ETIMEDOUT", rc, sr_strerror(rc));
		goto out;
	}
	if (r.n[0] < timeout - SC_MS)
		sc_failf(&g->check, "claim gave up after %" PRId64 " us, before its 50 ms deadline",
		    r.n[0] / 1000);
	rc = sr_sequencer_claim_timeout(seq, 3, 20 * SC_MS, &s);
	if (rc != SR_ETIMEDOUT)
		sc_failf(&g->check, "claim of 3 with a 20 ms deadline returned %d, expected SR_ETIMEDOUT", rc);
	if (mode == SR_PRODUCER_MULTI && claimers > 0) {
		g->timeout_ns = timeout;
		concurrent_claims_time_out(g, claimers);
	}
	if (sr_sequencer_cursor(seq) != 7)
		sc_failf(&g->check, "timed-out claims moved the cursor to %" PRId64, sr_sequencer_cursor(seq));
	if (atomic_load(&g->handled) != 0)
		sc_failf(&g->check, "the stopped consumer handled %lld events", (long long)atomic_load(&g->handled));

	/* Resume the consumer while a claim with a long deadline waits. */
	pthread_t opener;
	pthread_create(&opener, NULL, opener_main, g);
	before = sc_now();
	rc = sr_sequencer_claim_timeout(seq, 1, 10 * SC_S, &s);
	r.n[1] = sc_now() - before;
	pthread_join(opener, NULL);
	if (rc != SR_OK || s != 8) {
		sc_failf(&g->check, "claim once the consumer resumed returned %d with sequence %" PRId64
		    ", expected SR_OK and 8", rc, s);
		goto out;
	}
	*(int64_t *)sr_ring_slot(line.ring, s) = s;
	sr_sequencer_publish(seq, s);
	sc_await_sequence(&g->check, sr_processor_sequence(line.proc), 8, "consumer");
	r.events = atomic_load(&g->handled);
	if (!sc_failed(&g->check) && r.events != 9)
		sc_failf(&g->check, "%" PRId64 " events handled, expected 9", r.events);
out:
	/* Open the gate first: a consumer stopped in its handler would never see the halt. */
	atomic_store(&g->open, 1);
	sc_finish(&g->check, &r, t0);
	sc_line_destroy(&line);
	free(g);
	return r;
}

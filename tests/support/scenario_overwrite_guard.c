/* SPDX-License-Identifier: Apache-2.0 */
/*
 * scenario_overwrite_guard.c: a producer never overwrites a slot its
 * consumer has not released.
 */
#include <sched.h>
#include <stdlib.h>

#include "scenario_internal.h"

#define GUARD_WORDS 8
#define MAX_PRODUCERS 16

typedef struct guard_ctx {
	sc_check check;
	sc_line line;           /* ring and sequencer; the consumer is hand-written */
	sc_producers producers;
	sr_sequence consumed;   /* the consumer's gating sequence */
	sr_barrier barrier;
	int64_t first;          /* the first sequence (initial + 1) */
	int64_t last;           /* the last sequence the producers publish */
	uint64_t seed;
	int64_t verified;       /* consumer-private */
} guard_ctx;

/* The slot's previous occupant, s - size, must be published and consumed: it is there, whole. */
static bool
fill(void *arg, int id, void *slot, int64_t s, int64_t prev)
{
	guard_ctx *ctx = arg;
	int64_t *words = slot;
	if (prev >= 0) {
		for (int w = 0; w < GUARD_WORDS; w++) {
			if (words[w] != prev) {
				sc_failf(&ctx->check, "producer %d: claimed %" PRId64 " but its slot holds %"
				    PRId64 " in word %d, expected the consumed %" PRId64, id, s, words[w], w, prev);
				break;
			}
		}
	}
	for (int w = 0; w < GUARD_WORDS; w++)
		words[w] = s;
	return true;
}

static void *
consumer_main(void *arg)
{
	guard_ctx *ctx = arg;
	sr_ring *ring = ctx->line.ring;
	uint64_t rng = ctx->seed ^ UINT64_C(0x9e3779b97f4a7c15);
	int64_t last = ctx->last;
	int64_t next = ctx->first;
	while (next <= last) {
		int64_t avail = next - 1;
		int rc = sr_barrier_wait_for(&ctx->barrier, next, &avail);
		if (rc == SR_EALERTED)
			return NULL;
		if (rc != SR_OK || avail < next)
			continue;
		if (avail > last)
			avail = last;
		/* After a failure, keep releasing (unchecked) so that producers finish. */
		bool check = !sc_failed(&ctx->check);
		for (int64_t s = next; check && s <= avail; s++) {
			const int64_t *words = sr_ring_slot(ring, s);
			for (int w = 0; w < GUARD_WORDS; w++) {
				if (words[w] != s) {
					sc_failf(&ctx->check, "consumer: slot of sequence %" PRId64 " holds %" PRId64
					    " in word %d before release", s, words[w], w);
					check = false;
					break;
				}
			}
		}
		/* Linger now and then, holding the batch, then look again. */
		if (check && (sc_rand(&rng) & 7) == 0) {
			if (sc_rand(&rng) & 1)
				sched_yield();
			else
				sc_spin_ns(2000);
			for (int64_t s = next; s <= avail; s++) {
				const int64_t *words = sr_ring_slot(ring, s);
				if (words[0] != s || words[GUARD_WORDS - 1] != s) {
					sc_failf(&ctx->check, "consumer: slot of sequence %" PRId64
					    " was overwritten with %" PRId64 " before the consumer released it",
					    s, words[0] != s ? words[0] : words[GUARD_WORDS - 1]);
					break;
				}
			}
		}
		ctx->verified += avail - next + 1;
		/* pairs with the load-acquire of gating sequences in the producers' claim */
		sr_sequence_set(&ctx->consumed, avail);
		next = avail + 1;
	}
	return NULL;
}

sc_result
sc_overwrite_guard(enum sr_producer_mode mode, int producers, int64_t ring_size,
    int64_t per_producer, const char *wait_spec, int64_t initial_sequence, uint64_t seed)
{
	sc_result r = sc_result_ok();
	/* Aligned: the consumed sequence inside is cache-line aligned. */
	guard_ctx *ctx = aligned_alloc(SR_CACHELINE,
	    (sizeof *ctx + SR_CACHELINE - 1) / SR_CACHELINE * SR_CACHELINE);
	memset(ctx, 0, sizeof *ctx);
	int64_t t0 = sc_begin(&ctx->check);
	sc_thread prods[MAX_PRODUCERS];
	producers = sc_producer_count(mode, producers, MAX_PRODUCERS);
	sc_producers_init(&ctx->producers, &ctx->check, &ctx->line, initial_sequence + 1, per_producer, fill, ctx);
	ctx->first = initial_sequence + 1;
	ctx->last = initial_sequence + (int64_t)producers * per_producer;
	ctx->seed = seed;
	sc_line_spec spec = {
		.size = ring_size, .slot_size = GUARD_WORDS * sizeof(int64_t), .mode = mode, .wait = wait_spec,
		.synchronize = true, .initial_sequence = initial_sequence,
	};
	if (!sc_line_build(&ctx->line, &ctx->check, &spec))
		goto out;
	sr_sequence_init(&ctx->consumed, initial_sequence);
	sr_sequencer_add_gating(ctx->line.seq, &ctx->consumed);
	sr_error err;
	if (sr_barrier_init(&ctx->barrier, ctx->line.seq, NULL, 0, &err) != SR_OK) {
		sc_failf(&ctx->check, "sr_barrier_init failed: %s", err.message);
		goto out;
	}
	pthread_t consumer;
	pthread_create(&consumer, NULL, consumer_main, ctx);
	sc_threads_start(prods, producers, sc_producer_main, &ctx->producers);
	if (!sc_await_sequence(&ctx->check, &ctx->consumed, ctx->last, "consumer")) {
		sr_barrier_alert(&ctx->barrier);
		sc_sleep_ns(100 * SC_MS);
		if (atomic_load(&ctx->producers.done) < producers)
			sc_hung("overwrite guard: consumer stuck, producers blocked");
	}
	sc_threads_join(prods, producers);
	pthread_join(consumer, NULL);
	r.events = ctx->verified;
	if (!sc_failed(&ctx->check) && ctx->verified != (int64_t)producers * per_producer)
		sc_failf(&ctx->check, "consumer verified %" PRId64 " slots, expected %" PRId64,
		    ctx->verified, (int64_t)producers * per_producer);
out:
	sc_finish(&ctx->check, &r, t0);
	sc_line_destroy(&ctx->line);
	free(ctx);
	return r;
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * scenario_multi_producer.c: multi-producer exactly-once, in producer order.
 */
#include <stdlib.h>

#include "scenario_internal.h"

typedef struct mp_slot {
	int32_t producer;
	int32_t check;   /* producer ^ low bits of index ^ a constant: catches torn slots */
	int64_t index;
} mp_slot;

typedef struct mp_ctx {
	sc_check check;
	const sc_mp_params *params;
	sc_line line;
	int64_t next[SC_MP_MAX_PRODUCERS]; /* consumer-private: next expected index */
	int64_t delivered;                 /* consumer-private */
	int64_t last_sequence;             /* consumer-private */
	atomic_int producers_done;
} mp_ctx;

static int32_t
check_value(int32_t producer, int64_t index)
{
	return producer ^ (int32_t)(index & 0x7fffffff) ^ 0x5a5a5a5a;
}

static void *
producer_main(void *arg)
{
	sc_thread *pr = arg;
	mp_ctx *ctx = pr->ctx;
	const sc_mp_params *pp = ctx->params;
	sr_sequencer *seq = ctx->line.seq;
	uint64_t rng = pp->seed * 1000003u + (uint64_t)pr->id + 1;
	for (int64_t i = 0; i < pp->per_producer && !sc_failed(&ctx->check);) {
		int64_t k = 1;
		if (pp->max_claim > 1) {
			k = 1 + (int64_t)(sc_rand(&rng) % (uint64_t)pp->max_claim);
			if (k > pp->per_producer - i)
				k = pp->per_producer - i;
		}
		int64_t first;
		int rc = k == 1 ? sr_sequencer_claim(seq, &first) : sr_sequencer_claim_n(seq, k, &first);
		if (rc != SR_OK) {
			sc_failf(&ctx->check, "producer %d: claim of %" PRId64 " returned %d (%s)",
			    pr->id, k, rc, sr_strerror(rc));
			break;
		}
		for (int64_t j = 0; j < k; j++) {
			mp_slot *slot = sr_ring_slot(ctx->line.ring, first + j);
			slot->producer = pr->id;
			slot->index = i + j;
			slot->check = check_value(pr->id, i + j);
		}
		if (k == 1)
			sr_sequencer_publish(seq, first);
		else
			sr_sequencer_publish_range(seq, first, first + k - 1);
		i += k;
	}
	atomic_fetch_add(&ctx->producers_done, 1);
	return NULL;
}

static int
on_event(void *arg, void *slot_ptr, int64_t sequence, bool end_of_batch)
{
	(void)end_of_batch;
	mp_ctx *ctx = arg;
	const sc_mp_params *pp = ctx->params;
	const mp_slot *slot = slot_ptr;
	if (sequence != ctx->last_sequence + 1)
		sc_failf(&ctx->check, "consumer: sequence %" PRId64 " follows %" PRId64,
		    sequence, ctx->last_sequence);
	ctx->last_sequence = sequence;
	int32_t p = slot->producer;
	if (p < 0 || p >= pp->producers || slot->check != check_value(p, slot->index)) {
		sc_failf(&ctx->check, "consumer: torn or foreign slot at sequence %" PRId64
		    " (producer %d, index %" PRId64 ", check %d)", sequence, p, slot->index, slot->check);
		return 0;
	}
	if (slot->index != ctx->next[p]) {
		sc_failf(&ctx->check, "consumer: producer %d's event %" PRId64 " arrived when %" PRId64
		    " was expected (sequence %" PRId64 "): %s", p, slot->index, ctx->next[p], sequence,
		    slot->index < ctx->next[p] ? "duplicate or overwritten" : "lost or reordered");
	}
	ctx->next[p] = slot->index + 1;
	ctx->delivered++;
	sc_spin_ns(pp->consumer_spin_ns);
	if (pp->consumer_nap_every > 0 && ctx->delivered % pp->consumer_nap_every == 0)
		sc_sleep_ns(50 * 1000);
	return 0;
}

sc_result
sc_multi_producer(const sc_mp_params *pp)
{
	sc_result r = sc_result_ok();
	mp_ctx *ctx = calloc(1, sizeof *ctx);
	sc_thread *prods = calloc((size_t)pp->producers, sizeof *prods);
	int64_t t0 = sc_begin(&ctx->check);
	ctx->params = pp;
	ctx->last_sequence = pp->initial_sequence;
	atomic_init(&ctx->producers_done, 0);

	if (pp->producers < 1 || pp->producers > SC_MP_MAX_PRODUCERS) {
		sc_failf(&ctx->check, "bad scenario: %d producers", pp->producers);
		goto out;
	}
	sc_line_spec spec = {
		.size = pp->ring_size, .slot_size = sizeof(mp_slot), .mode = SR_PRODUCER_MULTI, .wait = pp->wait,
		.synchronize = pp->synchronize, .initial_sequence = pp->initial_sequence,
	};
	sr_handler h = { .ctx = ctx, .on_event = on_event };
	if (!sc_line_open(&ctx->line, &ctx->check, &spec, &h))
		goto out;
	sr_processor *proc = ctx->line.proc;
	sc_threads_start(prods, pp->producers, producer_main, ctx);
	int64_t total = (int64_t)pp->producers * pp->per_producer;
	int64_t last = pp->initial_sequence + total;
	/* Watch the consumer: it must reach the last sequence (a stall is a hang). */
	if (!sc_await_sequence(&ctx->check, sr_processor_sequence(proc), last, "consumer")) {
		sr_processor_halt(proc);
		sc_sleep_ns(100 * SC_MS);
		if (atomic_load(&ctx->producers_done) < pp->producers)
			sc_hung("multi-producer: producers blocked on a full ring behind a stuck consumer");
	}
	sc_threads_join(prods, pp->producers);
	sr_processor_halt(proc);
	sr_processor_join(proc);

	if (!sc_failed(&ctx->check)) {
		for (int i = 0; i < pp->producers; i++) {
			if (ctx->next[i] != pp->per_producer) {
				sc_failf(&ctx->check, "producer %d: %" PRId64 " of %" PRId64 " events delivered",
				    i, ctx->next[i], pp->per_producer);
				break;
			}
		}
		if (ctx->delivered != total)
			sc_failf(&ctx->check, "%" PRId64 " events delivered, expected %" PRId64,
			    ctx->delivered, total);
	}
	r.events = ctx->delivered;
	r.n[0] = sr_sequence_get(sr_processor_sequence(proc));
out:
	sc_finish(&ctx->check, &r, t0);
	sc_line_destroy(&ctx->line);
	free(prods);
	free(ctx);
	return r;
}

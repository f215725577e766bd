/* SPDX-License-Identifier: Apache-2.0 */
/*
 * stress_torture.c: every sequencer x every wait strategy x {1, 2, 4, 8}
 * producers x {1, 2} consumer chains, on rings down to 2 slots and with
 * sequences starting near 2^62.  Each event carries (producer, index,
 * checksum); every consumer verifies that it sees each producer's events
 * exactly once, in order, checksum intact, and the last one counts them all.
 *
 * A plain program (not Criterion) so that the tsan preset runs it too.
 * Usage: stress_torture [--events N]   (per producer; default bounded for CI)
 * TORTURE_TIMES=1 in the environment prints each configuration's run time.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <seqring/sr_processor.h>

#include "stress_args.h"

#define MAX_PRODUCERS 8

struct event {
	int64_t producer, index;
	uint64_t checksum;
};

static uint64_t
checksum_of(int64_t producer, int64_t index)
{
	uint64_t x = (uint64_t)producer * 0x9E3779B97F4A7C15u ^ (uint64_t)index;
	x ^= x >> 31;
	x *= 0xBF58476D1CE4E5B9u;
	return x ^ (x >> 29);
}

struct verifier {
	int64_t next_index[MAX_PRODUCERS]; /* the index expected next from each producer */
	int64_t seen;
	int64_t errors;
	char first_error[160];
};

static int
verify(void *ctx, void *slot, int64_t sequence, bool end_of_batch)
{
	struct verifier *v = ctx;
	const struct event *e = slot;
	(void)end_of_batch;
	if (e->producer < 0 || e->producer >= MAX_PRODUCERS || e->index != v->next_index[e->producer] ||
	    e->checksum != checksum_of(e->producer, e->index)) {
		if (v->errors++ == 0)
			snprintf(v->first_error, sizeof v->first_error,
			    "sequence %" PRId64 ": producer %" PRId64 " index %" PRId64 " (expected %" PRId64
			    "), checksum %s", sequence, e->producer, e->index,
			    e->producer >= 0 && e->producer < MAX_PRODUCERS ? v->next_index[e->producer] : -1,
			    e->checksum == checksum_of(e->producer, e->index) ? "ok" : "BAD");
		return 0;
	}
	v->next_index[e->producer]++;
	v->seen++;
	return 0;
}

struct producer_arg {
	sr_sequencer *seq;
	sr_ring *ring;
	int64_t id, events;
};

static void *
produce(void *p)
{
	struct producer_arg *a = p;
	for (int64_t i = 0; i < a->events;) {
		/* Mix single claims and small ranges to exercise publish_range. */
		int64_t n = (i % 7 == 3 && a->ring->slot_count >= 4) ? 3 : 1;
		if (n > a->events - i)
			n = a->events - i;
		int64_t first;
		if (sr_sequencer_claim_n(a->seq, n, &first) != SR_OK)
			return (void *)1;
		for (int64_t k = 0; k < n; k++) {
			struct event *e = sr_ring_slot(a->ring, first + k);
			*e = (struct event){ a->id, i + k, checksum_of(a->id, i + k) };
		}
		sr_sequencer_publish_range(a->seq, first, first + n - 1);
		i += n;
	}
	return NULL;
}

static int
run_one(enum sr_producer_mode mode, enum sr_wait_kind wait, int producers, int chain,
    int64_t slots, int64_t initial, int64_t events)
{
	sr_error err;
	sr_sequencer_config sc;
	sr_sequencer_config_default(&sc, slots, mode);
	sr_wait_config_default(&sc.wait, wait);
	sc.wait.timeout_ns = 1000 * 1000;
	sc.initial_sequence = initial;
	sr_ring *ring = sr_ring_create(slots, sizeof(struct event), NULL, NULL, &err);
	sr_sequencer *seq = ring ? sr_sequencer_create(&sc, &err) : NULL;
	if (seq == NULL) {
		fprintf(stderr, "setup failed: %s\n", err.message);
		return 1;
	}
	struct verifier v[2];
	memset(v, 0, sizeof v);
	sr_processor *proc[2] = { NULL, NULL };
	for (int c = 0; c < chain; c++) {
		const sr_sequence *dep = c > 0 ? sr_processor_sequence(proc[c - 1]) : NULL;
		sr_processor_config pc = { .ring = ring, .sequencer = seq,
		    .dependents = c > 0 ? &dep : NULL, .dependent_count = c > 0,
		    .handler = { .ctx = &v[c], .on_event = verify }, .max_batch_size = c ? 5 : 0 };
		proc[c] = sr_processor_create(&pc, &err);
		if (proc[c] == NULL || sr_processor_start(proc[c], &err) != SR_OK) {
			fprintf(stderr, "processor: %s\n", err.message);
			return 1;
		}
	}
	sr_sequencer_add_gating(seq, sr_processor_sequence(proc[chain - 1]));

	pthread_t threads[MAX_PRODUCERS];
	struct producer_arg args[MAX_PRODUCERS];
	for (int p = 0; p < producers; p++) {
		args[p] = (struct producer_arg){ seq, ring, p, events };
		pthread_create(&threads[p], NULL, produce, &args[p]);
	}
	int failed = 0;
	for (int p = 0; p < producers; p++) {
		void *rc;
		pthread_join(threads[p], &rc);
		failed |= rc != NULL;
	}
	for (int c = 0; c < chain; c++) {
		sr_processor_drain_and_halt(proc[c]);
		sr_processor_join(proc[c]);
	}
	int64_t expected = (int64_t)producers * events;
	for (int c = 0; c < chain; c++) {
		if (v[c].errors != 0 || v[c].seen != expected) {
			fprintf(stderr, "FAIL %s %s producers=%d chain=%d slots=%" PRId64 " start=%" PRId64
			    ": consumer %d saw %" PRId64 " of %" PRId64 " with %" PRId64 " errors; %s\n",
			    mode == SR_PRODUCER_SINGLE ? "single" : "multi", sr_wait_kind_name(wait),
			    producers, chain, slots, initial, c, v[c].seen, expected, v[c].errors, v[c].first_error);
			failed = 1;
		}
		sr_processor_destroy(proc[c]);
	}
	sr_sequencer_destroy(seq);
	sr_ring_destroy(ring);
	return failed;
}

int
main(int argc, char **argv)
{
#if defined(__SANITIZE_THREAD__)
	int64_t events = 300; /* TSan slows everything ~10x and runs one core */
#else
	int64_t events = 3000;
#endif
	const sa_option options[] = {
		{ .name = "events", .kind = SA_COUNT, .dest = &events, .min = 1, .max = 1000000000,
		    .help = "events per producer in each configuration (default bounded for CI)" },
	};
	sa_parse(argc, argv, options, sizeof options / sizeof *options, NULL);
	const int producer_counts[] = { 1, 2, 4, 8 };
	const int64_t slot_counts[] = { 2, 8, 1024 };
	int runs = 0, failures = 0;
	int64_t verified = 0;
	for (int mode = SR_PRODUCER_SINGLE; mode <= SR_PRODUCER_MULTI; mode++) {
		for (int w = 0; w < SR_WAIT_KIND_COUNT; w++) {
			for (int pi = 0; pi < 4; pi++) {
				int producers = producer_counts[pi];
				if (mode == SR_PRODUCER_SINGLE && producers > 1)
					continue; /* one producing thread by definition */
				for (int chain = 1; chain <= 2; chain++) {
					int64_t slots = slot_counts[(w + pi + chain) % 3];
					int64_t initial = (runs % 2) ? (INT64_C(1) << 62) - 3 : -1;
					/*
					 * Busy-spinning threads beyond the 2 cores progress only
					 * when the scheduler preempts a spinner (a time slice
					 * per hand-off): fewer events keep the run bounded.
					 */
					int64_t n = events;
					if (w == SR_WAIT_BUSY_SPIN && producers + chain > 2)
						n = events / 20 + 1;
					int64_t t0 = sr_monotonic_ns();
					failures += run_one((enum sr_producer_mode)mode, (enum sr_wait_kind)w,
					    producers, chain, slots, initial, n);
					if (getenv("TORTURE_TIMES")) fprintf(stderr, "%s %s p=%d c=%d slots=%lld %.3fs\n", mode ? "multi" : "single", sr_wait_kind_name((enum sr_wait_kind)w), producers, chain, (long long)slots, (sr_monotonic_ns() - t0) / 1e9);
					verified += (int64_t)producers * n * chain;
					runs++;
				}
			}
		}
	}
	printf("torture: %d configurations, %" PRId64 " event checks, %d failed\n",
	    runs, verified, failures);
	return failures == 0 ? 0 : 1;
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * batching.c: what batching buys on each side of the ring.  A consumer that
 * stores its sequence after every event makes the producer's core fetch that
 * cache line again and again; one that stores it once per batch (as
 * sr_processor does) pays once for many events.  Likewise a producer that
 * claims and publishes ten events at a time moves the cursor's line once per
 * ten events.  Four combinations, same ring, same events.
 *
 * The prediction: the consumer handles, in one batch, everything published
 * since it last looked.  While the producer publishes an event faster than
 * the consumer can fetch the cursor's line from the other core (T, measured
 * at the start), the producer is ahead.  A consumer that advances its
 * sequence once per batch frees no slot until the batch is done, so the
 * producer fills the ring meanwhile and the next batch is the whole ring:
 * RING slots.  The verdict is on that consumer's mean batch (the producer
 * publishing every event).  A consumer that advances per event frees slots
 * one by one and the producer refills them: its batches are whatever the
 * race between the two gives, printed beside.  --producer-work N makes the
 * producer compute each value (N dependent multiplies): once that takes
 * longer than T, the consumer keeps up, its batches shrink to a few events,
 * and the verdict says so.  (The flip below makes an event take some
 * hundred microseconds, so that even a consumer that loses its CPU for a
 * time slice to another process finds only a few events waiting.)
 *
 * Flips the verdict: --producer-work 40000 --events 2048
 *
 * Run: batching [--quick] [--events N] [--producer-work N]
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ex_flags.h"
#include "ex_machine.h"
#include "ex_verdict.h"
#include <seqring/sr_barrier.h>
#include <seqring/sr_ring.h>

#define RING 1024

static int64_t events = 50 * 1000 * 1000;
static int producer_work;

struct run {
	sr_ring *ring;
	sr_sequencer *seq;
	sr_barrier barrier;
	sr_sequence consumed;
	bool consumer_batches;
	int64_t sum;
	int64_t batches;  /* the consumer's: how many times it found new events */
};

static void *
consume(void *p)
{
	struct run *r = p;
	int64_t next = 0, sum = 0;
	while (next < events) {
		int64_t avail;
		if (sr_barrier_wait_for(&r->barrier, next, &avail) != SR_OK)
			break;
		r->batches++;
		for (; next <= avail; next++) {
			int64_t v;
			memcpy(&v, sr_ring_slot(r->ring, next), sizeof v);
			sum += v;
			if (!r->consumer_batches) /* pairs with the producer's gating load-acquire */
				sr_sequence_set(&r->consumed, next);
		}
		if (r->consumer_batches) /* pairs with the producer's gating load-acquire */
			sr_sequence_set(&r->consumed, avail);
	}
	r->sum = sum;
	return NULL;
}

/*
 * The producer's value for event v: v itself, after producer_work dependent
 * multiply-adds whose result is folded back in as 0 (the empty asm keeps
 * the compiler from seeing through them), so that the consumer's sum still
 * checks every event.
 */
static inline int64_t
produce(int64_t v)
{
	uint64_t x = (uint64_t)v;
	for (int j = 0; j < producer_work; j++) {
		x = x * UINT64_C(6364136223846793005) + UINT64_C(1442695040888963407);
		__asm__ volatile("" : "+r"(x));
	}
	return v + (int64_t)(x & 0) * (producer_work > 0 ? 1 : 0);
}

struct result {
	double events_per_s;
	double mean_batch;
};

static struct result
run(bool consumer_batches, int64_t producer_batch)
{
	sr_error err;
	sr_sequencer_config sc;
	sr_sequencer_config_default(&sc, RING, SR_PRODUCER_SINGLE);
	sr_wait_config_default(&sc.wait, SR_WAIT_YIELD);
	struct run r = { .consumer_batches = consumer_batches };
	r.ring = sr_ring_create(RING, 8, NULL, NULL, &err);
	r.seq = sr_sequencer_create(&sc, &err);
	sr_sequence_init(&r.consumed, -1);
	sr_barrier_init(&r.barrier, r.seq, NULL, 0, &err);
	sr_sequencer_add_gating(r.seq, &r.consumed);
	pthread_t t;
	int64_t start = sr_monotonic_ns();
	pthread_create(&t, NULL, consume, &r);
	for (int64_t i = 0; i < events; i += producer_batch) {
		int64_t first, n = events - i < producer_batch ? events - i : producer_batch;
		sr_sequencer_claim_n(r.seq, n, &first);
		for (int64_t k = 0; k < n; k++) {
			int64_t v = produce(i + k);
			memcpy(sr_ring_slot(r.ring, first + k), &v, sizeof v);
		}
		sr_sequencer_publish_range(r.seq, first, first + n - 1);
	}
	pthread_join(t, NULL);
	struct result res = { (double)events / ((double)(sr_monotonic_ns() - start) / 1e9),
		r.batches > 0 ? (double)events / (double)r.batches : 0 };
	if (r.sum != (events - 1) * events / 2)
		fprintf(stderr, "batching: wrong sum, events were lost\n"), res.events_per_s = 0;
	sr_sequencer_destroy(r.seq);
	sr_ring_destroy(r.ring);
	return res;
}

static void
quick(void)
{
	events = 2 * 1000 * 1000;
}

int
main(int argc, char **argv)
{
	const ex_flag flags[] = {
		{ "--quick", EX_FLAG_ACTION, NULL, 0, 0, quick },
		{ "--events", EX_FLAG_INT64, &events, RING, (double)INT64_MAX, NULL },
		{ "--producer-work", EX_FLAG_INT, &producer_work, 0, 100000, NULL },
	};
	ex_flags_parse(argc, argv, "batching",
	    "[--quick] [--events N (at least " EX_STRINGIFY(RING) ")] [--producer-work N (0..100000, default 0)]",
	    flags, sizeof flags / sizeof flags[0]);
	ex_machine m;
	ex_machine_measure(&m);
	ex_predict("the consumer's mean batch, advancing once per batch", RING, "events",
	    "the ring's size, %d slots: the producer is ahead (it publishes an event in less than T = %.0f ns, "
	    "the time the consumer takes to fetch the cursor's line), and the consumer frees no slot before "
	    "its batch ends, so it finds the ring full at every look", RING, m.transfer_ns);
	ex_watch w;
	ex_watch_start(&w);
	struct result r[4];
	r[0] = run(false, 1);
	r[1] = run(true, 1);
	r[2] = run(false, 10);
	r[3] = run(true, 10);
	const char *rows[4] = { "| every event | every event", "| every event | once per batch",
		"| 10 at a time | every event", "| 10 at a time | once per batch" };
	printf("| producer publishes | consumer advances its sequence | M events/s | ns per event | "
	    "consumer's mean batch (events) |\n|---|---|---:|---:|---:|\n");
	for (int i = 0; i < 4; i++)
		printf("%s | %.1f | %.1f | %.1f |\n", rows[i], r[i].events_per_s / 1e6,
		    r[i].events_per_s > 0 ? 1e9 / r[i].events_per_s : 0, r[i].mean_batch);
	printf("\n");
	for (int i = 0; i < 4; i++)
		if (r[i].events_per_s <= 0 || !ex_check_cycles(&m, rows[i] + 2, 1e9 / r[i].events_per_s))
			return 1;
	/* The producer's time per event, the premise of the prediction: compared with T. */
	double producer_ns = 1e9 / r[1].events_per_s;
	char reason[200] = "";
	if (r[1].mean_batch < RING / 2 && producer_ns > m.transfer_ns)
		snprintf(reason, sizeof reason, "the producer took %.0f ns per event, more than T = %.0f ns, so "
		    "the consumer kept up with it", producer_ns, m.transfer_ns);
	ex_claim c = { .what = "the consumer's mean batch", .predicted = RING, .measured = r[1].mean_batch,
		.tolerance = 1.5, .threads = 2, .own_reason = reason[0] ? reason : NULL };
	ex_verdict(&m, &w, &c);
	int fastest = 0;
	for (int i = 1; i < 4; i++)
		if (r[i].events_per_s > r[fastest].events_per_s)
			fastest = i;
	printf("Measured: against publishing and advancing per event, advancing once per batch moved %.2fx the "
	    "events, publishing 10 at a time %.2fx, both %.2fx; the fastest was \"%s\".\n",
	    r[1].events_per_s / r[0].events_per_s, r[2].events_per_s / r[0].events_per_s,
	    r[3].events_per_s / r[0].events_per_s, rows[fastest] + 2);
	return 0;
}

/*
 * batching.c: what batching buys on each side of the ring.  A consumer that
 * stores its sequence after every event makes the producer's core fetch that
 * cache line again and again; one that stores it once per batch (as
 * sr_processor does) pays once for many events.  Likewise a producer that
 * claims and publishes ten events at a time moves the cursor's line once per
 * ten events.  Four combinations, same ring, same events.
 *
 * Run: batching [--quick] [--events N]
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ex_flags.h"
#include "sr_barrier.h"
#include "sr_ring.h"

static int64_t events = 50 * 1000 * 1000;

struct run {
	sr_ring *ring;
	sr_sequencer *seq;
	sr_barrier barrier;
	sr_sequence consumed;
	bool consumer_batches;
	int64_t sum;
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

static double
run(bool consumer_batches, int64_t producer_batch)
{
	sr_error err;
	sr_sequencer_config sc;
	sr_sequencer_config_default(&sc, 1024, SR_PRODUCER_SINGLE);
	sr_wait_config_default(&sc.wait, SR_WAIT_YIELD);
	struct run r = { .consumer_batches = consumer_batches };
	r.ring = sr_ring_create(1024, 8, NULL, NULL, &err);
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
			int64_t v = i + k;
			memcpy(sr_ring_slot(r.ring, first + k), &v, sizeof v);
		}
		sr_sequencer_publish_range(r.seq, first, first + n - 1);
	}
	pthread_join(t, NULL);
	double rate = (double)events / ((double)(sr_monotonic_ns() - start) / 1e9);
	if (r.sum != (events - 1) * events / 2)
		fprintf(stderr, "batching: wrong sum, events were lost\n"), rate = 0;
	sr_sequencer_destroy(r.seq);
	sr_ring_destroy(r.ring);
	return rate;
}

static void
quick(void)
{
	events = 1000 * 1000;
}

int
main(int argc, char **argv)
{
	const ex_flag flags[] = {
		{ "--quick", EX_FLAG_ACTION, NULL, 0, 0, quick },
		{ "--events", EX_FLAG_INT64, &events, 1, (double)INT64_MAX, NULL },
	};
	int status = ex_flags_parse(argc, argv, "batching", "[--quick] [--events N]", flags,
	    sizeof flags / sizeof flags[0]);
	if (status >= 0)
		return status;
	double r[4];
	r[0] = run(false, 1);
	r[1] = run(true, 1);
	r[2] = run(false, 10);
	r[3] = run(true, 10);
	printf("| producer publishes | consumer advances its sequence | Mevents/s |\n|---|---|---:|\n");
	printf("| every event | every event | %.1f |\n| every event | once per batch | %.1f |\n",
	    r[0] / 1e6, r[1] / 1e6);
	printf("| 10 at a time | every event | %.1f |\n| 10 at a time | once per batch | %.1f |\n\n",
	    r[2] / 1e6, r[3] / 1e6);
	printf("Batching on both sides moved %.1fx the events of publishing and advancing per event: "
	    "fewer stores to shared sequences, fewer cache-line transfers.\n", r[3] / (r[0] > 0 ? r[0] : 1));
	return r[0] > 0 && r[1] > 0 && r[2] > 0 && r[3] > 0 ? 0 : 1;
}

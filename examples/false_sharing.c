/*
 * false_sharing.c: two threads, each incrementing its *own* counter.  When
 * the two counters share a 64-byte cache line, every increment forces the
 * line to move between the cores (a cache miss each way), although the
 * threads never touch each other's data.  Padding the counters onto separate
 * lines removes that traffic.  The second table does the same with the ring's
 * two hottest variables, the producer's cursor and the consumer's sequence: a
 * tiny single-producer single-consumer queue built with them adjacent, then
 * with each in an sr_sequence (its own padded line), as seqring does.
 *
 * Run: false_sharing [--quick] [--ops N]
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ex_flags.h"
#include "sr_sequence.h"
#include "sr_wait.h"

static int64_t ops = 50 * 1000 * 1000;

struct shared_line { sr_atomic_i64 a, b; } __attribute__((aligned(64)));
struct padded { sr_sequence a, b; };

static struct shared_line together;
static struct padded apart;

static void *
bump(void *p)
{
	sr_atomic_i64 *counter = p;
	for (int64_t i = 0; i < ops; i++) /* a store each time, as a real counter would */
		sr_atomic_store_relaxed_i64(counter, sr_atomic_load_relaxed_i64(counter) + 1);
	return NULL;
}

static double
two_counters(sr_atomic_i64 *a, sr_atomic_i64 *b)
{
	pthread_t t1, t2;
	int64_t start = sr_monotonic_ns();
	pthread_create(&t1, NULL, bump, a);
	pthread_create(&t2, NULL, bump, b);
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
	return 2.0 * (double)ops / ((double)(sr_monotonic_ns() - start) / 1e9);
}

/* A minimal SPSC queue of int64 values over 1024 slots: cursor and consumer. */
struct spsc { sr_atomic_i64 *cursor, *consumed; int64_t slots[1024]; };

static void *
spsc_consume(void *p)
{
	struct spsc *q = p;
	int64_t next = 0, sum = 0;
	while (next < ops) {
		/* pairs with the producer's store-release of the cursor */
		int64_t avail = sr_atomic_load_acquire_i64(q->cursor);
		for (; next <= avail; next++)
			sum += q->slots[next & 1023];
		/* pairs with the producer's load-acquire of consumed */
		sr_atomic_store_release_i64(q->consumed, next - 1);
	}
	return (void *)(intptr_t)(sum != (ops - 1) * ops / 2);
}

static double
spsc_run(sr_atomic_i64 *cursor, sr_atomic_i64 *consumed)
{
	static struct spsc q;
	q.cursor = cursor;
	q.consumed = consumed;
	sr_atomic_store_relaxed_i64(cursor, -1);
	sr_atomic_store_relaxed_i64(consumed, -1);
	pthread_t t;
	int64_t start = sr_monotonic_ns();
	pthread_create(&t, NULL, spsc_consume, &q);
	for (int64_t i = 0; i < ops; i++) {
		/* pairs with the consumer's store-release of consumed */
		while (i - 1024 > sr_atomic_load_acquire_i64(consumed))
			sr_atomic_pause();
		q.slots[i & 1023] = i;
		/* pairs with the consumer's load-acquire of the cursor */
		sr_atomic_store_release_i64(cursor, i);
	}
	void *bad;
	pthread_join(t, &bad);
	if (bad != NULL)
		fprintf(stderr, "false_sharing: the queue lost or corrupted values\n");
	return (double)ops / ((double)(sr_monotonic_ns() - start) / 1e9);
}

static void
quick(void)
{
	ops = 1000 * 1000;
}

int
main(int argc, char **argv)
{
	const ex_flag flags[] = {
		{ "--quick", EX_FLAG_ACTION, NULL, 0, 0, quick },
		{ "--ops", EX_FLAG_INT64, &ops, 1, (double)INT64_MAX, NULL },
	};
	int status = ex_flags_parse(argc, argv, "false_sharing", "[--quick] [--ops N]", flags,
	    sizeof flags / sizeof flags[0]);
	if (status >= 0)
		return status;
	double shared = two_counters(&together.a, &together.b);
	double padded = two_counters(&apart.a.value, &apart.b.value);
	printf("| two counters | Mops/s |\n|---|---:|\n");
	printf("| same cache line | %.1f |\n| padded apart | %.1f |\n\n", shared / 1e6, padded / 1e6);
	double q_shared = spsc_run(&together.a, &together.b);
	double q_padded = spsc_run(&apart.a.value, &apart.b.value);
	printf("| SPSC queue: cursor and consumer sequence | Mevents/s |\n|---|---:|\n");
	printf("| same cache line | %.1f |\n| each on its own line (sr_sequence) | %.1f |\n\n",
	    q_shared / 1e6, q_padded / 1e6);
	printf("Padding the counters apart changed their rate %.2fx although no data is shared; "
	    "the queue's rate changed %.2fx with its sequences apart.\n",
	    padded / shared, q_padded / q_shared);
	return 0;
}

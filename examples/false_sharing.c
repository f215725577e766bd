/* SPDX-License-Identifier: Apache-2.0 */
/*
 * false_sharing.c: two threads, each incrementing its *own* counter.  When
 * the two counters share a 64-byte cache line, an increment finds the line
 * in the other core's cache and must fetch it back: one line transfer per
 * increment, though the threads never touch each other's data.  Padding the
 * counters onto separate lines removes that traffic.  The second table does
 * the same with the ring's two hottest variables, the producer's cursor and
 * the consumer's sequence: a tiny single-producer single-consumer queue built
 * with them adjacent, then with each in an sr_sequence (its own padded line),
 * as seqring does.
 *
 * The prediction: a line is owned by one core at a time, so two threads
 * whose counters share it take turns and together go as fast as one thread
 * alone (R1, measured first) at best, and less for every time the line
 * moves between the cores; apart, they run at once: 2 x R1.  Padding should
 * therefore speed the pair up at least 2x.  --same-cpu runs both threads on
 * one CPU, where they take turns either way: the prediction then fails, and
 * the verdict says so.
 *
 * Flips the verdict: --same-cpu
 *
 * Run: false_sharing [--quick] [--ops N] [--same-cpu]
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ex_flags.h"
#include "ex_machine.h"
#include "ex_verdict.h"
#include <seqring/sr_sequence.h>
#include <seqring/sr_wait.h>

static int64_t ops = 20 * 1000 * 1000;
static bool same_cpu;

struct shared_line { sr_atomic_i64 a, b; } __attribute__((aligned(64)));
struct padded { sr_sequence a, b; };

static struct shared_line together;
static struct padded apart;

static double counters_once(sr_atomic_i64 *a, sr_atomic_i64 *b, int threads);

/* The fastest of three runs: the one other processes disturbed least. */
static double
counters(sr_atomic_i64 *a, sr_atomic_i64 *b, int threads)
{
	double best = 1e30;
	for (int k = 0; k < 3; k++) {
		double ns = counters_once(a, b, threads);
		if (ns < best)
			best = ns;
	}
	return best;
}

static void *
bump(void *p)
{
	sr_atomic_i64 *counter = p;
	/*
	 * An atomic add, as a statistics counter that other threads read: the
	 * core must own the line for each one (a plain store could wait in the
	 * store buffer while the line is away).
	 */
	for (int64_t i = 0; i < ops; i++)
		sr_atomic_faa_i64(counter, 1);
	return NULL;
}

/* ns per increment, per thread, of `threads` threads each bumping its own counter, once. */
static double
counters_once(sr_atomic_i64 *a, sr_atomic_i64 *b, int threads)
{
	sr_atomic_store_relaxed_i64(a, 0);
	sr_atomic_store_relaxed_i64(b, 0);
	pthread_t t[2];
	sr_atomic_i64 *c[2] = { a, b };
	int64_t start = sr_monotonic_ns();
	for (int i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, bump, c[i]);
	for (int i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	double ns = (double)(sr_monotonic_ns() - start) / (double)ops;
	/* The counts prove every increment happened (none hoisted out of the loop). */
	for (int i = 0; i < threads; i++)
		if (sr_atomic_load_relaxed_i64(c[i]) != ops)
			fprintf(stderr, "false_sharing: a counter reached %" PRId64 ", not %" PRId64 "\n",
			    sr_atomic_load_relaxed_i64(c[i]), ops);
	return ns;
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
	ops = 2 * 1000 * 1000;
}

int
main(int argc, char **argv)
{
	const ex_flag flags[] = {
		{ "--quick", EX_FLAG_ACTION, NULL, 0, 0, quick },
		{ "--ops", EX_FLAG_INT64, &ops, 1000, (double)INT64_MAX, NULL },
		{ "--same-cpu", EX_FLAG_SET, &same_cpu, 0, 0, NULL },
	};
	ex_flags_parse(argc, argv, "false_sharing",
	    "[--quick] [--ops N (at least 1000)] [--same-cpu (both threads on one CPU)]", flags,
	    sizeof flags / sizeof flags[0]);
	ex_machine m;
	ex_machine_measure(&m);
	double alone = counters(&apart.a.value, &apart.b.value, 1);
	if (!ex_check_cycles(&m, "one thread's increment", alone))
		return 1;
	/* This thread, and the counting threads it creates from now on, on one CPU. */
	if (same_cpu && !ex_run_on_one_cpu())
		return 1;
	ex_predict("speed-up of padding (both threads' increments/s, padded / one line), at least", 2, "x",
	    "R1 = %.0f M increments/s (one thread alone): on one line the threads take turns (R1 together "
	    "at best, less for every time the line moves to the other core, T = %.0f ns), padded they run at "
	    "once (2 x R1)", 1e3 / alone, m.transfer_ns);
	ex_watch w;
	ex_watch_start(&w);
	double shared = counters(&together.a, &together.b, 2);
	double padded = counters(&apart.a.value, &apart.b.value, 2);
	printf("| two counters | ns per increment, per thread | M increments/s, both threads |\n|---|---:|---:|\n");
	printf("| one thread alone | %.1f | %.1f |\n", alone, 1e3 / alone);
	printf("| same cache line | %.1f | %.1f |\n| padded apart | %.1f | %.1f |\n\n", shared,
	    2e3 / shared, padded, 2e3 / padded);
	ex_claim c = { .what = "speed-up of padding", .predicted = 2, .measured = shared / padded,
		.tolerance = 1.3, .at_least = true, .threads = 2,
		.own_reason = same_cpu ? "both threads ran on one CPU (--same-cpu): they took turns, padded or not" :
		    NULL };
	ex_verdict(&m, &w, &c);
	if (same_cpu)
		return 0; /* the queue's two threads would spin against each other on one CPU for whole time slices */

	double q_shared = spsc_run(&together.a, &together.b);
	double q_padded = spsc_run(&apart.a.value, &apart.b.value);
	printf("| SPSC queue: cursor and consumer sequence | Mevents/s |\n|---|---:|\n");
	printf("| same cache line | %.1f |\n| each on its own line (sr_sequence) | %.1f |\n\n",
	    q_shared / 1e6, q_padded / 1e6);
	printf("Measured: the queue moved %.2fx the events with its sequences on lines of their own.\n",
	    q_padded / q_shared);
	return 0;
}

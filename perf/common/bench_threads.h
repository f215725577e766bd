/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_threads.h: the start line and the finish line of a measured run's
 * threads.
 *
 * The start gate lines workers up so that they start together.  It is a
 * mutex and a condition variable rather than a pthread_barrier_t, so that a
 * thread that cannot be created does not strand the others: main opens the
 * gate with abort set.  Whatever a worker reads after the gate (its
 * arguments, the origin main publishes) is ordered by the gate's mutex.
 *
 * The finish gate lets main wait for threads with a deadline: they check in
 * when done, and main waits on a condition variable on CLOCK_MONOTONIC
 * (pthread_join has no timeout, and ThreadSanitizer does not see
 * pthread_clockjoin_np).
 */
#ifndef SR_PERF_BENCH_THREADS_H
#define SR_PERF_BENCH_THREADS_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Producers of a capped run look at their stop flag once per this many
 * events, so that the check costs nothing measurable.
 */
#define BENCH_STOP_CHECK_EVERY 1000

typedef struct bench_start_gate {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int ready;          /* workers waiting at the gate */
	bool open;
	bool abort;         /* opened because the run cannot take place */
	int64_t origin;     /* what main publishes as it opens (0 unless it says) */
} bench_start_gate;

/*
 * A worker's side: checks in and waits until main opens the gate.  false
 * when the run was aborted (the worker returns at once).  *origin (NULL: not
 * wanted) receives what main published.
 */
bool bench_start_gate_wait(bench_start_gate *g, int64_t *origin);

/*
 * Main's side of one run: sets up g, starts n threads running
 * fn(args + i * stride) (each calls bench_start_gate_wait(g, ...) first),
 * opens g once every started thread waits, publishing origin() (NULL: 0)
 * under the gate's mutex, and joins them all.  If a thread cannot be
 * started, the gate opens with abort set.  true when all n threads ran;
 * false with "cannot start thread I of N: why" in err (errsize bytes).
 */
bool bench_run_threads(bench_start_gate *g, int n, void *(*fn)(void *), void *args, size_t stride,
    int64_t (*origin)(void), char *err, size_t errsize);

typedef struct bench_finish_gate {
	pthread_mutex_t mutex;
	pthread_cond_t cond;
	int finished;
} bench_finish_gate;

void bench_finish_gate_init(bench_finish_gate *g);
void bench_finish_gate_destroy(bench_finish_gate *g);
/* A thread checks in as finished. */
void bench_finish_gate_arrive(bench_finish_gate *g);
/*
 * Waits until `count` threads have checked in; false when deadline_ns
 * (CLOCK_MONOTONIC, as sr_monotonic_ns; INT64_MAX: none) passes first.
 */
bool bench_finish_gate_wait(bench_finish_gate *g, int count, int64_t deadline_ns);

#endif /* SR_PERF_BENCH_THREADS_H */

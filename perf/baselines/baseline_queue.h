/* SPDX-License-Identifier: Apache-2.0 */
/*
 * baseline_queue.h: the queues that ring_perf and probe run beside the
 * seqring ring: Concurrency Kit's ck_ring (single- and multi-producer), a
 * mutex + condition-variable bounded FIFO (as java.util.concurrent's
 * ArrayBlockingQueue), and the "ceiling", the least a ring must do.
 *
 * One call to baseline_run is one measured run of one queue with 8-byte
 * items: P producers each put the values 0 .. events/P - 1, one consumer
 * takes and adds them up.  What is timed: from the earliest producer's
 * first put to the consumer's last take.  Thread creation, allocation, join
 * and tear-down are outside that span.
 */
#ifndef SR_PERF_BASELINE_QUEUE_H
#define SR_PERF_BASELINE_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum baseline_kind {
	BASELINE_CK_SPSC = 0,   /* ck_ring_enqueue_spsc / ck_ring_dequeue_spsc */
	BASELINE_CK_MPMC,       /* ck_ring_enqueue_mpmc / ck_ring_dequeue_mpmc */
	BASELINE_MUTEX,         /* mutex + two condition variables, one item per lock */
	BASELINE_CEILING,       /* minimal SPSC ring: cached indices, published every 64 items */
	BASELINE_COUNT
};

/* The ceiling ring publishes its indices every this many items. */
#define BASELINE_CEILING_PUBLISH 64

/* "ck_ring_spsc", "ck_ring_mpmc", "mutex_condvar", "ceiling" */
const char *baseline_name(enum baseline_kind k);

/*
 * Whether k is in this build and takes `producers` producers: the
 * single-producer queues take one; ck_ring is left out under ThreadSanitizer,
 * which cannot see ck_pr's inline assembly.
 */
bool baseline_supports(enum baseline_kind k, int producers);

typedef struct baseline_result {
	int64_t consumed;   /* items the consumer took in the timed span */
	int64_t sum;        /* their sum */
	double seconds;     /* the timed span */
	bool capped;        /* the run hit its deadline: a partial count */
} baseline_result;

/*
 * One measured run of `events` items (a multiple of producers) through a
 * queue of `slots` items (a power of two), cut short at deadline_ns
 * (CLOCK_MONOTONIC, as sr_monotonic_ns; INT64_MAX: none): a capped run counts
 * what the consumer took by then over the time until then.  0 and *res, or
 * -1 with a message in err (errlen bytes).
 */
int baseline_run(enum baseline_kind k, int producers, int64_t events, int64_t slots,
    int64_t deadline_ns, baseline_result *res, char *err, size_t errlen);

#endif /* SR_PERF_BASELINE_QUEUE_H */

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * topology.h: the Disruptor's classic throughput tests on the seqring ring,
 * and the baselines run beside them (perf/baselines/baseline_queue.h:
 * Concurrency Kit's ck_ring, a mutex + condition-variable bounded queue, and
 * a minimal "ceiling" SPSC ring).
 *
 * One call to topo_run is one measured run: it builds the ring and its
 * consumers, starts the threads (not timed), then times from the moment the
 * first producer starts publishing to the moment the last consumer handles
 * the last event, checks what the consumers computed against the expected
 * value, and tears everything down (not timed).
 */
#ifndef SR_PERF_TOPOLOGY_H
#define SR_PERF_TOPOLOGY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <seqring/sr_wait.h>

enum topo_kind {
	TOPO_1_1 = 0,        /* 1 producer -> 1 consumer, single publishes */
	TOPO_1_1_BATCH,      /* the same, claims and publishes batches of 10 */
	TOPO_PIPELINE,       /* 1 producer -> consumer A -> B -> C */
	TOPO_MULTICAST,      /* 1 producer -> A, B, C each seeing every event */
	TOPO_3_1,            /* 3 producers (multi-producer sequencer) -> 1 consumer */
	TOPO_DIAMOND,        /* 1 producer -> A and B in parallel -> C after both */
	TOPO_COUNT
};

/* seqring, then the baseline queues of perf/baselines/baseline_queue.h, in its order. */
enum impl_kind {
	IMPL_SEQRING = 0,    /* sr_sequencer + sr_processor with a wait strategy */
	IMPL_CK_SPSC,        /* BASELINE_CK_SPSC */
	IMPL_CK_MPMC,        /* BASELINE_CK_MPMC */
	IMPL_MUTEX,          /* BASELINE_MUTEX */
	IMPL_CEILING,        /* BASELINE_CEILING */
	IMPL_COUNT
};

#define TOPO_BATCH 10            /* events per claim in TOPO_1_1_BATCH */

typedef struct topo_variant {
	enum topo_kind topo;
	enum impl_kind impl;
	sr_wait_config wait;     /* IMPL_SEQRING only */
	int64_t ring_size;       /* slots (a power of two) */
	int64_t max_batch;       /* IMPL_SEQRING: the processors' max_batch_size (0: unbounded) */
	bool built;              /* IMPL_SEQRING: wired by the graph builder (sr_disruptor.h), not by hand */
} topo_variant;

/* "1-1", "1-1-batch", "1-3-pipeline", "1-3-multicast", "3-1", "1-3-diamond" */
const char *topo_name(enum topo_kind t);
int topo_producers(enum topo_kind t);
int topo_consumers(enum topo_kind t);
int topo_batch(enum topo_kind t);

/* "ck_ring_spsc", "ck_ring_mpmc", "mutex_condvar", "ceiling" (seqring: "seqring") */
const char *impl_name(enum impl_kind i);
/* Which baselines exist for which topology (seqring: all). */
bool topo_supported(enum topo_kind t, enum impl_kind i);
/*
 * The value of the CSV's wait column: the strategy's name ("block+builder"
 * for a graph wired by the builder), or the baseline's.
 */
const char *variant_wait_label(const topo_variant *v);

/* events rounded up to a multiple of producers x batch (every producer gets whole batches). */
int64_t topo_round_events(enum topo_kind t, int64_t events);

typedef struct topo_result {
	double events_per_sec;   /* events / seconds */
	int64_t events;          /* events handled by the final consumer(s) in the timed span */
	double seconds;          /* the timed span */
	bool capped;             /* the run hit its time cap: a partial count, not checked */
} topo_result;

/*
 * One measured run of `events` events, cut short after timeout_s seconds
 * (0: no cap; the deadline counts from the call, so it includes set-up).
 * A capped run reports the events the final consumers handled by the cap
 * over the time until then; only a complete run checks its result.
 * Returns 0 and fills *res, or -1 with a message in err (set-up failure,
 * or the consumers computed a wrong result).
 */
int topo_run(const topo_variant *v, int64_t events, double timeout_s, topo_result *res,
    char *err, size_t errlen);

#endif /* SR_PERF_TOPOLOGY_H */

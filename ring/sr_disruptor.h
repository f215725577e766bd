/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_disruptor.h: the consumer-graph builder (the Disruptor's DSL:
 * Disruptor and EventHandlerGroup).
 *
 * One object owns the ring, its sequencer and every batch processor of the
 * graph.  The slot count, slot size, producer type and wait strategy are
 * given once.  Stages are added as groups of handlers:
 *
 *   g = sr_disruptor_handle_events_with(d, (sr_handler[]){ a, b }, 2, &err);
 *       a and b follow the producers, in parallel;
 *   g = sr_group_then(g, &c, 1, &err);
 *       c follows both a and b;
 *   g = sr_group_then(sr_disruptor_after(d, &a, 1, &err), &x, 1, &err);
 *       x follows a alone.
 *
 * Each new stage's barrier waits for the stages of its group; the
 * sequencer's gating sequences are kept to the graph's ends (the stages
 * nobody follows), so producers never overtake the slowest end.  A group
 * carries its first error: every call given a failed group returns it
 * unchanged, so a chain is checked once at its end (g.status).  A NULL
 * disruptor gives a failed group (SR_EINVAL) and leaves err untouched, so
 * that the message of a failed sr_disruptor_create reaches the chain's end.
 *
 * A handler is identified by its on_event function and its ctx (the
 * processor keeps a copy of the sr_handler, so the struct's address means
 * nothing).  Errors: a handler added twice; a handler added after a stage
 * it precedes (it would wait for itself: a cycle); after() of a handler
 * never added; more than SR_DISRUPTOR_MAX_STAGES stages, SR_GROUP_MAX
 * stages in a group, or more gating sequences than SR_SEQUENCER_MAX_GATING
 * (the ends, any added by hand, and the new stages while they are wired);
 * any change after start (SR_ESTATE).
 *
 * Lifecycle as the Disruptor's: start once (every processor in its own
 * thread); halt stops every stage at once; shutdown first waits until every
 * end has handled everything published before the call, up to a timeout.
 * Departures: shutdown's timeout leaves the graph running as the
 * Disruptor's does, but returns SR_ETIMEDOUT naming the first stage (in
 * graph order) that was behind, instead of throwing; and the graph cannot
 * be started again after a halt (the Disruptor forbids a second start too),
 * though each processor can (sr_processor.h).
 */
#ifndef SR_DISRUPTOR_H
#define SR_DISRUPTOR_H

#include <stdbool.h>
#include <stdint.h>

#include "sr_error.h"
#include "sr_export.h"
#include "sr_processor.h"
#include "sr_publish.h"
#include "sr_ring.h"
#include "sr_sequencer.h"
#include "sr_wait.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SR_DISRUPTOR_MAX_STAGES 64
#define SR_GROUP_MAX SR_BARRIER_MAX_DEPENDENTS

typedef struct sr_disruptor_config {
	int64_t slot_count;         /* power of two >= 2 */
	size_t slot_size;           /* multiple of 8, up to 64 KiB */
	sr_slot_init_fn slot_init;  /* optional, the Disruptor's event factory */
	void *slot_init_ctx;
	enum sr_producer_mode producer;
	bool synchronize_enqueue_when_full; /* default true, see sr_sequencer.h */
	sr_wait_config wait;        /* consumers' wait strategy, default block */
	int64_t max_batch_size;     /* for every stage; 0 (default) unbounded */
	sr_rewind_strategy rewind;  /* for every stage; default not rewindable */
} sr_disruptor_config;

typedef struct sr_disruptor sr_disruptor;

/* A set of stages, the result of adding handlers (the EventHandlerGroup). */
typedef struct sr_group {
	sr_disruptor *disruptor;
	int status;                 /* SR_OK, or the chain's first error */
	int count;
	int stages[SR_GROUP_MAX];   /* stage indexes, in the order added */
} sr_group;

/* Defaults: synchronized enqueue on, block wait strategy, unbounded batches. */
SR_API void sr_disruptor_config_default(sr_disruptor_config *config, int64_t slot_count,
    size_t slot_size, enum sr_producer_mode producer);

/*
 * Creates the ring and its sequencer, with no stage yet.  NULL and
 * SR_EINVAL (message as sr_ring_create and sr_sequencer_create) or SR_ENOMEM.
 */
SR_API sr_disruptor *sr_disruptor_create(const sr_disruptor_config *config, sr_error *err);

/* Halts and joins a running graph, then frees everything; NULL is ignored. */
SR_API void sr_disruptor_destroy(sr_disruptor *d);

SR_API sr_ring *sr_disruptor_ring(sr_disruptor *d);
SR_API sr_sequencer *sr_disruptor_sequencer(sr_disruptor *d);

/* Adds n handlers (1 to SR_GROUP_MAX) that follow the producers only. */
SR_API sr_group sr_disruptor_handle_events_with(sr_disruptor *d, const sr_handler *handlers,
    int n, sr_error *err);

/* The stages of n handlers already added: a group to build on (the DSL's after()). */
SR_API sr_group sr_disruptor_after(sr_disruptor *d, const sr_handler *handlers, int n,
    sr_error *err);

/* Adds n handlers, each following every stage of `after` (then / handleEventsWith). */
SR_API sr_group sr_group_then(sr_group after, const sr_handler *handlers, int n,
    sr_error *err);

/* The stages of both groups (the DSL's and()); SR_EINVAL past SR_GROUP_MAX. */
SR_API sr_group sr_group_and(sr_group a, sr_group b, sr_error *err);

/* Number of stages, and each one's processor (index in the order added). */
SR_API int sr_disruptor_stage_count(const sr_disruptor *d);
SR_API sr_processor *sr_disruptor_processor(sr_disruptor *d, int stage);

/*
 * Starts every stage, each in its own thread.  SR_ESTATE when started
 * before; SR_EINVAL without stages.  If one thread cannot start, the ones
 * started are halted and joined, and SR_ESYS is returned.
 */
SR_API int sr_disruptor_start(sr_disruptor *d, sr_error *err);

/* Halts every stage now and joins their threads.  SR_ESTATE if not running. */
SR_API int sr_disruptor_halt(sr_disruptor *d);

/*
 * Waits until every end has handled every event published before the call,
 * then halts and joins every stage (SR_OK).  After timeout_ns (>= 0;
 * INT64_MAX waits for ever) returns SR_ETIMEDOUT, leaves the graph running,
 * and sets *stage_behind (optional) to the first stage in graph order that
 * had not handled everything; the message names it (its handler's name,
 * where it stopped, and whether it halted itself).  A stage that halted
 * itself (a handler error) behind the target ends the wait at once with
 * SR_ESTATE and the same report, where the Disruptor would wait for ever.
 * SR_ESTATE too if the graph is not running.
 */
SR_API int sr_disruptor_shutdown(sr_disruptor *d, int64_t timeout_ns, int *stage_behind,
    sr_error *err);

/* Claim, write and publish on the graph's ring (sr_publish.h). */
static inline int
sr_disruptor_publish_event(sr_disruptor *d, sr_event_writer write, void *ctx)
{
	return sr_publish_event(sr_disruptor_sequencer(d), sr_disruptor_ring(d), write, ctx);
}

static inline int
sr_disruptor_try_publish_event(sr_disruptor *d, sr_event_writer write, void *ctx)
{
	return sr_try_publish_event(sr_disruptor_sequencer(d), sr_disruptor_ring(d), write, ctx);
}

static inline int
sr_disruptor_publish_events(sr_disruptor *d, int64_t n, sr_event_writer write, void *ctx)
{
	return sr_publish_events(sr_disruptor_sequencer(d), sr_disruptor_ring(d), n, write, ctx);
}

#ifdef __cplusplus
}
#endif

#endif /* SR_DISRUPTOR_H */

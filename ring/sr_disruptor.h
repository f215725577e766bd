/* SPDX-License-Identifier: Apache-2.0 */
/**
 * @file sr_disruptor.h
 * @ingroup ring
 * @brief The consumer-graph builder (the Disruptor's DSL:
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
 * it precedes (it would wait for itself: a cycle; the check walks each stage
 * behind the new one once, so it costs the graph's size, not the number of
 * paths through it); after() of a handler
 * never added; more than SR_DISRUPTOR_MAX_STAGES stages, SR_GROUP_MAX
 * stages in a group, or more gating sequences than SR_SEQUENCER_MAX_GATING
 * (the ends, any added by hand, and the new stages while they are wired);
 * any change after start (SR_ESTATE).
 *
 * Lifecycle as the Disruptor's: start once (every processor in its own
 * thread); halt stops every stage at once; shutdown first waits until every
 * end has handled everything claimed before the call (the cursor, as the
 * Disruptor's shutdown compares against it), up to a timeout.
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

/** @brief The most stages (processors) one graph holds. */
#define SR_DISRUPTOR_MAX_STAGES 64
/** @brief The most stages in one group (what one stage may follow). */
#define SR_GROUP_MAX SR_BARRIER_MAX_DEPENDENTS

/** @brief What sr_disruptor_create builds (fill it with sr_disruptor_config_default first). */
typedef struct sr_disruptor_config {
	int64_t slot_count;         /**< power of two >= 2 */
	size_t slot_size;           /**< multiple of 8, up to 64 KiB */
	sr_slot_init_fn slot_init;  /**< optional, the Disruptor's event factory */
	/** passed to slot_init */
	void *slot_init_ctx;
	/** single or multi producer */
	enum sr_producer_mode producer;
	bool synchronize_enqueue_when_full; /**< default true, see sr_sequencer.h */
	sr_wait_config wait;        /**< consumers' wait strategy, default block */
	int64_t max_batch_size;     /**< for every stage; 0 (default) unbounded */
	sr_rewind_strategy rewind;  /**< for every stage; default not rewindable */
} sr_disruptor_config;

/** @brief A consumer graph: the ring, its sequencer and every stage (opaque). */
typedef struct sr_disruptor sr_disruptor;

/** @brief A set of stages, the result of adding handlers (the EventHandlerGroup). */
typedef struct sr_group {
	/** the graph the stages belong to */
	sr_disruptor *disruptor;
	int status;                 /**< SR_OK, or the chain's first error */
	/** how many stages */
	int count;
	int stages[SR_GROUP_MAX];   /**< stage indexes, in the order added */
} sr_group;

/**
 * @brief Fills config with the defaults: synchronized enqueue on, block wait strategy, unbounded batches.
 * @param config The config to fill; not NULL.
 * @param slot_count Slots in the ring (checked by sr_disruptor_create).
 * @param slot_size Bytes per slot (checked by sr_disruptor_create).
 * @param producer Single or multi producer.
 */
SR_API void sr_disruptor_config_default(sr_disruptor_config *config, int64_t slot_count,
    size_t slot_size, enum sr_producer_mode producer);

/**
 * @brief Creates the ring and its sequencer, with no stage yet.
 * @param config What to build; copied.
 * @param err Receives the code and message on failure; may be NULL.
 * @return The graph, to free with sr_disruptor_destroy; NULL on failure, with err
 *         filled: SR_EINVAL when config is NULL, max_batch_size or rewind.pause_ns
 *         is negative, or as sr_ring_create and sr_sequencer_create (their messages);
 *         SR_ENOMEM; SR_ESYS as sr_sequencer_create.
 */
SR_API sr_disruptor *sr_disruptor_create(const sr_disruptor_config *config, sr_error *err);

/**
 * @brief Halts every stage that runs and waits for it to end (as sr_disruptor_halt),
 * then frees everything.
 *
 * A stage is never freed while it runs: the graph's stages, and those
 * restarted by hand after a halt, are halted and joined first (one run by
 * sr_processor_run in a thread of the caller's is waited for until its run
 * has ended; that thread must not touch the processor after
 * sr_processor_run returns).
 * @param d The graph; NULL is ignored.
 */
SR_API void sr_disruptor_destroy(sr_disruptor *d);

/**
 * @brief The graph's ring.
 * @param d The graph.
 * @return Its ring (owned by the graph), or NULL when d is NULL.
 */
SR_API sr_ring *sr_disruptor_ring(sr_disruptor *d);
/**
 * @brief The graph's sequencer.
 * @param d The graph.
 * @return Its sequencer (owned by the graph), or NULL when d is NULL.
 */
SR_API sr_sequencer *sr_disruptor_sequencer(sr_disruptor *d);

/**
 * @brief Adds n handlers that follow the producers only, one stage each.
 * @param d The graph; NULL gives a failed group (SR_EINVAL) and leaves err untouched.
 * @param handlers The handlers, copied.
 * @param n How many, 1 to SR_GROUP_MAX.
 * @param err Receives the message on failure; may be NULL.
 * @return The group of the new stages; its status is SR_OK, or (err filled):
 *         SR_EINVAL for handlers NULL or n out of range, a handler without on_event,
 *         a handler given twice or added twice, a cycle, more than
 *         SR_DISRUPTOR_MAX_STAGES stages or SR_SEQUENCER_MAX_GATING gating sequences;
 *         SR_ESTATE after sr_disruptor_start; SR_ENOMEM or another error of
 *         sr_processor_create.
 */
SR_API sr_group sr_disruptor_handle_events_with(sr_disruptor *d, const sr_handler *handlers,
    int n, sr_error *err);

/**
 * @brief The stages of n handlers already added: a group to build on (the DSL's after()).
 * @param d The graph; NULL gives a failed group (SR_EINVAL) and leaves err untouched.
 * @param handlers Handlers added before (same on_event and ctx).
 * @param n How many, 1 to SR_GROUP_MAX.
 * @param err Receives the message on failure; may be NULL.
 * @return Their group; its status is SR_OK, or SR_EINVAL (err filled) for n out of
 *         range or a handler never added.
 */
SR_API sr_group sr_disruptor_after(sr_disruptor *d, const sr_handler *handlers, int n,
    sr_error *err);

/**
 * @brief Adds n handlers, each following every stage of `after` (then / handleEventsWith).
 * @param after The group to follow; a failed group is returned unchanged.
 * @param handlers The handlers, copied.
 * @param n How many, 1 to SR_GROUP_MAX.
 * @param err Receives the message on failure; may be NULL.
 * @return The group of the new stages; its status is SR_OK, or (err filled):
 *         SR_EINVAL for an empty group, handlers NULL or n out of range, a handler without on_event,
 *         a handler given twice or added twice, a cycle, more than
 *         SR_DISRUPTOR_MAX_STAGES stages or SR_SEQUENCER_MAX_GATING gating sequences;
 *         SR_ESTATE after sr_disruptor_start; SR_ENOMEM or another error of
 *         sr_processor_create.
 */
SR_API sr_group sr_group_then(sr_group after, const sr_handler *handlers, int n,
    sr_error *err);

/**
 * @brief The stages of both groups (the DSL's and()).
 * @param a A group; a failed one is returned unchanged.
 * @param b Another group of the same graph; a failed one is returned unchanged.
 * @param err Receives the message on failure; may be NULL.
 * @return The union; its status is SR_OK, or SR_EINVAL (err filled) when the groups
 *         belong to different graphs or hold more than SR_GROUP_MAX stages together.
 */
SR_API sr_group sr_group_and(sr_group a, sr_group b, sr_error *err);

/**
 * @brief Number of stages.
 * @param d The graph.
 * @return How many stages were added; 0 when d is NULL.
 */
SR_API int sr_disruptor_stage_count(const sr_disruptor *d);
/**
 * @brief A stage's processor.
 * @param d The graph.
 * @param stage Its index in the order added, 0 to sr_disruptor_stage_count() - 1.
 * @return The processor (owned by the graph), or NULL when d is NULL or stage is out of range.
 */
SR_API sr_processor *sr_disruptor_processor(sr_disruptor *d, int stage);

/**
 * @brief Starts every stage, each in its own thread.
 * @param d The graph.
 * @param err Receives the message on failure; may be NULL.
 * @retval SR_OK Every stage runs.
 * @retval SR_ESTATE The graph was started before.
 * @retval SR_EINVAL d is NULL or the graph has no stages.
 * @retval SR_ESYS One thread could not start (the ones
 *         started are halted and joined).
 */
SR_API int sr_disruptor_start(sr_disruptor *d, sr_error *err);

/**
 * @brief Halts every stage that runs now and waits for it to end.
 *
 * Whatever runs is halted, whoever started it: the graph, or the caller
 * after an earlier halt (sr_processor_start or sr_processor_run on
 * sr_disruptor_processor(d, i)), so that a second halt stops stages
 * restarted by hand.  Threads of sr_processor_start are joined (also those
 * of stages that halted themselves); a run in a thread of the caller's is
 * waited for until it has ended.  Stages that do not run are not halted (a
 * halt that finds no run would end the stage's next run at once,
 * sr_processor.h).  Not concurrently with a start of one of its stages.
 * @param d The graph.
 * @retval SR_OK Halted: the graph was running, or stages restarted by hand were.
 * @retval SR_EINVAL d is NULL.
 * @retval SR_ESTATE Nothing was running (never started, or halted and nothing restarted).
 */
SR_API int sr_disruptor_halt(sr_disruptor *d);

/**
 * @brief Waits until every end has handled every event published before the call,
 * then halts and joins every stage.
 *
 * The target is the sequencer's cursor when the call begins, as the
 * Disruptor's shutdown compares against it: with several producers that is
 * the highest claimed sequence, so a sequence claimed but not yet published
 * is waited for too (the events published after it can only be handled
 * after it), and SR_OK means that nothing published before the call is left
 * unhandled.  A claim never published holds the shutdown until its timeout.
 * After timeout_ns (>= 0;
 * INT64_MAX waits for ever) returns SR_ETIMEDOUT, leaves the graph running,
 * and sets *stage_behind (optional) to the first stage in graph order that
 * had not handled everything; the message names it (its handler's name,
 * where it stopped, and whether it halted itself).  A stage that halted
 * itself (a handler error) behind the target ends the wait at once with
 * SR_ESTATE and the same report, where the Disruptor would wait for ever.
 * SR_ESTATE too if the graph is not running.
 * @param d The graph.
 * @param timeout_ns How long to wait, >= 0; INT64_MAX waits for ever.
 * @param stage_behind Receives the first stage behind, or -1; may be NULL.
 * @param err Receives the message on failure; may be NULL.
 * @retval SR_OK Drained, halted and joined.
 * @retval SR_ETIMEDOUT The timeout passed (a stage lags, or a claim is not yet published);
 *         the graph is left running.
 * @retval SR_ESTATE A stage halted itself behind the target, or the graph is not running.
 * @retval SR_EINVAL d is NULL or timeout_ns is negative.
 */
SR_API int sr_disruptor_shutdown(sr_disruptor *d, int64_t timeout_ns, int *stage_behind,
    sr_error *err);

/**
 * @brief Claims, writes and publishes one event on the graph's ring (sr_publish_event).
 * @param d The graph; not NULL.
 * @param write Fills the slot; not NULL.
 * @param ctx Passed to write.
 * @return As sr_publish_event.
 */
static inline int
sr_disruptor_publish_event(sr_disruptor *d, sr_event_writer write, void *ctx)
{
	return sr_publish_event(sr_disruptor_sequencer(d), sr_disruptor_ring(d), write, ctx);
}

/**
 * @brief Publishes one event on the graph's ring, or SR_EFULL at once (sr_try_publish_event).
 * @param d The graph; not NULL.
 * @param write Fills the slot; not NULL.
 * @param ctx Passed to write.
 * @return As sr_try_publish_event.
 */
static inline int
sr_disruptor_try_publish_event(sr_disruptor *d, sr_event_writer write, void *ctx)
{
	return sr_try_publish_event(sr_disruptor_sequencer(d), sr_disruptor_ring(d), write, ctx);
}

/**
 * @brief Publishes n events in one claim on the graph's ring (sr_publish_events).
 * @param d The graph; not NULL.
 * @param n How many events, 1 to the ring's size.
 * @param write Fills each slot; not NULL.
 * @param ctx Passed to write.
 * @return As sr_publish_events.
 */
static inline int
sr_disruptor_publish_events(sr_disruptor *d, int64_t n, sr_event_writer write, void *ctx)
{
	return sr_publish_events(sr_disruptor_sequencer(d), sr_disruptor_ring(d), n, write, ctx);
}

#ifdef __cplusplus
}
#endif

#endif /* SR_DISRUPTOR_H */

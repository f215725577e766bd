/* SPDX-License-Identifier: Apache-2.0 */
/**
 * @file sr_processor.h
 * @ingroup ring
 * @brief The batch event processor (the Disruptor's BatchEventProcessor).
 *
 * One consumer thread that waits on a barrier, runs a
 * handler over each available batch, and records its progress in its own
 * sequence once per batch.
 *
 * The handler learns where a batch ends (end_of_batch), which is where a
 * logger flushes: a burst of events costs one write, not one per event.  Its
 * sequence is what producers (gating) and downstream consumers (dependents)
 * wait on; building pipelines and diamonds is a matter of passing the right
 * sequences, which the graph builder in sr_disruptor.h does for you
 * (examples/diamond.c uses it).
 *
 * Lifecycle: a processor runs (sr_processor_start in its own thread, or
 * sr_processor_run in the caller's), is halted, and may be started again:
 * it continues after the last sequence it handled, as the Disruptor's run()
 * may be called again after halt().  The states (sr_processor_state_get):
 *
 *     IDLE    --start or run-->                          RUNNING
 *     RUNNING --halt, or on_error's SR_ERROR_HALT-->     HALTED (after its batch)
 *     HALTED  --start or run-->                          RUNNING
 *
 * A halt is spent by the run it ends.  A halt requested while no run is in
 * progress (IDLE: before the first start; HALTED: between runs) changes no
 * state and stands: the next run, however started, ends at once (on_start,
 * then on_shutdown, no event; HALTED again), as the Disruptor's run() exits
 * at once after an earlier halt().  So a halt racing a start (a shutdown
 * racing a startup) never leaves a run going; the run after that one runs
 * as usual.
 *
 * Errors: a handler's non-zero return goes to its on_error.  Without one,
 * the event is reported on stderr and skipped.  Departure from the
 * Disruptor, whose default FatalExceptionHandler halts the processor: a
 * halted end consumer gates the producers, so one bad event would stop every
 * producer for ever (for the logger, every thread that logs).  Skipping
 * keeps the graph moving and the report says which sequence was lost; a
 * handler that prefers to stop returns SR_ERROR_HALT from on_error.
 *
 * Rewind (the Disruptor 4's RewindableException and BatchRewindStrategy): a
 * handler returns SR_EVENT_REWIND from on_event to have its batch replayed
 * from its first event (a transient failure: a lost connection, a busy
 * lock).  The processor's rewind strategy decides whether to replay; when it
 * gives up, the event goes to on_error as an error SR_EVENT_REWIND.  A
 * processor without a rewind strategy (the default) treats SR_EVENT_REWIND
 * as any other error, as the Disruptor does for a handler that is not
 * rewindable.  Departure: events the handler released early (see
 * set_sequence_callback) are not replayed, since producers may already have
 * reused their slots; the Disruptor replays the whole batch regardless.
 */
#ifndef SR_PROCESSOR_H
#define SR_PROCESSOR_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "sr_barrier.h"
#include "sr_error.h"
#include "sr_export.h"
#include "sr_ring.h"
#include "sr_sequence.h"
#include "sr_sequencer.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief What an exception handler decides for an event whose handler failed. */
enum sr_error_action {
	SR_ERROR_SKIP = 0,   /**< count the event as handled and go on */
	SR_ERROR_HALT = 1    /**< stop the processor (the event counts as handled) */
};

/**
 * @brief on_event's return asking for the batch to be replayed (positive, so it
 * never collides with an SR_E* code).
 */
#define SR_EVENT_REWIND 0x52455744

/** @brief A processor's event handler: on_event and optional hooks, each given ctx. */
typedef struct sr_handler {
	/** passed to every hook */
	void *ctx;
	/**
	 * Required.  Handles the event in `slot`; end_of_batch is true for the
	 * last event of the batch.  A non-zero return is passed to on_error
	 * (SR_EVENT_REWIND asks for a replay).
	 */
	int (*on_event)(void *ctx, void *slot, int64_t sequence, bool end_of_batch);
	/** Optional hooks: on_start runs at the start of each run, in the thread that runs it, before its first batch. */
	void (*on_start)(void *ctx);
	/** Optional: before each batch, its size and how many events were available. */
	void (*on_batch_start)(void *ctx, int64_t batch_size, int64_t queue_depth);
	/** Optional: the timeout wait strategy timed out; `sequence` is the last handled. */
	void (*on_timeout)(void *ctx, int64_t sequence);
	/** Optional: the run is ending (halted), after its last batch; the state becomes SR_PROCESSOR_HALTED after it. */
	void (*on_shutdown)(void *ctx);
	/**
	 * Exception handler.  NULL: print the error and the sequence to stderr
	 * and skip the event.
	 */
	enum sr_error_action (*on_error)(void *ctx, int error, int64_t sequence, void *slot);
	/** Optional: names the handler in the graph builder's messages. */
	const char *name;
	/**
	 * Optional: `sequence` was published without content (its writer
	 * failed, see sr_publish.h); its slot is not handed to on_event.
	 * end_of_batch as for on_event: a handler that flushes at the end of
	 * a batch flushes here too when it is true.
	 */
	void (*on_skip)(void *ctx, int64_t sequence, bool end_of_batch);
	/**
	 * Optional (the Disruptor's setSequenceCallback): called once, when the
	 * processor is created, with the processor's sequence (the one in use:
	 * sr_processor_sequence).  From on_event,
	 * the handler may store into it (sr_sequence_set) the last sequence it
	 * has completely finished with, before its batch ends: producers and
	 * downstream consumers may then use those slots at once, so that a long
	 * batch does not make the ring look full.  Store only sequences of the
	 * current batch up to the one being handled, in increasing order.
	 */
	void (*set_sequence_callback)(void *ctx, sr_sequence *sequence);
} sr_handler;

/** @brief What a rewind strategy decides when a handler asks for a rewind. */
enum sr_rewind_action {
	SR_REWIND = 0,        /**< replay the batch */
	SR_REWIND_GIVE_UP = 1 /**< pass the event to on_error */
};

/**
 * @brief When to replay a batch (the Disruptor's BatchRewindStrategy), as data.
 *
 *  - decide set: it decides, given the event's sequence and how many
 *    rewinds this batch has had (0 the first time);
 *  - else max_rewinds > 0: replay at most max_rewinds times per batch, then
 *    give up (the Disruptor's EventuallyGiveUpBatchRewindStrategy, which
 *    counts the requests rather than the replays);
 *  - else max_rewinds < 0: always replay (SimpleBatchRewindStrategy);
 *  - else (all zero, the default): not rewindable.
 * pause_ns (>= 0) is slept before each replay (NanosecondPauseBatchRewindStrategy).
 * A halt ends a rewinding processor like any other.
 */
typedef struct sr_rewind_strategy {
	/** optional: decides from the event's sequence and the batch's rewinds so far */
	enum sr_rewind_action (*decide)(void *ctx, int64_t sequence, int64_t rewinds);
	/** passed to decide */
	void *ctx;
	/** without decide: > 0 replays at most this many times per batch, < 0 always, 0 never */
	int64_t max_rewinds;
	/** slept before each replay, >= 0 */
	int64_t pause_ns;
} sr_rewind_strategy;

/** @brief What sr_processor_create builds. */
typedef struct sr_processor_config {
	/** the ring to read; required */
	sr_ring *ring;
	/** the ring's sequencer (same size); required */
	sr_sequencer *sequencer;
	/** Consumers whose sequence this one must not pass (may be NULL/0). */
	const sr_sequence *const *dependents;
	/** how many dependents, 0 to SR_BARRIER_MAX_DEPENDENTS */
	int dependent_count;
	/** the handler, copied; on_event required */
	sr_handler handler;
	/** Largest batch handed to the handler; 0 means unbounded. */
	int64_t max_batch_size;
	/** Whether a handler's SR_EVENT_REWIND replays its batch (default: no). */
	sr_rewind_strategy rewind;
	/**
	 * Optional: where the processor records the last handled sequence
	 * (in a mapping shared with other processes, say, so that producers
	 * there can gate on it); NULL: a sequence of its own.  Its value is
	 * used as it stands: the processor starts after it, it is not reset
	 * (set it first: to the sequencer's initial_sequence for a new ring, or
	 * where an earlier consumer stopped).  It must outlive the processor,
	 * and nothing else may write it while the processor runs.
	 */
	sr_sequence *sequence;
} sr_processor_config;

/** @brief Where a processor is in its lifecycle (sr_processor_state_get; the transitions are in the file's description). */
enum sr_processor_state {
	/** created, never started (a halt requested now ends the first run at once) */
	SR_PROCESSOR_IDLE = 0,
	/** running (sr_processor_start or sr_processor_run), a halt perhaps requested */
	SR_PROCESSOR_RUNNING = 1,
	/** halted; may be started again (a halt requested now ends the next run at once) */
	SR_PROCESSOR_HALTED = 2
};

/** @brief A batch event processor (sr_processor_create); the fields belong to the sr_processor_* functions. */
typedef struct sr_processor {
	/** its own sequence, in use when the config gives none: the sequencer's initial_sequence at first */
	sr_sequence own_sequence;
	/** the sequence in use (sr_processor_sequence): &own_sequence or the config's; the last handled */
	sr_sequence *sequence;
	/** what it waits on */
	sr_barrier barrier;
	/** the ring it reads */
	sr_ring *ring;
	/** the ring's sequencer */
	sr_sequencer *sequencer;
	/** the config's handler */
	sr_handler handler;
	/** the config's max_batch_size (0: unbounded) */
	int64_t max_batch_size;
	/** the config's rewind strategy */
	sr_rewind_strategy rewind;
	/** whether the rewind strategy replays at all */
	bool rewindable;
	/** an sr_processor_state */
	sr_atomic_i32 state;
	/** 1 once a halt is requested */
	sr_atomic_i32 halt_requested;
	/** the thread of sr_processor_start */
	pthread_t thread;
	/** whether thread is to be joined */
	bool thread_started;
} sr_processor;

/**
 * @brief Creates a processor (not yet running).
 *
 * Calls the handler's set_sequence_callback, if any, with the sequence in use.
 * Its own sequence starts at the sequencer's initial_sequence; a sequence
 * given in the config (config->sequence) keeps its value.
 * @param config What to build; copied.
 * @param err Receives the code and message on failure; may be NULL.
 * @return The processor, to free with sr_processor_destroy; NULL on failure, with
 *         err filled: SR_EINVAL when config is NULL, the ring,
 *         sequencer or on_event is missing, the ring's and the sequencer's sizes
 *         differ, max_batch_size or rewind.pause_ns is negative, or the dependents
 *         are invalid (as sr_barrier_init); SR_ENOMEM when memory runs out.
 */
SR_API sr_processor *sr_processor_create(const sr_processor_config *config, sr_error *err);

/**
 * @brief Frees a processor that is not running (halt and join it first).
 * @param p A processor from sr_processor_create; NULL is ignored.
 */
SR_API void sr_processor_destroy(sr_processor *p);

/**
 * @brief The processor's progress: gate producers on it, or make others follow it.
 * @param p The processor; not NULL.
 * @return The sequence in use (the last handled): the config's sequence when it gave
 *         one, else the processor's own.
 */
static inline sr_sequence *
sr_processor_sequence(sr_processor *p)
{
	return p->sequence;
}

/**
 * @brief Starts the processor in a new thread, from the sequence after the last it handled.
 *
 * An idle processor, or a halted one again (its previous thread is
 * joined first if nobody joined it).  After a halt requested while it was
 * not running, the run ends at once (the file's description): halt and
 * join it as any other.
 * @param p The processor.
 * @param err Receives the message on failure; may be NULL.
 * @retval SR_OK Running in its own thread: halt it, then sr_processor_join.
 * @retval SR_EINVAL p is NULL.
 * @retval SR_ESTATE It is running, which
 *         includes a halt requested but not yet noticed: join it first.
 * @retval SR_ESYS The previous thread could not be joined, or pthread_create failed
 *         (the message has the errno text).
 */
SR_API int sr_processor_start(sr_processor *p, sr_error *err);

/**
 * @brief Runs the processor in the calling thread until halted (or a handler error
 * decides to halt).
 *
 * An idle or halted processor, as sr_processor_start; after a halt
 * requested while it was not running, returns at once.
 * @param p The processor.
 * @retval SR_OK It ran and has halted.
 * @retval SR_EINVAL p is NULL.
 * @retval SR_ESTATE It is already running or its own thread was not joined.
 */
SR_API int sr_processor_run(sr_processor *p);

/**
 * @brief Stops now: the current batch completes, nothing more is taken.
 *
 * Returns at once; sr_processor_join waits for the thread.  On a processor
 * that is not running (IDLE or HALTED) the halt stands, and ends its next
 * run at once (the file's description).
 * @param p The processor; NULL is ignored.
 */
SR_API void sr_processor_halt(sr_processor *p);

/**
 * @brief Waits until every event published before the call has been handled by this
 * processor, then halts it.
 *
 * The target is the sequencer's cursor when the call begins, as the
 * Disruptor's shutdown compares against it: with several producers that is
 * the highest claimed sequence, so a sequence claimed but not yet published
 * is waited for too (the events published after it can only be handled
 * after it).  Waits for ever behind a stage that cannot progress, or behind
 * a claim that is never published; see sr_processor_drain_and_halt_timeout.
 * @param p The processor.
 * @retval SR_OK Drained and halted.
 * @retval SR_EINVAL p is NULL.
 * @retval SR_ESTATE It was not running.
 */
SR_API int sr_processor_drain_and_halt(sr_processor *p);

/**
 * @brief As sr_processor_drain_and_halt, but gives up after timeout_ns.
 *
 * The target is the same (the cursor when the call begins: a claim not yet
 * published is waited for).  A processor that halted itself (a handler
 * error) counts as drained.
 * @param p The processor.
 * @param timeout_ns How long to wait, >= 0.
 * @retval SR_OK Drained and halted: every sequence up to the target was handled.
 * @retval SR_ETIMEDOUT The timeout passed before the processor had handled every sequence
 *         up to the target (a stage it follows lags, or a claim is not yet published), and
 *         the processor is left running (halt it, or try again).
 * @retval SR_EINVAL p is NULL or timeout_ns is negative.
 * @retval SR_ESTATE It was not running.
 */
SR_API int sr_processor_drain_and_halt_timeout(sr_processor *p, int64_t timeout_ns);

/**
 * @brief Waits for the processor's thread to end (after halt).
 * @param p The processor.
 * @retval SR_OK The thread has ended.
 * @retval SR_EINVAL p is NULL.
 * @retval SR_ESTATE No thread to join (never started by sr_processor_start, or joined already).
 * @retval SR_ESYS pthread_join failed.
 */
SR_API int sr_processor_join(sr_processor *p);

/**
 * @brief Where the processor is in its lifecycle.
 * @param p The processor; not NULL.
 * @return SR_PROCESSOR_IDLE, SR_PROCESSOR_RUNNING or SR_PROCESSOR_HALTED.
 */
static inline enum sr_processor_state
sr_processor_state_get(const sr_processor *p)
{
	return (enum sr_processor_state)sr_atomic_load_acquire_i32(&p->state);
}

#ifdef __cplusplus
}
#endif

#endif /* SR_PROCESSOR_H */

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_processor.h: the batch event processor (the Disruptor's
 * BatchEventProcessor): one consumer thread that waits on a barrier, runs a
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
 * may be called again after halt().
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

/* What an exception handler decides for an event whose handler failed. */
enum sr_error_action {
	SR_ERROR_SKIP = 0,   /* count the event as handled and go on */
	SR_ERROR_HALT = 1    /* stop the processor (the event counts as handled) */
};

/*
 * on_event's return asking for the batch to be replayed (positive, so it
 * never collides with an SR_E* code).
 */
#define SR_EVENT_REWIND 0x52455744

typedef struct sr_handler {
	void *ctx;
	/*
	 * Required.  Handles the event in `slot`; end_of_batch is true for the
	 * last event of the batch.  A non-zero return is passed to on_error.
	 */
	int (*on_event)(void *ctx, void *slot, int64_t sequence, bool end_of_batch);
	/* Optional hooks. */
	void (*on_start)(void *ctx);
	/* Before each batch: its size, and how many events were available. */
	void (*on_batch_start)(void *ctx, int64_t batch_size, int64_t queue_depth);
	/* The timeout wait strategy timed out; `sequence` is the last handled. */
	void (*on_timeout)(void *ctx, int64_t sequence);
	void (*on_shutdown)(void *ctx);
	/*
	 * Exception handler.  NULL: print the error and the sequence to stderr
	 * and skip the event.
	 */
	enum sr_error_action (*on_error)(void *ctx, int error, int64_t sequence, void *slot);
	/* Optional: names the handler in the graph builder's messages. */
	const char *name;
	/*
	 * Optional: `sequence` was published without content (its writer
	 * failed, see sr_publish.h); its slot is not handed to on_event.
	 * end_of_batch as for on_event: a handler that flushes at the end of
	 * a batch flushes here too when it is true.
	 */
	void (*on_skip)(void *ctx, int64_t sequence, bool end_of_batch);
	/*
	 * Optional (the Disruptor's setSequenceCallback): called once, when the
	 * processor is created, with the processor's sequence.  From on_event,
	 * the handler may store into it (sr_sequence_set) the last sequence it
	 * has completely finished with, before its batch ends: producers and
	 * downstream consumers may then use those slots at once, so that a long
	 * batch does not make the ring look full.  Store only sequences of the
	 * current batch up to the one being handled, in increasing order.
	 */
	void (*set_sequence_callback)(void *ctx, sr_sequence *sequence);
} sr_handler;

/* What a rewind strategy decides when a handler asks for a rewind. */
enum sr_rewind_action {
	SR_REWIND = 0,        /* replay the batch */
	SR_REWIND_GIVE_UP = 1 /* pass the event to on_error */
};

/*
 * When to replay a batch (the Disruptor's BatchRewindStrategy), as data:
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
	enum sr_rewind_action (*decide)(void *ctx, int64_t sequence, int64_t rewinds);
	void *ctx;
	int64_t max_rewinds;
	int64_t pause_ns;
} sr_rewind_strategy;

typedef struct sr_processor_config {
	sr_ring *ring;
	sr_sequencer *sequencer;
	/* Consumers whose sequence this one must not pass (may be NULL/0). */
	const sr_sequence *const *dependents;
	int dependent_count;
	sr_handler handler;
	/* Largest batch handed to the handler; 0 means unbounded. */
	int64_t max_batch_size;
	/* Whether a handler's SR_EVENT_REWIND replays its batch (default: no). */
	sr_rewind_strategy rewind;
} sr_processor_config;

enum sr_processor_state {
	SR_PROCESSOR_IDLE = 0,
	SR_PROCESSOR_RUNNING = 1,
	SR_PROCESSOR_HALTED = 2
};

typedef struct sr_processor {
	sr_sequence sequence;      /* last handled; -1 (or the sequencer's start) initially */
	sr_barrier barrier;
	sr_ring *ring;
	sr_sequencer *sequencer;
	sr_handler handler;
	int64_t max_batch_size;
	sr_rewind_strategy rewind;
	bool rewindable;
	sr_atomic_i32 state;
	sr_atomic_i32 halt_requested;
	pthread_t thread;
	bool thread_started;
} sr_processor;

/*
 * Creates a processor (not yet running).  NULL and SR_EINVAL when the ring,
 * sequencer or on_event is missing, the ring's and the sequencer's sizes
 * differ, max_batch_size or rewind.pause_ns is negative, or the dependents
 * are invalid.  Calls the handler's set_sequence_callback, if any.
 */
SR_API sr_processor *sr_processor_create(const sr_processor_config *config, sr_error *err);

/* Frees a processor that is not running (halt and join it first). */
SR_API void sr_processor_destroy(sr_processor *p);

/* The processor's progress: gate producers on it, or make others follow it. */
static inline sr_sequence *
sr_processor_sequence(sr_processor *p)
{
	return &p->sequence;
}

/*
 * Starts the processor in a new thread, from the sequence after the last it
 * handled: an idle processor, or a halted one again (its previous thread is
 * joined first if nobody joined it).  SR_ESTATE while it is running, which
 * includes a halt requested but not yet noticed: join it first.
 */
SR_API int sr_processor_start(sr_processor *p, sr_error *err);

/*
 * Runs the processor in the calling thread until halted (or a handler error
 * decides to halt); an idle or halted processor, as sr_processor_start.
 * SR_ESTATE if it is already running or its own thread was not joined.
 */
SR_API int sr_processor_run(sr_processor *p);

/* Stops now: the current batch completes, nothing more is taken. */
SR_API void sr_processor_halt(sr_processor *p);

/*
 * Waits until every event published before the call has been handled by this
 * processor, then halts it.  Returns SR_OK, or SR_ESTATE if it was not
 * running.  Waits for ever behind a stage that cannot progress; see
 * sr_processor_drain_and_halt_timeout.
 */
SR_API int sr_processor_drain_and_halt(sr_processor *p);

/*
 * As sr_processor_drain_and_halt, but gives up after timeout_ns (>= 0):
 * SR_ETIMEDOUT, and the processor is left running (halt it, or try again).
 * SR_EINVAL for a negative timeout.  A processor that halted itself (a
 * handler error) counts as drained.
 */
SR_API int sr_processor_drain_and_halt_timeout(sr_processor *p, int64_t timeout_ns);

/* Waits for the processor's thread to end (after halt). */
SR_API int sr_processor_join(sr_processor *p);

static inline enum sr_processor_state
sr_processor_state_get(const sr_processor *p)
{
	return (enum sr_processor_state)sr_atomic_load_acquire_i32(&p->state);
}

#ifdef __cplusplus
}
#endif

#endif /* SR_PROCESSOR_H */

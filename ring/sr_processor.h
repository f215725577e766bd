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
 * sequences (see examples/diamond.c).
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
} sr_handler;

typedef struct sr_processor_config {
	sr_ring *ring;
	sr_sequencer *sequencer;
	/* Consumers whose sequence this one must not pass (may be NULL/0). */
	const sr_sequence *const *dependents;
	int dependent_count;
	sr_handler handler;
	/* Largest batch handed to the handler; 0 means unbounded. */
	int64_t max_batch_size;
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
	sr_atomic_i32 state;
	sr_atomic_i32 halt_requested;
	pthread_t thread;
	bool thread_started;
} sr_processor;

/*
 * Creates a processor (not yet running).  NULL and SR_EINVAL when the ring,
 * sequencer or on_event is missing, the ring's and the sequencer's sizes
 * differ, max_batch_size is negative, or the dependents are invalid.
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

/* Starts the processor in a new thread.  SR_ESTATE if already started. */
SR_API int sr_processor_start(sr_processor *p, sr_error *err);

/*
 * Runs the processor in the calling thread until halted (or a handler error
 * decides to halt).  SR_ESTATE if it is already running.
 */
SR_API int sr_processor_run(sr_processor *p);

/* Stops now: the current batch completes, nothing more is taken. */
SR_API void sr_processor_halt(sr_processor *p);

/*
 * Waits until every event published before the call has been handled by this
 * processor, then halts it.  Returns SR_OK, or SR_ESTATE if it was not
 * running.
 */
SR_API int sr_processor_drain_and_halt(sr_processor *p);

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

/* SPDX-License-Identifier: Apache-2.0 */
/**
 * @file sr_poller.h
 * @ingroup ring
 * @brief A pull-style consumer (the Disruptor's EventPoller), for a
 * thread that owns its loop (a game loop, an event loop, a thread that
 * also serves sockets) and cannot hand itself to a processor.
 *
 * Each sr_poller_poll hands every event available now to the handler, in
 * order, and records its progress in the poller's sequence once, at the
 * end.  It never waits: it says whether it processed events, found
 * nothing, or was gated (the cursor is further, but the consumers this
 * poller follows have not handled it yet, or, with several producers, a
 * claimed sequence is not yet published).  The poller's
 * sequence gates producers as a processor's does: add it with
 * sr_sequencer_add_gating, or make other consumers follow it.
 */
#ifndef SR_POLLER_H
#define SR_POLLER_H

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

/** @brief What one poll did (the Disruptor's PollState). */
enum sr_poll_state {
	SR_POLL_PROCESSING = 1, /**< handed at least one event to the handler */
	SR_POLL_GATING = 2,     /**< the cursor is further: upstream lags or a claim is unpublished */
	SR_POLL_IDLE = 3        /**< nothing published beyond its sequence */
};

/** @brief What sr_poller_poll hands the events to. */
typedef struct sr_poll_handler {
	/** passed to on_event and on_skip */
	void *ctx;
	/**
	 * Required.  Handles one event (ctx, the slot, its sequence, whether it is
	 * the last available now); returns true to go on with the next
	 * available one, false to end this poll after it (it counts as
	 * handled either way).
	 */
	bool (*on_event)(void *ctx, void *slot, int64_t sequence, bool end_of_batch);
	/** Optional: `sequence` was published skipped (sr_publish.h); counts as handled. */
	void (*on_skip)(void *ctx, int64_t sequence);
} sr_poll_handler;

/** @brief A pull-style consumer (sr_poller_create); the fields belong to the sr_poller_* functions. */
typedef struct sr_poller {
	/** its own sequence, in use when it was given none: the sequencer's initial_sequence at first */
	sr_sequence own_sequence;
	/** the sequence in use (sr_poller_sequence): &own_sequence or the one given; the last handled */
	sr_sequence *sequence;
	/** the ring it reads */
	sr_ring *ring;
	/** the ring's sequencer */
	sr_sequencer *sequencer;
	/** the sequences of the consumers it follows */
	const sr_sequence *dependents[SR_BARRIER_MAX_DEPENDENTS];
	/** how many dependents there are */
	int dependent_count;
} sr_poller;

/**
 * @brief Creates a poller over ring and sequencer, following the given consumers.
 *
 * Its sequence, its own, starts at the sequencer's initial_sequence
 * (sr_poller_create_at records the progress in a sequence of the caller's).
 * @param ring The ring; as many slots as the sequencer's buffer_size.
 * @param sequencer The ring's sequencer.
 * @param dependents The sequences of the consumers to follow; may be NULL when dependent_count is 0.
 * @param dependent_count How many, 0 (the producers only) to SR_BARRIER_MAX_DEPENDENTS.
 * @param err Receives the code and message on failure; may be NULL.
 * @return The poller, to free with sr_poller_destroy; NULL on failure, with err filled:
 *         SR_EINVAL for a NULL ring or sequencer, sizes that differ, a NULL dependent
 *         or a dependent_count out of range; SR_ENOMEM when memory runs out.
 */
SR_API sr_poller *sr_poller_create(sr_ring *ring, sr_sequencer *sequencer,
    const sr_sequence *const *dependents, int dependent_count, sr_error *err);

/**
 * @brief As sr_poller_create, recording the poller's progress in a sequence of the caller's.
 *
 * For a sequence placed elsewhere: in a mapping shared with other
 * processes, say, so that producers there can gate on it.  Its value is
 * used as it stands: the poller starts after it, it is not reset (set it
 * first: to the sequencer's initial_sequence for a new ring, or where an
 * earlier consumer stopped).
 * @param ring The ring; as many slots as the sequencer's buffer_size.
 * @param sequencer The ring's sequencer.
 * @param dependents The sequences of the consumers to follow; may be NULL when dependent_count is 0.
 * @param dependent_count How many, 0 (the producers only) to SR_BARRIER_MAX_DEPENDENTS.
 * @param sequence Where the poller records the last handled sequence; it must
 *        outlive the poller, and nothing else may write it while the poller
 *        polls.  NULL: a sequence of its own, as sr_poller_create.
 * @param err Receives the code and message on failure; may be NULL.
 * @return The poller, to free with sr_poller_destroy (which leaves the sequence
 *         alone); NULL on failure, with err filled as sr_poller_create.
 */
SR_API sr_poller *sr_poller_create_at(sr_ring *ring, sr_sequencer *sequencer,
    const sr_sequence *const *dependents, int dependent_count, sr_sequence *sequence,
    sr_error *err);
/**
 * @brief Frees a poller (remove its sequence from the gating sequences first).
 * @param p A poller from sr_poller_create; NULL is ignored.
 */
SR_API void sr_poller_destroy(sr_poller *p);

/**
 * @brief The poller's sequence (the last handled), to gate producers or to be followed.
 * @param p The poller; not NULL.
 * @return The sequence in use: the one given to sr_poller_create_at, else the poller's own.
 */
static inline sr_sequence *
sr_poller_sequence(sr_poller *p)
{
	return p->sequence;
}

/**
 * @brief Hands every event available now to the handler, in order, without waiting.
 *
 * Call it from one thread at a time.
 * @param p The poller.
 * @param handler The handler; on_event is required.
 * @retval SR_POLL_PROCESSING At least one event was handled.
 * @retval SR_POLL_GATING The cursor is further, but upstream lags or a claim is unpublished.
 * @retval SR_POLL_IDLE Nothing is published beyond its sequence.
 * @retval SR_EINVAL p, handler or on_event is NULL.
 */
SR_API int sr_poller_poll(sr_poller *p, const sr_poll_handler *handler);

#ifdef __cplusplus
}
#endif

#endif /* SR_POLLER_H */

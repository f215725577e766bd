/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_poller.h: a pull-style consumer (the Disruptor's EventPoller), for a
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

/* What one poll did (the Disruptor's PollState). */
enum sr_poll_state {
	SR_POLL_PROCESSING = 1, /* handed at least one event to the handler */
	SR_POLL_GATING = 2,     /* the cursor is further: upstream lags or a claim is unpublished */
	SR_POLL_IDLE = 3        /* nothing published beyond its sequence */
};

typedef struct sr_poll_handler {
	void *ctx;
	/*
	 * Required.  Handles one event; returns true to go on with the next
	 * available one, false to end this poll after it (it counts as
	 * handled either way).
	 */
	bool (*on_event)(void *ctx, void *slot, int64_t sequence, bool end_of_batch);
	/* Optional: `sequence` was published skipped (sr_publish.h); counts as handled. */
	void (*on_skip)(void *ctx, int64_t sequence);
} sr_poll_handler;

typedef struct sr_poller {
	sr_sequence sequence;      /* last handled */
	sr_ring *ring;
	sr_sequencer *sequencer;
	const sr_sequence *dependents[SR_BARRIER_MAX_DEPENDENTS];
	int dependent_count;
} sr_poller;

/*
 * Creates a poller over ring and sequencer, following the given consumers
 * (none: the producers only).  NULL and SR_EINVAL for a NULL ring or
 * sequencer, sizes that differ, a NULL dependent or more than
 * SR_BARRIER_MAX_DEPENDENTS; SR_ENOMEM.
 */
SR_API sr_poller *sr_poller_create(sr_ring *ring, sr_sequencer *sequencer,
    const sr_sequence *const *dependents, int dependent_count, sr_error *err);
SR_API void sr_poller_destroy(sr_poller *p);

static inline sr_sequence *
sr_poller_sequence(sr_poller *p)
{
	return &p->sequence;
}

/*
 * Handles what is available (see above): SR_POLL_PROCESSING, SR_POLL_GATING
 * or SR_POLL_IDLE, or SR_EINVAL for a NULL poller, handler or on_event.
 * Call it from one thread at a time.
 */
SR_API int sr_poller_poll(sr_poller *p, const sr_poll_handler *handler);

#ifdef __cplusplus
}
#endif

#endif /* SR_POLLER_H */

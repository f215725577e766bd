/* SPDX-License-Identifier: Apache-2.0 */
/**
 * @file sr_publish.h
 * @ingroup ring
 * @brief Claim, write and publish in one call (the Disruptor's
 * EventTranslator and RingBuffer.publishEvent).
 *
 * A sequence that is claimed and never published stalls every consumer for
 * ever: each waits at that sequence and nothing after it is delivered (see
 * sr_barrier.h).  With sr_sequencer_claim, the caller must publish on every
 * path, including the one where filling the slot failed.  These calls do it
 * for the caller: the writer fills the claimed slot, and the sequence is
 * published whatever the writer returns.  When the writer fails, the slot is
 * marked skipped before it is published (sr_sequencer_mark_skipped), so
 * consumers pass over it and are told (the handler's on_skip), and the
 * writer's value is returned.
 *
 * Departure from the Disruptor: its publishEvent publishes the slot with
 * whatever the translator left in it, and the consumer cannot tell; here
 * the consumer is told and the slot never reaches on_event.
 */
#ifndef SR_PUBLISH_H
#define SR_PUBLISH_H

#include <stdint.h>

#include "sr_error.h"
#include "sr_export.h"
#include "sr_ring.h"
#include "sr_sequencer.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief Fills the claimed `slot` of `sequence`.
 * @param ctx The ctx given to the publishing call.
 * @param slot The claimed slot.
 * @param sequence Its sequence.
 * @param index Its place in the batch (0 for a single event).
 * @return 0 on success; any other value marks this
 *         slot, and every later slot of the batch, skipped (the writer is not called
 *         for them) and is returned by the publishing call.
 */
typedef int (*sr_event_writer)(void *ctx, void *slot, int64_t sequence, int64_t index);

/**
 * @brief Claims n consecutive sequences, writes each slot and publishes them all.
 *
 * Claims n consecutive sequences (waiting until deadline_ns, as
 * sr_sequencer_claim_until: SR_DEADLINE_NONE waits as long as it takes,
 * SR_DEADLINE_NOW not at all), calls write for each slot in order, and
 * publishes them all.  *first (optional) receives the first claimed
 * sequence, or INT64_MIN when nothing was claimed.
 * @param sequencer The ring's sequencer; not NULL.
 * @param ring The ring; not NULL, as many slots as the sequencer's buffer_size.
 * @param n How many sequences, 1 to the ring's size.
 * @param deadline_ns CLOCK_MONOTONIC deadline, SR_DEADLINE_NONE or SR_DEADLINE_NOW.
 * @param write Fills each slot; not NULL.
 * @param ctx Passed to write.
 * @param first Receives the first claimed sequence (INT64_MIN when nothing was claimed); may be NULL.
 * @return SR_OK; the writer's non-zero value (everything was still
 *         published, the failed slot and those after it marked skipped); or, with
 *         nothing claimed, one of the errors below.
 * @retval SR_EFULL SR_DEADLINE_NOW and no room.
 * @retval SR_ETIMEDOUT The deadline passed before there was room.
 * @retval SR_EINVAL A NULL argument, the ring's and the sequencer's sizes differ,
 *         or n is not in [1, the ring's size].
 */
SR_API int sr_publish_events_until(sr_sequencer *sequencer, sr_ring *ring, int64_t n,
    int64_t deadline_ns, sr_event_writer write, void *ctx, int64_t *first);

/**
 * @brief Publishes one event, waiting for room as long as it takes.
 * @param sequencer The ring's sequencer; not NULL.
 * @param ring The ring; not NULL.
 * @param write Fills the slot; not NULL.
 * @param ctx Passed to write.
 * @return As sr_publish_events_until: SR_OK, the writer's non-zero value, or SR_EINVAL.
 */
static inline int
sr_publish_event(sr_sequencer *sequencer, sr_ring *ring, sr_event_writer write, void *ctx)
{
	return sr_publish_events_until(sequencer, ring, 1, SR_DEADLINE_NONE, write, ctx, NULL);
}

/**
 * @brief Publishes one event, or returns SR_EFULL at once (the writer is then not called).
 * @param sequencer The ring's sequencer; not NULL.
 * @param ring The ring; not NULL.
 * @param write Fills the slot; not NULL.
 * @param ctx Passed to write.
 * @return As sr_publish_events_until: SR_OK, the writer's non-zero value, SR_EFULL or SR_EINVAL.
 */
static inline int
sr_try_publish_event(sr_sequencer *sequencer, sr_ring *ring, sr_event_writer write, void *ctx)
{
	return sr_publish_events_until(sequencer, ring, 1, SR_DEADLINE_NOW, write, ctx, NULL);
}

/**
 * @brief Publishes n events in one claim and one publish, waiting for room as long as it takes.
 * @param sequencer The ring's sequencer; not NULL.
 * @param ring The ring; not NULL.
 * @param n How many events, 1 to the ring's size.
 * @param write Fills each slot; not NULL.
 * @param ctx Passed to write.
 * @return As sr_publish_events_until: SR_OK, the writer's non-zero value, or SR_EINVAL.
 */
static inline int
sr_publish_events(sr_sequencer *sequencer, sr_ring *ring, int64_t n, sr_event_writer write,
    void *ctx)
{
	return sr_publish_events_until(sequencer, ring, n, SR_DEADLINE_NONE, write, ctx, NULL);
}

#ifdef __cplusplus
}
#endif

#endif /* SR_PUBLISH_H */

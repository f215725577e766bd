/* SPDX-License-Identifier: Apache-2.0 */
/**
 * @file sr_shm_consumer.h
 * @ingroup shm
 * @brief A consumer of a shared ring (sr_shm_ring.h): join an index, consume with a processor or a poller, leave.
 *
 * A consumer is an index of the ring's registry, 0 to max_consumers - 1,
 * chosen by the program (a pipeline's stages agree on theirs, as they
 * agree on the ring's name).  Its sequence, the last event it handled,
 * lives in the mapping: producers gate on it (when it joined as gating) and
 * consumers that follow it wait for it, from any process.  Consume with an
 * sr_processor built from sr_shm_consumer_processor_config, or with the
 * poller of sr_shm_consumer_poller: both record their progress in that
 * sequence.
 *
 * Joining an index:
 *  - never used, or left: the consumer starts after the cursor (the events
 *    claimed before the join are not delivered to it);
 *  - held by a process that died and was not yet dropped: it resumes after
 *    the sequence that process recorded (the event being handled at the
 *    death is delivered again);
 *  - dropped by the reaper: it starts after the cursor, as a new one;
 *  - held by a live process: SR_ESTATE.
 */
#ifndef SR_SHM_CONSUMER_H
#define SR_SHM_CONSUMER_H

#include <stdbool.h>
#include <stdint.h>

#include "sr_error.h"
#include "sr_export.h"
#include "sr_poller.h"
#include "sr_processor.h"
#include "sr_sequence.h"
#include "sr_shm_ring.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief A joined consumer (sr_shm_consumer_join). */
typedef struct sr_shm_consumer sr_shm_consumer;

/**
 * @brief Joins a shared ring as consumer `index`.
 * @param ring The handle; not NULL.
 * @param index The consumer's index, 0 to the ring's max_consumers - 1.
 * @param follows The indexes of the consumers it must not pass (a pipeline's earlier stages);
 *        may be NULL when follow_count is 0.
 * @param follow_count How many, 0 to SR_BARRIER_MAX_DEPENDENTS - 1.
 * @param gating Whether producers must not overtake it (true for a pipeline's last stages).
 * @param err Receives the code and message on failure; may be NULL.
 * @return The consumer, to leave with sr_shm_consumer_leave (or sr_shm_ring_close); NULL on
 *         failure with err filled: SR_EINVAL for a NULL ring, an index or a followed index
 *         out of range, a consumer that follows itself, or too many follows; SR_ESTATE when a
 *         live process holds the index (the message names its pid); SR_EFULL when the
 *         sequencer has SR_SEQUENCER_MAX_GATING gating sequences; SR_ESYS, SR_ENOMEM.
 */
SR_API sr_shm_consumer *sr_shm_consumer_join(sr_shm_ring *ring, int index, const int *follows,
    int follow_count, bool gating, sr_error *err);

/**
 * @brief Leaves: no longer gating, the index free, *consumer set to NULL.
 *
 * Halt and join its processor, or stop polling, first.
 * @param consumer The consumer's address; NULL or a NULL consumer does nothing.
 */
SR_API void sr_shm_consumer_leave(sr_shm_consumer **consumer);

/**
 * @brief The consumer's sequence in the mapping: the last sequence it handled.
 * @param consumer The consumer; not NULL.
 * @return The sequence (owned by the mapping).
 */
SR_API sr_sequence *sr_shm_consumer_sequence(sr_shm_consumer *consumer);

/**
 * @brief The sequence the consumer started after when it joined (its sequence's value then).
 * @param consumer The consumer; not NULL.
 * @return That sequence.
 */
SR_API int64_t sr_shm_consumer_joined_after(const sr_shm_consumer *consumer);

/**
 * @brief Fills the ring, sequencer, dependents and sequence of a processor config.
 *
 * Fill the handler (and any other field) yourself, then sr_processor_create.
 * The dependents are the followed consumers' sequences and the cursor (so that
 * a dropped one never lets it pass what is published); they stay valid while the
 * consumer is joined.
 * @param consumer The consumer; not NULL.
 * @param config The config to fill; not NULL.
 * @retval SR_OK Filled.
 * @retval SR_EINVAL consumer or config is NULL.
 */
SR_API int sr_shm_consumer_processor_config(sr_shm_consumer *consumer, sr_processor_config *config);

/**
 * @brief Creates a poller over the shared ring that records its progress in the consumer's sequence.
 * @param consumer The consumer; not NULL.
 * @param err Receives the code and message on failure; may be NULL.
 * @return The poller, to free with sr_poller_destroy before the consumer leaves; NULL on
 *         failure (as sr_poller_create).
 */
SR_API sr_poller *sr_shm_consumer_poller(sr_shm_consumer *consumer, sr_error *err);

#ifdef __cplusplus
}
#endif

#endif /* SR_SHM_CONSUMER_H */

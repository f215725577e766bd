/* SPDX-License-Identifier: Apache-2.0 */
/**
 * @file sr_shm_producer.h
 * @ingroup shm
 * @brief A producer of a shared ring (sr_shm_ring.h): join, claim, write, publish, leave.
 *
 * A producer belongs to one thread at a time; threads that produce
 * concurrently each join their own (a multi-producer ring).  Claims and
 * publishes are those of sr_sequencer.h on the sequencer in the mapping,
 * plus, on a multi-producer ring, a note in the producer's registry entry:
 * the first and last sequence of its oldest claim not yet published,
 * written before the claim's CAS (the first) and after it (the last), and
 * moved on by the publish that completes that claim.  That is what the
 * reaper needs to tell a dead producer's claims from a live one's, and to
 * skip the whole of a claim whose publish a death cut in the middle.
 * Publish claims in the order they were claimed; at most
 * SR_SHM_PRODUCER_MAX_CLAIMS may be outstanding at once.
 */
#ifndef SR_SHM_PRODUCER_H
#define SR_SHM_PRODUCER_H

#include <stdint.h>

#include "sr_atomic.h"
#include "sr_error.h"
#include "sr_export.h"
#include "sr_sequencer.h"
#include "sr_shm_ring.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief The most claims a producer of a multi-producer ring holds unpublished at once. */
#define SR_SHM_PRODUCER_MAX_CLAIMS 64

/** @brief A joined producer; the fields belong to the sr_shm_producer_* functions. */
typedef struct sr_shm_producer {
	/** the sequencer in the mapping */
	sr_sequencer *sequencer;
	/** this producer's note in the mapping: the first sequence of its oldest unpublished claim */
	sr_atomic_i64 *claim_from;
	/** the note's end: the last sequence of that claim */
	sr_atomic_i64 *claim_to;
	/** the claims not yet published, oldest first (process-local): a ring of first, last pairs */
	int64_t pending[SR_SHM_PRODUCER_MAX_CLAIMS][2];
	/** where the oldest is in pending */
	int32_t pending_head;
	/** how many there are */
	int32_t pending_count;
	/** the handle it joined through */
	sr_shm_ring *ring;
	/** its index in the registry */
	int index;
	/** the descriptor whose lock says it lives */
	int liveness_fd;
} sr_shm_producer;

/**
 * @brief Joins a shared ring as a producer.
 * @param ring The handle; not NULL.
 * @param err Receives the code and message on failure; may be NULL.
 * @return The producer, to leave with sr_shm_producer_leave (or sr_shm_ring_close); NULL on
 *         failure with err filled: SR_EINVAL when ring is NULL; SR_ESTATE when a
 *         single-producer ring already has a live producer (the message names its pid);
 *         SR_EFULL when max_producers are joined and alive; SR_ESYS, SR_ENOMEM.
 */
SR_API sr_shm_producer *sr_shm_producer_join(sr_shm_ring *ring, sr_error *err);

/**
 * @brief Leaves: the registry entry is freed for another producer, *producer set to NULL.
 *
 * Publish every claim first: a claim left unpublished is reaped as a dead producer's would be.
 * @param producer The producer's address; NULL or a NULL producer does nothing.
 */
SR_API void sr_shm_producer_leave(sr_shm_producer **producer);

/* The note: the oldest unpublished claim's first (store-release: its last before it), or none. */
static inline void
sr_shm_producer__note_oldest(sr_shm_producer *p)
{
	if (p->pending_count == 0) {
		/*
		 * pairs with the reaper's load-acquire of the note, which it
		 * makes before it looks at the flags: our publish comes first.
		 */
		sr_atomic_store_release_i64(p->claim_from, INT64_MAX);
		return;
	}
	const int64_t *oldest = p->pending[p->pending_head];
	/* pairs with the reaper's load-acquire of the note, as above */
	sr_atomic_store_release_i64(p->claim_from, oldest[0]);
	/*
	 * After the first: a death between the two leaves a last below the
	 * first, which the reaper reads as unknown, never a range that spans
	 * another producer's sequences.
	 */
	sr_atomic_store_release_i64(p->claim_to, oldest[1]);
}

/**
 * @brief Claims n consecutive sequences, waiting for space until a deadline (as sr_sequencer_claim_until).
 * @param p The producer; not NULL.
 * @param n How many sequences, 1 to the ring's slot count.
 * @param deadline_ns A CLOCK_MONOTONIC time, SR_DEADLINE_NONE or SR_DEADLINE_NOW.
 * @param first Receives the first of them; INT64_MIN on failure.
 * @retval SR_OK Claimed: write and publish every one of them.
 * @retval SR_EFULL SR_DEADLINE_NOW and not enough space.
 * @retval SR_ETIMEDOUT The deadline passed first.
 * @retval SR_EINVAL n out of range.
 * @retval SR_ESTATE SR_SHM_PRODUCER_MAX_CLAIMS claims are outstanding (multi producer).
 * @retval SR_ESYS As sr_sequencer_claim_until.
 */
static inline int
sr_shm_producer_claim_until(sr_shm_producer *p, int64_t n, int64_t deadline_ns, int64_t *first)
{
	sr_sequencer *s = p->sequencer;
	*first = INT64_MIN;
	if (n < 1 || n > s->buffer_size)
		return SR_EINVAL;
	if (s->mode == SR_PRODUCER_SINGLE)
		return sr_sequencer__claim_single(s, n, deadline_ns, first);
	if (p->pending_count == SR_SHM_PRODUCER_MAX_CLAIMS)
		return SR_ESTATE;
	int rc = sr_sequencer__claim_multi_noting(s, n, deadline_ns, first, p->claim_from);
	if (rc != SR_OK)
		return rc;
	int64_t *slot = p->pending[(p->pending_head + p->pending_count) % SR_SHM_PRODUCER_MAX_CLAIMS];
	slot[0] = *first;
	slot[1] = *first + n - 1;
	/*
	 * The oldest claim's first is noted already (before the CAS): only its
	 * last is missing.  Pairs with the reaper's load-acquire of the note.
	 */
	if (p->pending_count++ == 0)
		sr_atomic_store_release_i64(p->claim_to, slot[1]);
	return SR_OK;
}

/**
 * @brief Claims one sequence, waiting as long as it takes.
 * @param p The producer; not NULL.
 * @param sequence Receives it.
 * @return As sr_shm_producer_claim_until.
 */
static inline int
sr_shm_producer_claim(sr_shm_producer *p, int64_t *sequence)
{
	return sr_shm_producer_claim_until(p, 1, SR_DEADLINE_NONE, sequence);
}

/**
 * @brief Claims n sequences or returns SR_EFULL at once.
 * @param p The producer; not NULL.
 * @param n How many sequences.
 * @param first Receives the first.
 * @return As sr_shm_producer_claim_until with SR_DEADLINE_NOW.
 */
static inline int
sr_shm_producer_try_claim_n(sr_shm_producer *p, int64_t n, int64_t *first)
{
	return sr_shm_producer_claim_until(p, n, SR_DEADLINE_NOW, first);
}

/**
 * @brief Publishes lo..hi, claimed by this producer and written.
 * @param p The producer; not NULL.
 * @param lo The first sequence of the range.
 * @param hi The last, at least lo.
 */
static inline void
sr_shm_producer_publish_range(sr_shm_producer *p, int64_t lo, int64_t hi)
{
	sr_sequencer_publish_range(p->sequencer, lo, hi);
	(void)lo;
	if (p->sequencer->mode != SR_PRODUCER_MULTI)
		return;
	/* The claims this publish completed (in claim order): the note moves on past them. */
	int32_t done = 0;
	while (done < p->pending_count &&
	    p->pending[(p->pending_head + done) % SR_SHM_PRODUCER_MAX_CLAIMS][1] <= hi)
		done++;
	if (done > 0) {
		p->pending_head = (p->pending_head + done) % SR_SHM_PRODUCER_MAX_CLAIMS;
		p->pending_count -= done;
		sr_shm_producer__note_oldest(p);
	}
}

/**
 * @brief Publishes one sequence.
 * @param p The producer; not NULL.
 * @param sequence The sequence.
 */
static inline void
sr_shm_producer_publish(sr_shm_producer *p, int64_t sequence)
{
	sr_shm_producer_publish_range(p, sequence, sequence);
}

#ifdef __cplusplus
}
#endif

#endif /* SR_SHM_PRODUCER_H */

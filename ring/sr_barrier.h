/* SPDX-License-Identifier: Apache-2.0 */
/**
 * @file sr_barrier.h
 * @ingroup ring
 * @brief What a consumer waits on (the Disruptor's SequenceBarrier).
 *
 * A barrier tracks the sequencer's cursor and, for consumers that follow
 * other consumers (pipelines, diamonds), their sequences.  sr_barrier_wait_for
 * returns the highest sequence the consumer may read, which may be beyond the
 * one it asked for: the whole range is then handled as one batch.  Alerting a
 * barrier makes any wait on it return SR_EALERTED at once, whatever the wait
 * strategy; that is how a processor is halted.
 */
#ifndef SR_BARRIER_H
#define SR_BARRIER_H

#include "sr_atomic.h"
#include "sr_error.h"
#include "sr_export.h"
#include "sr_sequence.h"
#include "sr_sequencer.h"
#include "sr_wait.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief The most consumers a barrier (or a poller) follows. */
#define SR_BARRIER_MAX_DEPENDENTS 16

/**
 * @brief What a consumer waits on: the sequencer's cursor, the consumers it follows, the alert flag.
 *
 * Set up by sr_barrier_init; the fields belong to the sr_barrier_* functions.
 */
typedef struct sr_barrier {
	/** the sequencer whose cursor the barrier follows */
	sr_sequencer *sequencer;
	/** the sequences of the consumers this one follows */
	const sr_sequence *dependents[SR_BARRIER_MAX_DEPENDENTS];
	/** how many dependents there are */
	int dependent_count;
	/** Written by halting threads, read by the waiter on every spin. */
	struct {
		/** padding: the flag alone on its line */
		char pad_before[SR_CACHELINE];
		/** 1 while alerted */
		sr_atomic_i32 value;
		/** the rest of the line */
		char pad_after[SR_CACHELINE - sizeof(int32_t)];
	} __attribute__((aligned(SR_CACHELINE))) alerted;
} sr_barrier;

/**
 * @brief Initialises b over sequencer s and the sequences of the consumers it must follow.
 * @param b The barrier to initialise.
 * @param s The sequencer whose cursor it follows.
 * @param dependents The sequences of the consumers to follow; may be NULL when dependent_count is 0.
 * @param dependent_count How many, 0 (a first-stage consumer) to SR_BARRIER_MAX_DEPENDENTS.
 * @param err Receives the message on failure; may be NULL.
 * @retval SR_OK b is ready (not alerted).
 * @retval SR_EINVAL b or s is NULL, dependent_count is out of range, dependents is
 *         NULL with a positive count, or a dependent is NULL.
 */
SR_API int sr_barrier_init(sr_barrier *b, sr_sequencer *s,
    const sr_sequence *const *dependents, int dependent_count, sr_error *err);

/**
 * @fn static inline int sr_barrier_wait_for(sr_barrier *b, int64_t sequence, int64_t *available)
 * @brief Waits until `sequence` may be read.
 *
 * On SR_OK *available is the highest sequence >=
 * `sequence` that may be read, every sequence up to it published (and
 * handled by every dependent consumer).
 *
 * A sequence that a producer claimed and never publishes stalls every
 * consumer here for ever (nothing after it is delivered): publish what you
 * claim, even when filling the slot failed (sr_publish.h marks such a slot
 * skipped).  While stalled, the consumer waits as its strategy waits for
 * any event: block, liteblock, timeout and sleep use no core.
 * @param b The barrier; not NULL.
 * @param sequence The next sequence the consumer wants.
 * @param available Receives the highest readable sequence on SR_OK.
 * @retval SR_OK sequence .. *available may be read.
 * @retval SR_EALERTED The barrier is alerted (sr_barrier_alert).
 * @retval SR_ETIMEDOUT A timeout wait strategy timed out.
 */
static inline int
sr_barrier_wait_for_bounded(sr_barrier *b, int64_t sequence, int64_t limit, int64_t *available);

static inline int
sr_barrier_wait_for(sr_barrier *b, int64_t sequence, int64_t *available)
{
	return sr_barrier_wait_for_bounded(b, sequence, INT64_MAX, available);
}

/**
 * @brief As sr_barrier_wait_for, but never reports beyond `limit`.
 *
 * A
 * consumer with a maximum batch size passes next + max - 1: in multi-producer
 * mode the availability flags are then scanned only as far as the batch it
 * will take, not across the whole backlog on every batch (which made a
 * drained backlog of n events cost O(n^2 / max) flag reads).
 * @param b The barrier; not NULL.
 * @param sequence The next sequence the consumer wants.
 * @param limit The highest sequence to report, at least sequence.
 * @param available Receives the highest readable sequence, at most limit, on SR_OK.
 * @retval SR_OK sequence .. *available may be read.
 * @retval SR_EALERTED The barrier is alerted.
 * @retval SR_ETIMEDOUT A timeout wait strategy timed out.
 */
static inline int
sr_barrier_wait_for_bounded(sr_barrier *b, int64_t sequence, int64_t limit, int64_t *available)
{
	/* pairs with the store-release in sr_barrier_alert */
	if (sr_atomic_load_acquire_i32(&b->alerted.value))
		return SR_EALERTED;
	for (;;) {
		int64_t avail;
		int rc = sr_wait_for(&b->sequencer->wait, sequence, &b->sequencer->cursor,
		    b->dependents, b->dependent_count, &b->alerted.value, &avail);
		if (rc != SR_OK)
			return rc;
		if (avail > limit)
			avail = limit;
		/* MP: the cursor counts claims; keep only the contiguously published. */
		int64_t published = sr_sequencer_highest_published(b->sequencer, sequence, avail);
		if (published >= sequence) {
			*available = published;
			return SR_OK;
		}
		/*
		 * `sequence` is claimed but not yet published: wait for its
		 * flag as the strategy waits for the cursor (a blocking kind
		 * sleeps), rather than re-reading the cursor at full speed.
		 */
		rc = sr_wait_for_publish(&b->sequencer->wait, sequence,
		    &sr_sequencer__available(b->sequencer)[sequence & b->sequencer->mask], &b->alerted.value);
		if (rc != SR_OK)
			return rc;
	}
}

/**
 * @brief The cursor this barrier follows (the sequencer's).
 * @param b The barrier; not NULL.
 * @return The cursor's value, as sr_sequencer_cursor.
 */
static inline int64_t
sr_barrier_cursor(const sr_barrier *b)
{
	return sr_sequencer_cursor(b->sequencer);
}

/**
 * @brief Makes every current and future wait return SR_EALERTED, and wakes sleepers.
 * @param b The barrier; not NULL.
 */
static inline void
sr_barrier_alert(sr_barrier *b)
{
	/* pairs with the load-acquire in sr_barrier_wait_for and sr_wait_for */
	sr_atomic_store_release_i32(&b->alerted.value, 1);
	sr_wait_signal_all(&b->sequencer->wait);
}

/**
 * @brief Clears the alert, so that waits wait again (before a processor restarts).
 * @param b The barrier; not NULL.
 */
static inline void
sr_barrier_clear_alert(sr_barrier *b)
{
	sr_atomic_store_release_i32(&b->alerted.value, 0);
}

/**
 * @brief Whether the barrier is alerted.
 * @param b The barrier; not NULL.
 * @return true between sr_barrier_alert and sr_barrier_clear_alert.
 */
static inline bool
sr_barrier_is_alerted(const sr_barrier *b)
{
	return sr_atomic_load_acquire_i32(&b->alerted.value) != 0;
}

#ifdef __cplusplus
}
#endif

#endif /* SR_BARRIER_H */

/* SPDX-License-Identifier: Apache-2.0 */
/**
 * @file sr_sequence.h
 * @ingroup base
 * @brief A 64-bit sequence counter alone on its cache line.
 *
 * Everything in seqring waits on one of these: the producer cursor, each
 * consumer's progress, the gating sequences.  Sequences start at -1 (nothing
 * published or consumed yet) and only grow; a slot's index is
 * `sequence & mask`.  The value sits on its own 64-byte line with a full line
 * of padding before it, so that neither a neighbour's writes nor the adjacent
 * line prefetcher (which fetches lines in 128-byte pairs) make two threads
 * fight over one line (false sharing; see examples/false_sharing.c).
 */
#ifndef SR_SEQUENCE_H
#define SR_SEQUENCE_H

#include <stdint.h>

#include "sr_atomic.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SR_SEQUENCE_INITIAL INT64_C(-1)
/** @def SR_SEQUENCE_INITIAL
 * @brief The value of a sequence before anything was published or consumed. */

/** @brief A 64-bit sequence counter alone on its cache line, accessed through the sr_sequence_* functions. */
typedef struct sr_sequence {
	/** @brief A full line of padding before the value (the adjacent line prefetcher). */
	char pad_before[SR_CACHELINE];
	/** @brief The counter. */
	sr_atomic_i64 value;
	/** @brief The rest of the value's line. */
	char pad_after[SR_CACHELINE - sizeof(int64_t)];
} __attribute__((aligned(SR_CACHELINE))) sr_sequence;

/**
 * @brief Sets the value without ordering: only before the sequence is shared.
 * @param s The sequence; not NULL.
 * @param value Its first value (usually SR_SEQUENCE_INITIAL).
 */
static inline void
sr_sequence_init(sr_sequence *s, int64_t value)
{
	sr_atomic_store_relaxed_i64(&s->value, value);
}

/**
 * @brief Load-acquire of the sequence's value.
 *
 * Everything written before the matching sr_sequence_set
 * (store-release) of this value is visible after this returns.
 * @param s The sequence; not NULL.
 * @return Its value.
 */
static inline int64_t
sr_sequence_get(const sr_sequence *s)
{
	return sr_atomic_load_acquire_i64(&s->value);
}

/**
 * @brief Relaxed load: for the owner of the sequence, which needs no ordering.
 * @param s The sequence; not NULL.
 * @return Its value.
 */
static inline int64_t
sr_sequence_get_relaxed(const sr_sequence *s)
{
	return sr_atomic_load_relaxed_i64(&s->value);
}

/**
 * @brief Store-release of a new value.
 *
 * Every write before this call (e.g. a slot's contents or a
 * handler's work on it) is visible to a thread whose sr_sequence_get sees
 * this value.
 * @param s The sequence; not NULL.
 * @param value The new value.
 */
static inline void
sr_sequence_set(sr_sequence *s, int64_t value)
{
	sr_atomic_store_release_i64(&s->value, value);
}

/**
 * @brief Store-release followed by a full fence (the Disruptor's setVolatile).
 *
 * Later
 * loads by this thread cannot be ordered before the store.  Needed where a
 * thread publishes and then reads a flag that another thread sets before
 * reading this sequence (Dekker hand-off, e.g. a waiter going to sleep).
 * @param s The sequence; not NULL.
 * @param value The new value.
 */
static inline void
sr_sequence_set_fenced(sr_sequence *s, int64_t value)
{
	sr_atomic_store_release_i64(&s->value, value);
	sr_atomic_fence_seq_cst();
}

/**
 * @brief Compare-and-set with a full barrier.
 * @param s The sequence; not NULL.
 * @param expected The value the sequence must hold.
 * @param desired The value stored when it does.
 * @return true when the value was `expected` (and is now `desired`), false otherwise.
 */
static inline bool
sr_sequence_cas(sr_sequence *s, int64_t expected, int64_t desired)
{
	return sr_atomic_cas_i64(&s->value, expected, desired);
}

/**
 * @brief Atomic add with a full barrier.
 * @param s The sequence; not NULL.
 * @param delta Added to the value.
 * @return The new value.
 */
static inline int64_t
sr_sequence_add(sr_sequence *s, int64_t delta)
{
	return sr_atomic_faa_i64(&s->value, delta) + delta;
}

#ifdef __cplusplus
}
#endif

#endif /* SR_SEQUENCE_H */

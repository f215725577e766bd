/* SPDX-License-Identifier: Apache-2.0 */
/**
 * @file sr_sequencer.h
 * @ingroup ring
 * @brief Who may write which slot, and when readers may see it.
 *
 * Producers claim sequences, write the claimed slots, then publish them;
 * consumers (through sr_barrier.h) wait for published sequences and record
 * their progress in their own sr_sequence.  Every claimed sequence must be
 * published, on every path: one that never is stalls every consumer at it
 * for ever, and, once the ring wraps, every producer too.  When filling a
 * slot can fail, mark it skipped (sr_sequencer_mark_skipped) and publish it,
 * or let sr_publish.h's calls do both.  A producer never claims a
 * sequence whose slot some gating (consumer) sequence has not yet passed:
 * claim waits, try-claim returns SR_EFULL, a claim with a timeout returns
 * SR_ETIMEDOUT.
 *
 * Two modes, as the Disruptor's Single- and MultiProducerSequencer:
 *  - SR_PRODUCER_SINGLE: one producing thread.  Claiming is plain arithmetic
 *    on producer-private fields; publishing is one store-release of the
 *    cursor.  The cursor is the highest *published* sequence.
 *  - SR_PRODUCER_MULTI: any number of producing threads.  Claiming is a CAS
 *    on the cursor, which is therefore the highest *claimed* sequence;
 *    publishing stores the sequence into a per-slot availability array, so
 *    consumers see only contiguously published sequences even when producers
 *    publish out of order (sr_sequencer_highest_published).
 *
 * Full ring: a waiting producer backs off (spin, yield, short naps; see
 * sr_backoff_pause in sr_backoff.h).  With synchronize_enqueue_when_full (default on, as Log4j 2's
 * SynchronizeEnqueueWhenQueueFull), producers that find the ring full queue on
 * one mutex, so at most one of them polls for space while the others sleep:
 * with many more threads than cores, spinning producers would otherwise steal
 * the CPU from the very consumer they wait for.
 */
#ifndef SR_SEQUENCER_H
#define SR_SEQUENCER_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "sr_atomic.h"
#include "sr_error.h"
#include "sr_export.h"
#include "sr_sequence.h"
#include "sr_time.h"
#include "sr_wait.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief How many threads may claim and publish on a sequencer. */
enum sr_producer_mode {
	/** one producing thread: claiming is plain arithmetic, the cursor is the highest published sequence */
	SR_PRODUCER_SINGLE = 0,
	/** any number of producing threads: claiming is a CAS, the cursor is the highest claimed sequence */
	SR_PRODUCER_MULTI = 1
};

/** @brief The most gating sequences a sequencer holds (sr_sequencer_add_gating). */
#define SR_SEQUENCER_MAX_GATING 32

/** @brief What sr_sequencer_create builds (fill it with sr_sequencer_config_default first). */
typedef struct sr_sequencer_config {
	int64_t buffer_size;        /**< slots in the ring: power of two >= 2 */
	/** single or multi producer */
	enum sr_producer_mode mode;
	int64_t initial_sequence;   /**< the cursor's start, default -1 */
	bool synchronize_enqueue_when_full; /**< default true */
	sr_wait_config wait;        /**< consumers' wait strategy, default block */
} sr_sequencer_config;

/**
 * @brief A sequencer: the cursor, the gating sequences and the claim state.
 *
 * The fields belong to the sr_sequencer_* functions (several are read by the
 * inline claim and publish code); read them through those functions.
 */
typedef struct sr_sequencer {
	/** SP: highest published; MP: highest claimed. */
	sr_sequence cursor;
	/** MP: last seen minimum of the gating sequences (a hint, release/acquire). */
	sr_sequence gating_cache;
	/** SP: producer-private, on its own lines so consumers never touch them. */
	struct {
		/** padding before the producer's fields */
		char pad_before[SR_CACHELINE];
		int64_t next_value;     /**< last claimed sequence */
		int64_t cached_gating;  /**< last seen minimum gating sequence */
		/** the rest of the line */
		char pad_after[SR_CACHELINE - 2 * sizeof(int64_t)];
	} __attribute__((aligned(SR_CACHELINE))) single;

	/** the config's mode */
	enum sr_producer_mode mode;
	/** the config's buffer_size */
	int64_t buffer_size;
	/** buffer_size - 1 */
	int64_t mask;
	/** the config's initial_sequence */
	int64_t initial_sequence;
	/** the config's synchronize_enqueue_when_full */
	bool synchronize_enqueue_when_full;
	/*
	 * The arrays and the gating sequences are found by their distance in
	 * bytes from the sequencer's own address, never by a pointer, so that a
	 * sequencer placed in a mapping shared between processes reads the same
	 * in every process, wherever each maps it.
	 */
	/** MP: available[s & mask] == s once s is published (sr_sequencer__available). */
	int64_t available_offset;
	/**
	 * skipped[s & mask] == s + 1 when s was published without content
	 * (sr_sequencer_mark_skipped): zero-filled, so untouched pages cost no
	 * memory.  any_skipped, set once for ever, lets consumers look at the
	 * marks only when some slot was ever skipped.
	 */
	int64_t skipped_offset;
	/**
	 * The arrays sr_sequencer_create allocated, to free them (and so that a
	 * leak checker, which cannot follow an offset, sees them reachable);
	 * NULL in a sequencer built in memory its caller owns.
	 */
	void *owned_arrays[2];
	/** 1 once any sequence was marked skipped */
	sr_atomic_i32 any_skipped;

	/** Gating sequences: read lock-free by producers, changed under gating_lock. */
	sr_atomic_i32 gating_count;
	/** the gating sequences, as offsets from the sequencer (sr_sequencer__at), gating_count of them */
	sr_atomic_i64 gating[SR_SEQUENCER_MAX_GATING];
	/**
	 * Serialises sr_sequencer_add_gating and sr_sequencer_remove_gating.
	 * Robust between processes: a holder that dies leaves it to the next.
	 */
	pthread_mutex_t gating_lock;

	/** Producers that found the ring full queue here (synchronized enqueue); robust between processes. */
	pthread_mutex_t full_lock;

	/** the consumers' wait strategy (sr_sequencer_wait) */
	sr_wait wait;
} sr_sequencer;

/**
 * @brief Fills config with the defaults: mode, -1, synchronized enqueue on, block wait strategy.
 * @param config The config to fill; not NULL.
 * @param buffer_size Slots in the ring (checked by sr_sequencer_create).
 * @param mode Single or multi producer.
 */
SR_API void sr_sequencer_config_default(sr_sequencer_config *config, int64_t buffer_size,
    enum sr_producer_mode mode);

/**
 * @brief Creates a sequencer.
 * @param config What to build; copied.
 * @param err Receives the code and message on failure; may be NULL.
 * @return The sequencer, to free with sr_sequencer_destroy; NULL on failure, with err
 *         filled: SR_EINVAL when config is NULL, buffer_size is not a power of
 *         two in [2, 2^30], mode is unknown, initial_sequence is below -1 or too close
 *         to INT64_MAX (above INT64_MAX / 2 + INT64_MAX / 4), or the wait config is
 *         invalid; SR_ENOMEM when memory runs out; SR_ESYS when the wait strategy's
 *         mutex or condition variable cannot be initialised.
 */
SR_API sr_sequencer *sr_sequencer_create(const sr_sequencer_config *config, sr_error *err);
/**
 * @brief Frees a sequencer; no thread may still use it.
 * @param s A sequencer from sr_sequencer_create; NULL is ignored.
 */
SR_API void sr_sequencer_destroy(sr_sequencer *s);

/**
 * @brief Adds a sequence that producers must not overtake (a final consumer's).
 *
 * Safe while
 * producers run; set the new sequence to the cursor first, as the Disruptor
 * does, if events are already flowing.
 * @param s The sequencer.
 * @param gating The sequence; it must outlive its membership.
 * @retval SR_OK Added.
 * @retval SR_EINVAL s or gating is NULL.
 * @retval SR_EFULL SR_SEQUENCER_MAX_GATING sequences are there already.
 * @retval SR_ESYS The gating lock could not be taken.
 */
SR_API int sr_sequencer_add_gating(sr_sequencer *s, const sr_sequence *gating);
/**
 * @brief Removes a gating sequence.
 * @param s The sequencer.
 * @param gating A sequence added with sr_sequencer_add_gating.
 * @retval SR_OK Removed.
 * @retval SR_EINVAL s or gating is NULL, or gating was not added.
 * @retval SR_ESYS The gating lock could not be taken.
 */
SR_API int sr_sequencer_remove_gating(sr_sequencer *s, const sr_sequence *gating);

/* The address `offset` bytes from the sequencer (an array or a gating sequence). */
static inline void *
sr_sequencer__at(const sr_sequencer *s, int64_t offset)
{
	return (void *)((uintptr_t)s + (uintptr_t)offset);
}

/* The offset of an address from the sequencer (the inverse of sr_sequencer__at). */
static inline int64_t
sr_sequencer__offset_of(const sr_sequencer *s, const void *p)
{
	return (int64_t)((uintptr_t)p - (uintptr_t)s);
}

/* MP: the availability flags. */
static inline sr_atomic_i64 *
sr_sequencer__available(const sr_sequencer *s)
{
	return (sr_atomic_i64 *)sr_sequencer__at(s, s->available_offset);
}

/* The skip marks. */
static inline sr_atomic_i64 *
sr_sequencer__skipped(const sr_sequencer *s)
{
	return (sr_atomic_i64 *)sr_sequencer__at(s, s->skipped_offset);
}

/**
 * @brief The lowest gating sequence.
 * @param s The sequencer; not NULL.
 * @param fallback What to return when there are no gating sequences, and the ceiling of the result.
 * @return The lowest of the gating sequences and fallback.
 */
static inline int64_t
sr_sequencer_min_gating(const sr_sequencer *s, int64_t fallback)
{
	/* pairs with the store-release in sr_sequencer_add_gating */
	int32_t n = sr_atomic_load_acquire_i32(&s->gating_count);
	int64_t lowest = fallback;
	for (int32_t i = 0; i < n; i++) {
		/* pairs with the store-release of the entry in sr_sequencer_add_gating */
		const sr_sequence *g = (const sr_sequence *)sr_sequencer__at(s,
		    sr_atomic_load_acquire_i64(&s->gating[i]));
		/*
		 * Acquire pairs with each consumer's store-release of its
		 * sequence: the consumer's reads of a slot happen before our
		 * later writes to it.
		 */
		int64_t v = sr_sequence_get(g);
		if (v < lowest)
			lowest = v;
	}
	return lowest;
}

/* Out of line: the full-ring wait (backoff, synchronized enqueue, deadline). */
SR_API int sr_sequencer__wait_for_capacity(sr_sequencer *s, int64_t n, int64_t deadline_ns);

/** @brief A deadline that never comes: wait for as long as it takes. */
#define SR_DEADLINE_NONE INT64_MAX  /* wait for as long as it takes */
/** @brief A deadline already passed: do not wait at all (try-claim). */
#define SR_DEADLINE_NOW  INT64_MIN  /* do not wait at all (try-claim) */

/*
 * The single-producer claim (the caller checked the mode and 1 <= n <=
 * buffer_size): plain arithmetic on the producer's own fields; the gating
 * sequences are read only when the cached minimum no longer leaves room.
 */
static inline int
sr_sequencer__claim_single(sr_sequencer *s, int64_t n, int64_t deadline_ns, int64_t *first)
{
	int64_t current = s->single.next_value;
	int64_t next = current + n;
	int64_t wrap_point = next - s->buffer_size;
	int64_t cached = s->single.cached_gating;
	if (wrap_point > cached || cached > current) {
		int64_t gating = sr_sequencer_min_gating(s, current);
		while (wrap_point > gating) {
			if (deadline_ns == SR_DEADLINE_NOW)
				return SR_EFULL;
			int rc = sr_sequencer__wait_for_capacity(s, n, deadline_ns);
			if (rc != SR_OK)
				return rc;
			gating = sr_sequencer_min_gating(s, current);
		}
		s->single.cached_gating = gating;
	}
	s->single.next_value = next;
	*first = current + 1;
	return SR_OK;
}

/**
 * @brief Claims n sequences on a sequencer known to be single-producer, or returns SR_EFULL at once.
 *
 * For a sequencer known to be single-producer (its only producer calls).
 * The mode and n are not checked: this is the claim of a hot path that
 * made the sequencer itself.  Publish with sr_sequencer_publish_range.
 * @param s A SR_PRODUCER_SINGLE sequencer; not NULL.
 * @param n How many sequences, 1 <= n <= buffer_size.
 * @param first Receives the first claimed sequence.
 * @retval SR_OK Claimed *first .. *first + n - 1.
 * @retval SR_EFULL Not enough space now.
 */
static inline int
sr_sequencer_try_claim_single(sr_sequencer *s, int64_t n, int64_t *first)
{
	return sr_sequencer__claim_single(s, n, SR_DEADLINE_NOW, first);
}

/**
 * @brief The first sequence the next single-producer claim will return (its producer only).
 * @param s A SR_PRODUCER_SINGLE sequencer; not NULL.
 * @return The last claimed sequence + 1.
 */
static inline int64_t
sr_sequencer_next_single(const sr_sequencer *s)
{
	return s->single.next_value + 1;
}

/*
 * The multi-producer claim (the caller checked the mode and 1 <= n <=
 * buffer_size): a CAS on the cursor, the gating sequences read only when
 * the shared cached minimum no longer leaves room.
 *
 * claim_from, when not NULL, is where a producer whose death others must
 * survive notes, before its CAS, the lowest sequence it may come to own
 * (INT64_MAX: it owns none unpublished): a reaper that finds it dead marks
 * the claimed sequences no live producer may own as abandoned, instead of
 * letting consumers wait for them for ever.  It is left as it was found
 * when the claim fails or waits.  A constant NULL folds away.
 */
static inline int
sr_sequencer__claim_multi_noting(sr_sequencer *s, int64_t n, int64_t deadline_ns, int64_t *first,
    sr_atomic_i64 *claim_from)
{
	int64_t noted = claim_from != NULL ? sr_atomic_load_relaxed_i64(claim_from) : 0;
	for (;;) {
		/* The CAS below orders the claim; this load needs no ordering. */
		int64_t current = sr_sequence_get_relaxed(&s->cursor);
		int64_t next = current + n;
		int64_t wrap_point = next - s->buffer_size;
		/*
		 * Acquire pairs with the store-release of gating_cache below, by
		 * whichever producer refreshed it: that producer's load-acquire
		 * of the consumers' sequences (and so their reads of the slots)
		 * happens before our writes to the slots the cache lets us claim.
		 */
		int64_t cached = sr_sequence_get(&s->gating_cache);
		if (wrap_point > cached || cached > current) {
			int64_t gating = sr_sequencer_min_gating(s, current);
			if (wrap_point > gating) {
				if (claim_from != NULL)
					sr_atomic_store_relaxed_i64(claim_from, noted);
				if (deadline_ns == SR_DEADLINE_NOW)
					return SR_EFULL;
				int rc = sr_sequencer__wait_for_capacity(s, n, deadline_ns);
				if (rc != SR_OK)
					return rc;
				continue;
			}
			/* pairs with the load-acquire of gating_cache above */
			sr_sequence_set(&s->gating_cache, gating);
		} else {
			/*
			 * The note comes before the CAS, whose full barrier makes
			 * it visible to whoever reads the cursor the CAS wrote
			 * (the reaper's load-acquire of the cursor).
			 */
			if (claim_from != NULL && noted == INT64_MAX)
				sr_atomic_store_relaxed_i64(claim_from, current + 1);
			if (sr_sequence_cas(&s->cursor, current, next)) {
				*first = current + 1;
				return SR_OK;
			}
		}
	}
}

static inline int
sr_sequencer__claim_multi(sr_sequencer *s, int64_t n, int64_t deadline_ns, int64_t *first)
{
	return sr_sequencer__claim_multi_noting(s, n, deadline_ns, first, NULL);
}

/**
 * @brief Claims n consecutive sequences, waiting for space until a deadline.
 * @param s The sequencer; not NULL.
 * @param n How many sequences, 1 to buffer_size.
 * @param deadline_ns A CLOCK_MONOTONIC time (sr_monotonic_ns() + timeout),
 *        SR_DEADLINE_NONE or SR_DEADLINE_NOW.
 * @param first Receives the first of them (the last is *first + n - 1); INT64_MIN on failure.
 * @retval SR_OK Claimed: publish every one of them.
 * @retval SR_EFULL SR_DEADLINE_NOW and not enough space.
 * @retval SR_ETIMEDOUT The deadline passed first.
 * @retval SR_EINVAL n < 1 or n > buffer_size.
 * @retval SR_ESYS The timed lock of the synchronized enqueue failed (multi producer,
 *         synchronize_enqueue_when_full, a deadline other than SR_DEADLINE_NONE).
 */
static inline int
sr_sequencer_claim_until(sr_sequencer *s, int64_t n, int64_t deadline_ns, int64_t *first)
{
	/* Defined even on failure, so callers' compilers see no uninitialised use. */
	*first = INT64_MIN;
	if (n < 1 || n > s->buffer_size)
		return SR_EINVAL;
	if (s->mode == SR_PRODUCER_SINGLE)
		return sr_sequencer__claim_single(s, n, deadline_ns, first);
	return sr_sequencer__claim_multi(s, n, deadline_ns, first);
}

/**
 * @brief Claims one sequence, waiting for space as long as it takes.
 * @param s The sequencer; not NULL.
 * @param sequence Receives the claimed sequence.
 * @return SR_OK (as sr_sequencer_claim_until with SR_DEADLINE_NONE).
 */
static inline int
sr_sequencer_claim(sr_sequencer *s, int64_t *sequence)
{
	return sr_sequencer_claim_until(s, 1, SR_DEADLINE_NONE, sequence);
}

/**
 * @brief Claims n sequences, waiting for space as long as it takes.
 * @param s The sequencer; not NULL.
 * @param n How many sequences, 1 to buffer_size.
 * @param first Receives the first claimed sequence.
 * @retval SR_OK Claimed *first .. *first + n - 1.
 * @retval SR_EINVAL n < 1 or n > buffer_size.
 */
static inline int
sr_sequencer_claim_n(sr_sequencer *s, int64_t n, int64_t *first)
{
	return sr_sequencer_claim_until(s, n, SR_DEADLINE_NONE, first);
}

/**
 * @brief Claims one sequence or returns SR_EFULL at once.
 * @param s The sequencer; not NULL.
 * @param sequence Receives the claimed sequence.
 * @retval SR_OK Claimed.
 * @retval SR_EFULL No space now.
 */
static inline int
sr_sequencer_try_claim(sr_sequencer *s, int64_t *sequence)
{
	return sr_sequencer_claim_until(s, 1, SR_DEADLINE_NOW, sequence);
}

/**
 * @brief Claims n sequences or returns SR_EFULL at once.
 * @param s The sequencer; not NULL.
 * @param n How many sequences, 1 to buffer_size.
 * @param first Receives the first claimed sequence.
 * @retval SR_OK Claimed *first .. *first + n - 1.
 * @retval SR_EFULL Not enough space now.
 * @retval SR_EINVAL n < 1 or n > buffer_size.
 */
static inline int
sr_sequencer_try_claim_n(sr_sequencer *s, int64_t n, int64_t *first)
{
	return sr_sequencer_claim_until(s, n, SR_DEADLINE_NOW, first);
}

/**
 * @brief Claims n sequences on a sequencer known to be multi-producer, or returns SR_EFULL at once.
 *
 * For a hot path that made the sequencer itself: the mode and n are not
 * checked.  Publish with sr_sequencer_publish_multi (or
 * sr_sequencer_publish_range).
 * @param s A SR_PRODUCER_MULTI sequencer; not NULL.
 * @param n How many sequences, 1 <= n <= buffer_size.
 * @param first Receives the first claimed sequence.
 * @retval SR_OK Claimed *first .. *first + n - 1.
 * @retval SR_EFULL Not enough space now.
 */
static inline int
sr_sequencer_try_claim_multi(sr_sequencer *s, int64_t n, int64_t *first)
{
	return sr_sequencer__claim_multi(s, n, SR_DEADLINE_NOW, first);
}

/**
 * @brief Claims n sequences, giving up with SR_ETIMEDOUT after timeout_ns.
 * @param s The sequencer; not NULL.
 * @param n How many sequences, 1 to buffer_size.
 * @param timeout_ns How long to wait for space, at least 0 (0: do not wait).
 * @param first Receives the first claimed sequence.
 * @retval SR_OK Claimed *first .. *first + n - 1.
 * @retval SR_ETIMEDOUT The timeout passed first.
 * @retval SR_EINVAL timeout_ns < 0 (*first is then not written), n < 1 or n > buffer_size.
 * @retval SR_ESYS As sr_sequencer_claim_until.
 */
static inline int
sr_sequencer_claim_timeout(sr_sequencer *s, int64_t n, int64_t timeout_ns, int64_t *first)
{
	if (timeout_ns < 0)
		return SR_EINVAL;
	int64_t now = sr_monotonic_ns();
	/* A timeout beyond INT64_MAX is no deadline at all (and no overflow). */
	int64_t deadline = timeout_ns >= SR_DEADLINE_NONE - now ? SR_DEADLINE_NONE : now + timeout_ns;
	return sr_sequencer_claim_until(s, n, deadline, first);
}

/* The multi-producer publish's availability flags, hi down to lo. */
static inline void
sr_sequencer__publish_flags(sr_sequencer *s, int64_t lo, int64_t hi)
{
	sr_atomic_i64 *available = sr_sequencer__available(s);
	for (int64_t seq = hi; seq >= lo; seq--) {
		/* pairs with the load-acquire in sr_sequencer_is_available */
		sr_atomic_store_release_i64(&available[seq & s->mask], seq);
	}
}

/**
 * @brief Publishes sequences lo..hi (claimed by this thread and written).
 *
 * In MP
 * mode the flags are stored from hi down to lo, so a consumer that sees lo
 * published sees the whole range: a record spread over several slots is
 * never seen in part.
 * @param s The sequencer; not NULL.
 * @param lo The first sequence of the range.
 * @param hi The last, at least lo.
 */
static inline void
sr_sequencer_publish_range(sr_sequencer *s, int64_t lo, int64_t hi)
{
	if (s->mode == SR_PRODUCER_SINGLE) {
		/* pairs with the load-acquire of the cursor in sr_wait_for */
		sr_sequence_set(&s->cursor, hi);
	} else {
		sr_sequencer__publish_flags(s, lo, hi);
	}
	sr_wait_signal(&s->wait);
}

/**
 * @brief Publishes sequences lo..hi on a sequencer known to be multi-producer.
 *
 * As sr_sequencer_publish_range, without its look at the mode: for the
 * claims of sr_sequencer_try_claim_multi.
 * @param s A SR_PRODUCER_MULTI sequencer; not NULL.
 * @param lo The first sequence of the range.
 * @param hi The last, at least lo.
 */
static inline void
sr_sequencer_publish_multi(sr_sequencer *s, int64_t lo, int64_t hi)
{
	sr_sequencer__publish_flags(s, lo, hi);
	sr_wait_signal(&s->wait);
}

/**
 * @brief Publishes one sequence (claimed by this thread and written).
 * @param s The sequencer; not NULL.
 * @param sequence The sequence.
 */
static inline void
sr_sequencer_publish(sr_sequencer *s, int64_t sequence)
{
	sr_sequencer_publish_range(s, sequence, sequence);
}

/**
 * @brief The cursor: highest published (SP) or highest claimed (MP) sequence.
 * @param s The sequencer; not NULL.
 * @return The cursor's value (load-acquire).
 */
static inline int64_t
sr_sequencer_cursor(const sr_sequencer *s)
{
	return sr_sequence_get(&s->cursor);
}

/**
 * @brief Whether `sequence` has been published (and not yet overwritten).
 * @param s The sequencer; not NULL.
 * @param sequence The sequence.
 * @return true when it is published and its slot not yet reused.
 */
static inline bool
sr_sequencer_is_available(const sr_sequencer *s, int64_t sequence)
{
	if (s->mode == SR_PRODUCER_SINGLE)
		return sequence <= sr_sequence_get(&s->cursor) &&
		    sequence > sr_sequence_get(&s->cursor) - s->buffer_size;
	/* pairs with the store-release in sr_sequencer_publish_range */
	return sr_atomic_load_acquire_i64(&sr_sequencer__available(s)[sequence & s->mask]) == sequence;
}

/**
 * @brief The highest sequence up to which everything from lo is published.
 *
 * `available` comes from the cursor, so for SP it is already the answer.
 * @param s The sequencer; not NULL.
 * @param lo The first sequence to look at.
 * @param available The highest sequence to look at (a cursor value).
 * @return The highest h in [lo - 1, available] such that every sequence
 *         from lo to h is published.
 */
static inline int64_t
sr_sequencer_highest_published(const sr_sequencer *s, int64_t lo, int64_t available)
{
	if (s->mode == SR_PRODUCER_SINGLE)
		return available;
	const sr_atomic_i64 *flags = sr_sequencer__available(s);
	for (int64_t seq = lo; seq <= available; seq++) {
		/* pairs with the store-release in sr_sequencer_publish_range */
		if (sr_atomic_load_acquire_i64(&flags[seq & s->mask]) != seq)
			return seq - 1;
	}
	return available;
}

/**
 * @brief Marks a claimed, not yet published sequence as skipped.
 *
 * Its slot holds no
 * event (its writer failed).  Publish it as usual afterwards; consumers then
 * pass over it (sr_processor calls the handler's on_skip, sr_poller its
 * on_skip) instead of handing its slot to on_event.  The marks are plain
 * stores: the publish's store-release orders them before the consumers'
 * load-acquire of the cursor or the flag.
 * @param s The sequencer; not NULL.
 * @param sequence A sequence this thread claimed and has not published.
 */
static inline void
sr_sequencer_mark_skipped(sr_sequencer *s, int64_t sequence)
{
	sr_atomic_store_relaxed_i64(&sr_sequencer__skipped(s)[sequence & s->mask], sequence + 1);
	sr_atomic_store_relaxed_i32(&s->any_skipped, 1);
}

/**
 * @brief Whether some sequence was ever marked skipped.
 *
 * Read by consumers after
 * their barrier's load-acquire, which orders it after the publish.
 * @param s The sequencer; not NULL.
 * @return true once any sequence was marked skipped.
 */
static inline bool
sr_sequencer_has_skips(const sr_sequencer *s)
{
	return sr_atomic_load_relaxed_i32(&s->any_skipped) != 0;
}

/**
 * @brief Whether the published `sequence` was marked skipped (ordering as sr_sequencer_has_skips).
 * @param s The sequencer; not NULL.
 * @param sequence A published sequence.
 * @return true when it was marked skipped.
 */
static inline bool
sr_sequencer_is_skipped(const sr_sequencer *s, int64_t sequence)
{
	return sr_atomic_load_relaxed_i64(&sr_sequencer__skipped(s)[sequence & s->mask]) == sequence + 1;
}

/**
 * @brief Slots that can be claimed right now without waiting.
 * @param s The sequencer; not NULL.
 * @return buffer_size minus the sequences claimed and not yet passed by every gating sequence.
 */
static inline int64_t
sr_sequencer_remaining_capacity(const sr_sequencer *s)
{
	int64_t produced = s->mode == SR_PRODUCER_SINGLE ?
	    s->single.next_value : sr_sequence_get(&s->cursor);
	int64_t consumed = sr_sequencer_min_gating(s, produced);
	return s->buffer_size - (produced - consumed);
}

/**
 * @brief The sequencer's wait strategy, shared by every barrier made on it.
 * @param s The sequencer; not NULL.
 * @return Its wait strategy (owned by the sequencer).
 */
static inline sr_wait *
sr_sequencer_wait(sr_sequencer *s)
{
	return &s->wait;
}

#ifdef __cplusplus
}
#endif

#endif /* SR_SEQUENCER_H */

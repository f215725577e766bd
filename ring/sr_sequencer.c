/* SPDX-License-Identifier: Apache-2.0 */
/* sr_sequencer.c: creation, gating sequences and the full-ring wait. */
#include "sr_sequencer.h"
#include "sr_sequencer_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sr_backoff.h"
#include "sr_ring.h"
#include "sr_time.h"
#include "sr_wait_internal.h"

void
sr_sequencer_config_default(sr_sequencer_config *c, int64_t buffer_size,
    enum sr_producer_mode mode)
{
	memset(c, 0, sizeof *c);
	c->buffer_size = buffer_size;
	c->mode = mode;
	c->initial_sequence = SR_SEQUENCE_INITIAL;
	c->synchronize_enqueue_when_full = true;
	sr_wait_config_default(&c->wait, SR_WAIT_BLOCK);
}

int
sr_sequencer__config_check(const sr_sequencer_config *c, sr_error *err)
{
	if (c == NULL)
		return sr_error_set(err, SR_EINVAL, "sequencer config is NULL");
	int64_t bs = c->buffer_size;
	if (bs < 2 || bs > SR_RING_MAX_SLOT_COUNT || (bs & (bs - 1)) != 0)
		return sr_error_set(err, SR_EINVAL,
		    "buffer_size %lld is invalid: expected a power of two from 2 to %lld",
		    (long long)bs, (long long)SR_RING_MAX_SLOT_COUNT);
	if (c->mode != SR_PRODUCER_SINGLE && c->mode != SR_PRODUCER_MULTI)
		return sr_error_set(err, SR_EINVAL,
		    "producer mode %d is invalid: expected SR_PRODUCER_SINGLE (0) or SR_PRODUCER_MULTI (1)",
		    (int)c->mode);
	/* Leave room for 2^62 further sequences, so no sum can overflow. */
	if (c->initial_sequence < -1 || c->initial_sequence > INT64_MAX / 2 + (INT64_MAX / 4))
		return sr_error_set(err, SR_EINVAL,
		    "initial_sequence %lld is out of range: expected -1 to %lld",
		    (long long)c->initial_sequence, (long long)(INT64_MAX / 2 + INT64_MAX / 4));
	return sr_wait_config_validate(&c->wait, err);
}

/*
 * Between processes, a robust mutex: a holder that dies leaves it to the
 * next locker (EOWNERDEAD) instead of to nobody.  What the two locks guard
 * stays consistent at every step (see sr_sequencer__lock), so the next
 * holder simply marks it consistent.  In one process a plain one: a robust
 * mutex cannot be unlocked in a forked child (its owner is the parent's
 * thread), which the logger's fork handlers do.
 */
static int
init_lock(pthread_mutex_t *m, bool process_shared)
{
	pthread_mutexattr_t attr;
	int e = pthread_mutexattr_init(&attr);
	if (e == 0 && process_shared)
		e = pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST);
	if (e == 0 && process_shared)
		e = pthread_mutexattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
	if (e == 0)
		e = pthread_mutex_init(m, &attr);
	pthread_mutexattr_destroy(&attr);
	return e;
}

int
sr_sequencer__init_at(sr_sequencer *s, const sr_sequencer_config *c, sr_atomic_i64 *available,
    sr_atomic_i64 *skipped, bool process_shared, sr_error *err)
{
	int rc = sr_sequencer__config_check(c, err);
	if (rc != SR_OK)
		return rc;
	int64_t bs = c->buffer_size;
	memset(s, 0, sizeof *s);
	s->mode = c->mode;
	s->buffer_size = bs;
	s->mask = bs - 1;
	s->initial_sequence = c->initial_sequence;
	s->synchronize_enqueue_when_full = c->synchronize_enqueue_when_full;
	sr_sequence_init(&s->cursor, c->initial_sequence);
	sr_sequence_init(&s->gating_cache, c->initial_sequence);
	s->single.next_value = c->initial_sequence;
	s->single.cached_gating = c->initial_sequence;
	sr_atomic_store_relaxed_i32(&s->gating_count, 0);
	if (c->mode == SR_PRODUCER_MULTI) {
		s->available_offset = sr_sequencer__offset_of(s, available);
		/* -1 is never published (the first sequence is at least 0). */
		for (int64_t i = 0; i < bs; i++)
			sr_atomic_store_relaxed_i64(&available[i], -1);
	}
	/* the skip marks are zero already: calloc or a new mapping */
	s->skipped_offset = sr_sequencer__offset_of(s, skipped);
	sr_atomic_store_relaxed_i32(&s->any_skipped, 0);
	rc = process_shared ? sr_wait__init_shared(&s->wait, &c->wait, err) :
	    sr_wait_init(&s->wait, &c->wait, err);
	if (rc != SR_OK)
		return rc;
	int e = init_lock(&s->gating_lock, process_shared);
	if (e != 0)
		return sr_error_set(err, SR_ESYS, "cannot initialise the sequencer's gating lock: %s",
		    strerror(e));
	e = init_lock(&s->full_lock, process_shared);
	if (e != 0) {
		pthread_mutex_destroy(&s->gating_lock);
		return sr_error_set(err, SR_ESYS, "cannot initialise the sequencer's full-ring lock: %s",
		    strerror(e));
	}
	return SR_OK;
}

void
sr_sequencer__fini(sr_sequencer *s)
{
	sr_wait_destroy(&s->wait);
	pthread_mutex_destroy(&s->gating_lock);
	pthread_mutex_destroy(&s->full_lock);
}

int
sr_sequencer__lock(pthread_mutex_t *m)
{
	int e = pthread_mutex_lock(m);
	/*
	 * The previous holder died holding it.  The gating list is consistent
	 * at every step of an add or a remove (at worst an entry is there
	 * twice, which changes no minimum), and the full-ring lock guards
	 * nothing but a turn: mark it consistent and go on.
	 */
	if (e == EOWNERDEAD)
		e = pthread_mutex_consistent(m);
	return e;
}

sr_sequencer *
sr_sequencer_create(const sr_sequencer_config *c, sr_error *err)
{
	if (sr_sequencer__config_check(c, err) != SR_OK)
		return NULL;
	int64_t bs = c->buffer_size;
	sr_sequencer *s = aligned_alloc(SR_CACHELINE, (sizeof *s + SR_CACHELINE - 1) / SR_CACHELINE * SR_CACHELINE);
	sr_atomic_i64 *available = NULL;
	if (c->mode == SR_PRODUCER_MULTI)
		available = aligned_alloc(SR_CACHELINE,
		    ((size_t)bs * sizeof(int64_t) + SR_CACHELINE - 1) / SR_CACHELINE * SR_CACHELINE);
	sr_atomic_i64 *skipped = calloc((size_t)bs, sizeof *skipped);
	if (s == NULL || skipped == NULL || (c->mode == SR_PRODUCER_MULTI && available == NULL)) {
		sr_error_set(err, SR_ENOMEM, "cannot allocate a sequencer of %lld slots", (long long)bs);
		free(skipped);
		free(available);
		free(s);
		return NULL;
	}
	if (sr_sequencer__init_at(s, c, available, skipped, false, err) != SR_OK) {
		free(skipped);
		free(available);
		free(s);
		return NULL;
	}
	s->owned_arrays[0] = available;
	s->owned_arrays[1] = skipped;
	return s;
}

void
sr_sequencer_destroy(sr_sequencer *s)
{
	if (s == NULL)
		return;
	sr_sequencer__fini(s);
	free(s->owned_arrays[0]);
	free(s->owned_arrays[1]);
	free(s);
}

int
sr_sequencer_add_gating(sr_sequencer *s, const sr_sequence *gating)
{
	if (s == NULL || gating == NULL)
		return SR_EINVAL;
	int rc = SR_OK;
	if (sr_sequencer__lock(&s->gating_lock) != 0)
		return SR_ESYS;
	int32_t n = sr_atomic_load_relaxed_i32(&s->gating_count);
	if (n >= SR_SEQUENCER_MAX_GATING) {
		rc = SR_EFULL;
	} else {
		/* pairs with the load-acquire of the entry in sr_sequencer_min_gating */
		sr_atomic_store_release_i64(&s->gating[n], sr_sequencer__offset_of(s, gating));
		/* pairs with the load-acquire in sr_sequencer_min_gating */
		sr_atomic_store_release_i32(&s->gating_count, n + 1);
	}
	pthread_mutex_unlock(&s->gating_lock);
	return rc;
}

int
sr_sequencer_remove_gating(sr_sequencer *s, const sr_sequence *gating)
{
	if (s == NULL || gating == NULL)
		return SR_EINVAL;
	int rc = SR_EINVAL;
	if (sr_sequencer__lock(&s->gating_lock) != 0)
		return SR_ESYS;
	int64_t wanted = sr_sequencer__offset_of(s, gating);
	int32_t n = sr_atomic_load_relaxed_i32(&s->gating_count);
	for (int32_t i = 0; i < n; i++) {
		if (sr_atomic_load_relaxed_i64(&s->gating[i]) == wanted) {
			/*
			 * Move the last entry into the hole before shrinking the
			 * count: a concurrent reader sees every remaining
			 * sequence at one index or the other throughout.
			 */
			int64_t last = sr_atomic_load_relaxed_i64(&s->gating[n - 1]);
			/* pairs with the load-acquire of the entry in sr_sequencer_min_gating */
			sr_atomic_store_release_i64(&s->gating[i], last);
			/* pairs with the load-acquire in sr_sequencer_min_gating */
			sr_atomic_store_release_i32(&s->gating_count, n - 1);
			rc = SR_OK;
			break;
		}
	}
	pthread_mutex_unlock(&s->gating_lock);
	return rc;
}

static bool
has_capacity(const sr_sequencer *s, int64_t n)
{
	int64_t produced = s->mode == SR_PRODUCER_SINGLE ?
	    s->single.next_value : sr_sequence_get(&s->cursor);
	return sr_sequencer_min_gating(s, produced) >= produced + n - s->buffer_size;
}

/* Polls for capacity with backoff until it is there or the deadline passes. */
static int
poll_for_capacity(const sr_sequencer *s, int64_t n, int64_t deadline_ns)
{
	sr_backoff backoff = SR_BACKOFF_INIT;
	while (!has_capacity(s, n)) {
		if (deadline_ns != SR_DEADLINE_NONE && sr_monotonic_ns() >= deadline_ns)
			return SR_ETIMEDOUT;
		sr_backoff_pause(&backoff);
	}
	return SR_OK;
}

int
sr_sequencer__wait_for_capacity(sr_sequencer *s, int64_t n, int64_t deadline_ns)
{
	if (!s->synchronize_enqueue_when_full || s->mode == SR_PRODUCER_SINGLE)
		return poll_for_capacity(s, n, deadline_ns);

	/*
	 * Synchronized enqueue when full: one producer polls, the others sleep
	 * in the mutex; each leaves as soon as it has seen space, so the next
	 * one in line usually finds space at once.
	 */
	if (deadline_ns == SR_DEADLINE_NONE) {
		if (sr_sequencer__lock(&s->full_lock) != 0)
			return SR_ESYS;
	} else {
#if defined(__SANITIZE_THREAD__)
		/*
		 * ThreadSanitizer (gcc 12) does not intercept
		 * pthread_mutex_clocklock, so it would report our unlock of a
		 * mutex it never saw locked.  Under TSan only, wait with the
		 * intercepted pthread_mutex_timedlock on the same remaining time
		 * measured on CLOCK_REALTIME.
		 */
		int64_t now_rt = sr_realtime_ns();
		int64_t remaining = deadline_ns - sr_monotonic_ns();
		if (remaining < 0)
			remaining = 0;
		if (remaining > INT64_MAX - now_rt)
			remaining = INT64_MAX - now_rt;
		struct timespec ts = sr_timespec_from_ns(now_rt + remaining);
		int e = pthread_mutex_timedlock(&s->full_lock, &ts);
#else
		struct timespec ts = sr_timespec_from_ns(deadline_ns);
		int e = pthread_mutex_clocklock(&s->full_lock, CLOCK_MONOTONIC, &ts);
#endif
		if (e == EOWNERDEAD)
			e = pthread_mutex_consistent(&s->full_lock); /* as in sr_sequencer__lock */
		if (e == ETIMEDOUT)
			return SR_ETIMEDOUT;
		if (e != 0)
			return SR_ESYS;
	}
	int rc = poll_for_capacity(s, n, deadline_ns);
	pthread_mutex_unlock(&s->full_lock);
	return rc;
}

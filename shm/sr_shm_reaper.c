/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_shm_reaper.c: what happens to a dead participant's part of a shared
 * ring: a producer's claimed, unpublished sequences are published as
 * skipped (abandoned), a consumer is dropped; and the thread that looks
 * every quarter of the liveness bound.
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "sr_shm_layout_internal.h"
#include "sr_time.h"

static void
note(sr_shm__reaped *reaped, enum sr_shm_reap_kind kind, int index, int64_t value)
{
	if (reaped->count < (int)(sizeof reaped->what / sizeof reaped->what[0])) {
		reaped->what[reaped->count].kind = kind;
		reaped->what[reaped->count].index = index;
		reaped->what[reaped->count].value = value;
		reaped->count++;
	}
}

/* Abandons seq if it is unpublished: marks it skipped, then publishes it; 1 when this call did. */
static int64_t
abandon_one(sr_sequencer *s, sr_atomic_i64 *flags, int64_t seq)
{
	/* pairs with the publishers' store-release of the flag */
	int64_t flag = sr_atomic_load_acquire_i64(&flags[seq & s->mask]);
	if (flag >= seq)
		return 0;
	sr_sequencer_mark_skipped(s, seq);
	/*
	 * The CAS publishes the skip mark (a full barrier, as the publish's
	 * store-release); consumers read it after their load-acquire of the
	 * flag.  Of two reapers, one counts it.
	 */
	return sr_atomic_cas_i64(&flags[seq & s->mask], flag, seq) ? 1 : 0;
}

/*
 * A dead producer's oldest claim, [from, to] by its note, when its publish
 * (flags stored from to down to from) was cut by the death: the whole claim
 * is skipped, the part already published too, so that no consumer is handed
 * the tail of a record without its head.  Consumers cannot have passed
 * `from`, unpublished: every mark is written before from's flag, last.
 */
static int64_t
abandon_cut_claim(sr_sequencer *s, sr_atomic_i64 *flags, int64_t from, int64_t to)
{
	/* pairs with the publishers' store-release of the flag */
	if (to < from || to - from >= s->buffer_size ||
	    sr_atomic_load_acquire_i64(&flags[from & s->mask]) >= from)
		return 0; /* unknown, or published whole */
	for (int64_t seq = from; seq <= to; seq++)
		sr_sequencer_mark_skipped(s, seq);
	int64_t abandoned = 0;
	for (int64_t seq = to; seq >= from; seq--)
		abandoned += abandon_one(s, flags, seq);
	return abandoned;
}

/*
 * A multi-producer ring: every claimed, unpublished sequence from `from` up
 * to `bound` (the cursor when the last of the dead was found dead: at or
 * above all they claimed) that no live producer may own is published as
 * skipped.  A live producer may own only sequences at or above its note, so
 * the scan stops below the lowest live note; what it leaves waits for the
 * next pass.  Returns the sequences abandoned; *complete says whether
 * everything up to the bound is now published or abandoned (every dead
 * producer's claims resolved).
 */
static int64_t
abandon_claims(sr_shm_ring *r, int64_t from, int64_t bound, bool *complete)
{
	sr_sequencer *s = r->sequencer;
	int64_t live_from = INT64_MAX;
	for (int32_t i = 0; i < r->header->max_producers; i++) {
		if (sr_atomic_load_relaxed_i32(&r->producers[i].state) != SR_SHM__ACTIVE)
			continue;
		/* pairs with the store-release of the note (sr_shm_producer__note_oldest) */
		int64_t f = sr_atomic_load_acquire_i64(&r->producers[i].claim_from);
		if (f < live_from)
			live_from = f;
	}
	int64_t end = live_from <= bound ? live_from - 1 : bound;
	/* Unpublished sequences hold every consumer back: they are within a lap of the bound. */
	if (from < bound - s->buffer_size + 1)
		from = bound - s->buffer_size + 1;
	sr_atomic_i64 *flags = sr_sequencer__available(s);
	int64_t abandoned = 0;
	for (int64_t seq = from; seq <= end; seq++)
		abandoned += abandon_one(s, flags, seq);
	*complete = true;
	for (int64_t seq = end + 1; seq <= bound && *complete; seq++)
		if (sr_atomic_load_acquire_i64(&flags[seq & s->mask]) < seq)
			*complete = false;
	return abandoned;
}

/*
 * A single-producer ring: a dead producer's claims are its own fields and
 * nothing of them was published; given back, unless a live producer
 * already claims there.
 */
static int64_t
abandon_single_claims(sr_shm_ring *r)
{
	sr_sequencer *s = r->sequencer;
	for (int32_t i = 0; i < r->header->max_producers; i++)
		if (sr_atomic_load_relaxed_i32(&r->producers[i].state) == SR_SHM__ACTIVE)
			return 0;
	int64_t cursor = sr_sequencer_cursor(s);
	int64_t abandoned = s->single.next_value - cursor;
	s->single.next_value = cursor;
	return abandoned > 0 ? abandoned : 0;
}

int
sr_shm__reap_locked(sr_shm_ring *r, sr_shm__reaped *reaped)
{
	sr_shm__header *h = r->header;
	int handled = 0;
	int64_t dead_from = INT64_MAX, bound = INT64_MIN, abandoned = 0;
	bool any_dead = false;
	sr_sequencer *s = r->sequencer;
	for (int32_t i = 0; i < h->max_producers; i++) {
		sr_shm__producer_entry *e = &r->producers[i];
		int32_t state = sr_atomic_load_relaxed_i32(&e->state);
		if (state == SR_SHM__ACTIVE) {
			int held = sr_shm__liveness_held(r, SR_SHM__PRODUCER_LOCK(i));
			if (held < 0)
				return SR_ESYS;
			if (held)
				continue;
			/*
			 * Dead before this load of the cursor: everything it
			 * claimed is at or below it.  Pairs with the claims' CAS.
			 */
			e->resolve_to = sr_sequencer_cursor(s);
			sr_atomic_store_relaxed_i32(&e->state, SR_SHM__DEAD);
			sr_atomic_faa_i64(&h->dead_producers, 1);
			handled++;
			state = SR_SHM__DEAD;
			if (s->mode == SR_PRODUCER_MULTI) {
				/* pairs with the store-release of the note (sr_shm_producer__note_oldest) */
				int64_t from = sr_atomic_load_acquire_i64(&e->claim_from);
				int64_t to = sr_atomic_load_acquire_i64(&e->claim_to);
				if (from != INT64_MAX)
					abandoned += abandon_cut_claim(s, sr_sequencer__available(s), from, to);
			}
		}
		if (state == SR_SHM__DEAD) {
			any_dead = true;
			int64_t f = sr_atomic_load_acquire_i64(&e->claim_from);
			if (f < dead_from)
				dead_from = f;
			if (e->resolve_to > bound)
				bound = e->resolve_to;
		}
	}
	if (any_dead) {
		bool complete = true;
		abandoned += s->mode == SR_PRODUCER_SINGLE ? abandon_single_claims(r) :
		    abandon_claims(r, dead_from, bound, &complete);
		if (abandoned > 0)
			sr_atomic_faa_i64(&h->abandoned_sequences, abandoned);
		/*
		 * Consumers asleep look again: at an abandoned flag, and at a
		 * sequence whose producer died after its publish but before its
		 * wake-up, having taken the waiters' announcement with it (the
		 * next publisher then sees none and wakes nobody).
		 */
		if (abandoned > 0 || handled > 0)
			sr_wait_signal_all(&s->wait);
		for (int32_t i = 0; complete && i < h->max_producers; i++) {
			sr_shm__producer_entry *e = &r->producers[i];
			if (sr_atomic_load_relaxed_i32(&e->state) != SR_SHM__DEAD)
				continue;
			note(reaped, SR_SHM_REAP_PRODUCER, i, abandoned);
			abandoned = 0; /* told once, with the first */
			sr_atomic_store_relaxed_i64(&e->claim_from, INT64_MAX);
			sr_atomic_store_release_i32(&e->state, SR_SHM__FREE);
		}
	}
	for (int32_t j = 0; j < h->max_consumers; j++) {
		sr_shm__consumer_entry *e = &r->consumers[j];
		if (sr_atomic_load_relaxed_i32(&e->state) != SR_SHM__ACTIVE)
			continue;
		int held = sr_shm__liveness_held(r, SR_SHM__CONSUMER_LOCK(j));
		if (held < 0)
			return SR_ESYS;
		if (held)
			continue;
		int64_t handled_up_to = sr_sequence_get(&e->sequence);
		/*
		 * Beyond every sequence: producers' minimum and followers'
		 * barriers (which also follow the cursor) no longer see it.
		 * Pairs with their load-acquire of the sequence.
		 */
		sr_sequence_set(&e->sequence, SR_SHM__DROPPED_SEQUENCE);
		sr_atomic_store_release_i32(&e->state, SR_SHM__DROPPED);
		sr_atomic_faa_i64(&h->dropped_consumers, 1);
		note(reaped, SR_SHM_REAP_CONSUMER, j, handled_up_to);
		handled++;
	}
	return handled;
}

void
sr_shm__reaped_tell(const sr_shm_ring *r, const sr_shm__reaped *reaped)
{
	if (r->options.on_reap == NULL)
		return;
	for (int k = 0; k < reaped->count; k++)
		r->options.on_reap(r->options.ctx, reaped->what[k].kind, reaped->what[k].index,
		    reaped->what[k].value);
}

int
sr_shm_ring_check(sr_shm_ring *r)
{
	if (r == NULL)
		return SR_EINVAL;
	if (sr_shm__registry_lock(r) != SR_OK)
		return SR_ESYS;
	sr_shm__reaped reaped = { 0 };
	int rc = sr_shm__reap_locked(r, &reaped);
	sr_shm__registry_unlock(r);
	sr_shm__reaped_tell(r, &reaped);
	return rc;
}

static void *
reaper_main(void *arg)
{
	sr_shm_ring *r = arg;
	int64_t period = r->header->liveness_bound_ns / 4;
	pthread_mutex_lock(&r->reaper_lock);
	while (!r->reaper_stop) {
		struct timespec at = sr_timespec_from_ns(sr_monotonic_ns() + period);
		pthread_cond_timedwait(&r->reaper_wake, &r->reaper_lock, &at);
		if (r->reaper_stop)
			break;
		pthread_mutex_unlock(&r->reaper_lock);
		sr_shm_ring_check(r);
		pthread_mutex_lock(&r->reaper_lock);
	}
	pthread_mutex_unlock(&r->reaper_lock);
	return NULL;
}

int
sr_shm__reaper_start(sr_shm_ring *r, sr_error *err)
{
	pthread_condattr_t attr;
	int e = pthread_condattr_init(&attr);
	if (e == 0)
		e = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	if (e == 0)
		e = pthread_cond_init(&r->reaper_wake, &attr);
	pthread_condattr_destroy(&attr);
	if (e != 0)
		return sr_error_set(err, SR_ESYS, "cannot initialise the reaper's condition variable: %s",
		    strerror(e));
	pthread_mutex_init(&r->reaper_lock, NULL);
	r->reaper_stop = false;
	e = pthread_create(&r->reaper, NULL, reaper_main, r);
	if (e != 0) {
		pthread_cond_destroy(&r->reaper_wake);
		pthread_mutex_destroy(&r->reaper_lock);
		return sr_error_set(err, SR_ESYS, "cannot start the reaper thread of \"%s\": %s", r->name,
		    strerror(e));
	}
	r->reaper_running = true;
	return SR_OK;
}

void
sr_shm__reaper_stop(sr_shm_ring *r)
{
	if (!r->reaper_running)
		return;
	pthread_mutex_lock(&r->reaper_lock);
	r->reaper_stop = true;
	pthread_cond_signal(&r->reaper_wake);
	pthread_mutex_unlock(&r->reaper_lock);
	pthread_join(r->reaper, NULL);
	pthread_cond_destroy(&r->reaper_wake);
	pthread_mutex_destroy(&r->reaper_lock);
	r->reaper_running = false;
}

/* SPDX-License-Identifier: Apache-2.0 */
/* sr_shm_producer.c: producers joining and leaving a shared ring's registry. */
#include <stdlib.h>
#include <unistd.h>

#include "sr_shm_layout_internal.h"
#include "sr_shm_producer.h"

/* A single-producer ring has one live producer at most: the index of a live one, or -1. */
static int
live_producer(sr_shm_ring *r)
{
	for (int32_t i = 0; i < r->header->max_producers; i++)
		if (sr_atomic_load_relaxed_i32(&r->producers[i].state) == SR_SHM__ACTIVE &&
		    sr_shm__liveness_held(r, SR_SHM__PRODUCER_LOCK(i)) != 0)
			return i;
	return -1;
}

sr_shm_producer *
sr_shm_producer_join(sr_shm_ring *r, sr_error *err)
{
	if (r == NULL) {
		sr_error_set(err, SR_EINVAL, "shared ring handle is NULL");
		return NULL;
	}
	sr_shm_producer *p = calloc(1, sizeof *p);
	if (p == NULL) {
		sr_error_set(err, SR_ENOMEM, "cannot allocate a producer");
		return NULL;
	}
	if (sr_shm__registry_lock(r) != SR_OK) {
		sr_error_set(err, SR_ESYS, "shared ring \"%s\": cannot lock the registry", r->name);
		free(p);
		return NULL;
	}
	/* Dead ones first: their entries and, on a single-producer ring, the claim state. */
	sr_shm__reaped reaped = { 0 };
	int index = -1;
	if (sr_shm__reap_locked(r, &reaped) < 0) {
		/* a producer that may be dead but was not reaped: joining beside it is not safe */
		sr_shm__registry_unlock(r);
		free(p);
		sr_error_set(err, SR_ESYS, "shared ring \"%s\": cannot test its producers' liveness locks",
		    r->name);
		return NULL;
	}
	int live = r->sequencer->mode == SR_PRODUCER_SINGLE ? live_producer(r) : -1;
	if (live >= 0) {
		sr_error_set(err, SR_ESTATE,
		    "shared ring \"%s\" is single-producer and producer %d (pid %d) is alive",
		    r->name, live, (int)r->producers[live].pid);
	} else {
		for (int32_t i = 0; i < r->header->max_producers && index < 0; i++)
			if (sr_atomic_load_relaxed_i32(&r->producers[i].state) == SR_SHM__FREE)
				index = i;
		if (index < 0)
			sr_error_set(err, SR_EFULL, "shared ring \"%s\": all %d producer entries are in use",
			    r->name, (int)r->header->max_producers);
	}
	if (index >= 0 &&
	    sr_shm__liveness_hold(r, SR_SHM__PRODUCER_LOCK(index), &p->liveness_fd, err) != SR_OK)
		index = -1;
	if (index < 0) {
		sr_shm__registry_unlock(r);
		sr_shm__reaped_tell(r, &reaped);
		free(p);
		return NULL;
	}
	sr_shm__producer_entry *e = &r->producers[index];
	e->pid = (int32_t)getpid();
	sr_atomic_store_relaxed_i64(&e->claim_from, INT64_MAX);
	sr_atomic_store_relaxed_i64(&e->claim_to, INT64_MIN);
	e->resolve_to = INT64_MIN;
	/* Last: the entry is in use once its lock is held and its state says so. */
	sr_atomic_store_release_i32(&e->state, SR_SHM__ACTIVE);
	sr_shm__registry_unlock(r);
	sr_shm__reaped_tell(r, &reaped);

	p->sequencer = r->sequencer;
	p->claim_from = &e->claim_from;
	p->claim_to = &e->claim_to;
	p->ring = r;
	p->index = index;
	pthread_mutex_lock(&r->joined_lock);
	r->joined_producers[index] = p;
	pthread_mutex_unlock(&r->joined_lock);
	return p;
}

/*
 * The entry freed, then the lock dropped: a reaper never sees a free
 * entry's lock as a death.  A producer that leaves claims unpublished
 * leaves them to the reaper, as a dead one would.
 */
static void
leave(sr_shm_producer *p)
{
	sr_shm_ring *r = p->ring;
	if (sr_shm__registry_lock(r) == SR_OK) {
		sr_shm__producer_entry *e = &r->producers[p->index];
		bool owes = r->sequencer->mode == SR_PRODUCER_MULTI ?
		    sr_atomic_load_relaxed_i64(&e->claim_from) != INT64_MAX :
		    r->sequencer->single.next_value != sr_sequencer_cursor(r->sequencer);
		if (owes)
			e->resolve_to = sr_sequencer_cursor(r->sequencer);
		sr_atomic_store_release_i32(&e->state, owes ? SR_SHM__DEAD : SR_SHM__FREE);
		/* under the lock: a join never finds the entry free but still locked */
		close(p->liveness_fd);
		sr_shm__registry_unlock(r);
	} else {
		close(p->liveness_fd);
	}
	free(p);
}

void
sr_shm_producer_leave(sr_shm_producer **pp)
{
	if (pp == NULL || *pp == NULL)
		return;
	sr_shm_producer *p = *pp;
	*pp = NULL;
	sr_shm_ring *r = p->ring;
	pthread_mutex_lock(&r->joined_lock);
	r->joined_producers[p->index] = NULL;
	pthread_mutex_unlock(&r->joined_lock);
	leave(p);
}

void
sr_shm__producers_leave_all(sr_shm_ring *r)
{
	pthread_mutex_lock(&r->joined_lock);
	for (int i = 0; i < SR_SHM_MAX_PARTICIPANTS; i++) {
		if (r->joined_producers[i] != NULL) {
			leave(r->joined_producers[i]);
			r->joined_producers[i] = NULL;
		}
	}
	pthread_mutex_unlock(&r->joined_lock);
}

/* SPDX-License-Identifier: Apache-2.0 */
/* sr_shm_consumer.c: consumers joining and leaving a shared ring's registry, and what consumes for them. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sr_barrier.h"
#include "sr_shm_consumer.h"
#include "sr_shm_layout_internal.h"

struct sr_shm_consumer {
	sr_shm_ring *ring;
	int index;
	int liveness_fd;
	int64_t joined_after;
	/* the followed consumers' sequences, then the cursor; none when it follows nobody */
	const sr_sequence *dependents[SR_BARRIER_MAX_DEPENDENTS];
	int dependent_count;
};

static int
check_join(const sr_shm_ring *r, int index, const int *follows, int follow_count, sr_error *err)
{
	if (r == NULL)
		return sr_error_set(err, SR_EINVAL, "shared ring handle is NULL");
	int32_t max = r->header->max_consumers;
	if (index < 0 || index >= max)
		return sr_error_set(err, SR_EINVAL,
		    "consumer index %d of shared ring \"%s\" is out of range: expected 0 to %d",
		    index, r->name, (int)max - 1);
	if (follow_count < 0 || follow_count > SR_BARRIER_MAX_DEPENDENTS - 1)
		return sr_error_set(err, SR_EINVAL, "follow_count %d is out of range: expected 0 to %d",
		    follow_count, SR_BARRIER_MAX_DEPENDENTS - 1);
	if (follow_count > 0 && follows == NULL)
		return sr_error_set(err, SR_EINVAL, "follows is NULL but follow_count is %d", follow_count);
	for (int i = 0; i < follow_count; i++) {
		if (follows[i] < 0 || follows[i] >= max)
			return sr_error_set(err, SR_EINVAL,
			    "followed consumer %d (follows[%d]) is out of range: expected 0 to %d",
			    follows[i], i, (int)max - 1);
		if (follows[i] == index)
			return sr_error_set(err, SR_EINVAL, "consumer %d cannot follow itself (follows[%d])",
			    index, i);
	}
	return SR_OK;
}

sr_shm_consumer *
sr_shm_consumer_join(sr_shm_ring *r, int index, const int *follows, int follow_count, bool gating,
    sr_error *err)
{
	if (check_join(r, index, follows, follow_count, err) != SR_OK)
		return NULL;
	sr_shm_consumer *c = calloc(1, sizeof *c);
	if (c == NULL) {
		sr_error_set(err, SR_ENOMEM, "cannot allocate a consumer");
		return NULL;
	}
	if (sr_shm__registry_lock(r) != SR_OK) {
		sr_error_set(err, SR_ESYS, "shared ring \"%s\": cannot lock the registry", r->name);
		free(c);
		return NULL;
	}
	sr_shm__consumer_entry *e = &r->consumers[index];
	sr_sequencer *s = r->sequencer;
	int rc = SR_OK;
	/*
	 * Its own entry before any reaping: a process that died holding it and
	 * was not yet dropped is resumed, not dropped.
	 */
	bool fresh = true;
	if (sr_atomic_load_relaxed_i32(&e->state) == SR_SHM__ACTIVE &&
	    sr_sequence_get(&e->sequence) != SR_SHM__DROPPED_SEQUENCE) {
		fresh = false;
		int held = sr_shm__liveness_held(r, SR_SHM__CONSUMER_LOCK(index));
		if (held != 0)
			rc = held < 0 ? sr_error_set(err, SR_ESYS, "shared ring \"%s\": cannot test consumer %d's lock",
			    r->name, index) :
			    sr_error_set(err, SR_ESTATE, "consumer %d of shared ring \"%s\" is held by live pid %d",
			    index, r->name, (int)e->pid);
	} else {
		/* new, left or dropped: after the cursor; pairs with producers' load-acquire (gating) */
		sr_sequence_set(&e->sequence, sr_sequencer_cursor(s));
	}
	/* Its lock before the others are reaped: held, its own entry is not taken for a dead one's. */
	if (rc == SR_OK)
		rc = sr_shm__liveness_hold(r, SR_SHM__CONSUMER_LOCK(index), &c->liveness_fd, err);
	sr_shm__reaped reaped = { 0 };
	if (rc == SR_OK)
		sr_shm__reap_locked(r, &reaped);
	if (rc == SR_OK && gating != (e->gating != 0)) {
		rc = gating ? sr_sequencer_add_gating(s, &e->sequence) : sr_sequencer_remove_gating(s, &e->sequence);
		if (rc == SR_EFULL)
			sr_error_set(err, rc, "shared ring \"%s\" has %d gating sequences already",
			    r->name, SR_SEQUENCER_MAX_GATING);
		else if (rc != SR_OK)
			sr_error_set(err, rc, "shared ring \"%s\": cannot change the gating sequences", r->name);
		if (rc == SR_OK)
			e->gating = gating;
		else
			close(c->liveness_fd);
	}
	if (rc != SR_OK) {
		/* A new start that did not happen holds nobody back (a resumed one keeps its place). */
		if (fresh)
			sr_sequence_set(&e->sequence, SR_SHM__DROPPED_SEQUENCE);
		sr_shm__registry_unlock(r);
		sr_shm__reaped_tell(r, &reaped);
		free(c);
		return NULL;
	}
	e->pid = (int32_t)getpid();
	c->joined_after = sr_sequence_get(&e->sequence);
	/* Last: the entry is in use once its lock is held and its state says so. */
	sr_atomic_store_release_i32(&e->state, SR_SHM__ACTIVE);
	sr_shm__registry_unlock(r);
	sr_shm__reaped_tell(r, &reaped);

	c->ring = r;
	c->index = index;
	for (int i = 0; i < follow_count; i++)
		c->dependents[i] = &r->consumers[follows[i]].sequence;
	if (follow_count > 0) {
		/* A followed consumer that is dropped or leaves is beyond every sequence: the cursor bounds it. */
		c->dependents[follow_count] = &s->cursor;
		c->dependent_count = follow_count + 1;
	}
	pthread_mutex_lock(&r->joined_lock);
	r->joined_consumers[index] = c;
	pthread_mutex_unlock(&r->joined_lock);
	return c;
}

/*
 * No longer gating, beyond every sequence (so that nobody waits for it),
 * the entry free; then the liveness lock dropped.
 */
static void
leave(sr_shm_consumer *c)
{
	sr_shm_ring *r = c->ring;
	if (sr_shm__registry_lock(r) == SR_OK) {
		sr_shm__consumer_entry *e = &r->consumers[c->index];
		if (e->gating && sr_sequencer_remove_gating(r->sequencer, &e->sequence) == SR_OK)
			e->gating = 0;
		/* pairs with producers' and followers' load-acquire */
		sr_sequence_set(&e->sequence, SR_SHM__DROPPED_SEQUENCE);
		sr_atomic_store_release_i32(&e->state, SR_SHM__FREE);
		/* under the lock: a join of this index never finds it free but still locked */
		close(c->liveness_fd);
		sr_shm__registry_unlock(r);
	} else {
		close(c->liveness_fd);
	}
	free(c);
}

void
sr_shm_consumer_leave(sr_shm_consumer **cp)
{
	if (cp == NULL || *cp == NULL)
		return;
	sr_shm_consumer *c = *cp;
	*cp = NULL;
	sr_shm_ring *r = c->ring;
	pthread_mutex_lock(&r->joined_lock);
	r->joined_consumers[c->index] = NULL;
	pthread_mutex_unlock(&r->joined_lock);
	leave(c);
}

void
sr_shm__consumers_leave_all(sr_shm_ring *r)
{
	pthread_mutex_lock(&r->joined_lock);
	for (int i = 0; i < SR_SHM_MAX_PARTICIPANTS; i++) {
		if (r->joined_consumers[i] != NULL) {
			leave(r->joined_consumers[i]);
			r->joined_consumers[i] = NULL;
		}
	}
	pthread_mutex_unlock(&r->joined_lock);
}

sr_sequence *
sr_shm_consumer_sequence(sr_shm_consumer *c)
{
	return &c->ring->consumers[c->index].sequence;
}

int64_t
sr_shm_consumer_joined_after(const sr_shm_consumer *c)
{
	return c->joined_after;
}

int
sr_shm_consumer_processor_config(sr_shm_consumer *c, sr_processor_config *config)
{
	if (c == NULL || config == NULL)
		return SR_EINVAL;
	config->ring = &c->ring->ring;
	config->sequencer = c->ring->sequencer;
	config->dependents = c->dependent_count > 0 ? c->dependents : NULL;
	config->dependent_count = c->dependent_count;
	config->sequence = sr_shm_consumer_sequence(c);
	return SR_OK;
}

sr_poller *
sr_shm_consumer_poller(sr_shm_consumer *c, sr_error *err)
{
	if (c == NULL) {
		sr_error_set(err, SR_EINVAL, "shared ring consumer is NULL");
		return NULL;
	}
	return sr_poller_create_at(&c->ring->ring, c->ring->sequencer,
	    c->dependent_count > 0 ? c->dependents : NULL, c->dependent_count,
	    sr_shm_consumer_sequence(c), err);
}

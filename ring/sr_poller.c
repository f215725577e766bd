/* SPDX-License-Identifier: Apache-2.0 */
/* sr_poller.c: the pull-style consumer. */
#include "sr_poller.h"

#include <stdlib.h>
#include <string.h>

sr_poller *
sr_poller_create(sr_ring *ring, sr_sequencer *s, const sr_sequence *const *dependents,
    int dependent_count, sr_error *err)
{
	return sr_poller_create_at(ring, s, dependents, dependent_count, NULL, err);
}

sr_poller *
sr_poller_create_at(sr_ring *ring, sr_sequencer *s, const sr_sequence *const *dependents,
    int dependent_count, sr_sequence *sequence, sr_error *err)
{
	if (ring == NULL || s == NULL) {
		sr_error_set(err, SR_EINVAL, "poller: the %s is NULL", ring == NULL ? "ring" : "sequencer");
		return NULL;
	}
	if (ring->slot_count != s->buffer_size) {
		sr_error_set(err, SR_EINVAL,
		    "poller: ring has %lld slots but the sequencer's buffer_size is %lld: expected equal sizes",
		    (long long)ring->slot_count, (long long)s->buffer_size);
		return NULL;
	}
	if (dependent_count < 0 || dependent_count > SR_BARRIER_MAX_DEPENDENTS ||
	    (dependent_count > 0 && dependents == NULL)) {
		sr_error_set(err, SR_EINVAL, "poller: dependent_count %d%s: expected 0 to %d sequences",
		    dependent_count, dependents == NULL ? " with dependents NULL" : "",
		    SR_BARRIER_MAX_DEPENDENTS);
		return NULL;
	}
	sr_poller *p = aligned_alloc(SR_CACHELINE,
	    (sizeof *p + SR_CACHELINE - 1) / SR_CACHELINE * SR_CACHELINE);
	if (p == NULL) {
		sr_error_set(err, SR_ENOMEM, "cannot allocate a poller");
		return NULL;
	}
	memset(p, 0, sizeof *p);
	for (int i = 0; i < dependent_count; i++) {
		if (dependents[i] == NULL) {
			sr_error_set(err, SR_EINVAL, "poller: dependent sequence %d is NULL", i);
			free(p);
			return NULL;
		}
		p->dependents[i] = dependents[i];
	}
	p->dependent_count = dependent_count;
	p->ring = ring;
	p->sequencer = s;
	sr_sequence_init(&p->own_sequence, s->initial_sequence);
	/* A sequence of the caller's keeps its value: the poller starts after it. */
	p->sequence = sequence != NULL ? sequence : &p->own_sequence;
	return p;
}

void
sr_poller_destroy(sr_poller *p)
{
	free(p);
}

int
sr_poller_poll(sr_poller *p, const sr_poll_handler *h)
{
	if (p == NULL || h == NULL || h->on_event == NULL)
		return SR_EINVAL;
	sr_sequence *const progress = p->sequence; /* its own, or the caller's */
	/* Relaxed: the poller is the sequence's only writer, polled from one thread at a time. */
	int64_t current = sr_sequence_get_relaxed(progress);
	int64_t next = current + 1;
	/* The cursor, or the slowest consumer followed (each a load-acquire). */
	int64_t gate = sr_wait__available(&p->sequencer->cursor, p->dependents, p->dependent_count);
	int64_t available = sr_sequencer_highest_published(p->sequencer, next, gate);
	if (next > available) {
		/*
		 * The cursor is further than what we may read: the consumers
		 * followed lag, or (multi-producer) a claim is not yet published.
		 */
		return sr_sequencer_cursor(p->sequencer) >= next ? SR_POLL_GATING : SR_POLL_IDLE;
	}
	bool check_skips = sr_sequencer_has_skips(p->sequencer);
	int64_t handled = current;
	for (int64_t s = next; s <= available; s++) {
		handled = s;
		if (check_skips && sr_sequencer_is_skipped(p->sequencer, s)) {
			if (h->on_skip != NULL)
				h->on_skip(h->ctx, s);
			continue;
		}
		if (!h->on_event(h->ctx, sr_ring_slot(p->ring, s), s, s == available))
			break;
	}
	/*
	 * pairs with the load-acquire of this sequence by producers and
	 * downstream consumers: our reads of the slots come first.
	 */
	sr_sequence_set(progress, handled);
	return SR_POLL_PROCESSING;
}

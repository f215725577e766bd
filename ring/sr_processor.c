/* sr_processor.c: the batch event processor's loop and lifecycle. */
#include "sr_processor.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sr_backoff.h"

sr_processor *
sr_processor_create(const sr_processor_config *c, sr_error *err)
{
	if (c == NULL) {
		sr_error_set(err, SR_EINVAL, "processor config is NULL");
		return NULL;
	}
	if (c->ring == NULL || c->sequencer == NULL) {
		sr_error_set(err, SR_EINVAL, "processor config has a NULL %s",
		    c->ring == NULL ? "ring" : "sequencer");
		return NULL;
	}
	if (c->handler.on_event == NULL) {
		sr_error_set(err, SR_EINVAL, "processor handler has no on_event function");
		return NULL;
	}
	if (c->ring->slot_count != c->sequencer->buffer_size) {
		sr_error_set(err, SR_EINVAL,
		    "ring has %lld slots but the sequencer's buffer_size is %lld: expected equal sizes",
		    (long long)c->ring->slot_count, (long long)c->sequencer->buffer_size);
		return NULL;
	}
	if (c->max_batch_size < 0) {
		sr_error_set(err, SR_EINVAL,
		    "max_batch_size %lld is negative: expected 0 (unbounded) or more",
		    (long long)c->max_batch_size);
		return NULL;
	}
	sr_processor *p = aligned_alloc(SR_CACHELINE,
	    (sizeof *p + SR_CACHELINE - 1) / SR_CACHELINE * SR_CACHELINE);
	if (p == NULL) {
		sr_error_set(err, SR_ENOMEM, "cannot allocate a processor");
		return NULL;
	}
	memset(p, 0, sizeof *p);
	if (sr_barrier_init(&p->barrier, c->sequencer, c->dependents, c->dependent_count, err) != SR_OK) {
		free(p);
		return NULL;
	}
	sr_sequence_init(&p->sequence, c->sequencer->initial_sequence);
	p->ring = c->ring;
	p->sequencer = c->sequencer;
	p->handler = c->handler;
	p->max_batch_size = c->max_batch_size == 0 ? INT64_MAX : c->max_batch_size;
	sr_atomic_store_relaxed_i32(&p->state, SR_PROCESSOR_IDLE);
	sr_atomic_store_relaxed_i32(&p->halt_requested, 0);
	return p;
}

void
sr_processor_destroy(sr_processor *p)
{
	free(p);
}

static enum sr_error_action
report_error(sr_processor *p, int error, int64_t sequence, void *slot)
{
	if (p->handler.on_error != NULL)
		return p->handler.on_error(p->handler.ctx, error, sequence, slot);
	fprintf(stderr, "seqring: event handler failed with %d (%s) at sequence %" PRId64
	    "; skipping the event\n", error, sr_strerror(error), sequence);
	return SR_ERROR_SKIP;
}

static void
process_events(sr_processor *p)
{
	const sr_handler *h = &p->handler;
	int64_t next = sr_sequence_get_relaxed(&p->sequence) + 1;
	for (;;) {
		int64_t available;
		int64_t limit = p->max_batch_size == INT64_MAX ? INT64_MAX : next + p->max_batch_size - 1;
		int rc = sr_barrier_wait_for_bounded(&p->barrier, next, limit, &available);
		if (rc == SR_OK) {
			if (available < next)
				continue; /* claimed but not yet published */
			int64_t end = available;
			if (h->on_batch_start != NULL) {
				/*
				 * The queue depth counts what producers have claimed
				 * beyond `next` (the cursor), since the barrier stopped
				 * looking at the batch limit.
				 */
				int64_t depth = sr_sequencer_cursor(p->sequencer) - next + 1;
				h->on_batch_start(h->ctx, end - next + 1, depth > end - next + 1 ? depth : end - next + 1);
			}
			bool halt = false;
			int64_t s;
			/*
			 * Locals, so that the compiler need not reload them after
			 * every (opaque) handler call; the slot pointer steps by
			 * slot_size and wraps at the end of the array, as
			 * sr_ring_slot(ring, s) does.
			 */
			int (*const on_event)(void *, void *, int64_t, bool) = h->on_event;
			void *const ctx = h->ctx;
			unsigned char *const base = p->ring->slots;
			unsigned char *const slots_end = base + p->ring->bytes;
			const size_t slot_size = p->ring->slot_size;
			unsigned char *slot = sr_ring_slot(p->ring, next);
			for (s = next; s <= end; s++) {
				int e = on_event(ctx, slot, s, s == end);
				if (e != 0 && report_error(p, e, s, slot) == SR_ERROR_HALT) {
					halt = true;
					break;
				}
				slot += slot_size;
				if (slot == slots_end)
					slot = base;
			}
			int64_t handled = halt ? s : end;
			/*
			 * pairs with the load-acquire of this sequence by producers
			 * (sr_sequencer_min_gating) and downstream consumers
			 * (sr_wait__available): our reads of the slots come first.
			 */
			sr_sequence_set(&p->sequence, handled);
			next = handled + 1;
			if (halt)
				return;
		} else if (rc == SR_ETIMEDOUT) {
			if (h->on_timeout != NULL)
				h->on_timeout(h->ctx, next - 1);
		} else { /* SR_EALERTED */
			/* pairs with the store-release in sr_processor_halt */
			if (sr_atomic_load_acquire_i32(&p->halt_requested))
				return;
			sr_barrier_clear_alert(&p->barrier);
		}
	}
}

static void
run_loop(sr_processor *p)
{
	if (p->handler.on_start != NULL)
		p->handler.on_start(p->handler.ctx);
	process_events(p);
	if (p->handler.on_shutdown != NULL)
		p->handler.on_shutdown(p->handler.ctx);
	/* pairs with the load-acquire in sr_processor_drain_and_halt */
	sr_atomic_store_release_i32(&p->state, SR_PROCESSOR_HALTED);
}

int
sr_processor_run(sr_processor *p)
{
	if (p == NULL)
		return SR_EINVAL;
	/* Only an idle processor may run; a halted one is not restarted. */
	if (p->thread_started || !sr_atomic_cas_i32(&p->state, SR_PROCESSOR_IDLE, SR_PROCESSOR_RUNNING))
		return SR_ESTATE;
	run_loop(p);
	return SR_OK;
}

static void *
thread_main(void *arg)
{
	run_loop(arg);
	return NULL;
}

int
sr_processor_start(sr_processor *p, sr_error *err)
{
	if (p == NULL)
		return sr_error_set(err, SR_EINVAL, "processor is NULL");
	if (p->thread_started || sr_atomic_load_acquire_i32(&p->state) != SR_PROCESSOR_IDLE)
		return sr_error_set(err, SR_ESTATE, "processor was already started");
	/*
	 * Running is set here, not in the thread, so that a halt or drain
	 * right after start sees a running processor.
	 */
	sr_atomic_store_release_i32(&p->state, SR_PROCESSOR_RUNNING);
	p->thread_started = true;
	int e = pthread_create(&p->thread, NULL, thread_main, p);
	if (e != 0) {
		p->thread_started = false;
		sr_atomic_store_release_i32(&p->state, SR_PROCESSOR_IDLE);
		return sr_error_set(err, SR_ESYS, "pthread_create failed: %s", strerror(e));
	}
	return SR_OK;
}

void
sr_processor_halt(sr_processor *p)
{
	if (p == NULL)
		return;
	/* pairs with the load-acquire in process_events */
	sr_atomic_store_release_i32(&p->halt_requested, 1);
	sr_barrier_alert(&p->barrier);
}

int
sr_processor_drain_and_halt(sr_processor *p)
{
	if (p == NULL)
		return SR_EINVAL;
	if (sr_atomic_load_acquire_i32(&p->state) != SR_PROCESSOR_RUNNING)
		return SR_ESTATE;
	/* Everything published now, as seen from where this processor is. */
	int64_t from = sr_sequence_get(&p->sequence) + 1;
	int64_t target = sr_sequencer_highest_published(p->sequencer, from,
	    sr_sequencer_cursor(p->sequencer));
	sr_backoff backoff = SR_BACKOFF_INIT;
	while (sr_sequence_get(&p->sequence) < target &&
	    sr_atomic_load_acquire_i32(&p->state) == SR_PROCESSOR_RUNNING)
		sr_backoff_pause(&backoff);
	sr_processor_halt(p);
	return SR_OK;
}

int
sr_processor_join(sr_processor *p)
{
	if (p == NULL)
		return SR_EINVAL;
	if (!p->thread_started)
		return SR_ESTATE;
	int e = pthread_join(p->thread, NULL);
	p->thread_started = false;
	return e == 0 ? SR_OK : SR_ESYS;
}

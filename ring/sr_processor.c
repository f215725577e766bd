/* SPDX-License-Identifier: Apache-2.0 */
/* sr_processor.c: the batch event processor's loop and lifecycle. */
#include "sr_processor.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sr_backoff.h"
#include "sr_time.h"

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
	if (c->rewind.pause_ns < 0) {
		sr_error_set(err, SR_EINVAL,
		    "rewind.pause_ns %lld is negative: expected 0 or more",
		    (long long)c->rewind.pause_ns);
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
	sr_sequence_init(&p->own_sequence, c->sequencer->initial_sequence);
	/* A sequence of the caller's keeps its value: the processor starts after it. */
	p->sequence = c->sequence != NULL ? c->sequence : &p->own_sequence;
	p->ring = c->ring;
	p->sequencer = c->sequencer;
	p->handler = c->handler;
	p->max_batch_size = c->max_batch_size == 0 ? INT64_MAX : c->max_batch_size;
	p->rewind = c->rewind;
	p->rewindable = c->rewind.decide != NULL || c->rewind.max_rewinds != 0;
	sr_atomic_store_relaxed_i32(&p->state, SR_PROCESSOR_IDLE);
	sr_atomic_store_relaxed_i32(&p->halt_requested, 0);
	if (p->handler.set_sequence_callback != NULL)
		p->handler.set_sequence_callback(p->handler.ctx, p->sequence);
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

/* How a batch ended (run_batch). */
enum batch_end {
	BATCH_DONE,     /* every event handled */
	BATCH_HALT,     /* on_error decided to halt at *at (handled) */
	BATCH_REWIND    /* on_event asked for a rewind at *at (not handled) */
};

/*
 * Hands sequences next..end to the handler.  The skip check is a
 * loop-invariant branch, taken only once a slot was ever skipped.
 */
static enum batch_end
run_batch(sr_processor *p, int64_t next, int64_t end, int64_t *at)
{
	const sr_handler *h = &p->handler;
	/*
	 * Locals, so that the compiler need not reload them after every
	 * (opaque) handler call; the slot pointer steps by slot_size and
	 * wraps at the end of the array, as sr_ring_slot(ring, s) does.
	 */
	int (*const on_event)(void *, void *, int64_t, bool) = h->on_event;
	void *const ctx = h->ctx;
	unsigned char *const base = p->ring->slots;
	unsigned char *const slots_end = base + p->ring->bytes;
	const size_t slot_size = p->ring->slot_size;
	const bool check_skips = sr_sequencer_has_skips(p->sequencer);
	unsigned char *slot = sr_ring_slot(p->ring, next);
	for (int64_t s = next; s <= end; s++) {
		if (check_skips && sr_sequencer_is_skipped(p->sequencer, s)) {
			if (h->on_skip != NULL)
				h->on_skip(ctx, s, s == end);
		} else {
			int e = on_event(ctx, slot, s, s == end);
			if (e != 0) {
				*at = s;
				if (e == SR_EVENT_REWIND && p->rewindable)
					return BATCH_REWIND;
				if (report_error(p, e, s, slot) == SR_ERROR_HALT)
					return BATCH_HALT;
			}
		}
		slot += slot_size;
		if (slot == slots_end)
			slot = base;
	}
	return BATCH_DONE;
}

/* The rewind strategy's verdict for the rewinds-th replay of a batch. */
static enum sr_rewind_action
decide_rewind(const sr_processor *p, int64_t sequence, int64_t rewinds)
{
	const sr_rewind_strategy *r = &p->rewind;
	if (r->decide != NULL)
		return r->decide(r->ctx, sequence, rewinds);
	if (r->max_rewinds < 0 || rewinds < r->max_rewinds)
		return SR_REWIND;
	return SR_REWIND_GIVE_UP;
}

static void
sleep_ns(int64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000), (long)(ns % 1000000000) };
	while (nanosleep(&ts, &ts) != 0)
		;
}

static bool
halt_was_requested(const sr_processor *p)
{
	/* pairs with the store-release in sr_processor_halt */
	return sr_atomic_load_acquire_i32(&p->halt_requested) != 0;
}

static void
process_events(sr_processor *p)
{
	const sr_handler *h = &p->handler;
	/* A halt that found no run in progress (IDLE or HALTED) ends this one at once. */
	if (halt_was_requested(p))
		return;
	/* Where the progress is recorded: the one indirection of the loop, loaded once. */
	sr_sequence *const progress = p->sequence;
	/*
	 * pairs with the store-release that recorded the last progress there:
	 * an earlier run's, or, for a sequence of the caller's, whoever set it
	 * before this run.
	 */
	int64_t next = sr_sequence_get(progress) + 1;
	int64_t rewinds = 0; /* of the batch starting at next */
	for (;;) {
		int64_t available;
		int64_t limit = p->max_batch_size == INT64_MAX ? INT64_MAX : next + p->max_batch_size - 1;
		int rc = sr_barrier_wait_for_bounded(&p->barrier, next, limit, &available);
		if (rc == SR_OK) {
			if (available < next)
				continue; /* cannot happen with this barrier; harmless */
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
			int64_t at = end;
			enum batch_end how = run_batch(p, next, end, &at);
			if (how == BATCH_REWIND) {
				/*
				 * Events the handler released early may already be
				 * overwritten: replay from the first one it still
				 * holds.  The relaxed load reads what this thread (the
				 * handler) stored.
				 */
				int64_t released = sr_sequence_get_relaxed(progress);
				if (!halt_was_requested(p) &&
				    decide_rewind(p, at, rewinds) == SR_REWIND) {
					rewinds++;
					if (p->rewind.pause_ns > 0)
						sleep_ns(p->rewind.pause_ns);
					if (released + 1 > next)
						next = released + 1;
					continue;
				}
				if (halt_was_requested(p)) {
					/*
					 * The event asking for a rewind was not handled.
					 * pairs with the load-acquire of this sequence by
					 * producers and downstream consumers.
					 */
					sr_sequence_set(progress, at - 1 > released ? at - 1 : released);
					return;
				}
				/* Given up: the exception handler has the event. */
				void *slot = sr_ring_slot(p->ring, at);
				how = report_error(p, SR_EVENT_REWIND, at, slot) == SR_ERROR_HALT ?
				    BATCH_HALT : BATCH_DONE;
				end = at; /* the rest of the batch is the next batch */
			}
			rewinds = 0;
			int64_t handled = how == BATCH_HALT ? at : end;
			/*
			 * pairs with the load-acquire of this sequence by producers
			 * (sr_sequencer_min_gating) and downstream consumers
			 * (sr_wait__available): our reads of the slots come first.
			 */
			sr_sequence_set(progress, handled);
			next = handled + 1;
			if (how == BATCH_HALT)
				return;
		} else if (rc == SR_ETIMEDOUT) {
			if (h->on_timeout != NULL)
				h->on_timeout(h->ctx, next - 1);
		} else { /* SR_EALERTED */
			if (halt_was_requested(p))
				return;
			/*
			 * An alert without a halt: left by a halt that an earlier
			 * run spent.  Cleared, then the flag looked at again
			 * after a StoreLoad fence, which pairs with the fence in
			 * sr_processor_halt: either this look sees a halt that
			 * came meanwhile, or that halt's alert comes after the
			 * clear and the next wait sees it.
			 */
			sr_barrier_clear_alert(&p->barrier);
			sr_atomic_fence_seq_cst();
			if (halt_was_requested(p))
				return;
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
	/*
	 * The halts requested during this run are spent with it (as the
	 * Disruptor's run() ends by storing IDLE over a HALTED).  Relaxed: the
	 * store-release of HALTED below orders it before the next run.  Its
	 * alert may stay set; the next run clears it (process_events).
	 */
	sr_atomic_store_relaxed_i32(&p->halt_requested, 0);
	/*
	 * pairs with the load-acquire in sr_processor_drain_and_halt,
	 * sr_processor_state_get and enter_running's CAS.  The last access of
	 * the run to the processor.
	 */
	sr_atomic_store_release_i32(&p->state, SR_PROCESSOR_HALTED);
}

/*
 * Moves an idle or halted processor to running: false when it is running
 * (or halting) already.  A halt requested since the last run ended (or
 * before the first) is left standing: the run ends at once
 * (process_events), so that a halt racing a start never leaves a run going.
 */
static bool
enter_running(sr_processor *p)
{
	/* Full-barrier CASes: pair with the store-release of HALTED at the end of run_loop. */
	return sr_atomic_cas_i32(&p->state, SR_PROCESSOR_IDLE, SR_PROCESSOR_RUNNING) ||
	    sr_atomic_cas_i32(&p->state, SR_PROCESSOR_HALTED, SR_PROCESSOR_RUNNING);
}

int
sr_processor_run(sr_processor *p)
{
	if (p == NULL)
		return SR_EINVAL;
	if (p->thread_started || !enter_running(p))
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
	/*
	 * A halted processor whose thread nobody joined: that thread has
	 * stored HALTED as its last act, so the join returns at once.
	 */
	if (p->thread_started && sr_processor_state_get(p) == SR_PROCESSOR_HALTED &&
	    sr_processor_join(p) != SR_OK)
		return sr_error_set(err, SR_ESYS, "cannot join the halted processor's thread");
	/*
	 * Running is set here, not in the thread, so that a halt or drain
	 * right after start sees a running processor.
	 */
	enum sr_processor_state before = sr_processor_state_get(p);
	if (p->thread_started || !enter_running(p))
		return sr_error_set(err, SR_ESTATE,
		    "processor is already running (state %d): halt and join it before starting it again",
		    (int)sr_processor_state_get(p));
	p->thread_started = true;
	int e = pthread_create(&p->thread, NULL, thread_main, p);
	if (e != 0) {
		p->thread_started = false;
		sr_atomic_store_release_i32(&p->state, (int32_t)before);
		return sr_error_set(err, SR_ESYS, "pthread_create failed: %s", strerror(e));
	}
	return SR_OK;
}

void
sr_processor_halt(sr_processor *p)
{
	if (p == NULL)
		return;
	/* pairs with the load-acquire in halt_was_requested */
	sr_atomic_store_release_i32(&p->halt_requested, 1);
	/*
	 * StoreStore and more between the flag and the alert: pairs with the
	 * fence after process_events clears an alert left by a spent halt, so
	 * that this alert is not lost to that clear unless the flag is seen.
	 */
	sr_atomic_fence_seq_cst();
	sr_barrier_alert(&p->barrier);
}

int
sr_processor_drain_and_halt_timeout(sr_processor *p, int64_t timeout_ns)
{
	if (p == NULL || timeout_ns < 0)
		return SR_EINVAL;
	if (sr_atomic_load_acquire_i32(&p->state) != SR_PROCESSOR_RUNNING)
		return SR_ESTATE;
	int64_t now = sr_monotonic_ns();
	int64_t deadline = timeout_ns >= INT64_MAX - now ? INT64_MAX : now + timeout_ns;
	/*
	 * The cursor, as the Disruptor's shutdown compares against it: with
	 * several producers it is the highest claimed sequence, so a claim not
	 * yet published is waited for (what was published after it can only be
	 * handled after it), not taken as the end of what there is to drain.
	 */
	int64_t target = sr_sequencer_cursor(p->sequencer);
	sr_backoff backoff = SR_BACKOFF_INIT;
	/* The load-acquire pairs with the processor's store-release of its progress after each batch. */
	while (sr_sequence_get(p->sequence) < target &&
	    sr_atomic_load_acquire_i32(&p->state) == SR_PROCESSOR_RUNNING) {
		if (deadline != INT64_MAX && sr_monotonic_ns() >= deadline)
			return SR_ETIMEDOUT;
		sr_backoff_pause(&backoff);
	}
	/*
	 * One that halted itself is not halted again: that halt would find no
	 * run and end its next one at once.
	 */
	if (sr_atomic_load_acquire_i32(&p->state) == SR_PROCESSOR_RUNNING)
		sr_processor_halt(p);
	return SR_OK;
}

int
sr_processor_drain_and_halt(sr_processor *p)
{
	return sr_processor_drain_and_halt_timeout(p, INT64_MAX);
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

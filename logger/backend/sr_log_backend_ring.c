/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_backend_ring.c: the ring backend, the Disruptor path.
 *
 * Callers (sr_log_frontend.c has built the header): try-claim
 * sr_ring_slots_for(size) consecutive slots on the multi-producer sequencer
 * (one CAS), write the record through a ring writer (it may cross the
 * physical end of the array), publish the range top-down so that the
 * consumer sees all of it or none; the wait strategy signals the consumer
 * only when it may sleep.  Only a full ring leaves this path, to apply the
 * full-queue policy (sr_log_full_policy.c, out of line).
 *
 * The consumer, a batch processor, is sr_log_ring_consumer.c.
 */
#include "sr_log_backend_internal.h"
#include "sr_log_consumer_internal.h"
#include "sr_log_crash_internal.h"
#include "sr_log_full_policy_internal.h"
#include "sr_log_ring_dir_internal.h"
#include "sr_log_ring_internal.h"
#include "sr_log_thread_internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---------------------------------------------------------------------------------------- */
/* Callers                                                                                  */

static void
ring_emit(sr_log *log, const sr_log_rec *h, const sr_fmt_gather *g)
{
	sr_log_ring *r = log->state;
	if (__builtin_expect(log->backend == &sr_log__ring_backend_locking, 0) && sr_log__nested_call()) {
		sr_log__count_drop(log, h->level);
		return;
	}
	int64_t k = sr_ring_slots_for(r->ring, h->size);
	int64_t first;
	if (__builtin_expect(sr_sequencer_try_claim_n(r->seq, k, &first) != SR_OK, 0)) {
		int full = sr_log__when_full(log, r->seq, h->level, k, &first);
		if (full == SR_LOG_FULL_DROPPED)
			return;
		if (full == SR_LOG_FULL_BY_CALLER) {
			sr_log__write_full_by_caller(log, h, g);
			return;
		}
	}
	sr_ring_writer w = sr_ring_stream_at(r->ring, first);
	sr_log__record_encode(&w, h, g);
	/* Top-down: the consumer sees all k slots or none. */
	sr_sequencer_publish_range(r->seq, first, first + k - 1);
}

static bool
ring_try_claim(sr_log *log, size_t size, sr_log_claim *c)
{
	sr_log_ring *r = log->state;
	int64_t k = sr_ring_slots_for(r->ring, size);
	if (__builtin_expect(sr_sequencer_try_claim_n(r->seq, k, &c->first) != SR_OK, 0))
		return false;
	c->last = c->first + k - 1;
	c->ring = r;
	c->w = sr_ring_stream_at(r->ring, c->first);
	return true;
}

/*
 * The macros' inline calls on this logger's shared ring (sr_log_fast.h): what
 * they need, cached in the calling thread's sr_log__my_fast.sh.  Only where
 * the closer's membarrier works (the inline call marks itself with plain
 * stores) and the slots are a power of two in size.  A thread renamed
 * forgets it (sr_log_thread_name).
 */
static void
ring_cache_inline(sr_log *log)
{
	sr_log_ring *r = log->state;
	sr_log__fast_shared *f = &sr_log__my_fast.sh;
	memset(f, 0, sizeof *f);
	/* The inline call claims and publishes as a multi-producer sequencer's (sr_log_fast.h). */
	if (r->ring->slot_shift < 0 || r->seq->mode != SR_PRODUCER_MULTI ||
	    sr_atomic_load_relaxed_i32(&sr_log__callers_fence) != 0)
		return;
	const sr_log_thread *self = sr_log__thread();
	f->seq = r->seq;
	f->base = r->ring->slots;
	f->bytes = r->ring->bytes;
	f->ring = r->ring;
	f->index_mask = r->seq->mask;
	f->slot_shift = (uint32_t)r->ring->slot_shift;
	f->slot_round = ((size_t)1 << f->slot_shift) - 1;
	f->max_record = (uint32_t)(log->opt.max_record < SR_LOG__FAST_SHARED_MAX ?
	    log->opt.max_record : SR_LOG__FAST_SHARED_MAX);
	f->clock = (int32_t)log->opt.clock;
	f->tid = self->tid;
	memcpy(f->name, self->name, sizeof f->name);
	f->key = log->fast_key;
	f->tsc_key = f->clock == SR_LOG__CLOCK_TSC ? f->key : 0;
}

/*
 * A record that crosses the shared ring's end, assembled here by an inline
 * call.  The default TLS model: a library loaded with dlopen must not need
 * this much static TLS, and only that rare call reaches it.
 */
static _Thread_local unsigned char fast_scratch[SR_LOG__FAST_SHARED_MAX];

unsigned char *
sr_log__fast_scratch(void)
{
	return fast_scratch;
}

void
sr_log__fast_put_across(const void *ring, int64_t first, const unsigned char *rec, size_t size)
{
	sr_ring_writer w = sr_ring_stream_at(ring, first);
	sr_ring_writer_put(&w, rec, size);
}

/* With a wait strategy whose publish locks: a nested call goes to ring_emit, which drops it. */
static bool
ring_try_claim_unless_nested(sr_log *log, size_t size, sr_log_claim *c)
{
	return !sr_log__nested_call() && ring_try_claim(log, size, c);
}

static void
ring_commit(sr_log *log, const sr_log_claim *c)
{
	(void)log;
	/* Top-down: the consumer sees all of the record's slots or none. */
	sr_sequencer_publish_range(((sr_log_ring *)c->ring)->seq, c->first, c->last);
}

/*
 * Publishes a notice record (SR_REC_NOTICE, SR_REC_DUMP) and waits until the
 * consumer has passed it: everything published before it is then written.
 */
static int
ring_notice(sr_log *log, int kind)
{
	sr_log_ring *r = log->state;
	int64_t s;
	if (sr_log__claim_while_open(log, r->seq, 1, &s) != SR_OK)
		return SR_ESTATE;
	sr_log_rec h = sr_log__record_notice(kind);
	sr_ring_writer w = sr_ring_stream_at(r->ring, s);
	sr_log__record_encode(&w, &h, NULL);
	sr_sequencer_publish(r->seq, s);
	sr_backoff b = SR_BACKOFF_INIT;
	/* pairs with the consumer's store-release of its sequence after the batch */
	while (sr_sequence_get(sr_processor_sequence(r->proc)) < s) {
		if (sr_atomic_load_acquire_i32(&log->shut) &&
		    sr_processor_state_get(r->proc) != SR_PROCESSOR_RUNNING)
			return SR_ESTATE;
		sr_backoff_pause(&b);
	}
	return SR_OK;
}

static int
ring_flush(sr_log *log)
{
	return ring_notice(log, SR_REC_NOTICE);
}

static int
ring_dump_backtrace(sr_log *log)
{
	if (log->opt.bt_size == 0)
		return SR_ESTATE;
	return ring_notice(log, SR_REC_DUMP);
}

/* ---------------------------------------------------------------------------------------- */
/* Start, stop                                                                              */

static int
ring_start(sr_log *log, const sr_log_config *c, const sr_wait_config *wait, sr_error *err)
{
	sr_log_ring *r = calloc(1, sizeof *r);
	if (r == NULL)
		return sr_error_set(err, SR_ENOMEM, "cannot allocate the ring backend");
	log->state = r;
	r->skip_until = INT64_MIN;
	sr_sequencer_config sc;
	sr_sequencer_config_default(&sc, c->ring_slots, SR_PRODUCER_MULTI);
	sc.synchronize_enqueue_when_full = c->synchronize_enqueue_when_full;
	sc.wait = *wait;
	if (sr_log__ring_dir_active(log)) {
		/* In the ring directory: the same slots, claims and publishes, in a file that outlives the process. */
		r->ring = malloc(sizeof *r->ring);
		if (r->ring == NULL)
			return sr_error_set(err, SR_ENOMEM, "cannot allocate the ring backend");
		r->file = sr_log__ring_dir_make_ring(log, SR_LOG_RING_FILE_SHARED, c->ring_slots, c->slot_size,
		    sr_log__thread()->tid, "", &sc, r->ring, &r->seq, err);
		if (r->file == NULL) {
			free(r->ring);
			r->ring = NULL;
			return err != NULL ? err->code : SR_ESYS;
		}
	} else {
		r->ring = sr_ring_create(c->ring_slots, c->slot_size, NULL, NULL, err);
		if (r->ring == NULL)
			return err != NULL ? err->code : SR_ENOMEM;
		r->seq = sr_sequencer_create(&sc, err);
		if (r->seq == NULL)
			return err != NULL ? err->code : SR_ENOMEM;
	}
	r->scratch = malloc(c->max_message_bytes);
	if (r->scratch == NULL)
		return sr_error_set(err, SR_ENOMEM, "cannot allocate the consumer's record buffer");
	/*
	 * Bounded batches: the processor advances its sequence (and so frees
	 * slots for blocked callers) at the end of each batch; a batch may end
	 * inside a multi-slot record, whose continuation slots are then skipped.
	 */
	int64_t max_batch = c->ring_slots >= 8192 ? 4096 : (c->ring_slots / 2 > 0 ? c->ring_slots / 2 : 1);
	sr_processor_config pc = {
		.ring = r->ring,
		.sequencer = r->seq,
		.handler = sr_log__ring_consumer(log),
		.max_batch_size = max_batch,
	};
	r->proc = sr_processor_create(&pc, err);
	if (r->proc == NULL)
		return err != NULL ? err->code : SR_ENOMEM;
	/* The crash handler's list: this one ring (pairs with its load-acquire). */
	sr_log__crash_ring_init(&r->crash_ring, r->ring, r->seq, sr_processor_sequence(r->proc));
	r->crash_ring.file = r->file;
	sr_atomic_store_release_ptr(&r->crash.rings, &r->crash_ring);
	int rc = sr_sequencer_add_gating(r->seq, sr_processor_sequence(r->proc));
	if (rc != SR_OK)
		return sr_error_set(err, rc, "cannot gate the ring on the consumer");
	rc = sr_processor_start(r->proc, err);
	if (rc != SR_OK)
		return rc;
	r->consumer_started = true;
	return SR_OK;
}

static bool
ring_idle(sr_log *log)
{
	sr_log_ring *r = log->state;
	/* pairs with the consumer's store-release of its sequence after each batch */
	return r == NULL || !r->consumer_started ||
	    sr_sequence_get(sr_processor_sequence(r->proc)) >= sr_sequencer_cursor(r->seq);
}

static void
ring_stop(sr_log *log)
{
	sr_log_ring *r = log->state;
	if (r == NULL || !r->consumer_started)
		return;
	sr_processor_drain_and_halt(r->proc);
	sr_processor_join(r->proc);
	r->consumer_started = false;
	sr_log__ring_drain_leftovers(log, r);
}

/*
 * fork: the child's consumer starts after the sequencer's cursor (every
 * sequence claimed in the parent, published or not, is the parent's to
 * write), so it never waits for a slot that a thread missing from the child
 * claimed, and never writes a record the parent writes.
 */
static void
ring_fork(sr_log *log, int phase)
{
	sr_log_ring *r = log->state;
	sr_sequencer *seq = r->seq;
	if (phase == SR_LOG_FORK_PREPARE) {
		/* A caller waiting for room holds full_lock until the consumer frees some: it does. */
		pthread_mutex_lock(&seq->full_lock);
		pthread_mutex_lock(&seq->gating_lock);
		return;
	}
	pthread_mutex_unlock(&seq->gating_lock);
	pthread_mutex_unlock(&seq->full_lock);
	/* A child's ring in the parent's file would be the parent's too: private memory, the same bytes. */
	if (phase != SR_LOG_FORK_PARENT && r->file != NULL)
		(void)sr_log__ring_file_privatize(r->file);
	if (phase == SR_LOG_FORK_PARENT || !r->consumer_started)
		return;
	if (phase == SR_LOG_FORK_CHILD_STOPPED) {
		/* No consumer in the child: the processor is not running there. */
		sr_atomic_store_release_i32(&r->proc->state, SR_PROCESSOR_IDLE);
		r->proc->thread_started = false;
		r->consumer_started = false;
		return;
	}
	/*
	 * The parent's consumer may have been asleep on the wait strategy's
	 * futex: that leaves at most its announcement set, which costs the
	 * child's first publish a wake-up that finds nobody.
	 */
	sr_processor *p = r->proc;
	/* The child is single-threaded here: plain resets of the processor's run state. */
	sr_sequence_set(sr_processor_sequence(p), sr_sequencer_cursor(seq));
	sr_atomic_store_relaxed_i32(&p->barrier.alerted.value, 0);
	sr_atomic_store_relaxed_i32(&p->halt_requested, 0);
	sr_atomic_store_release_i32(&p->state, SR_PROCESSOR_IDLE);
	p->thread_started = false;
	r->skip_until = INT64_MIN;
	r->consumer_started = sr_processor_start(p, NULL) == SR_OK;
}

static void
ring_destroy(sr_log *log)
{
	sr_log_ring *r = log->state;
	if (r == NULL)
		return;
	if (r->file != NULL) {
		/* After stop: a ring written to its end goes; one with records stays for the next open. */
		bool written = r->proc == NULL || sr_sequence_get(sr_processor_sequence(r->proc)) >= sr_sequencer_cursor(r->seq);
		if (r->proc != NULL)
			sr_processor_destroy(r->proc);
		sr_log__ring_dir_ring_closed(log, r->file, written);
		free(r->ring);
	} else {
		if (r->proc != NULL)
			sr_processor_destroy(r->proc);
		sr_sequencer_destroy(r->seq);
		sr_ring_destroy(r->ring);
	}
	free(r->scratch);
	sr_log__crash_free(&r->crash);
	free(r);
	log->state = NULL;
}

/* The ring backend's table; the two differ in the claim a caller tries first. */
#define RING_BACKEND(try_claim_fn) { \
	.start = ring_start, \
	.emit = ring_emit, \
	.try_claim = (try_claim_fn), \
	.commit = ring_commit, \
	.cache_inline = ring_cache_inline, \
	.flush = ring_flush, \
	.dump_backtrace = ring_dump_backtrace, \
	.idle = ring_idle, \
	.stop = ring_stop, \
	.fork = ring_fork, \
	.destroy = ring_destroy, \
}

const sr_log_backend sr_log__ring_backend = RING_BACKEND(ring_try_claim);

/* The same, for a wait strategy whose publish locks (block, or phased falling back to it). */
const sr_log_backend sr_log__ring_backend_locking = RING_BACKEND(ring_try_claim_unless_nested);

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_backend_per_thread.c: the per-thread rings backend (mode ring,
 * producer per_thread): the callers' side (claim, write, publish, wake the
 * consumer), flush and dump, and the backend's table.  The design (claim,
 * merge, waking and their bounds) is in sr_log_per_thread_internal.h; the
 * rings are made, found and freed in sr_log_per_thread_rings.c, the
 * consumer is sr_log_per_thread_consumer.c, start, stop and fork are
 * sr_log_per_thread_start.c.
 *
 * A caller finds its ring in a thread-local cache (the logger's id and the
 * ring): one compare.  A miss looks in the thread's list of rings (one per
 * logger it logs through) under the process-wide rings lock and, on the
 * thread's first call through this logger, makes the ring: allocates and
 * touches it, gates it on the consumer, puts it on the logger's list.  Then:
 * claim on the ring's single-producer sequencer (plain arithmetic), write,
 * publish (one store-release), and read the consumer's park flag (a relaxed
 * load).  Only a full ring leaves this path: the full-queue policy that the
 * shared ring applies too (sr_log_full_policy.c), waiting on this ring alone.
 */
#include "sr_log_backend_internal.h"
#include "sr_log_clock_internal.h"
#include "sr_log_consumer_internal.h"
#include "sr_log_full_policy_internal.h"
#include "sr_log_thread_internal.h"
#include "sr_log_per_thread_internal.h"

#include <string.h>

/*
 * The thread was renamed since its last record in p: a SR_REC_THREAD_NAME
 * record tells the consumer, before this thread's next message.  Dropped
 * (and the old name kept) when the ring is full.
 */
static void
tell_new_name(sr_log *log, sr_log_thread_ring *p)
{
	const sr_log_thread *self = sr_log__thread();
	sr_log_rec h = sr_log__record_notice(SR_REC_THREAD_NAME);
	h.ts_ns = sr_log__clock_read(log);
	size_t stored = sr_log__thread_header_size(&h) + sizeof self->name;
	int64_t k = sr_ring_slots_for(p->ring, stored);
	int64_t first;
	if (sr_sequencer_try_claim_n(p->seq, k, &first) != SR_OK)
		return;
	h.size = (uint32_t)(sizeof h + sizeof self->name);
	sr_ring_writer w = sr_ring_stream_at(p->ring, first);
	unsigned char head[sizeof h];
	sr_ring_writer_put(&w, head, sr_log__thread_header_put(head, &h));
	sr_ring_writer_put(&w, self->name, sizeof self->name);
	sr_sequencer_publish_range(p->seq, first, first + k - 1);
	p->name_gen = self->name_gen;
}

/*
 * The inline calls' claim limit on s (sr_log__fast_ring.claim_limit): the
 * last slot of the next claim's lap before the ring's end, or the last slot
 * the cached gating sequence frees, whichever comes first.
 */
static int64_t
inline_claim_limit(const sr_sequencer *s)
{
	int64_t lap_end = (s->single.next_value + 1) | s->mask;
	int64_t freed = s->single.cached_gating + s->buffer_size;
	return lap_end < freed ? lap_end : freed;
}

/* After a claim out of line on p: the inline calls' limit again, if p is the cached ring. */
static inline void
refresh_inline_limit(const sr_log_thread_ring *p)
{
	sr_log__fast_ring *f = &sr_log__my_fast.r;
	if (f->ring == p)
		f->claim_limit = inline_claim_limit(p->seq);
}

/* Fills sr_log__my_fast from p, when the inline call can write p's records (sr_log_fast.h). */
static void
cache_for_inline_calls(const sr_log *log, sr_log_thread_ring *p)
{
	/* What the macros' inline calls use of the ring sr_log__my_last_ring holds; 0 key: none. */
	sr_log__fast_ring *f = &sr_log__my_fast.r;
	memset(f, 0, sizeof *f);
	/*
	 * The inline call marks itself with plain stores and relies on the closer's
	 * membarrier (sr_log_fast.h): where that is unavailable, calls take the
	 * general path, which fences.  The flag only ever goes from 1 to 0.
	 */
	if (p->ring->slot_shift != SR_LOG__THREAD_SLOT_SHIFT || log->fast_key != p->owner_id ||
	    sr_atomic_load_relaxed_i32(&sr_log__callers_fence) != 0)
		return;
	f->seq = p->seq;
	f->base = p->ring->slots;
	f->bytes = p->ring->bytes;
	f->parked = &p->owner->hot.parked;
	f->ring = p;
	f->slot_shift = (uint32_t)p->ring->slot_shift;
	f->max_record = log->opt.max_record > UINT32_MAX ? UINT32_MAX : (uint32_t)log->opt.max_record;
	f->clock = (int32_t)log->opt.clock;
	f->index_mask = p->seq->mask;
	f->buffer_size = p->seq->buffer_size;
	f->slot_round = ((size_t)1 << f->slot_shift) - 1;
	f->key = p->owner_id;
	f->tsc_key = f->clock == SR_LOG__CLOCK_TSC ? f->key : 0;
	f->claim_limit = inline_claim_limit(p->seq);
}

void
sr_log__fast_wake(void *ring)
{
	sr_log__threads_wake(((sr_log_thread_ring *)ring)->owner);
}

/*
 * A thread whose ring could not be made (a full disk under a ring
 * directory, no memory) tries again at most once a second: its calls in
 * between are dropped without a system call each.
 */
#define RING_RETRY_NS INT64_C(1000000000)
static __attribute__((tls_model("initial-exec"))) _Thread_local struct {
	uint64_t id;                  /* the logger whose ring could not be made, 0: none */
	int64_t until;                /* monotonic ns before which it is not tried again */
} ring_refused;

/* A cache miss: this thread's ring for the logger, made on its first call; NULL when it cannot. */
__attribute__((noinline)) static sr_log_thread_ring *
my_ring_slow(sr_log *log, sr_log_threads *t)
{
	sr_log_thread_ring *p = sr_log__thread_ring_find(t);
	if (p == NULL) {
		if (ring_refused.id == t->hot.id && sr_monotonic_ns() < ring_refused.until)
			return NULL;
		if ((p = sr_log__thread_ring_make(t)) == NULL) {
			ring_refused.id = t->hot.id;
			ring_refused.until = sr_monotonic_ns() + RING_RETRY_NS;
			return NULL;
		}
	}
	if (p->name_gen != sr_log__thread()->name_gen)
		tell_new_name(log, p);
	sr_log__my_last_ring.id = t->hot.id;
	sr_log__my_last_ring.ring = p;
	cache_for_inline_calls(log, p);
	return p;
}

/* The calling thread's ring for the logger if it made one, else NULL: never makes one. */
static sr_log_thread_ring *
my_ring_if_made(sr_log *log)
{
	sr_log_threads *t = log->state;
	if (sr_log__my_last_ring.id == t->hot.id)
		return sr_log__my_last_ring.ring;
	return sr_log__thread_ring_find(t);
}

/* The calling thread's ring for the logger: after its first call, one compare. */
static inline sr_log_thread_ring *
my_ring(sr_log *log)
{
	sr_log_threads *t = log->state;
	if (__builtin_expect(sr_log__my_last_ring.id == t->hot.id, 1))
		return sr_log__my_last_ring.ring;
	return my_ring_slow(log, t);
}

/* ---------------------------------------------------------------------------------------- */
/* Waking the consumer                                                                      */

void
sr_log__threads_wake(sr_log_threads *t)
{
	/* One waker is enough: the others see 0 (the exchange pairs with the park's). */
	if (sr_atomic_exchange_i32(&t->hot.parked, 0) == 0)
		return;
	/* The parked consumer holds park_lock until it waits: the signal cannot come too early. */
	pthread_mutex_lock(&t->park_lock);
	pthread_cond_signal(&t->park_cond);
	pthread_mutex_unlock(&t->park_lock);
}

/*
 * After a publish: a relaxed load, no fence.  A caller that reads 0 while
 * the consumer is parking shallow without having seen its record costs that
 * record at most the park's bound (SR_LOG_THREADS_PARK_MAX_NS); a deep park
 * cannot miss it (sr_log_per_thread_internal.h).
 */
static inline void
wake_if_parked(sr_log_threads *t)
{
	/* The publish stays before the load: pairs with the deep park's membarrier. */
	sr_atomic_fence_signal();
	if (__builtin_expect(sr_atomic_load_relaxed_i32(&t->hot.parked) != 0, 0))
		sr_log__threads_wake(t);
}

/*
 * For the cold paths that wait for the consumer (flush, a full ring): the
 * fence orders our publishes before the load (Dekker with the park's
 * exchange), so a parked consumer is always woken.
 */
static void
wake_fenced(sr_log_threads *t)
{
	sr_atomic_fence_seq_cst();
	if (sr_atomic_load_relaxed_i32(&t->hot.parked) != 0)
		sr_log__threads_wake(t);
}

/* ---------------------------------------------------------------------------------------- */
/* Callers                                                                                  */

static bool
threads_try_claim(sr_log *log, size_t size, sr_log_claim *c)
{
	/* A nested call (a signal handler) would claim on a ring its thread is claiming on: emit drops it. */
	if (__builtin_expect(sr_log__nested_call(), 0))
		return false;
	sr_log_thread_ring *p = my_ring(log);
	if (__builtin_expect(p == NULL, 0))
		return false;
	int64_t k = sr_ring_slots_for(p->ring, size);
	int64_t first;
	if (__builtin_expect(sr_sequencer_try_claim_n(p->seq, k, &first) != SR_OK, 0))
		return false;
	c->w = sr_ring_stream_at(p->ring, first);
	c->ring = p;
	c->first = first;
	c->last = first + k - 1;
	return true;
}

static void
threads_commit(sr_log *log, const sr_log_claim *c)
{
	(void)log;
	sr_log_thread_ring *p = c->ring;
	/* Single producer: one store-release of the cursor (busyspin: no signal). */
	sr_sequencer_publish_range(p->seq, c->first, c->last);
	refresh_inline_limit(p);
	wake_if_parked(p->owner);
}

static int
threads_prepare(sr_log *log)
{
	return my_ring(log) != NULL ? SR_OK : SR_ENOMEM;
}

static void
threads_emit(sr_log *log, const sr_log_rec *h, const sr_fmt_gather *g)
{
	/* The thread's ring has one producer, the thread: a signal handler in its call cannot share it. */
	sr_log_thread_ring *p = sr_log__nested_call() ? NULL : my_ring(log);
	if (__builtin_expect(p == NULL, 0)) {
		/* No ring: out of memory, or the logger is closing. */
		sr_log__count_drop(log, h->level);
		return;
	}
	/* The record as this ring stores it: the shorter header (sr_log_record_internal.h). */
	int64_t k = sr_ring_slots_for(p->ring, h->size - sizeof *h + sr_log__thread_header_size(h));
	int64_t first;
	if (__builtin_expect(sr_sequencer_try_claim_n(p->seq, k, &first) != SR_OK, 0)) {
		/* Whatever the policy, the consumer must be awake to free this ring. */
		wake_fenced(p->owner);
		int full = sr_log__when_full(log, p->seq, h->level, k, &first);
		if (full == SR_LOG_FULL_DROPPED)
			return;
		if (full == SR_LOG_FULL_BY_CALLER) {
			sr_log__write_full_by_caller(log, h, g);
			return;
		}
	}
	sr_ring_writer w = sr_ring_stream_at(p->ring, first);
	sr_log__thread_record_encode(&w, h, g);
	sr_sequencer_publish_range(p->seq, first, first + k - 1);
	refresh_inline_limit(p);
	wake_if_parked(p->owner);
}

/*
 * Waits until a sequence the consumer advances (a ring's consumed, or
 * flushes_done) reaches target: SR_OK, or SR_ESTATE once the consumer stopped.
 */
static int
wait_consumer(sr_log *log, sr_log_threads *t, const sr_sequence *s, int64_t target)
{
	sr_backoff b = SR_BACKOFF_INIT;
	/* pairs with the consumer's store-release of s (after each batch, or after a flush's batch end) */
	while (sr_sequence_get(s) < target) {
		/* pairs with the store-releases in sr_log_shutdown and at the consumer's end */
		if (sr_atomic_load_acquire_i32(&log->shut) && !sr_atomic_load_acquire_i32(&t->running))
			return SR_ESTATE;
		sr_backoff_pause(&b);
	}
	return SR_OK;
}

/*
 * The head of t's list of rings, pinned: the consumer frees no ring while a
 * walk from it holds pointers to them.  unpin_rings after the walk.
 */
static sr_log_crash_ring *
pin_rings(sr_log_threads *t)
{
	pthread_mutex_lock(&t->lock);
	t->pins++;
	/* pairs with the store-release of the list's head in ring_register and the consumer's reclaim */
	sr_log_crash_ring *head = sr_atomic_load_acquire_ptr(&t->crash.rings);
	pthread_mutex_unlock(&t->lock);
	return head;
}

static void
unpin_rings(sr_log_threads *t)
{
	pthread_mutex_lock(&t->lock);
	t->pins--;
	pthread_mutex_unlock(&t->lock);
}

/*
 * The end of a flush from a thread without a ring, once every ring's records
 * are written: asks the consumer for a batch end (its sinks' buffers were
 * written with those records, but a drop counted since is reported only at
 * a batch end) and waits for it.
 */
static int
flush_without_ring(sr_log *log, sr_log_threads *t)
{
	/*
	 * A full-barrier add: pairs with the consumer's load-acquire of asked,
	 * so its batch end sees what was counted before the call (drops).
	 */
	int64_t ticket = sr_atomic_faa_i64(&t->flushes_asked, 1) + 1;
	wake_fenced(t);
	return wait_consumer(log, t, &t->flushes_done, ticket);
}

/*
 * Flush and dump: "every record accepted before the call" is, across rings,
 * every record published in any ring before the call.  So: first wait until
 * the consumer has written each other ring up to its cursor as read now
 * (records published before the call are below it), then publish a notice
 * on this thread's ring, after everything this thread logged, and wait
 * until the consumer has passed it.  A dump's notice thus comes after every
 * record of every thread that was accepted before the call.
 *
 * A flush from a thread that has no ring (it never logged to this logger)
 * has nothing of its own to wait for: the first step, then a batch end
 * (flush_without_ring), and no ring is made for it.  A ring is as large as
 * configured and touched at once, and a thread that only flushes (a main
 * thread that starts workers, then waits for their lines) would hold one
 * for nothing.
 */
static int
threads_notice(sr_log *log, int kind)
{
	sr_log_threads *t = log->state;
	sr_log_thread_ring *own = kind == SR_REC_NOTICE ? my_ring_if_made(log) : my_ring(log);
	if (own == NULL && kind != SR_REC_NOTICE)
		return SR_ESTATE;
	wake_fenced(t);
	int rc = SR_OK;
	/* pairs with the store-release of each link in ring_register (sr_log_per_thread_rings.c) */
	for (sr_log_crash_ring *cr = pin_rings(t); cr != NULL && rc == SR_OK; cr = sr_atomic_load_acquire_ptr(&cr->next)) {
		sr_log_thread_ring *p = sr_log__thread_ring_of_crash(cr);
		if (p != own)
			rc = wait_consumer(log, t, &p->consumed, sr_sequencer_cursor(p->seq));
	}
	unpin_rings(t);
	if (rc != SR_OK)
		return rc;
	if (own == NULL)
		return flush_without_ring(log, t);
	int64_t s;
	if (sr_log__claim_while_open(log, own->seq, 1, &s) != SR_OK)
		return SR_ESTATE;
	sr_log_rec h = sr_log__record_notice(kind);
	/* Stamped, so that the merge puts it after what this and other threads logged before. */
	h.ts_ns = sr_log__clock_read(log);
	sr_ring_writer w = sr_ring_stream_at(own->ring, s);
	sr_log__thread_record_encode(&w, &h, NULL);
	sr_sequencer_publish(own->seq, s);
	wake_fenced(t);
	return wait_consumer(log, t, &own->consumed, s);
}

static int
threads_flush(sr_log *log)
{
	return threads_notice(log, SR_REC_NOTICE);
}

static int
threads_dump_backtrace(sr_log *log)
{
	if (log->opt.bt_size == 0)
		return SR_ESTATE;
	return threads_notice(log, SR_REC_DUMP);
}

bool
sr_log__threads_counts(const sr_log *log, int64_t *live, int64_t *made, int64_t *freed)
{
	const sr_log_threads *t = sr_log__ring_backend_state(log, SR_LOG_PRODUCER_PER_THREAD);
	if (t == NULL)
		return false;
	/* Counters only: relaxed, a snapshot. */
	*made = sr_atomic_load_relaxed_i64(&t->made);
	*freed = sr_atomic_load_relaxed_i64(&t->freed);
	*live = *made - *freed;
	return true;
}

static bool
threads_idle(sr_log *log)
{
	sr_log_threads *t = log->state;
	if (t == NULL || !t->started)
		return true;
	bool idle = true;
	/* pairs with the store-release of each link in ring_register (sr_log_per_thread_rings.c) */
	for (sr_log_crash_ring *cr = pin_rings(t); cr != NULL && idle; cr = sr_atomic_load_acquire_ptr(&cr->next)) {
		sr_log_thread_ring *p = sr_log__thread_ring_of_crash(cr);
		/* pairs with the consumer's store-release of its sequence after each pass */
		idle = sr_sequence_get(&p->consumed) >= sr_sequencer_cursor(p->seq);
	}
	unpin_rings(t);
	if (!idle)
		wake_fenced(t);
	return idle;
}

const sr_log_backend sr_log__threads_backend = {
	.thread_records = true,
	.start = sr_log__threads_start,
	.emit = threads_emit,
	.try_claim = threads_try_claim,
	.commit = threads_commit,
	.flush = threads_flush,
	.prepare = threads_prepare,
	.dump_backtrace = threads_dump_backtrace,
	.idle = threads_idle,
	.stop = sr_log__threads_stop,
	.fork = sr_log__threads_fork,
	.destroy = sr_log__threads_destroy,
};

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_backend_per_thread.c: the per-thread rings backend (mode ring,
 * producer per_thread): the callers' side, flush, start, stop.  The design
 * (claim, merge, waking and their bounds) is in sr_log_per_thread_internal.h;
 * the consumer is sr_log_per_thread_consumer.c.
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
 *
 * Reclaiming: a process-wide pthread key holds each thread's list of rings
 * (sr_log_ring_list); its destructor, as the thread exits, marks every
 * ring on it finished and frees the list.  The rings lock orders that with
 * a logger's close, which takes its rings off their threads' lists before
 * freeing them: neither side then reaches memory the other freed.
 */
#include "sr_cache_internal.h"
#include "sr_log_backend_internal.h"
#include "sr_log_clock_internal.h"
#include "sr_log_consumer_internal.h"
#include "sr_log_full_policy_internal.h"
#include "sr_log_thread_internal.h"
#include "sr_log_per_thread_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A thread's rings, one per logger it logged through: its key's value. */
typedef struct sr_log_ring_list {
	sr_log_thread_ring *head;
} sr_log_ring_list;

static pthread_once_t rings_once = PTHREAD_ONCE_INIT;
static pthread_key_t rings_key;
static int rings_key_error;          /* pthread_key_create's, read after rings_once */
/* Guards every thread's list of rings and each ring's `thread` (cold paths only). */
static pthread_mutex_t rings_lock = PTHREAD_MUTEX_INITIALIZER;
/* Loggers' ids: never 0, never reused in the process, so a stale cache entry never matches. */
static sr_atomic_i64 last_logger_id;

/* The calling thread's: its list, and the ring it used last. */
static __attribute__((tls_model("initial-exec"))) _Thread_local sr_log_ring_list *my_rings;
static __attribute__((tls_model("initial-exec"))) _Thread_local struct {
	uint64_t id;
	sr_log_thread_ring *ring;
} my_last;


/* Forgets the cached ring: the next call looks it up (and sees a new name). */
static void
forget_cached_ring(void)
{
	my_last.id = 0;
	my_last.ring = NULL;
	memset(&sr_log__my_fast.r, 0, sizeof sr_log__my_fast.r);
}

static const sr_log_rename_hook rename_hook = { forget_cached_ring };

uint64_t
sr_log__threads_new_key(void)
{
	sr_log__on_thread_rename(&rename_hook);
	/* Counters of ids only: no data rides on this add. */
	return (uint64_t)sr_atomic_faa_i64(&last_logger_id, 1) + 1;
}

/* Takes p off its thread's list, if it is on one (rings_lock held). */
static void
unlink_from_thread(sr_log_thread_ring *p)
{
	if (p->thread == NULL)
		return;
	for (sr_log_thread_ring **q = &p->thread->head; *q != NULL; q = &(*q)->thread_next) {
		if (*q == p) {
			*q = p->thread_next;
			break;
		}
	}
	p->thread = NULL;
	p->thread_next = NULL;
}

/* The key's destructor, on the exiting thread: its rings are finished. */
static void
thread_exits(void *arg)
{
	sr_log_ring_list *mine = arg;
	pthread_mutex_lock(&rings_lock);
	sr_log_thread_ring *p = mine->head;
	while (p != NULL) {
		sr_log_thread_ring *next = p->thread_next;
		p->thread = NULL;
		p->thread_next = NULL;
		/*
		 * pairs with the consumer's load-acquire of finished: every record
		 * this thread published is visible to it then.  From here on the
		 * consumer may free p: this thread no longer touches it.
		 */
		sr_atomic_store_release_i32(&p->finished, 1);
		p = next;
	}
	pthread_mutex_unlock(&rings_lock);
	free(mine);
	/* A later destructor that logs makes a new ring (and list) rather than use a freed one. */
	my_rings = NULL;
	forget_cached_ring();
}

static void
make_rings_key(void)
{
	rings_key_error = pthread_key_create(&rings_key, thread_exits);
}

void
sr_log__thread_ring_free(sr_log_thread_ring *p)
{
	pthread_mutex_lock(&rings_lock);
	unlink_from_thread(p);
	pthread_mutex_unlock(&rings_lock);
	sr_sequencer_destroy(p->seq);
	sr_ring_destroy(p->ring);
	free(p);
}

/* ---------------------------------------------------------------------------------------- */
/* Spare rings                                                                              */

void
sr_log__thread_ring_retire(sr_log_threads *t, sr_log_thread_ring *p)
{
	sr_ring *memory = p->ring;
	p->ring = NULL;
	pthread_mutex_lock(&t->lock);
	if (t->spare_count < SR_LOG_THREADS_SPARES && !t->closed) {
		t->spares[t->spare_count] = memory;
		t->spare_since[t->spare_count] = sr_monotonic_ns();
		t->spare_count++;
		memory = NULL;
	}
	pthread_mutex_unlock(&t->lock);
	/* Full (or closing): unmapped after all, outside the lock. */
	sr_ring_destroy(memory);
	sr_log__thread_ring_free(p);
}

/* A spare ring's memory, the most recently used, or NULL when there is none. */
static sr_ring *
take_spare(sr_log_threads *t)
{
	sr_ring *r = NULL;
	pthread_mutex_lock(&t->lock);
	if (t->spare_count > 0) {
		r = t->spares[--t->spare_count];
		t->spares_reused++;
	}
	pthread_mutex_unlock(&t->lock);
	return r;
}

void
sr_log__threads_release_spares(sr_log_threads *t, int64_t now)
{
	sr_ring *old[SR_LOG_THREADS_SPARES];
	int n = 0;
	pthread_mutex_lock(&t->lock);
	/* The oldest are first: release a prefix, shift the rest down. */
	while (n < t->spare_count && (now == INT64_MAX || now - t->spare_since[n] >= SR_LOG_THREADS_SPARE_NS)) {
		old[n] = t->spares[n];
		n++;
	}
	for (int i = n; i < t->spare_count; i++) {
		t->spares[i - n] = t->spares[i];
		t->spare_since[i - n] = t->spare_since[i];
	}
	t->spare_count -= n;
	pthread_mutex_unlock(&t->lock);
	/* Unmapping takes time: outside the lock, which new threads' first calls take. */
	for (int i = 0; i < n; i++)
		sr_ring_destroy(old[i]);
}

int
sr_log__threads_spare_count(sr_log_threads *t, int64_t *reused)
{
	pthread_mutex_lock(&t->lock);
	int n = t->spare_count;
	if (reused != NULL)
		*reused = t->spares_reused;
	pthread_mutex_unlock(&t->lock);
	return n;
}

/* The calling thread's list of rings, made on its first ring; NULL when out of memory. */
static sr_log_ring_list *
my_ring_list(void)
{
	if (my_rings != NULL)
		return my_rings;
	sr_log_ring_list *mine = calloc(1, sizeof *mine);
	if (mine == NULL)
		return NULL;
	if (pthread_setspecific(rings_key, mine) != 0) {
		free(mine);
		return NULL;
	}
	my_rings = mine;
	return mine;
}

/* Makes the calling thread's ring for t: allocated, touched, gated; NULL when it cannot. */
static sr_log_thread_ring *
ring_make(sr_log_threads *t)
{
	sr_log_thread_ring *p = aligned_alloc(SR_CACHELINE, (sizeof *p + SR_CACHELINE - 1) / SR_CACHELINE * SR_CACHELINE);
	if (p == NULL)
		return NULL;
	memset(p, 0, sizeof *p);
	/*
	 * An exited thread's ring memory if one is spare (its old records lie
	 * beyond the new sequencer's cursor: never read); else a new ring, which
	 * sr_ring_create touches page by page now, not on the ring's first lap.
	 */
	p->ring = take_spare(t);
	if (p->ring == NULL)
		p->ring = sr_ring_create(t->slots, SR_LOG__THREAD_SLOT, NULL, NULL, NULL);
	sr_sequencer_config sc;
	sr_sequencer_config_default(&sc, t->slots, SR_PRODUCER_SINGLE);
	/* busyspin: publishers never signal; the consumer's waking is this backend's own. */
	sr_wait_config_default(&sc.wait, SR_WAIT_BUSY_SPIN);
	p->seq = p->ring != NULL ? sr_sequencer_create(&sc, NULL) : NULL;
	if (p->seq == NULL) {
		sr_ring_destroy(p->ring);
		free(p);
		return NULL;
	}
	sr_sequence_init(&p->consumed, SR_SEQUENCE_INITIAL);
	if (sr_sequencer_add_gating(p->seq, &p->consumed) != SR_OK) {
		sr_sequencer_destroy(p->seq);
		sr_ring_destroy(p->ring);
		free(p);
		return NULL;
	}
	p->owner = t;
	p->owner_id = t->hot.id;
	p->c.next = SR_SEQUENCE_INITIAL + 1;
	p->c.avail = p->c.seen = SR_SEQUENCE_INITIAL;
	/* The writer as the consumer first sees it (the ring's publication orders these). */
	const sr_log_thread *self = sr_log__thread();
	p->writer.tid = self->tid;
	memcpy(p->writer.name, self->name, sizeof p->writer.name);
	p->name_gen = self->name_gen;
	sr_log__crash_ring_init(&p->crash, p->ring, p->seq, &p->consumed);
	p->crash.writer = &p->writer;
	return p;
}

/* Puts p on t's list of rings; false once the consumer's last drain began. */
static bool
ring_register(sr_log_threads *t, sr_log_thread_ring *p)
{
	pthread_mutex_lock(&t->lock);
	bool open = !t->closed;
	if (open) {
		/* pairs with the load-acquire of the crash handler's and the flushers' walks */
		sr_atomic_store_release_ptr(&p->crash.next, sr_atomic_load_acquire_ptr(&t->crash.rings));
		sr_atomic_store_release_ptr(&t->crash.rings, &p->crash);
		/* pairs with the consumer's load-acquire: it then rereads the list under lock */
		sr_atomic_store_release_i64(&t->changes, sr_atomic_load_relaxed_i64(&t->changes) + 1);
		sr_atomic_store_relaxed_i64(&t->made, sr_atomic_load_relaxed_i64(&t->made) + 1);
	}
	pthread_mutex_unlock(&t->lock);
	return open;
}

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
	/* What the macros' inline calls use of the ring my_last holds; 0 key: none. */
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

/* The calling thread's ring for t, looked up in its list; NULL when it has none. */
static sr_log_thread_ring *
find_my_ring(const sr_log_threads *t)
{
	sr_log_thread_ring *p = NULL;
	pthread_mutex_lock(&rings_lock);
	for (sr_log_thread_ring *q = my_rings != NULL ? my_rings->head : NULL; q != NULL; q = q->thread_next) {
		if (q->owner_id == t->hot.id) {
			p = q;
			break;
		}
	}
	pthread_mutex_unlock(&rings_lock);
	return p;
}

/* A cache miss: this thread's ring for the logger, made on its first call; NULL when it cannot. */
__attribute__((noinline)) static sr_log_thread_ring *
my_ring_slow(sr_log *log, sr_log_threads *t)
{
	sr_log_thread_ring *p = find_my_ring(t);
	if (p == NULL) {
		sr_log_ring_list *mine = my_ring_list();
		if (mine == NULL || (p = ring_make(t)) == NULL)
			return NULL;
		if (!ring_register(t, p)) {
			sr_log__thread_ring_free(p);
			return NULL;
		}
		pthread_mutex_lock(&rings_lock);
		p->thread = mine;
		p->thread_next = mine->head;
		mine->head = p;
		pthread_mutex_unlock(&rings_lock);
	}
	if (p->name_gen != sr_log__thread()->name_gen)
		tell_new_name(log, p);
	my_last.id = t->hot.id;
	my_last.ring = p;
	cache_for_inline_calls(log, p);
	return p;
}

/* The calling thread's ring for the logger if it made one, else NULL: never makes one. */
static sr_log_thread_ring *
my_ring_if_made(sr_log *log)
{
	sr_log_threads *t = log->state;
	if (my_last.id == t->hot.id)
		return my_last.ring;
	return find_my_ring(t);
}

/* The calling thread's ring for the logger: after its first call, one compare. */
static inline sr_log_thread_ring *
my_ring(sr_log *log)
{
	sr_log_threads *t = log->state;
	if (__builtin_expect(my_last.id == t->hot.id, 1))
		return my_last.ring;
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
	/* Pinned: the consumer frees no ring while this walk holds pointers to them. */
	pthread_mutex_lock(&t->lock);
	t->pins++;
	sr_log_crash_ring *head = sr_atomic_load_acquire_ptr(&t->crash.rings);
	pthread_mutex_unlock(&t->lock);
	int rc = SR_OK;
	/* pairs with the store-release of each link in ring_register */
	for (sr_log_crash_ring *cr = head; cr != NULL && rc == SR_OK; cr = sr_atomic_load_acquire_ptr(&cr->next)) {
		sr_log_thread_ring *p = sr_log__thread_ring_of_crash(cr);
		if (p != own)
			rc = wait_consumer(log, t, &p->consumed, sr_sequencer_cursor(p->seq));
	}
	pthread_mutex_lock(&t->lock);
	t->pins--;
	pthread_mutex_unlock(&t->lock);
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
	const sr_log_threads *t = sr_log__threads_of(log);
	if (t == NULL)
		return false;
	/* Counters only: relaxed, a snapshot. */
	*made = sr_atomic_load_relaxed_i64(&t->made);
	*freed = sr_atomic_load_relaxed_i64(&t->freed);
	*live = *made - *freed;
	return true;
}

/* ---------------------------------------------------------------------------------------- */
/* Start, stop                                                                              */

static int
threads_start(sr_log *log, const sr_log_config *c, const sr_wait_config *wait, sr_error *err)
{
	pthread_once(&rings_once, make_rings_key);
	if (rings_key_error != 0)
		return sr_error_set(err, SR_ESYS, "cannot make the per-thread rings' thread key: %s",
		    strerror(rings_key_error));
	sr_log_threads *t = aligned_alloc(SR_CACHELINE, (sizeof *t + SR_CACHELINE - 1) / SR_CACHELINE * SR_CACHELINE);
	if (t == NULL)
		return sr_error_set(err, SR_ENOMEM, "cannot allocate the per-thread rings backend");
	memset(t, 0, sizeof *t);
	log->state = t;
	/* The key sr_log_open chose (sr_log__threads_new_key): categories carry it too. */
	t->hot.id = log->fast_key;
	/* thread_ring_slots x slot_size bytes, in slots of a cache line (sr_log_fast.h); the config checked the count. */
	t->slots = c->thread_ring_slots * (int64_t)(c->slot_size / SR_LOG__THREAD_SLOT);
	pthread_mutex_init(&t->lock, NULL);
	pthread_mutex_init(&t->park_lock, NULL);
	int e = sr_log__cond_init_monotonic(&t->park_cond);
	if (e != 0)
		return sr_error_set(err, SR_ESYS, "pthread_cond_init failed: %s", strerror(e));
	/* The consumer idles along the logger's wait strategy's ladders, then parks. */
	if (sr_wait_init(&t->wait, wait, err) != SR_OK)
		return err != NULL ? err->code : SR_EINVAL;
	t->scratch = malloc(c->max_message_bytes);
	if (t->scratch == NULL)
		return sr_error_set(err, SR_ENOMEM, "cannot allocate the consumer's record buffer");
	t->seen_changes = -1;
	sr_sequence_init(&t->flushes_done, 0);
	t->evict = sr_cache__can_evict();
	/* pairs with the crash handler's load-acquire; before the thread exists */
	sr_atomic_store_release_i32(&t->running, 1);
	e = pthread_create(&t->thread, NULL, sr_log__threads_consumer_main, log);
	if (e != 0) {
		sr_atomic_store_release_i32(&t->running, 0);
		return sr_error_set(err, SR_ESYS, "pthread_create failed: %s", strerror(e));
	}
	t->started = true;
	return SR_OK;
}

static bool
threads_idle(sr_log *log)
{
	sr_log_threads *t = log->state;
	if (t == NULL || !t->started)
		return true;
	/* Pinned, as in threads_notice: no ring is freed while this walk holds it. */
	pthread_mutex_lock(&t->lock);
	t->pins++;
	sr_log_crash_ring *head = sr_atomic_load_acquire_ptr(&t->crash.rings);
	pthread_mutex_unlock(&t->lock);
	bool idle = true;
	/* pairs with the store-release of each link in ring_register */
	for (sr_log_crash_ring *cr = head; cr != NULL && idle; cr = sr_atomic_load_acquire_ptr(&cr->next)) {
		sr_log_thread_ring *p = sr_log__thread_ring_of_crash(cr);
		/* pairs with the consumer's store-release of its sequence after each pass */
		idle = sr_sequence_get(&p->consumed) >= sr_sequencer_cursor(p->seq);
	}
	pthread_mutex_lock(&t->lock);
	t->pins--;
	pthread_mutex_unlock(&t->lock);
	if (!idle)
		wake_fenced(t);
	return idle;
}

static void
threads_stop(sr_log *log)
{
	sr_log_threads *t = log->state;
	if (t == NULL || !t->started)
		return;
	/* pairs with the consumer's load-acquire: it drains every ring and ends */
	sr_atomic_store_release_i32(&t->stopping, 1);
	sr_atomic_store_relaxed_i32(&t->hot.parked, 0);
	pthread_mutex_lock(&t->park_lock);
	pthread_cond_signal(&t->park_cond);
	pthread_mutex_unlock(&t->park_lock);
	pthread_join(t->thread, NULL);
	t->started = false;
}

/*
 * fork: in the child only the forking thread exists.  Every ring is taken
 * as consumed up to its cursor (what the parent published is the parent's
 * to write), the rings of the other threads are finished (their threads are
 * not in the child: the new consumer frees them), and a consumer starts.
 */
static void
threads_fork(sr_log *log, int phase)
{
	sr_log_threads *t = log->state;
	if (phase == SR_LOG_FORK_PREPARE) {
		pthread_mutex_lock(&t->lock);
		pthread_mutex_lock(&t->park_lock);
		return;
	}
	if (phase == SR_LOG_FORK_PARENT) {
		pthread_mutex_unlock(&t->park_lock);
		pthread_mutex_unlock(&t->lock);
		return;
	}
	/* The child, single-threaded: plain resets, under no one's eyes. */
	for (sr_log_crash_ring *cr = sr_atomic_load_acquire_ptr(&t->crash.rings); cr != NULL;
	     cr = sr_atomic_load_acquire_ptr(&cr->next)) {
		sr_log_thread_ring *p = sr_log__thread_ring_of_crash(cr);
		int64_t cursor = sr_sequencer_cursor(p->seq);
		sr_sequence_set(&p->consumed, cursor);
		p->c.next = cursor + 1;
		p->c.avail = p->c.seen = cursor;
		if (my_rings != NULL && p->thread == my_rings)
			continue;
		sr_atomic_store_release_i32(&p->finished, 1);
		/* Its thread's list (its key destructor never runs here): every ring off it, then freed. */
		sr_log_ring_list *gone = p->thread;
		if (gone != NULL) {
			for (sr_log_thread_ring *q = gone->head, *next; q != NULL; q = next) {
				next = q->thread_next;
				q->thread = NULL;
				q->thread_next = NULL;
			}
			free(gone);
		}
	}
	t->pins = 0;
	t->heap_len = 0;
	t->seen_changes = -1; /* the consumer reads the list afresh */
	sr_log__cond_init_monotonic(&t->park_cond);
	sr_atomic_store_relaxed_i32(&t->hot.parked, 0);
	pthread_mutex_unlock(&t->park_lock);
	pthread_mutex_unlock(&t->lock);
	if (phase == SR_LOG_FORK_CHILD_STOPPED) {
		/* The child's calls are dropped (another backend): none may go inline into a ring. */
		forget_cached_ring();
		t->started = false;
		sr_atomic_store_release_i32(&t->running, 0);
		return;
	}
	if (!t->started || sr_atomic_load_acquire_i32(&t->stopping))
		return;
	t->started = pthread_create(&t->thread, NULL, sr_log__threads_consumer_main, log) == 0;
	if (!t->started)
		sr_atomic_store_release_i32(&t->running, 0);
}

void
sr_log__threads_fork_global(int phase)
{
	/* After every logger's own locks (the consumer takes t->lock, then this one). */
	if (phase == SR_LOG_FORK_PREPARE)
		pthread_mutex_lock(&rings_lock);
	else
		pthread_mutex_unlock(&rings_lock);
}

static void
threads_destroy(sr_log *log)
{
	sr_log_threads *t = log->state;
	if (t == NULL)
		return;
	/* After stop: no consumer, no crash handler (shutdown removed it). */
	sr_log_crash_ring *cr = sr_atomic_load_acquire_ptr(&t->crash.rings);
	while (cr != NULL) {
		sr_log_crash_ring *next = sr_atomic_load_acquire_ptr(&cr->next);
		sr_log__thread_ring_free(sr_log__thread_ring_of_crash(cr));
		cr = next;
	}
	sr_log__threads_release_spares(t, INT64_MAX);
	sr_wait_destroy(&t->wait);
	pthread_cond_destroy(&t->park_cond);
	pthread_mutex_destroy(&t->park_lock);
	pthread_mutex_destroy(&t->lock);
	free(t->rings);
	free(t->heap);
	free(t->scratch);
	sr_log__crash_free(&t->crash);
	free(t);
	log->state = NULL;
}

const sr_log_backend sr_log__threads_backend = {
	.thread_records = true,
	.start = threads_start,
	.emit = threads_emit,
	.try_claim = threads_try_claim,
	.commit = threads_commit,
	.flush = threads_flush,
	.prepare = threads_prepare,
	.dump_backtrace = threads_dump_backtrace,
	.idle = threads_idle,
	.stop = threads_stop,
	.fork = threads_fork,
	.destroy = threads_destroy,
};

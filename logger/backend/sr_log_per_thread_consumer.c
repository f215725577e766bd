/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_per_thread_consumer.c: the consumer of the per-thread rings (mode
 * ring, producer per_thread): one thread that merges every thread's ring in
 * timestamp order, hands each record to the consuming side
 * (sr_log_consumer.c), writes the sinks' buffers at the end of each pass and
 * then releases the room it read on each ring.  The rule of a pass and its
 * bound on disorder are in sr_log_per_thread_internal.h.
 *
 * Why not the batch processor (sr_processor.h) of the shared ring: a
 * processor follows one sequencer, so one per ring would be one thread per
 * ring, and a merge needs to see the heads of all of them at once.  This
 * loop does what a processor does (read the cursors with load-acquire,
 * handle a batch, store-release its sequence on each ring after the batch,
 * wait along the wait strategy's ladders), over many single-producer rings,
 * taking the earliest head first (a binary min-heap on the heads' times).
 */
#include "sr_cache_internal.h"
#include "sr_log_clock_internal.h"
#include "sr_log_consumer_internal.h"
#include "sr_log_crash_internal.h"
#include "sr_log_ring_files_internal.h"
#include "sr_log_thread_internal.h"
#include "sr_log_per_thread_internal.h"

#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------------------------------- */
/* The rings                                                                                */

/*
 * Whether the consumer evicts the lines it read: only while all the rings
 * together fit under the limit, as a producer's next lap comes after the
 * consumer has read every other ring's records too.
 */
static void
choose_eviction(sr_log_threads *t)
{
	size_t ring_bytes = (size_t)t->slots * SR_LOG__THREAD_SLOT;
	t->evict = (size_t)t->count * ring_bytes < t->evict_limit;
}

/* Rereads the list of rings into t->rings when it changed (new rings, freed ones). */
static void
refresh_rings(sr_log_threads *t)
{
	/* pairs with the store-release of changes by whoever changed the list */
	int64_t changes = sr_atomic_load_acquire_i64(&t->changes);
	if (changes == t->seen_changes)
		return;
	pthread_mutex_lock(&t->lock);
	int n = 0;
	for (sr_log_crash_ring *cr = sr_atomic_load_acquire_ptr(&t->crash.rings); cr != NULL;
	     cr = sr_atomic_load_acquire_ptr(&cr->next))
		n++;
	if (n > t->cap) {
		int cap = t->cap > 0 ? t->cap : 8;
		while (cap < n)
			cap *= 2;
		sr_log_thread_ring **rings = realloc(t->rings, (size_t)cap * sizeof(sr_log_thread_ring *));
		sr_log_thread_ring **heap = rings != NULL ? realloc(t->heap, (size_t)cap * sizeof(sr_log_thread_ring *)) : NULL;
		if (rings != NULL)
			t->rings = rings;
		if (heap != NULL)
			t->heap = heap;
		if (rings == NULL || heap == NULL) {
			/* Out of memory: keep the rings already known; try again next pass. */
			pthread_mutex_unlock(&t->lock);
			return;
		}
		t->cap = cap;
	}
	int i = 0;
	for (sr_log_crash_ring *cr = sr_atomic_load_acquire_ptr(&t->crash.rings); cr != NULL;
	     cr = sr_atomic_load_acquire_ptr(&cr->next))
		t->rings[i++] = sr_log__thread_ring_of_crash(cr);
	t->count = n;
	t->seen_changes = sr_atomic_load_relaxed_i64(&t->changes);
	pthread_mutex_unlock(&t->lock);
	choose_eviction(t);
}

/* The timestamp of the record at p's next sequence (the header never crosses the array's end). */
static inline int64_t
head_ts(const sr_log_thread_ring *p)
{
	return sr_log__record_ts(p->ring, p->c.next, &p->writer);
}

/*
 * Whether p's head may be taken in a pass whose clock read was bound: its
 * time is at most bound, or it was published before the previous pass's
 * look (so before bound was read, whatever the clock says: a realtime clock
 * stepped back must not hold records up).
 */
static inline bool
eligible(sr_log_thread_ring *p, int64_t bound)
{
	if (p->c.next > p->c.avail)
		return false;
	p->c.head_ts = head_ts(p);
	return p->c.next <= p->c.seen || p->c.head_ts <= bound;
}

/* ---------------------------------------------------------------------------------------- */
/* The heads, earliest first                                                                */

static void
heap_sift_down(sr_log_thread_ring **heap, int len, int i)
{
	sr_log_thread_ring *x = heap[i];
	for (;;) {
		int child = 2 * i + 1;
		if (child >= len)
			break;
		if (child + 1 < len && heap[child + 1]->c.head_ts < heap[child]->c.head_ts)
			child++;
		if (heap[child]->c.head_ts >= x->c.head_ts)
			break;
		heap[i] = heap[child];
		i = child;
	}
	heap[i] = x;
}

static void
heap_push(sr_log_thread_ring **heap, int *len, sr_log_thread_ring *p)
{
	int i = (*len)++;
	while (i > 0) {
		int parent = (i - 1) / 2;
		if (heap[parent]->c.head_ts <= p->c.head_ts)
			break;
		heap[i] = heap[parent];
		i = parent;
	}
	heap[i] = p;
}

/* ---------------------------------------------------------------------------------------- */
/* A pass                                                                                   */

/*
 * The pass's bound: the logger's clock, read before the loads that follow
 * (the list of rings, the cursors).  A bare rdtsc may execute after later
 * loads; the fenced read keeps the order the rule of a pass needs.  Once a
 * pass, so its cost does not matter.
 */
static int64_t
pass_clock_read(const sr_log *log)
{
	if (log->opt.clock == SR_LOG_CLOCK_TSC)
		return sr_tsc_read_fenced();
	return sr_log__clock_read(log);
}

/* Evicts the lines of p's slots [first, first + count), which may wrap past the ring's end. */
static void
evict_slots(const sr_log_thread_ring *p, int64_t first, int64_t count)
{
	size_t bytes = (size_t)count * p->ring->slot_size;
	size_t to_end = sr_ring_contiguous_bytes(p->ring, first);
	if (bytes <= to_end) {
		sr_cache__evict(sr_ring_slot(p->ring, first), bytes);
	} else {
		sr_cache__evict(sr_ring_slot(p->ring, first), to_end);
		sr_cache__evict(p->ring->slots, bytes - to_end);
	}
}

/* Handles the record at p's next sequence and steps past it. */
static void
consume_head(sr_log *log, sr_log_threads *t, sr_log_thread_ring *p)
{
	sr_log__crash_checkpoint(&t->crash);
	sr_log_rec h;
	const unsigned char *body;
	size_t body_len;
	int64_t k = sr_log__record_read(p->ring, p->c.next, log->opt.max_record, t->scratch,
	    &p->writer, &h, &body, &body_len);
	if (k == 0) {
		/* Not a record we wrote: skip the slot rather than read garbage. */
		p->c.next++;
		return;
	}
	/* A new name for the ring's writer was taken by the read itself. */
	int kind = h.kind & SR_REC_KIND_MASK;
	if (kind != SR_REC_THREAD_NAME)
		sr_log__consume_record(log, &h, body, body_len);
	if (kind == SR_REC_NOTICE || kind == SR_REC_DUMP)
		t->batch_notice = true;  /* its flusher waits for this batch's end: everything written */
	/*
	 * The lines read, out of this core's caches: the producer writes them
	 * again a lap later, and would otherwise wait for this copy to be
	 * invalidated (sr_cache_internal.h).
	 */
	if (t->evict)
		evict_slots(p, p->c.next, k);
	p->c.next += k;
	/* pairs with the crash handler's load-acquire: the record's line is in the sinks' buffers */
	sr_atomic_store_release_i64(&p->crash.handled_seq, p->c.next - 1);
}

/*
 * One pass over every ring (the rule in sr_log_per_thread_internal.h).  Returns
 * the records taken; *more says whether some are left that a pass may take
 * at once (beyond the batch, or stamped after bound).
 */
static int64_t
run_pass(sr_log *log, sr_log_threads *t, bool *more)
{
	sr_log__crash_checkpoint(&t->crash);
	/*
	 * The clock first, then the list of rings, then the cursors: a record
	 * below bound and published by then is seen, even in a ring registered
	 * while this thread was descheduled between the two reads (the list
	 * read first would miss that ring, and the pass would write records
	 * stamped after that ring's first record was published).
	 */
	int64_t bound = pass_clock_read(log);
	refresh_rings(t);
	int64_t depth = 0;
	t->heap_len = 0;
	for (int i = 0; i < t->count; i++) {
		sr_log_thread_ring *p = t->rings[i];
		/* pairs with the producer's store-release of its cursor (the publish) */
		p->c.avail = sr_sequencer_cursor(p->seq);
		if (p->c.avail - p->c.next + 1 > depth)
			depth = p->c.avail - p->c.next + 1;
		if (eligible(p, bound))
			heap_push(t->heap, &t->heap_len, p);
	}
	int64_t taken = 0;
	t->batch_notice = false;
	if (t->heap_len > 0) {
		/* In the configuration's slots (slot_size bytes), as capacity is: the ring's are cache lines. */
		int64_t lines_per_slot = (int64_t)(log->opt.slot_size / SR_LOG__THREAD_SLOT);
		sr_log__consumer_batch_start(log, (depth + lines_per_slot - 1) / lines_per_slot);
		while (t->heap_len > 0 && taken < SR_LOG_THREADS_MAX_BATCH) {
			sr_log_thread_ring *p = t->heap[0];
			consume_head(log, t, p);
			taken++;
			if (!eligible(p, bound))
				t->heap[0] = t->heap[--t->heap_len];
			if (t->heap_len > 0)
				heap_sift_down(t->heap, t->heap_len, 0);
		}
		sr_log__crash_checkpoint(&t->crash);
		/* Cut short by the batch's bound, so behind, and no flusher waits on it: a trace may keep packets open. */
		if (taken >= SR_LOG_THREADS_MAX_BATCH && !t->batch_notice)
			sr_log__end_of_batch_behind(log);
		else
			sr_log__end_of_batch(log);
		sr_log__ring_files_batch_written(log);
	}
	*more = false;
	for (int i = 0; i < t->count; i++) {
		sr_log_thread_ring *p = t->rings[i];
		/*
		 * After the batch's lines are written: pairs with the producer's
		 * load-acquire of its gating sequence (the room is free) and with
		 * flushers' and the crash handler's load-acquire (the lines are out).
		 */
		if (sr_sequence_get_relaxed(&p->consumed) != p->c.next - 1)
			sr_sequence_set(&p->consumed, p->c.next - 1);
		p->c.seen = p->c.avail;
		if (p->c.next <= p->c.avail)
			*more = true;
	}
	return taken;
}

/* ---------------------------------------------------------------------------------------- */
/* Freeing the rings of threads that exited                                                 */

/* Frees p, drained and finished, unless a flusher or a crash handler is walking the list. */
static bool
reclaim(sr_log_threads *t, sr_log_thread_ring *p)
{
	pthread_mutex_lock(&t->lock);
	if (t->pins > 0) {
		pthread_mutex_unlock(&t->lock);
		return false;
	}
	/* Take it off the list: store-release, pairs with the walkers' load-acquire. */
	sr_atomic_ptr *link = &t->crash.rings;
	for (sr_log_crash_ring *cr = sr_atomic_load_acquire_ptr(link); cr != NULL;
	     link = &cr->next, cr = sr_atomic_load_acquire_ptr(link)) {
		if (cr == &p->crash) {
			sr_atomic_store_release_ptr(link, sr_atomic_load_acquire_ptr(&cr->next));
			break;
		}
	}
	sr_atomic_store_release_i64(&t->changes, sr_atomic_load_relaxed_i64(&t->changes) + 1);
	sr_atomic_store_relaxed_i64(&t->freed, sr_atomic_load_relaxed_i64(&t->freed) + 1);
	pthread_mutex_unlock(&t->lock);
	/* A crash handler may be reading it: then it stays (the process is dying). */
	if (sr_log__crash_may_free(&t->crash))
		sr_log__thread_ring_retire(t, p);
	return true;
}

/*
 * Frees the rings whose thread exited and whose records are all written
 * (their memory kept as spares while there is room), and unmaps the spares
 * unused for long.  Without may_unmap, only as many as there is room for
 * among the spares: nothing is unmapped, so it is cheap enough for any pass.
 */
static void
reclaim_finished(sr_log_threads *t, bool may_unmap)
{
	int room = SR_LOG_THREADS_SPARES;
	if (may_unmap)
		sr_log__threads_release_spares(t, sr_monotonic_ns());
	else
		room -= sr_log__threads_spare_count(t, NULL);   /* only this thread adds spares: room only grows meanwhile */
	int kept = 0;
	for (int i = 0; i < t->count; i++) {
		sr_log_thread_ring *p = t->rings[i];
		/*
		 * pairs with the key destructor's store-release of finished: its
		 * last publish is visible, so the cursor below is final.
		 */
		bool done = (may_unmap || room > 0) && sr_atomic_load_acquire_i32(&p->finished) &&
		    p->c.next > sr_sequencer_cursor(p->seq) &&
		    sr_sequence_get_relaxed(&p->consumed) == p->c.next - 1;
		if (done)
			room--;
		if (!done || !reclaim(t, p))
			t->rings[kept++] = p;
	}
	t->count = kept;
	choose_eviction(t);
	/* reclaim() changed the list: the next refresh rereads it (already without them). */
}

/*
 * reclaim_finished, when it last ran (*last) a housekeeping period or more
 * before now: freeing a large ring unmaps it, time that every other ring's
 * records would wait, so a busy or a polling consumer frees only that often
 * (one that parks frees before each park as well).
 */
static void
reclaim_when_due(sr_log_threads *t, int64_t now, int64_t *last)
{
	if (now - *last < SR_LOG_THREADS_HOUSEKEEPING_NS)
		return;
	reclaim_finished(t, true);
	*last = now;
}

/*
 * A batch end (the sinks' buffers, drop reports) that serves the flushes
 * asked by threads without a ring (sr_log_backend_per_thread.c) up to asked,
 * read before it: one asked later waits for the next.
 */
static void
end_batch_for_flushes(sr_log *log, sr_log_threads *t, int64_t asked)
{
	sr_log__crash_checkpoint(&t->crash);
	sr_log__end_of_batch(log);
	sr_log__ring_files_batch_written(log);
	/* pairs with the flushers' load-acquire: the batch end is done */
	sr_sequence_set(&t->flushes_done, asked);
}

/* One batch end for every flush asked so far, if any: returns whether there were any. */
static bool
serve_flushes(sr_log *log, sr_log_threads *t)
{
	/* pairs with the flushers' add: asked after every ring they waited for was written */
	int64_t asked = sr_atomic_load_acquire_i64(&t->flushes_asked);
	if (asked == sr_sequence_get_relaxed(&t->flushes_done))
		return false;
	end_batch_for_flushes(log, t, asked);
	return true;
}

/* ---------------------------------------------------------------------------------------- */
/* Idling                                                                                   */

bool
sr_log__threads_work_visible(sr_log_threads *t)
{
	/* pairs with stop's store-release */
	if (sr_atomic_load_acquire_i32(&t->stopping))
		return true;
	/* pairs with the store-release of changes (a new ring) */
	if (sr_atomic_load_acquire_i64(&t->changes) != t->seen_changes)
		return true;
	/* pairs with the flushers' add */
	if (sr_atomic_load_acquire_i64(&t->flushes_asked) != sr_sequence_get_relaxed(&t->flushes_done))
		return true;
	for (int i = 0; i < t->count; i++) {
		sr_log_thread_ring *p = t->rings[i];
		/* pairs with the producer's store-release of its cursor */
		if (sr_sequencer_cursor(p->seq) >= p->c.next)
			return true;
	}
	return false;
}

/*
 * Parks for at most bound_ns.  The flag is set with an exchange (a full
 * barrier) before the last look at the rings.  A caller publishes and then
 * reads the flag with only a compiler barrier between: a shallow park may
 * miss that caller's record, and its timed wait is what bounds the cost.  A
 * deep park makes the miss impossible: membarrier makes every running caller
 * pass a full barrier between the exchange and the look, so a caller either
 * published before its barrier (the look sees the record) or reads the flag
 * after it (and wakes us).  Where membarrier is unavailable a deep park is
 * a shallow one of the largest bound.
 */
static void
park(sr_log_threads *t, int64_t bound_ns, bool deep)
{
	pthread_mutex_lock(&t->park_lock);
	/* pairs with the callers' load of parked and the exchange in sr_log__threads_wake */
	sr_atomic_exchange_i32(&t->hot.parked, 1);
	/* pairs with the compiler barrier between each caller's publish and its load of parked */
	if (deep && !sr_log__callers_barrier())
		bound_ns = SR_LOG_THREADS_PARK_MAX_NS;
	if (!sr_log__threads_work_visible(t)) {
		struct timespec deadline = sr_timespec_from_ns(sr_monotonic_ns() + bound_ns);
		pthread_cond_timedwait(&t->park_cond, &t->park_lock, &deadline);
	}
	sr_atomic_store_relaxed_i32(&t->hot.parked, 0);
	pthread_mutex_unlock(&t->park_lock);
}

/*
 * The ladder the consumer idles along before it parks, from the logger's
 * wait strategy: phased spins and yields for its times, then parks; the
 * polling kinds (busyspin, yield, sleep) poll for ever and never park; the
 * blocking kinds (block, liteblock, timeout) park at once.
 */
static const sr_backoff_ladder *
idle_ladder(const sr_wait *w)
{
	switch (w->config.kind) {
	case SR_WAIT_PHASED:
		return &w->phased;
	case SR_WAIT_BUSY_SPIN:
	case SR_WAIT_YIELD:
	case SR_WAIT_SLEEP:
		return &w->polling;
	default:
		return NULL;
	}
}

/* The consumer's last work: every ring drained, no new ring, the final batch ended. */
static void
last_drain(sr_log *log, sr_log_threads *t)
{
	pthread_mutex_lock(&t->lock);
	t->closed = true;
	pthread_mutex_unlock(&t->lock);
	for (;;) {
		bool more;
		int64_t taken = run_pass(log, t, &more);
		if (taken == 0 && !more)
			break;
	}
	/*
	 * The last batch end, whether or not a flush waits: it serves those
	 * asked so far; one asked after this load sees the consumer gone.
	 * Pairs with the flushers' add.
	 */
	end_batch_for_flushes(log, t, sr_atomic_load_acquire_i64(&t->flushes_asked));
	/* No ring registers after closed: spares could only wait for the close. */
	sr_log__threads_release_spares(t, INT64_MAX);
}

void *
sr_log__threads_consumer_main(void *arg)
{
	sr_log *log = arg;
	sr_log_threads *t = log->state;
	sr_log__consumer_thread_setup(log);
	const sr_backoff_ladder *ladder = idle_ladder(&t->wait);
	sr_backoff idle = SR_BACKOFF_INIT;
	bool idling = false, ladder_done = false;
	int64_t last_housekeeping = sr_monotonic_ns(), last_reclaim = last_housekeeping;
	uint32_t idle_steps = 0;
	/*
	 * The shallow park's bound: doubles while parks find nothing, back to
	 * the least on work; past the largest, parks are deep.
	 */
	int64_t park_ns = SR_LOG_THREADS_PARK_NS;
	for (;;) {
		bool more;
		int64_t taken = run_pass(log, t, &more);
		if (serve_flushes(log, t))
			more = true;
		if (taken > 0 || more) {
			idling = false;
			park_ns = SR_LOG_THREADS_PARK_NS;
			reclaim_when_due(t, sr_monotonic_ns(), &last_reclaim);
			continue;
		}
		/* pairs with stop's store-release */
		if (sr_atomic_load_acquire_i32(&t->stopping))
			break;
		if (!idling) {
			idling = true;
			/*
			 * The first pass that finds nothing: the rings of threads that
			 * exited meanwhile become spares now, ready for the next new
			 * thread (a worker started right after a flush), where there is
			 * room; those that need unmapping wait until the park below.
			 */
			reclaim_finished(t, false);
			ladder_done = ladder == NULL;
			if (ladder != NULL)
				sr_backoff_start(&idle, ladder);
		}
		if (!ladder_done && sr_backoff_step(&idle, ladder)) {
			/* Polling: look at the clock now and then only. */
			if ((++idle_steps & 255) != 0)
				continue;
		} else {
			ladder_done = true;
			/*
			 * About to sleep: the rings of exited threads are freed now,
			 * not at the first pass that finds nothing.  Unmapping a large
			 * ring takes milliseconds, which a record or a flush's notice
			 * published just after the last batch would otherwise wait.
			 */
			reclaim_finished(t, true);
			last_reclaim = sr_monotonic_ns();
			if (park_ns > SR_LOG_THREADS_PARK_MAX_NS) {
				/* Idle for a while: woken by the next call, else at the next housekeeping. */
				park(t, SR_LOG_THREADS_HOUSEKEEPING_NS, true);
			} else {
				park(t, park_ns, false);
				park_ns *= 2;
			}
		}
		int64_t now = sr_monotonic_ns();
		/* The polling kinds never park. */
		reclaim_when_due(t, now, &last_reclaim);
		if (now - last_housekeeping >= SR_LOG_THREADS_HOUSEKEEPING_NS) {
			/* Drop reports, counters, the clock's refresh, as the shared ring's timeout does. */
			sr_log__crash_checkpoint(&t->crash);
			sr_log__end_of_batch(log);
			sr_log__ring_files_batch_written(log);
			last_housekeeping = now;
		}
	}
	last_drain(log, t);
	/* pairs with the load-acquire of flushers and the crash handler: the consumer is gone */
	sr_atomic_store_release_i32(&t->running, 0);
	return NULL;
}

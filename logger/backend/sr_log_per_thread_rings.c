/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_per_thread_rings.c: the rings of the per-thread rings backend
 * (mode ring, producer per_thread) as things that are made, found and
 * freed: a thread's ring made on its first call and put on its logger's
 * list and on its thread's; the calling thread's cache of the ring it used
 * last; the thread key whose destructor finishes a thread's rings as it
 * exits; freeing a ring; and the pool of spare ring memory.  Both the
 * callers' side (sr_log_backend_per_thread.c) and the consumer
 * (sr_log_per_thread_consumer.c, which frees the rings of exited threads)
 * build on it.
 *
 * Reclaiming: a process-wide pthread key holds each thread's list of rings
 * (sr_log_ring_list); its destructor, as the thread exits, marks every
 * ring on it finished and frees the list.  The rings lock orders that with
 * a logger's close, which takes its rings off their threads' lists before
 * freeing them: neither side then reaches memory the other freed.
 */
#include "sr_log_backend_internal.h"
#include "sr_log_crash_internal.h"
#include "sr_log_thread_internal.h"
#include "sr_log_per_thread_internal.h"
#include "sr_log_ring_dir_internal.h"

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

/* The calling thread's list of rings. */
static __attribute__((tls_model("initial-exec"))) _Thread_local sr_log_ring_list *my_rings;

__attribute__((tls_model("initial-exec"))) _Thread_local sr_log_thread_ring_cache sr_log__my_last_ring;

void
sr_log__thread_ring_forget_cached(void)
{
	sr_log__my_last_ring.id = 0;
	sr_log__my_last_ring.ring = NULL;
	memset(&sr_log__my_fast.r, 0, sizeof sr_log__my_fast.r);
}

static const sr_log_rename_hook rename_hook = { sr_log__thread_ring_forget_cached };

uint64_t
sr_log__threads_new_key(void)
{
	sr_log__on_thread_rename(&rename_hook);
	/* Counters of ids only: no data rides on this add. */
	return (uint64_t)sr_atomic_faa_i64(&last_logger_id, 1) + 1;
}

/* ---------------------------------------------------------------------------------------- */
/* The threads' lists of rings                                                              */

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
	sr_log__thread_ring_forget_cached();
}

static void
make_rings_key(void)
{
	rings_key_error = pthread_key_create(&rings_key, thread_exits);
}

int
sr_log__thread_rings_init(void)
{
	pthread_once(&rings_once, make_rings_key);
	return rings_key_error;
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

sr_log_thread_ring *
sr_log__thread_ring_find(const sr_log_threads *t)
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

void
sr_log__threads_fork_global(int phase)
{
	/* After every logger's own locks (the consumer takes t->lock, then this one). */
	if (phase == SR_LOG_FORK_PREPARE)
		pthread_mutex_lock(&rings_lock);
	else
		pthread_mutex_unlock(&rings_lock);
}

void
sr_log__thread_rings_after_fork(sr_log_threads *t)
{
	/* The spares' files are the parent's too: private memory, the same bytes. */
	for (int i = 0; i < t->spare_count; i++)
		if (t->spare_files[i] != NULL)
			(void)sr_log__ring_file_privatize(t->spare_files[i]);
	/* The child, single-threaded: plain resets, under no one's eyes. */
	for (sr_log_crash_ring *cr = sr_atomic_load_acquire_ptr(&t->crash.rings); cr != NULL;
	     cr = sr_atomic_load_acquire_ptr(&cr->next)) {
		sr_log_thread_ring *p = sr_log__thread_ring_of_crash(cr);
		/* A child's ring in the parent's file would be the parent's too: private memory, the same bytes. */
		if (p->file != NULL)
			(void)sr_log__ring_file_privatize(p->file);
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
}

/* ---------------------------------------------------------------------------------------- */
/* Spare rings                                                                              */

/* A spare's memory let go: unmapped; a ring directory's file (drained) removed with it. */
static void
spare_free(sr_log_threads *t, sr_ring *memory, sr_log_ring_file *file)
{
	if (file != NULL) {
		sr_log__ring_dir_ring_closed(t->log, file, true);
		free(memory);
		return;
	}
	sr_ring_destroy(memory);
}

void
sr_log__thread_ring_retire(sr_log_threads *t, sr_log_thread_ring *p)
{
	sr_ring *memory = p->ring;
	sr_log_ring_file *file = p->file;
	/* A file's sequencer goes with it (the next thread carries on its sequence): ungated first. */
	if (file != NULL)
		(void)sr_sequencer_remove_gating(p->seq, &p->consumed);
	p->ring = NULL;
	p->file = NULL;
	if (file != NULL)
		p->seq = NULL;  /* in the file: it goes with the spare */
	pthread_mutex_lock(&t->lock);
	if (t->spare_count < SR_LOG_THREADS_SPARES && !t->closed) {
		t->spares[t->spare_count] = memory;
		t->spare_files[t->spare_count] = file;
		t->spare_since[t->spare_count] = sr_monotonic_ns();
		t->spare_count++;
		memory = NULL;
		file = NULL;
	}
	pthread_mutex_unlock(&t->lock);
	/* Full (or closing): unmapped after all, outside the lock. */
	spare_free(t, memory, file);
	sr_log__thread_ring_free(p);
}

/* A spare ring's memory (and its file, for a ring directory), the most recently used, or NULL. */
static sr_ring *
take_spare(sr_log_threads *t, sr_log_ring_file **file)
{
	sr_ring *r = NULL;
	*file = NULL;
	pthread_mutex_lock(&t->lock);
	if (t->spare_count > 0) {
		t->spare_count--;
		r = t->spares[t->spare_count];
		*file = t->spare_files[t->spare_count];
		t->spares_reused++;
	}
	pthread_mutex_unlock(&t->lock);
	return r;
}

void
sr_log__threads_release_spares(sr_log_threads *t, int64_t now)
{
	sr_ring *old[SR_LOG_THREADS_SPARES];
	sr_log_ring_file *old_files[SR_LOG_THREADS_SPARES];
	int n = 0;
	pthread_mutex_lock(&t->lock);
	/* The oldest are first: release a prefix, shift the rest down. */
	while (n < t->spare_count && (now == INT64_MAX || now - t->spare_since[n] >= SR_LOG_THREADS_SPARE_NS)) {
		old[n] = t->spares[n];
		old_files[n] = t->spare_files[n];
		n++;
	}
	for (int i = n; i < t->spare_count; i++) {
		t->spares[i - n] = t->spares[i];
		t->spare_files[i - n] = t->spare_files[i];
		t->spare_since[i - n] = t->spare_since[i];
	}
	t->spare_count -= n;
	pthread_mutex_unlock(&t->lock);
	/* Unmapping takes time: outside the lock, which new threads' first calls take. */
	for (int i = 0; i < n; i++)
		spare_free(t, old[i], old_files[i]);
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

/* ---------------------------------------------------------------------------------------- */
/* Making and freeing a ring                                                                */

/*
 * The ring's memory and sequencer: in its file (removed when the ring was
 * written to its end: a ring left with records is the next open's to
 * recover), or on the heap.
 */
static void
ring_memory_free(sr_log_thread_ring *p)
{
	if (p->file != NULL) {
		bool drained = sr_sequence_get(&p->consumed) >= sr_sequencer_cursor(p->seq);
		sr_log__ring_dir_ring_closed(p->owner->log, p->file, drained);
		free(p->ring);
		return;
	}
	/* A retired ring's memory became a spare (ring NULL); its sequencer is its own. */
	sr_sequencer_destroy(p->seq);
	sr_ring_destroy(p->ring);
}

/* A new ring for the calling thread and t: allocated, touched, gated; NULL when it cannot. */
static sr_log_thread_ring *
ring_new(sr_log_threads *t)
{
	sr_log_thread_ring *p = aligned_alloc(SR_CACHELINE, (sizeof *p + SR_CACHELINE - 1) / SR_CACHELINE * SR_CACHELINE);
	if (p == NULL)
		return NULL;
	memset(p, 0, sizeof *p);
	sr_sequencer_config sc;
	sr_sequencer_config_default(&sc, t->slots, SR_PRODUCER_SINGLE);
	/* busyspin: publishers never signal; the consumer's waking is this backend's own. */
	sr_wait_config_default(&sc.wait, SR_WAIT_BUSY_SPIN);
	const sr_log_thread *self = sr_log__thread();
	p->owner = t;
	sr_log_ring_file *spare_file;
	sr_ring *spare = take_spare(t, &spare_file);
	if (spare_file != NULL) {
		/*
		 * An exited thread's ring file, drained: its sequencer carries on
		 * from its cursor (a restart at the first sequence would make its
		 * written records unread ones to a recovery), under the new writer.
		 */
		p->ring = spare;
		p->file = spare_file;
		p->seq = sr_log__ring_file_sequencer(spare_file);
		sr_log__ring_file_set_writer(spare_file, self->tid, self->name);
	} else if (sr_log__ring_dir_active(t->log)) {
		/* In the ring directory: the same slots and publish, in a file that outlives the process. */
		p->ring = malloc(sizeof *p->ring);
		sr_error err = { 0 };
		p->file = p->ring == NULL ? NULL : sr_log__ring_dir_make_ring(t->log, SR_LOG_RING_FILE_THREAD, t->slots,
		    SR_LOG__THREAD_SLOT, self->tid, self->name, &sc, p->ring, &p->seq, &err);
		if (p->file == NULL) {
			sr_log__ring_dir_refused(t->log, p->ring == NULL ? "out of memory" : err.message);
			free(p->ring);
			free(p);
			return NULL;
		}
	} else {
		/*
		 * An exited thread's ring memory if one is spare (its old records lie
		 * beyond the new sequencer's cursor: never read); else a new ring, which
		 * sr_ring_create touches page by page now, not on the ring's first lap.
		 */
		p->ring = spare;
		if (p->ring == NULL)
			p->ring = sr_ring_create(t->slots, SR_LOG__THREAD_SLOT, NULL, NULL, NULL);
		p->seq = p->ring != NULL ? sr_sequencer_create(&sc, NULL) : NULL;
		if (p->seq == NULL) {
			sr_ring_destroy(p->ring);
			free(p);
			return NULL;
		}
	}
	/* A new sequencer's cursor is SR_SEQUENCE_INITIAL; a spare file's, where its last thread left it. */
	int64_t start = sr_sequencer_cursor(p->seq);
	sr_sequence_init(&p->consumed, start);
	if (sr_sequencer_add_gating(p->seq, &p->consumed) != SR_OK) {
		ring_memory_free(p);
		free(p);
		return NULL;
	}
	p->owner_id = t->hot.id;
	p->c.next = start + 1;
	p->c.avail = p->c.seen = start;
	/* The writer as the consumer first sees it (the ring's publication orders these). */
	p->writer.tid = self->tid;
	memcpy(p->writer.name, self->name, sizeof p->writer.name);
	p->name_gen = self->name_gen;
	sr_log__crash_ring_init(&p->crash, p->ring, p->seq, &p->consumed);
	p->crash.writer = &p->writer;
	p->crash.file = p->file;
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

sr_log_thread_ring *
sr_log__thread_ring_make(sr_log_threads *t)
{
	sr_log_ring_list *mine = my_ring_list();
	sr_log_thread_ring *p;
	if (mine == NULL || (p = ring_new(t)) == NULL)
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
	return p;
}

void
sr_log__thread_ring_free(sr_log_thread_ring *p)
{
	pthread_mutex_lock(&rings_lock);
	unlink_from_thread(p);
	pthread_mutex_unlock(&rings_lock);
	ring_memory_free(p);
	free(p);
}

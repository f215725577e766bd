/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_backend_internal.h: how records travel from the caller to the
 * sinks, behind one small interface chosen once, at open (internal).
 *
 *   ring   the Disruptor path: callers copy records into a ring, one
 *          consumer thread (a batch processor) formats and writes them
 *          (sr_log_backend_ring.c);
 *   per-thread rings (mode ring, producer per_thread): each calling thread
 *          copies records into a single-producer ring of its own, one
 *          consumer thread merges the rings in timestamp order
 *          (sr_log_backend_per_thread.c, sr_log_per_thread_consumer.c);
 *   queue  a baseline: callers format, then enqueue the line in a bounded
 *          mutex + condition-variable queue drained by one thread
 *          (sr_log_backend_queue.c);
 *   sync   a baseline: callers format and write under one mutex
 *          (sr_log_backend_sync.c).
 *
 * The frontend (sr_log_frontend.c) writes a record into the room try_claim
 * gives and commits it, or, when there is none (a full ring, a baseline
 * backend, a record to cut), builds it and calls `emit`; the lifecycle
 * (sr_log_lifecycle.c) calls the rest.  Each backend keeps its
 * state in log->state, a struct its own file defines.
 */
#ifndef SR_LOG_BACKEND_INTERNAL_H
#define SR_LOG_BACKEND_INTERNAL_H

#include <pthread.h>
#include <time.h>

#include "sr_log_internal.h"
#include "sr_wait.h"

/* A claim of room for one record in a ring, made by try_claim, published by commit. */
typedef struct sr_log_claim {
	sr_ring_writer w;         /* positioned at the record's first byte */
	void *ring;               /* the backend's: which ring (and sequencer) the claim is in */
	int64_t first, last;      /* the claimed sequences */
} sr_log_claim;

struct sr_log_backend {
	/* Records carry the short header of a thread's ring (sr_log__thread_rec), not sr_log_rec. */
	bool thread_records;
	/* Creates the state and starts the consumer, if any; on error the state may stay for destroy. */
	int (*start)(sr_log *log, const sr_log_config *c, const sr_wait_config *wait, sr_error *err);
	/* The hot path: take one record (h, then g's arguments; g is NULL for a header-only record). */
	void (*emit)(sr_log *log, const sr_log_rec *h, const sr_fmt_gather *g);
	/*
	 * The caller's fast path: claim room for a record of `size` bytes on the calling
	 * thread's ring without waiting; true with *c ready to write, false when there is no
	 * room now or the backend takes records only through emit (the caller then builds the
	 * record and calls emit, which applies the full-queue policy).  NULL: always emit.
	 */
	bool (*try_claim)(sr_log *log, size_t size, sr_log_claim *c);
	/* Publishes what try_claim claimed, once the caller wrote the record through c->w. */
	void (*commit)(sr_log *log, const sr_log_claim *c);
	/*
	 * Caches in the calling thread's sr_log__my_fast what the macros' inline
	 * calls need to write this logger's records themselves (sr_log_fast.h);
	 * NULL: the backend has no such path, or fills it itself.
	 */
	void (*cache_inline)(sr_log *log);
	/* sr_log_flush: every record taken before the call is in the sinks.  SR_OK or SR_ESTATE. */
	int (*flush)(sr_log *log);
	/* sr_log_thread_prepare: makes the calling thread's room now (NULL: nothing to make). */
	int (*prepare)(sr_log *log);
	/* sr_log_dump_backtrace (NULL: the backend keeps no backtrace). */
	int (*dump_backtrace)(sr_log *log);
	/*
	 * True when everything published so far has been written (nothing waits
	 * in the ring or the queue): the exit handler's bounded wait polls it.
	 * NULL: always (sync).
	 */
	bool (*idle)(sr_log *log);
	/* Shutdown, on the closing thread: write what was taken and stop the consumer. */
	void (*stop)(sr_log *log);
	/*
	 * fork(2), from sr_log_lifecycle.c's pthread_atfork handlers, with the logger's
	 * life_lock held: SR_LOG_FORK_PREPARE takes the backend's locks (waiting
	 * for work in flight, such as a batch being drained), so that the
	 * child's copy of its state is consistent; _PARENT releases them;
	 * _CHILD releases them and, unless the logger was shutting down, starts
	 * the consumer again after everything the parent had taken (the
	 * parent writes that; the child writes only its own calls).
	 */
	void (*fork)(sr_log *log, int phase);
	/* Frees the state (after stop, or after a failed start). */
	void (*destroy)(sr_log *log);
};

/*
 * The phases of `fork`; _CHILD_STOPPED (SR_LOG_FORK_DROP) releases the locks
 * like _CHILD but starts nothing: the backend is left not started, so that
 * stop and destroy wait for no thread (the child's calls go to
 * sr_log__dropping_backend instead).
 */
/* A condition variable whose timed waits use CLOCK_MONOTONIC (made anew in a forked child too). */
static inline int
sr_log__cond_init_monotonic(pthread_cond_t *cond)
{
	pthread_condattr_t ca;
	int e = pthread_condattr_init(&ca);
	if (e == 0)
		e = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	if (e == 0)
		e = pthread_cond_init(cond, &ca);
	pthread_condattr_destroy(&ca);
	return e;
}

enum { SR_LOG_FORK_PREPARE, SR_LOG_FORK_PARENT, SR_LOG_FORK_CHILD, SR_LOG_FORK_CHILD_STOPPED };

extern const sr_log_backend sr_log__ring_backend;
/* The ring backend for a wait strategy whose publish locks: nested calls (signal handlers) drop. */
extern const sr_log_backend sr_log__ring_backend_locking;
extern const sr_log_backend sr_log__threads_backend;
extern const sr_log_backend sr_log__queue_backend;
extern const sr_log_backend sr_log__sync_backend;
/* A forked child's with SR_LOG_FORK_DROP: every call dropped, counted (backend/sr_log_backend_dropping.c). */
extern const sr_log_backend sr_log__dropping_backend;

#endif /* SR_LOG_BACKEND_INTERNAL_H */

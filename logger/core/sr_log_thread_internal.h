/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_thread_internal.h: what the logger keeps per thread (internal).
 * Each thread's own, so nothing here is locked, except the two call
 * counters that a closing thread reads (see "Calls in progress" below).
 */
#ifndef SR_LOG_THREAD_INTERNAL_H
#define SR_LOG_THREAD_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "sr_atomic.h"
#include "sr_log.h"
#include "sr_log_category.h"

typedef struct sr_log_thread {
	bool init;
	bool named;               /* name set by sr_log_thread_name */
	int in_sink;              /* depth of sink writes on this thread */
	const sr_log *consumer_of;/* set on a logger's consumer thread */
	uint32_t tid;
	uint32_t name_gen;        /* bumped by sr_log_thread_name: per-thread rings tell the consumer */
	char name[16];
	/*
	 * Calls in progress: `calls` counts the thread's outermost log calls'
	 * entries and exits (odd: inside one), `nested` the calls a signal
	 * handler made inside one.  Only this thread writes them; a closer
	 * reads `calls`.
	 */
	int nested;
	/*
	 * This thread's calls in progress and the category of the outermost one
	 * (&sr_log__my_fast, sr_log_fast.h: the inline calls mark themselves
	 * there too); a closer reads them through this pointer.
	 */
	sr_log__fast *fast;
	/* On the process's list of threads that ever logged (sr_log_thread.c), under its lock. */
	bool registered;
	uint64_t reg_id;
	struct sr_log_thread *reg_prev, *reg_next;
} sr_log_thread;

extern _Thread_local sr_log_thread sr_log__self;
/* Fills in the thread id and, unless named, the default name. */
void sr_log__thread_init(sr_log_thread *t);
/*
 * What else a thread's new name must reset: a backend that caches state
 * derived from the name (the per-thread rings cache the thread's ring, whose
 * records carry the name) registers its hook once, before any thread can
 * have cached anything, so that this file calls up into no backend.
 */
typedef struct sr_log_rename_hook {
	void (*thread_renamed)(void);   /* runs on the renamed thread */
} sr_log_rename_hook;
void sr_log__on_thread_rename(const sr_log_rename_hook *hook);

/* The calling thread's state, initialised on first use. */
static inline sr_log_thread *
sr_log__thread(void)
{
	sr_log_thread *self = &sr_log__self;
	if (__builtin_expect(!self->init, 0))
		sr_log__thread_init(self);
	return self;
}

/*
 * True when this call interrupted another log call on the same thread: a
 * signal handler that logs.  Such a call must take no lock and wait for
 * nothing (the interrupted call may hold the lock, or the room it waits
 * for): each backend writes it lock-free or drops it, counted.
 */
static inline bool
sr_log__nested_call(void)
{
	return sr_log__self.nested > 0;
}

/* True on any seqring logger's consumer thread, inside a sink write or in a nested call. */
static inline bool
sr_log__must_not_wait(void)
{
	return sr_log__self.consumer_of != NULL || sr_log__self.in_sink > 0 || sr_log__nested_call();
}

/* ---------------------------------------------------------------------------------------- */
/* Calls in progress                                                                        */

/*
 * A log call marks itself in progress before it reads anything of the
 * logger but its category's level, and unmarks itself when it is done; a
 * shutdown or close first sets every category's level, then waits until
 * every call in progress has left (sr_log__calls_quiesce).  The two sides
 * are a Dekker hand-off, store then load on each: the caller stores
 * `calls` and loads the category's level; the closer stores the levels and
 * loads `calls`.  The StoreLoad barrier it needs is the closer's alone,
 * membarrier(2) (MEMBARRIER_CMD_PRIVATE_EXPEDITED makes every running
 * thread of the process pass a full barrier), so the call pays two plain
 * stores to its own thread's memory.  Where membarrier is unavailable,
 * sr_log__callers_fence is 1 and the caller fences instead.
 *
 * So a caller either is seen in progress (the closer waits for it, and the
 * logger stays valid until it leaves) or sees the new level: off after a
 * shutdown began (the logger is valid: it is counted as dropped there), or
 * SR_LOG__CLOSED once sr_log_close began (it touches nothing but its
 * category, which outlives the logger).
 */
/* sr_log__callers_fence: declared in sr_log_fast.h (the inline calls read it). */

/* A category's level once its logger is closed: above off, so that every check fails. */
#define SR_LOG__CLOSED (SR_LOG_OFF + 1)

/* Marks a call through cat in progress on this thread; returns the thread's state. */
static inline sr_log_thread *
sr_log__call_enter(sr_category *cat)
{
	sr_log_thread *self = sr_log__thread();
	int32_t calls = sr_atomic_load_relaxed_i32(&sr_log__my_fast.calls);
	if (__builtin_expect(calls & 1, 0)) {
		/*
		 * Inside a call already: a signal handler's.  The outer call keeps
		 * the closer waiting; no category says which logger now, so a
		 * closer of any logger waits (as for the outer call, the store
		 * then the level's load, against the closer's membarrier).
		 */
		self->nested++;
		sr_atomic_store_release_ptr(&sr_log__my_fast.call_cat, NULL);
		if (__builtin_expect(sr_atomic_load_relaxed_i32(&sr_log__callers_fence) != 0, 0))
			sr_atomic_fence_seq_cst(); /* pairs with the closer's fence in sr_log__calls_quiesce */
		return self;
	}
	/*
	 * Only this thread writes them.  The release orders call_cat before
	 * calls for the closer's load-acquire of calls; the membarrier orders
	 * calls before the level's load (above).
	 */
	sr_atomic_store_release_ptr(&sr_log__my_fast.call_cat, cat);
	sr_atomic_store_release_i32(&sr_log__my_fast.calls, calls + 1);
	if (__builtin_expect(sr_atomic_load_relaxed_i32(&sr_log__callers_fence) != 0, 0))
		sr_atomic_fence_seq_cst(); /* pairs with the closer's fence in sr_log__calls_quiesce */
#if defined(SR_ATOMIC_C11)
	/* The store stays before the call's loads (ck_pr's volatile accesses keep their order). */
	atomic_signal_fence(memory_order_seq_cst);
#endif
	return self;
}

/* The call is done with the logger. */
static inline void
sr_log__call_leave(sr_log_thread *self)
{
	if (__builtin_expect(self->nested > 0, 0)) {
		self->nested--;
		return;
	}
	/* pairs with the closer's load-acquire: what the call did to the logger comes before */
	sr_atomic_store_release_i32(&sr_log__my_fast.calls, sr_atomic_load_relaxed_i32(&sr_log__my_fast.calls) + 1);
}

/* Once per process, at the first open: chooses membarrier or the callers' fence. */
void sr_log__calls_setup(void);
/*
 * The slow side's barrier of a Dekker hand-off whose fast side (the callers)
 * has only a compiler barrier between its store and its load: every running
 * thread of the process passes a full barrier (membarrier(2),
 * MEMBARRIER_CMD_PRIVATE_EXPEDITED).  False where membarrier is unavailable
 * or failed: the caller must then not rely on it (nor has anything been
 * ordered).
 */
bool sr_log__callers_barrier(void);
/*
 * Waits until every other thread that was inside a log call through one of
 * log's categories when this was called has left it, or until deadline_ns
 * (sr_monotonic_ns; INT64_MAX: no bound).  Call it after changing the
 * categories' levels.  False on timeout.
 */
bool sr_log__calls_quiesce(const sr_log *log, int64_t deadline_ns);
/* In a forked child: the only thread is this one; forget the others. */
void sr_log__calls_after_fork(void);

#endif /* SR_LOG_THREAD_INTERNAL_H */

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_per_thread_internal.h: the per-thread rings backend (mode ring,
 * producer per_thread), shared by its files, bottom first:
 * sr_log_per_thread_rings.c (the rings made, found, finished and freed; the
 * spares), sr_log_per_thread_consumer.c (the consumer that merges the
 * rings), sr_log_per_thread_start.c (start, stop, fork) and
 * sr_log_backend_per_thread.c (the callers' claim and publish, flush, the
 * backend's table); and by sr_log_crash.c (internal).
 *
 * Each thread that logs gets a ring of its own (an sr_log_thread_ring): an
 * sr_ring with a single-producer sequencer whose wait strategy is busyspin,
 * so that a publish is one store-release of the cursor and never signals.
 * The ring is made on the thread's first call through the logger (the only
 * allocation and page touching on that thread), found on later calls in a
 * thread-local cache keyed by the logger's id (one load and compare), put on
 * the logger's list of rings under the logger's lock, and gated on the
 * consumer's sequence for that ring.  The cache holds one logger: a thread
 * that alternates between two loggers finds its ring in its list, under a
 * process-wide mutex, at every switch.  When the thread exits, a pthread key
 * destructor marks its rings finished; the consumer frees a finished ring
 * once it has drained it.
 *
 * The consumer (one thread) merges the rings: each pass reads the clock
 * first (bound), then the list of rings, then every ring's cursor, then
 * takes, earliest first, the head records whose timestamp is at most bound
 * (or that were already published at the previous pass's look), up to
 * SR_LOG_THREADS_MAX_BATCH records.  At the end of the pass it writes the
 * sinks' buffers and store-releases its sequence on each ring it read,
 * which frees the room for that ring's producer.  Order: within a thread,
 * exact; across threads, a record r comes out after a record stamped later
 * only if r was published after the pass that wrote the later one read r's
 * cursor, and the later one's timestamp is then at most r's publish time:
 * the inversion is at most r's own time between its clock read and its
 * publish.
 *
 * Waking: when a pass finds nothing, the consumer spins and yields as the
 * logger's wait strategy says, then parks on a condition variable: shallow
 * parks first, for at most SR_LOG_THREADS_PARK_NS, doubling to
 * SR_LOG_THREADS_PARK_MAX_NS while it stays idle, then deep parks of
 * SR_LOG_THREADS_HOUSEKEEPING_NS.  A caller reads the "parked" flag with a
 * plain (relaxed) load after its publish, with only a compiler barrier
 * between, and wakes the consumer only when it is set: no fence on the
 * call.  Without a StoreLoad fence the caller may read the flag before its
 * publish is visible, and a consumer in a shallow park may then sleep
 * without seeing the record: that record waits at most the park's bound
 * (SR_LOG_THREADS_PARK_MAX_NS, and only within about twice that of idle).
 * A deep park supplies the callers' half of the fence itself: after setting
 * the flag it calls membarrier(2), which makes every running thread of the
 * process pass a full barrier, so no record is missed (where membarrier is
 * unavailable, every park is shallow).  The membarrier costs each running
 * thread an interrupt, once per idle spell of SR_LOG_THREADS_PARK_MAX_NS
 * or more.  Flush, dump and a caller facing a full ring fence before they
 * look, so they never wait on a bound.
 */
#ifndef SR_LOG_THREADS_INTERNAL_H
#define SR_LOG_THREADS_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sr_log_crash_state_internal.h"
#include "sr_log_internal.h"
#include "sr_log_record_internal.h"
#include "sr_ring.h"
#include "sr_sequencer.h"
#include "sr_wait.h"

/*
 * A consumer in a shallow park wakes after at most SR_LOG_THREADS_PARK_NS,
 * and while its parks keep finding nothing the bound doubles up to
 * SR_LOG_THREADS_PARK_MAX_NS (1, 2, 4, 8 ms: about the wait of Log4j 2's
 * Timeout strategy): the cost of a missed wake-up is at most the first
 * after work, the last within 15 ms of idle.  Then its parks are deep (no
 * wake-up is missed) and last until the next housekeeping: an idle consumer
 * wakes about ten times a second.
 */
#define SR_LOG_THREADS_PARK_NS (1000 * INT64_C(1000))
#define SR_LOG_THREADS_PARK_MAX_NS (8 * INT64_C(1000000))
/* Records one pass takes at most, across rings, before it writes and frees room. */
#define SR_LOG_THREADS_MAX_BATCH 4096
/* While idle, drop reports and the clock's refresh run this often. */
#define SR_LOG_THREADS_HOUSEKEEPING_NS (100 * INT64_C(1000000))
/*
 * Spare rings: the memory of an exited thread's ring, drained, is kept for
 * the next thread's first call (at most SR_LOG_THREADS_SPARES of them, each
 * unmapped once unused for SR_LOG_THREADS_SPARE_NS).  Making a ring maps
 * and touches all of its memory; a spare is ready at once.
 */
#define SR_LOG_THREADS_SPARES 4
#define SR_LOG_THREADS_SPARE_NS (1000 * INT64_C(1000000))

struct sr_log_threads;
struct sr_log_ring_list;

/* One thread's ring. */
typedef struct sr_log_thread_ring {
	/* Set at creation, then only read: what the caller's claim and publish use. */
	sr_ring *ring;
	sr_sequencer *seq;            /* single producer, busyspin */
	struct sr_log_ring_file *file; /* with a ring directory: the file the ring and seq lie in; else NULL */
	struct sr_log_threads *owner;
	uint64_t owner_id;            /* the logger's id (the threads' cache key) */
	/* The consumer's progress on this ring (store-release after each batch): gates the producer. */
	sr_sequence consumed;
	/* 1 once the thread exited (store-release by its key destructor): nothing more comes. */
	sr_atomic_i32 finished;
	/* The writer's name and id as the consumer knows them (SR_REC_THREAD_NAME renames). */
	sr_log_writer writer;
	/* The owner thread's own: the name generation its records have told (sr_log_thread.name_gen). */
	uint32_t name_gen;
	/* The thread's list of rings, under the process-wide rings lock (sr_log_per_thread_rings.c). */
	struct sr_log_thread_ring *thread_next;
	struct sr_log_ring_list *thread;   /* NULL once the thread exited */
	/* The consumer's own, on lines of their own. */
	struct {
		char pad_before[SR_CACHELINE];
		int64_t next;             /* the next sequence to read */
		int64_t avail;            /* the cursor at this pass's look */
		int64_t seen;             /* the cursor at the previous pass's look */
		int64_t head_ts;          /* the timestamp of the record at next (merge key) */
		char pad_after[SR_CACHELINE - 4 * sizeof(int64_t)];
	} __attribute__((aligned(SR_CACHELINE))) c;
	/* On the logger's list of rings (crash.next links them); the handler's view. */
	sr_log_crash_ring crash;
} sr_log_thread_ring;

/* The state of a logger with producer per_thread. */
typedef struct sr_log_threads {
	/* Read by every call: the cache key and the park flag, on a line of their own. */
	struct {
		char pad_before[SR_CACHELINE];
		uint64_t id;              /* unique per logger opened in this process, never 0 */
		/* 1 while the consumer parks: it writes it, callers read it relaxed. */
		sr_atomic_i32 parked;
		char pad_after[SR_CACHELINE - sizeof(uint64_t) - sizeof(int32_t)];
	} __attribute__((aligned(SR_CACHELINE))) hot;
	int64_t slots;                /* each ring's */
	sr_log *log;                  /* the logger (its ring directory makes the rings' files) */
	bool batch_notice;            /* the consumer's: this batch took a flush's or a dump's notice */
	pthread_mutex_t park_lock;
	pthread_cond_t park_cond;     /* CLOCK_MONOTONIC */

	/*
	 * The list of rings (crash.rings) and what guards it: writers hold
	 * lock; `changes` is bumped (store-release) when the list changes.
	 * pins counts flushers walking the list: no ring is freed meanwhile.
	 */
	pthread_mutex_t lock;
	sr_atomic_i64 changes;
	int pins;
	bool closed;                  /* the consumer's last drain began: no new ring */
	sr_atomic_i64 made, freed;    /* rings, for sr_log_describe (no data rides on them) */
	/*
	 * Flushes from threads without a ring, which have no notice to publish:
	 * each adds one to asked; the consumer ends a batch (sinks' buffers,
	 * drop reports) and sets done to asked (store-release).
	 */
	sr_atomic_i64 flushes_asked;
	sr_sequence flushes_done;
	/* Under lock: spare rings' memory, the oldest first, and since when each is unused. */
	sr_ring *spares[SR_LOG_THREADS_SPARES];
	struct sr_log_ring_file *spare_files[SR_LOG_THREADS_SPARES]; /* a ring directory's: the spare's file */
	int64_t spare_since[SR_LOG_THREADS_SPARES];
	int spare_count;
	int64_t spares_reused;        /* spares a new thread's ring took, for sr_log_describe */

	/* The consumer thread. */
	pthread_t thread;
	bool started;
	sr_atomic_i32 running;        /* 1 from start until the last drain is done */
	sr_atomic_i32 stopping;       /* store-release by stop */
	sr_wait wait;                 /* the logger's wait strategy: its idle ladders */
	/* The consumer's own (the closer's after join). */
	int64_t seen_changes;
	sr_log_thread_ring **rings;      /* the list, as an array */
	sr_log_thread_ring **heap;       /* the pass's heads, earliest first */
	int count, cap, heap_len;
	unsigned char *scratch;       /* a record copied out when it wraps */
	/*
	 * Hand each record's lines back once read (sr_cache_internal.h): while
	 * the rings' bytes are under evict_limit (0: this CPU cannot).
	 */
	bool evict;
	size_t evict_limit;

	sr_log_crash crash;
} sr_log_threads;

/* The ring whose crash view is cr. */
static inline sr_log_thread_ring *
sr_log__thread_ring_of_crash(sr_log_crash_ring *cr)
{
	return (sr_log_thread_ring *)(void *)((char *)cr - offsetof(sr_log_thread_ring, crash));
}

/* ---- sr_log_per_thread_rings.c ---- */

/*
 * The calling thread's cache: the logger (its id) and the ring it used
 * last, so that its next call through that logger finds the ring with one
 * compare.  Id 0: none.
 */
typedef struct sr_log_thread_ring_cache {
	uint64_t id;
	sr_log_thread_ring *ring;
} sr_log_thread_ring_cache;
extern __attribute__((tls_model("initial-exec"))) _Thread_local sr_log_thread_ring_cache sr_log__my_last_ring;

/*
 * A new key for a logger with per-thread rings: never 0, never reused in the
 * process.  It also registers the backend's rename hook (a renamed thread
 * forgets its cached ring, so that its next record tells the new name).
 */
uint64_t sr_log__threads_new_key(void);
/* Forgets the calling thread's cached ring and the inline calls' copy: its next call looks it up. */
void sr_log__thread_ring_forget_cached(void);
/* Makes, once in the process, the thread key that holds each thread's rings: 0, or pthread_key_create's error. */
int sr_log__thread_rings_init(void);
/* The calling thread's ring for t, looked up in its list; NULL when it has none. */
sr_log_thread_ring *sr_log__thread_ring_find(const sr_log_threads *t);
/*
 * Makes the calling thread's ring for t (a spare's memory if there is one)
 * and puts it on t's list and on the thread's; NULL when out of memory or
 * once the consumer's last drain began.
 */
sr_log_thread_ring *sr_log__thread_ring_make(sr_log_threads *t);
/* Frees a ring (its thread exited, or the logger closes); unlinks it from its thread first. */
void sr_log__thread_ring_free(sr_log_thread_ring *p);
/* Frees a drained ring of an exited thread but keeps its memory as a spare when there is room. */
void sr_log__thread_ring_retire(sr_log_threads *t, sr_log_thread_ring *p);
/* Unmaps the spares unused since before now - SR_LOG_THREADS_SPARE_NS (INT64_MAX: every one). */
void sr_log__threads_release_spares(sr_log_threads *t, int64_t now);
/* Spare rings kept now (a snapshot), and (reused, if not NULL) how many spares new rings took so far. */
int sr_log__threads_spare_count(sr_log_threads *t, int64_t *reused);
/* fork: the process-wide rings lock, taken after every logger's (SR_LOG_FORK_* phases). */
void sr_log__threads_fork_global(int phase);
/*
 * In a forked child, under t's locks: every ring taken as consumed up to
 * its cursor; the rings of the threads not in the child finished and their
 * threads' lists freed.
 */
void sr_log__thread_rings_after_fork(sr_log_threads *t);

/* ---- sr_log_per_thread_consumer.c ---- */

/* The consumer thread's body (arg: the logger). */
void *sr_log__threads_consumer_main(void *arg);
/* True when the consumer would find something to do now (its last look before parking). */
bool sr_log__threads_work_visible(sr_log_threads *t);

/* ---- sr_log_per_thread_start.c: the backend's start, stop, fork and destroy ---- */

int sr_log__threads_start(sr_log *log, const sr_log_config *c, const sr_wait_config *wait, sr_error *err);
void sr_log__threads_stop(sr_log *log);
void sr_log__threads_fork(sr_log *log, int phase);
void sr_log__threads_destroy(sr_log *log);

/* ---- sr_log_backend_per_thread.c ---- */

/* Wakes a parked consumer (out of line: only when a caller saw the flag). */
void sr_log__threads_wake(sr_log_threads *t);
/* Rings now on the list, made and freed since open; false when the logger has no per-thread rings. */
bool sr_log__threads_counts(const sr_log *log, int64_t *live, int64_t *made, int64_t *freed);

#endif /* SR_LOG_THREADS_INTERNAL_H */

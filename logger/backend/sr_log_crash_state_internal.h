/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_crash_state_internal.h: what a backend with a consumer thread
 * keeps in its state for the crash handler (sr_log_crash.c), which reads
 * its rings from a signal handler (internal).  The backends' state headers
 * (sr_log_ring_internal.h, sr_log_per_thread_internal.h) embed it; the
 * handler's functions are in sr_log_crash_internal.h.
 *
 * A logger in ring mode has one ring (producer shared) or one ring per
 * logging thread (producer per_thread).  Each is an sr_log_crash_ring on a
 * list that starts at sr_log_crash.rings; the handler writes every record
 * published in any of them that the consumer has not written, merged in
 * timestamp order.  Writers of the list hold the backend's lock and store
 * with release; the handler walks it with acquire loads.  A backend frees a
 * ring it has taken off the list only when sr_log__crash_may_free says no
 * handler can be reading it.  The handler finds a logger's crash state in
 * its backend's state (sr_log__ring_backend_state).
 */
#ifndef SR_LOG_CRASH_STATE_INTERNAL_H
#define SR_LOG_CRASH_STATE_INTERNAL_H

#include <stdint.h>

#include "sr_log_internal.h"
#include "sr_ring.h"
#include "sr_sequencer.h"

/* States of sr_log_crash.state. */
enum { SR_LOG_CRASH_NONE = 0, SR_LOG_CRASH_DRAIN = 1, SR_LOG_CRASH_TAKEOVER = 2 };

/* One ring as the crash handler reads it. */
typedef struct sr_log_crash_ring {
	sr_atomic_ptr next;            /* the logger's next ring, NULL after the last */
	sr_ring *ring;
	sr_sequencer *seq;
	const sr_sequence *progress;   /* the consumer's sequence on this ring, set after each batch */
	sr_atomic_i64 handled_seq;     /* consumer: last sequence whose line is in the sinks' buffers */
	int64_t from, target;          /* the handler's own */
	struct sr_log_writer *writer;  /* a thread's ring: its short records' writer; NULL: full records */
	struct sr_log_ring_file *file; /* with a ring directory: the ring's file (its written and pending sequences) */
} sr_log_crash_ring;

/* A logger's crash state, in its backend's state. */
typedef struct sr_log_crash {
	sr_atomic_ptr rings;           /* the first sr_log_crash_ring, or NULL */
	sr_atomic_i32 installed;
	sr_atomic_i32 state;           /* SR_LOG_CRASH_*, while a handler runs */
	sr_atomic_i32 parked;          /* the consumer stopped for the handler */
	unsigned char *rec;            /* the handler's record and line buffers (no malloc there) */
	char *line;
} sr_log_crash;

/*
 * The state of a logger's backend in ring mode with the given producer (an
 * sr_log_ring for SR_LOG_PRODUCER_SHARED, sr_log_ring_internal.h; an
 * sr_log_threads for SR_LOG_PRODUCER_PER_THREAD, sr_log_per_thread_internal.h),
 * else NULL.
 */
static inline void *
sr_log__ring_backend_state(const sr_log *log, sr_log_producer producer)
{
	return log->opt.mode == SR_LOG_MODE_RING && log->opt.producer == producer ? log->state : NULL;
}

#endif /* SR_LOG_CRASH_STATE_INTERNAL_H */

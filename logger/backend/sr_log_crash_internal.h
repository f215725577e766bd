/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_crash_internal.h: the crash handler's side that the backends and
 * sr_log_describe call (sr_log_crash.c; internal).  What a backend keeps
 * for it, the list of its rings, is sr_log_crash_state_internal.h.
 */
#ifndef SR_LOG_CRASH_INTERNAL_H
#define SR_LOG_CRASH_INTERNAL_H

#include <stdbool.h>

#include "sr_log_crash_state_internal.h"

/* A ring's crash view: nothing handled yet (handled_seq is the ring's start). */
void sr_log__crash_ring_init(sr_log_crash_ring *cr, sr_ring *ring, sr_sequencer *seq,
    const sr_sequence *progress);
/* Parks the consumer for good: a crash handler took over (sr_log__crash_checkpoint). */
_Noreturn void sr_log__crash_park(sr_log_crash *c);

/*
 * Consumer check point: parks the thread for good when a crash handler took
 * over.  Inline, as it runs once a record: a relaxed load and a branch.
 */
static inline void
sr_log__crash_checkpoint(sr_log_crash *c)
{
	/* Relaxed: a hint polled per record; the park is what the handler waits for. */
	if (__builtin_expect(sr_atomic_load_relaxed_i32(&c->state) == SR_LOG_CRASH_TAKEOVER, 0))
		sr_log__crash_park(c);
}
/*
 * After a ring was taken off the list: true when no crash handler can be
 * reading it (the caller may free it), false while one runs (leave it: the
 * process is dying).
 */
bool sr_log__crash_may_free(sr_log_crash *c);
/* Frees the handler's buffers. */
void sr_log__crash_free(sr_log_crash *c);
/* True when the logger is in the crash handler's table (sr_log_describe). */
bool sr_log__crash_installed(const sr_log *log);

#endif /* SR_LOG_CRASH_INTERNAL_H */

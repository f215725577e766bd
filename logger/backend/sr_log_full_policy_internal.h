/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_full_policy_internal.h: the full-queue policy of the rings
 * (sr_log_full_policy.c), applied by the shared ring (sr_log_backend_ring.c)
 * and by the per-thread rings (sr_log_backend_per_thread.c), each with the
 * sequencer that had no room (internal).
 */
#ifndef SR_LOG_FULL_POLICY_INTERNAL_H
#define SR_LOG_FULL_POLICY_INTERNAL_H

#include <stdint.h>

#include "sr_log_internal.h"
#include "sr_sequencer.h"

/* What sr_log__when_full did. */
enum { SR_LOG_FULL_CLAIMED, SR_LOG_FULL_DROPPED, SR_LOG_FULL_BY_CALLER };

/*
 * seq had no room for k slots for a record at `level`: applies the policy.
 * SR_LOG_FULL_CLAIMED (block or discard waited, *first claimed),
 * SR_LOG_FULL_DROPPED (counted), or SR_LOG_FULL_BY_CALLER (policy sync: the
 * caller writes the record itself).  A consumer thread or sink write never
 * waits (sr_log__must_not_wait): its record is dropped.
 */
int sr_log__when_full(sr_log *log, sr_sequencer *seq, int level, int64_t k, int64_t *first);
/*
 * Claims k slots of seq, waiting for room in slices so that a caller
 * stranded by a shutdown gives up: SR_OK, or SR_ESTATE once the logger shut.
 */
int sr_log__claim_while_open(sr_log *log, sr_sequencer *seq, int64_t k, int64_t *first);
/* Policy sync's write by the caller (a record let in for the backtrace only is dropped). */
void sr_log__write_full_by_caller(sr_log *log, const sr_log_rec *h, const sr_fmt_gather *g);

#endif /* SR_LOG_FULL_POLICY_INTERNAL_H */

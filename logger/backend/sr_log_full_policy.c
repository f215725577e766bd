/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_full_policy.c: what a caller does when its ring has no room for
 * its record (the configuration's full-queue policy: block, drop, discard
 * below a level, or write it itself), for the shared ring and the
 * per-thread rings alike; and the claim that waits for room until the
 * logger shuts.
 */
#include "sr_log_backend_internal.h"
#include "sr_log_backtrace_internal.h"
#include "sr_log_consumer_internal.h"
#include "sr_log_full_policy_internal.h"
#include "sr_log_thread_internal.h"
#include "sr_time.h"
#include "sr_log_direct_internal.h"

/* A caller blocked on a full ring re-checks for shutdown this often. */
#define BLOCK_SLICE_NS (10 * 1000 * 1000)

/*
 * The ring had no room for k slots: apply the policy.  Out of line on
 * purpose: only a full ring leaves the callers' path for it.
 */
__attribute__((noinline)) int
sr_log__when_full(sr_log *log, sr_sequencer *seq, int level, int64_t k, int64_t *first)
{
	/* A consumer (or a sink's write) that waited for the consumer would wait forever. */
	if (sr_log__must_not_wait())
		goto drop;
	switch (log->opt.policy) {
	case SR_LOG_FULL_DROP:
		goto drop;
	case SR_LOG_FULL_SYNC:
		return SR_LOG_FULL_BY_CALLER;
	case SR_LOG_FULL_DISCARD:
		if (level <= log->opt.discard_level)
			goto drop;
		break;
	default:
		break;
	}
	/* Block: the sequencer's full-ring wait (backoff, synchronized enqueue). */
	if (sr_log__claim_while_open(log, seq, k, first) == SR_OK)
		return SR_LOG_FULL_CLAIMED;
drop:
	sr_log__count_drop(log, level);
	return SR_LOG_FULL_DROPPED;
}

int
sr_log__claim_while_open(sr_log *log, sr_sequencer *seq, int64_t k, int64_t *first)
{
	/* In slices, so that a caller stranded by a shutdown gives up. */
	for (;;) {
		int rc = sr_sequencer_claim_until(seq, k, sr_monotonic_ns() + BLOCK_SLICE_NS, first);
		if (rc == SR_OK)
			return SR_OK;
		/*
		 * Pairs with the store-release of levels_off in begin_shutdown: a
		 * caller that gives up here finds the level off at its next call,
		 * so no later call of this thread is accepted after this one.
		 */
		if (rc != SR_ETIMEDOUT || sr_atomic_load_acquire_i32(&log->levels_off))
			return SR_ESTATE;
	}
}

void
sr_log__write_full_by_caller(sr_log *log, const sr_log_rec *h, const sr_fmt_gather *g)
{
	/* A message let in for the backtrace only is not the caller's to write. */
	if (sr_log__bt_only(log, h)) {
		sr_log__count_drop(log, h->level);
		return;
	}
	sr_log__write_by_caller(log, h, g, false);
}

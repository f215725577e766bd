/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_crash.c: writing what was logged before the process dies.
 *
 * sr_log_install_crash_handler adds the logger to a small table and, for the
 * first logger, installs one handler for SIGSEGV, SIGBUS, SIGILL, SIGFPE and
 * SIGABRT, remembering the dispositions it replaced.  The handler, on the
 * crashing thread:
 *
 *   1. lets the first crashing thread do the work (a second thread that
 *      crashes meanwhile waits for it, up to 3 s, then goes on to step 3);
 *   2. for each logger in the table, makes sure that every record published
 *      (contiguously, from the consumer's position) in any of its rings (the
 *      shared ring, or every thread's ring with producer per_thread: the
 *      list of sr_log_crash_state_internal.h) reaches the file and descriptor
 *      sinks:
 *        a. drain: if the consumer thread is alive and is not the crashing
 *           thread, it is left to do its job (records published before the
 *           crash were signalled to it already) and the handler waits, up to
 *           1 s, until its sequence on every ring passes the last record
 *           published there: its normal end of batch has then written them,
 *           callback sinks included;
 *        b. take over: otherwise (the consumer is the crashing thread, or it
 *           is stuck in a sink), crash_state becomes TAKEOVER, the consumer
 *           parks for good at its next check point (sr_log__crash_checkpoint)
 *           and says so (up to 100 ms), and the handler writes the bytes the
 *           consumer buffered but did not write, then renders the records
 *           after handled_seq itself, with the async-signal-safe renderer
 *           (sr_fmt_render_safe, the layouts' signal_safe path), into
 *           buffers allocated at install;
 *   3. restores the disposition it replaced for this signal and hands the
 *      signal on: a previous handler is called (with the siginfo and context
 *      when it took them); a default or ignored disposition is re-armed as
 *      the default and the signal raised again, so that the process ends
 *      exactly as it would have without us (core dump included): the signal
 *      is blocked while the handler runs, so it is delivered as the handler
 *      returns.
 *
 * Only async-signal-safe functions are called in the handler: write, poll,
 * clock_gettime, nanosleep, sigaction, raise, and our own code, which uses
 * no lock, no malloc and no stdio.
 *
 * Global state, which a signal handler cannot do without: the table of
 * loggers (atomic pointers, read by the handler), the saved dispositions
 * (written under crash_lock before the handler can run, read by it), and
 * the flag that elects the first crashing thread.
 */
#include "sr_log_backtrace_internal.h"
#include "sr_log_crash_internal.h"
#include "sr_log_event_internal.h"
#include "sr_log_ring_internal.h"
#include "sr_log_sink_internal.h"
#include "sr_log_per_thread_internal.h"
#include "sr_log_thread_internal.h"
#include "sr_time.h"
#include "sr_log_fanout_internal.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_LOGS 8
#define DRAIN_NS (1000 * INT64_C(1000000))
#define PARK_NS (100 * INT64_C(1000000))
#define OTHER_THREAD_NS (3000 * INT64_C(1000000))

static const int crash_signals[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT };
#define NSIGNALS ((int)(sizeof crash_signals / sizeof crash_signals[0]))

static pthread_mutex_t crash_lock = PTHREAD_MUTEX_INITIALIZER;
static sr_atomic_ptr crash_logs[MAX_LOGS];
static struct sigaction previous[NSIGNALS];
static bool handlers_installed;                 /* under crash_lock */
static sr_atomic_i32 crash_owner;               /* 1 once a thread is flushing */
static sr_atomic_i32 crash_done;                /* 1 once it has flushed */

/* A millisecond's wait (nanosleep is async-signal-safe). */
static void
nap(void)
{
	sr_sleep_ns(1000000);
}

void
sr_log__crash_ring_init(sr_log_crash_ring *cr, sr_ring *ring, sr_sequencer *seq, const sr_sequence *progress)
{
	sr_atomic_store_release_ptr(&cr->next, NULL); /* before the ring is on a list */
	cr->ring = ring;
	cr->seq = seq;
	cr->progress = progress;
	sr_atomic_store_relaxed_i64(&cr->handled_seq, sr_sequencer_cursor(seq));
	cr->from = cr->target = 0;
	cr->writer = NULL;             /* full records; a thread's ring sets its writer */
	cr->file = NULL;               /* anonymous memory; a ring in a file sets it */
}

_Noreturn void
sr_log__crash_park(sr_log_crash *c)
{
	/*
	 * pairs with the handler's load-acquire of parked: our writes to the
	 * sinks' buffers and handled_seq are visible to it.
	 */
	sr_atomic_store_release_i32(&c->parked, 1);
	for (;;)
		pause(); /* the process is about to die; never touch the sinks again */
}

bool
sr_log__crash_may_free(sr_log_crash *c)
{
	/*
	 * Dekker with the handler's exchange of state before it walks the
	 * list: the ring was unlinked before this fence, so either the
	 * handler's walk does not reach it, or this load sees the handler.
	 */
	sr_atomic_fence_seq_cst();
	return sr_atomic_load_relaxed_i32(&c->state) == SR_LOG_CRASH_NONE;
}

void
sr_log__crash_free(sr_log_crash *c)
{
	free(c->rec);
	free(c->line);
	c->rec = NULL;
	c->line = NULL;
}

/* The logger's crash state and whether its consumer thread runs, or NULL (not ring mode). */
static sr_log_crash *
crash_of(const sr_log *log, bool *alive)
{
	sr_log_ring *r = sr_log__ring_backend_state(log, SR_LOG_PRODUCER_SHARED);
	if (r != NULL) {
		*alive = r->consumer_started && r->proc != NULL &&
		    sr_processor_state_get(r->proc) == SR_PROCESSOR_RUNNING;
		return &r->crash;
	}
	sr_log_threads *t = sr_log__ring_backend_state(log, SR_LOG_PRODUCER_PER_THREAD);
	if (t != NULL) {
		/* pairs with the consumer's store-release as it starts and ends */
		*alive = sr_atomic_load_acquire_i32(&t->running) != 0;
		return &t->crash;
	}
	*alive = false;
	return NULL;
}

/* The rings of c, in list order (pairs with the writers' store-release of each link). */
static sr_log_crash_ring *
first_ring(sr_log_crash *c)
{
	return sr_atomic_load_acquire_ptr(&c->rings);
}

static sr_log_crash_ring *
next_ring(sr_log_crash_ring *cr)
{
	return sr_atomic_load_acquire_ptr(&cr->next);
}

/* True when the consumer has passed every ring's target (its batches' lines are written). */
static bool
targets_reached(sr_log_crash *c)
{
	for (sr_log_crash_ring *cr = first_ring(c); cr != NULL; cr = next_ring(cr))
		/* pairs with the consumer's store-release of its sequence after each batch */
		if (sr_sequence_get(cr->progress) < cr->target)
			return false;
	return true;
}

/* The timestamp of the record at cr->from (any 8 bytes when the slot holds none: it is skipped). */
static int64_t
head_ts(const sr_log_crash_ring *cr)
{
	return sr_log__record_ts(cr->ring, cr->from, cr->writer);
}

/* Renders and writes the record at cr->from, in the handler, and steps past it. */
static void
write_record(sr_log *log, sr_log_crash *c, sr_log_crash_ring *cr)
{
	sr_log_rec h;
	const unsigned char *body;
	size_t body_len;
	int64_t k = sr_log__record_read(cr->ring, cr->from, log->opt.max_record, c->rec, cr->writer,
	    &h, &body, &body_len);
	if (k == 0) {
		cr->from++;
		return;
	}
	if (cr->from + k - 1 > cr->target) {
		/* not published in full (cannot happen: records publish whole) */
		cr->from = cr->target + 1;
		return;
	}
	/*
	 * Its line is about to be written: what a ring directory takes as
	 * covered by the write (the handler's, never read by a consumer again).
	 */
	sr_atomic_store_relaxed_i64(&cr->handled_seq, cr->from + k - 1);
	int kind = h.kind & SR_REC_KIND_MASK;
	/* A message let in only for the backtrace is not written. */
	if ((kind == SR_REC_MESSAGE || kind == SR_REC_FORMAT_ERROR) && !sr_log__bt_only(log, &h)) {
		sr_log_event ev;
		sr_log__event_of_record(log, &h, body, body_len, false, true, &ev);
		sr_log__fanout(log, &ev, h.level, SR_DISPATCH_RAW, c->line);
	}
	cr->from += k;
}

/*
 * Writes every ring's records from..target, in the handler, merged: the
 * earliest head first, as the per-thread consumer orders them (one ring:
 * in ring order).  A linear scan per record: no allocation here.
 */
static void
write_records(sr_log *log, sr_log_crash *c)
{
	for (;;) {
		sr_log_crash_ring *best = NULL;
		int64_t best_ts = 0;
		for (sr_log_crash_ring *cr = first_ring(c); cr != NULL; cr = next_ring(cr)) {
			if (cr->from > cr->target)
				continue;
			int64_t ts = head_ts(cr);
			if (best == NULL || ts < best_ts) {
				best = cr;
				best_ts = ts;
			}
		}
		if (best == NULL)
			return;
		write_record(log, c, best);
	}
}

static void
flush_one_log(sr_log *log)
{
	bool alive;
	sr_log_crash *c = crash_of(log, &alive);
	/* pairs with the store-release in sr_log_shutdown: a stopped logger has written all */
	if (sr_atomic_load_acquire_i32(&log->shut) || c == NULL)
		return;
	/*
	 * Before the list is read: pairs with the fence in sr_log__crash_may_free,
	 * so that no ring this walk reaches is freed under it.  The consumer acts
	 * only on TAKEOVER.
	 */
	sr_atomic_exchange_i32(&c->state, SR_LOG_CRASH_DRAIN);
	/* What is published now, from where the consumer is, in every ring. */
	for (sr_log_crash_ring *cr = first_ring(c); cr != NULL; cr = next_ring(cr)) {
		cr->from = sr_sequence_get(cr->progress) + 1;
		cr->target = sr_sequencer_highest_published(cr->seq, cr->from, sr_sequencer_cursor(cr->seq));
	}
	bool self = sr_log__self.consumer_of == log;
	if (!self && alive) {
		/*
		 * Drain: the consumer is left to do its job (records published
		 * before the crash were signalled to it already).
		 */
		int64_t deadline = sr_monotonic_ns() + DRAIN_NS;
		while (!targets_reached(c) && sr_monotonic_ns() < deadline)
			nap();
		/* The targets' lines may still be with a file sink's writer: out once it is idle. */
		if (targets_reached(c) && sr_log__sinks_behind_wait_raw(log, deadline)) {
			/* Written by the consumer; the logger carries on if the process does. */
			sr_atomic_store_release_i32(&c->state, SR_LOG_CRASH_NONE);
			return;
		}
	}
	/*
	 * Take over: the consumer parks at its next check point (its relaxed
	 * poll in sr_log__crash_checkpoint; the data flows the other way, with
	 * parked).
	 */
	sr_atomic_store_relaxed_i32(&c->state, SR_LOG_CRASH_TAKEOVER);
	if (!self && alive) {
		int64_t deadline = sr_monotonic_ns() + PARK_NS;
		/* pairs with the store-release in sr_log__crash_park */
		while (!sr_atomic_load_acquire_i32(&c->parked) && sr_monotonic_ns() < deadline)
			nap();
	}
	/* What the consumer buffered but has not written: lines (and trace packets) of records up to handled_seq. */
	sr_log__sinks_write_buffers_raw(log);
	sr_log__ctf_sinks_write_raw(log);
	for (sr_log_crash_ring *cr = first_ring(c); cr != NULL; cr = next_ring(cr)) {
		/* pairs with the consumer's store-release of handled_seq after each record */
		int64_t handled = sr_atomic_load_acquire_i64(&cr->handled_seq);
		/*
		 * handled_seq ends a record and is never behind the consumer's
		 * sequence (which moves at the end of a batch), so this starts a record.
		 */
		if (handled + 1 > cr->from)
			cr->from = handled + 1;
	}
	write_records(log, c);
}

/* Hands the signal to what was there before us. */
static void
chain(int idx, int sig, siginfo_t *info, void *uctx)
{
	struct sigaction prev = previous[idx];
	/* From now on the signal goes straight to the previous disposition. */
	sigaction(sig, &prev, NULL);
	if ((prev.sa_flags & SA_SIGINFO) && prev.sa_sigaction != NULL) {
		prev.sa_sigaction(sig, info, uctx);
		return;
	}
	if (!(prev.sa_flags & SA_SIGINFO) && prev.sa_handler != SIG_DFL && prev.sa_handler != SIG_IGN) {
		prev.sa_handler(sig);
		return;
	}
	/*
	 * Default (or ignored, which for a fault would loop forever): default,
	 * then raise.  The signal is blocked in this handler, so it is delivered
	 * when the handler returns, with the default action.
	 */
	struct sigaction dfl;
	memset(&dfl, 0, sizeof dfl);
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	sigaction(sig, &dfl, NULL);
	raise(sig);
}

static void
crash_handler(int sig, siginfo_t *info, void *uctx)
{
	int saved_errno = errno;
	int idx = 0;
	while (idx < NSIGNALS - 1 && crash_signals[idx] != sig)
		idx++;
	if (sr_atomic_exchange_i32(&crash_owner, 1) == 0) {
		for (int i = 0; i < MAX_LOGS; i++) {
			/* pairs with the store-release in sr_log_install_crash_handler */
			sr_log *log = sr_atomic_load_acquire_ptr(&crash_logs[i]);
			if (log != NULL)
				flush_one_log(log);
		}
		/* pairs with the load-acquire of other crashing threads below */
		sr_atomic_store_release_i32(&crash_done, 1);
	} else {
		int64_t deadline = sr_monotonic_ns() + OTHER_THREAD_NS;
		/* pairs with the flushing thread's store-release of crash_done */
		while (!sr_atomic_load_acquire_i32(&crash_done) && sr_monotonic_ns() < deadline)
			nap();
	}
	chain(idx, sig, info, uctx);
	errno = saved_errno;
}

int
sr_log_install_crash_handler(sr_log *log, sr_error *err)
{
	if (log == NULL)
		return sr_error_set(err, SR_EINVAL, "logger is NULL");
	bool alive;
	sr_log_crash *c = crash_of(log, &alive);
	if (c == NULL)
		return sr_error_set(err, SR_EINVAL,
		    "the crash handler needs mode ring (this logger's is %s)", sr_log_mode_name(log->opt.mode));
	/* pairs with the store-release in sr_log_shutdown */
	if (sr_atomic_load_acquire_i32(&log->shut))
		return sr_error_set(err, SR_ESTATE, "the logger is shut down");
	int rc = SR_OK;
	pthread_mutex_lock(&crash_lock);
	if (sr_atomic_load_relaxed_i32(&c->installed))
		goto out;
	if (c->rec == NULL) {
		c->rec = malloc(log->opt.max_record);
		c->line = malloc(log->opt.max_line + SR_FMT_LINE_RESERVE);
		if (c->rec == NULL || c->line == NULL) {
			rc = sr_error_set(err, SR_ENOMEM, "cannot allocate the crash handler's buffers");
			goto out;
		}
	}
	int slot = -1;
	/* Under crash_lock, the table's only writer; the handler only reads it. */
	for (int i = 0; i < MAX_LOGS && slot < 0; i++)
		if (sr_atomic_load_acquire_ptr(&crash_logs[i]) == NULL)
			slot = i;
	if (slot < 0) {
		rc = sr_error_set(err, SR_EFULL, "the crash handler serves %d loggers at most", MAX_LOGS);
		goto out;
	}
	if (!handlers_installed) {
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_sigaction = crash_handler;
		/* On the alternate stack if the application set one up (stack overflows). */
		sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
		sigemptyset(&sa.sa_mask);
		for (int i = 0; i < NSIGNALS; i++) {
			if (sigaction(crash_signals[i], &sa, &previous[i]) != 0) {
				int e = errno;
				for (int k = 0; k < i; k++)
					sigaction(crash_signals[k], &previous[k], NULL);
				rc = sr_error_set(err, SR_ESYS, "sigaction(%d) failed: %s", crash_signals[i], strerror(e));
				goto out;
			}
		}
		handlers_installed = true;
		/*
		 * A fresh election for the next crash (after an earlier one that
		 * the process survived).  Release: pairs with the handler's
		 * exchange and acquire load, which run only after the sigaction
		 * above.
		 */
		sr_atomic_store_release_i32(&crash_owner, 0);
		sr_atomic_store_release_i32(&crash_done, 0);
	}
	/* pairs with the handler's load-acquire: the logger is complete when it is seen */
	sr_atomic_store_release_ptr(&crash_logs[slot], log);
	sr_atomic_store_relaxed_i32(&c->installed, 1);
out:
	pthread_mutex_unlock(&crash_lock);
	return rc;
}

int
sr_log_remove_crash_handler(sr_log *log)
{
	if (log == NULL)
		return SR_EINVAL;
	bool alive;
	sr_log_crash *c = crash_of(log, &alive);
	if (c == NULL || !sr_atomic_load_relaxed_i32(&c->installed))
		return SR_OK;
	pthread_mutex_lock(&crash_lock);
	bool any = false;
	/* Under crash_lock, the table's only writer. */
	for (int i = 0; i < MAX_LOGS; i++) {
		if (sr_atomic_load_acquire_ptr(&crash_logs[i]) == log)
			sr_atomic_store_release_ptr(&crash_logs[i], NULL); /* pairs with the handler's load */
		else if (sr_atomic_load_acquire_ptr(&crash_logs[i]) != NULL)
			any = true;
	}
	sr_atomic_store_relaxed_i32(&c->installed, 0);
	if (!any && handlers_installed) {
		for (int i = 0; i < NSIGNALS; i++) {
			struct sigaction cur;
			/* Restore only what is still ours: a handler the application set since stays. */
			if (sigaction(crash_signals[i], NULL, &cur) == 0 && (cur.sa_flags & SA_SIGINFO) &&
			    cur.sa_sigaction == crash_handler)
				sigaction(crash_signals[i], &previous[i], NULL);
		}
		handlers_installed = false;
	}
	pthread_mutex_unlock(&crash_lock);
	return SR_OK;
}

bool
sr_log__crash_installed(const sr_log *log)
{
	bool alive;
	const sr_log_crash *c = crash_of(log, &alive);
	return c != NULL && sr_atomic_load_relaxed_i32(&c->installed) != 0;
}

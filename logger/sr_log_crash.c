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
 *      (contiguously, from the consumer's position) reaches the file and
 *      descriptor sinks:
 *        a. drain: if the consumer thread is alive and is not the crashing
 *           thread, it is left to do its job (records published before the
 *           crash were signalled to it already) and the handler waits, up to
 *           1 s, until its sequence passes the last published record: its
 *           normal end of batch has then written them, callback sinks
 *           included;
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
#include "sr_log_layout_internal.h"
#include "sr_log_ring_internal.h"
#include "sr_log_sink_internal.h"
#include "sr_log_thread_internal.h"
#include "sr_time.h"

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
sr_log__crash_checkpoint(sr_log_ring *r)
{
	/* Relaxed: a hint polled per record; the park below is what the handler waits for. */
	if (__builtin_expect(sr_atomic_load_relaxed_i32(&r->crash_state) != SR_LOG_CRASH_TAKEOVER, 1))
		return;
	/*
	 * pairs with the handler's load-acquire of crash_parked: our writes to
	 * the sinks' buffers and handled_seq are visible to it.
	 */
	sr_atomic_store_release_i32(&r->crash_parked, 1);
	for (;;)
		pause(); /* the process is about to die; never touch the sinks again */
}

/* Renders and writes records after..hi (ring sequences), in the handler. */
static void
write_records(sr_log *log, sr_log_ring *r, int64_t from, int64_t hi)
{
	int64_t s = from;
	while (s <= hi) {
		sr_log_rec h;
		const unsigned char *rec;
		int64_t k = sr_log__record_decode(r->ring, s, log->opt.max_record, r->crash_rec, &h, &rec);
		if (k == 0) {
			s++;
			continue;
		}
		if (s + k - 1 > hi)
			break; /* not published in full (cannot happen: records publish top-down) */
		int kind = h.kind & SR_REC_KIND_MASK;
		/* A message let in only for the backtrace is not written. */
		if ((kind == SR_REC_MESSAGE || kind == SR_REC_FORMAT_ERROR) && !sr_log__bt_only(log, &h)) {
			sr_fmt_buf b = { r->crash_line, 0, log->opt.max_line, 0 };
			sr_log__render_record_ex(log, &h, rec + sizeof h, h.size - sizeof h, false, true, &b);
			sr_log__finish_line(log, &b);
			sr_log__sinks_write_raw(log, h.level, b.data, b.len);
		}
		s += k;
	}
}

static void
flush_one_log(sr_log *log)
{
	sr_log_ring *r = sr_log__ring_of(log);
	/* pairs with the store-release in sr_log_shutdown: a stopped logger has written all */
	if (sr_atomic_load_acquire_i32(&log->shut) || r == NULL || r->proc == NULL)
		return;
	sr_sequence *progress = sr_processor_sequence(r->proc);
	int64_t next = sr_sequence_get(progress) + 1;
	int64_t target = sr_sequencer_highest_published(r->seq, next, sr_sequencer_cursor(r->seq));
	bool self = sr_log__self.consumer_of == log;
	bool alive = r->consumer_started && sr_processor_state_get(r->proc) == SR_PROCESSOR_RUNNING;
	if (!self && alive) {
		/* A note for a debugger: the consumer acts only on TAKEOVER.  Nothing rides on it. */
		sr_atomic_store_relaxed_i32(&r->crash_state, SR_LOG_CRASH_DRAIN);
		int64_t deadline = sr_monotonic_ns() + DRAIN_NS;
		/* pairs with the consumer's store-release of its sequence after each batch */
		while (sr_sequence_get(progress) < target && sr_monotonic_ns() < deadline)
			nap();
		if (sr_sequence_get(progress) >= target) {
			/* Written by the consumer; the logger carries on if the process does. */
			sr_atomic_store_relaxed_i32(&r->crash_state, SR_LOG_CRASH_NONE);
			return;
		}
	}
	/*
	 * Take over: the consumer parks at its next check point (its relaxed
	 * poll in sr_log__crash_checkpoint; the data flows the other way, with
	 * crash_parked).
	 */
	sr_atomic_store_relaxed_i32(&r->crash_state, SR_LOG_CRASH_TAKEOVER);
	if (!self && alive) {
		int64_t deadline = sr_monotonic_ns() + PARK_NS;
		/* pairs with the store-release in sr_log__crash_checkpoint */
		while (!sr_atomic_load_acquire_i32(&r->crash_parked) && sr_monotonic_ns() < deadline)
			nap();
	}
	/* What the consumer buffered but has not written: lines of records up to handled_seq. */
	sr_log__sinks_write_buffers_raw(log);
	/* pairs with the consumer's store-release of handled_seq after each record */
	int64_t handled = sr_atomic_load_acquire_i64(&r->handled_seq);
	/*
	 * handled_seq ends a record and is never behind the consumer's
	 * sequence (which moves at the end of a batch), so this starts a record.
	 */
	int64_t from = handled + 1 > next ? handled + 1 : next;
	write_records(log, r, from, target);
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
	sr_log_ring *r = sr_log__ring_of(log);
	if (r == NULL)
		return sr_error_set(err, SR_EINVAL,
		    "the crash handler needs mode ring (this logger's is %s)", sr_log_mode_name(log->opt.mode));
	/* pairs with the store-release in sr_log_shutdown */
	if (sr_atomic_load_acquire_i32(&log->shut))
		return sr_error_set(err, SR_ESTATE, "the logger is shut down");
	int rc = SR_OK;
	pthread_mutex_lock(&crash_lock);
	if (sr_atomic_load_relaxed_i32(&r->crash_installed))
		goto out;
	if (r->crash_rec == NULL) {
		r->crash_rec = malloc(log->opt.max_record);
		r->crash_line = malloc(log->opt.max_line + SR_FMT_LINE_RESERVE);
		if (r->crash_rec == NULL || r->crash_line == NULL) {
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
	sr_atomic_store_relaxed_i32(&r->crash_installed, 1);
out:
	pthread_mutex_unlock(&crash_lock);
	return rc;
}

int
sr_log_remove_crash_handler(sr_log *log)
{
	if (log == NULL)
		return SR_EINVAL;
	sr_log_ring *r = sr_log__ring_of(log);
	if (r == NULL || !sr_atomic_load_relaxed_i32(&r->crash_installed))
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
	sr_atomic_store_relaxed_i32(&r->crash_installed, 0);
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
	const sr_log_ring *r = sr_log__ring_of(log);
	return r != NULL && sr_atomic_load_relaxed_i32(&r->crash_installed) != 0;
}

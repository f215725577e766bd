/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_sink_write.c: writing bytes to a file or descriptor sink, and what
 * a failed write means:
 *
 *   EINTR          retried at once.
 *   short write    the rest is written.
 *   EAGAIN         (a non-blocking descriptor that is full) poll for POLLOUT up
 *                  to write_timeout_ms, then drop the buffer and count it; after
 *                  one timeout, don't wait again until a write succeeds, so a
 *                  dead reader costs a failed write per batch, not a timeout.
 *   EPIPE          the reader is gone for good: the sink is marked broken and
 *                  its later writes are skipped (counted).  SIGPIPE never kills
 *                  the process: the consumer thread blocks it for its life, a
 *                  caller thread writing to a pipe or socket blocks it around
 *                  the write, and the signal that the failed write left
 *                  pending on the thread is consumed with sigtimedwait.
 *   ENOSPC, other  counted; the next batch tries again.
 *
 * A big write to a file first reserves its range (reserve_range).
 *
 * Each sink reports its first error on stderr, once; all are counted.  The
 * crash handler's raw writes are sr_log_sink_raw.c's.
 */
#include "sr_log_sink_internal.h"
#include "sr_log_thread_internal.h"
#include "sr_time.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *const kind_names[] = { "file", "fd", "null", "callback" };

static int64_t
monotonic_ms(void)
{
	return sr_monotonic_ns() / 1000000;
}

/*
 * SIGPIPE guard for a write by a thread that may not block SIGPIPE already
 * (callers in sync mode or policy sync).  The consumer threads block it for
 * their whole life, so for them `begin` finds it blocked and changes nothing.
 */
typedef struct sigpipe_guard {
	sigset_t old;
	bool was_blocked;
} sigpipe_guard;

static void
sigpipe_block(sigpipe_guard *g)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &set, &g->old);
	g->was_blocked = sigismember(&g->old, SIGPIPE) == 1;
}

static void
sigpipe_consume(void)
{
	/* The failed write raised SIGPIPE for this thread; it is blocked: take it. */
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGPIPE);
	sigset_t pending;
	if (sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE) == 1) {
		struct timespec zero = { 0, 0 };
		sigtimedwait(&set, NULL, &zero);
	}
}

static void
sigpipe_restore(const sigpipe_guard *g)
{
	if (!g->was_blocked)
		pthread_sigmask(SIG_SETMASK, &g->old, NULL);
}

/* Writes to stderr without risking SIGPIPE. */
static void
report(const char *text, size_t len)
{
	sigpipe_guard g;
	sigpipe_block(&g);
	while (len > 0) {
		ssize_t w = write(STDERR_FILENO, text, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (w < 0 && errno == EPIPE)
				sigpipe_consume();
			break;
		}
		text += w;
		len -= (size_t)w;
	}
	sigpipe_restore(&g);
}

static void
describe(const sr_log_sink *s, char *buf, size_t size)
{
	switch (s->cfg.kind) {
	case SR_SINK_FILE:
		snprintf(buf, size, "file %s", s->path);
		break;
	case SR_SINK_FD:
		snprintf(buf, size, "fd %d", s->fd);
		break;
	default:
		snprintf(buf, size, "%s", kind_names[s->cfg.kind]);
		break;
	}
}

void
sr_log__sink_report_once(sr_log_sink *s, const char *what)
{
	/* exchange: of several threads failing at once, one reports */
	if (sr_atomic_exchange_i32(&s->reported, 1) != 0)
		return;
	char name[300], msg[512];
	describe(s, name, sizeof name);
	int n = snprintf(msg, sizeof msg,
	    "seqring: log sink %d (%s): %s; further errors on this sink are counted, not reported "
	    "(sr_log_stats)\n", s->index, name, what);
	if (n > 0)
		report(msg, (size_t)n < sizeof msg ? (size_t)n : sizeof msg - 1);
}

void
sr_log__sink_add(sr_atomic_i64 *counter, int64_t delta)
{
	sr_atomic_faa_i64(counter, delta);
}

/* Writes all of p or fails; *done gets what was written.  Returns 0 or an errno. */
static int
write_all(sr_log_sink *s, const char *p, size_t n, size_t *done)
{
	int64_t deadline = -1;
	*done = 0;
	while (n > 0) {
		ssize_t w = write(s->fd, p, n);
		if (w > 0) {
			p += w;
			n -= (size_t)w;
			*done += (size_t)w;
			continue;
		}
		int e = w == 0 ? EIO : errno;
		if (e == EINTR)
			continue;
		if (e == EAGAIN || e == EWOULDBLOCK) {
			if (s->stalled || s->cfg.write_timeout_ms == 0)
				return EAGAIN;
			int64_t now = monotonic_ms();
			if (deadline < 0)
				deadline = now + s->cfg.write_timeout_ms;
			if (now >= deadline) {
				s->stalled = true;
				return EAGAIN;
			}
			struct pollfd pfd = { .fd = s->fd, .events = POLLOUT };
			int pr = poll(&pfd, 1, (int)(deadline - now));
			if (pr < 0 && errno != EINTR)
				return errno;
			continue;
		}
		return e;
	}
	s->stalled = false;
	return 0;
}

/*
 * Reserves the range that a write of n bytes at the end of s's file is about
 * to fill (fallocate with FALLOC_FL_KEEP_SIZE: the file's size stays that of
 * its lines).  The file system then allocates the range's blocks at once,
 * where a buffered write would reserve them one by one as it fills each page:
 * about a third of a big write's time on ext4 (perf/README.md).  The range is
 * exactly the write's, so nothing stays reserved past the file's end once it
 * is written.  Another process appending in between only moves the range onto
 * bytes already written, which a reservation leaves as they are; a truncation
 * in between (copytruncate) leaves it reserved past the new end until the
 * file grows over it.  A file system that cannot reserve says so once and the
 * sink stops asking; any other failure (no space: the write reports it)
 * changes nothing.  s->lock held.
 */
static void
reserve_range(sr_log_sink *s, size_t n)
{
#ifdef FALLOC_FL_KEEP_SIZE
	off_t end = lseek(s->fd, 0, SEEK_END);
	if (end >= 0 && fallocate(s->fd, FALLOC_FL_KEEP_SIZE, end, (off_t)n) == 0) {
		s->reserved_bytes += n;
		return;
	}
	int e = errno;
	/* A regular file (sr_log__sink_open_file): these say its file system cannot reserve. */
	if (end < 0 || e == EOPNOTSUPP || e == ENOSYS || e == EINVAL)
		s->reserves = false;
#else
	(void)n;
	s->reserves = false;
#endif
}

/* Lines of p[0..n) that a failed write left unfinished: counted lost (s->lock held). */
static void
count_lost_lines(sr_log_sink *s, const char *p, size_t n)
{
	uint64_t lines = 0;
	for (const char *q = p; (q = memchr(q, '\n', (size_t)(p + n - q))) != NULL; q++)
		lines++;
	if (lines == 0 && n > 0)
		lines = 1; /* a line without its end: lost all the same */
	s->lost_pending += lines;
	sr_log__sink_add(&s->lost_messages, (int64_t)lines);
}

/* Writes bytes as they are; false when the write failed (counted).  s->lock held. */
bool
sr_log__sink_plain_write_locked(sr_log_sink *s, const char *p, size_t n, size_t *written)
{
	*written = 0;
	if (n == 0)
		return true;
	if (s->broken || s->closed || s->fd < 0) {
		sr_log__sink_add(&s->errors, 1);
		sr_log__sink_add(&s->lost_bytes, (int64_t)n);
		count_lost_lines(s, p, n);
		return false;
	}
	sigpipe_guard g;
	bool guard = s->may_sigpipe && sr_log__self.consumer_of == NULL;
	if (guard)
		sigpipe_block(&g);
	size_t done = 0;
	int e = 0;
	if (s->midline) {
		/*
		 * A failed write stopped inside a line: end that line, visibly cut,
		 * before anything else, so the next line does not continue it.
		 */
		static const char cut[] = " " SR_FMT_TRUNCATION_MARKER "\n";
		size_t cut_done;
		e = write_all(s, cut, sizeof cut - 1, &cut_done);
		if (e == 0)
			s->midline = false;
	}
	if (e == 0) {
		if (s->reserves && n >= SR_LOG_SINK_RESERVE_MIN)
			reserve_range(s, n);
		if (s->hook != NULL)
			s->hook->before(s->hook_ctx, s->fd, n);
		e = write_all(s, p, n, &done);
		if (s->hook != NULL)
			s->hook->after(s->hook_ctx);
		if (e != 0 && done > 0 && p[done - 1] != '\n')
			s->midline = true;
	}
	if (e == EPIPE)
		sigpipe_consume();
	if (guard)
		sigpipe_restore(&g);
	sr_log__sink_add(&s->bytes, (int64_t)done);
	*written = done;
	if (e == 0) {
		sr_log__sink_add(&s->writes, 1);
		return true;
	}
	sr_log__sink_add(&s->errors, 1);
	sr_log__sink_add(&s->lost_bytes, (int64_t)(n - done));
	/* The line the write stopped in is lost too (its end never came). */
	size_t from = done;
	while (from > 0 && p[from - 1] != '\n')
		from--;
	count_lost_lines(s, p + from, n - from);
	if (e == EPIPE)
		s->broken = true;
	char what[160];
	snprintf(what, sizeof what, "write failed: %s%s", strerror(e),
	    e == EPIPE ? " (the reader is gone: the sink is closed)" :
	    e == EAGAIN ? " (the descriptor stayed full)" : "");
	sr_log__sink_report_once(s, what);
	return false;
}

/*
 * sr_log_sink.c: where lines go.  File, descriptor, null and callback sinks,
 * the consumer's per-sink buffers, and the write error handling:
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
 * Rotation (FILE with max_file_bytes or rotate_daily) happens in the write
 * path, under the sink's lock, between two lines: the consumer's buffer holds
 * whole lines only, so a buffer that would cross the size limit is written
 * up to its last line that fits, the file is rotated (app.log.N-1 ->
 * app.log.N, ..., app.log -> app.log.1, the oldest deleted beyond keep_files)
 * and the rest goes to the new file.  No line is split, lost or duplicated
 * by a rotation.  If a rename fails the sink keeps appending to the same
 * file (nothing is truncated); if the new file cannot be opened, writes are
 * counted as errors and the open is retried at the next write.
 *
 * Each sink reports its first error on stderr, once; all are counted
 * (sr_log_counters.sinks[i].errors).  Nothing here waits without a bound
 * except a write(2) to a blocking descriptor whose reader stopped reading:
 * that is the sink's nature (and what the full-queue policies are for).
 */
#include "sr_log_sink_internal.h"
#include "sr_log_thread_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *const kind_names[] = { "file", "fd", "null", "callback" };

static int64_t
monotonic_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
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
		e = write_all(s, p, n, &done);
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
	if (e == EPIPE)
		s->broken = true;
	char what[160];
	snprintf(what, sizeof what, "write failed: %s%s", strerror(e),
	    e == EPIPE ? " (the reader is gone: the sink is closed)" :
	    e == EAGAIN ? " (the descriptor stayed full)" : "");
	sr_log__sink_report_once(s, what);
	return false;
}

/* Writes bytes to a file or descriptor sink; the caller holds s->lock. */
static void
sink_write_locked(sr_log_sink *s, const char *p, size_t n)
{
	if (sr_log__sink_rotates(s))
		sr_log__sink_rotating_write_locked(s, p, n);
	else
		sr_log__sink_plain_write_locked(s, p, n, &(size_t){ 0 });
}

static void
callback_locked(sr_log_sink *s, int level, const char *line, size_t len)
{
	sr_log__self.in_sink++;
	int rc = s->cfg.write(s->cfg.ctx, (sr_log_level)level, line, len);
	sr_log__self.in_sink--;
	if (rc == 0) {
		sr_log__sink_add(&s->writes, 1);
		sr_log__sink_add(&s->bytes, (int64_t)len);
		return;
	}
	sr_log__sink_add(&s->errors, 1);
	sr_log__sink_add(&s->lost_bytes, (int64_t)len);
	char what[64];
	snprintf(what, sizeof what, "write callback returned %d", rc);
	sr_log__sink_report_once(s, what);
}

int
sr_log__sinks_open(sr_log *log, const sr_sink_config *configs, int count, sr_error *err)
{
	sr_sink_config fallback = sr_sink_fd(STDERR_FILENO);
	if (count == 0) {
		configs = &fallback;
		count = 1;
	}
	if (log->sinks == NULL) {
		log->sinks = calloc(1, sizeof *log->sinks);
		if (log->sinks == NULL)
			return sr_error_set(err, SR_ENOMEM, "cannot allocate the sinks");
	}
	log->sinks->n = 0;
	for (int i = 0; i < count; i++) {
		const sr_sink_config *c = &configs[i];
		sr_log_sink *s = &log->sinks->s[i];
		memset(s, 0, sizeof *s);
		s->cfg = *c;
		s->index = i;
		s->fd = -1;
		s->cfg.path = NULL;
		switch (c->kind) {
		case SR_SINK_FILE: {
			s->path = strdup(c->path);
			s->rot_name_size = strlen(c->path) + 16;
			s->rot_name = malloc(2 * s->rot_name_size); /* two names: rename from, to */
			if (s->path == NULL || s->rot_name == NULL) {
				free(s->path);
				free(s->rot_name);
				goto nomem;
			}
			s->cfg.path = s->path;
			int e = sr_log__sink_open_file(s);
			if (e != 0) {
				free(s->path);
				free(s->rot_name);
				sr_error_set(err, SR_ESYS, "config.sinks[%d].path '%s' cannot be opened: %s",
				    i, c->path, strerror(e));
				goto fail;
			}
			s->owns_fd = true;
			break;
		}
		case SR_SINK_FD:
			s->fd = c->fd;
			s->owns_fd = c->close_fd;
			if (c->pipe_bytes > 0) {
				struct stat pst;
				if (fstat(c->fd, &pst) != 0 || !S_ISFIFO(pst.st_mode)) {
					sr_error_set(err, SR_EINVAL,
					    "config.sinks[%d].pipe_bytes %d is set but fd %d is not a pipe",
					    i, c->pipe_bytes, c->fd);
					goto fail;
				}
				if (fcntl(c->fd, F_SETPIPE_SZ, c->pipe_bytes) < 0) {
					int e = errno;
					sr_error_set(err, SR_ESYS,
					    "config.sinks[%d].pipe_bytes %d: cannot resize the pipe: %s%s", i,
					    c->pipe_bytes, strerror(e),
					    e == EPERM ? " (above /proc/sys/fs/pipe-max-size)" : "");
					goto fail;
				}
			}
			break;
		default:
			break;
		}
		if (s->fd >= 0) {
			struct stat st;
			if (fstat(s->fd, &st) == 0)
				s->may_sigpipe = S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode);
			s->cap = c->buffer_bytes;
			s->buf = malloc(s->cap);
			if (s->buf == NULL) {
				if (s->owns_fd && c->kind == SR_SINK_FILE)
					close(s->fd);
				free(s->path);
				free(s->rot_name);
				goto nomem;
			}
		}
		pthread_mutex_init(&s->lock, NULL);
		log->sinks->n = i + 1;
	}
	log->sinks->min_level = SR_LOG_OFF;
	for (int i = 0; i < log->sinks->n; i++)
		if ((int)log->sinks->s[i].cfg.level < log->sinks->min_level)
			log->sinks->min_level = (int)log->sinks->s[i].cfg.level;
	return SR_OK;
nomem:
	sr_error_set(err, SR_ENOMEM, "cannot allocate sink %d", log->sinks->n);
fail:
	/* Undo the sinks opened so far; descriptors the caller gave stay open. */
	for (int i = 0; i < log->sinks->n; i++) {
		sr_log_sink *s = &log->sinks->s[i];
		if (s->cfg.kind == SR_SINK_FILE && s->fd >= 0)
			close(s->fd);
		pthread_mutex_destroy(&s->lock);
		free(s->buf);
		free(s->path);
		free(s->rot_name);
	}
	log->sinks->n = 0;
	return err != NULL ? err->code : SR_ESYS;
}

static void
flush_one(sr_log_sink *s)
{
	if (s->len > 0) {
		pthread_mutex_lock(&s->lock);
		sink_write_locked(s, s->buf, s->len);
		pthread_mutex_unlock(&s->lock);
		s->len = 0;
	}
}

void
sr_log__sinks_flush(sr_log *log)
{
	for (int i = 0; i < log->sinks->n; i++) {
		sr_log_sink *s = &log->sinks->s[i];
		flush_one(s);
		if (s->cfg.kind == SR_SINK_CALLBACK && s->cfg.flush != NULL && s->batch_messages > 0) {
			pthread_mutex_lock(&s->lock);
			sr_log__self.in_sink++;
			s->cfg.flush(s->cfg.ctx);
			sr_log__self.in_sink--;
			pthread_mutex_unlock(&s->lock);
		}
		if (s->batch_messages > 0) {
			sr_log__sink_add(&s->messages, (int64_t)s->batch_messages);
			s->batch_messages = 0;
		}
	}
}

void
sr_log__dispatch_buffered(sr_log *log, int level, const char *line, size_t len)
{
	for (int i = 0; i < log->sinks->n; i++) {
		sr_log_sink *s = &log->sinks->s[i];
		if (level < (int)s->cfg.level)
			continue;
		s->batch_messages++;
		switch (s->cfg.kind) {
		case SR_SINK_NULL:
			break;
		case SR_SINK_CALLBACK:
			pthread_mutex_lock(&s->lock);
			callback_locked(s, level, line, len);
			pthread_mutex_unlock(&s->lock);
			break;
		default:
			if (s->len + len > s->cap)
				flush_one(s);
			if (len > s->cap) {
				/* Bigger than the whole buffer: write it as it is. */
				pthread_mutex_lock(&s->lock);
				sink_write_locked(s, line, len);
				pthread_mutex_unlock(&s->lock);
			} else {
				memcpy(s->buf + s->len, line, len);
				s->len += len;
			}
			break;
		}
	}
}

void
sr_log__dispatch_now(sr_log *log, int level, const char *line, size_t len)
{
	for (int i = 0; i < log->sinks->n; i++) {
		sr_log_sink *s = &log->sinks->s[i];
		if (level < (int)s->cfg.level)
			continue;
		sr_log__sink_add(&s->messages, 1);
		if (s->cfg.kind == SR_SINK_NULL)
			continue;
		pthread_mutex_lock(&s->lock);
		if (s->cfg.kind == SR_SINK_CALLBACK) {
			if (!s->closed)
				callback_locked(s, level, line, len);
		} else {
			sink_write_locked(s, line, len);
		}
		pthread_mutex_unlock(&s->lock);
	}
}

void
sr_log__sinks_close(sr_log *log)
{
	sr_log__sinks_flush(log);
	for (int i = 0; i < log->sinks->n; i++) {
		sr_log_sink *s = &log->sinks->s[i];
		pthread_mutex_lock(&s->lock);
		if (!s->closed) {
			s->closed = true;
			if (s->owns_fd && s->fd >= 0)
				close(s->fd);
			if (s->cfg.kind == SR_SINK_CALLBACK && s->cfg.close != NULL) {
				sr_log__self.in_sink++;
				s->cfg.close(s->cfg.ctx);
				sr_log__self.in_sink--;
			}
		}
		pthread_mutex_unlock(&s->lock);
	}
}

void
sr_log__sinks_free(sr_log *log)
{
	if (log->sinks == NULL)
		return;
	for (int i = 0; i < log->sinks->n; i++) {
		sr_log_sink *s = &log->sinks->s[i];
		pthread_mutex_destroy(&s->lock);
		free(s->buf);
		free(s->path);
		free(s->rot_name);
	}
	free(log->sinks);
	log->sinks = NULL;
}

sr_sink_config
sr_sink_file(const char *path)
{
	sr_sink_config c;
	memset(&c, 0, sizeof c);
	c.kind = SR_SINK_FILE;
	c.level = SR_LOG_TRACE;
	c.path = path;
	c.file_mode = 0640;
	c.fd = -1;
	c.buffer_bytes = 64 * 1024;
	c.write_timeout_ms = 100;
	c.max_file_bytes = 0;
	c.keep_files = 5;
	c.rotate_daily = false;
	return c;
}

sr_sink_config
sr_sink_rotating(const char *path, uint64_t max_file_bytes, int keep_files)
{
	sr_sink_config c = sr_sink_file(path);
	c.max_file_bytes = max_file_bytes;
	c.keep_files = keep_files;
	return c;
}

static void
describe_config(const sr_sink_config *c, char *buf, size_t size)
{
	int n;
	switch (c->kind) {
	case SR_SINK_FILE:
		n = snprintf(buf, size, "file %s level=%s buffer=%zu", c->path != NULL ? c->path : "?",
		    sr_log_level_name(c->level), c->buffer_bytes);
		if (n > 0 && (size_t)n < size && c->max_file_bytes > 0)
			n += snprintf(buf + n, size - (size_t)n, " max_size=%" PRIu64 " keep=%d", c->max_file_bytes,
			    c->keep_files);
		if (n > 0 && (size_t)n < size && c->rotate_daily)
			snprintf(buf + n, size - (size_t)n, " daily%s", c->max_file_bytes > 0 ? "" : " (keep applies)");
		break;
	case SR_SINK_FD:
		snprintf(buf, size, "fd %d%s level=%s buffer=%zu", c->fd,
		    c->fd == 1 ? " (stdout)" : c->fd == 2 ? " (stderr)" : "", sr_log_level_name(c->level),
		    c->buffer_bytes);
		break;
	case SR_SINK_NULL:
		snprintf(buf, size, "null level=%s", sr_log_level_name(c->level));
		break;
	default:
		snprintf(buf, size, "callback level=%s", sr_log_level_name(c->level));
		break;
	}
}

static void
write_raw(sr_log_sink *s, const char *p, size_t n)
{
	/* Signal context: write and poll only; a full descriptor gets ten 100 ms chances. */
	int full = 0;
	if (s->midline && n > 0) {
		/* As plain_write_locked: end a line a failed write left open. */
		static const char cut[] = " " SR_FMT_TRUNCATION_MARKER "\n";
		s->midline = false;
		write_raw(s, cut, sizeof cut - 1);
	}
	while (n > 0 && s->fd >= 0) {
		ssize_t w = write(s->fd, p, n);
		if (w > 0) {
			p += w;
			n -= (size_t)w;
			continue;
		}
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && full++ < 10) {
			struct pollfd pfd = { .fd = s->fd, .events = POLLOUT };
			poll(&pfd, 1, 100);
			continue;
		}
		return;
	}
}

sr_sink_config
sr_sink_fd(int fd)
{
	sr_sink_config c = sr_sink_file(NULL);
	c.kind = SR_SINK_FD;
	c.fd = fd;
	return c;
}

sr_sink_config
sr_sink_null(void)
{
	sr_sink_config c = sr_sink_file(NULL);
	c.kind = SR_SINK_NULL;
	return c;
}

sr_sink_config
sr_sink_callback(sr_sink_write_fn write, void *ctx)
{
	sr_sink_config c = sr_sink_file(NULL);
	c.kind = SR_SINK_CALLBACK;
	c.write = write;
	c.ctx = ctx;
	return c;
}

int
sr_log__sinks_min_level(const sr_log *log)
{
	return log->sinks != NULL ? log->sinks->min_level : SR_LOG_OFF;
}

void
sr_log__sinks_stats(const sr_log *log, sr_log_counters *st)
{
	st->sink_count = log->sinks->n;
	for (int i = 0; i < log->sinks->n; i++) {
		const sr_log_sink *s = &log->sinks->s[i];
		sr_log_sink_counters *o = &st->sinks[i];
		o->messages = (uint64_t)sr_atomic_load_relaxed_i64(&s->messages);
		o->bytes = (uint64_t)sr_atomic_load_relaxed_i64(&s->bytes);
		o->writes = (uint64_t)sr_atomic_load_relaxed_i64(&s->writes);
		o->errors = (uint64_t)sr_atomic_load_relaxed_i64(&s->errors);
		o->lost_bytes = (uint64_t)sr_atomic_load_relaxed_i64(&s->lost_bytes);
		o->rotations = (uint64_t)sr_atomic_load_relaxed_i64(&s->rotations);
		st->sink_errors += o->errors;
	}
}

bool
sr_log__sinks_describe(const sr_log *log, int i, char *buf, size_t size)
{
	if (i < 0 || i >= log->sinks->n)
		return false;
	describe_config(&log->sinks->s[i].cfg, buf, size);
	return true;
}

void
sr_log__sinks_abandon(sr_log *log)
{
	if (log->sinks == NULL)
		return;
	for (int i = 0; i < log->sinks->n; i++) {
		sr_log_sink *s = &log->sinks->s[i];
		if (s->cfg.kind == SR_SINK_FILE && s->fd >= 0) {
			close(s->fd);
			s->fd = -1;
		}
	}
}

static bool
takes_raw(const sr_log_sink *s)
{
	return s->cfg.kind == SR_SINK_FILE || s->cfg.kind == SR_SINK_FD;
}

void
sr_log__sinks_write_raw(sr_log *log, int level, const char *line, size_t len)
{
	for (int i = 0; i < log->sinks->n; i++) {
		sr_log_sink *s = &log->sinks->s[i];
		if (takes_raw(s) && level >= (int)s->cfg.level)
			write_raw(s, line, len);
	}
}

void
sr_log__sinks_write_buffers_raw(sr_log *log)
{
	for (int i = 0; i < log->sinks->n; i++) {
		sr_log_sink *s = &log->sinks->s[i];
		if (takes_raw(s) && s->len > 0 && s->len <= s->cap) {
			write_raw(s, s->buf, s->len);
			s->len = 0;
		}
	}
}

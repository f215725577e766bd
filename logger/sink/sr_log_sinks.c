/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_sinks.c: where lines go.  File, descriptor, null and callback sinks:
 * opening them, the consumer's per-sink buffers (lines are appended during
 * a batch and written at its end, or when a buffer fills), a caller's
 * immediate writes (sync mode, policy sync), flushing and closing.  Writing
 * and its errors are sr_log_sink_write.c; rotation is sr_log_sink_rotate.c;
 * the syslog sink is sr_log_sink_syslog.c's, the journald sink
 * sr_log_sink_journald.c's; the public constructors of a
 * sink's configuration (sr_sink_file, ...) are sr_log_sink_config.c.
 *
 * Nothing here waits without a bound except a write(2) to a blocking
 * descriptor whose reader stopped reading: that is the sink's nature (and
 * what the full-queue policies are for).
 */
#include "sr_log_console_internal.h"
#include "sr_log_journald_internal.h"
#include "sr_log_reopen_internal.h"
#include "sr_log_sink_behind_internal.h"
#include "sr_log_sink_internal.h"
#include "sr_log_syslog_internal.h"
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
	sr_log__sink_add(&s->lost_messages, 1);
	s->lost_pending++;
	char what[64];
	snprintf(what, sizeof what, "write callback returned %d", rc);
	sr_log__sink_report_once(s, what);
}

/* Frees what opening gave sink s: its syslog state, string copies, buffer and names (not its lock). */
static void
free_sink_memory(sr_log_sink *s)
{
	sr_log__syslog_free(s);
	sr_log__journald_sink_free(s);
	for (int k = 0; k < 3; k++) {
		free(s->copies[k]);
		s->copies[k] = NULL;
	}
	/* A logger that ran closed its ctf sinks in sr_log__sinks_close: one still open here never ran. */
	sr_log__ctf_sink_abandon(s);
	sr_log__sink_behind_free(s->behind);
	s->behind = NULL;
	free(s->buf);
	free(s->path);
	free(s->rot_name);
	s->buf = s->path = s->rot_name = NULL;
}

/* Closes the file a file sink opened; descriptors the caller gave stay open. */
static void
close_own_file(sr_log_sink *s)
{
	if (s->cfg.kind == SR_SINK_FILE && s->fd >= 0) {
		close(s->fd);
		s->fd = -1;
	}
}

/* Undoes an open of s: the file it opened, its memory. */
static void
undo_open(sr_log_sink *s)
{
	close_own_file(s);
	free_sink_memory(s);
}

static int
no_memory(sr_error *err, int i)
{
	return sr_error_set(err, SR_ENOMEM, "cannot allocate sink %d", i);
}

/* A file sink: its path, the scratch for rotation's names, and its file, opened (created). */
static int
open_file_sink(sr_log_sink *s, const sr_sink_config *c, int i, sr_error *err)
{
	s->path = strdup(c->path);
	s->rot_name_size = strlen(c->path) + 16;
	s->rot_name = malloc(2 * s->rot_name_size); /* two names: rename from, to */
	if (s->path == NULL || s->rot_name == NULL)
		return no_memory(err, i);
	s->cfg.path = s->path;
	int e = sr_log__sink_open_file(s);
	if (e != 0)
		return sr_error_set(err, SR_ESYS, "config.sinks[%d].path '%s' cannot be opened: %s",
		    i, c->path, strerror(e));
	s->owns_fd = true;
	return SR_OK;
}

/* A descriptor sink: the caller's descriptor, its pipe resized when pipe_bytes asks. */
static int
open_fd_sink(sr_log_sink *s, const sr_sink_config *c, int i, sr_error *err)
{
	s->fd = c->fd;
	s->owns_fd = c->close_fd;
	if (c->pipe_bytes <= 0)
		return SR_OK;
	struct stat pst;
	if (fstat(c->fd, &pst) != 0 || !S_ISFIFO(pst.st_mode))
		return sr_error_set(err, SR_EINVAL,
		    "config.sinks[%d].pipe_bytes %d is set but fd %d is not a pipe",
		    i, c->pipe_bytes, c->fd);
	if (fcntl(c->fd, F_SETPIPE_SZ, c->pipe_bytes) < 0) {
		int e = errno;
		return sr_error_set(err, SR_ESYS,
		    "config.sinks[%d].pipe_bytes %d: cannot resize the pipe: %s%s", i,
		    c->pipe_bytes, strerror(e),
		    e == EPERM ? " (above /proc/sys/fs/pipe-max-size)" : "");
	}
	return SR_OK;
}

/* Opens sink i as c says, into s; on failure s holds nothing and err says why. */
static int
open_sink(sr_log *log, sr_log_sink *s, const sr_sink_config *c, int i, sr_error *err)
{
	memset(s, 0, sizeof *s);
	s->cfg = *c;
	s->index = i;
	s->fd = -1;
	s->cfg.path = NULL;
	int rc = SR_OK;
	/* The configuration's strings may die with it (the environment's copy does). */
	const char **strings[3] = { &s->cfg.pattern, &s->cfg.syslog_address, &s->cfg.syslog_app };
	for (int k = 0; k < 3; k++) {
		if (*strings[k] == NULL)
			continue;
		s->copies[k] = strdup(*strings[k]);
		if (s->copies[k] == NULL) {
			rc = no_memory(err, i);
			goto undo;
		}
		*strings[k] = s->copies[k];
	}
	switch (c->kind) {
	case SR_SINK_FILE:
		rc = open_file_sink(s, c, i, err);
		break;
	case SR_SINK_FD:
		rc = open_fd_sink(s, c, i, err);
		break;
	case SR_SINK_SYSLOG:
		rc = sr_log__syslog_open(s, log->opt.max_line, err);
		break;
	case SR_SINK_CTF:
		rc = sr_log__ctf_sink_open(log, s, c, i, err);
		break;
	case SR_SINK_JOURNALD:
		rc = sr_log__journald_sink_open(log, s, i, err);
		break;
	default:
		break;
	}
	if (rc != SR_OK)
		goto undo;
	if (s->fd >= 0) {
		struct stat st;
		if (fstat(s->fd, &st) == 0)
			s->may_sigpipe = S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode);
		s->cap = c->buffer_bytes;
		s->buf_size = s->cap;
		s->buf = malloc(s->cap);
		if (s->buf == NULL) {
			rc = no_memory(err, i);
			goto undo;
		}
	}
	pthread_mutex_init(&s->lock, NULL);
	return SR_OK;
undo:
	undo_open(s);
	return rc;
}

static void write_for_batch(sr_log_sink *s, const char *p, size_t n);

/* Whether the consumer may lay lines straight into s's buffer: it only buffers them, whole. */
static bool
buffers_whole_lines(const sr_log_sink *s)
{
	return (s->cfg.kind == SR_SINK_FILE || s->cfg.kind == SR_SINK_FD) && s->buf != NULL && !s->color &&
	    !s->takes_events && !sr_log__sink_rotates(s);
}

static void
choose_direct_sinks(sr_log *log)
{
	struct sr_log_sinks *sinks = log->sinks;
	for (int k = 0; k <= SR_LOG_MAX_SINKS; k++) {
		int taker = -1, takers = 0;
		for (int i = 0; i < sinks->n; i++) {
			const sr_log_sink *s = &sinks->s[i];
			if (s->layout == k && s->cfg.kind != SR_SINK_CTF && !s->takes_events) {
				taker = i;
				takers++;
			}
		}
		sinks->direct_sink[k] = -1;
		if (takers != 1 || !buffers_whole_lines(&sinks->s[taker]))
			continue;
		/*
		 * Room for a whole line past cap, and the reserve after it where a
		 * cut line's marker and every line's '\n' go (sr_log__end_line): a
		 * line laid out at any len <= cap fits.
		 */
		sr_log_sink *s = &sinks->s[taker];
		char *grown = realloc(s->buf, s->cap + log->opt.max_line + SR_FMT_LINE_RESERVE);
		if (grown == NULL)
			continue;  /* the lines are copied, as for any sink */
		s->buf = grown;
		s->buf_size = s->cap + log->opt.max_line + SR_FMT_LINE_RESERVE;
		sinks->direct_sink[k] = taker;
	}
	for (int l = 0; l < SR_LOG_LEVEL_COUNT; l++) {
		unsigned mask = sinks->layouts_for_level[l];
		int k = mask != 0 && (mask & (mask - 1)) == 0 ? __builtin_ctz(mask) : -1;
		bool sole = k >= 0 && sinks->direct_sink[k] >= 0 && !sinks->has_ctf && !sinks->journald_events;
		sinks->sole[l].sink = sole ? &sinks->s[sinks->direct_sink[k]] : NULL;
		sinks->sole[l].layout = sole ? sinks->layouts[k].layout : SR_LOG_LAYOUT_TEXT;
	}
}

void
sr_log__sink_line_past_cap(sr_log_sink *s, size_t len)
{
	/*
	 * Past cap: the writes a copy would have made (dispatch_buffered), the
	 * lines before it first, then this one alone when it is bigger than
	 * the buffer, or at the start of the next batch.
	 */
	char *line = s->buf + s->len;
	if (s->len > 0 && len <= s->cap && sr_log__sink_behind_on(s->behind)) {
		/*
		 * The lines before it go to the writer, and the line, past what was
		 * handed (the writer reads only that), moves to the start of the
		 * other buffer.
		 */
		sr_log__sink_behind_hand(s);
		memcpy(s->buf, line, len);
		s->len = len;
		return;
	}
	if (s->len > 0)
		write_for_batch(s, s->buf, s->len);
	s->len = 0;
	if (len > s->cap) {
		write_for_batch(s, line, len);
		return;
	}
	memmove(s->buf, line, len);
	s->len = len;
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
		if (open_sink(log, &log->sinks->s[i], &configs[i], i, err) != SR_OK)
			goto fail;
		log->sinks->n = i + 1;
	}
	log->sinks->min_level = SR_LOG_OFF;
	for (int i = 0; i < log->sinks->n; i++)
		if ((int)log->sinks->s[i].cfg.level < log->sinks->min_level)
			log->sinks->min_level = (int)log->sinks->s[i].cfg.level;
	if (sr_log__sinks_layouts_open(log, configs, count, err) != SR_OK)
		goto fail;
	for (int i = 0; i < log->sinks->n; i++) {
		sr_log_sink *s = &log->sinks->s[i];
		sr_log_layout lay = log->sinks->layouts[s->layout].layout;
		s->color = s->cfg.kind == SR_SINK_FD && (lay == SR_LOG_LAYOUT_TEXT || lay == SR_LOG_LAYOUT_PATTERN) &&
		    sr_log__console_colors(s->fd, log->opt.color);
	}
	choose_direct_sinks(log);
	return SR_OK;
fail:
	/* Undo the sinks opened so far (the one that failed undid itself). */
	for (int i = 0; i < log->sinks->n; i++) {
		sr_log_sink *s = &log->sinks->s[i];
		pthread_mutex_destroy(&s->lock);
		undo_open(s);
	}
	sr_log__sinks_layouts_free(log->sinks);
	log->sinks->n = 0;
	return err != NULL ? err->code : SR_ESYS;
}

/* What the write just made under s->lock lost, for the consumer's batch. */
static void
take_lost_locked(sr_log_sink *s)
{
	s->batch_lost += s->lost_pending;
	s->lost_pending = 0;
}

/*
 * Consumer: writes p[0..n) now, under the sink's lock, after what its
 * writer was handed; what it lost counts for the batch.
 */
static void
write_for_batch(sr_log_sink *s, const char *p, size_t n)
{
	sr_log__sink_behind_wait(s->behind);
	pthread_mutex_lock(&s->lock);
	sr_log__sink_write_locked(s, p, n);
	take_lost_locked(s);
	pthread_mutex_unlock(&s->lock);
}

/*
 * Consumer: the buffer's lines go out.  leave: they may still be on their
 * way when this returns (handed to the sink's writer, when it runs);
 * otherwise they are written, and so is everything handed before.
 */
static void
flush_one(sr_log_sink *s, bool leave)
{
	if (s->len > 0 && leave && sr_log__sink_behind_on(s->behind)) {
		sr_log__sink_behind_hand(s);
	} else if (s->len > 0) {
		write_for_batch(s, s->buf, s->len);
		s->len = 0;
	} else if (!leave) {
		sr_log__sink_behind_wait(s->behind);
	}
}

static uint64_t
flush_sinks(sr_log *log, bool behind)
{
	uint64_t lost = 0;
	/*
	 * Behind, a file sink's lines may go on their way to its writer; not
	 * before a reopen, which sends everything so far to the old file.
	 */
	bool leave = behind && sr_atomic_load_relaxed_i32(&log->sinks->reopen_asked) == 0;
	for (int i = 0; i < log->sinks->n; i++) {
		sr_log_sink *s = &log->sinks->s[i];
		flush_one(s, leave);
		if (s->cfg.kind == SR_SINK_CTF)
			s->batch_lost += behind ? sr_log__ctf_sink_flush_behind(s) : sr_log__ctf_sink_flush(s);
		if (s->cfg.kind == SR_SINK_SYSLOG)
			sr_log__syslog_flush(s);
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
		if (s->batch_lost > lost)
			lost = s->batch_lost;
		s->batch_lost = 0;
	}
	sr_log__sinks_reopen_if_asked(log);
	return lost;
}

uint64_t
sr_log__sinks_flush(sr_log *log)
{
	return flush_sinks(log, false);
}

uint64_t
sr_log__sinks_flush_behind(sr_log *log)
{
	return flush_sinks(log, true);
}

static void
dispatch_buffered(sr_log *log, int layout, const sr_log_event *ev, int level, const char *line, size_t len)
{
	for (int i = 0; i < log->sinks->n; i++) {
		sr_log_sink *s = &log->sinks->s[i];
		if (level < (int)s->cfg.level || (layout >= 0 && s->layout != layout) || s->cfg.kind == SR_SINK_CTF ||
		    (layout >= 0 && s->takes_events))
			continue;
		s->batch_messages++;
		switch (s->cfg.kind) {
		case SR_SINK_NULL:
			break;
		case SR_SINK_CALLBACK:
			pthread_mutex_lock(&s->lock);
			callback_locked(s, level, line, len);
			take_lost_locked(s);
			pthread_mutex_unlock(&s->lock);
			break;
		case SR_SINK_SYSLOG:
			sr_log__syslog_append(s, ev, level, line, len);
			break;
		case SR_SINK_JOURNALD:
			sr_log__journald_sink_put(s, ev, level, line, len, false);
			break;
		default:
			if (s->len + len + (s->color ? SR_LOG_COLOR_EXTRA : 0) > s->cap)
				flush_one(s, true);  /* within a batch: its end decides what waits */
			if (s->color) {
				size_t n = sr_log__console_color_line(level, line, len, s->buf + s->len, s->cap - s->len);
				if (n > 0) {
					s->len += n;
					break;
				}
			}
			if (len > s->cap) {
				/* Bigger than the whole buffer: write it as it is. */
				write_for_batch(s, line, len);
			} else {
				memcpy(s->buf + s->len, line, len);
				s->len += len;
			}
			break;
		}
	}
}

static bool
dispatch_now(sr_log *log, int layout, const sr_log_event *ev, int level, const char *line, size_t len)
{
	bool reached = true;
	for (int i = 0; i < log->sinks->n; i++) {
		sr_log_sink *s = &log->sinks->s[i];
		if (level < (int)s->cfg.level || (layout >= 0 && s->layout != layout) || s->cfg.kind == SR_SINK_CTF ||
		    (layout >= 0 && s->takes_events))
			continue;
		sr_log__sink_add(&s->messages, 1);
		if (s->cfg.kind == SR_SINK_NULL)
			continue;
		pthread_mutex_lock(&s->lock);
		if (s->cfg.kind == SR_SINK_CALLBACK) {
			if (!s->closed)
				callback_locked(s, level, line, len);
		} else if (s->cfg.kind == SR_SINK_SYSLOG) {
			if (!s->closed)
				sr_log__syslog_send_now_locked(s, ev, level, line, len);
		} else if (s->cfg.kind == SR_SINK_JOURNALD) {
			sr_log__journald_sink_put(s, ev, level, line, len, true);
		} else {
			char colored[4096];
			size_t n = s->color ? sr_log__console_color_line(level, line, len, colored, sizeof colored) : 0;
			if (n > 0)
				sr_log__sink_write_locked(s, colored, n);
			else
				sr_log__sink_write_locked(s, line, len);
		}
		reached = reached && s->lost_pending == 0;
		s->lost_pending = 0;
		pthread_mutex_unlock(&s->lock);
	}
	return reached;
}

void
sr_log__dispatch_to(sr_log *log, int layout, int how, const sr_log_event *ev, int level,
    const char *line, size_t len)
{
	switch (how) {
	case SR_DISPATCH_NOW:
		(void)dispatch_now(log, layout, ev, level, line, len);
		break;
	case SR_DISPATCH_RAW:
		sr_log__sinks_write_raw_layout(log, layout, level, line, len);
		break;
	default:
		dispatch_buffered(log, layout, ev, level, line, len);
		break;
	}
}

void
sr_log__dispatch_buffered(sr_log *log, int level, const char *line, size_t len)
{
	dispatch_buffered(log, -1, NULL, level, line, len);
}

bool
sr_log__dispatch_now(sr_log *log, int level, const char *line, size_t len)
{
	return dispatch_now(log, -1, NULL, level, line, len);
}

void
sr_log__sinks_close(sr_log *log)
{
	(void)sr_log__sinks_flush(log);
	for (int i = 0; i < log->sinks->n; i++) {
		sr_log_sink *s = &log->sinks->s[i];
		/* Idle after the flush: ends before the descriptor does. */
		sr_log__sink_behind_stop(s->behind);
		pthread_mutex_lock(&s->lock);
		if (!s->closed) {
			s->closed = true;
			if (s->owns_fd && s->fd >= 0)
				close(s->fd);
			sr_log__syslog_close(s);
			sr_log__journald_sink_close(s);
			sr_log__ctf_sink_close(s);
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
sr_log__sinks_fork(sr_log *log, int phase)
{
	for (int i = 0; i < log->sinks->n; i++) {
		sr_log_sink *s = &log->sinks->s[i];
		if (phase == 0) {
			pthread_mutex_lock(&s->lock);
			continue;
		}
		if (phase == 2) {
			/* The child: what the parent's consumer had buffered (or handed) is the parent's to write. */
			s->len = 0;
			sr_log__sink_behind_after_fork_child(s->behind);
			s->batch_messages = 0;
			s->batch_lost = 0;
			s->lost_pending = 0;
			sr_atomic_i64 *counts[] = { &s->messages, &s->bytes, &s->writes, &s->errors, &s->lost_bytes,
				&s->lost_messages };
			for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++)
				sr_atomic_store_relaxed_i64(counts[k], 0);
			sr_log__ctf_sink_after_fork(s);
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
		/* The writer, if one still ran, takes the lock: it ends first. */
		sr_log__sink_behind_stop(s->behind);
		pthread_mutex_destroy(&s->lock);
		free_sink_memory(s);
	}
	sr_log__sinks_layouts_free(log->sinks);
	free(log->sinks);
	log->sinks = NULL;
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
			n += snprintf(buf + n, size - (size_t)n, " daily%s", c->max_file_bytes > 0 ? "" : " (keep applies)");
		if (n > 0 && (size_t)n < size && !c->write_behind)
			snprintf(buf + n, size - (size_t)n, " behind=0");
		break;
	case SR_SINK_FD:
		snprintf(buf, size, "fd %d%s level=%s buffer=%zu", c->fd,
		    c->fd == 1 ? " (stdout)" : c->fd == 2 ? " (stderr)" : "", sr_log_level_name(c->level),
		    c->buffer_bytes);
		break;
	case SR_SINK_NULL:
		snprintf(buf, size, "null level=%s", sr_log_level_name(c->level));
		break;
	case SR_SINK_SYSLOG:
		sr_log__syslog_describe(c, buf, size);
		break;
	case SR_SINK_CTF:
		sr_log__ctf_sink_describe(c, buf, size);
		break;
	case SR_SINK_JOURNALD:
		sr_log__journald_describe(c, buf, size);
		break;
	default:
		snprintf(buf, size, "callback level=%s", sr_log_level_name(c->level));
		break;
	}
}

const char *
sr_log__sinks_track(sr_log *log, const sr_log_sink_write_hook *hook, void *ctx)
{
	for (int i = 0; i < log->sinks->n; i++) {
		sr_log_sink *s = &log->sinks->s[i];
		if (s->cfg.kind != SR_SINK_FILE)
			continue;
		s->hook = hook;
		s->hook_ctx = ctx;
		return s->path;
	}
	return NULL;
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
		o->lost_messages = (uint64_t)sr_atomic_load_relaxed_i64(&s->lost_messages);
		o->rotations = (uint64_t)sr_atomic_load_relaxed_i64(&s->rotations);
		/* A syslog sink's undelivered messages are counted by the sink itself (none for others). */
		o->lost_messages += sr_log__syslog_lost(s);
		o->reopens = (uint64_t)sr_atomic_load_relaxed_i64(&s->reopens);
		if (s->ctf != NULL)
			sr_log__ctf_sink_counters(s, o);
		if (s->journald != NULL)
			sr_log__journald_sink_counters(s, o);
		st->sink_errors += o->errors;
	}
}

bool
sr_log__sinks_describe(const sr_log *log, int i, char *buf, size_t size)
{
	if (i < 0 || i >= log->sinks->n)
		return false;
	describe_config(&log->sinks->s[i].cfg, buf, size);
	size_t n = strlen(buf);
	/* A trace has no layout: seqring-decode chooses one when it reads it. */
	if (n + 1 < size && log->sinks->s[i].takes_events) {
		/* A journald sink's default: MESSAGE is the message alone, not a line. */
		snprintf(buf + n, size - n, " layout=message (unescaped: the journald sink's default)");
	} else if (n + 1 < size && log->sinks->s[i].cfg.kind != SR_SINK_CTF) {
		buf[n] = ' ';
		sr_log__sink_layout_describe(log, &log->sinks->s[i], buf + n + 1, size - n - 1);
	}
	return true;
}

void
sr_log__sinks_abandon(sr_log *log)
{
	if (log->sinks == NULL)
		return;
	for (int i = 0; i < log->sinks->n; i++) {
		sr_log__sink_behind_stop(log->sinks->s[i].behind);
		close_own_file(&log->sinks->s[i]);
	}
}

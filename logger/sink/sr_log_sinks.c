/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_sinks.c: where lines go.  File, descriptor, null and callback sinks:
 * opening them, the consumer's per-sink buffers (lines are appended during
 * a batch and written at its end, or when a buffer fills), a caller's
 * immediate writes (sync mode, policy sync), flushing and closing.  Writing
 * and its errors are sr_log_sink_write.c; rotation is sr_log_sink_rotate.c.
 *
 * Nothing here waits without a bound except a write(2) to a blocking
 * descriptor whose reader stopped reading: that is the sink's nature (and
 * what the full-queue policies are for).
 */
#include "sr_log_console_internal.h"
#include "sr_log_reopen_internal.h"
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
	sr_log__sink_add(&s->lost_messages, 1);
	s->lost_pending++;
	char what[64];
	snprintf(what, sizeof what, "write callback returned %d", rc);
	sr_log__sink_report_once(s, what);
}

static void
free_copies(sr_log_sink *s)
{
	for (int k = 0; k < 3; k++) {
		free(s->copies[k]);
		s->copies[k] = NULL;
	}
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
		/* The configuration's strings may die with it (the environment's copy does). */
		const char **strings[3] = { &s->cfg.pattern, &s->cfg.syslog_address, &s->cfg.syslog_app };
		for (int k = 0; k < 3; k++) {
			if (*strings[k] == NULL)
				continue;
			s->copies[k] = strdup(*strings[k]);
			if (s->copies[k] == NULL)
				goto nomem;
			*strings[k] = s->copies[k];
		}
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
		case SR_SINK_SYSLOG:
			if (sr_log__syslog_open(s, log->opt.max_line, err) != SR_OK)
				goto fail;
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
	if (sr_log__sinks_layouts_open(log, configs, count, err) != SR_OK)
		goto fail;
	for (int i = 0; i < log->sinks->n; i++) {
		sr_log_sink *s = &log->sinks->s[i];
		sr_log_layout lay = log->sinks->layouts[s->layout].layout;
		s->color = s->cfg.kind == SR_SINK_FD && (lay == SR_LOG_LAYOUT_TEXT || lay == SR_LOG_LAYOUT_PATTERN) &&
		    sr_log__console_colors(s->fd, log->opt.color);
	}
	return SR_OK;
nomem:
	sr_error_set(err, SR_ENOMEM, "cannot allocate sink %d", log->sinks->n);
fail:
	/* The sink that failed (it is not counted in n yet) may have copied its strings. */
	if (log->sinks->n < SR_LOG_MAX_SINKS)
		free_copies(&log->sinks->s[log->sinks->n]);
	/* Undo the sinks opened so far; descriptors the caller gave stay open. */
	for (int i = 0; i < log->sinks->n; i++) {
		sr_log_sink *s = &log->sinks->s[i];
		if (s->cfg.kind == SR_SINK_FILE && s->fd >= 0)
			close(s->fd);
		pthread_mutex_destroy(&s->lock);
		sr_log__syslog_free(s);
		free_copies(s);
		free(s->buf);
		free(s->path);
		free(s->rot_name);
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

static void
flush_one(sr_log_sink *s)
{
	if (s->len > 0) {
		pthread_mutex_lock(&s->lock);
		sink_write_locked(s, s->buf, s->len);
		take_lost_locked(s);
		pthread_mutex_unlock(&s->lock);
		s->len = 0;
	}
}

uint64_t
sr_log__sinks_flush(sr_log *log)
{
	uint64_t lost = 0;
	for (int i = 0; i < log->sinks->n; i++) {
		sr_log_sink *s = &log->sinks->s[i];
		flush_one(s);
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

static void
dispatch_buffered(sr_log *log, int layout, const sr_log_event *ev, int level, const char *line, size_t len)
{
	for (int i = 0; i < log->sinks->n; i++) {
		sr_log_sink *s = &log->sinks->s[i];
		if (level < (int)s->cfg.level || (layout >= 0 && s->layout != layout))
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
		default:
			if (s->len + len + (s->color ? SR_LOG_COLOR_EXTRA : 0) > s->cap)
				flush_one(s);
			if (s->color) {
				size_t n = sr_log__console_color_line(level, line, len, s->buf + s->len, s->cap - s->len);
				if (n > 0) {
					s->len += n;
					break;
				}
			}
			if (len > s->cap) {
				/* Bigger than the whole buffer: write it as it is. */
				pthread_mutex_lock(&s->lock);
				sink_write_locked(s, line, len);
				take_lost_locked(s);
				pthread_mutex_unlock(&s->lock);
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
		if (level < (int)s->cfg.level || (layout >= 0 && s->layout != layout))
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
		} else {
			char colored[4096];
			size_t n = s->color ? sr_log__console_color_line(level, line, len, colored, sizeof colored) : 0;
			if (n > 0)
				sink_write_locked(s, colored, n);
			else
				sink_write_locked(s, line, len);
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
		pthread_mutex_lock(&s->lock);
		if (!s->closed) {
			s->closed = true;
			if (s->owns_fd && s->fd >= 0)
				close(s->fd);
			sr_log__syslog_close(s);
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
			/* The child: what the parent's consumer had buffered is the parent's to write. */
			s->len = 0;
			s->batch_messages = 0;
			s->batch_lost = 0;
			s->lost_pending = 0;
			sr_atomic_i64 *counts[] = { &s->messages, &s->bytes, &s->writes, &s->errors, &s->lost_bytes,
				&s->lost_messages };
			for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++)
				sr_atomic_store_relaxed_i64(counts[k], 0);
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
		sr_log__syslog_free(s);
		free_copies(s);
		free(s->buf);
		free(s->path);
		free(s->rot_name);
	}
	sr_log__sinks_layouts_free(log->sinks);
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
	c.layout = SR_LOG_LAYOUT_LOGGER;
	c.pattern = NULL;
	c.syslog_transport = SR_SYSLOG_LOCAL;
	c.syslog_facility = 1; /* user */
	c.syslog_format = SR_SYSLOG_5424;
	c.reconnect_max_ms = 2000;
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
	case SR_SINK_SYSLOG:
		sr_log__syslog_describe(c, buf, size);
		break;
	default:
		snprintf(buf, size, "callback level=%s", sr_log_level_name(c->level));
		break;
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
sr_sink_syslog(sr_syslog_transport transport, const char *address)
{
	sr_sink_config c = sr_sink_file(NULL);
	c.kind = SR_SINK_SYSLOG;
	c.syslog_transport = transport;
	c.syslog_address = address;
	/* The local daemons (journald, rsyslog's imuxsock) read the traditional form. */
	if (transport == SR_SYSLOG_LOCAL)
		c.syslog_format = SR_SYSLOG_3164;
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
		o->lost_messages = (uint64_t)sr_atomic_load_relaxed_i64(&s->lost_messages);
		o->rotations = (uint64_t)sr_atomic_load_relaxed_i64(&s->rotations);
		/* A syslog sink's undelivered messages are counted by the sink itself (none for others). */
		o->lost_messages += sr_log__syslog_lost(s);
		o->reopens = (uint64_t)sr_atomic_load_relaxed_i64(&s->reopens);
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
	if (n + 1 < size) {
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
		sr_log_sink *s = &log->sinks->s[i];
		if (s->cfg.kind == SR_SINK_FILE && s->fd >= 0) {
			close(s->fd);
			s->fd = -1;
		}
	}
}

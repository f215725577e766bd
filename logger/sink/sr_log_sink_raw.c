/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_sink_raw.c: the crash handler's writes to the file and descriptor
 * sinks: no lock, no rotation, async-signal-safe (write and poll only).  A
 * line ends one that a failed write left open first, as
 * sr_log__sink_plain_write_locked does; what a sink's writer was handed
 * goes out before the consumer's own buffer.
 */
#include "sr_log_sink_behind_internal.h"
#include "sr_log_sink_internal.h"
#include "sr_time.h"

#include <errno.h>
#include <poll.h>
#include <unistd.h>

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
	bool hooked = s->hook != NULL && n > 0 && s->fd >= 0;
	if (hooked)
		s->hook->before(s->hook_ctx, s->fd, n);
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
		break;
	}
	if (hooked)
		s->hook->after(s->hook_ctx);
}

static bool
takes_raw(const sr_log_sink *s)
{
	return s->cfg.kind == SR_SINK_FILE || s->cfg.kind == SR_SINK_FD;
}

void
sr_log__sinks_write_raw_layout(sr_log *log, int layout, int level, const char *line, size_t len)
{
	for (int i = 0; i < log->sinks->n; i++) {
		sr_log_sink *s = &log->sinks->s[i];
		if (takes_raw(s) && level >= (int)s->cfg.level && (layout < 0 || s->layout == layout))
			write_raw(s, line, len);
	}
}

void
sr_log__sinks_write_raw(sr_log *log, int level, const char *line, size_t len)
{
	sr_log__sinks_write_raw_layout(log, -1, level, line, len);
}

/* How long the crash handler waits for a writer in the middle of a write (sr_log_sink_behind_internal.h). */
#define CRASH_WRITER_NS (100 * INT64_C(1000000))

void
sr_log__sinks_write_buffers_raw(sr_log *log)
{
	int64_t deadline = sr_monotonic_ns() + CRASH_WRITER_NS;
	for (int i = 0; i < log->sinks->n; i++) {
		sr_log_sink *s = &log->sinks->s[i];
		/* What was handed to the sink's writer comes before the consumer's buffer. */
		const char *handed;
		size_t handed_len;
		if (sr_log__sink_behind_claim(s->behind, deadline, &handed, &handed_len)) {
			write_raw(s, handed, handed_len);
			sr_log__sink_behind_release(s->behind);
		}
		if (takes_raw(s) && s->len > 0 && s->len <= s->cap) {
			write_raw(s, s->buf, s->len);
			s->len = 0;
		}
	}
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_layout.c: a record (or the logger's own text) laid out as one
 * line: the event it makes, the layout in force, the message, the line end.
 * The layouts themselves are one file each (sr_log_layout_internal.h).
 */
#include "sr_log_clock_internal.h"
#include "sr_log_layout_internal.h"
#include "sr_log_thread_internal.h"

#include <string.h>

/* The message                                                                              */

void
sr_log__put_message(const sr_log_event *ev, sr_fmt_buf *out)
{
	const sr_log_rec *h = ev->h;
	if (h == NULL) {
		sr_fmt_buf_put(out, ev->text, ev->text_len);
		return;
	}
	const char *format = ev->site != NULL ? ev->site->format : NULL;
	if ((h->kind & SR_REC_KIND_MASK) == SR_REC_FORMAT_ERROR) {
		if (ev->signal_safe) {
			static const char head[] = "format error in \"";
			sr_fmt_buf_put(out, head, sizeof head - 1);
			if (format != NULL)
				sr_fmt_buf_put(out, format, strlen(format));
			sr_fmt_buf_putc(out, '"');
		} else {
			sr_fmt_render_error(out, format);
		}
		return;
	}
	size_t vb = h->value_bytes <= ev->body_len ? h->value_bytes : ev->body_len;
	if (ev->signal_safe)
		sr_fmt_render_safe(out, format, ev->body, vb, ev->body + vb, ev->body_len - vb,
		    h->errno_value);
	else
		sr_fmt_render(out, format, ev->body, vb, ev->body + vb, ev->body_len - vb, h->errno_value);
}


void
sr_log__render_event(const sr_log_layout_choice *lc, const sr_log_event *ev, sr_fmt_buf *out)
{
	switch (lc->layout) {
	case SR_LOG_LAYOUT_MESSAGE:
		if (ev->backtrace)
			sr_fmt_buf_put(out, SR_LOG_BACKTRACE_MARK, sizeof SR_LOG_BACKTRACE_MARK - 1);
		sr_log__put_message_escaped(ev, out);
		break;
	case SR_LOG_LAYOUT_PATTERN:
		if (ev->backtrace)
			sr_fmt_buf_put(out, SR_LOG_BACKTRACE_MARK, sizeof SR_LOG_BACKTRACE_MARK - 1);
		sr_log__pattern_render(lc->pattern, ev, out);
		break;
	case SR_LOG_LAYOUT_JSON:
		sr_log__layout_json(NULL, ev, out);
		break;
	default:
		sr_log__layout_text(ev, out);
		break;
	}
}

bool
sr_log__end_line(sr_log_layout layout, sr_fmt_buf *out)
{
	/* The reserve past cap (SR_FMT_LINE_RESERVE) holds the marker and '\n'. */
	bool cut = sr_fmt_buf_truncated(out);
	if (cut && layout != SR_LOG_LAYOUT_JSON) {
		static const char mark[] = " " SR_FMT_TRUNCATION_MARKER;
		memcpy(out->data + out->len, mark, sizeof mark - 1);
		out->len += sizeof mark - 1;
	}
	out->data[out->len++] = '\n';
	return cut;
}

/* With the logger's own layout. */
static void
render_event(const sr_log *log, const sr_log_event *ev, sr_fmt_buf *out)
{
	sr_log_layout_choice lc = { log->opt.layout, log->pattern };
	sr_log__render_event(&lc, ev, out);
}

bool
sr_log__finish_line(const sr_log *log, sr_fmt_buf *out)
{
	return sr_log__end_line(log->opt.layout, out);
}

void
sr_log__event_of_record(const sr_log *log, const sr_log_rec *h, const unsigned char *body,
    size_t body_len, bool backtrace, bool signal_safe, sr_log_event *ev)
{
	*ev = (sr_log_event){
		.ts_ns = sr_log__clock_to_ns(log, h->ts_ns),
		.level = h->level,
		.tid = h->tid,
		.thread = h->thread,
		.category = h->cat != NULL ? h->cat->name : NULL,
		.site = h->site,
		.h = h,
		.body = body,
		.body_len = body_len,
		.backtrace = backtrace,
		.signal_safe = signal_safe,
		.escape_controls = log->opt.escape_controls,
	};
}

void
sr_log__event_of_text(int level, const char *text, size_t len, sr_log_event *ev)
{
	const sr_log_thread *self = &sr_log__self;
	*ev = (sr_log_event){
		.ts_ns = sr_log__now_ns(),
		.level = level,
		.tid = self->tid,
		.thread = self->name,
		.category = "seqring",
		.text = text,
		.text_len = len,
	};
}

void
sr_log__render_record_ex(const sr_log *log, const sr_log_rec *h,
    const unsigned char *body, size_t body_len, bool backtrace, bool signal_safe,
    sr_fmt_buf *out)
{
	sr_log_event ev;
	sr_log__event_of_record(log, h, body, body_len, backtrace, signal_safe, &ev);
	render_event(log, &ev, out);
}

void
sr_log__render_record(const sr_log *log, const sr_log_rec *h,
    const unsigned char *body, size_t body_len, sr_fmt_buf *out)
{
	sr_log__render_record_ex(log, h, body, body_len, false, false, out);
}

void
sr_log__render_text(const sr_log *log, int level, const char *text, size_t len, sr_fmt_buf *out)
{
	sr_log_event ev;
	sr_log__event_of_text(level, text, len, &ev);
	ev.escape_controls = log->opt.escape_controls;
	render_event(log, &ev, out);
}

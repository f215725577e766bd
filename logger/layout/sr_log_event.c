/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_event.c: the event that every layout lays out, made from a record
 * (its timestamp converted to the realtime clock) or from the logger's own
 * text, and its message rendered into a buffer.
 */
#include "sr_log_clock_internal.h"
#include "sr_log_date_internal.h"
#include "sr_log_event_internal.h"
#include "sr_log_thread_internal.h"

#include <string.h>

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

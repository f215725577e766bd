/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_layout.c: a record laid out as one line: the layout in force
 * chosen (the logger's, or a sink's), the event handed to that layout, the
 * line ended.  The event is sr_log_event.c's; the layouts are one file each
 * below this one (sr_log_layout_internal.h).
 */
#include "sr_log_layout_escape_internal.h"
#include "sr_log_layout_internal.h"
#include "sr_log_layout_json_internal.h"
#include "sr_log_layout_pattern_internal.h"
#include "sr_log_layout_text_internal.h"

#include <string.h>

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

bool
sr_log__finish_line(const sr_log *log, sr_fmt_buf *out)
{
	return sr_log__end_line(log->opt.layout, out);
}

void
sr_log__render_record(const sr_log *log, const sr_log_rec *h,
    const unsigned char *body, size_t body_len, sr_fmt_buf *out)
{
	sr_log_event ev;
	sr_log__event_of_record(log, h, body, body_len, false, false, &ev);
	sr_log_layout_choice lc = { log->opt.layout, log->pattern };
	sr_log__render_event(&lc, &ev, out);
}

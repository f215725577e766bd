/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_layout_escape.c: a message with its control characters escaped
 * (sr_fmt_escape.c) in the text, message and pattern layouts, when the
 * logger's escape_control_characters says so.
 */
#include "sr_fmt_escape_internal.h"
#include "sr_log_layout_escape_internal.h"

void
sr_log__put_message_escaped(const sr_log_event *ev, sr_fmt_buf *out)
{
	size_t start = out->len;
	sr_log__put_message(ev, out);
	if (ev->escape_controls)
		sr_fmt_escape_controls(out, start);
}

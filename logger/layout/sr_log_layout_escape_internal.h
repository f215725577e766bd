/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_layout_escape_internal.h: the message as the text, message and
 * pattern layouts put it (sr_log_layout_escape.c; internal).
 */
#ifndef SR_LOG_LAYOUT_ESCAPE_INTERNAL_H
#define SR_LOG_LAYOUT_ESCAPE_INTERNAL_H

#include "sr_log_event_internal.h"

/*
 * The message, with its control characters escaped when the event says
 * escape_controls (LF as \n, CR \r, TAB \t, other C0 controls and DEL as
 * \xHH, C1 controls as \u00HH); the escapes that do not fit before out's
 * cap are cut whole, and want counts them.
 */
void sr_log__put_message_escaped(const sr_log_event *ev, sr_fmt_buf *out);

#endif /* SR_LOG_LAYOUT_ESCAPE_INTERNAL_H */

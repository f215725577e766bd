/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_layout_json_internal.h: the JSON Lines layout and its string
 * escaping (sr_log_layout_json.c; internal).
 */
#ifndef SR_LOG_LAYOUT_JSON_INTERNAL_H
#define SR_LOG_LAYOUT_JSON_INTERNAL_H

#include <stddef.h>

#include "sr_log_event_internal.h"

/* One JSON object; a message too long for the line is cut inside "msg" (log: unused, NULL). */
void sr_log__layout_json(const sr_log *log, const sr_log_event *ev, sr_fmt_buf *out);
/*
 * Appends s (n bytes) as JSON string content: escaped, invalid UTF-8 as
 * U+FFFD.  At most `room` bytes are written, never splitting an escape or a
 * character; returns the input bytes consumed (n when all fit).
 */
size_t sr_log__json_escape(sr_fmt_buf *out, const char *s, size_t n, size_t room);

#endif /* SR_LOG_LAYOUT_JSON_INTERNAL_H */

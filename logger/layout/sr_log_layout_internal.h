/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_layout_internal.h: how a record becomes a line (sr_log_layout.c;
 * internal): the layout in force chosen, the event laid out, the line ended.
 *
 * The top of the layout room.  Below it, one file per layout lays out an
 * event (sr_log_layout_text.c, sr_log_layout_json.c, sr_log_layout_pattern.c,
 * and sr_log_layout_escape.c for the message layout), all written against the
 * event of sr_log_event_internal.h, with sr_log_date.c's dates and numbers.
 */
#ifndef SR_LOG_LAYOUT_INTERNAL_H
#define SR_LOG_LAYOUT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "sr_log_event_internal.h"
#include "sr_log_internal.h"
#include "sr_log_layout_pattern_internal.h"

/* A layout in force: the logger's, or a sink's (pattern: SR_LOG_LAYOUT_PATTERN only). */
typedef struct sr_log_layout_choice {
	sr_log_layout layout;
	const sr_log_pattern *pattern;
} sr_log_layout_choice;

/* Lays out an event with a given layout (the line's end is sr_log__end_line's). */
void sr_log__render_event(const sr_log_layout_choice *lc, const sr_log_event *ev, sr_fmt_buf *out);
/* sr_log__finish_line for a given layout. */
bool sr_log__end_line(sr_log_layout layout, sr_fmt_buf *out);

/* Renders a record (header h, body = value + string areas) as one line, in the logger's layout. */
void sr_log__render_record(const sr_log *log, const sr_log_rec *h,
    const unsigned char *body, size_t body_len, sr_fmt_buf *out);
/*
 * Ends a line: the cut marker when it was cut (not for JSON, which cuts
 * inside "msg" and stays whole), then '\n'; true when cut.
 */
bool sr_log__finish_line(const sr_log *log, sr_fmt_buf *out);

#endif /* SR_LOG_LAYOUT_INTERNAL_H */

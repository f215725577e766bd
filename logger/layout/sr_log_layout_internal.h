/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_layout_internal.h: how a record becomes a line (internal).
 *
 * sr_log_layout.c chooses the layout and renders the message; one file per
 * layout lays out the rest: sr_log_layout_text.c, sr_log_layout_json.c,
 * sr_log_layout_pattern.c; sr_log_date.c has the UTC dates and numbers they
 * share.  Everything here is async-signal-safe when the event says
 * signal_safe (the crash handler lays out records in a signal handler).
 */
#ifndef SR_LOG_LAYOUT_INTERNAL_H
#define SR_LOG_LAYOUT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sr_log_internal.h"
#include "sr_log_names_internal.h"

/* One message to lay out: a record, or text made by the logger itself. */
typedef struct sr_log_event {
	int64_t ts_ns;            /* converted: ns since the epoch */
	int level;
	uint32_t tid;
	const char *thread;       /* up to 16 bytes, NUL-padded; "" for none */
	const char *category;     /* NULL or "" for the root */
	const sr_site *site;      /* NULL for the logger's own lines */
	const sr_log_rec *h;      /* the record, or NULL: text */
	const unsigned char *body;
	size_t body_len;
	const char *text;
	size_t text_len;
	bool backtrace;           /* mark it as a backtrace line */
	bool signal_safe;         /* in a signal handler: no snprintf, no locale, no malloc */
	bool escape_controls;     /* text, message, pattern: escape the message's control characters */
} sr_log_event;

/* ---- sr_log_layout.c: choosing the layout ---- */

typedef struct sr_log_pattern sr_log_pattern;
/* A layout in force: the logger's, or a sink's (pattern: SR_LOG_LAYOUT_PATTERN only). */
typedef struct sr_log_layout_choice {
	sr_log_layout layout;
	const sr_log_pattern *pattern;
} sr_log_layout_choice;

/* The event of a record (its timestamp converted), or of the logger's own text. */
void sr_log__event_of_record(const sr_log *log, const sr_log_rec *h, const unsigned char *body,
    size_t body_len, bool backtrace, bool signal_safe, sr_log_event *ev);
void sr_log__event_of_text(int level, const char *text, size_t len, sr_log_event *ev);
/* Lays out an event with a given layout (the line's end is sr_log__end_line's). */
void sr_log__render_event(const sr_log_layout_choice *lc, const sr_log_event *ev, sr_fmt_buf *out);
/* sr_log__finish_line for a given layout. */
bool sr_log__end_line(sr_log_layout layout, sr_fmt_buf *out);

/* Renders a record (header h, body = value + string areas) as one line. */
void sr_log__render_record(const sr_log *log, const sr_log_rec *h,
    const unsigned char *body, size_t body_len, sr_fmt_buf *out);
/* As sr_log__render_record, for a backtrace line or in a signal handler. */
void sr_log__render_record_ex(const sr_log *log, const sr_log_rec *h,
    const unsigned char *body, size_t body_len, bool backtrace, bool signal_safe,
    sr_fmt_buf *out);
/* Renders a line made by the logger itself (drop reports) from text. */
void sr_log__render_text(const sr_log *log, int level, const char *text, size_t len,
    sr_fmt_buf *out);
/*
 * Ends a line: the cut marker when it was cut (not for JSON, which cuts
 * inside "msg" and stays whole), then '\n'; true when cut.
 */
bool sr_log__finish_line(const sr_log *log, sr_fmt_buf *out);
/* The message of an event (record or text), rendered into out. */
void sr_log__put_message(const sr_log_event *ev, sr_fmt_buf *out);
/*
 * sr_log_layout_escape.c: the message, with its control characters escaped
 * when the event says escape_controls (LF as \n, CR \r, TAB \t, other C0
 * controls and DEL as \xHH, C1 controls as \u00HH); the escapes that do not
 * fit before out's cap are cut whole, and want counts them.
 */
void sr_log__put_message_escaped(const sr_log_event *ev, sr_fmt_buf *out);
/* Marks a backtrace line in the text, message and pattern layouts. */
#define SR_LOG_BACKTRACE_MARK "[backtrace] "

/* ---- one file per layout ---- */

void sr_log__layout_text(const sr_log_event *ev, sr_fmt_buf *out);
void sr_log__layout_json(const sr_log *log, const sr_log_event *ev, sr_fmt_buf *out);
/*
 * Appends s (n bytes) as JSON string content: escaped, invalid UTF-8 as
 * U+FFFD.  At most `room` bytes are written, never splitting an escape or a
 * character; returns the input bytes consumed (n when all fit).
 */
size_t sr_log__json_escape(sr_fmt_buf *out, const char *s, size_t n, size_t room);

int sr_log__pattern_compile(const char *text, sr_log_pattern **out, sr_error *err);
void sr_log__pattern_free(sr_log_pattern *p);
void sr_log__pattern_render(const sr_log_pattern *p, const sr_log_event *ev, sr_fmt_buf *out);

/* ---- sr_log_date.c: dates and numbers, without the C library ---- */

int64_t sr_log__now_ns(void);
/* Broken-down UTC time (async-signal-safe). */
typedef struct sr_log_tm {
	int year, month, day, hour, minute, second, yday, wday;  /* month 1-12, yday 0-365, wday 0 = Sunday */
} sr_log_tm;
void sr_log__utc(int64_t sec, sr_log_tm *tm);
/* Floor division of ns into seconds and the nanoseconds within the second. */
void sr_log__split_ns(int64_t ts_ns, int64_t *sec, int32_t *ns);
/* Unsigned decimal, zero-padded to at least `digits`; signed decimal. */
void sr_log__put_uint(sr_fmt_buf *out, uint64_t v, int digits);
void sr_log__put_int(sr_fmt_buf *out, int64_t v);
/* "YYYY-MM-DDTHH:MM:SS" */
void sr_log__put_iso_seconds(sr_fmt_buf *out, int64_t sec);

#endif /* SR_LOG_LAYOUT_INTERNAL_H */

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_event_internal.h: one message to lay out, and its message rendered
 * (sr_log_event.c; internal).
 *
 * The bottom of the layout room: every layout (text, JSON, pattern, the
 * escaped message) takes an event and includes this header, and the
 * dispatcher that chooses among them (sr_log_layout_internal.h) sits above.
 * Everything here is async-signal-safe when the event says signal_safe (the
 * crash handler lays out records in a signal handler).
 */
#ifndef SR_LOG_EVENT_INTERNAL_H
#define SR_LOG_EVENT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sr_fmt_fields_internal.h"
#include "sr_log_internal.h"
#include "sr_log_site_parts_internal.h"

/* One message to lay out: a record, or text made by the logger itself. */
typedef struct sr_log_event {
	int64_t ts_ns;            /* converted: ns since the epoch */
	int level;
	uint32_t tid;
	const char *thread;       /* 16 bytes: the name, NUL-padded (all NUL for none); a trace compares them whole */
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
	sr_log_site_parts *parts; /* the consumer's: a site's fixed parts made once; NULL: made each time */
} sr_log_event;

/* Marks a backtrace line in the text, message and pattern layouts. */
#define SR_LOG_BACKTRACE_MARK "[backtrace] "

/* The event of a record (its timestamp converted), or of the logger's own text. */
void sr_log__event_of_record(const sr_log *log, const sr_log_rec *h, const unsigned char *body,
    size_t body_len, bool backtrace, bool signal_safe, sr_log_event *ev);
void sr_log__event_of_text(int level, const char *text, size_t len, sr_log_event *ev);
/* The message of an event (record or text), rendered into out. */
void sr_log__put_message(const sr_log_event *ev, sr_fmt_buf *out);

/*
 * The key-value fields (SR_KV) of an event: false when it has none (text,
 * a format error, a record whose site has no key table, such as a dead
 * process's record recovered or a trace's decoded: their values after the
 * format's are not rendered).  Then sr_fmt_fields_next gives each field's
 * key, kind and value (bounds checked against the record), for any layout
 * or sink (journald's fields, a trace's).
 */
bool sr_log__event_fields(const sr_log_event *ev, sr_fmt_field_iter *it);
/*
 * The fields as logfmt, each " key=value": a string quoted when it is empty
 * or has a space, '=', '"' or a control character (with \" \\ \n \r \t
 * and \xHH escapes), numbers as sr_fmt_field_put_number, a NULL string as
 * (null); a key's space, '=', '"' and control characters become '_'.
 */
void sr_log__put_fields_logfmt(const sr_log_event *ev, sr_fmt_buf *out);

#endif /* SR_LOG_EVENT_INTERNAL_H */

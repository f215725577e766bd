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

/*
 * A format error whose format parses is a site's refused key-value fields
 * (a site the library made before SR_KV, compiled against older headers,
 * has no fields member to read: its refused formats do not parse): the
 * error line names the field.  False for any other error.
 */
static bool
fields_error(const sr_log_event *ev, sr_fmt_buf *out)
{
	sr_fmt_sig sig;
	if (ev->site == NULL || sr_fmt_parse(ev->site->format, &sig, NULL, 0) != SR_FMT_OK)
		return false;
	/* pairs with the CAS that published the table (sr_log_fields.c) */
	const sr_fmt_fields *f = sr_atomic_load_acquire_ptr(&((sr_site *)ev->site)->fields);
	static const char head[] = "format error: ";
	sr_fmt_buf_put(out, head, sizeof head - 1);
	if (f != NULL && f->sig.error == SR_FMT_E_FIELDS)
		sr_fmt_buf_put(out, f->error, strlen(f->error));
	else
		sr_fmt_buf_put(out, "key-value fields refused", 24);
	sr_fmt_buf_put(out, " in \"", 5);
	sr_fmt_buf_put(out, ev->site->format, strlen(ev->site->format));
	sr_fmt_buf_putc(out, '"');
	return true;
}

/*
 * Values past the format's say the record has fields: only a site made with
 * SR_KV has them, and only such a site has the fields member (one compiled
 * against older headers is shorter).  The site was parsed before its first
 * record.
 */
static inline bool
has_fields(const sr_log_event *ev)
{
	const sr_log_rec *h = ev->h;
	return h != NULL && ev->site != NULL && (h->kind & SR_REC_KIND_MASK) == SR_REC_MESSAGE &&
	    h->value_bytes > ev->site->sig.value_bytes;
}

bool
sr_log__event_fields(const sr_log_event *ev, sr_fmt_field_iter *it)
{
	const sr_log_rec *h = ev->h;
	const sr_site *site = ev->site;
	if (!has_fields(ev))
		return false;  /* it is not read then */
	/* pairs with the CAS that published the table (sr_log_fields.c), made before the site's first record */
	const sr_fmt_fields *f = sr_atomic_load_acquire_ptr(&((sr_site *)site)->fields);
	size_t vb = h->value_bytes <= ev->body_len ? h->value_bytes : ev->body_len;
	return sr_fmt_fields_begin(it, f, ev->body, vb, ev->body + vb, ev->body_len - vb);
}

/* Whether c makes a logfmt value quoted (and, in a key, is replaced). */
static bool
logfmt_special(unsigned char c)
{
	return c <= ' ' || c == '=' || c == '"' || c == 0x7f;
}

static void
put_logfmt_string(sr_fmt_buf *out, const char *s, size_t n)
{
	bool quote = n == 0;
	for (size_t i = 0; i < n && !quote; i++)
		quote = logfmt_special((unsigned char)s[i]) || s[i] == '\\';
	if (!quote) {
		sr_fmt_buf_put(out, s, n);
		return;
	}
	static const char hex[] = "0123456789abcdef";
	sr_fmt_buf_putc(out, '"');
	size_t from = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c >= ' ' && c != '"' && c != '\\' && c != 0x7f)
			continue;
		sr_fmt_buf_put(out, s + from, i - from);
		from = i + 1;
		char esc[4] = { '\\', (char)c, 0, 0 };
		size_t len = 2;
		if (c == '\n') {
			esc[1] = 'n';
		} else if (c == '\r') {
			esc[1] = 'r';
		} else if (c == '\t') {
			esc[1] = 't';
		} else if (c != '"' && c != '\\') {
			esc[1] = 'x';
			esc[2] = hex[c >> 4];
			esc[3] = hex[c & 15];
			len = 4;
		}
		sr_fmt_buf_put(out, esc, len);
	}
	sr_fmt_buf_put(out, s + from, n - from);
	sr_fmt_buf_putc(out, '"');
}

void
sr_log__put_fields_logfmt(const sr_log_event *ev, sr_fmt_buf *out)
{
	sr_fmt_field_iter it;
	if (!sr_log__event_fields(ev, &it))
		return;
	sr_fmt_field f;
	while (sr_fmt_fields_next(&it, &f)) {
		sr_fmt_buf_putc(out, ' ');
		size_t from = 0;
		for (size_t i = 0; i < f.key_len; i++) {
			if (!logfmt_special((unsigned char)f.key[i]))
				continue;
			sr_fmt_buf_put(out, f.key + from, i - from);
			sr_fmt_buf_putc(out, '_');
			from = i + 1;
		}
		sr_fmt_buf_put(out, f.key + from, f.key_len - from);
		sr_fmt_buf_putc(out, '=');
		if (f.kind != SR_FMT_ARG_STR)
			sr_fmt_field_put_number(out, &f, ev->signal_safe);
		else if (f.str == NULL)
			sr_fmt_buf_put(out, "(null)", 6);
		else
			put_logfmt_string(out, f.str, f.str_len);
	}
}

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
		if (!ev->signal_safe && fields_error(ev, out))
			return;
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

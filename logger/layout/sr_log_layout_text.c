/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_layout_text.c: the text layout,
 *   2026-11-30T12:34:56.123456Z INFO  [main] net.http - message key=value (file.c:42)
 * with a call's key-value fields (SR_KV) as logfmt after the message.
 * The date and time up to the second come from a per-thread cache, rebuilt
 * once per second; the microseconds are appended by hand.
 */
#include "sr_log_date_internal.h"
#include "sr_log_layout_escape_internal.h"
#include "sr_log_layout_text_internal.h"

#include <string.h>

static void
put_timestamp(sr_fmt_buf *out, int64_t ts_ns, bool signal_safe)
{
	int64_t sec;
	int32_t ns;
	sr_log__split_ns(ts_ns, &sec, &ns);
	if (signal_safe)
		sr_log__put_iso_seconds(out, sec);
	else
		sr_log__put_iso_seconds_cached(out, sec);
	char tail[SR_LOG_TEXT_SUBSECOND_LEN];
	sr_log__text_subsecond(tail, (uint32_t)ns / 1000);
	sr_fmt_buf_put(out, tail, sizeof tail);
}

/* Level names padded to five, as in Log4j's default pattern. */
static const char level_text[SR_LOG_LEVEL_COUNT][7] = {
	"TRACE ", "DEBUG ", "INFO  ", "WARN  ", "ERROR ", "FATAL ", "OFF   "
};

static void
put_thread(sr_fmt_buf *out, const char *thread, uint32_t tid)
{
	size_t tl = strnlen(thread, 16);
	if (tl > 0)
		sr_fmt_buf_put(out, thread, tl);
	else
		sr_log__put_uint(out, tid, 1);
}

static void layout_text_checked(const sr_log_event *ev, sr_fmt_buf *out, const char *category,
    size_t category_len);

/*
 * The line's head and tail written straight into the buffer when it has
 * room for the longest they can be: one room check and one length update
 * instead of one per field (each field's bytes are those of the checked
 * path below).
 */
static inline char *
copy_to(char *d, const char *s, size_t n)
{
	memcpy(d, s, n);
	return d + n;
}

/* A line number's digits at d (at most 11 bytes); the end. */
static inline char *
put_line_number(char *d, int32_t line)
{
	if (line < 0 || line >= 100000) {
		sr_fmt_buf b = { d, 0, 12, 0 };
		sr_log__put_int(&b, line);
		return d + b.len;
	}
	/* Up to five digits, the common case, without a division loop or a copy. */
	uint32_t v = (uint32_t)line;
	int n = v >= 10000 ? 5 : v >= 1000 ? 4 : v >= 100 ? 3 : v >= 10 ? 2 : 1;
	(void)sr_log__digits_before(d + n, v);
	return d + n;
}

char *
sr_log__text_head(char *d, int level, const char *thread, uint32_t tid, const char *category, size_t category_len)
{
	d = copy_to(d, level_text[level < 0 || level >= SR_LOG_LEVEL_COUNT ? SR_LOG_OFF : level], 6);
	*d++ = '[';
	size_t tl = strnlen(thread, 16);
	if (tl > 0) {
		d = copy_to(d, thread, tl);
	} else {
		sr_fmt_buf b = { d, 0, 16, 0 };
		sr_log__put_uint(&b, tid, 1);
		d += b.len;
	}
	d = copy_to(d, "] ", 2);
	d = copy_to(d, category, category_len);
	return copy_to(d, " - ", 3);
}

/* The head, "DATE LEVEL [THREAD] CATEGORY - ", when it fits for sure; false to take the checked path. */
static bool
put_head_fast(const sr_log_event *ev, sr_fmt_buf *out, const char *category, size_t category_len)
{
	/*
	 * 32 + 9 for the time (a year past 9999 is longer), 6 for the level,
	 * 1 + 16 (or a tid's 10) + 2 for the thread, 3 after the category.
	 */
	if (ev->backtrace || ev->signal_safe || out->cap - out->len < 69 + category_len)
		return false;
	int64_t sec;
	int32_t ns;
	sr_log__split_ns(ev->ts_ns, &sec, &ns);
	size_t date_len;
	const char *date = sr_log__iso_seconds_if_cached(sec, &date_len);
	if (date == NULL)
		return false;  /* a new second: the checked path fills the cache */
	char *start = out->data + out->len, *d = start;
	d = copy_to(d, date, date_len);
	sr_log__text_subsecond(d, (uint32_t)ns / 1000);
	d += SR_LOG_TEXT_SUBSECOND_LEN;
	d = sr_log__text_head(d, ev->level, ev->thread, ev->tid, category, category_len);
	out->len += (size_t)(d - start);
	out->want += (size_t)(d - start);
	return true;
}

/* The site's " (FILE:LINE)" into its part, when it fits there (else it is made for each line). */
static void
make_text_part(const sr_site *site, sr_log_site_part *part)
{
	const char *file = sr_site_file_base(site);
	size_t file_len = strlen(file);
	if (file_len + 15 > SR_LOG_SITE_PART_TEXT_MAX)
		return;
	char *d = part->text;
	d = copy_to(d, " (", 2);
	d = copy_to(d, file, file_len);
	*d++ = ':';
	d = put_line_number(d, site->line);
	*d++ = ')';
	part->text_len = (uint8_t)(d - part->text);
	part->made |= SR_LOG_SITE_PART_TEXT;
}

sr_log_site_part *
sr_log__text_site_part(sr_log_site_parts *parts, const sr_site *site)
{
	sr_log_site_part *part = sr_log__site_part(parts, site);
	if ((part->made & SR_LOG_SITE_PART_TEXT) == 0)
		make_text_part(site, part);
	return (part->made & SR_LOG_SITE_PART_TEXT) != 0 ? part : NULL;
}

void
sr_log__layout_text(const sr_log_event *ev, sr_fmt_buf *out)
{
	const char *category = ev->category;
	if (category == NULL || category[0] == '\0')
		category = "root";
	size_t category_len = strlen(category);
	if (put_head_fast(ev, out, category, category_len)) {
		sr_log__put_message_escaped(ev, out);
		sr_log__put_fields_logfmt(ev, out);
		if (ev->site != NULL) {
			/* The site's " (FILE:LINE)", made at its first record when the consumer keeps the parts. */
			const sr_log_site_part *part = ev->parts != NULL ? sr_log__text_site_part(ev->parts, ev->site) : NULL;
			if (part != NULL && out->cap - out->len >= SR_LOG_SITE_PART_TEXT_MAX) {
				memcpy(out->data + out->len, part->text, SR_LOG_SITE_PART_TEXT_MAX);  /* whole: a fixed copy */
				out->len += part->text_len;
				out->want += part->text_len;
				return;
			}
			const char *file = sr_site_file_base(ev->site);
			size_t file_len = strlen(file);
			/* " (" FILE ":" LINE ")": a line of at most 11 characters. */
			if (out->cap - out->len >= file_len + 15) {
				char *start = out->data + out->len, *d = start;
				d = copy_to(d, " (", 2);
				d = copy_to(d, file, file_len);
				*d++ = ':';
				d = put_line_number(d, ev->site->line);
				*d++ = ')';
				out->len += (size_t)(d - start);
				out->want += (size_t)(d - start);
			} else {
				sr_fmt_buf_put(out, " (", 2);
				sr_fmt_buf_put(out, file, file_len);
				sr_fmt_buf_putc(out, ':');
				sr_log__put_int(out, ev->site->line);
				sr_fmt_buf_putc(out, ')');
			}
		}
		return;
	}
	layout_text_checked(ev, out, category, category_len);
}

/* The same, every field through the buffer's checked puts (a line that may not fit, a new second). */
static void
layout_text_checked(const sr_log_event *ev, sr_fmt_buf *out, const char *category, size_t category_len)
{
	if (ev->backtrace)
		sr_fmt_buf_put(out, SR_LOG_BACKTRACE_MARK, sizeof SR_LOG_BACKTRACE_MARK - 1);
	put_timestamp(out, ev->ts_ns, ev->signal_safe);
	int level = ev->level;
	sr_fmt_buf_put(out, level_text[level < 0 || level >= SR_LOG_LEVEL_COUNT ? SR_LOG_OFF : level], 6);
	sr_fmt_buf_putc(out, '[');
	put_thread(out, ev->thread, ev->tid);
	sr_fmt_buf_put(out, "] ", 2);
	sr_fmt_buf_put(out, category, category_len);
	sr_fmt_buf_put(out, " - ", 3);
	sr_log__put_message_escaped(ev, out);
	sr_log__put_fields_logfmt(ev, out);
	if (ev->site != NULL) {
		const char *file = sr_site_file_base(ev->site);
		sr_fmt_buf_put(out, " (", 2);
		sr_fmt_buf_put(out, file, strlen(file));
		sr_fmt_buf_putc(out, ':');
		sr_log__put_int(out, ev->site->line);
		sr_fmt_buf_putc(out, ')');
	}
}

/*
 * sr_log_layout.c: turning a record into a line, for the text, message and
 * JSON layouts (the pattern layout is sr_log_pattern.c), and the pieces the
 * layouts share: UTC dates, numbers, the message, JSON escaping.
 *
 * The text layout is
 *   2026-11-30T12:34:56.123456Z INFO  [main] net.http - message (file.c:42)
 * The date and time up to the second come from a per-thread cache, rebuilt
 * once per second, the microseconds are appended by hand.
 *
 * Dates are computed here, not with gmtime_r and strftime: the arithmetic
 * is a handful of divisions, needs no locale or time zone, and is
 * async-signal-safe, which the crash handler needs (it lays out records in
 * a signal handler).  Everything in this file is async-signal-safe when the
 * event says signal_safe (the message is then rendered by
 * sr_fmt_render_safe, and no cache is touched).
 */
#include "sr_log_internal.h"

#include <string.h>
#include <time.h>

int64_t
sr_log__now_ns(void)
{
	return sr_log__realtime_ns();
}

/* ---------------------------------------------------------------------------------------- */
/* Dates and numbers                                                                        */

void
sr_log__split_ns(int64_t ts_ns, int64_t *sec, int32_t *ns)
{
	int64_t s = ts_ns / 1000000000;
	int64_t r = ts_ns % 1000000000;
	if (r < 0) {
		r += 1000000000;
		s--;
	}
	*sec = s;
	*ns = (int32_t)r;
}

void
sr_log__utc(int64_t sec, sr_log_tm *tm)
{
	int64_t days = sec / 86400;
	int64_t rem = sec % 86400;
	if (rem < 0) {
		rem += 86400;
		days--;
	}
	tm->hour = (int)(rem / 3600);
	tm->minute = (int)(rem % 3600 / 60);
	tm->second = (int)(rem % 60);
	/* 1970-01-01 was a Thursday. */
	int64_t wd = (days + 4) % 7;
	tm->wday = (int)(wd < 0 ? wd + 7 : wd);
	/*
	 * Civil date from a day count, in 400-year eras of 146,097 days that
	 * start on March 1st (so that the leap day ends a year): the standard
	 * proleptic Gregorian arithmetic.
	 */
	int64_t z = days + 719468;
	int64_t era = (z >= 0 ? z : z - 146096) / 146097;
	int64_t doe = z - era * 146097;                                   /* [0, 146096] */
	int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365; /* [0, 399] */
	int64_t y = yoe + era * 400;
	int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);            /* [0, 365], from March 1st */
	int64_t mp = (5 * doy + 2) / 153;                                 /* [0, 11], March = 0 */
	tm->day = (int)(doy - (153 * mp + 2) / 5 + 1);
	tm->month = (int)(mp < 10 ? mp + 3 : mp - 9);
	if (tm->month <= 2)
		y++;
	tm->year = (int)y;
	bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
	static const int before[12] = { 0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334 };
	tm->yday = before[tm->month - 1] + tm->day - 1 + (leap && tm->month > 2 ? 1 : 0);
}

void
sr_log__put_uint(sr_fmt_buf *out, uint64_t v, int digits)
{
	char tmp[24];
	int n = 0;
	do {
		tmp[sizeof tmp - 1 - n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v != 0 && n < 20);
	while (n < digits && n < 20)
		tmp[sizeof tmp - 1 - n++] = '0';
	sr_fmt_buf_put(out, tmp + sizeof tmp - n, (size_t)n);
}

static void
put_int(sr_fmt_buf *out, int64_t v)
{
	if (v < 0) {
		sr_fmt_buf_putc(out, '-');
		sr_log__put_uint(out, 0 - (uint64_t)v, 1);
	} else {
		sr_log__put_uint(out, (uint64_t)v, 1);
	}
}

static const char level_upper[SR_LOG_LEVEL_COUNT][6] = {
	"TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL", "OFF"
};
static const char level_lower[SR_LOG_LEVEL_COUNT][6] = {
	"trace", "debug", "info", "warn", "error", "fatal", "off"
};

const char *
sr_log__level_upper(int level)
{
	return level >= 0 && level < SR_LOG_LEVEL_COUNT ? level_upper[level] : "?";
}

/* "YYYY-MM-DDTHH:MM:SS" */
static void
put_iso_seconds(sr_fmt_buf *out, int64_t sec)
{
	sr_log_tm tm;
	sr_log__utc(sec, &tm);
	sr_log__put_uint(out, (uint64_t)(tm.year < 0 ? 0 : tm.year), 4);
	sr_fmt_buf_putc(out, '-');
	sr_log__put_uint(out, (uint64_t)tm.month, 2);
	sr_fmt_buf_putc(out, '-');
	sr_log__put_uint(out, (uint64_t)tm.day, 2);
	sr_fmt_buf_putc(out, 'T');
	sr_log__put_uint(out, (uint64_t)tm.hour, 2);
	sr_fmt_buf_putc(out, ':');
	sr_log__put_uint(out, (uint64_t)tm.minute, 2);
	sr_fmt_buf_putc(out, ':');
	sr_log__put_uint(out, (uint64_t)tm.second, 2);
}

/* ---------------------------------------------------------------------------------------- */
/* The message                                                                              */

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

/* ---------------------------------------------------------------------------------------- */
/* Text layout                                                                              */

/* "YYYY-MM-DDTHH:MM:SS." of the last second rendered on this thread. */
static _Thread_local struct {
	int64_t sec;
	bool valid;
	char text[32];
	size_t len;
} ts_cache;

static void
put_timestamp(sr_fmt_buf *out, int64_t ts_ns, bool signal_safe)
{
	int64_t sec;
	int32_t ns;
	sr_log__split_ns(ts_ns, &sec, &ns);
	if (signal_safe) {
		put_iso_seconds(out, sec);
		sr_fmt_buf_putc(out, '.');
	} else {
		if (!ts_cache.valid || ts_cache.sec != sec) {
			sr_fmt_buf b = { ts_cache.text, 0, sizeof ts_cache.text - 1, 0 };
			put_iso_seconds(&b, sec);
			sr_fmt_buf_putc(&b, '.');
			ts_cache.len = b.len;
			ts_cache.sec = sec;
			ts_cache.valid = true;
		}
		sr_fmt_buf_put(out, ts_cache.text, ts_cache.len);
	}
	char tail[8];
	int32_t us = ns / 1000;
	for (int i = 5; i >= 0; i--) {
		tail[i] = (char)('0' + us % 10);
		us /= 10;
	}
	tail[6] = 'Z';
	tail[7] = ' ';
	sr_fmt_buf_put(out, tail, 8);
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

static const char backtrace_mark[] = "[backtrace] ";

static void
render_text(const sr_log_event *ev, sr_fmt_buf *out)
{
	if (ev->backtrace)
		sr_fmt_buf_put(out, backtrace_mark, sizeof backtrace_mark - 1);
	put_timestamp(out, ev->ts_ns, ev->signal_safe);
	int level = ev->level;
	sr_fmt_buf_put(out, level_text[level < 0 || level >= SR_LOG_LEVEL_COUNT ? SR_LOG_OFF : level], 6);
	sr_fmt_buf_putc(out, '[');
	put_thread(out, ev->thread, ev->tid);
	sr_fmt_buf_put(out, "] ", 2);
	const char *category = ev->category;
	if (category == NULL || category[0] == '\0')
		category = "root";
	sr_fmt_buf_put(out, category, strlen(category));
	sr_fmt_buf_put(out, " - ", 3);
	sr_log__put_message(ev, out);
	if (ev->site != NULL) {
		const char *file = sr_site_file_base(ev->site);
		sr_fmt_buf_put(out, " (", 2);
		sr_fmt_buf_put(out, file, strlen(file));
		sr_fmt_buf_putc(out, ':');
		put_int(out, ev->site->line);
		sr_fmt_buf_putc(out, ')');
	}
}

/* ---------------------------------------------------------------------------------------- */
/* JSON Lines                                                                               */

/* Length of a valid UTF-8 sequence at s (n bytes left), or 0 with *bad the bytes to replace. */
static size_t
utf8_valid(const unsigned char *s, size_t n, size_t *bad)
{
	unsigned char c = s[0];
	size_t need;
	unsigned char lo = 0x80, hi = 0xbf;   /* the second byte's range */
	if (c >= 0xc2 && c <= 0xdf) {
		need = 2;
	} else if (c >= 0xe0 && c <= 0xef) {
		need = 3;
		if (c == 0xe0)
			lo = 0xa0;               /* no overlong forms */
		else if (c == 0xed)
			hi = 0x9f;               /* no UTF-16 surrogates */
	} else if (c >= 0xf0 && c <= 0xf4) {
		need = 4;
		if (c == 0xf0)
			lo = 0x90;
		else if (c == 0xf4)
			hi = 0x8f;               /* nothing above U+10FFFF */
	} else {
		*bad = 1;                    /* a stray continuation byte, C0, C1, F5..FF */
		return 0;
	}
	/* Replace the maximal valid prefix as one U+FFFD (Unicode's recommended practice). */
	size_t i = 1;
	if (i < n && s[i] >= lo && s[i] <= hi) {
		for (i = 2; i < need && i < n && s[i] >= 0x80 && s[i] <= 0xbf; i++)
			;
	}
	if (i == need)
		return need;
	*bad = i;
	return 0;
}

/*
 * The JSON form of the unit (a character, or an invalid sequence) at s:
 * its bytes in esc (or, for valid multi-byte UTF-8 and plain characters,
 * *src points to them), their count returned, the input bytes in *take.
 */
static size_t
escape_unit(const unsigned char *s, size_t n, char esc[6], const char **src, size_t *take)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char c = s[0];
	*take = 1;
	*src = esc;
	if (c >= 0x80) {
		size_t bad = 0;
		size_t ok = utf8_valid(s, n, &bad);
		if (ok > 0) {
			*src = (const char *)s;
			*take = ok;
			return ok;
		}
		*src = "\xef\xbf\xbd";  /* U+FFFD */
		*take = bad;
		return 3;
	}
	if (c == '"' || c == '\\') {
		esc[0] = '\\';
		esc[1] = (char)c;
		return 2;
	}
	if (c < 0x20 || c == 0x7f) {
		esc[0] = '\\';
		switch (c) {
		case '\n': esc[1] = 'n'; return 2;
		case '\r': esc[1] = 'r'; return 2;
		case '\t': esc[1] = 't'; return 2;
		case '\b': esc[1] = 'b'; return 2;
		case '\f': esc[1] = 'f'; return 2;
		default:
			esc[1] = 'u';
			esc[2] = '0';
			esc[3] = '0';
			esc[4] = hex[c >> 4];
			esc[5] = hex[c & 15];
			return 6;
		}
	}
	*src = (const char *)s;
	return 1;
}

/*
 * Counts the escaped form of s: the input bytes whose escapes fit in room
 * (returned) and their escaped size (*esc_bytes).  Never splits a unit.
 */
static size_t
escape_count(const unsigned char *s, size_t n, size_t room, size_t *esc_bytes)
{
	size_t i = 0, used = 0;
	while (i < n) {
		char esc[6];
		const char *src;
		size_t take;
		size_t elen = escape_unit(s + i, n - i, esc, &src, &take);
		if (used + elen > room)
			break;
		used += elen;
		i += take;
	}
	*esc_bytes = used;
	return i;
}

size_t
sr_log__json_escape(sr_fmt_buf *out, const char *str, size_t n, size_t room)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, used = 0;
	while (i < n) {
		char esc[6];
		const char *src;
		size_t take;
		size_t elen = escape_unit(s + i, n - i, esc, &src, &take);
		if (used + elen > room)
			break;
		sr_fmt_buf_put(out, src, elen);
		used += elen;
		i += take;
	}
	return i;
}

/* "key":"escaped", the string cut to leave `reserve` bytes of out free. */
static void
json_string_field(sr_fmt_buf *out, const char *key, const char *s, size_t n, size_t reserve)
{
	sr_fmt_buf_put(out, key, strlen(key));
	size_t end = out->len + 1 + reserve;
	size_t room = out->cap > end ? out->cap - end : 0;
	sr_log__json_escape(out, s, n, room);
	sr_fmt_buf_putc(out, '"');
}

/*
 * The message, escaped in place: rendered raw at `before`, then moved to
 * the end of the room its escaped form needs and escaped forward from
 * there.  An escape is never shorter than its input, so the writer never
 * overtakes the reader.  Returns true when the message was cut.
 */
static bool
json_message(const sr_log_event *ev, sr_fmt_buf *out, size_t tail_len)
{
	size_t before = out->len, want_before = out->want;
	sr_log__put_message(ev, out);
	size_t raw_len = out->len - before;
	size_t raw_full = out->want - want_before;
	unsigned char *raw = (unsigned char *)out->data + before;
	size_t limit = out->cap > before + tail_len ? out->cap - before - tail_len : 0;
	size_t esc_bytes;
	size_t used = escape_count(raw, raw_len, limit, &esc_bytes);
	bool cut = used < raw_len || raw_full > raw_len;
	if (cut) {
		limit = limit > SR_FMT_TRUNCATION_MARKER_LEN ? limit - SR_FMT_TRUNCATION_MARKER_LEN : 0;
		used = escape_count(raw, raw_len, limit, &esc_bytes);
	}
	size_t shift = esc_bytes - used;
	memmove(raw + shift, raw, used);
	const unsigned char *r = raw + shift;
	char *w = out->data + before;
	size_t i = 0;
	while (i < used) {
		char esc[6];
		const char *src;
		size_t take;
		/* Copy the unit out first: writing it may overlap where it is read from. */
		unsigned char unit[4];
		size_t ul = used - i < 4 ? used - i : 4;
		memcpy(unit, r + i, ul);
		size_t elen = escape_unit(unit, ul, esc, &src, &take);
		if (src == (const char *)unit)
			memmove(w, unit, elen);
		else
			memcpy(w, src, elen);
		w += elen;
		i += take;
	}
	out->len = before + esc_bytes;
	out->want = want_before + esc_bytes + (cut ? raw_full - used + 1 : 0);
	return cut;
}

void
sr_log__render_json(const sr_log *log, const sr_log_event *ev, sr_fmt_buf *out)
{
	(void)log;
	/* The tail, made first so that the message can be cut to leave room for it. */
	char tail_data[640];
	sr_fmt_buf tail = { tail_data, 0, sizeof tail_data - 8, 0 };
	sr_fmt_buf_putc(&tail, '"');
	if (ev->site != NULL) {
		const char *file = sr_site_file_base(ev->site);
		sr_fmt_buf_put(&tail, ",\"file\":\"", 9);
		sr_log__json_escape(&tail, file, strlen(file), 256);
		sr_fmt_buf_put(&tail, "\",\"line\":", 9);
		put_int(&tail, ev->site->line);
		const char *fn = ev->site->function != NULL ? ev->site->function : "";
		sr_fmt_buf_put(&tail, ",\"function\":\"", 13);
		sr_log__json_escape(&tail, fn, strlen(fn), 256);
		sr_fmt_buf_putc(&tail, '"');
	}
	if (ev->backtrace)
		sr_fmt_buf_put(&tail, ",\"backtrace\":true", 17);
	sr_fmt_buf_putc(&tail, '}');

	/* Before "msg" all is bounded; the category and thread are cut if the line is tiny. */
	size_t reserve = tail.len + SR_FMT_TRUNCATION_MARKER_LEN + 40;
	int64_t sec;
	int32_t ns;
	sr_log__split_ns(ev->ts_ns, &sec, &ns);
	sr_fmt_buf_put(out, "{\"ts\":\"", 7);
	put_iso_seconds(out, sec);
	sr_fmt_buf_putc(out, '.');
	sr_log__put_uint(out, (uint64_t)ns, 9);
	sr_fmt_buf_put(out, "Z\",\"level\":\"", 12);
	int level = ev->level;
	const char *ln = level >= 0 && level < SR_LOG_LEVEL_COUNT ? level_lower[level] : "off";
	sr_fmt_buf_put(out, ln, strlen(ln));
	sr_fmt_buf_putc(out, '"');
	const char *category = ev->category;
	if (category == NULL || category[0] == '\0')
		category = "root";
	json_string_field(out, ",\"category\":\"", category, strlen(category), reserve + 60);
	size_t tl = strnlen(ev->thread, 16);
	if (tl > 0) {
		json_string_field(out, ",\"thread\":\"", ev->thread, tl, reserve + 20);
	} else {
		sr_fmt_buf_put(out, ",\"thread\":\"", 11);
		sr_log__put_uint(out, ev->tid, 1);
		sr_fmt_buf_putc(out, '"');
	}
	sr_fmt_buf_put(out, ",\"tid\":", 7);
	sr_log__put_uint(out, ev->tid, 1);
	sr_fmt_buf_put(out, ",\"msg\":\"", 8);
	bool cut = json_message(ev, out, tail.len);
	size_t missing = out->want - out->len;
	if (cut)
		sr_fmt_buf_put(out, SR_FMT_TRUNCATION_MARKER, SR_FMT_TRUNCATION_MARKER_LEN);
	sr_fmt_buf_put(out, tail.data, tail.len);
	/*
	 * Uncut, want == len.  Cut, want says how much more the whole line
	 * would take, so that a caller rendering into a small buffer retries
	 * with a bigger one (sr_log__finish_line adds no marker for JSON).
	 */
	out->want = out->len + missing;
}

/* ---------------------------------------------------------------------------------------- */
/* Dispatch                                                                                 */

static void
render_event(const sr_log *log, const sr_log_event *ev, sr_fmt_buf *out)
{
	switch (log->layout) {
	case SR_LOG_LAYOUT_MESSAGE:
		if (ev->backtrace)
			sr_fmt_buf_put(out, backtrace_mark, sizeof backtrace_mark - 1);
		sr_log__put_message(ev, out);
		break;
	case SR_LOG_LAYOUT_PATTERN:
		if (ev->backtrace)
			sr_fmt_buf_put(out, backtrace_mark, sizeof backtrace_mark - 1);
		sr_log__pattern_render(log->pattern, ev, out);
		break;
	case SR_LOG_LAYOUT_JSON:
		sr_log__render_json(log, ev, out);
		break;
	default:
		render_text(ev, out);
		break;
	}
}

bool
sr_log__finish_line(const sr_log *log, sr_fmt_buf *out)
{
	/* The reserve past cap (SR_FMT_LINE_RESERVE) holds the marker and '\n'. */
	bool cut = sr_fmt_buf_truncated(out);
	if (cut && log->layout != SR_LOG_LAYOUT_JSON) {
		static const char mark[] = " " SR_FMT_TRUNCATION_MARKER;
		memcpy(out->data + out->len, mark, sizeof mark - 1);
		out->len += sizeof mark - 1;
	}
	out->data[out->len++] = '\n';
	return cut;
}

void
sr_log__render_record_ex(const sr_log *log, const sr_log_rec *h,
    const unsigned char *body, size_t body_len, bool backtrace, bool signal_safe,
    sr_fmt_buf *out)
{
	sr_log_event ev = {
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
	};
	render_event(log, &ev, out);
}

void
sr_log__render_record(const sr_log *log, const sr_log_rec *h,
    const unsigned char *body, size_t body_len, sr_fmt_buf *out)
{
	sr_log__render_record_ex(log, h, body, body_len, false, false, out);
}

void
sr_log__render_text(const sr_log *log, int level, const char *text, size_t len, sr_fmt_buf *out)
{
	const sr_log_thread *self = &sr_log__self;
	sr_log_event ev = {
		.ts_ns = sr_log__now_ns(),
		.level = level,
		.tid = self->tid,
		.thread = self->name,
		.category = "seqring",
		.text = text,
		.text_len = len,
	};
	render_event(log, &ev, out);
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_syslog_frame.c: the syslog sink's framing.  A line becomes an RFC
 * 5424 message (PRI, UTC timestamp with microseconds, HOSTNAME, APP-NAME,
 * PROCID, structured data with the category, file, line and thread, then
 * the line as MSG, and a call's key-value fields as an element of their own) or an RFC 3164 one; on a stream it is preceded by its
 * length (RFC 6587 octet counting, "LEN SP MSG").  A line too long for the
 * transport is cut, visibly, between two UTF-8 characters.
 */
#include "sr_log_date_internal.h"
#include "sr_log_syslog_state_internal.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

static int
severity_of(int level)
{
	static const int sev[] = { 7, 7, 6, 4, 3, 2, 7 }; /* trace debug info warn error fatal off */
	return level >= 0 && level < SR_LOG_LEVEL_COUNT ? sev[level] : 6;
}

/* An SD-PARAM value: '"', '\\' and ']' escaped (RFC 5424, 6.3.3). */
static void
put_sd_value(sr_fmt_buf *b, const char *s, size_t n)
{
	size_t from = 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		/* One compare for a lower-case letter: the three specials are at or below ']'. */
		if (c > ']' || (c != '"' && c != '\\' && c != ']'))
			continue;
		/* Runs without a special character go in one copy. */
		sr_fmt_buf_put(b, s + from, i - from);
		sr_fmt_buf_putc(b, '\\');
		from = i;
	}
	sr_fmt_buf_put(b, s + from, n - from);
}

static void
put_str(sr_fmt_buf *b, const char *s)
{
	sr_fmt_buf_put(b, s, strlen(s));
}

static const char *
base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash != NULL ? slash + 1 : path;
}

/*
 * A key as an SD-NAME (RFC 5424, 6.3.3): printable US-ASCII but '=', ' ',
 * ']' and '"', at most 32 characters; any other byte becomes '_', a longer
 * key is cut to its first 32.
 */
static void
put_sd_name(sr_fmt_buf *b, const char *key, size_t n)
{
	char name[SR_SYSLOG_SD_NAME_MAX];
	if (n > sizeof name)
		n = sizeof name;
	for (size_t i = 0; i < n; i++) {
		char c = key[i];
		if (!(c > ' ' && c < 0x7f && c != '=' && c != ']' && c != '"'))
			c = '_';  /* a byte above 0x7f is negative here: replaced too */
		name[i] = c;
	}
	sr_fmt_buf_put(b, name, n);
}

/* The call's key-value fields (SR_KV) as the SD-PARAMs of one element, SR_SYSLOG_FIELDS_SD_ID. */
static void
put_fields(sr_fmt_buf *b, const sr_log_event *ev)
{
	sr_fmt_field_iter it;
	if (!sr_log__event_fields(ev, &it))
		return;
	sr_fmt_field f;
	bool any = false;
	while (sr_fmt_fields_next(&it, &f)) {
		put_str(b, any ? " " : "[" SR_SYSLOG_FIELDS_SD_ID " ");
		any = true;
		put_sd_name(b, f.key, f.key_len);
		put_str(b, "=\"");
		if (f.kind != SR_FMT_ARG_STR)
			sr_fmt_field_put_number(b, &f, false);
		else if (f.str == NULL)
			put_str(b, "(null)");
		else
			put_sd_value(b, f.str, f.str_len);
		sr_fmt_buf_putc(b, '"');
	}
	if (any)
		sr_fmt_buf_putc(b, ']');
}

static void
put_structured_data(sr_fmt_buf *b, const sr_log_event *ev)
{
	if (ev == NULL) {
		sr_fmt_buf_putc(b, '-');
		return;
	}
	put_str(b, "[" SR_SYSLOG_SD_ID " category=\"");
	const char *cat = ev->category != NULL && ev->category[0] != '\0' ? ev->category : "root";
	put_sd_value(b, cat, strlen(cat));
	sr_fmt_buf_putc(b, '"');
	if (ev->site != NULL && ev->site->file != NULL) {
		put_str(b, " file=\"");
		const char *f = base_name(ev->site->file);
		put_sd_value(b, f, strlen(f));
		put_str(b, "\" line=\"");
		sr_log__put_uint(b, (uint64_t)ev->site->line, 1);
		sr_fmt_buf_putc(b, '"');
	}
	if (ev->thread != NULL && ev->thread[0] != '\0') {
		put_str(b, " thread=\"");
		put_sd_value(b, ev->thread, strnlen(ev->thread, 16));
		sr_fmt_buf_putc(b, '"');
	}
	put_str(b, " tid=\"");
	sr_log__put_uint(b, ev->tid, 1);
	put_str(b, "\"]");
	put_fields(b, ev);
}

static void
put_header_5424(struct sr_log_syslog *ss, sr_fmt_buf *b, const sr_log_event *ev, int64_t ts_ns)
{
	int64_t sec;
	int32_t ns;
	sr_log__split_ns(ts_ns, &sec, &ns);
	if (sec != ss->stamp_sec) {
		/* The date changes once a second: made then, copied for every message. */
		sr_fmt_buf d = { ss->stamp, 0, sizeof ss->stamp, 0 };
		sr_log__put_iso_seconds(&d, sec);
		ss->stamp_len = d.len;
		ss->stamp_sec = sec;
	}
	sr_fmt_buf_put(b, "1 ", 2);
	sr_fmt_buf_put(b, ss->stamp, ss->stamp_len);
	sr_fmt_buf_putc(b, '.');
	sr_log__put_uint(b, (uint64_t)(ns / 1000), 6);
	/* "Z HOSTNAME APP-NAME PROCID - ", fixed at open */
	sr_fmt_buf_put(b, ss->ident, ss->ident_len);
	put_structured_data(b, ev);
	sr_fmt_buf_putc(b, ' ');
}

static void
put_header_3164(const struct sr_log_syslog *ss, sr_fmt_buf *b, int64_t ts_ns)
{
	static const char months[12][4] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
		"Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
	time_t t = (time_t)(ts_ns / 1000000000);
	struct tm tm;
	localtime_r(&t, &tm);
	char stamp[32];
	snprintf(stamp, sizeof stamp, "%s %2d %02d:%02d:%02d ", months[tm.tm_mon % 12], tm.tm_mday,
	    tm.tm_hour, tm.tm_min, tm.tm_sec);
	put_str(b, stamp);
	/* The local daemon adds the host itself (as glibc's syslog() leaves it out). */
	if (ss->transport != SR_SYSLOG_LOCAL) {
		put_str(b, ss->hostname);
		sr_fmt_buf_putc(b, ' ');
	}
	put_str(b, ss->app);
	sr_fmt_buf_putc(b, '[');
	put_str(b, ss->procid);
	put_str(b, "]: ");
}

/* Backs up over UTF-8 continuation bytes so that a cut at n splits no character. */
static size_t
utf8_boundary(const char *s, size_t n)
{
	while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
		n--;
	return n;
}

/* The frame of one line in ss->frame; its length. */
size_t
sr_log__syslog_make_frame(struct sr_log_syslog *ss, const sr_log_event *ev, int level, const char *line,
    size_t len)
{
	if (len > 0 && line[len - 1] == '\n')
		len--;
	/* Streams: room for "LEN " in front, written once the length is known. */
	size_t lead = ss->stream ? 12 : 0;
	sr_fmt_buf b = { ss->frame + lead, 0, ss->frame_cap - lead, 0 };
	sr_fmt_buf_putc(&b, '<');
	sr_log__put_uint(&b, (uint64_t)ss->facility * 8 + (uint64_t)severity_of(level), 1);
	sr_fmt_buf_putc(&b, '>');
	int64_t ts = ev != NULL ? ev->ts_ns : sr_log__now_ns();
	if (ss->format == SR_SYSLOG_3164)
		put_header_3164(ss, &b, ts);
	else
		put_header_5424(ss, &b, ev, ts);
	size_t head = b.len;
	size_t limit = ss->stream ? b.cap : SR_SYSLOG_MAX_DATAGRAM;
	if (limit > b.cap)
		limit = b.cap;
	static const char mark[] = " " SR_FMT_TRUNCATION_MARKER;
	if (head + len > limit) {
		/* Too long for the transport: cut, visibly. */
		size_t keep = limit > head + sizeof mark ? limit - head - (sizeof mark - 1) : 0;
		keep = utf8_boundary(line, keep);
		sr_fmt_buf_put(&b, line, keep);
		sr_fmt_buf_put(&b, mark, sizeof mark - 1);
	} else {
		sr_fmt_buf_put(&b, line, len);
	}
	if (!ss->stream)
		return b.len;
	/* "LEN " right before the message, then the frame moved to the start. */
	char num[24];
	sr_fmt_buf nb = { num, 0, sizeof num, 0 };
	sr_log__put_uint(&nb, b.len, 1);
	num[nb.len++] = ' ';
	memcpy(ss->frame + lead - nb.len, num, nb.len);
	memmove(ss->frame, ss->frame + lead - nb.len, nb.len + b.len);
	return nb.len + b.len;
}

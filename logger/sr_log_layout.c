/*
 * sr_log_layout.c: turning a record into a line.
 *
 * The text layout is
 *   2026-11-30T12:34:56.123456Z INFO  [main] net.http - message (file.c:42)
 * The date and time up to the second come from a per-thread cache, rebuilt
 * once per second (gmtime_r + strftime cost ~130 ns a call; the cached path
 * ~30 ns), the microseconds are appended by hand.
 */
#include "sr_log_internal.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

int64_t
sr_log__now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* "YYYY-MM-DDTHH:MM:SS." of the last second rendered on this thread. */
static _Thread_local struct {
	int64_t sec;
	bool valid;
	char text[32];
	size_t len;
} ts_cache;

static void
put_timestamp(sr_fmt_buf *out, int64_t ts_ns)
{
	int64_t sec = ts_ns / 1000000000;
	int64_t ns = ts_ns % 1000000000;
	if (ns < 0) {
		ns += 1000000000;
		sec--;
	}
	if (!ts_cache.valid || ts_cache.sec != sec) {
		time_t t = (time_t)sec;
		struct tm tm;
		if (gmtime_r(&t, &tm) == NULL ||
		    (ts_cache.len = strftime(ts_cache.text, sizeof ts_cache.text, "%Y-%m-%dT%H:%M:%S.", &tm)) == 0) {
			memcpy(ts_cache.text, "0000-00-00T00:00:00.", 20);
			ts_cache.len = 20;
		}
		ts_cache.sec = sec;
		ts_cache.valid = true;
	}
	char tail[8];
	int64_t us = ns / 1000;
	for (int i = 5; i >= 0; i--) {
		tail[i] = (char)('0' + us % 10);
		us /= 10;
	}
	tail[6] = 'Z';
	tail[7] = ' ';
	sr_fmt_buf_put(out, ts_cache.text, ts_cache.len);
	sr_fmt_buf_put(out, tail, 8);
}

/* Level names padded to five, as in Log4j's default pattern. */
static const char level_text[SR_LOG_LEVEL_COUNT][7] = {
	"TRACE ", "DEBUG ", "INFO  ", "WARN  ", "ERROR ", "FATAL ", "OFF   "
};

static void
put_prefix(sr_fmt_buf *out, int64_t ts_ns, int level, uint32_t tid, const char *thread,
    const char *category)
{
	put_timestamp(out, ts_ns);
	sr_fmt_buf_put(out, level_text[level < 0 || level >= SR_LOG_LEVEL_COUNT ? SR_LOG_OFF : level], 6);
	sr_fmt_buf_putc(out, '[');
	size_t tl = strnlen(thread, 16);
	if (tl > 0) {
		sr_fmt_buf_put(out, thread, tl);
	} else {
		char num[16];
		int n = snprintf(num, sizeof num, "%u", tid);
		sr_fmt_buf_put(out, num, (size_t)n);
	}
	sr_fmt_buf_put(out, "] ", 2);
	if (category == NULL || category[0] == '\0')
		category = "root";
	sr_fmt_buf_put(out, category, strlen(category));
	sr_fmt_buf_put(out, " - ", 3);
}

static void
put_location(sr_fmt_buf *out, const char *file, int32_t line)
{
	char num[16];
	int n = snprintf(num, sizeof num, "%d", line);
	sr_fmt_buf_put(out, " (", 2);
	sr_fmt_buf_put(out, file, strlen(file));
	sr_fmt_buf_putc(out, ':');
	sr_fmt_buf_put(out, num, (size_t)n);
	sr_fmt_buf_putc(out, ')');
}

bool
sr_log__finish_line(sr_fmt_buf *out)
{
	/* The reserve past cap (SR_FMT_LINE_RESERVE) holds the marker and '\n'. */
	bool cut = sr_fmt_buf_truncated(out);
	if (cut) {
		static const char mark[] = " " SR_FMT_TRUNCATION_MARKER;
		memcpy(out->data + out->len, mark, sizeof mark - 1);
		out->len += sizeof mark - 1;
	}
	out->data[out->len++] = '\n';
	return cut;
}

void
sr_log__render_record(const sr_log *log, const sr_log_rec *h,
    const unsigned char *body, size_t body_len, sr_fmt_buf *out)
{
	const sr_site *site = h->site;
	int kind = h->kind & SR_REC_KIND_MASK;
	if (log->layout == SR_LOG_LAYOUT_TEXT)
		put_prefix(out, h->ts_ns, h->level, h->tid, h->thread,
		    h->cat != NULL ? h->cat->name : NULL);
	if (kind == SR_REC_FORMAT_ERROR) {
		sr_fmt_render_error(out, site->format);
	} else {
		size_t vb = h->value_bytes <= body_len ? h->value_bytes : body_len;
		sr_fmt_render(out, site->format, body, vb, body + vb, body_len - vb, h->errno_value);
	}
	if (log->layout == SR_LOG_LAYOUT_TEXT)
		put_location(out, sr_site_file_base(site), site->line);
}

void
sr_log__render_text(const sr_log *log, int level, const char *text, size_t len, sr_fmt_buf *out)
{
	if (log->layout == SR_LOG_LAYOUT_TEXT) {
		const sr_log_thread *self = &sr_log__self;
		put_prefix(out, sr_log__now_ns(), level, self->tid, self->name, "seqring");
	}
	sr_fmt_buf_put(out, text, len);
}

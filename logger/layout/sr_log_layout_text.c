/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_layout_text.c: the text layout,
 *   2026-11-30T12:34:56.123456Z INFO  [main] net.http - message (file.c:42)
 * The date and time up to the second come from a per-thread cache, rebuilt
 * once per second; the microseconds are appended by hand.
 */
#include "sr_log_date_internal.h"
#include "sr_log_layout_escape_internal.h"
#include "sr_log_layout_text_internal.h"

#include <string.h>

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
		sr_log__put_iso_seconds(out, sec);
		sr_fmt_buf_putc(out, '.');
	} else {
		if (!ts_cache.valid || ts_cache.sec != sec) {
			sr_fmt_buf b = { ts_cache.text, 0, sizeof ts_cache.text - 1, 0 };
			sr_log__put_iso_seconds(&b, sec);
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

void
sr_log__layout_text(const sr_log_event *ev, sr_fmt_buf *out)
{
	if (ev->backtrace)
		sr_fmt_buf_put(out, SR_LOG_BACKTRACE_MARK, sizeof SR_LOG_BACKTRACE_MARK - 1);
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
	sr_log__put_message_escaped(ev, out);
	if (ev->site != NULL) {
		const char *file = sr_site_file_base(ev->site);
		sr_fmt_buf_put(out, " (", 2);
		sr_fmt_buf_put(out, file, strlen(file));
		sr_fmt_buf_putc(out, ':');
		sr_log__put_int(out, ev->site->line);
		sr_fmt_buf_putc(out, ')');
	}
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_layout_text_internal.h: the text layout (sr_log_layout_text.c;
 * internal).
 */
#ifndef SR_LOG_LAYOUT_TEXT_INTERNAL_H
#define SR_LOG_LAYOUT_TEXT_INTERNAL_H

#include <string.h>

#include "sr_log_date_internal.h"
#include "sr_log_event_internal.h"
#include "sr_log_site_parts_internal.h"

/* 2026-11-30T12:34:56.123456Z INFO  [main] net.http - message (file.c:42) */
void sr_log__layout_text(const sr_log_event *ev, sr_fmt_buf *out);

/* The parts of that line, for whoever lays it out from caches of them (sr_log_lane_text.c). */

/* ".123456Z ": the microseconds after the date's seconds, and the space before the level. */
enum { SR_LOG_TEXT_SUBSECOND_LEN = 9 };
static inline void
sr_log__text_subsecond(char *d, uint32_t us)
{
	/* us is 0 to 999,999: three pairs of digits */
	d[0] = '.';
	memcpy(d + 1, &sr_log__two_digits[us / 10000 * 2], 2);
	memcpy(d + 3, &sr_log__two_digits[us / 100 % 100 * 2], 2);
	memcpy(d + 5, &sr_log__two_digits[us % 100 * 2], 2);
	d[7] = 'Z';
	d[8] = ' ';
}
/*
 * "INFO  [main] net.http - " at d, which has room for 28 + category_len
 * bytes (thread: 16 bytes, NUL-padded; its tid when it has no name); the
 * end.
 */
char *sr_log__text_head(char *d, int level, const char *thread, uint32_t tid, const char *category,
    size_t category_len);
/* A site's " (file.c:42)" in its part of parts (made on its first line), or NULL when it is too long for one. */
sr_log_site_part *sr_log__text_site_part(sr_log_site_parts *parts, const sr_site *site);

#endif /* SR_LOG_LAYOUT_TEXT_INTERNAL_H */

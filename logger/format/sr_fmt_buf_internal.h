/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_fmt_buf_internal.h: the bounded text buffer every renderer writes into
 * (internal; all of it inline, so that the lowest files of the format engine
 * can use it without calling anything above them).
 */
#ifndef SR_FMT_BUF_INTERNAL_H
#define SR_FMT_BUF_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "sr_log_site.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A bounded text buffer.  Appends never overflow: what does not fit is cut,
 * and `want` keeps counting what would have been written, so that a caller
 * can tell (want > len) and retry with a bigger buffer.  data must have room
 * for cap + SR_FMT_LINE_RESERVE bytes: the reserve holds the marker, the
 * line end and snprintf's NUL after a cut.
 */
typedef struct sr_fmt_buf {
	char *data;
	size_t len;
	size_t cap;
	size_t want;
} sr_fmt_buf;

#define SR_FMT_LINE_RESERVE (SR_FMT_TRUNCATION_MARKER_LEN + 4)

static inline void
sr_fmt_buf_put(sr_fmt_buf *b, const char *s, size_t n)
{
	size_t room = b->cap - b->len;
	size_t k = n < room ? n : room;
	memcpy(b->data + b->len, s, k);
	b->len += k;
	b->want += n;
}

static inline void
sr_fmt_buf_putc(sr_fmt_buf *b, char c)
{
	if (b->len < b->cap)
		b->data[b->len++] = c;
	b->want++;
}

static inline bool
sr_fmt_buf_truncated(const sr_fmt_buf *b)
{
	return b->want > b->len;
}

#ifdef __cplusplus
}
#endif

#endif /* SR_FMT_BUF_INTERNAL_H */

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_lane_lines_internal.h: the text and JSON lines of the consumer's
 * straight path (sr_log_lane_internal.h), the same bytes as
 * sr_log_layout_text.c and sr_log_layout_json.c lay out, copied from the
 * lane's caches (internal).
 *
 * Inline, for the one unit that lays them (sr_log_consumer_lane.c), which
 * is built twice: as is, and for AVX2, where the message's copy and the
 * fixed-size copies go 32 bytes a step.
 */
#ifndef SR_LOG_LANE_LINES_INTERNAL_H
#define SR_LOG_LANE_LINES_INTERNAL_H

#include "sr_fmt_escape_internal.h"
#include "sr_log_lane_internal.h"
#include "sr_log_layout_json_internal.h"
#include "sr_log_layout_text_internal.h"

#include <string.h>

enum {
	/*
	 * The room a JSON line leaves beside its message for the lane to take
	 * it: more than the longest date, head and site keys with the
	 * fixed-size copies past them, and than the general way reserves before
	 * it would cut the category, the thread or the message
	 * (sr_log__layout_json).
	 */
	SR_LOG_LANE_JSON_ROOM = 1024
};

/* What a line starts from: h's site part, head, message and time. */
typedef struct sr_log_lane_start {
	const sr_log_site_part *part;
	const sr_log_lane_head *head;
	const char *msg;
	size_t msg_len;
	int64_t ts;
} sr_log_lane_start;

/*
 * The start of h's line in layout (SR_LOG_LANE_TEXT or _JSON) in *st: false
 * when the lane declines h or its line, with `beside` bytes past the
 * message, might not fit in room.
 */
static inline __attribute__((always_inline)) bool
sr_log__lane_start(sr_log_lane *lane, const sr_log *log, const sr_log_rec *h, const unsigned char *body,
    size_t body_len, sr_log_site_parts *parts, int layout, size_t beside, size_t room, sr_log_lane_start *st)
{
	st->part = sr_log__lane_begin(h, body, body_len, parts, layout, &st->msg, &st->msg_len);
	if (st->part == NULL)
		return false;
	st->head = sr_log__lane_head(lane, layout, h);
	/* msg_len < 2^32 (its length is 32 bits): the sum does not wrap. */
	return st->head != NULL && st->msg_len + beside <= room && sr_log__lane_time(lane, log, h, &st->ts);
}

/*
 * The text layout's whole line for record h (its body body_len bytes),
 * '\n' included, at out, which has room for room bytes: its length, or 0
 * when the record is not one the lane lays out or the line might not fit in
 * room (then out holds scraps and the general way writes it).  log: its
 * clock and escape setting; parts: the consumer's site parts.
 */
static inline __attribute__((always_inline)) size_t
sr_log__lane_text_line(sr_log_lane *lane, const sr_log *log, const sr_log_rec *h, const unsigned char *body,
    size_t body_len, sr_log_site_parts *parts, char *out, size_t room)
{
	/* Every copy below is of a fixed size at most these: the line fits, and is never cut. */
	sr_log_lane_start st;
	if (!sr_log__lane_start(lane, log, h, body, body_len, parts, SR_LOG_LANE_TEXT, SR_LOG_LANE_DATE_MAX +
	    SR_LOG_TEXT_SUBSECOND_LEN + SR_LOG_LANE_HEAD_MAX + SR_LOG_SITE_PART_TEXT_MAX + 1, room, &st))
		return 0;
	char *d = out;
	_Static_assert(SR_LOG_LANE_DATE_MAX == 32, "the date is one 32-byte copy");
	sr_log__lane_copy32(d, lane->date);
	d += lane->date_len;
	sr_log__lane_subsecond(lane, d, (uint32_t)(st.ts - lane->second_ns));
	d += SR_LOG_TEXT_SUBSECOND_LEN;
	sr_log__lane_copy_head(d, st.head);
	d += st.head->len;
	if (log->opt.escape_controls) {
		if (!sr_fmt_copy_if_plain(d, st.msg, st.msg_len))
			return 0;
	} else {
		memcpy(d, st.msg, st.msg_len);
	}
	d += st.msg_len;
	_Static_assert(SR_LOG_SITE_PART_TEXT_MAX == 48, "a text part is two 32-byte copies, overlapping");
	sr_log__lane_copy32(d, st.part->text);
	sr_log__lane_copy32(d + 16, st.part->text + 16);
	d += st.part->text_len;
	*d++ = '\n';
	return (size_t)(d - out);
}

/* The same for the JSON layout's object. */
static inline __attribute__((always_inline)) size_t
sr_log__lane_json_line(sr_log_lane *lane, const sr_log *log, const sr_log_rec *h, const unsigned char *body,
    size_t body_len, sr_log_site_parts *parts, char *out, size_t room)
{
	sr_log_lane_start st;
	if (!sr_log__lane_start(lane, log, h, body, body_len, parts, SR_LOG_LANE_JSON, SR_LOG_LANE_JSON_ROOM, room,
	    &st))
		return 0;
	char *d = out;
	memcpy(d, "{\"ts\":\"", 8);  /* its NUL too, a byte the date's copy overwrites */
	d += 7;
	_Static_assert(SR_LOG_LANE_DATE_MAX == 32, "the date is one 32-byte copy");
	sr_log__lane_copy32(d, lane->date);
	d += lane->date_len;
	sr_log__lane_nine_digits(lane, d, (uint32_t)(st.ts - lane->second_ns));
	d += 10;
	sr_log__lane_copy_head(d, st.head);
	d += st.head->len;
	if (!sr_log__json_copy_if_plain(d, st.msg, st.msg_len))
		return 0;
	d += st.msg_len;
	*d++ = '"';
	sr_log__lane_copy32(d, st.part->json);
	sr_log__lane_copy32(d + 32, st.part->json + 32);
	if (st.part->json_len > 64)
		memcpy(d + 64, st.part->json + 64, SR_LOG_SITE_PART_JSON_MAX - 64);
	d += st.part->json_len;
	d[0] = '}';
	d[1] = '\n';
	return (size_t)(d + 2 - out);
}

#endif /* SR_LOG_LANE_LINES_INTERNAL_H */

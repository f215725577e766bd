/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_lane_text.c: the text layout's line on the consumer's straight
 * path (sr_log_lane_internal.h): the same bytes as sr_log_layout_text.c,
 * copied from the lane's caches.
 */
#include "sr_fmt_escape_internal.h"
#include "sr_log_lane_internal.h"
#include "sr_log_layout_text_internal.h"

#include <string.h>

size_t
sr_log__lane_text(sr_log_lane *lane, const sr_log *log, const sr_log_rec *h, const unsigned char *body,
    size_t body_len, sr_log_site_parts *parts, char *out, size_t room)
{
	const char *msg;
	size_t msg_len;
	const sr_log_site_part *part = sr_log__lane_begin(h, body, body_len, parts, SR_LOG_LANE_TEXT, &msg, &msg_len);
	if (part == NULL)
		return 0;
	const sr_log_lane_head *head = sr_log__lane_head(lane, SR_LOG_LANE_TEXT, h);
	/* Every copy below is of a fixed size at most these: the line fits, and is never cut. */
	if (head == NULL || msg_len > room ||
	    room - msg_len < SR_LOG_LANE_DATE_MAX + SR_LOG_TEXT_SUBSECOND_LEN + SR_LOG_LANE_HEAD_MAX +
	    SR_LOG_SITE_PART_TEXT_MAX + 1)
		return 0;
	int64_t ts;
	if (!sr_log__lane_time(lane, log, h, &ts))
		return 0;
	char *d = out;
	memcpy(d, lane->date, SR_LOG_LANE_DATE_MAX);
	d += lane->date_len;
	sr_log__lane_subsecond(lane, d, (uint32_t)(ts - lane->second_ns));
	d += SR_LOG_TEXT_SUBSECOND_LEN;
	sr_log__lane_copy_head(d, head);
	d += head->len;
	if (log->opt.escape_controls) {
		bool copied = lane->wide && msg_len >= SR_LOG_LANE_WIDE_FROM ?
		    sr_fmt_copy_if_plain_wide(d, msg, msg_len) : sr_fmt_copy_if_plain(d, msg, msg_len);
		if (!copied)
			return 0;
	} else {
		memcpy(d, msg, msg_len);
	}
	d += msg_len;
	memcpy(d, part->text, SR_LOG_SITE_PART_TEXT_MAX);
	d += part->text_len;
	*d++ = '\n';
	return (size_t)(d - out);
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_lane_json.c: the JSON layout's object on the consumer's straight
 * path (sr_log_lane_internal.h): the same bytes as sr_log_layout_json.c,
 * copied from the lane's caches.
 */
#include "sr_log_lane_internal.h"
#include "sr_log_layout_json_internal.h"

#include <string.h>

/*
 * The room a line leaves beside its message for the lane to take it: more
 * than the longest date, head and site keys with the fixed-size copies
 * past them, and than the general way reserves before it would cut the
 * category, the thread or the message (sr_log__layout_json).
 */
#define LANE_JSON_ROOM 1024

size_t
sr_log__lane_json(sr_log_lane *lane, const sr_log *log, const sr_log_rec *h, const unsigned char *body,
    size_t body_len, sr_log_site_parts *parts, char *out, size_t room)
{
	const char *msg;
	size_t msg_len;
	const sr_log_site_part *part = sr_log__lane_begin(h, body, body_len, parts, SR_LOG_LANE_JSON, &msg, &msg_len);
	if (part == NULL)
		return 0;
	const sr_log_lane_head *head = sr_log__lane_head(lane, SR_LOG_LANE_JSON, h);
	if (head == NULL || msg_len > room || room - msg_len < LANE_JSON_ROOM)
		return 0;
	int64_t ts;
	if (!sr_log__lane_time(lane, log, h, &ts))
		return 0;
	char *d = out;
	memcpy(d, "{\"ts\":\"", 8);  /* its NUL too, a byte the date's copy overwrites */
	d += 7;
	memcpy(d, lane->date, SR_LOG_LANE_DATE_MAX);
	d += lane->date_len;
	sr_log__lane_nine_digits(lane, d, (uint32_t)(ts - lane->second_ns));
	d += 10;
	sr_log__lane_copy_head(d, head);
	d += head->len;
	bool copied = lane->wide && msg_len >= SR_LOG_LANE_WIDE_FROM ?
	    sr_log__json_copy_if_plain_wide(d, msg, msg_len) : sr_log__json_copy_if_plain(d, msg, msg_len);
	if (!copied)
		return 0;
	d += msg_len;
	*d++ = '"';
	memcpy(d, part->json, 64);
	if (part->json_len > 64)
		memcpy(d + 64, part->json + 64, SR_LOG_SITE_PART_JSON_MAX - 64);
	d += part->json_len;
	d[0] = '}';
	d[1] = '\n';
	return (size_t)(d + 2 - out);
}

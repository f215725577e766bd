/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_consumer_lane.c: the consumer's straight path, one build of it
 * (sr_log_consumer_lane_internal.h).  As is, this unit is the plain build;
 * sr_log_consumer_lane_avx2.c includes it again, built for AVX2, with
 * SR_LOG_LANE_BUILD_NAME naming its functions.  The sink's room and the
 * line are inline here: one call a record from the consumer.
 */
#ifndef SR_LOG_LANE_BUILD_NAME
#define SR_LOG_LANE_BUILD_NAME(name) name##_plain
#endif

#include "sr_log_consumer_lane_internal.h"
#include "sr_log_lane_lines_internal.h"
#include "sr_log_sink_internal.h"

bool
SR_LOG_LANE_BUILD_NAME(sr_log__consume_in_lane)(sr_log *log, sr_log_lane *lane, sr_log_site_parts *parts,
    const sr_log_rec *h, const unsigned char *body, size_t body_len)
{
	const struct sr_log_sole_sink *sole = sr_log__sinks_sole(log, h->level);
	sr_log_sink *sink = sole->sink;
	if (sink == NULL)
		return false;
	sr_fmt_buf room = sr_log__sink_line_room(log, sink);
	size_t n;
	if (sole->layout == SR_LOG_LAYOUT_TEXT)
		n = sr_log__lane_text_line(lane, log, h, body, body_len, parts, room.data, room.cap);
	else if (sole->layout == SR_LOG_LAYOUT_JSON)
		n = sr_log__lane_json_line(lane, log, h, body, body_len, parts, room.data, room.cap);
	else
		return false;
	if (n == 0)
		return false;
	sr_log__sink_line_taken(sink, n);
	sr_log__consumer_count_emitted(h->site);  /* the lane took h: it has a site */
	return true;
}

size_t
SR_LOG_LANE_BUILD_NAME(sr_log__lane_line)(sr_log_lane *lane, const sr_log *log, sr_log_layout layout,
    const sr_log_rec *h, const unsigned char *body, size_t body_len, sr_log_site_parts *parts, char *out,
    size_t room)
{
	if ((h->kind & ~SR_REC_ERRNO) != SR_REC_MESSAGE || parts == NULL)
		return 0;  /* the consumer checks both before the straight path */
	if (layout == SR_LOG_LAYOUT_TEXT)
		return sr_log__lane_text_line(lane, log, h, body, body_len, parts, out, room);
	if (layout == SR_LOG_LAYOUT_JSON)
		return sr_log__lane_json_line(lane, log, h, body, body_len, parts, out, room);
	return 0;
}

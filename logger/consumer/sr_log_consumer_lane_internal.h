/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_consumer_lane_internal.h: the consumer's straight path, from the
 * record to the sink's buffer (internal; sr_log_consumer_lane.c).
 *
 * One unit lays the common record's whole line (sr_log_lane_lines_internal.h)
 * straight into the buffer of the one file sink its level's lines go to.  It
 * is built twice: as is (every CPU), and, on x86-64 where the compiler takes
 * -mavx2, for AVX2, whose copies go 32 bytes a step.  The consumer takes the
 * last build this CPU runs (sr_log__lane_builds).
 */
#ifndef SR_LOG_CONSUMER_LANE_INTERNAL_H
#define SR_LOG_CONSUMER_LANE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "sr_log_lane_internal.h"

/*
 * Lays record h (its body body_len bytes), a whole message (its kind,
 * errno aside, SR_REC_MESSAGE), out in the buffer of the one file sink its
 * level's lines go to, when that sink's layout is text or JSON and the lane
 * takes h: true, the line is in the buffer (counted by the sink and in its
 * site's count, not yet by the consumer).  False: nothing of h was taken;
 * the general way lays it out.  parts: not NULL.  Consumer only.
 */
typedef bool sr_log_lane_consume_fn(sr_log *log, sr_log_lane *lane, sr_log_site_parts *parts, const sr_log_rec *h,
    const unsigned char *body, size_t body_len);
/*
 * The line alone, as the consume function lays it, at out (room bytes) in
 * layout (text or JSON; any other gets 0), for any record h: its length, or
 * 0 when the lane declines h.  The golden test holds it to the general way.
 */
typedef size_t sr_log_lane_line_fn(sr_log_lane *lane, const sr_log *log, sr_log_layout layout, const sr_log_rec *h,
    const unsigned char *body, size_t body_len, sr_log_site_parts *parts, char *out, size_t room);

/* A line of site's written: its count for the catalogue (sr_log_sites_list); consumer only. */
static inline void
sr_log__consumer_count_emitted(sr_site *site)
{
	/* A load and a store, no locked add: loggers' consumers rarely share a site at the same instant; exact with one logger. */
	sr_atomic_store_relaxed_i64(&site->emitted, sr_atomic_load_relaxed_i64(&site->emitted) + 1);
}

/* One build of the unit. */
typedef struct sr_log_lane_build {
	const char *name;                  /* "plain", "avx2" */
	sr_log_lane_consume_fn *consume;
	sr_log_lane_line_fn *line;
} sr_log_lane_build;

/*
 * The builds this CPU runs, the plain one first and the fastest last:
 * their count (at least 1), *builds pointing at them.
 */
size_t sr_log__lane_builds(const sr_log_lane_build **builds);

/* The unit's functions, one pair per build (SR_LOG_LANE_BUILD_NAME in sr_log_consumer_lane.c). */
bool sr_log__consume_in_lane_plain(sr_log *log, sr_log_lane *lane, sr_log_site_parts *parts, const sr_log_rec *h,
    const unsigned char *body, size_t body_len);
size_t sr_log__lane_line_plain(sr_log_lane *lane, const sr_log *log, sr_log_layout layout, const sr_log_rec *h,
    const unsigned char *body, size_t body_len, sr_log_site_parts *parts, char *out, size_t room);
bool sr_log__consume_in_lane_avx2(sr_log *log, sr_log_lane *lane, sr_log_site_parts *parts, const sr_log_rec *h,
    const unsigned char *body, size_t body_len);
size_t sr_log__lane_line_avx2(sr_log_lane *lane, const sr_log *log, sr_log_layout layout, const sr_log_rec *h,
    const unsigned char *body, size_t body_len, sr_log_site_parts *parts, char *out, size_t room);

#endif /* SR_LOG_CONSUMER_LANE_INTERNAL_H */

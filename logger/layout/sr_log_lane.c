/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_lane.c: what the consumer's straight path keeps between lines
 * (sr_log_lane_internal.h): the date of the current second, the heads of
 * the text and JSON layouts by category, level and thread, and what each
 * site's format is.
 */
#include "sr_fmt_escape_internal.h"
#include "sr_log_date_internal.h"
#include "sr_log_lane_internal.h"
#include "sr_log_layout_json_internal.h"
#include "sr_log_layout_text_internal.h"

#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(sr_log_lane_head) == 256, "a head's index is a shift");
_Static_assert(SR_LOG_LANE_HEAD_MAX <= UINT8_MAX, "a head's length is a byte");
_Static_assert(SR_LOG_LANE_HEADS == 1 << (32 - 26), "the head index takes a key's top 6 bits");

sr_log_lane *
sr_log__lane_new(void)
{
	sr_log_lane *lane = aligned_alloc(256, sizeof(sr_log_lane));
	if (lane == NULL)
		return NULL;
	memset(lane, 0, sizeof *lane);
	for (int i = 0; i < 1000; i++) {
		lane->three_digits[i][0] = (char)('0' + i / 100);
		lane->three_digits[i][1] = (char)('0' + i / 10 % 10);
		lane->three_digits[i][2] = (char)('0' + i % 10);
	}
	/* A second from the start (the epoch's), so that a time is only ever checked against one. */
	if (!sr_log__lane_new_second(lane, 0)) {
		free(lane);
		return NULL;
	}
	return lane;
}

void
sr_log__lane_free(sr_log_lane *lane)
{
	free(lane);
}

bool
sr_log__lane_make_part(sr_log_site_parts *parts, sr_log_site_part *part, const sr_site *site, int layout)
{
	if ((part->made & SR_LOG_SITE_PART_MESSAGE) == 0)
		sr_log__lane_plan_message(part, site);
	unsigned made = layout == SR_LOG_LANE_JSON ? SR_LOG_SITE_PART_JSON : SR_LOG_SITE_PART_TEXT;
	if ((part->made & made) != 0)
		return true;
	/*
	 * Made in the slot sr_log__site_part gave part, which names site now (it
	 * is not claimed again): the maker returns part, or NULL for a part too long.
	 */
	return (layout == SR_LOG_LANE_JSON ? sr_log__json_site_part(parts, site) : sr_log__text_site_part(parts, site)) ==
	    part;
}

void
sr_log__lane_plan_message(sr_log_site_part *part, const sr_site *site)
{
	const char *f = site->format;
	part->message = SR_LOG_SITE_MESSAGE_OTHER;
	if (f != NULL && f[0] == '%' && f[1] == 's' && f[2] == '\0') {
		part->message = SR_LOG_SITE_MESSAGE_ONE_STRING;
	} else if (f != NULL && strchr(f, '%') == NULL) {
		size_t n = strlen(f);
		if (n <= UINT32_MAX && sr_fmt_is_plain(f, n)) {
			part->message = SR_LOG_SITE_MESSAGE_PLAIN;
			part->plain_len = (uint32_t)n;
		}
	}
	part->made |= SR_LOG_SITE_PART_MESSAGE;
}

bool
sr_log__lane_new_second(sr_log_lane *lane, int64_t ts)
{
	int64_t sec;
	int32_t ns;
	sr_log__split_ns(ts, &sec, &ns);
	if (ts < INT64_MIN + ns)
		return false;  /* the second began before the first int64 ns: no start to keep (the last one stays) */
	sr_fmt_buf b = { lane->date, 0, sizeof lane->date, 0 };
	sr_log__put_iso_seconds(&b, sec);
	lane->date_len = (uint8_t)b.len;
	lane->second_ns = ts - ns;
	return true;
}

bool
sr_log__lane_make_head(sr_log_lane_head *e, int layout, const sr_log_rec *h)
{
	const char *category = h->cat != NULL ? h->cat->name : NULL;
	if (layout == SR_LOG_LANE_JSON) {
		/*
		 * The general way's head in a line with room for the lane's
		 * (sr_log__lane_json_line), where nothing is cut: made in a buffer where
		 * only a category far longer than a head is cut.
		 */
		char head[1024];
		sr_fmt_buf b = { head, 0, sizeof head, 0 };
		sr_log__json_head(&b, h->level, category, h->thread, h->tid, 0);
		if (b.len > SR_LOG_LANE_HEAD_MAX)
			return false;  /* the entry keeps the head it has */
		memcpy(e->text, head, b.len);
		e->len = (uint8_t)b.len;
	} else {
		if (category == NULL || category[0] == '\0')
			category = "root";
		size_t category_len = strlen(category);
		/* The head is at most 28 bytes and the category's (sr_log__text_head). */
		if (category_len > SR_LOG_LANE_HEAD_MAX - 28)
			return false;  /* the entry keeps the head it has */
		char *end = sr_log__text_head(e->text, h->level, h->thread, h->tid, category, category_len);
		e->len = (uint8_t)(end - e->text);
	}
	e->cat = h->cat;
	e->tid = h->tid;
	e->level = h->level;
	memcpy(e->thread, h->thread, sizeof e->thread);
	return true;
}

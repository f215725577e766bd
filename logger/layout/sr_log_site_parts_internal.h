/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_site_parts_internal.h: what a layout writes the same for every
 * record of a call site (the text layout's " (file.c:42)", the JSON
 * layout's file, line and function keys), made at the site's first record
 * and copied after (sr_log_site_parts.c; internal).
 *
 * A consumer owns one table and hands it to the layouts in its events
 * (sr_log_event.parts); callers that lay out their own lines (sync mode, a
 * signal handler) pass none and make the parts each time. Direct-mapped on
 * the site's address: a slot names its site, format, file, function and
 * line, so a site unloaded and another loaded at its address is never taken
 * for it.
 */
#ifndef SR_LOG_SITE_PARTS_INTERNAL_H
#define SR_LOG_SITE_PARTS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "sr_log_site.h"

enum {
	SR_LOG_SITE_PARTS_SLOTS = 256,
	SR_LOG_SITE_PART_TEXT_MAX = 48,    /* longer: made each time */
	SR_LOG_SITE_PART_JSON_MAX = 164,  /* the part 256 bytes: a slot's index is a shift */
	SR_LOG_SITE_PART_TEXT = 1,         /* made: text[] holds the text layout's part */
	SR_LOG_SITE_PART_JSON = 2,         /* made: json[] holds the JSON layout's */
	SR_LOG_SITE_PART_MESSAGE = 4,      /* made: message says what the site's format is */
	/* What a site's format is, for a straight path that lays out its message (sr_log_lane_internal.h). */
	SR_LOG_SITE_MESSAGE_OTHER = 0,     /* conversions: the format walk renders it */
	SR_LOG_SITE_MESSAGE_ONE_STRING = 1, /* "%s": the message is its one string */
	SR_LOG_SITE_MESSAGE_PLAIN = 2      /* no conversion, no byte an escape changes: the message is the format */
};

typedef struct sr_log_site_part {
	const sr_site *site;
	const char *format, *file, *function;
	int32_t line;
	uint8_t made;                      /* SR_LOG_SITE_PART_TEXT | _JSON | _MESSAGE */
	uint8_t text_len, json_len;
	uint8_t message;                   /* SR_LOG_SITE_MESSAGE_* */
	uint32_t plain_len;                /* SR_LOG_SITE_MESSAGE_PLAIN: the format's length */
	char text[SR_LOG_SITE_PART_TEXT_MAX];
	char json[SR_LOG_SITE_PART_JSON_MAX];
} sr_log_site_part;

typedef struct sr_log_site_parts {
	sr_log_site_part slot[SR_LOG_SITE_PARTS_SLOTS];
} sr_log_site_parts;

/* A table for one consumer (calloc'd: every slot empty); NULL when out of memory. */
sr_log_site_parts *sr_log__site_parts_new(void);
void sr_log__site_parts_free(sr_log_site_parts *parts);

/* Makes slot p site's, empty (out of line: the hit, inline, prepares nothing for it). */
void sr_log__site_part_claim(sr_log_site_part *p, const sr_site *site);

/* The slot of site, emptied first when it held another site (or one at the same address before). */
static inline sr_log_site_part *
sr_log__site_part(sr_log_site_parts *parts, const sr_site *site)
{
	sr_log_site_part *p = &parts->slot[((uintptr_t)site >> 6) % SR_LOG_SITE_PARTS_SLOTS];
	if (p->site != site || p->format != site->format || p->file != site->file || p->function != site->function ||
	    p->line != site->line)
		sr_log__site_part_claim(p, site);
	return p;
}

#endif /* SR_LOG_SITE_PARTS_INTERNAL_H */

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_lane_internal.h: the consumer's straight path for the common record
 * (sr_log_lane.c; its lines in sr_log_lane_lines_internal.h; internal).
 *
 * Most records are a message whose format is a lone "%s" or plain text, with
 * no key-value fields, from one of a few threads and categories.  The lane
 * lays such a record out whole in the text or JSON layout, straight into
 * the sink's buffer, from what the consumer keeps between lines: its copy
 * of the clock's segments, the date of the current second, each (category,
 * level, thread)'s head (the text layout's "INFO  [main] net.http - ", the
 * JSON layout's keys from the time's Z to "msg"), each site's part (" (file.c:42)",
 * the JSON layout's file, line and function keys).  Every other
 * record (a conversion, a field, a byte the escape changes, a line that
 * might be cut, a head too long for its cache) gets 0 and goes the general
 * way (sr_log__render_event), which writes the same bytes: the golden corpus
 * holds both to it.
 */
#ifndef SR_LOG_LANE_INTERNAL_H
#define SR_LOG_LANE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#if defined(__AVX2__)
#include <immintrin.h>
#endif

#include "sr_fmt_internal.h"
#include "sr_log_clock_internal.h"
#include "sr_log_record_internal.h"
#include "sr_log_site_parts_internal.h"

enum {
	SR_LOG_LANE_HEADS = 64,            /* per layout, direct-mapped on (category, level, thread id) */
	SR_LOG_LANE_HEAD_MAX = 224,        /* a longer head is laid out the general way */
	SR_LOG_LANE_TEXT = 0,              /* the layouts the lane lays out: an index of its heads */
	SR_LOG_LANE_JSON = 1,
	SR_LOG_LANE_DATE_MAX = 32          /* "YYYY-MM-DDTHH:MM:SS", a year past 9999 longer */
};

/* A head as a layout writes it for one category, level and thread (256 bytes: an index is a shift). */
typedef struct sr_log_lane_head {
	const sr_category *cat;
	uint32_t tid;
	uint8_t level;
	uint8_t len;                       /* 0: empty */
	char thread[16];                   /* the record's, NUL-padded */
	char text[SR_LOG_LANE_HEAD_MAX];
} __attribute__((aligned(256))) sr_log_lane_head;

/* The consumer's; one thread uses it at a time. */
typedef struct sr_log_lane {
	sr_log_clock_copy clock;
	int64_t second_ns;                 /* the first ns of the second date holds (the epoch's at first) */
	uint8_t date_len;
	char date[SR_LOG_LANE_DATE_MAX];
	/* "000" to "999", each in 4 bytes (the fourth a spare the next store overwrites): sub-second digits. */
	char three_digits[1000][4];
	const sr_log_lane_head *last[2];   /* the head each layout served last: most records are its again */
	sr_log_lane_head heads[2][SR_LOG_LANE_HEADS];  /* [SR_LOG_LANE_TEXT or _JSON] */
} sr_log_lane;

/*
 * The text layout's ".123456Z " (SR_LOG_TEXT_SUBSECOND_LEN bytes) for ns,
 * the nanoseconds within the second, at d, which has room for one more byte.
 */
static inline void
sr_log__lane_subsecond(const sr_log_lane *lane, char *d, uint32_t ns)
{
	uint32_t us = ns / 1000;
	uint32_t ms = us / 1000;
	d[0] = '.';
	memcpy(d + 1, lane->three_digits[ms], 4);
	memcpy(d + 4, lane->three_digits[us - ms * 1000], 4);
	memcpy(d + 7, "Z ", 2);
}

/* The JSON layout's ".123456789" (10 bytes) for ns at d, which has room for one more byte. */
static inline void
sr_log__lane_nine_digits(const sr_log_lane *lane, char *d, uint32_t ns)
{
	uint32_t us = ns / 1000;
	uint32_t ms = us / 1000;
	d[0] = '.';
	memcpy(d + 1, lane->three_digits[ms], 4);
	memcpy(d + 4, lane->three_digits[us - ms * 1000], 4);
	memcpy(d + 7, lane->three_digits[ns - us * 1000], 4);
}

/* A lane (calloc'd: empty); NULL when out of memory, and the consumer goes the general way. */
sr_log_lane *sr_log__lane_new(void);
void sr_log__lane_free(sr_log_lane *lane);

/* ---- the lane's caches, for its layouts (hits inline, misses in sr_log_lane.c) ---- */

/* Records what part's site's format is (SR_LOG_SITE_MESSAGE_*). */
void sr_log__lane_plan_message(sr_log_site_part *part, const sr_site *site);
/* Makes the head of h in e for layout (SR_LOG_LANE_TEXT or _JSON); false when it is too long to keep. */
bool sr_log__lane_make_head(sr_log_lane_head *e, int layout, const sr_log_rec *h);
/* Puts the date of the second of ts in lane->date; false for a second that began before INT64_MIN ns. */
bool sr_log__lane_new_second(sr_log_lane *lane, int64_t ts);

/*
 * The message of h when its site's format is one the lane copies (*msg,
 * *len), as sr_log__lane_plan_message recorded it in part; false otherwise.
 */
static inline bool
sr_log__lane_message(const sr_log_site_part *part, const sr_site *site, const sr_log_rec *h,
    const unsigned char *body, size_t body_len, const char **msg, size_t *len)
{
	if (part->message == SR_LOG_SITE_MESSAGE_ONE_STRING) {
		/*
		 * The value area is the string's length alone (more values are
		 * key-value fields); the string area, its bytes and NUL: as the
		 * format walk reads them (sr_fmt__take_string), which renders any
		 * other record ("(null)", "<bad record>").
		 */
		uint32_t n;
		if (h->value_bytes != 4 || body_len < 5)
			return false;
		memcpy(&n, body, 4);
		if (n > body_len - 5 || n == SR_FMT_NULL_STRING || body[4 + (size_t)n] != '\0')
			return false;
		*msg = (const char *)body + 4;
		*len = n;
		return true;
	}
	if (part->message == SR_LOG_SITE_MESSAGE_PLAIN && h->value_bytes == 0) {
		*msg = site->format;
		*len = part->plain_len;
		return true;
	}
	return false;
}

/*
 * The time of h in ns since the epoch (*ts); lane->date then holds the date
 * of its second, which began at lane->second_ns.  False for a time in the
 * second before INT64_MIN ns, which the general way lays out.
 */
static inline bool
sr_log__lane_time(sr_log_lane *lane, const sr_log *log, const sr_log_rec *h, int64_t *ts)
{
	*ts = sr_log__clock_to_ns_copied(log, &lane->clock, h->ts_ns);
	/* Not before the second's start, then the distance unsigned: exact for times any distance apart. */
	if (*ts < lane->second_ns ||
	    (uint64_t)*ts - (uint64_t)lane->second_ns >= UINT64_C(1000000000))
		return sr_log__lane_new_second(lane, *ts);
	return true;
}

/* Whether head e is the one of h's category, level and thread (e made). */
static inline bool
sr_log__lane_head_of(const sr_log_lane_head *e, const sr_log_rec *h)
{
	return e->cat == h->cat && e->tid == h->tid && e->level == h->level &&
	    memcmp(e->thread, h->thread, sizeof e->thread) == 0;
}

/* The same for a cache entry, which may be empty. */
static inline bool
sr_log__lane_head_is(const sr_log_lane_head *e, const sr_log_rec *h)
{
	return e->len != 0 && sr_log__lane_head_of(e, h);
}

/*
 * The head of h in layout (SR_LOG_LANE_TEXT or _JSON) from the lane's
 * cache (made on a miss); NULL when it is too long to keep.
 */
static inline const sr_log_lane_head *
sr_log__lane_head(sr_log_lane *lane, int layout, const sr_log_rec *h)
{
	/* The head served last, checked whole: a burst's records are mostly one thread's and one category's. */
	const sr_log_lane_head *last = lane->last[layout];
	if (last != NULL && sr_log__lane_head_of(last, h))  /* made: never empty */
		return last;
	/* Threads tell most lines apart: their ids mixed by a multiply, the top bits taken. */
	uint32_t key = (h->tid ^ (uint32_t)((uintptr_t)h->cat >> 4) ^ h->level) * 0x9e3779b1u;
	sr_log_lane_head *e = &lane->heads[layout][key >> 26];
	if (!sr_log__lane_head_is(e, h) && !sr_log__lane_make_head(e, layout, h))
		return NULL;
	lane->last[layout] = e;
	return e;
}

/*
 * Makes what part (site's, in parts) lacks of layout's part (SR_LOG_LANE_TEXT
 * or _JSON: sr_log_layout_text.c, _json.c) and of its message's plan; false
 * when layout's part is too long to keep.
 */
bool sr_log__lane_make_part(sr_log_site_parts *parts, sr_log_site_part *part, const sr_site *site, int layout);

/*
 * What every layout's straight path starts with: h, a whole message (its
 * kind, errno aside, SR_REC_MESSAGE: the caller checks; one cut is counted
 * and marked the general way), of a site whose part of layout is made and
 * whose format the lane copies.  Its part, and its message in *msg and *len;
 * NULL when the lane declines h.  parts: not NULL.
 */
static inline const sr_log_site_part *
sr_log__lane_begin(const sr_log_rec *h, const unsigned char *body, size_t body_len, sr_log_site_parts *parts,
    int layout, const char **msg, size_t *len)
{
	const sr_site *site = h->site;
	if (site == NULL)
		return NULL;
	sr_log_site_part *part = sr_log__site_part(parts, site);
	unsigned made = (layout == SR_LOG_LANE_JSON ? SR_LOG_SITE_PART_JSON : SR_LOG_SITE_PART_TEXT) |
	    SR_LOG_SITE_PART_MESSAGE;
	if ((part->made & made) != made && !sr_log__lane_make_part(parts, part, site, layout))
		return NULL;
	return sr_log__lane_message(part, site, h, body, body_len, msg, len) ? part : NULL;
}

/* Copies 32 bytes: in code built for AVX2, in one step (a memcpy of 32 takes two there). */
static inline void
sr_log__lane_copy32(char *d, const char *s)
{
#if defined(__AVX2__)
	_mm256_storeu_si256((__m256i *)(void *)d, _mm256_loadu_si256((const __m256i *)(const void *)s));
#else
	memcpy(d, s, 32);
#endif
}

/* Copies a head in fixed steps of 64 bytes (a text head takes one, a JSON head two). */
static inline void
sr_log__lane_copy_head(char *d, const sr_log_lane_head *head)
{
	sr_log__lane_copy32(d, head->text);
	sr_log__lane_copy32(d + 32, head->text + 32);
	if (head->len > 64) {
		sr_log__lane_copy32(d + 64, head->text + 64);
		sr_log__lane_copy32(d + 96, head->text + 96);
		if (head->len > 128) {
			_Static_assert(SR_LOG_LANE_HEAD_MAX == 128 + 3 * 32, "the head's last part is three 32-byte copies");
			sr_log__lane_copy32(d + 128, head->text + 128);
			sr_log__lane_copy32(d + 160, head->text + 160);
			sr_log__lane_copy32(d + 192, head->text + 192);
		}
	}
}

#endif /* SR_LOG_LANE_INTERNAL_H */

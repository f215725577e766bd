/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_date_internal.h: UTC dates and decimal numbers, without the C
 * library (sr_log_date.c; internal): async-signal-safe, for the layouts and
 * the syslog sink's frames.
 */
#ifndef SR_LOG_DATE_INTERNAL_H
#define SR_LOG_DATE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "sr_fmt_internal.h"

/* The realtime clock, in ns since the epoch. */
int64_t sr_log__now_ns(void);
/* Broken-down UTC time (async-signal-safe). */
typedef struct sr_log_tm {
	int year, month, day, hour, minute, second, yday, wday;  /* month 1-12, yday 0-365, wday 0 = Sunday */
} sr_log_tm;
void sr_log__utc(int64_t sec, sr_log_tm *tm);
/* Floor division of ns into seconds and the nanoseconds within the second. */
void sr_log__split_ns(int64_t ts_ns, int64_t *sec, int32_t *ns);
/* "00" ... "99", the two digits of i at [2 * i]. */
extern const char sr_log__two_digits[201];
/* The decimal digits of v written back from end (the last just before it); returns the first. */
static inline char *
sr_log__digits_before(char *end, uint64_t v)
{
	char *p = end;
	while (v >= 100) {
		p -= 2;
		memcpy(p, &sr_log__two_digits[v % 100 * 2], 2);
		v /= 100;
	}
	if (v >= 10) {
		p -= 2;
		memcpy(p, &sr_log__two_digits[v * 2], 2);
	} else {
		*--p = (char)('0' + v);
	}
	return p;
}
/* Unsigned decimal, zero-padded to at least `digits`; signed decimal. */
void sr_log__put_uint(sr_fmt_buf *out, uint64_t v, int digits);
void sr_log__put_int(sr_fmt_buf *out, int64_t v);
/* The nine digits of a nanosecond count below one second (what sr_log__put_uint(out, ns, 9) writes). */
void sr_log__put_nine_digits(sr_fmt_buf *out, uint32_t ns);
/* "YYYY-MM-DDTHH:MM:SS" */
void sr_log__put_iso_seconds(sr_fmt_buf *out, int64_t sec);
/* The same from a per-thread cache of the last second laid out (not async-signal-safe). */
void sr_log__put_iso_seconds_cached(sr_fmt_buf *out, int64_t sec);
/* The cached text of sec and its length, or NULL when the cache holds another second. */
const char *sr_log__iso_seconds_if_cached(int64_t sec, size_t *len);

#endif /* SR_LOG_DATE_INTERNAL_H */

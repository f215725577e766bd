/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_date.c: UTC dates and decimal numbers for the layouts.
 *
 * Dates are computed here, not with gmtime_r and strftime: the arithmetic
 * is a handful of divisions, needs no locale or time zone, and is
 * async-signal-safe, which the crash handler needs.
 */
#include "sr_log_clock_internal.h"
#include "sr_log_date_internal.h"

#include <string.h>

int64_t
sr_log__now_ns(void)
{
	return sr_realtime_ns();
}

void
sr_log__split_ns(int64_t ts_ns, int64_t *sec, int32_t *ns)
{
	int64_t s = ts_ns / 1000000000;
	int64_t r = ts_ns % 1000000000;
	if (r < 0) {
		r += 1000000000;
		s--;
	}
	*sec = s;
	*ns = (int32_t)r;
}

void
sr_log__utc(int64_t sec, sr_log_tm *tm)
{
	int64_t days = sec / 86400;
	int64_t rem = sec % 86400;
	if (rem < 0) {
		rem += 86400;
		days--;
	}
	tm->hour = (int)(rem / 3600);
	tm->minute = (int)(rem % 3600 / 60);
	tm->second = (int)(rem % 60);
	/* 1970-01-01 was a Thursday. */
	int64_t wd = (days + 4) % 7;
	tm->wday = (int)(wd < 0 ? wd + 7 : wd);
	/*
	 * Civil date from a day count, in 400-year eras of 146,097 days that
	 * start on March 1st (so that the leap day ends a year): the standard
	 * proleptic Gregorian arithmetic.
	 */
	int64_t z = days + 719468;
	int64_t era = (z >= 0 ? z : z - 146096) / 146097;
	int64_t doe = z - era * 146097;                                   /* [0, 146096] */
	int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365; /* [0, 399] */
	int64_t y = yoe + era * 400;
	int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);            /* [0, 365], from March 1st */
	int64_t mp = (5 * doy + 2) / 153;                                 /* [0, 11], March = 0 */
	tm->day = (int)(doy - (153 * mp + 2) / 5 + 1);
	tm->month = (int)(mp < 10 ? mp + 3 : mp - 9);
	if (tm->month <= 2)
		y++;
	tm->year = (int)y;
	bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
	static const int before[12] = { 0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334 };
	tm->yday = before[tm->month - 1] + tm->day - 1 + (leap && tm->month > 2 ? 1 : 0);
}

/* "00" to "99": two digits a step, half the divisions of one at a time. */
const char sr_log__two_digits[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

void
sr_log__put_uint(sr_fmt_buf *out, uint64_t v, int digits)
{
	/* Its digits: log10 from the bit length (1233 / 4096 is just above log10(2)), corrected by a power of ten. */
	static const uint64_t powers_of_ten[20] = { 1u, 10u, 100u, 1000u, 10000u, 100000u, 1000000u, 10000000u,
		100000000u, 1000000000u, 10000000000u, 100000000000u, 1000000000000u, 10000000000000u,
		100000000000000u, 1000000000000000u, 10000000000000000u, 100000000000000000u,
		1000000000000000000u, 10000000000000000000u };
	uint64_t odd = v | 1;  /* as many digits as v (a power of ten is even), and never 0 for clz */
	int t = (64 - __builtin_clzll(odd)) * 1233 >> 12;
	int n = t + 1 - (odd < powers_of_ten[t]);
	size_t width = (size_t)(n >= digits ? n : digits <= 20 ? digits : 20);
	if (out->cap - out->len >= width) {
		/* Written in place from the last digit back: no copy through a scratch buffer. */
		char *first = out->data + out->len;
		char *p = sr_log__digits_before(first + width, v);
		while (p > first)
			*--p = '0';
		out->len += width;
		out->want += width;
		return;
	}
	char tmp[24] = "";  /* a number the buffer cuts: made aside, then cut where the buffer ends */
	char *p = sr_log__digits_before(tmp + width, v);
	while (p > tmp)
		*--p = '0';
	sr_fmt_buf_put(out, tmp, width);
}

void
sr_log__put_nine_digits(sr_fmt_buf *out, uint32_t ns)
{
	if (ns > 999999999u) {
		sr_log__put_uint(out, ns, 9);
		return;
	}
	char t[9];
	t[0] = (char)('0' + ns / 100000000u);
	uint32_t rest = ns % 100000000u;
	memcpy(t + 1, &sr_log__two_digits[rest / 1000000u * 2], 2);
	memcpy(t + 3, &sr_log__two_digits[rest / 10000u % 100u * 2], 2);
	memcpy(t + 5, &sr_log__two_digits[rest / 100u % 100u * 2], 2);
	memcpy(t + 7, &sr_log__two_digits[rest % 100u * 2], 2);
	sr_fmt_buf_put(out, t, 9);
}

void
sr_log__put_int(sr_fmt_buf *out, int64_t v)
{
	if (v < 0) {
		sr_fmt_buf_putc(out, '-');
		sr_log__put_uint(out, 0 - (uint64_t)v, 1);
	} else {
		sr_log__put_uint(out, (uint64_t)v, 1);
	}
}

/* The last second a thread laid out, as text: the layouts' dates change once a second. */
static __attribute__((tls_model("initial-exec"))) _Thread_local struct {
	int64_t sec;
	bool valid;
	size_t len;
	char text[32];
} iso_cache;

void
sr_log__put_iso_seconds_cached(sr_fmt_buf *out, int64_t sec)
{
	if (!iso_cache.valid || iso_cache.sec != sec) {
		sr_fmt_buf b = { iso_cache.text, 0, sizeof iso_cache.text, 0 };
		sr_log__put_iso_seconds(&b, sec);
		iso_cache.len = b.len;
		iso_cache.sec = sec;
		iso_cache.valid = true;
	}
	sr_fmt_buf_put(out, iso_cache.text, iso_cache.len);
}

const char *
sr_log__iso_seconds_if_cached(int64_t sec, size_t *len)
{
	if (!iso_cache.valid || iso_cache.sec != sec)
		return NULL;
	*len = iso_cache.len;
	return iso_cache.text;
}

/* "YYYY-MM-DDTHH:MM:SS" */
void
sr_log__put_iso_seconds(sr_fmt_buf *out, int64_t sec)
{
	sr_log_tm tm;
	sr_log__utc(sec, &tm);
	sr_log__put_uint(out, (uint64_t)(tm.year < 0 ? 0 : tm.year), 4);
	sr_fmt_buf_putc(out, '-');
	sr_log__put_uint(out, (uint64_t)tm.month, 2);
	sr_fmt_buf_putc(out, '-');
	sr_log__put_uint(out, (uint64_t)tm.day, 2);
	sr_fmt_buf_putc(out, 'T');
	sr_log__put_uint(out, (uint64_t)tm.hour, 2);
	sr_fmt_buf_putc(out, ':');
	sr_log__put_uint(out, (uint64_t)tm.minute, 2);
	sr_fmt_buf_putc(out, ':');
	sr_log__put_uint(out, (uint64_t)tm.second, 2);
}


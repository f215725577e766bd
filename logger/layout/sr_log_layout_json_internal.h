/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_layout_json_internal.h: the JSON Lines layout and its string
 * escaping (sr_log_layout_json.c; internal).
 */
#ifndef SR_LOG_LAYOUT_JSON_INTERNAL_H
#define SR_LOG_LAYOUT_JSON_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#if defined(__AVX2__)
#include <immintrin.h>
#elif defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "sr_fmt_escape_internal.h"
#include "sr_log_event_internal.h"

/* One JSON object; a message too long for the line is cut inside "msg" (log: unused, NULL). */
void sr_log__layout_json(const sr_log *log, const sr_log_event *ev, sr_fmt_buf *out);
/*
 * Appends s (n bytes) as JSON string content: escaped, invalid UTF-8 as
 * U+FFFD.  At most `room` bytes are written, never splitting an escape or a
 * character; returns the input bytes consumed (n when all fit).
 */
size_t sr_log__json_escape(sr_fmt_buf *out, const char *s, size_t n, size_t room);

/* The parts of the object, for whoever lays it out from caches of them (sr_log_lane_json.c). */

/*
 * Z","level":"info","category":"net.http","thread":"main","tid":42,"msg":"
 * (the category and thread cut to leave reserve bytes and more of out
 * free: a line too small for them).
 */
void sr_log__json_head(sr_fmt_buf *out, int level, const char *category, const char *thread, uint32_t tid,
    size_t reserve);
/* A site's ,"file":"...","line":N,"function":"..." in its part of parts (made on its first line), or NULL when too long. */
sr_log_site_part *sr_log__json_site_part(sr_log_site_parts *parts, const sr_site *site);
/* Whether the n bytes of s are JSON string content as they are: printable ASCII, no '"' or '\\'. */
bool sr_log__json_is_plain(const char *s, size_t n);

#if defined(__SSE2__)
/* The sign bit of each byte of v set where sr_log__json_is_plain would say no. */
static inline __m128i
sr_log__json_flags(__m128i v)
{
	/* Below 0x20, DEL and from 0x80: b + 1, then minus 0x21 saturating as signed, is negative (sr_fmt_escape.c). */
	__m128i special = _mm_subs_epi8(_mm_add_epi8(v, _mm_set1_epi8(1)), _mm_set1_epi8(0x21));
	return _mm_or_si128(special, _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')),
	    _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))));
}
#endif

#if defined(__AVX2__)
/* sr_log__json_flags for 32 bytes. */
static inline __m256i
sr_log__json_flags_wide(__m256i v)
{
	static _Alignas(32) const char quote[32] = SR_FMT__BYTES32('"'), backslash[32] = SR_FMT__BYTES32('\\');
	return _mm256_or_si256(sr_fmt__flags_may_escape_wide(v), _mm256_or_si256(
	    _mm256_cmpeq_epi8(v, SR_FMT__LOAD32(quote)), _mm256_cmpeq_epi8(v, SR_FMT__LOAD32(backslash))));
}

/* sr_log__json_copy_if_plain for n >= 32 (in code built for AVX2): its flags are exact. */
static inline __attribute__((always_inline)) bool
sr_log__json_copy_if_plain_wide(char *d, const unsigned char *s, size_t n)
{
	return sr_fmt__copy_unflagged_wide(d, s, n, sr_log__json_flags_wide, NULL);
}
#endif

/*
 * Copies the n bytes of s to d when sr_log__json_is_plain says they stay as
 * they are (the JSON layout's escape would copy them whole); false
 * otherwise, d then holds some of them.  d has room for n bytes; s is read
 * no further than its n.  Inline: the consumer's straight path copies every
 * JSON message through it; in code built for AVX2, 32 bytes a step from 32
 * bytes on.
 */
static inline __attribute__((always_inline)) bool
sr_log__json_copy_if_plain(char *d, const char *src, size_t n)
{
#if defined(__AVX2__)
	if (n >= 32)
		return sr_log__json_copy_if_plain_wide(d, (const unsigned char *)src, n);
#endif
#if defined(__SSE2__)
	if (n >= 16) {
		const unsigned char *s = (const unsigned char *)src;
		size_t i = 0;
		for (; i + 64 <= n; i += 64) {
			__m128i a = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
			__m128i b = _mm_loadu_si128((const __m128i *)(const void *)(s + i + 16));
			__m128i c = _mm_loadu_si128((const __m128i *)(const void *)(s + i + 32));
			__m128i e = _mm_loadu_si128((const __m128i *)(const void *)(s + i + 48));
			if (_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(sr_log__json_flags(a), sr_log__json_flags(b)),
			    _mm_or_si128(sr_log__json_flags(c), sr_log__json_flags(e)))) != 0)
				return false;
			_mm_storeu_si128((__m128i *)(void *)(d + i), a);
			_mm_storeu_si128((__m128i *)(void *)(d + i + 16), b);
			_mm_storeu_si128((__m128i *)(void *)(d + i + 32), c);
			_mm_storeu_si128((__m128i *)(void *)(d + i + 48), e);
		}
		for (; i + 16 <= n; i += 16) {
			__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
			if (_mm_movemask_epi8(sr_log__json_flags(v)) != 0)
				return false;
			_mm_storeu_si128((__m128i *)(void *)(d + i), v);
		}
		if (i < n) {
			/* The last bytes as the block that ends the text, overlapping the one before. */
			__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + n - 16));
			if (_mm_movemask_epi8(sr_log__json_flags(v)) != 0)
				return false;
			_mm_storeu_si128((__m128i *)(void *)(d + n - 16), v);
		}
		return true;
	}
#endif
	if (!sr_log__json_is_plain(src, n))
		return false;
	memcpy(d, src, n);
	return true;
}

#endif /* SR_LOG_LAYOUT_JSON_INTERNAL_H */

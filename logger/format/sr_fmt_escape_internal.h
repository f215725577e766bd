/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_fmt_escape_internal.h: escaping the control characters of text
 * (internal; sr_fmt_escape.c).
 */
#ifndef SR_FMT_ESCAPE_INTERNAL_H
#define SR_FMT_ESCAPE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#if defined(__AVX2__)
#include <immintrin.h>
#elif defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "sr_fmt_buf_internal.h"

/*
 * Escapes the control characters in out from start to its end, in place:
 * LF as \n, CR \r, TAB \t, other C0 controls and DEL as \xHH, C1 controls
 * as \u00HH.  The escapes that do not fit before out's cap are cut whole,
 * and out->want counts them.
 */
void sr_fmt_escape_controls(sr_fmt_buf *out, size_t start);
/*
 * Whether one of the n bytes at s is one that sr_fmt_escape_controls may
 * change: a C0 control, DEL, or the C2 that may start a C1 control.
 */
bool sr_fmt__any_may_escape(const unsigned char *s, size_t n);
/* Whether sr_fmt_copy_if_plain would copy the n bytes of s. */
bool sr_fmt_is_plain(const char *s, size_t n);

/*
 * False when the 8 bytes of v are all printable ASCII (0x20 to 0x7e), which
 * need no escape; true may be wrong (the byte loop decides).  Per byte, the
 * high bit of b - 0x20 is set below 0x20, of b + 1 at 0x7f, of b from 0x80;
 * a borrow or carry crosses into the next byte only from a byte that is
 * itself flagged.  A few instructions per 8 bytes of a plain message.
 */
static inline bool
sr_fmt__word_may_escape(uint64_t v)
{
	const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
	return (((v - ones * 0x20) | (v + ones) | v) & highs) != 0;
}

#if defined(__SSE2__)
/*
 * The sign bit of each byte of v set for a control below 0x20, DEL and
 * every byte from 0x80: b + 1 (wrapping: DEL becomes 0x80), then minus
 * 0x21 saturating as signed, is negative exactly for those.
 */
static inline __m128i
sr_fmt__flags_may_escape(__m128i v)
{
	return _mm_subs_epi8(_mm_add_epi8(v, _mm_set1_epi8(1)), _mm_set1_epi8(0x21));
}
#endif

/*
 * Whether this CPU runs code built for AVX2 (the consumer's straight path
 * has such a build, whose copies go 32 bytes a step).  x86-64 only; asked
 * once, by whoever keeps the answer.
 */
bool sr_fmt_cpu_runs_avx2(void);

#if defined(__AVX2__)
/*
 * 32 copies of a byte, for a vector operand read from memory (a broadcast
 * from a register takes two instructions where it is made).
 */
#define SR_FMT__BYTES32(b) { b, b, b, b, b, b, b, b, b, b, b, b, b, b, b, b, \
		b, b, b, b, b, b, b, b, b, b, b, b, b, b, b, b }
#define SR_FMT__LOAD32(a) _mm256_load_si256((const __m256i *)(const void *)(a))

/* sr_fmt__flags_may_escape for 32 bytes. */
static inline __m256i
sr_fmt__flags_may_escape_wide(__m256i v)
{
	static _Alignas(32) const char one[32] = SR_FMT__BYTES32(1), bound[32] = SR_FMT__BYTES32(0x21);
	return _mm256_subs_epi8(_mm256_add_epi8(v, SR_FMT__LOAD32(one)), SR_FMT__LOAD32(bound));
}

/*
 * Copies the n >= 32 bytes of s to d, 32 bytes a step (in code built for
 * AVX2), unless a byte is one flags marks (its sign bit) and recheck, given
 * the block, says so too (NULL: a marked byte is enough); false then, d
 * holding some of them.  64 bytes a step, and the last 65 to 128 (or, up to
 * 64 in all, the first and last 32) in one, as blocks overlapping the ones
 * before.  flags and recheck are constants where it is inlined.
 */
static inline __attribute__((always_inline)) bool
sr_fmt__copy_unflagged_wide(char *d, const unsigned char *s, size_t n, __m256i (*flags)(__m256i),
    bool (*recheck)(const unsigned char *, size_t))
{
	if (n <= 64) {
		__m256i a = _mm256_loadu_si256((const __m256i *)(const void *)s);
		__m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(s + n - 32));
		if (_mm256_movemask_epi8(_mm256_or_si256(flags(a), flags(b))) != 0 && (recheck == NULL || recheck(s, n)))
			return false;
		_mm256_storeu_si256((__m256i *)(void *)d, a);
		_mm256_storeu_si256((__m256i *)(void *)(d + n - 32), b);
		return true;
	}
	size_t i = 0;
	for (; i + 128 < n; i += 64) {
		__m256i a = _mm256_loadu_si256((const __m256i *)(const void *)(s + i));
		__m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(s + i + 32));
		if (_mm256_movemask_epi8(_mm256_or_si256(flags(a), flags(b))) != 0 && (recheck == NULL || recheck(s + i, 64)))
			return false;
		_mm256_storeu_si256((__m256i *)(void *)(d + i), a);
		_mm256_storeu_si256((__m256i *)(void *)(d + i + 32), b);
	}
	/* The last 65 to 128 bytes: 64 and the 64 that end the text, overlapping them. */
	const unsigned char *t = s + n - 64;
	__m256i a = _mm256_loadu_si256((const __m256i *)(const void *)(s + i));
	__m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(s + i + 32));
	__m256i c = _mm256_loadu_si256((const __m256i *)(const void *)t);
	__m256i e = _mm256_loadu_si256((const __m256i *)(const void *)(t + 32));
	if (_mm256_movemask_epi8(_mm256_or_si256(_mm256_or_si256(flags(a), flags(b)), _mm256_or_si256(flags(c),
	    flags(e)))) != 0 && (recheck == NULL || recheck(s + i, n - i)))
		return false;
	_mm256_storeu_si256((__m256i *)(void *)(d + i), a);
	_mm256_storeu_si256((__m256i *)(void *)(d + i + 32), b);
	_mm256_storeu_si256((__m256i *)(void *)(d + n - 64), c);
	_mm256_storeu_si256((__m256i *)(void *)(d + n - 32), e);
	return true;
}

/* sr_fmt_copy_if_plain for n >= 32 (in code built for AVX2). */
static inline __attribute__((always_inline)) bool
sr_fmt__copy_if_plain_wide(char *d, const unsigned char *s, size_t n)
{
	return sr_fmt__copy_unflagged_wide(d, s, n, sr_fmt__flags_may_escape_wide, sr_fmt__any_may_escape);
}
#endif

/*
 * Copies the n bytes of s to d when none of them is one that
 * sr_fmt_escape_controls would change, so that the copy is what the escape
 * would leave; false otherwise, d then holds some of them.  d has room for
 * n bytes; s is read no further than its n.  Inline: the consumer's
 * straight path copies every message through it; in code built for AVX2,
 * 32 bytes a step from 32 bytes on.
 */
static inline __attribute__((always_inline)) bool
sr_fmt_copy_if_plain(char *d, const char *src, size_t n)
{
	const unsigned char *s = (const unsigned char *)src;
	size_t i = 0;
#if defined(__AVX2__)
	if (n >= 32)
		return sr_fmt__copy_if_plain_wide(d, s, n);
#endif
#if defined(__SSE2__)
	if (n >= 16) {
		/*
		 * Flags a block at a time as it is copied: a flagged block (a
		 * control, DEL, or any byte from 0x80, as UTF-8 text has) is looked
		 * at byte by byte, and only a byte the escape changes stops the copy.
		 */
		for (; i + 64 <= n; i += 64) {
			__m128i a = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
			__m128i b = _mm_loadu_si128((const __m128i *)(const void *)(s + i + 16));
			__m128i c = _mm_loadu_si128((const __m128i *)(const void *)(s + i + 32));
			__m128i e = _mm_loadu_si128((const __m128i *)(const void *)(s + i + 48));
			__m128i flags = _mm_or_si128(_mm_or_si128(sr_fmt__flags_may_escape(a), sr_fmt__flags_may_escape(b)),
			    _mm_or_si128(sr_fmt__flags_may_escape(c), sr_fmt__flags_may_escape(e)));
			if (_mm_movemask_epi8(flags) != 0 && sr_fmt__any_may_escape(s + i, 64))
				return false;
			_mm_storeu_si128((__m128i *)(void *)(d + i), a);
			_mm_storeu_si128((__m128i *)(void *)(d + i + 16), b);
			_mm_storeu_si128((__m128i *)(void *)(d + i + 32), c);
			_mm_storeu_si128((__m128i *)(void *)(d + i + 48), e);
		}
		if (i + 32 <= n) {
			__m128i a = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
			__m128i b = _mm_loadu_si128((const __m128i *)(const void *)(s + i + 16));
			if (_mm_movemask_epi8(_mm_or_si128(sr_fmt__flags_may_escape(a), sr_fmt__flags_may_escape(b))) != 0 &&
			    sr_fmt__any_may_escape(s + i, 32))
				return false;
			_mm_storeu_si128((__m128i *)(void *)(d + i), a);
			_mm_storeu_si128((__m128i *)(void *)(d + i + 16), b);
			i += 32;
		}
		if (i + 16 <= n) {
			__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
			if (_mm_movemask_epi8(sr_fmt__flags_may_escape(v)) != 0 && sr_fmt__any_may_escape(s + i, 16))
				return false;
			_mm_storeu_si128((__m128i *)(void *)(d + i), v);
			i += 16;
		}
		if (i < n) {
			/* The last bytes as the block that ends the text, overlapping the one before. */
			__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + n - 16));
			if (_mm_movemask_epi8(sr_fmt__flags_may_escape(v)) != 0 && sr_fmt__any_may_escape(s + n - 16, 16))
				return false;
			_mm_storeu_si128((__m128i *)(void *)(d + n - 16), v);
		}
		return true;
	}
#endif
	/* Short text (or no SSE2): a word at a time, then the bytes left. */
	for (uint64_t v; i + 8 <= n; i += 8) {
		memcpy(&v, s + i, 8);
		if (sr_fmt__word_may_escape(v) && sr_fmt__any_may_escape(s + i, 8))
			return false;
	}
	if (i < n && sr_fmt__any_may_escape(s + i, n - i))
		return false;
	memcpy(d, s, n);
	return true;
}

#endif /* SR_FMT_ESCAPE_INTERNAL_H */

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_fmt_escape.c: the control characters of text escaped in place, so that
 * a caller who logs another party's input does not let that party forge
 * lines (a CR or LF starting a line of its own) or drive the terminal that
 * shows the log (ESC).  As OWASP's logging guidance asks: LF becomes \n, CR
 * \r, TAB \t, every other C0 control and DEL \xHH, and the C1 controls
 * (U+0080 to U+009F, bytes C2 80 to C2 9F) \u00HH.  A backslash stays as it
 * is.  The text layouts escape messages with it, the logger's own reports
 * the names they quote; the JSON layout escapes by its own rules.
 * Async-signal-safe: bytes only.
 */
#include "sr_fmt_escape_internal.h"

#include <stdint.h>
#include <string.h>

/*
 * The length of the longest prefix of s (n bytes) that may need no escape,
 * rounded down to whole blocks: every block before it is printable ASCII,
 * the block at it may not be (the byte loop decides).
 */
static inline size_t
plain_prefix(const unsigned char *s, size_t n)
{
	size_t i = 0;
#if defined(__SSE2__)
	/*
	 * 16 bytes at a time, the flag of each byte in its sign bit
	 * (sr_fmt__flags_may_escape).  Two blocks per step, their flags
	 * joined: about six instructions per 16 bytes of a plain message.
	 */
	for (; i + 32 <= n; i += 32) {
		__m128i a = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
		__m128i b = _mm_loadu_si128((const __m128i *)(const void *)(s + i + 16));
		if (_mm_movemask_epi8(_mm_or_si128(sr_fmt__flags_may_escape(a), sr_fmt__flags_may_escape(b))) != 0)
			break;
	}
	for (; i + 16 <= n; i += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
		if (_mm_movemask_epi8(sr_fmt__flags_may_escape(v)) != 0)
			return i;
	}
	/* The last bytes as the block that ends the message (overlapping the last one read). */
	if (i < n && n >= 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + n - 16));
		if (_mm_movemask_epi8(sr_fmt__flags_may_escape(v)) == 0)
			return n;
	}
#endif
	for (uint64_t v; i + 8 <= n; i += 8) {
		memcpy(&v, s + i, 8);
		if (sr_fmt__word_may_escape(v))
			break;
	}
	return i;
}

bool
sr_fmt__any_may_escape(const unsigned char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] < 0x20 || s[i] == 0x7f || s[i] == 0xc2)
			return true;
	return false;
}

bool
sr_fmt_cpu_runs_avx2(void)
{
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx2") != 0;
#else
	return false;
#endif
}

bool
sr_fmt_is_plain(const char *s, size_t n)
{
	return !sr_fmt__any_may_escape((const unsigned char *)s, n);
}

/* The bytes the escape of the unit at s (n bytes left) takes; *take: input bytes it covers. */
static size_t
escaped_size(const unsigned char *s, size_t n, size_t *take)
{
	unsigned char c = s[0];
	*take = 1;
	if (c == '\n' || c == '\r' || c == '\t')
		return 2;
	if (c < 0x20 || c == 0x7f)
		return 4;
	if (c == 0xc2 && n > 1 && s[1] >= 0x80 && s[1] <= 0x9f) {
		*take = 2;
		return 6;
	}
	return 1;
}

/* Writes the escape of the unit at s (take bytes) ending at end; returns its start. */
static char *
write_escape_back(const unsigned char *s, size_t take, char *end)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char c = take == 2 ? s[1] : s[0];
	if (take == 2) {
		end -= 6;
		end[0] = '\\';
		end[1] = 'u';
		end[2] = '0';
		end[3] = '0';
		end[4] = hex[c >> 4];
		end[5] = hex[c & 15];
		return end;
	}
	if (c == '\n' || c == '\r' || c == '\t') {
		end -= 2;
		end[0] = '\\';
		end[1] = (char)(c == '\n' ? 'n' : c == '\r' ? 'r' : 't');
		return end;
	}
	if (c < 0x20 || c == 0x7f) {
		end -= 4;
		end[0] = '\\';
		end[1] = 'x';
		end[2] = hex[c >> 4];
		end[3] = hex[c & 15];
		return end;
	}
	*--end = (char)c;
	return end;
}

void
sr_fmt_escape_controls(sr_fmt_buf *out, size_t start)
{
	const unsigned char *s = (const unsigned char *)out->data + start;
	size_t n = out->len - start;
	/* Most messages have nothing to escape: one pass finds that out, a block at a time. */
	size_t i = plain_prefix(s, n);
	while (i < n && s[i] >= 0x20 && s[i] != 0x7f && s[i] != 0xc2)
		i++;
	if (i == n)
		return;
	/* The input that fits escaped in the room, never splitting an escape. */
	size_t room = out->cap - start, used = i, end = i;
	while (end < n) {
		size_t take, e = escaped_size(s + end, n - end, &take);
		if (used + e > room)
			break;
		used += e;
		end += take;
	}
	/* Expand backwards: an escape is never shorter than its input, so nothing unread is overwritten. */
	char *w = out->data + start + used;
	size_t r = end;
	while (r > i) {
		size_t back = 1;
		/* A C1 control is two bytes: C2 then 80..9F. */
		if (r >= i + 2 && s[r - 2] == 0xc2 && s[r - 1] >= 0x80 && s[r - 1] <= 0x9f)
			back = 2;
		w = write_escape_back(s + r - back, back, w);
		r -= back;
	}
	/* want already counts the input cut here; add the kept escapes' extra bytes. */
	out->want += used - end;
	out->len = start + used;
}

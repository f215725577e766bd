/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_fmt_walk_internal.h: what the two renderers of a record's message
 * share (internal): the cursor that decodes a record's value and string
 * areas, the walk over the format that copies its literal text and has each
 * conversion rendered, and decimal digits.  sr_fmt_render.c renders with
 * snprintf (the consumer's), sr_fmt_render_safe.c without it (the crash
 * handler's).  All inline, so that the consumer's walk calls its renderer
 * directly: the walk costs the hot path no call through a pointer.
 */
#ifndef SR_FMT_WALK_INTERNAL_H
#define SR_FMT_WALK_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "sr_fmt_buf_internal.h"
#include "sr_fmt_spec_internal.h"
#include "sr_log_site.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Decoding cursor over a record's value and string areas. */
typedef struct sr_fmt_cursor {
	const unsigned char *values;
	size_t vlen, voff;
	const unsigned char *strings;
	size_t slen, soff;
} sr_fmt_cursor;

/* The next n bytes of the value area into dst; false past its end. */
static inline bool
sr_fmt__take(sr_fmt_cursor *c, void *dst, size_t n)
{
	if (c->voff + n > c->vlen)
		return false;
	memcpy(dst, c->values + c->voff, n);
	c->voff += n;
	return true;
}

/* The next long double: the x87 value of its 16 bytes (the rest is padding). */
static inline bool
sr_fmt__take_ldouble(sr_fmt_cursor *c, long double *x)
{
	unsigned char raw[16];
	if (!sr_fmt__take(c, raw, 16))
		return false;
	*x = 0;
	memcpy(x, raw, 10);
	return true;
}

/*
 * The next string: its length from the value area, then its bytes and NUL
 * from the string area (*str NULL for a NULL string).  False when the
 * string area does not hold them.
 */
static inline bool
sr_fmt__take_string(sr_fmt_cursor *c, const char **str, uint32_t *len)
{
	if (!sr_fmt__take(c, len, 4))
		return false;
	*str = NULL;
	if (*len == SR_FMT_NULL_STRING)
		return true;
	if (c->soff + (size_t)*len + 1 > c->slen || c->strings[c->soff + *len] != '\0')
		return false;
	*str = (const char *)c->strings + c->soff;
	c->soff += (size_t)*len + 1;
	return true;
}

/* Decimal digits of v, right-aligned ending at end; returns the first digit. */
static inline char *
sr_fmt__utoa_dec(unsigned long long v, char *end)
{
	char *p = end;
	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v != 0);
	return p;
}

/* A plain %s: the next string as it is, "(null)" for NULL, as both renderers print it; false past the record. */
static inline bool
sr_fmt__put_plain_string(sr_fmt_buf *out, sr_fmt_cursor *c)
{
	const char *str;
	uint32_t len;
	if (!sr_fmt__take_string(c, &str, &len))
		return false;
	if (str != NULL)
		sr_fmt_buf_put(out, str, len);
	else
		sr_fmt_buf_put(out, "(null)", 6);
	return true;
}

/* Renders the conversion s (its text at text) from c; false when the record does not match the format. */
typedef bool sr_fmt_render_spec_fn(sr_fmt_buf *out, const char *text, const sr_fmt_spec *s,
    sr_fmt_cursor *c, int errno_value);

/*
 * Walks format: literal text is copied, each conversion rendered from the
 * record by render_spec.  A record that does not match its format renders
 * "<bad record>" there.  Always inlined, so that render_spec, a constant in
 * each caller, is called directly (or inlined) rather than through a pointer.
 */
static inline __attribute__((always_inline)) void
sr_fmt__walk(sr_fmt_buf *out, const char *format,
    const unsigned char *values, size_t values_len,
    const unsigned char *strings, size_t strings_len, int errno_value,
    sr_fmt_render_spec_fn *render_spec)
{
	sr_fmt_cursor c = { values, values_len, 0, strings, strings_len, 0 };
	const char *p = format;
	if (p == NULL) {
		sr_fmt_buf_put(out, "<bad record>", 12);
		return;
	}
	/* A format that is one plain %s, a message formatted before the call: no scan for conversions. */
	if (p[0] == '%' && p[1] == 's' && p[2] == '\0') {
		if (!sr_fmt__put_plain_string(out, &c))
			sr_fmt_buf_put(out, "<bad record>", 12);
		return;
	}
	for (;;) {
		/* One scan for the next conversion or the end: the text before it goes out as it is. */
		const char *pct = strchrnul(p, '%');
		sr_fmt_buf_put(out, p, (size_t)(pct - p));
		if (*pct == '\0')
			return;
		if (pct[1] == 's') {
			/*
			 * A plain %s (no flag, width or precision), the most common
			 * conversion: its string as it is, "(null)" for NULL, as both
			 * renderers print it, without parsing the spec again.
			 */
			if (!sr_fmt__put_plain_string(out, &c)) {
				sr_fmt_buf_put(out, "<bad record>", 12);
				return;
			}
			p = pct + 2;
			continue;
		}
		sr_fmt_spec s;
		if (sr_fmt__parse_spec(pct, &s) != SR_FMT_OK || !render_spec(out, pct, &s, &c, errno_value)) {
			sr_fmt_buf_put(out, "<bad record>", 12);
			return;
		}
		p = pct + s.len;
	}
}

#ifdef __cplusplus
}
#endif

#endif /* SR_FMT_WALK_INTERNAL_H */

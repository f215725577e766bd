/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_fmt_internal.h: the logger's deferred-format codec (internal).
 *
 * Encoding, on the caller's thread: the arguments of one call are gathered
 * from its va_list by the site's signature (sr_log_site.h), fitted under the
 * record's size limit (strings cut, each cut one ending with
 * SR_FMT_TRUNCATION_MARKER), and written in binary after the record header:
 *   the value area: each argument in format order, int 4 bytes,
 *   long/long long/intmax/size_t/ptrdiff/pointer/double 8 bytes, long double
 *   16 bytes, string 4 bytes (its length, or SR_FMT_NULL_STRING); then the
 *   string area: each non-NULL string's bytes and a NUL, in order.
 *   All copies through memcpy, no alignment assumed.
 * Decoding, on the consumer: the format is walked again and each conversion
 * rendered with one snprintf call on the decoded argument, so the text
 * equals what snprintf would have printed for the same arguments.
 *
 * Files, bottom first: sr_fmt_buf_internal.h (the text buffer) and
 * sr_fmt_spec_internal.h (a conversion spec), both inline; sr_fmt_parse.c
 * (format parsing); sr_fmt_encode.c (gather, fit; the write is inline here);
 * sr_fmt_render.c (rendering with snprintf) and sr_fmt_render_safe.c (the
 * async-signal-safe renderer of the crash handler), which share the walk
 * over the format (sr_fmt_walk_internal.h); sr_fmt_snprintf.c (the codec end
 * to end).  None calls a file listed after it.  Not installed.
 */
#ifndef SR_FMT_INTERNAL_H
#define SR_FMT_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "sr_fmt_buf_internal.h"
#include "sr_fmt_spec_internal.h"
#include "sr_log_args.h"
#include "sr_log_site.h"
#include "sr_ring.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest value area: every argument a long double. */
#define SR_FMT_MAX_VALUE_BYTES (SR_SITE_MAX_ARGS * 16)


/*
 * The arguments of one call, gathered from its va_list: the value area ready
 * to copy, and each string's address and length.
 */
typedef struct sr_fmt_gather {
	const sr_fmt_sig *sig;
	uint16_t value_bytes;
	uint8_t nstrings;
	bool truncated;                     /* a string was cut to fit */
	size_t string_bytes;                /* bytes of the string area */
	const char *str[SR_SITE_MAX_ARGS];
	uint32_t len[SR_SITE_MAX_ARGS];     /* bytes the string has (or its precision allows) */
	uint32_t take[SR_SITE_MAX_ARGS];    /* bytes stored, marker included */
	uint16_t len_at[SR_SITE_MAX_ARGS];  /* offset of its length field in values */
	unsigned char values[SR_FMT_MAX_VALUE_BYTES];
} sr_fmt_gather;

/*
 * Reads every argument of sig from *ap into g (strings are measured, not
 * copied; a string is measured no further than str_cap bytes, or its
 * precision, since a record never holds more).  0 means no cap.
 */
void sr_fmt_gather_args(sr_fmt_gather *g, const sr_fmt_sig *sig, size_t str_cap, va_list *ap);
/* As sr_fmt_gather_args, from the macros' typed arguments (converted where they differ from sig). */
void sr_fmt_gather_array(sr_fmt_gather *g, const sr_fmt_sig *sig, size_t str_cap,
    const sr_log_arg *args, int n);

/*
 * Decides how many bytes of each string fit when the record (header_bytes +
 * value area + string area) may not exceed max_record: strings are kept
 * whole when everything fits, else cut in order, each cut one ending with
 * SR_FMT_TRUNCATION_MARKER.  Returns the record's size (<= max_record when
 * max_record >= header_bytes + SR_FMT_MIN_BUDGET).
 */
size_t sr_fmt_fit(sr_fmt_gather *g, size_t header_bytes, size_t max_record);

/* Smallest record budget beyond the header that fits any signature. */
#define SR_FMT_MIN_BUDGET (SR_FMT_MAX_VALUE_BYTES + SR_SITE_MAX_ARGS * (SR_FMT_TRUNCATION_MARKER_LEN + 1))

/*
 * The bytes a non-NULL string argument stores: up to its NUL, its precision
 * (negative: none) or cap, whichever comes first.  With a precision the
 * array need not be NUL-terminated.
 */
static inline uint32_t
sr_fmt__string_len(const char *s, int32_t precision, size_t cap)
{
	return (uint32_t)strnlen(s, precision >= 0 && (size_t)precision < cap ? (size_t)precision : cap);
}

/*
 * Writes the value area of arguments whose kinds match sig one for one (a
 * site that copies by type), as sr_fmt_gather_args makes it: each value in
 * format order, a string as its length from len[].  Returns its end.
 */
static inline unsigned char *
sr_fmt__put_values(unsigned char *v, const sr_fmt_sig *sig, const sr_log_arg *args, int n,
    const uint32_t *len)
{
	for (int i = 0; i < n; i++) {
		const sr_log_arg *a = &args[i];
		switch (sig->type[i]) {
		case SR_FMT_ARG_STR:
			memcpy(v, &len[i], 4);
			v += 4;
			break;
		case SR_FMT_ARG_LDOUBLE:
			memcpy(v, a->v.ld, 16);   /* the x87 value and zeroed padding (sr_log__arg_ldouble) */
			v += 16;
			break;
		case SR_FMT_ARG_LONG:
		case SR_FMT_ARG_DOUBLE:
		case SR_FMT_ARG_PTR:
			memcpy(v, &a->v, 8);
			v += 8;
			break;
		default:
			/* int-sized: the low 4 bytes of the 8 (little-endian, as the codec assumes) */
			memcpy(v, &a->v.i, 4);
			v += 4;
			break;
		}
	}
	return v;
}

/* Writes the value area and the string area (after sr_fmt_fit). */
static inline void
sr_fmt_write(const sr_fmt_gather *g, sr_ring_writer *w)
{
	static const char nul = '\0';
	sr_ring_writer_put(w, g->values, g->value_bytes);
	for (int i = 0; i < g->nstrings; i++) {
		uint32_t len = g->len[i];
		if (len == SR_FMT_NULL_STRING)
			continue;
		uint32_t take = g->take[i];
		if (take == len) {
			sr_ring_writer_put(w, g->str[i], take);
		} else if (take >= SR_FMT_TRUNCATION_MARKER_LEN) {
			sr_ring_writer_put(w, g->str[i], take - SR_FMT_TRUNCATION_MARKER_LEN);
			sr_ring_writer_put(w, SR_FMT_TRUNCATION_MARKER, SR_FMT_TRUNCATION_MARKER_LEN);
		} else {
			/* Only with a budget below SR_FMT_MIN_BUDGET: as much marker as fits. */
			sr_ring_writer_put(w, SR_FMT_TRUNCATION_MARKER, take);
		}
		sr_ring_writer_put(w, &nul, 1);
	}
}

/*
 * Renders the message of a record: walks format, copying literal text and
 * rendering each conversion from the value area (values, values_len bytes)
 * and the string area (strings, strings_len bytes), with errno_value for %m.
 * Inputs that do not match the format (a corrupt record) render as
 * "<bad record>" instead of being read past their end.
 */
void sr_fmt_render(sr_fmt_buf *out, const char *format,
    const unsigned char *values, size_t values_len,
    const unsigned char *strings, size_t strings_len, int errno_value);

/*
 * As sr_fmt_render, with no call that is not async-signal-safe (no
 * snprintf, no locale, no malloc), for the crash handler: integers,
 * characters, strings and pointers come out as printf prints them (flags,
 * width and precision included); floating-point values are printed by a
 * simpler routine whose last digits may differ from printf's; %m prints
 * "errno N".
 */
void sr_fmt_render_safe(sr_fmt_buf *out, const char *format,
    const unsigned char *values, size_t values_len,
    const unsigned char *strings, size_t strings_len, int errno_value);

/*
 * Renders a refused format's error text: "format error: <why> in \"<fmt>\"" (without
 * the " in" part for a NULL format).
 */
void sr_fmt_render_error(sr_fmt_buf *out, const char *format);

/*
 * snprintf through the deferred path: parses format, gathers the arguments,
 * fits them in a record of at most max_record bytes (0: unlimited), encodes,
 * decodes and renders into buf (size bytes, NUL-terminated when size > 0).
 * Returns the length of the full text (as snprintf), or -1 when the format
 * is refused (buf then holds the error text).  For tests and tools: the
 * logger itself never formats on the caller's thread in ring mode.
 */
int sr_fmt_snprintf(char *buf, size_t size, size_t max_record, const char *format, ...);
int sr_fmt_vsnprintf(char *buf, size_t size, size_t max_record, const char *format, va_list ap);

#ifdef __cplusplus
}
#endif

#endif /* SR_FMT_INTERNAL_H */

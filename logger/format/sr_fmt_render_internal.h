/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_fmt_render_internal.h: what the renderer (sr_fmt_render.c) tells about
 * its own work.
 *
 * The consumer's work per record is bounded.  A conversion whose width or
 * precision passes the room left on the line by more than 5000 bytes is
 * rendered with both clamped: snprintf then produces at most the room left,
 * the conversion's own length at the clamped precision and one byte, twice
 * (once to measure it); the line is cut and ends with the truncation marker,
 * the text kept is the beginning of the true text, and a width or precision
 * within the limit renders exactly as snprintf.  Per conversion, snprintf
 * thus produces at most 2 x (max_line_bytes + 5000 + the longest number, 4933
 * digits of LDBL_MAX, or the string's length, which the record bounds) bytes,
 * or, for %Lg without '#', whose precision is clamped no lower than 11516
 * (the digits of a long double's longest exact value), twice that text;
 * a record has at most SR_SITE_MAX_ARGS conversions that take arguments.
 * The length counted is snprintf's: for the clamped precision's digits only
 * where the precision adds them (not for an infinity, a NaN, a NULL %p).
 */
#ifndef SR_FMT_RENDER_INTERNAL_H
#define SR_FMT_RENDER_INTERNAL_H

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Bytes snprintf produced for the renderer on the calling thread since it
 * started, written to a line or not: the count a test bounds the work by.
 */
unsigned long long sr_fmt__render_work(void);

#ifdef __cplusplus
}
#endif

#endif /* SR_FMT_RENDER_INTERNAL_H */

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_fmt_spec_internal.h: one conversion spec of a format, as parsing
 * (sr_fmt_parse.c) reads it and the renderers (sr_fmt_render.c,
 * sr_fmt_render_safe.c) render it (internal).
 */
#ifndef SR_FMT_SPEC_INTERNAL_H
#define SR_FMT_SPEC_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sr_log_site.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Length modifiers of a spec. */
enum {
	SR_FMT_LEN_NONE = 0, SR_FMT_LEN_HH, SR_FMT_LEN_H, SR_FMT_LEN_L, SR_FMT_LEN_LL, SR_FMT_LEN_J,
	SR_FMT_LEN_Z, SR_FMT_LEN_T, SR_FMT_LEN_BIG_L
};

/* The bytes a value of type `type` (enum sr_fmt_arg) takes in a record's value area. */
static inline size_t
sr_fmt__value_bytes(int type)
{
	switch (type) {
	case SR_FMT_ARG_LONG:
	case SR_FMT_ARG_DOUBLE:
	case SR_FMT_ARG_PTR:
		return 8;
	case SR_FMT_ARG_LDOUBLE:
		return 16;
	default:
		return 4;  /* int, width, precision; a string's length */
	}
}

/* Longest conversion spec accepted (flags may repeat; nothing sane is longer). */
#define SR_FMT_SPEC_MAX 64

/* One conversion spec, from its '%' through its conversion character. */
typedef struct sr_fmt_spec {
	size_t len;
	char conv;
	uint8_t length;
	bool plain;         /* no flags, width or precision: fast paths apply */
	bool width_star;
	bool prec_star;
	int32_t prec;       /* static precision, or -1 */
	uint8_t type;       /* enum sr_fmt_arg of the value, 0 for %% and %m */
} sr_fmt_spec;

static inline bool
sr_fmt__is_flag(char c)
{
	return c == '-' || c == '+' || c == ' ' || c == '#' || c == '0' || c == '\'' || c == 'I';
}

static inline bool
sr_fmt__is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/*
 * Parses the spec at p (p[0] == '%'), in sr_fmt_parse.c.  Returns SR_FMT_OK,
 * or an error with s->len covering the offending text (for the message).
 */
int sr_fmt__parse_spec(const char *p, sr_fmt_spec *s);

#ifdef __cplusplus
}
#endif

#endif /* SR_FMT_SPEC_INTERNAL_H */

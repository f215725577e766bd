/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_fmt_encode.c: a call's arguments gathered from its va_list or the
 * macros' typed array, and fitted under the record's size limit (the
 * caller's side of the codec; the write after the record header is inline in
 * sr_fmt_internal.h).
 */
#include "sr_fmt_internal.h"

#include <stdarg.h>
#include <stdint.h>
#include <string.h>

/*
 * Where gather reads the arguments: a va_list (sr_log_emit, sr_fmt_snprintf),
 * or the macros' array of typed arguments, converted to what the signature
 * says where the types differ (a mismatch the compiler's format check
 * reports: printf's behaviour would be undefined, ours is a value; a
 * missing argument reads as zero).
 */
typedef struct source {
	va_list *ap;              /* NULL: read args */
	const sr_log_arg *args;
	int n;
} source;

static long double src_ldouble(const source *src, int i);

static long long
src_long(const source *src, int i)
{
	if (i >= src->n)
		return 0;
	const sr_log_arg *a = &src->args[i];
	switch (a->kind) {
	case SR_FMT_ARG_DOUBLE: return (long long)a->v.d;
	case SR_FMT_ARG_LDOUBLE: return (long long)src_ldouble(src, i);
	case SR_FMT_ARG_PTR:
	case SR_FMT_ARG_STR: return (long long)(intptr_t)a->v.p;
	default: return a->v.i;
	}
}

static long double
src_ldouble(const source *src, int i)
{
	if (i >= src->n)
		return 0;
	const sr_log_arg *a = &src->args[i];
	long double ld;
	switch (a->kind) {
	case SR_FMT_ARG_DOUBLE: return a->v.d;
	case SR_FMT_ARG_LDOUBLE:
		memcpy(&ld, a->v.ld, sizeof ld);
		return ld;
	case SR_FMT_ARG_INT:
	case SR_FMT_ARG_LONG: return (long double)a->v.i;
	default: return 0;
	}
}

static double
src_double(const source *src, int i)
{
	return (double)src_ldouble(src, i);
}

static const void *
src_ptr(const source *src, int i)
{
	if (i >= src->n)
		return NULL;
	const sr_log_arg *a = &src->args[i];
	switch (a->kind) {
	case SR_FMT_ARG_PTR:
	case SR_FMT_ARG_STR: return a->v.p;
	case SR_FMT_ARG_INT:
	case SR_FMT_ARG_LONG: return (const void *)(intptr_t)a->v.i;
	default: return NULL;
	}
}

/* A string where the signature wants one: a pointer of another type is read as printf would, a number is NULL. */
static const char *
src_str(const source *src, int i)
{
	if (i >= src->n)
		return NULL;
	const sr_log_arg *a = &src->args[i];
	return a->kind == SR_FMT_ARG_STR || a->kind == SR_FMT_ARG_PTR ? a->v.s : NULL;
}

/*
 * Reads the arguments of sig from src (a va_list, or the macros' typed
 * array) into g.  Inlined into both callers, so that each reads its own
 * source without a branch per argument on which it is.
 */
static inline void
gather(sr_fmt_gather *g, const sr_fmt_sig *sig, size_t str_cap, source *src)
{
	unsigned char *v = g->values;
	size_t off = 0;
	int ns = 0;
	int star_prec = -1;
	/* Longer strings are cut anyway: measuring them further is wasted. */
	if (str_cap == 0 || str_cap > UINT32_MAX - 1)
		str_cap = UINT32_MAX - 1;
	g->sig = sig;
	g->truncated = false;
	for (int i = 0; i < sig->nargs; i++) {
		switch (sig->type[i]) {
		case SR_FMT_ARG_INT:
		case SR_FMT_ARG_WIDTH: {
			int x = src->ap != NULL ? va_arg(*src->ap, int) : (int)src_long(src, i);
			memcpy(v + off, &x, 4);
			off += 4;
			break;
		}
		case SR_FMT_ARG_PRECISION: {
			int x = src->ap != NULL ? va_arg(*src->ap, int) : (int)src_long(src, i);
			star_prec = x;
			memcpy(v + off, &x, 4);
			off += 4;
			break;
		}
		case SR_FMT_ARG_LONG: {
			/* long, long long, intmax_t, size_t, ptrdiff_t: one 8-byte class on LP64 */
			long long x = src->ap != NULL ? va_arg(*src->ap, long long) : src_long(src, i);
			memcpy(v + off, &x, 8);
			off += 8;
			break;
		}
		case SR_FMT_ARG_DOUBLE: {
			double x = src->ap != NULL ? va_arg(*src->ap, double) : src_double(src, i);
			memcpy(v + off, &x, 8);
			off += 8;
			break;
		}
		case SR_FMT_ARG_LDOUBLE: {
			long double x = src->ap != NULL ? va_arg(*src->ap, long double) : src_ldouble(src, i);
			memcpy(v + off, &x, 10);        /* the x87 value; the rest is padding */
			memset(v + off + 10, 0, 6);
			off += 16;
			break;
		}
		case SR_FMT_ARG_PTR: {
			const void *x = src->ap != NULL ? va_arg(*src->ap, void *) : src_ptr(src, i);
			memcpy(v + off, &x, 8);
			off += 8;
			break;
		}
		case SR_FMT_ARG_STR: {
			const char *s = src->ap != NULL ? va_arg(*src->ap, const char *) : src_str(src, i);
			uint32_t len;
			if (s == NULL) {
				len = SR_FMT_NULL_STRING;
			} else {
				int32_t p = sig->precision[i];
				if (p == SR_FMT_PREC_STAR)
					p = star_prec;  /* negative: as if absent */
				len = sr_fmt__string_len(s, p, str_cap);
			}
			g->str[ns] = s;
			g->len[ns] = len;
			g->take[ns] = len;
			g->len_at[ns] = (uint16_t)off;
			memcpy(v + off, &len, 4);
			off += 4;
			ns++;
			break;
		}
		default:
			break;
		}
	}
	g->value_bytes = (uint16_t)off;
	g->nstrings = (uint8_t)ns;
	g->string_bytes = 0;
	for (int i = 0; i < ns; i++)
		if (g->len[i] != SR_FMT_NULL_STRING)
			g->string_bytes += (size_t)g->len[i] + 1;
}

void
sr_fmt_gather_args(sr_fmt_gather *g, const sr_fmt_sig *sig, size_t str_cap, va_list *ap)
{
	source src = { ap, NULL, 0 };
	gather(g, sig, str_cap, &src);
}

void
sr_fmt_gather_array(sr_fmt_gather *g, const sr_fmt_sig *sig, size_t str_cap,
    const sr_log_arg *args, int n)
{
	source src = { NULL, args, n };
	gather(g, sig, str_cap, &src);
}

size_t
sr_fmt_fit(sr_fmt_gather *g, size_t header_bytes, size_t max_record)
{
	size_t fixed = header_bytes + g->value_bytes;
	if (max_record == 0 || fixed + g->string_bytes <= max_record)
		return fixed + g->string_bytes;

	/*
	 * Cut in order: each string may use what is left after reserving, for
	 * each later string, room for the marker (or the whole string, if it is
	 * shorter) and its NUL.  So every cut string ends with the marker and no
	 * later string is starved by an earlier one.
	 */
	const size_t mark = SR_FMT_TRUNCATION_MARKER_LEN;
	size_t budget = max_record > fixed ? max_record - fixed : 0;
	size_t reserve = 0;
	for (int i = 0; i < g->nstrings; i++)
		if (g->len[i] != SR_FMT_NULL_STRING)
			reserve += (g->len[i] < mark ? g->len[i] : mark) + 1;
	size_t used = 0;
	for (int i = 0; i < g->nstrings; i++) {
		uint32_t len = g->len[i];
		if (len == SR_FMT_NULL_STRING)
			continue;
		reserve -= (len < mark ? len : mark) + 1;
		size_t avail = budget > used + reserve ? budget - used - reserve : 0;
		size_t take;
		if ((size_t)len + 1 <= avail) {
			take = len;
		} else {
			take = avail > 0 ? avail - 1 : 0;
			g->truncated = true;
		}
		g->take[i] = (uint32_t)take;
		uint32_t t32 = (uint32_t)take;
		memcpy(g->values + g->len_at[i], &t32, 4);
		used += take + 1;
	}
	g->string_bytes = used;
	return fixed + used;
}

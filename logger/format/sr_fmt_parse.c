/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_fmt_parse.c: a call site's format, parsed once into the argument
 * signature that every call through the site copies by (sr_log_site.h).
 */
#include "sr_fmt_spec_internal.h"
#include "sr_log_site.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/*
 * Reads the number at *q (a width or precision; it may have no digits) into
 * *value and moves *q past it.  A number above INT_MAX is SR_FMT_E_RANGE,
 * with s->len covering the spec from p through its digits.
 */
static int
read_number(const char *p, const char **q, sr_fmt_spec *s, long long *value)
{
	const char *d = *q;
	long long v = 0;
	while (sr_fmt__is_digit(*d)) {
		v = v * 10 + (*d - '0');
		if (v > INT_MAX) {
			while (sr_fmt__is_digit(*d))
				d++;
			s->len = (size_t)(d - p) + (*d != '\0');
			return SR_FMT_E_RANGE;
		}
		d++;
	}
	*q = d;
	*value = v;
	return SR_FMT_OK;
}

int
sr_fmt__parse_spec(const char *p, sr_fmt_spec *s)
{
	const char *q = p + 1;
	memset(s, 0, sizeof *s);
	s->prec = -1;
	s->plain = true;

	/* %1$d: digits then '$' (a '0' flag followed by digits is not this). */
	const char *d = q;
	while (sr_fmt__is_digit(*d))
		d++;
	if (d > q && *d == '$') {
		const char *e = d + 1;
		while (*e != '\0' && (e - p) < SR_FMT_SPEC_MAX && !((*e >= 'a' && *e <= 'z') || (*e >= 'A' && *e <= 'Z')))
			e++;
		while (*e == 'h' || *e == 'l')
			e++;
		s->len = (size_t)(e - p) + (*e != '\0');
		return SR_FMT_E_POSITIONAL;
	}

	while (sr_fmt__is_flag(*q)) {
		s->plain = false;
		q++;
	}
	if (*q == '*') {
		s->width_star = true;
		s->plain = false;
		q++;
	} else if (sr_fmt__is_digit(*q)) {
		long long width;  /* checked here, read again where it is used */
		s->plain = false;
		int e = read_number(p, &q, s, &width);
		if (e != SR_FMT_OK)
			return e;
	}
	if (*q == '.') {
		s->plain = false;
		q++;
		if (*q == '*') {
			s->prec_star = true;
			q++;
		} else {
			long long prec;
			int e = read_number(p, &q, s, &prec);
			if (e != SR_FMT_OK)
				return e;
			s->prec = (int32_t)prec;
		}
	}
	switch (*q) {
	case 'h':
	case 'l': {
		/* h, hh, l or ll */
		bool twice = q[1] == q[0];
		if (*q == 'h')
			s->length = twice ? SR_FMT_LEN_HH : SR_FMT_LEN_H;
		else
			s->length = twice ? SR_FMT_LEN_LL : SR_FMT_LEN_L;
		q += twice ? 2 : 1;
		break;
	}
	case 'q': q++; s->length = SR_FMT_LEN_LL; break;
	case 'j': q++; s->length = SR_FMT_LEN_J; break;
	case 'z': q++; s->length = SR_FMT_LEN_Z; break;
	case 't': q++; s->length = SR_FMT_LEN_T; break;
	case 'L': q++; s->length = SR_FMT_LEN_BIG_L; break;
	default: break;
	}
	s->conv = *q;
	s->len = (size_t)(q - p) + (*q != '\0');
	if (*q == '\0')
		return SR_FMT_E_INCOMPLETE;
	if (s->len > SR_FMT_SPEC_MAX)
		return SR_FMT_E_UNSUPPORTED;

	switch (s->conv) {
	case 'd': case 'i': case 'o': case 'u': case 'x': case 'X':
		s->type = (s->length == SR_FMT_LEN_NONE || s->length == SR_FMT_LEN_HH || s->length == SR_FMT_LEN_H) ?
		    SR_FMT_ARG_INT : SR_FMT_ARG_LONG;
		return SR_FMT_OK;
	case 'e': case 'E': case 'f': case 'F': case 'g': case 'G': case 'a': case 'A':
		if (s->length == SR_FMT_LEN_NONE || s->length == SR_FMT_LEN_L) {
			s->type = SR_FMT_ARG_DOUBLE;
			return SR_FMT_OK;
		}
		if (s->length == SR_FMT_LEN_BIG_L) {
			s->type = SR_FMT_ARG_LDOUBLE;
			return SR_FMT_OK;
		}
		return SR_FMT_E_UNSUPPORTED;
	case 'c': case 's':
		if (s->length == SR_FMT_LEN_L)
			return SR_FMT_E_WIDE;   /* %lc, %ls */
		if (s->length != SR_FMT_LEN_NONE)
			return SR_FMT_E_UNSUPPORTED;
		s->type = s->conv == 's' ? SR_FMT_ARG_STR : SR_FMT_ARG_INT;
		return SR_FMT_OK;
	case 'C': case 'S':
		return SR_FMT_E_WIDE;
	case 'p':
		if (s->length != SR_FMT_LEN_NONE)
			return SR_FMT_E_UNSUPPORTED;
		s->type = SR_FMT_ARG_PTR;
		return SR_FMT_OK;
	case 'n':
		return SR_FMT_E_N;
	case 'm':
		if (s->length != SR_FMT_LEN_NONE || s->width_star || s->prec_star)
			return SR_FMT_E_UNSUPPORTED;
		return SR_FMT_OK;
	case '%':
		/* Only the plain "%%": anything else is a malformed spec. */
		return s->len == 2 ? SR_FMT_OK : SR_FMT_E_UNSUPPORTED;
	default:
		return SR_FMT_E_UNSUPPORTED;
	}
}

static void
error_message(int error, const char *spec_text, size_t spec_len, char *msg, size_t size)
{
	int n = (int)(spec_len > SR_FMT_SPEC_MAX ? SR_FMT_SPEC_MAX : spec_len);
	const char *why;
	switch (error) {
	case SR_FMT_E_N: why = "is refused: it writes through a pointer"; break;
	case SR_FMT_E_WIDE: why = "is not supported: wide characters"; break;
	case SR_FMT_E_POSITIONAL: why = "is not supported: positional arguments"; break;
	case SR_FMT_E_INCOMPLETE: why = "is incomplete at the end of the format"; break;
	case SR_FMT_E_RANGE:
		snprintf(msg, size, "conversion '%.*s' has a width or precision above %d", n, spec_text, INT_MAX);
		return;
	case SR_FMT_E_TOO_MANY:
		snprintf(msg, size, "the format takes more than %d arguments (at '%.*s')",
		    SR_SITE_MAX_ARGS, n, spec_text);
		return;
	default:
		if (spec_text == NULL) {
			snprintf(msg, size, "the format is NULL");
			return;
		}
		why = "is not supported";
		break;
	}
	snprintf(msg, size, "conversion '%.*s' %s", n, spec_text, why);
}

static int
add_arg(sr_fmt_sig *sig, uint8_t type, int32_t precision)
{
	if (sig->nargs >= SR_SITE_MAX_ARGS)
		return SR_FMT_E_TOO_MANY;
	sig->type[sig->nargs] = type;
	sig->precision[sig->nargs] = precision;
	sig->nargs++;
	sig->value_bytes = (uint16_t)(sig->value_bytes + sr_fmt__value_bytes(type));
	if (type == SR_FMT_ARG_STR)
		sig->nstrings++;
	return SR_FMT_OK;
}

int
sr_fmt_parse(const char *format, sr_fmt_sig *sig, char *msg, size_t msg_size)
{
	memset(sig, 0, sizeof *sig);
	if (msg != NULL && msg_size > 0)
		msg[0] = '\0';
	if (format == NULL) {
		sig->error = SR_FMT_E_UNSUPPORTED;
		if (msg != NULL)
			error_message(SR_FMT_E_UNSUPPORTED, NULL, 0, msg, msg_size);
		return sig->error;
	}
	const char *p = format;
	for (;;) {
		const char *pct = strchr(p, '%');
		if (pct == NULL)
			return SR_FMT_OK;
		sr_fmt_spec s;
		int e = sr_fmt__parse_spec(pct, &s);
		if (e == SR_FMT_OK && s.width_star)
			e = add_arg(sig, SR_FMT_ARG_WIDTH, 0);
		if (e == SR_FMT_OK && s.prec_star)
			e = add_arg(sig, SR_FMT_ARG_PRECISION, 0);
		if (e == SR_FMT_OK && s.conv == 'm')
			sig->uses_errno = 1;
		if (e == SR_FMT_OK && s.type != 0)
			e = add_arg(sig, s.type, s.type != SR_FMT_ARG_STR ? 0 :
			    s.prec_star ? SR_FMT_PREC_STAR : s.prec >= 0 ? s.prec : SR_FMT_PREC_NONE);
		if (e != SR_FMT_OK) {
			/* Nothing of a refused format may be used: clear the partial signature. */
			memset(sig, 0, sizeof *sig);
			sig->error = (uint8_t)e;
			if (msg != NULL)
				error_message(e, pct, s.len, msg, msg_size);
			return e;
		}
		p = pct + s.len;
	}
}

static uint16_t
base_offset(const char *file)
{
	if (file == NULL)
		return 0;
	const char *slash = strrchr(file, '/');
	size_t off = slash == NULL ? 0 : (size_t)(slash + 1 - file);
	return off > UINT16_MAX ? 0 : (uint16_t)off;
}

const sr_fmt_sig *
sr_site__parse(sr_site *site, sr_fmt_sig *scratch)
{
	if (sr_atomic_cas_i32(&site->state, SR_SITE_UNPARSED, SR_SITE_PARSING)) {
		/* This thread won: only it writes sig and file_base, and only now. */
		sr_fmt_parse(site->format, &site->sig, NULL, 0);
		site->file_base = base_offset(site->file);
		/* pairs with the load-acquire in sr_site_sig and sr_site_file_base */
		sr_atomic_store_release_i32(&site->state, SR_SITE_READY);
		return &site->sig;
	}
	/* pairs with the store-release above, made by the thread that won */
	if (sr_atomic_load_acquire_i32(&site->state) == SR_SITE_READY)
		return &site->sig;
	/* Another thread is parsing right now: don't wait for it, do the same work. */
	sr_fmt_parse(site->format, scratch, NULL, 0);
	return scratch;
}

const char *
sr_site_file_base(const sr_site *site)
{
	if (site->file == NULL)
		return "?";
	/* pairs with the store-release of SR_SITE_READY in sr_site__parse */
	if (sr_atomic_load_acquire_i32(&site->state) == SR_SITE_READY)
		return site->file + site->file_base;
	return site->file + base_offset(site->file);
}

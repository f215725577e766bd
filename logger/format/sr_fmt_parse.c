/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_fmt_parse.c: a call site's format, parsed once into the argument
 * signature that every call through the site copies by (sr_log_site.h).
 */
#include "sr_fmt_internal.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
		long long w = 0;
		s->plain = false;
		while (sr_fmt__is_digit(*q)) {
			w = w * 10 + (*q - '0');
			if (w > INT_MAX) {
				while (sr_fmt__is_digit(*q))
					q++;
				s->len = (size_t)(q - p) + (*q != '\0');
				return SR_FMT_E_RANGE;
			}
			q++;
		}
	}
	if (*q == '.') {
		s->plain = false;
		q++;
		if (*q == '*') {
			s->prec_star = true;
			q++;
		} else {
			long long v = 0;
			while (sr_fmt__is_digit(*q)) {
				v = v * 10 + (*q - '0');
				if (v > INT_MAX) {
					while (sr_fmt__is_digit(*q))
						q++;
					s->len = (size_t)(q - p) + (*q != '\0');
					return SR_FMT_E_RANGE;
				}
				q++;
			}
			s->prec = (int32_t)v;
		}
	}
	switch (*q) {
	case 'h':
		q++;
		if (*q == 'h') {
			s->length = SR_FMT_LEN_HH;
			q++;
		} else {
			s->length = SR_FMT_LEN_H;
		}
		break;
	case 'l':
		q++;
		if (*q == 'l') {
			s->length = SR_FMT_LEN_LL;
			q++;
		} else {
			s->length = SR_FMT_LEN_L;
		}
		break;
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
	case 'c':
		if (s->length == SR_FMT_LEN_L)
			return SR_FMT_E_WIDE;
		if (s->length != SR_FMT_LEN_NONE)
			return SR_FMT_E_UNSUPPORTED;
		s->type = SR_FMT_ARG_INT;
		return SR_FMT_OK;
	case 's':
		if (s->length == SR_FMT_LEN_L)
			return SR_FMT_E_WIDE;
		if (s->length != SR_FMT_LEN_NONE)
			return SR_FMT_E_UNSUPPORTED;
		s->type = SR_FMT_ARG_STR;
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

static size_t
arg_bytes(uint8_t type)
{
	switch (type) {
	case SR_FMT_ARG_INT:
	case SR_FMT_ARG_WIDTH:
	case SR_FMT_ARG_PRECISION:
	case SR_FMT_ARG_STR:
		return 4;
	case SR_FMT_ARG_LDOUBLE:
		return 16;
	default:
		return 8;
	}
}

static void
error_message(int error, const char *spec_text, size_t spec_len, char *msg, size_t size)
{
	int n = (int)(spec_len > SR_FMT_SPEC_MAX ? SR_FMT_SPEC_MAX : spec_len);
	switch (error) {
	case SR_FMT_E_N:
		snprintf(msg, size, "conversion '%.*s' is refused: it writes through a pointer", n, spec_text);
		break;
	case SR_FMT_E_WIDE:
		snprintf(msg, size, "conversion '%.*s' is not supported: wide characters", n, spec_text);
		break;
	case SR_FMT_E_POSITIONAL:
		snprintf(msg, size, "conversion '%.*s' is not supported: positional arguments", n, spec_text);
		break;
	case SR_FMT_E_INCOMPLETE:
		snprintf(msg, size, "conversion '%.*s' is incomplete at the end of the format", n, spec_text);
		break;
	case SR_FMT_E_RANGE:
		snprintf(msg, size, "conversion '%.*s' has a width or precision above %d", n, spec_text, INT_MAX);
		break;
	case SR_FMT_E_TOO_MANY:
		snprintf(msg, size, "the format takes more than %d arguments (at '%.*s')",
		    SR_SITE_MAX_ARGS, n, spec_text);
		break;
	default:
		if (spec_text == NULL)
			snprintf(msg, size, "the format is NULL");
		else
			snprintf(msg, size, "conversion '%.*s' is not supported", n, spec_text);
		break;
	}
}

static int
add_arg(sr_fmt_sig *sig, uint8_t type, int32_t precision)
{
	if (sig->nargs >= SR_SITE_MAX_ARGS)
		return SR_FMT_E_TOO_MANY;
	sig->type[sig->nargs] = type;
	sig->precision[sig->nargs] = precision;
	sig->nargs++;
	sig->value_bytes = (uint16_t)(sig->value_bytes + arg_bytes(type));
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

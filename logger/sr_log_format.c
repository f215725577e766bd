/*
 * sr_log_format.c: parsing a call site's format once, gathering and encoding
 * a call's arguments (caller side), decoding and rendering them (consumer
 * side).  See sr_log_format.h for the record layout and what is supported.
 */
#include "sr_log_format.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Length modifiers. */
enum {
	LEN_NONE = 0, LEN_HH, LEN_H, LEN_L, LEN_LL, LEN_J, LEN_Z, LEN_T, LEN_BIG_L
};

/* Longest conversion spec accepted (flags may repeat; nothing sane is longer). */
#define SPEC_MAX 64

/* One conversion spec, from its '%' through its conversion character. */
typedef struct spec {
	size_t len;
	char conv;
	uint8_t length;
	bool plain;         /* no flags, width or precision: fast paths apply */
	bool width_star;
	bool prec_star;
	int32_t prec;       /* static precision, or -1 */
	uint8_t type;       /* enum sr_fmt_arg of the value, 0 for %% and %m */
} spec;

static bool
is_flag(char c)
{
	return c == '-' || c == '+' || c == ' ' || c == '#' || c == '0' || c == '\'' || c == 'I';
}

static bool
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/*
 * Parses the spec at p (p[0] == '%').  Returns SR_FMT_OK, or an error with
 * s->len covering the offending text (for the message).
 */
static int
parse_spec(const char *p, spec *s)
{
	const char *q = p + 1;
	memset(s, 0, sizeof *s);
	s->prec = -1;
	s->plain = true;

	/* %1$d: digits then '$' (a '0' flag followed by digits is not this). */
	const char *d = q;
	while (is_digit(*d))
		d++;
	if (d > q && *d == '$') {
		const char *e = d + 1;
		while (*e != '\0' && (e - p) < SPEC_MAX && !((*e >= 'a' && *e <= 'z') || (*e >= 'A' && *e <= 'Z')))
			e++;
		while (*e == 'h' || *e == 'l')
			e++;
		s->len = (size_t)(e - p) + (*e != '\0');
		return SR_FMT_E_POSITIONAL;
	}

	while (is_flag(*q)) {
		s->plain = false;
		q++;
	}
	if (*q == '*') {
		s->width_star = true;
		s->plain = false;
		q++;
	} else if (is_digit(*q)) {
		long long w = 0;
		s->plain = false;
		while (is_digit(*q)) {
			w = w * 10 + (*q - '0');
			if (w > INT_MAX) {
				while (is_digit(*q))
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
			while (is_digit(*q)) {
				v = v * 10 + (*q - '0');
				if (v > INT_MAX) {
					while (is_digit(*q))
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
			s->length = LEN_HH;
			q++;
		} else {
			s->length = LEN_H;
		}
		break;
	case 'l':
		q++;
		if (*q == 'l') {
			s->length = LEN_LL;
			q++;
		} else {
			s->length = LEN_L;
		}
		break;
	case 'q': q++; s->length = LEN_LL; break;
	case 'j': q++; s->length = LEN_J; break;
	case 'z': q++; s->length = LEN_Z; break;
	case 't': q++; s->length = LEN_T; break;
	case 'L': q++; s->length = LEN_BIG_L; break;
	default: break;
	}
	s->conv = *q;
	s->len = (size_t)(q - p) + (*q != '\0');
	if (*q == '\0')
		return SR_FMT_E_INCOMPLETE;
	if (s->len > SPEC_MAX)
		return SR_FMT_E_UNSUPPORTED;

	switch (s->conv) {
	case 'd': case 'i': case 'o': case 'u': case 'x': case 'X':
		s->type = (s->length == LEN_NONE || s->length == LEN_HH || s->length == LEN_H) ?
		    SR_FMT_ARG_INT : SR_FMT_ARG_LONG;
		return SR_FMT_OK;
	case 'e': case 'E': case 'f': case 'F': case 'g': case 'G': case 'a': case 'A':
		if (s->length == LEN_NONE || s->length == LEN_L) {
			s->type = SR_FMT_ARG_DOUBLE;
			return SR_FMT_OK;
		}
		if (s->length == LEN_BIG_L) {
			s->type = SR_FMT_ARG_LDOUBLE;
			return SR_FMT_OK;
		}
		return SR_FMT_E_UNSUPPORTED;
	case 'c':
		if (s->length == LEN_L)
			return SR_FMT_E_WIDE;
		if (s->length != LEN_NONE)
			return SR_FMT_E_UNSUPPORTED;
		s->type = SR_FMT_ARG_INT;
		return SR_FMT_OK;
	case 's':
		if (s->length == LEN_L)
			return SR_FMT_E_WIDE;
		if (s->length != LEN_NONE)
			return SR_FMT_E_UNSUPPORTED;
		s->type = SR_FMT_ARG_STR;
		return SR_FMT_OK;
	case 'C': case 'S':
		return SR_FMT_E_WIDE;
	case 'p':
		if (s->length != LEN_NONE)
			return SR_FMT_E_UNSUPPORTED;
		s->type = SR_FMT_ARG_PTR;
		return SR_FMT_OK;
	case 'n':
		return SR_FMT_E_N;
	case 'm':
		if (s->length != LEN_NONE || s->width_star || s->prec_star)
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
	int n = (int)(spec_len > SPEC_MAX ? SPEC_MAX : spec_len);
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
		spec s;
		int e = parse_spec(pct, &s);
		if (e == SR_FMT_OK && s.width_star)
			e = add_arg(sig, SR_FMT_ARG_WIDTH, 0);
		if (e == SR_FMT_OK && s.prec_star)
			e = add_arg(sig, SR_FMT_ARG_PRECISION, 0);
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

void
sr_fmt_gather_args(sr_fmt_gather *g, const sr_fmt_sig *sig, size_t str_cap, va_list *ap)
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
			int x = va_arg(*ap, int);
			memcpy(v + off, &x, 4);
			off += 4;
			break;
		}
		case SR_FMT_ARG_PRECISION: {
			int x = va_arg(*ap, int);
			star_prec = x;
			memcpy(v + off, &x, 4);
			off += 4;
			break;
		}
		case SR_FMT_ARG_LONG: {
			/* long, long long, intmax_t, size_t, ptrdiff_t: one 8-byte class on LP64 */
			long long x = va_arg(*ap, long long);
			memcpy(v + off, &x, 8);
			off += 8;
			break;
		}
		case SR_FMT_ARG_DOUBLE: {
			double x = va_arg(*ap, double);
			memcpy(v + off, &x, 8);
			off += 8;
			break;
		}
		case SR_FMT_ARG_LDOUBLE: {
			long double x = va_arg(*ap, long double);
			memcpy(v + off, &x, 10);        /* the x87 value; the rest is padding */
			memset(v + off + 10, 0, 6);
			off += 16;
			break;
		}
		case SR_FMT_ARG_PTR: {
			void *x = va_arg(*ap, void *);
			memcpy(v + off, &x, 8);
			off += 8;
			break;
		}
		case SR_FMT_ARG_STR: {
			const char *s = va_arg(*ap, const char *);
			uint32_t len;
			if (s == NULL) {
				len = SR_FMT_NULL_STRING;
			} else {
				int32_t p = sig->precision[i];
				if (p == SR_FMT_PREC_STAR)
					p = star_prec;  /* negative: as if absent */
				size_t lim = p >= 0 && (size_t)p < str_cap ? (size_t)p : str_cap;
				/* With a precision the array need not be NUL-terminated. */
				len = (uint32_t)strnlen(s, lim);
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

void
sr_fmt_write(const sr_fmt_gather *g, sr_fmt_writer *w)
{
	static const char nul = '\0';
	sr_fmt_put(w, g->values, g->value_bytes);
	for (int i = 0; i < g->nstrings; i++) {
		uint32_t len = g->len[i];
		if (len == SR_FMT_NULL_STRING)
			continue;
		uint32_t take = g->take[i];
		if (take == len) {
			sr_fmt_put(w, g->str[i], take);
		} else if (take >= SR_FMT_TRUNCATION_MARKER_LEN) {
			sr_fmt_put(w, g->str[i], take - SR_FMT_TRUNCATION_MARKER_LEN);
			sr_fmt_put(w, SR_FMT_TRUNCATION_MARKER, SR_FMT_TRUNCATION_MARKER_LEN);
		} else {
			/* Only with a budget below SR_FMT_MIN_BUDGET: as much marker as fits. */
			sr_fmt_put(w, SR_FMT_TRUNCATION_MARKER, take);
		}
		sr_fmt_put(w, &nul, 1);
	}
}

/* ---------------------------------------------------------------------------------------- */
/* Rendering                                                                                */

/* Decimal digits of v, right-aligned ending at end; returns the first digit. */
static char *
utoa_dec(unsigned long long v, char *end)
{
	char *p = end;
	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v != 0);
	return p;
}

static void
put_signed(sr_fmt_buf *out, long long v)
{
	char tmp[24];
	char *end = tmp + sizeof tmp;
	unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
	char *p = utoa_dec(u, end);
	if (v < 0)
		*--p = '-';
	sr_fmt_buf_put(out, p, (size_t)(end - p));
}

static void
put_unsigned(sr_fmt_buf *out, unsigned long long u, bool hex, bool upper)
{
	char tmp[24];
	char *end = tmp + sizeof tmp;
	char *p;
	if (hex) {
		const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
		p = end;
		do {
			*--p = digits[u & 15];
			u >>= 4;
		} while (u != 0);
	} else {
		p = utoa_dec(u, end);
	}
	sr_fmt_buf_put(out, p, (size_t)(end - p));
}

/*
 * snprintf into the buffer's free space (the reserve leaves room for the
 * NUL); `want` counts the full length.
 */
#define BUF_SNPRINTF(out, ...) do { \
	size_t room_ = (out)->cap - (out)->len; \
	int n_ = snprintf((out)->data + (out)->len, room_ + 1, __VA_ARGS__); \
	if (n_ > 0) { \
		(out)->len += (size_t)n_ < room_ ? (size_t)n_ : room_; \
		(out)->want += (size_t)n_; \
	} \
} while (0)

/* Calls BUF_SNPRINTF with the '*' width and precision the spec takes, then x. */
#define RENDER_STARS(out, fmt, s, w, pr, x) do { \
	if ((s)->width_star && (s)->prec_star) BUF_SNPRINTF(out, fmt, w, pr, x); \
	else if ((s)->width_star) BUF_SNPRINTF(out, fmt, w, x); \
	else if ((s)->prec_star) BUF_SNPRINTF(out, fmt, pr, x); \
	else BUF_SNPRINTF(out, fmt, x); \
} while (0)

/* Decoding cursor over a record's value and string areas. */
typedef struct cursor {
	const unsigned char *values;
	size_t vlen, voff;
	const unsigned char *strings;
	size_t slen, soff;
} cursor;

static bool
take_bytes(cursor *c, void *dst, size_t n)
{
	if (c->voff + n > c->vlen)
		return false;
	memcpy(dst, c->values + c->voff, n);
	c->voff += n;
	return true;
}

/* Renders one conversion; false when the record does not match the format. */
static bool
render_spec(sr_fmt_buf *out, const char *text, const spec *s, cursor *c, int errno_value)
{
	int w = 0, pr = 0;
	char fmt[SPEC_MAX + 1];
	if (s->conv == '%') {
		sr_fmt_buf_putc(out, '%');
		return true;
	}
	if (s->width_star && !take_bytes(c, &w, 4))
		return false;
	if (s->prec_star && !take_bytes(c, &pr, 4))
		return false;
	memcpy(fmt, text, s->len);
	fmt[s->len] = '\0';

	switch (s->type) {
	case SR_FMT_ARG_INT: {
		int x;
		if (!take_bytes(c, &x, 4))
			return false;
		if (s->plain && s->length == LEN_NONE) {
			if (s->conv == 'd' || s->conv == 'i') {
				put_signed(out, x);
				return true;
			}
			if (s->conv == 'u' || s->conv == 'x' || s->conv == 'X') {
				put_unsigned(out, (unsigned)x, s->conv != 'u', s->conv == 'X');
				return true;
			}
		}
		/* hh and h: printf converts the promoted int itself, as here. */
		RENDER_STARS(out, fmt, s, w, pr, x);
		return true;
	}
	case SR_FMT_ARG_LONG: {
		long long x;
		if (!take_bytes(c, &x, 8))
			return false;
		bool is_signed = s->conv == 'd' || s->conv == 'i';
		if (s->plain) {
			if (is_signed) {
				put_signed(out, x);
				return true;
			}
			if (s->conv == 'u' || s->conv == 'x' || s->conv == 'X') {
				put_unsigned(out, (unsigned long long)x, s->conv != 'u', s->conv == 'X');
				return true;
			}
		}
		/* Pass the type the length modifier names, as the caller did. */
		switch (s->length) {
		case LEN_L:
			if (is_signed) RENDER_STARS(out, fmt, s, w, pr, (long)x);
			else RENDER_STARS(out, fmt, s, w, pr, (unsigned long)x);
			break;
		case LEN_J:
			if (is_signed) RENDER_STARS(out, fmt, s, w, pr, (intmax_t)x);
			else RENDER_STARS(out, fmt, s, w, pr, (uintmax_t)x);
			break;
		case LEN_Z:
			if (is_signed) RENDER_STARS(out, fmt, s, w, pr, (ptrdiff_t)x);
			else RENDER_STARS(out, fmt, s, w, pr, (size_t)x);
			break;
		case LEN_T:
			RENDER_STARS(out, fmt, s, w, pr, (ptrdiff_t)x);
			break;
		default: /* ll, q, L */
			if (is_signed) RENDER_STARS(out, fmt, s, w, pr, x);
			else RENDER_STARS(out, fmt, s, w, pr, (unsigned long long)x);
			break;
		}
		return true;
	}
	case SR_FMT_ARG_DOUBLE: {
		double x;
		if (!take_bytes(c, &x, 8))
			return false;
		RENDER_STARS(out, fmt, s, w, pr, x);
		return true;
	}
	case SR_FMT_ARG_LDOUBLE: {
		long double x = 0;
		unsigned char raw[16];
		if (!take_bytes(c, raw, 16))
			return false;
		memcpy(&x, raw, 10);
		RENDER_STARS(out, fmt, s, w, pr, x);
		return true;
	}
	case SR_FMT_ARG_PTR: {
		void *x;
		if (!take_bytes(c, &x, 8))
			return false;
		RENDER_STARS(out, fmt, s, w, pr, x);
		return true;
	}
	case SR_FMT_ARG_STR: {
		uint32_t len;
		if (!take_bytes(c, &len, 4))
			return false;
		const char *str = NULL;
		if (len != SR_FMT_NULL_STRING) {
			if (c->soff + (size_t)len + 1 > c->slen || c->strings[c->soff + len] != '\0')
				return false;
			str = (const char *)c->strings + c->soff;
			c->soff += (size_t)len + 1;
		}
		if (s->plain) {
			if (str != NULL)
				sr_fmt_buf_put(out, str, len);
			else
				sr_fmt_buf_put(out, "(null)", 6);  /* glibc's text for a NULL %s */
			return true;
		}
		/*
		 * A NULL goes to snprintf as NULL: glibc prints "(null)", or
		 * nothing when a precision below 6 is given, and so do we.
		 */
		RENDER_STARS(out, fmt, s, w, pr, str);
		return true;
	}
	default:
		if (s->conv == 'm') {
			/* %m reads errno: give it the caller's, then restore ours. */
			int saved = errno;
			errno = errno_value;
			BUF_SNPRINTF(out, fmt, 0);
			errno = saved;
			return true;
		}
		return false;
	}
}

static bool render_spec_safe(sr_fmt_buf *out, const char *text, const spec *s, cursor *c,
    int errno_value);

/*
 * Walks format: literal text is copied, each conversion rendered from the
 * record (by snprintf, or with safe, by the async-signal-safe renderers).
 * A record that does not match its format renders "<bad record>" there.
 * Inlined into both callers, so that `safe` costs the hot path nothing.
 */
static inline void
render_walk(sr_fmt_buf *out, const char *format,
    const unsigned char *values, size_t values_len,
    const unsigned char *strings, size_t strings_len, int errno_value, bool safe)
{
	cursor c = { values, values_len, 0, strings, strings_len, 0 };
	const char *p = format;
	if (p == NULL) {
		sr_fmt_buf_put(out, "<bad record>", 12);
		return;
	}
	for (;;) {
		const char *pct = strchr(p, '%');
		if (pct == NULL) {
			sr_fmt_buf_put(out, p, strlen(p));
			return;
		}
		sr_fmt_buf_put(out, p, (size_t)(pct - p));
		spec s;
		if (parse_spec(pct, &s) != SR_FMT_OK ||
		    !(safe ? render_spec_safe(out, pct, &s, &c, errno_value) :
		      render_spec(out, pct, &s, &c, errno_value))) {
			sr_fmt_buf_put(out, "<bad record>", 12);
			return;
		}
		p = pct + s.len;
	}
}

void
sr_fmt_render(sr_fmt_buf *out, const char *format,
    const unsigned char *values, size_t values_len,
    const unsigned char *strings, size_t strings_len, int errno_value)
{
	render_walk(out, format, values, values_len, strings, strings_len, errno_value, false);
}

/* ---------------------------------------------------------------------------------------- */
/* Async-signal-safe rendering (the crash handler)                                          */

/* Flags, width and precision of a spec, read from its text. */
typedef struct safe_spec {
	bool left, zero, plus, space, alt;
	int width;          /* -1: none */
	int prec;           /* -1: none */
} safe_spec;

static void
safe_spec_read(const char *text, const spec *s, int star_w, int star_p, safe_spec *o)
{
	const char *q = text + 1;
	memset(o, 0, sizeof *o);
	o->width = -1;
	o->prec = s->prec_star ? (star_p >= 0 ? star_p : -1) : s->prec;
	for (; is_flag(*q); q++) {
		switch (*q) {
		case '-': o->left = true; break;
		case '0': o->zero = true; break;
		case '+': o->plus = true; break;
		case ' ': o->space = true; break;
		case '#': o->alt = true; break;
		default: break;
		}
	}
	if (s->width_star) {
		o->width = star_w;
		if (star_w < 0) {
			o->left = true;
			o->width = star_w == INT_MIN ? INT_MAX : -star_w;
		}
	} else if (is_digit(*q)) {
		int w = 0;
		while (is_digit(*q))
			w = w * 10 + (*q++ - '0');
		o->width = w;
	}
	if (o->left)
		o->zero = false;
}

static void
put_repeat(sr_fmt_buf *out, char c, long n)
{
	/* Bounded by the buffer: a huge width only costs what fits. */
	while (n-- > 0 && out->len < out->cap)
		sr_fmt_buf_putc(out, c);
	if (n > 0)
		out->want += (size_t)n;
}

/* Pads body (with a sign/prefix kept before zero padding) to the spec's width. */
static void
put_padded(sr_fmt_buf *out, const safe_spec *o, const char *prefix, size_t plen,
    const char *body, size_t blen, bool zero_ok)
{
	long pad = o->width > 0 && (size_t)o->width > plen + blen ? (long)((size_t)o->width - plen - blen) : 0;
	if (!o->left && !(o->zero && zero_ok))
		put_repeat(out, ' ', pad);
	sr_fmt_buf_put(out, prefix, plen);
	if (!o->left && o->zero && zero_ok)
		put_repeat(out, '0', pad);
	sr_fmt_buf_put(out, body, blen);
	if (o->left)
		put_repeat(out, ' ', pad);
}

static void
safe_integer(sr_fmt_buf *out, const safe_spec *o, char conv, bool negative, unsigned long long u)
{
	char digits[80];
	char *end = digits + sizeof digits, *p = end;
	unsigned base = conv == 'o' ? 8 : (conv == 'x' || conv == 'X') ? 16 : 10;
	const char *set = conv == 'X' ? "0123456789ABCDEF" : "0123456789abcdef";
	if (!(u == 0 && o->prec == 0)) {
		do {
			*--p = set[u % base];
			u /= base;
		} while (u != 0);
	}
	int prec = o->prec > 60 ? 60 : o->prec;
	while (end - p < prec)
		*--p = '0';
	if (conv == 'o' && o->alt && (p == end || *p != '0'))
		*--p = '0';
	char prefix[3];
	size_t plen = 0;
	if (negative)
		prefix[plen++] = '-';
	else if ((conv == 'd' || conv == 'i') && o->plus)
		prefix[plen++] = '+';
	else if ((conv == 'd' || conv == 'i') && o->space)
		prefix[plen++] = ' ';
	if (base == 16 && o->alt && p != end && !(end - p == 1 && *p == '0')) {
		prefix[plen++] = '0';
		prefix[plen++] = conv;
	}
	put_padded(out, o, prefix, plen, p, (size_t)(end - p), o->prec < 0);
}

/*
 * A double, without printf: %f exactly for the digits a double holds, %e and
 * %g by scaling with powers of ten (the last digit may differ from glibc's
 * correctly rounded output), %a as %e.
 */
static void
safe_double(sr_fmt_buf *out, const safe_spec *o, char conv, double x)
{
	bool upper = conv == 'E' || conv == 'F' || conv == 'G' || conv == 'A';
	char body[400];
	size_t n = 0;
	bool negative = x < 0 || (x == 0 && 1 / x < 0);
	if (negative)
		x = -x;
	char prefix[2];
	size_t plen = 0;
	if (negative)
		prefix[plen++] = '-';
	else if (o->plus)
		prefix[plen++] = '+';
	else if (o->space)
		prefix[plen++] = ' ';
	if (x != x || x > 1.7976931348623157e308) {
		const char *t = x != x ? (upper ? "NAN" : "nan") : (upper ? "INF" : "inf");
		put_padded(out, o, prefix, plen, t, 3, false);
		return;
	}
	char lc = (char)(conv | 0x20);
	int prec = o->prec < 0 ? 6 : (o->prec > 40 ? 40 : o->prec);
	/* Decimal exponent: x = m * 10^e with 1 <= m < 10. */
	int e = 0;
	double m = x;
	if (m != 0) {
		while (m >= 10) {
			m /= 10;
			e++;
		}
		while (m < 1) {
			m *= 10;
			e--;
		}
	}
	bool use_e = lc == 'e' || lc == 'a';
	bool strip = false;
	if (lc == 'g') {
		int p = prec == 0 ? 1 : prec;
		if (e < -4 || e >= p) {
			use_e = true;
			prec = p - 1;
		} else {
			prec = p - 1 - e;
		}
		strip = !o->alt;
	}
	if (!use_e && x >= 1e18)
		use_e = true;  /* too big for the integer path: exponent form */
	unsigned long long ip, fp, scale = 1;
	int fdig = prec > 18 ? 18 : prec;
	for (int i = 0; i < fdig; i++)
		scale *= 10;
	double v = use_e ? m : x;
	ip = (unsigned long long)v;
	double frac = (v - (double)ip) * (double)scale + 0.5;
	fp = (unsigned long long)frac;
	if (fp >= scale) {
		fp -= scale;
		ip++;
		if (use_e && ip >= 10) {
			ip = 1;
			e++;
		}
	}
	char tmp[24];
	char *end = tmp + sizeof tmp;
	char *d = utoa_dec(ip, end);
	memcpy(body + n, d, (size_t)(end - d));
	n += (size_t)(end - d);
	if (fdig > 0 || o->alt) {
		body[n++] = '.';
		size_t dot = n;
		for (int i = fdig - 1; i >= 0; i--) {
			body[dot + (size_t)i] = (char)('0' + fp % 10);
			fp /= 10;
		}
		n += (size_t)fdig;
		for (int i = fdig; i < prec; i++)
			body[n++] = '0';
		if (strip) {
			while (n > dot && body[n - 1] == '0')
				n--;
			if (n == dot)
				n--;
		}
	}
	if (use_e) {
		body[n++] = upper ? 'E' : 'e';
		body[n++] = e < 0 ? '-' : '+';
		int ae = e < 0 ? -e : e;
		end = tmp + sizeof tmp;
		d = utoa_dec((unsigned)ae, end);
		if (end - d < 2)
			body[n++] = '0';
		memcpy(body + n, d, (size_t)(end - d));
		n += (size_t)(end - d);
	}
	put_padded(out, o, prefix, plen, body, n, true);
}

/* One conversion with the async-signal-safe renderers; false when the record does not match. */
static bool
render_spec_safe(sr_fmt_buf *out, const char *text, const spec *s, cursor *c, int errno_value)
{
	if (s->conv == '%') {
		sr_fmt_buf_putc(out, '%');
		return true;
	}
	int w = 0, pr = -1;
	if (s->width_star && !take_bytes(c, &w, 4))
		return false;
	if (s->prec_star && !take_bytes(c, &pr, 4))
		return false;
	safe_spec o;
	safe_spec_read(text, s, w, pr, &o);
	switch (s->type) {
	case SR_FMT_ARG_INT:
	case SR_FMT_ARG_LONG: {
		long long x = 0;
		if (s->type == SR_FMT_ARG_INT) {
			int i;
			if (!take_bytes(c, &i, 4))
				return false;
			x = i;
		} else if (!take_bytes(c, &x, 8)) {
			return false;
		}
		if (s->conv == 'c') {
			char ch = (char)x;
			put_padded(out, &o, "", 0, &ch, 1, false);
			break;
		}
		bool is_signed = s->conv == 'd' || s->conv == 'i';
		/* Narrow as printf does for hh and h; 4-byte values are ints. */
		if (s->type == SR_FMT_ARG_INT) {
			int i = (int)x;
			if (is_signed)
				x = s->length == LEN_HH ? (signed char)i : s->length == LEN_H ? (short)i : i;
			else
				x = s->length == LEN_HH ? (unsigned char)i :
				    s->length == LEN_H ? (unsigned short)i : (long long)(unsigned)i;
		}
		unsigned long long u = is_signed && x < 0 ? 0ULL - (unsigned long long)x
		    : (unsigned long long)x;
		safe_integer(out, &o, s->conv, is_signed && x < 0, u);
		break;
	}
	case SR_FMT_ARG_DOUBLE:
	case SR_FMT_ARG_LDOUBLE: {
		double x;
		if (s->type == SR_FMT_ARG_DOUBLE) {
			if (!take_bytes(c, &x, 8))
				return false;
		} else {
			long double lx = 0;
			unsigned char raw[16];
			if (!take_bytes(c, raw, 16))
				return false;
			memcpy(&lx, raw, 10);
			x = (double)lx;
		}
		safe_double(out, &o, s->conv, x);
		break;
	}
	case SR_FMT_ARG_PTR: {
		void *x;
		if (!take_bytes(c, &x, 8))
			return false;
		if (x == NULL) {
			put_padded(out, &o, "", 0, "(nil)", 5, false);
		} else {
			safe_spec h = o;
			h.alt = true;
			safe_integer(out, &h, 'x', false, (unsigned long long)(uintptr_t)x);
		}
		break;
	}
	case SR_FMT_ARG_STR: {
		uint32_t len;
		if (!take_bytes(c, &len, 4))
			return false;
		const char *str = "(null)";
		size_t n = 6;
		if (len != SR_FMT_NULL_STRING) {
			if (c->soff + (size_t)len + 1 > c->slen || c->strings[c->soff + len] != '\0')
				return false;
			str = (const char *)c->strings + c->soff;
			n = len;
			c->soff += (size_t)len + 1;
		} else if (o.prec >= 0 && o.prec < 6) {
			n = 0;
		}
		if (o.prec >= 0 && (size_t)o.prec < n)
			n = (size_t)o.prec;
		put_padded(out, &o, "", 0, str, n, false);
		break;
	}
	default:
		if (s->conv == 'm') {
			safe_spec none = { .width = -1, .prec = -1 };
			sr_fmt_buf_put(out, "errno ", 6);
			safe_integer(out, &none, 'd', errno_value < 0,
			    errno_value < 0 ? 0ULL - (unsigned long long)errno_value : (unsigned long long)errno_value);
			break;
		}
		return false;
	}
	return true;
}

void
sr_fmt_render_safe(sr_fmt_buf *out, const char *format,
    const unsigned char *values, size_t values_len,
    const unsigned char *strings, size_t strings_len, int errno_value)
{
	render_walk(out, format, values, values_len, strings, strings_len, errno_value, true);
}

void
sr_fmt_render_error(sr_fmt_buf *out, const char *format)
{
	sr_fmt_sig sig;
	char msg[160];
	sr_fmt_parse(format, &sig, msg, sizeof msg);
	static const char head[] = "format error: ";
	sr_fmt_buf_put(out, head, sizeof head - 1);
	sr_fmt_buf_put(out, msg, strlen(msg));
	if (format != NULL) {
		sr_fmt_buf_put(out, " in \"", 5);
		sr_fmt_buf_put(out, format, strlen(format));
		sr_fmt_buf_putc(out, '"');
	}
}

int
sr_fmt_vsnprintf(char *buf, size_t size, size_t max_record, const char *format, va_list ap)
{
	sr_fmt_sig sig;
	char tmp_small[512];
	char *tmp = tmp_small;
	size_t tmp_size = size + SR_FMT_LINE_RESERVE;
	if (tmp_size > sizeof tmp_small) {
		tmp = malloc(tmp_size);
		if (tmp == NULL)
			return -1;
	}
	sr_fmt_buf out = { tmp, 0, size > 0 ? size - 1 : 0, 0 };
	int rc;
	if (sr_fmt_parse(format, &sig, NULL, 0) != SR_FMT_OK) {
		sr_fmt_render_error(&out, format);
		rc = -1;
	} else {
		sr_fmt_gather *g = malloc(sizeof *g);
		unsigned char *rec = NULL;
		rc = -1;
		if (g != NULL) {
			va_list aq;
			va_copy(aq, ap);
			sr_fmt_gather_args(g, &sig, max_record, &aq);
			va_end(aq);
			size_t bytes = sr_fmt_fit(g, 0, max_record);
			rec = malloc(bytes + 1);
			if (rec != NULL) {
				sr_fmt_writer w = { rec, 0, SIZE_MAX };
				sr_fmt_write(g, &w);
				int e = errno;
				sr_fmt_render(&out, format, rec, g->value_bytes,
				    rec + g->value_bytes, g->string_bytes, e);
				rc = out.want > INT_MAX ? -1 : (int)out.want;
			}
		}
		free(rec);
		free(g);
	}
	if (size > 0) {
		memcpy(buf, tmp, out.len);
		buf[out.len] = '\0';
	}
	if (tmp != tmp_small)
		free(tmp);
	return rc;
}

int
sr_fmt_snprintf(char *buf, size_t size, size_t max_record, const char *format, ...)
{
	va_list ap;
	va_start(ap, format);
	int n = sr_fmt_vsnprintf(buf, size, max_record, format, ap);
	va_end(ap);
	return n;
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_fmt_render_safe.c: a record's message rendered with no call that is not
 * async-signal-safe (no snprintf, no locale, no malloc), for the crash
 * handler: flags, width and precision read from the spec's text, integers,
 * characters, strings and pointers as printf prints them, floating-point
 * values by a simpler routine of its own.
 */
#include "sr_fmt_internal.h"
#include "sr_fmt_walk_internal.h"

#include <limits.h>
#include <stdint.h>
#include <string.h>

/* Flags, width and precision of a spec, read from its text. */
typedef struct safe_spec {
	bool left, zero, plus, space, alt;
	int width;          /* -1: none */
	int prec;           /* -1: none */
} safe_spec;

static void
safe_spec_read(const char *text, const sr_fmt_spec *s, int star_w, int star_p, safe_spec *o)
{
	const char *q = text + 1;
	memset(o, 0, sizeof *o);
	o->width = -1;
	o->prec = s->prec_star ? (star_p >= 0 ? star_p : -1) : s->prec;
	for (; sr_fmt__is_flag(*q); q++) {
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
	} else if (sr_fmt__is_digit(*q)) {
		int w = 0;
		while (sr_fmt__is_digit(*q))
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
	char *d = sr_fmt__utoa_dec(ip, end);
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
		d = sr_fmt__utoa_dec((unsigned)ae, end);
		if (end - d < 2)
			body[n++] = '0';
		memcpy(body + n, d, (size_t)(end - d));
		n += (size_t)(end - d);
	}
	put_padded(out, o, prefix, plen, body, n, true);
}

/* One conversion with the async-signal-safe renderers; false when the record does not match. */
static bool
render_spec_safe(sr_fmt_buf *out, const char *text, const sr_fmt_spec *s, sr_fmt_cursor *c, int errno_value)
{
	if (s->conv == '%') {
		sr_fmt_buf_putc(out, '%');
		return true;
	}
	int w = 0, pr = -1;
	if (s->width_star && !sr_fmt__take(c, &w, 4))
		return false;
	if (s->prec_star && !sr_fmt__take(c, &pr, 4))
		return false;
	safe_spec o;
	safe_spec_read(text, s, w, pr, &o);
	switch (s->type) {
	case SR_FMT_ARG_INT:
	case SR_FMT_ARG_LONG: {
		long long x = 0;
		if (s->type == SR_FMT_ARG_INT) {
			int i;
			if (!sr_fmt__take(c, &i, 4))
				return false;
			x = i;
		} else if (!sr_fmt__take(c, &x, 8)) {
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
				x = s->length == SR_FMT_LEN_HH ? (signed char)i : s->length == SR_FMT_LEN_H ? (short)i : i;
			else
				x = s->length == SR_FMT_LEN_HH ? (unsigned char)i :
				    s->length == SR_FMT_LEN_H ? (unsigned short)i : (long long)(unsigned)i;
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
			if (!sr_fmt__take(c, &x, 8))
				return false;
		} else {
			long double lx;
			if (!sr_fmt__take_ldouble(c, &lx))
				return false;
			x = (double)lx;
		}
		safe_double(out, &o, s->conv, x);
		break;
	}
	case SR_FMT_ARG_PTR: {
		void *x;
		if (!sr_fmt__take(c, &x, 8))
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
		const char *str;
		uint32_t len;
		if (!sr_fmt__take_string(c, &str, &len))
			return false;
		size_t n = len;
		if (str == NULL) {
			/* glibc's text for a NULL %s, or nothing with a precision below 6 */
			str = "(null)";
			n = o.prec >= 0 && o.prec < 6 ? 0 : 6;
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
	sr_fmt__walk(out, format, values, values_len, strings, strings_len, errno_value, render_spec_safe);
}

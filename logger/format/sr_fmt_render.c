/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_fmt_render.c: a record's message rendered from its format and decoded
 * arguments (the consumer's side of the codec): with snprintf, one call per
 * conversion, so that the text equals snprintf's; or, in the crash handler,
 * with async-signal-safe routines of its own.
 */
#include "sr_fmt_internal.h"
#include "sr_fmt_render_internal.h"

#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
 * Bytes snprintf produced on this thread (sr_fmt_render_internal.h): what
 * the renderer asked of it, written or not, so that a test can bound the
 * work per record by a count.
 */
static _Thread_local unsigned long long render_work;

unsigned long long
sr_fmt__render_work(void)
{
	return render_work;
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
		render_work += (unsigned)n_; \
	} \
} while (0)

/*
 * Widths and precisions beyond the line.  snprintf produces every byte a
 * width or precision asks for, written or not, and allocates for a
 * precision: %.*f with INT_MAX takes seconds and gigabytes, then fails.  A
 * conversion whose width or precision passes the room left on the line plus
 * SR_FMT_CLAMP_SLACK is therefore rendered with both clamped (the clamp),
 * so that it still overflows the line, which is cut and marked as any line
 * too long; the text kept is the true text's beginning, and `want` its full
 * length.  The slack covers the longest number a conversion prints (the
 * integer part of LDBL_MAX has 4933 digits), so that %g chooses its style
 * as with the true precision.
 */
#define SR_FMT_CLAMP_SLACK 5000

/*
 * Significant digits of the longest exact decimal value of a long double,
 * rounded up: its smallest subnormal 2^-k (k = LDBL_MANT_DIG - LDBL_MIN_EXP)
 * times a significand below 2^LDBL_MANT_DIG is an integer below
 * 2^LDBL_MANT_DIG x 5^k over 10^k (11516 for the x87's; a double's, 767 by
 * the same count, stays below the slack).  %Lg without '#' at this precision
 * or more prints the exact value, trailing zeros stripped: the text of any
 * larger precision, which its clamp therefore never goes below.
 */
#define SR_FMT_LDBL_EXACT_DIGITS \
	(((LDBL_MANT_DIG - LDBL_MIN_EXP) * 699 + LDBL_MANT_DIG * 302) / 1000 + 2)

typedef struct clamp {
	bool active;
	bool left;              /* '-' flag or a negative '*' width */
	long long width;        /* the true width, without its sign; 0: none */
	long long prec;         /* the true precision; -1: none */
	int prec_used;          /* the precision passed to snprintf */
	/*
	 * Each precision digit past the clamp adds one byte: an integer's zeros,
	 * the digits of %e %f %a, of %g with '#' (which keeps its zeros) and of
	 * %p (glibc pads its hex digits).  Not for an infinity, a NaN or a NULL
	 * %p, which ignore the precision: render_spec clears it for them.
	 */
	bool linear;
	char fmt[SR_FMT_SPEC_MAX + 8];  /* the spec with "*.*" for width and precision */
} clamp;

/*
 * Reads the spec's width and precision (star values w and pr) and, when
 * either passes the room left plus the slack, prepares the clamp.
 */
static void
clamp_prepare(const sr_fmt_buf *out, const char *text, const sr_fmt_spec *s, int w, int pr, clamp *k)
{
	const char *q = text + 1;
	bool left = false, alt = false;
	for (; sr_fmt__is_flag(*q); q++) {
		left |= *q == '-';
		alt |= *q == '#';
	}
	const char *flags_end = q;
	long long width = 0;
	if (s->width_star) {
		width = w < 0 ? -(long long)w : w;
		left |= w < 0;
		q++;
	} else {
		while (sr_fmt__is_digit(*q))
			width = width * 10 + (*q++ - '0');
	}
	long long prec = s->prec;
	if (*q == '.') {
		q++;
		if (s->prec_star) {
			prec = pr < 0 ? -1 : pr;
			q++;
		} else {
			while (sr_fmt__is_digit(*q))
				q++;
		}
	}
	long long limit = (long long)(out->cap - out->len) + SR_FMT_CLAMP_SLACK;
	bool bounds_text = s->conv == 's' || s->conv == 'm';
	k->active = width > limit || (prec > limit && !bounds_text);
	if (!k->active)
		return;
	k->left = left;
	k->width = width;
	k->prec = prec;
	/* A string's precision only bounds what is read: it costs no work. */
	k->prec_used = prec > limit && !bounds_text ? (int)limit : (int)prec;
	bool g = s->conv == 'g' || s->conv == 'G';
	if (g && !alt && s->type == SR_FMT_ARG_LDOUBLE && k->prec_used < prec &&
	    k->prec_used < SR_FMT_LDBL_EXACT_DIGITS)
		k->prec_used = prec < SR_FMT_LDBL_EXACT_DIGITS ? (int)prec : SR_FMT_LDBL_EXACT_DIGITS;
	k->linear = strchr("diouxXeEfFaAp", s->conv) != NULL || (g && alt);
	size_t nf = (size_t)(flags_end - text), nrest = s->len - (size_t)(q - text);
	memcpy(k->fmt, text, nf);
	memcpy(k->fmt + nf, "*.*", 3);
	memcpy(k->fmt + nf + 3, q, nrest);
	k->fmt[nf + 3 + nrest] = '\0';
}

/*
 * The width to pass with the clamp, from the length n0 the conversion has
 * at the precision passed and no width: enough padding to fill the room
 * left and overflow it, never the true padding's full count.
 */
static int
clamp_width(const sr_fmt_buf *out, const clamp *k, int n0, long long *true_len)
{
	long long body = n0;
	if (k->linear && k->prec > k->prec_used)
		body += k->prec - k->prec_used;
	*true_len = k->width > body ? k->width : body;
	if (k->width <= body)
		return 0;
	long long pad = k->width - body, room = (long long)(out->cap - out->len);
	if (pad > room + 1)
		pad = room + 1;
	int wu = (int)((long long)n0 + pad);
	return k->left ? -wu : wu;
}

/* Renders x with the clamp k, and counts the true length in `want`. */
#define RENDER_CLAMPED(out, k, x) do { \
	int n0_ = snprintf(NULL, 0, (k)->fmt, 0, (k)->prec_used, x); \
	if (n0_ < 0) \
		break; \
	render_work += (unsigned)n0_; \
	long long true_len_; \
	int wu_ = clamp_width(out, k, n0_, &true_len_); \
	size_t want0_ = (out)->want; \
	BUF_SNPRINTF(out, (k)->fmt, wu_, (k)->prec_used, x); \
	(out)->want = want0_ + (size_t)true_len_; \
} while (0)

/* Calls BUF_SNPRINTF with the '*' width and precision the spec takes, then x. */
#define RENDER_STARS(out, fmt, s, w, pr, x) do { \
	if (k.active) RENDER_CLAMPED(out, &k, x); \
	else if ((s)->width_star && (s)->prec_star) BUF_SNPRINTF(out, fmt, w, pr, x); \
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
render_spec(sr_fmt_buf *out, const char *text, const sr_fmt_spec *s, cursor *c, int errno_value)
{
	int w = 0, pr = 0;
	char fmt[SR_FMT_SPEC_MAX + 1];
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
	clamp k;  /* not zeroed: only a clamp that is active is read past `active` */
	k.active = false;
	/* A spec of 5 bytes or fewer ("%999d", "%9.9f") holds no number above 999: nothing to clamp. */
	if (!s->plain && (s->len > 5 || s->width_star || s->prec_star))
		clamp_prepare(out, text, s, w, pr, &k);

	switch (s->type) {
	case SR_FMT_ARG_INT: {
		int x;
		if (!take_bytes(c, &x, 4))
			return false;
		if (s->plain && s->length == SR_FMT_LEN_NONE) {
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
		case SR_FMT_LEN_L:
			if (is_signed) RENDER_STARS(out, fmt, s, w, pr, (long)x);
			else RENDER_STARS(out, fmt, s, w, pr, (unsigned long)x);
			break;
		case SR_FMT_LEN_J:
			if (is_signed) RENDER_STARS(out, fmt, s, w, pr, (intmax_t)x);
			else RENDER_STARS(out, fmt, s, w, pr, (uintmax_t)x);
			break;
		case SR_FMT_LEN_Z:
			if (is_signed) RENDER_STARS(out, fmt, s, w, pr, (ptrdiff_t)x);
			else RENDER_STARS(out, fmt, s, w, pr, (size_t)x);
			break;
		case SR_FMT_LEN_T:
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
		if (k.active && !isfinite(x))
			k.linear = false;
		RENDER_STARS(out, fmt, s, w, pr, x);
		return true;
	}
	case SR_FMT_ARG_LDOUBLE: {
		long double x = 0;
		unsigned char raw[16];
		if (!take_bytes(c, raw, 16))
			return false;
		memcpy(&x, raw, 10);
		/* As glibc's printf, isfinite takes an invalid x87 encoding for a NaN. */
		if (k.active && !isfinite(x))
			k.linear = false;
		RENDER_STARS(out, fmt, s, w, pr, x);
		return true;
	}
	case SR_FMT_ARG_PTR: {
		void *x;
		if (!take_bytes(c, &x, 8))
			return false;
		if (k.active && x == NULL)
			k.linear = false;  /* "(nil)" */
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
			RENDER_STARS(out, fmt, s, w, pr, 0);
			errno = saved;
			return true;
		}
		return false;
	}
}

static bool render_spec_safe(sr_fmt_buf *out, const char *text, const sr_fmt_spec *s, cursor *c,
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
		sr_fmt_spec s;
		if (sr_fmt__parse_spec(pct, &s) != SR_FMT_OK ||
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
render_spec_safe(sr_fmt_buf *out, const char *text, const sr_fmt_spec *s, cursor *c, int errno_value)
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

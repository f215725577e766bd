/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_fmt_render.c: a record's message rendered from its format and decoded
 * arguments on the consumer (the consumer's side of the codec), with
 * snprintf, one call per conversion, so that the text equals snprintf's;
 * plain integers and strings without it.  Also a refused format's error
 * text.  The crash handler's renderer is sr_fmt_render_safe.c.
 */
#include "sr_fmt_internal.h"
#include "sr_fmt_render_internal.h"
#include "sr_fmt_walk_internal.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static void
put_signed(sr_fmt_buf *out, long long v)
{
	char tmp[24];
	char *end = tmp + sizeof tmp;
	unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
	char *p = sr_fmt__utoa_dec(u, end);
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
		p = sr_fmt__utoa_dec(u, end);
	}
	sr_fmt_buf_put(out, p, (size_t)(end - p));
}

/*
 * Bytes snprintf produced on this thread (sr_fmt_render_internal.h): what
 * the renderer asked of it, written or not, so that a test can bound the
 * work per record by a count.
 */
static __attribute__((tls_model("initial-exec"))) _Thread_local unsigned long long render_work;

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

/* Renders one conversion; false when the record does not match the format. */
static bool
render_spec(sr_fmt_buf *out, const char *text, const sr_fmt_spec *s, sr_fmt_cursor *c, int errno_value)
{
	int w = 0, pr = 0;
	char fmt[SR_FMT_SPEC_MAX + 1];
	if (s->conv == '%') {
		sr_fmt_buf_putc(out, '%');
		return true;
	}
	if (s->width_star && !sr_fmt__take(c, &w, 4))
		return false;
	if (s->prec_star && !sr_fmt__take(c, &pr, 4))
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
		if (!sr_fmt__take(c, &x, 4))
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
		if (!sr_fmt__take(c, &x, 8))
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
	case SR_FMT_ARG_DOUBLE:
	case SR_FMT_ARG_LDOUBLE: {
		bool is_long = s->type == SR_FMT_ARG_LDOUBLE;
		double d = 0;
		long double ld = 0;
		if (is_long ? !sr_fmt__take_ldouble(c, &ld) : !sr_fmt__take(c, &d, 8))
			return false;
		/*
		 * An infinity or a NaN ignores the precision.  As glibc's printf,
		 * isfinite takes an invalid x87 encoding for a NaN.
		 */
		if (k.active && !(is_long ? isfinite(ld) : isfinite(d)))
			k.linear = false;
		if (is_long)
			RENDER_STARS(out, fmt, s, w, pr, ld);
		else
			RENDER_STARS(out, fmt, s, w, pr, d);
		return true;
	}
	case SR_FMT_ARG_PTR: {
		void *x;
		if (!sr_fmt__take(c, &x, 8))
			return false;
		if (k.active && x == NULL)
			k.linear = false;  /* "(nil)" */
		RENDER_STARS(out, fmt, s, w, pr, x);
		return true;
	}
	case SR_FMT_ARG_STR: {
		const char *str;
		uint32_t len;
		if (!sr_fmt__take_string(c, &str, &len))
			return false;
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

void
sr_fmt_render(sr_fmt_buf *out, const char *format,
    const unsigned char *values, size_t values_len,
    const unsigned char *strings, size_t strings_len, int errno_value)
{
	sr_fmt__walk(out, format, values, values_len, strings, strings_len, errno_value, render_spec);
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

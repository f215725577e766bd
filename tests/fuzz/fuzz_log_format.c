/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_log_format.c: libFuzzer target for the logger's deferred-format codec
 * (logger/format/sr_fmt_internal.h): the format parser, the caller-side gather / fit /
 * write encoder, the consumer-side renderer, and the whole path through a
 * running logger (sr_log_emit on a small ring).
 *
 * Input: byte 0 and 1 choose what runs and the sizes used (see `ctl`), then
 * the format up to the first NUL, then a pool of bytes from which the
 * arguments are made.  The format is parsed; then
 *
 *   refused:  the signature is cleared, the message is non-empty and bounded,
 *             sr_fmt_snprintf returns -1 with "format error: ..." and the
 *             logger writes one error line and counts it;
 *   accepted: the signature is consistent (argument count, value-area size,
 *             string count, precisions), and, when every width and precision
 *             is bounded (so one call stays fast), arguments are made from
 *             the pool, one per signature entry, and printf-like functions
 *             are called with them through libffi (a real variadic call, as
 *             a caller's):
 *     - sr_fmt_snprintf must equal snprintf, return value and text, for a
 *       big buffer and for small ones (cut output);
 *     - gather (from a va_list) -> fit (a record budget) -> write (linear,
 *       and into a ring buffer that wraps at a chosen offset): the size is
 *       within the budget, the wrapped bytes equal the linear ones, each
 *       stored string is the original or its prefix ending with the
 *       truncation marker, and rendering the record gives exactly what
 *       snprintf prints for the stored strings (cut to a chosen capacity);
 *     - a damaged record (an area cut short, a length off by a little, a
 *       lost NUL, a flipped byte) and a record of pool bytes render without
 *       reading outside them (ASan);
 *     - through a logger: the line a sink receives is snprintf's text and a
 *       newline (unless the record or the line was cut, which is counted).
 *
 * %s arguments are NUL-terminated heap copies of exactly their size (ASan
 * sees any over-read); with a static precision they are sometimes arrays of
 * exactly that many bytes and no NUL, which C allows.  %p gets arbitrary
 * values (printf never dereferences them); %n is refused by the parser.
 */
#include <errno.h>
#include <ffi.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_support.h"
#include <seqring/sr_log.h>
#include "sr_fmt_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Output buffers: big enough for 32 conversions of width/precision <= 9999 and 4 KiB strings. */
#define MAX_OUT ((size_t)1 << 20)
/* Widths and precisions above this (static) or 500 (from '*') skip the rendering checks. */
#define MAX_STATIC_DIGITS 4
#define MAX_STAR 500
/* Strings made from the pool: up to this many bytes. */
#define MAX_STR 4095

static char ref_buf[MAX_OUT];
static char exp_buf[MAX_OUT];
static char out_buf[MAX_OUT + SR_FMT_LINE_RESERVE];

/* ---------------------------------------------------------------------------------------- */
/* Arguments and variadic calls                                                             */

typedef union value {
	int i;
	long long ll;
	double d;
	long double ld;
	const void *p;
} value;

typedef struct args {
	int n;
	const sr_fmt_sig *sig;
	value v[SR_SITE_MAX_ARGS];
	ffi_type *ft[SR_SITE_MAX_ARGS];
	char *owned[SR_SITE_MAX_ARGS];      /* heap strings to free (NULL when none) */
	/*
	 * A NUL-terminated twin of each unterminated array, for snprintf only:
	 * ASan's printf interceptor (clang 14) checks strnlen(s, precision) + 1
	 * bytes, one past what C lets printf read, so it would report such an
	 * argument even though the call is valid.  The library gets the array.
	 */
	char *twin[SR_SITE_MAX_ARGS];
} args;

static ffi_type *
ffi_size_t(void)
{
	return sizeof(size_t) == 8 ? &ffi_type_uint64 : &ffi_type_uint32;
}

/* Calls fn(fixed..., a's values...) as a variadic call; rvalue receives the result. */
static void
call_variadic(void (*fn)(void), ffi_type *rtype, void *rvalue, unsigned nfixed,
    ffi_type **fixed_types, void **fixed_values, const args *a)
{
	ffi_type *types[4 + SR_SITE_MAX_ARGS];
	void *values[4 + SR_SITE_MAX_ARGS];
	for (unsigned i = 0; i < nfixed; i++) {
		types[i] = fixed_types[i];
		values[i] = fixed_values[i];
	}
	for (int i = 0; i < a->n; i++) {
		types[nfixed + (unsigned)i] = a->ft[i];
		values[nfixed + (unsigned)i] = (void *)&a->v[i];
	}
	ffi_cif cif;
	ffi_status st = ffi_prep_cif_var(&cif, FFI_DEFAULT_ABI, nfixed, nfixed + (unsigned)a->n,
	    rtype, types);
	FUZZ_CHECK(st == FFI_OK, "ffi_prep_cif_var failed (%d)", (int)st);
	ffi_call(&cif, fn, rvalue, values);
}

/* snprintf(buf, size, format, a...) */
static int
call_snprintf(char *buf, size_t size, const char *format, const args *a, int errno_value)
{
	ffi_type *ft[3] = { &ffi_type_pointer, ffi_size_t(), &ffi_type_pointer };
	void *fv[3] = { &buf, &size, &format };
	ffi_arg rc = 0;
	errno = errno_value;   /* for %m */
	call_variadic(FFI_FN(snprintf), &ffi_type_sint, &rc, 3, ft, fv, a);
	return (int)rc;
}

/* sr_fmt_snprintf(buf, size, max_record, format, a...) */
static int
call_sr_fmt_snprintf(char *buf, size_t size, size_t max_record, const char *format, const args *a,
    int errno_value)
{
	ffi_type *ft[4] = { &ffi_type_pointer, ffi_size_t(), ffi_size_t(), &ffi_type_pointer };
	void *fv[4] = { &buf, &size, &max_record, &format };
	ffi_arg rc = 0;
	errno = errno_value;
	call_variadic(FFI_FN(sr_fmt_snprintf), &ffi_type_sint, &rc, 4, ft, fv, a);
	return (int)rc;
}

/* The caller side of a log call: a va_list gathered into g, as sr_log_emit does. */
static void
gather_va(sr_fmt_gather *g, const sr_fmt_sig *sig, size_t str_cap, ...)
{
	va_list ap;
	va_start(ap, str_cap);
	sr_fmt_gather_args(g, sig, str_cap, &ap);
	va_end(ap);
}

static void
call_gather(sr_fmt_gather *g, const sr_fmt_sig *sig, size_t str_cap, const args *a)
{
	ffi_type *ft[3] = { &ffi_type_pointer, &ffi_type_pointer, ffi_size_t() };
	void *fv[3] = { &g, &sig, &str_cap };
	call_variadic(FFI_FN(gather_va), &ffi_type_void, NULL, 3, ft, fv, a);
}

/* sr_log_emit(cat, site, format, a...) */
static void
call_emit(sr_category *cat, sr_site *site, const args *a, int errno_value)
{
	const char *format = site->format;
	ffi_type *ft[3] = { &ffi_type_pointer, &ffi_type_pointer, &ffi_type_pointer };
	void *fv[3] = { &cat, &site, &format };
	errno = errno_value;
	call_variadic(FFI_FN(sr_log_emit), &ffi_type_void, NULL, 3, ft, fv, a);
}

/* The printable "abcdefghij..." filler used once the pool runs dry. */
static char
filler(size_t i)
{
	return (char)('a' + (int)(i % 26));
}

/*
 * One argument per signature entry, from the pool.  Widths and precisions
 * from '*' stay within +-MAX_STAR; strings are exact-size heap copies.
 */
static void
make_args(args *a, const sr_fmt_sig *sig, fuzz_reader *pool)
{
	memset(a, 0, sizeof *a);
	a->sig = sig;
	a->n = sig->nargs;
	int star_prec = -1;
	for (int i = 0; i < sig->nargs; i++) {
		value *v = &a->v[i];
		switch (sig->type[i]) {
		case SR_FMT_ARG_INT:
			v->i = (int)fuzz_u32(pool);
			a->ft[i] = &ffi_type_sint;
			break;
		case SR_FMT_ARG_WIDTH:
		case SR_FMT_ARG_PRECISION:
			v->i = (int)(fuzz_u32(pool) % (2 * MAX_STAR + 1)) - MAX_STAR;
			if (sig->type[i] == SR_FMT_ARG_PRECISION)
				star_prec = v->i;
			a->ft[i] = &ffi_type_sint;
			break;
		case SR_FMT_ARG_LONG:
			v->ll = (long long)fuzz_u64(pool);
			a->ft[i] = &ffi_type_sint64;
			break;
		case SR_FMT_ARG_DOUBLE:
			fuzz_take(pool, &v->d, sizeof v->d);
			a->ft[i] = &ffi_type_double;
			break;
		case SR_FMT_ARG_LDOUBLE:
			memset(&v->ld, 0, sizeof v->ld);
			fuzz_take(pool, &v->ld, 10);    /* the x87 80-bit value */
			a->ft[i] = &ffi_type_longdouble;
			break;
		case SR_FMT_ARG_PTR:
			v->p = (const void *)(uintptr_t)fuzz_u64(pool);
			a->ft[i] = &ffi_type_pointer;
			break;
		case SR_FMT_ARG_STR: {
			a->ft[i] = &ffi_type_pointer;
			uint16_t sel;
			fuzz_take(pool, &sel, 2);
			if (sel == 0xffff) {
				v->p = NULL;
				break;
			}
			size_t len = (size_t)(sel & 0x7fff) % (MAX_STR + 1);
			int32_t prec = sig->precision[i] == SR_FMT_PREC_STAR ? star_prec : sig->precision[i];
			/*
			 * With a precision the argument may be an array of exactly that
			 * many bytes without a NUL (C11 7.21.6.1p8): sometimes make one.
			 */
			bool unterminated = (sel & 0x8000) != 0 && prec >= 0 && (size_t)prec <= len;
			size_t bytes = unterminated ? (size_t)prec : len;
			char *s = malloc(bytes + (unterminated ? 0 : 1) + (bytes == 0 && unterminated));
			FUZZ_CHECK(s != NULL, "malloc");
			size_t k = bytes < pool->n ? bytes : pool->n;
			fuzz_take(pool, s, k);
			for (size_t j = k; j < bytes; j++)
				s[j] = filler(j);
			if (!unterminated) {
				s[bytes] = '\0';
			} else {
				a->twin[i] = fuzz_strndup_exact(s, bytes);
			}
			a->owned[i] = s;
			v->p = s;
			break;
		}
		default:
			FUZZ_CHECK(false, "unknown argument type %d at %d", sig->type[i], i);
		}
	}
}

static void
free_args(args *a)
{
	for (int i = 0; i < SR_SITE_MAX_ARGS; i++) {
		free(a->owned[i]);
		free(a->twin[i]);
	}
}

/* The arguments as given to snprintf: unterminated arrays replaced by their twins. */
static args
for_snprintf(const args *a)
{
	args r = *a;
	for (int i = 0; i < a->n; i++)
		if (a->twin[i] != NULL)
			r.v[i].p = a->twin[i];
	memset(r.owned, 0, sizeof r.owned);
	memset(r.twin, 0, sizeof r.twin);
	return r;
}

/* ---------------------------------------------------------------------------------------- */
/* Format properties                                                                        */

/*
 * True when every static width and precision has at most MAX_STATIC_DIGITS
 * significant digits (a conversion of width 10^9 is legal, but one snprintf
 * of it takes seconds: not what this target is after).
 */
static bool
format_is_bounded(const char *f)
{
	for (const char *p = f; (p = strchr(p, '%')) != NULL;) {
		p++;
		int digits = 0;
		while (*p != '\0' && strchr("-+ #0'I123456789.*", *p) != NULL) {
			if (*p >= '0' && *p <= '9') {
				if ((digits > 0 || *p != '0') && ++digits > MAX_STATIC_DIGITS)
					return false;
			} else {
				digits = 0;
			}
			p++;
		}
	}
	return true;
}

static size_t
arg_bytes(uint8_t type)
{
	switch (type) {
	case SR_FMT_ARG_LDOUBLE: return 16;
	case SR_FMT_ARG_LONG: case SR_FMT_ARG_DOUBLE: case SR_FMT_ARG_PTR: return 8;
	default: return 4;
	}
}

static void
check_signature(const sr_fmt_sig *sig, const char *format)
{
	FUZZ_CHECK(sig->nargs <= SR_SITE_MAX_ARGS, "\"%s\": %d arguments", format, sig->nargs);
	size_t bytes = 0;
	int strings = 0;
	for (int i = 0; i < sig->nargs; i++) {
		uint8_t t = sig->type[i];
		FUZZ_CHECK(t >= SR_FMT_ARG_INT && t <= SR_FMT_ARG_PRECISION, "\"%s\": type %d at %d", format, t, i);
		bytes += arg_bytes(t);
		if (t == SR_FMT_ARG_STR) {
			strings++;
			int32_t p = sig->precision[i];
			FUZZ_CHECK(p >= 0 || p == SR_FMT_PREC_NONE || p == SR_FMT_PREC_STAR,
			    "\"%s\": string %d has precision %d", format, i, p);
			if (p == SR_FMT_PREC_STAR)
				FUZZ_CHECK(i > 0 && sig->type[i - 1] == SR_FMT_ARG_PRECISION,
				    "\"%s\": %%.*s at %d not preceded by its precision", format, i);
		}
	}
	FUZZ_CHECK(sig->value_bytes == bytes && bytes <= SR_FMT_MAX_VALUE_BYTES,
	    "\"%s\": value_bytes %d, expected %zu", format, sig->value_bytes, bytes);
	FUZZ_CHECK(sig->nstrings == strings, "\"%s\": nstrings %d, expected %d", format, sig->nstrings, strings);
}

/* A refused format: cleared signature, bounded message, error text from sr_fmt_snprintf. */
static void
check_refused(const char *format, const sr_fmt_sig *sig, int rc, const char *msg, uint8_t ctl1)
{
	FUZZ_CHECK(rc > SR_FMT_OK && rc <= SR_FMT_E_TOO_MANY && sig->error == rc,
	    "\"%s\": rc %d, sig.error %d", format, rc, sig->error);
	FUZZ_CHECK(sig->nargs == 0 && sig->nstrings == 0 && sig->value_bytes == 0,
	    "\"%s\": refused, yet the signature keeps %d arguments", format, sig->nargs);
	FUZZ_CHECK(msg[0] != '\0', "\"%s\": refused (%d) without a message", format, rc);

	/* A small message buffer: exactly sized, so ASan sees an overflow. */
	size_t msg_size = 1 + ctl1 % 24;
	char *small = malloc(msg_size);
	FUZZ_CHECK(small != NULL, "malloc");
	sr_fmt_sig again;
	FUZZ_CHECK(sr_fmt_parse(format, &again, small, msg_size) == rc, "\"%s\": parse not deterministic", format);
	FUZZ_CHECK(memchr(small, '\0', msg_size) != NULL, "\"%s\": message unterminated in %zu bytes", format, msg_size);
	free(small);

	static const char head[] = "format error: ";
	args none = { 0 };
	int n = call_sr_fmt_snprintf(out_buf, 4096, 0, format, &none, 0);
	FUZZ_CHECK(n == -1, "sr_fmt_snprintf(\"%s\") returned %d for a refused format", format, n);
	FUZZ_CHECK(strncmp(out_buf, head, sizeof head - 1) == 0, "\"%s\": error text \"%.80s\"", format, out_buf);
	/* Cut error text stays inside a small buffer. */
	size_t size = ctl1 % 40;
	char *cut = malloc(size > 0 ? size : 1);
	FUZZ_CHECK(cut != NULL, "malloc");
	n = call_sr_fmt_snprintf(cut, size, 0, format, &none, 0);
	FUZZ_CHECK(n == -1, "sr_fmt_snprintf(\"%s\", size %zu) returned %d", format, size, n);
	size_t shown = size > 0 ? size - 1 : 0;
	if (shown > sizeof head - 1)
		shown = sizeof head - 1;
	FUZZ_CHECK(strncmp(cut, head, shown) == 0 && (size == 0 || strlen(cut) <= size - 1),
	    "\"%s\": cut error text \"%s\" in %zu bytes", format, cut, size);
	free(cut);
}

/* ---------------------------------------------------------------------------------------- */
/* Codec properties                                                                         */

/* sr_fmt_snprintf against snprintf into `size` bytes (exactly sized when small). */
static void
check_snprintf(const char *format, const args *a, size_t size, int errno_value, int full_len)
{
	bool small = size < 65536;
	char *mine = small ? malloc(size > 0 ? size : 1) : out_buf;
	char *theirs = small ? malloc(size > 0 ? size : 1) : exp_buf;
	FUZZ_CHECK(mine != NULL && theirs != NULL, "malloc");
	if (size == 0)
		mine[0] = theirs[0] = 'X';
	args ra = for_snprintf(a);
	int r_ref = call_snprintf(theirs, size, format, &ra, errno_value);
	int r_sr = call_sr_fmt_snprintf(mine, size, 0, format, a, errno_value);
	FUZZ_CHECK(r_ref == full_len, "\"%s\": snprintf is not deterministic (%d, %d)", format, r_ref, full_len);
	FUZZ_CHECK(r_sr == r_ref, "\"%s\" into %zu bytes: sr_fmt_snprintf returned %d, snprintf %d",
	    format, size, r_sr, r_ref);
	if (size == 0) {
		FUZZ_CHECK(mine[0] == 'X', "\"%s\": sr_fmt_snprintf wrote into a 0-byte buffer", format);
	} else {
		size_t n = (size_t)r_ref < size - 1 ? (size_t)r_ref : size - 1;
		/* The text may hold NULs (%c of 0): compare bytes, then the terminator. */
		for (size_t i = 0; i < n; i++)
			FUZZ_CHECK(mine[i] == theirs[i], "\"%s\" into %zu bytes: byte %zu is 0x%02x, snprintf's 0x%02x",
			    format, size, i, (unsigned char)mine[i], (unsigned char)theirs[i]);
		FUZZ_CHECK(mine[n] == '\0', "\"%s\" into %zu bytes: no NUL at %zu", format, size, n);
	}
	if (small) {
		free(mine);
		free(theirs);
	}
}

static const char MARK[] = SR_FMT_TRUNCATION_MARKER;

/* Renders values/strings (copied to exactly sized buffers) into a buffer of capacity cap. */
static void
render_untrusted(const char *format, const unsigned char *values, size_t vlen,
    const unsigned char *strings, size_t slen, size_t cap)
{
	unsigned char *v = malloc(vlen > 0 ? vlen : 1);
	unsigned char *s = malloc(slen > 0 ? slen : 1);
	char *data = malloc(cap + SR_FMT_LINE_RESERVE);
	FUZZ_CHECK(v != NULL && s != NULL && data != NULL, "malloc");
	memcpy(v, values, vlen);
	memcpy(s, strings, slen);
	sr_fmt_buf out = { data, 0, cap, 0 };
	sr_fmt_render(&out, format, v, vlen, s, slen, 0);
	FUZZ_CHECK(out.len <= cap, "\"%s\": a damaged record rendered %zu bytes into %zu", format, out.len, cap);
	free(data);
	free(s);
	free(v);
}

/*
 * A valid record, damaged the way a bug would damage it: an area cut short,
 * a string length off by a little, a lost NUL, a flipped byte.  Rendering it
 * must stay inside it ("<bad record>", sr_fmt_internal.h), whatever it prints.
 */
static void
check_damaged_record(const char *format, const sr_fmt_gather *g, const unsigned char *rec, size_t body,
    uint8_t ctl1, fuzz_reader *pool)
{
	unsigned char *copy = malloc(body > 0 ? body : 1);
	FUZZ_CHECK(copy != NULL, "malloc");
	memcpy(copy, rec, body);
	size_t vlen = g->value_bytes, slen = body - g->value_bytes;
	uint8_t how = fuzz_u8(pool);
	uint8_t amount = fuzz_u8(pool);
	/* A '*' reads its width from the value area: damage there could ask for 2^31 blanks. */
	bool stars = strchr(format, '*') != NULL;
	switch (how % 5) {
	case 0:
		vlen -= vlen < 1u + amount % 8 ? vlen : 1u + amount % 8;
		break;
	case 1:
		slen -= slen < 1u + amount % 8 ? slen : 1u + amount % 8;
		break;
	case 2:
		if (g->nstrings > 0) {
			uint16_t at = g->len_at[amount % g->nstrings];
			uint32_t len;
			memcpy(&len, copy + at, 4);
			len += (uint32_t)((int)(how / 5 % 5) - 2);     /* -2 .. +2 */
			memcpy(copy + at, &len, 4);
		}
		break;
	case 3:
		if (slen > 0)
			copy[vlen + (size_t)amount % slen] = 'x';     /* maybe a NUL lost */
		break;
	default:
		if (!stars && body > 0)
			copy[(size_t)amount * 7 % body] ^= (uint8_t)(1u << (how / 5 % 8));
		break;
	}
	render_untrusted(format, copy, vlen, copy + g->value_bytes, slen, (size_t)ctl1 * 5);
	free(copy);
}

/*
 * gather -> fit -> write (linear and wrapped) -> check the stored strings ->
 * render, against snprintf of the stored strings.
 */
static void
check_record(const char *format, const sr_fmt_sig *sig, const args *a, uint8_t ctl0, uint8_t ctl1,
    fuzz_reader *pool, int errno_value)
{
	size_t header = ctl1 % 64;
	size_t max_record = 0;
	if (ctl0 & 0x10) {
		uint16_t budget;
		fuzz_take(pool, &budget, 2);
		max_record = header + budget % 6000;
		if (max_record == 0)
			max_record = 1;
	}
	/* As the logger and sr_fmt_vsnprintf do: strings are measured up to the record limit. */
	size_t str_cap = max_record;

	static sr_fmt_gather g;
	memset(&g, 0xa5, sizeof g);
	call_gather(&g, sig, str_cap, a);
	FUZZ_CHECK(g.value_bytes == sig->value_bytes && g.nstrings == sig->nstrings,
	    "\"%s\": gathered %d value bytes / %d strings, signature %d / %d", format, g.value_bytes,
	    g.nstrings, sig->value_bytes, sig->nstrings);
	size_t whole = header + g.value_bytes + g.string_bytes;
	size_t size = sr_fmt_fit(&g, header, max_record);
	if (max_record == 0 || whole <= max_record) {
		FUZZ_CHECK(size == whole && !g.truncated, "\"%s\": fit %zu (whole %zu, max %zu) truncated %d",
		    format, size, whole, max_record, g.truncated);
	}
	if (max_record >= header + SR_FMT_MIN_BUDGET)
		FUZZ_CHECK(size <= max_record, "\"%s\": record of %zu bytes over its budget %zu (header %zu)",
		    format, size, max_record, header);
	FUZZ_CHECK(size >= header + g.value_bytes, "\"%s\": record %zu smaller than its values", format, size);
	size_t body = size - header;

	/* Linear, into exactly `body` bytes. */
	unsigned char *rec = malloc(body > 0 ? body : 1);
	FUZZ_CHECK(rec != NULL, "malloc");
	sr_ring_writer w = { rec, 0, SIZE_MAX };
	sr_fmt_write(&g, &w);
	FUZZ_CHECK(w.pos == body, "\"%s\": wrote %zu bytes, fit said %zu", format, w.pos, body);

	/* Into a ring buffer of `ring` bytes from offset `start`, wrapping at its end. */
	if (body > 0) {
		size_t ring = body + ctl1 % 7;
		size_t start = (size_t)fuzz_u8(pool) * 7 % ring;
		unsigned char *buf = malloc(ring);
		FUZZ_CHECK(buf != NULL, "malloc");
		sr_ring_writer rw = { buf, start, ring };
		sr_fmt_write(&g, &rw);
		FUZZ_CHECK(rw.pos == (start + body) % ring, "\"%s\": wrapped writer ends at %zu, expected %zu",
		    format, rw.pos, (start + body) % ring);
		for (size_t i = 0; i < body; i++)
			FUZZ_CHECK(buf[(start + i) % ring] == rec[i], "\"%s\": wrapped byte %zu differs", format, i);
		free(buf);
	}

	/* The stored strings: the original, or its prefix and the marker (or part of the marker). */
	args stored = for_snprintf(a);
	size_t soff = g.value_bytes;
	bool any_cut = false;
	for (int i = 0, k = 0; i < sig->nargs; i++) {
		if (sig->type[i] != SR_FMT_ARG_STR)
			continue;
		uint32_t stored_len;
		memcpy(&stored_len, rec + g.len_at[k], 4);
		const char *orig = a->v[i].p;
		if (orig == NULL) {
			FUZZ_CHECK(stored_len == SR_FMT_NULL_STRING, "\"%s\": NULL string %d stored as %u",
			    format, k, stored_len);
			k++;
			continue;
		}
		uint32_t len = g.len[k];
		FUZZ_CHECK(stored_len <= len && stored_len == g.take[k],
		    "\"%s\": string %d stored with length %u (len %u, take %u)", format, k, stored_len, len, g.take[k]);
		FUZZ_CHECK(soff + stored_len + 1 <= body, "\"%s\": string %d runs past the record", format, k);
		const char *s = (const char *)rec + soff;
		FUZZ_CHECK(s[stored_len] == '\0', "\"%s\": string %d not NUL-terminated in the record", format, k);
		if (stored_len == len) {
			FUZZ_CHECK(memcmp(s, orig, len) == 0, "\"%s\": string %d stored wrongly", format, k);
		} else {
			any_cut = true;
			size_t m = SR_FMT_TRUNCATION_MARKER_LEN;
			if (stored_len >= m) {
				FUZZ_CHECK(memcmp(s, orig, stored_len - m) == 0 &&
				    memcmp(s + stored_len - m, MARK, m) == 0,
				    "\"%s\": cut string %d is not a prefix and the marker", format, k);
			} else {
				FUZZ_CHECK(memcmp(s, MARK, stored_len) == 0,
				    "\"%s\": cut string %d is not (part of) the marker", format, k);
			}
		}
		stored.v[i].p = s;
		soff += (size_t)stored_len + 1;
		k++;
	}
	FUZZ_CHECK(soff == body, "\"%s\": string area ends at %zu, record at %zu", format, soff, body);
	/*
	 * Below SR_FMT_MIN_BUDGET nothing is promised (an empty string that finds no
	 * room at all is flagged though nothing was cut); above it, the flag means a cut.
	 */
	if (max_record == 0 || max_record >= header + SR_FMT_MIN_BUDGET)
		FUZZ_CHECK(any_cut == g.truncated, "\"%s\": truncated flag %d, strings cut %d", format,
		    g.truncated, any_cut);
	else
		FUZZ_CHECK(!any_cut || g.truncated, "\"%s\": strings cut without the truncated flag", format);

	/* Rendered, the record reads as snprintf of what it stores; cut to a capacity. */
	int full = call_snprintf(exp_buf, MAX_OUT, format, &stored, errno_value);
	FUZZ_CHECK(full >= 0 && (size_t)full < MAX_OUT, "\"%s\": snprintf returned %d", format, full);
	size_t cap = (ctl0 & 0x40) ? (size_t)ctl1 * 3 : MAX_OUT;
	char *data = cap < MAX_OUT ? malloc(cap + SR_FMT_LINE_RESERVE) : out_buf;
	FUZZ_CHECK(data != NULL, "malloc");
	sr_fmt_buf out = { data, 0, cap, 0 };
	sr_fmt_render(&out, format, rec, g.value_bytes, rec + g.value_bytes, body - g.value_bytes, errno_value);
	FUZZ_CHECK(out.want == (size_t)full, "\"%s\": rendered length %zu, snprintf %d", format, out.want, full);
	FUZZ_CHECK(out.len == (out.want < cap ? out.want : cap), "\"%s\": len %zu, want %zu, cap %zu",
	    format, out.len, out.want, cap);
	FUZZ_CHECK(memcmp(out.data, exp_buf, out.len) == 0, "\"%s\": rendered text differs from snprintf's",
	    format);
	if (data != out_buf)
		free(data);
	if (ctl0 & 0x08)
		check_damaged_record(format, &g, rec, body, ctl1, pool);
	free(rec);
}

/* A record of pool bytes that does not match the format: no read outside it. */
static void
check_random_record(const char *format, uint8_t ctl1, fuzz_reader *pool)
{
	/* A '*' would take a width from garbage: up to INT_MAX blanks, legal but slow. */
	if (strchr(format, '*') != NULL)
		return;
	unsigned char values[80], strings[200];
	size_t vlen = fuzz_u8(pool) % sizeof values;
	size_t slen = fuzz_u8(pool) % sizeof strings;
	fuzz_take(pool, values, vlen);
	fuzz_take(pool, strings, slen);
	render_untrusted(format, values, vlen, strings, slen, (size_t)ctl1 * 5);
}

/* ---------------------------------------------------------------------------------------- */
/* Through a logger                                                                         */

static sr_log *logger;
static sr_category *category;

/* The last line the sink received (written on the consumer thread, read after sr_log_flush). */
static char *last_line;
static size_t last_len, last_cap;
static int lines_seen;

static int
capture(void *ctx, sr_log_level level, const char *line, size_t len)
{
	(void)ctx;
	(void)level;
	if (len > last_cap) {
		free(last_line);
		last_cap = len * 2;
		last_line = malloc(last_cap);
		if (last_line == NULL)
			abort();
	}
	memcpy(last_line, line, len);
	last_len = len;
	lines_seen++;
	return 0;
}

static void
open_logger(void)
{
	if (logger != NULL)
		return;
	sr_log_config c;
	sr_log_config_default(&c);
	/* A 4 KiB ring: long records take many slots and often straddle its physical end. */
	c.ring_slots = 64;
	c.slot_size = 64;
	c.max_message_bytes = 4096;
	c.max_line_bytes = 4u << 20;
	c.layout = SR_LOG_LAYOUT_MESSAGE;
	/* The oracle is snprintf's text, raw: escaping is checked by test_log_layout. */
	c.escape_control_characters = false;
	c.level = SR_LOG_TRACE;
	c.wait_strategy = "liteblock";
	sr_sink_config s = sr_sink_callback(capture, NULL);
	c.sinks = &s;
	c.sink_count = 1;
	c.thread_name = "fuzz-log";
	sr_error err;
	logger = sr_log_open(&c, &err);
	FUZZ_CHECK(logger != NULL, "sr_log_open: %s", err.message);
	category = sr_log_category_get(logger, "fuzz", &err);
	FUZZ_CHECK(category != NULL, "category: %s", err.message);
}

/*
 * Logs one message through the ring and compares the sink's line with
 * `expected` (expected_len bytes, no newline), or with the error line when
 * the format is refused (expected == NULL).
 */
static void
check_logger(const char *format, const args *a, const char *expected, size_t expected_len, int errno_value)
{
	open_logger();
	sr_log_counters before, after;
	FUZZ_CHECK(sr_log_stats(logger, &before) == SR_OK, "stats");
	int seen = lines_seen;
	/* A fresh site per message: a site caches the signature of its (constant) format. */
	sr_site site = { .format = format, .file = "fuzz/fuzz_log_format.c", .function = "check_logger",
	    .line = 1, .level = SR_LOG_INFO };
	call_emit(category, &site, a, errno_value);
	FUZZ_CHECK(sr_log_flush(logger) == SR_OK, "flush");
	FUZZ_CHECK(sr_log_stats(logger, &after) == SR_OK, "stats");
	FUZZ_CHECK(lines_seen == seen + 1, "\"%s\": %d lines written for one message", format, lines_seen - seen);
	FUZZ_CHECK(after.accepted == before.accepted + 1 && after.written == before.written + 1 &&
	    after.dropped == before.dropped, "\"%s\": counters accepted %llu->%llu written %llu->%llu",
	    format, (unsigned long long)before.accepted, (unsigned long long)after.accepted,
	    (unsigned long long)before.written, (unsigned long long)after.written);
	FUZZ_CHECK(last_len > 0 && last_line[last_len - 1] == '\n', "\"%s\": line without newline", format);
	if (expected == NULL) {
		static const char head[] = "format error: ";
		FUZZ_CHECK(after.format_errors == before.format_errors + 1, "\"%s\": format error not counted", format);
		FUZZ_CHECK(last_len > sizeof head && memcmp(last_line, head, sizeof head - 1) == 0,
		    "\"%s\": error line \"%.*s\"", format, (int)(last_len < 80 ? last_len : 80), last_line);
		return;
	}
	bool cut = after.truncated_records != before.truncated_records ||
	    after.truncated_lines != before.truncated_lines;
	if (cut) {
		FUZZ_CHECK(memmem(last_line, last_len, MARK, sizeof MARK - 1) != NULL,
		    "\"%s\": a cut line without the marker", format);
		return;
	}
	FUZZ_CHECK(last_len == expected_len + 1 && memcmp(last_line, expected, expected_len) == 0,
	    "\"%s\": the logger wrote %zu bytes \"%.*s\", snprintf %zu bytes \"%.*s\"", format, last_len - 1,
	    (int)(last_len - 1 < 200 ? last_len - 1 : 200), last_line, expected_len,
	    (int)(expected_len < 200 ? expected_len : 200), expected);
}

/* ---------------------------------------------------------------------------------------- */

/*
 * ctl0 bits: 0-1 output size for the sr_fmt_snprintf comparison (just fits, ctl1 % 64,
 * 0, ctl1 + 1); 2 through the logger; 3 damaged and random records; 4 a record budget;
 * 6 a cut render capacity.  ctl1: sizes.
 */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	uint8_t ctl0 = data[0], ctl1 = data[1];
	data += 2;
	size -= 2;
	const uint8_t *nul = memchr(data, '\0', size);
	size_t flen = nul != NULL ? (size_t)(nul - data) : size;
	char *format = fuzz_strndup_exact(data, flen);
	fuzz_reader pool = { data + flen + (nul != NULL), size - flen - (nul != NULL) };

	sr_fmt_sig sig, again;
	char msg[160];
	int rc = sr_fmt_parse(format, &sig, msg, sizeof msg);
	FUZZ_CHECK(memchr(msg, '\0', sizeof msg) != NULL, "\"%s\": message unterminated", format);
	FUZZ_CHECK(sr_fmt_parse(format, &again, NULL, 0) == rc && memcmp(&sig, &again, sizeof sig) == 0,
	    "\"%s\": parse is not deterministic (or depends on msg)", format);

	if (rc != SR_FMT_OK) {
		check_refused(format, &sig, rc, msg, ctl1);
		if (ctl0 & 0x04) {
			args none = { 0 };
			check_logger(format, &none, NULL, 0, 0);
		}
		free(format);
		return 0;
	}
	check_signature(&sig, format);
	if (!format_is_bounded(format)) {
		free(format);
		return 0;
	}

	args a;
	make_args(&a, &sig, &pool);
	int errno_value = fuzz_u8(&pool) % 134;

	args ra = for_snprintf(&a);
	int full = call_snprintf(ref_buf, MAX_OUT, format, &ra, errno_value);
	FUZZ_CHECK(full >= 0 && (size_t)full < MAX_OUT, "\"%s\": snprintf returned %d", format, full);

	size_t out_size;
	switch (ctl0 & 3) {
	case 0: out_size = (size_t)full + 1; break;   /* just fits */
	case 1: out_size = ctl1 % 64; break;
	case 2: out_size = 0; break;
	default: out_size = (size_t)ctl1 + 1; break;
	}
	check_snprintf(format, &a, out_size, errno_value, full);
	check_record(format, &sig, &a, ctl0, ctl1, &pool, errno_value);
	if (ctl0 & 0x08)
		check_random_record(format, ctl1, &pool);
	if (ctl0 & 0x04)
		check_logger(format, &a, ref_buf, (size_t)full, errno_value);

	free_args(&a);
	free(format);
	return 0;
}

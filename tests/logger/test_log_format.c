/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_log_format.c: the logger's deferred-format codec (sr_fmt_internal.h)
 * against snprintf: every conversion and length modifier, with generated
 * flags, widths and precisions (thousands of cases), NULL strings, huge
 * widths and precisions, strings read only up to their precision, the
 * truncation marker, and every refused format.
 *
 * sr_fmt_snprintf runs the whole deferred path: parse, gather from the
 * va_list, fit into a record, encode, decode, render.
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sr_fmt_internal.h"
#include "sr_fmt_render_internal.h"

static long cases;
static long failures;

/*
 * vsnprintf and sr_fmt_vsnprintf of fmt into want and got, `size` bytes each:
 * true when the lengths returned and the texts kept agree.
 */
static bool
same_as_snprintf(char *want, char *got, size_t size, int *n_want, int *n_got, const char *fmt, va_list ap)
{
	va_list b;
	va_copy(b, ap);
	*n_want = vsnprintf(want, size, fmt, ap);
	*n_got = sr_fmt_vsnprintf(got, size, 0, fmt, b);
	va_end(b);
	size_t cmp = *n_want < 0 ? 0 : (size_t)*n_want < size ? (size_t)*n_want : size - 1;
	return *n_want == *n_got && memcmp(want, got, cmp) == 0;
}

/* Compares the deferred path with snprintf for one format and its arguments. */
static void
check(const char *fmt, ...)
{
	enum { SIZE = 4096 };
	char want[SIZE], got[SIZE];
	int n_want, n_got;
	va_list a;
	va_start(a, fmt);
	bool same = same_as_snprintf(want, got, SIZE, &n_want, &n_got, fmt, a);
	va_end(a);
	cases++;
	if (!same) {
		if (failures++ < 20)
			cr_log_error("format \"%s\": snprintf gave %d \"%s\", deferred gave %d \"%s\"",
			    fmt, n_want, want, n_got, got);
	}
}

static const char *const int_flags[] = { "", "-", "+", " ", "#", "0", "-+", "'", "0#", "+ 0" };
static const char *const widths[] = { "", "1", "7", "25", "*" };
static const char *const precisions[] = { "", ".", ".0", ".3", ".12", ".*" };

/* Builds "<%flags width prec len conv>" into buf. */
static void
make_spec(char *buf, size_t size, const char *flags, const char *width, const char *prec,
    const char *len, char conv)
{
	snprintf(buf, size, "<%%%s%s%s%s%c>", flags, width, prec, len, conv);
}

/* Calls check with the '*' arguments the spec takes, then the value. */
#define CHECK_STARS(fmt, w, p, v) do { \
	bool ws_ = strchr(w, '*') != NULL, ps_ = strchr(p, '*') != NULL; \
	if (ws_ && ps_) check(fmt, 9, 4, v); \
	else if (ws_) check(fmt, -11, v); \
	else if (ps_) check(fmt, 5, v); \
	else check(fmt, v); \
} while (0)

Test(log_format, integer_conversions_and_length_modifiers)
{
	static const char convs[] = "diouxX";
	static const char *const lens[] = { "", "hh", "h", "l", "ll", "j", "z", "t", "q", "L" };
	static const long long values[] = { 0, 1, -1, 42, 300, -129, 65537, INT_MAX, INT_MIN,
		LLONG_MAX, LLONG_MIN, 0x7f3a9c1e5b2dLL };
	char fmt[64];
	cases = failures = 0;
	for (size_t c = 0; c < sizeof convs - 1; c++)
	for (size_t l = 0; l < sizeof lens / sizeof *lens; l++)
	for (size_t f = 0; f < sizeof int_flags / sizeof *int_flags; f++)
	for (size_t w = 0; w < sizeof widths / sizeof *widths; w++)
	for (size_t p = 0; p < sizeof precisions / sizeof *precisions; p++) {
		make_spec(fmt, sizeof fmt, int_flags[f], widths[w], precisions[p], lens[l], convs[c]);
		for (size_t v = 0; v < sizeof values / sizeof *values; v++) {
			long long x = values[v];
			switch (l) {
			case 0: case 1: case 2: CHECK_STARS(fmt, widths[w], precisions[p], (int)x); break;
			case 3: CHECK_STARS(fmt, widths[w], precisions[p], (long)x); break;
			case 4: case 8: case 9: CHECK_STARS(fmt, widths[w], precisions[p], x); break;
			case 5: CHECK_STARS(fmt, widths[w], precisions[p], (intmax_t)x); break;
			case 6: CHECK_STARS(fmt, widths[w], precisions[p], (size_t)x); break;
			default: CHECK_STARS(fmt, widths[w], precisions[p], (ptrdiff_t)x); break;
			}
		}
	}
	cr_log_info("%ld integer cases", cases);
	cr_assert_gt(cases, 10000);
	cr_assert_eq(failures, 0, "%ld of %ld integer cases differ from snprintf", failures, cases);
}

Test(log_format, floating_conversions)
{
	static const char convs[] = "eEfFgGaA";
	static const char *const flags[] = { "", "-", "+", " ", "#", "0", "-+#", "'" };
	static const double values[] = { 0.0, -0.0, 1.5, -123.456, 3.14159265358979, 1e300, -1e-300,
		DBL_MIN, DBL_MAX, 5e-324, 123456789.0, 0.1 };
	char fmt[64];
	cases = failures = 0;
	for (size_t c = 0; c < sizeof convs - 1; c++)
	for (size_t f = 0; f < sizeof flags / sizeof *flags; f++)
	for (size_t w = 0; w < sizeof widths / sizeof *widths; w++)
	for (size_t p = 0; p < sizeof precisions / sizeof *precisions; p++) {
		for (int len = 0; len < 3; len++) {
			make_spec(fmt, sizeof fmt, flags[f], widths[w], precisions[p],
			    len == 0 ? "" : len == 1 ? "l" : "L", convs[c]);
			for (size_t v = 0; v < sizeof values / sizeof *values; v++) {
				if (len == 2)
					CHECK_STARS(fmt, widths[w], precisions[p], (long double)values[v]);
				else
					CHECK_STARS(fmt, widths[w], precisions[p], values[v]);
			}
			if (len == 2) {
				CHECK_STARS(fmt, widths[w], precisions[p], LDBL_MAX);
				CHECK_STARS(fmt, widths[w], precisions[p], -LDBL_MIN);
			} else {
				CHECK_STARS(fmt, widths[w], precisions[p], (double)INFINITY);
				CHECK_STARS(fmt, widths[w], precisions[p], (double)-INFINITY);
				CHECK_STARS(fmt, widths[w], precisions[p], (double)NAN);
			}
		}
	}
	cr_log_info("%ld floating cases", cases);
	cr_assert_gt(cases, 10000);
	cr_assert_eq(failures, 0, "%ld of %ld floating cases differ from snprintf", failures, cases);
}

Test(log_format, strings_chars_pointers_and_literals)
{
	static const char *const flags[] = { "", "-", "0", "#" };
	const char *volatile null_string = NULL;
	const char *strings[] = { "", "a", "abc", "hello, world", "0123456789012345678901234567890123456789",
		"tab\there", "utf-8 \xc3\xa9t\xc3\xa9", NULL };
	strings[7] = null_string;
	static const char *const precs[] = { "", ".", ".0", ".3", ".5", ".6", ".7", ".40", ".*" };
	char fmt[64];
	cases = failures = 0;
	for (size_t f = 0; f < sizeof flags / sizeof *flags; f++)
	for (size_t w = 0; w < sizeof widths / sizeof *widths; w++) {
		for (size_t p = 0; p < sizeof precs / sizeof *precs; p++) {
			make_spec(fmt, sizeof fmt, flags[f], widths[w], precs[p], "", 's');
			for (size_t s = 0; s < sizeof strings / sizeof *strings; s++)
				CHECK_STARS(fmt, widths[w], precs[p], strings[s]);
		}
		make_spec(fmt, sizeof fmt, flags[f], widths[w], "", "", 'c');
		for (int ch = 1; ch < 256; ch += 17)
			CHECK_STARS(fmt, widths[w], "", ch);
		make_spec(fmt, sizeof fmt, flags[f], widths[w], "", "", 'p');
		int local;
		CHECK_STARS(fmt, widths[w], "", (void *)NULL);
		CHECK_STARS(fmt, widths[w], "", (void *)&local);
		CHECK_STARS(fmt, widths[w], "", (void *)(uintptr_t)0xdeadbeefULL);
	}
	/* NULL strings with '*' precisions below and above "(null)"'s length. */
	for (int prec = -1; prec < 9; prec++)
		check("[%.*s][%-*.*s]", prec, null_string, 9, prec, null_string);
	check("100%% sure, %d%%", 5);
	check("no conversions at all");
	check("");
	check("%c", 0);  /* a NUL character inside the text */
	errno = ENOENT;
	check("%m|%-30m|%.5m|%40m|");
	errno = 0;
	check("%m");
	check("%s %d %s %f %s %c %s", "a", 1, "bb", 2.5, "ccc", 'x', "dddd");
	cr_log_info("%ld string/char/pointer cases", cases);
	cr_assert_gt(cases, 800);
	cr_assert_eq(failures, 0, "%ld of %ld cases differ from snprintf", failures, cases);
}

Test(log_format, huge_widths_and_precisions)
{
	enum { SIZE = 300000 };
	char *want = malloc(SIZE), *got = malloc(SIZE);
	cr_assert(want != NULL && got != NULL);
	const char *long_string = "abcdefghijklmnopqrstuvwxyz";
#define HUGE_CHECK(...) do { \
	int nw_ = snprintf(want, SIZE, __VA_ARGS__); \
	int ng_ = sr_fmt_snprintf(got, SIZE, 0, __VA_ARGS__); \
	cr_assert_eq(nw_, ng_, "lengths differ for %s", #__VA_ARGS__); \
	cr_assert_eq(memcmp(want, got, (size_t)nw_ < SIZE ? (size_t)nw_ : SIZE - 1), 0, \
	    "texts differ for %s", #__VA_ARGS__); \
} while (0)
	HUGE_CHECK("%100000d|", 42);
	HUGE_CHECK("%-100000d|", -42);
	HUGE_CHECK("%.100000d|", 7);
	HUGE_CHECK("%*.*s|", 150000, 10, long_string);
	HUGE_CHECK("%.5000f", 1e300);
	HUGE_CHECK("%.20000Lf", (long double)1.0 / 3);
	HUGE_CHECK("%200000.3e|", 2.5);
	HUGE_CHECK("%.*d", 250000, 1);
	/* Cut by the output buffer: the length is still snprintf's. */
	char small[16];
	int n = sr_fmt_snprintf(small, sizeof small, 0, "%50000d", 1);
	cr_assert_eq(n, 50000);
	cr_assert_eq(strlen(small), sizeof small - 1);
	free(want);
	free(got);
}

/*
 * The worst widths and precisions a caller can pass: the renderer clamps them
 * to the line (here the buffer), keeps the true text's beginning and length,
 * and makes snprintf produce a bounded count of bytes, not INT_MAX of them.
 */
Test(log_format, hostile_widths_and_precisions_are_clamped)
{
	enum { SIZE = 65536 };
	/* What snprintf may produce for one conversion: twice the line, the slack and a number. */
	const unsigned long long bound = 2ULL * (SIZE + 5000 + 5000);
	char *out = malloc(SIZE);
	cr_assert_not_null(out);
	unsigned long long before;
	int n;

#define WORK_OF(call) (before = sr_fmt__render_work(), (call), sr_fmt__render_work() - before)
	/* Right-justified: only padding fits, the length is the true one. */
	cr_expect_leq(WORK_OF(n = sr_fmt_snprintf(out, SIZE, 0, "[%*d]", INT_MAX, 42)), bound);
	cr_expect_eq(n, -1, "%d: the true text has INT_MAX + 2 bytes, more than an int counts", n);
	cr_expect_eq(strlen(out), SIZE - 1);
	cr_expect(out[0] == '[' && strspn(out + 1, " ") == SIZE - 2, "only padding is kept");
	cr_expect_leq(WORK_OF(n = sr_fmt_snprintf(out, SIZE, 0, "%*d", INT_MAX, 42)), bound);
	cr_expect_eq(n, INT_MAX);
	/* The same width written in the format. */
	cr_expect_leq(WORK_OF(n = sr_fmt_snprintf(out, SIZE, 0, "%2147483647d", 42)), bound);
	cr_expect_eq(n, INT_MAX);
	cr_expect_eq(strspn(out, " "), SIZE - 1);
	/* Negative widths justify left; INT_MIN's magnitude does not fit an int. */
	cr_expect_leq(WORK_OF(n = sr_fmt_snprintf(out, SIZE, 0, "%*d|", -INT_MAX, -7)), bound);
	cr_expect_eq(n, -1, "INT_MAX + 1 bytes");
	cr_expect(strncmp(out, "-7 ", 3) == 0 && strspn(out + 2, " ") == SIZE - 3, "%.8s", out);
	cr_expect_leq(WORK_OF(n = sr_fmt_snprintf(out, SIZE, 0, "%*ld", INT_MIN, 5L)), bound);
	cr_expect_eq(n, -1);
	cr_expect(out[0] == '5' && strspn(out + 1, " ") == SIZE - 2);
	cr_expect_leq(WORK_OF(n = sr_fmt_snprintf(out, SIZE, 0, "%0*d", INT_MAX - 1, -3)), bound);
	cr_expect_eq(n, INT_MAX - 1);
	cr_expect(out[0] == '-' && strspn(out + 1, "0") == SIZE - 2, "zeros after the sign");
	/* Precisions: the digits are the true ones, as far as the line goes. */
	cr_expect_leq(WORK_OF(n = sr_fmt_snprintf(out, SIZE, 0, "%.*f", INT_MAX, 1.0 / 3)), bound);
	cr_expect_eq(n, -1);
	cr_expect(strncmp(out, "0.333333333333333314829616256247", 32) == 0, "%.40s", out);
	cr_expect_eq(strlen(out), SIZE - 1);
	cr_expect_leq(WORK_OF(n = sr_fmt_snprintf(out, SIZE, 0, "%.*Lf", INT_MAX, 2.5L)), bound);
	cr_expect(strncmp(out, "2.5000", 6) == 0 && strspn(out + 2, "50") == SIZE - 3);
	cr_expect_leq(WORK_OF(n = sr_fmt_snprintf(out, SIZE, 0, "%.*e", INT_MAX - 10, 1.0)), bound);
	cr_expect(strncmp(out, "1.000", 5) == 0);
	cr_expect_leq(WORK_OF(n = sr_fmt_snprintf(out, SIZE, 0, "%.*d", INT_MAX - 1, 9)), bound);
	cr_expect_eq(n, INT_MAX - 1);
	cr_expect_eq(strspn(out, "0"), SIZE - 1);
	/* %g keeps its style and its digits: a double's exact value fits under the clamp. */
	cr_expect_leq(WORK_OF(n = sr_fmt_snprintf(out, SIZE, 0, "%.*g|", INT_MAX, 0.1)), bound);
	char want[2048];
	cr_expect_eq(n, snprintf(want, sizeof want, "%.2000g|", 0.1));
	cr_expect_str_eq(out, want);
	/* Both at once: the digits outgrow the width, which pads nothing, as in snprintf. */
	cr_expect_leq(WORK_OF(n = sr_fmt_snprintf(out, SIZE, 0, "%*.*f %s", INT_MAX, INT_MAX, 1.0, "end")),
	    bound);
	cr_expect(strncmp(out, "1.000", 5) == 0 && strspn(out + 2, "0") == SIZE - 3, "%.8s", out);
	cr_expect_leq(WORK_OF(n = sr_fmt_snprintf(out, SIZE, 0, "%*.*f", INT_MAX, INT_MAX - 100, 1.0)),
	    bound);
	cr_expect_eq(n, INT_MAX);
	cr_expect_eq(strspn(out, " "), 98, "the true padding: %d - (INT_MAX - 100 + 2)", INT_MAX);
	/* A %s precision only bounds what is read. */
	cr_expect_eq(sr_fmt_snprintf(out, SIZE, 0, "[%.*s]", INT_MAX, "abc"), 5);
	cr_expect_str_eq(out, "[abc]");
#undef WORK_OF
	free(out);
}

/*
 * A clamped conversion whose length does not grow with its precision: an
 * infinity or a NaN (which ignore it), a NULL %p, %g (which strips its zeros:
 * %Lg's exact value has up to 11516 digits, more than the clamp's 5000).
 * And two that grow by a byte a digit, as integers and %e do: %#g and %p.
 * The length returned is snprintf's, the text kept its beginning.
 */
/* snprintf and sr_fmt_vsnprintf into `size` bytes: the same length and text. */
static void
check_cut(size_t size, const char *fmt, ...)
{
	char *want = malloc(size), *got = malloc(size);
	cr_assert(want != NULL && got != NULL);
	int nw, ng;
	va_list a;
	va_start(a, fmt);
	bool same = same_as_snprintf(want, got, size, &nw, &ng, fmt, a);
	va_end(a);
	cr_expect(same, "\"%s\" into %zu bytes: sr_fmt_snprintf returned %d \"%.40s\", snprintf %d \"%.40s\"",
	    fmt, size, ng, got, nw, want);
	free(got);
	free(want);
}

Test(log_format, clamped_precisions_keep_snprintf_length)
{
	enum { SIZE = 201 };
	/* The fuzzer's find: %.6389A of -NaN on a line already full. */
	check_cut(SIZE, "%*d %.6389A|", 250, 1, -NAN);
	check_cut(SIZE, "%.6389A|", -NAN);
	check_cut(SIZE, "%.6389a %.6389e %.6389E %.6389f %.6389F|", INFINITY, NAN, -INFINITY, NAN, INFINITY);
	check_cut(SIZE, "%.*Le|", INT_MAX, -(long double)INFINITY);
	check_cut(SIZE, "%.*La|", INT_MAX - 7, (long double)NAN);
	check_cut(SIZE, "%9000.6389f|", NAN);
	check_cut(SIZE, "%-*.*e|", 9000, 9000, INFINITY);
	check_cut(SIZE, "%.9999Lg|", LDBL_TRUE_MIN);
	check_cut(SIZE, "%.9999Lg|", LDBL_MIN);
	check_cut(SIZE, "%.9999LG|", -LDBL_TRUE_MIN * 3);
	check_cut(SIZE, "%.9999g|", 0.1);
	check_cut(SIZE, "%#.6389g|", 1.0);
	check_cut(SIZE, "%#.9999G|", 0.1);
	check_cut(SIZE, "%#.9999Lg|", LDBL_TRUE_MIN);
	check_cut(SIZE, "%.6389p|", (void *)1);
	check_cut(SIZE, "%.*p|", 9000, (void *)0x1234);
	check_cut(SIZE, "%.6389p|", (void *)0);
	/* Past what an int counts: -1 from the true length, not from the digits snprintf was given. */
	char got[SIZE];
	cr_expect_eq(sr_fmt_snprintf(got, SIZE, 0, "%.*f|", INT_MAX, NAN), 4);
	cr_expect_str_eq(got, "nan|");
	/* %Lg of the longest exact value: past it, any precision prints the same text. */
	char *exact = malloc(12000);
	cr_assert_not_null(exact);
	int ne = snprintf(exact, 12000, "%.11600Lg", LDBL_TRUE_MIN);
	cr_assert(ne > 11400 && ne < 12000, "%d", ne);
	unsigned long long before = sr_fmt__render_work();
	cr_expect_eq(sr_fmt_snprintf(got, SIZE, 0, "%.*Lg", INT_MAX, LDBL_TRUE_MIN), ne);
	cr_expect_leq(sr_fmt__render_work() - before, 2ULL * (unsigned)ne, "measured once, rendered once");
	cr_expect_eq(strncmp(got, exact, SIZE - 1), 0, "%.40s", got);
	free(exact);
}

/* One conversion of each value in a `size`-byte buffer; counts the cases that differ from snprintf. */
#define SWEEP(size, fmt, values) do { \
	for (size_t i_ = 0; i_ < sizeof (values) / sizeof (values)[0]; i_++) { \
		char *want_ = malloc(size), *got_ = malloc(size); \
		cr_assert(want_ != NULL && got_ != NULL); \
		int nw_ = snprintf(want_, size, fmt, (values)[i_]); \
		int ng_ = sr_fmt_snprintf(got_, size, 0, fmt, (values)[i_]); \
		size_t cmp_ = nw_ < 0 ? 0 : (size_t)nw_ < (size) ? (size_t)nw_ : (size) - 1; \
		cases++; \
		if ((nw_ != ng_ || memcmp(want_, got_, cmp_) != 0) && failures++ < 20) \
			cr_log_error("\"%s\" (value %zu) into %zu bytes: sr_fmt_snprintf returned %d, snprintf %d", \
			    fmt, i_, (size_t)(size), ng_, nw_); \
		free(got_); \
		free(want_); \
	} \
} while (0)

/*
 * Every conversion, flag set and special value with a precision past the
 * clamp (and a width past it, or none) on a line that is almost full: the
 * length returned is snprintf's, and so is the text kept.
 */
Test(log_format, clamped_precisions_every_conversion)
{
	static const char *const flags[] = { "", "#", "+", " ", "0", "-", "#0", "-+ #0" };
	static const char *const width[] = { "", "6000" };
	static const char *const size_suffix[] = { "", "L" };
	const double dv[] = { 0.0, -0.0, 0.1, -1e300, 4.9e-324, DBL_MAX, NAN, -NAN, INFINITY, -INFINITY };
	const long double lv[] = { 0.0L, 0.1L, LDBL_MAX, LDBL_MIN, LDBL_TRUE_MIN, -LDBL_TRUE_MIN * 12345,
	    NAN, -INFINITY, 1e-4000L };
	const int iv[] = { 0, -1, INT_MIN, INT_MAX };
	void *const pv[] = { NULL, (void *)1, (void *)~(uintptr_t)0 };
	char fmt[64];
	cases = failures = 0;
	for (const char *c = "diouxXcpeEfFgGaA"; *c != '\0'; c++) {
		bool floating = strchr("eEfFgGaA", *c) != NULL;
		for (size_t f = 0; f < sizeof flags / sizeof flags[0]; f++)
		for (size_t w = 0; w < sizeof width / sizeof width[0]; w++)
		for (size_t l = 0; l < (floating ? 2u : 1u); l++) {
			/* The line has 200 bytes: 5300 passes the 198 left plus the slack of 5000. */
			snprintf(fmt, sizeof fmt, "ab%%%s%s.5300%s%c|", flags[f], width[w], size_suffix[l], *c);
			if (floating && l == 0)
				SWEEP(201, fmt, dv);
			else if (floating)
				SWEEP(201, fmt, lv);
			else if (*c == 'p')
				SWEEP(201, fmt, pv);
			else
				SWEEP(201, fmt, iv);
		}
	}
	cr_log_info("%ld clamped cases", cases);
	cr_assert_gt(cases, 1500);
	cr_assert_eq(failures, 0, "%ld of %ld clamped cases differ from snprintf", failures, cases);
}
#undef SWEEP

Test(log_format, precision_bounds_what_is_read)
{
	/* Not NUL-terminated: reading past the precision would be a buffer overflow (ASan). */
	char *raw = malloc(4);
	memcpy(raw, "abcd", 4);
	char out[32];
	cr_assert_eq(sr_fmt_snprintf(out, sizeof out, 0, "[%.4s]", raw), 6);
	cr_assert_str_eq(out, "[abcd]");
	cr_assert_eq(sr_fmt_snprintf(out, sizeof out, 0, "[%.*s]", 3, raw), 5);
	cr_assert_str_eq(out, "[abc]");
	cr_assert_eq(sr_fmt_snprintf(out, sizeof out, 0, "[%8.2s]", raw), 10);
	cr_assert_str_eq(out, "[      ab]");
	free(raw);
}

Test(log_format, truncation_marker)
{
	enum { REC = 1024 };
	char big[5000];
	memset(big, 'x', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	char out[8192];
	int n = sr_fmt_snprintf(out, sizeof out, REC, "A[%s]B[%s]C[%d]", big, "short", 7);
	cr_assert_gt(n, 0);
	cr_assert_lt((size_t)n, (size_t)REC, "the text of a cut record stays under the record limit");
	cr_assert(strstr(out, "x" SR_FMT_TRUNCATION_MARKER "]B[short]C[7]") != NULL,
	    "the cut string ends with the marker and later arguments survive: %s", out);

	/* Two long strings: both cut, both marked, both visible. */
	n = sr_fmt_snprintf(out, sizeof out, REC, "%s|%s", big, big);
	char *first = strstr(out, SR_FMT_TRUNCATION_MARKER);
	cr_assert(first != NULL);
	cr_assert(strstr(first + 1, SR_FMT_TRUNCATION_MARKER) != NULL, "%s", out);
	cr_assert(strchr(out, '|') != NULL);

	/* A string that fits exactly is not cut. */
	n = sr_fmt_snprintf(out, sizeof out, 0, "%s", big);
	cr_assert_eq(n, (int)strlen(big));
	cr_assert(strstr(out, SR_FMT_TRUNCATION_MARKER) == NULL);

}

/* Gathers through a real va_list and checks the record size bound. */
static size_t
record_size(size_t limit, const char *fmt, ...)
{
	sr_fmt_sig sig;
	sr_fmt_gather g;
	cr_assert_eq(sr_fmt_parse(fmt, &sig, NULL, 0), SR_FMT_OK);
	va_list ap;
	va_start(ap, fmt);
	sr_fmt_gather_args(&g, &sig, limit, &ap);
	va_end(ap);
	return sr_fmt_fit(&g, 56, limit);
}

Test(log_format, records_fit_their_limit)
{
	char big[70000];
	memset(big, 'y', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	for (size_t limit = 1024; limit <= 65536; limit *= 2) {
		cr_assert_leq(record_size(limit, "%s", big), limit);
		cr_assert_leq(record_size(limit, "%s %s %s %d %Lf %s", big, "a", big + 60000, 3,
		    (long double)1, big + 100), limit);
	}
	/* Everything fits: exact size (56 header + 4 + 4 + 8 + "abc\0"). */
	cr_assert_eq(record_size(4096, "%d %s %f", 1, "abc", 2.0), 56 + 4 + 4 + 8 + 4);
}

Test(log_format, signature)
{
	sr_fmt_sig sig;
	cr_assert_eq(sr_fmt_parse("x=%d y=%f s=%s p=%p %*.*ld %%%m %Lg %hhu %.*s", &sig, NULL, 0), SR_FMT_OK);
	static const uint8_t want[] = { SR_FMT_ARG_INT, SR_FMT_ARG_DOUBLE, SR_FMT_ARG_STR, SR_FMT_ARG_PTR,
		SR_FMT_ARG_WIDTH, SR_FMT_ARG_PRECISION, SR_FMT_ARG_LONG, SR_FMT_ARG_LDOUBLE,
		SR_FMT_ARG_INT, SR_FMT_ARG_PRECISION, SR_FMT_ARG_STR };
	cr_assert_eq(sig.nargs, sizeof want);
	for (size_t i = 0; i < sizeof want; i++)
		cr_assert_eq(sig.type[i], want[i], "argument %zu", i);
	cr_assert_eq(sig.nstrings, 2);
	cr_assert_eq(sig.precision[2], SR_FMT_PREC_NONE);
	cr_assert_eq(sig.precision[10], SR_FMT_PREC_STAR);
	cr_assert_eq(sig.value_bytes, 4 + 8 + 4 + 8 + 4 + 4 + 8 + 16 + 4 + 4 + 4);
	cr_assert_eq(sr_fmt_parse("%.7s", &sig, NULL, 0), SR_FMT_OK);
	cr_assert_eq(sig.precision[0], 7);
}

Test(log_format, refused_formats_name_the_conversion)
{
	static const struct {
		const char *fmt;
		int error;
		const char *names;
	} bad[] = {
		{ "count%n", SR_FMT_E_N, "'%n' is refused" },
		{ "x %hhn", SR_FMT_E_N, "'%hhn' is refused" },
		{ "wide %ls", SR_FMT_E_WIDE, "'%ls'" },
		{ "wide %lc", SR_FMT_E_WIDE, "'%lc'" },
		{ "wide %S", SR_FMT_E_WIDE, "'%S'" },
		{ "wide %C", SR_FMT_E_WIDE, "'%C'" },
		{ "pos %1$d", SR_FMT_E_POSITIONAL, "'%1$d'" },
		{ "pos %2$*1$d", SR_FMT_E_POSITIONAL, "'%2$" },
		{ "what %y", SR_FMT_E_UNSUPPORTED, "'%y' is not supported" },
		{ "binary %b", SR_FMT_E_UNSUPPORTED, "'%b'" },
		{ "bad length %hf", SR_FMT_E_UNSUPPORTED, "'%hf'" },
		{ "bad length %lls", SR_FMT_E_UNSUPPORTED, "'%lls'" },
		{ "bad length %zp", SR_FMT_E_UNSUPPORTED, "'%zp'" },
		{ "percent %5%", SR_FMT_E_UNSUPPORTED, "'%5%'" },
		{ "end %", SR_FMT_E_INCOMPLETE, "'%' is incomplete" },
		{ "end %-08.", SR_FMT_E_INCOMPLETE, "'%-08.'" },
		{ "width %99999999999d", SR_FMT_E_RANGE, "above" },
		{ "prec %.3000000000f", SR_FMT_E_RANGE, "above" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		sr_fmt_sig sig;
		char msg[200];
		int e = sr_fmt_parse(bad[i].fmt, &sig, msg, sizeof msg);
		cr_expect_eq(e, bad[i].error, "\"%s\": error %d, expected %d (%s)", bad[i].fmt, e,
		    bad[i].error, msg);
		cr_expect_eq(sig.error, bad[i].error);
		cr_expect_eq(sig.nargs, 0, "a refused format has no signature");
		cr_expect(strstr(msg, bad[i].names) != NULL, "\"%s\": message \"%s\" should contain \"%s\"",
		    bad[i].fmt, msg, bad[i].names);
		char out[300];
		cr_expect_eq(sr_fmt_snprintf(out, sizeof out, 0, bad[i].fmt, 1, 2, 3), -1);
		cr_expect(strstr(out, "format error") != NULL, "%s", out);
	}
	/* Too many arguments. */
	char fmt[200] = "";
	for (int i = 0; i <= SR_SITE_MAX_ARGS; i++)
		strcat(fmt, "%d");
	sr_fmt_sig sig;
	char msg[200];
	cr_assert_eq(sr_fmt_parse(fmt, &sig, msg, sizeof msg), SR_FMT_E_TOO_MANY);
	cr_assert(strstr(msg, "more than 32 arguments") != NULL, "%s", msg);
	fmt[strlen(fmt) - 2] = '\0';
	cr_assert_eq(sr_fmt_parse(fmt, &sig, NULL, 0), SR_FMT_OK);
	cr_assert_eq(sig.nargs, SR_SITE_MAX_ARGS);
	cr_assert_eq(sr_fmt_parse(NULL, &sig, msg, sizeof msg), SR_FMT_E_UNSUPPORTED);
	cr_assert(strstr(msg, "NULL") != NULL);
}

Test(log_format, site_parsed_once)
{
	static sr_site site = { .format = "a=%d b=%s", .file = "dir/sub/file.c", .line = 7 };
	sr_fmt_sig scratch;
	const sr_fmt_sig *sig = sr_site_sig(&site, &scratch);
	cr_assert_eq(sig, &site.sig, "the first caller parses into the site");
	cr_assert_eq(sr_atomic_load_acquire_i32(&site.state), SR_SITE_READY);
	cr_assert_eq(sig->nargs, 2);
	cr_assert_eq(sr_site_sig(&site, &scratch), &site.sig);
	cr_assert_str_eq(sr_site_file_base(&site), "file.c");
	/* A site being parsed by another thread: this one parses into its scratch. */
	static sr_site busy = { .format = "%d", .file = "f.c" };
	sr_atomic_store_release_i32(&busy.state, SR_SITE_PARSING);
	sig = sr_site_sig(&busy, &scratch);
	cr_assert_eq(sig, &scratch);
	cr_assert_eq(sig->nargs, 1);
}

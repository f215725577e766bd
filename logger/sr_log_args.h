/*
 * sr_log_args.h: the arguments of a log macro, typed at compile time.
 *
 * A logging macro (sr_log.h) turns each argument after the format into an
 * sr_log_arg by its C type, with C11 _Generic: integers up to 32 bits (and
 * char, short, _Bool, enums) as a 4-byte int, longer ones as 8 bytes,
 * float and double as a double, long double as itself, character pointers
 * as a string (or, where the format says %p, a pointer), any other pointer
 * as a pointer.  Each argument is evaluated once, where the array is built;
 * the macro hands the array to sr_log__emit_args, which copies the values
 * into the record in one pass: no va_list, no second walk.  The compiler
 * still checks the format against the arguments (sr_log__format_check, a
 * prototype named in an unevaluated sizeof, never called).
 *
 * At most SR_SITE_MAX_ARGS arguments after the format; more is a compile
 * error.  A type that is neither arithmetic nor a pointer (a struct) is a
 * compile error too, as it is undefined for printf.
 *
 * Part of the logging API (sr_log.h includes it); the names with two
 * underscores are for the macros only.
 */
#ifndef SR_LOG_ARGS_H
#define SR_LOG_ARGS_H

#include <float.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "sr_export.h"
#include "sr_log_category.h"
#include "sr_log_site.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One argument: its value and its kind (enum sr_fmt_arg: INT, LONG, DOUBLE, LDOUBLE, PTR, STR). */
typedef struct sr_log_arg {
	union {
		int64_t i;          /* INT (sign- or zero-extended) and LONG */
		double d;
		unsigned char ld[16]; /* LDOUBLE: the long double's bytes (no long double in the union: its ABI note) */
		const void *p;
		const char *s;      /* STR: a string for %s, a pointer for %p */
	} v;
	uint8_t kind;
} sr_log_arg;

static inline sr_log_arg
sr_log__arg_int(int x)
{
	sr_log_arg a;
	a.v.i = x;
	a.kind = SR_FMT_ARG_INT;
	return a;
}

static inline sr_log_arg
sr_log__arg_uint(unsigned x)
{
	sr_log_arg a;
	a.v.i = (int64_t)x;
	a.kind = SR_FMT_ARG_INT;
	return a;
}

static inline sr_log_arg
sr_log__arg_long(long long x)
{
	sr_log_arg a;
	a.v.i = (int64_t)x;
	a.kind = SR_FMT_ARG_LONG;
	return a;
}

static inline sr_log_arg
sr_log__arg_ulong(unsigned long long x)
{
	sr_log_arg a;
	a.v.i = (int64_t)x;
	a.kind = SR_FMT_ARG_LONG;
	return a;
}

static inline sr_log_arg
sr_log__arg_double(double x)
{
	sr_log_arg a;
	a.v.d = x;
	a.kind = SR_FMT_ARG_DOUBLE;
	return a;
}

static inline sr_log_arg
sr_log__arg_ldouble(long double x)
{
	sr_log_arg a;
	/* x87's 80-bit format: 10 bytes of value, the rest padding (zeroed: records are deterministic). */
	size_t bytes = LDBL_MANT_DIG == 64 ? 10 : (sizeof x < sizeof a.v.ld ? sizeof x : sizeof a.v.ld);
	memset(a.v.ld, 0, sizeof a.v.ld);
	memcpy(a.v.ld, &x, bytes);
	a.kind = SR_FMT_ARG_LDOUBLE;
	return a;
}

static inline sr_log_arg
sr_log__arg_str(const void *x)
{
	sr_log_arg a;
	a.v.s = (const char *)x;
	a.kind = SR_FMT_ARG_STR;
	return a;
}

static inline sr_log_arg
sr_log__arg_ptr(const volatile void *x)
{
	sr_log_arg a;
	a.v.p = (const void *)(uintptr_t)x;
	a.kind = SR_FMT_ARG_PTR;
	return a;
}

/* An argument as an sr_log_arg, by its type (evaluated once). */
#define SR_LOG__ARG(x) _Generic((x), \
	_Bool: sr_log__arg_int, char: sr_log__arg_int, signed char: sr_log__arg_int, \
	unsigned char: sr_log__arg_int, short: sr_log__arg_int, unsigned short: sr_log__arg_int, \
	int: sr_log__arg_int, unsigned: sr_log__arg_uint, \
	long: sr_log__arg_long, unsigned long: sr_log__arg_ulong, \
	long long: sr_log__arg_long, unsigned long long: sr_log__arg_ulong, \
	float: sr_log__arg_double, double: sr_log__arg_double, long double: sr_log__arg_ldouble, \
	char *: sr_log__arg_str, const char *: sr_log__arg_str, \
	signed char *: sr_log__arg_str, const signed char *: sr_log__arg_str, \
	unsigned char *: sr_log__arg_str, const unsigned char *: sr_log__arg_str, \
	default: sr_log__arg_ptr)(x)

/* The number of arguments after the format (0 to 32), by counting __VA_ARGS__. */
#define SR_LOG__NARGS(...) SR_LOG__NARGS_(__VA_ARGS__, 32,31,30,29,28,27,26,25,24,23,22,21,20,19,18,17,16,15,14,13,12,11,10,9,8,7,6,5,4,3,2,1,0, 0)
#define SR_LOG__NARGS_(_0,_1,_2,_3,_4,_5,_6,_7,_8,_9,_10,_11,_12,_13,_14,_15,_16,_17,_18,_19,_20,_21,_22,_23,_24,_25,_26,_27,_28,_29,_30,_31,_32, n, ...) n
#define SR_LOG__CAT(a, b) SR_LOG__CAT_(a, b)
#define SR_LOG__CAT_(a, b) a##b
/* ", SR_LOG__ARG(a)" for each argument after the format. */
#define SR_LOG__ARGS(...) SR_LOG__CAT(SR_LOG__ARGS_, SR_LOG__NARGS(__VA_ARGS__))(__VA_ARGS__)
#define SR_LOG__ARGS_0(f)
#define SR_LOG__ARGS_1(f, a1) , SR_LOG__ARG(a1)
#define SR_LOG__ARGS_2(f, a1, a2) , SR_LOG__ARG(a1) , SR_LOG__ARG(a2)
#define SR_LOG__ARGS_3(f, a1, a2, a3) , SR_LOG__ARG(a1) , SR_LOG__ARG(a2) , SR_LOG__ARG(a3)
#define SR_LOG__ARGS_4(f, a1, a2, a3, a4) , SR_LOG__ARG(a1) , SR_LOG__ARG(a2) , SR_LOG__ARG(a3) , SR_LOG__ARG(a4)
#define SR_LOG__ARGS_5(f, a1, a2, a3, a4, a5) , SR_LOG__ARG(a1) , SR_LOG__ARG(a2) , SR_LOG__ARG(a3) , SR_LOG__ARG(a4) , SR_LOG__ARG(a5)
#define SR_LOG__ARGS_6(f, a1, a2, a3, a4, a5, a6) , SR_LOG__ARG(a1) , SR_LOG__ARG(a2) , SR_LOG__ARG(a3) , SR_LOG__ARG(a4) , SR_LOG__ARG(a5) , SR_LOG__ARG(a6)
#define SR_LOG__ARGS_7(f, a1, a2, a3, a4, a5, a6, a7) , SR_LOG__ARG(a1) , SR_LOG__ARG(a2) , SR_LOG__ARG(a3) , SR_LOG__ARG(a4) , SR_LOG__ARG(a5) , SR_LOG__ARG(a6) , SR_LOG__ARG(a7)
#define SR_LOG__ARGS_8(f, a1, a2, a3, a4, a5, a6, a7, a8) , SR_LOG__ARG(a1) , SR_LOG__ARG(a2) , SR_LOG__ARG(a3) , SR_LOG__ARG(a4) , SR_LOG__ARG(a5) , SR_LOG__ARG(a6) , SR_LOG__ARG(a7) , SR_LOG__ARG(a8)
#define SR_LOG__ARGS_9(f, a1, a2, a3, a4, a5, a6, a7, a8, a9) , SR_LOG__ARG(a1) , SR_LOG__ARG(a2) , SR_LOG__ARG(a3) , SR_LOG__ARG(a4) , SR_LOG__ARG(a5) , SR_LOG__ARG(a6) , SR_LOG__ARG(a7) , SR_LOG__ARG(a8) , SR_LOG__ARG(a9)
#define SR_LOG__ARGS_10(f, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10) , SR_LOG__ARG(a1) , SR_LOG__ARG(a2) , SR_LOG__ARG(a3) , SR_LOG__ARG(a4) , SR_LOG__ARG(a5) , SR_LOG__ARG(a6) , SR_LOG__ARG(a7) , SR_LOG__ARG(a8) , SR_LOG__ARG(a9) , SR_LOG__ARG(a10)
#define SR_LOG__ARGS_11(f, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11) , SR_LOG__ARG(a1) , SR_LOG__ARG(a2) , SR_LOG__ARG(a3) , SR_LOG__ARG(a4) , SR_LOG__ARG(a5) , SR_LOG__ARG(a6) , SR_LOG__ARG(a7) , SR_LOG__ARG(a8) , SR_LOG__ARG(a9) , SR_LOG__ARG(a10) , SR_LOG__ARG(a11)
#define SR_LOG__ARGS_12(f, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12) , SR_LOG__ARG(a1) , SR_LOG__ARG(a2) , SR_LOG__ARG(a3) , SR_LOG__ARG(a4) , SR_LOG__ARG(a5) , SR_LOG__ARG(a6) , SR_LOG__ARG(a7) , SR_LOG__ARG(a8) , SR_LOG__ARG(a9) , SR_LOG__ARG(a10) , SR_LOG__ARG(a11) , SR_LOG__ARG(a12)
#define SR_LOG__ARGS_13(f, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13) , SR_LOG__ARG(a1) , SR_LOG__ARG(a2) , SR_LOG__ARG(a3) , SR_LOG__ARG(a4) , SR_LOG__ARG(a5) , SR_LOG__ARG(a6) , SR_LOG__ARG(a7) , SR_LOG__ARG(a8) , SR_LOG__ARG(a9) , SR_LOG__ARG(a10) , SR_LOG__ARG(a11) , SR_LOG__ARG(a12) , SR_LOG__ARG(a13)
#define SR_LOG__ARGS_14(f, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14) , SR_LOG__ARG(a1) , SR_LOG__ARG(a2) , SR_LOG__ARG(a3) , SR_LOG__ARG(a4) , SR_LOG__ARG(a5) , SR_LOG__ARG(a6) , SR_LOG__ARG(a7) , SR_LOG__ARG(a8) , SR_LOG__ARG(a9) , SR_LOG__ARG(a10) , SR_LOG__ARG(a11) , SR_LOG__ARG(a12) , SR_LOG__ARG(a13) , SR_LOG__ARG(a14)
#define SR_LOG__ARGS_15(f, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15) , SR_LOG__ARG(a1) , SR_LOG__ARG(a2) , SR_LOG__ARG(a3) , SR_LOG__ARG(a4) , SR_LOG__ARG(a5) , SR_LOG__ARG(a6) , SR_LOG__ARG(a7) , SR_LOG__ARG(a8) , SR_LOG__ARG(a9) , SR_LOG__ARG(a10) , SR_LOG__ARG(a11) , SR_LOG__ARG(a12) , SR_LOG__ARG(a13) , SR_LOG__ARG(a14) , SR_LOG__ARG(a15)
#define SR_LOG__ARGS_16(f, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16) , SR_LOG__ARG(a1) , SR_LOG__ARG(a2) , SR_LOG__ARG(a3) , SR_LOG__ARG(a4) , SR_LOG__ARG(a5) , SR_LOG__ARG(a6) , SR_LOG__ARG(a7) , SR_LOG__ARG(a8) , SR_LOG__ARG(a9) , SR_LOG__ARG(a10) , SR_LOG__ARG(a11) , SR_LOG__ARG(a12) , SR_LOG__ARG(a13) , SR_LOG__ARG(a14) , SR_LOG__ARG(a15) , SR_LOG__ARG(a16)
#define SR_LOG__ARGS_17(f, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17) , SR_LOG__ARG(a1) , SR_LOG__ARG(a2) , SR_LOG__ARG(a3) , SR_LOG__ARG(a4) , SR_LOG__ARG(a5) , SR_LOG__ARG(a6) , SR_LOG__ARG(a7) , SR_LOG__ARG(a8) , SR_LOG__ARG(a9) , SR_LOG__ARG(a10) , SR_LOG__ARG(a11) , SR_LOG__ARG(a12) , SR_LOG__ARG(a13) , SR_LOG__ARG(a14) , SR_LOG__ARG(a15) , SR_LOG__ARG(a16) , SR_LOG__ARG(a17)
#define SR_LOG__ARGS_18(f, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18) , SR_LOG__ARG(a1) , SR_LOG__ARG(a2) , SR_LOG__ARG(a3) , SR_LOG__ARG(a4) , SR_LOG__ARG(a5) , SR_LOG__ARG(a6) , SR_LOG__ARG(a7) , SR_LOG__ARG(a8) , SR_LOG__ARG(a9) , SR_LOG__ARG(a10) , SR_LOG__ARG(a11) , SR_LOG__ARG(a12) , SR_LOG__ARG(a13) , SR_LOG__ARG(a14) , SR_LOG__ARG(a15) , SR_LOG__ARG(a16) , SR_LOG__ARG(a17) , SR_LOG__ARG(a18)
#define SR_LOG__ARGS_19(f, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19) , SR_LOG__ARG(a1) , SR_LOG__ARG(a2) , SR_LOG__ARG(a3) , SR_LOG__ARG(a4) , SR_LOG__ARG(a5) , SR_LOG__ARG(a6) , SR_LOG__ARG(a7) , SR_LOG__ARG(a8) , SR_LOG__ARG(a9) , SR_LOG__ARG(a10) , SR_LOG__ARG(a11) , SR_LOG__ARG(a12) , SR_LOG__ARG(a13) , SR_LOG__ARG(a14) , SR_LOG__ARG(a15) , SR_LOG__ARG(a16) , SR_LOG__ARG(a17) , SR_LOG__ARG(a18) , SR_LOG__ARG(a19)
#define SR_LOG__ARGS_20(f, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19, a20) , SR_LOG__ARG(a1) , SR_LOG__ARG(a2) , SR_LOG__ARG(a3) , SR_LOG__ARG(a4) , SR_LOG__ARG(a5) , SR_LOG__ARG(a6) , SR_LOG__ARG(a7) , SR_LOG__ARG(a8) , SR_LOG__ARG(a9) , SR_LOG__ARG(a10) , SR_LOG__ARG(a11) , SR_LOG__ARG(a12) , SR_LOG__ARG(a13) , SR_LOG__ARG(a14) , SR_LOG__ARG(a15) , SR_LOG__ARG(a16) , SR_LOG__ARG(a17) , SR_LOG__ARG(a18) , SR_LOG__ARG(a19) , SR_LOG__ARG(a20)
#define SR_LOG__ARGS_21(f, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19, a20, a21) , SR_LOG__ARG(a1) , SR_LOG__ARG(a2) , SR_LOG__ARG(a3) , SR_LOG__ARG(a4) , SR_LOG__ARG(a5) , SR_LOG__ARG(a6) , SR_LOG__ARG(a7) , SR_LOG__ARG(a8) , SR_LOG__ARG(a9) , SR_LOG__ARG(a10) , SR_LOG__ARG(a11) , SR_LOG__ARG(a12) , SR_LOG__ARG(a13) , SR_LOG__ARG(a14) , SR_LOG__ARG(a15) , SR_LOG__ARG(a16) , SR_LOG__ARG(a17) , SR_LOG__ARG(a18) , SR_LOG__ARG(a19) , SR_LOG__ARG(a20) , SR_LOG__ARG(a21)
#define SR_LOG__ARGS_22(f, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19, a20, a21, a22) , SR_LOG__ARG(a1) , SR_LOG__ARG(a2) , SR_LOG__ARG(a3) , SR_LOG__ARG(a4) , SR_LOG__ARG(a5) , SR_LOG__ARG(a6) , SR_LOG__ARG(a7) , SR_LOG__ARG(a8) , SR_LOG__ARG(a9) , SR_LOG__ARG(a10) , SR_LOG__ARG(a11) , SR_LOG__ARG(a12) , SR_LOG__ARG(a13) , SR_LOG__ARG(a14) , SR_LOG__ARG(a15) , SR_LOG__ARG(a16) , SR_LOG__ARG(a17) , SR_LOG__ARG(a18) , SR_LOG__ARG(a19) , SR_LOG__ARG(a20) , SR_LOG__ARG(a21) , SR_LOG__ARG(a22)
#define SR_LOG__ARGS_23(f, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19, a20, a21, a22, a23) , SR_LOG__ARG(a1) , SR_LOG__ARG(a2) , SR_LOG__ARG(a3) , SR_LOG__ARG(a4) , SR_LOG__ARG(a5) , SR_LOG__ARG(a6) , SR_LOG__ARG(a7) , SR_LOG__ARG(a8) , SR_LOG__ARG(a9) , SR_LOG__ARG(a10) , SR_LOG__ARG(a11) , SR_LOG__ARG(a12) , SR_LOG__ARG(a13) , SR_LOG__ARG(a14) , SR_LOG__ARG(a15) , SR_LOG__ARG(a16) , SR_LOG__ARG(a17) , SR_LOG__ARG(a18) , SR_LOG__ARG(a19) , SR_LOG__ARG(a20) , SR_LOG__ARG(a21) , SR_LOG__ARG(a22) , SR_LOG__ARG(a23)
#define SR_LOG__ARGS_24(f, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19, a20, a21, a22, a23, a24) , SR_LOG__ARG(a1) , SR_LOG__ARG(a2) , SR_LOG__ARG(a3) , SR_LOG__ARG(a4) , SR_LOG__ARG(a5) , SR_LOG__ARG(a6) , SR_LOG__ARG(a7) , SR_LOG__ARG(a8) , SR_LOG__ARG(a9) , SR_LOG__ARG(a10) , SR_LOG__ARG(a11) , SR_LOG__ARG(a12) , SR_LOG__ARG(a13) , SR_LOG__ARG(a14) , SR_LOG__ARG(a15) , SR_LOG__ARG(a16) , SR_LOG__ARG(a17) , SR_LOG__ARG(a18) , SR_LOG__ARG(a19) , SR_LOG__ARG(a20) , SR_LOG__ARG(a21) , SR_LOG__ARG(a22) , SR_LOG__ARG(a23) , SR_LOG__ARG(a24)
#define SR_LOG__ARGS_25(f, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19, a20, a21, a22, a23, a24, a25) , SR_LOG__ARG(a1) , SR_LOG__ARG(a2) , SR_LOG__ARG(a3) , SR_LOG__ARG(a4) , SR_LOG__ARG(a5) , SR_LOG__ARG(a6) , SR_LOG__ARG(a7) , SR_LOG__ARG(a8) , SR_LOG__ARG(a9) , SR_LOG__ARG(a10) , SR_LOG__ARG(a11) , SR_LOG__ARG(a12) , SR_LOG__ARG(a13) , SR_LOG__ARG(a14) , SR_LOG__ARG(a15) , SR_LOG__ARG(a16) , SR_LOG__ARG(a17) , SR_LOG__ARG(a18) , SR_LOG__ARG(a19) , SR_LOG__ARG(a20) , SR_LOG__ARG(a21) , SR_LOG__ARG(a22) , SR_LOG__ARG(a23) , SR_LOG__ARG(a24) , SR_LOG__ARG(a25)
#define SR_LOG__ARGS_26(f, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19, a20, a21, a22, a23, a24, a25, a26) , SR_LOG__ARG(a1) , SR_LOG__ARG(a2) , SR_LOG__ARG(a3) , SR_LOG__ARG(a4) , SR_LOG__ARG(a5) , SR_LOG__ARG(a6) , SR_LOG__ARG(a7) , SR_LOG__ARG(a8) , SR_LOG__ARG(a9) , SR_LOG__ARG(a10) , SR_LOG__ARG(a11) , SR_LOG__ARG(a12) , SR_LOG__ARG(a13) , SR_LOG__ARG(a14) , SR_LOG__ARG(a15) , SR_LOG__ARG(a16) , SR_LOG__ARG(a17) , SR_LOG__ARG(a18) , SR_LOG__ARG(a19) , SR_LOG__ARG(a20) , SR_LOG__ARG(a21) , SR_LOG__ARG(a22) , SR_LOG__ARG(a23) , SR_LOG__ARG(a24) , SR_LOG__ARG(a25) , SR_LOG__ARG(a26)
#define SR_LOG__ARGS_27(f, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19, a20, a21, a22, a23, a24, a25, a26, a27) , SR_LOG__ARG(a1) , SR_LOG__ARG(a2) , SR_LOG__ARG(a3) , SR_LOG__ARG(a4) , SR_LOG__ARG(a5) , SR_LOG__ARG(a6) , SR_LOG__ARG(a7) , SR_LOG__ARG(a8) , SR_LOG__ARG(a9) , SR_LOG__ARG(a10) , SR_LOG__ARG(a11) , SR_LOG__ARG(a12) , SR_LOG__ARG(a13) , SR_LOG__ARG(a14) , SR_LOG__ARG(a15) , SR_LOG__ARG(a16) , SR_LOG__ARG(a17) , SR_LOG__ARG(a18) , SR_LOG__ARG(a19) , SR_LOG__ARG(a20) , SR_LOG__ARG(a21) , SR_LOG__ARG(a22) , SR_LOG__ARG(a23) , SR_LOG__ARG(a24) , SR_LOG__ARG(a25) , SR_LOG__ARG(a26) , SR_LOG__ARG(a27)
#define SR_LOG__ARGS_28(f, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19, a20, a21, a22, a23, a24, a25, a26, a27, a28) , SR_LOG__ARG(a1) , SR_LOG__ARG(a2) , SR_LOG__ARG(a3) , SR_LOG__ARG(a4) , SR_LOG__ARG(a5) , SR_LOG__ARG(a6) , SR_LOG__ARG(a7) , SR_LOG__ARG(a8) , SR_LOG__ARG(a9) , SR_LOG__ARG(a10) , SR_LOG__ARG(a11) , SR_LOG__ARG(a12) , SR_LOG__ARG(a13) , SR_LOG__ARG(a14) , SR_LOG__ARG(a15) , SR_LOG__ARG(a16) , SR_LOG__ARG(a17) , SR_LOG__ARG(a18) , SR_LOG__ARG(a19) , SR_LOG__ARG(a20) , SR_LOG__ARG(a21) , SR_LOG__ARG(a22) , SR_LOG__ARG(a23) , SR_LOG__ARG(a24) , SR_LOG__ARG(a25) , SR_LOG__ARG(a26) , SR_LOG__ARG(a27) , SR_LOG__ARG(a28)
#define SR_LOG__ARGS_29(f, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19, a20, a21, a22, a23, a24, a25, a26, a27, a28, a29) , SR_LOG__ARG(a1) , SR_LOG__ARG(a2) , SR_LOG__ARG(a3) , SR_LOG__ARG(a4) , SR_LOG__ARG(a5) , SR_LOG__ARG(a6) , SR_LOG__ARG(a7) , SR_LOG__ARG(a8) , SR_LOG__ARG(a9) , SR_LOG__ARG(a10) , SR_LOG__ARG(a11) , SR_LOG__ARG(a12) , SR_LOG__ARG(a13) , SR_LOG__ARG(a14) , SR_LOG__ARG(a15) , SR_LOG__ARG(a16) , SR_LOG__ARG(a17) , SR_LOG__ARG(a18) , SR_LOG__ARG(a19) , SR_LOG__ARG(a20) , SR_LOG__ARG(a21) , SR_LOG__ARG(a22) , SR_LOG__ARG(a23) , SR_LOG__ARG(a24) , SR_LOG__ARG(a25) , SR_LOG__ARG(a26) , SR_LOG__ARG(a27) , SR_LOG__ARG(a28) , SR_LOG__ARG(a29)
#define SR_LOG__ARGS_30(f, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19, a20, a21, a22, a23, a24, a25, a26, a27, a28, a29, a30) , SR_LOG__ARG(a1) , SR_LOG__ARG(a2) , SR_LOG__ARG(a3) , SR_LOG__ARG(a4) , SR_LOG__ARG(a5) , SR_LOG__ARG(a6) , SR_LOG__ARG(a7) , SR_LOG__ARG(a8) , SR_LOG__ARG(a9) , SR_LOG__ARG(a10) , SR_LOG__ARG(a11) , SR_LOG__ARG(a12) , SR_LOG__ARG(a13) , SR_LOG__ARG(a14) , SR_LOG__ARG(a15) , SR_LOG__ARG(a16) , SR_LOG__ARG(a17) , SR_LOG__ARG(a18) , SR_LOG__ARG(a19) , SR_LOG__ARG(a20) , SR_LOG__ARG(a21) , SR_LOG__ARG(a22) , SR_LOG__ARG(a23) , SR_LOG__ARG(a24) , SR_LOG__ARG(a25) , SR_LOG__ARG(a26) , SR_LOG__ARG(a27) , SR_LOG__ARG(a28) , SR_LOG__ARG(a29) , SR_LOG__ARG(a30)
#define SR_LOG__ARGS_31(f, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19, a20, a21, a22, a23, a24, a25, a26, a27, a28, a29, a30, a31) , SR_LOG__ARG(a1) , SR_LOG__ARG(a2) , SR_LOG__ARG(a3) , SR_LOG__ARG(a4) , SR_LOG__ARG(a5) , SR_LOG__ARG(a6) , SR_LOG__ARG(a7) , SR_LOG__ARG(a8) , SR_LOG__ARG(a9) , SR_LOG__ARG(a10) , SR_LOG__ARG(a11) , SR_LOG__ARG(a12) , SR_LOG__ARG(a13) , SR_LOG__ARG(a14) , SR_LOG__ARG(a15) , SR_LOG__ARG(a16) , SR_LOG__ARG(a17) , SR_LOG__ARG(a18) , SR_LOG__ARG(a19) , SR_LOG__ARG(a20) , SR_LOG__ARG(a21) , SR_LOG__ARG(a22) , SR_LOG__ARG(a23) , SR_LOG__ARG(a24) , SR_LOG__ARG(a25) , SR_LOG__ARG(a26) , SR_LOG__ARG(a27) , SR_LOG__ARG(a28) , SR_LOG__ARG(a29) , SR_LOG__ARG(a30) , SR_LOG__ARG(a31)
#define SR_LOG__ARGS_32(f, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19, a20, a21, a22, a23, a24, a25, a26, a27, a28, a29, a30, a31, a32) , SR_LOG__ARG(a1) , SR_LOG__ARG(a2) , SR_LOG__ARG(a3) , SR_LOG__ARG(a4) , SR_LOG__ARG(a5) , SR_LOG__ARG(a6) , SR_LOG__ARG(a7) , SR_LOG__ARG(a8) , SR_LOG__ARG(a9) , SR_LOG__ARG(a10) , SR_LOG__ARG(a11) , SR_LOG__ARG(a12) , SR_LOG__ARG(a13) , SR_LOG__ARG(a14) , SR_LOG__ARG(a15) , SR_LOG__ARG(a16) , SR_LOG__ARG(a17) , SR_LOG__ARG(a18) , SR_LOG__ARG(a19) , SR_LOG__ARG(a20) , SR_LOG__ARG(a21) , SR_LOG__ARG(a22) , SR_LOG__ARG(a23) , SR_LOG__ARG(a24) , SR_LOG__ARG(a25) , SR_LOG__ARG(a26) , SR_LOG__ARG(a27) , SR_LOG__ARG(a28) , SR_LOG__ARG(a29) , SR_LOG__ARG(a30) , SR_LOG__ARG(a31) , SR_LOG__ARG(a32)

/* Never defined nor called: the macros name it in sizeof so that the compiler checks the format. */
int sr_log__format_check(const char *format, ...) __attribute__((format(printf, 1, 2)));

/*
 * What the macros call once the level passed: the hot path.  args holds the
 * n arguments after the site's format, in order.  Never call it with a site
 * whose format or argument types differ from its first call's.
 */
SR_API void sr_log__emit_args(sr_category *cat, sr_site *site, const sr_log_arg *args, int n);

#ifdef __cplusplus
}
#endif

#endif /* SR_LOG_ARGS_H */

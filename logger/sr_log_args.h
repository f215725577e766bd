/* SPDX-License-Identifier: Apache-2.0 */
/**
 * @file sr_log_args.h
 * @ingroup logger
 * @brief The arguments of a log macro, typed at compile time.
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
 * At most SR_SITE_MAX_ARGS (32) arguments after the format: a call with
 * more fails to compile, its error "a log call takes at most 32 arguments
 * after the format".  A type that is neither arithmetic nor a pointer (a
 * struct) is a compile error too, as it is undefined for printf.
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

/** @brief One argument: its value and its kind (enum sr_fmt_arg: INT, LONG, DOUBLE, LDOUBLE, PTR, STR). */
typedef struct sr_log_arg {
	/** the value, by kind */
	union {
		int64_t i;          /**< INT (sign- or zero-extended) and LONG */
		/** DOUBLE */
		double d;
		unsigned char ld[16]; /**< LDOUBLE: the long double's bytes (no long double in the union: its ABI note) */
		/** PTR */
		const void *p;
		const char *s;      /**< STR: a string for %s, a pointer for %p */
	} v;
	/** an enum sr_fmt_arg */
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

/*
 * The argument types the macros know, each with its converter and its kind
 * (enum sr_fmt_arg): M(type, converter, kind) for each.  Any other type is
 * a pointer (sr_log__arg_ptr, SR_FMT_ARG_PTR).
 */
#define SR_LOG__TYPES(M) \
	M(SR_LOG__BOOL, sr_log__arg_int, SR_FMT_ARG_INT) M(char, sr_log__arg_int, SR_FMT_ARG_INT) \
	M(signed char, sr_log__arg_int, SR_FMT_ARG_INT) M(unsigned char, sr_log__arg_int, SR_FMT_ARG_INT) \
	M(short, sr_log__arg_int, SR_FMT_ARG_INT) M(unsigned short, sr_log__arg_int, SR_FMT_ARG_INT) \
	M(int, sr_log__arg_int, SR_FMT_ARG_INT) M(unsigned, sr_log__arg_uint, SR_FMT_ARG_INT) \
	M(long, sr_log__arg_long, SR_FMT_ARG_LONG) M(unsigned long, sr_log__arg_ulong, SR_FMT_ARG_LONG) \
	M(long long, sr_log__arg_long, SR_FMT_ARG_LONG) \
	M(unsigned long long, sr_log__arg_ulong, SR_FMT_ARG_LONG) \
	M(float, sr_log__arg_double, SR_FMT_ARG_DOUBLE) M(double, sr_log__arg_double, SR_FMT_ARG_DOUBLE) \
	M(long double, sr_log__arg_ldouble, SR_FMT_ARG_LDOUBLE) \
	M(char *, sr_log__arg_str, SR_FMT_ARG_STR) M(const char *, sr_log__arg_str, SR_FMT_ARG_STR) \
	M(signed char *, sr_log__arg_str, SR_FMT_ARG_STR) \
	M(const signed char *, sr_log__arg_str, SR_FMT_ARG_STR) \
	M(unsigned char *, sr_log__arg_str, SR_FMT_ARG_STR) \
	M(const unsigned char *, sr_log__arg_str, SR_FMT_ARG_STR)

#ifndef __cplusplus

#define SR_LOG__BOOL _Bool
#define SR_LOG__CONVERTER_OF(type, converter, kind) type: converter,
#define SR_LOG__KIND_OF(type, converter, kind) type: kind,
/* _Generic is C11; GCC and clang accept it before C11 as an extension. */
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define SR_LOG__GENERIC _Generic
#else
#define SR_LOG__GENERIC __extension__ _Generic
#endif

/* An argument as an sr_log_arg, by its type (evaluated once). */
#define SR_LOG__ARG(x) SR_LOG__GENERIC((x), SR_LOG__TYPES(SR_LOG__CONVERTER_OF) default: sr_log__arg_ptr)(x)
/* The kind of an argument, by its type: a constant; x is not evaluated. */
#define SR_LOG__KIND(x) SR_LOG__GENERIC((x), SR_LOG__TYPES(SR_LOG__KIND_OF) default: SR_FMT_ARG_PTR)
/*
 * The length of a char * argument whose characters the compiler knows (a
 * string literal; with GCC also a const array), as a C++ logger's constexpr
 * length: a constant; -1 for any other argument (0 for a null one, which
 * sr_log__fast_measure tells by the pointer).  x is not evaluated:
 * __builtin_constant_p is false for an expression with side effects, and
 * the length is taken only when it is true.
 */
#if defined(__GNUC__)
#define SR_LOG__IS_CHARS(x) SR_LOG__GENERIC((x), char *: 1, const char *: 1, default: 0)
/* x as a char *, "" for a null one or another type (never a null argument to strlen: GCC warns). */
#define SR_LOG__CHARS(x) SR_LOG__CHARS_((SR_LOG__GENERIC((x), char *: (x), const char *: (x), default: "")))
#define SR_LOG__CHARS_(s) (s != NULL ? s : "")
#define SR_LOG__CONST_LEN(x) (SR_LOG__IS_CHARS(x) && __builtin_constant_p(__builtin_strlen(SR_LOG__CHARS(x))) ? \
	(int32_t)__builtin_strlen(SR_LOG__CHARS(x)) : -1)
#else
#define SR_LOG__CONST_LEN(x) (-1)
#endif

#else /* __cplusplus */

/*
 * C++ has no _Generic: overload resolution picks the same row of the table.  Every type of
 * the table is an exact match, so an argument of one of them takes its row; an enum takes
 * its promoted type's, an array or any other object pointer decays to the pointer row.
 * The kind is the size of the overload's tag, so SR_LOG__KIND is a constant and x is not
 * evaluated (sizeof), as with _Generic.
 */
#define SR_LOG__BOOL bool
extern "C++" {
template <int kind> struct sr_log__kind_tag { char size[kind]; };
#define SR_LOG__OVERLOAD_OF(type, converter, kind) \
	inline sr_log_arg sr_log__arg_of(type x) { return converter(x); } \
	sr_log__kind_tag<kind> sr_log__kind_of(type);
SR_LOG__TYPES(SR_LOG__OVERLOAD_OF)
inline sr_log_arg sr_log__arg_of(const volatile void *x) { return sr_log__arg_ptr(x); }
sr_log__kind_tag<SR_FMT_ARG_PTR> sr_log__kind_of(const volatile void *);
inline sr_log_arg sr_log__arg_of(decltype(nullptr)) { return sr_log__arg_ptr(nullptr); }
sr_log__kind_tag<SR_FMT_ARG_PTR> sr_log__kind_of(decltype(nullptr));
}

#define SR_LOG__ARG(x) sr_log__arg_of(x)
#define SR_LOG__KIND(x) ((unsigned char)sizeof(sr_log__kind_of(x)))
/* Measured at run time in C++ (no _Generic to tell a char * without evaluating x). */
#define SR_LOG__CONST_LEN(x) (-1)

#endif /* __cplusplus */

/*
 * The number of arguments after the format, by counting __VA_ARGS__: 0 to 32, and 33 for 33
 * up to 124, which SR_LOG__CHECK_NARGS refuses.  The 33 keeps the rest of SR_LOG well formed,
 * so that its static assertion is the only error a user reads.  124 fills the 127 arguments
 * C requires a compiler to take in one macro call (SR_LOG's category, level and format, then
 * 124); past it the count would be a user's argument pasted into a macro name, and the first
 * error the preprocessor's.
 */
#define SR_LOG__NARGS(...) SR_LOG__NARGS_(__VA_ARGS__, \
	33,33,33,33,33,33,33,33,33,33,33,33,33,33,33,33,33,33,33,33,33,33,33, \
	33,33,33,33,33,33,33,33,33,33,33,33,33,33,33,33,33,33,33,33,33,33,33, \
	33,33,33,33,33,33,33,33,33,33,33,33,33,33,33,33,33,33,33,33,33,33,33, \
	33,33,33,33,33,33,33,33,33,33,33,33,33,33,33,33,33,33,33,33,33,33,33, \
	32,31,30,29,28,27,26,25,24,23,22,21,20,19,18,17,16,15,14,13,12,11,10,9,8,7,6,5,4,3,2,1,0, 0)
#define SR_LOG__NARGS_( \
	_0,_1,_2,_3,_4,_5,_6,_7,_8,_9,_10,_11,_12,_13,_14,_15,_16,_17,_18,_19,_20,_21,_22,_23,_24, \
	_25,_26,_27,_28,_29,_30,_31,_32,_33,_34,_35,_36,_37,_38,_39,_40,_41,_42,_43,_44,_45,_46,_47,_48,_49, \
	_50,_51,_52,_53,_54,_55,_56,_57,_58,_59,_60,_61,_62,_63,_64,_65,_66,_67,_68,_69,_70,_71,_72,_73,_74, \
	_75,_76,_77,_78,_79,_80,_81,_82,_83,_84,_85,_86,_87,_88,_89,_90,_91,_92,_93,_94,_95,_96,_97,_98,_99, \
	_100,_101,_102,_103,_104,_105,_106,_107,_108,_109,_110,_111,_112,_113,_114,_115,_116,_117,_118,_119,_120,_121,_122,_123,_124, \
	n, ...) n
#define SR_LOG__CAT(a, b) SR_LOG__CAT_(a, b)
#define SR_LOG__CAT_(a, b) a##b
/*
 * SR_LOG__EACH(M, fmt, a1, ..., an) expands to M(0, a1) M(1, a2) ... M(n-1, an):
 * what the macros write once per argument.
 */
#define SR_LOG__EACH(M, ...) SR_LOG__CAT(SR_LOG__EACH_, SR_LOG__NARGS(__VA_ARGS__))(M, __VA_ARGS__)
#define SR_LOG__EACH_0(M, f)
#define SR_LOG__EACH_1(M, f, a1) M(0, a1)
#define SR_LOG__EACH_2(M, f, a1, a2) M(0, a1) M(1, a2)
#define SR_LOG__EACH_3(M, f, a1, a2, a3) M(0, a1) M(1, a2) M(2, a3)
#define SR_LOG__EACH_4(M, f, a1, a2, a3, a4) M(0, a1) M(1, a2) M(2, a3) M(3, a4)
#define SR_LOG__EACH_5(M, f, a1, a2, a3, a4, a5) M(0, a1) M(1, a2) M(2, a3) M(3, a4) M(4, a5)
#define SR_LOG__EACH_6(M, f, a1, a2, a3, a4, a5, a6) M(0, a1) M(1, a2) M(2, a3) M(3, a4) M(4, a5) M(5, a6)
#define SR_LOG__EACH_7(M, f, a1, a2, a3, a4, a5, a6, a7) M(0, a1) M(1, a2) M(2, a3) M(3, a4) M(4, a5) M(5, a6) M(6, a7)
#define SR_LOG__EACH_8(M, f, a1, a2, a3, a4, a5, a6, a7, a8) M(0, a1) M(1, a2) M(2, a3) M(3, a4) M(4, a5) M(5, a6) M(6, a7) M(7, a8)
#define SR_LOG__EACH_9(M, f, a1, a2, a3, a4, a5, a6, a7, a8, a9) M(0, a1) M(1, a2) M(2, a3) M(3, a4) M(4, a5) M(5, a6) M(6, a7) M(7, a8) M(8, a9)
#define SR_LOG__EACH_10(M, f, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10) M(0, a1) M(1, a2) M(2, a3) M(3, a4) M(4, a5) M(5, a6) M(6, a7) M(7, a8) M(8, a9) M(9, a10)
#define SR_LOG__EACH_11(M, f, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11) M(0, a1) M(1, a2) M(2, a3) M(3, a4) M(4, a5) M(5, a6) M(6, a7) M(7, a8) M(8, a9) M(9, a10) M(10, a11)
#define SR_LOG__EACH_12(M, f, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12) M(0, a1) M(1, a2) M(2, a3) M(3, a4) M(4, a5) M(5, a6) M(6, a7) M(7, a8) M(8, a9) M(9, a10) M(10, a11) M(11, a12)
#define SR_LOG__EACH_13(M, f, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13) M(0, a1) M(1, a2) M(2, a3) M(3, a4) M(4, a5) M(5, a6) M(6, a7) M(7, a8) M(8, a9) M(9, a10) M(10, a11) M(11, a12) M(12, a13)
#define SR_LOG__EACH_14(M, f, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14) M(0, a1) M(1, a2) M(2, a3) M(3, a4) M(4, a5) M(5, a6) M(6, a7) M(7, a8) M(8, a9) M(9, a10) M(10, a11) M(11, a12) M(12, a13) M(13, a14)
#define SR_LOG__EACH_15(M, f, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15) M(0, a1) M(1, a2) M(2, a3) M(3, a4) M(4, a5) M(5, a6) M(6, a7) M(7, a8) M(8, a9) M(9, a10) M(10, a11) M(11, a12) M(12, a13) M(13, a14) M(14, a15)
#define SR_LOG__EACH_16(M, f, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16) M(0, a1) M(1, a2) M(2, a3) M(3, a4) M(4, a5) M(5, a6) M(6, a7) M(7, a8) M(8, a9) M(9, a10) M(10, a11) M(11, a12) M(12, a13) M(13, a14) M(14, a15) M(15, a16)
#define SR_LOG__EACH_17(M, f, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17) M(0, a1) M(1, a2) M(2, a3) M(3, a4) M(4, a5) M(5, a6) M(6, a7) M(7, a8) M(8, a9) M(9, a10) M(10, a11) M(11, a12) M(12, a13) M(13, a14) M(14, a15) M(15, a16) M(16, a17)
#define SR_LOG__EACH_18(M, f, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18) M(0, a1) M(1, a2) M(2, a3) M(3, a4) M(4, a5) M(5, a6) M(6, a7) M(7, a8) M(8, a9) M(9, a10) M(10, a11) M(11, a12) M(12, a13) M(13, a14) M(14, a15) M(15, a16) M(16, a17) M(17, a18)
#define SR_LOG__EACH_19(M, f, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19) M(0, a1) M(1, a2) M(2, a3) M(3, a4) M(4, a5) M(5, a6) M(6, a7) M(7, a8) M(8, a9) M(9, a10) M(10, a11) M(11, a12) M(12, a13) M(13, a14) M(14, a15) M(15, a16) M(16, a17) M(17, a18) M(18, a19)
#define SR_LOG__EACH_20(M, f, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19, a20) M(0, a1) M(1, a2) M(2, a3) M(3, a4) M(4, a5) M(5, a6) M(6, a7) M(7, a8) M(8, a9) M(9, a10) M(10, a11) M(11, a12) M(12, a13) M(13, a14) M(14, a15) M(15, a16) M(16, a17) M(17, a18) M(18, a19) M(19, a20)
#define SR_LOG__EACH_21(M, f, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19, a20, a21) M(0, a1) M(1, a2) M(2, a3) M(3, a4) M(4, a5) M(5, a6) M(6, a7) M(7, a8) M(8, a9) M(9, a10) M(10, a11) M(11, a12) M(12, a13) M(13, a14) M(14, a15) M(15, a16) M(16, a17) M(17, a18) M(18, a19) M(19, a20) M(20, a21)
#define SR_LOG__EACH_22(M, f, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19, a20, a21, a22) M(0, a1) M(1, a2) M(2, a3) M(3, a4) M(4, a5) M(5, a6) M(6, a7) M(7, a8) M(8, a9) M(9, a10) M(10, a11) M(11, a12) M(12, a13) M(13, a14) M(14, a15) M(15, a16) M(16, a17) M(17, a18) M(18, a19) M(19, a20) M(20, a21) M(21, a22)
#define SR_LOG__EACH_23(M, f, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19, a20, a21, a22, a23) M(0, a1) M(1, a2) M(2, a3) M(3, a4) M(4, a5) M(5, a6) M(6, a7) M(7, a8) M(8, a9) M(9, a10) M(10, a11) M(11, a12) M(12, a13) M(13, a14) M(14, a15) M(15, a16) M(16, a17) M(17, a18) M(18, a19) M(19, a20) M(20, a21) M(21, a22) M(22, a23)
#define SR_LOG__EACH_24(M, f, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19, a20, a21, a22, a23, a24) M(0, a1) M(1, a2) M(2, a3) M(3, a4) M(4, a5) M(5, a6) M(6, a7) M(7, a8) M(8, a9) M(9, a10) M(10, a11) M(11, a12) M(12, a13) M(13, a14) M(14, a15) M(15, a16) M(16, a17) M(17, a18) M(18, a19) M(19, a20) M(20, a21) M(21, a22) M(22, a23) M(23, a24)
#define SR_LOG__EACH_25(M, f, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19, a20, a21, a22, a23, a24, a25) M(0, a1) M(1, a2) M(2, a3) M(3, a4) M(4, a5) M(5, a6) M(6, a7) M(7, a8) M(8, a9) M(9, a10) M(10, a11) M(11, a12) M(12, a13) M(13, a14) M(14, a15) M(15, a16) M(16, a17) M(17, a18) M(18, a19) M(19, a20) M(20, a21) M(21, a22) M(22, a23) M(23, a24) M(24, a25)
#define SR_LOG__EACH_26(M, f, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19, a20, a21, a22, a23, a24, a25, a26) M(0, a1) M(1, a2) M(2, a3) M(3, a4) M(4, a5) M(5, a6) M(6, a7) M(7, a8) M(8, a9) M(9, a10) M(10, a11) M(11, a12) M(12, a13) M(13, a14) M(14, a15) M(15, a16) M(16, a17) M(17, a18) M(18, a19) M(19, a20) M(20, a21) M(21, a22) M(22, a23) M(23, a24) M(24, a25) M(25, a26)
#define SR_LOG__EACH_27(M, f, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19, a20, a21, a22, a23, a24, a25, a26, a27) M(0, a1) M(1, a2) M(2, a3) M(3, a4) M(4, a5) M(5, a6) M(6, a7) M(7, a8) M(8, a9) M(9, a10) M(10, a11) M(11, a12) M(12, a13) M(13, a14) M(14, a15) M(15, a16) M(16, a17) M(17, a18) M(18, a19) M(19, a20) M(20, a21) M(21, a22) M(22, a23) M(23, a24) M(24, a25) M(25, a26) M(26, a27)
#define SR_LOG__EACH_28(M, f, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19, a20, a21, a22, a23, a24, a25, a26, a27, a28) M(0, a1) M(1, a2) M(2, a3) M(3, a4) M(4, a5) M(5, a6) M(6, a7) M(7, a8) M(8, a9) M(9, a10) M(10, a11) M(11, a12) M(12, a13) M(13, a14) M(14, a15) M(15, a16) M(16, a17) M(17, a18) M(18, a19) M(19, a20) M(20, a21) M(21, a22) M(22, a23) M(23, a24) M(24, a25) M(25, a26) M(26, a27) M(27, a28)
#define SR_LOG__EACH_29(M, f, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19, a20, a21, a22, a23, a24, a25, a26, a27, a28, a29) M(0, a1) M(1, a2) M(2, a3) M(3, a4) M(4, a5) M(5, a6) M(6, a7) M(7, a8) M(8, a9) M(9, a10) M(10, a11) M(11, a12) M(12, a13) M(13, a14) M(14, a15) M(15, a16) M(16, a17) M(17, a18) M(18, a19) M(19, a20) M(20, a21) M(21, a22) M(22, a23) M(23, a24) M(24, a25) M(25, a26) M(26, a27) M(27, a28) M(28, a29)
#define SR_LOG__EACH_30(M, f, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19, a20, a21, a22, a23, a24, a25, a26, a27, a28, a29, a30) M(0, a1) M(1, a2) M(2, a3) M(3, a4) M(4, a5) M(5, a6) M(6, a7) M(7, a8) M(8, a9) M(9, a10) M(10, a11) M(11, a12) M(12, a13) M(13, a14) M(14, a15) M(15, a16) M(16, a17) M(17, a18) M(18, a19) M(19, a20) M(20, a21) M(21, a22) M(22, a23) M(23, a24) M(24, a25) M(25, a26) M(26, a27) M(27, a28) M(28, a29) M(29, a30)
#define SR_LOG__EACH_31(M, f, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19, a20, a21, a22, a23, a24, a25, a26, a27, a28, a29, a30, a31) M(0, a1) M(1, a2) M(2, a3) M(3, a4) M(4, a5) M(5, a6) M(6, a7) M(7, a8) M(8, a9) M(9, a10) M(10, a11) M(11, a12) M(12, a13) M(13, a14) M(14, a15) M(15, a16) M(16, a17) M(17, a18) M(18, a19) M(19, a20) M(20, a21) M(21, a22) M(22, a23) M(23, a24) M(24, a25) M(25, a26) M(26, a27) M(27, a28) M(28, a29) M(29, a30) M(30, a31)
#define SR_LOG__EACH_32(M, f, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19, a20, a21, a22, a23, a24, a25, a26, a27, a28, a29, a30, a31, a32) M(0, a1) M(1, a2) M(2, a3) M(3, a4) M(4, a5) M(5, a6) M(6, a7) M(7, a8) M(8, a9) M(9, a10) M(10, a11) M(11, a12) M(12, a13) M(13, a14) M(14, a15) M(15, a16) M(16, a17) M(17, a18) M(18, a19) M(19, a20) M(20, a21) M(21, a22) M(22, a23) M(23, a24) M(24, a25) M(25, a26) M(26, a27) M(27, a28) M(28, a29) M(29, a30) M(30, a31) M(31, a32)

/* More than 32 (SR_LOG__NARGS says 33): nothing, SR_LOG__CHECK_NARGS has refused the call. */
#define SR_LOG__EACH_33(M, ...)

/* The table above is written for SR_SITE_MAX_ARGS arguments. */
#if SR_SITE_MAX_ARGS != 32
#error "sr_log_args.h counts up to 32 arguments: SR_LOG__NARGS and SR_LOG__EACH_n must follow SR_SITE_MAX_ARGS"
#endif

/*
 * A compile-time check with a message, in every mode the headers support.  Before C11, GCC and
 * clang take _Static_assert as an extension, but strict C99 (-std=c99) gets glibc's
 * _Static_assert macro, which drops the message: a function-like macro's name followed by
 * another token is not a call, so SR_LOG__NOTHING (empty) keeps the compiler's own.  (A log
 * call passed as another macro's argument is scanned again, and there glibc's macro and its
 * bit-field error come instead.)
 */
#if defined(__cplusplus)
#define SR_LOG__STATIC_ASSERT(condition, message) static_assert(condition, message)
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define SR_LOG__STATIC_ASSERT(condition, message) _Static_assert(condition, message)
#else
#define SR_LOG__NOTHING
#define SR_LOG__STATIC_ASSERT(condition, message) \
	__extension__ _Static_assert SR_LOG__NOTHING (condition, message)
#endif
/*
 * SR_LOG's first statement: a call with more arguments after the format than a site holds fails
 * to compile, and this message is its first error.  A constant: nothing runs.
 */
#define SR_LOG__CHECK_NARGS(...) SR_LOG__STATIC_ASSERT(SR_LOG__NARGS(__VA_ARGS__) <= SR_SITE_MAX_ARGS, \
	"a log call takes at most 32 arguments after the format (SR_SITE_MAX_ARGS)")

/**
 * @brief A key-value field of a log call: SR_INFO(c, "filled %d lots", n, SR_KV("venue", name)).
 *
 * Key-value arguments come after all of the format's arguments (a call that
 * puts one before them fails to compile).  key must be a non-empty string
 * literal; value is any type a format argument may have, typed and encoded
 * as one (a string is copied into the record as a %s string, and cut like
 * one).  The keys are recorded once per call site; a record carries only the
 * values.  Only the log macros take it: it is no expression of its own.
 * @param key The field's name, a string literal.
 * @param value Its value, evaluated once (only when the call's level is enabled).
 */
#define SR_KV(key, value) (SR_LOG__KV_MARK, key, value)

/*
 * How the macros tell an SR_KV argument from a format argument, by the preprocessor alone:
 * SR_LOG__KV_HEAD x () takes the first element of a parenthesised x and calls it with (); only
 * SR_KV's mark expands to two elements, whose second is 1.  Any other argument (a cast, a
 * parenthesised expression, a name, a literal) leaves one element, and SR_LOG__IS_KV says 0.
 * Nothing is pasted, so any expression may be an argument.
 */
#define SR_LOG__KV_MARK() ~, 1
#define SR_LOG__KV_HEAD(...) SR_LOG__KV_HEAD_(__VA_ARGS__, ~)
#define SR_LOG__KV_HEAD_(first, ...) first
#define SR_LOG__KV_SECOND(...) SR_LOG__KV_SECOND_(__VA_ARGS__, 0, ~)
#define SR_LOG__KV_SECOND_(a, b, ...) b
#define SR_LOG__IS_KV_(probe) SR_LOG__KV_SECOND(probe)
#define SR_LOG__IS_KV(x) SR_LOG__IS_KV_(SR_LOG__KV_HEAD x ())
/* The key and the value of an SR_KV argument. */
#define SR_LOG__KV_KEY(x) SR_LOG__KV_KEY_ x
#define SR_LOG__KV_KEY_(mark, key, value) key
#define SR_LOG__KV_VALUE(x) SR_LOG__KV_VALUE_ x
#define SR_LOG__KV_VALUE_(mark, key, value) value
/* M_0(i, x) for a format argument, M_1(i, x) for an SR_KV one. */
#define SR_LOG__BY_KV(M, i, x) SR_LOG__CAT(M, SR_LOG__IS_KV(x))(i, x)

/*
 * Whether a key is a string literal: a char array (a literal's type; an array object is refused
 * later, where the key table needs an address constant), by its type, x not evaluated.
 */
#ifdef __cplusplus
extern "C++" {
template <size_t N> char (&sr_log__key_literal(const char (&)[N]))[2];
char (&sr_log__key_literal(...))[1];
}
#define SR_LOG__KEY_IS_LITERAL(k) (sizeof(sr_log__key_literal(k)) == 2)
#else
#define SR_LOG__KEY_IS_LITERAL(k) \
	SR_LOG__GENERIC(&(k), char (*)[sizeof(k)]: 1, const char (*)[sizeof(k)]: 1, default: 0)
#endif

/* 1 for a value of an unsigned integer type (its 4 bytes print unsigned), else 0; v not evaluated. */
#ifdef __cplusplus
extern "C++" {
template <class T> char (&sr_log__unsigned_of(const T &))[1];
char (&sr_log__unsigned_of(unsigned char))[2];
char (&sr_log__unsigned_of(unsigned short))[2];
char (&sr_log__unsigned_of(unsigned))[2];
char (&sr_log__unsigned_of(unsigned long))[2];
char (&sr_log__unsigned_of(unsigned long long))[2];
}
#define SR_LOG__IS_UNSIGNED(v) (sizeof(sr_log__unsigned_of(v)) == 2)
#else
#define SR_LOG__IS_UNSIGNED(v) SR_LOG__GENERIC((v), unsigned char: 1, unsigned short: 1, \
	unsigned: 1, unsigned long: 1, unsigned long long: 1, default: 0)
#endif

/*
 * Per argument (SR_LOG__EACH's M): ", kind", ", constant length", "args[i] = value;" (an
 * SR_KV's value), ", x" for the format check (format arguments only), the key table's entries
 * and the fields' flags (SR_KV only), and the counts that check the order.
 */
#define SR_LOG__KIND_ITEM(i, x) SR_LOG__BY_KV(SR_LOG__KIND_ITEM_, i, x)
#define SR_LOG__KIND_ITEM_0(i, x) , SR_LOG__KIND(x)
#define SR_LOG__KIND_ITEM_1(i, x) , SR_LOG__KIND(SR_LOG__KV_VALUE(x))
#define SR_LOG__LEN_ITEM(i, x) SR_LOG__BY_KV(SR_LOG__LEN_ITEM_, i, x)
#define SR_LOG__LEN_ITEM_0(i, x) , SR_LOG__CONST_LEN(x)
#define SR_LOG__LEN_ITEM_1(i, x) , SR_LOG__CONST_LEN(SR_LOG__KV_VALUE(x))
#define SR_LOG__ARG_STORE(i, x) SR_LOG__BY_KV(SR_LOG__ARG_STORE_, i, x)
#define SR_LOG__ARG_STORE_0(i, x) sr_log__args[i] = SR_LOG__ARG(x);
#define SR_LOG__ARG_STORE_1(i, x) sr_log__args[i] = SR_LOG__ARG(SR_LOG__KV_VALUE(x));
#define SR_LOG__FMT_ITEM(i, x) SR_LOG__BY_KV(SR_LOG__FMT_ITEM_, i, x)
#define SR_LOG__FMT_ITEM_0(i, x) , x
#define SR_LOG__FMT_ITEM_1(i, x)
#define SR_LOG__KEY_ITEM(i, x) SR_LOG__BY_KV(SR_LOG__KEY_ITEM_, i, x)
#define SR_LOG__KEY_ITEM_0(i, x)
#define SR_LOG__KEY_ITEM_1(i, x) SR_LOG__KV_KEY(x),
#define SR_LOG__FLAG_ITEM(i, x) SR_LOG__BY_KV(SR_LOG__FLAG_ITEM_, i, x)
#define SR_LOG__FLAG_ITEM_0(i, x)
#define SR_LOG__FLAG_ITEM_1(i, x) (unsigned char)SR_LOG__IS_UNSIGNED(SR_LOG__KV_VALUE(x)),
#define SR_LOG__KEY_CHECK(i, x) SR_LOG__BY_KV(SR_LOG__KEY_CHECK_, i, x)
#define SR_LOG__KEY_CHECK_0(i, x)
#define SR_LOG__KEY_CHECK_1(i, x) \
	SR_LOG__STATIC_ASSERT(SR_LOG__KEY_IS_LITERAL(SR_LOG__KV_KEY(x)), "SR_KV: the key must be a string literal"); \
	SR_LOG__STATIC_ASSERT(sizeof(SR_LOG__KV_KEY(x)) > 1, "SR_KV: the key must not be empty");
/*
 * The format check's call: the format and its own arguments (no SR_KV).  A call with more than
 * 32 arguments (SR_LOG__NARGS says 33: SR_LOG__CHECK_NARGS refused it, and SR_LOG__EACH gives
 * nothing) passes them all, so that the check adds no error of its own to the refusal.
 */
#define SR_LOG__OVER_33 ~, 1
#define SR_LOG__FORMAT_CHECK(...) SR_LOG__CAT(SR_LOG__FORMAT_CHECK_, \
	SR_LOG__KV_SECOND(SR_LOG__CAT(SR_LOG__OVER_, SR_LOG__NARGS(__VA_ARGS__))))(__VA_ARGS__)
#define SR_LOG__FORMAT_CHECK_0(...) \
	sr_log__format_check(SR_LOG__FIRST(__VA_ARGS__) SR_LOG__EACH(SR_LOG__FMT_ITEM, __VA_ARGS__))
#define SR_LOG__FORMAT_CHECK_1(...) sr_log__format_check(__VA_ARGS__)
#define SR_LOG__KV_COUNT_ITEM(i, x) + SR_LOG__IS_KV(x)
#define SR_LOG__KV_AT_ITEM(i, x) + SR_LOG__IS_KV(x) * (i)
/* The SR_KV arguments among __VA_ARGS__ (after the format): a constant. */
#define SR_LOG__NKV(...) (0 SR_LOG__EACH(SR_LOG__KV_COUNT_ITEM, __VA_ARGS__))
/*
 * The key-value arguments must be the last ones: their positions' sum is then the largest
 * that many positions can have.  A constant: nothing runs.
 */
#define SR_LOG__CHECK_KV(...) \
	SR_LOG__EACH(SR_LOG__KEY_CHECK, __VA_ARGS__) \
	SR_LOG__STATIC_ASSERT((0 SR_LOG__EACH(SR_LOG__KV_AT_ITEM, __VA_ARGS__)) == \
	    SR_LOG__NKV(__VA_ARGS__) * SR_LOG__NARGS(__VA_ARGS__) - \
	    SR_LOG__NKV(__VA_ARGS__) * (SR_LOG__NKV(__VA_ARGS__) + 1) / 2, \
	    "SR_KV: key-value arguments come after the format arguments")

/*
 * The macros name it inside sizeof, an unevaluated operand in C and C++, so that the compiler
 * checks the format against the arguments: no object file refers to it, so the library neither
 * defines nor exports it.  A direct call would fail to link: the error attribute makes it a
 * compile error that says why.
 */
#if defined(__has_attribute)
#if __has_attribute(__error__)
#define SR_LOG__NEVER_CALLED __attribute__((__error__( \
	"sr_log__format_check only checks the log macros' format inside sizeof: it is never defined")))
#endif
#endif
#ifndef SR_LOG__NEVER_CALLED
#define SR_LOG__NEVER_CALLED
#endif
int sr_log__format_check(const char *format, ...) __attribute__((format(printf, 1, 2)))
    SR_LOG__NEVER_CALLED;

/*
 * What the macros call once the level passed: the hot path.  args holds the
 * n arguments after the site's format, in order.  Never call it with a site
 * whose format or argument types differ from its first call's.
 */
SR_API void sr_log__emit_args(sr_category *cat, sr_site *site, const sr_log_arg *args, int n);

/*
 * The same for a call with key-value fields: its last nfields arguments are
 * SR_KV values, keys[j] the j-th field's key (a static array of the call
 * site) and flags[j] 1 where its value is unsigned.  The site records its
 * keys at its first call (sr_site.fields); the arguments then travel as
 * sr_log__emit_args's.
 */
SR_API void sr_log__emit_fields(sr_category *cat, sr_site *site, const sr_log_arg *args, int n,
    const char *const *keys, const unsigned char *flags, int nfields);

#ifdef __cplusplus
}
#endif

#endif /* SR_LOG_ARGS_H */

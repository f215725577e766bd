/* SPDX-License-Identifier: Apache-2.0 */
/*
 * limit_args.c: the rate-limiting macros' checks of their parameters, compiled (never run) by
 * check_limit_args.sh as C and, with -x c++, as C++. LIMIT_CASE picks the call:
 *   ok               constants of at least 1, run-time values (any: the limiter's run-time rule
 *                    applies), 31 arguments, and the calls passed through another macro: must
 *                    compile warning-free;
 *   every_n_zero     SR_LOG_EVERY_N with n 0;
 *   every_n_negative SR_INFO_EVERY_N with n -1 (the shorthand names itself);
 *   rate_zero        SR_LOG_LIMIT with per_second 0;
 *   burst_zero       SR_WARN_LIMIT with burst 0, written as a constant expression (2 - 2);
 *   args_32          SR_INFO_ONCE with 32 arguments (its suppressed line would need 33):
 * each failing case must fail with its message (check_limit_args.sh) as the first error.
 */
#include <seqring/sr_log.h>

#ifndef LIMIT_CASE_ok
#if !defined(LIMIT_CASE_every_n_zero) && !defined(LIMIT_CASE_every_n_negative) && \
    !defined(LIMIT_CASE_rate_zero) && !defined(LIMIT_CASE_burst_zero) && !defined(LIMIT_CASE_args_32)
#error "compile with -DLIMIT_CASE_ok, _every_n_zero, _every_n_negative, _rate_zero, _burst_zero or _args_32"
#endif
#endif

#define LIMIT_ARGS_4 a, a + 1, a + 2, a + 3
#define LIMIT_ARGS_8 LIMIT_ARGS_4, LIMIT_ARGS_4
#define LIMIT_ARGS_31 LIMIT_ARGS_8, LIMIT_ARGS_8, LIMIT_ARGS_8, LIMIT_ARGS_4, a, a, a
#define LIMIT_F4 "%d %d %d %d "
#define LIMIT_F8 LIMIT_F4 LIMIT_F4
#define LIMIT_F31 LIMIT_F8 LIMIT_F8 LIMIT_F8 LIMIT_F4 "%d %d %d "
#define LIMIT_WRAP(statement) statement

#ifdef __cplusplus
extern "C" {
#endif

void limit_args_call(sr_category *cat, int a, long n);

void limit_args_call(sr_category *cat, int a, long n)
{
#if defined(LIMIT_CASE_ok)
	SR_LOG_ONCE(cat, SR_LOG_INFO, "once %d", a);
	SR_LOG_EVERY_N(cat, SR_LOG_INFO, 10, "every %d", a);
	SR_INFO_EVERY_N(cat, 2 * 5, "every %d", a);
	SR_INFO_EVERY_N(cat, n, "every %d", a);
	SR_INFO_EVERY_N(cat, n - 100, "every %d", a);
	SR_LOG_LIMIT(cat, SR_LOG_WARN, 10, 20, "limit %d", a);
	SR_ERROR_LIMIT(cat, n, n, "limit %d", a);
	SR_TRACE_ONCE(cat, "no argument");
	SR_INFO_ONCE(cat, LIMIT_F31, LIMIT_ARGS_31);
	LIMIT_WRAP(SR_WARN_EVERY_N(cat, 3, LIMIT_F31, LIMIT_ARGS_31));
	LIMIT_WRAP(SR_DEBUG_LIMIT(cat, 1, 1, "limit %s", "wrapped"));
#elif defined(LIMIT_CASE_every_n_zero)
	SR_LOG_EVERY_N(cat, SR_LOG_INFO, 0, "every %d", a);
	(void)n;
#elif defined(LIMIT_CASE_every_n_negative)
	SR_INFO_EVERY_N(cat, -1, "every %d", a);
	(void)n;
#elif defined(LIMIT_CASE_rate_zero)
	SR_LOG_LIMIT(cat, SR_LOG_INFO, 0, 5, "limit %d", a);
	(void)n;
#elif defined(LIMIT_CASE_burst_zero)
	SR_WARN_LIMIT(cat, 10, 2 - 2, "limit %d", a);
	(void)n;
#elif defined(LIMIT_CASE_args_32)
	SR_INFO_ONCE(cat, LIMIT_F31 "%d", LIMIT_ARGS_31, a);
	(void)n;
#endif
}

#ifdef __cplusplus
}
#endif

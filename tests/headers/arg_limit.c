/* SPDX-License-Identifier: Apache-2.0 */
/*
 * arg_limit.c: the log macros' limit on arguments, compiled (never run) by check_arg_limit.sh
 * as C and, with -x c++, as C++. ARG_LIMIT_COUNT picks the call:
 *   32   the most the macros take after the format: must compile warning-free, also as
 *        another macro's argument (scanned twice: strict C99 then meets glibc's
 *        _Static_assert macro, which must compile too);
 *   33   one too many, its last argument a string literal (a count that pasted the user's
 *        tokens into a macro name would fail in the preprocessor): must fail with the
 *        macros' message as the first error;
 *   124  the most a conforming compiler must take in SR_LOG's call (its 127 macro arguments
 *        are the category, the level, the format and these): the same message first.
 */
#include <seqring/sr_log.h>

#ifndef ARG_LIMIT_COUNT
#error "compile with -DARG_LIMIT_COUNT=32, 33 or 124"
#endif

/* 4, 8 and 31 int arguments and their conversions; the lists expand before SR_LOG counts. */
#define ARG_LIMIT_4 a, a + 1, a + 2, a + 3
#define ARG_LIMIT_8 ARG_LIMIT_4, ARG_LIMIT_4
#define ARG_LIMIT_31 ARG_LIMIT_8, ARG_LIMIT_8, ARG_LIMIT_8, ARG_LIMIT_4, a, a, a
#define ARG_LIMIT_F4 "%d %d %d %d "
#define ARG_LIMIT_F8 ARG_LIMIT_F4 ARG_LIMIT_F4
#define ARG_LIMIT_F31 ARG_LIMIT_F8 ARG_LIMIT_F8 ARG_LIMIT_F8 ARG_LIMIT_F4 "%d %d %d "
/* A statement passed through a macro's argument, as a user's wrapper would. */
#define ARG_LIMIT_WRAP(statement) statement

#ifdef __cplusplus
extern "C" {
#endif

void arg_limit_call(sr_category *cat, int a);

void arg_limit_call(sr_category *cat, int a)
{
#if ARG_LIMIT_COUNT == 32
	SR_INFO(cat, ARG_LIMIT_F31 "%d", ARG_LIMIT_31, a);
	ARG_LIMIT_WRAP(SR_WARN(cat, ARG_LIMIT_F31 "%d", ARG_LIMIT_31, a));
#elif ARG_LIMIT_COUNT == 33
	SR_INFO(cat, ARG_LIMIT_F31 "%d %s", ARG_LIMIT_31, a, "the 33rd");
#elif ARG_LIMIT_COUNT == 124
	SR_LOG(cat, SR_LOG_INFO, ARG_LIMIT_F31 ARG_LIMIT_F31 ARG_LIMIT_F31 ARG_LIMIT_F31,
	    ARG_LIMIT_31, ARG_LIMIT_31, ARG_LIMIT_31, ARG_LIMIT_31);
#else
#error "ARG_LIMIT_COUNT: expected 32, 33 or 124"
#endif
}

#ifdef __cplusplus
}
#endif

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_support.h: included by the Criterion suites that check for leaks,
 * after <criterion/criterion.h>.
 *
 * Under the asan preset a leak found when a Criterion worker exits is
 * printed but does not fail the test (criterion_runner.c says why, and how
 * the runner's own leaks are kept out of the report): a test that exercises
 * failure paths asserts SC_ASSERT_NO_LEAKS() itself.
 */
#ifndef SC_TEST_SUPPORT_H
#define SC_TEST_SUPPORT_H

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>

/* Fails the current test if memory allocated so far is unreachable. */
#define SC_ASSERT_NO_LEAKS() \
	cr_assert_eq(__lsan_do_recoverable_leak_check(), 0, "LeakSanitizer found leaks (see stderr)")
#else
#define SC_ASSERT_NO_LEAKS() ((void)0)
#endif

#endif /* SC_TEST_SUPPORT_H */

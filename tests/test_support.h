/*
 * test_support.h: included once by each Criterion test program, after
 * <criterion/criterion.h>.
 *
 * Leaks under the asan preset.  Criterion runs each test in a worker process
 * (re-executed with BXFI_MAP in its environment); a leak found when a worker
 * exits is printed but does not fail the test.  Criterion's runner process
 * itself leaks a few blocks of its own when tests run in parallel, and that
 * report does fail the run.  So: suppress leaks in libcriterion in the runner
 * only (it runs no seqring code), and let tests that exercise failure paths
 * assert SC_ASSERT_NO_LEAKS() themselves.
 */
#ifndef SC_TEST_SUPPORT_H
#define SC_TEST_SUPPORT_H

#include <stdlib.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>

const char *__lsan_default_suppressions(void);
__attribute__((used)) const char *
__lsan_default_suppressions(void)
{
	return getenv("BXFI_MAP") != NULL ? "" : "leak:libcriterion.so\n";
}

/* Fails the current test if memory allocated so far is unreachable. */
#define SC_ASSERT_NO_LEAKS() \
	cr_assert_eq(__lsan_do_recoverable_leak_check(), 0, "LeakSanitizer found leaks (see stderr)")
#else
#define SC_ASSERT_NO_LEAKS() ((void)0)
#endif

#endif /* SC_TEST_SUPPORT_H */

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * criterion_runner.c: Criterion's runner process under the asan preset.
 *
 * Criterion runs each test in a worker process (re-executed with BXFI_MAP in
 * its environment); a leak found when a worker exits is printed but does not
 * fail the test, so tests that exercise failure paths assert
 * SC_ASSERT_NO_LEAKS() (test_support.h) themselves.  The runner process
 * itself leaks a few blocks of its own bookkeeping when workers run in
 * parallel, and that report would fail the run.  It runs no seqring code,
 * so its leaks are left out twice over: suppressed in libcriterion, and not
 * tracked on its main thread once the tests are about to start (PRE_ALL
 * hooks run only in the runner).  Every leak of the library in a worker
 * stays visible.
 *
 * Nothing calls into this file: the sanitizer runtime and Criterion find
 * its two functions by name and by section.  So it is an object library
 * that every Criterion program links whole, not a member of a static
 * library, which the linker would leave out.
 */
#include <criterion/criterion.h>
#include <criterion/hooks.h>

#include <stdlib.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>

const char *__lsan_default_suppressions(void);

__attribute__((used)) const char *
__lsan_default_suppressions(void)
{
	return getenv("BXFI_MAP") != NULL ? "" : "leak:libcriterion.so\n";
}

ReportHook(PRE_ALL)(struct criterion_test_set *tests)
{
	(void)tests;
	__lsan_disable();
}
#endif

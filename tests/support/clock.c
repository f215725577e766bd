/* SPDX-License-Identifier: Apache-2.0 */
/*
 * clock.c: the clocks, sleeps and short waits of the tests (declared in
 * scenarios.h, and tl_sleep_ms in log_support.h).
 */
#include <time.h>

#include "log_support.h"
#include "scenarios.h"

int64_t
sc_now(void)
{
	return sr_monotonic_ns();
}

int64_t
sc_realtime_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * SC_S + ts.tv_nsec;
}

void
sc_sleep_ns(int64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / SC_S), .tv_nsec = (long)(ns % SC_S) };
	while (nanosleep(&ts, &ts) != 0)
		;
}

void
sc_spin_ns(int64_t ns)
{
	if (ns <= 0)
		return;
	int64_t until = sc_now() + ns;
	while (sc_now() < until)
		sr_atomic_pause();
}

bool
sc_done_within(atomic_int *flag, int64_t ns)
{
	int64_t until = sc_now() + ns;
	while (!atomic_load(flag) && sc_now() < until)
		sc_sleep_ns(100 * 1000);
	return atomic_load(flag) != 0;
}

void
tl_sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };
	nanosleep(&ts, NULL);
}

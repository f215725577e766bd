/* SPDX-License-Identifier: Apache-2.0 */
/*
 * stress_wakeup: for every wait strategy, no lost wake-ups (one event at a
 * random 0-2 ms interval, several hundred rounds, each seen within its
 * bound), alert wakes a waiter (directly and while it follows a
 * dependent), halt stops a waiting processor, and the timeout kinds report
 * idle timeouts.  A plain program (no Criterion) for the ThreadSanitizer
 * preset; exits non-zero on any failure.
 */
#include "scenarios.h"
#include "stress_args.h"

int
main(int argc, char **argv)
{
	sa_parse(argc, argv, NULL, 0, NULL); /* no options but --help */
	const char *prog = "stress_wakeup";
	int64_t started = sc_now();
	int failures = 0, scenarios = 0;
	char name[160];
	int rounds = (int)SC_SCALE(300, 150);

	const char *extra[] = { "timeout:timeout=30s", "phased:fallback=timeout,timeout=30s" };
	for (int k = 0; k < SC_STRATEGY_COUNT + 2; k++) {
		const char *spec = k < SC_STRATEGY_COUNT ? sc_strategies[k] : extra[k - SC_STRATEGY_COUNT];
		for (int m = 0; m < 2; m++) {
			enum sr_producer_mode mode = m ? SR_PRODUCER_MULTI : SR_PRODUCER_SINGLE;
			int n = m ? rounds / 3 : rounds;
			snprintf(name, sizeof name, "wake-ups %s %s x%d", spec, m ? "MP" : "SP", n);
			sc_result r = sc_wakeups(spec, mode, n, UINT64_C(0xC0FFEE) + (uint64_t)k * 7 + (uint64_t)m);
			sc_expect_events(&r, n);
			failures += sc_report(prog, name, &r);
			scenarios++;
		}
	}
	for (int k = 0; k < SC_STRATEGY_COUNT; k++) {
		for (int dep = 0; dep < 2; dep++) {
			snprintf(name, sizeof name, "alert %s%s", sc_strategies[k], dep ? " (dependent)" : "");
			sc_result r = sc_alert_wakes(sc_strategies[k], dep);
			failures += sc_report(prog, name, &r);
			scenarios++;
		}
		snprintf(name, sizeof name, "halt while waiting %s", sc_strategies[k]);
		sc_result r = sc_halt_while_waiting(sc_strategies[k], k % 2 ? SR_PRODUCER_MULTI : SR_PRODUCER_SINGLE);
		failures += sc_report(prog, name, &r);
		scenarios++;
	}
	const char *timed[] = { "timeout:timeout=5ms", "phased:fallback=timeout,timeout=5ms" };
	for (int i = 0; i < 2; i++) {
		snprintf(name, sizeof name, "on_timeout %s", timed[i]);
		sc_result r = sc_timeout_hook(timed[i], 150 * SC_MS, 2); /* idle spells of 2 timeouts at least */
		failures += sc_report(prog, name, &r);
		scenarios++;
	}
	return sc_summary(prog, scenarios, failures, started);
}

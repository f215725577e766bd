/* SPDX-License-Identifier: Apache-2.0 */
/*
 * stress_full: producers facing a full ring.  64 producer threads on a
 * 16-slot ring with a slow consumer, synchronized enqueue on and off, every
 * event delivered exactly once and in each producer's order; claim with a
 * deadline on a full ring whose consumer is stopped.  A plain program (no
 * Criterion) for the ThreadSanitizer preset; exits non-zero on any failure.
 */
#include "scenarios.h"
#include "stress_args.h"

int
main(int argc, char **argv)
{
	sa_parse(argc, argv, NULL, 0, NULL); /* no options but --help */
	const char *prog = "stress_full";
	int64_t started = sc_now();
	int failures = 0, scenarios = 0;
	char name[160];

	const char *waits[] = { "block", "liteblock", "timeout", "yield", "phased", "sleep", "busyspin" };
	for (int w = 0; w < 7; w++) {
		for (int sync = 1; sync >= 0; sync--) {
			sc_mp_params p = {
				.producers = 64, .per_producer = SC_SCALE(300, 60), .ring_size = 16,
				.wait = waits[w], .synchronize = sync, .max_claim = w == 3 ? 2 : 1,
				.consumer_spin_ns = 2000, .consumer_nap_every = 64, .initial_sequence = -1,
				.seed = (uint64_t)(w * 2 + sync + 1),
			};
			snprintf(name, sizeof name, "64 producers x%" PRId64 " ring 16 slow %s sync=%s%s",
			    p.per_producer, waits[w], sync ? "on" : "off", p.max_claim > 1 ? " claim_n" : "");
			sc_result r = sc_multi_producer(&p);
			failures += sc_report(prog, name, &r);
			scenarios++;
		}
	}
	/* Claim with a deadline, SP and MP, synchronized enqueue on and off. */
	for (int k = 0; k < SC_STRATEGY_COUNT; k++) {
		for (int v = 0; v < 3; v++) {
			/* Every strategy for MP synchronized (the mutex with a deadline); a few for the rest. */
			if (v != 1 && k % 3 != 0)
				continue;
			enum sr_producer_mode mode = v == 0 ? SR_PRODUCER_SINGLE : SR_PRODUCER_MULTI;
			bool sync = v != 2;
			int claimers = v == 0 ? 0 : 4;
			snprintf(name, sizeof name, "claim deadline %s sync=%s claimers=%d %s",
			    mode == SR_PRODUCER_SINGLE ? "SP" : "MP", sync ? "on" : "off", claimers, sc_strategies[k]);
			sc_result r = sc_claim_deadline(mode, sync, claimers, sc_strategies[k]);
			failures += sc_report(prog, name, &r);
			scenarios++;
		}
	}
	return sc_summary(prog, scenarios, failures, started);
}

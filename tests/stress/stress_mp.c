/* SPDX-License-Identifier: Apache-2.0 */
/*
 * stress_mp: multi-producer exactly-once and in-order delivery, and the
 * guarantee that no producer overwrites a slot its consumer still holds.
 * A plain program (no Criterion) so that the ThreadSanitizer preset can run
 * it; exits non-zero on any failure.
 */
#include "scenarios.h"
#include "stress_args.h"

int
main(int argc, char **argv)
{
	sa_parse(argc, argv, NULL, 0, NULL); /* no options but --help */
	const char *prog = "stress_mp";
	int64_t started = sc_now();
	int failures = 0, scenarios = 0;
	char name[128];

	/* The figure: 4 producers x 1,000,000 events, 1,024 slots. */
	const char *waits[] = { "liteblock", "block", "yield" };
	for (int w = 0; w < 3; w++) {
		sc_mp_params p = {
			.producers = 4, .per_producer = SC_SCALE(1000000, 20000), .ring_size = 1024,
			.wait = waits[w], .synchronize = true, .max_claim = 1, .initial_sequence = -1,
			.seed = 1,
		};
		if (w > 0)
			p.per_producer = SC_SCALE(250000, 10000);
		snprintf(name, sizeof name, "mp 4x%" PRId64 " ring 1024 %s", p.per_producer, waits[w]);
		sc_result r = sc_multi_producer(&p);
		failures += sc_report(prog, name, &r);
		scenarios++;
	}
	/* claim_n + publish_range from 4 producers, small ring, near 2^62. */
	{
		sc_mp_params p = {
			.producers = 4, .per_producer = SC_SCALE(50000, 5000), .ring_size = 64,
			.wait = "liteblock", .synchronize = false, .max_claim = 5,
			.initial_sequence = (INT64_C(1) << 62) - 1000, .seed = 7,
		};
		snprintf(name, sizeof name, "mp 4x%" PRId64 " claim_n<=5 ring 64 @2^62", p.per_producer);
		sc_result r = sc_multi_producer(&p);
		failures += sc_report(prog, name, &r);
		scenarios++;
	}
	/*
	 * Tiny rings, many seeds: producers overtake each other on claims all
	 * the time, which is where a claim that skips a fresh look at the
	 * gating sequences (the cached minimum) must still be ordered after
	 * the consumer's reads (found a missing happens-before under TSan).
	 */
	{
		int64_t t0 = sc_now(), events = 0;
		sc_result worst = { .ok = true };
		int runs = 8;
		for (int i = 0; i < runs && worst.ok; i++) {
			sc_mp_params p = {
				.producers = 4, .per_producer = SC_SCALE(10000, 3000), .ring_size = 16,
				.wait = i % 2 ? "yield" : "liteblock", .synchronize = i % 4 < 2, .max_claim = 1 + i % 3,
				.initial_sequence = -1, .seed = 100 + (uint64_t)i,
			};
			sc_result r = sc_multi_producer(&p);
			events += r.events;
			if (!r.ok)
				worst = r;
		}
		worst.events = events;
		worst.seconds = (double)(sc_now() - t0) / 1e9;
		snprintf(name, sizeof name, "mp 4 producers ring 16, %d seeds", runs);
		failures += sc_report(prog, name, &worst);
		scenarios++;
	}
	/* Overwrite guard: SP and MP, tiny rings. */
	for (int m = 0; m < 2; m++) {
		enum sr_producer_mode mode = m == 0 ? SR_PRODUCER_SINGLE : SR_PRODUCER_MULTI;
		int64_t per = m == 0 ? SC_SCALE(100000, 10000) : SC_SCALE(40000, 4000);
		snprintf(name, sizeof name, "overwrite guard %s ring 4", m == 0 ? "SP" : "MP x3");
		sc_result r = sc_overwrite_guard(mode, 3, 4, per, "yield", -1, 42);
		failures += sc_report(prog, name, &r);
		scenarios++;
	}
	return sc_summary(prog, scenarios, failures, started);
}

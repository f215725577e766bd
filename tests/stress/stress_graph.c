/* SPDX-License-Identifier: Apache-2.0 */
/*
 * stress_graph: consumer graphs (pipeline A -> B -> C, diamond A -> (B, C)
 * -> D) under several wait strategies and both producer modes, and
 * drain-then-halt.  A plain program (no Criterion) for the ThreadSanitizer
 * preset; exits non-zero on any failure.
 */
#include "scenarios.h"
#include "stress_args.h"

int
main(int argc, char **argv)
{
	sa_parse(argc, argv, NULL, 0, NULL); /* no options but --help */
	const char *prog = "stress_graph";
	int64_t started = sc_now();
	int failures = 0, scenarios = 0;
	char name[128];
	struct {
		enum sc_shape shape;
		enum sr_producer_mode mode;
		int producers;
		int64_t ring;
		const char *wait;
		int64_t max_batch;
		int64_t initial;
		int64_t events;       /* plain build; ThreadSanitizer runs a tenth */
	} runs[] = {
		{ SC_PIPELINE, SR_PRODUCER_SINGLE, 1, 64, "liteblock", 0, -1, 100000 },
		{ SC_PIPELINE, SR_PRODUCER_MULTI, 3, 16, "block", 4, -1, 60000 },
		{ SC_PIPELINE, SR_PRODUCER_SINGLE, 1, 8, "yield", 3, (INT64_C(1) << 62) - 50, 50000 },
		{ SC_DIAMOND, SR_PRODUCER_SINGLE, 1, 64, "liteblock", 0, -1, 100000 },
		{ SC_DIAMOND, SR_PRODUCER_MULTI, 3, 16, "timeout", 5, -1, 60000 },
		{ SC_DIAMOND, SR_PRODUCER_MULTI, 2, 8, "phased", 0, (INT64_C(1) << 62) - 50, 40000 },
		{ SC_DIAMOND, SR_PRODUCER_SINGLE, 1, 4, "sleep", 2, -1, 20000 },
	};
	for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
		int producers = runs[i].mode == SR_PRODUCER_SINGLE ? 1 : runs[i].producers;
		int64_t per = SC_SCALE(runs[i].events, runs[i].events / 5) / producers;
		snprintf(name, sizeof name, "%s %s x%d ring %" PRId64 " %s batch<=%" PRId64 "%s",
		    runs[i].shape == SC_PIPELINE ? "pipeline" : "diamond",
		    runs[i].mode == SR_PRODUCER_SINGLE ? "SP" : "MP", producers, runs[i].ring, runs[i].wait,
		    runs[i].max_batch, runs[i].initial > 0 ? " @2^62" : "");
		sc_result r = sc_graph(runs[i].shape, runs[i].mode, producers, per, runs[i].ring,
		    runs[i].wait, runs[i].max_batch, runs[i].initial);
		sc_expect_events(&r, per * producers);
		failures += sc_report(prog, name, &r);
		scenarios++;
	}
	const char *waits[] = { "block", "liteblock", "yield", "timeout", "phased" };
	for (int w = 0; w < 5; w++) {
		for (int m = 0; m < 2; m++) {
			enum sr_producer_mode mode = m ? SR_PRODUCER_MULTI : SR_PRODUCER_SINGLE;
			int producers = m ? 3 : 1;
			int64_t count = SC_SCALE(20000, 3000) / producers;
			snprintf(name, sizeof name, "drain_and_halt %s x%d %s", m ? "MP" : "SP", producers, waits[w]);
			sc_result r = sc_drain(mode, producers, count, waits[w]);
			sc_expect_events(&r, count * producers);
			failures += sc_report(prog, name, &r);
			scenarios++;
		}
	}
	return sc_summary(prog, scenarios, failures, started);
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * topo_rounds.h: the rounds of topology runs behind ring_perf's and
 * wait_perf's throughput tables (perf/README.md, "How every table is
 * measured").
 *
 * Round 0 is one warm-up run per row, which also sizes the row's runs: as
 * many events as the row handles in `seconds`, between 1,000 and max_events
 * (--events fixes them instead; --quick and probe skip the warm-up).  Then `runs`
 * rounds in which every row runs once, A B C ... A B C ..., so that the
 * medians the ratios compare were measured under the same noise.
 */
#ifndef SR_PERF_TOPO_ROUNDS_H
#define SR_PERF_TOPO_ROUNDS_H

#include <stdbool.h>
#include <stdint.h>

#include "bench_stats.h"
#include "topology.h"

typedef struct topo_row {
	topo_variant v;
	int64_t events;              /* per run */
	double rates[BENCH_MAX_RUNS];
	int nrates;
	bench_summary rate;          /* of rates, after the rounds */
	int capped;                  /* runs that hit the time cap */
	bool failed;
} topo_row;

typedef struct topo_rounds {
	const char *tag;             /* progress lines start with it: "[ring]" */
	const char *prog;            /* failures are reported as "PROG: FAILED why" */
	int runs;
	int64_t fixed_events;        /* 0: calibrated per row */
	int64_t max_events;
	double seconds;              /* the calibrated length of a run */
	double run_timeout;          /* topo_run's cap */
	bool no_warmup;              /* every row runs fixed_events, with no warm-up run */
} topo_rounds;

/* Runs the warm-up and the rounds over rows[nrows]; returns the runs that failed. */
int topo_rounds_run(topo_row *rows, int nrows, const topo_rounds *cfg);

#endif /* SR_PERF_TOPO_ROUNDS_H */

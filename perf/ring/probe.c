/* SPDX-License-Identifier: Apache-2.0 */
/*
 * probe.c: the quick throughput probe.  1 producer -> 1 consumer, 8-byte
 * events, 100 million events per run, busy-spin, median of 5 runs,
 * interleaved with a mutex + condition-variable bounded queue of the same
 * capacity (seqring, queue, seqring, queue, ...).  Prints both and the ratio.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_args.h"
#include "bench_output.h"
#include "bench_stats.h"
#include "topo_rounds.h"
#include "topology.h"

#define PROG "probe"

typedef struct options {
	int64_t events;
	int64_t runs;
	int64_t ring_size;
	bool events_given, runs_given;   /* --quick leaves these alone */
	bool quick;
} options;

static void
usage(FILE *f)
{
	fprintf(f, "usage: probe [--events N] [--runs N] [--ring SLOTS] [--quick] [--quiet]\n");
}

int
main(int argc, char **argv)
{
	char err[512];
	options o = { .events = 100000000, .runs = 5, .ring_size = 65536 };
	const bench_flag flags[] = {
		{ BENCH_FLAG("--events", BENCH_COUNT, &o.events), .given = &o.events_given },
		{ BENCH_FLAG("--runs", BENCH_COUNT, &o.runs), .max = BENCH_MAX_RUNS, .given = &o.runs_given },
		{ BENCH_FLAG("--ring", BENCH_POWER_OF_TWO, &o.ring_size), .min = 2, .max = INT64_C(1) << 30 },
	};
	enum bench_parsed parsed = bench_parse_flags(argc, argv, flags, (int)(sizeof flags / sizeof flags[0]),
	    &o.quick, usage, err, sizeof err);
	if (parsed != BENCH_PARSED_RUN)
		return bench_parsed_exit(parsed, PROG, err);
	if (o.quick) {
		if (!o.events_given)
			o.events = 100000;
		if (!o.runs_given)
			o.runs = 1;
	}

	static topo_row rows[2];
	for (int j = 0; j < 2; j++) {
		rows[j].v = (topo_variant){ .topo = TOPO_1_1, .impl = j == 0 ? IMPL_SEQRING : IMPL_MUTEX,
		    .ring_size = o.ring_size };
		sr_wait_config_default(&rows[j].v.wait, SR_WAIT_BUSY_SPIN);
	}
	/* Every run has the whole count and no time cap. */
	const topo_rounds rounds = { .tag = "[probe]", .prog = PROG, .runs = (int)o.runs,
	    .fixed_events = o.events, .max_events = o.events, .run_timeout = 0, .no_warmup = true };
	if (topo_rounds_run(rows, 2, &rounds) != 0)
		return 1;

	char a[32], b[32], c[32];
	printf("### Probe: 1 producer -> 1 consumer, 8-byte events, %" PRId64 " events per run, "
	    "%" PRId64 "-slot ring, median of %d interleaved runs\n\n", o.events, o.ring_size, (int)o.runs);
	printf("| queue | events/s (median) | min | max |\n|---|--:|--:|--:|\n");
	for (int j = 0; j < 2; j++)
		printf("| %s | %s | %s | %s |\n", j == 0 ? "seqring, busy-spin" : "mutex + condvar",
		    bench_fmt_rate(rows[j].rate.median, a, sizeof a), bench_fmt_rate(rows[j].rate.min, b, sizeof b),
		    bench_fmt_rate(rows[j].rate.max, c, sizeof c));
	printf("\nratio seqring / mutex+condvar: %.1fx\n",
	    rows[1].rate.median > 0 ? rows[0].rate.median / rows[1].rate.median : 0.0);
	return 0;
}

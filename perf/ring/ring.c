/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ring.c: ring_perf, the Disruptor's classic throughput tests on the ring
 * alone (8-byte events), with Concurrency Kit's ck_ring, a mutex + condition
 * variable queue and a minimal "ceiling" ring beside them.
 *
 * Every variant runs once per round and rounds repeat (A B C A B C ...), so
 * the medians that the ratios compare were measured under the same noise.
 * See perf/README.md for the methodology.
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
#include "bench_wait_list.h"
#include <seqring/sr_atomic.h>
#include "topo_rounds.h"
#include "topology.h"

#define PROG "ring_perf"
#define MAX_ROWS 128
#define MAX_RUNS BENCH_MAX_RUNS

typedef topo_row row;

typedef struct options {
	bench_wait_list waits;
	bool want_topo[TOPO_COUNT];
	bool baselines;
	bool builder;              /* --builder: each seqring row twice, hand-wired and built */
	int runs;
	int64_t fixed_events;      /* 0: calibrated per row */
	int64_t max_events;
	double seconds;
	int64_t ring_size;
	int64_t max_batch;
	double run_timeout;        /* 0 until parsed: then 2 s, or 60 s with --events */
	const char *out_path;
	bool quick;
} options;

static void
usage(FILE *f)
{
	fprintf(f,
	    "usage: ring_perf [options]\n"
	    "  --wait LIST      wait strategies for the seqring rows, comma-separated\n"
	    "                   specs as sr_wait_config_parse takes them, or 'all' (default all)\n"
	    "  --topo LIST      1-1,1-1-batch,1-3-pipeline,1-3-multicast,3-1,1-3-diamond or 'all'\n"
	    "  --no-baselines   skip the ck_ring, mutex_condvar and ceiling rows\n"
	    "  --builder        after each seqring row, the same graph wired by the graph\n"
	    "                   builder (sr_disruptor.h), interleaved with it: an A/B table\n"
	    "  --runs N         measured rounds (default 5); the median is reported\n"
	    "  --events N       events per run for every row (k/M/G suffixes); default:\n"
	    "                   calibrated per row from a warm-up run to last --seconds\n"
	    "  --seconds S      target length of one calibrated run (default 0.25)\n"
	    "  --max-events N   cap for calibrated runs (default 200M)\n"
	    "  --run-timeout S  cut a run short after S seconds and report the rate so far\n"
	    "                   (default 2, or 60 with --events)\n"
	    "  --ring N         slots in every ring and queue (default 65536)\n"
	    "  --max-batch N    the seqring consumers' max_batch_size (default 0: unbounded)\n"
	    "  --out FILE       CSV output (default perf/results/ring.csv)\n"
	    "  --quick          tiny counts, one run, every row (for CTest)\n"
	    "  --quiet          no progress on stderr\n");
}

static bool
parse_topos(const char *list, bool *want, char *err, size_t errsize)
{
	const char *names[TOPO_COUNT];
	for (int t = 0; t < TOPO_COUNT; t++)
		names[t] = topo_name((enum topo_kind)t);
	return bench_parse_name_set("--topo", "topology", list, names, TOPO_COUNT, want, err, errsize);
}

static const row *
find_row(const row *rows, int n, enum topo_kind t, enum impl_kind impl, enum sr_wait_kind wait)
{
	for (int i = 0; i < n; i++) {
		if (rows[i].v.topo == t && rows[i].v.impl == impl && !rows[i].failed && !rows[i].v.built &&
		    rows[i].nrates > 0 && (impl != IMPL_SEQRING || rows[i].v.wait.kind == wait))
			return &rows[i];
	}
	return NULL;
}

static void
print_ratio(const row *rows, int n, enum topo_kind ta, enum sr_wait_kind wait,
    enum topo_kind tb, enum impl_kind base, double target, const char *what)
{
	const row *a = find_row(rows, n, ta, IMPL_SEQRING, wait);
	const row *b = find_row(rows, n, tb, base, SR_WAIT_BUSY_SPIN);
	if (a == NULL || b == NULL || b->rate.median <= 0)
		return;
	double r = a->rate.median / b->rate.median;
	if (target <= 0)
		printf("| %s, %s | %s | %.2fx | | |\n", topo_name(ta), sr_wait_kind_name(wait), what, r);
	else
		printf("| %s, %s | %s | %.2fx | >= %.1fx | %s |\n", topo_name(ta), sr_wait_kind_name(wait),
		    what, r, target, r >= target ? "met" : "missed");
}

/* --wait: a bench_flag parser. */
static bool
parse_waits(void *dest, char **values, char *err, size_t errsize)
{
	return bench_parse_wait_list(values[0], NULL, dest, err, errsize);
}

/* --topo: a bench_flag parser. */
static bool
parse_topo_flag(void *dest, char **values, char *err, size_t errsize)
{
	return parse_topos(values[0], dest, err, errsize);
}

/* The options from the command line, with --quick's counts; BENCH_PARSED_BAD with err. */
static enum bench_parsed
parse_args(int argc, char **argv, options *o, char *err, size_t errsize)
{
	*o = (options){ .baselines = true, .runs = 5, .max_events = 200000000, .seconds = 0.25,
	    .ring_size = 65536, .out_path = "perf/results/ring.csv" };
	bench_parse_wait_list("all", NULL, &o->waits, err, errsize);
	parse_topos("all", o->want_topo, err, errsize);
	const bench_flag flags[] = {
		{ BENCH_FLAG("--wait", BENCH_CUSTOM, &o->waits), .parse = parse_waits },
		{ BENCH_FLAG("--topo", BENCH_CUSTOM, o->want_topo), .parse = parse_topo_flag },
		{ BENCH_FLAG("--no-baselines", BENCH_SWITCH, &o->baselines), .switch_to = false },
		{ BENCH_FLAG("--builder", BENCH_SWITCH, &o->builder), .switch_to = true },
		{ BENCH_FLAG("--runs", BENCH_INT, &o->runs), .max = MAX_RUNS },
		{ BENCH_FLAG("--events", BENCH_COUNT, &o->fixed_events) },
		{ BENCH_FLAG("--seconds", BENCH_SECONDS, &o->seconds) },
		{ BENCH_FLAG("--max-events", BENCH_COUNT, &o->max_events) },
		{ BENCH_FLAG("--run-timeout", BENCH_SECONDS, &o->run_timeout) },
		{ BENCH_FLAG("--ring", BENCH_POWER_OF_TWO, &o->ring_size), .min = 2, .max = INT64_C(1) << 30 },
		{ BENCH_FLAG("--max-batch", BENCH_COUNT, &o->max_batch) },
		{ BENCH_FLAG("--out", BENCH_TEXT, &o->out_path) },
	};
	enum bench_parsed parsed = bench_parse_flags(argc, argv, flags, (int)(sizeof flags / sizeof flags[0]),
	    &o->quick, usage, err, errsize);
	if (parsed != BENCH_PARSED_RUN)
		return parsed;
	if (o->run_timeout == 0)
		o->run_timeout = o->fixed_events && !o->quick ? 60.0 : 2.0;
	if (o->quick) {
		o->runs = 1;
		if (o->fixed_events == 0)
			o->fixed_events = 30000;
		if (o->ring_size > 1024)
			o->ring_size = 1024;   /* small enough that the ring wraps and fills */
	}
	return BENCH_PARSED_RUN;
}

/* The rows: per wanted topology, one per wait strategy, then the baselines that run it. */
static int
build_rows(const options *o, row *rows)
{
	int nrows = 0;
	for (int t = 0; t < TOPO_COUNT; t++) {
		if (!o->want_topo[t])
			continue;
		for (int w = 0; w < o->waits.nwaits && nrows < MAX_ROWS; w++) {
			row *r = &rows[nrows++];
			memset(r, 0, sizeof *r);
			r->v.topo = (enum topo_kind)t;
			r->v.impl = IMPL_SEQRING;
			r->v.wait = o->waits.waits[w].config;
			r->v.ring_size = o->ring_size;
			r->v.max_batch = o->max_batch;
			if (o->builder && nrows < MAX_ROWS) {
				rows[nrows] = *r;
				rows[nrows++].v.built = true;
			}
		}
		if (!o->baselines)
			continue;
		for (int b = IMPL_CK_SPSC; b < IMPL_COUNT && nrows < MAX_ROWS; b++) {
			if (!topo_supported((enum topo_kind)t, (enum impl_kind)b))
				continue;
			row *r = &rows[nrows++];
			memset(r, 0, sizeof *r);
			r->v.topo = (enum topo_kind)t;
			r->v.impl = (enum impl_kind)b;
			sr_wait_config_default(&r->v.wait, SR_WAIT_BUSY_SPIN);
			r->v.ring_size = o->ring_size;
		}
	}
	return nrows;
}

static bool
write_csv(const options *o, const row *rows, int nrows)
{
	FILE *csv = bench_open_output(o->out_path);
	if (csv == NULL)
		return false;
	fprintf(csv, "topology,wait,producers,consumers,batch,events_per_sec,runs,"
	    "min_events_per_sec,max_events_per_sec\n");
	for (int i = 0; i < nrows; i++) {
		const row *r = &rows[i];
		if (r->failed || r->nrates == 0)
			continue;
		fprintf(csv, "%s,%s,%d,%d,%d,%.0f,%d,%.0f,%.0f\n", topo_name(r->v.topo),
		    variant_wait_label(&r->v), topo_producers(r->v.topo), topo_consumers(r->v.topo),
		    topo_batch(r->v.topo), r->rate.median, r->nrates, r->rate.min, r->rate.max);
	}
	if (fclose(csv) != 0) {
		fprintf(stderr, PROG ": error writing %s\n", o->out_path);
		return false;
	}
	return true;
}

static void
print_markdown(const options *o, const row *rows, int nrows)
{
	printf("### Ring topologies (8-byte events, %" PRId64 "-slot rings, atomics: %s%s)\n\n",
	    o->ring_size, SR_ATOMIC_BACKEND, o->max_batch ? ", bounded batches" : "");
	printf("Median of %d interleaved runs; events/s.\n\n", o->runs);
	printf("| topology | wait | P | C | batch | events/s (median) | min | max | events/run |\n");
	printf("|---|---|--:|--:|--:|--:|--:|--:|--:|\n");
	for (int i = 0; i < nrows; i++) {
		const row *r = &rows[i];
		char a[32], b[32], c[32];
		if (r->failed || r->nrates == 0) {
			printf("| %s | %s | %d | %d | %d | FAILED | | | |\n", topo_name(r->v.topo),
			    variant_wait_label(&r->v), topo_producers(r->v.topo),
			    topo_consumers(r->v.topo), topo_batch(r->v.topo));
			continue;
		}
		char note[64] = "";
		if (r->capped)
			snprintf(note, sizeof note, " (%d/%d runs capped at %.0f s)", r->capped, r->nrates,
			    o->run_timeout);
		printf("| %s | %s | %d | %d | %d | %s | %s | %s | %" PRId64 "%s |\n", topo_name(r->v.topo),
		    variant_wait_label(&r->v), topo_producers(r->v.topo), topo_consumers(r->v.topo),
		    topo_batch(r->v.topo), bench_fmt_rate(r->rate.median, a, sizeof a),
		    bench_fmt_rate(r->rate.min, b, sizeof b), bench_fmt_rate(r->rate.max, c, sizeof c), r->events, note);
	}

	printf("\n### Targets (ratios of medians from this run)\n\n");
	printf("| row | against | ratio | target | |\n|---|---|--:|--:|---|\n");
	for (int w = 0; w < SR_WAIT_KIND_COUNT; w++) {
		enum sr_wait_kind k = (enum sr_wait_kind)w;
		print_ratio(rows, nrows, TOPO_1_1, k, TOPO_1_1, IMPL_CK_SPSC, k == SR_WAIT_BUSY_SPIN ? 5.0 : 0,
		    "1-1 ck_ring_spsc");
	}
	for (int w = 0; w < SR_WAIT_KIND_COUNT; w++) {
		enum sr_wait_kind k = (enum sr_wait_kind)w;
		print_ratio(rows, nrows, TOPO_1_1_BATCH, k, TOPO_1_1, IMPL_CEILING,
		    k == SR_WAIT_BUSY_SPIN ? 0.5 : 0, "1-1 ceiling");
	}
	for (int w = 0; w < SR_WAIT_KIND_COUNT; w++) {
		enum sr_wait_kind k = (enum sr_wait_kind)w;
		print_ratio(rows, nrows, TOPO_3_1, k, TOPO_3_1, IMPL_MUTEX, 2.0, "3-1 mutex_condvar");
		print_ratio(rows, nrows, TOPO_3_1, k, TOPO_3_1, IMPL_CK_MPMC, 1.0, "3-1 ck_ring_mpmc");
	}
	printf("\nThe 1-1 targets are for busy-spin; the other strategies' ratios are for reference.\n");
	if (o->builder) {
		printf("\n### Built by the graph builder against wired by hand (medians, interleaved)\n\n");
		printf("| topology | wait | built | by hand | built / by hand |\n|---|---|--:|--:|--:|\n");
		for (int i = 0; i + 1 < nrows; i++) {
			const row *h = &rows[i], *b = &rows[i + 1];
			if (h->v.impl != IMPL_SEQRING || h->v.built || !b->v.built || h->failed || b->failed ||
			    h->rate.median <= 0)
				continue;
			char x[32], y[32];
			printf("| %s | %s | %s | %s | %.3f |\n", topo_name(h->v.topo),
			    sr_wait_kind_name(h->v.wait.kind), bench_fmt_rate(b->rate.median, x, sizeof x),
			    bench_fmt_rate(h->rate.median, y, sizeof y), b->rate.median / h->rate.median);
		}
	}
	printf("CSV: %s\n", o->out_path);
}

int
main(int argc, char **argv)
{
	char err[512];
	options o;
	enum bench_parsed parsed = parse_args(argc, argv, &o, err, sizeof err);
	if (parsed != BENCH_PARSED_RUN)
		return bench_parsed_exit(parsed, PROG, err);
	static row rows[MAX_ROWS];
	int nrows = build_rows(&o, rows);
	if (nrows == 0) {
		fprintf(stderr, PROG ": nothing to run\n");
		return 2;
	}

	const topo_rounds rounds = { .tag = "[ring]", .prog = PROG, .runs = o.runs,
	    .fixed_events = o.fixed_events, .max_events = o.max_events, .seconds = o.seconds,
	    .run_timeout = o.run_timeout, .no_warmup = o.quick };
	int failures = topo_rounds_run(rows, nrows, &rounds);

	if (!write_csv(&o, rows, nrows))
		return 1;
	print_markdown(&o, rows, nrows);
	if (failures) {
		fprintf(stderr, PROG ": %d run(s) failed\n", failures);
		return 1;
	}
	return 0;
}

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

#include "bench_util.h"
#include "sr_atomic.h"
#include "topology.h"

#define MAX_ROWS 128
#define MAX_RUNS 101

typedef struct row {
	topo_variant v;
	int64_t events;            /* per run */
	double rates[MAX_RUNS];
	int nrates;
	double median, min, max;
	int capped;                /* runs that hit the time cap */
	bool failed;
} row;

static void
usage(FILE *f)
{
	fprintf(f,
	    "usage: ring_perf [options]\n"
	    "  --wait LIST      wait strategies for the seqring rows, comma-separated\n"
	    "                   specs as sr_wait_config_parse takes them, or 'all' (default all)\n"
	    "  --topo LIST      1-1,1-1-batch,1-3-pipeline,1-3-multicast,3-1,1-3-diamond or 'all'\n"
	    "  --no-baselines   skip the ck_ring, mutex_condvar and ceiling rows\n"
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

static int
parse_topos(const char *list, bool *want)
{
	if (strcmp(list, "all") == 0) {
		for (int t = 0; t < TOPO_COUNT; t++)
			want[t] = true;
		return 0;
	}
	for (int t = 0; t < TOPO_COUNT; t++)
		want[t] = false;
	const char *p = list;
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		enum topo_kind t;
		if (!topo_from_name(p, len, &t)) {
			fprintf(stderr, "ring_perf: unknown topology '%.*s': expected 1-1, 1-1-batch, "
			    "1-3-pipeline, 1-3-multicast, 3-1, 1-3-diamond or all\n", (int)len, p);
			return -1;
		}
		want[t] = true;
		if (comma == NULL)
			break;
		p = comma + 1;
	}
	return 0;
}

static const row *
find_row(const row *rows, int n, enum topo_kind t, enum impl_kind impl, enum sr_wait_kind wait)
{
	for (int i = 0; i < n; i++) {
		if (rows[i].v.topo == t && rows[i].v.impl == impl && !rows[i].failed &&
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
	if (a == NULL || b == NULL || b->median <= 0)
		return;
	double r = a->median / b->median;
	if (target <= 0)
		printf("| %s, %s | %s | %.2fx | | |\n", topo_name(ta), sr_wait_kind_name(wait), what, r);
	else
		printf("| %s, %s | %s | %.2fx | >= %.1fx | %s |\n", topo_name(ta), sr_wait_kind_name(wait),
		    what, r, target, r >= target ? "met" : "missed");
}

int
main(int argc, char **argv)
{
	sr_wait_config waits[32];
	int nwaits = perf_parse_waits("all", waits, 32, "ring_perf");
	bool want_topo[TOPO_COUNT];
	parse_topos("all", want_topo);
	bool baselines = true;
	int runs = 5;
	int64_t fixed_events = 0;
	int64_t max_events = 200000000;
	double seconds = 0.25;
	int64_t ring_size = 65536;
	int64_t max_batch = 0;
	double run_timeout = 0;
	const char *out_path = "perf/results/ring.csv";
	bool quick = false;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *val = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			usage(stdout);
			return 0;
		} else if (strcmp(a, "--quick") == 0) {
			quick = true;
		} else if (strcmp(a, "--quiet") == 0) {
			bench_quiet = true;
		} else if (strcmp(a, "--no-baselines") == 0) {
			baselines = false;
		} else if (val == NULL) {
			fprintf(stderr, "ring_perf: unknown option or missing value: %s\n", a);
			usage(stderr);
			return 2;
		} else if (strcmp(a, "--wait") == 0) {
			nwaits = perf_parse_waits(val, waits, 32, "ring_perf");
			if (nwaits < 0)
				return 2;
			i++;
		} else if (strcmp(a, "--topo") == 0) {
			if (parse_topos(val, want_topo) != 0)
				return 2;
			i++;
		} else if (strcmp(a, "--runs") == 0) {
			int64_t r;
			if (!bench_parse_count(val, &r) || r > MAX_RUNS) {
				fprintf(stderr, "ring_perf: --runs %s: expected 1 to %d\n", val, MAX_RUNS);
				return 2;
			}
			runs = (int)r;
			i++;
		} else if (strcmp(a, "--events") == 0) {
			if (!bench_parse_count(val, &fixed_events)) {
				fprintf(stderr, "ring_perf: --events %s: expected a positive count\n", val);
				return 2;
			}
			i++;
		} else if (strcmp(a, "--max-events") == 0) {
			if (!bench_parse_count(val, &max_events)) {
				fprintf(stderr, "ring_perf: --max-events %s: expected a positive count\n", val);
				return 2;
			}
			i++;
		} else if (strcmp(a, "--seconds") == 0) {
			if (!bench_parse_seconds(val, &seconds)) {
				fprintf(stderr, "ring_perf: --seconds %s: expected a positive number\n", val);
				return 2;
			}
			i++;
		} else if (strcmp(a, "--ring") == 0) {
			if (!bench_parse_count(val, &ring_size) || ring_size < 2 ||
			    (ring_size & (ring_size - 1)) != 0 || ring_size > (INT64_C(1) << 30)) {
				fprintf(stderr, "ring_perf: --ring %s: expected a power of two from 2 to 2^30\n", val);
				return 2;
			}
			i++;
		} else if (strcmp(a, "--run-timeout") == 0) {
			if (!bench_parse_seconds(val, &run_timeout)) {
				fprintf(stderr, "ring_perf: --run-timeout %s: expected a positive number\n", val);
				return 2;
			}
			i++;
		} else if (strcmp(a, "--max-batch") == 0) {
			if (!bench_parse_count(val, &max_batch)) {
				fprintf(stderr, "ring_perf: --max-batch %s: expected a positive count\n", val);
				return 2;
			}
			i++;
		} else if (strcmp(a, "--out") == 0) {
			out_path = val;
			i++;
		} else {
			fprintf(stderr, "ring_perf: unknown option: %s\n", a);
			usage(stderr);
			return 2;
		}
	}
	if (run_timeout == 0)
		run_timeout = fixed_events && !quick ? 60.0 : 2.0;
	if (quick) {
		runs = 1;
		if (fixed_events == 0)
			fixed_events = 30000;
		if (ring_size > 1024)
			ring_size = 1024;   /* small enough that the ring wraps and fills */
	}

	static row rows[MAX_ROWS];
	int nrows = 0;
	for (int t = 0; t < TOPO_COUNT; t++) {
		if (!want_topo[t])
			continue;
		for (int w = 0; w < nwaits && nrows < MAX_ROWS; w++) {
			row *r = &rows[nrows++];
			memset(r, 0, sizeof *r);
			r->v.topo = (enum topo_kind)t;
			r->v.impl = IMPL_SEQRING;
			r->v.wait = waits[w];
			r->v.ring_size = ring_size;
			r->v.max_batch = max_batch;
		}
		if (!baselines)
			continue;
		for (int b = IMPL_CK_SPSC; b < IMPL_COUNT && nrows < MAX_ROWS; b++) {
			if (!topo_supported((enum topo_kind)t, (enum impl_kind)b))
				continue;
			row *r = &rows[nrows++];
			memset(r, 0, sizeof *r);
			r->v.topo = (enum topo_kind)t;
			r->v.impl = (enum impl_kind)b;
			sr_wait_config_default(&r->v.wait, SR_WAIT_BUSY_SPIN);
			r->v.ring_size = ring_size;
		}
	}
	if (nrows == 0) {
		fprintf(stderr, "ring_perf: nothing to run\n");
		return 2;
	}

	char err[512];
	int failures = 0;
	/* Round 0: one warm-up run per row, which also sizes the row's runs. */
	for (int i = 0; i < nrows && !quick; i++) {
		row *r = &rows[i];
		int64_t pilot = fixed_events ? fixed_events : 1000000;
		pilot = topo_round_events(r->v.topo, pilot);
		bench_progress("[ring] warm-up %d/%d: %s %s (%" PRId64 " events)", i + 1, nrows,
		    topo_name(r->v.topo), variant_wait_label(&r->v), pilot);
		topo_result res;
		if (topo_run(&r->v, pilot, run_timeout, &res, err, sizeof err) != 0) {
			fprintf(stderr, "ring_perf: FAILED %s\n", err);
			r->failed = true;
			failures++;
			continue;
		}
		if (res.capped)
			bench_progress("[ring] warm-up of %s %s hit the %.1f s cap: %.0f events/s",
			    topo_name(r->v.topo), variant_wait_label(&r->v), run_timeout, res.events_per_sec);
		if (fixed_events) {
			r->events = pilot;
		} else {
			double want = res.events_per_sec * seconds;
			if (want < 1000)
				want = 1000;
			if (want > (double)max_events)
				want = (double)max_events;
			r->events = topo_round_events(r->v.topo, (int64_t)want);
		}
	}
	if (quick)
		for (int i = 0; i < nrows; i++)
			rows[i].events = topo_round_events(rows[i].v.topo, fixed_events);

	for (int k = 0; k < runs; k++) {
		for (int i = 0; i < nrows; i++) {
			row *r = &rows[i];
			if (r->failed)
				continue;
			bench_progress("[ring] run %d/%d, row %d/%d: %s %s (%" PRId64 " events)", k + 1, runs,
			    i + 1, nrows, topo_name(r->v.topo), variant_wait_label(&r->v), r->events);
			topo_result res;
			if (topo_run(&r->v, r->events, run_timeout, &res, err, sizeof err) != 0) {
				fprintf(stderr, "ring_perf: FAILED %s\n", err);
				r->failed = true;
				failures++;
				continue;
			}
			if (res.capped)
				r->capped++;
			r->rates[r->nrates++] = res.events_per_sec;
		}
	}

	for (int i = 0; i < nrows; i++) {
		row *r = &rows[i];
		if (r->nrates == 0)
			continue;
		double tmp[MAX_RUNS];
		memcpy(tmp, r->rates, sizeof(double) * (size_t)r->nrates);
		r->median = bench_median(tmp, r->nrates);
		r->min = bench_min(r->rates, r->nrates);
		r->max = bench_max(r->rates, r->nrates);
	}

	FILE *csv = bench_open_output(out_path);
	if (csv == NULL)
		return 1;
	fprintf(csv, "topology,wait,producers,consumers,batch,events_per_sec,runs,"
	    "min_events_per_sec,max_events_per_sec\n");
	for (int i = 0; i < nrows; i++) {
		const row *r = &rows[i];
		if (r->failed || r->nrates == 0)
			continue;
		fprintf(csv, "%s,%s,%d,%d,%d,%.0f,%d,%.0f,%.0f\n", topo_name(r->v.topo),
		    variant_wait_label(&r->v), topo_producers(r->v.topo), topo_consumers(r->v.topo),
		    topo_batch(r->v.topo), r->median, r->nrates, r->min, r->max);
	}
	if (fclose(csv) != 0) {
		fprintf(stderr, "ring_perf: error writing %s\n", out_path);
		return 1;
	}

	printf("### Ring topologies (8-byte events, %" PRId64 "-slot rings, atomics: %s%s)\n\n",
	    ring_size, SR_ATOMIC_BACKEND, max_batch ? ", bounded batches" : "");
	printf("Median of %d interleaved runs; events/s.\n\n", runs);
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
			snprintf(note, sizeof note, " (%d/%d runs capped at %.0f s)", r->capped, r->nrates, run_timeout);
		printf("| %s | %s | %d | %d | %d | %s | %s | %s | %" PRId64 "%s |\n", topo_name(r->v.topo),
		    variant_wait_label(&r->v), topo_producers(r->v.topo), topo_consumers(r->v.topo),
		    topo_batch(r->v.topo), bench_fmt_rate(r->median, a, sizeof a),
		    bench_fmt_rate(r->min, b, sizeof b), bench_fmt_rate(r->max, c, sizeof c), r->events, note);
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
	printf("CSV: %s\n", out_path);
	if (failures) {
		fprintf(stderr, "ring_perf: %d run(s) failed\n", failures);
		return 1;
	}
	return 0;
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_stats.h: what the harnesses report of their runs and samples:
 * medians with min and max, nearest-rank percentiles.
 *
 * C and C++ (perf/peers/spdlog links it too); no seqring header.
 */
#ifndef SR_PERF_BENCH_STATS_H
#define SR_PERF_BENCH_STATS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The most measured runs (--runs) a harness takes: a median needs no more. */
#define BENCH_MAX_RUNS 101
#define BENCH_MAX_RUNS_TEXT "101"   /* the same, for messages */

/* Sorts v (n values) in place and returns its median (mean of the middle two); 0 when n <= 0. */
double bench_median(double *v, int n);
double bench_min(const double *v, int n);
double bench_max(const double *v, int n);

/* The median, min and max of a row's runs. */
typedef struct bench_summary {
	double median, min, max;
} bench_summary;

/* Summarises n <= BENCH_MAX_RUNS values, leaving v as it is; all 0 when n <= 0. */
bench_summary bench_summarize(const double *v, int n);

/* Sorts int64 samples ascending (for percentiles). */
void bench_sort_i64(int64_t *v, size_t n);
/* The p-th percentile (0 < p <= 100) of sorted samples, nearest-rank. */
int64_t bench_percentile(const int64_t *sorted, size_t n, double p);

#ifdef __cplusplus
}
#endif

#endif /* SR_PERF_BENCH_STATS_H */

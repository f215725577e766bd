/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_stats.c: see bench_stats.h.
 */
#include "bench_stats.h"

#include <stdlib.h>
#include <string.h>

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double
bench_median(double *v, int n)
{
	if (n <= 0)
		return 0.0;
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

double
bench_min(const double *v, int n)
{
	double m = n > 0 ? v[0] : 0.0;
	for (int i = 1; i < n; i++)
		if (v[i] < m)
			m = v[i];
	return m;
}

double
bench_max(const double *v, int n)
{
	double m = n > 0 ? v[0] : 0.0;
	for (int i = 1; i < n; i++)
		if (v[i] > m)
			m = v[i];
	return m;
}

bench_summary
bench_summarize(const double *v, int n)
{
	bench_summary s = { 0.0, 0.0, 0.0 };
	if (n <= 0)
		return s;
	if (n > BENCH_MAX_RUNS)
		n = BENCH_MAX_RUNS;
	double sorted[BENCH_MAX_RUNS];
	memcpy(sorted, v, sizeof *v * (size_t)n);
	s.median = bench_median(sorted, n);
	s.min = sorted[0];
	s.max = sorted[n - 1];
	return s;
}

static int
cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

void
bench_sort_i64(int64_t *v, size_t n)
{
	qsort(v, n, sizeof *v, cmp_i64);
}

int64_t
bench_percentile(const int64_t *sorted, size_t n, double p)
{
	if (n == 0)
		return 0;
	/* nearest rank: the smallest value with at least p% of samples at or below it */
	double rank = p / 100.0 * (double)n;
	size_t idx = (size_t)rank;
	if ((double)idx < rank)
		idx++;
	if (idx == 0)
		idx = 1;
	if (idx > n)
		idx = n;
	return sorted[idx - 1];
}

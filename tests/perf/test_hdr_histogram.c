/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_hdr_histogram.c: perf/hdr_histogram (the histogram perf/latency
 * records into).
 *
 * The percentiles are checked against the exact nearest-rank value of a
 * sorted array of the same random values: the histogram must answer a value
 * in the same counter as the exact one, at most 1 part in 1,000 above it (3
 * significant digits), never below it.  Also: the geometry, exact small
 * values, the precision bound across the whole range, merging (same and
 * different geometry), reset, clamping and the distribution file.
 *
 * The histogram is perf code, not part of libseqring: this test links perf's
 * common library and is built with the perf suite only.
 */
#include <criterion/criterion.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_support.h"

#include "hdr_histogram.h"

#define HOUR_NS (INT64_C(3600) * 1000000000)

/* xorshift64*: a fixed seed, so a failure reproduces. */
static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static uint64_t
rng_next(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1du;
}

/*
 * Log-uniform-ish values from 1 to about an hour in nanoseconds: a random
 * bit length, then random bits below it, so every decade is exercised (a
 * plain uniform draw would put almost everything in the top bucket).
 */
static int64_t
random_value(void)
{
	for (;;) {
		int bits = (int)(rng_next() % 42); /* 2^41 ns is about 37 minutes */
		int64_t base = INT64_C(1) << bits;
		int64_t v = base + (int64_t)(rng_next() % (uint64_t)base);
		if (v <= HOUR_NS)
			return v;
	}
}

static int
cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

static const double percentiles[] = {
	0, 0.1, 1, 10, 25, 50, 75, 90, 95, 99, 99.5, 99.9, 99.95, 99.99, 99.999, 100
};
#define NPCT (sizeof percentiles / sizeof percentiles[0])

/* h's percentile p must sit within 3 significant digits above the exact one. */
static void
check_against_sorted(const hdr_hist *h, const int64_t *sorted, int64_t n)
{
	for (size_t k = 0; k < NPCT; k++) {
		double p = percentiles[k];
		int64_t exact = sorted[hdr_hist_rank(p, n) - 1];
		int64_t got = hdr_hist_percentile(h, p);
		cr_assert_geq(got, exact, "p%g: %" PRId64 " is below the exact %" PRId64, p, got, exact);
		/* 3 significant digits: at most exact/1000 above (integer division is the stricter bound) */
		cr_assert_leq(got - exact, exact / 1000,
		    "p%g: %" PRId64 " is more than 1/1000 above the exact %" PRId64, p, got, exact);
		/* and precisely the top of the exact value's counter (or the max) */
		int64_t want = hdr_hist_highest_equivalent(h, exact);
		if (want > h->max)
			want = h->max;
		cr_assert_eq(got, want, "p%g: %" PRId64 ", expected %" PRId64 " (exact %" PRId64 ")",
		    p, got, want, exact);
	}
}

Test(hdr_histogram, bad_arguments_are_named)
{
	hdr_hist h;
	sr_error err;
	cr_assert_eq(hdr_hist_init(&h, 0, 3, &err), SR_EINVAL);
	cr_assert(strstr(err.message, "highest 0") != NULL, "message: %s", err.message);
	cr_assert_eq(hdr_hist_init(&h, HOUR_NS, 6, &err), SR_EINVAL);
	cr_assert(strstr(err.message, "digits 6") != NULL, "message: %s", err.message);
	cr_assert_eq(hdr_hist_init(&h, HOUR_NS, 0, &err), SR_EINVAL);
	cr_assert_eq(hdr_hist_init(&h, HDR_HIST_MAX_HIGHEST + 1, 3, &err), SR_EINVAL);
	cr_assert_eq(hdr_hist_merge(NULL, &h, &err), SR_EINVAL);
	hdr_hist_destroy(&h); /* zeroed by the failed init: harmless */
}

Test(hdr_histogram, geometry_for_three_digits_up_to_an_hour)
{
	hdr_hist h;
	cr_assert_eq(hdr_hist_init(&h, HOUR_NS, 3, NULL), SR_OK);
	cr_assert_eq(h.sub_bits, 11);        /* 2^11 = 2048 >= 2 * 10^3 */
	cr_assert_eq(h.bucket_count, 32);    /* 2^41 <= 3.6e12 < 2^42: buckets 0..31 */
	cr_assert_eq(h.counts_len, 33 * 1024);
	cr_assert_eq(hdr_hist_percentile(&h, 50), 0, "empty histogram");
	hdr_hist_destroy(&h);
}

Test(hdr_histogram, small_values_are_exact)
{
	hdr_hist h;
	cr_assert_eq(hdr_hist_init(&h, HOUR_NS, 3, NULL), SR_OK);
	for (int64_t v = 0; v < 2048; v++) {
		cr_assert_eq(hdr_hist_lowest_equivalent(&h, v), v);
		cr_assert_eq(hdr_hist_highest_equivalent(&h, v), v);
		hdr_hist_record(&h, v);
	}
	cr_assert_eq(h.total, 2048);
	cr_assert_eq(hdr_hist_percentile(&h, 50), 1023);
	cr_assert_eq(hdr_hist_percentile(&h, 0), 0);
	cr_assert_eq(hdr_hist_percentile(&h, 100), 2047);
	hdr_hist_destroy(&h);
}

Test(hdr_histogram, precision_bound_holds_across_the_range)
{
	hdr_hist h;
	cr_assert_eq(hdr_hist_init(&h, HOUR_NS, 3, NULL), SR_OK);
	for (int i = 0; i < 200000; i++) {
		int64_t v = random_value();
		int64_t lo = hdr_hist_lowest_equivalent(&h, v);
		int64_t hi = hdr_hist_highest_equivalent(&h, v);
		cr_assert(lo <= v && v <= hi, "%" PRId64 " outside its counter [%" PRId64 ", %" PRId64 "]",
		    v, lo, hi);
		cr_assert_leq(hi - lo, lo / 1000, "counter [%" PRId64 ", %" PRId64 "] is wider than 1/1000",
		    lo, hi);
	}
	/* boundaries of buckets */
	for (int b = 11; b < 42; b++) {
		int64_t v = INT64_C(1) << b;
		cr_assert_eq(hdr_hist_lowest_equivalent(&h, v), v);
		cr_assert_eq(hdr_hist_highest_equivalent(&h, v - 1), v - 1);
	}
	hdr_hist_destroy(&h);
}

Test(hdr_histogram, percentiles_match_a_sorted_array)
{
	enum { N = 100000 };
	int64_t *values = malloc(N * sizeof *values);
	cr_assert_not_null(values);
	hdr_hist h;
	cr_assert_eq(hdr_hist_init(&h, HOUR_NS, 3, NULL), SR_OK);
	for (int i = 0; i < N; i++) {
		values[i] = random_value();
		hdr_hist_record(&h, values[i]);
	}
	qsort(values, N, sizeof *values, cmp_i64);
	cr_assert_eq(h.total, N);
	cr_assert_eq(h.min, values[0]);
	cr_assert_eq(h.max, values[N - 1]);
	check_against_sorted(&h, values, N);

	/* a narrow, latency-like distribution: most values near 200 ns, a tail to 5 ms */
	hdr_hist_reset(&h);
	cr_assert_eq(h.total, 0);
	for (int i = 0; i < N; i++) {
		uint64_t r = rng_next() % 10000;
		values[i] = r < 9900 ? 150 + (int64_t)(rng_next() % 200)
		    : 1000 + (int64_t)(rng_next() % 5000000);
		hdr_hist_record(&h, values[i]);
	}
	qsort(values, N, sizeof *values, cmp_i64);
	check_against_sorted(&h, values, N);
	hdr_hist_destroy(&h);
	free(values);
}

Test(hdr_histogram, merge_equals_recording_everything_in_one)
{
	enum { N = 40000, PARTS = 4 };
	hdr_hist all, parts[PARTS], merged;
	cr_assert_eq(hdr_hist_init(&all, HOUR_NS, 3, NULL), SR_OK);
	cr_assert_eq(hdr_hist_init(&merged, HOUR_NS, 3, NULL), SR_OK);
	for (int p = 0; p < PARTS; p++)
		cr_assert_eq(hdr_hist_init(&parts[p], HOUR_NS, 3, NULL), SR_OK);
	for (int i = 0; i < N; i++) {
		int64_t v = random_value();
		hdr_hist_record(&all, v);
		hdr_hist_record(&parts[i % PARTS], v);
	}
	for (int p = 0; p < PARTS; p++)
		cr_assert_eq(hdr_hist_merge(&merged, &parts[p], NULL), SR_OK);
	cr_assert_eq(merged.total, all.total);
	cr_assert_eq(merged.min, all.min);
	cr_assert_eq(merged.max, all.max);
	cr_assert_eq(memcmp(merged.counts, all.counts, (size_t)all.counts_len * sizeof *all.counts), 0);
	for (size_t k = 0; k < NPCT; k++)
		cr_assert_eq(hdr_hist_percentile(&merged, percentiles[k]),
		    hdr_hist_percentile(&all, percentiles[k]));
	for (int p = 0; p < PARTS; p++)
		hdr_hist_destroy(&parts[p]);
	hdr_hist_destroy(&all);
	hdr_hist_destroy(&merged);
}

Test(hdr_histogram, merge_across_geometries_keeps_the_coarser_precision)
{
	enum { N = 20000 };
	int64_t *values = malloc(N * sizeof *values);
	cr_assert_not_null(values);
	hdr_hist coarse, fine;
	cr_assert_eq(hdr_hist_init(&coarse, INT64_C(1000000000), 2, NULL), SR_OK);
	cr_assert_eq(hdr_hist_init(&fine, HOUR_NS, 3, NULL), SR_OK);
	for (int i = 0; i < N; i++) {
		values[i] = 1 + (int64_t)(rng_next() % 1000000);
		hdr_hist_record(&coarse, values[i]);
	}
	cr_assert_eq(hdr_hist_merge(&fine, &coarse, NULL), SR_OK);
	qsort(values, N, sizeof *values, cmp_i64);
	cr_assert_eq(fine.total, N);
	cr_assert_eq(fine.min, values[0], "the exact extremes survive the merge");
	cr_assert_eq(fine.max, values[N - 1]);
	for (size_t k = 0; k < NPCT; k++) {
		int64_t exact = values[hdr_hist_rank(percentiles[k], N) - 1];
		int64_t got = hdr_hist_percentile(&fine, percentiles[k]);
		/* 2 digits (1/64 per counter), plus the finer histogram's own 1/1024 */
		cr_assert_geq(got, exact);
		cr_assert_leq(got - exact, exact / 50 + 1, "p%g: %" PRId64 " vs exact %" PRId64,
		    percentiles[k], got, exact);
	}
	hdr_hist_destroy(&coarse);
	hdr_hist_destroy(&fine);
	free(values);
}

Test(hdr_histogram, out_of_range_values_are_clamped_and_counted)
{
	hdr_hist h;
	cr_assert_eq(hdr_hist_init(&h, 1000000, 3, NULL), SR_OK);
	hdr_hist_record(&h, 500);
	hdr_hist_record(&h, 5000000000);    /* above highest */
	hdr_hist_record(&h, -7);            /* a clock that went backwards */
	hdr_hist_record_n(&h, 42, 3);
	hdr_hist_record_n(&h, 42, 0);       /* ignored */
	cr_assert_eq(h.total, 6);
	cr_assert_eq(h.clamped, 2);
	cr_assert_eq(h.max, 5000000000, "the exact maximum is kept");
	cr_assert_eq(h.min, -7);
	cr_assert_eq(hdr_hist_percentile(&h, 100), 5000000000);
	cr_assert_eq(hdr_hist_percentile(&h, 0), -7);
	cr_assert_eq(hdr_hist_percentile(&h, 50), 42);
	hdr_hist_destroy(&h);
}

Test(hdr_histogram, rank_is_nearest_rank)
{
	cr_assert_eq(hdr_hist_rank(50, 10), 5);
	cr_assert_eq(hdr_hist_rank(50, 11), 6);
	cr_assert_eq(hdr_hist_rank(99.99, 10000), 9999);
	cr_assert_eq(hdr_hist_rank(99.99, 160000), 159984);
	cr_assert_eq(hdr_hist_rank(0, 10), 1);
	cr_assert_eq(hdr_hist_rank(100, 10), 10);
	cr_assert_eq(hdr_hist_rank(0.001, 10), 1);
	cr_assert_eq(hdr_hist_rank(50, 0), 0);
}

Test(hdr_histogram, distribution_file_is_monotonic_and_ends_at_the_max)
{
	hdr_hist h;
	cr_assert_eq(hdr_hist_init(&h, HOUR_NS, 3, NULL), SR_OK);
	for (int i = 0; i < 50000; i++)
		hdr_hist_record(&h, 100 + (int64_t)(rng_next() % 100000));
	FILE *f = tmpfile();
	cr_assert_not_null(f);
	cr_assert_eq(hdr_hist_write_distribution(&h, f, 5, NULL), SR_OK);
	sr_error err;
	cr_assert_eq(hdr_hist_write_distribution(&h, f, 0, &err), SR_EINVAL);
	cr_assert(strstr(err.message, "ticks_per_half 0") != NULL, "message: %s", err.message);
	rewind(f);
	char line[256];
	double last_q = -1;
	int64_t last_v = -1;
	int rows = 0;
	bool saw_end = false;
	while (fgets(line, sizeof line, f) != NULL) {
		if (line[0] == '#')
			continue;
		double q, inv;
		int64_t v;
		int n = sscanf(line, "%lf %" SCNd64 " %lf", &q, &v, &inv);
		cr_assert(n == 2 || n == 3, "bad line: %s", line);
		cr_assert_geq(q, last_q, "percentiles go up: %s", line);
		cr_assert_geq(v, last_v, "values go up: %s", line);
		if (n == 3) {
			cr_assert(q < 1.0);
			cr_assert_float_eq(inv, 1.0 / (1.0 - q), 0.01, "1/(1-p) column: %s", line);
		} else {
			cr_assert_float_eq(q, 1.0, 1e-12, "only the 100%% line lacks 1/(1-p)");
			cr_assert_eq(v, h.max);
			saw_end = true;
		}
		last_q = q;
		last_v = v;
		rows++;
	}
	cr_assert(saw_end, "no 100%% line");
	/* 5 ticks per halving, down to one value in 50,000 (about 16 halvings) */
	cr_assert(rows > 50 && rows < 120, "%d rows", rows);
	fclose(f);
	hdr_hist_destroy(&h);
}

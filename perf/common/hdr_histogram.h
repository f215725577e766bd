/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hdr_histogram.h: a small high-dynamic-range histogram for the perf
 * harnesses (perf/latency records every call's service and response time).
 *
 * Debian packages no C HdrHistogram (only the Java and Go ones), so this is
 * our own, on the same idea: log-linear buckets.  Values below 2^S (S =
 * sub_bits, 11 for 3 significant digits) each have their own counter;
 * above, each power-of-two range [2^k, 2^(k+1)) is cut into 2^(S-1) equal
 * counters, so any value is known to within 1 part in 2^(S-1) (1/1024 for 3
 * digits: better than the 1/1000 that 3 significant digits promise).
 *
 * With 3 digits and values up to an hour in nanoseconds (3.6e12) that is
 * 33,792 counters (264 KiB), allocated once by hdr_hist_init.  Recording is
 * O(1) (a count-leading-zeros, two shifts, an add) and never allocates, so
 * it can sit on a timed path.
 *
 * A value outside [0, highest] is not lost: it is counted at the nearest end
 * of the range and in `clamped`, and min/max keep the exact extremes, so a
 * freak stall still shows as the maximum.
 *
 * Not thread-safe: one thread records into a histogram; merge per-thread
 * histograms after joining the threads.
 */
#ifndef SR_HDR_HISTOGRAM_H
#define SR_HDR_HISTOGRAM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <seqring/sr_error.h>

/* Significant decimal digits: 1 to 5 (5 digits cost 2^17 counters per power of two). */
#define HDR_HIST_MIN_DIGITS 1
#define HDR_HIST_MAX_DIGITS 5
/* Largest `highest`: leaves headroom below INT64_MAX for the bucket arithmetic. */
#define HDR_HIST_MAX_HIGHEST (INT64_C(1) << 60)

typedef struct hdr_hist {
	int64_t highest;     /* largest value recorded without clamping */
	int digits;          /* significant decimal digits kept */
	int sub_bits;        /* values below 2^sub_bits are exact */
	int bucket_count;    /* power-of-two ranges above the exact one, plus one */
	int64_t counts_len;
	int64_t *counts;
	int64_t total;       /* values recorded (clamped ones included) */
	int64_t clamped;     /* values below 0 or above highest */
	int64_t min, max;    /* exact extremes recorded (INT64_MAX / INT64_MIN when empty) */
} hdr_hist;

/*
 * Sets up an empty histogram for values 0 to highest (1 to
 * HDR_HIST_MAX_HIGHEST) kept to `digits` significant digits.  SR_OK, or
 * SR_EINVAL naming the bad argument, or SR_ENOMEM.
 */
int hdr_hist_init(hdr_hist *h, int64_t highest, int digits, sr_error *err);

/* Frees the counters; *h may be initialised again.  Harmless on a zeroed struct. */
void hdr_hist_destroy(hdr_hist *h);

/* Forgets every value (keeps the geometry and the memory). */
void hdr_hist_reset(hdr_hist *h);

/* Records one value, or n copies of it (n >= 1).  O(1), no allocation. */
void hdr_hist_record(hdr_hist *h, int64_t value);
void hdr_hist_record_n(hdr_hist *h, int64_t value, int64_t n);

/*
 * Adds src's values to dst.  Histograms of the same geometry add counter by
 * counter; otherwise every counter of src is re-recorded at its value (its
 * range's highest value, so precision is that of the coarser of the two).
 * SR_OK, or SR_EINVAL for NULL or uninitialised histograms.
 */
int hdr_hist_merge(hdr_hist *dst, const hdr_hist *src, sr_error *err);

/*
 * The nearest-rank position of percentile p (0 to 100) among total values:
 * the smallest rank r (1-based) with at least p% of the values at or below
 * it; 1 for p = 0.  Exposed so that a check against sorted samples uses the
 * same rank.
 */
int64_t hdr_hist_rank(double p, int64_t total);

/*
 * The value at percentile p (0 to 100; out-of-range p is clamped): the
 * highest value equivalent to the rank-th smallest recorded value (within
 * the precision), never above max nor below min.  p = 0 gives min, p = 100
 * max.  0 when empty.
 */
int64_t hdr_hist_percentile(const hdr_hist *h, double p);

/* The smallest and largest values counted in the same counter as v. */
int64_t hdr_hist_lowest_equivalent(const hdr_hist *h, int64_t v);
int64_t hdr_hist_highest_equivalent(const hdr_hist *h, int64_t v);

/* Mean of the recorded values, each taken at its counter's midpoint; 0 when empty. */
double hdr_hist_mean(const hdr_hist *h);

/*
 * Writes the percentile distribution for plotting, as HdrHistogram's
 * outputPercentileDistribution does: percentile levels 0, then
 * ticks_per_half steps in each halving of the distance to 100% (0-50%,
 * 50-75%, 75-87.5%, ...) until the last value, then the 100% line.  Columns
 * (after a '#' header line): percentile (a fraction, 0 to 1), value (in the
 * recorded unit), 1/(1-percentile).  The 100% line has no third column
 * (it would be infinite), as in HdrHistogram's files.  '#' lines at the end
 * give mean, max, total and clamped.  SR_OK, SR_EINVAL for a bad argument,
 * SR_ESYS when writing fails.
 */
int hdr_hist_write_distribution(const hdr_hist *h, FILE *out, int ticks_per_half, sr_error *err);

#endif /* SR_HDR_HISTOGRAM_H */

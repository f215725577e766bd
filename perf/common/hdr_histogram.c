/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hdr_histogram.c: see hdr_histogram.h.
 *
 * Layout of the counters, with S = sub_bits and H = 2^(S-1):
 *   bucket 0 holds 0 .. 2^S - 1, one counter per value (indices 0 .. 2^S - 1);
 *   bucket b >= 1 holds [2^(S-1+b), 2^(S+b)) in H counters of width 2^b,
 *   at indices (b + 1) * H .. (b + 2) * H - 1.
 * A value v falls in bucket b = floor(log2(v | (2^S - 1))) - (S - 1), and its
 * index is (b << (S-1)) + (v >> b): for b = 0 that is v itself, for b >= 1
 * the sub-bucket v >> b runs over H .. 2H - 1, so buckets sit end to end.
 */
#include "hdr_histogram.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* floor(log2(v)) for v >= 1. */
static inline int
log2_floor(uint64_t v)
{
	return 63 - __builtin_clzll(v);
}

static inline int64_t
index_of(const hdr_hist *h, int64_t v)
{
	uint64_t mask = ((uint64_t)1 << h->sub_bits) - 1;
	int bucket = log2_floor((uint64_t)v | mask) - (h->sub_bits - 1);
	return ((int64_t)bucket << (h->sub_bits - 1)) + (v >> bucket);
}

/* The lowest value of counter i and the width of its range. */
static inline void
range_of(const hdr_hist *h, int64_t i, int64_t *lo, int64_t *width)
{
	int64_t exact = INT64_C(1) << h->sub_bits;
	if (i < exact) {
		*lo = i;
		*width = 1;
		return;
	}
	int bucket = (int)(i >> (h->sub_bits - 1)) - 1;
	int64_t sub = i - ((int64_t)bucket << (h->sub_bits - 1));
	*lo = sub << bucket;
	*width = INT64_C(1) << bucket;
}

static inline int64_t
highest_of(const hdr_hist *h, int64_t i)
{
	int64_t lo, width;
	range_of(h, i, &lo, &width);
	return lo + width - 1;
}

int
hdr_hist_init(hdr_hist *h, int64_t highest, int digits, sr_error *err)
{
	if (h == NULL)
		return sr_error_set(err, SR_EINVAL, "hdr_hist_init: the histogram is NULL");
	memset(h, 0, sizeof *h);
	if (highest < 1 || highest > HDR_HIST_MAX_HIGHEST)
		return sr_error_set(err, SR_EINVAL,
		    "hdr_hist_init: highest %" PRId64 " is out of range: expected 1 to %" PRId64,
		    highest, HDR_HIST_MAX_HIGHEST);
	if (digits < HDR_HIST_MIN_DIGITS || digits > HDR_HIST_MAX_DIGITS)
		return sr_error_set(err, SR_EINVAL,
		    "hdr_hist_init: digits %d is out of range: expected %d to %d",
		    digits, HDR_HIST_MIN_DIGITS, HDR_HIST_MAX_DIGITS);
	/*
	 * 2^(S-1) counters per power of two must resolve 1 part in 10^digits, so
	 * 2^S >= 2 * 10^digits.
	 */
	int64_t need = 2;
	for (int d = 0; d < digits; d++)
		need *= 10;
	int sub_bits = 1;
	while ((INT64_C(1) << sub_bits) < need)
		sub_bits++;
	int top = log2_floor((uint64_t)highest | (((uint64_t)1 << sub_bits) - 1));
	int bucket_count = top - (sub_bits - 1) + 1;
	int64_t len = (int64_t)(bucket_count + 1) << (sub_bits - 1);
	int64_t *counts = calloc((size_t)len, sizeof *counts);
	if (counts == NULL)
		return sr_error_set(err, SR_ENOMEM, "hdr_hist_init: cannot allocate %" PRId64 " counters", len);
	h->highest = highest;
	h->digits = digits;
	h->sub_bits = sub_bits;
	h->bucket_count = bucket_count;
	h->counts_len = len;
	h->counts = counts;
	h->min = INT64_MAX;
	h->max = INT64_MIN;
	return SR_OK;
}

void
hdr_hist_destroy(hdr_hist *h)
{
	if (h == NULL)
		return;
	free(h->counts);
	memset(h, 0, sizeof *h);
}

void
hdr_hist_reset(hdr_hist *h)
{
	if (h->counts != NULL)
		memset(h->counts, 0, (size_t)h->counts_len * sizeof *h->counts);
	h->total = 0;
	h->clamped = 0;
	h->min = INT64_MAX;
	h->max = INT64_MIN;
}

void
hdr_hist_record_n(hdr_hist *h, int64_t value, int64_t n)
{
	if (n < 1)
		return;
	/* The extremes stay exact even for a value that has to be clamped. */
	if (value < h->min)
		h->min = value;
	if (value > h->max)
		h->max = value;
	int64_t v = value;
	if (v < 0 || v > h->highest) {
		v = v < 0 ? 0 : h->highest;
		h->clamped += n;
	}
	h->counts[index_of(h, v)] += n;
	h->total += n;
}

void
hdr_hist_record(hdr_hist *h, int64_t value)
{
	hdr_hist_record_n(h, value, 1);
}

int
hdr_hist_merge(hdr_hist *dst, const hdr_hist *src, sr_error *err)
{
	if (dst == NULL || src == NULL || dst->counts == NULL || src->counts == NULL)
		return sr_error_set(err, SR_EINVAL, "hdr_hist_merge: a histogram is NULL or not initialised");
	if (src->total == 0)
		return SR_OK;
	if (dst->sub_bits == src->sub_bits && dst->counts_len == src->counts_len) {
		for (int64_t i = 0; i < src->counts_len; i++)
			dst->counts[i] += src->counts[i];
		dst->total += src->total;
		dst->clamped += src->clamped;
	} else {
		/*
		 * Different geometry: re-record each counter at its highest value.
		 * Those stand-ins must not become the extremes: keep the exact ones.
		 */
		int64_t min = dst->min, max = dst->max;
		for (int64_t i = 0; i < src->counts_len; i++)
			if (src->counts[i] != 0)
				hdr_hist_record_n(dst, highest_of(src, i), src->counts[i]);
		dst->clamped += src->clamped;
		dst->min = min;
		dst->max = max;
	}
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	return SR_OK;
}

int64_t
hdr_hist_rank(double p, int64_t total)
{
	if (total <= 0)
		return 0;
	if (!(p > 0))
		return 1;
	if (p >= 100)
		return total;
	/*
	 * ceil(p% of total), shaved by one part in 10^12 so that 99.99% of
	 * 10,000 (computed as 9999.000000000002) is rank 9999, not 10000.
	 */
	double r = p / 100.0 * (double)total * (1.0 - 1e-12);
	int64_t k = (int64_t)r;
	if ((double)k < r)
		k++;
	if (k < 1)
		k = 1;
	if (k > total)
		k = total;
	return k;
}

int64_t
hdr_hist_percentile(const hdr_hist *h, double p)
{
	if (h == NULL || h->total == 0)
		return 0;
	if (!(p > 0))
		return h->min;
	if (p >= 100)
		return h->max;
	int64_t target = hdr_hist_rank(p, h->total);
	int64_t seen = 0;
	for (int64_t i = 0; i < h->counts_len; i++) {
		seen += h->counts[i];
		if (seen >= target) {
			int64_t v = highest_of(h, i);
			if (v > h->max)
				v = h->max;
			if (v < h->min)
				v = h->min;
			return v;
		}
	}
	return h->max;
}

/* The counter v is recorded in, v clamped to [0, highest] as hdr_hist_record_n does. */
static inline int64_t
counter_of(const hdr_hist *h, int64_t v)
{
	return index_of(h, v < 0 ? 0 : v > h->highest ? h->highest : v);
}

int64_t
hdr_hist_lowest_equivalent(const hdr_hist *h, int64_t v)
{
	int64_t lo, width;
	range_of(h, counter_of(h, v), &lo, &width);
	return lo;
}

int64_t
hdr_hist_highest_equivalent(const hdr_hist *h, int64_t v)
{
	return highest_of(h, counter_of(h, v));
}

double
hdr_hist_mean(const hdr_hist *h)
{
	if (h == NULL || h->total == 0)
		return 0.0;
	double sum = 0.0;
	for (int64_t i = 0; i < h->counts_len; i++) {
		if (h->counts[i] == 0)
			continue;
		int64_t lo, width;
		range_of(h, i, &lo, &width);
		sum += (double)h->counts[i] * ((double)lo + (double)(width - 1) / 2.0);
	}
	return sum / (double)h->total;
}

int
hdr_hist_write_distribution(const hdr_hist *h, FILE *out, int ticks_per_half, sr_error *err)
{
	if (h == NULL || h->counts == NULL || out == NULL)
		return sr_error_set(err, SR_EINVAL, "hdr_hist_write_distribution: NULL histogram or file");
	if (ticks_per_half < 1 || ticks_per_half > 1000)
		return sr_error_set(err, SR_EINVAL,
		    "hdr_hist_write_distribution: ticks_per_half %d is out of range: expected 1 to 1000",
		    ticks_per_half);
	fprintf(out, "# percentile value 1/(1-percentile)\n");
	if (h->total > 0) {
		/*
		 * Level k covers [1 - 2^-k, 1 - 2^-(k+1)) in ticks_per_half steps;
		 * stop once a level's rank is the last value (further levels would
		 * all repeat it), then give the 100% line.
		 */
		bool done = false;
		double remaining = 1.0; /* 2^-k */
		for (int k = 0; k < 62 && !done; k++, remaining /= 2) {
			double step = remaining / 2 / ticks_per_half;
			for (int j = 0; j < ticks_per_half; j++) {
				double q = 1.0 - remaining + j * step;
				fprintf(out, "%.12f %" PRId64 " %.2f\n", q, hdr_hist_percentile(h, q * 100.0),
				    1.0 / (1.0 - q));
				if (hdr_hist_rank(q * 100.0, h->total) >= h->total) {
					done = true;
					break;
				}
			}
		}
		fprintf(out, "%.12f %" PRId64 "\n", 1.0, h->max);
		fprintf(out, "#[Mean = %.1f, Max = %" PRId64 ", Total count = %" PRId64
		    ", Clamped = %" PRId64 "]\n", hdr_hist_mean(h), h->max, h->total, h->clamped);
	} else {
		fprintf(out, "#[Total count = 0]\n");
	}
	fprintf(out, "#[Buckets = %d, SubBuckets = %d, Digits = %d, Highest = %" PRId64 "]\n",
	    h->bucket_count, 1 << h->sub_bits, h->digits, h->highest);
	if (ferror(out))
		return sr_error_set(err, SR_ESYS, "hdr_hist_write_distribution: write failed: %s",
		    strerror(errno));
	return SR_OK;
}

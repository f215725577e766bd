/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ex_histogram.c: the examples' latency histogram (ex_histogram.h).
 */
#include "ex_histogram.h"

static int
bucket_of(int64_t v)
{
	if (v < EX_HIST_SUB)
		return v < 0 ? 0 : (int)v;
	int msb = 63 - __builtin_clzll((unsigned long long)v);
	int shift = msb - 4; /* keep the top 5 bits: the leading one and 4 below it */
	return (shift + 1) * EX_HIST_SUB + (int)((v >> shift) & (EX_HIST_SUB - 1));
}

/* The middle of bucket i. */
static double
bucket_value(int i)
{
	if (i < EX_HIST_SUB)
		return i;
	int shift = i / EX_HIST_SUB - 1;
	double lo = (double)((int64_t)(EX_HIST_SUB + i % EX_HIST_SUB) << shift);
	return lo + (double)((int64_t)1 << shift) / 2;
}

void
ex_hist_add(ex_hist *h, int64_t v)
{
	h->count[bucket_of(v)]++;
	h->n++;
	h->sum += v;
	if (v > h->max)
		h->max = v;
}

void
ex_hist_merge(ex_hist *into, const ex_hist *from)
{
	for (int i = 0; i < EX_HIST_BUCKETS; i++)
		into->count[i] += from->count[i];
	into->n += from->n;
	into->sum += from->sum;
	if (from->max > into->max)
		into->max = from->max;
}

double
ex_hist_quantile(const ex_hist *h, double p)
{
	if (h->n == 0)
		return 0;
	uint64_t rank = (uint64_t)(p * (double)h->n + 0.999999);
	if (rank < 1)
		rank = 1;
	uint64_t seen = 0;
	for (int i = 0; i < EX_HIST_BUCKETS; i++) {
		seen += h->count[i];
		if (seen >= rank) {
			double v = bucket_value(i);
			return v > (double)h->max ? (double)h->max : v;
		}
	}
	return (double)h->max;
}

double
ex_hist_mean(const ex_hist *h)
{
	return h->n ? (double)h->sum / (double)h->n : 0;
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ex_histogram.h: a latency histogram for the examples: 16 buckets per power
 * of two (a value is known within ~6%), with the exact count, sum and max.
 * One per thread, merged at the end: adding is a few plain stores.
 */
#ifndef SEQRING_EXAMPLES_EX_HISTOGRAM_H
#define SEQRING_EXAMPLES_EX_HISTOGRAM_H

#include <stdint.h>

#define EX_HIST_SUB 16
#define EX_HIST_BUCKETS (61 * EX_HIST_SUB)

/* All zero is an empty histogram. */
typedef struct ex_hist {
	uint64_t n;
	int64_t max;
	int64_t sum;
	uint64_t count[EX_HIST_BUCKETS];
} ex_hist;

void ex_hist_add(ex_hist *h, int64_t v);
void ex_hist_merge(ex_hist *into, const ex_hist *from);

/* The p-th quantile (0 < p <= 1), or 0 for an empty histogram.  Never above the max. */
double ex_hist_quantile(const ex_hist *h, double p);

/* The exact mean, or 0 for an empty histogram. */
double ex_hist_mean(const ex_hist *h);

#endif /* SEQRING_EXAMPLES_EX_HISTOGRAM_H */

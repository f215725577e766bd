/* SPDX-License-Identifier: Apache-2.0 */
/*
 * log_wake.c: how long a call made after a quiet spell takes to reach its
 * sink, the measure of how an idle consumer is woken (the producer tests
 * assert it, stress_log_producer --idle reports it).
 */
#include <sched.h>
#include <stdlib.h>

#include "log_support.h"
#include <seqring/sr_atomic.h>
#include <seqring/sr_time.h>

int
tl_stamp_write(void *ctx, sr_log_level level, const char *line, size_t len)
{
	(void)level;
	(void)line;
	(void)len;
	/* pairs with tl_call_to_line's load-acquire */
	sr_atomic_store_release_i64(&((tl_stamp_sink *)ctx)->seen_at, sr_monotonic_ns());
	return 0;
}

static int
cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

void
tl_call_to_line(sr_category *cat, tl_stamp_sink *st, int64_t quiet_ns, int n, int64_t *lat)
{
	for (int i = 0; i < n; i++) {
		sr_sleep_ns(quiet_ns);
		int64_t before = sr_monotonic_ns();
		SR_INFO(cat, "wake %d", i);
		/* pairs with the sink's store-release */
		while (sr_atomic_load_acquire_i64(&st->seen_at) < before)
			sched_yield();
		lat[i] = sr_atomic_load_acquire_i64(&st->seen_at) - before;
	}
	qsort(lat, (size_t)n, sizeof lat[0], cmp_i64);
}

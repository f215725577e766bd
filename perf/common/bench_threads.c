/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_threads.c: see bench_threads.h.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "bench_threads.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

bool
bench_start_gate_wait(bench_start_gate *g, int64_t *origin)
{
	pthread_mutex_lock(&g->lock);
	g->ready++;
	pthread_cond_broadcast(&g->cond);
	while (!g->open)
		pthread_cond_wait(&g->cond, &g->lock);
	bool go = !g->abort;
	if (origin != NULL)
		*origin = g->origin;
	pthread_mutex_unlock(&g->lock);
	return go;
}

bool
bench_run_threads(bench_start_gate *g, int n, void *(*fn)(void *), void *args, size_t stride,
    int64_t (*origin)(void), char *err, size_t errsize)
{
	pthread_t *threads = calloc((size_t)n, sizeof *threads);
	if (threads == NULL) {
		snprintf(err, errsize, "out of memory for %d threads", n);
		return false;
	}
	memset(g, 0, sizeof *g);
	pthread_mutex_init(&g->lock, NULL);
	pthread_cond_init(&g->cond, NULL);
	int created = 0;
	for (int t = 0; t < n; t++) {
		int rc = pthread_create(&threads[t], NULL, fn, (char *)args + (size_t)t * stride);
		if (rc != 0) {
			snprintf(err, errsize, "cannot start thread %d of %d: %s", t + 1, n, strerror(rc));
			break;
		}
		created++;
	}
	pthread_mutex_lock(&g->lock);
	while (g->ready < created)
		pthread_cond_wait(&g->cond, &g->lock);
	g->origin = origin != NULL ? origin() : 0;
	g->open = true;
	g->abort = created < n;
	pthread_cond_broadcast(&g->cond);
	pthread_mutex_unlock(&g->lock);
	for (int t = 0; t < created; t++)
		pthread_join(threads[t], NULL);
	pthread_cond_destroy(&g->cond);
	pthread_mutex_destroy(&g->lock);
	free(threads);
	return created == n;
}

void
bench_finish_gate_init(bench_finish_gate *g)
{
	pthread_condattr_t attr;
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&g->cond, &attr);
	pthread_condattr_destroy(&attr);
	pthread_mutex_init(&g->mutex, NULL);
	g->finished = 0;
}

void
bench_finish_gate_destroy(bench_finish_gate *g)
{
	pthread_cond_destroy(&g->cond);
	pthread_mutex_destroy(&g->mutex);
}

void
bench_finish_gate_arrive(bench_finish_gate *g)
{
	pthread_mutex_lock(&g->mutex);
	g->finished++;
	pthread_cond_broadcast(&g->cond);
	pthread_mutex_unlock(&g->mutex);
}

bool
bench_finish_gate_wait(bench_finish_gate *g, int count, int64_t deadline_ns)
{
	struct timespec ts = { (time_t)(deadline_ns / 1000000000), (long)(deadline_ns % 1000000000) };
	pthread_mutex_lock(&g->mutex);
	while (g->finished < count) {
		if (deadline_ns == INT64_MAX)
			pthread_cond_wait(&g->cond, &g->mutex);
		else if (pthread_cond_timedwait(&g->cond, &g->mutex, &ts) == ETIMEDOUT)
			break;
	}
	bool all = g->finished >= count;
	pthread_mutex_unlock(&g->mutex);
	return all;
}

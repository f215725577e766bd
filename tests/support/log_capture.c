/* SPDX-License-Identifier: Apache-2.0 */
/*
 * log_capture.c: a callback sink that keeps every line, and can be paused
 * to hold the logger's consumer inside it (the ring then fills behind it).
 */
#include "test_log_support.h"

void
tl_capture_init(tl_capture *c)
{
	memset(c, 0, sizeof *c);
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->cond, NULL);
	c->caller = pthread_self();
}

void
tl_capture_free(tl_capture *c)
{
	for (size_t i = 0; i < c->count; i++)
		free(c->lines[i]);
	free(c->lines);
	free(c->levels);
	pthread_mutex_destroy(&c->lock);
	pthread_cond_destroy(&c->cond);
}

int
tl_capture_write(void *ctx, sr_log_level level, const char *line, size_t len)
{
	tl_capture *c = ctx;
	pthread_mutex_lock(&c->lock);
	while (c->paused && !pthread_equal(pthread_self(), c->caller)) {
		c->in_write = true;
		pthread_cond_broadcast(&c->cond);
		pthread_cond_wait(&c->cond, &c->lock);
	}
	c->in_write = false;
	if (c->fail_with != 0) {
		pthread_mutex_unlock(&c->lock);
		return c->fail_with;
	}
	if (c->count == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 64;
		c->lines = realloc(c->lines, c->cap * sizeof *c->lines);
		c->levels = realloc(c->levels, c->cap * sizeof *c->levels);
	}
	bool newline = len > 0 && line[len - 1] == '\n';
	if (c->newline_required)
		cr_assert(newline, "every line ends with a newline");
	c->lines[c->count] = strndup(line, newline ? len - 1 : len);
	c->levels[c->count] = level;
	c->count++;
	pthread_mutex_unlock(&c->lock);
	return 0;
}

/* One more call of a callback, counted in *counter under the capture's lock. */
static void
count_call(tl_capture *c, int *counter)
{
	pthread_mutex_lock(&c->lock);
	(*counter)++;
	pthread_mutex_unlock(&c->lock);
}

void
tl_capture_flush(void *ctx)
{
	tl_capture *c = ctx;
	count_call(c, &c->flushes);
}

void
tl_capture_close(void *ctx)
{
	tl_capture *c = ctx;
	count_call(c, &c->closes);
}

sr_sink_config
tl_capture_sink(tl_capture *c)
{
	sr_sink_config s = sr_sink_callback(tl_capture_write, c);
	s.flush = tl_capture_flush;
	s.close = tl_capture_close;
	return s;
}

size_t
tl_capture_count(tl_capture *c)
{
	pthread_mutex_lock(&c->lock);
	size_t n = c->count;
	pthread_mutex_unlock(&c->lock);
	return n;
}

/* The lines in c that contain needle, or (exact) that are needle. */
static size_t
count_matching(tl_capture *c, const char *needle, bool exact)
{
	size_t n = 0;
	pthread_mutex_lock(&c->lock);
	for (size_t i = 0; i < c->count; i++)
		if (exact ? strcmp(c->lines[i], needle) == 0 : strstr(c->lines[i], needle) != NULL)
			n++;
	pthread_mutex_unlock(&c->lock);
	return n;
}

size_t
tl_capture_grep(tl_capture *c, const char *needle)
{
	return count_matching(c, needle, false);
}

size_t
tl_capture_exact(tl_capture *c, const char *line)
{
	return count_matching(c, line, true);
}

void
tl_capture_pause(tl_capture *c)
{
	pthread_mutex_lock(&c->lock);
	c->paused = true;
	pthread_mutex_unlock(&c->lock);
}

void
tl_capture_wait_stuck(tl_capture *c)
{
	pthread_mutex_lock(&c->lock);
	while (!c->in_write)
		pthread_cond_wait(&c->cond, &c->lock);
	pthread_mutex_unlock(&c->lock);
}

void
tl_capture_resume(tl_capture *c)
{
	pthread_mutex_lock(&c->lock);
	c->paused = false;
	pthread_cond_broadcast(&c->cond);
	pthread_mutex_unlock(&c->lock);
}

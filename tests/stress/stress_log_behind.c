/* SPDX-License-Identifier: Apache-2.0 */
/*
 * stress_log_behind.c: a file sink's write-behind under load (the TSan
 * build runs it).  Threads log bursts while the consumer is held in a
 * second sink, so that it falls behind and hands batch after batch to the
 * file sink's writer thread; flushes and a reopen after a rename come
 * between the bursts.  Every line is in the files exactly
 * once, whole, each thread's in order; a flush finds every line so far in
 * the files; the writer took batches (on two CPUs or more).
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log_support.h"
#include "sr_log_sink_behind_internal.h"
#include "sr_log_sink_internal.h"
#include <seqring/sr_log.h>

#if defined(__SANITIZE_THREAD__)
enum { THREADS = 2, EACH = 5000, BURSTS = 4 };
#else
enum { THREADS = 4, EACH = 10000, BURSTS = 6 };
#endif

/* The holding sink: its write of the "hold" line waits until released. */
static pthread_mutex_t hold_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t hold_cond = PTHREAD_COND_INITIALIZER;
static bool holding, held;

static int
hold_write(void *ctx, sr_log_level level, const char *line, size_t len)
{
	(void)ctx;
	(void)level;
	if (len < 4 || memcmp(line, "hold", 4) != 0)
		return 0;
	pthread_mutex_lock(&hold_lock);
	held = true;
	pthread_cond_broadcast(&hold_cond);
	while (holding)
		pthread_cond_wait(&hold_cond, &hold_lock);
	held = false;
	pthread_mutex_unlock(&hold_lock);
	return 0;
}

typedef struct worker {
	sr_category *cat;
	int t, from;
} worker;

static void *
work(void *arg)
{
	worker *w = arg;
	for (int i = w->from; i < w->from + EACH; i++)
		SR_INFO(w->cat, "t=%d i=%d end", w->t, i);
	return NULL;
}

/* One burst: the consumer held, THREADS threads log EACH lines each (numbered from `from`), then let go. */
static void
burst(sr_category *cat, int from)
{
	pthread_mutex_lock(&hold_lock);
	holding = true;
	pthread_mutex_unlock(&hold_lock);
	SR_WARN(cat, "hold");
	pthread_mutex_lock(&hold_lock);
	while (!held)
		pthread_cond_wait(&hold_cond, &hold_lock);
	pthread_mutex_unlock(&hold_lock);
	pthread_t th[THREADS];
	worker w[THREADS];
	for (int t = 0; t < THREADS; t++) {
		w[t] = (worker){ cat, t, from };
		if (pthread_create(&th[t], NULL, work, &w[t]) != 0)
			tl_fail("pthread_create failed");
	}
	for (int t = 0; t < THREADS; t++)
		pthread_join(th[t], NULL);
	pthread_mutex_lock(&hold_lock);
	holding = false;
	pthread_cond_broadcast(&hold_cond);
	pthread_mutex_unlock(&hold_lock);
}

/* Reads the numbered lines of path into next[] (each thread's next number); returns the lines read. */
static int
check_file(const char *path, int next[THREADS])
{
	FILE *f = fopen(path, "r");
	if (f == NULL)
		tl_fail("%s: %s", path, strerror(errno));
	char line[512];
	int count = 0;
	while (fgets(line, sizeof line, f) != NULL) {
		const char *p = strstr(line, "t=");
		if (p == NULL)
			continue;
		int t, i;
		if (sscanf(p, "t=%d i=%d", &t, &i) != 2 || t < 0 || t >= THREADS)
			tl_fail("%s: a line cut or garbled: %s", path, line);
		size_t len = strlen(line);
		if (len == 0 || line[len - 1] != '\n' || strstr(p, " end") == NULL)
			tl_fail("%s: a line not whole: %s", path, line);
		if (i != next[t])
			tl_fail("%s: thread %d's line %d where %d was next", path, t, i, next[t]);
		next[t] = i + 1;
		count++;
	}
	fclose(f);
	return count;
}

int
main(void)
{
	const char *dir = tl_program_dir("stress_log_behind");
	char path[512], moved[520];
	snprintf(path, sizeof path, "%s/app.log", dir);
	snprintf(moved, sizeof moved, "%s/app.log.old", dir);
	sr_sink_config sinks[2] = { sr_sink_file(path), sr_sink_callback(hold_write, NULL) };
	sinks[1].level = SR_LOG_WARN;
	sinks[1].layout = SR_LOG_LAYOUT_MESSAGE;
	sr_log_config c;
	sr_log_config_default(&c);
	c.ignore_environment = true;
	c.sinks = sinks;
	c.sink_count = 2;
	c.full_policy = SR_LOG_FULL_BLOCK;
	c.thread_ring_slots = 32768;  /* a burst's EACH lines of a thread fit its ring */
	sr_error err;
	sr_log *log = sr_log_open(&c, &err);
	if (log == NULL)
		tl_fail("sr_log_open: %s", err.message);
	sr_category *cat = sr_log_category(log, "behind");
	int from = 0;
	for (int b = 0; b < BURSTS; b++) {
		burst(cat, from);
		from += EACH;
		if (b == BURSTS / 2) {
			/* What was handed before goes to the renamed file: nothing is written twice or lost. */
			if (sr_log_flush(log) != SR_OK || rename(path, moved) != 0 || sr_log_reopen(log) != SR_OK)
				tl_fail("flush, rename or reopen failed: %s", strerror(errno));
		} else if (b % 2 == 1) {
			if (sr_log_flush(log) != SR_OK)
				tl_fail("sr_log_flush failed");
			int next[THREADS] = { 0 };
			int lines = (b > BURSTS / 2 ? check_file(moved, next) : 0) + check_file(path, next);
			if (lines != THREADS * from)
				tl_fail("after a flush, %d lines in the files where %d were logged", lines, THREADS * from);
		}
	}
	const sr_log_sink_behind *w = log->sinks->s[0].behind;
	uint64_t handed = w != NULL ? (uint64_t)sr_atomic_load_relaxed_i64(&w->handed) : 0;
	bool two = tl_two_cpus();
	sr_log_counters st = tl_flush_stats_close(&log);
	int next[THREADS] = { 0 };
	int lines = check_file(moved, next) + check_file(path, next);
	for (int t = 0; t < THREADS; t++)
		if (next[t] != from)
			tl_fail("thread %d's lines end at %d, not %d", t, next[t], from);
	if (lines != THREADS * from || st.sinks[0].lost_messages != 0 || st.sinks[0].errors != 0)
		tl_fail("%d lines for %d logged, %" PRIu64 " lost, %" PRIu64 " errors", lines, THREADS * from,
		    st.sinks[0].lost_messages, st.sinks[0].errors);
	if (two && handed == 0)
		tl_fail("two CPUs, yet the consumer handed its writer no batch");
	if (!two && w != NULL)
		tl_fail("one CPU, yet the sink has a writer");
	printf("stress_log_behind: %d lines from %d threads in %d bursts, every one once and in order; "
	    "%" PRIu64 " batches written behind\n", lines, THREADS, BURSTS, handed);
	return 0;
}

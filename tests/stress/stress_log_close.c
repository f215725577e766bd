/* SPDX-License-Identifier: Apache-2.0 */
/*
 * stress_log_close.c: a log call during or after sr_log_close is
 * memory-safe and, when it was past its level check, counted as dropped.
 *
 * A plain program, also run under valgrind (CTest stress_log_close_valgrind,
 * option --quick), which sees the use of freed memory that
 * AddressSanitizer cannot see through the ck_pr backend's inline assembly
 * (the asan build with the C11 backend sees it too):
 *   1. after the close: the macros through a handle of the closed logger end
 *      at the level check; sr_log_emit (no level check of its own) is
 *      refused, counted in sr_log_dropped_after_close; the handle's level
 *      reads off;
 *   2. ROUNDS rounds per mode: THREADS threads log through shared handles
 *      while the main thread closes the logger, and go on logging after it;
 *   3. a close waits only for the calls through its own logger: a thread
 *      held inside a call on another logger (its sink blocks) does not hold
 *      it up.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log_support.h"
#include "stress_args.h"
#include <seqring/sr_log.h>

enum { THREADS = 3 };

static int rounds = 6, each = 20000;
static int failures;

static void
check(bool ok, const char *what)
{
	printf("%-64s %s\n", what, ok ? "ok" : "FAILED");
	failures += !ok;
}

static sr_log *
open_mode(sr_log_mode mode, sr_log_producer producer)
{
	sr_sink_config sink = sr_sink_null();
	sr_log_config c;
	tl_config_sink(&c, &sink);
	c.ignore_environment = true;
	c.mode = mode;
	c.producer = producer;
	c.ring_slots = 256;
	c.thread_ring_slots = 256;
	return sr_log_open(&c, NULL);
}

typedef struct worker {
	sr_category *a, *b;
} worker;

static void *
work(void *arg)
{
	worker *w = arg;
	for (int i = 0; i < each; i++) {
		SR_INFO(w->a, "C#%d. racing the close, %s", i, "a string");
		SR_WARN(w->b, "C#%d. and another handle", i);
	}
	return NULL;
}

static void
after_close(void)
{
	sr_log *log = open_mode(SR_LOG_MODE_RING, SR_LOG_PRODUCER_SHARED);
	sr_category *cat = sr_log_category(log, "after.close");
	SR_INFO(cat, "C#0. before the close");
	sr_log_close(&log);
	uint64_t before = sr_log_dropped_after_close();
	for (int i = 0; i < 10; i++)
		SR_ERROR(cat, "C#%d. after the close", i);
	static sr_site site = { .format = "C#%d. through sr_log_emit", .file = __FILE__, .function = "after_close",
		.line = __LINE__, .level = SR_LOG_ERROR };
	sr_log_emit(cat, &site, "C#%d. through sr_log_emit", 1);
	check(sr_log_dropped_after_close() == before + 1, "after the close: sr_log_emit is refused and counted");
	check(sr_category_level(cat) == SR_LOG_OFF, "after the close: the handle's level reads off");
}

static void
race_close(sr_log_mode mode, sr_log_producer producer)
{
	int ok_rounds = 0;
	for (int r = 0; r < rounds; r++) {
		sr_log *log = open_mode(mode, producer);
		if (log == NULL)
			break;
		worker w = { sr_log_category(log, "race.a"), sr_log_category(log, "race.b") };
		pthread_t th[THREADS];
		for (int t = 0; t < THREADS; t++)
			pthread_create(&th[t], NULL, work, &w);
		tl_sleep_ms(1 + r % 3);
		sr_log_close(&log);
		for (int t = 0; t < THREADS; t++)
			pthread_join(th[t], NULL);
		ok_rounds++;
	}
	char what[96];
	snprintf(what, sizeof what, "%s%s: %d rounds of calls racing sr_log_close", sr_log_mode_name(mode),
	    producer == SR_LOG_PRODUCER_PER_THREAD ? " per_thread" : "", ok_rounds);
	check(ok_rounds == rounds, what);
}

/* 3: a sync-mode sink that holds its caller until released. */
static pthread_mutex_t hold_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t hold_cond = PTHREAD_COND_INITIALIZER;
static bool holding, released;

static int
holding_sink(void *ctx, sr_log_level level, const char *line, size_t len)
{
	(void)ctx;
	(void)level;
	(void)line;
	(void)len;
	pthread_mutex_lock(&hold_lock);
	holding = true;
	pthread_cond_broadcast(&hold_cond);
	while (!released)
		pthread_cond_wait(&hold_cond, &hold_lock);
	pthread_mutex_unlock(&hold_lock);
	return 0;
}

static void *
held_caller(void *arg)
{
	SR_INFO((sr_category *)arg, "C#0. held in a sink");
	return NULL;
}

static void
close_ignores_other_loggers(void)
{
	sr_sink_config hold = sr_sink_callback(holding_sink, NULL);
	sr_log_config c;
	tl_config_sink(&c, &hold);
	c.ignore_environment = true;
	c.mode = SR_LOG_MODE_SYNC;
	sr_log *a = sr_log_open(&c, NULL);
	pthread_t th;
	pthread_create(&th, NULL, held_caller, sr_log_category(a, "held"));
	pthread_mutex_lock(&hold_lock);
	while (!holding)
		pthread_cond_wait(&hold_cond, &hold_lock);
	pthread_mutex_unlock(&hold_lock);
	/* A thread is inside a call on a; b's close must not wait for it. */
	sr_log *b = open_mode(SR_LOG_MODE_RING, SR_LOG_PRODUCER_SHARED);
	SR_INFO(sr_log_category(b, "free"), "C#1. on another logger");
	sr_log_close(&b);
	check(b == NULL, "a close does not wait for calls on another logger");
	pthread_mutex_lock(&hold_lock);
	released = true;
	pthread_cond_broadcast(&hold_cond);
	pthread_mutex_unlock(&hold_lock);
	pthread_join(th, NULL);
	sr_log_close(&a);
}

int
main(int argc, char **argv)
{
	bool quick = false;
	const sa_option options[] = {
		{ .name = "quick", .kind = SA_SWITCH, .dest = &quick,
		    .help = "2 rounds of 500 calls per thread instead of 6 of 20,000 (the valgrind run)" },
	};
	sa_parse(argc, argv, options, sizeof options / sizeof *options, NULL);
	tl_clear_env();
	if (quick) {
		rounds = 2;
		each = 500;
	}
	after_close();
	race_close(SR_LOG_MODE_RING, SR_LOG_PRODUCER_SHARED);
	race_close(SR_LOG_MODE_RING, SR_LOG_PRODUCER_PER_THREAD);
	race_close(SR_LOG_MODE_QUEUE, SR_LOG_PRODUCER_SHARED);
	race_close(SR_LOG_MODE_SYNC, SR_LOG_PRODUCER_SHARED);
	close_ignores_other_loggers();
	printf("stress_log_close: %s\n", failures == 0 ? "ok" : "FAILED");
	return failures == 0 ? 0 : 1;
}

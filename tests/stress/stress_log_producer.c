/* SPDX-License-Identifier: Apache-2.0 */
/*
 * stress_log_producer.c: the per-thread rings (producer per_thread) under
 * concurrency, counting every message.  A plain program, so that the tsan
 * preset runs it (Criterion cannot run under ThreadSanitizer).
 *
 *   block     writers log numbered messages with strings of varying length
 *             (records of one to several slots that wrap at the end of small
 *             rings) while short-lived threads come, log and exit, and other
 *             threads flush and describe; a callback sink checks every line:
 *             each message exactly once, its string intact, in order per
 *             thread; the stats add up; the rings of exited threads are freed.
 *   drop      the same writers under policy drop: each message at most once,
 *             in order, accepted + dropped = attempted, written = accepted.
 *   shutdown  writers log while the logger shuts down: what was written is,
 *             per thread, a gap-free prefix of what it logged.
 *
 * Bounded: an alarm fails the run if anything hangs.  Exit status 0 on success.
 *
 * With --idle (not run by CTest) it measures instead, for a few wait
 * strategies, the consumer's CPU time over 1 s with nothing to log
 * (getrusage: the main thread sleeps meanwhile) and the time from a call
 * after an idle spell to its line in the sink.
 */
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "scenarios.h"
#include "log_support.h"
#include "stress_args.h"
#include <seqring/sr_log.h>
#include "sr_log_per_thread_internal.h"
#include <seqring/sr_time.h>

#if defined(__SANITIZE_THREAD__)
enum { WRITERS = 4, EACH = 5000, SHORT_LIVED = 24, SHORT_EACH = 100 };
#else
enum { WRITERS = 8, EACH = 30000, SHORT_LIVED = 200, SHORT_EACH = 300 };
#endif
enum { MAX_STRING = 300, MAX_THREADS = WRITERS + SHORT_LIVED };

static char pattern[MAX_STRING + 1];

static int
each_of(int t)
{
	return t < WRITERS ? EACH : SHORT_EACH;
}

/* What the sink saw: only the consumer writes it (the callback runs there). */
typedef struct seen {
	tl_stress_sink sink;      /* the callback sink's: it hands each line to seen_line */
	long next[MAX_THREADS];
	long lines, bad_lines, out_of_order;
} seen;

/* A line the sink read (tl_stress_sink_write): a record checked for its order and counted. */
static void
seen_line(void *ctx, int r, int t, int i, const char *text)
{
	seen *s = ctx;
	(void)text;
	if (r == 0)
		return; /* the logger's own lines (drop reports) */
	if (r < 0 || t < 0 || t >= MAX_THREADS) {
		s->bad_lines++;
		return;
	}
	/* Block: exactly the next one; drop: a later one (gaps are drops). */
	if (i < s->next[t])
		s->out_of_order++;
	s->next[t] = i + 1;
	s->lines++;
}

typedef struct writer {
	pthread_t thread;
	sr_category *cat;
	int id;
	int n;                /* messages; 0: until *stop */
	sr_atomic_i32 *stop;
	long made;
} writer;

static void *
writer_main(void *arg)
{
	writer *w = arg;
	for (long i = 0; w->n > 0 ? i < w->n : !sr_atomic_load_acquire_i32(w->stop); i++) {
		int n = (int)((i * 37) % MAX_STRING);
		SR_INFO(w->cat, "t=%d i=%ld n=%d s=%.*s|", w->id, i, n, n, pattern);
		w->made = i + 1;
	}
	return NULL;
}

/* Short-lived threads, a few at a time, each logging SHORT_EACH and exiting. */
typedef struct churner {
	sr_category *cat;
} churner;

static void *
churn_main(void *arg)
{
	churner *c = arg;
	for (int first = 0; first < SHORT_LIVED; first += 4) {
		writer w[4];
		for (int k = 0; k < 4; k++) {
			w[k] = (writer){ 0, c->cat, WRITERS + first + k, SHORT_EACH, NULL, 0 };
			pthread_create(&w[k].thread, NULL, writer_main, &w[k]);
		}
		for (int k = 0; k < 4; k++)
			pthread_join(w[k].thread, NULL);
	}
	return NULL;
}

/* Flushes and describes until told to stop. */
typedef struct poker {
	sr_log *log;
	sr_atomic_i32 *stop;
	long flushes;
} poker;

static void *
poke_main(void *arg)
{
	poker *p = arg;
	FILE *devnull = fopen("/dev/null", "w");
	/* pairs with main's store-release */
	while (!sr_atomic_load_acquire_i32(p->stop)) {
		if (sr_log_flush(p->log) == SR_OK)
			p->flushes++;
		if (devnull != NULL)
			sr_log_describe(p->log, devnull);
	}
	if (devnull != NULL)
		fclose(devnull);
	return NULL;
}

/* Starts one writer per slot of w (n messages each; 0: until *stop). */
static void
start_writers(writer *w, sr_category *cat, int n, sr_atomic_i32 *stop)
{
	for (int i = 0; i < WRITERS; i++) {
		w[i] = (writer){ 0, cat, i, n, stop, 0 };
		pthread_create(&w[i].thread, NULL, writer_main, &w[i]);
	}
}

static void
join_writers(writer *w)
{
	for (int i = 0; i < WRITERS; i++)
		pthread_join(w[i].thread, NULL);
}

static sr_log *
open_logger(seen *s, sr_sink_config *sink, sr_log_full_policy policy, const char *wait)
{
	s->sink = (tl_stress_sink){ .pattern = pattern, .modulus = MAX_STRING, .on_line = seen_line, .ctx = s };
	*sink = sr_sink_callback(tl_stress_sink_write, &s->sink);
	sr_log_config c;
	/* 64 KiB rings: records of 1 to 6 slots wrap at the physical end many times. */
	tl_configure(&c, sink, (tl_settings){ .ignore_environment = true, .layout = SR_LOG_LAYOUT_MESSAGE,
	    .thread_ring_slots = 1024, .slot_size = 64, .max_message_bytes = 1024, .full_policy = policy,
	    .wait_strategy = wait });
	c.producer = SR_LOG_PRODUCER_PER_THREAD;
	sr_error err;
	sr_log *log = sr_log_open(&c, &err);
	if (log == NULL) {
		fprintf(stderr, "stress_log_producer: sr_log_open: %s\n", err.message);
		exit(1);
	}
	return log;
}

/* A run's logger and what its sink saw. */
typedef struct stress_run {
	seen *s;
	sr_sink_config sink;
	sr_log *log;
	sr_category *cat;
} stress_run;

static void
run_begin(stress_run *r, sr_log_full_policy policy, const char *wait)
{
	r->s = calloc(1, sizeof *r->s);
	r->log = open_logger(r->s, &r->sink, policy, wait);
	r->cat = sr_log_category(r->log, "stress");
}

static void
run_end(stress_run *r)
{
	sr_log_close(&r->log);
	free(r->s);
}

static void
run_block(const char *wait)
{
	stress_run r;
	run_begin(&r, SR_LOG_FULL_BLOCK, wait);
	sr_atomic_i32 stop = 0;
	writer w[WRITERS];
	poker pk[2] = { { r.log, &stop, 0 }, { r.log, &stop, 0 } };
	pthread_t pokers[2], churn;
	churner ch = { r.cat };
	start_writers(w, r.cat, EACH, NULL);
	for (int i = 0; i < 2; i++)
		pthread_create(&pokers[i], NULL, poke_main, &pk[i]);
	pthread_create(&churn, NULL, churn_main, &ch);
	pthread_join(churn, NULL);
	join_writers(w);
	/* pairs with the pokers' load-acquire */
	sr_atomic_store_release_i32(&stop, 1);
	for (int i = 0; i < 2; i++)
		pthread_join(pokers[i], NULL);
	SC_EXPECT(sr_log_flush(r.log) == SR_OK, "flush");
	sr_log_counters st;
	sr_log_stats(r.log, &st);
	long total = (long)WRITERS * EACH + (long)SHORT_LIVED * SHORT_EACH;
	SC_EXPECT(r.s->bad_lines == 0, "%s: %ld bad lines", wait, r.s->bad_lines);
	SC_EXPECT(r.s->out_of_order == 0, "%s: %ld out of order", wait, r.s->out_of_order);
	SC_EXPECT(r.s->lines == total, "%s: %ld of %ld lines", wait, r.s->lines, total);
	for (int t = 0; t < MAX_THREADS; t++)
		SC_EXPECT(r.s->next[t] == each_of(t), "%s: thread %d: %ld of %d", wait, t, r.s->next[t], each_of(t));
	SC_EXPECT(st.accepted == (uint64_t)total && st.written == (uint64_t)total && st.dropped == 0,
	    "%s: accepted %" PRIu64 " written %" PRIu64 " dropped %" PRIu64, wait, st.accepted, st.written, st.dropped);
	SC_EXPECT(st.max_occupancy <= st.capacity, "max_occupancy %" PRId64 " > %" PRId64, st.max_occupancy, st.capacity);
	/*
	 * Every thread that logged has exited: its ring is freed once drained.
	 * The pokers and main only flushed, which makes no ring.
	 */
	int64_t live = -1, made = -1, freed = -1;
	for (int tries = 0; tries < 5000; tries++) {
		sr_log__threads_counts(r.log, &live, &made, &freed);
		if (live == 0)
			break;
		sr_sleep_ns(1000000);
	}
	SC_EXPECT(made == MAX_THREADS && freed == MAX_THREADS && live == 0,
	    "%s: rings %" PRId64 " made (expected %d: the writers, none for the flushers), %" PRId64 " freed, %"
	    PRId64 " live", wait, made, MAX_THREADS, freed, live);
	printf("block (%s): %ld lines from %d threads, %ld + %ld flushes, %" PRIu64 " batches, rings %" PRId64
	    " made %" PRId64 " freed\n", wait, r.s->lines, MAX_THREADS, pk[0].flushes, pk[1].flushes, st.batches, made, freed);
	run_end(&r);
}

static void
run_drop(void)
{
	stress_run r;
	run_begin(&r, SR_LOG_FULL_DROP, NULL);
	writer w[WRITERS];
	start_writers(w, r.cat, EACH, NULL);
	join_writers(w);
	SC_EXPECT(sr_log_flush(r.log) == SR_OK, "flush");
	sr_log_counters st;
	sr_log_stats(r.log, &st);
	long attempted = (long)WRITERS * EACH;
	SC_EXPECT(r.s->bad_lines == 0 && r.s->out_of_order == 0, "drop: %ld bad, %ld out of order", r.s->bad_lines, r.s->out_of_order);
	SC_EXPECT(st.accepted + st.dropped == (uint64_t)attempted, "drop: %" PRIu64 " + %" PRIu64 " != %ld",
	    st.accepted, st.dropped, attempted);
	SC_EXPECT(st.written == st.accepted && (long)st.written == r.s->lines, "drop: written %" PRIu64 ", %ld seen",
	    st.written, r.s->lines);
	printf("drop: %ld attempted, %" PRIu64 " written, %" PRIu64 " dropped\n", attempted, st.written, st.dropped);
	run_end(&r);
}

static void
run_shutdown(void)
{
	stress_run r;
	run_begin(&r, SR_LOG_FULL_BLOCK, NULL);
	sr_atomic_i32 stop = 0;
	writer w[WRITERS];
	start_writers(w, r.cat, 0, &stop);
	sr_sleep_ns(30 * 1000000);
	SC_EXPECT(sr_log_shutdown(r.log) == SR_OK, "shutdown");
	sr_sleep_ns(10 * 1000000);
	/* pairs with the writers' load-acquire */
	sr_atomic_store_release_i32(&stop, 1);
	join_writers(w);
	sr_log_counters st;
	sr_log_stats(r.log, &st);
	SC_EXPECT(r.s->bad_lines == 0 && r.s->out_of_order == 0, "shutdown: %ld bad, %ld out of order", r.s->bad_lines,
	    r.s->out_of_order);
	SC_EXPECT(st.written == st.accepted && (long)st.written == r.s->lines, "shutdown: written %" PRIu64 ", %ld seen",
	    st.written, r.s->lines);
	long sum = 0;
	for (int i = 0; i < WRITERS; i++) {
		SC_EXPECT(r.s->next[i] <= w[i].made, "thread %d: %ld written of %ld", i, r.s->next[i], w[i].made);
		sum += r.s->next[i];
	}
	/* Gap-free prefixes: the count per thread is the last number seen plus one. */
	SC_EXPECT(sum == r.s->lines, "shutdown: %ld lines but prefixes of %ld", r.s->lines, sum);
	printf("shutdown: %ld lines written before the logger stopped\n", r.s->lines);
	run_end(&r);
}

/* ---------------------------------------------------------------------------------------- */
/* --idle                                                                                   */

static void
measure_idle(sr_log_producer producer, const char *wait)
{
	tl_stamp_sink st = { 0 };
	sr_log_config c;
	sr_log_config_default(&c);
	c.ignore_environment = true;
	c.producer = producer;
	c.wait_strategy = wait;
	sr_sink_config sink = sr_sink_callback(tl_stamp_write, &st);
	c.sinks = &sink;
	c.sink_count = 1;
	sr_log *log = sr_log_open(&c, NULL);
	if (log == NULL) {
		SC_EXPECT(false, "cannot open with %s", wait);
		return;
	}
	sr_category *cat = sr_log_category(log, "idle");
	SR_INFO(cat, "first");
	sr_log_flush(log);
	sr_sleep_ns(200 * 1000000);
	/* The main thread sleeps: the process's CPU time over the second is the consumer's. */
	struct rusage r0, r1;
	getrusage(RUSAGE_SELF, &r0);
	int64_t t0 = sr_monotonic_ns();
	sr_sleep_ns(SR_NS_PER_S);
	int64_t t1 = sr_monotonic_ns();
	getrusage(RUSAGE_SELF, &r1);
	double cpu_us = (double)(r1.ru_utime.tv_sec - r0.ru_utime.tv_sec) * 1e6 + (double)(r1.ru_utime.tv_usec - r0.ru_utime.tv_usec) +
	    (double)(r1.ru_stime.tv_sec - r0.ru_stime.tv_sec) * 1e6 + (double)(r1.ru_stime.tv_usec - r0.ru_stime.tv_usec);
	long wakeups = (r1.ru_nvcsw - r0.ru_nvcsw) + (r1.ru_nivcsw - r0.ru_nivcsw);
	/* Call to line after 20 ms of quiet, 100 times. */
	enum { SAMPLES = 100 };
	int64_t lat[SAMPLES];
	tl_call_to_line(cat, &st, 20 * 1000000, SAMPLES, lat);
	printf("| %s | %s | %.2f%% | %ld | %.1f | %.1f | %.1f |\n", producer == SR_LOG_PRODUCER_SHARED ? "shared" :
	    "per_thread", wait, cpu_us / ((double)(t1 - t0) / 1e3) * 100.0,
	    wakeups, lat[SAMPLES / 2] / 1e3, lat[SAMPLES * 9 / 10] / 1e3, lat[SAMPLES - 1] / 1e3);
	sr_log_close(&log);
}

int
main(int argc, char **argv)
{
	for (int i = 0; i < MAX_STRING; i++)
		pattern[i] = (char)('a' + i % 26);
	bool idle = false;
	const sa_option options[] = {
		{ .name = "idle", .kind = SA_SWITCH, .dest = &idle,
		    .help = "measure instead: an idle consumer's CPU time, a call's time to its line after 20 ms" },
	};
	sa_parse(argc, argv, options, sizeof options / sizeof *options, NULL);
	if (idle) {
		printf("| producer | wait strategy | consumer CPU, 1 s idle | context switches | call to line after "
		    "20 ms idle, p50 us | p90 us | max us |\n|---|---|--:|--:|--:|--:|--:|\n");
		measure_idle(SR_LOG_PRODUCER_SHARED, SR_LOG_DEFAULT_WAIT);
		measure_idle(SR_LOG_PRODUCER_PER_THREAD, SR_LOG_DEFAULT_WAIT);
		measure_idle(SR_LOG_PRODUCER_SHARED, "liteblock");
		measure_idle(SR_LOG_PRODUCER_PER_THREAD, "liteblock");
		measure_idle(SR_LOG_PRODUCER_PER_THREAD, "sleep");
		return sc_expect_failures() == 0 ? 0 : 1;
	}
	alarm(120);
	run_block(SR_LOG_DEFAULT_WAIT);
	run_block("liteblock");
	run_drop();
	run_shutdown();
	if (sc_expect_failures() != 0) {
		fprintf(stderr, "stress_log_producer: %d check(s) failed\n", sc_expect_failures());
		return 1;
	}
	printf("stress_log_producer: ok\n");
	return 0;
}

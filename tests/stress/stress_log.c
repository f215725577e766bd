/* SPDX-License-Identifier: Apache-2.0 */
/*
 * stress_log.c: the logger under concurrency, counting every message.
 *
 * A plain program (Criterion cannot run under ThreadSanitizer): several
 * threads log numbered messages, with strings of varying length so that
 * records span several slots of a small ring and wrap at its physical end,
 * while another thread changes levels and creates categories.  Mode ring
 * runs on both producers: the shared ring (claimed by every thread at once)
 * and per-thread rings, each as small.  A callback sink parses every line
 * and checks it:
 *   - block policy (ring, queue and sync modes): each message exactly once,
 *     its string intact, in order per thread;
 *   - drop policy: each message at most once, accepted + dropped = attempted,
 *     written = accepted, and the drop report adds up.
 * Bounded: an alarm fails the run if anything hangs.  Exit status 0 on success.
 */
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log_support.h"
#include "scenarios.h"
#include "stress_args.h"
#include <seqring/sr_log.h>

#if defined(__SANITIZE_THREAD__)
enum { THREADS = 4, EACH = 6000 };
#else
enum { THREADS = 4, EACH = 40000 };
#endif
enum { MAX_STRING = 400 };

static char pattern[MAX_STRING + 1];

/* What the sink saw; only the consumer (or, in sync mode, callers under the sink lock) writes. */
typedef struct seen {
	tl_stress_sink sink;      /* the callback sink's: it hands each line to seen_line */
	unsigned char count[THREADS][EACH];
	int last[THREADS];
	long bad_lines;
	long out_of_order;
	long reports;
	long reported_drops;
} seen;

/* A line the sink read (tl_stress_sink_write): a record counted, a drop report added up, else bad. */
static void
seen_line(void *ctx, int r, int t, int i, const char *text)
{
	seen *s = ctx;
	if (r == 1 && t >= 0 && t < THREADS && i < EACH) {
		s->count[t][i]++;
		if (i <= s->last[t])
			s->out_of_order++;
		s->last[t] = i;
		return;
	}
	if (r != 0) {
		s->bad_lines++;
		return;
	}
	unsigned long dropped;
	if (sscanf(text, "%lu message(s) dropped because the queue was full", &dropped) == 1) {
		s->reports++;
		s->reported_drops += (long)dropped;
		return;
	}
	s->bad_lines++;
}

typedef struct worker {
	sr_log *log;
	int id;
} worker;

static void *
produce(void *arg)
{
	worker *w = arg;
	tl_thread_name("worker-", w->id);
	sr_category *c = sr_log_category(w->log, w->id % 2 ? "app.net" : "app.db");
	for (int i = 0; i < EACH; i++) {
		int n = (i * 37) % MAX_STRING;
		SR_ERROR(c, "t=%d i=%d n=%d s=%.*s|", w->id, i, n, n, pattern);
	}
	return NULL;
}

static sr_atomic_i32 stop_meddling;

/* Changes levels and makes categories while the workers log (none of it disables ERROR). */
static void *
meddle(void *arg)
{
	sr_log *log = arg;
	char name[32];
	for (int k = 0; !sr_atomic_load_acquire_i32(&stop_meddling); k++) {
		sr_log_set_level(log, "app", k % 2 ? SR_LOG_WARN : SR_LOG_DEBUG, NULL);
		sr_log_set_level(log, "app.net", k % 3 ? SR_LOG_INFO : SR_LOG_INHERIT, NULL);
		snprintf(name, sizeof name, "app.extra.c%d", k % 64);
		sr_log_category(log, name);
		usleep(200);
	}
	return NULL;
}

/* shared: the shared ring of 256 slots, else each thread's ring of 256 (mode ring only). */
static sr_log *
open_log(sr_log_mode mode, bool shared, sr_log_full_policy policy, seen *s)
{
	s->sink = (tl_stress_sink){ .pattern = pattern, .modulus = MAX_STRING, .on_line = seen_line, .ctx = s };
	sr_sink_config sink = sr_sink_callback(tl_stress_sink_write, &s->sink);
	sr_log_config c;
	tl_configure(&c, &sink, (tl_settings){ .mode = mode, .full_policy = policy, .shared_ring = shared,
	    .ring_slots = 256, .thread_ring_slots = 256, .slot_size = 64, .max_message_bytes = 1024,
	    .layout = SR_LOG_LAYOUT_MESSAGE,
	    .wait_strategy = "phased:spin=5us,yield=20us,fallback=timeout,timeout=2ms" });
	sr_error err;
	sr_log *log = sr_log_open(&c, &err);
	if (log == NULL) {
		fprintf(stderr, "stress_log: open failed: %s\n", err.message);
		exit(1);
	}
	return log;
}

static void
run(const char *title, sr_log_mode mode, bool shared, sr_log_full_policy policy)
{
	seen *s = calloc(1, sizeof *s);
	for (int t = 0; t < THREADS; t++)
		s->last[t] = -1;
	sr_log *log = open_log(mode, shared, policy, s);
	pthread_t threads[THREADS], meddler;
	worker w[THREADS];
	sr_atomic_store_release_i32(&stop_meddling, 0);
	pthread_create(&meddler, NULL, meddle, log);
	for (int t = 0; t < THREADS; t++) {
		w[t] = (worker){ log, t };
		pthread_create(&threads[t], NULL, produce, &w[t]);
	}
	for (int t = 0; t < THREADS; t++)
		pthread_join(threads[t], NULL);
	sr_atomic_store_release_i32(&stop_meddling, 1);
	pthread_join(meddler, NULL);
	/* Shutdown drains and reports, and keeps the counters readable. */
	SC_EXPECT(sr_log_shutdown(log) == SR_OK, "%s: shutdown", title);
	sr_log_counters st;
	sr_log_stats(log, &st);

	long once = 0, twice = 0, never = 0;
	for (int t = 0; t < THREADS; t++)
		for (int i = 0; i < EACH; i++) {
			if (s->count[t][i] == 1)
				once++;
			else if (s->count[t][i] == 0)
				never++;
			else
				twice++;
		}
	long attempted = (long)THREADS * EACH;
	SC_EXPECT(s->bad_lines == 0, "%s: %ld malformed lines", title, s->bad_lines);
	SC_EXPECT(twice == 0, "%s: %ld messages written more than once", title, twice);
	SC_EXPECT(st.accepted + st.dropped == (uint64_t)attempted, "%s: accepted %lu + dropped %lu != %ld",
	    title, (unsigned long)st.accepted, (unsigned long)st.dropped, attempted);
	SC_EXPECT(st.written == st.accepted, "%s: written %lu != accepted %lu", title,
	    (unsigned long)st.written, (unsigned long)st.accepted);
	SC_EXPECT((uint64_t)once == st.accepted, "%s: %ld distinct messages seen, %lu accepted", title, once,
	    (unsigned long)st.accepted);
	if (policy != SR_LOG_FULL_DROP) {
		SC_EXPECT(never == 0 && st.dropped == 0, "%s: %ld messages lost (errors wait)", title, never);
		SC_EXPECT(s->out_of_order == 0, "%s: %ld messages out of order within a thread", title,
		    s->out_of_order);
	} else {
		SC_EXPECT(s->reported_drops == (long)st.dropped, "%s: drop reports add up to %ld, dropped %lu",
		    title, s->reported_drops, (unsigned long)st.dropped);
	}
	SC_EXPECT(st.format_errors == 0 && st.sink_errors == 0, "%s: errors", title);
	printf("stress_log: %-32s %ld attempted, %lu accepted, %lu dropped (%ld reports), "
	    "max occupancy %ld of %ld, %lu batches\n", title, attempted, (unsigned long)st.accepted,
	    (unsigned long)st.dropped, s->reports, (long)st.max_occupancy, (long)st.capacity,
	    (unsigned long)st.batches);
	sr_log_close(&log);
	free(s);
}

int
main(int argc, char **argv)
{
	sa_parse(argc, argv, NULL, 0, NULL); /* no options but --help */
	alarm(300);     /* a hang fails the run instead of blocking CI */
	for (int i = 0; i < MAX_STRING; i++)
		pattern[i] = (char)('A' + i % 58);
	pattern[MAX_STRING] = '\0';
	for (int shared = 0; shared < 2; shared++) {
		char title[64];
		const char *ring = shared ? "ring shared" : "ring per_thread";
		snprintf(title, sizeof title, "%s, block", ring);
		run(title, SR_LOG_MODE_RING, shared, SR_LOG_FULL_BLOCK);
		snprintf(title, sizeof title, "%s, drop", ring);
		run(title, SR_LOG_MODE_RING, shared, SR_LOG_FULL_DROP);
		snprintf(title, sizeof title, "%s, discard (error)", ring);
		run(title, SR_LOG_MODE_RING, shared, SR_LOG_FULL_DISCARD);
	}
	run("queue, block", SR_LOG_MODE_QUEUE, false, SR_LOG_FULL_BLOCK);
	run("queue, drop", SR_LOG_MODE_QUEUE, false, SR_LOG_FULL_DROP);
	run("sync", SR_LOG_MODE_SYNC, false, SR_LOG_FULL_BLOCK);
	if (sc_expect_failures() != 0) {
		fprintf(stderr, "stress_log: %d check(s) failed\n", sc_expect_failures());
		return 1;
	}
	printf("stress_log: all checks passed\n");
	return 0;
}

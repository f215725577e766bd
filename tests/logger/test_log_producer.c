/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_log_producer.c: the per-thread rings (mode ring, producer per_thread).
 *
 * Configuration (defaults, ranges, the mode rule, the environment, describe);
 * every line of many threads exactly once and in each thread's order; rings
 * of threads that come and go are freed; block with a tiny ring and a slow
 * sink loses nothing; drop, discard and sync exact; a consumer that logs
 * never waits; flush and dump across rings; shutdown while threads log;
 * crash flush across rings (a child process, as test_log_crash.c); the
 * timestamp order across threads, exact when every record is published
 * before the next is stamped, and within the stated bound otherwise; a call
 * after a long quiet wakes the consumer's deep park; the caller's try_claim
 * and commit; the consumer evicts the lines it read only from rings that
 * fit the caches.
 *
 * The logger suites' helpers (tests/support/test_log_support.h) and a few of
 * its own: the per-thread order check, a slow capture, the rings' count.
 */
#include "test_log_support.h"

#include "sr_cache_internal.h"

#include <criterion/logging.h>

#include <fcntl.h>
#include <inttypes.h>
#include <linux/membarrier.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sr_log_backend_internal.h"
#include <seqring/sr_time.h>
#include "test_support.h"

/* ---------------------------------------------------------------------------------------- */
/* Helpers                                                                                  */

/* An assertion for per-line loops: Criterion reports every cr_assert it runs, so check first. */
#define CHECK(cond, ...) do { if (!(cond)) cr_assert_fail(__VA_ARGS__); } while (0)

/* A config with per-thread rings, the environment ignored, the message layout. */
static void
per_thread_config(sr_log_config *c)
{
	sr_log_config_default(c);
	c->ignore_environment = true;
	c->producer = SR_LOG_PRODUCER_PER_THREAD;
	c->layout = SR_LOG_LAYOUT_MESSAGE;
}

/* Rings of 16 one-record slots (64 bytes: a short message takes one), so that they fill. */
static void
tiny_rings_config(sr_log_config *c)
{
	per_thread_config(c);
	c->thread_ring_slots = 16;
	c->slot_size = 64;
	c->max_message_bytes = 1024;
}

/* Opens c with one sink, *s, that hands each line to write with ctx. */
static sr_log *
open_to_callback(sr_log_config *c, sr_sink_config *s, sr_sink_write_fn write, void *ctx)
{
	*s = sr_sink_callback(write, ctx);
	c->sinks = s;
	c->sink_count = 1;
	return tl_open(c);
}

/* Opens c with one sink, *s, that captures its lines in cap. */
static sr_log *
open_to_capture(sr_log_config *c, sr_sink_config *s, tl_capture *cap)
{
	return open_to_callback(c, s, tl_capture_write, cap);
}

/* A logger whose one sink captures its lines; the test sets config before captured_open. */
typedef struct captured_log {
	tl_capture cap;
	sr_log_config config;
	sr_sink_config sink;
	sr_category *cat;         /* "t", once open */
} captured_log;

/* Opens cl's config with its one sink capturing into cl's capture. */
static sr_log *
captured_open(captured_log *cl)
{
	tl_capture_init(&cl->cap);
	sr_log *log = open_to_capture(&cl->config, &cl->sink, &cl->cap);
	cl->cat = sr_log_category(log, "t");
	return log;
}

/* The "per-thread rings" line of describe: live, made, freed. */
static void
ring_counts(sr_log *log, long *live, long *made, long *freed)
{
	char *text = tl_describe(log);
	const char *line = strstr(text, "per-thread rings");
	cr_assert_not_null(line, "describe has no per-thread rings line:\n%s", text);
	line += strlen("per-thread rings");
	cr_assert_eq(sscanf(line, " %ld live (%ld made, %ld freed)", live, made, freed), 3, "%s", line);
	free(text);
}

/* The spare rings of describe's "per-thread rings" line, and (if not NULL) how many were reused. */
static long
spare_rings_reused(sr_log *log, long *reused)
{
	char *text = tl_describe(log);
	const char *line = strstr(text, "per-thread rings");
	cr_assert_not_null(line, "describe has no per-thread rings line:\n%s", text);
	long live, made, freed, spare = -1, taken = -1;
	cr_assert_eq(sscanf(line + strlen("per-thread rings"), " %ld live (%ld made, %ld freed), %ld spare (%ld reused)",
	    &live, &made, &freed, &spare, &taken), 5, "%s", line);
	free(text);
	if (reused != NULL)
		*reused = taken;
	return spare;
}

static long
spare_rings(sr_log *log)
{
	return spare_rings_reused(log, NULL);
}

/*
 * Reads "t<T> m<M>" at line: true with *t and *m, and *end after the
 * digits.  (Not sscanf: glibc's measures the whole rest of the text on
 * every call.)
 */
static bool
parse_tm(const char *line, int *t, long *m, const char **end)
{
	char *e;
	if (line[0] != 't' || line[1] < '0' || line[1] > '9')
		return false;
	*t = (int)strtol(line + 1, &e, 10);
	if (e[0] != ' ' || e[1] != 'm' || e[2] < '0' || e[2] > '9')
		return false;
	*m = strtol(e + 2, &e, 10);
	*end = e;
	return true;
}

/*
 * Checks lines "t<T> m<M>": for each of nthreads threads, M runs 0..n-1 in
 * order, each exactly once.  Other lines are ignored.  Returns the lines
 * matched.
 */
static long
expect_each_thread_in_order(const char *text, int nthreads, int n);

/* expect_each_thread_in_order with thread t's count want[t]. */
static long
expect_threads_in_order(const char *text, int nthreads, const int *want)
{
	int *next = calloc((size_t)nthreads, sizeof *next);
	long lines = 0;
	for (const char *line = text; *line != '\0';) {
		const char *end = strchr(line, '\n');
		CHECK(end != NULL, "the last line is cut");
		int t;
		long m;
		const char *after;
		if (parse_tm(line, &t, &m, &after) && after == end) {
			CHECK(t >= 0 && t < nthreads, "thread %d in '%.*s'", t, (int)(end - line), line);
			CHECK(m == next[t], "thread %d: message %ld where %d was due", t, m, next[t]);
			next[t]++;
			lines++;
		}
		line = end + 1;
	}
	for (int t = 0; t < nthreads; t++)
		cr_expect_eq(next[t], want[t], "thread %d: %d of %d messages", t, next[t], want[t]);
	free(next);
	return lines;
}

static long
expect_each_thread_in_order(const char *text, int nthreads, int n)
{
	int *want = malloc((size_t)nthreads * sizeof *want);
	for (int t = 0; t < nthreads; t++)
		want[t] = n;
	long lines = expect_threads_in_order(text, nthreads, want);
	free(want);
	return lines;
}

/* The lines of a capture joined with newlines (malloc'd), for the per-thread checks. */
static char *
capture_text(tl_capture *c)
{
	pthread_mutex_lock(&c->lock);
	size_t n = 1;
	for (size_t i = 0; i < c->count; i++)
		n += strlen(c->lines[i]) + 1;
	char *text = malloc(n), *p = text;
	for (size_t i = 0; i < c->count; i++) {
		size_t l = strlen(c->lines[i]);
		memcpy(p, c->lines[i], l);
		p[l] = '\n';
		p += l + 1;
	}
	*p = '\0';
	pthread_mutex_unlock(&c->lock);
	return text;
}

/* Closes *logp, then checks the capture's lines for every thread's n messages in order. */
static void
close_and_expect_in_order(sr_log **logp, tl_capture *cap, int nthreads, int n)
{
	sr_log_close(logp);
	char *text = capture_text(cap);
	cr_expect_eq(expect_each_thread_in_order(text, nthreads, n), (long)nthreads * n);
	free(text);
	tl_capture_free(cap);
}

/*
 * A logger whose one sink is a capture behind a slow sink, which also counts
 * the lines its creator (the caller) wrote; the test sets config before open_slow.
 */
typedef struct slow_capture {
	tl_capture cap;
	int slow_us;              /* sleep per line */
	size_t by_caller;         /* under cap.lock */
	sr_log_config config;
	sr_sink_config sink;
	sr_category *cat;         /* "t", once open */
} slow_capture;

static int
slow_write(void *ctx, sr_log_level level, const char *line, size_t len)
{
	slow_capture *s = ctx;
	struct timespec ts = { 0, (long)s->slow_us * 1000 };
	nanosleep(&ts, NULL);
	if (pthread_equal(pthread_self(), s->cap.caller)) {
		pthread_mutex_lock(&s->cap.lock);
		s->by_caller++;
		pthread_mutex_unlock(&s->cap.lock);
	}
	return tl_capture_write(&s->cap, level, line, len);
}

/* A per-thread logger on one file at a fresh path; the test changes config before file_log_open. */
typedef struct file_log {
	sr_log_config config;
	sr_sink_config sink;
	char path[96];
	sr_category *cat;         /* "t", once open */
} file_log;

/* Sets f's config to per_thread_config's and returns it. */
static sr_log_config *
file_log_begin(file_log *f)
{
	per_thread_config(&f->config);
	return &f->config;
}

/* Opens f's config with its one sink on a fresh file (tag names it). */
static sr_log *
file_log_open(file_log *f, const char *tag)
{
	tl_temp_path(f->path, sizeof f->path, tag);
	f->sink = sr_sink_file(f->path);
	f->config.sinks = &f->sink;
	f->config.sink_count = 1;
	sr_log *log = tl_open(&f->config);
	f->cat = sr_log_category(log, "t");
	return log;
}

/* Opens slow's config with its one sink on slow (slow_us per line). */
static sr_log *
open_slow(slow_capture *slow, int slow_us)
{
	tl_capture_init(&slow->cap);
	slow->slow_us = slow_us;
	slow->by_caller = 0;
	sr_log *log = open_to_callback(&slow->config, &slow->sink, slow_write, slow);
	slow->cat = sr_log_category(log, "t");
	return log;
}

/* Threads that each log "t<T> m<M>" for M in 0..n-1. */
typedef struct writer {
	pthread_t thread;
	sr_category *cat;
	int id, n;
	int64_t *after;           /* optional: the realtime clock after each call */
} writer;

static void *
writer_main(void *arg)
{
	writer *w = arg;
	for (int m = 0; m < w->n; m++) {
		SR_INFO(w->cat, "t%d m%d", w->id, m);
		if (w->after != NULL)
			w->after[m] = sr_realtime_ns();
	}
	return NULL;
}

static void
run_writers(writer *w, int nthreads, sr_category *cat, int n)
{
	for (int i = 0; i < nthreads; i++) {
		w[i].cat = cat;
		w[i].id = i;
		w[i].n = n;
		cr_assert_eq(pthread_create(&w[i].thread, NULL, writer_main, &w[i]), 0);
	}
	for (int i = 0; i < nthreads; i++)
		pthread_join(w[i].thread, NULL);
}

/* nthreads writers (at most 8) log n lines each on cat; returns when they have ended and log is flushed. */
static void
run_writers_and_flush(sr_log *log, sr_category *cat, int nthreads, int n)
{
	writer w[8];
	cr_assert(nthreads <= 8, "%d writers, at most 8", nthreads);
	memset(w, 0, sizeof w);
	run_writers(w, nthreads, cat, n);
	cr_assert_eq(sr_log_flush(log), SR_OK);
}

/* Opens slow (slow_us per line), where nthreads writers log n lines each; returns the logger, flushed. */
static sr_log *
slow_writers_flushed(slow_capture *slow, int slow_us, int nthreads, int n)
{
	sr_log *log = open_slow(slow, slow_us);
	run_writers_and_flush(log, slow->cat, nthreads, n);
	return log;
}

/* ---------------------------------------------------------------------------------------- */
/* Configuration                                                                            */

Test(log_producer, defaults_and_ranges)
{
	sr_log_config c;
	sr_log_config_default(&c);
	cr_expect_eq(c.producer, SR_LOG_PRODUCER_PER_THREAD, "a ring per thread is the default");
	cr_expect_eq(c.thread_ring_slots, 16384);
	c.ignore_environment = true;
	sr_sink_config s = sr_sink_null();
	c.sinks = &s;
	c.sink_count = 1;
	sr_error err;

	c.producer = (sr_log_producer)7;
	cr_expect_null(sr_log_open(&c, &err));
	cr_expect_str_eq(err.message, "config.producer 7 is invalid: expected SR_LOG_PRODUCER_SHARED (0) or "
	    "SR_LOG_PRODUCER_PER_THREAD (1)");

	c.producer = SR_LOG_PRODUCER_PER_THREAD;
	c.thread_ring_slots = 1000;
	cr_expect_null(sr_log_open(&c, &err));
	cr_expect_str_eq(err.message, "config.thread_ring_slots 1000 is invalid: expected a power of two from 2 "
	    "to 1073741824");
	c.thread_ring_slots = 1;
	cr_expect_null(sr_log_open(&c, &err));
	c.thread_ring_slots = INT64_C(1) << 31;
	cr_expect_null(sr_log_open(&c, &err));
	/* A ring in 64-byte slots: at most 2^30 of them, 64 GiB (a shared ring's config is not refused for it). */
	c.thread_ring_slots = INT64_C(1) << 30;
	cr_expect_null(sr_log_open(&c, &err));
	cr_expect_str_eq(err.message, "config.thread_ring_slots 1073741824 x slot_size 128 is too large: a "
	    "thread's ring of 137438953472 bytes, expected at most 68719476736");
	c.producer = SR_LOG_PRODUCER_SHARED;
	c.ring_slots = 1024;
	sr_log *shared = tl_open(&c);
	sr_log_close(&shared);
	c.producer = SR_LOG_PRODUCER_PER_THREAD;

	/* A record must fit each thread's ring (and only that: ring_slots is not used). */
	c.thread_ring_slots = 8;
	c.ring_slots = 2;
	cr_expect_null(sr_log_open(&c, &err));
	cr_expect_str_eq(err.message, "config.max_message_bytes 4096 exceeds the thread's ring (8 slots x 128 "
	    "bytes): expected at most 1024");
	c.max_message_bytes = 1024;
	sr_log *log = tl_open(&c);
	sr_log_counters st = tl_stats(log);
	cr_expect_eq(st.capacity, 8, "capacity is each thread's ring");
	sr_log_close(&log);

	/*
	 * Mode ring only: the default producer does not stop a queue or sync
	 * logger from opening; the queue's capacity is ring_slots, and neither
	 * checks its records against the thread rings' size.
	 */
	c.max_message_bytes = 4096;
	c.thread_ring_slots = 8;
	c.ring_slots = 64;
	c.mode = SR_LOG_MODE_QUEUE;
	log = tl_open(&c);
	sr_log_stats(log, &st);
	cr_expect_eq(st.capacity, 64, "a queue holds ring_slots entries whatever the producer");
	char *text = tl_describe(log);
	cr_expect(strstr(text, "  producer                       per_thread (unused: mode queue)      default") != NULL,
	    "%s", text);
	free(text);
	sr_log_close(&log);
	c.mode = SR_LOG_MODE_SYNC;
	log = tl_open(&c);
	text = tl_describe(log);
	cr_expect(strstr(text, "  producer                       per_thread (unused: mode sync)       default") != NULL,
	    "%s", text);
	free(text);
	sr_log_close(&log);
}

Test(log_producer, environment_and_describe)
{
	tl_clear_env();
	sr_log_config c;
	sr_log_config_default(&c);
	sr_sink_config s = sr_sink_null();
	c.sinks = &s;
	c.sink_count = 1;
	sr_error err;

	setenv("SEQRING_LOG_PRODUCER", "per-thread", 1);
	cr_expect_null(sr_log_open(&c, &err));
	cr_expect_str_eq(err.message, "SEQRING_LOG_PRODUCER 'per-thread' is invalid: expected shared or per_thread");
	setenv("SEQRING_LOG_PRODUCER", "PER_THREAD", 1);
	setenv("SEQRING_LOG_THREAD_RING_SLOTS", "3k", 1);
	cr_expect_null(sr_log_open(&c, &err));
	cr_expect_str_eq(err.message, "SEQRING_LOG_THREAD_RING_SLOTS '3k' is invalid: expected a power of two "
	    "from 2 to 1073741824 (suffix k or m: x1024)");
	setenv("SEQRING_LOG_THREAD_RING_SLOTS", "4k", 1);
	sr_log *log = tl_open(&c);
	char *text = tl_describe(log);
	cr_expect(strstr(text, "  producer                       per_thread                           environment "
	    "(SEQRING_LOG_PRODUCER='PER_THREAD')") != NULL, "%s", text);
	cr_expect(strstr(text, "  thread_ring_slots              4096                                 environment "
	    "(SEQRING_LOG_THREAD_RING_SLOTS='4k')") != NULL, "%s", text);
	cr_expect(strstr(text, "  per-thread rings               0 live (0 made, 0 freed), 0 spare") != NULL, "%s", text);
	free(text);
	sr_log_close(&log);

	/* With mode queue from the environment, the producer is kept and said to be unused. */
	setenv("SEQRING_LOG_MODE", "queue", 1);
	log = tl_open(&c);
	text = tl_describe(log);
	cr_expect(strstr(text, "  producer                       per_thread (unused: mode queue)      environment "
	    "(SEQRING_LOG_PRODUCER='PER_THREAD')") != NULL, "%s", text);
	free(text);
	sr_log_close(&log);
	tl_clear_env();

	/* The shared ring describes itself as such, without the rings line. */
	c.ignore_environment = true;
	c.producer = SR_LOG_PRODUCER_SHARED;
	log = tl_open(&c);
	text = tl_describe(log);
	cr_expect(strstr(text, "  producer                       shared                               code") != NULL,
	    "%s", text);
	cr_expect(strstr(text, "per-thread rings") == NULL);
	free(text);
	sr_log_close(&log);
}

/* ---------------------------------------------------------------------------------------- */
/* Every line, once, in each thread's order                                                 */

Test(log_producer, eight_threads_every_line_once_in_order, .timeout = 60)
{
	file_log f;
	sr_log_config *c = file_log_begin(&f);
	sr_log *log = file_log_open(&f, "eight");
	enum { THREADS = 8, N = 20000 };
	run_writers_and_flush(log, f.cat, THREADS, N);
	sr_log_counters st = tl_stats(log);
	cr_expect_eq(st.accepted, (uint64_t)THREADS * N);
	cr_expect_eq(st.written, (uint64_t)THREADS * N);
	cr_expect_eq(st.dropped, 0);
	cr_expect_eq(st.capacity, c->thread_ring_slots);
	cr_expect(st.max_occupancy > 0 && st.max_occupancy <= st.capacity, "max_occupancy %" PRId64, st.max_occupancy);
	cr_expect_gt(st.batches, 0);
	sr_log_close(&log);
	char *text = tl_read_file(f.path, NULL);
	cr_assert_not_null(text);
	cr_expect_eq(expect_each_thread_in_order(text, THREADS, N), (long)THREADS * N);
	free(text);
	unlink(f.path);
}

/* ---------------------------------------------------------------------------------------- */
/* Threads that come and go                                                                 */

typedef struct churn {
	sr_category *cat;
	int first_id, waves, per_wave, n;
} churn;

static void *
churn_main(void *arg)
{
	churn *ch = arg;
	/* Waves of short-lived threads, each logging n messages and exiting. */
	for (int wave = 0; wave < ch->waves; wave++) {
		writer w[8];
		memset(w, 0, sizeof w);
		for (int i = 0; i < ch->per_wave; i++) {
			w[i].cat = ch->cat;
			w[i].id = ch->first_id + wave * ch->per_wave + i;
			w[i].n = ch->n;
			pthread_create(&w[i].thread, NULL, writer_main, &w[i]);
		}
		for (int i = 0; i < ch->per_wave; i++)
			pthread_join(w[i].thread, NULL);
	}
	return NULL;
}

Test(log_producer, rings_of_exited_threads_are_freed, .timeout = 60)
{
	file_log f;
	sr_log_config *c = file_log_begin(&f);
	c->thread_ring_slots = 256;     /* small rings: many of them */
	sr_log *log = file_log_open(&f, "churn");
	/* Two long-lived writers log while 2 x 10 waves of 4 short-lived threads come and go. */
	enum { LONG = 2, WAVES = 10, PER_WAVE = 4, SHORT_N = 500, LONG_N = 20000 };
	writer w[LONG];
	memset(w, 0, sizeof w);
	churn ch[2];
	pthread_t churners[2];
	for (int i = 0; i < LONG; i++) {
		w[i].cat = f.cat;
		w[i].id = i;
		w[i].n = LONG_N;
		pthread_create(&w[i].thread, NULL, writer_main, &w[i]);
	}
	for (int i = 0; i < 2; i++) {
		ch[i] = (churn){ f.cat, LONG + i * WAVES * PER_WAVE, WAVES, PER_WAVE, SHORT_N };
		pthread_create(&churners[i], NULL, churn_main, &ch[i]);
	}
	for (int i = 0; i < 2; i++)
		pthread_join(churners[i], NULL);
	for (int i = 0; i < LONG; i++)
		pthread_join(w[i].thread, NULL);
	cr_assert_eq(sr_log_flush(log), SR_OK);
	/* Every thread that logged has exited; the main thread only flushed, which makes no ring. */
	long live = -1, made = -1, freed = -1;
	for (int tries = 0; tries < 2000; tries++) {
		ring_counts(log, &live, &made, &freed);
		if (live == 0)
			break;
		tl_sleep_ms(1);
	}
	long threads = LONG + 2 * WAVES * PER_WAVE;
	cr_expect_eq(made, threads, "one ring per thread that logged, none for the flusher");
	cr_expect_eq(freed, threads, "the rings of exited threads are freed");
	cr_expect_eq(live, 0);
	sr_log_close(&log);
	SC_ASSERT_NO_LEAKS();
	/* Each thread's lines: the long ones have LONG_N, the short ones SHORT_N. */
	char *text = tl_read_file(f.path, NULL);
	cr_assert_not_null(text);
	int *next = calloc((size_t)threads, sizeof *next);
	for (const char *line = text; *line != '\0'; line = strchr(line, '\n') + 1) {
		int t;
		long m;
		const char *after;
		CHECK(parse_tm(line, &t, &m, &after), "%.40s", line);
		CHECK(t >= 0 && t < threads, "%.40s", line);
		CHECK(m == next[t], "thread %d: %ld where %d was due", t, m, next[t]);
		next[t]++;
	}
	for (int t = 0; t < threads; t++)
		cr_expect_eq(next[t], t < LONG ? LONG_N : SHORT_N, "thread %d: %d lines", t, next[t]);
	free(next);
	free(text);
	unlink(f.path);
}

/*
 * Waits until describe shows `spare` spare rings, up to 15 s (a spare is
 * released 1 s after its last use, at a housekeeping of the consumer, which
 * a busy machine may run late); returns what it shows last.
 */
static long
await_spare_rings(sr_log *log, long spare)
{
	int64_t deadline = sr_monotonic_ns() + 15 * INT64_C(1000000000);
	long now = -1;
	while ((now = spare_rings(log)) != spare && sr_monotonic_ns() < deadline)
		tl_sleep_ms(1);
	return now;
}

Test(log_producer, an_exited_threads_ring_is_kept_for_the_next_thread_then_released, .timeout = 60)
{
	captured_log cl;
	per_thread_config(&cl.config);
	cl.config.thread_ring_slots = 256; /* the first thread's records wrap it: the memory is not clean */
	sr_log *log = captured_open(&cl);
	enum { N = 300 };
	writer w[3];
	memset(w, 0, sizeof w);
	run_writers(w, 1, cl.cat, N);
	cr_expect_eq(await_spare_rings(log, 1), 1, "the exited thread's ring memory is kept");
	/*
	 * The main thread's first call takes it.  It logs fewer records than the
	 * old ones that fill the ring: those past its own cursor must not be read.
	 */
	enum { M = 10 };
	for (int m = 0; m < M; m++)
		SR_INFO(cl.cat, "t1 m%d", m);
	long live, made, freed, reused;
	ring_counts(log, &live, &made, &freed);
	cr_expect_eq(made, 2);
	cr_expect_eq(freed, 1);
	cr_expect_eq(spare_rings_reused(log, &reused), 0, "the main thread took the spare");
	cr_expect_eq(reused, 1, "the main thread's ring is the spare's memory");
	cr_assert_eq(sr_log_flush(log), SR_OK);
	cr_expect_eq(cl.cap.count, (size_t)(N + M), "%zu lines after the main thread's flush", cl.cap.count);
	/* Another thread's ring, kept when it exits, is unmapped once unused for a while. */
	w[2].cat = cl.cat;
	w[2].id = 2;
	w[2].n = N;
	cr_assert_eq(pthread_create(&w[2].thread, NULL, writer_main, &w[2]), 0);
	pthread_join(w[2].thread, NULL);
	cr_assert_eq(sr_log_flush(log), SR_OK);
	int64_t kept_at = sr_monotonic_ns();
	cr_expect_eq(await_spare_rings(log, 1), 1, "the second exited thread's ring memory is kept");
	cr_expect_eq(await_spare_rings(log, 0), 0, "a spare unused for %" PRId64 " ms is released",
	    (sr_monotonic_ns() - kept_at) / 1000000);
	sr_log_close(&log);
	char *text = capture_text(&cl.cap);
	const int want[3] = { N, M, N };
	cr_expect_eq(expect_threads_in_order(text, 3, want), 2 * N + M);
	free(text);
	tl_capture_free(&cl.cap);
	SC_ASSERT_NO_LEAKS();
}

/* ---------------------------------------------------------------------------------------- */
/* Full rings                                                                               */

Test(log_producer, block_with_a_tiny_ring_and_a_slow_sink_loses_nothing, .timeout = 60)
{
	slow_capture slow;
	tiny_rings_config(&slow.config);
	enum { THREADS = 4, N = 1500 };
	sr_log *log = slow_writers_flushed(&slow, 20, THREADS, N);
	sr_log_counters st = tl_stats(log);
	cr_expect_eq(st.dropped, 0);
	cr_expect_eq(st.written, (uint64_t)THREADS * N);
	cr_expect(st.max_occupancy <= 16, "max_occupancy %" PRId64 " of 16", st.max_occupancy);
	close_and_expect_in_order(&log, &slow.cap, THREADS, N);
}

/*
 * A logger whose consumer is held in the paused sink by its first line: a
 * record of one slot ("m<i>" with 64-byte slots) leaves 16 - 1 = 15 slots of
 * the caller's ring free, whatever the policy then does with the rest.
 */
typedef struct gated {
	tl_capture cap;
	sr_sink_config sink;
	sr_log *log;
	sr_category *cat;
} gated;

static void
gated_open(gated *g, sr_log_full_policy policy)
{
	tl_capture_init(&g->cap);
	sr_log_config c;
	tiny_rings_config(&c);
	c.full_policy = policy;
	g->sink = sr_sink_callback(tl_capture_write, &g->cap);
	c.sinks = &g->sink;
	c.sink_count = 1;
	g->log = tl_open(&c);
	g->cat = sr_log_category(g->log, "t");
	tl_capture_pause(&g->cap);
	SR_INFO(g->cat, "gate");
	tl_capture_wait_stuck(&g->cap);
}

static void
gated_close(gated *g)
{
	sr_log_close(&g->log);
	tl_capture_free(&g->cap);
}

Test(log_producer, drop_is_exact)
{
	gated g;
	gated_open(&g, SR_LOG_FULL_DROP);
	for (int i = 0; i < 100; i++)
		SR_INFO(g.cat, "m%d", i);
	tl_capture_resume(&g.cap);
	cr_assert_eq(sr_log_flush(g.log), SR_OK);
	sr_log_counters st;
	sr_log_stats(g.log, &st);
	cr_expect_eq(st.dropped, 85, "15 of 100 fit: %" PRIu64 " dropped", st.dropped);
	cr_expect_eq(st.dropped_by_level[SR_LOG_INFO], 85);
	cr_expect_eq(st.written, 1 + 15, "the gate and 15 messages (the drop report is not counted): %" PRIu64,
	    st.written);
	for (int i = 0; i < 15; i++) {
		char want[16];
		snprintf(want, sizeof want, "m%d", i);
		cr_expect_eq(tl_capture_grep(&g.cap, want), i == 1 ? 6 : 1, "%s", want); /* m1 also in m10..m14 */
	}
	cr_expect_eq(tl_capture_grep(&g.cap, "85 message(s) dropped because the queue was full (85 at info)"), 1);
	gated_close(&g);
}

typedef struct warner {
	sr_category *cat;
	sr_atomic_i32 done;
} warner;

static void *
warn_main(void *arg)
{
	warner *w = arg;
	SR_WARN(w->cat, "a warning waits for room");
	/* pairs with the test's load-acquire */
	sr_atomic_store_release_i32(&w->done, 1);
	return NULL;
}

Test(log_producer, discard_drops_at_or_below_its_level_and_waits_above)
{
	gated g;
	gated_open(&g, SR_LOG_FULL_DISCARD);
	for (int i = 0; i < 100; i++)
		SR_INFO(g.cat, "m%d", i);
	/* This thread's ring is full: a warning from it waits (on its own ring) for room. */
	warner w = { g.cat, 0 };
	pthread_t t;
	/* Another thread's warning goes to its own, empty ring: it does not wait. */
	pthread_create(&t, NULL, warn_main, &w);
	pthread_join(t, NULL);
	cr_expect_eq(sr_atomic_load_acquire_i32(&w.done), 1);
	sr_log_counters st;
	sr_log_stats(g.log, &st);
	cr_expect_eq(st.dropped, 85);
	cr_expect_eq(st.dropped_by_level[SR_LOG_INFO], 85);
	tl_capture_resume(&g.cap);
	SR_ERROR(g.cat, "an error from the full thread waited");
	cr_assert_eq(sr_log_flush(g.log), SR_OK);
	sr_log_stats(g.log, &st);
	cr_expect_eq(st.dropped, 85, "nothing above discard_level was dropped");
	cr_expect_eq(tl_capture_grep(&g.cap, "a warning waits for room"), 1);
	cr_expect_eq(tl_capture_grep(&g.cap, "an error from the full thread waited"), 1);
	gated_close(&g);
}

Test(log_producer, sync_writes_on_the_caller_when_full, .timeout = 30)
{
	/* A slow sink holds the consumer back (a paused one would hold the sink's lock the caller needs). */
	slow_capture slow;
	tiny_rings_config(&slow.config);
	slow.config.full_policy = SR_LOG_FULL_SYNC;
	sr_log *log = open_slow(&slow, 2000);
	for (int i = 0; i < 200; i++)
		SR_INFO(slow.cat, "m%d", i);
	cr_assert_eq(sr_log_flush(log), SR_OK);
	sr_log_counters st = tl_stats(log);
	cr_expect_eq(st.dropped, 0);
	cr_expect_eq(st.written, 200);
	cr_expect_eq(tl_capture_count(&slow.cap), 200);
	cr_expect_gt(st.written_by_caller, 0, "a full ring made the caller write");
	cr_expect_eq(st.written_by_caller, slow.by_caller, "written by the caller: %" PRIu64 " counted, %zu seen",
	    st.written_by_caller, slow.by_caller);
	sr_log_close(&log);
	tl_capture_free(&slow.cap);
}

/* A sink that logs 100 messages from the consumer thread on its first line. */
typedef struct echo {
	sr_category *cat;
	bool done;
} echo;

static int
echo_write(void *ctx, sr_log_level level, const char *line, size_t len)
{
	(void)level;
	echo *e = ctx;
	if (!e->done && memmem(line, len, "echo", 4) != NULL) {
		e->done = true;
		for (int i = 0; i < 100; i++)
			SR_INFO(e->cat, "from the consumer %d", i);
	}
	return 0;
}

Test(log_producer, the_consumer_never_waits_on_its_own_ring, .timeout = 30)
{
	echo e = { NULL, false };
	sr_log_config c;
	tiny_rings_config(&c);
	sr_sink_config s;
	sr_log *log = open_to_callback(&c, &s, echo_write, &e);
	e.cat = sr_log_category(log, "t");
	SR_INFO(e.cat, "echo");
	cr_assert_eq(sr_log_flush(log), SR_OK);
	cr_assert_eq(sr_log_flush(log), SR_OK);
	sr_log_counters st = tl_stats(log);
	/* Its ring is new and nothing consumes it while the sink runs: 16 fit, 84 dropped, no wait. */
	cr_expect_eq(st.dropped, 84, "%" PRIu64, st.dropped);
	cr_expect_eq(st.written, 1 + 16, "echo and 16 of the consumer's: %" PRIu64, st.written);
	sr_log_close(&log);
}

/* ---------------------------------------------------------------------------------------- */
/* Waking an idle consumer                                                                  */

/* Whether membarrier(2) can make every thread of this process pass a barrier (the deep park's). */
static bool
membarrier_expedited(void)
{
	long cmds = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
	return cmds > 0 && (cmds & MEMBARRIER_CMD_PRIVATE_EXPEDITED) != 0;
}

/*
 * After 40 ms of quiet the consumer is in a deep park (its shallow ones end
 * after 15 ms) that lasts until the next housekeeping, 100 ms: a call must
 * wake it, or its line would wait tens of milliseconds.  And an idle
 * consumer in deep parks wakes about ten times a second, not the hundred
 * and more of shallow parks alone.
 */
Test(log_producer, a_call_after_a_long_quiet_wakes_the_consumer_at_once, .timeout = 60)
{
	tl_stamp_sink st = { 0 };
	sr_log_config c;
	per_thread_config(&c);
	sr_sink_config s;
	sr_log *log = open_to_callback(&c, &s, tl_stamp_write, &st);
	sr_category *cat = sr_log_category(log, "t");
	SR_INFO(cat, "first");
	cr_assert_eq(sr_log_flush(log), SR_OK);

	enum { SAMPLES = 15 };
	int64_t lat[SAMPLES];
	tl_call_to_line(cat, &st, 40 * 1000000, SAMPLES, lat);
	cr_expect_lt(lat[SAMPLES / 2], 20 * 1000000, "call to line after 40 ms of quiet: median %" PRId64
	    " ns, expected the call to wake the consumer (well below the deep park's 100 ms)", lat[SAMPLES / 2]);

	if (membarrier_expedited()) {
		/* This thread sleeps for the second: the voluntary switches are the consumer's wake-ups. */
		sr_sleep_ns(50 * 1000000);
		struct rusage r0, r1;
		getrusage(RUSAGE_SELF, &r0);
		sr_sleep_ns(1000 * 1000000);
		getrusage(RUSAGE_SELF, &r1);
		long wakeups = r1.ru_nvcsw - r0.ru_nvcsw;
		cr_expect_lt(wakeups, 40, "an idle consumer woke %ld times in 1 s: expected about 10 (deep parks)",
		    wakeups);
	}
	sr_log_close(&log);
}

/* ---------------------------------------------------------------------------------------- */
/* Flush and dump across rings                                                              */

typedef struct handoff {
	sr_log *log;
	sr_category *cat;
	tl_capture *cap;
	int id, n;
	sr_atomic_i32 *logged;    /* threads that have logged their n */
	int threads;
	bool ok;
} handoff;

/* Logs n, says so, waits for every other thread to have logged, flushes, checks everyone's lines. */
static void *
handoff_main(void *arg)
{
	handoff *h = arg;
	for (int m = 0; m < h->n; m++)
		SR_INFO(h->cat, "t%d m%d", h->id, m);
	sr_atomic_faa_i32(h->logged, 1);
	/* pairs with the other threads' fetch-and-add: their records were published before */
	while (sr_atomic_load_acquire_i32(h->logged) < h->threads)
		sched_yield();
	h->ok = sr_log_flush(h->log) == SR_OK;
	/* Every thread's records were accepted before this flush: all are in the sink now. */
	for (int t = 0; t < h->threads; t++) {
		char want[32];
		snprintf(want, sizeof want, "t%d m%d", t, h->n - 1);
		if (tl_capture_grep(h->cap, want) != 1)
			h->ok = false;
	}
	if (tl_capture_count(h->cap) < (size_t)h->threads * (size_t)h->n)
		h->ok = false;
	return NULL;
}

Test(log_producer, flush_from_several_threads_covers_every_ring, .timeout = 60)
{
	slow_capture slow;
	per_thread_config(&slow.config);
	sr_log *log = open_slow(&slow, 5);
	enum { THREADS = 4, N = 3000 };
	sr_atomic_i32 logged = 0;
	handoff h[THREADS];
	pthread_t t[THREADS];
	for (int i = 0; i < THREADS; i++) {
		h[i] = (handoff){ log, slow.cat, &slow.cap, i, N, &logged, THREADS, false };
		pthread_create(&t[i], NULL, handoff_main, &h[i]);
	}
	for (int i = 0; i < THREADS; i++) {
		pthread_join(t[i], NULL);
		cr_expect(h[i].ok, "thread %d's flush returned before every ring's records were written", i);
	}
	close_and_expect_in_order(&log, &slow.cap, THREADS, N);
}

Test(log_producer, a_thread_that_never_logged_flushes_without_a_ring_of_its_own, .timeout = 60)
{
	slow_capture slow;
	per_thread_config(&slow.config);
	enum { THREADS = 3, N = 200 };
	/* A slow sink: when the writers have finished, most of their lines are still in their rings. */
	sr_log *log = slow_writers_flushed(&slow, 200, THREADS, N);
	size_t lines = tl_capture_count(&slow.cap);
	cr_expect_eq(lines, (size_t)THREADS * N, "the flush returned with %zu of %d lines written", lines, THREADS * N);
	long live = -1, made = -1, freed = -1;
	ring_counts(log, &live, &made, &freed);
	cr_expect_eq(made, THREADS, "rings made: %ld, one per writer and none for the flushing thread", made);
	close_and_expect_in_order(&log, &slow.cap, THREADS, N);
}

typedef struct kept {
	sr_category *cat;
	int id;
} kept;

static void *
debug_main(void *arg)
{
	kept *k = arg;
	for (int m = 0; m < 10; m++)
		SR_DEBUG(k->cat, "kept t%d m%d", k->id, m);
	return NULL;
}

Test(log_producer, dump_backtrace_includes_every_thread_before_the_call)
{
	captured_log cl;
	per_thread_config(&cl.config);
	cl.config.backtrace_size = 100;
	sr_log *log = captured_open(&cl);
	kept k[3];
	pthread_t t[3];
	for (int i = 0; i < 3; i++) {
		k[i] = (kept){ cl.cat, i };
		pthread_create(&t[i], NULL, debug_main, &k[i]);
	}
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	cr_assert_eq(sr_log_dump_backtrace(log), SR_OK);
	/* At return, every kept message of the three (exited) threads was dumped. */
	cr_expect_eq(tl_capture_grep(&cl.cap, "[backtrace] kept t"), 30, "%zu",
	    tl_capture_grep(&cl.cap, "[backtrace] kept t"));
	for (int i = 0; i < 3; i++) {
		char want[64];
		snprintf(want, sizeof want, "[backtrace] kept t%d m9", i);
		cr_expect_eq(tl_capture_grep(&cl.cap, want), 1, "%s", want);
	}
	sr_log_close(&log);
	tl_capture_free(&cl.cap);
}

/* ---------------------------------------------------------------------------------------- */
/* Shutdown while threads log                                                               */

typedef struct runner {
	pthread_t thread;
	sr_category *cat;
	int id;
	sr_atomic_i32 *stop;
	long made;
	sr_atomic_i32 logged;     /* 1 once the first call returned */
} runner;

static void *
runner_main(void *arg)
{
	runner *r = arg;
	/* pairs with the test's store-release */
	for (long m = 0; !sr_atomic_load_acquire_i32(r->stop); m++) {
		SR_INFO(r->cat, "t%d m%ld", r->id, m);
		r->made = m + 1;
		/* pairs with the test's load-acquire */
		if (m == 0)
			sr_atomic_store_release_i32(&r->logged, 1);
	}
	return NULL;
}

Test(log_producer, shutdown_while_threads_log, .timeout = 60)
{
	file_log f;
	sr_log_config *c = file_log_begin(&f);
	c->thread_ring_slots = 1024;
	sr_log *log = file_log_open(&f, "shut");
	enum { THREADS = 4 };
	sr_atomic_i32 stop = 0;
	runner r[THREADS];
	for (int i = 0; i < THREADS; i++) {
		r[i] = (runner){ 0, f.cat, i, &stop, 0, 0 };
		pthread_create(&r[i].thread, NULL, runner_main, &r[i]);
	}
	/*
	 * Every thread's first message accepted before the shutdown (on a
	 * loaded machine a thread may not run for a while), then a while more.
	 */
	for (int i = 0; i < THREADS; i++) {
		/* pairs with the runner's store-release */
		for (int tries = 0; tries < 10000 && !sr_atomic_load_acquire_i32(&r[i].logged); tries++)
			tl_sleep_ms(1);
		cr_assert(sr_atomic_load_acquire_i32(&r[i].logged), "thread %d made no call in 10 s", i);
	}
	tl_sleep_ms(50);
	cr_assert_eq(sr_log_shutdown(log), SR_OK);
	/* They keep calling: the level check stops them now. */
	tl_sleep_ms(20);
	sr_atomic_store_release_i32(&stop, 1);
	for (int i = 0; i < THREADS; i++)
		pthread_join(r[i].thread, NULL);
	sr_log_counters st = tl_stats(log);
	cr_expect_eq(st.accepted, st.written);
	cr_expect_eq(sr_log_flush(log), SR_ESTATE);
	sr_log_close(&log);
	/* Each thread's lines are a gap-free prefix of what it logged; the total is what was written. */
	char *text = tl_read_file(f.path, NULL);
	cr_assert_not_null(text);
	long next[THREADS] = { 0 }, total = 0;
	unsigned long reported = 0;
	for (const char *line = text; *line != '\0'; line = strchr(line, '\n') + 1) {
		int t;
		long m;
		const char *after;
		/*
		 * A caller that was waiting for room in its full ring when the
		 * shutdown began gives up: its message is counted as dropped and
		 * reported in the log (the logger's own line).
		 */
		unsigned long dropped;
		if (sscanf(line, "%lu message(s) dropped because the queue was full", &dropped) == 1) {
			reported += dropped;
			continue;
		}
		CHECK(parse_tm(line, &t, &m, &after) && t >= 0 && t < THREADS, "%.40s", line);
		CHECK(m == next[t], "thread %d: %ld where %ld was due", t, m, next[t]);
		next[t]++;
		total++;
	}
	cr_expect_eq((uint64_t)total, st.written);
	/* A caller that gives up after the final drain is counted but cannot be reported any more. */
	cr_expect_leq((uint64_t)reported, st.dropped, "no more drops reported than counted");
	for (int i = 0; i < THREADS; i++)
		cr_expect(next[i] > 0 && next[i] <= r[i].made, "thread %d: %ld written of %ld", i, next[i], r[i].made);
	free(text);
	unlink(f.path);
}

/* ---------------------------------------------------------------------------------------- */
/* Crash flush across rings                                                                 */

/* A volatile pointer: the compiler cannot see (or warn about) where it points. */
static int *volatile wild_pointer = (int *)(uintptr_t)16;

enum { CRASH_THREADS = 4, CRASH_N = 2000 };

/* The child: threads log, then the main thread faults (consumer alive, or stuck in a sink). */
static void
crash_child(const char *path, bool stuck)
{
	alarm(20);
	int devnull = open("/dev/null", O_WRONLY);
	dup2(devnull, 2);
	sr_log_config c;
	per_thread_config(&c);
	/* A record takes one or two 64-byte slots: every thread's ring holds all of its records. */
	c.thread_ring_slots = 8192;
	c.slot_size = 64;
	c.crash_handler = true;
	sr_sink_config sinks[2];
	int n = 0;
	/* Stuck: a capture paused for good holds the consumer in its first line. */
	static tl_capture never;
	tl_capture_init(&never);
	tl_capture_pause(&never);
	if (stuck)
		sinks[n++] = sr_sink_callback(tl_capture_write, &never);
	sinks[n++] = sr_sink_file(path);
	c.sinks = sinks;
	c.sink_count = n;
	sr_log *log = sr_log_open(&c, NULL);
	if (log == NULL)
		_exit(99);
	sr_category *cat = sr_log_category(log, "crash");
	if (stuck)
		SR_INFO(cat, "stuck");
	writer w[CRASH_THREADS];
	memset(w, 0, sizeof w);
	for (int i = 0; i < CRASH_THREADS; i++) {
		w[i] = (writer){ 0, cat, i, CRASH_N, NULL };
		pthread_create(&w[i].thread, NULL, writer_main, &w[i]);
	}
	for (int i = 0; i < CRASH_THREADS; i++)
		pthread_join(w[i].thread, NULL);
	*wild_pointer = 1;
	_exit(98);
}

static void
crash_and_check(bool stuck)
{
	char path[96];
	tl_temp_path(path, sizeof path, "crash");
	fflush(NULL);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0)
		crash_child(path, stuck);
	int status;
	cr_assert_eq(waitpid(pid, &status, 0), pid);
#if defined(__SANITIZE_ADDRESS__)
	/* ASan's own SEGV handler (which ours chains to) reports and exits 1. */
	cr_expect((WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV) || (WIFEXITED(status) && WEXITSTATUS(status) == 1),
	    "status 0x%x", status);
#else
	cr_expect(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV, "status 0x%x", status);
#endif
	char *text = tl_read_file(path, NULL);
	cr_assert_not_null(text, "no log file");
	cr_expect_eq(expect_each_thread_in_order(text, CRASH_THREADS, CRASH_N), (long)CRASH_THREADS * CRASH_N);
	if (stuck)
		cr_expect(strncmp(text, "stuck\n", 6) == 0, "the record the consumer was stuck on comes first");
	free(text);
	unlink(path);
}

Test(log_producer, crash_flush_with_the_consumer_alive, .timeout = 30)
{
	crash_and_check(false);
}

Test(log_producer, crash_flush_takes_over_every_ring_from_a_stuck_consumer, .timeout = 30)
{
	crash_and_check(true);
}

/* ---------------------------------------------------------------------------------------- */
/* Timestamp order across threads                                                           */

typedef struct turn_taker {
	pthread_t thread;
	sr_category *cat;
	int id, threads, n;
	sr_atomic_i32 *turn;
} turn_taker;

/* Logs message m when the turn is m * threads + id: every record is published before the next is stamped. */
static void *
turn_main(void *arg)
{
	turn_taker *t = arg;
	for (int m = 0; m < t->n; m++) {
		int32_t mine = m * t->threads + t->id;
		/* pairs with the previous taker's fetch-and-add: its record was published first */
		while (sr_atomic_load_acquire_i32(t->turn) != mine)
			sched_yield();
		SR_INFO(t->cat, "t%d m%d", t->id, m);
		sr_atomic_faa_i32(t->turn, 1);
	}
	return NULL;
}

Test(log_producer, records_published_before_the_pass_come_out_in_timestamp_order, .timeout = 60)
{
	gated g;
	tl_capture_init(&g.cap);
	sr_log_config c;
	per_thread_config(&c);
	c.clock = SR_LOG_CLOCK_REALTIME;
	g.sink = sr_sink_callback(tl_capture_write, &g.cap);
	c.sinks = &g.sink;
	c.sink_count = 1;
	g.log = tl_open(&c);
	g.cat = sr_log_category(g.log, "t");
	/* The consumer waits in the sink while four threads take turns: all of it is in the rings. */
	tl_capture_pause(&g.cap);
	SR_INFO(g.cat, "gate");
	tl_capture_wait_stuck(&g.cap);
	enum { THREADS = 4, N = 500 };
	sr_atomic_i32 turn = 0;
	turn_taker t[THREADS];
	for (int i = 0; i < THREADS; i++) {
		t[i] = (turn_taker){ 0, g.cat, i, THREADS, N, &turn };
		pthread_create(&t[i].thread, NULL, turn_main, &t[i]);
	}
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i].thread, NULL);
	tl_capture_resume(&g.cap);
	cr_assert_eq(sr_log_flush(g.log), SR_OK);
	/* Exactly the order they were logged in: t0 m0, t1 m0, t2 m0, t3 m0, t0 m1, ... */
	cr_assert_eq(g.cap.count, 1 + THREADS * N);
	for (int k = 0; k < THREADS * N; k++) {
		char want[32];
		snprintf(want, sizeof want, "t%d m%d", k % THREADS, k / THREADS);
		CHECK(strcmp(g.cap.lines[1 + k], want) == 0, "line %d: '%s', expected '%s'", 1 + k, g.cap.lines[1 + k], want);
	}
	gated_close(&g);
}

/* Nanoseconds from "SECONDS.NNNNNNNNN". */
static int64_t
parse_ts(const char *s, const char **end)
{
	char *e;
	int64_t sec = strtoll(s, &e, 10);
	CHECK(*e == '.', "%.40s", s);
	int64_t frac = strtoll(e + 1, &e, 10);
	*end = e;
	return sec * SR_NS_PER_S + frac;
}

Test(log_producer, free_running_threads_stay_within_the_bound, .timeout = 60)
{
	file_log f;
	sr_log_config *c = file_log_begin(&f);
	c->clock = SR_LOG_CLOCK_REALTIME;
	c->layout = SR_LOG_LAYOUT_PATTERN;
	c->pattern = "%d{%s.%9f} %m%n";
	sr_log *log = file_log_open(&f, "order");
	enum { THREADS = 4, N = 20000 };
	writer w[THREADS];
	memset(w, 0, sizeof w);
	for (int i = 0; i < THREADS; i++)
		w[i].after = malloc(N * sizeof(int64_t));
	run_writers(w, THREADS, f.cat, N);
	cr_assert_eq(sr_log_flush(log), SR_OK);
	sr_log_close(&log);
	char *text = tl_read_file(f.path, NULL);
	cr_assert_not_null(text);
	/*
	 * The bound: a line y that comes after a line stamped later (the
	 * highest stamp so far, x) was published after the pass that wrote x
	 * looked at y's ring, and x's stamp is at most that look, so at most
	 * y's publish: at most the time its thread read right after the call.
	 */
	int64_t highest = INT64_MIN;
	long lines = 0, inversions = 0, next[THREADS] = { 0 };
	int64_t worst = 0;
	for (const char *line = text; *line != '\0';) {
		const char *p;
		int64_t ts = parse_ts(line, &p);
		int t;
		long m;
		const char *after;
		CHECK(*p == ' ' && parse_tm(p + 1, &t, &m, &after) && t >= 0 && t < THREADS, "%.40s", line);
		CHECK(m == next[t], "thread %d: %ld where %ld was due", t, m, next[t]);
		next[t]++;
		if (ts < highest) {
			inversions++;
			CHECK(highest <= w[t].after[m], "t%d m%ld stamped %" PRId64 " came after a line stamped %"
			    PRId64 ", later than its call returned (%" PRId64 ")", t, m, ts, highest, w[t].after[m]);
			if (highest - ts > worst)
				worst = highest - ts;
		} else {
			highest = ts;
		}
		lines++;
		line = strchr(line, '\n') + 1;
	}
	cr_expect_eq(lines, THREADS * N);
	cr_log_info("%ld lines, %ld out of timestamp order, by at most %" PRId64 " ns", lines, inversions, worst);
	for (int i = 0; i < THREADS; i++)
		free(w[i].after);
	free(text);
	unlink(f.path);
}

/* ---------------------------------------------------------------------------------------- */
/* The caller's fast path                                                                   */

/* A header-only message record of site, as the frontend would build it. */
static sr_log_rec
plain_record(sr_site *site, sr_category *cat)
{
	sr_fmt_sig scratch;
	(void)sr_site_sig(site, &scratch);
	sr_log_rec h;
	memset(&h, 0, sizeof h);
	h.kind = SR_REC_MESSAGE;
	h.level = (uint8_t)site->level;
	h.site = site;
	h.cat = cat;
	h.size = sizeof h;
	h.ts_ns = sr_realtime_ns();
	return h;
}

typedef struct claimer {
	sr_log *log;
	void *ring;
} claimer;

static void *
claimer_main(void *arg)
{
	claimer *c = arg;
	sr_log_claim claim;
	if (c->log->backend->try_claim(c->log, 64, &claim)) {
		c->ring = claim.ring;
		/* An empty claim is not published: write a record. */
		static sr_site site = { .format = "from another thread", .file = __FILE__, .function = __func__,
			.line = __LINE__, .level = SR_LOG_INFO };
		sr_log_rec h = plain_record(&site, sr_log_category(c->log, "t"));
		sr_log__thread_record_encode(&claim.w, &h, NULL);
		c->log->backend->commit(c->log, &claim);
	}
	return NULL;
}

Test(log_producer, try_claim_and_commit)
{
	captured_log cl;
	tiny_rings_config(&cl.config);
	sr_log *log = captured_open(&cl);
	cr_assert_not_null(log->backend->try_claim);
	cr_assert_not_null(log->backend->commit);
	static sr_site site = { .format = "claimed and committed", .file = __FILE__, .function = __func__,
		.line = __LINE__, .level = SR_LOG_INFO };
	sr_log_rec h = plain_record(&site, cl.cat);

	sr_log_claim a, b;
	cr_assert(log->backend->try_claim(log, sizeof h, &a));
	cr_expect_eq(a.first, 0);
	cr_expect_eq(a.last, 0, "a thread record's header: one 64-byte slot");
	sr_log__thread_record_encode(&a.w, &h, NULL);
	log->backend->commit(log, &a);
	cr_assert(log->backend->try_claim(log, 100, &b));
	cr_expect_eq(b.ring, a.ring, "the same thread, the same ring");
	cr_expect(b.first == 1 && b.last == 2, "100 bytes: two slots, %" PRId64 "..%" PRId64, b.first, b.last);
	h.size = 100;    /* a record of two slots (44 bytes of nothing after the header) */
	sr_log__thread_record_encode(&b.w, &h, NULL);
	log->backend->commit(log, &b);
	cr_assert_eq(sr_log_flush(log), SR_OK);
	cr_expect_eq(tl_capture_grep(&cl.cap, "claimed and committed"), 2);

	claimer other = { log, NULL };
	pthread_t t;
	pthread_create(&t, NULL, claimer_main, &other);
	pthread_join(t, NULL);
	cr_expect(other.ring != NULL && other.ring != a.ring, "another thread, another ring");

	/* A full ring: try_claim fails at once instead of waiting. */
	h.size = sizeof h;
	tl_capture_pause(&cl.cap);
	SR_INFO(cl.cat, "gate");
	tl_capture_wait_stuck(&cl.cap);
	int claimed = 0;
	sr_log_claim x;
	while (claimed < 100 && log->backend->try_claim(log, sizeof h, &x)) {
		sr_log__thread_record_encode(&x.w, &h, NULL);
		log->backend->commit(log, &x);
		claimed++;
	}
	/* The consumer passed sequences 0..2 and holds the gate (3): 3 + 16 = 18 is the last claimable. */
	cr_expect_eq(claimed, 15, "%d", claimed);
	tl_capture_resume(&cl.cap);
	cr_assert_eq(sr_log_flush(log), SR_OK);
	sr_log_counters st = tl_stats(log);
	cr_expect_eq(st.dropped, 0, "try_claim never drops: the caller then calls emit");
	cr_expect_eq(tl_capture_grep(&cl.cap, "claimed and committed"), 2 + (size_t)claimed);
	sr_log_close(&log);
	tl_capture_free(&cl.cap);
}

/*
 * A thread's ring carries its name once, not in every record: a thread
 * renamed after it logged tells the consumer with its next record, so lines
 * before the rename show the old name and lines after it the new one, at a
 * site whose later calls are written inline as at a new one.
 */
/* A per-thread logger whose lines, in a pattern of the test's, are captured. */
typedef struct patterned {
	tl_capture cap;
	sr_log_config config;
	sr_sink_config sink;
	sr_log *log;
} patterned;

static sr_log *
patterned_open(patterned *p, const char *pattern)
{
	tl_capture_init(&p->cap);
	per_thread_config(&p->config);
	p->config.pattern = pattern;
	p->config.layout = SR_LOG_LAYOUT_PATTERN;
	p->log = open_to_capture(&p->config, &p->sink, &p->cap);
	return p->log;
}

static void
patterned_close(patterned *p)
{
	sr_log_close(&p->log);
	tl_capture_free(&p->cap);
}

/* One call site, whichever category it is given (its home category is the first it was given). */
static void
log_through_one_site(sr_category *cat, int i)
{
	static const char word[] = "sixteen-chars-ok";
	SR_INFO(cat, "call %d %.1f %s", i, i * 0.5, i % 2 == 0 ? word : "odd");
}

/*
 * A thread ring's record leaves the category out when the call names its
 * site's home category (the consumer takes it from the site); a call that
 * names another category at the same site (inline too, with the category
 * in a full header) must still show its own with its values, in order, and
 * so must a later logger's category at a site
 * whose home category belonged to a logger now closed.
 */
Test(log_producer, a_site_given_several_categories_writes_each_ones_name)
{
	patterned p;
	sr_log *log = patterned_open(&p, "%c|%m");
	sr_category *home = sr_log_category(log, "home");
	sr_category *other = sr_log_category(log, "other");
	for (int i = 0; i < 40; i++)
		log_through_one_site(i % 3 == 2 ? other : home, i);
	cr_assert_eq(sr_log_flush(log), SR_OK);
	cr_assert_eq(p.cap.count, 40);
	for (int i = 0; i < 40; i++) {
		char want[64];
		snprintf(want, sizeof want, "%s|call %d %.1f %s", i % 3 == 2 ? "other" : "home", i, i * 0.5,
		    i % 2 == 0 ? "sixteen-chars-ok" : "odd");
		cr_expect_str_eq(p.cap.lines[i], want, "line %d", i);
	}
	patterned_close(&p);

	/* A second logger: the site's home category is the closed logger's. */
	log = patterned_open(&p, "%c|%m");
	sr_category *later = sr_log_category(log, "later");
	for (int i = 0; i < 5; i++)
		log_through_one_site(later, i);
	cr_assert_eq(sr_log_flush(log), SR_OK);
	cr_assert_eq(p.cap.count, 5);
	cr_expect_str_eq(p.cap.lines[0], "later|call 0 0.0 sixteen-chars-ok");
	cr_expect_str_eq(p.cap.lines[4], "later|call 4 2.0 sixteen-chars-ok");
	patterned_close(&p);
}

Test(log_producer, a_thread_renamed_after_it_logged_shows_its_new_name)
{
	patterned p;
	sr_log *log = patterned_open(&p, "%t|%m");
	sr_category *cat = sr_log_category(log, "t");
	sr_log_thread_name("before");
	for (int phase = 0; phase < 2; phase++) {
		for (int i = 0; i < 3; i++)
			SR_INFO(cat, "call %d of phase %d", i, phase);
		SR_INFO(cat, "a new site in phase %d", phase);
		if (phase == 0)
			sr_log_thread_name("after");
	}
	cr_assert_eq(sr_log_flush(log), SR_OK);
	cr_expect_eq(tl_capture_grep(&p.cap, "before|call"), 3, "the first phase's calls, old name");
	cr_expect_eq(tl_capture_grep(&p.cap, "before|a new site in phase 0"), 1);
	cr_expect_eq(tl_capture_grep(&p.cap, "after|call"), 3, "the second phase's calls, new name");
	cr_expect_eq(tl_capture_grep(&p.cap, "after|a new site in phase 1"), 1);
	cr_expect_eq(p.cap.count, 8, "no line for the rename itself");
	sr_log_thread_name(NULL);
	patterned_close(&p);
}

/* A thread's ring keeps errno only for sites that print it: %m still prints the caller's. */
/* %m is glibc's, which -Wpedantic reports as not ISO C. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat"
Test(log_producer, percent_m_in_a_threads_ring_prints_the_callers_errno)
{
	captured_log cl;
	per_thread_config(&cl.config);
	sr_log *log = captured_open(&cl);
	for (int i = 0; i < 2; i++) {
		errno = ENOENT;
		SR_INFO(cl.cat, "open %d: %m", i);
		cr_expect_eq(errno, ENOENT, "logging leaves errno as it was");
		errno = EACCES;
		SR_INFO(cl.cat, "no errno here %d", i);
	}
	cr_assert_eq(sr_log_flush(log), SR_OK);
	char want[128];
	for (int i = 0; i < 2; i++) {
		snprintf(want, sizeof want, "open %d: %s", i, strerror(ENOENT));
		cr_expect_eq(tl_capture_grep(&cl.cap, want), 1, "%s", want);
		snprintf(want, sizeof want, "no errno here %d", i);
		cr_expect_eq(tl_capture_grep(&cl.cap, want), 1, "%s", want);
	}
	sr_log_close(&log);
	tl_capture_free(&cl.cap);
}
#pragma GCC diagnostic pop

/*
 * The consumer hands the lines it read back to memory (so that a producer's
 * next lap does not wait for them) only while its rings together fit the
 * caches: 1 MiB of rings (any last-level cache of 2 MiB or more) yes, 1 GiB no, their
 * lines being back in memory a lap later anyway.
 */
Test(log_producer, only_rings_that_fit_the_caches_have_their_read_lines_evicted)
{
	if (!sr_cache__can_evict())
		cr_skip_test("this CPU cannot evict a line without ordering (CLFLUSHOPT)");
	size_t limit = sr_cache__evict_limit();
	cr_expect_geq(limit, (size_t)1 << 20, "evicting stops at %zu bytes of rings", limit);
	cr_expect_lt(limit, (size_t)1 << 30, "evicting stops at %zu bytes of rings", limit);
}

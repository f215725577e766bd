/* SPDX-License-Identifier: Apache-2.0 */
/*
 * stress_churn.c: start/stop churn of the logger.
 *
 * Each iteration opens a logger on a file, logs numbered messages from three
 * threads at once, and closes it; then it reads the file back and checks
 * every line.  Iterations rotate through the modes (ring, on per-thread
 * rings or the shared ring, queue, sync), the ring's wait strategies, ring
 * sizes down to 8 slots (so callers meet a full ring: the shared ring's
 * ring_slots and each thread's thread_ring_slots alike), the block and drop
 * policies, and closing with or without a flush first.  Checked each
 * iteration:
 *   - block: every message is in the file exactly once and intact
 *     (accepted = attempted, written = accepted, lines = written);
 *   - drop: every message at most once, accepted + dropped = attempted,
 *     written = accepted = the lines in the file, and the drop reports in the
 *     file add up to dropped;
 *   - nothing leaks (LeakSanitizer at exit under the asan preset) and no
 *     iteration hangs: a watchdog (alarm) fails the run, naming the
 *     iteration and its step, when one takes more than 10 s.
 *
 * A plain program, so that the tsan preset runs it too.  1,000 iterations by
 * default (fewer under sanitizers); --iterations N sets the count.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <seqring/sr_log.h>

#include "stress_args.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer) && !defined(__SANITIZE_ADDRESS__)
#define __SANITIZE_ADDRESS__ 1
#endif
#if __has_feature(thread_sanitizer) && !defined(__SANITIZE_THREAD__)
#define __SANITIZE_THREAD__ 1
#endif
#endif

#if defined(__SANITIZE_THREAD__)
#define DEFAULT_ITERATIONS 300
#elif defined(__SANITIZE_ADDRESS__)
#define DEFAULT_ITERATIONS 500
#else
#define DEFAULT_ITERATIONS 1000
#endif

enum { THREADS = 3, EACH = 200, WATCHDOG_SECONDS = 10 };

/* For the watchdog's message: where we are (written by the main thread only). */
static volatile sig_atomic_t current_iteration = -1;
static volatile sig_atomic_t current_step;
static const char *const step_names[] = {
	"open", "logging", "flush", "stats", "close", "verify"
};

static void
watchdog(int sig)
{
	(void)sig;
	char msg[160];
	int it = current_iteration, step = current_step;
	int n = snprintf(msg, sizeof msg,
	    "stress_churn: FAILED: iteration %d hung for more than %d s in step '%s'\n",
	    it, WATCHDOG_SECONDS, step >= 0 && step < 6 ? step_names[step] : "?");
	if (n > 0)
		(void)!write(STDERR_FILENO, msg, (size_t)n);
	_exit(3);
}

static void
fail(int iteration, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));

static void
fail(int iteration, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "stress_churn: FAILED in iteration %d: ", iteration);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

typedef struct variant {
	sr_log_mode mode;
	sr_log_producer producer;     /* mode ring's: per-thread rings (the default) or the shared one */
	const char *wait;
	int64_t slots;
	sr_log_full_policy policy;
	bool flush_first;
} variant;

static const char *const waits[] = {
	"liteblock", "block", "timeout:timeout=1ms", "phased:spin=1us,yield=10us,fallback=liteblock",
	"yield", "sleep:spin=10,yield=10,sleep=20us", NULL /* the default */
};
static const int64_t slot_counts[] = { 8, 64, 1024 };

/* Iteration i's configuration: every combination comes up within a few dozen iterations. */
static variant
variant_of(int i)
{
	static const struct {
		sr_log_mode mode;
		sr_log_producer producer;     /* the default for queue and sync, which ignore it */
	} modes[] = {
		{ SR_LOG_MODE_RING, SR_LOG_PRODUCER_PER_THREAD }, { SR_LOG_MODE_RING, SR_LOG_PRODUCER_SHARED },
		{ SR_LOG_MODE_RING, SR_LOG_PRODUCER_PER_THREAD }, { SR_LOG_MODE_QUEUE, SR_LOG_PRODUCER_PER_THREAD },
		{ SR_LOG_MODE_SYNC, SR_LOG_PRODUCER_PER_THREAD },
	};
	variant v;
	v.mode = modes[i % 5].mode;
	v.producer = modes[i % 5].producer;
	v.wait = waits[(i / 5) % 7];
	v.slots = slot_counts[(i / 35) % 3];
	v.policy = (i / 2) % 3 == 2 ? SR_LOG_FULL_DROP : SR_LOG_FULL_BLOCK;
	v.flush_first = i % 2 == 0;
	return v;
}

typedef struct worker {
	sr_category *cat;
	pthread_barrier_t *start;
	int iteration;
	int t;
} worker;

static void *
worker_main(void *arg)
{
	worker *w = arg;
	pthread_barrier_wait(w->start);
	for (int i = 0; i < EACH; i++)
		SR_INFO(w->cat, "churn it=%d t=%d i=%d end", w->iteration, w->t, i);
	return NULL;
}

/* Reads the whole file; *len gets its size. */
static char *
slurp(const char *path, size_t *len, int iteration)
{
	FILE *f = fopen(path, "rb");
	if (f == NULL)
		fail(iteration, "cannot reopen %s: %s", path, strerror(errno));
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap);
	if (buf == NULL)
		fail(iteration, "out of memory");
	for (;;) {
		if (n == cap) {
			cap *= 2;
			char *grown = realloc(buf, cap);
			if (grown == NULL)
				fail(iteration, "out of memory");
			buf = grown;
		}
		size_t r = fread(buf + n, 1, cap - n, f);
		n += r;
		if (r == 0)
			break;
	}
	fclose(f);
	*len = n;
	return buf;
}

typedef struct counts {
	uint64_t lines;          /* our messages */
	uint64_t reported_drops; /* sum over "N message(s) dropped" lines */
} counts;

/* Parses every line of the file; each message at most once, and all of them when `all`. */
static counts
verify_file(const char *path, int iteration, bool all)
{
	size_t len;
	char *text = slurp(path, &len, iteration);
	unsigned char seen[THREADS][EACH];
	memset(seen, 0, sizeof seen);
	counts c = { 0, 0 };
	size_t pos = 0;
	while (pos < len) {
		char *nl = memchr(text + pos, '\n', len - pos);
		if (nl == NULL)
			fail(iteration, "the file ends in the middle of a line: \"%.*s\"", (int)(len - pos), text + pos);
		*nl = '\0';
		const char *line = text + pos;
		pos = (size_t)(nl - text) + 1;
		int it, t, i, consumed = 0;
		unsigned long long dropped;
		if (sscanf(line, "churn it=%d t=%d i=%d end%n", &it, &t, &i, &consumed) == 3 &&
		    line[consumed] == '\0') {
			if (it != iteration || t < 0 || t >= THREADS || i < 0 || i >= EACH)
				fail(iteration, "a line from elsewhere: \"%s\"", line);
			if (seen[t][i]++ != 0)
				fail(iteration, "message t=%d i=%d written twice", t, i);
			c.lines++;
		} else if (sscanf(line, "%llu message(s) dropped because the queue was full", &dropped) == 1) {
			c.reported_drops += dropped;
		} else {
			fail(iteration, "a garbled line: \"%s\"", line);
		}
	}
	if (all) {
		for (int t = 0; t < THREADS; t++)
			for (int i = 0; i < EACH; i++)
				if (seen[t][i] != 1)
					fail(iteration, "message t=%d i=%d is missing from the file", t, i);
	}
	free(text);
	return c;
}

int
main(int argc, char **argv)
{
	int64_t iterations = DEFAULT_ITERATIONS;
	const sa_option options[] = {
		{ .name = "iterations", .kind = SA_COUNT, .dest = &iterations, .min = 1, .max = 100000000,
		    .help = "open/log/close cycles (default " SA_STRING(DEFAULT_ITERATIONS) ")" },
	};
	sa_parse(argc, argv, options, sizeof options / sizeof *options, NULL);

	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = watchdog;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);

	const char *tmp = getenv("TMPDIR");
	char path[512];
	snprintf(path, sizeof path, "%s/seqring_churn_XXXXXX", tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
	int fd = mkstemp(path);
	if (fd < 0) {
		fprintf(stderr, "stress_churn: mkstemp %s: %s\n", path, strerror(errno));
		return 1;
	}
	close(fd);

	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	uint64_t attempted = 0, written = 0, dropped_total = 0;
	for (int it = 0; it < iterations; it++) {
		variant v = variant_of(it);
		current_iteration = it;
		current_step = 0;
		alarm(WATCHDOG_SECONDS);
		unlink(path);   /* the file sink creates it afresh */

		sr_log_config c;
		sr_log_config_default(&c);
		c.mode = v.mode;
		c.producer = v.producer;
		/* Whichever ring a caller writes into is this small. */
		c.ring_slots = v.slots;
		c.thread_ring_slots = v.slots;
		c.slot_size = 128;
		c.max_message_bytes = 1024;          /* 8 slots x 128 bytes is the smallest ring */
		c.wait_strategy = v.wait;
		c.full_policy = v.policy;
		c.layout = SR_LOG_LAYOUT_MESSAGE;
		sr_sink_config s = sr_sink_file(path);
		s.buffer_bytes = 4096;
		c.sinks = &s;
		c.sink_count = 1;
		c.thread_name = "churn-log";
		sr_error err;
		sr_log *log = sr_log_open(&c, &err);
		if (log == NULL)
			fail(it, "sr_log_open: %s", err.message);
		sr_category *cat = sr_log_category_get(log, "churn", &err);
		if (cat == NULL)
			fail(it, "category: %s", err.message);

		current_step = 1;
		pthread_barrier_t start;
		pthread_barrier_init(&start, NULL, THREADS);
		pthread_t th[THREADS];
		worker w[THREADS];
		for (int t = 0; t < THREADS; t++) {
			w[t] = (worker){ cat, &start, it, t };
			int e = pthread_create(&th[t], NULL, worker_main, &w[t]);
			if (e != 0)
				fail(it, "pthread_create: %s", strerror(e));
		}
		for (int t = 0; t < THREADS; t++)
			pthread_join(th[t], NULL);
		pthread_barrier_destroy(&start);
		attempted += THREADS * EACH;

		sr_log_counters st;
		bool have_stats = false;
		if (v.flush_first) {
			current_step = 2;
			if (sr_log_flush(log) != SR_OK)
				fail(it, "sr_log_flush failed");
			current_step = 3;
			sr_log_stats(log, &st);
			have_stats = true;
			if (st.accepted + st.dropped != (uint64_t)THREADS * EACH)
				fail(it, "accepted %" PRIu64 " + dropped %" PRIu64 " != attempted %d",
				    st.accepted, st.dropped, THREADS * EACH);
			if (st.written != st.accepted)
				fail(it, "written %" PRIu64 " != accepted %" PRIu64, st.written, st.accepted);
			if (v.policy == SR_LOG_FULL_BLOCK && st.dropped != 0)
				fail(it, "%" PRIu64 " dropped under the block policy", st.dropped);
			if (st.sink_errors != 0)
				fail(it, "%" PRIu64 " sink errors", st.sink_errors);
		}
		current_step = 4;
		if (sr_log_close(&log) != SR_OK || log != NULL)
			fail(it, "sr_log_close failed");

		current_step = 5;
		bool all = v.policy == SR_LOG_FULL_BLOCK;
		counts got = verify_file(path, it, all);
		if (have_stats) {
			if (got.lines != st.written)
				fail(it, "%" PRIu64 " lines in the file, %" PRIu64 " written", got.lines, st.written);
			/* Drops reported after the flush still count: the close reports them first. */
			if (got.reported_drops != st.dropped)
				fail(it, "drop reports add up to %" PRIu64 ", dropped %" PRIu64,
				    got.reported_drops, st.dropped);
		} else if (got.lines + got.reported_drops != (uint64_t)THREADS * EACH) {
			fail(it, "%" PRIu64 " lines + %" PRIu64 " reported drops != attempted %d",
			    got.lines, got.reported_drops, THREADS * EACH);
		}
		written += got.lines;
		dropped_total += got.reported_drops;
		alarm(0);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	unlink(path);
	double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	printf("stress_churn: %" PRId64 " open/log/close iterations (modes ring per_thread/shared, queue, sync, "
	    "%zu wait strategies, rings of 8-1024 slots, block/drop), %" PRIu64 " messages attempted, %" PRIu64
	    " lines verified, %" PRIu64 " dropped and reported, %.2f s\n",
	    iterations, sizeof waits / sizeof *waits, attempted, written, dropped_total, secs);
	return 0;
}

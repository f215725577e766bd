/* SPDX-License-Identifier: Apache-2.0 */
/*
 * request_loop.c: the logger examples' load (request_loop.h): the workers,
 * their log lines, and what is summed and counted at the end.
 */
#include "request_loop.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "ex_time.h"
#include <seqring/sr_wait.h>

struct rl_thread {
	rl_load *load;
	int index;
	pthread_t id;
	uint64_t all_requests;   /* every request, warm-up included */
	uint64_t requests;       /* requests that ended inside the window */
	uint64_t calls;          /* log calls, warm-up included */
	uint64_t work_result;    /* keeps the arithmetic from being optimised away */
	long nvcsw, nivcsw;      /* context switches of this thread over its run */
	int64_t cpu_ns;          /* CPU time of this thread over its run */
	int64_t *done;           /* completions per bucket (bucket_ns > 0) */
	ex_hist latency;         /* request latency inside the window */
	ex_hist call_ns;         /* log call duration inside the window (time_calls) */
} __attribute__((aligned(64)));

/* ---------------------------------------------------------------------------------------- */
/* The work                                                                                 */

/*
 * A dependent chain of multiply-adds: the work cannot be vectorised or
 * skipped, and takes the same time on every request.
 */
static inline uint64_t
work(uint64_t x, int64_t iters)
{
	for (int64_t i = 0; i < iters; i++) {
		x = x * UINT64_C(6364136223846793005) + UINT64_C(1442695040888963407);
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

/* Where calibration leaves its result, so that the compiler keeps the work. */
static volatile uint64_t work_sink;

int64_t
rl_calibrate_work(int64_t target_ns)
{
	/* Best of five: the run least disturbed by whatever else the machine does. */
	const int64_t iters = 200000;
	int64_t best = INT64_MAX;
	uint64_t x = 1;
	for (int k = 0; k < 5; k++) {
		int64_t a = sr_monotonic_ns();
		x = work(x, iters);
		int64_t d = sr_monotonic_ns() - a;
		if (d < best)
			best = d;
	}
	work_sink = x;
	int64_t n = best > 0 ? iters * target_ns / best : iters;
	return n > 0 ? n : 1;
}

/* ---------------------------------------------------------------------------------------- */
/* The log lines                                                                            */

/* Times one log call into the thread's histogram when asked to. */
#define TIMED_CALL(t, measured, stmt) do { \
	if ((t)->load->time_calls) { \
		int64_t timed_call__a = sr_monotonic_ns(); \
		stmt; \
		if (measured) \
			ex_hist_add(&(t)->call_ns, sr_monotonic_ns() - timed_call__a); \
	} else { \
		stmt; \
	} \
	(t)->calls++; \
} while (0)

static void
log_request(rl_thread *t, int64_t req, int64_t start, bool measured)
{
	const rl_load *l = t->load;
	int item = (int)(req % 10);
	double ms = (double)(sr_monotonic_ns() - start) / 1e6;
	if (l->lines == RL_LINES_HTTPCLIENT) {
		/* The text of the article's lines, with this request's figures. */
		TIMED_CALL(t, measured, SR_INFO(l->cat[0],
		    "info: System.Net.Http.HttpClient.inventory.LogicalHandler[100]\n"
		    "      Start processing HTTP request GET http://127.0.0.1:5871/inventory/%d", item));
		TIMED_CALL(t, measured, SR_INFO(l->cat[1],
		    "info: System.Net.Http.HttpClient.inventory.ClientHandler[100]\n"
		    "      Sending HTTP request GET http://127.0.0.1:5871/inventory/%d", item));
		TIMED_CALL(t, measured, SR_INFO(l->cat[1],
		    "info: System.Net.Http.HttpClient.inventory.ClientHandler[101]\n"
		    "      Received HTTP response headers after %.4fms - %d", ms, 200));
		TIMED_CALL(t, measured, SR_INFO(l->cat[0],
		    "info: System.Net.Http.HttpClient.inventory.LogicalHandler[101]\n"
		    "      End processing HTTP request after %.4fms - %d", ms, 200));
		TIMED_CALL(t, measured, SR_INFO(l->cat[2],
		    "info: QuoteEndpoint[0]\n      Quote %d priced at %d", item, 10 + item));
	} else {
		TIMED_CALL(t, measured, SR_INFO(l->cat[0],
		    "Request starting HTTP/1.1 GET http://127.0.0.1:%d/up - - -", 5201));
		TIMED_CALL(t, measured, SR_INFO(l->cat[0],
		    "Request finished HTTP/1.1 GET http://127.0.0.1:%d/up - %d 2 text/plain;+charset=utf-8 "
		    "%.4fms", 5201, 200, ms));
	}
}

/* Looks up the categories the lines use (the articles' category names). */
static int
look_up_categories(rl_load *l, sr_error *err)
{
	static const char *const httpclient[RL_MAX_CATS] = {
		"System.Net.Http.HttpClient.inventory.LogicalHandler",
		"System.Net.Http.HttpClient.inventory.ClientHandler",
		"QuoteEndpoint"
	};
	static const char *const hosting[RL_MAX_CATS] = {
		"Microsoft.AspNetCore.Hosting.Diagnostics", NULL, NULL
	};
	const char *const *names = l->lines == RL_LINES_HTTPCLIENT ? httpclient : hosting;
	for (int i = 0; i < RL_MAX_CATS; i++) {
		l->cat[i] = &sr_category_off;
		if (names[i] != NULL && (l->cat[i] = sr_log_category_get(l->log, names[i], err)) == NULL)
			return -1;
	}
	return 0;
}

/* ---------------------------------------------------------------------------------------- */
/* The logger                                                                               */

sr_log *
rl_log_open(sr_log_config *c, int fd, sr_error *err)
{
	sr_sink_config sink = sr_sink_fd(fd);
	sink.close_fd = true;
	c->sinks = &sink; /* copied at open */
	c->sink_count = 1;
	sr_log *log = sr_log_open(c, err);
	c->sinks = NULL;
	c->sink_count = 0;
	if (log == NULL)
		close(fd);
	return log;
}

sr_log *
rl_log_open_devnull(sr_log_config *c, sr_error *err)
{
	int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		sr_error_set(err, SR_ESYS, "cannot open /dev/null: %s", strerror(errno));
		return NULL;
	}
	return rl_log_open(c, fd, err);
}

/* ---------------------------------------------------------------------------------------- */
/* The workers                                                                              */

static void *
worker(void *p)
{
	rl_thread *t = p;
	rl_load *l = t->load;
	struct rusage r0, r1;
	getrusage(RUSAGE_THREAD, &r0);
	uint64_t x = (uint64_t)t->index + 1;
	for (int64_t req = 0;; req++) {
		int64_t start = sr_monotonic_ns();
		/* Relaxed, pairs with rl_stop's store: only an early stop; the window's end is a plain time. */
		if (start >= l->end_ns || sr_atomic_load_relaxed_i32(&l->stop))
			break;
		/* Log calls are timed from the window's start ... */
		bool measured = start >= l->begin_ns;
		x = work(x, l->work_iters);
		log_request(t, req, start, measured);
		int64_t end = sr_monotonic_ns();
		t->all_requests++;
		/*
		 * ... requests by when they end: a request that waited since before
		 * the window counts (its whole wait), or the longest waits would
		 * slip out of the figures.
		 */
		if (end >= l->begin_ns && end <= l->end_ns) {
			t->requests++;
			ex_hist_add(&t->latency, end - start);
		}
		if (t->done != NULL) {
			int64_t b = (end - l->t0_ns) / l->bucket_ns;
			if (b >= 0 && b < l->nbuckets)
				t->done[b]++;
		}
	}
	getrusage(RUSAGE_THREAD, &r1);
	t->nvcsw = r1.ru_nvcsw - r0.ru_nvcsw;
	t->nivcsw = r1.ru_nivcsw - r0.ru_nivcsw;
	t->cpu_ns = ex_rusage_cpu_ns(&r1) - ex_rusage_cpu_ns(&r0);
	t->work_result = x;
	return NULL;
}

void
rl_load_init(rl_load *l, sr_log *log, rl_lines lines, int threads, int64_t work_iters,
    double warmup_s, double window_s)
{
	memset(l, 0, sizeof *l);
	l->log = log;
	l->lines = lines;
	l->threads = threads;
	l->work_iters = work_iters;
	l->t0_ns = sr_monotonic_ns();
	l->begin_ns = l->t0_ns + (int64_t)(warmup_s * 1e9);
	l->end_ns = l->begin_ns + (int64_t)(window_s * 1e9);
}

static void
join_workers(rl_load *l)
{
	for (int i = 0; i < l->started; i++)
		pthread_join(l->t[i].id, NULL);
}

int
rl_start(rl_load *l)
{
	sr_error err = { 0 };
	if (look_up_categories(l, &err) != 0) {
		fprintf(stderr, "cannot create a log category: %s\n", err.message);
		return -1;
	}
	l->started = 0;
	sr_atomic_store_relaxed_i32(&l->stop, 0);
	l->t = aligned_alloc(64, sizeof *l->t * (size_t)l->threads);
	if (l->t == NULL) {
		fprintf(stderr, "out of memory for %d threads\n", l->threads);
		return -1;
	}
	memset(l->t, 0, sizeof *l->t * (size_t)l->threads);
	l->cpu_start_ns = ex_process_cpu_ns();
	for (int i = 0; i < l->threads; i++) {
		rl_thread *t = &l->t[i];
		t->load = l;
		t->index = i;
		if (l->bucket_ns > 0 && (t->done = calloc((size_t)l->nbuckets, sizeof *t->done)) == NULL) {
			fprintf(stderr, "out of memory for %" PRId64 " buckets\n", l->nbuckets);
			break;
		}
		int e = pthread_create(&t->id, NULL, worker, t);
		if (e != 0) {
			fprintf(stderr, "pthread_create failed: %s\n", strerror(e));
			break;
		}
		l->started++;
	}
	if (l->started == l->threads)
		return 0;
	rl_stop(l);
	join_workers(l);
	rl_free(l);
	return -1;
}

void
rl_stop(rl_load *l)
{
	/* Relaxed, pairs with the workers' load: the flag carries no data. */
	sr_atomic_store_relaxed_i32(&l->stop, 1);
}

void
rl_finish(rl_load *l, rl_totals *s)
{
	join_workers(l);
	sr_log_flush(l->log);
	memset(s, 0, sizeof *s);
	/* Read here: the flush is the consumer's last work of the run. */
	s->process_cpu_ns = ex_process_cpu_ns() - l->cpu_start_ns;
	sr_log_stats(l->log, &s->logger);
	for (int i = 0; i < l->started; i++) {
		const rl_thread *t = &l->t[i];
		s->all_requests += t->all_requests;
		s->requests += t->requests;
		s->calls += t->calls;
		s->nvcsw += t->nvcsw;
		s->nivcsw += t->nivcsw;
		s->cpu_ns += t->cpu_ns;
		ex_hist_merge(&s->latency, &t->latency);
		ex_hist_merge(&s->call_ns, &t->call_ns);
	}
}

int
rl_run_and_close(rl_load *l, rl_totals *totals)
{
	if (rl_start(l) != 0) {
		sr_log_close(&l->log);
		return -1;
	}
	rl_finish(l, totals);
	sr_log_close(&l->log);
	rl_free(l);
	return 0;
}

void
rl_free(rl_load *l)
{
	if (l->t == NULL)
		return;
	for (int i = 0; i < l->threads; i++)
		free(l->t[i].done);
	free(l->t);
	l->t = NULL;
}

/* ---------------------------------------------------------------------------------------- */
/* Completions over time                                                                    */

int64_t *
rl_buckets(const rl_load *l)
{
	int64_t *b = calloc((size_t)l->nbuckets, sizeof *b);
	if (b == NULL)
		return NULL;
	for (int i = 0; i < l->started; i++)
		for (int64_t k = 0; k < l->nbuckets; k++)
			b[k] += l->t[i].done[k];
	return b;
}

/*
 * A ring whose reader is slow fills, then frees a batch of slots at a time:
 * requests complete in a burst, then none for a while.  A window that
 * catches one burst more or less is off by a whole burst, so when there are
 * gaps of at least two empty buckets, the rate is taken from the first
 * burst's start to the last one's.
 */
double
rl_rate(const rl_load *l, const int64_t *b, uint64_t window_requests, int *cycles)
{
	*cycles = 0;
	double window_s = (double)(l->end_ns - l->begin_ns) / 1e9;
	double plain = window_s > 0 ? (double)window_requests / window_s : 0;
	if (b == NULL)
		return plain;
	int64_t lo = (l->begin_ns - l->t0_ns) / l->bucket_ns + 2;
	int64_t hi = (l->end_ns - l->t0_ns) / l->bucket_ns;
	if (hi > l->nbuckets)
		hi = l->nbuckets;
	int64_t first = -1, last = -1;
	int n = 0;
	for (int64_t k = lo; k < hi; k++) {
		if (b[k] > 0 && b[k - 1] == 0 && b[k - 2] == 0) {
			if (first < 0)
				first = k;
			last = k;
			n++;
		}
	}
	if (n < 3) /* fewer than two whole cycles: the window is the better estimate */
		return plain;
	int64_t sum = 0;
	for (int64_t k = first; k < last; k++)
		sum += b[k];
	*cycles = n - 1;
	return (double)sum / ((double)(last - first) * (double)l->bucket_ns / 1e9);
}

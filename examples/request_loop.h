/*
 * request_loop.h: the load shared by the logger examples (reader_speed_limit,
 * stalled_reader, log_level_cost, one_lock), so that all four measure the
 * same thing: N threads, each running a request loop of a little arithmetic
 * (standing in for a cheap endpoint) followed by a few log lines.
 *
 * Also here: a reader in a child process that drains a pipe at a fixed rate
 * and can be paused (the "slow console" of the seed article), a latency
 * histogram, and flag parsing.  Everything is static so that each example
 * still builds as one program (CMake builds each examples/NAME.c into one binary).
 */
#ifndef SEQRING_EXAMPLES_REQUEST_LOOP_H
#define SEQRING_EXAMPLES_REQUEST_LOOP_H

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sr_log.h"

/* ---------------------------------------------------------------------------------------- */
/* Time                                                                                     */

static inline int64_t
rl_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static inline void
rl_sleep_until(int64_t t_ns)
{
	struct timespec ts = { (time_t)(t_ns / 1000000000), (long)(t_ns % 1000000000) };
	/* A signal may cut the sleep short; the deadline is absolute, so just sleep again. */
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/* ---------------------------------------------------------------------------------------- */
/* Latency histogram: 16 buckets per power of two (values within ~6%), exact max and sum    */

#define RL_HIST_SUB 16
#define RL_HIST_BUCKETS (61 * RL_HIST_SUB)

typedef struct rl_hist {
	uint64_t n;
	int64_t max;
	int64_t sum;
	uint64_t count[RL_HIST_BUCKETS];
} rl_hist;

static inline int
rl_hist_index(int64_t v)
{
	if (v < RL_HIST_SUB)
		return v < 0 ? 0 : (int)v;
	int msb = 63 - __builtin_clzll((unsigned long long)v);
	int shift = msb - 4; /* keep the top 5 bits: the leading one and 4 below it */
	return (shift + 1) * RL_HIST_SUB + (int)((v >> shift) & (RL_HIST_SUB - 1));
}

/* The middle of bucket i. */
static inline double
rl_hist_value(int i)
{
	if (i < RL_HIST_SUB)
		return i;
	int shift = i / RL_HIST_SUB - 1;
	double lo = (double)((int64_t)(RL_HIST_SUB + i % RL_HIST_SUB) << shift);
	return lo + (double)((int64_t)1 << shift) / 2;
}

static inline void
rl_hist_add(rl_hist *h, int64_t v)
{
	h->count[rl_hist_index(v)]++;
	h->n++;
	h->sum += v;
	if (v > h->max)
		h->max = v;
}

static inline void
rl_hist_merge(rl_hist *into, const rl_hist *from)
{
	for (int i = 0; i < RL_HIST_BUCKETS; i++)
		into->count[i] += from->count[i];
	into->n += from->n;
	into->sum += from->sum;
	if (from->max > into->max)
		into->max = from->max;
}

/* The p-th quantile (0 < p <= 1), or 0 for an empty histogram.  Never above the max. */
static inline double
rl_hist_quantile(const rl_hist *h, double p)
{
	if (h->n == 0)
		return 0;
	uint64_t rank = (uint64_t)(p * (double)h->n + 0.999999);
	if (rank < 1)
		rank = 1;
	uint64_t seen = 0;
	for (int i = 0; i < RL_HIST_BUCKETS; i++) {
		seen += h->count[i];
		if (seen >= rank) {
			double v = rl_hist_value(i);
			return v > (double)h->max ? (double)h->max : v;
		}
	}
	return (double)h->max;
}

static inline double
rl_hist_mean(const rl_hist *h)
{
	return h->n ? (double)h->sum / (double)h->n : 0;
}

/* ---------------------------------------------------------------------------------------- */
/* The request loop                                                                         */

/* Which log lines a request writes. */
typedef enum rl_lines {
	/*
	 * The seed article's five messages for one request (four HttpClient
	 * lines and the endpoint's own), ~550 bytes: with the message layout the
	 * text reproduces the .NET console formatter's two-line output.
	 */
	RL_LINES_HTTPCLIENT = 0,
	/* ASP.NET Core's two hosting lines per request ("Request starting/finished"). */
	RL_LINES_HOSTING = 1
} rl_lines;

#define RL_MAX_CATS 3

typedef struct rl_thread rl_thread;

typedef struct rl_load {
	/* Set before rl_start. */
	sr_log *log;
	rl_lines lines;
	int threads;
	int64_t work_iters;      /* arithmetic per request (rl_calibrate_work) */
	int64_t t0_ns;           /* the run's start (buckets count from here) */
	int64_t begin_ns;        /* measurement window: requests that end in [begin, end] */
	int64_t end_ns;          /* workers start no request after end */
	bool time_calls;         /* time every log call (one_lock) */
	int64_t bucket_ns;       /* > 0: count completions per bucket since t0 (stalled_reader) */
	int64_t nbuckets;
	/* Set by rl_start. */
	sr_category *cat[RL_MAX_CATS];
	rl_thread *t;
	sr_atomic_i32 stop;      /* stop now (a failed start, or a run timed by the caller) */
	int started;
} rl_load;

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
	rl_hist latency;         /* request latency inside the window */
	rl_hist call_ns;         /* log call duration inside the window (time_calls) */
} __attribute__((aligned(64)));

/*
 * A dependent chain of multiply-adds: the work cannot be vectorised or
 * skipped, and takes the same time on every request.
 */
static inline uint64_t
rl_work(uint64_t x, int64_t iters)
{
	for (int64_t i = 0; i < iters; i++) {
		x = x * UINT64_C(6364136223846793005) + UINT64_C(1442695040888963407);
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

/* Where calibration leaves its result, so that the compiler keeps the work. */
static volatile uint64_t rl_work_sink;

/* Iterations of rl_work that take about target_ns on this machine (best of five). */
static inline int64_t
rl_calibrate_work(int64_t target_ns)
{
	const int64_t iters = 200000;
	int64_t best = INT64_MAX;
	uint64_t x = 1;
	for (int k = 0; k < 5; k++) {
		int64_t a = rl_now_ns();
		x = rl_work(x, iters);
		int64_t d = rl_now_ns() - a;
		if (d < best)
			best = d;
	}
	rl_work_sink = x;
	int64_t n = best > 0 ? iters * target_ns / best : iters;
	return n > 0 ? n : 1;
}

/* Times one log call into the thread's histogram when asked to. */
#define RL_CALL(t, measured, stmt) do { \
	if ((t)->load->time_calls) { \
		int64_t rl__a = rl_now_ns(); \
		stmt; \
		if (measured) \
			rl_hist_add(&(t)->call_ns, rl_now_ns() - rl__a); \
	} else { \
		stmt; \
	} \
	(t)->calls++; \
} while (0)

static inline void
rl_log_request(rl_thread *t, int64_t req, int64_t start, bool measured)
{
	const rl_load *l = t->load;
	int item = (int)(req % 10);
	double ms = (double)(rl_now_ns() - start) / 1e6;
	if (l->lines == RL_LINES_HTTPCLIENT) {
		/* The text of the article's lines, with this request's figures. */
		RL_CALL(t, measured, SR_INFO(l->cat[0],
		    "info: System.Net.Http.HttpClient.inventory.LogicalHandler[100]\n"
		    "      Start processing HTTP request GET http://127.0.0.1:5871/inventory/%d", item));
		RL_CALL(t, measured, SR_INFO(l->cat[1],
		    "info: System.Net.Http.HttpClient.inventory.ClientHandler[100]\n"
		    "      Sending HTTP request GET http://127.0.0.1:5871/inventory/%d", item));
		RL_CALL(t, measured, SR_INFO(l->cat[1],
		    "info: System.Net.Http.HttpClient.inventory.ClientHandler[101]\n"
		    "      Received HTTP response headers after %.4fms - %d", ms, 200));
		RL_CALL(t, measured, SR_INFO(l->cat[0],
		    "info: System.Net.Http.HttpClient.inventory.LogicalHandler[101]\n"
		    "      End processing HTTP request after %.4fms - %d", ms, 200));
		RL_CALL(t, measured, SR_INFO(l->cat[2],
		    "info: QuoteEndpoint[0]\n      Quote %d priced at %d", item, 10 + item));
	} else {
		RL_CALL(t, measured, SR_INFO(l->cat[0],
		    "Request starting HTTP/1.1 GET http://127.0.0.1:%d/up - - -", 5201));
		RL_CALL(t, measured, SR_INFO(l->cat[0],
		    "Request finished HTTP/1.1 GET http://127.0.0.1:%d/up - %d 2 text/plain;+charset=utf-8 "
		    "%.4fms", 5201, 200, ms));
	}
}

/* User plus system time. */
static inline int64_t
rl_rusage_cpu_ns(const struct rusage *r)
{
	return ((int64_t)r->ru_utime.tv_sec + (int64_t)r->ru_stime.tv_sec) * 1000000000 +
	    ((int64_t)r->ru_utime.tv_usec + (int64_t)r->ru_stime.tv_usec) * 1000;
}

/* CPU time of the whole process so far. */
static inline int64_t
rl_process_cpu_ns(void)
{
	struct rusage r;
	getrusage(RUSAGE_SELF, &r);
	return rl_rusage_cpu_ns(&r);
}

static void *
rl_worker(void *p)
{
	rl_thread *t = p;
	rl_load *l = t->load;
	struct rusage r0, r1;
	getrusage(RUSAGE_THREAD, &r0);
	uint64_t x = (uint64_t)t->index + 1;
	for (int64_t req = 0;; req++) {
		int64_t start = rl_now_ns();
		/* Relaxed: only an early stop; the window's end is a plain time. */
		if (start >= l->end_ns || sr_atomic_load_relaxed_i32(&l->stop))
			break;
		/* Log calls are timed from the window's start ... */
		bool measured = start >= l->begin_ns;
		x = rl_work(x, l->work_iters);
		rl_log_request(t, req, start, measured);
		int64_t end = rl_now_ns();
		t->all_requests++;
		/*
		 * ... requests by when they end: a request that waited since before
		 * the window counts (its whole wait), or the longest waits would
		 * slip out of the figures.
		 */
		if (end >= l->begin_ns && end <= l->end_ns) {
			t->requests++;
			rl_hist_add(&t->latency, end - start);
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
	t->cpu_ns = rl_rusage_cpu_ns(&r1) - rl_rusage_cpu_ns(&r0);
	t->work_result = x;
	return NULL;
}

/* Looks up the categories the lines use (the article's category names). */
static inline int
rl_categories(rl_load *l, sr_error *err)
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

/* Starts the workers.  -1 with a message on stderr (and nothing left running) on failure. */
static inline int
rl_start(rl_load *l)
{
	sr_error err = { 0 };
	if (rl_categories(l, &err) != 0) {
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
	for (int i = 0; i < l->threads; i++) {
		rl_thread *t = &l->t[i];
		t->load = l;
		t->index = i;
		if (l->bucket_ns > 0 && (t->done = calloc((size_t)l->nbuckets, sizeof *t->done)) == NULL) {
			fprintf(stderr, "out of memory for %" PRId64 " buckets\n", l->nbuckets);
			break;
		}
		int e = pthread_create(&t->id, NULL, rl_worker, t);
		if (e != 0) {
			fprintf(stderr, "pthread_create failed: %s\n", strerror(e));
			break;
		}
		l->started++;
	}
	if (l->started == l->threads)
		return 0;
	sr_atomic_store_relaxed_i32(&l->stop, 1);
	for (int i = 0; i < l->started; i++)
		pthread_join(l->t[i].id, NULL);
	for (int i = 0; i < l->threads; i++)
		free(l->t[i].done);
	free(l->t);
	l->t = NULL;
	return -1;
}

static inline void
rl_join(rl_load *l)
{
	for (int i = 0; i < l->started; i++)
		pthread_join(l->t[i].id, NULL);
}

/* What the workers did, summed. */
typedef struct rl_totals {
	uint64_t all_requests, requests, calls;
	long nvcsw, nivcsw;
	int64_t cpu_ns;
	rl_hist latency, call_ns;
} rl_totals;

static inline void
rl_sum(const rl_load *l, rl_totals *s)
{
	memset(s, 0, sizeof *s);
	for (int i = 0; i < l->started; i++) {
		const rl_thread *t = &l->t[i];
		s->all_requests += t->all_requests;
		s->requests += t->requests;
		s->calls += t->calls;
		s->nvcsw += t->nvcsw;
		s->nivcsw += t->nivcsw;
		s->cpu_ns += t->cpu_ns;
		rl_hist_merge(&s->latency, &t->latency);
		rl_hist_merge(&s->call_ns, &t->call_ns);
	}
}

static inline void
rl_free(rl_load *l)
{
	if (l->t == NULL)
		return;
	for (int i = 0; i < l->threads; i++)
		free(l->t[i].done);
	free(l->t);
	l->t = NULL;
}

/* Completions per bucket, summed over the threads (bucket_ns > 0); NULL when out of memory. */
static inline int64_t *
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
 * Requests/s over the window, counted over whole cycles when completions come
 * in bursts.  A ring whose reader is slow fills, then frees a batch of slots
 * at a time: requests complete in a burst, then none for a while.  A window
 * that catches one burst more or less is off by a whole burst, so when there
 * are gaps of at least two empty buckets, the rate is taken from the first
 * burst's start to the last one's (*cycles gets how many whole cycles).
 * Otherwise (*cycles = 0) it is the window's count over its length.
 */
static inline double
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

/* ---------------------------------------------------------------------------------------- */
/* A reader at a fixed rate, in a child process                                             */

typedef struct rl_reader {
	pid_t pid;
	int fd; /* the pipe's write end: the logger's sink */
} rl_reader;

static volatile sig_atomic_t rl_reader_unlimited;

static void
rl_reader_on_usr1(int sig)
{
	(void)sig;
	rl_reader_unlimited = 1;
}

/*
 * The child: reads and discards, never faster than rate bytes/s (a token
 * bucket holding at most 20 ms of reading, so that after a pause it does not
 * catch up in a burst), or as fast as it can when rate is 0 or after SIGUSR1.
 * Exits at end of file: when the logger closed its end.
 */
__attribute__((noreturn)) static void
rl_reader_main(int fd, double rate, const sigset_t *mask)
{
	/* Sleeps of a few ms must be a few ms, not a few ms plus the 50 us slack. */
	prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = rl_reader_on_usr1; /* no SA_RESTART: SIGUSR1 cuts a throttling sleep short */
	sigaction(SIGUSR1, &sa, NULL);
	pthread_sigmask(SIG_SETMASK, mask, NULL);

	static char buf[65536];
	double burst = rate / 50 > 4096 ? rate / 50 : 4096;
	double chunk = burst < 4096 ? burst : 4096; /* read at least this much at a time */
	double tokens = burst;
	int64_t last = rl_now_ns();
	for (;;) {
		size_t want = sizeof buf;
		if (rate > 0 && !rl_reader_unlimited) {
			int64_t now = rl_now_ns();
			tokens += (double)(now - last) * rate / 1e9;
			if (tokens > burst)
				tokens = burst;
			last = now;
			if (tokens < chunk) {
				int64_t ns = (int64_t)((chunk - tokens) / rate * 1e9) + 1;
				struct timespec ts = { (time_t)(ns / 1000000000), (long)(ns % 1000000000) };
				nanosleep(&ts, NULL);
				continue;
			}
			want = tokens < (double)sizeof buf ? (size_t)tokens : sizeof buf;
		}
		ssize_t n = read(fd, buf, want);
		if (n > 0) {
			tokens -= (double)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		_exit(n == 0 ? 0 : 1);
	}
}

/* Forks the reader (rate in bytes/s, 0: unlimited).  -1 with a message on failure. */
static inline int
rl_reader_start(rl_reader *r, double rate)
{
	int fds[2];
	if (pipe(fds) != 0) {
		fprintf(stderr, "pipe failed: %s\n", strerror(errno));
		return -1;
	}
	/* Blocked until the child has its handler: an early SIGUSR1 must not kill it. */
	sigset_t usr1, old;
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &usr1, &old);
	/* The child inherits stdio buffers: empty them so nothing is printed twice. */
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid == 0) {
		close(fds[1]);
		rl_reader_main(fds[0], rate, &old);
	}
	int e = errno;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	close(fds[0]);
	if (pid < 0) {
		close(fds[1]);
		fprintf(stderr, "fork failed: %s\n", strerror(e));
		return -1;
	}
	r->pid = pid;
	r->fd = fds[1];
	return 0;
}

/* SIGSTOP: the reader stops reading at once, as a stuck terminal or log shipper would. */
static inline void
rl_reader_pause(const rl_reader *r)
{
	kill(r->pid, SIGSTOP);
}

static inline void
rl_reader_resume(const rl_reader *r)
{
	kill(r->pid, SIGCONT);
}

/* Lets the reader drain at full speed, so that the end of a run does not wait on the limit. */
static inline void
rl_reader_unthrottle(const rl_reader *r)
{
	kill(r->pid, SIGUSR1);
}

/* Waits for the reader to exit (the pipe's write end must be closed).  0 if it exited cleanly. */
static inline int
rl_reader_wait(rl_reader *r)
{
	int status;
	pid_t w;
	while ((w = waitpid(r->pid, &status, 0)) < 0 && errno == EINTR)
		;
	r->pid = -1;
	if (w < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "the pipe reader did not exit cleanly\n");
		return -1;
	}
	return 0;
}

/* ---------------------------------------------------------------------------------------- */
/* Flags                                                                                    */

static inline bool
rl_parse_double(const char *s, double min, double max, double *out)
{
	if (s == NULL)
		return false;
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno != 0 || end == s || *end != '\0' || !(v >= min && v <= max))
		return false;
	*out = v;
	return true;
}

static inline bool
rl_parse_int(const char *s, long min, long max, int *out)
{
	if (s == NULL)
		return false;
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v < min || v > max)
		return false;
	*out = (int)v;
	return true;
}

#endif /* SEQRING_EXAMPLES_REQUEST_LOOP_H */

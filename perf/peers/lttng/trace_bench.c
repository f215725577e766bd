/* SPDX-License-Identifier: Apache-2.0 */
/*
 * trace_bench.c: the trace phase's driver, compiled twice by build.sh:
 *   trace_lttng    (-DTRACE_LTTNG) tracepoint(seqring_bench, call, i, i * 0.5, s)
 *                  into the LTTng-UST session the caller set up (tp.h)
 *   trace_seqring  SR_INFO(c, "x=%d y=%f s=%s", i, i * 0.5, s) into a logger
 *                  whose sinks SEQRING_LOG_SINK names (ctf:DIR, or file:PATH)
 * s is a 16-character const array the compiler sees, as in perf/caller.
 * Everything else is the same code for both, so that only the call differs.
 *
 * Modes (one per invocation; each prints CSV rows on stdout):
 *   --caller [--calls N] [--burst N] [--runs N]
 *       perf/caller's method (perf/logger/caller.c): each call timed alone
 *       between two lfence;rdtsc;lfence reads, N calls per run in bursts with
 *       an untimed drain between bursts (seqring: sr_log_flush; LTTng has no
 *       call that waits for its consumer daemon: nothing, see README.md), an
 *       `empty` row (the timer alone) interleaved with the tracer's, one
 *       warm-up round, then --runs rounds: the median of the rounds' p50, p99,
 *       p99.9 and mean.  Row: caller,TRACER,runs,calls,p50_ns,p99_ns,p999_ns,
 *       mean_ns,timer_p50_ns
 *   --count N | --count-loop N
 *       N calls in counted_calls_TRACER (or the empty loop counted_calls_loop),
 *       in bursts of --burst drained outside the counted function, for
 *       valgrind --tool=callgrind --toggle-collect='counted_calls_*'.
 *   --drain --threads T --events M [--session NAME]
 *       T threads, released together at a gate, each make M calls as fast as
 *       the tracer takes them; the clock runs from the first thread's first
 *       call until everything is in the trace's files: seqring's
 *       sr_log_flush returns, or (LTTng) session NAME is stopped and its
 *       consumer daemon has no data pending (stop_session: `lttng stop`
 *       through liblttng-ctl, asking every millisecond).  The call phase too:
 *       first call to the last thread's last return.  Before the gate, untimed: each thread makes one call
 *       (LTTng registers the thread with its RCU, seqring makes the thread's
 *       ring), so the trace holds T x (M + 1) events.  Row: drain,TRACER,T,M,
 *       seconds,events_per_sec,dropped (seqring's sr_log_stats; empty for
 *       LTTng, whose discarded count the harness reads from the trace),
 *       call_seconds,calls_per_sec.
 * Exit 0: measured; 1: a failure (message on stderr); 2: bad arguments.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <dlfcn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_stats.h"

#ifdef TRACE_LTTNG
#include "tp.h"
#define TRACER "lttng"
#define COUNTED_CALLS counted_calls_lttng
#else
#include <seqring/sr_log.h>
#define TRACER "seqring"
#define COUNTED_CALLS counted_calls_seqring
#endif

#define PROG "trace_" TRACER
#define MAX_RUNS 64
#define MAX_THREADS 256

static const char call_string[] = "0123456789abcdef"; /* 16 bytes, as perf/caller's */
static _Thread_local int g_value;                     /* i, incremented per call (per thread: no race in --drain) */

/* ------------------------------------------------------------ the tracer */

#ifdef TRACE_LTTNG
/*
 * One call: the tracepoint, inlined at the call site as the macro is in an
 * application (its probe, in tp.c, is reached through LTTng's probe array).
 */
static inline __attribute__((always_inline)) void
log_call(void)
{
	int i = g_value++;
	tracepoint(seqring_bench, call, i, i * 0.5, call_string);
}

/*
 * LTTng-UST has no call that waits until its consumer daemon has read the
 * buffers; the channel's sub-buffers (README.md: 8 x 1 MiB per CPU) hold
 * far more than a burst, and a full one blocks the caller (blocking timeout
 * inf) rather than losing events, which the harness checks.
 */
static void
drain(void)
{
}

static int
tracer_open(void)
{
	/* The constructor registered with the session daemon (LTTNG_UST_REGISTER_TIMEOUT): the event is on, or nothing would be traced. */
	if (!tracepoint_enabled(seqring_bench, call)) {
		fprintf(stderr, PROG ": the tracepoint seqring_bench:call is not enabled: no active LTTng session "
		    "traces it (start one before this program: see perf/peers/lttng/run.sh)\n");
		return -1;
	}
	return 0;
}

static int
tracer_close(int64_t *dropped)
{
	*dropped = -1;  /* not known here: the harness reads the trace */
	return 0;
}
#else
static sr_log *g_log;
static sr_category *g_cat;

/* One call, always inlined as the macro is at a user's call site (perf/caller's DEFINE_LOG_CALL). */
static inline __attribute__((always_inline)) void
log_call(void)
{
	int i = g_value++;
	const char *s = call_string;
	SR_INFO(g_cat, "x=%d y=%f s=%s", i, i * 0.5, s);
}

static void
drain(void)
{
	sr_log_flush(g_log);
}

/*
 * The logger's defaults (mode ring, a ring per thread, queue-full policy
 * block: nothing is dropped, a caller facing a full ring waits), the sinks
 * SEQRING_LOG_SINK says, as an application configured from outside.
 */
static int
tracer_open(void)
{
	const char *sink = getenv("SEQRING_LOG_SINK");
	if (sink == NULL || sink[0] == '\0') {
		fprintf(stderr, PROG ": SEQRING_LOG_SINK is not set: expected ctf:DIR (or file:PATH)\n");
		return -1;
	}
	sr_log_config cfg;
	sr_log_config_default(&cfg);
	cfg.level = SR_LOG_INFO;
	cfg.full_policy = SR_LOG_FULL_BLOCK;
	sr_error e;
	sr_error_clear(&e);
	g_log = sr_log_open(&cfg, &e);
	if (g_log == NULL) {
		fprintf(stderr, PROG ": cannot open the logger with SEQRING_LOG_SINK='%s': %s\n", sink, e.message);
		return -1;
	}
	g_cat = sr_log_category(g_log, "bench.trace");
	if (g_cat == NULL) {
		fprintf(stderr, PROG ": cannot make the category bench.trace\n");
		return -1;
	}
	return 0;
}

/* Flushes, reads the counters (dropped must be 0), closes. */
static int
tracer_close(int64_t *dropped)
{
	sr_log_flush(g_log);
	sr_log_counters st;
	sr_log_stats(g_log, &st);
	*dropped = (int64_t)st.dropped;
	int rc = 0;
	if (st.write_failed != 0 || st.sink_errors != 0) {
		fprintf(stderr, PROG ": the logger failed to write %" PRIu64 " messages (%" PRIu64 " sink errors)\n",
		    st.write_failed, st.sink_errors);
		rc = -1;
	}
	sr_log_close(&g_log);
	return rc;
}
#endif

/* ------------------------------------------------------------ the timer */

/* lfence; rdtsc; lfence, as sr_tsc_read_fenced (base/sr_time.h) and perf/peers/cxx/harness.h. */
static inline uint64_t
timer_read(void)
{
	uint32_t lo, hi;
	__asm__ __volatile__("lfence\n\trdtsc\n\tlfence" : "=a"(lo), "=d"(hi) : : "memory");
	return ((uint64_t)hi << 32) | lo;
}

static int64_t
mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The tightest of 5 brackets (TSC mid-point, clock inside), as sr_tsc_sample_clock. */
static void
sample_clock(int64_t *tsc, int64_t *ns)
{
	int64_t best = INT64_MAX;
	for (int i = 0; i < 5; i++) {
		int64_t before = (int64_t)timer_read();
		int64_t t = mono_ns();
		int64_t after = (int64_t)timer_read();
		if (after - before < best) {
			best = after - before;
			*tsc = before + (after - before) / 2;
			*ns = t;
		}
	}
}

/* Ticks per ns against CLOCK_MONOTONIC over 200 ms (sr_tsc_calibrate); 0 if implausible. */
static double
ticks_per_ns(void)
{
	int64_t t0, n0, t1, n1;
	sample_clock(&t0, &n0);
	for (;;) {
		int64_t left = n0 + 200000000 - mono_ns();
		if (left <= 0)
			break;
		struct timespec ts = { (time_t)(left / 1000000000), (long)(left % 1000000000) };
		nanosleep(&ts, NULL);
	}
	sample_clock(&t1, &n1);
	double rate = (double)(t1 - t0) / (double)(n1 - n0);
	return rate > 0.01 && rate < 100 ? rate : 0;
}

/* ------------------------------------------------------------ the modes */

typedef struct options {
	int64_t calls, burst, count, events;
	int runs, threads;
	enum { MODE_NONE, MODE_CALLER, MODE_COUNT, MODE_COUNT_LOOP, MODE_DRAIN } mode;
	const char *session;  /* --drain, LTTng: the session to stop */
} options;

/* n calls, nothing else: what callgrind counts per call is the call and the loop's few instructions. */
__attribute__((noinline)) void COUNTED_CALLS(int64_t n);
__attribute__((noinline)) void
COUNTED_CALLS(int64_t n)
{
	for (int64_t i = 0; i < n; i++) {
		log_call();
		__asm__ volatile("" ::: "memory");
	}
}

/* The empty loop: what counted_calls_* costs without the calls. */
__attribute__((noinline)) void counted_calls_loop(int64_t n);
__attribute__((noinline)) void
counted_calls_loop(int64_t n)
{
	for (int64_t i = 0; i < n; i++)
		__asm__ volatile("" ::: "memory");
}

/* caller.c's time_row: each call timed alone, bursts of o->burst, an untimed drain between bursts. */
static void
time_row(bool empty, const options *o, int64_t *samples)
{
	for (int64_t done = 0; done < o->calls;) {
		int64_t n = o->calls - done < o->burst ? o->calls - done : o->burst;
		for (int64_t i = 0; i < n; i++) {
			uint64_t t0 = timer_read();
			if (!empty)
				log_call();
			uint64_t t1 = timer_read();
			samples[done + i] = (int64_t)(t1 - t0);
		}
		done += n;
		if (!empty)
			drain();
	}
}

static int
run_caller(const options *o)
{
	double tpn = ticks_per_ns();
	if (tpn <= 0) {
		fprintf(stderr, PROG ": the TSC's calibration against CLOCK_MONOTONIC failed\n");
		return -1;
	}
	int64_t *samples = malloc((size_t)o->calls * sizeof *samples);
	if (samples == NULL) {
		fprintf(stderr, PROG ": cannot allocate %" PRId64 " samples\n", o->calls);
		return -1;
	}
	double p50[2][MAX_RUNS], p99[2][MAX_RUNS], p999[2][MAX_RUNS], mean[2][MAX_RUNS];
	/* Warm-up round (not recorded): first calls fault pages, wake consumers, register threads. */
	time_row(true, o, samples);
	time_row(false, o, samples);
	for (int run = 0; run < o->runs; run++) {
		for (int row = 0; row < 2; row++) {  /* 0: empty, 1: the tracer's call */
			time_row(row == 0, o, samples);
			double sum = 0;
			for (int64_t i = 0; i < o->calls; i++)
				sum += (double)samples[i];
			mean[row][run] = sum / (double)o->calls / tpn;
			bench_sort_i64(samples, (size_t)o->calls);
			p50[row][run] = (double)bench_percentile(samples, (size_t)o->calls, 50.0) / tpn;
			p99[row][run] = (double)bench_percentile(samples, (size_t)o->calls, 99.0) / tpn;
			p999[row][run] = (double)bench_percentile(samples, (size_t)o->calls, 99.9) / tpn;
		}
	}
	free(samples);
	printf("caller,%s,%d,%" PRId64 ",%.1f,%.1f,%.1f,%.1f,%.1f\n", TRACER, o->runs, o->calls,
	    bench_median(p50[1], o->runs), bench_median(p99[1], o->runs), bench_median(p999[1], o->runs),
	    bench_median(mean[1], o->runs), bench_median(p50[0], o->runs));
	return 0;
}

static int
run_count(const options *o)
{
	log_call();  /* the first call (a site's set-up, a thread's ring or registration) outside the count */
	drain();
	for (int64_t done = 0; done < o->count;) {
		int64_t n = o->count - done < o->burst ? o->count - done : o->burst;
		if (o->mode == MODE_COUNT_LOOP) {
			counted_calls_loop(n);
		} else {
			COUNTED_CALLS(n);
			drain();
		}
		done += n;
	}
	printf("count,%s,%" PRId64 "\n", o->mode == MODE_COUNT_LOOP ? "loop" : TRACER, o->count);
	return 0;
}

/* --drain: the start gate and the threads. */
typedef struct gate {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int ready, threads;
	bool open;
} gate;

typedef struct worker {
	gate *g;
	int64_t events;
	int64_t start_ns, end_ns;  /* written by the worker, read after pthread_join */
} worker;

static void *
worker_main(void *arg)
{
	worker *w = arg;
	log_call();  /* untimed: the thread's registration or ring, before the gate */
	pthread_mutex_lock(&w->g->mu);
	w->g->ready++;
	pthread_cond_broadcast(&w->g->cv);
	while (!w->g->open)
		pthread_cond_wait(&w->g->cv, &w->g->mu);
	pthread_mutex_unlock(&w->g->mu);
	w->start_ns = mono_ns();
	for (int64_t i = 0; i < w->events; i++)
		log_call();
	w->end_ns = mono_ns();
	return NULL;
}

#ifdef TRACE_LTTNG
/*
 * What `lttng stop SESSION` does, through liblttng-ctl (the library the
 * lttng command is built on; Debian ships no headers for it, hence dlopen):
 * stop tracing, then ask until the consumer daemon has no data pending,
 * i.e. every sub-buffer is in the trace's files.  The command asks every
 * 200 ms (and so does lttng_stop_tracing); asking every millisecond here
 * keeps that polling period out of the measurement.
 */
static int
stop_session(const char *name)
{
	void *lib = dlopen("liblttng-ctl.so.0", RTLD_NOW);
	if (lib == NULL) {
		fprintf(stderr, PROG ": cannot load liblttng-ctl.so.0 (lttng-tools): %s\n", dlerror());
		return -1;
	}
	int (*stop_no_wait)(const char *) = (int (*)(const char *))dlsym(lib, "lttng_stop_tracing_no_wait");
	int (*data_pending)(const char *) = (int (*)(const char *))dlsym(lib, "lttng_data_pending");
	if (stop_no_wait == NULL || data_pending == NULL) {
		fprintf(stderr, PROG ": liblttng-ctl.so.0 lacks lttng_stop_tracing_no_wait or lttng_data_pending\n");
		return -1;
	}
	int r = stop_no_wait(name);
	if (r < 0) {
		fprintf(stderr, PROG ": lttng_stop_tracing_no_wait(%s) failed (%d)\n", name, r);
		return -1;
	}
	while ((r = data_pending(name)) == 1) {
		struct timespec ms = { 0, 1000000 };
		nanosleep(&ms, NULL);
	}
	if (r < 0) {
		fprintf(stderr, PROG ": lttng_data_pending(%s) failed (%d)\n", name, r);
		return -1;
	}
	return 0;
}
#endif

static int
run_drain(const options *o, int64_t *end_ns, worker *w)
{
	gate g = { .threads = o->threads };
	pthread_mutex_init(&g.mu, NULL);
	pthread_cond_init(&g.cv, NULL);
	pthread_t tid[MAX_THREADS];
	int started = 0, rc = 0;
	for (int t = 0; t < o->threads; t++) {
		w[t] = (worker){ .g = &g, .events = o->events };
		int e = pthread_create(&tid[t], NULL, worker_main, &w[t]);
		if (e != 0) {
			fprintf(stderr, PROG ": cannot start thread %d: %s\n", t, strerror(e));
			rc = -1;
			break;
		}
		started++;
	}
	pthread_mutex_lock(&g.mu);
	while (g.ready < started)
		pthread_cond_wait(&g.cv, &g.mu);
	drain();  /* the threads' first calls are written before the clock starts */
	g.open = true;
	pthread_cond_broadcast(&g.cv);
	pthread_mutex_unlock(&g.mu);
	for (int t = 0; t < started; t++)
		pthread_join(tid[t], NULL);
	if (rc != 0)
		return rc;
#ifdef TRACE_LTTNG
	if (o->session == NULL) {
		fprintf(stderr, PROG ": --drain needs --session NAME, the session to stop\n");
		return -1;
	}
	if (stop_session(o->session) != 0)
		return -1;
#else
	sr_log_flush(g_log);
#endif
	*end_ns = mono_ns();
	return 0;
}

static void
usage(FILE *f)
{
	fprintf(f, "usage: " PROG " --caller [--calls N] [--burst N] [--runs N]\n"
	    "       " PROG " --count N | --count-loop N [--burst N]\n"
	    "       " PROG " --drain --threads T --events M [--session NAME]\n"
	    "  (the header comment of perf/peers/lttng/trace_bench.c says what each measures)\n");
}

static bool
parse_i64(const char *flag, const char *v, int64_t max, int64_t *out)
{
	char *end;
	errno = 0;
	long long x = v != NULL ? strtoll(v, &end, 10) : 0;
	if (v == NULL || errno != 0 || *end != '\0' || x < 1 || x > max) {
		fprintf(stderr, PROG ": %s: expected an integer from 1 to %" PRId64 "\n", flag, max);
		return false;
	}
	*out = x;
	return true;
}

static int
parse(int argc, char **argv, options *o)
{
	*o = (options){ .calls = 200000, .burst = 1000, .runs = 5, .threads = 1, .events = 1000000 };
	int64_t v;
	for (int a = 1; a < argc; a++) {
		const char *f = argv[a], *val = a + 1 < argc ? argv[a + 1] : NULL;
		if (!strcmp(f, "--caller"))
			o->mode = MODE_CALLER;
		else if (!strcmp(f, "--drain"))
			o->mode = MODE_DRAIN;
		else if (!strcmp(f, "--count") || !strcmp(f, "--count-loop")) {
			if (!parse_i64(f, val, INT64_C(1000000000), &o->count))
				return 2;
			o->mode = !strcmp(f, "--count") ? MODE_COUNT : MODE_COUNT_LOOP;
			a++;
		} else if (!strcmp(f, "--calls")) {
			if (!parse_i64(f, val, INT64_C(100000000), &o->calls))
				return 2;
			a++;
		} else if (!strcmp(f, "--burst")) {
			if (!parse_i64(f, val, INT64_C(100000000), &o->burst))
				return 2;
			a++;
		} else if (!strcmp(f, "--events")) {
			if (!parse_i64(f, val, INT64_C(1000000000), &o->events))
				return 2;
			a++;
		} else if (!strcmp(f, "--runs")) {
			if (!parse_i64(f, val, MAX_RUNS, &v))
				return 2;
			o->runs = (int)v;
			a++;
		} else if (!strcmp(f, "--threads")) {
			if (!parse_i64(f, val, MAX_THREADS, &v))
				return 2;
			o->threads = (int)v;
			a++;
		} else if (!strcmp(f, "--session") && val != NULL) {
			o->session = val;
			a++;
		} else if (!strcmp(f, "-h") || !strcmp(f, "--help")) {
			usage(stdout);
			return 1;
		} else {
			fprintf(stderr, PROG ": unknown argument '%s'\n", f);
			usage(stderr);
			return 2;
		}
	}
	if (o->mode == MODE_NONE) {
		usage(stderr);
		return 2;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	options o;
	int p = parse(argc, argv, &o);
	if (p != 0)
		return p == 1 ? 0 : 2;
	if (tracer_open() != 0)
		return 1;
	int rc = 0;
	static worker w[MAX_THREADS];
	int64_t end_ns = 0;
	switch (o.mode) {
	case MODE_CALLER:
		rc = run_caller(&o);
		break;
	case MODE_COUNT:
	case MODE_COUNT_LOOP:
		rc = run_count(&o);
		break;
	case MODE_DRAIN:
		rc = run_drain(&o, &end_ns, w);
		break;
	default:
		break;
	}
	int64_t dropped;
	if (tracer_close(&dropped) != 0)
		rc = -1;
	if (rc == 0 && o.mode == MODE_DRAIN) {
		int64_t first = w[0].start_ns, last = w[0].end_ns;
		for (int t = 1; t < o.threads; t++) {
			if (w[t].start_ns < first)
				first = w[t].start_ns;
			if (w[t].end_ns > last)
				last = w[t].end_ns;
		}
		double secs = (double)(end_ns - first) / 1e9, call_secs = (double)(last - first) / 1e9;
		int64_t total = o.events * o.threads;
		char d[32] = "";
		if (dropped >= 0)
			snprintf(d, sizeof d, "%" PRId64, dropped);
		printf("drain,%s,%d,%" PRId64 ",%.6f,%.0f,%s,%.6f,%.0f\n", TRACER, o.threads, o.events, secs,
		    (double)total / secs, d, call_secs, (double)total / call_secs);
	}
	fflush(stdout);
	return rc == 0 ? 0 : 1;
}

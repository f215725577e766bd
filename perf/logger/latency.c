/* SPDX-License-Identifier: Apache-2.0 */
/*
 * latency.c: perf/latency, the Log4j 2 manual's response-time test
 * ("Response Time Latency", after its ResponseTimeTest) for seqring's logger.
 *
 * T threads each log at a fixed rate R for a set time.  Call i of a thread is
 * due at start + i / R: the thread sleeps until shortly before (--spin-us,
 * 50 us), spins until the due time, makes the call and records
 *   service time  = return - actual start   (what the call cost)
 *   response time = return - due time       (what a caller waiting for its
 *                                            turn experienced)
 * A stall therefore counts against every call it delays, not only the one it
 * hit: the schedule does not wait for the logger, so there is no coordinated
 * omission.  A thread that fell behind makes its overdue calls back to back
 * (Log4j's pacer catches up at 3x the rate instead; either way each call is
 * charged from its own due time).
 *
 * Details, each chosen for this 2-vCPU VM:
 *   - The message is 64 characters, SR_INFO(cat, "%s", msg): Log4j's
 *     ResponseTimeTest logs a 64-character string.  One ring slot each.
 *   - The threads' schedules are spread evenly over one period (thread t's
 *     first call is due t / (T x R) after the start), as independent callers
 *     would be, rather than all due at the same instants.
 *   - Warm-up: the first --warmup-seconds of the same schedule are not
 *     recorded; the histograms' counters are touched before the start, so no
 *     page fault lands in the timed loop.
 *   - Timestamps: rdtsc (base/sr_time.h), calibrated against
 *     CLOCK_MONOTONIC over 50 ms at start, when the CPU reports an invariant
 *     TSC and the kernel lists tsc among its usable clocksources (a cheaper
 *     read than clock_gettime's); else clock_gettime(CLOCK_MONOTONIC).
 *     Some VMs (firecracker guests booted with tsc=unstable, say) offer
 *     only kvm-clock: there the TSC of two vCPUs need not agree, and a
 *     thread that moves between them would see time jump.  --clock chooses.
 *   - Sleeping: nanosleep with the thread's timer slack set to 1 ns
 *     (PR_SET_TIMERSLACK); the default 50 us slack would make every sleep
 *     overshoot past the spin window.  How far a sleep overshoots depends on
 *     the VM (a halted vCPU's wake-up costs 25 us on one of our machines,
 *     60 us and more on another), so by default (--spin-us auto) the spin
 *     window is the 99th percentile of 200 sleeps' overshoot measured at
 *     start plus 10 us, at least 50 us, at most one period.
 *   - Spinning: with more callers plus the consumer than CPUs, the spin
 *     loop yields (sched_yield) instead of pausing, as Log4j's test switches
 *     to its yielding idle strategy, so that spinning callers do not starve
 *     the consumer or each other.
 *   - The harness's own lateness is shown apart ("pacing" rows, Markdown
 *     only): how late a call started although its thread was idle and on
 *     time before it, i.e. sleep overshoot and preemption, not a logger
 *     stall.  Response times below that level say more about the machine
 *     than about the logger.
 *   - Each thread records into its own two histograms (perf/common/hdr_histogram:
 *     3 significant digits, 1 ns to an hour); they are merged after join.
 *   - Every row gets a fresh logger (the logger's defaults apart from mode
 *     and wait strategy) writing to a fresh file under --sink-dir; after the
 *     run sr_log_flush, and the written count is checked.
 *
 * Data crosses threads only under the start gate's mutex and through
 * pthread_join, both of which order memory (common/bench_threads.h): there
 * are no atomics here.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "bench_args.h"
#include "bench_output.h"
#include "bench_stats.h"
#include "bench_threads.h"
#include "hdr_histogram.h"
#include "log_bench.h"
#include <seqring/sr_atomic.h>
#include <seqring/sr_log.h>
#include <seqring/sr_time.h>
#include <seqring/sr_wait.h>

#define PROG "latency"
#define MAX_ROWS 128
#define MAX_THREADS 256
#define MAX_RATE 10000000
#define ERR_MAX 512
#define PATH_BYTES (LOG_BENCH_SINK_DIR_MAX + 160)
/* The histograms cover 1 ns to an hour at 3 significant digits. */
#define HIST_HIGHEST (INT64_C(3600) * 1000000000)
#define HIST_DIGITS 3
/* HdrHistogram's usual resolution of the percentile file. */
#define DIST_TICKS_PER_HALF 5

static const char *const kind_names[LOG_BENCH_MODE_COUNT] = { LOG_BENCH_MODE_NAMES };

typedef log_bench_variant variant;

typedef struct options {
	log_bench_flags f;      /* threads, modes, wait, message bytes, sink dir, CSV */
	int64_t rates[LOG_BENCH_MAX_LIST];
	int nrates;
	double seconds;
	double warmup_seconds;
	int64_t spin_ns;        /* -1: auto */
	int64_t overshoot_ns;   /* auto: the measured p99 sleep overshoot */
	int ncpus;
	const char *clock_name;
	const char *dist_dir;
	bool rate_given, seconds_given, warmup_given;   /* --quick leaves these alone */
} options;

typedef struct row {
	const variant *v;
	int threads;
	int64_t rate;
	bool ok;
	int64_t spin_ns;        /* the spin window used */
	bool yield_spin;
	hdr_hist service, response;
	hdr_hist pacing;        /* the harness's own lateness (Markdown only) */
} row;

/* ------------------------------------------------------------------ clock */

/*
 * Ticks: TSC cycles when use_tsc, else CLOCK_MONOTONIC nanoseconds.  Set
 * once before any worker starts (and read by workers after the start gate's
 * mutex, which orders them).
 */
static bool use_tsc;
static double ns_per_tick = 1.0;

static inline int64_t
now_ticks(void)
{
	/* sr_tsc_read is not serialising: a few ns of skew, far below the 3-digit precision at microseconds. */
	return use_tsc ? sr_tsc_read() : sr_monotonic_ns();
}

static inline int64_t
ticks_to_ns(int64_t ticks)
{
	return use_tsc ? (int64_t)((double)ticks * ns_per_tick + 0.5) : ticks;
}

/* The TSC's calibration window against CLOCK_MONOTONIC (sr_tsc_calibrate). */
#define CALIBRATION_NS (INT64_C(50) * 1000 * 1000)

/* ------------------------------------------------------------------ parsing */

static void
usage(FILE *f)
{
	fprintf(f,
	    "usage: latency [options]\n"
	    "  Log4j 2's response-time test for the logger: T threads each log R messages/s on a\n"
	    "  fixed schedule; service and response time percentiles (no coordinated omission).\n"
	    "  --threads LIST        thread counts (default 2,4)\n"
	    "  --rate LIST           messages per second per thread (default 8000); every thread\n"
	    "                        count runs with every rate\n"
	    "  --modes LIST          ring,queue,sync or all (default all)\n"
	    "  --wait LIST           the ring's wait strategies, comma-separated specs as\n"
	    "                        sr_wait_config_parse takes them, 'default' (the logger's:\n"
	    "                        %s)\n"
	    "                        or 'all'; default: default\n"
	    "  --seconds S           measured time per row (default 10)\n"
	    "  --warmup-seconds S    unrecorded time on the same schedule before it (default 3; 0: none)\n"
	    "  --message-bytes N     characters of the logged string (default 64, as Log4j's test)\n"
	    "  --spin-us N|auto      spin (instead of sleeping) for the last N us before a call\n"
	    "                        is due; auto (default): the p99 overshoot of 200 sleeps\n"
	    "                        measured at start + 10 us, at least 50, at most one period\n"
	    "  --clock NAME          auto (default: tsc when invariant), tsc or monotonic\n"
	    "  --sink-dir DIR        where the log files go (default /tmp)\n"
	    "  --out FILE            CSV, rows appended (default perf/results/latency.csv)\n"
	    "  --dist-dir DIR        percentile distribution files, one per row and kind\n"
	    "                        (default perf/results/)\n"
	    "  --truncate            start the CSV afresh (header included)\n"
	    "  --quick               1 thread at 1,000/s, 0.25 s measured after 0.05 s (for CTest)\n"
	    "  --quiet               no progress on stderr\n",
	    SR_LOG_DEFAULT_WAIT);
}

/* ------------------------------------------------------------------ one row */

typedef struct worker {
	int index;
	int nthreads;
	int64_t calls;         /* warm-up and measured */
	int64_t warm_calls;    /* the first warm_calls are not recorded */
	double period_ticks;
	int64_t spin_ticks;
	bool yield_spin;       /* more runnable threads than CPUs: yield while spinning */
	sr_category *cat;
	const char *msg;
	bench_start_gate *start;   /* publishes the schedule's origin, in ticks */
	/* Written by the worker, read by main after pthread_join (which orders them). */
	hdr_hist service, response, pacing;
	int64_t late_max_ns;   /* the latest actual start after a due time (harness + logger) */
} worker;

static void *
worker_main(void *arg)
{
	worker *w = arg;
	/* Sleep to within ~25 us instead of ~88 us (the default slack is 50 us). */
	prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
	int64_t origin;
	if (!log_bench_worker_start("lat", w->index, w->start, &origin))
		return NULL;

	/* Spread the threads' schedules evenly over one period. */
	double first = (double)origin + w->period_ticks * (double)w->index / (double)w->nthreads;
	for (int64_t i = 0; i < w->calls; i++) {
		int64_t due = (int64_t)(first + (double)i * w->period_ticks);
		int64_t now = now_ticks();
		/* On time: any lateness of this call is the harness's (sleep overshoot, preemption). */
		bool on_time = now < due;
		while (now < due) {
			int64_t left = due - now;
			if (left > w->spin_ticks)
				sr_sleep_ns(ticks_to_ns(left - w->spin_ticks));
			else if (w->yield_spin)
				sched_yield();
			else
				sr_atomic_pause();
			now = now_ticks();
		}
		int64_t t0 = now;
		SR_INFO(w->cat, "%s", w->msg);
		int64_t t1 = now_ticks();
		if (i >= w->warm_calls) {
			hdr_hist_record(&w->service, ticks_to_ns(t1 - t0));
			hdr_hist_record(&w->response, ticks_to_ns(t1 - due));
			int64_t late = ticks_to_ns(t0 - due);
			if (on_time)
				hdr_hist_record(&w->pacing, late);
			if (late > w->late_max_ns)
				w->late_max_ns = late;
		}
	}
	return NULL;
}

/*
 * The 99th percentile of how far 200 nanosleeps of 100 us overshoot, with
 * the timer slack at 1 ns as the workers have it (about 30 ms).
 */
static int64_t
measure_sleep_overshoot(void)
{
	enum { N = 200, REQUEST_NS = 100000 };
	int64_t v[N];
	int old = prctl(PR_GET_TIMERSLACK, 0UL, 0UL, 0UL, 0UL);
	prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
	for (int i = 0; i < N; i++) {
		int64_t t0 = sr_monotonic_ns();
		sr_sleep_ns(REQUEST_NS);
		v[i] = sr_monotonic_ns() - t0 - REQUEST_NS;
	}
	if (old > 0)
		prctl(PR_SET_TIMERSLACK, (unsigned long)old, 0UL, 0UL, 0UL);
	bench_sort_i64(v, N);
	return bench_percentile(v, N, 99);
}

/* The schedule starts 2 ms after the gate opens, so that every thread is awake and waiting when the first call is due. */
static int64_t
schedule_origin(void)
{
	return now_ticks() + (int64_t)(2e6 / ns_per_tick);
}

static bool
run_row(const options *o, row *r, const char *msg, int64_t *late_max_ns, char *err)
{
	const variant *v = r->v;
	char path[PATH_BYTES];
	snprintf(path, sizeof path, "%s/seqring-latency-%ld.log", o->f.sink_dir, (long)getpid());
	unlink(path);
	sr_sink_config sink = sr_sink_file(path);
	sr_log_config c;
	log_bench_config(&c, v, o->f.message_bytes, &sink);
	sr_log *log = log_bench_open(&c, v, kind_names, err, ERR_MAX);
	if (log == NULL)
		return false;
	sr_category *cat = sr_log_category(log, "bench.latency");

	int threads = r->threads;
	int64_t warm = (int64_t)(o->warmup_seconds * (double)r->rate);
	int64_t measured = (int64_t)(o->seconds * (double)r->rate);
	if (measured < 1)
		measured = 1;
	double ticks_per_sec = 1e9 / ns_per_tick;
	bool ok = false;
	bench_start_gate start;
	sr_error e;
	worker *w = calloc((size_t)threads, sizeof *w);
	if (w == NULL) {
		snprintf(err, ERR_MAX, "out of memory for %d threads", threads);
		goto out;
	}
	for (int t = 0; t < threads; t++) {
		sr_error he;
		if (hdr_hist_init(&w[t].service, HIST_HIGHEST, HIST_DIGITS, &he) != SR_OK ||
		    hdr_hist_init(&w[t].response, HIST_HIGHEST, HIST_DIGITS, &he) != SR_OK ||
		    hdr_hist_init(&w[t].pacing, HIST_HIGHEST, HIST_DIGITS, &he) != SR_OK) {
			snprintf(err, ERR_MAX, "%s", he.message);
			goto out;
		}
		/* Touch every counter page now: a page fault in the timed loop would delay the next call. */
		hdr_hist_reset(&w[t].service);
		hdr_hist_reset(&w[t].response);
		hdr_hist_reset(&w[t].pacing);
	}
	for (int t = 0; t < threads; t++) {
		w[t].index = t;
		w[t].nthreads = threads;
		w[t].calls = warm + measured;
		w[t].warm_calls = warm;
		w[t].period_ticks = ticks_per_sec / (double)r->rate;
		w[t].spin_ticks = (int64_t)((double)r->spin_ns / ns_per_tick);
		w[t].yield_spin = r->yield_spin;
		w[t].cat = cat;
		w[t].msg = msg;
		w[t].start = &start;
	}
	if (!bench_run_threads(&start, threads, worker_main, w, sizeof *w, schedule_origin, err, ERR_MAX))
		goto out;
	if (!log_bench_flush(log, v, kind_names, "the run", err, ERR_MAX))
		goto out;
	sr_log_counters st;
	sr_log_stats(log, &st);
	int64_t calls = (warm + measured) * threads;
	if ((int64_t)st.written != calls || st.dropped != 0 || st.sink_errors != 0 || bench_file_size(path) <= 0) {
		snprintf(err, ERR_MAX, "%s/%s %dx%" PRId64 ": check failed: %" PRId64 " calls, %" PRIu64
		    " written, %" PRIu64 " dropped, %" PRIu64 " sink errors", kind_names[v->kind], v->label,
		    threads, r->rate, calls, st.written, st.dropped, st.sink_errors);
		goto out;
	}
	*late_max_ns = 0;
	for (int t = 0; t < threads; t++) {
		if (hdr_hist_merge(&r->service, &w[t].service, &e) != SR_OK ||
		    hdr_hist_merge(&r->response, &w[t].response, &e) != SR_OK ||
		    hdr_hist_merge(&r->pacing, &w[t].pacing, &e) != SR_OK) {
			snprintf(err, ERR_MAX, "%s", e.message);
			goto out;
		}
		if (w[t].late_max_ns > *late_max_ns)
			*late_max_ns = w[t].late_max_ns;
	}
	ok = true;
out:
	if (w != NULL) {
		for (int t = 0; t < threads; t++) {
			hdr_hist_destroy(&w[t].service);
			hdr_hist_destroy(&w[t].response);
			hdr_hist_destroy(&w[t].pacing);
		}
		free(w);
	}
	sr_log_close(&log);
	unlink(path);
	return ok;
}

/* ------------------------------------------------------------------ output */

static const double pcts[] = { 50, 90, 99, 99.9, 99.99 };
#define NPCTS 5

/* Microseconds with about three significant digits. */
static const char *
fmt_us(int64_t ns, char *buf, size_t size)
{
	double us = (double)ns / 1000.0;
	if (us < 10)
		snprintf(buf, size, "%.2f", us);
	else if (us < 100)
		snprintf(buf, size, "%.1f", us);
	else
		snprintf(buf, size, "%.0f", us);
	return buf;
}

static const char *
row_wait(const row *r)
{
	return r->v->label;
}

/* latency_<mode>[_<wait>]_<T>x<R>_<kind>.dat, with anything but [A-Za-z0-9.-] made '_'. */
static void
dist_path(const options *o, const row *r, const char *kind, char *buf, size_t size)
{
	char wait[80] = "";
	if (r->v->kind == LOG_BENCH_RING) {
		snprintf(wait, sizeof wait, "_%s", r->v->label);
		for (char *c = wait + 1; *c != '\0'; c++)
			if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
			    *c == '.' || *c == '-'))
				*c = '_';
	}
	size_t dl = strlen(o->dist_dir);
	snprintf(buf, size, "%s%slatency_%s%s_%dx%" PRId64 "_%s.dat", o->dist_dir,
	    dl > 0 && o->dist_dir[dl - 1] != '/' ? "/" : "", kind_names[r->v->kind], wait, r->threads,
	    r->rate, kind);
}

/* --rate: a bench_flag parser into the options' rates. */
static bool
parse_rates(void *dest, char **values, char *err, size_t errsize)
{
	options *o = dest;
	return bench_parse_count_list("--rate", "rate", values[0], MAX_RATE, o->rates, LOG_BENCH_MAX_LIST,
	    &o->nrates, err, errsize);
}

/* --spin-us: a bench_flag parser into the spin window in ns (-1: auto). */
static bool
parse_spin(void *dest, char **values, char *err, size_t errsize)
{
	int64_t us;
	if (strcmp(values[0], "auto") == 0) {
		*(int64_t *)dest = -1;
		return true;
	}
	if (!bench_parse_count_or_zero(values[0], &us) || us > 1000000) {
		snprintf(err, errsize, "--spin-us '%.64s' is invalid: expected auto or 0 to 1000000", values[0]);
		return false;
	}
	*(int64_t *)dest = us * 1000;
	return true;
}

/* --clock: a bench_flag parser (the name is checked here, used by choose_clock). */
static bool
parse_clock(void *dest, char **values, char *err, size_t errsize)
{
	const char *v = values[0];
	if (strcmp(v, "auto") != 0 && strcmp(v, "tsc") != 0 && strcmp(v, "monotonic") != 0) {
		snprintf(err, errsize, "--clock '%.64s' is invalid: expected auto, tsc or monotonic", v);
		return false;
	}
	*(const char **)dest = v;
	return true;
}

/* The options from the command line; BENCH_PARSED_BAD with err set. */
static enum bench_parsed
parse_args(int argc, char **argv, options *o, char *err)
{
	/* 2 and 4 threads at 8,000 calls/s each, 10 s after 3 s, 64 characters as Log4j's test */
	*o = (options){ .rates = { 8000 }, .nrates = 1, .seconds = 10, .warmup_seconds = 3, .spin_ns = -1,
	    .clock_name = "auto", .dist_dir = "perf/results/" };
	static const int threads[] = { 2, 4 }, quick_threads[] = { 1 };
	log_bench_flags_init(&o->f, kind_names, LOG_BENCH_MODE_COUNT, MAX_THREADS, threads, 2, quick_threads, 1,
	    64, "perf/results/latency.csv");
	const bench_flag own[] = {
		{ BENCH_FLAG("--rate", BENCH_CUSTOM, o), .parse = parse_rates, .given = &o->rate_given },
		{ BENCH_FLAG("--seconds", BENCH_SECONDS, &o->seconds), .given = &o->seconds_given },
		{ BENCH_FLAG("--warmup-seconds", BENCH_SECONDS, &o->warmup_seconds), .zero_ok = true,
		    .given = &o->warmup_given },
		{ BENCH_FLAG("--spin-us", BENCH_CUSTOM, &o->spin_ns), .parse = parse_spin },
		{ BENCH_FLAG("--clock", BENCH_CUSTOM, &o->clock_name), .parse = parse_clock },
		{ BENCH_FLAG("--dist-dir", BENCH_TEXT, &o->dist_dir) },
	};
	enum bench_parsed parsed = log_bench_parse_args(argc, argv, &o->f, own, (int)(sizeof own / sizeof own[0]),
	    usage, err, ERR_MAX);
	if (parsed != BENCH_PARSED_RUN)
		return parsed;
	if (o->f.quick) {
		if (!o->rate_given) {
			o->nrates = 1;
			o->rates[0] = 1000;
		}
		if (!o->seconds_given)
			o->seconds = 0.25;
		if (!o->warmup_given)
			o->warmup_seconds = 0.05;
	}
	if (strlen(o->dist_dir) > LOG_BENCH_SINK_DIR_MAX) {
		snprintf(err, ERR_MAX, "--dist-dir '%.40s...' is too long: at most %d bytes", o->dist_dir,
		    LOG_BENCH_SINK_DIR_MAX);
		return BENCH_PARSED_BAD;
	}
	return log_bench_check_sink_dir(o->f.sink_dir, err, ERR_MAX) ? BENCH_PARSED_RUN : BENCH_PARSED_BAD;
}

/* What the clock is: the TSC's properties, and which clock ticks. */
typedef struct clock_choice {
	bool invariant;   /* the CPU reports an invariant TSC */
	bool trusted;     /* the kernel lists tsc as a clocksource */
} clock_choice;

/* Chooses the ticks (use_tsc, ns_per_tick) for --clock; false with err. */
static bool
choose_clock(const char *clock_name, clock_choice *cc, char *err)
{
	cc->invariant = sr_tsc_invariant();
	cc->trusted = sr_tsc_clocksource() >= SR_TSC_CLOCKSOURCE_AVAILABLE;
	if (strcmp(clock_name, "tsc") == 0 && !cc->invariant) {
		snprintf(err, ERR_MAX, "--clock tsc: this CPU does not report an invariant TSC "
		    "(constant_tsc and nonstop_tsc): use --clock monotonic");
		return false;
	}
	/* Asked for by name, the TSC is used even when the kernel distrusts it (said in the output). */
	use_tsc = strcmp(clock_name, "tsc") == 0 ||
	    (strcmp(clock_name, "auto") == 0 && cc->invariant && cc->trusted);
	if (use_tsc) {
		double ticks_per_ns;
		sr_error e;
		if (sr_tsc_calibrate(CALIBRATION_NS, &ticks_per_ns, &e) != SR_OK) {
			snprintf(err, ERR_MAX, "%s: use --clock monotonic", e.message);
			return false;
		}
		ns_per_tick = 1.0 / ticks_per_ns;
	}
	return true;
}

/*
 * The rows: every thread count x rate x variant, with their spin windows and
 * histograms.  0, or the exit status with err: 2 for too many rows (the
 * flags' fault), 1 when a histogram cannot be made.
 */
static int
build_rows(const options *o, const variant *vars, int nvars, row *rows, int *nrows, char *err)
{
	*nrows = 0;
	for (int ti = 0; ti < o->f.nthreads; ti++) {
		for (int ri = 0; ri < o->nrates; ri++) {
			for (int vi = 0; vi < nvars; vi++) {
				if (*nrows == MAX_ROWS) {
					snprintf(err, ERR_MAX, "more than %d rows: fewer --threads, --rate or --wait values",
					    MAX_ROWS);
					return 2;
				}
				row *r = &rows[(*nrows)++];
				r->v = &vars[vi];
				r->threads = o->f.threads[ti];
				r->rate = o->rates[ri];
				int64_t period_ns = (int64_t)(1e9 / (double)r->rate);
				if (o->spin_ns >= 0) {
					r->spin_ns = o->spin_ns;
				} else {
					r->spin_ns = o->overshoot_ns + 10000;
					if (r->spin_ns < 50000)
						r->spin_ns = 50000;
				}
				if (r->spin_ns > period_ns)
					r->spin_ns = period_ns;
				/* The callers and the consumer (ring and queue modes) against the CPUs. */
				r->yield_spin = r->threads + (r->v->kind == LOG_BENCH_SYNC ? 0 : 1) > o->ncpus;
				sr_error he;
				if (hdr_hist_init(&r->service, HIST_HIGHEST, HIST_DIGITS, &he) != SR_OK ||
				    hdr_hist_init(&r->response, HIST_HIGHEST, HIST_DIGITS, &he) != SR_OK ||
				    hdr_hist_init(&r->pacing, HIST_HIGHEST, HIST_DIGITS, &he) != SR_OK) {
					snprintf(err, ERR_MAX, "%s", he.message);
					return 1;
				}
			}
		}
	}
	return 0;
}

/* CSV: appended, header when the file is new or empty, or with --truncate. */
static bool
write_csv(const options *o, const row *rows, int nrows, char *err)
{
	FILE *csv = bench_open_csv(o->f.out, o->f.truncate, "mode,wait,threads,rate_per_thread,kind,p50_ns,"
	    "p90_ns,p99_ns,p999_ns,p9999_ns,max_ns,samples\n", err, ERR_MAX);
	if (csv == NULL)
		return false;
	for (int i = 0; i < nrows; i++) {
		const row *r = &rows[i];
		if (!r->ok)
			continue;
		for (int k = 0; k < 2; k++) {
			const hdr_hist *h = k == 0 ? &r->service : &r->response;
			fprintf(csv, "%s,%s,%d,%" PRId64 ",%s", kind_names[r->v->kind], row_wait(r), r->threads,
			    r->rate, k == 0 ? "service" : "response");
			for (int p = 0; p < NPCTS; p++)
				fprintf(csv, ",%" PRId64, hdr_hist_percentile(h, pcts[p]));
			fprintf(csv, ",%" PRId64 ",%" PRId64 "\n", h->max, h->total);
		}
	}
	if (fclose(csv) != 0) {
		snprintf(err, ERR_MAX, "--out '%s': write failed: %s", o->f.out, strerror(errno));
		return false;
	}
	return true;
}

/* One percentile distribution file per row and kind; returns the files that failed, or -1. */
static int
write_distributions(const options *o, const row *rows, int nrows)
{
	char probe[PATH_BYTES];
	snprintf(probe, sizeof probe, "%s/x", o->dist_dir);
	if (!bench_make_parent_dirs(probe)) {
		fprintf(stderr, "%s: --dist-dir '%s': cannot create it: %s\n", PROG, o->dist_dir, strerror(errno));
		return -1;
	}
	int failures = 0;
	for (int i = 0; i < nrows; i++) {
		const row *r = &rows[i];
		if (!r->ok)
			continue;
		for (int k = 0; k < 2; k++) {
			char path[PATH_BYTES];
			dist_path(o, r, k == 0 ? "service" : "response", path, sizeof path);
			FILE *f = fopen(path, "w");
			sr_error e;
			if (f == NULL) {
				fprintf(stderr, "%s: cannot write %s: %s\n", PROG, path, strerror(errno));
				failures++;
				continue;
			}
			fprintf(f, "# %s, %s: %s/%s, %d threads x %" PRId64 " msg/s, values in ns\n", PROG,
			    k == 0 ? "service time" : "response time", kind_names[r->v->kind], row_wait(r),
			    r->threads, r->rate);
			int rc = hdr_hist_write_distribution(k == 0 ? &r->service : &r->response, f,
			    DIST_TICKS_PER_HALF, &e);
			if (fclose(f) != 0 || rc != SR_OK) {
				fprintf(stderr, "%s: writing %s failed: %s\n", PROG, path,
				    rc != SR_OK ? e.message : strerror(errno));
				failures++;
			}
		}
	}
	return failures;
}

/* Markdown on stdout: the method, the table, the target. */
/* The ring rows' producer: the logger's default unless SEQRING_LOG_PRODUCER names one. */
static const char *
producer_in_force(void)
{
	const char *env = getenv("SEQRING_LOG_PRODUCER");
	if (env != NULL && *env != '\0')
		return env;
	sr_log_config d;
	sr_log_config_default(&d);
	return d.producer == SR_LOG_PRODUCER_PER_THREAD ? "per_thread (the default)" : "shared (the default)";
}

static void
print_markdown(const options *o, const clock_choice *cc, const variant *vars, const row *rows,
    int nrows, int64_t late_worst)
{
	char b[NPCTS + 1][32];
	printf("## Logger response time, Log4j 2's method (`perf/latency`)\n\n");
	printf("- T threads each call `SR_INFO(cat, \"%%s\", msg)` with a %" PRId64 "-character string "
	    "(Log4j's ResponseTimeTest logs 64 characters) on a fixed schedule of R calls/s, spread "
	    "evenly across threads; %g s measured after %g s of unrecorded warm-up on the same "
	    "schedule. A fresh logger (defaults apart from mode and wait) and file under %s per row; "
	    "ring rows' producer: %s.\n",
	    o->f.message_bytes, o->seconds, o->warmup_seconds, o->f.sink_dir, producer_in_force());
	printf("- service = return - actual start; response = return - due time, so a stall is "
	    "charged to every call it delays (no coordinated omission). A thread sleeps until a spin "
	    "window before a call is due (timer slack 1 ns), then spins (yielding when callers plus the "
	    "consumer outnumber the %d CPUs). Spin window: ", o->ncpus);
	if (o->spin_ns >= 0)
		printf("%" PRId64 " us (--spin-us)", o->spin_ns / 1000);
	else
		printf("auto, the p99 overshoot of a 100 us sleep measured at start (%s us) + 10 us, at least "
		    "50 us, at most one period", fmt_us(o->overshoot_ns, b[0], sizeof b[0]));
	printf(".\n- pacing rows (not in the CSV): how late a call started although its thread was "
	    "idle and on time, i.e. the harness's own sleep overshoot and preemption; response times "
	    "at that level measure the machine, not the logger.\n");
	if (use_tsc)
		printf("- Clock: rdtsc, %.4f GHz calibrated against CLOCK_MONOTONIC over 50 ms%s. ",
		    1.0 / ns_per_tick, cc->trusted ? "" : " (the kernel does not list tsc as a clocksource: "
		    "vCPUs' TSCs may disagree)");
	else
		printf("- Clock: clock_gettime(CLOCK_MONOTONIC)%s. ", cc->invariant && !cc->trusted
		    ? " (the CPU reports an invariant TSC but the kernel does not list tsc as a clocksource)" : "");
	printf("Histograms: 3 significant digits, per thread, merged. Values in microseconds.\n");
	printf("- Latest start after a due time in any row (harness and logger stalls together): %s us.\n\n",
	    fmt_us(late_worst, b[0], sizeof b[0]));
	printf("| mode | wait | threads x rate | kind | p50 | p90 | p99 | p99.9 | p99.99 | max | samples |\n");
	printf("|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
	for (int i = 0; i < nrows; i++) {
		const row *r = &rows[i];
		if (!r->ok) {
			printf("| %s | %s | %d x %" PRId64 " | failed | | | | | | | |\n", kind_names[r->v->kind],
			    row_wait(r), r->threads, r->rate);
			continue;
		}
		for (int k = 0; k < 3; k++) {
			const hdr_hist *h = k == 0 ? &r->service : k == 1 ? &r->response : &r->pacing;
			printf("| %s | %s | %d x %" PRId64 " | %s |", kind_names[r->v->kind], row_wait(r), r->threads,
			    r->rate, k == 0 ? "service" : k == 1 ? "response" : "pacing");
			for (int p = 0; p < NPCTS; p++)
				printf(" %s |", fmt_us(hdr_hist_percentile(h, pcts[p]), b[p], sizeof b[p]));
			printf(" %s | %" PRId64 " |\n", fmt_us(h->max, b[NPCTS], sizeof b[NPCTS]), h->total);
		}
	}
	/* The target, for the first ring strategy (the logger's default unless --wait says otherwise). */
	for (int i = 0; i < nrows; i++) {
		const row *r = &rows[i];
		if (r->ok && r->v->kind == LOG_BENCH_RING && r->v == &vars[0] && r->threads == 2 &&
		    r->rate == 8000) {
			int64_t p = hdr_hist_percentile(&r->response, 99.99);
			printf("\nTarget: ring/%s, 2 x 8,000 msg/s, response p99.99 = %s us (goal <= 20 us): %s\n",
			    r->v->label, fmt_us(p, b[0], sizeof b[0]), p <= 20000 ? "met" : "missed");
		}
	}
	printf("\nPercentile distributions (percentile, value in ns, 1/(1-percentile)): %s\n", o->dist_dir);
}

int
main(int argc, char **argv)
{
	options o;
	char err[ERR_MAX] = "";
	static variant vars[LOG_BENCH_MAX_VARIANTS];
	int nvars;
	clock_choice cc;
	enum bench_parsed parsed = parse_args(argc, argv, &o, err);
	if (parsed == BENCH_PARSED_RUN &&
	    (!log_bench_variants(o.f.wait_list, o.f.want, LOG_BENCH_MODE_COUNT, vars, &nvars, err, ERR_MAX) ||
	    !choose_clock(o.clock_name, &cc, err)))
		parsed = BENCH_PARSED_BAD;
	if (parsed != BENCH_PARSED_RUN)
		return bench_parsed_exit(parsed, PROG, err);

	/* The spin window (auto) and the CPUs the callers compete for. */
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	o.ncpus = ncpus > 0 ? (int)ncpus : 1;
	if (o.spin_ns < 0)
		o.overshoot_ns = measure_sleep_overshoot();

	static row rows[MAX_ROWS];
	int nrows;
	int status = build_rows(&o, vars, nvars, rows, &nrows, err);
	if (status != 0) {
		fprintf(stderr, "%s: %s\n", PROG, err);
		return status;
	}
	char *msg = log_bench_message(o.f.message_bytes, 'a');
	if (msg == NULL) {
		fprintf(stderr, "%s: out of memory\n", PROG);
		return 1;
	}

	int failures = 0;
	int64_t late_worst = 0;
	int64_t t_begin = sr_monotonic_ns();
	for (int i = 0; i < nrows; i++) {
		row *r = &rows[i];
		char name[96];
		bench_progress("%s: %s %dx%" PRId64 "/s row %d/%d (%g s + %g s warm-up)", PROG,
		    log_bench_variant_name(r->v, kind_names, name, sizeof name), r->threads, r->rate, i + 1,
		    nrows, o.seconds, o.warmup_seconds);
		int64_t late = 0;
		err[0] = '\0';
		r->ok = run_row(&o, r, msg, &late, err);
		if (!r->ok) {
			fprintf(stderr, "%s: %s\n", PROG, err);
			failures++;
			continue;
		}
		if (late > late_worst)
			late_worst = late;
	}
	double elapsed = (double)(sr_monotonic_ns() - t_begin) / 1e9;

	if (!write_csv(&o, rows, nrows, err)) {
		fprintf(stderr, "%s: %s\n", PROG, err);
		return 1;
	}
	int dist_failures = write_distributions(&o, rows, nrows);
	if (dist_failures < 0)
		return 1;
	failures += dist_failures;
	print_markdown(&o, &cc, vars, rows, nrows, late_worst);
	if (failures > 0)
		printf("\n%d row%s failed (see stderr).\n", failures, failures == 1 ? "" : "s");
	fflush(stdout);
	bench_progress("%s: done in %.1f s; CSV rows appended to %s", PROG, elapsed, o.f.out);
	for (int i = 0; i < nrows; i++) {
		hdr_hist_destroy(&rows[i].service);
		hdr_hist_destroy(&rows[i].response);
		hdr_hist_destroy(&rows[i].pacing);
	}
	free(msg);
	return failures > 0 ? 1 : 0;
}

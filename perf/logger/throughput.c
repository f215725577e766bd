/* SPDX-License-Identifier: Apache-2.0 */
/*
 * throughput.c: perf/throughput, the Log4j 2 manual's per-thread throughput
 * table ("Asynchronous Logging Performance") for seqring's logger.
 *
 * Method (the manual's, with two additions that it lacks):
 *   - T threads (1, 2, 4, ... 64) each make 256 x 1024 / T calls logging a
 *     500-character message: SR_INFO(cat, "%s", msg) with one 500-byte
 *     string, so the caller copies the string and the consumer formats it.
 *   - Each mode's logger is opened once on a fresh file and warmed up with
 *     200,000 messages of the same size from a warm-up thread, which are
 *     written (sr_log_flush) before anything is measured.  The logger then
 *     stays open for every run (see keeps_open for the exceptions; with a
 *     ring per thread, for every run of one thread count), and each run
 *     starts by truncating its file.
 *   - The T threads start together (a start gate); the call phase lasts
 *     from the first thread's first call to the last thread's last return:
 *     calls_per_sec, what the manual reports.
 *   - Addition 1: sr_log_flush then waits until every message is in the file;
 *     drained_per_sec = messages / (call phase + drain).  A call phase alone
 *     flatters any asynchronous design: it can end with the whole run still
 *     in memory.
 *   - Addition 2: a "ceiling" row writes the same bytes (the logger's real
 *     line length, measured from the file size) with fwrite through a 64 KiB
 *     stdio buffer to a fresh file: what the disk path allows on this
 *     machine, single-threaded and without formatting.
 *   - Modes run interleaved within each repetition (ring, queue, sync,
 *     ceiling, ring, ...), so the ratios compare runs made under the same
 *     noise; 5 repetitions, median with min and max.
 *
 * Capacity.  Log4j 2's ring held 256 x 1024 events, exactly one run, so its
 * call phase never waited for the consumer.  By default the ring (and the
 * queue) here are sized to hold a whole run too (--capacity): a 500-character
 * record takes 5 slots of 128 B, so the ring gets 2^21 slots (256 MiB,
 * touched at open, about 1.3 s on this VM: hence loggers that stay open across
 * runs).  --capacity logger keeps the logger's defaults instead
 * (262,144 slots of 128 B: about 52,000 such messages in the ring, 262,144
 * in the queue).
 *
 * Ring directories.  --ring-dir DIR runs each ring row twice, the second
 * ("WAIT/dir") right after the first in every round, with config.ring_dir
 * set: its rings are files, mapped shared, in a directory made fresh under
 * DIR for each of its loggers and removed when the logger is closed.
 *
 * Traces.  --trace runs each ring row twice, the second ("WAIT/ctf") right
 * after the first in every round, with a ctf: sink (a CTF trace in a
 * directory made fresh under --sink-dir) instead of the text file: its
 * bytes per message are the stream files' (the metadata is written once).
 *
 * The call.  --call message (the default) is Log4j 2's: SR_INFO(cat, "%s",
 * msg); --call three is SR_INFO(cat, "x=%d y=%f s=%s", i, i * 0.5, s) with a
 * 16-character s, the three-argument call of the binary tracers' tests.
 *
 * Nothing is shared between threads except under the start gate's mutex and
 * through pthread_join, both of which order memory (common/bench_threads.h):
 * there are no atomics here.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <inttypes.h>
#include <dirent.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_args.h"
#include "bench_output.h"
#include "bench_stats.h"
#include "bench_threads.h"
#include "fwrite_ceiling.h"
#include "log_bench.h"
#include <seqring/sr_log.h>
#include <seqring/sr_time.h>
#include <seqring/sr_wait.h>

#define PROG "throughput"
#define MAX_THREADS 1024
#define MAX_RUNS BENCH_MAX_RUNS
#define ERR_MAX 512
/* Log file paths: --sink-dir is limited, so that a path and an errno text fit ERR_MAX. */
#define PATH_BYTES (LOG_BENCH_SINK_DIR_MAX + 64)
/* The record layout documented in sr_log_record_internal.h / sr_fmt_internal.h: header, string length, bytes, NUL. */
#define RECORD_HEADER_BYTES 56
#define RECORD_STRING_OVERHEAD 5

/* The logger's modes, then the ceiling (perf/baselines/fwrite_ceiling.h). */
enum vkind { V_RING = LOG_BENCH_RING, V_QUEUE = LOG_BENCH_QUEUE, V_SYNC = LOG_BENCH_SYNC,
	V_CEILING = LOG_BENCH_MODE_COUNT, V_KIND_COUNT };
static const char *const kind_names[V_KIND_COUNT] = { LOG_BENCH_MODE_NAMES, "ceiling" };

typedef log_bench_variant variant;

/* Rows: log_bench's, with each ring row twice under --producer both, each of those twice under --ring-dir and --trace. */
#define THROUGHPUT_MAX_VARIANTS (8 * LOG_BENCH_MAX_VARIANTS)
/* --call three's string argument: 16 characters. */
#define THREE_ARGS_STRING "sixteen-chars-ab"

/* --producer */
enum { PRODUCER_PER_THREAD = 1, PRODUCER_SHARED = 2, PRODUCER_BOTH = 3 };

/* One variant at one thread count, over the runs. */
typedef struct cell {
	double calls[MAX_RUNS];
	double drained[MAX_RUNS];
	double line_bytes[MAX_RUNS];
	int n;
	bool failed;
	int64_t dropped;        /* over the runs (policies drop and discard) */
	double med_calls, min_calls, max_calls, med_drained, med_bytes;
} cell;

typedef struct options {
	log_bench_flags f;      /* threads, modes, wait, message bytes, sink dir, CSV */
	int64_t calls;          /* per run, all threads together */
	int64_t warmup;
	int runs;
	sr_log_full_policy policy;
	int64_t capacity;       /* messages the ring and queue hold; 0: the logger's defaults */
	int64_t slot_size;
	bool sync_immediate;
	bool no_write_behind;   /* --no-write-behind: the file sink's consumer writes its buffers itself */
	int producers;          /* --producer: PRODUCER_PER_THREAD, PRODUCER_SHARED or both */
	const char *ring_dir_parent;  /* --ring-dir: where the WAIT/dir rows' ring directories are made; NULL: no such rows */
	bool trace;             /* --trace: WAIT/ctf rows */
	bool three_args;        /* --call three */
	bool calls_given, warmup_given, runs_given;   /* --quick leaves these alone */    /* sync mode's immediate_flush (default false, as Log4j 2's test) */
} options;

/* What one run measured. */
typedef struct result {
	double calls_per_sec;
	double drained_per_sec;
	double line_bytes;      /* bytes per message in the file */
	int64_t dropped;
} result;

static void
usage(FILE *f)
{
	fprintf(f,
	    "usage: throughput [options]\n"
	    "  Log4j 2's throughput method for the logger: T threads make CALLS/T calls each,\n"
	    "  call-phase rate and drained rate, median of RUNS, modes interleaved.\n"
	    "  --threads LIST        thread counts (default 1,2,4,8,16,32,64)\n"
	    "  --modes LIST          ring,queue,sync,ceiling or all (default all)\n"
	    "  --wait LIST           the ring's wait strategies, comma-separated specs as\n"
	    "                        sr_wait_config_parse takes them ('phased:spin=5us,yield=50us'),\n"
	    "                        'default' (the logger's: %s)\n"
	    "                        or 'all' (every kind with its defaults); default: default\n"
	    "  --calls N             calls per run, all threads together (default 262144 = 256x1024)\n"
	    "  --message-bytes N     characters of the logged string (default 500, at most %d)\n"
	    "  --warmup N            messages logged and flushed before each run (default 200000; 0: none)\n"
	    "  --runs N              measured repetitions (default 5, at most %d)\n"
	    "  --policy NAME         full-queue policy: block (default), drop, discard, sync\n"
	    "  --producer NAME       the ring rows' producer: per_thread (default, the logger's: a\n"
	    "                        ring per thread, each holding its share of the run),\n"
	    "                        shared (one multi-producer ring), or both (each ring row\n"
	    "                        twice, the shared one labelled WAIT/shared, interleaved)\n"
	    "  --trace               each ring row twice, the second (WAIT/ctf) writing a ctf: trace\n"
	    "                        (a directory made fresh under --sink-dir) instead of the text file\n"
	    "  --call message|three  what each call logs: message (default) SR_INFO(cat, \"%%s\", msg),\n"
	    "                        three SR_INFO(cat, \"x=%%d y=%%f s=%%s\", i, i * 0.5, a 16-char s)\n"
	    "  --ring-dir DIR        each ring row twice, the second (WAIT/dir) with its rings in\n"
	    "                        files in a ring directory made fresh under DIR, interleaved\n"
	    "  --no-write-behind     the file sink without its writer thread (sr_sink_config.write_behind\n"
	    "                        false): the consumer writes its own buffers\n"
	    "  --sync-flush WHEN     sync mode: buffered (default: lines written when the 64 KiB\n"
	    "                        buffer fills, as Log4j 2's test with immediateFlush=false)\n"
	    "                        or immediate (a write(2) per line, the logger's default)\n"
	    "  --capacity N|run|logger  messages the ring and the queue hold: run (default, the\n"
	    "                        run's calls, as Log4j 2's ring held its run), a count, or\n"
	    "                        'logger' for the logger's defaults (262,144 slots)\n"
	    "  --slot-size N         ring slot bytes, a power of two 64..65536 (default 128)\n"
	    "  --sink-dir DIR        where the log files go (default /tmp)\n"
	    "  --out FILE            CSV, rows appended (default perf/results/throughput.csv)\n"
	    "  --truncate            start the CSV afresh (header included)\n"
	    "  --quick               threads 1,2,4; 2,000 calls; warm-up 1,000; 1 run (for CTest)\n"
	    "  --quiet               no progress on stderr\n",
	    SR_LOG_DEFAULT_WAIT, LOG_BENCH_MAX_MESSAGE_BYTES, MAX_RUNS);
}

/* ------------------------------------------------------------------ sizes */

static int64_t
pow2_at_least(int64_t v)
{
	int64_t p = 1;
	while (p < v)
		p <<= 1;
	return p;
}

/* Ring slots one message takes: header, string length, the string and its NUL. */
static int64_t
slots_per_message(const options *o)
{
	int64_t rec = o->three_args ? RECORD_HEADER_BYTES + 4 + 8 + RECORD_STRING_OVERHEAD + 16
	    : RECORD_HEADER_BYTES + RECORD_STRING_OVERHEAD + o->f.message_bytes;
	return (rec + o->slot_size - 1) / o->slot_size;
}

/* ------------------------------------------------------------------ one run */

typedef struct worker {
	int index;
	int64_t calls;
	sr_category *cat;
	const char *msg;
	bool three_args;
	bench_start_gate *start;
	/* Written by the worker, read by main after pthread_join (which orders them). */
	int64_t start_ns, end_ns;
} worker;

static void *
worker_main(void *arg)
{
	worker *w = arg;
	/* Untimed: with producer per_thread, this thread's ring is made here, not by its first call. */
	sr_log_thread_prepare(w->cat->log);
	if (!log_bench_worker_start("bench", w->index, w->start, NULL))
		return NULL;
	w->start_ns = sr_monotonic_ns();
	if (w->three_args)
		for (int64_t i = 0; i < w->calls; i++)
			SR_INFO(w->cat, "x=%d y=%f s=%s", (int)i, (double)i * 0.5, THREE_ARGS_STRING);
	else
		for (int64_t i = 0; i < w->calls; i++)
			SR_INFO(w->cat, "%s", w->msg);
	w->end_ns = sr_monotonic_ns();
	return NULL;
}

static void
log_path(const options *o, int index, const char *what, char *buf, size_t size)
{
	snprintf(buf, size, "%s/seqring-throughput-%ld-%d-%s.log", o->f.sink_dir, (long)getpid(), index, what);
}

/* A logger of one variant, open across runs (or for one run: see keeps_open). */
typedef struct live {
	sr_log *log;
	sr_category *cat;
	int threads;              /* per-thread rings: the thread count they are sized for */
	char path[PATH_BYTES];
	char ring_dir[PATH_MAX];  /* a WAIT/dir row's ring directory while its logger is open; "" if none */
	char trace_dir[PATH_MAX]; /* a WAIT/ctf row's trace directory while its logger is open; "" if none */
} live;

/*
 * Whether a variant's logger stays open from one run to the next.  Opening
 * costs: the default ring here is 256 MiB, touched at open, about 1.3 s on
 * this VM, which 35 runs could not afford.  But an open logger's idle
 * consumer must not take CPU from the other modes' runs: a busyspin or
 * yield consumer spins while idle, so those are opened (and warmed up) for
 * each run instead.  Every other strategy (and the queue's consumer) sleeps
 * when idle.
 */
static bool
keeps_open(const variant *v)
{
	if (v->kind != V_RING)
		return true;
	/* Per-thread rings, sized for one thread count, stay open for its runs (see measure_cell). */
	sr_wait_config wc;
	if (sr_wait_config_parse(v->spec, &wc, NULL) != SR_OK)
		return false;
	return wc.kind != SR_WAIT_BUSY_SPIN && wc.kind != SR_WAIT_YIELD;
}

/*
 * Removes a closed logger's ring directory: a clean close leaves only its
 * lock file.  Anything else is left in place and said on stderr.
 */
static void
ring_dir_remove(live *l)
{
	if (l->ring_dir[0] == '\0')
		return;
	char lock[PATH_MAX + 8];
	snprintf(lock, sizeof lock, "%s/lock", l->ring_dir);
	if ((unlink(lock) != 0 && errno != ENOENT) || rmdir(l->ring_dir) != 0)
		fprintf(stderr, "%s: cannot remove the ring directory %s: %s\n", PROG, l->ring_dir, strerror(errno));
	l->ring_dir[0] = '\0';
}

/*
 * Applies f to each file of a trace directory (its metadata too when
 * with_metadata); returns the sum of what f returns.
 */
static int64_t
trace_files(const char *dir, bool with_metadata, int64_t (*f)(const char *path))
{
	int64_t sum = 0;
	DIR *d = opendir(dir);
	if (d == NULL)
		return -1;
	for (struct dirent *e; (e = readdir(d)) != NULL;) {
		bool stream = strncmp(e->d_name, "stream-", 7) == 0;
		if (!stream && !(with_metadata && strcmp(e->d_name, "metadata") == 0))
			continue;
		char path[PATH_MAX + 300];
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		sum += f(path);
	}
	closedir(d);
	return sum;
}

static int64_t
file_bytes(const char *path)
{
	return bench_file_size(path);
}

static int64_t
truncate_file(const char *path)
{
	return truncate(path, 0) == 0 ? 0 : 1;
}

static int64_t
remove_file(const char *path)
{
	return unlink(path) == 0 ? 0 : 1;
}

static void
logger_close(live *l)
{
	if (l->log != NULL) {
		sr_log_close(&l->log);
		unlink(l->path);
	}
	ring_dir_remove(l);
	if (l->trace_dir[0] != '\0') {
		if (trace_files(l->trace_dir, true, remove_file) != 0 || rmdir(l->trace_dir) != 0)
			fprintf(stderr, "%s: cannot remove the trace %s: %s\n", PROG, l->trace_dir, strerror(errno));
		l->trace_dir[0] = '\0';
	}
}

/* The warm-up's thread: logs n messages and exits. */
typedef struct warm_up {
	sr_category *cat;
	const char *msg;
	bool three_args;
	int64_t n;
} warm_up;

static void *
warm_up_main(void *arg)
{
	warm_up *w = arg;
	sr_log_thread_name("bench-warm");
	for (int64_t i = 0; i < w->n; i++) {
		if (w->three_args)
			SR_INFO(w->cat, "x=%d y=%f s=%s", (int)i, (double)i * 0.5, THREE_ARGS_STRING);
		else
			SR_INFO(w->cat, "%s", w->msg);
	}
	return NULL;
}

/*
 * Opens a fresh logger on a fresh file and warms it up (logged by a thread
 * of its own, then flushed).  Not by this thread, which only waits for the
 * runs: with a ring per thread it would keep a ring sized for a run, touched
 * and never used again; the warm-up thread's ring, once it exits, is the
 * first worker's (the logger keeps an exited thread's ring for the next).
 */
static bool
logger_open(const options *o, const variant *v, int index, int threads, const char *msg, live *l, char *err)
{
	log_path(o, index, kind_names[v->kind], l->path, sizeof l->path);
	unlink(l->path);

	sr_sink_config sink = sr_sink_file(l->path);
	sink.write_behind = !o->no_write_behind;
	if (v->to_trace) {
		/* A directory of its own, made empty here: a trace is one logger's. */
		int n = snprintf(l->trace_dir, sizeof l->trace_dir, "%s/seqring-trace-XXXXXX", o->f.sink_dir);
		if (n < 0 || (size_t)n >= sizeof l->trace_dir || mkdtemp(l->trace_dir) == NULL) {
			snprintf(err, ERR_MAX, "cannot make a trace directory under %s: %s", o->f.sink_dir,
			    n < 0 || (size_t)n >= sizeof l->trace_dir ? "path too long" : strerror(errno));
			l->trace_dir[0] = '\0';
			return false;
		}
		sink = sr_sink_ctf(l->trace_dir);
	}
	sr_log_config c;
	log_bench_config(&c, v, o->f.message_bytes, &sink);
	c.full_policy = o->policy;
	c.immediate_flush = o->sync_immediate;
	c.slot_size = (size_t)o->slot_size;
	if (o->capacity > 0) {
		/* The ring counts slots, the queue messages (sr_log_config.ring_slots). */
		c.ring_slots = v->kind == V_RING ? pow2_at_least(o->capacity * slots_per_message(o))
		    : pow2_at_least(o->capacity);
		/* Per thread, each ring holds its thread's share of the run. */
		c.thread_ring_slots = pow2_at_least(o->capacity / threads * slots_per_message(o) + 64);
	}
	if (v->kind == V_RING)
		c.producer = v->shared_ring ? SR_LOG_PRODUCER_SHARED : SR_LOG_PRODUCER_PER_THREAD;
	if (v->in_ring_dir) {
		/* A directory of its own, made empty here: the logger finds no rings of a dead process in it. */
		int n = snprintf(l->ring_dir, sizeof l->ring_dir, "%s/seqring-throughput-XXXXXX", o->ring_dir_parent);
		if (n < 0 || (size_t)n >= sizeof l->ring_dir || mkdtemp(l->ring_dir) == NULL) {
			snprintf(err, ERR_MAX, "cannot make a ring directory under %s: %s", o->ring_dir_parent,
			    n < 0 || (size_t)n >= sizeof l->ring_dir ? "path too long" : strerror(errno));
			l->ring_dir[0] = '\0';
			return false;
		}
		c.ring_dir = l->ring_dir;
	}
	l->log = log_bench_open(&c, v, kind_names, err, ERR_MAX);
	if (l->log == NULL) {
		ring_dir_remove(l);
		return false;
	}
	l->cat = sr_log_category(l->log, "bench.throughput");
	l->threads = threads;
	warm_up w = { l->cat, msg, o->three_args, o->warmup };
	pthread_t warm;
	int e = pthread_create(&warm, NULL, warm_up_main, &w);
	if (e != 0) {
		snprintf(err, ERR_MAX, "cannot start the warm-up thread: %s", strerror(e));
		logger_close(l);
		return false;
	}
	pthread_join(warm, NULL);
	if (!log_bench_flush(l->log, v, kind_names, "the warm-up", err, ERR_MAX)) {
		logger_close(l);
		return false;
	}
	return true;
}

/* One measured run on an open, idle logger: truncate the file, start the threads, drain. */
static bool
run_logger(const options *o, const variant *v, live *l, int threads, const char *msg, result *res,
    char *err)
{
	/* The file keeps O_APPEND: after the truncation the logger writes from offset 0 again. */
	if (l->trace_dir[0] != '\0' ? trace_files(l->trace_dir, false, truncate_file) != 0 : truncate(l->path, 0) != 0) {
		snprintf(err, ERR_MAX, "cannot truncate %s: %s", l->path, strerror(errno));
		return false;
	}
	sr_log_counters before, after;
	sr_log_stats(l->log, &before);

	worker *w = calloc((size_t)threads, sizeof *w);
	if (w == NULL) {
		snprintf(err, ERR_MAX, "out of memory for %d threads", threads);
		return false;
	}
	bool ok = false;
	bench_start_gate start;
	int64_t per_thread = o->calls / threads;
	for (int t = 0; t < threads; t++) {
		w[t].index = t;
		w[t].calls = per_thread;
		w[t].cat = l->cat;
		w[t].msg = msg;
		w[t].three_args = o->three_args;
		w[t].start = &start;
	}
	if (!bench_run_threads(&start, threads, worker_main, w, sizeof *w, NULL, err, ERR_MAX))
		goto out;
	bool flushed = log_bench_flush(l->log, v, kind_names, "the run", err, ERR_MAX);
	int64_t flushed_ns = sr_monotonic_ns();
	if (!flushed)
		goto out;
	int64_t first = INT64_MAX, last = INT64_MIN;
	for (int t = 0; t < threads; t++) {
		if (w[t].start_ns < first)
			first = w[t].start_ns;
		if (w[t].end_ns > last)
			last = w[t].end_ns;
	}
	sr_log_stats(l->log, &after);
	int64_t calls = per_thread * threads;
	int64_t written = (int64_t)(after.written - before.written);
	int64_t dropped = (int64_t)(after.dropped - before.dropped);
	int64_t bytes = l->trace_dir[0] != '\0' ? trace_files(l->trace_dir, false, file_bytes) : bench_file_size(l->path);
	if (written + dropped != calls || after.sink_errors != before.sink_errors || bytes <= 0 ||
	    (o->policy == SR_LOG_FULL_BLOCK && dropped != 0)) {
		snprintf(err, ERR_MAX, "%s/%s threads=%d: check failed: %" PRId64 " calls, %" PRId64
		    " written, %" PRId64 " dropped, %" PRIu64 " sink errors, file %" PRId64 " bytes",
		    kind_names[v->kind], v->label, threads, calls, written, dropped,
		    after.sink_errors - before.sink_errors, bytes);
		goto out;
	}
	res->calls_per_sec = (double)calls * 1e9 / (double)(last - first);
	res->drained_per_sec = (double)written * 1e9 / (double)(flushed_ns - first);
	res->line_bytes = written > 0 ? (double)bytes / (double)written : 0;
	res->dropped = dropped;
	ok = true;
out:
	free(w);
	return ok;
}

/* The ceiling (perf/baselines/fwrite_ceiling.h): messages lines of line_bytes each. */
static bool
run_ceiling(const options *o, int64_t messages, int64_t line_bytes, result *res, char *err)
{
	char path[PATH_BYTES];
	log_path(o, 0, "ceiling", path, sizeof path);
	int64_t elapsed_ns;
	if (!fwrite_ceiling_run(path, messages, line_bytes, &elapsed_ns, err, ERR_MAX))
		return false;
	res->calls_per_sec = res->drained_per_sec = (double)messages * 1e9 / (double)elapsed_ns;
	res->line_bytes = (double)line_bytes;
	res->dropped = 0;
	return true;
}

/*
 * The length of a line as the logger writes it, for a ceiling that runs
 * without any logger mode: one message through a sync logger.
 */
static bool
probe_line_bytes(const options *o, const char *msg, double *bytes, char *err)
{
	char path[PATH_BYTES];
	log_path(o, 0, "probe", path, sizeof path);
	unlink(path);
	sr_sink_config sink = sr_sink_file(path);
	const variant sync = { .kind = V_SYNC, .label = "probe" };
	sr_log_config c;
	log_bench_config(&c, &sync, o->f.message_bytes, &sink);
	sr_log *log = log_bench_open(&c, &sync, kind_names, err, ERR_MAX);
	if (log == NULL)
		return false;
	sr_log_thread_name("bench-000");
	if (o->three_args)
		SR_INFO(sr_log_category(log, "bench.throughput"), "x=%d y=%f s=%s", 0, 0.0, THREE_ARGS_STRING);
	else
		SR_INFO(sr_log_category(log, "bench.throughput"), "%s", msg);
	sr_log_close(&log);
	*bytes = (double)bench_file_size(path);
	unlink(path);
	if (*bytes <= 0) {
		snprintf(err, ERR_MAX, "probe: the logger wrote nothing to %s", path);
		return false;
	}
	return true;
}

/* ------------------------------------------------------------------ output */

static void
summarize(cell *c)
{
	if (c->n == 0)
		return;
	bench_summary calls = bench_summarize(c->calls, c->n);
	c->med_calls = calls.median;
	c->min_calls = calls.min;
	c->max_calls = calls.max;
	c->med_drained = bench_summarize(c->drained, c->n).median;
	c->med_bytes = bench_summarize(c->line_bytes, c->n).median;
}

static const char *
policy_label(const variant *v, const options *o)
{
	/* Sync mode and the ceiling have no queue, hence no full-queue policy. */
	return v->kind == V_RING || v->kind == V_QUEUE ? sr_log_full_policy_name(o->policy) : "none";
}

static int
find_kind(const variant *vars, int nvars, int kind)
{
	for (int i = 0; i < nvars; i++)
		if (vars[i].kind == kind)
			return i;
	return -1;
}

static int
find_threads(const options *o, int threads)
{
	for (int i = 0; i < o->f.nthreads; i++)
		if (o->f.threads[i] == threads)
			return i;
	return -1;
}

/* One line of the targets table; the first one prints the table's heading. */
static void
print_target(const char *label, const char *what, double got, double goal, const char *where)
{
	static bool heading_done;
	if (!heading_done) {
		printf("\nTargets (ring/%s)\n\n| target | measured | goal | met |\n|---|---:|---:|---|\n", label);
		heading_done = true;
	}
	printf("| %s | %.2fx%s | >= %.1fx | %s |\n", what, got, where, goal, got >= goal ? "met" : "missed");
}

/* The rows (variants) and what each measured at each thread count. */
typedef struct table {
	variant vars[THROUGHPUT_MAX_VARIANTS];
	int nvars;
	cell cells[THROUGHPUT_MAX_VARIANTS][LOG_BENCH_MAX_LIST];
	live lives[THROUGHPUT_MAX_VARIANTS];
	double probe_bytes;     /* a logger's line length, for a ceiling that runs without one */
} table;

/* --sync-flush: a bench_flag parser. */
static bool
parse_sync_flush(void *dest, char **values, char *err, size_t errsize)
{
	if (strcmp(values[0], "buffered") != 0 && strcmp(values[0], "immediate") != 0) {
		snprintf(err, errsize, "--sync-flush '%.64s' is invalid: expected buffered or immediate", values[0]);
		return false;
	}
	*(bool *)dest = strcmp(values[0], "immediate") == 0;
	return true;
}

/* --policy: a bench_flag parser. */
static bool
parse_policy(void *dest, char **values, char *err, size_t errsize)
{
	sr_error e;
	if (sr_log_full_policy_parse(values[0], dest, &e) == SR_OK)
		return true;
	snprintf(err, errsize, "--policy '%.64s' is invalid: %s", values[0], e.message);
	return false;
}

/* --producer: per_thread (the default, the logger's), shared, or both (each ring row twice). */
static bool
parse_producer(void *dest, char **values, char *err, size_t errsize)
{
	int *producers = dest;
	if (strcmp(values[0], "per_thread") == 0)
		*producers = PRODUCER_PER_THREAD;
	else if (strcmp(values[0], "shared") == 0)
		*producers = PRODUCER_SHARED;
	else if (strcmp(values[0], "both") == 0)
		*producers = PRODUCER_BOTH;
	else {
		snprintf(err, errsize, "--producer '%.64s' is invalid: expected per_thread, shared or both",
		    values[0]);
		return false;
	}
	return true;
}

/*
 * The ring rows once per producer asked for, in each round's order: a
 * strategy's per-thread row, then its shared twin (labelled "LABEL/shared"
 * when both run), so that the two compare within every round.
 */
static bool
expand_producers(const options *o, variant *vars, int *nvars, int max, char *err)
{
	variant in[THROUGHPUT_MAX_VARIANTS];
	int n = *nvars, out = 0;
	memcpy(in, vars, (size_t)n * sizeof *vars);
	for (int i = 0; i < n; i++) {
		int copies = in[i].kind != V_RING ? 1 : o->producers == PRODUCER_BOTH ? 2 : 1;
		if (out + copies > max) {
			snprintf(err, ERR_MAX, "--producer both: more than %d rows", max);
			return false;
		}
		for (int c = 0; c < copies; c++) {
			variant *v = &vars[out++];
			*v = in[i];
			if (in[i].kind != V_RING)
				continue;
			v->shared_ring = o->producers == PRODUCER_SHARED || c == 1;
			if (c == 1)
				snprintf(v->label, sizeof v->label, "%.50s/shared", in[i].label);
		}
	}
	*nvars = out;
	return true;
}

/* The twin rows a flag adds to each ring row: its rings in a ring directory, or its lines as a trace. */
enum twin { TWIN_RING_DIR, TWIN_TRACE };

/*
 * --ring-dir, --trace: each ring row followed by its twin (labelled
 * "LABEL/dir": its rings in a ring directory; "LABEL/ctf": writing a ctf:
 * trace instead of the text file), so that the two compare within every
 * round.
 */
static bool
expand_twins(variant *vars, int *nvars, int max, enum twin twin, char *err)
{
	variant in[THROUGHPUT_MAX_VARIANTS];
	int n = *nvars, out = 0;
	memcpy(in, vars, (size_t)n * sizeof *vars);
	for (int i = 0; i < n; i++) {
		int copies = in[i].kind == V_RING ? 2 : 1;
		if (out + copies > max) {
			snprintf(err, ERR_MAX, "%s: more than %d rows", twin == TWIN_TRACE ? "--trace" : "--ring-dir", max);
			return false;
		}
		vars[out++] = in[i];
		if (copies == 2) {
			variant *v = &vars[out++];
			*v = in[i];
			v->in_ring_dir = twin == TWIN_RING_DIR;
			v->to_trace = twin == TWIN_TRACE;
			snprintf(v->label, sizeof v->label, "%.56s/%s", in[i].label, twin == TWIN_TRACE ? "ctf" : "dir");
		}
	}
	*nvars = out;
	return true;
}

/* --call: a bench_flag parser (message: false, three: true). */
static bool
parse_call(void *dest, char **values, char *err, size_t errsize)
{
	bool *three = dest;
	if (strcmp(values[0], "message") == 0 || strcmp(values[0], "three") == 0) {
		*three = strcmp(values[0], "three") == 0;
		return true;
	}
	snprintf(err, errsize, "--call '%.32s': expected message or three", values[0]);
	return false;
}

/* --capacity: a bench_flag parser (run: -1, logger: 0, else a message count). */
static bool
parse_capacity(void *dest, char **values, char *err, size_t errsize)
{
	int64_t *capacity = dest;
	if (strcmp(values[0], "run") == 0)
		*capacity = -1;
	else if (strcmp(values[0], "logger") == 0)
		*capacity = 0;
	else if (!bench_parse_count(values[0], capacity) || *capacity > INT64_C(1) << 30) {
		snprintf(err, errsize, "--capacity '%.64s' is invalid: expected run, logger or a "
		    "message count from 1 to 2^30", values[0]);
		return false;
	}
	return true;
}

/* The options from the command line; BENCH_PARSED_BAD with err set. */
static enum bench_parsed
parse_args(int argc, char **argv, options *o, char *err)
{
	/* Log4j 2's test: 256 x 1024 calls, a 500-character message; capacity -1: the run's calls */
	*o = (options){ .calls = 256 * 1024, .warmup = 200000, .runs = 5, .policy = SR_LOG_FULL_BLOCK,
	    .capacity = -1, .slot_size = 128, .producers = PRODUCER_PER_THREAD };
	static const int threads[] = { 1, 2, 4, 8, 16, 32, 64 };
	log_bench_flags_init(&o->f, kind_names, V_KIND_COUNT, MAX_THREADS, threads, 7, threads, 3, 500,
	    "perf/results/throughput.csv");
	const bench_flag own[] = {
		{ BENCH_FLAG("--calls", BENCH_COUNT, &o->calls), .max = INT64_C(1) << 40, .given = &o->calls_given },
		{ BENCH_FLAG("--warmup", BENCH_COUNT, &o->warmup), .zero_ok = true, .given = &o->warmup_given },
		{ BENCH_FLAG("--runs", BENCH_INT, &o->runs), .max = MAX_RUNS, .given = &o->runs_given },
		{ BENCH_FLAG("--policy", BENCH_CUSTOM, &o->policy), .parse = parse_policy },
		{ BENCH_FLAG("--producer", BENCH_CUSTOM, &o->producers), .parse = parse_producer },
		{ BENCH_FLAG("--sync-flush", BENCH_CUSTOM, &o->sync_immediate), .parse = parse_sync_flush },
		{ BENCH_FLAG("--capacity", BENCH_CUSTOM, &o->capacity), .parse = parse_capacity },
		{ BENCH_FLAG("--slot-size", BENCH_POWER_OF_TWO, &o->slot_size), .min = 64, .max = 65536 },
		{ BENCH_FLAG("--ring-dir", BENCH_TEXT, &o->ring_dir_parent) },
		{ BENCH_FLAG("--trace", BENCH_SWITCH, &o->trace), .switch_to = true },
		{ BENCH_FLAG("--no-write-behind", BENCH_SWITCH, &o->no_write_behind), .switch_to = true },
		{ BENCH_FLAG("--call", BENCH_CUSTOM, &o->three_args), .parse = parse_call },
	};
	enum bench_parsed parsed = log_bench_parse_args(argc, argv, &o->f, own, (int)(sizeof own / sizeof own[0]),
	    usage, err, ERR_MAX);
	if (parsed != BENCH_PARSED_RUN)
		return parsed;
	if (o->f.quick) {
		if (!o->calls_given)
			o->calls = 2000;
		if (!o->warmup_given)
			o->warmup = 1000;
		if (!o->runs_given)
			o->runs = 1;
	}
	for (int i = 0; i < o->f.nthreads; i++) {
		if (o->calls < o->f.threads[i]) {
			snprintf(err, ERR_MAX, "--calls %" PRId64 " is less than the thread count %d: every "
			    "thread needs at least one call", o->calls, o->f.threads[i]);
			return BENCH_PARSED_BAD;
		}
	}
	if (o->capacity < 0)
		o->capacity = o->calls;
	if (o->capacity > 0 && o->capacity * slots_per_message(o) > (INT64_C(1) << 30)) {
		snprintf(err, ERR_MAX, "--capacity %" PRId64 " needs %" PRId64 " ring slots of %" PRId64
		    " bytes: more than 2^30", o->capacity, o->capacity * slots_per_message(o), o->slot_size);
		return BENCH_PARSED_BAD;
	}
	return log_bench_check_sink_dir(o->f.sink_dir, err, ERR_MAX) ? BENCH_PARSED_RUN : BENCH_PARSED_BAD;
}

/* One run of one variant at one thread count into its cell; false with err. */
static bool
measure_cell(const options *o, table *t, int vi, int threads, int run, const char *msg,
    double bytes_so_far, result *r, char *err)
{
	variant *v = &t->vars[vi];
	char name[96];
	log_bench_variant_name(v, kind_names, name, sizeof name);
	if (v->kind == V_CEILING) {
		bench_progress("%s: %s threads=%d run %d/%d", PROG, name, threads, run + 1, o->runs);
		double b = bytes_so_far > 0 ? bytes_so_far : t->probe_bytes;
		if (b <= 0) {
			if (!probe_line_bytes(o, msg, &t->probe_bytes, err))
				return false;
			b = t->probe_bytes;
		}
		return run_ceiling(o, o->calls / threads * threads, (int64_t)(b + 0.5), r, err);
	}
	live *l = &t->lives[vi];
	bool ok = true;
	/*
	 * Per-thread rings each hold their thread's share of a run: a new
	 * thread count needs a logger of its own.  Within a thread count the
	 * logger stays open, as the shared ring's does for the whole table:
	 * each run's threads take the rings the last run's threads left
	 * (spare rings), as an application's threads would, rather than new
	 * memory.
	 */
	if (l->log != NULL && v->kind == V_RING && !v->shared_ring && l->threads != threads)
		logger_close(l);
	if (l->log == NULL) {
		bench_progress("%s: %s open and warm-up (%" PRId64 " messages)", PROG, name, o->warmup);
		ok = logger_open(o, v, vi, threads, msg, l, err);
	}
	if (ok) {
		bench_progress("%s: %s threads=%d run %d/%d", PROG, name, threads, run + 1, o->runs);
		ok = run_logger(o, v, l, threads, msg, r, err);
	}
	/* A failed run may leave the logger in any state: the next run gets a new one. */
	if (!ok || !keeps_open(v))
		logger_close(l);
	return ok;
}

/* Every round: each thread count, each run, every variant in turn.  Returns the failed runs. */
static int
measure(const options *o, table *t, const char *msg, char *err)
{
	int failures = 0;
	for (int ti = 0; ti < o->f.nthreads; ti++) {
		for (int run = 0; run < o->runs; run++) {
			/* The ceiling writes lines as long as this round's logger lines. */
			double bytes_sum = 0;
			int bytes_n = 0;
			for (int vi = 0; vi < t->nvars; vi++) {
				cell *c = &t->cells[vi][ti];
				result r;
				err[0] = '\0';
				if (!measure_cell(o, t, vi, o->f.threads[ti], run, msg,
				    bytes_n > 0 ? bytes_sum / bytes_n : 0, &r, err)) {
					fprintf(stderr, "%s: %s\n", PROG, err);
					c->failed = true;
					failures++;
					continue;
				}
				if (t->vars[vi].kind != V_CEILING) {
					bytes_sum += r.line_bytes;
					bytes_n++;
				}
				c->calls[c->n] = r.calls_per_sec;
				c->drained[c->n] = r.drained_per_sec;
				c->line_bytes[c->n] = r.line_bytes;
				c->dropped += r.dropped;
				c->n++;
			}
		}
	}
	for (int vi = 0; vi < t->nvars; vi++)
		logger_close(&t->lives[vi]);
	for (int vi = 0; vi < t->nvars; vi++)
		for (int ti = 0; ti < o->f.nthreads; ti++)
			summarize(&t->cells[vi][ti]);
	return failures;
}

/* CSV: appended, header when the file is new or empty, or with --truncate. */
static bool
write_csv(const options *o, const table *t, char *err)
{
	FILE *csv = bench_open_csv(o->f.out, o->f.truncate, "mode,wait,policy,threads,message_bytes,"
	    "calls_per_sec,drained_per_sec,runs,min_calls_per_sec,max_calls_per_sec\n", err, ERR_MAX);
	if (csv == NULL)
		return false;
	for (int vi = 0; vi < t->nvars; vi++) {
		const variant *v = &t->vars[vi];
		for (int ti = 0; ti < o->f.nthreads; ti++) {
			const cell *c = &t->cells[vi][ti];
			if (c->n == 0)
				continue;
			fprintf(csv, "%s,%s,%s,%d,%" PRId64 ",%.0f,%.0f,%d,%.0f,%.0f\n", kind_names[v->kind],
			    v->label, policy_label(v, o), o->f.threads[ti], o->f.message_bytes,
			    c->med_calls, c->med_drained, c->n, c->min_calls, c->max_calls);
		}
	}
	if (fclose(csv) != 0) {
		snprintf(err, ERR_MAX, "--out '%s': write failed: %s", o->f.out, strerror(errno));
		return false;
	}
	return true;
}

/* The method in prose, then one row per variant and thread count. */
static void
print_rows(const options *o, const table *t)
{
	int qi = find_kind(t->vars, t->nvars, V_QUEUE);
	int ci = find_kind(t->vars, t->nvars, V_CEILING);
	double line_bytes = 0;
	for (int vi = 0; vi < t->nvars && line_bytes == 0; vi++)
		if (t->vars[vi].kind != V_CEILING)
			for (int ti = 0; ti < o->f.nthreads && line_bytes == 0; ti++)
				line_bytes = t->cells[vi][ti].med_bytes;
	if (line_bytes == 0)
		line_bytes = t->probe_bytes;
	char b1[32], b2[32], b3[32], b4[32];
	printf("## Logger throughput, Log4j 2's method (`perf/throughput`)\n\n");
	if (o->three_args)
		printf("- Each of T threads makes %" PRId64 " / T calls of `SR_INFO(cat, \"x=%%d y=%%f s=%%s\", i, "
		    "i * 0.5, s)` with a 16-character s (the text layout makes each line about %.0f bytes); all "
		    "threads start together at a gate.\n", o->calls, line_bytes);
	else
		printf("- Each of T threads makes %" PRId64 " / T calls of `SR_INFO(cat, \"%%s\", msg)` with one "
		    "%" PRId64 "-character string (the format has a single %%s; the text layout makes each line "
		    "about %.0f bytes); all threads start together at a gate.\n", o->calls, o->f.message_bytes,
		    line_bytes);
	printf("- Each mode's logger is opened once (busyspin and yield consumers, which spin while "
	    "idle, once per run; per-thread rings, sized for the thread count, once per thread count), "
	    "writes to a file under %s, and is warmed up with %" PRId64 " messages "
	    "and `sr_log_flush`; each run truncates the file first. %d run%s per thread count, modes "
	    "interleaved within each run (", o->f.sink_dir, o->warmup, o->runs, o->runs == 1 ? "" : "s");
	for (int vi = 0; vi < t->nvars; vi++)
		printf("%s%s", vi ? ", " : "", kind_names[t->vars[vi].kind]);
	printf("); median, with min-max of the call-phase rate.\n");
	printf("- calls/s: all calls over the call phase, first thread's first call to last thread's "
	    "last return (what the Log4j manual reports; total of all threads, not per thread). "
	    "drained/s: messages in the file over the call phase plus `sr_log_flush`.\n");
	printf("- ceiling: the same number of lines of the same length written with `fwrite` through "
	    "a 64 KiB stdio buffer to a fresh file, one thread, no formatting.\n");
	static const char per_thread_text[] = "per_thread, the logger's default (a single-producer ring "
	    "per calling thread, each holding its share of the run, made before the start gate, from the "
	    "rings of the last run's threads where the logger kept them)";
	static const char shared_text[] = "shared (one multi-producer ring)";
	if (o->producers == PRODUCER_BOTH)
		printf("- ring rows' producer: %s; rows WAIT/shared: %s, run right after their per_thread "
		    "twin in every round.\n", per_thread_text, shared_text);
	else
		printf("- ring rows' producer: %s.\n", o->producers == PRODUCER_SHARED ? shared_text :
		    per_thread_text);
	if (o->trace)
		printf("- rows WAIT/ctf: the same ring row with a ctf: sink (a CTF trace in a directory made fresh "
		    "under %s for each of its loggers) instead of the text file; bytes per message are the stream "
		    "files'; run right after their twin in every round.\n", o->f.sink_dir);
	if (o->ring_dir_parent != NULL)
		printf("- rows WAIT/dir: the same ring row with a ring directory (config.ring_dir): its rings "
		    "are files, mapped shared, in a directory made fresh under %s for each of its loggers and "
		    "removed at its close; run right after their twin in every round.\n", o->ring_dir_parent);
	printf("- file sink: %s.\n", o->no_write_behind ?
	    "write_behind off (--no-write-behind): the consumer writes its buffers itself" :
	    "write_behind on, the default (where the logger allows it, a thread of the sink's own writes "
	    "the consumer's full buffers while the consumer lays out the next)");
	if (o->f.want[V_SYNC])
		printf("- sync: %s.\n", o->sync_immediate ?
		    "immediate_flush (a write(2) per line before the call returns, the logger's default)" :
		    "immediate_flush off (lines written when the sink's 64 KiB buffer fills and at the "
		    "flush, as Log4j 2's synchronous appenders in its test, immediateFlush=\"false\")");
	if (o->capacity > 0)
		printf("- Capacity: the ring has %" PRId64 " slots of %" PRId64 " B (a message takes %" PRId64
		    " slots: room for %" PRId64 " messages), the queue %" PRId64 " messages: a whole run "
		    "fits, as in Log4j 2's test. Full-queue policy: %s.\n",
		    pow2_at_least(o->capacity * slots_per_message(o)), o->slot_size, slots_per_message(o),
		    pow2_at_least(o->capacity * slots_per_message(o)) / slots_per_message(o),
		    pow2_at_least(o->capacity), sr_log_full_policy_name(o->policy));
	else
		printf("- Capacity: the logger's defaults (ring 262,144 slots of 128 B: room for about "
		    "%" PRId64 " such messages; queue 262,144 messages). Full-queue policy: %s.\n",
		    (int64_t)262144 / slots_per_message(o), sr_log_full_policy_name(o->policy));
	printf("\n| mode | wait | threads | calls/s (median) | min - max | drained/s (median) | "
	    "calls vs queue | drained vs ceiling |\n");
	printf("|---|---|---:|---:|---:|---:|---:|---:|\n");
	for (int ti = 0; ti < o->f.nthreads; ti++) {
		for (int vi = 0; vi < t->nvars; vi++) {
			const variant *v = &t->vars[vi];
			const cell *c = &t->cells[vi][ti];
			if (c->n == 0) {
				printf("| %s | %s | %d | failed | | | | |\n", kind_names[v->kind], v->label,
				    o->f.threads[ti]);
				continue;
			}
			char rq[32] = "", rc[32] = "";
			if (qi >= 0 && t->cells[qi][ti].n > 0 && v->kind != V_CEILING)
				snprintf(rq, sizeof rq, "%.2fx", c->med_calls / t->cells[qi][ti].med_calls);
			if (ci >= 0 && t->cells[ci][ti].n > 0)
				snprintf(rc, sizeof rc, "%.2fx", c->med_drained / t->cells[ci][ti].med_drained);
			printf("| %s | %s | %d | %s | %s - %s | %s | %s | %s |\n", kind_names[v->kind], v->label,
			    o->f.threads[ti], bench_fmt_rate(c->med_calls, b1, sizeof b1),
			    bench_fmt_rate(c->min_calls, b2, sizeof b2), bench_fmt_rate(c->max_calls, b3, sizeof b3),
			    bench_fmt_rate(c->med_drained, b4, sizeof b4), rq, rc);
		}
	}
}

/* The manual's shape: one line per logger, one column per thread count. */
static void
print_manual_tables(const options *o, const table *t)
{
	char b1[32], name[96];
	for (int pass = 0; pass < 2; pass++) {
		printf("\n%s (median, messages/s, all threads together)\n\n| logger |",
		    pass == 0 ? "Call-phase rate" : "Drained rate");
		for (int ti = 0; ti < o->f.nthreads; ti++)
			printf(" %d thread%s |", o->f.threads[ti], o->f.threads[ti] == 1 ? "" : "s");
		printf("\n|---|");
		for (int ti = 0; ti < o->f.nthreads; ti++)
			printf("---:|");
		printf("\n");
		for (int vi = 0; vi < t->nvars; vi++) {
			printf("| %s |", log_bench_variant_name(&t->vars[vi], kind_names, name, sizeof name));
			for (int ti = 0; ti < o->f.nthreads; ti++) {
				const cell *c = &t->cells[vi][ti];
				printf(" %s |", c->n == 0 ? "failed"
				    : bench_fmt_rate(pass == 0 ? c->med_calls : c->med_drained, b1, sizeof b1));
			}
			printf("\n");
		}
	}
}

/*
 * The worst ratio over the thread counts of a's rate to b's (the drained rates, or the call
 * rates against b's 1-thread cell when b_one_thread >= 0); 0 threads in *at when no cell has both.
 */
static double
worst_ratio(const options *o, const table *t, int a, int b, int b_one_thread, int *at)
{
	double worst = 1e300;
	*at = 0;
	for (int ti = 0; ti < o->f.nthreads; ti++) {
		const cell *ca = &t->cells[a][ti];
		const cell *cb = &t->cells[b][b_one_thread >= 0 ? b_one_thread : ti];
		if (ca->n == 0 || cb->n == 0)
			continue;
		double r = b_one_thread >= 0 ? ca->med_calls / cb->med_calls : ca->med_drained / cb->med_drained;
		if (r < worst) {
			worst = r;
			*at = o->f.threads[ti];
		}
	}
	return worst;
}

/* The targets, for the first ring strategy (the logger's default unless --wait says otherwise). */
static void
print_targets(const options *o, const table *t)
{
	int ri = find_kind(t->vars, t->nvars, V_RING);
	int qi = find_kind(t->vars, t->nvars, V_QUEUE);
	int ci = find_kind(t->vars, t->nvars, V_CEILING);
	if (ri < 0)
		return;
	const cell (*cells)[LOG_BENCH_MAX_LIST] = t->cells;
	const char *label = t->vars[ri].label;
	int t1 = find_threads(o, 1), t64 = find_threads(o, 64), at;
	char where[48];
	if (qi >= 0 && t1 >= 0 && cells[ri][t1].n > 0 && cells[qi][t1].n > 0)
		print_target(label, "call phase, 1 thread, vs queue",
		    cells[ri][t1].med_calls / cells[qi][t1].med_calls, 5.0, "");
	if (qi >= 0 && t64 >= 0 && cells[ri][t64].n > 0 && cells[qi][t64].n > 0)
		print_target(label, "call phase, 64 threads, vs queue",
		    cells[ri][t64].med_calls / cells[qi][t64].med_calls, 3.0, "");
	if (t1 >= 0 && cells[ri][t1].n > 0 && o->f.nthreads > 1) {
		/* No collapse: every thread count within 2x of the 1-thread rate. */
		double worst = worst_ratio(o, t, ri, ri, t1, &at);
		snprintf(where, sizeof where, " (worst: %d threads)", at);
		print_target(label, "call phase, every thread count vs 1 thread", worst, 0.5, where);
	}
	if (ci >= 0) {
		double worst = worst_ratio(o, t, ri, ci, -1, &at);
		if (at > 0) {
			snprintf(where, sizeof where, " (worst: %d threads)", at);
			print_target(label, "drained rate vs ceiling", worst, 0.9, where);
		}
	}
}

int
main(int argc, char **argv)
{
	options o;
	char err[ERR_MAX] = "";
	static table t;
	enum bench_parsed parsed = parse_args(argc, argv, &o, err);
	if (parsed == BENCH_PARSED_RUN &&
	    (!log_bench_variants(o.f.wait_list, o.f.want, V_KIND_COUNT, t.vars, &t.nvars, err, ERR_MAX) ||
	    !expand_producers(&o, t.vars, &t.nvars, THROUGHPUT_MAX_VARIANTS, err) ||
	    (o.ring_dir_parent != NULL && !expand_twins(t.vars, &t.nvars, THROUGHPUT_MAX_VARIANTS, TWIN_RING_DIR, err)) ||
	    (o.trace && !expand_twins(t.vars, &t.nvars, THROUGHPUT_MAX_VARIANTS, TWIN_TRACE, err))))
		parsed = BENCH_PARSED_BAD;
	if (parsed != BENCH_PARSED_RUN)
		return bench_parsed_exit(parsed, PROG, err);
	char *msg = log_bench_message(o.f.message_bytes, 'A');
	if (msg == NULL) {
		fprintf(stderr, "%s: out of memory\n", PROG);
		return 1;
	}
	bool logger_modes = o.f.want[V_RING] || o.f.want[V_QUEUE] || o.f.want[V_SYNC];
	if (o.f.want[V_CEILING] && !logger_modes && !probe_line_bytes(&o, msg, &t.probe_bytes, err)) {
		fprintf(stderr, "%s: %s\n", PROG, err);
		return 1;
	}

	int64_t t_begin = sr_monotonic_ns();
	int failures = measure(&o, &t, msg, err);
	double elapsed = (double)(sr_monotonic_ns() - t_begin) / 1e9;
	if (!write_csv(&o, &t, err)) {
		fprintf(stderr, "%s: %s\n", PROG, err);
		return 1;
	}
	print_rows(&o, &t);
	print_manual_tables(&o, &t);
	print_targets(&o, &t);
	/* Dropped messages are not in the file: drained/s counts only what was written. */
	for (int vi = 0; vi < t.nvars; vi++)
		for (int ti = 0; ti < o.f.nthreads; ti++)
			if (t.cells[vi][ti].dropped > 0)
				printf("\n%s/%s, %d threads: %" PRId64 " messages dropped over %d runs (policy %s)\n",
				    kind_names[t.vars[vi].kind], t.vars[vi].label, o.f.threads[ti],
				    t.cells[vi][ti].dropped, t.cells[vi][ti].n, sr_log_full_policy_name(o.policy));
	if (failures > 0)
		printf("\n%d run%s failed (see stderr).\n", failures, failures == 1 ? "" : "s");
	fflush(stdout);
	bench_progress("%s: done in %.1f s; CSV rows appended to %s", PROG, elapsed, o.f.out);
	free(msg);
	return failures > 0 ? 1 : 0;
}

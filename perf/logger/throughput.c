/*
 * throughput.c: perf/throughput, the Log4j 2 manual's per-thread throughput
 * table ("Asynchronous Logging Performance") for seqring's logger.
 *
 * Method (the manual's, with two additions that it lacks):
 *   - T threads (1, 2, 4, ... 64) each make 256 x 1024 / T calls logging a
 *     500-character message: SR_INFO(cat, "%s", msg) with one 500-byte
 *     string, so the caller copies the string and the consumer formats it.
 *   - Each mode's logger is opened once on a fresh file and warmed up with
 *     200,000 messages of the same size from the main thread, which are
 *     written (sr_log_flush) before anything is measured.  The logger then
 *     stays open for every run (see keeps_open for the exceptions), and each
 *     run starts by truncating its file.
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
 * Nothing is shared between threads except under the start gate's mutex and
 * through pthread_join, both of which order memory: there are no atomics here.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench_util.h"
#include "fwrite_ceiling.h"
#include "sr_log.h"
#include "sr_wait.h"

#define PROG "throughput"
#define MAX_THREAD_COUNTS 16
#define MAX_THREADS 1024
#define MAX_WAITS BENCH_MAX_WAITS
#define MAX_RUNS 101
#define MAX_VARIANTS (MAX_WAITS + 3)
#define MAX_MESSAGE_BYTES 60000
#define ERR_MAX 512
/* Log file paths: --sink-dir is limited to SINK_DIR_MAX bytes, so a path and an errno text fit ERR_MAX. */
#define SINK_DIR_MAX 256
#define PATH_BYTES (SINK_DIR_MAX + 64)
/* The record layout documented in sr_log.h / sr_log_format.h: header, string length, bytes, NUL. */
#define RECORD_HEADER_BYTES 56
#define RECORD_STRING_OVERHEAD 5

enum vkind { V_RING, V_QUEUE, V_SYNC, V_CEILING, V_KIND_COUNT };
static const char *const kind_names[V_KIND_COUNT] = { "ring", "queue", "sync", "ceiling" };

typedef struct variant {
	enum vkind kind;
	char spec[256];   /* ring: the wait strategy handed to the logger */
	char label[64];   /* the wait column ("none" for the other modes) */
} variant;

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
	int threads[MAX_THREAD_COUNTS];
	int nthreads;
	bool want[V_KIND_COUNT];
	variant waits[MAX_WAITS];
	int nwaits;
	int64_t calls;          /* per run, all threads together */
	int64_t message_bytes;
	int64_t warmup;
	int runs;
	sr_log_full_policy policy;
	int64_t capacity;       /* messages the ring and queue hold; 0: the logger's defaults */
	int64_t slot_size;
	const char *sink_dir;
	const char *out;
	bool truncate;
	bool sync_immediate;    /* sync mode's immediate_flush (default false, as Log4j 2's test) */
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
	    SR_LOG_DEFAULT_WAIT, MAX_MESSAGE_BYTES, MAX_RUNS);
}

/* ------------------------------------------------------------------ parsing */

/* Parses "0" or a count with bench_parse_count's suffixes. */
static bool
parse_count0(const char *text, int64_t *out)
{
	if (strcmp(text, "0") == 0) {
		*out = 0;
		return true;
	}
	return bench_parse_count(text, out);
}

static bool
parse_threads(const char *list, options *o, char *err)
{
	o->nthreads = 0;
	const char *p = list;
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		char item[32];
		int64_t t;
		if (len == 0 || len >= sizeof item) {
			snprintf(err, ERR_MAX, "--threads '%s' is invalid: expected comma-separated thread "
			    "counts from 1 to %d", list, MAX_THREADS);
			return false;
		}
		memcpy(item, p, len);
		item[len] = '\0';
		if (!bench_parse_count(item, &t) || t > MAX_THREADS) {
			snprintf(err, ERR_MAX, "--threads '%s': '%s' is invalid: expected a thread count "
			    "from 1 to %d", list, item, MAX_THREADS);
			return false;
		}
		if (o->nthreads == MAX_THREAD_COUNTS) {
			snprintf(err, ERR_MAX, "--threads '%s': more than %d thread counts", list,
			    MAX_THREAD_COUNTS);
			return false;
		}
		o->threads[o->nthreads++] = (int)t;
		if (comma == NULL)
			return true;
		p = comma + 1;
	}
}

static bool
parse_modes(const char *list, options *o, char *err)
{
	return bench_parse_name_set("--modes", "mode", list, kind_names, V_KIND_COUNT, o->want, err, ERR_MAX);
}

/* --wait: the strategies, parsed by bench_parse_wait_list, as ring variants. */
static bool
parse_waits(const char *list, options *o, char *err)
{
	bench_wait_list w;
	if (!bench_parse_wait_list(list, SR_LOG_DEFAULT_WAIT, &w, err, ERR_MAX))
		return false;
	o->nwaits = w.nwaits;
	for (int i = 0; i < w.nwaits; i++) {
		variant *v = &o->waits[i];
		memset(v, 0, sizeof *v);
		v->kind = V_RING;
		memcpy(v->spec, w.waits[i].spec, sizeof v->spec);
		memcpy(v->label, w.waits[i].label, sizeof v->label);
	}
	return true;
}

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
	int64_t rec = RECORD_HEADER_BYTES + RECORD_STRING_OVERHEAD + o->message_bytes;
	return (rec + o->slot_size - 1) / o->slot_size;
}

/* ------------------------------------------------------------------ one run */

/*
 * The start line: workers announce themselves and wait until main opens it,
 * so that all threads start together (a mutex and condition variable rather
 * than pthread_barrier_t, so that a thread that cannot be created does not
 * strand the others: main opens the gate with abort set).
 */
typedef struct gate {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int ready;     /* workers waiting at the gate */
	bool open;
	bool abort;    /* opened because the run cannot take place */
} gate;

typedef struct worker {
	pthread_t thread;
	int index;
	int64_t calls;
	sr_category *cat;
	const char *msg;
	gate *start;
	/* Written by the worker, read by main after pthread_join (which orders them). */
	int64_t start_ns, end_ns;
} worker;

static void *
worker_main(void *arg)
{
	worker *w = arg;
	char name[16];
	/* A fixed-width name, so that every line has the same length whatever the thread. */
	snprintf(name, sizeof name, "bench-%03d", w->index % 1000);
	sr_log_thread_name(name);
	gate *g = w->start;
	pthread_mutex_lock(&g->lock);
	g->ready++;
	pthread_cond_broadcast(&g->cond);
	while (!g->open)
		pthread_cond_wait(&g->cond, &g->lock);
	bool abort_run = g->abort;
	pthread_mutex_unlock(&g->lock);
	if (abort_run)
		return NULL;
	w->start_ns = bench_now_ns();
	for (int64_t i = 0; i < w->calls; i++)
		SR_INFO(w->cat, "%s", w->msg);
	w->end_ns = bench_now_ns();
	return NULL;
}

static void
log_path(const options *o, int index, const char *what, char *buf, size_t size)
{
	snprintf(buf, size, "%s/seqring-throughput-%ld-%d-%s.log", o->sink_dir, (long)getpid(), index, what);
}

static int64_t
file_size(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 ? (int64_t)st.st_size : -1;
}

/* A logger of one variant, open across runs (or for one run: see keeps_open). */
typedef struct live {
	sr_log *log;
	sr_category *cat;
	char path[PATH_BYTES];
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
	sr_wait_config wc;
	if (sr_wait_config_parse(v->spec, &wc, NULL) != SR_OK)
		return false;
	return wc.kind != SR_WAIT_BUSY_SPIN && wc.kind != SR_WAIT_YIELD;
}

static void
logger_close(live *l)
{
	if (l->log == NULL)
		return;
	sr_log_close(&l->log);
	unlink(l->path);
}

/* Opens a fresh logger on a fresh file and warms it up (logged, then flushed). */
static bool
logger_open(const options *o, const variant *v, int index, const char *msg, live *l, char *err)
{
	log_path(o, index, kind_names[v->kind], l->path, sizeof l->path);
	unlink(l->path);

	sr_sink_config sink = sr_sink_file(l->path);
	sr_log_config c;
	sr_log_config_default(&c);
	c.mode = v->kind == V_RING ? SR_LOG_MODE_RING : v->kind == V_QUEUE ? SR_LOG_MODE_QUEUE
	    : SR_LOG_MODE_SYNC;
	c.full_policy = o->policy;
	c.immediate_flush = o->sync_immediate;
	c.slot_size = (size_t)o->slot_size;
	if (o->capacity > 0) {
		/* The ring counts slots, the queue messages (sr_log_config.ring_slots). */
		c.ring_slots = v->kind == V_RING ? pow2_at_least(o->capacity * slots_per_message(o))
		    : pow2_at_least(o->capacity);
	}
	if (v->kind == V_RING)
		c.wait_strategy = v->spec;
	if ((size_t)o->message_bytes + 256 > c.max_message_bytes)
		c.max_message_bytes = (size_t)o->message_bytes + 256;
	if ((size_t)o->message_bytes + 1024 > c.max_line_bytes)
		c.max_line_bytes = (size_t)o->message_bytes + 1024;
	c.sinks = &sink;
	c.sink_count = 1;
	sr_error e;
	l->log = sr_log_open(&c, &e);
	if (l->log == NULL) {
		snprintf(err, ERR_MAX, "%s/%s: sr_log_open failed: %s", kind_names[v->kind], v->label, e.message);
		return false;
	}
	l->cat = sr_log_category(l->log, "bench.throughput");
	sr_log_thread_name("bench-warm");
	for (int64_t i = 0; i < o->warmup; i++)
		SR_INFO(l->cat, "%s", msg);
	int rc = sr_log_flush(l->log);
	if (rc != SR_OK) {
		snprintf(err, ERR_MAX, "%s/%s: sr_log_flush after the warm-up failed: %s",
		    kind_names[v->kind], v->label, sr_strerror(rc));
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
	if (truncate(l->path, 0) != 0) {
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
	gate start = { .ready = 0, .open = false, .abort = false };
	pthread_mutex_init(&start.lock, NULL);
	pthread_cond_init(&start.cond, NULL);
	int64_t per_thread = o->calls / threads;
	int created = 0;
	int rc;
	for (int t = 0; t < threads; t++) {
		w[t].index = t;
		w[t].calls = per_thread;
		w[t].cat = l->cat;
		w[t].msg = msg;
		w[t].start = &start;
		if ((rc = pthread_create(&w[t].thread, NULL, worker_main, &w[t])) != 0) {
			snprintf(err, ERR_MAX, "cannot start thread %d of %d: %s", t + 1, threads, strerror(rc));
			break;
		}
		created++;
	}
	pthread_mutex_lock(&start.lock);
	while (start.ready < created)
		pthread_cond_wait(&start.cond, &start.lock);
	start.open = true;
	start.abort = created < threads;
	pthread_cond_broadcast(&start.cond);
	pthread_mutex_unlock(&start.lock);
	for (int t = 0; t < created; t++)
		pthread_join(w[t].thread, NULL);
	if (created < threads)
		goto out;
	rc = sr_log_flush(l->log);
	int64_t flushed_ns = bench_now_ns();
	if (rc != SR_OK) {
		snprintf(err, ERR_MAX, "%s/%s: sr_log_flush after the run failed: %s",
		    kind_names[v->kind], v->label, sr_strerror(rc));
		goto out;
	}
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
	int64_t bytes = file_size(l->path);
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
	pthread_cond_destroy(&start.cond);
	pthread_mutex_destroy(&start.lock);
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
	sr_log_config c;
	sr_log_config_default(&c);
	c.mode = SR_LOG_MODE_SYNC;
	if ((size_t)o->message_bytes + 256 > c.max_message_bytes)
		c.max_message_bytes = (size_t)o->message_bytes + 256;
	if ((size_t)o->message_bytes + 1024 > c.max_line_bytes)
		c.max_line_bytes = (size_t)o->message_bytes + 1024;
	c.sinks = &sink;
	c.sink_count = 1;
	sr_error e;
	sr_log *log = sr_log_open(&c, &e);
	if (log == NULL) {
		snprintf(err, ERR_MAX, "probe: sr_log_open failed: %s", e.message);
		return false;
	}
	sr_log_thread_name("bench-000");
	SR_INFO(sr_log_category(log, "bench.throughput"), "%s", msg);
	sr_log_close(&log);
	*bytes = (double)file_size(path);
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
	double tmp[MAX_RUNS];
	memcpy(tmp, c->calls, sizeof(double) * (size_t)c->n);
	c->med_calls = bench_median(tmp, c->n);
	c->min_calls = bench_min(c->calls, c->n);
	c->max_calls = bench_max(c->calls, c->n);
	memcpy(tmp, c->drained, sizeof(double) * (size_t)c->n);
	c->med_drained = bench_median(tmp, c->n);
	memcpy(tmp, c->line_bytes, sizeof(double) * (size_t)c->n);
	c->med_bytes = bench_median(tmp, c->n);
}

static const char *
policy_label(const variant *v, const options *o)
{
	/* Sync mode and the ceiling have no queue, hence no full-queue policy. */
	return v->kind == V_RING || v->kind == V_QUEUE ? sr_log_full_policy_name(o->policy) : "none";
}

static int
find_kind(const variant *vars, int nvars, enum vkind kind)
{
	for (int i = 0; i < nvars; i++)
		if (vars[i].kind == kind)
			return i;
	return -1;
}

static int
find_threads(const options *o, int threads)
{
	for (int i = 0; i < o->nthreads; i++)
		if (o->threads[i] == threads)
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

int
main(int argc, char **argv)
{
	options o;
	memset(&o, 0, sizeof o);
	char err[ERR_MAX] = "";
	parse_threads("1,2,4,8,16,32,64", &o, err);
	parse_modes("all", &o, err);
	o.calls = 256 * 1024;
	o.message_bytes = 500;
	o.warmup = 200000;
	o.runs = 5;
	o.policy = SR_LOG_FULL_BLOCK;
	o.capacity = -1; /* run */
	o.slot_size = 128;
	o.sink_dir = "/tmp";
	o.out = "perf/results/throughput.csv";
	const char *wait_list = "default";
	bool quick = false, threads_given = false, calls_given = false, warmup_given = false,
	     runs_given = false;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *val = i + 1 < argc ? argv[i + 1] : NULL;
		int64_t n;
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			usage(stdout);
			return 0;
		} else if (strcmp(a, "--quick") == 0) {
			quick = true;
			continue;
		} else if (strcmp(a, "--quiet") == 0) {
			bench_quiet = true;
			continue;
		} else if (strcmp(a, "--truncate") == 0) {
			o.truncate = true;
			continue;
		} else if (val == NULL) {
			fprintf(stderr, "%s: %s: unknown option or missing value\n", PROG, a);
			usage(stderr);
			return 2;
		}
		i++;
		if (strcmp(a, "--threads") == 0) {
			if (!parse_threads(val, &o, err))
				goto bad;
			threads_given = true;
		} else if (strcmp(a, "--modes") == 0) {
			if (!parse_modes(val, &o, err))
				goto bad;
		} else if (strcmp(a, "--wait") == 0) {
			wait_list = val;
		} else if (strcmp(a, "--calls") == 0) {
			if (!bench_parse_count(val, &o.calls) || o.calls > INT64_C(1) << 40) {
				snprintf(err, ERR_MAX, "--calls '%s' is invalid: expected a count from 1 to 2^40", val);
				goto bad;
			}
			calls_given = true;
		} else if (strcmp(a, "--message-bytes") == 0) {
			if (!bench_parse_count(val, &o.message_bytes) || o.message_bytes > MAX_MESSAGE_BYTES) {
				snprintf(err, ERR_MAX, "--message-bytes '%s' is invalid: expected 1 to %d", val,
				    MAX_MESSAGE_BYTES);
				goto bad;
			}
		} else if (strcmp(a, "--warmup") == 0) {
			if (!parse_count0(val, &o.warmup)) {
				snprintf(err, ERR_MAX, "--warmup '%s' is invalid: expected a count (0 for none)", val);
				goto bad;
			}
			warmup_given = true;
		} else if (strcmp(a, "--runs") == 0) {
			if (!bench_parse_count(val, &n) || n > MAX_RUNS) {
				snprintf(err, ERR_MAX, "--runs '%s' is invalid: expected 1 to %d", val, MAX_RUNS);
				goto bad;
			}
			o.runs = (int)n;
			runs_given = true;
		} else if (strcmp(a, "--sync-flush") == 0) {
			if (strcmp(val, "buffered") == 0 || strcmp(val, "immediate") == 0) {
				o.sync_immediate = strcmp(val, "immediate") == 0;
			} else {
				snprintf(err, ERR_MAX, "--sync-flush '%s' is invalid: expected buffered or immediate", val);
				goto bad;
			}
		} else if (strcmp(a, "--policy") == 0) {
			sr_error e;
			if (sr_log_full_policy_parse(val, &o.policy, &e) != SR_OK) {
				snprintf(err, ERR_MAX, "--policy '%s' is invalid: %s", val, e.message);
				goto bad;
			}
		} else if (strcmp(a, "--capacity") == 0) {
			if (strcmp(val, "run") == 0) {
				o.capacity = -1;
			} else if (strcmp(val, "logger") == 0) {
				o.capacity = 0;
			} else if (!bench_parse_count(val, &o.capacity) || o.capacity > INT64_C(1) << 30) {
				snprintf(err, ERR_MAX, "--capacity '%s' is invalid: expected run, logger or a "
				    "message count from 1 to 2^30", val);
				goto bad;
			}
		} else if (strcmp(a, "--slot-size") == 0) {
			if (!bench_parse_count(val, &o.slot_size) || o.slot_size < 64 || o.slot_size > 65536 ||
			    (o.slot_size & (o.slot_size - 1)) != 0) {
				snprintf(err, ERR_MAX, "--slot-size '%s' is invalid: expected a power of two "
				    "from 64 to 65536", val);
				goto bad;
			}
		} else if (strcmp(a, "--sink-dir") == 0) {
			o.sink_dir = val;
		} else if (strcmp(a, "--out") == 0) {
			o.out = val;
		} else {
			snprintf(err, ERR_MAX, "%s: unknown option", a);
			usage(stderr);
			goto bad;
		}
	}
	if (quick) {
		if (!threads_given)
			parse_threads("1,2,4", &o, err);
		if (!calls_given)
			o.calls = 2000;
		if (!warmup_given)
			o.warmup = 1000;
		if (!runs_given)
			o.runs = 1;
	}
	if (!parse_waits(wait_list, &o, err))
		goto bad;
	for (int i = 0; i < o.nthreads; i++) {
		if (o.calls < o.threads[i]) {
			snprintf(err, ERR_MAX, "--calls %" PRId64 " is less than the thread count %d: every "
			    "thread needs at least one call", o.calls, o.threads[i]);
			goto bad;
		}
	}
	if (o.capacity < 0)
		o.capacity = o.calls;
	if (o.capacity > 0 && o.capacity * slots_per_message(&o) > (INT64_C(1) << 30)) {
		snprintf(err, ERR_MAX, "--capacity %" PRId64 " needs %" PRId64 " ring slots of %" PRId64
		    " bytes: more than 2^30", o.capacity, o.capacity * slots_per_message(&o), o.slot_size);
		goto bad;
	}
	if (strlen(o.sink_dir) > SINK_DIR_MAX) {
		snprintf(err, ERR_MAX, "--sink-dir '%.40s...' is too long: at most %d bytes", o.sink_dir,
		    SINK_DIR_MAX);
		goto bad;
	}
	if (access(o.sink_dir, W_OK | X_OK) != 0) {
		snprintf(err, ERR_MAX, "--sink-dir '%.256s' is not a writable directory: %s", o.sink_dir,
		    strerror(errno));
		goto bad;
	}

	/* The variants, in the order each repetition runs them. */
	static variant vars[MAX_VARIANTS];
	int nvars = 0;
	if (o.want[V_RING])
		for (int w = 0; w < o.nwaits; w++)
			vars[nvars++] = o.waits[w];
	for (int k = V_QUEUE; k < V_KIND_COUNT; k++) {
		if (!o.want[k])
			continue;
		memset(&vars[nvars], 0, sizeof vars[nvars]);
		vars[nvars].kind = (enum vkind)k;
		strcpy(vars[nvars].label, "none");
		nvars++;
	}
	if (nvars == 0) {
		snprintf(err, ERR_MAX, "--modes selects nothing to run");
		goto bad;
	}

	/* The logged string: built once, printable, exactly message_bytes characters. */
	char *msg = malloc((size_t)o.message_bytes + 1);
	if (msg == NULL) {
		fprintf(stderr, "%s: out of memory\n", PROG);
		return 1;
	}
	for (int64_t i = 0; i < o.message_bytes; i++)
		msg[i] = (char)('A' + i % 26);
	msg[o.message_bytes] = '\0';

	double probe_bytes = 0;
	bool logger_modes = o.want[V_RING] || o.want[V_QUEUE] || o.want[V_SYNC];
	if (o.want[V_CEILING] && !logger_modes && !probe_line_bytes(&o, msg, &probe_bytes, err)) {
		fprintf(stderr, "%s: %s\n", PROG, err);
		return 1;
	}

	static cell cells[MAX_VARIANTS][MAX_THREAD_COUNTS];
	static live lives[MAX_VARIANTS];
	int failures = 0;
	int64_t t_begin = bench_now_ns();
	for (int ti = 0; ti < o.nthreads; ti++) {
		int threads = o.threads[ti];
		int64_t per_run = o.calls / threads * threads;
		for (int run = 0; run < o.runs; run++) {
			double bytes_sum = 0;
			int bytes_n = 0;
			for (int vi = 0; vi < nvars; vi++) {
				variant *v = &vars[vi];
				cell *c = &cells[vi][ti];
				char name[96];
				if (v->kind == V_RING)
					snprintf(name, sizeof name, "ring/%s", v->label);
				else
					snprintf(name, sizeof name, "%s", kind_names[v->kind]);
				result r;
				bool ok;
				err[0] = '\0';
				if (v->kind == V_CEILING) {
					bench_progress("%s: %s threads=%d run %d/%d", PROG, name, threads, run + 1, o.runs);
					double b = bytes_n > 0 ? bytes_sum / bytes_n : probe_bytes;
					if (b <= 0 && !probe_line_bytes(&o, msg, &probe_bytes, err)) {
						ok = false;
					} else {
						if (b <= 0)
							b = probe_bytes;
						ok = run_ceiling(&o, per_run, (int64_t)(b + 0.5), &r, err);
					}
				} else {
					live *l = &lives[vi];
					ok = true;
					if (l->log == NULL) {
						bench_progress("%s: %s open and warm-up (%" PRId64 " messages)", PROG, name,
						    o.warmup);
						ok = logger_open(&o, v, vi, msg, l, err);
					}
					if (ok) {
						bench_progress("%s: %s threads=%d run %d/%d", PROG, name, threads, run + 1,
						    o.runs);
						ok = run_logger(&o, v, l, threads, msg, &r, err);
					}
					/* A failed run may leave the logger in any state: the next run gets a new one. */
					if (!ok || !keeps_open(v))
						logger_close(l);
					if (ok) {
						bytes_sum += r.line_bytes;
						bytes_n++;
					}
				}
				if (!ok) {
					fprintf(stderr, "%s: %s\n", PROG, err);
					c->failed = true;
					failures++;
					continue;
				}
				c->calls[c->n] = r.calls_per_sec;
				c->drained[c->n] = r.drained_per_sec;
				c->line_bytes[c->n] = r.line_bytes;
				c->dropped += r.dropped;
				c->n++;
			}
		}
	}
	for (int vi = 0; vi < nvars; vi++)
		logger_close(&lives[vi]);
	double elapsed = (double)(bench_now_ns() - t_begin) / 1e9;
	for (int vi = 0; vi < nvars; vi++)
		for (int ti = 0; ti < o.nthreads; ti++)
			summarize(&cells[vi][ti]);

	/* CSV: appended, header when the file is new or empty, or with --truncate. */
	FILE *csv = bench_open_csv(o.out, o.truncate, "mode,wait,policy,threads,message_bytes,"
	    "calls_per_sec,drained_per_sec,runs,min_calls_per_sec,max_calls_per_sec\n", err, ERR_MAX);
	if (csv == NULL) {
		fprintf(stderr, "%s: %s\n", PROG, err);
		return 1;
	}
	for (int vi = 0; vi < nvars; vi++) {
		for (int ti = 0; ti < o.nthreads; ti++) {
			const cell *c = &cells[vi][ti];
			if (c->n == 0)
				continue;
			fprintf(csv, "%s,%s,%s,%d,%" PRId64 ",%.0f,%.0f,%d,%.0f,%.0f\n", kind_names[vars[vi].kind],
			    vars[vi].label, policy_label(&vars[vi], &o), o.threads[ti], o.message_bytes,
			    c->med_calls, c->med_drained, c->n, c->min_calls, c->max_calls);
		}
	}
	if (fclose(csv) != 0) {
		fprintf(stderr, "%s: --out '%s': write failed: %s\n", PROG, o.out, strerror(errno));
		return 1;
	}

	/* Markdown on stdout. */
	int qi = find_kind(vars, nvars, V_QUEUE);
	int ci = find_kind(vars, nvars, V_CEILING);
	double line_bytes = 0;
	for (int vi = 0; vi < nvars && line_bytes == 0; vi++)
		if (vars[vi].kind != V_CEILING)
			for (int ti = 0; ti < o.nthreads && line_bytes == 0; ti++)
				line_bytes = cells[vi][ti].med_bytes;
	if (line_bytes == 0)
		line_bytes = probe_bytes;
	char b1[32], b2[32], b3[32], b4[32];
	printf("## Logger throughput, Log4j 2's method (`perf/throughput`)\n\n");
	printf("- Each of T threads makes %" PRId64 " / T calls of `SR_INFO(cat, \"%%s\", msg)` with one "
	    "%" PRId64 "-character string (the format has a single %%s; the text layout makes each line "
	    "about %.0f bytes); all threads start together at a gate.\n", o.calls, o.message_bytes, line_bytes);
	printf("- Each mode's logger is opened once (busyspin and yield consumers, which spin while "
	    "idle, once per run), writes to a file under %s, and is warmed up with %" PRId64 " messages "
	    "and `sr_log_flush`; each run truncates the file first. %d run%s per thread count, modes "
	    "interleaved within each run (", o.sink_dir, o.warmup, o.runs, o.runs == 1 ? "" : "s");
	for (int vi = 0; vi < nvars; vi++)
		printf("%s%s", vi ? ", " : "", kind_names[vars[vi].kind]);
	printf("); median, with min-max of the call-phase rate.\n");
	printf("- calls/s: all calls over the call phase, first thread's first call to last thread's "
	    "last return (what the Log4j manual reports; total of all threads, not per thread). "
	    "drained/s: messages in the file over the call phase plus `sr_log_flush`.\n");
	printf("- ceiling: the same number of lines of the same length written with `fwrite` through "
	    "a 64 KiB stdio buffer to a fresh file, one thread, no formatting.\n");
	if (o.want[V_SYNC])
		printf("- sync: %s.\n", o.sync_immediate ?
		    "immediate_flush (a write(2) per line before the call returns, the logger's default)" :
		    "immediate_flush off (lines written when the sink's 64 KiB buffer fills and at the "
		    "flush, as Log4j 2's synchronous appenders in its test, immediateFlush=\"false\")");
	if (o.capacity > 0)
		printf("- Capacity: the ring has %" PRId64 " slots of %" PRId64 " B (a message takes %" PRId64
		    " slots: room for %" PRId64 " messages), the queue %" PRId64 " messages: a whole run "
		    "fits, as in Log4j 2's test. Full-queue policy: %s.\n",
		    pow2_at_least(o.capacity * slots_per_message(&o)), o.slot_size, slots_per_message(&o),
		    pow2_at_least(o.capacity * slots_per_message(&o)) / slots_per_message(&o),
		    pow2_at_least(o.capacity), sr_log_full_policy_name(o.policy));
	else
		printf("- Capacity: the logger's defaults (ring 262,144 slots of 128 B: room for about "
		    "%" PRId64 " such messages; queue 262,144 messages). Full-queue policy: %s.\n",
		    (int64_t)262144 / slots_per_message(&o), sr_log_full_policy_name(o.policy));
	printf("\n| mode | wait | threads | calls/s (median) | min - max | drained/s (median) | "
	    "calls vs queue | drained vs ceiling |\n");
	printf("|---|---|---:|---:|---:|---:|---:|---:|\n");
	for (int ti = 0; ti < o.nthreads; ti++) {
		for (int vi = 0; vi < nvars; vi++) {
			const cell *c = &cells[vi][ti];
			if (c->n == 0) {
				printf("| %s | %s | %d | failed | | | | |\n", kind_names[vars[vi].kind],
				    vars[vi].label, o.threads[ti]);
				continue;
			}
			char rq[32] = "", rc[32] = "";
			if (qi >= 0 && cells[qi][ti].n > 0 && vars[vi].kind != V_CEILING)
				snprintf(rq, sizeof rq, "%.2fx", c->med_calls / cells[qi][ti].med_calls);
			if (ci >= 0 && cells[ci][ti].n > 0)
				snprintf(rc, sizeof rc, "%.2fx", c->med_drained / cells[ci][ti].med_drained);
			printf("| %s | %s | %d | %s | %s - %s | %s | %s | %s |\n", kind_names[vars[vi].kind],
			    vars[vi].label, o.threads[ti], bench_fmt_rate(c->med_calls, b1, sizeof b1),
			    bench_fmt_rate(c->min_calls, b2, sizeof b2), bench_fmt_rate(c->max_calls, b3, sizeof b3),
			    bench_fmt_rate(c->med_drained, b4, sizeof b4), rq, rc);
		}
	}

	/* The manual's shape: one line per logger, one column per thread count. */
	for (int pass = 0; pass < 2; pass++) {
		printf("\n%s (median, messages/s, all threads together)\n\n| logger |",
		    pass == 0 ? "Call-phase rate" : "Drained rate");
		for (int ti = 0; ti < o.nthreads; ti++)
			printf(" %d thread%s |", o.threads[ti], o.threads[ti] == 1 ? "" : "s");
		printf("\n|---|");
		for (int ti = 0; ti < o.nthreads; ti++)
			printf("---:|");
		printf("\n");
		for (int vi = 0; vi < nvars; vi++) {
			if (vars[vi].kind == V_RING)
				printf("| ring/%s |", vars[vi].label);
			else
				printf("| %s |", kind_names[vars[vi].kind]);
			for (int ti = 0; ti < o.nthreads; ti++) {
				const cell *c = &cells[vi][ti];
				printf(" %s |", c->n == 0 ? "failed"
				    : bench_fmt_rate(pass == 0 ? c->med_calls : c->med_drained, b1, sizeof b1));
			}
			printf("\n");
		}
	}

	/* Issue 6's targets, for the first ring strategy (the logger's default unless --wait says otherwise). */
	int ri = find_kind(vars, nvars, V_RING);
	if (ri >= 0) {
		int t1 = find_threads(&o, 1), t64 = find_threads(&o, 64);
		if (qi >= 0 && t1 >= 0 && cells[ri][t1].n > 0 && cells[qi][t1].n > 0)
			print_target(vars[ri].label, "call phase, 1 thread, vs queue",
			    cells[ri][t1].med_calls / cells[qi][t1].med_calls, 5.0, "");
		if (qi >= 0 && t64 >= 0 && cells[ri][t64].n > 0 && cells[qi][t64].n > 0)
			print_target(vars[ri].label, "call phase, 64 threads, vs queue",
			    cells[ri][t64].med_calls / cells[qi][t64].med_calls, 3.0, "");
		if (t1 >= 0 && cells[ri][t1].n > 0 && o.nthreads > 1) {
			/* No collapse: every thread count within 2x of the 1-thread rate. */
			double worst = 1e300;
			int at = 0;
			for (int ti = 0; ti < o.nthreads; ti++) {
				if (cells[ri][ti].n == 0)
					continue;
				double r = cells[ri][ti].med_calls / cells[ri][t1].med_calls;
				if (r < worst) {
					worst = r;
					at = o.threads[ti];
				}
			}
			char where[48];
			snprintf(where, sizeof where, " (worst: %d threads)", at);
			print_target(vars[ri].label, "call phase, every thread count vs 1 thread", worst, 0.5, where);
		}
		if (ci >= 0) {
			double worst = 1e300;
			int at = 0;
			for (int ti = 0; ti < o.nthreads; ti++) {
				if (cells[ri][ti].n == 0 || cells[ci][ti].n == 0)
					continue;
				double r = cells[ri][ti].med_drained / cells[ci][ti].med_drained;
				if (r < worst) {
					worst = r;
					at = o.threads[ti];
				}
			}
			if (at > 0) {
				char where[48];
				snprintf(where, sizeof where, " (worst: %d threads)", at);
				print_target(vars[ri].label, "drained rate vs ceiling", worst, 0.9, where);
			}
		}
	}
	/* Dropped messages are not in the file: drained/s counts only what was written. */
	for (int vi = 0; vi < nvars; vi++)
		for (int ti = 0; ti < o.nthreads; ti++)
			if (cells[vi][ti].dropped > 0)
				printf("\n%s/%s, %d threads: %" PRId64 " messages dropped over %d runs (policy %s)\n",
				    kind_names[vars[vi].kind], vars[vi].label, o.threads[ti], cells[vi][ti].dropped,
				    cells[vi][ti].n, sr_log_full_policy_name(o.policy));
	if (failures > 0)
		printf("\n%d run%s failed (see stderr).\n", failures, failures == 1 ? "" : "s");
	fflush(stdout);
	bench_progress("%s: done in %.1f s; CSV rows appended to %s", PROG, elapsed, o.out);
	free(msg);
	return failures > 0 ? 1 : 0;
bad:
	fprintf(stderr, "%s: %s\n", PROG, err);
	return 2;
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * caller.c: perf/caller, what one log call costs the thread that makes it.
 *
 * The call: SR_INFO(cat, "x=%d y=%f s=%s", i, d, s) with a 16-byte string,
 * the consumer writing the text layout to /dev/null.  Every call is timed on
 * its own with the time-stamp counter (lfence; rdtsc; lfence on both sides),
 * so the table has a distribution (p50, p99, p99.9), not an average.
 *
 * Rows, run interleaved (one batch of each per round, --runs rounds):
 *   empty     two timer reads with nothing between: the timer's own cost,
 *             which every other row includes (the "net" columns subtract its p50)
 *   clock     the timer around one read of the TSC as a log call makes it
 *             (rdtsc, its two halves stored): the floor of any call that
 *             stamps its record with the TSC, whatever else it does
 *   bare      the ring alone: multi-producer claim of one 128-byte slot, a
 *             copy of the same number of bytes the logger's record takes,
 *             publish; a consumer thread with the logger's default wait
 *             strategy reads every record.  The floor for a ring-based logger.
 *   ring-va   the logger, mode ring, through sr_log_emit (the variadic entry:
 *             arguments gathered from a va_list by the site's signature, as
 *             every call was before the macros typed their arguments)
 *   ring      the logger, mode ring (the default), default wait strategy,
 *             producer shared (one multi-producer ring)
 *   per-thread  the same with producer per_thread, the default (a
 *             single-producer ring per calling thread, merged by the
 *             consumer), the thread's ring of the logger's default size
 *   per-thread-dir  the same with a ring directory (config.ring_dir): the
 *             thread's ring a file, mapped shared, in a directory made
 *             fresh for the run (under --ring-dir, default /tmp) and
 *             removed at the end; the same call, its own call site
 *   queue     the logger, mode queue (caller formats, mutex + condvar queue)
 *   sync      the logger, mode sync (caller formats and writes under a mutex)
 *   disabled  SR_DEBUG on a category at info: the call the level check
 *             rejects, timed over blocks of 1,000 calls (one call is far
 *             below the timer's resolution), ns per call
 *
 * Calls come in bursts of --burst (default 1,000) back to back; between
 * bursts, untimed, the harness waits until the consumer has handled
 * everything, so a burst never finds the ring or queue full: this measures
 * the call, not the consumer's speed (perf/throughput measures that).  The
 * consumer stays awake between bursts (its wait strategy spins first), which
 * is the case the caller's target is about.
 *
 * --count MODE N: make N calls of MODE (ring, ring-va, per-thread, per-thread-dir, bare,
 * disabled, site-off: an SR_INFO on the per-thread logger's category at info whose site a
 * run-time rule switched off (sr_log_sites.h), site-limit: the same call at a site whose limit by
 * rule ("once") suppresses every counted call, kv3: per-thread's call with its three values as
 * key-value fields (SR_KV), or loop: the empty loop; or a rate-limited
 * call, sr_log_limit.h, on the per-thread
 * logger: limit-once, limit-every-n and limit-rate, sites that suppress every counted call,
 * and limit-every-1 and limit-rate-open, sites that write every one) in a function of its own
 * and exit, for callgrind:
 * perf/run_bench.sh runs
 *   valgrind --tool=callgrind --toggle-collect='counted_calls_*' caller --count ring N
 * and divides the instructions by N (instructions are stable where time is not).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_args.h"
#include "bench_output.h"
#include "bench_stats.h"
#include <seqring/sr_log.h>
#include "sr_fmt_internal.h"
#include <seqring/sr_processor.h>
#include <seqring/sr_time.h>

#define PROG "caller"
#define MAX_RUNS BENCH_MAX_RUNS
#define ERR_MAX 512
/* sr_log_rec, the record header (sr_log_internal.h), as perf/throughput counts it. */
#define RECORD_HEADER_BYTES 56
#define DISABLED_BLOCK 1000
#define CALL_FORMAT "x=%d y=%f s=%s"

enum row { ROW_EMPTY, ROW_CLOCK, ROW_BARE, ROW_BARE_EAGER, ROW_RING_VA, ROW_RING, ROW_PER_THREAD,
	ROW_PER_THREAD_DIR, ROW_QUEUE, ROW_SYNC, ROW_SYNC_BUFFERED, ROW_DISABLED, ROW_COUNT };
static const char *const row_names[ROW_COUNT] = { "empty", "clock", "bare", "bare-eager", "ring-va", "ring",
	"per-thread", "per-thread-dir", "queue", "sync", "sync-buffered", "disabled" };
static const char *const row_calls[ROW_COUNT] = {
	"(timer only)",
	"rdtsc, its halves stored (a log call's clock read)",
	"claim 1 slot + copy record bytes + publish",
	"the same, consumer only reads",
	"sr_log_emit(c, site, \"" "x=%d y=%f s=%s" "\", i, d, s): va_list path",
	"SR_INFO(c, \"" "x=%d y=%f s=%s" "\", i, d, s), producer shared",
	"the same, producer per_thread (the default)",
	"the same, per_thread, its ring a file in a ring directory",
	"SR_INFO(c, \"" "x=%d y=%f s=%s" "\", i, d, s)",
	"SR_INFO(c, \"" "x=%d y=%f s=%s" "\", i, d, s)",
	"the same, immediate_flush off",
	"SR_DEBUG(c, ...) at level info",
};

typedef struct options {
	int runs;
	int64_t calls;      /* timed calls per row per run */
	int64_t burst;
	bool rows[ROW_COUNT];
	const char *out;
	bool truncate;
	const char *count_mode;
	int64_t count_calls;
	bool calls_given, runs_given;   /* --quick leaves these alone */
	sr_log_clock clock;
	bool clock_set;
	int64_t thread_ring_slots;  /* 0: the logger's default */
	int64_t slot_size;          /* 0: the logger's default */
	bool runtime_string;        /* --string runtime: s read through a volatile pointer */
	int limit;                  /* --count limit-*: the rate-limited call (enum limit_call) */
	const char *ring_dir_parent;  /* --ring-dir: where per-thread-dir's directory is made */
} options;

/* ------------------------------------------------------------------ timer */

/* The TSC fenced on both sides (base/sr_time.h): earlier instructions are done, later ones not started. */
static inline uint64_t
timer_read(void)
{
#if SR_HAVE_TSC
	return (uint64_t)sr_tsc_read_fenced();
#else
	return (uint64_t)sr_monotonic_ns();
#endif
}

/* Timer ticks per nanosecond, measured against CLOCK_MONOTONIC over about 200 ms; 0 with err. */
static double
timer_ticks_per_ns(char *err)
{
#if SR_HAVE_TSC
	double ticks_per_ns;
	sr_error e;
	if (sr_tsc_calibrate(INT64_C(200) * 1000 * 1000, &ticks_per_ns, &e) != SR_OK) {
		snprintf(err, ERR_MAX, "%s", e.message);
		return 0;
	}
	return ticks_per_ns;
#else
	(void)err;
	return 1.0;
#endif
}

/* ------------------------------------------------------------- the call */

static const char call_string[] = "0123456789abcdef";  /* 16 bytes */
/*
 * --string runtime: the same characters through a pointer the compiler cannot
 * see through, as a program's strings mostly are (a name, a path): measured
 * and copied at run time.  By default the compiler knows the string (a const
 * array, as a literal), as the C++ loggers' harnesses give theirs.
 */
static const char *volatile runtime_string = call_string;

/* A ring alone: what the logger's ring mode is built on (rows bare and bare-eager). */
typedef struct bare_ring {
	sr_ring *ring;
	sr_sequencer *seq;
	sr_processor *proc;
	bool eager;
	int devnull;
	int64_t last;         /* the producer's last published sequence */
	uint64_t sum;         /* the consumer's; read after a drain */
	size_t buf_len;       /* the consumer's */
	char buf[64 * 1024];
} bare_ring;

typedef struct harness {
	sr_log *log[ROW_COUNT];
	sr_category *cat[ROW_COUNT];
	bare_ring *bare[ROW_COUNT];
	unsigned char record[256];
	size_t record_bytes;
	int value;
	uint32_t clock_lo, clock_hi;  /* the clock row's reading (stored: it is not optimised out) */
	char ring_dir[PATH_MAX];      /* per-thread-dir's ring directory, made by open_logger; "" if none */
} harness;

/*
 * The bare ring's record: the logger's record size, with the call's
 * arguments at fixed places (the rest of the bytes stand for the header).
 */
enum { BARE_SIZE = 0, BARE_I = 8, BARE_D = 16, BARE_S = 24 };

/*
 * bare's consumer formats each record with snprintf and writes to /dev/null
 * at the end of each batch, as a minimal logger's consumer would: it takes
 * about as long per record as the logger's, so it trails the producer as the
 * logger's does.  bare-eager's consumer only reads the record: it stays right
 * behind the producer, and the cache lines they share (the slot, the
 * availability flags) bounce between the two cores on every call.
 */
static int
bare_on_event(void *ctx, void *slot, int64_t sequence, bool end_of_batch)
{
	bare_ring *h = ctx;
	const unsigned char *p = slot;
	uint32_t size;
	memcpy(&size, p + BARE_SIZE, sizeof size);
	if (h->eager) {
		h->sum += size + p[size - 1];
	} else {
		int i;
		double d;
		memcpy(&i, p + BARE_I, sizeof i);
		memcpy(&d, p + BARE_D, sizeof d);
		char *line = h->buf + h->buf_len;
		int n = snprintf(line, sizeof h->buf - h->buf_len, CALL_FORMAT "\n", i, d,
		    (const char *)p + BARE_S);
		if (n > 0 && (size_t)n < sizeof h->buf - h->buf_len)
			h->buf_len += (size_t)n;
		if (end_of_batch || sizeof h->buf - h->buf_len < 256) {
			/* /dev/null takes everything; a failure would only change a sum nobody checks */
			if (write(h->devnull, h->buf, h->buf_len) < 0)
				h->sum = 0;
			h->buf_len = 0;
		}
		h->sum += size;
	}
	(void)sequence;
	return 0;
}

static inline void
bare_call(harness *h, bare_ring *b)
{
	int i = h->value++;
	double d = i * 0.5;
	int64_t s;
	sr_sequencer_claim(b->seq, &s);
	unsigned char *slot = sr_ring_slot(b->ring, s);
	memcpy(slot, h->record, h->record_bytes);
	memcpy(slot + BARE_I, &i, sizeof i);
	memcpy(slot + BARE_D, &d, sizeof d);
	memcpy(slot + BARE_S, call_string, sizeof call_string);
	sr_sequencer_publish(b->seq, s);
	b->last = s;
}

/*
 * NAME(h, c): one call of the measured message, with its string read by
 * STRING (call_string: a const array the compiler sees; the volatile
 * runtime_string: read at run time, --string runtime).  Each NAME is a call
 * site of its own.  Always inlined, as the macro is at a user's call site
 * (where there is no function of its own to call): left to itself the
 * compiler keeps this out of line (the macro's inline call makes it large),
 * and the figures would count a call, a return and the register saves of a
 * function the user never has.  perf/peers/cxx's harnesses get the same
 * from their compilers.
 */
#define DEFINE_LOG_CALL(NAME, STRING) \
	static inline __attribute__((always_inline)) void \
	NAME(harness *h, sr_category *c) \
	{ \
		int i = h->value++; \
		const char *s = (STRING); \
		SR_INFO(c, CALL_FORMAT, i, i * 0.5, s); \
	}

/* The shared ring's row (and the queue and sync rows, which have no inline call). */
DEFINE_LOG_CALL(log_call, call_string)
DEFINE_LOG_CALL(log_call_runtime_string, runtime_string)
/*
 * The per-thread row's, at sites of their own, as in a program whose
 * loggers each have their own sites: a site's first category is its home
 * category, and a call through another one writes a longer record
 * (sr_log_fast.h), so a site shared with the ring row would measure that.
 */
DEFINE_LOG_CALL(log_call_per_thread, call_string)
DEFINE_LOG_CALL(log_call_per_thread_runtime_string, runtime_string)
/* The per-thread-dir row's, for the same reason: its logger's category is another one again. */
DEFINE_LOG_CALL(log_call_per_thread_dir, call_string)
DEFINE_LOG_CALL(log_call_per_thread_dir_runtime_string, runtime_string)

/* The call of a logger's row (ring, per-thread, per-thread-dir, queue, sync, sync-buffered) at the row's site. */
static inline __attribute__((always_inline)) void
row_log_call(harness *h, int row, sr_category *c, bool runtime)
{
	if (row == ROW_PER_THREAD_DIR && runtime)
		log_call_per_thread_dir_runtime_string(h, c);
	else if (row == ROW_PER_THREAD_DIR)
		log_call_per_thread_dir(h, c);
	else if (row == ROW_PER_THREAD && runtime)
		log_call_per_thread_runtime_string(h, c);
	else if (row == ROW_PER_THREAD)
		log_call_per_thread(h, c);
	else if (runtime)
		log_call_runtime_string(h, c);
	else
		log_call(h, c);
}

/* ring-va's call: the variadic entry, as every macro call was before arguments were typed. */
static sr_site va_site = { .format = CALL_FORMAT, .file = __FILE__, .function = "log_call_va",
	.line = __LINE__, .level = SR_LOG_INFO };

static inline void
log_call_va(harness *h, sr_category *c)
{
	int i = h->value++;
	if (SR_LOG_ENABLED(c, SR_LOG_INFO))
		sr_log_emit(c, &va_site, CALL_FORMAT, i, i * 0.5, call_string);
}

/*
 * The arguments are not evaluated when the level is off: h->value stays put.
 * Always inlined, as the macro is at a user's call site: the compiler would
 * otherwise keep this function out of line (the macro's inline call makes it
 * large) and count a call and return with the check.
 */
static inline __attribute__((always_inline)) void
disabled_call(harness *h, sr_category *c)
{
	SR_DEBUG(c, CALL_FORMAT, h->value++, 0.5, call_string);
}

/* --count site-off: a call its level lets through, at a site the rule SITE_OFF_RULE switched off. */
#define SITE_OFF_RULE "func site_off_call -fatal"
static inline __attribute__((always_inline)) void
site_off_call(harness *h, sr_category *c)
{
	SR_INFO(c, CALL_FORMAT, h->value++, 0.5, call_string);
}

/*
 * --count kv3: the per-thread row's call with its three values as key-value fields (SR_KV)
 * instead of format arguments: an int, a double and the 16-character constant string.
 */
static inline __attribute__((always_inline)) void
kv3_call(harness *h, sr_category *c)
{
	int i = h->value++;
	SR_INFO(c, "order filled", SR_KV("x", i), SR_KV("y", i * 0.5), SR_KV("s", call_string));
}

/* --count site-limit: a site whose limit by rule (SITE_LIMIT_RULE) suppresses every counted call. */
#define SITE_LIMIT_RULE "func site_limit_call once"
static inline __attribute__((always_inline)) void
site_limit_call(harness *h, sr_category *c)
{
	SR_INFO(c, CALL_FORMAT, h->value++, 0.5, call_string);
}

/*
 * The rate-limited calls of --count limit-* (sr_log_limit.h), each a site of its own on the
 * per-thread row's logger.  Those that suppress take their arguments as disabled_call does
 * (h->value++ inside the call: a suppressed call evaluates none), so that the count is the
 * limiter's alone: the level check, the limiter's decision, the count.  Those that write every
 * call are the per-thread row's call behind a limiter that admits it.
 */
enum limit_call { LIMIT_NONE, LIMIT_ONCE, LIMIT_EVERY_N, LIMIT_RATE, LIMIT_EVERY_1, LIMIT_RATE_OPEN };
static const char *const limit_modes[] = { "", "limit-once", "limit-every-n", "limit-rate",
	"limit-every-1", "limit-rate-open" };

/* Suppresses every call after the first. */
static inline __attribute__((always_inline)) void
limit_once_call(harness *h, sr_category *c)
{
	SR_INFO_ONCE(c, CALL_FORMAT, h->value++, 0.5, call_string);
}

/* Writes 1 call in 2^30: every counted call is suppressed. */
static inline __attribute__((always_inline)) void
limit_every_n_call(harness *h, sr_category *c)
{
	SR_INFO_EVERY_N(c, 1 << 30, CALL_FORMAT, h->value++, 0.5, call_string);
}

/* One a second, a burst of 1: the warm-up call takes the token, the counted ones find none. */
static inline __attribute__((always_inline)) void
limit_rate_call(harness *h, sr_category *c)
{
	SR_INFO_LIMIT(c, 1, 1, CALL_FORMAT, h->value++, 0.5, call_string);
}

/* n = 1: every call written, through the limiter's ticket. */
static inline __attribute__((always_inline)) void
limit_every_1_call(harness *h, sr_category *c)
{
	int i = h->value++;
	const char *s = call_string;
	SR_INFO_EVERY_N(c, 1, CALL_FORMAT, i, i * 0.5, s);
}

/* A bucket that never runs dry: every call written, through the limiter's CAS. */
static inline __attribute__((always_inline)) void
limit_rate_open_call(harness *h, sr_category *c)
{
	int i = h->value++;
	const char *s = call_string;
	SR_INFO_LIMIT(c, 1000000000, 1000000000, CALL_FORMAT, i, i * 0.5, s);
}

static inline __attribute__((always_inline)) void
limit_call(harness *h, int limit, sr_category *c)
{
	switch (limit) {
	case LIMIT_ONCE: limit_once_call(h, c); break;
	case LIMIT_EVERY_N: limit_every_n_call(h, c); break;
	case LIMIT_RATE: limit_rate_call(h, c); break;
	case LIMIT_EVERY_1: limit_every_1_call(h, c); break;
	default: limit_rate_open_call(h, c); break;
	}
}

/* Waits (untimed) until the row's consumer has handled every call so far. */
static void
drain(harness *h, int row)
{
	if (h->bare[row] != NULL) {
		const sr_sequence *consumed = sr_processor_sequence(h->bare[row]->proc);
		/* pairs with the processor's store-release of its sequence */
		while (sr_sequence_get(consumed) < h->bare[row]->last)
			sched_yield();
	} else if (h->log[row] != NULL) {
		sr_log_flush(h->log[row]);
	}
}

/* Builds the bytes the logger's record for this call takes (header + arguments). */
static size_t
record_size(int64_t max_record, ...)
{
	sr_fmt_sig sig;
	char err[256];
	if (sr_fmt_parse(CALL_FORMAT, &sig, err, sizeof err) != SR_FMT_OK)
		return 0;
	sr_fmt_gather g;
	va_list ap;
	va_start(ap, max_record);
	sr_fmt_gather_args(&g, &sig, (size_t)max_record, &ap);
	va_end(ap);
	return sr_fmt_fit(&g, RECORD_HEADER_BYTES, (size_t)max_record);
}

static int
open_logger(harness *h, int row, int devnull, const options *o, char *err)
{
	sr_log_config cfg;
	sr_log_config_default(&cfg);
	cfg.mode = row == ROW_QUEUE ? SR_LOG_MODE_QUEUE :
	    row == ROW_SYNC || row == ROW_SYNC_BUFFERED ? SR_LOG_MODE_SYNC : SR_LOG_MODE_RING;
	/* sync-buffered: lines collect in the sink's buffer (Log4j 2's immediateFlush="false"). */
	cfg.immediate_flush = row != ROW_SYNC_BUFFERED;
	cfg.producer = row == ROW_PER_THREAD || row == ROW_PER_THREAD_DIR ? SR_LOG_PRODUCER_PER_THREAD :
	    SR_LOG_PRODUCER_SHARED;
	if (row == ROW_PER_THREAD_DIR) {
		/* A directory of its own, made empty here: the logger finds no rings of a dead process in it. */
		int n = snprintf(h->ring_dir, sizeof h->ring_dir, "%s/seqring-caller-XXXXXX", o->ring_dir_parent);
		if (n < 0 || (size_t)n >= sizeof h->ring_dir || mkdtemp(h->ring_dir) == NULL) {
			snprintf(err, ERR_MAX, "cannot make a ring directory under %s: %s", o->ring_dir_parent,
			    n < 0 || (size_t)n >= sizeof h->ring_dir ? "path too long" : strerror(errno));
			h->ring_dir[0] = '\0';
			return -1;
		}
		cfg.ring_dir = h->ring_dir;
	}
	/* The calling thread's ring of the logger's default size, as a program gets it. */
	if (o->thread_ring_slots != 0)
		cfg.thread_ring_slots = o->thread_ring_slots;
	if (o->slot_size != 0)
		cfg.slot_size = (size_t)o->slot_size;
	sr_sink_config sink = sr_sink_fd(devnull);
	cfg.sinks = &sink;
	cfg.sink_count = 1;
	cfg.level = SR_LOG_INFO;
	cfg.ignore_environment = true;   /* a developer's SEQRING_LOG must not change the figures */
	if (o->clock_set)
		cfg.clock = o->clock;
	sr_error e;
	sr_error_clear(&e);
	h->log[row] = sr_log_open(&cfg, &e);
	if (h->log[row] == NULL) {
		snprintf(err, ERR_MAX, "cannot open the %s logger: %s", row_names[row], e.message);
		return -1;
	}
	h->cat[row] = sr_log_category(h->log[row], "bench.caller");
	if (h->cat[row] == NULL) {
		snprintf(err, ERR_MAX, "cannot make the category of the %s logger", row_names[row]);
		return -1;
	}
	return 0;
}

static int
open_bare(harness *h, int row, int devnull, char *err)
{
	sr_log_config defaults;
	sr_log_config_default(&defaults);
	sr_error e;
	sr_error_clear(&e);
	h->record_bytes = record_size(4096, 1, 0.5, call_string);
	if (h->record_bytes < BARE_S + sizeof call_string || h->record_bytes > sizeof h->record ||
	    h->record_bytes > defaults.slot_size) {
		snprintf(err, ERR_MAX, "the record of '%s' takes %zu bytes: expected %zu..%zu (one slot)",
		    CALL_FORMAT, h->record_bytes, BARE_S + sizeof call_string, defaults.slot_size);
		return -1;
	}
	memset(h->record, 'r', h->record_bytes);
	uint32_t size = (uint32_t)h->record_bytes;
	memcpy(h->record + BARE_SIZE, &size, sizeof size);
	bare_ring *b = calloc(1, sizeof *b);
	if (b == NULL) {
		snprintf(err, ERR_MAX, "cannot allocate the %s ring", row_names[row]);
		return -1;
	}
	h->bare[row] = b;
	b->eager = row == ROW_BARE_EAGER;
	b->devnull = devnull;
	b->last = -1;
	sr_sequencer_config sc;
	sr_sequencer_config_default(&sc, defaults.ring_slots, SR_PRODUCER_MULTI);
	if (sr_wait_config_parse(SR_LOG_DEFAULT_WAIT, &sc.wait, &e) != SR_OK)
		goto fail;
	b->ring = sr_ring_create(defaults.ring_slots, defaults.slot_size, NULL, NULL, &e);
	if (b->ring == NULL)
		goto fail;
	b->seq = sr_sequencer_create(&sc, &e);
	if (b->seq == NULL)
		goto fail;
	sr_processor_config pc = { .ring = b->ring, .sequencer = b->seq,
	    .handler = { .ctx = b, .on_event = bare_on_event }, .max_batch_size = 4096 };
	b->proc = sr_processor_create(&pc, &e);
	if (b->proc == NULL)
		goto fail;
	if (sr_sequencer_add_gating(b->seq, sr_processor_sequence(b->proc)) != SR_OK) {
		snprintf(err, ERR_MAX, "cannot gate the %s ring on its consumer", row_names[row]);
		return -1;
	}
	if (sr_processor_start(b->proc, &e) != SR_OK)
		goto fail;
	return 0;
fail:
	snprintf(err, ERR_MAX, "cannot set up the %s ring: %s", row_names[row], e.message);
	return -1;
}

/*
 * Removes per-thread-dir's ring directory once its logger is closed: a
 * clean close leaves only the lock file.  Anything else is left in place
 * (and said on stderr), for a look at what the logger left.
 */
static int
remove_ring_dir(harness *h)
{
	if (h->ring_dir[0] == '\0')
		return 0;
	char lock[PATH_MAX + 8];
	snprintf(lock, sizeof lock, "%s/lock", h->ring_dir);
	if ((unlink(lock) != 0 && errno != ENOENT) || rmdir(h->ring_dir) != 0) {
		fprintf(stderr, PROG ": cannot remove the ring directory %s: %s\n", h->ring_dir, strerror(errno));
		h->ring_dir[0] = '\0';
		return -1;
	}
	h->ring_dir[0] = '\0';
	return 0;
}

/* Closes every row's logger and ring; -1 if the ring directory could not be removed. */
static int
close_all(harness *h)
{
	for (int r = 0; r < ROW_COUNT; r++)
		if (h->log[r] != NULL)
			sr_log_close(&h->log[r]);
	int rc = remove_ring_dir(h);
	for (int r = 0; r < ROW_COUNT; r++) {
		bare_ring *b = h->bare[r];
		if (b == NULL)
			continue;
		if (b->proc != NULL) {
			/* Started or not: halt and join are harmless on a processor that never ran. */
			sr_processor_drain_and_halt(b->proc);
			sr_processor_join(b->proc);
			sr_processor_destroy(b->proc);
		}
		if (b->seq != NULL)
			sr_sequencer_destroy(b->seq);
		if (b->ring != NULL)
			sr_ring_destroy(b->ring);
		free(b);
		h->bare[r] = NULL;
	}
	return rc;
}

/* One row's batch of timed calls: samples[i] = ticks of call i (per call for disabled). */
static void
time_row(harness *h, int row, const options *o, int64_t *samples)
{
	sr_category *c = h->cat[row];
	const bool runtime = o->runtime_string;
	for (int64_t done = 0; done < o->calls;) {
		int64_t n = o->calls - done < o->burst ? o->calls - done : o->burst;
		for (int64_t i = 0; i < n; i++) {
			uint64_t t0 = timer_read();
			switch (row) {
			case ROW_EMPTY:
				break;
			case ROW_CLOCK:
				sr_log__fast_tsc(&h->clock_lo, &h->clock_hi);
				break;
			case ROW_BARE:
			case ROW_BARE_EAGER:
				bare_call(h, h->bare[row]);
				break;
			case ROW_DISABLED:
				for (int k = 0; k < DISABLED_BLOCK; k++)
					disabled_call(h, c);
				break;
			case ROW_RING_VA:
				log_call_va(h, c);
				break;
			default:
				row_log_call(h, row, c, runtime);
				break;
			}
			uint64_t t1 = timer_read();
			samples[done + i] = (int64_t)(t1 - t0);
		}
		done += n;
		drain(h, row);
	}
}

/* ------------------------------------------------------------- counting */

/*
 * One loop per kind, so that what callgrind counts per call is the call and
 * the loop's own few instructions (an increment, a compare, a branch), with
 * no dispatch on the kind.  The empty asm keeps calls from being merged.
 */
/* counted_calls_NAME(harness *h, ARG a, int64_t n): n calls of CALL(h, a), nothing else. */
#define COUNTED_CALLS(name, arg_type, call) \
	__attribute__((noinline)) static void \
	counted_calls_##name(harness *h, arg_type a, int64_t n) \
	{ \
		for (int64_t i = 0; i < n; i++) { \
			call(h, a); \
			__asm__ volatile("" ::: "memory"); \
		} \
	}

COUNTED_CALLS(ring, sr_category *, log_call)
COUNTED_CALLS(ring_runtime_string, sr_category *, log_call_runtime_string)
COUNTED_CALLS(ring_va, sr_category *, log_call_va)
COUNTED_CALLS(per_thread, sr_category *, log_call_per_thread)
COUNTED_CALLS(per_thread_runtime_string, sr_category *, log_call_per_thread_runtime_string)
COUNTED_CALLS(per_thread_dir, sr_category *, log_call_per_thread_dir)
COUNTED_CALLS(per_thread_dir_runtime_string, sr_category *, log_call_per_thread_dir_runtime_string)
COUNTED_CALLS(bare, bare_ring *, bare_call)
COUNTED_CALLS(disabled, sr_category *, disabled_call)
COUNTED_CALLS(site_off, sr_category *, site_off_call)
COUNTED_CALLS(site_limit, sr_category *, site_limit_call)
COUNTED_CALLS(kv3, sr_category *, kv3_call)
COUNTED_CALLS(limit_once, sr_category *, limit_once_call)
COUNTED_CALLS(limit_every_n, sr_category *, limit_every_n_call)
COUNTED_CALLS(limit_rate, sr_category *, limit_rate_call)
COUNTED_CALLS(limit_every_1, sr_category *, limit_every_1_call)
COUNTED_CALLS(limit_rate_open, sr_category *, limit_rate_open_call)

/* An empty loop: what the loops above cost without the calls. */
__attribute__((noinline)) static void
counted_calls_loop(int64_t n)
{
	for (int64_t i = 0; i < n; i++)
		__asm__ volatile("" ::: "memory");
}

/* One call of the row outside counted_calls_*: callgrind does not count it. */
__attribute__((noinline)) static void
warm_up(harness *h, int row, bool runtime_string, int limit)
{
	if (limit != LIMIT_NONE)
		limit_call(h, limit, h->cat[row]);
	else if (row == ROW_BARE)
		bare_call(h, h->bare[row]);
	else if (row == ROW_DISABLED)
		disabled_call(h, h->cat[row]);
	else if (row == ROW_RING_VA)
		log_call_va(h, h->cat[row]);
	else if (row != ROW_EMPTY)
		row_log_call(h, row, h->cat[row], runtime_string);
}

static void
counted_calls(harness *h, int row, int64_t n, bool runtime_string, int limit, int site_rule)
{
	if (limit == LIMIT_ONCE)
		counted_calls_limit_once(h, h->cat[row], n);
	else if (limit == LIMIT_EVERY_N)
		counted_calls_limit_every_n(h, h->cat[row], n);
	else if (limit == LIMIT_RATE)
		counted_calls_limit_rate(h, h->cat[row], n);
	else if (limit == LIMIT_EVERY_1)
		counted_calls_limit_every_1(h, h->cat[row], n);
	else if (limit == LIMIT_RATE_OPEN)
		counted_calls_limit_rate_open(h, h->cat[row], n);
	else if (row == ROW_BARE)
		counted_calls_bare(h, h->bare[row], n);
	else if (row == ROW_DISABLED)
		counted_calls_disabled(h, h->cat[row], n);
	else if (site_rule == 1)
		counted_calls_site_off(h, h->cat[row], n);
	else if (site_rule == 2)
		counted_calls_site_limit(h, h->cat[row], n);
	else if (site_rule == 3)
		counted_calls_kv3(h, h->cat[row], n);
	else if (row == ROW_RING && runtime_string)
		counted_calls_ring_runtime_string(h, h->cat[row], n);
	else if (row == ROW_RING)
		counted_calls_ring(h, h->cat[row], n);
	else if (row == ROW_PER_THREAD && runtime_string)
		counted_calls_per_thread_runtime_string(h, h->cat[row], n);
	else if (row == ROW_PER_THREAD)
		counted_calls_per_thread(h, h->cat[row], n);
	else if (row == ROW_PER_THREAD_DIR && runtime_string)
		counted_calls_per_thread_dir_runtime_string(h, h->cat[row], n);
	else if (row == ROW_PER_THREAD_DIR)
		counted_calls_per_thread_dir(h, h->cat[row], n);
	else if (row == ROW_RING_VA)
		counted_calls_ring_va(h, h->cat[row], n);
	else
		counted_calls_loop(n);
}

/* ----------------------------------------------------------------- main */

/* A CSV field's text with its double quotes doubled (RFC 4180), in a static buffer. */
static const char *
csv_quoted(const char *text)
{
	static char buf[256];
	size_t n = 0;
	for (const char *p = text; *p != '\0' && n + 2 < sizeof buf; p++) {
		if (*p == '"')
			buf[n++] = '"';
		buf[n++] = *p;
	}
	buf[n] = '\0';
	return buf;
}

static void
usage(FILE *f)
{
	fprintf(f,
	    "usage: caller [options]\n"
	    "  Per-call cost on the caller's thread, timed call by call with the TSC:\n"
	    "  SR_INFO(c, \"x=%%d y=%%f s=%%s\", i, d, s) (16-byte s), consumer writing to /dev/null.\n"
	    "  --rows LIST     empty,clock,bare,bare-eager,ring-va,ring,per-thread,per-thread-dir,queue,\n"
	    "                  sync,sync-buffered,disabled or all (default all)\n"
	    "  --calls N       timed calls per row per run (default 200000)\n"
	    "  --burst N       calls back to back before an untimed drain (default 1000)\n"
	    "  --runs N        interleaved rounds, median reported (default 5, at most %d)\n"
	    "  --clock NAME    the loggers' clock (realtime, coarse, tsc, auto; default: the logger's, auto)\n"
	    "  --thread-ring-slots N  per-thread ring slots (default: the logger's, 16384)\n"
	    "  --slot-size N   the loggers' slot size in bytes (default: the logger's)\n"
	    "  --ring-dir DIR  per-thread-dir: its ring directory is made fresh under DIR and removed\n"
	    "                  at the end (default /tmp)\n"
	    "  --string KIND   constant (default: s a const array the compiler sees) or runtime\n"
	    "                  (s read through a volatile pointer: measured and copied at run time)\n"
	    "  --out FILE      CSV, rows appended (default perf/results/caller.csv)\n"
	    "  --truncate      start the CSV afresh (header included)\n"
	    "  --count MODE N  make N calls of MODE (ring, ring-va, per-thread, per-thread-dir, bare,\n"
	    "                  disabled, site-off, site-limit, kv3 (SR_KV fields); loop: none; limit-once, limit-every-n, limit-rate: rate-limited\n"
	    "                  sites that suppress; limit-every-1, limit-rate-open: that write) in a loop\n"
	    "                  and exit: for valgrind --tool=callgrind --toggle-collect='counted_calls_*'\n"
	    "  --quick         2,000 calls, 1 run (for CTest)\n"
	    "  --quiet         no progress on stderr\n", MAX_RUNS);
}

/* --rows: a bench_flag parser. */
static bool
parse_rows_flag(void *dest, char **values, char *err, size_t errsize)
{
	return bench_parse_name_set("--rows", "row", values[0], row_names, ROW_COUNT, dest, err, errsize);
}

/* --clock: a bench_flag parser. */
static bool
parse_clock(void *dest, char **values, char *err, size_t errsize)
{
	options *o = dest;
	sr_error e;
	if (sr_log_clock_parse(values[0], &o->clock, &e) != SR_OK) {
		snprintf(err, errsize, "--clock: %s", e.message);
		return false;
	}
	o->clock_set = true;
	return true;
}

/* --string constant|runtime: a bench_flag parser. */
static bool
parse_string_kind(void *dest, char **values, char *err, size_t errsize)
{
	options *o = dest;
	if (strcmp(values[0], "constant") != 0 && strcmp(values[0], "runtime") != 0) {
		snprintf(err, errsize, "--string: unknown kind '%.64s': expected constant or runtime", values[0]);
		return false;
	}
	o->runtime_string = strcmp(values[0], "runtime") == 0;
	return true;
}

/* --count MODE N: a bench_flag parser of two values. */
static bool
parse_count_mode(void *dest, char **values, char *err, size_t errsize)
{
	options *o = dest;
	const char *mode = values[0], *calls = values[1];
	o->limit = LIMIT_NONE;
	for (int k = LIMIT_ONCE; k <= LIMIT_RATE_OPEN; k++)
		if (strcmp(mode, limit_modes[k]) == 0)
			o->limit = k;
	if (strcmp(mode, "ring") != 0 && strcmp(mode, "ring-va") != 0 && strcmp(mode, "per-thread") != 0 &&
	    strcmp(mode, "per-thread-dir") != 0 && strcmp(mode, "bare") != 0 && strcmp(mode, "disabled") != 0 &&
	    strcmp(mode, "site-off") != 0 && strcmp(mode, "site-limit") != 0 && strcmp(mode, "loop") != 0 &&
	    strcmp(mode, "kv3") != 0 && o->limit == LIMIT_NONE) {
		snprintf(err, errsize, "--count: unknown mode '%.64s': expected ring, ring-va, per-thread, "
		    "per-thread-dir, bare, disabled, site-off, site-limit, kv3, loop, limit-once, limit-every-n, limit-rate, "
		    "limit-every-1 or limit-rate-open", mode);
		return false;
	}
	if (!bench_parse_count(calls, &o->count_calls) || o->count_calls > 1000000000) {
		snprintf(err, errsize, "--count %s: call count '%.64s' is invalid: expected 1 to 1G", mode, calls);
		return false;
	}
	o->count_mode = mode;
	return true;
}

/* The options from the command line; BENCH_PARSED_BAD with err. */
static enum bench_parsed
parse_args(int argc, char **argv, options *o, char *err)
{
	*o = (options){ .runs = 5, .calls = 200000, .burst = 1000, .out = "perf/results/caller.csv",
	    .ring_dir_parent = "/tmp" };
	for (int r = 0; r < ROW_COUNT; r++)
		o->rows[r] = true;
	const bench_flag flags[] = {
		{ BENCH_FLAG("--rows", BENCH_CUSTOM, o->rows), .parse = parse_rows_flag },
		{ BENCH_FLAG("--calls", BENCH_COUNT, &o->calls), .max = 100000000, .given = &o->calls_given },
		{ BENCH_FLAG("--burst", BENCH_COUNT, &o->burst), .max = 100000000 },
		{ BENCH_FLAG("--runs", BENCH_INT, &o->runs), .max = MAX_RUNS, .given = &o->runs_given },
		{ BENCH_FLAG("--clock", BENCH_CUSTOM, o), .parse = parse_clock },
		{ BENCH_FLAG("--thread-ring-slots", BENCH_COUNT, &o->thread_ring_slots), .max = INT64_C(1) << 30 },
		{ BENCH_FLAG("--slot-size", BENCH_COUNT, &o->slot_size), .max = 65536 },
		{ BENCH_FLAG("--out", BENCH_TEXT, &o->out) },
		{ BENCH_FLAG("--truncate", BENCH_SWITCH, &o->truncate), .switch_to = true },
		{ BENCH_FLAG("--count", BENCH_CUSTOM, o), .parse = parse_count_mode, .values = 2 },
		{ BENCH_FLAG("--string", BENCH_CUSTOM, o), .parse = parse_string_kind },
		{ BENCH_FLAG("--ring-dir", BENCH_TEXT, &o->ring_dir_parent) },
	};
	bool quick = false;
	enum bench_parsed parsed = bench_parse_flags(argc, argv, flags, (int)(sizeof flags / sizeof flags[0]),
	    &quick, usage, err, ERR_MAX);
	if (parsed == BENCH_PARSED_RUN && quick) {
		if (!o->calls_given)
			o->calls = 2000;
		if (!o->runs_given)
			o->runs = 1;
	}
	return parsed;
}

typedef struct row_result {
	double p50[MAX_RUNS], p99[MAX_RUNS], p999[MAX_RUNS], mean[MAX_RUNS];
} row_result;

static int
run_count(harness *h, const options *o, int devnull, char *err)
{
	int row = strcmp(o->count_mode, "bare") == 0 ? ROW_BARE :
	    strcmp(o->count_mode, "ring") == 0 ? ROW_RING :
	    strcmp(o->count_mode, "ring-va") == 0 ? ROW_RING_VA :
	    strcmp(o->count_mode, "per-thread") == 0 || strcmp(o->count_mode, "site-off") == 0 ||
	    strcmp(o->count_mode, "site-limit") == 0 || strcmp(o->count_mode, "kv3") == 0 ||
	    o->limit != LIMIT_NONE ? ROW_PER_THREAD :
	    strcmp(o->count_mode, "per-thread-dir") == 0 ? ROW_PER_THREAD_DIR :
	    strcmp(o->count_mode, "disabled") == 0 ? ROW_DISABLED : ROW_EMPTY;
	if (row == ROW_BARE ? open_bare(h, row, devnull, err) :
	    row == ROW_EMPTY ? 0 : open_logger(h, row, devnull, o, err))
		return -1;
	const char *rule = strcmp(o->count_mode, "site-off") == 0 ? SITE_OFF_RULE :
	    strcmp(o->count_mode, "site-limit") == 0 ? SITE_LIMIT_RULE : NULL;
	sr_error e;
	if (rule != NULL && sr_log_sites_set(h->log[row], rule, &e) != SR_OK) {
		snprintf(err, ERR_MAX, "sr_log_sites_set(\"%s\"): %s", rule, e.message);
		return -1;
	}
	/* The limited site's one written call, outside the count. */
	if (rule != NULL && strcmp(rule, SITE_LIMIT_RULE) == 0)
		site_limit_call(h, h->cat[row]);
	/*
	 * Calls in bursts of 1,000, drained only when the next burst might not
	 * fit in the ring (a call's record takes one slot; a quarter of the
	 * ring's slots, the shared one's or the thread's own, is the limit
	 * here), so that no call waits for
	 * room and the drain's own system calls (the flush waits) stay rare:
	 * under `strace -f`, the caller's system calls between the two
	 * getppid() markers are what the calls cost (perf/README.md).
	 */
	sr_log_config defaults;
	sr_log_config_default(&defaults);
	/* The ring open_logger made: the thread's (the logger's default unless --thread-ring-slots), or the shared one. */
	int64_t slots = row != ROW_PER_THREAD && row != ROW_PER_THREAD_DIR ? defaults.ring_slots :
	    o->thread_ring_slots != 0 ? o->thread_ring_slots : defaults.thread_ring_slots;
	int64_t burst = 1000, room = slots / 4, since_drain = 0;
	warm_up(h, row, o->runtime_string, o->limit);   /* the site's first call parses its format, per-thread's makes its ring */
	if (strcmp(o->count_mode, "kv3") == 0)
		kv3_call(h, h->cat[row]);  /* its site's first call records its keys */
	drain(h, row);
	/* A marker for strace: the calls' system calls are the ones between two getppid(). */
	(void)getppid();
	for (int64_t done = 0; done < o->count_calls; done += burst) {
		int64_t n = o->count_calls - done < burst ? o->count_calls - done : burst;
		if (since_drain + n > room) {
			drain(h, row);
			since_drain = 0;
		}
		counted_calls(h, row, n, o->runtime_string, o->limit, strcmp(o->count_mode, "site-off") == 0 ? 1 :
		    strcmp(o->count_mode, "site-limit") == 0 ? 2 : strcmp(o->count_mode, "kv3") == 0 ? 3 : 0);
		since_drain += n;
	}
	(void)getppid();
	drain(h, row);
	printf("%s: %" PRId64 " calls made in counted_calls_*\n", o->count_mode, o->count_calls);
	return 0;
}

int
main(int argc, char **argv)
{
	char err[ERR_MAX];
	options o;
	enum bench_parsed parsed = parse_args(argc, argv, &o, err);
	if (parsed != BENCH_PARSED_RUN)
		return bench_parsed_exit(parsed, PROG, err);
	int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (devnull < 0) {
		fprintf(stderr, PROG ": cannot open /dev/null: %s\n", strerror(errno));
		return 1;
	}
	harness h;
	memset(&h, 0, sizeof h);
	int status = 0;
	if (o.count_mode != NULL) {
		status = run_count(&h, &o, devnull, err) == 0 ? 0 : 1;
		if (status != 0)
			fprintf(stderr, PROG ": %s\n", err);
		if (close_all(&h) != 0)
			status = 1;
		close(devnull);
		return status;
	}

	for (int r = ROW_BARE; r < ROW_COUNT; r++) {
		if (!o.rows[r])
			continue;
		int rc = r == ROW_BARE || r == ROW_BARE_EAGER ? open_bare(&h, r, devnull, err) :
		    open_logger(&h, r, devnull, &o, err);
		if (rc != 0) {
			fprintf(stderr, PROG ": %s\n", err);
			close_all(&h);
			return 1;
		}
	}
	double tpn = timer_ticks_per_ns(err);
	if (tpn <= 0) {
		fprintf(stderr, PROG ": %s\n", err);
		close_all(&h);
		return 1;
	}
	int64_t *samples = malloc((size_t)o.calls * sizeof *samples);
	row_result *res = calloc(ROW_COUNT, sizeof *res);
	if (samples == NULL || res == NULL) {
		fprintf(stderr, PROG ": cannot allocate %" PRId64 " samples\n", o.calls);
		close_all(&h);
		return 1;
	}
	/* Warm-up round (not recorded): first calls parse formats, fault pages, wake consumers. */
	for (int r = 0; r < ROW_COUNT; r++)
		if (o.rows[r])
			time_row(&h, r, &o, samples);
	for (int run = 0; run < o.runs; run++) {
		for (int r = 0; r < ROW_COUNT; r++) {
			if (!o.rows[r])
				continue;
			bench_progress("caller: run %d of %d, row %s", run + 1, o.runs, row_names[r]);
			time_row(&h, r, &o, samples);
			double scale = r == ROW_DISABLED ? tpn * DISABLED_BLOCK : tpn;
			/* The mean: finer than the percentiles where the clock reads in coarse steps. */
			double sum = 0;
			for (int64_t i = 0; i < o.calls; i++)
				sum += (double)samples[i];
			res[r].mean[run] = sum / (double)o.calls / scale;
			bench_sort_i64(samples, (size_t)o.calls);
			res[r].p50[run] = (double)bench_percentile(samples, (size_t)o.calls, 50.0) / scale;
			res[r].p99[run] = (double)bench_percentile(samples, (size_t)o.calls, 99.0) / scale;
			res[r].p999[run] = (double)bench_percentile(samples, (size_t)o.calls, 99.9) / scale;
		}
	}
	/* The consumers saw every record (a checked result, not a time). */
	for (int r = ROW_BARE; r <= ROW_BARE_EAGER; r++) {
		if (!o.rows[r])
			continue;
		drain(&h, r);
		int64_t expected = (int64_t)(o.runs + 1) * o.calls;
		uint64_t expected_sum = (uint64_t)expected * h.record_bytes;
		bare_ring *b = h.bare[r];
		/* The eager consumer adds the last byte ('r') too. */
		if (b->eager)
			expected_sum += (uint64_t)expected * 'r';
		if (b->last + 1 != expected || b->sum != expected_sum) {
			fprintf(stderr, PROG ": %s ring published %" PRId64 " records (expected %" PRId64
			    "), its consumer's sum is %" PRIu64 " (expected %" PRIu64 ")\n", row_names[r],
			    b->last + 1, expected, b->sum, expected_sum);
			status = 1;
		}
	}
	for (int r = ROW_RING_VA; r <= ROW_SYNC_BUFFERED; r++) {
		if (!o.rows[r])
			continue;
		sr_log_flush(h.log[r]);
		sr_log_counters st;
		sr_log_stats(h.log[r], &st);
		int64_t expected = (int64_t)(o.runs + 1) * o.calls;
		if (st.written != (uint64_t)expected || st.dropped != 0) {
			fprintf(stderr, PROG ": %s logger wrote %" PRIu64 " lines and dropped %" PRIu64
			    ", expected %" PRId64 " and 0\n", row_names[r], st.written, st.dropped, expected);
			status = 1;
		}
	}

	double p50[ROW_COUNT] = { 0 }, p99[ROW_COUNT] = { 0 }, p999[ROW_COUNT] = { 0 }, mean[ROW_COUNT] = { 0 };
	for (int r = 0; r < ROW_COUNT; r++) {
		if (!o.rows[r])
			continue;
		p50[r] = bench_median(res[r].p50, o.runs);
		p99[r] = bench_median(res[r].p99, o.runs);
		p999[r] = bench_median(res[r].p999, o.runs);
		mean[r] = bench_median(res[r].mean, o.runs);
	}
	double timer = o.rows[ROW_EMPTY] ? p50[ROW_EMPTY] : 0.0;
	FILE *csv = NULL;
	if (o.out[0] != '\0') {
		csv = bench_open_csv(o.out, o.truncate,
		    "mode,call,runs,calls_per_run,p50_ns,p99_ns,p999_ns,timer_p50_ns,ticks_per_ns,mean_ns\n", err, ERR_MAX);
		if (csv == NULL) {
			fprintf(stderr, PROG ": %s\n", err);
			status = 1;
		}
	}
	printf("## Caller cost per call (`perf/caller`)\n\n");
	printf("- Each call timed alone with the TSC (%.3f ticks/ns, lfence;rdtsc;lfence), %" PRId64
	    " calls per row per run in bursts of %" PRId64 " with an untimed drain between bursts; "
	    "%d interleaved run(s), median of the runs' percentiles. Consumer: text layout to /dev/null, "
	    "the logger's default wait strategy (%s). The string: %s.\n", tpn, o.calls, o.burst, o.runs,
	    SR_LOG_DEFAULT_WAIT, o.runtime_string ? "read at run time (--string runtime)" :
	    "a const array the compiler sees (--string runtime: read at run time)");
	printf("- net = the percentile minus the timer's own p50 (the `empty` row). "
	    "disabled: ns per call over blocks of %d calls. mean: of every timed call (the clock "
	    "reads in coarse steps on some machines; the mean of many readings is finer).\n\n", DISABLED_BLOCK);
	printf("| mode | call | p50 ns | p99 ns | p99.9 ns | mean ns | net p50 ns | net p50 vs bare | ring's net p50 is |\n");
	printf("|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
	double net_bare = p50[ROW_BARE] - timer, net_ring = p50[ROW_RING] - timer;
	for (int r = 0; r < ROW_COUNT; r++) {
		if (!o.rows[r])
			continue;
		double net = r == ROW_DISABLED ? p50[r] : p50[r] - timer;
		char vs_bare[32] = "", ring_is[32] = "";
		if (o.rows[ROW_BARE] && r >= ROW_RING_VA && r <= ROW_SYNC_BUFFERED && net_bare > 0)
			snprintf(vs_bare, sizeof vs_bare, "%.2fx", net / net_bare);
		if (o.rows[ROW_RING] && (r == ROW_QUEUE || r == ROW_SYNC || r == ROW_SYNC_BUFFERED) && net_ring > 0)
			snprintf(ring_is, sizeof ring_is, "%.1fx lower", net / net_ring);
		printf("| %s | %s | %.1f | %.1f | %.1f | %.1f | %.1f | %s | %s |\n", row_names[r], row_calls[r],
		    p50[r], p99[r], p999[r], mean[r], net, vs_bare, ring_is);
		if (csv != NULL)
			fprintf(csv, "%s,\"%s\",%d,%" PRId64 ",%.1f,%.1f,%.1f,%.1f,%.4f,%.1f\n", row_names[r],
			    csv_quoted(row_calls[r]), o.runs, o.calls, p50[r], p99[r], p999[r],
			    r == ROW_DISABLED ? 0.0 : timer, tpn, mean[r]);
	}
	if (csv != NULL && fclose(csv) != 0) {
		fprintf(stderr, PROG ": cannot write %s: %s\n", o.out, strerror(errno));
		status = 1;
	}
	free(samples);
	free(res);
	if (close_all(&h) != 0)
		status = 1;
	close(devnull);
	return status;
}

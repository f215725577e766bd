/* SPDX-License-Identifier: Apache-2.0 */
/*
 * wait_strategies.c: wait_perf, what each wait strategy costs on both sides.
 *
 * Per strategy:
 *  - throughput: 1 producer -> 1 consumer, 8-byte events (the ring_perf 1-1
 *    test), median of interleaved runs;
 *  - ping-pong: round trips through two rings (ping publishes on A, an echo
 *    processor republishes on B, ping waits on B with the same strategy),
 *    p50/p99/p99.9/max of every round trip after a warm-up;
 *  - idle CPU: the consumer thread's CPU time (its CLOCK_THREAD_CPUTIME_ID
 *    clock, read from outside with pthread_getcpuclockid) over an idle spell.
 * Then the full-ring test: many producer threads against a full ring whose
 * consumer is slowed to a fixed rate, with synchronized enqueue when full on
 * and off: total process CPU (getrusage RUSAGE_SELF) and events delivered.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "bench_args.h"
#include "bench_output.h"
#include "bench_stats.h"
#include "bench_wait_list.h"
#include <seqring/sr_barrier.h>
#include <seqring/sr_processor.h>
#include <seqring/sr_ring.h>
#include <seqring/sr_sequencer.h>
#include <seqring/sr_time.h>
#include "topo_rounds.h"
#include "topology.h"

#define PROG "wait_perf"
#define MAX_WAITS BENCH_MAX_WAITS
#define MAX_RUNS BENCH_MAX_RUNS

/* One strategy's round trips and idle CPU (its throughput is a topo_row beside it). */
typedef struct strategy_row {
	sr_wait_config wait;
	int64_t p50, p99, p999, pmax;
	size_t samples;
	double idle_ms_per_s;
	bool failed;
} strategy_row;

typedef struct full_row {
	bool sync;
	double cpu_seconds;
	double seconds;
	int64_t delivered;
	bool failed;
} full_row;

typedef struct options {
	int runs;
	int64_t fixed_events;
	double seconds;
	int64_t max_pings;
	double ping_seconds;
	double idle_seconds;
	int full_producers;
	int64_t full_slots;
	int64_t full_rate;
	double full_seconds;
	sr_wait_config full_wait;
	bool full;
	const char *out_path;
	bench_wait_list waits;
	bool quick;
} options;

/* ------------------------------------------------------------- set-up */

typedef int (*event_fn)(void *ctx, void *slot, int64_t sequence, bool end_of_batch);

/*
 * One test's ring: 8-byte slots, its sequencer and, unless the test reads
 * the ring itself, its one consumer, which gates the sequencer.
 */
typedef struct test_ring {
	sr_ring *ring;
	sr_sequencer *seq;
	sr_processor *consumer;
	bool started;
} test_ring;

/* A set-up failure's message: what the library said. */
static void
setup_error(const sr_error *e, char *err, size_t errlen)
{
	snprintf(err, errlen, "%s", e->message[0] ? e->message : "setup failed");
}

/* test_ring_open's work; false with e set. */
static bool
test_ring_build(test_ring *t, int64_t slots, enum sr_producer_mode producers, const sr_wait_config *wait,
    bool synchronize_enqueue_when_full, event_fn on_event, void *ctx, sr_error *e)
{
	t->ring = sr_ring_create(slots, 8, NULL, NULL, e);
	if (t->ring == NULL)
		return false;
	sr_sequencer_config c;
	sr_sequencer_config_default(&c, slots, producers);
	c.wait = *wait;
	c.synchronize_enqueue_when_full = synchronize_enqueue_when_full;
	t->seq = sr_sequencer_create(&c, e);
	if (t->seq == NULL)
		return false;
	if (on_event == NULL)
		return true;
	sr_processor_config pc;
	memset(&pc, 0, sizeof pc);
	pc.ring = t->ring;
	pc.sequencer = t->seq;
	pc.handler.ctx = ctx;
	pc.handler.on_event = on_event;
	t->consumer = sr_processor_create(&pc, e);
	if (t->consumer == NULL)
		return false;
	sr_sequencer_add_gating(t->seq, sr_processor_sequence(t->consumer));
	return true;
}

/*
 * Opens t (a zeroed struct) with nothing started; false with the library's message in err (t may
 * then be closed).
 */
static bool
test_ring_open(test_ring *t, int64_t slots, enum sr_producer_mode producers, const sr_wait_config *wait,
    bool synchronize_enqueue_when_full, event_fn on_event, void *ctx, char *err, size_t errlen)
{
	sr_error e;
	sr_error_clear(&e);
	if (test_ring_build(t, slots, producers, wait, synchronize_enqueue_when_full, on_event, ctx, &e))
		return true;
	setup_error(&e, err, errlen);
	return false;
}

/* Starts t's consumer; false with the library's message in err. */
static bool
test_ring_start(test_ring *t, char *err, size_t errlen)
{
	sr_error e;
	sr_error_clear(&e);
	t->started = sr_processor_start(t->consumer, &e) == SR_OK;
	if (!t->started)
		setup_error(&e, err, errlen);
	return t->started;
}

/*
 * Stops a started consumer (after it has handled everything published, with
 * drain) and frees the ring; harmless on a zeroed or half-opened t.
 */
static void
test_ring_close(test_ring *t, bool drain)
{
	if (t->started) {
		if (drain)
			sr_processor_drain_and_halt(t->consumer);
		else
			sr_processor_halt(t->consumer);
		sr_processor_join(t->consumer);
	}
	sr_processor_destroy(t->consumer);
	sr_sequencer_destroy(t->seq);
	sr_ring_destroy(t->ring);
}

/* -------------------------------------------------------------- ping-pong */

typedef struct echo_ctx {
	sr_sequencer *out;
	sr_ring *out_ring;
} echo_ctx;

static int
echo_event(void *ctx, void *slot, int64_t sequence, bool end_of_batch)
{
	(void)sequence;
	(void)end_of_batch;
	echo_ctx *e = ctx;
	int64_t s;
	sr_sequencer_claim(e->out, &s);
	*(int64_t *)sr_ring_slot(e->out_ring, s) = *(const int64_t *)slot;
	sr_sequencer_publish(e->out, s);
	return 0;
}

/* Fills the row's percentiles; returns 0 or -1 with err. */
static int
run_pingpong(strategy_row *row, const options *o, char *err, size_t errlen)
{
	int rc = -1;
	/* a: ping -> echo, read by the echo processor; b: echo -> ping, read by this thread */
	test_ring a = { 0 }, b = { 0 };
	sr_sequence *mine = NULL;
	sr_barrier *bar = NULL;
	int64_t *samples = NULL;
	echo_ctx ectx = { 0 };
	if (!test_ring_open(&b, 1024, SR_PRODUCER_SINGLE, &row->wait, false, NULL, NULL, err, errlen))
		goto out;
	ectx.out = b.seq;
	ectx.out_ring = b.ring;
	if (!test_ring_open(&a, 1024, SR_PRODUCER_SINGLE, &row->wait, false, echo_event, &ectx, err, errlen))
		goto out;
	sr_sequencer *sa = a.seq, *sb = b.seq;
	sr_ring *ra = a.ring, *rb = b.ring;

	mine = aligned_alloc(SR_CACHELINE, sizeof *mine);
	bar = aligned_alloc(SR_CACHELINE, (sizeof *bar + SR_CACHELINE - 1) / SR_CACHELINE * SR_CACHELINE);
	samples = malloc(sizeof *samples * (size_t)o->max_pings);
	if (mine == NULL || bar == NULL || samples == NULL) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	sr_sequence_init(mine, -1);
	sr_sequencer_add_gating(sb, mine);
	sr_error e;
	sr_error_clear(&e);
	if (sr_barrier_init(bar, sb, NULL, 0, &e) != SR_OK) {
		setup_error(&e, err, errlen);
		goto out;
	}
	if (!test_ring_start(&a, err, errlen))
		goto out;

	const int64_t warmup = o->max_pings / 10 < 1000 ? o->max_pings / 10 : 1000;
	const int64_t limit_ns = (int64_t)(o->ping_seconds * 1e9);
	size_t n = 0;
	int64_t begin = sr_monotonic_ns();
	for (int64_t i = 0;; i++) {
		int64_t t0 = sr_monotonic_ns();
		int64_t s;
		sr_sequencer_claim(sa, &s);
		*(int64_t *)sr_ring_slot(ra, s) = i;
		sr_sequencer_publish(sa, s);
		int64_t avail = -1;
		for (;;) {
			int w = sr_barrier_wait_for(bar, i, &avail);
			if (w == SR_OK && avail >= i)
				break;
			if (w == SR_EALERTED) {
				snprintf(err, errlen, "ping barrier alerted");
				goto out;
			}
		}
		if (*(const int64_t *)sr_ring_slot(rb, i) != i) {
			snprintf(err, errlen, "ping %" PRId64 " came back as %" PRId64, i,
			    *(const int64_t *)sr_ring_slot(rb, i));
			goto out;
		}
		/* pairs with the producer's load-acquire in sr_sequencer_min_gating */
		sr_sequence_set(mine, i);
		int64_t t1 = sr_monotonic_ns();
		if (i == warmup - 1 || (warmup == 0 && i == 0))
			begin = t1;   /* the time limit counts from the end of the warm-up */
		if (i >= warmup) {
			samples[n++] = t1 - t0;
			if ((int64_t)n >= o->max_pings || t1 - begin >= limit_ns)
				break;
		}
	}
	bench_sort_i64(samples, n);
	row->samples = n;
	row->p50 = bench_percentile(samples, n, 50);
	row->p99 = bench_percentile(samples, n, 99);
	row->p999 = bench_percentile(samples, n, 99.9);
	row->pmax = samples[n - 1];
	rc = 0;
out:
	test_ring_close(&a, false);
	free(samples);
	free(bar);
	free(mine);
	test_ring_close(&b, false);
	return rc;
}

/* --------------------------------------------------------------- idle CPU */

static int
count_event(void *ctx, void *slot, int64_t sequence, bool end_of_batch)
{
	(void)slot;
	(void)sequence;
	(void)end_of_batch;
	atomic_fetch_add_explicit((atomic_llong *)ctx, 1, memory_order_relaxed);
	return 0;
}

static int64_t
thread_cpu_ns(clockid_t clk)
{
	struct timespec ts;
	clock_gettime(clk, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void
sleep_seconds(double s)
{
	sr_sleep_ns((int64_t)(s * 1e9));
}

static int
run_idle(strategy_row *row, const options *o, char *err, size_t errlen)
{
	int rc = -1;
	test_ring t = { 0 };
	atomic_llong handled;
	atomic_init(&handled, 0);
	if (!test_ring_open(&t, 1024, SR_PRODUCER_SINGLE, &row->wait, false, count_event, &handled, err, errlen) ||
	    !test_ring_start(&t, err, errlen))
		goto out;
	/* One event, so the consumer has run a batch and gone back to waiting. */
	int64_t seq;
	sr_sequencer_claim(t.seq, &seq);
	*(int64_t *)sr_ring_slot(t.ring, seq) = 1;
	sr_sequencer_publish(t.seq, seq);
	while (atomic_load_explicit(&handled, memory_order_relaxed) < 1)
		sleep_seconds(0.0001);
	sleep_seconds(0.05);   /* phased reaches its fallback after 110 us */
	clockid_t clk;
	if (pthread_getcpuclockid(t.consumer->thread, &clk) != 0) {
		snprintf(err, errlen, "pthread_getcpuclockid failed");
		goto out;
	}
	int64_t c0 = thread_cpu_ns(clk);
	int64_t w0 = sr_monotonic_ns();
	sleep_seconds(o->idle_seconds);
	int64_t c1 = thread_cpu_ns(clk);
	int64_t w1 = sr_monotonic_ns();
	row->idle_ms_per_s = (double)(c1 - c0) / 1e6 / ((double)(w1 - w0) / 1e9);
	rc = 0;
out:
	test_ring_close(&t, false);
	return rc;
}

/* -------------------------------------------------------------- full ring */

typedef struct full_ctx {
	_Alignas(128) atomic_llong delivered;
	atomic_int fast;          /* stop pacing: drain at full speed */
	int64_t period_ns;
	struct timespec next;     /* consumer-private schedule */
	_Alignas(128) atomic_int stop;
	sr_sequencer *seq;
	sr_ring *ring;
} full_ctx;

static int
slow_event(void *ctx, void *slot, int64_t sequence, bool end_of_batch)
{
	(void)slot;
	(void)sequence;
	(void)end_of_batch;
	full_ctx *f = ctx;
	atomic_fetch_add_explicit(&f->delivered, 1, memory_order_relaxed);
	if (atomic_load_explicit(&f->fast, memory_order_relaxed))
		return 0;
	/* At most one event per period; a late consumer does not catch up in a burst. */
	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &f->next, NULL);
	int64_t next = (int64_t)f->next.tv_sec * 1000000000 + f->next.tv_nsec + f->period_ns;
	int64_t now = sr_monotonic_ns();
	if (next < now)
		next = now;
	f->next.tv_sec = (time_t)(next / 1000000000);
	f->next.tv_nsec = (long)(next % 1000000000);
	return 0;
}

static void *
full_producer(void *arg)
{
	full_ctx *f = arg;
	/* pairs with the store-release in run_full */
	while (!atomic_load_explicit(&f->stop, memory_order_acquire)) {
		int64_t s;
		if (sr_sequencer_claim(f->seq, &s) != SR_OK)
			break;
		*(int64_t *)sr_ring_slot(f->ring, s) = s;
		sr_sequencer_publish(f->seq, s);
	}
	return NULL;
}

static double
process_cpu_seconds(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	    (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

static int
run_full(full_row *row, const options *o, char *err, size_t errlen)
{
	int rc = -1;
	test_ring t = { 0 };
	full_ctx *f = aligned_alloc(128, (sizeof *f + 127) / 128 * 128);
	pthread_t *tids = calloc((size_t)o->full_producers, sizeof *tids);
	int started = 0;
	if (f == NULL || tids == NULL) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	memset(f, 0, sizeof *f);
	atomic_init(&f->delivered, 0);
	atomic_init(&f->fast, 0);
	atomic_init(&f->stop, 0);
	f->period_ns = 1000000000 / o->full_rate;
	if (!test_ring_open(&t, o->full_slots, SR_PRODUCER_MULTI, &o->full_wait, row->sync, slow_event, f, err,
	    errlen))
		goto out;
	f->seq = t.seq;
	f->ring = t.ring;
	clock_gettime(CLOCK_MONOTONIC, &f->next);
	if (!test_ring_start(&t, err, errlen))
		goto out;
	for (int i = 0; i < o->full_producers; i++) {
		if (pthread_create(&tids[i], NULL, full_producer, f) != 0) {
			snprintf(err, errlen, "pthread_create failed after %d producers", i);
			goto out;
		}
		started++;
	}
	/* Let the ring fill and the producers settle into waiting. */
	sleep_seconds(o->full_seconds / 10 < 0.5 ? o->full_seconds / 10 : 0.5);
	double cpu0 = process_cpu_seconds();
	int64_t d0 = atomic_load_explicit(&f->delivered, memory_order_relaxed);
	int64_t w0 = sr_monotonic_ns();
	sleep_seconds(o->full_seconds);
	double cpu1 = process_cpu_seconds();
	int64_t d1 = atomic_load_explicit(&f->delivered, memory_order_relaxed);
	int64_t w1 = sr_monotonic_ns();
	row->cpu_seconds = cpu1 - cpu0;
	row->seconds = (double)(w1 - w0) / 1e9;
	row->delivered = d1 - d0;
	rc = 0;
out:
	if (f != NULL) {
		atomic_store_explicit(&f->fast, 1, memory_order_relaxed);
		/* pairs with the load-acquire in full_producer */
		atomic_store_explicit(&f->stop, 1, memory_order_release);
	}
	for (int i = 0; i < started; i++)
		pthread_join(tids[i], NULL);
	test_ring_close(&t, true);
	free(tids);
	free(f);
	return rc;
}

/* ------------------------------------------------------------------- main */

static void
usage(FILE *f)
{
	fprintf(f,
	    "usage: wait_perf [options]\n"
	    "  --wait LIST          strategies (specs as sr_wait_config_parse takes them, or 'all')\n"
	    "  --runs N             throughput runs per strategy, interleaved (default 5)\n"
	    "  --seconds S          target length of one throughput run (default 0.2)\n"
	    "  --events N           fixed events per throughput run instead\n"
	    "  --pings N            most round trips measured per strategy (default 100000)\n"
	    "  --ping-seconds S     most time spent on round trips per strategy (default 0.5)\n"
	    "  --idle-seconds S     idle spell for the CPU measurement (default 1)\n"
	    "  --full-producers N   producer threads in the full-ring test (default 64)\n"
	    "  --full-slots N       ring slots in the full-ring test (default 1024)\n"
	    "  --full-rate N        consumer events per second in the full-ring test (default 1000)\n"
	    "  --full-seconds S     measured spell of the full-ring test (default 5)\n"
	    "  --full-wait SPEC     consumer strategy in the full-ring test (default timeout)\n"
	    "  --no-full            skip the full-ring test\n"
	    "  --out FILE           CSV output (default perf/results/wait.csv)\n"
	    "  --quick              tiny counts and spells (for CTest)\n"
	    "  --quiet              no progress on stderr\n");
}

/* --wait: a bench_flag parser. */
static bool
parse_waits(void *dest, char **values, char *err, size_t errsize)
{
	return bench_parse_wait_list(values[0], NULL, dest, err, errsize);
}

/* --full-wait: a bench_flag parser. */
static bool
parse_full_wait(void *dest, char **values, char *err, size_t errsize)
{
	sr_error e;
	if (sr_wait_config_parse(values[0], dest, &e) == SR_OK)
		return true;
	snprintf(err, errsize, "--full-wait '%.64s' is invalid: %s", values[0], e.message);
	return false;
}

/* The options from the command line, with --quick's counts and spells; BENCH_PARSED_BAD with err. */
static enum bench_parsed
parse_args(int argc, char **argv, options *o, char *err, size_t errsize)
{
	*o = (options){ .runs = 5, .seconds = 0.2, .max_pings = 100000, .ping_seconds = 0.5,
	    .idle_seconds = 1.0, .full_producers = 64, .full_slots = 1024, .full_rate = 1000,
	    .full_seconds = 5.0, .full = true, .out_path = "perf/results/wait.csv" };
	sr_wait_config_default(&o->full_wait, SR_WAIT_TIMEOUT);
	bench_parse_wait_list("all", NULL, &o->waits, err, errsize);
	const bench_flag flags[] = {
		{ BENCH_FLAG("--wait", BENCH_CUSTOM, &o->waits), .parse = parse_waits },
		{ BENCH_FLAG("--runs", BENCH_INT, &o->runs), .max = MAX_RUNS },
		{ BENCH_FLAG("--seconds", BENCH_SECONDS, &o->seconds) },
		{ BENCH_FLAG("--events", BENCH_COUNT, &o->fixed_events) },
		{ BENCH_FLAG("--pings", BENCH_COUNT, &o->max_pings) },
		{ BENCH_FLAG("--ping-seconds", BENCH_SECONDS, &o->ping_seconds) },
		{ BENCH_FLAG("--idle-seconds", BENCH_SECONDS, &o->idle_seconds) },
		{ BENCH_FLAG("--full-producers", BENCH_INT, &o->full_producers), .max = 4096 },
		{ BENCH_FLAG("--full-slots", BENCH_POWER_OF_TWO, &o->full_slots), .min = 2, .max = INT64_C(1) << 30 },
		{ BENCH_FLAG("--full-rate", BENCH_COUNT, &o->full_rate), .max = 1000000000 },
		{ BENCH_FLAG("--full-seconds", BENCH_SECONDS, &o->full_seconds) },
		{ BENCH_FLAG("--full-wait", BENCH_CUSTOM, &o->full_wait), .parse = parse_full_wait },
		{ BENCH_FLAG("--no-full", BENCH_SWITCH, &o->full), .switch_to = false },
		{ BENCH_FLAG("--out", BENCH_TEXT, &o->out_path) },
	};
	enum bench_parsed parsed = bench_parse_flags(argc, argv, flags, (int)(sizeof flags / sizeof flags[0]),
	    &o->quick, usage, err, errsize);
	if (parsed != BENCH_PARSED_RUN)
		return parsed;
	if (o->max_pings < 10)
		o->max_pings = 10;
	if (!o->quick)
		return BENCH_PARSED_RUN;
	o->runs = 1;
	if (o->fixed_events == 0)
		o->fixed_events = 20000;
	o->max_pings = 200;
	o->ping_seconds = 0.05;
	o->idle_seconds = 0.02;
	o->full_producers = o->full_producers < 8 ? o->full_producers : 8;
	o->full_slots = 16;
	o->full_seconds = 0.05;
	return BENCH_PARSED_RUN;
}

/* Every strategy's round trips, then its idle CPU; returns the measurements that failed. */
static int
measure_strategies(strategy_row *rows, int nwaits, const options *o)
{
	char err[512];
	int failures = 0;
	for (int i = 0; i < nwaits; i++) {
		strategy_row *r = &rows[i];
		bench_progress("[wait] ping-pong %d/%d: %s", i + 1, nwaits, sr_wait_kind_name(r->wait.kind));
		if (run_pingpong(r, o, err, sizeof err) != 0) {
			fprintf(stderr, PROG ": FAILED ping-pong %s: %s\n", sr_wait_kind_name(r->wait.kind), err);
			r->failed = true;
			failures++;
		}
	}
	for (int i = 0; i < nwaits; i++) {
		strategy_row *r = &rows[i];
		bench_progress("[wait] idle CPU %d/%d: %s (%.2f s)", i + 1, nwaits,
		    sr_wait_kind_name(r->wait.kind), o->idle_seconds);
		if (run_idle(r, o, err, sizeof err) != 0) {
			fprintf(stderr, PROG ": FAILED idle %s: %s\n", sr_wait_kind_name(r->wait.kind), err);
			r->failed = true;
			failures++;
		}
	}
	return failures;
}

/* The full-ring test, synchronized enqueue on then off; returns the runs that failed. */
static int
measure_full(full_row *full, const options *o)
{
	char err[512];
	int failures = 0;
	for (int i = 0; i < 2; i++) {
		full[i].sync = i == 0;
		bench_progress("[wait] full ring %d/2: %d producers, %" PRId64 " slots, consumer at %" PRId64
		    "/s, synchronized enqueue %s, %.1f s", i + 1, o->full_producers, o->full_slots,
		    o->full_rate, full[i].sync ? "on" : "off", o->full_seconds);
		if (run_full(&full[i], o, err, sizeof err) != 0) {
			fprintf(stderr, PROG ": FAILED full ring: %s\n", err);
			full[i].failed = true;
			failures++;
		}
	}
	return failures;
}

static bool
write_csv(const options *o, const topo_row *tput, const strategy_row *rows, int nwaits,
    const full_row *full)
{
	FILE *csv = bench_open_output(o->out_path);
	if (csv == NULL)
		return false;
	fprintf(csv, "test,wait,producers,slots,sync_enqueue,events_per_sec,runs,min_events_per_sec,"
	    "max_events_per_sec,rtt_p50_ns,rtt_p99_ns,rtt_p999_ns,rtt_max_ns,rtt_samples,"
	    "idle_cpu_ms_per_s,cpu_seconds,seconds,events_delivered\n");
	for (int i = 0; i < nwaits; i++) {
		const strategy_row *r = &rows[i];
		const topo_row *t = &tput[i];
		if (r->failed || t->failed)
			continue;
		fprintf(csv, "strategy,%s,1,%" PRId64 ",,%.0f,%d,%.0f,%.0f,%" PRId64 ",%" PRId64 ",%" PRId64
		    ",%" PRId64 ",%zu,%.3f,,,\n", sr_wait_kind_name(r->wait.kind), t->v.ring_size,
		    t->rate.median, t->nrates, t->rate.min, t->rate.max, r->p50, r->p99, r->p999, r->pmax,
		    r->samples, r->idle_ms_per_s);
	}
	for (int i = 0; i < 2 && o->full; i++) {
		const full_row *f = &full[i];
		if (f->failed)
			continue;
		fprintf(csv, "full_ring,%s,%d,%" PRId64 ",%s,,,,,,,,,,,%.3f,%.3f,%" PRId64 "\n",
		    sr_wait_kind_name(o->full_wait.kind), o->full_producers, o->full_slots,
		    f->sync ? "on" : "off", f->cpu_seconds, f->seconds, f->delivered);
	}
	if (fclose(csv) != 0) {
		fprintf(stderr, PROG ": error writing %s\n", o->out_path);
		return false;
	}
	return true;
}

static void
print_markdown(const options *o, const topo_row *tput, const strategy_row *rows, int nwaits,
    const full_row *full)
{
	printf("### Wait strategies (1 producer -> 1 consumer, 8-byte events)\n\n");
	printf("Throughput: median of %d interleaved runs on a %" PRId64 "-slot ring. Round trip: ping-pong "
	    "through two 1024-slot rings, up to %" PRId64 " samples or %.2f s after a warm-up. Idle: "
	    "consumer thread CPU time over %.2f s with nothing published.\n\n",
	    o->runs, tput[0].v.ring_size, o->max_pings, o->ping_seconds, o->idle_seconds);
	printf("| wait | events/s (median) | min | max | RTT p50 | RTT p99 | RTT p99.9 | RTT max | samples | idle CPU (ms/s) |\n");
	printf("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
	for (int i = 0; i < nwaits; i++) {
		const strategy_row *r = &rows[i];
		const topo_row *t = &tput[i];
		char a[32], b[32], c[32];
		if (r->failed || t->failed) {
			printf("| %s | FAILED | | | | | | | | |\n", sr_wait_kind_name(r->wait.kind));
			continue;
		}
		printf("| %s | %s | %s | %s | %.1f us | %.1f us | %.1f us | %.1f us | %zu | %.1f |\n",
		    sr_wait_kind_name(r->wait.kind), bench_fmt_rate(t->rate.median, a, sizeof a),
		    bench_fmt_rate(t->rate.min, b, sizeof b), bench_fmt_rate(t->rate.max, c, sizeof c),
		    (double)r->p50 / 1e3, (double)r->p99 / 1e3, (double)r->p999 / 1e3,
		    (double)r->pmax / 1e3, r->samples, r->idle_ms_per_s);
	}
	if (o->full) {
		printf("\n### Full ring: %d producers, %" PRId64 "-slot ring, consumer slowed to %" PRId64
		    " events/s (%s)\n\n", o->full_producers, o->full_slots, o->full_rate,
		    sr_wait_kind_name(o->full_wait.kind));
		printf("| synchronized enqueue | process CPU (s) | over (s) | cores busy | events delivered | events/s |\n");
		printf("|---|--:|--:|--:|--:|--:|\n");
		for (int i = 0; i < 2; i++) {
			const full_row *f = &full[i];
			if (f->failed) {
				printf("| %s | FAILED | | | | |\n", f->sync ? "on" : "off");
				continue;
			}
			printf("| %s | %.2f | %.2f | %.2f | %" PRId64 " | %.0f |\n", f->sync ? "on" : "off",
			    f->cpu_seconds, f->seconds, f->cpu_seconds / f->seconds, f->delivered,
			    (double)f->delivered / f->seconds);
		}
	}
	printf("\nCSV: %s\n", o->out_path);
}

int
main(int argc, char **argv)
{
	char err[512];
	options o;
	enum bench_parsed parsed = parse_args(argc, argv, &o, err, sizeof err);
	if (parsed != BENCH_PARSED_RUN)
		return bench_parsed_exit(parsed, PROG, err);
	const int nwaits = o.waits.nwaits;
	static strategy_row rows[MAX_WAITS];
	static topo_row tput[MAX_WAITS];
	for (int i = 0; i < nwaits; i++) {
		rows[i].wait = o.waits.waits[i].config;
		tput[i].v = (topo_variant){ .topo = TOPO_1_1, .impl = IMPL_SEQRING, .wait = rows[i].wait,
		    .ring_size = o.quick ? 1024 : 65536 };
	}
	/* Throughput: the ring_perf 1-1 test, warm-up and calibration round, then interleaved rounds. */
	const topo_rounds rounds = { .tag = "[wait] throughput", .prog = PROG, .runs = o.runs,
	    .fixed_events = o.fixed_events, .max_events = 200000000, .seconds = o.seconds,
	    .run_timeout = o.fixed_events ? 60.0 : 2.0, .no_warmup = o.quick };
	int failures = topo_rounds_run(tput, nwaits, &rounds);
	failures += measure_strategies(rows, nwaits, &o);
	full_row full[2];
	memset(full, 0, sizeof full);
	if (o.full)
		failures += measure_full(full, &o);

	if (!write_csv(&o, tput, rows, nwaits, full))
		return 1;
	print_markdown(&o, tput, rows, nwaits, full);
	if (failures) {
		fprintf(stderr, PROG ": %d measurement(s) failed\n", failures);
		return 1;
	}
	return 0;
}

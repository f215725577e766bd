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
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "bench_util.h"
#include "sr_barrier.h"
#include "sr_processor.h"
#include "sr_ring.h"
#include "sr_sequencer.h"
#include "topology.h"

#define MAX_WAITS 32
#define MAX_RUNS 101

typedef struct strategy_row {
	sr_wait_config wait;
	int64_t events;
	double rates[MAX_RUNS];
	int nrates;
	double median, min, max;
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
} options;

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
	sr_error e;
	sr_error_clear(&e);
	int rc = -1;
	const int64_t slots = 1024;
	sr_ring *ra = NULL, *rb = NULL;
	sr_sequencer *sa = NULL, *sb = NULL;
	sr_processor *echo = NULL;
	sr_sequence *mine = NULL;
	sr_barrier *bar = NULL;
	int64_t *samples = NULL;
	bool started = false;
	echo_ctx ectx;

	ra = sr_ring_create(slots, 8, NULL, NULL, &e);
	rb = ra ? sr_ring_create(slots, 8, NULL, NULL, &e) : NULL;
	if (rb == NULL)
		goto fail_sr;
	sr_sequencer_config c;
	sr_sequencer_config_default(&c, slots, SR_PRODUCER_SINGLE);
	c.wait = row->wait;
	sa = sr_sequencer_create(&c, &e);
	sb = sa ? sr_sequencer_create(&c, &e) : NULL;
	if (sb == NULL)
		goto fail_sr;
	ectx.out = sb;
	ectx.out_ring = rb;
	sr_processor_config pc;
	memset(&pc, 0, sizeof pc);
	pc.ring = ra;
	pc.sequencer = sa;
	pc.handler.ctx = &ectx;
	pc.handler.on_event = echo_event;
	echo = sr_processor_create(&pc, &e);
	if (echo == NULL)
		goto fail_sr;
	sr_sequencer_add_gating(sa, sr_processor_sequence(echo));

	mine = aligned_alloc(SR_CACHELINE, sizeof *mine);
	bar = aligned_alloc(SR_CACHELINE, (sizeof *bar + SR_CACHELINE - 1) / SR_CACHELINE * SR_CACHELINE);
	samples = malloc(sizeof *samples * (size_t)o->max_pings);
	if (mine == NULL || bar == NULL || samples == NULL) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	sr_sequence_init(mine, -1);
	sr_sequencer_add_gating(sb, mine);
	if (sr_barrier_init(bar, sb, NULL, 0, &e) != SR_OK)
		goto fail_sr;
	if (sr_processor_start(echo, &e) != SR_OK)
		goto fail_sr;
	started = true;

	const int64_t warmup = o->max_pings / 10 < 1000 ? o->max_pings / 10 : 1000;
	const int64_t limit_ns = (int64_t)(o->ping_seconds * 1e9);
	size_t n = 0;
	int64_t begin = bench_now_ns();
	for (int64_t i = 0;; i++) {
		int64_t t0 = bench_now_ns();
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
		int64_t t1 = bench_now_ns();
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
	goto out;
fail_sr:
	snprintf(err, errlen, "%s", e.message[0] ? e.message : "setup failed");
out:
	if (started) {
		sr_processor_halt(echo);
		sr_processor_join(echo);
	}
	sr_processor_destroy(echo);
	free(samples);
	free(bar);
	free(mine);
	sr_sequencer_destroy(sa);
	sr_sequencer_destroy(sb);
	sr_ring_destroy(ra);
	sr_ring_destroy(rb);
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
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
	}
}

static int
run_idle(strategy_row *row, const options *o, char *err, size_t errlen)
{
	sr_error e;
	sr_error_clear(&e);
	int rc = -1;
	sr_ring *ring = sr_ring_create(1024, 8, NULL, NULL, &e);
	sr_sequencer *s = NULL;
	sr_processor *p = NULL;
	bool started = false;
	atomic_llong handled;
	atomic_init(&handled, 0);
	if (ring == NULL)
		goto fail_sr;
	sr_sequencer_config c;
	sr_sequencer_config_default(&c, 1024, SR_PRODUCER_SINGLE);
	c.wait = row->wait;
	s = sr_sequencer_create(&c, &e);
	if (s == NULL)
		goto fail_sr;
	sr_processor_config pc;
	memset(&pc, 0, sizeof pc);
	pc.ring = ring;
	pc.sequencer = s;
	pc.handler.ctx = &handled;
	pc.handler.on_event = count_event;
	p = sr_processor_create(&pc, &e);
	if (p == NULL)
		goto fail_sr;
	sr_sequencer_add_gating(s, sr_processor_sequence(p));
	if (sr_processor_start(p, &e) != SR_OK)
		goto fail_sr;
	started = true;
	/* One event, so the consumer has run a batch and gone back to waiting. */
	int64_t seq;
	sr_sequencer_claim(s, &seq);
	*(int64_t *)sr_ring_slot(ring, seq) = 1;
	sr_sequencer_publish(s, seq);
	while (atomic_load_explicit(&handled, memory_order_relaxed) < 1)
		sleep_seconds(0.0001);
	sleep_seconds(0.05);   /* phased reaches its fallback after 110 us */
	clockid_t clk;
	if (pthread_getcpuclockid(p->thread, &clk) != 0) {
		snprintf(err, errlen, "pthread_getcpuclockid failed");
		goto out;
	}
	int64_t c0 = thread_cpu_ns(clk);
	int64_t w0 = bench_now_ns();
	sleep_seconds(o->idle_seconds);
	int64_t c1 = thread_cpu_ns(clk);
	int64_t w1 = bench_now_ns();
	row->idle_ms_per_s = (double)(c1 - c0) / 1e6 / ((double)(w1 - w0) / 1e9);
	rc = 0;
	goto out;
fail_sr:
	snprintf(err, errlen, "%s", e.message[0] ? e.message : "setup failed");
out:
	if (started) {
		sr_processor_halt(p);
		sr_processor_join(p);
	}
	sr_processor_destroy(p);
	sr_sequencer_destroy(s);
	sr_ring_destroy(ring);
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
	int64_t now = bench_now_ns();
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
	sr_error e;
	sr_error_clear(&e);
	int rc = -1;
	sr_ring *ring = sr_ring_create(o->full_slots, 8, NULL, NULL, &e);
	sr_sequencer *s = NULL;
	sr_processor *p = NULL;
	full_ctx *f = aligned_alloc(128, (sizeof *f + 127) / 128 * 128);
	pthread_t *tids = calloc((size_t)o->full_producers, sizeof *tids);
	int started = 0;
	bool proc_started = false;
	if (f == NULL || tids == NULL) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	memset(f, 0, sizeof *f);
	atomic_init(&f->delivered, 0);
	atomic_init(&f->fast, 0);
	atomic_init(&f->stop, 0);
	f->period_ns = 1000000000 / o->full_rate;
	if (ring == NULL)
		goto fail_sr;
	sr_sequencer_config c;
	sr_sequencer_config_default(&c, o->full_slots, SR_PRODUCER_MULTI);
	c.wait = o->full_wait;
	c.synchronize_enqueue_when_full = row->sync;
	s = sr_sequencer_create(&c, &e);
	if (s == NULL)
		goto fail_sr;
	f->seq = s;
	f->ring = ring;
	sr_processor_config pc;
	memset(&pc, 0, sizeof pc);
	pc.ring = ring;
	pc.sequencer = s;
	pc.handler.ctx = f;
	pc.handler.on_event = slow_event;
	p = sr_processor_create(&pc, &e);
	if (p == NULL)
		goto fail_sr;
	sr_sequencer_add_gating(s, sr_processor_sequence(p));
	clock_gettime(CLOCK_MONOTONIC, &f->next);
	if (sr_processor_start(p, &e) != SR_OK)
		goto fail_sr;
	proc_started = true;
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
	int64_t w0 = bench_now_ns();
	sleep_seconds(o->full_seconds);
	double cpu1 = process_cpu_seconds();
	int64_t d1 = atomic_load_explicit(&f->delivered, memory_order_relaxed);
	int64_t w1 = bench_now_ns();
	row->cpu_seconds = cpu1 - cpu0;
	row->seconds = (double)(w1 - w0) / 1e9;
	row->delivered = d1 - d0;
	rc = 0;
	goto out;
fail_sr:
	snprintf(err, errlen, "%s", e.message[0] ? e.message : "setup failed");
out:
	if (f != NULL) {
		atomic_store_explicit(&f->fast, 1, memory_order_relaxed);
		/* pairs with the load-acquire in full_producer */
		atomic_store_explicit(&f->stop, 1, memory_order_release);
	}
	for (int i = 0; i < started; i++)
		pthread_join(tids[i], NULL);
	if (proc_started) {
		sr_processor_drain_and_halt(p);
		sr_processor_join(p);
	}
	sr_processor_destroy(p);
	sr_sequencer_destroy(s);
	sr_ring_destroy(ring);
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

static bool
want_value(int argc, char **argv, int i)
{
	if (i + 1 < argc)
		return true;
	fprintf(stderr, "wait_perf: %s needs a value\n", argv[i]);
	return false;
}

int
main(int argc, char **argv)
{
	options o;
	memset(&o, 0, sizeof o);
	o.runs = 5;
	o.seconds = 0.2;
	o.max_pings = 100000;
	o.ping_seconds = 0.5;
	o.idle_seconds = 1.0;
	o.full_producers = 64;
	o.full_slots = 1024;
	o.full_rate = 1000;
	o.full_seconds = 5.0;
	o.full = true;
	o.out_path = "perf/results/wait.csv";
	sr_wait_config_default(&o.full_wait, SR_WAIT_TIMEOUT);
	sr_wait_config waits[MAX_WAITS];
	int nwaits = perf_parse_waits("all", waits, MAX_WAITS, "wait_perf");
	bool quick = false;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int64_t n;
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			usage(stdout);
			return 0;
		} else if (strcmp(a, "--quick") == 0) {
			quick = true;
		} else if (strcmp(a, "--quiet") == 0) {
			bench_quiet = true;
		} else if (strcmp(a, "--no-full") == 0) {
			o.full = false;
		} else if (!want_value(argc, argv, i)) {
			return 2;
		} else if (strcmp(a, "--wait") == 0) {
			if ((nwaits = perf_parse_waits(argv[++i], waits, MAX_WAITS, "wait_perf")) < 0)
				return 2;
		} else if (strcmp(a, "--full-wait") == 0) {
			sr_error e;
			if (sr_wait_config_parse(argv[++i], &o.full_wait, &e) != SR_OK) {
				fprintf(stderr, "wait_perf: --full-wait: %s\n", e.message);
				return 2;
			}
		} else if (strcmp(a, "--out") == 0) {
			o.out_path = argv[++i];
		} else if (strcmp(a, "--seconds") == 0 || strcmp(a, "--ping-seconds") == 0 ||
		    strcmp(a, "--idle-seconds") == 0 || strcmp(a, "--full-seconds") == 0) {
			double v;
			if (!bench_parse_seconds(argv[++i], &v)) {
				fprintf(stderr, "wait_perf: %s %s: expected a positive number of seconds\n", a, argv[i]);
				return 2;
			}
			if (strcmp(a, "--seconds") == 0) o.seconds = v;
			else if (strcmp(a, "--ping-seconds") == 0) o.ping_seconds = v;
			else if (strcmp(a, "--idle-seconds") == 0) o.idle_seconds = v;
			else o.full_seconds = v;
		} else if (strcmp(a, "--runs") == 0 || strcmp(a, "--events") == 0 ||
		    strcmp(a, "--pings") == 0 || strcmp(a, "--full-producers") == 0 ||
		    strcmp(a, "--full-slots") == 0 || strcmp(a, "--full-rate") == 0) {
			if (!bench_parse_count(argv[++i], &n)) {
				fprintf(stderr, "wait_perf: %s %s: expected a positive count\n", a, argv[i]);
				return 2;
			}
			if (strcmp(a, "--runs") == 0) {
				if (n > MAX_RUNS) {
					fprintf(stderr, "wait_perf: --runs %s: expected 1 to %d\n", argv[i], MAX_RUNS);
					return 2;
				}
				o.runs = (int)n;
			} else if (strcmp(a, "--events") == 0) {
				o.fixed_events = n;
			} else if (strcmp(a, "--pings") == 0) {
				o.max_pings = n < 10 ? 10 : n;
			} else if (strcmp(a, "--full-producers") == 0) {
				if (n > 4096) {
					fprintf(stderr, "wait_perf: --full-producers %s: expected 1 to 4096\n", argv[i]);
					return 2;
				}
				o.full_producers = (int)n;
			} else if (strcmp(a, "--full-slots") == 0) {
				if (n < 2 || (n & (n - 1)) != 0 || n > (INT64_C(1) << 30)) {
					fprintf(stderr, "wait_perf: --full-slots %s: expected a power of two from 2 to 2^30\n", argv[i]);
					return 2;
				}
				o.full_slots = n;
			} else {
				if (n > 1000000000) {
					fprintf(stderr, "wait_perf: --full-rate %s: expected 1 to 1G\n", argv[i]);
					return 2;
				}
				o.full_rate = n;
			}
		} else {
			fprintf(stderr, "wait_perf: unknown option: %s\n", a);
			usage(stderr);
			return 2;
		}
	}
	if (quick) {
		o.runs = 1;
		if (o.fixed_events == 0)
			o.fixed_events = 20000;
		o.max_pings = 200;
		o.ping_seconds = 0.05;
		o.idle_seconds = 0.02;
		o.full_producers = o.full_producers < 8 ? o.full_producers : 8;
		o.full_slots = 16;
		o.full_seconds = 0.05;
	}

	static strategy_row rows[MAX_WAITS];
	memset(rows, 0, sizeof rows);
	for (int i = 0; i < nwaits; i++)
		rows[i].wait = waits[i];
	char err[512];
	int failures = 0;

	/* Throughput: warm-up + calibration round, then interleaved rounds. */
	topo_variant v;
	memset(&v, 0, sizeof v);
	v.topo = TOPO_1_1;
	v.impl = IMPL_SEQRING;
	v.ring_size = quick ? 1024 : 65536;
	for (int i = 0; i < nwaits; i++) {
		strategy_row *r = &rows[i];
		v.wait = r->wait;
		int64_t pilot = o.fixed_events ? o.fixed_events : 1000000;
		bench_progress("[wait] throughput warm-up %d/%d: %s", i + 1, nwaits, sr_wait_kind_name(r->wait.kind));
		topo_result res;
		if (!quick && topo_run(&v, pilot, 2.0, &res, err, sizeof err) != 0) {
			fprintf(stderr, "wait_perf: FAILED %s\n", err);
			r->failed = true;
			failures++;
			continue;
		}
		if (o.fixed_events || quick) {
			r->events = pilot;
		} else {
			double want = res.events_per_sec * o.seconds;
			r->events = (int64_t)(want < 1000 ? 1000 : want > 2e8 ? 2e8 : want);
		}
	}
	for (int k = 0; k < o.runs; k++) {
		for (int i = 0; i < nwaits; i++) {
			strategy_row *r = &rows[i];
			if (r->failed)
				continue;
			v.wait = r->wait;
			bench_progress("[wait] throughput run %d/%d: %s (%" PRId64 " events)", k + 1, o.runs,
			    sr_wait_kind_name(r->wait.kind), r->events);
			topo_result res;
			if (topo_run(&v, r->events, o.fixed_events ? 60.0 : 2.0, &res, err, sizeof err) != 0) {
				fprintf(stderr, "wait_perf: FAILED %s\n", err);
				r->failed = true;
				failures++;
				continue;
			}
			r->rates[r->nrates++] = res.events_per_sec;
		}
	}
	for (int i = 0; i < nwaits; i++) {
		strategy_row *r = &rows[i];
		if (r->nrates == 0)
			continue;
		double tmp[MAX_RUNS];
		memcpy(tmp, r->rates, sizeof(double) * (size_t)r->nrates);
		r->median = bench_median(tmp, r->nrates);
		r->min = bench_min(r->rates, r->nrates);
		r->max = bench_max(r->rates, r->nrates);
	}

	for (int i = 0; i < nwaits; i++) {
		strategy_row *r = &rows[i];
		bench_progress("[wait] ping-pong %d/%d: %s", i + 1, nwaits, sr_wait_kind_name(r->wait.kind));
		if (run_pingpong(r, &o, err, sizeof err) != 0) {
			fprintf(stderr, "wait_perf: FAILED ping-pong %s: %s\n", sr_wait_kind_name(r->wait.kind), err);
			r->failed = true;
			failures++;
		}
	}
	for (int i = 0; i < nwaits; i++) {
		strategy_row *r = &rows[i];
		bench_progress("[wait] idle CPU %d/%d: %s (%.2f s)", i + 1, nwaits,
		    sr_wait_kind_name(r->wait.kind), o.idle_seconds);
		if (run_idle(r, &o, err, sizeof err) != 0) {
			fprintf(stderr, "wait_perf: FAILED idle %s: %s\n", sr_wait_kind_name(r->wait.kind), err);
			r->failed = true;
			failures++;
		}
	}

	full_row full[2];
	memset(full, 0, sizeof full);
	full[0].sync = true;
	full[1].sync = false;
	if (o.full) {
		for (int i = 0; i < 2; i++) {
			bench_progress("[wait] full ring %d/2: %d producers, %" PRId64 " slots, consumer at %" PRId64
			    "/s, synchronized enqueue %s, %.1f s", i + 1, o.full_producers, o.full_slots,
			    o.full_rate, full[i].sync ? "on" : "off", o.full_seconds);
			if (run_full(&full[i], &o, err, sizeof err) != 0) {
				fprintf(stderr, "wait_perf: FAILED full ring: %s\n", err);
				full[i].failed = true;
				failures++;
			}
		}
	}

	FILE *csv = bench_open_output(o.out_path);
	if (csv == NULL)
		return 1;
	fprintf(csv, "test,wait,producers,slots,sync_enqueue,events_per_sec,runs,min_events_per_sec,"
	    "max_events_per_sec,rtt_p50_ns,rtt_p99_ns,rtt_p999_ns,rtt_max_ns,rtt_samples,"
	    "idle_cpu_ms_per_s,cpu_seconds,seconds,events_delivered\n");
	for (int i = 0; i < nwaits; i++) {
		const strategy_row *r = &rows[i];
		if (r->failed)
			continue;
		fprintf(csv, "strategy,%s,1,%" PRId64 ",,%.0f,%d,%.0f,%.0f,%" PRId64 ",%" PRId64 ",%" PRId64
		    ",%" PRId64 ",%zu,%.3f,,,\n", sr_wait_kind_name(r->wait.kind), v.ring_size,
		    r->median, r->nrates, r->min, r->max, r->p50, r->p99, r->p999, r->pmax, r->samples,
		    r->idle_ms_per_s);
	}
	for (int i = 0; i < 2 && o.full; i++) {
		const full_row *f = &full[i];
		if (f->failed)
			continue;
		fprintf(csv, "full_ring,%s,%d,%" PRId64 ",%s,,,,,,,,,,,%.3f,%.3f,%" PRId64 "\n",
		    sr_wait_kind_name(o.full_wait.kind), o.full_producers, o.full_slots,
		    f->sync ? "on" : "off", f->cpu_seconds, f->seconds, f->delivered);
	}
	if (fclose(csv) != 0) {
		fprintf(stderr, "wait_perf: error writing %s\n", o.out_path);
		return 1;
	}

	printf("### Wait strategies (1 producer -> 1 consumer, 8-byte events)\n\n");
	printf("Throughput: median of %d interleaved runs on a %" PRId64 "-slot ring. Round trip: ping-pong "
	    "through two 1024-slot rings, up to %" PRId64 " samples or %.2f s after a warm-up. Idle: "
	    "consumer thread CPU time over %.2f s with nothing published.\n\n",
	    o.runs, v.ring_size, o.max_pings, o.ping_seconds, o.idle_seconds);
	printf("| wait | events/s (median) | min | max | RTT p50 | RTT p99 | RTT p99.9 | RTT max | samples | idle CPU (ms/s) |\n");
	printf("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
	for (int i = 0; i < nwaits; i++) {
		const strategy_row *r = &rows[i];
		char a[32], b[32], c[32];
		if (r->failed) {
			printf("| %s | FAILED | | | | | | | | |\n", sr_wait_kind_name(r->wait.kind));
			continue;
		}
		printf("| %s | %s | %s | %s | %.1f us | %.1f us | %.1f us | %.1f us | %zu | %.1f |\n",
		    sr_wait_kind_name(r->wait.kind), bench_fmt_rate(r->median, a, sizeof a),
		    bench_fmt_rate(r->min, b, sizeof b), bench_fmt_rate(r->max, c, sizeof c),
		    (double)r->p50 / 1e3, (double)r->p99 / 1e3, (double)r->p999 / 1e3,
		    (double)r->pmax / 1e3, r->samples, r->idle_ms_per_s);
	}
	if (o.full) {
		printf("\n### Full ring: %d producers, %" PRId64 "-slot ring, consumer slowed to %" PRId64
		    " events/s (%s)\n\n", o.full_producers, o.full_slots, o.full_rate,
		    sr_wait_kind_name(o.full_wait.kind));
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
	printf("\nCSV: %s\n", o.out_path);
	if (failures) {
		fprintf(stderr, "wait_perf: %d measurement(s) failed\n", failures);
		return 1;
	}
	return 0;
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * locked_instruction.c: what a locked instruction costs the caller of a log
 * call.  With the logger's shared ring (producer shared) every
 * call claims its slots with a CAS on the ring's one cursor (lock cmpxchg)
 * and publishes behind a StoreLoad fence (a locked add, to see whether the
 * consumer sleeps); with a ring per thread (producer per_thread,
 * SEQRING_LOG_PRODUCER=per_thread) a call claims on its own single-producer
 * ring with plain arithmetic and publishes with one store-release.
 *
 * T threads (default: as many as this process has CPUs) call SR_INFO
 * together in bursts, started together (each spins at a gate until the
 * others are there too), each burst timed as a whole; between bursts, untimed,
 * the logger writes everything out (the rings hold a burst, so no caller
 * waits for room).  The consumer writes the text layout to /dev/null.
 *
 * The prediction: a shared-ring call costs a per-thread call plus its two
 * locked instructions (2 L, L measured here: a lock xadd on a line no other
 * thread touches), plus, with more than one caller running at once, the
 * cursor's line fetched from the other caller's core (T) on every claim.
 * --ring-slots 1024 gives the shared ring less room than a burst: callers then
 * wait for the consumer to write lines out, and the verdict says so.
 * --same-cpu puts every caller on one CPU: they take turns, no line moves.
 *
 * Flips the verdict: --ring-slots 1024
 *
 * Run: locked_instruction [--quick] [--threads N] [--bursts N] [--ring-slots SLOTS] [--same-cpu]
 */
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ex_flags.h"
#include "ex_machine.h"
#include "ex_verdict.h"
#include "request_loop.h"
#include <seqring/sr_wait.h>

#define BURST 10000
#define MAX_BURSTS 10000
#define MAX_THREADS 16

#define RING_SLOTS 65536

static int64_t bursts = 100;
static int64_t ring_slots = RING_SLOTS; /* the shared ring's; each per-thread ring holds a burst */
static int threads;
static bool same_cpu;

/* ---------------------------------------------------------------------------------------- */
/* L: one locked instruction on a line of its own                                           */

static struct { sr_atomic_i64 v; char pad[120]; } __attribute__((aligned(128))) own_line;

static double
locked_add_ns(void)
{
	const int64_t n = 1000000;
	double best = 1e30;
	for (int b = 0; b < 5; b++) {
		int64_t a = sr_monotonic_ns();
		for (int64_t i = 0; i < n; i++)
			sr_atomic_faa_i64(&own_line.v, 1);
		double ns = (double)(sr_monotonic_ns() - a) / (double)n;
		if (ns < best)
			best = ns;
	}
	return sr_atomic_load_relaxed_i64(&own_line.v) == 5 * n ? best : 0;
}

/* ---------------------------------------------------------------------------------------- */
/* The callers                                                                              */

struct run {
	sr_log *log;
	sr_category *cat;
	pthread_barrier_t done;
	sr_atomic_i64 ready;  /* callers spinning at the gate, all bursts counted */
	sr_atomic_i64 go;     /* the burst the callers may start: their start within a transfer of each other */
	double ns[MAX_THREADS][MAX_BURSTS];
	int64_t from[MAX_THREADS][MAX_BURSTS], to[MAX_THREADS][MAX_BURSTS]; /* each burst's start and end */
};

struct caller {
	struct run *run;
	int index;
};

static const char call_string[] = "0123456789abcdef";

static void *
caller(void *p)
{
	struct caller *c = p;
	struct run *r = c->run;
	sr_log_thread_prepare(r->log); /* a per-thread ring is made now, not in a timed call */
	for (int64_t b = 0; b < bursts; b++) {
		/* Spinning, not asleep at a barrier: a wake-up would start each caller W apart. */
		sr_atomic_faa_i64(&r->ready, 1);
		/* pairs with the store-release of go in run */
		while (sr_atomic_load_acquire_i64(&r->go) <= b)
			sr_atomic_pause();
		int64_t a = sr_monotonic_ns();
		for (int i = 0; i < BURST; i++)
			SR_INFO(r->cat, "x=%d y=%f s=%s", i, i * 0.5, call_string);
		int64_t e = sr_monotonic_ns();
		r->ns[c->index][b] = (double)(e - a) / BURST;
		r->from[c->index][b] = a;
		r->to[c->index][b] = e;
		pthread_barrier_wait(&r->done);
	}
	return NULL;
}

/*
 * The median over bursts of the callers' mean ns per call, with one producer
 * setting; *together gets the share of a burst's time in which every caller
 * was calling (median over the bursts): callers that did not run at the same
 * time never met on the cursor; *counters the logger's counters at its close.
 */
static double
run(sr_log_producer producer, double *together, sr_log_counters *counters)
{
	static struct run r;
	sr_log_config c;
	sr_log_config_default(&c);
	c.producer = producer;
	/* Room for a burst of every caller (and per thread: its own), unless --ring-slots says less. */
	c.ring_slots = (size_t)ring_slots;
	c.thread_ring_slots = 16384;
	c.ignore_environment = true; /* the producer is what this lesson sets, not the environment */
	sr_error err = { 0 };
	r.log = rl_log_open_devnull(&c, &err);
	if (r.log == NULL) {
		fprintf(stderr, "locked_instruction: sr_log_open: %s\n", err.message);
		return -1;
	}
	r.cat = sr_log_category(r.log, "lesson");
	pthread_barrier_init(&r.done, NULL, (unsigned)threads + 1);
	sr_atomic_store_relaxed_i64(&r.ready, 0);
	sr_atomic_store_relaxed_i64(&r.go, 0);
	pthread_t t[MAX_THREADS];
	struct caller cs[MAX_THREADS];
	int started = 0;
	for (int i = 0; i < threads; i++) {
		cs[i] = (struct caller){ &r, i };
		if (pthread_create(&t[i], NULL, caller, &cs[i]) != 0)
			break;
		started++;
	}
	if (started < threads) {
		fprintf(stderr, "locked_instruction: pthread_create failed\n");
		exit(1); /* the barriers would wait for ever for the missing callers */
	}
	double v[MAX_BURSTS], overlap[MAX_BURSTS];
	for (int64_t b = 0; b < bursts; b++) {
		/* Relaxed: the count only says who is at the gate; go's store-release publishes the burst. */
		while (sr_atomic_load_relaxed_i64(&r.ready) < (b + 1) * threads)
			sched_yield();
		/* pairs with the callers' load-acquire of go */
		sr_atomic_store_release_i64(&r.go, b + 1);
		pthread_barrier_wait(&r.done);
		sr_log_flush(r.log); /* untimed: the next burst finds the rings empty */
		double sum = 0;
		for (int i = 0; i < threads; i++)
			sum += r.ns[i][b];
		v[b] = sum / threads;
		int64_t lo = r.from[0][b], hi = r.to[0][b], first = lo, last = hi;
		for (int i = 1; i < threads; i++) {
			lo = r.from[i][b] > lo ? r.from[i][b] : lo;
			hi = r.to[i][b] < hi ? r.to[i][b] : hi;
			first = r.from[i][b] < first ? r.from[i][b] : first;
			last = r.to[i][b] > last ? r.to[i][b] : last;
		}
		overlap[b] = last > first && hi > lo ? (double)(hi - lo) / (double)(last - first) : 0;
	}
	*together = ex_median(overlap, (int)bursts);
	for (int i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&r.done);
	sr_log_counters st;
	sr_log_flush(r.log);
	sr_log_stats(r.log, &st);
	*counters = st;
	sr_log_close(&r.log);
	if (st.dropped != 0 || st.written != (uint64_t)(bursts * BURST * threads)) {
		fprintf(stderr, "locked_instruction: %" PRIu64 " lines written of %" PRId64 "\n", st.written,
		    bursts * BURST * threads);
		return -1;
	}
	return ex_median(v, (int)bursts);
}

static void
quick(void)
{
	bursts = 20;
}

int
main(int argc, char **argv)
{
	const ex_flag flags[] = {
		{ "--quick", EX_FLAG_ACTION, NULL, 0, 0, quick },
		{ "--threads", EX_FLAG_INT, &threads, 1, MAX_THREADS, NULL },
		{ "--bursts", EX_FLAG_INT64, &bursts, 5, MAX_BURSTS, NULL },
		{ "--ring-slots", EX_FLAG_POW2, &ring_slots, 1024, 1 << 24, NULL },
		{ "--same-cpu", EX_FLAG_SET, &same_cpu, 0, 0, NULL },
	};
	ex_flags_parse(argc, argv, "locked_instruction",
	    "[--quick] [--threads N (1.." EX_STRINGIFY(MAX_THREADS) ", default: the CPUs)] "
	    "[--bursts N (5.." EX_STRINGIFY(MAX_BURSTS) ", of " EX_STRINGIFY(BURST) " calls per thread)] "
	    "[--ring-slots SLOTS (the shared ring's, a power of two from 1024 to 16777216; default "
	    EX_STRINGIFY(RING_SLOTS) ")] [--same-cpu (every caller on one CPU)]", flags, sizeof flags / sizeof flags[0]);
	ex_machine m;
	ex_machine_measure(&m);
	if (threads == 0)
		threads = m.cpus < MAX_THREADS ? m.cpus : MAX_THREADS;
	/* This thread, and the callers and consumers it creates from now on, on one CPU. */
	if (same_cpu && !ex_run_on_one_cpu())
		return 1;
	double l = locked_add_ns();
	if (!ex_check_cycles(&m, "a locked add", l))
		return 1;
	ex_watch w;
	ex_watch_start(&w);
	double together;
	sr_log_counters per_thread_st, shared_st;
	double per_thread = run(SR_LOG_PRODUCER_PER_THREAD, &together, &per_thread_st);
	if (per_thread < 0)
		return 1;
	bool contended = threads > 1;
	double predicted = per_thread + 2 * l + (contended ? m.transfer_ns : 0);
	ex_predict("ns per call, producer shared", predicted, "ns",
	    "the per-thread call, %.1f ns (just measured), + 2 L = 2 x %.1f ns (a lock xadd on a line of its own)%s",
	    per_thread, l, contended ? " + T, the cursor's line from the other caller's core" : ", one caller");
	if (contended)
		printf("(T = %.0f ns.)\n\n", m.transfer_ns);
	double shared = run(SR_LOG_PRODUCER_SHARED, &together, &shared_st);
	if (shared < 0 || !ex_check_cycles(&m, "a call", per_thread) || !ex_check_cycles(&m, "a call", shared))
		return 1;
	printf("%d thread%s calling SR_INFO(cat, \"x=%%d y=%%f s=%%s\", ...) together, median of %" PRId64
	    " bursts of %d calls each, text layout to /dev/null.\n\n", threads, threads > 1 ? "s" : "", bursts, BURST);
	printf("| producer | ns per call |\n|---|---:|\n| per_thread (a ring per thread) | %.1f |\n"
	    "| shared (one ring, CAS on its cursor) | %.1f |\n\n", per_thread, shared);
	if (contended)
		printf("Every caller was calling during %.0f%% of a shared-ring burst (median).\n\n", 100 * together);
	char reason[200] = "";
	if (shared_st.max_occupancy >= shared_st.capacity / 2)
		snprintf(reason, sizeof reason, "the shared ring (%" PRId64 " slots) filled to %" PRId64 " slots: callers "
		    "waited for the consumer to write lines out, not only for each other", ring_slots,
		    shared_st.max_occupancy);
	else if (same_cpu && contended)
		snprintf(reason, sizeof reason, "every caller ran on one CPU (--same-cpu): they took turns, and the "
		    "cursor's line never left that CPU");
	else if (contended && together < 0.5)
		snprintf(reason, sizeof reason, "the callers ran at the same time for only %.0f%% of a burst "
		    "(median), so they seldom met on the cursor", 100 * together);
	ex_claim c = { .what = "ns per call, producer shared", .predicted = predicted, .measured = shared,
		.tolerance = 1.3, .threads = threads, .own_reason = reason[0] ? reason : NULL };
	ex_verdict(&m, &w, &c);
	printf("Measured: the shared ring's call cost %.1f ns more than a per-thread ring's (%.1f L).\n",
	    shared - per_thread, l > 0 ? (shared - per_thread) / l : 0);
	return 0;
}

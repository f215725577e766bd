/* SPDX-License-Identifier: Apache-2.0 */
/*
 * one_lock.c: a logger with one lock in the middle makes every thread that
 * logs line up on it.  The same request loop (~2 us of work and the five
 * messages per request of "The Speed Limit in Your Logs", to /dev/null) runs
 * with 1 to 16 threads through the logger's two asynchronous modes:
 *
 *   queue  the baseline, as .NET's console logger: the caller formats the
 *          line, then takes one mutex to append it to a bounded queue and
 *          signal the writer thread;
 *   ring   seqring's shared ring (producer shared): the caller claims slots
 *          with one CAS on the ring's cursor, copies its arguments in, and
 *          publishes; no lock.
 *
 * Measured around every log call (two clock reads, the same in both modes):
 * the time inside the call, mean and p99.  Without changing the
 * library, the time spent waiting for the queue's lock cannot be told apart
 * from the rest of the call; what can be counted is how often a calling
 * thread went to sleep (its voluntary context switches, getrusage
 * RUSAGE_THREAD): a contended mutex sleeps in the kernel (futex), a CAS
 * retries in user space.  The peak fill shows whether the queue or ring ever
 * filled, in which case callers also waited for the writer, not only for
 * each other (the sentence says from how many threads on).
 *
 * The prediction: a ring-mode caller does not sleep while the ring has room
 * (a failed CAS retries in user space), so its sleeps stay at most 1 per
 * 1,000 calls (a margin for the rare page fault or lock in the C library),
 * at every count from 2 threads to twice the CPUs (callers that meet on the
 * cursor while they run); the verdict judges the count with the most sleeps.
 * --judge-queue applies the same prediction to the queue mode, whose callers
 * take one mutex: a caller that finds it taken sleeps in the kernel;
 * with --capacity 1024 its queue also fills, and a caller that finds it full
 * waits for the writer asleep.  The verdict says so.
 *
 * Flips the verdict: --judge-queue --capacity 1024
 *
 * Run: one_lock [--quick] [--seconds S] [--capacity SLOTS] [--judge-queue]
 */
#include <inttypes.h>
#include <stdio.h>
#include <unistd.h>

#include "ex_flags.h"
#include "ex_machine.h"
#include "ex_verdict.h"
#include "request_loop.h"

#define CAPACITY 262144
#define QUICK_CAPACITY 65536

static double window_s = 1, warmup_s = 0.2;
static int64_t capacity = CAPACITY;
static int64_t work_iters;
static bool judge_queue; /* the prediction checked against the queue mode instead of the ring */

struct result {
	double requests_per_s;
	double call_p50_ns, call_mean_ns, call_p99_ns;
	double sleeps_per_1k;  /* voluntary context switches of the callers per 1,000 log calls */
	double peak_fill;      /* highest occupancy seen, % of capacity */
	bool full;             /* ... within one batch of full */
};

static int
run(sr_log_mode mode, int threads, struct result *r)
{
	sr_log_config c;
	sr_log_config_default(&c);
	c.mode = mode;
	/* The ring whose cursor every caller claims with a CAS (the queue mode ignores it). */
	c.producer = SR_LOG_PRODUCER_SHARED;
	c.ring_slots = capacity; /* room enough that callers wait for each other, not for the writer */
	c.layout = SR_LOG_LAYOUT_MESSAGE;
	sr_error err = { 0 };
	sr_log *log = rl_log_open_devnull(&c, &err);
	if (log == NULL) {
		fprintf(stderr, "one_lock: sr_log_open (%s): %s\n", sr_log_mode_name(mode), err.message);
		return -1;
	}
	rl_load l;
	rl_load_init(&l, log, RL_LINES_HTTPCLIENT, threads, work_iters, warmup_s, window_s);
	l.time_calls = true;
	rl_totals tot;
	if (rl_run_and_close(&l, &tot) != 0)
		return -1;
	r->requests_per_s = (double)tot.requests / window_s;
	r->call_p50_ns = ex_hist_quantile(&tot.call_ns, 0.5);
	r->call_mean_ns = ex_hist_mean(&tot.call_ns);
	r->call_p99_ns = ex_hist_quantile(&tot.call_ns, 0.99);
	r->sleeps_per_1k = tot.calls ? 1000.0 * (double)tot.nvcsw / (double)tot.calls : 0;
	const sr_log_counters *st = &tot.logger;
	r->peak_fill = st->capacity > 0 ? 100.0 * (double)st->max_occupancy / (double)st->capacity : 0;
	/*
	 * The peak is read when the consumer starts a batch, so a full ring
	 * shows as full less the batch it is working on (up to 4,096 slots, at most half the ring).
	 */
	r->full = st->max_occupancy >= st->capacity - (st->capacity / 2 < 4096 ? st->capacity / 2 : 4096);
	return 0;
}

static void
quick(void)
{
	window_s = 0.1;
	warmup_s = 0.05;
	capacity = QUICK_CAPACITY; /* a quarter of the memory to touch at each open */
}

int
main(int argc, char **argv)
{
	const ex_flag flags[] = {
		{ "--quick", EX_FLAG_ACTION, NULL, 0, 0, quick },
		{ "--seconds", EX_FLAG_DOUBLE, &window_s, 0.05, 600, NULL },
		{ "--capacity", EX_FLAG_POW2, &capacity, 1024, 1 << 24, NULL },
		{ "--judge-queue", EX_FLAG_SET, &judge_queue, 0, 0, NULL },
	};
	ex_flags_parse(argc, argv, "one_lock",
	    "[--quick] [--seconds S (0.05..600, per run, after a 0.2 s warm-up)] "
	    "[--capacity SLOTS (a power of two from 1024 to 16777216; default " EX_STRINGIFY(CAPACITY) ")] "
	    "[--judge-queue (the prediction checked against the queue mode)]",
	    flags, sizeof flags / sizeof flags[0]);
	work_iters = rl_calibrate_work(2000);
	ex_machine m;
	ex_machine_measure(&m);
	ex_predict("ring-mode callers' sleeps per 1,000 calls, at 2 to twice the CPUs' threads; at most", 1, "",
	    "a CAS that fails retries in user space; a caller sleeps only when the ring (%" PRId64 " slots) "
	    "is full", capacity);
	ex_watch w;
	ex_watch_start(&w);

	enum { QUEUE, RING };
	const sr_log_mode modes[] = { SR_LOG_MODE_QUEUE, SR_LOG_MODE_RING };
	const int counts[] = { 1, 2, 4, 8, 16 };
	enum { N = sizeof counts / sizeof counts[0] };
	struct result r[N][2];
	for (int i = 0; i < N; i++) {
		for (int m = 0; m < 2; m++) {
			if (run(modes[m], counts[i], &r[i][m]) != 0) {
				fprintf(stderr, "one_lock: the %s run with %d threads failed\n",
				    sr_log_mode_name(modes[m]), counts[i]);
				return 1;
			}
		}
	}

	printf("~2 us of work and 5 log messages per request, to /dev/null; queue and ring of %" PRId64
	    " messages.\n\n", capacity);
	printf("| threads | queue: requests/s | ring: requests/s | queue: ns in a log call, p50 / mean / p99 | "
	    "ring: ns in a log call, p50 / mean / p99 | queue: sleeps per 1,000 calls | "
	    "ring: sleeps per 1,000 calls | peak fill, queue / ring (%%) |\n");
	printf("|---:|---:|---:|---:|---:|---:|---:|---:|\n");
	for (int i = 0; i < N; i++) {
		printf("| %d | %.0f | %.0f | %.0f / %.0f / %.0f | %.0f / %.0f / %.0f | %.2f | %.2f | %.1f / %.1f |\n",
		    counts[i], r[i][QUEUE].requests_per_s, r[i][RING].requests_per_s,
		    r[i][QUEUE].call_p50_ns, r[i][QUEUE].call_mean_ns, r[i][QUEUE].call_p99_ns,
		    r[i][RING].call_p50_ns, r[i][RING].call_mean_ns, r[i][RING].call_p99_ns,
		    r[i][QUEUE].sleeps_per_1k, r[i][RING].sleeps_per_1k,
		    r[i][QUEUE].peak_fill, r[i][RING].peak_fill);
	}
	printf("\n");
	/*
	 * From 2 callers to twice the CPUs: callers that can meet on the cursor
	 * (or the mutex) while they run.  The prediction holds at each of them,
	 * so the verdict judges the one with the most sleeps.
	 */
	const int mode = judge_queue ? QUEUE : RING;
	const int most = m.cpus > 1 ? 2 * m.cpus : 2;
	int judged = 1; /* counts[1] is 2 threads, always within the range */
	for (int i = 2; i < N; i++)
		if (counts[i] <= most && r[i][mode].sleeps_per_1k > r[judged][mode].sleeps_per_1k)
			judged = i;
	const struct result *j = &r[judged][mode];
	char what[96], reason[160] = "";
	snprintf(what, sizeof what, "%s-mode sleeps per 1,000 calls at %d thread%s", judge_queue ? "queue" : "ring",
	    counts[judged], counts[judged] > 1 ? "s" : "");
	if (judge_queue)
		snprintf(reason, sizeof reason, "queue-mode callers take one mutex (--judge-queue): a caller that finds "
		    "it taken sleeps in the kernel%s", j->full ? ", and one that finds the queue full waits for the writer" : "");
	else if (j->full)
		snprintf(reason, sizeof reason, "the ring filled (peak %.1f%%): callers waited for the consumer, one "
		    "polling and the others asleep", j->peak_fill);
	ex_claim c = { .what = what, .predicted = 1, .measured = j->sleeps_per_1k, .tolerance = 1,
		.at_most = true, .threads = 2, .own_reason = reason[0] ? reason : NULL };
	ex_verdict(&m, &w, &c);
	const struct result *q1 = &r[0][QUEUE], *qn = &r[N - 1][QUEUE];
	const struct result *g1 = &r[0][RING], *gn = &r[N - 1][RING];
	/* Where the ring or queue filled, callers also waited for the writer: the sentence says so. */
	char full[160] = "";
	int n = 0;
	for (int m = 0; m < 2; m++) {
		for (int i = 0; i < N; i++) {
			if (r[i][m].full) {
				n += snprintf(full + n, sizeof full - (size_t)n, "%s the %s was full from %d thread%s on",
				    n == 0 ? " (and" : ", and", m == QUEUE ? "queue" : "ring", counts[i],
				    counts[i] > 1 ? "s" : "");
				break;
			}
		}
	}
	if (n > 0)
		snprintf(full + n, sizeof full - (size_t)n, ", so callers there also waited for the writer)");
	printf("Measured: from 1 to %d threads the mean time inside a queue-mode log call went from %.0f to %.0f ns "
	    "with %.2f sleeps per 1,000 calls, and a ring-mode call from %.0f to %.0f ns with %.2f%s; time "
	    "beyond the 1-thread figure mixes waiting for other callers with being preempted inside the "
	    "call on %ld CPUs, which timing around the call cannot separate, while a sleep is a thread "
	    "that found a lock taken (or no room) and went to the kernel.\n",
	    counts[N - 1], q1->call_mean_ns, qn->call_mean_ns, qn->sleeps_per_1k,
	    g1->call_mean_ns, gn->call_mean_ns, gn->sleeps_per_1k, full, sysconf(_SC_NPROCESSORS_ONLN));
	return 0;
}

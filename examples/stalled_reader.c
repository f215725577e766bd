/* SPDX-License-Identifier: Apache-2.0 */
/*
 * stalled_reader.c: what a reader that stops reading does to the program.
 * The request loop of reader_speed_limit (N threads, ~2 us of work and five
 * log messages per request) runs with a reader that keeps up, then the reader
 * is stopped (SIGSTOP: a stuck terminal, a log shipper that hangs) for 5 s and
 * continued.  The pipe (64 KiB) and the ring (one of 4,096 slots shared by
 * the threads: producer shared) fill within milliseconds; then, with the
 * block policy, every thread waits in its next log call until the reader
 * comes back, and with drop they carry on and the messages are thrown away
 * and counted.
 *
 * Completions are counted in 10 ms buckets: an empty quarter-second interval
 * is 25 empty buckets in a row, aligned on the run's start.
 *
 * The prediction, for the first run (block): the pipe and the ring fill
 * within milliseconds of the stop, so a request that logs then waits until
 * the reader comes back: the slowest request takes about the pause, P.
 * --drop-first makes the first run the drop policy, whose callers throw
 * their messages away instead of waiting: the prediction, made for a caller
 * that waits, then fails, and the verdict says so.
 *
 * Flips the verdict: --drop-first
 *
 * Run: stalled_reader [--quick] [--threads N] [--pause S] [--rate MIB_PER_S] [--drop-first]
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "ex_flags.h"
#include "ex_machine.h"
#include "ex_verdict.h"
#include "ex_pipe_reader.h"
#include "ex_time.h"
#include "request_loop.h"
#include <seqring/sr_wait.h>

#define BUCKET_NS (10 * 1000 * 1000)
#define QUARTER (250 * 1000 * 1000 / BUCKET_NS)

struct result {
	uint64_t during_pause;      /* requests completed while the reader was stopped */
	int empty_quarters;         /* quarter-second intervals with no completed request */
	int quarters;               /* quarter-second intervals in the run */
	double longest_gap_ms;      /* longest run of empty buckets */
	double slowest_ms;
	double recovery_ms;         /* resume -> the end of the first bucket at half the earlier rate */
	uint64_t dropped;
};

static int threads = 4;
static double before_s = 1, pause_s = 5, after_s = 2, rate_mib = 0;
static int64_t work_iters;

static void
analyse(const int64_t *b, int64_t nb, int64_t pause_b, int64_t resume_b, int64_t resumed_ns,
    struct result *r)
{
	/* The earlier rate: the second half of the time before the pause (past the start-up). */
	int64_t from = pause_b / 2, sum = 0;
	for (int64_t k = from; k < pause_b; k++)
		sum += b[k];
	double mean = pause_b > from ? (double)sum / (double)(pause_b - from) : 0;
	r->recovery_ms = -1;
	for (int64_t k = resume_b; k < nb; k++) {
		if ((double)b[k] >= mean / 2 && b[k] > 0) {
			r->recovery_ms = (double)((k + 1) * BUCKET_NS - resumed_ns) / 1e6;
			break;
		}
	}
	r->during_pause = 0;
	for (int64_t k = pause_b; k < resume_b; k++)
		r->during_pause += (uint64_t)b[k];
	r->quarters = (int)(nb / QUARTER);
	r->empty_quarters = 0;
	for (int q = 0; q < r->quarters; q++) {
		int64_t n = 0;
		for (int64_t k = (int64_t)q * QUARTER; k < (int64_t)(q + 1) * QUARTER; k++)
			n += b[k];
		r->empty_quarters += n == 0;
	}
	int64_t run = 0, longest = 0;
	for (int64_t k = 0; k < nb; k++) {
		run = b[k] == 0 ? run + 1 : 0;
		if (run > longest)
			longest = run;
	}
	r->longest_gap_ms = (double)longest * BUCKET_NS / 1e6;
}

static int
run(sr_log_full_policy policy, struct result *res)
{
	ex_pipe_reader reader;
	if (ex_pipe_reader_start(&reader, rate_mib * 1024 * 1024) != 0)
		return -1;
	sr_log_config c;
	sr_log_config_default(&c);
	c.producer = SR_LOG_PRODUCER_SHARED; /* the one ring of 4,096 slots that the threads fill */
	c.ring_slots = 4096;
	c.full_policy = policy;
	c.layout = SR_LOG_LAYOUT_MESSAGE;
	sr_error err = { 0 };
	sr_log *log = rl_log_open(&c, reader.fd, &err); /* the logger writes to the reader's pipe */
	if (log == NULL) {
		fprintf(stderr, "stalled_reader: sr_log_open: %s\n", err.message);
		ex_pipe_reader_wait(&reader);
		return -1;
	}
	/*
	 * Measured from the start, no warm-up.  The workers run until told to
	 * stop; the window's end only bounds the buckets, with a second to spare
	 * for a late wake-up of this thread on a busy machine.
	 */
	rl_load l;
	rl_load_init(&l, log, RL_LINES_HTTPCLIENT, threads, work_iters, 0, before_s + pause_s + after_s + 1);
	l.bucket_ns = BUCKET_NS;
	l.nbuckets = (l.end_ns - l.t0_ns) / BUCKET_NS;
	if (rl_start(&l) != 0) {
		sr_log_close(&log);
		ex_pipe_reader_wait(&reader);
		return -1;
	}
	/*
	 * The figures use the times the signals were actually sent: on a
	 * loaded machine this thread may wake late, and the pause is then
	 * later, not shorter.
	 */
	ex_sleep_until(l.t0_ns + (int64_t)(before_s * 1e9));
	ex_pipe_reader_pause(&reader);
	int64_t paused = sr_monotonic_ns();
	ex_sleep_until(paused + (int64_t)(pause_s * 1e9));
	ex_pipe_reader_resume(&reader);
	int64_t resumed = sr_monotonic_ns();
	ex_sleep_until(resumed + (int64_t)(after_s * 1e9));
	rl_stop(&l);
	int64_t stopped = sr_monotonic_ns();
	ex_pipe_reader_unthrottle(&reader); /* a rate-limited reader would make the final drain slow */
	rl_totals tot;
	rl_finish(&l, &tot);
	sr_log_close(&log);
	int rc = ex_pipe_reader_wait(&reader);
	int64_t *b = rl_buckets(&l);
	if (b == NULL) {
		fprintf(stderr, "stalled_reader: out of memory\n");
		rl_free(&l);
		return -1;
	}
	/* Buckets wholly inside the pause; the one the reader resumed in; the last whole one. */
	int64_t pause_b = (paused - l.t0_ns + BUCKET_NS - 1) / BUCKET_NS;
	int64_t resume_b = (resumed - l.t0_ns) / BUCKET_NS;
	int64_t end_b = (stopped - l.t0_ns) / BUCKET_NS;
	if (end_b > l.nbuckets)
		end_b = l.nbuckets;
	analyse(b, end_b, pause_b, resume_b, resumed - l.t0_ns, res);
	free(b);
	rl_free(&l);
	res->slowest_ms = (double)tot.latency.max / 1e6;
	res->dropped = tot.logger.dropped;
	return rc;
}

static void
quick(void)
{
	before_s = 0.25;
	pause_s = 0.75;
	after_s = 0.25;
}

int
main(int argc, char **argv)
{
	bool drop_first = false;
	const char *synopsis = "[--quick] [--threads N (1..64)] [--pause S (0.25..300, default 5)] "
	    "[--rate MIB_PER_S (0 = as fast as it can, the default; up to 1000)] "
	    "[--drop-first (the first run, which the prediction is about, drops)]";
	const ex_flag flags[] = {
		{ "--quick", EX_FLAG_ACTION, NULL, 0, 0, quick },
		{ "--threads", EX_FLAG_INT, &threads, 1, 64, NULL },
		{ "--pause", EX_FLAG_DOUBLE, &pause_s, 0.25, 300, NULL },
		{ "--rate", EX_FLAG_DOUBLE, &rate_mib, 0, 1000, NULL },
		{ "--drop-first", EX_FLAG_SET, &drop_first, 0, 0, NULL },
	};
	ex_flags_parse(argc, argv, "stalled_reader", synopsis, flags,
	    sizeof flags / sizeof flags[0]);
	if (rate_mib > 0 && rate_mib < 0.01) {
		fprintf(stderr, "stalled_reader: --rate %g: expected 0 (as fast as it can) or 0.01 to 1000\n",
		    rate_mib);
		ex_flags_usage(stderr, "stalled_reader", synopsis);
		return 2;
	}
	work_iters = rl_calibrate_work(2000);
	ex_machine m;
	ex_machine_measure(&m);
	double predicted = ex_predict("the slowest request of the first run (ms)", pause_s * 1e3, "ms",
	    "P = %.2f s, the pause: once the pipe and the ring are full, a request's log call waits for room "
	    "until the reader reads again", pause_s);
	ex_watch w;
	ex_watch_start(&w);

	sr_log_full_policy policies[] = { SR_LOG_FULL_BLOCK, SR_LOG_FULL_DROP };
	if (drop_first) {
		policies[0] = SR_LOG_FULL_DROP;
		policies[1] = SR_LOG_FULL_BLOCK;
	}
	struct result r[2];
	for (int i = 0; i < 2; i++) {
		if (run(policies[i], &r[i]) != 0) {
			fprintf(stderr, "stalled_reader: the %s run failed\n", sr_log_full_policy_name(policies[i]));
			return 1;
		}
	}

	char rate[48] = "as fast as it can";
	if (rate_mib > 0)
		snprintf(rate, sizeof rate, "at %.2f MiB/s", rate_mib);
	printf("%d threads; the reader reads %s, stops for %.2f s after %.2f s, then reads again for %.2f s.\n\n",
	    threads, rate, pause_s, before_s, after_s);
	printf("| policy | requests completed during the pause | empty quarter-second intervals | "
	    "longest time with no request completed (ms) | slowest request (ms) | "
	    "back to half speed after the reader resumed (ms) | messages dropped |\n");
	printf("|---|---:|---:|---:|---:|---:|---:|\n");
	for (int i = 0; i < 2; i++) {
		char recovery[32] = "not within the run";
		if (r[i].recovery_ms >= 0)
			snprintf(recovery, sizeof recovery, "%.0f", r[i].recovery_ms);
		printf("| %s | %" PRIu64 " | %d of %d | %.0f | %.1f | %s | %" PRIu64 " |\n",
		    sr_log_full_policy_name(policies[i]), r[i].during_pause, r[i].empty_quarters,
		    r[i].quarters, r[i].longest_gap_ms, r[i].slowest_ms, recovery, r[i].dropped);
	}
	printf("\n");
	const struct result *first = &r[0], *blocked = drop_first ? &r[1] : &r[0], *dropped = drop_first ? &r[0] : &r[1];
	char reason[160] = "";
	if (first->dropped > 0)
		snprintf(reason, sizeof reason, "the first run's policy was %s: its callers threw %" PRIu64 " messages "
		    "away instead of waiting", sr_log_full_policy_name(policies[0]), first->dropped);
	ex_claim c = { .what = "the slowest request of the first run (ms)", .predicted = predicted,
		.measured = first->slowest_ms, .tolerance = 1.3, .threads = 2, .own_reason = reason[0] ? reason : NULL };
	ex_verdict(&m, &w, &c);
	printf("Measured: with block no request completed in %d quarter-second intervals and the slowest took %.0f ms "
	    "while the reader was stopped for %.2f s; with drop %" PRIu64 " requests completed during the "
	    "pause and the slowest took %.1f ms, at the cost of %" PRIu64 " messages thrown away.\n",
	    blocked->empty_quarters, blocked->slowest_ms, pause_s, dropped->during_pause, dropped->slowest_ms,
	    dropped->dropped);
	return 0;
}

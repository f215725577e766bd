/* SPDX-License-Identifier: Apache-2.0 */
/*
 * reader_speed_limit.c: an asynchronous logger is asynchronous only while its
 * ring has room.  N threads run a request loop (~2 us of arithmetic, then the
 * five log messages, ~550 bytes, that one request wrote in the article "The
 * Speed Limit in Your Logs", on the .NET console logger) through one ring
 * shared by the threads (producer shared); the logger writes to a pipe whose
 * reader, a child process, reads 1 MiB/s.  Once the ring is full every
 * request waits for the reader, so requests/s settle at the reader's bytes/s
 * divided by the bytes per request, whatever the threads could do.  Then the
 * three ways out the article tried: drop when full (full speed, messages
 * lost and counted), raise the level to warn (no bytes, full speed), and a
 * ring 16 times bigger.
 *
 * The prediction, stated before the scenarios run: requests/s under block =
 * R / b, the reader's rate over the bytes one request logs (b, counted by
 * the sink in a short run to /dev/null first), for the 4,096-slot ring and
 * for the 16x ring alike: once a ring is full, its size no longer matters.
 * In --quick runs the reader reads 4 MiB/s, so that the short window holds
 * whole fill-and-drain cycles.  --rate 1000 gives a reader faster than the
 * threads can log: the ring never fills, the threads set the speed, and the
 * verdict says so.
 *
 * Flips the verdict: --rate 1000
 *
 * The example's own table goes to stdout, so the logger's "stdout" is a pipe
 * of its own.  Each scenario runs a warm-up (the ring fills at full speed, so
 * the first requests are free) and then the measured window.
 *
 * Run: reader_speed_limit [--quick] [--threads N] [--seconds S] [--rate MIB_PER_S]
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

#define MESSAGES_PER_REQUEST 5
#define SLOT_SIZE 128

struct scenario {
	const char *name;
	sr_log_full_policy policy;
	sr_log_level level;
	int64_t slots;
};

struct result {
	double requests_per_s;
	int cycles;
	double bytes_per_request;
	double mean_ms, p99_ms, max_ms;
	uint64_t messages;
	uint64_t dropped;
	bool ring_filled;
};

static int threads = 4;
static double window_s = 4, warmup_s = 1, rate_mib = 1;
static int64_t work_iters;

static int
run(const struct scenario *sc, struct result *res)
{
	double rate = rate_mib * 1024 * 1024;
	ex_pipe_reader reader;
	if (ex_pipe_reader_start(&reader, rate) != 0)
		return -1;
	sr_log_config c;
	sr_log_config_default(&c);
	/* One ring for every thread, of the scenario's size: each thread's own would not change with it. */
	c.producer = SR_LOG_PRODUCER_SHARED;
	c.ring_slots = sc->slots;
	c.slot_size = SLOT_SIZE;
	c.full_policy = sc->policy;
	c.layout = SR_LOG_LAYOUT_MESSAGE; /* the text carries the .NET format itself */
	sr_error err = { 0 };
	sr_log *log = rl_log_open(&c, reader.fd, &err); /* the logger writes to the reader's pipe */
	if (log == NULL) {
		fprintf(stderr, "reader_speed_limit: sr_log_open: %s\n", err.message);
		ex_pipe_reader_wait(&reader);
		return -1;
	}
	/* As in the article: the level is raised in configuration, not in the code that logs. */
	if (sc->level != SR_LOG_INFO && sr_log_set_level(log, NULL, sc->level, &err) != SR_OK) {
		fprintf(stderr, "reader_speed_limit: sr_log_set_level: %s\n", err.message);
		sr_log_close(&log);
		ex_pipe_reader_wait(&reader);
		return -1;
	}
	rl_load l;
	rl_load_init(&l, log, RL_LINES_HTTPCLIENT, threads, work_iters, warmup_s, window_s);
	l.bucket_ns = 10 * 1000 * 1000;
	l.nbuckets = (l.end_ns - l.t0_ns) / l.bucket_ns + 2;
	if (rl_start(&l) != 0) {
		sr_log_close(&log);
		ex_pipe_reader_wait(&reader);
		return -1;
	}
	ex_sleep_until(l.end_ns);
	/* What is still in the ring would take seconds at the limit: let the reader drain it. */
	ex_pipe_reader_unthrottle(&reader);
	rl_totals tot;
	rl_finish(&l, &tot); /* every accepted message written: the counters are exact */
	sr_log_close(&log);
	int rc = ex_pipe_reader_wait(&reader);
	int64_t *buckets = rl_buckets(&l);
	res->requests_per_s = rl_rate(&l, buckets, tot.requests, &res->cycles);
	free(buckets);
	rl_free(&l);
	/* Every request that finished had all its messages written (or dropped) by now. */
	res->bytes_per_request =
	    tot.all_requests ? (double)tot.logger.sinks[0].bytes / (double)tot.all_requests : 0;
	res->mean_ms = ex_hist_mean(&tot.latency) / 1e6;
	res->p99_ms = ex_hist_quantile(&tot.latency, 0.99) / 1e6;
	res->max_ms = (double)tot.latency.max / 1e6;
	res->messages = tot.all_requests * MESSAGES_PER_REQUEST;
	res->dropped = tot.logger.dropped;
	/* The peak is read when the consumer starts a batch: full less the batch in hand. */
	res->ring_filled = tot.logger.max_occupancy >= tot.logger.capacity / 2;
	return rc;
}

/*
 * Bytes one request logs: a short run at full speed to /dev/null, counted by
 * the sink.  The run's window opens when it is set up, and a busy machine
 * may start its thread only after a 0.05 s window has closed: the window
 * doubles until a request ends in it.
 */
static double
bytes_per_request(void)
{
	double window_s = 0.05;
	for (;; window_s *= 2) {
		sr_log_config c;
		sr_log_config_default(&c);
		c.ring_slots = 4096;
		c.slot_size = SLOT_SIZE;
		c.layout = SR_LOG_LAYOUT_MESSAGE;
		sr_error err = { 0 };
		sr_log *log = rl_log_open_devnull(&c, &err);
		if (log == NULL) {
			fprintf(stderr, "reader_speed_limit: sr_log_open: %s\n", err.message);
			return 0;
		}
		rl_load l;
		rl_load_init(&l, log, RL_LINES_HTTPCLIENT, 1, work_iters, 0, window_s);
		rl_totals tot;
		if (rl_run_and_close(&l, &tot) != 0)
			return 0;
		if (tot.all_requests > 0)
			return (double)tot.logger.sinks[0].bytes / (double)tot.all_requests;
		if (window_s >= 10) {
			fprintf(stderr, "reader_speed_limit: no request ended in a %.1f s window, to count the bytes "
			    "of one: expected at least one\n", window_s);
			return 0;
		}
	}
}

static void
quick(void)
{
	/*
	 * A reader 4 times faster: the rings' fill-and-drain cycles are 4 times
	 * shorter, so a short window still holds whole cycles (--rate after
	 * --quick still sets the rate).
	 */
	window_s = 0.6;
	warmup_s = 0.2;
	rate_mib = 4;
}

int
main(int argc, char **argv)
{
	const ex_flag flags[] = {
		{ "--quick", EX_FLAG_ACTION, NULL, 0, 0, quick },
		{ "--threads", EX_FLAG_INT, &threads, 1, 64, NULL },
		{ "--seconds", EX_FLAG_DOUBLE, &window_s, 0.1, 600, NULL },
		{ "--rate", EX_FLAG_DOUBLE, &rate_mib, 0.01, 1000, NULL },
	};
	ex_flags_parse(argc, argv, "reader_speed_limit", "[--quick] [--threads N (1..64)] "
	    "[--seconds S (0.1..600, measured per scenario after a 1 s warm-up)] "
	    "[--rate MIB_PER_S (0.01..1000, default 1)]", flags, sizeof flags / sizeof flags[0]);
	work_iters = rl_calibrate_work(2000);

	double rate = rate_mib * 1024 * 1024;
	double b = bytes_per_request();
	if (b <= 0)
		return 1;
	ex_machine m;
	ex_machine_measure(&m);
	double predicted = ex_predict("requests/s under block, either ring", rate / b, "requests/s",
	    "R / b with R = %.2f MiB/s (the reader) and b = %.0f bytes logged per request (counted at full "
	    "speed to /dev/null): a full ring frees a slot only when the reader has taken the bytes before it",
	    rate_mib, b);
	ex_watch w;
	ex_watch_start(&w);

	/* A modest ring, so that it fills in the warm-up and the steady state is what we measure. */
	const int64_t slots = 4096;
	const struct scenario scenarios[] = {
		{ "block (wait for room)", SR_LOG_FULL_BLOCK, SR_LOG_INFO, slots },
		{ "drop when full", SR_LOG_FULL_DROP, SR_LOG_INFO, slots },
		{ "level raised to warn", SR_LOG_FULL_BLOCK, SR_LOG_WARN, slots },
		{ "block, 16x bigger ring", SR_LOG_FULL_BLOCK, SR_LOG_INFO, slots * 16 },
	};
	enum { BLOCK, DROP, WARN, BIG, COUNT };
	struct result r[COUNT];
	for (int i = 0; i < COUNT; i++) {
		if (run(&scenarios[i], &r[i]) != 0) {
			fprintf(stderr, "reader_speed_limit: scenario '%s' failed\n", scenarios[i].name);
			return 1;
		}
	}

	printf("%d threads, ~2 us of work and %d log messages per request; the reader takes %.2f MiB/s.\n\n",
	    threads, MESSAGES_PER_REQUEST, rate_mib);
	printf("| scenario | ring | requests/s | log bytes per request | request latency, mean (ms) | "
	    "p99 (ms) | slowest (ms) | messages dropped | ring filled |\n");
	printf("|---|---|---:|---:|---:|---:|---:|---:|---|\n");
	for (int i = 0; i < COUNT; i++) {
		/* Bursty completions are counted over whole cycles (rl_rate): say so. */
		char cycles[32] = "";
		if (r[i].cycles > 0)
			snprintf(cycles, sizeof cycles, " (%d cycles)", r[i].cycles);
		printf("| %s | %" PRId64 " slots, %" PRId64 " KiB | %.0f%s | %.0f | %.3f | %.3f | %.1f | %" PRIu64 " | %s |\n",
		    scenarios[i].name, scenarios[i].slots, scenarios[i].slots * SLOT_SIZE / 1024,
		    r[i].requests_per_s, cycles, r[i].bytes_per_request, r[i].mean_ms, r[i].p99_ms, r[i].max_ms,
		    r[i].dropped, r[i].ring_filled ? "yes" : "no");
	}
	printf("\n");
	const int judged[] = { BLOCK, BIG };
	for (int k = 0; k < 2; k++) {
		const struct result *x = &r[judged[k]];
		char reason[200] = "";
		if (!x->ring_filled)
			snprintf(reason, sizeof reason, "the ring never filled: the threads, not the reader, set the speed");
		else if (x->cycles < 2)
			snprintf(reason, sizeof reason, "the window held %s whole fill-and-drain cycle%s of this ring, so its "
			    "count is off by up to a burst (run longer: --seconds)", x->cycles == 1 ? "one" : "no",
			    x->cycles == 1 ? "" : "s");
		char what[64];
		snprintf(what, sizeof what, "requests/s, %s", scenarios[judged[k]].name);
		ex_claim c = { .what = what, .predicted = predicted, .measured = x->requests_per_s,
			.tolerance = 1.3, .threads = 2, /* the consumer and the reader: the callers mostly wait */ .own_reason = reason[0] ? reason : NULL };
		ex_verdict(&m, &w, &c);
	}
	double lost = r[DROP].messages ? 100.0 * (double)r[DROP].dropped / (double)r[DROP].messages : 0;
	printf("Measured: under block the loop ran at %.0f requests/s (%.0f with a 16x bigger ring, %.2fx), while "
	    "dropping when full (%.1f%% of messages lost) ran at %.0f and raising the level to warn at %.0f.\n",
	    r[BLOCK].requests_per_s, r[BIG].requests_per_s,
	    r[BLOCK].requests_per_s > 0 ? r[BIG].requests_per_s / r[BLOCK].requests_per_s : 0, lost,
	    r[DROP].requests_per_s, r[WARN].requests_per_s);
	return 0;
}

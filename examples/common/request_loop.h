/* SPDX-License-Identifier: Apache-2.0 */
/*
 * request_loop.h: the load shared by the logger examples (reader_speed_limit,
 * stalled_reader, log_level_cost, one_lock), so that all four measure the
 * same thing: N threads, each running a request loop of a little arithmetic
 * (standing in for a cheap endpoint) followed by a few log lines, measured
 * over a window after a warm-up.
 *
 * A run: rl_calibrate_work once; then per run rl_log_open (or
 * rl_log_open_devnull), rl_load_init and the fields a lesson needs, then
 * rl_start, what the lesson does meanwhile, rl_finish, sr_log_close, the
 * figures and rl_free; or, for a run that only waits for its window to end,
 * rl_run_and_close in place of rl_start to rl_free.
 */
#ifndef SEQRING_EXAMPLES_REQUEST_LOOP_H
#define SEQRING_EXAMPLES_REQUEST_LOOP_H

#include <stdbool.h>
#include <stdint.h>

#include "ex_histogram.h"
#include <seqring/sr_log.h>

/* Which log lines a request writes. */
typedef enum rl_lines {
	/*
	 * The five messages one request wrote in "The Speed Limit in Your Logs"
	 * (four HttpClient lines and the endpoint's own), ~550 bytes: with the
	 * message layout the text reproduces the .NET console formatter's
	 * two-line output.
	 */
	RL_LINES_HTTPCLIENT = 0,
	/* ASP.NET Core's two hosting lines per request ("Request starting/finished"). */
	RL_LINES_HOSTING = 1
} rl_lines;

#define RL_MAX_CATS 3

/* One worker's figures (request_loop.c). */
typedef struct rl_thread rl_thread;

typedef struct rl_load {
	/* Set before rl_start (rl_load_init sets all but the last three). */
	sr_log *log;
	rl_lines lines;
	int threads;
	int64_t work_iters;      /* arithmetic per request (rl_calibrate_work) */
	int64_t t0_ns;           /* the run's start (buckets count from here) */
	int64_t begin_ns;        /* measurement window: requests that end in [begin, end] */
	int64_t end_ns;          /* workers start no request after end */
	bool time_calls;         /* time every log call (one_lock) */
	int64_t bucket_ns;       /* > 0: count completions per bucket since t0 (stalled_reader) */
	int64_t nbuckets;
	/* Set by rl_start. */
	sr_category *cat[RL_MAX_CATS];
	rl_thread *t;
	sr_atomic_i32 stop;      /* stop now (a failed start, or rl_stop) */
	int started;
	int64_t cpu_start_ns;    /* the process's CPU time when the workers started */
} rl_load;

/* What the workers did, summed (rl_finish). */
typedef struct rl_totals {
	uint64_t all_requests;   /* every request, warm-up included */
	uint64_t requests;       /* requests that ended inside the window */
	uint64_t calls;          /* log calls, warm-up included */
	long nvcsw, nivcsw;      /* the workers' voluntary and involuntary context switches */
	int64_t cpu_ns;          /* the workers' CPU time */
	int64_t process_cpu_ns;  /* the whole process's, from rl_start to the end of the flush */
	ex_hist latency;         /* request latency inside the window */
	ex_hist call_ns;         /* log call duration inside the window (time_calls) */
	sr_log_counters logger;  /* the logger's counters once it has written everything */
} rl_totals;

/* Iterations of the request's arithmetic that take about target_ns on this machine. */
int64_t rl_calibrate_work(int64_t target_ns);

/*
 * Opens the logger c describes with one sink, fd, which the logger closes at
 * sr_log_close (for a pipe, that close is what tells the reader to exit).
 * c->sinks and c->sink_count are set here.  NULL with err filled on failure,
 * fd closed.
 */
sr_log *rl_log_open(sr_log_config *c, int fd, sr_error *err);

/* rl_log_open on /dev/null: every line is formatted and written, none is kept. */
sr_log *rl_log_open_devnull(sr_log_config *c, sr_error *err);

/*
 * Clears l and sets the load: the run starts now (t0), is measured from
 * warmup_s after that for window_s seconds, and no request starts after.
 */
void rl_load_init(rl_load *l, sr_log *log, rl_lines lines, int threads, int64_t work_iters,
    double warmup_s, double window_s);

/* Starts the workers.  -1 with a message on stderr (and nothing left running) on failure. */
int rl_start(rl_load *l);

/* Tells the workers to start no other request (a run the caller times itself). */
void rl_stop(rl_load *l);

/*
 * The end of a run: waits for the workers, writes out what the ring still
 * holds (sr_log_flush: the logger's counters are then exact), reads those
 * counters and sums the workers' figures.  The logger stays open.
 */
void rl_finish(rl_load *l, rl_totals *totals);

/*
 * The whole of a run that only waits for its window to end: rl_start,
 * rl_finish, sr_log_close of l->log and rl_free.  The logger is closed
 * whatever happens; -1 (with nothing left to free) if the workers could not
 * start.
 */
int rl_run_and_close(rl_load *l, rl_totals *totals);

/* Completions per bucket, summed over the threads (bucket_ns > 0); NULL when out of memory. */
int64_t *rl_buckets(const rl_load *l);

/*
 * Requests/s over the window, counted over whole cycles when completions come
 * in bursts (b from rl_buckets, or NULL: the window's count over its length).
 * *cycles gets how many whole cycles were counted, 0 when none.
 */
double rl_rate(const rl_load *l, const int64_t *b, uint64_t window_requests, int *cycles);

/* Frees what rl_start allocated. */
void rl_free(rl_load *l);

#endif /* SEQRING_EXAMPLES_REQUEST_LOOP_H */

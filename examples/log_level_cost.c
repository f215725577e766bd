/* SPDX-License-Identifier: Apache-2.0 */
/*
 * log_level_cost.c: your log level is a performance setting.  The request
 * loop (N threads, ~2 us of arithmetic per request: a cheap endpoint) writes
 * ASP.NET Core's two hosting lines per request, "Request starting" and
 * "Request finished", through the ring to /dev/null: at info, at warn, and
 * at whatever SEQRING_LOG says.
 *
 * First, what the logger sees: it is opened as a program opens it (the
 * library reads SEQRING_LOG itself, and refuses a bad value), and
 * sr_log_describe prints every setting and category level and where it came
 * from.  Then the cost of one call, measured where a program makes it:
 *   - an enabled call: its caller's time, and the consumer thread's CPU to
 *     format and write the line;
 *   - a disabled call inside a loop that does real work per item (a hash of
 *     each item, consumed), against the same loop without the call: the
 *     check is one load, one compare and a branch, and no argument is
 *     evaluated.
 *
 * The prediction: every request costs CPU t (the work) plus, at info, 2 x
 * (caller's share + consumer's share) of an enabled call; with more threads
 * than CPUs the consumer's CPU comes out of the requests' share.  So
 * requests/s at warn exceed those at info by 100 x 2 (c + k) / t percent,
 * from c and k measured on their own before the loop runs.
 *
 * Flips the verdict: --reader-rate 0.05
 * (the loop's lines go to a pipe read at 0.05 MiB/s instead of /dev/null:
 * the ring fills and every request waits for the reader, which the
 * prediction leaves out.)
 *
 * To count the instructions of the disabled call's loop (callgrind counts
 * exactly, and needs no hardware counters, which virtual machines often
 * lack):
 *
 *   valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.out \
 *       --toggle-collect='items_*' log_level_cost --disabled-only
 *   callgrind_annotate /tmp/cg.out | head -20
 *
 * Run: log_level_cost [--quick] [--threads N] [--seconds S] [--rounds N]
 *                     [--reader-rate MIB_PER_S] [--disabled-only]
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "ex_flags.h"
#include "ex_machine.h"
#include "ex_pipe_reader.h"
#include "ex_time.h"
#include "ex_verdict.h"
#include "request_loop.h"
#include <seqring/sr_wait.h>

#define CAT "Microsoft.AspNetCore.Hosting.Diagnostics"
#define LINES_PER_REQUEST 2
#define WORK_NS 2000
#define ITEMS 4096

static int threads = 4;
static double window_s = 1, warmup_s = 0.5, reader_rate_mib = 0;
/*
 * The request loops' ring, and the enabled calls timed on their own (their
 * ring holds them all): each thread's (thread_ring_slots, the default
 * producer), and the shared one's (ring_slots) should the environment row
 * be given SEQRING_LOG_PRODUCER=shared.  Smaller in --quick mode: closing a
 * logger writes what its rings still hold, which takes long under the
 * sanitizers.
 */
static int64_t loop_slots = 65536, enabled_n = 100000, item_passes = 2000;
#define MAX_ROUNDS 9
static int rounds = 3;
static int64_t work_iters;

/* ---------------------------------------------------------------------------------------- */
/* Loggers                                                                                  */

/* The defaults, with rings of `slots` (each thread's, and the shared one's). */
static void
config_with_slots(sr_log_config *c, int64_t slots)
{
	sr_log_config_default(c);
	c->ring_slots = slots;
	c->thread_ring_slots = slots;
}

/* c opened with one sink on fd (on /dev/null when fd < 0); NULL after a message naming what was wrong. */
static sr_log *
open_on_fd(sr_log_config *c, int fd)
{
	sr_error err = { 0 };
	sr_log *log = fd >= 0 ? rl_log_open(c, fd, &err) : rl_log_open_devnull(c, &err);
	if (log == NULL)
		fprintf(stderr, "log_level_cost: sr_log_open: %s\n", err.message);
	return log;
}

/*
 * A logger as a program opens it: defaults, the environment read by the
 * library (SEQRING_LOG and the rest), one sink on fd.  A bad SEQRING_LOG is
 * the library's error, not ours.
 */
static sr_log *
open_as_a_program(int fd, int64_t slots)
{
	sr_log_config c;
	config_with_slots(&c, slots);
	return open_on_fd(&c, fd);
}

/*
 * A logger at a level the lesson chooses: the environment is not read, so
 * that the info and warn rows are info and warn whatever SEQRING_LOG says.
 */
static sr_log *
open_at(sr_log_level level, int fd, int64_t slots)
{
	sr_log_config c;
	config_with_slots(&c, slots);
	c.level = level;
	c.ignore_environment = true;
	return open_on_fd(&c, fd);
}

/* ---------------------------------------------------------------------------------------- */
/* One call, where a program makes it                                                       */

static uint32_t items[ITEMS];

/*
 * A pass over the items, as a program that checksums what it handles: a
 * multiply chain the compiler cannot shorten, whose result the caller
 * prints.  The _logged one makes a log call per item, with the running hash
 * and a count of evaluations as arguments: when the level is disabled,
 * neither is computed for the call.  Out of line and named for callgrind's
 * --toggle-collect.
 */
__attribute__((noinline)) uint64_t items_plain(const uint32_t *v, int n, uint64_t h);
__attribute__((noinline)) uint64_t items_logged(sr_category *cat, const uint32_t *v, int n, uint64_t h,
    uint64_t *evaluated);

__attribute__((noinline)) uint64_t
items_plain(const uint32_t *v, int n, uint64_t h)
{
	for (int i = 0; i < n; i++)
		h = (h ^ v[i]) * UINT64_C(1099511628211);
	return h;
}

__attribute__((noinline)) uint64_t
items_logged(sr_category *cat, const uint32_t *v, int n, uint64_t h, uint64_t *evaluated)
{
	for (int i = 0; i < n; i++) {
		h = (h ^ v[i]) * UINT64_C(1099511628211);
		SR_INFO(cat, "item %d hashed to %" PRIx64 " (%" PRIu64 " evaluations)", i, h, ++*evaluated);
	}
	return h;
}

struct call_cost {
	double plain_ns, logged_ns;   /* per item: the loop without and with a disabled call */
	uint64_t evaluated;           /* the disabled call's argument evaluations: must stay 0 */
	uint64_t hash;                /* the loops' result, printed, so that they must run */
	double enabled_ns;            /* caller's time of an enabled call */
	double consumer_ns;           /* the consumer's CPU per enabled line */
};

/* ns per item of passes over the items, the fastest of 5 blocks (the least disturbed). */
static double
time_items(sr_category *cat, uint64_t *evaluated, uint64_t *hash)
{
	double best = 1e30;
	for (int b = 0; b < 5; b++) {
		int64_t a = sr_monotonic_ns();
		for (int64_t p = 0; p < item_passes / 5; p++)
			*hash = cat != NULL ? items_logged(cat, items, ITEMS, *hash, evaluated) :
			    items_plain(items, ITEMS, *hash);
		double ns = (double)(sr_monotonic_ns() - a) / ((double)(item_passes / 5) * ITEMS);
		if (ns < best)
			best = ns;
	}
	return best;
}

static int64_t
thread_cpu_ns(void)
{
	struct rusage r;
	getrusage(RUSAGE_THREAD, &r);
	return ex_rusage_cpu_ns(&r);
}

static int
measure_disabled(struct call_cost *cc)
{
	for (int i = 0; i < ITEMS; i++)
		items[i] = (uint32_t)i * 2654435761u;
	sr_log *log = open_at(SR_LOG_WARN, -1, 1024);
	if (log == NULL)
		return -1;
	sr_category *cat = sr_log_category(log, CAT);
	cc->evaluated = 0;
	cc->hash = 14695981039346656037u;
	cc->plain_ns = time_items(NULL, NULL, &cc->hash);
	cc->logged_ns = time_items(cat, &cc->evaluated, &cc->hash);
	sr_log_close(&log);
	return 0;
}

/* The same line as the loop's "Request starting", at info, timed on its own. */
__attribute__((noinline)) static void
enabled_calls(sr_category *cat, int64_t n)
{
	for (int64_t i = 0; i < n; i++)
		SR_INFO(cat, "Request starting HTTP/1.1 GET http://127.0.0.1:%d/up - - - (%" PRId64 ")", 5201, i);
}

static int
measure_enabled(struct call_cost *cc)
{
	/* Room for every call: a caller that waits for the consumer is not what is timed here. */
	int64_t slots = 1024;
	while (slots < 2 * enabled_n)
		slots *= 2;
	sr_log *log = open_at(SR_LOG_INFO, -1, slots);
	if (log == NULL)
		return -1;
	sr_category *cat = sr_log_category(log, CAT);
	enabled_calls(cat, 1000); /* the site parses its format on its first call */
	sr_log_flush(log);
	int64_t proc0 = ex_process_cpu_ns(), self0 = thread_cpu_ns();
	/* The caller's time: the fastest of 5 blocks, the one least disturbed by other processes. */
	cc->enabled_ns = 1e30;
	for (int b = 0; b < 5; b++) {
		int64_t a = sr_monotonic_ns();
		enabled_calls(cat, enabled_n / 5);
		double ns = (double)(sr_monotonic_ns() - a) / (double)(enabled_n / 5);
		if (ns < cc->enabled_ns)
			cc->enabled_ns = ns;
	}
	sr_log_flush(log);
	/* This thread only called and then slept in the flush: the rest is the consumer's. */
	cc->consumer_ns = (double)((ex_process_cpu_ns() - proc0) - (thread_cpu_ns() - self0)) / (double)enabled_n;
	sr_log_close(&log);
	return 0;
}

/* ---------------------------------------------------------------------------------------- */
/* The request loop                                                                         */

struct run_result {
	double requests_per_s;
	double lines_per_request;
	double other_cpu_us; /* CPU per request outside the request threads: the logger's consumer */
	bool ring_filled;
};

enum { ROW_INFO, ROW_WARN, ROW_ENV, ROWS };

static int
run_loop(int row, struct run_result *r)
{
	ex_pipe_reader reader = { .pid = -1, .fd = -1 };
	if (reader_rate_mib > 0 && ex_pipe_reader_start(&reader, reader_rate_mib * 1024 * 1024) != 0)
		return -1;
	sr_log *log = row == ROW_ENV ? open_as_a_program(reader.fd, loop_slots) :
	    open_at(row == ROW_INFO ? SR_LOG_INFO : SR_LOG_WARN, reader.fd, loop_slots);
	if (log == NULL) {
		if (reader.pid > 0)
			ex_pipe_reader_wait(&reader);
		return -1;
	}
	rl_load l;
	rl_load_init(&l, log, RL_LINES_HOSTING, threads, work_iters, warmup_s, window_s);
	rl_totals tot;
	int rc = rl_start(&l);
	if (rc == 0) {
		ex_sleep_until(l.end_ns);
		if (reader.pid > 0)
			ex_pipe_reader_unthrottle(&reader); /* the ring's leftovers: drained fast */
		rl_finish(&l, &tot);
		rl_free(&l);
	}
	sr_log_close(&log);
	if (reader.pid > 0 && ex_pipe_reader_wait(&reader) != 0)
		rc = -1;
	if (rc != 0)
		return -1;
	r->requests_per_s = (double)tot.requests / window_s;
	r->lines_per_request =
	    tot.all_requests ? (double)tot.logger.sinks[0].messages / (double)tot.all_requests : 0;
	/* This thread only sleeps meanwhile: the process's CPU beyond the workers' is the consumer's. */
	r->other_cpu_us = tot.all_requests ?
	    (double)(tot.process_cpu_ns - tot.cpu_ns) / 1e3 / (double)tot.all_requests : 0;
	/* The peak is read when the consumer starts a batch: full less the batch in hand. */
	r->ring_filled = tot.logger.max_occupancy >= tot.logger.capacity / 2;
	return 0;
}

/* The round with the median requests/s of one row. */
static struct run_result
median_of(struct run_result rr[][ROWS], int n, int row)
{
	int order[MAX_ROUNDS];
	for (int k = 0; k < n; k++)
		order[k] = k;
	for (int a = 1; a < n; a++)
		for (int b = a; b > 0 && rr[order[b]][row].requests_per_s < rr[order[b - 1]][row].requests_per_s; b--) {
			int t = order[b];
			order[b] = order[b - 1];
			order[b - 1] = t;
		}
	return rr[order[n / 2]][row];
}

/* ---------------------------------------------------------------------------------------- */

static void
quick(void)
{
	window_s = 0.4;
	warmup_s = 0.1;
	loop_slots = 8192;
	enabled_n = 10000;
	item_passes = 500;
	rounds = 1;
}

/* What the logger sees, as a program that logs would open it. */
static int
describe(sr_log_level *env_level)
{
	sr_log *log = open_as_a_program(-1, 1024);
	if (log == NULL)
		return -1;
	sr_category *cat = sr_log_category(log, CAT);
	*env_level = sr_category_level(cat);
	const char *spec = getenv("SEQRING_LOG");
	printf("What the logger sees (sr_log_describe), with SEQRING_LOG%s%s%s:\n\n```\n",
	    spec != NULL ? "='" : " unset", spec != NULL ? spec : "", spec != NULL ? "'" : "");
	fflush(stdout);
	sr_log_describe(log, stdout);
	printf("```\n\n");
	sr_log_close(&log);
	return 0;
}

int
main(int argc, char **argv)
{
	bool disabled_only = false;
	const ex_flag flags[] = {
		{ "--quick", EX_FLAG_ACTION, NULL, 0, 0, quick },
		{ "--threads", EX_FLAG_INT, &threads, 1, 64, NULL },
		{ "--seconds", EX_FLAG_DOUBLE, &window_s, 0.1, 600, NULL },
		{ "--rounds", EX_FLAG_INT, &rounds, 1, MAX_ROUNDS, NULL },
		{ "--reader-rate", EX_FLAG_DOUBLE, &reader_rate_mib, 0.01, 1000, NULL },
		{ "--disabled-only", EX_FLAG_SET, &disabled_only, 0, 0, NULL },
	};
	ex_flags_parse(argc, argv, "log_level_cost", "[--quick] [--threads N (1..64)] "
	    "[--seconds S (0.1..600, per level and round, after a 0.5 s warm-up)] "
	    "[--rounds N (1.." EX_STRINGIFY(MAX_ROUNDS) ", default 3)] "
	    "[--reader-rate MIB_PER_S (0.01..1000: the loop's sink is a pipe read at that rate, "
	    "not /dev/null)] [--disabled-only]", flags, sizeof flags / sizeof flags[0]);

	struct call_cost cc;
	if (disabled_only) {
		if (measure_disabled(&cc) != 0)
			return 1;
		printf("%.2f ns per item with the disabled call, %.2f without; %" PRIu64 " arguments "
		    "evaluated; hash %016" PRIx64 "\n", cc.logged_ns, cc.plain_ns, cc.evaluated, cc.hash);
		return 0;
	}

	/* A bad SEQRING_LOG fails here, with the library's message, before anything is measured. */
	sr_log_level env_level;
	if (describe(&env_level) != 0)
		return 1;

	ex_machine m;
	ex_machine_measure(&m);
	if (measure_disabled(&cc) != 0 || measure_enabled(&cc) != 0)
		return 1;
	if (!ex_check_cycles(&m, "an item of the loop with a disabled call", cc.logged_ns) ||
	    !ex_check_cycles(&m, "an enabled call", cc.enabled_ns))
		return 1;
	printf("| one call, measured on its own | ns |\n|---|---:|\n");
	printf("| an item of a hashing loop, no log call | %.2f |\n", cc.plain_ns);
	printf("| the same item with SR_INFO at warn (disabled): %" PRIu64 " arguments evaluated | %.2f |\n",
	    cc.evaluated, cc.logged_ns);
	printf("| SR_INFO at info (enabled): the caller's time, c | %.1f |\n", cc.enabled_ns);
	printf("| SR_INFO at info (enabled): the consumer's CPU to format and write it, k | %.1f |\n\n",
	    cc.consumer_ns);
	printf("The disabled call added %.2f ns (%.1f cycles) to an item that takes %.2f ns: its load, compare "
	    "and branch run beside the hash's multiply chain (loop hash %016" PRIx64 ").\n\n",
	    cc.logged_ns - cc.plain_ns, (cc.logged_ns - cc.plain_ns) / m.cycle_ns, cc.plain_ns, cc.hash);

	work_iters = rl_calibrate_work(WORK_NS);
	double t = WORK_NS, per_line = cc.enabled_ns + cc.consumer_ns;
	/* With a CPU to spare, the consumer runs beside the requests: only the caller's share counts. */
	bool consumer_apart = threads + 1 <= m.cpus;
	/* The effect, not the ratio, is judged: a ratio near 1 would pass even with no effect at all. */
	double extra = LINES_PER_REQUEST * (consumer_apart ? cc.enabled_ns : per_line);
	double predicted = 100 * extra / t;
	if (consumer_apart)
		ex_predict("requests/s gained at warn over info (%)", predicted, "%",
		    "100 x 2 c / t with t = %.0f ns of work per request, c = %.0f ns (an enabled call's caller "
		    "time): %d threads leave a CPU of %d to the consumer", t, cc.enabled_ns, threads, m.cpus);
	else
		ex_predict("requests/s gained at warn over info (%)", predicted, "%",
		    "100 x 2 (c + k) / t with t = %.0f ns of work per request, c = %.0f ns and k = %.0f ns (an "
		    "enabled call's caller time and consumer CPU): %d threads on %d CPUs share them with the "
		    "consumer", t, cc.enabled_ns, cc.consumer_ns, threads, m.cpus);

	/*
	 * Alternating rounds (info, warn, environment, then the other way
	 * round), the median of each: on a machine that others share, a load
	 * that comes and goes then hits every row alike.
	 */
	ex_watch w;
	ex_watch_start(&w);
	struct run_result rr[MAX_ROUNDS][ROWS];
	for (int k = 0; k < rounds; k++)
		for (int j = 0; j < ROWS; j++) {
			int row = k % 2 == 0 ? j : ROWS - 1 - j;
			if (run_loop(row, &rr[k][row]) != 0)
				return 1;
		}
	struct run_result info = median_of(rr, rounds, ROW_INFO), warn = median_of(rr, rounds, ROW_WARN),
	    env = median_of(rr, rounds, ROW_ENV);

	const char *spec = getenv("SEQRING_LOG");
	char sink[64] = "/dev/null";
	if (reader_rate_mib > 0)
		snprintf(sink, sizeof sink, "a pipe read at %.2f MiB/s", reader_rate_mib);
	printf("%d threads, ~2 us of work per request; lines go through the ring to %s; median of %d "
	    "alternating round%s of %.1f s per row.\n\n", threads, sink, rounds, rounds > 1 ? "s" : "", window_s);
	printf("| level | log lines per request | requests/s | logger thread's CPU per request (us) |\n"
	    "|---|---:|---:|---:|\n");
	printf("| info | %.2f | %.0f | %.2f |\n", info.lines_per_request, info.requests_per_s, info.other_cpu_us);
	printf("| warn | %.2f | %.0f | %.2f |\n", warn.lines_per_request, warn.requests_per_s, warn.other_cpu_us);
	printf("| as the logger reads SEQRING_LOG%s%s: %s for %s | %.2f | %.0f | %.2f |\n\n", spec ? "=" : " (unset)",
	    spec ? spec : "", sr_log_level_name(env_level), CAT, env.lines_per_request, env.requests_per_s,
	    env.other_cpu_us);

	char reason[200] = "";
	if (info.ring_filled)
		snprintf(reason, sizeof reason, "the ring filled at info, so requests waited for the sink (%s), "
		    "which the prediction leaves out", sink);
	/* Fewer than one request in the window at info counts as half of one. */
	double info_rate = info.requests_per_s > 0.5 / window_s ? info.requests_per_s : 0.5 / window_s;
	ex_claim c = { .what = "requests/s gained at warn over info (%)", .predicted = predicted,
		.measured = 100 * (warn.requests_per_s / info_rate - 1), .tolerance = 2, .threads = threads < m.cpus ? threads + 1 : m.cpus,
		.own_reason = reason[0] ? reason : NULL };
	ex_verdict(&m, &w, &c);
	printf("Measured: at info (%.2f lines per request) the loop ran at %.0f requests/s, at warn at %.0f "
	    "(%+.0f%%); with SEQRING_LOG %s the logger ran %s at %s and wrote %.2f lines per request.\n",
	    info.lines_per_request, info.requests_per_s, warn.requests_per_s,
	    info.requests_per_s > 0 ? 100.0 * (warn.requests_per_s / info.requests_per_s - 1) : 0,
	    spec ? spec : "unset", CAT, sr_log_level_name(env_level), env.lines_per_request);
	return 0;
}

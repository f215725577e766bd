/*
 * log_level_cost.c: your log level is a performance setting.  The request
 * loop (N threads, ~2 us of arithmetic per request: a cheap endpoint)
 * writes ASP.NET Core's two hosting lines per request, "Request starting"
 * and "Request finished", through the ring to /dev/null: once at
 * info and once at warn.  At info every request pays for two enabled calls
 * and the consumer formats and writes two lines, on a machine whose cores the
 * requests need too; at warn each call is one load and one compare.
 *
 * Then the cost of a call on its own: a disabled call (10 million of them in
 * a loop) and an enabled one, in ns on the caller's thread.  To count the
 * instructions of a disabled call, run the loop alone under callgrind (it
 * counts exactly, and needs no hardware counters, which virtual machines
 * often lack):
 *
 *   valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.out \
 *       --toggle-collect=disabled_calls log_level_cost --disabled-only
 *   callgrind_annotate /tmp/cg.out | head -20   # Ir / calls = instructions per call
 *
 * Last, the check that "Your Log Level Is a Performance Setting" asks for:
 * the level set in SEQRING_LOG (RUST_LOG syntax:
 * "warn,Microsoft.AspNetCore=info") is the level the logger sees.
 *
 * Run: log_level_cost [--quick] [--threads N] [--seconds S] [--rounds N] [--disabled-only]
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ex_flags.h"
#include "request_loop.h"
#include "sr_wait.h"

#define CAT "Microsoft.AspNetCore.Hosting.Diagnostics"
#define DISABLED_CALLS 10000000

static int threads = 4;
static double window_s = 1, warmup_s = 0.5;
/*
 * The request loops' ring, and the enabled calls timed on their own (their
 * ring holds them all).  Smaller in --quick mode: closing a logger writes
 * what its ring still holds, which takes long under the sanitizers.
 */
static int64_t loop_slots = 65536, enabled_n = 100000;
/* Rounds of the request loop at each level (each window_s long). */
#define MAX_ROUNDS 9
static int rounds = 3;
static int64_t work_iters;

/* A logger on /dev/null, with the default layout: every line is formatted and written. */
static sr_log *
open_logger(int64_t slots)
{
	sr_log_config c;
	sr_log_config_default(&c);
	c.ring_slots = slots;
	sr_error err = { 0 };
	sr_log *log = rl_log_open_devnull(&c, &err);
	if (log == NULL)
		fprintf(stderr, "log_level_cost: sr_log_open: %s\n", err.message);
	return log;
}

/* ---------------------------------------------------------------------------------------- */
/* SEQRING_LOG                                                                              */

/*
 * Applies a RUST_LOG-style spec ("warn", "warn,net.http=info", "db=error")
 * with sr_log_set_level, and refuses a bad one with a message that names the
 * variable, its value and what is valid (a level that silently stays at info
 * is the bug "Your Log Level Is a Performance Setting" describes).  Category
 * names go into names[].
 *
 * sr_log_open reads SEQRING_LOG itself too, and sr_log_describe prints every
 * category's effective level and where it came from (docs/configuration.md):
 * the library's own reading is what a program relies on; this one shows the
 * levels through the public calls, one by one.
 */
#define MAX_SPEC_NAMES 16

static int
apply_spec(sr_log *log, const char *spec, char names[][256], int *nnames)
{
	char buf[1024];
	if (strlen(spec) >= sizeof buf) {
		fprintf(stderr, "log_level_cost: SEQRING_LOG is longer than %zu bytes\n", sizeof buf - 1);
		return -1;
	}
	/* strtok_r would skip an empty item silently: refuse it first. */
	size_t len = strlen(spec);
	if (len == 0 || spec[0] == ',' || spec[len - 1] == ',' || strstr(spec, ",,") != NULL) {
		fprintf(stderr, "log_level_cost: SEQRING_LOG='%s' is invalid: an empty item (expected LEVEL or "
		    "CATEGORY=LEVEL, separated by commas)\n", spec);
		return -1;
	}
	strcpy(buf, spec);
	*nnames = 0;
	char *save = NULL;
	for (char *item = strtok_r(buf, ",", &save); item != NULL; item = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(item, '=');
		const char *name = NULL, *level_name = item;
		if (eq != NULL) {
			*eq = '\0';
			name = item;
			level_name = eq + 1;
		}
		sr_log_level level;
		sr_error err = { 0 };
		if (name != NULL && name[0] == '\0') {
			sr_error_set(&err, SR_EINVAL, "the category before '=' is empty");
		} else if (sr_log_level_parse(level_name, &level, &err) == SR_OK &&
		    sr_log_set_level(log, name, level, &err) == SR_OK) {
			if (name != NULL && *nnames < MAX_SPEC_NAMES)
				snprintf(names[(*nnames)++], 256, "%s", name);
			continue;
		}
		fprintf(stderr, "log_level_cost: SEQRING_LOG='%s' is invalid: %s (expected LEVEL or "
		    "CATEGORY=LEVEL, separated by commas)\n", spec, err.message);
		return -1;
	}
	return 0;
}

/* ---------------------------------------------------------------------------------------- */
/* The call on its own                                                                      */

/*
 * Out of line and named, so that callgrind can count just this loop
 * (--toggle-collect=disabled_calls).  The argument ++*evaluated shows that a
 * disabled call evaluates nothing.
 */
__attribute__((noinline)) void disabled_calls(sr_category *cat, int64_t n, uint64_t *evaluated);

__attribute__((noinline)) void
disabled_calls(sr_category *cat, int64_t n, uint64_t *evaluated)
{
	for (int64_t i = 0; i < n; i++)
		SR_INFO(cat, "Request starting HTTP/1.1 GET http://127.0.0.1:%d/up - - - (%" PRIu64 ")",
		    5201, ++*evaluated);
}

/* The same call, at a level that is enabled. */
__attribute__((noinline)) static void
enabled_calls(sr_category *cat, int64_t n, uint64_t *evaluated)
{
	for (int64_t i = 0; i < n; i++)
		SR_INFO(cat, "Request starting HTTP/1.1 GET http://127.0.0.1:%d/up - - - (%" PRIu64 ")",
		    5201, ++*evaluated);
}

struct call_cost {
	double disabled_ns, enabled_ns;
	uint64_t disabled_evaluated;
};

static int
measure_calls(struct call_cost *cc, bool with_enabled)
{
	/* Room for every enabled call: a caller that waits for the consumer is not what we time. */
	int64_t slots = 1024;
	while (slots < 2 * enabled_n)
		slots *= 2;
	sr_log *log = open_logger(slots);
	if (log == NULL)
		return -1;
	sr_category *cat = sr_log_category(log, CAT);
	sr_error err = { 0 };
	if (sr_log_set_level(log, NULL, SR_LOG_WARN, &err) != SR_OK) {
		fprintf(stderr, "log_level_cost: sr_log_set_level: %s\n", err.message);
		sr_log_close(&log);
		return -1;
	}
	cc->disabled_evaluated = 0;
	int64_t a = sr_monotonic_ns();
	disabled_calls(cat, DISABLED_CALLS, &cc->disabled_evaluated);
	cc->disabled_ns = (double)(sr_monotonic_ns() - a) / DISABLED_CALLS;
	cc->enabled_ns = 0;
	if (with_enabled) {
		sr_log_set_level(log, NULL, SR_LOG_INFO, &err);
		uint64_t evaluated = 0;
		enabled_calls(cat, 1000, &evaluated); /* the site parses its format on the first call */
		sr_log_flush(log);
		a = sr_monotonic_ns();
		enabled_calls(cat, enabled_n, &evaluated);
		cc->enabled_ns = (double)(sr_monotonic_ns() - a) / (double)enabled_n;
	}
	sr_log_close(&log);
	return 0;
}

/* ---------------------------------------------------------------------------------------- */
/* The request loop at one level                                                            */

struct run_result {
	double requests_per_s;
	double lines_per_request;
	double other_cpu_us; /* CPU per request outside the request threads: the logger's consumer */
};

/* level >= 0: set the root and the hosting category to it; spec != NULL: apply SEQRING_LOG. */
static int
run_loop(int level, const char *spec, struct run_result *r)
{
	sr_log *log = open_logger(loop_slots);
	if (log == NULL)
		return -1;
	sr_error err = { 0 };
	char names[MAX_SPEC_NAMES][256];
	int nnames;
	if (spec != NULL && apply_spec(log, spec, names, &nnames) != 0) {
		sr_log_close(&log);
		return -1;
	}
	/* Both, so that a level sr_log_open read from SEQRING_LOG cannot interfere. */
	if (level >= 0 && (sr_log_set_level(log, NULL, level, &err) != SR_OK ||
	    sr_log_set_level(log, CAT, level, &err) != SR_OK)) {
		fprintf(stderr, "log_level_cost: sr_log_set_level: %s\n", err.message);
		sr_log_close(&log);
		return -1;
	}
	rl_load l;
	rl_load_init(&l, log, RL_LINES_HOSTING, threads, work_iters, warmup_s, window_s);
	rl_totals tot;
	if (rl_run_and_close(&l, &tot) != 0)
		return -1;
	r->requests_per_s = (double)tot.requests / window_s;
	r->lines_per_request =
	    tot.all_requests ? (double)tot.logger.sinks[0].messages / (double)tot.all_requests : 0;
	/* This thread only sleeps in the joins: the process's CPU beyond the workers' is the consumer's. */
	r->other_cpu_us = tot.all_requests ?
	    (double)(tot.process_cpu_ns - tot.cpu_ns) / 1e3 / (double)tot.all_requests : 0;
	return 0;
}

/* The round with the median requests/s at one level. */
static void
median_of(struct run_result rr[][3], int rounds, int which, struct run_result *out)
{
	int order[MAX_ROUNDS];
	for (int k = 0; k < rounds; k++)
		order[k] = k;
	for (int a = 1; a < rounds; a++)
		for (int b = a; b > 0 && rr[order[b]][which].requests_per_s < rr[order[b - 1]][which].requests_per_s; b--) {
			int t = order[b];
			order[b] = order[b - 1];
			order[b - 1] = t;
		}
	*out = rr[order[rounds / 2]][which];
}

/* ---------------------------------------------------------------------------------------- */
/* The level the logger sees                                                                */

static int
show_levels(const char *spec, sr_log_level *seen)
{
	sr_log *log = open_logger(1024);
	if (log == NULL)
		return -1;
	char names[MAX_SPEC_NAMES + 1][256];
	int nnames = 0;
	/* Before: what a program that never reads the variable would run with. */
	sr_log_level before_root = sr_log_level_for(log, "");
	sr_log_level before_cat = sr_log_level_for(log, CAT);
	if (spec != NULL && apply_spec(log, spec, names, &nnames) != 0) {
		sr_log_close(&log);
		return -1;
	}
	printf("| category | level before SEQRING_LOG was applied | configured level now "
	    "(sr_log_level_for) | effective level of a handle (sr_category_level) |\n");
	printf("|---|---|---|---|\n");
	printf("| root | %s | %s | %s |\n", sr_log_level_name(before_root),
	    sr_log_level_name(sr_log_level_for(log, "")), sr_log_level_name(sr_category_level(sr_log_root(log))));
	printf("| %s | %s | %s | %s |\n", CAT, sr_log_level_name(before_cat),
	    sr_log_level_name(sr_log_level_for(log, CAT)),
	    sr_log_level_name(sr_category_level(sr_log_category(log, CAT))));
	*seen = sr_category_level(sr_log_category(log, CAT));
	for (int i = 0; i < nnames; i++) {
		if (strcmp(names[i], CAT) == 0)
			continue;
		printf("| %s | %s | %s | %s |\n", names[i], sr_log_level_name(before_root),
		    sr_log_level_name(sr_log_level_for(log, names[i])),
		    sr_log_level_name(sr_category_level(sr_log_category(log, names[i]))));
	}
	sr_log_close(&log);
	return 0;
}

static void
quick(void)
{
	window_s = 0.4;
	warmup_s = 0.1;
	loop_slots = 8192;
	enabled_n = 10000;
	rounds = 1;
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
		{ "--disabled-only", EX_FLAG_SET, &disabled_only, 0, 0, NULL },
	};
	int status = ex_flags_parse(argc, argv, "log_level_cost", "[--quick] [--threads N (1..64)] "
	    "[--seconds S (0.1..600, per level and round, after a 0.5 s warm-up)] "
	    "[--rounds N (1.." EX_STRINGIFY(MAX_ROUNDS) ", default 3)] [--disabled-only]",
	    flags, sizeof flags / sizeof flags[0]);
	if (status >= 0)
		return status;

	struct call_cost cc;
	if (disabled_only) {
		if (measure_calls(&cc, false) != 0)
			return 1;
		printf("| call | ns per call | arguments evaluated |\n|---|---:|---:|\n");
		printf("| SR_INFO at warn (disabled), %d calls | %.2f | %" PRIu64 " |\n\n",
		    DISABLED_CALLS, cc.disabled_ns, cc.disabled_evaluated);
		printf("A disabled call cost %.2f ns and evaluated none of its arguments.\n", cc.disabled_ns);
		return 0;
	}

	/* A bad SEQRING_LOG is a failed setup, found before anything is measured. */
	const char *spec = getenv("SEQRING_LOG");
	if (spec != NULL && spec[0] == '\0')
		spec = NULL;
	if (spec != NULL) {
		sr_log *probe = open_logger(1024);
		char names[MAX_SPEC_NAMES][256];
		int nnames;
		int bad = probe == NULL || apply_spec(probe, spec, names, &nnames) != 0;
		sr_log_close(&probe);
		if (bad)
			return 1;
	}

	work_iters = rl_calibrate_work(2000);
	/*
	 * Alternating rounds (info, warn, [SEQRING_LOG], then the other way
	 * round), the median of each: on a machine that others share, a load
	 * that comes and goes then hits both levels alike.
	 */
	struct run_result rr[MAX_ROUNDS][3], info, warn, env;
	int levels = spec != NULL ? 3 : 2;
	for (int k = 0; k < rounds; k++) {
		for (int j = 0; j < levels; j++) {
			int which = k % 2 == 0 ? j : levels - 1 - j;
			int level = which == 0 ? SR_LOG_INFO : which == 1 ? SR_LOG_WARN : -1;
			if (run_loop(level, which == 2 ? spec : NULL, &rr[k][which]) != 0)
				return 1;
		}
	}
	median_of(rr, rounds, 0, &info);
	median_of(rr, rounds, 1, &warn);
	if (spec != NULL)
		median_of(rr, rounds, 2, &env);
	if (measure_calls(&cc, true) != 0)
		return 1;

	printf("%d threads, ~2 us of work per request; lines go through the ring to /dev/null; "
	    "median of %d alternating round%s of %.1f s per level.\n\n", threads, rounds, rounds > 1 ? "s" : "",
	    window_s);
	printf("| level | log lines per request | requests/s | logger thread's CPU per request (us) |\n"
	    "|---|---:|---:|---:|\n");
	printf("| info | %.2f | %.0f | %.2f |\n", info.lines_per_request, info.requests_per_s, info.other_cpu_us);
	printf("| warn | %.2f | %.0f | %.2f |\n", warn.lines_per_request, warn.requests_per_s, warn.other_cpu_us);
	if (spec != NULL)
		printf("| SEQRING_LOG=%s | %.2f | %.0f | %.2f |\n", spec, env.lines_per_request,
		    env.requests_per_s, env.other_cpu_us);
	printf("\n| call | ns per call, on the caller's thread | arguments evaluated |\n|---|---:|---:|\n");
	printf("| SR_INFO at warn (disabled), %d calls | %.2f | %" PRIu64 " |\n",
	    DISABLED_CALLS, cc.disabled_ns, cc.disabled_evaluated);
	printf("| SR_INFO at info (enabled: copied into the ring) | %.1f | all |\n\n", cc.enabled_ns);
	if (spec != NULL)
		printf("SEQRING_LOG=%s\n\n", spec);
	else
		printf("SEQRING_LOG is not set (try SEQRING_LOG=warn).\n\n");
	sr_log_level seen;
	if (show_levels(spec, &seen) != 0)
		return 1;
	printf("\nAt info (%.0f lines per request) the loop ran at %.0f requests/s and at warn at %.0f "
	    "(%+.0f%%): each enabled call cost its caller %.0f ns and the logger thread %.2f us of CPU "
	    "per request on the same cores, while a disabled call cost %.2f ns; "
	    "%s%s, the logger reports %s for %s.\n",
	    info.lines_per_request, info.requests_per_s, warn.requests_per_s,
	    info.requests_per_s > 0 ? 100.0 * (warn.requests_per_s / info.requests_per_s - 1) : 0,
	    cc.enabled_ns, info.other_cpu_us, cc.disabled_ns, spec != NULL ? "with SEQRING_LOG=" : "with SEQRING_LOG unset",
	    spec != NULL ? spec : "", sr_log_level_name(seen), CAT);
	return 0;
}

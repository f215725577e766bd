/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_args.h: the harnesses' command-line values: counts with k/M/G
 * suffixes, seconds, powers of two, comma-separated lists of counts and of
 * names.  Every parser that fails says nothing; the *_list and name-set
 * parsers write a message naming the flag, the bad item and what was
 * expected.
 *
 * C and C++ (perf/peers/spdlog links it too); no seqring header.
 */
#ifndef SR_PERF_BENCH_ARGS_H
#define SR_PERF_BENCH_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A harness's flags, as a table: each row names a flag, what its value is
 * and where it goes.  bench_parse_flags checks every value against its row
 * and words every message the same way.
 */
enum bench_flag_kind {
	BENCH_SWITCH,          /* no value: *(bool *)dest = switch_to */
	BENCH_INT,             /* int: a count, at least min, at most max (0: no limit) */
	BENCH_COUNT,           /* int64_t: the same */
	BENCH_POWER_OF_TWO,    /* int64_t: a power of two from min to max */
	BENCH_SECONDS,         /* double: seconds above 0, at most 3600 */
	BENCH_TEXT,            /* const char *: the value itself */
	BENCH_CUSTOM           /* parse(dest, values, err, errsize) */
};

typedef struct bench_flag {
	const char *name;      /* "--runs" */
	enum bench_flag_kind kind;
	void *dest;
	int64_t min, max;      /* the range of a count or power of two */
	bool zero_ok;          /* a count or seconds: "0" too */
	bool switch_to;        /* BENCH_SWITCH */
	bool *given;           /* set when the flag is given (NULL: nobody asks) */
	/* BENCH_CUSTOM: takes `values` values (0: one); false with a message naming the value in err */
	bool (*parse)(void *dest, char **values, char *err, size_t errsize);
	int values;
} bench_flag;

/* A row's first fields; the rest by name: { BENCH_FLAG("--runs", BENCH_INT, &runs), .max = 101 }. */
#define BENCH_FLAG(flag, flag_kind, where) .name = (flag), .kind = (flag_kind), .dest = (where)

enum bench_parsed { BENCH_PARSED_RUN, BENCH_PARSED_HELP, BENCH_PARSED_BAD };

/*
 * Walks the command line: --help or -h (usage(stdout), BENCH_PARSED_HELP),
 * --quick (*quick = true), --quiet (bench_quiet), and the flags of
 * flags[count].  BENCH_PARSED_BAD with a message in err (errsize bytes) for a
 * bad value; for an unknown flag or a missing value, usage(stderr) first.
 */
enum bench_parsed bench_parse_flags(int argc, char **argv, const bench_flag *flags, int count,
    bool *quick, void (*usage)(FILE *), char *err, size_t errsize);

/* A harness's exit status when the command line says not to run: 0 after --help, else "PROG: err" and 2. */
int bench_parsed_exit(enum bench_parsed parsed, const char *prog, const char *err);

/*
 * A positive integer with an optional k/M/G suffix (powers of ten):
 * "100M" = 100000000.  false on anything else.
 */
bool bench_parse_count(const char *text, int64_t *out);
/* The same, or "0". */
bool bench_parse_count_or_zero(const char *text, int64_t *out);
/* A count that is a power of two from min to max. */
bool bench_parse_power_of_two(const char *text, int64_t min, int64_t max, int64_t *out);
/* Seconds as a decimal ("0.25", "5"): above 0, at most 3600. */
bool bench_parse_seconds(const char *text, double *out);
/* The same, or "0". */
bool bench_parse_seconds_or_zero(const char *text, double *out);

/*
 * A comma-separated list of counts from 1 to max, at most max_values of
 * them, into out[*n].  noun names one item in the messages ("thread count"):
 * false with "FLAG 'LIST': 'X' is invalid: expected a NOUN from 1 to MAX" in
 * err (errsize bytes).
 */
bool bench_parse_count_list(const char *flag, const char *noun, const char *list, int64_t max,
    int64_t *out, int max_values, int *n, char *err, size_t errsize);

/*
 * A comma-separated set of names (or "all") into want[count]: which of
 * names[] the list picks.  false with "FLAG 'LIST': 'X' is not a NOUN:
 * expected A, B or all" in err (errsize bytes) for an unknown name.
 */
bool bench_parse_name_set(const char *flag, const char *noun, const char *list,
    const char *const *names, int count, bool *want, char *err, size_t errsize);

#ifdef __cplusplus
}
#endif

#endif /* SR_PERF_BENCH_ARGS_H */

/*
 * bench_util.h: small helpers shared by the perf harnesses (ring_perf,
 * wait_perf, probe): clocks, medians, option parsing, output files.
 *
 * Nothing here is timed; these run around the timed regions.
 */
#ifndef SR_BENCH_UTIL_H
#define SR_BENCH_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* CLOCK_MONOTONIC in nanoseconds. */
int64_t bench_now_ns(void);

/* Sorts v (n values) in place and returns its median (mean of the middle two). */
double bench_median(double *v, int n);
double bench_min(const double *v, int n);
double bench_max(const double *v, int n);

/* Sorts int64 samples ascending (for percentiles). */
void bench_sort_i64(int64_t *v, size_t n);
/* The p-th percentile (0 < p <= 100) of sorted samples, nearest-rank. */
int64_t bench_percentile(const int64_t *sorted, size_t n, double p);

/*
 * Parses a positive integer with an optional k/M/G suffix (powers of ten):
 * "100M" = 100000000.  Returns false on anything else.
 */
bool bench_parse_count(const char *text, int64_t *out);
/* Parses seconds as a decimal ("0.25", "5"); false unless > 0. */
bool bench_parse_seconds(const char *text, double *out);

/* Creates the parent directory of path (mkdir -p); false on failure. */
bool bench_make_parent_dirs(const char *path);
/* fopen(path, "w") after creating the parent directories; prints why on failure. */
FILE *bench_open_output(const char *path);
/*
 * A results CSV: appended to (emptied first with truncate), after creating its
 * directory; header (a line with its newline) is written when the file is
 * empty.  NULL on failure, with "--out 'PATH': why" in err (errsize bytes).
 */
FILE *bench_open_csv(const char *path, bool truncate, const char *header, char *err, size_t errsize);

/*
 * Parses a comma-separated set of names (or "all") into want[count]: which of
 * names[] the list picks.  false with "FLAG 'LIST': 'X' is not a NOUN:
 * expected A, B or all" in err (errsize bytes) for an unknown name.
 */
bool bench_parse_name_set(const char *flag, const char *noun, const char *list,
    const char *const *names, int count, bool *want, char *err, size_t errsize);

/* "123.4 M" style rendering of a rate into buf. */
const char *bench_fmt_rate(double per_sec, char *buf, size_t size);

/* Progress on stderr, prefixed with the program's tag; a no-op when quiet. */
void bench_progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
extern bool bench_quiet;

/* A list of wait strategies from a --wait flag, each with a label for the CSV's wait column. */
#define BENCH_MAX_WAITS 16
typedef struct bench_wait {
	char spec[256];   /* the strategy handed to sr_wait_config_parse or the logger */
	char label[64];   /* the kind for bare names and the default, else the spec with ';' for ',' */
} bench_wait;
typedef struct bench_wait_list {
	bench_wait waits[BENCH_MAX_WAITS];
	int nwaits;
} bench_wait_list;

/*
 * Parses a --wait list: "all", or strategies separated by commas, where a piece
 * with '=' and no ':' continues the previous spec ("default,phased:spin=5us,yield=50us"
 * is two strategies).  "default" stands for default_spec (NULL: no such name).
 * Each spec is validated; false with a message in err (errsize bytes) otherwise.
 */
bool bench_parse_wait_list(const char *list, const char *default_spec, bench_wait_list *out,
    char *err, size_t errsize);

#endif /* SR_BENCH_UTIL_H */

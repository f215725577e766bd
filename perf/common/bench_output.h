/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_output.h: where the harnesses' results and progress go: output
 * files (CSV, made with their directories), rates rendered for Markdown,
 * progress on stderr.
 *
 * C and C++ (perf/peers/spdlog links it too); no seqring header.
 */
#ifndef SR_PERF_BENCH_OUTPUT_H
#define SR_PERF_BENCH_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

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

/* The size of the file at path in bytes; -1 when it cannot be read. */
int64_t bench_file_size(const char *path);

/* "123.4 M" style rendering of a rate into buf. */
const char *bench_fmt_rate(double per_sec, char *buf, size_t size);

/* Progress on stderr, one line; a no-op when bench_quiet. */
void bench_progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
extern bool bench_quiet;

#ifdef __cplusplus
}
#endif

#endif /* SR_PERF_BENCH_OUTPUT_H */

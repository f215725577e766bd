/* SPDX-License-Identifier: Apache-2.0 */
/*
 * log_bench.h: what perf/throughput and perf/latency share about the logger
 * they measure: its modes as rows ("variants": ring with each --wait
 * strategy, queue, sync), the configuration every row's logger gets, the
 * logged message, and the flags both take.
 */
#ifndef SR_PERF_LOG_BENCH_H
#define SR_PERF_LOG_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "bench_args.h"
#include "bench_threads.h"
#include "bench_wait_list.h"
#include <seqring/sr_log.h>

/* The logger's modes, in the order a round runs them, and their names (the CSV's mode column). */
enum log_bench_mode { LOG_BENCH_RING, LOG_BENCH_QUEUE, LOG_BENCH_SYNC, LOG_BENCH_MODE_COUNT };
#define LOG_BENCH_MODE_NAMES "ring", "queue", "sync"

/* At most this many rows: every --wait strategy, then the other modes. */
#define LOG_BENCH_MAX_VARIANTS (BENCH_MAX_WAITS + 4)
/* The largest --message-bytes. */
#define LOG_BENCH_MAX_MESSAGE_BYTES 60000
/* --sink-dir is at most this long, so that a log path and an errno text fit a message. */
#define LOG_BENCH_SINK_DIR_MAX 256
/* At most this many values in --threads (and latency's --rate). */
#define LOG_BENCH_MAX_LIST 16

typedef struct log_bench_variant {
	int kind;          /* enum log_bench_mode, or a harness's own kind after them */
	char spec[256];    /* ring: the wait strategy handed to the logger */
	char label[64];    /* the CSV's wait column: the strategy's label, "none" for the other kinds */
	bool shared_ring;  /* ring: the shared multi-producer ring rather than a ring per thread */
	bool in_ring_dir;  /* ring: the rings in files in a ring directory (config.ring_dir) */
	bool to_trace;     /* ring: a ctf: sink (a binary trace in a directory) instead of the text file */
} log_bench_variant;

/*
 * The rows of a run, in the order each round runs them: with want[RING], one
 * ring row per strategy of wait_list (bench_parse_wait_list, "default" being
 * the logger's SR_LOG_DEFAULT_WAIT); then each other wanted kind of
 * kind_count, labelled "none".  false with a message in err (errsize bytes):
 * a bad strategy (even when the ring is not wanted), or nothing wanted.
 */
bool log_bench_variants(const char *wait_list, const bool *want, int kind_count,
    log_bench_variant *out, int *n, char *err, size_t errsize);

/* "ring/LABEL" for a ring row, else names[kind]; names[] is the harness's kind names. */
const char *log_bench_variant_name(const log_bench_variant *v, const char *const *names, char *buf,
    size_t size);

/*
 * A row's logger configuration: the logger's defaults, v's mode (and wait
 * strategy), message and line limits that fit message_bytes, and `sink` as
 * its only sink.  v->kind is a mode.
 */
void log_bench_config(sr_log_config *c, const log_bench_variant *v, int64_t message_bytes,
    const sr_sink_config *sink);

/* sr_log_open(c); NULL with "NAME/LABEL: sr_log_open failed: why" in err. */
sr_log *log_bench_open(const sr_log_config *c, const log_bench_variant *v, const char *const *names,
    char *err, size_t errsize);

/* sr_log_flush(log); false with "NAME/LABEL: sr_log_flush after WHEN failed: why" in err. */
bool log_bench_flush(sr_log *log, const log_bench_variant *v, const char *const *names,
    const char *when, char *err, size_t errsize);

/* The logged string, built once: printable, `bytes` characters from `first` on, NUL-terminated. */
char *log_bench_message(int64_t bytes, char first);

/*
 * The flags both harnesses take, besides bench_parse_args's --help, --quick
 * and --quiet: --threads, --modes, --wait, --message-bytes, --sink-dir,
 * --out, --truncate.
 */
typedef struct log_bench_flags {
	const char *const *kind_names;   /* --modes: the harness's kinds */
	int kind_count;
	int max_threads;
	int threads[LOG_BENCH_MAX_LIST];
	int nthreads;
	int quick_threads[LOG_BENCH_MAX_LIST];   /* --quick's thread counts, unless --threads is given */
	int quick_nthreads;
	bool want[LOG_BENCH_MODE_COUNT + 1];
	const char *wait_list;
	int64_t message_bytes;
	const char *sink_dir;
	const char *out;
	bool truncate;
	bool quick;
	bool threads_given;
} log_bench_flags;

/*
 * The shared defaults: every kind wanted, the logger's default wait, log
 * files under /tmp; the harness gives its kinds, thread limit, thread counts
 * (and --quick's), message length and CSV path.
 */
void log_bench_flags_init(log_bench_flags *f, const char *const *kind_names, int kind_count,
    int max_threads, const int *threads, int nthreads, const int *quick_threads, int quick_nthreads,
    int64_t message_bytes, const char *out);

/* The most flags of a harness's own (log_bench_parse_args adds the shared ones). */
#define LOG_BENCH_MAX_OWN_FLAGS 24

/*
 * Parses the command line as bench_parse_flags does, with the shared flags
 * going into f and the harness's own[own_count] besides them; with --quick
 * and no --threads, f has --quick's thread counts.
 */
enum bench_parsed log_bench_parse_args(int argc, char **argv, log_bench_flags *f,
    const bench_flag *own, int own_count, void (*usage)(FILE *), char *err, size_t errsize);

/* After parsing: --sink-dir is short enough and a writable directory; false with err. */
bool log_bench_check_sink_dir(const char *dir, char *err, size_t errsize);

/*
 * A worker thread's first steps: its logger thread name PREFIX-NNN (fixed
 * width, so that every line has the same length whatever the thread), then
 * the start gate (bench_start_gate_wait: false when the run is aborted).
 */
bool log_bench_worker_start(const char *prefix, int index, bench_start_gate *start, int64_t *origin);

#endif /* SR_PERF_LOG_BENCH_H */

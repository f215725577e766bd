/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_log_support.h: helpers shared by the logger's Criterion suites
 * (tests/logger/test_log*.c, tests/ring/test_api_errors.c), in the
 * seqring_test_criterion library: a capturing sink, opening a logger or
 * failing the test, temporary paths, stderr captured around a call,
 * sr_log_describe's text.  Helpers that need no Criterion are in
 * log_support.h, included here.
 *
 * The suites include this header alone for Criterion and the C library
 * headers below.
 */
#ifndef TEST_LOG_SUPPORT_H
#define TEST_LOG_SUPPORT_H

#include <criterion/criterion.h>

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "log_support.h"
#include <seqring/sr_log.h>

/* ---------------------------------------------------------------------------------------- */
/* A capturing callback sink that can be paused (log_capture.c)                             */

typedef struct tl_capture {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	char **lines;             /* every line, without its newline */
	int *levels;
	size_t count, cap;
	bool newline_required;    /* set: a line without its newline fails the test */
	bool paused;              /* while set, writes from other threads than `caller` wait */
	pthread_t caller;         /* the thread that made the capture (its writes never pause) */
	bool in_write;            /* a write is waiting in the pause */
	int fail_with;            /* non-zero: the write callback returns it */
	int flushes;
	int closes;
} tl_capture;

void tl_capture_init(tl_capture *c);
void tl_capture_free(tl_capture *c);
/* The sink's callbacks (sr_sink_config's write, flush and close). */
int tl_capture_write(void *ctx, sr_log_level level, const char *line, size_t len);
void tl_capture_flush(void *ctx);
void tl_capture_close(void *ctx);
/* A callback sink on c with all three callbacks. */
sr_sink_config tl_capture_sink(tl_capture *c);
/* Lines so far; lines containing needle; lines equal to line. */
size_t tl_capture_count(tl_capture *c);
size_t tl_capture_grep(tl_capture *c, const char *needle);
size_t tl_capture_exact(tl_capture *c, const char *line);
/* Pauses the sink; waits until the consumer is stuck in it; lets it go on. */
void tl_capture_pause(tl_capture *c);
void tl_capture_wait_stuck(tl_capture *c);
void tl_capture_resume(tl_capture *c);

/* ---------------------------------------------------------------------------------------- */
/* Opening and inspecting a logger (log_open.c)                                             */

/*
 * A config for tests: the environment ignored, one capture sink (write only),
 * ring_slots 1,024 (the default producer, per_thread, does not use it).
 */
void tl_config(sr_log_config *c, sr_sink_config *sink, tl_capture *cap);

/*
 * What most logger tests begin with: the environment cleared, a capture,
 * and a config made by tl_config with `sink` as its one sink.  The test
 * changes the config (tl_setup_begin returns it), opens it with tl_open and
 * ends with tl_setup_end, which frees the capture.
 */
typedef struct tl_setup {
	tl_capture cap;
	sr_sink_config sink;
	sr_log_config config;
} tl_setup;

sr_log_config *tl_setup_begin(tl_setup *t);
void tl_setup_end(tl_setup *t);

/* sr_log_open(c), or the test fails with the logger's message. */
sr_log *tl_open(const sr_log_config *c);

/* Flushes log; the lines in cap, its capture, since. */
size_t tl_flushed_count(sr_log *log, tl_capture *cap);

/* Closes *logp, then frees the capture it wrote into. */
void tl_close(sr_log **logp, tl_capture *cap);

/*
 * Opens c, which must be refused: a logger that opens anyway fails the test
 * (an expectation: it is closed and the test goes on; fmt names the case).
 * The error, which the open must fill in: it starts as code 12345,
 * "untouched".
 */
__attribute__((format(printf, 2, 3))) sr_error tl_open_refused(const sr_log_config *c, const char *fmt, ...);

/* sr_log_stats, or the test fails. */
sr_log_counters tl_stats(sr_log *log);

/* sr_log_describe's output (malloc'd). */
char *tl_describe(sr_log *log);

/* ---------------------------------------------------------------------------------------- */
/* Files and stderr (log_files.c)                                                           */

/* A fresh path in /tmp (the file does not exist). */
char *tl_temp_path(char *buf, size_t size, const char *tag);

/* The lines of the file at path that contain needle (all of them for NULL); fails when it is missing. */
size_t tl_count_lines(const char *path, const char *needle);

/* stderr goes to a temporary file from tl_stderr_begin to tl_stderr_end. */
typedef struct tl_stderr {
	char path[64];
	FILE *file;
	int saved;
} tl_stderr;

void tl_stderr_begin(tl_stderr *s);
/* Puts stderr back; what was printed meanwhile (malloc'd). */
char *tl_stderr_end(tl_stderr *s);

/* Runs fn with stderr redirected to a file; returns what it printed there (malloc'd). */
char *tl_with_stderr(void (*fn)(void *), void *arg);

#endif /* TEST_LOG_SUPPORT_H */

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * log_support.h: helpers of the logger's tests that need no Criterion, so
 * that the plain stress programs use them too (seqring_test_support).  The
 * Criterion suites include test_log_support.h, which includes this.
 */
#ifndef TL_LOG_SUPPORT_H
#define TL_LOG_SUPPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <seqring/sr_atomic.h>
#include <seqring/sr_log.h>

/* ---------------------------------------------------------------------------------------- */
/* A test's configuration (log_config.c)                                                    */

/* Removes every SEQRING_LOG* variable, so a developer's shell cannot change a test. */
void tl_clear_env(void);

/* sr_log_config_default(c), with *sink as its one sink (c keeps the pointer). */
void tl_config_sink(sr_log_config *c, sr_sink_config *sink);

/*
 * The settings the logger tests choose most, for a designated initializer
 * that names only those a test depends on: a zero field keeps
 * sr_log_config_default's value (for the mode, policy and layout, zero is
 * the default anyway: ring, block, text).
 */
typedef struct tl_settings {
	sr_log_mode mode;
	sr_log_full_policy full_policy;
	/*
	 * true: producer shared, the one multi-producer ring of ring_slots
	 * (SR_LOG_PRODUCER_SHARED is 0, which a zero field cannot say); false
	 * keeps the default producer, per_thread: each thread's ring of
	 * thread_ring_slots.
	 */
	bool shared_ring;
	int64_t ring_slots;
	int64_t thread_ring_slots;
	size_t slot_size;
	size_t max_message_bytes;
	sr_log_layout layout;
	const char *wait_strategy;
	bool ignore_environment;
} tl_settings;

/* tl_config_sink, then every non-zero setting. */
void tl_configure(sr_log_config *c, sr_sink_config *sink, tl_settings settings);

/*
 * Tables of bad configurations: each case is a change to a valid config, a
 * TL_MUTATION, applied by tl_mutated_config to a default config with
 * ring_slots 64 and one file sink on path.
 */
typedef void tl_mutation(sr_log_config *c, sr_sink_config *s);
#define TL_MUTATION(name, body) \
	static void name(sr_log_config *c, sr_sink_config *s) { (void)c; (void)s; body; }
void tl_mutated_config(sr_log_config *c, sr_sink_config *sink, const char *path, tl_mutation *mutate);

/* ---------------------------------------------------------------------------------------- */
/* What a logger wrote (log_text.c)                                                         */

/* The whole file (NUL-terminated, malloc'd), or NULL when it does not exist. */
char *tl_read_file(const char *path, size_t *len);

/* How many times needle occurs in text (without overlaps). */
size_t tl_count_of(const char *text, const char *needle);
/* The time a text-layout line starts with ("2026-12-06T23:29:16.326825Z"), as ns since the epoch; -1 for none. */
int64_t tl_text_line_time(const char *line);

/* The line of text that contains needle (copied into buf), or NULL. */
const char *tl_line_with(const char *text, const char *needle, char *buf, size_t size);

/* The line of text that starts with "  key " (a row of sr_log_describe), copied into buf. */
const char *tl_row(const char *text, const char *key, char *buf, size_t size);

/*
 * The stress programs' record line, "t=T i=I n=N s=<string>|\n", whose string must be the
 * first N bytes of pattern with N = (I * 37) % modulus.  line (len bytes, not NUL-terminated)
 * is copied NUL-terminated into text (size bytes).  Returns 1 with *t and *i for a good record,
 * 0 for a line of another shape (the logger's own lines, in text), -1 for a record whose string
 * or framing is wrong, or a line longer than text.
 */
int tl_stress_line(const char *line, size_t len, char *text, size_t size, const char *pattern,
    int modulus, int *t, int *i);

/*
 * The stress programs' callback sink: sr_sink_callback(tl_stress_sink_write, &sink) reads each
 * line with tl_stress_line, against sink's pattern and modulus (at most TL_STRESS_MODULUS_MAX),
 * into a text of modulus + 128 bytes (a longer line is a broken record), and hands what it read
 * to on_line with ctx: r as tl_stress_line returned it, t and i for a good record, the line's
 * text for a line of another shape.  The sink's write always succeeds.
 */
enum { TL_STRESS_MODULUS_MAX = 1024 };
typedef struct tl_stress_sink {
	const char *pattern;
	int modulus;
	void (*on_line)(void *ctx, int r, int t, int i, const char *text);
	void *ctx;
} tl_stress_sink;

int tl_stress_sink_write(void *sink, sr_log_level level, const char *line, size_t len);

/* The path of a rotation's file k (into buf, which it returns): base itself for k = 0, else base.k. */
char *tl_rotated_path(char *buf, size_t size, const char *base, int k);

/* Names the calling thread `prefix` followed by id (at most 15 bytes), as its lines show it. */
void tl_thread_name(const char *prefix, int id);

/*
 * The end of a run whose counts are checked: flushes *logp, reads its counters, closes it (NULL
 * after).  Returns the counters as they were after the flush.
 */
sr_log_counters tl_flush_stats_close(sr_log **logp);

/* ---------------------------------------------------------------------------------------- */
/* Programs that run other programs (log_program.c)                                         */

/*
 * Makes /tmp/seqring-NAME-XXXXXX and returns it; removed at exit (what the
 * program registers with atexit afterwards runs first), kept when
 * KEEP_TEST_DIR is set.  NAME also heads tl_fail's messages.
 */
const char *tl_program_dir(const char *name);
/* Prints "NAME: FAIL: ..." and exits 1, so that the atexit handlers run. */
__attribute__((format(printf, 1, 2), noreturn)) void tl_fail(const char *fmt, ...);
/*
 * A logger on these sinks (the environment ignored), or tl_fail with its
 * error.  ring_slots sizes the shared ring, which the default producer
 * (per_thread: each thread's ring of the default size) does not use.
 */
sr_log *tl_program_open(sr_sink_config *sinks, int count, int64_t ring_slots, int reopen_signal);

/* ---------------------------------------------------------------------------------------- */
/* A process's edges (log_edges.c)                                                          */

/*
 * Runs this program again (/proc/self/exe) with argv in a child process and
 * waits for it at most timeout_ms: 0 with its *status, 1 when it had to be
 * killed (a hang), -1 when it could not be run.
 */
int tl_run_self(char *const argv[], int timeout_ms, int *status);

/* The numbered lines of a file, "<tag>#<i>." for i in 0 .. n-1. */
typedef struct tl_tally {
	int lines;                /* lines with the tag */
	int missing;              /* numbers never seen */
	int doubled;              /* numbers seen more than once */
	int bad;                  /* numbers out of range */
} tl_tally;
tl_tally tl_tally_lines(const char *path, const char *tag, int n);

/*
 * Whether this process may run on two CPUs at once: its affinity allows two
 * and its cgroup v2 CPU quota, if any, two CPUs' worth (where a file sink
 * writes behind the consumer).
 */
bool tl_two_cpus(void);

/* ---------------------------------------------------------------------------------------- */
/* Waking an idle consumer (log_wake.c)                                                     */

/* A callback sink's context that keeps the time (sr_monotonic_ns) of its last line. */
typedef struct tl_stamp_sink {
	sr_atomic_i64 seen_at;    /* written by the sink, read by tl_call_to_line */
} tl_stamp_sink;
/* The sink's write function (sr_sink_callback(tl_stamp_write, &stamp)). */
int tl_stamp_write(void *ctx, sr_log_level level, const char *line, size_t len);
/*
 * n times: sleeps quiet_ns, logs one line through cat, waits until st has
 * seen it; lat gets the n call-to-line times in ns, sorted ascending.
 */
void tl_call_to_line(sr_category *cat, tl_stamp_sink *st, int64_t quiet_ns, int n, int64_t *lat);

/* Sleeps about ms milliseconds (clock.c). */
void tl_sleep_ms(int ms);

#endif /* TL_LOG_SUPPORT_H */

/*
 * sr_log.h: seqring's asynchronous logger, on the Disruptor ring.
 *
 * The caller of a log macro pays for a level check and, when the level is
 * enabled, for copying its arguments in binary into ring slots; a consumer
 * thread formats and writes.  In detail:
 *
 *   SR_INFO(net, "GET %s -> %d in %.1f ms", path, status, ms);
 *
 *   1. one relaxed load of the category's effective level and one compare;
 *      a disabled level ends here: no call, no argument evaluated;
 *   2. a `static` call-site descriptor (sr_site: level, format, file, line,
 *      function) is handed with the arguments to sr_log_emit, which parses
 *      the format once per site (cached in the site), reads the clock,
 *      measures the strings, claims ceil(size / slot_size) consecutive slots,
 *      copies the arguments (strings by value) and publishes the range.  No
 *      lock, no malloc, no formatting, and no system call while the consumer
 *      is awake (wait strategies of the liteblock family signal a sleeping
 *      consumer only);
 *   3. the consumer, a batch event processor, decodes each record, formats it
 *      (one snprintf per conversion, so the text equals snprintf's), appends
 *      it to each sink's buffer and writes at the end of each batch: a burst
 *      costs one write(2) per buffer, not one per message.
 *
 * Quick start:
 *
 *   sr_log_config c;
 *   sr_log_config_default(&c);                       // ring, 262,144 x 128 B, info
 *   sr_sink_config sinks[] = { sr_sink_file("/var/log/app.log"), sr_sink_fd(2) };
 *   sinks[1].level = SR_LOG_WARN;                    // stderr gets warnings and worse
 *   c.sinks = sinks; c.sink_count = 2;
 *   sr_error err;
 *   sr_log *log = sr_log_open(&c, &err);             // NULL and err.message on bad config
 *   sr_category *net = sr_log_category(log, "net.http");
 *   SR_INFO(net, "GET %s -> %d", path, status);
 *   sr_log_set_level(log, "net", SR_LOG_DEBUG, &err);  // at run time, any thread
 *   sr_log_close(&log);                              // writes everything, frees, log = NULL
 *
 * Operations: levels, sinks, layouts and the rest can be set from the
 * environment (SEQRING_LOG="warn,net.http=info" and the SEQRING_LOG_*
 * variables, validated at open; see "The environment" below and
 * logger/README-config.md); sr_log_describe prints what is in force and
 * where each value came from.
 *
 * Threads: every function may be called from any thread, except that no log
 * call may run concurrently with (or after) sr_log_close of its logger.
 * Errors are values: functions return SR_OK or a negative SR_E* code (and a
 * message naming the bad value when given an sr_error), constructors NULL.
 * Nothing here aborts or exits.
 */
#ifndef SR_LOG_H
#define SR_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sr_atomic.h"
#include "sr_error.h"
#include "sr_log_format.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------- */
/* Levels                                                                                   */

/*
 * Severity, lowest first.  A category (or sink) at level L lets through every
 * message at L or above; SR_LOG_OFF lets nothing through (no message has it).
 */
typedef enum sr_log_level {
	SR_LOG_TRACE = 0,
	SR_LOG_DEBUG = 1,
	SR_LOG_INFO = 2,
	SR_LOG_WARN = 3,
	SR_LOG_ERROR = 4,
	SR_LOG_FATAL = 5,
	SR_LOG_OFF = 6
} sr_log_level;

#define SR_LOG_LEVEL_COUNT 7
/* For sr_log_set_level: remove the prefix's own level, so it inherits again. */
#define SR_LOG_INHERIT (-1)

/* "trace", "debug", "info", "warn", "error", "fatal", "off"; "unknown" otherwise. */
const char *sr_log_level_name(int level);

/*
 * Parses a level name (case-insensitive; "warning" is accepted for warn).
 * SR_EINVAL, with a message listing the valid names, for anything else.
 */
int sr_log_level_parse(const char *name, sr_log_level *level, sr_error *err);

/* ---------------------------------------------------------------------------------------- */
/* Configuration                                                                            */

/* How messages travel from the caller to the sinks. */
typedef enum sr_log_mode {
	/*
	 * The Disruptor path (default): callers copy arguments into a ring, one
	 * consumer thread formats and writes.
	 */
	SR_LOG_MODE_RING = 0,
	/*
	 * Baseline, as Log4j 2's AsyncAppender or .NET's console logger: callers
	 * format, then enqueue the text in a bounded queue (mutex + condition
	 * variables) of ring_slots messages drained by one thread.
	 */
	SR_LOG_MODE_QUEUE = 1,
	/*
	 * Baseline, a synchronous logger: callers format and write under one
	 * mutex, one write(2) per message per sink.  Full-queue policies do
	 * not apply (there is no queue).
	 */
	SR_LOG_MODE_SYNC = 2
} sr_log_mode;

/*
 * What a caller does when the ring (or queue) is full.  Whatever the policy,
 * a message logged by a consumer thread itself (a sink callback, say) or from
 * inside a sink write never waits: when it finds no room it is dropped and
 * counted, so a logger cannot deadlock on itself.
 */
typedef enum sr_log_full_policy {
	/*
	 * Wait for room (default; .NET's Wait, Log4j 2's default).  Nothing is
	 * lost, but a stalled sink stalls every caller.  Waiting backs off
	 * (spin, yield, naps); with synchronize_enqueue_when_full, waiting
	 * callers queue on one mutex so that only one of them polls.
	 */
	SR_LOG_FULL_BLOCK = 0,
	/*
	 * Drop the new message and count it (.NET's DropWrite).  Callers never
	 * wait; warnings and errors may be lost too.
	 */
	SR_LOG_FULL_DROP = 1,
	/*
	 * Drop messages at or below discard_level (default info) and count them;
	 * more severe ones wait (Log4j 2's Discard policy): warnings and errors
	 * are never lost to a full queue.
	 */
	SR_LOG_FULL_DISCARD = 2,
	/*
	 * The caller formats and writes the message itself, under each sink's
	 * lock (Log4j 2's synchronous fallback).  Nothing is lost and nobody
	 * waits for the consumer, but such a message may come out before older
	 * ones still in the ring.
	 */
	SR_LOG_FULL_SYNC = 3
} sr_log_full_policy;

/* How a message becomes a line. */
typedef enum sr_log_layout {
	/*
	 * "2026-11-30T12:34:56.123456Z INFO  [main] net.http - GET / -> 200 (server.c:42)\n":
	 * ISO-8601 UTC timestamp with microseconds, level, thread name (or id),
	 * category ("root" for the root), message, file base name and line.
	 */
	SR_LOG_LAYOUT_TEXT = 0,
	/* The message and a newline, nothing else. */
	SR_LOG_LAYOUT_MESSAGE = 1,
	/*
	 * config.pattern, Log4j-like: "%d %-5p [%t] %c - %m%n".  Conversions:
	 *   %d{fmt}  the timestamp, UTC; fmt is strftime-like: %Y %m %d %H %M %S
	 *            %j %y %e %b %a %s %z (+0000) %Z (UTC) %% and %f, the
	 *            fraction of the second: %3f ms, %6f us (%f), %9f ns, any
	 *            of 1 to 9 digits.  %d alone: %Y-%m-%dT%H:%M:%S.%6fZ.
	 *   %p level (INFO), %c category ("root" for the root), %t thread name
	 *   (its id when it has none), %T thread id, %m message, %F file base
	 *   name, %L line, %M function, %n newline, %% a percent sign.
	 * Each conversion but %n and %% takes an optional width: %-10c pads on
	 * the right to 10, %10c on the left, %.20c keeps the last 20
	 * characters (as Log4j truncates), %-10.20c both.  Every line ends with
	 * exactly one newline: a trailing %n is that newline, and a pattern
	 * without one gets it.  A bad pattern is an error at open that names
	 * its column (sr_log_pattern_check).
	 */
	SR_LOG_LAYOUT_PATTERN = 2,
	/*
	 * JSON Lines, one object per message, for log shippers (Vector, Fluent
	 * Bit, Loki):
	 *   {"ts":"2026-11-30T12:34:56.123456789Z","level":"info","category":"net.http",
	 *    "thread":"main","tid":4242,"msg":"GET / -> 200","file":"server.c",
	 *    "line":42,"function":"handle"}
	 * Strings are escaped (quotes, backslashes, every control character)
	 * and invalid UTF-8 is replaced by U+FFFD, so every line parses.  A
	 * message too long for max_line_bytes is cut inside "msg" (ending in
	 * "[truncated]") and the object stays whole.  Backtrace lines carry
	 * "backtrace":true.
	 */
	SR_LOG_LAYOUT_JSON = 3
} sr_log_layout;

/* "text", "message", "pattern", "json"; parse is case-insensitive, SR_EINVAL lists them. */
const char *sr_log_layout_name(int layout);
int sr_log_layout_parse(const char *name, sr_log_layout *layout, sr_error *err);

/*
 * Checks a pattern (SR_LOG_LAYOUT_PATTERN) without opening a logger: SR_OK,
 * or SR_EINVAL with a message naming the column (1-based) and what is
 * wrong, e.g. "pattern '%d %q' is invalid at column 4: '%q' is not a
 * conversion (expected %d %p %c %t %T %m %F %L %M %n %%)".
 */
int sr_log_pattern_check(const char *pattern, sr_error *err);

/*
 * Where timestamps come from.  Each is read on the calling thread; see
 * logger/README-config.md for the measured cost of each.
 */
typedef enum sr_log_clock {
	/* clock_gettime(CLOCK_REALTIME): nanoseconds, NTP-disciplined. */
	SR_LOG_CLOCK_REALTIME = 0,
	/*
	 * clock_gettime(CLOCK_REALTIME_COARSE): the kernel's last tick, cheaper
	 * than realtime, behind it by up to one tick (clock_getres reports the
	 * tick: 1 to 10 ms).
	 */
	SR_LOG_CLOCK_COARSE = 1,
	/*
	 * The CPU's time-stamp counter (x86-64, invariant TSC only): the caller
	 * stores the raw counter, the consumer converts it to wall time with a
	 * calibration against CLOCK_REALTIME made at open (~5 ms) and refreshed
	 * by the consumer (after 50 ms, 200 ms, then every second), slewing
	 * gently so that converted times never go backwards on a thread (and
	 * stepping only when CLOCK_REALTIME itself jumps by more than 1 ms).
	 * An error at open on a CPU without an invariant TSC.
	 */
	SR_LOG_CLOCK_TSC = 2,
	/*
	 * The default: tsc when the CPU reports an invariant TSC, else realtime,
	 * decided at open (sr_log_describe shows which).  tsc takes 10-15 ns off
	 * every call where the vDSO's clock_gettime costs 20-40 ns (perf/caller).
	 */
	SR_LOG_CLOCK_AUTO = 3
} sr_log_clock;

/* "realtime", "coarse", "tsc", "auto"; parse is case-insensitive, SR_EINVAL lists them. */
const char *sr_log_clock_name(int clock);
int sr_log_clock_parse(const char *name, sr_log_clock *clock, sr_error *err);

typedef enum sr_sink_kind {
	SR_SINK_FILE = 0,     /* a file opened O_WRONLY|O_APPEND|O_CREAT, owned by the logger */
	SR_SINK_FD = 1,       /* an open descriptor: stdout, stderr, a pipe, a socket */
	SR_SINK_NULL = 2,     /* formats, then discards (measures the consumer) */
	SR_SINK_CALLBACK = 3  /* a function called with each line */
} sr_sink_kind;

/*
 * A callback sink's write: called with each line (newline included, not
 * NUL-terminated) at or above the sink's level, under the sink's lock, on the
 * consumer thread (or a caller's, in sync mode, queue-full policy sync).
 * Return 0, or a non-zero error that is counted in the sink's errors.  It may
 * log (such messages never wait: see sr_log_full_policy).
 */
typedef int (*sr_sink_write_fn)(void *ctx, sr_log_level level, const char *line, size_t len);
/* Optional: called at the end of each batch (after the batch's lines). */
typedef void (*sr_sink_flush_fn)(void *ctx);
/* Optional: called once by sr_log_close, after the last write. */
typedef void (*sr_sink_close_fn)(void *ctx);

#define SR_LOG_MAX_SINKS 16

typedef struct sr_sink_config {
	sr_sink_kind kind;
	/* Lowest level this sink writes.  Default SR_LOG_TRACE (what categories let through). */
	sr_log_level level;
	/* FILE: the path (copied).  Required. */
	const char *path;
	/* FILE: permission bits for a new file, 0 to 07777 (the umask applies).  Default 0640. */
	unsigned file_mode;
	/* FD: the descriptor.  Required (>= 0, open). */
	int fd;
	/* FD: close the descriptor in sr_log_close.  Default false. */
	bool close_fd;
	/*
	 * FD on a pipe: resize the pipe to this many bytes at open
	 * (F_SETPIPE_SZ; a 1 MiB pipe carries ~3x the bytes/s of the default
	 * 64 KiB one to a reader such as cat).  0 (default) leaves it; else
	 * 4,096 to 1 GiB, and the kernel's pipe-max-size applies to
	 * unprivileged processes (an error at open names it).
	 */
	int pipe_bytes;
	/*
	 * FILE, FD: bytes buffered before a write, 256 B to 64 MiB.  Default
	 * 64 KiB.  Lines are written at the end of each batch, or when full.
	 */
	size_t buffer_bytes;
	/*
	 * FILE: rotate when the file would grow past this many bytes (0, the
	 * default: never).  4,096 B to 2^50.  Rotation renames app.log to
	 * app.log.1 (app.log.1 to app.log.2, ...; the oldest beyond keep_files
	 * is deleted) and starts a new app.log.  It happens between two lines,
	 * on the thread that writes (the consumer in ring mode), so no line is
	 * lost, split or written twice.  A single line longer than the limit
	 * gets a file of its own.  Existing files count: a 3 MiB app.log with a
	 * 1 MiB limit rotates at the first write.
	 */
	uint64_t max_file_bytes;
	/* FILE: rotated files kept (app.log.1 ... app.log.N), 0 to 1,000.  Default 5. */
	int keep_files;
	/* FILE: also rotate when the UTC date changes (before the first line of a new day). */
	bool rotate_daily;
	/*
	 * FILE, FD: how long a write may wait (poll) on a non-blocking descriptor
	 * that stays full (EAGAIN), 0 to 60,000 ms, before the buffer is dropped
	 * and counted as an error.  After one such timeout the sink no longer
	 * waits until a write succeeds again.  Default 100 ms.
	 */
	int write_timeout_ms;
	/* CALLBACK: write is required, flush and close optional. */
	sr_sink_write_fn write;
	sr_sink_flush_fn flush;
	sr_sink_close_fn close;
	void *ctx;
} sr_sink_config;

/* Sink configurations with their defaults. */
sr_sink_config sr_sink_file(const char *path);
/* A file sink that rotates at max_file_bytes and keeps keep_files old files. */
sr_sink_config sr_sink_rotating(const char *path, uint64_t max_file_bytes, int keep_files);
sr_sink_config sr_sink_fd(int fd);
sr_sink_config sr_sink_null(void);
sr_sink_config sr_sink_callback(sr_sink_write_fn write, void *ctx);

/*
 * The default wait strategy: spin 10 us, yield 100 us, then sleep (waking
 * every 100 ms so that drop reports and other periodic work run while idle).
 * Publishers signal only a sleeping consumer (liteblock family): a log call
 * while the consumer is awake makes no system call.  See sr_wait.h.
 */
#define SR_LOG_DEFAULT_WAIT "phased:spin=10us,yield=100us,fallback=timeout,timeout=100ms"

typedef struct sr_log_config {
	/* SR_LOG_MODE_RING (default), SR_LOG_MODE_QUEUE or SR_LOG_MODE_SYNC. */
	sr_log_mode mode;
	/*
	 * Ring slots: a power of two from 2 to 2^30.  Default 262,144 (as Log4j
	 * 2's ring).  In queue mode, the queue's capacity in messages.
	 */
	int64_t ring_slots;
	/*
	 * Bytes per slot: a power of two from 64 to 65,536.  Default 128: the
	 * 56-byte record header plus a typical message's arguments (three
	 * numbers and a 40-byte string) fit one slot; longer records take
	 * consecutive slots.  Ring memory is ring_slots x slot_size (32 MiB by
	 * default), allocated and touched at open.
	 */
	size_t slot_size;
	/*
	 * The consumer's wait strategy, by name (sr_wait_config_parse syntax, e.g.
	 * "timeout:timeout=10ms", "liteblock", "busyspin").  NULL means
	 * SR_LOG_DEFAULT_WAIT.  Ring mode only.
	 */
	const char *wait_strategy;
	/* What a caller does when the ring is full.  Default SR_LOG_FULL_BLOCK. */
	sr_log_full_policy full_policy;
	/* SR_LOG_FULL_DISCARD drops messages at or below this level (trace..fatal).  Default info. */
	sr_log_level discard_level;
	/* Callers waiting for room queue on one mutex (ring mode, block).  Default true. */
	bool synchronize_enqueue_when_full;
	/*
	 * Mode sync only.  true (default): each line is written (write(2)) before
	 * the call returns.  false: lines collect in each sink's 64 KiB buffer
	 * and are written when it fills, by sr_log_flush and at close, as Log4j
	 * 2's synchronous appenders do with immediateFlush="false": several
	 * times faster, but the lines still in the buffer are lost if the
	 * process dies.  The ring and queue modes write once per batch whatever
	 * this says.
	 */
	bool immediate_flush;
	/* The root level (trace..off): categories without their own level inherit it.  Default info. */
	sr_log_level level;
	/*
	 * Levels in SEQRING_LOG's form (NULL: none), applied after `level`:
	 * "warn,net.http=info,db=error" (see sr_log_set_level_spec).  Invalid:
	 * an error at open.
	 */
	const char *level_spec;
	/*
	 * Largest record, header and arguments included: 1,024 B to 1 MiB, and
	 * at most ring_slots x slot_size in ring mode.  Longer string arguments
	 * are cut, each cut one ending with "[truncated]".  Default 4,096.
	 */
	size_t max_message_bytes;
	/*
	 * Largest formatted line: 256 B to 16 MiB.  A longer line (a huge width,
	 * say) is cut and ends with " [truncated]".  Default 65,536.
	 */
	size_t max_line_bytes;
	/* SR_LOG_LAYOUT_TEXT (default), _MESSAGE, _PATTERN (with pattern) or _JSON. */
	sr_log_layout layout;
	/*
	 * The pattern of SR_LOG_LAYOUT_PATTERN (required then, and only then:
	 * a pattern with another layout is an error).  NULL by default.
	 */
	const char *pattern;
	/* Where timestamps come from.  Default SR_LOG_CLOCK_REALTIME. */
	sr_log_clock clock;
	/*
	 * The sinks (copied at open), 0 to SR_LOG_MAX_SINKS.  None (NULL, 0)
	 * means one FD sink on stderr.
	 */
	const sr_sink_config *sinks;
	int sink_count;
	/* Register sr_log_shutdown with atexit (see sr_log_shutdown).  Default false. */
	bool close_at_exit;
	/* The consumer thread's name, 1 to 15 characters.  NULL: "seqring-log". */
	const char *thread_name;
	/*
	 * Backtrace (flight recorder): keep the last backtrace_size messages
	 * (0, the default: off; else 1 to 65,536) that are at or above
	 * backtrace_level (default trace) but below their category's level, in
	 * memory, unwritten; when a message at or above backtrace_trigger
	 * (default error) is written, write them first, oldest first, marked
	 * "[backtrace] " (JSON: "backtrace":true), to the sinks that take the
	 * trigger, then forget them.  Callers pay for copying such messages into
	 * the ring (the level check passes them), the consumer formats them only
	 * when a trigger comes.  sr_log_dump_backtrace writes them on demand.
	 * Ring mode only (an error at open otherwise).  A ring that is full
	 * applies the full-queue policy to such messages too (policy sync drops
	 * them: they are not the caller's to write).
	 */
	int backtrace_size;
	sr_log_level backtrace_level;
	sr_log_level backtrace_trigger;
	/* Install the crash handler at open (sr_log_install_crash_handler).  Default false. */
	bool crash_handler;
	/* Print sr_log_describe to stderr once open (as SEQRING_LOG_DESCRIBE=1).  Default false. */
	bool describe;
	/*
	 * Ignore every SEQRING_LOG* environment variable (tests, programs that
	 * must not be reconfigured from outside).  Default false: the
	 * environment overrides the code, setting by setting (see below).
	 */
	bool ignore_environment;
} sr_log_config;

/*
 * The environment.  sr_log_open reads SEQRING_LOG (levels) and the
 * SEQRING_LOG_* variables listed in logger/README-config.md, each of which
 * overrides its config field (the operator has the last word over the
 * code) unless config.ignore_environment is set:
 *
 *   SEQRING_LOG                  levels: "warn,net.http=info" merged over
 *                                level and level_spec (the environment's
 *                                default level and directives win; the
 *                                code's directives for other prefixes stay)
 *   SEQRING_LOG_MODE             ring | queue | sync
 *   SEQRING_LOG_RING_SLOTS       power of two, 2 to 2^30 (suffix k, m: x1024)
 *   SEQRING_LOG_SLOT_SIZE        power of two, 64 to 65536 (suffix k)
 *   SEQRING_LOG_WAIT             a wait strategy (sr_wait_config_parse syntax)
 *   SEQRING_LOG_FULL_POLICY      block | drop | discard | sync
 *   SEQRING_LOG_DISCARD_LEVEL    trace .. fatal
 *   SEQRING_LOG_SYNC_ENQUEUE     0 | 1 (synchronize_enqueue_when_full)
 *   SEQRING_LOG_IMMEDIATE_FLUSH  0 | 1 (immediate_flush, mode sync)
 *   SEQRING_LOG_MAX_MESSAGE      1024 to 1m bytes (max_message_bytes)
 *   SEQRING_LOG_MAX_LINE         256 to 16m bytes (max_line_bytes)
 *   SEQRING_LOG_LAYOUT           text | message | json | pattern
 *   SEQRING_LOG_PATTERN          a pattern (implies layout pattern)
 *   SEQRING_LOG_CLOCK            realtime | coarse | tsc | auto
 *   SEQRING_LOG_SINK             sinks replacing config.sinks, ';'-separated:
 *                                stderr | stdout | null | fd:N | file:PATH,
 *                                each with options ",level=L",
 *                                ",buffer=64k", and for files ",max_size=10m",
 *                                ",keep=5", ",daily=1", ",mode=0640"
 *   SEQRING_LOG_THREAD_NAME      the consumer thread's name
 *   SEQRING_LOG_CLOSE_AT_EXIT    0 | 1
 *   SEQRING_LOG_BACKTRACE        0 to 65536 (backtrace_size)
 *   SEQRING_LOG_BACKTRACE_LEVEL  trace .. fatal
 *   SEQRING_LOG_BACKTRACE_TRIGGER trace .. fatal
 *   SEQRING_LOG_CRASH_HANDLER    0 | 1
 *   SEQRING_LOG_DESCRIBE         0 | 1: print sr_log_describe to stderr at open
 *
 * An invalid value, or a SEQRING_LOG_* name that is none of these (a typo
 * would otherwise be silently ignored), makes sr_log_open fail with
 * SR_EINVAL and a message naming the variable, its value and what is valid:
 * "SEQRING_LOG_RING_SLOTS '1000' is invalid: expected a power of two from 2
 * to 1073741824".  An empty variable counts as unset.  The environment is
 * read once, by sr_log_open (getenv: do not setenv in another thread at the
 * same time); sr_log_set_level_spec reloads levels from a string later.
 */

/* Fills *config with the documented defaults. */
void sr_log_config_default(sr_log_config *config);

/* Names for messages and configuration: "ring", "queue", "sync"; "block", "drop", ... */
const char *sr_log_mode_name(int mode);
const char *sr_log_full_policy_name(int policy);
/* Parse those names (case-insensitive); SR_EINVAL lists the valid ones. */
int sr_log_mode_parse(const char *name, sr_log_mode *mode, sr_error *err);
int sr_log_full_policy_parse(const char *name, sr_log_full_policy *policy, sr_error *err);

/* ---------------------------------------------------------------------------------------- */
/* Lifecycle                                                                                */

typedef struct sr_log sr_log;

/*
 * Opens a logger: validates every field of *config (NULL: all defaults),
 * opens its sinks, creates its ring and starts its consumer thread.
 * Returns NULL on error, with err (if given) naming the bad field, its value
 * and the valid range, e.g. "config.ring_slots 1000 is invalid: expected a
 * power of two from 2 to 1073741824".  Codes: SR_EINVAL (a bad value),
 * SR_ESYS (a file that cannot be opened, a thread that cannot start: the
 * message has errno's text), SR_ENOMEM.  A failed open leaks nothing.
 */
sr_log *sr_log_open(const sr_log_config *config, sr_error *err);

/*
 * Writes every message accepted before the call, flushes, stops the consumer,
 * closes the sinks (files, descriptors with close_fd, callbacks' close), frees
 * the logger and sets *logp to NULL.  A message dropped before the close is
 * reported in the log first.  NULL or *logp == NULL: nothing happens, so
 * calling it twice is harmless.  Returns SR_OK, or SR_ESTATE (doing nothing)
 * when called from the logger's own consumer thread (a sink callback).
 * Category handles of the logger are invalid afterwards.
 */
int sr_log_close(sr_log **logp);

/*
 * Stops the logger without freeing it: every category is set to off (later
 * log calls cost a level check and do nothing), everything accepted is
 * written, the consumer stops, sinks are flushed and closed.  Idempotent.
 * close_at_exit registers this for the logger with atexit: other threads may
 * still log while exit runs, so the memory stays valid until the process
 * ends (or until sr_log_close, which is still allowed and frees it).
 * Returns SR_OK or SR_ESTATE from the consumer thread.
 */
int sr_log_shutdown(sr_log *log);

/*
 * Waits until every message accepted before the call has been written to
 * the sinks (write(2) returned; no fsync), and any pending drop report too.
 * SR_OK; SR_ESTATE from a consumer thread or after shutdown; SR_EINVAL for NULL.
 */
int sr_log_flush(sr_log *log);

/* The optional process-wide default logger (NULL until set).  Cleared when it is closed. */
sr_log *sr_log_default(void);
void sr_log_set_default(sr_log *log);

/* ---------------------------------------------------------------------------------------- */
/* Categories                                                                               */

/*
 * A category handle.  Logging macros read `level` (relaxed, one load); the
 * rest is private.  Handles are stable until the logger is closed.
 */
typedef struct sr_category {
	/*
	 * The call-site threshold: a message at level >= this enters the
	 * logger.  It is the effective level (write_level) or, with a
	 * backtrace, the lower backtrace_level.  Relaxed: a change reaches
	 * callers "soon", no ordering is needed (the record carries everything
	 * the consumer reads).
	 */
	sr_atomic_i32 level;
	int32_t id;
	sr_log *log;
	const char *name;
	/*
	 * Effective level: messages at or above it are written, those below it
	 * (let in for the backtrace) are kept in the backtrace.  The higher of
	 * the category's configured level and the lowest sink level.  Read
	 * relaxed by the consumer and sr_category_level.
	 */
	sr_atomic_i32 write_level;
} sr_category;

/*
 * The handle of a dotted category name ("net.http"), created on first use
 * with the level of its longest configured prefix ("net.http" takes "net"'s
 * level unless "net.http" has its own; "network" does not match "net").
 * Names: 1 to 255 printable ASCII characters except space, ',' and '=', made
 * of non-empty dot-separated parts.  Returns NULL with SR_EINVAL for a bad
 * name or NULL log, SR_ENOMEM, SR_ESTATE after shutdown.
 */
sr_category *sr_log_category_get(sr_log *log, const char *name, sr_error *err);

/*
 * As sr_log_category_get, but never NULL: on any error it returns
 * &sr_category_off, a handle whose level is off (every macro on it is a
 * no-op), so that a library can log through sr_log_default() unconditionally.
 */
sr_category *sr_log_category(sr_log *log, const char *name);

/* The root category (name "", printed "root"); NULL log gives &sr_category_off. */
sr_category *sr_log_root(sr_log *log);

/* The always-off handle (never written). */
extern sr_category sr_category_off;

/*
 * Sets the level of a category name and of every name below it that has no
 * longer prefix of its own ("net" affects "net.http" unless "net.http" was
 * set); NULL or "" sets the root level.  SR_LOG_INHERIT removes the prefix's
 * own level (not allowed for the root).  Every affected handle's effective
 * level is updated at once; callers see it without locks.  Errors: SR_EINVAL
 * (bad name, bad level), SR_ENOMEM, SR_ESTATE after shutdown.
 */
int sr_log_set_level(sr_log *log, const char *prefix, int level, sr_error *err);

/* A handle's effective level (sr_category.write_level). */
sr_log_level sr_category_level(const sr_category *category);

/* The configured (not effective) level a name would get: its longest prefix's. */
sr_log_level sr_log_level_for(sr_log *log, const char *name);

/*
 * Replaces the logger's levels with a spec in SEQRING_LOG's form, as in
 * Rust's RUST_LOG: comma-separated directives, each a level (the root
 * level: at most one) or `prefix=level`.  Unlike RUST_LOG, a bare name is
 * an error, not "name=trace": the likeliest bare word is a misspelt level.
 * Levels are trace, debug, info, warn (warning), error, fatal, off, any
 * case; spaces around items are ignored; a prefix may appear once.  A
 * category takes the level of its longest dotted prefix ("net.http.client"
 * takes "net.http=info" over "net=warn"; "network" does not match "net").
 * Every directive set before (by code, the environment or the API) is
 * removed; the root level changes only when the spec has one.  The spec is
 * checked whole first: on SR_EINVAL nothing changed and the message names
 * the directive, e.g. "level spec 'warn,db=loud': 'db=loud': level 'loud'
 * is invalid: expected trace, debug, info, warn, error, fatal or off".
 * SR_ESTATE after shutdown.
 */
int sr_log_set_level_spec(sr_log *log, const char *spec, sr_error *err);

/*
 * Writes the levels in force as a spec ("info,db=error,net.http=debug":
 * root first, then prefixes sorted), NUL-terminated, into buf.  Returns the
 * spec's length (as snprintf: a value >= size means it was cut), or
 * SR_EINVAL.
 */
int sr_log_level_spec(sr_log *log, char *buf, size_t size);

/*
 * Prints the logger's effective configuration to out: every setting with
 * its value and where it came from (default, code, environment with the
 * variable, or run time), each level directive and its source, and every
 * known category (created, or named by a directive) with its configured and
 * effective level and the directive that decided it.  Run
 * SEQRING_LOG_DESCRIBE=1 to see it at open.  SR_EINVAL for NULL.
 */
int sr_log_describe(sr_log *log, FILE *out);

/*
 * Writes what the backtrace holds now (see config.backtrace_size), marked,
 * to every sink, and empties it, as a trigger message would.  Waits like
 * sr_log_flush.  SR_ESTATE when the logger has no backtrace or is shut
 * down, or from a consumer thread.
 */
int sr_log_dump_backtrace(sr_log *log);

/* ---------------------------------------------------------------------------------------- */
/* Crash flush                                                                              */

/*
 * Opt in: installs handlers for SIGSEGV, SIGBUS, SIGILL, SIGFPE and SIGABRT
 * that write every message already published to the logger's sinks before
 * the process dies, then give the signal to whatever handled it before
 * (that handler is called; a default or ignored disposition is restored and
 * the signal raised again, so the process dies as it would have, core dump
 * included).  Handlers the application installs later take precedence, as
 * they should; ours then run only if the application chains to them.
 *
 * In the handler, only async-signal-safe calls are made.  The consumer
 * thread, if it is alive, writes what was published (the handler waits up
 * to 1 s, then up to 100 ms for the consumer to stop); if it
 * cannot (it is the crashing thread, or it is stuck), the handler writes the
 * consumer's buffered bytes and formats the remaining records itself with a
 * signal-safe renderer (sr_fmt_render_safe: integers, strings and pointers
 * as printf prints them, floating point by a simpler routine whose last
 * digits may differ, %m as "errno N"; dates are computed without the C
 * library in every layout anyway).  Those records go to the file and
 * descriptor sinks; callback sinks are not called from the handler (their
 * code is not known to be signal-safe).  After such a takeover the
 * consumer stays parked: the logger writes nothing more if the process
 * survives (an application handler that recovers).  Records a thread had
 * claimed but not yet published when the crash came (and those after them)
 * cannot be read and are not written.  Ring mode only.
 *
 * Several loggers may install it (up to 8).  sr_log_close (and
 * sr_log_shutdown) removes the logger; the handlers are restored to the
 * previous ones when the last logger goes, unless the application replaced
 * them meanwhile (then they are left alone).  Errors: SR_EINVAL (NULL, not
 * ring mode), SR_EFULL (8 loggers), SR_ESYS (sigaction failed).
 */
int sr_log_install_crash_handler(sr_log *log, sr_error *err);

/* Removes the logger from the crash handler (see above).  SR_OK if it was not installed. */
int sr_log_remove_crash_handler(sr_log *log);

/* ---------------------------------------------------------------------------------------- */
/* Logging                                                                                  */

/*
 * SR_TRACE(cat, fmt, ...) ... SR_FATAL(cat, fmt, ...) and SR_LOG(cat, level,
 * fmt, ...) with a constant level.  fmt must be a string literal: it is
 * checked by the compiler against the arguments (format attribute) and stored
 * in the call site.  When the level is disabled, nothing after the level
 * check runs: arguments are not evaluated.  Logging at SR_LOG_FATAL does not
 * abort.
 */
#define SR_LOG(cat, lvl, ...) do { \
	sr_category *const sr_log__cat = (cat); \
	if (SR_LOG_ENABLED(sr_log__cat, lvl)) { \
		static sr_site sr_log__site = { \
			.format = SR_LOG__FIRST(__VA_ARGS__), .file = __FILE__, \
			.function = __func__, .line = __LINE__, .level = (lvl) }; \
		sr_log_emit(sr_log__cat, &sr_log__site, __VA_ARGS__); \
	} \
} while (0)

#define SR_TRACE(cat, ...) SR_LOG(cat, SR_LOG_TRACE, __VA_ARGS__)
#define SR_DEBUG(cat, ...) SR_LOG(cat, SR_LOG_DEBUG, __VA_ARGS__)
#define SR_INFO(cat, ...)  SR_LOG(cat, SR_LOG_INFO, __VA_ARGS__)
#define SR_WARN(cat, ...)  SR_LOG(cat, SR_LOG_WARN, __VA_ARGS__)
#define SR_ERROR(cat, ...) SR_LOG(cat, SR_LOG_ERROR, __VA_ARGS__)
#define SR_FATAL(cat, ...) SR_LOG(cat, SR_LOG_FATAL, __VA_ARGS__)

/*
 * True when a message at lvl would be logged through cat: one relaxed load
 * and one compare, predicted false (a disabled level falls through).  Use it
 * to guard expensive preparation of arguments.
 */
#define SR_LOG_ENABLED(cat, lvl) \
	__builtin_expect((int32_t)(lvl) >= sr_atomic_load_relaxed_i32(&(cat)->level), 0)

/* The format argument of a macro call (first of __VA_ARGS__; C11 needs one). */
#define SR_LOG__FIRST(...) SR_LOG__FIRST_(__VA_ARGS__, 0)
#define SR_LOG__FIRST_(fmt, ...) fmt

/*
 * What the macros call once the level passed: the hot path.  format must be
 * site->format (the macros pass it so that the compiler checks the
 * arguments).  Never call it with a site whose format differs from the one
 * its first call saw.
 */
void sr_log_emit(sr_category *cat, sr_site *site, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

/*
 * Names the calling thread in the text layout (1 to 15 bytes are kept; NULL
 * or "" goes back to the default: the OS thread name when it differs from
 * the process name, else the thread id).
 */
void sr_log_thread_name(const char *name);

/* ---------------------------------------------------------------------------------------- */
/* Statistics                                                                               */

typedef struct sr_log_sink_counters {
	uint64_t messages;    /* lines given to the sink (after its level filter) */
	uint64_t bytes;       /* bytes written successfully */
	uint64_t writes;      /* write(2) calls (or callback calls) that succeeded */
	uint64_t errors;      /* failed writes / callback errors, skipped writes of a broken sink */
	uint64_t lost_bytes;  /* bytes that could not be written */
	uint64_t rotations;   /* FILE with rotation: files rotated */
} sr_log_sink_counters;

typedef struct sr_log_counters {
	/*
	 * Messages taken in: into the ring (counted when the consumer reads them,
	 * so the figure lags by what is still in the ring: sr_log_flush first
	 * for exact figures), the queue, or written by their caller (sync mode,
	 * policy sync).  Format errors count: their error line is written.
	 */
	uint64_t accepted;
	/* Accepted messages whose line was handed to every sink it qualifies for. */
	uint64_t written;
	/* Of those, written by their caller (sync mode, policy sync). */
	uint64_t written_by_caller;
	/*
	 * Messages dropped, total and by level: a full queue under policy drop
	 * or discard, a consumer thread or sink write that found the queue full,
	 * and (sync mode) a message logged from inside a sink write, which would
	 * otherwise deadlock on the one mutex.  Reported in the log as
	 * "N message(s) dropped because the queue was full (N at info, ...)".
	 */
	uint64_t dropped;
	uint64_t dropped_by_level[SR_LOG_LEVEL_COUNT];
	/* Calls whose format was refused (%n, unsupported conversion, ...). */
	uint64_t format_errors;
	/* Records whose strings were cut to max_message_bytes; lines cut to max_line_bytes. */
	uint64_t truncated_records;
	uint64_t truncated_lines;
	/* Sum of the sinks' errors. */
	uint64_t sink_errors;
	/*
	 * Backtrace: messages written as backtrace lines, and kept messages
	 * that were pushed out of a full backtrace before any trigger.
	 */
	uint64_t backtrace_written;
	uint64_t backtrace_discarded;
	/* Highest number of ring slots (queue: messages) seen waiting by the consumer. */
	int64_t max_occupancy;
	/* Ring slots (queue capacity) and batches the consumer handled. */
	int64_t capacity;
	uint64_t batches;
	int sink_count;
	sr_log_sink_counters sinks[SR_LOG_MAX_SINKS];
} sr_log_counters;

/*
 * Fills *stats with the logger's counters (each read once, relaxed: a
 * snapshot, not an atomic one).  SR_EINVAL for NULL.  Exact after
 * sr_log_flush, sr_log_shutdown, or when no thread logs.
 */
int sr_log_stats(sr_log *log, sr_log_counters *stats);

#ifdef __cplusplus
}
#endif

#endif /* SR_LOG_H */

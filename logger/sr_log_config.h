/* SPDX-License-Identifier: Apache-2.0 */
/**
 * @file sr_log_config.h
 * @ingroup logger
 * @brief What sr_log_open takes: modes, full-queue policies,
 * layouts, clocks, sinks and the sr_log_config struct, with their defaults,
 * names and parsers.  The reference for every field and SEQRING_LOG*
 * variable is docs/configuration.md.  Part of the logging API (sr_log.h
 * includes it).
 */
#ifndef SR_LOG_CONFIG_H
#define SR_LOG_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sr_error.h"
#include "sr_export.h"
#include "sr_log_level.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief How messages travel from the caller to the sinks. */
typedef enum sr_log_mode {
	/**
	 * The Disruptor path (default): callers copy arguments into a ring, one
	 * consumer thread formats and writes.
	 */
	SR_LOG_MODE_RING = 0,
	/**
	 * Baseline, as Log4j 2's AsyncAppender or .NET's console logger: callers
	 * format, then enqueue the text in a bounded queue (mutex + condition
	 * variables) of ring_slots messages drained by one thread.
	 */
	SR_LOG_MODE_QUEUE = 1,
	/**
	 * Baseline, a synchronous logger: callers format and write under one
	 * mutex, one write(2) per message per sink.  Full-queue policies do
	 * not apply (there is no queue).
	 */
	SR_LOG_MODE_SYNC = 2
} sr_log_mode;

/**
 * @brief Which ring a caller writes into (mode ring only).
 */
typedef enum sr_log_producer {
	/**
	 * One multi-producer ring of ring_slots shared by every calling thread:
	 * a call claims its slots with one CAS on the shared cursor.  The
	 * ring's memory is allocated at open, whatever the number of threads.
	 */
	SR_LOG_PRODUCER_SHARED = 0,
	/**
	 * One single-producer ring of thread_ring_slots per calling thread
	 * (default), made (allocated and touched) on the thread's first call
	 * and freed once the thread has exited and its ring is drained (its
	 * memory kept a while for the next new thread).  A call claims
	 * with plain arithmetic and publishes with one store: no locked
	 * instruction, no system call while the consumer is awake.  The
	 * consumer merges the rings in timestamp order; a record published
	 * after the consumer began a pass may come out after records stamped
	 * later, by at most the time between its own clock read and its
	 * publish.  A consumer that missed a wake-up sleeps at most 8 ms
	 * (1 ms just after work; none is missed after about 15 ms of quiet,
	 * where membarrier(2) works).  A site's calls after its first are
	 * written inline at the call site (sr_log_fast.h).
	 * docs/configuration.md has both bounds.  Mode ring only: the queue
	 * and sync modes ignore the producer.
	 */
	SR_LOG_PRODUCER_PER_THREAD = 1
} sr_log_producer;

/**
 * @brief What a logger does in the child of a fork(2) (see sr_log_shutdown's
 * notes on fork in sr_log.h).
 */
typedef enum sr_log_fork_policy {
	/**
	 * The child has a working logger (default): its consumer starts again
	 * after what the parent had taken, and the child writes its own calls.
	 */
	SR_LOG_FORK_RESTART = 0,
	/**
	 * The child's calls are dropped and counted (sr_log_stats' dropped): no
	 * thread is started in the child (a child that only execs, say).
	 */
	SR_LOG_FORK_DROP = 1
} sr_log_fork_policy;

/**
 * @brief What a caller does when the ring (or queue) is full.
 *
 * Whatever the policy,
 * a message logged by a consumer thread itself (a sink callback, say) or from
 * inside a sink write never waits: when it finds no room it is dropped and
 * counted, so a logger cannot deadlock on itself.
 */
typedef enum sr_log_full_policy {
	/**
	 * Wait for room (default; .NET's Wait, Log4j 2's default).  Nothing is
	 * lost, but a stalled sink stalls every caller.  Waiting backs off
	 * (spin, yield, naps); with synchronize_enqueue_when_full, waiting
	 * callers queue on one mutex so that only one of them polls.
	 */
	SR_LOG_FULL_BLOCK = 0,
	/**
	 * Drop the new message and count it (.NET's DropWrite).  Callers never
	 * wait; warnings and errors may be lost too.
	 */
	SR_LOG_FULL_DROP = 1,
	/**
	 * Drop messages at or below discard_level (default info) and count them;
	 * more severe ones wait (Log4j 2's Discard policy): warnings and errors
	 * are never lost to a full queue.
	 */
	SR_LOG_FULL_DISCARD = 2,
	/**
	 * The caller formats and writes the message itself, under each sink's
	 * lock (Log4j 2's synchronous fallback).  Nothing is lost and nobody
	 * waits for the consumer, but such a message may come out before older
	 * ones still in the ring.
	 */
	SR_LOG_FULL_SYNC = 3
} sr_log_full_policy;

/** @brief How a message becomes a line. */
typedef enum sr_log_layout {
	/**
	 * "2026-11-30T12:34:56.123456Z INFO  [main] net.http - GET / -> 200 (server.c:42)\n":
	 * ISO-8601 UTC timestamp with microseconds, level, thread name (or id),
	 * category ("root" for the root), message, file base name and line.
	 */
	SR_LOG_LAYOUT_TEXT = 0,
	/** The message and a newline, nothing else. */
	SR_LOG_LAYOUT_MESSAGE = 1,
	/**
	 * config.pattern, Log4j-like: "%d %-5p [%t] %c - %m%n".  Conversions:
	 * @code{.unparsed}
	 *   %d{fmt}  the timestamp, UTC; fmt is strftime-like: %Y %m %d %H %M %S
	 *            %j %y %e %b %a %s %z (+0000) %Z (UTC) %% and %f, the
	 *            fraction of the second: %3f ms, %6f us (%f), %9f ns, any
	 *            of 1 to 9 digits.  %d alone: %Y-%m-%dT%H:%M:%S.%6fZ.
	 *   %p level (INFO), %c category ("root" for the root), %t thread name
	 *   (its id when it has none), %T thread id, %m message, %F file base
	 *   name, %L line, %M function, %K the call's key-value fields (SR_KV)
	 *   as the text layout writes them, " key=value" each, %n newline,
	 *   %% a percent sign.
	 * Each conversion but %n and %% takes an optional width: %-10c pads on
	 * the right to 10, %10c on the left, %.20c keeps the last 20
	 * characters (as Log4j truncates), %-10.20c both.  Every line ends with
	 * exactly one newline: a trailing %n is that newline, and a pattern
	 * without one gets it.  A bad pattern is an error at open that names
	 * its column (sr_log_pattern_check).
	 * @endcode
	 */
	SR_LOG_LAYOUT_PATTERN = 2,
	/**
	 * JSON Lines, one object per message, for log shippers (Vector, Fluent
	 * Bit, Loki):
	 * @code{.unparsed}
	 *   {"ts":"2026-11-30T12:34:56.123456789Z","level":"info","category":"net.http",
	 *    "thread":"main","tid":4242,"msg":"GET / -> 200","file":"server.c",
	 *    "line":42,"function":"handle"}
	 * @endcode
	 * Strings are escaped (quotes, backslashes, every control character)
	 * and invalid UTF-8 is replaced by U+FFFD, so every line parses.  A
	 * message too long for max_line_bytes is cut inside "msg" (ending in
	 * "[truncated]") and the object stays whole.  Backtrace lines carry
	 * "backtrace":true.
	 */
	SR_LOG_LAYOUT_JSON = 3,
	/** A sink's default (sr_sink_config.layout): the logger's layout. */
	SR_LOG_LAYOUT_LOGGER = -1
} sr_log_layout;

/**
 * @brief The name of a layout.
 * @param layout An sr_log_layout value; any int is accepted.
 * @return "text", "message", "pattern", "json"; "unknown" for another value (static, never NULL).
 */
SR_API const char *sr_log_layout_name(int layout);
/**
 * @brief Parses a layout name (case-insensitive).
 * @param name "text", "message", "pattern" or "json".
 * @param layout Receives the layout on success.
 * @param err Receives the message on failure; may be NULL.
 * @retval SR_OK *layout is set.
 * @retval SR_EINVAL Any other name; the message lists the valid ones.
 */
SR_API int sr_log_layout_parse(const char *name, sr_log_layout *layout, sr_error *err);

/**
 * @brief Checks a pattern (SR_LOG_LAYOUT_PATTERN) without opening a logger.
 * @param pattern The pattern.
 * @param err Receives the message on failure; may be NULL.
 * @retval SR_OK The pattern is valid.
 * @retval SR_EINVAL With a message naming the column (1-based) and what is
 *         wrong, e.g. <tt>pattern '\%d \%q' is invalid at column 4: '\%q' is not a
 *         conversion (expected \%d \%p \%c \%t \%T \%m \%F \%L \%M \%n \%\%)</tt>.
 */
SR_API int sr_log_pattern_check(const char *pattern, sr_error *err);

/**
 * @brief Where timestamps come from.
 *
 * Each is read on the calling thread; see
 * docs/configuration.md for the cost of each.
 */
typedef enum sr_log_clock {
	/** clock_gettime(CLOCK_REALTIME): nanoseconds, NTP-disciplined. */
	SR_LOG_CLOCK_REALTIME = 0,
	/**
	 * clock_gettime(CLOCK_REALTIME_COARSE): the kernel's last tick, cheaper
	 * than realtime, behind it by up to one tick (clock_getres reports the
	 * tick: 1 to 10 ms).
	 */
	SR_LOG_CLOCK_COARSE = 1,
	/**
	 * The CPU's time-stamp counter (x86-64, invariant TSC only): the caller
	 * stores the raw counter, the consumer converts it to wall time with a
	 * calibration against CLOCK_REALTIME made at open (~5 ms) and refreshed
	 * by the consumer (after 50 ms, 200 ms, then every second), slewing
	 * gently so that converted times never go backwards on a thread (and
	 * stepping only when CLOCK_REALTIME itself jumps by more than 1 ms).
	 * An error at open on a CPU without an invariant TSC.
	 */
	SR_LOG_CLOCK_TSC = 2,
	/**
	 * The default: tsc when the CPU reports an invariant TSC, else realtime,
	 * decided at open (sr_log_describe shows which).  Reading the TSC is
	 * cheaper than a vDSO clock_gettime: perf/caller measures the difference.
	 */
	SR_LOG_CLOCK_AUTO = 3
} sr_log_clock;

/**
 * @brief The name of a clock.
 * @param clock An sr_log_clock value; any int is accepted.
 * @return "realtime", "coarse", "tsc", "auto"; "unknown" for another value (static, never NULL).
 */
SR_API const char *sr_log_clock_name(int clock);
/**
 * @brief Parses a clock name (case-insensitive).
 * @param name "realtime", "coarse", "tsc" or "auto".
 * @param clock Receives the clock on success.
 * @param err Receives the message on failure; may be NULL.
 * @retval SR_OK *clock is set.
 * @retval SR_EINVAL Any other name; the message lists the valid ones.
 */
SR_API int sr_log_clock_parse(const char *name, sr_log_clock *clock, sr_error *err);

/** @brief Whether stdout and stderr sinks colour the level (ANSI escapes). */
typedef enum sr_log_color {
	/** When the descriptor is a terminal and NO_COLOR is unset or empty (the default). */
	SR_LOG_COLOR_AUTO = 0,
	/** always */
	SR_LOG_COLOR_ALWAYS = 1,
	/** never */
	SR_LOG_COLOR_NEVER = 2
} sr_log_color;

/**
 * @brief The name of a colour setting.
 * @param color An sr_log_color value; any int is accepted.
 * @return "auto", "always", "never"; "unknown" for another value.
 */
SR_API const char *sr_log_color_name(int color);

/** @brief Where a sink writes. */
typedef enum sr_sink_kind {
	SR_SINK_FILE = 0,     /**< a file opened O_WRONLY|O_APPEND|O_CREAT, owned by the logger */
	SR_SINK_FD = 1,       /**< an open descriptor: stdout, stderr, a pipe, a socket */
	SR_SINK_NULL = 2,     /**< formats, then discards (measures the consumer) */
	SR_SINK_CALLBACK = 3, /**< a function called with each line */
	SR_SINK_SYSLOG = 4,   /**< a syslog collector: the local socket, UDP, TCP or a unix socket */
	SR_SINK_CTF = 5,      /**< a CTF 1.8 trace in a directory: records as binary events, not lines (docs/trace.md) */
	SR_SINK_JOURNALD = 6  /**< systemd-journald's native protocol: one datagram of fields per record (docs/sinks.md) */
} sr_sink_kind;

/** @brief How a syslog sink reaches its collector (sr_sink_syslog). */
typedef enum sr_syslog_transport {
	SR_SYSLOG_LOCAL = 0,       /**< the local daemon's datagram socket, /dev/log */
	SR_SYSLOG_UDP = 1,         /**< "HOST:PORT", one datagram per message */
	SR_SYSLOG_TCP = 2,         /**< "HOST:PORT", RFC 6587 octet counting: "LEN SP MSG" */
	SR_SYSLOG_UNIX = 3,        /**< a unix socket at a path: stream if it accepts, else datagram */
	SR_SYSLOG_UNIX_STREAM = 4, /**< a unix stream socket at a path (octet counting) */
	SR_SYSLOG_UNIX_DGRAM = 5   /**< a unix datagram socket at a path */
} sr_syslog_transport;

/** @brief A syslog sink's message format. */
typedef enum sr_syslog_format {
	SR_SYSLOG_5424 = 5424,     /**< RFC 5424 with structured data (the default) */
	SR_SYSLOG_3164 = 3164      /**< RFC 3164 ("BSD"), for old daemons */
} sr_syslog_format;

/**
 * @brief A callback sink's write.
 *
 * Called with each line (newline included, not
 * NUL-terminated) at or above the sink's level, under the sink's lock, on the
 * consumer thread (or a caller's, in sync mode, queue-full policy sync).
 * It may log (such messages never wait: see sr_log_full_policy).
 * @param ctx The sink's ctx.
 * @param level The message's level.
 * @param line The line, newline included, not NUL-terminated.
 * @param len Its length in bytes.
 * @return 0, or a non-zero error that is counted in the sink's errors.
 */
typedef int (*sr_sink_write_fn)(void *ctx, sr_log_level level, const char *line, size_t len);
/**
 * @brief A callback sink's flush, optional: called at the end of each batch (after the batch's lines).
 * @param ctx The sink's ctx.
 */
typedef void (*sr_sink_flush_fn)(void *ctx);
/**
 * @brief A callback sink's close, optional: called once by sr_log_close, after the last write.
 * @param ctx The sink's ctx.
 */
typedef void (*sr_sink_close_fn)(void *ctx);

/** @brief The most sinks one logger writes to. */
#define SR_LOG_MAX_SINKS 16

/** @brief One sink: where lines go and how (start from sr_sink_file, sr_sink_fd, ... for the defaults). */
typedef struct sr_sink_config {
	/** what the sink writes to */
	sr_sink_kind kind;
	/** Lowest level this sink writes.  Default SR_LOG_TRACE (what categories let through). */
	sr_log_level level;
	/** FILE: the path (copied).  CTF: the trace's directory (made if missing; its parent must exist).  Required. */
	const char *path;
	/** FILE: permission bits for a new file, 0 to 07777 (the umask applies).  Default 0640. */
	unsigned file_mode;
	/** FD: the descriptor.  Required (>= 0, open). */
	int fd;
	/** FD: close the descriptor in sr_log_close.  Default false. */
	bool close_fd;
	/**
	 * FD on a pipe: resize the pipe to this many bytes at open
	 * (F_SETPIPE_SZ; a bigger pipe carries more bytes per second than the default
	 * 64 KiB one to a reader such as cat).  0 (default) leaves it; else
	 * 4,096 to 1 GiB, and the kernel's pipe-max-size applies to
	 * unprivileged processes (an error at open names it).
	 */
	int pipe_bytes;
	/**
	 * FILE, FD: bytes buffered before a write, 256 B to 64 MiB.  Default
	 * 1 MiB (sr_sink_file, sr_sink_fd: a batch's lines in one write; the
	 * other constructors, 64 KiB).  Lines are written at the end of each
	 * batch, or when full.
	 * When the sink is the only one on its layout (and neither coloured nor
	 * rotating), the consumer lays each line straight into this buffer,
	 * which then takes max_line_bytes more memory; its writes are the same.
	 */
	size_t buffer_bytes;
	/**
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
	/** FILE: rotated files kept (app.log.1 ... app.log.N), 0 to 1,000.  Default 5. */
	int keep_files;
	/** FILE: also rotate when the UTC date changes (before the first line of a new day). */
	bool rotate_daily;
	/**
	 * FILE, FD: how long a write may wait (poll) on a non-blocking descriptor
	 * that stays full (EAGAIN), 0 to 60,000 ms, before the buffer is dropped
	 * and counted as an error.  After one such timeout the sink no longer
	 * waits until a write succeeds again.  Default 100 ms.
	 */
	int write_timeout_ms;
	/**
	 * FILE: write behind the consumer.  When the consumer is behind (its
	 * batch cut short by its bound), a thread of the sink's own writes the
	 * full buffer while the consumer lays out the next batch's lines in a
	 * second one (buffer_bytes more memory), so that laying out and the
	 * kernel's copy overlap.  Every other write waits for it first: the
	 * file holds the lines in the same order, rotation and counters are
	 * unchanged, and sr_log_flush returns with every line in the file.
	 * Only with mode ring and producer per_thread (the default), on a
	 * regular file, without a ring directory, in a process that may run on
	 * two CPUs or more (its affinity and its cgroup's CPU quota); otherwise
	 * the consumer writes, as when false.
	 * Default true (sr_sink_file).
	 */
	bool write_behind;
	/**
	 * How this sink lays out a message: SR_LOG_LAYOUT_LOGGER (the
	 * constructors' default: the logger's layout), or TEXT, MESSAGE,
	 * PATTERN (with `pattern`) or JSON.  Each record is rendered once per
	 * distinct layout, not once per sink.  A syslog sink puts the line,
	 * without its newline, in the syslog message's MSG part.  Mode queue
	 * renders on the caller before it queues: there every sink must use the
	 * logger's layout (an error at open otherwise).
	 */
	sr_log_layout layout;
	/** The pattern of layout SR_LOG_LAYOUT_PATTERN (required then, and only then). */
	const char *pattern;
	/**
	 * SYSLOG (sr_sink_syslog): the transport and its address ("HOST:PORT"
	 * for UDP and TCP, a path for the unix ones, NULL for LOCAL: /dev/log).
	 * JOURNALD (sr_sink_journald) takes its socket's path from
	 * syslog_address (NULL: /run/systemd/journal/socket).
	 */
	sr_syslog_transport syslog_transport;
	/** SYSLOG: the address (see syslog_transport).  JOURNALD: the socket's path, 1 to 107 bytes, or NULL. */
	const char *syslog_address;
	/** SYSLOG: facility 0 to 23 (LOG_USER is 1, the default; local0 is 16). */
	int syslog_facility;
	/** SYSLOG: SR_SYSLOG_5424 (default) or SR_SYSLOG_3164. */
	sr_syslog_format syslog_format;
	/**
	 * SYSLOG: APP-NAME (1 to 48 printable characters); NULL: the program's
	 * name.  JOURNALD: SYSLOG_IDENTIFIER, the same rule.
	 */
	const char *syslog_app;
	/**
	 * SYSLOG, JOURNALD: the longest wait between two attempts to connect while the
	 * collector is down, 10 to 600,000 ms (the wait doubles from 10 ms up to
	 * it).  Default 2,000.  write_timeout_ms bounds each send (and each
	 * connect attempt): the consumer never waits longer for the collector.
	 */
	int reconnect_max_ms;
	/** CALLBACK: the write function, required. */
	sr_sink_write_fn write;
	/** CALLBACK: the flush function, optional (NULL). */
	sr_sink_flush_fn flush;
	/** CALLBACK: the close function, optional (NULL). */
	sr_sink_close_fn close;
	/** CALLBACK: passed to write, flush and close. */
	void *ctx;
} sr_sink_config;

/**
 * @brief A file sink's configuration, with the defaults.
 * @param path The file's path (copied at open); checked at open.
 * @return The configuration.
 */
SR_API sr_sink_config sr_sink_file(const char *path);
/**
 * @brief A file sink that rotates at max_file_bytes and keeps keep_files old files.
 * @param path The file's path (copied at open).
 * @param max_file_bytes The size that triggers a rotation (checked at open: 4,096 B to 2^50).
 * @param keep_files Rotated files kept, 0 to 1,000 (checked at open).
 * @return The configuration.
 */
SR_API sr_sink_config sr_sink_rotating(const char *path, uint64_t max_file_bytes, int keep_files);
/**
 * @brief A descriptor sink's configuration, with the defaults (the descriptor is not closed).
 * @param fd An open descriptor (checked at open).
 * @return The configuration.
 */
SR_API sr_sink_config sr_sink_fd(int fd);
/**
 * @brief A sink that formats, then discards (measures the consumer).
 * @return The configuration.
 */
SR_API sr_sink_config sr_sink_null(void);
/**
 * @brief A CTF trace sink: each record it takes becomes a binary event in the trace in dir.
 *
 * Its arguments are copied, not formatted; babeltrace2 reads the trace, and
 * sr_log_decode_trace (the command `seqring-decode`) prints the lines the
 * text sinks would have written.  The sink has no layout.  buffer_bytes
 * bounds a packet (one per stream per batch, or when full); max_file_bytes
 * and keep_files rotate each stream file as a file sink's.  A trace a live
 * logger writes is refused at open; one a previous run left is kept as
 * DIR.1 (docs/trace.md).
 * @param dir The trace's directory (copied at open).
 * @return The configuration.
 */
SR_API sr_sink_config sr_sink_ctf(const char *dir);
/**
 * @brief A callback sink's configuration, with the defaults.
 * @param write Called with each line (required: checked at open).
 * @param ctx Passed to write (and to flush and close when set).
 * @return The configuration.
 */
SR_API sr_sink_config sr_sink_callback(sr_sink_write_fn write, void *ctx);
/**
 * @brief A syslog sink's configuration.
 *
 * Transport and address as in sr_sink_config; facility
 * user, RFC 5424, the program's name as APP-NAME.  Opening it never fails
 * because the collector is down: it connects in the background of the
 * consumer (each attempt bounded by write_timeout_ms, retried with a
 * doubling wait capped at reconnect_max_ms), counts what it could not
 * deliver, and reports that count in the log once it delivers again.
 * @param transport How to reach the collector.
 * @param address "HOST:PORT" for UDP and TCP, a path for the unix ones, NULL for LOCAL.
 * @return The configuration.
 */
SR_API sr_sink_config sr_sink_syslog(sr_syslog_transport transport, const char *address);
/**
 * @brief A journald sink's configuration: systemd-journald's native protocol.
 *
 * Each record becomes one datagram of journal fields (MESSAGE, PRIORITY,
 * CODE_FILE, CODE_LINE, CODE_FUNC, SYSLOG_IDENTIFIER, TID,
 * SEQRING_CATEGORY, SEQRING_TIMESTAMP; docs/sinks.md); one too big for a
 * datagram goes in a sealed memfd.  MESSAGE is the message alone, newlines
 * kept, while layout is SR_LOG_LAYOUT_LOGGER (the default); another layout
 * puts its line there.  syslog_app sets SYSLOG_IDENTIFIER (NULL: the
 * program's name).  As a syslog sink, opening never fails because journald
 * is absent: the sink reconnects in the background of the consumer and
 * counts what it could not deliver.
 * @param socket_path journald's socket (copied at open); NULL: /run/systemd/journal/socket.
 * @return The configuration.
 */
SR_API sr_sink_config sr_sink_journald(const char *socket_path);

/**
 * @brief The default wait strategy of the logger's consumer.
 *
 * Spin 10 us, yield 100 us, then sleep (waking
 * every 100 ms so that drop reports and other periodic work run while idle).
 * Publishers signal only a sleeping consumer (liteblock family): a log call
 * while the consumer is awake makes no system call.  See sr_wait.h.
 */
#define SR_LOG_DEFAULT_WAIT "phased:spin=10us,yield=100us,fallback=timeout,timeout=100ms"

/**
 * @brief What sr_log_open takes (fill it with sr_log_config_default first).
 *
 * docs/configuration.md is the reference for every field and its SEQRING_LOG* variable.
 */
typedef struct sr_log_config {
	/** SR_LOG_MODE_RING (default), SR_LOG_MODE_QUEUE or SR_LOG_MODE_SYNC. */
	sr_log_mode mode;
	/**
	 * Mode ring: SR_LOG_PRODUCER_PER_THREAD (default) or
	 * SR_LOG_PRODUCER_SHARED; ignored by the other modes.
	 */
	sr_log_producer producer;
	/**
	 * The shared ring's slots (producer shared): a power of two from 2 to
	 * 2^30.  Default 262,144 (as Log4j 2's ring).  In queue mode, the
	 * queue's capacity in messages.  Not used with producer per_thread.
	 */
	int64_t ring_slots;
	/**
	 * Bytes per slot: a power of two from 64 to 65,536.  Default 128: the
	 * 56-byte record header plus a typical message's arguments (three
	 * numbers and a 40-byte string) fit one slot; longer records take
	 * consecutive slots.  The shared ring's memory is ring_slots x
	 * slot_size (32 MiB by default), allocated and touched at open.
	 */
	size_t slot_size;
	/**
	 * Producer per_thread: slots of each thread's ring, a power of two from
	 * 2 to 2^30.  Default 16,384: 2 MiB per logging thread with 128-byte
	 * slots, allocated and touched on the thread's first call.  ring_slots
	 * is not used then.  thread_ring_slots x slot_size is the ring's size
	 * in bytes (at most 64 GiB); the ring keeps its records in slots of one
	 * cache line (64 bytes), whatever slot_size.
	 */
	int64_t thread_ring_slots;
	/**
	 * The consumer's wait strategy, by name (sr_wait_config_parse syntax, e.g.
	 * "timeout:timeout=10ms", "liteblock", "busyspin").  NULL means
	 * SR_LOG_DEFAULT_WAIT.  Ring mode only.
	 */
	const char *wait_strategy;
	/** What a caller does when the ring is full.  Default SR_LOG_FULL_BLOCK. */
	sr_log_full_policy full_policy;
	/** SR_LOG_FULL_DISCARD drops messages at or below this level (trace..fatal).  Default info. */
	sr_log_level discard_level;
	/** Callers waiting for room queue on one mutex (ring mode, block).  Default true. */
	bool synchronize_enqueue_when_full;
	/**
	 * Mode sync only.  true (default): each line is written (write(2)) before
	 * the call returns.  false: lines collect in each sink's 64 KiB buffer
	 * and are written when it fills, by sr_log_flush and at close, as Log4j
	 * 2's synchronous appenders do with immediateFlush="false": several
	 * times faster, but the lines still in the buffer are lost if the
	 * process dies.  The ring and queue modes write once per batch whatever
	 * this says.
	 */
	bool immediate_flush;
	/** The root level (trace..off): categories without their own level inherit it.  Default info. */
	sr_log_level level;
	/**
	 * Levels in SEQRING_LOG's form (NULL: none), applied after `level`:
	 * "warn,net.http=info,db=error" (see sr_log_set_level_spec).  Invalid:
	 * an error at open.
	 */
	const char *level_spec;
	/**
	 * Largest record, header and arguments included: 1,024 B to 1 MiB, and
	 * at most ring_slots x slot_size in ring mode (thread_ring_slots x
	 * slot_size with producer per_thread).  Longer string arguments are
	 * cut, each cut one ending with "[truncated]".  Default 4,096.
	 */
	size_t max_message_bytes;
	/**
	 * Largest formatted line: 256 B to 16 MiB.  A longer line (a huge width,
	 * say) is cut and ends with " [truncated]".  Default 65,536.
	 */
	size_t max_line_bytes;
	/** SR_LOG_LAYOUT_TEXT (default), _MESSAGE, _PATTERN (with pattern) or _JSON. */
	sr_log_layout layout;
	/**
	 * The pattern of SR_LOG_LAYOUT_PATTERN (required then, and only then:
	 * a pattern with another layout is an error).  NULL by default.
	 */
	const char *pattern;
	/**
	 * Escape the control characters of each message in the text, message
	 * and pattern layouts (default true): LF as `\n`, CR as `\r`, TAB as `\t`,
	 * other C0 controls and DEL as `\xHH`, C1 controls (U+0080 to U+009F) as
	 * `\u00HH`, so that a message made of another party's input cannot forge
	 * a line of its own or drive a terminal.  false writes them raw (a
	 * multi-line message then spans lines).  JSON escapes in any case.
	 */
	bool escape_control_characters;
	/** Where timestamps come from.  Default SR_LOG_CLOCK_AUTO. */
	sr_log_clock clock;
	/**
	 * The sinks (copied at open), 0 to SR_LOG_MAX_SINKS.  None (NULL, 0)
	 * means one FD sink on stderr.
	 */
	const sr_sink_config *sinks;
	/** how many sinks, 0 to SR_LOG_MAX_SINKS */
	int sink_count;
	/**
	 * Shut the logger down when the process exits normally: returning from
	 * main, exit and quick_exit (atexit and at_quick_exit handlers), so that
	 * every accepted message is written without an sr_log_close.  Default
	 * true.  See exit_timeout_ms, and docs/configuration.md (Exit, fork and
	 * signals) for _exit, fatal signals and SIGKILL.
	 */
	bool close_at_exit;
	/**
	 * How long the exit handler waits, at most, for the consumer to write
	 * what was accepted (a sink that blocks, other threads that keep
	 * logging until their level check sees the shutdown): 0 to 3,600,000 ms;
	 * past it the process exits and what is still queued is lost (one line
	 * on stderr says so).  Default 5,000 (Log4j 2's shutdown timeout).
	 */
	int exit_timeout_ms;
	/** In a forked child: SR_LOG_FORK_RESTART (default) or SR_LOG_FORK_DROP. */
	sr_log_fork_policy fork_policy;
	/** The consumer thread's name, 1 to 15 characters.  NULL: "seqring-log". */
	const char *thread_name;
	/**
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
	/** the lowest level kept in the backtrace (default trace) */
	sr_log_level backtrace_level;
	/** the level that writes the backtrace (default error) */
	sr_log_level backtrace_trigger;
	/** Install the crash handler at open (sr_log_install_crash_handler).  Default false. */
	bool crash_handler;
	/** Print sr_log_describe to stderr once open (as SEQRING_LOG_DESCRIBE=1).  Default false. */
	bool describe;
	/**
	 * A signal that makes the logger reopen its file sinks (sr_log_reopen),
	 * for logrotate's postrotate "kill -HUP": 0 (the default: none),
	 * SIGHUP, SIGUSR1 or SIGUSR2.  The handler is installed at open and
	 * removed at shutdown; a handler the program had is called after ours.
	 */
	int reopen_signal;
	/** Colouring the level on stdout and stderr sinks.  Default SR_LOG_COLOR_AUTO. */
	sr_log_color color;
	/**
	 * Ignore every SEQRING_LOG* environment variable (tests, programs that
	 * must not be reconfigured from outside).  Default false: the
	 * environment overrides the code, setting by setting (see below).
	 */
	bool ignore_environment;
	/**
	 * A directory for the logger's rings (SEQRING_LOG_RING_DIR), so that
	 * records outlive the process: NULL (the default) keeps them in
	 * anonymous memory.  With a directory, each ring (a thread's, or the
	 * shared one) is a file in it, mapped shared, its space reserved when
	 * it is made; the call writes the same record into the same slots.
	 * What a record needs to be read without its process (call sites,
	 * categories, the clock's calibration) goes into the directory before
	 * the first record that needs it.  sr_log_open, given a directory that
	 * holds the rings of a process that died (SIGKILL, the OOM killer),
	 * writes that process's records which had not reached the sinks before
	 * any record of its own, then one line at warn level, then removes
	 * them (sr_log_recover does the same without opening a logger on the
	 * directory).  A directory a live logger holds is refused (SR_ESTATE);
	 * it is made if missing (one level).  Ring mode only (an error at open
	 * otherwise).  docs/reliability.md says what survives what.
	 */
	const char *ring_dir;
	/**
	 * Rules on call sites applied at open (sr_log_sites_set's syntax, e.g.
	 * "file net/tcp_*.c +debug; func parse_* -info"), or NULL for none.
	 * They are the process's, as every site is: they stay after close.
	 * A malformed rule fails the open with its message.
	 */
	const char *sites;
} sr_log_config;

/**
 * @struct sr_log_config
 * @par The environment
 * sr_log_open reads SEQRING_LOG (levels) and the
 * SEQRING_LOG_* variables listed in docs/configuration.md, each of which
 * overrides its config field (the operator has the last word over the
 * code) unless config.ignore_environment is set:
 *
 * @code{.unparsed}
 *   SEQRING_LOG                  levels: "warn,net.http=info" merged over
 *                                level and level_spec (the environment's
 *                                default level and directives win; the
 *                                code's directives for other prefixes stay)
 *   SEQRING_LOG_MODE             ring | queue | sync
 *   SEQRING_LOG_PRODUCER         shared | per_thread (mode ring)
 *   SEQRING_LOG_RING_SLOTS       power of two, 2 to 2^30 (suffix k, m: x1024)
 *   SEQRING_LOG_SLOT_SIZE        power of two, 64 to 65536 (suffix k)
 *   SEQRING_LOG_THREAD_RING_SLOTS power of two, 2 to 2^30 (per_thread rings)
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
 *   SEQRING_LOG_ESCAPE           0 | 1 (escape_control_characters)
 *   SEQRING_LOG_RING_DIR         a directory for the rings' files (ring_dir)
 *   SEQRING_LOG_SITES            rules on call sites (sites; sr_log_sites.h)
 *   SEQRING_LOG_SINK             sinks replacing config.sinks, ';'-separated:
 *                                stderr | stdout | null | fd:N | file:PATH | syslog |
 *                                syslog:udp://HOST:PORT | syslog:tcp://HOST:PORT |
 *                                syslog:unix:PATH, each with options ",level=L",
 *                                ",layout=json", ",pattern=P", ",buffer=64k", ",timeout=100"
 *                                (ms), for files ",max_size=10m", ",keep=5", ",daily=1",
 *                                ",mode=0640", for syslog ",facility=local0",
 *                                ",format=5424|3164", ",app=NAME", ",reconnect=2000" (ms)
 *   SEQRING_LOG_THREAD_NAME      the consumer thread's name
 *   SEQRING_LOG_CLOSE_AT_EXIT    0 | 1
 *   SEQRING_LOG_EXIT_TIMEOUT_MS  0 to 3600000 (exit_timeout_ms)
 *   SEQRING_LOG_FORK             restart | drop (fork_policy)
 *   SEQRING_LOG_BACKTRACE        0 to 65536 (backtrace_size)
 *   SEQRING_LOG_BACKTRACE_LEVEL  trace .. fatal
 *   SEQRING_LOG_BACKTRACE_TRIGGER trace .. fatal
 *   SEQRING_LOG_CRASH_HANDLER    0 | 1
 *   SEQRING_LOG_DESCRIBE         0 | 1: print sr_log_describe to stderr at open
 *   SEQRING_LOG_REOPEN_SIGNAL    SIGHUP | SIGUSR1 | SIGUSR2 | none (reopen_signal)
 *   SEQRING_LOG_COLOR            auto | always | never (color; NO_COLOR is respected by auto)
 * @endcode
 *
 * An invalid value, or a SEQRING_LOG_* name that is none of these (a typo
 * would otherwise be silently ignored), makes sr_log_open fail with
 * SR_EINVAL and a message naming the variable, its value and what is valid:
 * "SEQRING_LOG_RING_SLOTS '1000' is invalid: expected a power of two from 2
 * to 1073741824".  Another name that begins SEQRING_LOG in any case
 * (SEQRING_LOGLEVEL, seqring_log_mode) may be another program's: it gets a
 * warning on stderr, with a suggestion when close to a setting, and is
 * ignored.  An empty variable counts as unset.  The environment is
 * read once, by sr_log_open (getenv: do not setenv in another thread at the
 * same time); sr_log_set_level_spec reloads levels from a string later.
 */

/**
 * @brief Fills *config with the documented defaults.
 * @param config The config to fill; not NULL.
 */
SR_API void sr_log_config_default(sr_log_config *config);

/**
 * @brief The name of a mode, for messages and configuration.
 * @param mode An sr_log_mode value; any int is accepted.
 * @return "ring", "queue", "sync"; "unknown" for another value.
 */
SR_API const char *sr_log_mode_name(int mode);
/**
 * @brief The name of a full-queue policy, for messages and configuration.
 * @param policy An sr_log_full_policy value; any int is accepted.
 * @return "block", "drop", "discard", "sync"; "unknown" for another value.
 */
SR_API const char *sr_log_full_policy_name(int policy);
/**
 * @brief Parses a mode name (case-insensitive).
 * @param name "ring", "queue" or "sync".
 * @param mode Receives the mode on success.
 * @param err Receives the message on failure; may be NULL.
 * @retval SR_OK *mode is set.
 * @retval SR_EINVAL Any other name; the message lists the valid ones.
 */
SR_API int sr_log_mode_parse(const char *name, sr_log_mode *mode, sr_error *err);
/**
 * @brief Parses a full-queue policy name (case-insensitive).
 * @param name "block", "drop", "discard" or "sync".
 * @param policy Receives the policy on success.
 * @param err Receives the message on failure; may be NULL.
 * @retval SR_OK *policy is set.
 * @retval SR_EINVAL Any other name; the message lists the valid ones.
 */
SR_API int sr_log_full_policy_parse(const char *name, sr_log_full_policy *policy, sr_error *err);


#ifdef __cplusplus
}
#endif

#endif /* SR_LOG_CONFIG_H */

/* SPDX-License-Identifier: Apache-2.0 */
/**
 * @file sr_log.h
 * @ingroup logger
 * @brief seqring's asynchronous logger, on the Disruptor ring: the
 * lifecycle, the logging macros and the statistics.
 *
 * It includes the rest of
 * the logging API: sr_log_level.h (levels), sr_log_config.h (what sr_log_open
 * takes), sr_log_category.h (categories and level rules), sr_log_site.h
 * (the call-site type the macros make) and sr_log_limit.h (rate limits per
 * call site: SR_LOG_ONCE, SR_LOG_EVERY_N, SR_LOG_LIMIT).
 *
 * The caller of a log macro pays for a level check and, when the level is
 * enabled, for copying its arguments in binary into ring slots; a consumer
 * thread formats and writes.  In detail:
 *
 * @code
 *   SR_INFO(net, "GET %s -> %d in %.1f ms", path, status, ms);
 * @endcode
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
 * @code
 *   sr_log_config c;
 *   sr_log_config_default(&c);                       // a ring per thread, 16,384 x 128 B; info
 *   sr_sink_config sinks[] = { sr_sink_file("/var/log/app.log"), sr_sink_fd(2) };
 *   sinks[1].level = SR_LOG_WARN;                    // stderr gets warnings and worse
 *   c.sinks = sinks; c.sink_count = 2;
 *   sr_error err;
 *   sr_log *log = sr_log_open(&c, &err);             // NULL and err.message on bad config
 *   if (log == NULL) { fprintf(stderr, "%s\n", err.message); return 1; }
 *   sr_category *net = sr_log_category(log, "net.http");
 *   SR_INFO(net, "GET %s -> %d", path, status);
 *   sr_log_set_level(log, "net", SR_LOG_DEBUG, &err);  // at run time, any thread
 *   sr_log_close(&log);                              // writes everything, frees, log = NULL
 * @endcode
 *
 * Operations: levels, sinks, layouts and the rest can be set from the
 * environment (SEQRING_LOG="warn,net.http=info" and the SEQRING_LOG_*
 * variables, validated at open; see docs/configuration.md);
 * sr_log_describe prints what is in force and
 * where each value came from.
 *
 * Threads: every function may be called from any thread.  A log call may
 * race sr_log_close of its logger, or come after it through a category
 * handle: it is memory-safe, either finished before the logger is freed or
 * refused and counted (sr_log_close says how); only the sr_log pointer
 * itself must not be used once closed.
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
#include "sr_export.h"
#include "sr_log_args.h"
#include "sr_log_category.h"
#include "sr_log_config.h"
#include "sr_log_fast.h"
#include "sr_log_level.h"
#include "sr_log_limit.h"
#include "sr_log_recovery.h"
#include "sr_log_trace.h"
#include "sr_log_site.h"
#include "sr_log_sites.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------- */
/* Lifecycle                                                                                */


/**
 * @brief Opens a logger: validates every field of *config, opens its sinks, creates
 * its ring and starts its consumer thread.
 *
 * A failed open leaks nothing.  A
 * program that logs anyway through sr_log_category(NULL, ...) gets one line
 * on stderr, at its first call, saying why nothing is logged (this error).
 * @param config The configuration (sr_log_config_default first), copied; NULL: all
 *        defaults.  The environment (SEQRING_LOG and SEQRING_LOG_*) may override it
 *        (docs/configuration.md).
 * @param err Receives the code and message on failure; may be NULL.
 * @return The logger, to close with sr_log_close; NULL on error, with err naming the
 *         bad field, its value and the valid range, e.g. "config.ring_slots 1000 is
 *         invalid: expected a power of two from 2 to 1073741824".  Codes: SR_EINVAL
 *         (a bad value), SR_ESYS (a file that cannot be opened, a thread that cannot
 *         start: the message has errno's text), SR_ENOMEM.
 */
SR_API sr_log *sr_log_open(const sr_log_config *config, sr_error *err);

/**
 * @brief Writes everything accepted, stops the consumer, closes the sinks, frees the
 * logger and sets *logp to NULL.
 *
 * Writes every message accepted before the call, flushes, stops the consumer,
 * closes the sinks (files, descriptors with close_fd, callbacks' close), frees
 * the logger and sets *logp to NULL.  A message dropped before the close is
 * reported in the log first.  NULL or *logp == NULL: nothing happens, so
 * calling it twice is harmless.  Returns SR_OK, or SR_ESTATE (doing nothing)
 * when called from the logger's own consumer thread (a sink callback).
 *
 * A log call racing the close, or made later through one of the logger's
 * category handles, is memory-safe: handles outlive the logger (a few dozen
 * bytes each, kept for the process's life) at a closed level, so a later
 * call ends at its level check, like a disabled level; a call already past
 * its level check when the close began is either finished before the
 * logger is freed (the close waits for it) or refused and counted, in
 * sr_log_stats's dropped while the logger exists, else in
 * sr_log_dropped_after_close().  Only the handles stay usable: the logger
 * pointer itself is gone.
 * @param logp Where the logger pointer is; NULL or *logp == NULL does nothing.
 * @retval SR_OK Closed (or nothing to close); *logp is NULL.
 * @retval SR_ESTATE Called from the logger's own consumer thread (a sink callback):
 *         nothing was done.
 */
SR_API int sr_log_close(sr_log **logp);

/**
 * @brief Log calls refused because their logger was being closed or was closed.
 * @return The process's count, over every logger.
 */
SR_API uint64_t sr_log_dropped_after_close(void);

/**
 * @brief Stops the logger without freeing it.
 *
 * Every category is set to off (later
 * log calls cost a level check and do nothing), everything accepted is
 * written, the consumer stops, sinks are flushed and closed.  Idempotent.
 * close_at_exit (on by default) runs this for the logger from atexit and
 * at_quick_exit handlers, waiting at most exit_timeout_ms for the consumer:
 * other threads may still log while exit runs, so the memory stays valid
 * until the process ends (or until sr_log_close, which is still allowed and
 * frees it).  _exit, a fatal signal and SIGKILL: docs/configuration.md
 * (Exit, fork and signals).  A call racing the shutdown either completes
 * before the sinks close (the shutdown waits for calls in progress) or is
 * refused and counted as dropped, never accepted and lost.
 *
 * fork: the logger works in the child, in every mode (pthread_atfork).  The
 * child's consumer starts after everything the parent had taken (the parent
 * writes that, once); the child writes its own calls to the same sinks, with
 * counters from zero.  docs/configuration.md (Exit, fork and signals).
 * @param log The logger.
 * @retval SR_OK Stopped (also when it was stopped already).
 * @retval SR_EINVAL log is NULL.
 * @retval SR_ESTATE Called from the logger's consumer thread.
 */
SR_API int sr_log_shutdown(sr_log *log);

/**
 * @brief Waits until every message accepted before the call has been written to the sinks.
 *
 * Written: write(2) returned; no fsync.  Any pending drop report is written too.
 * @param log The logger.
 * @retval SR_OK Written.
 * @retval SR_ESTATE Called from a consumer thread, or after shutdown.
 * @retval SR_EINVAL log is NULL.
 */
SR_API int sr_log_flush(sr_log *log);

/**
 * @brief The optional process-wide default logger.
 * @return The logger set by sr_log_set_default; NULL until set, and after it is closed.
 */
SR_API sr_log *sr_log_default(void);
/**
 * @brief Sets the process-wide default logger (cleared when it is closed).
 * @param log The logger; NULL clears the default.
 */
SR_API void sr_log_set_default(sr_log *log);


/**
 * @brief Prints the logger's effective configuration to out.
 *
 * Every setting with
 * its value and where it came from (default, code, environment with the
 * variable, or run time), each level directive and its source, and every
 * known category (created, or named by a directive) with its configured and
 * effective level and the directive that decided it.  Run
 * SEQRING_LOG_DESCRIBE=1 to see it at open.
 * @param log The logger.
 * @param out Where to print.
 * @retval SR_OK Printed.
 * @retval SR_EINVAL log or out is NULL.
 */
SR_API int sr_log_describe(sr_log *log, FILE *out);

/**
 * @brief Writes what the backtrace holds now, marked, to every sink, and empties it.
 *
 * As a trigger message would (see config.backtrace_size).  Waits like
 * sr_log_flush.
 * @param log The logger.
 * @retval SR_OK Written.
 * @retval SR_EINVAL log is NULL.
 * @retval SR_ESTATE The logger has no backtrace or is shut down, or the call comes
 *         from a consumer thread.
 */
SR_API int sr_log_dump_backtrace(sr_log *log);

/* ---------------------------------------------------------------------------------------- */
/* Crash flush                                                                              */

/**
 * @brief Opt in: installs handlers for SIGSEGV, SIGBUS, SIGILL, SIGFPE and SIGABRT
 * that write every message already published to the sinks before the process dies.
 *
 * The handlers write every message already published to the logger's sinks before
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
 * digits may differ, \%m as "errno N"; dates are computed without the C
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
 * them meanwhile (then they are left alone).
 * @param log The logger, in ring mode.
 * @param err Receives the message on failure; may be NULL.
 * @retval SR_OK Installed.
 * @retval SR_EINVAL log is NULL or not in ring mode.
 * @retval SR_EFULL 8 loggers have installed it already.
 * @retval SR_ESYS sigaction failed.
 */
SR_API int sr_log_install_crash_handler(sr_log *log, sr_error *err);

/**
 * @brief Removes the logger from the crash handler (see sr_log_install_crash_handler).
 * @param log The logger.
 * @retval SR_OK Removed, or it was not installed.
 * @retval SR_EINVAL log is NULL.
 */
SR_API int sr_log_remove_crash_handler(sr_log *log);

/**
 * @brief Reopens every file sink by its path, for logrotate's "create" mode.
 *
 * After
 * the file was renamed or deleted, the sinks would go on writing to the old
 * inode): on the consumer thread, between two batches, after the lines
 * buffered so far were written to the old file, so that no line is lost or
 * written twice.  Waits, as sr_log_flush does, until it happened (from a
 * sink callback it is only requested).  A file that cannot be opened keeps
 * the old descriptor; the error is counted in the sink's errors and
 * reported on stderr once.  config.reopen_signal does the same from a
 * signal.
 * @param log The logger.
 * @retval SR_OK Reopened (from a sink callback: requested).
 * @retval SR_EINVAL log is NULL.
 * @retval SR_ESTATE After shutdown.
 */
SR_API int sr_log_reopen(sr_log *log);

/* ---------------------------------------------------------------------------------------- */
/* Logging                                                                                  */

/**
 * @brief Logs a message at level lvl through category cat.
 *
 * SR_TRACE(cat, fmt, ...) ... SR_FATAL(cat, fmt, ...) and SR_LOG(cat, level,
 * fmt, ...) with a constant level.  fmt must be a string literal: it is
 * checked by the compiler against the arguments (format attribute) and stored
 * in the call site.  When the level is disabled (or a run-time rule
 * switched the site off, sr_log_sites.h), nothing after the level check
 * runs: arguments are not evaluated.  Logging at SR_LOG_FATAL does not
 * abort.  The macro has no value: a message that cannot be taken (a full queue
 * under a drop policy, a closed logger) is counted (sr_log_stats' dropped,
 * sr_log_dropped_after_close), and a refused format is written as an error line
 * and counted (format_errors); the caller is not told.
 * @param cat An sr_category handle (sr_log_category); evaluated once.
 * @param lvl The level, a constant SR_LOG_TRACE .. SR_LOG_FATAL.
 * @param ... The format, a string literal, then at most SR_SITE_MAX_ARGS (32)
 *            arguments: a call with more fails to compile, with the message
 *            "a log call takes at most 32 arguments after the format".
 */
#define SR_LOG(cat, lvl, ...) do { \
	SR_LOG__CHECK_NARGS(__VA_ARGS__); \
	sr_category *const sr_log__cat = (cat); \
	static sr_site sr_log__site = SR_SITE__INIT(SR_LOG__FIRST(__VA_ARGS__), __FILE__, \
	    __func__, __LINE__, (lvl)); \
	SR_SITE__CATALOGUE(sr_log__site) \
	/* \
	 * The site's gate is its level unless a run-time rule changed it (sr_log_sites.h). \
	 * No branch hint (SR_LOG_ENABLED has one): the call in line, a closed gate jumps over it. \
	 */ \
	if (sr_site__gate_passes(&sr_log__site.gate, &sr_log__cat->level)) { \
		SR_LOG__EMIT(sr_log__cat, sr_log__site, lvl, __VA_ARGS__) \
	} \
} while (0)

/*
 * SR_LOG's body once the gate let the call through (the rate-limited macros'
 * too): the arguments typed, checked against the format, copied into the
 * record through site_.
 */
#define SR_LOG__EMIT(cat_, site_, lvl, ...) \
	SR_LOG__CHECK_KV(__VA_ARGS__); \
	static const unsigned char sr_log__kinds[] = { 0 SR_LOG__EACH(SR_LOG__KIND_ITEM, __VA_ARGS__) }; \
	const int32_t sr_log__lens[] = { -1 SR_LOG__EACH(SR_LOG__LEN_ITEM, __VA_ARGS__) }; \
	/* SR_KV fields are not the format's: the check sees the format's arguments only. */ \
	(void)sizeof(SR_LOG__FORMAT_CHECK(__VA_ARGS__)); \
	static const char *const sr_log__keys[] = { SR_LOG__EACH(SR_LOG__KEY_ITEM, __VA_ARGS__) NULL }; \
	static const unsigned char sr_log__kv_flags[] = { SR_LOG__EACH(SR_LOG__FLAG_ITEM, __VA_ARGS__) 0 }; \
	sr_log_arg sr_log__args[SR_LOG__NARGS(__VA_ARGS__) + 1]; \
	SR_LOG__EACH(SR_LOG__ARG_STORE, __VA_ARGS__) \
	if (SR_LOG__NARGS(__VA_ARGS__) == 0) /* nothing to pass, but defined */ \
		sr_log__args[0] = sr_log__arg_int(0); \
	sr_log__emit_fast_kv((cat_), &(site_), sr_log__args, sr_log__kinds + 1, \
	    sr_log__lens + 1, SR_LOG__NARGS(__VA_ARGS__), (lvl), sr_log__keys, sr_log__kv_flags, \
	    SR_LOG__NKV(__VA_ARGS__));

/**
 * @def SR_LOG
 * @par From a signal handler
 * A log call never takes a lock its thread may
 * already hold and never waits, in every mode.  A call that interrupted
 * another log call on the same thread (the handler ran in the middle of
 * one) is a nested call:
 *   ring, shared ring   claimed and published lock-free like any call (a
 *                       full ring drops it instead of waiting; with the
 *                       block wait strategy, whose publish locks, it is
 *                       dropped);
 *   ring, per_thread    dropped (the thread's ring has one producer, the
 *                       call it interrupted);
 *   queue, sync         dropped (the queue's or the sinks' mutex, or
 *                       malloc's, may be held by the interrupted call).
 * Dropped calls are counted in sr_log_stats's dropped, so accepted +
 * dropped is every call made.  A handler that interrupts code outside the
 * logger logs as that thread would: in queue mode that allocates the line
 * (malloc, not async-signal-safe: a handler that interrupted malloc would
 * deadlock there), in sync mode only a line over 4 KiB does, in ring mode
 * nothing does.  So use ring mode where handlers log, and call
 * sr_log_thread_prepare on each thread first, so that the first call from a
 * handler registers and makes nothing.
 */
/**
 * @brief Logs at SR_LOG_TRACE (as SR_LOG).
 * @param cat An sr_category handle.
 * @param ... The format, a string literal, then its arguments.
 */
#define SR_TRACE(cat, ...) SR_LOG(cat, SR_LOG_TRACE, __VA_ARGS__)
/**
 * @brief Logs at SR_LOG_DEBUG (as SR_LOG).
 * @param cat An sr_category handle.
 * @param ... The format, a string literal, then its arguments.
 */
#define SR_DEBUG(cat, ...) SR_LOG(cat, SR_LOG_DEBUG, __VA_ARGS__)
/**
 * @brief Logs at SR_LOG_INFO (as SR_LOG).
 * @param cat An sr_category handle.
 * @param ... The format, a string literal, then its arguments.
 */
#define SR_INFO(cat, ...)  SR_LOG(cat, SR_LOG_INFO, __VA_ARGS__)
/**
 * @brief Logs at SR_LOG_WARN (as SR_LOG).
 * @param cat An sr_category handle.
 * @param ... The format, a string literal, then its arguments.
 */
#define SR_WARN(cat, ...)  SR_LOG(cat, SR_LOG_WARN, __VA_ARGS__)
/**
 * @brief Logs at SR_LOG_ERROR (as SR_LOG).
 * @param cat An sr_category handle.
 * @param ... The format, a string literal, then its arguments.
 */
#define SR_ERROR(cat, ...) SR_LOG(cat, SR_LOG_ERROR, __VA_ARGS__)
/**
 * @brief Logs at SR_LOG_FATAL (as SR_LOG).
 * @param cat An sr_category handle.
 * @param ... The format, a string literal, then its arguments.
 */
#define SR_FATAL(cat, ...) SR_LOG(cat, SR_LOG_FATAL, __VA_ARGS__)

/**
 * @brief Whether a message at lvl would be logged through cat.
 *
 * One relaxed load
 * and one compare, predicted false (a disabled level falls through).  Use it
 * to guard expensive preparation of arguments.
 * @param cat An sr_category handle; not NULL.
 * @param lvl The level.
 * @return Non-zero when the level is enabled.
 */
#define SR_LOG_ENABLED(cat, lvl) \
	__builtin_expect((int32_t)(lvl) >= sr_atomic_load_relaxed_i32(&(cat)->level), 0)

/* The format argument of a macro call (first of __VA_ARGS__; C11 needs one). */
#define SR_LOG__FIRST(...) SR_LOG__FIRST_(__VA_ARGS__, 0)
#define SR_LOG__FIRST_(fmt, ...) fmt

/**
 * @brief Logs through a site from a printf-style call.
 *
 * (The macros call
 * sr_log__emit_args instead, see sr_log_args.h).  format must be
 * site->format (passed so that the compiler checks the arguments).  Never
 * call it with a site whose format differs from the one its first call saw.
 * A message that cannot be taken is counted in sr_log_stats, as for SR_LOG.
 * @param cat The category; a site below its level logs nothing.
 * @param site A static call site (sr_site) whose format and level are set.
 * @param format site->format.
 * @param ... The arguments.
 */
SR_API void sr_log_emit(sr_category *cat, sr_site *site, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

/**
 * @brief Makes what the calling thread logs through ready now.
 *
 * With producer
 * per_thread, its ring (allocated and touched), which its first log call
 * would otherwise make, as Quill's and fmtlog's preallocate do.  Call it at
 * a thread's start so that no log call on a latency-critical path pays for
 * it.
 * @param log The logger.
 * @retval SR_OK Ready (also for modes with nothing to make).
 * @retval SR_ENOMEM The thread's ring could not be allocated.
 * @retval SR_ESTATE After shutdown.
 * @retval SR_EINVAL log is NULL.
 */
SR_API int sr_log_thread_prepare(sr_log *log);

/**
 * @brief Names the calling thread in the text layout.
 * @param name The name (1 to 15 bytes are kept); NULL
 *        or "" goes back to the default: the OS thread name when it differs from
 *        the process name, else the thread id.
 */
SR_API void sr_log_thread_name(const char *name);

/* ---------------------------------------------------------------------------------------- */
/* Statistics                                                                               */

/** @brief One sink's counters (sr_log_counters::sinks). */
typedef struct sr_log_sink_counters {
	uint64_t messages;    /**< lines given to the sink (after its level filter) */
	uint64_t bytes;       /**< bytes written successfully */
	uint64_t writes;      /**< write(2) calls (or callback calls) that succeeded */
	uint64_t errors;      /**< failed writes / callback errors, skipped writes of a broken sink */
	uint64_t lost_bytes;  /**< bytes that could not be written */
	/**
	 * Lines that did not (entirely) reach the sink: failed writes, and for
	 * SYSLOG the messages that could not be delivered (reported in the log).
	 */
	uint64_t lost_messages;
	uint64_t rotations;   /**< FILE with rotation: files rotated */
	uint64_t reopens;     /**< FILE: reopened by sr_log_reopen or the reopen signal */
} sr_log_sink_counters;

/** @brief The logger's counters (sr_log_stats). */
typedef struct sr_log_counters {
	/**
	 * Messages taken in: into the ring (counted when the consumer reads them,
	 * so the figure lags by what is still in the ring: sr_log_flush first
	 * for exact figures), the queue, or written by their caller (sync mode,
	 * policy sync).  Format errors count: their error line is written.
	 */
	uint64_t accepted;
	/**
	 * Accepted messages whose line reached every sink it qualifies for
	 * (write(2) took it whole, a callback returned 0).  Exact after
	 * sr_log_flush or shutdown, as accepted.
	 */
	uint64_t written;
	/**
	 * Accepted messages whose line failed to reach a sink (a failed or
	 * skipped write, a callback error): not in written, so that after a
	 * shutdown accepted = written + write_failed.  With several sinks a
	 * batch counts the most lines any one sink lost.
	 */
	uint64_t write_failed;
	/** Of the written, those written by their caller (sync mode, policy sync). */
	uint64_t written_by_caller;
	/**
	 * Messages dropped, total and by level: a full queue under policy drop
	 * or discard, a consumer thread or sink write that found the queue full,
	 * and (sync mode) a message logged from inside a sink write, which would
	 * otherwise deadlock on the one mutex.  Reported in the log as
	 * "N message(s) dropped because the queue was full (N at info, ...)".
	 */
	uint64_t dropped;
	/** dropped, by the message's level */
	uint64_t dropped_by_level[SR_LOG_LEVEL_COUNT];
	/** Calls whose format was refused (\%n, unsupported conversion, ...). */
	uint64_t format_errors;
	/** Records whose strings were cut to max_message_bytes. */
	uint64_t truncated_records;
	/** Lines cut to max_line_bytes. */
	uint64_t truncated_lines;
	/** Sum of the sinks' errors. */
	uint64_t sink_errors;
	/**
	 * Backtrace: messages written as backtrace lines, and kept messages
	 * that were pushed out of a full backtrace before any trigger.
	 */
	uint64_t backtrace_written;
	/** kept messages pushed out of a full backtrace before any trigger */
	uint64_t backtrace_discarded;
	/**
	 * Highest number of ring slots (queue: messages) seen waiting by the
	 * consumer; with producer per_thread, in any one thread's ring.
	 */
	int64_t max_occupancy;
	/**
	 * Ring slots (queue capacity; producer per_thread: each thread's ring)
	 * and batches the consumer handled.
	 */
	int64_t capacity;
	/** batches the consumer handled */
	uint64_t batches;
	/** how many entries of sinks are filled */
	int sink_count;
	/** each sink's counters, in the config's order */
	sr_log_sink_counters sinks[SR_LOG_MAX_SINKS];
	/**
	 * Calls suppressed by a rate limit (SR_LOG_ONCE, SR_LOG_EVERY_N,
	 * SR_LOG_LIMIT and their level shorthands), counted on the caller as
	 * they are suppressed, in the logger the limited site's last written
	 * line went through (a limited site's first call is always written).
	 * A site whose line goes through another logger than its previous line
	 * counts there from then on, the calls that line reports included.
	 * Exact whenever no thread is logging through a limited site
	 * (sr_log_flush is not needed).  Not in accepted or dropped.
	 */
	uint64_t suppressed;
} sr_log_counters;

/**
 * @brief Fills *stats with the logger's counters.
 *
 * Each is read once, relaxed: a
 * snapshot, not an atomic one.  Exact after
 * sr_log_flush, sr_log_shutdown, or when no thread logs.
 * @param log The logger.
 * @param stats Receives the counters.
 * @retval SR_OK Filled.
 * @retval SR_EINVAL log or stats is NULL.
 */
SR_API int sr_log_stats(sr_log *log, sr_log_counters *stats);


#ifdef __cplusplus
}
#endif

#endif /* SR_LOG_H */

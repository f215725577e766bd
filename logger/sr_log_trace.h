/* SPDX-License-Identifier: Apache-2.0 */
/**
 * @file sr_log_trace.h
 * @ingroup logger
 * @brief The binary trace a `ctf:` sink writes (a CTF 1.8 trace that
 * babeltrace2 reads), read back as the lines the text sinks would have
 * written: sr_log_decode_trace, and the installed command `seqring-decode`.
 *
 * Part of the logging API (sr_log.h includes it).  docs/trace.md describes
 * the trace byte by byte.
 */
#ifndef SR_LOG_TRACE_H
#define SR_LOG_TRACE_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "sr_error.h"
#include "sr_export.h"
#include "sr_log_category.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief How sr_log_decode_trace reads (zero: the whole trace once, as it is now). */
typedef struct sr_trace_decode_options {
	/**
	 * Keep reading as packets are appended (a live trace) until *stop
	 * becomes non-zero; each read's events are merged by time among
	 * themselves.
	 */
	bool follow;
	/** follow: the wait between two reads, 1 to 60,000 ms (0: 100). */
	int poll_ms;
	/** follow: ends the reading when non-zero (set from a signal handler, say); NULL: never. */
	volatile sig_atomic_t *stop;
} sr_trace_decode_options;

/** @brief What sr_log_decode_trace read and wrote. */
typedef struct sr_trace_decode_report {
	/** events written as lines */
	uint64_t events;
	/** stream files read */
	uint32_t streams;
	/** packets read */
	uint64_t packets;
	/** the records the writing logger dropped (queue full), as its packets count them */
	uint64_t discarded;
} sr_trace_decode_report;

/**
 * @brief Writes the events of a trace that a `ctf:` sink wrote into a logger's sinks.
 *
 * Reads DIR/metadata and every stream file, checking each packet before it
 * believes it, and writes each event, merged across streams by time (ties
 * in stream order), as a line of the logger's sinks' layouts: the line the
 * text sink of the writing logger would have written for the same record,
 * with its original time, level, category, thread and location.  The
 * lines are those of `into`'s layouts and options (max_line_bytes,
 * escape_control_characters): the writer's own when those match.
 *
 * Each stream file's packets are checked in order: their sequence numbers
 * count up by one from the file's first packet (a rotated file starts where
 * the one before it stopped).  A directory without a metadata file is
 * refused, when following too: the ctf: sink writes it at open.
 * @param into An open logger: its sinks receive the lines (any mode; mode sync writes them in order).
 * @param dir The trace's directory.
 * @param options How to read; NULL: the whole trace once.
 * @param report Receives what was read; may be NULL.
 * @param err Receives the code and message on failure; may be NULL.
 * @retval SR_OK Done.
 * @retval SR_EINVAL into or dir is NULL or empty, or an option is out of range.
 * @retval SR_EFORMAT The directory is not a seqring trace, or a file in it is
 *         corrupt or truncated (the message names the file, the offset and what
 *         was expected).  What came before the bad packet was written.
 * @retval SR_ESYS The directory or a file could not be read (the message has the path and the cause).
 * @retval SR_ENOMEM Out of memory.
 */
SR_API int sr_log_decode_trace(sr_log *into, const char *dir, const sr_trace_decode_options *options,
    sr_trace_decode_report *report, sr_error *err);

#ifdef __cplusplus
}
#endif

#endif /* SR_LOG_TRACE_H */

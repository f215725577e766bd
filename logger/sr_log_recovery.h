/* SPDX-License-Identifier: Apache-2.0 */
/**
 * @file sr_log_recovery.h
 * @ingroup logger
 * @brief Records that outlive their process: what a logger opened with a
 * ring directory (sr_log_config.ring_dir) left when it was killed, written
 * out by the next logger opened on that directory or by sr_log_recover.
 *
 * Part of the logging API (sr_log.h includes it).  docs/reliability.md
 * says what survives what.
 */
#ifndef SR_LOG_RECOVERY_H
#define SR_LOG_RECOVERY_H

#include <stdbool.h>
#include <stdint.h>

#include "sr_error.h"
#include "sr_export.h"
#include "sr_log_category.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief What a recovery found and wrote. */
typedef struct sr_log_recovery {
	/** the dead process whose records were recovered (0: the directory held none; with several, the last one's) */
	int64_t pid;
	/** loggers whose files were found (a process may have had several open, each with a directory of its own) */
	uint32_t loggers;
	/** ring files read */
	uint32_t rings;
	/** records published but not yet written, now written (each with its original time, level, category, thread and location) */
	uint64_t records;
	/** claimed slots found unpublished: a record being written when the process died, skipped, never delivered half-written */
	uint64_t unpublished;
	/** records whose call site or category the dead process had not recorded (or that did not decode): reported, not written */
	uint64_t unresolved;
	/**
	 * The dead process's file sink held part of a write the death cut:
	 * it was cut back to the line before, and those lines written again whole.
	 */
	bool cut_write;
	/**
	 * The dead process had no file sink to check a write against: the
	 * lines of its last write may appear twice.
	 */
	bool unchecked;
	/**
	 * The file that received the dead process's last write was replaced
	 * (renamed by a rotation) or removed since: that write's lines were
	 * taken as written, not written again; if the kill cut that write, its
	 * last lines are lost.
	 */
	bool file_replaced;
} sr_log_recovery;

/**
 * @brief Writes what a dead process left in a ring directory into a logger's sinks.
 *
 * For a program that is not started again (the installed command
 * `seqring-recover DIR` calls it).  Takes the directory's lock, so that it
 * never reads the rings of a live logger; reads every file a dead logger
 * left (checking each before it believes it), writes the records that were
 * published but not written, merged across threads by time, each with its
 * original timestamp, level, category, thread and location, then one line
 * at warn level saying what was recovered; then removes those files and
 * lets the lock go.  A logger opened with config.ring_dir does the same at
 * open, before any record of its own.
 * @param into An open logger: its sinks receive the records (any mode).
 * @param dir The ring directory.
 * @param report Receives what was found; may be NULL.
 * @param err Receives the code and message on failure; may be NULL.
 * @retval SR_OK Done (also when there was nothing to recover).
 * @retval SR_EINVAL into or dir is NULL or empty.
 * @retval SR_ESTATE A live logger holds the directory.
 * @retval SR_EFORMAT A file in it is not a ring or meta file of this version, or is corrupt (the message names
 *         the file, the offset and what was expected); nothing was removed.
 * @retval SR_ESYS The directory or a file could not be read or removed (the message has the path and the cause).
 * @retval SR_ENOMEM Out of memory.
 */
SR_API int sr_log_recover(sr_log *into, const char *dir, sr_log_recovery *report, sr_error *err);

#ifdef __cplusplus
}
#endif

#endif /* SR_LOG_RECOVERY_H */

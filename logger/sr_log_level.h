/* SPDX-License-Identifier: Apache-2.0 */
/**
 * @file sr_log_level.h
 * @ingroup logger
 * @brief The logger's severity levels, their names and their parser.
 * Part of the logging API (sr_log.h includes it).
 */
#ifndef SR_LOG_LEVEL_H
#define SR_LOG_LEVEL_H

#include "sr_error.h"
#include "sr_export.h"

#ifdef __cplusplus
extern "C" {
#endif


/**
 * @brief Severity, lowest first.
 *
 * A category (or sink) at level L lets through every
 * message at L or above; SR_LOG_OFF lets nothing through (no message has it).
 */
typedef enum sr_log_level {
	/** the finest detail */
	SR_LOG_TRACE = 0,
	/** diagnostics for developers */
	SR_LOG_DEBUG = 1,
	/** normal operation */
	SR_LOG_INFO = 2,
	/** something unexpected, handled */
	SR_LOG_WARN = 3,
	/** an operation failed */
	SR_LOG_ERROR = 4,
	/** the program cannot go on */
	SR_LOG_FATAL = 5,
	/** lets nothing through (no message has it) */
	SR_LOG_OFF = 6
} sr_log_level;

/** @brief The number of levels, SR_LOG_OFF included. */
#define SR_LOG_LEVEL_COUNT 7
/** @brief For sr_log_set_level: remove the prefix's own level, so it inherits again. */
#define SR_LOG_INHERIT (-1)

/**
 * @brief The name of a level.
 * @param level An sr_log_level value; any int is accepted.
 * @return "trace", "debug", "info", "warn", "error", "fatal", "off"; "unknown" otherwise
 *         (a static string, never NULL).
 */
SR_API const char *sr_log_level_name(int level);

/**
 * @brief Parses a level name (case-insensitive; "warning" is accepted for warn).
 * @param name The name; NUL-terminated.
 * @param level Receives the level on success.
 * @param err Receives the message on failure; may be NULL.
 * @retval SR_OK *level is set.
 * @retval SR_EINVAL Anything else (a NULL name too), with a message listing the valid names.
 */
SR_API int sr_log_level_parse(const char *name, sr_log_level *level, sr_error *err);


#ifdef __cplusplus
}
#endif

#endif /* SR_LOG_LEVEL_H */

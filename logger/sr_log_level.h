/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_level.h: the logger's severity levels, their names and their parser.
 * Part of the logging API (sr_log.h includes it).
 */
#ifndef SR_LOG_LEVEL_H
#define SR_LOG_LEVEL_H

#include "sr_error.h"
#include "sr_export.h"

#ifdef __cplusplus
extern "C" {
#endif


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
SR_API const char *sr_log_level_name(int level);

/*
 * Parses a level name (case-insensitive; "warning" is accepted for warn).
 * SR_EINVAL, with a message listing the valid names, for anything else.
 */
SR_API int sr_log_level_parse(const char *name, sr_log_level *level, sr_error *err);


#ifdef __cplusplus
}
#endif

#endif /* SR_LOG_LEVEL_H */

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_names_internal.h: the names of the logger's levels and enums, and
 * their parsers, written once (internal; sr_log_names.c).  The public ones
 * (sr_log_level_name, sr_log_mode_name, ...) are declared in sr_log_level.h
 * and sr_log_config.h; these are what the rest of the logger shares.
 */
#ifndef SR_LOG_NAMES_INTERNAL_H
#define SR_LOG_NAMES_INTERNAL_H

#include <stddef.h>

#include "sr_log.h"

/* "TRACE" ... "OFF" ("?" for another value), as the text layouts print them. */
const char *sr_log__level_upper(int level);
/* "trace" ... "off" ("off" for another value), as JSON and the syslog sink print them. */
const char *sr_log__level_lower(int level);
/*
 * Parses the n bytes at s as a level name (case-insensitive; "warning" is
 * warn) into *level: true, or false when they name none.
 */
bool sr_log__level_of(const char *s, size_t n, int *level);
/* "shared", "per_thread"; "unknown" for another value. */
const char *sr_log__producer_name(int producer);
/* Parses those names (case-insensitive) into *producer: 0, or -1 when it is none. */
int sr_log__producer_parse(const char *name, sr_log_producer *producer);
/* "restart", "drop"; parse: 0, or -1 for an unknown name. */
const char *sr_log__fork_policy_name(int policy);
int sr_log__fork_policy_parse(const char *name, sr_log_fork_policy *policy);
/* "auto", "always", "never" (sr_log_color); parse: 0, or -1 for an unknown name. */
int sr_log__color_parse(const char *name, int *color);
/* The index of name in names (case-insensitive) into *out: 0, or -1 when it is none. */
int sr_log__parse_name(const char *name, const char *const *names, int count, int *out);

#endif /* SR_LOG_NAMES_INTERNAL_H */

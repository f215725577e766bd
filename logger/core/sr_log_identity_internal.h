/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_identity_internal.h: how the program names itself to a collector
 * (syslog's APP-NAME, the journal's SYSLOG_IDENTIFIER) and the option both
 * collectors' sinks share, reconnect= (internal).
 */
#ifndef SR_LOG_IDENTITY_INTERNAL_H
#define SR_LOG_IDENTITY_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

/* The program's short name, printable characters only ("-" when none is left), into out. */
void sr_log__program_name(char *out, size_t size);
/* An app= name: 1 to 48 printable characters without spaces. */
bool sr_log__app_name_valid(const char *app);
/*
 * The options both collectors' sinks take: app=NAME (into *app, checked as
 * above) and reconnect=MS (the longest wait between reconnection attempts,
 * 10 to 600000 ms, into *reconnect_ms).  1: taken; 0: another key; -1: a bad
 * value, the reason in why (naming app_field, the collector's name for
 * the app, when not NULL).
 */
int sr_log__collector_option(const char *key, const char *val, const char **app, const char *app_field,
    int *reconnect_ms, char *why, size_t why_size);

#endif /* SR_LOG_IDENTITY_INTERNAL_H */

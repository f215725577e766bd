/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_identity.c: the program's name for a collector, an app= name's
 * check, and the app= and reconnect= options, shared by the syslog and
 * journald sinks.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "sr_log_identity_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void
sr_log__program_name(char *out, size_t size)
{
	const char *name = program_invocation_short_name;
	size_t n = 0;
	for (const char *p = name; *p != '\0' && n + 1 < size; p++)
		if (*p > ' ' && *p <= '~')
			out[n++] = *p;
	if (n == 0)
		out[n++] = '-';
	out[n] = '\0';
}

bool
sr_log__app_name_valid(const char *app)
{
	size_t n = strlen(app);
	bool ok = n >= 1 && n <= 48;
	for (size_t i = 0; ok && i < n; i++)
		ok = app[i] > ' ' && app[i] <= '~';
	return ok;
}

int
sr_log__collector_option(const char *key, const char *val, const char **app, const char *app_field,
    int *reconnect_ms, char *why, size_t why_size)
{
	if (strcmp(key, "app") == 0) {
		if (!sr_log__app_name_valid(val)) {
			snprintf(why, why_size, "app '%.60s' is invalid: expected 1 to 48 printable characters "
			    "without spaces%s%s%s", val, app_field != NULL ? " (" : "", app_field != NULL ? app_field : "",
			    app_field != NULL ? ")" : "");
			return -1;
		}
		*app = val;
		return 1;
	}
	if (strcmp(key, "reconnect") == 0) {
		char *end;
		long v = strtol(val, &end, 10);
		if (val[0] == '\0' || *end != '\0' || v < 10 || v > 600000) {
			snprintf(why, why_size, "reconnect '%.32s' is invalid: expected 10 to 600000 ms", val);
			return -1;
		}
		*reconnect_ms = (int)v;
		return 1;
	}
	return 0;
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_journald_parse.c: a journald sink's settings: its SEQRING_LOG_SINK
 * form ("journald", "journald:SOCKET_PATH", with the options app= and
 * reconnect= beside the common ones) and the checks of its fields at open.
 * Each message names the value, where it came from and what is valid.
 */
#include "sr_log_identity_internal.h"
#include "sr_log_journald_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A unix socket's path: 1 to 107 bytes (sun_path holds 108 with its NUL). */
static bool
path_valid(const char *p)
{
	return p[0] != '\0' && strlen(p) < 108;
}

int
sr_log__journald_parse_head(char *head, char **path, char *why, size_t why_size)
{
	if (strcasecmp(head, "journald") == 0) {
		*path = NULL;
		return 0;
	}
	if (strncasecmp(head, "journald:", 9) != 0) {
		snprintf(why, why_size, "'%.60s' is not a journald sink: expected journald or journald:SOCKET_PATH", head);
		return -1;
	}
	if (!path_valid(head + 9)) {
		snprintf(why, why_size, "'%.60s': expected journald:SOCKET_PATH, a path of 1 to 107 bytes (or "
		    "journald alone: " SR_JOURNALD_DEFAULT_SOCKET ")", head);
		return -1;
	}
	*path = head + 9;
	return 0;
}

int
sr_log__journald_parse_option(const char *key, const char *val, sr_sink_config *c, char *why,
    size_t why_size)
{
	/* app= is SYSLOG_IDENTIFIER here, the syslog sink's APP-NAME there: one rule. */
	return sr_log__collector_option(key, val, &c->syslog_app, "SYSLOG_IDENTIFIER", &c->reconnect_max_ms, why,
	    why_size);
}

int
sr_log__journald_validate(const sr_sink_config *c, int i, sr_error *err)
{
	const char *a = c->syslog_address;
	if (a != NULL && !path_valid(a))
		return sr_error_set(err, SR_EINVAL,
		    "config.sinks[%d].syslog_address '%.64s' is invalid for a journald sink: expected the path "
		    "of journald's socket, 1 to 107 bytes, or NULL (" SR_JOURNALD_DEFAULT_SOCKET ")", i, a);
	if (c->syslog_app != NULL && !sr_log__app_name_valid(c->syslog_app))
		return sr_error_set(err, SR_EINVAL,
		    "config.sinks[%d].syslog_app '%.64s' is invalid: expected 1 to 48 printable characters "
		    "without spaces (journald's SYSLOG_IDENTIFIER)", i, c->syslog_app);
	if (c->reconnect_max_ms < 10 || c->reconnect_max_ms > 600000)
		return sr_error_set(err, SR_EINVAL,
		    "config.sinks[%d].reconnect_max_ms %d is out of range: expected 10 to 600000",
		    i, c->reconnect_max_ms);
	return SR_OK;
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_sink_validate.c: checking a sink's layout and a syslog sink's
 * fields at open (the rest of sr_sink_config is checked in sr_log_config_validate.c).
 * Each message names the field, its value and what is valid.
 */
#include "sr_log_identity_internal.h"
#include "sr_log_sink_validate_internal.h"
#include "sr_log_syslog_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
sr_log__validate_sink_layout(const sr_sink_config *s, int i, sr_error *err)
{
	if (s->layout != SR_LOG_LAYOUT_LOGGER && (unsigned)s->layout > SR_LOG_LAYOUT_JSON)
		return sr_error_set(err, SR_EINVAL,
		    "config.sinks[%d].layout %d is invalid: expected SR_LOG_LAYOUT_LOGGER (-1), "
		    "SR_LOG_LAYOUT_TEXT (0), SR_LOG_LAYOUT_MESSAGE (1), SR_LOG_LAYOUT_PATTERN (2) or "
		    "SR_LOG_LAYOUT_JSON (3)", i, (int)s->layout);
	if (s->layout == SR_LOG_LAYOUT_PATTERN && s->pattern == NULL)
		return sr_error_set(err, SR_EINVAL,
		    "config.sinks[%d].pattern is NULL: layout SR_LOG_LAYOUT_PATTERN needs a pattern", i);
	if (s->layout != SR_LOG_LAYOUT_PATTERN && s->pattern != NULL)
		return sr_error_set(err, SR_EINVAL,
		    "config.sinks[%d].pattern '%.64s' is set but config.sinks[%d].layout is %s: a pattern "
		    "needs SR_LOG_LAYOUT_PATTERN", i, s->pattern, i,
		    s->layout == SR_LOG_LAYOUT_LOGGER ? "the logger's" : sr_log_layout_name(s->layout));
	if (s->layout == SR_LOG_LAYOUT_PATTERN) {
		sr_error perr;
		if (sr_log_pattern_check(s->pattern, &perr) != SR_OK)
			return sr_error_set(err, SR_EINVAL, "config.sinks[%d].pattern: %s", i, perr.message);
	}
	return SR_OK;
}

int
sr_log__validate_syslog_sink(const sr_sink_config *s, int i, sr_error *err)
{
	if ((unsigned)s->syslog_transport > SR_SYSLOG_UNIX_DGRAM)
		return sr_error_set(err, SR_EINVAL,
		    "config.sinks[%d].syslog_transport %d is invalid: expected SR_SYSLOG_LOCAL (0), "
		    "SR_SYSLOG_UDP (1), SR_SYSLOG_TCP (2), SR_SYSLOG_UNIX (3), SR_SYSLOG_UNIX_STREAM (4) "
		    "or SR_SYSLOG_UNIX_DGRAM (5)", i, (int)s->syslog_transport);
	const char *a = s->syslog_address;
	bool inet = s->syslog_transport == SR_SYSLOG_UDP || s->syslog_transport == SR_SYSLOG_TCP;
	if (inet) {
		const char *colon = a != NULL ? strrchr(a, ':') : NULL;
		long port = colon != NULL ? strtol(colon + 1, NULL, 10) : 0;
		if (a == NULL || colon == NULL || colon == a || port < 1 || port > 65535 ||
		    strspn(colon + 1, "0123456789") != strlen(colon + 1) || strlen(a) > 255)
			return sr_error_set(err, SR_EINVAL,
			    "config.sinks[%d].syslog_address '%.64s' is invalid: expected HOST:PORT (a port of "
			    "1 to 65535; [V6]:PORT)", i, a != NULL ? a : "(null)");
	} else if (s->syslog_transport != SR_SYSLOG_LOCAL || a != NULL) {
		if (a == NULL || a[0] == '\0' || strlen(a) >= 108)
			return sr_error_set(err, SR_EINVAL,
			    "config.sinks[%d].syslog_address '%.64s' is invalid: expected the path of a unix "
			    "socket, 1 to 107 bytes", i, a != NULL ? a : "(null)");
	}
	if (s->syslog_facility < 0 || s->syslog_facility > 23)
		return sr_error_set(err, SR_EINVAL,
		    "config.sinks[%d].syslog_facility %d is out of range: expected 0 to 23 (user is 1, "
		    "local0 16)", i, s->syslog_facility);
	if (s->syslog_format != SR_SYSLOG_5424 && s->syslog_format != SR_SYSLOG_3164)
		return sr_error_set(err, SR_EINVAL,
		    "config.sinks[%d].syslog_format %d is invalid: expected SR_SYSLOG_5424 or SR_SYSLOG_3164",
		    i, (int)s->syslog_format);
	if (s->syslog_app != NULL && !sr_log__app_name_valid(s->syslog_app))
		return sr_error_set(err, SR_EINVAL,
		    "config.sinks[%d].syslog_app '%.64s' is invalid: expected 1 to 48 printable "
		    "characters without spaces", i, s->syslog_app);
	if (s->reconnect_max_ms < 10 || s->reconnect_max_ms > 600000)
		return sr_error_set(err, SR_EINVAL,
		    "config.sinks[%d].reconnect_max_ms %d is out of range: expected 10 to 600000",
		    i, s->reconnect_max_ms);
	return SR_OK;
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_syslog_parse.c: the syslog sink's names and its SEQRING_LOG_SINK
 * form: "syslog" (the local socket), "syslog:udp://HOST:PORT",
 * "syslog:tcp://HOST:PORT", "syslog:unix:PATH" (also unix-stream:,
 * unix-dgram:), with the options facility=, format=, app=, reconnect=.
 */
#include "sr_log_identity_internal.h"
#include "sr_log_syslog_internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* RFC 5424, 6.2.1; indexed by facility number (12 to 15 have no common name here). */
static const char *const facility_names[24] = {
	"kern", "user", "mail", "daemon", "auth", "syslog", "lpr", "news", "uucp", "cron",
	"authpriv", "ftp", "ntp", "security", "console", "solaris-cron",
	"local0", "local1", "local2", "local3", "local4", "local5", "local6", "local7",
};

int
sr_log__syslog_facility_parse(const char *name)
{
	if (name == NULL || name[0] == '\0')
		return -1;
	for (int i = 0; i < 24; i++)
		if (strcasecmp(name, facility_names[i]) == 0)
			return i;
	char *end;
	long v = strtol(name, &end, 10);
	if (*end == '\0' && isdigit((unsigned char)name[0]) && v >= 0 && v <= 23)
		return (int)v;
	return -1;
}

const char *
sr_log__syslog_facility_name(int facility)
{
	return facility >= 0 && facility < 24 ? facility_names[facility] : "?";
}

/* HOST:PORT with a port of 1 to 65535; a v6 host in brackets. */
static bool
valid_host_port(const char *a)
{
	const char *colon = strrchr(a, ':');
	if (colon == NULL || colon == a || colon[1] == '\0')
		return false;
	if (a[0] == '[' && colon[-1] != ']')
		return false;
	char *end;
	long port = strtol(colon + 1, &end, 10);
	return *end == '\0' && port >= 1 && port <= 65535;
}

int
sr_log__syslog_parse_head(char *head, sr_sink_config *c, char *why, size_t why_size)
{
	static const struct { const char *prefix; sr_syslog_transport t; } forms[] = {
		{ "udp://", SR_SYSLOG_UDP }, { "tcp://", SR_SYSLOG_TCP },
		{ "unix-stream:", SR_SYSLOG_UNIX_STREAM }, { "unix-dgram:", SR_SYSLOG_UNIX_DGRAM },
		{ "unix:", SR_SYSLOG_UNIX },
	};
	if (strcasecmp(head, "syslog") == 0) {
		*c = sr_sink_syslog(SR_SYSLOG_LOCAL, NULL);
		return 0;
	}
	char *rest = head + 7; /* after "syslog:" */
	for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
		size_t n = strlen(forms[i].prefix);
		if (strncasecmp(rest, forms[i].prefix, n) != 0)
			continue;
		char *addr = rest + n;
		bool inet = forms[i].t == SR_SYSLOG_UDP || forms[i].t == SR_SYSLOG_TCP;
		if (inet && !valid_host_port(addr)) {
			snprintf(why, why_size, "'%.60s': expected %sHOST:PORT with a port of 1 to 65535", head,
			    forms[i].prefix);
			return -1;
		}
		if (!inet && (addr[0] == '\0' || strlen(addr) >= 108)) {
			snprintf(why, why_size, "'%.60s': expected %sPATH, a path of 1 to 107 bytes", head,
			    forms[i].prefix);
			return -1;
		}
		*c = sr_sink_syslog(forms[i].t, addr);
		return 0;
	}
	snprintf(why, why_size, "'%.60s' is not a syslog sink: expected syslog, syslog:udp://HOST:PORT, "
	    "syslog:tcp://HOST:PORT or syslog:unix:PATH", head);
	return -1;
}

int
sr_log__syslog_parse_option(const char *key, const char *val, sr_sink_config *c, char *why,
    size_t why_size)
{
	if (strcmp(key, "facility") == 0) {
		int f = sr_log__syslog_facility_parse(val);
		if (f < 0) {
			snprintf(why, why_size, "facility '%.32s' is invalid: " SR_SYSLOG_FACILITIES_EXPECTED, val);
			return -1;
		}
		c->syslog_facility = f;
		return 1;
	}
	if (strcmp(key, "format") == 0) {
		if (strcmp(val, "5424") == 0) {
			c->syslog_format = SR_SYSLOG_5424;
		} else if (strcmp(val, "3164") == 0) {
			c->syslog_format = SR_SYSLOG_3164;
		} else {
			snprintf(why, why_size, "format '%.32s' is invalid: expected 5424 or 3164", val);
			return -1;
		}
		return 1;
	}
	return sr_log__collector_option(key, val, &c->syslog_app, NULL, &c->reconnect_max_ms, why, why_size);
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_env_sink.c: SEQRING_LOG_SINK's grammar: sinks separated by ';',
 * each a head (stderr, stdout, null, fd:N, file:PATH, ctf:DIR, syslog[:TARGET],
 * journald[:SOCKET_PATH])
 * then ',key=value' options, parsed into sr_sink_config with a message
 * that names the sink's index and what is valid.  The reference is
 * docs/configuration.md.
 */
#include "sr_log_env_parse_internal.h"
#include "sr_log_env_sink_internal.h"
#include "sr_log_journald_internal.h"
#include "sr_log_level_spec_internal.h"
#include "sr_log_syslog_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int
sink_bad(sr_error *err, const char *all, int index, const char *why)
{
	return sr_error_set(err, SR_EINVAL, "SEQRING_LOG_SINK '%.64s%s' is invalid: sink %d: %s", all,
	    strlen(all) > 64 ? "..." : "", index, why);
}

/* The sink a head names (stderr, fd:N, file:PATH, syslog:...) into *s; false with why said. */
static bool
parse_head(char *head, sr_sink_config *s, char *why, size_t why_size)
{
	if (strcasecmp(head, "stderr") == 0) {
		*s = sr_sink_fd(2);
	} else if (strcasecmp(head, "stdout") == 0) {
		*s = sr_sink_fd(1);
	} else if (strcasecmp(head, "null") == 0) {
		*s = sr_sink_null();
	} else if (strncasecmp(head, "fd:", 3) == 0) {
		uint64_t fd;
		if (!sr_log__env_parse_size(head + 3, &fd) || fd > 65535) {
			snprintf(why, why_size, "'%.40s': expected fd:N with N an open descriptor", head);
			return false;
		}
		*s = sr_sink_fd((int)fd);
	} else if (strncasecmp(head, "file:", 5) == 0) {
		if (head[5] == '\0') {
			snprintf(why, why_size, "'file:' needs a path (file:/var/log/app.log)");
			return false;
		}
		*s = sr_sink_file(head + 5);
	} else if (strncasecmp(head, "ctf:", 4) == 0) {
		if (head[4] == '\0') {
			snprintf(why, why_size, "'ctf:' needs a directory (ctf:/var/log/app.trace)");
			return false;
		}
		*s = sr_sink_ctf(head + 4);
	} else if (strcasecmp(head, "syslog") == 0 || strncasecmp(head, "syslog:", 7) == 0) {
		return sr_log__syslog_parse_head(head, s, why, why_size) == 0;
	} else if (strcasecmp(head, "journald") == 0 || strncasecmp(head, "journald:", 9) == 0) {
		char *path;
		if (sr_log__journald_parse_head(head, &path, why, why_size) != 0)
			return false;
		*s = sr_sink_journald(path);
	} else {
		snprintf(why, why_size, "'%.40s' is not a sink: expected stderr, stdout, null, fd:N, "
		    "file:PATH, ctf:DIR, syslog[:udp://HOST:PORT|:tcp://HOST:PORT|:unix:PATH] or "
		    "journald[:SOCKET_PATH]", head);
		return false;
	}
	return true;
}

/* One option, key=value, of the sink *s; false with why said. */
static bool
parse_option(char *opt, sr_sink_config *s, char *why, size_t why_size)
{
	bool is_file = s->kind == SR_SINK_FILE;
	bool is_ctf = s->kind == SR_SINK_CTF;
	bool is_journald = s->kind == SR_SINK_JOURNALD;
	while (sr_log__is_space(*opt))
		opt++;
	char *eq = strchr(opt, '=');
	if (eq == NULL) {
		snprintf(why, why_size, "option '%.40s' has no '=' (expected level=, layout=, pattern=, "
		    "buffer=, timeout=, max_size=, keep=, daily=, behind=, mode=, facility=, format=, app=, "
		    "reconnect=)", opt);
		return false;
	}
	*eq = '\0';
	const char *key = opt, *val = eq + 1;
	uint64_t num;
	bool flag;
	int syslog_rc, journald_rc;
	if (strcmp(key, "level") == 0) {
		int level;
		if (!sr_log__level_of(val, strlen(val), &level)) {
			snprintf(why, why_size, "level '%.32s' is invalid: " SR_LOG_LEVELS_EXPECTED, val);
			return false;
		}
		s->level = (sr_log_level)level;
	} else if (is_ctf && (strcmp(key, "layout") == 0 || strcmp(key, "pattern") == 0 ||
	    strcmp(key, "timeout") == 0 || strcmp(key, "daily") == 0)) {
		snprintf(why, why_size, "option '%.32s' is not one of a ctf sink's (level, buffer, max_size, keep, mode): "
		    "a trace holds events, not lines", key);
		return false;
	} else if (strcmp(key, "layout") == 0) {
		sr_log_layout layout;
		if (sr_log_layout_parse(val, &layout, NULL) != SR_OK) {
			snprintf(why, why_size, "layout '%.32s' is invalid: expected text, message, pattern or json", val);
			return false;
		}
		s->layout = layout;
	} else if (strcmp(key, "pattern") == 0) {
		/* A sink's pattern (without ',' or ';') implies its pattern layout. */
		s->layout = SR_LOG_LAYOUT_PATTERN;
		s->pattern = val;
	} else if (s->kind == SR_SINK_SYSLOG &&
	    (syslog_rc = sr_log__syslog_parse_option(key, val, s, why, why_size)) != 0) {
		return syslog_rc > 0;
	} else if (is_journald && (journald_rc = sr_log__journald_parse_option(key, val, s, why, why_size)) != 0) {
		return journald_rc > 0;
	} else if (strcmp(key, "buffer") == 0 && s->kind != SR_SINK_NULL && !is_journald) {
		if (!sr_log__env_parse_size(val, &num) || num < 256 || num > (64u << 20)) {
			snprintf(why, why_size, "buffer '%.32s' is invalid: expected 256 to 64m bytes", val);
			return false;
		}
		s->buffer_bytes = (size_t)num;
	} else if (strcmp(key, "timeout") == 0 && s->kind != SR_SINK_NULL) {
		if (!sr_log__env_parse_size(val, &num) || num > 60000) {
			snprintf(why, why_size, "timeout '%.32s' is invalid: expected 0 to 60000 ms", val);
			return false;
		}
		s->write_timeout_ms = (int)num;
	} else if (strcmp(key, "max_size") == 0 && (is_file || is_ctf)) {
		if (!sr_log__env_parse_size(val, &num) || (num != 0 && (num < 4096 || num > (UINT64_C(1) << 50)))) {
			snprintf(why, why_size, "max_size '%.32s' is invalid: expected 0 (no rotation) or "
			    "4096 to 2^50 bytes (suffix k, m, g)", val);
			return false;
		}
		s->max_file_bytes = num;
	} else if (strcmp(key, "keep") == 0 && (is_file || is_ctf)) {
		if (!sr_log__env_parse_size(val, &num) || num > 1000) {
			snprintf(why, why_size, "keep '%.32s' is invalid: expected 0 to 1000 files", val);
			return false;
		}
		s->keep_files = (int)num;
	} else if (strcmp(key, "behind") == 0 && is_file) {
		if (!sr_log__env_parse_bool(val, &flag)) {
			snprintf(why, why_size, "behind '%.32s' is invalid: expected 1 or 0", val);
			return false;
		}
		s->write_behind = flag;
	} else if (strcmp(key, "daily") == 0 && is_file) {
		if (!sr_log__env_parse_bool(val, &flag)) {
			snprintf(why, why_size, "daily '%.32s' is invalid: expected 1 or 0", val);
			return false;
		}
		s->rotate_daily = flag;
	} else if (strcmp(key, "mode") == 0 && (is_file || is_ctf)) {
		char *e;
		errno = 0;
		unsigned long m = strtoul(val, &e, 8);
		if (*val == '\0' || *e != '\0' || errno != 0 || m > 07777) {
			snprintf(why, why_size, "mode '%.32s' is invalid: expected octal 0 to 07777", val);
			return false;
		}
		s->file_mode = (unsigned)m;
	} else {
		snprintf(why, why_size, "option '%.32s' is not one of a%s sink's (%s)", key,
		    is_file ? " file" : is_ctf ? " ctf" : s->kind == SR_SINK_NULL ? " null" :
		    s->kind == SR_SINK_SYSLOG ? " syslog" : is_journald ? " journald" : "n fd",
		    is_file ? "level, layout, pattern, buffer, timeout, max_size, keep, daily, behind, mode" :
		    is_ctf ? "level, buffer, max_size, keep, mode" :
		    s->kind == SR_SINK_NULL ? "level, layout, pattern" :
		    s->kind == SR_SINK_SYSLOG ? "level, layout, pattern, facility, format, app, "
		    "reconnect, buffer, timeout" :
		    is_journald ? "level, layout, pattern, app, reconnect, timeout" :
		    "level, layout, pattern, buffer, timeout");
		return false;
	}
	return true;
}

int
sr_log__env_parse_sinks(const char *all, char *text, sr_sink_config sinks[SR_LOG_MAX_SINKS], int *count,
    sr_error *err)
{
	int n = 0;
	char why[256];
	char *save_sink = NULL;
	for (char *item = strtok_r(text, ";", &save_sink); item != NULL;
	     item = strtok_r(NULL, ";", &save_sink)) {
		while (sr_log__is_space(*item))
			item++;
		char *end = item + strlen(item);
		while (end > item && sr_log__is_space(end[-1]))
			*--end = '\0';
		if (*item == '\0')
			continue;
		if (n == SR_LOG_MAX_SINKS)
			return sink_bad(err, all, n, "more than 16 sinks");
		char *save_opt = NULL;
		char *head = strtok_r(item, ",", &save_opt);
		if (head == NULL)
			return sink_bad(err, all, n, "empty");
		if (!parse_head(head, &sinks[n], why, sizeof why))
			return sink_bad(err, all, n, why);
		for (char *opt = strtok_r(NULL, ",", &save_opt); opt != NULL; opt = strtok_r(NULL, ",", &save_opt))
			if (!parse_option(opt, &sinks[n], why, sizeof why))
				return sink_bad(err, all, n, why);
		n++;
	}
	if (n == 0)
		return sink_bad(err, all, 0, "no sink (expected stderr, stdout, null, fd:N, file:PATH, ctf:DIR, syslog or "
		    "journald)");
	*count = n;
	return SR_OK;
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_env.c: configuration from the outside: the SEQRING_LOG* variables,
 * each parsed and range-checked with a message that names the variable, its
 * value and what is valid, applied over the code's configuration
 * (sr_log__resolve).  The reference is docs/configuration.md.
 *
 * Why the environment wins over the code: the person who sets SEQRING_LOG
 * on a running deployment is the operator, who knows what this run needs;
 * the code's values are the developer's defaults.  A program that must not
 * be reconfigured from outside sets config.ignore_environment.  Nothing
 * here is silently ignored: a level set in a variable that never reaches the
 * logger is the failure this prevents, so a bad value or an unknown
 * SEQRING_LOG_* name fails sr_log_open.
 */
#include "sr_log_config_validate_internal.h"
#include "sr_log_console_internal.h"
#include "sr_log_env_internal.h"
#include "sr_log_reopen_internal.h"
#include "sr_log_syslog_internal.h"
#include "sr_wait.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* Indexed by enum sr_log_setting. */
static const char *const env_names[SR_SET_COUNT] = {
	[SR_SET_LEVEL] = "SEQRING_LOG",
	[SR_SET_MODE] = "SEQRING_LOG_MODE",
	[SR_SET_PRODUCER] = "SEQRING_LOG_PRODUCER",
	[SR_SET_RING_SLOTS] = "SEQRING_LOG_RING_SLOTS",
	[SR_SET_SLOT_SIZE] = "SEQRING_LOG_SLOT_SIZE",
	[SR_SET_THREAD_RING_SLOTS] = "SEQRING_LOG_THREAD_RING_SLOTS",
	[SR_SET_WAIT] = "SEQRING_LOG_WAIT",
	[SR_SET_FULL_POLICY] = "SEQRING_LOG_FULL_POLICY",
	[SR_SET_DISCARD_LEVEL] = "SEQRING_LOG_DISCARD_LEVEL",
	[SR_SET_SYNC_ENQUEUE] = "SEQRING_LOG_SYNC_ENQUEUE",
	[SR_SET_IMMEDIATE_FLUSH] = "SEQRING_LOG_IMMEDIATE_FLUSH",
	[SR_SET_MAX_MESSAGE] = "SEQRING_LOG_MAX_MESSAGE",
	[SR_SET_MAX_LINE] = "SEQRING_LOG_MAX_LINE",
	[SR_SET_LAYOUT] = "SEQRING_LOG_LAYOUT",
	[SR_SET_PATTERN] = "SEQRING_LOG_PATTERN",
	[SR_SET_CLOCK] = "SEQRING_LOG_CLOCK",
	[SR_SET_SINKS] = "SEQRING_LOG_SINK",
	[SR_SET_THREAD_NAME] = "SEQRING_LOG_THREAD_NAME",
	[SR_SET_CLOSE_AT_EXIT] = "SEQRING_LOG_CLOSE_AT_EXIT",
	[SR_SET_EXIT_TIMEOUT] = "SEQRING_LOG_EXIT_TIMEOUT_MS",
	[SR_SET_FORK] = "SEQRING_LOG_FORK",
	[SR_SET_BACKTRACE] = "SEQRING_LOG_BACKTRACE",
	[SR_SET_BACKTRACE_LEVEL] = "SEQRING_LOG_BACKTRACE_LEVEL",
	[SR_SET_BACKTRACE_TRIGGER] = "SEQRING_LOG_BACKTRACE_TRIGGER",
	[SR_SET_CRASH_HANDLER] = "SEQRING_LOG_CRASH_HANDLER",
	[SR_SET_DESCRIBE] = "SEQRING_LOG_DESCRIBE",
	[SR_SET_REOPEN_SIGNAL] = "SEQRING_LOG_REOPEN_SIGNAL",
	[SR_SET_COLOR] = "SEQRING_LOG_COLOR",
	[SR_SET_ESCAPE] = "SEQRING_LOG_ESCAPE",
};

/* The config field each setting is, for describe. */
static const char *const field_names[SR_SET_COUNT] = {
	[SR_SET_LEVEL] = "level + level_spec",
	[SR_SET_MODE] = "mode",
	[SR_SET_PRODUCER] = "producer",
	[SR_SET_RING_SLOTS] = "ring_slots",
	[SR_SET_SLOT_SIZE] = "slot_size",
	[SR_SET_THREAD_RING_SLOTS] = "thread_ring_slots",
	[SR_SET_WAIT] = "wait_strategy",
	[SR_SET_FULL_POLICY] = "full_policy",
	[SR_SET_DISCARD_LEVEL] = "discard_level",
	[SR_SET_SYNC_ENQUEUE] = "synchronize_enqueue_when_full",
	[SR_SET_IMMEDIATE_FLUSH] = "immediate_flush",
	[SR_SET_MAX_MESSAGE] = "max_message_bytes",
	[SR_SET_MAX_LINE] = "max_line_bytes",
	[SR_SET_LAYOUT] = "layout",
	[SR_SET_PATTERN] = "pattern",
	[SR_SET_CLOCK] = "clock",
	[SR_SET_SINKS] = "sinks",
	[SR_SET_THREAD_NAME] = "thread_name",
	[SR_SET_CLOSE_AT_EXIT] = "close_at_exit",
	[SR_SET_EXIT_TIMEOUT] = "exit_timeout_ms",
	[SR_SET_FORK] = "fork_policy",
	[SR_SET_BACKTRACE] = "backtrace_size",
	[SR_SET_BACKTRACE_LEVEL] = "backtrace_level",
	[SR_SET_BACKTRACE_TRIGGER] = "backtrace_trigger",
	[SR_SET_CRASH_HANDLER] = "crash_handler",
	[SR_SET_DESCRIBE] = "describe",
	[SR_SET_REOPEN_SIGNAL] = "reopen_signal",
	[SR_SET_COLOR] = "color",
	[SR_SET_ESCAPE] = "escape_control_characters",
};

const char *
sr_log__env_name(int setting)
{
	return setting >= 0 && setting < SR_SET_COUNT ? env_names[setting] : "?";
}

const char *
sr_log__field_name(int setting)
{
	return setting >= 0 && setting < SR_SET_COUNT ? field_names[setting] : "?";
}

/* ---------------------------------------------------------------------------------------- */
/* Values from the environment                                                              */

/* A byte count or number: digits with an optional k, m or g suffix (x1024). */
static bool
parse_size(const char *v, uint64_t *out)
{
	const char *p = v;
	while (sr_log__is_space(*p))
		p++;
	if (!isdigit((unsigned char)*p))
		return false;
	uint64_t x = 0;
	while (isdigit((unsigned char)*p)) {
		if (x > (UINT64_MAX - 9) / 10)
			return false;
		x = x * 10 + (uint64_t)(*p++ - '0');
	}
	uint64_t mult = 1;
	switch (*p) {
	case 'k': case 'K': mult = 1024; p++; break;
	case 'm': case 'M': mult = 1024 * 1024; p++; break;
	case 'g': case 'G': mult = 1024 * 1024 * 1024; p++; break;
	default: break;
	}
	if (mult > 1 && (*p == 'b' || *p == 'B'))
		p++;
	while (sr_log__is_space(*p))
		p++;
	if (*p != '\0' || (x != 0 && mult > UINT64_MAX / x))
		return false;
	*out = x * mult;
	return true;
}

static bool
parse_bool(const char *v, bool *out)
{
	static const char *const yes[] = { "1", "true", "yes", "on" };
	static const char *const no[] = { "0", "false", "no", "off" };
	for (int i = 0; i < 4; i++) {
		if (strcasecmp(v, yes[i]) == 0) {
			*out = true;
			return true;
		}
		if (strcasecmp(v, no[i]) == 0) {
			*out = false;
			return true;
		}
	}
	return false;
}

static bool
is_pow2(uint64_t v)
{
	return v != 0 && (v & (v - 1)) == 0;
}

/* "NAME 'value' is invalid: <why>" */
static int
env_bad(sr_error *err, int setting, const char *value, const char *why)
{
	return sr_error_set(err, SR_EINVAL, "%s '%.64s%s' is invalid: %s", env_names[setting], value,
	    strlen(value) > 64 ? "..." : "", why);
}

static int
env_level(sr_error *err, int setting, const char *v, int max, sr_log_level *out)
{
	int level;
	if (!sr_log__level_of(v, strlen(v), &level) || level > max)
		return env_bad(err, setting, v, max == SR_LOG_OFF ? SR_LOG_LEVELS_EXPECTED :
		    "expected trace, debug, info, warn, error or fatal");
	*out = (sr_log_level)level;
	return SR_OK;
}

static int
env_bool(sr_error *err, int setting, const char *v, bool *out)
{
	if (!parse_bool(v, out))
		return env_bad(err, setting, v, "expected 1, 0, true, false, yes, no, on or off");
	return SR_OK;
}

/* Edit distance, for "did you mean". */
static size_t
distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > 40 || lb > 40)
		return 99;
	size_t row[41];
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t best = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

/* True for what someone who wants to set levels may call the variable: LEVEL, LOG_LEVEL, ... */
static bool
names_levels(const char *suffix)
{
	static const char *const words[] = { "LEVEL", "LEVELS", "LVL", "LOG_LEVEL", "LOGLEVEL", "SPEC" };
	while (*suffix == '_')
		suffix++;
	for (size_t i = 0; i < sizeof words / sizeof *words; i++)
		if (strcasecmp(suffix, words[i]) == 0)
			return true;
	return false;
}

/*
 * The setting a name that is none was probably meant to be, or -1: the
 * same name in another case; SEQRING_LOG for a name of levels (LEVEL,
 * LOG_LEVEL); else the setting whose part after "SEQRING_LOG_" is at most
 * half as different (edit distance, any case; a word more counts as one
 * edit) as it is long.  The shared prefix is not compared, so that
 * SEQRING_LOG_FOO suggests nothing rather than SEQRING_LOG_MODE.
 */
static int
closest_setting(const char *name)
{
	for (int i = 0; i < SR_SET_COUNT; i++)
		if (strcasecmp(name, env_names[i]) == 0)
			return i;  /* names are upper case */
	const char *suffix = name + 11;
	if (names_levels(suffix))
		return SR_SET_LEVEL;
	while (*suffix == '_')
		suffix++;
	char upper[64];
	size_t n = 0;
	for (; n < sizeof upper - 1 && suffix[n] != '\0'; n++)
		upper[n] = (char)toupper((unsigned char)suffix[n]);
	upper[n] = '\0';
	size_t best = 99;
	int best_i = -1;
	for (int i = 0; i < SR_SET_COUNT; i++) {
		if (i == SR_SET_LEVEL)
			continue;
		const char *cand = env_names[i] + 12;
		size_t d = distance(upper, cand);
		size_t cl = strlen(cand);
		if (strncmp(upper, cand, cl) == 0 && upper[cl] == '_' && d > 1)
			d = 1;  /* a setting with a word more: BACKTRACE_SIZE for BACKTRACE */
		size_t longer = n > strlen(cand) ? n : strlen(cand);
		if (d < best && 2 * d <= longer) {
			best = d;
			best_i = i;
		}
	}
	return best_i;
}

/* " did you mean X?" for a name close to a setting, or "". */
static void
suggestion(const char *name, char *buf, size_t size)
{
	int i = closest_setting(name);
	if (i == SR_SET_LEVEL && strcasecmp(name, env_names[i]) != 0)
		snprintf(buf, size, ": did you mean SEQRING_LOG? (it holds the levels: SEQRING_LOG=debug)");
	else if (i >= 0)
		snprintf(buf, size, ": did you mean %s?", env_names[i]);
	else
		buf[0] = '\0';
}

/*
 * Names that look like settings and are none (a typo would otherwise be
 * silently ignored).  SEQRING_LOG_<anything> is ours: an error.  Other
 * names that begin SEQRING_LOG in any case (SEQRING_LOGLEVEL,
 * seqring_log_mode) may be another program's, and get a warning on stderr.
 */
static int
check_unknown(sr_error *err)
{
	for (char **e = environ; e != NULL && *e != NULL; e++) {
		const char *entry = *e;
		if (strncasecmp(entry, "SEQRING_LOG", 11) != 0)
			continue;
		const char *eq = strchr(entry, '=');
		size_t n = eq != NULL ? (size_t)(eq - entry) : strlen(entry);
		char name[128];
		if (n >= sizeof name)
			n = sizeof name - 1;
		memcpy(name, entry, n);
		name[n] = '\0';
		bool known = false;
		for (int i = 0; i < SR_SET_COUNT && !known; i++)
			known = strcmp(name, env_names[i]) == 0;
		if (known)
			continue;
		char hint[96];
		suggestion(name, hint, sizeof hint);
		bool ours = strncmp(name, "SEQRING_LOG", 11) == 0 && (name[11] == '\0' || name[11] == '_');
		if (ours)
			return sr_error_set(err, SR_EINVAL,
			    "%.64s is not a seqring setting%s (the SEQRING_LOG_* variables are listed in "
			    "sr_log_config.h and docs/configuration.md)", name, hint);
		fprintf(stderr, "seqring: warning: %.64s is not a seqring setting and is ignored%s%s\n", name,
		    hint[0] != '\0' ? hint : " (the settings are SEQRING_LOG and SEQRING_LOG_*",
		    hint[0] != '\0' ? "" : ", listed in docs/configuration.md)");
	}
	return SR_OK;
}

/* ---------------------------------------------------------------------------------------- */
/* SEQRING_LOG_SINK                                                                         */

static int
sink_bad(sr_error *err, const char *all, int index, const char *why)
{
	return sr_error_set(err, SR_EINVAL, "SEQRING_LOG_SINK '%.64s%s' is invalid: sink %d: %s", all,
	    strlen(all) > 64 ? "..." : "", index, why);
}

/* Parses text (modified in place: paths point into it) into r->sinks. */
static int
parse_sinks(sr_log_resolved *r, const char *all, char *text, sr_error *err)
{
	int count = 0;
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
		if (count == SR_LOG_MAX_SINKS)
			return sink_bad(err, all, count, "more than 16 sinks");
		sr_sink_config *s = &r->sinks[count];
		char *save_opt = NULL;
		char *head = strtok_r(item, ",", &save_opt);
		if (head == NULL)
			return sink_bad(err, all, count, "empty");
		if (strcasecmp(head, "stderr") == 0) {
			*s = sr_sink_fd(2);
		} else if (strcasecmp(head, "stdout") == 0) {
			*s = sr_sink_fd(1);
		} else if (strcasecmp(head, "null") == 0) {
			*s = sr_sink_null();
		} else if (strncasecmp(head, "fd:", 3) == 0) {
			uint64_t fd;
			if (!parse_size(head + 3, &fd) || fd > 65535) {
				snprintf(why, sizeof why, "'%.40s': expected fd:N with N an open descriptor", head);
				return sink_bad(err, all, count, why);
			}
			*s = sr_sink_fd((int)fd);
		} else if (strncasecmp(head, "file:", 5) == 0) {
			if (head[5] == '\0')
				return sink_bad(err, all, count, "'file:' needs a path (file:/var/log/app.log)");
			*s = sr_sink_file(head + 5);
		} else if (strcasecmp(head, "syslog") == 0 || strncasecmp(head, "syslog:", 7) == 0) {
			if (sr_log__syslog_parse_head(head, s, why, sizeof why) != 0)
				return sink_bad(err, all, count, why);
		} else {
			snprintf(why, sizeof why, "'%.40s' is not a sink: expected stderr, stdout, null, fd:N, "
			    "file:PATH or syslog[:udp://HOST:PORT|:tcp://HOST:PORT|:unix:PATH]", head);
			return sink_bad(err, all, count, why);
		}
		bool is_file = s->kind == SR_SINK_FILE;
		for (char *opt = strtok_r(NULL, ",", &save_opt); opt != NULL; opt = strtok_r(NULL, ",", &save_opt)) {
			while (sr_log__is_space(*opt))
				opt++;
			char *eq = strchr(opt, '=');
			if (eq == NULL) {
				snprintf(why, sizeof why, "option '%.40s' has no '=' (expected level=, layout=, pattern=, "
				    "buffer=, timeout=, max_size=, keep=, daily=, mode=, facility=, format=, app=, "
				    "reconnect=)", opt);
				return sink_bad(err, all, count, why);
			}
			*eq = '\0';
			const char *key = opt, *val = eq + 1;
			uint64_t num;
			bool flag;
			int syslog_rc;
			if (strcmp(key, "level") == 0) {
				int level;
				if (!sr_log__level_of(val, strlen(val), &level)) {
					snprintf(why, sizeof why, "level '%.32s' is invalid: " SR_LOG_LEVELS_EXPECTED, val);
					return sink_bad(err, all, count, why);
				}
				s->level = (sr_log_level)level;
			} else if (strcmp(key, "layout") == 0) {
				sr_log_layout layout;
				if (sr_log_layout_parse(val, &layout, NULL) != SR_OK) {
					snprintf(why, sizeof why, "layout '%.32s' is invalid: expected text, message, "
					    "pattern or json", val);
					return sink_bad(err, all, count, why);
				}
				s->layout = layout;
			} else if (strcmp(key, "pattern") == 0) {
				/* A sink's pattern (without ',' or ';') implies its pattern layout. */
				s->layout = SR_LOG_LAYOUT_PATTERN;
				s->pattern = val;
			} else if (s->kind == SR_SINK_SYSLOG &&
			    (syslog_rc = sr_log__syslog_parse_option(key, val, s, why, sizeof why)) != 0) {
				if (syslog_rc < 0)
					return sink_bad(err, all, count, why);
			} else if (strcmp(key, "buffer") == 0 && s->kind != SR_SINK_NULL) {
				if (!parse_size(val, &num) || num < 256 || num > (64u << 20)) {
					snprintf(why, sizeof why, "buffer '%.32s' is invalid: expected 256 to 64m bytes", val);
					return sink_bad(err, all, count, why);
				}
				s->buffer_bytes = (size_t)num;
			} else if (strcmp(key, "timeout") == 0 && s->kind != SR_SINK_NULL) {
				if (!parse_size(val, &num) || num > 60000) {
					snprintf(why, sizeof why, "timeout '%.32s' is invalid: expected 0 to 60000 ms", val);
					return sink_bad(err, all, count, why);
				}
				s->write_timeout_ms = (int)num;
			} else if (strcmp(key, "max_size") == 0 && is_file) {
				if (!parse_size(val, &num) || (num != 0 && (num < 4096 || num > (UINT64_C(1) << 50)))) {
					snprintf(why, sizeof why, "max_size '%.32s' is invalid: expected 0 (no rotation) or "
					    "4096 to 2^50 bytes (suffix k, m, g)", val);
					return sink_bad(err, all, count, why);
				}
				s->max_file_bytes = num;
			} else if (strcmp(key, "keep") == 0 && is_file) {
				if (!parse_size(val, &num) || num > 1000) {
					snprintf(why, sizeof why, "keep '%.32s' is invalid: expected 0 to 1000 files", val);
					return sink_bad(err, all, count, why);
				}
				s->keep_files = (int)num;
			} else if (strcmp(key, "daily") == 0 && is_file) {
				if (!parse_bool(val, &flag)) {
					snprintf(why, sizeof why, "daily '%.32s' is invalid: expected 1 or 0", val);
					return sink_bad(err, all, count, why);
				}
				s->rotate_daily = flag;
			} else if (strcmp(key, "mode") == 0 && is_file) {
				char *e;
				errno = 0;
				unsigned long m = strtoul(val, &e, 8);
				if (*val == '\0' || *e != '\0' || errno != 0 || m > 07777) {
					snprintf(why, sizeof why, "mode '%.32s' is invalid: expected octal 0 to 07777", val);
					return sink_bad(err, all, count, why);
				}
				s->file_mode = (unsigned)m;
			} else {
				snprintf(why, sizeof why, "option '%.32s' is not one of a%s sink's (%s)", key,
				    is_file ? " file" : s->kind == SR_SINK_NULL ? " null" :
				    s->kind == SR_SINK_SYSLOG ? " syslog" : "n fd",
				    is_file ? "level, layout, pattern, buffer, timeout, max_size, keep, daily, mode" :
				    s->kind == SR_SINK_NULL ? "level, layout, pattern" :
				    s->kind == SR_SINK_SYSLOG ? "level, layout, pattern, facility, format, app, "
				    "reconnect, buffer, timeout" : "level, layout, pattern, buffer, timeout");
				return sink_bad(err, all, count, why);
			}
		}
		count++;
	}
	if (count == 0)
		return sink_bad(err, all, 0, "no sink (expected stderr, stdout, null, fd:N, file:PATH or syslog)");
	r->cfg.sinks = r->sinks;
	r->cfg.sink_count = count;
	return SR_OK;
}

/* ---------------------------------------------------------------------------------------- */
/* Resolution                                                                               */

void
sr_log__resolved_free(sr_log_resolved *r)
{
	for (int i = 0; i < SR_SET_COUNT; i++) {
		free(r->settings.env_value[i]);
		r->settings.env_value[i] = NULL;
	}
	free(r->sink_text);
	r->sink_text = NULL;
	sr_log__spec_free(&r->code_spec);
	sr_log__spec_free(&r->env_spec);
}

/* Marks the settings the code changed from their defaults. */
static void
code_sources(const sr_log_config *c, uint8_t *src)
{
	sr_log_config d;
	sr_log_config_default(&d);
#define DIFF(set, cond) src[set] = (cond) ? SR_SRC_CODE : SR_SRC_DEFAULT
	DIFF(SR_SET_LEVEL, c->level != d.level || (c->level_spec != NULL && c->level_spec[0] != '\0'));
	DIFF(SR_SET_MODE, c->mode != d.mode);
	DIFF(SR_SET_PRODUCER, c->producer != d.producer);
	DIFF(SR_SET_RING_SLOTS, c->ring_slots != d.ring_slots);
	DIFF(SR_SET_SLOT_SIZE, c->slot_size != d.slot_size);
	DIFF(SR_SET_THREAD_RING_SLOTS, c->thread_ring_slots != d.thread_ring_slots);
	DIFF(SR_SET_WAIT, c->wait_strategy != NULL && strcmp(c->wait_strategy, SR_LOG_DEFAULT_WAIT) != 0);
	DIFF(SR_SET_FULL_POLICY, c->full_policy != d.full_policy);
	DIFF(SR_SET_DISCARD_LEVEL, c->discard_level != d.discard_level);
	DIFF(SR_SET_SYNC_ENQUEUE, c->synchronize_enqueue_when_full != d.synchronize_enqueue_when_full);
	DIFF(SR_SET_IMMEDIATE_FLUSH, c->immediate_flush != d.immediate_flush);
	DIFF(SR_SET_MAX_MESSAGE, c->max_message_bytes != d.max_message_bytes);
	DIFF(SR_SET_MAX_LINE, c->max_line_bytes != d.max_line_bytes);
	DIFF(SR_SET_LAYOUT, c->layout != d.layout);
	DIFF(SR_SET_PATTERN, c->pattern != NULL);
	DIFF(SR_SET_CLOCK, c->clock != d.clock);
	DIFF(SR_SET_SINKS, c->sink_count > 0);
	DIFF(SR_SET_THREAD_NAME, c->thread_name != NULL);
	DIFF(SR_SET_CLOSE_AT_EXIT, c->close_at_exit != d.close_at_exit);
	DIFF(SR_SET_EXIT_TIMEOUT, c->exit_timeout_ms != d.exit_timeout_ms);
	DIFF(SR_SET_FORK, c->fork_policy != d.fork_policy);
	DIFF(SR_SET_BACKTRACE, c->backtrace_size != d.backtrace_size);
	DIFF(SR_SET_BACKTRACE_LEVEL, c->backtrace_level != d.backtrace_level);
	DIFF(SR_SET_BACKTRACE_TRIGGER, c->backtrace_trigger != d.backtrace_trigger);
	DIFF(SR_SET_CRASH_HANDLER, c->crash_handler != d.crash_handler);
	DIFF(SR_SET_DESCRIBE, c->describe != d.describe);
	DIFF(SR_SET_REOPEN_SIGNAL, c->reopen_signal != d.reopen_signal);
	DIFF(SR_SET_COLOR, c->color != d.color);
	DIFF(SR_SET_ESCAPE, c->escape_control_characters != d.escape_control_characters);
#undef DIFF
}

/* Applies one variable's value v to r->cfg. */
static int
apply_env(sr_log_resolved *r, int set, const char *v, sr_error *err)
{
	sr_log_config *c = &r->cfg;
	sr_error sub;
	uint64_t num;
	bool flag = false;
	char why[200];
	switch (set) {
	case SR_SET_LEVEL:
		return SR_OK; /* parsed with the code's spec, below */
	case SR_SET_MODE:
		if (sr_log_mode_parse(v, &c->mode, &sub) != SR_OK)
			return env_bad(err, set, v, "expected ring, queue or sync");
		return SR_OK;
	case SR_SET_PRODUCER:
		if (sr_log__producer_parse(v, &c->producer) != 0)
			return env_bad(err, set, v, "expected shared or per_thread");
		return SR_OK;
	case SR_SET_RING_SLOTS:
	case SR_SET_THREAD_RING_SLOTS:
		if (!parse_size(v, &num) || num < 2 || num > (uint64_t)SR_RING_MAX_SLOT_COUNT || !is_pow2(num)) {
			snprintf(why, sizeof why, "expected a power of two from 2 to %" PRId64 " (suffix k or m: x1024)",
			    (int64_t)SR_RING_MAX_SLOT_COUNT);
			return env_bad(err, set, v, why);
		}
		if (set == SR_SET_RING_SLOTS)
			c->ring_slots = (int64_t)num;
		else
			c->thread_ring_slots = (int64_t)num;
		return SR_OK;
	case SR_SET_SLOT_SIZE:
		if (!parse_size(v, &num) || num < 64 || num > SR_RING_MAX_SLOT_SIZE || !is_pow2(num)) {
			snprintf(why, sizeof why, "expected a power of two from 64 to %u (suffix k: x1024)",
			    SR_RING_MAX_SLOT_SIZE);
			return env_bad(err, set, v, why);
		}
		c->slot_size = (size_t)num;
		return SR_OK;
	case SR_SET_WAIT: {
		sr_wait_config w;
		if (sr_wait_config_parse(v, &w, &sub) != SR_OK)
			return env_bad(err, set, v, sub.message);
		c->wait_strategy = v;
		return SR_OK;
	}
	case SR_SET_FULL_POLICY:
		if (sr_log_full_policy_parse(v, &c->full_policy, &sub) != SR_OK)
			return env_bad(err, set, v, "expected block, drop, discard or sync");
		return SR_OK;
	case SR_SET_DISCARD_LEVEL:
		return env_level(err, set, v, SR_LOG_FATAL, &c->discard_level);
	case SR_SET_SYNC_ENQUEUE:
		if (env_bool(err, set, v, &flag) != SR_OK)
			return SR_EINVAL;
		c->synchronize_enqueue_when_full = flag;
		return SR_OK;
	case SR_SET_IMMEDIATE_FLUSH:
		if (env_bool(err, set, v, &flag) != SR_OK)
			return SR_EINVAL;
		c->immediate_flush = flag;
		return SR_OK;
	case SR_SET_MAX_MESSAGE:
		if (!parse_size(v, &num) || num < 1024 || num > (1u << 20))
			return env_bad(err, set, v, "expected 1024 to 1048576 bytes (suffix k or m)");
		c->max_message_bytes = (size_t)num;
		return SR_OK;
	case SR_SET_MAX_LINE:
		if (!parse_size(v, &num) || num < 256 || num > (16u << 20))
			return env_bad(err, set, v, "expected 256 to 16777216 bytes (suffix k or m)");
		c->max_line_bytes = (size_t)num;
		return SR_OK;
	case SR_SET_LAYOUT:
		if (sr_log_layout_parse(v, &c->layout, &sub) != SR_OK)
			return env_bad(err, set, v, "expected text, message, pattern or json");
		return SR_OK;
	case SR_SET_PATTERN:
		if (sr_log_pattern_check(v, &sub) != SR_OK) {
			/* The pattern error names the column; keep it, prefixed with the variable. */
			return sr_error_set(err, SR_EINVAL, "SEQRING_LOG_PATTERN: %s", sub.message);
		}
		c->pattern = v;
		return SR_OK;
	case SR_SET_CLOCK:
		if (sr_log_clock_parse(v, &c->clock, &sub) != SR_OK)
			return env_bad(err, set, v, "expected realtime, coarse, tsc or auto");
		return SR_OK;
	case SR_SET_SINKS:
		free(r->sink_text);
		r->sink_text = strdup(v);
		if (r->sink_text == NULL)
			return sr_error_set(err, SR_ENOMEM, "cannot copy SEQRING_LOG_SINK");
		return parse_sinks(r, v, r->sink_text, err);
	case SR_SET_THREAD_NAME:
		if (strlen(v) > 15)
			return env_bad(err, set, v, "expected 1 to 15 characters");
		c->thread_name = v;
		return SR_OK;
	case SR_SET_CLOSE_AT_EXIT:
		return env_bool(err, set, v, &c->close_at_exit);
	case SR_SET_FORK:
		if (sr_log__fork_policy_parse(v, &c->fork_policy) != 0)
			return env_bad(err, set, v, "expected restart or drop");
		return SR_OK;
	case SR_SET_EXIT_TIMEOUT:
		if (!parse_size(v, &num) || num > 3600000)
			return env_bad(err, set, v, "expected 0 to 3600000 milliseconds");
		c->exit_timeout_ms = (int)num;
		return SR_OK;
	case SR_SET_BACKTRACE:
		if (!parse_size(v, &num) || num > 65536)
			return env_bad(err, set, v, "expected 0 (off) to 65536 messages");
		c->backtrace_size = (int)num;
		return SR_OK;
	case SR_SET_BACKTRACE_LEVEL:
		return env_level(err, set, v, SR_LOG_FATAL, &c->backtrace_level);
	case SR_SET_BACKTRACE_TRIGGER:
		return env_level(err, set, v, SR_LOG_FATAL, &c->backtrace_trigger);
	case SR_SET_CRASH_HANDLER:
		return env_bool(err, set, v, &c->crash_handler);
	case SR_SET_DESCRIBE:
		return env_bool(err, set, v, &c->describe);
	case SR_SET_REOPEN_SIGNAL:
		if (sr_log__reopen_signal_parse(v, &c->reopen_signal) != 0)
			return env_bad(err, set, v, "expected SIGHUP, SIGUSR1, SIGUSR2 or none");
		return SR_OK;
	case SR_SET_COLOR: {
		int color;
		if (sr_log__color_parse(v, &color) != 0)
			return env_bad(err, set, v, "expected auto, always or never");
		c->color = (sr_log_color)color;
		return SR_OK;
	}
	case SR_SET_ESCAPE:
		return env_bool(err, set, v, &c->escape_control_characters);
	default:
		return SR_OK;
	}
}

int
sr_log__resolve(const sr_log_config *config, sr_log_resolved *r, sr_error *err)
{
	memset(r, 0, sizeof *r);
	r->cfg = *config;
	code_sources(config, r->settings.source);
	char msg[SR_ERROR_MESSAGE_MAX];
	if (config->level_spec != NULL && config->level_spec[0] != '\0') {
		int rc = sr_log__spec_parse(config->level_spec, &r->code_spec, msg, sizeof msg);
		if (rc != SR_OK)
			return sr_error_set(err, rc, "config.level_spec '%.64s' is invalid: %s", config->level_spec, msg);
	}
	if (config->ignore_environment)
		return SR_OK;
	r->settings.environment_read = true;
	int rc = check_unknown(err);
	if (rc != SR_OK)
		return rc;
	for (int set = 0; set < SR_SET_COUNT; set++) {
		const char *v = getenv(env_names[set]);
		if (v == NULL || v[0] == '\0')
			continue;
		rc = apply_env(r, set, v, err);
		if (rc != SR_OK)
			return rc;
		r->settings.source[set] = SR_SRC_ENV;
		r->settings.env_value[set] = strdup(v);
		if (r->settings.env_value[set] == NULL)
			return sr_error_set(err, SR_ENOMEM, "cannot copy %s", env_names[set]);
	}
	/* The layout and the pattern go together. */
	bool env_layout = r->settings.source[SR_SET_LAYOUT] == SR_SRC_ENV;
	bool env_pattern = r->settings.source[SR_SET_PATTERN] == SR_SRC_ENV;
	if (env_pattern && !env_layout) {
		r->cfg.layout = SR_LOG_LAYOUT_PATTERN;
		r->settings.source[SR_SET_LAYOUT] = SR_SRC_ENV;
	} else if (env_pattern && r->cfg.layout != SR_LOG_LAYOUT_PATTERN) {
		return sr_error_set(err, SR_EINVAL,
		    "SEQRING_LOG_PATTERN is set but SEQRING_LOG_LAYOUT is '%s': a pattern needs layout "
		    "pattern (unset one of them)", sr_log_layout_name(r->cfg.layout));
	} else if (env_layout && r->cfg.layout == SR_LOG_LAYOUT_PATTERN && r->cfg.pattern == NULL) {
		return sr_error_set(err, SR_EINVAL,
		    "SEQRING_LOG_LAYOUT 'pattern' needs a pattern: set SEQRING_LOG_PATTERN (or config.pattern)");
	} else if (env_layout && r->cfg.layout != SR_LOG_LAYOUT_PATTERN && r->cfg.pattern != NULL) {
		/* The operator chose another layout: the code's pattern no longer applies. */
		r->cfg.pattern = NULL;
	}
	const char *spec = r->settings.env_value[SR_SET_LEVEL];
	if (spec != NULL) {
		rc = sr_log__spec_parse(spec, &r->env_spec, msg, sizeof msg);
		if (rc != SR_OK)
			return sr_error_set(err, rc, "SEQRING_LOG '%.64s%s' is invalid: %s", spec,
			    strlen(spec) > 64 ? "..." : "", msg);
	}
	return SR_OK;
}

/* ---------------------------------------------------------------------------------------- */
/* Where the values of a failed open came from                                              */

/* Appends text to err's message if it fits whole. */
static void
append_note(sr_error *err, const char *text)
{
	size_t have = strlen(err->message), len = strlen(text);
	if (have + len < sizeof err->message)
		memcpy(err->message + have, text, len + 1);
}

/* "SEQRING_LOG_RING_SLOTS=1073741824" or "config.ring_slots 1073741824": where a number came from. */
static void
origin_of(const sr_log_settings *s, int set, uint64_t value, char *buf, size_t size)
{
	if (s->source[set] == SR_SRC_ENV && s->env_value[set] != NULL)
		snprintf(buf, size, "%s=%.24s", env_names[set], s->env_value[set]);
	else
		snprintf(buf, size, "config.%s %" PRIu64, field_names[set], value);
}

/*
 * "config.sinks[N].REST" of a sink that SEQRING_LOG_SINK made becomes
 * "SEQRING_LOG_SINK sink N: REST": the user wrote no config.sinks.
 */
static bool
rename_env_sink(const sr_log_settings *s, sr_error *err)
{
	static const char head[] = "config.sinks[";
	if (s->source[SR_SET_SINKS] != SR_SRC_ENV || strncmp(err->message, head, sizeof head - 1) != 0)
		return false;
	char *end;
	unsigned long index = strtoul(err->message + sizeof head - 1, &end, 10);
	if (end[0] != ']' || end[1] != '.')
		return false;
	char msg[SR_ERROR_MESSAGE_MAX];
	snprintf(msg, sizeof msg, "SEQRING_LOG_SINK sink %lu: %s", index, end + 2);
	memcpy(err->message, msg, sizeof msg);
	return true;
}

void
sr_log__explain_open_failure(const sr_log_resolved *r, const sr_log_settings *s, bool in_validation,
    sr_error *err)
{
	if (err == NULL || rename_env_sink(s, err))
		return;
	const sr_log_config *c = &r->cfg;
	if (!in_validation && err->code == SR_ENOMEM && c->mode != SR_LOG_MODE_SYNC) {
		/* The ring (or queue) is what an open allocates by the size it was told. */
		char slots[96], size[96], note[320];
		bool per_thread = sr_log__config_per_thread(c);
		int slots_set = per_thread ? SR_SET_THREAD_RING_SLOTS : SR_SET_RING_SLOTS;
		origin_of(s, slots_set, (uint64_t)(per_thread ? c->thread_ring_slots : c->ring_slots), slots,
		    sizeof slots);
		if (c->mode == SR_LOG_MODE_QUEUE) {
			snprintf(note, sizeof note, " (the queue's entries: %s)", slots);
		} else {
			origin_of(s, SR_SET_SLOT_SIZE, c->slot_size, size, sizeof size);
			snprintf(note, sizeof note, " (the %sring is %s x %s: expected a ring that fits in memory)",
			    per_thread ? "thread's " : "", slots, size);
		}
		append_note(err, note);
		return;
	}
	char note[SR_ERROR_MESSAGE_MAX];
	size_t len = 0;
	for (int i = 0; i < SR_SET_COUNT; i++) {
		if (s->source[i] != SR_SRC_ENV || s->env_value[i] == NULL)
			continue;
		int n = snprintf(note + len, sizeof note - len, "%s%s=%.24s", len == 0 ? " (from the environment: " : ", ",
		    env_names[i], s->env_value[i]);
		if (n < 0 || (size_t)n + 2 > sizeof note - len)
			return;
		len += (size_t)n;
	}
	if (len > 0) {
		memcpy(note + len, ")", 2);
		append_note(err, note);
	}
}

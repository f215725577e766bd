/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_names.c: every name the logger gives a level or an enum value, and
 * the parsers that read them back, in one table each: the configuration,
 * the environment, the layouts, the sinks and sr_log_describe all print and
 * parse through here, so that a name is written once.
 */
#include "sr_log_names_internal.h"

#include <string.h>
#include <strings.h>

static const char *const level_names[SR_LOG_LEVEL_COUNT] = {
	"trace", "debug", "info", "warn", "error", "fatal", "off"
};
static const char level_upper[SR_LOG_LEVEL_COUNT][6] = {
	"TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL", "OFF"
};
static const char *const mode_names[] = { "ring", "queue", "sync" };
static const char *const policy_names[] = { "block", "drop", "discard", "sync" };
static const char *const layout_names[] = { "text", "message", "pattern", "json" };
static const char *const producer_names[] = { "shared", "per_thread" };
static const char *const fork_policy_names[] = { "restart", "drop" };
static const char *const color_names[] = { "auto", "always", "never" };
/* Indexed by sr_log_clock. */
static const char *const clock_names[] = { "realtime", "coarse", "tsc", "auto" };

#define COUNT(names) ((int)(sizeof(names) / sizeof((names)[0])))

/* names[value], or fallback for a value outside the table. */
static const char *
name_of(const char *const *names, int count, int value, const char *fallback)
{
	return value >= 0 && value < count ? names[value] : fallback;
}

int
sr_log__parse_name(const char *name, const char *const *names, int count, int *out)
{
	if (name == NULL)
		return -1;
	for (int i = 0; i < count; i++) {
		if (strcasecmp(name, names[i]) == 0) {
			*out = i;
			return 0;
		}
	}
	return -1;
}

/* The public parsers' refusal: the name, what kind of name it should be, and the valid ones. */
static int
refuse(sr_error *err, const char *what, const char *name, const char *valid)
{
	return sr_error_set(err, SR_EINVAL, "%s '%.64s' is invalid: expected %s", what,
	    name != NULL ? name : "(null)", valid);
}

/* ---------------------------------------------------------------------------------------- */
/* Levels                                                                                   */

const char *
sr_log_level_name(int level)
{
	return name_of(level_names, SR_LOG_LEVEL_COUNT, level, "unknown");
}

const char *
sr_log__level_lower(int level)
{
	return name_of(level_names, SR_LOG_LEVEL_COUNT, level, "off");
}

const char *
sr_log__level_upper(int level)
{
	return level >= 0 && level < SR_LOG_LEVEL_COUNT ? level_upper[level] : "?";
}

bool
sr_log__level_of(const char *s, size_t n, int *level)
{
	for (int i = 0; i < SR_LOG_LEVEL_COUNT; i++) {
		if (strlen(level_names[i]) == n && strncasecmp(s, level_names[i], n) == 0) {
			*level = i;
			return true;
		}
	}
	if (n == 7 && strncasecmp(s, "warning", 7) == 0) {
		*level = SR_LOG_WARN;
		return true;
	}
	return false;
}

int
sr_log_level_parse(const char *name, sr_log_level *level, sr_error *err)
{
	int v;
	if (name == NULL || !sr_log__level_of(name, strlen(name), &v))
		return refuse(err, "level", name, "trace, debug, info, warn, error, fatal or off");
	if (level != NULL)
		*level = (sr_log_level)v;
	return SR_OK;
}

/* ---------------------------------------------------------------------------------------- */
/* The configuration's enums                                                                */

const char *
sr_log_mode_name(int mode)
{
	return name_of(mode_names, COUNT(mode_names), mode, "unknown");
}

const char *
sr_log_full_policy_name(int policy)
{
	return name_of(policy_names, COUNT(policy_names), policy, "unknown");
}

const char *
sr_log_layout_name(int layout)
{
	return name_of(layout_names, COUNT(layout_names), layout, "unknown");
}

const char *
sr_log__producer_name(int producer)
{
	return name_of(producer_names, COUNT(producer_names), producer, "unknown");
}

const char *
sr_log__fork_policy_name(int policy)
{
	return name_of(fork_policy_names, COUNT(fork_policy_names), policy, "unknown");
}

const char *
sr_log_color_name(int color)
{
	return name_of(color_names, COUNT(color_names), color, "unknown");
}

const char *
sr_log_clock_name(int clock)
{
	return name_of(clock_names, COUNT(clock_names), clock, "unknown");
}

int
sr_log__fork_policy_parse(const char *name, sr_log_fork_policy *policy)
{
	int v;
	if (sr_log__parse_name(name, fork_policy_names, COUNT(fork_policy_names), &v) != 0)
		return -1;
	*policy = (sr_log_fork_policy)v;
	return 0;
}

int
sr_log__producer_parse(const char *name, sr_log_producer *producer)
{
	int v;
	if (sr_log__parse_name(name, producer_names, COUNT(producer_names), &v) != 0)
		return -1;
	*producer = (sr_log_producer)v;
	return 0;
}

int
sr_log__color_parse(const char *name, int *color)
{
	return sr_log__parse_name(name, color_names, COUNT(color_names), color);
}

int
sr_log_mode_parse(const char *name, sr_log_mode *mode, sr_error *err)
{
	int v;
	if (sr_log__parse_name(name, mode_names, COUNT(mode_names), &v) != 0)
		return refuse(err, "mode", name, "ring, queue or sync");
	if (mode != NULL)
		*mode = (sr_log_mode)v;
	return SR_OK;
}

int
sr_log_layout_parse(const char *name, sr_log_layout *layout, sr_error *err)
{
	int v;
	if (sr_log__parse_name(name, layout_names, COUNT(layout_names), &v) != 0)
		return refuse(err, "layout", name, "text, message, pattern or json");
	if (layout != NULL)
		*layout = (sr_log_layout)v;
	return SR_OK;
}

int
sr_log_full_policy_parse(const char *name, sr_log_full_policy *policy, sr_error *err)
{
	int v;
	if (sr_log__parse_name(name, policy_names, COUNT(policy_names), &v) != 0)
		return refuse(err, "full-queue policy", name, "block, drop, discard or sync");
	if (policy != NULL)
		*policy = (sr_log_full_policy)v;
	return SR_OK;
}

int
sr_log_clock_parse(const char *name, sr_log_clock *clock, sr_error *err)
{
	int v;
	if (sr_log__parse_name(name, clock_names, COUNT(clock_names), &v) != 0)
		return refuse(err, "clock", name, "realtime, coarse, tsc or auto");
	if (clock != NULL)
		*clock = (sr_log_clock)v;
	return SR_OK;
}

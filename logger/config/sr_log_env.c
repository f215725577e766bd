/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_env.c: configuration from the outside: the SEQRING_LOG* variables,
 * each parsed and range-checked with a message that names the variable, its
 * value and what is valid, applied over the code's configuration
 * (sr_log__resolve), and where each setting came from.  The settings' table
 * and ranges are sr_log_settings.c's, SEQRING_LOG_SINK's grammar
 * sr_log_env_sink.c's, the names that are no setting sr_log_env_unknown.c's.
 * The reference is docs/configuration.md.
 *
 * Why the environment wins over the code: the person who sets SEQRING_LOG
 * on a running deployment is the operator, who knows what this run needs;
 * the code's values are the developer's defaults.  A program that must not
 * be reconfigured from outside sets config.ignore_environment.  Nothing
 * here is silently ignored: a level set in a variable that never reaches the
 * logger is the failure this prevents, so a bad value or an unknown
 * SEQRING_LOG_* name fails sr_log_open, and a valid value that sizes nothing
 * is warned about.
 */
#include "sr_log_config_validate_internal.h"
#include "sr_log_env_internal.h"
#include "sr_log_env_parse_internal.h"
#include "sr_log_env_sink_internal.h"
#include "sr_log_env_unknown_internal.h"
#include "sr_log_reopen_internal.h"
#include "sr_wait.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "NAME 'value' is invalid: <why>" */
static int
env_bad(sr_error *err, int setting, const char *value, const char *why)
{
	return sr_error_set(err, SR_EINVAL, "%s '%.64s%s' is invalid: %s", sr_log__env_name(setting), value,
	    strlen(value) > 64 ? "..." : "", why);
}

/* discard_level, backtrace_level, backtrace_trigger: trace to fatal (off is no level to keep or trigger at). */
static int
env_level(sr_error *err, int setting, const char *v, sr_log_level *out)
{
	int level;
	if (!sr_log__level_of(v, strlen(v), &level) || level > SR_LOG_FATAL)
		return env_bad(err, setting, v, "expected trace, debug, info, warn, error or fatal");
	*out = (sr_log_level)level;
	return SR_OK;
}

static int
env_bool(sr_error *err, int setting, const char *v, bool *out)
{
	if (!sr_log__env_parse_bool(v, out))
		return env_bad(err, setting, v, "expected 1, 0, true, false, yes, no, on or off");
	return SR_OK;
}

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
	for (int set = 0; set < SR_SET_COUNT; set++)
		src[set] = sr_log__field_differs(c, &d, set) ? SR_SRC_CODE : SR_SRC_DEFAULT;
	/* The settings that are more, or other, than one field's bytes. */
	if (c->level != d.level || (c->level_spec != NULL && c->level_spec[0] != '\0'))
		src[SR_SET_LEVEL] = SR_SRC_CODE;
	if (c->wait_strategy != NULL && strcmp(c->wait_strategy, SR_LOG_DEFAULT_WAIT) != 0)
		src[SR_SET_WAIT] = SR_SRC_CODE;
	if (c->sink_count > 0)
		src[SR_SET_SINKS] = SR_SRC_CODE;
}

/* "NAME 'value' is invalid: expected <the setting's range>" */
static int
env_out_of_range(sr_error *err, int setting, const char *value)
{
	char expected[160];
	return env_bad(err, setting, value, sr_log__range_expected(setting, true, expected, sizeof expected));
}

/* SR_OK when the variable's value was parsed, else "NAME 'value' is invalid: <expected>". */
static int
env_parsed(sr_error *err, int setting, const char *value, bool parsed, const char *expected)
{
	return parsed ? SR_OK : env_bad(err, setting, value, expected);
}

/* Applies a flag, a level or a number to its field, as the settings' table says where it lies. */
static int
apply_field(sr_log_config *c, int set, const char *v, sr_error *err)
{
	uint64_t num;
	void *field = sr_log__field_of(c, set);
	switch (sr_log__field_kind(set)) {
	case SR_FIELD_FLAG:
		return env_bool(err, set, v, field);
	case SR_FIELD_LEVEL:
		return env_level(err, set, v, field);
	default:
		if (!sr_log__env_parse_size(v, &num) || !sr_log__in_range(set, num))
			return env_out_of_range(err, set, v);
		sr_log__field_set_number(c, set, num);
		return SR_OK;
	}
}

/* Applies one variable's value v to r->cfg. */
static int
apply_env(sr_log_resolved *r, int set, const char *v, sr_error *err)
{
	sr_log_config *c = &r->cfg;
	sr_error sub;
	sr_wait_config wait;
	int rc, color;
	if (sr_log__field_kind(set) != SR_FIELD_OTHER)
		return apply_field(c, set, v, err);
	switch (set) {
	case SR_SET_LEVEL:
		return SR_OK; /* parsed with the code's spec, below */
	case SR_SET_MODE:
		return env_parsed(err, set, v, sr_log_mode_parse(v, &c->mode, NULL) == SR_OK, "expected ring, queue or sync");
	case SR_SET_PRODUCER:
		return env_parsed(err, set, v, sr_log__producer_parse(v, &c->producer) == 0, "expected shared or per_thread");
	case SR_SET_WAIT:
		/* The parser's message (sub, read only on failure) says what is wrong with the strategy. */
		if ((rc = env_parsed(err, set, v, sr_wait_config_parse(v, &wait, &sub) == SR_OK, sub.message)) == SR_OK)
			c->wait_strategy = v;
		return rc;
	case SR_SET_FULL_POLICY:
		return env_parsed(err, set, v, sr_log_full_policy_parse(v, &c->full_policy, NULL) == SR_OK,
		    "expected block, drop, discard or sync");
	case SR_SET_LAYOUT:
		return env_parsed(err, set, v, sr_log_layout_parse(v, &c->layout, NULL) == SR_OK,
		    "expected text, message, pattern or json");
	case SR_SET_PATTERN:
		if (sr_log_pattern_check(v, &sub) != SR_OK) {
			/* The pattern error names the column; keep it, prefixed with the variable. */
			return sr_error_set(err, SR_EINVAL, "SEQRING_LOG_PATTERN: %s", sub.message);
		}
		c->pattern = v;
		return SR_OK;
	case SR_SET_CLOCK:
		return env_parsed(err, set, v, sr_log_clock_parse(v, &c->clock, NULL) == SR_OK,
		    "expected realtime, coarse, tsc or auto");
	case SR_SET_SINKS:
		free(r->sink_text);
		r->sink_text = strdup(v);
		if (r->sink_text == NULL)
			return sr_error_set(err, SR_ENOMEM, "cannot copy SEQRING_LOG_SINK");
		if ((rc = sr_log__env_parse_sinks(v, r->sink_text, r->sinks, &r->cfg.sink_count, err)) != SR_OK)
			return rc;
		r->cfg.sinks = r->sinks;
		return SR_OK;
	case SR_SET_THREAD_NAME:
		if (!sr_log__in_range(set, strlen(v)))
			return env_out_of_range(err, set, v);
		c->thread_name = v;
		return SR_OK;
	case SR_SET_FORK:
		return env_parsed(err, set, v, sr_log__fork_policy_parse(v, &c->fork_policy) == 0, "expected restart or drop");
	case SR_SET_REOPEN_SIGNAL:
		return env_parsed(err, set, v, sr_log__reopen_signal_parse(v, &c->reopen_signal) == 0,
		    "expected SIGHUP, SIGUSR1, SIGUSR2 or none");
	case SR_SET_RING_DIR:
		c->ring_dir = v;
		return SR_OK;
	case SR_SET_SITES:
		c->sites = v;
		return SR_OK;
	case SR_SET_COLOR:
		if (sr_log__color_parse(v, &color) != 0)
			return env_bad(err, set, v, "expected auto, always or never");
		c->color = (sr_log_color)color;
		return SR_OK;
	default:
		return SR_OK;
	}
}

/*
 * A variable accepted and then sizing nothing would leave the operator
 * believing it took effect: SEQRING_LOG_RING_SLOTS with a ring per thread
 * gets one line on stderr.  The code's config.ring_slots gets none (it is
 * no typo; sr_log_describe says it is unused).
 */
static void
warn_unused(const sr_log_resolved *r)
{
	const char *slots = r->settings.env_value[SR_SET_RING_SLOTS];
	if (slots != NULL && sr_log__config_per_thread(&r->cfg))
		fprintf(stderr, "seqring: warning: SEQRING_LOG_RING_SLOTS '%.64s' is unused: producer per_thread gives "
		    "each thread a ring of its own, sized by thread_ring_slots (SEQRING_LOG_THREAD_RING_SLOTS); "
		    "ring_slots sizes the shared ring (SEQRING_LOG_PRODUCER=shared) and the queue\n", slots);
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
	int rc = sr_log__env_check_unknown(err);
	if (rc != SR_OK)
		return rc;
	for (int set = 0; set < SR_SET_COUNT; set++) {
		const char *v = getenv(sr_log__env_name(set));
		if (v == NULL || v[0] == '\0')
			continue;
		rc = apply_env(r, set, v, err);
		if (rc != SR_OK)
			return rc;
		r->settings.source[set] = SR_SRC_ENV;
		r->settings.env_value[set] = strdup(v);
		if (r->settings.env_value[set] == NULL)
			return sr_error_set(err, SR_ENOMEM, "cannot copy %s", sr_log__env_name(set));
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
	warn_unused(r);
	return SR_OK;
}


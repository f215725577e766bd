/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_settings_internal.h: the settings of sr_log_config as the outside
 * sees them: each one's SEQRING_LOG* variable, its config field, its range
 * of values, and where its value came from (internal; sr_log_settings.c).
 * The environment (sr_log_env.c), the validation (sr_log_config_validate.c)
 * and sr_log_describe read the one table.
 */
#ifndef SR_LOG_SETTINGS_INTERNAL_H
#define SR_LOG_SETTINGS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sr_log.h"
#include "sr_log_level_spec_internal.h"

/* The settings sr_log_describe prints, in order (sr_log_settings.source). */
enum sr_log_setting {
	SR_SET_LEVEL, SR_SET_MODE, SR_SET_PRODUCER, SR_SET_RING_SLOTS, SR_SET_SLOT_SIZE,
	SR_SET_THREAD_RING_SLOTS, SR_SET_WAIT,
	SR_SET_FULL_POLICY, SR_SET_DISCARD_LEVEL, SR_SET_SYNC_ENQUEUE, SR_SET_IMMEDIATE_FLUSH,
	SR_SET_MAX_MESSAGE,
	SR_SET_MAX_LINE, SR_SET_LAYOUT, SR_SET_PATTERN, SR_SET_CLOCK, SR_SET_SINKS,
	SR_SET_THREAD_NAME, SR_SET_CLOSE_AT_EXIT, SR_SET_EXIT_TIMEOUT, SR_SET_FORK, SR_SET_BACKTRACE,
	SR_SET_BACKTRACE_LEVEL, SR_SET_BACKTRACE_TRIGGER, SR_SET_CRASH_HANDLER, SR_SET_DESCRIBE,
	SR_SET_REOPEN_SIGNAL, SR_SET_COLOR, SR_SET_ESCAPE, SR_SET_RING_DIR, SR_SET_SITES, SR_SET_COUNT
};

/* What sr_log_describe needs to say where each setting came from. */
typedef struct sr_log_settings {
	uint8_t source[SR_SET_COUNT];     /* enum sr_log_source */
	char *env_value[SR_SET_COUNT];    /* the variable's text when source is SR_SRC_ENV */
	bool environment_read;            /* false with config.ignore_environment */
} sr_log_settings;

/* How the environment applies a setting held by one field of sr_log_config. */
enum sr_log_field_kind {
	SR_FIELD_OTHER,     /* by a parser of its own (an enum, a text, the sinks, the levels) */
	SR_FIELD_FLAG,      /* bool: 1, 0, true, false, ... */
	SR_FIELD_LEVEL,     /* sr_log_level: trace to fatal */
	SR_FIELD_INT64,     /* a number within the setting's range, into an int64_t */
	SR_FIELD_SIZE,      /* ... into a size_t */
	SR_FIELD_INT        /* ... into an int */
};

/* The SEQRING_LOG* variable of a setting. */
const char *sr_log__env_name(int setting);
/* The config field of a setting, for describe. */
const char *sr_log__field_name(int setting);
/* The setting's enum sr_log_field_kind. */
int sr_log__field_kind(int setting);
/* The setting's field in *c, or NULL for a setting of more than one field (level + level_spec, sinks, wait). */
void *sr_log__field_of(sr_log_config *c, int setting);
/* Whether the setting's field holds other bytes in *a than in *b (false without a field). */
bool sr_log__field_differs(const sr_log_config *a, const sr_log_config *b, int setting);
/* Stores value, within the setting's range, into its number field (SR_FIELD_INT64, _SIZE, _INT). */
void sr_log__field_set_number(sr_log_config *c, int setting, uint64_t value);

/*
 * Whether value lies in the setting's range: a number (ring_slots,
 * max_message_bytes, ...) or a length (thread_name).  A setting without a
 * range (an enum, a flag) takes any value here.
 */
bool sr_log__in_range(int setting, uint64_t value);
/*
 * What the setting's range expects, in buf: "expected a power of two from 2
 * to 1073741824" as the config field's message says it (for_env false), or
 * as its variable's does, with the unit and suffixes the variable takes
 * ("... (suffix k or m: x1024)").  Returns buf.
 */
const char *sr_log__range_expected(int setting, bool for_env, char *buf, size_t size);
/*
 * What a value outside the range is called: "invalid" where the range
 * holds only powers of two (a value between its bounds may be refused
 * too), else "out of range".
 */
const char *sr_log__range_verdict(int setting);

#endif /* SR_LOG_SETTINGS_INTERNAL_H */

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_settings.c: the one table of the settings: each one's SEQRING_LOG*
 * variable, its config field (its name, where it lies, how the environment
 * applies it) and its range of values.  The range is written here once,
 * for the validation of config.FIELD and for the variable's parser; each
 * says it in its own words (the variable's takes suffixes), from the same
 * numbers.
 */
#include "sr_log_settings_internal.h"
#include "sr_log_fast.h"
#include "sr_ring.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* A setting's range; max 0: none (the setting is an enum or a flag, checked by its parser). */
typedef struct sr_log_range {
	uint64_t min, max;
	bool power_of_two;
	const char *min_note;      /* after the minimum: " (off)" */
	const char *field_note;    /* after config.FIELD's range: " (one hour)" */
	const char *env_note;      /* after the variable's range: its unit and suffixes */
} sr_log_range;

/* A setting held by one field of sr_log_config: its name, how the environment applies it, where it lies. */
#define FIELD(kind, member) \
	#member, SR_FIELD_##kind, offsetof(sr_log_config, member), sizeof(((sr_log_config *)0)->member)
/* A setting of more than one field (level + level_spec), or compared otherwise (the sinks, the wait). */
#define NO_FIELD(name) name, SR_FIELD_OTHER, 0, 0

static const struct sr_log_setting_row {
	const char *env_name;
	const char *field_name;
	uint8_t field_kind;        /* enum sr_log_field_kind: how the environment applies it */
	uint16_t offset, size;     /* the sr_log_config field; size 0: more than one field's bytes */
	sr_log_range range;
} settings[SR_SET_COUNT] = {
	[SR_SET_LEVEL] = { "SEQRING_LOG", NO_FIELD("level + level_spec"), { 0 } },
	[SR_SET_MODE] = { "SEQRING_LOG_MODE", FIELD(OTHER, mode), { 0 } },
	[SR_SET_PRODUCER] = { "SEQRING_LOG_PRODUCER", FIELD(OTHER, producer), { 0 } },
	[SR_SET_RING_SLOTS] = { "SEQRING_LOG_RING_SLOTS", FIELD(INT64, ring_slots),
	    { 2, SR_RING_MAX_SLOT_COUNT, true, "", "", " (suffix k or m: x1024)" } },
	[SR_SET_SLOT_SIZE] = { "SEQRING_LOG_SLOT_SIZE", FIELD(SIZE, slot_size),
	    { 64, SR_RING_MAX_SLOT_SIZE, true, "", "", " (suffix k: x1024)" } },
	[SR_SET_THREAD_RING_SLOTS] = { "SEQRING_LOG_THREAD_RING_SLOTS", FIELD(INT64, thread_ring_slots),
	    { 2, SR_RING_MAX_SLOT_COUNT, true, "", "", " (suffix k or m: x1024)" } },
	[SR_SET_WAIT] = { "SEQRING_LOG_WAIT", NO_FIELD("wait_strategy"), { 0 } },
	[SR_SET_FULL_POLICY] = { "SEQRING_LOG_FULL_POLICY", FIELD(OTHER, full_policy), { 0 } },
	[SR_SET_DISCARD_LEVEL] = { "SEQRING_LOG_DISCARD_LEVEL", FIELD(LEVEL, discard_level), { 0 } },
	[SR_SET_SYNC_ENQUEUE] = { "SEQRING_LOG_SYNC_ENQUEUE", FIELD(FLAG, synchronize_enqueue_when_full),
	    { 0 } },
	[SR_SET_IMMEDIATE_FLUSH] = { "SEQRING_LOG_IMMEDIATE_FLUSH", FIELD(FLAG, immediate_flush), { 0 } },
	/* The inline calls leave out the record limit's check where a record cannot exceed the minimum. */
	[SR_SET_MAX_MESSAGE] = { "SEQRING_LOG_MAX_MESSAGE", FIELD(SIZE, max_message_bytes),
	    { SR_LOG__MIN_RECORD, 1u << 20, false, "", "", " bytes (suffix k or m)" } },
	[SR_SET_MAX_LINE] = { "SEQRING_LOG_MAX_LINE", FIELD(SIZE, max_line_bytes),
	    { 256, 16u << 20, false, "", "", " bytes (suffix k or m)" } },
	[SR_SET_LAYOUT] = { "SEQRING_LOG_LAYOUT", FIELD(OTHER, layout), { 0 } },
	[SR_SET_PATTERN] = { "SEQRING_LOG_PATTERN", FIELD(OTHER, pattern), { 0 } },
	[SR_SET_CLOCK] = { "SEQRING_LOG_CLOCK", FIELD(OTHER, clock), { 0 } },
	[SR_SET_SINKS] = { "SEQRING_LOG_SINK", NO_FIELD("sinks"), { 0 } },
	/* The kernel's limit on a thread's name (pthread_setname_np): 16 bytes with the NUL. */
	[SR_SET_THREAD_NAME] = { "SEQRING_LOG_THREAD_NAME", FIELD(OTHER, thread_name),
	    { 1, 15, false, "", " characters", " characters" } },
	[SR_SET_CLOSE_AT_EXIT] = { "SEQRING_LOG_CLOSE_AT_EXIT", FIELD(FLAG, close_at_exit), { 0 } },
	[SR_SET_EXIT_TIMEOUT] = { "SEQRING_LOG_EXIT_TIMEOUT_MS", FIELD(INT, exit_timeout_ms),
	    { 0, 3600000, false, "", " (one hour)", " milliseconds" } },
	[SR_SET_FORK] = { "SEQRING_LOG_FORK", FIELD(OTHER, fork_policy), { 0 } },
	[SR_SET_BACKTRACE] = { "SEQRING_LOG_BACKTRACE", FIELD(INT, backtrace_size),
	    { 0, 65536, false, " (off)", "", " messages" } },
	[SR_SET_BACKTRACE_LEVEL] = { "SEQRING_LOG_BACKTRACE_LEVEL", FIELD(LEVEL, backtrace_level), { 0 } },
	[SR_SET_BACKTRACE_TRIGGER] = { "SEQRING_LOG_BACKTRACE_TRIGGER", FIELD(LEVEL, backtrace_trigger),
	    { 0 } },
	[SR_SET_CRASH_HANDLER] = { "SEQRING_LOG_CRASH_HANDLER", FIELD(FLAG, crash_handler), { 0 } },
	[SR_SET_DESCRIBE] = { "SEQRING_LOG_DESCRIBE", FIELD(FLAG, describe), { 0 } },
	[SR_SET_REOPEN_SIGNAL] = { "SEQRING_LOG_REOPEN_SIGNAL", FIELD(OTHER, reopen_signal), { 0 } },
	[SR_SET_COLOR] = { "SEQRING_LOG_COLOR", FIELD(OTHER, color), { 0 } },
	[SR_SET_ESCAPE] = { "SEQRING_LOG_ESCAPE", FIELD(FLAG, escape_control_characters), { 0 } },
	[SR_SET_RING_DIR] = { "SEQRING_LOG_RING_DIR", FIELD(OTHER, ring_dir), { 0 } },
	[SR_SET_SITES] = { "SEQRING_LOG_SITES", FIELD(OTHER, sites), { 0 } },
};

static bool
known(int setting)
{
	return setting >= 0 && setting < SR_SET_COUNT;
}

const char *
sr_log__env_name(int setting)
{
	return known(setting) ? settings[setting].env_name : "?";
}

const char *
sr_log__field_name(int setting)
{
	return known(setting) ? settings[setting].field_name : "?";
}

int
sr_log__field_kind(int setting)
{
	return known(setting) ? settings[setting].field_kind : SR_FIELD_OTHER;
}

void *
sr_log__field_of(sr_log_config *c, int setting)
{
	return known(setting) && settings[setting].size != 0 ? (char *)c + settings[setting].offset : NULL;
}

bool
sr_log__field_differs(const sr_log_config *a, const sr_log_config *b, int setting)
{
	if (!known(setting) || settings[setting].size == 0)
		return false;
	const struct sr_log_setting_row *row = &settings[setting];
	return memcmp((const char *)a + row->offset, (const char *)b + row->offset, row->size) != 0;
}

void
sr_log__field_set_number(sr_log_config *c, int setting, uint64_t value)
{
	void *field = sr_log__field_of(c, setting);
	switch (sr_log__field_kind(setting)) {
	case SR_FIELD_INT64: *(int64_t *)field = (int64_t)value; break;
	case SR_FIELD_SIZE: *(size_t *)field = (size_t)value; break;
	case SR_FIELD_INT: *(int *)field = (int)value; break;
	default: break;
	}
}

bool
sr_log__in_range(int setting, uint64_t value)
{
	if (!known(setting) || settings[setting].range.max == 0)
		return true;
	const sr_log_range *r = &settings[setting].range;
	if (r->power_of_two && (value & (value - 1)) != 0)
		return false;
	return value >= r->min && value <= r->max;
}

const char *
sr_log__range_expected(int setting, bool for_env, char *buf, size_t size)
{
	if (!known(setting) || settings[setting].range.max == 0) {
		snprintf(buf, size, "expected a valid value");
		return buf;
	}
	const sr_log_range *r = &settings[setting].range;
	snprintf(buf, size, "expected %s%" PRIu64 "%s to %" PRIu64 "%s", r->power_of_two ? "a power of two from " : "",
	    r->min, r->min_note, r->max, for_env ? r->env_note : r->field_note);
	return buf;
}

const char *
sr_log__range_verdict(int setting)
{
	return known(setting) && settings[setting].range.power_of_two ? "invalid" : "out of range";
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_env_explain.c: the message of a failed sr_log_open says where its
 * values came from, so that a value the operator set in the environment
 * is not taken for the code's (and the other way round).
 */
#include "sr_log_config_validate_internal.h"
#include "sr_log_env_explain_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
		snprintf(buf, size, "%s=%.24s", sr_log__env_name(set), s->env_value[set]);
	else
		snprintf(buf, size, "config.%s %" PRIu64, sr_log__field_name(set), value);
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
		    sr_log__env_name(i), s->env_value[i]);
		if (n < 0 || (size_t)n + 2 > sizeof note - len)
			return;
		len += (size_t)n;
	}
	if (len > 0) {
		memcpy(note + len, ")", 2);
		append_note(err, note);
	}
}

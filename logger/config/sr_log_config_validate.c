/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_config_validate.c: the configuration's defaults, names and validation:
 * every field of sr_log_config and sr_sink_config is checked at open, and a
 * bad one is refused with a message naming the field, its value and what
 * is valid.  The settings' ranges are sr_log_settings.c's, which the
 * environment's parser reads too.  The reference is docs/configuration.md.
 */
#include "sr_log_config_validate_internal.h"
#include "sr_log_fast.h"
#include "sr_log_journald_internal.h"
#include "sr_log_reopen_internal.h"
#include "sr_log_settings_internal.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

void
sr_log_config_default(sr_log_config *c)
{
	memset(c, 0, sizeof *c);
	c->mode = SR_LOG_MODE_RING;
	c->producer = SR_LOG_PRODUCER_PER_THREAD;
	c->ring_slots = 262144;
	c->slot_size = 128;
	c->thread_ring_slots = 16384;
	c->wait_strategy = SR_LOG_DEFAULT_WAIT;
	c->full_policy = SR_LOG_FULL_BLOCK;
	c->discard_level = SR_LOG_INFO;
	c->synchronize_enqueue_when_full = true;
	c->immediate_flush = true;
	c->level = SR_LOG_INFO;
	c->max_message_bytes = 4096;
	c->max_line_bytes = 65536;
	c->layout = SR_LOG_LAYOUT_TEXT;
	c->sinks = NULL;
	c->sink_count = 0;
	c->close_at_exit = true;
	c->exit_timeout_ms = 5000;
	c->fork_policy = SR_LOG_FORK_RESTART;
	c->thread_name = NULL;
	c->ring_dir = NULL;
	c->sites = NULL;
	c->level_spec = NULL;
	c->pattern = NULL;
	c->clock = SR_LOG_CLOCK_AUTO;
	c->escape_control_characters = true;
	c->backtrace_size = 0;
	c->backtrace_level = SR_LOG_TRACE;
	c->backtrace_trigger = SR_LOG_ERROR;
	c->crash_handler = false;
	c->describe = false;
	c->ignore_environment = false;
}

/*
 * SR_OK when a number is within its setting's range, else "config.FIELD
 * VALUE is invalid: expected a power of two ..." or "... is out of range:
 * expected ...".  is_signed: value holds an int64_t field's (or an int's)
 * two's complement, printed as such; else a size_t's.
 */
static int
check_number(sr_error *err, int set, uint64_t value, bool is_signed)
{
	bool negative = is_signed && (int64_t)value < 0;
	if (!negative && sr_log__in_range(set, value))
		return SR_OK;
	char text[24], expected[160];
	if (is_signed)
		snprintf(text, sizeof text, "%" PRId64, (int64_t)value);
	else
		snprintf(text, sizeof text, "%" PRIu64, value);
	return sr_error_set(err, SR_EINVAL, "config.%s %s is %s: %s", sr_log__field_name(set), text,
	    sr_log__range_verdict(set), sr_log__range_expected(set, false, expected, sizeof expected));
}

static int
validate_sink(const sr_sink_config *s, int i, sr_error *err)
{
	if ((unsigned)s->kind > SR_SINK_JOURNALD)
		return sr_error_set(err, SR_EINVAL,
		    "config.sinks[%d].kind %d is invalid: expected SR_SINK_FILE (0), SR_SINK_FD (1), "
		    "SR_SINK_NULL (2), SR_SINK_CALLBACK (3), SR_SINK_SYSLOG (4), SR_SINK_CTF (5) or "
		    "SR_SINK_JOURNALD (6)", i, (int)s->kind);
	if (s->kind == SR_SINK_CTF && (s->layout != SR_LOG_LAYOUT_LOGGER || s->pattern != NULL))
		return sr_error_set(err, SR_EINVAL,
		    "config.sinks[%d] is a ctf sink with layout %s: a trace holds events, not lines (expected "
		    "SR_LOG_LAYOUT_LOGGER and no pattern; seqring-decode lays the trace out)", i,
		    s->pattern != NULL ? "pattern" : sr_log_layout_name(s->layout));
	int rc = sr_log__validate_sink_layout(s, i, err);
	if (rc != SR_OK)
		return rc;
	if ((unsigned)s->level > SR_LOG_OFF)
		return sr_error_set(err, SR_EINVAL,
		    "config.sinks[%d].level %d is invalid: expected SR_LOG_TRACE (0) to SR_LOG_OFF (6)",
		    i, (int)s->level);
	switch (s->kind) {
	case SR_SINK_FILE:
	case SR_SINK_CTF:
		if (s->path == NULL || s->path[0] == '\0')
			return sr_error_set(err, SR_EINVAL,
			    "config.sinks[%d].path is %s: expected the path of the %s", i, s->path == NULL ? "NULL" : "empty",
			    s->kind == SR_SINK_CTF ? "trace's directory" : "log file");
		if (s->file_mode > 07777)
			return sr_error_set(err, SR_EINVAL,
			    "config.sinks[%d].file_mode 0%o is invalid: expected 0 to 07777", i, s->file_mode);
		if (s->max_file_bytes != 0 && (s->max_file_bytes < 4096 || s->max_file_bytes > (UINT64_C(1) << 50)))
			return sr_error_set(err, SR_EINVAL,
			    "config.sinks[%d].max_file_bytes %" PRIu64 " is out of range: expected 0 (no rotation) "
			    "or 4096 to %" PRIu64, i, s->max_file_bytes, UINT64_C(1) << 50);
		if (s->keep_files < 0 || s->keep_files > 1000)
			return sr_error_set(err, SR_EINVAL,
			    "config.sinks[%d].keep_files %d is out of range: expected 0 to 1000", i, s->keep_files);
		break;
	case SR_SINK_FD:
		if (s->fd < 0 || fcntl(s->fd, F_GETFD) == -1)
			return sr_error_set(err, SR_EINVAL,
			    "config.sinks[%d].fd %d is not an open file descriptor", i, s->fd);
		if (s->pipe_bytes != 0 && (s->pipe_bytes < 4096 || s->pipe_bytes > (1 << 30)))
			return sr_error_set(err, SR_EINVAL,
			    "config.sinks[%d].pipe_bytes %d is out of range: expected 0 (leave the pipe) "
			    "or 4096 to %d", i, s->pipe_bytes, 1 << 30);
		break;
	case SR_SINK_CALLBACK:
		if (s->write == NULL)
			return sr_error_set(err, SR_EINVAL,
			    "config.sinks[%d].write is NULL: a callback sink needs a write function", i);
		break;
	default:
		break;
	}
	if (s->kind == SR_SINK_SYSLOG && (rc = sr_log__validate_syslog_sink(s, i, err)) != SR_OK)
		return rc;
	if (s->kind == SR_SINK_JOURNALD && (rc = sr_log__journald_validate(s, i, err)) != SR_OK)
		return rc;
	if (s->kind == SR_SINK_FILE || s->kind == SR_SINK_FD || s->kind == SR_SINK_SYSLOG || s->kind == SR_SINK_CTF ||
	    s->kind == SR_SINK_JOURNALD) {
		if (s->buffer_bytes < 256 || s->buffer_bytes > (64u << 20))
			return sr_error_set(err, SR_EINVAL,
			    "config.sinks[%d].buffer_bytes %zu is out of range: expected 256 to %u",
			    i, s->buffer_bytes, 64u << 20);
		if (s->write_timeout_ms < 0 || s->write_timeout_ms > 60000)
			return sr_error_set(err, SR_EINVAL,
			    "config.sinks[%d].write_timeout_ms %d is out of range: expected 0 to 60000",
			    i, s->write_timeout_ms);
	}
	return SR_OK;
}

int
sr_log__config_validate(const sr_log_config *c, sr_wait_config *wait, sr_error *err)
{
	if ((unsigned)c->mode > SR_LOG_MODE_SYNC)
		return sr_error_set(err, SR_EINVAL,
		    "config.mode %d is invalid: expected SR_LOG_MODE_RING (0), SR_LOG_MODE_QUEUE (1) "
		    "or SR_LOG_MODE_SYNC (2)", (int)c->mode);
	int rc;
	if ((rc = check_number(err, SR_SET_RING_SLOTS, (uint64_t)c->ring_slots, true)) != SR_OK ||
	    (rc = check_number(err, SR_SET_SLOT_SIZE, c->slot_size, false)) != SR_OK)
		return rc;
	if ((unsigned)c->producer > SR_LOG_PRODUCER_PER_THREAD)
		return sr_error_set(err, SR_EINVAL,
		    "config.producer %d is invalid: expected SR_LOG_PRODUCER_SHARED (0) or "
		    "SR_LOG_PRODUCER_PER_THREAD (1)", (int)c->producer);
	if ((rc = check_number(err, SR_SET_THREAD_RING_SLOTS, (uint64_t)c->thread_ring_slots, true)) != SR_OK)
		return rc;
	const char *spec = c->wait_strategy != NULL ? c->wait_strategy : SR_LOG_DEFAULT_WAIT;
	sr_error werr;
	if (sr_wait_config_parse(spec, wait, &werr) != SR_OK)
		return sr_error_set(err, SR_EINVAL, "config.wait_strategy '%.48s' is invalid: %s",
		    spec, werr.message);
	if ((unsigned)c->full_policy > SR_LOG_FULL_SYNC)
		return sr_error_set(err, SR_EINVAL,
		    "config.full_policy %d is invalid: expected SR_LOG_FULL_BLOCK (0), SR_LOG_FULL_DROP (1), "
		    "SR_LOG_FULL_DISCARD (2) or SR_LOG_FULL_SYNC (3)", (int)c->full_policy);
	if ((unsigned)c->discard_level > SR_LOG_FATAL)
		return sr_error_set(err, SR_EINVAL,
		    "config.discard_level %d is invalid: expected SR_LOG_TRACE (0) to SR_LOG_FATAL (5)",
		    (int)c->discard_level);
	if ((unsigned)c->level > SR_LOG_OFF)
		return sr_error_set(err, SR_EINVAL,
		    "config.level %d is invalid: expected SR_LOG_TRACE (0) to SR_LOG_OFF (6)", (int)c->level);
	if ((rc = check_number(err, SR_SET_MAX_MESSAGE, c->max_message_bytes, false)) != SR_OK)
		return rc;
	/* A record must fit the ring it goes into: the shared one, or each thread's. */
	bool per_thread = sr_log__config_per_thread(c);
	/* A thread's ring is thread_ring_slots x slot_size bytes in slots of SR_LOG__THREAD_SLOT (sr_log_fast.h). */
	uint64_t thread_ring_bytes = (uint64_t)c->thread_ring_slots * c->slot_size;
	if (per_thread && thread_ring_bytes / SR_LOG__THREAD_SLOT > (uint64_t)SR_RING_MAX_SLOT_COUNT)
		return sr_error_set(err, SR_EINVAL,
		    "config.thread_ring_slots %" PRId64 " x slot_size %zu is too large: a thread's ring of %" PRIu64
		    " bytes, expected at most %" PRIu64, c->thread_ring_slots, c->slot_size, thread_ring_bytes,
		    (uint64_t)SR_RING_MAX_SLOT_COUNT * SR_LOG__THREAD_SLOT);
	int64_t slots = per_thread ? c->thread_ring_slots : c->ring_slots;
	if (c->mode == SR_LOG_MODE_RING && c->max_message_bytes > (uint64_t)slots * c->slot_size)
		return sr_error_set(err, SR_EINVAL,
		    "config.max_message_bytes %zu exceeds the %s (%" PRId64 " slots x %zu bytes): "
		    "expected at most %" PRIu64, c->max_message_bytes, per_thread ? "thread's ring" : "ring",
		    slots, c->slot_size, (uint64_t)slots * c->slot_size);
	if ((rc = check_number(err, SR_SET_MAX_LINE, c->max_line_bytes, false)) != SR_OK)
		return rc;
	if ((unsigned)c->layout > SR_LOG_LAYOUT_JSON)
		return sr_error_set(err, SR_EINVAL,
		    "config.layout %d is invalid: expected SR_LOG_LAYOUT_TEXT (0), SR_LOG_LAYOUT_MESSAGE (1), "
		    "SR_LOG_LAYOUT_PATTERN (2) or SR_LOG_LAYOUT_JSON (3)", (int)c->layout);
	if (c->layout == SR_LOG_LAYOUT_PATTERN && c->pattern == NULL)
		return sr_error_set(err, SR_EINVAL,
		    "config.pattern is NULL: layout SR_LOG_LAYOUT_PATTERN needs a pattern");
	if (c->layout != SR_LOG_LAYOUT_PATTERN && c->pattern != NULL)
		return sr_error_set(err, SR_EINVAL,
		    "config.pattern '%.64s' is set but config.layout is %s: a pattern needs SR_LOG_LAYOUT_PATTERN",
		    c->pattern, sr_log_layout_name(c->layout));
	if (c->layout == SR_LOG_LAYOUT_JSON && c->max_line_bytes < 1024)
		return sr_error_set(err, SR_EINVAL,
		    "config.max_line_bytes %zu is too small for the json layout: expected at least 1024",
		    c->max_line_bytes);
	if ((unsigned)c->clock > SR_LOG_CLOCK_AUTO)
		return sr_error_set(err, SR_EINVAL,
		    "config.clock %d is invalid: expected SR_LOG_CLOCK_REALTIME (0), SR_LOG_CLOCK_COARSE (1), "
		    "SR_LOG_CLOCK_TSC (2) or SR_LOG_CLOCK_AUTO (3)", (int)c->clock);
	if ((unsigned)c->fork_policy > SR_LOG_FORK_DROP)
		return sr_error_set(err, SR_EINVAL,
		    "config.fork_policy %d is invalid: expected SR_LOG_FORK_RESTART (0) or SR_LOG_FORK_DROP (1)",
		    (int)c->fork_policy);
	if ((rc = check_number(err, SR_SET_EXIT_TIMEOUT, (uint64_t)c->exit_timeout_ms, true)) != SR_OK ||
	    (rc = check_number(err, SR_SET_BACKTRACE, (uint64_t)c->backtrace_size, true)) != SR_OK)
		return rc;
	if ((unsigned)c->backtrace_level > SR_LOG_FATAL)
		return sr_error_set(err, SR_EINVAL,
		    "config.backtrace_level %d is invalid: expected SR_LOG_TRACE (0) to SR_LOG_FATAL (5)",
		    (int)c->backtrace_level);
	if ((unsigned)c->backtrace_trigger > SR_LOG_FATAL)
		return sr_error_set(err, SR_EINVAL,
		    "config.backtrace_trigger %d is invalid: expected SR_LOG_TRACE (0) to SR_LOG_FATAL (5)",
		    (int)c->backtrace_trigger);
	if (c->backtrace_size > 0 && c->mode != SR_LOG_MODE_RING)
		return sr_error_set(err, SR_EINVAL,
		    "config.backtrace_size %d needs mode ring (mode is %s): the backtrace lives on the consumer",
		    c->backtrace_size, sr_log_mode_name(c->mode));
	if (c->crash_handler && c->mode != SR_LOG_MODE_RING)
		return sr_error_set(err, SR_EINVAL,
		    "config.crash_handler needs mode ring (mode is %s): the other modes write as they go",
		    sr_log_mode_name(c->mode));
	if (c->sink_count < 0 || c->sink_count > SR_LOG_MAX_SINKS)
		return sr_error_set(err, SR_EINVAL,
		    "config.sink_count %d is out of range: expected 0 to %d", c->sink_count, SR_LOG_MAX_SINKS);
	if (c->sink_count > 0 && c->sinks == NULL)
		return sr_error_set(err, SR_EINVAL,
		    "config.sinks is NULL but config.sink_count is %d", c->sink_count);
	for (int i = 0; i < c->sink_count; i++) {
		rc = validate_sink(&c->sinks[i], i, err);
		if (rc != SR_OK)
			return rc;
		if (c->sinks[i].layout == SR_LOG_LAYOUT_JSON && c->max_line_bytes < 1024)
			return sr_error_set(err, SR_EINVAL,
			    "config.max_line_bytes %zu is too small for the json layout of config.sinks[%d]: "
			    "expected at least 1024", c->max_line_bytes, i);
	}
	if (!sr_log__reopen_signal_valid(c->reopen_signal))
		return sr_error_set(err, SR_EINVAL,
		    "config.reopen_signal %d is invalid: expected 0 (none), SIGHUP, SIGUSR1 or SIGUSR2",
		    c->reopen_signal);
	if ((unsigned)c->color > SR_LOG_COLOR_NEVER)
		return sr_error_set(err, SR_EINVAL,
		    "config.color %d is invalid: expected SR_LOG_COLOR_AUTO (0), SR_LOG_COLOR_ALWAYS (1) or "
		    "SR_LOG_COLOR_NEVER (2)", (int)c->color);
	char expected[160];
	if (c->ring_dir != NULL && c->ring_dir[0] == '\0')
		return sr_error_set(err, SR_EINVAL, "config.ring_dir is empty: expected a directory's path, or NULL for none");
	if (c->ring_dir != NULL && c->mode != SR_LOG_MODE_RING)
		return sr_error_set(err, SR_EINVAL,
		    "config.ring_dir \"%.64s\" needs mode ring (the mode is %s): only the rings' records can outlive "
		    "the process", c->ring_dir, sr_log_mode_name(c->mode));
	if (c->thread_name != NULL && !sr_log__in_range(SR_SET_THREAD_NAME, strlen(c->thread_name)))
		return sr_error_set(err, SR_EINVAL, "config.thread_name '%.32s' is invalid: %s", c->thread_name,
		    sr_log__range_expected(SR_SET_THREAD_NAME, false, expected, sizeof expected));
	return SR_OK;
}

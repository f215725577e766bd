/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_env_internal.h: the configuration with the environment applied,
 * and where each setting came from (internal; sr_log_env.c resolves,
 * sr_log_describe.c reports).
 */
#ifndef SR_LOG_ENV_INTERNAL_H
#define SR_LOG_ENV_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "sr_log_internal.h"
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
	SR_SET_REOPEN_SIGNAL, SR_SET_COLOR, SR_SET_ESCAPE, SR_SET_COUNT
};

/* What sr_log_describe needs to say where each setting came from. */
typedef struct sr_log_settings {
	uint8_t source[SR_SET_COUNT];
	char *env_value[SR_SET_COUNT];    /* the variable's text when source is SR_SRC_ENV */
	bool environment_read;            /* false with config.ignore_environment */
} sr_log_settings;

/*
 * The configuration sr_log_open uses: the caller's with the environment
 * applied (sr_log_env.c).  Strings point into the caller's config, the
 * environment, or `owned`.
 */
typedef struct sr_log_resolved {
	sr_log_config cfg;
	sr_log_settings settings;         /* env_value owned here until moved into the logger */
	sr_sink_config sinks[SR_LOG_MAX_SINKS];
	char *sink_text;                  /* writable copy of SEQRING_LOG_SINK (paths point into it) */
	sr_log_spec code_spec;            /* config.level_spec */
	sr_log_spec env_spec;             /* SEQRING_LOG */
} sr_log_resolved;

/* Applies the environment to *config (unless config->ignore_environment) and parses the specs. */
int sr_log__resolve(const sr_log_config *config, sr_log_resolved *r, sr_error *err);
void sr_log__resolved_free(sr_log_resolved *r);
/*
 * Makes the message of a failed sr_log_open (err, not NULL) name where its
 * values came from: a sink of SEQRING_LOG_SINK is named so rather than as
 * config.sinks[N]; a ring or queue that cannot be allocated names the
 * variables or fields of its size; any other error lists the variables
 * applied.  in_validation: the validation refused the configuration (else
 * it passed, and building the logger failed).
 */
void sr_log__explain_open_failure(const sr_log_resolved *r, const sr_log_settings *settings,
    bool in_validation, sr_error *err);
/* The SEQRING_LOG* variable of a setting. */
const char *sr_log__env_name(int setting);
/* The config field of a setting, for describe. */
const char *sr_log__field_name(int setting);

#endif /* SR_LOG_ENV_INTERNAL_H */

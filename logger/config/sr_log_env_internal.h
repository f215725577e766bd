/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_env_internal.h: the configuration with the environment applied,
 * and where each setting came from (internal; sr_log_env.c resolves,
 * sr_log_describe.c reports; the settings' table is sr_log_settings.c's).
 */
#ifndef SR_LOG_ENV_INTERNAL_H
#define SR_LOG_ENV_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "sr_log_internal.h"
#include "sr_log_level_spec_internal.h"
#include "sr_log_settings_internal.h"

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

#endif /* SR_LOG_ENV_INTERNAL_H */

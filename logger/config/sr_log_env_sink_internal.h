/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_env_sink_internal.h: SEQRING_LOG_SINK's grammar (internal;
 * sr_log_env_sink.c).
 */
#ifndef SR_LOG_ENV_SINK_INTERNAL_H
#define SR_LOG_ENV_SINK_INTERNAL_H

#include "sr_log_internal.h"

/*
 * Parses text, a writable copy of SEQRING_LOG_SINK's value `all` (modified
 * in place: the sinks' paths point into it), into sinks[0..*count).  SR_OK,
 * or SR_EINVAL naming the variable, the sink's index and what is valid.
 */
int sr_log__env_parse_sinks(const char *all, char *text, sr_sink_config sinks[SR_LOG_MAX_SINKS], int *count,
    sr_error *err);

#endif /* SR_LOG_ENV_SINK_INTERNAL_H */

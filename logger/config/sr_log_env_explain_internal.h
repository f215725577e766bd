/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_env_explain_internal.h: where the values of a failed sr_log_open
 * came from (internal; sr_log_env_explain.c).
 */
#ifndef SR_LOG_ENV_EXPLAIN_INTERNAL_H
#define SR_LOG_ENV_EXPLAIN_INTERNAL_H

#include "sr_log_env_internal.h"

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

#endif /* SR_LOG_ENV_EXPLAIN_INTERNAL_H */

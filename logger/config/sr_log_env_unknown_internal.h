/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_env_unknown_internal.h: names in the environment that look like
 * settings and are none (internal; sr_log_env_unknown.c).
 */
#ifndef SR_LOG_ENV_UNKNOWN_INTERNAL_H
#define SR_LOG_ENV_UNKNOWN_INTERNAL_H

#include "sr_log_internal.h"

/*
 * Looks through the environment for names that begin SEQRING_LOG in any
 * case and are no setting: SEQRING_LOG_<anything> is SR_EINVAL (with the
 * setting it was probably meant to be); another (SEQRING_LOGLEVEL,
 * seqring_log_mode) gets a warning on stderr, since it may be another
 * program's.  SR_OK otherwise.
 */
int sr_log__env_check_unknown(sr_error *err);

#endif /* SR_LOG_ENV_UNKNOWN_INTERNAL_H */

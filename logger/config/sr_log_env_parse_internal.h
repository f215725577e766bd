/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_env_parse_internal.h: the forms of the environment's numbers and
 * booleans (internal; sr_log_env_parse.c), for the variables and the
 * options of SEQRING_LOG_SINK.
 */
#ifndef SR_LOG_ENV_PARSE_INTERNAL_H
#define SR_LOG_ENV_PARSE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

/*
 * A byte count or number: digits with an optional k, m or g suffix (x1024,
 * "kb" too), spaces around.  False for anything else, or a value past
 * UINT64_MAX.
 */
bool sr_log__env_parse_size(const char *v, uint64_t *out);
/* 1, true, yes, on or 0, false, no, off, in any case. */
bool sr_log__env_parse_bool(const char *v, bool *out);

#endif /* SR_LOG_ENV_PARSE_INTERNAL_H */

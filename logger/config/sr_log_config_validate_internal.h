/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_config_validate_internal.h: validating a configuration and parsing names
 * (internal; sr_log_config_validate.c).
 */
#ifndef SR_LOG_CONFIG_INTERNAL_H
#define SR_LOG_CONFIG_INTERNAL_H

#include "sr_log_internal.h"
#include "sr_log_names_internal.h"
#include "sr_log_sink_validate_internal.h"
#include "sr_wait.h"

/*
 * Checks every field of *c (the environment already applied) and parses its
 * wait strategy into *wait.  SR_OK, or SR_EINVAL naming the field, its value
 * and what is valid.
 */
int sr_log__config_validate(const sr_log_config *c, sr_wait_config *wait, sr_error *err);
/*
 * Whether c's callers write into rings of their own: producer per_thread in
 * mode ring (the queue and sync modes ignore the producer).
 */
static inline bool
sr_log__config_per_thread(const sr_log_config *c)
{
	return c->mode == SR_LOG_MODE_RING && c->producer == SR_LOG_PRODUCER_PER_THREAD;
}

#endif /* SR_LOG_CONFIG_INTERNAL_H */

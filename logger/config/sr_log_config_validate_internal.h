/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_config_validate_internal.h: validating a configuration and parsing names
 * (internal; sr_log_config_validate.c).
 */
#ifndef SR_LOG_CONFIG_INTERNAL_H
#define SR_LOG_CONFIG_INTERNAL_H

#include "sr_log_internal.h"
#include "sr_wait.h"

/*
 * Checks every field of *c (the environment already applied) and parses its
 * wait strategy into *wait.  SR_OK, or SR_EINVAL naming the field, its value
 * and what is valid.
 */
int sr_log__config_validate(const sr_log_config *c, sr_wait_config *wait, sr_error *err);
/* A sink's layout and pattern; a syslog sink's own fields (sr_log_sink_validate.c). */
int sr_log__validate_sink_layout(const sr_sink_config *s, int i, sr_error *err);
int sr_log__validate_syslog_sink(const sr_sink_config *s, int i, sr_error *err);
/*
 * Whether c's callers write into rings of their own: producer per_thread in
 * mode ring (the queue and sync modes ignore the producer).
 */
static inline bool
sr_log__config_per_thread(const sr_log_config *c)
{
	return c->mode == SR_LOG_MODE_RING && c->producer == SR_LOG_PRODUCER_PER_THREAD;
}
/* "shared", "per_thread"; "unknown" for another value. */
const char *sr_log__producer_name(int producer);
/* Parses those names (case-insensitive) into *producer: 0, or -1 when it is none. */
int sr_log__producer_parse(const char *name, sr_log_producer *producer);
/* "restart", "drop"; parse: 0, or -1 for an unknown name. */
const char *sr_log__fork_policy_name(int policy);
int sr_log__fork_policy_parse(const char *name, sr_log_fork_policy *policy);
/* The index of name in names (case-insensitive) into *out: 0, or -1 when it is none. */
int sr_log__parse_name(const char *name, const char *const *names, int count, int *out);

#endif /* SR_LOG_CONFIG_INTERNAL_H */

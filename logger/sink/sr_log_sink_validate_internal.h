/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_sink_validate_internal.h: checking a sink's configuration before
 * anything is opened (internal; sr_log_sink_validate.c, called by the
 * configuration's validation).
 */
#ifndef SR_LOG_SINK_VALIDATE_INTERNAL_H
#define SR_LOG_SINK_VALIDATE_INTERNAL_H

#include "sr_log_internal.h"

/*
 * config.sinks[i]'s layout and pattern; a syslog sink's own fields.  SR_OK,
 * or SR_EINVAL naming the field, its value and what is valid.
 */
int sr_log__validate_sink_layout(const sr_sink_config *s, int i, sr_error *err);
int sr_log__validate_syslog_sink(const sr_sink_config *s, int i, sr_error *err);

#endif /* SR_LOG_SINK_VALIDATE_INTERNAL_H */

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_layout_pattern_internal.h: the pattern layout, compiled once at
 * open and rendered per line (sr_log_layout_pattern.c; internal).
 */
#ifndef SR_LOG_LAYOUT_PATTERN_INTERNAL_H
#define SR_LOG_LAYOUT_PATTERN_INTERNAL_H

#include "sr_log_event_internal.h"

typedef struct sr_log_pattern sr_log_pattern;

/* Compiles text into *out (NULL on failure, err naming the column at fault). */
int sr_log__pattern_compile(const char *text, sr_log_pattern **out, sr_error *err);
void sr_log__pattern_free(sr_log_pattern *p);
void sr_log__pattern_render(const sr_log_pattern *p, const sr_log_event *ev, sr_fmt_buf *out);

#endif /* SR_LOG_LAYOUT_PATTERN_INTERNAL_H */

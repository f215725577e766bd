/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_layout_text_internal.h: the text layout (sr_log_layout_text.c;
 * internal).
 */
#ifndef SR_LOG_LAYOUT_TEXT_INTERNAL_H
#define SR_LOG_LAYOUT_TEXT_INTERNAL_H

#include "sr_log_event_internal.h"

/* 2026-11-30T12:34:56.123456Z INFO  [main] net.http - message (file.c:42) */
void sr_log__layout_text(const sr_log_event *ev, sr_fmt_buf *out);

#endif /* SR_LOG_LAYOUT_TEXT_INTERNAL_H */

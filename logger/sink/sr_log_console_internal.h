/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_console_internal.h: colouring the level on stdout and stderr sinks
 * (internal; sr_log_console.c).
 */
#ifndef SR_LOG_CONSOLE_INTERNAL_H
#define SR_LOG_CONSOLE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "sr_log_names_internal.h"
#include "sr_log_sink_internal.h"

/* At open: whether this descriptor sink colours (color, NO_COLOR, isatty). */
bool sr_log__console_colors(int fd, int color);
/*
 * Copies a text-layout line into the sink's buffer with its level word
 * coloured (the first "TRACE".."FATAL" after the timestamp); false when the
 * line has no level where the text layout puts it (it is then copied as is
 * by the caller).
 */
size_t sr_log__console_color_line(int level, const char *line, size_t len, char *out, size_t room);
/* The most bytes colouring adds to a line. */
#define SR_LOG_COLOR_EXTRA 16

#endif /* SR_LOG_CONSOLE_INTERNAL_H */

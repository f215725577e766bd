/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_fmt_escape_internal.h: escaping the control characters of text
 * (internal; sr_fmt_escape.c).
 */
#ifndef SR_FMT_ESCAPE_INTERNAL_H
#define SR_FMT_ESCAPE_INTERNAL_H

#include <stddef.h>

#include "sr_fmt_buf_internal.h"

/*
 * Escapes the control characters in out from start to its end, in place:
 * LF as \n, CR \r, TAB \t, other C0 controls and DEL as \xHH, C1 controls
 * as \u00HH.  The escapes that do not fit before out's cap are cut whole,
 * and out->want counts them.
 */
void sr_fmt_escape_controls(sr_fmt_buf *out, size_t start);

#endif /* SR_FMT_ESCAPE_INTERNAL_H */

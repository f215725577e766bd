/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_direct_internal.h: a call rendered on its caller's thread into a
 * line the caller keeps (sr_log_direct.c; internal).  The rest of
 * sr_log_direct.c, what sync mode and policy sync write, is declared with
 * the backends' interface (sr_log_backend_internal.h).
 */
#ifndef SR_LOG_DIRECT_INTERNAL_H
#define SR_LOG_DIRECT_INTERNAL_H

#include <stddef.h>

#include "sr_log_internal.h"

/*
 * Encodes and renders a call on its thread, as sr_log__render_call does,
 * into a heap buffer of its own (the queue holds the line until its
 * drainer writes it): the line, to free, and its length in *len; NULL when
 * out of memory (counted as a drop).
 */
char *sr_log__render_call_on_heap(sr_log *log, const sr_log_rec *h, const sr_fmt_gather *g, size_t *len);

#endif /* SR_LOG_DIRECT_INTERNAL_H */

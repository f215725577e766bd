/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_direct_internal.h: a record rendered and written by its caller,
 * not by a consumer: sync mode, the queue's callers and policy sync
 * (sr_log_direct.c; internal).
 */
#ifndef SR_LOG_DIRECT_INTERNAL_H
#define SR_LOG_DIRECT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "sr_log_event_internal.h"
#include "sr_log_internal.h"

/*
 * Encodes a record linearly into stack (stack_size bytes) or the heap;
 * NULL when out of memory.  Free it when it is not stack.
 */
unsigned char *sr_log__encode_linear(const sr_log_rec *h, const sr_fmt_gather *g,
    unsigned char *stack, size_t stack_size);
/*
 * Renders a linear record into stack (stack_size bytes), or into a heap
 * buffer when the line is longer and max_line allows it; counts cut lines,
 * format errors and cut records.  Returns the line (free it when it is not
 * stack) and its length in *len.
 */
char *sr_log__render_by_caller(sr_log *log, const sr_log_rec *h, const unsigned char *body,
    size_t body_len, char *stack, size_t stack_size, size_t *len);
/*
 * Encodes and renders a call on its thread (sr_log__encode_linear, then
 * sr_log__render_by_caller): the line, or NULL when out of memory (counted
 * as a drop).
 */
char *sr_log__render_call(sr_log *log, const sr_log_rec *h, const sr_fmt_gather *g,
    char *stack, size_t stack_size, size_t *len);
/*
 * Renders on this thread and writes now or, when buffered (the caller is
 * the sinks' only user: sync mode without immediate_flush, under its
 * mutex), appends to the sinks' buffers; counts it as accepted and written.
 */
void sr_log__write_by_caller(sr_log *log, const sr_log_rec *h, const sr_fmt_gather *g, bool buffered);
/* A line its caller wrote: accepted, and written (reached every sink) or write_failed. */
void sr_log__count_by_caller(sr_log *log, bool reached);

/*
 * Encodes and renders a call on its thread, as sr_log__render_call does,
 * into a heap buffer of its own (the queue holds the line until its
 * drainer writes it): the line, to free, and its length in *len; NULL when
 * out of memory (counted as a drop).
 */
char *sr_log__render_call_on_heap(sr_log *log, const sr_log_rec *h, const sr_fmt_gather *g, size_t *len);

/*
 * A record a dead process left in its ring directory, written now by the
 * recovering thread (any mode; the sinks' locks order it with a running
 * consumer): its event with ts_ns, the time its own process's calibration
 * gives, rendered once per layout into line (max_line +
 * SR_FMT_LINE_RESERVE bytes) and written to every sink that takes its
 * level.  Counted as written by a caller.
 */
void sr_log__write_recovered(sr_log *log, const sr_log_rec *h, const unsigned char *body, size_t body_len,
    int64_t ts_ns, char *line);
/*
 * An event made elsewhere (a decoded trace's: its own time, thread and
 * backtrace mark), written now as sr_log__write_recovered writes and counted
 * as it counts.  line: max_line + SR_FMT_LINE_RESERVE bytes.
 */
void sr_log__write_event_now(sr_log *log, const sr_log_event *ev, char *line);
/* The logger's own line (category "seqring"), written now as sr_log__write_recovered writes. */
void sr_log__write_text_now(sr_log *log, int level, const char *text, size_t len, char *line);

#endif /* SR_LOG_DIRECT_INTERNAL_H */

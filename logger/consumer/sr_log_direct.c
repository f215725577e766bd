/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_direct.c: a record rendered and written on its caller's thread:
 * sync mode, the queue mode's formatting before it enqueues, and the ring's
 * full-queue policy sync.
 */
#include "sr_log_backend_internal.h"
#include "sr_log_consumer_internal.h"
#include "sr_log_direct_internal.h"
#include "sr_log_event_internal.h"
#include "sr_log_layout_internal.h"
#include "sr_log_sink_internal.h"
#include "sr_log_thread_internal.h"
#include "sr_log_fanout_internal.h"

#include <stdlib.h>
#include <string.h>


/*
 * Renders a linear record into stack (stack_size bytes), or into a heap
 * buffer when the line is longer and max_line allows it.  Returns the line
 * (stack or heap: the caller frees it when it is not stack).
 */
char *
sr_log__render_by_caller(sr_log *log, const sr_log_rec *h, const unsigned char *body, size_t body_len,
    char *stack, size_t stack_size, size_t *len)
{
	size_t cap = stack_size - SR_FMT_LINE_RESERVE;
	if (cap > log->opt.max_line)
		cap = log->opt.max_line;
	sr_fmt_buf b = { stack, 0, cap, 0 };
	sr_log__render_record(log, h, body, body_len, &b);
	if (b.want > b.len && cap < log->opt.max_line) {
		size_t need = b.want < log->opt.max_line ? b.want : log->opt.max_line;
		char *heap = malloc(need + SR_FMT_LINE_RESERVE);
		if (heap != NULL) {
			b = (sr_fmt_buf){ heap, 0, need, 0 };
			sr_log__render_record(log, h, body, body_len, &b);
		}
	}
	if (sr_log__finish_line(log, &b))
		sr_atomic_faa_i64(&log->totals.truncated_lines, 1);
	if ((h->kind & SR_REC_KIND_MASK) == SR_REC_FORMAT_ERROR)
		sr_atomic_faa_i64(&log->totals.format_errors, 1);
	if (h->kind & SR_REC_TRUNCATED)
		sr_atomic_faa_i64(&log->totals.truncated_records, 1);
	*len = b.len;
	return b.data;
}

/* Encodes a record linearly into stack or the heap; NULL when out of memory. */
unsigned char *
sr_log__encode_linear(const sr_log_rec *h, const sr_fmt_gather *g, unsigned char *stack, size_t stack_size)
{
	unsigned char *rec = h->size <= stack_size ? stack : malloc(h->size);
	if (rec == NULL)
		return NULL;
	sr_ring_writer w = sr_ring_writer_linear(rec);
	sr_log__record_encode(&w, h, g);
	return rec;
}

char *
sr_log__render_call(sr_log *log, const sr_log_rec *h, const sr_fmt_gather *g,
    char *stack, size_t stack_size, size_t *len)
{
	unsigned char rstack[2048];
	unsigned char *rec = sr_log__encode_linear(h, g, rstack, sizeof rstack);
	if (rec == NULL) {
		sr_log__count_drop(log, h->level);
		return NULL;
	}
	char *line = sr_log__render_by_caller(log, h, rec + sizeof *h, h->size - sizeof *h,
	    stack, stack_size, len);
	if (rec != rstack)
		free(rec);
	return line;
}

char *
sr_log__render_call_on_heap(sr_log *log, const sr_log_rec *h, const sr_fmt_gather *g, size_t *len)
{
	char lstack[4096];
	char *line = sr_log__render_call(log, h, g, lstack, sizeof lstack, len);
	/* NULL (counted), or a line too long for the stack: on the heap already. */
	if (line != lstack)
		return line;
	char *copy = malloc(*len);
	if (copy == NULL) {
		sr_log__count_drop(log, h->level);
		return NULL;
	}
	memcpy(copy, line, *len);
	return copy;
}

void
sr_log__count_by_caller(sr_log *log, bool reached)
{
	/* Counters only: no data rides on them. */
	sr_atomic_faa_i64(&log->totals.accepted, 1);
	sr_atomic_faa_i64(reached ? &log->totals.written : &log->totals.write_failed, 1);
	if (reached)
		sr_atomic_faa_i64(&log->totals.written_by_caller, 1);
}

/*
 * Policy sync (or sync mode): render on this thread and write now, or, when
 * buffered (sync mode without immediate_flush, under its mutex, which makes
 * the caller the sinks' only user), append to the sinks' buffers.
 */
/*
 * write_by_caller when sinks use layouts of their own or frame with the
 * event (syslog): render once per layout, on this thread, into a line
 * buffer of max_line bytes.
 */
static void
write_by_caller_fanout(sr_log *log, const sr_log_rec *h, const sr_fmt_gather *g, bool buffered)
{
	unsigned char rstack[2048];
	unsigned char *rec = sr_log__encode_linear(h, g, rstack, sizeof rstack);
	char *line = malloc(log->opt.max_line + SR_FMT_LINE_RESERVE);
	if (rec == NULL || line == NULL) {
		sr_log__count_drop(log, h->level);
	} else {
		sr_log_event ev;
		sr_log__event_of_record(log, h, rec + sizeof *h, h->size - sizeof *h, false, false, &ev);
		if (sr_log__fanout(log, &ev, h->level, buffered ? SR_DISPATCH_BUFFERED : SR_DISPATCH_NOW, line))
			sr_atomic_faa_i64(&log->totals.truncated_lines, 1);
		if ((h->kind & SR_REC_KIND_MASK) == SR_REC_FORMAT_ERROR)
			sr_atomic_faa_i64(&log->totals.format_errors, 1);
		if (h->kind & SR_REC_TRUNCATED)
			sr_atomic_faa_i64(&log->totals.truncated_records, 1);
		sr_atomic_faa_i64(&log->totals.accepted, 1);
		sr_atomic_faa_i64(&log->totals.written, 1);
		sr_atomic_faa_i64(&log->totals.written_by_caller, 1);
		/* A syslog sink that delivers again says what it lost (no consumer does in mode sync). */
		sr_log__report_sink_losses(log, line, buffered ? SR_DISPATCH_BUFFERED : SR_DISPATCH_NOW);
	}
	free(line);
	if (rec != rstack)
		free(rec);
}

void
sr_log__write_by_caller(sr_log *log, const sr_log_rec *h, const sr_fmt_gather *g, bool buffered)
{
	if (!sr_log__fanout_single(log, h->level)) {
		write_by_caller_fanout(log, h, g, buffered);
		return;
	}
	char lstack[4096];
	size_t len;
	char *line = sr_log__render_call(log, h, g, lstack, sizeof lstack, &len);
	if (line == NULL)
		return;
	bool reached = true;
	if (buffered)
		sr_log__dispatch_buffered(log, h->level, line, len); /* a failed flush uncounts it later */
	else
		reached = sr_log__dispatch_now(log, h->level, line, len);
	sr_log__count_by_caller(log, reached);
	if (line != lstack)
		free(line);
}

void
sr_log__write_recovered(sr_log *log, const sr_log_rec *h, const unsigned char *body, size_t body_len,
    int64_t ts_ns, char *line)
{
	sr_log_event ev;
	sr_log__event_of_record(log, h, body, body_len, false, false, &ev);
	ev.ts_ns = ts_ns;  /* converted by the dead process's calibration, not this logger's */
	if (sr_log__fanout(log, &ev, h->level, SR_DISPATCH_NOW, line))
		sr_atomic_faa_i64(&log->totals.truncated_lines, 1);
	if ((h->kind & SR_REC_KIND_MASK) == SR_REC_FORMAT_ERROR)
		sr_atomic_faa_i64(&log->totals.format_errors, 1);
	if (h->kind & SR_REC_TRUNCATED)
		sr_atomic_faa_i64(&log->totals.truncated_records, 1);
	sr_log__count_by_caller(log, true);
}

void
sr_log__write_event_now(sr_log *log, const sr_log_event *ev, char *line)
{
	if (sr_log__fanout(log, ev, ev->level, SR_DISPATCH_NOW, line))
		sr_atomic_faa_i64(&log->totals.truncated_lines, 1);
	if (ev->h != NULL && (ev->h->kind & SR_REC_KIND_MASK) == SR_REC_FORMAT_ERROR)
		sr_atomic_faa_i64(&log->totals.format_errors, 1);
	if (ev->h != NULL && (ev->h->kind & SR_REC_TRUNCATED))
		sr_atomic_faa_i64(&log->totals.truncated_records, 1);
	sr_log__count_by_caller(log, true);
}

void
sr_log__write_text_now(sr_log *log, int level, const char *text, size_t len, char *line)
{
	sr_log__thread();  /* the line names this thread: its id and name known */
	sr_log_event ev;
	sr_log__event_of_text(level, text, len, &ev);
	if (sr_log__fanout(log, &ev, level, SR_DISPATCH_NOW, line))
		sr_atomic_faa_i64(&log->totals.truncated_lines, 1);
}

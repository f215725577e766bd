/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_fanout_internal.h: an event rendered once per layout its sinks use
 * and handed to them, and the sinks' loss reports (sr_log_fanout.c;
 * internal).  The consumer, the callers that write directly, the backtrace
 * and the crash handler all end a record here.
 */
#ifndef SR_LOG_FANOUT_INTERNAL_H
#define SR_LOG_FANOUT_INTERNAL_H

#include <stdbool.h>

#include "sr_log_internal.h"
#include "sr_log_event_internal.h"

/*
 * Renders an event once per distinct layout that a sink taking `level`
 * uses, into line (max_line + SR_FMT_LINE_RESERVE bytes), and hands each
 * line to its sinks (sr_log_fanout.c).  True when a line was cut.
 */
bool sr_log__fanout(sr_log *log, const sr_log_event *ev, int level, int how, char *line);
/*
 * For each syslog or journald sink that lost messages and delivers again, "N
 * message(s) could not be delivered ..." to every sink, rendered into line
 * (max_line + SR_FMT_LINE_RESERVE bytes): buffered then flushed (the
 * consumer, at the end of a batch), or written now (a caller, mode sync or
 * policy sync).
 */
void sr_log__report_sink_losses(sr_log *log, char *line, int how);
/*
 * True when no sink taking `level` renders a line: a ctf sink (or several)
 * takes the event itself, and no journald sink does (those go through
 * sr_log__fanout).
 */
bool sr_log__fanout_events_only(const sr_log *log, int level);
/* True when every sink taking `level` uses the logger's layout and none is syslog, ctf or journald. */
bool sr_log__fanout_single(const sr_log *log, int level);

#endif /* SR_LOG_FANOUT_INTERNAL_H */

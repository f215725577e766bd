/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_fanout.c: a record rendered once per distinct layout that the
 * sinks taking its level use (the table sr_log_sink_layouts.c made at
 * open), not once per sink, and each line handed to the sinks of its
 * layout.  Also here: the consumer's report of what a syslog or journald
 * sink could not deliver, which goes to every sink as drop reports do.
 */
#include "sr_log_sink_internal.h"
#include "sr_log_syslog_internal.h"
#include "sr_log_thread_internal.h"
#include "sr_log_fanout_internal.h"

#include <stdio.h>
#include <string.h>

static int
level_index(int level)
{
	return level >= 0 && level < SR_LOG_LEVEL_COUNT ? level : SR_LOG_OFF;
}

bool
sr_log__fanout_single(const sr_log *log, int level)
{
	return (log->sinks->layouts_for_level[level_index(level)] & ~1u) == 0 && !log->sinks->has_syslog &&
	    !log->sinks->has_ctf && !log->sinks->has_journald;
}

bool
sr_log__fanout_events_only(const sr_log *log, int level)
{
	/* A journald sink that takes events needs sr_log__fanout, which hands them to it. */
	return log->sinks->layouts_for_level[level_index(level)] == 0 && log->sinks->has_ctf &&
	    !log->sinks->journald_events;
}

bool
sr_log__fanout(sr_log *log, const sr_log_event *ev, int level, int how, char *line)
{
	unsigned mask = log->sinks->layouts_for_level[level_index(level)];
	bool cut = false;
	for (int k = 0; mask != 0; k++, mask >>= 1) {
		if ((mask & 1u) == 0)
			continue;
		const sr_log_layout_choice *lc = &log->sinks->layouts[k];
		/* The consumer's line for one buffering sink: laid out in its buffer, not copied there. */
		sr_log_sink *direct = how == SR_DISPATCH_BUFFERED ? sr_log__sinks_direct(log, k) : NULL;
		sr_fmt_buf b = direct != NULL ? sr_log__sink_line_room(log, direct) : (sr_fmt_buf){ line, 0, log->opt.max_line, 0 };
		sr_log__render_event(lc, ev, &b);
		cut |= sr_log__end_line(lc->layout, &b);
		if (direct != NULL)
			sr_log__sink_line_taken(direct, b.len);
		else
			sr_log__dispatch_to(log, k, how, ev, level, b.data, b.len);
	}
	if (log->sinks->has_ctf)
		sr_log__dispatch_event(log, how, ev, level);
	if (log->sinks->journald_events)
		sr_log__dispatch_journald_events(log, how, ev, level);
	return cut;
}

void
sr_log__report_sink_losses(sr_log *log, char *line, int how)
{
	for (int i = 0; i < log->sinks->n; i++) {
		sr_log_sink *s = &log->sinks->s[i];
		if (s->cfg.kind != SR_SINK_SYSLOG && s->cfg.kind != SR_SINK_JOURNALD)
			continue;
		char text[512];
		size_t n = s->cfg.kind == SR_SINK_SYSLOG ? sr_log__syslog_loss_report(s, text, sizeof text) :
		    sr_log__journald_sink_loss_report(s, text, sizeof text);
		if (n == 0)
			continue;
		if (!sr_log__self.init)
			sr_log__thread_init(&sr_log__self);
		sr_log_event ev;
		sr_log__event_of_text(SR_LOG_WARN, text, n, &ev);
		sr_log__fanout(log, &ev, SR_LOG_WARN, how, line);
		if (how == SR_DISPATCH_BUFFERED)
			sr_log__sinks_flush(log);
	}
}

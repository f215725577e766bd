/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_sink_journald.c: the journald sink, the sink room's side: its
 * client (logger/journald/) opened, handed each record under the sink's
 * lock, closed, freed, counted and described.  With the default layout the
 * sink takes the event alone (MESSAGE is the message, unescaped: the
 * journal frames a field by its length), so the fanout renders no line for
 * it; with a layout of its own it takes that layout's line beside the
 * event.
 */
#include "sr_log_journald_internal.h"
#include "sr_log_sink_internal.h"

#include <stdio.h>

int
sr_log__journald_sink_open(sr_log *log, sr_log_sink *s, int i, sr_error *err)
{
	s->takes_events = s->cfg.layout == SR_LOG_LAYOUT_LOGGER;
	return sr_log__journald_open(&s->cfg, i, log->opt.max_line, &s->journald, err);
}

void
sr_log__journald_sink_put(sr_log_sink *s, const sr_log_event *ev, int level, const char *line, size_t len,
    bool lock_held)
{
	if (!lock_held)
		pthread_mutex_lock(&s->lock);
	if (!s->closed)
		sr_log__journald_send(s->journald, ev, level, line, len, s->takes_events);
	if (!lock_held)
		pthread_mutex_unlock(&s->lock);
}

void
sr_log__dispatch_journald_events(sr_log *log, int how, const sr_log_event *ev, int level)
{
	/* The crash handler's writes must be async-signal-safe and bounded: not to journald. */
	if (how == SR_DISPATCH_RAW)
		return;
	for (int i = 0; i < log->sinks->n; i++) {
		sr_log_sink *s = &log->sinks->s[i];
		if (!s->takes_events || level < (int)s->cfg.level)
			continue;
		if (how == SR_DISPATCH_NOW)
			sr_log__sink_add(&s->messages, 1);
		else
			s->batch_messages++;
		sr_log__journald_sink_put(s, ev, level, NULL, 0, false);
	}
}

size_t
sr_log__journald_sink_loss_report(sr_log_sink *s, char *text, size_t size)
{
	if (s->journald == NULL)
		return 0;
	pthread_mutex_lock(&s->lock);
	size_t n = sr_log__journald_loss_report(s->journald, text, size);
	pthread_mutex_unlock(&s->lock);
	return n;
}

void
sr_log__journald_sink_close(sr_log_sink *s)
{
	sr_log__journald_close(s->journald);
}

void
sr_log__journald_sink_free(sr_log_sink *s)
{
	sr_log__journald_free(s->journald);
	s->journald = NULL;
}

void
sr_log__journald_sink_counters(const sr_log_sink *s, sr_log_sink_counters *o)
{
	sr_log__journald_counters(s->journald, o);
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_sink_ctf.c: the ctf: sink, between the sinks and the trace's
 * writer (logger/ctf): it takes events, not lines, so the fanout hands it
 * each event it renders for the other sinks (sr_log__dispatch_event), and
 * the sinks' open, flush, close, reopen, fork and counters reach its writer
 * here.
 */
#include "sr_log_ctf_writer_internal.h"
#include "sr_log_sink_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

int
sr_log__ctf_sink_open(sr_log *log, sr_log_sink *s, const sr_sink_config *c, int i, sr_error *err)
{
	sr_log_ctf_options o = {
		.dir = c->path,
		.file_mode = c->file_mode,
		.packet_bytes = c->buffer_bytes,
		.max_record = log->opt.max_record,
		.max_file_bytes = c->max_file_bytes,
		.keep_files = c->keep_files,
		.dropped = log->totals.dropped,
	};
	sr_error inner;
	if (sr_log__ctf_open(&s->ctf, &o, &inner) != SR_OK)
		return sr_error_set(err, inner.code, "config.sinks[%d]: %s", i, inner.message);
	s->path = strdup(c->path);
	if (s->path == NULL) {
		sr_log__ctf_close(s->ctf);
		s->ctf = NULL;
		return sr_error_set(err, SR_ENOMEM, "cannot allocate sink %d", i);
	}
	s->cfg.path = s->path;
	return SR_OK;
}

void
sr_log__dispatch_event(sr_log *log, int how, const sr_log_event *ev, int level)
{
	if (how == SR_DISPATCH_BUFFERED && log->sinks->ctf_count == 1) {
		/* The consumer and one trace: the common case, without the loop. */
		sr_log_sink *s = &log->sinks->s[log->sinks->ctf_sinks[0]];
		if (level >= (int)s->cfg.level) {
			s->batch_messages++;
			(void)sr_log__ctf_put(s->ctf, ev, SR_CTF_BUFFERED);
		}
		return;
	}
	for (int k = 0; k < log->sinks->ctf_count; k++) {
		sr_log_sink *s = &log->sinks->s[log->sinks->ctf_sinks[k]];
		if (s->ctf == NULL || level < (int)s->cfg.level)
			continue;
		switch (how) {
		case SR_DISPATCH_BUFFERED:
			s->batch_messages++;
			(void)sr_log__ctf_put(s->ctf, ev, SR_CTF_BUFFERED);  /* a loss is counted, taken at flush */
			break;
		case SR_DISPATCH_NOW:
			sr_log__sink_add(&s->messages, 1);
			pthread_mutex_lock(&s->lock);
			if (!s->closed && !sr_log__ctf_put(s->ctf, ev, SR_CTF_NOW))
				s->lost_pending++;
			pthread_mutex_unlock(&s->lock);
			break;
		default:
			(void)sr_log__ctf_put(s->ctf, ev, SR_CTF_RAW);
			break;
		}
	}
}

uint64_t
sr_log__ctf_sink_flush(sr_log_sink *s)
{
	return s->ctf != NULL ? sr_log__ctf_flush(s->ctf) : 0;
}

void
sr_log__ctf_sinks_write_raw(sr_log *log)
{
	for (int k = 0; k < log->sinks->ctf_count; k++)
		(void)sr_log__ctf_sink_flush(&log->sinks->s[log->sinks->ctf_sinks[k]]);
}

uint64_t
sr_log__ctf_sink_flush_behind(sr_log_sink *s)
{
	return s->ctf != NULL ? sr_log__ctf_flush_behind(s->ctf) : 0;
}

void
sr_log__ctf_sink_abandon(sr_log_sink *s)
{
	sr_log__ctf_abandon(s->ctf);
	s->ctf = NULL;
}

void
sr_log__ctf_sink_close(sr_log_sink *s)
{
	sr_log__ctf_close(s->ctf);
	s->ctf = NULL;
}

void
sr_log__ctf_sink_reopen(sr_log_sink *s)
{
	pthread_mutex_lock(&s->lock);
	if (!s->closed && s->ctf != NULL) {
		sr_log__ctf_reopen(s->ctf);
		sr_log__sink_add(&s->reopens, 1);
	}
	pthread_mutex_unlock(&s->lock);
}

void
sr_log__ctf_sink_after_fork(sr_log_sink *s)
{
	if (s->ctf != NULL)
		sr_log__ctf_after_fork(s->ctf);
}

void
sr_log__ctf_sink_counters(const sr_log_sink *s, sr_log_sink_counters *o)
{
	sr_log_ctf_counters c;
	sr_log__ctf_counters(s->ctf, &c);
	o->bytes = c.bytes;
	o->writes = c.writes;
	o->errors = c.errors;
	o->lost_messages = c.lost_events;
	o->rotations = c.rotations;
}

void
sr_log__ctf_sink_describe(const sr_sink_config *c, char *buf, size_t size)
{
	int n = snprintf(buf, size, "ctf %s level=%s packet=%zu", c->path != NULL ? c->path : "?",
	    sr_log_level_name(c->level), c->buffer_bytes);
	if (n > 0 && (size_t)n < size && c->max_file_bytes > 0)
		snprintf(buf + n, size - (size_t)n, " max_size=%" PRIu64 " keep=%d", c->max_file_bytes, c->keep_files);
}

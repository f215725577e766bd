/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_sink_syslog.c: the syslog sink's open, close and free, and how its
 * parts meet faults.  The sink frames each line as an RFC 5424 or RFC 3164
 * message (sr_log_syslog_frame.c) and sends it to the collector
 * (sr_log_syslog_send.c): the local datagram socket (/dev/log), UDP, TCP
 * with RFC 6587 octet counting, or a unix stream or datagram socket at a
 * path (sr_log_syslog_connect.c).  A batch goes in one send on a stream, in
 * sendmmsg bursts of datagrams otherwise.
 *
 * Faults, as rsyslog's omfwd meets them:
 *   - The collector is down at open: the open succeeds; the consumer
 *     connects in the background of its batches, each attempt bounded by
 *     write_timeout_ms, retried after a wait that doubles from 10 ms up to
 *     reconnect_max_ms.  What arrives meanwhile is counted lost.
 *   - The connection breaks (EPIPE, ECONNRESET, a stream the collector
 *     closed, a datagram socket that refuses): the messages not yet handed
 *     to the kernel are counted lost, never sent twice, and the sink
 *     reconnects.  Once it delivers again, the consumer writes "N
 *     message(s) could not be delivered ..." to the log, as drop reports are.
 *     Sends use MSG_NOSIGNAL: a dead peer never raises SIGPIPE.
 *   - A slow collector: a send waits (poll) at most write_timeout_ms; what
 *     did not go stays in the sink's buffer for the next batch, so the
 *     consumer slows down and the ring's full-queue policy applies; a
 *     message that finds the buffer still full is counted lost.
 * What the dying collector had already taken from the kernel but not
 * written cannot be known without acknowledgements (RELP): it is the one
 * loss this sink cannot count.
 */
#include "sr_log_identity_internal.h"
#include "sr_log_syslog_state_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int
sr_log__syslog_open(sr_log_sink *s, size_t max_line, sr_error *err)
{
	const sr_sink_config *c = &s->cfg;
	struct sr_log_syslog *ss = calloc(1, sizeof *ss);
	if (ss == NULL)
		return sr_error_set(err, SR_ENOMEM, "cannot allocate syslog sink %d", s->index);
	ss->fd = -1;
	ss->transport = c->syslog_transport;
	ss->facility = c->syslog_facility;
	ss->format = c->syslog_format;
	ss->backoff_ms = SR_SYSLOG_FIRST_BACKOFF_MS;
	/* Framing until a connection says otherwise (a unix socket of either kind: datagram). */
	ss->stream = ss->transport == SR_SYSLOG_TCP || ss->transport == SR_SYSLOG_UNIX_STREAM;
	const char *addr = c->syslog_address;
	if (ss->transport == SR_SYSLOG_UDP || ss->transport == SR_SYSLOG_TCP) {
		/* HOST:PORT, or [V6]:PORT (checked by validation) */
		const char *colon = strrchr(addr, ':');
		const char *h = addr;
		size_t hl = (size_t)(colon - addr);
		if (h[0] == '[' && hl >= 2 && h[hl - 1] == ']') {
			h++;
			hl -= 2;
		}
		snprintf(ss->host, sizeof ss->host, "%.*s", (int)hl, h);
		snprintf(ss->port, sizeof ss->port, "%s", colon + 1);
	} else {
		snprintf(ss->path, sizeof ss->path, "%s", addr != NULL ? addr : "/dev/log");
	}
	if (gethostname(ss->hostname, sizeof ss->hostname - 1) != 0 || ss->hostname[0] == '\0')
		snprintf(ss->hostname, sizeof ss->hostname, "-");
	for (char *p = ss->hostname; *p != '\0'; p++)
		if (*p <= ' ' || *p > '~')
			*p = '-';
	if (c->syslog_app != NULL)
		snprintf(ss->app, sizeof ss->app, "%s", c->syslog_app);
	else
		sr_log__program_name(ss->app, sizeof ss->app);
	snprintf(ss->procid, sizeof ss->procid, "%ld", (long)getpid());
	int il = snprintf(ss->ident, sizeof ss->ident, "Z %s %s %s - ", ss->hostname, ss->app, ss->procid);
	ss->ident_len = il > 0 && (size_t)il < sizeof ss->ident ? (size_t)il : 0;
	ss->stamp_sec = INT64_MIN;
	ss->frame_cap = max_line + 1024;
	ss->cap = c->buffer_bytes > ss->frame_cap ? c->buffer_bytes : ss->frame_cap;
	ss->max_frames = (int)(ss->cap / 64 + 1);
	ss->frame = malloc(ss->frame_cap);
	ss->buf = malloc(ss->cap);
	ss->ends = malloc((size_t)ss->max_frames * sizeof *ss->ends);
	s->syslog = ss;
	if (ss->frame == NULL || ss->buf == NULL || ss->ends == NULL) {
		sr_log__syslog_free(s);
		return sr_error_set(err, SR_ENOMEM, "cannot allocate syslog sink %d", s->index);
	}
	/* The collector may be down: that is no error, the consumer retries. */
	(void)sr_log__syslog_try_connect(s);
	return SR_OK;
}

void
sr_log__syslog_close(sr_log_sink *s)
{
	if (s->syslog == NULL)
		return;
	sr_log__syslog_send_batch_locked(s);
	/* What the collector did not take in time is lost: counted, a loss no line can report. */
	sr_log__syslog_lose_batch(s, EAGAIN);
	sr_log__syslog_disconnect(s->syslog);
}

void
sr_log__syslog_free(sr_log_sink *s)
{
	struct sr_log_syslog *ss = s->syslog;
	if (ss == NULL)
		return;
	sr_log__syslog_disconnect(ss);
	free(ss->frame);
	free(ss->buf);
	free(ss->ends);
	free(ss);
	s->syslog = NULL;
}
